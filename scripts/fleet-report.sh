#!/bin/sh
# fleet-report.sh - one `gemmbench report` over a directory of result files:
# the same sweep run on many machines (a CI matrix's artifacts, a Slurm job
# array's outputs), side by side per (variant, kernel, M, threads), each
# machine's median and %peak, the ratio to the first file, and the fastest
# variant per machine.  The recipe is in README.md ("Many machines").
#
# Usage: scripts/fleet-report.sh [--by-dir] [--first FILE] DIR [report options]
#   DIR          searched recursively for *.json result files (sorted by path)
#   --by-dir     name each file's columns by its directory under DIR (the CI
#                artifact or job name) instead of its machine label
#   --first F    put F first: the file every ratio divides by (default: the
#                first by path)
#   report options: --format md|csv|table, --variant, --kernel (gemmbench
#                report --help)
# Environment: GEMMBENCH (default: build/gemmbench of this checkout).
# Exit: gemmbench report's (2: bad input, e.g. a file that is not a result
# file, which is named); 2 when DIR holds no result file.
set -u

here=$(cd "$(dirname "$0")" && pwd)
GEMMBENCH=${GEMMBENCH:-$(dirname "$here")/build/gemmbench}

die() {
    echo "gemmbench: fleet-report: $*" >&2
    exit 2
}

by_dir=0
first=
while [ $# -gt 0 ]; do
    case $1 in
    -h | --help)
        sed -n '2,20s/^# \{0,1\}//p' "$0"
        exit 0 ;;
    --by-dir) by_dir=1; shift ;;
    --first)
        [ $# -ge 2 ] || die "--first needs a file"
        first=$2
        shift 2 ;;
    -*) die "unknown option '$1' before DIR (usage: scripts/fleet-report.sh [--by-dir] [--first FILE] DIR [report options])" ;;
    *) break ;;
    esac
done
[ $# -ge 1 ] || die "no directory given (usage: scripts/fleet-report.sh [--by-dir] [--first FILE] DIR [report options])"
dir=${1%/}
shift
[ -d "$dir" ] || die "'$dir' is not a directory"
[ -x "$GEMMBENCH" ] || die "$GEMMBENCH is not built (run make first)"
[ -z "$first" ] || [ -f "$first" ] || die "--first '$first' is not a file"

list=$(mktemp) || exit 3
trap 'rm -f "$list"' EXIT
find "$dir" -type f -name '*.json' | LC_ALL=C sort >"$list"
[ -s "$list" ] || die "no *.json result files under '$dir'"
case $(sed -n '/[[:space:]=]/p' "$list" | head -n 1) in
"") ;;
*) die "a file name under '$dir' has a blank or '=': rename it ($(sed -n '/[[:space:]=]/p' "$list" | head -n 1))" ;;
esac

# The argument for one file: NAME=PATH with --by-dir (the first directory
# below DIR; the file's own name when it lies in DIR itself).
arg() {
    if [ "$by_dir" = 1 ]; then
        rel=${1#"$dir"/}
        case $rel in
        */*) name=${rel%%/*} ;;
        *) name=$(basename "$rel" .json) ;;
        esac
        printf '%s=%s\n' "$name" "$1"
    else
        printf '%s\n' "$1"
    fi
}

# One file is a one-file report: no column to name.
if [ "$(wc -l <"$list")" -eq 1 ] && { [ -z "$first" ] || [ "$first" -ef "$(cat "$list")" ]; }; then
    by_dir=0
fi

set -f
files=
if [ -n "$first" ]; then
    files=$(arg "$first")
fi
while IFS= read -r f; do
    [ -n "$first" ] && [ "$f" -ef "$first" ] && continue
    files="$files $(arg "$f")"
done <"$list"
# shellcheck disable=SC2086  # one word per file: names have no blanks (checked)
exec "$GEMMBENCH" report $files "$@"
