#!/bin/sh
# bench-ceiling.sh - the ceiling benchmark (results/notes/ceiling.md): packed per
# call, packed with B pre-packed, and every reference library the build found
# (openblas, blis, onednn), interleaved in ONE run on the 24 BERT shapes
# (shapes outer, variants inner, so all of them see the same machine state),
# 2 threads, median of 50 calls taken in 10 rounds of 5 (the sweep ten
# times: a second that stalls one entry's calls cannot decide its median,
# where 50 calls in a row, 0.002-0.2 s, can; the report also gives the
# median of the per-round ratios), threads bound one to a core
# (--bind close: on a VM whose scheduler at times runs both threads of an
# unbound run on one CPU for a whole round, the worst shape was a stall in
# every unbound run; the openblas variant places OpenBLAS's own threads
# likewise); then the same variants on one
# thread at mlp_expand M=384, in ROUNDS rounds of 10 calls, each round after
# a `gemmbench info` whose burst and sustained peaks (src/measure/peak.c) are kept
# next to the round's JSON: the sustained figures see the same minutes as
# the GEMMs.  Prints the kernels each library chose (and the variable that
# forced them, if one did), per-shape medians, the geometric-mean ratios to onednn
# and to the measured peak, and the one-thread medians against the burst
# and the sustained peaks, read back from the files the runs wrote
# (scripts/ceiling_report.py).
#
# Usage: scripts/bench-ceiling.sh [extra gemmbench options]
#   e.g. scripts/bench-ceiling.sh --reps 10 --warmup 2    (a quick look)
# Environment: GEMMBENCH (default build/gemmbench), OUTDIR (default results),
# ROUNDS (default 5), ABLATIONS (packed --param sets, space-separated, e.g.
# "bpack=panel apack=whole": each runs as an entry of its own in the 2-thread
# run, beside packed's defaults and the libraries, which run once), BENCH_BIND
# (--bind for both runs: close, the default, spread or none; set but empty,
# no --bind: the runtimes' own placement, or OMP_PROC_BIND's), SHAPES (the
# 2-thread run's shapes, default the 24 BERT ones: --kernel
# qkv,mlp_expand,mlp_reduce --m 16,32,64,96,128,192,256,384), ONE_SHAPE (the
# one-thread rounds' shape, default --kernel mlp_expand --m 384); e.g.
# SHAPES="--shape 16x16x16" ONE_SHAPE="--shape 16x16x16" for a smoke test.
set -e
G=${GEMMBENCH:-build/gemmbench}
OUTDIR=${OUTDIR:-results}
[ -x "$G" ] || { echo "bench-ceiling: $G not built (run make)" >&2; exit 2; }
command -v python3 >/dev/null 2>&1 || { echo "bench-ceiling: needs python3" >&2; exit 2; }
mkdir -p "$OUTDIR"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
two="$OUTDIR/ceiling-$stamp-2t.json"
ROUNDS=${ROUNDS:-5}
bind_policy=${BENCH_BIND-close}
bind=${bind_policy:+--bind=$bind_policy}
shapes=${SHAPES:---kernel qkv,mlp_expand,mlp_reduce --m 16,32,64,96,128,192,256,384}
one_shape=${ONE_SHAPE:---kernel mlp_expand --m 384}
case $ROUNDS in ''|*[!0-9]*|0) echo "bench-ceiling: ROUNDS must be a positive integer" >&2; exit 2;; esac

refs=$("$G" --list | awk '$2 == "reference" { printf ",%s", $1 }')
# The empty set is packed's defaults (and the one run of every library).
abl=""
if [ -n "${ABLATIONS:-}" ]; then
    abl="--param defaults"
    for a in $ABLATIONS; do abl="$abl --param=$a"; done
fi
[ -n "$refs" ] || echo "bench-ceiling: no reference library in this build; packed alone" >&2

# --max-time high enough that every measurement keeps all its repetitions.
# No --cooldown: the one library whose threads spin after a call, OpenBLAS,
# sleeps that off in its variant's release() (schedules/reference_openblas.c).
"$G" --variant "packed$refs" $shapes \
    --threads 2 --warmup 5 --reps 50 --rounds 10 --max-time 60 --prepack \
    $bind --quiet $abl -o "$two" "$@" >/dev/null
round=1
while [ "$round" -le "$ROUNDS" ]; do
    one="$OUTDIR/ceiling-$stamp-1t-r$round.json"
    "$G" info >"${one%.json}.info"
    "$G" --variant "packed$refs" $one_shape \
        --threads 1 --warmup 5 --reps 10 --max-time 60 --prepack \
        $bind --quiet -o "$one" "$@" >/dev/null
    round=$((round + 1))
done
python3 "$(dirname "$0")/ceiling_report.py" "$two" "$OUTDIR/ceiling-$stamp-1t-r"*.json
