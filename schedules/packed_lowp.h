/*
 * packed_lowp.h - the packed schedule's kernels of the low-precision types
 * (gemmbench.h: gb_dtype): bf16 (bf16:bf16:f32) and u8s8 (u8:s8:s32), run
 * by the packed variant through its typed[] table, and what their driver
 * (packed_lowp.c) and their micro-kernels (packed_lowp_avx512.c) share.
 *
 * Both types multiply in 32-bit groups of k: a bf16 pair (vdpbf16ps) or a
 * u8 / s8 quad (vpdpbusd) per 32-bit lane, so one driver serves both: it
 * packs A and B into groups and hands the kernel uint32_t words.
 */
#ifndef GB_PACKED_LOWP_H
#define GB_PACKED_LOWP_H

#include <stdint.h>

#include "gemmbench.h"

extern const gb_typed_kernel gb_packed_bf16, gb_packed_u8s8;

/* The test hook: on != 0 makes every later prepare and call of both types
 * take the portable path, as on a CPU without AVX512_BF16 / AVX512_VNNI
 * (tests/unit/test_packed_lowp.c).  Not for use while a call runs. */
void packed_lowp_force_portable(int on);

/* The test hook for the loops' edges: the next plans use these blocks
 * (each rounded up to a whole group, MR or NR) instead of the caches'
 * rule, so that small shapes end every loop in a partial block; 0 keeps
 * the rule's.  packed_lowp_force_blocks(0, 0, 0) restores it. */
void packed_lowp_force_blocks(int mc, int kc, int nc);

/* The test hook for bf16's two AVX-512 paths: PACKED_LOWP_BF16_RULE (the
 * default) lets the calibrated rule below choose; _DOT forces vdpbf16ps
 * ("avx512_bf16"), _WIDENED the f32 FMA on widened panels
 * ("avx512_fma_widened").  A forced path the CPU cannot run falls back to
 * the rule's.  Not for use while a call runs. */
enum { PACKED_LOWP_BF16_RULE, PACKED_LOWP_BF16_DOT, PACKED_LOWP_BF16_WIDENED };
void packed_lowp_force_bf16_path(int which);

/* A plan's blocks and grid on another kind's caches (l1, l2, l3 bytes; 0
 * unknown) with the path named ("avx512_bf16" or "avx512_fma_widened" for
 * bf16, "avx512_vnni" for u8s8), its packing kernel taken as running there:
 * the plans of the kinds not at hand, for the unit tests.  0, or -1 where
 * the path is not in this build or not the type's. */
typedef struct packed_lowp_blocks {
    int mr, nr, kc, mc, nc, tm, tn;
    int long_kc;             /* kc from the A micro-panel's share of L1d */
    int fused;               /* B packed by the first A micro-panel's call on it */
    int nthreads;            /* the threads the call runs on */
} packed_lowp_blocks;
/* unit_us, own_us: the threads' cost (packed_threads_cost; 0, 0: not
 * measured). */
int packed_lowp_blocks_on(gb_dtype t, const char *path, long l1, long l2, long l3, int M, int N,
                          int K, int threads, int prepack, double unit_us, double own_us,
                          packed_lowp_blocks *out);

/* The rule between bf16's AVX-512 paths, measured once per process on the
 * first bf16 plan (a few ms, packed_lowp.c): both micro-kernels timed on
 * the same L1-resident 8 x 48 tile, alternately, for `rounds` rounds; the
 * widened path is chosen when the median of the rounds' ratios
 * (vdpbf16ps time / FMA time) is at least `margin`.  Where only one of the
 * two runs (no AVX512_BF16, or no AVX-512), no timing: `measured` is 0. */
typedef struct packed_lowp_bf16_rule {
    int measured;            /* 1 when the two kernels were timed */
    int rounds;
    double dot_gflops;       /* median per round, one thread, bf16 MACs x 2 */
    double widened_gflops;
    double ratio;            /* median of the rounds' dot time / widened time */
    double ratio_min, ratio_max;
    double margin;
    const char *chosen;      /* the path's name, packed_lowp_path's */
    const char *why;         /* one line: the figures' verdict */
} packed_lowp_bf16_rule;
const packed_lowp_bf16_rule *packed_lowp_bf16_rule_get(void);

/* The path a call of type t takes now: "avx512_bf16",
 * "avx512_fma_widened", "avx512_vnni" or "portable" (and "" for a type
 * these kernels do not run). */
const char *packed_lowp_path(gb_dtype t);

/* ---- between the driver and its kernels ---------------------------------- */

/*
 * Packed layouts, in 32-bit groups (G elements of k: 2 for bf16, 4 for
 * u8s8), k beyond the operand zero-padded to a whole group:
 *   A micro-panel: MR rows, [kg][MR] groups (row i's k group g at g*MR + i),
 *                  rows past M zero;
 *   B micro-panel: NR columns, [kg][NR] groups (column j's k group g at
 *                  g*NR + j, its G k values in order inside the word),
 *                  columns past N zero.
 * Widened (lowp_isa.widen, bf16 on the f32 FMA): every bf16 becomes the
 * f32 with the same bits above 16 zero bits, exact, each k its own word:
 *   A micro-panel: [2 kg][MR] f32, B micro-panel: [2 kg][NR] f32,
 * so a panel's words per group double (the driver's strides and buffers
 * scale by 1 + widen), and the kernel's kg still counts groups.
 * The micro-kernel: the MR x NR tile of C from one A and one B micro-panel,
 *     C[i][j] (+)= sum_{g < kg} dot(a[g*MR + i], b[g*NR + j])
 * stored for i < m, j < n only (C rows ldc elements apart; the rest of the
 * tile is never touched); accumulate 0 overwrites C (the first k block),
 * 1 adds to it.  C is float (bf16) or int32_t (u8s8).
 */
typedef void (*lowp_ukernel_fn)(int kg, const uint32_t *restrict a,
                                const uint32_t *restrict b, void *restrict c, long ldc,
                                int m, int n, int accumulate);
/* Packing B into that layout: kc rows x nc columns (row stride ldb
 * elements) into NR-column micro-panels panel_stride words apart. */
typedef void (*lowp_pack_b_fn)(int kc, int nc, const void *B, long ldb, uint32_t *restrict dst,
                               long panel_stride);

/* The micro-kernel that also packs its B micro-panel: b is B's kc = 4 kg
 * rows x NR columns in place (row stride ldb elements), all of them
 * existing; the panel it packs goes to bdst (the layout above), for the
 * plain kernel's calls on the other rows.  m, n, accumulate: the
 * kernel's. */
typedef void (*lowp_ukernel_packing_fn)(int kg, const uint32_t *restrict a, const void *b,
                                        long ldb, uint32_t *restrict bdst, void *restrict c,
                                        long ldc, int m, int n, int accumulate);

/* Packing A into that layout: mc rows x kc of A (row stride lda elements)
 * into MR-row micro-panels, rows past mc and k past kc zero; the isa knows
 * its element type, group and widening. */
typedef void (*lowp_pack_a_fn)(int mc, int kc, const void *A, long lda, uint32_t *restrict dst);

/* The widest fringe kernel_narrow takes: two 16-lane vectors of C; it runs
 * one of them for a fringe of up to 16 columns. */
#define LOWP_NARROW_COLS 32
#define LOWP_NARROW_LANES 16

/* One type's kernel and packing on one instruction set. */
typedef struct lowp_isa {
    const char *name;        /* packed_lowp_path's, the entry's "impl" */
    int mr, nr;              /* register block */
    int group;               /* k per 32-bit group: 2 (bf16) or 4 (u8s8) */
    int widen;               /* 0: a group is one word per row / column of a
                              * panel (the layout above); 1: bf16 widened,
                              * each k its own f32 word, [k][MR] and [k][NR]
                              * (f32 GEMM's layout), so a group takes 2 words */
    lowp_ukernel_fn kernel;
    lowp_ukernel_fn kernel_narrow;          /* the same for n <= LOWP_NARROW_COLS
                                             * only, on the tile's first vectors (a
                                             * fringe micro-panel: the full tile
                                             * would spend its FMAs on zero
                                             * padding); NULL: kernel runs it */
    lowp_ukernel_packing_fn kernel_packing; /* NULL: B always packed first */
    int (*kernel_packing_runs)(void);       /* 1 when this CPU runs kernel_packing */
    lowp_pack_b_fn pack_b;
    lowp_pack_a_fn pack_a;   /* NULL: the driver's portable packing of A */
    int (*cpu_runs)(void);   /* 1 when this CPU and OS execute it */
} lowp_isa;

#if defined(__x86_64__)
extern const lowp_isa lowp_isa_avx512_bf16, lowp_isa_avx512_fma_widened, lowp_isa_avx512_vnni;
#endif

#endif
