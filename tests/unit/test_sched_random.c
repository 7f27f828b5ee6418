/* test_sched_random.c - schedules nobody wrote by hand (40 in make test,
 * 200 more in make test-slow): random statements
 * (split, tile, reorder, fuse, parallel, vectorize, unroll, cache_write,
 * pack) kept when the checker takes them, each schedule lowered for an
 * awkward shape (dimensions from 1, 7, 17, 33, 100: multiples of no tile),
 * compiled (all kernels in one file, one compiler run) and verified exactly
 * against the reference with padded leading dimensions, on 1 or 2 threads. */
#define _POSIX_C_SOURCE 200809L
#include "test.h"
#include "sched_lang.h"
#include "sched_build.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* make test draws 40 (a compile of about 4 s); make test-slow 200 more. */
#define NSCHEDULES_FAST 40
#define NSCHEDULES_SLOW 200

static unsigned long long rng_state = 0x9e3779b97f4a7c15ULL;

static unsigned rnd(unsigned n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned)(rng_state % n);
}

static int legal(const char *file, const char *text, gb_sched *out)
{
    char err[512];

    return gb_sched_from_text(file, text, strlen(text), out, err, sizeof err) == 0;
}

static const char *live(const gb_sched *s)
{
    return s->loops[s->order[rnd((unsigned)s->norder)]].name;
}

/* One random statement about the nest s, with fresh names from *fresh. */
static void random_statement(const gb_sched *s, int *fresh, char *out, size_t len)
{
    static const int factors[] = { 1, 2, 3, 4, 5, 8, 16, 33, 48 };
    const int f1 = factors[rnd(9)], f2 = factors[rnd(9)], n = (*fresh += 4);

    switch (rnd(12)) {
    case 0:
    case 1:
        snprintf(out, len, "split %s %d -> n%d n%d\n", live(s), f1, n, n + 1);
        break;
    case 2:
        snprintf(out, len, "tile %s %s %d %d -> n%d n%d n%d n%d\n", live(s), live(s), f1, f2, n,
                 n + 1, n + 2, n + 3);
        break;
    case 3: {
        size_t used = (size_t)snprintf(out, len, "reorder");
        int count = 2 + (int)rnd(3);
        for (int i = 0; i < count; i++)
            used += (size_t)snprintf(out + used, len - used, " %s", live(s));
        snprintf(out + used, len - used, "\n");
        break;
    }
    case 4: {
        int p = (int)rnd((unsigned)s->norder);
        snprintf(out, len, "fuse %s %s -> n%d\n", s->loops[s->order[p]].name,
                 s->loops[s->order[p + 1 < s->norder ? p + 1 : p]].name, n);
        break;
    }
    case 5:
        snprintf(out, len, "parallel %s\n", live(s));
        break;
    case 6:
        snprintf(out, len, "vectorize %s\n", live(s));
        break;
    case 7:
        if (rnd(2))
            snprintf(out, len, "unroll %s\n", live(s));
        else
            snprintf(out, len, "unroll %s %d\n", live(s), 1 + (int)rnd(8));
        break;
    case 8:
        snprintf(out, len, "cache_write C at %s\n", live(s));
        break;
    case 9:
        if (rnd(2))
            snprintf(out, len, "prefetch %c at %s\n", "ABC"[rnd(3)], live(s));
        else
            snprintf(out, len, "prefetch %c at %s %d\n", "ABC"[rnd(3)], live(s), 1 + (int)rnd(20));
        break;
    default:
        snprintf(out, len, "pack %c at %s%s\n", rnd(2) ? 'B' : 'A', rnd(3) ? live(s) : "root",
                 rnd(3) ? "" : " fused");
        break;
    }
}

typedef struct one_case {
    char text[2048];
    int M, N, K, threads;
    long scratch;
} one_case;

static long verify(gb_kernel_fn fn, const one_case *c)
{
    const int pad = 3, lda = c->K + pad, ldb = c->N + pad, ldc = c->N + pad;
    float *A = malloc(sizeof(float) * (size_t)c->M * lda);
    float *B = malloc(sizeof(float) * (size_t)c->K * ldb);
    float *C = malloc(sizeof(float) * (size_t)c->M * ldc);
    float *scratch = c->scratch > 0 ? malloc(sizeof(float) * (size_t)c->scratch) : NULL;
    gb_params none = { 0 };
    gb_ctx ctx = { c->threads, &none, scratch, NULL, 0 };
    long bad = 0;

    if (A == NULL || B == NULL || C == NULL || (c->scratch > 0 && scratch == NULL)) {
        bad = -1;
        goto out;
    }
    for (int i = 0; i < c->M * lda; i++)
        A[i] = (float)((int)rnd(5) - 2);
    for (int i = 0; i < c->K * ldb; i++)
        B[i] = (float)((int)rnd(5) - 2);
    for (int i = 0; i < c->M * ldc; i++)
        C[i] = 777.0f;
    if (fn(c->M, c->N, c->K, A, lda, B, ldb, C, ldc, &ctx) != 0) {
        bad = -1;
        goto out;
    }
    for (int i = 0; i < c->M; i++) {
        for (int j = 0; j < c->N; j++) {
            float ref = 0.0f;
            for (int k = 0; k < c->K; k++)
                ref += A[(size_t)i * lda + k] * B[(size_t)k * ldb + j];
            bad += C[(size_t)i * ldc + j] != ref;
        }
        for (int j = c->N; j < ldc; j++) /* the padding is never written */
            bad += C[(size_t)i * ldc + j] != 777.0f;
    }
out:
    free(A), free(B), free(C), free(scratch);
    return bad;
}

/* Appends text to the growing source (*buf, *cap, *used): 0, or -1 out
 * of memory (the buffer is then freed). */
static int append_source(char **buf, size_t *cap, size_t *used, const char *text)
{
    size_t n = strlen(text);

    while (*used + n + 1 > *cap) {
        char *grown = realloc(*buf, *cap *= 2);
        if (grown == NULL) {
            free(*buf);
            *buf = NULL;
            return -1;
        }
        *buf = grown;
    }
    memcpy(*buf + *used, text, n + 1);
    *used += n;
    return 0;
}

/* Lowers the planned nest pl as symbol and appends it to the source:
 * 0, or -1 (out of memory, recorded as a failure).  Frees pl. */
static int add_kernel(gb_sched_plan *pl, const char *symbol, char **source, size_t *cap,
                      size_t *used)
{
    char *kernel = gb_sched_lower(pl, symbol);
    int rc = kernel ? append_source(source, cap, used, kernel) : -1;

    free(kernel);
    gb_sched_plan_free(pl);
    CHECK(rc == 0);
    return rc;
}

/* Compiles every kernel collected in source (freed here) with one compiler
 * run: 1 built into *so, 0 no C compiler (the caller skips), -1 failed
 * (recorded). */
static int build_kernels(char *source, gb_sched_so *so)
{
    char err[512];
    int rc = gb_sched_build(source, NULL, so, err, sizeof err);

    free(source);
    if (rc == 0)
        return 1;
    if (strncmp(err, "CC '", 4) == 0)
        return 0;
    gb_test_fail(__FILE__, __LINE__, err);
    return -1;
}

static void check_random_schedules(int NSCHEDULES, unsigned long long seed)
{
    static one_case cases[NSCHEDULES_SLOW];
    static const int dims[] = { 1, 7, 17, 33, 100 };
    static gb_sched nest;
    size_t cap = 1 << 20, used = 0;
    char *source = malloc(cap), err[512];
    int rejected = 0, statements = 0;
    gb_sched_so so;

    CHECK(source != NULL);
    if (source == NULL)
        return;
    rng_state = seed;
    source[0] = '\0';
    for (int n = 0; n < NSCHEDULES; n++) {
        one_case *c = &cases[n];
        int fresh = 0, kept = 0;
        gb_sched_plan *pl = NULL;
        gb_params none = { 0 };
        c->text[0] = '\0';
        c->M = dims[rnd(5)], c->N = dims[rnd(5)], c->K = dims[rnd(5)];
        c->threads = 1 + (int)rnd(2);
        legal("r.sched", "", &nest);
        for (int attempt = 0; attempt < 40 && kept < 7; attempt++) {
            char stmt[256], trial[2048];
            random_statement(&nest, &fresh, stmt, sizeof stmt);
            snprintf(trial, sizeof trial, "%s%s", c->text, stmt);
            /* legal, and within the per-shape limits (a prefetch's box) */
            gb_sched_plan *probe = NULL;
            if (legal("r.sched", trial, &nest) &&
                (probe = gb_sched_plan_new(&nest, &none, c->M, c->N, c->K, err, sizeof err))) {
                gb_sched_plan_free(probe);
                strcpy(c->text, trial);
                kept++;
            } else {
                rejected++;
                legal("r.sched", c->text, &nest);
            }
        }
        statements += kept;
        if (!legal("r.sched", c->text, &nest) ||
            (pl = gb_sched_plan_new(&nest, &none, c->M, c->N, c->K, err, sizeof err)) == NULL) {
            gb_test_fail(__FILE__, __LINE__, c->text);
            continue;
        }
        c->scratch = gb_sched_scratch_floats(pl, c->threads);
        char symbol[32];
        snprintf(symbol, sizeof symbol, "kernel_%d", n);
        if (add_kernel(pl, symbol, &source, &cap, &used) != 0)
            return;
    }
    /* most statements drawn are legal; the checker refuses the rest */
    CHECK(statements > NSCHEDULES * 3);
    CHECK(rejected > 0);
    switch (build_kernels(source, &so)) {
    case 0:
        SKIP("no C compiler");
    case -1:
        return;
    }
    for (int n = 0; n < NSCHEDULES; n++) {
        char symbol[32];
        gb_kernel_fn fn;
        long bad;
        snprintf(symbol, sizeof symbol, "kernel_%d", n);
        *(void **)&fn = dlsym(so.handle, symbol);
        CHECK(fn != NULL);
        if (fn == NULL)
            continue;
        bad = verify(fn, &cases[n]);
        if (bad != 0) {
            char msg[2600];
            snprintf(msg, sizeof msg, "M=%d N=%d K=%d threads=%d: %ld wrong (-1: did not run) "
                     "for\n%s", cases[n].M, cases[n].N, cases[n].K, cases[n].threads, bad,
                     cases[n].text);
            gb_test_fail(__FILE__, __LINE__, msg);
        }
    }
    gb_sched_so_close(&so);
}

TEST(sched_random_legal_schedules_are_exact)
{
    check_random_schedules(NSCHEDULES_FAST, 0x9e3779b97f4a7c15ULL);
}

TEST_SLOW(sched_random_legal_schedules_200_more)
{
    check_random_schedules(NSCHEDULES_SLOW, 0x2545f4914f6cdd1dULL);
}

/* Every schedule that ships in schedules/ (the hand-written variants'
 * twins), on shapes whose dimensions are 1, 7, 33, 100 and 383 in turn, on 1
 * and 2 threads: exact.  One compiler run for all of them. */
TEST(sched_shipped_schedules_are_exact)
{
    static const int shapes[][3] = { /* M, N, K */
        { 1, 7, 33 }, { 7, 33, 100 }, { 33, 100, 383 }, { 100, 383, 1 }, { 383, 1, 7 },
    };
    static const char *const names[] = {
        "k4", "k8", "k16", "k32", "k64", "vec_j", "parallel", "parallel_vec_j", "vec_j_k16",
        "full", "tvm_blocking", "tvm_vectorize", "tvm_permute", "tvm_packing",
        "tvm_cache_write", "tvm_parallel", "rule_based", "packed",
    };
    enum { NNAMES = sizeof names / sizeof names[0], NSHAPES = sizeof shapes / sizeof shapes[0] };
    static one_case cases[NNAMES][NSHAPES];
    static gb_sched nest;
    size_t cap = 1 << 20, used = 0;
    char *source = malloc(cap), err[512];
    gb_sched_so so;

    CHECK(source != NULL);
    if (source == NULL)
        return;
    for (int n = 0; n < NNAMES; n++) {
        char path[128];
        snprintf(path, sizeof path, "schedules/%s.sched", names[n]);
        if (gb_sched_load(path, &nest, NULL, err, sizeof err) != 0) {
            gb_test_fail(__FILE__, __LINE__, err);
            continue;
        }
        for (int s = 0; s < NSHAPES; s++) {
            one_case *c = &cases[n][s];
            gb_sched_plan *pl;
            gb_params none = { 0 };
            char symbol[64];
            c->M = shapes[s][0], c->N = shapes[s][1], c->K = shapes[s][2];
            c->threads = 2;
            snprintf(c->text, sizeof c->text, "%s", path);
            pl = gb_sched_plan_new(&nest, &none, c->M, c->N, c->K, err, sizeof err);
            CHECK(pl != NULL);
            if (pl == NULL)
                return;
            c->scratch = gb_sched_scratch_floats(pl, 2);
            snprintf(symbol, sizeof symbol, "twin_%d_%d", n, s);
            if (add_kernel(pl, symbol, &source, &cap, &used) != 0)
                return;
        }
    }
    switch (build_kernels(source, &so)) {
    case 0:
        SKIP("no C compiler");
    case -1:
        return;
    }
    for (int n = 0; n < NNAMES; n++)
        for (int s = 0; s < NSHAPES; s++)
            for (int threads = 1; threads <= 2; threads++) {
                one_case *c = &cases[n][s];
                char symbol[64];
                gb_kernel_fn fn;
                long bad;
                snprintf(symbol, sizeof symbol, "twin_%d_%d", n, s);
                *(void **)&fn = dlsym(so.handle, symbol);
                if (fn == NULL)
                    continue; /* its load failed above */
                c->threads = threads;
                bad = verify(fn, c);
                if (bad != 0) {
                    char msg[256];
                    snprintf(msg, sizeof msg, "%s M=%d N=%d K=%d threads=%d: %ld wrong",
                             c->text, c->M, c->N, c->K, threads, bad);
                    gb_test_fail(__FILE__, __LINE__, msg);
                }
            }
    gb_sched_so_close(&so);
}

/* The BLIS nests (texts 3 to NT - 2) on two shapes only, one of whole
 * blocks and one of tails: their 8 x 48 blocks, twice over where a pack is
 * fused, are most of the compiler's time (13 s on all five shapes). */
static int row_shape_used(int n, int nt, int s)
{
    return n < 3 || n == nt - 1 || s == 1 || s == 2;
}

/* Row blocks (SCHED.md, "Lowering"): an unrolled i loop between the k run
 * and the vectorized loop holds rows x lanes sums in registers.  Each nest
 * on shapes where the block holds and where a tail makes it fall back to
 * the memory form, with the local tile and packs around it, on 1 and 2
 * threads: exact, and the block is used where it should be. */
TEST(sched_row_blocks_are_exact)
{
    static const char *const texts[] = {
        /* the micro-kernel: rows inside the k step, B's strip outside them */
        "split i 48 -> io ii\nsplit j 64 -> jo ji\nsplit k 256 -> ko ki\n"
        "split ii 6 -> ir_o ir\nsplit ji 32 -> jv jl\n"
        "reorder io jo ko ir_o jv ki ir jl\nfuse io jo -> t\nparallel t\n"
        "vectorize jl\nunroll ir\n",
        /* a local C tile and B packed per k step around it */
        "split i 16 -> io ii\nsplit j 32 -> jo ji\nsplit k 8 -> ko ki\n"
        "split ii 4 -> ir_o ir\nsplit ji 16 -> jv jl\n"
        "reorder io jo ko ir_o jv ki ir jl\nparallel io\nvectorize jl\nunroll ir\n"
        "cache_write C at jo\npack B at ko\n",
        /* the k loops split twice, eight rows of sixteen lanes, A packed */
        "split i 8 -> io ir\nsplit j 16 -> jo jl\nsplit k 32 -> k1 k2\nsplit k2 4 -> k3 k4\n"
        "reorder jo io k1 k3 k4 ir jl\nparallel jo\nvectorize jl\nunroll ir\nunroll k4\n"
        "pack A at io\n",
        /* BLIS's loops: B packed at pc by the team in micro-panels
         * [jr][kk][48], A per thread at ic, an 8 x 48 block, prefetches */
        "split j 96 -> jc jn\nsplit k 40 -> pc kk\nsplit i 24 -> ic im\n"
        "split jn 48 -> jr jv\nsplit im 8 -> ir ii\n"
        "reorder jc pc ic jr ir kk ii jv\nvectorize jv\nunroll ii\nparallel ic\n"
        "pack B at pc\npack A at ic\nprefetch B at kk 4\nprefetch A at kk 8\n"
        "prefetch C at ir\n",
        /* in place, C's init folded into a run below two k loops */
        "split k 16 -> k1 k2\nsplit k2 4 -> k3 k4\nsplit j 48 -> jr jv\nsplit i 8 -> ir ii\n"
        "reorder jr k1 ir k3 k4 ii jv\nvectorize jv\nunroll ii\nparallel jr\n"
        "prefetch B at k4 2\nprefetch C at ii\n",
        /* B's micro-panel copied by the first ir pass that reads it */
        "split k 40 -> pc kk\nsplit j 48 -> jr jv\nsplit i 8 -> ir ii\n"
        "reorder jr pc ir kk ii jv\nvectorize jv\nunroll ii\nparallel jr\n"
        "pack B at pc fused\nprefetch B at kk 8\n",
        /* B's block copied by the first A micro-panel's pass over it (ir
         * outside jr): the pass is ir, the copy made where ic and ir are 0 */
        "split j 96 -> jc jn\nsplit k 40 -> pc kk\nsplit i 16 -> ic im\n"
        "split jn 48 -> jr jv\nsplit im 8 -> ir ii\n"
        "reorder jc pc ic ir jr kk ii jv\nvectorize jv\nunroll ii\nparallel jc\n"
        "pack B at pc fused\nprefetch B at kk 4\n",
        /* A's block copied by the first jr pass, per thread */
        "split i 24 -> ic im\nsplit im 8 -> ir ii\nsplit j 48 -> jr jv\nsplit k 40 -> pc kk\n"
        "reorder pc ic jr ir kk ii jv\nvectorize jv\nunroll ii\nparallel ic\n"
        "pack A at ic fused\nprefetch A at kk 4\n",
        /* not a block: the row loop is unrolled by less than its extent */
        "split i 4 -> io ir\nsplit j 16 -> jo jl\nreorder io jo k ir jl\nvectorize jl\n"
        "unroll ir 2\n",
    };
    static const int shapes[][3] = { /* M, N, K */
        { 48, 64, 33 }, { 96, 128, 7 }, { 100, 383, 17 }, { 6, 32, 1 }, { 13, 64, 100 },
    };
    enum { NT = sizeof texts / sizeof texts[0], NS = sizeof shapes / sizeof shapes[0] };
    static one_case cases[NT][NS];
    static gb_sched nest;
    size_t cap = 1 << 20, used = 0;
    char *source = malloc(cap), err[512];
    int blocks = 0, fallbacks = 0;
    gb_sched_so so;

    CHECK(source != NULL);
    if (source == NULL)
        return;
    source[0] = '\0';
    for (int n = 0; n < NT; n++)
        for (int s = 0; s < NS; s++) {
            one_case *c = &cases[n][s];
            gb_sched_plan *pl = NULL;
            if (!row_shape_used(n, NT, s))
                continue;
            gb_params none = { 0 };
            char symbol[64], *kernel;
            snprintf(c->text, sizeof c->text, "%s", texts[n]);
            c->M = shapes[s][0], c->N = shapes[s][1], c->K = shapes[s][2];
            if (!legal("rows.sched", texts[n], &nest) ||
                (pl = gb_sched_plan_new(&nest, &none, c->M, c->N, c->K, err, sizeof err)) == NULL) {
                gb_test_fail(__FILE__, __LINE__, texts[n]);
                return;
            }
            c->scratch = gb_sched_scratch_floats(pl, 2);
            kernel = gb_sched_lower(pl, "probe");
            CHECK(kernel != NULL);
            if (kernel && strstr(kernel, "bv[p] = "))
                blocks++;
            else
                fallbacks++;
            free(kernel);
            snprintf(symbol, sizeof symbol, "rows_%d_%d", n, s);
            if (add_kernel(pl, symbol, &source, &cap, &used) != 0)
                return;
        }
    CHECK(blocks >= 8);   /* the block is what most of these shapes run */
    CHECK(fallbacks >= 6); /* the fourth nest and the tails never use it */
    switch (build_kernels(source, &so)) {
    case 0:
        SKIP("no C compiler");
    case -1:
        return;
    }
    for (int n = 0; n < NT; n++)
        for (int s = 0; s < NS; s++)
            for (int threads = 1; threads <= 2 && row_shape_used(n, NT, s); threads++) {
                one_case *c = &cases[n][s];
                char symbol[64];
                gb_kernel_fn fn;
                long bad;
                snprintf(symbol, sizeof symbol, "rows_%d_%d", n, s);
                *(void **)&fn = dlsym(so.handle, symbol);
                CHECK(fn != NULL);
                if (fn == NULL)
                    continue;
                c->threads = threads;
                bad = verify(fn, c);
                if (bad != 0) {
                    char msg[2600];
                    snprintf(msg, sizeof msg, "M=%d N=%d K=%d threads=%d: %ld wrong for\n%s",
                             c->M, c->N, c->K, threads, bad, c->text);
                    gb_test_fail(__FILE__, __LINE__, msg);
                }
            }
    gb_sched_so_close(&so);
}
