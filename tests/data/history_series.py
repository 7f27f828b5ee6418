"""history_series.py - a synthetic history for tests/cli/history.sh: N copies
of one real result file, each entry's times (samples, statistics) scaled by
lognormal noise of SIGMA (per file and entry, seeded), and by STEP from the
file numbered FROM (1-based) on; files OUT/run01.json ... OUT/runNN.json.
With ROUND_SIGMA, each entry's calls are drawn again around its median with
that lognormal spread: the base run's own round noise (a busy machine's, on
a tiny shape) would otherwise set every point's noise floor.

usage: python3 history_series.py BASE.json OUT N SIGMA STEP FROM SEED [ROUND_SIGMA]
"""
import json
import math
import random
import sys

TIMES = ("median_us", "min_us", "mean_us", "stddev_us")


def main():
    base, out, n, sigma, step, first, seed = sys.argv[1:8]
    round_sigma = float(sys.argv[8]) if len(sys.argv) > 8 else None
    n, sigma, step, first = int(n), float(sigma), float(step), int(first)
    rng = random.Random(int(seed))
    doc = json.load(open(base))
    for i in range(1, n + 1):
        copy = json.loads(json.dumps(doc))
        for r in copy["results"]:
            f = math.exp(rng.gauss(0.0, sigma)) * (step if i >= first else 1.0)
            for k in TIMES:
                if isinstance(r.get(k), (int, float)):
                    r[k] *= f
            if isinstance(r.get("samples_us"), list):
                if round_sigma is not None:
                    r["samples_us"] = [r["median_us"] * math.exp(rng.gauss(0.0, round_sigma))
                                       for _ in r["samples_us"]]
                else:
                    r["samples_us"] = [s * f for s in r["samples_us"]]
            if isinstance(r.get("gflops"), (int, float)):
                r["gflops"] /= f
        with open(f"{out}/run{i:02d}.json", "w") as fh:
            json.dump(copy, fh)


main()
