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
 * Counts of each U for sizes nx, ny without ties: the coefficients of the
 * Gaussian binomial [nx+ny choose nx]_q = prod_{i=1..nx} (1 - q^(ny+i)) /
 * (1 - q^i), built one factor at a time.  Each partial product is itself a
 * Gaussian binomial, so every coefficient stays an integer of at most
 * C(nx+ny, nx) (in magnitude, also between the multiply and the divide),
 * which int64 holds exactly for nx, ny <= GB_MWU_EXACT_MAX.
 * Returns nx*ny + 1 counts (caller frees), or NULL when out of memory.
 */
static int64_t *exact_u_counts(size_t nx, size_t ny)
{
    size_t top = nx * ny + nx;   /* degree reached before the last divide */
    int64_t *c = calloc(top + 1, sizeof *c);

    if (c == NULL)
        return NULL;
    c[0] = 1;
    for (size_t i = 1; i <= nx; i++) {
        size_t up = ny + i, degree = (i - 1) * ny + up;
        for (size_t k = degree; k >= up; k--)      /* times (1 - q^up) */
            c[k] -= c[k - up];
        for (size_t k = i; k <= degree; k++)       /* divided by (1 - q^i) */
            c[k] += c[k - i];
    }
    return c;
}

double gb_mwu_exact_cdf(size_t nx, size_t ny, double u)
{
    int64_t *counts;
    double below = 0.0, total = 0.0;

    if (nx == 0 || ny == 0 || nx > GB_MWU_EXACT_MAX || ny > GB_MWU_EXACT_MAX)
        return NAN;
    counts = exact_u_counts(nx, ny);
    if (counts == NULL)
        return NAN;
    for (size_t k = 0; k <= nx * ny; k++) {
        total += (double)counts[k];
        if ((double)k <= u)
            below += (double)counts[k];
    }
    free(counts);
    return below / total;
}

int gb_mann_whitney(const double *x, size_t nx, const double *y, size_t ny, gb_mwu *out)
{
    size_t n = nx + ny;
    pooled_value *pool;
    double rank_sum_x = 0.0, tie_term = 0.0, mean_u, var_u;

    if (nx == 0 || ny == 0)
        return -1;
    pool = malloc(n * sizeof *pool);
    if (pool == NULL)
        return -1;
    for (size_t i = 0; i < n; i++) {
        pool[i].value = i < nx ? x[i] : y[i - nx];
        pool[i].from_x = i < nx;
        if (!isfinite(pool[i].value)) {
            free(pool);
            return -1;
        }
    }
    qsort(pool, n, sizeof *pool, compare_pooled);

    /* Ranks are 1-based; a run of t equal values [i, j) shares rank (i+1+j)/2. */
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        double rank, t;
        while (j < n && pool[j].value == pool[i].value)
            j++;
        rank = 0.5 * (double)(i + 1 + j);
        for (size_t k = i; k < j; k++)
            if (pool[k].from_x)
                rank_sum_x += rank;
        t = (double)(j - i);
        tie_term += t * t * t - t;
        i = j;
    }
    free(pool);

    out->u1 = rank_sum_x - 0.5 * (double)nx * (double)(nx + 1);
    out->ties = tie_term > 0.0;
    out->z = 0.0;
    mean_u = 0.5 * (double)nx * (double)ny;

    if (!out->ties && nx <= GB_MWU_EXACT_MAX && ny <= GB_MWU_EXACT_MAX) {
        /* The null distribution is symmetric about nx*ny/2. */
        double tail = gb_mwu_exact_cdf(nx, ny, fmin(out->u1, 2.0 * mean_u - out->u1));
        if (isnan(tail))
            return -1;
        out->exact = 1;
        out->p = fmin(1.0, 2.0 * tail);
        return 0;
    }

    out->exact = 0;
    var_u = (double)nx * (double)ny / 12.0 *
            ((double)(n + 1) - tie_term / ((double)n * (double)(n - 1)));
    if (var_u <= 0.0) {
        /* Every value equal: no evidence of any difference. */
        out->p = 1.0;
        return 0;
    }
    out->z = (fabs(out->u1 - mean_u) - 0.5) / sqrt(var_u);
    out->p = fmin(1.0, erfc(out->z / sqrt(2.0)));
    return 0;
}
