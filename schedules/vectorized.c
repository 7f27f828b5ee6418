/*
 * vectorized family - vectorize alone, no threads.
 *
 * vec_j: vectorize(j).  As in TVM, the k loop nested inside the vectorized j
 *   loop stays and its body widens, so the nest becomes
 *     for i:  C[i][:] = 0;  for k:  simd j: C[i][j] += A[i][k] * B[k][j]
 *   B is now read along rows (unit stride) and C[i][:] is the vector.
 */
#include "gemmbench.h"
#include "schedule_util.h"

static int vec_j_run(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                     float *C, int ldc, const gb_ctx *ctx)
{
    (void)ctx;
    for (int i = 0; i < M; i++)
        row_times_matrix(N, K, A + (size_t)i * lda, B, ldb, C + (size_t)i * ldc);
    return 0;
}

const gb_variant gb_variant_vec_j = {
    .name = "vec_j",
    .family = "vectorized",
    .description = "vectorize(j): i, k, j-vector; one thread",
    .run = vec_j_run,
};
