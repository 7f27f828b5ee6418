/*
 * test_variants.c - every variant in the table, exact against a reference,
 * on shapes that are not multiples of any tile (every shape must be
 * computed, tails included; the inputs are small integers, so any summation
 * order gives the same fp32 result and the check is exact), with 1 and 2
 * threads, on padded layouts (lda > K, ldb > N, ldc > N) whose padding must
 * stay untouched, and with B pre-packed where a variant can.
 * A new schedule is covered the moment it is in the table.
 */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "test.h"
#include "variants.h"

#include <stdint.h>
#include <stdlib.h>

#include "gemmbench.h"
#include "variant_check.h"

#define PAD_SENTINEL 12345.0f

static uint64_t rng_state = 88172645463325252ull;

static int small_int(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (int)(rng_state % 9) - 4;
}

char *explain_text(gb_explain_fn explain, int M, int N, int K, int nthreads)
{
    gb_params none = { 0 };
    gb_ctx ctx = { nthreads, &none, NULL, NULL, 0, NULL };
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);

    if (out == NULL)
        return NULL;
    explain(out, M, N, K, &ctx);
    fclose(out);
    return text;
}

/* Runs v once on an MxKxN problem with the given padding; returns the number
 * of wrong elements of C plus touched padding elements, or -1 on a kernel
 * error.  Integer inputs make the comparison exact. */
long run_and_compare(const gb_variant *v, const gb_params *params, int M, int N, int K,
                     int pad, int nthreads, int prepack)
{
    const int lda = K + pad, ldb = N + pad, ldc = N + 2 * pad;
    float *A = malloc(sizeof(float) * (size_t)M * lda);
    float *B = malloc(sizeof(float) * (size_t)K * ldb);
    float *C = malloc(sizeof(float) * (size_t)M * ldc);
    double *want = malloc(sizeof(double) * (size_t)N);
    gb_ctx ctx = { nthreads, params, NULL, NULL, 0, NULL };
    long bad = 0;

    if (!A || !B || !C || !want) {
        free(A), free(B), free(C), free(want);
        return -1;
    }
    for (size_t i = 0; i < (size_t)M * lda; i++)
        A[i] = (i % lda) < (size_t)K ? (float)small_int() : NAN;
    for (size_t i = 0; i < (size_t)K * ldb; i++)
        B[i] = (i % ldb) < (size_t)N ? (float)small_int() : NAN;
    for (size_t i = 0; i < (size_t)M * ldc; i++)
        C[i] = (i % ldc) < (size_t)N ? NAN : PAD_SENTINEL;

    if (v->prepare && v->prepare(M, N, K, B, ldb, &ctx, prepack, &ctx.state) != 0) {
        bad = -1;
        goto out_no_release;
    }
    if (v->run(M, N, K, A, lda, B, ldb, C, ldc, &ctx) != 0) {
        bad = -1;
        goto out;
    }
    /* The reference row by row, k outer (B read along its rows, a loop the
     * compiler vectorizes): the naive j-outer dot products down B's columns
     * were most of this test's time.  Integer inputs: any order is exact. */
    for (int i = 0; i < M; i++) {
        for (int j = 0; j < N; j++)
            want[j] = 0.0;
        for (int k = 0; k < K; k++) {
            const double a = A[(size_t)i * lda + k];
            const float *b = B + (size_t)k * ldb;
            for (int j = 0; j < N; j++)
                want[j] += a * b[j];
        }
        for (int j = 0; j < N; j++)
            if (C[(size_t)i * ldc + j] != (float)want[j])
                bad++;
        for (int j = N; j < ldc; j++)
            if (C[(size_t)i * ldc + j] != PAD_SENTINEL)
                bad++;
    }
out:
    if (v->release)
        v->release(ctx.state);
out_no_release:
    free(A), free(B), free(C), free(want);
    return bad;
}

static void check_variant_on(const gb_variant *v, int M, int N, int K, int pad, int threads)
{
    gb_params none = { 0 };

    if (v->run == NULL) /* no f32 (amx): its types are test_amx.c's */
        return;
    for (int prepack = 0; prepack <= v->supports_prepack; prepack++) {
        long bad = run_and_compare(v, &none, M, N, K, pad, threads, prepack);
        if (bad != 0) {
            char msg[160];
            snprintf(msg, sizeof msg,
                     "%s M=%d N=%d K=%d pad=%d threads=%d prepack=%d: %ld wrong", v->name, M,
                     N, K, pad, threads, prepack, bad);
            gb_test_fail(__FILE__, __LINE__, msg);
        }
    }
}

/* M, N, K from {1, 7, 33, 100, 383} (383 is prime and off every tile), for
 * every schedule of ours.  make test takes the 25 shapes in which every pair
 * of M, N and K takes every pair of these values (M = d[a], N = d[b],
 * K = d[(2a - b) mod 5]: an orthogonal array of strength 2; the diagonal,
 * 383 x 383 x 383 included, is among them), so every tail of one dimension
 * meets every tail of another; make test-slow all 125 combinations (below).
 * The reference wrappers (OpenBLAS, BLIS, oneDNN) pass the library's
 * arguments on: the shapes and leading dimensions of the two tests below
 * check that they pass them right, and the libraries' own edge cases are
 * not ours to test (OpenBLAS alone cost 50 s of this test: it sleeps 0.2 s
 * after every 2-thread call). */
static const int awkward[] = { 1, 7, 33, 100, 383 };

static void check_awkward_grid(int every_combination)
{
    for (size_t v = 0; v < gb_variant_count; v++)
        for (int threads = 1; threads <= 2; threads++)
            if (strcmp(gb_variants[v]->family, "reference") != 0)
                for (int a = 0; a < 5; a++)
                    for (int b = 0; b < 5; b++)
                        for (int c = 0; c < 5; c++)
                            if (every_combination || c == ((2 * a - b) % 5 + 5) % 5)
                                check_variant_on(gb_variants[v], awkward[a], awkward[b],
                                                 awkward[c], 0, threads);
}

TEST(variants_exact_on_awkward_grid)
{
    check_awkward_grid(0);
}

/* The whole grid (12 s on a 2-vCPU VM). */
TEST_SLOW(variants_exact_on_every_awkward_combination)
{
    check_awkward_grid(1);
}

/* Primes, 383, and K or N off every tile the study uses (8, 16, 32, 64). */
TEST(variants_exact_on_primes_and_tails)
{
    static const int shapes[][3] = {
        /* M, N, K */
        { 383, 383, 383 }, { 383, 7, 1 },    { 1, 33, 383 },  { 7, 383, 33 },
        { 100, 1, 383 },   { 17, 131, 771 }, { 97, 65, 129 }, { 5, 200, 12 },
        { 64, 72, 24 },    { 31, 95, 9 },
    };
    for (size_t v = 0; v < gb_variant_count; v++)
        for (int threads = 1; threads <= 2; threads++)
            for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
                check_variant_on(gb_variants[v], shapes[s][0], shapes[s][1], shapes[s][2], 0,
                                 threads);
}

/* Leading dimensions larger than the matrix: every variant must honour
 * lda, ldb and ldc, and leave C's padding alone. */
TEST(variants_honour_leading_dimensions)
{
    static const int shapes[][3] = { { 7, 33, 100 }, { 33, 100, 7 }, { 65, 70, 17 } };
    for (size_t v = 0; v < gb_variant_count; v++)
        for (int threads = 1; threads <= 2; threads++)
            for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
                check_variant_on(gb_variants[v], shapes[s][0], shapes[s][1], shapes[s][2], 5,
                                 threads);
}

/* The check itself must be able to fail: a deliberately wrong kernel. */
static int wrong_kernel(int M, int N, int K, const float *A, int lda, const float *B,
                        int ldb, float *C, int ldc, const gb_ctx *ctx)
{
    (void)ctx;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float s = 0.0f;
            for (int k = 0; k + 1 < K; k++) /* drops the last k */
                s += A[(size_t)i * lda + k] * B[(size_t)k * ldb + j];
            C[(size_t)i * ldc + j] = s;
        }
    return 0;
}

TEST(variant_check_catches_a_wrong_kernel)
{
    gb_variant wrong = { .name = "wrong", .family = "test", .description = "", .run = wrong_kernel };
    gb_params none = { 0 };
    CHECK(run_and_compare(&wrong, &none, 7, 33, 100, 0, 1, 0) > 0);
}

TEST(variant_table_is_well_formed)
{
    CHECK(gb_variant_count > 0);
    CHECK_STR(gb_variants[0]->name, "baseline");
    for (size_t i = 0; i < gb_variant_count; i++) {
        const gb_variant *v = gb_variants[i];
        int types = v->run != NULL;
        for (int t = GB_DTYPE_F32 + 1; t < GB_DTYPE_COUNT; t++)
            types += v->typed[t] != NULL;
        CHECK(v->name && v->family && v->description && types > 0);
        CHECK(v->run != NULL || v->types_note != NULL); /* why no f32 */
        CHECK(gb_variant_find(v->name) == v);
        for (size_t j = 0; j < i; j++)
            CHECK(strcmp(gb_variants[j]->name, v->name) != 0);
        CHECK(v->release == NULL || v->prepare != NULL);
    }
}

/* A reference library names its version and the kernels it chose; forced_by
 * is "VAR=value" exactly when that variable is set to that value here, and
 * only the reference family has the hook. */
TEST(libraries_say_which_kernels_ran)
{
    size_t libraries = 0;

    for (size_t i = 0; i < gb_variant_count; i++) {
        const gb_variant *v = gb_variants[i];
        gb_library lib;

        if (v->library == NULL)
            continue;
        libraries++;
        CHECK_STR(v->family, "reference");
        memset(&lib, 'x', sizeof lib);
        v->library(&lib);
        CHECK(memchr(lib.version, '\0', sizeof lib.version) && lib.version[0] != '\0');
        CHECK(memchr(lib.kernels, '\0', sizeof lib.kernels) && lib.kernels[0] != '\0');
        CHECK(memchr(lib.forced_by, '\0', sizeof lib.forced_by) != NULL);
        if (lib.forced_by[0]) {
            char name[128];
            const char *eq = strchr(lib.forced_by, '=');
            CHECK(eq != NULL && eq > lib.forced_by);
            if (eq == NULL)
                continue;
            snprintf(name, sizeof name, "%.*s", (int)(eq - lib.forced_by), lib.forced_by);
            CHECK(getenv(name) != NULL && strcmp(getenv(name), eq + 1) == 0);
        }
        if (strcmp(v->name, "openblas") == 0) {
            const char *core = getenv("OPENBLAS_CORETYPE");
            CHECK((core && *core) == (lib.forced_by[0] != '\0'));
        }
    }
    if (libraries == 0)
        SKIP("needs a reference library in the build (libopenblas-dev, libblis-dev "
             "or libdnnl-dev; scripts/setup.sh reference)");
}
