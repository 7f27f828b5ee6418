#!/usr/bin/env bash
# ab-power.sh - how often gemmbench ab catches a slowdown of known size.
# NEW is the same build with its monotonic clocks running SCALE times as
# fast (scripts/scaleclock.c, preloaded): every timed call of NEW is exactly
# SCALE times longer, while both builds see the machine's real noise.  For
# each SCALE, REPEATS runs of ab at its defaults; per SCALE and class of
# entry (by OLD's median call time and thread count), how many entries the
# gate caught.  SCALE 1 is the A/A control (every catch a false alarm).
#
# usage: scripts/ab-power.sh OUTDIR [REPEATS=3] [SCALES="1 1.05 1.075 1.10"] [-- run/ab args]
# default sweep: packed, rule_based, parallel_vec_j, k8 x the three kernels x
# M 16,128, 2 threads, --reps 60 (ab's defaults otherwise).  Needs cc, python3.
set -u
out=${1:?usage: scripts/ab-power.sh OUTDIR [REPEATS] [SCALES] [-- args]}
shift
repeats=3
scales="1 1.05 1.075 1.10"
if [ $# -gt 0 ] && [ "$1" != -- ]; then repeats=$1; shift; fi
if [ $# -gt 0 ] && [ "$1" != -- ]; then scales=$1; shift; fi
[ $# -gt 0 ] && [ "$1" = -- ] && shift
if [ $# -gt 0 ]; then
    args=("$@")
else
    args=(--variant packed,rule_based,parallel_vec_j,k8 --kernel all --m 16,128
          --threads 2 --reps 60)
fi
here=$(cd "$(dirname "$0")" && pwd)
G=$(cd "$here/.." && pwd)/build/gemmbench
G=${GEMMBENCH:-$G}
mkdir -p "$out" || exit 3
cc -O2 -shared -fPIC -o "$out/scaleclock.so" "$here/scaleclock.c" -ldl || exit 3

for s in $scales; do
    cat >"$out/new-$s.sh" <<WRAP
#!/bin/sh
ASAN_OPTIONS=\${ASAN_OPTIONS:+\$ASAN_OPTIONS:}verify_asan_link_order=0 \\
GB_CLOCK_SCALE=$s LD_PRELOAD="$out/scaleclock.so" exec "$G" "\$@"
WRAP
    chmod +x "$out/new-$s.sh"
    for r in $(seq 1 "$repeats"); do
        echo "scale $s, run $r of $repeats" >&2
        "$G" ab "$G" "$out/new-$s.sh" "${args[@]}" --format json --quiet --force \
            -o "$out/ab-$s-$r" >"$out/ab-$s-$r.verdict.json" 2>"$out/ab-$s-$r.err" </dev/null
        rc=$?
        if [ $rc -ne 0 ] && [ $rc -ne 1 ]; then
            echo "ab exited $rc: $(head -c 300 "$out/ab-$s-$r.err")" >&2
            exit $rc
        fi
    done
done

python3 - "$out" $scales <<'PY'
import glob, json, math, statistics, sys
out, scales = sys.argv[1], sys.argv[2:]
def cls(e):
    t = e["old_median_us"]
    size = "< 0.3 ms" if t < 300 else "0.3-3 ms" if t < 3000 else ">= 3 ms"
    return f'{e["threads"]} thr, {size}'
print(f"| scale | class | caught | runs x entries | median estimate | median 99 % interval |")
print("|--:|---|--:|--:|--:|--:|")
for s in scales:
    by = {}
    for f in sorted(glob.glob(f"{out}/ab-{s}-*.verdict.json")):
        for e in json.load(open(f))["entries"]:
            if e.get("ratio") is None:
                continue
            by.setdefault(cls(e), []).append(e)
    for c in sorted(by):
        es = by[c]
        caught = sum(1 for e in es if e["gate_fail"])
        est = statistics.median(e["ratio"] for e in es)
        wid = statistics.median(e["ratio_hi"] / e["ratio_lo"] for e in es)
        print(f"| {s} | {c} | {caught} | {len(es)} | {est:.3f} | x{wid:.3f} |")
PY
