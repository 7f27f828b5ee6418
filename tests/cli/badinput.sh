# badinput.sh - the malformed inputs of every class (README.md, "Bad input"):
# each is refused with one line and the right exit status, or read with its
# meaning, and never crashes, hangs or leaves an empty or replaced file.
. tests/cli/lib.sh
G=$GEMMBENCH
cd "$WORK" || exit 1
T="--shape 8x8x8 --reps 1 --warmup 0 --quiet"
export GEMMBENCH_RECORDS="$WORK/tuned.json"

# 1. Tuning records with values out of the variant's spec: skipped with a
# warning naming file, record and key; never replayed, never "record".
expect_exit rec_tune_packed 0 "$G" tune --variant packed --shape 8x8x8 --trials 2 --reps 1 --quiet
expect_exit rec_tune_rule 0 "$G" tune --variant rule_based --shape 8x8x8 --trials 2 --reps 1 --quiet
# have_py NAME...: python3 is here; else a named skip for each NAME (the
# checks below read files it writes: without them a refusal of a missing
# file would pass for the refusal under test).
have_py() {
    command -v python3 >/dev/null 2>&1 && return 0
    for n in "$@"; do skip "$n" "needs python3 (writes the file under test)"; done
    return 1
}
for bad in 'packed isa 3' 'rule_based unroll_ki 7' 'packed mc -100' 'rule_based tk -8' \
           'rule_based tm 1e12' 'rule_based bogus 4'; do
    set -- $bad
    have_py "rec_${1}_${2}_runs" "rec_${1}_${2}_warned" "rec_${1}_${2}_rule" || continue
    rm -f bad.json
    python3 - "$1" "$2" "$3" <<'PY'
import json, sys
base, key, value = sys.argv[1], sys.argv[2], sys.argv[3]
d = json.load(open("tuned.json"))
for r in d["records"]:
    if r["base"] == base:
        r["params"][key] = json.loads(value)
open("bad.json", "w").write(json.dumps(d))
PY
    v=tuned
    [ "$1" = packed ] && v=tuned_packed
    expect_exit "rec_${1}_${2}_runs" 0 env GEMMBENCH_RECORDS="$WORK/bad.json" "$G" --variant $v $T -o "$WORK/rec.json" --force
    expect_grep "rec_${1}_${2}_warned" "bad.json: records\[[01]\]: params.$2" "$WORK/err"
    expect_grep "rec_${1}_${2}_rule" "\"source\":	\"rule\"" "$WORK/rec.json"
done
# Re-tuning over a file with a skipped record keeps that record as it was
# (bad.json: the loop's last, written by python3).
if have_py rec_retune rec_retune_says_kept rec_retune_bad_kept rec_retune_all_kept; then
expect_exit rec_retune 0 env GEMMBENCH_RECORDS="$WORK/bad.json" "$G" tune --variant rule_based --shape 9x8x8 --trials 2 --reps 1 --quiet
expect_grep rec_retune_says_kept "kept in the file as they are" "$WORK/err"
expect_grep rec_retune_bad_kept '"bogus"' "$WORK/bad.json"
n=$(grep -c '"base":' "$WORK/bad.json")
if [ "$n" -eq 3 ]; then echo "ok rec_retune_all_kept"; else echo "FAIL rec_retune_all_kept: $n records"; fi
fi
# tune with no writable records path fails before searching.
expect_exit rec_unwritable 3 env GEMMBENCH_RECORDS="$WORK/no/such/dir/t.json" "$G" tune --variant rule_based --shape 8x8x8 --trials 2 --reps 1 --quiet
expect_grep rec_unwritable_early "cannot write records" "$WORK/err"

# 2. Lists: empty elements, a key twice, a value that means nothing.
expect_exit list_m_double_comma 2 "$G" $T --variant baseline --m 16,,32 --kernel qkv
expect_exit list_m_trailing 2 "$G" $T --variant baseline --m 16, --kernel qkv
expect_exit list_variant_empty 2 "$G" $T --variant baseline,,ktile
expect_grep list_variant_says_empty "empty element" "$WORK/err"
expect_exit list_param_empty 2 "$G" $T --variant rule_based --param ''
expect_exit list_param_twice 2 "$G" $T --variant rule_based --param tk=4,tk=16
expect_exit list_bpack_prepacked 2 "$G" $T --variant packed --param bpack=prepacked
long=$(printf 'x%.0s' $(seq 1 300))
expect_exit list_long_variant 2 "$G" $T --variant "baseline,$long"
expect_grep list_long_reason_kept "longer than 255" "$WORK/err"
printf 'm = 16,,32\n' >empty.conf
expect_exit list_conf_empty 2 "$G" $T --config empty.conf --variant baseline
printf '[kernel foo bar]\nk = 8\nn = 8\n' >sec1.conf
expect_exit conf_section_two_names 2 "$G" $T --config sec1.conf --variant baseline
printf '[kernel foo]]\nk = 8\nn = 8\n' >sec2.conf
expect_exit conf_section_two_brackets 2 "$G" $T --config sec2.conf --variant baseline
expect_exit csv_run 0 "$G" $T --variant rule_based --param tm=4,tn=8 --format csv -o "$WORK/c.json"
if ! have_py csv_label_quoted; then :
elif python3 -c 'import csv,sys; rows=list(csv.reader(open(sys.argv[1]))); sys.exit(any(len(r) != len(rows[0]) for r in rows))' "$WORK/out"; then
    echo "ok csv_label_quoted"; else echo "FAIL csv_label_quoted: $(cat "$WORK/out")"; fi
expect_exit a_json 0 "$G" $T --variant baseline -o "$WORK/a.json"
expect_exit filter_empty_compare 2 "$G" compare --variant baseline, "$WORK/a.json" "$WORK/c.json"
expect_exit filter_empty_report 2 "$G" report --kernel ,custom "$WORK/a.json"

# 3. stdout on a full device is an I/O error for every command.
for args in "--list" "--help" "--version" "$T --variant baseline -o $WORK/f1.json" \
            "$T --variant baseline -o $WORK/f2.json --format json" \
            "$T --variant baseline -o $WORK/f3.json --format csv" \
            "compare $WORK/a.json $WORK/a.json" "report $WORK/a.json" "info" \
            "tune --variant rule_based --shape 8x8x8 --trials 2 --reps 1 --records $WORK/full-rec.json"; do
    name=full_$(echo "$args" | tr -cs 'a-z' _ | cut -c1-30)
    # shellcheck disable=SC2086
    "$G" $args >/dev/full 2>"$WORK/err"
    rc=$?
    if [ "$rc" -eq 3 ]; then echo "ok $name"; else echo "FAIL $name: exit $rc"; fi
done
[ -s "$WORK/f1.json" ] && echo "ok full_result_kept" || echo "FAIL full_result_kept"
# A disk full at the first write, and a read-only target: both exit 3, and
# no empty result file is left.  Needs a small tmpfs (root); skipped without.
mkdir small
if mount -t tmpfs -o size=8k tmpfs small 2>/dev/null; then
    dd if=/dev/zero of=small/fill bs=1k count=8 2>/dev/null
    expect_exit disk_full_exit 3 "$G" $T --variant baseline -o small/r.json
    [ -e small/r.json ] && echo "FAIL disk_full_no_empty_file" || echo "ok disk_full_no_empty_file"
    rm -f small/fill
    mount -o remount,ro small
    expect_exit read_only_exit 3 "$G" $T --variant baseline -o small/r.json
    umount small
else
    skip disk_full_exit "cannot mount a tmpfs"
fi

# A signal as soon as the file is claimed (before any measurement): a
# document saying "complete": false, never an empty file.
"$G" --variant baseline --shape 512x512x512 --reps 50 --quiet -o "$WORK/sig.json" >/dev/null 2>&1 &
pid=$!
i=0
while [ $i -lt 200 ] && [ ! -e "$WORK/sig.json" ]; do sleep 0.05; i=$((i + 1)); done
kill -INT $pid
wait $pid
rc=$?
if [ $rc -eq 130 ] && grep -q '"complete":	false' "$WORK/sig.json"; then echo "ok signal_before_first_write"
else echo "FAIL signal_before_first_write: exit $rc, $(wc -c <"$WORK/sig.json") bytes"; fi

# 4. Files that are not regular: never replaced, never read (no hang).
mkfifo fifo
expect_exit nonreg_output_fifo 2 "$G" $T --variant baseline -o fifo --force
expect_exit nonreg_output_dir 2 "$G" $T --variant baseline -o "$WORK" --force
[ -p fifo ] && echo "ok nonreg_fifo_kept" || echo "FAIL nonreg_fifo_kept"
expect_exit nonreg_config_fifo 2 timeout 20 "$G" $T --config fifo
expect_exit nonreg_compare_fifo 2 timeout 20 "$G" compare fifo "$WORK/a.json"
expect_exit nonreg_report_fifo 2 timeout 20 "$G" report fifo
expect_exit nonreg_report_dev 2 timeout 20 "$G" report /dev/zero
expect_exit io_missing_dir 3 "$G" $T --variant baseline -o "$WORK/no/such/dir/r.json"

# 5. JSON: garbage or a second document after it, duplicate keys, overflow.
# (Refused with 2 is what a missing file gets too: the files must be made.)
if have_py json_trail json_trail_compare json_second json_second_compare json_dup \
    json_dup_compare json_inf json_inf_compare; then
expect_true json_files_made python3 - <<'PY'
import json
t = open("a.json").read()
open("trail.json", "w").write(t + "x")
open("second.json", "w").write(t + t)
open("dup.json", "w").write(t.replace('"schema":', '"schema": "gemmbench/1", "schema":', 1))
d = json.loads(t)
d["results"][0]["median_us"] = "INF"
open("inf.json", "w").write(json.dumps(d).replace('"INF"', "1e999"))
PY
for f in trail second dup inf; do
    expect_exit "json_$f" 2 "$G" report "$WORK/$f.json"
    expect_exit "json_${f}_compare" 2 "$G" compare "$WORK/a.json" "$WORK/$f.json"
done
fi

# 6. Messages and consistency.
printf 'bogus = 1\n' >bench.conf
expect_exit msg_help_broken_conf 0 "$G" --help
expect_exit msg_version_broken_conf 0 "$G" --version
expect_exit msg_list_broken_conf 0 "$G" --list
rm bench.conf
expect_exit msg_force_value 2 "$G" --force=yes
expect_grep msg_force_value_says "'--force' takes no value" "$WORK/err"
expect_exit msg_ambiguous 2 "$G" --co x
expect_grep msg_ambiguous_says "ambiguous" "$WORK/err"
printf '\357\273\277reps = 1\n' >bom.conf
expect_exit msg_bom 0 "$G" $T --config bom.conf --variant baseline -o "$WORK/bom.json"
# A gzip-compressed result file (results/notes keeps them so): named as such.
printf '{}' | gzip -c >"$WORK/r.json.gz"
expect_exit msg_gzip_result 2 "$G" report "$WORK/r.json.gz"
expect_grep msg_gzip_says 'r.json.gz: gzip-compressed; decompress it first' "$WORK/err"
printf 're\001ps = 1\n' >bin.conf
expect_exit msg_binary_conf 2 "$G" $T --config bin.conf --variant baseline
expect_grep msg_binary_escaped 'x01' "$WORK/err"
# More threads than CPUs: said as such, not blamed on a busy machine.
cpus=$(nproc)
expect_exit msg_threads_over 0 "$G" $T --variant baseline --threads $((cpus * 8)) -o "$WORK/th.json"
if grep -q "looks busy" "$WORK/err"; then echo "FAIL msg_threads_not_busy: $(cat "$WORK/err")"; else echo "ok msg_threads_not_busy"; fi
printf 'threads = 0\n' >threads0.conf
expect_exit msg_conf_threads_zero 2 "$G" $T --config threads0.conf --variant baseline
if have_py msg_control_label msg_control_label_escaped msg_control_header_escaped; then
expect_true msg_control_file_made python3 - <<'PY'
import json
d = json.load(open("a.json"))
d["results"][0]["label"] = "bad\u001b[31mlabel\n"
d["machine"]["hostname"] = "host\u001b]0;title\u0007"
open("ctrl.json", "w").write(json.dumps(d))
PY
expect_exit msg_control_label 0 "$G" report "$WORK/ctrl.json"
if grep -q "$(printf '\033')" "$WORK/out"; then echo "FAIL msg_control_label_escaped"; else echo "ok msg_control_label_escaped"; fi
"$G" compare "$WORK/a.json" "$WORK/ctrl.json" >"$WORK/out" 2>&1
rc=$?
# compare's verdict (0 or 1) on the same numbers; 2 would print no header.
if [ $rc -gt 1 ] || ! grep -q 'host' "$WORK/out"; then
    echo "FAIL msg_control_header_escaped: compare exit $rc, no header: $(head -c 300 "$WORK/out")"
elif grep -q "$(printf '\033')" "$WORK/out"; then echo "FAIL msg_control_header_escaped"; else echo "ok msg_control_header_escaped"; fi
fi
expect_exit msg_compare_same 0 "$G" compare "$WORK/a.json" "$WORK/a.json"
expect_grep msg_compare_same_says "same file" "$WORK/err"

# 7. Two runs in the same second without -o get two files.
mkdir same && cd same || exit 1
"$G" $T --variant baseline >/dev/null 2>&1 &
"$G" $T --variant baseline >/dev/null 2>&1
wait
n=$(ls results/*.json 2>/dev/null | wc -l)
if [ "$n" -eq 2 ]; then echo "ok default_names_unique"; else echo "FAIL default_names_unique: $n files"; fi
