# history_paired.sh - paired history points: `history add --anchor` of one
# real `gemmbench ab` run's two files (kept both, checked as a pair, refused
# when they are not one run's), and change points on synthetic paired
# histories made from it (tests/data/history_pairs.py): a 6 % step of one
# variant from the 21st of 30 commits found there and nowhere else, an A/A
# history quiet, wide pairs named unstable (their steps named, no alarm), and two
# epochs joined through the overlap run.
. tests/cli/lib.sh
G=$GEMMBENCH
ROOT=$(pwd)
cd "$WORK" || exit 1

# One real pair, small and quick: this build against itself, 2 entries.
"$G" ab "$G" "$G" --variant vec_j,k8 --shape 16x64x64 --reps 16 --warmup 1 --rounds 8 \
    --min-time 0 --quiet -o pair >/dev/null 2>ab.err
[ -f pair-old.json ] && [ -f pair-new.json ] ||
    { echo "FAIL history_paired_ab: $(head -c 300 ab.err)"; exit 0; }
"$G" ab "$G" "$G" --variant vec_j,k8 --shape 16x64x64 --reps 16 --warmup 1 --rounds 8 \
    --min-time 0 --quiet -o other >/dev/null 2>ab.err ||
    [ -f other-new.json ] || { echo "FAIL history_paired_ab2: $(head -c 300 ab.err)"; exit 0; }

py_check history_paired_stamp pair-old.json pair-new.json <<'PY'
import json, re, sys
a, b = (json.load(open(p))["run"]["ab"] for p in sys.argv[1:3])
assert re.fullmatch(r"[0-9a-f]{32}", a["pair"]) and a["pair"] == b["pair"], (a, b)
assert (a["side"], b["side"], a["rounds"]) == ("old", "new", 8), (a, b)
PY

expect_exit history_paired_add 0 "$G" history add --store st --commit c1 --anchor-commit A1 \
    --anchor pair-old.json pair-new.json
expect_grep history_paired_add_says "^added pair-new.json (paired, 2 entries) as runs/" "$WORK/out"
n=$(find st/runs -name '*.anchor.json' | wc -l)
[ "$n" -eq 1 ] && echo "ok history_paired_keeps_anchor" || echo "FAIL history_paired_keeps_anchor: $n"
py_check history_paired_index st/index.jsonl <<'PY'
import json, sys
line = json.loads(open(sys.argv[1]).readline())
assert line["anchor"]["commit"] == "A1" and line["anchor"]["file"].endswith(".anchor.json"), line
for e in line["entries"]:
    ratio, lo, hi, se2 = e[7:11]
    assert 0 < lo <= ratio <= hi and se2 >= 0, e
PY
cp st/index.jsonl index.before
expect_exit history_paired_twice 0 "$G" history add --store st --commit c1 --anchor pair-old.json pair-new.json
expect_grep history_paired_twice_unchanged "^unchanged" "$WORK/out"
# Not a pair: the same file twice, the sides swapped, two runs' files, one
# file too many or none, --anchor-commit alone; nothing written.
expect_exit history_paired_same_file 2 "$G" history add --store st --anchor pair-old.json pair-old.json
expect_exit history_paired_swapped 2 "$G" history add --store st --anchor pair-new.json pair-old.json
expect_grep history_paired_swapped_why "not the old and new files of one gemmbench ab run" "$WORK/err"
expect_exit history_paired_two_runs 2 "$G" history add --store st --anchor pair-old.json other-new.json
expect_exit history_paired_two_files 2 "$G" history add --store st --anchor pair-old.json pair-new.json other-new.json
expect_exit history_paired_no_file 2 "$G" history add --store st --anchor pair-old.json
expect_exit history_paired_anchor_commit_alone 2 "$G" history add --store st --anchor-commit A1 pair-new.json
python3 - pair-new.json cut-new.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["results"] = d["results"][:1]
json.dump(d, open(sys.argv[2], "w"))
PY
expect_exit history_paired_other_entries 2 "$G" history add --store st --anchor pair-old.json cut-new.json
expect_grep history_paired_other_entries_why "not the same entries" "$WORK/err"
# Two CPU kinds under one model name (a guest's "AMD EPYC" of family 25 and
# 26): their family, model and stepping, where both files say them.
python3 - pair-new.json kind-new.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["machine"]["cpu_id"] = "cpu family 1, model 2, stepping 3 (another kind)"
json.dump(d, open(sys.argv[2], "w"))
PY
if python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["machine"].get("cpu_id") else 1)' pair-new.json; then
    expect_exit history_paired_other_kind 2 "$G" history add --store st --anchor pair-old.json kind-new.json
    expect_grep history_paired_other_kind_why "not one machine's" "$WORK/err"
else
    skip history_paired_other_kind "this machine reports no CPU family (machine.cpu_id)"
fi
expect_true history_paired_refusals_write_nothing cmp -s index.before st/index.jsonl
# A file is stored once: the pair's NEW added plainly is already there; another
# run's file added plainly is an absolute series beside the paired one.
expect_exit history_paired_plain_same 0 "$G" history add --store st --commit c1 pair-new.json
expect_grep history_paired_plain_same_unchanged "^unchanged" "$WORK/out"
expect_exit history_paired_plain_beside 0 "$G" history add --store st --commit c1 other-new.json
"$G" history changes --store st --format json >mixed.json
py_check history_paired_series_apart mixed.json <<'PY'
import json, sys
keys = [s["series"] for s in json.load(open(sys.argv[1]))["noise"]["per_series"]]
assert len(keys) == 4 and sum(k.endswith("/paired") for k in keys) == 2, keys
PY

# Steal: rounds that ran under the host's steal are counted and said (the
# pair's NEW with two of its rounds marked, added to a store of its own).
# Every other round's steal is set to none, in both files: the real runs'
# rounds carry the host's own steal now and then (0.01 s in a sanitizer run
# on a busy host made it 5 rounds, not 4).
python3 - pair-old.json pair-new.json steal-old.json steal-new.json <<'PY'
import json, sys
for src, dst, marked in ((sys.argv[1], sys.argv[3], 0), (sys.argv[2], sys.argv[4], 2)):
    d = json.load(open(src))
    for r in d["results"]:
        for i, c in enumerate(r["round_clocks"]):
            c["steal_s"] = 0.02 if i < marked else 0.0
    json.dump(d, open(dst, "w"))
PY
expect_exit history_paired_steal_add 0 "$G" history add --store ss --commit c1 --anchor steal-old.json steal-new.json
expect_exit history_paired_steal_said 0 "$G" history changes --store ss
expect_grep history_paired_steal_line "^steal: 2 of 2 measurements ran rounds under the host's steal (4 rounds, 0.08 s)" "$WORK/out"
"$G" history changes --store ss --format json >ss.json
py_check history_paired_steal_json ss.json <<'PY'
import json, sys
st = json.load(open(sys.argv[1]))["steal"]
assert (st["measurements_recorded"], st["measurements_under_steal"], st["rounds_under_steal"]) == (2, 2, 4), st
PY

# ---- change points on synthetic paired histories ----
add_history() {   # STORE DIR [ANCHOR]: the pairs of DIR, c01..c30, against ANCHOR
    for i in $(seq -w 1 30); do
        "$G" history add --store "$1" --commit "c$i" --date "2026-01-01T00:$i:00Z" \
            --anchor-commit "${3:-A1}" --anchor "$2/c$i-old.json" "$2/c$i-new.json" >/dev/null ||
            echo "FAIL history_paired_add_series: $2 c$i"
    done
}
mkdir step aa wide
python3 "$ROOT/tests/data/history_pairs.py" pair-old.json pair-new.json step 30 0.01 0.005 vec_j 1.06 21 1
python3 "$ROOT/tests/data/history_pairs.py" pair-old.json pair-new.json aa 30 0.01 0.005 vec_j 1.0 31 2
python3 "$ROOT/tests/data/history_pairs.py" pair-old.json pair-new.json wide 30 0.01 0.25 vec_j 1.3 21 3
add_history hs step
add_history ha aa
add_history hw wide
"$G" history changes --store hs --format json >hs.json
[ $? -eq 1 ] && echo "ok history_paired_step_gate" || echo "FAIL history_paired_step_gate: exit not 1"
py_check history_paired_step_found hs.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ch = d["changes"]
assert len(ch) == 1, ch
c = ch[0]
assert "/vec_j/" in c["series"] and c["series"].endswith("/paired"), c
assert (c["before"], c["after"], c["paired"], c["anchor"]) == ("c20", "c21", True, "A1"), c
assert 1.04 < c["ratio"] < 1.08 and c["min_step_pct"] >= 5.0, c
PY
expect_exit history_paired_aa 0 "$G" history changes --store ha --format json
py_check history_paired_aa_quiet "$WORK/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["changes"] == [] and d["unstable"] == [], d["changes"]
PY
# Wide pairs (25 % a round) with a 1.3x step from c21: the series is named
# unstable and its step is named too, with no alarm (exit 0, gate false).
expect_exit history_paired_unstable 0 "$G" history changes --store hw
expect_grep history_paired_unstable_named "^unstable (pairs wider than 10 %, no alarms):.*vec_j" "$WORK/out"
expect_grep history_paired_unstable_step_named "vec_j.*c20..c21 .*slower (unstable series: no alarm)" "$WORK/out"
"$G" history changes --store hw --format json >hw.json
py_check history_paired_unstable_no_alarm hw.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["gate_failures"] == 0, d["gate_failures"]
assert all(c["unstable"] and not c["gate"] for c in d["changes"]), d["changes"]
assert [(c["before"], c["after"]) for c in d["changes"] if "/vec_j/" in c["series"]] == [("c20", "c21")], d["changes"]
PY
# A table of the step: the paired series in it.
expect_exit history_paired_table 1 "$G" history changes --store hs
expect_grep history_paired_table_row "vec_j/.*/paired  *c20..c21" "$WORK/out"

# Two epochs: c01..c15 against A1, the new anchor A2 measured against A1
# (the overlap run, 3 % faster), c16..c30 against A2; a 6 % step at c24.
mkdir ep
python3 "$ROOT/tests/data/history_pairs.py" pair-old.json pair-new.json ep 30 0.01 0.005 vec_j 1.06 24 4
for i in $(seq -w 1 30); do
    a=A1
    [ "$i" -le 15 ] || a=A2
    "$G" history add --store he --commit "c$i" --date "2026-01-01T00:$i:00Z" --anchor-commit $a \
        --anchor "ep/c$i-old.json" "ep/c$i-new.json" >/dev/null || echo "FAIL history_paired_epoch_add: c$i"
done
python3 "$ROOT/tests/data/history_pairs.py" pair-old.json pair-new.json ep 1 0.0 0.005 vec_j 1.0 2 5
"$G" history add --store he --commit A2 --date "2026-01-01T00:15:30Z" --anchor-commit A1 \
    --anchor ep/c01-old.json ep/c01-new.json >/dev/null || echo "FAIL history_paired_epoch_join"
"$G" history changes --store he --format json >he.json
py_check history_paired_epochs he.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
per = {s["series"]: s for s in d["noise"]["per_series"]}
assert all(s["epochs"] == 2 for s in per.values() if s["paired"]), per
ch = d["changes"]
assert len(ch) == 1 and (ch[0]["before"], ch[0]["after"], ch[0]["anchor"], ch[0]["epoch"]) == \
    ("c23", "c24", "A2", 2), ch
PY

# The page: a summary of the change, the paired charts as ratios with both
# epochs marked, the quiet series folded; drawn by headless Chromium.
expect_exit history_paired_html 0 "$G" history html --store he -o he.html
expect_grep history_paired_html_summary '<table class="summary">.*' he.html
expect_grep history_paired_html_epoch '<line class="epoch"' he.html
expect_grep history_paired_html_anchor 'anchor A2' he.html
expect_grep history_paired_html_one '<line class="one"' he.html
expect_grep history_paired_html_folded '<details id="quiet"><summary>1 series without a change' he.html
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$browser" ]; then
    timeout 60 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --enable-logging=stderr --v=0 --user-data-dir="$WORK/chromium" \
        --dump-dom "file://$WORK/he.html" >dom.html 2>browser.err
    expect_grep history_paired_html_browser 'data-charts="2"' dom.html
    if grep -q 'CONSOLE\|Uncaught' browser.err; then
        echo "FAIL history_paired_html_console: $(grep 'CONSOLE\|Uncaught' browser.err | head -c 300)"
    else
        echo "ok history_paired_html_console"
    fi
else
    skip history_paired_html_browser "needs chromium (sh scripts/setup.sh browser)"
    skip history_paired_html_console "needs chromium (sh scripts/setup.sh browser)"
fi

# CI: scripts/ci-sweep.sh --history DIR --anchor REV, the anchor's build
# already kept (a copy of this build under the commit's hash: no build here).
if hash=$(git -C "$ROOT" rev-parse --verify --quiet HEAD) && command -v bash >/dev/null 2>&1; then
    mkdir -p "anchors/$hash" && cp "$G" "anchors/$hash/gemmbench"
    CI_SWEEP_ANCHORS=$WORK/anchors GEMMBENCH=$G expect_exit history_paired_ci_sweep 0 \
        bash "$ROOT/scripts/ci-sweep.sh" --history ci --anchor HEAD --variant vec_j --shape 16x64x64 \
        --reps 16 --min-reps 8 --min-time 0 --threads 1
    expect_grep history_paired_ci_sweep_added "(paired, 1 entries)" "$WORK/out"
    grep -q "\"anchor\":{\"commit\":\"$hash\"" ci/index.jsonl && echo "ok history_paired_ci_sweep_anchor" ||
        echo "FAIL history_paired_ci_sweep_anchor: $(head -c 300 ci/index.jsonl)"
    expect_exit history_paired_ci_sweep_bad_rev 2 bash "$ROOT/scripts/ci-sweep.sh" --history ci --anchor no-such-rev
else
    skip history_paired_ci_sweep "the build is not in a git tree"
fi
