/*
 * packed_plan.h - what the packed schedule's planning (packed_plan.c) hands
 * its execution (packed.c): one packed_plan per shape, thread count and
 * --prepack, made before a call and only read during it; and the parts of
 * the variant that describe a plan (its parameters, --explain, the
 * effective parameters, the check of a forced choice).
 */
#ifndef GB_PACKED_PLAN_H
#define GB_PACKED_PLAN_H

#include <stddef.h>
#include <stdio.h>

#include "gemmbench.h"
#include "machine.h"
#include "packed_kernels.h"

/* How A reaches the micro-kernel (--param apack; the index is the mode). */
enum { A_WHOLE, A_BLOCK, A_IN_PLACE, A_FUSED };
/* How the micro-kernel gets B (--param bpack; the index is the b_mode). */
enum { B_PANEL, B_IN_PLACE, B_PREPACKED, B_FUSED, B_PANEL_FUSED };

/* Everything a call needs to know about its loops. */
typedef struct packed_plan {
    const packed_isa *isa;
    int mr, nr;
    int mc, kc, nc;          /* cache blocks (mc % mr == 0, nc % nr == 0) */
    int tm, tn;              /* thread grid: rows x columns of C */
    int a_mode;              /* A_WHOLE (once per call, by all threads), A_BLOCK,
                              * A_IN_PLACE (fringe micro-panels packed) or A_FUSED
                              * (each micro-panel packed right before its first use) */
    int ir_outer;            /* ir loop outside jr (A micro-panel in L1), else inside */
    int b_mode;              /* B_PANEL, B_IN_PLACE, B_PREPACKED, B_FUSED or B_PANEL_FUSED */
    int fused_min_passes;    /* B fused: A micro-panels per B micro-panel from which
                              * the first one's pass copies it for the others
                              * (INT_MAX: never, bcopy in place) */
    int nthreads;
    int team;                /* more than one thread: packed's own (packed_team.c), 1,
                              * or an OpenMP region per call, 0 (--param team) */
    long l1_bytes, l2_bytes; /* what the rule used */
    int l1_ways;             /* L1d associativity; 0 unknown */
    int b_next;              /* jr outer, B in place: each pass prefetches its share
                              * of the next B micro-panel into L2 (--param bnext) */
    int bpf;                 /* --param bpf: rows B read in place is prefetched ahead, or -1 */
    int kc_places;           /* kc cut to the L2 places B's rows have (packed_plan.c's
                              * header), 1, or not, 0 */
    int copy_ahead;          /* B fused where a pass copies: the passes over each B
                              * micro-panel copy the next one between them
                              * (isa->kernel_copy_ahead), 1, or the first pass copies
                              * its own, 0 (--param bahead) */
    int b_far;               /* B's rows a page or more apart, read in place by a pass
                              * that does not copy them while the next micro-panel is
                              * prefetched (b_next, jr outer): the copy kernel also
                              * prefetches each row 16 ahead into L2 (packed_b_far), 1,
                              * or not, 0 (the calibration's bfar, --param bfar) */
    /* Operands whose rows are a page or more apart, per call: how each is
     * read, GB_READ_IN_PLACE or GB_READ_COPIED (machine.h), from --param
     * bread / aread or the machine's calibration; and read[GB_CALIB_BCOPY],
     * B fused's copy (--param bcopy or the calibration); -1: not this plan's
     * question (rows closer, --prepack, or --param bpack / apack). */
    int read[GB_CALIB_QUESTIONS];
    int read_param[GB_CALIB_QUESTIONS]; /* from --param, not from calib */
    gb_calibration calib;    /* the machine's calibration at nthreads, when asked (at
                              * the threads the tiles allow, where those are more
                              * than one: packed_threads_for_work) */
    int threads_tiles;       /* the threads the tiles allowed (packed_threads_for_tiles) */
    /* What they would save the busiest thread, and what a threaded call
     * costs beyond its share, where the calibration measured it
     * (packed_threads_for_work; 0: not computed). */
    double threads_saving_us, threads_own_us;
} packed_plan;

/* The plan of one call: the isa (NULL when a forced one is not in this
 * build, and then nothing else), the regimes, the blocks and the grid.
 * prepack: B pre-packed by prepare(). */
void packed_plan_call(int M, int N, int K, const gb_ctx *ctx, int prepack, packed_plan *p);
/* The same on a machine's caches and calibration given rather than this
 * one's: the plan another CPU kind would run, from its figures (the unit
 * tests plan for the kinds not at hand).  cal NULL: machine's calibration
 * as a run finds it (gb_calibration_lookup). */
void packed_plan_call_on(const gb_machine *machine, const gb_calibration *cal, int M, int N,
                         int K, const gb_ctx *ctx, int prepack, packed_plan *p);

/* Would B fused (jr outer) cut kc below its L1 figure to keep all M rows
 * of A (in micro-panels of mr) in L2, on caches of these sizes (0: the
 * fallback)?  packed then runs B panel fused (ir outer); the schedule
 * model's b_read asks the same (src/sched/model.c). */
int packed_fused_cuts_kc_at(long l1_bytes, long l2_bytes, int mr, int M, int K);

/* Rows ahead the kernel prefetches B whose rows are ld floats apart. */
int packed_b_prefetch_rows(const packed_plan *p, long ld);

/* B fused: whether the first of `passes` A micro-panels' passes over a B
 * micro-panel copies it for the later ones (below the plan's threshold,
 * every pass reads B in place). */
static inline int fused_copies(const packed_plan *p, int passes)
{
    return passes >= p->fused_min_passes;
}

/* The next B micro-panel's prefetch (packed.c's macro_kernel), jr outer:
 * of its `rows` rows, those that pass `pass` of the `passes` over the
 * current micro-panel prefetches from its first k (packed_kernels.h):
 * *first on, the count returned (0: none).  The passes' shares are consecutive and cover every row once,
 * none over ceil(rows / passes), so the prefetches spread over all passes. */
static inline int b_next_share(int rows, int passes, int pass, int *first)
{
    const int share = (rows + passes - 1) / passes;

    *first = pass * share;
    return *first >= rows ? 0 : rows - *first < share ? rows - *first : share;
}

static inline int round_up(long x, int unit)
{
    return (int)((x + unit - 1) / unit * unit);
}

static inline long ceil_div(long a, long b)
{
    return (a + b - 1) / b;
}

/* The threads a call uses: those asked (at least one), but never more than
 * C has MR x NR tiles.  A thread without a tile only adds to the region's
 * fork and join (`gemmbench info`'s fork/join line), and one tile runs on
 * the caller with no region at all: 8x768x48 at 2 threads took 1.21x its
 * time at 1 (AMD EPYC family 25). */
static inline int packed_threads_for_tiles(int asked, int M, int N, int mr, int nr)
{
    const long tiles = ceil_div(M > 0 ? M : 1, mr) * ceil_div(N > 0 ? N : 1, nr);
    return asked < 1 ? 1 : tiles < asked ? (int)tiles : asked;
}

/* Where grid column j of npanels column panels starts (bound[j]) and ends
 * (bound[j + 1]): cumulative shares (share NULL: equal ones) rounded to
 * whole panels, every column at least one panel while there are enough.
 * packed.c splits each call so, its shares learned from the calls before;
 * the plan weighs its grids at equal shares. */
void packed_column_bounds(const double *share, int tn, int npanels, int *bound);

/* The threads' cost that cal measured (machine.h) in a plan's terms:
 * *unit_us, the time of one of its cost units at one thread (an FMA; an
 * element packed or read counts PACK_COST of them): the small call's time
 * over its cost on isa's tile (NULL: the widest this CPU runs, which the
 * calibration measured); *own_us, what a call at cal->threads costs beyond
 * its busiest thread's share of the work: the small call's time there
 * less that share's.  1, or 0 with both 0 where cal measured none. */
int packed_threads_cost(const gb_calibration *cal, const packed_isa *isa, double *unit_us,
                        double *own_us);

/* Then the threads a call uses where the tiles allow `threads` (more than
 * one): all of them, or one where what they save the busiest thread,
 * unit_us (cost_1 - cost_t), is no more than own_us (packed_threads_cost);
 * cost_1 and cost_t: the busiest thread's work at one thread and at
 * `threads`, in the plan's units.  unit_us 0 (not measured): all.
 * *saving_us: that saving, or 0 where not computed.  On the AMD EPYC
 * family 25 guest at 2 threads: 16x64x64 1.7 us, its time at one thread
 * (2.3 us on a 2 x 1 grid), and 32x32x32 1.4 us against 1.1; 64x64x64 4.5
 * against 5.4 (own_us 1.06; `gemmbench info`'s fork/join line, an empty
 * region: 0.5-1.1 us there, 3.2 on family 26). */
static inline int packed_threads_for_work(int threads, double cost_1, double cost_t,
                                          double unit_us, double own_us, double *saving_us)
{
    *saving_us = 0.0;
    if (threads < 2 || !(unit_us > 0.0))
        return threads;
    *saving_us = unit_us * (cost_1 - cost_t);
    return *saving_us > own_us ? threads : 1;
}

/* This machine as packed's plans read it, detected once per process. */
const gb_machine *packed_machine(void);

/* The variant's description of a plan (gb_variant's resolve, explain,
 * usable and params); packed_plan_effective takes the plan that runs. */
void packed_plan_effective(const packed_plan *p, int M, int N, gb_params *effective);
void packed_explain(FILE *out, int M, int N, int K, const gb_ctx *ctx);
/* --explain's "N threads:" after a plan's header, with "(U used: T tiles of
 * MRxNR)" where the threads rule took fewer than asked (f32 and low
 * precision alike). */
void packed_explain_threads(FILE *out, int asked, int used, int M, int N, int mr, int nr);
int packed_usable(const gb_params *params, char *why, size_t whylen);
extern const gb_param_spec packed_params[];

#endif
