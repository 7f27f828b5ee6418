# history.sh - gemmbench history: the result file's commit fields, the
# store (add, duplicates, refusals, no partial files), change points on
# synthetic histories made from one real run (tests/data/history_series.py:
# a 6 % step from the 21st of 30 files, and an A/A copy), annotations, the
# offline HTML (rendered by headless Chromium where it is installed).
# confirm and bisect, which measure builds with ab: tests/slow/history_confirm.sh.
. tests/cli/lib.sh
G=$GEMMBENCH
ROOT=$(pwd)
cd "$WORK" || exit 1

# One real run, small and quick, 4 series (2 variants x 2 shapes).
"$G" --variant vec_j,k8 --shape 16x64x64 --shape 32x64x64 --reps 10 --warmup 1 --rounds 5 \
    --min-time 0 --quiet -o base.json >/dev/null 2>run.err ||
    { echo "FAIL history_base_run: $(head -c 300 run.err)"; exit 0; }
if git -C "$ROOT" rev-parse HEAD >/dev/null 2>&1; then
    py_check history_git_fields base.json <<'PY'
import json, re, sys
t = json.load(open(sys.argv[1]))["tool"]
assert re.fullmatch(r"[0-9a-f]{40}", t["git_commit"]), t
assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d|.*Z", t["git_date"]), t
assert isinstance(t["git_dirty"], bool) and t["git"].endswith("-dirty") == t["git_dirty"], t
PY
else
    skip history_git_fields "the build is not in a git tree"
fi

# ---- the store ----
expect_exit history_add 0 "$G" history add --store st base.json
expect_grep history_add_names "^added base.json as runs/" "$WORK/out"
cp st/index.jsonl index.before
expect_exit history_add_twice 0 "$G" history add --store st base.json
expect_grep history_add_twice_unchanged "^unchanged" "$WORK/out"
expect_true history_add_twice_noop cmp -s index.before st/index.jsonl
nfiles=$(find st/runs -name '*.json' | wc -l)
[ "$nfiles" -eq 1 ] && echo "ok history_one_copy" || echo "FAIL history_one_copy: $nfiles files"
# Without --machine a file is kept under its hostname and CPU kind: guests
# of two CPUs named alike ("vm") are two machines, an Arm core's by its
# implementer and part, a file without machine.cpu_id by its hostname.
py_check history_kinds_made base.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for name, cpu_id in (("k25", "cpu family 25, model 17, stepping 1"),
                     ("k26", "cpu family 26, model 2, stepping 1"),
                     ("arm", "CPU implementer 0x41, CPU part 0xd0c, CPU revision 1"),
                     ("old", None)):
    d["machine"]["hostname"] = "vm"
    d["machine"].pop("cpu_id", None)
    if cpu_id:
        d["machine"]["cpu_id"] = cpu_id
    d["run"]["started"] = "2026-12-06T10:00:0%dZ" % len(name)
    d["note"] = name
    json.dump(d, open(name + ".json", "w"))
PY
expect_exit history_kinds_add 0 "$G" history add --store kinds k25.json k26.json arm.json old.json
kinds=$(ls kinds/runs | tr '\n' ' ')
[ "$kinds" = "vm vm-0x41-0xd0c vm-f25m17 vm-f26m2 " ] && echo "ok history_kinds_apart" ||
    echo "FAIL history_kinds_apart: $kinds"
expect_exit history_kinds_machine_given 0 "$G" history add --store kinds2 --machine farm k25.json k26.json
[ "$(ls kinds2/runs | tr '\n' ' ')" = "farm " ] && echo "ok history_kinds_machine_given_one" ||
    echo "FAIL history_kinds_machine_given_one: $(ls kinds2/runs)"
printf '{"schema": "gemmbench/1", "complete": true' >broken.json
expect_exit history_add_malformed 2 "$G" history add --store st base.json broken.json
expect_grep history_add_malformed_named "broken.json" "$WORK/err"
expect_true history_add_malformed_nothing cmp -s index.before st/index.jsonl
expect_exit history_add_missing 2 "$G" history add --store st nosuch.json
expect_exit history_add_bad_date 2 "$G" history add --store st --date 2026-02-31 base.json
expect_exit history_add_bad_commit 2 "$G" history add --store st --commit "$(printf 'a\tb')" base.json
expect_exit history_no_store 2 "$G" history changes
expect_exit history_not_a_store 2 "$G" history changes --store "$WORK"
expect_exit history_bad_action 2 "$G" history frobnicate --store st
expect_exit history_no_files 2 "$G" history add --store st
left=$(find st -name '*.XXXXXX' -o -name '*.json.*' -o -name 'index.jsonl.*' | wc -l)
[ "$left" -eq 0 ] && echo "ok history_no_temporaries" || echo "FAIL history_no_temporaries: $left left"
printf 'not json\n' >>st/index.jsonl
expect_exit history_bad_index 2 "$G" history changes --store st
expect_grep history_bad_index_line "index.jsonl:2:" "$WORK/err"
# A store is input from anyone who can push to its branch: a label with a
# terminal escape (ESC, or the C1 CSI, C2 9B) is refused by line, never printed.
head -n 1 st/index.jsonl >index.good
for esc in '\\u001b[31m' '\\u009b31m'; do
    sed "s/\"entries\":\[\[\"[^\"]*\"/\"entries\":[[\"v${esc}\"/" index.good >st/index.jsonl
    grep -q 'entries":\[\["v\\u' st/index.jsonl || echo "FAIL history_index_escape_made: $(head -c 300 st/index.jsonl)"
    expect_exit history_index_escape 2 "$G" history changes --store st
    expect_grep history_index_escape_line "index.jsonl:1: an entry's label" "$WORK/err"
done
cp index.good st/index.jsonl

# ---- change points on synthetic histories ----
if ! command -v python3 >/dev/null 2>&1; then
    for c in history_step history_step_found history_aa history_known history_ignore \
        history_html; do
        skip $c "needs python3 (tests/data/history_series.py)"
    done
    exit 0
fi
mkdir step aa
python3 "$ROOT/tests/data/history_series.py" base.json step 30 0.015 1.06 21 1 0.01
python3 "$ROOT/tests/data/history_series.py" base.json aa 30 0.015 1.0 31 2 0.01
for i in $(seq -w 1 30); do
    "$G" history add --store hs --commit "c$i" --date "2026-01-01T00:$i:00Z" step/run$i.json >/dev/null &&
        "$G" history add --store ha --commit "c$i" --date "2026-01-01T00:$i:00+00:00" aa/run$i.json >/dev/null ||
        echo "FAIL history_add_series: run$i"
done
expect_exit history_step 1 "$G" history changes --store hs --format json
cp "$WORK/out" step.out
py_check history_step_found step.out <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
hits = [c for c in d["changes"] if c["before"] == "c20" and c["after"] == "c21"]
assert d["series"] == 4 and len(hits) >= 3, d["changes"]
assert all(c["ci95"][0] < c["ratio"] < c["ci95"][1] and c["gate"] for c in hits), hits
assert all(1.02 < c["ratio"] < 1.10 and c["p_adjusted"] < 0.001 for c in hits), hits
PY
# --value best: each commit's fastest round, which the step moves too.
expect_exit history_step_best 1 "$G" history changes --store hs --format json --value best
cp "$WORK/out" best.out
py_check history_step_best_found best.out <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
hits = [c for c in d["changes"] if c["before"] == "c20" and c["after"] == "c21"]
assert d["method"]["value"] == "best" and len(hits) >= 3, d["changes"]
assert len(d["noise"]["per_series"]) == 4 and d["noise"]["median_pct"] > 0, d["noise"]
PY
expect_exit history_step_table 1 "$G" history changes --store hs
expect_grep history_step_table_gate "c20..c21 .*SLOWER (gate)" "$WORK/out"
expect_exit history_step_threshold 0 "$G" history changes --store hs --threshold 20
expect_exit history_aa 0 "$G" history changes --store ha --format json
expect_grep history_aa_none '"changes":	\[\]' "$WORK/out"

# annotations: a known change passes the gate; an ignored range hides it
cat >hs/annotations.json <<'JSON'
{"schema": "gemmbench-history-annotations/1",
 "known": [{"commit": "c21", "note": "the step, on purpose"}]}
JSON
expect_exit history_known 0 "$G" history changes --store hs
expect_grep history_known_note "known: the step, on purpose" "$WORK/out"
cat >hs/annotations.json <<'JSON'
{"schema": "gemmbench-history-annotations/1",
 "ignore": [{"from": "c21", "to": "c30", "note": "a broken runner"}]}
JSON
expect_exit history_ignore 0 "$G" history changes --store hs
expect_grep history_ignore_counted "(40 left out by annotations)" "$WORK/out"
printf '{"schema": "gemmbench-history-annotations/1", "known": [{"note": 1}]}' >hs/annotations.json
expect_exit history_bad_annotations 2 "$G" history changes --store hs
printf '{"schema": "gemmbench-history-annotations/1", "known": [{"commit": "c21", "note": "\\u001b]0;x\\u0007"}]}' >hs/annotations.json
expect_exit history_annotation_escape 2 "$G" history changes --store hs
expect_grep history_annotation_escape_says "control character" "$WORK/err"
rm hs/annotations.json

# ---- the page ----
expect_exit history_html 0 "$G" history html --store hs -o page.html
charts=$(grep -c '<svg' page.html)
[ "$charts" -eq 4 ] && echo "ok history_html_charts" || echo "FAIL history_html_charts: $charts"
if grep -Eqi '<script[^>]+src=|<link[^>]|https?://[^"]*\.(js|css)|url\(' page.html; then
    echo "FAIL history_html_offline: an external reference in page.html"
else
    echo "ok history_html_offline"
fi
expect_exit history_html_no_clobber 2 "$G" history html --store hs -o page.html
expect_exit history_html_force 0 "$G" history html --store hs -o page.html --force
expect_exit history_html_needs_o 2 "$G" history html --store hs
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$browser" ]; then
    # --dump-dom prints the page after its script ran (data-charts is the
    # script's count of charts shown); console messages go to stderr.
    timeout 60 "$browser" --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 \
        --user-data-dir="$WORK/chromium" --dump-dom "file://$WORK/page.html" \
        >dom.html 2>browser.err
    if grep -q 'data-charts="4"' dom.html; then
        echo "ok history_html_browser_charts"
    else
        echo "FAIL history_html_browser_charts: $(grep -o '<body[^>]*>' dom.html | head -c 200) $(tail -c 300 browser.err)"
    fi
    if grep -q 'CONSOLE\|Uncaught' browser.err; then
        echo "FAIL history_html_browser_console: $(grep 'CONSOLE\|Uncaught' browser.err | head -c 300)"
    else
        echo "ok history_html_browser_console"
    fi
else
    skip history_html_browser_charts "needs chromium (sh scripts/setup.sh browser)"
    skip history_html_browser_console "needs chromium (sh scripts/setup.sh browser)"
fi

# ---- CI: scripts/ci-sweep.sh --history DIR ----
tiny="--variant vec_j --shape 8x8x8 --threads 1 --no-check"
if command -v bash >/dev/null 2>&1; then
    expect_exit history_ci_sweep 0 env GEMMBENCH="$G" bash "$ROOT/scripts/ci-sweep.sh" --history ci $tiny
    expect_grep history_ci_sweep_gate "^gate: pass" "$WORK/out"
    expect_true history_ci_sweep_stored test -s ci/index.jsonl
    expect_exit history_ci_sweep_no_dir 2 env GEMMBENCH="$G" bash "$ROOT/scripts/ci-sweep.sh" --history
else
    skip history_ci_sweep "needs bash"
fi
