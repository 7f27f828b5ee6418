/*
 * schedule_util.h - loop bodies that several schedules share, so that each
 * lives once instead of being copied into every file with small changes
 * (a fix to one copy would miss the others).  static inline:
 * every schedule gets its own copy compiled into its own nest, with its
 * constant arguments (strip widths, unroll counts) folded in.
 *
 * schedules/ is compiled with -fno-tree-vectorize: a loop becomes SIMD only
 * where a helper below says `#pragma omp simd`, at the compiler's preferred
 * width (256-bit, 8 fp32 lanes, for GCC's -march=native on this class of
 * x86), unless the pragma names a simdlen.
 */
#ifndef GB_SCHEDULE_UTIL_H
#define GB_SCHEDULE_UTIL_H

#include <stddef.h>

/* The hardware's fp32 SIMD lanes for the ISA this file is compiled for (the
 * rule-based schedule's R3 asks for exactly this many). */
#if defined(__AVX512F__)
#define GB_VEC_LANES 16
#define GB_VEC_ISA "AVX-512"
#elif defined(__AVX__)
#define GB_VEC_LANES 8
#define GB_VEC_ISA "AVX/AVX2"
#elif defined(__SSE2__) || defined(__ARM_NEON) || defined(__ALTIVEC__)
#define GB_VEC_LANES 4
#define GB_VEC_ISA "128-bit SIMD"
#else
#define GB_VEC_LANES 1
#define GB_VEC_ISA "no SIMD"
#endif

static inline int gb_min_int(int a, int b)
{
    return a < b ? a : b;
}

/* c[0:n] = 0 as one vectorized loop. */
static inline void vec_zero(int n, float *restrict c)
{
#pragma omp simd
    for (int j = 0; j < n; j++)
        c[j] = 0.0f;
}

/* The widened body of every "vectorize(j)" nest: c[0:n] += a * b[0:n], the
 * n lanes one SIMD loop.  With n a constant (an 8-lane j1 strip) it is one
 * vector instruction, and a caller's loop around it keeps c in a register. */
static inline void vec_axpy(int n, float a, const float *restrict b, float *restrict c)
{
#pragma omp simd
    for (int j = 0; j < n; j++)
        c[j] += a * b[j];
}

/* One row of C = one row of A times B, as the nest k, j-vector:
 *   c[:] = 0;  for k:  simd j: c[j] += a[k] * B[k][j]
 * (vectorize(j) with the k loop inside it, as TVM lowers it). */
static inline void row_times_matrix(int N, int K, const float *restrict a,
                                    const float *restrict B, int ldb, float *restrict c)
{
    vec_zero(N, c);
    for (int k = 0; k < K; k++)
        vec_axpy(N, a[k], B + (size_t)k * ldb, c);
}

/* ---- split(j, 8): 8-lane column strips (parallel_vec_j, vec_j_k16, full) ---- */

#define GB_J1 8 /* the study's split(j, 8): one AVX2 vector of fp32 */

/* The j1 vector: 8 fp32 lanes as a GCC vector type, so that the strip of C
 * it holds is a register across the whole k loop, as LLVM keeps it for
 * TVM's nest (TVM's buffers are noalias).  An omp simd loop accumulating
 * into C would be stored and reloaded at every k: GCC does not move vector
 * stores out of a loop.  Loads and stores go through memcpy, since rows of
 * B and C need not be 32-byte aligned. */
typedef float gb_f32x8 __attribute__((vector_size(GB_J1 * sizeof(float))));

static inline gb_f32x8 f32x8_load(const float *p)
{
    gb_f32x8 v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
}

static inline void f32x8_store(float *p, gb_f32x8 v)
{
    __builtin_memcpy(p, &v, sizeof v);
}

/* One 8-wide strip of a row of C, over all of k before the next strip:
 *   acc = 0;  for k: acc[0:8] += a[k] * B[k][0:8];  c[0:8] = acc
 * With split_k16, k is split by 16 and k1 unrolled x16 (vec_j_k16, full);
 * the K % 16 tail runs as a plain loop. */
static inline void strip8_times_matrix(int K, const float *a, const float *B, int ldb,
                                       float *c, int split_k16)
{
    gb_f32x8 acc = { 0 };
    int k = 0;

    if (split_k16)
        for (; k + 16 <= K; k += 16) { /* k0 */
#pragma GCC unroll 16
            for (int k1 = 0; k1 < 16; k1++)
                acc += a[k + k1] * f32x8_load(B + (size_t)(k + k1) * ldb);
        }
    for (; k < K; k++) /* all of k, or the tail of split(k, 16) */
        acc += a[k] * f32x8_load(B + (size_t)k * ldb);
    f32x8_store(c, acc);
}

/* One row of C as the nest j0, k, 8-lane j1 vector (split(j, 8),
 * reorder(i, j0, j1, k), vectorize(j1)).  The last strip, N % 8 lanes, is
 * too narrow for the vector type: it runs as k, j-vector over its lanes,
 * accumulating in C, with k unsplit (an edge, not the hot loop). */
static inline void row_times_matrix_j8(int N, int K, const float *a, const float *B, int ldb,
                                       float *c, int split_k16)
{
    int j0 = 0;

    for (; j0 + GB_J1 <= N; j0 += GB_J1)
        strip8_times_matrix(K, a, B + j0, ldb, c + j0, split_k16);
    if (j0 < N)
        row_times_matrix(N - j0, K, a, B + j0, ldb, c + j0);
}

#endif
