# bigfiles.sh - small hostile files cost seconds and bounded memory, never
# minutes or gigabytes (issue 28, class 2): what a reader accepts is bounded
# by what the writer produces, rows are indexed, tuning records read once.
# Each command runs under `timeout` and `ulimit -v`; the old code took
# 4 s and 640 MB (compare --paired), 55 s (report), 78 s (a tuned run).
. tests/cli/lib.sh
G=$GEMMBENCH
# Far above what each needs now (the library's start-up maps ~300 MB).
MEM_KB=1500000
SLOW=1
# Under AddressSanitizer (make sanitize) the shadow memory alone maps
# terabytes of address space: no memory bound there (`make test` keeps
# it), and three times the time.
if ldd "$G" 2>/dev/null | grep -q libasan; then
    MEM_KB=unlimited
    SLOW=3
fi

# bounded NAME SECONDS CODE CMD...: expect_exit under a time and memory bound.
bounded() {
    name=$1 secs=$(($2 * SLOW)) code=$3
    shift 3
    expect_exit "$name" "$code" sh -c 'ulimit -v '"$MEM_KB"' && exec timeout '"$secs"' "$@"' \
        sh "$@"
}

"$G" --quiet --reps 3 --warmup 0 --rounds 3 --shape 13x21x9 --variant baseline --threads 1 \
    -o "$WORK/seed.json" >/dev/null 2>&1 || echo "FAIL bigfiles_seed_run"
# Every file below is written by python3.  Without it each check is a named
# skip: a refusal (exit 2) of a file that does not exist is no check of the
# bound.
if command -v python3 >/dev/null 2>&1; then
python3 - "$WORK" <<'PY' || echo "FAIL bigfiles_generate"
import copy, json, sys
w = sys.argv[1]
d = json.load(open(w + "/seed.json"))
base = d["results"][0]

def put(name, doc):
    with open(w + "/" + name, "w") as f:
        json.dump(doc, f, separators=(",", ":"))

def entry(**kw):
    e = {k: base[k] for k in ("variant", "label", "family", "kernel", "M", "K", "N", "threads",
                              "reps", "median_us", "min_us", "mean_us", "stddev_us", "gflops",
                              "check", "peak_pct")}
    e["samples_us"] = [1.0]
    e["reps"] = 1
    e.update(kw)
    return e

def with_results(rows, **machine):
    doc = copy.deepcopy(d)
    doc["results"] = rows
    doc["machine"].update(machine)
    return doc

# 8,000 rounds of one sample each, 100 KB a file: more rounds than --rounds allows.
n = 8000
for side, shift in (("old", 0.0), ("new", 0.001)):
    put("rounds-%s.json" % side, with_results([entry(
        samples_us=[1.0 + (k % 7) * 0.01 + shift for k in range(n)],
        sample_rounds=list(range(1, n + 1)), rounds=n)]))
# 1,000 rounds (the most): judged, in bounded memory.
n = 1000
for side, shift in (("old", 0.0), ("new", 0.001)):
    put("max-rounds-%s.json" % side, with_results([entry(
        samples_us=[1.0 + (k % 7) * 0.01 + shift for k in range(n)],
        sample_rounds=list(range(1, n + 1)), rounds=n)]))
# More samples in an entry than a measurement takes.
put("samples.json", with_results([entry(samples_us=[1.0] * 1000001)]))
# More peaks by thread count than a run measures.
put("peaks.json", with_results([entry()], peak_gflops_by_threads=[
    {"threads": t, "gflops": 10.0} for t in range(1, 5001)]))
# 50,000 entries (one label, 50,000 shapes); 30,000 labels of one shape each:
# the report's row, column and baseline searches.
put("wide.json", with_results([entry(M=1 + k) for k in range(50000)]))
put("tall.json", with_results(
    [entry(variant="baseline", label="baseline", median_us=1.0)] +
    [entry(variant="v%d" % k, label="v%d" % k, median_us=2.0) for k in range(30000)]))
# 25,000 labels at 1 and 2 threads (16 MB): report --metric scaling.
put("scaling.json", with_results(
    [entry(variant="v%d" % k, label="v%d" % k, threads=t, median_us=1.0 * t)
     for k in range(25000) for t in (1, 2)]))
# 2,000 labels by 2,000 shapes, one entry each: a table of 4,000,000 cells.
put("diagonal.json", with_results(
    [entry(variant="v%d" % k, label="v%d" % k, M=1 + k) for k in range(2000)]))
# 60,000 tuning records (11 MB), none for this machine.
recs = [{"base": "rule_based", "fingerprint": "Other CPU|avx2|threads=%d" % (1 + i % 4),
         "M": 1 + i // 4, "K": 8, "N": 8,
         "params": {"tm": 8, "tn": 32, "tk": 8, "jpack": 8, "unroll_ki": "on"},
         "median_us": 2.3, "rule_median_us": 2.5, "trials": 2,
         "tuned_at": "2026-11-23T00:30:59Z"} for i in range(60000)]
put("records.json", {"schema": "gemmbench-tuned/1", "records": recs})
PY
else
    nopy() { skip "$1" "needs python3 (writes the big files this check reads)"; }
    bounded() { nopy "$1"; }
    expect_exit() { nopy "$1"; }
    expect_grep() { nopy "$1"; }
    expect_true() { nopy "$1"; }
    nopy bigfiles_generate
fi

bounded rounds_beyond_rounds_refused 10 2 "$G" compare "$WORK/rounds-old.json" \
    "$WORK/rounds-new.json" --paired
expect_grep rounds_beyond_rounds_says \
    '"sample_rounds"\[1000\] is not a round number from 1 to 1000' "$WORK/err"
expect_exit rounds_beyond_rounds_report 2 "$G" report "$WORK/rounds-old.json"
bounded max_rounds_paired 10 0 "$G" compare "$WORK/max-rounds-old.json" \
    "$WORK/max-rounds-new.json" --paired --threshold 50
bounded samples_beyond_reps_refused 10 2 "$G" report "$WORK/samples.json"
expect_grep samples_beyond_reps_says '"samples_us" has 1000001 samples, more than the 1000000' \
    "$WORK/err"
bounded peaks_beyond_counts_refused 10 2 "$G" report "$WORK/peaks.json"
expect_grep peaks_beyond_counts_says 'peak_gflops_by_threads has 5000 entries' "$WORK/err"

bounded report_50000_shapes 10 0 "$G" report "$WORK/wide.json"
bounded report_30000_labels 10 0 "$G" report "$WORK/tall.json" --metric speedup
# The speed-up is still the file's own baseline's: 1 us / 2 us.
expect_grep report_30000_labels_speedup '^v29999  *0\.50 ' "$WORK/out"
# compare: groups per label found by sorting (8.3 s before, 1 s now).
cp "$WORK/tall.json" "$WORK/tall-new.json"
bounded compare_30000_labels 6 0 "$G" compare "$WORK/tall.json" "$WORK/tall-new.json"
expect_grep compare_30000_labels_groups '^v29999 ' "$WORK/out"
bounded report_multi_50000 15 0 "$G" report "$WORK/wide.json" "$WORK/tall.json" \
    "$WORK/wide.json" --format csv
# The scaling report looks each cell's other counts up by binary search
# (26 s before, 0.5 s now).
bounded report_scaling_25000 10 0 "$G" report "$WORK/scaling.json" --metric scaling --format csv
expect_grep report_scaling_25000_speedup '^v24999,custom,13,1,0.5,25$' "$WORK/out"
bounded report_table_too_large 10 2 "$G" report "$WORK/diagonal.json"
expect_grep report_table_too_large_says 'a table of 2000 rows by 2000 shapes' "$WORK/err"
expect_exit report_table_selected 0 "$G" report "$WORK/diagonal.json" --variant v1,v2

# A tuned run reads the records once, not per measurement and resolve.
GEMMBENCH_RECORDS="$WORK/records.json"
export GEMMBENCH_RECORDS
bounded tuned_60000_records 20 0 "$G" --quiet --reps 3 --warmup 0 --rounds 1 \
    --shape 13x21x9 --shape 14x21x9 --variant tuned,tuned_packed --threads 1 -o "$WORK/tuned.json"
unset GEMMBENCH_RECORDS
expect_true tuned_60000_records_rule python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["results"]) == 4
assert all(r["effective_params"]["source"] == "rule" for r in d["results"])' "$WORK/tuned.json"
