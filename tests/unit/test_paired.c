/*
 * test_paired.c - what compare's verdicts rest on when files carry rounds:
 * per-round medians (the U test on them, the noise floor) for separate runs,
 * paired per-round ratios with p adjusted over the entries for gemmbench ab.
 * Files are written with sample_rounds and read back as the command does.
 */
#define _GNU_SOURCE
#include "test.h"

#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

/* A file whose entries e0, e1, ... have one sample per round, round r's
 * sample being samples[e][r]. */
static int write_file(gb_result_file *f, int nentries, int nrounds, double samples[][20])
{
    char path[] = "/tmp/gemmbench-test-paired-XXXXXX", err[512];
    FILE *out;
    int fd = mkstemp(path), rc;

    if (fd < 0 || (out = fdopen(fd, "w")) == NULL)
        return -1;
    fprintf(out, "{\"schema\":\"gemmbench/1\",\"complete\":true,\"tool\":{},\"machine\":{},"
                 "\"run\":{\"rounds\":%d},\"results\":[", nrounds);
    for (int e = 0; e < nentries; e++) {
        fprintf(out, "%s{\"variant\":\"v%d\",\"family\":\"f\",\"kernel\":\"k\",\"M\":1,"
                     "\"K\":1,\"N\":1,\"threads\":1,\"reps\":%d,\"median_us\":%g,"
                     "\"min_us\":1,\"mean_us\":1,\"stddev_us\":0,\"gflops\":1,"
                     "\"check\":\"pass\",\"params\":{},\"samples_us\":[",
                e ? "," : "", e, nrounds, samples[e][0]);
        for (int r = 0; r < nrounds; r++)
            fprintf(out, "%s%.17g", r ? "," : "", samples[e][r]);
        fprintf(out, "],\"sample_rounds\":[");
        for (int r = 0; r < nrounds; r++)
            fprintf(out, "%s%d", r ? "," : "", r + 1);
        fprintf(out, "]}");
    }
    fprintf(out, "]}\n");
    fclose(out);
    rc = gb_result_file_load(path, f, err, sizeof err);
    if (rc != 0)
        printf("  load failed: %s\n", err);
    unlink(path);
    return rc;
}

/* Ten paired rounds.  e0 and e1: NEW 10% slower in every round, so every
 * log-ratio is log 1.1 and p = 2/1024; e2: NEW alternately faster and slower.
 * Benjamini-Hochberg over the three: the two smallest p become
 * min(3/1, 3/2) x 2/1024 = 0.0029296875 (Holm would give 0.005859375). */
TEST(paired_rounds_adjusted_over_entries)
{
    static double old_s[3][20], new_s[3][20];
    gb_result_file a, b;
    gb_compare_opts o = { 3.0, 0.01, 1, NULL, NULL, 1, NULL };
    gb_compare c;
    char err[512];

    for (int r = 0; r < 10; r++)
        for (int e = 0; e < 3; e++) {
            old_s[e][r] = 100.0 + r;
            new_s[e][r] = e < 2 ? old_s[e][r] * 1.1 : old_s[e][r] * (r % 2 ? 1.05 : 0.95);
        }
    CHECK(write_file(&a, 3, 10, old_s) == 0);
    CHECK(write_file(&b, 3, 10, new_s) == 0);
    CHECK_EQ_INT(a.entries[0].nrounds, 10);
    CHECK_EQ_INT(gb_compare_files(&a, &b, &o, &c, err, sizeof err), 0);
    CHECK_EQ_INT(c.nrows, 3);
    for (int e = 0; e < 2; e++) {
        CHECK(c.rows[e].unit == GB_UNIT_PAIRED);
        CHECK_NEAR(c.rows[e].p, 2.0 / 1024.0, 1e-15);
        CHECK_NEAR(c.rows[e].p_gate, 3.0 / 2.0 * 2.0 / 1024.0, 1e-15);
        CHECK_NEAR(c.rows[e].ratio, 1.1, 1e-12);
        CHECK_NEAR(c.rows[e].lo, 1.1, 1e-12);
        CHECK(c.rows[e].verdict == GB_VERDICT_SLOWER);
        CHECK(c.rows[e].gate_fail);
    }
    CHECK(c.rows[2].verdict == GB_VERDICT_SAME);
    CHECK(c.rows[2].p_gate >= c.rows[2].p);
    CHECK_EQ_INT(c.nfailed, 2);
    gb_compare_free(&c);
    /* Fewer than 8 pairs of rounds cannot reach p < 0.01: no verdict. */
    a.entries[0].nrounds = b.entries[0].nrounds = 7;
    CHECK_EQ_INT(gb_compare_files(&a, &b, &o, &c, err, sizeof err), 0);
    CHECK(c.rows[0].verdict == GB_VERDICT_TOO_FEW);
    gb_compare_free(&c);
    gb_result_file_free(&a);
    gb_result_file_free(&b);
}

/* Separate runs of five rounds: the U test on round medians, 10..14 against
 * 20..24, p = 2/252; new/old = median 22 / median 12; the noise floor is the
 * larger spread, (14 - 10) / 12 = 33.3%.  A ratio of 1.83 is beyond it and
 * fails; the same data with NEW only 1.25x slower is significant but within
 * the floor, so it does not fail the gate. */
TEST(rounds_unit_and_noise_floor)
{
    static double old_s[1][20], new_s[1][20];
    gb_result_file a, b;
    gb_compare_opts o = { GB_COMPARE_THRESHOLD_PCT, GB_COMPARE_ALPHA, GB_COMPARE_MIN_SAMPLES,
                          NULL, NULL, 0, NULL };
    gb_compare c;
    char err[512];

    for (int r = 0; r < 5; r++) {
        old_s[0][r] = 10.0 + r;
        new_s[0][r] = 20.0 + r;
    }
    CHECK(write_file(&a, 1, 5, old_s) == 0);
    CHECK(write_file(&b, 1, 5, new_s) == 0);
    CHECK_EQ_INT(gb_compare_files(&a, &b, &o, &c, err, sizeof err), 0);
    CHECK(c.rows[0].unit == GB_UNIT_ROUNDS);
    CHECK_EQ_INT(c.rows[0].n_old, 5);
    CHECK_NEAR(c.rows[0].p, 2.0 / 252.0, 1e-12);
    CHECK_NEAR(c.rows[0].ratio, 22.0 / 12.0, 1e-12);
    CHECK_NEAR(c.rows[0].noise_pct, 100.0 * 4.0 / 12.0, 1e-9);
    CHECK(c.rows[0].gate_fail);
    gb_compare_free(&c);
    gb_result_file_free(&b);
    for (int r = 0; r < 5; r++)
        new_s[0][r] = 14.5 + 0.1 * r;   /* median 14.7: 1.225x, above every old round */
    CHECK(write_file(&b, 1, 5, new_s) == 0);
    CHECK_EQ_INT(gb_compare_files(&a, &b, &o, &c, err, sizeof err), 0);
    CHECK(c.rows[0].verdict == GB_VERDICT_SLOWER);
    CHECK(!c.rows[0].gate_fail);
    gb_compare_free(&c);
    gb_result_file_free(&a);
    gb_result_file_free(&b);
}
