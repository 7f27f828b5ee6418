/* test_types.c - the element types: bf16's rounding, the inputs' ranges
 * that keep every type's sums exact, and the harness's verification of a
 * typed kernel (a wrong element, an element never written, and a run of a
 * variant without the type all caught). */
#include "test.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"

static char err[GB_ERR_LEN];
static volatile sig_atomic_t no_stop;

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

TEST(bf16_rounds_to_nearest_even)
{
    CHECK_EQ_INT(gb_bf16_from_float(1.0f), 0x3F80);
    /* halfway: to the even neighbour, down from ...80.8000, up from ...81.8000 */
    CHECK_EQ_INT(gb_bf16_from_float(from_bits(0x3F808000u)), 0x3F80);
    CHECK_EQ_INT(gb_bf16_from_float(from_bits(0x3F818000u)), 0x3F82);
    /* above and below halfway */
    CHECK_EQ_INT(gb_bf16_from_float(from_bits(0x3F808001u)), 0x3F81);
    CHECK_EQ_INT(gb_bf16_from_float(from_bits(0x3F807FFFu)), 0x3F80);
    CHECK_EQ_INT(gb_bf16_from_float(-64.0f), 0xC280);
    CHECK_EQ_INT(gb_bf16_from_float(INFINITY), 0x7F80);
    CHECK(isnan(gb_bf16_to_float(gb_bf16_from_float(NAN))));
    /* every integer the inputs use is exact */
    for (int i = -256; i <= 256; i++)
        CHECK(gb_bf16_to_float(gb_bf16_from_float((float)i)) == (float)i);
}

TEST(dtype_names_round_trip)
{
    for (int t = 0; t < GB_DTYPE_COUNT; t++) {
        gb_dtype back;
        CHECK(gb_dtype_parse(gb_dtype_name((gb_dtype)t), &back) == 0 && back == (gb_dtype)t);
    }
    gb_dtype x;
    CHECK(gb_dtype_parse("fp8", &x) == -1);
    CHECK(gb_dtype_parse("F32", &x) == -1);
    CHECK(gb_dtype_is_integer(GB_DTYPE_U8S8) && !gb_dtype_is_integer(GB_DTYPE_BF16));
}

TEST(typed_inputs_stay_in_the_exact_range)
{
    gb_workspace w;

    /* bf16: |x| <= 64 at BERT's K; K r^2 <= 2^24 beyond */
    CHECK(gb_workspace_init_dtype(&w, GB_DTYPE_BF16, 2, 3072, 3, err, sizeof err) == 0);
    CHECK_EQ_INT(w.fill_a, 64);
    CHECK(w.exact);
    gb_workspace_free(&w);
    CHECK(gb_workspace_init_dtype(&w, GB_DTYPE_BF16, 1, 10000, 1, err, sizeof err) == 0);
    CHECK_EQ_INT(w.fill_a, 40);
    CHECK(w.exact && 10000.0 * 40 * 40 <= 16777216.0);
    gb_workspace_free(&w);
    /* u8s8: full range while K 255 128 < 2^31, A's range narrowed beyond */
    CHECK(gb_workspace_init_dtype(&w, GB_DTYPE_U8S8, 3, 3072, 5, err, sizeof err) == 0);
    CHECK_EQ_INT(w.fill_a, 255);
    CHECK_EQ_INT(w.fill_b, 127);
    {
        const uint8_t *a = w.a;
        const int8_t *b = w.b;
        int amax = 0, bmin = 0, bmax = 0;
        for (int i = 0; i < 3 * 3072; i++)
            amax = a[i] > amax ? a[i] : amax;
        for (int i = 0; i < 3072 * 5; i++) {
            bmin = b[i] < bmin ? b[i] : bmin;
            bmax = b[i] > bmax ? b[i] : bmax;
        }
        CHECK(amax == 255 && bmin == -128 && bmax == 127); /* the whole range is used */
    }
    gb_workspace_free(&w);
    CHECK(gb_workspace_init_dtype(&w, GB_DTYPE_U8S8, 1, 100000, 1, err, sizeof err) == 0);
    CHECK((long)w.fill_a * 128 * 100000 < 2147483648L && w.fill_a > 100);
    gb_workspace_free(&w);
}

/* baseline's kernel of type t: the plain loops the wrong kernels below
 * start from. */
static int base_run(gb_dtype t, int M, int N, int K, const void *A, int lda, const void *B,
                    int ldb, void *C, int ldc, const gb_ctx *ctx)
{
    extern const gb_variant gb_variant_baseline;
    return gb_variant_baseline.typed[t]->run(M, N, K, A, lda, B, ldb, C, ldc, ctx);
}

static int u8s8_run(int M, int N, int K, const void *A, int lda, const void *B, int ldb,
                    void *C, int ldc, const gb_ctx *ctx)
{
    return base_run(GB_DTYPE_U8S8, M, N, K, A, lda, B, ldb, C, ldc, ctx);
}

static int u8s8_off_by_one(int M, int N, int K, const void *A, int lda, const void *B, int ldb,
                           void *C, int ldc, const gb_ctx *ctx)
{
    int rc = u8s8_run(M, N, K, A, lda, B, ldb, C, ldc, ctx);
    ((int32_t *)C)[(size_t)(M - 1) * ldc + N - 1] -= 1;
    return rc;
}

/* Leaves the first column unwritten: its INT32_MIN must fail. */
static int u8s8_partial(int M, int N, int K, const void *A, int lda, const void *B, int ldb,
                        void *C, int ldc, const gb_ctx *ctx)
{
    return u8s8_run(M, N - 1, K, A, lda, (const int8_t *)B + 1, ldb, (int32_t *)C + 1, ldc, ctx);
}

static int bf16_run(int M, int N, int K, const void *A, int lda, const void *B, int ldb,
                    void *C, int ldc, const gb_ctx *ctx)
{
    return base_run(GB_DTYPE_BF16, M, N, K, A, lda, B, ldb, C, ldc, ctx);
}

/* Half off in one element: less than any integer step, which an exact
 * check must still see. */
static int bf16_wrong(int M, int N, int K, const void *A, int lda, const void *B, int ldb,
                      void *C, int ldc, const gb_ctx *ctx)
{
    int rc = bf16_run(M, N, K, A, lda, B, ldb, C, ldc, ctx);
    ((float *)C)[0] += 0.5f;
    return rc;
}

static int f32_never(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                     float *C, int ldc, const gb_ctx *ctx)
{
    (void)M, (void)N, (void)K, (void)A, (void)lda, (void)B, (void)ldb, (void)C, (void)ldc;
    (void)ctx;
    return -1;
}

static const gb_typed_kernel k_u8s8 = { .run = u8s8_run }, k_u8s8_off = { .run = u8s8_off_by_one },
                             k_u8s8_partial = { .run = u8s8_partial }, k_bf16 = { .run = bf16_run },
                             k_bf16_wrong = { .run = bf16_wrong };
static const gb_variant good = { .name = "good", .family = "test", .description = "",
                                 .run = f32_never,
                                 .typed = { [GB_DTYPE_BF16] = &k_bf16, [GB_DTYPE_U8S8] = &k_u8s8 } };
static const gb_variant bad = { .name = "bad", .family = "test", .description = "",
                                .run = f32_never,
                                .typed = { [GB_DTYPE_BF16] = &k_bf16_wrong,
                                           [GB_DTYPE_U8S8] = &k_u8s8_off } };
static const gb_variant holey = { .name = "holey", .family = "test", .description = "",
                                  .run = f32_never, .typed = { [GB_DTYPE_U8S8] = &k_u8s8_partial } };

TEST(harness_verifies_every_type_exactly)
{
    gb_measure_cfg cfg = { .warmup = 0, .reps = 2, .min_reps = 1,
                           .max_time = 10.0, .check = 1, .nthreads = 1 };
    gb_params none = { 0 };
    gb_workspace w;
    gb_result r;

    for (int t = GB_DTYPE_BF16; t <= GB_DTYPE_U8S8; t++) {
        CHECK(gb_workspace_init_dtype(&w, (gb_dtype)t, 9, 383, 17, err, sizeof err) == 0);
        CHECK(gb_measure(&good, &none, 1, 0, &w, &cfg, &no_stop, &r, err, sizeof err) == 0);
        CHECK(r.check == GB_CHECK_PASS && r.check_exact && r.dtype == (gb_dtype)t);
        gb_result_free(&r);
        CHECK(gb_measure(&bad, &none, 1, 0, &w, &cfg, &no_stop, &r, err, sizeof err) == 0);
        CHECK(r.check == GB_CHECK_FAIL);
        CHECK_EQ_INT(r.mismatches, 1);
        gb_result_free(&r);
        if (t == GB_DTYPE_U8S8) {
            CHECK(gb_measure(&holey, &none, 1, 0, &w, &cfg, &no_stop, &r, err, sizeof err) == 0);
            CHECK(r.check == GB_CHECK_FAIL);
            CHECK_EQ_INT(r.mismatches, 9);
            gb_result_free(&r);
        } else {
            /* a variant without the type is refused, not run as f32 */
            CHECK(gb_measure(&holey, &none, 1, 0, &w, &cfg, &no_stop, &r, err, sizeof err) == -1);
            CHECK(strstr(err, "does not run bf16") != NULL);
        }
        gb_workspace_free(&w);
    }
}
