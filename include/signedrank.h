/*
 * signedrank.h - the Wilcoxon signed-rank test on paired differences, with
 * the Hodges-Lehmann estimate and its confidence interval: how `gemmbench
 * ab` judges a change from the per-round log-ratios of NEW to OLD.
 *
 * Method (Hollander & Wolfe, "Nonparametric Statistical Methods", ch. 3):
 *   - zero differences are dropped (Wilcoxon's method); the others are
 *     ranked by |d|, tied values getting the average of their ranks;
 *     W+ = the sum of the ranks of the positive differences.
 *   - up to GB_SR_EXACT_MAX differences: the exact distribution of W+ when
 *     every sign is equally likely, given the observed (average) ranks,
 *     counted by dynamic programming over the doubled ranks (integers);
 *     p = 2 min(P(W+ <= w), P(W+ >= w)), capped at 1.  Without ties this is
 *     scipy.stats.wilcoxon's method="exact".
 *   - more: the normal approximation, mean n(n+1)/4, variance
 *     n(n+1)(2n+1)/24 - sum(t^3 - t)/48 over tie groups, no continuity
 *     correction (scipy's method="approx", correction=False).
 *   - the estimate: the median of the n(n+1)/2 Walsh averages (d_i + d_j)/2,
 *     i <= j, over every difference (zeros included); the interval at level
 *     1 - alpha: the Walsh averages of ranks k and N + 1 - k, k - 1 being the
 *     largest c with P(W+ <= c) <= alpha/2 under the untied distribution
 *     (the normal quantile past GB_SR_EXACT_MAX).  With too few pairs for
 *     any such c (2^-n > alpha/2) the interval is unbounded.
 * tests/unit/test_signedrank.c checks p against scipy 1.10.1
 * (tests/data/signedrank_scipy.py) and the estimates against hand-worked
 * cases.
 */
#ifndef GB_SIGNEDRANK_H
#define GB_SIGNEDRANK_H

#include <stddef.h>

#define GB_SR_EXACT_MAX 50

typedef struct gb_signed_rank {
    int n;             /* differences given */
    int nonzero;       /* of them, not zero: what the test ranks */
    double w_plus;     /* sum of the ranks of the positive differences */
    double p;          /* two-sided p-value, in [0, 1] */
    int exact;         /* 1: exact distribution; 0: normal approximation */
    double estimate;   /* Hodges-Lehmann: median of the Walsh averages */
    double lo, hi;     /* interval at the achieved level; -inf/+inf when none */
    double level;      /* achieved confidence of [lo, hi] (>= 1 - alpha when bounded) */
} gb_signed_rank;

/* Tests d[0..n-1] (not modified) for a median of 0.  Returns 0, or -1 when
 * n is 0, a value is not finite, alpha is outside (0, 1), or memory runs out. */
int gb_signed_rank_test(const double *d, size_t n, double alpha, gb_signed_rank *out);

/* The standard normal quantile: Phi^-1(q) for q in (0, 1). */
double gb_normal_quantile(double q);

#endif
