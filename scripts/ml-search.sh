#!/bin/sh
# ml-search.sh - the guided search against the random one: on one shape,
# `tune --space` for BUDGET seconds drawing at random, for a third of it
# drawing at random, and for a third of it guided by MODEL (a model that
# never saw the shape: scripts/ml-leave-one-out.sh trains them); then the
# three searches' best schedules, packed and rule_based in one interleaved
# run.  Prints each best's time over the long random search's (the median
# over the rounds of the per-round median ratio, results/notes/ml-guided.md).
#
# usage: scripts/ml-search.sh OUTDIR KERNEL M
# environment: MODEL (required), GEMMBENCH (build/gemmbench), SPACE
#   (schedules/cpu_gemm.space), BUDGET (150), THREADS (1), SEED (1),
#   RUN_OPTS (the timed run's options), LOCK (/tmp/gemmbench-bench.lock)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
script=ml-search
die() { echo "gemmbench: ml-search: $1" >&2; exit 2; }
[ $# -eq 3 ] || die "usage: scripts/ml-search.sh OUTDIR KERNEL M"
out=$1 k=$2 m=$3
G=${GEMMBENCH:-$here/../build/gemmbench}
SPACE=${SPACE:-$here/../schedules/cpu_gemm.space}
BUDGET=${BUDGET:-150}
THREADS=${THREADS:-1}
SEED=${SEED:-1}
LOCK=${LOCK:-/tmp/gemmbench-bench.lock}
RUN_OPTS=${RUN_OPTS:---rounds 7 --reps 10 --min-reps 5 --warmup 2 --max-time 2}
[ -n "${MODEL:-}" ] || die "set MODEL to a model that never saw the shape"
# whole numbers written plainly (lib.sh): 08 is refused, never read as octal
whole "$BUDGET" 0 999999 || die "BUDGET $(shown "$BUDGET"): seconds, a whole number (no leading zero)"
whole "$THREADS" 1 4096 || die "THREADS $(shown "$THREADS"): a whole number from 1 to 4096"
whole "$SEED" 0 2147483647 || die "SEED $(shown "$SEED"): a whole number from 0"
whole "$m" 1 999999 || die "M $(shown "$m"): a whole number from 1 (no leading zero)"
[ -r "$MODEL" ] || die "MODEL $(shown "$MODEL"): not readable"
[ "$BUDGET" -ge 3 ] || die "BUDGET $BUDGET: at least 3 seconds (a third of it is searched)"
case $k in qkv|mlp_expand|mlp_reduce) ;; *) die "$(shown "$k"): the kernel is qkv, mlp_expand or mlp_reduce" ;; esac
[ -f "$G" ] && [ -x "$G" ] || die "GEMMBENCH $(shown "$G"): not an executable file"
[ -f "$SPACE" ] && [ -r "$SPACE" ] || die "SPACE $(shown "$SPACE"): not a readable file"
for tool in flock python3; do
    command -v $tool >/dev/null 2>&1 || die "$tool is not installed"
done
mkdir -p "$out" 2>/dev/null || die "OUTDIR $(shown "$out"): cannot create it"
third=$((BUDGET / 3))
# search NAME BUDGET [TUNE_OPTION...]: one search, its best as NAME.sched
search() {
    name=$1 budget=$2
    shift 2
    flock "$LOCK" "$G" tune --space "$SPACE" --kernel "$k" --m "$m" --threads "$THREADS" \
        --budget "$budget" --seed "$SEED" "$@" --records "$out/$name.json" \
        --database "$out/$name.jsonl" >"$out/$name.txt" 2>&1 ||
        { echo "gemmbench: ml-search: $name: tune failed: $(tail -n 1 "$out/$name.txt")" >&2; exit 1; }
    python3 - "$out/$name.json" "$out/$name.sched" <<'PY' || exit 1
import json, sys
try:
    (rec,) = json.load(open(sys.argv[1]))["records"]
except Exception as e:
    sys.exit(f"gemmbench: ml-search: {sys.argv[1]}: not the records of one shape ({type(e).__name__})")
if not rec["schedule"]:
    sys.exit(f"gemmbench: ml-search: {sys.argv[1]}: rule_based beat every schedule the search found")
open(sys.argv[2], "w").write(rec["schedule"])
PY
}
search "random-$BUDGET" "$BUDGET"
search "random-$third" "$third"
search "guided-$third" "$third" --model "$MODEL"
flock "$LOCK" "$G" --variant packed,rule_based --schedule "$out/random-$BUDGET.sched" \
    --schedule "$out/random-$third.sched" --schedule "$out/guided-$third.sched" \
    --kernel "$k" --m "$m" --threads "$THREADS" $RUN_OPTS --quiet -o "$out/run.json" -f \
    >"$out/run.txt" 2>&1 || { echo "gemmbench: ml-search: run failed: $(tail -n 1 "$out/run.txt")" >&2; exit 1; }

step "the summary" "$out/summary.txt" python3 - "$out" "$BUDGET" "$third" "$here" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[4])
from round_ratios import ratio
out, budget, third = sys.argv[1], sys.argv[2], sys.argv[3]
v = {r["variant"]: r for r in json.load(open(f"{out}/run.json"))["results"]}

base = v[f"sched:random-{budget}"]
print(f"{'entry':18} {'trials':>6} {'search_best_us':>14} {'median_us':>9}  over random-{budget} (rounds)")
for name in (f"random-{budget}", f"random-{third}", f"guided-{third}", "packed", "rule_based"):
    r = v[name if name in v else "sched:" + name]
    trials = best = "-"
    if not name.startswith(("packed", "rule")):
        (rec,) = json.load(open(f"{out}/{name}.json"))["records"]
        trials, best = rec["trials"], f"{rec['median_us']:.1f}"
    q = ratio(r, base)
    print(f"{name:18} {trials:>6} {best:>14} {r['median_us']:9.1f}  {q[0]:.3f} ({q[1]:.3f}..{q[2]:.3f}) {r['check']}")
PY
