#!/bin/sh
# Runs each libFuzzer target for SECONDS seconds, starting from its seed
# corpus tests/fuzz/corpus/TARGET (new inputs go to BUILD/corpus/TARGET, not
# into the repository), and prints libFuzzer's own summary of each.  Exits
# non-zero when any target found a crash, a leak or a timeout (the input is
# then in BUILD/artifacts/: add it to the seed corpus with a test).
# Usage: tests/fuzz/run.sh BUILD SECONDS TARGET...
set -u
build=$1 seconds=$2
shift 2
status=0
mkdir -p "$build/artifacts"
for t in "$@"; do
    work="$build/corpus/$t"
    mkdir -p "$work"
    log="$build/fuzz_$t.log"
    echo "== fuzz_$t: ${seconds}s"
    # -timeout: one input taking 10 s is a hang; -max_len: result files are
    # large, but 64 KiB reaches every branch of the readers.
    "$build/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len=65536 -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-" \
        "$work" "tests/fuzz/corpus/$t" >"$log" 2>&1
    rc=$?
    grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb|stat::new_units_added)|^#[0-9]+.*DONE' "$log"
    if [ "$rc" -ne 0 ]; then
        echo "FAIL fuzz_$t: exit $rc; the end of $log:"
        tail -n 30 "$log"
        status=1
    else
        echo "ok fuzz_$t"
    fi
done
exit $status
