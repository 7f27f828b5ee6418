# badinput5.sh - hostile input, fifth pass (each section a class):
#  1. model files whose booster would crash XGBoost or predict no time;
#  2. \u0000 in the trial database and in model files;
#  3. model train -o and a run's -o: one output rule (an input, another kind, a node);
#  4. the trial database appended under a lock, never rewritten;
#  5. writers whose files their readers refused (long --space, steal sums);
#  6. a calibration cache that contradicts itself;
#  7. one escape rule for what is printed (tune, calibration, ratios);
#  8. the ml scripts' settings and failed steps, history-ratios.py;
#  9. history html's filters with runs of whitespace, its -o in the store.
# Each refused in one line (exit 2), never a crash, a clobbered file, a
# traceback or a number made of infinity.
. tests/cli/lib.sh
G=$GEMMBENCH
ROOT=$(pwd)
cd "$WORK" || exit 1
export GEMMBENCH_RECORDS="$WORK/rec.json"
SPACE=$ROOT/schedules/cpu_gemm.space
FIXTURE=$ROOT/tests/data/trials_small.jsonl
RUN="--threads 1 --reps 2 --quiet"
MODEL_CHECKS="model_trees model_predicts_time model_nul"

have_xgboost=1
if ! command -v python3 >/dev/null 2>&1; then
    have_xgboost=0
    why="needs python3 (writes the hostile files)"
elif "$G" model train --database "$FIXTURE" -o "$WORK/probe.model" --space "$SPACE" 2>&1 | grep -q 'built without XGBoost'; then
    have_xgboost=0
    why="built without XGBoost (libxgboost-dev)"
fi

# The fixture's trials with this machine's features, for a model of this
# machine (as learn.sh does).
expect_exit bi5_db_tune 0 "$G" tune --space "$SPACE" --shape 8x16x16 --threads 1 --trials 1 --reps 2 --quiet --database "$WORK/db.jsonl" --records "$WORK/r0.json"
if command -v python3 >/dev/null 2>&1; then
python3 - "$FIXTURE" "$WORK/db.jsonl" "$WORK/here.jsonl" <<'PY'
import json, sys
here = json.loads(open(sys.argv[2]).readline())["machine"]
with open(sys.argv[3], "w") as h:
    for line in open(sys.argv[1]):
        r = json.loads(line)
        r["machine"] = dict(here)
        h.write(json.dumps(r, separators=(",", ":")) + "\n")
PY
fi

# ---- 1. model files: the booster checked before XGBoost sees it ----------
if [ $have_xgboost = 1 ]; then
    expect_exit bi5_train 0 "$G" model train --database "$WORK/here.jsonl" --space "$SPACE" -o "$WORK/a.model"
    trees() { # NAME PYTHON: the model with XGBoost's model x edited (m: its
              # trees' model, T: the first tree of at least 5 nodes)
        python3 - "$WORK/a.model" "$WORK/$1.model" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
x = json.loads(d["xgboost"])
m = x["learner"]["gradient_booster"]["model"]
T = [t for t in m["trees"] if len(t["left_children"]) >= 5][0]
exec(sys.argv[3])
d["xgboost"] = json.dumps(x)
open(sys.argv[2], "w").write(json.dumps(d))
PY
    }
    hostile_trees() { # NAME PYTHON [all]: refused by a run (and with all,
                      # by --explain and tune --model, which read it alike)
        trees "$1" "$2"
        expect_exit "bi5_trees_run_$1" 2 "$G" --variant ml_guided --shape 20x33x17 $RUN --model "$WORK/$1.model" -o "$WORK/t.json"
        [ "${3:-}" = all ] || return 0
        expect_exit "bi5_trees_explain_$1" 2 "$G" --variant ml_guided --shape 20x33x17 --threads 1 --explain --model "$WORK/$1.model"
        expect_exit "bi5_trees_tune_$1" 2 "$G" tune --space "$SPACE" --shape 20x33x17 $RUN --trials 2 --model "$WORK/$1.model" --records "$WORK/t.records"
    }
    hostile_trees child_out_of_range 'T["left_children"][0] = 99' all
    hostile_trees child_negative 'T["right_children"][0] = -7'
    hostile_trees cycle 'T["left_children"][T["left_children"][0]] = 0; T["right_children"][T["left_children"][0]] = T["right_children"][0]' all
    hostile_trees shared_child 'T["right_children"][0] = T["left_children"][0]'
    hostile_trees split_negative 'T["split_indices"][0] = -5' all
    expect_grep bi5_trees_said_why "tree [0-9]*: node 0 splits on column -5 of 46" "$WORK/err"
    hostile_trees split_past_features 'T["split_indices"][0] = 46'
    hostile_trees more_trees_said 'm["gbtree_model_param"]["num_trees"] = str(len(m["trees"]) + 100)' all
    hostile_trees fewer_trees_said 'm["gbtree_model_param"]["num_trees"] = "3"'
    hostile_trees tree_info_short 'm["tree_info"] = m["tree_info"][:5]'
    hostile_trees short_arrays 'T["split_conditions"] = T["split_conditions"][:2]'
    hostile_trees nodes_said 'T["tree_param"]["num_nodes"] = "1000"'
    hostile_trees features_said 'x["learner"]["learner_model_param"]["num_feature"] = "4"'
    hostile_trees leaf_huge 'T["split_conditions"] = [1e30] * len(T["split_conditions"])' all
    hostile_trees base_huge 'x["learner"]["learner_model_param"]["base_score"] = "1E30"'
    hostile_trees base_nan 'x["learner"]["learner_model_param"]["base_score"] = "nan"'
    hostile_trees trees_not_list 'm["trees"] = {}'
    hostile_trees dart 'x["learner"]["gradient_booster"]["name"] = "dart"'
    hostile_trees objective 'x["learner"]["objective"]["name"] = "reg:logistic"'
    hostile_trees version_text 'x["version"] = "1.7.4"'
    hostile_trees not_an_object 'x = [1, 2]'
    hostile_trees base_large 'x["learner"]["learner_model_param"]["base_score"] = "1E2"'
    # A base within the check's bound (a time for the smallest shape) that
    # predicts over 10^12 us for this one: never ranked, never recorded.
    trees base_large 'x["learner"]["learner_model_param"]["base_score"] = "%.4g" % (26.4 - sum(max(t["split_conditions"][i] for i in range(len(t["left_children"])) if t["left_children"][i] == -1) for t in m["trees"]))'
    expect_exit bi5_predict_not_time 0 "$G" --variant ml_guided --shape 20x33x17 $RUN --model "$WORK/base_large.model" -o "$WORK/large.json"
    py_check bi5_predict_not_recorded "$WORK/large.json" <<'PY'
import json, sys
(r,) = json.load(open(sys.argv[1]))["results"]
e = r["effective_params"]
assert e["source"] == "rule", e
assert e["why"] == "no_time", e   # candidates exist: the model predicted no time for them
assert "schedule" not in r or r["schedule"].get("predicted_us") is None, r
PY
else
    for t in $MODEL_CHECKS; do skip "bi5_$t" "$why"; done
fi

# ---- 2. \u0000 in a string: refused with its line, by every reader -------
good=$(head -n 1 "$FIXTURE")
nul_db() { # NAME SED: a database of a good line and the line edited
    { printf '%s\n' "$good"; printf '%s' "$good" | sed "$2"; echo; } >"$WORK/$1.jsonl"
    expect_exit "bi5_db_nul_$1" 2 "$G" model train --database "$WORK/$1.jsonl" -o "$WORK/x.model" &&
        expect_grep "bi5_db_nul_line_$1" "$1.jsonl:2: .*u0000" "$WORK/err"
    cp "$WORK/$1.jsonl" "$WORK/$1.keep"
    expect_exit "bi5_db_nul_tune_$1" 2 "$G" tune --space "$SPACE" --shape 8x16x16 --threads 1 --trials 1 --database "$WORK/$1.jsonl" --records "$WORK/x.json"
    cmp -s "$WORK/$1.jsonl" "$WORK/$1.keep" && echo "ok bi5_db_nul_kept_$1" || echo "FAIL bi5_db_nul_kept_$1: tune changed the database"
}
nul_db schedule 's/"schedule":"param mc/"schedule":"\\u0000param mc/'
nul_db schedule_tail 's/\\n","verified"/\\n\\u0000split i 7 -> a b\\n","verified"/'
nul_db space 's#"space":"schedules/#"space":"x\\u0000\\u001b[31m#'
nul_db isa 's/"isa":"\([a-z0-9]*\)"/"isa":"\1\\u0000 of another machine"/'
nul_db key 's/"illegal":/"ill\\u0000egal":/'
if [ $have_xgboost = 1 ]; then
    envelope() { # NAME PYTHON: the model file edited (d: its JSON)
        python3 - "$WORK/a.model" "$WORK/$1.model" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
open(sys.argv[2], "w").write(json.dumps(d))
PY
        expect_exit "bi5_model_nul_$1" 2 "$G" --variant ml_guided --shape 20x33x17 $RUN --model "$WORK/$1.model" -o "$WORK/t.json" &&
            expect_grep "bi5_model_nul_said_$1" "u0000" "$WORK/err"
    }
    envelope isa 'd["machine"]["isa"] += "\u0000 of another machine"'
    envelope elite 'd["elites"][0]["schedule"] += "\u0000split i 7 -> a b\n"'
    envelope space_file 'd["space"]["file"] += "\u0000\u001b[31m"'
    envelope space_text 'd["space"]["text"] += "\u0000 anything"'
    envelope target 'd["target"] += "\u0000"'
fi

# ---- 3. model train -o: one output rule ----------------------------------
if [ $have_xgboost = 1 ]; then
    TRAIN="model train --database $WORK/here.jsonl --space $SPACE"
    cp "$WORK/here.jsonl" "$WORK/keep.jsonl"
    expect_exit bi5_out_own_database 2 "$G" model train --database "$WORK/here.jsonl" --space "$SPACE" -o "$WORK/here.jsonl"
    cmp -s "$WORK/here.jsonl" "$WORK/keep.jsonl" && echo "ok bi5_out_own_database_kept" || echo "FAIL bi5_out_own_database_kept: the database was replaced"
    expect_exit bi5_out_own_database_force 2 "$G" model train --database "$WORK/here.jsonl" --space "$SPACE" -o "$WORK/here.jsonl" --force
    ln -s "$WORK/here.jsonl" "$WORK/link.jsonl"
    expect_exit bi5_out_database_by_link 2 "$G" model train --database "$WORK/link.jsonl" --space "$SPACE" -o "$WORK/here.jsonl" --force
    cp "$SPACE" "$WORK/my.space"
    expect_exit bi5_out_space 2 "$G" model train --database "$WORK/here.jsonl" --space "$WORK/my.space" -o "$WORK/my.space" --force
    cmp -s "$WORK/my.space" "$SPACE" && echo "ok bi5_out_space_kept" || echo "FAIL bi5_out_space_kept"
    echo '{"schema": "gemmbench/1", "results": []}' >"$WORK/result.json"
    expect_exit bi5_out_other_kind 2 "$G" $TRAIN -o "$WORK/result.json"
    expect_grep bi5_out_other_kind_says "--force replaces it" "$WORK/err"
    grep -q '"gemmbench/1"' "$WORK/result.json" && echo "ok bi5_out_other_kind_kept" || echo "FAIL bi5_out_other_kind_kept"
    expect_exit bi5_out_other_kind_force 0 "$G" $TRAIN -o "$WORK/result.json" --force
    expect_exit bi5_out_model_replaced 0 "$G" $TRAIN -o "$WORK/result.json"
    : >"$WORK/empty.model"
    expect_exit bi5_out_empty_replaced 0 "$G" $TRAIN -o "$WORK/empty.model"
    mkfifo "$WORK/fifo" 2>/dev/null && {
        expect_exit bi5_out_fifo 2 "$G" $TRAIN -o "$WORK/fifo" --force
        [ -p "$WORK/fifo" ] && echo "ok bi5_out_fifo_kept" || echo "FAIL bi5_out_fifo_kept"
    }
    expect_exit bi5_out_device 2 "$G" $TRAIN -o /dev/null --force
    [ -c /dev/null ] && echo "ok bi5_out_device_kept" || echo "FAIL bi5_out_device_kept"
    expect_exit bi5_out_directory 2 "$G" $TRAIN -o "$WORK" --force
    expect_exit bi5_out_missing_folder 3 "$G" $TRAIN -o "$WORK/none/x.model"
else
    skip bi5_model_output "$why"
fi

# ---- 4. the trial database: appended under a lock, never rewritten -------
TUNE="tune --space $SPACE --shape 8x16x16 --threads 1 --reps 2 --quiet"
expect_exit bi5_db_empty_name 2 "$G" $TUNE --trials 1 --database '' --records "$WORK/r.json"
expect_exit bi5_db_missing_folder 2 "$G" $TUNE --trials 1 --database "$WORK/none/db.jsonl" --records "$WORK/r.json"
expect_grep bi5_db_missing_folder_before "cannot create" "$WORK/err"
[ ! -e "$WORK/r.json" ] && echo "ok bi5_db_refused_before_search" || echo "FAIL bi5_db_refused_before_search: records written"
expect_exit bi5_db_same_as_records 2 "$G" $TUNE --trials 1 --database "$WORK/same.jsonl" --records "$WORK/same.jsonl"
cp "$WORK/db.jsonl" "$WORK/same2.jsonl"
expect_exit bi5_db_same_as_records_existing 2 "$G" $TUNE --trials 1 --database "$WORK/same2.jsonl" --records "$WORK/same2.jsonl"
cmp -s "$WORK/db.jsonl" "$WORK/same2.jsonl" && echo "ok bi5_db_same_kept" || echo "FAIL bi5_db_same_kept"
cp "$SPACE" "$WORK/s.space"
expect_exit bi5_records_is_space 2 "$G" tune --space "$WORK/s.space" --shape 8x16x16 --threads 1 --trials 1 --quiet --records "$WORK/s.space"
# appended in place: the same file (inode) before and after
cp "$WORK/db.jsonl" "$WORK/grow.jsonl"
before=$(ls -i "$WORK/grow.jsonl" | cut -d' ' -f1)
expect_exit bi5_db_append 0 "$G" $TUNE --trials 2 --database "$WORK/grow.jsonl" --records "$WORK/r.json"
after=$(ls -i "$WORK/grow.jsonl" | cut -d' ' -f1)
[ "$before" = "$after" ] && [ "$(wc -l <"$WORK/grow.jsonl")" -eq 3 ] && echo "ok bi5_db_appended_in_place" ||
    echo "FAIL bi5_db_appended_in_place: inode $before -> $after, $(wc -l <"$WORK/grow.jsonl") lines"
# four searches appending at once keep all their lines
for i in 1 2 3 4; do
    "$G" $TUNE --trials 4 --seed $i --database "$WORK/conc.jsonl" --records "$WORK/conc$i.json" >/dev/null 2>"$WORK/conc$i.err" &
done
wait
lines=$(cat "$WORK/conc.jsonl" 2>/dev/null | wc -l)
[ "$lines" -eq 16 ] && echo "ok bi5_db_concurrent_appends" || echo "FAIL bi5_db_concurrent_appends: $lines of 16 lines: $(cat "$WORK"/conc*.err | head -c 300)"
# a database whose last line another writer cut short is refused, not added to
cp "$WORK/db.jsonl" "$WORK/cut.jsonl"
printf '{"schema":"gemmbench-trials"' >>"$WORK/cut.jsonl"
cp "$WORK/cut.jsonl" "$WORK/cut.keep"
expect_exit bi5_db_cut_refused 2 "$G" $TUNE --trials 1 --database "$WORK/cut.jsonl" --records "$WORK/r.json"
cmp -s "$WORK/cut.jsonl" "$WORK/cut.keep" && echo "ok bi5_db_cut_kept" || echo "FAIL bi5_db_cut_kept"

# ---- 5. writers whose files their readers refuse -------------------------
# A --space path of over 200 bytes, or of escapes that grow past 200 shown,
# is kept so that the database reads back.
long=$WORK/$(printf 'd%.0s' $(seq 1 120))/$(printf 's%.0s' $(seq 1 120))
mkdir -p "$(dirname "$long")" && cp "$SPACE" "$long.space"
TUNE_AT="tune --shape 8x16x16 --threads 1 --reps 2 --quiet --trials 1 --records $WORK/r.json"
expect_exit bi5_long_space_tune 0 "$G" $TUNE_AT --database "$WORK/long.jsonl" --space "$long.space"
expect_exit bi5_long_space_reads 0 "$G" $TUNE --trials 1 --database "$WORK/long.jsonl" --records "$WORK/r.json"
[ "$(wc -l <"$WORK/long.jsonl")" -eq 2 ] && echo "ok bi5_long_space_appended" || echo "FAIL bi5_long_space_appended"
E=$(printf '\033')
esc_dir="$WORK/$(printf "e${E}%.0s" $(seq 1 60))"
mkdir -p "$esc_dir" && cp "$SPACE" "$esc_dir/x.space"
expect_exit bi5_escaped_space_tune 0 "$G" $TUNE_AT --database "$WORK/esc.jsonl" --space "$esc_dir/x.space"
expect_exit bi5_escaped_space_reads 0 "$G" $TUNE --trials 1 --database "$WORK/esc.jsonl" --records "$WORK/r.json"
grep -q "$E" "$WORK/esc.jsonl" && echo "FAIL bi5_escaped_space_no_raw_esc" || echo "ok bi5_escaped_space_no_raw_esc"

# Steal seconds whose sum overflows: refused when read, so that no index
# holds null (which changes and html refuse).
"$G" --variant vec_j --shape 8x8x8 --reps 5 --warmup 1 --rounds 2 --min-time 0 --quiet -o "$WORK/base.json" >/dev/null 2>&1
if command -v python3 >/dev/null 2>&1 && [ -s "$WORK/base.json" ]; then
    python3 - "$WORK/base.json" "$WORK/steal.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    for c in r["round_clocks"]:
        c["steal_s"] = 1e308
json.dump(d, open(sys.argv[2], "w"))
PY
    expect_exit bi5_steal_overflow_add 2 "$G" history add --store "$WORK/st" --commit c1 --date 2026-01-01T00:00:00Z "$WORK/steal.json"
    expect_exit bi5_steal_overflow_anchor 2 "$G" history add --store "$WORK/st" --commit c1 --anchor-commit A1 --anchor "$WORK/base.json" "$WORK/steal.json"
    expect_exit bi5_steal_overflow_compare 2 "$G" compare "$WORK/steal.json" "$WORK/base.json"
    expect_exit bi5_steal_store_fine 0 "$G" history add --store "$WORK/st" --commit c2 --date 2026-01-02T00:00:00Z "$WORK/base.json"
    if grep -q null "$WORK/st/index.jsonl" 2>/dev/null; then echo "FAIL bi5_steal_no_null_index"; else echo "ok bi5_steal_no_null_index"; fi
    expect_exit bi5_steal_changes 0 "$G" history changes --store "$WORK/st"
    # an index whose steal seconds a page would sum to inf: refused by line
    python3 - "$WORK/st/index.jsonl" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
out = []
for l in lines:
    d = json.loads(l)
    for row in d.get("entries", []):
        if len(row) >= 14:
            row[13] = 1e308
    out.append(json.dumps(d))
open(sys.argv[1], "w").write("\n".join(out) + "\n")
PY
    expect_exit bi5_steal_index_refused 2 "$G" history changes --store "$WORK/st"
    # a pair whose rounds' ratio a double cannot hold: said so, not "out of memory"
    "$G" ab "$G" "$G" --variant vec_j --shape 16x64x64 --reps 8 --warmup 1 --rounds 8 --min-time 0 \
        --quiet -o "$WORK/pair" >/dev/null 2>&1
    if [ -f "$WORK/pair-old.json" ] && [ -f "$WORK/pair-new.json" ]; then
        python3 - "$WORK/pair-old.json" "$WORK/pair-new.json" <<'PY'
import json, sys
for name, f in ((sys.argv[1], 1e-300), (sys.argv[2], 1e300)):
    d = json.load(open(name))
    for r in d["results"]:
        r["samples_us"] = [f * (1 + i * 1e-3) for i in range(len(r["samples_us"]))]
        for k in ("median_us", "min_us", "mean_us"):
            r[k] = f
    json.dump(d, open(name, "w"))
PY
        expect_exit bi5_pair_ratio_overflow 2 "$G" history add --store "$WORK/st2" --commit c1 --anchor-commit A1 --anchor "$WORK/pair-old.json" "$WORK/pair-new.json"
        expect_grep bi5_pair_ratio_overflow_said "ratio to the anchor is not a finite number" "$WORK/err"
    else
        skip bi5_pair_ratio_overflow "gemmbench ab made no pair"
    fi
else
    skip bi5_steal_overflow "needs python3 and a run's result"
fi

# ---- 6. a calibration cache that contradicts itself is not believed ------
CACHE=$WORK/cache
calib_run() { # NAME: packed, quick calibration, this test's own cache
    XDG_CACHE_HOME=$CACHE GEMMBENCH_CALIBRATE=quick timeout -k 5 60 "$G" --variant packed \
        --shape 16x64x64 --reps 1 --warmup 0 --threads 1 -o "$WORK/$1.json" >/dev/null 2>"$WORK/$1.err"
}
calib_run calib_first
set -- "$CACHE"/gemmbench/calibration-*.json
if [ -f "$1" ] && command -v python3 >/dev/null 2>&1; then
    cpath=$1
    for how in answer p10_above; do
        python3 - "$cpath" "$how" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
a = d["b"]
if sys.argv[2] == "answer":            # ratio 2.0 says copied; the file says in place
    a.update(ratio=2.0, ratio_p10=1.9, ratio_p90=2.1, read="in_place")
else:                                  # the ratio outside its own p10..p90
    a.update(ratio=1.0, ratio_p10=3.0, ratio_p90=4.0, read="in_place")
json.dump(d, open(sys.argv[1], "w"))
PY
        calib_run "calib_$how"
        rc=$?
        if [ $rc -eq 0 ] && [ "$(grep -c 'calibration cache' "$WORK/calib_$how.err")" -eq 1 ] &&
            grep -q 'corrupt: an answer contradicts its own ratios' "$WORK/calib_$how.err"; then
            echo "ok bi5_calibration_contradiction_$how"
        else
            echo "FAIL bi5_calibration_contradiction_$how: exit $rc: $(head -c 300 "$WORK/calib_$how.err")"
        fi
        if python3 "$ROOT/scripts/validate-json.py" "$WORK/calib_$how.json" >"$WORK/v.out" 2>&1; then
            echo "ok bi5_calibration_contradiction_valid_$how"
        else
            echo "FAIL bi5_calibration_contradiction_valid_$how: $(head -c 300 "$WORK/v.out")"
        fi
    done
else
    skip bi5_calibration_contradiction "no cache file written, or no python3"
fi

# ---- 7. one escape rule for everything printed ---------------------------
no_raw_esc() { # NAME FILE...: no ESC byte in the files
    name=$1
    shift
    if cat "$@" | grep -q "$E"; then echo "FAIL $name: a raw ESC printed"; else echo "ok $name"; fi
}
mkdir -p "$WORK/r${E}[31m"
"$G" $TUNE_AT --space "$esc_dir/x.space" --records "$WORK/r${E}[31m/rec.json" >"$WORK/hdr.out" 2>"$WORK/hdr.err"
expect_grep bi5_tune_header_escaped 'searching .*e\\x1be\\x1b.*records in .*r\\x1b\[31m/rec.json' "$WORK/hdr.out"
no_raw_esc bi5_tune_header_no_raw_esc "$WORK/hdr.out" "$WORK/hdr.err"
# the calibration cache's warning under an XDG_CACHE_HOME of escapes (the
# cache of section 6 copied there, its file then made a directory)
ECACHE="$WORK/c${E}[31m"
set -- "$CACHE"/gemmbench/calibration-*.json
if [ -f "$1" ] && mkdir -p "$ECACHE/gemmbench" && chmod 700 "$ECACHE" "$ECACHE/gemmbench"; then
    mkdir "$ECACHE/gemmbench/$(basename "$1")"
    XDG_CACHE_HOME=$ECACHE GEMMBENCH_CALIBRATE=quick "$G" --variant packed --shape 16x64x64 --reps 1 --warmup 0 --threads 1 -o "$WORK/ec2.json" >/dev/null 2>"$WORK/ec2.err"
    expect_grep bi5_calibration_warning_escaped 'calibration cache .*c\\x1b\[31m/gemmbench/calibration-.* is a directory' "$WORK/ec2.err"
    no_raw_esc bi5_calibration_warning_no_raw_esc "$WORK/ec2.err"
else
    skip bi5_calibration_warning_escaped "no calibration cache written in section 6"
fi
# history-ratios.py: a commit label of escapes printed escaped
if command -v python3 >/dev/null 2>&1; then
    mkdir -p "$WORK/hr"
    python3 - "$WORK/hr/index.jsonl" <<'PY'
import json, sys
e = ["vec_j", "custom", 16, 64, 64, 1, "warm", 1.02, 0.99, 1.05, 0.0001]
with open(sys.argv[1], "w") as f:
    for c in ("c1", "c2\x1b[2J\x9b1m"):
        f.write(json.dumps({"commit": c, "anchor": {"commit": "A1"}, "entries": [e]}) + "\n")
PY
    python3 "$ROOT/scripts/history-ratios.py" "$WORK/hr" >"$WORK/hr.out" 2>"$WORK/hr.err"
    rc=$?
    [ $rc -eq 0 ] && grep -q 'c2\\x1b\[2J\\xc2\\x9b1m' "$WORK/hr.out" && echo "ok bi5_ratios_label_escaped" ||
        echo "FAIL bi5_ratios_label_escaped: exit $rc: $(head -c 300 "$WORK/hr.out" "$WORK/hr.err")"
    no_raw_esc bi5_ratios_label_no_raw_esc "$WORK/hr.out" "$WORK/hr.err"
else
    skip bi5_ratios_label_escaped "needs python3"
fi

# ---- 8. scripts: settings checked before any step, a failed step stops ---
S=$ROOT/scripts
for v in BUDGET=08 BUDGET=x THREADS=0 SEED=-1 GEMMBENCH=$WORK/none SPACE=$WORK/none DATABASE=$WORK/none; do
    expect_exit "bi5_ml_guided_setting_${v%%=*}_$(echo "${v#*=}" | tr -c 'A-Za-z0-9\n' _)" 2 env "$v" sh "$S/ml-guided.sh" "$WORK/mg"
done
expect_exit bi5_ml_guided_usage 2 sh "$S/ml-guided.sh"
expect_exit bi5_ml_search_budget_08 2 env MODEL=/dev/null BUDGET=08 sh "$S/ml-search.sh" "$WORK/ms" qkv 64
expect_exit bi5_ml_search_m_08 2 env MODEL=/dev/null sh "$S/ml-search.sh" "$WORK/ms" qkv 064
expect_exit bi5_ml_loo_budget_08 2 env BUDGET=08 sh "$S/ml-leave-one-out.sh" "$WORK/loo"
expect_exit bi5_ml_loo_bad_shape 2 env SHAPES="qkv:08" sh "$S/ml-leave-one-out.sh" "$WORK/loo"
if command -v flock >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1; then
    # a failed step ends the script in one line; nothing after it runs
    printf '#!/bin/sh\necho "fake: it failed" >&2\nexit 3\n' >"$WORK/fail-gemmbench"
    chmod +x "$WORK/fail-gemmbench"
    env GEMMBENCH="$WORK/fail-gemmbench" LOCK="$WORK/lock" sh "$S/ml-guided.sh" "$WORK/mg1" >"$WORK/mg1.out" 2>"$WORK/mg1.err"
    rc=$?
    if [ $rc -eq 1 ] && [ "$(wc -l <"$WORK/mg1.err")" -eq 1 ] && grep -q 'the search failed' "$WORK/mg1.err" &&
        [ ! -e "$WORK/mg1/train.txt" ]; then
        echo "ok bi5_ml_guided_failed_search_stops"
    else
        echo "FAIL bi5_ml_guided_failed_search_stops: exit $rc: $(head -c 300 "$WORK/mg1.err")"
    fi
    printf 'garbage\n' >"$WORK/garbage.jsonl"
    env DATABASE="$WORK/garbage.jsonl" LOCK="$WORK/lock" sh "$S/ml-guided.sh" "$WORK/mg2" >"$WORK/mg2.out" 2>"$WORK/mg2.err"
    rc=$?
    if [ $rc -eq 1 ] && [ "$(wc -l <"$WORK/mg2.err")" -eq 1 ] && grep -q 'training failed' "$WORK/mg2.err" &&
        [ ! -e "$WORK/mg2/unseen6.json" ]; then
        echo "ok bi5_ml_guided_failed_training_stops"
    else
        echo "FAIL bi5_ml_guided_failed_training_stops: exit $rc: $(head -c 300 "$WORK/mg2.err")"
    fi
    # ml-leave-one-out.sh on a garbage database: one line, no traceback
    printf '{"records": [{"M": 64, "K": 768, "N": 768, "schedule": "x"}]}\n' >"$WORK/loo-rec.json"
    printf '{"M": 64, "K": 768, "N": 768}\n\377garbage{\n' >"$WORK/loo-db.jsonl"
    env DATABASE="$WORK/loo-db.jsonl" RECORDS="$WORK/loo-rec.json" SHAPES=qkv:64 LOCK="$WORK/lock" \
        sh "$S/ml-leave-one-out.sh" "$WORK/loo" >"$WORK/loo.out" 2>"$WORK/loo.err"
    rc=$?
    if [ $rc -ne 0 ] && [ "$(wc -l <"$WORK/loo.err")" -eq 1 ] && ! grep -q Traceback "$WORK/loo.err" &&
        grep -q 'loo-db.jsonl:2: not a line of a trial database' "$WORK/loo.err"; then
        echo "ok bi5_ml_loo_garbage_database"
    else
        echo "FAIL bi5_ml_loo_garbage_database: exit $rc: $(head -c 300 "$WORK/loo.err")"
    fi
    printf 'not json' >"$WORK/loo-rec2.json"
    env DATABASE="$WORK/loo-db.jsonl" RECORDS="$WORK/loo-rec2.json" SHAPES=qkv:64 LOCK="$WORK/lock" \
        sh "$S/ml-leave-one-out.sh" "$WORK/loo" >"$WORK/loo.out" 2>"$WORK/loo.err"
    rc=$?
    [ $rc -ne 0 ] && [ "$(wc -l <"$WORK/loo.err")" -eq 1 ] && ! grep -q Traceback "$WORK/loo.err" &&
        echo "ok bi5_ml_loo_garbage_records" || echo "FAIL bi5_ml_loo_garbage_records: exit $rc: $(head -c 300 "$WORK/loo.err")"
    # history-ratios.py: one line, exit 2, never a traceback
    ratios() { # NAME STORE
        python3 "$S/history-ratios.py" "$2" >"$WORK/r.out" 2>"$WORK/r.err"
        rc=$?
        if [ $rc -eq 2 ] && [ "$(wc -l <"$WORK/r.err")" -eq 1 ] && ! grep -q Traceback "$WORK/r.err"; then
            echo "ok bi5_ratios_$1"
        else
            echo "FAIL bi5_ratios_$1: exit $rc: $(head -c 300 "$WORK/r.err")"
        fi
    }
    ratios missing_store "$WORK/no-store"
    mkdir -p "$WORK/hr-bad" "$WORK/hr-zero" "$WORK/hr-utf8"
    printf 'not json\n' >"$WORK/hr-bad/index.jsonl"
    ratios bad_line "$WORK/hr-bad"
    printf '{"commit": "c1", "anchor": {}, "entries": [["v", "k", 16, 64, 64, 1, "warm", 0, 0, 0, 0]]}\n' >"$WORK/hr-zero/index.jsonl"
    ratios zero_ratio "$WORK/hr-zero"
    printf '{"commit": "c\377", "anchor": {}, "entries": []}\n' >"$WORK/hr-utf8/index.jsonl"
    ratios not_utf8 "$WORK/hr-utf8"
else
    skip bi5_scripts_steps "needs flock and python3"
fi

# ---- 9. history html: runs of whitespace in a machine or label -----------
if command -v python3 >/dev/null 2>&1 && [ -s "$WORK/base.json" ]; then
    python3 - "$WORK/base.json" "$WORK/ws.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    r["label"] = "vec   j\u3000x  "
json.dump(d, open(sys.argv[2], "w"))
PY
    "$G" history add --store "$WORK/hws" --machine "m   x  " --commit c1 --date 2026-01-01T00:00:00Z "$WORK/ws.json" >/dev/null 2>&1
    "$G" history add --store "$WORK/hws" --machine " m x" --commit c2 --date 2026-01-02T00:00:00Z "$WORK/base.json" >/dev/null 2>&1
    expect_exit bi5_html_whitespace 0 "$G" history html --store "$WORK/hws" -o "$WORK/ws.html"
    # every option of every filter picks at least one chart
    py_check bi5_html_whitespace_options_match "$WORK/ws.html" <<'PY'
import html.parser, sys
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.sel, self.opts, self.charts = None, {}, []
    def handle_starttag(self, tag, a):
        a = dict(a)
        if tag == "select":
            self.sel = a["id"][2:]
            self.opts[self.sel] = []
        elif tag == "option" and a.get("value"):
            self.opts[self.sel].append(a["value"])
        elif tag == "div" and a.get("class") == "chart":
            self.charts.append(a)
p = P()
p.feed(open(sys.argv[1], encoding="utf-8").read())
assert p.charts and all(p.opts.values()), (p.opts, len(p.charts))
for f, values in p.opts.items():
    for v in values:
        assert any(c["data-" + f] == v for c in p.charts), (f, v)
PY
    browser=$(command -v chromium || command -v chromium-browser || true)
    if [ -n "$browser" ]; then
        # each filter set to each of its options in turn: never no chart
        sed 's#</body></html>#<script>let none = [];\nfor (const f of ["machine", "variant", "kernel"]) {\n  const s = document.getElementById("f-" + f);\n  for (let i = 1; i < s.options.length; i++) {\n    s.selectedIndex = i; applyFilters();\n    if (document.body.dataset.charts === "0") none.push(f + i);\n  }\n  s.selectedIndex = 0; applyFilters();\n}\ndocument.body.dataset.none = none.join(",") || "-";</script></body></html>#' \
            "$WORK/ws.html" >"$WORK/ws-test.html"
        timeout 60 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$WORK/chromium" \
            --dump-dom "file://$WORK/ws-test.html" >"$WORK/ws-dom.html" 2>/dev/null
        expect_grep bi5_html_whitespace_browser 'data-none="-"' "$WORK/ws-dom.html"
    else
        skip bi5_html_whitespace_browser "needs chromium (sh scripts/setup.sh browser)"
    fi
    # a flat series: every call the same time x, whose spread exp(log(x))
    # is an ULP below x; ticks a step below t's ULP apart never reached hi
    # (history html wrote 66 GB in 10 minutes): one chart, some ticks, soon
    python3 - "$WORK/base.json" "$WORK/flat.json" <<'PY'
import json, sys
x = 0.34100230550393462  # exp(log(x)) is 0.34100230550393457
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    r["samples_us"] = [x] * len(r["samples_us"])
    for k in ("median_us", "min_us", "max_us", "mean_us", "p10_us", "p90_us"):
        r[k] = x
    r["stddev_us"] = r["cv"] = r["mad_us"] = 0
json.dump(d, open(sys.argv[2], "w"))
PY
    "$G" history add --store "$WORK/hflat" --machine m --commit c1 --date 2026-01-01T00:00:00Z "$WORK/flat.json" >/dev/null 2>&1
    "$G" history add --store "$WORK/hflat" --machine m --commit c2 --date 2026-01-02T00:00:00Z "$WORK/flat.json" >/dev/null 2>&1
    rc=0
    (ulimit -f 20000; timeout -k 5 20 "$G" history html --store "$WORK/hflat" -o "$WORK/flat.html") \
        >"$WORK/out" 2>"$WORK/err" || rc=$?
    if [ $rc -eq 0 ] && [ "$(grep -c 'class="grid"' "$WORK/flat.html")" -ge 1 ] &&
        [ "$(wc -c <"$WORK/flat.html")" -lt 100000 ]; then
        echo "ok bi5_html_flat_series"
    else
        echo "FAIL bi5_html_flat_series: exit $rc, $(wc -c 2>/dev/null <"$WORK/flat.html") bytes"
    fi
    rm -f "$WORK"/flat.html*
else
    skip bi5_html_whitespace "needs python3 and a run's result"
    skip bi5_html_flat_series "needs python3 and a run's result"
fi
# history html -o never replaces the store's own files, even with --force
if [ -f "$WORK/hws/index.jsonl" ]; then
    cp "$WORK/hws/index.jsonl" "$WORK/hws-index.keep"
    expect_exit bi5_html_over_index 2 "$G" history html --store "$WORK/hws" -o "$WORK/hws/index.jsonl" --force
    cmp -s "$WORK/hws/index.jsonl" "$WORK/hws-index.keep" && echo "ok bi5_html_over_index_kept" || echo "FAIL bi5_html_over_index_kept"
    run=$(find "$WORK/hws/runs" -name '*.json' | head -n 1)
    expect_exit bi5_html_over_run 2 "$G" history html --store "$WORK/hws" -o "$run" --force
    expect_exit bi5_html_beside_store 0 "$G" history html --store "$WORK/hws" -o "$WORK/hws/history.html"
fi
expect_exit bi5_space_search_budget_08 2 env BUDGET=08 sh "$S/space-search.sh" "$WORK/ss"
expect_exit bi5_space_search_rounds_x 2 env ROUNDS=x sh "$S/space-search.sh" "$WORK/ss"
# a run's --output is never one of its inputs, --force or not
printf 'split i 4 -> io ii\n' >"$WORK/in.sched"
cp "$WORK/in.sched" "$WORK/in.keep"
expect_exit bi5_run_output_is_schedule 2 "$G" --schedule "$WORK/in.sched" --shape 8x8x8 --quick \
    -o "$WORK/in.sched" --force
expect_grep bi5_run_output_is_schedule_says "is one of the run's inputs (a --schedule file)" "$WORK/err"
cmp -s "$WORK/in.sched" "$WORK/in.keep" && echo "ok bi5_run_output_schedule_kept" ||
    echo "FAIL bi5_run_output_schedule_kept"
printf '[run]\nreps = 2\n' >"$WORK/in.conf"
expect_exit bi5_run_output_is_config 2 "$G" --config "$WORK/in.conf" --variant baseline \
    --shape 8x8x8 --quick -o "$WORK/in.conf" --force
