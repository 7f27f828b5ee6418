/* stats.h - summary statistics of timing samples. */
#ifndef GB_STATS_H
#define GB_STATS_H

#include <stddef.h>

typedef struct gb_stats {
    size_t n;
    double median, min, max, mean, stddev, cv, p10, p90, mad;
} gb_stats;

/* Quantile q in [0,1] of sorted[0..n-1], linear interpolation between ranks
 * (the "type 7" definition of R and numpy). */
double stats_quantile_sorted(const double *sorted, size_t n, double q);
/* Fills s from samples (not modified).  Returns 0, or -1 when n == 0 or
 * memory runs out. */
int stats_compute(const double *samples, size_t n, gb_stats *s);

/* Geometric mean of the finite, positive values among v[0..n-1] (the others
 * are cells not measured); *used gets how many there were (may be NULL).
 * NAN when there are none. */
double gb_geomean(const double *v, int n, int *used);

#endif
