# probe_memo.sh - GEMMBENCH_PROBE_MEMO (include/probe_memo.h): the quick
# probes' figures measured by the first runs, then read back (a planted memo
# is what a run's file says), never under the full peak, a memo that does
# not parse measured over.
. tests/cli/lib.sh
G=$GEMMBENCH
MEMO=$WORK/memo
mkdir -p "$MEMO"
# run N [ENV...]: a tiny 1-thread run into $WORK/N.json under this test's memo
run() {
    n=$1
    shift
    env GEMMBENCH_PROBE_MEMO="$MEMO" "$@" "$G" --quiet --variant vec_j --shape 8x8x8 --reps 1 \
        --warmup 0 --threads 1 -o "$WORK/$n.json" >/dev/null 2>"$WORK/$n.err"
}
# field FILE: machine.peak_gflops_1thread and the L2 roof's 1-thread read, exactly
field() {
    python3 -c "
import json, sys
m = json.load(open(sys.argv[1]))['machine']
print(repr(m['peak_gflops_1thread']), repr(m['bandwidth']['L2']['1thread']['read_gbs']))" "$1"
}
if ! command -v python3 >/dev/null 2>&1; then
    skip memo_runs "needs python3 (reads the result files)"
    exit 0
fi

for i in 1 2 3; do run "m$i"; done
check memo_runs_ok test -s "$WORK/m3.json"
peakfile=$(ls "$MEMO" | grep '^peak_fma_' | head -1)
bwfile=$(ls "$MEMO" | grep '^bw-' | head -1)
check memo_peak_kept test -n "$peakfile"
check memo_bw_kept test -n "$bwfile"
expect_grep memo_three_runs '^gemmbench-probe-memo 1 runs 3 figures 1$' "$MEMO/$peakfile"

# Planted figures are read back: the file's peak is the memo's, not a measurement.
printf 'gemmbench-probe-memo 1 runs 3 figures 1\n0x1.edd2f1a9fbe77p+6\n' >"$MEMO/$peakfile"
run m4
check memo_read_back test "$(field "$WORK/m4.json" | cut -d' ' -f1)" = "123.456"
run m5
check memo_read_back_again test "$(field "$WORK/m5.json")" = "$(field "$WORK/m4.json")"

# The full peak measures whatever the memo holds.
run f1 env -u GEMMBENCH_PEAK
check memo_not_full test "$(field "$WORK/f1.json" | cut -d' ' -f1)" != "123.456"
check memo_not_full_method grep -q '"peak_method":	"full"' "$WORK/f1.json"

# A memo that does not parse: measured again, the run goes on, no warning.
printf 'gemmbench-probe-memo 1 runs 3 figures 1\nnot a number\n' >"$MEMO/$peakfile"
run g1
check memo_bad_measured test "$(field "$WORK/g1.json" | cut -d' ' -f1)" != "123.456"
check memo_bad_quiet test ! -s "$WORK/g1.err"
expect_grep memo_bad_replaced '^gemmbench-probe-memo 1 runs 1 figures 1$' "$MEMO/$peakfile"

# A directory that is not there: one warning naming the variable, the run's figures.
env GEMMBENCH_PROBE_MEMO="$WORK/none/here" "$G" --quiet --variant vec_j --shape 8x8x8 --reps 1 \
    --warmup 0 --threads 1 -o "$WORK/n1.json" >/dev/null 2>"$WORK/n1.err"
check memo_missing_dir_runs test -s "$WORK/n1.json"
expect_grep memo_missing_dir_warns '^gemmbench: warning: GEMMBENCH_PROBE_MEMO: cannot write .*none/here' "$WORK/n1.err"
check memo_missing_dir_once test "$(grep -c PROBE_MEMO "$WORK/n1.err")" -eq 1
