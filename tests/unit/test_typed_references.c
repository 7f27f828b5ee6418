/*
 * test_typed_references.c - the reference libraries' bf16 and u8s8 kernels
 * (oneDNN's matmul primitive, libxsmm's JIT VNNI kernels) against a 64-bit
 * integer reference: odd shapes (K not a multiple of a pair or quadruple,
 * so libxsmm copies A with K padded), padded leading dimensions whose
 * padding must stay untouched, 1 and 2 threads, B per call and pre-packed.
 * The inputs are integers a bf16 holds exactly and u8 / s8 over their full
 * range, so every sum is exact and any difference is a bug (test_variants.c
 * covers f32 only).  A library the build lacks is skipped, never passed.
 */
#define _GNU_SOURCE
#include "test.h"
#include "variants.h"

#include <omp.h>
#include <stdint.h>
#include <stdlib.h>

#include "gemmbench.h"

/* M, N, K: from {1, 7, 33, 100, 383}, each a different role in turn. */
static const int shapes[][3] = {
    { 1, 1, 1 },    { 7, 33, 100 }, { 33, 7, 383 },  { 100, 383, 7 },
    { 383, 100, 33 }, { 1, 383, 33 }, { 33, 1, 100 },
};

/* What C's elements hold before a call: padding that must keep it, and
 * (neither an integer float nor a plausible int32 sum) cells that must not. */
#define SENTINEL_BYTE 0xA5

static uint32_t next_random(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* u8 inputs whose pairwise products cannot saturate a 16-bit sum: a CPU
 * without VNNI makes u8 x s8 sums with vpmaddubsw, which saturates, where
 * vpdpbusd (the contract, gemmbench.h) does not. */
static int cpu_has_vnni(void)
{
#if defined(__x86_64__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512vnni") || __builtin_cpu_supports("avxvnni");
#else
    return 0;
#endif
}

/* rows x cols at ld of random inputs of operand a (1) or b (0) of type t;
 * the padding gets values no result may depend on (NaN for bf16). */
static void fill(gb_dtype t, int is_a, void *X, int rows, int cols, int ld, uint32_t seed)
{
    const int u8_max = cpu_has_vnni() ? 255 : 127;

    for (int i = 0; i < rows; i++)
        for (int j = 0; j < ld; j++) {
            const size_t at = (size_t)i * ld + j;
            const uint32_t r = next_random(&seed);
            if (t == GB_DTYPE_BF16)
                ((gb_bf16 *)X)[at] = j < cols ? gb_bf16_from_float((float)((int)(r % 129) - 64))
                                              : (gb_bf16)0x7fc0;
            else if (is_a)
                ((uint8_t *)X)[at] = (uint8_t)(r % (unsigned)(u8_max + 1));
            else
                ((int8_t *)X)[at] = (int8_t)((int)(r % 256) - 128);
        }
}

static long long element(gb_dtype t, int is_a, const void *X, size_t at)
{
    if (t == GB_DTYPE_BF16)
        return (long long)gb_bf16_to_float(((const gb_bf16 *)X)[at]);
    return is_a ? (long long)((const uint8_t *)X)[at] : (long long)((const int8_t *)X)[at];
}

/* The elements of C that differ from the exact product, plus the padding
 * elements whose sentinel changed. */
static long count_wrong(gb_dtype t, int M, int N, int K, const void *A, int lda, const void *B,
                        int ldb, const void *C, int ldc)
{
    const size_t csize = gb_dtype_size_c(t);
    unsigned char sentinel[8];
    long wrong = 0;

    memset(sentinel, SENTINEL_BYTE, sizeof sentinel);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < ldc; j++) {
            const size_t at = (size_t)i * ldc + j;
            long long want = 0;
            if (j >= N) {
                wrong += memcmp((const char *)C + at * csize, sentinel, csize) != 0;
                continue;
            }
            for (int k = 0; k < K; k++)
                want += element(t, 1, A, (size_t)i * lda + k) *
                        element(t, 0, B, (size_t)k * ldb + j);
            if (t == GB_DTYPE_BF16)
                wrong += ((const float *)C)[at] != (float)want;
            else
                wrong += (long long)((const int32_t *)C)[at] != want;
        }
    return wrong;
}

/* The typed kernel of variant name for type t, or NULL with why: the
 * library is not in this build (built says whether it should be), or it
 * does not run t. */
static const gb_typed_kernel *kernel_or_skip_reason(const char *name, int built, gb_dtype t,
                                                    const char **why)
{
    const gb_variant *v = gb_variant_find(name);

    *why = NULL;
    if (built)
        CHECK(v != NULL);
    if (!v) {
        *why = "the library is not in this build";
        return NULL;
    }
    if (!v->typed[t])
        *why = v->types_note ? v->types_note : "no typed kernel";
    return v->typed[t];
}

/* One prepare / run / release with B in the prepared copy and another,
 * different B given to run: pre-packed, the result must be the prepared
 * B's; otherwise the B given to the call.  lda_run and ldc_run: the leading
 * dimensions of the call (prepare sees only ldb).  Every failure names the
 * case. */
static void check_case(const gb_typed_kernel *kern, gb_dtype t, int M, int N, int K, int ldb,
                       int lda_run, int ldc_run, int threads, int prepack)
{
    const size_t sa = gb_dtype_size_a(t), sb = gb_dtype_size_b(t), sc = gb_dtype_size_c(t);
    const gb_params none = { 0 };
    char why[256] = "", impl[128] = "", msg[512];
    gb_ctx ctx = { threads, &none, NULL, why, sizeof why, NULL };
    void *A = malloc((size_t)M * lda_run * sa), *B_prepared = malloc((size_t)K * ldb * sb);
    void *B_call = malloc((size_t)K * ldb * sb), *C = malloc((size_t)M * ldc_run * sc);
    void *state = NULL;
    long wrong = -1;
    int before, status = -1, threads_kept = 0;

    snprintf(msg, sizeof msg, "%s M=%d N=%d K=%d lda=%d ldb=%d ldc=%d threads=%d prepack=%d",
             gb_dtype_name(t), M, N, K, lda_run, ldb, ldc_run, threads, prepack);
    if (!A || !B_prepared || !B_call || !C) {
        gb_test_fail(__FILE__, __LINE__, "out of memory");
        goto out;
    }
    fill(t, 1, A, M, K, lda_run, 1u + (uint32_t)(M * 7 + K));
    fill(t, 0, B_prepared, K, N, ldb, 2u + (uint32_t)(N * 11 + K));
    fill(t, 0, B_call, K, N, ldb, 3u + (uint32_t)(N * 13 + K));
    memset(C, SENTINEL_BYTE, (size_t)M * ldc_run * sc);

    if (kern->prepare(M, N, K, B_prepared, ldb, &ctx, prepack, &state) != 0) {
        char m[800];
        snprintf(m, sizeof m, "%s: prepare failed: %s", msg, why);
        gb_test_fail(__FILE__, __LINE__, m);
        goto out;
    }
    ctx.state = state;
    before = omp_get_max_threads();
    status = kern->run(M, N, K, A, lda_run, B_call, ldb, C, ldc_run, &ctx);
    threads_kept = omp_get_max_threads() == before;
    if (kern->impl)
        kern->impl(M, N, K, &ctx, impl, sizeof impl);
    if (status == 0)
        wrong = count_wrong(t, M, N, K, A, lda_run, prepack ? B_prepared : B_call, ldb, C,
                            ldc_run);
    if (status != 0 || wrong != 0 || !threads_kept || impl[0] == '\0') {
        char m[800];
        snprintf(m, sizeof m, "%s: run %d, %ld wrong, threads %s, impl \"%s\"", msg, status,
                 wrong, threads_kept ? "kept" : "changed", impl);
        gb_test_fail(__FILE__, __LINE__, m);
    }
out:
    if (state)
        kern->release(state);
    free(A);
    free(B_prepared);
    free(B_call);
    free(C);
}

/* Every shape, unpadded and padded (3 elements on every row), 1 and 2
 * threads, per call and pre-packed. */
static void check_type(const char *name, int built, gb_dtype t)
{
    const char *why;
    const gb_typed_kernel *kern = kernel_or_skip_reason(name, built, t, &why);

    if (!kern)
        SKIP(why);
    CHECK(kern->supports_prepack);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int pad = 0; pad <= 3; pad += 3)
            for (int threads = 1; threads <= 2; threads++)
                for (int prepack = 0; prepack <= 1; prepack++) {
                    const int M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
                    check_case(kern, t, M, N, K, N + pad, K + pad, N + pad, threads, prepack);
                }
}

#ifdef GB_HAVE_ONEDNN
#define HAVE_ONEDNN 1
#else
#define HAVE_ONEDNN 0
#endif
#ifdef GB_HAVE_LIBXSMM
#define HAVE_LIBXSMM 1
#else
#define HAVE_LIBXSMM 0
#endif

TEST(onednn_bf16_exact)
{
    check_type("onednn", HAVE_ONEDNN, GB_DTYPE_BF16);
}

TEST(onednn_u8s8_exact)
{
    check_type("onednn", HAVE_ONEDNN, GB_DTYPE_U8S8);
}

TEST(libxsmm_bf16_exact)
{
    check_type("libxsmm", HAVE_LIBXSMM, GB_DTYPE_BF16);
}

TEST(libxsmm_u8s8_exact)
{
    check_type("libxsmm", HAVE_LIBXSMM, GB_DTYPE_U8S8);
}

/* A call whose lda and ldc are not the ones prepare() assumed from ldb
 * (A unpadded, C padded by more than B): the kernel makes its primitive
 * (oneDNN) or kernels (libxsmm) again rather than read A or write C with
 * the wrong strides; for libxsmm K = 8 and lda = 8 or 12 let it read A in
 * place, 7 and 9 do not. */
TEST(typed_references_call_strides)
{
    static const struct {
        const char *name;
        int built;
    } libs[] = { { "onednn", HAVE_ONEDNN }, { "libxsmm", HAVE_LIBXSMM } };
    int ran = 0;

    for (size_t l = 0; l < sizeof libs / sizeof libs[0]; l++)
        for (int t = GB_DTYPE_BF16; t <= GB_DTYPE_U8S8; t++) {
            const char *why;
            const gb_typed_kernel *kern = kernel_or_skip_reason(libs[l].name, libs[l].built,
                                                                (gb_dtype)t, &why);
            if (!kern)
                continue;
            ran++;
            for (int prepack = 0; prepack <= 1; prepack++) {
                check_case(kern, (gb_dtype)t, 33, 100, 7, 102, 7, 105, 2, prepack);
                check_case(kern, (gb_dtype)t, 130, 300, 8, 302, 8, 305, 2, prepack);
                check_case(kern, (gb_dtype)t, 130, 300, 8, 302, 12, 301, 1, prepack);
                check_case(kern, (gb_dtype)t, 130, 300, 8, 302, 9, 305, 2, prepack);
            }
        }
    if (ran == 0)
        SKIP("neither oneDNN nor libxsmm is in this build");
}
