# compare.sh - `gemmbench compare`: exit 0/1/2, the gate, one-sided entries,
# the header, every malformed input.  The fixtures are small result files
# written here (gemmbench/1 with 8x8x8 shapes and a handful of samples),
# so the verdicts are known: disjoint samples give the smallest p the exact
# U test allows, identical ones give p = 1.
. tests/cli/lib.sh
G=$GEMMBENCH
CI_SWEEP=$(pwd)/scripts/ci-sweep.sh
cd "$WORK" || exit 1

# entry VARIANT KERNEL M MEDIAN SAMPLES [THREADS]: one results[] member.
entry() {
    printf '{"variant":"%s","label":"%s","family":"%s","kernel":"%s","M":%s,"K":8,"N":8,' \
        "$1" "$1" "$1" "$2" "$3"
    printf '"threads":%s,"prepack":false,"reps":5,"median_us":%s,"min_us":1,"mean_us":%s,' \
        "${6:-1}" "$4" "$4"
    printf '"stddev_us":1,"gflops":2.5,"peak_pct":null,"check":"pass","params":{},'
    printf '"samples_us":[%s]}' "$5"
}

# doc FILE CPU PEAK THREADS ENTRY...: a whole result file.
doc() {
    file=$1 cpu=$2 peak=$3 threads=$4
    shift 4
    {
        printf '{"schema":"gemmbench/1","complete":true,'
        printf '"tool":{"version":"0.1.0","git":"test","compiler":"cc","cflags":"-O3"},'
        printf '"machine":{"hostname":"h","cpu_model":"%s","logical_cpus":2,' "$cpu"
        printf '"isa":["avx2","fma"],"caches":{},"peak_gflops":%s},' "$peak"
        printf '"run":{"started":"2026-01-01T00:00:00Z","command":"gemmbench","threads":%s,' "$threads"
        printf '"warmup":1,"reps":5,"config":{"m":[16]}},"results":['
        sep=""
        for e in "$@"; do
            printf '%s%s' "$sep" "$e"
            sep=","
        done
        printf ']}\n'
    } >"$file"
}

BASE_S="100,101,102,103,104"
VEC_S="50,51,52,53,54"
PAR_S="30,31,32,33,34"
doc old.json "CPU A" null 1 \
    "$(entry baseline qkv 16 102 "$BASE_S")" \
    "$(entry vec_j qkv 16 52 "$VEC_S")" \
    "$(entry parallel qkv 16 32 "$PAR_S")"

# Identical: every p is 1.
cp old.json same.json
expect_exit identical_passes 0 "$G" compare old.json same.json
expect_grep identical_all_same "3 same" "$WORK/out"
expect_grep identical_geomean "overall .*1.000" "$WORK/out"
expect_grep identical_no_diffs "no differences in the tool" "$WORK/out"

# vec_j 20% slower, all five samples above the old ones: p = 2/252.
doc slow.json "CPU A" null 1 \
    "$(entry baseline qkv 16 102 "$BASE_S")" \
    "$(entry vec_j qkv 16 62.4 "60,61,62.4,63,64")" \
    "$(entry parallel qkv 16 32 "$PAR_S")"
expect_exit slowdown_fails 1 "$G" compare old.json slow.json
expect_grep slowdown_named "FAIL vec_j qkv M=16" "$WORK/out"
expect_grep slowdown_row_marked "^vec_j .*slower  FAIL" "$WORK/out"
expect_grep slowdown_p_exact "0.0079" "$WORK/out"
expect_grep slowdown_gate_line "gate: FAIL: 1 of 3" "$WORK/out"
# Files without run.rounds were measured in one pass: a failed gate says so.
expect_grep slowdown_one_round_note "note: a file was measured in one round" "$WORK/err"
sed 's/"warmup":1/"rounds":5,"warmup":1/' old.json >old5.json
sed 's/"warmup":1/"rounds":5,"warmup":1/' slow.json >slow5.json
expect_exit slowdown_rounds_fails 1 "$G" compare old5.json slow5.json
if grep -q "measured in one round" "$WORK/err"; then
    echo "FAIL slowdown_rounds_no_note: $(cat "$WORK/err")"
else
    echo "ok slowdown_rounds_no_note"
fi
# The other way round it is a speed-up, which never fails the gate.
expect_exit speedup_passes 0 "$G" compare slow.json old.json
expect_grep speedup_faster "^vec_j .*faster" "$WORK/out"
# A threshold above the change, or an alpha below the smallest p, lets it pass.
expect_exit threshold_above_change 0 "$G" compare old.json slow.json --threshold 25
expect_grep threshold_still_slower "^vec_j .*slower$" "$WORK/out"
expect_exit alpha_below_min_p 0 "$G" compare old.json slow.json --alpha 0.005
expect_grep alpha_gives_same "^vec_j .*same$" "$WORK/out"

# 3% slower and significant: a verdict, but inside the default threshold.
doc slight.json "CPU A" null 1 \
    "$(entry baseline qkv 16 105.06 "104.5,104.8,105.06,106,107")" \
    "$(entry vec_j qkv 16 52 "$VEC_S")" \
    "$(entry parallel qkv 16 32 "$PAR_S")"
expect_exit slight_slowdown_passes 0 "$G" compare old.json slight.json
expect_grep slight_is_slower "^baseline .*slower$" "$WORK/out"
expect_exit slight_fails_lower_threshold 1 "$G" compare old.json slight.json --threshold 2
expect_exit threshold_zero_fails 1 "$G" compare old.json slight.json --threshold 0

# Markdown and JSON say the same.
expect_exit md_fails 1 "$G" compare old.json slow.json --format md
expect_grep md_marks_row "| \*\*slower: FAIL\*\* |" "$WORK/out"
expect_grep md_gate "\*\*gate: FAIL\*\*" "$WORK/out"
expect_exit json_fails 1 "$G" compare old.json slow.json --format json
expect_grep json_result "\"result\":.*\"fail\"" "$WORK/out"
expect_grep json_gate_fail "\"gate_fail\":.*true" "$WORK/out"
expect_grep json_exact_test "\"test\":.*\"exact\"" "$WORK/out"

# Too few samples: no verdict even for a 50% slowdown, and a warning.
doc few_old.json "CPU A" null 1 "$(entry vec_j qkv 16 51 "50,51,52")"
doc few_new.json "CPU A" null 1 "$(entry vec_j qkv 16 76 "75,76,77")"
expect_exit few_samples_no_verdict 0 "$G" compare few_old.json few_new.json
expect_grep few_samples_row "too few samples" "$WORK/out"
expect_grep few_samples_warned "warning: 1 of 1 entries have fewer than 5" "$WORK/err"
expect_exit few_samples_min_lowered 0 "$G" compare few_old.json few_new.json --min-samples 3
expect_grep few_samples_min_lowered_tested "^vec_j .*same$" "$WORK/out"

# One-sided entries are listed, not dropped; geomeans per variant and kernel.
doc other.json "CPU A" null 1 \
    "$(entry baseline qkv 16 102 "$BASE_S")" \
    "$(entry vec_j qkv 16 52 "$VEC_S")" \
    "$(entry vec_j qkv 32 99 "$VEC_S")" \
    "$(entry vec_j mlp_reduce 16 77 "$VEC_S")"
expect_exit one_sided_ok 0 "$G" compare old.json other.json
expect_grep only_old_listed "only in OLD (1" "$WORK/out"
expect_grep only_old_entry "^  parallel qkv M=16" "$WORK/out"
expect_grep only_new_listed "only in NEW (2" "$WORK/out"
expect_grep only_new_entry "^  vec_j mlp_reduce M=16" "$WORK/out"
expect_grep one_sided_noted "1 entries only in old.json, 2 only in other.json" "$WORK/err"
expect_grep geomean_variant "variant  vec_j" "$WORK/out"
expect_grep geomean_kernel "kernel   qkv" "$WORK/out"

# Filters.
expect_exit filter_variant 1 "$G" compare old.json slow.json --variant vec_j
expect_grep filter_variant_only "(1 compared" "$WORK/out"
expect_exit filter_excludes_failure 0 "$G" compare old.json slow.json --variant baseline,parallel
expect_exit filter_family 0 "$G" compare old.json slow.json -v baseline -k qkv
expect_exit filter_unknown_variant 2 "$G" compare old.json slow.json --variant vec_jj
expect_grep filter_unknown_named "vec_jj" "$WORK/err"
expect_exit filter_unknown_kernel 2 "$G" compare old.json slow.json --kernel qkvv

# Header: cross-machine, peak, other differences.
doc peak_a.json "CPU A" 100 1 "$(entry vec_j qkv 16 52 "$VEC_S")"
doc peak_b.json "CPU B" 200 1 "$(entry vec_j qkv 16 26 "25,26,27,28,29")"
expect_exit cross_machine_faster 0 "$G" compare peak_a.json peak_b.json
expect_grep cross_machine_said "CROSS-MACHINE comparison (machine.cpu_model differs)" "$WORK/out"
expect_grep cross_machine_cpu_diff "machine.cpu_model .*CPU A | CPU B" "$WORK/out"
# gflops 2.5 over peaks of 100 and 200 GFLOP/s: 2.5% then 1.25% of peak.
expect_grep peak_column "2.5->1.2" "$WORK/out"
expect_grep peak_line "peak: 100.0 -> 200.0 GFLOP/s" "$WORK/out"
expect_exit same_machine 0 "$G" compare old.json same.json
expect_grep same_machine_said "^same machine: CPU A" "$WORK/out"
# A machine field one file lacks (written by an older build) is a format
# difference, not another machine; a value that differs still is one.
sed 's/"caches":{}/"caches":{"L1d":{"size_bytes":49152}}/' old.json >noways.json
sed 's/"caches":{}/"caches":{"L1d":{"size_bytes":49152,"ways":12}}/' same.json >ways.json
sed 's/"caches":{}/"caches":{"L1d":{"size_bytes":49152,"ways":8}}/' same.json >ways8.json
expect_exit field_absent_in_old 0 "$G" compare noways.json ways.json
expect_grep field_absent_same_machine "^same machine: CPU A" "$WORK/out"
# A cache level is one line: "48 KiB | 48 KiB 12-way" (the ways absent in OLD).
expect_grep field_absent_listed "machine.caches.L1d  *48 KiB | 48 KiB 12-way$" "$WORK/out"
expect_exit field_value_differs 0 "$G" compare ways8.json ways.json
expect_grep field_value_cross_machine "CROSS-MACHINE comparison (machine.caches.L1d differs)" "$WORK/out"
sed 's/"cflags":"-O3"/"cflags":"-O2"/' old.json >flags.json
expect_exit cflags_diff 0 "$G" compare old.json flags.json
expect_grep cflags_diff_shown "tool.cflags .*-O3 | -O2" "$WORK/out"

# Nothing in common.
doc disjoint.json "CPU A" null 1 "$(entry vec_j mlp_expand 16 52 "$VEC_S")"
expect_exit nothing_in_common 2 "$G" compare old.json disjoint.json
expect_grep nothing_in_common_said "no measurement in common" "$WORK/err"
doc threads2.json "CPU A" null 2 "$(entry vec_j qkv 16 52 "$VEC_S" 2)"
expect_exit threads_differ 2 "$G" compare old.json threads2.json
expect_grep threads_differ_hint "ran 1 and 2 threads" "$WORK/err"

# Malformed input: exit 2, one line naming the file.
bad() {
    name=$1
    shift
    expect_exit "bad_$name" 2 "$G" compare old.json "$@"
    expect_grep "bad_${name}_names_file" "$1" "$WORK/err"
}
bad missing_file "$WORK/nope.json"
: >empty.json
bad empty_file empty.json
head -c 300 old.json >truncated.json
bad truncated truncated.json
expect_grep truncated_says_json "not valid JSON" "$WORK/err"
sed 's#gemmbench/1#gemmbench/2#' old.json >schema.json
bad other_schema schema.json
expect_grep other_schema_said "schema \"gemmbench/2\"" "$WORK/err"
printf '[1, 2]\n' >array.json
bad not_an_object array.json
printf '{"foo": 1}\n' >noschema.json
bad no_schema noschema.json
sed 's/"median_us":52,//' old.json >nomedian.json
bad missing_field nomedian.json
expect_grep missing_field_named "missing field \"median_us\"" "$WORK/err"
sed 's/"M":16/"M":"16"/' old.json >mstring.json
bad wrong_type mstring.json
expect_grep wrong_type_named "\"M\" is not a number" "$WORK/err"
sed 's/"median_us":52/"median_us":null/' old.json >nullmedian.json
bad null_time nullmedian.json
sed 's/"median_us":52/"median_us":-52/' old.json >negmedian.json
bad negative_time negmedian.json
sed 's/"samples_us":\[50,/"samples_us":[-50,/' old.json >negsample.json
bad negative_sample negsample.json
expect_grep negative_sample_named "samples_us\"\[0\]" "$WORK/err"
sed 's/"samples_us":\[50,/"samples_us":[NaN,/' old.json >nansample.json
bad nan_sample nansample.json
sed 's/"median_us":52/"median_us":NaN/' old.json >nanmedian.json
bad nan_time nanmedian.json
sed 's/"samples_us":\[50,51,52,53,54\]/"samples_us":[]/' old.json >nosamples.json
bad empty_samples nosamples.json
sed 's/"results":\[.*\]}$/"results":[]}/' old.json >noresults.json
bad zero_results noresults.json
expect_grep zero_results_said "no entries" "$WORK/err"
sed 's/"median_us":52/"median_us":0/' old.json >zeromedian.json
bad zero_median zeromedian.json
mkdir dir.json
bad directory dir.json
expect_grep directory_said "is a directory" "$WORK/err"
# OLD is checked too, and first.
expect_exit bad_old_first 2 "$G" compare empty.json truncated.json
expect_grep bad_old_named "empty.json: empty file" "$WORK/err"

# Usage errors.
expect_exit usage_one_file 2 "$G" compare old.json
expect_exit usage_three_files 2 "$G" compare old.json same.json same.json
expect_exit usage_threshold_junk 2 "$G" compare old.json same.json --threshold 5x
expect_exit usage_threshold_negative 2 "$G" compare old.json same.json --threshold -1
expect_exit usage_threshold_nan 2 "$G" compare old.json same.json --threshold nan
expect_exit usage_alpha_zero 2 "$G" compare old.json same.json --alpha 0
expect_exit usage_alpha_one 2 "$G" compare old.json same.json --alpha 1
expect_exit usage_alpha_empty 2 "$G" compare old.json same.json --alpha ""
expect_exit usage_min_samples_one 2 "$G" compare old.json same.json --min-samples 1
expect_exit usage_format 2 "$G" compare old.json same.json --format csv
expect_exit usage_unknown_option 2 "$G" compare old.json same.json --frobnicate
expect_exit usage_missing_value 2 "$G" compare old.json same.json --alpha
expect_exit help_ok 0 "$G" compare --help
expect_grep help_on_stdout "usage: gemmbench compare OLD.json NEW.json" "$WORK/out"

# Real result files from two tiny runs: they load, pair and pass against themselves.
run_tiny() { "$G" --quiet --no-check --variant baseline,vec_j --shape 8x8x8 --reps 5 --warmup 0 -o "$1"; }
if run_tiny real1.json >/dev/null 2>&1 && run_tiny real2.json >/dev/null 2>&1; then
    expect_exit real_self 0 "$G" compare real1.json real1.json
    expect_grep real_self_pairs "(2 compared" "$WORK/out"
    expect_exit real_pair 0 "$G" compare real1.json real2.json --threshold 1000000
    expect_grep real_pair_pairs "(2 compared" "$WORK/out"
else
    echo "FAIL real_runs: gemmbench could not write real1.json/real2.json"
fi

# scripts/ci-sweep.sh passes compare's status on.  Baselines with absurd
# times make the verdict certain: 1e6 us is far slower than any 8x8x8 call,
# 0.001 us far faster.
SLOW_S="1000000,1000001,1000002,1000003,1000004"
FAST_S="0.001,0.0011,0.0012,0.0013,0.0014"
doc base_slow.json "CPU A" null 1 "$(entry vec_j custom 8 1000002 "$SLOW_S")"
doc base_fast.json "CPU A" null 1 "$(entry vec_j custom 8 0.0012 "$FAST_S")"
sweep() { CI_SWEEP_OUT="$WORK/ci/sweep.json" GEMMBENCH=$G bash "$CI_SWEEP" "$@"; }
tiny="--variant vec_j --shape 8x8x8 --threads 1 --no-check"
expect_exit ci_sweep_passes 0 sweep base_slow.json $tiny
expect_grep ci_sweep_compared "(1 compared: 1 faster" "$WORK/out"
expect_true ci_sweep_wrote_file test -s "$WORK/ci/sweep.json"
expect_exit ci_sweep_fails 1 sweep base_fast.json $tiny
expect_grep ci_sweep_names_failure "FAIL vec_j custom M=8" "$WORK/out"
expect_exit ci_sweep_compare_args 0 sweep base_fast.json $tiny -- --threshold 1e6
expect_exit ci_sweep_compare_format 1 sweep base_fast.json $tiny -- --format md
expect_grep ci_sweep_md "\*\*gate: FAIL\*\*" "$WORK/out"
expect_exit ci_sweep_missing_baseline 2 sweep "$WORK/nope.json" $tiny
expect_exit ci_sweep_bad_sweep_args 2 sweep base_slow.json --variant nope
expect_true ci_sweep_no_stale_file test ! -e "$WORK/ci/sweep.json"
expect_exit ci_sweep_no_args 2 bash "$CI_SWEEP"
expect_exit ci_sweep_help 0 bash "$CI_SWEEP" --help
expect_grep ci_sweep_help_usage "usage: scripts/ci-sweep.sh BASELINE.json" "$WORK/out"

# ci-sweep's own threshold (15%) is the default; compare args and
# CI_SWEEP_THRESHOLD override it.
SLOW20_S="1200000,1200001,1200002,1200003,1200004"
doc base_20.json "CPU A" null 1 "$(entry vec_j custom 8 1000002 "$SLOW_S")"
doc new_20.json "CPU A" null 1 "$(entry vec_j custom 8 1200002 "$SLOW20_S")"
expect_exit compare_threshold_15_fails_20 1 "$G" compare --threshold 15 base_20.json new_20.json
expect_exit compare_last_threshold_wins 0 "$G" compare --threshold 15 --threshold 25 base_20.json new_20.json
expect_exit ci_sweep_gate_line_says_15 0 sweep base_slow.json $tiny
expect_grep ci_sweep_gate_15 "above 1.15 (more than 15% slower)" "$WORK/out"
expect_exit ci_sweep_env_threshold 0 env CI_SWEEP_THRESHOLD=7 CI_SWEEP_OUT="$WORK/ci/sweep.json" GEMMBENCH=$G bash "$CI_SWEEP" base_slow.json $tiny
expect_grep ci_sweep_gate_7 "above 1.07 (more than 7% slower)" "$WORK/out"
expect_exit ci_sweep_args_win 0 sweep base_slow.json $tiny -- --threshold 9
expect_grep ci_sweep_gate_9 "above 1.09 (more than 9% slower)" "$WORK/out"
