/* test_learn.c - learned schedules (learn.h, src/learn/LEARN.md): the
 * guard (which shapes lie outside what a model was trained on, and when the
 * best predicted candidate runs rather than the analytic point, on
 * synthetic predictions), and the type a trial line carries. */
#include <math.h>
#include <stdlib.h>

#include "learn.h"
#include "test.h"

/* mlp_expand's K and N at M 32..384 on 2 threads, and qkv's at M 16 */
static const gb_learned_shape trained[] = {
    { 32, 768, 3072, 2, GB_DTYPE_F32 }, { 64, 768, 3072, 2, GB_DTYPE_F32 },
    { 128, 768, 3072, 2, GB_DTYPE_F32 }, { 384, 768, 3072, 2, GB_DTYPE_F32 },
    { 16, 768, 768, 2, GB_DTYPE_F32 }, { 16, 768, 768, 2, GB_DTYPE_BF16 },
};
#define F32 GB_DTYPE_F32
#define NTRAINED ((int)(sizeof trained / sizeof trained[0]))

TEST(learn_outside_is_beyond_the_trained_m_of_the_same_k_n_threads)
{
    /* below the smallest M of its K and N: a smaller M of another K, N
     * (qkv's 16) brackets nothing */
    CHECK_EQ_INT(gb_learned_outside(trained, NTRAINED, 16, 768, 3072, 2, F32), 1);
    CHECK_EQ_INT(gb_learned_outside(trained, NTRAINED, 512, 768, 3072, 2, F32), 1);
    /* between two trained M, or one of them */
    CHECK_EQ_INT(gb_learned_outside(trained, NTRAINED, 48, 768, 3072, 2, F32), 0);
    CHECK_EQ_INT(gb_learned_outside(trained, NTRAINED, 32, 768, 3072, 2, F32), 0);
    CHECK_EQ_INT(gb_learned_outside(trained, NTRAINED, 384, 768, 3072, 2, F32), 0);
    /* another thread count, another K or N: nothing trained brackets it */
    CHECK_EQ_INT(gb_learned_outside(trained, NTRAINED, 48, 768, 3072, 1, F32), 1);
    CHECK_EQ_INT(gb_learned_outside(trained, NTRAINED, 48, 3072, 768, 2, F32), 1);
    /* a single trained M brackets itself only */
    CHECK_EQ_INT(gb_learned_outside(trained, NTRAINED, 16, 768, 768, 2, F32), 0);
    CHECK_EQ_INT(gb_learned_outside(trained, NTRAINED, 17, 768, 768, 2, F32), 1);
    CHECK_EQ_INT(gb_learned_outside(trained, 0, 16, 768, 768, 2, F32), 1);
    /* another type: only its own trials bracket it */
    CHECK_EQ_INT(gb_learned_outside(trained, NTRAINED, 48, 768, 3072, 2, GB_DTYPE_BF16), 1);
    CHECK_EQ_INT(gb_learned_outside(trained, NTRAINED, 16, 768, 768, 2, GB_DTYPE_BF16), 0);
    CHECK_EQ_INT(gb_learned_outside(trained, NTRAINED, 16, 768, 768, 2, GB_DTYPE_U8S8), 1);
}

TEST(learn_guard_keeps_the_analytic_point_within_the_error)
{
    const double error = log(1.409); /* the edge error of a 23-shape model */

    /* mlp_expand M=16 left out: the best predicted 516.9 us, the analytic
     * point 669.8 (1.296x): within the error, the analytic point runs */
    CHECK_EQ_INT(gb_learned_guard(1, 516.9, 669.8, error), GB_GUARD_KEPT);
    /* a gain beyond the error: the best predicted runs */
    CHECK_EQ_INT(gb_learned_guard(1, 400.0, 669.8, error), GB_GUARD_BEATS);
    /* exactly the error is no gain beyond it */
    CHECK_EQ_INT(gb_learned_guard(1, 100.0, 150.0, log(150.0 / 100.0)), GB_GUARD_KEPT);
    CHECK_EQ_INT(gb_learned_guard(1, 100.0, 150.1, log(150.0 / 100.0)), GB_GUARD_BEATS);
    /* no error measured: no gain trusted, however large */
    CHECK_EQ_INT(gb_learned_guard(1, 1.0, 1000.0, NAN), GB_GUARD_KEPT);
    /* an error of 0: any gain over the least one (1.15x) */
    CHECK_EQ_INT(gb_learned_guard(1, 100.0, 116.0, 0.0), GB_GUARD_BEATS);
    CHECK_EQ_INT(gb_learned_guard(1, 100.0, 114.0, 0.0), GB_GUARD_KEPT);
    CHECK_EQ_INT(gb_learned_guard(1, 101.0, 100.0, 0.0), GB_GUARD_KEPT);
    /* inside the trained range the best predicted runs, whatever the
     * error, when it promises at least 1.15x: mlp_reduce M=32 left out,
     * predicted 1.04x faster, ran 1.22x the analytic point's time */
    CHECK_EQ_INT(gb_learned_guard(0, 516.9, 669.8, error), GB_GUARD_INSIDE);
    CHECK_EQ_INT(gb_learned_guard(0, 1.0, 1000.0, NAN), GB_GUARD_INSIDE);
    CHECK_EQ_INT(gb_learned_guard(0, 100.0, 104.0, error), GB_GUARD_KEPT);
    CHECK_EQ_INT(gb_learned_guard(0, 100.0, 114.9, NAN), GB_GUARD_KEPT);
    CHECK_EQ_INT(gb_learned_guard(0, 100.0, 115.1, NAN), GB_GUARD_INSIDE);
}

/* A database line of version v, dtype (NULL: no key) and schedule text. */
static void trial_line(char *out, size_t len, int v, const char *dtype, const char *schedule)
{
    char key[48] = "";

    if (dtype)
        snprintf(key, sizeof key, "\"dtype\":\"%s\",", dtype);
    snprintf(out, len,
             "{\"schema\":\"gemmbench-trials\",\"version\":%d,\"M\":16,\"K\":32,\"N\":32,"
             "\"threads\":1,%s\"machine\":{\"isa\":\"avx512f\",\"lanes\":16,\"registers\":32,"
             "\"l1d\":49152,\"l2\":2097152,\"l3\":272629760},\"space\":\"s.space\","
             "\"schedule\":\"%sparam mc = model\\nsplit i mc -> io ii\\n\",\"verified\":true,"
             "\"median_us\":3.5,\"illegal\":0}\n",
             v, key, schedule);
}

/* The line's type: version 1 reads as f32, version 2 says it, and the
 * schedule's own `type` must be the line's. */
TEST(learn_trial_lines_carry_their_type)
{
    static const struct {
        int version;
        const char *dtype, *type_stmt;
        int ok;
        gb_dtype want;
        const char *says;
    } cases[] = {
        { 1, NULL, "", 1, GB_DTYPE_F32, NULL },
        { 2, "f32", "", 1, GB_DTYPE_F32, NULL },
        { 2, "bf16", "type bf16\\n", 1, GB_DTYPE_BF16, NULL },
        { 2, "u8s8", "type u8s8\\n", 1, GB_DTYPE_U8S8, NULL },
        { 2, NULL, "", 0, GB_DTYPE_F32, "no \"dtype\"" },
        { 2, "f64", "", 0, GB_DTYPE_F32, "\"dtype\" is not f32, bf16 or u8s8" },
        { 2, "bf16", "", 0, GB_DTYPE_F32, "the schedule states type f32, the line's \"dtype\" is bf16" },
        { 2, "f32", "type u8s8\\n", 0, GB_DTYPE_F32, "states type u8s8" },
        { 1, NULL, "type bf16\\n", 0, GB_DTYPE_F32, "(version 1: f32)" },
        { 1, "f32", "", 0, GB_DTYPE_F32, "unknown key 'dtype'" },
        { 3, "f32", "", 0, GB_DTYPE_F32, "reads versions 1 and 2" },
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gb_trial_db db = { 0 };
        char line[1024], err[512] = "";
        int rc;

        trial_line(line, sizeof line, cases[i].version, cases[i].dtype, cases[i].type_stmt);
        rc = gb_trialdb_parse("t.jsonl", line, strlen(line), &db, err, sizeof err);
        CHECK_EQ_INT(rc, cases[i].ok ? 0 : -1);
        if (cases[i].ok && rc == 0) {
            CHECK_EQ_INT(db.n, 1);
            CHECK_EQ_INT(db.rows[0].dtype, cases[i].want);
        }
        if (!cases[i].ok) {
            CHECK(strncmp(err, "t.jsonl:1: ", 11) == 0);
            CHECK(strstr(err, cases[i].says) != NULL);
        }
        gb_trialdb_free(&db);
    }
}

/* What tune appends reads back with its type. */
TEST(learn_trial_line_round_trips_its_type)
{
    gb_trial_row row = { .M = 16, .K = 32, .N = 32, .threads = 2, .dtype = GB_DTYPE_BF16,
                         .machine = { "avx512f", 16, 32, 49152, 2097152, 272629760 },
                         .space = "s.space",
                         .text = (char *)"type bf16\nparam mc = model\nsplit i mc -> io ii\n",
                         .verified = 1, .median_us = 4.25, .illegal = 3 };
    gb_trial_db db = { 0 };
    char err[512] = "", *line = gb_trialdb_line(&row);

    CHECK(line != NULL);
    if (line == NULL)
        return;
    CHECK(strstr(line, "\"version\":2,") != NULL);
    CHECK(strstr(line, "\"dtype\":\"bf16\"") != NULL);
    CHECK_EQ_INT(gb_trialdb_parse("t.jsonl", line, strlen(line), &db, err, sizeof err), 0);
    CHECK_EQ_INT(db.n, 1);
    if (db.n == 1) {
        CHECK_EQ_INT(db.rows[0].dtype, GB_DTYPE_BF16);
        CHECK_EQ_INT(db.rows[0].threads, 2);
        CHECK_EQ_INT(db.rows[0].illegal, 3);
        CHECK(strcmp(db.rows[0].text, row.text) == 0);
    }
    gb_trialdb_free(&db);
    free(line);
}
