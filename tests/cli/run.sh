# run.sh - a real sweep end to end: table, formats, JSON, verification,
# never overwriting, and Ctrl-C leaving a valid partial file.
. tests/cli/lib.sh
G=$GEMMBENCH
V="python3 $(pwd)/scripts/validate-json.py"
cd "$WORK" || exit 1
tiny="--variant baseline,parallel,vec_j --kernel qkv --m 1,7 --reps 3 --warmup 1 --quiet"

expect_exit tiny_run 0 "$G" $tiny -o "$WORK/a.json"
expect_grep table_has_header "median_us" "$WORK/out"
expect_grep table_has_row "^vec_j .* qkv .* 7 .*pass" "$WORK/out"
expect_true json_valid $V "$WORK/a.json" --complete --min-results 6
expect_exit no_overwrite 2 "$G" $tiny -o "$WORK/a.json"
expect_exit force_overwrites 0 "$G" $tiny -o "$WORK/a.json" --force
expect_true json_still_valid $V "$WORK/a.json" --complete --min-results 6

expect_exit csv_format 0 "$G" $tiny -o "$WORK/c.json" --format csv
expect_grep csv_header "^variant,family,kernel,M,K,N" "$WORK/out"
expect_grep csv_row "^parallel,parallel,qkv,7,768,768,2\?" "$WORK/out"
expect_exit md_format 0 "$G" $tiny -o "$WORK/m.json" --format md
expect_grep md_row "^| baseline | qkv | 1 |" "$WORK/out"
expect_exit json_format 0 "$G" $tiny -o "$WORK/j.json" --format json
expect_grep json_stdout '"schema":' "$WORK/out"

expect_exit custom_shape 0 "$G" --variant vec_j --shape 5x3x2 --shape 1x1x1 --reps 2 --quiet -o "$WORK/s.json"
expect_grep custom_shape_row "custom .* 5 .* 3 .* 2 " "$WORK/out"

# Default output goes to results/<host>-<time>.json, made when missing.
expect_exit default_output 0 "$G" --variant vec_j --shape 2x2x2 --reps 1 --quiet
if ls "$WORK"/results/*.json >/dev/null 2>&1; then echo "ok default_output_file"; else echo "FAIL default_output_file: nothing in results/"; fi

# bench.conf in the current directory is read, and a custom kernel runs.
printf 'reps = 2\nwarmup = 0\n[kernel tiny]\nk = 3\nn = 4\nm = 2 5\n' >"$WORK/bench.conf"
expect_exit bench_conf_kernel 0 "$G" --variant baseline --kernel tiny --quiet -o "$WORK/t.json"
expect_grep bench_conf_kernel_row "tiny .* 5 .* 3 .* 4 " "$WORK/out"
expect_grep bench_conf_reps '"reps":	2' "$WORK/t.json"
rm "$WORK/bench.conf"

# Ctrl-C in the middle of a sweep: exit 130, a valid file with complete false
# holding what was measured before the signal.
"$G" --variant baseline,vec_j --kernel mlp_expand --m 16,384 --reps 50 --max-time 20 \
    --quiet -o "$WORK/int.json" >"$WORK/int.out" 2>"$WORK/int.err" &
pid=$!
i=0
while [ $i -lt 600 ] && ! grep -q "^baseline" "$WORK/int.out" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
kill -INT $pid
wait $pid
rc=$?
if [ $rc -eq 130 ]; then echo "ok interrupt_exit_130"; else echo "FAIL interrupt_exit_130: exit $rc"; fi
expect_true interrupt_json_valid $V "$WORK/int.json" --min-results 1
expect_grep interrupt_incomplete '"complete":	false' "$WORK/int.json"
expect_grep interrupt_says_partial "partial results" "$WORK/int.err"

# Each --param is a set of its own; every set runs, labelled (ablations).
expect_exit param_sets 0 "$G" --variant rule_based --param tk=4 --param tk=8,tn=32 --kernel qkv --m 7 --reps 2 --quiet -o "$WORK/p.json"
expect_grep param_set_one "^rule_based\[tk=4\]  *qkv  *7 .*pass" "$WORK/out"
expect_grep param_set_two "^rule_based\[tk=8,tn=32\]  *qkv  *7 .*pass" "$WORK/out"
expect_grep param_sets_json '"label":	"rule_based\[tk=8,tn=32\]"' "$WORK/p.json"
