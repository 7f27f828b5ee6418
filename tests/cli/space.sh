# space.sh - gemmbench tune --space: a structure search writes the winning
# schedule's text per shape; tuned_sched replays it verified (the record of
# the shape, then the nearest, then rule_based) with its schedule object;
# malformed and hostile spaces are refused before any compiler runs; an
# interrupted search keeps what it found.
. tests/cli/lib.sh
G=$GEMMBENCH
ROOT=$(pwd)
cd "$WORK" || exit 1
export GEMMBENCH_RECORDS="$WORK/rec.json"
SPACE=$ROOT/schedules/cpu_gemm.space

# A compiler that logs every run, to show that a refused space runs none.
cat >cc <<EOF
#!/bin/sh
[ "\$1" = --version ] || echo run >>"$WORK/cc.log"
exec cc "\$@"
EOF
chmod +x cc

# A tiny search: a few trials of a shape that is a multiple of no tile.
CC=$WORK/cc expect_exit space_search_runs 0 "$G" tune --space "$SPACE" --shape 20x33x17 --threads 1 --trials 6 --reps 3
expect_grep space_prints_row "^custom  *20  *33  *17  *[0-9.]*  *[0-9.]*  *[0-9.]*  *6  *[0-9]*  *[0-9]*" "$WORK/out"
expect_grep space_prints_space "^searching .*cpu_gemm.space (.* points)" "$WORK/out"
expect_grep space_record_base '"base":	"tuned_sched"' "$WORK/rec.json"
expect_grep space_record_text '"schedule":	"param mc = ' "$WORK/rec.json"
expect_grep space_record_space '"space":	".*cpu_gemm.space"' "$WORK/rec.json"

# Replayed: the record, then the nearest shape, compiled for it; verified.
CC=$WORK/cc expect_exit space_replay 0 "$G" --variant tuned_sched --shape 20x33x17 --shape 21x33x17 --threads 1 --reps 2 --quiet -o "$WORK/r.json"
expect_grep space_replay_record "^tuned_sched  *custom  *20 .*pass" "$WORK/out"
expect_grep space_replay_nearest "^tuned_sched(nearest)  *custom  *21 .*pass" "$WORK/out"
# have_py NAME...: python3 is here; else a named skip for each NAME.
have_py() {
    command -v python3 >/dev/null 2>&1 && return 0
    for n in "$@"; do skip "$n" "needs python3 (reads or writes the JSON)"; done
    return 1
}
if have_py space_replay_json; then
python3 - "$WORK/r.json" "$WORK/rec.json" <<'PY' && echo "ok space_replay_json" || echo "FAIL space_replay_json"
import json, sys
res = json.load(open(sys.argv[1]))["results"]
rec = json.load(open(sys.argv[2]))["records"][0]
by_m = {r["M"]: r for r in res}
assert by_m[20]["effective_params"]["source"] == "record"
assert by_m[21]["effective_params"]["source"] == "nearest"
assert by_m[21]["effective_params"]["from_m"] == 20
for r in res:
    s = r["schedule"]
    assert s["text"] == rec["schedule"], s["text"]
    assert len(s["sha256"]) == 64 and s["space"].endswith("cpu_gemm.space")
assert by_m[20]["schedule"]["cached"] is True      # compiled by the search
PY
fi
expect_exit space_explain 0 "$G" --variant tuned_sched --shape 20x33x17 --threads 1 --explain
expect_grep space_explain_record "the record of 20x33x17 in .*rec.json" "$WORK/out"
expect_grep space_explain_nest "vectorized for jl" "$WORK/out"

# No record for this machine: rule_based, said so, no schedule object.
GEMMBENCH_RECORDS=$WORK/none.json expect_exit space_no_record 0 "$G" --variant tuned_sched --shape 20x33x17 --threads 1 --reps 2 --quiet -o "$WORK/n.json"
expect_grep space_no_record_label "^tuned_sched(rule) " "$WORK/out"
have_py space_no_record_no_schedule &&
    expect_true space_no_record_no_schedule python3 -c "import json,sys; r=json.load(open('$WORK/n.json'))['results'][0]; sys.exit('schedule' in r)"

# A record with an empty schedule: rule_based won that search; it runs.
# (Without the file python3 writes, the runs below would find no record and
# fall back to the rules: nothing tested.)
if have_py space_rule_won space_rule_won_record space_rule_won_explain space_rule_won_says; then
expect_true space_rule_won_file python3 - "$WORK/rec.json" "$WORK/won.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["records"][0]["schedule"] = ""
json.dump(d, open(sys.argv[2], "w"))
PY
GEMMBENCH_RECORDS=$WORK/won.json expect_exit space_rule_won 0 "$G" --variant tuned_sched --shape 20x33x17 --threads 1 --reps 2 --quiet -o "$WORK/w.json"
expect_true space_rule_won_record python3 -c "import json,sys; r=json.load(open('$WORK/w.json'))['results'][0]; sys.exit(not (r['effective_params']['source'] == 'record' and 'schedule' not in r and r['check'] == 'pass'))"
GEMMBENCH_RECORDS=$WORK/won.json expect_exit space_rule_won_explain 0 "$G" --variant tuned_sched --shape 20x33x17 --threads 1 --explain
expect_grep space_rule_won_says "rule_based won that search" "$WORK/out"
fi

# A record whose schedule the checker refuses is skipped, kept in the file,
# and never compiled: the rules run.  (Without bad.json the run finds no
# record and these three would pass over nothing.)
rm -f cc.log
if have_py space_bad_record space_bad_record_rule space_bad_record_no_compiler; then
expect_true space_bad_record_file python3 - "$WORK/rec.json" "$WORK/bad.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["records"][0]["schedule"] = 'split i 4 -> io ii\nsplit i 8 -> a b\n'
d["records"].append(dict(d["records"][0], M=22, schedule='vectorize k\n"); system("id'))
json.dump(d, open(sys.argv[2], "w"))
PY
GEMMBENCH_RECORDS=$WORK/bad.json CC=$WORK/cc expect_exit space_bad_record 0 "$G" --variant tuned_sched --shape 20x33x17 --threads 1 --reps 2 --quiet
expect_grep space_bad_record_rule "^tuned_sched(rule) " "$WORK/out"
expect_true space_bad_record_no_compiler test ! -e cc.log
fi

# Malformed and hostile spaces: exit 2, FILE:LINE, no compiler run.
printf 'param t = 4 in 4,8\nchoose\nsplit i t -> a b\n' >open.space
printf 'split i 4 -> io ii\nchoose\n  parallel io\nor\n  parallel ii); system("id"\nend\n' >inject.space
printf 'split i 4 -> io ii\nchoose\nsplit io 99999999 -> a b\nor\nend\n' >huge.space
printf 'choose\nor\nend\n\001\002\n' >binary.space
for f in open inject huge binary; do
    CC=$WORK/cc expect_exit "space_refuses_$f" 2 "$G" tune --space "$f.space" --shape 20x33x17 --threads 1 --trials 2
done
CC=$WORK/cc "$G" tune --space open.space --shape 20x33x17 --threads 1 --trials 2 >/dev/null 2>"$WORK/e1"
expect_grep space_open_line "open.space:2: choose: no \`end\` before the end of the file" "$WORK/e1"
CC=$WORK/cc "$G" tune --space inject.space --shape 20x33x17 --threads 1 --trials 2 >/dev/null 2>"$WORK/e2"
expect_grep space_inject_line "inject.space:5: parallel: " "$WORK/e2"
CC=$WORK/cc "$G" tune --space huge.space --shape 20x33x17 --threads 1 --trials 2 >/dev/null 2>"$WORK/e3"
expect_grep space_huge_line "huge.space:3: split: factor 99999999 is not in 1..65536" "$WORK/e3"
expect_true space_refused_no_compiler test ! -e cc.log
expect_exit space_not_a_file 2 "$G" tune --space "$WORK" --shape 20x33x17 --threads 1 --trials 2
expect_exit space_with_variant 2 "$G" tune --space "$SPACE" --variant rule_based --trials 2
expect_grep space_with_variant_says "give one of --variant, --schedule and --space" "$WORK/err"

# A space with no legal point for the shape: said, exit non-zero, no record.
printf 'split i 4 -> io ii\nchoose\n  vectorize k\nor\n  parallel k\nend\n' >empty.space
expect_exit space_no_legal_point 2 "$G" tune --space empty.space --shape 20x33x17 --threads 1 --trials 2 --records "$WORK/e.json"
expect_grep space_no_legal_point_says "no legal schedule for 20x33x17 in 2000 points drawn" "$WORK/err"

# Interrupted after a few seconds of searching: exit 130, and the fastest
# schedule so far is kept.
"$G" tune --space "$SPACE" --shape 48x96x80 --threads 1 --budget 60 --reps 3 \
    --records "$WORK/int.json" >"$WORK/int.out" 2>"$WORK/int.err" </dev/null &
pid=$!
sleep 4
kill -INT $pid
wait $pid
rc=$?
if [ $rc -eq 130 ]; then echo "ok space_interrupt_exit_130"; else echo "FAIL space_interrupt_exit_130: exit $rc: $(head -c 300 "$WORK/int.err")"; fi
expect_grep space_interrupt_kept '"schedule":	"param mc = ' "$WORK/int.json"
expect_grep space_interrupt_row "(interrupted: the fastest so far, unconfirmed)" "$WORK/int.out"
