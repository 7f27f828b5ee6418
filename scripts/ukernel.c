/* ukernel.c - the packed schedule's AVX-512 f32 micro-kernel alone, on data
 * held in one cache level, against an FMA loop of the kernel's own shape
 * (24 accumulators, 3 loads and 8 broadcasts per 24 FMAs, operands in L1)
 * timed in the same process, interleaved.  It answers how much of the peak
 * the kernel's instruction stream gets when nothing around it (packing,
 * edges, the loops, memory) costs anything, and what reading A or B in
 * place rather than packed costs it.
 *
 *   ukernel [SECONDS [THREADS]]     (default 3 s a case, 1 thread; `make
 *                                    bench-ukernel` binds and runs 1 and 2)
 *
 * Cases (rows of the table): tiles of 8 x 48, repeated, on
 *   l1           kc 128, A and B packed: 4 KiB and 24 KiB, in L1;
 *   l2-ir        kc 768, one packed A micro-panel (24 KiB, L1) against 5
 *                packed B micro-panels (720 KiB, L2): the prepacked order;
 *   l2-jr        kc 768, one packed B micro-panel (144 KiB, L2) against 16
 *                packed A micro-panels (384 KiB, L2): the in-place order;
 *   l2-jr-a768   the same, A read in place (rows 768 floats apart);
 *   l2-jr-b768   the same, B read in place (rows 768 floats apart: qkv's
 *                and mlp_reduce's B);
 *   l2-jr-b784   rows 784 floats apart: a line further per row, so the
 *                rows' lines spread over the cache sets that 768 (3 KiB)
 *                puts them into 4 groups of;
 *   l2-jr-ab768  both in place;
 *   l2-jr-a3072  A in place, rows 3072 floats apart (mlp_reduce's A, K =
 *                3072): 12 KiB, so the eight rows' lines at one k share
 *                one L1d set;
 *   l2-jr-a3072-b768  that A and B in place 768 apart: mlp_reduce's pair;
 *   l2-jr-b3072  B in place, rows 3072 floats apart (mlp_expand's B): 12 KiB,
 *                a multiple of the page, so every row's lines fall into
 *                the same sets of a cache indexed by the page offset (the
 *                L1d), and of one indexed by the physical address (L2)
 *                where the pages are contiguous;
 *   l2-jr-b3088  rows 3088 floats apart: each row on a page of its own as
 *                at 3072, its lines in other sets: what 3072 loses here
 *                is the sets', not the pages' (the TLB's);
 *   cp-b3072     B as l2-jr-b3072, read by packed's copy kernel with the
 *                prefetches packed gives such a B (none into L1, 16 rows
 *                ahead into L2), copying nothing;
 *   cp-b3088     the same at 3088;
 * each timed in trials of about 2 ms, every thread on its own operands
 * between two barriers, alternated with the shaped loop; the table gives
 * the median and best trial of each in GFLOP/s (all threads) and the
 * kernel's median over the loop's.  Each case's first tile is then checked
 * against an exact scalar sum (exit 1 on a difference).  Linked against
 * libgemmbench.a: the kernel measured is the one packed runs.
 */
#define _POSIX_C_SOURCE 200809L
#include "packed_kernels.h"

#if defined(__x86_64__)

#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MR 8
#define NR 48
#define TRIAL_S 0.002

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static float *fresh(size_t n)
{
    float *p;
    if (posix_memalign((void **)&p, 64, n * sizeof(float)) != 0) {
        fprintf(stderr, "ukernel: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++)
        p[i] = (float)((i * 7) % 13) * 0.125f - 0.75f;
    return p;
}

/* The shaped loop: packed.c's kernel without its prefetches, C traffic,
 * pointer updates from memory or calls: per k 3 loads of b, 8 broadcasts
 * of a, 24 FMAs into 24 accumulators, over 64 k rows (14 KiB, L1) per
 * pass.  (Written in C, with a test per k for the wrap, it ran 3-4 %
 * slower than this on the Zen 5 kind.) */
#define ROW(a, r0, r1, r2)                                                     \
    "vbroadcastss " a ", %%zmm27\n\t"                                          \
    "vfmadd231ps %%zmm24, %%zmm27, %%zmm" #r0 "\n\t"                          \
    "vfmadd231ps %%zmm25, %%zmm27, %%zmm" #r1 "\n\t"                          \
    "vfmadd231ps %%zmm26, %%zmm27, %%zmm" #r2 "\n\t"
__attribute__((target("avx512f"))) static double shaped(long iters, const float *a0,
                                                        const float *b0, float *sink)
{
    for (long it = 0; it < iters; it++) {
        const float *a = a0, *b = b0;
        long n = 64;
        __asm__ volatile("1:\n\t"
                         "vmovups (%[b]), %%zmm24\n\t"
                         "vmovups 64(%[b]), %%zmm25\n\t"
                         "vmovups 128(%[b]), %%zmm26\n\t"
                         ROW("(%[a])", 0, 1, 2) ROW("4(%[a])", 3, 4, 5)
                         ROW("8(%[a])", 6, 7, 8) ROW("12(%[a])", 9, 10, 11)
                         ROW("16(%[a])", 12, 13, 14) ROW("20(%[a])", 15, 16, 17)
                         ROW("24(%[a])", 18, 19, 20) ROW("28(%[a])", 21, 22, 23)
                         "add $32, %[a]\n\t"
                         "add $192, %[b]\n\t"
                         "dec %[n]\n\t"
                         "jnz 1b\n\t"
                         : [a] "+r"(a), [b] "+r"(b), [n] "+r"(n)
                         :
                         : "zmm0", "zmm1", "zmm2", "zmm3", "zmm4", "zmm5", "zmm6", "zmm7",
                           "zmm8", "zmm9", "zmm10", "zmm11", "zmm12", "zmm13", "zmm14",
                           "zmm15", "zmm16", "zmm17", "zmm18", "zmm19", "zmm20", "zmm21",
                           "zmm22", "zmm23", "zmm24", "zmm25", "zmm26", "zmm27", "cc",
                           "memory");
    }
    *sink += a0[0];
    return 2.0 * 16 * 24 * 64 * (double)iters;
}

typedef struct kcase {
    const char *name;
    int kc, na, nb;    /* k depth, A and B micro-panels */
    long lda;          /* A's rows: 0 packed (MR floats per k), else in place */
    long ldb;          /* B's rows: 0 packed (NR apart), else in place */
    int copy_kernel;   /* packed's copy kernel, prefetching as packed does
                        * for B rows a page apart (none into L1, L2 16 rows
                        * ahead), copying nothing; A packed */
} kcase;

/* The tile of case k: C (+)= A micro-panel . B micro-panel. */
static void tile(const packed_isa *isa, const kcase *k, const float *a, long lda,
                 const float *b, long ldb, float *c, long ldc)
{
    if (k->copy_kernel)
        isa->kernel_copy_b(k->kc, a, 0, b, ldb, 0, packed_b_far(0, ldb), NULL, NULL, 0, ldb, c,
                           ldc, 0);
    else if (k->lda)
        isa->kernel_a_in_place(k->kc, a, lda, b, ldb, c, ldc, 0);
    else
        isa->kernel(k->kc, a, b, ldb, c, ldc, 0);
}

/* One pass of a case: every (A, B) micro-panel pair's tile, in the order
 * that keeps the single operand in L1 (A's when na = 1, else B's). */
static double pass(const packed_isa *isa, const kcase *k, const float *A, long lda,
                   const float *B, float *C)
{
    for (int jb = 0; jb < k->nb; jb++)
        for (int ia = 0; ia < k->na; ia++) {
            float *c = C + (size_t)ia * MR * (k->nb * NR) + (size_t)jb * NR;
            const float *b = k->ldb ? B + (size_t)jb * NR : B + (size_t)jb * k->kc * NR;
            const long ldb = k->ldb ? k->ldb : NR;
            tile(isa, k, k->lda ? A + (size_t)ia * MR * lda : A + (size_t)ia * MR * k->kc,
                 lda, b, ldb, c, k->nb * NR);
        }
    return 2.0 * MR * NR * k->kc * (double)k->na * k->nb;
}

/* The case's first tile once more, against a scalar sum: exact, since
 * fresh()'s values are eighths under 1 and K <= 768 keeps every partial sum
 * an integer number of 64ths under 2^24 of them.  Returns the mismatches. */
static int verify(const packed_isa *isa, const kcase *k, const float *A, long lda,
                  const float *B, float *C)
{
    const long ldc = (long)k->nb * NR, ldb = k->ldb ? k->ldb : NR;
    int bad = 0;
    memset(C, 0, sizeof(float) * MR * ldc);
    tile(isa, k, A, lda, B, ldb, C, ldc);
    for (int i = 0; i < MR; i++)
        for (int j = 0; j < NR; j++) {
            double sum = 0;
            for (int kk = 0; kk < k->kc; kk++)
                sum += (double)(k->lda ? A[i * lda + kk] : A[kk * MR + i]) *
                       (double)B[kk * ldb + j];
            bad += (double)C[i * ldc + j] != sum;
        }
    return bad;
}

static int cmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* One thread's operands, big enough for every case. */
typedef struct operands {
    float *A, *B, *C;
} operands;

#define MAX_LD 3088
#define MAX_LDA 3072

int main(int argc, char **argv)
{
    const double seconds = argc > 1 ? atof(argv[1]) : 3.0;
    const int threads = argc > 2 ? atoi(argv[2]) : 1;
    const packed_isa *isa = &packed_isa_avx512;
    if (seconds <= 0 || threads < 1 || threads > 64) {
        fprintf(stderr, "usage: ukernel [SECONDS [THREADS]]\n");
        return 2;
    }
    if (!isa->cpu_runs()) {
        fprintf(stderr, "ukernel: this CPU does not run AVX-512F; nothing measured\n");
        return 2;
    }
    static const kcase cases[] = {
        { "l1", 128, 1, 1, 0, 0, 0 },
        { "l2-ir", 768, 1, 5, 0, 0, 0 },
        { "l2-jr", 768, 16, 1, 0, 0, 0 },
        { "l2-jr-a768", 768, 16, 1, 768, 0, 0 },
        { "l2-jr-b768", 768, 16, 1, 0, 768, 0 },
        { "l2-jr-b784", 768, 16, 1, 0, 784, 0 },
        { "l2-jr-ab768", 768, 16, 1, 768, 768, 0 },
        { "l2-jr-a3072", 768, 16, 1, 3072, 0, 0 },
        { "l2-jr-a3072-b768", 768, 16, 1, 3072, 768, 0 },
        { "l2-jr-b3072", 768, 16, 1, 0, 3072, 0 },
        { "l2-jr-b3088", 768, 16, 1, 0, 3088, 0 },
        { "cp-b3072", 768, 16, 1, 0, 3072, 1 },
        { "cp-b3088", 768, 16, 1, 0, 3088, 1 },
    };
    const int ncases = (int)(sizeof cases / sizeof cases[0]);
    operands ops[64];
    float *la = fresh(64 * 8), *lb = fresh(64 * 48);
    float sink = 0;

    omp_set_num_threads(threads);
#pragma omp parallel
    {
        /* First touch by the thread that uses them. */
        operands *o = &ops[omp_get_thread_num()];
        o->A = fresh((size_t)16 * MR * MAX_LDA);
        o->B = fresh((size_t)768 * MAX_LD);
        o->C = fresh((size_t)16 * MR * 5 * NR);
    }
    printf("%-16s %9s %9s %9s %9s %7s   (GFLOP/s, %d thread%s, %.1f s a case)\n", "case",
           "kern_med", "kern_best", "loop_med", "loop_best", "k/loop", threads,
           threads > 1 ? "s" : "", seconds);
    for (int ci = 0; ci < ncases; ci++) {
        const kcase *k = &cases[ci];
        const long lda = k->lda;
        /* Passes and loop iterations of about TRIAL_S each. */
        long passes, iters = 20;
        double t0 = now();
        pass(isa, k, ops[0].A, lda, ops[0].B, ops[0].C);
        double per_pass = now() - t0;
        passes = (long)(TRIAL_S / (per_pass > 1e-7 ? per_pass : 1e-7)) + 1;
        t0 = now();
        shaped(iters, la, lb, &sink);
        iters = (long)(iters * TRIAL_S / (now() - t0)) + 1;
        const int trials = (int)(seconds / (2 * TRIAL_S)) + 1;
        double *gk = malloc(sizeof(double) * trials), *gl = malloc(sizeof(double) * trials);
        if (!gk || !gl) {
            fprintf(stderr, "ukernel: out of memory\n");
            return 1;
        }
        /* Every thread runs each trial between two barriers; a trial's
         * rate is all threads' flops over the slowest one's span. */
        double start = 0, fl_k = 0, fl_l = 0;
#pragma omp parallel reduction(+ : sink)
        {
            operands *o = &ops[omp_get_thread_num()];
            float *pa = fresh(64 * 8), *pb = fresh(64 * 48);
            for (int t = 0; t < trials; t++) {
                double fl = 0;
#pragma omp barrier
#pragma omp single
                {
                    start = now();
                    fl_k = fl_l = 0;
                }
                for (long p = 0; p < passes; p++)
                    fl += pass(isa, k, o->A, lda, o->B, o->C);
#pragma omp atomic
                fl_k += fl;
#pragma omp barrier
#pragma omp single
                {
                    gk[t] = fl_k / (now() - start) * 1e-9;
                    start = now();
                }
                fl = shaped(iters, pa, pb, &sink);
#pragma omp atomic
                fl_l += fl;
#pragma omp barrier
#pragma omp single
                gl[t] = fl_l / (now() - start) * 1e-9;
            }
            free(pa), free(pb);
        }
        const int bad = verify(isa, k, ops[0].A, lda, ops[0].B, ops[0].C);
        if (bad) {
            fprintf(stderr, "ukernel: case %s: %d of %d elements of the tile differ from the "
                    "exact sum\n", k->name, bad, MR * NR);
            return 1;
        }
        qsort(gk, trials, sizeof(double), cmp);
        qsort(gl, trials, sizeof(double), cmp);
        printf("%-16s %9.1f %9.1f %9.1f %9.1f %7.3f\n", k->name, gk[trials / 2],
               gk[trials - 1], gl[trials / 2], gl[trials - 1], gk[trials / 2] / gl[trials / 2]);
        free(gk);
        free(gl);
    }
    if (sink == 12345.0f)
        printf("\n");
    for (int t = 0; t < threads; t++)
        free(ops[t].A), free(ops[t].B), free(ops[t].C);
    free(la), free(lb);
    return 0;
}

#else
#include <stdio.h>

int main(void)
{
    fprintf(stderr, "ukernel: the AVX-512 micro-kernel is x86-64's; nothing measured\n");
    return 2;
}
#endif
