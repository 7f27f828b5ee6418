/* changepoint.c - E-divisive means, the t-test that judges its splits, and
 * Benjamini-Hochberg; method and sources in changepoint.h and
 * src/analysis/history.md. */
#include "changepoint.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

/* ---- Student's t -------------------------------------------------------------- */

/* The continued fraction of the regularized incomplete beta function
 * I_x(a, b) (its even and odd terms d_2m, d_2m+1), evaluated by the modified
 * Lentz method; converges fast for x < (a + 1) / (a + b + 2). */
static double beta_fraction(double a, double b, double x)
{
    const double tiny = 1e-300;
    double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0), h;

    d = 1.0 / (fabs(d) < tiny ? tiny : d);
    h = d;
    for (int m = 1; m <= 300; m++) {
        double m2 = 2.0 * m;
        double even = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
        double odd = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
        double step;

        d = 1.0 + even * d;
        c = 1.0 + even / c;
        d = 1.0 / (fabs(d) < tiny ? tiny : d);
        c = fabs(c) < tiny ? tiny : c;
        h *= d * c;
        d = 1.0 + odd * d;
        c = 1.0 + odd / c;
        d = 1.0 / (fabs(d) < tiny ? tiny : d);
        c = fabs(c) < tiny ? tiny : c;
        step = d * c;
        h *= step;
        if (fabs(step - 1.0) < 1e-15)
            break;
    }
    return h;
}

/* I_x(a, b), through the symmetry I_x(a, b) = 1 - I_(1-x)(b, a) where the
 * fraction converges slowly. */
static double incomplete_beta(double a, double b, double x)
{
    double front;

    if (x <= 0.0)
        return 0.0;
    if (x >= 1.0)
        return 1.0;
    front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
    if (x < (a + 1.0) / (a + b + 2.0))
        return front * beta_fraction(a, b, x) / a;
    return 1.0 - front * beta_fraction(b, a, 1.0 - x) / b;
}

double gb_student_p(double t, double df)
{
    if (isnan(t) || !(df > 0.0))
        return 1.0;
    if (isinf(t))
        return 0.0;
    /* P(|T| > t) = I_{df / (df + t^2)}(df / 2, 1 / 2) */
    return incomplete_beta(df / 2.0, 0.5, df / (df + t * t));
}

double gb_student_quantile(double p, double df)
{
    double lo = 0.0, hi = 1.0;

    while (gb_student_p(hi, df) > p && hi < 1e12)
        hi *= 2.0;
    /* p falls as t grows: bisection, 200 halvings reach double precision. */
    for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        if (gb_student_p(mid, df) > p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* ---- the t-test of a split ----------------------------------------------------- */

typedef struct side {
    int n;
    double mean, var;   /* var: of one point, floored by the points' own noise */
} side;

/* The median of the se2 of pts[a..b): a side's noise floor.  The median,
 * not the mean: one wild pair (an interval 147 % wide among 4 % ones,
 * measured) set a mean floor that hid a 5 % step of 30 paired points. */
static double median_se2(const gb_cp_point *pts, int a, int b)
{
    int n = b - a;
    double small[64] = { 0 }, *v = n <= 64 ? small : malloc((size_t)n * sizeof *v), m;

    if (v == NULL) {   /* out of memory: the mean, as a bound */
        double sum = 0.0;
        for (int i = a; i < b; i++)
            sum += pts[i].se2;
        return sum / n;
    }
    for (int i = 0; i < n; i++) {   /* insertion sort: sides are short */
        double x = pts[a + i].se2;
        int j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
    m = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    if (v != small)
        free(v);
    return m;
}

static side describe(const gb_cp_point *pts, int a, int b)
{
    side s = { b - a, 0.0, 0.0 };
    double floor_var = median_se2(pts, a, b), ss = 0.0;

    for (int i = a; i < b; i++)
        s.mean += pts[i].y;
    s.mean /= s.n;
    for (int i = a; i < b; i++)
        ss += (pts[i].y - s.mean) * (pts[i].y - s.mean);
    s.var = s.n > 1 ? ss / (s.n - 1) : 0.0;
    /* Two or three points can agree by chance far better than their
     * rounds say they are known: the rounds' noise is the floor. */
    if (s.var < floor_var)
        s.var = floor_var;
    return s;
}

void gb_cp_compare(const gb_cp_point *pts, int a, int b, int c, gb_cp_test *out)
{
    side x = describe(pts, a, b), y = describe(pts, b, c);
    double vx = x.var / x.n, vy = y.var / y.n, se = sqrt(vx + vy), diff = y.mean - x.mean;
    /* Welch-Satterthwaite; a side of one point contributes no freedom of
     * its own (its variance is the floor): count it as one. */
    double dfx = x.n > 1 ? x.n - 1 : 1, dfy = y.n > 1 ? y.n - 1 : 1;
    double df = (vx + vy) * (vx + vy) / (vx * vx / dfx + vy * vy / dfy);
    double half;

    if (!(se > 0.0)) {
        /* No spread at all (synthetic, or one value repeated): any
         * difference is certain, none is nothing. */
        out->t = diff == 0.0 ? 0.0 : copysign(INFINITY, diff);
        out->df = dfx + dfy;
        out->p = diff == 0.0 ? 1.0 : 0.0;
        out->ratio = out->lo = out->hi = exp(diff);
        return;
    }
    if (!(df > 0.0) || !isfinite(df))
        df = dfx + dfy;
    out->t = diff / se;
    out->df = df;
    out->p = gb_student_p(out->t, df);
    half = gb_student_quantile(0.05, df) * se;
    out->ratio = exp(diff);
    out->lo = exp(diff - half);
    out->hi = exp(diff + half);
}

/* ---- E-divisive ------------------------------------------------------------------ */

int gb_edivisive_best(const gb_cp_point *pts, int a, int b, int min_seg, double *q)
{
    int n = b - a, best = -1;
    double *before, *after, total = 0.0, best_q = -INFINITY;

    if (min_seg < 2)
        min_seg = 2;   /* a side's within-distance needs a pair */
    if (n < 2 * min_seg)
        return -1;
    before = calloc((size_t)n + 1, sizeof *before);
    after = calloc((size_t)n + 1, sizeof *after);
    if (before == NULL || after == NULL) {
        free(before);
        free(after);
        return -2;
    }
    /* before[t]: the sum of |y_i - y_j| over pairs inside [a, a + t);
     * after[t]: over pairs inside [a + t, b); the pairs across a split are
     * the total less both, so every split costs O(1) after O(n^2). */
    for (int t = 1; t <= n; t++) {
        double add = 0.0;
        for (int i = 0; i < t - 1; i++)
            add += fabs(pts[a + i].y - pts[a + t - 1].y);
        before[t] = before[t - 1] + add;
    }
    total = before[n];
    for (int t = n - 1; t >= 0; t--) {
        double add = 0.0;
        for (int j = t + 1; j < n; j++)
            add += fabs(pts[a + t].y - pts[a + j].y);
        after[t] = after[t + 1] + add;
    }
    for (int t = min_seg; t <= n - min_seg; t++) {
        double m = t, k = n - t;
        double across = total - before[t] - after[t];
        /* Matteson & James (2014), eq. 5 and 6 with alpha = 1:
         * E = 2/(mk) sum|X-Y| - 2/(m(m-1)) sum_{i<j}|X-X| - 2/(k(k-1)) sum_{i<j}|Y-Y|,
         * Q = mk/(m+k) E. */
        double e = 2.0 / (m * k) * across - 2.0 / (m * (m - 1.0)) * before[t] -
                   2.0 / (k * (k - 1.0)) * after[t];
        double qt = m * k / (m + k) * e;
        if (qt > best_q) {
            best_q = qt;
            best = a + t;
        }
    }
    free(before);
    free(after);
    if (q)
        *q = best_q;
    return best;
}

static int by_int(const void *pa, const void *pb)
{
    int a = *(const int *)pa, b = *(const int *)pb;
    return (a > b) - (a < b);
}

int gb_cp_detect(const gb_cp_point *pts, int n, const gb_cp_opts *o, int *at,
                 gb_cp_test *tests, int max, double *best_p)
{
    /* The segments still to split: at most one per change found, plus one. */
    int *stack_a = malloc(((size_t)max + 2) * sizeof *stack_a);
    int *stack_b = malloc(((size_t)max + 2) * sizeof *stack_b);
    int top = 0, count = 0;

    *best_p = 1.0;
    if (stack_a == NULL || stack_b == NULL) {
        free(stack_a);
        free(stack_b);
        return -1;
    }
    stack_a[top] = 0;
    stack_b[top++] = n;
    while (top > 0 && count < max) {
        int a = stack_a[--top], b = stack_b[top], tau;
        gb_cp_test t;

        tau = gb_edivisive_best(pts, a, b, o->min_segment, NULL);
        if (tau == -2) {
            count = -1;
            break;
        }
        if (tau < 0)
            continue;
        /* The split's own test: this segment's two sides. */
        gb_cp_compare(pts, a, tau, b, &t);
        if (a == 0 && b == n)
            *best_p = t.p;
        if (!(t.p < o->p_candidate))
            continue;
        at[count++] = tau;
        stack_a[top] = a;
        stack_b[top++] = tau;
        stack_a[top] = tau;
        stack_b[top++] = b;
    }
    free(stack_a);
    free(stack_b);
    if (count <= 0)
        return count;
    qsort(at, (size_t)count, sizeof *at, by_int);
    /* Each change judged again between its neighbours, the weakest dropped
     * while one fails (Otava's second pass): a split found early in a long
     * segment may not survive the changes found inside it. */
    for (;;) {
        int weakest = -1;
        for (int j = 0; j < count; j++) {
            int lo = j ? at[j - 1] : 0, hi = j + 1 < count ? at[j + 1] : n;
            gb_cp_compare(pts, lo, at[j], hi, &tests[j]);
            if (!(tests[j].p < o->p_candidate) &&
                (weakest < 0 || tests[j].p > tests[weakest].p))
                weakest = j;
        }
        if (weakest < 0)
            break;
        for (int j = weakest; j + 1 < count; j++)
            at[j] = at[j + 1];
        count--;
    }
    if (count > 0 && tests[0].p < *best_p)
        *best_p = tests[0].p;
    return count;
}

/* ---- Benjamini-Hochberg ---------------------------------------------------------- */

typedef struct ranked_p {
    double p;
    int index;
} ranked_p;

static int by_p(const void *pa, const void *pb)
{
    const ranked_p *a = pa, *b = pb;
    if (a->p != b->p)
        return a->p < b->p ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

int gb_bh_adjust(const double *p, int n, double *adjusted)
{
    ranked_p *r = malloc((size_t)(n > 0 ? n : 1) * sizeof *r);
    double running = 1.0;

    if (r == NULL)
        return -1;
    for (int i = 0; i < n; i++) {
        r[i].p = isnan(p[i]) ? 1.0 : p[i];
        r[i].index = i;
    }
    qsort(r, (size_t)n, sizeof *r, by_p);
    for (int k = n - 1; k >= 0; k--) {
        running = fmin(running, fmin(1.0, r[k].p * n / (k + 1)));
        adjusted[r[k].index] = running;
    }
    free(r);
    return 0;
}
