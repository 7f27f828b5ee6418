# learn.sh - learned schedules (src/learn/LEARN.md): `tune --space
# --database` appends its trials and the database reads back strictly (a
# hostile line named); `model train` on the small fixture
# tests/data/trials_small.jsonl is deterministic for a seed; a hostile
# model file is refused in one line; ml_guided runs the model's pick
# (verified, source model) and falls back to rule_based saying why (no
# model, --model none, a model of another machine); tune --space --model.
# Without XGBoost in the build the model's checks are named skips.
. tests/cli/lib.sh
G=$GEMMBENCH
ROOT=$(pwd)
cd "$WORK" || exit 1
export GEMMBENCH_RECORDS="$WORK/rec.json"
SPACE=$ROOT/schedules/cpu_gemm.space
FIXTURE=$ROOT/tests/data/trials_small.jsonl
RUN="--threads 1 --reps 2 --quiet"

# ---- the database: written by tune, read back strictly -------------------
expect_exit learn_db_tune 0 "$G" tune --space "$SPACE" --shape 8x16x16 --threads 1 --trials 3 --reps 2 --quiet --database "$WORK/db.jsonl"
expect_exit learn_db_append 0 "$G" tune --space "$SPACE" --shape 8x16x16 --threads 1 --trials 3 --reps 2 --quiet --seed 2 --database "$WORK/db.jsonl"
py_check learn_db_lines "$WORK/db.jsonl" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 6, len(lines)            # three trials a search, appended
for l in lines:
    r = json.loads(l)
    assert r["schema"] == "gemmbench-trials" and r["version"] == 2 and r["dtype"] == "f32"
    assert (r["M"], r["K"], r["N"], r["threads"]) == (8, 16, 16, 1)
    assert set(r["machine"]) == {"isa", "lanes", "registers", "l1d", "l2", "l3"}
    assert r["schedule"].startswith("param mc")
    assert r["verified"] is True and r["median_us"] > 0 and r["illegal"] >= 0
PY
# A machine that reports no caches (a build without hwloc) writes them as
# 0: such a database reads back, and tune appends to it.
sed 's/"l1d":[0-9]*,"l2":[0-9]*,"l3":[0-9]*/"l1d":0,"l2":0,"l3":0/' "$WORK/db.jsonl" >"$WORK/nocache.jsonl"
expect_grep learn_db_nocache_made '"l1d":0,"l2":0,"l3":0' "$WORK/nocache.jsonl"
expect_exit learn_db_nocache_appends 0 "$G" tune --space "$SPACE" --shape 8x16x16 --threads 1 --trials 1 --reps 2 --quiet --database "$WORK/nocache.jsonl"
# Too few trials to fit anything: said, nothing written.
expect_exit learn_train_too_few 2 "$G" model train --database "$WORK/db.jsonl" -o "$WORK/few.model"
[ ! -e "$WORK/few.model" ] && echo "ok learn_train_too_few_writes_nothing" || echo "FAIL learn_train_too_few_writes_nothing"

# Hostile lines: each refused in one line naming the file and the line.
good=$(head -n 1 "$FIXTURE")
bad() { # NAME LINE...: a database of a good line, then the given ones
    bad_name=$1
    shift
    { printf '%s\n' "$good"; for l in "$@"; do printf '%s\n' "$l"; done; } >"$WORK/$bad_name.jsonl"
    expect_exit "learn_db_refuses_$bad_name" 2 "$G" model train --database "$WORK/$bad_name.jsonl" -o "$WORK/x.model" &&
        expect_grep "learn_db_names_line_$bad_name" "$bad_name.jsonl:2: " "$WORK/err"
}
sub() { printf '%s' "$good" | sed "$1"; }
bad not_json '{"schema": '
bad not_object '[1, 2]'
bad other_schema "$(sub 's/gemmbench-trials/gemmbench-other/')"
bad version3 "$(sub 's/"version":1/"version":3/')"
bad unknown_key "$(sub 's/"illegal":/"extra":1,"illegal":/')"
bad missing_key "$(sub 's/,"illegal":[0-9]*//')"
bad dup_key "$(sub 's/"M":20,/"M":20,"M":21,/')"
bad zero_m "$(sub 's/"M":20/"M":0/')"
bad huge_n "$(sub 's/"N":17/"N":99999999999/')"
bad float_k "$(sub 's/"K":33/"K":33.5/')"
bad null_time "$(sub 's/"median_us":[0-9.e+-]*/"median_us":null/')"
bad negative_time "$(sub 's/"median_us":/"median_us":-/')"
bad unverified_time "$(sub 's/"verified":true/"verified":false/')"
bad bad_schedule "$(sub 's/split i mc/split q mc/')"
bad control_space "$(sub 's#"space":"schedules/#"space":"\\u001b[31m#')"
bad bad_machine "$(sub 's/"lanes":[0-9]*/"lanes":"16"/')"
bad negative_cache "$(sub 's/"l2":[0-9]*/"l2":-1/')"
# types: version 1 lines (the fixture's) read as f32; version 2 states "dtype"
bad other_dtype "$(sub 's/"version":1,/"version":2,/; s/"threads":1,/"threads":1,"dtype":"f64",/')"
bad dtype_not_schedule "$(sub 's/"version":1,/"version":2,/; s/"threads":1,/"threads":1,"dtype":"bf16",/')"
bad no_dtype "$(sub 's/"version":1/"version":2/')"
bad v1_with_dtype "$(sub 's/"threads":1,/"threads":1,"dtype":"f32",/')"
bad v1_typed_schedule "$(sub 's/"schedule":"/"schedule":"type bf16\\n/')"
bad long_line "$(sub "s/\"schema\"/\"pad\":\"$(head -c 70000 /dev/zero | tr '\0' x)\",\"schema\"/")"
printf '%s\n%s' "$good" "$good" >"$WORK/no_newline.jsonl"
expect_exit learn_db_refuses_no_newline 2 "$G" model train --database "$WORK/no_newline.jsonl" -o "$WORK/x.model"
expect_exit learn_db_refuses_directory 2 "$G" model train --database "$WORK" -o "$WORK/x.model"
expect_exit learn_db_refuses_missing 2 "$G" model train --database "$WORK/none.jsonl" -o "$WORK/x.model"
# tune refuses a database that is not one before searching, and leaves it.
cp "$WORK/not_json.jsonl" "$WORK/keep.jsonl"
expect_exit learn_tune_refuses_bad_db 2 "$G" tune --space "$SPACE" --shape 8x16x16 --threads 1 --trials 2 --database "$WORK/keep.jsonl"
cmp -s "$WORK/keep.jsonl" "$WORK/not_json.jsonl" && echo "ok learn_tune_keeps_bad_db" || echo "FAIL learn_tune_keeps_bad_db"
expect_exit learn_database_needs_space 2 "$G" tune --shape 8x16x16 --database "$WORK/db.jsonl"

# ml_guided in bf16 without a model: packed's bf16 kernel, verified, saying why.
expect_exit learn_typed_no_model 0 "$G" --variant ml_guided --dtype bf16 --shape 16x32x32 --threads 1 --reps 2 -o "$WORK/typed-nomodel.json"
expect_grep learn_typed_no_model_note "ml_guided runs rule_based's schedule (packed's kernel in bf16 and u8s8): no model given" "$WORK/err"
py_check learn_typed_no_model_impl "$WORK/typed-nomodel.json" <<'PY'
import json, sys
(r,) = json.load(open(sys.argv[1]))["results"]
assert r["dtype"] == "bf16" and r["check"] == "pass" and "schedule" not in r, r
assert r["impl"].startswith("packed: ") and r["impl"].endswith("(no_model)"), r["impl"]
PY

# ---- the model: trained on the fixture -----------------------------------
if "$G" model train --database "$FIXTURE" -o "$WORK/probe.model" --space "$SPACE" 2>&1 | grep -q 'built without XGBoost'; then
    expect_exit learn_no_xgboost_train 2 "$G" model train --database "$FIXTURE" -o "$WORK/m.model"
    expect_exit learn_no_xgboost_run 0 "$G" --variant ml_guided --shape 20x33x17 $RUN --model "$WORK/probe.model" -o "$WORK/nx.json"
    grep -q '"why":	"no_xgboost"' "$WORK/nx.json" && echo "ok learn_no_xgboost_rule" || echo "FAIL learn_no_xgboost_rule"
    for t in train_deterministic train_explain model_hostile ml_guided_model ml_guided_none \
             ml_guided_other_machine ml_guided_explain guard typed tune_guided; do
        skip "learn_$t" "built without XGBoost (libxgboost-dev)"
    done
    exit 0
fi

# The fixture's trials are of the machine they were measured on: for a model
# of this one, its machine is put in each line (from a trial measured here).
if ! command -v python3 >/dev/null 2>&1; then
    for t in train_deterministic train_explain model_hostile ml_guided_model ml_guided_none \
             ml_guided_other_machine ml_guided_explain guard typed tune_guided; do
        skip "learn_$t" "needs python3 (rewrites the fixture's machine)"
    done
    exit 0
fi
python3 - "$FIXTURE" "$WORK/db.jsonl" "$WORK/here.jsonl" "$WORK/other.jsonl" <<'PY'
import json, sys
here = json.loads(open(sys.argv[2]).readline())["machine"]
with open(sys.argv[3], "w") as h, open(sys.argv[4], "w") as o:
    for line in open(sys.argv[1]):
        r = json.loads(line)
        r["machine"] = dict(here)
        h.write(json.dumps(r, separators=(",", ":")) + "\n")
        r["machine"]["l2"] = here["l2"] * 2          # another kind of machine
        o.write(json.dumps(r, separators=(",", ":")) + "\n")
PY

expect_exit learn_train 0 "$G" model train --database "$WORK/here.jsonl" --space "$SPACE" -o "$WORK/a.model"
expect_exit learn_train_again 0 "$G" model train --database "$WORK/here.jsonl" --space "$SPACE" -o "$WORK/b.model"
cmp -s "$WORK/a.model" "$WORK/b.model" && echo "ok learn_train_deterministic" || echo "FAIL learn_train_deterministic: two trainings of one seed differ"
expect_grep learn_train_counts "trained on 20 verified trials of 2 shape(s)" "$WORK/out"
# A trial whose schedule checks but no longer plans for its shape (a build
# whose model chose other blocks measured it) is left out, counted, the
# first named; one that does not check is refused as the file is read.
python3 - "$WORK/here.jsonl" "$WORK/stale.jsonl" "$WORK/unchecked.jsonl" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
r = json.loads(lines[0])
r.update(M=384, K=768, N=3072, schedule="split i 384 -> io ii\nsplit j 3072 -> jo ji\n"
         "reorder io jo ii ji k\ncache_write C at jo\n")
open(sys.argv[2], "w").write("\n".join(lines + [json.dumps(r)]) + "\n")
r["schedule"] = r["schedule"].replace("split j", "split q")
open(sys.argv[3], "w").write("\n".join(lines + [json.dumps(r)]) + "\n")
PY
expect_exit learn_train_stale 0 "$G" model train --database "$WORK/stale.jsonl" --space "$SPACE" -o "$WORK/stale.model"
expect_grep learn_train_stale_counted "trained on 20 verified trials of 2 shape(s) (21 trial(s) in all" "$WORK/out"
expect_grep learn_train_stale_named "left out: 1 trial(s) whose schedule this build no longer plans for its shape .*the first: trial 21 (384x768x3072): .*cache_write at jo: a tile of 384 x 3072 floats, over 65536" "$WORK/out"
expect_exit learn_train_unchecked 2 "$G" model train --database "$WORK/unchecked.jsonl" --space "$SPACE" -o "$WORK/unchecked.model"
expect_grep learn_train_unchecked_named "unchecked.jsonl:21: schedule:2: split: no loop 'q'" "$WORK/err"
expect_exit learn_train_explain 0 "$G" model train --database "$WORK/here.jsonl" --space "$SPACE" -o "$WORK/c.model" --explain --seed 7
expect_grep learn_train_explain_lists " 1\. [A-Za-z0-9_]*  *[0-9.]* %" "$WORK/out"
expect_exit learn_train_no_elites 0 "$G" model train --database "$WORK/here.jsonl" --space "$SPACE" -o "$WORK/e0.model" --elites 0
expect_exit learn_train_bad_elites 2 "$G" model train --database "$WORK/here.jsonl" --space "$SPACE" -o "$WORK/x.model" --elites 65
# The elites: per shape the fastest distinct schedules of its verified
# trials, fastest first, at most --elites of them (3 by default).
py_check learn_model_elites "$WORK/a.model" "$WORK/e0.model" "$WORK/here.jsonl" <<'PY'
import json, sys
a, e0 = (json.load(open(f)) for f in sys.argv[1:3])
rows = [json.loads(l) for l in open(sys.argv[3])]
assert e0["elites"] == [], e0["elites"]
shapes = {(r["M"], r["K"], r["N"], r["threads"]) for r in rows if r["verified"]}
got = {}
for e in a["elites"]:
    got.setdefault((e["M"], e["K"], e["N"], e["threads"]), []).append(e)
assert set(got) == shapes, (set(got), shapes)
for key, es in got.items():
    mine = sorted((r for r in rows if r["verified"] and (r["M"], r["K"], r["N"], r["threads"]) == key),
                  key=lambda r: r["median_us"])
    want = []
    for r in mine:
        if r["schedule"] not in [w["schedule"] for w in want] and len(want) < 3:
            want.append(r)
    assert [e["schedule"] for e in es] == [w["schedule"] for w in want], key
    assert [e["median_us"] for e in es] == [w["median_us"] for w in want], key
PY
expect_exit learn_train_needs_output 2 "$G" model train --database "$WORK/here.jsonl"
expect_exit learn_train_bad_action 2 "$G" model fit --database "$WORK/here.jsonl" -o "$WORK/x.model"
expect_exit learn_train_bad_space 2 "$G" model train --database "$WORK/here.jsonl" --space "$WORK/none.space" -o "$WORK/x.model"

# Hostile model files: each refused in one line before any measurement.
hostile() { # NAME: the model file $WORK/NAME.model
    expect_exit "learn_model_refuses_$1" 2 "$G" --variant ml_guided --shape 20x33x17 $RUN --model "$WORK/$1.model"
}
edit() { # NAME PYTHON-EXPRESSION-ON-d
    python3 - "$WORK/a.model" "$WORK/$1.model" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
open(sys.argv[2], "w").write(json.dumps(d))
PY
    hostile "$1"
}
printf 'not json' >"$WORK/garbage.model"; hostile garbage
head -c 3000 "$WORK/a.model" >"$WORK/truncated.model"; hostile truncated
: >"$WORK/empty.model"; hostile empty
edit other_schema 'd["schema"] = "gemmbench-trials"'
edit version1 'd["version"] = 1'
edit features_version 'd["features_version"] = 99'
edit renamed_feature 'd["features"][3] = "log2_flops"'
edit short_features 'd["features"].pop()'
edit unknown_key 'd["extra"] = 1'
edit no_trees 'del d["xgboost"]'
edit bad_trees 'd["xgboost"] = "{\"learner\": 1}"'
edit trees_not_text 'd["xgboost"] = 5'
edit bad_space 'd["space"]["text"] = "choose\nsplit i 4 -> a b\n"'
edit bad_machine 'd["machine"]["lanes"] = -1'
edit negative_seed 'd["seed"] = -1'
edit no_elites 'del d["elites"]'
edit elites_not_list 'd["elites"] = {"M": 1}'
edit elite_extra_key 'd["elites"][0]["x"] = 1'
edit elite_zero_threads 'd["elites"][0]["threads"] = 0'
edit elite_negative_time 'd["elites"][0]["median_us"] = -3'
edit elite_huge_text 'd["elites"][0]["schedule"] = "x" * 70000'
edit elite_point_too_long 'd["elites"][0]["schedule"] = "#" * 20000'
edit elite_control_byte 'd["elites"][0]["schedule"] += "\x1b[31m"'
edit version2 'd["version"] = 2; del d["trained"]; del d["error"]'
expect_grep learn_model_version2_says "model version 2; this gemmbench reads version 3 (train it again)" "$WORK/err"
edit no_trained 'del d["trained"]'
edit trained_short 'd["trained"].pop()'
edit trained_twice 'd["trained"][1] = d["trained"][0]'
edit trained_zero_m 'd["trained"][0]["M"] = 0'
edit no_error 'del d["error"]'
edit error_not_object 'd["error"] = 0.3'
edit error_negative 'd["error"]["edge"] = -0.1'
edit error_huge 'd["error"]["edge"] = 1e300'
edit error_text 'd["error"]["edge"] = "0.3"'
edit error_other_quantile 'd["error"]["quantile"] = 0.5'
edit error_without_shapes 'd["error"]["edge_shapes"] = 0'
edit error_extra_key 'd["error"]["x"] = 1'
edit elite_refused_text 'd["elites"][0]["schedule"] = d["elites"][0]["schedule"].replace("split i mc", "split q mc")'
expect_grep learn_model_elite_named "elite 1: " "$WORK/err"
expect_exit learn_model_refuses_missing 2 "$G" --variant ml_guided --shape 20x33x17 $RUN --model "$WORK/none.model"
expect_exit learn_model_refuses_directory 2 "$G" --variant ml_guided --shape 20x33x17 $RUN --model "$WORK"

# ml_guided: the model's pick, verified; rule_based when it cannot, said why.
expect_exit learn_ml_guided_model 0 "$G" --variant ml_guided,rule_based --shape 20x33x17 --shape 28x50x40 $RUN --model "$WORK/a.model" -o "$WORK/m.json"
expect_exit learn_ml_guided_none 0 "$G" --variant ml_guided --shape 20x33x17 $RUN --model none -o "$WORK/none.json"
expect_exit learn_ml_guided_no_model 0 "$G" --variant ml_guided --shape 20x33x17 --threads 1 --reps 2 -o "$WORK/nomodel.json"
expect_grep learn_ml_guided_no_model_note "ml_guided runs rule_based's schedule: no model given" "$WORK/err"
expect_exit learn_train_other 0 "$G" model train --database "$WORK/other.jsonl" --space "$SPACE" -o "$WORK/other.model"
expect_exit learn_ml_guided_other_machine 0 "$G" --variant ml_guided --shape 20x33x17 $RUN --model "$WORK/other.model" -o "$WORK/other.json"
py_check learn_ml_guided_sources "$WORK/m.json" "$WORK/none.json" "$WORK/nomodel.json" "$WORK/other.json" <<'PY'
import json, sys
m, none, nomodel, other = (json.load(open(f))["results"] for f in sys.argv[1:5])
ml = [r for r in m if r["variant"] == "ml_guided"]
assert len(ml) == 2
for r in ml:
    assert r["check"] == "pass", r["check"]
    e = r["effective_params"]
    assert e["source"] == "model" and e["why"] == "none" and e["predicted_ns"] > 0, e
    s = r["schedule"]
    assert s["text"].startswith("param mc") and len(s["sha256"]) == 64 and s["predicted_us"] > 0
    assert s["model"].endswith("a.model") and s["candidates"] > 0
    assert s["origin"] == "space" or s["origin"].startswith("trial of "), s["origin"]
for res, why in ((none, "model_none"), (nomodel, "no_model"), (other, "other_machine")):
    (r,) = res
    assert r["check"] == "pass" and "schedule" not in r, r
    assert r["effective_params"]["source"] == "rule" and r["effective_params"]["why"] == why, r["effective_params"]
PY
expect_grep learn_ml_guided_rule_label "^ml_guided(rule) " "$WORK/out"
expect_exit learn_ml_guided_explain 0 "$G" --variant ml_guided --shape 20x33x17 --threads 1 --model "$WORK/a.model" --explain
expect_grep learn_ml_guided_explain_predicted "candidate 1: predicted [0-9.]* us" "$WORK/out"
expect_grep learn_ml_guided_explain_nest "vectorized for jl" "$WORK/out"
expect_exit learn_ml_guided_explain_other 0 "$G" --variant ml_guided --shape 20x33x17 --threads 1 --model "$WORK/other.model" --explain
expect_grep learn_ml_guided_explain_why "another kind of machine: L2" "$WORK/out"

# The guard: the model file carries the shapes trained on and its error out
# of sample (the fixture's two shapes differ in K and N: each is outside the
# other, both held out); at a shape outside them the analytic point runs
# unless the predicted gain exceeds the edge error; inside, the best predicted.
py_check learn_model_error "$WORK/a.model" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == 3
assert sorted((t["M"], t["K"], t["N"], t["threads"]) for t in d["trained"]) == [(20, 33, 17, 1), (24, 40, 32, 1)], d["trained"]
e = d["error"]
assert e["quantile"] == 0.9 and e["edge_shapes"] == 2 and e["edge"] >= 0, e
assert e["inside"] is None and e["inside_shapes"] == 0, e
PY
expect_exit learn_train_error_line 0 "$G" model train --database "$WORK/here.jsonl" --space "$SPACE" -o "$WORK/d.model"
expect_grep learn_train_says_error "error out of sample .*at the edge [0-9.]*x (2 shape(s) held out), inside not measured" "$WORK/out"
python3 - "$WORK/a.model" "$WORK/wide.model" "$WORK/zero.model" "$WORK/unmeasured.model" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for path, edge, shapes in ((sys.argv[2], 10.0, 2), (sys.argv[3], 0.0, 2), (sys.argv[4], None, 0)):
    d["error"]["edge"], d["error"]["edge_shapes"] = edge, shapes
    open(path, "w").write(json.dumps(d))
PY
for m in wide zero unmeasured a; do
    for shape in 24x33x17 20x33x17; do
        expect_exit "learn_guard_${m}_$shape" 0 "$G" --variant ml_guided --shape $shape $RUN --model "$WORK/$m.model" -o "$WORK/g-$m-$shape.json"
    done
done
py_check learn_guard_rule "$WORK" <<'PY'
import json, math, sys
def ml(m, shape):
    (r,) = json.load(open(f"{sys.argv[1]}/g-{m}-{shape}.json"))["results"]
    assert r["check"] == "pass" and r["effective_params"]["source"] == "model", r
    return r
for m in ("wide", "unmeasured"):
    # outside: within an error of 10 (e^10) or an unmeasured one, the analytic point
    r = ml(m, "24x33x17")
    g, e = r["schedule"]["guard"], r["effective_params"]
    assert g["edge"] is True and e["edge"] == 1, g
    assert g["rule"] in ("kept", "analytic"), g
    assert r["schedule"]["text"] == g["analytic"], "the analytic point did not run"
    assert e["guard"] == g["rule"] and (g["rule"] != "kept" or "kept" in g["why"]), (e, g)
    assert (g["error"] is None) == (m == "unmeasured"), g
    assert e["error_pct"] == (-1 if m == "unmeasured" else round(100 * (math.exp(10) - 1))), e
# an error of 0 at the edge: the best predicted, unless it is the analytic point
r = ml("zero", "24x33x17")
g = r["schedule"]["guard"]
assert g["rule"] in ("beats", "analytic"), g
assert (g["rule"] == "beats") == (r["schedule"]["text"] != g["analytic"]), g
assert g["rule"] == "analytic" or g["predicted_gain"] > 1, g
# a shape trained on is inside: the best predicted, whatever the error
for m in ("wide", "zero", "unmeasured", "a"):
    r = ml(m, "20x33x17")
    g = r["schedule"]["guard"]
    assert g["edge"] is False and g["rule"] in ("inside", "analytic"), (m, g)
    assert r["effective_params"]["gain_pct"] >= 0, r["effective_params"]
PY
expect_exit learn_guard_explain 0 "$G" --variant ml_guided --shape 24x33x17 --threads 1 --model "$WORK/wide.model" --explain
expect_grep learn_guard_explain_says "guard: the analytic point (the space's own point) \(kept\|is the best predicted\)" "$WORK/out"

# Types (issue 55): a bf16 search keeps its trials, each of its type; a
# model trained on them and on f32's picks a bf16 schedule for --dtype bf16
# (verified), an f32 one for f32 (never another type's elite), and refuses
# or gives way for a type it never saw.
expect_exit learn_typed_tune 0 "$G" tune --space "$SPACE" --dtype bf16 --shape 16x32x32 --threads 1 --trials 8 --reps 2 --quiet --database "$WORK/typed.jsonl"
cat "$WORK/here.jsonl" "$WORK/typed.jsonl" >"$WORK/mixed.jsonl"
expect_exit learn_typed_train 0 "$G" model train --database "$WORK/mixed.jsonl" --space "$SPACE" -o "$WORK/typed.model"
expect_grep learn_typed_train_counts "trained on 28 verified trials of 3 shape(s)" "$WORK/out"
expect_exit learn_typed_ml_guided 0 "$G" --variant ml_guided --dtype bf16 --shape 16x32x32 --shape 24x32x32 $RUN --model "$WORK/typed.model" -o "$WORK/typed.json"
expect_exit learn_typed_ml_guided_f32 0 "$G" --variant ml_guided --shape 20x33x17 $RUN --model "$WORK/typed.model" -o "$WORK/typed-f32.json"
expect_exit learn_typed_ml_guided_unseen 0 "$G" --variant ml_guided --dtype u8s8 --shape 16x32x32 $RUN --model "$WORK/typed.model" -o "$WORK/typed-u8.json"
py_check learn_typed_picks "$WORK/typed.jsonl" "$WORK/typed.model" "$WORK/typed.json" "$WORK/typed-f32.json" "$WORK/typed-u8.json" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 8 and all(r["version"] == 2 and r["dtype"] == "bf16" and r["verified"] for r in rows)
assert all(r["schedule"].startswith("type bf16\n") for r in rows)
m = json.load(open(sys.argv[2]))
assert m["features_version"] == 3 and m["features"][-6:] == ["elem_bytes", "dot_form", "log2_group", "prefetch_a_spread", "prefetch_b_spread", "prefetch_c_spread"]
assert {t["dtype"] for t in m["trained"]} == {"f32", "bf16"}, m["trained"]
assert {e["dtype"] for e in m["elites"]} == {"f32", "bf16"}
for e in m["elites"]:
    assert e["schedule"].startswith("type bf16\n") == (e["dtype"] == "bf16"), e
bf = json.load(open(sys.argv[3]))["results"]
assert len(bf) == 2
for r in bf:
    assert r["dtype"] == "bf16" and r["check"] == "pass", r
    assert r["impl"].startswith("model: "), r["impl"]
    s = r["schedule"]
    assert s["text"].startswith("type bf16\n") and s["predicted_us"] > 0, s
    assert s["origin"] == "space" or s["origin"].startswith("trial of 16x32x32"), s["origin"]
# M=16 was trained on (inside); M=24 is past it, at the edge: the guard
# keeps the analytic point unless the model promises at least the least
# gain (1.15x) and more than its error out of sample.  Whether it does
# depends on the trials the search drew, so both outcomes are checked for
# what they must hold.
t = {r["shape"]["M"] if "shape" in r else r["M"]: r["schedule"]["text"] for r in bf}
g = {r["shape"]["M"] if "shape" in r else r["M"]: r["schedule"]["guard"] for r in bf}
assert g[16]["edge"] is False and g[24]["edge"] is True, g
e = g[24]
if e["rule"] == "beats":
    assert e["error"] is not None and e["predicted_gain"] >= 1.15, e
    assert e["predicted_gain"] > e["error"] and t[24] != e["analytic"], e
else:
    assert e["rule"] in ("kept", "analytic") and t[24] == e["analytic"], e
(f,) = json.load(open(sys.argv[4]))["results"]
assert f["check"] == "pass" and f["effective_params"]["source"] == "model"
assert not f["schedule"]["text"].startswith("type "), f["schedule"]["text"][:40]
(u,) = json.load(open(sys.argv[5]))["results"]
assert u["check"] == "pass" and "schedule" not in u, u
assert u["impl"].startswith("packed: ") and u["impl"].endswith("(no_type)"), u["impl"]
PY
expect_exit learn_typed_tune_unseen 2 "$G" tune --space "$SPACE" --dtype u8s8 --shape 16x32x32 --threads 1 --trials 2 --model "$WORK/typed.model"
expect_grep learn_typed_tune_unseen_says "trained on no u8s8 trial" "$WORK/err"
expect_exit learn_typed_tune_guided 0 "$G" tune --space "$SPACE" --dtype bf16 --shape 24x32x32 --threads 1 --trials 2 --reps 2 --quiet --model "$WORK/typed.model" --database "$WORK/typed2.jsonl"
py_check learn_typed_tune_guided_lines "$WORK/typed2.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 2 and all(r["dtype"] == "bf16" and r["schedule"].startswith("type bf16\n") for r in rows)
PY
python3 - "$WORK/typed.model" "$WORK" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
e = next(i for i, x in enumerate(d["elites"]) if x["dtype"] == "bf16")
for name, edit in (("elite_dtype_disagrees", lambda d: d["elites"][e].update(dtype="f32")),
                   ("elite_dtype_unknown", lambda d: d["elites"][e].update(dtype="fp8")),
                   ("trained_dtype_missing", lambda d: d["trained"][0].pop("dtype"))):
    c = json.loads(json.dumps(d))
    edit(c)
    open(f"{sys.argv[2]}/{name}.model", "w").write(json.dumps(c))
PY
hostile elite_dtype_disagrees
expect_grep learn_model_elite_dtype_says "its schedule states type bf16, its \"dtype\" is f32" "$WORK/err"
hostile elite_dtype_unknown
hostile trained_dtype_missing

# The guided search: the model ranks, the best predicted is measured.
expect_exit learn_tune_guided 0 "$G" tune --space "$SPACE" --shape 20x33x17 --threads 1 --trials 3 --reps 2 --quiet --model "$WORK/a.model"
expect_grep learn_tune_guided_says "guided by .*a.model" "$WORK/out"
# After the space's own point, the model's elites it predicts fastest, each
# as it stands; the record may be one of them.
expect_exit learn_tune_guided_elites 0 "$G" tune --space "$SPACE" --shape 28x50x40 --threads 1 --trials 4 --reps 2 --quiet --model "$WORK/a.model" --database "$WORK/guided.jsonl" --records "$WORK/guided.json"
py_check learn_tune_guided_elites_first "$WORK/a.model" "$WORK/guided.jsonl" "$WORK/guided.json" <<'PY'
import json, sys
elites = [e["schedule"] for e in json.load(open(sys.argv[1]))["elites"]]
rows = [json.loads(l) for l in open(sys.argv[2])]
assert len(rows) == 4, len(rows)
assert len({r["schedule"] for r in rows}) == 4
# elites first (as many as are legal for this shape on this machine), then draws
flags = [r["schedule"] in elites for r in rows[1:]]
assert flags[0] and flags == sorted(flags, reverse=True), flags
(rec,) = json.load(open(sys.argv[3]))["records"]
assert rec["schedule"] in [r["schedule"] for r in rows] or rec["schedule"] == "", rec
PY
expect_exit learn_tune_guided_other 2 "$G" tune --space "$SPACE" --shape 20x33x17 --threads 1 --trials 3 --model "$WORK/other.model"
