/* bstream.c - how fast one thread can bring B from L3 in the order packed's
 * passes read it: a micro-panel of 48 columns at a time, 192 bytes of each
 * of its kc rows, the rows N floats apart (B read in place), against the
 * same bytes packed (contiguous, as prepare() leaves them).  Nothing is
 * computed: a pass that streams B at this rate and no faster bounds what
 * a kernel reading B this way can do where B is not in L2 (the first pass
 * over a micro-panel; every pass at M = 8).  An 8-row pass at a thread's
 * peak P FLOP/s needs P / 4 bytes of B a second (16 FLOPs per 4-byte
 * element), which the table's last column compares.
 *
 *   bstream [SECONDS [THREADS]]     (default 2 s a case, 1 thread; `make
 *                                    bench-bstream` binds and runs 1 and 2)
 *
 * B is 9 MiB (768 x 3072 or 3072 x 768 int32, L3-resident after its first
 * trial, more than four times either kind's L2) and every thread reads its
 * own half of the columns, as packed's 1 x 2 grid does.  Cases (rows of
 * the table):
 *   packed-N      the thread's columns packed as prepare() leaves them:
 *                 micro-panels of K x 48 one after the other, read in order;
 *   packed-N-next the same, the next micro-panel's row prefetched into L2
 *                 with each row;
 *   rows-N        in place, rows N apart: for each block of kc rows, each
 *                 micro-panel, each row's 192 bytes; no prefetch;
 *   rows-N-pfD    the same, each row's lines also prefetched into L2 D rows
 *                 ahead (prefetcht1; packed's far prefetch is 16 rows);
 *   rows-N-next   the same, the next micro-panel's row k prefetched into L2
 *                 with row k (packed's next-panel prefetch at one pass);
 * with N 768 (qkv's and mlp_reduce's B, rows 3 KiB apart) and 3072
 * (mlp_expand's, 12 KiB: a page multiple).  Trials of one whole read each,
 * the cases alternated trial by trial, every thread between two barriers;
 * the table gives each case's median and best rate per thread in GB/s and
 * its median over packed's.  Every trial's sum of what it read is checked
 * against the exact sum (exit 1 on a difference).
 */
#define _POSIX_C_SOURCE 200809L

#if defined(__x86_64__)

#include <immintrin.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NR 48
#define ELEMS (768L * 3072L)
#define MAX_TRIALS 20000

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int32_t *fresh(size_t n)
{
    int32_t *p;
    if (posix_memalign((void **)&p, 4096, n * sizeof(int32_t)) != 0) {
        fprintf(stderr, "bstream: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++)
        p[i] = (int32_t)((i * 7) % 13);
    return p;
}

typedef struct bcase {
    const char *name;
    long n;      /* B's columns (and row stride in place) */
    int packed;  /* read the packed copy */
    int pf;      /* prefetch rows ahead into L2, 0 none */
    int next;    /* prefetch the next micro-panel's row with each row */
} bcase;

static const bcase cases[] = {
    { "packed-768", 768, 1, 0, 0 },       { "packed-768-next", 768, 1, 0, 1 },
    { "rows-768", 768, 0, 0, 0 },         { "rows-768-pf16", 768, 0, 16, 0 },
    { "rows-768-pf64", 768, 0, 64, 0 },   { "rows-768-next", 768, 0, 0, 1 },
    { "packed-3072", 3072, 1, 0, 0 },     { "packed-3072-next", 3072, 1, 0, 1 },
    { "rows-3072", 3072, 0, 0, 0 },       { "rows-3072-pf16", 3072, 0, 16, 0 },
    { "rows-3072-pf64", 3072, 0, 64, 0 }, { "rows-3072-next", 3072, 0, 0, 1 },
};
#define NCASES (int)(sizeof cases / sizeof cases[0])

/* 192 bytes at p into the three sums. */
__attribute__((target("avx512f"))) static inline void row(const int32_t *p, __m512i *s0,
                                                           __m512i *s1, __m512i *s2)
{
    *s0 = _mm512_add_epi32(*s0, _mm512_load_si512((const void *)p));
    *s1 = _mm512_add_epi32(*s1, _mm512_load_si512((const void *)(p + 16)));
    *s2 = _mm512_add_epi32(*s2, _mm512_load_si512((const void *)(p + 32)));
}

/* One thread's read of columns [j0, j1) of B (K x n, rows n apart), or of
 * their packed copy pk, in blocks of kc rows; the sum of what it read. */
__attribute__((target("avx512f"))) static int64_t read_part(const bcase *c, const int32_t *b,
                                                            const int32_t *pk, long K, long j0,
                                                            long j1, long kc)
{
    __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0;
    const long n = c->n;

    if (c->packed) {
        /* a micro-panel (K x 48) after the other; with next, the following
         * one's row prefetched with each row */
        const long count = K * (j1 - j0), panel = K * NR;
        for (long i = 0; i < count; i += NR) {
            if (c->next && i + panel < count) {
                const char *f = (const char *)(pk + i + panel);
                _mm_prefetch(f, _MM_HINT_T1);
                _mm_prefetch(f + 64, _MM_HINT_T1);
                _mm_prefetch(f + 128, _MM_HINT_T1);
            }
            row(pk + i, &s0, &s1, &s2);
        }
    } else {
        for (long k0 = 0; k0 < K; k0 += kc) {
            const long rows = K - k0 < kc ? K - k0 : kc;
            for (long j = j0; j < j1; j += NR) {
                const int32_t *p = b + k0 * n + j;
                const int32_t *nx = j + NR < j1 ? p + NR : p;
                for (long k = 0; k < rows; k++, p += n, nx += n) {
                    if (c->pf && k + c->pf < rows) {
                        const char *f = (const char *)(p + c->pf * n);
                        _mm_prefetch(f, _MM_HINT_T1);
                        _mm_prefetch(f + 64, _MM_HINT_T1);
                        _mm_prefetch(f + 128, _MM_HINT_T1);
                    }
                    if (c->next) {
                        _mm_prefetch((const char *)nx, _MM_HINT_T1);
                        _mm_prefetch((const char *)nx + 64, _MM_HINT_T1);
                        _mm_prefetch((const char *)nx + 128, _MM_HINT_T1);
                    }
                    row(p, &s0, &s1, &s2);
                }
            }
        }
    }
    s0 = _mm512_add_epi32(_mm512_add_epi32(s0, s1), s2);
    int32_t lanes[16];
    _mm512_storeu_si512((void *)lanes, s0);
    int64_t sum = 0;
    for (int i = 0; i < 16; i++)
        sum += lanes[i];
    return sum;
}

/* The exact sum of columns [j0, j1) of B. */
static int64_t exact_part(const int32_t *b, long K, long n, long j0, long j1)
{
    int64_t sum = 0;
    for (long k = 0; k < K; k++)
        for (long j = j0; j < j1; j++)
            sum += b[k * n + j];
    return sum;
}

static int cmp_double(const void *x, const void *y)
{
    const double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

int main(int argc, char **argv)
{
    const double seconds = argc > 1 ? atof(argv[1]) : 2.0;
    const int threads = argc > 2 ? atoi(argv[2]) : 1;
    if (!(seconds > 0.0) || seconds > 600.0 || threads < 1 || threads > 64) {
        fprintf(stderr, "usage: bstream [SECONDS (0-600] [THREADS (1-64)]]\n");
        return 2;
    }
    if (!__builtin_cpu_supports("avx512f")) {
        fprintf(stderr, "bstream: this CPU does not run AVX-512F; nothing measured\n");
        return 2;
    }
    omp_set_num_threads(threads);

    /* One B per shape, and per thread its columns packed. */
    int32_t *b[2] = { fresh(ELEMS), fresh(ELEMS) };
    int32_t *pk[2][64];
    int64_t want[2][64];
    const long ns[2] = { 768, 3072 };
    for (int s = 0; s < 2; s++) {
        const long n = ns[s], K = ELEMS / n;
        const long per = (n / NR + threads - 1) / threads * NR;
        for (int t = 0; t < threads; t++) {
            const long j0 = t * per < n ? t * per : n, j1 = j0 + per < n ? j0 + per : n;
            pk[s][t] = fresh((size_t)(K * (j1 - j0)) + 16);
            /* packed as prepare() does: micro-panel by micro-panel, kc = K */
            long at = 0;
            for (long j = j0; j < j1; j += NR)
                for (long k = 0; k < K; k++, at += NR)
                    memcpy(pk[s][t] + at, b[s] + k * n + j, NR * sizeof(int32_t));
            want[s][t] = exact_part(b[s], K, n, j0, j1);
        }
    }

    static double rate[NCASES][MAX_TRIALS];
    int trials[NCASES] = { 0 };
    int bad = 0;
    double spent = 0.0;
    const double budget = seconds * NCASES;
    while (spent < budget) {
        int done = 1;
        for (int ci = 0; ci < NCASES; ci++) {
            const bcase *c = &cases[ci];
            const int s = c->n == 768 ? 0 : 1;
            const long n = c->n, K = ELEMS / n;
            /* kc as packed takes it: 768 rows (N = 3072 at M >= 40, every
             * block at N = 768) */
            const long kc = 768;
            const long per = (n / NR + threads - 1) / threads * NR;
            double t0 = 0.0, t1 = 0.0;
            if (trials[ci] >= MAX_TRIALS)
                continue;
            done = 0;
#pragma omp parallel reduction(+ : bad)
            {
                const int t = omp_get_thread_num();
                const long j0 = t * per < n ? t * per : n, j1 = j0 + per < n ? j0 + per : n;
#pragma omp barrier
#pragma omp master
                t0 = now();
                int64_t got = read_part(c, b[s], pk[s][t], K, j0, j1, kc);
#pragma omp barrier
#pragma omp master
                t1 = now();
                if (got != want[s][t])
                    bad++;
            }
            /* all of B, shared by the threads: each one's average rate */
            const double bytes = (double)K * (double)n * sizeof(int32_t) / threads;
            rate[ci][trials[ci]++] = bytes / (t1 - t0) / 1e9;
            spent += t1 - t0;
        }
        if (done)
            break;
    }
    if (bad) {
        fprintf(stderr, "bstream: %d trials read a sum other than the exact one\n", bad);
        return 1;
    }

    printf("# bstream: B from L3 in packed's order, %d thread(s), GB/s per thread\n", threads);
    printf("%-16s %7s %9s %9s %9s\n", "case", "trials", "median", "best", "x packed");
    double base = 0.0;
    for (int ci = 0; ci < NCASES; ci++) {
        const int nt = trials[ci];
        qsort(rate[ci], (size_t)nt, sizeof(double), cmp_double);
        const double med = nt % 2 ? rate[ci][nt / 2]
                                  : 0.5 * (rate[ci][nt / 2 - 1] + rate[ci][nt / 2]);
        if (cases[ci].packed && !cases[ci].next)
            base = med;
        printf("%-16s %7d %9.1f %9.1f %9.3f\n", cases[ci].name, nt, med, rate[ci][nt - 1],
               med / base);
    }
    return 0;
}

#else

#include <stdio.h>

int main(void)
{
    fprintf(stderr, "bstream: its reads are x86-64's AVX-512; nothing measured\n");
    return 2;
}

#endif
