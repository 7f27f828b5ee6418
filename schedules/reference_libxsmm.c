/*
 * reference family - libxsmm: Intel's JIT generator of small-matrix GEMM
 * kernels, the code under many deep-learning runtimes' CPU paths, as a
 * ceiling in every type it has a GEMM for.
 *
 * Not a schedule.  libxsmm is column-major, so the row-major C = A B is
 * run as C^T = B^T A^T: libxsmm's A is our B (N x K, leading dimension
 * ldb), its B our A (K x M at lda), its C our C (N x M at ldc).  Its
 * kernels are made for one shape and set of leading dimensions, and do no
 * cache blocking of their own; its threaded entry points (libxsmmext)
 * hand large GEMMs to a BLAS.  So the work is cut here: C in tiles of
 * LIBXSMM_MB rows by LIBXSMM_NB columns, the tiles spread over
 * ctx->nthreads OpenMP threads, each tile one call of a JIT kernel with
 * the whole K.  B is copied into contiguous panels of LIBXSMM_NB columns
 * (a panel read in place at a large ldb conflicts in the caches), in
 * every call as a BLAS packs, or once in prepare() when pre-packed.  The (at most four) kernels of the
 * tile shapes are generated in prepare(), outside the timed region; a call
 * whose lda, ldc or thread count differ from what prepare() assumed makes
 * them again first (libxsmm's registry returns code it made before).
 *
 * bf16 (libxsmm_bsmmdispatch: bf16 in, fp32 sums and C, vdpbf16ps) and
 * u8s8 (libxsmm_subimmdispatch: libxsmm's A signed, its B unsigned, int32
 * C, vpdpbusd, which does not saturate) need libxsmm's A in "VNNI" layout:
 * pairs (bf16) or quadruples (int8) of consecutive k of a column side by
 * side: the panels of B are packed so.  K and lda must be multiples of the pair (quadruple):
 * otherwise every tile's rows of A are first copied with K padded with
 * zeros (the awkward shapes of the tests; the benchmark's K are not).
 * Built only when the Makefile found libxsmm (GB_HAVE_LIBXSMM).
 */
#define _GNU_SOURCE /* unsetenv */
#include "gemmbench.h"
#include "reference.h"

#ifdef GB_HAVE_LIBXSMM
#include <libxsmm.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* libxsmm's initialisation (its first call: libxsmm_init) puts
 * OMP_PROC_BIND=TRUE into the environment where it is unset: its own
 * threading wants bound threads.  gemmbench's threads are the user's to
 * place (--bind, their variables): the run would record a policy nobody
 * chose, and every child (ab's builds, the schedule compiler) would inherit
 * it.  So the library is initialised here, once, before any other of its
 * calls, and what it added is taken out again. */
static void xsmm_init(void)
{
    static int done;
    int bind, places;

    if (done)
        return;
    done = 1;
    bind = getenv("OMP_PROC_BIND") != NULL;
    places = getenv("OMP_PLACES") != NULL;
    libxsmm_init();
    if (!bind)
        unsetenv("OMP_PROC_BIND");
    if (!places)
        unsetenv("OMP_PLACES");
}

/* The tile: rows of C (libxsmm's N) and columns of C (libxsmm's M). */
#define LIBXSMM_MB 64
#define LIBXSMM_NB 128

/* One measurement's kernels and buffers. */
typedef struct xsmm_plan {
    gb_dtype dtype;
    int M, N, K;
    int vnni;              /* k per 32-bit lane of A: 1 (f32), 2 (bf16), 4 (int8) */
    int kp;                /* K rounded up to vnni */
    int lda, ldc, nthreads; /* what the kernels were made for */
    int a_direct;          /* A read in place (else copied per tile with K padded) */
    int prepacked;         /* bp holds the prepared B; else packed per call */
    /* B in panels of nb columns, each contiguous from bp + j0 * kp elements:
     * [kp / vnni][panel width][vnni] (bf16 and u8s8: libxsmm's VNNI layout) */
    void *bp;
    void *abuf;            /* per thread: LIBXSMM_MB x kp of A, when !a_direct */
    size_t abuf_stride;    /* bytes per thread in abuf */
    /* kernels[i][j]: tile of a full (i = 0) or last (i = 1) row block by a
     * full (j = 0) or last (j = 1) column panel */
    libxsmm_xmmfunction kernels[2][2];
    int mb, nb;            /* full tile: rows, columns */
} xsmm_plan;

static size_t xsmm_size_a(gb_dtype t)
{
    return gb_dtype_size_a(t);
}

static void xsmm_why(const gb_ctx *ctx, const char *what)
{
    if (ctx->why && ctx->whylen)
        snprintf(ctx->why, ctx->whylen, "libxsmm %s: %s", "1.17", what);
}

/* The JIT kernel of libxsmm's m x n x k for plan p's type, or NULL. */
static libxsmm_xmmfunction xsmm_dispatch(const xsmm_plan *p, int m, int n, int lda_x, int ldb_x,
                                         int ldc_x)
{
    const libxsmm_blasint lda = lda_x, ldb = ldb_x, ldc = ldc_x;
    const int prefetch = LIBXSMM_GEMM_PREFETCH_NONE;
    libxsmm_xmmfunction f;

    f.xmm = NULL;
    if (p->dtype == GB_DTYPE_F32) {
        const float alpha = 1.0f, beta = 0.0f;
        const int flags = LIBXSMM_GEMM_FLAG_BETA_0;
        f.smm = libxsmm_smmdispatch(m, n, p->kp, &lda, &ldb, &ldc, &alpha, &beta, &flags,
                                    &prefetch);
    } else if (p->dtype == GB_DTYPE_BF16) {
        const float alpha = 1.0f, beta = 0.0f;
        const int flags = LIBXSMM_GEMM_FLAG_BETA_0 | LIBXSMM_GEMM_FLAG_VNNI_A;
        f.bsmm = libxsmm_bsmmdispatch(m, n, p->kp, &lda, &ldb, &ldc, &alpha, &beta, &flags,
                                      &prefetch);
    } else {
        const int alpha = 1, beta = 0;
        /* libxsmm's B is our A: unsigned; its A (our B) signed. */
        const int flags = LIBXSMM_GEMM_FLAG_BETA_0 | LIBXSMM_GEMM_FLAG_VNNI_A |
                          LIBXSMM_GEMM_FLAG_B_UNSIGNED;
        f.subimm = libxsmm_subimmdispatch(m, n, p->kp, &lda, &ldb, &ldc, &alpha, &beta, &flags,
                                          &prefetch);
    }
    return f;
}

/* (Re)makes p's kernels and A buffers for A at lda, C at ldc and nthreads
 * threads.  Returns 0, or -1 with ctx->why. */
static int xsmm_build(xsmm_plan *p, int lda, int ldc, int nthreads, const gb_ctx *ctx)
{
    const int rows[2] = { p->mb, p->M % p->mb }, cols[2] = { p->nb, p->N % p->nb };

    xsmm_init();
    p->lda = lda;
    p->ldc = ldc;
    p->nthreads = nthreads;
    p->a_direct = lda % p->vnni == 0 && p->K % p->vnni == 0;
    free(p->abuf);
    p->abuf = NULL;
    if (!p->a_direct) {
        p->abuf_stride = ((size_t)p->mb * p->kp * xsmm_size_a(p->dtype) + 63) & ~(size_t)63;
        p->abuf = aligned_alloc(64, p->abuf_stride * (size_t)nthreads);
        if (!p->abuf)
            return -1;
    }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            p->kernels[i][j].xmm = NULL;
            if (rows[i] == 0 || cols[j] == 0)
                continue;
            /* libxsmm's A: a panel of B, its width (in vnni-groups) apart */
            p->kernels[i][j] = xsmm_dispatch(p, cols[j], rows[i], cols[j],
                                             p->a_direct ? lda : p->kp, ldc);
            if (!p->kernels[i][j].xmm) {
                char what[160];
                snprintf(what, sizeof what, "no %s kernel for m=%d n=%d k=%d on %s",
                         gb_dtype_name(p->dtype), cols[j], rows[i], p->kp,
                         libxsmm_get_target_arch());
                xsmm_why(ctx, what);
                return -1;
            }
        }
    return 0;
}

/* Packs k-groups [g0, g1) of B (rows g * vnni .. g * vnni + vnni - 1, zeros
 * past K) into every panel of p->bp: libxsmm's A, column-major, a panel's
 * rows of B side by side in 32-bit lanes for bf16 (2) and int8 (4). */
static void xsmm_pack_b_groups(const xsmm_plan *p, const void *B, int ldb, int g0, int g1)
{
    const int v = p->vnni, N = p->N, K = p->K;

    for (int j0 = 0; j0 < N; j0 += p->nb) {
        const int w = N - j0 < p->nb ? N - j0 : p->nb;
        for (int g = g0; g < g1; g++) {
            const int k = g * v;
            if (p->dtype == GB_DTYPE_F32) {
                memcpy((float *)p->bp + (size_t)j0 * p->kp + (size_t)g * w,
                       (const float *)B + (size_t)k * ldb + j0, (size_t)w * sizeof(float));
            } else if (p->dtype == GB_DTYPE_BF16) {
                const gb_bf16 *r0 = (const gb_bf16 *)B + (size_t)k * ldb + j0;
                const gb_bf16 *r1 = k + 1 < K ? r0 + ldb : NULL;
                uint32_t *dst = (uint32_t *)((gb_bf16 *)p->bp + (size_t)j0 * p->kp) + (size_t)g * w;
                if (r1) {
#pragma omp simd
                    for (int n = 0; n < w; n++)
                        dst[n] = (uint32_t)r0[n] | (uint32_t)r1[n] << 16;
                } else {
#pragma omp simd
                    for (int n = 0; n < w; n++)
                        dst[n] = (uint32_t)r0[n];
                }
            } else {
                const uint8_t *r[4];
                uint32_t *dst = (uint32_t *)((int8_t *)p->bp + (size_t)j0 * p->kp) + (size_t)g * w;
                static const uint8_t zeros[LIBXSMM_NB];
                for (int q = 0; q < 4; q++)
                    r[q] = k + q < K ? (const uint8_t *)B + (size_t)(k + q) * ldb + j0 : zeros;
#pragma omp simd
                for (int n = 0; n < w; n++)
                    dst[n] = (uint32_t)r[0][n] | (uint32_t)r[1][n] << 8 |
                             (uint32_t)r[2][n] << 16 | (uint32_t)r[3][n] << 24;
            }
        }
    }
}

static void xsmm_release(void *state)
{
    xsmm_plan *p = state;

    if (!p)
        return;
    free(p->bp);
    free(p->abuf);
    free(p);
}

static int xsmm_prepare_type(gb_dtype t, int M, int N, int K, const void *B, int ldb,
                             const gb_ctx *ctx, int prepack, void **state)
{
    xsmm_plan *p = calloc(1, sizeof *p);
    int arch;

    xsmm_init();
    arch = libxsmm_get_target_archid();

    *state = NULL;
    if (!p)
        return -1;
    p->dtype = t;
    p->M = M;
    p->N = N;
    p->K = K;
    p->vnni = t == GB_DTYPE_F32 ? 1 : t == GB_DTYPE_BF16 ? 2 : 4;
    p->kp = (K + p->vnni - 1) / p->vnni * p->vnni;
    p->mb = M < LIBXSMM_MB ? M : LIBXSMM_MB;
    p->nb = N < LIBXSMM_NB ? N : LIBXSMM_NB;
    p->prepacked = prepack;
    /* libxsmm 1.17 emits vpdpbusd for int8 on any AVX-512 target: refuse
     * one without VNNI rather than die of an illegal instruction. */
    if (t == GB_DTYPE_U8S8 && arch < LIBXSMM_X86_AVX512_CLX) {
        char what[128];
        snprintf(what, sizeof what, "int8 GEMM needs AVX512_VNNI (clx or later); target is %s",
                 libxsmm_get_target_arch());
        xsmm_why(ctx, what);
        xsmm_release(p);
        return -1;
    }
    {
        const size_t bytes = (size_t)p->kp * N * gb_dtype_size_b(t);
        p->bp = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
        if (!p->bp) {
            xsmm_release(p);
            return -1;
        }
        if (p->prepacked)
            xsmm_pack_b_groups(p, B, ldb, 0, p->kp / p->vnni);
    }
    /* The harness's and the tests' layout: every operand padded as B is. */
    if (xsmm_build(p, K + (ldb - N), ldb, ctx->nthreads, ctx) != 0) {
        xsmm_release(p);
        return -1;
    }
    *state = p;
    return 0;
}

/* One tile: rows [i0, i0 + mi) by columns [j0, j0 + nj) of C, with kernel
 * f.  abuf: this thread's A buffer (when A is not read in place). */
static void xsmm_tile(const xsmm_plan *p, libxsmm_xmmfunction f, int i0, int mi, int j0,
                      const void *A, void *C, char *abuf)
{
    const size_t sa = xsmm_size_a(p->dtype), sc = gb_dtype_size_c(p->dtype);
    const char *a = (const char *)A + (size_t)i0 * p->lda * sa;
    char *c = (char *)C + ((size_t)i0 * p->ldc + j0) * sc;

    if (!p->a_direct) {
        for (int i = 0; i < mi; i++) {
            memcpy(abuf + (size_t)i * p->kp * sa, a + (size_t)i * p->lda * sa, (size_t)p->K * sa);
            memset(abuf + ((size_t)i * p->kp + p->K) * sa, 0, (size_t)(p->kp - p->K) * sa);
        }
        a = abuf;
    }
    switch (p->dtype) {
    case GB_DTYPE_F32:
        f.smm((const float *)p->bp + (size_t)j0 * p->kp, (const float *)a, (float *)c);
        break;
    case GB_DTYPE_BF16:
        f.bsmm((const libxsmm_bfloat16 *)p->bp + (size_t)j0 * p->kp, (const libxsmm_bfloat16 *)a,
               (float *)c);
        break;
    default:
        f.subimm((const char *)p->bp + (size_t)j0 * p->kp, (const unsigned char *)a, (int *)c);
        break;
    }
}

static int xsmm_run_plan(int M, int N, int K, const void *A, int lda, const void *B, int ldb,
                         void *C, int ldc, const gb_ctx *ctx)
{
    xsmm_plan *p = ctx->state;
    int row_blocks, col_panels, items, repack;

    if (!p || M != p->M || N != p->N || K != p->K)
        return -1;
    if (M == 0 || N == 0)
        return 0;
    if ((lda != p->lda || ldc != p->ldc || ctx->nthreads != p->nthreads) &&
        xsmm_build(p, lda, ldc, ctx->nthreads, ctx) != 0)
        return -1;
    row_blocks = (M + p->mb - 1) / p->mb;
    col_panels = (N + p->nb - 1) / p->nb;
    items = row_blocks * col_panels;
    repack = !p->prepacked;
#pragma omp parallel num_threads(p->nthreads)
    {
        char *abuf = p->abuf ? (char *)p->abuf + p->abuf_stride * (size_t)omp_get_thread_num()
                             : NULL;
        if (repack) {
            const int groups = p->kp / p->vnni, nt = omp_get_num_threads();
            const int t = omp_get_thread_num();
            xsmm_pack_b_groups(p, B, ldb, (int)((long)groups * t / nt),
                               (int)((long)groups * (t + 1) / nt));
#pragma omp barrier
        }
#pragma omp for schedule(static)
        for (int it = 0; it < items; it++) {
            const int rb = it / col_panels, cp = it % col_panels;
            const int i0 = rb * p->mb, j0 = cp * p->nb;
            const int last_r = i0 + p->mb > M, last_c = j0 + p->nb > N;
            xsmm_tile(p, p->kernels[last_r][last_c], i0, last_r ? M - i0 : p->mb, j0, A, C, abuf);
        }
    }
    return 0;
}

/* ---- f32 ------------------------------------------------------------------ */

static int xsmm_prepare_f32(int M, int N, int K, const float *B, int ldb, const gb_ctx *ctx,
                            int prepack, void **state)
{
    return xsmm_prepare_type(GB_DTYPE_F32, M, N, K, B, ldb, ctx, prepack, state);
}

static int xsmm_run_f32(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                        float *C, int ldc, const gb_ctx *ctx)
{
    return xsmm_run_plan(M, N, K, A, lda, B, ldb, C, ldc, ctx);
}

/* ---- bf16 and u8s8 ---------------------------------------------------------- */

static int xsmm_prepare_bf16(int M, int N, int K, const void *B, int ldb, const gb_ctx *ctx,
                             int prepack, void **state)
{
    return xsmm_prepare_type(GB_DTYPE_BF16, M, N, K, B, ldb, ctx, prepack, state);
}

static int xsmm_prepare_u8s8(int M, int N, int K, const void *B, int ldb, const gb_ctx *ctx,
                             int prepack, void **state)
{
    return xsmm_prepare_type(GB_DTYPE_U8S8, M, N, K, B, ldb, ctx, prepack, state);
}

/* "libxsmm 1.17 JIT cpx" and, when A is copied to pad K, that it is. */
static void xsmm_impl(int M, int N, int K, const gb_ctx *ctx, char *buf, size_t len)
{
    const xsmm_plan *p = ctx->state;

    (void)M, (void)N, (void)K;
    if (len == 0)
        return;
    snprintf(buf, len, "libxsmm %d.%d JIT %s%s", LIBXSMM_VERSION_MAJOR, LIBXSMM_VERSION_MINOR,
             libxsmm_get_target_arch(), p && !p->a_direct ? ", A copied (K padded)" : "");
}

static const gb_typed_kernel xsmm_bf16 = {
    .run = xsmm_run_plan,
    .prepare = xsmm_prepare_bf16,
    .release = xsmm_release,
    .impl = xsmm_impl,
    .supports_prepack = 1,
};

static const gb_typed_kernel xsmm_u8s8 = {
    .run = xsmm_run_plan,
    .prepare = xsmm_prepare_u8s8,
    .release = xsmm_release,
    .impl = xsmm_impl,
    .supports_prepack = 1,
};

/* The target libxsmm generates code for: the CPU's (CPUID), unless
 * LIBXSMM_TARGET names another ("hsw", "skx", ...). */
static void xsmm_library(gb_library *lib)
{
    static const char *const vars[] = { "LIBXSMM_TARGET", NULL };
    const char *arch;

    /* The arch libxsmm_init() picks: LIBXSMM_TARGET's, else the CPU's.
     * Read without the initialisation where the variable is unset: every
     * run records the libraries, and libxsmm_init() costs about 6 ms (10 MB
     * of locked, populated registry; a fifth of a small run's CPU on the
     * AMD EPYC guest) in runs that never call libxsmm. */
    if (getenv("LIBXSMM_TARGET") != NULL) {
        xsmm_init();
        arch = libxsmm_get_target_arch();
    } else {
        arch = libxsmm_cpuid_name(libxsmm_cpuid());
    }

    snprintf(lib->version, sizeof lib->version, "%d.%d.%d", LIBXSMM_VERSION_MAJOR,
             LIBXSMM_VERSION_MINOR, LIBXSMM_VERSION_UPDATE);
    snprintf(lib->kernels, sizeof lib->kernels, "%s", arch ? arch : "");
    reference_forced_by(lib, vars);
}

const gb_variant gb_variant_libxsmm = {
    .name = "libxsmm",
    .family = "reference",
    .description = "libxsmm JIT kernels (C^T = B^T A^T, beta=0) on 64x128 tiles of C spread "
                   "over OpenMP threads (libxsmm itself is single-threaded), B packed in "
                   "128-column panels per call or once (+prepack); bf16 and u8s8: its VNNI kernels",
    .run = xsmm_run_f32,
    .prepare = xsmm_prepare_f32,
    .release = xsmm_release,
    .resolve = reference_resolve,
    .supports_prepack = 1,
    .library = xsmm_library,
    .typed = { [GB_DTYPE_BF16] = &xsmm_bf16, [GB_DTYPE_U8S8] = &xsmm_u8s8 },
};

#endif
