#!/bin/sh
# scripts_input.sh - the shell scripts take bad input as gemmbench does
# (issue 48, classes 6 and 9): one line naming the problem, exit 2, before
# any work; a user's text in it with its control characters escaped
# (scripts/lib.sh's shown, as gb_printable); never the shell's own error
# ("Illegal number", "can't shift") nor a number read as octal.  And
# history-commits.sh end to end with a stand-in make (it copies the binary
# under test, nothing is built): a rerun writes its page again.
# setup.sh and fresh-root.sh are only given arguments they refuse, so
# nothing is installed and no root is built, as root too.
. tests/cli/lib.sh
G=$GEMMBENCH
S=$(pwd)/scripts
cd "$WORK" || exit 1
E=$(printf 'x\033[31my\302\233z\nw')
SHOWN='x\\x1b\[31my\\xc2\\x9bz\\x0aw'
ESC=$(printf '\033')

# refused NAME CMD...: CMD exits 2 with one 'gemmbench...' line that shows
# $E escaped and holds no raw ESC.
refused() {
    name=$1
    shift
    expect_exit "$name" 2 "$@" || return
    expect_grep "${name}_shown" "$SHOWN'" "$WORK/err"
    if grep -q "$ESC" "$WORK/err"; then
        echo "FAIL ${name}_no_raw_escape: $(cat -v "$WORK/err" | head -c 300)"
    else
        echo "ok ${name}_no_raw_escape"
    fi
}

# setup.sh: an unknown argument.
refused setup_unknown_argument sh "$S/setup.sh" "$E"

# fresh-root.sh, outside any git checkout (GIT_DIR names none), so that an
# argument it took would stop at "not inside a git checkout", never build.
fr() { env GIT_DIR="$WORK/no-git" sh "$S/fresh-root.sh" "$@"; }
refused fresh_root_steps_escaped fr --steps "$E"
expect_exit fresh_root_steps_without_value 2 fr --steps
expect_grep fresh_root_steps_without_value_says "--steps needs a value" "$WORK/err"
expect_exit fresh_root_two_dirs 2 fr "$WORK/a" "$WORK/b"
expect_grep fresh_root_two_dirs_says "one DIR only" "$WORK/err"
refused fresh_root_unknown_option fr "--$E"
: >"$WORK/plain-file"
expect_exit fresh_root_dir_is_a_file 2 fr "$WORK/plain-file"
expect_grep fresh_root_dir_is_a_file_says "is not a folder" "$WORK/err"

# history-commits.sh: its settings, before any build.  make is a stand-in:
# with MAKE_FAILS it fails, else it "builds" by copying the binary under
# test into the tree.
mkdir -p "$WORK/bin"
cat >"$WORK/bin/make" <<'EOF'
#!/bin/sh
[ -z "${MAKE_FAILS:-}" ] || { echo "stand-in make: failing"; exit 1; }
while [ $# -gt 0 ]; do
    [ "$1" = -C ] && { dir=$2; shift; }
    shift
done
mkdir -p "$dir/build" && cp "$GEMMBENCH" "$dir/build/gemmbench"
EOF
chmod +x "$WORK/bin/make"
# A stand-in git in front of it, for counting commits only: `worktree add`
# fails at once (no tree checked out), the rest is git's own.
mkdir -p "$WORK/no-tree"
REAL_GIT=$(command -v git)
cat >"$WORK/no-tree/git" <<EOF
#!/bin/sh
prev=
for a; do
    [ "\$prev \$a" = "worktree add" ] && { echo "stand-in git: no tree"; exit 1; }
    prev=\$a
done
exec "$REAL_GIT" "\$@"
EOF
chmod +x "$WORK/no-tree/git"
# hc SETTING...: history-commits.sh with these settings and the stand-in.
hc() { env PATH="$WORK/bin:$PATH" GEMMBENCH="$G" "$@" sh "$S/history-commits.sh"; }
export STORE="$WORK/hc"
refused history_commits_rev_escaped hc REV="$E"
expect_exit history_commits_count_huge 2 hc COUNT=99999999999999999999
expect_grep history_commits_count_huge_says "COUNT must be a whole number" "$WORK/err"
expect_exit history_commits_every_09 2 hc EVERY=09x
expect_exit history_commits_jobs_zero 2 hc JOBS=0 COUNT=1 MAKE_FAILS=1
refused history_commits_jobs_escaped hc JOBS="$E"
# 010 is ten commits, not octal eight (no tree is checked out: no build).
have=$(git -C "$S/.." rev-list --first-parent --count HEAD 2>/dev/null || echo 0)
if [ "$have" -ge 10 ]; then
    expect_exit history_commits_count_decimal 1 hc PATH="$WORK/no-tree:$WORK/bin:$PATH" COUNT=010
    expect_grep history_commits_count_decimal_says "^history-commits: 10 commits of HEAD, every 1," \
        "$WORK/out"
else
    skip history_commits_count_decimal "needs 10 commits of history, this clone has $have"
fi
unset STORE

# A page that is not a regular file is refused before any build.
mkdir -p "$WORK/hp/history.html"
expect_exit history_commits_page_is_a_folder 2 hc STORE="$WORK/hp" COUNT=1
expect_grep history_commits_page_is_a_folder_says "history.html is not a regular file" "$WORK/err"

# End to end, twice on one store: the rerun writes the page again (it was
# left stale, exit 0).
SWEEP="--variant vec_j --shape 16x16x16 --reps 4 --rounds 2 --min-time 0 --threads 1"
expect_exit history_commits_runs 0 hc STORE="$WORK/hs" COUNT=1 SWEEP="$SWEEP"
echo stale >"$WORK/hs/history.html"
expect_exit history_commits_reruns 0 hc STORE="$WORK/hs" COUNT=1 SWEEP="$SWEEP"
if grep -q '<html' "$WORK/hs/history.html" && ! grep -qx stale "$WORK/hs/history.html"; then
    echo "ok history_commits_rerun_writes_the_page"
else
    echo "FAIL history_commits_rerun_writes_the_page: $(head -c 200 "$WORK/hs/history.html")"
fi
