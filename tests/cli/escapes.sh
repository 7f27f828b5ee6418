# escapes.sh - user and file text is never echoed raw to the terminal (issue
# 28, class 8): every message and report shows it as variant lists already
# do (gb_printable: bytes outside printable ASCII as \xNN), and control
# characters in a file's strings, C1 ones (U+009B, bytes C2 9B) included,
# read as '?'.
. tests/cli/lib.sh
G=$GEMMBENCH
E=$(printf 'x\033[31my\302\233z')
SHOWN='x\\x1b\[31my\\xc2\\x9bz'

# clean NAME FILE...: no ESC and no C1 control (C2 80-9F, or a lone 80-9F).
clean() {
    name=$1
    shift
    if cat "$@" | od -An -v -tx1 | tr -s ' \n' '\n\n' |
        awk 'p == "c2" && $1 ~ /^[89]/ { bad = 1 } $1 == "1b" { bad = 1 } { p = $1 }
             END { exit !bad }'; then
        echo "FAIL $name: a raw escape in $*: $(cat -v "$@" | head -c 200)"
    else
        echo "ok $name"
    fi
}

"$G" --quiet --reps 3 --warmup 0 --rounds 1 --shape 13x21x9 --variant baseline --threads 1 \
    -o "$WORK/one.json" >/dev/null 2>&1 || echo "FAIL escapes_seed_run"

expect_exit run_kernel 2 "$G" --kernel "qkv,$E" --quick
clean run_kernel_clean "$WORK/err"
expect_grep run_kernel_shown "unknown kernel '$SHOWN'" "$WORK/err"
expect_exit run_param_value 2 "$G" --variant rule_based --param "tk=$E" --quick
clean run_param_value_clean "$WORK/err"
expect_grep run_param_value_shown "'$SHOWN' is not an integer" "$WORK/err"
expect_exit run_param_choice 2 "$G" --variant rule_based --param "unroll_ki=$E" --quick
clean run_param_choice_clean "$WORK/err"
expect_exit run_param_key 2 "$G" --param "$E=4" --quick
clean run_param_key_clean "$WORK/err"
expect_grep run_param_key_shown "has parameter '$SHOWN'" "$WORK/err"
expect_exit run_threads_element 2 "$G" --threads "1,$E" --quick
clean run_threads_element_clean "$WORK/err"
expect_exit tune_kernel 2 "$G" tune --kernel "$E"
clean tune_kernel_clean "$WORK/err"

expect_exit report_k 2 "$G" report "$WORK/one.json" -k "$E"
clean report_k_clean "$WORK/err"
expect_grep report_k_shown "\-\-kernel '$SHOWN' matches no entry" "$WORK/err"
expect_exit report_v 2 "$G" report "$WORK/one.json" -v "$E"
clean report_v_clean "$WORK/err"
expect_exit report_multi_k 2 "$G" report "$WORK/one.json" "$WORK/one.json" -k "$E"
clean report_multi_k_clean "$WORK/err"
cp "$WORK/one.json" "$WORK/two.json"
expect_exit compare_k 2 "$G" compare "$WORK/one.json" "$WORK/two.json" -k "$E"
clean compare_k_clean "$WORK/err"
expect_exit report_missing_file 2 "$G" report "$WORK/$E.json"
clean report_missing_file_clean "$WORK/err"
cp "$WORK/one.json" "$WORK/$E.json"
expect_exit report_file_name 0 "$G" report "$WORK/$E.json" "a$E=$WORK/one.json"
clean report_file_name_clean "$WORK/out"
expect_exit compare_file_name 0 "$G" compare "$WORK/$E.json" "$WORK/one.json"
clean compare_file_name_clean "$WORK/out" "$WORK/err"
rm "$WORK/$E.json"

# ab: what a build that is not gemmbench printed for --version.
printf '#!/bin/sh\nprintf "\\033[2J\\302\\233\\n"\n' >"$WORK/fake"
chmod +x "$WORK/fake"
expect_exit ab_version_line 2 "$G" ab "$WORK/fake" "$WORK/fake"
clean ab_version_line_clean "$WORK/err"
expect_grep ab_version_line_shown "printed '\\\\x1b\[2J\\\\xc2\\\\x9b'" "$WORK/err"

# C1 controls in a file's hostname, CPU model and CPU id read as '?'.
python3 - "$WORK/one.json" "$WORK/c1.json" <<'PY' || echo "FAIL escapes_c1_file"
import json, sys
d = json.load(open(sys.argv[1]))
d["machine"]["hostname"] = "evil\u009b2Jhost"
d["machine"]["cpu_model"] = "Fake \u009b31m CPU \u0085 caf\u00e9"
d["machine"]["cpu_id"] = "cpu family \u009b2J 26"
json.dump(d, open(sys.argv[2], "w"))
PY
expect_exit c1_report 0 "$G" report "$WORK/c1.json"
clean c1_report_clean "$WORK/out"
expect_grep c1_report_blanked 'Fake ?31m CPU ? café (host evil?2Jhost)' "$WORK/out"
expect_exit c1_report_multi 0 "$G" report "$WORK/c1.json" "$WORK/one.json"
clean c1_report_multi_clean "$WORK/out"
expect_exit c1_compare 0 "$G" compare "$WORK/c1.json" "$WORK/one.json" --format md
clean c1_compare_clean "$WORK/out"
expect_grep c1_compare_cpu_id_blanked 'cpu family ?2J 26' "$WORK/out"

# fleet-report.sh: directory names in its messages and in the report.
expect_exit fleet_dir_message 2 sh scripts/fleet-report.sh "$WORK/$E"
clean fleet_dir_message_clean "$WORK/err"
mkdir -p "$WORK/fleet/$E" "$WORK/fleet/two"
cp "$WORK/one.json" "$WORK/fleet/$E/r.json"
cp "$WORK/one.json" "$WORK/fleet/two/r.json"
expect_exit fleet_dir_names 0 env GEMMBENCH="$G" sh scripts/fleet-report.sh --by-dir \
    "$WORK/fleet"
clean fleet_dir_names_clean "$WORK/out"
expect_grep fleet_dir_names_shown "^  $SHOWN: " "$WORK/out"

# The -o path in run's messages: a missing directory, an existing file.
expect_exit run_output_missing_dir 3 "$G" --quick --variant baseline --kernel qkv \
    -o "$WORK/$E/out.json"
clean run_output_missing_dir_clean "$WORK/err"
expect_grep run_output_missing_dir_shown "cannot create .*$SHOWN/out.json" "$WORK/err"
: >"$WORK/$E.json"
expect_exit run_output_exists 2 "$G" --quick --variant baseline --kernel qkv -o "$WORK/$E.json"
clean run_output_exists_clean "$WORK/err"
expect_grep run_output_exists_shown "$SHOWN.json exists" "$WORK/err"
