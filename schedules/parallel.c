/*
 * parallel family - OpenMP threads over rows (the study's parallel(i)).
 * Each thread takes whole rows of C; rows are independent, so there is no
 * synchronisation beyond the loop's end.
 *
 * parallel: parallel(i) + vectorize(j).
 *     parallel for i:  C[i][:] = 0;  for k:  simd j: C[i][j] += A[i][k] * B[k][j]
 *
 * parallel_k16: split(k, 16), reorder(i, j, k0, k1), parallel(i), unroll(k1).
 *     parallel for i:  for j:  for k0:  k1 unrolled x16:  sum += A[i][k] * B[k][j]
 *   Scalar, and B is read down a column (stride ldb) as in baseline: the
 *   k split alone does not fix that (the study's Trend 4).
 *
 * parallel_vec_j: split(j, 8), reorder(i, j0, j1, k), parallel(i), vectorize(j1).
 *     parallel for i:  for j0:  for k:  simd j1 (8 lanes): C[i][j0+j1] += A[i][k] * B[k][j0+j1]
 *   The 8-lane strip of C stays in a register across all of k.
 *
 * full: split(j, 8), split(k, 16), reorder(i, j0, k0, j1, k1), parallel(i),
 *   vectorize(j1), unroll(k1), i.e. vec_j_k16 + parallel(i).
 *     parallel for i:  for j0:  for k0:  k1 unrolled x16:  simd j1 (8 lanes): ...
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

/* sum over k of a[k] * b[k * ldb]: k split by 16, k1 unrolled, scalar. */
static inline float dot_column_k16(int K, const float *restrict a, const float *restrict b,
                                   int ldb)
{
    float sum = 0.0f;
    int k = 0;

    for (; k + 16 <= K; k += 16) { /* k0 */
#pragma GCC unroll 16
        for (int k1 = 0; k1 < 16; k1++)
            sum += a[k + k1] * b[(size_t)(k + k1) * ldb];
    }
    for (; k < K; k++) /* tail of split(k, 16) */
        sum += a[k] * b[(size_t)k * ldb];
    return sum;
}

static int parallel_k16_run(int M, int N, int K, const float *A, int lda, const float *B,
                            int ldb, float *C, int ldc, const gb_ctx *ctx)
{
#pragma omp parallel for num_threads(ctx->nthreads) schedule(static)
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            C[(size_t)i * ldc + j] = dot_column_k16(K, A + (size_t)i * lda, B + j, ldb);
    return 0;
}

static int parallel_vec_j_run(int M, int N, int K, const float *A, int lda, const float *B,
                              int ldb, float *C, int ldc, const gb_ctx *ctx)
{
#pragma omp parallel for num_threads(ctx->nthreads) schedule(static)
    for (int i = 0; i < M; i++)
        row_times_matrix_j8(N, K, A + (size_t)i * lda, B, ldb, C + (size_t)i * ldc, 0);
    return 0;
}

static int full_run(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                    float *C, int ldc, const gb_ctx *ctx)
{
#pragma omp parallel for num_threads(ctx->nthreads) schedule(static)
    for (int i = 0; i < M; i++)
        row_times_matrix_j8(N, K, A + (size_t)i * lda, B, ldb, C + (size_t)i * ldc, 1);
    return 0;
}

const gb_variant gb_variant_parallel = {
    .name = "parallel",
    .family = "parallel",
    .description = "parallel(i) + vectorize(j): parallel i, k, j-vector",
    .run = parallel_run,
};

const gb_variant gb_variant_parallel_k16 = {
    .name = "parallel_k16",
    .family = "parallel",
    .description = "split(k,16) + parallel(i) + unroll(k1): parallel i, j, k0, k1 x16; "
                   "scalar, B down a column",
    .run = parallel_k16_run,
};

const gb_variant gb_variant_parallel_vec_j = {
    .name = "parallel_vec_j",
    .family = "parallel",
    .description = "split(j,8) + parallel(i) + vectorize(j1): parallel i, j0, k, 8-lane j1",
    .run = parallel_vec_j_run,
};

const gb_variant gb_variant_full = {
    .name = "full",
    .family = "parallel",
    .description = "vec_j_k16 + parallel(i): parallel i, j0, k0, k1 x16, 8-lane j1",
    .run = full_run,
};
