/*
 * baseline - the computation as written, no transform (study: "None -
 * triple-nested loop as written").
 *
 *   for i in M:  for j in N:  C[i][j] = sum over k of A[i][k] * B[k][j]
 *
 * The k loop reads B down a column (stride ldb), one element per cache line;
 * that, and a single thread, is what every other schedule improves on.
 */
#include "gemmbench.h"

static int baseline_run(int M, int N, int K, const float *A, int lda, const float *B,
                        int ldb, float *C, int ldc, const gb_ctx *ctx)
{
    (void)ctx;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float sum = 0.0f;
            for (int k = 0; k < K; k++)
                sum += A[(size_t)i * lda + k] * B[(size_t)k * ldb + j];
            C[(size_t)i * ldc + j] = sum;
        }
    return 0;
}

const gb_variant gb_variant_baseline = {
    .name = "baseline",
    .family = "baseline",
    .description = "i, j, k as written; scalar, one thread",
    .run = baseline_run,
    .single_thread = 1,
};
