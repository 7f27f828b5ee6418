# ukernel.sh - scripts/ukernel.c (`make bench-ukernel`): built against the
# library under test, it runs every case on 1 and 2 threads, checks each
# case's tile exactly, prints one row of positive rates per case, and
# refuses a bad argument in one line.  Its rates are not judged here: a
# timing belongs to a benchmark, not to a test.
. tests/cli/lib.sh
LIB=$(dirname "$GEMMBENCH")/libgemmbench.a
UK=$WORK/ukernel
# A library built under the sanitizers (make sanitize) links only with them.
SAN=
nm "$LIB" 2>/dev/null | grep -q '__asan_\|__ubsan_' && SAN=-fsanitize=address,undefined
# shellcheck disable=SC2086
if ! ${CC:-cc} -std=c11 -O2 -march=native -fopenmp $SAN -Iinclude -Ischedules -o "$UK" \
    scripts/ukernel.c "$LIB" -lm >"$WORK/cc.out" 2>&1; then
    echo "FAIL ukernel_builds: $(head -c 300 "$WORK/cc.out")"
    exit 0
fi
echo "ok ukernel_builds"
"$UK" 0.02 1 >"$WORK/one.out" 2>"$WORK/one.err"
rc=$?
if [ $rc -eq 2 ] && grep -q 'does not run AVX-512F\|x86-64' "$WORK/one.err"; then
    skip ukernel_runs "$(cat "$WORK/one.err")"
    exit 0
fi
check ukernel_runs test $rc -eq 0
# rows NAME FILE: thirteen case rows of five positive rates and a ratio.
rows() {
    awk 'NR > 1 { n++; for (i = 2; i <= 6; i++) if (!($i > 0)) bad++ }
         END { if (n != 13 || bad) { print n " rows, " bad+0 " not positive"; exit 1 } }' "$2" ||
        return 1
}
check ukernel_rows_1thread rows one "$WORK/one.out"
check ukernel_cases grep -q '^l2-jr-b3072 ' "$WORK/one.out"
check ukernel_cases_aliasing grep -q '^cp-b3088 ' "$WORK/one.out"
check ukernel_cases_a_page grep -q '^l2-jr-a3072-b768 ' "$WORK/one.out"
OMP_PROC_BIND=close OMP_PLACES=cores "$UK" 0.02 2 >"$WORK/two.out" 2>"$WORK/two.err"
check ukernel_runs_2threads test $? -eq 0
check ukernel_rows_2threads rows two "$WORK/two.out"
check ukernel_header_threads grep -q '2 threads' "$WORK/two.out"
for bad in "0" "-1" "1 0" "1 65"; do
    # shellcheck disable=SC2086
    "$UK" $bad >"$WORK/bad.out" 2>"$WORK/bad.err"
    rc=$?
    check "ukernel_refuses_$(echo "$bad" | tr ' -' '_m')" \
        test $rc -eq 2 -a "$(wc -l <"$WORK/bad.err")" -eq 1 -a ! -s "$WORK/bad.out"
done
