"""history_pairs.py - a synthetic paired history for tests/cli/history_paired.sh:
N copies of one real `gemmbench ab` pair (OLD.json, NEW.json: one build
against itself), NEW's calls made from OLD's calls of the same entry and
round scaled by lognormal noise of SIGMA per commit and entry and JITTER
per round (seeded), and for the entries whose label is STEP_LABEL by STEP
from commit FROM (1-based) on: each round's NEW/OLD is then exactly that
factor, whatever the machine did to the real pair.  The pairs
OUT/cNN-old.json, OUT/cNN-new.json; both files keep the run's run.ab, so
each pair is still one ab run's two files.

usage: python3 history_pairs.py OLD.json NEW.json OUT N SIGMA JITTER STEP_LABEL STEP FROM SEED
"""
import json
import math
import random
import statistics
import sys


def main():
    old, new, out, n, sigma, jitter, label, step, first, seed = sys.argv[1:11]
    n, sigma, jitter, step, first = int(n), float(sigma), float(jitter), float(step), int(first)
    rng = random.Random(int(seed))
    old_doc, new_doc = json.load(open(old)), json.load(open(new))
    for i in range(1, n + 1):
        copy = json.loads(json.dumps(new_doc))
        olds = {(r["label"], r["kernel"], r["M"], r["K"], r["N"], r["threads"]): r
                for r in old_doc["results"]}
        for r in copy["results"]:
            o = olds[(r["label"], r["kernel"], r["M"], r["K"], r["N"], r["threads"])]
            f = math.exp(rng.gauss(0.0, sigma))
            if r["label"] == label and i >= first:
                f *= step
            per_round = {}
            samples = []
            r["sample_rounds"] = list(o["sample_rounds"])
            for t, k in zip(o["samples_us"], o["sample_rounds"]):
                if k not in per_round:
                    per_round[k] = f * math.exp(rng.gauss(0.0, jitter))
                samples.append(t * per_round[k])
            r["samples_us"] = samples
            r["median_us"] = statistics.median(samples)
            r["min_us"] = min(samples)
            r["mean_us"] = statistics.fmean(samples)
        with open(f"{out}/c{i:02d}-new.json", "w") as fh:
            json.dump(copy, fh)
        with open(f"{out}/c{i:02d}-old.json", "w") as fh:
            json.dump(old_doc, fh)


main()
