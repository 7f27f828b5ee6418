#!/bin/sh
# sched-twins.sh - each schedule file of schedules/ beside the hand-written
# variant it twins: one interleaved run per twin (the two run back to back
# on every shape, their calls spread over the rounds), over the 24 BERT
# shapes at 2 threads; then per twin the geomean of time(sched:NAME) /
# time(NAME), the range over shapes and the shapes outside 0.85-1.15, and
# each shape's ratio (OUTDIR/NAME.ratios).
#
# usage: scripts/sched-twins.sh OUTDIR [NAME ...]   (default: every twin)
# environment: GEMMBENCH (build/gemmbench); RUN_OPTS (default
#   --rounds 5 --reps 15 --min-reps 5 --warmup 2 --max-time 2; about 8 minutes);
#   SHAPES (default --kernel all: the 24 BERT shapes; e.g. --shape 16x16x16
#   for a smoke test); THREADS (default 2)
set -u
out=${1:?usage: scripts/sched-twins.sh OUTDIR [NAME ...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
G=${GEMMBENCH:-$here/../build/gemmbench}
opts=${RUN_OPTS:---rounds 5 --reps 15 --min-reps 5 --warmup 2 --max-time 2}
shapes=${SHAPES:---kernel all}
threads=${THREADS:-2}
names=${*:-k4 k8 k16 k32 k64 vec_j parallel parallel_vec_j vec_j_k16 full tvm_blocking tvm_vectorize tvm_permute tvm_packing tvm_cache_write tvm_parallel rule_based packed}
mkdir -p "$out" || exit 3
for n in $names; do
    # rule_based.sched states the rules at tm=32 (R7 picks tm from M, which a
    # param cannot); --param tm=32 sets both to it, so they are one nest.
    extra=
    [ "$n" = rule_based ] && extra="--param tm=32"
    "$G" --variant "$n" --schedule "$here/../schedules/$n.sched" $shapes --threads "$threads" \
        $opts $extra --quiet -o "$out/$n.json" -f >"$out/$n.txt" 2>&1 ||
        { echo "sched-twins: $n: run failed: $(tail -n 1 "$out/$n.txt")" >&2; exit 1; }
done
python3 - "$out" $names <<'PY'
import json, math, sys
out, names = sys.argv[1], sys.argv[2:]
print("| twin | geomean sched/hand | range | shapes outside 0.85-1.15 |")
print("|---|--:|--:|---|")
for n in names:
    doc = json.load(open(f"{out}/{n}.json"))
    t = {}
    for r in doc["results"]:
        t.setdefault((r["kernel"], r["M"]), {})[r["variant"]] = r["median_us"]
    ratios = {k: v["sched:" + n] / v[n] for k, v in t.items() if n in v and "sched:" + n in v}
    g = math.exp(sum(math.log(x) for x in ratios.values()) / len(ratios))
    off = [f"{k[0]} M={k[1]} {x:.2f}" for k, x in sorted(ratios.items()) if not 0.85 <= x <= 1.15]
    print(f"| {n} | {g:.3f} | {min(ratios.values()):.2f}-{max(ratios.values()):.2f} | "
          f"{', '.join(off) if off else 'none'} |")
    with open(f"{out}/{n}.ratios", "w") as f:
        f.write("kernel M sched_median_us hand_median_us ratio\n")
        for k in sorted(ratios, key=lambda k: (k[0], k[1])):
            v = t[k]
            f.write(f"{k[0]} {k[1]} {v['sched:' + n]:.1f} {v[n]:.1f} {ratios[k]:.3f}\n")
PY
