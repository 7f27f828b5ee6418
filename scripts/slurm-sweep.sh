#!/bin/sh
# slurm-sweep.sh - the same gemmbench sweep on every machine kind of a Slurm
# cluster, then one fleet report over the result files.  Slurm is the engine:
# one sbatch job per partition (times constraint), each on a whole node
# (--exclusive: every CPU of the node to the one task), each writing one
# result file into OUT; the script waits for them, prints each task's Slurm
# state and runs scripts/fleet-report.sh over the files of those that
# succeeded.  Tested on a real one-host cluster by scripts/slurm-ci.sh.
#
# Usage: scripts/slurm-sweep.sh --partitions P1,P2,... --out DIR
#            [--constraint C1,C2,...] [--array N] [--time T] [--no-wait]
#            [--report-format table|md|csv] [-- RUN OPTIONS]
#   --partitions  one job per partition (and per constraint, when given)
#   --out DIR     a directory every node can write (a shared file system):
#                 DIR/KIND[-TASK].json, and DIR/slurm/ (job script, logs,
#                 each task's exit file)
#   --constraint  node features (sbatch --constraint), one job per
#                 partition and constraint
#   --array N     N tasks per kind (a job array: N nodes of that kind), at
#                 most 1001 (Slurm's default MaxArraySize: indices 0-1000)
#   --time T      each job's time limit (sbatch --time, e.g. 30 or 1:00:00)
#   --no-wait     print KIND JOBID per job and exit; report later with
#                 scripts/fleet-report.sh --by-dir DIR
#   RUN OPTIONS   passed to every `gemmbench` run: options only (no
#                 operands, no `--`), none that sets the output
#                 (-o/--output in any spelling: each task writes
#                 DIR/KIND.json)
# Environment: GEMMBENCH (default: build/gemmbench of this checkout; it must
# be on a path every node sees); SBATCH_* variables (account, QOS) as sbatch
# reads them.
# Exit: 0 every task succeeded; 1 a task failed, timed out or could not be
# submitted (named on stderr, the others still reported); 2 bad input.
# Task states come from `scontrol show job` (no accounting database needed),
# or from the task's exit file once Slurm has forgotten the job (MinJobAge).
# Bad input (exit 2, one line, nothing created or submitted): besides the
# above, an --out that starts with '-' or names something not a directory,
# partition or constraint names with blanks or control bytes, and kinds
# whose names make one file name (partitions a/b and a_b are both a_b.json;
# a-b with constraint c and a with b-c both a-b-c.json: one result would be
# lost while every task reports COMPLETED).  User text in a message is shown
# as gemmbench shows it (bytes outside printable ASCII, and '\', as \xNN:
# no escape reaches the terminal).
# ---
# Why a task's output path cannot be overridden, twice over:
# 1. RUN OPTIONS are read as gemmbench's getopt_long reads them, from a
#    table of its run options made at run time from `gemmbench --help` (the
#    help is written from the same settings table getopt_long is built from,
#    so the two cannot drift): unique abbreviations (--outp F, --out=F) and
#    grouped letters (-fo F, -qoF, -output) are found as what they are and
#    refused; so are unknown and ambiguous options, a missing value,
#    operands and `--` (gemmbench would refuse those on every node).  An
#    option hidden from --help (ab's internals) counts as unknown.
# 2. Each task puts its own `-o DIR/KIND.json` after the user's options:
#    gemmbench takes the last -o, and after a complete set of options (1.)
#    nothing can take it as a value or an operand.  Nothing else a run reads
#    writes a file the user names (bench.conf has no output key; --config
#    and --schedule read; the compile and calibration caches are gemmbench's).
set -u

here=$(cd "$(dirname "$0")" && pwd)
GEMMBENCH=${GEMMBENCH:-$(dirname "$here")/build/gemmbench}

# TEXT as gemmbench shows user text in a message (gb_printable in
# src/base/parse.c, as scripts/fleet-report.sh does): bytes outside printable
# ASCII, and the backslash, as \xNN.  Every message naming user text names
# it through this.
shown() {
    printf '%s' "$1" | od -An -v -tu1 | awk '{
        for (i = 1; i <= NF; i++)
            if ($i < 32 || $i > 126 || $i == 92) printf "\\x%02x", $i
            else printf "%c", $i + 0
    }'
}
die() {
    printf 'gemmbench: slurm-sweep: %s\n' "$*" >&2
    exit 2
}
usage="usage: scripts/slurm-sweep.sh --partitions P1,P2,... --out DIR [--constraint C,...] [--array N] [--time T] [--no-wait] [-- RUN OPTIONS]"

partitions='' constraints='' out='' array='' time='' wait=1 rformat=''
while [ $# -gt 0 ]; do
    case $1 in
    -h | --help)
        sed -n -e '/^# ---/q' -e '/^[^#]/q' -e '2,$s/^# \{0,1\}//p' "$0"
        exit 0 ;;
    --partitions | --constraint | --out | --array | --time | --report-format)
        [ $# -ge 2 ] && [ -n "$2" ] || die "$1 needs a value ($usage)"
        case $1 in
        --partitions) partitions=$2 ;;
        --constraint) constraints=$2 ;;
        --out) out=$2 ;;
        --array) array=$2 ;;
        --time) time=$2 ;;
        --report-format) rformat=$2 ;;
        esac
        shift 2 ;;
    --partitions=* | --constraint=* | --out=* | --array=* | --time=* | --report-format=*)
        opt=${1%%=*} val=${1#*=}
        shift
        set -- "$opt" "$val" "$@" ;;
    --no-wait) wait=0; shift ;;
    --) shift; break ;;
    *) die "unknown option '$(shown "$1")' ($usage)" ;;
    esac
done
[ -n "$partitions" ] || die "no partitions: --partitions P1,P2,... is required ($usage)"
[ -n "$out" ] || die "no output directory: --out DIR is required ($usage)"
# Before find and mkdir see it: '-x' would be read as their option, and a
# file (or a path through one) would give their message, not one line.
case $out in
-*) die "--out '$(shown "$out")' starts with '-': give it as ./$(shown "$out")" ;;
esac
if [ -e "$out" ] || [ -L "$out" ]; then
    [ -d "$out" ] || die "--out '$(shown "$out")' exists and is not a directory"
fi
case ,$partitions, in *,,*) die "--partitions '$(shown "$partitions")' has an empty name" ;; esac
[ -z "$constraints" ] || case ,$constraints, in *,,*) die "--constraint '$(shown "$constraints")' has an empty element" ;; esac
# Slurm's names are printable ASCII; a blank would also split the job list.
for v in "$partitions" "$constraints"; do
    case $v in
    *[[:space:]]* | *[![:print:]]*)
        die "a partition or constraint name has a blank or control byte ('$(shown "$v")')" ;;
    esac
done
case $array in
"") ;;
*[!0-9]* | 0*) die "--array '$(shown "$array")' is not a positive whole number" ;;
# Bounded before any arithmetic (the shell's integers overflow) and any loop
# over the tasks: Slurm's default MaxArraySize, 1001, allows indices 0-1000.
?????*) die "--array $array is more than 1001 tasks (Slurm's default MaxArraySize)" ;;
*) [ "$array" -le 1001 ] || die "--array $array is more than 1001 tasks (Slurm's default MaxArraySize)" ;;
esac
# kind_name PARTITION CONSTRAINT: the kind's name, that of its files
# (DIR/KIND.json, DIR/slurm/KIND*).
kind_name() {
    printf '%s' "$1${2:+-$2}" | tr -c 'A-Za-z0-9_.-' '_'
}
# kind_shown PARTITION CONSTRAINT: the kind as the user gave it.
kind_shown() {
    printf "partition '%s'" "$(shown "$1")"
    [ -z "$2" ] || printf ", constraint '%s'" "$(shown "$2")"
}
# Distinct kinds, distinct files: two kinds of one name would write the same
# DIR/KIND.json (and array tasks NAME-I: equal only when the names are).
# $seen: a line "NAME^APARTITION^ACONSTRAINT" per kind (^A: no name has one).
us=$(printf '\001')
seen=
set -f
IFS=,
for p in $partitions; do
    for c in ${constraints:--}; do
        [ "$c" != - ] || c=
        name=$(kind_name "$p" "$c")
        IFS=$us
        while read -r kn kp kc; do
            [ "$kn" = "$name" ] &&
                die "$(kind_shown "$kp" "$kc") and $(kind_shown "$p" "$c") both make the result file $name.json: give kinds whose names differ in letters, digits, '_', '.' or '-'"
        done <<EOF
$seen
EOF
        seen="$seen$name$us$p$us$c
"
        IFS=,
    done
done
unset IFS
set +f
case $rformat in "" | table | md | csv) ;; *) die "--report-format '$(shown "$rformat")' is not table, md or csv" ;; esac
[ -x "$GEMMBENCH" ] || die "$(shown "$GEMMBENCH") is not built (run make first)"

# gemmbench's run options, from its --help: a line "LETTER NAME ARG" each
# (LETTER - when it has none, ARG 1 when it takes a value: "  -o, --output
# FILE", "      --quiet").  src/settings/help.c writes those lines.
runopts=$("$GEMMBENCH" --help 2>/dev/null </dev/null | awk '
    /^  -[A-Za-z0-9], --[a-z0-9]/ { l = substr($0, 4, 1); rest = substr($0, 9) }
    /^      --[a-z0-9]/ { l = "-"; rest = substr($0, 9) }
    l != "" {
        n = rest; sub(/ .*/, "", n)
        print l, n, (substr(rest, length(n) + 1) ~ /^ [^ ]/) ? 1 : 0
        l = ""
    }')
case $runopts in
*"o output 1"*) ;;
*) die "cannot read the run options from '$(shown "$GEMMBENCH") --help' (no -o, --output FILE there)" ;;
esac
# RUN OPTIONS as getopt_long reads them (permuting, a leading ':' in its
# letters): each is refused when it is, or holds, -o/--output.
run_die() {
    die "RUN OPTIONS: $*"
}
# runopt_long ARG: "LETTER NAME ARG" of the long option ARG (--NAME[=V])
# names: the one spelt exactly, else the only one it abbreviates.
runopt_long() {
    want=${1#--}
    want=${want%%=*}
    hit='' hits=0
    while read -r l n t; do
        if [ "$n" = "$want" ]; then
            hit="$l $n $t" hits=1
            break
        fi
        case $n in "$want"*) hit="$l $n $t" hits=$((hits + 1)) ;; esac
    done <<EOF
$runopts
EOF
    [ "$hits" -gt 0 ] || run_die "unknown option '$(shown "$1")' (gemmbench --help lists a run's options)"
    [ "$hits" = 1 ] || run_die "option '$(shown "$1")' is ambiguous (gemmbench --help)"
    echo "$hit"
}
# runopt_short C: "LETTER NAME ARG" of the letter C.
runopt_short() {
    case $1 in
    [A-Za-z0-9])
        while read -r l n t; do
            [ "$l" != "$1" ] || { echo "$l $n $t"; return; }
        done <<EOF
$runopts
EOF
        ;;
    esac
    run_die "unknown option '-$(shown "$1")' (gemmbench --help lists a run's options)"
}
output_refused() { # ARG: the option ARG sets the output
    run_die "'$(shown "$1")' sets the output (it is -o/--output): each task writes DIR/KIND.json"
}
check_run_options() {
    while [ $# -gt 0 ]; do
        a=$1
        shift
        case $a in
        --) run_die "'--': gemmbench takes no operands" ;;
        --*)
            o=$(runopt_long "$a") || exit 2
            set -f
            # shellcheck disable=SC2086 # LETTER NAME ARG, three words
            set -- $o "$@"
            set +f
            [ "$2" != output ] || output_refused "$a"
            t=$3
            shift 3
            case $a in
            *=*) [ "$t" = 1 ] || run_die "option '$(shown "${a%%=*}")' takes no value" ;;
            *)
                if [ "$t" = 1 ]; then
                    [ $# -gt 0 ] || run_die "option '$(shown "$a")' needs a value"
                    shift
                fi ;;
            esac ;;
        -?*)
            rest=${a#-}
            while [ -n "$rest" ]; do
                c=${rest%"${rest#?}"}
                rest=${rest#?}
                o=$(runopt_short "$c") || exit 2
                case $o in "o "*) output_refused "$a" ;; esac
                case $o in
                *" 1")
                    # The rest of the word is its value, else the next word.
                    if [ -z "$rest" ]; then
                        [ $# -gt 0 ] || run_die "option '$(shown "$a")' needs a value"
                        shift
                    fi
                    rest= ;;
                esac
            done ;;
        *) run_die "unexpected argument '$(shown "$a")': options only (gemmbench takes no operands)" ;;
        esac
    done
}
check_run_options "$@"
# Every *.json under OUT is combined: an earlier sweep's would be too.
[ ! -d "$out" ] || [ -z "$(find "$out" -name '*.json' -type f | head -n 1)" ] ||
    die "--out '$(shown "$out")' already holds result files (*.json): give a new or empty directory"
# Every argument is checked above, on any machine; sbatch is looked for only
# now, before the first thing is written and submitted.
command -v sbatch >/dev/null 2>&1 || die "sbatch not found: Slurm's client commands are not installed here"
# mkdir's own message (a parent that is a file, no permission) in die's line.
why=$(LC_ALL=C mkdir -p "$out/slurm" 2>&1) ||
    die "cannot create '$(shown "$out")/slurm': $(shown "${why##*: }")"
out=$(cd "$out" && pwd)
case $GEMMBENCH in /*) ;; *) GEMMBENCH=$(cd "$(dirname "$GEMMBENCH")" && pwd)/$(basename "$GEMMBENCH") ;; esac

# The job script: fixed text, its inputs as arguments (sbatch keeps a copy).
cat >"$out/slurm/job.sh" <<'EOF'
#!/bin/sh
# One task of scripts/slurm-sweep.sh: NAME OUT GEMMBENCH [RUN OPTIONS].
set -u
name=$1 out=$2 gemmbench=$3
shift 3
if [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then
    tag=$name-$SLURM_ARRAY_TASK_ID
else
    tag=$name
fi
echo "gemmbench sweep $tag: job ${SLURM_JOB_ID:-?} on ${SLURMD_NODENAME:-?}, partition ${SLURM_JOB_PARTITION:-?}, ${SLURM_CPUS_ON_NODE:-?} CPUs"
rm -f "$out/slurm/$tag.exit"
# The output last: gemmbench takes the last -o.
"$gemmbench" --quiet -f "$@" -o "$out/$tag.json"
rc=$?
echo "$rc" >"$out/slurm/$tag.exit"
exit "$rc"
EOF

# One job per kind: "NAME PARTITION CONSTRAINT JOBID" lines in $jobs.
jobs=$out/slurm/jobs
: >"$jobs"
rm -f "$out"/slurm/*.exit    # an earlier sweep's would stand for a task that never ran
failed=0
set -f
IFS=,
for p in $partitions; do
    for c in ${constraints:--}; do
        IFS=' '
        [ "$c" != - ] || c=
        name=$(kind_name "$p" "$c")
        log=$out/slurm/$name-%j.log
        [ -z "$array" ] || log=$out/slurm/$name-%A_%a.log
        if id=$(sbatch --parsable --job-name="gemmbench-$name" --partition="$p" \
            ${c:+--constraint="$c"} --nodes=1 --ntasks=1 --exclusive \
            ${array:+--array=0-$((array - 1))} ${time:+--time="$time"} \
            --output="$log" "$out/slurm/job.sh" "$name" "$out" "$GEMMBENCH" "$@" 2>"$out/slurm/sbatch.err"); then
            id=${id%%;*}
            echo "$name $p ${c:--} $id" >>"$jobs"
        else
            echo "gemmbench: slurm-sweep: $name not submitted: $(shown "$(head -n 1 "$out/slurm/sbatch.err")")" >&2
            echo "$name $p ${c:--} -" >>"$jobs"
            failed=$((failed + 1))
        fi
        IFS=,
    done
done
unset IFS
set +f
rm -f "$out/slurm/sbatch.err"

if [ "$wait" = 0 ]; then
    awk '$4 != "-" { print $1, $4 }' "$jobs"
    echo "then: sh scripts/fleet-report.sh --by-dir $out" >&2
    [ "$failed" = 0 ]
    exit
fi

# scontrol's one-line records of a job (every task of an array): empty once
# Slurm has forgotten it.
records() {
    scontrol -o show job "$1" 2>/dev/null </dev/null
}
field() { # FIELD: its value in a record on stdin
    tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1
}

# Wait while any job is pending, running or completing.
while :; do
    busy=0
    for id in $(awk '$4 != "-" { print $4 }' "$jobs"); do
        if records "$id" | grep -Eq 'JobState=(PENDING|RUNNING|CONFIGURING|COMPLETING|SUSPENDED|REQUEUED|RESIZING|SIGNALING|STAGE_OUT)'; then
            busy=1
            break
        fi
    done
    [ "$busy" = 0 ] && break
    sleep 2
done

# Each task's state: scontrol's record, else its exit file.
printf '%-16s %-10s %-12s %-12s %-11s %-6s %s\n' task job node partition state exit file
total=0 ok=0 names=
while read -r name p c id; do
    n=${array:-1}
    i=0
    while [ "$i" -lt "$n" ]; do
        tag=$name jid=$id
        if [ -n "$array" ]; then tag=$name-$i; jid=${id}_$i; fi
        total=$((total + 1))
        state=NOT_SUBMITTED exit=- node=- source=sbatch
        if [ "$id" != - ]; then
            rec=$(records "$jid" | head -n 1)
            if [ -n "$rec" ]; then
                state=$(echo "$rec" | field JobState)
                exit=$(echo "$rec" | field ExitCode)
                node=$(echo "$rec" | field NodeList)
                source=scontrol
            elif [ -f "$out/slurm/$tag.exit" ]; then
                code=$(cat "$out/slurm/$tag.exit")
                state=EXITED exit=$code:0 source=exit-file
                [ "$code" = 0 ] && state=COMPLETED
            else
                state=UNKNOWN source=none
            fi
        fi
        file=$out/$tag.json
        if [ "$state" = COMPLETED ] && [ "${exit%%:*}" = 0 ] && [ -f "$file" ]; then
            ok=$((ok + 1))
        else
            [ ! -f "$file" ] || mv -f "$file" "$out/slurm/$tag.json.failed"
            logf=$(ls "$out/slurm/$name-$id"*.log 2>/dev/null | head -n 1)
            [ -z "$array" ] || logf=$out/slurm/$name-${id}_$i.log
            file="- (not combined; log: ${logf:-none})"
            names="$names${names:+, }$tag ($state, exit $exit, from $source)"
        fi
        printf '%-16s %-10s %-12s %-12s %-11s %-6s %s\n' "$tag" "$jid" "${node:--}" "$p" "$state" "$exit" "$file"
        i=$((i + 1))
    done
done <"$jobs"
echo "states: scontrol show job (exit file when Slurm no longer knows the job)"
echo

if [ "$ok" -lt "$total" ]; then
    echo "gemmbench: slurm-sweep: $((total - ok)) of $total tasks failed: $names" >&2
fi
if [ "$ok" = 0 ]; then
    echo "gemmbench: slurm-sweep: no task succeeded, no report" >&2
    exit 1
fi
sh "$here/fleet-report.sh" --by-dir "$out" ${rformat:+--format "$rformat"}
rc=$?
[ "$rc" = 0 ] || exit "$rc"
[ "$ok" = "$total" ] || exit 1
exit 0
