#!/bin/sh
# amx.sh - the amx variant on the command line: --list names its types and
# why not f32; where the CPU has no AMX (cpuinfo's amx_tile), a run of amx
# alone prints each type's skip with its reason and exits 0 without a
# result file, and beside another variant it is skipped in the table and
# the file while the other runs; f32 alone is a usage error.  Where the CPU
# has AMX, amx runs verified instead.  And scripts/bench-amx.sh, oneDNN's
# two paths (default and AVX-512) side by side; and the tile instructions
# the hardware ops were built into (objdump).
. tests/cli/lib.sh
G=$GEMMBENCH


"$G" --list >"$WORK/list.txt"
check list_amx_types awk '$1 == "amx" { getline; if ($0 ~ /types bf16, u8s8; no f32: AMX/) ok = 1 }
                          END { exit !ok }' "$WORK/list.txt"

expect_exit amx_f32_is_no_run 2 "$G" --variant amx --quick
expect_grep amx_f32_says_why "none of the selected variants runs f32" "$WORK/err"

# scripts/bench-amx.sh on one tiny shape: oneDNN's default path and its
# AVX-512 path (another process, ONEDNN_MAX_CPU_ISA), side by side, with
# the kernel each ran; without AMX the two are the same kernel.
if ! "$G" --list | grep -q '^onednn '; then
    skip bench_amx_script "needs a build with oneDNN (libdnnl-dev)"
elif ! command -v python3 >/dev/null 2>&1; then
    skip bench_amx_script "needs python3"
else
    OUTDIR="$WORK/ba" SHAPES="--shape 16x16x16" GEMMBENCH="$G" \
        sh scripts/bench-amx.sh --reps 2 --rounds 1 --warmup 0 >"$WORK/ba.txt" 2>&1
    check bench_amx_script_exit_0 test $? -eq 0
    expect_grep bench_amx_side_by_side 'avx512 /default' "$WORK/ba.txt"
    expect_grep bench_amx_default_impl '^default impl: onednn in u8s8: ' "$WORK/ba.txt"
    expect_grep bench_amx_avx512_impl '^avx512 impl: onednn in bf16: ' "$WORK/ba.txt"
    py_check bench_amx_paths_recorded "$WORK/ba" <<'PY'
import glob, json, sys
d = sys.argv[1]
default = json.load(open(glob.glob(d + "/amx-*-default.json")[0]))
avx512 = json.load(open(glob.glob(d + "/amx-*-avx512.json")[0]))
lib_d, lib_a = default["tool"]["libraries"]["onednn"], avx512["tool"]["libraries"]["onednn"]
assert lib_a["forced_by"] == "ONEDNN_MAX_CPU_ISA=AVX512_CORE_BF16", lib_a
assert lib_d.get("forced_by", "") != lib_a["forced_by"], lib_d
impl = lambda doc: sorted((r["dtype"], r["impl"]) for r in doc["results"] if r["variant"] == "onednn")
assert all("amx" not in i for _, i in impl(avx512)), impl(avx512)
if not open("/proc/cpuinfo").read().count("amx_tile"):
    assert impl(default) == impl(avx512), (impl(default), impl(avx512))  # one kernel here
PY
fi

# The hardware ops as built: the intrinsics became the instructions, each
# dot product one of the block layouts' triples (amx_tiles.h), A the first
# source and B the second (AT&T order: B, A, C), for both types.
obj=$(dirname "$G")/schedules/amx_tiles_x86.o
if ! command -v objdump >/dev/null 2>&1 || [ ! -s "$obj" ] || [ "$(uname -m)" != x86_64 ]; then
    skip amx_ops_assembled "needs objdump and an x86-64 build's $obj"
else
    objdump -d "$obj" >"$WORK/ops.s" 2>&1
    for insn in ldtilecfg tilerelease tilezero tileloadd tilestored; do
        expect_grep "amx_ops_issue_$insn" "$insn" "$WORK/ops.s"
    done
    want="0,3,4 0,4,6 1,3,5 1,4,7 2,3,6 2,5,6 3,5,7"
    for insn in tdpbf16ps tdpbusd; do
        got=$(sed -n "s/.*$insn *%tmm\([0-7]\),%tmm\([0-7]\),%tmm\([0-7]\).*/\3,\2,\1/p" \
            "$WORK/ops.s" | sort | tr '\n' ' ')
        check "amx_ops_${insn}_layout_triples" test "$got" = "$want "
    done
fi

if grep -qw amx_tile /proc/cpuinfo 2>/dev/null; then
    skip amx_skipped_without_tiles "this CPU reports amx_tile"
    "$G" --quiet --variant amx --dtype bf16,u8s8 --shape 17x45x37 --reps 3 --warmup 1 \
        --rounds 1 -o "$WORK/hw.json" >"$WORK/hw.txt" 2>&1
    check amx_runs_verified_with_tiles test $? -eq 0
    exit 0
fi

expect_exit amx_alone_skipped_exit_0 0 "$G" --variant amx --dtype bf16,u8s8 --quick \
    -o "$WORK/none.json"
expect_grep amx_bf16_skip_says_why '^skipped: amx in bf16: AMX not available: ' "$WORK/out"
expect_grep amx_u8s8_skip_says_why '^skipped: amx in u8s8: AMX not available: ' "$WORK/out"
check amx_alone_writes_no_file test ! -e "$WORK/none.json"

"$G" --quiet --variant packed,amx --dtype bf16,u8s8 --shape 17x45x37 --reps 3 --warmup 1 \
    --rounds 1 --prepack -o "$WORK/mix.json" >"$WORK/mix.txt" 2>"$WORK/mix.err"
check amx_beside_packed_exit_0 test $? -eq 0
expect_grep amx_skip_under_table '^skipped: amx in u8s8: AMX not available' "$WORK/mix.txt"
py_check amx_skipped_in_file_never_run "$WORK/mix.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
sk = {(s["variant"], s["dtype"]): s["reason"] for s in d["skipped"]}
assert set(sk) == {("amx", "bf16"), ("amx", "u8s8")}, sk
assert all(r.startswith("AMX not available: ") for r in sk.values()), sk
assert d["results"] and all(r["variant"] == "packed" and r["check"] == "pass"
                            for r in d["results"]), d["results"]
PY
