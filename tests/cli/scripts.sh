#!/bin/sh
# scripts.sh - smoke tests of the measuring scripts no other test runs:
# compare-interleaved.sh, sched-twins.sh, space-search.sh, ab-power.sh,
# bench-ceiling.sh and history-power.sh, each end to end on a tiny shape
# with its fewest rounds (history-commits.sh: its settings only),
# its files written under $WORK, its exit status, files and printed tables
# checked.  They all need python3 (their reports); ab-power.sh needs cc,
# space-search.sh a build with onednn: without them, a named skip.
. tests/cli/lib.sh
G=$GEMMBENCH
S=$(pwd)/scripts
cd "$WORK" || exit 1
export GEMMBENCH="$G"

# py NAME ARG... <<'PY': the Python on stdin, given ARG..., succeeds; else
# the last line of its error (an assertion's message) says why.
py() {
    name=$1
    shift
    if python3 - "$@" >"$WORK/py.out" 2>&1; then
        echo "ok $name"
    else
        echo "FAIL $name: $(tail -n 1 "$WORK/py.out" | head -c 300)"
    fi
}

if ! command -v python3 >/dev/null 2>&1; then
    for s in compare_interleaved sched_twins space_search ab_power bench_ceiling history_power history_commits; do
        skip "$s" "needs python3 (the script's report)"
    done
    exit 0
fi

# compare-interleaved.sh: it takes no shape or thread count, so a bench.conf
# of its own directory gives it a 16x16x16 kernel and one thread.  2 rounds
# (A,B then B,A), so each side pools two runs; BUSY=0: its busy loops beside
# every B run slow this run of four down from 3.3 s to 5.7 s on 2 CPUs.
mkdir -p "$WORK/ci" && cd "$WORK/ci" || exit 1
printf 'threads = 1\n[kernel tiny]\nk = 16\nn = 16\n' >bench.conf
expect_exit compare_interleaved_runs 0 env KERNELS=tiny MS=16 VARIANTS=vec_j \
    bash "$S/compare-interleaved.sh" "$WORK/ci/out" 0 2
cd "$WORK" || exit 1
n=$(ls "$WORK"/ci/out/parts/[AB]-tiny-16-vec_j-[12].json 2>/dev/null | wc -l)
if [ "$n" -eq 4 ]; then echo "ok compare_interleaved_parts"; else echo "FAIL compare_interleaved_parts: $n of 4 run files"; fi
# Each side pools its two runs: every sample kept, one round tag a sample.
py compare_interleaved_pooled "$WORK/ci/out" <<'PY'
import glob, json, sys
out = sys.argv[1]
for side in "ab":
    doc = json.load(open(f"{out}/{side}.json"))
    parts = [json.load(open(p))["results"][0]
             for p in glob.glob(f"{out}/parts/{side.upper()}-*.json")]
    (r,) = doc["results"]
    assert (r["variant"], r["M"], r["K"], r["N"]) == ("vec_j", 16, 16, 16), r["variant"]
    n = sum(len(p["samples_us"]) for p in parts)
    assert r["reps"] == len(r["samples_us"]) == len(r["sample_rounds"]) == n, (side, r["reps"], n)
    assert r["rounds"] == max(r["sample_rounds"]) > max(parts[0]["sample_rounds"]), (side, r["rounds"])
    assert "rounds pooled" in doc["run"]["command"], doc["run"]["command"]
PY
# ... ready for compare, as the script promises: a verdict (0 or 1), no error.
"$G" compare "$WORK/ci/out/a.json" "$WORK/ci/out/b.json" >"$WORK/out" 2>"$WORK/err"
rc=$?
if [ $rc -le 1 ]; then echo "ok compare_interleaved_compare"; else echo "FAIL compare_interleaved_compare: exit $rc: $(head -c 300 "$WORK/err")"; fi
expect_grep compare_interleaved_compare_row "^vec_j  *tiny  *16  *16  *16 " "$WORK/out"

# sched-twins.sh: one twin, rule_based (run at --param tm=32), on 16x16x16.
expect_exit sched_twins_runs 0 env SHAPES="--shape 16x16x16" \
    RUN_OPTS="--rounds 1 --reps 2 --min-reps 1 --warmup 0" sh "$S/sched-twins.sh" "$WORK/st" rule_based
expect_grep sched_twins_table_row '^| rule_based | [0-9][0-9.]* | [0-9.]*-[0-9.]* | ' "$WORK/out"
expect_true sched_twins_log test -s "$WORK/st/rule_based.txt"
py sched_twins_json "$WORK/st/rule_based.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
got = sorted((r["variant"], r["params"].get("tm"), r["check"]) for r in doc["results"])
assert got == [("rule_based", 32, "pass"), ("sched:rule_based", 32, "pass")], got
PY
# The printed geomean is the file's time(sched:rule_based) / time(rule_based).
cp "$WORK/out" "$WORK/st.out"
py sched_twins_ratio "$WORK/st/rule_based.json" "$WORK/st.out" <<'PY'
import json, sys
t = {r["variant"]: r["median_us"] for r in json.load(open(sys.argv[1]))["results"]}
want = f'{t["sched:rule_based"] / t["rule_based"]:.3f}'
row = [l for l in open(sys.argv[2]) if l.startswith("| rule_based |")]
assert row and row[0].split("|")[2].strip() == want, (row, want)
PY

# A typed twin runs beside its variant at the file's type: packed_u8s8.sched
# beside packed --dtype u8s8, both exact.
expect_exit sched_twins_typed_runs 0 env SHAPES="--shape 16x16x16" \
    RUN_OPTS="--rounds 1 --reps 2 --min-reps 1 --warmup 0" sh "$S/sched-twins.sh" "$WORK/stt" packed_u8s8
expect_grep sched_twins_typed_row '^| packed_u8s8 | [0-9][0-9.]* | [0-9.]*-[0-9.]* | ' "$WORK/out"
py sched_twins_typed_json "$WORK/stt/packed_u8s8.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
got = sorted((r["variant"], r["dtype"], r["check"]) for r in doc["results"])
assert got == [("packed", "u8s8", "pass"), ("sched:packed_u8s8", "u8s8", "pass")], got
PY
# A name with no schedule file: exit 2, the name said, nothing run.
sh "$S/sched-twins.sh" "$WORK/stt" no_such_twin >"$WORK/out" 2>"$WORK/err"
rc=$?
if [ $rc -eq 2 ] && grep -q 'no_such_twin: no schedules/no_such_twin.sched' "$WORK/err" &&
    [ ! -e "$WORK/stt/no_such_twin.json" ]; then
    echo "ok sched_twins_unknown_name"
else
    echo "FAIL sched_twins_unknown_name: exit $rc: $(head -c 300 "$WORK/err")"
fi

# space-search.sh: a 1 s structure search, 2 trials of rule_based's
# parameters, one round of the final run, on 16x16x16 at one thread.
if "$G" --list 2>/dev/null | grep -q '^onednn '; then
    expect_exit space_search_runs 0 env BUDGET=1 TUNE_TRIALS=2 ROUNDS=1 THREADS=1 \
        sh "$S/space-search.sh" "$WORK/ss" 16x16x16
    expect_grep space_search_times_row '^| custom M=16 | [0-9.]* | [0-9.]* | [0-9.]* | [0-9.]* | [0-9.]* | [0-9.]* |$' "$WORK/out"
    expect_grep space_search_geomean '^| geomean | | [0-9.]* | ' "$WORK/out"
    expect_grep space_search_structure_row '^| 16x16x16 | mc=[0-9a-z]*,.* | ' "$WORK/out"
    py space_search_files "$WORK/ss" <<'PY'
import json, sys
out = sys.argv[1]
rec = json.load(open(f"{out}/records.json"))["records"]
bases = sorted(r["base"] for r in rec if (r["M"], r["K"], r["N"]) == (16, 16, 16))
assert bases == ["rule_based", "tuned_sched"], bases
run = json.load(open(f"{out}/run.json"))
got = sorted((r["variant"], r["check"]) for r in run["results"])
want = sorted((v, "pass") for v in ("rule_based", "tuned", "tuned_sched", "packed", "onednn"))
assert got == want, got
PY
else
    skip space_search "needs the onednn variant (libdnnl-dev, then rebuild)"
fi
sh "$S/space-search.sh" "$WORK/ssbad" bogus >"$WORK/out" 2>"$WORK/err"
rc=$?
if [ $rc -eq 2 ]; then echo "ok space_search_bad_shapeset"; else echo "FAIL space_search_bad_shapeset: exit $rc, expected 2"; fi
expect_grep space_search_bad_shapeset_says "SHAPESET is six, bert or MxKxN" "$WORK/err"

# ab-power.sh: one run of ab at scale 2 (NEW's clocks twice as fast), its
# fewest rounds, on 16x16x16 at one thread: ab sees NEW about 2x slower.
# --min-time 0: ab's default 20 ms of calls per round is 150,000 calls of
# 1 us a build, 3 MB files, and 11 s instead of 2.5.
if command -v cc >/dev/null 2>&1; then
    expect_exit ab_power_runs 0 bash "$S/ab-power.sh" "$WORK/ab" 1 2 -- \
        --variant vec_j --shape 16x16x16 --threads 1 --reps 24 --rounds 8 --min-time 0
    expect_grep ab_power_table_row '^| 2 | 1 thr, < 0.3 ms | [01] | 1 | [0-9.]* | x[0-9.]* |$' "$WORK/out"
    expect_true ab_power_preload test -s "$WORK/ab/scaleclock.so" -a -x "$WORK/ab/new-2.sh"
    expect_true ab_power_result_files test -s "$WORK/ab/ab-2-1-old.json" -a -s "$WORK/ab/ab-2-1-new.json"
    py ab_power_scaled "$WORK/ab/ab-2-1.verdict.json" <<'PY'
import json, sys
(e,) = json.load(open(sys.argv[1]))["entries"]
assert e["variant"] == "vec_j" and e["ratio"] > 1.5, (e["variant"], e["ratio"])
PY
else
    skip ab_power "needs cc (scaleclock.c)"
fi

# bench-ceiling.sh: both runs on 16x16x16, 2 calls, one round of the
# one-thread run; packed alone when the build has no reference library.
expect_exit bench_ceiling_runs 0 env OUTDIR="$WORK/bc" ROUNDS=1 SHAPES="--shape 16x16x16" \
    ONE_SHAPE="--shape 16x16x16" sh "$S/bench-ceiling.sh" --reps 2 --warmup 0 --rounds 1
expect_grep bench_ceiling_header "^ceiling: 1 shapes, 2 threads .*median of 2 after 0 warm-ups" "$WORK/out"
expect_grep bench_ceiling_shape_row "^custom  *16  *[0-9.]*  *[0-9.]*" "$WORK/out"
expect_grep bench_ceiling_one_thread "^1 thread, 1 round" "$WORK/out"
expect_grep bench_ceiling_one_thread_packed "^  packed  *custom M=16: median [0-9.]* us (2 calls)" "$WORK/out"
expect_true bench_ceiling_info test -s "$WORK"/bc/ceiling-*-1t-r1.info
py bench_ceiling_files "$WORK/bc" <<'PY'
import glob, json, sys
out = sys.argv[1]
(two,) = glob.glob(f"{out}/ceiling-*-2t.json")
(one,) = glob.glob(f"{out}/ceiling-*-1t-r1.json")
for path, threads in ((two, 2), (one, 1)):
    doc = json.load(open(path))
    assert doc["complete"] is True, path
    labels = {r["label"] for r in doc["results"] if r["threads"] == threads and r["M"] == 16}
    assert {"packed", "packed+prepack"} <= labels, (path, labels)
PY

# history-power.sh: its settings checked before anything runs; one tiny
# study end to end (6 runs a history, a 50 % step from run 4, one history
# and an A/A one): every run stored, both values judged, SUMMARY.json whole.
# The binary's path and KEEP have a space in them (the preload is not kept
# in KEEP: LD_PRELOAD would split it there and inject no step), RUNS a
# leading zero (008 is eight, not the shell's bad octal).  Its pages are not
# rendered here (BROWSER=none): history.sh renders history html's in Chromium.
expect_exit history_power_bad_runs 2 env RUNS=x sh "$S/history-power.sh"
expect_exit history_power_bad_step 2 env STEPS=200 sh "$S/history-power.sh"
expect_exit history_power_reuse_needs_keep 2 env REUSE=1 sh "$S/history-power.sh"
mkdir -p "$WORK/g dir" && ln -s "$G" "$WORK/g dir/gemmbench"
expect_exit history_power_runs 0 env RUNS=008 STEP_AT=4 HISTORIES=1 STEPS=50 KEEP="$WORK/h p" \
    GEMMBENCH="$WORK/g dir/gemmbench" BROWSER=none \
    SWEEP="--variant vec_j --shape 16x16x16 --reps 4 --rounds 2 --min-time 0 --threads 1" \
    sh "$S/history-power.sh"
expect_grep history_power_says_aa "^  A/A: [01] of 1 histories" "$WORK/out"
expect_grep history_power_browser_none "^page s50-h1.html: not rendered" "$WORK/out"
py history_power_summary "$WORK/h p" <<'PY'
import glob, json, sys
work = sys.argv[1]
s = json.load(open(f"{work}/SUMMARY.json"))
assert set(s["values"]) == {"median", "best"} and s["before"] == "c03", s
for v in s["values"].values():
    assert set(v) == {"50", "aa"} and v["50"]["series"] == 1 == v["aa"]["series"], v
assert len(glob.glob(f"{work}/s50-h1.runs/run*.json")) == 8, "runs"
assert len(json.load(open(f"{work}/saa-h1.best.json"))["noise"]["per_series"]) == 1
PY
# history-commits.sh: the settings, before any build.
expect_exit history_commits_no_store 2 sh "$S/history-commits.sh"
expect_exit history_commits_bad_count 2 env STORE="$WORK/hc" COUNT=0 sh "$S/history-commits.sh"
expect_exit history_commits_bad_rev 2 env STORE="$WORK/hc" REV=no-such-rev sh "$S/history-commits.sh"
# ml-search.sh and ml-leave-one-out.sh: the settings, before any search.
expect_exit ml_search_usage 2 sh "$S/ml-search.sh"
expect_exit ml_search_no_model 2 sh "$S/ml-search.sh" "$WORK/ms" qkv 64
expect_exit ml_search_bad_budget 2 env MODEL=/dev/null BUDGET=2 sh "$S/ml-search.sh" "$WORK/ms" qkv 64
expect_exit ml_search_bad_kernel 2 env MODEL=/dev/null sh "$S/ml-search.sh" "$WORK/ms" attn 64
expect_exit ml_loo_usage 2 sh "$S/ml-leave-one-out.sh"
expect_exit ml_loo_bad_budget 2 env BUDGET=x sh "$S/ml-leave-one-out.sh" "$WORK/loo"
expect_exit ml_loo_no_database 2 env DATABASE="$WORK/none.jsonl" RECORDS="$WORK/none.json" sh "$S/ml-leave-one-out.sh" "$WORK/loo"
