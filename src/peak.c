/*
 * peak.c - the machine's FP32 FMA peak, measured (SPEC §6): what percent of
 * peak every result is reported against.
 *
 * The loop: NACC independent accumulators, each updated acc = acc * x + y
 * with one fused multiply-add per iteration.  An FMA unit starts one FMA per
 * cycle but its result comes back only after its latency (4 cycles on
 * Skylake to Sapphire Rapids, 2 units), so latency x units = 8 chains must be
 * in flight to keep every unit busy; 16 chains cover twice that, for cores
 * with longer latency or more units, and still fit in AVX-512's 32 registers
 * (AVX2 has 16 registers: 12 chains there).  x is just below 1 so the values
 * converge instead of overflowing or going subnormal.
 *
 * The widest ISA the CPU has is chosen at run time (__builtin_cpu_supports),
 * the loops compiled for it with target attributes, so the file builds
 * without -march and on other architectures (the portable loop: GCC vector
 * types, a multiply and an add, whatever the target makes of them).
 *
 * One trial runs about PEAK_TRIAL_S; trials repeat for PEAK_BUDGET_S (at
 * least PEAK_MIN_TRIALS) and the best is kept.  Short trials and many of
 * them, because the machine may be shared: a trial that another process
 * interrupts is slow and simply loses, and a 1 ms trial often runs whole
 * inside one time slice (the first trials may also run before the core
 * reaches its AVX frequency).  All threads: every thread runs the loop
 * between two barriers, and the flops of all threads count.
 */
#include "commands.h"

#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#define PEAK_MIN_TRIALS 5
#define PEAK_TRIAL_S 0.001
#define PEAK_BUDGET_S 0.1
#define PEAK_CALIBRATE_ITERS 20000L
/* All threads below this fraction of threads x one thread: a busy machine. */
#define PEAK_BUSY_FRACTION 0.75
/* Extra all-thread budgets when the first looks busy. */
#define PEAK_BUSY_RETRIES 4

/* Multiplier and addend: values converge to y / (1 - x). */
#define PEAK_X 0.999999f
#define PEAK_Y 1e-6f

/* Runs iters iterations of the loop; returns the flops done.  The result is
 * stored through sink so the loop cannot be dropped. */
typedef double (*fma_loop_fn)(long iters, float *sink);

#if defined(__x86_64__) || defined(__i386__)
#define NACC_AVX512 16
__attribute__((target("avx512f"))) static double fma_loop_avx512(long iters, float *sink)
{
    __m512 acc[NACC_AVX512];
    const __m512 x = _mm512_set1_ps(PEAK_X), y = _mm512_set1_ps(PEAK_Y);

    for (int i = 0; i < NACC_AVX512; i++)
        acc[i] = _mm512_set1_ps((float)i);
    for (long n = 0; n < iters; n++) {
#pragma GCC unroll 16
        for (int i = 0; i < NACC_AVX512; i++)
            acc[i] = _mm512_fmadd_ps(acc[i], x, y);
    }
    for (int i = 1; i < NACC_AVX512; i++)
        acc[0] = _mm512_add_ps(acc[0], acc[i]);
    *sink = _mm512_reduce_add_ps(acc[0]);
    return 2.0 * 16 * NACC_AVX512 * (double)iters;
}

#define NACC_AVX2 12
__attribute__((target("avx2,fma"))) static double fma_loop_avx2(long iters, float *sink)
{
    __m256 acc[NACC_AVX2];
    const __m256 x = _mm256_set1_ps(PEAK_X), y = _mm256_set1_ps(PEAK_Y);
    float lanes[8];

    for (int i = 0; i < NACC_AVX2; i++)
        acc[i] = _mm256_set1_ps((float)i);
    for (long n = 0; n < iters; n++) {
#pragma GCC unroll 12
        for (int i = 0; i < NACC_AVX2; i++)
            acc[i] = _mm256_fmadd_ps(acc[i], x, y);
    }
    for (int i = 1; i < NACC_AVX2; i++)
        acc[0] = _mm256_add_ps(acc[0], acc[i]);
    _mm256_storeu_ps(lanes, acc[0]);
    *sink = lanes[0] + lanes[7];
    return 2.0 * 8 * NACC_AVX2 * (double)iters;
}
#endif

/* Portable: 16-byte vectors (SSE2, NEON), a multiply and an add per update:
 * ISO C mode does not contract them into an FMA, so this is the peak of what
 * portable C gets, not of the FMA units. */
#define NACC_PORTABLE 8
typedef float v4f __attribute__((vector_size(16)));
static double fma_loop_portable(long iters, float *sink)
{
    v4f acc[NACC_PORTABLE];
    const v4f x = { PEAK_X, PEAK_X, PEAK_X, PEAK_X }, y = { PEAK_Y, PEAK_Y, PEAK_Y, PEAK_Y };

    for (int i = 0; i < NACC_PORTABLE; i++)
        acc[i] = (v4f){ (float)i, (float)i, (float)i, (float)i };
    for (long n = 0; n < iters; n++) {
#pragma GCC unroll 8
        for (int i = 0; i < NACC_PORTABLE; i++)
            acc[i] = acc[i] * x + y;
    }
    for (int i = 1; i < NACC_PORTABLE; i++)
        acc[0] += acc[i];
    *sink = acc[0][0] + acc[0][3];
    return 2.0 * 4 * NACC_PORTABLE * (double)iters;
}

/* The widest loop this CPU runs, and its name for the JSON. */
static fma_loop_fn select_loop(const char **isa)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) {
        *isa = "avx512";
        return fma_loop_avx512;
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        *isa = "avx2+fma";
        return fma_loop_avx2;
    }
#endif
    *isa = "portable";
    return fma_loop_portable;
}

/* GFLOP/s of threads threads each running iters iterations at once; the
 * clock runs from the barrier before the loops to the barrier after them. */
static double run_trial(fma_loop_fn loop, long iters, int threads)
{
    double t0 = 0.0, t1 = 0.0, flops = 0.0;

#pragma omp parallel num_threads(threads) reduction(+ : flops)
    {
        float sink;
#pragma omp barrier
#pragma omp master
        t0 = gb_now();
        flops = loop(iters, &sink);
#pragma omp barrier
#pragma omp master
        t1 = gb_now();
        /* Keeps the result alive without a shared write in the loop. */
        __asm__ volatile("" : : "g"(&sink) : "memory");
    }
    return t1 > t0 ? flops / (t1 - t0) * 1e-9 : 0.0;
}

/* Best GFLOP/s over the trials at a thread count; the trial length comes
 * from timing a short run of the loop on this thread. */
static double measure_peak(fma_loop_fn loop, int threads)
{
    double t0, dt, best = 0.0;
    long iters = PEAK_CALIBRATE_ITERS;
    float sink;

    t0 = gb_now();
    loop(PEAK_CALIBRATE_ITERS, &sink);
    dt = gb_now() - t0;
    if (dt > 0.0 && dt < PEAK_TRIAL_S)
        iters = (long)(PEAK_CALIBRATE_ITERS * (PEAK_TRIAL_S / dt));
    t0 = gb_now();
    for (int t = 0; t < PEAK_MIN_TRIALS || gb_now() - t0 < PEAK_BUDGET_S; t++) {
        double g = run_trial(loop, iters, threads);
        if (g > best)
            best = g;
    }
    return best;
}

/* Cores run FMAs independently: all threads far below threads x one thread
 * means other processes had the cores, and percent of peak is off. */
static int looks_busy(const gb_machine *m, int threads)
{
    return threads > 1 && m->peak_gflops < PEAK_BUSY_FRACTION * threads * m->peak_gflops_1t;
}

static void busy_warning(FILE *out, const gb_machine *m, int threads)
{
    fprintf(out, "gemmbench: warning: %d-thread peak is below %.0f%% of %d x the 1-thread "
                 "%.1f GFLOP/s; the machine looks busy\n",
            threads, 100.0 * PEAK_BUSY_FRACTION, threads, m->peak_gflops_1t);
}

void gb_peak_for_run(gb_machine *m, int threads, int quiet)
{
    const char *isa;
    fma_loop_fn loop = select_loop(&isa);

    m->peak_gflops_1t = measure_peak(loop, 1);
    m->peak_gflops = threads > 1 ? measure_peak(loop, threads) : m->peak_gflops_1t;
    /* Another process held a core for the whole budget: try again a few
     * times (a 2-thread figure of 31 GFLOP/s against 2 x 139 was seen while
     * another job ran), keeping the best. */
    for (int retry = 0; retry < PEAK_BUSY_RETRIES && looks_busy(m, threads); retry++) {
        double again = measure_peak(loop, threads);
        if (again > m->peak_gflops)
            m->peak_gflops = again;
    }
    snprintf(m->peak_isa, sizeof m->peak_isa, "%s", isa);
    /* A warning, so not silenced by --quiet (which drops the progress). */
    if (looks_busy(m, threads))
        busy_warning(stderr, m, threads);
    if (quiet)
        return;
    fprintf(stderr, "gemmbench: measured FP32 peak %.1f GFLOP/s at %d thread%s (%s FMA)\n",
            m->peak_gflops, threads, threads > 1 ? "s" : "", isa);
}

void gb_peak_info(FILE *out, gb_machine *m)
{
    int threads = m->affinity_cpus > 0 ? m->affinity_cpus : 1;

    gb_peak_for_run(m, threads, 1);
    fprintf(out, "peak fp32      %.1f GFLOP/s on 1 thread, %.1f GFLOP/s on %d thread%s "
                 "(measured, %s FMA loop)\n",
            m->peak_gflops_1t, m->peak_gflops, threads, threads > 1 ? "s" : "", m->peak_isa);
    if (looks_busy(m, threads))
        busy_warning(stderr, m, threads);
}
