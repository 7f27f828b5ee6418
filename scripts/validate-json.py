#!/usr/bin/env python3
"""Validates a gemmbench result file: the fields of schema gemmbench/1 that
every file has (results/FORMAT.md describes them all).

Usage: scripts/validate-json.py FILE.json [--complete] [--min-results N]
Exit 0 when valid, 1 with one line per problem otherwise.  Independent of the
C reader on purpose: a second implementation of the schema.
"""
import json
import math
import sys

TOP = {"schema": str, "complete": bool, "tool": dict, "machine": dict, "run": dict,
       "results": list}
TOOL = ["version", "git", "compiler", "cflags"]
MACHINE = ["hostname", "cpu_model", "logical_cpus", "isa", "caches", "peak_gflops"]
RUN = ["started", "command", "threads", "warmup", "reps", "config"]
RESULT = {"variant": str, "family": str, "kernel": str, "M": int, "K": int, "N": int,
          "threads": int, "reps": int, "median_us": float, "min_us": float,
          "mean_us": float, "stddev_us": float, "gflops": float, "check": str,
          "params": dict, "samples_us": list}


def roof_problems(i, r):
    """The roofline fields (src/measure/bandwidth.md), when present: cache is warm or
    cold, intensity a positive number, roof_pct = 100 gflops / attainable."""
    out = []
    if r.get("cache", "warm") not in ("warm", "cold"):
        out.append(f"results[{i}].cache is {r['cache']!r}")
    if "intensity" in r and not (isinstance(r["intensity"], (int, float))
                                 and math.isfinite(r["intensity"]) and r["intensity"] > 0):
        out.append(f"results[{i}].intensity is not a positive number")
    att, pct = r.get("attainable_gflops"), r.get("roof_pct")
    if (att is None) != (pct is None):
        out.append(f"results[{i}]: attainable_gflops and roof_pct are not both set or both null")
    elif att is not None and (att <= 0 or abs(pct - 100.0 * r["gflops"] / att) > 1e-6 * max(pct, 1)):
        out.append(f"results[{i}]: roof_pct is not 100 * gflops / attainable_gflops")
    return out


def levels_problems(lv):
    """machine.bandwidth.levels, when present: the sweep's points (ascending sizes,
    positive rates) and per level the reported, measured and used sizes, the used one
    the measured or the reported one (or 0: none), with its reason."""
    if lv is None:
        return []
    if not isinstance(lv, dict):
        return ["machine.bandwidth.levels is not an object"]
    out = []
    sizes, rates = lv.get("bytes"), lv.get("read_gbs")
    if not (isinstance(sizes, list) and isinstance(rates, list) and len(sizes) == len(rates)):
        return ["machine.bandwidth.levels: bytes and read_gbs are not lists of one length"]
    if any(not isinstance(v, (int, float)) or v <= 0 for v in sizes + rates):
        out.append("machine.bandwidth.levels: a size or rate is not a positive number")
    elif sizes != sorted(sizes):
        out.append("machine.bandwidth.levels.bytes is not ascending")
    for name in ("L1d", "L2", "L3"):
        one = lv.get(name)
        if not isinstance(one, dict):
            out.append(f"machine.bandwidth.levels.{name} is missing")
            continue
        used, rep, mea = one.get("used_bytes"), one.get("reported_bytes"), one.get("measured_bytes")
        if not isinstance(one.get("why"), str) or not one["why"]:
            out.append(f"machine.bandwidth.levels.{name}.why is missing")
        if used not in (rep, mea, 0):
            out.append(f"machine.bandwidth.levels.{name}.used_bytes is neither the reported "
                       "nor the measured size")
    return out


def slurm_problems(s):
    """machine.slurm, when present: the job that ran the file (results/FORMAT.md)."""
    if s is None:
        return []
    if not isinstance(s, dict):
        return ["machine.slurm is not an object"]
    out = []
    for key in ("job_id", "array_job_id", "array_task_id"):
        v = s.get(key, "missing")
        if not (v is None or (isinstance(v, int) and not isinstance(v, bool) and v >= 0)):
            out.append(f"machine.slurm.{key} is neither null nor a whole number")
    if s.get("job_id") is None:
        out.append("machine.slurm.job_id is null")
    if (s.get("array_job_id") is None) != (s.get("array_task_id") is None):
        out.append("machine.slurm: array_job_id and array_task_id are not both set or both null")
    for key in ("node", "partition"):
        if not isinstance(s.get(key), str):
            out.append(f"machine.slurm.{key} missing or not a string")
    cpus = s.get("cpus")
    if not (isinstance(cpus, int) and not isinstance(cpus, bool) and cpus >= 1):
        out.append("machine.slurm.cpus is not a positive whole number")
    return out


def calibration_problems(c):
    """machine.calibration, when present: packed's calibration per thread count."""
    if c is None:
        return []
    if not isinstance(c, list):
        return ["machine.calibration is not an array"]
    out = []
    for i, e in enumerate(c):
        where = f"machine.calibration[{i}]"
        if not isinstance(e, dict):
            out.append(f"{where} is not an object")
            continue
        t = e.get("threads")
        if not (isinstance(t, int) and not isinstance(t, bool) and t >= 1):
            out.append(f"{where}.threads is not a positive whole number")
        source = e.get("source")
        if source not in ("measured", "cached", "forced", "default"):
            out.append(f"{where}.source is not measured, cached, forced or default")
            continue
        # the threads' cost: both or neither, positive, measured or cached
        # at more than one thread (absent in files before 2026-12-05 23:00)
        small = [e.get(k) for k in ("small_us", "small_t_us")]
        if small != [None, None] and (
                not all(isinstance(x, (int, float)) and not isinstance(x, bool) and x > 0
                        for x in small)
                or source not in ("measured", "cached") or not (isinstance(t, int) and t >= 2)):
            out.append(f"{where}: small_us and small_t_us not both positive, measured or "
                       "cached at more than one thread")
        # copied exactly when in place took more than this over copied;
        # bfar's threshold was 1.0 before 2026-12-05 and is 1.02 since,
        # which a file does not say: off only above 1.0, on only up to 1.02
        for q, above, answers in (("b", 1.10, ("in_place", "copied")),
                                  ("a", 1.10, ("in_place", "copied")),
                                  ("bcopy", 1.0, ("in_place", "copied")),
                                  ("bprefetch", 1.0, ("l1", "l2")),
                                  ("kc", 1.0, ("l1_half", "l1_ways")),
                                  ("bnear", 1.0, ("in_place", "copied")),
                                  ("bfar", 1.0, ("on", "off")),
                                  ("kcplaces", 1.0, ("on", "off")),
                                  ("bmany", 1.0, ("in_place", "copied")),
                                  ("bnearnext", 1.02, ("on", "off"))):
            a = e.get(q)
            if q in ("bcopy", "bprefetch", "kc", "bnear", "bfar", "kcplaces", "bmany",
                     "bnearnext") and a is None:
                continue  # files of the method before them
            if not isinstance(a, dict) or a.get("read") not in answers:
                out.append(f"{where}.{q}.read is neither {answers[0]} nor {answers[1]}")
                continue
            if "same_plan" in a:
                # nothing timed: both answers made one plan at its shapes
                if a["same_plan"] is not True or a["read"] != answers[0] or \
                        source not in ("measured", "cached") or \
                        any(k in a for k in ("ratio_p10", "ratio", "ratio_p90")):
                    out.append(f"{where}.{q}.same_plan is not true with read {answers[0]}, "
                               "no ratios, measured or cached")
                continue
            if source in ("measured", "cached"):
                r = [a.get(k) for k in ("ratio_p10", "ratio", "ratio_p90")]
                if not all(isinstance(x, (int, float)) and x > 0 for x in r) or not r[0] <= r[1] <= r[2]:
                    out.append(f"{where}.{q}: ratio_p10 <= ratio <= ratio_p90, all positive, does not hold")
                elif q == "bfar":
                    if (a["read"] == "off" and not r[1] > 1.0) or (a["read"] == "on" and r[1] > 1.02):
                        out.append(f"{where}.bfar.read is off at ratio <= 1.0 or on above 1.02")
                elif (a["read"] == answers[1]) != (r[1] > above):
                    out.append(f"{where}.{q}.read is not {answers[1]} exactly when ratio > {above}")
    return out


DTYPES = ("f32", "bf16", "u8s8")


def dtype_problems(doc):
    """The type axis (--dtype), every part optional (older files have none):
    results' "dtype" one of DTYPES and "impl" a string, the top-level
    "skipped" a list of {variant, dtype, reason} strings, and
    machine.dtype_peaks per non-f32 type {unit, peak, peak_1thread, isa,
    by_threads}."""
    problems = []
    for i, r in enumerate(doc["results"]):
        if "dtype" in r and r["dtype"] not in DTYPES:
            problems.append(f"results[{i}].dtype is {r['dtype']!r}, not one of "
                            + ", ".join(DTYPES))
        if "impl" in r and not isinstance(r["impl"], str):
            problems.append(f"results[{i}].impl is not a string")
    skipped = doc.get("skipped")
    if skipped is not None:
        if not isinstance(skipped, list):
            problems.append("skipped is not an array")
        else:
            for i, s in enumerate(skipped):
                if not (isinstance(s, dict) and all(isinstance(s.get(k), str)
                                                    for k in ("variant", "dtype", "reason"))):
                    problems.append(f"skipped[{i}] is not {{variant, dtype, reason}} strings")
                elif s["dtype"] not in DTYPES:
                    problems.append(f"skipped[{i}].dtype is {s['dtype']!r}")
    peaks = doc["machine"].get("dtype_peaks")
    if peaks is not None:
        if not isinstance(peaks, dict):
            return problems + ["machine.dtype_peaks is not an object"]
        for t, p in peaks.items():
            where = f"machine.dtype_peaks.{t}"
            if t not in ("bf16", "u8s8"):
                problems.append(f"{where}: not bf16 or u8s8")
                continue
            if not isinstance(p, dict):
                problems.append(f"{where} is not an object")
                continue
            if p.get("unit") not in ("GFLOP/s", "GOP/s"):
                problems.append(f"{where}.unit is neither \"GFLOP/s\" nor \"GOP/s\"")
            for k in ("peak", "peak_1thread"):
                v = p.get(k)
                if v is not None and not (isinstance(v, (int, float)) and
                                          not isinstance(v, bool) and v > 0):
                    problems.append(f"{where}.{k} is neither null nor a positive number")
            if "isa" in p and not isinstance(p["isa"], str):
                problems.append(f"{where}.isa is not a string")
            by = p.get("by_threads")
            if by is not None and not (isinstance(by, list) and all(
                    isinstance(b, dict) and isinstance(b.get("threads"), int)
                    and not isinstance(b.get("threads"), bool)
                    and (b.get("peak") is None or isinstance(b.get("peak"), (int, float)))
                    for b in by)):
                problems.append(f"{where}.by_threads is not {{threads, peak}} per count")
    return problems


def main(argv):
    if len(argv) < 2:
        print("usage: validate-json.py FILE.json [--complete] [--min-results N]")
        return 2
    path, problems = argv[1], []
    want_complete = "--complete" in argv
    min_results = int(argv[argv.index("--min-results") + 1]) if "--min-results" in argv else 1
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"{path}: {e}")
        return 1
    for key, typ in TOP.items():
        if not isinstance(doc.get(key), typ):
            problems.append(f"top-level '{key}' missing or not {typ.__name__}")
    if problems:
        print("\n".join(f"{path}: {p}" for p in problems))
        return 1
    if doc["schema"] != "gemmbench/1":
        problems.append(f"schema is {doc['schema']!r}")
    if want_complete and doc["complete"] is not True:
        problems.append("complete is not true")
    for block, keys in (("tool", TOOL), ("machine", MACHINE), ("run", RUN)):
        for key in keys:
            if key not in doc[block]:
                problems.append(f"{block}.{key} missing")
    # The CPU's family, model and stepping (optional: absent where the CPU
    # does not say them, and in files before 2026-12-06).
    if "cpu_id" in doc["machine"] and not (isinstance(doc["machine"]["cpu_id"], str)
                                           and doc["machine"]["cpu_id"]):
        problems.append("machine.cpu_id is not a non-empty string")
    # The build's commit (optional: absent outside a git tree and in older files).
    tool = doc["tool"]
    if "git_commit" in tool:
        commit, date = tool.get("git_commit"), tool.get("git_date")
        if not (isinstance(commit, str) and len(commit) in (40, 64)
                and all(c in "0123456789abcdef" for c in commit)):
            problems.append("tool.git_commit is not a full hexadecimal commit hash")
        if not isinstance(date, str) or len(date) < 20 or date[4] != "-" or date[10] != "T":
            problems.append("tool.git_date is not an ISO 8601 date and time")
        if not isinstance(tool.get("git_dirty"), bool):
            problems.append("tool.git_dirty is not a boolean")
    libs = doc["tool"].get("libraries")
    if libs is not None:
        if not isinstance(libs, dict):
            problems.append("tool.libraries is not an object")
        else:
            for name, lib in libs.items():
                if not (isinstance(lib, dict) and isinstance(lib.get("version"), str)
                        and isinstance(lib.get("kernels"), str)
                        and isinstance(lib.get("forced_by", ""), str)):
                    problems.append(f"tool.libraries.{name}: version and kernels must be strings")
    problems += slurm_problems(doc["machine"].get("slurm"))
    problems += calibration_problems(doc["machine"].get("calibration"))
    peak = doc["machine"].get("peak_gflops")
    if peak is not None and not (isinstance(peak, (int, float)) and peak > 0):
        problems.append("machine.peak_gflops is neither null nor a positive number")
    method = doc["machine"].get("peak_method", "full")
    if method not in ("full", "quick"):
        problems.append("machine.peak_method is neither \"full\" nor \"quick\"")
    bw_method = (doc["machine"].get("bandwidth") or {}).get("method", "full")
    if bw_method not in ("full", "quick"):
        problems.append("machine.bandwidth.method is neither \"full\" nor \"quick\"")
    problems += levels_problems((doc["machine"].get("bandwidth") or {}).get("levels"))
    problems += dtype_problems(doc)
    if len(doc["results"]) < min_results:
        problems.append(f"{len(doc['results'])} results, expected at least {min_results}")
    for i, r in enumerate(doc["results"]):
        for key, typ in RESULT.items():
            v = r.get(key)
            ok = isinstance(v, (int, float)) and not isinstance(v, bool) if typ is float \
                else isinstance(v, typ) and not (typ is int and isinstance(v, bool))
            if not ok:
                problems.append(f"results[{i}].{key} missing or not {typ.__name__}")
        if problems:
            break
        if r["check"] not in ("pass", "fail", "skipped"):
            problems.append(f"results[{i}].check is {r['check']!r}")
        if len(r["samples_us"]) != r["reps"]:
            problems.append(f"results[{i}]: {len(r['samples_us'])} samples but reps {r['reps']}")
        times = [r["median_us"], r["min_us"], r["mean_us"]] + r["samples_us"]
        if any(not isinstance(t, (int, float)) or not math.isfinite(t) or t <= 0 for t in times):
            problems.append(f"results[{i}]: a time is not a positive number")
        elif r["min_us"] != min(r["samples_us"]):
            problems.append(f"results[{i}]: min_us is not the smallest sample")
        tags = r.get("sample_rounds")
        rounds = doc["run"].get("rounds", 1)
        if tags is not None and (not isinstance(tags, list) or len(tags) != len(r["samples_us"])
                                 or any(not isinstance(t, int) or isinstance(t, bool)
                                        or not 1 <= t <= rounds for t in tags)):
            problems.append(f"results[{i}]: sample_rounds is not one round in 1..{rounds} "
                            "per sample")
        problems += roof_problems(i, r)
        problems += schedule_problems(i, r)
        problems += round_clock_problems(i, r, rounds)
    print("\n".join(f"{path}: {p}" for p in problems) or f"{path}: valid, "
          f"{len(doc['results'])} results, complete={doc['complete']}")
    return 1 if problems else 0


def round_clock_problems(i, r, rounds):
    """The optional "round_clocks": per round, once each, its wall and CPU
    seconds, steal seconds and involuntary switches (results/FORMAT.md)."""
    clocks = r.get("round_clocks")
    if clocks is None:
        return []
    if not isinstance(clocks, list) or not 1 <= len(clocks) <= 1000:
        return [f"results[{i}].round_clocks is not an array of 1 to 1000 rounds"]

    def count(v, null_ok, whole=False):
        if v is None:
            return null_ok
        return isinstance(v, (int, float)) and not isinstance(v, bool) and \
            math.isfinite(v) and v >= 0 and (not whole or v == int(v))

    seen = set()
    for k, c in enumerate(clocks):
        if not (isinstance(c, dict) and count(c.get("round"), False, True)
                and 1 <= c["round"] <= rounds and c["round"] not in seen
                and count(c.get("wall_s"), False) and count(c.get("cpu_s"), True)
                and count(c.get("steal_s"), True) and count(c.get("nivcsw"), True, True)
                and all(key in c for key in ("cpu_s", "steal_s", "nivcsw"))):
            return [f"results[{i}].round_clocks[{k}]: not a round (1..{rounds}, once) with "
                    "wall_s, cpu_s, steal_s and nivcsw >= 0 (the last three may be null)"]
        seen.add(c["round"])
    return []


def schedule_problems(i, r):
    """A --schedule variant's "schedule" object (results/FORMAT.md)."""
    s = r.get("schedule")
    if s is None:
        return [f"results[{i}]: variant {r['variant']} has no schedule object"] \
            if r["variant"].startswith("sched:") else []
    if not isinstance(s, dict):
        return [f"results[{i}].schedule is not an object"]
    want = {"file": str, "text": str, "sha256": str, "params": dict, "compiler": str,
            "flags": str, "compile_ms": (int, float), "cached": bool}
    out = [f"results[{i}].schedule.{k} missing or not {t}" for k, t in want.items()
           if not isinstance(s.get(k), t) or (t != bool and isinstance(s.get(k), bool))]
    if not out and (len(s["sha256"]) != 64 or s["compile_ms"] < 0
                    or (s["cached"] and s["compile_ms"] != 0)):
        out.append(f"results[{i}].schedule: sha256 not 64 hex digits, or compile_ms "
                   "negative, or cached with a compile time")
    return out


if __name__ == "__main__":
    sys.exit(main(sys.argv))
