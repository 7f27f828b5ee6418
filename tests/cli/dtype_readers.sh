# dtype_readers.sh - the readers of result files on a file of several types
# (--dtype f32,bf16,u8s8): report's tables per type, compare's rows and
# geomeans per type, history's series per type, the --dtype filter, files
# from before types (no "dtype": f32), a type no reader knows, and
# validate-json.py's checks of the type fields.
. tests/cli/lib.sh
G=$GEMMBENCH
ROOT=$(pwd)
cd "$WORK" || exit 1

# One real run, small: baseline in three types, k8 in f32 only (a step of the study) (skipped
# for bf16 and u8s8), two shapes: 8 entries.
"$G" --variant baseline,k8 --dtype f32,bf16,u8s8 --shape 16x64x64 --shape 32x64x64 \
    --threads 1 --reps 5 --warmup 1 --rounds 1 --min-time 0 --quiet -o mixed.json >/dev/null 2>run.err ||
    { echo "FAIL dtype_base_run: $(head -c 300 run.err)"; exit 0; }

# Derived files: f32 only in the old format (no "dtype" anywhere), f32 only
# with "dtype" written, and one entry of a type no reader knows.
python3 - <<'PY' || { echo "FAIL dtype_fixtures: python"; exit 0; }
import copy, json
d = json.load(open("mixed.json"))
assert {e.get("dtype") for e in d["results"]} == {"f32", "bf16", "u8s8"}, d["results"]
f32 = copy.deepcopy(d)
f32["results"] = [e for e in d["results"] if e.get("dtype", "f32") == "f32"]
f32.pop("skipped", None)
f32["machine"].pop("dtype_peaks", None)
json.dump(f32, open("new_f32.json", "w"))
old = copy.deepcopy(f32)
for e in old["results"]:
    e.pop("dtype", None)
    e.pop("impl", None)
json.dump(old, open("old_f32.json", "w"))
bad = copy.deepcopy(d)
bad["results"][1]["dtype"] = "fp8"
json.dump(bad, open("fp8.json", "w"))
PY

# ---- report ----
expect_exit dtype_report 0 "$G" report mixed.json
for t in f32 bf16 u8s8; do
    expect_grep "dtype_report_table_$t" "^custom (K=64, N=64), $t, 1 thread: median" "$WORK/out"
done
if grep -q 'repeat' "$WORK/out"; then
    echo "FAIL dtype_report_no_repeats: $(grep repeat "$WORK/out")"
else
    echo "ok dtype_report_no_repeats"
fi
# Each type's table holds its own rows: k8 only in f32's.
py_check dtype_report_rows "$WORK/out" <<'PY'
import re, sys
tables = re.split(r"\n(?=custom )", open(sys.argv[1]).read())[1:]
rows = {t.split(", ")[2]: [l.split()[0] for l in t.splitlines()[2:] if l.strip()]
        for t in tables}
assert rows == {"f32": ["baseline", "k8"], "bf16": ["baseline"], "u8s8": ["baseline"]}, rows
PY
expect_exit dtype_report_gops 0 "$G" report mixed.json --metric gflops
expect_grep dtype_report_gops_u8s8 "u8s8, 1 thread: GOP/s at the median" "$WORK/out"
expect_grep dtype_report_gflops_bf16 "bf16, 1 thread: GFLOP/s at the median" "$WORK/out"
expect_exit dtype_report_filter 0 "$G" report mixed.json --dtype bf16
if grep -q ', f32, \|, u8s8, ' "$WORK/out" || ! grep -q ', bf16, ' "$WORK/out"; then
    echo "FAIL dtype_report_filter_only_bf16: $(grep '^custom' "$WORK/out")"
else
    echo "ok dtype_report_filter_only_bf16"
fi
expect_exit dtype_report_combined 0 "$G" report mixed.json --combined
expect_grep dtype_report_combined_u8s8 "^all kernels, u8s8, 1 thread" "$WORK/out"
expect_exit dtype_report_csv 0 "$G" report mixed.json --format csv
expect_grep dtype_report_csv_header "^kernel,dtype,threads,variant,16,32," "$WORK/out"
expect_grep dtype_report_csv_row "^custom,bf16,1,baseline," "$WORK/out"
expect_grep dtype_report_csv_table "^# table: kernel=custom dtype=u8s8 threads=1" "$WORK/out"
# An f32 file prints as it always has: no type in titles or CSV.
expect_exit dtype_report_old 0 "$G" report old_f32.json
expect_grep dtype_report_old_title "^custom (K=64, N=64), 1 thread: median" "$WORK/out"
expect_exit dtype_report_old_csv 0 "$G" report old_f32.json --format csv
expect_grep dtype_report_old_csv_header "^kernel,threads,variant,16,32," "$WORK/out"
expect_exit dtype_report_multi 0 "$G" report mixed.json mixed.json
expect_grep dtype_report_multi_row "^baseline \[u8s8\] *custom *16 " "$WORK/out"
expect_exit dtype_report_bad_filter 2 "$G" report mixed.json --dtype fp8
expect_grep dtype_report_bad_filter_says "--dtype 'fp8' is not a type" "$WORK/err"
expect_exit dtype_report_filter_unmatched 2 "$G" report old_f32.json --dtype bf16
expect_exit dtype_report_fp8_file 2 "$G" report fp8.json

# ---- compare ----
python3 - <<'PY' || echo "FAIL dtype_compare_fixture: python"
import json
d = json.load(open("mixed.json"))
for e in d["results"]:
    e["median_us"] *= 1.01
json.dump(d, open("mixed2.json", "w"))
PY
expect_exit dtype_compare_self 0 "$G" compare mixed.json mixed.json
expect_grep dtype_compare_label_bf16 "^baseline \[bf16\] *custom *16 " "$WORK/out"
expect_grep dtype_compare_label_f32 "^baseline  *custom *16 " "$WORK/out"
expect_grep dtype_compare_geomean "variant *baseline \[u8s8\] " "$WORK/out"
if grep -q 'only in\|repeat' "$WORK/err"; then
    echo "FAIL dtype_compare_self_pairs: $(cat "$WORK/err")"
else
    echo "ok dtype_compare_self_pairs"
fi
expect_exit dtype_compare_json 0 "$G" compare mixed.json mixed.json --format json
py_check dtype_compare_json_dtype "$WORK/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
types = sorted(e["dtype"] for e in d["entries"])
assert types == ["bf16"] * 2 + ["f32"] * 4 + ["u8s8"] * 2, types
assert not d["only_old"] and not d["only_new"], d
assert "baseline [bf16]" in d["geomean"]["variants"], d["geomean"]
PY
# A file from before types is f32: it pairs with a new f32 file, labels bare.
expect_exit dtype_compare_old_new 0 "$G" compare old_f32.json new_f32.json
if grep -q '\[f32\]\|\[bf16\]' "$WORK/out" || grep -q 'only in' "$WORK/err"; then
    echo "FAIL dtype_compare_old_new_plain: $(head -c 300 "$WORK/out") $(cat "$WORK/err")"
else
    echo "ok dtype_compare_old_new_plain"
fi
expect_grep dtype_compare_old_new_count "(4 compared" "$WORK/out"
expect_exit dtype_compare_filter 0 "$G" compare mixed.json mixed.json --dtype bf16
expect_grep dtype_compare_filter_count "(2 compared" "$WORK/out"
expect_exit dtype_compare_filter_list 0 "$G" compare mixed.json mixed.json --dtype f32,u8s8
expect_grep dtype_compare_filter_list_count "(6 compared" "$WORK/out"
expect_exit dtype_compare_bad_filter 2 "$G" compare mixed.json mixed2.json --dtype fp8
expect_exit dtype_compare_filter_unmatched 2 "$G" compare old_f32.json new_f32.json --dtype u8s8
expect_exit dtype_compare_fp8_file 2 "$G" compare fp8.json mixed.json
expect_grep dtype_compare_fp8_says 'dtype' "$WORK/err"

# ---- history ----
expect_exit dtype_history_add 0 "$G" history add --store hs --commit c1 \
    --date 2026-01-01T00:01:00Z mixed.json
expect_exit dtype_history_add2 0 "$G" history add --store hs --commit c2 \
    --date 2026-01-01T00:02:00Z mixed2.json
expect_exit dtype_history_add_old 0 "$G" history add --store hs --commit c3 \
    --date 2026-01-01T00:03:00Z old_f32.json
expect_exit dtype_history_changes 0 "$G" history changes --store hs --format json
py_check dtype_history_series "$WORK/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
per = {s["series"]: s["points"] for s in d["noise"]["per_series"]}
assert len(per) == 8, per
bf = [k for k in per if k.endswith("/warm/bf16")]
u8 = [k for k in per if k.endswith("/warm/u8s8")]
f32 = [k for k in per if k.endswith("/warm")]
assert len(bf) == 2 and len(u8) == 2 and len(f32) == 4, per
# The old file (no "dtype") joined the f32 series, never the others.
assert all(per[k] == 3 for k in f32) and all(per[k] == 2 for k in bf + u8), per
PY

# ---- validate-json.py ----
VJ=$ROOT/scripts/validate-json.py
expect_exit dtype_validate_mixed 0 python3 "$VJ" mixed.json
expect_exit dtype_validate_old 0 python3 "$VJ" old_f32.json
expect_exit dtype_validate_fp8 1 python3 "$VJ" fp8.json
expect_grep dtype_validate_fp8_says "results\[1\].dtype is 'fp8'" "$WORK/out"
python3 - <<'PY' || echo "FAIL dtype_validate_fixture: python"
import json
d = json.load(open("mixed.json"))
d["skipped"] = [{"variant": "packed", "dtype": "bf16"}]
d["machine"]["dtype_peaks"] = {"fp8": {}, "bf16": {"unit": "flops", "peak": -1}}
d["results"][0]["impl"] = 3
json.dump(d, open("badtypes.json", "w"))
PY
expect_exit dtype_validate_bad 1 python3 "$VJ" badtypes.json
py_check dtype_validate_bad_says "$WORK/out" <<'PY'
import sys
out = open(sys.argv[1]).read()
for want in ("skipped[0] is not", "dtype_peaks.fp8", "dtype_peaks.bf16.unit",
             "dtype_peaks.bf16.peak is", "results[0].impl is not a string"):
    assert want in out, (want, out)
PY
