# run.sh - a real sweep end to end: table, formats, JSON, verification,
# never overwriting, and Ctrl-C leaving a valid partial file.
. tests/cli/lib.sh
G=$GEMMBENCH
V="python3 $(pwd)/scripts/validate-json.py"
cd "$WORK" || exit 1
tiny="--variant baseline,parallel,vec_j --kernel qkv --m 1,7 --reps 3 --warmup 1 --quiet"

expect_exit tiny_run 0 "$G" $tiny -o "$WORK/a.json"
expect_grep table_has_header "median_us" "$WORK/out"
expect_grep table_has_row "^vec_j .* qkv .* 7 .*pass" "$WORK/out"
expect_true json_valid $V "$WORK/a.json" --complete --min-results 6
# --quiet keeps the story off; without it the run ends with it, after the
# table: the study's steps, the next commands naming the file.
expect_true quiet_no_story sh -c "! grep -q '^summary\|^next:' '$WORK/out'"
story="--variant baseline,rule_based,packed --kernel qkv --m 7 --reps 3 --warmup 1"
expect_exit story_run 0 "$G" $story -o "$WORK/story.json"
expect_grep story_steps "^  qkv  baseline -> rule_based: [0-9.]*x, [0-9.]*% -> [0-9.]*% of peak$" "$WORK/out"
expect_grep story_packed "^       packed: [0-9.]*% of peak, [0-9.]*x rule_based's speed$" "$WORK/out"
expect_grep story_next "^next: make plots PLOT_FILE=$WORK/story.json" "$WORK/out"
expect_grep story_report "gemmbench report $WORK/story.json" "$WORK/out"
expect_true story_after_table sh -c "test \"\$(grep -n '^summary' '$WORK/out' | cut -d: -f1)\" -gt \"\$(grep -n '^packed ' '$WORK/out' | cut -d: -f1)\""
expect_exit story_json_format 0 "$G" $story -o "$WORK/story2.json" --format json
expect_true story_not_in_json python3 -c "import json, sys; json.load(open('$WORK/out'))"
expect_exit force_overwrites 0 "$G" $tiny -o "$WORK/a.json" --force
expect_true json_still_valid $V "$WORK/a.json" --complete --min-results 6

expect_exit csv_format 0 "$G" $tiny -o "$WORK/c.json" --format csv
expect_grep csv_header "^variant,family,kernel,M,K,N" "$WORK/out"
expect_grep csv_row "^parallel,parallel,qkv,7,768,768,2\?" "$WORK/out"
expect_exit md_format 0 "$G" $tiny -o "$WORK/m.json" --format md
expect_grep md_row "^| baseline | qkv | 1 |" "$WORK/out"
expect_exit json_format 0 "$G" $tiny -o "$WORK/j.json" --format json
expect_grep json_stdout '"schema":' "$WORK/out"

expect_exit custom_shape 0 "$G" --variant vec_j --shape 5x3x2 --shape 1x1x1 --reps 2 --quiet -o "$WORK/s.json"
expect_grep custom_shape_row "custom .* 5 .* 3 .* 2 " "$WORK/out"

# Default output goes to results/<host>-<time>.json, made when missing.
expect_exit default_output 0 "$G" --variant vec_j --shape 2x2x2 --reps 1 --quiet
if ls "$WORK"/results/*.json >/dev/null 2>&1; then echo "ok default_output_file"; else echo "FAIL default_output_file: nothing in results/"; fi

# bench.conf in the current directory is read, and a custom kernel runs.
printf 'reps = 2\nwarmup = 0\n[kernel tiny]\nk = 3\nn = 4\nm = 2 5\n' >"$WORK/bench.conf"
expect_exit bench_conf_kernel 0 "$G" --variant baseline --kernel tiny --quiet -o "$WORK/t.json"
expect_grep bench_conf_kernel_row "tiny .* 5 .* 3 .* 4 " "$WORK/out"
expect_grep bench_conf_reps '"reps":	2' "$WORK/t.json"
rm "$WORK/bench.conf"

# Ctrl-C in the middle of a sweep: exit 130, a valid file with complete false
# holding what was measured before the signal.  In one round, the signal
# comes when baseline's first row is out (0.5 s of calls), most likely
# during vec_j's 0.5 s; baseline at M=384 (a verification call, then calls
# of about 3 s each) is still ahead of it.
# (Ctrl-C between rounds: rounds_interrupt below.)
expect_interrupted interrupt "^baseline" "$WORK/interrupt.out" \
    "$G" --variant baseline,vec_j --kernel mlp_expand --m 16,384 --reps 500 --max-time 0.5 \
    --warmup 1 --rounds 1 --quiet -o "$WORK/int.json"
expect_true interrupt_json_valid $V "$WORK/int.json" --min-results 1
expect_grep interrupt_incomplete '"complete":	false' "$WORK/int.json"
expect_grep interrupt_says_partial "partial results" "$WORK/interrupt.err"

# Each --param is a set of its own; every set runs, labelled (ablations).
expect_exit param_sets 0 "$G" --variant rule_based --param tk=4 --param tk=8,tn=32 --kernel qkv --m 7 --reps 2 --quiet -o "$WORK/p.json"
expect_grep param_set_one "^rule_based\[tk=4\]  *qkv  *7 .*pass" "$WORK/out"
expect_grep param_set_two "^rule_based\[tk=8,tn=32\]  *qkv  *7 .*pass" "$WORK/out"
expect_grep param_sets_json '"label":	"rule_based\[tk=8,tn=32\]"' "$WORK/p.json"

# --rounds R: every entry's timed calls split over R passes of the whole sweep.
expect_exit rounds_run 0 "$G" --variant baseline,vec_j --kernel qkv --m 1,7 --reps 7 --rounds 3 \
    --warmup 2 --quiet -o "$WORK/r.json"
expect_true rounds_json_valid $V "$WORK/r.json" --complete --min-results 4
expect_true rounds_recorded python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["run"]["rounds"] == 3, d["run"]["rounds"]
res = d["results"]
# One entry per (variant, shape), in the order of a plain run, each with all
# 7 samples from 3 rounds and the check of round 1.
assert [(r["variant"], r["M"]) for r in res] == \
    [("baseline", 1), ("vec_j", 1), ("baseline", 7), ("vec_j", 7)], res
for r in res:
    assert r["rounds"] == 3 and r["reps"] == 7 and len(r["samples_us"]) == 7, r
    assert r["check"] == "pass", r
' "$WORK/r.json"
rows=$(grep -c "^vec_j .* qkv " "$WORK/out")
if [ "$rows" -eq 2 ]; then echo "ok rounds_one_row_per_entry"; else echo "FAIL rounds_one_row_per_entry: $rows vec_j rows"; fi
printf 'rounds = 2\n' >"$WORK/rounds.conf"
expect_exit rounds_from_conf 0 "$G" --config "$WORK/rounds.conf" --variant vec_j --kernel qkv --m 3 --reps 4 --quiet -o "$WORK/rc.json"
expect_grep rounds_conf_recorded '"rounds":	2' "$WORK/rc.json"

# Rounds are the outer loop: no entry gets its second round before every
# entry has had its first.  The file is watched while it is rewritten after
# each measurement (an inner rounds loop would show [2] before [2, 1, ...]).
expect_true rounds_are_outer python3 - "$G" "$WORK/order.json" <<'PY'
import json, subprocess, sys, time
g, path = sys.argv[1], sys.argv[2]
p = subprocess.Popen([g, "--variant", "baseline", "--kernel", "qkv", "--m", "16,24,32",
                      "--reps", "4", "--rounds", "2", "--warmup", "1", "--quiet", "-o", path],
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
seen = set()
while p.poll() is None:
    try:
        rounds = tuple(r["rounds"] for r in json.load(open(path))["results"])
    except (OSError, ValueError, KeyError):
        rounds = ()
    seen.add(rounds)
    time.sleep(0.005)
assert p.returncode == 0, p.returncode
for s in seen:
    assert not (2 in s and len(s) < 3), sorted(seen)
assert (1, 1, 1) in seen or (2, 1, 1) in seen, sorted(seen)
PY

# Ctrl-C before the last round: exit 130, a valid incomplete file whose
# entries hold the rounds they had, and table rows for them all the same.
# The signal comes once the first entry is in the file (a verification call
# and 8 calls of about 0.15 s); over 40 more calls of baseline, each as
# short, are still ahead of it (at M=384 a call took 3 s, and the signal
# waited for two of them).
expect_interrupted rounds_interrupt '"samples_us":' "$WORK/rint.json" \
    "$G" --variant baseline,vec_j --kernel mlp_expand --m 16,17 --reps 24 --rounds 3 \
    --warmup 1 --max-time 20 --quiet -o "$WORK/rint.json"
expect_true rounds_interrupt_json_valid $V "$WORK/rint.json" --min-results 1
expect_grep rounds_interrupt_incomplete '"complete":	false' "$WORK/rint.json"
expect_grep rounds_interrupt_says_rounds "interrupted before the last of 3 rounds" "$WORK/rounds_interrupt.err"
expect_grep rounds_interrupt_row "^baseline .* mlp_expand .* 16 .*pass" "$WORK/rounds_interrupt.out"

# machine.cpu_id: the CPU's family, model and stepping where /proc/cpuinfo
# says them (two kinds can share a model name), and the checker refuses one
# that is no string.
if grep -q '^cpu family' /proc/cpuinfo 2>/dev/null; then
    fam=$(sed -n 's/^cpu family[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -n 1)
    expect_grep run_cpu_id "\"cpu_id\":	\"cpu family $fam, model [0-9]*, stepping [0-9]*\"" "$WORK/a.json"
else
    skip run_cpu_id "/proc/cpuinfo says no cpu family here"
fi
if command -v python3 >/dev/null 2>&1; then
    python3 - "$WORK/a.json" "$WORK/badid.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["machine"]["cpu_id"] = 26
json.dump(d, open(sys.argv[2], "w"))
PY
    expect_exit validate_bad_cpu_id 1 $V "$WORK/badid.json"
else
    skip validate_bad_cpu_id "needs python3 (scripts/validate-json.py)"
fi
