/*
 * packed_lowp_avx512.c - the packed schedule's bf16 and u8s8 micro-kernels
 * on AVX-512 (AVX512_BF16's vdpbf16ps, AVX512_VNNI's vpdpbusd), and their
 * B packing into the dot-product layout (packed_lowp.h).
 *
 * Register tile, 8 x 48 (MR x NR), one 32-bit k group per step (a bf16
 * pair, or a u8 / s8 quad):
 *
 *                 b0 (16 groups) b1 (16)   b2 (16)   <- one k group of B's micro-panel
 *   bcast a[0] -->  c00          c01       c02
 *   bcast a[1] -->  c10          c11       c12
 *      ...            ...  24 accumulators  ...
 *   bcast a[7] -->  c70          c71       c72
 *
 * The rule is packed.c's (its header): with 32 zmm registers, MR x NV
 * accumulators + NV B vectors + 1 broadcast <= 32, enough independent
 * accumulators for dot-product latency x 2 ports (5 x 2 = 10 <= 24), the
 * most dot products per loaded value, MR a divisor of 8 (BERT's M are
 * multiples of 16).  Per group: 3 loads of B, 8 broadcasts of A (a
 * vpbroadcastd each: A's 32-bit group of row i), 24 dot products: 12
 * cycles on two ports against 11 loads, so the dot-product ports set the
 * pace.  Accumulators are fp32 (bf16) or int32 (u8s8); the tile stays in
 * registers over the whole k block and goes to C once, masked to the m x n
 * corner that exists (a fringe tile needs no scratch copy: masked loads
 * and stores never touch what lies beyond).
 *
 * vpdpbusd takes its unsigned bytes from the second operand and its
 * signed ones from the third: A (u8) is the broadcast, B (s8) the vector.
 *
 * Written with GCC's intrinsics under target attributes, so that the file
 * builds without -march flags; packed_lowp.c calls it only where
 * __builtin_cpu_supports says the CPU runs it.  Learnt from: oneDNN's
 * brgemm (the [k/2][N][2] and [k/4][N][4] "VNNI" layouts of B, A
 * broadcast a group at a time) and BLIS's kernels (one micro-kernel,
 * edges at the store).
 */
#include "packed_lowp.h"

#if defined(__x86_64__)

#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MR 8
#define NR 48

#define TARGET_BF16 __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))
#define TARGET_FMA __attribute__((target("avx512f,avx512bw,avx512vl,fma")))
#define TARGET_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))

/* The columns of the tile's vector v (16 wide) that exist when n do. */
static inline __mmask16 column_mask(int n, int v)
{
    const int left = n - 16 * v;
    return left >= 16 ? (__mmask16)0xFFFF : left <= 0 ? 0 : (__mmask16)((1u << left) - 1);
}

/* The C tile's rows that exist are asked for at the kernel's start, so the
 * k loop (hundreds of cycles) hides their trip from L2 or L3. */
static inline void prefetch_c(const char *c, long row_bytes, int m)
{
    for (int i = 0; i < m; i++) {
        _mm_prefetch(c + i * row_bytes, _MM_HINT_T0);
        _mm_prefetch(c + i * row_bytes + 64, _MM_HINT_T0);
        _mm_prefetch(c + i * row_bytes + 128, _MM_HINT_T0);
        _mm_prefetch(c + i * row_bytes + 188, _MM_HINT_T0);
    }
}

/* The store is branch-free: a row past m gets empty masks (and row 0's
 * address, so no pointer leaves C), and beta = 0 loads under an empty mask
 * (zeros, no access).  With a branch per row GCC 12 split the u8s8
 * accumulators' live ranges and spilled them inside the k loop. */

/* Named accumulators (cIV: row I, vector V), so that GCC keeps all 24 in
 * registers; an array indexed in a loop it may leave in memory. */
#define DECLARE_ROW(T, i, zero) T c##i##0 = zero, c##i##1 = zero, c##i##2 = zero;
#define DECLARE_TILE(T, zero)                                                 \
    DECLARE_ROW(T, 0, zero) DECLARE_ROW(T, 1, zero) DECLARE_ROW(T, 2, zero)   \
    DECLARE_ROW(T, 3, zero) DECLARE_ROW(T, 4, zero) DECLARE_ROW(T, 5, zero)   \
    DECLARE_ROW(T, 6, zero) DECLARE_ROW(T, 7, zero)
#define FOR_ROWS(op) op(0) op(1) op(2) op(3) op(4) op(5) op(6) op(7)

/* The f32 tile to C (both bf16 kernels): masked to the rows and columns
 * that exist, added to C when accumulating. */
#define STORE_ROW_F32(i)                                                              \
    {                                                                                 \
        float *ci = c + (long)(i < m ? i : 0) * ldc;                                  \
        const __mmask16 s0 = i < m ? k0 : 0, s1 = i < m ? k1 : 0, s2 = i < m ? k2 : 0; \
        const __mmask16 l0 = accumulate ? s0 : 0, l1 = accumulate ? s1 : 0;           \
        const __mmask16 l2 = accumulate ? s2 : 0;                                     \
        c##i##0 = _mm512_add_ps(c##i##0, _mm512_maskz_loadu_ps(l0, ci));              \
        c##i##1 = _mm512_add_ps(c##i##1, _mm512_maskz_loadu_ps(l1, ci + 16));         \
        c##i##2 = _mm512_add_ps(c##i##2, _mm512_maskz_loadu_ps(l2, ci + 32));         \
        _mm512_mask_storeu_ps(ci, s0, c##i##0);                                       \
        _mm512_mask_storeu_ps(ci + 16, s1, c##i##1);                                  \
        _mm512_mask_storeu_ps(ci + 32, s2, c##i##2);                                  \
    }
#define STORE_TILE_F32 FOR_ROWS(STORE_ROW_F32)

/* A packing call's last groups ask for the first groups of the next B
 * micro-panel (the same rows, width bytes on): a block's packing calls
 * come one a micro-panel, the other A micro-panels' calls between them,
 * and the next one's first rows would otherwise come from L3 with nothing
 * asked ahead.  rows of the group, row_bytes apart, both lines a row's
 * width may touch.  An address, not a pointer into B: past the block's
 * last micro-panel it is past B's end, where a prefetch does not fault. */
static inline void prefetch_next_panel(const void *b, long offset, long row_bytes, int rows,
                                       int width)
{
    const uintptr_t at = (uintptr_t)b + (uintptr_t)offset;

    for (int r = 0; r < rows; r++) {
        _mm_prefetch((const char *)(at + (uintptr_t)(r * row_bytes)), _MM_HINT_T0);
        _mm_prefetch((const char *)(at + (uintptr_t)(r * row_bytes + width - 1)), _MM_HINT_T0);
    }
}

/* ---- bf16: vdpbf16ps, C float ----------------------------------------------------- */

TARGET_BF16
static void ukernel_bf16_8x48(int kg, const uint32_t *restrict a, const uint32_t *restrict b,
                              void *restrict cv, long ldc, int m, int n, int accumulate)
{
    float *c = cv;
    const __mmask16 k0 = column_mask(n, 0), k1 = column_mask(n, 1), k2 = column_mask(n, 2);

    DECLARE_TILE(__m512, _mm512_setzero_ps())
    prefetch_c((const char *)c, ldc * (long)sizeof(float), m);
    for (int g = 0; g < kg; g++) {
        const __m512bh b0 = (__m512bh)_mm512_load_si512(b);
        const __m512bh b1 = (__m512bh)_mm512_load_si512(b + 16);
        const __m512bh b2 = (__m512bh)_mm512_load_si512(b + 32);
        __m512bh ai;
#define DOT_ROW(i)                                                            \
        ai = (__m512bh)_mm512_set1_epi32((int)a[i]);                          \
        c##i##0 = _mm512_dpbf16_ps(c##i##0, ai, b0);                          \
        c##i##1 = _mm512_dpbf16_ps(c##i##1, ai, b1);                          \
        c##i##2 = _mm512_dpbf16_ps(c##i##2, ai, b2);
        FOR_ROWS(DOT_ROW)
#undef DOT_ROW
        a += MR;
        b += NR;
    }
    STORE_TILE_F32
}

/* kc rows x nc columns of bf16 B (row stride ldb) into NR-column
 * micro-panels of k pairs: the pair (k, k + 1) of column j is one 32-bit
 * word, k in its low half (vdpbf16ps's even element).  16 columns at a
 * time: each row's 16 bf16 widened to 32 bits, the odd row's shifted up.
 * k groups outermost, so that B's rows are read along, each line once
 * (column strip by strip, a strip's rows ldb apart, each line was read
 * three times and the u8s8 call at M = 16 ran at a third of its prepacked
 * speed). */
TARGET_BF16
static void pack_b_bf16(int kc, int nc, const void *Bv, long ldb, uint32_t *restrict dst,
                        long panel_stride)
{
    const uint16_t *B = Bv;
    const int kg = (kc + 1) / 2;

    for (int g = 0; g < kg; g++) {
        for (int jp = 0; jp < nc; jp += NR) {
            uint32_t *panel = dst + (long)(jp / NR) * panel_stride;
            for (int v = 0; v < NR / 16; v++) {
                const int j = jp + 16 * v;
                const __mmask16 mask = column_mask(nc - j, 0);
                if (mask == 0) { /* the panel's padding: no pointer past B */
                    _mm512_store_si512(panel + (long)g * NR + 16 * v, _mm512_setzero_si512());
                    continue;
                }
                const uint16_t *even = B + (long)(2 * g) * ldb + j;
                const __m512i lo = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(mask, even));
                __m512i word = lo;
                if (2 * g + 1 < kc) {
                    const __m512i hi =
                        _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(mask, even + ldb));
                    word = _mm512_or_si512(lo, _mm512_slli_epi32(hi, 16));
                }
                _mm512_store_si512(panel + (long)g * NR + 16 * v, word);
            }
        }
    }
}

/* The first vdpbf16ps call on a B micro-panel, packing it as it goes
 * (lowp_isa.kernel_packing), as the u8s8 and widened kernels do: each
 * group's three B vectors are made from B's two rows in place (16 bf16 of
 * each row in one zmm, vpermw interleaving them into pairs), used, and
 * stored to the panel the calls on the other rows read.  With the block
 * packed first, pack_b_bf16 took more of a call's time than the kernel at
 * M = 16 (perf, mlp_reduce, AMD EPYC family 26 model 2, 2 threads), where
 * vdpbf16ps issues twice a cycle and this path runs.  Whole panels only:
 * n = NR columns and kc = 2 kg rows. */
#define BF16_PACKING_PREFETCH_GROUPS 8

TARGET_BF16
static void ukernel_bf16_8x48_packing(int kg, const uint32_t *restrict a, const void *bv,
                                      long ldb, uint32_t *restrict bdst, void *restrict cv,
                                      long ldc, int m, int n, int accumulate)
{
    /* word j of the result: column j of the even row (low half), then of
     * the odd row: elements j and 16 + j of (even row | odd row << 256) */
    static const uint16_t at[32] __attribute__((aligned(64))) = {
        0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23,
        8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31,
    };
    const __m512i idx = _mm512_load_si512(at);
    const uint16_t *row = bv;
    float *c = cv;
    const __mmask16 k0 = column_mask(n, 0), k1 = column_mask(n, 1), k2 = column_mask(n, 2);

    DECLARE_TILE(__m512, _mm512_setzero_ps())
    prefetch_c((const char *)c, ldc * (long)sizeof(float), m);
    for (int g = 0; g < kg; g++) {
        if (g + BF16_PACKING_PREFETCH_GROUPS < kg) {
            const char *ahead = (const char *)(row + BF16_PACKING_PREFETCH_GROUPS * 2 * ldb);
            for (int r = 0; r < 2; r++) {
                _mm_prefetch(ahead + r * ldb * 2, _MM_HINT_T0);
                _mm_prefetch(ahead + r * ldb * 2 + 2 * NR - 1, _MM_HINT_T0); /* NR bf16 */
            }
        } else {
            prefetch_next_panel(bv, 2L * NR + (long)(g + BF16_PACKING_PREFETCH_GROUPS - kg) * 4 * ldb,
                                2 * ldb, 2, 2 * NR);
        }
#define PAIRS(v)                                                                         \
        _mm512_permutexvar_epi16(                                                        \
            idx, _mm512_inserti64x4(                                                     \
                     _mm512_castsi256_si512(_mm256_loadu_si256((const void *)(row + 16 * (v)))), \
                     _mm256_loadu_si256((const void *)(row + ldb + 16 * (v))), 1))
        const __m512i b0 = PAIRS(0);
        const __m512i b1 = PAIRS(1);
        const __m512i b2 = PAIRS(2);
#undef PAIRS
        __m512bh ai;
        _mm512_store_si512(bdst, b0);
        _mm512_store_si512(bdst + 16, b1);
        _mm512_store_si512(bdst + 32, b2);
#define DOT_ROW(i)                                                            \
        ai = (__m512bh)_mm512_set1_epi32((int)a[i]);                          \
        c##i##0 = _mm512_dpbf16_ps(c##i##0, ai, (__m512bh)b0);                \
        c##i##1 = _mm512_dpbf16_ps(c##i##1, ai, (__m512bh)b1);                \
        c##i##2 = _mm512_dpbf16_ps(c##i##2, ai, (__m512bh)b2);
        FOR_ROWS(DOT_ROW)
#undef DOT_ROW
        a += MR;
        bdst += NR;
        row += 2 * ldb;
    }
    STORE_TILE_F32
}

/* ---- bf16 widened: the f32 FMA, C float ------------------------------------------ */

/* Where vdpbf16ps issues once per two cycles (Xeon family 6 model 207:
 * 16 x 2 bf16 MACs a cycle) and the f32 FMA twice a cycle (2 x 16 MACs),
 * the FMA does as many bf16 MACs per cycle, and the products are exact in
 * fp32 either way (8-bit x 8-bit significands): widening bf16 to f32 is a
 * 16-bit shift, so B's panels are packed widened once and A's broadcasts
 * are f32 too (packed_lowp.c's pack_a), and the kernel is an f32 GEMM
 * kernel.  Same tile, 8 x 48, two k per group: per k 3 loads of B, 8
 * broadcasts of A (embedded in the FMA as {1to16} loads), 24 FMAs:
 * 12 cycles on two FMA ports against 11 loads.  Which path runs is
 * measured, not assumed (packed_lowp.c's rule).  Sums stay fp32 (one
 * rounding per FMA instead of vdpbf16ps's per pair; both exact on the
 * harness's integer inputs), and bf16 denormals are kept where vdpbf16ps
 * flushes them. */
TARGET_FMA
static void ukernel_bf16_fma_8x48(int kg, const uint32_t *restrict av, const uint32_t *restrict bv,
                                  void *restrict cv, long ldc, int m, int n, int accumulate)
{
    const float *a = (const float *)av, *b = (const float *)bv;
    float *c = cv;
    const __mmask16 k0 = column_mask(n, 0), k1 = column_mask(n, 1), k2 = column_mask(n, 2);

    DECLARE_TILE(__m512, _mm512_setzero_ps())
    prefetch_c((const char *)c, ldc * (long)sizeof(float), m);
    for (int k = 0; k < 2 * kg; k++) {
        const __m512 b0 = _mm512_load_ps(b);
        const __m512 b1 = _mm512_load_ps(b + 16);
        const __m512 b2 = _mm512_load_ps(b + 32);
        __m512 ai;
#define FMA_ROW(i)                                                            \
        ai = _mm512_set1_ps(a[i]);                                            \
        c##i##0 = _mm512_fmadd_ps(ai, b0, c##i##0);                           \
        c##i##1 = _mm512_fmadd_ps(ai, b1, c##i##1);                           \
        c##i##2 = _mm512_fmadd_ps(ai, b2, c##i##2);
        FOR_ROWS(FMA_ROW)
#undef FMA_ROW
        a += MR;
        b += NR;
    }
    STORE_TILE_F32
}

/* kc rows x nc columns of bf16 B into NR-column micro-panels of f32, one
 * row of NR per k ([2 kg][NR] words, the odd tail's row zero): each row's
 * 16 bf16 widened to 32 bits and shifted up 16, the f32 of the same value.
 * Rows outermost, read along, as pack_b_bf16. */
TARGET_FMA
static void pack_b_bf16_widened(int kc, int nc, const void *Bv, long ldb, uint32_t *restrict dst,
                                long panel_stride)
{
    const uint16_t *B = Bv;
    const int rows = 2 * ((kc + 1) / 2);

    for (int k = 0; k < rows; k++) {
        for (int jp = 0; jp < nc; jp += NR) {
            uint32_t *panel = dst + (long)(jp / NR) * panel_stride + (long)k * NR;
            for (int v = 0; v < NR / 16; v++) {
                const int j = jp + 16 * v;
                const __mmask16 mask = k < kc ? column_mask(nc - j, 0) : 0;
                __m512i word = _mm512_setzero_si512();
                if (mask != 0) /* else padding: no pointer past B */
                    word = _mm512_slli_epi32(
                        _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(mask, B + (long)k * ldb + j)),
                        16);
                _mm512_store_si512(panel + 16 * v, word);
            }
        }
    }
}

/* The first widened call on a B micro-panel, packing it as it goes
 * (lowp_isa.kernel_packing): each k's three B vectors are B's row in place
 * widened (vpmovzxwd and a shift, pack_b_bf16_widened's), used, and stored
 * to the panel the calls on the other rows read.  With the block widened
 * first (no fused call for bf16), packed took 1.5x the language's twin's
 * time at M = 16 (qkv, mlp_reduce; Intel Xeon kind, 2 threads), whose
 * first pass widens B as it goes.  Whole panels only: n = NR columns and
 * kc = 2 kg rows.  B's rows ldb elements apart; asked for WIDENED_PREFETCH_ROWS
 * rows ahead (both lines a row's NR bf16 touch), as the u8s8 kernel does. */
#define WIDENED_PREFETCH_ROWS 16

TARGET_FMA
static void ukernel_bf16_fma_8x48_packing(int kg, const uint32_t *restrict av, const void *bv,
                                          long ldb, uint32_t *restrict bdst, void *restrict cv,
                                          long ldc, int m, int n, int accumulate)
{
    const float *a = (const float *)av;
    const uint16_t *row = bv;
    float *bout = (float *)bdst, *c = cv;
    const __mmask16 k0 = column_mask(n, 0), k1 = column_mask(n, 1), k2 = column_mask(n, 2);

    DECLARE_TILE(__m512, _mm512_setzero_ps())
    prefetch_c((const char *)c, ldc * (long)sizeof(float), m);
    for (int k = 0; k < 2 * kg; k++) {
        if (k + WIDENED_PREFETCH_ROWS < 2 * kg) {
            const char *ahead = (const char *)(row + WIDENED_PREFETCH_ROWS * ldb);
            _mm_prefetch(ahead, _MM_HINT_T0);
            _mm_prefetch(ahead + 2 * NR - 1, _MM_HINT_T0); /* NR bf16 */
        }
#define WIDEN(v)                                                                                  _mm512_castsi512_ps(_mm512_slli_epi32(                                                        _mm512_cvtepu16_epi32(_mm256_loadu_si256((const void *)(row + 16 * (v)))), 16))
        const __m512 b0 = WIDEN(0);
        const __m512 b1 = WIDEN(1);
        const __m512 b2 = WIDEN(2);
#undef WIDEN
        __m512 ai;
        _mm512_store_ps(bout, b0);
        _mm512_store_ps(bout + 16, b1);
        _mm512_store_ps(bout + 32, b2);
#define FMA_ROW(i)                                                            \
        ai = _mm512_set1_ps(a[i]);                                            \
        c##i##0 = _mm512_fmadd_ps(ai, b0, c##i##0);                           \
        c##i##1 = _mm512_fmadd_ps(ai, b1, c##i##1);                           \
        c##i##2 = _mm512_fmadd_ps(ai, b2, c##i##2);
        FOR_ROWS(FMA_ROW)
#undef FMA_ROW
        a += MR;
        bout += NR;
        row += ldb;
    }
    STORE_TILE_F32
}

/* ---- u8s8: vpdpbusd, C int32 ------------------------------------------------------ */

/* acc += the four u8 x s8 products of each 32-bit lane of a_u8 and b_s8.
 * One instruction in asm, not _mm512_dpbusd_epi32: with the intrinsic GCC
 * 12 split the accumulators' live ranges and spilled eight of them to the
 * stack inside the k loop (the bf16 intrinsic did not); "+v" keeps each
 * accumulator in one register across the loop. */
#define DPBUSD(acc, a_u8, b_s8) __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(a_u8), "v"(b_s8));

TARGET_VNNI
static void ukernel_u8s8_8x48(int kg, const uint32_t *restrict a, const uint32_t *restrict b,
                              void *restrict cv, long ldc, int m, int n, int accumulate)
{
    int32_t *c = cv;
    const __mmask16 k0 = column_mask(n, 0), k1 = column_mask(n, 1), k2 = column_mask(n, 2);

    DECLARE_TILE(__m512i, _mm512_setzero_si512())
    prefetch_c((const char *)c, ldc * (long)sizeof(int32_t), m);
    for (int g = 0; g < kg; g++) {
        const __m512i b0 = _mm512_load_si512(b);
        const __m512i b1 = _mm512_load_si512(b + 16);
        const __m512i b2 = _mm512_load_si512(b + 32);
        __m512i ai;
#define DOT_ROW(i)                                                            \
        ai = _mm512_set1_epi32((int)a[i]);                                    \
        DPBUSD(c##i##0, ai, b0) DPBUSD(c##i##1, ai, b1) DPBUSD(c##i##2, ai, b2)
        FOR_ROWS(DOT_ROW)
#undef DOT_ROW
        a += MR;
        b += NR;
    }
#define STORE_ROW(i)                                                                  \
    {                                                                                 \
        int32_t *ci = c + (long)(i < m ? i : 0) * ldc;                                  \
        const __mmask16 s0 = i < m ? k0 : 0, s1 = i < m ? k1 : 0, s2 = i < m ? k2 : 0; \
        const __mmask16 l0 = accumulate ? s0 : 0, l1 = accumulate ? s1 : 0;           \
        const __mmask16 l2 = accumulate ? s2 : 0;                                     \
        c##i##0 = _mm512_add_epi32(c##i##0, _mm512_maskz_loadu_epi32(l0, ci));              \
        c##i##1 = _mm512_add_epi32(c##i##1, _mm512_maskz_loadu_epi32(l1, ci + 16));         \
        c##i##2 = _mm512_add_epi32(c##i##2, _mm512_maskz_loadu_epi32(l2, ci + 32));         \
        _mm512_mask_storeu_epi32(ci, s0, c##i##0);                                       \
        _mm512_mask_storeu_epi32(ci + 16, s1, c##i##1);                                  \
        _mm512_mask_storeu_epi32(ci + 32, s2, c##i##2);                                  \
    }
    FOR_ROWS(STORE_ROW)
#undef STORE_ROW
}

/* kc rows x nc columns of s8 B into NR-column micro-panels of k quads: the
 * quad k..k+3 of column j is one 32-bit word, k in its lowest byte
 * (vpdpbusd's byte 0).  16 columns at a time: each row's 16 bytes widened
 * to 32 bits and shifted to its byte; rows past kc are zero.  k groups
 * outermost, as for bf16. */
#define TARGET_VBMI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi")))

/* The same packing with AVX512_VBMI's byte permute: a group's four rows of
 * 16 columns (16 bytes each) go into one zmm as they lie and one vpermb
 * interleaves them into 16 quads, byte 4j + r of the word vector being
 * byte 16r + j of the rows: 4 loads, 3 inserts, 1 permute and a store
 * per 16 words, where widening each row costs 4 widenings, 3 shifts and
 * 3 ors.  Without --prepack every call packs its B columns, and this
 * packing was a fifth of a one-thread qkv call at M = 64 (perf), half of
 * one at M = 16 (about 8 cycles per 16 words: GCC 12 made every row a
 * masked load into a register and every insert a shuffle-port uop, with
 * a branch per row); whole quads of whole columns, nearly all of B, now
 * take plain loads the inserts read from memory. */
TARGET_VBMI
static void pack_b_s8_vbmi(int kc, int nc, const uint8_t *B, long ldb, uint32_t *restrict dst,
                           long panel_stride)
{
    const int kg = (kc + 3) / 4;
    __m512i idx;
    {
        uint8_t at[64];
        for (int q = 0; q < 64; q++)
            at[q] = (uint8_t)(16 * (q % 4) + q / 4);
        idx = _mm512_loadu_si512(at);
    }
    for (int g = 0; g < kg; g++) {
        /* rows of the group past kc: empty masks, and row 4g's address, so
         * that no pointer leaves B */
        const int rows = kc - 4 * g < 4 ? kc - 4 * g : 4;
        const long r1 = rows > 1 ? ldb : 0, r2 = rows > 2 ? 2 * ldb : 0, r3 = rows > 3 ? 3 * ldb : 0;
        for (int jp = 0; jp < nc; jp += NR) {
            uint32_t *panel = dst + (long)(jp / NR) * panel_stride + (long)g * NR;
            for (int v = 0; v < NR / 16; v++) {
                const int j = jp + 16 * v;
                const __mmask16 mask = column_mask(nc - j, 0);
                __m512i word = _mm512_setzero_si512();
                if (mask == 0xFFFF && rows == 4) {
                    /* a whole quad of whole columns: plain loads, which
                     * the inserts take as memory operands (no shuffle
                     * port) */
                    const uint8_t *row = B + (long)(4 * g) * ldb + j;
                    __m512i z = _mm512_castsi128_si512(_mm_loadu_si128((const void *)row));
                    z = _mm512_inserti32x4(z, _mm_loadu_si128((const void *)(row + ldb)), 1);
                    z = _mm512_inserti32x4(z, _mm_loadu_si128((const void *)(row + 2 * ldb)), 2);
                    z = _mm512_inserti32x4(z, _mm_loadu_si128((const void *)(row + 3 * ldb)), 3);
                    word = _mm512_permutexvar_epi8(idx, z);
                } else if (mask != 0) { /* else padding */
                    const uint8_t *row = B + (long)(4 * g) * ldb + j;
                    __m512i z = _mm512_castsi128_si512(_mm_maskz_loadu_epi8(mask, row));
                    z = _mm512_inserti32x4(z, _mm_maskz_loadu_epi8(rows > 1 ? mask : 0, row + r1), 1);
                    z = _mm512_inserti32x4(z, _mm_maskz_loadu_epi8(rows > 2 ? mask : 0, row + r2), 2);
                    z = _mm512_inserti32x4(z, _mm_maskz_loadu_epi8(rows > 3 ? mask : 0, row + r3), 3);
                    word = _mm512_permutexvar_epi8(idx, z);
                }
                _mm512_store_si512(panel + 16 * v, word);
            }
        }
    }
}

/* The first micro-kernel call on a B micro-panel, packing it as it goes
 * (lowp_isa.kernel_packing): each group's three B vectors are made from
 * B's four rows in place as pack_b_s8_vbmi makes them (4 loads, 3
 * inserts, a vpermb per 16 columns), used, and stored to the panel that
 * the calls on the other rows read.  Packing the block first, the call
 * at M = 16 spent about 40 % of its time there (perf), its loads of B
 * from L2 and beyond waiting with no dot product to overlap them; here
 * they interleave with the 24 vpdpbusd of each group.  Whole panels
 * only: n = NR columns and kc = 4 kg rows. */
/* How many groups ahead it asks for B's rows (both lines a row's NR
 * bytes may touch): perf put its time on the inserts' loads of B, rows
 * ldb apart that the hardware's prefetchers did not fetch ahead. */
#define PACKING_PREFETCH_GROUPS 8

TARGET_VBMI TARGET_VNNI
static void ukernel_u8s8_8x48_packing(int kg, const uint32_t *restrict a, const void *bv,
                                      long ldb, uint32_t *restrict bdst, void *restrict cv,
                                      long ldc, int m, int n, int accumulate)
{
    static const uint8_t at[64] __attribute__((aligned(64))) = {
        0, 16, 32, 48, 1, 17, 33, 49, 2, 18, 34, 50, 3, 19, 35, 51,
        4, 20, 36, 52, 5, 21, 37, 53, 6, 22, 38, 54, 7, 23, 39, 55,
        8, 24, 40, 56, 9, 25, 41, 57, 10, 26, 42, 58, 11, 27, 43, 59,
        12, 28, 44, 60, 13, 29, 45, 61, 14, 30, 46, 62, 15, 31, 47, 63,
    };
    const __m512i idx = _mm512_load_si512(at);
    const uint8_t *row = bv;
    int32_t *c = cv;
    const __mmask16 k0 = column_mask(n, 0), k1 = column_mask(n, 1), k2 = column_mask(n, 2);

    DECLARE_TILE(__m512i, _mm512_setzero_si512())
    prefetch_c((const char *)c, ldc * (long)sizeof(int32_t), m);
    for (int g = 0; g < kg; g++) {
#define QUADS(v)                                                                            \
        _mm512_permutexvar_epi8(                                                            \
            idx, _mm512_inserti32x4(                                                        \
                     _mm512_inserti32x4(                                                    \
                         _mm512_inserti32x4(                                                \
                             _mm512_castsi128_si512(                                        \
                                 _mm_loadu_si128((const void *)(row + 16 * (v)))),          \
                             _mm_loadu_si128((const void *)(row + ldb + 16 * (v))), 1),     \
                         _mm_loadu_si128((const void *)(row + 2 * ldb + 16 * (v))), 2),     \
                     _mm_loadu_si128((const void *)(row + 3 * ldb + 16 * (v))), 3))
        if (g + PACKING_PREFETCH_GROUPS < kg) {
            const char *ahead = (const char *)(row + PACKING_PREFETCH_GROUPS * 4 * ldb);
            for (int r = 0; r < 4; r++) {
                _mm_prefetch(ahead + r * ldb, _MM_HINT_T0);
                _mm_prefetch(ahead + r * ldb + NR - 1, _MM_HINT_T0); /* NR bytes */
            }
        } else {
            prefetch_next_panel(bv, NR + (long)(g + PACKING_PREFETCH_GROUPS - kg) * 4 * ldb, ldb, 4,
                                NR);
        }
        const __m512i b0 = QUADS(0);
        const __m512i b1 = QUADS(1);
        const __m512i b2 = QUADS(2);
#undef QUADS
        __m512i ai;
        _mm512_store_si512(bdst, b0);
        _mm512_store_si512(bdst + 16, b1);
        _mm512_store_si512(bdst + 32, b2);
#define DOT_ROW(i)                                                            \
        ai = _mm512_set1_epi32((int)a[i]);                                    \
        DPBUSD(c##i##0, ai, b0) DPBUSD(c##i##1, ai, b1) DPBUSD(c##i##2, ai, b2)
        FOR_ROWS(DOT_ROW)
#undef DOT_ROW
        a += MR;
        bdst += NR;
        row += 4 * ldb;
    }
#define STORE_ROW(i)                                                                  \
    {                                                                                 \
        int32_t *ci = c + (long)(i < m ? i : 0) * ldc;                                  \
        const __mmask16 s0 = i < m ? k0 : 0, s1 = i < m ? k1 : 0, s2 = i < m ? k2 : 0; \
        const __mmask16 l0 = accumulate ? s0 : 0, l1 = accumulate ? s1 : 0;           \
        const __mmask16 l2 = accumulate ? s2 : 0;                                     \
        c##i##0 = _mm512_add_epi32(c##i##0, _mm512_maskz_loadu_epi32(l0, ci));              \
        c##i##1 = _mm512_add_epi32(c##i##1, _mm512_maskz_loadu_epi32(l1, ci + 16));         \
        c##i##2 = _mm512_add_epi32(c##i##2, _mm512_maskz_loadu_epi32(l2, ci + 32));         \
        _mm512_mask_storeu_epi32(ci, s0, c##i##0);                                       \
        _mm512_mask_storeu_epi32(ci + 16, s1, c##i##1);                                  \
        _mm512_mask_storeu_epi32(ci + 32, s2, c##i##2);                                  \
    }
    FOR_ROWS(STORE_ROW)
#undef STORE_ROW
}

static int cpu_runs_vnni_vbmi(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512vbmi");
}

TARGET_VNNI
static void pack_b_s8(int kc, int nc, const void *Bv, long ldb, uint32_t *restrict dst,
                      long panel_stride)
{
    if (__builtin_cpu_supports("avx512vbmi")) {
        pack_b_s8_vbmi(kc, nc, Bv, ldb, dst, panel_stride);
        return;
    }
    const uint8_t *B = Bv;
    const int kg = (kc + 3) / 4;

    for (int g = 0; g < kg; g++) {
        for (int jp = 0; jp < nc; jp += NR) {
            uint32_t *panel = dst + (long)(jp / NR) * panel_stride;
            for (int v = 0; v < NR / 16; v++) {
                const int j = jp + 16 * v;
                const __mmask16 mask = column_mask(nc - j, 0);
                __m512i word = _mm512_setzero_si512();
                for (int r = 0; mask != 0 && r < 4 && 4 * g + r < kc; r++) {
                    const uint8_t *row = B + (long)(4 * g + r) * ldb + j;
                    const __m512i bytes = _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(mask, row));
                    word = _mm512_or_si512(word,
                                           _mm512_sll_epi32(bytes, _mm_cvtsi32_si128(8 * r)));
                }
                _mm512_store_si512(panel + (long)g * NR + 16 * v, word);
            }
        }
    }
}

/* ---- packing A ---------------------------------------------------------------------- */

/* A's micro-panels, [kg][MR] words, put each row's words eight groups
 * apart: copied one 32-bit word at a time (the driver's portable
 * packing) they were 7 % of a one-thread u8s8 call at M = 16, N = 768
 * (perf: the kernel 88 %), about two cycles a word.  Here eight rows' next
 * eight words are eight ymm loads, an 8 x 8 transpose of 32-bit elements
 * (three rounds: unpacks within 128-bit lanes, then a lane exchange) and
 * eight stores; rows past mc are zero vectors, and the words past the
 * last whole eight go one at a time. */
#define TARGET_PACK_A __attribute__((target("avx512f,avx512bw,avx512vl")))

/* r[i], row i's words w..w+7, becomes r[j], word w + j of rows 0..7. */
TARGET_PACK_A
static inline void transpose_8x8(__m256i r[8])
{
    const __m256i t0 = _mm256_unpacklo_epi32(r[0], r[1]), t1 = _mm256_unpackhi_epi32(r[0], r[1]);
    const __m256i t2 = _mm256_unpacklo_epi32(r[2], r[3]), t3 = _mm256_unpackhi_epi32(r[2], r[3]);
    const __m256i t4 = _mm256_unpacklo_epi32(r[4], r[5]), t5 = _mm256_unpackhi_epi32(r[4], r[5]);
    const __m256i t6 = _mm256_unpacklo_epi32(r[6], r[7]), t7 = _mm256_unpackhi_epi32(r[6], r[7]);
    /* u0: words 0 (low lane) and 4 (high lane) of rows 0..3; u4 of rows 4..7 */
    const __m256i u0 = _mm256_unpacklo_epi64(t0, t2), u1 = _mm256_unpackhi_epi64(t0, t2);
    const __m256i u2 = _mm256_unpacklo_epi64(t1, t3), u3 = _mm256_unpackhi_epi64(t1, t3);
    const __m256i u4 = _mm256_unpacklo_epi64(t4, t6), u5 = _mm256_unpackhi_epi64(t4, t6);
    const __m256i u6 = _mm256_unpacklo_epi64(t5, t7), u7 = _mm256_unpackhi_epi64(t5, t7);
    r[0] = _mm256_permute2x128_si256(u0, u4, 0x20);
    r[1] = _mm256_permute2x128_si256(u1, u5, 0x20);
    r[2] = _mm256_permute2x128_si256(u2, u6, 0x20);
    r[3] = _mm256_permute2x128_si256(u3, u7, 0x20);
    r[4] = _mm256_permute2x128_si256(u0, u4, 0x31);
    r[5] = _mm256_permute2x128_si256(u1, u5, 0x31);
    r[6] = _mm256_permute2x128_si256(u2, u6, 0x31);
    r[7] = _mm256_permute2x128_si256(u3, u7, 0x31);
}

/* Groups of `group` es-byte elements, one 32-bit word each (u8 quads,
 * bf16 pairs): word g of a row is its bytes 4g..4g+3; the last, partial
 * group is zero-padded. */
TARGET_PACK_A
static void pack_a_words(int mc, int kc, const unsigned char *A, long row_bytes, int group,
                         int es, uint32_t *restrict dst)
{
    const int kg = (kc + group - 1) / group, full = kc / group;

    for (int ip = 0; ip < mc; ip += MR) {
        const int rows = mc - ip < MR ? mc - ip : MR;
        const unsigned char *row[MR];
        int g = 0;
        for (int i = 0; i < MR; i++) /* rows past mc: row 0's address, never read */
            row[i] = A + (size_t)(ip + (i < rows ? i : 0)) * row_bytes;
        for (; g + 8 <= full; g += 8) {
            __m256i r[8];
            for (int i = 0; i < MR; i++)
                r[i] = i < rows ? _mm256_loadu_si256((const void *)(row[i] + 4 * (size_t)g))
                                : _mm256_setzero_si256();
            transpose_8x8(r);
            for (int j = 0; j < 8; j++)
                _mm256_storeu_si256((void *)(dst + (long)(g + j) * MR), r[j]);
        }
        for (; g < kg; g++)
            for (int i = 0; i < MR; i++) {
                uint32_t word = 0;
                if (i < rows)
                    memcpy(&word, row[i] + 4 * (size_t)g, g < full ? 4 : (size_t)(kc - g * group) * es);
                dst[(long)g * MR + i] = word;
            }
        dst += (long)kg * MR;
    }
}

TARGET_PACK_A
static void pack_a_u8(int mc, int kc, const void *A, long lda, uint32_t *restrict dst)
{
    pack_a_words(mc, kc, A, lda, 4, 1, dst);
}

TARGET_PACK_A
static void pack_a_bf16(int mc, int kc, const void *A, long lda, uint32_t *restrict dst)
{
    pack_a_words(mc, kc, A, 2 * lda, 2, 2, dst);
}

/* bf16 widened to f32, [2 kg][MR] words: eight rows' next eight bf16 are
 * eight xmm loads, each widened to 32 bits and shifted up 16 (the f32 of
 * the same value), then the same transpose; k past kc zero. */
TARGET_PACK_A
static void pack_a_bf16_widened(int mc, int kc, const void *Av, long lda, uint32_t *restrict dst)
{
    const uint16_t *A = Av;
    const int ks = 2 * ((kc + 1) / 2);

    for (int ip = 0; ip < mc; ip += MR) {
        const int rows = mc - ip < MR ? mc - ip : MR;
        const uint16_t *row[MR];
        int k = 0;
        for (int i = 0; i < MR; i++)
            row[i] = A + (size_t)(ip + (i < rows ? i : 0)) * lda;
        for (; k + 8 <= kc; k += 8) {
            __m256i r[8];
            for (int i = 0; i < MR; i++)
                r[i] = i < rows ? _mm256_slli_epi32(
                                      _mm256_cvtepu16_epi32(_mm_loadu_si128((const void *)(row[i] + k))), 16)
                                : _mm256_setzero_si256();
            transpose_8x8(r);
            for (int j = 0; j < 8; j++)
                _mm256_storeu_si256((void *)(dst + (long)(k + j) * MR), r[j]);
        }
        for (; k < ks; k++)
            for (int i = 0; i < MR; i++)
                dst[(long)k * MR + i] = i < rows && k < kc ? (uint32_t)row[i][k] << 16 : 0;
        dst += (long)ks * MR;
    }
}

/* ---- what the driver sees ---------------------------------------------------------- */

static int cpu_runs_bf16(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bf16");
}

static int cpu_runs_fma(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl");
}

static int cpu_runs_vnni(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
}

/* ---- the narrow tiles: a fringe of n <= 32 columns ------------------------------ */

/* The tile's first two vectors only (n <= 32: a fringe micro-panel, whose
 * B is zero-padded to NR), or its first one (n <= 16): the 8 x 48 tile
 * would spend 1.5x or 3x the dot products (at N = 7, on every one of the
 * call).  Named accumulators, as the full tile's (16 or 8 here), and the
 * same branch-free store, masked to m rows and n columns; a fringe runs
 * once per row of tiles. */
#define DECLARE_ROW2(T, i, zero) T c##i##0 = zero, c##i##1 = zero;
#define DECLARE_TILE2(T, zero)                                                \
    DECLARE_ROW2(T, 0, zero) DECLARE_ROW2(T, 1, zero) DECLARE_ROW2(T, 2, zero) \
    DECLARE_ROW2(T, 3, zero) DECLARE_ROW2(T, 4, zero) DECLARE_ROW2(T, 5, zero) \
    DECLARE_ROW2(T, 6, zero) DECLARE_ROW2(T, 7, zero)
/* Row i's two vectors to C: LOADZ, ADD, STORE the type's masked load, add
 * and masked store (k0, k1: the columns' masks). */
#define STORE_ROW2(i, T, LOADZ, ADD, STORE)                                           \
    {                                                                                 \
        T *ci = c + (long)(i < m ? i : 0) * ldc;                                      \
        const __mmask16 s0 = i < m ? k0 : 0, s1 = i < m ? k1 : 0;                     \
        const __mmask16 l0 = accumulate ? s0 : 0, l1 = accumulate ? s1 : 0;           \
        c##i##0 = ADD(c##i##0, LOADZ(l0, ci));                                        \
        c##i##1 = ADD(c##i##1, LOADZ(l1, ci + 16));                                   \
        STORE(ci, s0, c##i##0);                                                       \
        STORE(ci + 16, s1, c##i##1);                                                  \
    }
#define STORE_TILE2(T, LOADZ, ADD, STORE)                                             \
    STORE_ROW2(0, T, LOADZ, ADD, STORE) STORE_ROW2(1, T, LOADZ, ADD, STORE)           \
    STORE_ROW2(2, T, LOADZ, ADD, STORE) STORE_ROW2(3, T, LOADZ, ADD, STORE)           \
    STORE_ROW2(4, T, LOADZ, ADD, STORE) STORE_ROW2(5, T, LOADZ, ADD, STORE)           \
    STORE_ROW2(6, T, LOADZ, ADD, STORE) STORE_ROW2(7, T, LOADZ, ADD, STORE)

TARGET_BF16
static void ukernel_bf16_narrow(int kg, const uint32_t *restrict a, const uint32_t *restrict b,
                                void *restrict cv, long ldc, int m, int n, int accumulate)
{
    float *c = cv;
    const __mmask16 k0 = column_mask(n, 0), k1 = column_mask(n, 1);

    DECLARE_TILE2(__m512, _mm512_setzero_ps())
    if (n > 16)
        for (int g = 0; g < kg; g++, a += MR, b += NR) {
            const __m512bh b0 = (__m512bh)_mm512_load_si512(b);
            const __m512bh b1 = (__m512bh)_mm512_load_si512(b + 16);
            __m512bh ai;
#define DOT_ROW(i)                                                            \
            ai = (__m512bh)_mm512_set1_epi32((int)a[i]);                      \
            c##i##0 = _mm512_dpbf16_ps(c##i##0, ai, b0);                      \
            c##i##1 = _mm512_dpbf16_ps(c##i##1, ai, b1);
            FOR_ROWS(DOT_ROW)
#undef DOT_ROW
        }
    else
        for (int g = 0; g < kg; g++, a += MR, b += NR) {
            const __m512bh b0 = (__m512bh)_mm512_load_si512(b);
#define DOT_ROW(i) c##i##0 = _mm512_dpbf16_ps(c##i##0, (__m512bh)_mm512_set1_epi32((int)a[i]), b0);
            FOR_ROWS(DOT_ROW)
#undef DOT_ROW
        }
    STORE_TILE2(float, _mm512_maskz_loadu_ps, _mm512_add_ps, _mm512_mask_storeu_ps)
}

TARGET_FMA
static void ukernel_bf16_fma_narrow(int kg, const uint32_t *restrict av,
                                    const uint32_t *restrict bv, void *restrict cv, long ldc,
                                    int m, int n, int accumulate)
{
    const float *a = (const float *)av, *b = (const float *)bv;
    float *c = cv;
    const __mmask16 k0 = column_mask(n, 0), k1 = column_mask(n, 1);

    DECLARE_TILE2(__m512, _mm512_setzero_ps())
    if (n > 16)
        for (int k = 0; k < 2 * kg; k++, a += MR, b += NR) {
            const __m512 b0 = _mm512_load_ps(b), b1 = _mm512_load_ps(b + 16);
            __m512 ai;
#define FMA_ROW(i)                                                            \
            ai = _mm512_set1_ps(a[i]);                                        \
            c##i##0 = _mm512_fmadd_ps(ai, b0, c##i##0);                       \
            c##i##1 = _mm512_fmadd_ps(ai, b1, c##i##1);
            FOR_ROWS(FMA_ROW)
#undef FMA_ROW
        }
    else
        for (int k = 0; k < 2 * kg; k++, a += MR, b += NR) {
            const __m512 b0 = _mm512_load_ps(b);
#define FMA_ROW(i) c##i##0 = _mm512_fmadd_ps(_mm512_set1_ps(a[i]), b0, c##i##0);
            FOR_ROWS(FMA_ROW)
#undef FMA_ROW
        }
    STORE_TILE2(float, _mm512_maskz_loadu_ps, _mm512_add_ps, _mm512_mask_storeu_ps)
}

TARGET_VNNI
static void ukernel_u8s8_narrow(int kg, const uint32_t *restrict a, const uint32_t *restrict b,
                                void *restrict cv, long ldc, int m, int n, int accumulate)
{
    int32_t *c = cv;
    const __mmask16 k0 = column_mask(n, 0), k1 = column_mask(n, 1);

    DECLARE_TILE2(__m512i, _mm512_setzero_si512())
    if (n > 16)
        for (int g = 0; g < kg; g++, a += MR, b += NR) {
            const __m512i b0 = _mm512_load_si512(b), b1 = _mm512_load_si512(b + 16);
            __m512i ai;
#define DOT_ROW(i)                                                            \
            ai = _mm512_set1_epi32((int)a[i]);                                \
            DPBUSD(c##i##0, ai, b0) DPBUSD(c##i##1, ai, b1)
            FOR_ROWS(DOT_ROW)
#undef DOT_ROW
        }
    else
        for (int g = 0; g < kg; g++, a += MR, b += NR) {
            const __m512i b0 = _mm512_load_si512(b);
            __m512i ai;
#define DOT_ROW(i)                                                            \
            ai = _mm512_set1_epi32((int)a[i]);                                \
            DPBUSD(c##i##0, ai, b0)
            FOR_ROWS(DOT_ROW)
#undef DOT_ROW
        }
    STORE_TILE2(int32_t, _mm512_maskz_loadu_epi32, _mm512_add_epi32, _mm512_mask_storeu_epi32)
}

const lowp_isa lowp_isa_avx512_bf16 = {
    .name = "avx512_bf16",
    .mr = MR,
    .nr = NR,
    .group = 2,
    .kernel = ukernel_bf16_8x48,
    .kernel_narrow = ukernel_bf16_narrow,
    .kernel_packing = ukernel_bf16_8x48_packing,
    .kernel_packing_runs = cpu_runs_bf16,
    .pack_b = pack_b_bf16,
    .pack_a = pack_a_bf16,
    .cpu_runs = cpu_runs_bf16,
};

const lowp_isa lowp_isa_avx512_fma_widened = {
    .name = "avx512_fma_widened",
    .mr = MR,
    .nr = NR,
    .group = 2,
    .widen = 1,
    .kernel = ukernel_bf16_fma_8x48,
    .kernel_narrow = ukernel_bf16_fma_narrow,
    .kernel_packing = ukernel_bf16_fma_8x48_packing,
    .kernel_packing_runs = cpu_runs_fma,
    .pack_b = pack_b_bf16_widened,
    .pack_a = pack_a_bf16_widened,
    .cpu_runs = cpu_runs_fma,
};

const lowp_isa lowp_isa_avx512_vnni = {
    .name = "avx512_vnni",
    .mr = MR,
    .nr = NR,
    .group = 4,
    .kernel = ukernel_u8s8_8x48,
    .kernel_narrow = ukernel_u8s8_narrow,
    .kernel_packing = ukernel_u8s8_8x48_packing,
    .kernel_packing_runs = cpu_runs_vnni_vbmi,
    .pack_b = pack_b_s8,
    .pack_a = pack_a_u8,
    .cpu_runs = cpu_runs_vnni,
};

#endif
