# badinput3.sh - issue 41, bad input on the compiler driver's surfaces: a
# schedule whose unrolls multiply, result files whose schedule hash is not
# their text's, escape bytes in names and values, and exit codes.  (The
# cache and the compile's signals are tested in sched.sh and signals.sh.)
. tests/cli/lib.sh
G=$GEMMBENCH
ROOT=$(pwd)
cd "$WORK" || exit 1
T="--shape 8x8x8 --reps 1 --warmup 0 --quiet"

# 3. Nested unrolls multiply: three loops of 512 are refused at the
# statement that takes the product over 512, before any compiler runs.
printf 'split i 512 -> io ii\nsplit j 512 -> jo ji\nsplit k 512 -> ko ki\nreorder io jo ko ii ji ki\nunroll ii\nunroll ji\nunroll ki\n' >unrolls.sched
expect_exit unroll_product_refused 2 "$G" --schedule unrolls.sched --shape 512x512x512 --explain
expect_grep unroll_product_says "unrolls.sched:6: unroll: 'ji' unrolled 512 times .* over 512" "$WORK/err"
for f in "$ROOT"/schedules/*.sched; do
    t=$(sed -n 's/^type \([a-z0-9]*\).*/\1/p' "$f")
    expect_exit "unroll_shipped_legal_$(basename "$f" .sched)" 0 "$G" --schedule "$f" \
        --dtype "${t:-f32}" --shape 8x8x8 --explain
done

# 7. A result's schedule.sha256 is 64 lowercase hex digits and the SHA-256
# of its text; compare refuses a file that says otherwise (it paired two
# copies of one before, a text with a hash that is not its own).
"$G" --schedule "$ROOT/schedules/k4.sched" $T -o sched.json >/dev/null 2>&1
sha=$(sed -n 's/.*"sha256":[[:space:]]*"\([0-9a-f]*\)".*/\1/p' sched.json | head -n 1)
if [ ${#sha} -eq 64 ]; then
    expect_exit sha_good_read 0 "$G" compare sched.json sched.json
    sed "s/$sha/$(printf 'z%.0s' $(seq 64))/" sched.json >sha-nothex.json
    cp sha-nothex.json sha-nothex2.json
    expect_exit sha_nothex_refused 2 "$G" compare sha-nothex.json sha-nothex2.json
    expect_grep sha_nothex_says 'schedule.sha256" is not a SHA-256 in lowercase hex' "$WORK/err"
    upper=$(printf %s "$sha" | tr a-f A-F)
    sed "s/$sha/$upper/" sched.json >sha-upper.json
    expect_exit sha_upper_refused 2 "$G" compare sha-upper.json sha-upper.json
    other=$(printf 'split i 8 -> io ii\n' | sha256sum | cut -c1-64)
    sed "s/$sha/$other/" sched.json >sha-other.json
    cp sha-other.json sha-other2.json
    expect_exit sha_other_refused 2 "$G" compare sha-other.json sha-other2.json
    expect_grep sha_other_says 'is not the SHA-256 of "schedule.text"' "$WORK/err"
else
    echo "FAIL sha_setup: no sha256 in sched.json: $(head -c 300 sched.json)"
fi

# A schedule text whose hash is right but which holds an escape: refused in
# one line that shows no raw ESC (its newlines and tabs are its content);
# a round clock that names round 0: refused in one line.
if command -v python3 >/dev/null 2>&1 && [ -s sched.json ]; then
    python3 -c "
import hashlib, json
d = json.load(open('sched.json'))
s = d['results'][0]['schedule']
s['text'] += '# \x1b[31m red\n'
s['sha256'] = hashlib.sha256(s['text'].encode()).hexdigest()
json.dump(d, open('sha-esc.json', 'w'))
d = json.load(open('sched.json'))
d['results'][0]['round_clocks'][0]['round'] = 0
json.dump(d, open('clock-zero.json', 'w'))
"
    expect_exit sched_text_esc_refused 2 "$G" compare sha-esc.json sha-esc.json
    expect_grep sched_text_esc_says '"schedule.text" holds a control character (byte 0x1b' "$WORK/err"
    if grep -q "$(printf '\033')" "$WORK/err"; then echo "FAIL sched_text_esc_escaped: raw ESC"; else echo "ok sched_text_esc_escaped"; fi
    expect_exit round_clock_zero_refused 2 "$G" compare clock-zero.json clock-zero.json
    expect_grep round_clock_zero_says '"round_clocks"\[0\].round is not a round' "$WORK/err"
else
    skip sched_text_esc_refused "needs python3 and sched.json"
fi

# 5. Escape bytes in a schedule's or a space's file name, and in
# GEMMBENCH_CALIBRATE's value, are shown escaped (\x1b), never raw.
E=$(printf '\033[31m')
mkdir "d${E}"
printf 'unroll k\n' >"d${E}/x.sched"
expect_exit esc_sched_name 2 "$G" --schedule "d${E}/x.sched" $T
if grep -q "$(printf '\033')" "$WORK/err"; then echo "FAIL esc_sched_name_escaped: raw ESC"; else expect_grep esc_sched_name_escaped 'd\\x1b\[31m/x.sched:1: unroll' "$WORK/err"; fi
expect_exit esc_sched_explain 2 "$G" --schedule "d${E}/x.sched" --shape 8x8x8 --explain
if grep -q "$(printf '\033')" "$WORK/err"; then echo "FAIL esc_sched_explain_escaped: raw ESC"; else echo "ok esc_sched_explain_escaped"; fi
printf 'unroll k 4\n' >"d${E}/ok.sched"
"$G" --schedule "d${E}/ok.sched" --shape 8x8x8 --explain >"$WORK/explain.out" 2>&1
if grep -q "$(printf '\033')" "$WORK/explain.out"; then echo "FAIL esc_explain_out: raw ESC"; else echo "ok esc_explain_out"; fi
printf 'schedules = d%s/x.sched\n' "$E" >esc.conf
expect_exit esc_conf_schedules 2 "$G" --config esc.conf $T
if grep -q "$(printf '\033')" "$WORK/err"; then echo "FAIL esc_conf_schedules_escaped: raw ESC"; else echo "ok esc_conf_schedules_escaped"; fi
expect_exit esc_sched_missing 2 "$G" --schedule "gone${E}.sched" $T
if grep -q "$(printf '\033')" "$WORK/err"; then echo "FAIL esc_sched_missing_escaped: raw ESC"; else echo "ok esc_sched_missing_escaped"; fi
printf 'choose\nsplit i 4 -> io ii\nend\n' >"sp${E}.space"
expect_exit esc_space_name 2 "$G" tune --space "sp${E}.space" --shape 8x8x8
if grep -q "$(printf '\033')" "$WORK/err"; then echo "FAIL esc_space_name_escaped: raw ESC"; else echo "ok esc_space_name_escaped"; fi
GEMMBENCH_CALIBRATE="x${E}" expect_exit esc_calibrate_value 2 "$G" --variant packed $T
if grep -q "$(printf '\033')" "$WORK/err"; then echo "FAIL esc_calibrate_escaped: raw ESC"; else echo "ok esc_calibrate_escaped"; fi
# The compiler's name ($CC) in every message of the compile driver: one
# that cannot be run, and one that runs and fails (describe_failure).
CC="/no/cc${E}" expect_exit esc_cc_missing 2 "$G" --schedule "d${E}/ok.sched" $T
if grep -q "$(printf '\033')" "$WORK/err"; then echo "FAIL esc_cc_missing_escaped: raw ESC"; else expect_grep esc_cc_missing_escaped "CC '/no/cc\\\\x1b\\[31m': cannot be run" "$WORK/err"; fi
printf '#!/bin/sh\n[ "$1" = --version ] && exec cc --version\necho "cc: internal error" >&2\nexit 1\n' >"failcc${E}"
chmod +x "failcc${E}"
CC="$WORK/failcc${E}" "$G" --schedule "d${E}/ok.sched" $T -o failcc.json >"$WORK/out" 2>"$WORK/err"
if grep -q "$(printf '\033')" "$WORK/err"; then echo "FAIL esc_cc_failing_escaped: raw ESC"; else expect_grep esc_cc_failing_escaped 'failcc\\x1b\[31m: ' "$WORK/err"; fi

# 6. Exit codes.  A run's schedule refusal carries the gemmbench: prefix
# (checked by expect_exit above); the stem limit is the 40 its message says.
s40=$(printf 'a%.0s' $(seq 40)) s41=$(printf 'a%.0s' $(seq 41))
printf 'split i 4 -> io ii\n' >"$s40.sched"
cp "$s40.sched" "$s41.sched"
expect_exit stem_40_ok 0 "$G" --schedule "$s40.sched" --shape 8x8x8 --explain
expect_exit stem_41_refused 2 "$G" --schedule "$s41.sched" --shape 8x8x8 --explain
expect_grep stem_41_says "at most 40" "$WORK/err"
# --emit-c prints a schedule's C: without one it is refused (it ran a whole
# sweep and wrote a result file); with two --param sets it prints both.
expect_exit emit_c_needs_schedule 2 "$G" --emit-c --variant baseline $T -o emit.json
if [ -e emit.json ]; then echo "FAIL emit_c_no_file: emit.json written"; else echo "ok emit_c_no_file"; fi
printf 'param t = 4 in 4,8\nsplit i t -> io ii\n' >emitp.sched
expect_exit emit_c_two_sets 0 "$G" --schedule emitp.sched --shape 16x16x16 --emit-c --param t=4 --param t=8
n=$(grep -c "sched:emitp, M=16" "$WORK/out")
if [ "$n" -eq 2 ]; then echo "ok emit_c_two_sets_both"; else echo "FAIL emit_c_two_sets_both: $n kernels printed"; fi
# No usable compiler: exit 2 naming CC before any search.
printf 'param t = 4 in 4,8\nsplit i t -> io ii\n' >tp.sched
CC=/nonexistent expect_exit nocc_tune_schedule 2 "$G" tune --schedule tp.sched --shape 8x8x8 --trials 2 --reps 1 --quiet
expect_grep nocc_tune_schedule_says "CC '/nonexistent'" "$WORK/err"
CC=/nonexistent expect_exit nocc_tune_space 2 "$G" tune --space "$ROOT/schedules/cpu_gemm.space" --shape 8x8x8 --trials 2 --reps 1 --quiet --records "$WORK/nocc.json"
if [ -e "$WORK/nocc.json" ]; then echo "FAIL nocc_tune_space_no_record: a record file written"; else echo "ok nocc_tune_space_no_record"; fi
# A space with no legal point is an input error.
printf 'split i 4 -> io ii\nchoose\n  fuse io k -> f\nor\n  parallel k\nend\n' >nolegal.space
expect_exit space_no_legal_point 2 "$G" tune --space nolegal.space --shape 8x8x8 --trials 2 --reps 1 --quiet --records "$WORK/nl.json"
expect_grep space_no_legal_point_says "no legal schedule" "$WORK/err"
# GEMMBENCH_CALIBRATE's bad value is refused by tune as by a run.
GEMMBENCH_CALIBRATE=bogus expect_exit calibrate_bad_tune 2 "$G" tune --variant packed --shape 8x8x8 --trials 2 --reps 1 --quiet --records "$WORK/cal.json"
GEMMBENCH_CALIBRATE=bogus expect_exit calibrate_bad_tune_rule 2 "$G" tune --shape 8x8x8 --trials 2 --reps 1 --quiet --records "$WORK/cal.json"
# A schedule that does not fit a shape of the run (a cache_write tile over
# 65536 floats there) is an input error before the sweep, not exit 3.
printf 'cache_write C at i\n' >bigtile.sched
expect_exit sched_no_fit 2 "$G" --schedule bigtile.sched --shape 8x8x70000 --reps 1 --warmup 0 --quiet -o nofit.json
expect_grep sched_no_fit_says "over 65536" "$WORK/err"

# tuned_sched: a record made here (1 thread), then the nearest record that
# does not fit a shape (its tile M x 1 over 65536) falls back to rule_based,
# and a record file holding \u0000 in a text is refused, not cut.
printf 'param t = 2 in 2,4\nsplit k t -> ko ki\nreorder j i ko ki\ncache_write C at j\n' >fit.space
if "$G" tune --space fit.space --shape 8x4x4 --threads 1 --trials 2 --reps 1 --quiet --records rec.json >/dev/null 2>&1 &&
    grep -q '"schedule":' rec.json; then
    R="--variant tuned_sched --threads 1 --reps 1 --warmup 0 --quiet"
    GEMMBENCH_RECORDS=$WORK/rec.json expect_exit nearest_no_fit_falls_back 0 "$G" $R --shape 70000x4x4 -o nearest.json
    expect_grep nearest_no_fit_rule "^tuned_sched(rule) " "$WORK/out"
    # No compiler for a record's schedule: exit 2 naming CC, as SCHED.md says.
    CC=/nonexistent GEMMBENCH_RECORDS=$WORK/rec.json expect_exit nocc_tuned_sched_replay 2 "$G" $R --shape 8x4x4 -o nocc.json
    expect_grep nocc_tuned_sched_replay_says "CC '/nonexistent'" "$WORK/err"
    CC=/nonexistent GEMMBENCH_RECORDS=$WORK/rec.json expect_exit nocc_tuned_sched_rule 0 "$G" $R --shape 70000x4x4 -o nocc-rule.json
    sed 's/"schedule":\(.*\)\\n"$/"schedule":\1\\n\\u0000split i 2 -> a b\\n"/' rec.json >recnul.json
    GEMMBENCH_RECORDS=$WORK/recnul.json expect_exit record_nul_refused 0 "$G" $R --shape 8x4x4 -o recnul.out.json
    expect_grep record_nul_says 'u0000' "$WORK/err"
    expect_grep record_nul_rule "^tuned_sched(unreadable) " "$WORK/out"
    sed 's/"space":.*"fit.space"/"space": "x\\u001b[31m"/; s/"tuned_at":[^,]*/"tuned_at": "t\\u001b[31m"/' rec.json >recesc.json
    GEMMBENCH_RECORDS=$WORK/recesc.json expect_exit record_esc_explain 0 "$G" --variant tuned_sched --threads 1 --shape 8x4x4 --explain
    if grep -q "$(printf '\033')" "$WORK/out"; then echo "FAIL record_esc_explain_escaped: raw ESC"; else expect_grep record_esc_explain_escaped 'space x\\x1b\[31m, tuned t\\x1b' "$WORK/out"; fi
else
    echo "FAIL tuned_setup: tune --space made no record: $(head -c 300 rec.json)"
fi

# An empty winning schedule (here the only legal point: the other
# alternative is refused) prints its row and is recorded; a record's empty
# text would mean rule_based, so it is written as a comment.
printf 'choose\nor\n  vectorize k\nend\n' >empty.space
expect_exit empty_winner 0 "$G" tune --space empty.space --shape 8x4x4 --threads 1 --trials 2 --reps 1 --quiet --records "$WORK/empty-rec.json"
expect_grep empty_winner_row "^custom  *8  *4  *4 " "$WORK/out"
if grep -q '"schedule":' "$WORK/empty-rec.json" 2>/dev/null; then echo "ok empty_winner_recorded"; else echo "FAIL empty_winner_recorded: no record"; fi
GEMMBENCH_RECORDS=$WORK/empty-rec.json expect_exit empty_winner_replayed 0 "$G" --variant tuned_sched --threads 1 --shape 8x4x4 --reps 1 --warmup 0 --quiet -o empty-run.json
expect_grep empty_winner_replayed_record "^tuned_sched  *custom  *8 .*pass" "$WORK/out"
