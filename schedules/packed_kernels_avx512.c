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
 * units against 11 loads (and 4 to 13 prefetches) on two or three load
 * ports, so the FMA units set the pace; 24 independent accumulators cover
 * the 4-cycle FMA latency on both units three times.  24 + 3 + 1
 * registers leave 4 of the 32 free, so nothing spills.
 *
 * The k loop is written in assembly (GCC extended asm, AT&T syntax).  The
 * same loop in intrinsics (the AVX2 and portable kernels' form) left GCC 12
 * short of general registers for A's eight row addresses, the prefetch
 * offsets and the regime's pointers: it reloaded 11 of them from the stack
 * per k and tested the copy, the next panel and the C prefetch per k too.
 * Here A's rows are two base registers and the strides lda and 3 lda (x86
 * addressing scales lda by 2), and each regime and each stretch of the k
 * loop is its own loop with no test in it.  Measured against the intrinsics
 * loop in one run, interleaved (Zen 4 guest, 20 rounds, per-round medians
 * of time / oneDNN's, 5 M each of qkv, mlp_expand, mlp_reduce): 2 threads,
 * 14 of 15 shapes faster by 0.2-2.5 %, one equal; 1 thread, 9 of 9 faster
 * by 0.1-1.7 %.
 */
#include "packed_kernels.h"
#include "packed_pack.h"

#include <stddef.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#if defined(__x86_64__)

#define MR 8
#define NR 48
/* k before the end of the k loop at which the C tile is prefetched. */
#define C_AHEAD 16

/* ---- the tile in assembly ------------------------------------------------------ */

/* One call's operands, for the assembly tiles below (byte strides). */
typedef struct tile_job {
    const float *a, *b, *next;
    float *copy, *c;
    long lda, ldb, ldc;      /* bytes; lda 0: A packed */
    long lda7;               /* 7 lda: the A prefetch's first row */
    long b_ahead, b_far;     /* bytes past the B row loaded: prefetched into L1, L2 */
    long nld;                /* bytes between the next micro-panel's rows */
    long n[6];               /* k steps or pairs of the six segments (tile_asm) */
    float *dst;              /* copy ahead: where the next micro-panel's rows go */
    long ld, pf;             /* their source's row stride and prefetch distance, bytes */
    long s[7];               /* copy ahead: its seven segments (tile_ahead) */
    int accumulate;
} tile_job;

/* Registers: accumulators zmm0-23 (row i, vector v in zmm 3i+v), the B row
 * in zmm24-26, the broadcast in zmm27. */
#define WHEN_0(...)
#define WHEN_1(...) __VA_ARGS__
#define WHEN(flag, ...) WHEN_##flag(__VA_ARGS__)

/* B row k: prefetched b_ahead bytes on (four lines: a row not on a line
 * boundary spans one more), and b_far on into L2 where asked. */
#define B_PREFETCH                                                             \
    "prefetcht0 (%[b],%[bpf])\n\t"                                             \
    "prefetcht0 64(%[b],%[bpf])\n\t"                                           \
    "prefetcht0 128(%[b],%[bpf])\n\t"                                          \
    "prefetcht0 188(%[b],%[bpf])\n\t"
#define B_FAR                                                                  \
    "prefetcht1 (%[b],%[bfar])\n\t"                                            \
    "prefetcht1 64(%[b],%[bfar])\n\t"                                          \
    "prefetcht1 128(%[b],%[bfar])\n\t"                                         \
    "prefetcht1 188(%[b],%[bfar])\n\t"
/* A row of the next B micro-panel into L2 (packed.c, b_next). */
#define B_NEXT                                                                 \
    "prefetcht1 (%[nx])\n\t"                                                   \
    "prefetcht1 64(%[nx])\n\t"                                                 \
    "prefetcht1 128(%[nx])\n\t"                                                \
    "prefetcht1 188(%[nx])\n\t"                                                \
    "add %c[o_nld](%[job]), %[nx]\n\t"
#define B_LOAD                                                                 \
    "vmovups (%[b]), %%zmm24\n\t"                                              \
    "vmovups 64(%[b]), %%zmm25\n\t"                                            \
    "vmovups 128(%[b]), %%zmm26\n\t"                                           \
    "add %c[o_ldb](%[job]), %[b]\n\t"
#define B_COPY                                                                 \
    "vmovaps %%zmm24, (%[cp])\n\t"                                             \
    "vmovaps %%zmm25, 64(%[cp])\n\t"                                           \
    "vmovaps %%zmm26, 128(%[cp])\n\t"                                          \
    "add $192, %[cp]\n\t"
/* Row i of A times the B row into accumulators r0-r2. */
#define FMA_ROW(addr, r0, r1, r2)                                              \
    "vbroadcastss " addr ", %%zmm27\n\t"                                       \
    "vfmadd231ps %%zmm24, %%zmm27, %%zmm" #r0 "\n\t"                           \
    "vfmadd231ps %%zmm25, %%zmm27, %%zmm" #r1 "\n\t"                           \
    "vfmadd231ps %%zmm26, %%zmm27, %%zmm" #r2 "\n\t"
#define FMA_ROWS(a0, a1, a2, a3, a4, a5, a6, a7)                               \
    FMA_ROW(a0, 0, 1, 2) FMA_ROW(a1, 3, 4, 5) FMA_ROW(a2, 6, 7, 8)             \
    FMA_ROW(a3, 9, 10, 11) FMA_ROW(a4, 12, 13, 14) FMA_ROW(a5, 15, 16, 17)     \
    FMA_ROW(a6, 18, 19, 20) FMA_ROW(a7, 21, 22, 23)
/* A packed: MR floats per k at a.  In place: rows 0-3 from a, 4-7 from a4
 * (a + 4 lda), lda and 3 lda apart; one row per k prefetched two lines
 * ahead, rows 7 down to 0 in turn (ar: the row's offset).  (Packed A is one
 * stream the hardware follows; eight streams a row stride apart it follows
 * less well: the prefetch was 2.7 % of the call on a Zen 4 core, and one
 * line ahead 2.3 % less.) */
#define A_PACKED                                                               \
    FMA_ROWS("(%[a])", "4(%[a])", "8(%[a])", "12(%[a])", "16(%[a])",           \
             "20(%[a])", "24(%[a])", "28(%[a])")                               \
    "add $32, %[a]\n\t"
#define A_IN_PLACE                                                             \
    "prefetcht0 128(%[a],%[ar])\n\t"                                           \
    "sub %[lda], %[ar]\n\t"                                                    \
    "cmovs %c[o_lda7](%[job]), %[ar]\n\t"                                      \
    FMA_ROWS("(%[a])", "(%[a],%[lda])", "(%[a],%[lda],2)", "(%[a],%[lda3])",   \
             "(%[a4])", "(%[a4],%[lda])", "(%[a4],%[lda],2)", "(%[a4],%[lda3])") \
    "add $4, %[a]\n\t"                                                         \
    "add $4, %[a4]\n\t"
#define A_PACKED_OUT [a] "+r"(a)
#define A_PACKED_IN
#define A_IN_PLACE_OUT [a] "+r"(a), [a4] "+r"(a4), [ar] "+r"(ar)
#define A_IN_PLACE_IN [lda] "r"(j->lda), [lda3] "r"(lda3),
#define COPY_OUT , [cp] "+r"(cp)
#define FAR_IN , [bfar] "r"(j->b_far)

/* Copy ahead: a row of the next micro-panel (nx, ld bytes apart) into the
 * spare zmm28-30 and out to dst, its source prefetched pf bytes on into L2. */
#define B_AHEAD                                                                \
    "prefetcht1 (%[nx],%[pf])\n\t"                                            \
    "prefetcht1 64(%[nx],%[pf])\n\t"                                          \
    "prefetcht1 128(%[nx],%[pf])\n\t"                                         \
    "prefetcht1 188(%[nx],%[pf])\n\t"                                         \
    "vmovups (%[nx]), %%zmm28\n\t"                                             \
    "vmovups 64(%[nx]), %%zmm29\n\t"                                           \
    "vmovups 128(%[nx]), %%zmm30\n\t"                                          \
    "vmovaps %%zmm28, (%[dst])\n\t"                                            \
    "vmovaps %%zmm29, 64(%[dst])\n\t"                                          \
    "vmovaps %%zmm30, 128(%[dst])\n\t"                                         \
    "add %c[o_ld](%[job]), %[nx]\n\t"                                          \
    "add $192, %[dst]\n\t"
/* A k step of the copy-ahead tile (B packed), copying a row or not; runs of
 * 8, 4 and 2 steps that copy a row in their first. */
#define STEP_A(A, ROW) B_PREFETCH WHEN(ROW, B_AHEAD) B_LOAD A
#define RUN2_A(A) STEP_A(A, 1) STEP_A(A, 0)
#define RUN4_A(A) RUN2_A(A) STEP_A(A, 0) STEP_A(A, 0)
#define RUN8_A(A) RUN4_A(A) STEP_A(A, 0) STEP_A(A, 0) STEP_A(A, 0) STEP_A(A, 0)
/* After the k loop: C stored (the first k block) or added to. */
#define C_FINISH                                                               \
    "cmpl $0, %c[o_acc](%[job])\n\t"                                            \
    "jne 51f\n\t"                                                               \
    C_ROWS(C_STORE)                                                            \
    "jmp 52f\n\t"                                                               \
    "51:\n\t"                                                                   \
    C_ROWS(C_ADD)                                                              \
    "52:\n\t"
/* What every tile overwrites: the 24 accumulators, B's row, the broadcast. */
#define TILE_CLOBBERS                                                          \
    "zmm0", "zmm1", "zmm2", "zmm3", "zmm4", "zmm5", "zmm6", "zmm7", "zmm8",    \
    "zmm9", "zmm10", "zmm11", "zmm12", "zmm13", "zmm14", "zmm15", "zmm16",     \
    "zmm17", "zmm18", "zmm19", "zmm20", "zmm21", "zmm22", "zmm23", "zmm24",    \
    "zmm25", "zmm26", "zmm27"
/* One k step, then a segment of n of them (labels L, L + 1).  PAIR: two
 * k steps, the next micro-panel's row prefetched in the first only. */
#define STEP(A, FAR, COPY, NEXT)                                               \
    B_PREFETCH WHEN(FAR, B_FAR) WHEN(NEXT, B_NEXT) B_LOAD WHEN(COPY, B_COPY) A
#define PAIR(A, FAR, COPY) STEP(A, FAR, COPY, 1) STEP(A, FAR, COPY, 0)
#define SEGMENT(L, n, step)                                                    \
    "mov " n ", %[cnt]\n\t"                                                    \
    "test %[cnt], %[cnt]\n\t"                                                  \
    "jz " #L "1f\n\t"                                                          \
    #L "0:\n\t" step                                                           \
    "dec %[cnt]\n\t"                                                           \
    "jnz " #L "0b\n\t"                                                         \
    #L "1:\n\t"
/* C's rows, ldc bytes apart from c0: asked for, then stored or added to. */
#define C_ROWS(op) op(0, 1, 2) op(3, 4, 5) op(6, 7, 8) op(9, 10, 11)           \
    op(12, 13, 14) op(15, 16, 17) op(18, 19, 20) op(21, 22, 23)
#define C_PREFETCH(r0, r1, r2)                                                 \
    "prefetcht0 (%[c])\n\t"                                                    \
    "prefetcht0 64(%[c])\n\t"                                                  \
    "prefetcht0 128(%[c])\n\t"                                                 \
    "prefetcht0 188(%[c])\n\t"                                                 \
    "add %c[o_ldc](%[job]), %[c]\n\t"
#define C_STORE(r0, r1, r2)                                                    \
    "vmovups %%zmm" #r0 ", (%[c])\n\t"                                         \
    "vmovups %%zmm" #r1 ", 64(%[c])\n\t"                                       \
    "vmovups %%zmm" #r2 ", 128(%[c])\n\t"                                      \
    "add %c[o_ldc](%[job]), %[c]\n\t"
#define C_ADD(r0, r1, r2)                                                      \
    "vaddps (%[c]), %%zmm" #r0 ", %%zmm" #r0 "\n\t"                            \
    "vaddps 64(%[c]), %%zmm" #r1 ", %%zmm" #r1 "\n\t"                          \
    "vaddps 128(%[c]), %%zmm" #r2 ", %%zmm" #r2 "\n\t"                         \
    C_STORE(r0, r1, r2)
#define ZERO(r0, r1, r2)                                                       \
    "vpxord %%zmm" #r0 ", %%zmm" #r0 ", %%zmm" #r0 "\n\t"                      \
    "vpxord %%zmm" #r1 ", %%zmm" #r1 ", %%zmm" #r1 "\n\t"                      \
    "vpxord %%zmm" #r2 ", %%zmm" #r2 ", %%zmm" #r2 "\n\t"

/* The tile for one way of reading A (A_PACKED or A_IN_PLACE), with or
 * without B's L2 prefetch (FAR) and its copy (COPY), 0 or 1. */
#define TILE_FN(NAME, A, FAR, COPY)                                            \
    __attribute__((target("avx512f"))) static void NAME(const tile_job *j)     \
    {                                                                          \
        const float *a = j->a, *a4 = j->a + 4 * (j->lda / 4), *b = j->b;       \
        const float *nx = j->next;                                             \
        float *cp = j->copy, *c = j->c;                                        \
        const long lda3 = 3 * j->lda;                                          \
        long ar = j->lda7, cnt;                                                \
        (void)a4, (void)ar, (void)lda3, (void)cp;                              \
        __asm__ volatile(C_ROWS(ZERO)                                          \
                         SEGMENT(1, "%c[o_n]+0(%[job])", STEP(A, FAR, COPY, 1)) \
                         SEGMENT(5, "%c[o_n]+8(%[job])", PAIR(A, FAR, COPY))    \
                         SEGMENT(2, "%c[o_n]+16(%[job])", STEP(A, FAR, COPY, 0)) \
                         C_ROWS(C_PREFETCH)                                    \
                         "mov %c[o_c](%[job]), %[c]\n\t"                       \
                         SEGMENT(3, "%c[o_n]+24(%[job])", STEP(A, FAR, COPY, 1)) \
                         SEGMENT(6, "%c[o_n]+32(%[job])", PAIR(A, FAR, COPY))    \
                         SEGMENT(4, "%c[o_n]+40(%[job])", STEP(A, FAR, COPY, 0)) \
                         C_FINISH                                              \
                         : A##_OUT, [b] "+r"(b), [nx] "+r"(nx), [c] "+r"(c),   \
                           [cnt] "=&r"(cnt) WHEN(COPY, COPY_OUT)               \
                         : A##_IN [job] "r"(j), [bpf] "r"(j->b_ahead),         \
                           [o_ldb] "i"(offsetof(tile_job, ldb)),               \
                           [o_nld] "i"(offsetof(tile_job, nld)),               \
                           [o_ldc] "i"(offsetof(tile_job, ldc)),               \
                           [o_lda7] "i"(offsetof(tile_job, lda7)),             \
                           [o_c] "i"(offsetof(tile_job, c)),                   \
                           [o_acc] "i"(offsetof(tile_job, accumulate)),        \
                           [o_n] "i"(offsetof(tile_job, n)) WHEN(FAR, FAR_IN)  \
                         : TILE_CLOBBERS, "cc", "memory");                  \
    }

TILE_FN(tile_packed, A_PACKED, 0, 0)
TILE_FN(tile_packed_far, A_PACKED, 1, 0)
TILE_FN(tile_packed_copy, A_PACKED, 0, 1)
TILE_FN(tile_packed_far_copy, A_PACKED, 1, 1)
TILE_FN(tile_in_place, A_IN_PLACE, 0, 0)
TILE_FN(tile_in_place_far, A_IN_PLACE, 1, 0)
TILE_FN(tile_in_place_copy, A_IN_PLACE, 0, 1)
TILE_FN(tile_in_place_far_copy, A_IN_PLACE, 1, 1)

/* The copy-ahead tile (packed_kernels.h), B packed: before C's prefetch,
 * runs of 8, 4 and 2 k steps and single steps that copy a row, then steps
 * that copy none; after it, the rows left (more rows than steps) and the
 * rest. */
#define TILE_AHEAD_FN(NAME, A)                                                 \
    __attribute__((target("avx512f"))) static void NAME(const tile_job *j)     \
    {                                                                          \
        const float *a = j->a, *a4 = j->a + 4 * (j->lda / 4), *b = j->b;       \
        const float *nx = j->next;                                             \
        float *dst = j->dst, *c = j->c;                                        \
        const long lda3 = 3 * j->lda;                                          \
        long ar = j->lda7, cnt;                                                \
        (void)a4, (void)ar, (void)lda3;                                        \
        __asm__ volatile(C_ROWS(ZERO)                                          \
                         SEGMENT(1, "%c[o_s]+0(%[job])", RUN8_A(A))            \
                         SEGMENT(2, "%c[o_s]+8(%[job])", RUN4_A(A))            \
                         SEGMENT(3, "%c[o_s]+16(%[job])", RUN2_A(A))           \
                         SEGMENT(4, "%c[o_s]+24(%[job])", STEP_A(A, 1))        \
                         SEGMENT(5, "%c[o_s]+32(%[job])", STEP_A(A, 0))        \
                         C_ROWS(C_PREFETCH)                                    \
                         "mov %c[o_c](%[job]), %[c]\n\t"                       \
                         SEGMENT(6, "%c[o_s]+40(%[job])", STEP_A(A, 1))        \
                         SEGMENT(7, "%c[o_s]+48(%[job])", STEP_A(A, 0))        \
                         C_FINISH                                              \
                         : A##_OUT, [b] "+r"(b), [nx] "+r"(nx), [c] "+r"(c),   \
                           [cnt] "=&r"(cnt), [dst] "+r"(dst)                   \
                         : A##_IN [job] "r"(j), [bpf] "r"(j->b_ahead),         \
                           [pf] "r"(j->pf),                                    \
                           [o_ldb] "i"(offsetof(tile_job, ldb)),               \
                           [o_ld] "i"(offsetof(tile_job, ld)),                 \
                           [o_ldc] "i"(offsetof(tile_job, ldc)),               \
                           [o_lda7] "i"(offsetof(tile_job, lda7)),             \
                           [o_c] "i"(offsetof(tile_job, c)),                   \
                           [o_acc] "i"(offsetof(tile_job, accumulate)),        \
                           [o_s] "i"(offsetof(tile_job, s))                    \
                         : TILE_CLOBBERS, "zmm28", "zmm29", "zmm30", "cc", "memory"); \
    }

TILE_AHEAD_FN(tile_packed_ahead, A_PACKED)
TILE_AHEAD_FN(tile_in_place_ahead, A_IN_PLACE)

/* The tile: C[0:8][0:48] (+)= A's micro-panel (MR x kc; lda 0: packed,
 * else in place, rows lda floats apart) times B's (kc x 48, rows ldb
 * floats apart), with the prefetches of packed_kernels.h's copy kernel.
 * Its k loop runs in six segments, so that no step tests a prefetch: the
 * next B micro-panel's b_next_rows rows are prefetched one every two k
 * from k = 0 where the pass has room for that (PAIR), else one per k
 * (never past the last, so never past B), and C's 24 lines are asked for
 * C_AHEAD k before the end, behind the last FMAs.  (Asked for at the
 * start, they were gone from L1 by the end where B streams through it: 2 %
 * slower at 1 thread.)  One row every two k halves the burst of L3
 * requests the prefetch adds while the current micro-panel's own rows
 * are also on their way: at M = 16 (two passes, each prefetching half a
 * micro-panel) a row per k filled the first half of each pass with four
 * requests a k, and no next-panel prefetch at all then took 0.93-0.96x
 * the time (AMD EPYC family 26, mlp_expand and mlp_reduce, 2 threads);
 * spread, `gemmbench ab` at M = 16: 0.973x (mlp_expand, 1 thread, p =
 * 0.0002), 0.987-0.990x elsewhere, qkv 1.006; M = 32 to 384 0.988-1.007. */
static void tile_asm(int kc, const float *a, long lda, const float *b, long ldb, long b_ahead,
                     long b_far, float *b_copy, const float *b_next, int b_next_rows,
                     long next_ld, float *c, long ldc, int accumulate)
{
    const long c_at = kc > C_AHEAD ? kc - C_AHEAD : 0;
    const long nn = b_next_rows < kc ? b_next_rows : kc;
    tile_job j = {
        .a = a, .b = b, .next = b_next, .copy = b_copy, .c = c,
        .lda = lda * 4, .ldb = ldb * 4, .ldc = ldc * 4, .lda7 = 7 * lda * 4,
        .b_ahead = b_ahead * 4, .b_far = b_far * 4, .nld = next_ld * 4,
        .accumulate = accumulate,
    };
    if (2 * nn + (c_at & 1) <= kc) {
        /* Half rate: a row every two k, in pairs on each side of c_at. */
        const long before = nn < c_at / 2 ? nn : c_at / 2;
        j.n[1] = before;
        j.n[2] = c_at - 2 * before;
        j.n[4] = nn - before;
        j.n[5] = kc - c_at - 2 * j.n[4];
    } else {
        j.n[0] = nn < c_at ? nn : c_at;
        j.n[2] = c_at - j.n[0];
        j.n[3] = nn > c_at ? nn - c_at : 0;
        j.n[5] = kc - c_at - j.n[3];
    }
    if (lda == 0)
        (b_far ? (b_copy ? tile_packed_far_copy : tile_packed_far)
               : (b_copy ? tile_packed_copy : tile_packed))(&j);
    else
        (b_far ? (b_copy ? tile_in_place_far_copy : tile_in_place_far)
               : (b_copy ? tile_in_place_copy : tile_in_place))(&j);
}

__attribute__((target("avx512f"))) static void
ukernel_avx512_8x48(int kc, const float *restrict a, const float *restrict b, long ldb,
                    float *restrict c, long ldc, int accumulate)
{
    tile_asm(kc, a, 0, b, ldb, PACKED_B_PREFETCH_ROWS * ldb, 0, NULL, NULL, 0, ldb, c, ldc,
             accumulate);
}

__attribute__((target("avx512f"))) static void
ukernel_avx512_8x48_a_in_place(int kc, const float *restrict a, long lda,
                               const float *restrict b, long ldb, float *restrict c, long ldc,
                               int accumulate)
{
    tile_asm(kc, a, lda, b, ldb, PACKED_B_PREFETCH_ROWS * ldb, 0, NULL, NULL, 0, ldb, c, ldc,
             accumulate);
}

/* b_copy is 64-byte aligned (packed.c's buffers), so its stores are aligned. */
__attribute__((target("avx512f"))) static void
ukernel_avx512_8x48_copy_b(int kc, const float *restrict a, long lda, const float *restrict b,
                           long ldb, long b_ahead, long b_far, float *restrict b_copy,
                           const float *b_next, int b_next_rows, long next_ld,
                           float *restrict c, long ldc, int accumulate)
{
    tile_asm(kc, a, lda, b, ldb, b_ahead, b_far, b_copy, b_next, b_next_rows, next_ld, c, ldc,
             accumulate);
}

/* The copy-ahead tile (packed_kernels.h): B packed (NR floats a row), the
 * next micro-panel's `rows` rows copied from src to dst meanwhile.  The
 * rows are spread over the c_at steps before C's prefetch, as widely as
 * runs of 8, 4, 2 and 1 steps allow: x runs of 8 while the rest still fit
 * in runs of 4, then of 4 while the rest fit in runs of 2, and so on; rows
 * beyond those steps (more rows than k) go one per step after them.
 * Measured against every row copied by the first pass (AMD EPYC family
 * 26): results/notes/packed-zen5.md. */
__attribute__((target("avx512f"))) static void
ukernel_avx512_8x48_copy_ahead(int kc, const float *restrict a, long lda,
                               const float *restrict b, const float *src, long ld, int rows,
                               float *restrict dst, float *restrict c, long ldc, int accumulate)
{
    const long c_at = kc > C_AHEAD ? kc - C_AHEAD : 0;
    long r = rows < kc ? rows : kc, steps = c_at, x;
    tile_job j = {
        .a = a, .b = b, .next = src, .dst = dst, .c = c,
        .lda = lda * 4, .ldb = NR * 4, .ldc = ldc * 4, .lda7 = 7 * lda * 4,
        .b_ahead = PACKED_B_PREFETCH_ROWS * NR * 4,
        .ld = ld * 4, .pf = PACKED_B_PREFETCH_ROWS * ld * 4,
        .accumulate = accumulate,
    };
    static const int run[3] = { 8, 4, 2 };

    for (int i = 0; i < 3; i++) {
        /* runs of run[i] while the rows left fit in runs of half that */
        const long half = run[i] / 2;
        x = steps >= half * r ? (steps - half * r) / half : 0;
        x = x < r ? x : r;
        j.s[i] = x;
        r -= x;
        steps -= run[i] * x;
    }
    x = r < steps ? r : steps;
    j.s[3] = x;
    r -= x;
    steps -= x;
    j.s[4] = steps;
    j.s[5] = r;
    j.s[6] = kc - c_at - r;
    (lda == 0 ? tile_packed_ahead : tile_in_place_ahead)(&j);
}

/* Row k of the next micro-panel into L2: its four lines, as B_NEXT. */
__attribute__((target("avx512f"))) static inline void narrow_next_row(const float *next,
                                                                      long ld, int k)
{
    const char *row = packed_b_ahead(next, (long)k * ld, 0);

    _mm_prefetch(row, PACKED_B_NEXT_HINT);
    _mm_prefetch(row + 64, PACKED_B_NEXT_HINT);
    _mm_prefetch(row + 128, PACKED_B_NEXT_HINT);
    _mm_prefetch(row + 188, PACKED_B_NEXT_HINT);
}

/* The narrow tile: the first 16 or 32 columns of the tile (cols), for a
 * fringe micro-panel that narrow, whose B is packed NR wide and zero-padded:
 * the 8 x 48 tile would spend 3x or 1.5x the FMAs (a shape with N = 7 ran
 * at 0.5x oneDNN's speed, every FMA on its one micro-panel).  A fringe tile
 * runs once per row of tiles, so intrinsics, not the k loop's assembly:
 * 8 or 16 accumulators, one or two B loads and eight broadcasts per k,
 * and the first next_rows k steps each prefetch a row of the next micro-
 * panel into L2 (next_ld floats apart) as the other tiles do.  lda 0: A
 * packed (MR floats per k); else in place, rows lda apart. */
__attribute__((target("avx512f"))) static void
ukernel_avx512_narrow(int kc, const float *restrict a, long lda, const float *restrict b,
                      long ldb, int cols, const float *next, long next_ld, int next_rows,
                      float *restrict c, long ldc, int accumulate)
{
    __m512 c0[MR], c1[MR];
    const long step = lda == 0 ? MR : 1, row = lda == 0 ? 1 : lda;

    for (int i = 0; i < MR; i++)
        c0[i] = c1[i] = _mm512_setzero_ps();
    if (cols > 16) {
        for (int k = 0; k < kc; k++) {
            const __m512 b0 = _mm512_loadu_ps(b + (size_t)k * ldb);
            const __m512 b1 = _mm512_loadu_ps(b + (size_t)k * ldb + 16);
            if (k < next_rows)
                narrow_next_row(next, next_ld, k);
            for (int i = 0; i < MR; i++) {
                const __m512 ai = _mm512_set1_ps(a[k * step + i * row]);
                c0[i] = _mm512_fmadd_ps(ai, b0, c0[i]);
                c1[i] = _mm512_fmadd_ps(ai, b1, c1[i]);
            }
        }
    } else {
        for (int k = 0; k < kc; k++) {
            const __m512 b0 = _mm512_loadu_ps(b + (size_t)k * ldb);
            if (k < next_rows)
                narrow_next_row(next, next_ld, k);
            for (int i = 0; i < MR; i++)
                c0[i] = _mm512_fmadd_ps(_mm512_set1_ps(a[k * step + i * row]), b0, c0[i]);
        }
    }
    for (int i = 0; i < MR; i++) {
        float *ci = c + (size_t)i * ldc;
        if (accumulate)
            c0[i] = _mm512_add_ps(c0[i], _mm512_loadu_ps(ci));
        _mm512_storeu_ps(ci, c0[i]);
        if (cols > 16) {
            if (accumulate)
                c1[i] = _mm512_add_ps(c1[i], _mm512_loadu_ps(ci + 16));
            _mm512_storeu_ps(ci + 16, c1[i]);
        }
    }
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
    pk_pack_b_panel(kc, nc, B, ldb, dst, NR);
}

/* A fringe micro-panel of n < NR columns at the narrow kernel's width (n
 * rounded up to whole vectors of 16, the row stride), the columns past n
 * zero, a masked load and a store a vector: pk_pack_b_panel's memcpy and
 * memset per row, NR floats wide, took 3 % of a 16x256x256 call (perf,
 * AMD EPYC family 25 guest), its 16 columns a 16th of the FMAs. */
__attribute__((target("avx512f"))) static void
pack_b_fringe_avx512(int kc, int n, const float *B, long ldb, float *restrict dst)
{
    const int width = (n + 15) / 16 * 16;

    for (int k = 0; k < kc; k++) {
        const float *row = B + (size_t)k * ldb;
        float *out = dst + (size_t)k * width;
        for (int j = 0; j < width; j += 16) {
            const int left = n - j;
            const __mmask16 m = left >= 16 ? (__mmask16)0xffff
                                : left > 0  ? (__mmask16)((1u << left) - 1)
                                            : (__mmask16)0;
            _mm512_storeu_ps(out + j, _mm512_maskz_loadu_ps(m, row + j));
        }
    }
}

static int cpu_runs_avx512(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
}

const packed_isa packed_isa_avx512 = {
    .name = "avx512",
    .mr = MR,
    .nr = NR,
    .vector_regs = 32,
    .vector_floats = 16,
    .kernel = ukernel_avx512_8x48,
    .kernel_a_in_place = ukernel_avx512_8x48_a_in_place,
    .kernel_copy_b = ukernel_avx512_8x48_copy_b,
    .kernel_copy_ahead = ukernel_avx512_8x48_copy_ahead,
    .kernel_narrow = ukernel_avx512_narrow,
    .pack_a = pack_a_avx512,
    .pack_b = pack_b_avx512,
    .pack_b_fringe = pack_b_fringe_avx512,
    .cpu_runs = cpu_runs_avx512,
};
#endif
