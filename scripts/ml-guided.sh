#!/bin/sh
# ml-guided.sh - issue 46's bar for learned schedules: a trial database
# from `tune --space --database` over nine BERT shapes (qkv, mlp_expand,
# mlp_reduce at M = 32, 128, 384), `model train` on it, then one
# interleaved run of ml_guided (--model), rule_based and packed on six
# shapes the database never saw (M = 64, 256), and ml_guided with --model
# none; prints per shape the times over rule_based's and packed's, and the
# geomeans (src/learn/LEARN.md, results/notes/ml-guided.md).
#
# usage: scripts/ml-guided.sh OUTDIR
# environment: GEMMBENCH (build/gemmbench), SPACE (schedules/cpu_gemm.space),
#   BUDGET (seconds per database shape, 20), THREADS (2), SEED (1),
#   DATABASE (an existing database: the search is skipped),
#   LOCK (/tmp/gemmbench-bench.lock: every timed step holds it)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
script=ml-guided
die() { echo "gemmbench: ml-guided: $1" >&2; exit 2; }
[ $# -eq 1 ] || die "usage: scripts/ml-guided.sh OUTDIR"
out=$1
G=${GEMMBENCH:-$here/../build/gemmbench}
SPACE=${SPACE:-$here/../schedules/cpu_gemm.space}
BUDGET=${BUDGET:-20}
THREADS=${THREADS:-2}
SEED=${SEED:-1}
LOCK=${LOCK:-/tmp/gemmbench-bench.lock}
# every setting checked before the first step
whole "$BUDGET" 1 99999 || die "BUDGET $(shown "$BUDGET"): seconds, a whole number from 1 (no leading zero)"
whole "$THREADS" 1 4096 || die "THREADS $(shown "$THREADS"): a whole number from 1 to 4096"
whole "$SEED" 0 2147483647 || die "SEED $(shown "$SEED"): a whole number from 0"
[ -f "$G" ] && [ -x "$G" ] || die "GEMMBENCH $(shown "$G"): not an executable file"
[ -f "$SPACE" ] && [ -r "$SPACE" ] || die "SPACE $(shown "$SPACE"): not a readable file"
if [ -n "${DATABASE:-}" ]; then
    [ -f "$DATABASE" ] && [ -r "$DATABASE" ] || die "DATABASE $(shown "$DATABASE"): not a readable file"
fi
[ -n "$LOCK" ] && [ ! -d "$LOCK" ] || die "LOCK $(shown "$LOCK"): not a lock file's name"
for tool in flock python3; do
    command -v $tool >/dev/null 2>&1 || die "$tool is not installed"
done
mkdir -p "$out" 2>/dev/null || die "OUTDIR $(shown "$out"): cannot create it"
db=${DATABASE:-$out/trials-9.jsonl}

# each step's failure ends the script in one line (lib.sh: step)
if [ -z "${DATABASE:-}" ]; then
    step "the search" "$out/tune.txt" flock "$LOCK" "$G" tune --space "$SPACE" \
        --kernel qkv,mlp_expand,mlp_reduce --m 32,128,384 --threads "$THREADS" \
        --budget $((BUDGET * 9)) --seed "$SEED" --quiet --records "$out/records-9.json" \
        --database "$db"
fi
step "training" "$out/train.txt" "$G" model train --database "$db" --space "$SPACE" \
    --seed "$SEED" -o "$out/bert9.model" --force --explain
step "the timed run" "$out/unseen6.txt" flock "$LOCK" "$G" \
    --variant ml_guided,rule_based,packed --kernel qkv,mlp_expand,mlp_reduce --m 64,256 \
    --threads "$THREADS" --model "$out/bert9.model" --quiet -o "$out/unseen6.json" --force \
    >/dev/null
step "the run without a model" "$out/model-none.txt" flock "$LOCK" "$G" --variant ml_guided \
    --kernel qkv --m 64 --threads "$THREADS" --model none --reps 5 --quiet \
    -o "$out/model-none.json" --force >/dev/null

step "the summary" "$out/summary.txt" python3 - "$out/unseen6.json" "$out/model-none.json" "$here" <<'PY'
import json, math, sys
sys.path.insert(0, sys.argv[3])
from round_ratios import ratio
res = json.load(open(sys.argv[1]))["results"]
by = {}
for r in res:
    by.setdefault((r["kernel"], r["M"]), {})[r["variant"]] = r

print(f"{'kernel':11} {'M':>4} {'ml_us':>8} {'rule_us':>8} {'packed_us':>9} "
      f"{'ml/rule (rounds min..max)':>26} {'ml/packed (rounds min..max)':>28} source check")
lr, lp = [], []
for (k, m), v in sorted(by.items()):
    ml, rule, packed = v["ml_guided"], v["rule_based"], v["packed"]
    a, b = ratio(ml, rule), ratio(ml, packed)
    lr.append(math.log(a[0])), lp.append(math.log(b[0]))
    print(f"{k:11} {m:4} {ml['median_us']:8.1f} {rule['median_us']:8.1f} {packed['median_us']:9.1f} "
          f"{a[0]:10.3f} ({a[1]:.3f}..{a[2]:.3f}) {b[0]:12.3f} ({b[1]:.3f}..{b[2]:.3f}) "
          f"{ml['effective_params']['source']:6} {ml['check']}")
print(f"geomean over {len(lr)} shapes of the per-round median ratios: ml_guided/rule_based "
      f"{math.exp(sum(lr) / len(lr)):.3f}, ml_guided/packed {math.exp(sum(lp) / len(lp)):.3f}")
(none,) = json.load(open(sys.argv[2]))["results"]
print(f"--model none: source {none['effective_params']['source']}, "
      f"why {none['effective_params']['why']}, check {none['check']}")
PY
