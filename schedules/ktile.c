/*
 * ktile family - k4 k8 k16 k32 k64: the study's pure k-tiling,
 *   split(k, TK) + reorder(i, j, k0, k1) + vectorize(j).
 * k0 and k1 sit inside the vectorized j, so (as in TVM) they stay and their
 * body widens to the whole row of C:
 *     for i:  C[i][:] = 0
 *             for k0 in K / TK:  for k1 in TK:  simd j: C[i][j] += A[i][k] * B[k][j]
 *             for k in the K % TK tail:         simd j: C[i][j] += A[i][k] * B[k][j]
 * One thread, no unrolling: only the k split distinguishes these from vec_j.
 * TK is a compile-time constant in each variant, so the compiler sees a k1
 * loop of fixed length and does with it what it does by default.
 */
#include "gemmbench.h"
#include "schedule_util.h"

/* One row of C, k split by tk (a constant after inlining). */
static inline void row_times_matrix_ksplit(int tk, int N, int K, const float *restrict a,
                                           const float *restrict B, int ldb,
                                           float *restrict c)
{
    int k = 0;

    vec_zero(N, c);
    for (; k + tk <= K; k += tk)          /* k0 */
        for (int k1 = 0; k1 < tk; k1++)   /* k1 */
            vec_axpy(N, a[k + k1], B + (size_t)(k + k1) * ldb, c);
    for (; k < K; k++)                    /* tail of split(k, tk) */
        vec_axpy(N, a[k], B + (size_t)k * ldb, c);
}

static inline int ktile_run(int tk, int M, int N, int K, const float *A, int lda,
                            const float *B, int ldb, float *C, int ldc)
{
    for (int i = 0; i < M; i++)
        row_times_matrix_ksplit(tk, N, K, A + (size_t)i * lda, B, ldb, C + (size_t)i * ldc);
    return 0;
}

/* One variant per TK: a kernel with TK folded in, and its table entry. */
#define KTILE_VARIANT(TK)                                                               \
    static int k##TK##_run(int M, int N, int K, const float *A, int lda, const float *B, \
                           int ldb, float *C, int ldc, const gb_ctx *ctx)                \
    {                                                                                   \
        (void)ctx;                                                                      \
        return ktile_run(TK, M, N, K, A, lda, B, ldb, C, ldc);                          \
    }                                                                                   \
    const gb_variant gb_variant_k##TK = {                                               \
        .name = "k" #TK,                                                                \
        .family = "ktile",                                                              \
        .description = "split(k," #TK ") + reorder(i,j,k0,k1) + vectorize(j): i, k0, "  \
                       "k1, j-vector; one thread",                                      \
        .run = k##TK##_run,                                                             \
        .single_thread = 1,                                                             \
    };

KTILE_VARIANT(4)
KTILE_VARIANT(8)
KTILE_VARIANT(16)
KTILE_VARIANT(32)
KTILE_VARIANT(64)
