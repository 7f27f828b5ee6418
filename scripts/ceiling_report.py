#!/usr/bin/env python3
"""ceiling_report.py - the ceiling benchmark's summary, from gemmbench JSON.

Usage: ceiling_report.py RUN_2T.json [RUN_1T.json]

RUN_2T: the interleaved run (packed, packed+prepack, reference libraries on
the BERT shapes).  Prints per-shape medians, then per entry the geometric
mean over shapes of its median time divided by onednn's, and of its GFLOP/s
divided by the measured peak of the run's thread count (machine.peak_gflops).
RUN_1T (optional): a one-thread run; prints each entry's percent of the
one-thread peak on every shape it has.  Entries are told apart by label
(packed and packed+prepack are separate entries, never mixed).
"""
import json
import math
import sys

ORDER = ["packed", "packed+prepack", "openblas", "blis", "onednn"]
TARGETS = [  # (label, at most this x onednn's time)
    ("packed", 1.00),
    ("packed+prepack", 0.95),
]


def load(path):
    with open(path) as f:
        doc = json.load(f)
    if not doc.get("complete"):
        print(f"note: {path} is incomplete (interrupted run)")
    return doc


def labels_in(results):
    seen = []
    for r in results:
        if r["label"] not in seen:
            seen.append(r["label"])
    return sorted(seen, key=lambda l: (ORDER.index(l) if l in ORDER else len(ORDER), l))


def geomean(values):
    values = [v for v in values if v > 0]
    if not values:
        return float("nan")
    return math.exp(sum(math.log(v) for v in values) / len(values))


def report_interleaved(doc):
    results = doc["results"]
    peak = doc["machine"].get("peak_gflops") or 0.0
    run = doc["run"]
    labels = labels_in(results)
    shapes = []
    table = {}
    for r in results:
        key = (r["kernel"], r["M"], r["K"], r["N"])
        if key not in shapes:
            shapes.append(key)
        table[key, r["label"]] = r
    print(f"ceiling: {len(shapes)} shapes, {run['threads']} threads, median of "
          f"{run['reps']} after {run['warmup']} warm-ups; measured peak "
          f"{peak:.1f} GFLOP/s at {run['threads']} threads "
          f"({doc['machine'].get('peak_isa', '?')}), "
          f"{doc['machine'].get('peak_gflops_1thread', 0):.1f} at 1 thread")
    print()
    width = max(10, max(len(l) for l in labels) + 1)
    print(f"{'kernel':<11} {'M':>4} " + "".join(f"{l:>{width}}" for l in labels)
          + "   (median us)")
    failed = []
    for key in shapes:
        row = f"{key[0]:<11} {key[1]:>4} "
        for l in labels:
            r = table.get((key, l))
            row += f"{r['median_us']:>{width}.1f}" if r else f"{'-':>{width}}"
            if r and r.get("check") == "fail":
                failed.append(f"{l} {key[0]} M={key[1]}")
        print(row)
    print()
    have_onednn = any(l == "onednn" for l in labels)
    summary = {}
    for l in labels:
        ratios, fractions = [], []
        for key in shapes:
            r = table.get((key, l))
            if r is None:
                continue
            o = table.get((key, "onednn"))
            if o is not None:
                ratios.append(r["median_us"] / o["median_us"])
            if peak > 0:
                fractions.append(r["gflops"] / peak)
        summary[l] = (geomean(ratios) if ratios else float("nan"),
                      geomean(fractions) if fractions else float("nan"), len(ratios))
    print(f"{'geomean over shapes':<22}" + "".join(f"{l:>{width}}" for l in labels))
    if have_onednn:
        print(f"{'time / onednn':<22}"
              + "".join(f"{summary[l][0]:>{width - 1}.3f}x" for l in labels))
    else:
        print("time / onednn          (onednn not in this build)")
    if peak > 0:
        print(f"{'GFLOP/s / peak':<22}"
              + "".join(f"{100 * summary[l][1]:>{width - 1}.1f}%" for l in labels))
    print()
    if have_onednn:
        for label, limit in TARGETS:
            if label in summary:
                got = summary[label][0]
                print(f"target {label} <= {limit:.2f}x onednn: {got:.3f}x "
                      f"{'met' if got <= limit else 'NOT met'}")
        if "packed" in summary:
            for other in ("openblas", "blis"):
                if other in summary:
                    mine, theirs = summary["packed"][0], summary[other][0]
                    print(f"target packed faster than {other}: {mine:.3f}x vs {theirs:.3f}x "
                          f"{'met' if mine < theirs else 'NOT met'}")
    if failed:
        print("CHECK FAILED: " + ", ".join(failed))
    return 1 if failed else 0


def report_one_thread(doc):
    peak = doc["machine"].get("peak_gflops") or 0.0
    print()
    print(f"1 thread (peak {peak:.1f} GFLOP/s, {doc['machine'].get('peak_isa', '?')}):")
    status = 0
    for r in doc["results"]:
        pct = 100 * r["gflops"] / peak if peak > 0 else float("nan")
        print(f"  {r['label']:<16} {r['kernel']} M={r['M']}: median {r['median_us']:.1f} us, "
              f"{r['gflops']:.1f} GFLOP/s, {pct:.1f}% of the 1-thread peak")
        if r.get("check") == "fail":
            status = 1
        if r["label"] == "packed" and r["kernel"] == "mlp_expand" and r["M"] == 384:
            print(f"  target packed >= 90% of the 1-thread peak: {pct:.1f}% "
                  f"{'met' if pct >= 90 else 'NOT met'}")
    return status


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    status = report_interleaved(load(argv[1]))
    if len(argv) > 2:
        status |= report_one_thread(load(argv[2]))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
