# help.sh - gemmbench --help lists every command (from main's dispatch table),
# each command's --help answers, and every flag any --help shows is in
# src/settings/SETTINGS.md.
. tests/cli/lib.sh
G=$GEMMBENCH
ROOT=$(pwd)

expect_exit help_top 0 "$G" --help
cp "$WORK/out" "$WORK/top"
# Every command a command file defines (a gb_cmd_NAME of include/command.h),
# so that one dispatched without a line in --help fails here.
commands=$(sed -n 's/^int gb_cmd_\([a-z_]*\)(.*/\1/p' "$ROOT/include/command.h" | grep -vx run)
[ -n "$commands" ] && echo "ok help_commands_found" || echo "FAIL help_commands_found: none in include/command.h"
for c in $commands; do
    expect_grep "help_top_lists_$c" "^ *\(usage: \)\{0,1\}gemmbench $c[ ]" "$WORK/top"
    expect_exit "help_$c" 0 "$G" "$c" --help
    expect_grep "help_${c}_usage" "^usage: gemmbench $c" "$WORK/out"
    cp "$WORK/out" "$WORK/help-$c"
done
cp "$WORK/top" "$WORK/help-run"

# Every flag of every --help is documented beside the code.
missing=""
for f in "$WORK"/help-*; do
    for flag in $(grep -o '^ *\(-[a-zA-Z], \)\{0,1\}--[a-z][a-z-]*' "$f" | sed 's/.*--/--/'); do
        grep -q -- "\`$flag[\` ]" "$ROOT/src/settings/SETTINGS.md" || missing="$missing $flag"
    done
done
[ -z "$missing" ] && echo "ok help_flags_in_settings_doc" ||
    echo "FAIL help_flags_in_settings_doc: not in src/settings/SETTINGS.md:$missing"

# A command's help is its own options: ab's has no run-only flag, run's no ab one.
if grep -q -- '--interleave' "$WORK/help-run" || grep -q -- '--explain' "$WORK/help-ab"; then
    echo "FAIL help_per_command: a flag in the wrong command's help"
else
    echo "ok help_per_command"
fi
# --help anywhere in a subcommand's line, as in a run's.
expect_exit help_after_options 0 "$G" compare --format md --help
expect_grep help_after_options_usage "^usage: gemmbench compare" "$WORK/out"
