/*
 * packed_kernels.h - the micro-kernels of the packed schedule (packed.c):
 * one signature for every instruction set, and the data that describes each
 * one (its register block and how to tell whether the CPU runs it).
 *
 * The framework (packed.c: five loops, packing, blocking, threads) is
 * written once; each packed_kernels_ISA.c holds only the micro-kernel of one
 * instruction set, as BLIS keeps kernels/haswell/3/ apart from frame/.
 */
#ifndef GB_PACKED_KERNELS_H
#define GB_PACKED_KERNELS_H

#include <stdint.h>

/*
 * The micro-kernel: one MR x NR tile of C from packed panels,
 *     C[i][j] (+)= sum_{k < kc} a[k*MR + i] * b[k*NR + j]     i < MR, j < NR
 * a: an MR-row micro-panel of A, k-major (MR values per k);
 * b: an NR-column micro-panel of B, its k rows ldb floats apart: NR in a
 *    packed panel, or B's own row stride when B is read in place (packed.c
 *    decides); no alignment assumed;
 * c: the tile's first element, rows ldc floats apart (no alignment);
 * accumulate: 0 stores the product (beta = 0, the first k block), 1 adds it
 *    (every later k block).
 * Panels are zero-padded to full MR and NR, so a kernel never sees an edge:
 * fringe tiles go through a scratch tile in packed.c.
 */
typedef void (*packed_ukernel_fn)(int kc, const float *restrict a, const float *restrict b,
                                  long ldb, float *restrict c, long ldc, int accumulate);
/* The same, with A read in place: row i of the MR x kc micro-panel at
 * a + i * lda, its k consecutive; all MR rows must exist. */
typedef void (*packed_ukernel_a_fn)(int kc, const float *restrict a, long lda,
                                    const float *restrict b, long ldb, float *restrict c,
                                    long ldc, int accumulate);

/* The tile with B read in place (k rows ldb apart) that also stores each
 * k row of its B micro-panel to b_copy (row k at k*NR, contiguous), unless
 * b_copy is NULL: the first A micro-panel's pass over a B micro-panel packs
 * it for the later passes, which then read it from L2 (packed.c, the fused
 * regimes).  It prefetches the B row b_ahead floats past the one it loads
 * into L1 (packed_plan.c's distance in rows times ldb; the two kernels
 * above use PACKED_B_PREFETCH_ROWS rows), and the row b_far floats past it
 * into L2, or none where b_far is 0 (packed_b_far; packed.c decides).
 * lda 0: a is a packed A micro-panel; else A in place, rows lda apart.
 * b_next: rows of the B micro-panel the next
 * passes will read (next_ld floats apart: B in place, or a packed block's),
 * b_next_rows of them prefetched into L2, one per k from the first, or one
 * every two k where 2 b_next_rows fit in kc (the AVX-512 kernel; packed.c,
 * macro_kernel), or b_next_rows 0. */
typedef void (*packed_ukernel_copy_fn)(int kc, const float *restrict a, long lda,
                                       const float *restrict b, long ldb, long b_ahead,
                                       long b_far, float *restrict b_copy, const float *b_next,
                                       int b_next_rows, long next_ld, float *restrict c,
                                       long ldc, int accumulate);

/* The tile with B a packed micro-panel (b: k rows NR floats apart) that
 * meanwhile copies `rows` rows of the next B micro-panel, read in place
 * (src: rows ld floats apart), to dst (NR floats a row, 64-byte aligned),
 * spread over its k steps (a row every eighth, fourth, second or every
 * step, the widest spacing that fits before C's prefetch), each row's
 * source prefetched into L2 PACKED_B_PREFETCH_ROWS copied rows ahead.
 * The passes over one B micro-panel copy the next one between them, so
 * that B's trips to L3 spread over every pass rather than fall in the
 * first (packed.c, B fused's copy ahead).  lda as above.  NULL in an isa
 * without it (the regime is then the first pass's copy). */
typedef void (*packed_ukernel_ahead_fn)(int kc, const float *restrict a, long lda,
                                        const float *restrict b, const float *src, long ld,
                                        int rows, float *restrict dst, float *restrict c,
                                        long ldc, int accumulate);

/* The tile's first `cols` columns only (a multiple of the vector width,
 * under NR), for a fringe micro-panel that narrow: b is packed (zero-padded,
 * its rows ldb apart), c as above with its first cols columns written; lda
 * as kernel_copy_b's; next: next_rows rows of the micro-panel read after
 * this one, next_ld floats apart, prefetched into L2 one per k (or
 * next_rows 0).  A fringe of N = 7 then does 16 of the tile's 48 columns'
 * FMAs.  NULL in an isa without it (the full tile runs). */
typedef void (*packed_ukernel_narrow_fn)(int kc, const float *restrict a, long lda,
                                         const float *restrict b, long ldb, int cols,
                                         const float *next, long next_ld, int next_rows,
                                         float *restrict c, long ldc, int accumulate);

/* Rows of B the kernels prefetch ahead of the one they load, at most: B read
 * in place is a row stride apart per k, which not every hardware prefetcher
 * follows, and a trip to L3 takes about as long as 16 rows of FMAs. */
#ifndef PACKED_B_PREFETCH_ROWS
#define PACKED_B_PREFETCH_ROWS 16
#endif

/* The next micro-panel's prefetch goes to L2: it is read a pass or more
 * later, and L1 holds the A and B micro-panels of the pass in progress. */
#ifndef PACKED_B_NEXT_HINT
#define PACKED_B_NEXT_HINT _MM_HINT_T1
#endif

/* The page size the rules read strides against (packed_plan.c): rows this
 * far apart or farther each sit on a page of their own. */
#define PACKED_PAGE_BYTES 4096L

/* The copy kernel's second prefetch, into L2: where B's rows are a page or
 * more apart (every row on its own page, which no hardware prefetcher
 * crosses into) and its L1 distance (b_ahead floats) is shorter than
 * PACKED_B_PREFETCH_ROWS rows (an L1d set holds few such rows,
 * packed_plan.c), the row that many rows ahead is brought into L2, whose
 * sets such rows do not crowd, so that the short L1 prefetch finds it
 * there and the trip to L3 is hidden as in the other kernels.  Floats
 * ahead, or 0: none.  packed.c passes 0 instead where the plan says the
 * next micro-panel's prefetch alone brings B into L2 (plan.b_far, the
 * calibration's bfar). */
static inline long packed_b_far(long b_ahead, long ldb)
{
    return ldb * (long)sizeof(float) >= PACKED_PAGE_BYTES &&
                   b_ahead < PACKED_B_PREFETCH_ROWS * ldb
               ? PACKED_B_PREFETCH_ROWS * ldb
               : 0;
}

/* The address b_ahead + offset floats past b, for a prefetch (of B, or of
 * A read in place).  Computed as an integer: near the end of the matrix it
 * points past it, where a prefetch is harmless but a C pointer is
 * undefined. */
static inline const char *packed_b_ahead(const float *b, long b_ahead, long offset)
{
    return (const char *)((uintptr_t)b + (uintptr_t)(b_ahead + offset) * sizeof(float));
}

/* Packing into the layouts above (packed_pack.h), compiled per ISA with
 * its MR and NR as constants.  pack_a: an A block of mc rows x kc (row
 * stride lda) into consecutive MR-row micro-panels; pack_b: a B panel of
 * kc rows x nc (row stride ldb) into NR-column micro-panels; both
 * zero-padded. */
typedef void (*packed_pack_a_fn)(int mc, int kc, const float *A, long lda,
                                 float *restrict dst);
typedef void (*packed_pack_b_fn)(int kc, int nc, const float *B, long ldb,
                                 float *restrict dst);

/* One instruction set's kernel, packing and register block, MR x NR,
 * chosen by the rule in packed.c's header from the vector register count. */
typedef struct packed_isa {
    const char *name;        /* the --param isa= choice */
    int mr, nr;              /* register block: rows of A, columns of B */
    int vector_regs;         /* architectural SIMD registers the rule used */
    int vector_floats;       /* floats per SIMD register */
    packed_ukernel_fn kernel;
    packed_ukernel_a_fn kernel_a_in_place;
    packed_ukernel_copy_fn kernel_copy_b;
    packed_ukernel_ahead_fn kernel_copy_ahead; /* or NULL */
    packed_ukernel_narrow_fn kernel_narrow;    /* or NULL */
    packed_pack_a_fn pack_a;
    packed_pack_b_fn pack_b;
    /* A fringe micro-panel (n < NR columns) for kernel_narrow: its rows
     * only as wide as the narrow kernel reads them (n rounded up to whole
     * vectors: the row stride), the columns past n zero; or NULL (pack_b,
     * NR wide). */
    packed_pack_b_fn pack_b_fringe;
    int (*cpu_runs)(void);   /* 1 when this CPU can execute the kernel */
} packed_isa;

#if defined(__x86_64__)
extern const packed_isa packed_isa_avx512;
extern const packed_isa packed_isa_avx2;
#endif
extern const packed_isa packed_isa_portable;

#endif
