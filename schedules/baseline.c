/*
 * baseline - the computation as written, no transform (study: "None -
 * triple-nested loop as written").
 *
 *   for i in M:  for j in N:  C[i][j] = sum over k of A[i][k] * B[k][j]
 *
 * The k loop reads B down a column (stride ldb), one element per cache line;
 * that, and a single thread, is what every other schedule improves on.
 *
 * The same loop in bf16 (products of bf16 values summed in float, as
 * oneDNN's bf16:bf16:f32) and in u8s8 (u8 x s8 products summed in int32):
 * each type's speed-up has its own scalar base.
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

static int baseline_bf16(int M, int N, int K, const void *Av, int lda, const void *Bv, int ldb,
                         void *Cv, int ldc, const gb_ctx *ctx)
{
    const gb_bf16 *A = Av, *B = Bv;
    float *C = Cv;

    (void)ctx;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float sum = 0.0f;
            for (int k = 0; k < K; k++)
                sum += gb_bf16_to_float(A[(size_t)i * lda + k]) *
                       gb_bf16_to_float(B[(size_t)k * ldb + j]);
            C[(size_t)i * ldc + j] = sum;
        }
    return 0;
}

static int baseline_u8s8(int M, int N, int K, const void *Av, int lda, const void *Bv, int ldb,
                         void *Cv, int ldc, const gb_ctx *ctx)
{
    const uint8_t *A = Av;
    const int8_t *B = Bv;
    int32_t *C = Cv;

    (void)ctx;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            int32_t sum = 0;
            for (int k = 0; k < K; k++)
                sum += (int32_t)A[(size_t)i * lda + k] * B[(size_t)k * ldb + j];
            C[(size_t)i * ldc + j] = sum;
        }
    return 0;
}

static const gb_typed_kernel baseline_typed[GB_DTYPE_COUNT] = {
    [GB_DTYPE_BF16] = { .run = baseline_bf16 },
    [GB_DTYPE_U8S8] = { .run = baseline_u8s8 },
};

const gb_variant gb_variant_baseline = {
    .name = "baseline",
    .family = "baseline",
    .description = "i, j, k as written; scalar, one thread",
    .run = baseline_run,
    .single_thread = 1,
    .typed = { [GB_DTYPE_BF16] = &baseline_typed[GB_DTYPE_BF16],
               [GB_DTYPE_U8S8] = &baseline_typed[GB_DTYPE_U8S8] },
};
