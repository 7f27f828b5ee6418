#!/bin/sh
# Runs the unit tests and every tests/cli/*.sh, then prints the one summary
# line `N passed, N failed` and exits non-zero when anything failed.
# Usage: tests/run.sh BUILD_DIR
BUILD=${1:-build}
GEMMBENCH=$(cd "$BUILD" && pwd)/gemmbench
export GEMMBENCH
# Every run measures the bandwidth roofs; the tests use the quick probe (one
# trial, memory at 2x the last-level cache); tests/cli/roof.sh runs the real one.
GEMMBENCH_BANDWIDTH=quick
export GEMMBENCH_BANDWIDTH
passed=0
failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

"$BUILD/gemmbench-tests" >"$log" 2>&1
status=$?
cat "$log"
p=$(sed -n 's/^unit: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$log")
f=$(sed -n 's/^unit: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$log")
if [ -z "$p" ]; then
    echo "FAIL unit test binary ended without a summary (exit $status)"
    p=0 f=1
fi
passed=$((passed + p))
failed=$((failed + f))

for t in tests/cli/*.sh; do
    [ "$t" = tests/cli/lib.sh ] && continue
    sh "$t" >"$log" 2>&1
    cat "$log"
    p=$(grep -c '^ok ' "$log")
    f=$(grep -c '^FAIL ' "$log")
    passed=$((passed + p))
    failed=$((failed + f))
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
