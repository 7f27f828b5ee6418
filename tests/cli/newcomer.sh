#!/bin/sh
# newcomer.sh - a reference library installed or removed after a build adds or
# drops its variant at the next make, without `make clean`: the Makefile keeps
# what its probes found in BUILD/.reference, rewritten only when it changes,
# and the variant table and the link depend on it.  Checked with `make -n` on
# a copy of the build directory (nothing is compiled).
. tests/cli/lib.sh
build=$(dirname "$GEMMBENCH")
if ! command -v make >/dev/null 2>&1 || [ ! -f "$build/.reference" ] || [ ! -f Makefile ]; then
    skip newcomer "needs make and a build directory with its .reference stamp"
    exit 0
fi
cp -a "$build/." "$WORK/b"
compiles() { make -n BUILD="$WORK/b" "$@" all 2>/dev/null | grep -c -- "-c schedules/table.c"; }
# Nothing changed: the table is not rebuilt.
expect_true newcomer_same_no_rebuild test "$(compiles)" = 0
if grep -q GB_HAVE_OPENBLAS "$WORK/b/.reference" || grep -q GB_HAVE_BLIS "$WORK/b/.reference" ||
   grep -q GB_HAVE_ONEDNN "$WORK/b/.reference"; then
    # The libraries "go" (REFERENCE= probes none): the table is rebuilt, the
    # binary relinked, and the stamp says so.
    expect_true newcomer_gone_rebuilds test "$(compiles REFERENCE=)" = 1
    expect_true newcomer_gone_relinks sh -c "make -n BUILD='$WORK/b' REFERENCE= all 2>/dev/null | grep -q -- '-o $WORK/b/gemmbench '"
    expect_true newcomer_gone_stamp sh -c "! grep -q GB_HAVE_OPENBLAS '$WORK/b/.reference' && ! grep -q GB_HAVE_ONEDNN '$WORK/b/.reference'"
    # They come back: rebuilt again.
    expect_true newcomer_back_rebuilds test "$(compiles)" = 1
else
    skip newcomer_gone_rebuilds "this build found no reference library"
fi
# Every source that tests a GB_HAVE_* macro, not only the variant table, is
# compiled again when the probes' findings change (here: hwloc and the
# libraries "go"); a topology.o kept from a build without hwloc, linked into
# a test binary compiled with it, failed topology_describes_this_machine.
if grep -q GB_HAVE_ "$WORK/b/.reference"; then
    plan=$(make -n BUILD="$WORK/b" REFERENCE= HWLOC= all "$WORK/b/gemmbench-tests" 2>/dev/null)
    missing=""
    for f in $(grep -l 'GB_HAVE_' src/*/*.c schedules/*.c tests/unit/*.c); do
        printf '%s\n' "$plan" | grep -q -- "-c $f " || missing="$missing $f"
    done
    expect_true newcomer_every_have_user_rebuilds test -z "$missing"
else
    skip newcomer_every_have_user_rebuilds "this build found nothing"
fi
