#!/bin/sh
# plot.sh - the study's figures from a result file, drawn by gnuplot into PNGs:
#   latency-KERNEL.png   per kernel: median latency against M, one line per
#                        variant (log scales), legend outside the plot
#   speedup-heatmap.png  speed-up over baseline, variants by every shape of
#                        every kernel, log colour scale, values in the cells
#   roofline-KERNEL.png  per kernel: GFLOP/s against arithmetic intensity
#                        (log-log), the compute roof and each measured
#                        bandwidth roof (L2, L3, memory) drawn and labelled,
#                        one point per (variant, M) (src/measure/bandwidth.md)
#   scaling.png          only for a file with 1-thread and more-thread results
#                        (--threads 1,N): per variant, the geometric-mean
#                        speed-up over 1 thread against threads, and the ideal
# (with -<N>threads before .png when the file holds several thread counts).
#
# Usage: scripts/plot.sh [FILE.json [OUTDIR]]
#   FILE    defaults to the newest results/*.json
#   OUTDIR  defaults to results/figures/<FILE without .json>
# Environment: GEMMBENCH (default: build/gemmbench of this checkout);
#   PLOT_DTYPE: the type drawn in a file of several (--dtype), default f32;
#   run it once per type with another OUTDIR for the others.
#
# The numbers come from `gemmbench report --format csv`, never from a second
# JSON reader, so the figures show exactly what the report's tables print.
# gnuplot (Debian: gnuplot-nox) is installed by scripts/setup.sh plots when
# run as root; otherwise the exact command is printed.  Exit 2 on bad input.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
GEMMBENCH=${GEMMBENCH:-$root/build/gemmbench}
# One type per set of figures: report then writes f32's CSV as it always
# has (no dtype column), and an f32 file, with or without "dtype", is all f32.
dtype=${PLOT_DTYPE:-f32}

die() {
    echo "gemmbench: plot: $*" >&2
    exit 2
}

case "${1:-}" in
-h | --help)
    sed -n '2,26s/^# \{0,1\}//p' "$0"
    exit 0
    ;;
esac
[ $# -le 2 ] || die "too many arguments (usage: scripts/plot.sh [FILE.json [OUTDIR]])"

file=${1:-}
if [ -z "$file" ]; then
    file=$(ls -t results/*.json 2>/dev/null | head -n 1)
    [ -n "$file" ] || die "no FILE.json given and no results/*.json here"
fi
stem=$(basename "$file" .json)
outdir=${2:-results/figures/$stem}

[ -x "$GEMMBENCH" ] || die "$GEMMBENCH is not built (run make first)"

work=$(mktemp -d) || exit 3
trap 'rm -rf "$work"' EXIT

# The report validates the file: its one-line error is the one to show.
report() {
    if ! "$GEMMBENCH" report "$file" --format csv --dtype "$dtype" "$@" >"$work/out.csv" \
        2>"$work/err"; then
        cat "$work/err" >&2
        exit 2
    fi
}
report --metric median
mv "$work/out.csv" "$work/median.csv"
report --metric speedup --combined
mv "$work/out.csv" "$work/speedup.csv"
report --metric gflops
mv "$work/out.csv" "$work/gflops.csv"

if ! command -v gnuplot >/dev/null 2>&1; then
    sh "$root/scripts/setup.sh" plots || exit 2
    command -v gnuplot >/dev/null 2>&1 || die "gnuplot is still missing after scripts/setup.sh plots"
fi
mkdir -p "$outdir" || die "cannot create $outdir"

if gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1; then
    terminal="pngcairo enhanced font 'DejaVu Sans,10'"
else
    terminal="png font 'DejaVu Sans,10'"
fi

# What each figure says about its origin, from the report's comment lines.
meta() { sed -n "s/^# $1: //p" "$work/median.csv" | head -n 1; }
machine=$(meta machine)
started=$(meta started)
complete=$(meta complete)
origin="$machine, run started $started, $(basename "$file")"
[ "$complete" = yes ] || origin="$origin (INCOMPLETE run)"
# The reference libraries' kernels (BLIS's generic ones draw a library far
# below itself): under the origin on every figure, and said once here.
libraries=$(meta libraries)
if [ -n "$libraries" ]; then
    origin="$origin
libraries: $libraries"
    case $libraries in
    *"NOT this CPU's best path"*) echo "plot: note: a reference library ran kernels that are not this CPU's best path: $libraries" ;;
    esac
fi

# gnuplot string: single-quoted pieces ('' is a quote), a line break in
# the text joined as "\n".
gq() {
    printf '%s\n' "$1" | awk -v q="'" '{ gsub(q, q q); printf "%s%s%s%s", (NR > 1 ? ".\"\\n\"." : ""), q, $0, q }
                                       END { if (NR == 0) printf "%s%s", q, q }'
}

# A CSV splitter for awk (fields may be quoted: labels hold commas).
csv_awk='
function csvsplit(line, out,    n, i, c, field, quoted) {
    n = 0; field = ""; quoted = 0
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (quoted) {
            if (c == "\"" && substr(line, i + 1, 1) == "\"") { field = field c; i++ }
            else if (c == "\"") quoted = 0
            else field = field c
        } else if (c == "\"") quoted = 1
        else if (c == ",") { out[++n] = field; field = "" }
        else field = field c
    }
    out[++n] = field
    return n
}
# The table of the CSV whose "# table:" line has kernel=K and threads=T.
/^# table: / {
    intable = index($0, " kernel=" K " ") > 0 && index($0 " ", " threads=" T " ") > 0
    header = intable
    next
}
/^#/ || /^$/ { if (!/^#/) intable = 0; next }
'

nthreads=$(grep -c '^# table: ' "$work/speedup.csv")
suffix() { [ "$nthreads" -gt 1 ] && printf -- '-%sthreads' "$1"; }
# Kernel names come from bench.conf: keep file names tame.
safe() { printf %s "$1" | tr -c 'A-Za-z0-9_.-' '_'; }

made=0

# ---- per kernel: median latency against M --------------------------------------
grep '^# table: ' "$work/median.csv" >"$work/tables.txt"
while read -r _ _ kv tv rest; do
    kernel=${kv#kernel=}
    threads=${tv#threads=}
    shape=$(printf %s "$rest" | sed 's/K=\([0-9]*\) N=\([0-9]*\)/K=\1, N=\2/')
    # Transposed for gnuplot: one column per variant, one row per M.
    awk -v K="$kernel" -v T="$threads" "$csv_awk"'
    intable && header {
        nf = csvsplit($0, h); header = 0
        for (last = 4; last <= nf && h[last] != "geomean"; last++) ;
        ncols = last - 4
        for (c = 4; c < last; c++) { m = h[c]; sub(/x.*/, "", m); M[c - 3] = m }
        next
    }
    intable { nrows++; csvsplit($0, f); label[nrows] = f[3]
              for (c = 1; c <= ncols; c++) v[nrows, c] = f[c + 3] }
    END {
        printf "M"; for (r = 1; r <= nrows; r++) printf "\t%s", label[r]; printf "\n"
        for (c = 1; c <= ncols; c++) {
            printf "%s", M[c]
            for (r = 1; r <= nrows; r++) printf "\t%s", v[r, c]
            printf "\n"
        }
    }' "$work/median.csv" >"$work/latency.tsv"
    nseries=$(($(head -n 1 "$work/latency.tsv" | awk -F '\t' '{ print NF }') - 1))
    npoints=$(($(wc -l <"$work/latency.tsv") - 1))
    [ "$nseries" -ge 1 ] && [ "$npoints" -ge 1 ] || continue
    # Room for the legend: one line per variant, outside the plot.
    height=$((200 + 19 * nseries))
    [ "$height" -ge 650 ] || height=650
    out="$outdir/latency-$(safe "$kernel")$(suffix "$threads").png"
    title="$kernel$([ -n "$shape" ] && printf ' (%s)' "$shape"): median latency against M, $threads thread$([ "$threads" = 1 ] || echo s)"
    gnuplot >"$work/gp.err" 2>&1 <<EOF || { cat "$work/gp.err" >&2; die "gnuplot failed on $out"; }
set terminal $terminal size 1280,$height
set output $(gq "$out")
set encoding utf8
set termoption noenhanced
set datafile separator "\t"
set title $(gq "$title")."\n".$(gq "$origin")
set xlabel 'M (rows of A and C; log scale)'
set ylabel 'median latency per call (µs, log scale)'
set logscale xy
# 1-2-5 tics in every decade: a log axis with only powers of ten shows too few.
set ytics ()
do for [e=-3:9] { set ytics add (10**e, 2*10**e, 5*10**e) }
set format y '%.10g'
set xtics ($(awk -F '\t' 'NR > 1 { printf "%s%s %s", (NR > 2 ? ", " : ""), "\"" $1 "\"", $1 }' "$work/latency.tsv"))
set grid xtics ytics mytics lc rgb '#dddddd'
set key outside right top vertical Left reverse samplen 3 spacing 1.05 font ',9' title 'variant'
# Tight axes (log autoscaling would round out to whole decades), padded.
set autoscale fix
set offsets graph 0.04, graph 0.04, graph 0.06, graph 0.06
# 12 colours x 4 dash types x 9 point types: distinct for every variant.
colours = "#1f77b4 #d62728 #2ca02c #ff7f0e #9467bd #8c564b #e377c2 #17becf #7f7f7f #bcbd22 #000000 #0b5d4f"
points = "7 5 9 11 13 15 1 2 3"
plot for [i=2:$((nseries + 1))] $(gq "$work/latency.tsv") using 1:i with linespoints \
    lw 1.6 ps 0.9 lc rgb word(colours, (i - 2) % 12 + 1) dt int(1 + ((i - 2) / 12) % 4) \
    pt int(word(points, (i - 2) % 9 + 1)) title columnheader(i)
EOF
    echo "$out"
    made=$((made + 1))
done <"$work/tables.txt"

# ---- one heatmap of speed-up over baseline, every kernel's shapes -------------------
for threads in $(sed -n 's/^# table: kernel=all threads=\([0-9]*\).*/\1/p' "$work/speedup.csv"); do
    # x y speedup text dark(0/1) best-in-column(0/1); row 0 is the top.
    awk -v K=all -v T="$threads" "$csv_awk"'
    intable && header {
        nf = csvsplit($0, h); header = 0
        for (last = 4; last <= nf && h[last] != "geomean"; last++) ;
        ncols = last - 4 + 1            # the shapes, then the geomean
        for (c = 1; c <= ncols; c++) xl[c] = h[c + 3]
        next
    }
    intable { nrows++; csvsplit($0, f); yl[nrows] = f[3]
              for (c = 1; c <= ncols; c++) { v[nrows, c] = f[c + 3]
                  if (f[c + 3] != "" && (best[c] == "" || f[c + 3] + 0 > best[c] + 0)) best[c] = f[c + 3] } }
    END {
        lo = ""; hi = ""
        for (r = 1; r <= nrows; r++) for (c = 1; c <= ncols; c++) if (v[r, c] != "") {
            x = v[r, c] + 0; if (lo == "" || x < lo) lo = x; if (hi == "" || x > hi) hi = x }
        if (lo == "" || lo <= 0) exit 1
        if (hi <= lo * 1.5) { lo = lo / 1.5; hi = hi * 1.5 }
        mid = sqrt(lo * hi)
        printf "# %d %d %.10g %.10g\n", ncols, nrows, lo, hi
        for (r = 1; r <= nrows; r++) for (c = 1; c <= ncols; c++) if (v[r, c] != "") {
            x = v[r, c] + 0
            text = x >= 100 ? sprintf("%.0f", x) : x >= 10 ? sprintf("%.1f", x) : sprintf("%.2f", x)
            printf "%d\t%d\t%.10g\t%s\t%d\t%d\n", c - 1 + (c == ncols), r - 1, x, text, x < mid, v[r, c] == best[c]
        }
        printf "\n\n"
        for (c = 1; c <= ncols; c++) { l = xl[c]; gsub(/'"'"'/, "'"''"'", l)
            printf "%s'"'"'%s'"'"' %d", (c > 1 ? ", " : "xtics = \""), l, c - 1 + (c == ncols) }
        printf "\"\n"
        # Lines between kernels: where the part before "/" changes.
        printf "seps = \""
        for (c = 2; c < ncols; c++) { a = xl[c - 1]; b = xl[c]; sub(/\/.*/, "", a); sub(/\/.*/, "", b)
            if (a != b) printf " %s", c - 1.5 }
        printf "\"\n"
        for (r = 1; r <= nrows; r++) { l = yl[r]; gsub(/'"'"'/, "'"''"'", l)
            printf "%s'"'"'%s'"'"' %d", (r > 1 ? ", " : "ytics = \""), l, r - 1 }
        printf "\"\n"
    }' "$work/speedup.csv" >"$work/heat.txt" || {
        echo "gemmbench: plot: $file has no speed-ups at $threads threads (no baseline): no heatmap" >&2
        continue
    }
    set -- $(sed -n '1s/^# //p' "$work/heat.txt")
    ncols=$1 nrows=$2 lo=$3 hi=$4
    awk 'NR > 1 && /^$/ { exit } NR > 1' "$work/heat.txt" >"$work/heat.tsv"
    xtics=$(sed -n 's/^xtics = "\(.*\)"$/\1/p' "$work/heat.txt")
    ytics=$(sed -n 's/^ytics = "\(.*\)"$/\1/p' "$work/heat.txt")
    seps=$(sed -n 's/^seps = "\(.*\)"$/\1/p' "$work/heat.txt")
    awk -F '\t' '$6 == 1' "$work/heat.tsv" >"$work/best.tsv"
    width=$((330 + 58 * (ncols + 1)))
    height=$((250 + 24 * nrows))
    [ "$width" -ge 800 ] || width=800
    [ "$height" -ge 450 ] || height=450
    out="$outdir/speedup-heatmap$(suffix "$threads").png"
    title="Speed-up over baseline (its median / this median), $threads thread$([ "$threads" = 1 ] || echo s); outlined: fastest per column; grey: not measured"
    gnuplot >"$work/gp.err" 2>&1 <<EOF || { cat "$work/gp.err" >&2; die "gnuplot failed on $out"; }
set terminal $terminal size $width,$height
set output $(gq "$out")
set encoding utf8
set termoption noenhanced
set datafile separator "\t"
set title $(gq "$title")."\n".$(gq "$origin")
set xlabel 'kernel/M (shapes of all kernels), then the geometric mean over the row'
set ylabel 'variant (table order)'
set xrange [-0.5:$ncols + 0.5]
set yrange [$nrows - 0.5:-0.5]
set xtics ($xtics) rotate by 60 right scale 0 font ',9'
set ytics ($ytics) scale 0 font ',9'
# Grey where a cell was not measured; white between the shapes and the geomean.
set object 1 rectangle from -0.5, -0.5 to $ncols - 1.5, $nrows - 0.5 behind fillcolor rgb '#e6e6e6' fillstyle solid noborder
set object 2 rectangle from $ncols - 0.5, -0.5 to $ncols + 0.5, $nrows - 0.5 behind fillcolor rgb '#e6e6e6' fillstyle solid noborder
do for [x in "$seps"] { set arrow from real(x), graph 0 to real(x), graph 1 nohead lc rgb '#ffffff' lw 4 front }
set logscale cb
set cbrange [$lo:$hi]
set cblabel 'speed-up over baseline (x, log scale)' offset 1.5,0
set format cb '%g'
# viridis: slow schedules dark, the fastest bright.
set palette defined (0 '#440154', 0.25 '#3b528b', 0.5 '#21918c', 0.75 '#5ec962', 1 '#fde725')
unset key
plot $(gq "$work/heat.tsv") using 1:2:(0.5):(0.5):3 with boxxyerror fillstyle solid 1.0 noborder fillcolor palette, \
     $(gq "$work/best.tsv") using 1:2:(0.46):(0.46) with boxxyerror lc rgb '#ff0000' lw 3 fillstyle empty, \
     $(gq "$work/heat.tsv") using 1:2:(\$5 == 1 ? stringcolumn(4) : '') with labels tc rgb '#ffffff' font ',8', \
     $(gq "$work/heat.tsv") using 1:2:(\$5 == 0 ? stringcolumn(4) : '') with labels tc rgb '#000000' font ',8'
EOF
    echo "$out"
    made=$((made + 1))
done

# ---- per kernel: the roofline ---------------------------------------------------------
# The roofs come from the report's "# roofs:" lines (the machine block's
# peak and read bandwidths at the table's threads); files measured before
# the bandwidth probe have none, and get no roofline.
while read -r _ _ kv tv Kv Nv; do
    kernel=${kv#kernel=}
    threads=${tv#threads=}
    K=${Kv#K=}
    N=${Nv#N=}
    roofs=$(sed -n "s/^# roofs: threads=$threads //p" "$work/gflops.csv" | head -n 1)
    [ -n "$roofs" ] || continue
    peak=$(printf %s "$roofs" | sed -n 's/.*peak=\([0-9.]*\).*/\1/p')
    cache=$(sed -n 's/^# cache: //p' "$work/gflops.csv" | head -n 1)
    # One block per variant: its label, then intensity and GFLOP/s per M.
    # Intensity = 2MKN / 4(MK + KN + MN): A and B read once, C written once.
    awk -v K="$kernel" -v T="$threads" -v KK="$K" -v NN="$N" "$csv_awk"'
    intable && header {
        nf = csvsplit($0, h); header = 0
        for (last = 4; last <= nf && h[last] != "geomean"; last++) ;
        # Columns are M, or MxKxN for --shape runs (no K= N= on the table line).
        for (c = 4; c < last; c++) { M[c] = h[c]; KC[c] = KK; NC[c] = NN
            if (split(h[c], d, "x") == 3) { M[c] = d[1]; KC[c] = d[2]; NC[c] = d[3] } }
        next
    }
    intable { csvsplit($0, f); n = 0
        for (c = 4; c < last; c++) if (f[c] != "") n++
        if (n == 0) next
        printf "%s\"%s\"\n", (blocks++ ? "\n\n" : ""), f[3]
        for (c = 4; c < last; c++) if (f[c] != "") {
            m = M[c]; k = KC[c]; nn = NC[c]; i = m * k * nn / (2 * (m * k + k * nn + m * nn))
            printf "%.6g\t%s\n", i, f[c]
            if (lo == "" || i < lo) lo = i; if (hi == "" || i > hi) hi = i
        }
    }
    END { printf "\n\n# range %.6g %.6g %d\n", lo, hi, blocks }' "$work/gflops.csv" >"$work/roof.tsv"
    set -- $(sed -n 's/^# range //p' "$work/roof.tsv")
    [ $# -eq 3 ] && [ "$3" -ge 1 ] || continue
    nblocks=$3
    # Far enough left and right to show where every measured roof meets the peak.
    xlo=$(awk -v v="$1" -v p="$peak" -v r="$roofs" 'BEGIN { x = v / 4
        n = split(r, kv, " "); for (j = 1; j <= n; j++) { split(kv[j], a, "=")
            if (a[1] != "peak" && a[2] > 0 && p / a[2] / 8 < x) x = p / a[2] / 8 }
        print x }')
    xhi=$(awk -v v="$2" -v p="$peak" -v r="$roofs" 'BEGIN { x = v * 4
        n = split(r, kv, " "); for (j = 1; j <= n; j++) { split(kv[j], a, "=")
            if (a[1] != "peak" && a[2] > 0 && p / a[2] * 2 > x) x = p / a[2] * 2 }
        print x }')
    # Per measured level: its bandwidth, a label on its diagonal a little
    # below the ridge, and the diagonal itself up to the compute roof
    # (gnuplot: 1/0 leaves a gap).
    printf %s "$roofs" | awk -v p="$peak" '{
        for (j = 1; j <= NF; j++) { split($j, a, "="); if (a[1] == "peak" || a[2] <= 0) continue
            printf "bw_%s = %s\n", a[1], a[2]
            printf "set label \"%s %.0f GB/s\" at first %.6g, first %.6g rotate by 35 font \",9\" tc rgb \"#555555\"\n", \
                a[1], a[2], p / a[2] / 6, p / 6 * 1.15
        } }' >"$work/roofs.gp"
    roofplot=$(printf %s "$roofs" | awk -v p="$peak" '{
        for (j = 1; j <= NF; j++) { split($j, a, "="); if (a[1] == "peak" || a[2] <= 0) continue
            printf ", (x * bw_%s < %s ? x * bw_%s : 1/0) with lines lw 1.4 dt 2 lc rgb \"#555555\" notitle", a[1], p, a[1] } }')
    out="$outdir/roofline-$(safe "$kernel")$(suffix "$threads").png"
    title="$kernel$([ -n "$K" ] && printf ' (K=%s, N=%s)' "$K" "$N"): roofline, $threads thread$([ "$threads" = 1 ] || echo s), ${cache:-warm} cache; one point per (variant, M)"
    gnuplot >"$work/gp.err" 2>&1 <<EOF || { cat "$work/gp.err" >&2; die "gnuplot failed on $out"; }
set terminal $terminal size 1280,760
set output $(gq "$out")
set encoding utf8
set termoption noenhanced
set datafile separator "\t"
set title $(gq "$title")."\n".$(gq "$origin")
set xlabel 'arithmetic intensity (flop per compulsory byte: A, B read once, C written once; log scale)'
set ylabel 'GFLOP/s at the median (log scale)'
set logscale xy
set xrange [$xlo:$xhi]
set samples 400
set grid xtics ytics lc rgb '#dddddd'
set key outside right top vertical Left reverse samplen 2 font ',9' title 'variant'
peak = $peak
load $(gq "$work/roofs.gp")
set label sprintf("compute roof %.0f GFLOP/s", peak) at graph 0.62, first peak * 1.1 font ',9' tc rgb '#000000'
colours = "#1f77b4 #d62728 #2ca02c #ff7f0e #9467bd #8c564b #e377c2 #17becf #7f7f7f #bcbd22 #000000 #0b5d4f"
points = "7 5 9 11 13 15 1 2 3"
plot peak with lines lw 2 lc rgb '#000000' notitle$roofplot, \
    for [i=0:$((nblocks - 1))] $(gq "$work/roof.tsv") index i using 1:2 with linespoints \
    lw 1.2 ps 1.0 lc rgb word(colours, i % 12 + 1) pt int(word(points, i % 9 + 1)) title columnheader(1)
EOF
    echo "$out"
    made=$((made + 1))
done <"$work/tables.txt"

# ---- scaling: speed-up over 1 thread against threads, per variant ---------------------
# Only when the file has 1-thread results and more (report --metric scaling
# says no, exit 2, otherwise: no figure then, nothing wrong).
scaling_figure() {
    "$GEMMBENCH" report "$file" --metric scaling --format csv --dtype "$dtype" \
        >"$work/scaling.csv" 2>/dev/null ||
        return 0
    # The geomean table: variant, then (speed-up, efficiency, shapes) per count.
    # Its rules first: csv_awk (appended for csvsplit) would take the comments.
    awk '
    /^# geometric mean/ { ingm = 1; next }
    /^#/ || /^$/ { next }
    ingm && !seen { nf = csvsplit($0, h); seen = 1
        for (c = 2; c <= nf; c += 3) { t = h[c]; sub(/^geomean_speedup_/, "", t); sub(/t$/, "", t); TC[++nt] = t }
        next }
    ingm { nrows++; n = csvsplit($0, f); label[nrows] = f[1]
        for (k = 1; k <= nt; k++) v[nrows, k] = f[2 + 3 * (k - 1)]; next }
    { next }
    END {
        if (nrows == 0) exit 1
        printf "threads"; for (r = 1; r <= nrows; r++) printf "\t%s", label[r]; printf "\n"
        printf "1"; for (r = 1; r <= nrows; r++) printf "\t1"; printf "\n"
        for (k = 1; k <= nt; k++) { printf "%s", TC[k]
            for (r = 1; r <= nrows; r++) printf "\t%s", v[r, k]; printf "\n" }
    }'"$csv_awk" "$work/scaling.csv" >"$work/scaling.tsv" || return 0
    nseries=$(($(head -n 1 "$work/scaling.tsv" | awk -F '\t' '{ print NF }') - 1))
    maxt=$(tail -n 1 "$work/scaling.tsv" | cut -f 1)
    out="$outdir/scaling.png"
    title="Speed-up over 1 thread (geometric mean over the shapes) against threads; dashed: ideal"
    gnuplot >"$work/gp.err" 2>&1 <<EOF || { cat "$work/gp.err" >&2; die "gnuplot failed on $out"; }
set terminal $terminal size 1100,700
set output $(gq "$out")
set encoding utf8
set termoption noenhanced
set datafile separator "\t"
set title $(gq "$title")."\n".$(gq "$origin")
set xlabel 'threads'
set ylabel 'speed-up over 1 thread (its median / this median)'
set xrange [0.8:$maxt * 1.05]
set yrange [0:$maxt * 1.1]
set xtics ($(awk -F '\t' 'NR > 1 { printf "%s%s", (NR > 2 ? ", " : ""), $1 }' "$work/scaling.tsv"))
set grid xtics ytics lc rgb '#dddddd'
set key outside right top vertical Left reverse font ',9' title 'variant'
colours = "#1f77b4 #d62728 #2ca02c #ff7f0e #9467bd #8c564b #e377c2 #17becf #7f7f7f #bcbd22 #000000 #0b5d4f"
plot x with lines dt 2 lc rgb '#555555' title 'ideal', \
     for [i=2:$((nseries + 1))] $(gq "$work/scaling.tsv") using 1:i with linespoints \
    lw 1.6 ps 1.1 pt 7 lc rgb word(colours, (i - 2) % 12 + 1) title columnheader(i)
EOF
    echo "$out"
    made=$((made + 1))
}
scaling_figure

[ "$made" -gt 0 ] || die "$file: nothing to plot"
