/*
 * parallel family - OpenMP threads over rows.
 *
 * parallel: parallel(i) + vectorize(j) (study's "parallel").  Each thread
 *   takes whole rows of C; within a row the nest is vec_j's:
 *     parallel for i:  C[i][:] = 0;  for k:  simd j: C[i][j] += A[i][k] * B[k][j]
 *   Rows are independent, so no synchronisation beyond the loop's end.
 */
#include "gemmbench.h"
#include "schedule_util.h"

static int parallel_run(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                        float *C, int ldc, const gb_ctx *ctx)
{
#pragma omp parallel for num_threads(ctx->nthreads) schedule(static)
    for (int i = 0; i < M; i++)
        row_times_matrix(N, K, A + (size_t)i * lda, B, ldb, C + (size_t)i * ldc);
    return 0;
}

const gb_variant gb_variant_parallel = {
    .name = "parallel",
    .family = "parallel",
    .description = "parallel(i) + vectorize(j): parallel i, k, j-vector",
    .run = parallel_run,
};
