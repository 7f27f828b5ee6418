# badinput2.sh - issue 28, bad input on the newer surfaces: tune's record
# path, bench.conf's NUL bytes, flags that were dropped or doubled without a
# word, and messages or metadata that misled.  (ab's are in ab_bad.sh, the
# signals in signals.sh.)
. tests/cli/lib.sh
G=$GEMMBENCH
cd "$WORK" || exit 1
T="--shape 8x8x8 --reps 1 --warmup 0 --quiet"
TUNE="tune --shape 8x8x8 --trials 2 --reps 1 --quiet"
export GEMMBENCH_RECORDS="$WORK/tuned.json"

# 1. --records that is not a regular file is refused before measuring, and
# left where it is (it used to be renamed to PATH.corrupt-<time>).
mkdir recdir
mkfifo recfifo
ln -s tuned-target.json reclink
printf '{"schema": "gemmbench-tuned/1", "records": []}\n' >tuned-target.json
expect_exit rec_dir_refused 2 "$G" $TUNE --records recdir
expect_grep rec_dir_says "recdir is a directory, not a regular file" "$WORK/err"
expect_exit rec_fifo_refused 2 "$G" $TUNE --records recfifo
expect_grep rec_fifo_says "recfifo is a device, FIFO or socket" "$WORK/err"
expect_exit rec_link_refused 2 "$G" $TUNE --records reclink
expect_grep rec_link_says "reclink is a symbolic link" "$WORK/err"
expect_exit rec_env_dir_refused 2 env GEMMBENCH_RECORDS="$WORK/recdir" "$G" $TUNE
if [ -d recdir ] && [ -p recfifo ] && [ -L reclink ] && ! ls ./*.corrupt-* >/dev/null 2>&1; then
    echo "ok rec_nothing_moved"
else
    echo "FAIL rec_nothing_moved: $(ls)"
fi
# A device node of its own (never /dev/null: a build without the check, run
# as root, would move it away).
if mknod recdev c 1 3 2>/dev/null; then
    expect_exit rec_device_refused 2 "$G" $TUNE --records recdev
    if [ -c recdev ]; then echo "ok rec_device_kept"; else echo "FAIL rec_device_kept"; fi
else
    skip rec_device_refused "mknod needs root"
fi
# A regular file that fails validation is still moved aside, and said so.
echo 'not json' >bad-rec.json
expect_exit rec_corrupt_moved 0 "$G" $TUNE --records bad-rec.json
expect_grep rec_corrupt_says "moved to .*bad-rec.json.corrupt-" "$WORK/err"

# 9. --records '' is refused before the search, not when the first save fails.
expect_exit rec_empty_refused 2 "$G" $TUNE --records ''
expect_grep rec_empty_says "tune: --records needs a file name" "$WORK/err"
if grep -q "^tuning" "$WORK/out"; then echo "FAIL rec_empty_early: it searched"; else echo "ok rec_empty_early"; fi

# 4. A NUL byte in bench.conf is binary data, with or without a newline after.
printf 'reps = 3\0garbage' >nul1.conf
expect_exit conf_nul_refused 2 "$G" $T --config nul1.conf --variant baseline -o nul1.json
expect_grep conf_nul_says "nul1.conf:1: binary data" "$WORK/err"
printf 'reps = 3\0garbage\nwarmup = 1\n' >nul2.conf
expect_exit conf_nul_newline_refused 2 "$G" $T --config nul2.conf --variant baseline -o nul2.json
expect_grep conf_nul_newline_says "nul2.conf:1: binary data" "$WORK/err"
printf 'warmup = 1\nreps = 3\0\n' >nul3.conf
expect_exit conf_nul_line2_refused 2 "$G" $T --config nul3.conf --variant baseline -o nul3.json
expect_grep conf_nul_line2_says "nul3.conf:2: binary data" "$WORK/err"
long=$(printf 'x%.0s' $(seq 1 1100))
printf 'variants = %s\n' "$long" >long.conf
expect_exit conf_long_still_refused 2 "$G" $T --config long.conf -o long.json
expect_grep conf_long_still_says "line longer than 1024" "$WORK/err"

# 6. Flags that were dropped or doubled without a word.
expect_exit tune_shape_kernel_refused 2 "$G" $TUNE --kernel qkv
expect_grep tune_shape_kernel_says "shape cannot be combined with --kernel or --m" "$WORK/err"
expect_exit tune_shape_m_refused 2 "$G" $TUNE --m 16
expect_exit run_small 0 "$G" $T --variant baseline -o r.json
expect_exit compare_empty_kernel_refused 2 "$G" compare -k '' r.json r.json
expect_grep compare_empty_kernel_says "empty list" "$WORK/err"
expect_exit compare_empty_variant_refused 2 "$G" compare --variant '' r.json r.json
expect_exit run_scaling 0 "$G" $T --variant rule_based --threads 1,2 -o s.json
expect_exit scaling_combined_refused 2 "$G" report --metric scaling --combined s.json
expect_exit scaling_alone_runs 0 "$G" report --metric scaling s.json
expect_exit param_same_set_refused 2 "$G" $T --variant rule_based --param tk=4 --param tk=4 -o p1.json
expect_grep param_same_set_says "'tk=4' is the same set as an earlier --param" "$WORK/err"
expect_exit param_same_set_order_refused 2 "$G" $T --variant rule_based --param tk=4,tm=8 --param tm=8,tk=4 -o p2.json
expect_exit param_defaults_twice_refused 2 "$G" $T --variant rule_based --param defaults --param defaults -o p3.json
expect_exit param_two_sets_run 0 "$G" $T --variant rule_based --param tk=4 --param tk=8 -o p4.json
if [ ! -e p1.json ] && [ ! -e p2.json ]; then echo "ok param_same_set_no_file"; else echo "FAIL param_same_set_no_file"; fi

# 9. Messages that misled.
key=$(printf 'k%.0s' $(seq 1 70))
expect_exit param_long_key 2 "$G" $T --variant rule_based --param "$key=3"
expect_grep param_long_key_says "key of .* is longer than" "$WORK/err"
ln -s no-such-target.json dangling.json
expect_exit output_dangling_link 2 "$G" $T --variant baseline -o dangling.json --force
expect_grep output_dangling_says "dangling.json is a symbolic link to a missing file" "$WORK/err"
expect_exit tune_unknown_kernel 2 "$G" tune --kernel nope --trials 2 --reps 1 --quiet
if grep -q "bench.conf" "$WORK/err"; then
    echo "FAIL tune_unknown_kernel_no_conf: $(cat "$WORK/err")"
else
    echo "ok tune_unknown_kernel_no_conf"
fi
expect_exit run_unknown_kernel 2 "$G" --kernel nope --reps 1 --quiet
expect_grep run_unknown_kernel_offers_conf "bench.conf \[kernel\] sections" "$WORK/err"
# A scaling report with no median above zero is an error, not empty tables.
# (A missing zero.json is refused with 2 as well: it must be made.)
if ! command -v python3 >/dev/null 2>&1; then
    skip scaling_zero_medians "needs python3 (writes zero.json)"
    skip scaling_zero_says "needs python3 (writes zero.json)"
else
expect_true scaling_zero_file_made python3 - <<'PY'
import json
d = json.load(open("s.json"))
for r in d["results"]:
    for k in list(r):
        if k.endswith("_us") and not isinstance(r[k], list):
            r[k] = 0
    r["samples_us"] = [0 for _ in r["samples_us"]]
json.dump(d, open("zero.json", "w"))
PY
expect_exit scaling_zero_medians 2 "$G" report --metric scaling zero.json
expect_grep scaling_zero_says "no speed-up to show" "$WORK/err"
fi
# GOMP_CPU_AFFINITY pins libgomp's threads: the file says the user bound them.
expect_exit gomp_affinity_run 0 env GOMP_CPU_AFFINITY=0 "$G" $T --variant baseline -o gomp.json
expect_grep gomp_affinity_policy_user '"policy":	"user"' "$WORK/gomp.json"
expect_exit no_affinity_run 0 env -u GOMP_CPU_AFFINITY -u OMP_PROC_BIND -u OMP_PLACES "$G" $T --variant baseline -o nogomp.json
expect_grep no_affinity_policy_default '"policy":	"default"' "$WORK/nogomp.json"
