/* stats.c - median-first statistics of timing samples. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double stats_quantile_sorted(const double *sorted, size_t n, double q)
{
    double pos, frac;
    size_t lo;

    if (n == 0)
        return NAN;
    if (n == 1 || q <= 0.0)
        return sorted[0];
    if (q >= 1.0)
        return sorted[n - 1];
    pos = q * (double)(n - 1);
    lo = (size_t)pos;
    frac = pos - (double)lo;
    if (lo + 1 >= n)
        return sorted[n - 1];
    return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

int stats_compute(const double *samples, size_t n, gb_stats *s)
{
    double *sorted, sum = 0.0, sq = 0.0;

    memset(s, 0, sizeof *s);
    if (n == 0)
        return -1;
    sorted = malloc(n * sizeof *sorted);
    if (sorted == NULL)
        return -1;
    memcpy(sorted, samples, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, compare_double);

    s->n = n;
    s->min = sorted[0];
    s->max = sorted[n - 1];
    s->median = stats_quantile_sorted(sorted, n, 0.5);
    s->p10 = stats_quantile_sorted(sorted, n, 0.10);
    s->p90 = stats_quantile_sorted(sorted, n, 0.90);
    for (size_t i = 0; i < n; i++)
        sum += samples[i];
    s->mean = sum / (double)n;
    for (size_t i = 0; i < n; i++)
        sq += (samples[i] - s->mean) * (samples[i] - s->mean);
    /* Sample standard deviation (n - 1); a single sample has none. */
    s->stddev = n > 1 ? sqrt(sq / (double)(n - 1)) : 0.0;
    s->cv = s->mean > 0.0 ? s->stddev / s->mean : 0.0;

    /* MAD: median of |x - median|, unscaled. */
    for (size_t i = 0; i < n; i++)
        sorted[i] = fabs(samples[i] - s->median);
    qsort(sorted, n, sizeof *sorted, compare_double);
    s->mad = stats_quantile_sorted(sorted, n, 0.5);
    free(sorted);
    return 0;
}

double gb_geomean(const double *v, int n, int *used)
{
    double log_sum = 0.0;
    int count = 0;

    for (int i = 0; i < n; i++) {
        if (isfinite(v[i]) && v[i] > 0.0) {
            log_sum += log(v[i]);
            count++;
        }
    }
    if (used)
        *used = count;
    return count ? exp(log_sum / count) : NAN;
}
