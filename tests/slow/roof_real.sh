# roof_real.sh - `gemmbench info` with the real bandwidth probe (best of 7
# trials a figure, memory at 4x the last-level cache): the quick probe of
# make test (tests/cli/roof.sh) never runs it.  Here because of its cost
# where the last level is large: an AMD EPYC guest whose L3 hwloc reads as
# 508 MiB probed 2 GiB of memory, 16 s and 2 GB resident.
. tests/cli/lib.sh
G=$GEMMBENCH

env -u GEMMBENCH_BANDWIDTH "$G" info >"$WORK/info.txt" 2>"$WORK/info.err"
[ $? -eq 0 ] && echo "ok info_real_exit" || echo "FAIL info_real_exit: $(head -c 300 "$WORK/info.err")"
# A positive GB/s figure in the row of each level (its 1-thread read
# column, after the working set's number and unit).
for level in L2 memory; do
    expect_true "info_real_$level" awk -v l="$level" \
        '$1 == l && $4 + 0 > 0 { ok = 1 } END { exit !ok }' "$WORK/info.txt"
done
expect_grep info_real_method "best of at least 7 trials" "$WORK/info.txt"
# The sweep: the levels measured and reported, each with its size and why.
expect_grep info_real_levels "^cache levels   measured: one thread's read rate against its working set, 16K to " "$WORK/info.txt"
for level in L1d L2 L3; do
    expect_grep "info_real_level_$level" "^  $level  *\(reported\|none reported\).* -> " "$WORK/info.txt"
done
expect_grep info_real_curve "^  curve GB/s   16K:" "$WORK/info.txt"
