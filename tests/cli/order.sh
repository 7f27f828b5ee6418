# order.sh - the order of a round's measurements: each shape's entries as
# listed, rotated by the round, so that every entry is the first on the
# shape's fresh operands in its share of the rounds (that place runs
# slower); and the speed-ups over baseline, in the file and the table, from
# the final medians whatever place baseline took in the last round.
. tests/cli/lib.sh

# plan_of ROUND: the plan lines a --lockstep process of round ROUND of 3
# says (gemmbench ab reads them on fd 4; stdin of "go" lines never comes).
plan_of() {
    "$GEMMBENCH" --variant baseline,k4,k8 --shape 16x64x64 --shape 8x32x32 --threads 1 \
        --rounds 3 --round "$1" --lockstep -o "$WORK/plan.json" -f --quiet \
        3</dev/null 4>&1 2>/dev/null | sed -n 's/^plan \([a-z0-9]*\)\[\].*\t\([0-9]*\)\t[0-9]*\t[0-9]*\t1$/\1@\2/p' |
        tr '\n' ' '
}
want1="baseline@16 k4@16 k8@16 baseline@8 k4@8 k8@8 "
want2="k4@16 k8@16 baseline@16 k4@8 k8@8 baseline@8 "
want3="k8@16 baseline@16 k4@16 k8@8 baseline@8 k4@8 "
for r in 1 2 3; do
    got=$(plan_of $r)
    eval want=\$want$r
    if [ "$got" = "$want" ]; then
        echo "ok order_round_${r}_rotates_each_shape"
    else
        echo "FAIL order_round_${r}_rotates_each_shape: '$got', expected '$want'"
    fi
done

# Three rounds of three entries: baseline runs first in the first round
# only, so in the last k8 runs before it and took the earlier rounds' median.
"$GEMMBENCH" --variant baseline,k4,k8 --shape 16x64x64 --threads 1 --warmup 1 --reps 9 \
    --rounds 3 -o "$WORK/run.json" -f >"$WORK/run.out" 2>"$WORK/run.err"
check order_run_exit_0 test $? -eq 0
py_check order_speedups_from_final_medians "$WORK/run.json" "$WORK/run.out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
res = {r["variant"]: r for r in d["results"]}
base = res["baseline"]["median_us"]
shown = {}
for line in open(sys.argv[2]):
    f = line.split()
    if f and f[0] in res and f[-1] in ("pass", "CV)"):
        shown[f[0]] = next(x for x in f if x.endswith("x"))
for v, r in res.items():
    want = base / r["median_us"]
    assert abs(r["speedup_vs_baseline"] - want) < 1e-9 * want, (v, r["speedup_vs_baseline"], want)
    assert shown[v] == "%.2fx" % want, (v, shown[v], want)
# the file keeps the listed order
assert [r["variant"] for r in d["results"]] == ["baseline", "k4", "k8"], d["results"]
PY
