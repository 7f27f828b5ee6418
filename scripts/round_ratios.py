"""round_ratios.py - the ratio of two entries of one interleaved run, as the
measuring scripts report it (ml-guided.sh, ml-leave-one-out.sh,
ml-search.sh): each round's median call of each entry (the runner
interleaves the entries round by round), the per-round ratio, and its
median over the rounds with the rounds' least and greatest.
"""
import statistics


def round_medians(result):
    """{round: the median of the entry's calls in that round}"""
    per = {}
    for us, k in zip(result["samples_us"], result["sample_rounds"]):
        per.setdefault(k, []).append(us)
    return {k: statistics.median(v) for k, v in per.items()}


def ratio(a, b):
    """a over b: the median over the rounds both ran of a's round median
    over b's, and the least and greatest of them"""
    ra, rb = round_medians(a), round_medians(b)
    q = sorted(ra[k] / rb[k] for k in ra if k in rb)
    if not q:
        raise ValueError("the two entries share no round")
    return statistics.median(q), q[0], q[-1]
