# threads.sh - --threads LIST: bad lists refused in one line, a two-count run
# on a tiny shape (every parallel entry at each count, the single-thread ones
# once at 1, each count's own peak), counts above the CPUs warned about.
. tests/cli/lib.sh
G=$GEMMBENCH
RUN="--quiet --shape 13x21x9 --reps 3 --warmup 0 --rounds 1"

for bad in 0 1,,2 1, 3-1 -1 ,1 1-2-3 x; do
    expect_exit "threads_refused_$bad" 2 "$G" $RUN --variant parallel --threads "$bad" -o "$WORK/bad.json"
done
[ -e "$WORK/bad.json" ] && echo "FAIL threads_refused_no_file: a refused list left a file" ||
    echo "ok threads_refused_no_file"
printf 'threads = 0\n' >"$WORK/zero.conf"
expect_exit threads_conf_zero_refused 2 "$G" --config "$WORK/zero.conf" $RUN -o "$WORK/z.json"
expect_grep threads_conf_zero_names_line 'zero.conf:1: threads' "$WORK/err"
printf 'threads = 1,,2\n' >"$WORK/empty.conf"
expect_exit threads_conf_empty_element_refused 2 "$G" --config "$WORK/empty.conf" $RUN -o "$WORK/e.json"

# ---- two counts --------------------------------------------------------------
expect_exit threads_two_counts 0 "$G" --shape 13x21x9 --reps 3 --warmup 0 --rounds 2 \
    --variant baseline,parallel,packed,vec_j --threads 1,2 -o "$WORK/two.json"
expect_grep threads_single_thread_note 'single-thread schedules measured once, at 1 thread: baseline, vec_j' "$WORK/err"
expect_grep threads_peak_per_count 'peak .* at 2 threads' "$WORK/err"
expect_grep threads_table_column ' thr ' "$WORK/out"
python3 - "$WORK/two.json" <<'PY' && echo "ok threads_two_counts_json" || echo "FAIL threads_two_counts_json"
import json, sys
d = json.load(open(sys.argv[1]))
got = sorted((r["variant"], r["threads"]) for r in d["results"])
want = sorted([("baseline", 1), ("vec_j", 1), ("parallel", 1), ("parallel", 2),
               ("packed", 1), ("packed", 2)])
assert got == want, got
assert d["run"]["thread_counts"] == [1, 2]
peaks = {p["threads"]: p["gflops"] for p in d["machine"]["peak_gflops_by_threads"]}
assert set(peaks) == {1, 2}
for r in d["results"]:
    assert r["check"] == "pass" and r["rounds"] == 2, r["label"]
    # Each result's %peak is against its own count's peak.
    assert abs(r["peak_pct"] - 100 * r["gflops"] / peaks[r["threads"]]) < 1e-6 * r["peak_pct"]
PY

# One count: as before (every entry at that count, no note, no list).
expect_exit threads_one_count 0 "$G" $RUN --variant baseline,parallel --threads 2 -o "$WORK/one.json"
if grep -q 'single-thread' "$WORK/err" || grep -q thread_counts "$WORK/one.json" ||
    ! python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
assert d["run"]["threads"] == 2 and [r["threads"] for r in d["results"]] == [2, 2]' "$WORK/one.json"; then
    echo "FAIL threads_one_count_unchanged: $(cat "$WORK/err")"
else
    echo "ok threads_one_count_unchanged"
fi

# ---- more threads than CPUs: runs, and says so --------------------------------
cpus=$(nproc)
over=$((cpus + 1))
expect_exit threads_oversubscribed 0 "$G" $RUN --variant parallel --threads "1,$over" -o "$WORK/over.json"
expect_grep threads_oversubscribed_warning "$over threads is more than the $cpus CPU" "$WORK/err"
expect_grep threads_oversubscribed_measured "\"threads\":	$over" "$WORK/over.json"

# ---- ab: a thread list, every entry at each count, judged per count ---------------
# (it used to be refused; every round after the first then measures its own
# peaks, and each merged entry's %peak is against its own count's peak).
expect_exit threads_ab_list_bad 2 "$G" ab "$G" "$G" --shape 13x21x9 --variant parallel --threads 1,,2
expect_grep threads_ab_list_bad_says_why "'1,,2' is not a thread count or list" "$WORK/err"
"$G" ab "$G" "$G" --shape 13x21x9 --variant parallel,baseline --threads 1,2 --rounds 8 \
    --reps 16 --warmup 1 --min-time 0 -o "$WORK/abt" --quiet >"$WORK/out" 2>"$WORK/err" </dev/null
rc=$?
if [ $rc -eq 0 ] || [ $rc -eq 1 ]; then echo "ok threads_ab_list_runs"; else echo "FAIL threads_ab_list_runs: exit $rc: $(head -c 300 "$WORK/err")"; fi
expect_grep threads_ab_list_judged "^parallel .* 2 .*8r/8r" "$WORK/out"
if python3 - "$WORK/abt-old.json" "$WORK/abt-new.json" <<'PY'
import json, sys
for path in sys.argv[1:]:
    d = json.load(open(path))
    peaks = {p["threads"]: p["gflops"] for p in d["machine"]["peak_gflops_by_threads"]}
    got = sorted((r["variant"], r["threads"]) for r in d["results"])
    assert got == [("baseline", 1), ("parallel", 1), ("parallel", 2)], got
    for r in d["results"]:
        assert r["rounds"] == 8 and len(set(r["sample_rounds"])) == 8, r
        want = 100.0 * r["gflops"] / peaks[r["threads"]]
        assert abs(r["peak_pct"] - want) <= 1e-6 * want, (r["threads"], r["peak_pct"], want)
PY
then echo "ok threads_ab_list_per_count"; else echo "FAIL threads_ab_list_per_count"; fi

# ---- --bind: applied (seen from inside a parallel region) and recorded ----------
expect_exit bind_refused 2 "$G" $RUN --variant parallel --bind tight -o "$WORK/bt.json"
# bind_json FILE POLICY PROC_BIND BOUND: run.openmp.bind and every result say so.
bind_json() {
    python3 - "$@" <<'PY'
import json, sys
path, policy, proc_bind, bound = sys.argv[1:5]
d = json.load(open(path))
b = d["run"]["openmp"]["bind"]
assert b["policy"] == policy, b
for p in b["placement"]:
    assert p["proc_bind"] == proc_bind, p
    assert len(p["cpus"]) == p["threads"] and all(c >= 0 for c in p["cpus"]), p
    if bound == "yes":
        # bound: every thread has a place, and two threads two places (CPUs)
        assert all(x >= 0 for x in p["places"]) and len(set(p["places"])) == p["threads"], p
        assert len(set(p["cpus"])) == p["threads"], p
    else:
        assert all(x == -1 for x in p["places"]), p
assert all(r["bind"] == policy for r in d["results"])
# the bound runtime pins the first thread; the process still has every CPU
assert d["machine"]["affinity_cpus"] == int(sys.argv[5]), d["machine"]["affinity_cpus"]
PY
}
if [ "$cpus" -ge 2 ]; then
    for p in close spread; do
        expect_exit "bind_$p" 0 "$G" $RUN --variant parallel --threads 1,2 --bind $p -o "$WORK/b$p.json"
        bind_json "$WORK/b$p.json" $p $p yes "$cpus" && echo "ok bind_${p}_applied" || echo "FAIL bind_${p}_applied"
    done
else
    skip bind_close_applied "one CPU"
fi
# OpenBLAS's own pthreads follow the binding: bound, no thread but the
# primary is pinned to the primary's CPU (before, OpenBLAS's worker inherited
# it and the two shared one CPU).  The threads' masks are read from /proc
# while a long measurement runs.
if [ "$cpus" -ge 2 ] && [ -d /proc/self/task ] && "$G" --list 2>/dev/null | grep -q '^openblas '; then
    "$G" --variant openblas --shape 384x768x3072 --threads 2 --bind close --reps 100000 \
        --max-time 4 --rounds 1 --quiet -o "$WORK/bob.json" >/dev/null 2>&1 &
    ob=$!
    masks=""
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        sleep 0.3
        # The re-executed process keeps the pid: its threads once OpenBLAS's exist.
        n=$(ls /proc/$ob/task 2>/dev/null | wc -l)
        if [ "$n" -ge 3 ]; then
            masks=$(for t in /proc/$ob/task/*; do
                grep '^Cpus_allowed_list' "$t/status" 2>/dev/null | cut -f2; done)
            break
        fi
    done
    kill $ob 2>/dev/null
    wait $ob 2>/dev/null
    first=$(echo "$masks" | head -1)
    same=$(echo "$masks" | grep -cx -- "$first")
    if [ -z "$masks" ]; then
        echo "FAIL bind_openblas_follows: no OpenBLAS threads seen"
    elif [ "$same" -eq 1 ]; then
        echo "ok bind_openblas_follows"
    else
        echo "FAIL bind_openblas_follows: $same threads on the primary's CPUs ($first): $(echo $masks)"
    fi
else
    skip bind_openblas_follows "one CPU or no OpenBLAS"
fi
OMP_PROC_BIND=spread "$G" $RUN --variant parallel --threads 1 -o "$WORK/buser.json" >/dev/null 2>&1
bind_json "$WORK/buser.json" user spread yes "$cpus" && echo "ok bind_user_env_kept" || echo "FAIL bind_user_env_kept"
OMP_PROC_BIND=spread "$G" $RUN --variant parallel --threads 1 --bind none -o "$WORK/bnone.json" >/dev/null 2>&1
bind_json "$WORK/bnone.json" none false no "$cpus" && echo "ok bind_none_overrides_env" || echo "FAIL bind_none_overrides_env"
env -u OMP_PROC_BIND -u OMP_PLACES "$G" $RUN --variant parallel --threads 1 -o "$WORK/bdef.json" >/dev/null 2>&1
bind_json "$WORK/bdef.json" default false no "$cpus" && echo "ok bind_default_unbound" || echo "FAIL bind_default_unbound"

# ---- interrupted mid-list: the counts measured so far are kept ---------------------
expect_interrupted threads_interrupt '"variant":	"vec_j"' "$WORK/tint.json" \
    "$G" --variant parallel,vec_j --kernel mlp_expand --m 16,384 --threads 1,2 --reps 6 --rounds 2 \
    --max-time 20 --quiet -o "$WORK/tint.json"
python3 - "$WORK/tint.json" <<'PY' && echo "ok threads_interrupt_kept" || echo "FAIL threads_interrupt_kept"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["complete"] is False
got = {(r["variant"], r["threads"]) for r in d["results"]}
assert ("parallel", 1) in got and ("parallel", 2) in got, got
PY
