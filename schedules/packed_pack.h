/*
 * packed_pack.h - packing for the packed schedule, written once and
 * instantiated by each packed_kernels_ISA.c with its own MR and NR as
 * constants, under its own target attribute: the copies then become that
 * ISA's full-width moves and shuffles (a copy of NR floats with NR known
 * is three zmm moves for AVX-512, not a call to memcpy), and no ISA-specific
 * packing code is written twice.
 *
 * Layouts (what the micro-kernel reads, packed_kernels.h):
 *   A micro-panel: MR rows x kc, k-major: element (i, k) at k*MR + i;
 *   B panel: NR-wide micro-panels, each k-major: element (k, j) of
 *            micro-panel p at p*kc*NR + k*NR + j.
 * Rows past the matrix (A) and columns past it (B) are zeros, so the kernel
 * always computes a full tile on defined values.
 */
#ifndef GB_PACKED_PACK_H
#define GB_PACKED_PACK_H

#include <stddef.h>
#include <string.h>

/* Generic vectors: GCC 12+ and Clang both know __builtin_shufflevector, and
 * lower it to the target's shuffles (AVX unpack/permute, SSE, NEON zip). */
typedef float pk_v4 __attribute__((vector_size(16)));
typedef float pk_v8 __attribute__((vector_size(32)));

/* rows[i] = A[i][k..k+8) on entry; out[t] = A[0..8)[k+t] on return. */
static inline __attribute__((always_inline)) void pk_transpose_8x8(const pk_v8 rows[8],
                                                                     pk_v8 out[8])
{
    pk_v8 t[8], u[8];

    /* Interleave pairs of rows, then pairs of pairs, then 128-bit halves. */
    for (int i = 0; i < 8; i += 2) {
        t[i] = __builtin_shufflevector(rows[i], rows[i + 1], 0, 8, 1, 9, 4, 12, 5, 13);
        t[i + 1] = __builtin_shufflevector(rows[i], rows[i + 1], 2, 10, 3, 11, 6, 14, 7, 15);
    }
    for (int i = 0; i < 8; i += 4)
        for (int h = 0; h < 2; h++) {
            u[i + h] = __builtin_shufflevector(t[i + h], t[i + h + 2], 0, 1, 8, 9, 4, 5, 12, 13);
            u[i + h + 2] =
                __builtin_shufflevector(t[i + h], t[i + h + 2], 2, 3, 10, 11, 6, 7, 14, 15);
        }
    /* u[0]: k+0 rows 0-3 | k+4 rows 0-3 ... u[4]: the same for rows 4-7. */
    for (int t4 = 0; t4 < 4; t4++) {
        const int src = t4 == 0 ? 0 : t4 == 1 ? 2 : t4 == 2 ? 1 : 3;
        out[t4] = __builtin_shufflevector(u[src], u[src + 4], 0, 1, 2, 3, 8, 9, 10, 11);
        out[t4 + 4] = __builtin_shufflevector(u[src], u[src + 4], 4, 5, 6, 7, 12, 13, 14, 15);
    }
}

/* rows[i] = A[i][k..k+4); out[t] = A[0..4)[k+t]. */
static inline __attribute__((always_inline)) void pk_transpose_4x4(const pk_v4 rows[4],
                                                                     pk_v4 out[4])
{
    const pk_v4 t0 = __builtin_shufflevector(rows[0], rows[1], 0, 4, 1, 5);
    const pk_v4 t1 = __builtin_shufflevector(rows[0], rows[1], 2, 6, 3, 7);
    const pk_v4 t2 = __builtin_shufflevector(rows[2], rows[3], 0, 4, 1, 5);
    const pk_v4 t3 = __builtin_shufflevector(rows[2], rows[3], 2, 6, 3, 7);

    out[0] = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
    out[1] = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
    out[2] = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
    out[3] = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
}

/* One A micro-panel: rows [0, rows) of A (row stride lda), k in [0, kc).
 * Full panels of 8 or 4 rows go 8 or 4 k at a time through a transpose;
 * the k tail and partial panels element by element. */
static inline __attribute__((always_inline)) void
pk_pack_a_panel(int rows, int kc, const float *A, long lda, float *restrict dst, const int mr)
{
    int k = 0;

    if (rows == mr && mr == 8) {
        for (; k + 8 <= kc; k += 8) {
            pk_v8 in[8], out[8];
            for (int i = 0; i < 8; i++)
                memcpy(&in[i], A + i * lda + k, sizeof in[i]);
            pk_transpose_8x8(in, out);
            memcpy(dst + (size_t)k * 8, out, sizeof out);
        }
    } else if (rows == mr && mr == 4) {
        for (; k + 4 <= kc; k += 4) {
            pk_v4 in[4], out[4];
            for (int i = 0; i < 4; i++)
                memcpy(&in[i], A + i * lda + k, sizeof in[i]);
            pk_transpose_4x4(in, out);
            memcpy(dst + (size_t)k * 4, out, sizeof out);
        }
    }
    for (; k < kc; k++) {
        float *out = dst + (size_t)k * mr;
        for (int i = 0; i < mr; i++)
            out[i] = i < rows ? A[i * lda + k] : 0.0f;
    }
}

/* A block: mc rows (row stride lda) x kc into consecutive micro-panels. */
static inline __attribute__((always_inline)) void
pk_pack_a_block(int mc, int kc, const float *A, long lda, float *restrict dst, const int mr)
{
    for (int p = 0; p < mc; p += mr)
        pk_pack_a_panel(mc - p < mr ? mc - p : mr, kc, A + (size_t)p * lda, lda,
                        dst + (size_t)p * kc, mr);
}

/* B panel: kc rows (row stride ldb) x nc columns into NR-wide micro-panels
 * (micro-panel p at p*kc*NR), row by row, so that B is read in its own
 * order: whole rows, which the hardware prefetcher follows (packing one
 * micro-panel at a time reads a column sliver, a row stride apart per
 * k, and was measured slower even with software prefetch: results/notes/packed-tried.md). */
static inline __attribute__((always_inline)) void
pk_pack_b_panel(int kc, int nc, const float *B, long ldb, float *restrict dst, const int nr)
{
    const size_t panel = (size_t)kc * nr;
    const int full = nc / nr * nr;

    for (int k = 0; k < kc; k++) {
        const float *row = B + (size_t)k * ldb;
        float *out = dst + (size_t)k * nr;
        int j = 0;
        for (; j < full; j += nr, out += panel)
            memcpy(out, row + j, (size_t)nr * sizeof(float));
        if (j < nc) {
            memcpy(out, row + j, (size_t)(nc - j) * sizeof(float));
            memset(out + (nc - j), 0, (size_t)(nr - (nc - j)) * sizeof(float));
        }
    }
}

#endif
