# history_hostile.sh - a history store is input from anyone who can push to
# its branch: planted links are never followed (the index, a machine's
# folder, the lock), a reader creates nothing, --force replaces only a
# regular file, dates the reader would refuse are never written, series keys
# cannot merge through '/', and hostile bytes in the index (a lowest round of
# 0, \u0000, a raw C1 byte, bytes that are not UTF-8) are refused by line;
# no error message carries a control character.
. tests/cli/lib.sh
G=$GEMMBENCH
cd "$WORK" || exit 1

"$G" --variant vec_j --shape 8x8x8 --reps 5 --warmup 1 --rounds 1 --min-time 0 --quiet \
    -o base.json >/dev/null 2>run.err || { echo "FAIL history_hostile_run: $(head -c 300 run.err)"; exit 0; }
"$G" history add --store st --commit c1 --date 2026-01-01T00:00:00Z base.json >/dev/null 2>&1 ||
    { echo "FAIL history_hostile_store"; exit 0; }
cp st/index.jsonl index.good
machine=$(ls st/runs)

# Links planted in the store.
echo "private text" >private.txt
mv st/index.jsonl index.saved && ln -s "$WORK/private.txt" st/index.jsonl
expect_exit history_link_index 2 "$G" history add --store st --commit c2 --date 2026-01-02T00:00:00Z base.json
expect_grep history_link_index_why "symbolic link, not followed" "$WORK/err"
grep -rq "private text" st/runs && echo "FAIL history_link_index_copied" || echo "ok history_link_index_not_copied"
rm st/index.jsonl && mv index.saved st/index.jsonl
mkdir outside && mv "st/runs/$machine" runs.saved && ln -s "$WORK/outside" "st/runs/$machine"
cp base.json other.json && echo >>other.json   # other bytes: not a duplicate
expect_exit history_link_runs 2 "$G" history add --store st --commit c3 --date 2026-01-03T00:00:00Z other.json
[ -z "$(ls outside)" ] && echo "ok history_link_runs_nothing_outside" || echo "FAIL history_link_runs_nothing_outside"
rm "st/runs/$machine" && mv runs.saved "st/runs/$machine"
rm -f st/.lock && ln -s "$WORK/lock.target" st/.lock
expect_exit history_link_lock_reader 2 "$G" history changes --store st
expect_exit history_link_lock_writer 2 "$G" history add --store st --commit c4 --date 2026-01-04T00:00:00Z other.json
[ ! -e lock.target ] && echo "ok history_link_lock_not_created" || echo "FAIL history_link_lock_not_created"
rm st/.lock
# A reader creates nothing: no lock file in a store that has none.
expect_exit history_reader_no_lock 0 "$G" history changes --store st
[ ! -e st/.lock ] && echo "ok history_reader_creates_nothing" || echo "FAIL history_reader_creates_nothing"

# --force replaces a page, not a FIFO.
mkfifo page.fifo
expect_exit history_html_force_fifo 2 "$G" history html --store st -o page.fifo --force
[ -p page.fifo ] && echo "ok history_html_fifo_kept" || echo "FAIL history_html_fifo_kept"

# Dates whose offset lands outside 1970..9999 in UTC are not written.
expect_exit history_date_before_1970 2 "$G" history add --store st --commit c5 --date 1970-01-01T00:30:00+01:00 other.json
expect_exit history_date_after_9999 2 "$G" history add --store st --commit c5 --date 9999-12-31T23:30:00-01:00 other.json
expect_true history_dates_nothing_written cmp -s index.good st/index.jsonl

# '/' in a machine cannot merge two series.
expect_exit history_slash_machine 0 "$G" history add --store sl --machine "m/x" --commit c1 --date 2026-01-01T00:00:00Z base.json
"$G" history changes --store sl --format json >sl.json
py_check history_slash_key sl.json <<'PY'
import json, sys
keys = [s["series"] for s in json.load(open(sys.argv[1]))["noise"]["per_series"]]
assert keys and all(k.startswith("m%2Fx/") for k in keys), keys
PY

# Hostile bytes in the index, refused by line.
line=$(head -n 1 index.good)
bad() {   # NAME PYTHON-EXPR: the index's line rewritten by EXPR (bytes in, bytes out)
    python3 -c "import sys; l = open(sys.argv[1], 'rb').read().rstrip(b'\n'); open(sys.argv[2], 'wb').write($2 + b'\n')" index.good st/index.jsonl
    expect_exit "$1" 2 "$G" history changes --store st --format json
    expect_grep "${1}_line" "index.jsonl:1:" "$WORK/err"
    if LC_ALL=C grep -q "$(printf '[\001-\037\177]')" "$WORK/err"; then
        echo "FAIL ${1}_message: a control character in the message"
    else
        echo "ok ${1}_message"
    fi
}
if command -v python3 >/dev/null 2>&1; then
    bad history_index_lowest_zero "l.replace(b',\"warm\",', b',\"warm\",1,0,', 1) if False else __import__('re').sub(rb'(\"warm\",[^,]+,)[^,]+', rb'\g<1>0', l, 1)"
    bad history_index_nul_commit "l.replace(b'\"commit\":\"c1\"', b'\"commit\":\"c1\\\\u0000x\"')"
    bad history_index_c1_label "l.replace(b'\"vec_j\"', b'\"vec\\xc2\\x9bj\"')"
    bad history_index_not_utf8 "l.replace(b'\"commit\":\"c1\"', b'\"commit\":\"c1\\xff\"')"
    cp index.good st/index.jsonl
else
    skip history_index_hostile "needs python3"
fi

# A control character in the user's own text never reaches the terminal.
expect_exit history_escape_in_store 2 "$G" history changes --store "$(printf 'no\033[31mstore')"
if LC_ALL=C grep -q "$(printf '\033')" "$WORK/err"; then
    echo "FAIL history_escape_in_message: $(od -c "$WORK/err" | head -3)"
else
    echo "ok history_escape_in_message"
fi
expect_exit history_escape_in_date 2 "$G" history add --store st --date "$(printf '2026\033[2J')" base.json
LC_ALL=C grep -q "$(printf '\033')" "$WORK/err" && echo "FAIL history_escape_in_date_message" ||
    echo "ok history_escape_in_date_message"
