# rule_based.sh - --explain prints every rule's decision and the task count
# per shape (the study's table of M, TM, N, TN, tasks); --param overrides are
# labelled in the table and the JSON; bad --param values exit 2.
. tests/cli/lib.sh
G=$GEMMBENCH
cd "$WORK" || exit 1

expect_exit explain_ok 0 "$G" --explain --variant rule_based --kernel qkv,mlp_expand \
    --m 16,32,64,96,128,384 -o "$WORK/explain.json"
cp "$WORK/out" "$WORK/explain.txt"
for rule in 'R1  TK = 8' 'R2  parallel' 'R3  vector width' 'R4  loop order' 'R5  fuse' \
    'R6  TN = 64' 'R7  TM' 'R8  j_pack = 32' 'R9  unroll ki' 'R10 cache_write' \
    'R11 decompose_reduction' 'R12 auto_unroll 64'; do
    expect_grep "explain_has_${rule%% *}" "$rule" "$WORK/explain.txt"
done
# The study's table: M, TM, N, TN, parallel tasks.
expect_grep explain_task_16_qkv 'tasks: M=16 TM=16 N=768 TN=64 -> 1 x 12 = 12' "$WORK/explain.txt"
expect_grep explain_task_32_qkv 'tasks: M=32 TM=32 N=768 TN=64 -> 1 x 12 = 12' "$WORK/explain.txt"
expect_grep explain_task_64_expand 'tasks: M=64 TM=64 N=3072 TN=64 -> 1 x 48 = 48' "$WORK/explain.txt"
expect_grep explain_task_128_qkv 'tasks: M=128 TM=64 N=768 TN=64 -> 2 x 12 = 24' "$WORK/explain.txt"
expect_grep explain_task_384_expand 'tasks: M=384 TM=64 N=3072 TN=64 -> 6 x 48 = 288' "$WORK/explain.txt"
expect_grep explain_r7_96 'TM = 32: M > 32 and M % 64 != 0' "$WORK/explain.txt"
# 6 M x 2 kernels = 12 shapes, each explained once.
n=$(grep -c '^rule_based  M=' "$WORK/explain.txt")
if [ "$n" -eq 12 ]; then echo "ok explain_every_shape"; else echo "FAIL explain_every_shape: $n"; fi
if [ -e "$WORK/explain.json" ]; then echo "FAIL explain_measures_nothing: wrote a result file"
else echo "ok explain_measures_nothing"; fi

expect_exit explain_param_ok 0 "$G" --explain --variant rule_based --shape 16x7x100 --param tk=16,tm=512
expect_grep explain_param_named '\[--param tk=16; rule: 8\]' "$WORK/out"
expect_grep explain_param_clamped '\[--param tm=512, clamped to M = 16; rule: 16\]' "$WORK/out"

# An overridden run is labelled in the table and the JSON.
run() { "$G" --quiet --reps 2 --warmup 0 --threads 2 "$@"; }
expect_exit param_run_ok 0 run --variant rule_based --shape 33x100x70 --param tk=16 -o "$WORK/tk16.json"
expect_grep param_table_label '^rule_based\[tk=16\] ' "$WORK/out"
expect_grep param_json_label '"label":[[:space:]]*"rule_based\[tk=16\]"' "$WORK/tk16.json"
expect_grep param_json_variant '"variant":[[:space:]]*"rule_based"' "$WORK/tk16.json"
tr -d ' \t\n' <"$WORK/tk16.json" >"$WORK/tk16.flat"
expect_grep param_json_params '"params":{"tk":16}' "$WORK/tk16.flat"
expect_grep param_json_effective '"effective_params":{"tm":32,"tn":64,"tk":16,"jpack":32' "$WORK/tk16.flat"
expect_grep param_json_check '"check":[[:space:]]*"pass"' "$WORK/tk16.json"
# The default run carries its effective parameters and no override label.
expect_exit default_run_ok 0 run --variant rule_based --shape 16x64x64 -o "$WORK/default.json"
expect_grep default_json_label '"label":[[:space:]]*"rule_based"' "$WORK/default.json"
tr -d ' \t\n' <"$WORK/default.json" >"$WORK/default.flat"
expect_grep default_json_params '"params":{}' "$WORK/default.flat"
expect_grep default_json_effective '"effective_params":{"tm":16,"tn":64,"tk":8,"jpack":32,"unroll_ki":"on"' "$WORK/default.flat"
expect_grep default_json_tasks '"tasks":1,' "$WORK/default.flat"

# Bad values: one line on stderr, exit 2, no file.
for bad in tk=0 tk=-4 tk=abc tk= tk=8x tn=0 tm=99999999999 jpack=0 unroll_ki=maybe \
    nosuchkey=1 tk; do
    expect_exit "param_rejects_$bad" 2 run --variant rule_based --shape 8x8x8 --param "$bad" \
        -o "$WORK/bad.json"
done
if [ -e "$WORK/bad.json" ]; then echo "FAIL param_rejects_leave_no_file"
else echo "ok param_rejects_leave_no_file"; fi
