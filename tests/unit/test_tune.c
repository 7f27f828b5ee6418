/* test_tune.c - tuning records round-trip, the fallback order of the tuned
 * variants, and a search that never picks a candidate failing verification. */
#define _GNU_SOURCE
#include "test.h"
#include "variants.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "tune.h"

static char err[512];

static gb_tuned_record make_record(const char *base, const char *fp, int M, int K, int N,
                                   long tm)
{
    gb_tuned_record r;
    memset(&r, 0, sizeof r);
    snprintf(r.base, sizeof r.base, "%s", base);
    snprintf(r.fingerprint, sizeof r.fingerprint, "%s", fp);
    r.M = M, r.K = K, r.N = N;
    gb_param_set(&r.params, "tm", tm);
    r.median_us = 10.0 * tm;
    r.rule_median_us = 11.0 * tm;
    r.trials = 7;
    strcpy(r.tuned_at, "2026-01-01T00:00:00Z");
    return r;
}

TEST(tuned_records_round_trip_and_update)
{
    char path[] = "/tmp/gemmbench-tuned-XXXXXX";
    gb_tuned_set set = { 0 }, back;
    gb_tuned_record a = make_record("rule_based", "cpu|avx2|threads=2", 16, 768, 768, 16);
    gb_tuned_record b = make_record("rule_based", "cpu|avx2|threads=2", 64, 768, 3072, 64);
    gb_tuned_record a2 = make_record("rule_based", "cpu|avx2|threads=2", 16, 768, 768, 32);
    int fd = mkstemp(path);

    close(fd);
    unlink(path);
    /* a missing file is an empty set, not an error */
    CHECK(gb_tuned_load(path, &back, err, sizeof err) == 0 && back.count == 0);
    CHECK(gb_tuned_put(&set, &a) == 0 && gb_tuned_put(&set, &b) == 0);
    CHECK(gb_tuned_save(path, &set, err, sizeof err) == 0);
    CHECK(gb_tuned_load(path, &back, err, sizeof err) == 0);
    CHECK_EQ_INT(back.count, 2);
    CHECK_STR(back.records[1].fingerprint, "cpu|avx2|threads=2");
    CHECK_EQ_INT(back.records[1].N, 3072);
    CHECK_EQ_INT(gb_param_get(&back.records[1].params, "tm", 0), 64);
    CHECK_NEAR(back.records[1].median_us, 640.0, 0);
    CHECK_EQ_INT(back.records[1].trials, 7);
    /* re-tuning a shape replaces its record and keeps the others */
    CHECK(gb_tuned_put(&back, &a2) == 0);
    CHECK_EQ_INT(back.count, 2);
    CHECK_EQ_INT(gb_param_get(&back.records[0].params, "tm", 0), 32);
    gb_tuned_free(&back);
    gb_tuned_free(&set);

    /* a malformed record is skipped and described (file and record), never
     * trusted */
    FILE *f = fopen(path, "w");
    fputs("{\"schema\": \"gemmbench-tuned/1\", \"records\": [{\"base\": 3}]}", f);
    fclose(f);
    CHECK(gb_tuned_load(path, &back, err, sizeof err) == 0);
    CHECK_EQ_INT(back.count, 0);
    CHECK_EQ_INT(back.skipped, 1);
    CHECK(strstr(back.skipped_why, path) != NULL);
    CHECK(strstr(back.skipped_why, "records[0]: base") != NULL);
    /* ... and written back as it was when the set is saved with a new one */
    CHECK(gb_tuned_put(&back, &a) == 0);
    CHECK(gb_tuned_save(path, &back, err, sizeof err) == 0);
    gb_tuned_free(&back);
    CHECK(gb_tuned_load(path, &back, err, sizeof err) == 0);
    CHECK_EQ_INT(back.count, 1);
    CHECK_EQ_INT(back.skipped, 1);
    gb_tuned_free(&back);
    f = fopen(path, "w");
    fputs("{\"schema\": \"gemmbench-tuned/1\", \"rec", f);
    fclose(f);
    CHECK(gb_tuned_load(path, &back, err, sizeof err) != 0);
    unlink(path);
}

/* A file naming one key twice (hand-merged files) keeps one record per key,
 * the later one, at the earlier one's place: what gb_tuned_put one record
 * at a time did before the loader deduplicated by sorting. */
TEST(tuned_records_duplicate_keys_last_wins_in_place)
{
    char path[] = "/tmp/gemmbench-tuned-XXXXXX";
    gb_tuned_set set;
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    const char *rec = "{\"base\": \"rule_based\", \"fingerprint\": \"%s\", \"M\": %d, "
                      "\"K\": 8, \"N\": 8, \"params\": {\"tm\": %d, \"tn\": 8, \"tk\": 8, "
                      "\"jpack\": 8, \"unroll_ki\": \"on\"}, \"median_us\": 1, "
                      "\"rule_median_us\": 1, \"trials\": 1}";
    /* key (fp, M) and the tm that tells the copies apart */
    const struct { const char *fp; int M, tm; } recs[] = {
        { "b", 16, 1 }, { "a", 8, 2 }, { "b", 16, 3 }, { "a", 4, 4 }, { "b", 16, 5 },
    };

    fputs("{\"schema\": \"gemmbench-tuned/1\", \"records\": [", f);
    for (int i = 0; i < 5; i++) {
        fputs(i ? ", " : "", f);
        fprintf(f, rec, recs[i].fp, recs[i].M, recs[i].tm);
    }
    fputs("]}", f);
    fclose(f);
    CHECK(gb_tuned_load(path, &set, err, sizeof err) == 0);
    CHECK_EQ_INT(set.count, 3);
    CHECK(set.count == 3 && strcmp(set.records[0].fingerprint, "b") == 0);
    CHECK_EQ_INT(gb_param_get(&set.records[0].params, "tm", 0), 5);
    CHECK_EQ_INT(gb_param_get(&set.records[1].params, "tm", 0), 2);
    CHECK_EQ_INT(gb_param_get(&set.records[2].params, "tm", 0), 4);
    gb_tuned_free(&set);
    unlink(path);
}

TEST(tuned_lookup_fallback_order)
{
    gb_tuned_set set = { 0 };
    const char *fp = "cpu|avx2|threads=2";
    gb_tuned_record recs[] = {
        make_record("rule_based", fp, 16, 768, 768, 1),
        make_record("rule_based", fp, 128, 768, 768, 2),
        make_record("rule_based", fp, 96, 768, 3072, 3),
        make_record("packed", fp, 64, 3072, 768, 4),
        make_record("rule_based", "other|avx512f|threads=2", 64, 3072, 768, 5),
    };
    const gb_tuned_record *r;
    int exact;

    for (size_t i = 0; i < sizeof recs / sizeof recs[0]; i++)
        gb_tuned_put(&set, &recs[i]);
    r = gb_tuned_find(&set, "rule_based", fp, 128, 768, 768, &exact);
    CHECK(r && exact && gb_param_get(&r->params, "tm", 0) == 2);
    /* nearest M of the same layer, by ratio: 32 is nearer 16 than 128 */
    r = gb_tuned_find(&set, "rule_based", fp, 32, 768, 768, &exact);
    CHECK(r && !exact && r->M == 16);
    r = gb_tuned_find(&set, "rule_based", fp, 96, 768, 768, &exact);
    CHECK(r && !exact && r->M == 128);
    /* the same layer wins over a closer M in another layer */
    r = gb_tuned_find(&set, "rule_based", fp, 96, 768, 768, &exact);
    CHECK(r && r->N == 768);
    /* no record of this layer: the nearest other layer */
    r = gb_tuned_find(&set, "rule_based", fp, 64, 3072, 768, &exact);
    CHECK(r && !exact && r->K == 768);
    /* another machine's records and another base's never apply */
    r = gb_tuned_find(&set, "rule_based", "third|sse4.2|threads=2", 64, 3072, 768, &exact);
    CHECK(r == NULL);
    r = gb_tuned_find(&set, "packed", fp, 64, 3072, 768, &exact);
    CHECK(r && exact && gb_param_get(&r->params, "tm", 0) == 4);
    gb_tuned_free(&set);
}

/* A schedule with one parameter x in 1..5: 4 costs 1 ms, the others
 * |x - 4| + 4 ms (a slope to climb), so 4 is the fastest correct value by
 * 5x at least (a sleep's overrun on a busy host is a millisecond or two);
 * 5 is fastest of all and wrong.  Without an override it runs x = 1 (its
 * "rule"). */
static int trap_run(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                    float *C, int ldc, const gb_ctx *ctx)
{
    long x = gb_param_get(ctx->params, "x", 1);
    if (x == 5) {
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++)
                C[(size_t)i * ldc + j] = 1.0f; /* wrong, and instant */
        return 0;
    }
    struct timespec ts = { 0, (x == 4 ? 1 : labs(x - 4) + 4) * 1000000L };
    nanosleep(&ts, NULL);
    return gb_variants[0]->run(M, N, K, A, lda, B, ldb, C, ldc, ctx);
}

static const gb_param_spec trap_params[] = {
    { "x", 1, 5, NULL, "" }, { NULL, 0, 0, NULL, NULL } };

static void trap_resolve(int M, int N, int K, const gb_ctx *ctx, gb_params *eff)
{
    (void)M, (void)N, (void)K;
    memset(eff, 0, sizeof *eff);
    gb_param_set(eff, "x", gb_param_get(ctx->params, "x", 1));
}

TEST(tune_search_never_picks_a_failing_candidate)
{
    const gb_variant trap = { .name = "trap", .family = "test", .description = "",
                              .run = trap_run, .params = trap_params, .resolve = trap_resolve };
    const gb_tune_space space = { "trap", 1, { { "x", 5, { 1, 2, 3, 4, 5 } } } };
    gb_tune_cfg cfg = { .threads = 1, .max_trials = 20, .budget_s = 0.0, .warmup = 1, .reps = 3, .seed = 1 };
    gb_tune_outcome out;
    volatile sig_atomic_t stop = 0;

    CHECK(gb_tune_shape(&trap, &space, 3, 4, 5, &cfg, &stop, NULL, NULL, &out, err,
                        sizeof err) == 0);
    CHECK_EQ_INT(gb_param_get(&out.best, "x", 0), 4);
    CHECK(out.rejected >= 1);      /* x = 5 was measured and refused */
    CHECK(out.best_us < out.rule_us);
    CHECK(out.trials <= 20);
    CHECK(!out.interrupted);

    /* a trial budget of one: only the rule, which then stays */
    cfg.max_trials = 1;
    CHECK(gb_tune_shape(&trap, &space, 3, 4, 5, &cfg, &stop, NULL, NULL, &out, err,
                        sizeof err) == 0);
    CHECK_EQ_INT(gb_param_get(&out.best, "x", 0), 1);
    CHECK_EQ_INT(out.trials, 1);

    /* a space naming a parameter the variant does not have is an error */
    const gb_tune_space bad = { "trap", 1, { { "nope", 2, { 1, 2 } } } };
    CHECK(gb_tune_shape(&trap, &bad, 3, 4, 5, &cfg, &stop, NULL, NULL, &out, err,
                        sizeof err) != 0);
    CHECK(strstr(err, "nope") != NULL);
}
