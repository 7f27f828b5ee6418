/* signedrank.c - Wilcoxon signed-rank test and Hodges-Lehmann interval; see signedrank.h. */
#include "signedrank.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double gb_normal_quantile(double q)
{
    double lo = -40.0, hi = 40.0;

    /* Bisection on Phi(x) = erfc(-x/sqrt2)/2: 100 halvings reach double precision. */
    for (int i = 0; i < 100; i++) {
        double mid = 0.5 * (lo + hi);
        if (0.5 * erfc(-mid / sqrt(2.0)) < q)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* counts[s] = number of sign patterns whose positive doubled ranks sum to s,
 * s in [0, total]; the doubled ranks are integers.  NULL when out of memory. */
static uint64_t *sign_counts(const int *rank2, int n, int total)
{
    uint64_t *c = calloc((size_t)total + 1, sizeof *c);

    if (c == NULL)
        return NULL;
    c[0] = 1;
    for (int i = 0, reach = 0; i < n; i++) {
        reach += rank2[i];
        for (int s = reach; s >= rank2[i]; s--)
            c[s] += c[s - rank2[i]];
    }
    return c;
}

/* Ranks of |d| over the nonzero differences, doubled (average ranks of ties
 * are then integers); also the tie term sum(t^3 - t).  nz = count. */
static int rank_abs(const double *nz, int n, int *rank2, double *ties)
{
    double *a = malloc((size_t)n * sizeof *a);
    int *order = malloc((size_t)n * sizeof *order);

    if (a == NULL || order == NULL) {
        free(a);
        free(order);
        return -1;
    }
    for (int i = 0; i < n; i++)
        a[i] = fabs(nz[i]);
    /* Insertion sort of indices by |d|: n is a number of rounds. */
    for (int i = 0; i < n; i++) {
        int j = i;
        order[i] = i;
        while (j > 0 && a[order[j - 1]] > a[i]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    *ties = 0.0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j + 1 < n && a[order[j + 1]] == a[order[i]])
            j++;
        /* ranks i+1 .. j+1 share their average; doubled: i + j + 2 */
        for (int k = i; k <= j; k++)
            rank2[order[k]] = i + j + 2;
        *ties += pow(j - i + 1, 3) - (j - i + 1);
        i = j + 1;
    }
    free(a);
    free(order);
    return 0;
}

static void test_exact(const int *rank2, int n, int w2, gb_signed_rank *out)
{
    int total = 0;
    uint64_t *c, below = 0, above = 0;
    double all = ldexp(1.0, n);

    for (int i = 0; i < n; i++)
        total += rank2[i];
    c = sign_counts(rank2, n, total);
    if (c == NULL) {
        out->p = NAN;
        return;
    }
    for (int s = 0; s <= total; s++) {
        if (s <= w2)
            below += c[s];
        if (s >= w2)
            above += c[s];
    }
    out->p = fmin(1.0, 2.0 * fmin((double)below, (double)above) / all);
    out->exact = 1;
    free(c);
}

static void test_normal(int n, double w_plus, double ties, gb_signed_rank *out)
{
    double mean = n * (n + 1) / 4.0;
    double var = n * (n + 1) * (2.0 * n + 1) / 24.0 - ties / 48.0;

    out->p = var > 0.0 ? erfc(fabs(w_plus - mean) / sqrt(var) / sqrt(2.0)) : 1.0;
    out->exact = 0;
}

/* The k of the interval [W_(k), W_(N+1-k)] and its confidence; k = 0 when
 * no interval reaches 1 - alpha. */
static int interval_rank(int n, double alpha, double *level)
{
    if (n <= GB_SR_EXACT_MAX) {
        int *rank2 = malloc((size_t)n * sizeof *rank2), total = n * (n + 1), k = 0;
        uint64_t *c, cum = 0;
        double all = ldexp(1.0, n);

        if (rank2 == NULL)
            return -1;
        for (int i = 0; i < n; i++)
            rank2[i] = 2 * (i + 1);
        c = sign_counts(rank2, n, total);
        free(rank2);
        if (c == NULL)
            return -1;
        *level = 0.0;
        /* W+ takes the values s/2; P(W+ <= c) over integer c. */
        for (int s = 0; s <= total; s += 2) {
            cum += c[s];
            if ((double)cum / all > alpha / 2.0)
                break;
            k = s / 2 + 1;
            *level = 1.0 - 2.0 * (double)cum / all;
        }
        free(c);
        return k;
    }
    {
        double N = n * (n + 1) / 2.0, sd = sqrt(n * (n + 1) * (2.0 * n + 1) / 24.0);
        int k = (int)floor(N / 2.0 - gb_normal_quantile(1.0 - alpha / 2.0) * sd);
        *level = 1.0 - alpha;
        return k < 1 ? 0 : k;
    }
}

/* Hodges-Lehmann estimate and interval from the Walsh averages of d. */
static int walsh(const double *d, int n, double alpha, gb_signed_rank *out)
{
    size_t N = (size_t)n * (size_t)(n + 1) / 2, m = 0;
    double *w = malloc(N * sizeof *w);
    int k;

    if (w == NULL)
        return -1;
    for (int i = 0; i < n; i++)
        for (int j = i; j < n; j++)
            w[m++] = 0.5 * (d[i] + d[j]);
    qsort(w, N, sizeof *w, compare_double);
    out->estimate = N % 2 ? w[N / 2] : 0.5 * (w[N / 2 - 1] + w[N / 2]);
    k = interval_rank(n, alpha, &out->level);
    if (k < 0) {
        free(w);
        return -1;
    }
    if (k == 0) {
        out->lo = -INFINITY;
        out->hi = INFINITY;
        out->level = 1.0;
    } else {
        out->lo = w[k - 1];
        out->hi = w[N - (size_t)k];
    }
    free(w);
    return 0;
}

int gb_signed_rank_test(const double *d, size_t n, double alpha, gb_signed_rank *out)
{
    double *nz, ties;
    int *rank2, m = 0, w2 = 0;

    memset(out, 0, sizeof *out);
    if (n == 0 || n > 100000 || !(alpha > 0.0 && alpha < 1.0))
        return -1;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(d[i]))
            return -1;
    out->n = (int)n;
    nz = malloc(n * sizeof *nz);
    rank2 = malloc(n * sizeof *rank2);
    if (nz == NULL || rank2 == NULL)
        goto oom;
    for (size_t i = 0; i < n; i++)
        if (d[i] != 0.0)
            nz[m++] = d[i];
    out->nonzero = m;
    if (m == 0) {
        out->p = 1.0;
        out->exact = 1;
    } else {
        if (rank_abs(nz, m, rank2, &ties) != 0)
            goto oom;
        for (int i = 0; i < m; i++)
            if (nz[i] > 0.0)
                w2 += rank2[i];
        out->w_plus = w2 / 2.0;
        if (m <= GB_SR_EXACT_MAX)
            test_exact(rank2, m, w2, out);
        else
            test_normal(m, out->w_plus, ties, out);
        if (isnan(out->p))
            goto oom;
    }
    if (walsh(d, (int)n, alpha, out) != 0)
        goto oom;
    free(nz);
    free(rank2);
    return 0;
oom:
    free(nz);
    free(rank2);
    return -1;
}
