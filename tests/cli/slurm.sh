# slurm.sh - what of the Slurm path runs without a cluster: the argument
# errors of scripts/slurm-sweep.sh (one line, exit 2), machine.slurm from the
# SLURM_* variables of a run's environment, --threads all meaning Slurm's
# allotment and the warning above it; slurm-sweep.sh's order (arguments, then
# sbatch) with no sbatch and with a stand-in one; slurm-ci.sh's exit status
# (77 skip, 1 failure) with stand-ins for Slurm's programs.  The cluster
# itself: scripts/slurm-ci.sh (.ci/run).
. tests/cli/lib.sh
G=$GEMMBENCH
SW=scripts/slurm-sweep.sh
RUN="--quiet --reps 3 --warmup 0 --rounds 1 --shape 13x21x9 --variant k16"
ROOT=$(pwd)

# path_without DIR NAME...: DIR gets a link to every program on $PATH (the
# one PATH finds first) but the NAMEs; prints DIR, a PATH that lacks them
# whether or not this machine has them.
path_without() {
    dir=$1
    shift
    skip_names=" $* "
    mkdir -p "$dir"
    # One ln per folder of PATH, not one per program (2,300 of them here:
    # 15 s of CPU).  A name already linked, from an earlier folder, is
    # skipped: the one PATH finds first wins.
    IFS=:
    for d in $PATH; do
        [ -d "$d" ] || continue
        unset IFS
        set --
        for f in "$d"/*; do
            n=${f##*/}
            [ -x "$f" ] && [ ! -d "$f" ] && [ ! -e "$dir/$n" ] && [ ! -L "$dir/$n" ] || continue
            case $skip_names in *" $n "*) continue ;; esac
            set -- "$@" "$f"
        done
        [ $# -eq 0 ] || ln -s "$@" "$dir/"
        IFS=:
    done
    unset IFS
    echo "$dir"
}
# standin DIR NAME [BODY]: DIR/NAME, a shell script running BODY (default:
# say so on stderr and exit 1).  What DIR/NAME was is removed first: were it
# a symlink of path_without's, writing through it would replace the real
# program (/usr/bin/id, apt-get) for the whole machine.
standin() {
    mkdir -p "$1"
    rm -f "$1/$2"
    printf '#!/bin/sh\n%s\n' "${3:-echo \"stand-in $2 \$*\" >&2; exit 1}" >"$1/$2"
    chmod +x "$1/$2"
}
have_python3() { command -v python3 >/dev/null 2>&1; }

# ---- slurm-sweep.sh: bad input --------------------------------------------------
expect_exit sweep_help 0 sh $SW --help
expect_grep sweep_help_usage 'slurm-sweep.sh --partitions' "$WORK/out"
expect_exit sweep_no_args 2 sh $SW
expect_grep sweep_no_args_says 'no partitions' "$WORK/err"
expect_exit sweep_no_out 2 sh $SW --partitions a,b
expect_grep sweep_no_out_says '--out DIR is required' "$WORK/err"
expect_exit sweep_no_partitions 2 sh $SW --out "$WORK/o"
expect_exit sweep_unknown_option 2 sh $SW --partitions a --out "$WORK/o" --bogus
expect_grep sweep_unknown_option_named "unknown option '--bogus'" "$WORK/err"
expect_exit sweep_partition_needs_value 2 sh $SW --out "$WORK/o" --partitions
expect_exit sweep_empty_partition 2 sh $SW --partitions a,,b --out "$WORK/o"
expect_exit sweep_bad_array 2 sh $SW --partitions a --out "$WORK/o" --array 0
expect_exit sweep_bad_report_format 2 sh $SW --partitions a --out "$WORK/o" --report-format xml
expect_exit sweep_output_refused 2 sh $SW --partitions a --out "$WORK/o" -- --quick -o x.json
expect_grep sweep_output_refused_says 'sets the output' "$WORK/err"
# RUN OPTIONS read as gemmbench's getopt_long reads them (its table from
# `gemmbench --help`): every spelling of -o/--output is refused, abbreviated
# (--o, --outp, --out=F) or grouped after letters that take no value (-fo F,
# -qoF, -qoutput: each writes a file, checked by hand on gemmbench itself).
# A stand-in sbatch: were a spelling let through, it would be submitted.
OUTOPT=$WORK/outopt-sbatch
standin "$OUTOPT" sbatch 'echo "$*" >>"$(dirname "$0")/calls"; echo "4247;cluster"'
for spelling in '--outp x.json' '--out=x.json' '--o x.json' '-fo x.json' '-qox.json' '-qoutput' \
    '--quick -fqo x.json' '--format=csv --ou=x.json'; do
    n=sweep_output_refused_$(printf '%s' "$spelling" | tr -cs 'a-z0-9' _)
    # shellcheck disable=SC2086 # the spelling's words
    expect_exit "$n" 2 env PATH="$OUTOPT:$PATH" sh $SW --partitions a --out "$WORK/o" --no-wait -- $spelling
    expect_grep "${n}_says" "sets the output" "$WORK/err"
done
[ ! -e "$OUTOPT/calls" ] && echo "ok sweep_output_spellings_not_submitted" ||
    echo "FAIL sweep_output_spellings_not_submitted: sbatch: $(head -c 200 "$OUTOPT/calls")"
expect_exit sweep_option_equals_form 2 sh $SW --partitions=a --out="$WORK/o" --array=x
expect_grep sweep_option_equals_form_value "'x' is not a positive" "$WORK/err"
mkdir -p "$WORK/old/sub"
echo '{}' >"$WORK/old/sub/earlier.json"
expect_exit sweep_out_with_old_results 2 sh $SW --partitions a --out "$WORK/old"
expect_grep sweep_out_with_old_results_says 'already holds result files' "$WORK/err"
# User text in a message: escaped as gemmbench escapes it (\xNN), never a raw
# ESC byte to the terminal; a name with a control byte is refused, named.
ESC=$(printf '\033')
# refused_escaped NAME CMD...: CMD exits 2 with one 'gemmbench' line on
# stderr that holds no raw ESC byte and shows it as \x1b.
refused_escaped() {
    name=$1
    shift
    "$@" >"$WORK/out" 2>"$WORK/err" </dev/null
    got=$?
    if [ "$got" -ne 2 ] || [ "$(wc -l <"$WORK/err")" -ne 1 ] || ! grep -q '^gemmbench' "$WORK/err"; then
        echo "FAIL $name: exit $got, expected 2 and one line: $(head -c 300 "$WORK/err" | tr -d '\033')"
    elif LC_ALL=C grep -q "$ESC" "$WORK/err"; then
        echo "FAIL $name: a raw ESC byte on stderr"
    elif ! grep -q 'x1b' "$WORK/err"; then
        echo "FAIL $name: ESC not shown as \\x1b: $(head -c 300 "$WORK/err")"
    else
        echo "ok $name"
    fi
}
refused_escaped sweep_escape_partition sh $SW --partitions "a,b${ESC}[31mX" --out "$WORK/o"
expect_grep sweep_escape_partition_says 'control byte' "$WORK/err"
refused_escaped sweep_escape_constraint sh $SW --partitions a --constraint "c${ESC}]0;t" --out "$WORK/o"
refused_escaped sweep_escape_unknown_option sh $SW --partitions a --out "$WORK/o" "--x${ESC}[2J"
refused_escaped sweep_escape_array sh $SW --partitions a --out "$WORK/o" --array "1${ESC}"
[ ! -e "$WORK/o" ] && echo "ok sweep_bad_input_creates_nothing" ||
    echo "FAIL sweep_bad_input_creates_nothing: $WORK/o exists"

# ---- slurm-sweep.sh: its arguments first, sbatch only to submit ------------------
# With no sbatch on PATH (a machine without Slurm) the arguments are still
# checked, --out's earlier results first of all.
NOSB=$(path_without "$WORK/no-sbatch" sbatch)
if PATH=$NOSB command -v sbatch >/dev/null 2>&1 || ! PATH=$NOSB command -v find >/dev/null 2>&1; then
    echo "FAIL sweep_no_sbatch_path: a PATH of links without sbatch could not be made in $NOSB"
else
    expect_exit sweep_no_sbatch_out_with_old_results 2 env PATH="$NOSB" sh $SW --partitions a --out "$WORK/old"
    expect_grep sweep_no_sbatch_out_with_old_results_says 'already holds result files' "$WORK/err"
    expect_exit sweep_no_sbatch_bad_array 2 env PATH="$NOSB" sh $SW --partitions a --out "$WORK/o" --array x
    expect_grep sweep_no_sbatch_bad_array_says "'x' is not a positive" "$WORK/err"
    expect_exit sweep_no_sbatch_output_refused 2 env PATH="$NOSB" sh $SW --partitions a --out "$WORK/o" -- -o x.json
    expect_grep sweep_no_sbatch_output_refused_says 'sets the output' "$WORK/err"
    # Good arguments: then sbatch is missed, in one line, and nothing is made.
    expect_exit sweep_no_sbatch 2 env PATH="$NOSB" sh $SW --partitions a --out "$WORK/fresh"
    expect_grep sweep_no_sbatch_says 'sbatch not found' "$WORK/err"
    [ ! -e "$WORK/fresh" ] && echo "ok sweep_no_sbatch_creates_nothing" ||
        echo "FAIL sweep_no_sbatch_creates_nothing: $WORK/fresh exists"
fi
# A stand-in sbatch that notes its arguments and prints a job id: --out is
# still refused before it is called; --no-wait prints KIND JOBID per job.
FAKE=$WORK/fake-sbatch
standin "$FAKE" sbatch 'echo "$*" >>"$(dirname "$0")/calls"; echo "4242;cluster"'
expect_exit sweep_standin_out_with_old_results 2 env PATH="$FAKE:$PATH" sh $SW --partitions a --out "$WORK/old"
expect_grep sweep_standin_out_with_old_results_says 'already holds result files' "$WORK/err"
[ ! -e "$FAKE/calls" ] && echo "ok sweep_standin_not_called_on_bad_input" ||
    echo "FAIL sweep_standin_not_called_on_bad_input: sbatch was called: $(head -c 300 "$FAKE/calls")"
expect_exit sweep_standin_no_wait 0 env PATH="$FAKE:$PATH" sh $SW --partitions a,b --out "$WORK/nw" \
    --no-wait -- --quick
expect_grep sweep_standin_no_wait_prints_a '^a 4242$' "$WORK/out"
expect_grep sweep_standin_no_wait_prints_b '^b 4242$' "$WORK/out"
if [ "$(grep -c -- '--exclusive' "$FAKE/calls" 2>/dev/null)" = 2 ] &&
    grep -q -- '--partition=a .*--quick' "$FAKE/calls" && grep -q -- '--partition=b ' "$FAKE/calls"; then
    echo "ok sweep_standin_one_job_per_partition"
else
    echo "FAIL sweep_standin_one_job_per_partition: $(head -c 300 "$FAKE/calls" 2>/dev/null)"
fi
# --out naming a file, or starting with '-': refused in one line before
# find or mkdir see it (with sbatch there, so the old order would reach
# them); nothing is made, nothing submitted, the file is as it was.
OUTSB=$WORK/out-sbatch
standin "$OUTSB" sbatch 'echo "$*" >>"$(dirname "$0")/calls"; echo "4243;cluster"'
echo 'precious' >"$WORK/afile"
mkdir -p "$WORK/cwd"
# out_refused NAME PATTERN ARG...: the sweep with ARGs, run in an empty
# directory, exits 2 with one line matching PATTERN, makes nothing there,
# calls no sbatch and leaves $WORK/afile as it was.
out_refused() {
    name=$1 pattern=$2
    shift 2
    (cd "$WORK/cwd" && env PATH="$OUTSB:$PATH" sh "$ROOT/$SW" --partitions a --no-wait "$@") \
        >"$WORK/out" 2>"$WORK/err" </dev/null
    got=$?
    if [ "$got" -ne 2 ] || [ "$(wc -l <"$WORK/err")" -ne 1 ] || ! grep -q -- "$pattern" "$WORK/err"; then
        echo "FAIL $name: exit $got, expected 2 and one line with '$pattern': $(head -c 300 "$WORK/err")"
    elif [ -n "$(ls -A "$WORK/cwd")" ] || [ -e "$OUTSB/calls" ] || [ "$(cat "$WORK/afile")" != precious ]; then
        echo "FAIL $name: something made, submitted or changed: $(ls -A "$WORK/cwd" "$OUTSB" | head -c 200)"
    else
        echo "ok $name"
    fi
}
out_refused sweep_out_is_file 'not a directory' --out "$WORK/afile"
out_refused sweep_out_under_file "cannot create '$WORK/afile/sub/slurm': Not a directory" --out "$WORK/afile/sub"
out_refused sweep_out_dash "'-x' starts with '-'" --out -x
out_refused sweep_out_dash_equals "'-p' starts with '-'" --out=-p
# --array past Slurm's default MaxArraySize (1001), or past the shell's
# integers: one line, before any loop or arithmetic, nothing submitted
# (--no-wait: were it submitted, the check must not wait on a million tasks).
ARRSB=$WORK/array-sbatch
standin "$ARRSB" sbatch 'echo "$*" >>"$(dirname "$0")/calls"; echo "4244;cluster"'
expect_exit sweep_array_million 2 env PATH="$ARRSB:$PATH" sh $SW --partitions a --out "$WORK/arr" --array 1000000 --no-wait
expect_grep sweep_array_million_says 'more than 1001' "$WORK/err"
expect_exit sweep_array_overflow 2 env PATH="$ARRSB:$PATH" sh $SW --partitions a --out "$WORK/arr" --array 99999999999999999999999 --no-wait
expect_grep sweep_array_overflow_says 'more than 1001' "$WORK/err"
expect_exit sweep_array_1002 2 env PATH="$ARRSB:$PATH" sh $SW --partitions a --out "$WORK/arr" --array=1002 --no-wait
[ ! -e "$ARRSB/calls" ] && [ ! -e "$WORK/arr" ] && echo "ok sweep_array_too_big_not_submitted" ||
    echo "FAIL sweep_array_too_big_not_submitted: sbatch: $(head -c 200 "$ARRSB/calls" 2>/dev/null)"
# (A control: the bound is not one too tight.)
expect_exit sweep_array_1001 0 env PATH="$ARRSB:$PATH" sh $SW --partitions a --out "$WORK/arr" --array 1001 --no-wait
expect_grep sweep_array_1001_indices '--array=0-1000 ' "$ARRSB/calls"
# Kinds whose names make one file name (a/b and a_b; a-b with constraint c
# and a with b-c; a twice): one line naming both, nothing submitted.
KINDSB=$WORK/kind-sbatch
standin "$KINDSB" sbatch 'echo "$*" >>"$(dirname "$0")/calls"; echo "4245;cluster"'
expect_exit sweep_kinds_same_file 2 env PATH="$KINDSB:$PATH" sh $SW --partitions x,a/b,a_b --out "$WORK/kinds" --no-wait
expect_grep sweep_kinds_same_file_names_both "partition 'a/b' and partition 'a_b' both make the result file a_b.json" "$WORK/err"
expect_exit sweep_kinds_constraint_same_file 2 env PATH="$KINDSB:$PATH" sh $SW --partitions a-b,a \
    --constraint c,b-c --out "$WORK/kinds" --no-wait
expect_grep sweep_kinds_constraint_same_file_names_both "partition 'a-b', constraint 'c' and partition 'a', constraint 'b-c'" "$WORK/err"
expect_exit sweep_kinds_twice 2 env PATH="$KINDSB:$PATH" sh $SW --partitions a,b,a --out "$WORK/kinds" --no-wait --array 2
[ ! -e "$KINDSB/calls" ] && [ ! -e "$WORK/kinds" ] && echo "ok sweep_kinds_same_file_not_submitted" ||
    echo "FAIL sweep_kinds_same_file_not_submitted: sbatch: $(head -c 200 "$KINDSB/calls" 2>/dev/null)"
# What getopt_long would refuse on every node is refused here, in one line:
# ambiguous and unknown options, a missing value, operands, `--`.
RUNSB=$WORK/runopt-sbatch
standin "$RUNSB" sbatch 'echo "$*" >>"$(dirname "$0")/calls"; echo "4246;cluster"'
expect_exit sweep_runopt_ambiguous 2 env PATH="$RUNSB:$PATH" sh $SW --partitions a --out "$WORK/ro" --no-wait -- --fo json
expect_grep sweep_runopt_ambiguous_says "'--fo' is ambiguous" "$WORK/err"
expect_exit sweep_runopt_operand 2 env PATH="$RUNSB:$PATH" sh $SW --partitions a --out "$WORK/ro" --no-wait -- --quick -- x.json
expect_grep sweep_runopt_operand_says "'--': gemmbench takes no operands" "$WORK/err"
expect_exit sweep_runopt_needs_value 2 env PATH="$RUNSB:$PATH" sh $SW --partitions a --out "$WORK/ro" --no-wait -- --quick --config
expect_grep sweep_runopt_needs_value_says "'--config' needs a value" "$WORK/err"
[ ! -e "$RUNSB/calls" ] && echo "ok sweep_runopt_bad_not_submitted" ||
    echo "FAIL sweep_runopt_bad_not_submitted: sbatch: $(head -c 200 "$RUNSB/calls")"
# A value is a value: -c's file named -o.conf is no output option.
expect_exit sweep_runopt_value_not_option 0 env PATH="$RUNSB:$PATH" sh $SW --partitions a --out "$WORK/ro" --no-wait \
    -- --quick -c -o.conf
# The table is the binary's: a gemmbench whose --help lists no -o, --output
# cannot be read, and is refused rather than guessed at.
standin "$WORK/oddgb" gemmbench 'echo "usage: gemmbench [options]"; echo "  -q, --quick            fast"'
expect_exit sweep_runopt_unreadable_help 2 env PATH="$RUNSB:$PATH" GEMMBENCH="$WORK/oddgb/gemmbench" \
    sh $SW --partitions a --out "$WORK/ro2" --no-wait -- --quick
expect_grep sweep_runopt_unreadable_help_says 'cannot read the run options' "$WORK/err"
# The task's own -o comes last (gemmbench takes the last one): the job
# script run by hand with an -o among its options writes DIR/KIND.json and
# nothing else.
if [ -f "$WORK/ro/slurm/job.sh" ]; then
    mkdir -p "$WORK/jobrun"
    env -u SLURM_ARRAY_TASK_ID sh "$WORK/ro/slurm/job.sh" k "$WORK/jobrun" "$G" $RUN --threads 1 \
        -o "$WORK/victim.json" >"$WORK/job.out" 2>&1
    if [ ! -e "$WORK/victim.json" ] && [ -f "$WORK/jobrun/k.json" ]; then
        echo "ok sweep_job_output_last"
    else
        echo "FAIL sweep_job_output_last: victim.json $([ -e "$WORK/victim.json" ] && echo written || echo absent), k.json $([ -f "$WORK/jobrun/k.json" ] && echo written || echo absent): $(head -c 200 "$WORK/job.out")"
    fi
else
    echo "FAIL sweep_job_output_last: no job script in $WORK/ro/slurm"
fi
# sbatch refusing a job: named, exit 1.
standin "$WORK/refusing" sbatch 'echo "sbatch: error: invalid partition specified: a" >&2; exit 1'
expect_exit sweep_standin_refused 1 env PATH="$WORK/refusing:$PATH" sh $SW --partitions a --out "$WORK/ref" --no-wait
expect_grep sweep_standin_refused_says 'a not submitted: sbatch: error: invalid partition' "$WORK/err"

# ---- slurm-ci.sh: 77 only when Slurm cannot be installed, else 1 -----------------
# Stand-ins for Slurm's programs (and id, apt-get) on PATH: nothing is
# installed or started.  .ci/run reports 77 skipped and any other non-zero
# exit failed.
CI="$ROOT/scripts/slurm-ci.sh"
ci_standins() { # DIR: every program slurm-ci.sh needs, failing; id says root
    for t in munged mungekey slurmctld slurmd sbatch scontrol sinfo scancel apt-get; do
        standin "$1" "$t"
    done
    standin "$1" id 'echo 0'
}
standin "$WORK/ci-user" id 'echo 1000'
expect_exit ci_not_root_skips 77 env PATH="$WORK/ci-user:$PATH" sh "$CI"
expect_grep ci_not_root_says 'SKIP: .*needs root' "$WORK/err"
# No Slurm and no apt-get (a PATH that lacks them): cannot be installed, 77.
NOSLURM=$(path_without "$WORK/no-slurm" munged mungekey slurmctld slurmd sbatch scontrol sinfo scancel apt-get id)
standin "$NOSLURM" id 'echo 0'
# (Never the real apt-get: with it on this PATH the script would install.)
if PATH=$NOSLURM command -v apt-get >/dev/null 2>&1 || PATH=$NOSLURM command -v slurmctld >/dev/null 2>&1; then
    echo "FAIL ci_no_apt_get_skips: a PATH without apt-get and Slurm could not be made in $NOSLURM"
else
    expect_exit ci_no_apt_get_skips 77 env PATH="$NOSLURM" sh "$CI"
    expect_grep ci_no_apt_get_says 'SKIP: .*no apt-get' "$WORK/err"
    # The install fails (no network, no package): 77.
    standin "$NOSLURM" apt-get 'echo "E: Unable to locate package slurm-wlm"; exit 100'
    expect_exit ci_install_fails_skips 77 env PATH="$NOSLURM" sh "$CI"
    expect_grep ci_install_fails_says 'SKIP: .*apt-get install slurm-wlm munge failed: E: Unable' "$WORK/err"
fi
if [ ! -x build/gemmbench ]; then
    skip ci_munged_fails_is_failure "needs build/gemmbench in this checkout (slurm-ci.sh runs it)"
    skip ci_slurmd_c_empty_is_failure "needs build/gemmbench in this checkout (slurm-ci.sh runs it)"
else
    # Installed, but munged does not start: a failure, 1 (after its 5 s wait).
    ci_standins "$WORK/ci-munged"
    standin "$WORK/ci-munged" munged 'echo "munged: Error: stand-in refuses to start" >&2; exit 1'
    expect_exit ci_munged_fails_is_failure 1 env PATH="$WORK/ci-munged:$PATH" sh "$CI"
    expect_grep ci_munged_fails_says 'FAIL: munged did not start: .*stand-in refuses' "$WORK/err"
    # munged up (a stand-in holding its socket), `slurmd -C` prints nothing: 1.
    if have_python3; then
        ci_standins "$WORK/ci-slurmd"
        standin "$WORK/ci-slurmd" munged 'exec python3 -c "
import socket, sys, time
path = [a.split(\"=\", 1)[1] for a in sys.argv[1:] if a.startswith(\"--socket=\")][0]
s = socket.socket(socket.AF_UNIX)
s.bind(path)
s.listen(1)
time.sleep(60)
" "$@"'
        standin "$WORK/ci-slurmd" slurmd 'exit 0'
        expect_exit ci_slurmd_c_empty_is_failure 1 env PATH="$WORK/ci-slurmd:$PATH" sh "$CI"
        expect_grep ci_slurmd_c_empty_says 'FAIL: slurmd -C printed no node line' "$WORK/err"
    else
        skip ci_slurmd_c_empty_is_failure "needs python3 (the stand-in munged's socket)"
    fi
fi

# ---- machine.slurm ---------------------------------------------------------------
expect_exit run_outside_slurm 0 env -u SLURM_JOB_ID "$G" $RUN --threads 1 -o "$WORK/plain.json"
py_check no_slurm_object_outside_slurm "$WORK/plain.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["machine"]
assert "slurm" not in m, "machine.slurm in a run without SLURM_JOB_ID: %s" % m["slurm"]
PY

cpus=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['machine']['affinity_cpus'])" "$WORK/plain.json" 2>/dev/null)
expect_exit run_in_array_task 0 env SLURM_JOB_ID=1043 SLURM_ARRAY_JOB_ID=1041 SLURM_ARRAY_TASK_ID=2 \
    SLURMD_NODENAME=node-7 SLURM_JOB_PARTITION=epyc SLURM_CPUS_ON_NODE=1 \
    "$G" $RUN --threads all -o "$WORK/task.json"
py_check slurm_object_from_environment "$WORK/task.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["machine"]["slurm"]
want = {"job_id": 1043, "array_job_id": 1041, "array_task_id": 2, "node": "node-7",
        "partition": "epyc", "cpus": 1}
assert s == want, s
assert d["run"]["threads"] == 1, d["run"]["threads"]          # --threads all: the allotment
assert all(r["threads"] == 1 for r in d["results"])
PY
cp "$WORK/err" "$WORK/task.err"
py_check slurm_file_validates "$WORK/task.json" <<'PY'
import subprocess, sys
sys.exit(subprocess.call([sys.executable, "scripts/validate-json.py", sys.argv[1], "--complete"]))
PY
[ -s "$WORK/task.err" ] && echo "FAIL threads_all_within_allotment_quiet: $(head -c 300 "$WORK/task.err")" ||
    echo "ok threads_all_within_allotment_quiet"

# Not an array task; SLURM_JOB_CPUS_PER_NODE when SLURM_CPUS_ON_NODE is unset;
# an allotment above the affinity mask is capped by it.
expect_exit run_in_plain_job 0 env -u SLURM_CPUS_ON_NODE -u SLURM_ARRAY_JOB_ID -u SLURM_ARRAY_TASK_ID \
    SLURM_JOB_ID=77 SLURM_JOB_CPUS_PER_NODE='4096(x2)' "$G" $RUN --threads 1 -o "$WORK/job.json"
py_check slurm_object_plain_job "$WORK/job.json" "$cpus" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["machine"]["slurm"]
assert s["job_id"] == 77 and s["array_job_id"] is None and s["array_task_id"] is None, s
assert s["cpus"] == int(sys.argv[2]), s
PY
py_check plain_job_file_validates "$WORK/job.json" <<'PY'
import subprocess, sys
sys.exit(subprocess.call([sys.executable, "scripts/validate-json.py", sys.argv[1]]))
PY

# ---- more threads than Slurm allotted: one warning line ---------------------------
expect_exit threads_above_allotment_runs 0 env SLURM_JOB_ID=5 SLURM_CPUS_ON_NODE=1 \
    "$G" $RUN --threads 2 -o "$WORK/over.json"
# Counted by its own words: on a busy machine the peak's check may warn too.
if [ "$(grep -c 'Slurm allotted' "$WORK/err")" -eq 1 ] &&
    grep -q '^gemmbench: warning: 2 threads is more than the 1 CPU Slurm allotted' "$WORK/err"; then
    echo "ok threads_above_allotment_warns_once"
else
    echo "FAIL threads_above_allotment_warns_once: $(head -c 300 "$WORK/err")"
fi

# ---- validate-json.py on machine.slurm -------------------------------------------
if have_python3; then
    py_check validate_bad_slurm_made "$WORK/task.json" "$WORK/bad.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["machine"]["slurm"]["cpus"] = 0
d["machine"]["slurm"]["array_task_id"] = None
json.dump(d, open(sys.argv[2], "w"))
PY
    expect_exit validate_rejects_bad_slurm 1 python3 scripts/validate-json.py "$WORK/bad.json"
    expect_grep validate_names_cpus 'machine.slurm.cpus' "$WORK/out"
    expect_grep validate_names_array_pair 'array_job_id and array_task_id' "$WORK/out"
else
    for c in validate_rejects_bad_slurm validate_names_cpus validate_names_array_pair; do
        skip $c "needs python3 (scripts/validate-json.py)"
    done
fi

# ---- fleet-report.sh --by-dir over one file: a one-file report ----------------------
mkdir -p "$WORK/one"
cp "$WORK/task.json" "$WORK/one/gb_a-0.json"
expect_exit fleet_by_dir_one_file 0 sh scripts/fleet-report.sh --by-dir "$WORK/one"
