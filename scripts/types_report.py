#!/usr/bin/env python3
"""types_report.py - packed against oneDNN in each type, from one gemmbench run.

Usage: types_report.py RUN.json [--format table|md]

RUN: a run of `gemmbench --dtype f32,bf16,u8s8 --variant packed,onednn
--prepack` (scripts/bench-types.sh), every type of a shape measured back to
back in each round.  Per type and entry (packed, packed+prepack): per shape
the median time over onednn's (the same pre-packing: packed over onednn,
packed+prepack over onednn+prepack), as the ratio of the medians and as the
median over rounds of the per-round ratio (a slow spell of a shared machine
that spans a shape's entries cancels); its %peak of the type's own peak
(machine.dtype_peaks; f32: machine.peak_gflops); and its speed over f32
packed's on the same shape (f32 median / the type's median: how much faster
the type makes the same schedule).  Then the geometric means over shapes,
and over the shapes with M >= 64.  The machine's CPU is printed first: every
figure is of that kind.  RUN may be gzip-compressed (RUN.json.gz).
"""
import gzip
import json
import math
import statistics
import sys


def geomean(xs):
    xs = [x for x in xs if x and x > 0 and math.isfinite(x)]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def round_medians(e):
    rounds = {}
    for s, r in zip(e["samples_us"], e.get("sample_rounds") or [1] * len(e["samples_us"])):
        rounds.setdefault(r, []).append(s)
    return {r: statistics.median(v) for r, v in rounds.items()}


def per_round_ratio(a, b):
    ra, rb = round_medians(a), round_medians(b)
    common = sorted(set(ra) & set(rb))
    return statistics.median(ra[r] / rb[r] for r in common) if common else float("nan")


def main(argv):
    if len(argv) < 2 or argv[1].startswith("-"):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    fmt = "table"
    if len(argv) >= 4 and argv[2] == "--format":
        fmt = argv[3]
    try:
        with open(argv[1], "rb") as f:
            raw = f.read()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        doc = json.loads(raw)
        results = doc["results"]
        machine = doc["machine"]
    except (OSError, EOFError, ValueError, KeyError, TypeError) as e:
        print(f"types_report: {argv[1]}: not a gemmbench result file ({e})", file=sys.stderr)
        return 2
    peaks = {"f32": machine.get("peak_gflops") or 0.0}
    for t, p in (machine.get("dtype_peaks") or {}).items():
        peaks[t] = (p or {}).get("peak") or 0.0
    by = {}
    for e in results:
        key = (e.get("dtype", "f32"), e["label"], e["kernel"], e["M"], e["threads"])
        by[key] = e
    threads = sorted({k[4] for k in by})
    types = [t for t in ("f32", "bf16", "u8s8") if any(k[0] == t for k in by)]
    shapes = sorted({(k[2], k[3]) for k in by}, key=lambda s: (["qkv", "mlp_expand", "mlp_reduce"].index(s[0])
                                                                if s[0] in ("qkv", "mlp_expand", "mlp_reduce") else 9, s[1]))
    print(f"machine: {machine.get('cpu_model', '?')}, {machine.get('logical_cpus', '?')} CPUs, "
          f"run {(doc.get('run') or {}).get('started', '?')}")
    print("peaks: " + ", ".join(f"{t} {peaks.get(t, 0):.1f} {'GOP/s' if t == 'u8s8' else 'GFLOP/s'}"
                                for t in types))
    sep = " | " if fmt == "md" else "  "
    for th in threads:
        for t in types:
            print()
            print(f"{t}, {th} thread{'s' if th > 1 else ''}: time over onednn's (medians; per round), "
                  f"% of the {t} peak, speed over f32 packed")
            head = ["shape", "packed/onednn", "per round", "prepack/onednn+pp", "pp per round",
                    "packed %peak", "prepack %peak", "onednn %peak", "x f32 packed"]
            if fmt == "md":
                print("| " + " | ".join(head) + " |")
                print("|" + "---|" * len(head))
            else:
                print(sep.join(f"{h:>14}" for h in head))
            cols = {h: [] for h in head}
            big = {h: [] for h in head}
            for kern, M in shapes:
                g = lambda label, tt=t: by.get((tt, label, kern, M, th))
                p, pp, o, op, f = g("packed"), g("packed+prepack"), g("onednn"), g("onednn+prepack"), \
                    g("packed", "f32")
                if p is None or o is None:
                    continue
                pk = peaks.get(t, 0.0)
                row = [
                    p["median_us"] / o["median_us"],
                    per_round_ratio(p, o),
                    pp["median_us"] / op["median_us"] if pp and op else float("nan"),
                    per_round_ratio(pp, op) if pp and op else float("nan"),
                    100 * p["gflops"] / pk if pk else float("nan"),
                    100 * pp["gflops"] / pk if pp and pk else float("nan"),
                    100 * o["gflops"] / pk if pk else float("nan"),
                    f["median_us"] / p["median_us"] if f else float("nan"),
                ]
                for h, v in zip(head[1:], row):
                    cols[h].append(v)
                    if M >= 64:
                        big[h].append(v)
                cells = [f"{kern} M={M}"] + [f"{v:.3f}" if i < 4 or i == 7 else f"{v:.1f}"
                                             for i, v in enumerate(row)]
                print(("| " + " | ".join(cells) + " |") if fmt == "md" else sep.join(f"{c:>14}" for c in cells))
            for name, src in (("geomean", cols), ("geomean M>=64", big)):
                vals = [geomean(src[h]) for h in head[1:]]
                cells = [name] + [f"{v:.3f}" if i < 4 or i == 7 else f"{v:.1f}" for i, v in enumerate(vals)]
                print(("| " + " | ".join(cells) + " |") if fmt == "md" else sep.join(f"{c:>14}" for c in cells))
            worst = max(cols["packed/onednn"], default=float("nan"))
            print(f"worst packed/onednn: {worst:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
