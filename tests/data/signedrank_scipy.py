#!/usr/bin/env python3
# signedrank_scipy.py - how the reference p-values in
# tests/unit/test_signedrank.c were derived: scipy.stats.wilcoxon (scipy
# 1.10.1, Debian 12's python3-scipy), two-sided, zero_method="wilcox",
# correction=False.  Not run by `make test` (scipy is not a build
# dependency); rerun by hand with
#   /usr/bin/python3 tests/data/signedrank_scipy.py
# and compare with the constants in the test.
from scipy.stats import wilcoxon

# The same differences as the C test builds (keep the formulas in step).
d10 = [0.012, -0.003, 0.021, 0.008, 0.015, -0.001, 0.030, 0.011, 0.006, 0.019]
d20 = [((i * 7) % 20 - 6) * 0.001 + 0.0003 for i in range(20)]
d60 = [((i * 37) % 60 - 25) * 0.01 + 0.005 for i in range(60)]


def show(name, d, method):
    r = wilcoxon(d, zero_method="wilcox", correction=False, alternative="two-sided",
                 method=method)
    wplus = sum(rk for rk, x in zip(ranks(d), d) if x > 0)
    print(f"{name:4s} {method:6s} W+={wplus!r} p={float(r.pvalue)!r}")


def ranks(d):
    a = sorted(abs(x) for x in d)
    return [sum(i + 1 for i, v in enumerate(a) if v == abs(x)) / a.count(abs(x)) for x in d]


show("d10", d10, "exact")
show("d20", d20, "exact")
show("d60", d60, "approx")
show("d20", d20, "approx")
