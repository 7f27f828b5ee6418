# defaults.sh - the default number of rounds is one number: bench.conf's
# `rounds`, the built-in default (a run with no bench.conf), `--help` and the
# README say the same, so that the default sweep writes files that `compare`
# can judge (tests/slow/aa_defaults.sh checks that it does).
. tests/cli/lib.sh

conf=$(sed -n 's/^rounds *= *\([0-9][0-9]*\).*/\1/p' bench.conf)
expect_true defaults_bench_conf_sets_rounds test -n "$conf"

# Built in: an empty configuration file, enough calls for every round.
: >"$WORK/empty.conf"
"$GEMMBENCH" --config "$WORK/empty.conf" --variant vec_j --kernel qkv --m 16 --reps 10 \
    --warmup 1 --quiet -o "$WORK/builtin.json" >/dev/null 2>"$WORK/builtin.err"
builtin=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run"]["rounds"])' \
    "$WORK/builtin.json" 2>/dev/null)
if [ -n "$conf" ] && [ "$builtin" = "$conf" ]; then
    echo "ok defaults_builtin_rounds_match_bench_conf"
else
    echo "FAIL defaults_builtin_rounds_match_bench_conf: built in '$builtin', bench.conf '$conf'"
fi

# bench.conf's own sweep asks for that many rounds.
"$GEMMBENCH" --config bench.conf --variant vec_j --kernel qkv --m 16 --warmup 1 \
    --quiet -o "$WORK/conf.json" >/dev/null 2>&1
got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run"]["rounds"])' \
    "$WORK/conf.json" 2>/dev/null)
if [ -n "$conf" ] && [ "$got" = "$conf" ]; then
    echo "ok defaults_bench_conf_sweep_rounds"
else
    echo "FAIL defaults_bench_conf_sweep_rounds: the run recorded '$got', bench.conf says '$conf'"
fi

"$GEMMBENCH" --help >"$WORK/help" 2>&1
expect_grep defaults_help_names_rounds "(default: $conf," "$WORK/help"
expect_grep defaults_readme_names_rounds "split over $conf passes of the sweep" README.md

# Rounds that the command line did not ask for are at most one per timed call
# (bench.conf's 5 with --reps 3 is 3 rounds); --rounds above --reps is an error.
"$GEMMBENCH" --config bench.conf --variant vec_j --kernel qkv --m 16 --reps 3 --warmup 1 \
    --quiet -o "$WORK/few.json" >/dev/null 2>"$WORK/few.err"
got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run"]["rounds"])' \
    "$WORK/few.json" 2>/dev/null)
if [ "$got" = 3 ]; then
    echo "ok defaults_rounds_cut_to_reps"
else
    echo "FAIL defaults_rounds_cut_to_reps: recorded '$got': $(head -c 300 "$WORK/few.err")"
fi
expect_exit defaults_explicit_rounds_over_reps_refused 2 \
    "$GEMMBENCH" --config bench.conf --variant vec_j --kernel qkv --m 16 --reps 3 --rounds 5 \
    -o "$WORK/refused.json"
