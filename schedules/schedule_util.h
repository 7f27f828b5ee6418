/*
 * schedule_util.h - loop bodies that several schedules share, so that each
 * lives once (STYLE: nothing copied with small changes).  static inline:
 * every schedule gets its own copy compiled into its own nest.
 */
#ifndef GB_SCHEDULE_UTIL_H
#define GB_SCHEDULE_UTIL_H

#include <stddef.h>

/* One row of C = one row of A times B, as the nest k, j-vector:
 *   c[:] = 0;  for k:  simd j: c[j] += a[k] * B[k][j]
 * (vectorize(j) with the k loop inside it, as TVM lowers it). */
static inline void row_times_matrix(int N, int K, const float *restrict a,
                                    const float *restrict B, int ldb, float *restrict c)
{
#pragma omp simd
    for (int j = 0; j < N; j++)
        c[j] = 0.0f;
    for (int k = 0; k < K; k++) {
        const float aik = a[k];
        const float *restrict b = B + (size_t)k * ldb;
#pragma omp simd
        for (int j = 0; j < N; j++)
            c[j] += aik * b[j];
    }
}

#endif
