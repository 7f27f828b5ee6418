/* test_sched_random.c - schedules nobody wrote by hand (40 in make test,
 * 200 more in make test-slow): random statements
 * (split, tile, reorder, fuse, parallel, vectorize, unroll, cache_write,
 * pack, prefetch, spread or not) kept when the checker takes them, each schedule lowered for an
 * awkward shape (dimensions from 1, 7, 17, 33, 100: multiples of no tile),
 * compiled (all kernels in one file, one compiler run) and verified exactly
 * against the reference with padded leading dimensions, on 1 or 2 threads. */
#define _POSIX_C_SOURCE 200809L
#include "test.h"
#include "sched_lang.h"
#include "sched_build.h"
#include "packed_team.h"

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
    case 5: /* on the pool's threads a third of the time (legal where outermost) */
        snprintf(out, len, "parallel %s%s\n", live(s), rnd(3) ? "" : " pool");
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
        switch (rnd(3)) {
        case 0:
            snprintf(out, len, "prefetch %c at %s\n", "ABC"[rnd(3)], live(s));
            break;
        case 1:
            snprintf(out, len, "prefetch %c at %s %d\n", "ABC"[rnd(3)], live(s),
                     1 + (int)rnd(20));
            break;
        default: /* spread over a loop inside, when the nest keeps it so */
            snprintf(out, len, "prefetch %c at %s over %s\n", "ABC"[rnd(3)], live(s), live(s));
            break;
        }
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
    int pool;      /* the caller offers packed's threads (ctx->pool) */
    long scratch;
} one_case;

/* Every case verified with the pool offered, each kernel called this many
 * times (the pool tests: back-to-back calls keep the pool's threads awake,
 * so that they run side by side), else as the case says, once. */
static int offer_pool;

/* What ctx->pool is where a case offers one: packed's threads, or (the
 * test of a pool that stands aside) declines_pool. */
typedef int (*pool_fn)(int, void (*)(void *, int, int), void *);
static pool_fn offered = packed_team_run;
static int declined;

static int declines_pool(int nt, void (*fn)(void *, int, int), void *arg)
{
    (void)nt, (void)fn, (void)arg;
    declined++;
    return 0;
}

static long verify(gb_kernel_fn fn, const one_case *c)
{
    const int pad = 3, lda = c->K + pad, ldb = c->N + pad, ldc = c->N + pad;
    float *A = malloc(sizeof(float) * (size_t)c->M * lda);
    float *B = malloc(sizeof(float) * (size_t)c->K * ldb);
    float *C = malloc(sizeof(float) * (size_t)c->M * ldc);
    float *ref = malloc(sizeof(float) * (size_t)c->M * c->N + 1);
    float *scratch = c->scratch > 0 ? malloc(sizeof(float) * (size_t)c->scratch) : NULL;
    gb_params none = { 0 };
    gb_ctx ctx = { c->threads, &none, scratch, NULL, 0,
                   c->pool || offer_pool ? offered : NULL };
    long bad = 0;

    if (A == NULL || B == NULL || C == NULL || ref == NULL || (c->scratch > 0 && scratch == NULL)) {
        bad = -1;
        goto out;
    }
    for (int i = 0; i < c->M * lda; i++)
        A[i] = (float)((int)rnd(5) - 2);
    for (int i = 0; i < c->K * ldb; i++)
        B[i] = (float)((int)rnd(5) - 2);
    for (int i = 0; i < c->M; i++)
        for (int j = 0; j < c->N; j++) {
            float sum = 0.0f;
            for (int k = 0; k < c->K; k++)
                sum += A[(size_t)i * lda + k] * B[(size_t)k * ldb + j];
            ref[(size_t)i * c->N + j] = sum;
        }
    for (int call = 0; call < (offer_pool ? offer_pool : 1) && bad == 0; call++) {
        for (int i = 0; i < c->M * ldc; i++)
            C[i] = 777.0f;
        if (fn(c->M, c->N, c->K, A, lda, B, ldb, C, ldc, &ctx) != 0) {
            bad = -1;
            goto out;
        }
        for (int i = 0; i < c->M; i++) {
            for (int j = 0; j < c->N; j++)
                bad += C[(size_t)i * ldc + j] != ref[(size_t)i * c->N + j];
            for (int j = c->N; j < ldc; j++) /* the padding is never written */
                bad += C[(size_t)i * ldc + j] != 777.0f;
        }
    }
out:
    free(A), free(B), free(C), free(ref), free(scratch);
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
 * run: 1 built into *so, 0 no C compiler or one whose objects are for
 * another machine (the caller skips: the unit tests under qemu), -1 failed
 * (recorded). */
static int build_kernels(char *source, gb_sched_so *so)
{
    char err[512];
    int rc = gb_sched_build(source, NULL, so, err, sizeof err);

    free(source);
    if (rc == 0)
        return 1;
    if (strncmp(err, "CC '", 4) == 0 || strstr(err, "ELF machine") != NULL)
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
    int rejected = 0, statements = 0, spreads = 0, pools = 0;
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
        spreads += strstr(c->text, " over ") != NULL;
        pools += strstr(c->text, " pool\n") != NULL;
        c->pool = (int)rnd(2);
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
    CHECK(spreads > 0); /* some keep a spread prefetch (6 of the 40, 27 of the 200) */
    CHECK(pools > 0);   /* and some a parallel loop on the pool's threads */
    switch (build_kernels(source, &so)) {
    case 0:
        SKIP("no C compiler, or its objects are for another machine");
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
        SKIP("no C compiler, or its objects are for another machine");
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
                c->pool = s % 2; /* packed's `parallel jc pool`: both forms */
                bad = verify(fn, c);
                if (bad != 0) {
                    char msg[256];
                    snprintf(msg, sizeof msg, "%s M=%d N=%d K=%d threads=%d pool %d: %ld wrong",
                             c->text, c->M, c->N, c->K, threads, c->pool, bad);
                    gb_test_fail(__FILE__, __LINE__, msg);
                }
            }
    gb_sched_so_close(&so);
}

/* Case c: text at shape (M, N, K), planned (scratch for 2 threads), or
 * NULL recorded as a failure. */
static gb_sched_plan *plan_case(one_case *c, const char *file, const char *text,
                                const int shape[3], gb_sched *nest)
{
    gb_params none = { 0 };
    gb_sched_plan *pl = NULL;
    char err[512];

    snprintf(c->text, sizeof c->text, "%s", text);
    c->M = shape[0], c->N = shape[1], c->K = shape[2];
    if (!legal(file, text, nest) ||
        (pl = gb_sched_plan_new(nest, &none, c->M, c->N, c->K, err, sizeof err)) == NULL) {
        gb_test_fail(__FILE__, __LINE__, text);
        return NULL;
    }
    c->scratch = gb_sched_scratch_floats(pl, 2);
    return pl;
}

/* Each kernel PREFIX_n_s of so run on its case (cases[n * nshapes + s]) at
 * 1 and 2 threads, where used(n, ntexts, s) says (NULL: all), and verified
 * exactly; a wrong one named with its text. */
static void verify_cases(const gb_sched_so *so, one_case *cases, int ntexts, int nshapes,
                         const char *prefix, int (*used)(int, int, int))
{
    for (int n = 0; n < ntexts; n++)
        for (int s = 0; s < nshapes; s++)
            for (int threads = 1; threads <= 2 && (!used || used(n, ntexts, s)); threads++) {
                one_case *c = &cases[n * nshapes + s];
                char symbol[64];
                gb_kernel_fn fn;
                long bad;
                snprintf(symbol, sizeof symbol, "%s_%d_%d", prefix, n, s);
                *(void **)&fn = dlsym(so->handle, symbol);
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
}

/* The BLIS nests (texts 3 to NT - 2) on two shapes only, one of whole
 * blocks and one of tails: their 8 x 48 blocks, twice over where a pack is
 * fused, are most of the compiler's time (13 s on all five shapes). */
static int row_shape_used(int n, int nt, int s)
{
    return n < 3 || n == nt - 1 || s == 1 || s == 2;
}

/* What a test of many nests checks in each one's lowered C (n: its text,
 * c: its case), or NULL. */
typedef void (*inspect_fn)(int n, const one_case *c, const char *kernel, void *arg);

/* Each of the nt texts at each of the ns shapes (where used(n, nt, s)
 * says; NULL: all) planned into cases[n * ns + s], lowered once as
 * PREFIX_n_s and handed to inspect, all compiled in one run and verified
 * at 1 and 2 threads.  1 done, 0 no C compiler or objects for another
 * machine (the caller skips), -1 failed (recorded). */
static int check_cases(const char *file, const char *prefix, const char *const *texts, int nt,
                       const int (*shapes)[3], int ns, one_case *cases,
                       int (*used)(int, int, int), inspect_fn inspect, void *arg)
{
    static gb_sched nest;
    size_t cap = 1 << 20, len = 0;
    char *source = malloc(cap);
    gb_sched_so so;
    int rc;

    CHECK(source != NULL);
    if (source == NULL)
        return -1;
    source[0] = '\0';
    for (int n = 0; n < nt; n++)
        for (int s = 0; s < ns; s++) {
            one_case *c = &cases[n * ns + s];
            gb_sched_plan *pl;
            char symbol[64], *kernel;
            if (used != NULL && !used(n, nt, s))
                continue;
            if ((pl = plan_case(c, file, texts[n], shapes[s], &nest)) == NULL) {
                free(source);
                return -1;
            }
            snprintf(symbol, sizeof symbol, "%s_%d_%d", prefix, n, s);
            kernel = gb_sched_lower(pl, symbol);
            gb_sched_plan_free(pl);
            CHECK(kernel != NULL);
            if (kernel != NULL && inspect != NULL)
                inspect(n, c, kernel, arg);
            rc = kernel != NULL ? append_source(&source, &cap, &len, kernel) : -1;
            free(kernel);
            if (rc != 0) {
                CHECK(rc == 0);
                free(source);
                return -1;
            }
        }
    rc = build_kernels(source, &so);
    if (rc != 1)
        return rc;
    verify_cases(&so, cases, nt, ns, prefix, used);
    gb_sched_so_close(&so);
    return 1;
}

/* Row blocks (SCHED.md, "Lowering"): an unrolled i loop between the k run
 * and the vectorized loop holds rows x lanes sums in registers.  Each nest
 * on shapes where the block holds and where a tail makes it fall back to
 * the memory form, with the local tile and packs around it, on 1 and 2
 * threads: exact, and the block is used where it should be. */
/* counts[0]: kernels that run the row block; counts[1]: the rest. */
static void count_row_blocks(int n, const one_case *c, const char *kernel, void *counts)
{
    (void)n, (void)c;
    ((int *)counts)[strstr(kernel, "bv[p] = ") != NULL ? 0 : 1]++;
}

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
    int counts[2] = { 0, 0 }; /* blocks, fallbacks */
    const int rc = check_cases("rows.sched", "rows", texts, NT, shapes, NS, &cases[0][0],
                               row_shape_used, count_row_blocks, counts);

    CHECK(counts[0] >= 8); /* the block is what most of these shapes run */
    CHECK(counts[1] >= 6); /* the fourth nest and the tails never use it */
    if (rc == 0)
        SKIP("no C compiler, or its objects are for another machine");
}

/* How sched_spread_prefetches_are_exact's nests are lowered (texts 0 to
 * 2: below); *row_tests counts the row blocks that keep their test. */
static void check_spread_lowering(int n, const one_case *c, const char *kernel, void *row_tests)
{
    if (n == 0) /* kk in two segments, no test in it */
        CHECK(strstr(kernel, "for (int gb_seg_4 = 0;") != NULL &&
              strstr(kernel, "< gb_n_4") == NULL);
    if (n == 1) {
        /* the row block's own row loop keeps its test; in the memory form
         * (a tail) ii is cut in two segments */
        CHECK(strstr(kernel, "if (l_ii < gb_n_3)") != NULL ||
              strstr(kernel, "for (int gb_seg_3 = 0;") != NULL);
        *(int *)row_tests += strstr(kernel, "if (l_ii < gb_n_3)") != NULL;
    }
    if (n == 2) /* 4 rows of B an iteration of ko */
        CHECK(strstr(kernel, "for (long gb_r = 0; gb_r < 4; gb_r++)") != NULL || c->K < 8);
    CHECK(strstr(kernel, ", 0, 2);") != NULL); /* every spread prefetch is into L2 */
}

/* Spread prefetches (SCHED.md, "prefetch ... over"): INNER cut in two
 * segments by open_loop, the test in a run's own row loop, several rows an
 * iteration, the memory form, a box in a pack buffer, a fused pack's
 * copying pass: every nest exact on shapes of tails, 1 and 2 threads (a
 * segment that skipped or repeated an iteration of INNER would be wrong
 * here), and lowered as stated. */
TEST(sched_spread_prefetches_are_exact)
{
    /* the longest pass: i split 14 times (the most loops a nest makes),
     * names of 31 characters, j moved outermost: 15 loops between the
     * site j and INNER k */
    static char deep[4096];
    char prev[32] = "i";
    size_t dn = 0;
    for (int n = 0; n < 14; n++) {
        char outer[32], inner[32];
        snprintf(outer, sizeof outer, "o%028d%02d", 0, n);
        snprintf(inner, sizeof inner, "n%028d%02d", 0, n);
        dn += (size_t)snprintf(deep + dn, sizeof deep - dn, "split %s 2 -> %s %s\n", prev,
                               outer, inner);
        snprintf(prev, sizeof prev, "%s", inner);
    }
    snprintf(deep + dn, sizeof deep - dn, "reorder j o%028d00\nprefetch B at j over k\n", 0);
    static const char *const texts[] = {
        /* BLIS's loops, B in place: the next B micro-panel over kk */
        "split j 96 -> jc jn\nsplit k 40 -> pc kk\nsplit i 24 -> ic im\n"
        "split jn 48 -> jr jv\nsplit im 8 -> ir ii\n"
        "reorder jc pc ic jr ir kk ii jv\nvectorize jv\nunroll ii\nparallel jc\n"
        "prefetch B at kk 4\nprefetch B at jr over kk\nprefetch C at ir\n",
        /* over the row block's own row loop: the test form */
        "split j 48 -> jr jv\nsplit i 8 -> ir ii\nreorder jr ir k ii jv\nvectorize jv\n"
        "unroll ii\nparallel jr\nprefetch A at ir over ii\n",
        /* several rows an iteration: K rows of B over ko's K / 4 */
        "split k 4 -> ko ki\nreorder i ko ki j\nparallel i\nprefetch B at i 2 over ko\n",
        /* the memory form: A's next row over k, in the fused pack's buffer
         * (the copying pass: in A), and all of B over ii, rows a pass */
        "split i 4 -> io ii\nreorder io j ii k\nparallel io\npack A at io fused\n"
        "prefetch A at ii over k\nprefetch B at io over ii\n",
        /* B packed at root: its box is the buffer's, K rows of 8 */
        "split j 8 -> jo jv\nreorder jo i k jv\nvectorize jv\npack B at root\n"
        "prefetch B at i over k\n",
        deep,
    };
    static const int shapes[][3] = { /* M, N, K */
        { 20, 100, 100 }, { 7, 33, 17 }, { 33, 17, 1 }, { 1, 7, 33 }, { 24, 96, 40 },
    };
    enum { NT = sizeof texts / sizeof texts[0], NS = sizeof shapes / sizeof shapes[0] };
    static one_case cases[NT][NS];
    int row_tests = 0;
    const int rc = check_cases("spread.sched", "spread", texts, NT, shapes, NS, &cases[0][0],
                               NULL, check_spread_lowering, &row_tests);

    CHECK(row_tests >= 1); /* 24 x 96 x 40 runs the row block */
    if (rc == 0)
        SKIP("no C compiler, or its objects are for another machine");
}

static int compare_addresses(const void *a, const void *b)
{
    const size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* The L2 requests (locality 2: the spread prefetches) of text's kernel at
 * M x N x K on one thread, built with __builtin_prefetch recording its
 * arguments, against want[nwant] (byte offsets, any order): the same
 * multiset once both are taken from their lowest address (the operand's or
 * the buffer's base is the kernel's). */
static void check_spread_requests(const char *text, int M, int N, int K, size_t *want,
                                  long nwant)
{
    static const char recorder[] =
        "#include <stdarg.h>\n#include <stddef.h>\n"
        "size_t gb_rec[1 << 16];\nlong gb_nrec;\n"
        "static void gb_record(const void *p, ...)\n{\n    va_list ap;\n    va_start(ap, p);\n"
        "    (void)va_arg(ap, int);\n    const int loc = va_arg(ap, int);\n    va_end(ap);\n"
        "    if (loc == 2 && gb_nrec < (1 << 16))\n        gb_rec[gb_nrec] = (size_t)p;\n"
        "    gb_nrec += loc == 2;\n}\n#define __builtin_prefetch(...) gb_record(__VA_ARGS__)\n";
    static gb_sched nest;
    size_t cap = 1 << 20, used = 0;
    char *source = malloc(cap), err[512];
    gb_params none = { 0 };
    gb_sched_plan *pl;
    gb_sched_so so;

    CHECK(source != NULL);
    if (source == NULL)
        return;
    source[0] = '\0';
    CHECK(append_source(&source, &cap, &used, recorder) == 0);
    CHECK(legal("spread.sched", text, &nest));
    pl = gb_sched_plan_new(&nest, &none, M, N, K, err, sizeof err);
    CHECK(pl != NULL);
    if (pl == NULL || source == NULL)
        return;
    one_case c = { .M = M, .N = N, .K = K, .threads = 1,
                   .scratch = gb_sched_scratch_floats(pl, 1) };
    if (add_kernel(pl, "spread_rec", &source, &cap, &used) != 0)
        return;
    switch (build_kernels(source, &so)) {
    case 0:
        SKIP("no C compiler, or its objects are for another machine");
    case -1:
        return;
    }
    gb_kernel_fn fn;
    *(void **)&fn = dlsym(so.handle, "spread_rec");
    size_t *rec = dlsym(so.handle, "gb_rec");
    long *nrec = dlsym(so.handle, "gb_nrec");
    CHECK(fn != NULL && rec != NULL && nrec != NULL);
    if (fn == NULL || rec == NULL || nrec == NULL) {
        gb_sched_so_close(&so);
        return;
    }
    *nrec = 0;
    CHECK(verify(fn, &c) == 0);
    CHECK_EQ_INT(*nrec, nwant);
    if (*nrec == nwant) {
        qsort(want, (size_t)nwant, sizeof *want, compare_addresses);
        qsort(rec, (size_t)nwant, sizeof *rec, compare_addresses);
        const size_t base = rec[0] - want[0];
        long wrong = 0;
        for (long i = 0; i < nwant; i++)
            wrong += rec[i] - base != want[i];
        CHECK_EQ_INT(wrong, 0);
    }
    gb_sched_so_close(&so);
}

/* BLIS's loops at 20 x 100 x 100: jc blocks of 96 columns (the second 4
 * wide, its tail the bound of jv, so jr still runs twice), pc blocks of 40
 * k (the last 20, its box still 40 rows), one ic block whose 3 ir passes
 * (8, 8 and 4 rows) take 14, 14 and 12 rows of the next micro-panel's 40,
 * a row a kk step from the first. */
#define BLIS_LOOPS                                                                             \
    "split j 96 -> jc jn\nsplit k 40 -> pc kk\nsplit i 24 -> ic im\n"                          \
    "split jn 48 -> jr jv\nsplit im 8 -> ir ii\n"                                              \
    "reorder jc pc ic jr ir kk ii jv\nvectorize jv\nunroll ii\n"

static const int row_lines[] = { 0, 64, 128, 188 }; /* 48 floats: a line each 16, the last */

/* B read in place (verify()'s ldb is N + 3): every row of the box of
 * jr + 1, each of its 4 lines, once per (jc, pc, jr) run. */
TEST(sched_spread_prefetch_asks_for_the_next_box_once)
{
    static size_t want[1 << 16];
    const int ldb = 100 + 3;
    long n = 0;

    for (int jc = 0; jc < 2; jc++)
        for (int pc = 0; pc < 3; pc++)
            for (int jr = 0; jr < 2; jr++)
                for (int row = 0; row < 40; row++)
                    for (int l = 0; l < 4; l++)
                        want[n++] = 4 * ((size_t)(pc * 40 + row) * ldb +
                                         (size_t)(jc * 96 + (jr + 1) * 48)) + row_lines[l];
    check_spread_requests(BLIS_LOOPS "parallel jc\nprefetch B at kk 4\nprefetch B at jr over kk\n",
                          20, 100, 100, want, n);
}

/* B packed at pc (BLIS's pb[jr][kk][jv], 2 x 40 x 48 floats): the box of
 * jr + 1 is its micro-panel in the buffer, 40 rows 48 floats apart, each
 * once per (jc, pc, jr) run. */
TEST(sched_spread_prefetch_asks_for_the_next_packed_micro_panel)
{
    static size_t want[1 << 16];
    long n = 0;

    for (int jc = 0; jc < 2; jc++)
        for (int pc = 0; pc < 3; pc++)
            for (int jr = 0; jr < 2; jr++)
                for (int row = 0; row < 40; row++)
                    for (int l = 0; l < 4; l++)
                        want[n++] = 4 * ((size_t)(jr + 1) * 40 * 48 + (size_t)row * 48) +
                                    row_lines[l];
    check_spread_requests(BLIS_LOOPS "parallel ic\npack B at pc\npack A at ic\n"
                          "prefetch B at jr over kk\n", 20, 100, 100, want, n);
}

/* `parallel LOOP pool` with a pack per thread: each of the pool's threads
 * fills its own buffer (pb_all + gb_t's share, as omp_get_thread_num()'s
 * in the region) while the other reads its own; at these shapes both
 * threads run 100 us or more side by side, so one buffer shared would be
 * overwritten under the other's reads.  Exact at 1 and 2 threads. */
TEST(sched_pool_threads_pack_their_own_buffers)
{
    static const char *const texts[] = {
        "split j 64 -> jo ji\nsplit k 64 -> ko ki\nreorder jo ko i ki ji\nparallel jo pool\n"
        "pack B at ko\nvectorize ji\n",
        "split j 48 -> jo ji\nsplit i 8 -> io ii\nreorder jo io k ii ji\nparallel jo pool\n"
        "pack B at jo fused\nvectorize ji\nunroll ii\n",
    };
    static const int shapes[][3] = { { 97, 256, 300 }, { 64, 200, 129 } };
    enum { NT = sizeof texts / sizeof texts[0], NS = sizeof shapes / sizeof shapes[0] };
    static one_case cases[NT * NS];

    offer_pool = 50;
    const int rc = check_cases("pool.sched", "pool", texts, NT, shapes, NS, cases, NULL, NULL,
                               NULL);
    offer_pool = 0;
    if (rc == 0)
        SKIP("no C compiler, or its objects are for another machine");
}

/* Where the pool stands aside (ctx->pool returns 0, having run nothing:
 * OMP_DYNAMIC, a caller in a region, a busy pool), the kernel runs its
 * OpenMP region instead: exact, and the pool was asked at every 2-thread
 * call. */
TEST(sched_pool_standing_aside_leaves_the_region)
{
    static const char *const texts[] = {
        "split j 64 -> jo ji\nsplit k 64 -> ko ki\nreorder jo ko i ki ji\nparallel jo pool\n"
        "pack B at ko\nvectorize ji\n",
    };
    static const int shapes[][3] = { { 33, 200, 100 } };
    static one_case cases[1];

    offered = declines_pool;
    declined = 0;
    offer_pool = 3;
    const int rc = check_cases("aside.sched", "aside", texts, 1, shapes, 1, cases, NULL, NULL,
                               NULL);
    offer_pool = 0;
    offered = packed_team_run;
    if (rc == 0)
        SKIP("no C compiler, or its objects are for another machine");
    CHECK_EQ_INT(declined, 3); /* the 2-thread calls; one thread runs the one-thread copy */
}
