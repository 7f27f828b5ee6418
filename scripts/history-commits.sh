#!/bin/sh
# history-commits.sh - a real history of this project: commits built and
# swept one after the other on this machine, each run added to a store with
# `history add --commit FULL_HASH --date COMMIT_DATE`, then `history changes`
# and `history html`.  The commits are every EVERY-th of the last COUNT x
# EVERY commits of REV, oldest first; each is checked out with `git worktree
# add` in a temporary folder, built with `make`, run from its own folder
# (its own variants and defaults), and removed.  The store is read by this
# checkout's binary: the old builds only make result files.
#
#   STORE=/tmp/hist COUNT=30 EVERY=8 sh scripts/history-commits.sh
#   STORE=/tmp/paired COUNT=40 REV=HEAD~66 ANCHOR=HEAD~105 sh scripts/history-commits.sh
#
# With ANCHOR (a commit), the history is paired: ANCHOR is built once and
# every commit is measured beside it, `gemmbench ab ANCHOR COMMIT $SWEEP`
# (this checkout's binary runs the rounds; each build runs in its own
# folder), and the pair added with `history add --anchor` (the value is
# COMMIT/ANCHOR per entry).  The anchor is never rebuilt during the run.
#
# environment:
#   STORE       the store to add to (required; created if missing)
#   COUNT       commits to build (default 30); EVERY the stride (default 1)
#               (whole numbers in decimal: 010 is ten)
#   REV         the newest commit (default HEAD)
#   SWEEP       the run's options (default below: 4 variants x 2 shapes,
#               one thread, 20 calls over 5 rounds)
#   ANCHOR      the anchor commit of a paired history (default: none,
#               an absolute history); SWEEP's default is then below
#   GEMMBENCH   the binary that keeps the store (default build/gemmbench)
#   JOBS        make's -j (default 2)
# ccache, when installed, builds each commit from the last one's objects
# (apt-get install ccache); on the 2-vCPU VM a commit took 1-14 s to build
# and 2-3 s to sweep, 60 commits 6 minutes.
# The page, STORE/history.html, is written again on every run (a page this
# script made before is replaced; anything but a regular file there is
# refused before any build).
# A commit that does not build or whose run fails is named and skipped; the
# script goes on.  Exit 0 when every commit was added and the page written,
# 1 when some were not or the page could not be, 2 on bad settings (one
# line, before any build).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
. "$here/lib.sh"
G=${GEMMBENCH:-$root/build/gemmbench}
COUNT=${COUNT:-30}
EVERY=${EVERY:-1}
REV=${REV:-HEAD}
JOBS=${JOBS:-2}
ANCHOR=${ANCHOR:-}
if [ -n "$ANCHOR" ]; then
    SWEEP=${SWEEP:---variant packed,onednn --kernel qkv,mlp_expand --m 16,128 --threads 2 --rounds 8}
else
    SWEEP=${SWEEP:---variant packed,rule_based,tvm_permute,vec_j --kernel qkv,mlp_expand --m 64 --reps 20 --rounds 5 --threads 1}
fi
GEMMBENCH_PEAK=${GEMMBENCH_PEAK:-quick}
GEMMBENCH_BANDWIDTH=${GEMMBENCH_BANDWIDTH:-quick}
export GEMMBENCH_PEAK GEMMBENCH_BANDWIDTH

# refuse WHY: the one line of a bad setting, exit 2.
refuse() {
    echo "gemmbench: history-commits: $1" >&2
    exit 2
}
# setting NAME MAX: the variable NAME read as a whole number from 1 to MAX,
# in decimal (lib.sh), or refused.
setting() {
    eval "_value=\$$1"
    _number=$(decimal "$_value" "$2") && [ "$_number" -ge 1 ] ||
        refuse "$1 must be a whole number from 1 to $2, not '$(shown "$_value")'"
    eval "$1=\$_number"
}

[ -n "${STORE:-}" ] || refuse "set STORE to the store's folder"
setting COUNT 100000
setting EVERY 100000
setting JOBS 1024
[ -x "$G" ] || refuse "$(shown "$G") is not built (run make)"
git -C "$root" rev-parse --verify -q "$REV^{commit}" >/dev/null 2>&1 ||
    refuse "REV '$(shown "$REV")' is not a commit of $(shown "$root")"
anchor_hash=
if [ -n "$ANCHOR" ]; then
    anchor_hash=$(git -C "$root" rev-parse --verify -q "$ANCHOR^{commit}" 2>/dev/null) ||
        refuse "ANCHOR '$(shown "$ANCHOR")' is not a commit of $(shown "$root")"
fi
case "$STORE" in /*) ;; *) STORE=$(pwd)/$STORE ;; esac
[ ! -e "$STORE" ] || [ -d "$STORE" ] || refuse "STORE $(shown "$STORE") is not a folder"
# The page is replaced (--force) only when it is a regular file: never a
# folder, a device, a FIFO or a link someone put in the store.
page=$STORE/history.html
if [ -L "$page" ] || { [ -e "$page" ] && [ ! -f "$page" ]; }; then
    refuse "$(shown "$page") is not a regular file: the page is not written over it"
fi

ccache=$(command -v ccache || true)
work=$(mktemp -d) || exit 3
cleanup() {
    git -C "$root" worktree remove --force "$work/tree" >/dev/null 2>&1
    git -C "$root" worktree remove --force "$work/anchor" >/dev/null 2>&1
    git -C "$root" worktree prune >/dev/null 2>&1
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

git -C "$root" rev-list --first-parent --max-count=$((COUNT * EVERY)) "$REV" |
    awk -v e="$EVERY" '(NR - 1) % e == 0' | tac >"$work/commits"
total=$(wc -l <"$work/commits")
echo "history-commits: $total commits of $(shown "$REV"), every $EVERY, oldest first; $(shown "$SWEEP")"
# wrapper NAME TREE: a script that runs TREE's build from TREE's folder (its
# own schedules and bench.conf), for ab, which runs each build by path.
wrapper() {
    printf '#!/bin/sh\ncd "%s" && exec ./build/gemmbench "$@"\n' "$2" >"$work/$1" &&
        chmod +x "$work/$1"
}
if [ -n "$anchor_hash" ]; then
    git -C "$root" worktree add --detach -q "$work/anchor" "$anchor_hash" 2>"$work/err" ||
        refuse "cannot check out the anchor: $(head -c 200 "$work/err")"
    make -C "$work/anchor" -j"$JOBS" ${ccache:+CC="ccache cc"} >"$work/make.log" 2>&1 &&
        [ -x "$work/anchor/build/gemmbench" ] ||
        { echo "history-commits: the anchor $anchor_hash does not build: $(tail -n 1 "$work/make.log")" >&2; exit 1; }
    wrapper anchor.sh "$work/anchor" || exit 3
    echo "history-commits: paired, every commit measured beside the anchor $anchor_hash"
fi
failed=0
i=0
while read -r c; do
    i=$((i + 1))
    short=$(git -C "$root" rev-parse --short "$c")
    date=$(git -C "$root" show -s --format=%cI "$c")
    git -C "$root" worktree add --detach -q "$work/tree" "$c" 2>"$work/err" || {
        echo "  $i/$total $short: worktree failed: $(head -c 200 "$work/err")"; failed=$((failed + 1)); continue; }
    t0=$(date +%s)
    if ! make -C "$work/tree" -j"$JOBS" ${ccache:+CC="ccache cc"} >"$work/make.log" 2>&1 ||
        [ ! -x "$work/tree/build/gemmbench" ]; then
        echo "  $i/$total $short: make failed: $(tail -n 1 "$work/make.log" | head -c 200)"
        failed=$((failed + 1))
    else
        t1=$(date +%s)
        if [ -n "$anchor_hash" ]; then
            # Side by side: ab of the anchor and this commit, both files kept.
            wrapper new.sh "$work/tree" &&
                "$G" ab "$work/anchor.sh" "$work/new.sh" $SWEEP --quiet --force \
                    -o "$work/pair" >"$work/ab.txt" 2>"$work/err"
            [ -s "$work/pair-new.json" ] && [ -s "$work/pair-old.json" ]
        else
            (cd "$work/tree" && ./build/gemmbench $SWEEP --quiet -o "$work/run.json" >/dev/null 2>"$work/err")
        fi
        if [ $? -eq 0 ]; then
            if if [ -n "$anchor_hash" ]; then
                   "$G" history add --store "$STORE" --commit "$c" --date "$date" \
                       --anchor-commit "$anchor_hash" --anchor "$work/pair-old.json" "$work/pair-new.json"
               else
                   "$G" history add --store "$STORE" --commit "$c" --date "$date" "$work/run.json"
               fi >/dev/null 2>"$work/err"; then
                echo "  $i/$total $short $date: built in $((t1 - t0)) s, swept in $(($(date +%s) - t1)) s"
            else
                echo "  $i/$total $short: history add refused its file: $(head -c 200 "$work/err")"
                failed=$((failed + 1))
            fi
        else
            echo "  $i/$total $short: the sweep failed: $(head -c 200 "$work/err")"
            failed=$((failed + 1))
        fi
        rm -f "$work/run.json" "$work/pair-old.json" "$work/pair-new.json"
    fi
    git -C "$root" worktree remove --force "$work/tree" >/dev/null 2>&1
done <"$work/commits"

"$G" history changes --store "$STORE"
status=$?
# The page of this run, never the last run's left in place.
if "$G" history html --store "$STORE" -o "$page" --force; then
    echo "history-commits: $(shown "$page")"
else
    echo "history-commits: the page was not written (history html failed)"
    status=2
fi
[ $status -le 1 ] || exit 1
[ $failed -eq 0 ] || { echo "history-commits: $failed of $total commits not added"; exit 1; }
exit 0
