/*
 * test_rule_based.c - the rule-based schedule's decisions (its 12 rules,
 * schedules/rule_based.c): R7's TM per M, the fixed rules, the task counts
 * of the study's table, --param overrides (effective values, clamping,
 * labels, rejected values), the --explain text, and exact results under
 * every override path (compiled kernels, the run-time-bounds kernel, unroll
 * off, large tiles).
 * test_variants.c covers the defaults on awkward shapes.
 */
#define _GNU_SOURCE /* open_memstream */
#include "test.h"
#include "variants.h"

#include <stdint.h>
#include <stdlib.h>

#include "gemmbench.h"
#include "options.h"

static const gb_variant *rule_based(void)
{
    const gb_variant *v = gb_variant_find("rule_based");
    CHECK(v != NULL && v->resolve != NULL && v->explain != NULL && v->params != NULL);
    return v;
}

/* The effective parameters on MxKxN with the given --param text. */
static gb_params resolve(const char *param_text, int M, int N, int K, int threads)
{
    const gb_variant *v = rule_based();
    gb_params asked, eff = { 0 };
    char err[256];
    gb_ctx ctx = { threads, &asked, NULL, NULL, 0, NULL };

    if (gb_params_parse(v, param_text, &asked, err, sizeof err) != 0) {
        gb_test_fail(__FILE__, __LINE__, err);
        return eff;
    }
    v->resolve(M, N, K, &ctx, &eff);
    return eff;
}

#define EFF(p, key) gb_param_get(&(p), key, -999)

TEST(rule_based_r7_tm_per_m)
{
    /* M, and TM = M if M <= 32, 64 if M % 64 == 0, else 32 */
    static const int cases[][2] = {
        { 1, 1 },     { 7, 7 },     { 16, 16 },   { 31, 31 },   { 32, 32 },
        { 33, 32 },   { 64, 64 },   { 96, 32 },   { 100, 32 },  { 128, 64 },
        { 192, 64 },  { 256, 64 },  { 383, 32 },  { 384, 64 },  { 65, 32 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gb_params e = resolve("", cases[i][0], 768, 768, 2);
        CHECK_EQ_INT(EFF(e, "tm"), cases[i][1]);
        CHECK_EQ_INT(EFF(e, "m_tiles"), (cases[i][0] + cases[i][1] - 1) / cases[i][1]);
    }
}

TEST(rule_based_fixed_rules)
{
    gb_params e = resolve("", 128, 3072, 768, 2);
    CHECK_EQ_INT(EFF(e, "tk"), 8);         /* R1 */
    CHECK_EQ_INT(EFF(e, "tn"), 64);        /* R6 */
    CHECK_EQ_INT(EFF(e, "jpack"), 32);     /* R8 */
    CHECK_EQ_INT(EFF(e, "unroll_ki"), 1);  /* R9: on */
    CHECK(EFF(e, "vec_lanes") >= 1);       /* R3 */
    CHECK_EQ_INT(EFF(e, "compiled_kernel"), 1);
}

/* The study's table under R5: M, TM, N, TN, parallel tasks. */
TEST(rule_based_study_task_table)
{
    static const int rows[][5] = {
        { 16, 16, 768, 64, 12 },   { 32, 32, 768, 64, 12 },  { 64, 64, 3072, 64, 48 },
        { 128, 64, 768, 64, 24 },  { 384, 64, 3072, 64, 288 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        gb_params e = resolve("", rows[i][0], rows[i][2], 768, 12);
        CHECK_EQ_INT(EFF(e, "tm"), rows[i][1]);
        CHECK_EQ_INT(EFF(e, "tn"), rows[i][3]);
        CHECK_EQ_INT(EFF(e, "tasks"), rows[i][4]);
    }
    /* Tails: 100 x 100 is 4 row tiles (32, last 4) x 2 column tiles (64, last 36). */
    gb_params e = resolve("", 100, 100, 7, 2);
    CHECK_EQ_INT(EFF(e, "tasks"), 8);
}

TEST(rule_based_param_overrides)
{
    gb_params e = resolve("tk=16,tn=128,tm=16,jpack=64,unroll_ki=off", 128, 3072, 768, 2);
    CHECK_EQ_INT(EFF(e, "tk"), 16);
    CHECK_EQ_INT(EFF(e, "tn"), 128);
    CHECK_EQ_INT(EFF(e, "tm"), 16);
    CHECK_EQ_INT(EFF(e, "jpack"), 64);
    CHECK_EQ_INT(EFF(e, "unroll_ki"), 0);
    CHECK_EQ_INT(EFF(e, "tasks"), 8 * 24);

    /* Tiles larger than the shape are the shape; j_pack no wider than TN. */
    e = resolve("tm=512,tn=4096,jpack=128", 16, 768, 768, 2);
    CHECK_EQ_INT(EFF(e, "tm"), 16);
    CHECK_EQ_INT(EFF(e, "tn"), 768);
    CHECK_EQ_INT(EFF(e, "jpack"), 128);
    CHECK_EQ_INT(EFF(e, "tasks"), 1);
    e = resolve("tn=32,jpack=64", 16, 768, 768, 2);
    CHECK_EQ_INT(EFF(e, "jpack"), 32);

    /* A value with no compiled kernel says so. */
    e = resolve("tk=12", 64, 64, 64, 2);
    CHECK_EQ_INT(EFF(e, "tk"), 12);
    CHECK_EQ_INT(EFF(e, "compiled_kernel"), 0);
}

TEST(rule_based_param_labels_and_rejects)
{
    const gb_variant *v = rule_based();
    gb_params p;
    char err[256], label[128];

    CHECK(gb_params_parse(v, "tk=16", &p, err, sizeof err) == 0);
    gb_params_format(v, &p, label, sizeof label);
    CHECK_STR(label, "tk=16");
    CHECK(gb_params_parse(v, "tk=4,unroll_ki=off", &p, err, sizeof err) == 0);
    gb_params_format(v, &p, label, sizeof label);
    CHECK_STR(label, "tk=4,unroll_ki=off");

    static const char *const bad[] = { "tk=0", "tk=-8", "tk=abc", "tk=", "tk=8x",
                                       "tm=0", "jpack=0", "tn=99999999999",
                                       "unroll_ki=maybe", "unroll=on", "tk" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        if (gb_params_parse(v, bad[i], &p, err, sizeof err) == 0)
            gb_test_fail(__FILE__, __LINE__, bad[i]);
        CHECK(err[0] != '\0');
    }
}

/* The --explain text of one shape. */
static char *explain(const char *param_text, int M, int N, int K, int threads)
{
    const gb_variant *v = rule_based();
    gb_params asked;
    char err[256], *text = NULL;
    size_t len = 0;
    gb_ctx ctx = { threads, &asked, NULL, NULL, 0, NULL };
    FILE *out;

    if (gb_params_parse(v, param_text, &asked, err, sizeof err) != 0)
        return NULL;
    out = open_memstream(&text, &len);
    if (out == NULL)
        return NULL;
    v->explain(out, M, N, K, &ctx);
    fclose(out);
    return text;
}

TEST(rule_based_explain_names_every_rule)
{
    static const char *const rules[] = { "R1  TK = 8", "R2  parallel", "R3  vector width",
                                         "R4  loop order: fused(io,jo) -> ko -> ii -> ji_o "
                                         "-> ki -> j_vec",
                                         "R5  fuse(io, jo)", "R6  TN = 64", "R7  TM = 16: M <= 32",
                                         "R8  j_pack = 32", "R9  unroll ki: fully, x8",
                                         "R10 cache_write", "R11 decompose_reduction",
                                         "R12 auto_unroll 64", "tasks: M=16 TM=16 N=768 TN=64 "
                                         "-> 1 x 12 = 12" };
    char *text = explain("", 16, 768, 768, 12);

    CHECK(text != NULL);
    for (size_t i = 0; text && i < sizeof rules / sizeof rules[0]; i++)
        if (strstr(text, rules[i]) == NULL)
            gb_test_fail(__FILE__, __LINE__, rules[i]);
    free(text);

    text = explain("", 96, 768, 768, 2);
    CHECK(text && strstr(text, "TM = 32: M > 32 and M % 64 != 0"));
    CHECK(text && strstr(text, "-> 3 x 12 = 36"));
    free(text);

    text = explain("tk=16,tm=512", 16, 100, 7, 2);
    CHECK(text && strstr(text, "TK = 16"));
    CHECK(text && strstr(text, "[--param tk=16; rule: 8]"));
    CHECK(text && strstr(text, "[--param tm=512, clamped to M = 16; rule: 16]"));
    CHECK(text && strstr(text, "the last 36 wide"));
    CHECK(text && strstr(text, "a tail of 7"));
    free(text);

    text = explain("unroll_ki=off", 64, 64, 64, 2);
    CHECK(text && strstr(text, "R9  unroll ki: off"));
    free(text);
}

/* ---- exact results under overrides ---------------------------------------- */

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static float small_int(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (float)((int)(rng % 9) - 4);
}

/* Wrong elements of C (plus touched padding) for rule_based with the given
 * --param text on MxKxN, lda/ldb/ldc padded by pad; -1 if it could not run. */
static long wrong_elements(const char *param_text, int M, int N, int K, int pad, int threads)
{
    const gb_variant *v = rule_based();
    const int lda = K + pad, ldb = N + pad, ldc = N + pad;
    float *A = malloc(sizeof(float) * (size_t)M * lda);
    float *B = malloc(sizeof(float) * (size_t)K * ldb);
    float *C = malloc(sizeof(float) * (size_t)M * ldc);
    gb_params asked;
    gb_ctx ctx = { threads, &asked, NULL, NULL, 0, NULL };
    char err[256];
    long bad = -1;

    if (!A || !B || !C || gb_params_parse(v, param_text, &asked, err, sizeof err) != 0)
        goto out;
    for (size_t i = 0; i < (size_t)M * lda; i++)
        A[i] = small_int();
    for (size_t i = 0; i < (size_t)K * ldb; i++)
        B[i] = small_int();
    for (size_t i = 0; i < (size_t)M * ldc; i++)
        C[i] = NAN; /* an element never written cannot pass; padding must stay NaN */
    if (v->run(M, N, K, A, lda, B, ldb, C, ldc, &ctx) != 0)
        goto out;
    bad = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < ldc; j++) {
            double want = 0.0;
            if (j >= N) {
                bad += !isnan(C[(size_t)i * ldc + j]);
                continue;
            }
            for (int k = 0; k < K; k++)
                want += (double)A[(size_t)i * lda + k] * B[(size_t)k * ldb + j];
            bad += C[(size_t)i * ldc + j] != (float)want;
        }
out:
    free(A), free(B), free(C);
    return bad;
}

TEST(rule_based_exact_under_overrides)
{
    static const char *const params[] = {
        "",                      /* the rules */
        "tk=4", "tk=16", "tk=32", "tk=64",            /* the study's TK ablation */
        "jpack=8", "jpack=16", "jpack=64",            /* compiled j_pack values */
        "unroll_ki=off", "tk=32,unroll_ki=off",       /* R9 off */
        "tk=3", "jpack=24", "tk=12,jpack=20",         /* run-time-bounds kernel */
        "tn=128", "tn=48", "tm=7", "tm=1,tn=1,tk=1,jpack=1",
    };
    static const int shapes[][3] = { /* M, N, K */
        { 33, 100, 383 }, { 7, 64, 65 }, { 128, 130, 24 }, { 1, 1, 1 }, { 65, 33, 9 },
    };
    for (size_t p = 0; p < sizeof params / sizeof params[0]; p++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (int threads = 1; threads <= 2; threads++) {
                long bad = wrong_elements(params[p], shapes[s][0], shapes[s][1], shapes[s][2],
                                          3, threads);
                if (bad != 0) {
                    char msg[200];
                    snprintf(msg, sizeof msg, "--param '%s' M=%d N=%d K=%d threads=%d: %ld",
                             params[p], shapes[s][0], shapes[s][1], shapes[s][2], threads, bad);
                    gb_test_fail(__FILE__, __LINE__, msg);
                }
            }
}

/* tm=512,tn=4096 makes an 8 MiB local tile per thread: it must come from
 * the heap, not the stack. */
TEST(rule_based_large_tiles)
{
    CHECK_EQ_INT(wrong_elements("tm=512,tn=4096", 520, 4100, 3, 0, 2), 0);
}
