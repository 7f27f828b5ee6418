# sched.sh - schedule files from the command line: a shipped schedule runs
# verified, with its "schedule" object, compiled once and then cached;
# illegal and hostile files exit 2 with FILE:LINE: and no compiler run;
# no compiler is one line naming CC; --emit-c, --explain, --param against a
# schedule's set; compare never pairs two texts under one name; tune
# --schedule searches its params and writes no record.
. tests/cli/lib.sh
G=$GEMMBENCH
ROOT=$(pwd)
XDG_CACHE_HOME=$WORK/cache
export XDG_CACHE_HOME
tiny="--shape 33x17x7 --shape 7x100x33 --threads 2 --quick --quiet"

# A compiler that records each run, so that "no compiler ran" is seen.
cat >"$WORK/cc" <<WRAP
#!/bin/sh
case "\$*" in *--version*) ;; *) echo run >>"$WORK/cc.log" ;; esac
exec cc "\$@"
WRAP
chmod +x "$WORK/cc"
: >"$WORK/cc.log"

CC=$WORK/cc expect_exit sched_runs 0 "$G" --schedule "$ROOT/schedules/tvm_cache_write.sched" $tiny -o "$WORK/a.json"
expect_grep sched_row_passes '^sched:tvm_cache_write .* pass' "$WORK/out"
expect_true sched_json_valid python3 "$ROOT/scripts/validate-json.py" "$WORK/a.json"
field() { python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results']; print(','.join(str(x['schedule'][sys.argv[2]]) for x in r))" "$@"; }
[ "$(field "$WORK/a.json" cached)" = "False,False" ] && echo "ok sched_first_run_compiles" ||
    echo "FAIL sched_first_run_compiles: cached=$(field "$WORK/a.json" cached)"
[ "$(wc -l <"$WORK/cc.log")" -eq 2 ] && echo "ok sched_one_compile_per_shape" ||
    echo "FAIL sched_one_compile_per_shape: $(wc -l <"$WORK/cc.log") compiler runs"
[ "$(field "$WORK/a.json" params)" = "{'bn': 32},{'bn': 32}" ] && echo "ok sched_params_in_json" ||
    echo "FAIL sched_params_in_json: $(field "$WORK/a.json" params)"
CC=$WORK/cc expect_exit sched_runs_again 0 "$G" --schedule "$ROOT/schedules/tvm_cache_write.sched" $tiny -o "$WORK/b.json"
[ "$(field "$WORK/b.json" cached)" = "True,True" ] && [ "$(field "$WORK/b.json" compile_ms)" = "0,0" ] &&
    echo "ok sched_second_run_cached" || echo "FAIL sched_second_run_cached: $(field "$WORK/b.json" cached)"
[ "$(wc -l <"$WORK/cc.log")" -eq 2 ] && echo "ok sched_cached_runs_no_compiler" ||
    echo "FAIL sched_cached_runs_no_compiler: $(wc -l <"$WORK/cc.log") compiler runs"

# Beside the variant it twins, in one run; --variant keeps both.
expect_exit sched_beside_twin 0 "$G" --variant vec_j --schedule "$ROOT/schedules/vec_j.sched" $tiny -o "$WORK/t.json"
expect_grep sched_twin_row '^vec_j ' "$WORK/out"
expect_grep sched_twin_sched_row '^sched:vec_j ' "$WORK/out"

# --param within and outside the schedule's set.
expect_exit sched_param_in_set 0 "$G" --schedule "$ROOT/schedules/tvm_cache_write.sched" --param bn=16 $tiny -o "$WORK/p.json"
expect_exit sched_param_outside_set 2 "$G" --schedule "$ROOT/schedules/tvm_cache_write.sched" --param bn=24 $tiny -o "$WORK/q.json"
expect_grep sched_param_outside_set_says "bn=24: not in the set of param bn" "$WORK/err"

# --emit-c and --explain, without measuring.
expect_exit sched_emit_c 0 "$G" --schedule "$ROOT/schedules/full.sched" --shape 9x10x11 --emit-c
expect_grep sched_emit_c_kernel '^int gb_sched_kernel(int M, int N, int K' "$WORK/out"
expect_grep sched_emit_c_specialised 'if (M != 9 || N != 11 || K != 10)' "$WORK/out"
expect_exit sched_explain 0 "$G" --schedule "$ROOT/schedules/full.sched" --shape 9x10x11 --explain
expect_grep sched_explain_nest 'vectorized for j1 in 0..8' "$WORK/out"

# Illegal and hostile schedules: exit 2, one line gemmbench: FILE:LINE: ...,
# no compiler.
: >"$WORK/cc.log"
refuse() { # NAME TEXT EXPECTED-LINE
    printf "$2" >"$WORK/$1.sched"
    CC=$WORK/cc "$G" --schedule "$WORK/$1.sched" $tiny -o "$WORK/r.json" >/dev/null 2>"$WORK/$1.err" </dev/null
    rc=$?
    if [ $rc -eq 2 ] && [ "$(wc -l <"$WORK/$1.err")" -eq 1 ] && [ "$(cat "$WORK/$1.err")" = "gemmbench: $WORK/$1.sched:$3" ]; then
        echo "ok sched_refuses_$1"
    else
        echo "FAIL sched_refuses_$1: exit $rc: $(head -c 300 "$WORK/$1.err")"
    fi
}
refuse injection 'split i 4 -> io ii\nsplit j 8 -> jo ji); system("id"); (\n' \
    '2: split: unexpected character '"')'"
refuse injection_name 'split i 4 -> io ii\nvectorize ii__attribute__\n' \
    "2: vectorize: no loop 'ii__attribute__'"
refuse huge_factor 'split k 999999999 -> ko ki\n' '1: split: factor 999999999 is not in 1..65536'
refuse vectorize_k 'vectorize k\n' "1: vectorize: 'k' is a reduction loop; only spatial loops vectorize"
refuse deep 'split i 2 -> a0 b0\nsplit b0 2 -> a1 b1\nsplit b1 2 -> a2 b2\nsplit b2 2 -> a3 b3\nsplit b3 2 -> a4 b4\nsplit b4 2 -> a5 b5\nsplit b5 2 -> a6 b6\nsplit b6 2 -> a7 b7\nsplit b7 2 -> a8 b8\nsplit b8 2 -> a9 b9\nsplit b9 2 -> c0 d0\nsplit d0 2 -> c1 d1\nsplit d1 2 -> c2 d2\nsplit d2 2 -> c3 d3\nsplit d3 2 -> c4 d4\n' \
    '15: split: more than 32 loops'
refuse garbage '\177ELF\002\001\001\000\000\000' '1: not a text file (byte 0x7f in column 1)'
refuse unknown 'cache_read A at i\n' "1: unknown statement 'cache_read'"
[ ! -s "$WORK/cc.log" ] && echo "ok sched_refusals_run_no_compiler" ||
    echo "FAIL sched_refusals_run_no_compiler: the compiler ran $(wc -l <"$WORK/cc.log") times"
mkdir "$WORK/dir.sched"
for f in "$WORK/dir.sched" /dev/zero; do
    "$G" --schedule "$f" $tiny >/dev/null 2>"$WORK/nf.err"
    rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l <"$WORK/nf.err")" -eq 1 ] && grep -q "^gemmbench: $f:1: " "$WORK/nf.err" &&
        echo "ok sched_refuses_not_a_file_$(basename "$f")" ||
        echo "FAIL sched_refuses_not_a_file_$(basename "$f"): exit $rc: $(cat "$WORK/nf.err")"
done

# No compiler: one line naming CC; the built-in variants still run.
CC=/nonexistent expect_exit sched_no_compiler 2 "$G" --schedule "$ROOT/schedules/vec_j.sched" $tiny -o "$WORK/n.json"
expect_grep sched_no_compiler_names_cc "^gemmbench: CC '/nonexistent': cannot be run" "$WORK/err"
CC=/nonexistent expect_exit sched_no_compiler_builtins_run 0 "$G" --variant vec_j $tiny -o "$WORK/v.json"

# A compiler that runs but fails on the generated C: exit 3 and one line,
# the compiler's own message and the shape, not a guess at memory.
printf '#!/bin/sh\n[ "$1" = --version ] && exec cc --version\necho "cc: internal compiler error: Killed" >&2\nexit 1\n' >"$WORK/badcc"
chmod +x "$WORK/badcc"
XDG_CACHE_HOME=$WORK/fresh CC=$WORK/badcc expect_exit sched_compiler_fails 3 "$G" --schedule "$ROOT/schedules/k8.sched" $tiny -o "$WORK/f.json"
expect_grep sched_compiler_fails_says "^gemmbench: sched:k8: .*badcc: cc: internal compiler error: Killed (custom M=33)$" "$WORK/err"
expect_true sched_compiler_fails_one_line test "$(grep -c 'sched:k8' "$WORK/err")" = 1

# Two texts under one name are never compared.
cp "$ROOT/schedules/vec_j.sched" "$WORK/edit.sched"
expect_exit sched_edit_old 0 "$G" --schedule "$WORK/edit.sched" $tiny -o "$WORK/e1.json"
printf 'split j 16 -> jo ji\nvectorize ji\n' >"$WORK/edit.sched"
expect_exit sched_edit_new 0 "$G" --schedule "$WORK/edit.sched" $tiny -o "$WORK/e2.json"
"$G" compare "$WORK/e1.json" "$WORK/e2.json" >"$WORK/cmp.out" 2>"$WORK/cmp.err"
rc=$?
[ $rc -eq 2 ] && grep -q "2 entries of a schedule variant ran different schedule texts" "$WORK/cmp.err" &&
    echo "ok sched_compare_never_pairs_two_texts" ||
    echo "FAIL sched_compare_never_pairs_two_texts: exit $rc: $(cat "$WORK/cmp.err")"

# tune --schedule: the params' sets searched per shape, the best printed as
# --param values, the record file left alone; refusals before any search.
printf 'param bn = 16 in 8,16\ntile i j bn bn -> io jo ii ji\nvectorize ji\n' >"$WORK/tb.sched"
expect_exit sched_tune_runs 0 "$G" tune --schedule "$WORK/tb.sched" --shape 33x17x7 --threads 1 \
    --trials 2 --reps 3 --quiet --records "$WORK/rec.json"
expect_grep sched_tune_row '^custom  *33  *17  *7 .*  bn=\(8\|16\)$' "$WORK/out"
[ ! -e "$WORK/rec.json" ] && echo "ok sched_tune_writes_no_record" ||
    echo "FAIL sched_tune_writes_no_record: $WORK/rec.json was written"
expect_exit sched_tune_not_with_variant 2 "$G" tune --schedule "$WORK/tb.sched" --variant packed
expect_grep sched_tune_not_with_variant_says 'give one of --variant, --schedule and --space' "$WORK/err"
printf 'split j 8 -> jo ji\nvectorize ji\n' >"$WORK/np.sched"
expect_exit sched_tune_nothing_to_search 2 "$G" tune --schedule "$WORK/np.sched" --shape 9x9x9
expect_grep sched_tune_nothing_to_search_says 'np.sched: no param with an `in` set' "$WORK/err"
printf 'param bn = 16 in 8,16\nsplit i bn -> io ii\nsplit i 4 -> a b\n' >"$WORK/tbad.sched"
: >"$WORK/cc.log"
CC=$WORK/cc expect_exit sched_tune_refuses_illegal 2 "$G" tune --schedule "$WORK/tbad.sched" --shape 9x9x9
expect_grep sched_tune_refuses_illegal_says "tbad.sched:3: split: loop 'i' was split into io, ii" "$WORK/err"
[ ! -s "$WORK/cc.log" ] && echo "ok sched_tune_refusal_no_compiler" ||
    echo "FAIL sched_tune_refusal_no_compiler: the compiler ran"

# A legal nest whose index expressions run past 1,000 characters (long
# names, ten splits of k): lowered whole, compiled and verified.
python3 - "$WORK/longnames.sched" <<'PY'
import sys
lines = []
for ax, count in (("i", 4), ("k", 10)):
    cur = ax
    for d in range(count):
        o, n = ax + "o" + "x" * 25 + str(d), ax + "n" + "y" * 25 + str(d)
        lines.append(f"split {cur} 2 -> {o} {n}")
        cur = o
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
expect_exit sched_long_lines_verified 0 "$G" --schedule "$WORK/longnames.sched" --shape 20x2050x9 \
    --threads 1 --quick --quiet -o "$WORK/long.json"
expect_grep sched_long_lines_pass '^sched:longnames .* pass' "$WORK/out"

# schedules/packed.sched is generated code only: its compiled object calls
# no hand-written kernel and no library but libc, libm and OpenMP (nm's
# undefined symbols, weak ones aside).  Verified on awkward shapes at 2
# threads (every result is checked exactly).
rm -rf "$WORK/pcache"
if ! command -v nm >/dev/null 2>&1; then
    skip sched_packed_twin_calls_only_libc_and_openmp "needs nm (binutils)"
elif XDG_CACHE_HOME=$WORK/pcache "$G" --schedule "$ROOT/schedules/packed.sched" \
        --shape 100x77x131 --shape 17x33x200 --threads 2 --quick --quiet \
        -o "$WORK/pk.json" >"$WORK/pk.out" 2>&1; then
    bad=$(for so in "$WORK"/pcache/gemmbench/*.so; do nm -D --undefined-only "$so"; done |
          awk '$1 == "U" && $2 !~ /@(GLIBC|GOMP|OMP)_/ { print $2 }')
    n=$(ls "$WORK"/pcache/gemmbench/*.so 2>/dev/null | wc -l)
    if [ "$n" -ge 2 ] && [ -z "$bad" ]; then
        echo "ok sched_packed_twin_calls_only_libc_and_openmp"
    else
        echo "FAIL sched_packed_twin_calls_only_libc_and_openmp: $n objects; undefined: $bad"
    fi
else
    echo "FAIL sched_packed_twin_calls_only_libc_and_openmp: the run failed: $(tail -n 2 "$WORK/pk.out")"
fi

# The model's nc splits N over the threads, so a schedule's fit depends on
# the thread count: a C tile cached at the column block is 32 x 1536 at 2
# threads (under the 65536-float limit) and 32 x 3072 at 1 (over it); the
# refusal names the count.
cat >"$WORK/cw.sched" <<'S'
param nc = model
split j nc -> jo ji
reorder jo i ji k
cache_write C at jo
S
expect_exit sched_fit_at_2_threads 0 "$G" --schedule "$WORK/cw.sched" --shape 32x768x3072 --threads 2 --quick --quiet -o "$WORK/cw2.json"
expect_exit sched_fit_at_1_thread_refused 2 "$G" --schedule "$WORK/cw.sched" --shape 32x768x3072 --threads 1 --quick --quiet -o "$WORK/cw1.json"
expect_grep sched_fit_names_the_threads 'over 65536.* at 1 thread$' "$WORK/err"
expect_exit sched_fit_each_count_checked 2 "$G" --schedule "$WORK/cw.sched" --shape 32x768x3072 --threads 1,2 --quick --quiet -o "$WORK/cw12.json"
