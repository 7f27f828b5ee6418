# ceiling.sh - the packed schedule's command line: --prepack adds separate
# +prepack entries (never mixed with per-call ones), --param isa= is checked,
# a --param ablation runs beside a reference that takes none of its keys,
# and the measured peak reaches `info` and the JSON.
. tests/cli/lib.sh
G=$GEMMBENCH
ROOT=$(pwd)
cd "$WORK" || exit 1
run() { "$G" --quiet --reps 2 --warmup 0 --threads 2 "$@"; }

expect_exit prepack_runs 0 run --variant packed,baseline --shape 33x17x40 --prepack -o "$WORK/p.json"
expect_grep prepack_per_call_row "^packed  " "$WORK/out"
expect_grep prepack_row_labelled "^packed+prepack " "$WORK/out"
expect_grep prepack_json_label '"label":[[:space:]]*"packed+prepack"' "$WORK/p.json"
expect_grep prepack_json_flag '"prepack":[[:space:]]*true' "$WORK/p.json"
# Per-call and prepacked entries: one each for packed, one for baseline.
n=$(grep -c '"variant":' "$WORK/p.json")
if [ "$n" -eq 3 ]; then echo "ok prepack_entry_count"; else echo "FAIL prepack_entry_count: $n entries, expected 3"; fi
if grep -q '^baseline+prepack' "$WORK/out"; then
    echo "FAIL prepack_only_capable: baseline has a +prepack row"
else
    echo "ok prepack_only_capable"
fi
expect_exit prepack_needs_capable_variant 2 run --variant baseline --shape 8x8x8 --prepack -o "$WORK/q.json"
expect_grep prepack_error_says_why "pre-pack" "$WORK/err"

expect_exit isa_bad_choice 2 run --variant packed --shape 8x8x8 --param isa=sse9 -o "$WORK/i.json"
expect_grep isa_bad_choice_named "sse9" "$WORK/err"
expect_exit isa_portable_runs 0 run --variant packed --shape 9x10x11 --param isa=portable -o "$WORK/i.json"
expect_grep isa_recorded '"isa":[[:space:]]*"portable"' "$WORK/i.json"
# A --param set goes to the variants that take its keys; the reference,
# taking none, runs once, unlabelled, beside the ablation.
if "$G" --list 2>/dev/null | grep -q '^ *onednn'; then
    REF=onednn
else
    REF=baseline
fi
expect_exit ablation_beside_reference 0 run --variant packed,$REF --shape 17x9x50 \
    --param bpack=in_place --param bpack=panel -o "$WORK/a.json"
expect_grep ablation_in_place "^packed\[bpack=in_place\] .*pass" "$WORK/out"
expect_grep ablation_panel "^packed\[bpack=panel\] .*pass" "$WORK/out"
n=$(grep -c "^$REF " "$WORK/out")
if [ "$n" -eq 1 ]; then echo "ok ablation_reference_once"; else echo "FAIL ablation_reference_once: $n rows of $REF"; fi
# --param defaults: the variant's own rules as a set, beside its ablation
# (bench-ceiling's ABLATIONS); the reference still runs once.
expect_exit ablation_defaults 0 run --variant packed,$REF --shape 17x9x50 \
    --param defaults --param bpack=panel -o "$WORK/d.json"
expect_grep ablation_defaults_row "^packed  .*pass" "$WORK/out"
expect_grep ablation_defaults_panel "^packed\[bpack=panel\] .*pass" "$WORK/out"
n=$(grep -c "^$REF " "$WORK/out")
if [ "$n" -eq 1 ]; then echo "ok ablation_defaults_reference_once"; else echo "FAIL ablation_defaults_reference_once: $n rows of $REF"; fi
expect_exit ablation_key_nobody_takes 2 run --variant packed,$REF --shape 8x8x8 --param frob=1 \
    -o "$WORK/b.json"
expect_grep ablation_key_named "no selected variant has parameter 'frob'" "$WORK/err"
expect_exit explain_packed 0 "$G" --variant packed --shape 16x768x768 --explain
expect_grep explain_packed_kc "^  kc " "$WORK/out"
expect_grep explain_packed_prefetch "^  B prefetch  *[0-9][0-9]* rows ahead" "$WORK/out"
expect_grep explain_packed_next "^  B next  *the next micro-panel prefetched into L2 .*a share of its rows per A micro-panel" "$WORK/out"
expect_exit explain_packed_next_off 0 "$G" --variant packed --shape 16x768x768 --param bnext=0 --explain
expect_grep explain_packed_next_off_shown "^  B next  *not prefetched (--param)" "$WORK/out"
expect_exit explain_packed_bpf 0 "$G" --variant packed --shape 16x768x3072 --param bpf=5 --explain
expect_grep explain_packed_bpf_shown "^  B prefetch  *5 rows ahead .*(--param)" "$WORK/out"
# bf16 and u8s8 explain their own kernels' plans, not f32's: one plan a
# shape and type, its kc per call and pre-packed.
expect_exit explain_packed_types 0 "$G" --variant packed --dtype f32,bf16,u8s8 --shape 16x768x768 --explain
expect_grep explain_packed_f32 "^packed 16x768x768 (MxKxN), " "$WORK/out"
expect_grep explain_packed_bf16 "^packed 16x768x768 (MxKxN) bf16, " "$WORK/out"
expect_grep explain_packed_u8s8 "^packed 16x768x768 (MxKxN) u8s8, " "$WORK/out"
expect_grep explain_packed_lowp_prepack "^  --prepack: B pre-packed by prepare(); kc [0-9]* (A's micro-panel" "$WORK/out"
n=$(grep -c "^  B prefetch " "$WORK/out")
if [ "$n" -eq 1 ]; then echo "ok explain_packed_types_f32_once"; else echo "FAIL explain_packed_types_f32_once: $n f32 plans"; fi

expect_exit info_peak 0 "$G" info
expect_grep info_peak_line "^peak fp32 .* GFLOP/s on 1 thread" "$WORK/out"
expect_grep info_sustained_fma "^sustained fp32 .* GFLOP/s on 1 thread, FMA loop" "$WORK/out"
expect_grep info_sustained_kernel "^sustained fp32 .* micro-kernel-shaped loop" "$WORK/out"
expect_grep info_forkjoin "^fork/join  *an empty OpenMP region [0-9.]* us on 1 thread" "$WORK/out"
# The line's round trip where two CPUs are there to pin to; none where one.
if [ "$(nproc 2>/dev/null || echo 1)" -ge 2 ]; then
    expect_grep info_cpu_trip "^cpu to cpu  *a cache line from cpu [0-9]* to cpu [0-9]* and back [0-9.]* us" "$WORK/out"
    expect_grep info_team "^  *packed's own threads (an empty call) [0-9.]* us on [0-9]* threads" "$WORK/out"
    expect_exit info_one_cpu 0 taskset -c 0 "$G" info
    if grep -q "^cpu to cpu" "$WORK/out"; then echo "FAIL info_one_cpu_no_trip: a trip on one CPU"; else echo "ok info_one_cpu_no_trip"; fi
    if grep -q "packed's own threads" "$WORK/out"; then echo "FAIL info_one_cpu_no_team: a team on one CPU"; else echo "ok info_one_cpu_no_team"; fi
else
    skip info_cpu_trip "needs 2 usable CPUs"
    skip info_team "needs 2 usable CPUs"
    skip info_one_cpu "needs 2 usable CPUs"
    skip info_one_cpu_no_trip "needs 2 usable CPUs"
    skip info_one_cpu_no_team "needs 2 usable CPUs"
fi
expect_grep json_peak_number '"peak_gflops":[[:space:]]*[0-9]' "$WORK/p.json"
expect_grep json_percent_of_peak '"peak_pct":[[:space:]]*[0-9]' "$WORK/p.json"

# ceiling_report.py: rounds of a one-thread run pooled, against the burst
# peak and the sustained peaks of the `gemmbench info` next to each round.
if command -v python3 >/dev/null 2>&1; then
    REPORT=$ROOT/scripts/ceiling_report.py
    for r in 1 2; do
        "$G" info >"$WORK/one-r$r.info" 2>/dev/null
        run --variant packed --shape 16x8x48 --threads 1 -o "$WORK/one-r$r.json" >/dev/null 2>&1
    done
    expect_exit report_rounds 0 python3 "$REPORT" "$WORK/p.json" "$WORK/one-r1.json" "$WORK/one-r2.json"
    expect_grep report_rounds_pooled "packed .*(4 calls)" "$WORK/out"
    expect_grep report_sustained_fma "sustained FMA loop .* GFLOP/s" "$WORK/out"
    expect_grep report_against_sustained "% of the kernel-shaped loop" "$WORK/out"
    # Headroom, from made-up files: peak 100 GFLOP/s, onednn at 80 and 90
    # on two shapes: geomean share 0.849, so no code beats 0.849x and one
    # share on every shape meets 1.00x at 84.9 % (and, on the Intel kind,
    # packed+prepack's 0.90x at 94.3 %); at one thread onednn at 80 of a
    # burst peak of 100: 1.00x needs 80.0.  No cpu_model: the AMD kind's
    # targets; an Intel one: the Intel kind's (worst shape 1.15x, 70 % of
    # the peak: packed at 0.9 x onednn's 84.9 % is 76.4 %).
    python3 - "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
flops = 2 * 384 * 768 * 3072
machine = {"peak_gflops": 100.0, "peak_gflops_1thread": 100.0, "peak_isa": "avx512"}
run = {"threads": 2, "reps": 5, "warmup": 1, "rounds": 1}
def entry(label, kernel, m, gflops):
    us = flops / (gflops * 1e3)
    return {"label": label, "kernel": kernel, "M": m, "K": 768, "N": 3072,
            "median_us": us, "gflops": gflops, "check": "pass", "samples_us": [us]}
two = [entry(l, "mlp_expand", m, g) for m, o in ((192, 80.0), (384, 90.0))
       for l, g in (("packed", o * 0.9), ("packed+prepack", o), ("onednn", o))]
one = [entry("packed", "mlp_expand", 384, 85.0), entry("onednn", "mlp_expand", 384, 80.0)]
for name, results in (("h2", two), ("h1", one)):
    with open(f"{work}/{name}.json", "w") as f:
        json.dump({"complete": True, "machine": machine, "run": run, "results": results}, f)
intel = dict(machine, cpu_model="Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz")
with open(f"{work}/hi.json", "w") as f:
    json.dump({"complete": True, "machine": intel, "run": run, "results": two}, f)
for name, cpu_id in (("h26", "cpu family 26, model 2, stepping 1"),
                     ("h25", "cpu family 25, model 17, stepping 1")):
    amd = dict(machine, cpu_model="AMD EPYC", cpu_id=cpu_id)
    with open(f"{work}/{name}.json", "w") as f:
        json.dump({"complete": True, "machine": amd, "run": run, "results": two}, f)
PY
    expect_exit report_headroom 0 python3 "$REPORT" "$WORK/h2.json" "$WORK/h1.json"
    expect_grep report_kind_other "^targets of the other kind (the AMD kind's)" "$WORK/out"
    expect_grep report_headroom_bound "no code can beat 0.849x" "$WORK/out"
    expect_grep report_headroom_shares "every shape: 1.00x at 84.9%$" "$WORK/out"
    expect_grep report_headroom_one_thread "target needs 80.0 GFLOP/s, 80.0% of the burst" "$WORK/out"
    expect_grep report_one_thread_met "target packed >= 1.00x onednn's GFLOP/s at mlp_expand M=384: 1.062x met" "$WORK/out"
    expect_grep report_worst_amd "no shape above 1.10x onednn: worst mlp_expand M=384 1.111x.* NOT met" "$WORK/out"
    # Gzip-compressed files (results/notes keeps them so) read as the plain
    # ones; a file that is not a result file: one line, exit 2, nothing on
    # stdout, never a traceback, and the one-thread files are read before
    # the two-thread report is printed.
    python3 "$REPORT" "$WORK/h2.json" >"$WORK/plain.out" 2>&1
    gzip -c "$WORK/h2.json" >"$WORK/h2.json.gz"
    python3 "$REPORT" "$WORK/h2.json.gz" >"$WORK/gz.out" 2>&1
    check report_reads_gzip cmp "$WORK/plain.out" "$WORK/gz.out"
    printf '{"complete": true, "machine": {}, "results": [{"x": 1}]}' >"$WORK/nolabel.json"
    printf '{' >"$WORK/brace.json"
    head -c 40 "$WORK/h2.json.gz" >"$WORK/cut.json.gz"
    for bad in missing.json brace.json nolabel.json cut.json.gz; do
        python3 "$REPORT" "$WORK/$bad" >"$WORK/rb.out" 2>"$WORK/rb.err"
        rc=$?
        if [ $rc -eq 2 ] && [ "$(wc -l <"$WORK/rb.err")" -eq 1 ] &&
            grep -q "^ceiling_report: $WORK/$bad: " "$WORK/rb.err" &&
            ! grep -q Traceback "$WORK/rb.err" && [ ! -s "$WORK/rb.out" ]; then
            echo "ok report_refuses_$bad"
        else
            echo "FAIL report_refuses_$bad: exit $rc: $(head -c 300 "$WORK/rb.err")"
        fi
    done
    python3 "$REPORT" "$WORK/h2.json" "$WORK/brace.json" >"$WORK/rb.out" 2>"$WORK/rb.err"
    check report_bad_one_thread_file_first test $? -eq 2 -a ! -s "$WORK/rb.out"
    # The AMD EPYC of family 26 (machine.cpu_id) is held to its own bar:
    # packed at 0.9x onednn's 84.9 % is 76.4 % of the peak, under 85 %.
    expect_exit report_family26 0 python3 "$REPORT" "$WORK/h26.json"
    expect_grep report_kind_family26 "^targets of the amd family 26 kind: machine.cpu_model AMD EPYC, machine.cpu_id cpu family 26," "$WORK/out"
    expect_grep report_family26_geomean "^target packed <= 0.95x onednn: 1.111x, per-round 1.111x NOT met" "$WORK/out"
    expect_grep report_family26_worst "no shape above 1.05x onednn" "$WORK/out"
    expect_grep report_family26_peak "^target packed >= 85% of the peak (geomean): 76.4% NOT met" "$WORK/out"
    expect_exit report_family25 0 python3 "$REPORT" "$WORK/h25.json"
    expect_grep report_kind_family25 "^targets of the amd kind: machine.cpu_model AMD EPYC, machine.cpu_id cpu family 25," "$WORK/out"
    expect_exit report_intel 0 python3 "$REPORT" "$WORK/hi.json"
    expect_grep report_kind_intel "^targets of the intel kind: machine.cpu_model Intel" "$WORK/out"
    expect_grep report_intel_shares "every shape: 1.00x at 84.9%, 0.90x at 94.3%" "$WORK/out"
    expect_grep report_intel_prepack "^target packed+prepack <= 0.90x onednn: 1.000x, per-round .* NOT met" "$WORK/out"
    expect_grep report_intel_worst "no shape above 1.15x onednn" "$WORK/out"
    expect_grep report_intel_peak "^target packed >= 70% of the peak (geomean): 76.4% met" "$WORK/out"
    # The per-round estimator: packed 100, 130, 160 us in three rounds
    # against onednn's 100, 100, 200: the ratio of the medians is 1.30, the
    # median of the per-round ratios (1.0, 1.3, 0.8) is 1.00; a target is
    # met only when both meet it.
    python3 - "$WORK" <<'PY'
import json, sys
def entry(label, per_round):
    samples = [us for us in per_round for _ in range(2)]
    rounds = [k + 1 for k in range(len(per_round)) for _ in range(2)]
    ordered = sorted(samples)
    return {"label": label, "kernel": "qkv", "M": 16, "K": 768, "N": 768, "check": "pass",
            "median_us": (ordered[2] + ordered[3]) / 2, "gflops": 1.0,
            "samples_us": samples, "sample_rounds": rounds}
doc = {"complete": True, "machine": {"peak_gflops": 100.0, "peak_isa": "avx512"},
       "run": {"threads": 2, "reps": 6, "warmup": 1, "rounds": 3},
       "results": [entry("packed", [100, 130, 160]), entry("onednn", [100, 100, 200])]}
json.dump(doc, open(f"{sys.argv[1]}/pr.json", "w"))
# 1.0004x prints 1.000x: met as printed; 1.0006x prints 1.001x: not.
for name, us in (("near", 1000.4), ("over", 1000.6)):
    doc["results"] = [entry("packed", [us, us]), entry("onednn", [1000.0, 1000.0])]
    json.dump(doc, open(f"{sys.argv[1]}/{name}.json", "w"))
PY
    expect_exit report_per_round 0 python3 "$REPORT" "$WORK/pr.json"
    expect_grep report_per_round_both "^target packed <= 1.00x onednn: 1.300x, per-round 1.000x NOT met" "$WORK/out"
    expect_grep report_per_round_row "^  per-round ratios  *1.000x" "$WORK/out"
    expect_grep report_per_round_worst "worst qkv M=16 1.300x, per-round qkv M=16 1.000x NOT met" "$WORK/out"
    expect_exit report_as_printed 0 python3 "$REPORT" "$WORK/near.json"
    expect_grep report_as_printed_met "^target packed <= 1.00x onednn: 1.000x, per-round 1.000x met" "$WORK/out"
    expect_exit report_as_printed_over 0 python3 "$REPORT" "$WORK/over.json"
    expect_grep report_as_printed_not "^target packed <= 1.00x onednn: 1.001x, per-round 1.001x NOT met" "$WORK/out"
else
    skip report_rounds "no python3"
fi

# The kernels each reference library chose reach the JSON (tool.libraries),
# `info` and the ceiling report, with the variable that forced them: a VM's
# OPENBLAS_CORETYPE=Haswell ran OpenBLAS at half its speed on an AVX-512 CPU
# while the report said nothing.  The environment's OPENBLAS_CORETYPE is
# never changed here: the run records it as it is (forced, or OpenBLAS's own
# choice), and the other case is made as a file for the readers.
if "$G" --list 2>/dev/null | grep -q '^ *openblas ' && [ "$(uname -m)" = x86_64 ]; then
    lib_field() { python3 -c "import json,sys; l=json.load(open(sys.argv[1]))['tool']['libraries']['openblas']; print(l.get(sys.argv[2], ''))" "$@"; }
    expect_exit lib_env_runs 0 "$G" --quiet --reps 1 --warmup 0 --threads 1 --variant openblas \
        --shape 16x16x16 -o "$WORK/env.json"
    expect_true lib_version_recorded test -n "$(lib_field "$WORK/env.json" version)"
    expect_true lib_kernels_recorded test -n "$(lib_field "$WORK/env.json" kernels)"
    # the file of the other case: forced (lf) or OpenBLAS's own choice (lo)
    python3 - "$WORK/env.json" "$WORK/other.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
l = d["tool"]["libraries"]["openblas"]
if l.get("forced_by"):
    l["forced_by"], l["kernels"] = "", "Cooperlake"
else:
    l["forced_by"], l["kernels"] = "OPENBLAS_CORETYPE=Prescott", "Prescott"
json.dump(d, open(sys.argv[2], "w"))
PY
    if [ -n "${OPENBLAS_CORETYPE:-}" ]; then
        cp "$WORK/env.json" "$WORK/lf.json"
        cp "$WORK/other.json" "$WORK/lo.json"
        expect_true lib_forced_by_recorded test "$(lib_field "$WORK/lf.json" forced_by)" = "OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE"
        expect_exit lib_info_forced 0 "$G" info
        expect_grep lib_info_says_forced "^library  *openblas .*OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE forced them" "$WORK/out"
    else
        cp "$WORK/env.json" "$WORK/lo.json"
        cp "$WORK/other.json" "$WORK/lf.json"
        expect_true lib_own_not_forced test -z "$(lib_field "$WORK/lo.json" forced_by)"
        skip lib_info_forced "OPENBLAS_CORETYPE is not set here (never set by a test)"
    fi
    forced=$(lib_field "$WORK/lf.json" forced_by)
    expect_exit lib_report_forced 0 python3 "$ROOT/scripts/ceiling_report.py" "$WORK/lf.json"
    expect_grep lib_report_note "^note: openblas ran the kernels $forced chose" "$WORK/out"
    expect_exit lib_report_own 0 python3 "$ROOT/scripts/ceiling_report.py" "$WORK/lo.json"
    if grep -q '^note: openblas' "$WORK/out"; then
        echo "FAIL lib_report_own_no_note: a note for a library on its own choice"
    else
        echo "ok lib_report_own_no_note"
    fi
    # Between the two files, compare lists what OpenBLAS was told.
    "$G" compare "$WORK/lf.json" "$WORK/lo.json" >"$WORK/cmp.out" 2>&1
    expect_grep lib_compare_lists "tool.libraries.openblas.forced_by" "$WORK/cmp.out"
else
    skip lib_forced "no openblas in this build, or not x86-64"
fi
