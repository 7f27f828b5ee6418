# history_confirm.sh - gemmbench history confirm and bisect on a tiny git
# repository whose "builds" are wrappers around this binary, one of them
# slowed by scripts/scaleclock.c: the slowdown confirmed, the first slow
# commit named, worktrees removed, bad changes refused, one line outside a
# repository, SIGTERM during a build.  Here (make test-slow) rather than in
# tests/cli/history.sh: each confirm and bisect measures with ab, 16 rounds.
. tests/cli/lib.sh
G=$GEMMBENCH
ROOT=$(pwd)
cd "$WORK" || exit 1

# One real run, small and quick, 4 series (2 variants x 2 shapes): the
# points of the store are made from it (tests/data/history_series.py).
"$G" --variant vec_j,k8 --shape 16x64x64 --shape 32x64x64 --reps 10 --warmup 1 --rounds 5 \
    --min-time 0 --quiet -o base.json >/dev/null 2>run.err ||
    { echo "FAIL history_confirm_base_run: $(head -c 300 run.err)"; exit 0; }

# ---- confirm and bisect: a tiny git repository whose builds wrap $G ----
# Commits 0..8; from commit 5 on, its "build" runs $G with the monotonic
# clock 1.5 times as fast (scripts/scaleclock.c): every call times 1.5x.
# The store holds points for commits 0-3 and 7-10 (the step between 3 and
# 7, commits 4-6 never measured): bisect must name commit 5.
${CC:-cc} -O2 -shared -fPIC -o scaleclock.so "$ROOT/scripts/scaleclock.c" -ldl >cc.out 2>&1
if ! command -v git >/dev/null 2>&1 || ! [ -s scaleclock.so ]; then
    for c in history_confirm history_confirm_says history_bisect history_bisect_names \
        history_no_worktrees_left history_confirm_no_repo history_confirm_sigterm_in_build \
        history_sigterm_no_worktrees_left; do
        skip $c "needs git and a C compiler for scripts/scaleclock.c"
    done
    exit 0
fi
mkdir repo
(
    cd repo && git init -q && git config user.email t@t && git config user.name t &&
        for i in 0 1 2 3 4 5 6 7 8 9 10; do
            scale=1
            [ "$i" -ge 5 ] && scale=1.5
            printf '# commit %s\nall:\n\tsleep $${GB_TEST_BUILD_SLEEP:-0}\n\tmkdir -p build && printf "%%s\\n" "#!/bin/sh" "ASAN_OPTIONS=verify_asan_link_order=0 GB_CLOCK_SCALE=%s LD_PRELOAD=%s exec %s \\"\\$$@\\"" >build/gemmbench && chmod +x build/gemmbench\n' \
                "$i" "$scale" "$WORK/scaleclock.so" "$G" >Makefile
            git add Makefile && git commit -qm "commit $i" || exit 1
        done
) || echo "FAIL history_repo: cannot make the test repository"
hashes=$(git -C repo rev-list --reverse HEAD)
mkdir pts
set -- $hashes
i=0
for h in "$@"; do
    case $i in 4 | 5 | 6) ;; *)
        python3 "$ROOT/tests/data/history_series.py" base.json pts 1 0.001 \
            "$([ $i -ge 5 ] && echo 1.5 || echo 1)" 1 $i 0.01
        "$G" history add --store hc --commit "$h" --date "2026-02-01T00:$(printf %02d $i):00Z" pts/run01.json >/dev/null ||
            echo "FAIL history_confirm_store: $h"
        ;;
    esac
    i=$((i + 1))
done
before=$4 after=$8 first_slow=$6
# 16 rounds: with 8, the smallest signed-rank p (2/256) adjusted over 4
# entries is 0.016, never below 0.01; with 12, one round of 12 against the
# step (a busy moment) left bisect's middle commit unjudged, 1 run in 10.
ab="--reps 24 --warmup 1 --min-time 0 --rounds 16"
(cd repo && expect_exit history_confirm 1 "$G" history confirm --store ../hc "$before..$after" -- $ab)

expect_grep history_confirm_says "confirmed: AFTER is slower" "$WORK/out"
# The table prints 12 characters of a hash: bisect (and confirm, which
# resolves them the same way) takes them.
short_before=$(printf %.12s "$before") short_after=$(printf %.12s "$after")
(cd repo && expect_exit history_bisect 1 "$G" history bisect --store ../hc \
    "$short_before..$short_after" -- $ab)
expect_grep history_bisect_names "first slow commit: $first_slow" "$WORK/out"
n=$(git -C repo worktree list | wc -l)
[ "$n" -eq 1 ] && echo "ok history_no_worktrees_left" || echo "FAIL history_no_worktrees_left: $n"
# Outside a git repository: gemmbench's one line, no git message before it.
expect_exit history_confirm_no_repo 2 "$G" history confirm --store hc "$before..$after"
# SIGTERM to gemmbench alone while a commit builds: the build is told to
# stop too, not waited out (each build sleeps 60 s first here).
(cd repo && GB_TEST_BUILD_SLEEP=60 exec "$G" history confirm --store ../hc "$before..$after" \
    -- $ab) >term.out 2>term.err </dev/null &
pid=$!
i=0
while [ $i -lt 300 ] && ! grep -q building term.err 2>/dev/null; do
    sleep 0.1
    i=$((i + 1))
done
sleep 0.5
kill -TERM $pid
began=$(date +%s)
wait $pid
rc=$?
took=$(($(date +%s) - began))
if [ $rc -eq 130 ] && [ $took -lt 30 ]; then
    echo "ok history_confirm_sigterm_in_build"
else
    echo "FAIL history_confirm_sigterm_in_build: exit $rc after $took s: $(head -c 300 term.err)"
fi
n=$(git -C repo worktree list | wc -l)
[ "$n" -eq 1 ] && echo "ok history_sigterm_no_worktrees_left" ||
    echo "FAIL history_sigterm_no_worktrees_left: $n"
(cd repo && expect_exit history_confirm_unknown 2 "$G" history confirm --store ../hc "$after..$before")
(cd repo && expect_exit history_confirm_bad 2 "$G" history confirm --store ../hc "nodots")
