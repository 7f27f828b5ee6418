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
# plan NAME MAKE-ARGS...: `make -n` of the copy into $WORK/plan; a FAIL
# naming NAME (and status 1) when make itself fails, whose empty plan would
# otherwise read as "nothing to compile".
plan() {
    name=$1
    shift
    if make -n BUILD="$WORK/b" "$@" >"$WORK/plan" 2>"$WORK/plan.err"; then
        return 0
    fi
    echo "FAIL $name: make -n $* failed: $(tail -c 300 "$WORK/plan.err")"
    return 1
}
compiles() { grep -c -- "-c schedules/table.c" "$WORK/plan"; }
# Nothing changed: the table is not rebuilt.  "The same" is what made the
# stamp: the libraries it names (a build made with REFERENCE=, on a machine
# that has them, names none) and hwloc if it found it.
stamp=$(cat "$WORK/b/.reference")
same_ref=
for lib in openblas blis onednn libxsmm; do
    case " $stamp " in *" -DGB_HAVE_$(echo $lib | tr a-z A-Z) "*) same_ref="$same_ref${same_ref:+ }$lib" ;; esac
done
case " $stamp " in *" -DGB_HAVE_HWLOC "*) same_hwloc=hwloc ;; *) same_hwloc= ;; esac
plan newcomer_same_no_rebuild REFERENCE="$same_ref" HWLOC="$same_hwloc" all &&
    expect_true newcomer_same_no_rebuild test "$(compiles)" = 0
if [ -n "$same_ref" ]; then
    # The libraries "go" (REFERENCE= probes none): the table is rebuilt, the
    # binary relinked, and the stamp says so.
    if plan newcomer_gone_rebuilds REFERENCE= HWLOC="$same_hwloc" all; then
        expect_true newcomer_gone_rebuilds test "$(compiles)" = 1
        expect_true newcomer_gone_relinks grep -q -- "-o $WORK/b/gemmbench " "$WORK/plan"
        expect_true newcomer_gone_stamp sh -c "! grep -q GB_HAVE_OPENBLAS '$WORK/b/.reference' && ! grep -q GB_HAVE_BLIS '$WORK/b/.reference' && ! grep -q GB_HAVE_ONEDNN '$WORK/b/.reference'"
    fi
    # They come back: rebuilt again.
    plan newcomer_back_rebuilds REFERENCE="$same_ref" HWLOC="$same_hwloc" all &&
        expect_true newcomer_back_rebuilds test "$(compiles)" = 1
else
    skip newcomer_gone_rebuilds "this build has no reference library (built with REFERENCE=, or none installed)"
fi
# Every source that tests a GB_HAVE_* macro, not only the variant table, is
# compiled again when the probes' findings change (here: hwloc and the
# libraries "go"); a topology.o kept from a build without hwloc, linked into
# a test binary compiled with it, failed topology_describes_this_machine.
# (The copy's stamp is the build's again: the last plan above used its settings.)
if [ -n "$same_ref$same_hwloc" ]; then
    if plan newcomer_every_have_user_rebuilds REFERENCE= HWLOC= all "$WORK/b/gemmbench-tests"; then
        missing=""
        for f in $(grep -l 'GB_HAVE_' src/*/*.c schedules/*.c tests/unit/*.c); do
            grep -q -- "-c $f " "$WORK/plan" || missing="$missing $f"
        done
        expect_true newcomer_every_have_user_rebuilds test -z "$missing"
    fi
else
    skip newcomer_every_have_user_rebuilds "this build found nothing (no library, no hwloc)"
fi
