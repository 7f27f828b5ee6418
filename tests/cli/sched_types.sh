# sched_types.sh - types in the schedule language (SCHED.md, "Types"): the
# shipped twins packed_bf16 and packed_u8s8 run their type beside packed
# and verify exactly on shapes that are multiples of no tile; a typed
# schedule asked for another type is skipped with its reason, alone it
# names the --dtype that runs it; --explain says the type's form; a bad
# type statement is one line; a tensorized schedule (amx_bf16.sched) is
# skipped without AMX, compiles to AMX's instructions, and a broken
# tensorize rule is one line.
. tests/cli/lib.sh
G=$GEMMBENCH
ROOT=$(pwd)
cd "$WORK" || exit 1


# ---- the twins beside packed, each type, odd shapes, 2 threads ----------------------------
"$G" --quiet --dtype f32,bf16,u8s8 --variant packed --schedule "$ROOT/schedules/packed_bf16.sched" \
    --schedule "$ROOT/schedules/packed_u8s8.sched" --shape 17x45x100 --shape 16x130x96 \
    --reps 2 --warmup 1 --rounds 1 --threads 2 -o t.json >t.txt 2>t.err
check twins_run_exit test $? -eq 0
py_check twins_exact_in_their_types t.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
got = {}
for r in d["results"]:
    assert r["check"] == "pass" and r["check_mode"] == "exact", r
    got.setdefault(r["variant"], set()).add(r["dtype"])
assert got["sched:packed_bf16"] == {"bf16"}, got
assert got["sched:packed_u8s8"] == {"u8s8"}, got
assert got["packed"] == {"f32", "bf16", "u8s8"}, got
sk = {(s["variant"], s["dtype"]): s["reason"] for s in d["skipped"]}
assert sk[("sched:packed_bf16", "f32")] == "the schedule states type bf16", sk
assert sk[("sched:packed_bf16", "u8s8")] == "the schedule states type bf16", sk
assert sk[("sched:packed_u8s8", "bf16")] == "the schedule states type u8s8", sk
for r in d["results"]:
    if r["variant"].startswith("sched:"):
        assert r["schedule"]["text"].lstrip("# \n").find("type ") >= 0, r["schedule"]
        # which form ran, as packed's entries say their path
        assert r.get("impl") in ("dot: vpdpbusd", "dot: vdpbf16ps", "widened to f32",
                                 "widened to int32"), r
PY
expect_grep twins_skipped_under_table "^skipped: sched:packed_u8s8 in f32: the schedule states type u8s8" t.txt

# ---- alone, without --dtype: the type that runs it ----------------------------------------
expect_exit typed_alone_names_its_dtype 2 "$G" --schedule "$ROOT/schedules/packed_u8s8.sched" \
    --shape 8x8x8 --quick
expect_grep typed_alone_says "sched:packed_u8s8 states type u8s8 (--dtype u8s8 runs it)" "$WORK/err"
# With its --dtype and a --param set, the reason is the --param's (it once
# said "--dtype u8s8 runs it" here too), and no file is written.
expect_exit typed_param_refused 2 "$G" --dtype u8s8 --schedule "$ROOT/schedules/packed_u8s8.sched" \
    --param b_read=copied --shape 8x8x8 --quick -o param.json
expect_grep typed_param_says \
    "^gemmbench: nothing to run: sched:packed_u8s8 in u8s8: a --param set applies to f32 only$" "$WORK/err"
[ ! -e param.json ] && echo "ok typed_param_writes_nothing" || echo "FAIL typed_param_writes_nothing"

# ---- --explain: the form -------------------------------------------------------------------
"$G" --dtype u8s8 --schedule "$ROOT/schedules/packed_u8s8.sched" --shape 64x768x768 \
    --explain >x.txt 2>&1
check explain_exit test $? -eq 0
if grep -q avx512_vnni /proc/cpuinfo 2>/dev/null && grep -q avx512f /proc/cpuinfo; then
    expect_grep explain_dot_form "^  type u8s8 in groups of 4 k: vpdpbusd" x.txt
else
    expect_grep explain_widened_form "^  type u8s8 widened to int32 where read: " x.txt
fi
printf 'type u8s8\nsplit j 16 -> jo ji\nvectorize ji\n' >w.sched
"$G" --dtype u8s8 --schedule w.sched --shape 8x8x32 --explain >w.txt 2>&1
expect_grep explain_widened_why "type u8s8 widened to int32 where read: no run of rows" w.txt

# ---- refusals ------------------------------------------------------------------------------
printf 'type fp8\n' >fp8.sched
expect_exit type_unknown_refused 2 "$G" --dtype bf16 --schedule fp8.sched --shape 8x8x8 --quick
expect_grep type_unknown_says "fp8.sched:1: type: no type 'fp8' (f32, bf16, u8s8)" "$WORK/err"
printf 'split i 4 -> io ii\ntype bf16\n' >late.sched
expect_exit type_late_refused 2 "$G" --dtype bf16 --schedule late.sched --shape 8x8x8 --quick
expect_grep type_late_says "late.sched:2: type: a schedule states its type first" "$WORK/err"
expect_exit tune_typed_schedule_refused 2 "$G" tune --schedule "$ROOT/schedules/packed_u8s8.sched" \
    --shape 16x64x64 --trials 2
expect_grep tune_typed_schedule_says "states type u8s8: tune --schedule searches the params of f32" "$WORK/err"

# ---- tune --space of a type: against packed's kernel, recorded per type, replayed ---------
GEMMBENCH_RECORDS=$WORK/rec.json expect_exit tune_space_typed_runs 0 "$G" tune \
    --space "$ROOT/schedules/cpu_gemm.space" --dtype u8s8 --shape 20x33x17 --threads 1 \
    --trials 4 --reps 3
expect_grep tune_space_typed_header "^searching .*cpu_gemm.space in u8s8 .*rule_us: packed's u8s8 kernel" "$WORK/out"
expect_grep tune_space_typed_row "^custom  *20  *33  *17 " "$WORK/out"
expect_grep tune_space_typed_winner_text "^  | type u8s8$" "$WORK/out"
cp "$WORK/out" tune.out
py_check tune_space_typed_record "$WORK/rec.json" <<'PY'
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
assert len(recs) == 1 and recs[0]["fingerprint"].endswith("|dtype=u8s8"), recs
assert recs[0]["base"] == "tuned_sched" and (recs[0]["M"], recs[0]["K"], recs[0]["N"]) == (20, 33, 17)
assert recs[0]["schedule"] == "" or recs[0]["schedule"].startswith("type u8s8\n"), recs
PY
# tuned_sched replays it in u8s8 (its schedule, or packed where packed won); f32 has none
GEMMBENCH_RECORDS=$WORK/rec.json expect_exit tuned_sched_typed_replays 0 "$G" --variant tuned_sched \
    --dtype f32,u8s8 --shape 20x33x17 --threads 1 --reps 2 --warmup 1 --quiet -o ts.json
py_check tuned_sched_typed_entries ts.json <<'PY'
import json, sys
rs = {r["dtype"]: r for r in json.load(open(sys.argv[1]))["results"]}
assert set(rs) == {"f32", "u8s8"} and all(r["check"] == "pass" for r in rs.values()), rs
assert rs["f32"]["label"] == "tuned_sched(rule)", rs["f32"]["label"]   # no f32 record
assert rs["u8s8"]["impl"].startswith(("record: ", "packed: ")), rs["u8s8"]["impl"]
PY
# a record's schedule runs in its type; one of another type is refused with its reason
python3 - "$WORK/rec.json" "$WORK/rec2.json" "$WORK/rec3.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["records"][0]["schedule"] = "type u8s8\nsplit j 16 -> jo ji\nvectorize ji\n"
json.dump(d, open(sys.argv[2], "w"))
d["records"][0]["schedule"] = "type bf16\nsplit j 16 -> jo ji\nvectorize ji\n"
json.dump(d, open(sys.argv[3], "w"))
PY
GEMMBENCH_RECORDS=$WORK/rec2.json expect_exit tuned_sched_typed_record_runs 0 "$G" \
    --variant tuned_sched --dtype u8s8 --shape 20x33x17 --threads 1 --reps 2 --warmup 1 -o ts2.json
expect_grep tuned_sched_typed_record_impl "impl: tuned_sched in u8s8: record: widened to int32" "$WORK/out"
GEMMBENCH_RECORDS=$WORK/rec2.json "$G" --variant tuned_sched --dtype f32,u8s8 --shape 20x33x17 \
    --threads 1 --reps 2 --warmup 1 --quiet -o ts4.json >/dev/null 2>&1
py_check tuned_sched_typed_schedule_object ts4.json <<'PY'
import json, sys
rs = {r["dtype"]: r for r in json.load(open(sys.argv[1]))["results"]}
# the u8s8 record's schedule, so that compare never pairs two texts; f32 ran rule_based
assert rs["u8s8"]["schedule"]["text"].startswith("type u8s8\n"), rs["u8s8"].get("schedule")
assert "schedule" not in rs["f32"], rs["f32"].get("schedule")
PY
GEMMBENCH_RECORDS=$WORK/rec3.json "$G" --variant tuned_sched --dtype u8s8 --shape 20x33x17 \
    --threads 1 --reps 2 --warmup 1 -o ts3.json >/dev/null 2>ts3.err
check tuned_sched_other_type_fails test $? -ne 0
expect_grep tuned_sched_other_type_says "its schedule states type bf16, not u8s8" ts3.err
sed -n 's/^  | //p' tune.out >won.sched
expect_exit tune_space_winner_replays 0 "$G" --dtype u8s8 --schedule won.sched --shape 20x33x17 \
    --reps 2 --warmup 1 --quiet -o won.json
printf 'type bf16\nsplit j 16 -> jo ji\nvectorize ji\nchoose\nparallel i\nor\nend\n' >bf.space
expect_exit tune_space_type_disagrees 2 "$G" tune --space bf.space --dtype u8s8 --shape 8x8x8
expect_grep tune_space_type_disagrees_says "--dtype u8s8: bf.space states type bf16" "$WORK/err"
# A typed search keeps its trials too, each line of its type (src/learn/LEARN.md).
expect_exit tune_space_typed_database 0 "$G" tune --space "$ROOT/schedules/cpu_gemm.space" \
    --dtype bf16 --database db.jsonl --shape 8x8x8 --threads 1 --trials 2 --reps 2 --quiet --records "$WORK/rec-db.json"
py_check tune_space_typed_database_lines db.jsonl <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 2, len(rows)
for r in rows:
    assert r["version"] == 2 and r["dtype"] == "bf16", r
    assert r["schedule"].startswith("type bf16\n"), r["schedule"][:40]
PY
expect_exit tune_dtype_needs_space 2 "$G" tune --dtype bf16 --shape 8x8x8

# ---- the dot run keeps its 24 sums in registers: no zmm stored to the stack -------------------
# (GCC 12 spilled 18 of them at every k step under loop header copying, and again
# with a loop counting groups: SCHED.md, "What GCC needs here"; read off objdump.)
if ! grep -q avx512_vnni /proc/cpuinfo 2>/dev/null; then
    skip dot_run_no_spills "this CPU has no AVX512_VNNI: no dot form to compile"
elif ! command -v objdump >/dev/null 2>&1; then
    skip dot_run_no_spills "needs objdump (binutils)"
else
    # the twin (A read in place) and the same nest with A packed in groups
    sed -e '/^choose a_read/,/^end/d' -e 's/^vectorize jv$/pack A at ic\nvectorize jv/' \
        "$ROOT/schedules/packed_u8s8.sched" >apacked.sched
    for f in "$ROOT/schedules/packed_u8s8.sched" apacked.sched; do
        t=$(basename "$f" .sched)
        "$G" --dtype u8s8 --schedule "$f" --shape 64x768x3072 --emit-c >k.c 2>&1
        flags=$(sed -n '1s/.*compiled with: \(.*\) \*\//\1/p' k.c)
        # shellcheck disable=SC2086 # the flags are words
        if ${CC:-cc} $flags -o k.so k.c 2>cc.err; then
            n=$(objdump -d --no-show-raw-insn k.so | grep -c vpdpbusd)
            spills=$(objdump -d --no-show-raw-insn k.so |
                grep -cE 'vmovdq[au](32|64) +%zmm[0-9]+,(-?0x[0-9a-f]+)?\(%rsp\)')
            check "dot_run_has_its_dot_products_$t" test "$n" -ge 24
            check "dot_run_no_spills_$t" test "$spills" -eq 0
        else
            echo "FAIL dot_run_compiles_$t: $(head -c 300 cc.err)"
        fi
    done
fi

# ---- tensorize: the run on AMX's tiles (SCHED.md, "Tiles") -----------------------------
# Without AMX (or Linux's grant of it) the tensorized schedule is skipped with
# the reason, exit 0, never run; with it, it runs and verifies exactly.
"$G" --dtype bf16 --schedule "$ROOT/schedules/amx_bf16.sched" --shape 64x256x768 --reps 2 \
    --warmup 1 --rounds 1 -o tiles.json >tiles.txt 2>tiles.err
rc=$?
if grep -q '^flags.* amx_tile' /proc/cpuinfo 2>/dev/null; then
    check tiles_run_exit test $rc -eq 0
    py_check tiles_run_exact_on_the_tiles tiles.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rs = [r for r in d["results"] if r["variant"] == "sched:amx_bf16"]
skipped = [s for s in d["skipped"] if s["variant"] == "sched:amx_bf16"]
# a CPU with AMX whose kernel refuses the tiles skips it with that reason
assert (rs and all(r["check"] == "pass" and r["impl"] == "tiles: tdpbf16ps" for r in rs)) or \
    (skipped and "AMX" in skipped[0]["reason"]), (rs, skipped)
PY
else
    check tiles_skipped_without_amx_exit_0 test $rc -eq 0
    expect_grep tiles_skipped_with_the_reason \
        "^skipped: sched:amx_bf16 in bf16: AMX not available: the CPU does not report amx_tile" \
        tiles.txt
    check tiles_never_ran test ! -s tiles.json
fi
# --explain shows what it runs (or would, without AMX): the tiles' form
"$G" --dtype bf16 --schedule "$ROOT/schedules/amx_bf16.sched" --shape 64x768x256 --explain \
    >tx.out 2>tx.err
check tiles_explain_exit_0 test $? -eq 0
if grep -q avx512f /proc/cpuinfo 2>/dev/null; then
    expect_grep tiles_explain_says_the_tiles \
        "type bf16 on AMX's tiles: 2 x 2 C tiles of 16 x 16, k 32 a step: tdpbf16ps" tx.out
    expect_grep tiles_explain_run_in_tiles "kept in 2 x 2 tiles, k 32 a step" tx.out
else
    skip tiles_explain_says_the_tiles "this CPU has no AVX-512: the tiles are not taken"
fi
# the hardware build, compiled whatever the CPU (the assembler knows AMX):
# per k step 2 A and 2 B tile loads, 4 tdpbf16ps (GCC may unroll the k loop:
# as many loads as dot products); C's 4 tiles zeroed and stored, the tiles
# configured and released once per parallel iteration; all of it once more
# in the one-thread copy of the body (run without a parallel region)
if ! command -v objdump >/dev/null 2>&1; then
    skip tiles_compile_to_amx "needs objdump (binutils)"
elif ! grep -q avx512f /proc/cpuinfo 2>/dev/null; then
    skip tiles_compile_to_amx "this CPU has no AVX-512: the tiles are not taken"
else
    "$G" --dtype bf16 --schedule "$ROOT/schedules/amx_bf16.sched" --shape 64x768x256 \
        --emit-c >tk.c 2>&1
    flags=$(sed -n '1s/.*compiled with: \(.*\) \*\//\1/p' tk.c)
    # shellcheck disable=SC2086 # the flags are words
    if ${CC:-cc} $flags -o tk.so tk.c 2>cc.err; then
        objdump -d --no-show-raw-insn tk.so >tk.s
        copies=$(($(grep -c 'if (nthreads == 1)' tk.c) + 1))
        check tiles_compile_to_amx test "$copies" -eq 2 -a "$(grep -c tdpbf16ps tk.s)" -ge $((4 * copies)) \
            -a "$(grep -c tileloadd tk.s)" -eq "$(grep -c tdpbf16ps tk.s)" \
            -a "$(grep -c tilestored tk.s)" -eq $((4 * copies)) \
            -a "$(grep -c tilezero tk.s)" -eq $((4 * copies)) -a "$(grep -c ldtilecfg tk.s)" -eq "$copies" \
            -a "$(grep -c tilerelease tk.s)" -eq "$copies"
    else
        echo "FAIL tiles_compile_to_amx: $(head -c 300 cc.err)"
    fi
fi
# a rule broken: one line naming it, exit 2, before any compiler
printf 'split i 16 -> io ii\ntensorize ii amx\n' >f32tiles.sched
"$G" --schedule f32tiles.sched --shape 16x16x16 >ft.out 2>ft.err
check tiles_refused_exit_2 test $? -eq 2
expect_grep tiles_refused_one_line \
    "f32tiles.sched:2: tensorize: AMX's tiles multiply bf16 and u8s8" ft.err
check tiles_refused_one_line_only test "$(wc -l <ft.err)" -eq 1
