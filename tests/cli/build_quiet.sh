#!/bin/sh
# build_quiet.sh - `make` prints one short line per step (`CC src/x.c`,
# `LD .../gemmbench`), `make V=1` the whole commands, and a compiler's
# warning is shown either way.  A whole build into $WORK with a stand-in
# compiler (it writes empty objects, fails every library probe and warns on
# one file): the Makefile's output is checked, not the compiler's work.
. tests/cli/lib.sh
if ! command -v make >/dev/null 2>&1 || ! command -v ar >/dev/null 2>&1 || [ ! -f Makefile ]; then
    skip build_quiet "needs make, ar and the source tree"
    exit 0
fi
cat >"$WORK/cc" <<'EOF'
#!/bin/sh
# A library probe (a program on stdin) fails: no reference library, no hwloc.
for a in "$@"; do [ "$a" = - ] && exit 1; done
out=
while [ $# -gt 0 ]; do
    case $1 in
    -o) out=$2; shift ;;
    src/base/text.c) echo "src/base/text.c:1:1: warning: a stand-in warning [-Wstand-in]" >&2 ;;
    esac
    shift
done
[ -n "$out" ] && : >"$out"
exit 0
EOF
chmod +x "$WORK/cc"
# build NAME MAKE-ARGS...: a fresh build of the whole tree into $WORK/NAME
# (stdout and stderr together in $WORK/NAME.log, as a terminal shows them).
build() {
    name=$1
    shift
    mkdir -p "$WORK/$name" && touch "$WORK/$name/.deps-ok" "$WORK/$name/.test-deps-ok"
    make --no-print-directory -j2 BUILD="$WORK/$name" CC="$WORK/cc" "$@" \
        "$WORK/$name/gemmbench" "$WORK/$name/gemmbench-tests" >"$WORK/$name.log" 2>&1
}
if build quiet; then
    echo "ok build_quiet_builds"
    longest=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$WORK/quiet.log")
    expect_true build_quiet_lines_short test "$longest" -le 120
    sources=$(ls src/*/*.c schedules/*.c tests/unit/*.c | wc -l)
    ccs=$(grep -c '^  CC      [a-z]' "$WORK/quiet.log")
    expect_true build_quiet_one_line_per_file test "$ccs" -eq "$sources"
    expect_grep build_quiet_names_file '^  CC      src/base/text.c$' "$WORK/quiet.log"
    expect_grep build_quiet_links '^  LD      .*/gemmbench$' "$WORK/quiet.log"
    expect_grep build_quiet_shows_warning 'warning: a stand-in warning' "$WORK/quiet.log"
    expect_true build_quiet_no_command sh -c "! grep -q -- ' -c src/' '$WORK/quiet.log'"
else
    echo "FAIL build_quiet_builds: $(tail -c 300 "$WORK/quiet.log")"
fi
if build verbose V=1; then
    expect_grep build_verbose_commands " -c src/base/text.c -o $WORK/verbose/src/base/text.o" "$WORK/verbose.log"
    expect_grep build_verbose_shows_warning 'warning: a stand-in warning' "$WORK/verbose.log"
    expect_true build_verbose_no_short_lines sh -c "! grep -q '^  CC      ' '$WORK/verbose.log'"
else
    echo "FAIL build_verbose_builds: $(tail -c 300 "$WORK/verbose.log")"
fi
