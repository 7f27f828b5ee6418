# lib.sh - helpers for command-line tests.  Each check prints `ok NAME` or
# `FAIL NAME: why`, or `skip NAME: why` when it cannot run here (a skip is
# never an ok); tests/run.sh counts those lines.
# $GEMMBENCH is the binary under test; every test works in its own $WORK.
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# skip NAME WHY: the check NAME cannot run on this machine or build.
skip() {
    echo "skip $1: $2"
}

# expect_exit NAME CODE CMD...: CMD exits with CODE and prints exactly one
# line on stderr when CODE is 2 (a usage or input error is reported in one
# line that names the problem).
expect_exit() {
    name=$1 code=$2
    shift 2
    "$@" >"$WORK/out" 2>"$WORK/err" </dev/null
    got=$?
    if [ "$got" -ne "$code" ]; then
        echo "FAIL $name: exit $got, expected $code; stderr: $(head -c 300 "$WORK/err")"
        return 1
    fi
    if [ "$code" -eq 2 ]; then
        lines=$(wc -l <"$WORK/err")
        if [ "$lines" -ne 1 ] || ! grep -q '^gemmbench' "$WORK/err"; then
            echo "FAIL $name: expected one 'gemmbench...' line on stderr, got $lines: $(head -c 300 "$WORK/err")"
            return 1
        fi
    fi
    echo "ok $name"
}

# py_check NAME ARG... <<PY: the python3 program on stdin succeeds on ARGs;
# a named skip where python3 is missing (never an ok).
py_check() {
    name=$1
    shift
    if ! command -v python3 >/dev/null 2>&1; then
        skip "$name" "needs python3"
        return
    fi
    if python3 - "$@" >"$WORK/py.out" 2>&1; then
        echo "ok $name"
    else
        echo "FAIL $name: $(tail -c 400 "$WORK/py.out" | tr "\n" " ")"
    fi
}

# expect_verdict NAME CMD...: CMD (gemmbench ab or compare) gives a verdict,
# whichever: exit 0 with "gate: pass" or exit 1 with "gate: FAIL" (stdout in
# $WORK/out, stderr in $WORK/err).  For runs of one build against itself,
# whose verdict is the machine's noise: an A/A run fails the gate now and
# then, so that it passes is tests/slow/ab_aa.sh's check, not this suite's.
# Anything else (2 refused, 3 I/O, a crash, a verdict that contradicts the
# exit status) is a FAIL.
expect_verdict() {
    name=$1
    shift
    "$@" >"$WORK/out" 2>"$WORK/err" </dev/null
    rc=$?
    if { [ $rc -eq 0 ] && grep -q 'gate: pass' "$WORK/out"; } ||
        { [ $rc -eq 1 ] && grep -q 'gate: FAIL' "$WORK/out"; }; then
        echo "ok $name"
    else
        echo "FAIL $name: exit $rc, gate line '$(grep 'gate:' "$WORK/out" | head -c 100)': $(head -c 300 "$WORK/err")"
    fi
}

# expect_grep NAME PATTERN FILE: FILE has a line matching PATTERN.
expect_grep() {
    if grep -q -- "$2" "$3"; then
        echo "ok $1"
    else
        echo "FAIL $1: no '$2' in $3: $(head -c 300 "$3")"
    fi
}

# check NAME CMD...: CMD succeeds (its output, on failure, in the line).
check() {
    name=$1
    shift
    if "$@" >"$WORK/check.out" 2>&1; then
        echo "ok $name"
    else
        echo "FAIL $name: $(head -c 400 "$WORK/check.out")"
    fi
}

# expect_true NAME CMD...: CMD succeeds.
expect_true() {
    name=$1
    shift
    if "$@" >/dev/null 2>&1; then echo "ok $name"; else echo "FAIL $name: '$*' failed"; fi
}

# expect_interrupted NAME PATTERN FILE CMD...: runs CMD in the background
# (stdout in $WORK/NAME.out, stderr in $WORK/NAME.err), sends it SIGINT once
# FILE has a line matching PATTERN (waiting at most 60 s), and checks that it
# exits with 130.
expect_interrupted() {
    name=$1 pattern=$2 file=$3
    shift 3
    "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" </dev/null &
    pid=$!
    i=0
    while [ $i -lt 600 ] && ! grep -q -- "$pattern" "$file" 2>/dev/null; do
        sleep 0.1
        i=$((i + 1))
    done
    kill -INT $pid
    wait $pid
    rc=$?
    if [ $rc -eq 130 ]; then echo "ok ${name}_exit_130"; else echo "FAIL ${name}_exit_130: exit $rc: $(head -c 300 "$WORK/$name.err")"; fi
}
