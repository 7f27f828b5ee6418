#!/bin/sh
# references.sh - what a run, `report` and the plots say about the reference
# libraries' kernels (src/files/libraries.c), and --blis-arch: BLIS's
# sub-configuration chosen by name for a run, refused in one line when this
# BLIS lacks it, recorded in the file.  OPENBLAS_CORETYPE is never set here:
# what OpenBLAS chose is read, not changed.
. tests/cli/lib.sh
G=$GEMMBENCH
ROOT=$(pwd)
cd "$WORK" || exit 1
one="--shape 8x8x8 --reps 1 --warmup 0 --min-reps 1"

if ! "$G" --list | grep -q '^blis '; then
    expect_exit blis_arch_no_blis 2 "$G" --variant packed $one --blis-arch generic -o nb.json
    expect_grep blis_arch_no_blis_said "this build has no BLIS" "$WORK/err"
    skip blis_arch "this build has no BLIS (libblis-dev)"
    exit 0
fi
expect_exit blis_arch_not_built 2 "$G" --variant blis $one --blis-arch zen9 -o a.json
expect_grep blis_arch_not_built_said "was not built with that sub-configuration (it has: .*generic" "$WORK/err"
expect_true blis_arch_refused_no_file test ! -e a.json
expect_exit blis_arch_not_a_name 2 "$G" --variant blis $one --blis-arch 'Skx;' -o a.json
printf 'blis_arch = zen9\n' >bad.conf
expect_exit blis_arch_conf_key 2 "$G" --config bad.conf --variant blis $one -o a.json

# generic is in every BLIS build and runs on any CPU: chosen, recorded, and
# (on an x86 CPU with AVX) flagged with what would change it.
expect_exit blis_arch_generic 0 "$G" --variant blis $one --blis-arch generic -o g.json
cp "$WORK/out" g.out
py_check blis_arch_recorded "$WORK/g.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
blis = d["tool"]["libraries"]["blis"]
assert blis["kernels"] == "generic", blis
assert blis["forced_by"].startswith("BLIS_ARCH_TYPE="), blis
assert d["run"]["config"]["blis_arch"] == "generic", d["run"]["config"]
PY
expect_grep blis_footnote "^library: blis [0-9.]* runs generic kernels" g.out
if grep -q '^flags.* avx ' /proc/cpuinfo 2>/dev/null && [ "$(uname -m)" = x86_64 ]; then
    expect_grep blis_footnote_flagged "runs generic kernels (portable C): NOT this CPU's best path, --blis-arch generic (BLIS_ARCH_TYPE=[0-9]*) chose them;" g.out
    expect_grep blis_footnote_change "^         --blis-arch [a-z0-9]* (bench.conf blis_arch) chooses its" g.out
    expect_grep blis_story_flagged "^  flagged: blis ran generic kernels (portable C), not this CPU's best path" g.out
    "$G" report g.json >report.out 2>&1
    expect_grep blis_report "^library: blis [0-9.]* runs generic kernels (portable C): NOT this CPU's best path" report.out
    "$G" report g.json --format csv >report.csv 2>&1
    expect_grep blis_report_csv "^# libraries: blis generic (portable C, NOT this CPU's best path)" report.csv
    if command -v gnuplot >/dev/null 2>&1; then
        GEMMBENCH=$G sh "$ROOT/scripts/plot.sh" g.json fig >plot.out 2>&1
        expect_grep blis_plot_note "^plot: note: a reference library ran kernels that are not this CPU's best path: blis generic" plot.out
    else
        skip blis_plot_note "gnuplot is not installed (scripts/setup.sh plots)"
    fi
else
    skip blis_footnote_flagged "not an x86 CPU with AVX: generic may be its best path"
fi
# A BLIS_ARCH_TYPE the user set is read too: BLIS 0.9 aborted the process
# when asked for its choice before it was initialized.
BLIS_ARCH_TYPE=$(python3 -c "import json; print(json.load(open('$WORK/g.json'))['tool']['libraries']['blis']['forced_by'].split('=')[1])" 2>/dev/null)
if [ -n "$BLIS_ARCH_TYPE" ]; then
    expect_exit blis_arch_type_env 0 env BLIS_ARCH_TYPE="$BLIS_ARCH_TYPE" "$G" --variant blis $one -o e.json
    expect_grep blis_arch_type_env_kernels '"kernels":[[:space:]]*"generic"' e.json
else
    skip blis_arch_type_env "needs python3"
fi
