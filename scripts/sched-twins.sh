#!/bin/sh
# sched-twins.sh - each schedule file of schedules/ beside the hand-written
# variant it twins: one interleaved run per twin (the two run back to back
# on every shape, their calls spread over the rounds), over the 24 BERT
# shapes at 2 threads; then per twin the geomean of time(sched:NAME) /
# time(NAME), the range over shapes and the shapes outside 0.85-1.15, and
# each shape's ratio (OUTDIR/NAME.ratios).
#
# usage: scripts/sched-twins.sh OUTDIR [NAME ...]   (default: every f32 twin)
# A typed twin (its file states `type T`, as packed_bf16 and packed_u8s8) runs
# beside the variant its name less _T names, at --dtype T.
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
pairs=
for n in $names; do
    file="$here/../schedules/$n.sched"
    [ -f "$file" ] || { echo "sched-twins: $n: no schedules/$n.sched" >&2; exit 2; }
    # rule_based.sched states the rules at tm=32 (R7 picks tm from M, which a
    # param cannot); --param tm=32 sets both to it, so they are one nest.
    extra=
    [ "$n" = rule_based ] && extra="--param tm=32"
    # a typed twin: the hand-written variant is the name less _TYPE
    type=$(sed -n 's/^type[[:space:]]\{1,\}\([a-z0-9]*\)[[:space:]]*$/\1/p' "$file" | head -n 1)
    base=$n
    if [ -n "$type" ]; then
        base=${n%_"$type"}
        [ "$base" != "$n" ] ||
            { echo "sched-twins: $n: states type $type but is not named VARIANT_$type" >&2; exit 2; }
        extra="$extra --dtype $type"
    fi
    "$G" --variant "$base" --schedule "$file" $shapes --threads "$threads" \
        $opts $extra --quiet -o "$out/$n.json" -f >"$out/$n.txt" 2>&1 ||
        { echo "sched-twins: $n: run failed: $(tail -n 1 "$out/$n.txt")" >&2; exit 1; }
    pairs="$pairs $n:$base"
done
python3 - "$out" $pairs <<'PY'
import json, math, sys
out, pairs = sys.argv[1], [p.split(":") for p in sys.argv[2:]]
print("| twin | geomean sched/hand | range | shapes outside 0.85-1.15 |")
print("|---|--:|--:|---|")
for n, base in pairs:
    doc = json.load(open(f"{out}/{n}.json"))
    t = {}
    for r in doc["results"]:
        t.setdefault((r["kernel"], r["M"]), {})[r["variant"]] = r["median_us"]
    ratios = {k: v["sched:" + n] / v[base] for k, v in t.items() if base in v and "sched:" + n in v}
    g = math.exp(sum(math.log(x) for x in ratios.values()) / len(ratios))
    off = [f"{k[0]} M={k[1]} {x:.2f}" for k, x in sorted(ratios.items()) if not 0.85 <= x <= 1.15]
    print(f"| {n} | {g:.3f} | {min(ratios.values()):.2f}-{max(ratios.values()):.2f} | "
          f"{', '.join(off) if off else 'none'} |")
    with open(f"{out}/{n}.ratios", "w") as f:
        f.write("kernel M sched_median_us hand_median_us ratio\n")
        for k in sorted(ratios, key=lambda k: (k[0], k[1])):
            v = t[k]
            f.write(f"{k[0]} {k[1]} {v['sched:' + n]:.1f} {v[base]:.1f} {ratios[k]:.3f}\n")
PY
