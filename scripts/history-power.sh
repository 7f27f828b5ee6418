#!/bin/sh
# history-power.sh - the detection power of `gemmbench history changes` on
# this machine's own noise: histories of real quick runs, a step of known
# size injected from a known run on (scripts/scaleclock.c: the monotonic
# clocks of that run and every later one run STEP % fast, so every call
# times STEP % longer), each history through `history add --commit --date`
# and `history changes --format json`.  Prints, per step size, the share of
# series whose change was found with the right commits (before = the run
# before the step, after = its first run), and for A/A histories (no step)
# the share with any change point.  Small by default (a few minutes);
# the study of src/analysis/history.md:
#   RUNS=30 STEP_AT=21 HISTORIES=10 STEPS="2 3 5 10" sh scripts/history-power.sh
#
# environment:
#   GEMMBENCH   the binary (default build/gemmbench)
#   RUNS        runs per history (default 8); STEP_AT the first slow one (5)
#   HISTORIES   histories per step size and A/A (default 1)
#   STEPS       step sizes in percent (default "5")
#   SWEEP       the run's options (default: two single-thread variants at
#               qkv M=16, 20 calls over 5 rounds: two series a history)
#   KEEP        a folder to keep the stores and runs in (default: removed)
set -u
here=$(cd "$(dirname "$0")" && pwd)
G=${GEMMBENCH:-$here/../build/gemmbench}
RUNS=${RUNS:-8}
STEP_AT=${STEP_AT:-5}
HISTORIES=${HISTORIES:-1}
STEPS=${STEPS:-5}
SWEEP=${SWEEP:---variant vec_j,k8 --kernel qkv --m 16 --reps 20 --rounds 5 --min-time 0 --threads 1}

[ -x "$G" ] || { echo "gemmbench: history-power: $G is not built (run make)" >&2; exit 2; }
command -v python3 >/dev/null 2>&1 || { echo "gemmbench: history-power: needs python3" >&2; exit 2; }
[ "$STEP_AT" -ge 4 ] && [ $((RUNS - STEP_AT)) -ge 2 ] ||
    { echo "gemmbench: history-power: needs 3 runs before STEP_AT and 3 from it" >&2; exit 2; }
work=${KEEP:-$(mktemp -d)}
mkdir -p "$work" || exit 3
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
${CC:-cc} -O2 -shared -fPIC -o "$work/scaleclock.so" "$here/scaleclock.c" -ldl ||
    { echo "gemmbench: history-power: cannot build scripts/scaleclock.c" >&2; exit 3; }

# history NAME SCALE: one history of RUNS runs, the clock scaled from STEP_AT on.
history() {
    store=$work/$1
    mkdir -p "$store.runs"
    i=1
    while [ $i -le "$RUNS" ]; do
        n=$(printf %02d $i)
        if [ $i -ge "$STEP_AT" ]; then
            GB_CLOCK_SCALE=$2 LD_PRELOAD=$work/scaleclock.so $G $SWEEP --quiet \
                -o "$store.runs/run$n.json" >/dev/null || return 1
        else
            $G $SWEEP --quiet -o "$store.runs/run$n.json" >/dev/null || return 1
        fi
        $G history add --store "$store" --commit "c$n" --date "2026-01-01T00:$n:00Z" \
            "$store.runs/run$n.json" >/dev/null || return 1
        i=$((i + 1))
    done
    $G history changes --store "$store" --format json >"$store.changes.json"
    [ $? -le 1 ]
}

before=c$(printf %02d $((STEP_AT - 1)))
after=c$(printf %02d "$STEP_AT")
echo "history-power: $RUNS runs a history, step from run $STEP_AT, $HISTORIES histories a size; $SWEEP"
for step in $STEPS aa; do
    h=1
    while [ $h -le "$HISTORIES" ]; do
        if [ "$step" = aa ]; then scale=1; else scale=$(python3 -c "print(1 + $step / 100)"); fi
        history "s$step-h$h" "$scale" || { echo "gemmbench: history-power: a run failed" >&2; exit 1; }
        h=$((h + 1))
    done
    python3 - "$work" "$step" "$HISTORIES" "$before" "$after" <<'PY'
import json, sys
work, step, n, before, after = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
series = found = wrong = alarms = 0
for h in range(1, n + 1):
    d = json.load(open(f"{work}/s{step}-h{h}.changes.json"))
    series += d["series"]
    right = {c["series"] for c in d["changes"] if c["before"] == before and c["after"] == after}
    found += len(right)
    wrong += len([c for c in d["changes"] if c["series"] not in right])
    alarms += bool(d["changes"])
if step == "aa":
    print(f"A/A: {alarms} of {n} histories with a change point ({series} series)")
else:
    print(f"step {step}%: found at {before}..{after} in {found} of {series} series "
          f"({100 * found / max(series, 1):.0f}%), {wrong} other change points")
PY
done
