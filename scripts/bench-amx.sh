#!/bin/sh
# bench-amx.sh - amx against oneDNN's two paths (schedules/AMX.md): what the
# tiles buy.  oneDNN reads ONEDNN_MAX_CPU_ISA once, when it loads, so its
# two paths are two processes:
#   1. amx, the language's schedules/amx_bf16.sched (bf16; sched:amx_bf16)
#      and onednn as oneDNN chooses by default (AMX where the CPU has it
#      and Linux grants the tiles), bf16 and u8s8, B pre-packed too;
#   2. onednn alone held to AVX-512 (ONEDNN_MAX_CPU_ISA=AVX512_CORE_BF16:
#      vdpbf16ps and vpdpbusd, no tiles), the same shapes and settings;
# then `gemmbench report default=1 avx512=2` side by side (avx512's time
# over the default's per entry) and each run's "impl" lines: the oneDNN
# kernel each path ran (brg:avx512_core_amx... against brg:avx512_core_bf16
# where the tiles ran).  On a CPU without AMX amx is skipped with its
# reason and both paths are the same kernel, which the impl lines show.
# The two runs follow each other, not interleaved: for a judged comparison
# of the two paths, `gemmbench ab build/gemmbench scripts/onednn-avx512.sh
# --variant onednn --dtype bf16,u8s8 --prepack ...` runs them in turns.
#
# Usage: scripts/bench-amx.sh [extra gemmbench options]
# Environment: GEMMBENCH (default build/gemmbench), OUTDIR (default
# results), THREADS (default 2), SHAPES (default the 24 BERT shapes), e.g.
# SHAPES="--shape 16x64x96" for a smoke test.
set -e
G=${GEMMBENCH:-build/gemmbench}
OUTDIR=${OUTDIR:-results}
[ -x "$G" ] || { echo "bench-amx: $G not built (run make)" >&2; exit 2; }
"$G" --list | grep -q '^onednn ' || { echo "bench-amx: this build has no oneDNN (libdnnl-dev)" >&2; exit 2; }
shapes=${SHAPES:---kernel qkv,mlp_expand,mlp_reduce --m 16,32,64,96,128,192,256,384}
threads=${THREADS:-2}
case $threads in ''|*[!0-9]*|0) echo "bench-amx: THREADS must be a positive integer" >&2; exit 2;; esac
mkdir -p "$OUTDIR"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
tiles="$OUTDIR/amx-$stamp-default.json"
avx512="$OUTDIR/amx-$stamp-avx512.json"
settings="--quiet --dtype bf16,u8s8 --prepack --threads $threads --bind close --reps 50 --rounds 10 --warmup 5 --max-time 60"
# shellcheck disable=SC2086 # shapes and settings are lists of options
"$G" $settings --variant amx,onednn --schedule "$(dirname "$0")/../schedules/amx_bf16.sched" \
    $shapes -o "$tiles" "$@" >"$OUTDIR/amx-$stamp-default.txt"
# shellcheck disable=SC2086
ONEDNN_MAX_CPU_ISA=AVX512_CORE_BF16 "$G" $settings --variant onednn $shapes -o "$avx512" "$@" \
    >"$OUTDIR/amx-$stamp-avx512.txt"
"$G" report "default=$tiles" "avx512=$avx512"
echo
for path in default avx512; do
    sed -n -e "s/^impl: /$path impl: /p" -e "s/^skipped: /$path skipped: /p" \
        "$OUTDIR/amx-$stamp-$path.txt"
done
echo "bench-amx: $tiles $avx512"
