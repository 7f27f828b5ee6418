#!/bin/sh
# ab.sh - gemmbench ab end to end: two builds (the binary itself, and
# wrapper scripts around it) on a tiny sweep; every exit status; bad input.
# A run of a build against itself may fail the gate on a busy machine: here
# such runs need a verdict, either one (expect_verdict); the verdicts checked
# are those no noise turns (a 5x clock), and tests/slow/ab_aa.sh checks that
# A/A passes.
. tests/cli/lib.sh
G=$GEMMBENCH
ROOT=$(pwd)
cd "$WORK" || exit 1
# --min-time 0: the tests below need not ab's default 20 ms of calls per round.
entry="--variant k8 --kernel qkv --m 16 --reps 20 --warmup 1"
tiny="$entry --min-time 0"
# --rounds 8, ab's fewest, where a check needs not the default 20 rounds (a
# process of each build per round: 8 take 1 s, 20 take 2.5 s); aa_verdict
# tests the defaults.
few="--rounds 8"

# py_true NAME CODE: the python3 program CODE succeeds; a named skip where
# python3 is missing (never an ok, never a FAIL for want of a tool).
py_true() {
    if command -v python3 >/dev/null 2>&1; then
        expect_true "$1" python3 -c "$2"
    else
        skip "$1" "needs python3 (reads the result files)"
    fi
}

# A/A: the same build twice, at ab's defaults.
expect_verdict aa_verdict "$G" ab "$G" "$G" $entry -o aa --quiet
aa_rc=$rc
expect_true aa_old_file test -s aa-old.json
expect_true aa_new_file test -s aa-new.json
expect_grep aa_complete '"complete":	true' aa-new.json
expect_grep aa_rounds_tagged '"sample_rounds":' aa-old.json
expect_grep aa_twenty_rounds '"rounds":	20' aa-new.json
# ab's default: 20 ms of calls per entry and round, 0.4 s over 20 rounds:
# more calls than --reps' one a round, unless every call took 20 ms alone
# (k8 under the sanitizers on a busy machine).
expect_grep aa_min_time '"min_time_s":	0.4' aa-old.json
py_true aa_min_time_calls "
import json
for f in ('aa-old.json', 'aa-new.json'):
    r = json.load(open(f))['results'][0]
    s = r['samples_us']
    assert sum(s) >= 0.4e6 and (r['reps'] > 20 or min(s) >= 2e4), (r['reps'], sum(s), min(s))
"
expect_grep aa_paired_rule "the unit is the round" "$WORK/out"
expect_grep aa_interval_column "interval" "$WORK/out"
# Every sample tagged with its round, and as many tags as samples.
py_true aa_tags_match "
import json, sys
for f in ('aa-old.json', 'aa-new.json'):
    for r in json.load(open(f))['results']:
        assert len(r['sample_rounds']) == len(r['samples_us']) == r['reps'], r
"
# The merged files restate what a run would: each entry's statistics from
# all its samples, eight rounds' tags, peak_pct against the peak and the
# speed-up over the plain baseline of the same shape.
expect_verdict merge_run "$G" ab "$G" "$G" --variant baseline,k8 --kernel qkv --m 16 \
    --reps 8 --warmup 1 --min-time 0 --rounds 8 -o mg --quiet
py_true merge_restated "
import json, statistics
for f in ('mg-old.json', 'mg-new.json'):
    d = json.load(open(f))
    peak = d['machine']['peak_gflops']
    by = {r['variant']: r for r in d['results']}
    assert len(d['results']) == 2, f
    for r in d['results']:
        s = r['samples_us']
        med = statistics.median(s)
        assert r['rounds'] == 8 and r['reps'] == len(s) == 8, r
        assert sorted(set(r['sample_rounds'])) == list(range(1, 9)), r['sample_rounds']
        assert abs(r['median_us'] - med) <= 1e-9 * med and r['min_us'] == min(s), r
        g = 2 * r['M'] * r['K'] * r['N'] / (med * 1e3)
        assert abs(r['gflops'] - g) <= 1e-9 * g, (r['gflops'], g)
        assert abs(r['peak_pct'] - 100 * g / peak) <= 1e-6 * r['peak_pct'], r
    sp = by['baseline']['median_us'] / by['k8']['median_us']
    assert abs(by['k8']['speedup_vs_baseline'] - sp) <= 1e-9 * sp, (by['k8'], sp)
    assert by['baseline']['speedup_vs_baseline'] == 1.0
"
# Every round's clock kept in the merged files (results/FORMAT.md,
# round_clocks), and the steal line under ab's table.
expect_grep merge_steal_line '^steal: .*rounds' "$WORK/out"
py_true merge_round_clocks "
import json
for f in ('mg-old.json', 'mg-new.json'):
    for r in json.load(open(f))['results']:
        c = r['round_clocks']
        assert sorted(x['round'] for x in c) == list(range(1, 9)), c
        assert all(x['wall_s'] > 0 and x['cpu_s'] > 0 and x['nivcsw'] >= 0 for x in c), c
        assert sum(x['wall_s'] for x in c) >= sum(r['samples_us']) * 1e-6, r
"
py_true merge_validates "
import subprocess, sys
sys.exit(subprocess.call([sys.executable, '$ROOT/scripts/validate-json.py', 'mg-old.json']))
"
# A --schedule variant end to end: every round's file carries the schedule's
# text, newlines and all, under its hash; the reader once blanked the
# newlines, the merged file's hash no longer matched and ab failed every time.
expect_verdict sched_ab "$G" ab "$G" "$G" --schedule "$ROOT/schedules/packed.sched" \
    --shape 8x8x8 --reps 8 --warmup 1 --min-time 0 $few -o sc --quiet
py_true sched_ab_text_kept "
import json, hashlib
for f in ('sc-old.json', 'sc-new.json'):
    r = json.load(open(f))['results'][0]
    t = r['schedule']['text']
    assert '\\n' in t and '?' not in t, t[:80]
    assert hashlib.sha256(t.encode()).hexdigest() == r['schedule']['sha256'], f
    assert r['rounds'] == 8, r['rounds']
"
# ab's files judged again later, as ab judged them.
expect_verdict aa_compare_paired "$G" compare --paired aa-old.json aa-new.json
# Same files, same test: the same verdict, whatever it was.
if [ "$rc" = "$aa_rc" ]; then echo "ok aa_compare_paired_agrees"; else
    echo "FAIL aa_compare_paired_agrees: ab exited $aa_rc, compare --paired of its files $rc"; fi
expect_grep aa_compare_paired_unit "the unit is the round" "$WORK/out"
expect_grep aa_compare_paired_rows "20r/20r" "$WORK/out"
# Separate-file compare of the same files tests per-round medians (10 rounds).
expect_verdict aa_compare_rounds "$G" compare aa-old.json aa-new.json
expect_grep aa_compare_rounds_unit "tested on per-round medians" "$WORK/out"
# The files are there: refused without --force.
expect_exit aa_exists 2 "$G" ab "$G" "$G" $tiny -o aa --quiet
expect_grep aa_exists_said "exists (use --force" "$WORK/err"

# A wrapper that sets an environment and execs the build counts as a build;
# the header shows the variable that differs.
cat >passive.sh <<WRAP
#!/bin/sh
OMP_WAIT_POLICY=passive exec "$G" "\$@"
WRAP
chmod +x passive.sh
# (OLD without the variable, whatever tests/run.sh set.)
expect_verdict wrapper_ran env -u OMP_WAIT_POLICY "$G" ab "$G" ./passive.sh $tiny $few -o env --quiet
expect_grep wrapper_env_diff "run.openmp.OMP_WAIT_POLICY .*(absent) | passive" "$WORK/out"

# The slowdowns ab must catch (a 2x one, and one of exactly 1.5x) are timing
# tests: tests/slow/ab_slowdowns.sh, run alone by `make test-slow`.  Here a
# verdict no noise can turn: one build's monotonic clock runs 5 times as
# fast (scripts/scaleclock.c), so each of its calls times 5 times as long.
# NEW 5x slower fails the gate; NEW 5x faster (OLD scaled) passes it.
${CC:-cc} -O2 -shared -fPIC -o scaleclock.so "$ROOT/scripts/scaleclock.c" -ldl >cc.out 2>&1
for scale in 5 50; do
    cat >slow$scale.sh <<WRAP
#!/bin/sh
ASAN_OPTIONS=\${ASAN_OPTIONS:+\$ASAN_OPTIONS:}verify_asan_link_order=0 \\
GB_CLOCK_SCALE=$scale LD_PRELOAD=$WORK/scaleclock.so exec "$G" "\$@"
WRAP
    chmod +x slow$scale.sh
done
if [ -s scaleclock.so ] && ./slow5.sh --version >/dev/null 2>&1; then
    expect_exit slow5_new_fails 1 "$G" ab "$G" ./slow5.sh $tiny $few -o s5 --quiet
    expect_grep slow5_new_gate_fail "gate: FAIL: 1 of 1" "$WORK/out"
    expect_grep slow5_new_marked "slower  FAIL" "$WORK/out"
    expect_exit slow5_old_passes 0 "$G" ab ./slow5.sh "$G" $tiny $few -o f5 --quiet
    expect_grep slow5_old_gate_pass "gate: pass" "$WORK/out"
    # compare judges ab's files as ab did, both ways.
    expect_exit slow5_compare_paired_fails 1 "$G" compare --paired s5-old.json s5-new.json
    expect_exit slow5_compare_paired_passes 0 "$G" compare --paired f5-old.json f5-new.json
    # Unpaired, compare's gate widens to the rounds' own spread, (max - min)
    # / median: on a machine busy enough that one round ran at a fifth of
    # the others' speed (CI's fresh root, two test parts at once) a 5x
    # step is within it; a 50x clock is beyond any round's spread.
    "$G" ab "$G" ./slow50.sh $tiny $few -o s50 --quiet >/dev/null 2>&1
    expect_exit slow50_compare_rounds_fails 1 "$G" compare s50-old.json s50-new.json
else
    for c in slow5_new_fails slow5_new_gate_fail slow5_new_marked slow5_old_passes \
        slow5_old_gate_pass slow5_compare_paired_fails slow5_compare_paired_passes \
        slow50_compare_rounds_fails; do
        skip $c "needs a C compiler for scripts/scaleclock.c (LD_PRELOAD) and a build that runs with it: $(head -c 200 cc.out)"
    done
fi

# A verification failure in a build: exit 1, the build named.  (The wrapper
# marks its results failed after the run, as a wrong kernel would.)
cat >wrong.sh <<WRAP
#!/bin/sh
out=
prev=
for a in "\$@"; do [ "\$prev" = --output ] && out=\$a; prev=\$a; done
"$G" "\$@"
sed -i 's/"check":	"pass"/"check":	"fail"/' "\$out"
exit 1
WRAP
chmod +x wrong.sh
expect_exit check_fails 1 "$G" ab "$G" ./wrong.sh $tiny $few -o wrong --quiet
expect_grep check_named "NEW (./wrong.sh) failed verification" "$WORK/err"

# Bad input: exit 2, one line.
expect_exit missing_build 2 "$G" ab ./nope "$G" $tiny -o bad1
printf 'not a program\n' >plain.txt
expect_exit not_executable 2 "$G" ab "$G" plain.txt $tiny -o bad2
expect_exit not_gemmbench 2 "$G" ab "$G" /bin/true $tiny -o bad3
expect_grep not_gemmbench_said "is not gemmbench" "$WORK/err"
expect_exit refused_option 2 "$G" ab "$G" "$G" --variant nosuch -o bad4 --quiet
expect_grep refused_relayed "unknown variant or family 'nosuch'" "$WORK/err"
expect_exit too_few_rounds 2 "$G" ab "$G" "$G" $tiny --rounds 5 -o bad5
expect_exit round_refused 2 "$G" ab "$G" "$G" $tiny --round 2 -o bad6
expect_exit one_build 2 "$G" ab "$G"
expect_exit bad_format 2 "$G" ab "$G" "$G" $tiny --format csv -o bad7
# A program that says it is gemmbench but writes another schema.
cat >fake.sh <<'WRAP'
#!/bin/sh
[ "$1" = --version ] && { echo "gemmbench 9.9"; exit 0; }
out=
prev=
for a in "$@"; do [ "$prev" = --output ] && out=$a; prev=$a; done
printf '{"schema": "other/2", "results": []}\n' >"$out"
WRAP
chmod +x fake.sh
expect_exit other_schema 2 "$G" ab "$G" ./fake.sh $tiny -o bad10 --quiet
expect_grep other_schema_said "schema" "$WORK/err"
# The result files cannot be written: an I/O error, 3.
expect_exit output_unwritable 3 "$G" ab "$G" "$G" $tiny -o "$WORK/no/such/dir/x" --quiet

# Turns (--interleave entry, the default): a build with an entry the other
# lacks measures it alone and the rest stay paired; a build older than
# --lockstep (here: a wrapper that refuses it) gets one build after the other.
cat >extra.sh <<WRAP
#!/bin/sh
exec "$G" "\$@" --variant k8,baseline
WRAP
chmod +x extra.sh
expect_verdict turns_extra_entry "$G" ab "$G" ./extra.sh $tiny $few -o extra
expect_grep turns_extra_listed "0 entries measured by OLD only, 1 by NEW only" "$WORK/err"
expect_grep turns_extra_paired "k8 .* 8r/8r" "$WORK/out"
cat >old.sh <<WRAP
#!/bin/sh
for a in "\$@"; do [ "\$a" = --lockstep ] && { echo "unknown option --lockstep" >&2; exit 2; }; done
exec "$G" "\$@"
WRAP
chmod +x old.sh
# (Run one build after the other, a tiny sweep's gate may find an order
# effect: the point is that ab runs it and says so, not the verdict.)
expect_verdict turns_old_build "$G" ab ./old.sh "$G" $tiny $few -o oldb
expect_grep turns_old_build_said "OLD './old.sh' cannot take turns" "$WORK/err"
# A build older than --min-time: neither gets ab's default, with a note; the
# user's own --min-time goes to both.
cat >oldmt.sh <<WRAP
#!/bin/sh
for a in "\$@"; do [ "\$a" = --min-time ] && { echo "unknown option --min-time" >&2; exit 2; }; done
exec "$G" "\$@"
WRAP
chmod +x oldmt.sh
# (Its verdict is not the point: 1 call a round of an unchanged entry, on a
# machine busy with other tests, may fail the gate now and then.)
expect_verdict min_time_old_build "$G" ab "$G" ./oldmt.sh $entry $few -o oldmt
expect_grep min_time_old_said "NEW './oldmt.sh' is older than --min-time" "$WORK/err"
expect_grep min_time_old_none '"min_time_s":	0,' oldmt-old.json
expect_verdict min_time_given "$G" ab "$G" "$G" $entry $few --min-time 0.1 -o mtg --quiet
expect_grep min_time_given_passed '"min_time_s":	0.1,' mtg-new.json
expect_verdict interleave_round "$G" ab "$G" "$G" $tiny $few --interleave round -o ilr --quiet
expect_grep interleave_round_rounds '"rounds":	8' ilr-new.json
expect_exit interleave_bad 2 "$G" ab "$G" "$G" $tiny --interleave sometimes -o ilb
expect_exit lockstep_refused 2 "$G" ab "$G" "$G" $tiny --lockstep -o ilc
# --lockstep is ab's: on its own, without ab's pipes, it is refused.
expect_exit lockstep_alone 2 "$G" $tiny --lockstep -o alone.json
expect_grep lockstep_alone_said "is for gemmbench ab" "$WORK/err"

# --round and --peak (what ab gives each round's process) are checked.
expect_exit round_past_rounds 2 "$G" $tiny --rounds 2 --round 3 -o bad8.json
expect_exit peak_malformed 2 "$G" $tiny --peak 100,abc -o bad9.json
expect_exit one_round_of_two 0 "$G" $tiny --rounds 2 --round 2 --peak 100,50,avx2 -o r2.json --quiet
expect_grep one_round_tagged '"sample_rounds":	\[2, 2, 2' r2.json
expect_grep one_round_peak_given '"peak_gflops":	100' r2.json

# Interrupted (once both builds have finished two rounds): 130, both files
# kept with what was measured.
expect_interrupted ab_interrupt '"sample_rounds":	\[1, 2' int-new.json \
    "$G" ab "$G" "$G" --variant baseline --kernel qkv --m 16 --reps 40 --warmup 1 --min-time 0 \
    --rounds 40 -o int --quiet
expect_grep ab_interrupt_old_kept '"complete":	false' int-old.json
expect_grep ab_interrupt_new_kept '"complete":	false' int-new.json
