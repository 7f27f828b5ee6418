/*
 * packed_kernels_portable.c - the packed schedule's portable micro-kernel:
 * GCC vector types, no intrinsics, so it builds on any target GCC or Clang
 * knows (x86-64 without -march, aarch64, ...) and is the fallback when the
 * CPU has neither AVX-512 nor AVX2+FMA.
 *
 * Register tile, 4 x 8 (MR x NR) in 16-byte vectors (SSE2 and NEON width;
 * the rule in packed.c with 16 registers of 4 floats, the x86-64 baseline):
 *
 *              b0 (4)   b1 (4)
 *   a[0] -->  c00      c01
 *    ...       ...      ...       8 accumulators + 2 B + 1 broadcast
 *   a[3] -->  c30      c31
 *
 * A multiply and an add, not an FMA: ISO C mode does not contract them, and
 * a target without FMA has nothing to contract them into.
 */
#include "packed_kernels.h"
#include "packed_pack.h"

#include <string.h>

#define MR 4
#define VF 4 /* floats per vector */
#define NV 2 /* vectors per row of the tile: NR = 8 */

typedef float v4f __attribute__((vector_size(VF * sizeof(float))));

/* The tile's k loop; A's element (i, k) at a[i * a_row + k * a_k] (packed:
 * 1 and MR; in place: A's row stride and 1). */
static inline __attribute__((always_inline)) void
tile_4x8(int kc, const float *restrict a, long a_row, long a_k, const float *restrict b,
         long ldb, long b_ahead, long b_far, float *restrict b_copy,
          const float *b_next, int b_next_rows, long next_ld,
         float *restrict c, long ldc, int accumulate)
{
    v4f acc[MR][NV];

    memset(acc, 0, sizeof acc);
    for (int k = 0; k < kc; k++) {
        v4f bv[NV];
        __builtin_prefetch(packed_b_ahead(b, b_ahead, 0), 0, 3);
        __builtin_prefetch(packed_b_ahead(b, b_ahead, VF * NV - 1), 0, 3);
        /* B in place with a short L1 distance: the row b_far ahead into L2
         * (packed_b_far; 0 in the plain kernels, where this folds away). */
        if (b_far)
            __builtin_prefetch(packed_b_ahead(b, b_far, 0), 0, 2);
        /* The next B micro-panel, a row per k while rows are left. */
        if (b_next_rows > 0) {
            __builtin_prefetch(b_next, 0, 2);
            /* Advanced only to a row that exists: never past B. */
            if (--b_next_rows > 0)
                b_next += next_ld;
        }
        /* memcpy: a vector load without assuming alignment or aliasing. */
        memcpy(bv, b, sizeof bv);
        /* b_copy is NULL in the plain kernels, where the branch folds
         * away; the copy kernel tests it (once per k, always the same way). */
        if (b_copy)
            memcpy(b_copy + (size_t)k * VF * NV, bv, sizeof bv);
#pragma GCC unroll 4
        for (int i = 0; i < MR; i++) {
            const float x = a[i * a_row];
            const v4f ai = { x, x, x, x };
#pragma GCC unroll 2
            for (int v = 0; v < NV; v++)
                acc[i][v] += ai * bv[v];
        }
        a += a_k;
        b += ldb;
    }
    for (int i = 0; i < MR; i++) {
        float *row = c + i * ldc;
        for (int v = 0; v < NV; v++) {
            v4f out = acc[i][v];
            if (accumulate) {
                v4f old;
                memcpy(&old, row + VF * v, sizeof old);
                out += old;
            }
            memcpy(row + VF * v, &out, sizeof out);
        }
    }
}

static void ukernel_portable_4x8(int kc, const float *restrict a, const float *restrict b,
                                 long ldb, float *restrict c, long ldc, int accumulate)
{
    tile_4x8(kc, a, 1, MR, b, ldb, PACKED_B_PREFETCH_ROWS * ldb, 0, NULL, NULL, 0, 0, c,
             ldc, accumulate);
}

static void ukernel_portable_4x8_a_in_place(int kc, const float *restrict a, long lda,
                                            const float *restrict b, long ldb,
                                            float *restrict c, long ldc, int accumulate)
{
    tile_4x8(kc, a, lda, 1, b, ldb, PACKED_B_PREFETCH_ROWS * ldb, 0, NULL, NULL, 0, 0, c,
             ldc, accumulate);
}

static void ukernel_portable_4x8_copy_b(int kc, const float *restrict a, long lda,
                                        const float *restrict b, long ldb, long b_ahead,
                                        long b_far, float *restrict b_copy,
                                        const float *b_next, int b_next_rows, long next_ld,
                                        float *restrict c, long ldc, int accumulate)
{
    if (lda == 0)
        tile_4x8(kc, a, 1, MR, b, ldb, b_ahead, b_far, b_copy, b_next, b_next_rows,
                 next_ld, c, ldc, accumulate);
    else
        tile_4x8(kc, a, lda, 1, b, ldb, b_ahead, b_far, b_copy, b_next, b_next_rows,
                 next_ld, c, ldc, accumulate);
}

/* Packing with this kernel's MR and NR as constants (packed_pack.h). */
static void pack_a_portable(int mc, int kc, const float *A, long lda,
                    float *restrict dst)
{
    pk_pack_a_block(mc, kc, A, lda, dst, MR);
}

static void pack_b_portable(int kc, int nc, const float *B, long ldb,
                    float *restrict dst)
{
    pk_pack_b_panel(kc, nc, B, ldb, dst, VF * NV);
}

static int cpu_runs_portable(void)
{
    return 1;
}

const packed_isa packed_isa_portable = {
    .name = "portable",
    .mr = MR,
    .nr = VF * NV,
    .vector_regs = 16,
    .vector_floats = VF,
    .kernel = ukernel_portable_4x8,
    .kernel_a_in_place = ukernel_portable_4x8_a_in_place,
    .kernel_copy_b = ukernel_portable_4x8_copy_b,
    .pack_a = pack_a_portable,
    .pack_b = pack_b_portable,
    .cpu_runs = cpu_runs_portable,
};
