#!/bin/sh
# space-search.sh - the structure search over a set of shapes and what it
# bought: `gemmbench tune --space` per shape (records in OUTDIR), the
# parameter search of rule_based beside it (`tuned`), then one interleaved
# run of rule_based, tuned, tuned_sched, packed and onednn on those shapes;
# prints per shape the times over rule_based's, the geomeans, and which
# structure won where (the alternative each winner took, per block).
#
# usage: scripts/space-search.sh OUTDIR [SHAPESET]
#   SHAPESET: six (default: qkv, mlp_expand, mlp_reduce at M = 32 and 256),
#             bert (the 24 BERT shapes) or MxKxN[,MxKxN...] (custom shapes,
#             e.g. 16x16x16 for a smoke test)
# environment: GEMMBENCH (build/gemmbench), SPACE (schedules/cpu_gemm.space),
#   BUDGET (seconds per shape, 120), SEED (1), THREADS (2), ROUNDS (5 rounds
#   of the final run), TUNE_TRIALS (30, rule_based's parameter search)
set -u
out=${1:?usage: scripts/space-search.sh OUTDIR [six|bert|MxKxN,...]}
set=${2:-six}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
G=${GEMMBENCH:-$here/../build/gemmbench}
SPACE=${SPACE:-$here/../schedules/cpu_gemm.space}
BUDGET=${BUDGET:-120}
SEED=${SEED:-1}
THREADS=${THREADS:-2}
ROUNDS=${ROUNDS:-5}
TUNE_TRIALS=${TUNE_TRIALS:-30}
# whole numbers written plainly (lib.sh): 08 refused, never read as octal
die() { echo "gemmbench: space-search: $1" >&2; exit 2; }
whole "$BUDGET" 1 99999 || die "BUDGET $(shown "$BUDGET"): seconds, a whole number from 1 (no leading zero)"
whole "$SEED" 0 2147483647 || die "SEED $(shown "$SEED"): a whole number from 0"
whole "$THREADS" 1 4096 || die "THREADS $(shown "$THREADS"): a whole number from 1 to 4096"
whole "$ROUNDS" 1 1000 || die "ROUNDS $(shown "$ROUNDS"): a whole number from 1 to 1000"
whole "$TUNE_TRIALS" 1 100000 || die "TUNE_TRIALS $(shown "$TUNE_TRIALS"): a whole number from 1"
case $set in
    six) shapes="--kernel qkv --kernel mlp_expand --kernel mlp_reduce --m 32,256" nshapes=6 ;;
    bert) shapes="--kernel all" nshapes=24 ;;
    *[!0-9x,]* | '' | ,* | *, | *,,*)
        die "SHAPESET is six, bert or MxKxN[,MxKxN...]" ;;
    *)
        shapes="" nshapes=0
        for s in $(echo "$set" | tr , ' '); do
            shapes="$shapes --shape $s" nshapes=$((nshapes + 1))
        done ;;
esac
mkdir -p "$out" || exit 3
rec=$out/records.json
export GEMMBENCH_RECORDS="$rec"
"$G" tune --space "$SPACE" $shapes --threads "$THREADS" --budget $((BUDGET * nshapes)) \
    --seed "$SEED" --quiet >"$out/search.txt" 2>&1 ||
    { echo "space-search: the search failed: $(tail -n 1 "$out/search.txt")" >&2; exit 1; }
"$G" tune --variant rule_based $shapes --threads "$THREADS" --trials "$TUNE_TRIALS" \
    --seed "$SEED" --quiet >"$out/tune.txt" 2>&1 ||
    { echo "space-search: tune failed: $(tail -n 1 "$out/tune.txt")" >&2; exit 1; }
"$G" --variant rule_based,tuned,tuned_sched,packed,onednn $shapes --threads "$THREADS" \
    --rounds "$ROUNDS" --quiet -o "$out/run.json" -f >"$out/run.txt" 2>&1 ||
    { echo "space-search: the run failed: $(tail -n 1 "$out/run.txt")" >&2; exit 1; }
python3 - "$out/run.json" "$rec" "$SPACE" <<'PY'
import json, math, re, sys
run, rec, space = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
t = {}
for r in run["results"]:
    t.setdefault((r["kernel"], r["M"], r["K"], r["N"]), {})[r["variant"]] = r
names = ["tuned", "tuned_sched", "packed", "onednn"]
print("| shape | rule_based us | " + " | ".join(f"{n} / rule" for n in names) + " | tuned_sched % peak |")
print("|---|--:|" + "--:|" * len(names) + "--:|")
logs = {n: [] for n in names}
for k in sorted(t, key=lambda k: (k[0], k[1])):
    v = t[k]
    base = v["rule_based"]["median_us"]
    cells = []
    for n in names:
        x = v[n]["median_us"] / base
        logs[n].append(math.log(x))
        cells.append(f"{x:.3f}")
    print(f"| {k[0]} M={k[1]} | {base:.1f} | " + " | ".join(cells) +
          f" | {v['tuned_sched'].get('peak_pct', float('nan')):.1f} |")
print("| geomean | | " + " | ".join(f"{math.exp(sum(l) / len(l)):.3f}" for l in logs.values()) + " | |")
print()
# Which alternative of each block the winners took: the space's blocks,
# matched by the first statement of each alternative.
blocks, cur = [], None
for line in open(space):
    s = line.split("#")[0].strip()
    if s == "choose":
        cur = [[]]
        blocks.append(cur)
    elif s == "or" and cur is not None:
        cur.append([])
    elif s == "end":
        cur = None
    elif cur is not None and s:
        cur[-1].append(re.sub(r"\s+", " ", s))
print("| shape | params | " + " | ".join(f"block {b + 1}" for b in range(len(blocks))) + " |")
print("|---|---|" + "---|" * len(blocks))
for r in sorted((r for r in rec["records"] if r["base"] == "tuned_sched"), key=lambda r: (r["K"], r["N"], r["M"])):
    lines = [re.sub(r"\s+", " ", l.split("#")[0].strip()) for l in r["schedule"].splitlines()]
    params = ",".join(l.split()[1] + "=" + l.split()[3] for l in lines if l.startswith("param "))
    took = []
    for alts in blocks:
        pick = "none"
        for a, stmts in enumerate(alts):
            if stmts and all(s in lines for s in stmts):
                pick = "; ".join(stmts)
                break
        took.append(pick)
    print(f"| {r['M']}x{r['K']}x{r['N']} | {params} | " + " | ".join(took) + " |")
PY
