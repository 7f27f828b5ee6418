/* model.c - BLIS's analytical model of this machine (SCHED.md, "The
 * model"): the register block mr x nr from the vector lanes, the registers
 * and the FMA units' latency; the blocks kc, mc, nc from the caches' sizes,
 * ways and lines, as Low, Igual, Smith and Quintana-Orti derive them
 * ("Analytical modeling is enough for high-performance BLIS", TOMS 2016),
 * each balanced over the shape; and the choices (SCHED.md, "Choices"): how
 * B and A reach the micro-kernel, from packed's rules and this machine's
 * calibration.  A param stated `= model` takes its value from here for
 * each shape, a `choose` block its alternative. */
#include "sched_lang.h"
#include "calibration.h"
#include "machine.h"
#include "packed_plan.h"
#include "sched_features.h"

#include <omp.h>
#include <stdio.h>
#include <string.h>

/* Independent sums that keep two FMA units busy at four cycles' latency:
 * published for every x86 core since Haswell (Intel's optimization manual,
 * AMD's Zen 4 guide); no counter here can measure it. */
#define FMA_LATENCY 4
#define FMA_UNITS 2
#define MODEL_MAX_MR 8 /* the language's row block (GB_SCHED_MAX_ROWS) */
#define FLOAT_BYTES 4L
/* When a cache's figure is unknown: the smallest seen on the machines
 * here (Zen 4: 32 KiB 8-way L1d, 1 MiB 8-way L2, 32 MiB 16-way L3). */
#define FALLBACK_L1 (32L << 10)
#define FALLBACK_L2 (1L << 20)
#define FALLBACK_L3 (32L << 20)
#define FALLBACK_L1_WAYS 8
#define FALLBACK_L2_WAYS 8
#define FALLBACK_L3_WAYS 16
#define FALLBACK_LINE 64
/* Rows of an operand a page or more apart are what packed's calibration
 * asks about; closer rows are read in place (packed_plan.c's rule). */
#define PAGE_BYTES 4096L
/* B's micro-panel is copied by the first pass only when the later passes
 * do at least this many FMAs per copied element, (passes - 1) x mr
 * (packed_plan.c's FUSED_COPY_FMAS, measured there). */
#define COPY_MIN_FMAS 32
/* B's rows a page or more apart, read in place, from this many rows of C
 * up: copied (ir outside jr) as packed's calibration's bmany says
 * (packed_plan.c's PANEL_MANY_ROWS), where packed's kc rule has not made
 * it copied already (packed_fused_cuts_kc_at). */
#define MANY_ROWS 192
/* B's prefetch distance: at most this many rows ahead (packed's
 * PACKED_B_PREFETCH_ROWS). */
#define PF_MAX_ROWS 16

static const char *const names[] = { "mr", "nr", "kc", "mc", "nc", "pf" };

static gb_sched_machine machine_once(void);
static gb_machine detected; /* machine_once's reading, for the calibration's key */

void gb_sched_machine_here(gb_sched_machine *out)
{
    *out = machine_once();
}

int gb_sched_model_of(const char *name)
{
    for (int q = 0; q < GB_MODEL_COUNT; q++)
        if (strcmp(name, names[q]) == 0)
            return q;
    return -1;
}

const char *gb_sched_model_name(int q)
{
    return q >= 0 && q < GB_MODEL_COUNT ? names[q] : "?";
}

/* The machine, read once: lanes and registers of its widest vectors, its
 * data caches' sizes, ways and line (0: unknown), its kind. */
static gb_sched_machine machine_once(void)
{
    static gb_sched_machine m;
    static char kind[400];
    static int done;
    gb_machine *const info = &detected;

    if (done)
        return m;
    gb_machine_detect(info);
    m.lanes = 4;
    m.registers = strcmp(info->arch, "aarch64") == 0 ? 32 : 16;
    for (int i = 0; i < info->nisa; i++)
        if (strcmp(info->isa[i], "avx512f") == 0) {
            m.lanes = 16, m.registers = 32;
            break;
        } else if (strcmp(info->isa[i], "avx2") == 0 || strcmp(info->isa[i], "avx") == 0) {
            m.lanes = m.lanes > 8 ? m.lanes : 8;
        }
    m.l1 = gb_machine_cache_bytes(info, 1);
    m.l2 = gb_machine_cache_bytes(info, 2);
    m.l3 = gb_machine_cache_bytes(info, 3);
    m.l1_ways = gb_machine_cache_ways(info, 1);
    m.l2_ways = gb_machine_cache_ways(info, 2);
    m.l3_ways = gb_machine_cache_ways(info, 3);
    for (int i = 0; i < info->ncaches; i++)
        if (info->caches[i].level == 1 && strcmp(info->caches[i].type, "Instruction") != 0)
            m.line = info->caches[i].line_bytes;
    snprintf(kind, sizeof kind, "%s%s%s%s", info->cpu_model, info->cpu_id[0] ? " (" : "",
             info->cpu_id, info->cpu_id[0] ? ")" : "");
    m.kind = kind;
    done = 1;
    return m;
}

/* n in the fewest blocks of at most cap, as even as they go, each rounded
 * up to a multiple of unit (n = 384, cap 336, unit 8: two blocks of 192). */
static long balance(long n, long cap, long unit)
{
    long blocks, b;

    cap = cap / unit * unit;
    if (cap < unit)
        cap = unit;
    blocks = (n + cap - 1) / cap;
    b = (n + blocks - 1) / blocks;
    return (b + unit - 1) / unit * unit;
}

/* The columns, in units, of the busiest of t threads when `units` are cut
 * into blocks of b units (the last one short) and the blocks shared as
 * OpenMP's static schedule shares them: the first (blocks mod t) threads
 * take one more, so the first thread is the busiest. */
static long busiest_units(long units, long b, int t)
{
    const long blocks = ceil_div(units, b);
    const long first = blocks / t + (blocks % t != 0);
    return first * b < units ? first * b : units;
}

/* nc grown, up to NC_EVEN_SLACK times its cap, where a larger block shares
 * the jc blocks more evenly among the threads (fewer columns for the
 * busiest): N = 3072 under a cap of 336 (7 x 48) is ten blocks, the last
 * one 48 wide, 1680 columns for the first of 2 threads and 1392 for the
 * other; 384 is eight, 1536 each.  Blocks are never shrunk for it: more
 * of them means A packed again for each (nc 192 took mlp_expand M = 64
 * 1.07x the time of 336 on the Intel Xeon kind, 2 threads). */
#define NC_EVEN_SLACK 1.25
static long nc_even(long N, long nc, long cap, long threads_cap, long nr, int threads)
{
    const long units = ceil_div(N, nr);
    long hi = (long)(NC_EVEN_SLACK * (double)cap) / nr, best = nc / nr;
    long best_load = busiest_units(units, best, threads);

    if (hi > threads_cap / nr)
        hi = threads_cap / nr;
    for (long b = best + 1; b <= hi; b++) {
        const long load = busiest_units(units, b, threads);
        if (load < best_load) {
            best = b;
            best_load = load;
        }
    }
    return best * nr;
}

/* One cache as the model uses it: size, ways, a way's bytes (its sets x
 * its line), and which figures fell back. */
typedef struct level {
    long size;
    int ways;
    long way;
    int size_known, ways_known;
} level;

static level level_of(long size, int ways, long fallback_size, int fallback_ways)
{
    level l;

    l.size_known = size > 0;
    l.ways_known = ways > 0; /* 0 unknown, -1 fully associative: not sets of ways */
    l.size = l.size_known ? size : fallback_size;
    l.ways = l.ways_known ? ways : fallback_ways;
    l.way = l.size / l.ways;
    return l;
}

/* The derivation: every figure a block came from, for values and explain. */
typedef struct derivation {
    gb_sched_machine m;
    long b_row;           /* bytes between B's rows (N times its element's) */
    level l1, l2, l3;
    int line, line_known;
    long mr, nr;
    long c_ar, c_br;      /* L1 ways for A's micro-panel (streamed) and B's (resident) */
    long kc_ways_cap;     /* BLIS's cap: C_Ar ways for A's micro-panel */
    long kc_half_cap;     /* A's micro-panel (mr x kc) in half of L1d */
    int kc_half;          /* the rule taken: the machine's (calibrated) */
    char kc_why[320];     /* why, for explain */
    long kc_cap, kc;
    long c_br2, c_ac;     /* L2 ways: B's micro-panel, A's block (resident) */
    long mc_cap, mc;
    long c_ac3, c_bc;     /* L3 ways: A's block, B's block (resident) */
    int threads;          /* the threads the columns are split over */
    int b_copied;         /* B copied whole, read back per row micro-panel: nc from L2 */
    int b_reason;         /* why b_read is what it is (b_read_rule) */
    char b_why[320];      /* why, for explain */
    long nc_l3_cap, nc_l2_cap, nc_threads_cap, nc_cap, nc;
    long nc_balanced;     /* nc as balanced over N, before nc_even */
    long pf_spare, pf_period, pf; /* B's prefetch: spare ways, rows a set repeats, rows */
    int pf_cap;           /* pf at its cap: B read in place, prefetched into L2 only */
    int b_next;           /* the schedule spreads B's next micro-panel into L2 */
    int pf_spread;        /* pf would be at its cap but for that: the rule's */
} derivation;


/* kc's rule of this machine per thread count, once read (machine_at). */
#define KNOWN_MAX 16
static struct {
    int threads, kc_half, b_copied, b_l2_only, bnear_copied, bmany_copied;
    char why[320], b_why[320];
} known[KNOWN_MAX];
static int nknown;

/* This machine, with kc's rule and B's read from its calibration at
 * nthreads (why and b_why say so, for explain); or mach as given. */
static gb_sched_machine machine_at(const gb_sched_machine *mach, int nthreads, char *why,
                                   size_t len, char *b_why, size_t b_len)
{
    gb_sched_machine m;
    gb_calibration cal;
    char said[300];

    if (mach != NULL) {
        snprintf(why, len, "as given");
        snprintf(b_why, b_len, "as given");
        return *mach;
    }
    m = machine_once();
    if (nthreads < 1)
        nthreads = omp_get_max_threads();
    /* Every param `= model` of every plan asks (ml_guided plans a thousand
     * candidates a shape): a calibration read from its cache, or forced,
     * is remembered per thread count; the default is not, since the run
     * may measure the calibration after it. */
    for (int i = 0; i < nknown; i++)
        if (known[i].threads == nthreads) {
            m.kc_half = known[i].kc_half;
            m.b_copied = known[i].b_copied;
            m.b_l2_only = known[i].b_l2_only;
            m.bnear_copied = known[i].bnear_copied;
            m.bmany_copied = known[i].bmany_copied;
            snprintf(why, len, "%s", known[i].why);
            snprintf(b_why, b_len, "%s", known[i].b_why);
            return m;
        }
    gb_calibration_lookup(&detected, nthreads, &cal);
    m.kc_half = cal.answer[GB_CALIB_KC].read == 0;
    gb_calibration_describe(&cal, GB_CALIB_KC, said, sizeof said);
    snprintf(why, len, "this machine's calibration at %d thread%s: %s", nthreads,
             nthreads == 1 ? "" : "s", said);
    m.b_copied = cal.answer[GB_CALIB_B].read == GB_READ_COPIED;
    m.b_l2_only = cal.answer[GB_CALIB_BPREFETCH].read == GB_PREFETCH_L2;
    m.bnear_copied = cal.answer[GB_CALIB_BNEAR].read == GB_READ_COPIED;
    m.bmany_copied = cal.answer[GB_CALIB_BMANY].read == GB_READ_COPIED;
    gb_calibration_describe(&cal, GB_CALIB_B, said, sizeof said);
    snprintf(b_why, b_len, "this machine's calibration at %d thread%s: %s", nthreads,
             nthreads == 1 ? "" : "s", said);
    if (strcmp(cal.source, "default") != 0 && nknown < KNOWN_MAX) {
        known[nknown].threads = nthreads;
        known[nknown].kc_half = m.kc_half;
        known[nknown].b_copied = m.b_copied;
        known[nknown].b_l2_only = m.b_l2_only;
        known[nknown].bnear_copied = m.bnear_copied;
        known[nknown].bmany_copied = m.bmany_copied;
        snprintf(known[nknown].why, sizeof known[nknown].why, "%s", why);
        snprintf(known[nknown].b_why, sizeof known[nknown].b_why, "%s", b_why);
        nknown++;
    }
    return m;
}

/* b_read, the rule (SCHED.md, "Choices"), from the calibration's answers
 * (far: B's rows a page or more apart, copied; near: under a page, more
 * than one A block; many: far rows read in place at M >= MANY_ROWS):
 * B's rows under a page apart are read in place where one A block (mc)
 * holds all M rows, and as bnear measured where it does not (in place,
 * every A block reads B from L3 again); a page or more apart, as the
 * calibration measured, but copied where B fused (jr outer) would cut kc
 * to keep all M rows of A in L2 (f32's rows: packed's panel fused), and
 * from MANY_ROWS rows as bmany measured.  Returns 1 for copied (ir outside
 * jr, each kc x nc block of B copied by the first A micro-panel's pass),
 * and why. */
enum { B_NEAR_ONE_BLOCK, B_NEAR_CALIBRATED, B_FAR_CALIBRATED, B_FAR_CUTS_KC, B_FAR_MANY };
static int b_read_rule(const derivation *d, int far, int near, int many, int M, int N, int K,
                       long b_row, int *why)
{
    if (b_row < PAGE_BYTES) {
        *why = M <= d->mc ? B_NEAR_ONE_BLOCK : B_NEAR_CALIBRATED;
        return M > d->mc && near;
    }
    *why = B_FAR_CALIBRATED;
    if (far)
        return 1;
    /* packed's rule before bmany's: where reading B fused would cut kc,
     * packed runs panel fused (ir outer) whatever bmany says, and bmany is
     * not timed there (its answer is no measurement).  On the AMD EPYC
     * family 25 guest, its calibration's bmany fused (a tie there), the
     * twin so took 0.957-0.969x the time of jr outer at mlp_expand M = 384
     * and 448 on 1 thread (p <= 0.001), 0.967-0.988x on 2 (gemmbench ab,
     * 20 rounds). */
    if (b_row == (long)N * FLOAT_BYTES &&
        packed_fused_cuts_kc_at(d->l1.size, d->l2.size, (int)d->mr, M, K)) {
        *why = B_FAR_CUTS_KC;
        return 1;
    }
    if (M >= MANY_ROWS) {
        *why = B_FAR_MANY;
        return many;
    }
    return 0;
}

static void derive(const gb_sched_machine *mach, int nthreads, int M, int N, int K,
                   long b_row, int b_next, derivation *d)
{
    long v = 1, best = 0;

    memset(d, 0, sizeof *d);
    d->b_row = b_row;
    d->b_next = b_next;
    if (nthreads < 1)
        nthreads = omp_get_max_threads();
    d->threads = nthreads;
    d->m = machine_at(mach, nthreads, d->kc_why, sizeof d->kc_why, d->b_why, sizeof d->b_why);
    d->l1 = level_of(d->m.l1, d->m.l1_ways, FALLBACK_L1, FALLBACK_L1_WAYS);
    d->l2 = level_of(d->m.l2, d->m.l2_ways, FALLBACK_L2, FALLBACK_L2_WAYS);
    d->l3 = level_of(d->m.l3, d->m.l3_ways, FALLBACK_L3, FALLBACK_L3_WAYS);
    d->line_known = d->m.line > 0;
    d->line = d->line_known ? d->m.line : FALLBACK_LINE;

    /* rows x vectors of sums with the B vectors and A's broadcast in the
     * registers, at least FMA_LATENCY x FMA_UNITS of them; the most sums,
     * then the most rows (8 x 3 on 32 registers: 28 of them; 6 x 2 on 16) */
    d->mr = 1;
    for (long vv = 1; vv <= 4; vv++) {
        long rows = (d->m.registers - vv - 1) / vv;
        if (rows > MODEL_MAX_MR)
            rows = MODEL_MAX_MR;
        const long nr = vv * d->m.lanes;
        /* a width the lowering holds in registers (plan.c): a power of two
         * to 16 or a multiple of 16 */
        if (rows < 1 || rows * vv < FMA_LATENCY * FMA_UNITS ||
            !(nr % 16 == 0 || (nr <= 16 && (nr & (nr - 1)) == 0)))
            continue;
        if (rows * vv > best || (rows * vv == best && rows > d->mr)) {
            best = rows * vv;
            d->mr = rows;
            v = vv;
        }
    }
    d->nr = v * d->m.lanes;

    /* kc (Low et al., 4.2): B's micro-panel (kc x nr) stays in L1 while A's
     * micro-panels (mr x kc) stream through it, each set holding C_Br ways
     * of B and C_Ar of A with one way left for the C tile's lines:
     * C_Ar = floor((W1 - 1) / (1 + nr / mr)), kc = C_Ar x way / (mr x 4),
     * C_Br = ceil(nr / mr x C_Ar).  With 8 x 48 on 8 or 12 ways: C_Ar 1,
     * kc 128 on a 4 KiB way, B's micro-panel 6 ways.  Or, where this
     * machine's calibration measured it faster (packed's kc rule, timed
     * both ways: on the AMD EPYC family 26 the six passes over C of kc =
     * 128 at K = 768 cost packed 5-12 %), A's micro-panel in half of L1d,
     * B's micro-panel streamed from L2.  packed also cuts kc where every
     * pass reads B in place, to the places L2 has for B's rows
     * (gb_places_rows: 256 rows 12 KiB apart on 1 MiB); the twin, which
     * has no next micro-panel prefetch for L2 to keep, took 1.03x its time
     * with that cut at mlp_expand M = 32 (gemmbench ab, 10 rounds, AMD
     * EPYC family 26, 2 threads, p = 0.008), so the model keeps this kc. */
    d->kc_ways_cap = gb_blis_kc_cap(d->l1.size, d->l1.ways, (int)d->mr, (int)d->nr, &d->c_ar);
    d->kc_half_cap = d->l1.size / 2 / (d->mr * FLOAT_BYTES);
    d->kc_half = d->m.kc_half;
    d->kc_cap = d->kc_half ? d->kc_half_cap : d->kc_ways_cap;
    d->kc = balance(K, d->kc_cap, 1);
    d->c_br = ceil_div(d->kc * d->nr * FLOAT_BYTES, d->l1.way);

    /* mc (4.3): A's block (mc x kc) stays in L2 while B's micro-panels
     * stream through it: B's micro-panel takes C_Br2 = ceil(kc x nr x 4 /
     * way) ways, one is left for C, A's block the rest, C_Ac = W2 - 1 -
     * C_Br2; mc = C_Ac x way / (kc x 4), a multiple of mr. */
    d->c_br2 = ceil_div(d->kc * d->nr * FLOAT_BYTES, d->l2.way);
    d->c_ac = d->l2.ways - 1 - d->c_br2;
    if (d->c_ac < 1)
        d->c_ac = 1;
    d->mc_cap = d->c_ac * d->l2.way / (d->kc * FLOAT_BYTES);
    d->mc = balance(M, d->mc_cap, d->mr);

    /* nc (4.4): B's block (kc x nc) stays in L3 while A's blocks stream
     * through it: C_Ac3 = ceil(mc x kc x 4 / way), C_Bc = W3 - 1 - C_Ac3;
     * nc = C_Bc x way / (kc x 4), a multiple of nr; and at most N / threads,
     * so that the threads can split C's columns by jc block, each running
     * its own k and row loops without a barrier between them (BLIS's
     * outermost loop, packed's grid; at 2 threads on the AMD EPYC family
     * 26 a barrier per kc step cost mlp_reduce M = 16 1.25x packed's
     * time, the split 1.09x). */
    d->c_ac3 = ceil_div(d->mc * d->kc * FLOAT_BYTES, d->l3.way);
    d->c_bc = d->l3.ways - 1 - d->c_ac3;
    if (d->c_bc < 1)
        d->c_bc = 1;
    d->nc_l3_cap = d->c_bc * d->l3.way / (d->kc * FLOAT_BYTES);
    /* Where the model copies B (b_read copied, b_read_rule: the choice
     * below), the row micro-panel loop is outside the column one and every
     * row micro-panel reads the whole copied block of B again: the block
     * must stay in L2, half of it (packed's B panel).  With L3's cap
     * instead, mlp_expand (N = 3072) M = 128 and 256 took 1.45x and 1.58x
     * packed's time at 1 thread (Intel Xeon family 6 model 207: nc 3072, a
     * 9 MiB block read from L3 32 times); and where B was copied by a rule
     * other than the far rows' calibration (kc's cut, bnear), on the AMD
     * EPYC family 26 at 1 | 2 threads, nc 384-1536 took the twin
     * 1.07-1.17x | 1.07-1.09x the time of L2's (qkv and mlp_reduce M = 384,
     * mlp_expand M = 192-384; gemmbench ab, 10 rounds). */
    d->b_copied = b_read_rule(d, d->m.b_copied, d->m.bnear_copied, d->m.bmany_copied, M, N, K,
                              b_row, &d->b_reason);
    /* bnear is f32 packed's: a type's rows under a page are read in place
     * (gb_sched_model_choose_typed) */
    if (b_row < PAGE_BYTES && b_row != (long)N * FLOAT_BYTES)
        d->b_copied = 0;
    d->nc_l2_cap = d->l2.size / 2 / (d->kc * FLOAT_BYTES);
    d->nc_threads_cap = ceil_div(ceil_div(N, d->threads), d->nr) * d->nr;
    d->nc_cap = d->b_copied ? d->nc_l2_cap : d->nc_l3_cap;
    if (d->nc_threads_cap < d->nc_cap)
        d->nc_cap = d->nc_threads_cap;
    d->nc_balanced = balance(N, d->nc_cap, d->nr);
    d->nc = d->threads > 1 ? nc_even(N, d->nc_balanced, d->nc_cap, d->nc_threads_cap, d->nr,
                                     d->threads)
                           : d->nc_balanced;

    /* pf (packed's set rule, packed_plan.c): B read in place, its rows N
     * floats apart, is prefetched pf k steps ahead into L1d; a prefetched
     * row waits there until the kernel loads it, and rows whose distance is
     * a multiple of a way fall into one set, which repeats every period =
     * way / gcd(row bytes mod way, way) rows.  A set gives half its ways to
     * A's micro-panel and one each to the row being loaded and the C lines
     * stored: the rest, times the period, at most 16 rows.  12 ways of 4 KiB:
     * N = 768 (period 4) 16 rows, N = 3072 (period 1) 4; 8 ways: 8 and 2.
     * Where packed's calibration prefetches B's rows a page or more apart,
     * read in place, into L2 only (bprefetch l2: the set rule's distance
     * into L1 measured slower), the language's prefetch, which asks for
     * L1, asks as far ahead as the cap: on the AMD EPYC family 25 guest
     * (8 ways: 2 rows) pf 16 took packed.sched 0.90-0.99x the time at
     * mlp_expand M = 16-256, 1 and 2 threads.  f32's rows only: the
     * calibration timed f32's B read in place (a type's twin reads its
     * packed buffer there, where the set rule stays).  Not where the
     * schedule spreads B's next micro-panel into L2 (b_next: `prefetch B
     * at jr over kk`), as packed's own next micro-panel does: there the L1
     * prefetch need not reach L3 and the rule's distance is the one (same
     * guest, mlp_expand M = 16-128, 1 and 2 threads, one run of 10 rounds:
     * pf 2 took packed.sched 0.99-1.01x packed's time, pf 16 1.01-1.06x). */
    d->pf = gb_set_rule_rows(d->l1.way * d->l1.ways, d->l1.ways, b_row,
                             PF_MAX_ROWS, &d->pf_period, &d->pf_spare);
    d->pf_cap = d->m.b_l2_only && b_row >= PAGE_BYTES && b_row == (long)N * FLOAT_BYTES &&
                !d->b_copied;
    d->pf_spread = d->pf_cap && d->b_next;
    d->pf_cap = d->pf_cap && !d->b_next;
    if (d->pf_cap)
        d->pf = PF_MAX_ROWS;
}

void gb_sched_model_values(const gb_sched_machine *mach, int M, int N, int K, int nthreads,
                           long out[])
{
    gb_sched_model_values_rows(mach, M, N, K, nthreads, (long)N * FLOAT_BYTES, 0, out);
}

void gb_sched_model_values_rows(const gb_sched_machine *mach, int M, int N, int K,
                                int nthreads, long b_row, int b_next, long out[])
{
    derivation d;

    derive(mach, nthreads, M, N, K, b_row, b_next, &d);
    out[GB_MODEL_MR] = d.mr;
    out[GB_MODEL_NR] = d.nr;
    out[GB_MODEL_KC] = d.kc;
    out[GB_MODEL_MC] = d.mc;
    out[GB_MODEL_NC] = d.nc;
    out[GB_MODEL_PF] = d.pf;
}

/* "L1d 48 KiB 12-way (a way 4 KiB)", with what fell back said. */
static void describe_level(char *buf, size_t len, const char *name, const level *l)
{
    snprintf(buf, len, "%s %ld KiB%s %d-way%s (a way %ld KiB)", name, l->size >> 10,
             l->size_known ? "" : " (size unknown: this taken)", l->ways,
             l->ways_known ? "" : " (ways unknown: this taken)", l->way >> 10);
}

void gb_sched_model_explain(FILE *out, const gb_sched_machine *mach, int M, int N, int K,
                            int nthreads)
{
    gb_sched_model_explain_rows(out, mach, M, N, K, nthreads, (long)N * FLOAT_BYTES, 0);
}

void gb_sched_model_explain_rows(FILE *out, const gb_sched_machine *mach, int M, int N, int K,
                                 int nthreads, long b_row, int b_next)
{
    derivation d;
    char l1[128], l2[128], l3[128];

    derive(mach, nthreads, M, N, K, b_row, b_next, &d);
    describe_level(l1, sizeof l1, "L1d", &d.l1);
    describe_level(l2, sizeof l2, "L2", &d.l2);
    describe_level(l3, sizeof l3, "L3", &d.l3);
    fprintf(out, "  model (BLIS's, Low et al. 2016) on %s: %s, %s, %s, %d-byte lines%s\n",
            d.m.kind ? d.m.kind : "the given machine", l1, l2, l3, d.line,
            d.line_known ? "" : " (unknown: this taken)");
    fprintf(out, "    mr x nr %ld x %ld: %ld sums in %ld vectors of %d lanes, with %ld B vectors "
                 "and A's broadcast in %d registers, >= %d x %d (FMA latency x units)\n",
            d.mr, d.nr, d.mr * d.nr, d.mr * d.nr / d.m.lanes, d.m.lanes, d.nr / d.m.lanes,
            d.m.registers, FMA_LATENCY, FMA_UNITS);
    fprintf(out, "    kc %ld: %s: L1d ways for A's micro-panel C_Ar = floor((%d - 1) / (1 + "
                 "%ld/%ld)) = %ld, cap C_Ar x %ld KiB / (%ld x 4) = %ld; A's micro-panel in "
                 "half of L1d, cap %ld KiB / 2 / (%ld x 4) = %ld; %s cap, balanced over K = "
                 "%d; B's micro-panel %ld x %ld takes %ld ways (%s)\n",
            d.kc, d.kc_half ? "half of L1d" : "L1d's ways", d.l1.ways, d.nr, d.mr, d.c_ar,
            d.l1.way >> 10, d.mr, d.kc_ways_cap, d.l1.size >> 10, d.mr, d.kc_half_cap,
            d.kc_half ? "the half's" : "the ways'", K, d.kc, d.nr, d.c_br, d.kc_why);
    fprintf(out, "    mc %ld: L2 ways for A's block C_Ac = %d - 1 - %ld (B's micro-panel) = %ld; "
                 "cap %ld x %ld KiB / (kc x 4) = %ld, balanced over M = %d in rows of %ld\n",
            d.mc, d.l2.ways, d.c_br2, d.c_ac, d.c_ac, d.l2.way >> 10, d.mc_cap, M, d.mr);
    if (d.b_copied)
        fprintf(out, "    nc %ld: B copied (its rows %ld bytes apart, %s) and read again by "
                     "each row micro-panel: its block in half of L2, cap %ld KiB / 2 / (kc x 4) "
                     "= %ld; ",
                d.nc, d.b_row,
                d.b_reason == B_FAR_CALIBRATED ? d.b_why
                : d.b_reason == B_FAR_CUTS_KC  ? "B fused would cut kc: b_read below"
                : d.b_reason == B_FAR_MANY     ? "M of 192 or more, as calibrated: b_read below"
                                               : "more than one A block, as calibrated: b_read "
                                                 "below",
                d.l2.size >> 10, d.nc_l2_cap);
    else
        fprintf(out, "    nc %ld: L3 ways for B's block C_Bc = %d - 1 - %ld (A's block) = %ld; "
                     "cap %ld x %ld KiB / (kc x 4) = %ld; ",
                d.nc, d.l3.ways, d.c_ac3, d.c_bc, d.c_bc, d.l3.way >> 10, d.nc_l3_cap);
    fprintf(out, "and N over %d thread%s in columns of %ld, %ld, so that the threads split C's "
                 "columns by jc block; balanced over N = %d",
            d.threads, d.threads == 1 ? "" : "s", d.nr, d.nc_threads_cap, N);
    if (d.nc != d.nc_balanced) {
        const long units = ceil_div(N, d.nr);
        fprintf(out, ", %ld; grown to %ld (at most %.2f x the cap) so that the jc blocks share "
                     "evenly: the busiest thread %ld columns, not %ld",
                d.nc_balanced, d.nc, NC_EVEN_SLACK,
                busiest_units(units, d.nc / d.nr, d.threads) * d.nr,
                busiest_units(units, d.nc_balanced / d.nr, d.threads) * d.nr);
    }
    fputc('\n', out);
    fprintf(out, "    pf %ld: B's rows %ld bytes apart share an L1d set every %ld row%s; the set's "
                 "ways %d / 2 - 2 = %ld spare; %ld x %ld rows ahead, at most %d",
            d.pf, d.b_row, d.pf_period, d.pf_period == 1 ? "" : "s", d.l1.ways,
            d.pf_spare, d.pf_period, d.pf_spare, PF_MAX_ROWS);
    if (d.pf_cap)
        fprintf(out, "; but packed's calibration prefetches such rows into L2 only (bprefetch "
                     "l2): the cap, %d",
                PF_MAX_ROWS);
    else if (d.pf_spread)
        fprintf(out, "; packed's calibration prefetches such rows into L2 only (bprefetch l2), "
                     "and the schedule brings B's next micro-panel into L2 (prefetch B ... "
                     "over): the rule's");
    fputc('\n', out);
}

/* ---- choices --------------------------------------------------------------- */

static const char *const choice_names[GB_CHOICE_COUNT] = { "b_read", "b_copy", "a_read",
                                                           "b_next", "b_pf" };

int gb_sched_choice_of(const char *name)
{
    for (int c = 0; c < GB_CHOICE_COUNT; c++)
        if (strcmp(name, choice_names[c]) == 0)
            return c;
    return -1;
}

const char *gb_sched_choice_name(int choice)
{
    return choice >= 0 && choice < GB_CHOICE_COUNT ? choice_names[choice] : "?";
}

const char *const *gb_sched_choice_answers(int choice)
{
    return choice == GB_CHOICE_B_NEXT || choice == GB_CHOICE_B_PF ? gb_on_off_names
                                                                   : gb_read_names;
}

int gb_sched_choice_answer_of(int choice, const char *name)
{
    const char *const *said = gb_sched_choice_answers(choice);

    for (int a = 0; said[a]; a++)
        if (strcmp(name, said[a]) == 0)
            return a;
    return -1;
}

const char *gb_sched_choice_answer_name(int choice, int answer)
{
    /* every choice has two answers (GB_SCHED_MAX_ANSWERS) */
    return answer >= 0 && answer < GB_SCHED_MAX_ANSWERS ? gb_sched_choice_answers(choice)[answer]
                                                        : "?";
}

/* B copied whole (b_read) is copied once: its micro-panels are not copied
 * again. */
int gb_sched_choice_consistent(const int answer[GB_CHOICE_COUNT])
{
    return !(answer[GB_CHOICE_B_READ] == GB_READ_COPIED &&
             answer[GB_CHOICE_B_COPY] == GB_READ_COPIED);
}

/* The calibration's answer to question q and why, into *answer and why. */
static void calibrated_why(const gb_calibration *cal, int q, char *why, size_t len,
                           const char *prefix)
{
    char said[300];

    gb_calibration_describe(cal, q, said, sizeof said);
    snprintf(why, len, "%s; this machine's calibration at %d thread%s: %s", prefix, cal->threads,
             cal->threads == 1 ? "" : "s", said);
}

static void calibrated(const gb_calibration *cal, int q, int *answer, char *why, size_t len,
                       const char *prefix)
{
    *answer = cal->answer[q].read;
    calibrated_why(cal, q, why, len, prefix);
}

void gb_sched_model_choose(const gb_sched_machine *mach, const gb_calibration *given, int M,
                           int N, int K, int nthreads, int answer[GB_CHOICE_COUNT],
                           char why[][320])
{
    gb_sched_model_choose_rows(mach, given, M, N, K, nthreads, (long)N * FLOAT_BYTES,
                               (long)K * FLOAT_BYTES, answer, why);
}

void gb_sched_model_choose_rows(const gb_sched_machine *mach, const gb_calibration *given, int M,
                                int N, int K, int nthreads, long b_row, long a_row,
                                int answer[GB_CHOICE_COUNT], char why[][320])
{
    char scratch[GB_CHOICE_COUNT][320];
    gb_calibration cal;
    derivation d;
    const int forced[GB_CHOICE_COUNT] = { answer[0] >= 0, answer[1] >= 0, answer[2] >= 0,
                                          answer[3] >= 0, answer[4] >= 0 };

    if (why == NULL)
        why = scratch;
    if (nthreads < 1)
        nthreads = omp_get_max_threads();
    if (given != NULL) {
        cal = *given;
    } else {
        gb_machine info;
        gb_machine_detect(&info);
        gb_calibration_lookup(&info, nthreads, &cal);
    }
    derive(mach, nthreads, M, N, K, b_row, 0, &d);

    /* b_read: b_read_rule, with the calibration's reasons. */
    if (forced[GB_CHOICE_B_READ]) {
        snprintf(why[GB_CHOICE_B_READ], 320, "--param");
    } else if (forced[GB_CHOICE_B_COPY] && answer[GB_CHOICE_B_COPY] == GB_READ_COPIED) {
        answer[GB_CHOICE_B_READ] = GB_READ_IN_PLACE;
        snprintf(why[GB_CHOICE_B_READ], 320, "b_copy copied (--param) reads B in place");
    } else {
        char prefix[160];
        int reason, q;
        answer[GB_CHOICE_B_READ] =
            b_read_rule(&d, cal.answer[GB_CALIB_B].read == GB_READ_COPIED,
                        cal.answer[GB_CALIB_BNEAR].read == GB_READ_COPIED,
                        cal.answer[GB_CALIB_BMANY].read == GB_READ_COPIED, M, N, K, b_row,
                        &reason)
                ? GB_READ_COPIED
                : GB_READ_IN_PLACE;
        switch (reason) {
        case B_NEAR_ONE_BLOCK:
            snprintf(why[GB_CHOICE_B_READ], 320, "B's rows %ld bytes apart, under a page; one "
                     "A block of %ld rows holds all %d", b_row, d.mc, M);
            q = -1;
            break;
        case B_NEAR_CALIBRATED:
            snprintf(prefix, sizeof prefix, "B's rows %ld bytes apart, under a page; A blocks "
                     "of %ld rows, fewer than M = %d", b_row, d.mc, M);
            q = GB_CALIB_BNEAR;
            break;
        case B_FAR_CUTS_KC:
            snprintf(why[GB_CHOICE_B_READ], 320, "B's rows a page or more apart, read in "
                     "place (calibrated), but B fused (jr outer) would cut kc to keep all M = "
                     "%d rows of A in half of L2 (%ld of %ld KiB): copied, ir outer, as "
                     "packed's panel fused", M, d.l2.size / 2 >> 10, d.l2.size >> 10);
            q = -1;
            break;
        case B_FAR_MANY:
            snprintf(prefix, sizeof prefix, "B's rows a page or more apart, read in place "
                     "(calibrated), M = %d of %d or more", M, MANY_ROWS);
            q = GB_CALIB_BMANY;
            break;
        default:
            snprintf(prefix, sizeof prefix, "B's rows a page or more apart");
            q = GB_CALIB_B;
        }
        if (q >= 0)
            calibrated_why(&cal, q, why[GB_CHOICE_B_READ], 320, prefix);
    }

    /* b_copy: where B is read in place, whether the first A micro-panel's
     * pass copies each B micro-panel for the later passes: not with rows
     * under a page apart (packed reads them in place), else as calibrated,
     * and then only when the later passes do COPY_MIN_FMAS FMAs per copied
     * element (M = 40 and up on 8 rows). */
    if (forced[GB_CHOICE_B_COPY]) {
        snprintf(why[GB_CHOICE_B_COPY], 320, "--param");
    } else if (answer[GB_CHOICE_B_READ] == GB_READ_COPIED) {
        answer[GB_CHOICE_B_COPY] = GB_READ_IN_PLACE;
        snprintf(why[GB_CHOICE_B_COPY], 320, "B is copied whole (b_read copied)");
    } else if (b_row < PAGE_BYTES) {
        answer[GB_CHOICE_B_COPY] = GB_READ_IN_PLACE;
        snprintf(why[GB_CHOICE_B_COPY], 320, "B's rows %ld bytes apart, under a page: read "
                 "where they are", b_row);
    } else {
        const long passes = ceil_div(M < d.mc ? M : d.mc, d.mr);
        const long min_passes = 1 + ceil_div(COPY_MIN_FMAS, d.mr);
        char prefix[160];
        snprintf(prefix, sizeof prefix, "%ld A micro-panel%s per B micro-panel, a copy pays "
                 "from %ld", passes, passes == 1 ? "" : "s", min_passes);
        calibrated(&cal, GB_CALIB_BCOPY, &answer[GB_CHOICE_B_COPY], why[GB_CHOICE_B_COPY], 320,
                   prefix);
        if (passes < min_passes)
            answer[GB_CHOICE_B_COPY] = GB_READ_IN_PLACE;
    }

    /* a_read: A's rows under a page apart in place, else as calibrated. */
    if (forced[GB_CHOICE_A_READ])
        snprintf(why[GB_CHOICE_A_READ], 320, "--param");
    else if (a_row < PAGE_BYTES)
        answer[GB_CHOICE_A_READ] = GB_READ_IN_PLACE,
        snprintf(why[GB_CHOICE_A_READ], 320, "A's rows %ld bytes apart, under a page", a_row);
    else
        calibrated(&cal, GB_CALIB_A, &answer[GB_CHOICE_A_READ], why[GB_CHOICE_A_READ], 320,
                   "A's rows a page or more apart");

    /* b_next: B's next micro-panel prefetched into L2 by the passes over
     * the one before, as packed does, but where B is read in place with
     * its rows under a page apart and so few A micro-panels read each B
     * micro-panel (the model's mc and mr; the threads share jc, each with
     * all of them) that packed's calibration (bnearnext) asks: there as it
     * answers. */
    {
        const long passes = ceil_div(M < d.mc ? M : d.mc, d.mr);
        const long asked = gb_calibration_passes_asked(GB_CALIB_BNEARNEXT, (int)d.mr);
        if (forced[GB_CHOICE_B_NEXT]) {
            snprintf(why[GB_CHOICE_B_NEXT], 320, "--param");
        } else if (answer[GB_CHOICE_B_READ] == GB_READ_IN_PLACE && b_row < PAGE_BYTES &&
                   passes <= asked) {
            char prefix[160];
            snprintf(prefix, sizeof prefix, "B's rows %ld bytes apart, under a page, read in "
                     "place by %ld A micro-panel%s", b_row, passes, passes == 1 ? "" : "s");
            calibrated(&cal, GB_CALIB_BNEARNEXT, &answer[GB_CHOICE_B_NEXT],
                       why[GB_CHOICE_B_NEXT], 320, prefix);
        } else {
            answer[GB_CHOICE_B_NEXT] = GB_ON;
            snprintf(why[GB_CHOICE_B_NEXT], 320, "packed's rule: prefetched (%s)",
                     answer[GB_CHOICE_B_READ] == GB_READ_COPIED ? "B copied whole"
                     : b_row >= PAGE_BYTES                      ? "B's rows a page or more apart"
                                         : "more A micro-panels than its calibration asks about");
        }
    }

    /* b_pf: B's rows prefetched pf k steps ahead into L1, as packed does,
     * but where every pass reads B in place (b_read in place, b_copy in
     * place) with its rows a page or more apart, the next micro-panel
     * spread into L2 (b_next on), and packed's calibration prefetches such
     * rows into L2 only (bprefetch l2): packed then asks none ahead into L1
     * (packed_b_prefetch_rows), and nor does the twin.  With the set rule's
     * 4 rows there, packed.sched took 1.02-1.09x the time without them at
     * mlp_expand M = 16 and 32, 1 and 2 threads (one process, 16 rounds,
     * twice, AMD EPYC family 26); at M = 48 and 64, where a pass copies B
     * and the others read the copy, 0.96-0.99x: there it stays. */
    if (forced[GB_CHOICE_B_PF]) {
        snprintf(why[GB_CHOICE_B_PF], 320, "--param");
    } else if (answer[GB_CHOICE_B_READ] == GB_READ_IN_PLACE &&
               answer[GB_CHOICE_B_COPY] == GB_READ_IN_PLACE &&
               answer[GB_CHOICE_B_NEXT] == GB_ON && b_row >= PAGE_BYTES &&
               b_row == (long)N * FLOAT_BYTES) {
        char prefix[200];
        snprintf(prefix, sizeof prefix, "B's rows %ld bytes apart read in place by every pass, "
                 "the next micro-panel into L2", b_row);
        calibrated_why(&cal, GB_CALIB_BPREFETCH, why[GB_CHOICE_B_PF], 320, prefix);
        answer[GB_CHOICE_B_PF] =
            cal.answer[GB_CALIB_BPREFETCH].read == GB_PREFETCH_L2 ? GB_OFF : GB_ON;
    } else {
        answer[GB_CHOICE_B_PF] = GB_ON;
        snprintf(why[GB_CHOICE_B_PF], 320, "packed's rule: B's rows prefetched into L1 ahead of "
                 "the pass that reads them (%s)",
                 answer[GB_CHOICE_B_READ] == GB_READ_COPIED   ? "B copied whole"
                 : answer[GB_CHOICE_B_COPY] == GB_READ_COPIED ? "a pass copies B for the others"
                 : answer[GB_CHOICE_B_NEXT] != GB_ON           ? "no next micro-panel prefetch"
                                                               : "B's rows under a page apart");
    }
}

void gb_sched_model_choose_typed(const gb_sched *s, int M, int N, int K, int nthreads,
                                 int answer[GB_CHOICE_COUNT], char why[][320])
{
    /* the rows' distance is the type's storage (u8s8's B: N bytes), the
     * blocks the model's in words (gb_sched_model_group) */
    const int g = gb_sched_model_group(s);
    const int a_forced = answer[GB_CHOICE_A_READ] >= 0;

    const int b_forced = answer[GB_CHOICE_B_READ] >= 0;
    const int next_forced = answer[GB_CHOICE_B_NEXT] >= 0;
    const int pf_forced = answer[GB_CHOICE_B_PF] >= 0;
    const long b_row = (long)N * (long)gb_dtype_size_b(s->dtype);

    gb_sched_model_choose_rows(NULL, NULL, M, N, (K + g - 1) / g, nthreads, b_row,
                               (long)K * (long)gb_dtype_size_a(s->dtype), answer, why);
    /* bnear is f32 packed's calibration: the typed packed reads B's rows
     * under a page apart in place at every M. */
    if (s->dtype != GB_DTYPE_F32 && !b_forced && b_row < PAGE_BYTES &&
        answer[GB_CHOICE_B_READ] != GB_READ_IN_PLACE) {
        answer[GB_CHOICE_B_READ] = GB_READ_IN_PLACE;
        if (why != NULL)
            snprintf(why[GB_CHOICE_B_READ], 320, "B's rows %ld bytes apart, under a page: %s "
                     "reads them in place at every M", b_row, gb_dtype_name(s->dtype));
    }
    /* bnearnext is f32 packed's too: the typed packed prefetches the next
     * micro-panel wherever it reads B in place. */
    if (s->dtype != GB_DTYPE_F32 && !next_forced) {
        answer[GB_CHOICE_B_NEXT] = GB_ON;
        if (why != NULL)
            snprintf(why[GB_CHOICE_B_NEXT], 320, "%s's packed prefetches it wherever it reads "
                     "B in place", gb_dtype_name(s->dtype));
    }
    /* bprefetch is f32 packed's: a type's twin reads its packed buffer,
     * where the set rule's distance stays (the pf rule above) */
    if (s->dtype != GB_DTYPE_F32 && !pf_forced) {
        answer[GB_CHOICE_B_PF] = GB_ON;
        if (why != NULL)
            snprintf(why[GB_CHOICE_B_PF], 320, "%s's packed prefetches B's rows into L1",
                     gb_dtype_name(s->dtype));
    }
    /* Widened, A read in place widens its element at every broadcast (a
     * load, a shift and a move before the broadcast, per row and k: 32
     * instructions beside the 8 x 48 run's 24 FMAs); copied, once.  bf16
     * on the Intel Xeon kind, 2 threads: the twin with A in place took
     * 1.15x packed's time (geomean of 9 BERT shapes), copied 0.82x. */
    if (s->dtype != GB_DTYPE_F32 && g == 1 && !a_forced) {
        answer[GB_CHOICE_A_READ] = GB_READ_COPIED;
        if (why != NULL)
            snprintf(why[GB_CHOICE_A_READ], 320, "%s widened where read: A in place would be "
                     "widened at every broadcast, copied once", gb_dtype_name(s->dtype));
    }
}

int gb_sched_combo_for(const gb_sched *s, const gb_params *params, int M, int N, int K,
                       int nthreads, char *err, size_t errlen)
{
    int answer[GB_CHOICE_COUNT];

    if (s->nblocks == 0)
        return 0;
    for (int c = 0; c < GB_CHOICE_COUNT; c++)
        answer[c] = (int)gb_param_get(params, choice_names[c], -1);
    gb_sched_model_choose_typed(s, M, N, K, nthreads, answer, NULL);
    for (int c = 0; c < s->ncombos; c++) {
        int same = 1;
        for (int b = 0; b < s->nblocks; b++)
            same &= s->combo_answer[c][b] == answer[s->blocks[b].choice];
        if (same)
            return c;
    }
    snprintf(err, errlen, "%s: b_read %s with b_copy %s: a combination the model never makes "
             "(B copied whole is not copied again)", s->file,
             gb_read_names[answer[GB_CHOICE_B_READ]], gb_read_names[answer[GB_CHOICE_B_COPY]]);
    return -1;
}
