#!/usr/bin/env bash
# ci-sweep.sh - a performance gate for CI: a quick sweep of every variant,
# either against the base commit, built here and measured side by side with
# this build by `gemmbench ab` (the gate to use), or against a stored
# baseline result file with `gemmbench compare` (for diffs over time and
# between machines).  The exit status is ab's or compare's.
#
# usage: scripts/ci-sweep.sh BASELINE.json [gemmbench args...] [-- compare args...]
#        scripts/ci-sweep.sh --base REV [gemmbench args...] [-- ab args...]
#        scripts/ci-sweep.sh --history DIR --anchor REV [gemmbench args...] [-- changes args...]
#        scripts/ci-sweep.sh --history DIR [gemmbench args...] [-- changes args...]
#
#   --history DIR --anchor REV   the gate to keep: REV (a commit that has
#                   `gemmbench ab`) is built once into
#                   $CI_SWEEP_ANCHORS/HASH (default ~/.cache/gemmbench/anchors)
#                   and kept; this build is measured against it with
#                   `gemmbench ab ANCHOR THIS --all --quick --rounds 8
#                   --reps 40 --min-reps 8` and the pair added as one paired
#                   point (`history add --anchor`), then `history changes`
#                   judges the ratios to the anchor: a machine's slow spell
#                   hits both builds and cancels.  Keep one anchor for months;
#                   to move it, run once with the old anchor on the new
#                   anchor's commit (the overlap run that joins the epochs),
#                   then use the new one
#
#   --history DIR   the sweep below is added to the history store DIR
#                   (`gemmbench history add`, keyed by this build's commit
#                   and date) and `gemmbench history changes --store DIR`
#                   judges every series over the commits kept there: exit 1
#                   on an unannotated slowdown past --threshold (5%); commit
#                   DIR to a branch to keep it (src/analysis/history.md)
#
#   --base REV      a git revision (e.g. origin/main, HEAD~1): checked out in
#                   a temporary worktree, built there with this Makefile's
#                   defaults, and run as OLD against $GEMMBENCH as NEW with
#                   `gemmbench ab OLD NEW --all --quick --reps 60 --min-reps 20`
#                   (20 rounds, threshold 3%, adjusted p: src/analysis/compare.md).  REV must
#                   have `gemmbench ab` (--round, --peak) itself.
#
#   BASELINE.json   a result file of the same sweep on the same kind of machine;
#                   make it once with `build/gemmbench --all --quick
#                   --reps 20 --rounds 5 --min-reps 5 -o FILE`
#                   (plus the same gemmbench args) and keep it
#   gemmbench args  appended to `gemmbench --all --quick --reps 20
#                   --rounds 5 --min-reps 5`, so they win: `--reps 40
#                   --max-time 2` gives the U test more samples.
#                   --rounds 5: each entry's samples come from five passes
#                   over the sweep, not from one moment of it; on a shared
#                   machine that is what keeps two runs of the same code
#                   from differing (src/analysis/compare.md).  --min-reps 5:
#                   --quick alone lets slow entries stop at 3 samples, too
#                   few for compare's verdict
#   compare args    after `--`, e.g. `-- --threshold 10 --format md`; they
#                   come after the script's own `--threshold 15`, so they win
#
# With a stored baseline the gate's threshold is 15%, not compare's default: on a shared
# machine two runs of the same code, even in five rounds, still drift by 5-13%
# on a few entries (a 156-entry A/A pair failed 5 entries at 5%, none at 15%),
# while a real slowdown (two busy loops) failed 130 of 156 at 15%
# (results/notes/compare.md).  CI_SWEEP_THRESHOLD sets another default.
#
# environment:
#   GEMMBENCH     the binary (default: build/gemmbench beside scripts/)
#   CI_SWEEP_THRESHOLD  the gate's threshold in percent (default 15)
#   CI_SWEEP_OUT  the new sweep's file (default results/ci-sweep.json,
#                 overwritten by every run); with --base, the prefix of ab's
#                 two files (default results/ci-ab: -old.json, -new.json)
#
# exit status: compare's: 0 no entry significantly slower beyond the
# threshold, 1 at least one (the table lists them), 2 bad input or nothing
# in common.  When the sweep itself fails (1 a check failed, 2 usage, 3 I/O,
# 130 interrupted) its status wins, after comparing what it did write.
#
# examples:
#   make && scripts/ci-sweep.sh --base origin/main -- --format md
#   make && scripts/ci-sweep.sh results/baseline-ci.json -- --format md
set -u

here=$(cd "$(dirname "$0")" && pwd)
GEMMBENCH=${GEMMBENCH:-$here/../build/gemmbench}
out=${CI_SWEEP_OUT:-results/ci-sweep.json}

if [ $# -lt 1 ]; then
    echo "gemmbench: ci-sweep: usage: $0 BASELINE.json [gemmbench args...] [-- compare args...]" >&2
    exit 2
fi
if [ "$1" = -h ] || [ "$1" = --help ]; then
    sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit 0
fi
# The arguments before `--` go to the sweep (sweep_args), those after it to
# ab or compare (tail_args).
split_args() {
    sweep_args=()
    tail_args=()
    local target=sweep arg
    for arg in "$@"; do
        if [ "$target" = sweep ] && [ "$arg" = -- ]; then
            target=tail
        elif [ "$target" = sweep ]; then
            sweep_args+=("$arg")
        else
            tail_args+=("$arg")
        fi
    done
}

if [ "$1" = --base ]; then
    [ $# -ge 2 ] || { echo "gemmbench: ci-sweep: --base needs a git revision" >&2; exit 2; }
    rev=$2
    shift 2
    [ -x "$GEMMBENCH" ] || { echo "gemmbench: ci-sweep: $GEMMBENCH is not built (run make first)" >&2; exit 2; }
    repo=$(cd "$here/.." && pwd)
    tmp=$(mktemp -d) || exit 3
    trap 'git -C "$repo" worktree remove --force "$tmp/src" >/dev/null 2>&1; rm -rf "$tmp"' EXIT
    if ! git -C "$repo" worktree add --detach --quiet "$tmp/src" "$rev"; then
        echo "gemmbench: ci-sweep: cannot check out '$rev'" >&2
        exit 2
    fi
    if ! make -C "$tmp/src" -j2 BUILD="$tmp/build" all >"$tmp/build.log" 2>&1; then
        tail -20 "$tmp/build.log" >&2
        echo "gemmbench: ci-sweep: the base revision '$rev' does not build" >&2
        exit 2
    fi
    split_args "$@"
    "$GEMMBENCH" ab "$tmp/build/gemmbench" "$GEMMBENCH" --all --quick --reps 60 --min-reps 20 \
        --output "${CI_SWEEP_OUT:-results/ci-ab}" --force --quiet "${sweep_args[@]}" "${tail_args[@]}"
    exit $?
fi
if [ "$1" = --history ] && [ "${3:-}" = --anchor ]; then
    [ $# -ge 4 ] || { echo "gemmbench: ci-sweep: --anchor needs a git revision" >&2; exit 2; }
    store=$2
    rev=$4
    shift 4
    [ -x "$GEMMBENCH" ] || { echo "gemmbench: ci-sweep: $GEMMBENCH is not built (run make first)" >&2; exit 2; }
    repo=$(cd "$here/.." && pwd)
    hash=$(git -C "$repo" rev-parse --verify --quiet "$rev^{commit}") ||
        { echo "gemmbench: ci-sweep: '$(printf '%s' "$rev" | tr -d '\000-\037\177')' is not a commit of $repo" >&2; exit 2; }
    # The anchor is built once per commit and kept: every later run measures
    # against the same binary (rebuilding it would move code layout).
    anchors=${CI_SWEEP_ANCHORS:-${XDG_CACHE_HOME:-$HOME/.cache}/gemmbench/anchors}
    anchor=$anchors/$hash/gemmbench
    if [ ! -x "$anchor" ]; then
        mkdir -p "$anchors" || exit 3
        tmp=$(mktemp -d "$anchors/build.XXXXXX") || exit 3
        trap 'git -C "$repo" worktree remove --force "$tmp/src" >/dev/null 2>&1; rm -rf "$tmp"' EXIT
        git -C "$repo" worktree add --detach --quiet "$tmp/src" "$hash" ||
            { echo "gemmbench: ci-sweep: cannot check out $hash" >&2; exit 2; }
        if ! make -C "$tmp/src" -j2 BUILD="$tmp/build" all >"$tmp/build.log" 2>&1; then
            tail -20 "$tmp/build.log" >&2
            echo "gemmbench: ci-sweep: the anchor $hash does not build" >&2
            exit 2
        fi
        mkdir -p "$tmp/keep" && cp "$tmp/build/gemmbench" "$tmp/keep/gemmbench" &&
            { [ -d "$anchors/$hash" ] || mv "$tmp/keep" "$anchors/$hash"; } || exit 3
        git -C "$repo" worktree remove --force "$tmp/src" >/dev/null 2>&1
        rm -rf "$tmp"
        trap - EXIT
    fi
    split_args "$@"
    tmp=$(mktemp -d) || exit 3
    trap 'rm -rf "$tmp"' EXIT
    # Side by side, round by round: a slow spell of the machine hits both.
    "$GEMMBENCH" ab "$anchor" "$GEMMBENCH" --all --quick --rounds 8 --reps 40 --min-reps 8 \
        --output "$tmp/pair" --force --quiet "${sweep_args[@]}" >"$tmp/ab.txt"
    ab_status=$?
    [ -s "$tmp/pair-new.json" ] || { cat "$tmp/ab.txt"; exit $((ab_status > 1 ? ab_status : 3)); }
    "$GEMMBENCH" history add --store "$store" --anchor-commit "$hash" \
        --anchor "$tmp/pair-old.json" "$tmp/pair-new.json" || exit $?
    "$GEMMBENCH" history changes --store "$store" "${tail_args[@]}"
    changes_status=$?
    [ "$ab_status" -gt 1 ] && exit "$ab_status"
    exit "$changes_status"
fi
if [ "$1" = --history ]; then
    [ $# -ge 2 ] || { echo "gemmbench: ci-sweep: --history needs a store directory" >&2; exit 2; }
    store=$2
    shift 2
    [ -x "$GEMMBENCH" ] || { echo "gemmbench: ci-sweep: $GEMMBENCH is not built (run make first)" >&2; exit 2; }
    split_args "$@"
    tmp=$(mktemp -d) || exit 3
    trap 'rm -rf "$tmp"' EXIT
    "$GEMMBENCH" --all --quick --reps 20 --rounds 5 --min-reps 5 --quiet --output "$tmp/sweep.json" \
        "${sweep_args[@]}" >/dev/null
    sweep_status=$?
    [ -s "$tmp/sweep.json" ] || exit $((sweep_status ? sweep_status : 3))
    "$GEMMBENCH" history add --store "$store" "$tmp/sweep.json" || exit $?
    "$GEMMBENCH" history changes --store "$store" "${tail_args[@]}"
    changes_status=$?
    [ "$sweep_status" -ne 0 ] && exit "$sweep_status"
    exit "$changes_status"
fi
baseline=$1
shift
if [ ! -x "$GEMMBENCH" ]; then
    echo "gemmbench: ci-sweep: $GEMMBENCH is not built (run make first)" >&2
    exit 2
fi

split_args "$@"
compare_args=("${tail_args[@]}")

mkdir -p "$(dirname "$out")" || exit 3
# A sweep that fails before measuring must not leave the last run's file.
rm -f "$out"
"$GEMMBENCH" --all --quick --reps 20 --rounds 5 --min-reps 5 --quiet --output "$out" "${sweep_args[@]}" >/dev/null
sweep_status=$?
if [ ! -s "$out" ]; then
    # gemmbench has said why on stderr; a silent failure still gets a line.
    [ "$sweep_status" -eq 0 ] && echo "gemmbench: ci-sweep: the sweep wrote no $out" >&2
    [ "$sweep_status" -eq 0 ] && exit 3
    exit "$sweep_status"
fi
"$GEMMBENCH" compare --threshold "${CI_SWEEP_THRESHOLD:-15}" "${compare_args[@]}" "$baseline" "$out"
compare_status=$?
if [ "$sweep_status" -ne 0 ]; then
    echo "gemmbench: ci-sweep: the sweep itself failed (exit $sweep_status)" >&2
    exit "$sweep_status"
fi
exit "$compare_status"
