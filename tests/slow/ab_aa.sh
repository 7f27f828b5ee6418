# ab_aa.sh - gemmbench ab of a build against itself (A/A) at ab's defaults
# passes its gate, and compare judges ab's files the same way.  A timing
# test (tests/cli/ab.sh runs the same A/A and needs a verdict, either one):
# beside other load an A/A run fails the gate now and then, so up to three
# tries, each a full ab; a gate that fails A/A every time fails this.
. tests/cli/lib.sh
G=$GEMMBENCH
cd "$WORK" || exit 1
entry="--variant k8 --kernel qkv --m 16 --reps 20 --warmup 1"

for try in 1 2 3; do
    "$G" ab "$G" "$G" $entry -o aa --force --quiet >"$WORK/out" 2>"$WORK/err" </dev/null
    rc=$?
    [ $rc -eq 0 ] && break
done
if [ $rc -eq 0 ] && grep -q 'gate: pass' "$WORK/out"; then
    echo "ok aa_gate_pass (try $try)"
else
    echo "FAIL aa_gate_pass: exit $rc in 3 tries: $(grep 'gate:' "$WORK/out" | head -c 200) $(head -c 300 "$WORK/err")"
fi
# The passing try's files, judged again by compare: passed again.
if [ $rc -eq 0 ]; then
    expect_exit aa_compare_paired_passes 0 "$G" compare --paired aa-old.json aa-new.json
else
    skip aa_compare_paired_passes "no A/A run passed to judge again"
fi
