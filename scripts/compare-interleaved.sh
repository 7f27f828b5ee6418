#!/usr/bin/env bash
# compare-interleaved.sh - the A/A and A/B experiments of src/analysis/compare.md
# (measured in results/notes/compare.md), for a machine shared with other work.
# Two plain back-to-back sweeps there differ by whatever else ran
# meanwhile; here every (variant, kernel, M) is measured in ROUNDS short
# runs per side, alternating A,B then B,A, so that both sides sample the
# same spread of machine states.  With BUSY=1 two busy loops run during
# every B run: a known slowdown with identical keys.  The runs of each
# side are pooled into OUTDIR/a.json and OUTDIR/b.json (samples
# concatenated, median recomputed), ready for
#   build/gemmbench compare OUTDIR/a.json OUTDIR/b.json
#
# usage: scripts/compare-interleaved.sh OUTDIR [BUSY=0|1] [ROUNDS=4]
# environment: VARIANTS (baseline parallel vec_j), KERNELS (qkv mlp_reduce),
#   MS (16 64 128), GEMMBENCH (build/gemmbench).  Needs python3 for the pooling.
set -u
out=${1:?usage: scripts/compare-interleaved.sh OUTDIR [BUSY] [ROUNDS]}
busy=${2:-0}
rounds=${3:-4}
here=$(cd "$(dirname "$0")" && pwd)
G=${GEMMBENCH:-$here/../build/gemmbench}
mkdir -p "$out/parts" || exit 3
loops=()
# Never leave a busy loop behind, whatever ends the script.
trap '[ ${#loops[@]} -gt 0 ] && kill "${loops[@]}" 2>/dev/null' EXIT
trap 'exit 130' INT TERM

for k in ${KERNELS:-qkv mlp_reduce}; do
    for m in ${MS:-16 64 128}; do
        for v in ${VARIANTS:-baseline parallel vec_j}; do
            for r in $(seq 1 "$rounds"); do
                order="A B"
                [ $((r % 2)) = 0 ] && order="B A"
                for side in $order; do
                    loops=()
                    if [ "$side" = B ] && [ "$busy" = 1 ]; then
                        sh -c 'while :; do :; done' & loops+=($!)
                        sh -c 'while :; do :; done' & loops+=($!)
                    fi
                    "$G" --quiet --variant "$v" --kernel "$k" --m "$m" --reps 5 --min-reps 2 \
                        --warmup 2 --force -o "$out/parts/$side-$k-$m-$v-$r.json" >/dev/null
                    status=$?
                    [ ${#loops[@]} -gt 0 ] && kill "${loops[@]}"
                    wait 2>/dev/null
                    loops=()
                    [ $status -eq 0 ] || exit $status
                done
            done
        done
    done
done

python3 - "$out" <<'PY'
import glob, json, sys
out = sys.argv[1]
for side, name in (("A", "a.json"), ("B", "b.json")):
    doc, pooled, order = None, {}, []
    for path in sorted(glob.glob(f"{out}/parts/{side}-*.json")):
        d = json.load(open(path))
        doc = doc or d
        for r in d["results"]:
            key = (r["variant"], r["kernel"], r["M"])
            # Each run's rounds follow the rounds pooled so far: the
            # samples' round tags (sample_rounds) stay one per sample, as
            # compare reads them.
            tags = r.get("sample_rounds") or [1] * len(r["samples_us"])
            if key in pooled:
                p = pooled[key]
                base = max(p["sample_rounds"])
                p["samples_us"] += r["samples_us"]
                p["sample_rounds"] += [base + t for t in tags]
            else:
                pooled[key] = dict(r, sample_rounds=list(tags))
                order.append(key)
    for r in pooled.values():
        s = sorted(r["samples_us"])
        n = len(s)
        r["median_us"] = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
        r["reps"] = n
        r["rounds"] = max(r["sample_rounds"])
    doc["results"] = [pooled[k] for k in order]
    doc["run"]["rounds"] = max(r["rounds"] for r in doc["results"])
    doc["run"]["command"] = f"scripts/compare-interleaved.sh: side {side}, rounds pooled"
    with open(f"{out}/{name}", "w") as f:
        json.dump(doc, f, indent=1)
PY
