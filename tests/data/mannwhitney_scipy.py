#!/usr/bin/env python3
# mannwhitney_scipy.py - how the reference p-values in
# tests/unit/test_mannwhitney.c were derived: scipy.stats.mannwhitneyu
# (scipy 1.10.1, Debian 12's python3-scipy), two-sided, use_continuity=True.
# Not run by `make test` (scipy is not a build dependency); rerun by hand with
#   /usr/bin/python3 tests/data/mannwhitney_scipy.py
# and compare with the constants in the test.
from scipy.stats import mannwhitneyu


def show(name, x, y, method):
    r = mannwhitneyu(x, y, alternative="two-sided", method=method, use_continuity=True)
    print(f"{name:10s} {method:10s} U1={float(r.statistic)!r} p={float(r.pvalue)!r}")


# The same samples as the C test builds (keep the formulas in step).
x20 = [(i * 7) % 40 + 0.25 for i in range(20)]
y20 = [(i * 11) % 40 + 2.5 for i in range(20)]
x50 = [round(100 + ((i * 37) % 50) * 0.1, 1) for i in range(50)]
y50 = [round(101 + ((i * 23) % 50) * 0.1, 1) for i in range(50)]
x21 = [(i * 5) % 42 + 0.25 for i in range(21)]
y21 = [(i * 11) % 42 + 3.5 for i in range(21)]

show("separated", [1, 2, 3], [4, 5, 6], "exact")
show("mixed4x3", [1.5, 3.5, 6.5, 8.5], [2.5, 4.5, 5.5], "exact")
show("ties", [1, 2, 2, 3], [2, 3, 4, 5], "asymptotic")
show("n20", x20, y20, "exact")
show("n20", x20, y20, "asymptotic")
show("n21", x21, y21, "asymptotic")
show("n50ties", x50, y50, "asymptotic")
show("apart50", [100 + i for i in range(50)], [200 + i for i in range(50)], "asymptotic")

# The exact path with ties is the permutation distribution of U given the
# observed average ranks; scipy 1.10 has it as permutation_test (exhaustive
# here: n_resamples=inf), two-sided as 2 * min(one-sided), like the C code.
import numpy as np
from scipy.stats import permutation_test, rankdata


def u_statistic(x, y):
    r = rankdata(np.concatenate([x, y]))
    return r[: len(x)].sum() - len(x) * (len(x) + 1) / 2


def perm(name, x, y):
    res = permutation_test((x, y), u_statistic, permutation_type="independent",
                           alternative="two-sided", n_resamples=np.inf, vectorized=False)
    print(f"{name:10s} {'exact':10s} U1={float(res.statistic)!r} p={float(res.pvalue)!r}")


perm("ties", [1, 2, 2, 3], [2, 3, 4, 5])
show("sep5ties", [0.4, 0.4, 0.41, 0.41, 0.42], [1, 1, 1, 2, 2], "asymptotic")
perm("sep5ties", [0.4, 0.4, 0.41, 0.41, 0.42], [1, 1, 1, 2, 2])
perm("ties10x8", [3, 1, 4, 1, 5, 9, 2, 6, 5, 3], [5, 8, 9, 7, 9, 3, 2, 3])
