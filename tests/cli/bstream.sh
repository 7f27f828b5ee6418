# bstream.sh - scripts/bstream.c (`make bench-bstream`): it builds, runs every
# case on 1 and 2 threads (each trial's sum checked against the exact one),
# prints one row of positive rates per case, and refuses a bad argument in
# one line.  Its rates are not judged here: a timing belongs to a benchmark.
. tests/cli/lib.sh
BS=$WORK/bstream
if ! ${CC:-cc} -std=c11 -O2 -march=native -fopenmp -Iinclude -o "$BS" scripts/bstream.c \
    >"$WORK/cc.out" 2>&1; then
    echo "FAIL bstream_builds: $(head -c 300 "$WORK/cc.out")"
    exit 0
fi
echo "ok bstream_builds"
"$BS" 0.01 1 >"$WORK/one.out" 2>"$WORK/one.err"
rc=$?
if [ $rc -eq 2 ] && grep -q 'does not run AVX-512F\|x86-64' "$WORK/one.err"; then
    skip bstream_runs "$(cat "$WORK/one.err")"
    exit 0
fi
check bstream_runs test $rc -eq 0
# rows NAME FILE: twelve case rows of a trial count, two positive rates, a ratio.
rows() {
    awk 'NR > 2 { n++; for (i = 2; i <= 5; i++) if (!($i > 0)) bad++ }
         END { if (n != 12 || bad) { print n " rows, " bad+0 " not positive"; exit 1 } }' "$2" ||
        return 1
}
check bstream_rows_1thread rows one "$WORK/one.out"
check bstream_cases grep -q '^rows-3072-next ' "$WORK/one.out"
base='^packed-768  *[0-9]*  *[0-9.]*  *[0-9.]*  *1.000$'
check bstream_packed_is_the_base grep -q "$base" "$WORK/one.out"
OMP_PROC_BIND=close OMP_PLACES=cores "$BS" 0.01 2 >"$WORK/two.out" 2>"$WORK/two.err"
check bstream_runs_2threads test $? -eq 0
check bstream_rows_2threads rows two "$WORK/two.out"
check bstream_header_threads grep -q '2 thread' "$WORK/two.out"
for bad in "0" "-1" "1 0" "1 65" "x"; do
    # shellcheck disable=SC2086
    "$BS" $bad >"$WORK/bad.out" 2>"$WORK/bad.err"
    rc=$?
    check "bstream_refuses_$(echo "$bad" | tr ' -' '_m')" \
        test $rc -eq 2 -a "$(wc -l <"$WORK/bad.err")" -eq 1 -a ! -s "$WORK/bad.out"
done
