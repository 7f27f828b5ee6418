/*
 * packed_kernels_avx512.c - the packed schedule's AVX-512 micro-kernel.
 *
 * Register tile, 8 x 48 (MR x NR; packed.c's rule with 32 zmm registers):
 *
 *              b0 (16)   b1 (16)   b2 (16)      <- one k row of the B panel
 *   a[0] -->  c00       c01       c02
 *   a[1] -->  c10       c11       c12
 *    ...        ...  24 accumulators  ...
 *   a[7] -->  c70       c71       c72
 *
 * Per k: 3 loads of B, 8 broadcasts of A, 24 FMAs: 12 cycles on two FMA
 * units against 11 loads (and 4 or 5 prefetches) on two or three load ports, so
 * the FMA units set the pace; 24 independent
 * accumulators cover the 4-cycle FMA latency on both units three times.
 * 24 + 3 registers leave 5 of the 32 free, so nothing spills.
 */
#include "packed_kernels.h"
#include "packed_pack.h"

#if defined(__x86_64__)
#include <immintrin.h>

#define MR 8
#define NV 3 /* zmm vectors per row of the tile: NR = 48 */
/* k before the end of the k loop at which the C tile is prefetched. */
#ifndef C_AHEAD
#define C_AHEAD 16
#endif

/* The tile's k loop.  Element (i, k) of the A micro-panel is at
 * a[i * a_row + k * a_k]: packed, a_row 1 and a_k MR (constants, so the
 * broadcasts are a[0..7] of a pointer that steps MR floats); read in place,
 * a_row is A's row stride and a_k 1. */
__attribute__((target("avx512f"), always_inline)) static inline void
tile_8x48(int kc, const float *restrict a, long a_row, long a_k, const float *restrict b,
          long ldb, long b_ahead, long b_far, float *restrict b_copy,
          const float *b_next, int b_next_rows,
          float *restrict c, long ldc, int accumulate)
{
    __m512 acc[MR][NV];

#pragma GCC unroll 8
    for (int i = 0; i < MR; i++)
#pragma GCC unroll 3
        for (int v = 0; v < NV; v++)
            acc[i][v] = _mm512_setzero_ps();

#pragma GCC unroll 4
    for (int k = 0; k < kc; k++) {
        __m512 bv[NV];
        /* The C tile is read (or written) only after the k loop: its 24
         * lines are asked for C_AHEAD k before the end, behind the last
         * FMAs.  (Asked for at the start, they were gone from L1 by the
         * end where B streams through it: 2 % slower at 1 thread.) */
        if (k == (kc > C_AHEAD ? kc - C_AHEAD : 0)) {
#pragma GCC unroll 8
            for (int i = 0; i < MR; i++)
#pragma GCC unroll 3
                for (int v = 0; v < NV; v++)
                    _mm_prefetch((const char *)(c + i * ldc + 16 * v), _MM_HINT_T0);
        }
        /* A row not on a line boundary spans one line more. */
#pragma GCC unroll 3
        for (int v = 0; v < NV; v++)
            _mm_prefetch(packed_b_ahead(b, b_ahead, 16 * v), _MM_HINT_T0);
        _mm_prefetch(packed_b_ahead(b, b_ahead, 16 * NV - 1), _MM_HINT_T0);
        /* B in place with a short L1 distance: the row b_far ahead into L2
         * (packed_b_far; 0 in the plain kernels, where this folds away). */
        if (b_far) {
#pragma GCC unroll 3
            for (int v = 0; v < NV; v++)
                _mm_prefetch(packed_b_ahead(b, b_far, 16 * v), _MM_HINT_T1);
        }
        /* The next B micro-panel, a row per k while rows are left: it
         * waits in L2 when its first pass comes (packed.c, b_next). */
        if (b_next_rows > 0) {
#pragma GCC unroll 3
            for (int v = 0; v < NV; v++)
                _mm_prefetch(packed_b_ahead(b_next, 0, 16 * v), PACKED_B_NEXT_HINT);
            _mm_prefetch(packed_b_ahead(b_next, 0, 16 * NV - 1), PACKED_B_NEXT_HINT);
            /* Advanced only to a row that exists: never past B. */
            if (--b_next_rows > 0)
                b_next += ldb;
        }
        /* A in place: its MR rows, one per k in turn, two lines ahead
         * (packed A, a_k MR, is one stream the hardware follows; eight
         * streams a row stride apart it follows less well: measured
         * 2.7 % of the call on a Zen 4 core, one line ahead 2.3 % less). */
        if (a_k == 1)
            _mm_prefetch(packed_b_ahead(a, (k & 7) * a_row, 32), _MM_HINT_T0);
#pragma GCC unroll 3
        for (int v = 0; v < NV; v++)
            bv[v] = _mm512_loadu_ps(b + 16 * v);
        /* b_copy is NULL in the plain kernels, where the branch folds
         * away; the copy kernel tests it (once per k, always the same way). */
        if (b_copy) {
#pragma GCC unroll 3
            for (int v = 0; v < NV; v++)
                _mm512_store_ps(b_copy + (size_t)k * 16 * NV + 16 * v, bv[v]);
        }
#pragma GCC unroll 8
        for (int i = 0; i < MR; i++) {
            const __m512 ai = _mm512_set1_ps(a[i * a_row]);
#pragma GCC unroll 3
            for (int v = 0; v < NV; v++)
                acc[i][v] = _mm512_fmadd_ps(ai, bv[v], acc[i][v]);
        }
        a += a_k;
        b += ldb;
    }

#pragma GCC unroll 8
    for (int i = 0; i < MR; i++) {
        float *row = c + i * ldc;
#pragma GCC unroll 3
        for (int v = 0; v < NV; v++) {
            __m512 out = acc[i][v];
            if (accumulate)
                out = _mm512_add_ps(out, _mm512_loadu_ps(row + 16 * v));
            _mm512_storeu_ps(row + 16 * v, out);
        }
    }
}

__attribute__((target("avx512f"))) static void
ukernel_avx512_8x48(int kc, const float *restrict a, const float *restrict b, long ldb,
                    float *restrict c, long ldc, int accumulate)
{
    tile_8x48(kc, a, 1, MR, b, ldb, PACKED_B_PREFETCH_ROWS * ldb, 0, NULL, NULL, 0, c,
              ldc, accumulate);
}

__attribute__((target("avx512f"))) static void
ukernel_avx512_8x48_a_in_place(int kc, const float *restrict a, long lda,
                               const float *restrict b, long ldb, float *restrict c, long ldc,
                               int accumulate)
{
    tile_8x48(kc, a, lda, 1, b, ldb, PACKED_B_PREFETCH_ROWS * ldb, 0, NULL, NULL, 0, c,
              ldc, accumulate);
}

/* b_copy is 64-byte aligned (packed.c's buffers), so its stores are aligned. */
__attribute__((target("avx512f"))) static void
ukernel_avx512_8x48_copy_b(int kc, const float *restrict a, long lda, const float *restrict b,
                           long ldb, long b_ahead, float *restrict b_copy,
                           const float *b_next, int b_next_rows,
                           float *restrict c, long ldc, int accumulate)
{
    const long b_far = packed_b_far(b_ahead, ldb);

    if (lda == 0)
        tile_8x48(kc, a, 1, MR, b, ldb, b_ahead, b_far, b_copy, b_next, b_next_rows, c, ldc,
                  accumulate);
    else
        tile_8x48(kc, a, lda, 1, b, ldb, b_ahead, b_far, b_copy, b_next, b_next_rows, c, ldc,
                  accumulate);
}

/* Packing with this kernel's MR and NR as constants (packed_pack.h). */
__attribute__((target("avx512f"))) static void
pack_a_avx512(int mc, int kc, const float *A, long lda, float *restrict dst)
{
    pk_pack_a_block(mc, kc, A, lda, dst, MR);
}

__attribute__((target("avx512f"))) static void
pack_b_avx512(int kc, int nc, const float *B, long ldb, float *restrict dst)
{
    pk_pack_b_panel(kc, nc, B, ldb, dst, 16 * NV);
}

static int cpu_runs_avx512(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
}

const packed_isa packed_isa_avx512 = {
    .name = "avx512",
    .mr = MR,
    .nr = 16 * NV,
    .vector_regs = 32,
    .vector_floats = 16,
    .kernel = ukernel_avx512_8x48,
    .kernel_a_in_place = ukernel_avx512_8x48_a_in_place,
    .kernel_copy_b = ukernel_avx512_8x48_copy_b,
    .pack_a = pack_a_avx512,
    .pack_b = pack_b_avx512,
    .cpu_runs = cpu_runs_avx512,
};
#endif
