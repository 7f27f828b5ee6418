/* mannwhitney.c - the two-sided Mann-Whitney U test; method in mannwhitney.h. */
#include "mannwhitney.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct pooled_value {
    double value;
    int from_x;
} pooled_value;

static int compare_pooled(const void *a, const void *b)
{
    double va = ((const pooled_value *)a)->value, vb = ((const pooled_value *)b)->value;
    return (va > vb) - (va < vb);
}

/*
 * Number of ways to choose nx of the n scores with each sum s in
 * 0..max_sum (the caller frees the max_sum + 1 counts), or NULL when out of
 * memory.  A 0/1-knapsack count: row k holds the ways to pick k of the
 * scores seen so far, and walking k downwards uses each score at most once.
 * Every count is at most C(n, k) <= C(40, 20), exact in int64.
 */
static int64_t *score_sum_counts(const int *score, size_t n, size_t nx, size_t max_sum)
{
    size_t width = max_sum + 1, reached = 0;
    int64_t *ways = calloc((nx + 1) * width, sizeof *ways), *counts;

    if (ways == NULL)
        return NULL;
    ways[0] = 1;
    for (size_t i = 0; i < n; i++) {
        size_t add = (size_t)score[i];
        reached = reached + add < max_sum ? reached + add : max_sum;
        for (size_t k = i + 1 < nx ? i + 1 : nx; k >= 1; k--) {
            int64_t *row = ways + k * width, *prev = ways + (k - 1) * width;
            /* add >= 2 (the smallest doubled rank), so s never wraps. */
            for (size_t s = reached; s >= add; s--)
                row[s] += prev[s - add];
        }
    }
    counts = malloc(width * sizeof *counts);
    if (counts != NULL)
        for (size_t s = 0; s < width; s++)
            counts[s] = ways[nx * width + s];
    free(ways);
    return counts;
}

/* P(S <= at) and P(S >= at) for the sum S of nx of the n scores, chosen
 * uniformly at random; -1 when out of memory. */
static int exact_tails(const int *score, size_t n, size_t nx, long at, double *below,
                       double *above)
{
    size_t max_sum = n * (n + 1);   /* doubled ranks 1..n sum to n(n+1) */
    int64_t *counts = score_sum_counts(score, n, nx, max_sum);
    double total = 0.0, le = 0.0, ge = 0.0;

    if (counts == NULL)
        return -1;
    for (size_t s = 0; s <= max_sum; s++) {
        double c = (double)counts[s];
        total += c;
        if ((long)s <= at)
            le += c;
        if ((long)s >= at)
            ge += c;
    }
    free(counts);
    *below = le / total;
    *above = ge / total;
    return 0;
}

double gb_mwu_exact_cdf(size_t nx, size_t ny, double u)
{
    size_t n = nx + ny;
    int *score;
    double below = NAN, above;

    if (nx == 0 || ny == 0 || nx > GB_MWU_EXACT_MAX || ny > GB_MWU_EXACT_MAX)
        return NAN;
    score = malloc(n * sizeof *score);
    if (score == NULL)
        return NAN;
    for (size_t i = 0; i < n; i++)
        score[i] = 2 * (int)(i + 1);
    /* Doubled rank sum R = 2U + nx(nx+1); U <= u for integer U. */
    if (exact_tails(score, n, nx, 2 * (long)floor(u) + (long)(nx * (nx + 1)), &below,
                    &above) != 0)
        below = NAN;
    free(score);
    return below;
}

int gb_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
                    gb_mwu_method method, gb_mwu *out)
{
    size_t n = nx + ny;
    pooled_value *pool = NULL;
    int *score = NULL;           /* doubled average ranks, in pool order */
    long rank2_sum_x = 0;
    double tie_term = 0.0, mean_u, var_u;
    int exact, rc = -1;

    if (nx == 0 || ny == 0)
        return -1;
    exact = method == GB_MWU_EXACT ||
            (method == GB_MWU_AUTO && nx <= GB_MWU_EXACT_MAX && ny <= GB_MWU_EXACT_MAX);
    if (exact && (nx > GB_MWU_EXACT_MAX || ny > GB_MWU_EXACT_MAX))
        return -1;
    pool = malloc(n * sizeof *pool);
    score = malloc(n * sizeof *score);
    if (pool == NULL || score == NULL)
        goto out;
    for (size_t i = 0; i < n; i++) {
        pool[i].value = i < nx ? x[i] : y[i - nx];
        pool[i].from_x = i < nx;
        if (!isfinite(pool[i].value))
            goto out;
    }
    qsort(pool, n, sizeof *pool, compare_pooled);

    /* Ranks are 1-based; a run of t equal values [i, j) shares the average
     * rank (i+1+j)/2, kept doubled so that it stays an integer. */
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        double t;
        while (j < n && pool[j].value == pool[i].value)
            j++;
        for (size_t k = i; k < j; k++) {
            score[k] = (int)(i + 1 + j);
            if (pool[k].from_x)
                rank2_sum_x += score[k];
        }
        t = (double)(j - i);
        tie_term += t * t * t - t;
        i = j;
    }

    out->u1 = 0.5 * (double)rank2_sum_x - 0.5 * (double)nx * (double)(nx + 1);
    out->ties = tie_term > 0.0;
    out->z = 0.0;
    out->exact = exact;
    if (exact) {
        double below, above;
        if (exact_tails(score, n, nx, rank2_sum_x, &below, &above) != 0)
            goto out;
        out->p = fmin(1.0, 2.0 * fmin(below, above));
        rc = 0;
        goto out;
    }

    mean_u = 0.5 * (double)nx * (double)ny;
    var_u = (double)nx * (double)ny / 12.0 *
            ((double)(n + 1) - tie_term / ((double)n * (double)(n - 1)));
    if (var_u <= 0.0) {
        /* Every value equal: no evidence of any difference. */
        out->p = 1.0;
    } else {
        out->z = (fabs(out->u1 - mean_u) - 0.5) / sqrt(var_u);
        out->p = fmin(1.0, erfc(out->z / sqrt(2.0)));
    }
    rc = 0;
out:
    free(pool);
    free(score);
    return rc;
}
