# ab_bad.sh - issue 28, class 3: ab bounds every probe of a build in time,
# refuses output paths it could not replace before the first round, reads
# its own options in every form getopt_long takes (-oPREFIX, --hel, -qh)
# instead of handing them to the builds, and prints its help for
# `ab OLD NEW --help`.
. tests/cli/lib.sh
G=$GEMMBENCH
cd "$WORK" || exit 1
tiny="--variant k8 --kernel qkv --m 16 --reps 8 --warmup 0 --min-time 0 --rounds 8 --quiet"

# A build that answers --version but hangs on anything else: ab gives up on
# it (within its 10 s) rather than wait for ever.
cat >hang.sh <<EOF
#!/bin/sh
[ "\$1" = --version ] && exec "$G" --version
exec sleep 600
EOF
chmod +x hang.sh
# (The bound is 10 s; GEMMBENCH_AB_PROBE_TIMEOUT sets it, here to 2 s.)
started=$(date +%s)
GEMMBENCH_AB_PROBE_TIMEOUT=2 expect_exit ab_probe_hang_refused 2 timeout 60 "$G" ab ./hang.sh "$G" $tiny -o hang
expect_grep ab_probe_hang_says "OLD './hang.sh' answered --version but not --help within 2 s" "$WORK/err"
took=$(($(date +%s) - started))
if [ "$took" -lt 8 ]; then echo "ok ab_probe_hang_bounded"; else echo "FAIL ab_probe_hang_bounded: ${took} s"; fi

# -o P --force over something that is not a regular file: refused at once.
mkfifo fifo-old.json
expect_exit ab_output_fifo_refused 2 timeout 60 "$G" ab "$G" "$G" $tiny -o fifo --force
expect_grep ab_output_fifo_says "fifo-old.json is a device, FIFO or socket" "$WORK/err"
mkdir dir-new.json
expect_exit ab_output_dir_refused 2 timeout 60 "$G" ab "$G" "$G" $tiny -o dir --force
expect_grep ab_output_dir_says "dir-new.json is a directory" "$WORK/err"
if [ -p fifo-old.json ] && [ -d dir-new.json ] && [ ! -e dir-old.json ]; then
    echo "ok ab_output_nothing_written"
else
    echo "FAIL ab_output_nothing_written: $(ls)"
fi

# -oPREFIX, attached, is ab's prefix (it was passed to the builds and ignored).
# (A/A: the gate's verdict is the noise's, either one; the prefix is tested.)
expect_verdict ab_attached_prefix timeout 300 "$G" ab "$G" "$G" $tiny -oattached
expect_true ab_attached_prefix_old test -s attached-old.json
expect_true ab_attached_prefix_new test -s attached-new.json
# An abbreviation of --output is ab's too: the FIFO above is refused.
expect_exit ab_abbreviated_output 2 timeout 60 "$G" ab "$G" "$G" $tiny --outp=fifo --force
expect_grep ab_abbreviated_output_says "fifo-old.json is a device, FIFO or socket" "$WORK/err"

# The help, however asked for, and before the builds are checked.
expect_exit ab_help_after_builds 0 "$G" ab "$G" "$G" --help
expect_grep ab_help_after_builds_says "^usage: gemmbench ab OLD NEW" "$WORK/out"
expect_exit ab_help_abbreviated 0 timeout 60 "$G" ab "$G" "$G" --hel
expect_grep ab_help_abbreviated_says "^usage: gemmbench ab OLD NEW" "$WORK/out"
expect_exit ab_help_grouped 0 timeout 60 "$G" ab "$G" "$G" -qh
expect_grep ab_help_grouped_says "^usage: gemmbench ab OLD NEW" "$WORK/out"
expect_exit ab_help_before_bad_value 0 "$G" ab "$G" "$G" --help --rounds 2
expect_exit ab_help_one_build 0 "$G" ab "$G" --help
expect_grep ab_help_one_build_says "^usage: gemmbench ab OLD NEW" "$WORK/out"
expect_exit ab_ambiguous_refused 2 "$G" ab "$G" "$G" --r 8
expect_grep ab_ambiguous_says "option '--r' is ambiguous" "$WORK/err"
