/* test_harness.c - verification catches wrong kernels, the time cap and the
 * minimum repetition count hold, and statistics come from the samples. */
#define _GNU_SOURCE
#include "test.h"
#include "variants.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"

static char err[GB_ERR_LEN];
static volatile sig_atomic_t no_stop;

static int calls;

/* Correct, slow on purpose (sleeps ns), and counts its calls. */
static int sleep_then_run(long ns, int M, int N, int K, const float *A, int lda, const float *B,
                          int ldb, float *C, int ldc, const gb_ctx *ctx)
{
    struct timespec ts = { 0, ns };
    calls++;
    nanosleep(&ts, NULL);
    return gb_variants[0]->run(M, N, K, A, lda, B, ldb, C, ldc, ctx);
}

/* 2 ms a call: at least that, whatever the load (a sleep only overruns). */
static int slow_kernel(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                       float *C, int ldc, const gb_ctx *ctx)
{
    return sleep_then_run(2000000, M, N, K, A, lda, B, ldb, C, ldc, ctx);
}

/* 0.5 ms a call: for a count that must reach a bound in time, which a
 * sleep's overrun on a busy host (1 ms and more) would otherwise decide. */
static int brief_kernel(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                        float *C, int ldc, const gb_ctx *ctx)
{
    return sleep_then_run(500000, M, N, K, A, lda, B, ldb, C, ldc, ctx);
}

/* Leaves the last column unwritten. */
static int partial_kernel(int M, int N, int K, const float *A, int lda, const float *B,
                          int ldb, float *C, int ldc, const gb_ctx *ctx)
{
    return gb_variants[0]->run(M, N - 1 > 0 ? N - 1 : 1, K, A, lda, B, ldb, C, ldc, ctx);
}

/* Off by one in one element. */
static int off_by_one_kernel(int M, int N, int K, const float *A, int lda, const float *B,
                             int ldb, float *C, int ldc, const gb_ctx *ctx)
{
    int rc = gb_variants[0]->run(M, N, K, A, lda, B, ldb, C, ldc, ctx);
    C[(size_t)(M - 1) * ldc + N - 1] += 1.0f;
    return rc;
}

static const gb_variant slow = { .name = "slow", .family = "test", .description = "",
                                 .run = slow_kernel };
static const gb_variant brief = { .name = "brief", .family = "test", .description = "",
                                  .run = brief_kernel };
static const gb_variant partial = { .name = "partial", .family = "test", .description = "",
                                    .run = partial_kernel };
static const gb_variant off_by_one = { .name = "off", .family = "test", .description = "",
                                       .run = off_by_one_kernel };

TEST(harness_verifies_and_catches_wrong_results)
{
    gb_workspace w;
    gb_measure_cfg cfg = { .warmup = 0, .reps = 2, .min_reps = 1,
                           .max_time = 10.0, .check = 1, .nthreads = 1 };
    gb_params none = { 0 };
    gb_result r;

    CHECK(gb_workspace_init(&w, 9, 13, 17, err, sizeof err) == 0);
    CHECK(w.exact);
    CHECK(gb_measure(gb_variants[0], &none, 1, 0, &w, &cfg, &no_stop, &r, err, sizeof err) == 0);
    CHECK(r.check == GB_CHECK_PASS && r.mismatches == 0);
    gb_result_free(&r);
    /* An element never written stays NaN from the pre-fill and fails. */
    CHECK(gb_measure(&partial, &none, 1, 0, &w, &cfg, &no_stop, &r, err, sizeof err) == 0);
    CHECK(r.check == GB_CHECK_FAIL);
    CHECK_EQ_INT(r.mismatches, 9);
    gb_result_free(&r);
    CHECK(gb_measure(&off_by_one, &none, 1, 0, &w, &cfg, &no_stop, &r, err, sizeof err) == 0);
    CHECK(r.check == GB_CHECK_FAIL);
    CHECK_EQ_INT(r.mismatches, 1);
    CHECK_NEAR(r.max_abs_err, 1.0, 0);
    gb_result_free(&r);
    /* --no-check */
    cfg.check = 0;
    CHECK(gb_measure(&off_by_one, &none, 1, 0, &w, &cfg, &no_stop, &r, err, sizeof err) == 0);
    CHECK(r.check == GB_CHECK_SKIPPED);
    gb_result_free(&r);
    gb_workspace_free(&w);
}

TEST(harness_time_cap_and_min_reps)
{
    gb_workspace w;
    /* warm-up 3, reps 50, min 4, cap 1 ms: the cap ends warm-up after one
     * call and the timed calls after min_reps. */
    gb_measure_cfg cfg = { .warmup = 3, .reps = 50, .min_reps = 4,
                           .max_time = 0.001, .check = 0, .nthreads = 1 };
    gb_params none = { 0 };
    gb_result r;

    CHECK(gb_workspace_init(&w, 2, 2, 2, err, sizeof err) == 0);
    calls = 0;
    CHECK(gb_measure(&slow, &none, 1, 0, &w, &cfg, &no_stop, &r, err, sizeof err) == 0);
    CHECK_EQ_INT(r.reps, 4);
    CHECK_EQ_INT(calls, 1 + 4);
    for (int i = 0; i < r.reps; i++)
        CHECK(r.samples_us[i] >= 2000.0); /* each call sleeps 2 ms */
    CHECK(r.stats.median >= r.stats.min && r.stats.median <= r.stats.max);
    gb_result_free(&r);
    /* without a binding cap, exactly reps timed calls after warmup ones */
    cfg.max_time = 100.0;
    cfg.reps = 6;
    calls = 0;
    CHECK(gb_measure(&slow, &none, 1, 0, &w, &cfg, &no_stop, &r, err, sizeof err) == 0);
    CHECK_EQ_INT(r.reps, 6);
    CHECK_EQ_INT(calls, 3 + 6);
    gb_result_free(&r);
    gb_workspace_free(&w);
}

/* --min-time: calls go on past reps until that much time, the samples array
 * growing; --max-time still caps it. */
TEST(harness_min_time_extends_past_reps)
{
    gb_workspace w;
    gb_measure_cfg cfg = { .warmup = 0, .reps = 2, .min_reps = 1, .max_time = 100.0,
                           .nthreads = 1, .min_time = 0.3 };
    gb_params none = { 0 };
    gb_result r;
    double sum = 0.0;

    CHECK(gb_workspace_init(&w, 2, 2, 2, err, sizeof err) == 0);
    calls = 0;
    CHECK(gb_measure(&brief, &none, 1, 0, &w, &cfg, &no_stop, &r, err, sizeof err) == 0);
    /* Calls of 0.5 ms and more: up to 600 to reach 0.3 s, far past reps 2,
     * and past the 64 samples allocated first while a call averages under
     * 0.3 s / 64 = 4.69 ms (over nine times its sleep: a loaded host's
     * overrun fits). */
    CHECK(r.reps > 64 && r.reps <= 600);
    CHECK_EQ_INT(calls, r.reps);
    for (int i = 0; i < r.reps; i++)
        sum += r.samples_us[i] * 1e-6;
    CHECK(sum >= 0.3 && sum - r.samples_us[r.reps - 1] * 1e-6 < 0.3);
    gb_result_free(&r);
    /* The cap wins: min-time 1 s, max-time 10 ms, min-reps 3. */
    cfg.max_time = 0.01;
    cfg.min_time = 1.0;
    cfg.min_reps = 3;
    CHECK(gb_measure(&slow, &none, 1, 0, &w, &cfg, &no_stop, &r, err, sizeof err) == 0);
    CHECK(r.reps >= 3 && r.reps <= 6);
    gb_result_free(&r);
    /* And max_calls caps the calls min-time adds (a run's rounds share
     * what one result file holds): 40 calls of 0.5 ms, not 20 s of them. */
    cfg.max_time = 100.0;
    cfg.min_time = 20.0;
    cfg.max_calls = 40;
    calls = 0;
    CHECK(gb_measure(&brief, &none, 1, 0, &w, &cfg, &no_stop, &r, err, sizeof err) == 0);
    CHECK_EQ_INT(r.reps, 40);
    CHECK_EQ_INT(calls, 40);
    gb_result_free(&r);
    gb_workspace_free(&w);
}

static int pauses, pause_answer;

static int count_pause(void *arg)
{
    (void)arg;
    pauses++;
    return pause_answer;
}

/* gemmbench ab's slices: a pause after every slice of timed calls (never
 * before the first or after the last), and a refused pause stops the
 * measurement as an interruption does. */
TEST(harness_pauses_between_slices)
{
    gb_workspace w;
    /* 2-ms calls, a 1-ms slice: a pause between every two calls. */
    gb_measure_cfg cfg = { .warmup = 1, .reps = 9, .min_reps = 1, .max_time = 100.0,
                           .nthreads = 1, .slice = 0.001, .pause = count_pause };
    gb_params none = { 0 };
    gb_result r;

    CHECK(gb_workspace_init(&w, 2, 2, 2, err, sizeof err) == 0);
    pauses = 0;
    pause_answer = 0;
    CHECK(gb_measure(&slow, &none, 1, 0, &w, &cfg, &no_stop, &r, err, sizeof err) == 0);
    CHECK_EQ_INT(r.reps, 9);
    CHECK_EQ_INT(pauses, 8);
    gb_result_free(&r);
    /* ab is gone: the pause says stop, nothing of the entry is kept. */
    pauses = 0;
    pause_answer = -1;
    calls = 0;
    CHECK(gb_measure(&slow, &none, 1, 0, &w, &cfg, &no_stop, &r, err, sizeof err) == 1);
    CHECK_EQ_INT(pauses, 1);
    CHECK_EQ_INT(calls, 1 + 1);   /* the warm-up, the first timed call */
    CHECK(r.samples_us == NULL);
    gb_workspace_free(&w);
}

TEST(harness_stops_when_interrupted)
{
    gb_workspace w;
    gb_measure_cfg cfg = { .warmup = 0, .reps = 50, .min_reps = 5,
                           .max_time = 100.0, .check = 0, .nthreads = 1 };
    gb_params none = { 0 };
    gb_result r;
    volatile sig_atomic_t stop = 1;

    CHECK(gb_workspace_init(&w, 2, 2, 2, err, sizeof err) == 0);
    calls = 0;
    CHECK(gb_measure(&slow, &none, 1, 0, &w, &cfg, &stop, &r, err, sizeof err) == 1);
    CHECK_EQ_INT(calls, 1);
    CHECK(r.samples_us == NULL);
    gb_workspace_free(&w);
}

TEST(shape_memory_checks_are_overflow_safe)
{
    size_t bytes;
    CHECK(gb_shape_bytes(2, 3, 4, &bytes) == 0);
    CHECK_EQ_INT(bytes, 4 * (6 + 12 + 3 * 8));
    CHECK(gb_shape_check(1000000, 1000000, 1000000, err, sizeof err) != 0);
    CHECK(strstr(err, "GiB") != NULL);
    CHECK(gb_shape_check(16, 768, 768, err, sizeof err) == 0);
}

/* --rounds: a later round's samples are appended and every statistic is
 * recomputed over all of them; the part is left as it was. */
TEST(harness_result_merge_appends_rounds)
{
    double a[] = { 10.0, 30.0 }, b[] = { 20.0, 40.0, 50.0 };
    gb_result into = { 0 }, part = { 0 };

    into.shape.M = 10;
    into.shape.K = 10;
    into.shape.N = 10;
    into.reps = 2;
    into.rounds = 1;
    into.samples_us = malloc(sizeof a);
    CHECK(into.samples_us != NULL);
    memcpy(into.samples_us, a, sizeof a);
    stats_compute(into.samples_us, 2, &into.stats);
    part.reps = 3;
    part.rounds = 1;
    part.samples_us = b;

    CHECK(gb_result_merge(&into, &part) == 0);
    CHECK_EQ_INT(into.reps, 5);
    CHECK_EQ_INT(into.rounds, 2);
    CHECK(into.samples_us[0] == 10.0 && into.samples_us[1] == 30.0);
    CHECK(into.samples_us[2] == 20.0 && into.samples_us[4] == 50.0);
    CHECK(into.stats.median == 30.0);
    CHECK(into.stats.min == 10.0 && into.stats.max == 50.0);
    CHECK(into.stats.mean == 30.0);
    /* 2 M N K flops in 30 us: 2000 / 30e-6 / 1e9 GFLOP/s */
    CHECK(fabs(into.gflops - 2000.0 / 30e3) < 1e-12);
    CHECK_EQ_INT(part.reps, 3);
    CHECK(part.samples_us == b);
    gb_result_free(&into);
}
