# calibrate.sh - packed's calibration (src/measure/calibrate.c) from the
# command line: measured once (the quick measurement) and cached, read back
# by the next run, a corrupt file refused in one line and measured again;
# the result file's machine block and effective parameters; --explain and
# --param bread; a forced result; a value GEMMBENCH_CALIBRATE does not take.
. tests/cli/lib.sh
G=$GEMMBENCH
CACHE=$WORK/cache


# The cache of this test alone; the quick measurement.
calib() { XDG_CACHE_HOME=$CACHE GEMMBENCH_CALIBRATE=quick "$G" "$@"; }
run() { calib --variant packed --shape 16x768x3072 --reps 2 --warmup 1 --threads 2 --force "$@"; }

# JSON field PATH of FILE (python3), or "none".
field() {
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    d = d[int(k)] if isinstance(d, list) else d.get(k, "none") if isinstance(d, dict) else "none"
print(d)' "$1" "$2"
}

# same_field NAME PATH: the field PATH is the same in b.json as in a.json,
# and is there (two failed reads would be "equal" too).
same_field() {
    x=$(field "$WORK/a.json" "$2") y=$(field "$WORK/b.json" "$2")
    if [ -n "$x" ] && [ "$x" != none ] && [ "$x" = "$y" ]; then
        echo "ok $1"
    else
        echo "FAIL $1: $2 is '$x' in a.json, '$y' in b.json"
    fi
}

# ---- measured once, then cached -------------------------------------------------
run -o "$WORK/a.json" >/dev/null 2>"$WORK/a.err"
check first_run test $? -eq 0
expect_grep first_run_says_b '^gemmbench: packed calibrated at 2 threads, B read: \(in_place\|copied\): in place took' "$WORK/a.err"
expect_grep first_run_says_a '^gemmbench: packed calibrated at 2 threads, A read: \(in_place\|copied\): in place took' "$WORK/a.err"
expect_grep first_run_says_bprefetch '^gemmbench: packed calibrated at 2 threads, B prefetch to: l[12]: L1 and L2 took' "$WORK/a.err"
expect_grep first_run_says_bcopy '^gemmbench: packed calibrated at 2 threads, B copy rule: \(in_place\|copied\): in place took' "$WORK/a.err"
expect_grep first_run_says_threads '^gemmbench: packed calibrated at 2 threads, what they cost a call: 64x64x64 took [0-9.]* us at 1 thread, [0-9.]* at 2 (medians), measured$' "$WORK/a.err"
files=$(ls "$CACHE"/gemmbench/calibration-*.json 2>/dev/null | wc -l)
check one_cache_file test "$files" -eq 1
run -o "$WORK/b.json" >/dev/null 2>"$WORK/b.err"
check second_run test $? -eq 0
check second_run_measures_nothing test "$(grep -c 'calibrated' "$WORK/b.err")" -eq 0

if command -v python3 >/dev/null 2>&1; then
    check json_first_measured test "$(field "$WORK/a.json" machine.calibration.0.source)" = measured
    check json_second_cached test "$(field "$WORK/b.json" machine.calibration.0.source)" = cached
    choice=$(field "$WORK/a.json" machine.calibration.0.b.read)
    same_field json_same_choice machine.calibration.0.b.read
    same_field json_a_answer machine.calibration.0.a.read
    same_field json_bcopy_answer machine.calibration.0.bcopy.read
    same_field json_bprefetch_answer machine.calibration.0.bprefetch.read
    check json_threads test "$(field "$WORK/a.json" machine.calibration.0.threads)" = 2
    check json_rounds test "$(field "$WORK/a.json" machine.calibration.0.rounds)" = 3
    check json_effective_bread test -n "$choice" -a "$(field "$WORK/a.json" results.0.effective_params.bread)" = "$choice"
    check json_validates python3 scripts/validate-json.py "$WORK/a.json" --complete
    check json_bmany_answered test "$(field "$WORK/a.json" machine.calibration.0.bmany.read)" != none
    check json_small_measured python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))["machine"]["calibration"][0]
sys.exit(0 if c["small_us"] > 0 and c["small_t_us"] > 0 else 1)' "$WORK/a.json"
    # validator_case NAME FILE BAD: the validator refuses FILE (BAD 1) or
    # takes it (BAD 0).
    validator_case() {
        python3 scripts/validate-json.py "$2" >"$WORK/validator.out" 2>&1
        rc=$?
        if [ "$3" = 1 ]; then
            check "$1" test $rc -ne 0
        else
            check "$1" test $rc -eq 0
        fi
    }
    # answer_cases Q ANSWER:RATIO:BAD...: question Q's answer set to ANSWER
    # at RATIO (p10-p90 0.9-1.1, its shapes kept), refused (BAD 1) or taken.
    answer_cases() {
        q=$1
        shift
        for case in "$@"; do
            IFS=: read -r answer ratio bad <<EOF2
$case
EOF2
            python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
c = d["machine"]["calibration"][0]
c[sys.argv[2]] = {"read": sys.argv[3], "ratio": float(sys.argv[4]), "ratio_p10": 0.9,
                  "ratio_p90": 1.1, "shapes": (c.get(sys.argv[2]) or {}).get("shapes", "")}
json.dump(d, open(sys.argv[5], "w"))' "$WORK/a.json" "$q" "$answer" "$ratio" "$WORK/$q.json"
            validator_case "validator_${q}_${answer}_$ratio" "$WORK/$q.json" "$bad"
        done
    }
    # bfar: off only above 1.0, on only up to 1.02 (its threshold before and
    # after 2026-12-05); the validator takes both and refuses the rest.
    answer_cases bfar off:1.01:0 on:1.01:0 off:0.99:1 on:1.03:1
    # bnearnext: off exactly above 1.02.
    check json_bnearnext_answered test "$(field "$WORK/a.json" machine.calibration.0.bnearnext.read)" != none
    answer_cases bnearnext off:1.03:0 on:1.01:0 off:1.01:1 on:1.03:1
    # the threads' cost: both positive, or neither; else refused.
    for case in 5.4:4.2:0 -1:4.2:1 5.4:none:1 none:none:0; do
        IFS=: read -r small small_t bad <<EOF2
$case
EOF2
        python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
c = d["machine"]["calibration"][0]
for k, v in (("small_us", sys.argv[2]), ("small_t_us", sys.argv[3])):
    c.pop(k, None)
    if v != "none":
        c[k] = float(v)
json.dump(d, open(sys.argv[4], "w"))' "$WORK/a.json" "$small" "$small_t" "$WORK/small.json"
        validator_case "validator_small_${small}_$small_t" "$WORK/small.json" "$bad"
    done
    # same_plan (nothing timed): the first answer and no ratios, or refused.
    for case in in_place:none:0 copied:none:1 in_place:1.0:1; do
        IFS=: read -r answer ratio bad <<EOF2
$case
EOF2
        python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
a = {"read": sys.argv[2], "same_plan": True, "shapes": "mlp_expand M=192,256 (K 768, N 3072)"}
if sys.argv[3] != "none":
    a["ratio"] = float(sys.argv[3])
d["machine"]["calibration"][0]["bmany"] = a
json.dump(d, open(sys.argv[4], "w"))' "$WORK/a.json" "$answer" "$ratio" "$WORK/same.json"
        validator_case "validator_same_plan_${answer}_$ratio" "$WORK/same.json" "$bad"
    done
else
    for c in json_first_measured json_second_cached json_same_choice json_a_answer \
        json_bcopy_answer json_bprefetch_answer json_threads json_rounds json_effective_bread \
        json_validates json_bmany_answered json_small_measured validator_small_5.4_4.2 \
        validator_small_-1_4.2 validator_small_5.4_none validator_small_none_none \
        validator_bfar_off_1.01 validator_bfar_on_1.01 json_bnearnext_answered \
        validator_bnearnext_off_1.03 validator_bnearnext_on_1.01 validator_bnearnext_off_1.01 \
        validator_bnearnext_on_1.03 \
        validator_bfar_off_0.99 validator_bfar_on_1.03 validator_same_plan_in_place_none \
        validator_same_plan_copied_none validator_same_plan_in_place_1.0; do
        skip $c "needs python3 (reads the result file's JSON)"
    done
fi

# ---- a corrupt file: one line, measured again -------------------------------------
file=$(ls "$CACHE"/gemmbench/calibration-*.json)
printf '{"schema": "gemmbench-calibration/1", "key": ' >"$file"
run -o "$WORK/c.json" >/dev/null 2>"$WORK/c.err"
check corrupt_run test $? -eq 0
expect_grep corrupt_refused 'calibration cache .* refused: corrupt: not JSON; measuring again$' "$WORK/c.err"
check corrupt_one_line test "$(grep -c refused "$WORK/c.err")" -eq 1
expect_grep corrupt_measured_again 'packed calibrated at 2 threads' "$WORK/c.err"
run -o "$WORK/d.json" >/dev/null 2>"$WORK/d.err"
check corrupt_rewritten_run test $? -eq 0
check corrupt_rewritten test "$(grep -c 'refused\|calibrated' "$WORK/d.err")" -eq 0

# ---- --explain: the choice and its reason; forced; --param ---------------------------
calib --variant packed --shape 16x768x3072 --threads 2 --explain >"$WORK/e.txt" 2>&1
expect_grep explain_measured_reason 'B read        \(in_place\|copied\): in place took [0-9.]*x the time of copied (median of 3 rounds' "$WORK/e.txt"
XDG_CACHE_HOME=$CACHE GEMMBENCH_CALIBRATE=copied "$G" --variant packed --shape 16x768x3072 \
    --threads 2 --explain >"$WORK/f.txt" 2>&1
expect_grep explain_forced_copied 'B read        copied (forced by GEMMBENCH_CALIBRATE)' "$WORK/f.txt"
expect_grep explain_copied_is_ir_outer 'copies it into a packed block for the others; ir outside jr' "$WORK/f.txt"
XDG_CACHE_HOME=$CACHE GEMMBENCH_CALIBRATE=copied "$G" --variant packed --shape 16x768x3072 \
    --threads 2 --explain --param bread=in_place >"$WORK/g.txt" 2>&1
expect_grep explain_param_in_place 'B read        in_place (--param; this machine.s calibration: copied' "$WORK/g.txt"
expect_grep explain_param_jr_outer 'copies each B micro-panel for the others; jr outside ir' "$WORK/g.txt"
# B fused's copy at 8 A micro-panels (M = 64): none when the calibration says
# in place, by the first pass when copied or --param bcopy=copied.
XDG_CACHE_HOME=$CACHE GEMMBENCH_CALIBRATE=in_place "$G" --variant packed --shape 64x768x3072 \
    --threads 2 --explain >"$WORK/l.txt" 2>&1
expect_grep explain_bcopy_in_place 'B copy        none: every pass reads B in place (8 A micro-panels' "$WORK/l.txt"
expect_grep explain_bcopy_rule_forced 'B copy rule   in_place (forced by GEMMBENCH_CALIBRATE)' "$WORK/l.txt"
XDG_CACHE_HOME=$CACHE GEMMBENCH_CALIBRATE=in_place "$G" --variant packed --shape 64x768x3072 \
    --threads 2 --explain --param bcopy=copied,bahead=0 >"$WORK/m.txt" 2>&1
expect_grep explain_bcopy_param 'B copy        by the first pass (8 A micro-panels' "$WORK/m.txt"
expect_grep explain_bcopy_param_says 'B copy rule   copied (--param; this machine.s calibration: in_place' "$WORK/m.txt"
# Copied ahead by every pass where the kernel can (AVX-512), else by the first.
XDG_CACHE_HOME=$CACHE GEMMBENCH_CALIBRATE=in_place "$G" --variant packed --shape 64x768x3072 \
    --threads 2 --explain --param bcopy=copied >"$WORK/m2.txt" 2>&1
if grep -q 'micro-kernel  avx512' "$WORK/m2.txt"; then
    expect_grep explain_bcopy_ahead 'B copy        ahead: every pass over a micro-panel copies' "$WORK/m2.txt"
    expect_grep explain_bnext_ahead 'B next        copied ahead' "$WORK/m2.txt"
else
    expect_grep explain_bcopy_ahead 'B copy        by the first pass (8 A micro-panels' "$WORK/m2.txt"
    expect_grep explain_bnext_ahead 'B next        the next micro-panel prefetched' "$WORK/m2.txt"
fi
# Rows under a page apart: no calibrated choice to show.
calib --variant packed --shape 16x768x768 --threads 2 --explain >"$WORK/h.txt" 2>&1
check explain_near_rows_runs test $? -eq 0
check explain_near_rows_no_choice test "$(grep -c ' read   ' "$WORK/h.txt")" -eq 0
# The threads a call pays for, from the cache's small call (set here to the
# family 25 guest's 5.44 and 4.23 us, so that the plans do not depend on
# this machine's): 16x16x16 on one thread, 64x768x768 on both; forced,
# nothing measured, both.
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
d.update(small_us=5.44, small_t_us=4.23)
json.dump(d, open(sys.argv[1], "w"))' "$file"
    calib --variant packed --shape 16x16x16 --threads 2 --explain >"$WORK/t1.txt" 2>&1
    expect_grep explain_small_one_thread '2 threads (1 used: too little work for more, below):' "$WORK/t1.txt"
    expect_grep explain_small_why 'threads       1: 2 would save the busiest thread 0.[0-9]* us, no more than the 1.[0-9]* us a threaded call costs beyond its share of the work (calibrated: 64x64x64 took 5.44 us at 1 thread, 4.23 at 2)' "$WORK/t1.txt"
    calib --variant packed --shape 16x16x16 --threads 2 --reps 3 --warmup 1 -o "$WORK/t1.json" --force >/dev/null 2>"$WORK/t1.err"
    check small_one_thread_runs test $? -eq 0
    check small_one_thread_grid test "$(field "$WORK/t1.json" results.0.effective_params.threads_m)$(field "$WORK/t1.json" results.0.effective_params.threads_n)" = 11
    check small_one_thread_exact test "$(field "$WORK/t1.json" results.0.check)" = pass
    calib --variant packed --shape 64x768x768 --threads 2 --explain >"$WORK/t2.txt" 2>&1
    expect_grep explain_large_both 'threads       2: 2 would save the busiest thread [0-9.]* us, over the' "$WORK/t2.txt"
    XDG_CACHE_HOME=$CACHE GEMMBENCH_CALIBRATE=in_place "$G" --variant packed --shape 16x16x16 \
        --threads 2 --explain >"$WORK/t3.txt" 2>&1
    expect_grep explain_small_forced 'threads       2, all the tiles allow: what a threaded call costs not calibrated (forced)' "$WORK/t3.txt"
else
    for c in explain_small_one_thread explain_small_why small_one_thread_runs \
        small_one_thread_grid small_one_thread_exact explain_large_both explain_small_forced; do
        skip $c "needs python3 (edits the cache file)"
    done
fi
# A's rows a page apart (K = 3072): A's answer, forced either way.
XDG_CACHE_HOME=$CACHE GEMMBENCH_CALIBRATE=copied "$G" --variant packed --shape 16x3072x768 \
    --threads 2 --explain >"$WORK/k.txt" 2>&1
expect_grep explain_a_forced_copied 'A read        copied (forced by GEMMBENCH_CALIBRATE)' "$WORK/k.txt"
expect_grep explain_a_copied_is_fused 'A             packed micro-panel by micro-panel on its first use' "$WORK/k.txt"
XDG_CACHE_HOME=$CACHE GEMMBENCH_CALIBRATE=copied "$G" --variant packed --shape 16x3072x768 \
    --threads 2 --explain --param aread=in_place >"$WORK/l.txt" 2>&1
expect_grep explain_a_param_in_place 'A             read in place' "$WORK/l.txt"

# ---- not packed: nothing calibrated ------------------------------------------------
rm -rf "$CACHE"
calib --variant baseline --shape 8x8x8 --reps 2 --warmup 1 -o "$WORK/i.json" --force >/dev/null 2>&1
check baseline_run test $? -eq 0
check baseline_caches_nothing test ! -e "$CACHE/gemmbench/calibration-"*
if command -v python3 >/dev/null 2>&1; then
    check baseline_json_no_calibration test "$(field "$WORK/i.json" machine.calibration)" = none
else
    skip baseline_json_no_calibration "needs python3 (reads the result file's JSON)"
fi

# ---- bad input -----------------------------------------------------------------
expect_exit bad_mode 2 env XDG_CACHE_HOME=$CACHE GEMMBENCH_CALIBRATE=sideways "$G" \
    --variant packed --shape 16x768x3072 --reps 2 --warmup 1 -o "$WORK/j.json" --force
expect_grep bad_mode_named 'GEMMBENCH_CALIBRATE=sideways' "$WORK/err"
expect_exit bad_mode_info 2 env GEMMBENCH_CALIBRATE=sideways "$G" info
expect_exit bad_param 2 calib --variant packed --shape 16x768x3072 --param bread=sideways --explain
