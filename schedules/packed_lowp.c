/*
 * packed_lowp.c - the packed schedule's bf16 and u8s8 kernels (gb_packed_bf16,
 * gb_packed_u8s8, packed_lowp.h): the driver, the portable kernels, and the
 * choice of path.  The AVX-512 micro-kernels and their packing of B are
 * packed_lowp_avx512.c.  One file of about 1,200 lines: the plan
 * (plan_call), the loops that run it, the state and --explain, which
 * prints that plan, share lowp_plan and plan_call, private here; the
 * portable kernels (about 120 lines) are the piece that could stand apart,
 * as packed_kernels_portable.c does for f32.
 *
 * Types (oneDNN's matmul): bf16 is A, B bfloat16 and C float, sums in fp32;
 * u8s8 is A uint8_t, B int8_t and C int32_t, sums as vpdpbusd makes them
 * (four u8 x s8 products added to an int32, wrapping, no saturation).  Both
 * multiply in 32-bit groups of k (a bf16 pair, a u8 / s8 quad), so one
 * driver runs both on uint32_t words and only the kernels know the type.
 *
 * BLIS's five loops around a micro-kernel, per thread on its region of C
 * (m0..m1 x n0..n1 of a tm x tn grid):
 *
 *   jc: the region's columns, nc_cur at a time
 *     pc: k, kc_cur at a time (never split across threads)
 *       B block (kc x nc): packed into NR-column micro-panels of k groups
 *                          ([kg][NR] words), zero-padded; or already packed
 *                          whole by prepare() (--prepack): skipped
 *       ic: the region's rows, mc_cur at a time
 *         A block (mc x kc): packed into MR-row micro-panels ([kg][MR] words)
 *         jr: NR columns at a time  (the B micro-panel stays in L1 ...)
 *           ir: MR rows at a time   (... while the A micro-panels stream from L2)
 *             micro-kernel: C[ir:+MR][jr:+NR] (+)= A micro-panel . B micro-panel
 *
 * Why both operands are packed (packed.c reads f32's in place): the
 * dot-product instructions want B's k values interleaved in groups within
 * each column, which B's row-major layout is not, so B is packed on every
 * path (--prepack moves it out of the call); and A's groups must not run
 * past K (a pair or quad straddling A's row end would read beyond the
 * matrix, and a NaN there times B's zero padding is a NaN), so A is packed
 * too, zero-padded to the group: M x K words per column block, a few per
 * cent of the dot products at M >= 16.  Each thread packs the B columns
 * and the A rows it needs into its own buffers: no barrier, no sharing;
 * the grid (below) splits N at BERT's shapes, so B is packed once in all.
 *
 * Blocks from the machine's caches (gb_machine_detect, once per process),
 * as packed_plan.c:
 *   kc: B packed in the call, at small M: B's micro-panel (kg x NR words)
 *       takes half of L1d, where the first A micro-panel's call packs it
 *       and the others read it back, the rest for the A micro-panel
 *       streaming through and the C tile: kc = 256 bf16 or 512 u8 on a
 *       48 KiB L1d, balanced over K (K = 768 bf16: 3 x 256).  The long kc:
 *       the A micro-panel (MR x kg words) takes half of L1d, packed_plan.c's
 *       rule for f32, so that K = 768 is one pass over C (kc 1536 bf16,
 *       3072 u8 on 48 KiB) and each tile's start and trip to C are paid
 *       once rather than three times; with B pre-packed (--prepack), and
 *       per call where a thread's rows are LONG_KC_PANELS A micro-panels or
 *       more, whose passes then read the fused panel back from L2 often
 *       enough, cut so that those rows stay one A block (the fused packing
 *       needs one) in MC_LONG_L2_SHARE of L2, never below B's kc.  A
 *       multiple of the group, so that only the last block has a tail;
 *   mc: the A block (mc x kg words) takes half of L2 (with the long kc per
 *       call, all the thread's rows);
 *   nc: the B block (kg x nc words) half of L3 shared by the threads, where
 *       it is when the next ic block reads it (L2's half without an L3);
 * mc and nc rounded to MR and NR and balanced over the thread's rows and
 * columns.  The long kc against B's, `gemmbench ab`, 10 rounds, the shapes
 * of qkv, mlp_expand, mlp_reduce (AMD EPYC family 26 model 2), 1 | 2
 * threads: pre-packed, M = 16, 64, 256, 384: geomean 0.945x | 0.933x the
 * time (bf16; 0.86-0.98 by shape) and 0.953x | 0.944x (u8s8; 0.90-0.99),
 * none slower; per call, M = 64, 256, 384: 0.956-0.998 (18 of the 60
 * entries of M = 16-384 faster at p < 0.01, none slower), where at M = 16
 * (two A micro-panels a thread) it had been 1.02-1.06x slower, M = 32
 * neither.  Pre-packed with nc cut to half of L2 it was 1-6 % slower than
 * with nc all of N (A is packed again for every jc block).
 *
 * Threads: one parallel region per call; a tm x tn grid over the MR-row
 * and NR-column panels of C, the one whose busiest thread has the least
 * dot products + PACK_COST x the elements it packs (B's are packed by the
 * thread whose columns they are, A's by every column of threads) +
 * B_READ_COST x the pre-packed B words it reads from beyond L2: at small
 * M a thread's few rows reuse each B micro-panel only once or twice, so
 * B's stream from L3, not the dot products, sets its pace, and splitting
 * N halves it.
 *
 * Edges: the packing zero-pads A's rows to MR, B's columns to NR and k to
 * the group, so the kernel always computes a full tile; it stores only the
 * m x n corner that exists (masked stores on AVX-512), so C's padding past
 * N is never written.
 *
 * bf16 has two AVX-512 paths: vdpbf16ps on pairs ("avx512_bf16"), and the
 * f32 FMA on operands widened to f32 at packing ("avx512_fma_widened";
 * exact, a bf16 is the f32 with 16 more zero bits, and its products are
 * exact in fp32).  Which is faster is the core's issue rates, so the rule
 * (below, "bf16's rule") times the two micro-kernels once per process and
 * the entry's impl names the path that ran.  The widened panels are twice
 * the bytes, so the blocks' rule counts words, not groups.
 *
 * The portable path (no AVX512_BF16 / AVX512_VNNI, another architecture, or
 * packed_lowp_force_portable): the same loops, packing and layout, with a
 * plain C micro-kernel; exact, not fast.
 *
 * Learnt from: BLIS (the five loops, blocks from the caches, one kernel
 * with edges at the store; its f32 kernels' layout, which the widened
 * path reuses), oneDNN's brgemm and its matmul (the VNNI layouts of B, A
 * broadcast a group at a time, the types' semantics; its bf16 kernels
 * also fall back to f32 arithmetic on cores without the instruction) and
 * libxsmm (choosing a kernel by what the machine does, at run time).
 */
#include "packed_lowp.h"
#include "packed_plan.h" /* ceil_div, the threads rule and its explanation */
#include "packed_team.h"
#include "calibration.h"

#include "gemmbench.h"
#include "machine.h"

#include <limits.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Shares of each cache a block takes (see the header). */
#define KC_B_L1_SHARE 0.5
#define KC_A_L1_SHARE 0.5 /* the long kc: B pre-packed, or per call at LONG_KC_PANELS */
#define MC_L2_SHARE 0.5
/* Per call, the long kc from this many A micro-panels a thread (each reads
 * the fused panel back from L2 rather than L1), its A block in this share
 * of L2 (see the header). */
#define LONG_KC_PANELS 4
#define MC_LONG_L2_SHARE 0.75
#define NC_L3_SHARE 0.5
/* When the caches are unknown: common sizes of the last decade. */
#define FALLBACK_L1_BYTES (32L * 1024)
#define FALLBACK_L2_BYTES (1024L * 1024)
/* Cost of packing one element in dot-product MACs, for the thread grid: the
 * kernel does 32 group MACs a cycle, the packing a few words. */
#define PACK_COST 16.0
/* Cost of reading one pre-packed B word from beyond L2, in the same MACs:
 * the kernel's B micro-panel is used once per MR rows of the thread, so a
 * thread with few rows streams B at the rate L3 gives it.  Counted as free
 * (as it was), 2 threads at M = 16 took 8 rows and all of B each.  With B
 * of 2.4 MB (mlp_expand, mlp_reduce; Xeon family 6 model 207, 2 vCPUs,
 * 2 MiB L2) splitting N instead (each thread half of B, all the rows) was
 * 1.1-1.4x faster at M = 16 and 32, 1.05-1.15x at M = 64; at M = 128
 * mlp_expand (N = 3072) still gained, mlp_reduce (N = 768) tied; at M =
 * 384 splitting M was 1.05x faster.  An eighth of a packed element's cost
 * puts the switch at 96 rows for N = 768, 384 for N = 3072.  With B in L2
 * (qkv's 0.6 MB) splitting M stayed faster (1.1x at M = 64): B is read
 * from L2 there, so only a thread's part of B larger than B_L2_SHARE of
 * L2 (the rest is the A block's) pays it. */
#define B_READ_COST (PACK_COST / 8)
/* Packing one B element where the fused kernel does it (the first A
 * micro-panel's call stores each word it loads for its own dot products):
 * the store alone, about half of packing A's (load, interleave, store).
 * With the fringe counted at its narrow width (busiest_cols), at PACK_COST
 * the grid split the columns where a fringe left one thread more: on the
 * AMD EPYC family 25 guest, 14 shapes whose N is no multiple of 48 (M
 * 32-256, K 256-768) all ran 0.73-0.996x the time with the rows split
 * (bf16 and u8s8, 2 threads), which this weight chooses; at the bar's
 * shapes the two grids measured 0.93-1.08 (median 0.99), and the plans
 * there stay as they were on every kind's figures up to M = 384. */
#define B_FUSED_COST (PACK_COST / 2)
#define B_L2_SHARE (1.0 - MC_L2_SHARE)
/* Packed buffers are aligned to a cache line (the kernel's aligned loads). */
#define ALIGN_WORDS 16

/* The test hook (packed_lowp_force_portable): read at prepare and at a
 * call without prepare's state, never while a call runs. */
static int force_portable;
/* The other test hook (packed_lowp_force_blocks): blocks, 0 the rule's. */
static int forced_mc, forced_kc, forced_nc;

static uint32_t *alloc_words(size_t n);

/* ---- the portable path -------------------------------------------------------- */

/* 4 x 16: 64 accumulators, the x86-64 baseline's and NEON's 16 registers
 * of 4 lanes; the compiler decides what stays in registers. */
#define PORTABLE_MR 4
#define PORTABLE_NR 16

/* The bf16 tile in plain C.  Each group's two products go in as vdpbf16ps
 * adds them (the odd element's first); every product of two bf16 is exact
 * in fp32. */
static void ukernel_bf16_portable(int kg, const uint32_t *restrict a, const uint32_t *restrict b,
                                  void *restrict cv, long ldc, int m, int n, int accumulate)
{
    float tile[PORTABLE_MR][PORTABLE_NR] = { { 0 } };
    float *c = cv;

    for (int g = 0; g < kg; g++) {
        for (int i = 0; i < PORTABLE_MR; i++) {
            gb_bf16 ap[2];
            memcpy(ap, &a[(long)g * PORTABLE_MR + i], sizeof ap);
            const float a0 = gb_bf16_to_float(ap[0]), a1 = gb_bf16_to_float(ap[1]);
            for (int j = 0; j < PORTABLE_NR; j++) {
                gb_bf16 bp[2];
                memcpy(bp, &b[(long)g * PORTABLE_NR + j], sizeof bp);
                tile[i][j] += a1 * gb_bf16_to_float(bp[1]);
                tile[i][j] += a0 * gb_bf16_to_float(bp[0]);
            }
        }
    }
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            c[i * ldc + j] = accumulate ? c[i * ldc + j] + tile[i][j] : tile[i][j];
}

/* The u8s8 tile in plain C, in unsigned arithmetic: it wraps modulo 2^32
 * as vpdpbusd's int32 adds do, where signed overflow would be undefined. */
static void ukernel_u8s8_portable(int kg, const uint32_t *restrict a, const uint32_t *restrict b,
                                  void *restrict cv, long ldc, int m, int n, int accumulate)
{
    uint32_t tile[PORTABLE_MR][PORTABLE_NR] = { { 0 } };
    int32_t *c = cv;

    for (int g = 0; g < kg; g++) {
        for (int i = 0; i < PORTABLE_MR; i++) {
            const unsigned char *aq = (const unsigned char *)&a[(long)g * PORTABLE_MR + i];
            for (int j = 0; j < PORTABLE_NR; j++) {
                const unsigned char *bq = (const unsigned char *)&b[(long)g * PORTABLE_NR + j];
                for (int q = 0; q < 4; q++)
                    tile[i][j] += (uint32_t)((int32_t)aq[q] * (int32_t)(int8_t)bq[q]);
            }
        }
    }
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            const uint32_t sum = accumulate ? (uint32_t)c[i * ldc + j] + tile[i][j] : tile[i][j];
            c[i * ldc + j] = (int32_t)sum; /* GCC: modulo 2^32, as the hardware's */
        }
}

/* kc rows x nc columns of B, es-byte elements, into NR-column micro-panels
 * of k groups (group elements per 32-bit word, in k order in memory), k past
 * kc and columns past nc zero. */
static void pack_b_portable(int kc, int nc, const void *Bv, long ldb, size_t es, int group,
                            int nr, uint32_t *restrict dst, long panel_stride)
{
    const unsigned char *B = Bv;
    const int kg = (kc + group - 1) / group;

    for (int jp = 0; jp < nc; jp += nr) {
        uint32_t *panel = dst + (long)(jp / nr) * panel_stride;
        for (int g = 0; g < kg; g++)
            for (int jj = 0; jj < nr; jj++) {
                unsigned char word[4] = { 0 };
                const int j = jp + jj;
                for (int q = 0; q < group && j < nc && g * group + q < kc; q++)
                    memcpy(word + q * es, B + ((size_t)(g * group + q) * ldb + j) * es, es);
                memcpy(&panel[(long)g * nr + jj], word, sizeof word);
            }
    }
}

static void pack_b_bf16_portable(int kc, int nc, const void *B, long ldb, uint32_t *restrict dst,
                                 long panel_stride)
{
    pack_b_portable(kc, nc, B, ldb, sizeof(gb_bf16), 2, PORTABLE_NR, dst, panel_stride);
}

static void pack_b_s8_portable(int kc, int nc, const void *B, long ldb, uint32_t *restrict dst,
                               long panel_stride)
{
    pack_b_portable(kc, nc, B, ldb, sizeof(int8_t), 4, PORTABLE_NR, dst, panel_stride);
}

static int cpu_runs_always(void)
{
    return 1;
}

static const lowp_isa isa_bf16_portable = {
    .name = "portable",
    .mr = PORTABLE_MR,
    .nr = PORTABLE_NR,
    .group = 2,
    .kernel = ukernel_bf16_portable,
    .pack_b = pack_b_bf16_portable,
    .cpu_runs = cpu_runs_always,
};

static const lowp_isa isa_u8s8_portable = {
    .name = "portable",
    .mr = PORTABLE_MR,
    .nr = PORTABLE_NR,
    .group = 4,
    .kernel = ukernel_u8s8_portable,
    .pack_b = pack_b_s8_portable,
    .cpu_runs = cpu_runs_always,
};

/* ---- bf16's rule: vdpbf16ps or the widened f32 FMA ---------------------------- */

/* Which of bf16's AVX-512 paths is faster depends on the core, not on the
 * instruction set: where vdpbf16ps issues as often as the FMA it does
 * twice the FMA's MACs per instruction, where it issues half as often (as
 * on this project's Xeon family 6 model 207) the two tie in MACs and the
 * widened path's cheaper A broadcasts and its plain f32 adds win; and a
 * guest's CPU model says nothing of what the host gives it.  So the rule
 * times them: both micro-kernels on the same 8 x 48 tile, panels of
 * RULE_KG groups (dot 12 KiB + 2 KiB, widened 24 + 4 KiB: L1-resident),
 * accumulating into one C tile, RULE_CALLS calls each, alternately for
 * RULE_ROUNDS rounds after one warm-up round (which also takes AVX-512's
 * frequency licence), so that another process's burst falls on both;
 * the median of the rounds' time ratios decides, the widened path only
 * when it is at least RULE_MARGIN faster (the whole call also packs, and
 * the widened panels are twice the bytes).  About 2 ms, once per
 * process, at the first bf16 plan (prepare, outside the timed calls). */
#define RULE_KG 64
#define RULE_CALLS 100
#define RULE_ROUNDS 9
#define RULE_MARGIN 1.10

static int force_bf16_path = PACKED_LOWP_BF16_RULE;

#if defined(__x86_64__)
static packed_lowp_bf16_rule bf16_rule;
static _Atomic int bf16_rule_state; /* 0 not measured, 1 measuring, 2 done */

static double time_ukernel(const lowp_isa *isa, const uint32_t *a, const uint32_t *b, float *c)
{
    const double t0 = omp_get_wtime();
    for (int r = 0; r < RULE_CALLS; r++)
        isa->kernel(RULE_KG, a, b, c, 48, 8, 48, 1);
    return omp_get_wtime() - t0;
}

static int cmp_double(const void *x, const void *y)
{
    const double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void measure_bf16_rule(packed_lowp_bf16_rule *r)
{
    const lowp_isa *dot = &lowp_isa_avx512_bf16, *wide = &lowp_isa_avx512_fma_widened;
    static char why[160];
    /* one.0 in bf16 (0x3F80), as pairs for vdpbf16ps and widened for the
     * FMA: no denormals, sums that stay small integers. */
    const size_t a_words = 2 * RULE_KG * 8, b_words = 2 * RULE_KG * 48;
    uint32_t *buf = alloc_words(2 * (a_words + b_words) + 16 * 48);
    double ratio[RULE_ROUNDS], t_dot[RULE_ROUNDS], t_wide[RULE_ROUNDS];
    const double macs = (double)RULE_CALLS * RULE_KG * 2 * 8 * 48;

    memset(r, 0, sizeof *r);
    r->margin = RULE_MARGIN;
    r->rounds = RULE_ROUNDS;
    r->chosen = wide->name;
    r->why = "vdpbf16ps not timed (no memory): the f32 FMA on widened panels";
    if (buf == NULL)
        return;
    {
        uint32_t *a_dot = buf, *b_dot = a_dot + a_words, *a_wide = b_dot + b_words;
        uint32_t *b_wide = a_wide + a_words;
        float *c = (float *)(b_wide + b_words);
        for (size_t i = 0; i < a_words; i++)
            a_dot[i] = 0x3F803F80u, a_wide[i] = 0x3F800000u;
        for (size_t i = 0; i < b_words; i++)
            b_dot[i] = 0x3F803F80u, b_wide[i] = 0x3F800000u;
        memset(c, 0, 8 * 48 * sizeof *c);
        time_ukernel(dot, a_dot, b_dot, c);
        time_ukernel(wide, a_wide, b_wide, c);
        for (int round = 0; round < RULE_ROUNDS; round++) {
            /* alternate which goes first, against drift within a round */
            if (round % 2) {
                t_wide[round] = time_ukernel(wide, a_wide, b_wide, c);
                t_dot[round] = time_ukernel(dot, a_dot, b_dot, c);
            } else {
                t_dot[round] = time_ukernel(dot, a_dot, b_dot, c);
                t_wide[round] = time_ukernel(wide, a_wide, b_wide, c);
            }
            ratio[round] = t_dot[round] / t_wide[round];
        }
    }
    free(buf);
    r->measured = 1;
    r->ratio = median(ratio, RULE_ROUNDS);
    r->ratio_min = ratio[0]; /* sorted by median() */
    r->ratio_max = ratio[RULE_ROUNDS - 1];
    r->dot_gflops = 2.0 * macs / median(t_dot, RULE_ROUNDS) * 1e-9;
    r->widened_gflops = 2.0 * macs / median(t_wide, RULE_ROUNDS) * 1e-9;
    r->chosen = r->ratio >= RULE_MARGIN ? wide->name : dot->name;
    snprintf(why, sizeof why,
             "8x48 micro-kernels on L1 panels: vdpbf16ps %.1f, f32 FMA widened %.1f GFLOP/s, "
             "ratio %.2f (%.2f..%.2f) %s margin %.2f",
             r->dot_gflops, r->widened_gflops, r->ratio, r->ratio_min, r->ratio_max,
             r->ratio >= RULE_MARGIN ? ">=" : "<", RULE_MARGIN);
    r->why = why;
}

/* The rule's verdict, measured by the first caller; a concurrent one
 * waits for it (prepares are not timed). */
static const packed_lowp_bf16_rule *bf16_rule_now(void)
{
    int expect = 0;

    if (atomic_load_explicit(&bf16_rule_state, memory_order_acquire) == 2)
        return &bf16_rule;
    if (atomic_compare_exchange_strong(&bf16_rule_state, &expect, 1)) {
        const int dot = lowp_isa_avx512_bf16.cpu_runs(), wide = lowp_isa_avx512_fma_widened.cpu_runs();
        if (dot && wide) {
            measure_bf16_rule(&bf16_rule);
        } else {
            memset(&bf16_rule, 0, sizeof bf16_rule);
            bf16_rule.margin = RULE_MARGIN;
            bf16_rule.chosen = wide ? lowp_isa_avx512_fma_widened.name : "portable";
            bf16_rule.why = wide ? "no AVX512_BF16: the f32 FMA on widened panels, untimed"
                                 : "no AVX-512: the portable kernel, untimed";
        }
        atomic_store_explicit(&bf16_rule_state, 2, memory_order_release);
    }
    while (atomic_load_explicit(&bf16_rule_state, memory_order_acquire) != 2)
        ;
    return &bf16_rule;
}

/* bf16's AVX-512 path: the forced one where the CPU runs it, else the
 * rule's; NULL where neither runs. */
static const lowp_isa *select_bf16_simd(void)
{
    const lowp_isa *dot = &lowp_isa_avx512_bf16, *wide = &lowp_isa_avx512_fma_widened;

    if (force_bf16_path == PACKED_LOWP_BF16_DOT && dot->cpu_runs())
        return dot;
    if (force_bf16_path == PACKED_LOWP_BF16_WIDENED && wide->cpu_runs())
        return wide;
    if (!wide->cpu_runs())
        return NULL; /* no AVX-512 at all */
    return strcmp(bf16_rule_now()->chosen, dot->name) == 0 ? dot : wide;
}
#endif

const packed_lowp_bf16_rule *packed_lowp_bf16_rule_get(void)
{
#if defined(__x86_64__)
    return bf16_rule_now();
#else
    static const packed_lowp_bf16_rule portable_only = {
        .chosen = "portable", .why = "not x86-64: the portable kernel", .margin = RULE_MARGIN
    };
    return &portable_only;
#endif
}

void packed_lowp_force_bf16_path(int which)
{
    force_bf16_path = which;
}

/* The path of type t: the SIMD one where the CPU runs it and the tests
 * have not forced the portable one (bf16: the rule's of its two); NULL for
 * a type not run here. */
static const lowp_isa *select_isa(gb_dtype t)
{
    if (t != GB_DTYPE_BF16 && t != GB_DTYPE_U8S8)
        return NULL;
#if defined(__x86_64__)
    if (!force_portable) {
        const lowp_isa *simd = t == GB_DTYPE_BF16 ? select_bf16_simd() : &lowp_isa_avx512_vnni;
        if (simd && simd->cpu_runs())
            return simd;
    }
#endif
    return t == GB_DTYPE_BF16 ? &isa_bf16_portable : &isa_u8s8_portable;
}

void packed_lowp_force_portable(int on)
{
    force_portable = on != 0;
}

void packed_lowp_force_blocks(int mc, int kc, int nc)
{
    forced_mc = mc > 0 ? mc : 0;
    forced_kc = kc > 0 ? kc : 0;
    forced_nc = nc > 0 ? nc : 0;
}

const char *packed_lowp_path(gb_dtype t)
{
    const lowp_isa *isa = select_isa(t);
    return isa ? isa->name : "";
}

/* ---- packing A ---------------------------------------------------------------- */

/* mc rows x kc of A (es-byte elements, row stride lda) into MR-row
 * micro-panels of k groups ([kg][MR] words, the group's elements in k
 * order), rows past mc and k past kc zero.  One 32-bit copy per group:
 * the portable path's (the AVX-512 paths transpose eight rows at a time,
 * lowp_isa.pack_a). */
static void pack_a(int mc, int kc, const void *Av, long lda, size_t es, int group, int mr,
                   uint32_t *restrict dst)
{
    const unsigned char *A = Av;
    const int kg = (kc + group - 1) / group, full = kc / group;

    for (int ip = 0; ip < mc; ip += mr) {
        for (int i = 0; i < mr; i++) {
            const unsigned char *row;
            uint32_t *out = dst + i;
            int g = 0;
            if (ip + i >= mc) {
                for (; g < kg; g++)
                    out[(long)g * mr] = 0;
                continue;
            }
            row = A + (size_t)(ip + i) * lda * es;
            for (; g < full; g++)
                memcpy(&out[(long)g * mr], row + (size_t)g * 4, 4);
            if (g < kg) {
                uint32_t word = 0;
                memcpy(&word, row + (size_t)g * 4, (size_t)(kc - g * group) * es);
                out[(long)g * mr] = word;
            }
        }
        dst += (long)kg * mr;
    }
}

/* mc rows x kc of bf16 A into MR-row micro-panels of f32 ([2 kg][MR]
 * words, lowp_isa.widen): each bf16 shifted up 16 bits is the f32 of the
 * same value, exactly; rows past mc and the odd k past kc zero.  Widened
 * here rather than in the kernel so that its broadcasts are plain f32
 * loads folded into the FMA, not shifts on the FMA's ports. */
static void pack_a_widened(int mc, int kc, const gb_bf16 *A, long lda, int mr,
                           uint32_t *restrict dst)
{
    const int rows = 2 * ((kc + 1) / 2);

    for (int ip = 0; ip < mc; ip += mr) {
        for (int i = 0; i < mr; i++) {
            uint32_t *out = dst + i;
            int k = 0;
            if (ip + i < mc) {
                const gb_bf16 *row = A + (size_t)(ip + i) * lda;
                for (; k < kc; k++)
                    out[(long)k * mr] = (uint32_t)row[k] << 16;
            }
            for (; k < rows; k++)
                out[(long)k * mr] = 0;
        }
        dst += (long)rows * mr;
    }
}

/* ---- the plan ----------------------------------------------------------------- */

typedef struct lowp_plan {
    const lowp_isa *isa;
    gb_dtype type;
    size_t a_es, b_es;       /* bytes of an element of A, of B */
    int mr, nr, group;
    int words;               /* words per group in a panel's row / column: 1 + isa->widen */
    int kc, mc, nc;          /* kc % group == 0, mc % mr == 0, nc % nr == 0 */
    int tm, tn, nthreads;
    int fused;               /* isa->kernel_packing runs here */
    int long_kc;             /* kc from the A micro-panel (plan_call) */
    int threads_tiles;       /* the threads the tiles allowed */
    double threads_saving_us, threads_own_us; /* packed_threads_for_work's, where
                                               * measured (0: not computed) */
} lowp_plan;

/* extent cut into the fewest blocks of at most cap (a multiple of unit),
 * all of about the same size: the block size, a multiple of unit. */
static int balanced_block(long extent, long cap, int unit)
{
    const long blocks = ceil_div(extent, cap < unit ? unit : cap);
    return (int)(ceil_div(ceil_div(extent, blocks), unit) * unit);
}

/* The columns of C the busiest grid column runs its tiles over (grid
 * column j takes column panels npanels j / tn to npanels (j + 1) / tn):
 * NR a panel, and N's fringe at the narrow kernel's width (whole vectors
 * of LOWP_NARROW_LANES) where it takes it; packed_plan.c's busiest_cols
 * says why. */
static double busiest_cols(const lowp_plan *p, int N, int tn)
{
    const long npanels = ceil_div(N, p->nr);
    const int fringe = N - (int)(npanels - 1) * p->nr;
    const int last = fringe < p->nr && fringe <= LOWP_NARROW_COLS && p->isa->kernel_narrow
                         ? (int)ceil_div(fringe, LOWP_NARROW_LANES) * LOWP_NARROW_LANES
                         : p->nr;
    double most = 0.0;

    for (int j = 0; j < tn; j++) {
        const long n0 = npanels * j / tn, n1 = npanels * (j + 1) / tn;
        double cols = (double)(n1 - n0) * p->nr;
        if (n1 > n0 && n1 == npanels)
            cols += last - p->nr;
        most = cols > most ? cols : most;
    }
    return most;
}

/* The busiest thread's work on a tm x tn grid, in MACs of k groups per k:
 * its dot products, the A rows it packs, and its B columns: packed (not
 * pre-packed), or pre-packed and read from beyond its L2 when its part of
 * B (all of K) is more than B_L2_SHARE of l2 (smaller, it stays in L2
 * from one call to the next and costs nothing more). */
static double grid_cost(const lowp_plan *p, int M, int N, int K, int tm, int tn, int prepack,
                        long l2)
{
    const double rows = (double)ceil_div(ceil_div(M, p->mr), tm) * p->mr;
    const double cols = busiest_cols(p, N, tn);
    const double b_bytes = cols * (double)ceil_div(K, p->group) * 4.0 * p->words;
    const double b_pack = p->fused ? B_FUSED_COST : PACK_COST;
    const double b_cost = !prepack ? b_pack : b_bytes > B_L2_SHARE * l2 ? B_READ_COST : 0.0;
    return rows * cols + PACK_COST * rows + b_cost * cols;
}

/* The data caches' sizes (level 1 to 3; 0 unknown), detected once per
 * process: gb_machine_detect takes about 10 ms (hwloc's topology), which a
 * call without prepare() would pay in its timed region, and the unit tests
 * on each of their hundreds of plans.  The caches do not change while the
 * process runs; threads racing here store the same values, level 1 last. */
static void cache_sizes(long *l1, long *l2, long *l3)
{
    static _Atomic long cached[4] = { -1, -1, -1, -1 };

    if (atomic_load_explicit(&cached[1], memory_order_acquire) < 0) {
        gb_machine machine;
        gb_machine_detect(&machine);
        for (int level = 3; level >= 1; level--) {
            const long bytes = gb_machine_cache_bytes(&machine, level);
            atomic_store_explicit(&cached[level], bytes > 0 ? bytes : 0, memory_order_release);
        }
    }
    *l1 = atomic_load_explicit(&cached[1], memory_order_acquire);
    *l2 = atomic_load_explicit(&cached[2], memory_order_relaxed);
    *l3 = atomic_load_explicit(&cached[3], memory_order_relaxed);
}

/* The plan of type t on path isa and caches l1, l2, l3 (bytes, 0 unknown),
 * fused where isa's packing kernel runs; plan_call's on this machine. */
/* The grid of t threads whose busiest thread has the least work
 * (grid_cost; the first of equals): its rows of threads in *tm, and that
 * work over all of K. */
static double best_grid(const lowp_plan *p, int M, int N, int K, int t, int prepack, long l2,
                        int *tm_out)
{
    double best = -1.0;

    for (int tm = 1; tm <= t; tm++) {
        const int tn = t / tm;
        double cost;
        if (tm * tn != t)
            continue;
        cost = grid_cost(p, M, N, K, tm, tn, prepack, l2);
        if (best < 0.0 || cost < best) {
            best = cost;
            *tm_out = tm;
        }
    }
    return best * (double)ceil_div(K, p->group);
}

/* unit_us, own_us: the threads' cost in f32 packed's units
 * (packed_threads_cost; 0: not measured), for the threads rule
 * (packed_threads_for_work).  A unit here, one k group's dot product for an
 * element of C, or a packed element at PACK_COST of them, is taken to cost
 * what f32's does, an FMA: the dot-product instructions do a group of 2
 * (bf16) or 4 (u8s8) per lane at 2x and 4x the f32 FMA's rate (`gemmbench
 * info`'s peaks, the AMD EPYC kinds).  On the family 25 guest, f32's unit
 * so priced bf16 128x128x128 at 20.2 us (measured 19.6 at one thread) and
 * u8s8 at 10.1 (10.4); 64x64x64 at 3.9 and 1.9 (2.8, 1.6): the smaller,
 * the more it prices, and the more threads it keeps. */
static void plan_on(gb_dtype t, const lowp_isa *isa, int fused, long l1, long l2, long l3, int M,
                    int N, int K, int threads, int prepack, double unit_us, double own_us,
                    lowp_plan *p)
{
    long kg, mc_cap, nc_cap, rows;
    int long_kc;
    double one, all;

    memset(p, 0, sizeof *p);
    p->type = t;
    p->isa = isa;
    p->a_es = gb_dtype_size_a(t);
    p->b_es = gb_dtype_size_b(t);
    p->mr = p->isa->mr;
    p->nr = p->isa->nr;
    p->group = p->isa->group;
    p->words = 1 + p->isa->widen;
    p->nthreads = packed_threads_for_tiles(threads, M, N, p->mr, p->nr);
    p->threads_tiles = p->nthreads;
    p->fused = fused && p->isa->kernel_packing != NULL;

    if (l1 <= 0)
        l1 = FALLBACK_L1_BYTES;
    if (l2 <= 0)
        l2 = FALLBACK_L2_BYTES;
    p->threads_own_us = unit_us > 0.0 ? own_us : 0.0;
    one = best_grid(p, M, N, K, 1, prepack, l2, &p->tm);
    all = best_grid(p, M, N, K, p->nthreads, prepack, l2, &p->tm);
    p->nthreads =
        packed_threads_for_work(p->nthreads, one, all, unit_us, own_us, &p->threads_saving_us);

    /* The grid first: its cost does not depend on the blocks. */
    best_grid(p, M, N, K, p->nthreads, prepack, l2, &p->tm);
    p->tn = p->nthreads / p->tm;
    rows = ceil_div(ceil_div(M, p->mr), p->tm) * p->mr;

    /* kc: B's micro-panel in its share of L1d; or the A micro-panel in its
     * share, pre-packed, or per call where the thread's rows are at least
     * LONG_KC_PANELS A micro-panels, cut so that they stay one A block in
     * MC_LONG_L2_SHARE of L2 (the fused packing needs one), never below
     * B's; whole groups. */
    kg = (long)(KC_B_L1_SHARE * l1) / ((long)p->nr * 4 * p->words);
    long_kc = prepack || (p->fused && rows >= LONG_KC_PANELS * p->mr);
    if (long_kc) {
        long kg_a = (long)(KC_A_L1_SHARE * l1) / ((long)p->mr * 4 * p->words);
        if (!prepack) {
            const long kg_fit = (long)(MC_LONG_L2_SHARE * l2) / (rows * 4 * p->words);
            kg_a = kg_a < kg_fit ? kg_a : kg_fit;
        }
        long_kc = kg_a > kg;
        kg = long_kc ? kg_a : kg;
    }
    p->long_kc = long_kc && forced_kc <= 0;
    p->kc = forced_kc > 0 ? (int)(ceil_div(forced_kc, p->group) * p->group)
                          : balanced_block(K, (kg > 0 ? kg : 1) * p->group, p->group);
    kg = ceil_div(p->kc, p->group);

    /* mc: the A block in its share of L2 (per call with the long kc, all the
     * thread's rows); nc: the B block in its share of L3 (of L2 without
     * one), balanced over the thread's rows and columns. */
    mc_cap = (long)(MC_L2_SHARE * l2) / (kg * 4 * p->words) / p->mr * p->mr;
    if (p->long_kc && !prepack)
        mc_cap = rows;
    nc_cap = (long)(NC_L3_SHARE * (l3 > 0 ? l3 / p->nthreads : l2)) / (kg * 4 * p->words) / p->nr *
             p->nr;
    p->mc = balanced_block(rows, mc_cap, p->mr);
    p->nc = balanced_block(ceil_div(ceil_div(N, p->nr), p->tn) * p->nr, nc_cap, p->nr);
    if (forced_mc > 0)
        p->mc = (int)(ceil_div(forced_mc, p->mr) * p->mr);
    if (forced_nc > 0)
        p->nc = (int)(ceil_div(forced_nc, p->nr) * p->nr);
}

static void plan_call(gb_dtype t, int M, int N, int K, const gb_ctx *ctx, int prepack,
                      lowp_plan *p)
{
    const lowp_isa *isa = select_isa(t);
    const int tiles = packed_threads_for_tiles(ctx->nthreads, M, N, isa->mr, isa->nr);
    double unit_us = 0.0, own_us = 0.0;
    long l1, l2, l3;

    cache_sizes(&l1, &l2, &l3);
    /* the threads' cost as f32 packed's calibration at that count measured it */
    if (tiles > 1) {
        gb_calibration cal;
        gb_calibration_lookup(packed_machine(), tiles, &cal);
        packed_threads_cost(&cal, NULL, &unit_us, &own_us);
    }
    plan_on(t, isa, isa->kernel_packing != NULL && isa->kernel_packing_runs(), l1, l2, l3, M, N,
            K, ctx->nthreads, prepack, unit_us, own_us, p);
}

int packed_lowp_blocks_on(gb_dtype t, const char *path, long l1, long l2, long l3, int M, int N,
                          int K, int threads, int prepack, double unit_us, double own_us,
                          packed_lowp_blocks *out)
{
    const lowp_isa *isa = NULL;
    lowp_plan p;

    memset(out, 0, sizeof *out);
#if defined(__x86_64__)
    {
        const lowp_isa *const paths[] = { &lowp_isa_avx512_bf16, &lowp_isa_avx512_fma_widened,
                                          &lowp_isa_avx512_vnni };
        for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
            if (strcmp(paths[i]->name, path) == 0 &&
                (t == GB_DTYPE_U8S8) == (paths[i] == &lowp_isa_avx512_vnni))
                isa = paths[i];
    }
#else
    (void)path; /* no AVX-512 path in this build */
#endif
    if (isa == NULL || (t != GB_DTYPE_BF16 && t != GB_DTYPE_U8S8))
        return -1;
    plan_on(t, isa, 1, l1, l2, l3, M, N, K, threads, prepack, unit_us, own_us, &p);
    *out = (packed_lowp_blocks){ p.mr, p.nr, p.kc, p.mc, p.nc, p.tm, p.tn, p.long_kc, p.fused,
                                 p.nthreads };
    return 0;
}

/* ---- the loops ---------------------------------------------------------------- */

/* One thread's buffers: its A block and, unless B is pre-packed, its B block. */
typedef struct thread_buffers {
    uint32_t *a_block;
    uint32_t *b_block;
} thread_buffers;

/* C[m0:m1][n0:n1] = A[m0:m1][:] . B[:][n0:n1]; m0 and n0 multiples of MR,
 * NR.  b_prepacked: all of B packed (panel p at p * Kg * NR words), or NULL. */
static void run_region(const lowp_plan *p, int m0, int m1, int n0, int n1, int K,
                       const unsigned char *A, long lda, const unsigned char *B, long ldb,
                       const uint32_t *b_prepacked, unsigned char *C, long ldc,
                       const thread_buffers *buf)
{
    const int mr = p->mr, nr = p->nr, group = p->group, w = p->words;
    const long k_groups = ceil_div(K, group);
    /* B packed one micro-panel at a time by the first micro-kernel call on
     * it (lowp_isa.kernel_packing), when the region's rows are one A
     * block (so each panel is packed once either way) and B is not
     * pre-packed: packing the whole B block first was about 40 % of a
     * u8s8 call at M = 16 (perf), its loads of B overlapping no dot
     * products; the panel (kc x NR, half of L1d) is then written to and
     * read back from L1. */
    const int per_panel = p->fused && b_prepacked == NULL && m1 - m0 <= p->mc;

    /* jc: the region's columns, one B block (kc x nc) at a time */
    for (int jc = n0; jc < n1; jc += p->nc) {
        const int nc_cur = n1 - jc < p->nc ? n1 - jc : p->nc;
        /* pc: k, one block at a time, never split across threads */
        for (int pc = 0; pc < K; pc += p->kc) {
            const int kc_cur = K - pc < p->kc ? K - pc : p->kc;
            const int kg = (int)ceil_div(kc_cur, group);
            const uint32_t *b_block;
            long b_panel_stride;

            if (b_prepacked) {
                b_block = b_prepacked + ((size_t)(jc / nr) * k_groups * nr +
                                         (size_t)(pc / group) * nr) * w;
                b_panel_stride = k_groups * nr * w;
            } else if (per_panel) {
                b_block = buf->b_block; /* one micro-panel at a time, below */
                b_panel_stride = 0;
            } else {
                p->isa->pack_b(kc_cur, nc_cur, B + ((size_t)pc * ldb + jc) * p->b_es, ldb,
                               buf->b_block, (long)kg * nr * w);
                b_block = buf->b_block;
                b_panel_stride = (long)kg * nr * w;
            }
            /* ic: the region's rows, one A block (mc x kc) at a time */
            for (int ic = m0; ic < m1; ic += p->mc) {
                const int mc_cur = m1 - ic < p->mc ? m1 - ic : p->mc;
                if (p->isa->pack_a)
                    p->isa->pack_a(mc_cur, kc_cur, A + ((size_t)ic * lda + pc) * p->a_es, lda,
                                   buf->a_block);
                else if (p->isa->widen)
                    pack_a_widened(mc_cur, kc_cur, (const gb_bf16 *)A + (size_t)ic * lda + pc,
                                   lda, mr, buf->a_block);
                else
                    pack_a(mc_cur, kc_cur, A + ((size_t)ic * lda + pc) * p->a_es, lda, p->a_es,
                           group, mr, buf->a_block);
                /* jr: one B micro-panel, kept in L1 while ... */
                for (int jr = 0; jr < nc_cur; jr += nr) {
                    const uint32_t *b_panel = b_block + (size_t)(jr / nr) * b_panel_stride;
                    const int n = nc_cur - jr < nr ? nc_cur - jr : nr;
                    /* a fringe that narrow: the tile's first vectors only */
                    const lowp_ukernel_fn kernel =
                        n <= LOWP_NARROW_COLS && p->isa->kernel_narrow ? p->isa->kernel_narrow
                                                                       : p->isa->kernel;
                    const unsigned char *b_src = B + ((size_t)pc * ldb + jc + jr) * p->b_es;
                    int ir = 0;
                    if (per_panel && n == nr && kc_cur >= group) {
                        /* the first rows' call packs the panel as it goes,
                         * its whole groups; a k tail (kc_cur not a whole
                         * number of groups) is packed alone and added by
                         * the plain kernel, so that odd K keep the fused
                         * call (packed alone, a panel's 48-byte slices of
                         * B's rows were read from L2 a third slower than
                         * a block's whole rows, standalone) */
                        const int m = mc_cur < mr ? mc_cur : mr, kg_full = kc_cur / group;
                        unsigned char *c_tile = C + ((size_t)ic * ldc + jc + jr) * 4;
                        if (kg_full < kg)
                            p->isa->pack_b(kc_cur - kg_full * group, n,
                                           b_src + (size_t)kg_full * group * ldb * p->b_es, ldb,
                                           buf->b_block + (size_t)kg_full * nr * w,
                                           (long)kg * nr * w);
                        p->isa->kernel_packing(kg_full, buf->a_block, b_src, ldb, buf->b_block,
                                               c_tile, ldc, m, n, pc > 0);
                        if (kg_full < kg)
                            p->isa->kernel(kg - kg_full, buf->a_block + (size_t)kg_full * mr * w,
                                           buf->b_block + (size_t)kg_full * nr * w, c_tile, ldc,
                                           m, n, 1);
                        ir = mr;
                    } else if (per_panel) {
                        p->isa->pack_b(kc_cur, n, b_src, ldb, buf->b_block, (long)kg * nr * w);
                    }
                    /* ir: ... every A micro-panel of the block streams past it */
                    for (; ir < mc_cur; ir += mr) {
                        const int m = mc_cur - ir < mr ? mc_cur - ir : mr;
                        kernel(kg, buf->a_block + (size_t)(ir / mr) * kg * mr * w, b_panel,
                               C + ((size_t)(ic + ir) * ldc + jc + jr) * 4, ldc, m, n, pc > 0);
                    }
                }
            }
        }
    }
}

/* ---- buffers and state -------------------------------------------------------- */

typedef struct lowp_state {
    lowp_plan plan;
    int M, N, K;
    uint32_t *buffers;       /* every thread's A block, then its B block */
    size_t per_thread;       /* words per thread, a multiple of ALIGN_WORDS */
    size_t a_words;          /* of which the A block */
    uint32_t *b_prepacked;   /* all of B (--prepack), or NULL */
} lowp_state;

static size_t round_words(size_t n)
{
    return (n + ALIGN_WORDS - 1) / ALIGN_WORDS * ALIGN_WORDS;
}

/* n words, 64-byte aligned (the kernels' aligned loads of B), or NULL. */
static uint32_t *alloc_words(size_t n)
{
    if (n == 0 || n > SIZE_MAX / sizeof(uint32_t) / 2)
        return NULL;
    return aligned_alloc(ALIGN_WORDS * sizeof(uint32_t), round_words(n) * sizeof(uint32_t));
}

/* Plans the call and allocates its buffers (per measurement in prepare(),
 * or per call without one): 0, or -1 when memory is short. */
static int state_init(lowp_state *s, gb_dtype t, int M, int N, int K, const gb_ctx *ctx,
                      int prepack)
{
    const lowp_plan *p = &s->plan;
    size_t kg, b_words;

    memset(s, 0, sizeof *s);
    plan_call(t, M, N, K, ctx, prepack, &s->plan);
    s->M = M;
    s->N = N;
    s->K = K;
    kg = (size_t)ceil_div(p->kc, p->group);
    s->a_words = round_words((size_t)p->mc * kg * p->words);
    b_words = prepack ? 0 : round_words((size_t)p->nc * kg * p->words);
    s->per_thread = s->a_words + b_words;
    s->buffers = alloc_words(s->per_thread * (size_t)p->nthreads);
    return s->buffers == NULL ? -1 : 0;
}

static void state_free(lowp_state *s)
{
    free(s->buffers);
    free(s->b_prepacked);
}

static void lowp_release(void *state)
{
    if (state) {
        state_free(state);
        free(state);
    }
}

static int lowp_prepare(gb_dtype t, int M, int N, int K, const void *B, int ldb,
                        const gb_ctx *ctx, int prepack, void **state)
{
    lowp_state *s = malloc(sizeof *s);

    *state = NULL;
    if (s == NULL)
        return -1;
    if (state_init(s, t, M, N, K, ctx, prepack) != 0)
        goto fail;
    if (prepack) {
        const lowp_plan *p = &s->plan;
        const long k_groups = ceil_div(K, p->group);
        s->b_prepacked =
            alloc_words((size_t)k_groups * (size_t)ceil_div(N, p->nr) * p->nr * p->words);
        if (s->b_prepacked == NULL)
            goto fail;
        p->isa->pack_b(K, N, B, ldb, s->b_prepacked, k_groups * p->nr * p->words);
    }
    *state = s;
    return 0;
fail:
    lowp_release(s);
    return -1;
}

/* ---- the call ----------------------------------------------------------------- */

/* One call's operands, for run_thread. */
typedef struct lowp_call {
    lowp_state *s;
    int M, N, K;
    const void *A;
    int lda;
    const void *B;
    int ldb;
    void *C;
    int ldc;
} lowp_call;

/* Thread tid of nt: its buffers, then its cells of the grid. */
static void run_thread(const lowp_call *call, int tid, int nt)
{
    lowp_state *s = call->s;
    const lowp_plan *p = &s->plan;
    const int M = call->M, N = call->N, K = call->K, lda = call->lda, ldb = call->ldb,
              ldc = call->ldc;
    const void *A = call->A, *B = call->B;
    void *C = call->C;
    const long mpanels = ceil_div(M, p->mr), npanels = ceil_div(N, p->nr);
    thread_buffers buf;

    buf.a_block = s->buffers + (size_t)tid * s->per_thread;
    buf.b_block = buf.a_block + s->a_words;
    for (int cell = tid; cell < p->tm * p->tn; cell += nt) {
        const int ti = cell / p->tn, tj = cell % p->tn;
        const int m0 = (int)(mpanels * ti / p->tm) * p->mr;
        const int m1 = (int)(mpanels * (ti + 1) / p->tm) * p->mr;
        const int n0 = (int)(npanels * tj / p->tn) * p->nr;
        const int n1 = (int)(npanels * (tj + 1) / p->tn) * p->nr;
        if (m0 < m1 && n0 < n1)
            run_region(p, m0, m1 < M ? m1 : M, n0, n1 < N ? n1 : N, K, A, lda, B, ldb,
                       s->b_prepacked, C, ldc, &buf);
    }
}

static void team_part(void *arg, int tid, int nt)
{
    run_thread(arg, tid, nt);
}

static int lowp_run(gb_dtype t, int M, int N, int K, const void *A, int lda, const void *B,
                    int ldb, void *C, int ldc, const gb_ctx *ctx)
{
    lowp_state local, *s = ctx->state;

    /* Without prepare()'s state (or for another shape or type): plan and
     * allocate here; B pre-packed for another shape cannot serve. */
    if (s == NULL || s->M != M || s->N != N || s->K != K || s->plan.type != t) {
        if (s != NULL && s->b_prepacked != NULL)
            return -1;
        s = &local;
        if (state_init(s, t, M, N, K, ctx, 0) != 0) {
            state_free(s);
            return -1;
        }
    }

    const lowp_call call = { s, M, N, K, A, lda, B, ldb, C, ldc };
    /* One thread: no parallel region, whose barrier costs a system call
     * (`gemmbench info`'s fork/join).  More: packed's own threads, as f32's
     * (packed_team.c), else an OpenMP region, where fewer than asked
     * (nested or dynamic OpenMP) take the grid's extra cells. */
    if (s->plan.nthreads == 1)
        run_thread(&call, 0, 1);
    else if (!packed_team_run(s->plan.nthreads, team_part, (void *)&call)) {
#pragma omp parallel num_threads(s->plan.nthreads)
        run_thread(&call, omp_get_thread_num(), omp_get_num_threads());
    }
    if (s == &local)
        state_free(s);
    return 0;
}

/* Which code runs: prepare()'s choice, else the one a call would make. */
static void lowp_impl(gb_dtype t, const gb_ctx *ctx, char *buf, size_t len)
{
    const lowp_state *s = ctx->state;
    const char *name = s != NULL && s->plan.type == t ? s->plan.isa->name : packed_lowp_path(t);

    if (len > 0)
        snprintf(buf, len, "%s", name);
}

/* --explain for type t: the plan a call makes, per call and with --prepack,
 * from the same plan_call (what it prints is what runs). */
static void lowp_explain(gb_dtype t, FILE *out, int M, int N, int K, const gb_ctx *ctx)
{
    lowp_plan p, pp;
    long l1, l2, l3;
    const char *type = gb_dtype_name(t);

    plan_call(t, M, N, K, ctx, 0, &p);
    plan_call(t, M, N, K, ctx, 1, &pp);
    cache_sizes(&l1, &l2, &l3);
    const int thread_rows = (int)(ceil_div(ceil_div(M, p.mr), p.tm) * p.mr);
    const int fused = p.fused && thread_rows <= p.mc;
    fprintf(out, "packed %dx%dx%d (MxKxN) %s, ", M, K, N, type);
    packed_explain_threads(out, ctx->nthreads, p.nthreads, M, N, p.mr, p.nr);
    fprintf(out, "  micro-kernel  %s %d x %d, %d k a 32-bit group%s\n", p.isa->name, p.mr, p.nr,
            p.group, p.isa->widen ? " (widened to f32 at packing, one word a k)" : "");
    if (p.threads_tiles > 1 && p.threads_own_us == 0.0 && p.threads_saving_us == 0.0)
        fprintf(out, "  threads       %d, all the tiles allow: what a threaded call costs not "
                     "calibrated\n",
                p.nthreads);
    else if (p.threads_tiles > 1)
        fprintf(out, "  threads       %d: %d would save the busiest thread %.2f us, %s the "
                     "%.2f us a threaded call costs beyond its share of the work (f32's "
                     "calibration, a k group's dot product priced as an f32 FMA)\n",
                p.nthreads, p.threads_tiles, p.threads_saving_us,
                p.nthreads > 1 ? "over" : "no more than", p.threads_own_us);
    fprintf(out, "  B             packed per call, %s\n",
            fused ? "each micro-panel by the first A micro-panel's call on it, as it goes "
                    "(the thread's rows are one A block)"
                  : "a block (kc x nc) at a time, before the kernels read it");
    fprintf(out, "  A             packed a block (mc x kc) at a time, zero-padded to the group\n");
    if (p.long_kc)
        fprintf(out, "  kc %-5d (A's micro-panel, %d groups x %d words, in half of L1d, the "
                "thread's rows (%d A micro-panels, %d or more) in %.0f %% of L2, balanced over "
                "K)\n", p.kc, (int)ceil_div(p.kc, p.group), p.mr * p.words, thread_rows / p.mr,
                LONG_KC_PANELS, 100.0 * MC_LONG_L2_SHARE);
    else
        fprintf(out, "  kc %-5d (B's micro-panel, %d groups x %d words, in half of L1d, balanced "
                "over K)\n", p.kc, (int)ceil_div(p.kc, p.group), p.nr * p.words);
    fprintf(out, "  mc %-5d (%s)\n", p.mc,
            p.long_kc ? "all the thread's rows, one A block"
                      : "A block mc x kc in half of L2, balanced");
    fprintf(out, "  nc %-5d (B block kc x nc in half of %s, balanced)\n", p.nc,
            l3 > 0 ? "L3 per thread" : "L2 (no L3 known)");
    fprintf(out, "  caches L1d %ld KiB, L2 %ld KiB, L3 %ld KiB%s\n", l1 / 1024, l2 / 1024,
            l3 / 1024, l1 > 0 && l2 > 0 ? "" : " (0: unknown, common sizes assumed)");
    fprintf(out, "  threads %d x %d (rows x columns of C: the grid whose busiest thread has the "
            "least dot products, packing and B read from beyond L2)\n", p.tm, p.tn);
    fprintf(out, "  --prepack: B pre-packed by prepare(); kc %d (A's micro-panel, %d groups x "
            "%d words, in half of L1d), mc %d, nc %d, threads %d x %d\n", pp.kc,
            (int)ceil_div(pp.kc, pp.group), pp.mr * pp.words, pp.mc, pp.nc, pp.tm, pp.tn);
}

/* ---- the two types' entries --------------------------------------------------- */

static int bf16_run(int M, int N, int K, const void *A, int lda, const void *B, int ldb, void *C,
                    int ldc, const gb_ctx *ctx)
{
    return lowp_run(GB_DTYPE_BF16, M, N, K, A, lda, B, ldb, C, ldc, ctx);
}

static int bf16_prepare(int M, int N, int K, const void *B, int ldb, const gb_ctx *ctx,
                        int prepack, void **state)
{
    return lowp_prepare(GB_DTYPE_BF16, M, N, K, B, ldb, ctx, prepack, state);
}

static void bf16_impl(int M, int N, int K, const gb_ctx *ctx, char *buf, size_t len)
{
    (void)M, (void)N, (void)K;
    lowp_impl(GB_DTYPE_BF16, ctx, buf, len);
}

static void bf16_explain(FILE *out, int M, int N, int K, const gb_ctx *ctx)
{
    lowp_explain(GB_DTYPE_BF16, out, M, N, K, ctx);
}

static int u8s8_run(int M, int N, int K, const void *A, int lda, const void *B, int ldb, void *C,
                    int ldc, const gb_ctx *ctx)
{
    return lowp_run(GB_DTYPE_U8S8, M, N, K, A, lda, B, ldb, C, ldc, ctx);
}

static int u8s8_prepare(int M, int N, int K, const void *B, int ldb, const gb_ctx *ctx,
                        int prepack, void **state)
{
    return lowp_prepare(GB_DTYPE_U8S8, M, N, K, B, ldb, ctx, prepack, state);
}

static void u8s8_impl(int M, int N, int K, const gb_ctx *ctx, char *buf, size_t len)
{
    (void)M, (void)N, (void)K;
    lowp_impl(GB_DTYPE_U8S8, ctx, buf, len);
}

static void u8s8_explain(FILE *out, int M, int N, int K, const gb_ctx *ctx)
{
    lowp_explain(GB_DTYPE_U8S8, out, M, N, K, ctx);
}

const gb_typed_kernel gb_packed_bf16 = {
    .run = bf16_run,
    .prepare = bf16_prepare,
    .release = lowp_release,
    .impl = bf16_impl,
    .explain = bf16_explain,
    .supports_prepack = 1,
};

const gb_typed_kernel gb_packed_u8s8 = {
    .run = u8s8_run,
    .prepare = u8s8_prepare,
    .release = lowp_release,
    .impl = u8s8_impl,
    .explain = u8s8_explain,
    .supports_prepack = 1,
};
