/*
 * vectorized family - vectorize alone, no threads.
 *
 * vec_j: vectorize(j).  As in TVM, the k loop nested inside the vectorized j
 *   loop stays and its body widens, so the nest becomes
 *     for i:  C[i][:] = 0;  for k:  simd j: C[i][j] += A[i][k] * B[k][j]
 *   B is now read along rows (unit stride) and C[i][:] is the vector.
 *
 * vec_k: split(k, 8) + vectorize(k1).  TVM refuses this (vectorizing a
 *   reduction axis is illegal there; the study lists it as an expected
 *   failure).  In C it is a legal SIMD reduction:
 *     for i:  for j:  sum = 0;  simd(8 lanes) reduction(+: sum) k: sum += A[i][k] * B[k][j]
 *   The compiler does the split: 8 partial sums, lane l holding the k with
 *   k % 8 == l, added together after the loop, and a scalar tail for K % 8.
 *   B's column is gathered with stride ldb.  The summation order differs
 *   from the other schedules; the result is still exact, because the
 *   harness fills A and B with small integers.
 *
 * vec_j_k16: split(j, 8), split(k, 16), reorder(i, j0, k0, j1, k1),
 *   vectorize(j1), unroll(k1).  k1 sits inside the vectorized j1, so it stays
 *   (unrolled) and its body widens:
 *     for i:  for j0:  for k0:  k1 unrolled x16:  simd j1 (8 lanes): C[i][j0+j1] += ...
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

static int vec_k_run(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                     float *C, int ldc, const gb_ctx *ctx)
{
    (void)ctx;
    for (int i = 0; i < M; i++) {
        const float *restrict a = A + (size_t)i * lda;
        for (int j = 0; j < N; j++) {
            const float *restrict b = B + j;
            float sum = 0.0f;
#pragma omp simd reduction(+ : sum) simdlen(8)
            for (int k = 0; k < K; k++)
                sum += a[k] * b[(size_t)k * ldb];
            C[(size_t)i * ldc + j] = sum;
        }
    }
    return 0;
}

static int vec_j_k16_run(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                         float *C, int ldc, const gb_ctx *ctx)
{
    (void)ctx;
    for (int i = 0; i < M; i++)
        row_times_matrix_j8(N, K, A + (size_t)i * lda, B, ldb, C + (size_t)i * ldc, 1);
    return 0;
}

const gb_variant gb_variant_vec_j = {
    .name = "vec_j",
    .family = "vectorized",
    .description = "vectorize(j): i, k, j-vector; one thread",
    .run = vec_j_run,
    .single_thread = 1,
};

const gb_variant gb_variant_vec_k = {
    .name = "vec_k",
    .family = "vectorized",
    .description = "split(k,8) + vectorize(k1): illegal in TVM (study: expected failure); "
                   "here a legal 8-lane SIMD reduction over k",
    .run = vec_k_run,
    .single_thread = 1,
};

const gb_variant gb_variant_vec_j_k16 = {
    .name = "vec_j_k16",
    .family = "vectorized",
    .description = "split(j,8) + split(k,16) + vectorize(j1) + unroll(k1): i, j0, k0, "
                   "k1 x16, 8-lane j1; one thread",
    .run = vec_j_k16_run,
    .single_thread = 1,
};
