#!/bin/sh
# cross-aarch64.sh - the portable build on another architecture: packed's
# portable C micro-kernel (GCC vector types, no intrinsics) must build and
# compute exact results on aarch64, not only on x86.  Builds gemmbench with
# Debian's aarch64 cross compiler, warnings as errors, no reference libraries
# (their arm64 builds are not needed for this), into BUILD (default
# build-aarch64); then runs it under qemu-aarch64 (user-mode emulation):
#   1. every variant of the aarch64 build, on shapes that are multiples of no
#      tile (1, 7, 17, 33, 65, 100, ...), each result verified exactly against
#      the reference by the harness (gemmbench exits 1 on a wrong result);
#   1b. packed again with its calibration's other answer (copied; the
#      calibration is forced, not measured, in every run here);
#   2. packed with the block settings of tests/unit/test_packed.c (tiny
#      blocks, so every loop ends in a partial block; every B mode, A mode and
#      loop order forced), per call and pre-packed;
#   3. packed refusing an x86 instruction set with a one-line error (exit 2);
#   4. the JSON of run 1 says aarch64 and the portable path;
#   5. the unit tests, except those below.
# One thread only: qemu-user 7.2 on the development VM hangs in the first
# pthread_create (a five-line pthread program does too), so the two-thread
# paths are tested natively by `make test`.  Unit tests left out here:
# those that start a second thread (NO_QEMU below; a new one that does hangs
# this script until the timeout, which then names it), the lockstep tests
# (they fork two processes and stop and continue them: process control, not
# the architecture), the calibration cache's reader test (it reads in a
# forked child with a 5 s limit, which the child under qemu did not meet), sustained_peak_is_plausible, whose floor of
# 1 GFLOP/s emulation misses, and the schedule language's compiled tests
# (their kernels run on 2 threads, and the host's cc makes x86 objects; the
# tiles' test too).
# Needs: sh scripts/setup.sh cross (gcc-aarch64-linux-gnu, libcjson-dev:arm64,
# nettle-dev:arm64, qemu-user).  Usage: scripts/cross-aarch64.sh [--build-only]
set -e
BUILD=${BUILD:-build-aarch64}
CROSS=aarch64-linux-gnu-gcc
SYSROOT=/usr/aarch64-linux-gnu
ARMLIB=/usr/lib/aarch64-linux-gnu

command -v "$CROSS" >/dev/null 2>&1 ||
    { echo "cross-aarch64: $CROSS not found (sh scripts/setup.sh cross)" >&2; exit 2; }
for lib in libcjson libnettle; do
    [ -f "$ARMLIB/$lib.so" ] ||
        { echo "cross-aarch64: no $ARMLIB/$lib.so (sh scripts/setup.sh cross)" >&2; exit 2; }
done

# cJSON's and nettle's headers are the same on every architecture; their
# libraries are arm64's.
make -s BUILD="$BUILD" CC="$CROSS" OPT=-O3 REFERENCE= CFLAGS_EXTRA=-Werror \
    CJSON_LIBS="-L$ARMLIB -lcjson" NETTLE_LIBS="-L$ARMLIB -lnettle" \
    "$BUILD/gemmbench" "$BUILD/gemmbench-tests"
# ELF e_machine (bytes 18-19, little-endian): 183 = EM_AARCH64.
[ "$(od -An -tx1 -j18 -N2 "$BUILD/gemmbench" | tr -d ' ')" = b700 ] ||
    { echo "cross-aarch64: $BUILD/gemmbench is not an aarch64 executable" >&2; exit 1; }
echo "cross-aarch64: built $BUILD/gemmbench (aarch64, -Werror)"
[ "${1:-}" = --build-only ] && exit 0

command -v qemu-aarch64 >/dev/null 2>&1 ||
    { echo "cross-aarch64: qemu-aarch64 not found (sh scripts/setup.sh cross)" >&2; exit 2; }
QEMU_LD_PREFIX=$SYSROOT
export QEMU_LD_PREFIX
# The tests' quick probes (tests/run.sh): this script checks results, not
# speed, and the full bandwidth probe streams 4x the host's last level
# under emulation (1.2 GiB on a 300 MiB-L3 Xeon guest, where the sweep
# below then ran past its 600 s).
# packed's calibration forced too: measured, its questions time about
# 200 GFLOP of BERT-sized GEMMs, which under emulation (0.27 GFLOP/s on the
# AMD EPYC kind) took 11 minutes and ran the sweep below past its 600 s.
# in_place here; the run after the sweep forces copied, so the plans of
# both answers run on aarch64.
GEMMBENCH_BANDWIDTH=quick GEMMBENCH_PEAK=quick GEMMBENCH_CALIBRATE=in_place
export GEMMBENCH_BANDWIDTH GEMMBENCH_PEAK GEMMBENCH_CALIBRATE
G="qemu-aarch64 $BUILD/gemmbench"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# gemmbench runs its measurements to the end on SIGTERM; KILL ends a hang.
run() { timeout -s KILL 600 "$@"; }
# sweep NAME ARGS...: a verified run; on failure, its output and exit 1.
sweep() {
    name=$1
    shift
    status=0
    run $G "$@" -o "$tmp/$name.json" >"$tmp/$name.txt" 2>&1 || status=$?
    if [ "$status" -ne 0 ]; then
        cat "$tmp/$name.txt" >&2
        echo "cross-aarch64: the $name run under qemu failed (exit $status)" >&2
        exit 1
    fi
}

shapes="--shape 1x1x1 --shape 7x100x33 --shape 33x7x100 --shape 100x33x7 --shape 17x71x131 --shape 65x129x97 --shape 9x3x49"
timing="--threads 1 --warmup 1 --reps 2 --min-reps 1 --quiet"

sweep all --variant all $shapes $timing
n=$(grep -c ' pass' "$tmp/all.txt" || true)
echo "cross-aarch64: every variant, 7 shapes, 1 thread: $n results verified"
GEMMBENCH_CALIBRATE=copied
sweep copied --variant packed --prepack $shapes $timing
GEMMBENCH_CALIBRATE=in_place
n=$(grep -c ' pass' "$tmp/copied.txt" || true)
[ "$n" -eq 14 ] || { cat "$tmp/copied.txt" >&2; echo "cross-aarch64: packed, calibration forced to copied: $n of 14 results verified" >&2; exit 1; }
echo "cross-aarch64: packed, calibration forced to copied, per call and pre-packed: $n results verified"

# bf16 and u8s8: the portable paths (no dot-product instructions here),
# per call and pre-packed, verified exactly like f32.
sweep types --dtype bf16,u8s8 --variant baseline,packed --prepack $shapes $timing
n=$(grep -c ' pass' "$tmp/types.txt" || true)
[ "$n" -eq 42 ] || { cat "$tmp/types.txt" >&2; echo "cross-aarch64: bf16 and u8s8: $n of 42 results verified" >&2; exit 1; }
grep -q '"impl":	"portable"' "$tmp/types.json" ||
    { echo "cross-aarch64: packed's bf16 and u8s8 entries do not say the portable path ran" >&2; exit 1; }
echo "cross-aarch64: bf16 and u8s8, baseline and packed, 7 shapes: $n results verified (portable)"

# The block settings, read from the unit test's list so there is one list:
# the quoted, non-empty strings of block_settings[] in test_packed.c.
settings=$(sed -n '/block_settings\[\] = {/,/^};/s/^ *"\([^"][^"]*\)",$/\1/p' tests/unit/test_packed.c)
nsettings=$(echo "$settings" | grep -c . || true)
[ "$nsettings" -ge 5 ] ||
    { echo "cross-aarch64: read $nsettings block settings from tests/unit/test_packed.c" >&2; exit 1; }
set --
for b in $settings; do set -- "$@" --param "$b"; done
sweep packed --variant packed $shapes $timing --prepack "$@"
n=$(grep -c ' pass' "$tmp/packed.txt" || true)
echo "cross-aarch64: packed, $nsettings block settings x 7 shapes, per call and pre-packed: $n results verified"

for isa in avx512 avx2; do
    status=0
    run $G --variant packed --shape 7x7x7 --param "isa=$isa" $timing \
        -o "$tmp/isa.json" >/dev/null 2>"$tmp/isa.err" || status=$?
    if [ "$status" -ne 2 ] || [ "$(wc -l <"$tmp/isa.err")" -ne 1 ]; then
        echo "cross-aarch64: --param isa=$isa on aarch64: exit $status, expected 2 and one line:" >&2
        cat "$tmp/isa.err" >&2
        exit 1
    fi
done
echo "cross-aarch64: isa=avx512 and isa=avx2 refused: $(cat "$tmp/isa.err")"

NO_QEMU="packed_exact_on_the_default_isa_and_every_block_size packed_exact_on_every_call_of_a_measurement
peak_is_positive_and_plausible sustained_peak_is_plausible rule_based_exact_under_overrides
rule_based_large_tiles variants_exact_on_awkward_grid variants_exact_on_primes_and_tails
variants_honour_leading_dimensions bind_probe_sees_every_thread bandwidth_probe_positive cold_cache_every_variant_exact
lockstep_same_plan_pairs_every_entry lockstep_entry_of_one_build_goes_alone
lockstep_other_order_measures_everything lockstep_slices_alternate_within_an_entry
sched_random_legal_schedules_are_exact sched_shipped_schedules_are_exact sched_row_blocks_are_exact
sched_typed_kernels_are_exact_in_each_form sched_tensorized_kernels_are_exact_on_emulated_tiles
calibration_result_decides_how_packed_reads_b calibration_measures_caches_and_measures_again_when_refused
calibration_cache_reads_only_a_small_regular_file packed_lowp_exact_on_two_threads
amx_emulated_exact_on_odd_shapes_two_threads amx_emulated_exact_on_bert_shapes
forkjoin_measures_both_counts forkjoin_times_a_line_between_two_cpus
packed_team_runs_every_part_once packed_team_barrier_holds_every_thread
packed_team_wakes_a_sleeping_worker packed_team_stands_aside_for_openmp
packed_team_serves_a_forked_child packed_exact_with_and_without_its_team
packed_team_stands_aside_on_fewer_cpus"
# A name here that no test has any more would leave its successor in: refuse.
for n in $NO_QEMU; do
    grep -q "^TEST($n)" tests/unit/*.c ||
        { echo "cross-aarch64: NO_QEMU names $n, which is no unit test (renamed?)" >&2; exit 1; }
done
names=$(sed -n 's/^TEST(\([a-z0-9_]*\)).*/\1/p' tests/unit/*.c | grep -vxF "$(echo $NO_QEMU | tr ' ' '\n')")
status=0
# packed's calibration forced as tests/run.sh forces it (the tests that
# measure it start threads and are in NO_QEMU).
timeout -s KILL 300 qemu-aarch64 "$BUILD/gemmbench-tests" $names \
    >"$tmp/unit.txt" 2>&1 || status=$?
summary=$(tail -n 1 "$tmp/unit.txt")
case $status:$summary in
0:"unit: "*" passed, 0 failed"*) echo "cross-aarch64: unit tests (all but $(echo $NO_QEMU | wc -w) threaded or timing ones): ${summary#unit: }" ;;
*)
    cat "$tmp/unit.txt" >&2
    if [ "$status" -eq 137 ]; then
        echo "cross-aarch64: unit tests under qemu killed after 300 s (a test that starts a thread belongs in NO_QEMU)" >&2
    else
        echo "cross-aarch64: unit tests under qemu: exit $status, $(grep -c '^FAIL' "$tmp/unit.txt") failed (above)" >&2
    fi
    exit 1 ;;
esac

python3 - "$tmp/all.json" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
arch = doc["machine"].get("arch")
packed = [r for r in doc["results"] if r["variant"] == "packed"]
isas = {r.get("effective_params", {}).get("isa") for r in packed}
if arch != "aarch64" or not packed or isas != {"portable"}:
    sys.exit(f"cross-aarch64: JSON says arch {arch!r}, packed isa {sorted(map(str, isas))}; "
             "expected aarch64 and portable")
print(f"cross-aarch64: JSON: arch {arch}, packed ran the portable path")
EOF
