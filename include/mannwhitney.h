/*
 * mannwhitney.h - the two-sided Mann-Whitney U test (Wilcoxon rank-sum) on
 * two independent samples, as `gemmbench compare` uses it on raw timings.
 *
 * Method:
 *   - ranks of the pooled samples, tied values get the average of their ranks;
 *     U1 = R1 - nx(nx+1)/2 counts the pairs (x, y) with x > y, ties as 1/2.
 *   - both samples of at most GB_MWU_EXACT_MAX values: the exact permutation
 *     distribution of R1 given the observed ranks (every way of choosing
 *     which nx of the pooled values are x's is equally likely), counted by
 *     dynamic programming over the (doubled, so integer) average ranks;
 *     p = 2 * min(P(R <= R1), P(R >= R1)), capped at 1.  Without ties this is
 *     the classical exact distribution of U (scipy's method="exact"); with
 *     ties it is the exact conditional test (R's coin::wilcox_test with
 *     distribution="exact", scipy's permutation_test on U).
 *   - larger samples: the normal approximation with the tie-corrected
 *     variance nx*ny/12 * ((n+1) - sum(t^3 - t) / (n(n-1))) and a continuity
 *     correction of 1/2: z = (|U1 - nx*ny/2| - 1/2) / sigma, p = erfc(z/sqrt2)
 *     (scipy's method="asymptotic", use_continuity=True).
 * Why exact up to 20 x 20: there the normal approximation is still coarse,
 * off by up to 0.0042 in p at 20 x 20 and by 15% relative near p = 0.006
 * (0.0071 instead of 0.0061), which matters at --alpha 0.01; and with ties
 * in small samples it can miss outright: 5 against 5 completely separated
 * timings, some equal within a side (a coarse clock), give p = 0.010 to
 * 0.012 by the approximation, depending on the ties, but 2/252 = 0.0079
 * exactly: the difference between a gate that can fail at alpha 0.01 and
 * one that cannot.  The counts reach at
 * most C(40,20) ~ 1.4e11, exact in 64-bit integers.
 * tests/unit/test_mannwhitney.c checks both methods against scipy 1.10.1 and
 * the exact counts against enumeration of every split.
 */
#ifndef GB_MANNWHITNEY_H
#define GB_MANNWHITNEY_H

#include <stddef.h>

#define GB_MWU_EXACT_MAX 20

typedef enum gb_mwu_method {
    GB_MWU_AUTO = 0,         /* exact when both samples have <= GB_MWU_EXACT_MAX values */
    GB_MWU_EXACT,
    GB_MWU_NORMAL
} gb_mwu_method;

typedef struct gb_mwu {
    double u1;       /* U of the first sample: pairs with x > y, ties count 1/2 */
    double p;        /* two-sided p-value, in [0, 1] */
    double z;        /* continuity-corrected z of the normal approximation; 0 when exact */
    int exact;       /* 1: exact permutation distribution; 0: normal approximation */
    int ties;        /* 1: some value occurs more than once in the pooled samples */
} gb_mwu;

/* Tests x[0..nx-1] against y[0..ny-1] (neither modified).  Returns 0, or -1
 * when a sample is empty, a value is not finite, GB_MWU_EXACT is asked for
 * past GB_MWU_EXACT_MAX, or memory runs out. */
int gb_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
                    gb_mwu_method method, gb_mwu *out);

/* P(U <= u) under the null hypothesis for sample sizes nx, ny without ties,
 * from the exact distribution; NAN when nx or ny is 0 or above
 * GB_MWU_EXACT_MAX, or memory runs out.  Exposed for the tests. */
double gb_mwu_exact_cdf(size_t nx, size_t ny, double u);

#endif
