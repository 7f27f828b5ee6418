# report.sh - `gemmbench report` and scripts/plot.sh: the numbers equal the
# JSON's, gaps and odd files behave, bad input is one line and exit 2.
. tests/cli/lib.sh
G=$GEMMBENCH
ROOT=$(pwd)

# check NAME CMD...: like expect_true, but shows what went wrong.

# ---- a real run: every median and speed-up of the report is the file's -----
"$G" --quiet --variant baseline,parallel,vec_j --kernel qkv --m 1,7 --reps 3 --warmup 0 \
    -o "$WORK/real.json" >/dev/null 2>"$WORK/run.err" || echo "FAIL real_run: $(cat "$WORK/run.err")"

# The JSON as "label M median_us" lines (cJSON writes one field per line).
json_medians() {
    awk -F '\t' '
        /"label":/ { gsub(/[",]/, "", $NF); label = $NF }
        /"M":/ { gsub(/,/, "", $NF); m = $NF }
        /"median_us":/ { gsub(/,/, "", $NF); print label, m, $NF }' "$1"
}
# The report's CSV cells as "label M value" lines.
csv_cells() {
    awk -F ',' '
        /^#/ || /^$/ { next }
        $1 == "kernel" { n = 0; for (i = 4; i <= NF && $i != "geomean"; i++) col[++n] = $i; next }
        { for (i = 1; i <= n; i++) if ($(i + 3) != "") print $3, col[i], $(i + 3) }' "$1"
}
# same_numbers A B: the same keys, each value within 1e-9 relative.
same_numbers() {
    sort "$1" >"$1.s" && sort "$2" >"$2.s" &&
        [ "$(wc -l <"$1.s")" -gt 0 ] &&
        awk 'NR == FNR { v[$1 " " $2] = $3; n++; next }
             { k = $1 " " $2; if (!(k in v)) { print "missing " k; bad = 1; next }
               d = v[k] - $3; if (d < 0) d = -d
               if (d > 1e-9 * (v[k] < 0 ? -v[k] : v[k])) { print k ": " v[k] " != " $3; bad = 1 }
               m++ }
             END { if (m != n) { print m " of " n " keys"; bad = 1 }; exit bad }' "$1.s" "$2.s"
}

json_medians "$WORK/real.json" >"$WORK/json_medians"
"$G" report "$WORK/real.json" --format csv >"$WORK/real.csv"
csv_cells "$WORK/real.csv" >"$WORK/csv_medians"
check report_medians_equal_json same_numbers "$WORK/json_medians" "$WORK/csv_medians"
check report_has_six_cells test "$(wc -l <"$WORK/csv_medians")" -eq 6

# Speed-up = baseline median / median, from the JSON's medians.
awk '$1 == "baseline" { b[$2] = $3 } { v[NR] = $0 } END {
        for (i = 1; i <= NR; i++) { split(v[i], f, " "); printf "%s %s %.17g\n", f[1], f[2], b[f[2]] / f[3] } }' \
    "$WORK/json_medians" >"$WORK/json_speedups"
"$G" report "$WORK/real.json" --format csv --metric speedup >"$WORK/speedup.csv"
csv_cells "$WORK/speedup.csv" >"$WORK/csv_speedups"
check report_speedups_equal_json same_numbers "$WORK/json_speedups" "$WORK/csv_speedups"

expect_exit report_table_ok 0 "$G" report "$WORK/real.json"
expect_grep report_header_machine "^machine: .*(host " "$WORK/out"
expect_grep report_header_run "^run: started .*; threads 2; complete" "$WORK/out"
expect_grep report_table_title "^qkv (K=768, N=768), 2 threads: median latency" "$WORK/out"
# Rows in the variant table's order.
check report_rows_in_table_order test "$(awk '/^variant/ { on = 1; next } on && NF { printf "%s ", $1 }' "$WORK/out")" = "baseline parallel vec_j "
expect_exit report_md_ok 0 "$G" report "$WORK/real.json" --format md --metric gflops
expect_grep report_md_table "^| variant \\\\ M *| *1 | *7 |  *geomean *|  *speedup *|\( *%peak *|\)\?$" "$WORK/out"
expect_grep report_md_rule "^|---|--:|--:|--:|" "$WORK/out"

# ---- hand-written files with known numbers ------------------------------------
# entry VARIANT LABEL KERNEL M THREADS MEDIAN [CHECK]: K = N = 8.
entry() {
    awk -v v="$1" -v l="$2" -v k="$3" -v m="$4" -v t="$5" -v med="$6" -v c="${7:-pass}" 'BEGIN {
        printf "{\"variant\":\"%s\",\"label\":\"%s\",\"family\":\"f\",\"kernel\":\"%s\",", v, l, k
        printf "\"M\":%d,\"K\":8,\"N\":8,\"threads\":%d,\"reps\":1,\"median_us\":%s,", m, t, med
        printf "\"min_us\":%s,\"mean_us\":%s,\"stddev_us\":0,\"gflops\":%.17g,", med, med, 2 * m * 64 / med / 1000
        printf "\"check\":\"%s\",\"params\":{},\"samples_us\":[%s]}", c, med }'
}
# fixture FILE PEAK ENTRY...: a result file around the entries.
fixture() {
    out=$1 peak=$2
    shift 2
    {
        printf '{"schema":"gemmbench/1","complete":false,"tool":{},'
        printf '"machine":{"hostname":"fixture-host","cpu_model":"Fixture CPU","peak_gflops":%s},' "$peak"
        printf '"run":{"started":"2026-01-02T03:04:05Z","threads":2},"results":['
        sep=
        for e in "$@"; do printf '%s%s' "$sep" "$e"; sep=,; done
        printf ']}\n'
    } >"$out"
}

# Two kernels; vec_j misses qkv M=32; a newer build's variant; a labelled row.
fixture "$WORK/gaps.json" 1.024 \
    "$(entry baseline baseline qkv 16 2 100)" "$(entry baseline baseline qkv 32 2 400)" \
    "$(entry parallel parallel qkv 16 2 10)" "$(entry parallel parallel qkv 32 2 20)" \
    "$(entry vec_j vec_j qkv 16 2 50)" \
    "$(entry zz_newer zz_newer qkv 32 2 8)" \
    "$(entry parallel parallel+prepack qkv 16 2 5 fail)" \
    "$(entry baseline baseline mlp_reduce 16 2 1000)" "$(entry vec_j vec_j mlp_reduce 16 2 250)"
expect_exit gaps_ok 0 "$G" report "$WORK/gaps.json"
tr -s ' ' <"$WORK/out" | sed 's/ $//' >"$WORK/gaps.txt"
expect_grep gaps_incomplete_said "INCOMPLETE" "$WORK/gaps.txt"
expect_grep gaps_geomean_note "^geomean: over the cells present" "$WORK/gaps.txt"
# Columns: M=16, M=32, geomean, speed-up geomean, %peak geomean.  baseline:
# 100 and 400 µs, geomean 200; 2*16*64 flop in 100 µs is 0.02048 GFLOP/s, 2%
# of the 1.024 peak, and 1% at M=32: geomean 1.4.
expect_grep gaps_baseline_row "^baseline 100.0 400.0 200.0 1.00 1.4$" "$WORK/gaps.txt"
# parallel 10, 20: geomean sqrt(200) = 14.1, speed-ups 10 and 20: geomean
# 14.14; 20% of peak at both.
expect_grep gaps_parallel_row "^parallel 10.0 20.0 14.1 14.14 20.0$" "$WORK/gaps.txt"
expect_grep gaps_prepack_row_failed "^parallel+prepack 5.0! - 5.0\* 20.00\* 40.0\*$" "$WORK/gaps.txt"
expect_grep gaps_missing_cell "^vec_j 50.0 - 50.0\* 2.00\* 4.0\*$" "$WORK/gaps.txt"
expect_grep gaps_unknown_variant_last "^zz_newer - 8.0 8.0\* 50.00\* 50.0\*$" "$WORK/gaps.txt"
expect_grep gaps_failed_note "^! = failed verification" "$WORK/gaps.txt"
check gaps_row_order test "$(awk '/^qkv/ { on = 1; next } /^$/ { on = 0 } on && !/^variant/ { printf "%s ", $1 }' "$WORK/gaps.txt")" = \
    "baseline parallel parallel+prepack vec_j zz_newer "
expect_grep gaps_second_kernel "^mlp_reduce (K=8, N=8), 2 threads" "$WORK/gaps.txt"
expect_exit gaps_peak_metric 0 "$G" report "$WORK/gaps.json" --metric peak --kernel mlp_reduce
# 2*16*64 flop in 250 µs = 0.008192 GFLOP/s = 0.8% of 1.024.
expect_grep gaps_peak_value "^vec_j  *0.8  *0.8  *4.00 *$" "$WORK/out"
expect_exit gaps_variant_filter 0 "$G" report "$WORK/gaps.json" --variant vec_j --variant parallel+prepack
check gaps_variant_filter_rows test "$(grep -c -E '^(vec_j|parallel\+prepack) ' "$WORK/out")" -eq 3
check gaps_variant_filter_only test "$(grep -c -E '^(baseline|parallel|zz_newer) ' "$WORK/out")" -eq 0
# A label with commas is one item of the list (rule_based[tm=4,tn=8]).
fixture "$WORK/labels.json" 1.024 \
    "$(entry baseline baseline qkv 16 2 100)" \
    "$(entry rule_based 'rule_based[tm=4,tn=8]' qkv 16 2 20)" \
    "$(entry rule_based 'rule_based[tm=8,tn=8]' qkv 16 2 30)"
expect_exit label_with_commas 0 "$G" report "$WORK/labels.json" --variant 'baseline,rule_based[tm=4,tn=8]'
check label_with_commas_rows test "$(awk '/^variant/ { on = 1; next } on && NF { printf "%s ", $1 }' "$WORK/out")" = \
    "baseline rule_based[tm=4,tn=8] "
expect_exit gaps_combined 0 "$G" report "$WORK/gaps.json" --combined --format csv --metric speedup
expect_grep gaps_combined_header "^kernel,threads,variant,qkv/16,qkv/32,mlp_reduce/16,geomean," "$WORK/out"
expect_grep gaps_combined_vec_j "^all,2,vec_j,2,,4,2.828427125," "$WORK/out"

# One kernel at two thread counts: one table each.
fixture "$WORK/one.json" null \
    "$(entry baseline baseline qkv 16 1 200)" "$(entry vec_j vec_j qkv 16 1 100)" \
    "$(entry baseline baseline qkv 16 2 120)" "$(entry vec_j vec_j qkv 16 2 40)" \
    "$(entry baseline baseline qkv 64 2 480)" "$(entry vec_j vec_j qkv 64 2 120)"
expect_exit one_kernel_ok 0 "$G" report "$WORK/one.json" --metric speedup
expect_grep one_kernel_1_thread "^qkv (K=8, N=8), 1 thread: speed-up" "$WORK/out"
expect_grep one_kernel_2_threads "^qkv (K=8, N=8), 2 threads: speed-up" "$WORK/out"
expect_grep one_kernel_speedups "^vec_j  *3.00  *4.00  *3.46 *$" "$WORK/out"
expect_grep one_kernel_no_peak "peak not measured" "$WORK/out"

# The same cell twice (e.g. files concatenated): the first is used, and said.
fixture "$WORK/dup.json" null \
    "$(entry baseline baseline qkv 16 2 100)" "$(entry vec_j vec_j qkv 16 2 50)" \
    "$(entry vec_j vec_j qkv 16 2 70)"
expect_exit duplicate_ok 0 "$G" report "$WORK/dup.json"
expect_grep duplicate_first_kept "^vec_j  *50.0  *50.0  *2.00 *$" "$WORK/out"
expect_grep duplicate_said "^1 entry repeats a cell already shown: the first in the file is used" "$WORK/out"

# ---- bad input: one line, exit 2 --------------------------------------------------
head -c 300 "$WORK/real.json" >"$WORK/truncated.json"
expect_exit malformed_truncated 2 "$G" report "$WORK/truncated.json"
expect_grep malformed_names_file "truncated.json" "$WORK/err"
echo '{"schema":"other/1"}' >"$WORK/schema.json"
expect_exit malformed_schema 2 "$G" report "$WORK/schema.json"
sed 's/"median_us":/"median":/' "$WORK/gaps.json" >"$WORK/nomedian.json"
expect_exit malformed_entry 2 "$G" report "$WORK/nomedian.json"
expect_grep malformed_entry_named "results\[0\]" "$WORK/err"
expect_exit missing_file 2 "$G" report "$WORK/nope.json"
expect_exit no_file 2 "$G" report
# Two files are a side-by-side report (tests/cli/report_multi.sh), not an error.
expect_exit two_files 0 "$G" report "$WORK/gaps.json" "$WORK/one.json"
expect_exit bad_metric 2 "$G" report "$WORK/gaps.json" --metric mean
expect_exit bad_format 2 "$G" report "$WORK/gaps.json" --format json
expect_exit unknown_kernel 2 "$G" report "$WORK/gaps.json" --kernel mlp_expand
expect_grep unknown_kernel_named "kernel 'mlp_expand'" "$WORK/err"
expect_exit unknown_variant 2 "$G" report "$WORK/gaps.json" --variant packed
expect_exit nothing_selected 2 "$G" report "$WORK/gaps.json" --kernel mlp_reduce --variant zz_newer
expect_exit unknown_option 2 "$G" report "$WORK/gaps.json" --frobnicate
expect_exit help_ok 0 "$G" report --help
expect_grep help_usage "^usage: gemmbench report FILE.json" "$WORK/out"

# ---- plots --------------------------------------------------------------------------
# png_ok FILE: exists, non-empty, and a PNG.
png_ok() { [ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -c | tr -d ' ')" = '211PNG\r\n032\n' ]; }
if command -v gnuplot >/dev/null 2>&1; then
    P="$ROOT/scripts/plot.sh"
    check plot_real sh "$P" "$WORK/real.json" "$WORK/fig-real"
    check plot_real_latency png_ok "$WORK/fig-real/latency-qkv.png"
    check plot_real_heatmap png_ok "$WORK/fig-real/speedup-heatmap.png"
    check plot_gaps sh "$P" "$WORK/gaps.json" "$WORK/fig-gaps"
    check plot_gaps_files test "$(ls "$WORK/fig-gaps" | tr '\n' ' ')" = \
        "latency-mlp_reduce.png latency-qkv.png speedup-heatmap.png "
    for f in "$WORK"/fig-gaps/*.png; do check "plot_gaps_$(basename "$f")" png_ok "$f"; done
    check plot_one_kernel sh "$P" "$WORK/one.json" "$WORK/fig-one"
    check plot_one_kernel_files test "$(ls "$WORK/fig-one" | tr '\n' ' ')" = \
        "latency-qkv-1threads.png latency-qkv-2threads.png scaling.png speedup-heatmap-1threads.png speedup-heatmap-2threads.png "
    expect_exit plot_malformed 2 sh "$P" "$WORK/truncated.json" "$WORK/fig-bad"
    check plot_malformed_no_png test ! -e "$WORK/fig-bad"
    expect_exit plot_missing 2 sh "$P" "$WORK/nope.json" "$WORK/fig-bad"
    # FILE defaults to the newest results/*.json of the current directory.
    mkdir -p "$WORK/cwd/results" && cp "$WORK/gaps.json" "$WORK/cwd/results/old.json" &&
        touch -d '2020-01-01' "$WORK/cwd/results/old.json" &&
        cp "$WORK/one.json" "$WORK/cwd/results/new.json"
    (cd "$WORK/cwd" && sh "$P" >"$WORK/default.out" 2>&1)
    check plot_default_newest png_ok "$WORK/cwd/results/figures/new/latency-qkv-2threads.png"
else
    skip plot "gnuplot is not installed (scripts/setup.sh plots)"
fi
