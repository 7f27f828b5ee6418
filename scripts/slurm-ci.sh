#!/bin/sh
# slurm-ci.sh - scripts/slurm-sweep.sh run for real on a one-host Slurm
# cluster (.ci/run calls it; it needs root).  Installs Debian's slurm-wlm and
# munge when missing, starts munged, slurmctld and slurmd on this host with a
# private configuration (two partitions on the one node, proctrack/linuxproc,
# task/none: no cgroups, no systemd), then:
#   1. a sweep over both partitions, a job array of 2 tasks each: every task's
#      file is valid (scripts/validate-json.py), carries its Slurm ids, node
#      and partition, and the fleet report lists all four;
#   2. a job array of 2 tasks, task 1 given a bad option: it is reported as
#      FAILED with Slurm's state and exit code, task 0 is still reported, and
#      the exit status is 1;
#   3. --no-wait prints the job id of a job Slurm knows, and returns.
# Stops the daemons it started (by their pids) and removes its state.
# Exit: 0 passed; 1 a check failed, or the cluster did not come up; 77 Slurm
# cannot be installed here: CI reports the step skipped.  The reason is on
# stderr either way.
#   77 (skip) only before anything of Slurm runs: not root, no apt-get, or
#      `apt-get install slurm-wlm munge` failed (no network, no such
#      package).  This machine cannot have Slurm.
#   1 (fail) everything after Slurm is installed: a program missing after
#      the install, munged not starting, `slurmd -C` printing no node line,
#      the node not idle after 30 s (with the daemons' log lines), and every
#      check of the sweeps.  Slurm is here and this script could not run it:
#      a fault of the script, the configuration or the machine, to be seen.
set -u
cd "$(dirname "$0")/.." || exit 1
root=$(pwd)
start=$(date +%s)

say() { echo "slurm-ci: $*"; }
fail() {
    echo "slurm-ci: FAIL: $*" >&2
    exit 1
}
cannot() { # Slurm cannot be installed here: say why, exit 77 (skip)
    echo "slurm-ci: SKIP: Slurm cannot be installed here: $*" >&2
    exit 77
}

tools="munged mungekey slurmctld slurmd sbatch scontrol sinfo scancel"
missing() { # the tools not on PATH
    for t in $tools; do command -v "$t" >/dev/null 2>&1 || printf '%s ' "$t"; done
}
[ "$(id -u)" = 0 ] || cannot "needs root (to install slurm-wlm and run slurmd as root)"
[ -x build/gemmbench ] || fail "build/gemmbench is not built (run make first)"
if [ -n "$(missing)" ]; then
    command -v apt-get >/dev/null 2>&1 ||
        cannot "no apt-get to install slurm-wlm and munge (missing: $(missing))"
    say "installing slurm-wlm and munge"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge; } \
        >/tmp/slurm-ci-apt.$$ 2>&1 ||
        cannot "apt-get install slurm-wlm munge failed: $(grep -E '^(E|W):' /tmp/slurm-ci-apt.$$ | head -n 1)"
    rm -f /tmp/slurm-ci-apt.$$
fi
# From here on Slurm is installed: what goes wrong is a failure, not a skip.
[ -z "$(missing)" ] || fail "missing after installing slurm-wlm and munge: $(missing)"

S=$(mktemp -d /tmp/gemmbench-slurm.XXXXXX) || fail "mktemp failed"
pids=
# The job steps still alive on this node: slurmstepd's sockets in the spool
# directory (NODE_JOB.STEP), removed when the step ends.
steps() {
    ls "$S/d" 2>/dev/null | grep -E '_[0-9]+\.[0-9]+$'
}
# The slurmstepd processes started since our slurmd (their start time, field
# 22 of /proc/PID/stat, is not before slurmd's): the steps of this cluster.
stepds() {
    [ -n "${slurmd_start:-}" ] || return 0
    for d in /proc/[0-9]*; do
        [ "$(cat "$d/comm" 2>/dev/null)" = slurmstepd ] || continue
        t=$(awk '{ print $22 }' "$d/stat" 2>/dev/null)
        [ -n "$t" ] && [ "$t" -ge "$slurmd_start" ] && echo "${d#/proc/}"
    done
}
stop() {
    # the jobs first (none should be left), their steps, then the daemons
    if [ -n "$pids" ]; then
        scancel --quiet --user=root 2>/dev/null
        i=0
        while [ -n "$(steps)" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
        [ -z "$(steps)" ] || echo "slurm-ci: job steps still alive after 10 s: $(steps | tr '\n' ' ')" >&2
        # a slurmstepd outlives its socket by a moment: wait for ours to exit
        i=0
        while [ -n "$(stepds)" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
        for p in $(stepds); do kill -9 "$p" 2>/dev/null; done
    fi
    for p in $pids; do kill "$p" 2>/dev/null; done
    for p in $pids; do
        i=0
        while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
        kill -0 "$p" 2>/dev/null && kill -9 "$p" 2>/dev/null
    done
    [ -z "$pids" ] || say "stopped the daemons (pids$(printf ' %s' $pids))"
    pids=
    rm -rf "$S"
}
trap 'stop' EXIT
trap 'exit 130' INT TERM
logline() { # FILE: its last error line, else its last line
    { grep -iE 'error|fatal' "$1" 2>/dev/null || cat "$1" 2>/dev/null; } | tail -n 1
}

# munge, private: its own key, socket, pid and log in $S.
mungekey --create --keyfile="$S/munge.key" >/dev/null 2>&1 ||
    dd if=/dev/urandom of="$S/munge.key" bs=1024 count=1 2>/dev/null
chmod 600 "$S/munge.key"
munged -F --force --socket="$S/munge.socket" --key-file="$S/munge.key" \
    --pid-file="$S/munged.pid" --log-file="$S/munged.log" --seed-file="$S/munged.seed" \
    >>"$S/munged.log" 2>&1 &
munged_pid=$!
pids="$pids $munged_pid"
# Up to 5 s for its socket; no longer than munged lives (-F: it stays in
# the foreground, so its exit is a failure to start).
i=0
while [ ! -S "$S/munge.socket" ] && [ $i -lt 50 ] && kill -0 "$munged_pid" 2>/dev/null; do
    sleep 0.1
    i=$((i + 1))
done
[ -S "$S/munge.socket" ] || fail "munged did not start: $(logline "$S/munged.log")"

# slurm.conf for this host: the node line from `slurmd -C`, two partitions on
# it, ports from the pid so that two runs on one machine do not meet.
host=$(hostname -s)
node=$(slurmd -C 2>/dev/null | head -n 1 | tr ' ' '\n' |
    grep -E '^(NodeName|CPUs|Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore)=' | tr '\n' ' ')
case $node in NodeName=*) ;; *) fail "slurmd -C printed no node line: $(slurmd -C 2>&1 | head -n 1)" ;; esac
nodename=$(echo "$node" | sed 's/^NodeName=\([^ ]*\).*/\1/')
port=$((20000 + $$ % 20000))
mkdir -p "$S/ctld" "$S/d"
cat >"$S/slurm.conf" <<EOF
ClusterName=gemmbench-ci
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$S/munge.socket
StateSaveLocation=$S/ctld
SlurmdSpoolDir=$S/d
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
PlugStackConfig=$S/plugstack.conf
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=gb_a Nodes=$nodename Default=YES MaxTime=5 State=UP
PartitionName=gb_b Nodes=$nodename MaxTime=5 State=UP
EOF
: >"$S/plugstack.conf"
SLURM_CONF=$S/slurm.conf
export SLURM_CONF

slurmctld -D -c -f "$SLURM_CONF" >>"$S/slurmctld.out" 2>&1 &
pids="$pids $!"
slurmd -D -f "$SLURM_CONF" >>"$S/slurmd.out" 2>&1 &
pids="$pids $!"
slurmd_start=$(awk '{ print $22 }' "/proc/$!/stat" 2>/dev/null)
i=0 state=
while [ $i -lt 60 ]; do
    state=$(sinfo -h -n "$nodename" -o %T 2>/dev/null | head -n 1)
    case $state in idle*) break ;; esac
    sleep 0.5
    i=$((i + 1))
done
case $state in
idle*) ;;
*)
    for d in slurmctld slurmd; do
        echo "slurm-ci: $d log: $(logline "$S/$d.log")" >&2
        echo "slurm-ci: $d stderr: $(tail -n 1 "$S/$d.out")" >&2
    done
    fail "node $nodename is '${state:-not known to sinfo}' after 30 s, not idle" ;;
esac
say "cluster up in $(($(date +%s) - start)) s: $(sinfo -h -o '%P %D %c %T' | tr '\n' ';')"

run_opts="--quick --kernel qkv --m 16 --variant k16,packed --threads all"

# 1. Two partitions, a job array of two tasks in each.
say "1: sh scripts/slurm-sweep.sh --partitions gb_a,gb_b --array 2 --time 2 --out \$S/ok -- $run_opts"
# shellcheck disable=SC2086  # run_opts: one word per option
timeout 75 sh scripts/slurm-sweep.sh --partitions gb_a,gb_b --array 2 --time 2 --out "$S/ok" \
    --report-format md -- $run_opts >"$S/ok.out" 2>"$S/ok.err"
rc=$?
sed "s|$S|\$S|g" "$S/ok.out"
sed "s|$S|\$S|g" "$S/ok.err" >&2
[ $rc = 0 ] || fail "the sweep exited $rc, expected 0"
for f in gb_a-0 gb_a-1 gb_b-0 gb_b-1; do
    python3 scripts/validate-json.py "$S/ok/$f.json" --complete >/dev/null ||
        fail "$f.json: $(python3 scripts/validate-json.py "$S/ok/$f.json" --complete | head -n 1)"
    python3 - "$S/ok/$f.json" "$f" "$nodename" <<'EOF' || fail "$f.json does not carry its Slurm ids"
import json, sys
path, tag, node = sys.argv[1:]
s = json.load(open(path))["machine"].get("slurm") or sys.exit(f"{path}: no machine.slurm")
part, task = tag.rsplit("-", 1)
want = {"partition": part, "array_task_id": int(task), "node": node}
bad = {k: s.get(k) for k, v in want.items() if s.get(k) != v}
if bad or not isinstance(s.get("job_id"), int) or not isinstance(s.get("array_job_id"), int) \
        or not s.get("cpus", 0) >= 1:
    sys.exit(f"{path}: machine.slurm is {s}, expected {want}")
print(f"slurm-ci: {tag}.json: valid; slurm {json.dumps(s)}")
EOF
done
for f in gb_a-0 gb_a-1 gb_b-0 gb_b-1; do
    grep -q "$f" "$S/ok.out" || fail "the fleet report does not name $f"
done
grep -q '^| k16 ' "$S/ok.out" || fail "the fleet report has no k16 row"
say "1: ok: 4 tasks, 4 valid files with their Slurm ids, all 4 in the fleet report"

# 2. A job array of two tasks; task 1 gets a bad option.
cat >"$S/gemmbench-task1-fails" <<EOF
#!/bin/sh
# task 1 of the array gets an option gemmbench refuses
if [ "\${SLURM_ARRAY_TASK_ID:-}" = 1 ]; then set -- "\$@" --no-such-option; fi
exec "$root/build/gemmbench" "\$@"
EOF
chmod +x "$S/gemmbench-task1-fails"
say "2: GEMMBENCH=\$S/gemmbench-task1-fails sh scripts/slurm-sweep.sh --partitions gb_a --array 2 --time 2 --out \$S/bad -- $run_opts"
# shellcheck disable=SC2086
GEMMBENCH=$S/gemmbench-task1-fails timeout 75 sh scripts/slurm-sweep.sh --partitions gb_a --array 2 \
    --time 2 --out "$S/bad" --report-format md -- $run_opts >"$S/bad.out" 2>"$S/bad.err"
rc=$?
sed "s|$S|\$S|g" "$S/bad.out"
sed "s|$S|\$S|g" "$S/bad.err" >&2
[ $rc = 1 ] || fail "the sweep with a failing task exited $rc, expected 1"
grep -Eq '^gb_a-1 .* FAILED +2:0' "$S/bad.out" || fail "task gb_a-1 is not listed as FAILED with exit 2:0"
grep -q 'gb_a-1 (FAILED, exit 2:0, from scontrol)' "$S/bad.err" || fail "stderr does not name the failed task"
grep -q 'no-such-option' "$S/bad/slurm/"gb_a-*_1.log || fail "the failed task's log lacks gemmbench's error"
grep -q 'gb_a-0' "$S/bad.out" && grep -q '^| k16 ' "$S/bad.out" || fail "task gb_a-0 is not in the report"
! grep '^|' "$S/bad.out" | grep -q 'gb_a-1' || fail "the failed task is in the report"
[ ! -f "$S/bad/gb_a-1.json" ] || fail "the failed task left a result file among the combined ones"
say "2: ok: task 1 reported FAILED (exit 2:0, from scontrol), task 0 combined, exit 1"

# 3. --no-wait: KIND JOBID, the job known to Slurm (cancelled by stop).
say "3: sh scripts/slurm-sweep.sh --partitions gb_b --out \$S/nowait --no-wait -- $run_opts"
# shellcheck disable=SC2086
sh scripts/slurm-sweep.sh --partitions gb_b --out "$S/nowait" --no-wait -- $run_opts \
    >"$S/nowait.out" 2>"$S/nowait.err" || fail "--no-wait exited $?: $(head -n 1 "$S/nowait.err")"
cat "$S/nowait.out"
sed "s|$S|\$S|g" "$S/nowait.err" >&2
id=$(sed -n 's/^gb_b \([0-9][0-9]*\)$/\1/p' "$S/nowait.out")
[ -n "$id" ] || fail "--no-wait did not print 'gb_b JOBID'"
scontrol show job "$id" >/dev/null 2>&1 || fail "--no-wait printed job $id, which Slurm does not know"
say "3: ok: job $id submitted, not waited for (cancelled now)"

stop
trap - EXIT
say "ok in $(($(date +%s) - start)) s"
exit 0
