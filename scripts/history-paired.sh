#!/bin/sh
# history-paired.sh - the detection power of a paired history on this
# machine's own noise: every commit of a history is measured beside one
# fixed anchor build with `gemmbench ab`, added with `history add --anchor`,
# and judged by `history changes` on the per-commit NEW/ANCHOR ratios
# (src/analysis/history.md, "Paired series").  A step of known size is put
# into one kernel from a known commit on: scripts/slowcall.c, preloaded,
# makes oneDNN's calls take exactly STEP % longer, so the onednn series must
# step there and every other series must stay flat.
#
# The commits of a history are builds of the same source that differ in
# code layout only: the anchor's objects linked again in a shuffled order
# (LAYOUTS of them, one drawn per commit), since code layout alone moves
# times.  The histories are measured round robin in shuffled orders, as in
# history-power.sh: a slow spell of the machine lands on a different commit
# of each.  Prints per step size the share of the stepped series found at
# c(STEP_AT-1)..c(STEP_AT) and the change points elsewhere, and for A/A
# histories (no step) the share with any change point; the same for the
# same runs kept as an absolute history (each commit's NEW file alone,
# `history add FILE`), the design the pairs replace; SUMMARY.json in KEEP.
#
#   RUNS=30 STEP_AT=21 HISTORIES=4 STEPS=5 sh scripts/history-paired.sh
#
# environment:
#   GEMMBENCH   the build measured and its objects relinked (default build/gemmbench)
#   RUNS        commits per history (default 8); STEP_AT the first slow one (5)
#   HISTORIES   histories per step size (default 1); AA the A/A histories
#               (default HISTORIES)
#   STEPS       step sizes in percent (default "5")
#   LAYOUTS     code layouts the commits draw from (default 4)
#   SWEEP       ab's options (default: onednn and packed, qkv and mlp_reduce
#               at M=16,128, 2 threads, 8 rounds: four series a variant)
#   PRIORITY    rt: run ab under SCHED_FIFO (chrt -f 10), so that other work
#               on this machine (a build) does not preempt the measurement;
#               the machine's own slow spells (steal) still reach it
#   LOCK        a file each ab run holds (flock) while it measures
#   KEEP, REUSE as in history-power.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
G=${GEMMBENCH:-$here/../build/gemmbench}
RUNS=${RUNS:-8}
STEP_AT=${STEP_AT:-5}
HISTORIES=${HISTORIES:-1}
AA=${AA:-$HISTORIES}
STEPS=${STEPS:-5}
LAYOUTS=${LAYOUTS:-4}
SWEEP=${SWEEP:---variant onednn,packed --kernel qkv,mlp_reduce --m 16,128 --threads 2 --rounds 8}
GEMMBENCH_PEAK=${GEMMBENCH_PEAK:-quick}
GEMMBENCH_BANDWIDTH=${GEMMBENCH_BANDWIDTH:-quick}
export GEMMBENCH_PEAK GEMMBENCH_BANDWIDTH
me="gemmbench: history-paired"

[ -x "$G" ] || { echo "$me: $G is not built (run make)" >&2; exit 2; }
command -v python3 >/dev/null 2>&1 || { echo "$me: needs python3" >&2; exit 2; }
for v in "RUNS=$RUNS" "STEP_AT=$STEP_AT" "HISTORIES=$HISTORIES" "AA=$AA" "LAYOUTS=$LAYOUTS"; do
    case ${v#*=} in *[!0-9]*|''|0?*)
        echo "$me: ${v%%=*} must be a whole number without leading zeros" >&2; exit 2;;
    esac
done
[ "$RUNS" -le 99 ] && [ "$LAYOUTS" -ge 1 ] ||
    { echo "$me: RUNS at most 99, LAYOUTS at least 1" >&2; exit 2; }
[ "$STEP_AT" -ge 4 ] && [ $((RUNS - STEP_AT)) -ge 2 ] ||
    { echo "$me: needs 3 runs before STEP_AT and 3 from it" >&2; exit 2; }
for step in $STEPS; do
    python3 -c "import sys; v = float(sys.argv[1]); sys.exit(not 0 < v < 100)" "$step" 2>/dev/null ||
        { echo "$me: a step is not a percentage in (0, 100)" >&2; exit 2; }
done
"$G" --list | grep -q '^onednn ' || { echo "$me: $G has no onednn variant (libdnnl-dev)" >&2; exit 2; }
work=${KEEP:-$(mktemp -d)}
mkdir -p "$work" || exit 3
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
[ "${REUSE:-0}" != 1 ] || [ -n "${KEEP:-}" ] ||
    { echo "$me: REUSE=1 needs KEEP, the folder of an earlier study" >&2; exit 2; }
# LOCK: a file each ab holds with flock while it measures (other
# measurements on this machine wait for it, as it waits for them).
prio=
[ "${PRIORITY:-}" != rt ] || prio="chrt -f 10"
run_ab() { ${LOCK:+flock "$LOCK"} $prio "$G" ab "$@"; }

names=
for step in $STEPS; do
    h=1
    while [ "$h" -le "$HISTORIES" ]; do names="$names s$step-h$h"; h=$((h + 1)); done
done
h=1
while [ "$h" -le "$AA" ]; do names="$names saa-h$h"; h=$((h + 1)); done

[ "${REUSE:-0}" = 1 ] || {
# The anchor: this build, copied once and never rebuilt.  The layouts: its
# objects (main.o and the library's) linked again in shuffled
# orders, with the link line make uses.
mkdir -p "$work/anchor" "$work/objs" || exit 3
cp "$G" "$work/anchor/gemmbench" || exit 3
root=$(cd "$here/.." && pwd)
link=$(cd "$root" && make -n -B build/gemmbench 2>/dev/null | grep -- '-o build/gemmbench ' | tail -n 1)
[ -n "$link" ] || { echo "$me: cannot find make's link line for build/gemmbench" >&2; exit 3; }
libs=${link#*libgemmbench.a}
# The objects copied by path (two units may share a file name), as built now.
for o in $(cd "$root/build" && find src schedules -name '*.o' ! -path src/cmd/main.o); do
    cp "$root/build/$o" "$work/objs/$(echo "$o" | tr / _)" || exit 3
done
cp "$root/build/src/cmd/main.o" "$work/main.o" || exit 3
${CC:-cc} -O2 -shared -fPIC -o "$work/slowcall.so" "$here/slowcall.c" -ldl ||
    { echo "$me: cannot build scripts/slowcall.c" >&2; exit 3; }
l=1
while [ "$l" -le "$LAYOUTS" ]; do
    objs=$(ls "$work/objs" | python3 -c "import random, sys; v = sys.stdin.read().split(); random.Random($l).shuffle(v); print(' '.join(v))")
    # shellcheck disable=SC2086
    (cd "$work/objs" && ${CC:-cc} -fopenmp -o "$work/layout$l" "$work/main.o" $objs $libs) ||
        { echo "$me: cannot link layout $l" >&2; exit 3; }
    l=$((l + 1))
done

echo "history-paired: $RUNS commits a history, step from commit $STEP_AT, $LAYOUTS layouts; ab $SWEEP"
python3 - "$RUNS" "$LAYOUTS" $names >"$work/order.txt" <<'PY' || exit 3
import random, sys
runs, layouts, names = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
for k, name in enumerate(names):
    order = list(range(1, runs + 1))
    random.Random(1000 + k).shuffle(order)
    layout = [random.Random(2000 + k * 100 + i).randint(1, layouts) for i in range(runs)]
    print(name, " ".join(f"{i}:{layout[i - 1]}" for i in order))
PY
t=1
while [ "$t" -le "$RUNS" ]; do
    while read -r name order; do
        set -- $order
        shift $((t - 1))
        i=${1%:*}
        layout=${1#*:}
        n=$(printf %02d "$i")
        step=${name%-h*}
        step=${step#s}
        mkdir -p "$work/$name.runs"
        build=$work/$name.runs/c$n.sh
        factor=1
        if [ "$step" != aa ] && [ "$i" -ge "$STEP_AT" ]; then
            factor=$(python3 -c "import sys; print(1 + float(sys.argv[1]) / 100)" "$step")
        fi
        printf '#!/bin/sh\nGB_SLOW_FACTOR=%s LD_PRELOAD=%s exec %s "$@"\n' \
            "$factor" "$work/slowcall.so" "$work/layout$layout" >"$build"
        chmod +x "$build"
        run_ab "$work/anchor/gemmbench" "$build" $SWEEP --alpha 0.05 --quiet --force \
            -o "$work/$name.runs/c$n" >"$work/$name.runs/c$n.txt" 2>&1 </dev/null
        [ $? -le 1 ] || { echo "$me: ab of $name c$n failed:" >&2; tail -n 3 "$work/$name.runs/c$n.txt" >&2; exit 1; }
    done <"$work/order.txt"
    echo "history-paired: round $t of $RUNS measured"
    t=$((t + 1))
done
}

for name in $names; do
    rm -rf "$work/$name"
    i=1
    while [ "$i" -le "$RUNS" ]; do
        n=$(printf %02d "$i")
        "$G" history add --store "$work/$name" --commit "c$n" --date "2026-01-01T00:$n:00Z" \
            --anchor "$work/$name.runs/c$n-old.json" "$work/$name.runs/c$n-new.json" >/dev/null ||
            { echo "$me: history add failed ($name c$n)" >&2; exit 1; }
        i=$((i + 1))
    done
    "$G" history changes --store "$work/$name" --format json >"$work/$name.json"
    [ $? -le 1 ] || { echo "$me: history changes failed ($name)" >&2; exit 1; }
    # The same runs as an absolute history: each commit's NEW file alone,
    # as `history add FILE` keeps it (the design the pairs replace).
    rm -rf "$work/$name-abs"
    i=1
    while [ "$i" -le "$RUNS" ]; do
        n=$(printf %02d "$i")
        "$G" history add --store "$work/$name-abs" --commit "c$n" --date "2026-01-01T00:$n:00Z" \
            "$work/$name.runs/c$n-new.json" >/dev/null ||
            { echo "$me: history add failed ($name-abs c$n)" >&2; exit 1; }
        i=$((i + 1))
    done
    "$G" history changes --store "$work/$name-abs" --format json >"$work/$name-abs.json"
    [ $? -le 1 ] || { echo "$me: history changes failed ($name-abs)" >&2; exit 1; }
done

python3 - "$work" "$STEP_AT" $names <<'PY'
import json, sys
work, step_at, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
before, after = f"c{step_at - 1:02d}", f"c{step_at:02d}"
summary = {"before": before, "after": after, "kinds": {}}
kinds = {}
for name in [n + d for n in names for d in ("", "-abs")]:
    d = json.load(open(f"{work}/{name}.json"))
    kind = name.split("-h")[0][1:] + (" (absolute)" if name.endswith("-abs") else " (paired)")
    k = kinds.setdefault(kind, {"histories": 0, "stepped": 0, "found": 0, "other_changes": 0,
                                "histories_with_other": 0, "unstable": 0})
    k["histories"] += 1
    stepped = [s for s in d["noise"]["per_series"] if "/onednn/" in s["series"]]
    noise = [s["noise_pct"] for s in d["noise"]["per_series"] if s["noise_pct"] is not None]
    k.setdefault("noise_pct", []).extend(noise)
    right = {c["series"] for c in d["changes"]
             if c["before"] == before and c["after"] == after and "/onednn/" in c["series"]}
    aa = kind.startswith("aa")
    other = [c for c in d["changes"] if c["series"] not in right or aa]
    if not aa:
        k["stepped"] += len(stepped)
        k["found"] += len(right)
    k["other_changes"] += len(other)
    k["histories_with_other"] += bool(other)
    k["unstable"] += len(d.get("unstable", []))
for kind, k in kinds.items():
    noise = sorted(k.pop("noise_pct"))
    k["median_noise_pct"] = noise[len(noise) // 2] if noise else None
    k["max_noise_pct"] = noise[-1] if noise else None
    print(f"{kind}: between-commit noise of a series {k['median_noise_pct']:.2f} % (median), "
          f"{k['max_noise_pct']:.2f} % (most)")
    if kind.startswith("aa"):
        print(f"A/A {kind[3:]}: {k['histories'] - k['histories_with_other']} of {k['histories']} histories "
              f"quiet ({k['other_changes']} change points, {k['unstable']} unstable series)")
    else:
        size, design = kind.split(" ", 1)
        print(f"step {size}% {design}: found at {before}..{after} in {k['found']} of {k['stepped']} "
              f"onednn series ({100 * k['found'] / max(k['stepped'], 1):.0f}%); "
              f"{k['other_changes']} other change points in {k['histories_with_other']} of "
              f"{k['histories']} histories; {k['unstable']} unstable series")
summary["kinds"] = kinds
json.dump(summary, open(f"{work}/SUMMARY.json", "w"), indent=1)
PY
