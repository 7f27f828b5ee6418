/*
 * test_packed_kernels.c - packed's micro-kernels called directly, one
 * instruction set at a time, against a scalar product: every entry point
 * (packed A and B, A in place, and the copy kernel), every way the copy
 * kernel reads (A packed or in place; B's L2 prefetch on or off, which
 * follows from its row stride; the copy on or off; the next micro-panel's
 * rows none, some, or all, before and past the C prefetch point), k counts
 * on both sides of that point, C stored or added to.  Inputs are small
 * integers, so every sum is exact in any order: the tile must equal the
 * reference bit for bit, the copy must equal B's rows, and nothing outside
 * the tile may change.  The whole GEMM's tests (test_packed.c) reach these
 * paths through the plans; this reaches each one on purpose.
 */
#include "test.h"

#include "packed_kernels.h"

#include <stdlib.h>

#define MAX_K 100
#define GUARD -7.0f

/* Deterministic small integers in [-4, 4]. */
static float small_int(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return (float)((int)((*state >> 16) % 9u) - 4);
}

static int checked, first_bad;
static char first_what[200];

/* The elements of C's rows 0..mr (one past the tile) and ldc columns that
 * differ from what they must be: in the tile's first cols columns, A (MR
 * rows, packed when lda is 0, else rows lda apart) times B (rows ldb
 * apart) over kc, added to before[] when accumulating; everywhere else,
 * before[] unchanged. */
static int tile_wrong(int mr, int cols, int kc, const float *a, long lda, const float *b,
                      long ldb, const float *before, const float *c, long ldc, int accumulate)
{
    int bad = 0;

    for (int i = 0; i <= mr; i++)
        for (int j = 0; j < ldc; j++) {
            float want = before[i * ldc + j];
            if (i < mr && j < cols) {
                double sum = accumulate ? want : 0.0;
                for (int k = 0; k < kc; k++)
                    sum += (double)(lda ? a[i * lda + k] : a[k * mr + i]) * b[k * ldb + j];
                want = (float)sum;
            }
            bad += c[i * ldc + j] != want;
        }
    return bad;
}

/* One call of the copy kernel (or, with plain set, of the entry point that
 * takes no prefetch arguments), checked against the reference; far: with
 * the L2 prefetch packed_b_far gives B's rows (a page apart at ldb 1100),
 * else none. */
static void check_call(const packed_isa *isa, int kc, int a_in_place, long ldb,
                       long ahead_rows, int far, int copy, int next_rows, int accumulate,
                       int plain)
{
    const int mr = isa->mr, nr = isa->nr;
    const long lda = a_in_place ? MAX_K + 3 : 0, ldc = nr + 5;
    const size_t a_len = a_in_place ? (size_t)mr * lda : (size_t)kc * mr;
    float *a = malloc(a_len * sizeof *a);
    float *b = malloc(((size_t)kc * ldb + nr) * sizeof *b);
    float *next = malloc(((size_t)kc * ldb + nr) * sizeof *next);
    float *c = malloc((size_t)(mr + 1) * ldc * sizeof *c);
    float *before = malloc((size_t)(mr + 1) * ldc * sizeof *before);
    float *cp = aligned_alloc(64, (size_t)MAX_K * nr * sizeof *cp + 64);
    unsigned state = (unsigned)(kc * 131 + ldb * 7 + next_rows * 3 + accumulate);
    int bad = 0;

    if (!a || !b || !next || !c || !before || !cp) {
        CHECK(!"allocation");
        goto out;
    }
    for (size_t i = 0; i < a_len; i++)
        a[i] = small_int(&state);
    for (size_t i = 0; i < (size_t)kc * ldb + nr; i++)
        b[i] = small_int(&state), next[i] = 0.0f;
    for (long i = 0; i < (mr + 1) * ldc; i++)
        c[i] = before[i] = (i % ldc) < nr && i / ldc < mr ? small_int(&state) : GUARD;
    for (long i = 0; i < (long)MAX_K * nr; i++)
        cp[i] = GUARD;

    if (plain && a_in_place)
        isa->kernel_a_in_place(kc, a, lda, b, ldb, c, ldc, accumulate);
    else if (plain)
        isa->kernel(kc, a, b, ldb, c, ldc, accumulate);
    else
        isa->kernel_copy_b(kc, a, lda, b, ldb, ahead_rows * ldb,
                           far ? packed_b_far(ahead_rows * ldb, ldb) : 0, copy ? cp : NULL,
                           next_rows ? next : NULL, next_rows, ldb, c, ldc, accumulate);

    bad += tile_wrong(mr, nr, kc, a, lda, b, ldb, before, c, ldc, accumulate);
    for (int k = 0; k < MAX_K; k++)
        for (int j = 0; j < nr; j++)
            bad += cp[k * nr + j] != (copy && !plain && k < kc ? b[k * ldb + j] : GUARD);
    checked++;
    if (bad && !first_bad) {
        first_bad = bad;
        snprintf(first_what, sizeof first_what,
                 "%s: %d wrong of kc %d, A %s, ldb %ld, %ld rows ahead, far %d, copy %d, "
                 "next %d, accumulate %d%s",
                 isa->name, bad, kc, a_in_place ? "in place" : "packed", ldb, ahead_rows, far, copy,
                 next_rows, accumulate, plain ? ", plain entry point" : "");
    }
out:
    free(a), free(b), free(next), free(c), free(before), free(cp);
}

/* Every combination above for one instruction set. */
static void check_isa(const packed_isa *isa)
{
    static const int kcs[] = { 1, 5, 15, 16, 17, 33, MAX_K };
    const long ldbs[] = { isa->nr, isa->nr + 13, 1100 }; /* 1100 floats: a page apart */
    static const long aheads[] = { 0, 3, PACKED_B_PREFETCH_ROWS };

    checked = first_bad = 0;
    for (size_t ki = 0; ki < sizeof kcs / sizeof kcs[0]; ki++) {
        const int kc = kcs[ki];
        const int nexts[] = { 0, 1, kc / 2, kc > 1 ? kc - 1 : 1, kc };
        for (int in_place = 0; in_place < 2; in_place++)
            for (int li = 0; li < 3; li++)
                for (int acc = 0; acc < 2; acc++) {
                    check_call(isa, kc, in_place, ldbs[li], 0, 0, 0, 0, acc, 1);
                    for (int ai = 0; ai < 3; ai++)
                        for (int copy = 0; copy < 2; copy++)
                            for (int ni = 0; ni < 5; ni++)
                                /* the L2 prefetch on and off in turn */
                                check_call(isa, kc, in_place, ldbs[li], aheads[ai],
                                           (ni + copy) % 2 == 0, copy, nexts[ni], acc, 0);
                }
    }
    CHECK(checked == 7 * 2 * 3 * 2 * (1 + 3 * 2 * 5));
    if (first_bad)
        gb_test_fail(__FILE__, __LINE__, first_what);
}

TEST(packed_kernel_exact_portable)
{
    check_isa(&packed_isa_portable);
}

TEST(packed_kernel_exact_avx2)
{
#if defined(__x86_64__)
    if (!packed_isa_avx2.cpu_runs())
        SKIP("this CPU has no AVX2+FMA");
    check_isa(&packed_isa_avx2);
#else
    SKIP("not an x86-64 build");
#endif
}

TEST(packed_kernel_exact_avx512)
{
#if defined(__x86_64__)
    if (!packed_isa_avx512.cpu_runs())
        SKIP("this CPU has no AVX-512");
    check_isa(&packed_isa_avx512);
#else
    SKIP("not an x86-64 build");
#endif
}

/* The copy-ahead kernel (kernel_copy_ahead): the tile from a packed B
 * micro-panel (rows NR apart), exact, and meanwhile rows rows of another
 * micro-panel (ld apart) copied to dst, NR floats a row: every row copied,
 * none past rows, nothing outside the tile or the rows changed; k counts on
 * both sides of C's prefetch point, rows from none to kc (every spacing the
 * kernel picks: runs of 8, 4, 2, single steps, rows past C's prefetch), A
 * packed and in place, C stored and added to. */
#if defined(__x86_64__)
static void check_ahead(const packed_isa *isa, int kc, int a_in_place, long ld, int rows,
                        int accumulate)
{
    const int mr = isa->mr, nr = isa->nr;
    const long lda = a_in_place ? MAX_K + 3 : 0, ldc = nr + 5;
    const size_t a_len = a_in_place ? (size_t)mr * lda : (size_t)kc * mr;
    float *a = malloc(a_len * sizeof *a);
    float *b = malloc((size_t)kc * nr * sizeof *b);
    float *src = malloc(((size_t)MAX_K * ld + nr) * sizeof *src);
    float *c = malloc((size_t)(mr + 1) * ldc * sizeof *c);
    float *before = malloc((size_t)(mr + 1) * ldc * sizeof *before);
    float *dst = aligned_alloc(64, (size_t)(MAX_K + 1) * nr * sizeof *dst);
    unsigned state = (unsigned)(kc * 17 + ld * 5 + rows * 3 + accumulate);
    int bad = 0;

    if (!a || !b || !src || !c || !before || !dst) {
        CHECK(!"allocation");
        goto out;
    }
    for (size_t i = 0; i < a_len; i++)
        a[i] = small_int(&state);
    for (size_t i = 0; i < (size_t)kc * nr; i++)
        b[i] = small_int(&state);
    for (size_t i = 0; i < (size_t)MAX_K * ld + nr; i++)
        src[i] = small_int(&state);
    for (long i = 0; i < (mr + 1) * ldc; i++)
        c[i] = before[i] = (i % ldc) < nr && i / ldc < mr ? small_int(&state) : GUARD;
    for (long i = 0; i < (long)(MAX_K + 1) * nr; i++)
        dst[i] = GUARD;

    isa->kernel_copy_ahead(kc, a, lda, b, src, ld, rows, dst, c, ldc, accumulate);

    bad += tile_wrong(mr, nr, kc, a, lda, b, nr, before, c, ldc, accumulate);
    for (int k = 0; k <= MAX_K; k++)
        for (int j = 0; j < nr; j++)
            bad += dst[k * nr + j] != (k < rows ? src[k * ld + j] : GUARD);
    checked++;
    if (bad && !first_bad) {
        first_bad = bad;
        snprintf(first_what, sizeof first_what,
                 "%s copy ahead: %d wrong of kc %d, A %s, ld %ld, rows %d, accumulate %d",
                 isa->name, bad, kc, a_in_place ? "in place" : "packed", ld, rows, accumulate);
    }
out:
    free(a), free(b), free(src), free(c), free(before), free(dst);
}
#endif

TEST(packed_kernel_copy_ahead_exact)
{
#if defined(__x86_64__)
    static const int kcs[] = { 1, 5, 16, 17, 33, 40, 64, MAX_K };
    const packed_isa *isa = &packed_isa_avx512;
    int cases = 0;

    if (!isa->cpu_runs())
        SKIP("this CPU has no AVX-512 (the one kernel with a copy ahead)");
    else {
        checked = first_bad = 0;
        for (size_t ki = 0; ki < sizeof kcs / sizeof kcs[0]; ki++) {
            const int kc = kcs[ki];
            const int rows_list[] = { 0, 1, 2, 3, kc / 9, kc / 5, kc / 3, kc / 2, kc - 1, kc };
            for (int ri = 0; ri < 10; ri++)
                for (int in_place = 0; in_place < 2; in_place++)
                    for (int acc = 0; acc < 2; acc++)
                        for (long ld = 48; ld <= 1100; ld += 1052) {
                            if (rows_list[ri] < 0 || rows_list[ri] > kc)
                                continue;
                            check_ahead(isa, kc, in_place, ld, rows_list[ri], acc);
                            cases++;
                        }
        }
        CHECK(checked == cases && cases > 500);
        if (first_bad)
            gb_test_fail(__FILE__, __LINE__, first_what);
    }
    /* The other kernels have none: packed keeps the first pass's copy. */
    CHECK(packed_isa_avx2.kernel_copy_ahead == NULL);
#endif
    CHECK(packed_isa_portable.kernel_copy_ahead == NULL);
}

/* The narrow kernel (kernel_narrow): the first cols columns of the tile
 * from a packed, zero-padded fringe micro-panel (rows ldb apart), exact; the
 * columns past cols and everything outside the tile untouched (a fringe
 * goes through a scratch tile whose other columns packed.c never reads,
 * but the kernel must not write what it was not asked to); the next
 * micro-panel's prefetch (none, some rows, more rows than k) changes
 * nothing; A packed and in place, C stored and added to, k counts 1-100. */
#if defined(__x86_64__)
static void check_narrow(const packed_isa *isa, int kc, int cols, int a_in_place, int next_rows,
                         int accumulate)
{
    const int mr = isa->mr, nr = isa->nr;
    const long lda = a_in_place ? MAX_K + 3 : 0, ldc = nr + 5, next_ld = 1100;
    const size_t a_len = a_in_place ? (size_t)mr * lda : (size_t)kc * mr;
    float *a = malloc(a_len * sizeof *a);
    float *b = malloc((size_t)kc * nr * sizeof *b);
    float *next = malloc(((size_t)MAX_K * next_ld + nr) * sizeof *next);
    float *c = malloc((size_t)(mr + 1) * ldc * sizeof *c);
    float *before = malloc((size_t)(mr + 1) * ldc * sizeof *before);
    unsigned state = (unsigned)(kc * 29 + cols * 5 + next_rows * 3 + accumulate);
    int bad = 0;

    if (!a || !b || !next || !c || !before) {
        CHECK(!"allocation");
        goto out;
    }
    for (size_t i = 0; i < a_len; i++)
        a[i] = small_int(&state);
    /* Packed fringe: its columns past the fringe (here past cols - 3) are
     * zeros, as pack_b pads them. */
    for (int k = 0; k < kc; k++)
        for (int j = 0; j < nr; j++)
            b[k * nr + j] = j < cols - 3 ? small_int(&state) : 0.0f;
    for (size_t i = 0; i < (size_t)MAX_K * next_ld + nr; i++)
        next[i] = 1.0f;
    for (long i = 0; i < (mr + 1) * ldc; i++)
        c[i] = before[i] = (i % ldc) < nr && i / ldc < mr ? small_int(&state) : GUARD;

    isa->kernel_narrow(kc, a, lda, b, nr, cols, next_rows ? next : NULL, next_ld, next_rows, c,
                       ldc, accumulate);

    bad += tile_wrong(mr, cols, kc, a, lda, b, nr, before, c, ldc, accumulate);
    checked++;
    if (bad && !first_bad) {
        first_bad = bad;
        snprintf(first_what, sizeof first_what,
                 "%s narrow: %d wrong of kc %d, cols %d, A %s, next rows %d, accumulate %d",
                 isa->name, bad, kc, cols, a_in_place ? "in place" : "packed", next_rows,
                 accumulate);
    }
out:
    free(a), free(b), free(next), free(c), free(before);
}
#endif

TEST(packed_kernel_narrow_exact)
{
#if defined(__x86_64__)
    static const int kcs[] = { 1, 2, 7, 16, 33, MAX_K };
    const packed_isa *isa = &packed_isa_avx512;
    int cases = 0;

    if (!isa->cpu_runs())
        SKIP("this CPU has no AVX-512 (the one kernel with a narrow tile)");
    else {
        checked = first_bad = 0;
        for (size_t ki = 0; ki < sizeof kcs / sizeof kcs[0]; ki++)
            for (int cols = 16; cols < isa->nr; cols += isa->vector_floats)
                for (int in_place = 0; in_place < 2; in_place++)
                    for (int acc = 0; acc < 2; acc++)
                        for (int next_rows = 0; next_rows <= MAX_K; next_rows += MAX_K / 2) {
                            check_narrow(isa, kcs[ki], cols, in_place, next_rows, acc);
                            cases++;
                        }
        CHECK(checked == cases && cases == 6 * 2 * 2 * 2 * 3);
        if (first_bad)
            gb_test_fail(__FILE__, __LINE__, first_what);
    }
    CHECK(packed_isa_avx2.kernel_narrow == NULL);
#endif
    CHECK(packed_isa_portable.kernel_narrow == NULL);
}

/* A fringe micro-panel packed for the narrow kernel: every n under NR, its
 * rows n rounded up to whole vectors apart, B's n columns then zeros, and
 * nothing written past kc rows of that width (the canary after them); the
 * isas without a narrow kernel have no such packing. */
TEST(packed_fringe_packed_as_narrow_as_read)
{
#if defined(__x86_64__)
    const packed_isa *isa = &packed_isa_avx512;
    static const int kcs[] = { 1, 3, 17 };
    const long ldb = 53;
    float *B = malloc(sizeof(float) * 17 * ldb), *dst = malloc(sizeof(float) * (17 * 48 + 16));
    int bad = 0, cases = 0;

    if (!isa->cpu_runs()) {
        free(B);
        free(dst);
        SKIP("this CPU has no AVX-512 (the one kernel with a narrow tile)");
    }
    CHECK(isa->pack_b_fringe != NULL && B != NULL && dst != NULL);
    for (int i = 0; B != NULL && i < 17 * ldb; i++)
        B[i] = (float)(i % 97) - 48.0f;
    for (size_t ki = 0; B && dst && isa->pack_b_fringe && ki < sizeof kcs / sizeof kcs[0]; ki++)
        for (int n = 1; n < isa->nr; n++) {
            const int kc = kcs[ki], width = (n + 15) / 16 * 16;
            for (int i = 0; i < 17 * 48 + 16; i++)
                dst[i] = -1.0f;
            isa->pack_b_fringe(kc, n, B + 2, ldb, dst);
            for (int k = 0; k < kc; k++)
                for (int j = 0; j < width; j++)
                    bad += dst[k * width + j] != (j < n ? B[2 + k * ldb + j] : 0.0f);
            bad += dst[kc * width] != -1.0f;
            cases++;
        }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(cases, 3 * 47);
    free(B);
    free(dst);
    CHECK(packed_isa_avx2.pack_b_fringe == NULL);
#endif
    CHECK(packed_isa_portable.pack_b_fringe == NULL);
}
