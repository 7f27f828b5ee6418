#!/bin/sh
# ml-leave-one-out.sh - learned schedules on shapes the model never saw,
# timed: a trial database from `tune --space --database` over the 24 BERT
# shapes (its records are each shape's searched best); then for each shape,
# a model trained on the other 23 shapes' trials, and one interleaved run
# of ml_guided (that model), the pick of the same model without its elite
# schedules (`model train --elites 0`: the space's points alone; as
# sched:space_pick), the shape's searched best (sched:searched), tuned_sched
# with the other 23 records (the nearest recorded shape's schedule),
# rule_based and packed on the shape, and the shape's analytic point (the
# space's own point for it, as sched:analytic, when it is legal there).
# Prints per shape ml_guided's time over each (the median over the rounds
# of the per-round median ratio), the guard's verdict (src/learn/LEARN.md),
# and the geomeans (results/notes/ml-guided.md).
#
# usage: scripts/ml-leave-one-out.sh OUTDIR
# environment: GEMMBENCH (build/gemmbench), SPACE (schedules/cpu_gemm.space),
#   BUDGET (seconds per shape of the search, 20), THREADS (1), SEED (1),
#   DATABASE and RECORDS (an existing database and its records: the search
#   is skipped), SHAPES ("KERNEL:M ..." to leave out; default all 24),
#   RUN_OPTS (the timed runs' options, default --rounds 5 --reps 10),
#   LOCK (/tmp/gemmbench-bench.lock: every timed step holds it),
#   OTHER (another build of gemmbench: its model's pick, trained and chosen
#   by that build on the same trials, is timed in the same run as
#   sched:other_pick: a change to the model judged in one interleaved run)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
script=ml-leave-one-out
die() { echo "gemmbench: ml-leave-one-out: $1" >&2; exit 2; }
[ $# -eq 1 ] || die "usage: scripts/ml-leave-one-out.sh OUTDIR"
out=$1
G=${GEMMBENCH:-$here/../build/gemmbench}
SPACE=${SPACE:-$here/../schedules/cpu_gemm.space}
BUDGET=${BUDGET:-20}
THREADS=${THREADS:-1}
SEED=${SEED:-1}
LOCK=${LOCK:-/tmp/gemmbench-bench.lock}
RUN_OPTS=${RUN_OPTS:---rounds 5 --reps 10 --min-reps 5 --warmup 2 --max-time 2}
# every setting checked before the first step (whole numbers written
# plainly, lib.sh: 08 refused, never read as octal)
whole "$BUDGET" 1 99999 || die "BUDGET $(shown "$BUDGET"): seconds, a whole number from 1 (no leading zero)"
whole "$THREADS" 1 4096 || die "THREADS $(shown "$THREADS"): a whole number from 1 to 4096"
whole "$SEED" 0 2147483647 || die "SEED $(shown "$SEED"): a whole number from 0"
[ -f "$G" ] && [ -x "$G" ] || die "GEMMBENCH $(shown "$G"): not an executable file"
[ -f "$SPACE" ] && [ -r "$SPACE" ] || die "SPACE $(shown "$SPACE"): not a readable file"
if [ -n "${OTHER:-}" ]; then
    [ -f "$OTHER" ] && [ -x "$OTHER" ] || die "OTHER $(shown "$OTHER"): not an executable file"
fi
for tool in flock python3; do
    command -v $tool >/dev/null 2>&1 || die "$tool is not installed"
done
if [ -n "${DATABASE:-}" ] || [ -n "${RECORDS:-}" ]; then
    [ -n "${DATABASE:-}" ] && [ -n "${RECORDS:-}" ] || die "give DATABASE and RECORDS together"
    [ -f "$DATABASE" ] && [ -r "$DATABASE" ] && [ -f "$RECORDS" ] && [ -r "$RECORDS" ] ||
        die "no database $(shown "$DATABASE") or records $(shown "$RECORDS")"
fi
if [ -n "${SHAPES:-}" ]; then
    shapes=$SHAPES
else
    shapes=
    for k in qkv mlp_expand mlp_reduce; do
        for m in 16 32 64 96 128 192 256 384; do shapes="$shapes $k:$m"; done
    done
fi
for s in $shapes; do
    case ${s%%:*} in qkv|mlp_expand|mlp_reduce) ;;
        *) die "$(shown "$s"): the kernel is qkv, mlp_expand or mlp_reduce" ;; esac
    whole "${s#*:}" 1 999999 || die "$(shown "$s"): M is a whole number from 1 (no leading zero)"
done
[ -n "$shapes" ] || die "SHAPES names no shape"
mkdir -p "$out" 2>/dev/null || die "OUTDIR $(shown "$out"): cannot create it"
db=${DATABASE:-$out/trials-24.jsonl}
rec=${RECORDS:-$out/records-24.json}
if [ -z "${DATABASE:-}" ]; then
    # a fresh search: no earlier run's database or records read after it
    rm -f "$db" "$rec"
    step "the search" "$out/tune.txt" flock "$LOCK" "$G" tune --space "$SPACE" --kernel all \
        --threads "$THREADS" --budget $((BUDGET * 24)) --seed "$SEED" --quiet --records "$rec" \
        --database "$db"
fi
[ -r "$db" ] && [ -r "$rec" ] || die "no database $(shown "$db") or records $(shown "$rec")"
# pick BUILD MODEL STEM: the schedule BUILD's ml_guided runs with MODEL on
# the shape ($k, $m), from the model, into STEM.sched (STEM.json: its run)
pick() {
    "$1" --variant ml_guided --kernel "$k" --m "$m" --threads "$THREADS" --model "$2" \
        --rounds 1 --reps 1 --min-reps 1 --warmup 0 --quiet -o "$3.json" -f >"$3.txt" 2>&1 &&
    python3 - "$3.json" "$3.sched" <<'PY'
import json, sys
try:
    (r,) = json.load(open(sys.argv[1]))["results"]
    ok = r["effective_params"]["source"] == "model"
except (OSError, ValueError, KeyError, TypeError):
    ok = False
if not ok:
    sys.exit(f"gemmbench: ml-leave-one-out: {sys.argv[1]}: ml_guided did not run the model's pick")
open(sys.argv[2], "w").write(r["schedule"]["text"])
# the analytic point, as the guard saw it (a build without the guard: none)
g = r["schedule"].get("guard") or {}
if g.get("analytic"):
    open(sys.argv[2][:-len("pick.sched")] + "analytic.sched", "w").write(g["analytic"])
PY
}
for s in $shapes; do
    k=${s%%:*} m=${s#*:}
    case $k in qkv) K=768 N=768 ;; mlp_expand) K=768 N=3072 ;; mlp_reduce) K=3072 N=768 ;;
        *) die "$s: the kernel is qkv, mlp_expand or mlp_reduce" ;;
    esac
    # the database and the records without this shape; its searched best
    mkdir -p "$out/s-$k-$m" || exit 3
    python3 - "$db" "$out/loo.jsonl" "$m" "$K" "$N" "$rec" "$out/loo-records.json" \
        "$out/s-$k-$m/searched.sched" <<'PY' || exit $?
import json, sys
src, dst, M, K, N = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])
recs, loo_recs, searched = sys.argv[6:9]


def fail(why):
    sys.exit("gemmbench: ml-leave-one-out: " + why.encode("ascii", "backslashreplace").decode())


def shape(r):
    if not isinstance(r, dict) or not all(isinstance(r.get(k), int) for k in "MKN"):
        raise ValueError("no M, K and N")
    return (r["M"], r["K"], r["N"])


try:
    doc = json.load(open(recs, encoding="utf-8"))
    mine = [r for r in doc["records"] if shape(r) == (M, K, N)]
    if len(mine) != 1 or not isinstance(mine[0].get("schedule"), str):
        fail(f"{M}x{K}x{N}: {len(mine)} records of the shape in {recs}")
except (OSError, ValueError, KeyError, TypeError) as e:
    fail(f"{recs}: not a records file ({type(e).__name__})")
open(searched, "w").write(mine[0]["schedule"])
doc["records"] = [r for r in doc["records"] if shape(r) != (M, K, N)]
json.dump(doc, open(loo_recs, "w"), indent=1)
kept = left = 0
with open(src, "rb") as f, open(dst, "wb") as o:
    for n, line in enumerate(f, 1):
        try:
            r = json.loads(line.decode("utf-8"))
            mine = shape(r) == (M, K, N)
        except (ValueError, TypeError):
            fail(f"{src}:{n}: not a line of a trial database")
        if mine:
            left += 1
            continue
        o.write(line)
        kept += 1
if left == 0 or kept == 0:
    fail(f"{M}x{K}x{N}: {left} trials of the shape, {kept} of the others")
PY
    for e in 3 0; do
        "$G" model train --database "$out/loo.jsonl" --space "$SPACE" --seed "$SEED" \
            --elites $e -o "$out/loo$e-$k-$m.model" >"$out/train$e-$k-$m.txt" 2>&1 ||
            { echo "gemmbench: ml-leave-one-out: $s: training failed: $(tail -n 1 "$out/train$e-$k-$m.txt")" >&2; exit 1; }
    done
    # the picks timed beside ml_guided, each chosen once (not timed there)
    pick "$G" "$out/loo0-$k-$m.model" "$out/s-$k-$m/space_pick" ||
        { echo "gemmbench: ml-leave-one-out: $s: no pick of the model without elites" >&2; exit 1; }
    analytic=
    [ -f "$out/s-$k-$m/space_analytic.sched" ] &&
        analytic="--schedule $out/s-$k-$m/space_analytic.sched"
    other=
    if [ -n "${OTHER:-}" ]; then
        "$OTHER" model train --database "$out/loo.jsonl" --space "$SPACE" --seed "$SEED" \
            -o "$out/other-$k-$m.model" >"$out/train-other-$k-$m.txt" 2>&1 &&
        pick "$OTHER" "$out/other-$k-$m.model" "$out/s-$k-$m/other_pick" ||
            { echo "gemmbench: ml-leave-one-out: $s: no pick of $OTHER's model" >&2; exit 1; }
        other="--schedule $out/s-$k-$m/other_pick.sched"
        rm -f "$out/other-$k-$m.model"
    fi
    GEMMBENCH_RECORDS=$out/loo-records.json flock "$LOCK" "$G" \
        --variant ml_guided,tuned_sched,rule_based,packed --schedule "$out/s-$k-$m/searched.sched" \
        --schedule "$out/s-$k-$m/space_pick.sched" $other $analytic \
        --kernel "$k" --m "$m" --threads "$THREADS" --model "$out/loo3-$k-$m.model" $RUN_OPTS \
        --quiet -o "$out/run-$k-$m.json" -f >"$out/run-$k-$m.txt" 2>&1 ||
        { echo "gemmbench: ml-leave-one-out: $s: run failed: $(tail -n 1 "$out/run-$k-$m.txt")" >&2; exit 1; }
    rm -f "$out/loo3-$k-$m.model" "$out/loo0-$k-$m.model"
done
rm -f "$out/loo.jsonl" "$out/loo-records.json"

step "the summary" "$out/summary.txt" python3 - "$here" "$out" $shapes <<'PY'
import json, math, sys
sys.path.insert(0, sys.argv[1])
from round_ratios import ratio
out, shapes = sys.argv[2], sys.argv[3:]

logs = {"sched:searched": [], "tuned_sched": [], "rule_based": [], "packed": [],
        "sched:space_pick": [], "sched:other_pick": [], "sched:space_analytic": []}
# the guard everywhere instead of at the edge only: the analytic point's time
# where the predicted gain is within the model's error inside too
always = []
print(f"{'kernel':11} {'M':>4} {'ml_us':>8} {'search_us':>9} {'near_us':>8} {'rule_us':>8} "
      f"{'packed_us':>9} {'ml/searched (rounds)':>22} {'ml/near':>7} {'ml/rule':>7} "
      f"{'ml/packed':>9} {'ml/space':>8} {'ml/other':>8} {'ml/analytic':>11} "
      f"{'guard':>11} {'gain':>5} {'error':>5} source check origin")
for s in shapes:
    k, m = s.split(":")
    v = {r["variant"]: r for r in json.load(open(f"{out}/run-{k}-{m}.json"))["results"]}
    ml = v["ml_guided"]
    q = {b: ratio(ml, v[b]) if b in v else (math.nan,) for b in logs}
    for b in logs:
        if b in v:
            logs[b].append(math.log(q[b][0]))
    t = q["sched:searched"]
    g = ml.get("schedule", {}).get("guard") or {}
    inside_keep = (g.get("rule") == "inside" and g.get("error") is not None
                   and g["predicted_gain"] <= g["error"] and "sched:space_analytic" in v)
    always.append(math.log(ratio(v["sched:space_analytic"], v["sched:searched"])[0]
                           if inside_keep else t[0]))
    print(f"{k:11} {m:>4} {ml['median_us']:8.1f} {v['sched:searched']['median_us']:9.1f} "
          f"{v['tuned_sched']['median_us']:8.1f} {v['rule_based']['median_us']:8.1f} "
          f"{v['packed']['median_us']:9.1f} {t[0]:8.3f} ({t[1]:.3f}..{t[2]:.3f}) "
          f"{q['tuned_sched'][0]:7.3f} {q['rule_based'][0]:7.3f} {q['packed'][0]:9.3f} "
          f"{q['sched:space_pick'][0]:8.3f} {q['sched:other_pick'][0]:8.3f} "
          f"{q['sched:space_analytic'][0]:11.3f} {g.get('rule', '-'):>11} "
          f"{g.get('predicted_gain') or math.nan:5.2f} {g.get('error') or math.nan:5.2f} "
          f"{ml['effective_params']['source']:6} {ml['check']} {ml['schedule']['origin']}")
g = {b: math.exp(sum(x) / len(x)) for b, x in logs.items() if x}
worst = max(logs["sched:searched"])
print(f"geomean over {len(shapes)} shapes left out, ml_guided's time over: the searched best "
      f"{g['sched:searched']:.3f} (worst {math.exp(worst):.3f}), the nearest record (tuned_sched) "
      f"{g['tuned_sched']:.3f}, rule_based {g['rule_based']:.3f}, packed {g['packed']:.3f}, "
      f"the same model's pick without elites {g['sched:space_pick']:.3f}"
      + (f", the other build's pick {g['sched:other_pick']:.3f}" if logs["sched:other_pick"] else "")
      + (f", the analytic point {g['sched:space_analytic']:.3f} ({len(logs['sched:space_analytic'])} shapes)"
         if logs["sched:space_analytic"] else ""))
print(f"the guard at every shape instead (the analytic point also inside where the gain is "
      f"within the error): over the searched best {math.exp(sum(always) / len(always)):.3f} "
      f"(worst {math.exp(max(always)):.3f})")
PY
