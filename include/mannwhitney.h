/*
 * mannwhitney.h - the two-sided Mann-Whitney U test (Wilcoxon rank-sum) on
 * two independent samples, as `gemmbench compare` uses it on raw timings.
 *
 * Method (the same choices as scipy.stats.mannwhitneyu with
 * method="exact" / "asymptotic", use_continuity=True, which the unit tests
 * cross-check against):
 *   - ranks of the pooled samples, tied values get the average of their ranks;
 *     U1 = R1 - nx(nx+1)/2 counts the pairs (x, y) with x > y, ties as 1/2.
 *   - no ties and both samples of at most GB_MWU_EXACT_MAX values: the exact
 *     null distribution of U (every split of the ranks equally likely),
 *     p = 2 * P(U <= min(U1, nx*ny - U1)), capped at 1.
 *   - otherwise the normal approximation with the tie-corrected variance
 *     nx*ny/12 * ((n+1) - sum(t^3 - t) / (n(n-1))) and a continuity
 *     correction of 1/2: z = (|U1 - nx*ny/2| - 1/2) / sigma, p = erfc(z/sqrt2).
 * The exact distribution is only valid without ties (averaged ranks change
 * it).  It is used up to 20 x 20 because the normal approximation is still
 * coarse there: at 20 x 20 it is off by up to 0.0042 in p, and by
 * 15% relative near p = 0.006 (0.0071 instead of 0.0061), which matters at
 * --alpha 0.01; larger samples bring it closer.  C(40,20) ~ 1.4e11 counts
 * still fit exactly in 64-bit integers.  tests/unit/test_mannwhitney.c
 * checks both methods against scipy and the exact counts by enumeration.
 */
#ifndef GB_MANNWHITNEY_H
#define GB_MANNWHITNEY_H

#include <stddef.h>

#define GB_MWU_EXACT_MAX 20

typedef struct gb_mwu {
    double u1;       /* U of the first sample: pairs with x > y, ties count 1/2 */
    double p;        /* two-sided p-value, in [0, 1] */
    double z;        /* continuity-corrected z of the normal approximation; 0 when exact */
    int exact;       /* 1: exact distribution; 0: normal approximation */
    int ties;        /* 1: some value occurs more than once in the pooled samples */
} gb_mwu;

/* Tests x[0..nx-1] against y[0..ny-1] (neither modified).  Returns 0, or -1
 * when a sample is empty, a value is not finite, or memory runs out. */
int gb_mann_whitney(const double *x, size_t nx, const double *y, size_t ny, gb_mwu *out);

/* P(U <= u) under the null hypothesis for sample sizes nx, ny without ties,
 * from the exact distribution; NAN when nx or ny is 0 or above
 * GB_MWU_EXACT_MAX, or memory runs out.  Exposed for the tests. */
double gb_mwu_exact_cdf(size_t nx, size_t ny, double u);

#endif
