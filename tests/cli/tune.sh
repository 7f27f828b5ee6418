# tune.sh - gemmbench tune writes records; the tuned variant replays them,
# falls back to the nearest shape and then to the rules, and says which.
. tests/cli/lib.sh
G=$GEMMBENCH
SPACE=$(pwd)/schedules/cpu_gemm.space
cd "$WORK" || exit 1
export GEMMBENCH_RECORDS="$WORK/tuned.json"

expect_exit tune_help 0 "$G" tune --help
expect_exit tune_bad_variant 2 "$G" tune --variant baseline
expect_exit tune_bad_trials 2 "$G" tune --trials 0
expect_exit tune_trials_and_budget 2 "$G" tune --trials 3 --budget 5
expect_exit tune_bad_kernel 2 "$G" tune --kernel nope

# No record file yet: the rules, and the label says so.
expect_exit tuned_without_records 0 "$G" --variant tuned --kernel qkv --m 16 --reps 2 --quiet -o "$WORK/r0.json"
expect_grep tuned_rule_label "^tuned(rule) " "$WORK/out"
expect_grep tuned_rule_json '"source":	"rule"' "$WORK/r0.json"

expect_exit tune_runs 0 "$G" tune --variant rule_based --kernel qkv --m 16 --trials 4 --reps 3 --quiet
expect_grep tune_prints_row "^qkv  *16  *768  *768 " "$WORK/out"
expect_grep tune_wrote_record '"base":	"rule_based"' "$WORK/tuned.json"
expect_grep tune_record_has_tm '"tm":' "$WORK/tuned.json"

expect_exit tuned_with_record 0 "$G" --variant tuned --kernel qkv --m 16,32 --reps 2 --quiet -o "$WORK/r1.json"
expect_grep tuned_record_label "^tuned  *qkv  *16 .*pass" "$WORK/out"
expect_grep tuned_nearest_label "^tuned(nearest)  *qkv  *32 .*pass" "$WORK/out"
expect_grep tuned_record_json '"source":	"record"' "$WORK/r1.json"
expect_grep tuned_nearest_json '"from_m":	16' "$WORK/r1.json"

# Re-tuning another shape keeps the first record.
expect_exit tune_second_shape 0 "$G" tune --kernel qkv --m 32 --trials 2 --reps 2 --quiet
n=$(grep -c '"base":' "$WORK/tuned.json")
if [ "$n" -eq 2 ]; then echo "ok tune_keeps_records"; else echo "FAIL tune_keeps_records: $n records"; fi

# A corrupt record file: the sweep goes on with the rules and a warning; tune
# moves it aside rather than overwriting it.
echo '{"schema": "gemmbench-tuned/1", "records": [' >"$WORK/tuned.json"
expect_exit tuned_corrupt_not_fatal 0 "$G" --variant tuned --kernel qkv --m 16 --reps 2 --quiet -o "$WORK/r2.json"
expect_grep tuned_corrupt_warns "warning: .*tuned.json" "$WORK/err"
expect_grep tuned_corrupt_label "^tuned(unreadable) " "$WORK/out"
expect_exit tune_over_corrupt 0 "$G" tune --kernel qkv --m 16 --trials 2 --reps 2 --quiet
expect_grep tune_corrupt_moved "moved to" "$WORK/err"
if ls "$WORK"/tuned.json.corrupt-* >/dev/null 2>&1; then echo "ok tune_corrupt_kept"; else echo "FAIL tune_corrupt_kept: no .corrupt file"; fi
expect_exit param_source_refused 2 "$G" --variant tuned --param source=record --m 16 --kernel qkv

# --threads takes a list, as a run's does: records are per count, so each
# count is tuned and recorded on its own.
expect_exit tune_thread_list 0 "$G" tune --shape 8x8x8 --threads 1,2 --trials 2 --reps 1 --quiet --records "$WORK/list.json"
n=$(grep -c '"fingerprint":.*|threads=[12]"' "$WORK/list.json")
if [ "$n" -eq 2 ]; then echo "ok tune_thread_list_records"; else echo "FAIL tune_thread_list_records: $n records"; fi
expect_exit tune_thread_list_bad 2 "$G" tune --threads 1,,2
expect_grep tune_thread_list_bad_says "'1,,2' is not a thread count or list: an empty element" "$WORK/err"

# --records is checked before any work (issue 48): a directory, a FIFO or a
# link is refused in one line naming it, exit 2, before the compiler's probe
# (a CC that cannot run would be named first) and before any search; its
# name is shown escaped.
E=$(printf 'x\033[31my\nz')
mkdir "$WORK/recdir" "$WORK/$E"
mkfifo "$WORK/recfifo"
ln -s "$WORK/list.json" "$WORK/reclink"
for kind in dir:recdir:'is a directory' fifo:recfifo:'is a device, FIFO or socket' \
    link:reclink:'is a symbolic link'; do
    what=${kind%%:*} rest=${kind#*:}
    path=$WORK/${rest%%:*} says=${rest#*:}
    expect_exit tune_records_${what}_first 2 env CC="$WORK/no-such-cc" "$G" tune --space "$SPACE" \
        --shape 8x8x8 --threads 1 --trials 2 --quiet --records "$path"
    expect_grep tune_records_${what}_named "records $path $says, not a regular file" "$WORK/err"
done
expect_exit tune_records_escaped 2 env CC="$WORK/no-such-cc" "$G" tune --space "$SPACE" \
    --shape 8x8x8 --threads 1 --trials 2 --quiet --records "$WORK/$E"
expect_grep tune_records_escaped_shown 'records .*/x\\x1b\[31my\\x0az is a directory' "$WORK/err"
if [ -L "$WORK/reclink" ] && [ -p "$WORK/recfifo" ] && [ -d "$WORK/recdir" ] &&
    [ -z "$(ls "$WORK/recdir")" ]; then
    echo "ok tune_records_left_alone"
else
    echo "FAIL tune_records_left_alone: $(ls -l "$WORK" | head -c 300)"
fi
