/*
 * packed_kernels_avx2.c - the packed schedule's AVX2+FMA micro-kernel.
 *
 * Register tile, 4 x 24 (MR x NR; packed.c's rule with 16 ymm registers):
 *
 *              b0 (8)   b1 (8)   b2 (8)      <- one k row of the B panel
 *   a[0] -->  c00      c01      c02
 *   a[1] -->  c10      c11      c12
 *   a[2] -->  c20      c21      c22
 *   a[3] -->  c30      c31      c32
 *
 * 12 accumulators + 3 B vectors + 1 broadcast = all 16 registers.  Per k:
 * 3 loads and 4 broadcasts against 12 FMAs (6 cycles on two FMA units);
 * 12 independent accumulators cover the FMA latency (4-5 cycles) x 2 units.
 */
#include "packed_kernels.h"
#include "packed_pack.h"

#if defined(__x86_64__)
#include <immintrin.h>

#define MR 4
#define NV 3 /* ymm vectors per row of the tile: NR = 24 */

/* The tile's k loop; A's element (i, k) at a[i * a_row + k * a_k] (packed:
 * 1 and MR; in place: A's row stride and 1). */
__attribute__((target("avx2,fma"), always_inline)) static inline void
tile_4x24(int kc, const float *restrict a, long a_row, long a_k, const float *restrict b,
          long ldb, long b_ahead, long b_far, float *restrict b_copy,
          const float *b_next, int b_next_rows, long next_ld,
          float *restrict c, long ldc, int accumulate)
{
    __m256 acc[MR][NV];

#pragma GCC unroll 4
    for (int i = 0; i < MR; i++)
#pragma GCC unroll 3
        for (int v = 0; v < NV; v++)
            acc[i][v] = _mm256_setzero_ps();

#pragma GCC unroll 4
    for (int k = 0; k < kc; k++) {
        __m256 bv[NV];
        /* 96 bytes: two lines, three when the row is not line-aligned. */
        _mm_prefetch(packed_b_ahead(b, b_ahead, 0), _MM_HINT_T0);
        _mm_prefetch(packed_b_ahead(b, b_ahead, 8 * NV / 2), _MM_HINT_T0);
        _mm_prefetch(packed_b_ahead(b, b_ahead, 8 * NV - 1), _MM_HINT_T0);
        /* B in place with a short L1 distance: the row b_far ahead into L2
         * (packed_b_far; 0 in the plain kernels, where this folds away). */
        if (b_far) {
            _mm_prefetch(packed_b_ahead(b, b_far, 0), _MM_HINT_T1);
            _mm_prefetch(packed_b_ahead(b, b_far, 8 * NV - 1), _MM_HINT_T1);
        }
        /* The next B micro-panel, a row per k while rows are left. */
        if (b_next_rows > 0) {
            _mm_prefetch(packed_b_ahead(b_next, 0, 0), PACKED_B_NEXT_HINT);
            _mm_prefetch(packed_b_ahead(b_next, 0, 8 * NV - 1), PACKED_B_NEXT_HINT);
            /* Advanced only to a row that exists: never past B. */
            if (--b_next_rows > 0)
                b_next += next_ld;
        }
#pragma GCC unroll 3
        for (int v = 0; v < NV; v++)
            bv[v] = _mm256_loadu_ps(b + 8 * v);
        /* b_copy is NULL in the plain kernels, where the branch folds
         * away; the copy kernel tests it (once per k, always the same way). */
        if (b_copy) {
#pragma GCC unroll 3
            for (int v = 0; v < NV; v++)
                _mm256_store_ps(b_copy + (size_t)k * 8 * NV + 8 * v, bv[v]);
        }
#pragma GCC unroll 4
        for (int i = 0; i < MR; i++) {
            const __m256 ai = _mm256_broadcast_ss(a + i * a_row);
#pragma GCC unroll 3
            for (int v = 0; v < NV; v++)
                acc[i][v] = _mm256_fmadd_ps(ai, bv[v], acc[i][v]);
        }
        a += a_k;
        b += ldb;
    }

#pragma GCC unroll 4
    for (int i = 0; i < MR; i++) {
        float *row = c + i * ldc;
#pragma GCC unroll 3
        for (int v = 0; v < NV; v++) {
            __m256 out = acc[i][v];
            if (accumulate)
                out = _mm256_add_ps(out, _mm256_loadu_ps(row + 8 * v));
            _mm256_storeu_ps(row + 8 * v, out);
        }
    }
}

__attribute__((target("avx2,fma"))) static void
ukernel_avx2_4x24(int kc, const float *restrict a, const float *restrict b, long ldb,
                  float *restrict c, long ldc, int accumulate)
{
    tile_4x24(kc, a, 1, MR, b, ldb, PACKED_B_PREFETCH_ROWS * ldb, 0, NULL, NULL, 0, 0, c,
              ldc, accumulate);
}

__attribute__((target("avx2,fma"))) static void
ukernel_avx2_4x24_a_in_place(int kc, const float *restrict a, long lda,
                             const float *restrict b, long ldb, float *restrict c, long ldc,
                             int accumulate)
{
    tile_4x24(kc, a, lda, 1, b, ldb, PACKED_B_PREFETCH_ROWS * ldb, 0, NULL, NULL, 0, 0, c,
              ldc, accumulate);
}

/* b_copy is 64-byte aligned and NR = 24 floats a row: every row 32-byte aligned. */
__attribute__((target("avx2,fma"))) static void
ukernel_avx2_4x24_copy_b(int kc, const float *restrict a, long lda, const float *restrict b,
                         long ldb, long b_ahead, long b_far, float *restrict b_copy,
                         const float *b_next, int b_next_rows, long next_ld,
                         float *restrict c, long ldc, int accumulate)
{
    if (lda == 0)
        tile_4x24(kc, a, 1, MR, b, ldb, b_ahead, b_far, b_copy, b_next, b_next_rows,
                  next_ld, c, ldc, accumulate);
    else
        tile_4x24(kc, a, lda, 1, b, ldb, b_ahead, b_far, b_copy, b_next, b_next_rows,
                  next_ld, c, ldc, accumulate);
}

/* Packing with this kernel's MR and NR as constants (packed_pack.h). */
__attribute__((target("avx2,fma"))) static void
pack_a_avx2(int mc, int kc, const float *A, long lda, float *restrict dst)
{
    pk_pack_a_block(mc, kc, A, lda, dst, MR);
}

__attribute__((target("avx2,fma"))) static void
pack_b_avx2(int kc, int nc, const float *B, long ldb, float *restrict dst)
{
    pk_pack_b_panel(kc, nc, B, ldb, dst, 8 * NV);
}

static int cpu_runs_avx2(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

const packed_isa packed_isa_avx2 = {
    .name = "avx2",
    .mr = MR,
    .nr = 8 * NV,
    .vector_regs = 16,
    .vector_floats = 8,
    .kernel = ukernel_avx2_4x24,
    .kernel_a_in_place = ukernel_avx2_4x24_a_in_place,
    .kernel_copy_b = ukernel_avx2_4x24_copy_b,
    .pack_a = pack_a_avx2,
    .pack_b = pack_b_avx2,
    .cpu_runs = cpu_runs_avx2,
};
#endif
