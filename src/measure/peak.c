/*
 * peak.c - the machine's FP32 FMA peak, measured: what percent of
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
 *
 * The sustained figures (gb_peak_sustained, `gemmbench info`): the best of
 * 1 ms bursts is what the core can do at its best moment, not what a 20 ms
 * GEMM call meets.  So, on one thread, PEAK_SUSTAINED_TRIALS trials of
 * PEAK_SUSTAINED_TRIAL_S (about one single-thread mlp_expand M=384 call),
 * alternating two loops, the median of each: the same FMA loop, and a loop
 * shaped like the packed schedule's micro-kernel (the same accumulators, and
 * the same operand loads per FMA: NV vector loads of B and MR broadcasts of
 * A per MR x NV FMAs, from a few KiB that stay in L1).  On the development
 * VM the FMA loop sustains about 96% of the burst peak at any moment, but
 * the loop with loads swings between 84% and 99% from one second to the
 * next, with the load on the host (another tenant on the core's sibling
 * hyperthread, as far as a guest can tell): that loop, not the burst peak,
 * is the ceiling a register-blocked GEMM can reach at that moment.
 */
#define _DEFAULT_SOURCE /* syscall(), for arch_prctl */
#include "peak.h"

#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "probe_memo.h"
#include "stats.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#endif
#if defined(__x86_64__) && defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

#define PEAK_MIN_TRIALS 5
#define PEAK_TRIAL_S 0.001
#define PEAK_BUDGET_S 0.1
#define PEAK_CALIBRATE_ITERS 20000L
#define PEAK_SUSTAINED_TRIALS 25
#define PEAK_SUSTAINED_TRIAL_S 0.02
#define PEAK_SUSTAINED_TRIALS_QUICK 5
#define PEAK_SUSTAINED_TRIAL_S_QUICK 0.005
/* k rows of the kernel-shaped loop's operands: 64 x (MR + NR) floats, at
 * most 14 KiB, in L1 on any core with AVX-512 or AVX2. */
#define PEAK_KSHAPE_ROWS 64
/* All threads below this fraction of threads x one thread: a busy machine. */
#define PEAK_BUSY_FRACTION 0.75
/* Extra all-thread budgets when the first looks busy, each after a pause
 * that grows (PEAK_BUSY_PAUSE_S, twice that, ...): on the 2-vCPU guests a
 * spell in which another tenant holds one vCPU lasts seconds at times, and
 * retries back to back all fell in it (the 2-thread u8s8 peak read as the
 * 1-thread one in 3 of 5 runs on the Intel Xeon kind, 2026-12-02). */
#define PEAK_BUSY_RETRIES 4
#define PEAK_BUSY_PAUSE_S 0.1

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

/* Shaped like the packed AVX-512 micro-kernel (8 x 48): per k, 3 vector
 * loads of b and 8 broadcasts of a, 24 FMAs into 24 accumulators; a and b
 * wrap around after PEAK_KSHAPE_ROWS k rows, so they stay in L1. */
__attribute__((target("avx512f"))) static double kshape_loop_avx512(long iters, const float *a0,
                                                                    const float *b0, float *sink)
{
    __m512 acc[8][3];
    const float *a = a0, *b = b0;

    for (int i = 0; i < 8; i++)
        for (int v = 0; v < 3; v++)
            acc[i][v] = _mm512_setzero_ps();
    for (long n = 0; n < iters; n++) {
        __m512 bv[3];
#pragma GCC unroll 3
        for (int v = 0; v < 3; v++)
            bv[v] = _mm512_loadu_ps(b + 16 * v);
#pragma GCC unroll 8
        for (int i = 0; i < 8; i++) {
            const __m512 ai = _mm512_set1_ps(a[i]);
#pragma GCC unroll 3
            for (int v = 0; v < 3; v++)
                acc[i][v] = _mm512_fmadd_ps(ai, bv[v], acc[i][v]);
        }
        if ((n + 1) % PEAK_KSHAPE_ROWS == 0) {
            a = a0;
            b = b0;
        } else {
            a += 8;
            b += 48;
        }
    }
    for (int i = 0; i < 8; i++)
        for (int v = 0; v < 3; v++)
            acc[0][0] = _mm512_add_ps(acc[0][0], acc[i][v]);
    *sink = _mm512_reduce_add_ps(acc[0][0]);
    return 2.0 * 16 * 24 * (double)iters;
}

/* Shaped like the packed AVX2 micro-kernel (4 x 24): 3 loads, 4 broadcasts,
 * 12 FMAs per k. */
__attribute__((target("avx2,fma"))) static double kshape_loop_avx2(long iters, const float *a0,
                                                                   const float *b0, float *sink)
{
    __m256 acc[4][3];
    const float *a = a0, *b = b0;
    float lanes[8];

    for (int i = 0; i < 4; i++)
        for (int v = 0; v < 3; v++)
            acc[i][v] = _mm256_setzero_ps();
    for (long n = 0; n < iters; n++) {
        __m256 bv[3];
#pragma GCC unroll 3
        for (int v = 0; v < 3; v++)
            bv[v] = _mm256_loadu_ps(b + 8 * v);
#pragma GCC unroll 4
        for (int i = 0; i < 4; i++) {
            const __m256 ai = _mm256_broadcast_ss(a + i);
#pragma GCC unroll 3
            for (int v = 0; v < 3; v++)
                acc[i][v] = _mm256_fmadd_ps(ai, bv[v], acc[i][v]);
        }
        if ((n + 1) % PEAK_KSHAPE_ROWS == 0) {
            a = a0;
            b = b0;
        } else {
            a += 4;
            b += 24;
        }
    }
    for (int i = 0; i < 4; i++)
        for (int v = 0; v < 3; v++)
            acc[0][0] = _mm256_add_ps(acc[0][0], acc[i][v]);
    _mm256_storeu_ps(lanes, acc[0][0]);
    *sink = lanes[0] + lanes[7];
    return 2.0 * 8 * 12 * (double)iters;
}

/* The typed peaks (gb_peak_dtype_for_counts) use the same accumulator
 * scheme with each type's dot-product instruction.  vdpbf16ps and vpdpbusd
 * have about as much latency as an FMA and issue at most as often, so the
 * FMA loop's 16 chains keep them busy too, in 16 of the 32 zmm registers
 * beside the two operands.  (On the development VM's Xeon, family 6 model
 * 207, vpdpbusd zmm issues twice a cycle like the FMA, but vdpbf16ps once
 * every two cycles at either width, 8 chains already saturating it: there
 * bf16's peak is half of FP32's, not twice.)  acc is an accumulator, not a multiplier here, so it grows
 * by a fixed step per update: bf16's by 2e-6 (a thousand after 5e8
 * updates, far from overflow), u8s8's by 4, wrapping in 32 bits, which
 * costs the instruction nothing. */
#define PEAK_DOT_OPERAND 1e-3f
/* u8s8's accumulators as vectors of 32-bit lanes, the lanes vpdpbusd sums
 * into: held as __m512i (64-bit lanes), GCC 12 copies every accumulator
 * between two registers each update to change the lane type (31 moves per
 * 16 vpdpbusd, objdump). */
typedef int v16si __attribute__((vector_size(64)));
typedef int v8si __attribute__((vector_size(32)));

/* bf16: vdpbf16ps zmm, 16 lanes x 2 products, a multiply and an add each:
 * 64 FLOP. */
__attribute__((target("avx512f,avx512bf16"))) static double bf16_loop_avx512(long iters,
                                                                             float *sink)
{
    __m512 acc[NACC_AVX512];
    const __m512 operand = _mm512_set1_ps(PEAK_DOT_OPERAND);
    const __m512bh a = _mm512_cvtne2ps_pbh(operand, operand), b = a;

    for (int i = 0; i < NACC_AVX512; i++)
        acc[i] = _mm512_set1_ps((float)i);
    for (long n = 0; n < iters; n++) {
#pragma GCC unroll 16
        for (int i = 0; i < NACC_AVX512; i++)
            acc[i] = _mm512_dpbf16_ps(acc[i], a, b);
    }
    for (int i = 1; i < NACC_AVX512; i++)
        acc[0] = _mm512_add_ps(acc[0], acc[i]);
    *sink = _mm512_reduce_add_ps(acc[0]);
    return 2.0 * 2 * 16 * NACC_AVX512 * (double)iters;
}

/* u8s8: vpdpbusd zmm, 16 lanes x 4 products of a uint8 and an int8: 128
 * ops. */
__attribute__((target("avx512f,avx512vnni"))) static double u8s8_loop_avx512(long iters,
                                                                             float *sink)
{
    v16si acc[NACC_AVX512];
    const __m512i a = _mm512_set1_epi8(1), b = _mm512_set1_epi8(1);

    for (int i = 0; i < NACC_AVX512; i++)
        acc[i] = (v16si)_mm512_set1_epi32(i);
    for (long n = 0; n < iters; n++) {
#pragma GCC unroll 16
        for (int i = 0; i < NACC_AVX512; i++)
            acc[i] = (v16si)_mm512_dpbusd_epi32((__m512i)acc[i], a, b);
    }
    for (int i = 1; i < NACC_AVX512; i++)
        acc[0] += acc[i];
    *sink = (float)_mm512_reduce_add_epi32((__m512i)acc[0]);
    return 2.0 * 4 * 16 * NACC_AVX512 * (double)iters;
}

/* u8s8 on AVX-VNNI only (a core with VNNI but without AVX-512): vpdpbusd
 * ymm, 8 lanes x 4 products: 64 ops; 12 chains in AVX2's 16 registers, as
 * fma_loop_avx2. */
__attribute__((target("avx2,avxvnni"))) static double u8s8_loop_avx_vnni(long iters, float *sink)
{
    v8si acc[NACC_AVX2];
    const __m256i a = _mm256_set1_epi8(1), b = _mm256_set1_epi8(1);

    for (int i = 0; i < NACC_AVX2; i++)
        acc[i] = (v8si)_mm256_set1_epi32(i);
    for (long n = 0; n < iters; n++) {
#pragma GCC unroll 12
        for (int i = 0; i < NACC_AVX2; i++)
            acc[i] = (v8si)_mm256_dpbusd_avx_epi32((__m256i)acc[i], a, b);
    }
    for (int i = 1; i < NACC_AVX2; i++)
        acc[0] += acc[i];
    *sink = (float)acc[0][0] + (float)acc[0][7];
    return 2.0 * 4 * 8 * NACC_AVX2 * (double)iters;
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

/* u8s8 without VNNI: what a portable kernel does once it has widened the
 * bytes, a 32-bit multiply and add per product (2 ops, the count
 * vpdpbusd's products get), in 16-byte vectors of unsigned lanes, which
 * wrap.  The multiplier is read from a volatile so that the compiler emits
 * a multiply, not the shifts and adds a known constant allows.  12 chains:
 * a vector multiply of 32-bit lanes has up to 10 cycles of latency, and
 * 12 plus the two operands fit SSE's 16 registers. */
#define NACC_PORTABLE_INT 12
typedef uint32_t v4u __attribute__((vector_size(16)));
static double u8s8_loop_portable(long iters, float *sink)
{
    volatile uint32_t multiplier = 3;
    const uint32_t mul = multiplier;
    v4u acc[NACC_PORTABLE_INT];
    const v4u x = { mul, mul, mul, mul }, y = { 1, 1, 1, 1 };

    for (int i = 0; i < NACC_PORTABLE_INT; i++)
        acc[i] = (v4u){ (uint32_t)i, (uint32_t)i, (uint32_t)i, (uint32_t)i };
    for (long n = 0; n < iters; n++) {
#pragma GCC unroll 12
        for (int i = 0; i < NACC_PORTABLE_INT; i++)
            acc[i] = acc[i] * x + y;
    }
    for (int i = 1; i < NACC_PORTABLE_INT; i++)
        acc[0] += acc[i];
    *sink = (float)(acc[0][0] + acc[0][3]);
    return 2.0 * 4 * NACC_PORTABLE_INT * (double)iters;
}

/* Shaped like the portable micro-kernel (4 x 8 of 4-float vectors): 2
 * loads, 4 splats, 8 multiply-adds per k. */
static double kshape_loop_portable(long iters, const float *a0, const float *b0, float *sink)
{
    v4f acc[4][2];
    const float *a = a0, *b = b0;

    memset(acc, 0, sizeof acc);
    for (long n = 0; n < iters; n++) {
        v4f bv[2];
        memcpy(bv, b, sizeof bv);
#pragma GCC unroll 4
        for (int i = 0; i < 4; i++) {
            const v4f ai = { a[i], a[i], a[i], a[i] };
            acc[i][0] += ai * bv[0];
            acc[i][1] += ai * bv[1];
        }
        if ((n + 1) % PEAK_KSHAPE_ROWS == 0) {
            a = a0;
            b = b0;
        } else {
            a += 4;
            b += 8;
        }
    }
    for (int i = 0; i < 4; i++)
        acc[0][0] += acc[i][1] + (i > 0 ? acc[i][0] : (v4f){ 0, 0, 0, 0 });
    *sink = acc[0][0][0] + acc[0][0][3];
    return 2.0 * 4 * 8 * (double)iters;
}

typedef double (*kshape_loop_fn)(long iters, const float *a, const float *b, float *sink);

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

#if defined(__x86_64__) || defined(__i386__)
/* AVX-VNNI (cpuid leaf 7 subleaf 1, EAX bit 4), asked of cpuid because
 * clang's __builtin_cpu_supports does not know the name; the caller's
 * avx2 check says the OS saves the ymm registers. */
static int cpu_has_avx_vnni(void)
{
    unsigned eax, ebx, ecx, edx;
    return __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) && (eax & (1u << 4));
}
#endif

/* Type t's loop on this CPU and its name (machine.peak_dtype_isa): the
 * type's dot-product instruction where the CPU has it, else the portable
 * loop.  bf16's portable loop is the FP32 one: a portable kernel widens
 * bf16 to float and multiply-adds floats, one product a multiply and an
 * add as vdpbf16ps's are counted. */
static fma_loop_fn select_dtype_loop(gb_dtype t, const char **isa, const char **insn)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (t == GB_DTYPE_BF16 && __builtin_cpu_supports("avx512bf16")) {
        *isa = "avx512_bf16";
        *insn = "vdpbf16ps zmm";
        return bf16_loop_avx512;
    }
    if (t == GB_DTYPE_U8S8 && __builtin_cpu_supports("avx512vnni")) {
        *isa = "avx512_vnni";
        *insn = "vpdpbusd zmm";
        return u8s8_loop_avx512;
    }
    if (t == GB_DTYPE_U8S8 && __builtin_cpu_supports("avx2") && cpu_has_avx_vnni()) {
        *isa = "avx_vnni";
        *insn = "vpdpbusd ymm";
        return u8s8_loop_avx_vnni;
    }
#endif
    *isa = "portable";
    *insn = t == GB_DTYPE_U8S8 ? "32-bit multiply-add" : "float multiply-add";
    return t == GB_DTYPE_U8S8 ? u8s8_loop_portable : fma_loop_portable;
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

/* GEMMBENCH_PEAK=quick: the tests' mode (tests/run.sh), as
 * GEMMBENCH_BANDWIDTH=quick is the bandwidths'. */
static int peak_quick(void)
{
    const char *mode = getenv("GEMMBENCH_PEAK");
    return mode != NULL && strcmp(mode, "quick") == 0;
}

/* PEAK_BUDGET_S, or none past PEAK_MIN_TRIALS when quick: a run then
 * spends 0.15 s less on its peak, the figure being the best of 5 trials of
 * 1 ms. */
static double peak_budget_s(void)
{
    return peak_quick() ? 0.0 : PEAK_BUDGET_S;
}

/* Best GFLOP/s over the trials at a thread count; the trial length comes
 * from timing a short run of the loop on this thread. */
static double measure_peak_now(fma_loop_fn loop, int threads)
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
    for (int t = 0; t < PEAK_MIN_TRIALS || gb_now() - t0 < peak_budget_s(); t++) {
        double g = run_trial(loop, iters, threads);
        if (g > best)
            best = g;
    }
    return best;
}

/* The loop's name in the probe memo's keys. */
static const char *loop_name(fma_loop_fn loop)
{
#if defined(__x86_64__) || defined(__i386__)
    if (loop == fma_loop_avx512)
        return "fma_avx512";
    if (loop == fma_loop_avx2)
        return "fma_avx2";
    if (loop == bf16_loop_avx512)
        return "bf16_avx512";
    if (loop == u8s8_loop_avx512)
        return "u8s8_avx512";
    if (loop == u8s8_loop_avx_vnni)
        return "u8s8_avx_vnni";
#endif
    if (loop == fma_loop_portable)
        return "fma_portable";
    if (loop == u8s8_loop_portable)
        return "u8s8_portable";
    return NULL;
}

/* The quick peak's memo key for loop at threads (probe_memo.h): 1, or 0
 * when the figure is this run's alone. */
static int peak_memo_key(fma_loop_fn loop, int threads, char *key, size_t len)
{
    char what[64];

    if (!peak_quick() || loop_name(loop) == NULL)
        return 0;
    snprintf(what, sizeof what, "peak_%s", loop_name(loop));
    return gb_probe_memo_key(what, threads, key, len);
}

/* measure_peak_now's figure, read back from the probe memo once earlier
 * runs measured it (GEMMBENCH_PEAK=quick and GEMMBENCH_PROBE_MEMO). */
static double measure_peak(fma_loop_fn loop, int threads)
{
    char key[256];
    double best;
    int memo = peak_memo_key(loop, threads, key, sizeof key);

    if (memo && gb_probe_memo_get(key, &best, 1))
        return best;
    best = measure_peak_now(loop, threads);
    if (memo)
        gb_probe_memo_put(key, &best, 1);
    return best;
}

/* A figure that looked busy, measured again: now, never read back, and
 * kept in the memo where better than what it holds. */
static double measure_peak_again(fma_loop_fn loop, int threads)
{
    char key[256];
    double best = measure_peak_now(loop, threads);

    if (peak_memo_key(loop, threads, key, sizeof key))
        gb_probe_memo_put(key, &best, 1);
    return best;
}

/* Cores run FMAs independently: all threads far below threads x one thread
 * means other processes had the cores, and percent of peak is off. */
static int looks_busy(const gb_machine *m, int threads)
{
    /* More threads than CPUs the process may use share them (--threads 4
     * on 2 CPUs): those CPUs are the most they can have. */
    int cores = m->affinity_cpus > 0 && threads > m->affinity_cpus ? m->affinity_cpus : threads;
    return cores > 1 && m->peak_gflops < PEAK_BUSY_FRACTION * cores * m->peak_gflops_1t;
}

static void busy_warning(FILE *out, const gb_machine *m, int threads)
{
    /* More threads than CPUs share the cores: that, not a busy machine. */
    if (m->affinity_cpus > 0 && threads > m->affinity_cpus) {
        fprintf(out, "gemmbench: warning: %d threads on the %d CPU%s this process may use: "
                     "they share the cores, so the %d-thread peak is not %d x the 1-thread one\n",
                threads, m->affinity_cpus, m->affinity_cpus > 1 ? "s" : "", threads, threads);
        return;
    }
    fprintf(out, "gemmbench: warning: %d-thread peak is below %.0f%% of %d x the 1-thread "
                 "%.1f GFLOP/s; the machine looks busy\n",
            threads, 100.0 * PEAK_BUSY_FRACTION, threads, m->peak_gflops_1t);
}

/* The kernel-shaped loop that goes with select_loop's choice. */
static kshape_loop_fn select_kshape(const char *isa)
{
#if defined(__x86_64__) || defined(__i386__)
    if (strcmp(isa, "avx512") == 0)
        return kshape_loop_avx512;
    if (strcmp(isa, "avx2+fma") == 0)
        return kshape_loop_avx2;
#endif
    (void)isa;
    return kshape_loop_portable;
}

/* Iterations of a loop that take about seconds on this thread, from a
 * timed short run (a second one: the first may run before the AVX
 * frequency is reached). */
static long iters_for(double seconds, double (*time_iters)(long iters, void *arg), void *arg)
{
    long iters = PEAK_CALIBRATE_ITERS;
    for (int pass = 0; pass < 2; pass++) {
        double dt = time_iters(iters, arg);
        if (dt > 0.0)
            iters = (long)(iters * (seconds / dt)) + 1;
    }
    return iters;
}

typedef struct sustained_loops {
    fma_loop_fn fma;
    kshape_loop_fn kshape;
    const float *a, *b;
} sustained_loops;

static double time_fma(long iters, void *arg)
{
    const sustained_loops *l = arg;
    float sink;
    double t0 = gb_now();
    l->fma(iters, &sink);
    __asm__ volatile("" : : "g"(&sink) : "memory");
    return gb_now() - t0;
}

static double time_kshape(long iters, void *arg)
{
    const sustained_loops *l = arg;
    float sink;
    double t0 = gb_now();
    l->kshape(iters, l->a, l->b, &sink);
    __asm__ volatile("" : : "g"(&sink) : "memory");
    return gb_now() - t0;
}

static int sustained_stats(const double *gflops, int n, double *median, double *best)
{
    gb_stats s;
    if (stats_compute(gflops, (size_t)n, &s) != 0)
        return -1;
    *median = s.median;
    *best = s.max;
    return 0;
}

int gb_peak_sustained(int trials, double trial_s, gb_sustained_peak *out)
{
    const char *isa;
    sustained_loops l;
    float *operands;
    double *fma_gf, *kshape_gf;
    long fma_iters, kshape_iters;
    int status = -1;

    memset(out, 0, sizeof *out);
    if (trials < 1 || !(trial_s > 0.0))
        return -1;
    l.fma = select_loop(&isa);
    l.kshape = select_kshape(isa);
    /* a: MR floats per k row, b: NR; 16 x 64 per row is more than any loop reads. */
    operands = malloc(sizeof(float) * PEAK_KSHAPE_ROWS * (16 + 64));
    fma_gf = malloc(sizeof(double) * (size_t)trials);
    kshape_gf = malloc(sizeof(double) * (size_t)trials);
    if (operands == NULL || fma_gf == NULL || kshape_gf == NULL)
        goto cleanup;
    /* Values that neither overflow nor go subnormal over many calls. */
    for (int i = 0; i < PEAK_KSHAPE_ROWS * (16 + 64); i++)
        operands[i] = 1e-3f;
    l.a = operands;
    l.b = operands + PEAK_KSHAPE_ROWS * 16;
    fma_iters = iters_for(trial_s, time_fma, &l);
    kshape_iters = iters_for(trial_s, time_kshape, &l);
    for (int t = 0; t < trials; t++) {
        float sink;
        double t0 = gb_now(), flops = l.fma(fma_iters, &sink), dt = gb_now() - t0;
        fma_gf[t] = dt > 0.0 ? flops / dt * 1e-9 : 0.0;
        t0 = gb_now();
        flops = l.kshape(kshape_iters, l.a, l.b, &sink);
        dt = gb_now() - t0;
        kshape_gf[t] = dt > 0.0 ? flops / dt * 1e-9 : 0.0;
        __asm__ volatile("" : : "g"(&sink) : "memory");
    }
    if (sustained_stats(fma_gf, trials, &out->fma_median, &out->fma_best) != 0 ||
        sustained_stats(kshape_gf, trials, &out->kernel_median, &out->kernel_best) != 0)
        goto cleanup;
    out->trials = trials;
    out->trial_s = trial_s;
    snprintf(out->isa, sizeof out->isa, "%s", isa);
    status = 0;
cleanup:
    free(operands);
    free(fma_gf);
    free(kshape_gf);
    return status;
}

/* Before retry number retry (from 0) of a busy-looking figure. */
static void busy_pause(int retry)
{
    const double s = PEAK_BUSY_PAUSE_S * (1 << retry);
    struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

    nanosleep(&ts, NULL);
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
        double again;
        busy_pause(retry);
        again = measure_peak_again(loop, threads);
        if (again > m->peak_gflops)
            m->peak_gflops = again;
    }
    snprintf(m->peak_isa, sizeof m->peak_isa, "%s", isa);
    /* The result file says which (machine.peak_method): a quick peak is
     * the best of fewer trials, and may be lower. */
    snprintf(m->peak_method, sizeof m->peak_method, "%s", peak_quick() ? "quick" : "full");
    /* A warning, so not silenced by --quiet (which drops the progress). */
    if (looks_busy(m, threads))
        busy_warning(stderr, m, threads);
    if (quiet)
        return;
    fprintf(stderr, "gemmbench: measured FP32 peak %.1f GFLOP/s at %d thread%s (%s FMA)\n",
            m->peak_gflops, threads, threads > 1 ? "s" : "", isa);
}

void gb_peak_settle(int threads)
{
    const char *isa;

    (void)measure_peak_now(select_loop(&isa), threads);
}

/* arch_prctl's codes for the extended states (Linux 5.16, asm/prctl.h,
 * which older headers lack) and XTILEDATA's bit in the masks they return. */
#ifndef ARCH_GET_XCOMP_SUPP
#define ARCH_GET_XCOMP_SUPP 0x1021
#endif
#ifndef ARCH_GET_XCOMP_PERM
#define ARCH_GET_XCOMP_PERM 0x1022
#endif
#define XFEATURE_XTILEDATA 18

/* info's AMX line.  AMX is not measured: its tiles need the process to
 * ask the kernel for their state (ARCH_REQ_XCOMP_PERM) and a kernel of
 * their own, so the line only says whether a later AMX peak could run:
 * the CPU's cpuid bits (leaf 7, EDX: 24 AMX-TILE, 22 AMX-BF16, 25
 * AMX-INT8), then, only where the CPU has tiles, whether the kernel
 * supports their state and whether this process already holds it. */
static void print_amx(FILE *out)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned eax, ebx, ecx, edx;

    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) || !(edx & (1u << 24))) {
        fprintf(out, "amx            not available (the CPU does not report amx_tile: cpuid "
                     "leaf 7 EDX bit 24); no AMX peak\n");
        return;
    }
    fprintf(out, "amx            the CPU reports amx_tile%s%s", edx & (1u << 22) ? ", amx_bf16" : "",
            edx & (1u << 25) ? ", amx_int8" : "");
#if defined(__x86_64__) && defined(__linux__)
    {
        unsigned long supported = 0, permitted = 0;
        const unsigned long tiles = 1ul << XFEATURE_XTILEDATA;
        int supp_ok = syscall(SYS_arch_prctl, ARCH_GET_XCOMP_SUPP, &supported) == 0;
        int perm_ok = syscall(SYS_arch_prctl, ARCH_GET_XCOMP_PERM, &permitted) == 0;
        fprintf(out, "; the kernel %s tile data", !supp_ok ? "cannot say whether it supports"
                                                  : supported & tiles ? "supports"
                                                                      : "does not support");
        if (perm_ok)
            fprintf(out, ", %s to this process", permitted & tiles
                                                     ? "granted"
                                                     : "not yet granted (ARCH_REQ_XCOMP_PERM)");
    }
#endif
    fprintf(out, "; not measured\n");
#else
    fprintf(out, "amx            not available (not an x86 CPU)\n");
#endif
}

/* GFLOP/s or GOP/s: u8s8's products are integer operations. */
static const char *dtype_unit(gb_dtype t)
{
    return gb_dtype_is_integer(t) ? "GOP/s" : "GFLOP/s";
}

/* info's line for a type other than f32, after m's f32 figures. */
static void print_dtype_peak(FILE *out, gb_machine *m, gb_dtype t, int threads)
{
    const int counts[2] = { 1, threads };
    double peaks[2];
    const char *isa, *insn;
    char name[16];

    fma_loop_fn dot = select_dtype_loop(t, &isa, &insn);
    gb_peak_dtype_for_counts(m, t, counts, threads > 1 ? 2 : 1, peaks, 1);
    if (strcmp(m->peak_dtype_isa[t], "fma_widened") == 0) {
        /* the dot-product instruction's own figure, which the FMA beat */
        fprintf(out, "%-14s %.1f %s on 1 thread (measured, %s %s loop): below the FMA on "
                     "operands widened to f32, which is bf16's peak below\n",
                "bf16 dot", measure_peak(dot, 1), dtype_unit(t), isa, insn);
        insn = "FMA, operands widened to f32,";
    }
    snprintf(name, sizeof name, "peak %s", gb_dtype_name(t));
    fprintf(out, "%-14s %.1f %s on 1 thread, %.1f %s on %d thread%s (measured, %s %s "
                 "loop; %.2fx fp32 on 1 thread)\n",
            name, m->peak_dtype_1t[t], dtype_unit(t), m->peak_dtype[t], dtype_unit(t), threads,
            threads > 1 ? "s" : "", m->peak_dtype_isa[t], insn,
            m->peak_gflops_1t > 0.0 ? m->peak_dtype_1t[t] / m->peak_gflops_1t : 0.0);
}

void gb_peak_info(FILE *out, gb_machine *m)
{
    int threads = m->affinity_cpus > 0 ? m->affinity_cpus : 1;

    gb_sustained_peak sp;

    gb_peak_for_run(m, threads, 1);
    fprintf(out, "peak fp32      %.1f GFLOP/s on 1 thread, %.1f GFLOP/s on %d thread%s "
                 "(measured, %s FMA loop)\n",
            m->peak_gflops_1t, m->peak_gflops, threads, threads > 1 ? "s" : "", m->peak_isa);
    for (int t = 0; t < GB_DTYPE_COUNT; t++)
        if (t != GB_DTYPE_F32)
            print_dtype_peak(out, m, (gb_dtype)t, threads);
    print_amx(out);
    /* quick (the tests'): a second of trials becomes a twentieth */
    if (gb_peak_sustained(peak_quick() ? PEAK_SUSTAINED_TRIALS_QUICK : PEAK_SUSTAINED_TRIALS,
                          peak_quick() ? PEAK_SUSTAINED_TRIAL_S_QUICK : PEAK_SUSTAINED_TRIAL_S,
                          &sp) == 0) {
        fprintf(out, "sustained fp32 %.1f GFLOP/s on 1 thread, FMA loop: median of %d trials "
                     "of %.0f ms (%.0f%% of the peak)\n",
                sp.fma_median, sp.trials, 1e3 * sp.trial_s,
                m->peak_gflops_1t > 0.0 ? 100.0 * sp.fma_median / m->peak_gflops_1t : 0.0);
        fprintf(out, "sustained fp32 %.1f GFLOP/s on 1 thread, micro-kernel-shaped loop (its "
                     "loads from L1): median, alternating with the FMA loop (%.0f%%)\n",
                sp.kernel_median,
                m->peak_gflops_1t > 0.0 ? 100.0 * sp.kernel_median / m->peak_gflops_1t : 0.0);
    }
}

/* The warning of a count whose peak peak_at_count found busy; type is ""
 * for FP32 or the type's name and a space. */
static void busy_count_warning(int threads, const char *type, double one_thread,
                               const char *unit)
{
    fprintf(stderr, "gemmbench: warning: %d-thread %speak is below %.0f%% of %d x the "
                    "1-thread %.1f %s; the machine looks busy\n",
            threads, type, 100.0 * PEAK_BUSY_FRACTION, threads, one_thread, unit);
}

/* The peak at one count of a thread list, retried like gb_peak_for_run's
 * when it looks busy.  Counts above the CPUs the process may use share
 * CPUs, so they are held to what those CPUs can do, not threads x 1. */
static double peak_at_count(fma_loop_fn loop, const gb_machine *m, double one_thread,
                            int threads, int *busy)
{
    int cores = threads < m->affinity_cpus ? threads : m->affinity_cpus;
    double best = measure_peak(loop, threads);

    for (int retry = 0; retry < PEAK_BUSY_RETRIES &&
                        cores > 1 && best < PEAK_BUSY_FRACTION * cores * one_thread;
         retry++) {
        double again;
        busy_pause(retry);
        again = measure_peak_again(loop, threads);
        if (again > best)
            best = again;
    }
    *busy = cores > 1 && best < PEAK_BUSY_FRACTION * cores * one_thread;
    return best;
}

void gb_peak_for_counts(gb_machine *m, const int *counts, int n, double *peaks, int quiet)
{
    const char *isa;
    fma_loop_fn loop = select_loop(&isa);
    int largest = counts[n - 1];

    /* The machine block keeps its meaning: one thread and the largest count. */
    gb_peak_for_run(m, largest, 1);
    for (int i = 0; i < n; i++) {
        int busy = 0;
        if (counts[i] == 1)
            peaks[i] = m->peak_gflops_1t;
        else if (counts[i] == largest)
            peaks[i] = m->peak_gflops;
        else
            peaks[i] = peak_at_count(loop, m, m->peak_gflops_1t, counts[i], &busy);
        if (busy)
            busy_count_warning(counts[i], "", m->peak_gflops_1t, "GFLOP/s");
        if (!quiet)
            fprintf(stderr, "gemmbench: measured FP32 peak %.1f GFLOP/s at %d thread%s (%s FMA)\n",
                    peaks[i], counts[i], counts[i] > 1 ? "s" : "", isa);
    }
}

void gb_peak_dtype_for_counts(gb_machine *m, gb_dtype t, const int *counts, int n,
                              double *peaks, int quiet)
{
    const char *isa, *insn;
    fma_loop_fn loop;

    /* f32's figures live in m's peak_gflops fields: one call can go over
     * every type. */
    if (t == GB_DTYPE_F32) {
        gb_peak_for_counts(m, counts, n, peaks, quiet);
        return;
    }
    if ((int)t < 0 || t >= GB_DTYPE_COUNT || n < 1)
        return;
    loop = select_dtype_loop(t, &isa, &insn);
    m->peak_dtype_1t[t] = measure_peak(loop, 1);
    /* bf16 x bf16 products are exact in fp32 (8-bit significands), so a
     * bf16 GEMM can run on the FMA with its operands widened: the type's
     * limit is the faster of the two (on the Xeon kind vdpbf16ps issues at
     * half the FMA's rate, and packed widens there). */
    if (t == GB_DTYPE_BF16) {
        const char *fma_isa;
        fma_loop_fn fma = select_loop(&fma_isa);
        /* the FMA loop's 1-thread figure is f32's, measured already */
        double widened = fma == fma_loop_portable ? 0.0
                         : m->peak_gflops_1t > 0.0 ? m->peak_gflops_1t
                                                   : measure_peak(fma, 1);
        if (widened > m->peak_dtype_1t[t]) {
            loop = fma;
            isa = "fma_widened";
            insn = "FMA, operands widened to f32,";
            m->peak_dtype_1t[t] = widened;
        }
    }
    for (int i = 0; i < n; i++) {
        int busy = 0;
        peaks[i] = counts[i] == 1 ? m->peak_dtype_1t[t]
                                  : peak_at_count(loop, m, m->peak_dtype_1t[t], counts[i], &busy);
        /* A warning, so not silenced by quiet, as f32's. */
        if (busy) {
            char type[16];
            snprintf(type, sizeof type, "%s ", gb_dtype_name(t));
            busy_count_warning(counts[i], type, m->peak_dtype_1t[t], dtype_unit(t));
        }
        if (!quiet)
            fprintf(stderr, "gemmbench: measured %s peak %.1f %s at %d thread%s (%s %s)\n",
                    gb_dtype_name(t), peaks[i], dtype_unit(t), counts[i],
                    counts[i] > 1 ? "s" : "", isa, insn);
    }
    m->peak_dtype[t] = peaks[n - 1];
    snprintf(m->peak_dtype_isa[t], sizeof m->peak_dtype_isa[t], "%s", isa);
}
