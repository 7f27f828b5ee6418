# types.sh - the type axis (--dtype): each type's entries verified exactly and
# carrying their type, the variants without a type skipped with their reason
# in the table's stderr and the file, each type's peak in the machine block,
# --list's types, and the refusals (an unknown type, a type twice, a run in
# which nothing runs the type).
. tests/cli/lib.sh
G=$GEMMBENCH


# ---- refusals: one line, exit 2 -------------------------------------------------
expect_exit dtype_unknown 2 "$G" --dtype fp8 --quick
expect_grep dtype_unknown_names_it "'fp8'" "$WORK/err"
expect_exit dtype_twice 2 "$G" --dtype bf16,f32,bf16 --quick
expect_exit dtype_empty_item 2 "$G" --dtype f32,,bf16 --quick
expect_exit dtype_nothing_runs 2 "$G" --dtype u8s8 --variant k8,tvm_blocking --quick
expect_grep dtype_nothing_runs_says_why "none of the selected variants runs u8s8" "$WORK/err"
printf 'dtype = int4\n' >"$WORK/bad.conf"
expect_exit dtype_conf_unknown 2 "$G" --config "$WORK/bad.conf" --quick

# ---- --list: each variant's types -------------------------------------------------
"$G" --list >"$WORK/list.txt"
check list_packed_types awk '$1 == "packed" { getline; if ($0 ~ /types f32, bf16, u8s8$/) ok = 1 }
                            END { exit !ok }' "$WORK/list.txt"
check list_study_f32_only awk '$1 == "k8" { getline; if ($0 ~ /types f32 only: a step of the study/) ok = 1 }
                               END { exit !ok }' "$WORK/list.txt"

# ---- a run of three types on shapes that are multiples of no tile -----------------------
"$G" --quiet --dtype f32,bf16,u8s8 --variant baseline,packed,k8 --shape 7x33x100 \
    --shape 33x383x17 --reps 3 --warmup 1 --rounds 1 --threads 2 --prepack \
    -o "$WORK/t.json" >"$WORK/t.txt" 2>"$WORK/t.err"
check typed_run_exit test $? -eq 0
expect_grep typed_table_type_column ' type ' "$WORK/t.txt"
expect_grep typed_table_rate_unit 'G(FL)OP/s' "$WORK/t.txt"
expect_grep typed_impl_under_table '^impl: packed in u8s8: ' "$WORK/t.txt"
py_check typed_entries_checked_and_typed "$WORK/t.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rs = d["results"]
seen = {}
for r in rs:
    assert r["check"] == "pass" and r["check_mode"] == "exact", r
    seen.setdefault(r["dtype"], set()).add(r["label"])
    if r["dtype"] != "f32" and r["variant"] == "packed":
        assert r.get("impl"), r              # which path ran
    if r["dtype"] != "f32":
        assert r["variant"] != "k8", r       # f32 only: never run
want = {"baseline", "packed", "packed+prepack"}
assert seen["f32"] == want | {"k8"}, seen
assert seen["bf16"] == want and seen["u8s8"] == want, seen
# the types of one shape run back to back, in the order given
order = [(r["M"], r["dtype"]) for r in rs if r["variant"] == "baseline"]
assert order == [(7, "f32"), (7, "bf16"), (7, "u8s8"), (33, "f32"), (33, "bf16"), (33, "u8s8")], order
PY
py_check typed_skipped_in_file "$WORK/t.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
sk = {(s["variant"], s["dtype"]): s["reason"] for s in d["skipped"]}
assert set(sk) == {("k8", "bf16"), ("k8", "u8s8")}, sk
assert all("study" in r for r in sk.values()), sk
PY
expect_grep typed_skipped_under_table "^skipped: k8 in bf16: a step of the study" "$WORK/t.txt"
py_check typed_peaks_and_percent "$WORK/t.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = d["machine"]["dtype_peaks"]
assert set(p) == {"bf16", "u8s8"}, p
assert p["bf16"]["unit"] == "GFLOP/s" and p["u8s8"]["unit"] == "GOP/s", p
for t in p.values():
    assert t["peak"] > 0 and t["peak_1thread"] > 0 and t["isa"], t
for r in d["results"]:
    if r["dtype"] == "f32":
        continue
    peak = p[r["dtype"]]["peak"] if r["threads"] == d["run"]["threads"] else p[r["dtype"]]["peak_1thread"]
    assert abs(r["peak_pct"] - 100 * r["gflops"] / peak) < 1e-6 * r["peak_pct"] + 1e-9, r
PY

# ---- a run without --dtype is today's: no type column, f32 entries ---------------------------
"$G" --quiet --variant baseline --shape 7x33x100 --reps 2 --warmup 1 --rounds 1 \
    -o "$WORK/f.json" >"$WORK/f.txt" 2>&1
check default_f32_no_type_column sh -c "! grep -q ' type ' '$WORK/f.txt'"
check default_f32_no_dtype_peaks sh -c "! grep -q dtype_peaks '$WORK/f.json'"
expect_grep default_f32_entries '"dtype":	"f32"' "$WORK/f.json"

# ---- a file of the format before types reads as f32 -------------------------------------------
python3 - "$WORK/f.json" "$WORK/old.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    r.pop("dtype", None)
json.dump(d, open(sys.argv[2], "w"))
PY
expect_verdict old_format_compares "$G" compare "$WORK/old.json" "$WORK/f.json"
python3 - "$WORK/f.json" "$WORK/fp8.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["results"][0]["dtype"] = "fp8"
json.dump(d, open(sys.argv[2], "w"))
PY
expect_exit unknown_dtype_in_file_refused 2 "$G" report "$WORK/fp8.json"
expect_grep unknown_dtype_in_file_names_field '"dtype"' "$WORK/err"

# ---- scripts/bench-types.sh and its report, on one small shape ----------------------------------
if "$G" --list | grep -q '^onednn '; then
    SHAPES="--shape 16x64x96" THREADS=1 OUTDIR="$WORK/bt" GEMMBENCH="$G" \
        sh scripts/bench-types.sh --reps 2 --rounds 2 --warmup 1 >"$WORK/bt.txt" 2>&1
    check bench_types_runs test $? -eq 0
    expect_grep bench_types_reports_u8s8 '^u8s8, 1 thread' "$WORK/bt.txt"
    check bench_types_ratio_row awk '$1 == "custom" && $2 == "M=16" && $3 + 0 > 0 { n++ } END { exit n != 3 }' "$WORK/bt.txt"
    # The report of the run's file, plain and gzip-compressed: the same.
    btj=$(ls "$WORK"/bt/*.json 2>/dev/null | head -n 1)
    python3 scripts/types_report.py "$btj" >"$WORK/tr1.out" 2>&1
    gzip -c "$btj" >"$WORK/bt.json.gz"
    python3 scripts/types_report.py "$WORK/bt.json.gz" >"$WORK/tr2.out" 2>&1
    check types_report_reads_gzip cmp "$WORK/tr1.out" "$WORK/tr2.out"
    expect_grep types_report_gzip_reports '^u8s8, 1 thread' "$WORK/tr2.out"
else
    skip bench_types_runs "needs oneDNN (libdnnl-dev) in the build"
fi
THREADS=x GEMMBENCH="$G" sh scripts/bench-types.sh >"$WORK/bt2.out" 2>"$WORK/bt2.err"
check bench_types_bad_threads test $? -eq 2
expect_grep bench_types_bad_threads_says "THREADS must be positive integers" "$WORK/bt2.err"
printf '{"results": 3}' >"$WORK/notres.json"
python3 scripts/types_report.py "$WORK/notres.json" >"$WORK/tr.out" 2>"$WORK/tr.err"
check types_report_refuses_garbage test $? -eq 2
printf '{"results": 3}' | gzip -c | head -c 20 >"$WORK/cut.json.gz"
python3 scripts/types_report.py "$WORK/cut.json.gz" >"$WORK/tr.out" 2>"$WORK/tr.err"
check types_report_refuses_cut_gzip test $? -eq 2 -a "$(wc -l <"$WORK/tr.err")" -eq 1

# ---- libxsmm's initialisation puts OMP_PROC_BIND=TRUE in the environment: taken out again ----
if "$G" --list | grep -q '^libxsmm '; then
    env -u OMP_PROC_BIND -u OMP_PLACES -u GOMP_CPU_AFFINITY "$G" --quiet --variant libxsmm \
        --dtype f32,u8s8 --shape 8x8x8 --reps 1 --rounds 1 -o "$WORK/x.json" >/dev/null 2>&1
    py_check libxsmm_leaves_binding_alone "$WORK/x.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))["run"]["openmp"]["bind"]
assert b["policy"] == "default" and b["OMP_PROC_BIND"] == "", b
PY
else
    skip libxsmm_leaves_binding_alone "needs libxsmm (libxsmm-dev) in the build"
fi

# ---- tool.libraries: the implementations each library ran, per type ------------------------------
if "$G" --list | grep -q '^onednn '; then
    "$G" --quiet --dtype f32,u8s8 --variant onednn --shape 33x100x7 --reps 1 --rounds 1 \
        --threads 1 -o "$WORK/lib.json" >/dev/null 2>&1
    py_check libraries_impl_per_type "$WORK/lib.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
impl = d["tool"]["libraries"]["onednn"]["impl"]
ran = {r["impl"] for r in d["results"] if r["dtype"] == "u8s8"}
assert set(impl) == {"u8s8"} and set(impl["u8s8"]) == ran and len(impl["u8s8"]) == len(ran), (impl, ran)
PY
else
    skip libraries_impl_per_type "needs oneDNN (libdnnl-dev) in the build"
fi

# ---- report --metric scaling: each type's speed-up over its own 1-thread median -----------------
"$G" --quiet --dtype f32,u8s8 --variant packed --shape 64x256x256 --threads 1,2 --reps 2 \
    --rounds 1 -o "$WORK/sc.json" >/dev/null 2>&1
"$G" report "$WORK/sc.json" --metric scaling >"$WORK/sc.txt" 2>&1
check scaling_per_type_rows awk '$1 == "packed" && ($2 == "[f32]" || $2 == "[u8s8]") { n++ } END { exit n != 4 }' "$WORK/sc.txt"
py_check scaling_per_type_ratio "$WORK/sc.json" "$WORK/sc.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
med = {(r["dtype"], r["threads"]): r["median_us"] for r in d["results"]}
rows = [l.split() for l in open(sys.argv[2]) if l.startswith("packed [u8s8]") and "custom" in l]
assert len(rows) == 1, rows
want = med[("u8s8", 1)] / med[("u8s8", 2)]
assert abs(float(rows[0][5]) - want) < 0.006, (rows, want)
PY
