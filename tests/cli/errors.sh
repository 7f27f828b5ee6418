# errors.sh - bad input gets a one-line error and exit 2, and never a file.
. tests/cli/lib.sh
G=$GEMMBENCH
cd "$WORK" || exit 1
# No bench.conf here: the built-in defaults apply.
run() { "$G" --quiet --reps 1 --warmup 0 --no-check -o "$WORK/r.json" "$@"; }

expect_exit unknown_variant 2 run --variant rule_based_nope --kernel qkv
expect_grep unknown_variant_named "rule_based_nope" "$WORK/err"
expect_exit unknown_kernel 2 run --variant baseline --kernel qkvv
expect_exit m_zero 2 run --variant baseline --m 0
expect_exit m_negative 2 run --variant baseline --m -5
expect_exit m_junk 2 run --variant baseline --m 12abc
expect_exit m_huge 2 run --variant baseline --m 99999999999
expect_exit shape_zero 2 run --variant baseline --shape 0x5x5
expect_exit shape_two_dims 2 run --variant baseline --shape 4x4
expect_exit shape_four_dims 2 run --variant baseline --shape 4x4x4x4
expect_exit shape_too_big 2 run --variant baseline --shape 1000000x1000000x1000000
expect_grep shape_too_big_says_memory "GiB" "$WORK/err"
expect_exit threads_zero 2 run --variant baseline --threads 0
expect_exit reps_zero 2 run --variant baseline --reps 0
expect_exit warmup_junk 2 run --variant baseline --warmup x
expect_exit max_time_zero 2 run --variant baseline --max-time 0
expect_exit max_time_nan 2 run --variant baseline --max-time nan
expect_exit min_time_negative 2 run --variant baseline --min-time -1
expect_exit min_time_junk 2 run --variant baseline --min-time 1s
expect_exit format_bad 2 run --variant baseline --format xml
expect_exit unknown_option 2 run --frobnicate
expect_exit missing_value 2 run --variant
expect_exit stray_argument 2 run --variant baseline extra
expect_exit param_unknown_key 2 run --variant baseline --param tk=8
expect_exit config_missing 2 run --config "$WORK/nope.conf"
printf 'reps = 5\nbogus = 1\n' >"$WORK/unknown.conf"
expect_exit config_unknown_key 2 run --config "$WORK/unknown.conf"
expect_grep config_error_names_file_line "unknown.conf:2" "$WORK/err"
printf 'reps = five\n' >"$WORK/badval.conf"
expect_exit config_bad_value 2 run --config "$WORK/badval.conf"
expect_grep config_bad_value_line "badval.conf:1" "$WORK/err"
printf 'reps 5\n' >"$WORK/malformed.conf"
expect_exit config_malformed 2 run --config "$WORK/malformed.conf"
printf '[kernel x]\nk = 8\n' >"$WORK/nok.conf"
expect_exit config_kernel_without_n 2 run --config "$WORK/nok.conf"
mkdir "$WORK/unreadable.conf"
expect_exit config_unreadable 2 run --config "$WORK/unreadable.conf"
# A path that cannot be created is an I/O error (3), as a full disk is.
expect_exit output_dir_missing 3 "$G" --quiet --variant baseline --m 1 -o "$WORK/no/such/dir/r.json"
echo keep >"$WORK/existing.json"
expect_exit output_exists 2 "$G" --quiet --variant baseline --m 1 -o "$WORK/existing.json"
expect_grep output_exists_untouched "^keep$" "$WORK/existing.json"

# None of the failures above may have left a result file behind.
if [ -e "$WORK/r.json" ]; then echo "FAIL no_partial_file: r.json exists"; else echo "ok no_partial_file"; fi

expect_exit help_is_ok 0 "$G" --help
expect_grep help_on_stdout "usage: gemmbench" "$WORK/out"
expect_exit version_is_ok 0 "$G" --version
expect_exit list_is_ok 0 "$G" --list
expect_grep list_has_baseline "^baseline" "$WORK/out"
expect_exit info_is_ok 0 "$G" info
expect_grep info_has_cpu "^cpu" "$WORK/out"
expect_exit info_rejects_args 2 "$G" info extra

# --rounds: a positive count, no more than the timed calls it splits.
expect_exit rounds_zero 2 run --variant baseline --rounds 0
expect_exit rounds_text 2 run --variant baseline --rounds two
expect_exit rounds_over_reps 2 "$G" --quiet --variant vec_j --shape 2x2x2 --reps 2 --rounds 3 -o "$WORK/r.json"
expect_grep rounds_over_reps_says "rounds (3) is more than reps (2)" "$WORK/err"
printf 'rounds = 0\n' >"$WORK/rounds0.conf"
expect_exit rounds_conf_zero 2 "$G" --quiet --config "$WORK/rounds0.conf" --variant vec_j --shape 2x2x2 -o "$WORK/r.json"
