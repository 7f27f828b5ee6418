# aa_defaults.sh - the default sweep compares with itself: back-to-back
# sweeps of one build at bench.conf's settings (the selection narrowed to
# three variants of one kernel, to last about a minute) pass `gemmbench
# compare`'s default gate.  A shared machine fails a pair now and then even
# at 5 rounds, so two of three pairs must pass; at `--rounds 1` most pairs
# fail (scripts/aa-defaults.sh, results/README.md).
. tests/cli/lib.sh

VARIANTS=rule_based,packed,tvm_parallel KERNELS=qkv \
    sh scripts/aa-defaults.sh "$WORK/aa" 3 2 >"$WORK/aa.out" 2>&1
status=$?
if [ $status -eq 0 ]; then
    echo "ok aa_defaults_compare_passes ($(tail -n 1 "$WORK/aa.out"))"
else
    echo "FAIL aa_defaults_compare_passes: exit $status: $(tr '\n' ' ' <"$WORK/aa.out" | head -c 400)"
    for f in "$WORK"/aa/*-compare.txt; do
        [ -f "$f" ] && grep -i 'fail' "$f" | head -n 5
    done
fi
