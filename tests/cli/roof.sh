# roof.sh - the roofline: `gemmbench info`'s bandwidths (the quick probe the
# other tests use; the real one: tests/slow/roof_real.sh), the roof fields of a run, --cache
# cold, compare's key, report --metric roof, files from before the roofline,
# and the roofline figure.
. tests/cli/lib.sh
G=$GEMMBENCH
ROOT=$(pwd)


# A positive GB/s figure in the row of LEVEL (its 1-thread read column,
# after the working set's number and unit).
level_positive() {
    awk -v l="$1" '$1 == l && $4 + 0 > 0 { ok = 1 } END { exit !ok }' "$2"
}

# ---- info: the quick probe (the real one: tests/slow/roof_real.sh) ------------
GEMMBENCH_BANDWIDTH=quick "$G" info >"$WORK/infoq.txt" 2>&1
check info_quick_l2 level_positive L2 "$WORK/infoq.txt"
expect_grep info_calibration_1_thread "^calibration    packed at 1 thread, B rows a page or more apart: " "$WORK/infoq.txt"
expect_exit info_extra_argument 2 "$G" info --bogus

# ---- a warm run: every result has its intensity and roof ----------------------------
run() { GEMMBENCH_BANDWIDTH=quick "$G" --quiet --variant baseline,packed --shape 7x33x100 \
    --shape 16x64x96 --reps 3 --warmup 1 --threads 2 "$@"; }
run -o "$WORK/warm.json" >"$WORK/warm.txt" 2>"$WORK/warm.err"
check warm_run test $? -eq 0
expect_grep warm_table_roof_column '%roof' "$WORK/warm.txt"
expect_grep warm_run_cache '"cache":	"warm"' "$WORK/warm.json"
expect_grep warm_bandwidth_block '"bandwidth":' "$WORK/warm.json"
# The tests' quick probe says so, and keeps memory's working set at 64 MiB
# or less whatever the last level's size (0.7 s of every run, uncapped, on a
# 300 MiB L3).
expect_grep warm_bandwidth_quick '"method":	"quick"' "$WORK/warm.json"
check warm_quick_memory_capped awk -F '\t' '
    /"memory":/ { mem = 1 } mem && /"bytes":/ { gsub(/,/, "", $NF); n++
        if ($NF + 0 <= 0 || $NF + 0 > 64 * 1048576) bad = 1 }
    END { exit bad || n == 0 }' "$WORK/warm.json"
check warm_roof_fields test "$(grep -c '"roof_pct":	[0-9]' "$WORK/warm.json")" -eq 4
# 7x33x100: 2*7*33*100 = 46200 flop over 4*(7*33 + 33*100 + 7*100) = 16924 bytes.
check warm_intensity awk -F '\t' '/"intensity":/ { gsub(/,/, "", $NF); v = $NF + 0
    if (v > 2.72985 && v < 2.72987) ok = 1 } END { exit !ok }' "$WORK/warm.json"
# roof_pct is gflops over attainable_gflops.
check warm_roof_pct_consistent awk -F '\t' '
    /"gflops":/ { gsub(/,/, "", $NF); g = $NF }
    /"attainable_gflops":/ { gsub(/,/, "", $NF); a = $NF }
    /"roof_pct":/ { gsub(/,/, "", $NF); n++; d = $NF - 100 * g / a; if (d < 0) d = -d
        if (d > 1e-6 * $NF) bad = 1 }
    END { exit bad || n != 4 }' "$WORK/warm.json"
run --format csv -o "$WORK/warm2.json" >"$WORK/warm.csv" 2>/dev/null
expect_grep warm_csv_columns 'peak_pct,roof_pct,roof,cache' "$WORK/warm.csv"

# The independent checker agrees, and catches a %roof that is not gflops / attainable.
if command -v python3 >/dev/null 2>&1; then
    check validate_warm python3 "$ROOT/scripts/validate-json.py" "$WORK/warm.json" --complete
    sed 's/"roof_pct":\t\([0-9]\)/"roof_pct":\t9\1/' "$WORK/warm.json" >"$WORK/badroof.json"
    expect_exit validate_bad_roof_pct 1 python3 "$ROOT/scripts/validate-json.py" "$WORK/badroof.json"
else
    skip validate_warm "needs python3 (scripts/validate-json.py)"
    skip validate_bad_roof_pct "needs python3 (scripts/validate-json.py)"
fi

# ---- cold: exact, recorded, copies named --------------------------------------------
# One round: every round copies the operands past the last level again
# (twice a 508 MiB L3 is 1 GiB a shape a round, 3 s here).
run --cache cold --rounds 1 -o "$WORK/cold.json" >"$WORK/cold.txt" 2>"$WORK/cold.err"
check cold_run test $? -eq 0
check cold_all_pass test "$(grep -c ' pass' "$WORK/cold.txt")" -eq 4
expect_grep cold_run_cache '"cache":	"cold"' "$WORK/cold.json"
check cold_copies awk -F '\t' '/"cache_copies":/ { gsub(/,/, "", $NF); if ($NF + 0 >= 2) n++ }
    END { exit n != 4 }' "$WORK/cold.json"
check cold_memory_level test "$(grep -c '"operands_in":	"memory"' "$WORK/cold.json")" -eq 4
printf 'cache = cold\n' >"$WORK/cold.conf"
GEMMBENCH_BANDWIDTH=quick "$G" --quiet --config "$WORK/cold.conf" --rounds 1 --variant vec_j \
    --shape 5x9x13 --reps 2 --warmup 0 -o "$WORK/conf.json" >/dev/null 2>&1
expect_grep conf_cache_cold '"cache":	"cold"' "$WORK/conf.json"

# ---- a roof an entry beats is not a figure: !roof, and why -------------------------
# The warm file with its first roof a third of the entry's rate: 300 %roof.
if command -v python3 >/dev/null 2>&1; then
    python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
r = d['results'][0]
r['attainable_gflops'] = r['gflops'] / 3
r['roof_pct'] = 300.0
r['roof_measured_low'] = True
json.dump(d, open(sys.argv[2], 'w'))" "$WORK/warm.json" "$WORK/low.json"
    "$G" report "$WORK/low.json" --metric roof >"$WORK/low.txt" 2>&1
    expect_grep roof_low_report_cell '!roof' "$WORK/low.txt"
    expect_grep roof_low_report_note '^!roof = the entry beat its roof (%roof above 105)' "$WORK/low.txt"
    check roof_low_report_no_figure sh -c "! grep -q '300\.0' '$WORK/low.txt'"
    "$G" compare "$WORK/low.json" "$WORK/low.json" >"$WORK/lowcmp.txt" 2>&1
    expect_grep roof_low_compare '!roof->!roof' "$WORK/lowcmp.txt"
    check roof_low_valid python3 "$ROOT/scripts/validate-json.py" "$WORK/low.json"
else
    skip roof_low "needs python3"
fi

# ---- bad input ---------------------------------------------------------------------
expect_exit bad_cache_flag 2 "$G" --cache tepid --variant vec_j --shape 4x4x4 -o "$WORK/x.json"
printf 'cache = lukewarm\n' >"$WORK/bad.conf"
expect_exit bad_cache_conf 2 "$G" --config "$WORK/bad.conf" --variant vec_j --shape 4x4x4 \
    -o "$WORK/y.json"
check bad_cache_no_file test ! -s "$WORK/x.json"

# ---- compare: warm never pairs with cold; %roof beside %peak -------------------------
expect_exit compare_warm_cold 2 "$G" compare "$WORK/warm.json" "$WORK/cold.json"
expect_grep compare_warm_cold_says "prepack, cache" "$WORK/err"
"$G" compare "$WORK/warm.json" "$WORK/warm2.json" >"$WORK/cmp.txt" 2>&1
rc=$?
# Two warm runs of one build: 0 or 1 is compare's verdict on noise; anything
# else (2 a refused input, 3) and the two checks after it saw no comparison.
if [ $rc -eq 0 ] || [ $rc -eq 1 ]; then echo "ok compare_warm_runs"; else
    echo "FAIL compare_warm_runs: exit $rc: $(head -c 300 "$WORK/cmp.txt")"; fi
expect_grep compare_roof_column '%roof' "$WORK/cmp.txt"
# The bandwidths are measured per run, as the peak: not a header difference.
check compare_ignores_bandwidths test "$(grep -c 'machine.bandwidth' "$WORK/cmp.txt")" -eq 0

# ---- report --metric roof, and files from before the roofline ------------------------
"$G" report "$WORK/cold.json" --metric roof --format csv >"$WORK/roof.csv" 2>&1
expect_grep report_roof_metric '# metric: roof_pct' "$WORK/roof.csv"
expect_grep report_roofs_line '# roofs: threads=2 peak=' "$WORK/roof.csv"
expect_grep report_cache_line '# cache: cold' "$WORK/roof.csv"
# Older files: no cache, intensity, roof fields, no bandwidth block.
grep -v '"cache":\|"cache_copies":\|"intensity":\|"roof":\|"operands_in":\|"attainable_gflops":\|"roof_pct":' \
    "$WORK/warm.json" >"$WORK/old.json"
check old_file_reads "$G" report "$WORK/old.json" --metric roof
check old_file_compares "$G" compare "$WORK/old.json" "$WORK/warm2.json"
printf '{"schema":"gemmbench/1","complete":true,"machine":{},"run":{},"results":[{"variant":"vec_j","family":"vectorized","kernel":"x","M":1,"K":1,"N":1,"threads":1,"reps":1,"median_us":1,"min_us":1,"mean_us":1,"stddev_us":0,"gflops":1,"check":"pass","cache":"tepid","samples_us":[1]}]}' >"$WORK/badcache.json"
expect_exit report_bad_cache_field 2 "$G" report "$WORK/badcache.json"

# ---- the roofline figure ------------------------------------------------------------
png_ok() { [ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -c | tr -d ' ')" = '211PNG\r\n032\n' ]; }
nognuplot="needs gnuplot (apt-get install gnuplot-nox)"
if command -v gnuplot >/dev/null 2>&1; then
    check plot_cold sh "$ROOT/scripts/plot.sh" "$WORK/cold.json" "$WORK/fig"
    check plot_roofline_made png_ok "$WORK/fig/roofline-custom.png"
else
    skip plot_cold "$nognuplot"
    skip plot_roofline_made "$nognuplot"
fi
# A file without a bandwidth block: the other figures, no roofline.
if ! command -v gnuplot >/dev/null 2>&1; then
    skip plot_older_file "$nognuplot"
    skip plot_older_file_no_roofline "$nognuplot"
elif ! command -v python3 >/dev/null 2>&1; then
    skip plot_older_file "needs python3 (to drop the bandwidth block)"
    skip plot_older_file_no_roofline "needs python3 (to drop the bandwidth block)"
else
    check older_file_made python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
del d['machine']['bandwidth']
json.dump(d, open(sys.argv[2], 'w'), indent=1)
" "$WORK/old.json" "$WORK/older.json"
    check plot_older_file sh "$ROOT/scripts/plot.sh" "$WORK/older.json" "$WORK/fig-old"
    # Only where plot.sh succeeded does a missing figure say anything.
    check plot_older_file_no_roofline sh -c "[ -d '$WORK/fig-old' ] && [ -n \"\$(ls '$WORK/fig-old')\" ] && [ ! -e '$WORK/fig-old/roofline-custom.png' ]"
fi
