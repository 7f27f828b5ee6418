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
# Any number of files; each path is one argument (blanks, quotes and '=' in
# names work); a newline in a name, or '=' in a --by-dir name, is refused.
# Environment: GEMMBENCH (default: build/gemmbench of this checkout).
# Exit: gemmbench report's (2: bad input, e.g. a file that is not a result
# file, which is named); 2 when DIR holds no result file.
set -u

here=$(cd "$(dirname "$0")" && pwd)
GEMMBENCH=${GEMMBENCH:-$(dirname "$here")/build/gemmbench}

# TEXT as gemmbench shows user text in a message (gb_printable in
# src/base/parse.c): bytes outside printable ASCII, and the backslash, as \xNN,
# so that a directory name cannot send escapes to the terminal.
shown() {
    printf '%s' "$1" | od -An -v -tu1 | awk '{
        for (i = 1; i <= NF; i++)
            if ($i < 32 || $i > 126 || $i == 92) printf "\\x%02x", $i
            else printf "%c", $i + 0
    }'
}

die() {
    echo "gemmbench: fleet-report: $*" >&2
    exit 2
}

by_dir=0
first=
while [ $# -gt 0 ]; do
    case $1 in
    -h | --help)
        sed -n '2,22s/^# \{0,1\}//p' "$0"
        exit 0 ;;
    --by-dir) by_dir=1; shift ;;
    --first)
        [ $# -ge 2 ] || die "--first needs a file"
        first=$2
        shift 2 ;;
    -*) die "unknown option '$(shown "$1")' before DIR (usage: scripts/fleet-report.sh [--by-dir] [--first FILE] DIR [report options])" ;;
    *) break ;;
    esac
done
[ $# -ge 1 ] || die "no directory given (usage: scripts/fleet-report.sh [--by-dir] [--first FILE] DIR [report options])"
dir=${1%/}
shift
# A path that begins with '-' would read as an option of report.
case $dir in -*) dir=./$dir ;; esac
[ -d "$dir" ] || die "'$(shown "$dir")' is not a directory"
[ -x "$GEMMBENCH" ] || die "$(shown "$GEMMBENCH") is not built (run make first)"
[ -z "$first" ] || [ -f "$first" ] || die "--first '$(shown "$first")' is not a file"

list=$(mktemp) || exit 3
trap 'rm -f "$list"' EXIT
# One path a line: a name with a newline in it would read as two files, so
# it is refused by name; any other name (blanks, quotes, '=') is one
# argument below.
nl='
'
bad=$(find "$dir" -type f -name '*.json' -path "*$nl*" | head -c 300)
[ -z "$bad" ] ||
    die "a file name under '$(shown "$dir")' has a newline: rename it ('$(shown "$bad")...')"
find "$dir" -type f -name '*.json' | LC_ALL=C sort >"$list"
[ -s "$list" ] || die "no *.json result files under '$(shown "$dir")'"
count=$(wc -l <"$list")
if [ -n "$first" ]; then
    count=$((count + 1))
    while IFS= read -r f; do
        [ "$f" -ef "$first" ] && count=$((count - 1)) && break
    done <"$list"
fi

# The argument for one file, into $out: NAME=PATH with --by-dir (the first
# directory below DIR; the file's own name when it lies in DIR itself),
# unless there is one file only: NAME= names a column of a several-file
# report, and one file gets the one-file report.
arg() {
    out=$1
    [ "$by_dir" = 1 ] && [ "$count" -gt 1 ] || return 0
    rel=${1#"$dir"/}
    case $rel in
    */*) name=${rel%%/*} ;;
    *) name=$(basename "$rel" .json) ;;
    esac
    case $name in
    *=*) die "--by-dir: the name '$(shown "$name")' has a '=', which NAME=FILE cannot" \
        "hold: rename it" ;;
    esac
    out=$name=$1
}

# The report options stay in "$@"; the files are appended, one argument
# each (no word splitting), then the options rotated behind them: as many
# files as the directory holds, in one report.
nopts=$#
if [ -n "$first" ]; then
    arg "$first"
    set -- "$@" "$out"
fi
while IFS= read -r f; do
    [ -n "$first" ] && [ "$f" -ef "$first" ] && continue
    arg "$f"
    set -- "$@" "$out"
done <"$list"
while [ "$nopts" -gt 0 ]; do
    set -- "$@" "$1"
    shift
    nopts=$((nopts - 1))
done
rm -f "$list"   # exec runs no EXIT trap
exec "$GEMMBENCH" report "$@"
