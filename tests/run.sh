#!/bin/sh
# Runs a suite of tests, then prints the one summary line
# `N passed, N failed, N skipped` and exits non-zero when anything failed.
#
# Usage: tests/run.sh BUILD_DIR [fast|slow]
#   fast (`make test`):      the unit binary and every tests/cli/*.sh
#   slow (`make test-slow`): the unit binary's slow tests and every
#                            tests/slow/*.sh: exhaustive and timing tests
#                            (a new one is a file there, using tests/cli/lib.sh)
#
# A test prints `ok NAME`, `FAIL NAME: why` or `skip NAME: why` (it cannot run
# on this machine or build: counted apart, never as passed); the unit binary
# ends with `unit: N passed, N failed, N skipped` (`--slow`: its TEST_SLOW
# tests, the exhaustive ones, instead of the others).
#
# A part that does not run to its end is one more failure, `FAIL script
# PART: ...`, whatever it printed before: a test script that exits non-zero
# (`cd "$WORK" || exit 1`, a syntax error, a signal), the unit binary ending
# without its summary or with an exit status that disagrees with it, and
# any part still running after PART_SECONDS (default 600: the slowest part
# takes about 60 s alone on 2 vCPUs), which is killed.
BUILD=${1:-build}
SUITE=${2:-fast}
PART_SECONDS=${PART_SECONDS:-600}
GEMMBENCH=$(cd "$BUILD" && pwd)/gemmbench
export GEMMBENCH
# Every run measures the bandwidth roofs and the peak; the tests use the
# quick probes (bandwidth: one trial, memory at 2x the last-level cache,
# every level at most 4 MiB; peak: 5 trials of 1 ms, 0.15 s less a run);
# tests/slow/roof_real.sh runs the real bandwidth probe, and the unit tests
# the real peak.
GEMMBENCH_BANDWIDTH=quick
GEMMBENCH_PEAK=quick
# packed's calibration forced to in place (the rule's regime, whatever this
# machine measures), so that a test's regime does not depend on the load;
# tests/cli/calibrate.sh and test_calibrate.c measure it (quick) and force
# each result.
GEMMBENCH_CALIBRATE=in_place
export GEMMBENCH_BANDWIDTH GEMMBENCH_PEAK GEMMBENCH_CALIBRATE
# OpenBLAS's pthreads build starts its worker pool when the library loads,
# and the workers spin (sched_yield) for about 0.1 s before they sleep,
# whether or not the run calls OpenBLAS: a third of a tiny run's CPU time
# (90 against 120-190 ms of task-clock, AMD EPYC guest) and a quarter of
# tests/cli/learn.sh's.  At one thread no pool is made at load;
# openblas_set_num_threads() still makes the workers a measurement asks
# for (--threads 2 ran on both CPUs).  OPENBLAS_CORETYPE stays the
# environment's.
[ -z "${OPENBLAS_NUM_THREADS:-}" ] && export OPENBLAS_NUM_THREADS=1
# OpenMP's threads sleep when they wait, in the fast suite: by default they
# spin first, which a run that times kernels wants, and which cost a tiny
# run of gemmbench half its CPU time here (0.25-0.40 s wall, 0.13-0.18 s
# passive, AMD EPYC guest).  The slow suite's timing tests keep the default.
[ "$SUITE" = fast ] && [ -z "${OMP_WAIT_POLICY:-}" ] && export OMP_WAIT_POLICY=passive

case $SUITE in
    fast)
        parts=unit
        for t in tests/cli/*.sh; do
            [ "$t" = tests/cli/lib.sh ] || parts="$parts $t"
        done
        ;;
    slow)
        parts=unit-slow
        for t in tests/slow/*.sh; do
            [ -f "$t" ] && parts="$parts $t"
        done
        ;;
    *)
        echo "usage: tests/run.sh BUILD_DIR [fast|slow]" >&2
        exit 2
        ;;
esac
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
# Schedules compiled by the tests go to a cache of this run's own, never
# the user's ~/.cache/gemmbench, and every run compiles them afresh.
XDG_CACHE_HOME=$logs/cache
export XDG_CACHE_HOME
# The quick probes' figures are measured by the first three runs that ask
# for each (a loop, a set of working sets, a thread count, a CPU set), the
# best kept, and read back by every later run of the suite
# (include/probe_memo.h): 45 to 65 ms of each of about a thousand runs,
# a sixth of the suite's CPU time.  Only the quick probes; a test that
# unsets GEMMBENCH_PEAK or GEMMBENCH_BANDWIDTH measures for itself.
mkdir -p "$logs/probes"
GEMMBENCH_PROBE_MEMO=$logs/probes
export GEMMBENCH_PROBE_MEMO
# The tests call python3 by name, about 700 times a run, and their programs
# (and scripts/*.py) use the standard library only.  So python3 is a
# one-line script first on PATH that runs the interpreter directly, without
# the site module (-S):
#  - where python3 is a version manager's shim (pyenv, asdf: a script that
#    looks the interpreter up on every call; 0.42 s a call on one VM,
#    against 0.04 s for the interpreter itself, 80 s of a make test);
#  - site imports what site-packages' .pth files name: on one VM a
#    certifi hook, 52 of a start's 90 ms (45 ms a start with -S, AMD EPYC
#    family 26: 30 s of the suite's CPU time).  A test that needs a package
#    beyond the standard library fails here, which it should: the scripts
#    promise none.
# (Only a plain path: one with a quote or a space in it keeps python3 as
# PATH finds it.)
if real=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && [ -x "$real" ] &&
    case $real in *[!A-Za-z0-9/._+-]*) false ;; esac; then
    mkdir -p "$logs/bin" &&
        printf '#!/bin/sh\nexec "%s" -S "$@"\n' "$real" >"$logs/bin/python3" &&
        chmod +x "$logs/bin/python3" && PATH=$logs/bin:$PATH && export PATH
fi
trap 'exit 130' INT TERM

# cpu_seconds FILE: CPU seconds (user + system) of every process this shell
# had waited for when `times >FILE` ran (in this shell, not in a $(...)
# subshell, which has its own).  A part's CPU time, unlike its wall time,
# hardly moves when other jobs share the machine: the budget can be read on
# a busy one.
cpu_seconds() {
    awk 'NR == 2 { n = split($0, f, /[ms ]+/); t = 0
                   for (i = 1; i + 1 <= n; i += 2) if (f[i] != "") t += f[i] * 60 + f[i + 1]
                   printf "%.1f", t }' "$1"
}

# run_part PART: runs one part into its log, then prints the log and the
# part's wall and CPU time (under the lock: two workers never interleave).
run_part() {
    part=$1
    log="$logs/$(printf '%s' "$part" | tr '/.' '__').log"
    began=$(date +%s)
    times >"$logs/times.$worker.began"
    case $part in
        unit | unit-slow)
            [ "$part" = unit-slow ] && only=--slow || only=
            timeout -k 10 "$PART_SECONDS" "$BUILD/gemmbench-tests" $only >"$log" 2>&1
            status=$?
            if ! grep -q '^unit: [0-9]* passed, [0-9]* failed, [0-9]* skipped$' "$log"; then
                echo "FAIL script $part: the unit test binary ended without a summary (exit $status)" >>"$log"
            elif [ "$status" -ne 0 ] && grep -q '^unit: [0-9]* passed, 0 failed, ' "$log"; then
                echo "FAIL script $part: the unit test binary exited $status after a summary of no failure" >>"$log"
            fi
            ;;
        *)
            timeout -k 10 "$PART_SECONDS" sh "$part" >"$log" 2>&1 </dev/null
            status=$?
            case $status in
            0) ;;
            124 | 137) echo "FAIL script $part: still running after $PART_SECONDS s, killed" >>"$log" ;;
            *) echo "FAIL script $part: exited $status before its end (the checks after that point did not run)" >>"$log" ;;
            esac
            ;;
    esac
    times >"$logs/times.$worker.ended"
    lock
    cat "$log"
    # Each part's wall and CPU time, so that the suite's budget is watched.
    echo "time $part: $(($(date +%s) - began)) s, $(awk -v a="$(cpu_seconds "$logs/times.$worker.began")" \
        -v b="$(cpu_seconds "$logs/times.$worker.ended")" 'BEGIN { printf "%.1f", b - a }') s CPU"
    unlock
}
lock() {
    while ! mkdir "$logs/lock" 2>/dev/null; do sleep 0.05; done
}
unlock() {
    rmdir "$logs/lock"
}

# JOBS parts at a time (default 2, the CPUs of the machines this suite is
# budgeted on), each worker taking the next part of the list when it is
# done.  The fast suite's parts mostly run one thread at a time, and their
# OpenMP threads sleep when they wait (OMP_WAIT_POLICY above): side by side,
# two parts took the time of about one.  (With spinning threads they did
# not: the unit binary once took 218 s beside the command-line tests, 52 s
# alone.)  The slow suite's parts time things: one at a time.  The longest
# parts go first, so that no long one starts last.
if [ "$SUITE" = fast ]; then
    JOBS=${JOBS:-2}
else
    JOBS=1
fi
case $JOBS in '' | *[!0-9]* | 0) echo "tests/run.sh: JOBS must be a whole number from 1" >&2; exit 2 ;; esac
first="unit tests/cli/ab.sh tests/cli/scripts.sh tests/cli/history.sh tests/cli/bigfiles.sh"
for part in $parts; do
    case " $first " in *" $part "*) printf '%s\n' "$part" ;; esac
done >"$logs/queue"
for part in $parts; do
    case " $first " in *" $part "*) ;; *) printf '%s\n' "$part" ;; esac
done >>"$logs/queue"
echo 1 >"$logs/next"
suite_began=$(date +%s)
pids=
worker=0
while [ "$worker" -lt "$JOBS" ]; do
    worker=$((worker + 1))
    (
        while :; do
            lock
            n=$(cat "$logs/next")
            echo $((n + 1)) >"$logs/next"
            unlock
            part=$(sed -n "${n}p" "$logs/queue")
            [ -n "$part" ] || break
            run_part "$part"
        done
    ) &
    pids="$pids $!"
done
# Ctrl-C or SIGTERM: each worker's running test is told too (timeout passes
# it on), not left running after the summary.
trap 'for p in $pids; do pkill -TERM -P "$p"; kill "$p"; done 2>/dev/null; exit 130' INT TERM
wait
echo "time suite: $(($(date +%s) - suite_began)) s, $JOBS parts at a time"

passed=0 failed=0 skipped=0
for part in $parts; do
    log="$logs/$(printf '%s' "$part" | tr '/.' '__').log"
    if [ "$part" = unit ] || [ "$part" = unit-slow ]; then
        summary=$(sed -n 's/^unit: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' "$log")
        # no summary: the line appended above is the one failure counted
        set -- ${summary:-0 0 0}
        passed=$((passed + $1))
        failed=$((failed + $2 + $(grep -c '^FAIL script ' "$log")))
        skipped=$((skipped + $3))
    else
        passed=$((passed + $(grep -c '^ok ' "$log")))
        failed=$((failed + $(grep -c '^FAIL ' "$log")))
        skipped=$((skipped + $(grep -c '^skip ' "$log")))
    fi
done

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
