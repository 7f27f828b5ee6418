/*
 * packed family - packed: the fastest schedule we can write, the ceiling of
 * the hand-written ones, measured against the reference libraries in the
 * same run.
 *
 * In the study's terms: tile(i, j) at two levels (cache blocks, register
 * blocks), split(k), reorder to BLIS's order, cache_read of A and B into
 * packed, zero-padded panels, vectorize(j) inside a register-blocked
 * micro-kernel (cache_write: the MR x NR tile of C stays in registers for a
 * whole k block), parallel over 2-D tiles of C.  The C loop nest is BLIS's
 * five loops around a micro-kernel (Goto & van de Geijn 2008; Van Zee & van
 * de Geijn 2015), per thread:
 *
 *   jc: the thread's columns of C, nc_cur at a time
 *     pc: k, kc_cur at a time (never split across threads)
 *       B block: read in place, fused or packed (the regimes below), or
 *                already packed (--prepack)
 *       ic: the thread's rows of C, mc_cur at a time
 *         A block: read in place, or packed on first use (below)
 *         ir, jr: MR rows x NR columns at a time, in the order below
 *           micro-kernel: C[ir:+MR][jr:+NR] (+)= A micro-panel . B micro-panel
 *
 * Row-major C turns BLIS's roles around: the broadcast operand is A (MR = 8
 * wide) and the vector operand B (NR = 48).
 *
 * Regimes for B, the big operand at BERT's shapes (K x N against M x K with
 * M <= 384).  No regime packs B in a pass of its own: at small M such a pass
 * (read B, write the copy, read the copy) costs as much as the FMAs, and at
 * every M it is a pass with nothing to hide behind.  What decides each
 * choice:
 *   - B's row stride (N floats in a dense B) against the page size, the
 *     unit a VIPT L1 is indexed in (an L1 way is at most a page): rows
 *     closer than a page are read in place on any machine (a documented
 *     property: their lines fall into different L1 sets);
 *   - rows a page or more apart: what reading them in place costs depends
 *     on the core's prefetchers and TLB, which no machine report gives, so
 *     it is calibrated on the machine (src/measure/calibrate.c, cached per
 *     machine and thread count, shown by --explain and `gemmbench info`,
 *     --param bread overrides): in place (fused, or panel fused where
 *     fused would cut kc, or from M = 192 where the calibration's bmany
 *     says panel fused is the faster) unless B read in place
 *     measured more than 10 % slower than B copied, and then copied (panel
 *     fused at every M, the pre-packed layout and loop order);
 *   - A's rows a page or more apart, read in place or packed on first
 *     use: calibrated likewise (--param aread);
 *   - B fused's copy (below): whether the first pass copies B for the
 *     later ones at all, calibrated likewise (--param bcopy; copied when
 *     in place measured slower at 8 and 16 A micro-panels: on one AMD EPYC
 *     core it paid from 5, on a Zen 4 core in place was 2-5 % faster at
 *     6-16), and if so from how many A micro-panels, FUSED_COPY_FMAS;
 *   - the prefetch distance, the L1d's ways and B's stride (packed_plan.c),
 *     with a second prefetch into L2 16 rows ahead where B's rows are a
 *     page apart (no hardware prefetcher crosses a page); there, whether
 *     the L1 prefetch is issued at all is calibrated (--param bprefetch: on
 *     a Zen 4 core, L2 only was 2.6 % faster on mlp_expand, 0.92-1.01 per
 *     M), and so is, where every pass reads B in place (no copy) while
 *     the next micro-panel is prefetched (below), whether the L2 one is
 *     (--param bfar: on the AMD EPYC family 26, without it mlp_expand
 *     M = 16 and 32 took 0.91-0.94x the time; where a first pass copies B
 *     it stays: without it M = 48-128 took 1.02-1.05x); which inner loop
 *     is outer, the B regime (below);
 *   - wherever B is read in place, the next B micro-panel is prefetched
 *     into L2 while the current one is read (--param bnext=0: not; nor
 *     where B's rows are under a page apart and two A micro-panels or
 *     fewer read each micro-panel, if the calibration's bnearnext says so:
 *     there the requests come a row every two k), so
 *     that the pass that reads it first finds it in L2, not in L3: jr
 *     outer, each A micro-panel's pass over the current micro-panel takes
 *     an even share of the next one's rows (after the block's last, the
 *     next k or column block's first); panel fused, the first pass
 *     prefetches each next micro-panel whole, and where more than one A
 *     block reads a B block, the passes of the last prefetch the next B
 *     block, its micro-panels dealt out in order, so that its first pass
 *     does not wait on L3 for all of them at once (that pass took 2.2-4.8x
 *     a tile; on the AMD EPYC family 26, gemmbench ab, 12 rounds, 1 | 2
 *     threads: mlp_expand M = 256 0.979x | 0.977x, 384 0.988x | 0.983x,
 *     mlp_reduce 0.984-0.998x, qkv 0.992-1.005x).  Not prepacked B, which
 *     the hardware streams (there: 0.99-1.01x, and with one A block, at
 *     M = 16, 1.03-1.05x).  A property, not a
 *     threshold: kc puts MR rows of A in half the L1d, so a micro-panel
 *     of B (kc x NR) is NR/MR times that, three L1ds with AVX-512's tile
 *     (96 KiB on 32 KiB), a tenth of the L2 beside it.  (oneDNN's
 *     jit_avx512_common_gemm_f32 walks the next panel likewise, a row
 *     every eight k.)
 * The regimes:
 *   - in place (rows under a page apart, e.g. N = 768, unless the
 *     calibration's bnear says panel fused where an A block holds fewer
 *     than M rows: below): jr outside ir.  The
 *     kernel reads a B micro-panel where it is (rows ldb apart, software
 *     prefetched: not every hardware prefetcher follows a row stride; the
 *     distance is packed_plan.c's), then again for every A micro-panel of
 *     the block, from the cache it was brought into.  Copy-free at every M.
 *   - fused (rows a page or more apart, e.g. N = 3072): jr outside ir.  Rows
 *     a page apart fall into the same L1 sets, so a micro-panel read in
 *     place does not stay in L1 for the next A micro-panel.  The first A
 *     micro-panel's pass reads it in place (prefetched as above) and its
 *     kernel stores every B row it loaded into a contiguous kc x NR copy;
 *     the later passes read the copy.  B is read from memory once and the
 *     copy costs stores only, behind the FMAs.  It is made only where the
 *     calibration says copied (above), and then only when the
 *     passes after the first do at least FUSED_COPY_FMAS (packed_plan.c)
 *     FMAs per copied element (5 A micro-panels per thread on AVX-512,
 *     M >= 40): below that, reading B in place again costs less than the
 *     copy's stores (measured: 2 A micro-panels 10-16 % faster copy-free),
 *     so small M is copy-free.  (oneDNN's sgemm reads B in place and copies it during
 *     the first pass over it likewise, and only when M > 24:
 *     src/cpu/x64/gemm/gemm_driver.cpp, nocopy_checker_avx512.)
 *     Copied ahead (the plan's copy_ahead, where the isa's kernel has
 *     kernel_copy_ahead: AVX-512; --param bahead=0: as above): the first
 *     pass's copy puts all of B's reads from L3 into a twelfth or less of
 *     the passes, and a core reads rows a page apart at about half a
 *     stream's rate, so that pass ran at about 60 % of the peak on the AMD
 *     EPYC family 26.  Instead every pass over micro-panel o reads it
 *     packed from one of two strips and copies an even share of o + 1's
 *     rows from B into the other, a row every few k (the kernel spreads
 *     them), each prefetched into L2 16 copied rows ahead; the block's
 *     first micro-panel is packed before its passes.  Measured there
 *     (mlp_expand, gemmbench ab, 12 rounds, 1 | 2 threads): M = 40 0.898x
 *     | 0.934x, 64 0.944x | 0.951x, 128 0.971x | 0.975x, M = 192-384 the
 *     same (panel fused there, below).
 *   - panel fused (rows under a page apart, where an A block holds fewer
 *     than M rows and the machine's calibration (bnear) found it faster:
 *     in place, B is read again from L3, row by row, for every A block,
 *     panel fused reads it once; on the AMD EPYC family 26 panel fused took
 *     0.93-0.98x in place's time at M = 256 and 384 (mlp_reduce, qkv), on a
 *     Zen 4 guest, tried as a rule, 0.99-1.05x.  Or rows a page or more
 *     apart, and all M rows of an A block
 *     at L1's kc would not fit mc's share of L2, so that fused would have
 *     to cut kc; or, at every M, where the calibration found B read in
 *     place slower): ir outer, B in blocks (kc x nc in L2) as when packed, but
 *     no packing pass: the first A micro-panel's pass over a block reads B
 *     in place (prefetched) and its kernel stores each B micro-panel into
 *     the packed block, which the other A micro-panels read from L2.  The
 *     packing is hidden behind that pass's FMAs; K is done in L1-sized
 *     blocks (one pass over C at K = 768) and A comes from L1.
 *   - --prepack: B packed once in prepare(), over all of K, into NR-wide
 *     micro-panels (panel p, row k at (p*K + k)*NR), outside the timed
 *     region; ir outside jr: the A micro-panel stays in L1 while the B
 *     micro-panels stream from L2.
 *   - packed per call (--param bpack=panel only, an ablation): the B block
 *     packed into the same layout before the ic loop, a pass of its own;
 *     ir outside jr.
 * Regimes for A: read in place, whichever loop is outer (jr outer: the A
 * micro-panels stream past a B micro-panel; ir outer: one stays in L1 for
 * the B micro-panels of a block), when A's rows are under a page apart
 * (K = 768), or farther apart (K = 3072) where the machine's calibration
 * found in place no more than 10 % slower than packed (--param aread
 * overrides): the kernel broadcasts from MR rows lda apart, and a fringe
 * micro-panel (rows past M) is packed, zero-padded, first.  (The rule this
 * replaced read the L1d's ways, MR rows and a B row in one set needing 12:
 * on a Zen 4 core's 32 KiB 8-way L1d it packed A, yet in place measured
 * 0.85x the time: the conflict misses it predicted cost less than the
 * packing, which set counts cannot tell.)  In place, A costs no
 * packing (M x K copied elements, 4-6 % of mlp_reduce's call; with ir
 * outer, where a packed micro-panel was thought to hold L1 better, in
 * place measured 1-11 % faster).  Otherwise fused:
 * each A micro-panel (per k block) is packed into one buffer shared by the
 * threads on its first use (the first jr pass, or the first B micro-panel
 * with ir outer), by the first thread that needs it, hot in L1 for the
 * kernel that follows; the later passes and the other threads read it
 * there.  A flag per micro-panel says whether it is packed; each thread
 * starts its pass at its own share of the micro-panels, so the threads pack
 * different ones and wait only when both need one at the same moment.  A is
 * packed once per call, with no packing pass and no barrier.  --param
 * apack=whole (all of A packed up front, a share per thread, one barrier)
 * and apack=block remain as ablations.
 *
 * Register block (MR x NR) per instruction set, the rule: with R vector
 * registers of VF floats, a tile of MR rows x NV vectors (NR = NV * VF)
 * needs MR*NV accumulators + NV B vectors + 1 broadcast register <= R; it
 * must hold at least FMA latency x FMA units = 4 x 2 = 8 independent
 * accumulators; among those, the most FMAs per loaded value (MR*NV /
 * (MR + NV)) with MR a divisor of 8, since BERT's M values are multiples of
 * 16 and any other MR pays for padded rows.  AVX-512 (32 zmm): 8 x 48 (24
 * accumulators).  AVX2+FMA (16 ymm): 4 x 24 (12).  Portable (16 registers of
 * 4 floats, the x86-64 baseline and NEON width): 4 x 8.
 *
 * The plan: the regimes above, the register block's instruction set, the
 * cache blocks, the thread grid and the prefetch distance are chosen by
 * packed_plan.c, whose header gives the rules and which --explain prints,
 * and handed to the loops here as one packed_plan (packed_plan.h), made
 * before the call and only read in it.
 *
 * Threads: packed's own (packed_team.c: a fork and join of two cache
 * lines, where an OpenMP region's cost a 2-thread call 3.2-3.7 us on the
 * AMD EPYC guests, whose two vCPUs are far apart; --param team=off, or
 * where the team stands aside, one OpenMP region per call), never wider
 * than C has MR x NR tiles (a call of one tile runs on the caller alone:
 * 8x64x48 at 2 threads took 0.44x the time it did with a thread idle, AMD
 * EPYC family 25).  With the team at 2 threads, family 26, one run of 10
 * rounds, an OpenMP region per call took 1.08x the time at qkv M = 16,
 * 1.01-1.10x at mlp M = 16, 1.01-1.04x at M = 64, 0.98-1.02x from M = 256.
 * The (ic, jr) tiles of C are split
 * 2-D over the plan's tm x tn grid; each thread runs the loops on its own
 * region of C with its own buffers, so no thread waits for another (--param
 * apack=whole alone adds a barrier after packing A).  The columns' split
 * follows the threads' speed on the previous call of the same measurement
 * (rebalance(): the cores of a shared machine differ), starting from equal
 * shares.
 *
 * Edges: panels are zero-padded to MR and NR (in place, a partial last B
 * micro-panel is packed), so the micro-kernel always computes a full tile;
 * a fringe tile goes to a scratch tile and only its valid part is copied to
 * C.  One kernel, no edge variants.
 *
 * What each of these choices bought, and what was tried and dropped, with
 * the measurements: results/notes/packed-tried.md.
 *
 * One file, one concern: the execution of a plan (the loops, the buffers,
 * the threads).  It is long because this header states every regime and
 * what decides it, beside the loops that carry them out; the planning is
 * packed_plan.c, the kernels packed_kernels_*.c, the packing packed_pack.h.
 */
/* posix_memalign */
#define _POSIX_C_SOURCE 200809L
#include "gemmbench.h"
#include "packed_plan.h"
#include "packed_lowp.h"
#include "packed_team.h"

#include <omp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Thread speeds further apart than this are preemption, not core speed. */
#define MAX_SPEED_RATIO 1.5
/* The calling thread's number and count in the call's threads (run_thread
 * sets them: the team's or OpenMP's). */
static _Thread_local int call_thread, call_threads = 1;

/* Largest tile any kernel uses: the scratch tile for fringes. */
#define MAX_TILE (16 * 64)

/* ---- macro-kernel: the jr and ir loops ------------------------------------------ */

/* The B operand of one (jc, pc) block, as the micro-kernel reads it:
 * micro-panel jr starts at base + (jr / NR) * panel_stride and its k rows
 * are ld floats apart.  Packed (per call or prepacked): panel_stride kc*NR
 * or K*NR, ld NR.  In place: base is B itself, panel_stride NR (the next NR
 * columns), ld B's row stride, and a partial last micro-panel is packed
 * zero-padded into fringe, so the kernel never reads past B's columns.
 * Fused: in place, and strip (kc x NR, contiguous) receives each full
 * micro-panel during the first A micro-panel's pass, for the later ones.
 * Panel fused: in place, panel_stride NR, for the first A micro-panel's
 * pass (first set), whose kernel stores each full micro-panel into panel
 * (the packed layout, kc*NR apart), which the later passes read; the
 * partial last micro-panel is packed into panel beforehand (fringe). */
typedef struct b_view {
    const float *base;
    size_t panel_stride;
    long ld;
    const float *fringe;
    long fringe_ld;          /* its rows' stride: NR, or the narrow width */
    float *strip;
    float *strip2;           /* copy ahead: the second strip (the next micro-panel's) */
    float *panel;
    int first;
    int in_place;            /* base is B itself (not a packed copy) */
    const float *after;      /* the micro-panel read after the block's last one
                              * (the next B block's first, rows after_ld
                              * apart), or NULL */
    long after_ld;
    int after_rows;          /* its k rows */
    int after_panels;        /* panel fused: the next block's whole micro-panels
                              * (B in place: NR floats apart) */
} b_view;

/* A fused: all of A packed into the shared whole layout (panel p, row k at
 * (p*K + k)*MR), each (micro-panel, k block) by the first thread to need
 * it; ready[panel * nblocks + block] is 0 (not started), 1 (being packed)
 * or 2 (packed).  A thread that finds one being packed waits for it: the
 * only wait in a call, for one micro-panel, not for all of A. */
typedef struct a_fuse {
    atomic_int *ready;
    int nblocks;
    const float *A;
    long lda;
    float *dst;
    int M, K;
} a_fuse;

/* Wait-free unless another thread is packing the same micro-panel. */
static void a_fuse_ready(const packed_plan *p, const a_fuse *af, int panel, int pc, int kc)
{
    atomic_int *flag = &af->ready[(size_t)panel * af->nblocks + pc / p->kc];
    int expected = 0;

    if (atomic_load_explicit(flag, memory_order_acquire) == 2)
        return;
    if (atomic_compare_exchange_strong_explicit(flag, &expected, 1, memory_order_acq_rel,
                                                memory_order_acquire)) {
        const int row = panel * p->mr, rows = af->M - row < p->mr ? af->M - row : p->mr;
        p->isa->pack_a(rows, kc, af->A + (size_t)row * af->lda + pc, af->lda,
                       af->dst + ((size_t)panel * af->K + pc) * p->mr);
        atomic_store_explicit(flag, 2, memory_order_release);
        return;
    }
    while (atomic_load_explicit(flag, memory_order_acquire) != 2) {
#if defined(__x86_64__)
        __builtin_ia32_pause();
#endif
    }
}

/* C[0:mc][0:nc] (+)= A block . B.  a_panel_stride: floats from one A
 * micro-panel to the next (kc*MR in a block buffer, K*MR in a whole packed A,
 * MR*lda in A itself when read in place, where a micro-panel with rows past
 * mc is packed into a_fringe first).  af: A fused (a_block then points into
 * af->dst at rows ic, k pc), else NULL; each thread then starts its pass
 * over the A micro-panels at its own share, so that threads pack different
 * ones at the same time. */
static void macro_kernel(const packed_plan *p, int mc, int nc, int kc, const float *a_block,
                         size_t a_panel_stride, long lda, float *a_fringe, const a_fuse *af,
                         int ic, int pc, const b_view *bv, float *C, int ldc, int accumulate)
{
    const int mr = p->mr, nr = p->nr;
    const packed_ukernel_fn kernel = p->isa->kernel;
    const int mtiles = (int)ceil_div(mc, mr), ntiles = (int)ceil_div(nc, nr);
    const int outer = p->ir_outer ? mtiles : ntiles, inner = p->ir_outer ? ntiles : mtiles;
    const int start = af ? (int)((long)mtiles * call_thread / call_threads) : 0;
    /* B where it is, prefetched closer than the other kernels do (their
     * PACKED_B_PREFETCH_ROWS), is read by the copy kernel, copying or not. */
    const int b_ahead_rows =
        bv->in_place ? packed_b_prefetch_rows(p, bv->ld) : PACKED_B_PREFETCH_ROWS;
    const long b_ahead = (long)b_ahead_rows * bv->ld;
    float scratch[MAX_TILE] __attribute__((aligned(64)));
    /* B fused, copied ahead (the plan's copy_ahead, where this block's
     * passes copy): micro-panel o is read from strip o % 2 by every pass,
     * each of which copies its share of o + 1 into the other; the first
     * is packed here. */
    const int copy_ahead = p->copy_ahead && bv->strip2 != NULL && bv->in_place && !p->ir_outer &&
                      fused_copies(p, inner) && nc >= nr;
    if (copy_ahead)
        p->isa->pack_b(kc, nr, bv->base, bv->ld, bv->strip);

    /* ir outer: one A micro-panel (MR x kc) stays in L1 while the B
     * micro-panels stream from L2; jr outer: one B micro-panel stays while
     * the A micro-panels stream (the plan's rule decides). */
    for (int o = 0; o < outer; o++) {
        for (int in = 0; in < inner; in++) {
            const int a_tile = ((p->ir_outer ? o : in) + start) % mtiles;
            const int ir = a_tile * mr, jr = (p->ir_outer ? in : o) * nr;
            const int mr_cur = mc - ir < mr ? mc - ir : mr;
            const int nr_cur = nc - jr < nr ? nc - jr : nr;
            const float *a = a_block + (size_t)(ir / mr) * a_panel_stride;
            const int use_fringe = nr_cur < nr && bv->fringe != NULL;
            const float *b =
                use_fringe ? bv->fringe : bv->base + (size_t)(jr / nr) * bv->panel_stride;
            /* Fused (jr outer): the first pass copies, the others read the copy. */
            float *copy = NULL;
            long ldb = use_fringe ? bv->fringe_ld : bv->ld;
            float *c = C + (size_t)ir * ldc + jr;
            const int full = mr_cur == mr && nr_cur == nr;
            /* A fringe tile goes to scratch, its valid part then into C. */
            float *const out = full ? c : scratch;
            const long ldo = full ? ldc : nr;
            const int acc = full ? accumulate : 0;
            int in_place = p->a_mode == A_IN_PLACE;
            int b_in_place = bv->in_place && !use_fringe;

            /* A fused: a micro-panel is packed on its first use, hot in L1. */
            if (af != NULL && (p->ir_outer ? in : o) == 0)
                a_fuse_ready(p, af, (ic + ir) / mr, pc, kc);

            float *ahead_dst = NULL;
            const float *ahead_src = NULL;
            int ahead_rows = 0;
            if (copy_ahead) {
                float *cur = o % 2 ? bv->strip2 : bv->strip;
                if (!use_fringe)
                    b = cur, ldb = nr, b_in_place = 0;
                if (o + 1 < outer && nc - (o + 1) * nr >= nr) {
                    int first;
                    ahead_rows = b_next_share(kc, inner, in, &first);
                    ahead_src = bv->base + (size_t)(o + 1) * bv->panel_stride +
                                (size_t)first * bv->ld;
                    ahead_dst = (o % 2 ? bv->strip : bv->strip2) + (size_t)first * nr;
                }
            } else if (bv->strip != NULL && !use_fringe && fused_copies(p, inner)) {
                if (in == 0)
                    copy = bv->strip;
                else
                    b = bv->strip, ldb = nr, b_in_place = 0;
            }
            /* Panel fused (ir outer): the first A micro-panel's pass copies
             * each B micro-panel into the packed block, the others read it. */
            if (bv->first && !use_fringe) {
                float *slot = bv->panel + (size_t)(jr / nr) * kc * nr;
                if (o == 0)
                    copy = slot;
                else
                    b = slot, ldb = nr, b_in_place = 0;
            }

            if (in_place && mr_cur < mr) {
                /* Rows past mc do not exist: pack this micro-panel, padded. */
                p->isa->pack_a(mr_cur, kc, a, lda, a_fringe);
                a = a_fringe;
                in_place = 0;
            }
            /* The next B micro-panel, prefetched into L2 while this one is
             * read, so that its first pass finds it there and not in L3
             * (packed_plan.h, b_next_share): jr outer, B in place, each A
             * micro-panel's pass takes its share of the next one's rows;
             * panel fused, the first pass reads the block's micro-panels
             * one after the other, each prefetching all of the next. */
            const float *b_next = NULL;
            int b_next_rows = 0;
            long next_ld = bv->ld;
            if (p->b_next && p->ir_outer && bv->first && o == 0 && in + 1 < inner &&
                nc - (in + 1) * nr >= nr) {
                b_next = bv->base + (size_t)(in + 1) * bv->panel_stride;
                b_next_rows = kc;
            } else if (p->b_next && p->ir_outer && bv->after != NULL && bv->after_panels > 0) {
                /* Panel fused, the last of two or more A blocks over this
                 * B block: the next block's micro-panels dealt out in
                 * order over all of its passes, each pass an even share
                 * of one's rows. */
                const int passes = outer * inner, pass = o * inner + in;
                const int panels = bv->after_panels;
                const int panel = (int)((long)pass * panels / passes);
                const int first_pass = (int)ceil_div((long)panel * passes, panels);
                const int end_pass = (int)ceil_div((long)(panel + 1) * passes, panels);
                int first;
                b_next_rows = b_next_share(bv->after_rows, end_pass - first_pass,
                                           pass - first_pass, &first);
                if (b_next_rows > 0)
                    b_next = bv->after + (size_t)panel * nr + (size_t)first * bv->after_ld;
                next_ld = bv->after_ld;
            } else if (p->b_next && !p->ir_outer && bv->in_place && !copy_ahead) {
                const float *next = NULL;
                int rows = kc, first;
                if (o + 1 < outer && nc - (o + 1) * nr >= nr)
                    next = bv->base + (size_t)(o + 1) * bv->panel_stride;
                else if (o + 1 == outer)
                    next = bv->after, rows = bv->after_rows;
                b_next_rows = next != NULL ? b_next_share(rows, inner, in, &first) : 0;
                if (b_next_rows > 0)
                    b_next = next + (size_t)first * bv->ld;
            }
            /* A fringe micro-panel narrower than the tile (packed, the
             * last in its row of tiles): only the vectors that hold its
             * columns, and the next micro-panel's rows prefetched a B row
             * stride (bv->ld) apart, not the fringe's. */
            const int vf = p->isa->vector_floats;
            const int narrow = nr_cur < nr && !b_in_place && copy == NULL && ahead_rows == 0 &&
                                       p->isa->kernel_narrow != NULL
                                   ? (nr_cur + vf - 1) / vf * vf
                                   : nr;
            if (narrow < nr)
                p->isa->kernel_narrow(kc, a, in_place ? lda : 0, b, ldb, narrow, b_next,
                                      next_ld, b_next_rows, out, ldo, acc);
            else if (ahead_rows > 0)
                p->isa->kernel_copy_ahead(kc, a, in_place ? lda : 0, b, ahead_src, bv->ld,
                                          ahead_rows, ahead_dst, out, ldo, acc);
            else if (copy || b_next_rows ||
                     (b_in_place && b_ahead_rows != PACKED_B_PREFETCH_ROWS)) {
                const long ahead = b_in_place ? b_ahead : PACKED_B_PREFETCH_ROWS * ldb;
                /* B's rows a page apart into L2 16 rows ahead, unless the
                 * plan leaves them to b_next (it does only where no pass
                 * copies B). */
                const long far = p->b_far ? packed_b_far(ahead, ldb) : 0;
                p->isa->kernel_copy_b(kc, a, in_place ? lda : 0, b, ldb, ahead, far, copy,
                                      b_next, b_next_rows, next_ld, out, ldo, acc);
            }
            else if (in_place)
                p->isa->kernel_a_in_place(kc, a, lda, b, ldb, out, ldo, acc);
            else
                kernel(kc, a, b, ldb, out, ldo, acc);
            if (full)
                continue;
            for (int i = 0; i < mr_cur; i++)
                for (int j = 0; j < nr_cur; j++)
                    c[(size_t)i * ldc + j] =
                        accumulate ? c[(size_t)i * ldc + j] + scratch[i * nr + j]
                                   : scratch[i * nr + j];
        }
    }
}

/* ---- one thread's region: the jc, pc, ic loops -------------------------------- */

typedef struct thread_buffers {
    float *a_block;          /* mc x kc, packed A */
    float *b_panel;          /* kc x nc, packed B (unused with a prepacked B) */
    float *b_strip;          /* kc x NR, B fused's micro-panel copy, or NULL */
    float *b_strip2;         /* another, for the copy ahead, or NULL */
} thread_buffers;

/* C[m0:m1][n0:n1] = A[m0:m1][:] . B[:][n0:n1]; m0 and n0 are multiples of MR
 * and NR.  a_whole: all of A already packed (MR-row panels over all of K),
 * or NULL to pack A block by block here; b_prepacked likewise for B. */
static void run_region(const packed_plan *p, int m0, int m1, int n0, int n1, int K,
                       const float *A, int lda, const float *a_whole, const a_fuse *af,
                       const float *B, int ldb, const float *b_prepacked, float *C, int ldc,
                       const thread_buffers *buf)
{
    /* jc: the region's columns, one B panel (kc x nc) at a time */
    for (int jc = n0; jc < n1; jc += p->nc) {
        const int nc_cur = n1 - jc < p->nc ? n1 - jc : p->nc;
        const int nc_next = n1 - jc - nc_cur < p->nc ? n1 - jc - nc_cur : p->nc;
        /* pc: k, one block at a time; C is stored by the first, added to after */
        for (int pc = 0; pc < K; pc += p->kc) {
            const int kc_cur = K - pc < p->kc ? K - pc : p->kc;
            b_view bv = { .ld = p->nr };

            if (b_prepacked) {
                bv.base = b_prepacked + ((size_t)(jc / p->nr) * K + pc) * p->nr;
                bv.panel_stride = (size_t)K * p->nr;
            } else if (p->b_mode == B_IN_PLACE || p->b_mode == B_FUSED ||
                       p->b_mode == B_PANEL_FUSED) {
                /* In place, fused or panel fused: B read where it is; a
                 * partial last micro-panel packed now (panel fused: into its
                 * slot of the block the first A micro-panel's pass fills). */
                const int full = nc_cur / p->nr * p->nr;
                float *fringe = buf->b_panel;
                bv.base = B + (size_t)pc * ldb + jc;
                bv.panel_stride = (size_t)p->nr;
                bv.ld = ldb;
                bv.after_ld = ldb;
                bv.in_place = 1;
                if (p->b_mode == B_PANEL_FUSED) {
                    bv.panel = buf->b_panel;
                    bv.first = 1;
                    fringe += (size_t)(full / p->nr) * kc_cur * p->nr;
                } else {
                    bv.strip = buf->b_strip;
                    bv.strip2 = buf->b_strip2;
                }
                if (full < nc_cur) {
                    /* as narrow as its kernel reads it, where it has one;
                     * panel fused: NR wide, the block's slot, which the next
                     * A blocks read as a packed panel (below) */
                    const int n = nc_cur - full, vf = p->isa->vector_floats;
                    if (p->isa->pack_b_fringe != NULL && p->isa->kernel_narrow != NULL &&
                        p->b_mode != B_PANEL_FUSED) {
                        p->isa->pack_b_fringe(kc_cur, n, bv.base + full, ldb, fringe);
                        bv.fringe_ld = (n + vf - 1) / vf * vf;
                    } else {
                        p->isa->pack_b(kc_cur, n, bv.base + full, ldb, fringe);
                        bv.fringe_ld = p->nr;
                    }
                    bv.fringe = fringe;
                }
                /* After the block's last micro-panel: the next k block's
                 * first, or the next column block's. */
                if (pc + kc_cur < K) {
                    bv.after = bv.base + (size_t)kc_cur * ldb;
                    bv.after_rows = K - pc - kc_cur < p->kc ? K - pc - kc_cur : p->kc;
                    bv.after_panels = nc_cur / p->nr;
                } else if (jc + nc_cur < n1 && n1 - jc - nc_cur >= p->nr) {
                    bv.after = B + jc + nc_cur;
                    bv.after_rows = K < p->kc ? K : p->kc;
                    bv.after_panels = nc_next / p->nr;
                }
            } else {
                p->isa->pack_b(kc_cur, nc_cur, B + (size_t)pc * ldb + jc, ldb, buf->b_panel);
                bv.base = buf->b_panel;
                bv.panel_stride = (size_t)kc_cur * p->nr;
            }
            /* ic: the region's rows, one A block (mc x kc) at a time */
            for (int ic = m0; ic < m1; ic += p->mc) {
                const int mc_cur = m1 - ic < p->mc ? m1 - ic : p->mc;
                const float *a_block;
                size_t a_stride;

                if (p->a_mode == A_IN_PLACE) {
                    a_block = A + (size_t)ic * lda + pc;
                    a_stride = (size_t)p->mr * lda;
                } else if (a_whole) {
                    a_block = a_whole + ((size_t)(ic / p->mr) * K + pc) * p->mr;
                    a_stride = (size_t)K * p->mr;
                } else {
                    p->isa->pack_a(mc_cur, kc_cur, A + (size_t)ic * lda + pc, lda,
                                   buf->a_block);
                    a_block = buf->a_block;
                    a_stride = (size_t)kc_cur * p->mr;
                }
                /* In place with an A block still to come: its first
                 * micro-panel is read after this block's last. */
                b_view view = bv;
                if (p->ir_outer && (ic + mc_cur < m1 || ic == m0))
                    view.after = NULL;  /* ir outer: the last A block's, not the first's */
                else if (bv.in_place && ic + mc_cur < m1) {
                    view.after = nc_cur >= p->nr ? bv.base : NULL;
                    view.after_rows = kc_cur;
                }
                macro_kernel(p, mc_cur, nc_cur, kc_cur, a_block, a_stride, lda, buf->a_block,
                             af, ic, pc, &view, C + (size_t)ic * ldc + jc, ldc, pc > 0);
                /* Panel fused: the block is packed now, for the next ic blocks. */
                if (bv.panel != NULL && bv.first) {
                    bv.base = bv.panel;
                    bv.panel_stride = (size_t)kc_cur * p->nr;
                    bv.ld = p->nr;
                    bv.fringe = NULL;
                    bv.first = 0;
                    bv.in_place = 0;
                }
            }
        }
    }
}

/* ---- buffers and state --------------------------------------------------------- */

typedef struct packed_state {
    packed_plan plan;
    int M, N, K;
    float *a_packed;          /* all of A, shared by the threads (A_WHOLE, A_FUSED), or NULL */
    atomic_int *a_ready;      /* A_FUSED: a_fuse's flags, mpanels x k blocks */
    int a_blocks;             /* k blocks of A_FUSED */
    float *buffers;           /* every thread's A block and B panel, where needed */
    size_t per_thread;        /* floats per thread, a multiple of 16 (64 bytes) */
    size_t a_floats;          /* of which the A block */
    size_t strip_floats;      /* and at the end B fused's micro-panel copy */
    float *b_prepacked;       /* all of B (--prepack), or NULL */
    double *share;            /* fraction of the column panels per grid column (tn) */
    double *busy;             /* seconds each thread computed in the last call */
} packed_state;

/* Floats per thread for its A block and B panel, each rounded to 64 bytes;
 * none for an operand packed whole. */
static void buffer_sizes(const packed_plan *p, int M, int N, int K, int prepack,
                         size_t *a_floats, size_t *strip_floats, size_t *per_thread)
{
    const size_t kc = (size_t)(K < p->kc ? K : p->kc);
    const size_t mc = (size_t)(round_up(M, p->mr) < p->mc ? round_up(M, p->mr) : p->mc);
    const size_t nc = (size_t)(round_up(N, p->nr) < p->nc ? round_up(N, p->nr) : p->nc);

    /* B: a panel when packed per call, else the fringe micro-panel only. */
    const size_t b_floats = prepack                                               ? 0
                            : p->b_mode == B_PANEL || p->b_mode == B_PANEL_FUSED ? nc * kc
                                                                                 : (size_t)p->nr * kc;

    *a_floats = p->a_mode == A_IN_PLACE ? ((size_t)p->mr * kc + 15) / 16 * 16
                : p->a_mode == A_WHOLE || p->a_mode == A_FUSED ? 0
                                        : (mc * kc + 15) / 16 * 16;
    *strip_floats = p->b_mode == B_FUSED ? ((size_t)p->nr * kc + 15) / 16 * 16 : 0;
    if (p->copy_ahead)
        *strip_floats *= 2;
    *per_thread = *a_floats + (b_floats + 15) / 16 * 16 + *strip_floats;
}

static void *alloc_floats(size_t n)
{
    void *ptr = NULL;
    if (n > SIZE_MAX / sizeof(float) || posix_memalign(&ptr, 64, n * sizeof(float)) != 0)
        return NULL;
    return ptr;
}

/* Plans the call and allocates its buffers (never static: per
 * measurement in prepare(), or per call without one).  0, or -1 when the
 * isa cannot run here or memory is short. */
static int state_init(packed_state *s, int M, int N, int K, const gb_ctx *ctx, int prepack)
{
    memset(s, 0, sizeof *s);
    packed_plan_call(M, N, K, ctx, prepack, &s->plan);
    if (s->plan.isa == NULL || !s->plan.isa->cpu_runs())
        return -1;
    s->M = M;
    s->N = N;
    s->K = K;
    buffer_sizes(&s->plan, M, N, K, prepack, &s->a_floats, &s->strip_floats, &s->per_thread);
    if (s->plan.a_mode == A_WHOLE || s->plan.a_mode == A_FUSED) {
        s->a_packed = alloc_floats((size_t)round_up(M, s->plan.mr) * K);
        if (s->a_packed == NULL)
            return -1;
    }
    if (s->plan.a_mode == A_FUSED) {
        s->a_blocks = (int)ceil_div(K, s->plan.kc);
        s->a_ready = malloc((size_t)ceil_div(M, s->plan.mr) * s->a_blocks * sizeof *s->a_ready);
        if (s->a_ready == NULL)
            return -1;
    }
    if (s->per_thread > 0) {
        s->buffers = alloc_floats(s->per_thread * (size_t)s->plan.nthreads);
        if (s->buffers == NULL)
            return -1;
    }
    s->share = malloc((size_t)s->plan.tn * sizeof *s->share);
    s->busy = calloc((size_t)s->plan.nthreads, sizeof *s->busy);
    if (s->share == NULL || s->busy == NULL)
        return -1;
    for (int j = 0; j < s->plan.tn; j++)
        s->share[j] = 1.0 / s->plan.tn;
    return 0;
}

static void state_free(packed_state *s)
{
    free(s->share);
    free(s->busy);
    free(s->a_packed);
    free(s->a_ready);
    free(s->buffers);
    free(s->b_prepacked);
}

static void packed_release(void *state)
{
    if (state) {
        state_free(state);
        free(state);
    }
}

static int packed_prepare(int M, int N, int K, const float *B, int ldb, const gb_ctx *ctx,
                          int prepack, void **state)
{
    packed_state *s = malloc(sizeof *s);

    *state = NULL;
    if (s == NULL)
        return -1;
    if (state_init(s, M, N, K, ctx, prepack) != 0)
        goto fail;
    if (prepack) {
        s->b_prepacked = alloc_floats((size_t)K * round_up(N, s->plan.nr));
        if (s->b_prepacked == NULL)
            goto fail;
        s->plan.isa->pack_b(K, N, B, ldb, s->b_prepacked);
    }
    *state = s;
    return 0;
fail:
    packed_release(s);
    return -1;
}

/* ---- balance ------------------------------------------------------------------- */

/* After a call: each grid column's share moves halfway towards the share at
 * which every thread would have finished together, its speed being the
 * panels it did over the time it took.  The cores of a shared machine are
 * not equally fast (on the VM this was tuned on, one ran the micro-kernel
 * at 138 GFLOP/s, the other at 121, and with equal shares one thread
 * waited for the other a quarter of the call at qkv M=384); a call has no
 * cheap way to even out (k is never split, and finer dynamic tasks would
 * re-read A for every task), so the split learns from the previous call.
 * Only for one row of threads, each with one grid column. */
static void rebalance(packed_state *s, const int *bound)
{
    const packed_plan *p = &s->plan;
    double speed_sum = 0.0, slowest = 0.0, fastest = 0.0;

    if (p->tm != 1 || p->tn != p->nthreads || p->tn < 2)
        return;
    for (int j = 0; j < p->tn; j++) {
        double speed;
        if (!(s->busy[j] > 0.0) || bound[j + 1] <= bound[j])
            return;
        speed = (bound[j + 1] - bound[j]) / s->busy[j];
        speed_sum += speed;
        slowest = j == 0 || speed < slowest ? speed : slowest;
        fastest = speed > fastest ? speed : fastest;
    }
    /* Half the speed of another core is a thread that was preempted, not
     * a slower core: not worth learning from. */
    if (fastest > MAX_SPEED_RATIO * slowest)
        return;
    for (int j = 0; j < p->tn; j++)
        s->share[j] = 0.5 * s->share[j] + 0.5 * (bound[j + 1] - bound[j]) / s->busy[j] / speed_sum;
}

/* ---- the call ------------------------------------------------------------------ */

/* One call's operands and its column split, for run_thread. */
typedef struct packed_call {
    packed_state *s;
    const int *bound;
    int M, N, K;
    const float *A;
    int lda;
    const float *B;
    int ldb;
    float *C;
    int ldc;
    int team; /* run by packed_team.c, else an OpenMP region */
} packed_call;

/* Thread t of nt: its buffers, its share of A whole's packing, then its
 * cells of the grid. */
static void run_thread(const packed_call *call, int t, int nt)
{
    packed_state *s = call->s;
    const packed_plan *p = &s->plan;
    const int *bound = call->bound;
    const int M = call->M, N = call->N, K = call->K, lda = call->lda, ldb = call->ldb,
              ldc = call->ldc;
    const float *A = call->A, *B = call->B;
    float *C = call->C;
    const int mpanels = (int)ceil_div(M, p->mr);
    thread_buffers buf = { NULL, NULL, NULL, NULL };

    call_thread = t;
    call_threads = nt;
    if (s->buffers) {
        buf.a_block = s->buffers + (size_t)t * s->per_thread;
        buf.b_panel = buf.a_block + s->a_floats;
        if (s->strip_floats)
            buf.b_strip = buf.a_block + s->per_thread - s->strip_floats;
        if (s->strip_floats && p->copy_ahead)
            buf.b_strip2 = buf.b_strip + s->strip_floats / 2;
    }
    const a_fuse af = { s->a_ready, s->a_blocks, A, lda, s->a_packed, M, K };
    /* A whole: every thread packs an equal share of its MR-row panels,
     * then waits for the others, the call's one barrier. */
    if (s->a_packed && p->a_mode == A_WHOLE) {
        const int share = (int)ceil_div(mpanels, nt);
        const int p0 = t * share, p1 = p0 + share < mpanels ? p0 + share : mpanels;
        if (p0 < p1)
            p->isa->pack_a((p1 * p->mr < M ? p1 * p->mr : M) - p0 * p->mr, K,
                           A + (size_t)p0 * p->mr * lda, lda,
                           s->a_packed + (size_t)p0 * p->mr * K);
        if (call->team)
            packed_team_barrier();
        else {
#pragma omp barrier
        }
    }
    double started = omp_get_wtime();
    for (int cell = t; cell < p->tm * p->tn; cell += nt) {
        const int ti = cell / p->tn, tj = cell % p->tn;
        const int m0 = (int)((long)mpanels * ti / p->tm) * p->mr;
        const int m1 = (int)((long)mpanels * (ti + 1) / p->tm) * p->mr;
        const int n0 = bound[tj] * p->nr, n1 = bound[tj + 1] * p->nr;
        if (m0 < M && n0 < N && m0 < m1 && n0 < n1)
            run_region(p, m0, m1 < M ? m1 : M, n0, n1 < N ? n1 : N, K, A, lda,
                       s->a_packed, s->a_ready ? &af : NULL, B, ldb, s->b_prepacked, C,
                       ldc, &buf);
    }
    s->busy[t] = nt == p->nthreads ? omp_get_wtime() - started : 0.0;
}

static void team_part(void *arg, int t, int nt)
{
    run_thread(arg, t, nt);
}

static int packed_run(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                      float *C, int ldc, const gb_ctx *ctx)
{
    packed_state local, *s = ctx->state;
    int *bound;

    /* Without prepare()'s state (or for another shape): plan and allocate
     * here. */
    if (s == NULL || s->M != M || s->N != N || s->K != K) {
        if (s != NULL && s->b_prepacked != NULL)
            return -1;
        s = &local;
        if (state_init(s, M, N, K, ctx, 0) != 0) {
            state_free(s);
            return -1;
        }
    }

    bound = malloc(((size_t)s->plan.tn + 1) * sizeof *bound);
    if (bound == NULL) {
        if (s == &local)
            state_free(s);
        return -1;
    }
    packed_column_bounds(s->share, s->plan.tn, (int)ceil_div(N, s->plan.nr), bound);
    /* A fused: nothing of A packed yet in this call. */
    for (size_t i = 0; s->a_ready && i < (size_t)ceil_div(M, s->plan.mr) * s->a_blocks; i++)
        atomic_init(&s->a_ready[i], 0);

    packed_call call = { s, bound, M, N, K, A, lda, B, ldb, C, ldc, 0 };
    /* One thread: no parallel region, whose barrier costs a system call
     * (`gemmbench info`'s fork/join: 1.2 us a call on the AMD EPYC guest).
     * More: fewer than asked (nested or dynamic OpenMP) take the grid's
     * extra cells. */
    if (s->plan.nthreads == 1)
        run_thread(&call, 0, 1);
    else {
        /* set before the team starts: run_thread's barrier reads it */
        call.team = s->plan.team;
        if (!call.team || !packed_team_run(s->plan.nthreads, team_part, &call)) {
            call.team = 0;
#pragma omp parallel num_threads(s->plan.nthreads)
            run_thread(&call, omp_get_thread_num(), omp_get_num_threads());
        }
    }
    rebalance(s, bound);
    free(bound);
    if (s == &local)
        state_free(s);
    return 0;
}

/* ---- description (packed_plan.c) ---------------------------------------------- */

/* The parameters of the plan that runs: prepare()'s (the harness resolves
 * after it, and only it knows about --prepack), else the one a call would
 * make. */
static void packed_resolve(int M, int N, int K, const gb_ctx *ctx, gb_params *effective)
{
    const packed_state *s = ctx->state;
    packed_plan p;

    if (s != NULL && s->M == M && s->N == N && s->K == K)
        p = s->plan;
    else
        packed_plan_call(M, N, K, ctx, 0, &p);
    packed_plan_effective(&p, M, N, effective);
}

const gb_variant gb_variant_packed = {
    .name = "packed",
    .family = "packed",
    .description = "BLIS five loops, SIMD micro-kernel by CPU, 2-D threads; B in place or copied in the first pass, A in place or packed on first use",
    .run = packed_run,
    .params = packed_params,
    .prepare = packed_prepare,
    .release = packed_release,
    .resolve = packed_resolve,
    .explain = packed_explain,
    .usable = packed_usable,
    .supports_prepack = 1,
    /* bf16 and u8s8: the same five loops around a dot-product micro-kernel
     * (packed_lowp.c). */
    .typed = { [GB_DTYPE_BF16] = &gb_packed_bf16, [GB_DTYPE_U8S8] = &gb_packed_u8s8 },
};

