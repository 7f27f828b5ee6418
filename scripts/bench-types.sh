#!/bin/sh
# bench-types.sh - packed against oneDNN in every type (results/notes/
# low-precision.md): packed and oneDNN, per call and with B pre-packed, in
# f32, bf16 and u8s8, interleaved in ONE run on the 24 BERT shapes (shapes
# outer, then the types, then the variants: a shape's twelve entries see the
# same machine state), threads bound one to a core, 50 calls in 10 rounds;
# then the same at 1 thread.  scripts/types_report.py prints, per type, each
# shape's time over oneDNN's (ratio of medians and median per-round ratio),
# the %peak of the type's own measured peak, the speed over f32 packed, and
# their geometric means.
#
# Usage: scripts/bench-types.sh [extra gemmbench options]
# Environment: GEMMBENCH (default build/gemmbench), OUTDIR (default results),
# THREADS (default "2 1": one run per count, in that order), SHAPES (default
# the 24 BERT shapes), e.g. SHAPES="--shape 16x64x96" THREADS=1 for a smoke test.
set -e
G=${GEMMBENCH:-build/gemmbench}
OUTDIR=${OUTDIR:-results}
[ -x "$G" ] || { echo "bench-types: $G not built (run make)" >&2; exit 2; }
command -v python3 >/dev/null 2>&1 || { echo "bench-types: needs python3" >&2; exit 2; }
"$G" --list | grep -q '^onednn ' || { echo "bench-types: this build has no oneDNN (libdnnl-dev)" >&2; exit 2; }
shapes=${SHAPES:---kernel qkv,mlp_expand,mlp_reduce --m 16,32,64,96,128,192,256,384}
threads=${THREADS:-2 1}
for t in $threads; do
    case $t in ''|*[!0-9]*|0) echo "bench-types: THREADS must be positive integers" >&2; exit 2;; esac
done
mkdir -p "$OUTDIR"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
for t in $threads; do
    out="$OUTDIR/types-$stamp-${t}t.json"
    # shellcheck disable=SC2086 # shapes is a list of options
    "$G" --quiet --dtype f32,bf16,u8s8 --variant packed,onednn --prepack $shapes \
        --threads "$t" --bind close --reps 50 --rounds 10 --warmup 5 --max-time 60 \
        -o "$out" "$@" >/dev/null
    python3 "$(dirname "$0")/types_report.py" "$out"
    echo "bench-types: $out"
done
