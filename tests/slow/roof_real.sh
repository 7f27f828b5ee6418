# roof_real.sh - `gemmbench info` and a run with the real bandwidth probe (best of 7
# trials a figure, memory at 4x the last-level cache): the quick probe of
# make test (tests/cli/roof.sh) never runs it.  Here because of its cost
# where the last level is large: an AMD EPYC guest whose L3 hwloc reads as
# 508 MiB probed 2 GiB of memory, 16 s and 2 GB resident.
. tests/cli/lib.sh
G=$GEMMBENCH
ROOT=$(pwd)

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

# A run's file: the cache levels swept, their sizes and why (about 3 s and
# 6 s of CPU on the AMD EPYC guest, two thirds of it faulting pages in: the
# sweep to twice the largest reported cache, at most 1 GiB; in make test it
# was a twentieth of the suite's time).
env -u GEMMBENCH_BANDWIDTH "$G" --quiet --variant vec_j --shape 8x8x8 --reps 1 --warmup 0 \
    -o "$WORK/full.json" >/dev/null 2>"$WORK/full.err"
check full_probe_run test $? -eq 0
if command -v python3 >/dev/null 2>&1; then
    check full_probe_levels_valid python3 "$ROOT/scripts/validate-json.py" "$WORK/full.json" --complete
    check full_probe_levels python3 -c "
import json, sys
lv = json.load(open(sys.argv[1]))['machine']['bandwidth']['levels']
assert lv['bytes'][0] == 16384 and len(lv['bytes']) >= 30, lv['bytes'][:3]
assert all(b > 0 for b in lv['read_gbs'])
assert lv['L2']['used_bytes'] > 0 and lv['L2']['why'], lv['L2']
" "$WORK/full.json"
    # validate-json.py refuses a used size that is neither the reported nor the measured.
    python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
d['machine']['bandwidth']['levels']['L2']['used_bytes'] = 12345
json.dump(d, open(sys.argv[2], 'w'))" "$WORK/full.json" "$WORK/badlevels.json"
    expect_exit validate_bad_levels 1 python3 "$ROOT/scripts/validate-json.py" "$WORK/badlevels.json"
else
    skip full_probe_levels "needs python3"
fi
