# roof_real.sh - `gemmbench info` with the real bandwidth probe (best of 7
# trials a figure, memory at 4x the last-level cache): the quick probe of
# make test (tests/cli/roof.sh) never runs it.  Here because of its cost
# where the last level is large: an AMD EPYC guest whose L3 hwloc reads as
# 508 MiB probed 2 GiB of memory, 16 s and 2 GB resident.
. tests/cli/lib.sh
G=$GEMMBENCH

check() {
    name=$1
    shift
    if "$@" >"$WORK/check.out" 2>&1; then
        echo "ok $name"
    else
        echo "FAIL $name: $(head -c 400 "$WORK/check.out")"
    fi
}

# A positive GB/s figure in the row of LEVEL (its 1-thread read column,
# after the working set's number and unit).
level_positive() {
    awk -v l="$1" '$1 == l && $4 + 0 > 0 { ok = 1 } END { exit !ok }' "$2"
}

env -u GEMMBENCH_BANDWIDTH "$G" info >"$WORK/info.txt" 2>"$WORK/info.err"
check info_real_exit test $? -eq 0
check info_real_l2 level_positive L2 "$WORK/info.txt"
check info_real_memory level_positive memory "$WORK/info.txt"
expect_grep info_real_method "best of at least 7 trials" "$WORK/info.txt"
