#!/bin/sh
# aa-defaults.sh - does the default sweep compare with itself?  Runs PAIRS
# pairs of back-to-back sweeps of one build at bench.conf's settings (only
# the selection narrowed, by VARIANTS and KERNELS), compares each pair with
# `gemmbench compare` at its default gate, and prints one line per pair and a
# summary `A/A: P of N pairs passed`.  Exit 0 when at least NEED pairs passed
# (default: all of them), 1 when fewer did, 2 or 3 when a sweep or compare
# could not run (its own exit status).
#
# usage: scripts/aa-defaults.sh OUTDIR [PAIRS=5] [NEED=PAIRS] [-- RUN OPTIONS]
# environment: GEMMBENCH (build/gemmbench), CONFIG (bench.conf),
#   VARIANTS (all), KERNELS (bench.conf's).  Extra run options after `--`
#   (say --rounds 1, to see what the study's method costs).
set -u
out=${1:?usage: scripts/aa-defaults.sh OUTDIR [PAIRS] [NEED] [-- RUN OPTIONS]}
shift
pairs=5
[ $# -gt 0 ] && [ "$1" != -- ] && { pairs=$1; shift; }
need=$pairs
[ $# -gt 0 ] && [ "$1" != -- ] && { need=$1; shift; }
[ $# -gt 0 ] && [ "$1" = -- ] && shift
here=$(cd "$(dirname "$0")" && pwd)
G=${GEMMBENCH:-$here/../build/gemmbench}
config=${CONFIG:-$here/../bench.conf}
mkdir -p "$out" || exit 3

select=""
[ -n "${VARIANTS:-}" ] && select="$select --variant $VARIANTS"
[ -n "${KERNELS:-}" ] && select="$select --kernel $KERNELS"
passed=0
p=1
while [ "$p" -le "$pairs" ]; do
    for side in a b; do
        # shellcheck disable=SC2086 # the selection is words by design
        "$G" --config "$config" $select "$@" --quiet --force -o "$out/$p-$side.json" \
            >/dev/null || exit $?
    done
    "$G" compare "$out/$p-a.json" "$out/$p-b.json" >"$out/$p-compare.txt" 2>&1
    status=$?
    case $status in
        0) passed=$((passed + 1)) ;;
        1) ;;
        *) cat "$out/$p-compare.txt" >&2; exit $status ;;
    esac
    # compare's own verdict: "gate: pass: ..." or "gate: FAIL: N of M entries ..."
    echo "pair $p: $(grep '^gate: [pF]' "$out/$p-compare.txt")"
    p=$((p + 1))
done
echo "A/A: $passed of $pairs pairs passed"
[ "$passed" -ge "$need" ]
