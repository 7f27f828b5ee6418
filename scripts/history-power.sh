#!/bin/sh
# history-power.sh - the detection power of `gemmbench history changes` on
# this machine's own noise: histories of real quick runs, a step of known
# size injected from a known run on (scripts/scaleclock.c: the monotonic
# clocks of that run and every later one run STEP % fast, so every call
# times STEP % longer), each history through `history add --commit --date`
# and `history changes --format json`, on each commit's median and on its
# fastest round (--value median, best).  Prints, per step size, the share of
# series whose change was found with the right commits (before = the run
# before the step, after = its first run), and for A/A histories (no step)
# the share with any change point; SUMMARY.json in KEEP holds every count.
#
# The histories are measured round robin, each in its own order: in round t
# every history measures one run, history h the t-th of its own shuffle of
# its run numbers (seeded).  A CI's commits are hours apart, so a shared
# machine's slow spells (seconds to minutes) fall on its commits at random:
# here two runs of one history are a whole round apart, and a slow spell,
# which covers one round, lands on a different commit of each history.
# Small by default (about a
# minute); the study of results/notes/history-power.md:
#   RUNS=30 STEP_AT=21 HISTORIES=10 STEPS="2 3 5 10" sh scripts/history-power.sh
#
# environment:
#   GEMMBENCH   the binary (default build/gemmbench)
#   RUNS        runs per history (default 8); STEP_AT the first slow one (5)
#   HISTORIES   histories per step size and A/A (default 1)
#   STEPS       step sizes in percent (default "5")
#   SWEEP       the run's options (default: four single-thread variants at
#               qkv M=16, 20 calls over 5 rounds: four series a history)
#   KEEP        a folder to keep the stores and runs in (default: removed)
#   REUSE       1: judge KEEP's stores again, measure nothing
#   BROWSER     the Chromium that renders the pages (default: chromium on
#               PATH), or none: the pages are written, not rendered
#   GEMMBENCH_PEAK, GEMMBENCH_BANDWIDTH  default quick here: a run's peak and
#               bandwidths are not what the study measures, and measuring them
#               in full would take 2 s of every 2.5 s run
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
G=${GEMMBENCH:-$here/../build/gemmbench}
RUNS=${RUNS:-8}
STEP_AT=${STEP_AT:-5}
HISTORIES=${HISTORIES:-1}
STEPS=${STEPS:-5}
SWEEP=${SWEEP:---variant packed,rule_based,vec_j,k8 --kernel qkv --m 16 --reps 20 --rounds 5 --min-time 0 --threads 1}
GEMMBENCH_PEAK=${GEMMBENCH_PEAK:-quick}
GEMMBENCH_BANDWIDTH=${GEMMBENCH_BANDWIDTH:-quick}
export GEMMBENCH_PEAK GEMMBENCH_BANDWIDTH

# refuse WHY: the one line of a bad setting, exit 2.
refuse() {
    echo "gemmbench: history-power: $1" >&2
    exit 2
}
[ -x "$G" ] || refuse "$(shown "$G") is not built (run make)"
command -v python3 >/dev/null 2>&1 || refuse "needs python3"
# Whole numbers in decimal (lib.sh): 010 is ten, not the shell's octal 8.
RUNS=$(decimal "$RUNS" 99) && STEP_AT=$(decimal "$STEP_AT" 99) &&
    HISTORIES=$(decimal "$HISTORIES" 1000) ||
    refuse "RUNS (at most 99), STEP_AT and HISTORIES (at most 1000) must be whole numbers"
[ "$HISTORIES" -ge 1 ] || refuse "HISTORIES must be at least 1"
[ "$STEP_AT" -ge 4 ] && [ $((RUNS - STEP_AT)) -ge 2 ] ||
    refuse "needs 3 runs before STEP_AT and 3 from it"
for step in $STEPS; do
    python3 -c "import sys; v = float(sys.argv[1]); sys.exit(not 0 < v < 100)" "$step" 2>/dev/null ||
        refuse "step '$(shown "$step")' is not a percentage in (0, 100)"
done
[ "${REUSE:-0}" != 1 ] || [ -n "${KEEP:-}" ] ||
    refuse "REUSE=1 needs KEEP, the folder of an earlier study"
work=${KEEP:-$(mktemp -d)}
mkdir -p "$work" || exit 3
# The preload lives in a folder of its own: LD_PRELOAD splits its list at
# spaces and colons, so a KEEP with a space in it would preload nothing and
# the study would measure no step at all.  That it is loaded is checked.
preload_dir=$(mktemp -d) || exit 3
trap 'rm -rf "$preload_dir"; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
so=$preload_dir/scaleclock.so
case $so in *[[:space:]:]*) refuse "the temporary folder $(shown "$so") has a space or a colon: set TMPDIR" ;; esac
${CC:-cc} -O2 -shared -fPIC -o "$so" "$here/scaleclock.c" -ldl ||
    { echo "gemmbench: history-power: cannot build scripts/scaleclock.c" >&2; exit 3; }
LD_PRELOAD=$so cat /proc/self/maps 2>/dev/null | grep -q scaleclock ||
    { echo "gemmbench: history-power: $(shown "$so") is not preloaded (LD_PRELOAD ignored it)" >&2; exit 3; }

names=
for step in $STEPS aa; do
    h=1
    while [ $h -le "$HISTORIES" ]; do
        names="$names s$step-h$h"
        mkdir -p "$work/s$step-h$h.runs"
        h=$((h + 1))
    done
done

echo "history-power: $RUNS runs a history, step from run $STEP_AT, $HISTORIES histories a size, round robin in shuffled orders; $SWEEP"
# order.txt: per history, its run numbers in the order they are measured.
python3 - "$RUNS" $names >"$work/order.txt" <<'PY' || exit 3
import random, sys
runs, names = int(sys.argv[1]), sys.argv[2:]
for k, name in enumerate(names):
    order = list(range(1, runs + 1))
    random.Random(1000 + k).shuffle(order)
    print(name, *order)
PY
# REUSE=1: the stores in KEEP are judged again (another detector, or the
# other value), nothing measured or added.
[ "${REUSE:-0}" = 1 ] || {
t=1
while [ $t -le "$RUNS" ]; do
    while read -r name order; do
        set -- $order
        shift $((t - 1))
        i=$1
        n=$(printf %02d "$i")
        step=${name%-h*}
        step=${step#s}
        out=$work/$name.runs/run$n.json
        if [ "$step" != aa ] && [ "$i" -ge "$STEP_AT" ]; then
            scale=$(python3 -c "import sys; print(1 + float(sys.argv[1]) / 100)" "$step")
            # A sanitizer build's runtime must come first in the library
            # list, and the preload comes before it: allowed for this run.
            ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
                GB_CLOCK_SCALE=$scale LD_PRELOAD=$so "$G" $SWEEP --quiet -o "$out" >/dev/null
        else
            "$G" $SWEEP --quiet -o "$out" >/dev/null
        fi </dev/null || { echo "gemmbench: history-power: run $n of $name failed" >&2; exit 1; }
    done <"$work/order.txt"
    t=$((t + 1))
done

for name in $names; do
    rm -rf "$work/$name"
    i=1
    while [ $i -le "$RUNS" ]; do
        n=$(printf %02d $i)
        "$G" history add --store "$work/$name" --commit "c$n" --date "2026-01-01T00:$n:00Z" \
            "$work/$name.runs/run$n.json" >/dev/null ||
            { echo "gemmbench: history-power: history add failed ($name run $n)" >&2; exit 1; }
        i=$((i + 1))
    done
done
}

for name in $names; do
    for value in median best; do
        "$G" history changes --store "$work/$name" --format json --value $value >"$work/$name.$value.json"
        [ $? -le 1 ] || { echo "gemmbench: history-power: history changes failed ($name)" >&2; exit 1; }
    done
    "$G" history html --store "$work/$name" -o "$work/$name.html" --force >/dev/null ||
        { echo "gemmbench: history-power: history html failed ($name)" >&2; exit 1; }
done

# The first history of each kind's page, rendered by headless Chromium where
# it is installed (sh scripts/setup.sh browser): its script's count of charts
# and whether the console stayed empty.
browser=${BROWSER:-$(command -v chromium || command -v chromium-browser || true)}
[ "$browser" != none ] || browser=
for name in $names; do
    case $name in *-h1) ;; *) continue ;; esac
    if [ -z "$browser" ]; then
        echo "page $name.html: not rendered (no chromium, or BROWSER=none)"
        continue
    fi
    timeout 60 "$browser" --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
        --user-data-dir="$work/chromium" --dump-dom "file://$work/$name.html" \
        >"$work/$name.dom" 2>"$work/$name.browser"
    charts=$(grep -o 'data-charts="[0-9]*"' "$work/$name.dom" | head -n 1)
    console=$(grep -c 'CONSOLE\|Uncaught' "$work/$name.browser")
    echo "page $name.html: chromium shows ${charts:-no data-charts} ($(grep -c '<svg' "$work/$name.html") charts in the file), $console console messages"
done

python3 - "$work" "$HISTORIES" "$STEP_AT" $STEPS <<'PY'
import glob, json, math, statistics, sys
work, n, step_at, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
before, after = f"c{step_at - 1:02d}", f"c{step_at:02d}"
summary = {"histories": n, "before": before, "after": after, "values": {}, "noise": {}}
# Each history judged twice: on each commit's median and on its fastest
# round (history changes --value median|best).
for value in ["median", "best"]:
    print(f"history changes --value {value}:")
    out = summary["values"][value] = {}
    for step in steps + ["aa"]:
        series = found = wrong = alarms = 0
        detectable = []
        for h in range(1, n + 1):
            d = json.load(open(f"{work}/s{step}-h{h}.{value}.json"))
            series += d["series"]
            right = {c["series"] for c in d["changes"] if c["before"] == before and c["after"] == after}
            found += len(right)
            wrong += len([c for c in d["changes"] if c["series"] not in right])
            alarms += bool(d["changes"])
            if d["noise"]["median_detectable_pct"] is not None:
                detectable.append(d["noise"]["median_detectable_pct"])
        det = statistics.median(detectable) if detectable else float("nan")
        out[step] = {"series": series, "found": found, "other_changes": wrong,
                     "histories_with_a_change": alarms, "median_detectable_pct": det}
        if step == "aa":
            print(f"  A/A: {alarms} of {n} histories with a change point ({series} series, "
                  f"{wrong} change points); detectable step {det:.1f} % (median)")
        else:
            print(f"  step {step}%: found at {before}..{after} in {found} of {series} series "
                  f"({100 * found / max(series, 1):.0f}%), {wrong} other change points; "
                  f"detectable step {det:.1f} % (median)")
# The between-run noise of each series in the A/A histories: the standard
# deviation of the log of the runs' medians and of their fastest rounds.
runs = {}
for f in sorted(glob.glob(f"{work}/saa-h*.runs/*.json")):
    for r in json.load(open(f))["results"]:
        key = f"{r['label']}/{r['kernel']}/{r['M']}x{r['K']}x{r['N']}/t{r['threads']}"
        rounds = {}
        for t, k in zip(r["samples_us"], r["sample_rounds"]):
            rounds.setdefault(k, []).append(t)
        best = min(statistics.median(v) for v in rounds.values())
        h = runs.setdefault(key, {}).setdefault(f.split("/")[-2], ([], []))
        h[0].append(math.log(r["median_us"]))
        h[1].append(math.log(best))
for key, hs in sorted(runs.items()):
    sd = [statistics.median(statistics.stdev(v[i]) for v in hs.values() if len(v[i]) > 1)
          for i in (0, 1)]
    summary["noise"][key] = {"median": sd[0], "best": sd[1]}
    print(f"  noise {key}: between-run sd of log median {sd[0]:.3f}, of log fastest round "
          f"{sd[1]:.3f} (median over {len(hs)} A/A histories)")
json.dump(summary, open(f"{work}/SUMMARY.json", "w"), indent=1)
PY
