# report_multi.sh - `report FILE --metric scaling` and `report A B C`: the
# numbers are the files', missing entries are blanks, bad input is one line
# and exit 2.
. tests/cli/lib.sh
G=$GEMMBENCH
RUN="--quiet --reps 3 --warmup 0 --rounds 1 --shape 13x21x9 --shape 20x21x9"

# A: two counts; B: another count; C: one variant on one shape (missing entries).
"$G" $RUN --variant baseline,parallel,packed --threads 1,2 -o "$WORK/a.json" >/dev/null 2>&1 ||
    echo "FAIL multi_run_a"
"$G" $RUN --variant baseline,parallel,packed --threads 2 -o "$WORK/b.json" >/dev/null 2>&1 ||
    echo "FAIL multi_run_b"
"$G" --quiet --reps 3 --warmup 0 --rounds 1 --shape 13x21x9 --variant parallel --threads 1 \
    -o "$WORK/c.json" >/dev/null 2>&1 || echo "FAIL multi_run_c"
# C also records a %roof, as a roofline-aware run would.
py_check multi_roof_added "$WORK/c.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    r["roof_pct"] = 42.5
json.dump(d, open(sys.argv[1], "w"), indent="\t")
PY

# ---- scaling -------------------------------------------------------------------
expect_exit scaling_runs 0 "$G" report "$WORK/a.json" --metric scaling --format csv
cp "$WORK/out" "$WORK/scaling.csv"
py_check scaling_numbers_are_the_files "$WORK/a.json" "$WORK/scaling.csv" <<'PY'
import csv, json, math, sys
d = json.load(open(sys.argv[1]))
med = {(r["label"], r["M"], r["threads"]): r["median_us"] for r in d["results"]}
rows = [r for r in csv.reader(l for l in open(sys.argv[2]) if l.strip() and not l.startswith("#"))]
head = rows[0]
assert head[:6] == ["variant", "kernel", "M", "1t_median_us", "speedup_2t", "efficiency_2t_pct"], head
per = [r for r in rows[1:] if r[0] != "variant" and len(r) == 6]
assert sorted((r[0], int(r[2])) for r in per) == sorted(
    [(v, m) for v in ("parallel", "packed") for m in (13, 20)]), per
logs = {}
for v, k, m, t1, s, e in per:
    want = med[(v, int(m), 1)] / med[(v, int(m), 2)]
    assert abs(float(s) - want) < 1e-6 * want and abs(float(e) - 50 * want) < 1e-4 * want
    logs.setdefault(v, []).append(math.log(want))
gm = [r for r in rows if len(r) == 4 and r[0] in logs]
assert len(gm) == 2, gm
for v, s, e, n in gm:
    want = math.exp(sum(logs[v]) / len(logs[v]))
    assert abs(float(s) - want) < 1e-6 * want and int(n) == 2
PY
expect_grep scaling_names_single_thread "1 thread only (single-thread schedules): baseline" "$WORK/scaling.csv"
expect_exit scaling_without_1_thread 2 "$G" report "$WORK/b.json" --metric scaling
expect_grep scaling_without_1_thread_says 'no 1-thread results' "$WORK/err"
expect_exit scaling_only_1_thread 2 "$G" report "$WORK/c.json" --metric scaling
expect_grep scaling_only_1_thread_says 'only 1-thread results' "$WORK/err"
expect_exit scaling_md 0 "$G" report "$WORK/a.json" --metric scaling --format md
expect_grep scaling_md_table '^| parallel ' "$WORK/out"

# ---- several files ---------------------------------------------------------------
expect_exit multi_three_files 0 "$G" report here="$WORK/a.json" "$WORK/b.json" third="$WORK/c.json" --format csv
cp "$WORK/out" "$WORK/multi.csv"
py_check multi_numbers_are_the_files "$WORK/a.json" "$WORK/b.json" "$WORK/c.json" "$WORK/multi.csv" <<'PY'
import csv, json, sys
files = [json.load(open(p)) for p in sys.argv[1:4]]
med = [{(r["label"], r["M"], r["threads"]): r["median_us"] for r in d["results"]} for d in files]
# %peak: against the peak of the entry's own count (peak_gflops_by_threads in a.json)
pct = {(r["label"], r["M"], r["threads"]): r["peak_pct"] for r in files[0]["results"]}
lines = [l for l in open(sys.argv[4]) if l.strip() and not l.startswith("#")]
rows = list(csv.reader(lines))
head = rows[0]
assert head[0:6] == ["variant", "kernel", "M", "K", "N", "threads"], head
assert head[6] == "here median_us" and head[7] == "here %peak", head
b = [h for h in head if h.endswith(" median_us")][1].split(" ")[0]
assert b.startswith("EPYC") or "@" in b, b          # the machine label
assert "third %roof" in head and "third /here" in head, head
col = {h: i for i, h in enumerate(head)}
keys = set()
for d in med:
    keys |= set(d)
body = [r for r in rows[1:] if len(r) == len(head) and r[0] != "variant"]
assert len(body) == len(keys), (len(body), len(keys))
for r in body:
    k = (r[0], int(r[2]), int(r[5]))
    for i, name in enumerate(["here", b, "third"]):
        cell = r[col[name + " median_us"]]
        if k in med[i]:
            assert abs(float(cell) - med[i][k]) < 1e-6 * med[i][k], (k, name)
        else:
            assert cell == "", (k, name, cell)       # missing: blank, not an error
    if k in pct:
        got = float(r[col["here %peak"]])
        assert abs(got - pct[k]) < 1e-6 * pct[k], (k, got, pct[k])
    ratio = r[col["third /here"]]
    if k in med[2] and k in med[0]:
        assert abs(float(ratio) - med[2][k] / med[0][k]) < 1e-6
    else:
        assert ratio == ""
    roof = r[col["third %roof"]]
    assert (roof == "42.5") == (k in med[2]), (k, roof)
# the fastest table: per (kernel, M, threads), the lowest median of each file
fast = [r for r in rows if r and r[0] == "custom" and len(r) == 6]
assert fast, "no fastest rows"
for r in fast:
    m, t = int(r[1]), int(r[2])
    got = r[3].split(" ")[0] if r[3] else None
    cand = [(v, l) for (l, mm, tt), v in med[0].items() if mm == m and tt == t]
    # any of the fastest: two medians can tie on a tiny shape (one timer tick)
    fastest = {l for v, l in cand if v == min(cand)[0]} if cand else {None}
    assert got in fastest, (r, cand)
PY
expect_exit multi_table 0 "$G" report "$WORK/a.json" "$WORK/b.json" "$WORK/c.json"
expect_grep multi_fastest_heading 'fastest variant on each machine' "$WORK/out"
expect_grep multi_same_machine_numbered '@.*#2' "$WORK/out"
expect_exit multi_md 0 "$G" report "$WORK/a.json" "$WORK/b.json" --format md --variant parallel
expect_grep multi_md_rows '^| parallel ' "$WORK/out"

expect_exit multi_missing_file 2 "$G" report "$WORK/a.json" "$WORK/nope.json"
expect_exit multi_bad_json 2 sh -c "echo '{' >'$WORK/bad.json'; '$G' report '$WORK/a.json' '$WORK/bad.json'"
expect_exit multi_metric_refused 2 "$G" report "$WORK/a.json" "$WORK/b.json" --metric peak
expect_exit multi_variant_typo 2 "$G" report "$WORK/a.json" "$WORK/b.json" --variant nosuch
expect_exit multi_name_one_file 2 "$G" report x="$WORK/a.json"

# ---- the scaling figure ----------------------------------------------------------
# plot.sh must succeed: a figure missing because plot.sh failed proves nothing.
is_png() { head -c 8 "$1" 2>/dev/null | od -c | grep -q 'P   N   G'; }
if command -v gnuplot >/dev/null 2>&1; then
    GEMMBENCH="$G" sh scripts/plot.sh "$WORK/a.json" "$WORK/fig" >"$WORK/plot.out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && is_png "$WORK/fig/scaling.png"; then
        echo "ok plot_scaling_figure"
    else
        echo "FAIL plot_scaling_figure: plot.sh exit $rc: $(head -c 300 "$WORK/plot.out")"
    fi
    GEMMBENCH="$G" sh scripts/plot.sh "$WORK/b.json" "$WORK/figb" >"$WORK/plotb.out" 2>&1
    rc=$?
    others=$(ls "$WORK/figb" 2>/dev/null | grep -c '\.png$')
    if [ $rc -ne 0 ]; then
        echo "FAIL plot_no_scaling_without_1_thread: plot.sh exit $rc: $(head -c 300 "$WORK/plotb.out")"
    elif [ "$others" -eq 0 ]; then
        echo "FAIL plot_no_scaling_without_1_thread: plot.sh made no figure at all in $WORK/figb"
    elif [ -e "$WORK/figb/scaling.png" ]; then
        echo "FAIL plot_no_scaling_without_1_thread: scaling.png from a file without 1-thread results"
    else
        echo "ok plot_no_scaling_without_1_thread"
    fi
else
    skip plot_scaling_figure "needs gnuplot (apt-get install gnuplot-nox)"
    skip plot_no_scaling_without_1_thread "needs gnuplot (apt-get install gnuplot-nox)"
fi

# ---- scripts/fleet-report.sh: a directory of result files -> one report ----------
mkdir -p "$WORK/fleet/runner-one" "$WORK/fleet/runner-two" "$WORK/empty"
cp "$WORK/a.json" "$WORK/fleet/runner-one/result.json"
cp "$WORK/b.json" "$WORK/fleet/runner-two/result.json"
F="scripts/fleet-report.sh"
expect_exit fleet_by_dir 0 env GEMMBENCH="$G" sh "$F" --by-dir "$WORK/fleet" --format csv
expect_grep fleet_by_dir_columns 'runner-one median_us,.*runner-two /runner-one' "$WORK/out"
expect_exit fleet_first 0 env GEMMBENCH="$G" sh "$F" --by-dir --first "$WORK/fleet/runner-two/result.json" "$WORK/fleet" --format csv
expect_grep fleet_first_divides 'runner-two median_us,.*runner-one /runner-two' "$WORK/out"
expect_exit fleet_machine_labels 0 env GEMMBENCH="$G" sh "$F" "$WORK/fleet" --format md
expect_grep fleet_machine_labels_hash '@.*#2' "$WORK/out"
expect_exit fleet_empty_dir 2 env GEMMBENCH="$G" sh "$F" "$WORK/empty"
expect_exit fleet_no_dir 2 env GEMMBENCH="$G" sh "$F" "$WORK/nope"
