/*
 * bandwidth.c - read and triad bandwidth at L2, L3 and memory, on one thread
 * and on all threads (the method, and why these sizes: src/measure/bandwidth.md).
 *
 * One buffer, 64-byte aligned, first touched by the threads that will read
 * it, holds every working set: each thread owns one slice of it, and a
 * level's working set is the first `bytes / threads` of every slice.  A
 * trial is enough passes over the working set to take about BW_TRIAL_S
 * (at least one), between two barriers; its rate counts every byte every
 * thread passed over.  The read loop sums with eight vector accumulators,
 * so that the adds' latency never limits it; the triad (STREAM's, a = b +
 * s c) counts 12 bytes per element, as STREAM does, although the store's
 * write-allocate read makes the traffic 16.
 */
#define _GNU_SOURCE
#include "bandwidth.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "probe_memo.h"
#include "stats.h"

#define BW_TRIALS 7
#define BW_TRIAL_S 0.002
/* Past the minimum, trials go on for this long (at most BW_MAX_TRIALS): on
 * a shared machine a figure's best trial needs a quiet moment to fall in. */
#define BW_BUDGET_S 0.05
#define BW_MAX_TRIALS 25
/* Working sets: half of a cache (the rest holds what the system keeps
 * there), and STREAM's rule for memory: at least four times the last level. */
#define BW_CACHE_FRACTION 2
#define BW_MEM_FACTOR 4
#define BW_MEM_FACTOR_QUICK 2
/* ... and at most this much, at every level: the quick probe is the tests'
 * (every run of `make test` measures it, and its figures are only the roofs
 * of tests), and twice a 300 MiB last level took 0.7 s of each tiny run on
 * a Xeon guest, half of a 508 MiB one 0.6 s on an AMD EPYC guest, most of
 * it the kernel zeroing pages.  At 16 MiB a tiny run took 0.12 s (0.20 s
 * of CPU) there, at 4 MiB 0.08 s (0.12 s): its L3 level is then skipped
 * (a thread's share is under 4 L2s) and "memory" is a cache. */
#define BW_MEM_MAX_QUICK ((size_t)4 << 20)
/* A slice's floats are a multiple of this (one pass step of the read loop). */
#define BW_STEP 128
/* Streams one thread reads side by side (read_pass). */
#define BW_STREAMS 4

typedef float bw_vec __attribute__((vector_size(64)));

void gb_bw_plan_init(gb_bw_plan *p, long l2_bytes, long l3_bytes, int threads)
{
    const char *mode = getenv("GEMMBENCH_BANDWIDTH");

    memset(p, 0, sizeof *p);
    p->l2_bytes = l2_bytes;
    p->l3_bytes = l3_bytes;
    p->mem_available = gb_available_memory();
    p->threads = threads > 0 ? threads : 1;
    p->quick = mode != NULL && strcmp(mode, "quick") == 0;
    p->trials = p->quick ? 1 : BW_TRIALS;
}

/* Sum of n floats (n a multiple of BW_STEP), eight independent chains over
 * BW_STREAMS parts of the array read side by side: a GEMM reads several
 * rows of B at once, and one core's memory bandwidth grows with the streams
 * in flight (one stream alone measured half of what a GEMM call drew). */
static float read_pass(const float *x, size_t n)
{
    const size_t part = n / BW_STREAMS / BW_STEP * BW_STEP;
    bw_vec s[8] = { { 0 } };
    float total = 0.0f;

    for (size_t i = 0; i < part; i += BW_STEP / 4)
        for (int p = 0; p < BW_STREAMS; p++)
            for (int j = 0; j < 2; j++)
                s[2 * p + j] += *(const bw_vec *)(x + (size_t)p * part + i + 16 * j);
    for (size_t i = part * BW_STREAMS; i < n; i += 16)
        s[0] += *(const bw_vec *)(x + i);
    for (int j = 1; j < 8; j++)
        s[0] += s[j];
    for (int j = 0; j < 16; j++)
        total += s[0][j];
    return total;
}

static void triad_pass(float *a, const float *b, const float *c, size_t n)
{
    const float s = 3.0f;

    for (size_t i = 0; i < n; i++)
        a[i] = b[i] + s * c[i];
}

typedef struct bw_job {
    float *buf;
    size_t slice;            /* floats per thread's slice */
    size_t n;                /* floats of the working set per thread */
    int threads;
    int triad;
} bw_job;

/* One pass of thread t over its part of the working set. */
static void pass(const bw_job *j, int t, volatile float *sink)
{
    float *x = j->buf + (size_t)t * j->slice;

    if (j->triad) {
        size_t third = j->n / 3 / BW_STEP * BW_STEP;
        triad_pass(x, x + third, x + 2 * third, third);
    } else {
        *sink += read_pass(x, j->n);
    }
}

static size_t job_bytes(const bw_job *j)
{
    size_t per = j->triad ? 3 * (j->n / 3 / BW_STEP * BW_STEP) : j->n;
    return per * sizeof(float) * (size_t)j->threads;
}

/* Seconds of `passes` passes on every thread, between two barriers. */
static double timed_passes(const bw_job *j, int passes)
{
    volatile float sink = 0.0f;
    double t0 = 0.0, t1 = 0.0;

#pragma omp parallel num_threads(j->threads)
    {
        int t = omp_get_thread_num();
        volatile float local = 0.0f;
#pragma omp barrier
#pragma omp master
        t0 = gb_now();
        for (int p = 0; p < passes; p++)
            pass(j, t, &local);
#pragma omp barrier
#pragma omp master
        t1 = gb_now();
#pragma omp atomic
        sink += local;
    }
    (void)sink;
    return t1 - t0;
}

/* Best and median GB/s of the plan's trials of one job. */
static void measure_job(const bw_job *j, int trials, double *best, double *median)
{
    double rate[BW_MAX_TRIALS], once, spent = 0.0;
    int passes, n = 0;
    gb_stats st;

    /* The first pass warms the working set into its level and calibrates. */
    once = timed_passes(j, 1);
    passes = once > 0.0 && once < BW_TRIAL_S ? (int)(BW_TRIAL_S / once) + 1 : 1;
    while (n < trials || (n < BW_MAX_TRIALS && spent < BW_BUDGET_S && trials > 1)) {
        double s = timed_passes(j, passes);
        rate[n++] = s > 0.0 ? (double)job_bytes(j) * passes / s / 1e9 : 0.0;
        spent += s;
    }
    stats_compute(rate, (size_t)n, &st);
    *best = st.max;
    *median = st.median;
}

/* Floats per thread of a working set of `bytes` over `threads`. */
static size_t per_thread(size_t bytes, int threads)
{
    return bytes / sizeof(float) / (size_t)threads / BW_STEP * BW_STEP;
}

/* The working set of each level, whole-measurement bytes; 0 skips it. */
static void plan_sizes(const gb_bw_plan *p, int threads, size_t *bytes)
{
    long llc = p->l3_bytes > 0 ? p->l3_bytes : p->l2_bytes;
    size_t mem = (size_t)llc * (p->quick ? BW_MEM_FACTOR_QUICK : BW_MEM_FACTOR);

    if (p->quick && mem > BW_MEM_MAX_QUICK)
        mem = BW_MEM_MAX_QUICK;

    /* L2 is per core: every thread gets half of its own. */
    bytes[GB_BW_L2] = (size_t)p->l2_bytes / BW_CACHE_FRACTION * (size_t)threads;
    /* L3 is shared: half of it over all threads, only when each thread's
     * part is well past its L2 (else it measures L2 again). */
    bytes[GB_BW_L3] = (size_t)p->l3_bytes / BW_CACHE_FRACTION;
    if (p->l3_bytes <= 0 || bytes[GB_BW_L3] / (size_t)threads < 4 * (size_t)p->l2_bytes)
        bytes[GB_BW_L3] = 0;
    bytes[GB_BW_MEM] = mem;
    if (p->quick && bytes[GB_BW_L3] > BW_MEM_MAX_QUICK)
        bytes[GB_BW_L3] = BW_MEM_MAX_QUICK;
}

/* The quick probe's memo key (probe_memo.h): its working sets, each job's
 * floats per thread, and the thread count.  1, or 0: no memo. */
static int bw_memo_key(const gb_bw_plan *p, size_t sizes[2][GB_BW_LEVELS], char *key,
                       size_t len)
{
    const int counts[2] = { 1, p->threads };
    char what[160];
    size_t used = 0;

    if (!p->quick)
        return 0;
    used = (size_t)snprintf(what, sizeof what, "bw");
    for (int l = 0; l < GB_BW_LEVELS; l++)
        for (int c = 0; c < 2; c++)
            if (used < sizeof what)
                used += (size_t)snprintf(what + used, sizeof what - used, "-%zu",
                                         per_thread(sizes[c][l], counts[c]));
    return used < sizeof what && gb_probe_memo_key(what, p->threads, key, len);
}

/* A level's four figures at count c, in the memo's order. */
static double *bw_figure(gb_bw_level *lv, int c, int i)
{
    double *const f[4] = { &lv->read_gbs[c], &lv->read_median_gbs[c], &lv->triad_gbs[c],
                           &lv->triad_median_gbs[c] };
    return f[i];
}

int gb_bw_measure(const gb_bw_plan *p, gb_bandwidth *bw, char *err, size_t errlen)
{
    size_t sizes[2][GB_BW_LEVELS], slice, total;
    int counts[2] = { 1, p->threads };
    double kept[GB_BW_LEVELS * 2 * 4];
    char key[256];
    int memo, from_memo;
    float *buf = NULL;

    memset(bw, 0, sizeof *bw);
    if (p->l2_bytes <= 0) {
        snprintf(err, errlen, "cannot measure bandwidth: the machine reports no L2 size");
        return -1;
    }
    plan_sizes(p, 1, sizes[0]);
    plan_sizes(p, p->threads, sizes[1]);
    /* Memory: capped at half of what is available, said in the result. */
    if (p->mem_available > 0 && sizes[1][GB_BW_MEM] > p->mem_available / 2) {
        sizes[0][GB_BW_MEM] = sizes[1][GB_BW_MEM] = p->mem_available / 2;
        bw->capped = 1;
    }
    /* A slice per thread, the buffer threads of them: large enough for each
     * all-threads job's part and for each one-thread job, which reads its
     * whole working set from the buffer's start across the slices.  (The
     * one-thread L3 set, half of a large L3, once ran past the buffer's
     * end with 3 threads: 3 slices of a third, each rounded down.) */
    slice = 0;
    for (int l = 0; l < GB_BW_LEVELS; l++) {
        size_t one = per_thread(sizes[0][l], 1);
        size_t spread = (one + (size_t)p->threads - 1) / (size_t)p->threads;
        spread = (spread + BW_STEP - 1) / BW_STEP * BW_STEP;
        if (spread > slice)
            slice = spread;
        if (per_thread(sizes[1][l], p->threads) > slice)
            slice = per_thread(sizes[1][l], p->threads);
    }
    memo = bw_memo_key(p, sizes, key, sizeof key);
    from_memo = memo && gb_probe_memo_get(key, kept, (int)(sizeof kept / sizeof *kept));
    if (!from_memo) {
        if (slice < BW_STEP * 3 ||
            posix_memalign((void **)&buf, 64, slice * sizeof(float) * (size_t)p->threads) != 0) {
            snprintf(err, errlen, "cannot measure bandwidth: out of memory for %zu MiB",
                     slice * sizeof(float) * (size_t)p->threads >> 20);
            return -1;
        }
        total = slice * (size_t)p->threads;
        /* First touch by the thread that reads it; small values, no overflow. */
#pragma omp parallel for num_threads(p->threads) schedule(static)
        for (size_t i = 0; i < total; i++)
            buf[i] = (float)(i & 7) * 0.125f;
    }

    bw->threads = p->threads;
    bw->trials = p->trials;
    bw->quick = p->quick;
    for (int l = 0; l < GB_BW_LEVELS; l++)
        for (int c = 0; c < 2; c++) {
            gb_bw_level *lv = &bw->level[l];
            bw_job j = { buf, slice, per_thread(sizes[c][l], counts[c]), counts[c], 0 };
            if (c == 1 && p->threads == 1) {
                /* One thread is all threads: the same figures. */
                lv->bytes[1] = lv->bytes[0];
                lv->read_gbs[1] = lv->read_gbs[0];
                lv->read_median_gbs[1] = lv->read_median_gbs[0];
                lv->triad_gbs[1] = lv->triad_gbs[0];
                lv->triad_median_gbs[1] = lv->triad_median_gbs[0];
                continue;
            }
            if (j.n < BW_STEP * 3)
                continue;
            if (from_memo) {
                for (int i = 0; i < 4; i++)
                    *bw_figure(lv, c, i) = kept[(l * 2 + c) * 4 + i];
            } else {
                measure_job(&j, p->trials, &lv->read_gbs[c], &lv->read_median_gbs[c]);
                j.triad = 1;
                measure_job(&j, p->trials, &lv->triad_gbs[c], &lv->triad_median_gbs[c]);
            }
            lv->bytes[c] = j.n * sizeof(float) * (size_t)counts[c];
            bw->measured = 1;
        }
    free(buf);
    if (!bw->measured) {
        snprintf(err, errlen, "cannot measure bandwidth: no level has a working set");
        return -1;
    }
    if (memo && !from_memo) {
        for (int l = 0; l < GB_BW_LEVELS; l++)
            for (int c = 0; c < 2; c++)
                for (int i = 0; i < 4; i++)
                    kept[(l * 2 + c) * 4 + i] = *bw_figure(&bw->level[l], c, i);
        gb_probe_memo_put(key, kept, (int)(sizeof kept / sizeof *kept));
    }
    return 0;
}

/* ---- the sweep: cache levels measured (levels.c finds them) ------------------ */

/* From 16 KiB (below every L1d) to twice the largest reported cache, at
 * least 128 MiB and at most 1 GiB, SWEEP_PER_OCTAVE points an octave (past
 * SWEEP_BIG_BYTES, where only memory's tail is left to see, fewer); one
 * thread reads (a level's knee is one core's view); each point the best of
 * a few trials of about SWEEP_TRIAL_S, past SWEEP_BIG_BYTES one pass a
 * trial and no warming pass (the set is in memory whatever it does).  The
 * whole sweep stops at SWEEP_BUDGET_S (said in the file): on the AMD EPYC
 * guest it takes about a second, most of it the sets past 256 MiB. */
#define SWEEP_MIN_BYTES ((size_t)16 << 10)
#define SWEEP_FLOOR_BYTES ((size_t)128 << 20)
#define SWEEP_MAX_BYTES ((size_t)1 << 30)
#define SWEEP_PER_OCTAVE 4
#define SWEEP_PER_OCTAVE_BIG 2
#define SWEEP_TRIALS 3
#define SWEEP_TRIAL_S 0.0005
#define SWEEP_BIG_BYTES ((size_t)64 << 20)
#define SWEEP_BUDGET_S 2.0

/* The best GB/s of one thread reading the first n floats of buf. */
static double sweep_point(float *buf, size_t n)
{
    bw_job j = { buf, n, n, 1, 0 };
    double best = 0.0, once = 0.0;
    int passes = 1, trials = n * sizeof(float) >= SWEEP_BIG_BYTES ? 2 : SWEEP_TRIALS;

    if (n * sizeof(float) < SWEEP_BIG_BYTES) {
        once = timed_passes(&j, 1);
        passes = once > 0.0 && once < SWEEP_TRIAL_S ? (int)(SWEEP_TRIAL_S / once) + 1 : 1;
    }
    for (int t = 0; t < trials; t++) {
        double sec = timed_passes(&j, passes);
        double rate = sec > 0.0 ? (double)n * sizeof(float) * passes / sec / 1e9 : 0.0;
        if (rate > best)
            best = rate;
    }
    return best;
}

void gb_bw_sweep(const gb_bw_plan *p, long largest_reported, gb_cache_levels *lv)
{
    size_t top = (size_t)(largest_reported > 0 ? largest_reported : 0) * 2, n;
    double began = gb_now(), size;
    float *buf = NULL;

    lv->npoints = 0;
    lv->budget_cut = 0;
    if (top < SWEEP_FLOOR_BYTES)
        top = SWEEP_FLOOR_BYTES;
    if (top > SWEEP_MAX_BYTES)
        top = SWEEP_MAX_BYTES;
    if (p->mem_available > 0 && top > p->mem_available / 2)
        top = p->mem_available / 2;
    n = top / sizeof(float) / BW_STEP * BW_STEP;
    if (n < BW_STEP || posix_memalign((void **)&buf, 64, n * sizeof(float)) != 0)
        return;
    /* Small pages, as GEMM's own buffers have (huge ones moved this
     * guest's L3 knee from about 20 to about 50 MiB), touched by every
     * thread the run may use: the faults are most of the touch's time. */
#pragma omp parallel for schedule(static) num_threads(p->threads)
    for (size_t i = 0; i < n; i++)
        buf[i] = (float)(i & 7) * 0.125f;
    /* The budget is the points': the first touch of a 1 GiB set alone
     * took 2-3 s on a guest slow to fault pages in (the AMD EPYC kind). */
    lv->touch_seconds = gb_now() - began;
    began = gb_now();
    lv->swept = 1;
    for (size = (double)SWEEP_MIN_BYTES; lv->npoints < GB_SWEEP_MAX_POINTS;
         size *= pow(2.0, 1.0 / (size < (double)SWEEP_BIG_BYTES ? SWEEP_PER_OCTAVE
                                                                 : SWEEP_PER_OCTAVE_BIG))) {
        size_t floats = (size_t)(size / sizeof(float)) / BW_STEP * BW_STEP;
        if (floats > n)
            break;
        if (gb_now() - began > SWEEP_BUDGET_S) {
            lv->budget_cut = 1;
            break;
        }
        lv->bytes[lv->npoints] = (double)floats * sizeof(float);
        lv->gbs[lv->npoints++] = sweep_point(buf, floats);
    }
    /* The last point at the top itself: what "swept to" means. */
    if (!lv->budget_cut && lv->npoints > 0 && lv->npoints < GB_SWEEP_MAX_POINTS &&
        lv->bytes[lv->npoints - 1] < 0.95 * (double)n * sizeof(float)) {
        lv->bytes[lv->npoints] = (double)n * sizeof(float);
        lv->gbs[lv->npoints++] = sweep_point(buf, n);
    }
    free(buf);
    lv->seconds = gb_now() - began + lv->touch_seconds;
}

int gb_machine_measure_bandwidth(gb_machine *m, int threads, char *err, size_t errlen)
{
    gb_cache_levels levels;
    gb_bw_plan p;
    long largest = 0;
    int rc;

    memset(&levels, 0, sizeof levels);
    gb_bw_plan_init(&p, gb_machine_cache_bytes(m, 2), gb_machine_cache_bytes(m, 3), threads);
    /* The full probe measures the levels first and sizes its sets from
     * them: a level that is not there (a VM's 508 MiB "L3") would measure
     * memory under its name.  The quick one (the tests') keeps the
     * reported sizes, capped below any such question. */
    if (!p.quick) {
        for (int l = 1; l <= 3; l++) {
            levels.reported[l] = gb_machine_cache_bytes(m, l);
            if (levels.reported[l] > largest)
                largest = levels.reported[l];
        }
        gb_bw_sweep(&p, largest, &levels);
        if (levels.swept) {
            gb_bw_find_levels(&levels);
            if (levels.used[2] > 0)
                p.l2_bytes = levels.used[2];
            p.l3_bytes = levels.used[3];
        }
    }
    rc = gb_bw_measure(&p, &m->bw, err, errlen);
    m->bw.levels = levels;
    return rc;
}
