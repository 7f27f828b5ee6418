/*
 * changepoint.h - change points in one series of per-commit measurements:
 * E-divisive means (Matteson & James, JASA 2014) proposes where the series
 * splits, a Welch t-test on the per-commit values decides whether a split
 * is real (as Apache Otava/Hunter and MongoDB do, Daly et al., ICPE 2020),
 * and Benjamini-Hochberg controls the false discovery rate over the series
 * of a sweep.  Pure statistics: no files, no printing.  The method, its
 * defaults and its sources: src/analysis/history.md.
 */
#ifndef GB_CHANGEPOINT_H
#define GB_CHANGEPOINT_H

/* Defaults (src/analysis/history.md says why each). */
#define GB_CP_MIN_SEGMENT 3       /* points on each side of a split, at least */
#define GB_CP_P_CANDIDATE 0.01    /* a split is a candidate below this p */
#define GB_CP_ALPHA 0.001         /* kept when its BH-adjusted p is below this */
#define GB_CP_MIN_CHANGE 0.01     /* |ratio - 1| below this is not reported */
#define GB_CP_MAX_CHANGES 64      /* change points per series, at most */

/* One point of a series: y the log of the commit's median time, se2 the
 * squared standard error of y from the rounds' medians (its noise; 0 when
 * unknown). */
typedef struct gb_cp_point {
    double y, se2;
} gb_cp_point;

/* A segment [a, b) of a series against the next one [b, c): the ratio of
 * their geometric means (after / before), its interval at 95 %, the Welch
 * t-test's two-sided p. */
typedef struct gb_cp_test {
    double ratio, lo, hi, p, t, df;
} gb_cp_test;

/* Two-sided p of Student's t with df degrees of freedom (df > 0). */
double gb_student_p(double t, double df);
/* The t with P(|T| > t) = p, p in (0, 1). */
double gb_student_quantile(double p, double df);

/* Compares pts[a..b) (before) with pts[b..c) (after): Welch's t-test on the
 * points' y, each side's variance floored by its points' median se2 (a point
 * is never known better than its own rounds say).  Each side needs at
 * least one point; with one point on a side its variance is the floor. */
void gb_cp_compare(const gb_cp_point *pts, int a, int b, int c, gb_cp_test *out);

/* E-divisive's statistic Q(tau) for every split tau of [a, b) with at
 * least min_seg points on each side (alpha = 1: absolute differences);
 * the best tau, or -1 when the segment is too short.  *q gets its Q. */
int gb_edivisive_best(const gb_cp_point *pts, int a, int b, int min_seg, double *q);

typedef struct gb_cp_opts {
    int min_segment;
    double p_candidate;
} gb_cp_opts;

/* The change points of one series: splits found by E-divisive and kept
 * while the t-test of the split against its neighbouring change points
 * (or the series' ends) gives p < p_candidate; at[] gets each change's
 * first point after it, ascending, tests[] their tests.  Returns the count
 * (0..max), or -1 when memory runs out.  *best_p gets the p of the first
 * split tried (1 when the series is too short): the series' p for the
 * false discovery rate when it has no change. */
int gb_cp_detect(const gb_cp_point *pts, int n, const gb_cp_opts *o, int *at,
                 gb_cp_test *tests, int max, double *best_p);

/* Benjamini-Hochberg adjusted p-values: the k-th smallest of n times n/k,
 * made monotone from the largest down, capped at 1.  0, or -1 when memory
 * runs out. */
int gb_bh_adjust(const double *p, int n, double *adjusted);

#endif
