/*
 * tutorial family - the six steps of TVM's "How to optimize GEMM on CPU"
 * tutorial, each adding one transform to the one before, with its block
 * size bn = 32 and kfactor = 4.  Blocks at the right and bottom edges are
 * narrower (M, N not multiples of 32); k runs K / 4 full ko steps, then the
 * K % 4 tail.
 *
 * tvm_blocking: tile(m, n, 32, 32), split(k, 4), reorder(mo, no, ko, ki, mi, ni)
 *     for mo, no:  C block = 0
 *                  for ko:  for ki:  for mi:  for ni:  C[m][n] += A[m][k] * B[k][n]   (scalar)
 * tvm_vectorize: + vectorize(ni)      ... for mi:  simd ni (32 lanes)
 * tvm_permute: reorder(mo, no, ko, mi, ki, ni): A is now read along its row
 *     for mo, no:  C block = 0;  for ko:  for mi:  for ki:  simd ni: ...
 * tvm_packing: + B packed as packedB[N/32][K][32] (panel bigN holds columns
 *   32 bigN .. 32 bigN + 31, rows contiguous), packed at every call with
 *   parallel(bigN) and vectorize(littleN) as in the tutorial, where the
 *   packing stage is parallel even before the compute stage is:
 *     parallel for bigN:  for k:  simd ln: packedB[bigN][k][ln] = B[k][32 bigN + ln]
 *     then tvm_permute's nest reading packedB[no] with row stride 32
 * tvm_cache_write: + cache_write: a 32x32 local block CC (on the stack,
 *   4 KiB) accumulates, and is copied to C once; ki unrolled x4:
 *     for mo, no:  CC = 0
 *                  for ko:  for mc:  ki unrolled x4:  simd nc: CC[mc][nc] += A[m][k] * packedB[no][k][nc]
 *                  for mi, ni:  C[m][n] = CC[mi][ni]
 * tvm_parallel: + parallel(mo): threads over 32-row blocks (so M = 16 runs
 *   on one thread: the tutorial parallelises mo alone).
 *
 * A block of full width (32 columns) runs in a function of its own whose
 * operands are restrict and whose width is the constant 32, as in TVM's
 * code (noalias buffers, compiled per shape); edge blocks at run-time
 * widths.  Without that GCC reloaded B's rows at every mi and stored C at
 * every ki: tvm_permute ran 3.3 ms, not 1.6, at M=128, N=K=768.
 *
 * The packed B buffer is allocated by prepare() outside the timed region
 * (TVM takes it from its workspace pool, not from the OS, at every call);
 * the packing itself is timed.
 */
#include <stdlib.h>

#include "gemmbench.h"
#include "schedule_util.h"

#define BN 32     /* the tutorial's bn: a 32x32 fp32 block is 4 KiB of L1 */
#define KFACTOR 4 /* the tutorial's kfactor */

/* Every block body is inlined into the driver twice: at run-time extents
 * for the edge blocks, at constant ones for the full blocks. */
#define TUT_INLINE static inline __attribute__((always_inline))

enum tutorial_step {
    STEP_BLOCKING,
    STEP_VECTORIZE,
    STEP_PERMUTE,
    STEP_PACKING,
    STEP_CACHE_WRITE,
    STEP_PARALLEL
};

/* One mb x nb block of C (mb, nb <= BN) and the operands it reads: A at
 * its first row, B at its first column (or the packed panel, ldb = BN). */
typedef struct tile_block {
    int mb, nb, K;
    const float *A;
    int lda;
    const float *B;
    int ldb;
    float *C;
    int ldc;
} tile_block;

/* c[0:n] += a * b[0:n], scalar unless the step has vectorize(ni). */
TUT_INLINE void block_axpy(int vectorize, int n, float a, const float *restrict b,
                              float *restrict c)
{
    if (vectorize) {
        vec_axpy(n, a, b, c);
        return;
    }
    for (int j = 0; j < n; j++)
        c[j] += a * b[j];
}

/* C block = 0 (the reduction's init, before ko). */
TUT_INLINE void block_zero(int vectorize, const tile_block *t)
{
    for (int mi = 0; mi < t->mb; mi++) {
        float *c = t->C + (size_t)mi * t->ldc;
        if (vectorize)
            vec_zero(t->nb, c);
        else
            for (int ni = 0; ni < t->nb; ni++)
                c[ni] = 0.0f;
    }
}

/* One k step of the order ki, mi, ni: every row of the block gets row k of B. */
TUT_INLINE void block_k_then_rows(int vectorize, const tile_block *t, int k)
{
    const float *b = t->B + (size_t)k * t->ldb;
    for (int mi = 0; mi < t->mb; mi++)
        block_axpy(vectorize, t->nb, t->A[(size_t)mi * t->lda + k], b,
                   t->C + (size_t)mi * t->ldc);
}

/* tvm_blocking, tvm_vectorize: ko, ki, mi, ni. */
TUT_INLINE void block_ko_ki_mi_ni(int vectorize, const tile_block *t)
{
    int k = 0;

    block_zero(vectorize, t);
    for (; k + KFACTOR <= t->K; k += KFACTOR)      /* ko */
        for (int ki = 0; ki < KFACTOR; ki++)       /* ki */
            block_k_then_rows(vectorize, t, k + ki);
    for (; k < t->K; k++)                          /* tail of split(k, 4) */
        block_k_then_rows(vectorize, t, k);
}

/* tvm_permute, tvm_packing: ko, mi, ki, ni-vector; a row of A is read along
 * k within a ko step. */
TUT_INLINE void ko_mi_ki_ni(int mb, int nb, int K, const float *restrict A, int lda,
                            const float *restrict B, int ldb, float *restrict C, int ldc)
{
    for (int k = 0; k + KFACTOR <= K; k += KFACTOR) /* ko */
        for (int mi = 0; mi < mb; mi++)             /* mi */
            for (int ki = 0; ki < KFACTOR; ki++)    /* ki */
                vec_axpy(nb, A[(size_t)mi * lda + k + ki], B + (size_t)(k + ki) * ldb,
                         C + (size_t)mi * ldc);
}

TUT_INLINE void block_ko_mi_ki_ni(const tile_block *t)
{
    block_zero(1, t);
    ko_mi_ki_ni(t->mb, t->nb, t->K, t->A, t->lda, t->B, t->ldb, t->C, t->ldc);
    for (int k = t->K - t->K % KFACTOR; k < t->K; k++) /* tail of split(k, 4) */
        block_k_then_rows(1, t, k);
}

/* tvm_cache_write, tvm_parallel: the block accumulates in a local CC and
 * reaches C once; ko, mc, ki unrolled, nc-vector. */
TUT_INLINE void block_cached(const tile_block *t)
{
    float cc[BN * BN]; /* bounded: BN x BN, 4 KiB */
    int k = 0;

    for (int mc = 0; mc < t->mb; mc++)
        vec_zero(t->nb, cc + mc * BN);
    for (; k + KFACTOR <= t->K; k += KFACTOR)      /* ko */
        for (int mc = 0; mc < t->mb; mc++) {       /* mc */
            const float *a = t->A + (size_t)mc * t->lda + k;
#pragma GCC unroll 4
            for (int ki = 0; ki < KFACTOR; ki++)   /* ki, unrolled */
                vec_axpy(t->nb, a[ki], t->B + (size_t)(k + ki) * t->ldb, cc + mc * BN);
        }
    for (; k < t->K; k++)                          /* tail of split(k, 4) */
        for (int mc = 0; mc < t->mb; mc++)
            vec_axpy(t->nb, t->A[(size_t)mc * t->lda + k], t->B + (size_t)k * t->ldb,
                     cc + mc * BN);
    for (int mi = 0; mi < t->mb; mi++)             /* write-back, as the tutorial: scalar */
        for (int ni = 0; ni < t->nb; ni++)
            t->C[(size_t)mi * t->ldc + ni] = cc[mi * BN + ni];
}

/* ---- array packing ------------------------------------------------------- */

/* The packed B buffer, sized for one shape; prepare() makes it. */
typedef struct packed_b {
    size_t floats;
    float *buf;
} packed_b;

static size_t packed_b_floats(int N, int K)
{
    return (size_t)((N + BN - 1) / BN) * K * BN;
}

/* The buffer on a cache line, as TVM aligns its workspace (64 bytes). */
static float *packed_b_alloc(size_t floats)
{
    return aligned_alloc(64, (floats * sizeof(float) + 63) & ~(size_t)63);
}

/* packedB[bigN][k][littleN] = B[k][bigN * 32 + littleN]; the last panel
 * holds only N % 32 columns (the rest is never read). */
static void pack_b_panels(int N, int K, const float *B, int ldb, float *packed, int nthreads)
{
    const int panels = (N + BN - 1) / BN;

#pragma omp parallel for num_threads(nthreads) schedule(static)
    for (int big_n = 0; big_n < panels; big_n++) {
        const int width = gb_min_int(BN, N - big_n * BN);
        float *panel = packed + (size_t)big_n * K * BN;
        for (int k = 0; k < K; k++) {
            const float *restrict src = B + (size_t)k * ldb + (size_t)big_n * BN;
            float *restrict dst = panel + (size_t)k * BN;
#pragma omp simd
            for (int ln = 0; ln < width; ln++)
                dst[ln] = src[ln];
        }
    }
}

static int packing_prepare(int M, int N, int K, const float *B, int ldb, const gb_ctx *ctx,
                           int prepack, void **state)
{
    packed_b *p = malloc(sizeof *p);

    (void)M, (void)B, (void)ldb, (void)ctx, (void)prepack;
    if (p == NULL)
        return -1;
    p->floats = packed_b_floats(N, K);
    p->buf = packed_b_alloc(p->floats);
    if (p->buf == NULL) {
        free(p);
        return -1;
    }
    *state = p;
    return 0;
}

static void packing_release(void *state)
{
    packed_b *p = state;
    if (p)
        free(p->buf);
    free(p);
}

/* ---- the driver: mo, no around one step's block body ---------------------- */

/* One block, by the step's body. */
TUT_INLINE void block_run(enum tutorial_step step, const tile_block *t)
{
    switch (step) {
    case STEP_BLOCKING:
        block_ko_ki_mi_ni(0, t);
        break;
    case STEP_VECTORIZE:
        block_ko_ki_mi_ni(1, t);
        break;
    case STEP_PERMUTE:
    case STEP_PACKING:
        block_ko_mi_ki_ni(t);
        break;
    case STEP_CACHE_WRITE:
    case STEP_PARALLEL:
        block_cached(t);
        break;
    }
}

/* A block of full width, its operands restrict: TVM's buffers are noalias,
 * and its code has the block's extent as a constant.  With C known not to
 * alias B, the rows of B a ko step reads stay in registers across mi
 * (tvm_permute: 3.3 ms -> 1.6 ms at M=128, N=K=768, one thread; with the
 * pointers taken from the tile_block in the driver GCC could not tell). */
static __attribute__((noinline)) void block_full(enum tutorial_step step, int mb, int K,
                                                 const float *restrict A, int lda,
                                                 const float *restrict B, int ldb,
                                                 float *restrict C, int ldc)
{
    const tile_block t = { mb, BN, K, A, lda, B, ldb, C, ldc };
    block_run(step, &t);
}

/* A block at the right edge, narrower than BN. */
static __attribute__((noinline)) void block_edge(enum tutorial_step step, const tile_block *t)
{
    block_run(step, t);
}

static inline int tutorial_run(enum tutorial_step step, int M, int N, int K, const float *A,
                               int lda, const float *B, int ldb, float *C, int ldc,
                               const gb_ctx *ctx)
{
    const packed_b *state = ctx->state;
    float *owned = NULL, *packed = NULL;

    if (step >= STEP_PACKING) {
        if (state && state->floats >= packed_b_floats(N, K)) {
            packed = state->buf;
        } else { /* called without prepare(): a buffer for this call */
            packed = owned = packed_b_alloc(packed_b_floats(N, K));
            if (packed == NULL)
                return -1;
        }
        pack_b_panels(N, K, B, ldb, packed, ctx->nthreads);
    }

#pragma omp parallel for num_threads(ctx->nthreads) if (step == STEP_PARALLEL) schedule(static)
    for (int m0 = 0; m0 < M; m0 += BN)       /* mo */
        for (int n0 = 0; n0 < N; n0 += BN) { /* no */
            const tile_block t = {
                .mb = gb_min_int(BN, M - m0),
                .nb = gb_min_int(BN, N - n0),
                .K = K,
                .A = A + (size_t)m0 * lda,
                .lda = lda,
                .B = packed ? packed + (size_t)(n0 / BN) * K * BN : B + n0,
                .ldb = packed ? BN : ldb,
                .C = C + (size_t)m0 * ldc + n0,
                .ldc = ldc,
            };
            if (t.nb == BN)
                block_full(step, t.mb, K, t.A, lda, t.B, t.ldb, t.C, ldc);
            else
                block_edge(step, &t);
        }
    free(owned);
    return 0;
}

/* One variant per step: a kernel with the step folded in, and its entry. */
#define TUTORIAL_VARIANT(NAME, STEP, PREPARE, RELEASE, DESCRIPTION)                        \
    static int NAME##_run(int M, int N, int K, const float *A, int lda, const float *B,    \
                          int ldb, float *C, int ldc, const gb_ctx *ctx)                   \
    {                                                                                      \
        return tutorial_run(STEP, M, N, K, A, lda, B, ldb, C, ldc, ctx);                   \
    }                                                                                      \
    const gb_variant gb_variant_##NAME = {                                                 \
        .name = #NAME,                                                                     \
        .family = "tutorial",                                                              \
        .description = DESCRIPTION,                                                        \
        .run = NAME##_run,                                                                 \
        .prepare = PREPARE,                                                                \
        .release = RELEASE,                                                                \
        .single_thread = STEP < STEP_PACKING, /* packing is parallel from there on */      \
    };

TUTORIAL_VARIANT(tvm_blocking, STEP_BLOCKING, NULL, NULL,
                 "tile(m,n,32,32) + split(k,4): mo, no, ko, ki, mi, ni; scalar, one thread")
TUTORIAL_VARIANT(tvm_vectorize, STEP_VECTORIZE, NULL, NULL,
                 "tvm_blocking + vectorize(ni): mo, no, ko, ki, mi, ni-vector")
TUTORIAL_VARIANT(tvm_permute, STEP_PERMUTE, NULL, NULL,
                 "reorder: mo, no, ko, mi, ki, ni-vector (A read along rows)")
TUTORIAL_VARIANT(tvm_packing, STEP_PACKING, packing_prepare, packing_release,
                 "tvm_permute on B packed per call as packedB[N/32][K][32] (packing parallel)")
TUTORIAL_VARIANT(tvm_cache_write, STEP_CACHE_WRITE, packing_prepare, packing_release,
                 "tvm_packing + 32x32 local C block written once, ki unrolled x4")
TUTORIAL_VARIANT(tvm_parallel, STEP_PARALLEL, packing_prepare, packing_release,
                 "tvm_cache_write + parallel(mo): threads over 32-row blocks")
