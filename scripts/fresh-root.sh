#!/bin/sh
# fresh-root.sh - the README's two set-up commands on a new machine, as a
# new user meets them: a minimal Debian bookworm root built by mmdebstrap
# (build-essential, git, ca-certificates, python3: nothing this project
# installs), this checkout's HEAD cloned into it, and inside it (chroot with
# /proc, /dev and /sys):
#
#   1. as a user who is not root: `make run` and `make test` each print the
#      `apt-get install` line of what the build needs and exit non-zero
#      (they cannot install it, and there is nothing to build without it);
#   2. root installs exactly what that line names, nothing optional; the
#      user's `make run` and `make test` pass, `make test` counting what
#      needs an optional package (the reference libraries, hwloc, gnuplot,
#      clang, Slurm, qemu) as skipped, each skip naming what it needs;
#   3. as root, in a new clone: `make`, which installs what is missing (the
#      build's packages, the reference libraries, hwloc) and links the
#      reference variants in that same first build; then `make run` and
#      `make test`, which pass.
#
# Any step that does not do so fails the script (exit 1), with its output;
# bad arguments are refused in one line (exit 2) before anything is built.
# Every mount is undone and every process left in the root is killed at the
# end, also on failure or interruption; the root is removed unless --keep.
# `.ci/run` runs steps 1 and 3 first, before the host installs anything
# optional: about 5 minutes on 2 vCPUs (mmdebstrap 45 s, root's `make run`
# 2 minutes with its installs, `make test` 3).  Step 2 is the other end of
# the optional-package matrix (none of them), 4 minutes more.
#
# Usage (as root): scripts/fresh-root.sh [--keep] [--steps 13] [DIR]
#   DIR      where the root is built (default: a new directory under /tmp)
#   --keep   leave the root in DIR (mounts are undone all the same)
#   --steps  which of the steps above to run (default 13; step 2 runs
#            step 1 first, for the line it installs)
# Needs mmdebstrap (installed with apt-get when missing) and the network
# to Debian's archive.
set -u
. "$(dirname "$0")/lib.sh"

# refuse WHY: the one line of a bad argument or setting, exit 2.
refuse() {
    echo "gemmbench: fresh-root: $1" >&2
    exit 2
}

keep=no steps=13 dir="" dir_given=no
while [ $# -gt 0 ]; do
    case $1 in
    --keep) keep=yes ;;
    --steps)
        [ $# -ge 2 ] || refuse "--steps needs a value: digits of 1, 2 and 3"
        steps=$2
        shift ;;
    -*) refuse "unknown option '$(shown "$1")'" ;;
    *)
        # One root a run: of two DIRs, one would be silently ignored.
        [ $dir_given = no ] ||
            refuse "one DIR only, not both '$(shown "$dir")' and '$(shown "$1")'"
        [ -n "$1" ] || refuse "DIR is empty"
        dir=$1 dir_given=yes ;;
    esac
    shift
done
case $steps in
'' | *[!123]*) refuse "--steps takes digits of 1, 2 and 3, not '$(shown "$steps")'" ;;
esac
[ -z "$dir" ] || [ ! -e "$dir" ] || [ -d "$dir" ] || refuse "DIR '$(shown "$dir")' is not a folder"
[ "$(id -u)" = 0 ] || refuse "needs root (mmdebstrap, chroot, mount)"
repo=$(git rev-parse --show-toplevel 2>/dev/null) || refuse "not inside a git checkout"
rev=$(git -C "$repo" rev-parse HEAD) || exit 2
if ! command -v mmdebstrap >/dev/null 2>&1; then
    apt-get update -qq >/dev/null &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap >/dev/null || {
        echo "fresh-root: mmdebstrap is missing and could not be installed" >&2
        exit 1
    }
fi
[ -n "$dir" ] || dir=$(mktemp -d /tmp/gemmbench-fresh.XXXXXX) || exit 1
mkdir -p "$dir" || exit 1
ROOT=$(cd "$dir" && pwd)/root
[ ! -e "$ROOT" ] && [ ! -L "$ROOT" ] || refuse "$(shown "$ROOT") exists already; give a new DIR"

mounted=""
cleanup() {
    # Processes a step left behind hold the mounts: end them first.
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/root" 2>/dev/null)" = "$ROOT" ] && kill -9 "${p#/proc/}" 2>/dev/null
    done
    for m in $mounted; do
        umount -R "$ROOT/$m" 2>/dev/null || umount -R -l "$ROOT/$m" 2>/dev/null
    done
    mounted=""
    if grep -q " $ROOT/" /proc/mounts; then
        echo "fresh-root: mounts under $ROOT remain" >&2
        return 1
    fi
    if [ "$keep" = no ]; then
        rm -rf "$ROOT"
        rmdir "$dir" 2>/dev/null
    fi
    return 0
}
trap 'cleanup' EXIT
trap 'exit 130' INT TERM HUP

t0=$(date +%s)
say() { echo "fresh-root: [$(($(date +%s) - t0)) s] $*"; }
fail() {
    say "FAIL: $*"
    exit 1
}

say "building a minimal Debian bookworm root in $ROOT"
mmdebstrap --quiet --variant=minbase \
    --include=build-essential,git,ca-certificates,python3 bookworm "$ROOT" ||
    fail "mmdebstrap could not build the root"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null
for m in proc dev sys; do
    case $m in
    proc) mount -t proc proc "$ROOT/proc" ;;
    *) mount --rbind "/$m" "$ROOT/$m" && mount --make-rslave "$ROOT/$m" ;;
    esac || fail "could not mount /$m in the root"
    mounted="$m $mounted"
done
in_root() { chroot "$ROOT" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
chroot "$ROOT" useradd -m -s /bin/sh newcomer || fail "useradd"

# clone_into HOME: this checkout's HEAD, as a new user clones it.
clone_into() {
    git clone -q --no-local "$repo" "$ROOT$1/gemmbench" &&
        git -C "$ROOT$1/gemmbench" checkout -q "$rev" || fail "could not clone $rev into $1"
}
as_user() { in_root HOME=/home/newcomer runuser -u newcomer -- sh -c "cd /home/newcomer/gemmbench && $1"; }
as_root() { in_root HOME=/root sh -c "cd /root/gemmbench && $1"; }
log=$dir/step.log

case $steps in *1* | *2*)
    clone_into /home/newcomer
    chroot "$ROOT" chown -R newcomer:newcomer /home/newcomer/gemmbench || fail "chown"
    ;;
esac

line=""
case $steps in *1* | *2*)
    for cmd in run test; do
        say "1. as a user: make $cmd, with nothing installed"
        as_user "make $cmd" >"$log" 2>&1
        rc=$?
        if [ $rc -eq 0 ]; then
            cat "$log"
            fail "make $cmd as a user exited 0 with libcjson-dev and nettle-dev missing"
        fi
        line=$(sed -n 's/^ *sudo apt-get install -y //p' "$log" | head -n 1)
        for pkg in libcjson-dev nettle-dev; do
            case " $line " in
            *" $pkg "*) ;;
            *) cat "$log"; fail "make $cmd as a user did not print the apt-get line naming $pkg" ;;
            esac
        done
        say "ok: exit $rc, and it printed: sudo apt-get install -y $line"
    done
    ;;
esac

# both AS WHO: `make run`, then `make test`, through AS (as_user, as_root);
# the skips and the summary shown, any failure fatal.
both() {
    $1 "make run" >"$log" 2>&1 || { tail -n 40 "$log"; fail "make run $2"; }
    say "ok: make run $2"
    $1 "make test" >"$log" 2>&1
    rc=$?
    grep '^\(FAIL\|skip\) ' "$log"
    summary=$(tail -n 1 "$log")
    [ $rc -eq 0 ] || { tail -n 40 "$log"; fail "make test $2: exit $rc: $summary"; }
    say "ok: make test $2: $summary"
}

case $steps in *2*)
    say "2. root installs what the line names ($line); the user runs make run, make test"
    in_root sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $line" >"$log" 2>&1 ||
        { tail -n 20 "$log"; fail "apt-get install $line"; }
    both as_user "as a user, no optional package"
    ;;
esac

case $steps in *3*)
    say "3. as root, a new clone: make, make run, make test"
    clone_into /root
    # The first plain `make` installs and then links what it installed:
    # a build that probed before setup.sh ran would lack every reference
    # variant until a second make.
    as_root "make" >"$log" 2>&1 || { tail -n 40 "$log"; fail "make as root"; }
    refs=$(as_root "./build/gemmbench --list" | awk '$2 == "reference" { printf " %s", $1 }')
    for r in openblas blis onednn libxsmm; do
        case "$refs " in
        *" $r "*) ;;
        *) fail "the first make as root built no '$r' variant (reference variants:${refs:- none})" ;;
        esac
    done
    say "ok: make as root linked the reference libraries it installed:$refs"
    both as_root "as root"
    ;;
esac
rm -f "$log"
say "passed"
