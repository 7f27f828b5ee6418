# calibration_cache.sh - what a run does with what it finds at packed's
# calibration cache path (schedules/packed_calibration.c, read as every
# input file is: a regular file, at most 64 KiB, strict JSON).  A FIFO or a
# directory there is no cache: the run neither waits on it nor replaces it,
# says so in one line and reads the default (in place); a file too large is
# refused in one line, measured again and replaced (not JSON: calibrate.sh;
# every case at the reader: tests/unit/test_calibrate.c).
. tests/cli/lib.sh
G=$GEMMBENCH
CACHE=$WORK/cache

# The quick measurement, in this test's own cache; packed on a small shape.
run() {
    XDG_CACHE_HOME=$CACHE GEMMBENCH_CALIBRATE=quick timeout -k 5 60 "$G" --variant packed \
        --shape 16x64x64 --reps 1 --warmup 0 --threads 2 --force "$@"
}

# machine.calibration[0].source of FILE, or "none".
source_of() {
    python3 -c 'import json, sys
c = json.load(open(sys.argv[1])).get("machine", {}).get("calibration") or [{}]
print(c[0].get("source", "none"))' "$1" 2>/dev/null || echo none
}

# check_run NAME PATTERN SOURCE: the last run exited 0, its stderr has one
# line about the cache, matching PATTERN, and the file records SOURCE.
check_run() {
    name=$1 pattern=$2 want=$3
    if [ "$rc" -ne 0 ]; then
        echo "FAIL ${name}: exit $rc (124 or 137: it waited): $(head -c 300 "$WORK/$name.err")"
        return
    fi
    lines=$(grep -c 'calibration cache' "$WORK/$name.err")
    if [ "$lines" -ne 1 ] || ! grep -q -- "$pattern" "$WORK/$name.err"; then
        echo "FAIL ${name}_one_line: $lines lines, expected one matching '$pattern': $(head -c 400 "$WORK/$name.err")"
    else
        echo "ok ${name}_one_line"
    fi
    if ! command -v python3 >/dev/null 2>&1; then
        skip "${name}_source" "needs python3 to read the result file"
        return
    fi
    got=$(source_of "$WORK/$name.json")
    if [ "$got" = "$want" ]; then echo "ok ${name}_source"; else echo "FAIL ${name}_source: $got, expected $want"; fi
}

# ---- the cache file's path: the first run measures and writes it -----------------
run -o "$WORK/first.json" >/dev/null 2>"$WORK/first.err"
rc=$?
set -- "$CACHE"/gemmbench/calibration-*.json
path=$1
if [ "$rc" -ne 0 ] || [ ! -f "$path" ]; then
    echo "FAIL first_run_caches: exit $rc, cache file '$path': $(head -c 300 "$WORK/first.err")"
    exit 0
fi
echo "ok first_run_caches"

# ---- a FIFO (no writer): not waited on, left in place -------------------------------
rm -f "$path"
if mkfifo "$path" 2>/dev/null; then
    run -o "$WORK/fifo.json" >/dev/null 2>"$WORK/fifo.err"
    rc=$?
    check_run fifo "calibration cache .* is a FIFO, device or socket, not a regular file: packed's calibration not cached" default
    if [ -p "$path" ]; then echo "ok fifo_left_alone"; else echo "FAIL fifo_left_alone: no FIFO at $path"; fi
    rm -f "$path"
else
    skip fifo "mkfifo cannot make a FIFO in $CACHE"
fi

# ---- a directory ----------------------------------------------------------------------
mkdir "$path"
run -o "$WORK/dir.json" >/dev/null 2>"$WORK/dir.err"
rc=$?
check_run dir "calibration cache .* is a directory, not a file: packed's calibration not cached" default
if [ -d "$path" ]; then echo "ok dir_left_alone"; else echo "FAIL dir_left_alone: no directory at $path"; fi
rmdir "$path"

# ---- larger than a calibration (64 KiB): refused, measured again, replaced ------------
head -c 70000 /dev/zero | tr '\0' ' ' >"$path"
run -o "$WORK/big.json" >/dev/null 2>"$WORK/big.err"
rc=$?
check_run big "calibration cache .* refused: corrupt: larger than a calibration; measuring again" measured
size=$(wc -c <"$path")
if [ "$size" -lt 65536 ]; then echo "ok big_replaced"; else echo "FAIL big_replaced: $size bytes"; fi

exit 0
