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
    expect_exit "unroll_shipped_legal_$(basename "$f" .sched)" 0 "$G" --schedule "$f" \
        --shape 8x8x8 --explain
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
