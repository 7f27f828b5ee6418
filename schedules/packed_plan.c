/*
 * packed_plan.c - the packed schedule's plan, which packed.c's loops run:
 * for one shape, thread count and --prepack, the micro-kernel, how B and A
 * reach it (the regimes packed.c's header describes, by the rules it
 * states), the order of the two inner loops, the cache blocks, the thread
 * grid and the prefetch distance, handed over as one packed_plan
 * (packed_plan.h).  A plan is made before a call (by prepare(), or at the
 * call's start without it) and only read during it; --explain and the
 * result file's effective parameters describe a plan from the same
 * packed_plan_call, so what they print is what runs.
 *
 * Prefetch distance for B read in place (every regime's first pass): a
 * prefetched row waits in L1 until the kernel loads it, and rows whose
 * distance is a multiple of L1d's way size (its size over its ways, 4 KiB
 * on a 48 KiB 12-way or 32 KiB 8-way L1d) fall into one set.  The set
 * repeats every `period` rows (way / gcd(row bytes mod way, way): 1 at
 * N = 1024, 2048, 3072, 2 at 1536, 4 at 768); a set gives half its ways
 * to the A micro-panel (kc's rule) and one each to the row being loaded
 * and to the C or copy lines being stored, and the rest, times the period,
 * is how many rows ahead the kernel prefetches, at most
 * PACKED_B_PREFETCH_ROWS (16; unknown ways: 16).  On a 12-way L1d that is
 * 4 rows for mlp_expand's B and 16 for N = 768: 16 rows of a 12 KiB stride
 * would evict each other before use.  The kernels reading packed B keep 16
 * rows (their rows are contiguous); the copy kernel takes the distance as
 * an argument (packed_kernels.h), and reads B in place, copying it or not,
 * wherever the distance is shorter; where B's rows are also a page or more
 * apart it prefetches the row 16 ahead into L2 as well (packed_b_far),
 * unless no pass copies B and the next micro-panel's prefetch brings it
 * into L2 already, where the calibration's bfar decides (--param bfar).
 * --param bpf overrides the L1 distance.
 *
 * Cache blocks from the detected caches (include/machine.h):
 *   kc: by this machine's calibration (kcrule), either BLIS's analytical
 *       model (Low et al. 2016: L1d's ways, gb_blis_kc_cap) or, as below,
 *       the A micro-panel (MR x kc) in half of L1d in every regime, so
 *       that K = 768 is one pass over C on a 48 KiB L1d; the rest of L1
 *       holds the B lines in flight and the C tile.  (A B micro-panel read
 *       in place cannot claim L1 by size: its rows share L1 sets.)  With B
 *       fused (jr outer, rows a page or more apart) B is not kept anywhere
 *       between ic blocks, so each ic block reads it from memory again: kc
 *       is also cut until an A block of all M rows fits mc's share of L2
 *       (one ic block), but not below a quarter of the L1 figure (more
 *       passes over C would cost more than a second read of B).  B in
 *       place (rows under a page apart) is not cut: the next B
 *       micro-panel's prefetch (b_next) hides its read per ic block, and
 *       the cut's extra passes over C cost more (Zen 4 guest, M = 384, K =
 *       768 and 3072, N = 768, 24 rounds: L1's kc 0.98x the cut kc's time at
 *       2 threads, 0.99x at 1).  And jr outer where every pass reads B in
 *       place (in place, or fused with no copy at this M): each A
 *       micro-panel's pass reads the B micro-panel again from L2, and the
 *       next one's prefetch into L2 must last until its first pass, so kc
 *       rows of B must fit the places L2 has for rows N floats apart
 *       (gb_places_rows: L2 / gcd(row bytes, page), 256 rows for
 *       mlp_expand's 12 KiB on 1 MiB; 1024 at N = 768, no cut), down to
 *       the same quarter.  AMD EPYC family 26, mlp_expand, kc 768 -> 256,
 *       gemmbench ab, 12 rounds: M = 8 0.934x | 0.955x (1 | 2 threads),
 *       M = 16-32 0.974-0.981x; on the family 25 guest uncut took
 *       0.95-0.99x the time at M = 8-256, so the calibration decides
 *       (kcplaces);
 *   mc: the A block (mc x kc) takes half of L2;
 *   nc: the B block (kc x nc) takes half of L2 when B is packed (per call,
 *       panel fused or pre-packed), so that a packed panel is still in L2
 *       when the micro-kernels read it back; in place or fused there is no
 *       B block and nc is all of N (one jc block, nothing done twice);
 * each rounded to its register block and balanced, so that K = 768 is cut
 * into equal blocks rather than a full one and a sliver.  --param mc, kc,
 * nc override (mc, nc rounded up to MR, NR; not balanced); --param isa,
 * bpack, loop and apack force the other choices, bread and aread the
 * calibrated ones (ablations).
 *
 * Thread grid: tm x tn threads over the rows and columns of C (packed.c
 * splits the (ic, jr) tiles over it), the one that minimizes, for the
 * busiest thread, its FMAs (rows padded to MR, a fringe micro-panel at the
 * narrow kernel's width) + PACK_COST x the A and B elements it packs
 * or reads: splitting N brings each B element in once, splitting M would
 * bring all of B in on every thread, so at BERT's shapes the columns are
 * split.  Threads: as many as asked while C has tiles for them, and one
 * where what the others would save the busiest thread is no more than a
 * threaded call's own cost, both timed by the calibration
 * (packed_threads_for_work).
 */
#include "gemmbench.h"
#include "calibration.h"
#include "machine.h"
#include "packed_plan.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Shares of each cache the blocking rule gives a block (see the header). */
#define KC_A_L1_SHARE 0.5  /* A micro-panel, MR x kc, whichever loop is outer */
/* jr outer: kc no smaller than the L1 cap over this, however large M. */
#define KC_JR_MIN_DIVISOR 4
/* Rows of B closer than a page are read in place (see packed_plan_call). */
#define PAGE_BYTES PACKED_PAGE_BYTES
#define CACHE_LINE_BYTES 64L /* x86-64's and the common ARM cores' */
#define MC_L2_SHARE 0.5
#define NC_L2_SHARE 0.5
/* When the caches are unknown: common sizes of the last decade. */
#define FALLBACK_L1_BYTES (32L * 1024)
#define FALLBACK_L2_BYTES (1024L * 1024)
/* Cost of packing one element, in FMAs of the micro-kernel, for choosing
 * the thread grid (an element copy costs about one FMA-vector slot). */
#define PACK_COST 16.0
/* B fused copies a micro-panel only when the passes after the first do at
 * least this many FMAs per copied element ((A micro-panels - 1) x MR):
 * below that, reading B in place again costs less than the copy's stores.
 * Measured (AMD EPYC, mlp_expand, in place against fused, median of the
 * per-round ratios, 20 rounds): 2 A micro-panels 0.84 (1 thread) and 0.90
 * (2 threads), 3: 0.90 / 0.97, 4: 0.95 / 0.97, 6: 0.98 / 1.01, 12:
 * 1.03 / 1.02, 16: 1.04 / 1.05.  On AVX-512 (MR 8): copied from 5 A
 * micro-panels (M = 40) per thread up.  Whether fused copies at all is
 * calibrated (bcopy, src/measure/calibrate.c): on a Zen 4 guest in place
 * was 2-5 % faster at 6 to 16 A micro-panels, and the calibration says in
 * place there. */
#define FUSED_COPY_FMAS 32
/* B fused (jr outer, its rows a page or more apart) from this many rows of
 * C up is panel fused instead where the calibration says (bmany, timed at
 * M = 192 and 256, so never applied below the rows it was measured at):
 * jr outer streams the A block from L2 on every pass over a B micro-panel
 * and re-reads the micro-panel for each A micro-panel, ir outer keeps the
 * A micro-panel in L1 and streams B's packed block from L2.  On the
 * family 25 (Zen 4) guest panel fused took 0.975-0.988x fused's time at
 * M = 192 and 256 (1 thread; 0.98-1.00x at 2), 0.99x at 128 and 160. */
#define PANEL_MANY_ROWS 192

/* ---- instruction sets ------------------------------------------------------ */

/* Widest first: the default is the first one the CPU runs. */
static const packed_isa *const isa_table[] = {
#if defined(__x86_64__)
    &packed_isa_avx512,
    &packed_isa_avx2,
#endif
    &packed_isa_portable,
};
#define ISA_COUNT (sizeof isa_table / sizeof isa_table[0])

/* The --param isa choices: every name, on every build, so that a command
 * line means the same everywhere (a path this build or CPU lacks fails). */
static const char *const isa_choices[] = { "avx512", "avx2", "portable", NULL };
/* --param apack: A packed whole once per call, block by block, or read in
 * place (the index is the mode). */
static const char *const apack_choices[] = { "whole", "block", "in_place", "fused", NULL };
/* --param bpack: how the micro-kernel gets B (the index is the b_mode). */
static const char *const bpack_choices[] = { "panel", "in_place", "prepacked", "fused",
                                             "panel_fused", NULL };
/* --param loop: the order of the two inner loops, outer first. */
static const char *const loop_choices[] = { "ir_jr", "jr_ir", NULL };

/* The isa the user forced (NULL if unknown here), or the widest this CPU runs. */
static const packed_isa *select_isa(const gb_params *params)
{
    long forced = gb_param_get(params, "isa", -1);

    if (forced >= 0) {
        for (size_t i = 0; i < ISA_COUNT; i++)
            if (strcmp(isa_table[i]->name, isa_choices[forced]) == 0)
                return isa_table[i];
        return NULL;
    }
    for (size_t i = 0; i < ISA_COUNT; i++)
        if (isa_table[i]->cpu_runs())
            return isa_table[i];
    return &packed_isa_portable;
}

static long choice_index(const char *name)
{
    for (long i = 0; isa_choices[i]; i++)
        if (strcmp(isa_choices[i], name) == 0)
            return i;
    return -1;
}

/* ---- blocking ---------------------------------------------------------------- */

/* The largest multiple of unit <= cap (at least unit), then balanced over
 * extent: as many blocks as cap needs, each as equal as unit allows. */
static int balanced_block(long extent, long cap, int unit)
{
    long blocks, block;

    cap = cap / unit * unit;
    if (cap < unit)
        cap = unit;
    if (cap >= extent)
        return round_up(extent, unit);
    blocks = ceil_div(extent, cap);
    block = round_up(ceil_div(extent, blocks), unit);
    return (int)block;
}

/* A user's block: at least one register block, rounded up to it, and never
 * larger than the (rounded) extent, so buffers stay bounded by the shape. */
static int user_block(long value, long extent, int unit)
{
    long max = round_up(extent, unit);
    long v = round_up(value, unit);
    return (int)(v < max ? v : max);
}

void packed_column_bounds(const double *share, int tn, int npanels, int *bound)
{
    double sum = 0.0;

    bound[0] = 0;
    for (int j = 0; j < tn; j++) {
        int b, lo, hi;
        sum += share != NULL ? share[j] : 1.0 / tn;
        b = j + 1 == tn ? npanels : (int)(sum * npanels + 0.5);
        lo = bound[j] + (npanels >= tn ? 1 : 0);
        hi = npanels - (npanels >= tn ? tn - 1 - j : 0);
        bound[j + 1] = b < lo ? lo : b > hi ? hi : b;
    }
}

/* The columns of C the busiest grid column runs its tiles over, at equal
 * shares: NR a micro-panel, and N's fringe (the last micro-panel, under
 * NR) at the narrow kernel's width, its columns rounded up to whole
 * vectors, where the isa has one (packed.c).  Counting the fringe at NR
 * made 1 x 2 and 2 x 1 tie at 256 x 256 x 256 (six micro-panels, the
 * last 16 wide), and the tie went to 1 x 2: one thread 144 columns, the
 * other 112, 1.11x oneDNN's time at 2 threads (AMD EPYC family 25). */
static double busiest_cols(const packed_plan *p, int N, int tn)
{
    const int npanels = (int)ceil_div(N, p->nr);
    const int fringe = N - (npanels - 1) * p->nr, vf = p->isa->vector_floats;
    const int last = fringe < p->nr && p->isa->kernel_narrow != NULL
                         ? (int)ceil_div(fringe, vf) * vf : p->nr;
    int *bound = malloc(((size_t)tn + 1) * sizeof *bound);
    double most = 0.0;

    if (bound == NULL)
        return (double)ceil_div(npanels, tn) * p->nr;
    packed_column_bounds(NULL, tn, npanels, bound);
    for (int j = 0; j < tn; j++) {
        const int panels = bound[j + 1] - bound[j];
        double cols = (double)panels * p->nr;
        if (panels > 0 && bound[j + 1] == npanels)
            cols += last - p->nr;
        most = cols > most ? cols : most;
    }
    free(bound);
    return most;
}

/* The busiest thread's work on the best grid of t threads before the
 * blocks are chosen: its FMAs, and its A and B elements read once each,
 * at PACK_COST FMAs (grid_cost with A read by every thread and one jc
 * block): what the threads rule weighs (packed_threads_for_work). */
static double work_cost(const packed_plan *p, int M, int N, int K, int t)
{
    double best = -1.0;

    for (int tm = 1; tm <= t; tm++) {
        const int tn = t / tm;
        double rows, cols, cost;
        if (tm * tn != t)
            continue;
        rows = (double)ceil_div(ceil_div(M, p->mr), tm) * p->mr;
        cols = busiest_cols(p, N, tn);
        cost = rows * cols * K + PACK_COST * (rows + cols) * K;
        best = best < 0.0 || cost < best ? cost : best;
    }
    return best;
}

int packed_threads_cost(const gb_calibration *cal, const packed_isa *isa, double *unit_us,
                        double *own_us)
{
    const int s = GB_CALIB_SMALL;
    gb_params none;
    packed_plan q;
    double c1;

    *unit_us = *own_us = 0.0;
    memset(&none, 0, sizeof none);
    memset(&q, 0, sizeof q);
    q.isa = isa != NULL ? isa : select_isa(&none);
    if (q.isa == NULL || cal->threads < 2 || !(cal->small_us > 0.0) ||
        !(cal->small_t_us > 0.0))
        return 0;
    q.mr = q.isa->mr;
    q.nr = q.isa->nr;
    c1 = work_cost(&q, s, s, s, 1);
    *unit_us = cal->small_us / c1;
    *own_us = cal->small_t_us - *unit_us * work_cost(&q, s, s, s, cal->threads);
    return 1;
}

/* Busiest thread's cost for a tm x tn grid: its FMAs (rows padded to MR,
 * columns as busiest_cols runs them), plus the A and B elements it packs
 * or reads, at PACK_COST FMAs each. */
static double grid_cost(const packed_plan *p, int M, int N, int K, int tm, int tn)
{
    const double rows = (double)ceil_div(ceil_div(M, p->mr), tm) * p->mr;
    const double cols = busiest_cols(p, N, tn);
    const double jc_blocks = (double)ceil_div((long)cols, p->nc);
    const int a_shared = p->a_mode == A_WHOLE || p->a_mode == A_FUSED;
    const double a_packed = a_shared ? (double)round_up(M, p->mr) * K / p->nthreads
                                       : rows * K * jc_blocks;
    /* B is brought in whether it is packed, read in place or pre-packed. */
    const double packed = a_packed + cols * K;
    return rows * cols * K + PACK_COST * packed;
}

/* kc's cap from L1: the A micro-panel (MR x kc) in its share of L1d. */
static long kc_l1_cap(const packed_plan *p)
{
    return (long)(KC_A_L1_SHARE * p->l1_bytes) / ((long)p->mr * (long)sizeof(float));
}

/* With jr outer, all M rows of an A block (M x kc) stay in mc's share of
 * L2 while the B micro-panels pass: the kc that allows. */
static long kc_whole_m_cap(int M, const packed_plan *p)
{
    return (long)(MC_L2_SHARE * p->l2_bytes) / ((long)round_up(M, p->mr) * (long)sizeof(float));
}

/* Would B fused (jr outer) have to cut kc below L1's figure (and K) to
 * keep all M rows of A in L2?  Then ir outer, B copied into a packed block
 * by the first A micro-panel's pass, does the k loop in one piece instead. */
static int fused_cuts_kc(int M, int K, const packed_plan *p)
{
    const long l1_cap = kc_l1_cap(p), want = l1_cap < K ? l1_cap : K;
    return kc_whole_m_cap(M, p) < want;
}

int packed_fused_cuts_kc_at(long l1_bytes, long l2_bytes, int mr, int M, int K)
{
    packed_plan p;

    memset(&p, 0, sizeof p);
    p.l1_bytes = l1_bytes > 0 ? l1_bytes : FALLBACK_L1_BYTES;
    p.l2_bytes = l2_bytes > 0 ? l2_bytes : FALLBACK_L2_BYTES;
    p.mr = mr > 0 ? mr : 1;
    return fused_cuts_kc(M, K, &p);
}

/* Rows ahead the kernel prefetches B whose rows are ld floats apart: the
 * spare ways of an L1d set times the rows after which the set repeats (the
 * header's rule). */
int packed_b_prefetch_rows(const packed_plan *p, long ld)
{
    if (p->bpf >= 0)
        return p->bpf;
    /* Rows a page or more apart, calibrated to L2 only: none ahead into L1
     * (the copy kernel's L2 prefetch, packed_b_far, still runs). */
    if (p->read[GB_CALIB_BPREFETCH] == GB_PREFETCH_L2 && ld * (long)sizeof(float) >= PAGE_BYTES)
        return 0;
    if (p->l1_ways <= 0 || p->l1_bytes % p->l1_ways != 0)
        return PACKED_B_PREFETCH_ROWS;
    return (int)gb_set_rule_rows(p->l1_bytes, p->l1_ways, ld * (long)sizeof(float),
                                 PACKED_B_PREFETCH_ROWS, NULL, NULL);
}

/* A micro-panels per A block of one thread (its rows, at most mc): the
 * passes over each B micro-panel with jr outer. */
static int passes_per_block(const packed_plan *p, int M)
{
    const long rows = ceil_div(ceil_div(M, p->mr), p->tm) * p->mr;
    return (int)ceil_div(rows < p->mc ? rows : p->mc, p->mr);
}

/* The answer to a calibrated question (GB_CALIB_B, GB_CALIB_A: how the
 * operand, its rows a page or more apart, is read; GB_CALIB_BCOPY: whether
 * B fused copies; GB_CALIB_BPREFETCH: L1 or L2 only): its --param (the
 * question's), else this machine's
 * calibration at the plan's thread count (calibrate.h: what reading rows
 * a page apart in place costs is measured, not derived). */
static int read_as(packed_plan *p, int question, const gb_ctx *ctx, const gb_machine *m)
{
    const long forced = gb_param_get(ctx->params, gb_calib_questions[question].param, -1);

    if (p->calib.source[0] == '\0')
        gb_calibration_lookup(m, p->nthreads, &p->calib);
    p->read_param[question] = forced >= 0;
    p->read[question] = forced >= 0 ? (int)forced : p->calib.answer[question].read;
    return p->read[question];
}

/* This machine, detected once per process: gb_machine_detect takes 1-10
 * ms (hwloc's topology), and a calibration plans several hundred times;
 * what the plan reads of it (the caches, and the CPU and ISA that key the
 * calibration) does not change while the process runs. */
static gb_machine detected;
static pthread_once_t detected_once = PTHREAD_ONCE_INIT;

static void detect_once(void)
{
    gb_machine_detect(&detected);
}

const gb_machine *packed_machine(void)
{
    pthread_once(&detected_once, detect_once);
    return &detected;
}

void packed_plan_call(int M, int N, int K, const gb_ctx *ctx, int prepack, packed_plan *p)
{
    pthread_once(&detected_once, detect_once);
    packed_plan_call_on(&detected, NULL, M, N, K, ctx, prepack, p);
}

void packed_plan_call_on(const gb_machine *m, const gb_calibration *cal, int M, int N, int K,
                         const gb_ctx *ctx, int prepack, packed_plan *p)
{
    long kc_cap, mc_cap, nc_cap;
    double best = -1.0;

    memset(p, 0, sizeof *p);
    if (cal != NULL)
        p->calib = *cal;
    p->isa = select_isa(ctx->params);
    if (p->isa == NULL)
        return;
    p->mr = p->isa->mr;
    p->nr = p->isa->nr;
    p->nthreads = packed_threads_for_tiles(ctx->nthreads, M, N, p->mr, p->nr);
    p->threads_tiles = p->nthreads;
    /* ... and their region paid for by what they save (the calibration at
     * that count measured both; its answers stay the plan's at one). */
    if (p->nthreads > 1) {
        double unit_us;
        if (p->calib.source[0] == '\0')
            gb_calibration_lookup(m, p->nthreads, &p->calib);
        packed_threads_cost(&p->calib, p->isa, &unit_us, &p->threads_own_us);
        p->nthreads = packed_threads_for_work(p->nthreads, work_cost(p, M, N, K, 1),
                                              work_cost(p, M, N, K, p->nthreads), unit_us,
                                              p->threads_own_us, &p->threads_saving_us);
    }
    /* B fused: the fewest A micro-panels per B micro-panel from which the
     * first one's pass copies it for the others, (passes - 1) x MR >=
     * FUSED_COPY_FMAS; below, every pass reads it in place. */
    p->fused_min_passes = 1 + (FUSED_COPY_FMAS + p->mr - 1) / p->mr;
    p->l1_bytes = gb_machine_cache_bytes(m, 1);
    p->l2_bytes = gb_machine_cache_bytes(m, 2);
    p->l1_ways = gb_machine_cache_ways(m, 1);
    if (p->l1_bytes <= 0)
        p->l1_bytes = FALLBACK_L1_BYTES;
    if (p->l2_bytes <= 0)
        p->l2_bytes = FALLBACK_L2_BYTES;
    p->bpf = (int)gb_param_get(ctx->params, "bpf", -1);
    p->b_next = (int)gb_param_get(ctx->params, "bnext", 1);
    p->team = gb_param_get(ctx->params, "team", GB_ON) == GB_ON;
    for (int q = 0; q < GB_CALIB_QUESTIONS; q++)
        p->read[q] = -1;

    /* B in place when its rows are closer than a page, else fused: in place
     * for the first A micro-panel's pass, which copies it for the others
     * (packed.c's header says why); --param bpack forces a mode, and
     * prepacked is --prepack's alone. */
    if (prepack)
        p->b_mode = B_PREPACKED;
    else if (gb_param_get(ctx->params, "bpack", -1) >= 0 &&
             gb_param_get(ctx->params, "bpack", -1) != B_PREPACKED)
        p->b_mode = (int)gb_param_get(ctx->params, "bpack", -1);
    else if ((long)N * (long)sizeof(float) < PAGE_BYTES)
        p->b_mode = B_IN_PLACE;
    else
        p->b_mode = read_as(p, GB_CALIB_B, ctx, m) == GB_READ_COPIED ||
                            fused_cuts_kc(M, K, p) ||
                            (M >= PANEL_MANY_ROWS &&
                             read_as(p, GB_CALIB_BMANY, ctx, m) == GB_READ_COPIED)
                        ? B_PANEL_FUSED
                        : B_FUSED;
    /* B fused: its copy as calibrated (or --param bcopy); in place, never. */
    if (p->b_mode == B_FUSED && read_as(p, GB_CALIB_BCOPY, ctx, m) == GB_READ_IN_PLACE)
        p->fused_min_passes = INT_MAX;
    /* B's rows a page or more apart, read in place (fused or panel fused):
     * prefetched into L1 by the set rule's distance as well as into L2, or
     * into L2 only, as calibrated (or --param bprefetch); --param bpf sets
     * the distance itself. */
    if ((p->b_mode == B_FUSED || p->b_mode == B_PANEL_FUSED) && p->bpf < 0 &&
        (long)N * (long)sizeof(float) >= PAGE_BYTES)
        read_as(p, GB_CALIB_BPREFETCH, ctx, m);
    /* B fused is jr outer by construction: the first A micro-panel's pass
     * copies the B micro-panel the later ones read; panel fused is ir outer:
     * the first A micro-panel's pass over the block copies all of it. */
    if (gb_param_get(ctx->params, "loop", -1) >= 0 && p->b_mode != B_FUSED &&
        p->b_mode != B_PANEL_FUSED)
        p->ir_outer = gb_param_get(ctx->params, "loop", -1) == 0;
    else
        p->ir_outer = p->b_mode != B_IN_PLACE && p->b_mode != B_FUSED;
    /* kc: the A micro-panel takes its share of L1 (the header says why
     * whichever loop is outer), or BLIS's analytical model caps it by
     * L1d's ways, as calibrated (--param kcrule); B fused, also an A block
     * of all M rows within mc's share of L2, so that one ic block reads B
     * once, down to a quarter of the L1 cap. */
    kc_cap = kc_l1_cap(p);
    if (gb_param_get(ctx->params, "kc", 0) <= 0 && p->l1_ways > 0 &&
        read_as(p, GB_CALIB_KC, ctx, m) == 1)
        kc_cap = gb_blis_kc_cap(p->l1_bytes, p->l1_ways, p->mr, p->nr, NULL);
    if (p->b_mode == B_FUSED) {
        const long whole_m = kc_whole_m_cap(M, p);
        const long floor = kc_cap / KC_JR_MIN_DIVISOR;
        if (whole_m < kc_cap)
            kc_cap = whole_m > floor ? whole_m : floor;
    }
    if (gb_param_get(ctx->params, "kc", 0) > 0)
        p->kc = (int)(gb_param_get(ctx->params, "kc", 0) < K ? gb_param_get(ctx->params, "kc", 0)
                                                              : K);
    else
        p->kc = balanced_block(K, kc_cap, 1);

    mc_cap = (long)(MC_L2_SHARE * p->l2_bytes) / ((long)p->kc * (long)sizeof(float));
    nc_cap = (long)(NC_L2_SHARE * p->l2_bytes) / ((long)p->kc * (long)sizeof(float));
    /* B's rows under a page apart, read in place (jr outer): where an A
     * block holds fewer than M rows, every A block reads B again from L3,
     * row by row; panel fused reads it once and the later A micro-panels
     * (of every A block) read the packed copy from L2.  Which costs less
     * is the core's (its prefetchers against strided rows): calibrated
     * (--param bnear; forced, at every M). */
    if (p->b_mode == B_IN_PLACE && gb_param_get(ctx->params, "bpack", -1) < 0 &&
        ((gb_param_get(ctx->params, "bnear", -1) >= 0) ||
         (long)M > (mc_cap / p->mr > 1 ? mc_cap / p->mr * p->mr : p->mr)) &&
        read_as(p, GB_CALIB_BNEAR, ctx, m) == GB_READ_COPIED) {
        p->b_mode = B_PANEL_FUSED;
        p->ir_outer = 1;
    }
    /* A in place when dense rows of A (K floats) are closer than a page, as
     * for B; farther apart, as calibrated: in place, or fused (each
     * micro-panel packed on its first use, by the thread that reads it, so
     * the call has no packing pass and no barrier).  --param apack forces
     * one. */
    if (gb_param_get(ctx->params, "apack", -1) >= 0)
        p->a_mode = (int)gb_param_get(ctx->params, "apack", -1);
    else if ((long)K * (long)sizeof(float) < PAGE_BYTES)
        p->a_mode = A_IN_PLACE;
    else
        p->a_mode = read_as(p, GB_CALIB_A, ctx, m) == GB_READ_COPIED ? A_FUSED
                                                                             : A_IN_PLACE;

    /* The grid first (it decides each thread's extent), from the caps. */
    p->mc = (int)(mc_cap / p->mr * p->mr > p->mr ? mc_cap / p->mr * p->mr : p->mr);
    p->nc = (int)(nc_cap / p->nr * p->nr > p->nr ? nc_cap / p->nr * p->nr : p->nr);
    for (int tm = 1; tm <= p->nthreads; tm++) {
        int tn = p->nthreads / tm;
        double cost;
        if (tm * tn != p->nthreads)
            continue;
        cost = grid_cost(p, M, N, K, tm, tn);
        if (best < 0.0 || cost < best) {
            best = cost;
            p->tm = tm;
            p->tn = tn;
        }
    }

    /* Then the blocks, balanced over one thread's rows and columns. */
    {
        long rows = ceil_div(ceil_div(M, p->mr), p->tm) * p->mr;
        long cols = ceil_div(ceil_div(N, p->nr), p->tn) * p->nr;
        long mc = gb_param_get(ctx->params, "mc", 0), nc = gb_param_get(ctx->params, "nc", 0);
        p->mc = mc > 0 ? user_block(mc, M, p->mr) : balanced_block(rows, mc_cap, p->mr);
        /* No B block to keep in L2 when B is read in place or fused: one
         * jc block, so that nothing is done again per block. */
        const int b_block =
            p->b_mode == B_PANEL || p->b_mode == B_PREPACKED || p->b_mode == B_PANEL_FUSED;
        p->nc = nc > 0     ? user_block(nc, N, p->nr)
                : b_block  ? balanced_block(cols, nc_cap, p->nr)
                           : round_up(N, p->nr);
    }

    /* jr outer, every pass reading B in place (in place, or fused with no
     * copy at this M): each A micro-panel's pass reads the micro-panel
     * again, and the next one's prefetch into L2 must still be there when
     * its first pass comes, so kc rows of B must fit the places L2 has for
     * rows N floats apart (the header's rule), down to the same floor as
     * the A block's cut, where the calibration says (--param kcplaces): on
     * the family 25 guest uncut took 0.95-0.99x the time.  mc stays: mc x
     * kc only shrinks. */
    if (gb_param_get(ctx->params, "kc", 0) <= 0 && !p->ir_outer &&
        (p->b_mode == B_IN_PLACE ||
         (p->b_mode == B_FUSED && !fused_copies(p, passes_per_block(p, M))))) {
        const long places = gb_places_rows(p->l2_bytes, (long)N * (long)sizeof(float), PAGE_BYTES,
                                           CACHE_LINE_BYTES);
        const long floor = kc_l1_cap(p) / KC_JR_MIN_DIVISOR;
        if (places < p->kc && read_as(p, GB_CALIB_KCPLACES, ctx, m) == GB_ON) {
            p->kc = balanced_block(K, places > floor ? places : floor, 1);
            p->kc_places = 1;
        }
    }
    /* B fused where the first pass would copy each B micro-panel for the
     * later ones: those reads from L3 all fall in the first pass, at a
     * twelfth or less of its time, and a core reads rows a page apart at
     * about half the rate of a stream (packed-zen5.md); copied ahead, every
     * pass over a micro-panel copies an even share of the next one, a row
     * every few k, so the reads spread over all of them.  A property, not
     * a threshold, where the isa's kernel has it (--param bahead=0: the
     * first pass copies). */
    p->copy_ahead = p->b_mode == B_FUSED && fused_copies(p, passes_per_block(p, M)) &&
                    p->isa->kernel_copy_ahead != NULL && gb_param_get(ctx->params, "bahead", 1);
    /* B fused whose every pass reads B in place (no copy at this M, its
     * rows a page or more apart) while each also prefetches its share of
     * the next micro-panel into L2: whether the kernel prefetches each row
     * into L2 16 rows ahead as well, as calibrated (or --param bfar).
     * Where a pass copies B, or nothing else brings it into L2, it does. */
    p->b_far = !(p->b_mode == B_FUSED && p->b_next &&
                 (long)N * (long)sizeof(float) >= PAGE_BYTES &&
                 !fused_copies(p, passes_per_block(p, M)) &&
                 read_as(p, GB_CALIB_BFAR, ctx, m) == GB_OFF);
    /* B in place, its rows under a page apart, jr outer, each micro-panel
     * read by as few passes as the calibration's larger shape has or
     * fewer: each pass prefetches its share of the next micro-panel into
     * L2 where the calibration found that it pays (or --param bnearnext):
     * the fewer the passes, the denser those requests, beside the
     * kernel's own 16 rows ahead.  --param bnext decides for itself. */
    if (p->b_next && gb_param_get(ctx->params, "bnext", -1) < 0 && p->b_mode == B_IN_PLACE &&
        !p->ir_outer && (long)N * (long)sizeof(float) < PAGE_BYTES &&
        passes_per_block(p, M) <= gb_calibration_passes_asked(GB_CALIB_BNEARNEXT, p->mr) &&
        read_as(p, GB_CALIB_BNEARNEXT, ctx, m) == GB_OFF)
        p->b_next = 0;
}

/* ---- description --------------------------------------------------------------- */

/* The effective parameters of plan p (the plan that runs, packed.c's
 * resolve picks it), for the result file. */
void packed_plan_effective(const packed_plan *p, int M, int N, gb_params *effective)
{
    memset(effective, 0, sizeof *effective);
    if (p->isa == NULL)
        return;
    gb_param_set(effective, "isa", choice_index(p->isa->name));
    gb_param_set(effective, "mr", p->mr);
    gb_param_set(effective, "nr", p->nr);
    gb_param_set(effective, "mc", p->mc);
    gb_param_set(effective, "kc", p->kc);
    gb_param_set(effective, "nc", p->nc);
    gb_param_set(effective, "apack", p->a_mode);
    gb_param_set(effective, "loop", p->ir_outer ? 0 : 1);
    gb_param_set(effective, "bpack", p->b_mode);
    /* Dense B (rows N floats apart), in the modes that read it in place. */
    if (p->b_mode == B_IN_PLACE || p->b_mode == B_FUSED || p->b_mode == B_PANEL_FUSED) {
        gb_param_set(effective, "bpf", packed_b_prefetch_rows(p, N));
        gb_param_set(effective, "bnext", p->b_next);
    }
    /* Rows a page or more apart: each calibrated answer the plan asked for,
     * under its --param's name; bcopy, below, says what this shape does. */
    for (int q = 0; q < GB_CALIB_QUESTIONS; q++)
        if (q != GB_CALIB_BCOPY && p->read[q] >= 0)
            gb_param_set(effective, gb_calib_questions[q].param, p->read[q]);
    /* B fused: copied when, at this shape, the first pass copies B for the
     * others (bcopy copied and enough A micro-panels), else in place. */
    if (p->b_mode == B_FUSED)
        gb_param_set(effective, "bcopy", fused_copies(p, passes_per_block(p, M)));
    /* ... and then whether ahead (by every pass) or by the first. */
    if (p->b_mode == B_FUSED && fused_copies(p, passes_per_block(p, M)) &&
        p->isa->kernel_copy_ahead != NULL)
        gb_param_set(effective, "bahead", p->copy_ahead);
    if (p->nthreads > 1)
        gb_param_set(effective, "team", p->team ? GB_ON : GB_OFF);
    gb_param_set(effective, "threads_m", p->tm);
    gb_param_set(effective, "threads_n", p->tn);
}

/* A calibrated choice of plan p and its reason, when p asked it. */
static void explain_read(FILE *out, const packed_plan *p, int question)
{
    char why[512];

    if (p->read[question] < 0)
        return;
    gb_calibration_describe(&p->calib, question, why, sizeof why);
    if (p->read_param[question])
        fprintf(out, "  %-13s %s (--param; this machine's calibration: %s)\n",
                gb_calib_questions[question].label,
                gb_calib_questions[question].answers[p->read[question]], why);
    else
        fprintf(out, "  %-13s %s\n", gb_calib_questions[question].label, why);
}

void packed_explain_threads(FILE *out, int asked, int used, int M, int N, int mr, int nr)
{
    const long tiles = ceil_div(M, mr) * ceil_div(N, nr);

    fprintf(out, "%d thread%s", asked, asked > 1 ? "s" : "");
    if (used < asked && tiles < asked)
        fprintf(out, " (%d used: %ld tile%s of %dx%d)", used, tiles, tiles > 1 ? "s" : "", mr,
                nr);
    else if (used < asked)
        fprintf(out, " (%d used: too little work for more, below)", used);
    fputs(":\n", out);
}

/* The threads rule's line, where the tiles allowed more than one thread. */
static void packed_explain_work(FILE *out, const packed_plan *p)
{
    const int s = GB_CALIB_SMALL;

    if (!(p->calib.small_t_us > 0.0))
        fprintf(out, "  threads       %d, all the tiles allow: what a threaded call costs not "
                     "calibrated (%s)\n",
                p->nthreads, p->calib.source);
    else
        fprintf(out, "  threads       %d: %d would save the busiest thread %.2f us, %s the "
                     "%.2f us a threaded call costs beyond its share of the work (calibrated: "
                     "%dx%dx%d took %.2f us at 1 thread, %.2f at %d)\n",
                p->nthreads, p->threads_tiles, p->threads_saving_us,
                p->nthreads > 1 ? "over" : "no more than", p->threads_own_us, s, s, s,
                p->calib.small_us, p->calib.small_t_us, p->threads_tiles);
}

void packed_explain(FILE *out, int M, int N, int K, const gb_ctx *ctx)
{
    static const char *const b_how[] = {
        "packed per call into NR-wide panels; ir outside jr (A micro-panel in L1)",
        "read in place (rows under a page apart), prefetched; jr outside ir",
        "pre-packed by prepare(); ir outside jr (A micro-panel in L1)",
        ("read in place by the first A micro-panel's pass, which copies each B micro-panel "
         "for the others; jr outside ir"),
        ("read in place by the first A micro-panel's pass over the block, which copies it "
         "into a packed block for the others; ir outside jr (A micro-panel in L1)"),
    };
    const int user_kc = gb_param_get(ctx->params, "kc", 0) > 0;
    long forced = gb_param_get(ctx->params, "isa", -1);
    packed_plan p;

    packed_plan_call(M, N, K, ctx, 0, &p);
    fprintf(out, "packed %dx%dx%d (MxKxN), ", M, K, N);
    packed_explain_threads(out, ctx->nthreads, p.isa != NULL ? p.nthreads : ctx->nthreads, M, N,
                           p.mr, p.nr);
    if (p.isa == NULL) {
        fprintf(out, "  isa %s: not in this build\n", isa_choices[forced]);
        return;
    }
    fprintf(out, "  micro-kernel  %s %dx%d (%s; %d registers of %d floats)%s\n", p.isa->name,
            p.mr, p.nr, forced >= 0 ? "forced" : "widest this CPU runs", p.isa->vector_regs,
            p.isa->vector_floats, p.isa->cpu_runs() ? "" : "  -- this CPU cannot run it");
    if (p.threads_tiles > 1)
        packed_explain_work(out, &p);
    fprintf(out, "  B             %s%s\n", b_how[p.b_mode],
            gb_param_get(ctx->params, "bpack", -1) >= 0 ||
                    gb_param_get(ctx->params, "loop", -1) >= 0
                ? " (--param)"
                : "");
    explain_read(out, &p, GB_CALIB_B);
    explain_read(out, &p, GB_CALIB_BNEAR);
    explain_read(out, &p, GB_CALIB_BMANY);
    if (p.b_mode == B_FUSED) {
        const int passes = passes_per_block(&p, M);
        if (p.read[GB_CALIB_BCOPY] == GB_READ_COPIED)
            fprintf(out, "  B copy        %s (%d A micro-panel%s per B micro-panel; copied from "
                         "%d up, when the later passes do >= %d FMAs per copied element)\n",
                    p.copy_ahead ? "ahead: every pass over a micro-panel copies a share of "
                                   "the next one, a row every few k (the first packed before)"
                    : fused_copies(&p, passes) ? "by the first pass"
                                               : "none: every pass reads B in place",
                    passes, passes == 1 ? "" : "s", p.fused_min_passes, FUSED_COPY_FMAS);
        else
            fprintf(out, "  B copy        none: every pass reads B in place (%d A micro-panel%s "
                         "per B micro-panel)\n",
                    passes, passes == 1 ? "" : "s");
        explain_read(out, &p, GB_CALIB_BCOPY);
    }
    if (p.b_mode == B_IN_PLACE || p.b_mode == B_FUSED || p.b_mode == B_PANEL_FUSED) {
        fprintf(out, "  B prefetch    %d rows ahead where read in place %s\n",
                packed_b_prefetch_rows(&p, N),
                p.bpf >= 0 ? "(--param)"
                : p.read[GB_CALIB_BPREFETCH] == GB_PREFETCH_L2 && !p.b_far
                    ? "into L1 (nor into L2 ahead: B far, below)"
                : p.read[GB_CALIB_BPREFETCH] == GB_PREFETCH_L2
                    ? "into L1 (into L2 only, 16 rows ahead: calibrated)"
                    : "(the L1d set's spare ways for rows that share it, at most 16)");
        explain_read(out, &p, GB_CALIB_BPREFETCH);
        if (p.read[GB_CALIB_BFAR] >= 0) {
            fprintf(out, "  B far         %s\n",
                    p.b_far ? "each row also prefetched into L2 16 rows ahead"
                            : "no row prefetched into L2 ahead of the pass reading it: the "
                              "next micro-panel's prefetch (below) brings them");
            explain_read(out, &p, GB_CALIB_BFAR);
        }
        fprintf(out, "  B next        %s%s\n",
                p.copy_ahead ? "copied ahead (B copy, above), its rows prefetched into L2 16 "
                               "rows ahead of the copy"
                : !p.b_next ? "not prefetched"
                : p.b_mode == B_PANEL_FUSED
                    ? "the next micro-panel prefetched into L2 while the first pass reads "
                      "the one before, all of it; the next B block by the last A block's "
                      "passes"
                    : "the next micro-panel prefetched into L2 while the one before is "
                      "read, a share of its rows per A micro-panel's pass",
                gb_param_get(ctx->params, "bnext", -1) >= 0 ? " (--param)" : "");
        explain_read(out, &p, GB_CALIB_BNEARNEXT);
    }
    fprintf(out, "  A             %s%s\n",
            p.a_mode == A_IN_PLACE ? "read in place (rows under a page apart, or as "
                                     "calibrated; a fringe micro-panel packed)"
            : p.a_mode == A_WHOLE  ? "packed whole once per call, a share per thread, then one barrier"
            : p.a_mode == A_FUSED  ? "packed micro-panel by micro-panel on its first use (hot in "
                                     "L1), each by the first thread to need it; no barrier"
                                   : "packed block by block",
            gb_param_get(ctx->params, "apack", -1) >= 0 ? " (--param)" : "");
    explain_read(out, &p, GB_CALIB_A);
    {
        const int ways = p.read[GB_CALIB_KC] == 1;
        fprintf(out, "  kc %-5d %s%s%s%s\n", p.kc,
                user_kc ? "(--param" : ways ? "(L1d's ways, BLIS's model" : "(A micro-panel MR x kc "
                                                                           "in half of L1d",
                !user_kc && p.b_mode == B_FUSED ? ", and M x kc in half of L2 down to a quarter "
                                                  "of that"
                                                : "",
                p.kc_places ? ", and kc rows of B in L2's places for rows N floats apart" : "",
                user_kc ? ")" : ", balanced over K)");
        explain_read(out, &p, GB_CALIB_KC);
        explain_read(out, &p, GB_CALIB_KCPLACES);
    }
    fprintf(out, "  mc %-5d %s\n", p.mc,
            gb_param_get(ctx->params, "mc", 0) > 0 ? "(--param, rounded up to MR)"
                                                   : "(A block mc x kc in half of L2, balanced)");
    fprintf(out, "  nc %-5d %s\n", p.nc,
            gb_param_get(ctx->params, "nc", 0) > 0 ? "(--param, rounded up to NR)"
            : p.b_mode == B_PANEL || p.b_mode == B_PANEL_FUSED
                ? "(B block kc x nc in half of L2, balanced)"
                                  : "(B not packed per call: one block)");
    fprintf(out, "  caches L1d %ld KiB (%d-way), L2 %ld KiB\n", p.l1_bytes / 1024, p.l1_ways,
            p.l2_bytes / 1024);
    fprintf(out, "  threads %d x %d (rows x columns of C); loops per thread: jc %ld, pc %ld, "
                 "ic %ld\n",
            p.tm, p.tn, ceil_div(ceil_div(ceil_div(N, p.nr), p.tn) * p.nr, p.nc),
            ceil_div(K, p.kc), ceil_div(ceil_div(ceil_div(M, p.mr), p.tm) * p.mr, p.mc));
    if (p.nthreads > 1)
        fprintf(out, "  team          %s\n",
                p.team ? "packed's own threads run the call, placed as OpenMP's (an OpenMP "
                         "region where they cannot: packed_team.c)"
                       : "an OpenMP parallel region per call (--param team=off)");
    packed_plan_call(M, N, K, ctx, 1, &p);
    fprintf(out, "  --prepack: B %s; kc %d, nc %d, threads %d x %d\n", b_how[p.b_mode], p.kc,
            p.nc, p.tm, p.tn);
}

/* A forced isa this build lacks, or this CPU cannot run, is an input error:
 * never silently replaced by another path, or the result would be labelled
 * with a micro-kernel that did not run. */
int packed_usable(const gb_params *params, char *why, size_t whylen)
{
    const packed_isa *isa = select_isa(params);
    long forced = gb_param_get(params, "isa", -1);
    char runs[64] = "";

    /* Pre-packed B exists only when prepare() packs it, which --prepack
     * asks for; as a --param it would be accepted and mean nothing. */
    if (gb_param_get(params, "bpack", -1) == B_PREPACKED) {
        snprintf(why, whylen, "bpack=prepacked: B is pre-packed by --prepack alone "
                              "(bpack takes panel, in_place, fused or panel_fused)");
        return -1;
    }
    if (isa != NULL && isa->cpu_runs())
        return 0;
    for (size_t i = 0; i < ISA_COUNT; i++)
        if (isa_table[i]->cpu_runs()) {
            size_t used = strlen(runs);
            snprintf(runs + used, sizeof runs - used, "%s%s", used ? ", " : "",
                     isa_table[i]->name);
        }
    snprintf(why, whylen, "isa=%s: %s (it runs: %s)", isa_choices[forced],
             isa == NULL ? "not in this build" : "this CPU cannot run it", runs);
    return -1;
}

const gb_param_spec packed_params[] = {
    { "mc", 1, 1000000, NULL, "rows of A per packed block (L2); rounded up to MR" },
    { "kc", 1, 1000000, NULL, "k per block (L1)" },
    { "nc", 1, 1000000, NULL, "columns of B per packed panel; rounded up to NR" },
    { "isa", 0, 0, isa_choices, "micro-kernel (default: the widest this CPU runs)" },
    { "loop", 0, 0, loop_choices, "inner loop order, outer first (default: jr_ir when B is "
                                  "read in place or fused; fused is always jr_ir)" },
    { "bpack", 0, 0, bpack_choices, "B packed per call into panels, read in place, fused "
                                    "(read in place; copied by the first pass when 5 or more A "
                                    "micro-panels read it, on AVX-512; jr outer) "
                                    "or panel_fused (likewise into a packed block, ir outer); "
                                    "default: in place when N*4 < 4096, else as bread "
                                    "says; prepacked is --prepack's" },
    { "bpf", 0, 64, NULL, "rows ahead the kernel prefetches B where it reads B in place, 0: "
                          "none ahead (default: from L1d's ways and B's row stride, at most "
                          "16)" },
    { "bnext", 0, 1, NULL, "B read in place: 1, the next B micro-panel is prefetched into "
                           "L2 while the current one is read (jr outer: a share of its "
                           "rows per A micro-panel's pass; panel fused: all of it in the "
                           "first pass); 0, not (default 1, but as bnearnext says where "
                           "it asks)" },
    { "bahead", 0, 1, NULL, "B fused where a pass copies B (bcopy copied, 5 or more A "
                            "micro-panels): 1, the passes over each B micro-panel copy the "
                            "next one between them, a row every few k; 0, the first pass "
                            "copies its own (default 1 where the kernel can: AVX-512)" },
    { "bread", 0, 0, gb_read_names, "B with rows a page or more apart (N*4 >= 4096), per "
                                    "call: in_place (fused, or panel_fused where fused would "
                                    "cut kc) or copied (panel_fused at every M: ir outer, B "
                                    "copied by the first A micro-panel's pass); default: this "
                                    "machine's calibration (gemmbench info)" },
    { "aread", 0, 0, gb_read_names, "A with rows a page or more apart (K*4 >= 4096): in_place "
                                    "or copied (apack=fused); default: this machine's "
                                    "calibration (gemmbench info)" },
    { "bfar", 0, 0, gb_on_off_names, "B with rows a page or more apart, read in place by "
                                     "every pass (B fused, no copy at this M) while the next "
                                     "micro-panel is prefetched (bnext=1): on, each row also "
                                     "prefetched into L2 16 rows ahead, or off; default: this "
                                     "machine's calibration (gemmbench info)" },
    { "kcplaces", 0, 0, gb_on_off_names, "jr outer, every pass reading B in place (B in "
                                         "place, or fused with no copy at this M): on, kc "
                                         "cut to the rows L2 has places for at B's row "
                                         "stride, or off; default: this machine's "
                                         "calibration (gemmbench info); kc sets kc itself" },
    { "bprefetch", 0, 0, gb_prefetch_names, "B with rows a page or more apart, read in "
                                            "place: prefetched into l1 (the set rule's "
                                            "distance) and L2, or into l2 only (none ahead "
                                            "into L1); default: this machine's calibration "
                                            "(gemmbench info); bpf sets the distance itself" },
    { "bcopy", 0, 0, gb_read_names, "B fused: copied (the first pass copies each B "
                                    "micro-panel for the others when 5 or more A "
                                    "micro-panels read it, on AVX-512) or in_place (every "
                                    "pass reads B where it is); default: this machine's "
                                    "calibration (gemmbench info)" },
    { "bmany", 0, 0, gb_read_names, "B with rows a page or more apart, read in place "
                                    "(bread in_place) where fused would not cut kc, M >= 192: "
                                    "in_place (fused, jr outer) or copied (panel_fused); "
                                    "default: this machine's calibration (gemmbench info)" },
    { "bnear", 0, 0, gb_read_names, "B with rows under a page apart (N*4 < 4096): in_place "
                                    "(jr outer) or copied (panel_fused: ir outer, B copied "
                                    "into a packed block by the first A micro-panel's pass), "
                                    "at every M; default: in place where one A block (mc) "
                                    "holds all M rows, else this machine's calibration "
                                    "(gemmbench info)" },
    { "bnearnext", 0, 0, gb_on_off_names, "B with rows under a page apart (N*4 < 4096), read "
                                          "in place (jr outer) by 2 A micro-panels or fewer "
                                          "(M <= 16 a thread on AVX-512): on, each pass "
                                          "prefetches its share of the next B micro-panel "
                                          "into L2, or off; default: this machine's "
                                          "calibration (gemmbench info); bnext sets it "
                                          "itself" },
    { "team", 0, 0, gb_on_off_names, "more than one thread: on, packed's own threads run "
                                      "the call (a fork and join of two cache lines), or "
                                      "off, an OpenMP parallel region per call (default on)" },
    { "kcrule", 0, 0, gb_kc_rule_names, "kc's cap: l1_half (the A micro-panel in half of "
                                        "L1d) or l1_ways (BLIS's analytical model, from "
                                        "L1d's ways); default: this machine's calibration "
                                        "(gemmbench info); kc sets kc itself" },
    { "apack", 0, 0, apack_choices, "A packed whole per call or per block, read in place, or "
                                    "fused: each micro-panel packed on first use (default: in "
                                    "place when K*4 < 4096, else as aread says)" },
    { 0 },
};
