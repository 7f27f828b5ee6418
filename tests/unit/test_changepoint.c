/*
 * test_changepoint.c - the history detector's statistics: Student's t
 * against published table values, E-divisive on a known step and on
 * constant noise, the detector end to end, Benjamini-Hochberg by hand, a
 * series's noise and the step it can see.
 */
#include "test.h"

#include "changepoint.h"
#include "history.h"

#include <math.h>

/* df = 1 is Cauchy: P(|T| > 1) = 1/2 exactly.  The others are the 0.05
 * and 0.01 two-sided critical values of any t table (2.228139 at df 10,
 * 2.845340 at 20) and p = 0.073388 for t = 2 at df 10 (scipy's t.sf). */
TEST(student_t_against_tables)
{
    CHECK_NEAR(gb_student_p(1.0, 1.0), 0.5, 1e-12);
    CHECK_NEAR(gb_student_p(2.228139, 10.0), 0.05, 1e-6);
    CHECK_NEAR(gb_student_p(2.845340, 20.0), 0.01, 1e-6);
    CHECK_NEAR(gb_student_p(2.0, 10.0), 0.073388, 1e-6);
    CHECK_NEAR(gb_student_p(0.0, 5.0), 1.0, 1e-12);
    CHECK_NEAR(gb_student_quantile(0.05, 10.0), 2.228139, 1e-5);
    CHECK_NEAR(gb_student_quantile(0.01, 20.0), 2.845340, 1e-5);
}

/* A fixed pseudo-random normal sequence (an LCG and Box-Muller), so that
 * the tests are the same on every machine. */
static double next_normal(unsigned long long *state)
{
    double u[2];
    for (int i = 0; i < 2; i++) {
        *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
        u[i] = ((*state >> 11) + 0.5) / 9007199254740992.0;
    }
    return sqrt(-2.0 * log(u[0])) * cos(6.283185307179586 * u[1]);
}

/* 30 points of 2 % noise, 6 % slower from the 21st on: the step found at
 * point 20 (0-based), its ratio near 1.06 inside its interval. */
TEST(edivisive_finds_a_known_step)
{
    gb_cp_point pts[30];
    unsigned long long seed = 42;
    gb_cp_opts o = { GB_CP_MIN_SEGMENT, GB_CP_P_CANDIDATE };
    int at[GB_CP_MAX_CHANGES], n;
    gb_cp_test tests[GB_CP_MAX_CHANGES];
    double best_p;

    for (int i = 0; i < 30; i++) {
        pts[i].y = log(100.0) + 0.01 * next_normal(&seed) + (i >= 20 ? log(1.06) : 0.0);
        pts[i].se2 = 0.0001;
    }
    CHECK_EQ_INT(gb_edivisive_best(pts, 0, 30, 3, NULL), 20);
    /* A candidate at p < 0.01 may also split the after side (its first
     * five points run high by chance); only the step passes 0.001. */
    n = gb_cp_detect(pts, 30, &o, at, tests, GB_CP_MAX_CHANGES, &best_p);
    CHECK(n >= 1);
    for (int j = 1; j < n; j++)
        CHECK(tests[j].p > GB_CP_ALPHA);
    if (n >= 1) {
        CHECK_EQ_INT(at[0], 20);
        CHECK(tests[0].p < 0.001);
        /* The step measured between the whole sides: 1.06 inside. */
        gb_cp_test whole;
        gb_cp_compare(pts, 0, 20, 30, &whole);
        CHECK(whole.lo < 1.06 && whole.hi > 1.06);
        CHECK(fabs(whole.ratio - 1.06) < 0.02);
    }
}

/* Constant noise, 20 seeds of 30 points: at most one candidate at 0.01
 * over all of them (1 % each, by chance, if the test were exact; the
 * split is the best of 25, so a few would be tolerable, none is expected
 * at the default level after the false discovery rate). */
TEST(edivisive_no_change_on_constant_noise)
{
    gb_cp_opts o = { GB_CP_MIN_SEGMENT, GB_CP_P_CANDIDATE };
    int found = 0, strong = 0;

    for (unsigned long long s = 1; s <= 20; s++) {
        gb_cp_point pts[30];
        int at[GB_CP_MAX_CHANGES], n;
        gb_cp_test tests[GB_CP_MAX_CHANGES];
        double best_p;
        unsigned long long seed = s * 7919;

        for (int i = 0; i < 30; i++) {
            pts[i].y = log(100.0) + 0.03 * next_normal(&seed);
            pts[i].se2 = 0.0009 / 5;
        }
        n = gb_cp_detect(pts, 30, &o, at, tests, GB_CP_MAX_CHANGES, &best_p);
        found += n;
        for (int j = 0; j < n; j++)
            strong += tests[j].p < GB_CP_ALPHA;
    }
    CHECK(found <= 2);
    CHECK_EQ_INT(strong, 0);
}

/* Two steps (up 10 %, then back down) in 40 points: both found. */
TEST(edivisive_finds_two_steps)
{
    gb_cp_point pts[40];
    unsigned long long seed = 5;
    gb_cp_opts o = { GB_CP_MIN_SEGMENT, GB_CP_P_CANDIDATE };
    int at[GB_CP_MAX_CHANGES], n;
    gb_cp_test tests[GB_CP_MAX_CHANGES];
    double best_p;

    for (int i = 0; i < 40; i++) {
        pts[i].y = 0.01 * next_normal(&seed) + (i >= 15 && i < 28 ? log(1.10) : 0.0);
        pts[i].se2 = 0.0;
    }
    n = gb_cp_detect(pts, 40, &o, at, tests, GB_CP_MAX_CHANGES, &best_p);
    CHECK_EQ_INT(n, 2);
    if (n == 2) {
        CHECK_EQ_INT(at[0], 15);
        CHECK_EQ_INT(at[1], 28);
        CHECK(tests[0].ratio > 1.05 && tests[1].ratio < 0.95);
    }
}

/* Too short a series, and a flat one: nothing, p 1. */
TEST(edivisive_short_and_flat)
{
    gb_cp_point pts[8] = { { 0 } };
    gb_cp_opts o = { GB_CP_MIN_SEGMENT, GB_CP_P_CANDIDATE };
    int at[4];
    gb_cp_test tests[4];
    double best_p;

    CHECK_EQ_INT(gb_edivisive_best(pts, 0, 5, 3, NULL), -1);
    CHECK_EQ_INT(gb_cp_detect(pts, 5, &o, at, tests, 4, &best_p), 0);
    CHECK_NEAR(best_p, 1.0, 0.0);
    CHECK_EQ_INT(gb_cp_detect(pts, 8, &o, at, tests, 4, &best_p), 0);
    CHECK_NEAR(best_p, 1.0, 0.0);
}

/* p = 0.01, 0.04, 0.03, 0.20 (m = 4), sorted 0.01 0.03 0.04 0.20:
 * 0.04, 0.06, 0.0533, 0.20, made monotone from the top: 0.04, 0.0533,
 * 0.0533, 0.20; back in the input order. */
TEST(bh_by_hand)
{
    const double p[] = { 0.01, 0.04, 0.03, 0.20 };
    double q[4];

    CHECK(gb_bh_adjust(p, 4, q) == 0);
    CHECK_NEAR(q[0], 0.04, 1e-12);
    CHECK_NEAR(q[1], 0.04 * 4 / 3, 1e-12);
    CHECK_NEAR(q[2], 0.04 * 4 / 3, 1e-12);
    CHECK_NEAR(q[3], 0.20, 1e-12);
}

/* A series' noise from successive points: under 4 points none; 2,000
 * points of 2 % noise give 2 % within 5 %, with a 6 % step in the middle
 * too (it moves one difference); the detectable step of 30 such points, 10
 * after it, is (t(0.001, 28) + t(0.2 one-sided, 28)) x 0.02 x sqrt(1/20 +
 * 1/10) = (3.674 + 0.855) x 0.02 x 0.3873 = 0.0351 in log, 3.57 %. */
TEST(history_noise_of_a_series)
{
    static double y[2000];
    unsigned long long seed = 7;
    gb_history_noise r;

    r = gb_history_noise_of(y, 3, 0.001);
    CHECK(isnan(r.sd) && isnan(r.detectable));
    r = gb_history_noise_of(y, 4, 0.001);
    CHECK_NEAR(r.sd, 0.0, 0.0);
    CHECK_NEAR(r.detectable, 0.0, 0.0);
    for (int i = 0; i < 2000; i++)
        y[i] = 0.02 * next_normal(&seed);
    r = gb_history_noise_of(y, 2000, 0.001);
    CHECK(fabs(r.sd / 0.02 - 1.0) < 0.05);
    for (int i = 1000; i < 2000; i++)
        y[i] += log(1.06);
    r = gb_history_noise_of(y, 2000, 0.001);
    CHECK(fabs(r.sd / 0.02 - 1.0) < 0.05);
    for (int i = 0; i < 30; i++)
        y[i] = (i % 2 ? 0.02 : -0.02) / sqrt(2.0); /* successive differences 0.0283: sd 0.02 */
    r = gb_history_noise_of(y, 30, 0.001);
    CHECK_NEAR(r.sd, 0.02, 1e-12);
    CHECK_NEAR(r.detectable, expm1(4.529 * 0.02 * sqrt(0.15)), 2e-4);
}

/* Three series over 30 commits, only the middle one 6 % slower from the
 * 21st: its change is kept, with an adjusted p of its own (at least p, and
 * a few times p: a few hypotheses).  The adjustment once read the p of the
 * series after it, a flat one, and dropped the change. */
TEST(history_keeps_a_step_between_flat_series)
{
    static gb_history_file files[30];
    static char commits[30][8], dates[30][24];
    static gb_history_obs obs[90];
    gb_history_series series[3] = {
        { "m/a/k/1x1x1/t1/warm", "m", "a", "k", 1, 1, 1, 1, 0, 0, GB_DTYPE_F32 },
        { "m/b/k/1x1x1/t1/warm", "m", "b", "k", 1, 1, 1, 1, 0, 0, GB_DTYPE_F32 },
        { "m/c/k/1x1x1/t1/warm", "m", "c", "k", 1, 1, 1, 1, 0, 0, GB_DTYPE_F32 },
    };
    gb_history_store s = { files, 30, series, 3, obs, 90 };
    gb_history_annotations a = { 0 };
    gb_history_opts o = { GB_HISTORY_THRESHOLD_PCT, GB_CP_ALPHA, NULL, 0 };
    gb_history_view v;
    unsigned long long seed = 11;
    char err[128];

    for (int i = 0; i < 30; i++) {
        snprintf(commits[i], sizeof commits[i], "c%02d", i + 1);
        snprintf(dates[i], sizeof dates[i], "2026-01-01T00:%02d:00Z", i + 1);
        files[i].commit = commits[i];
        files[i].machine = "m";
        memcpy(files[i].date, dates[i], sizeof files[i].date);
        for (int k = 0; k < 3; k++) {
            gb_history_obs *ob = &obs[3 * i + k];
            ob->series = k;
            ob->file = i;
            ob->median_us = 100.0 * exp(0.01 * next_normal(&seed)) * (k == 1 && i >= 20 ? 1.06 : 1.0);
            ob->lo_us = ob->median_us * 0.99;
            ob->hi_us = ob->median_us * 1.01;
            ob->se2 = 1e-6;
        }
    }
    CHECK(gb_history_analyse(&s, &a, &o, &v, err, sizeof err) == 0);
    CHECK_EQ_INT(v.nchanges, 1);
    if (v.nchanges == 1) {
        CHECK_EQ_INT(v.changes[0].series, 1);
        CHECK_EQ_INT(v.changes[0].at, 20);
        CHECK(v.changes[0].p_adjusted >= v.changes[0].test.p);
        CHECK(v.changes[0].p_adjusted < 10.0 * v.changes[0].test.p);
    }
    gb_history_view_free(&v);
}

/* A paired series of two epochs: c01..c15 against anchor A1, then the
 * overlap run (A2 measured against A1: 0.9x), then c16..c30 against A2.
 * Series 0 steps 6 % at c24 (epoch 2); series 1 steps 3 % at c08, which is
 * significant but under the 5 % floor (--threshold), so not reported.
 * Joined values read c16's 1.0 against A2 as 0.9 against A1. */
TEST(history_paired_epochs_join_and_floor)
{
    static gb_history_file files[31];
    static char commits[31][8], dates[31][24];
    static gb_history_obs obs[62];
    gb_history_series series[2] = {
        { "m/a/k/1x1x1/t1/warm/paired", "m", "a", "k", 1, 1, 1, 1, 0, 1, GB_DTYPE_F32 },
        { "m/b/k/1x1x1/t1/warm/paired", "m", "b", "k", 1, 1, 1, 1, 0, 1, GB_DTYPE_F32 },
    };
    gb_history_store s = { files, 31, series, 2, obs, 62 };
    gb_history_annotations a = { 0 };
    gb_history_opts o = { GB_HISTORY_THRESHOLD_PCT, GB_CP_ALPHA, NULL, 0 };
    gb_history_view v;
    unsigned long long seed = 5;
    char err[128];

    for (int i = 0; i < 31; i++) {
        int overlap = i == 30;   /* A2 against A1, dated between c15 and c16 */
        snprintf(commits[i], sizeof commits[i], overlap ? "A2" : "c%02d", i + 1);
        snprintf(dates[i], sizeof dates[i], overlap ? "2026-01-01T00:15:30Z" : "2026-01-01T00:%02d:00Z",
                 i + 1);
        files[i].commit = commits[i];
        files[i].machine = "m";
        files[i].anchor = overlap || i < 15 ? "A1" : "A2";
        memcpy(files[i].date, dates[i], sizeof files[i].date);
        for (int k = 0; k < 2; k++) {
            gb_history_obs *ob = &obs[2 * i + k];
            double step = k == 0 && !overlap && i >= 23 ? 1.06 : k == 1 && !overlap && i >= 7 ? 1.03 : 1.0;
            ob->series = k;
            ob->file = i;
            ob->median_us = (overlap ? 0.9 : 1.0) * step * exp(0.004 * next_normal(&seed));
            ob->lo_us = ob->median_us * 0.99;
            ob->hi_us = ob->median_us * 1.01;
            ob->se2 = 1e-6;
        }
    }
    CHECK(gb_history_analyse(&s, &a, &o, &v, err, sizeof err) == 0);
    CHECK_EQ_INT(v.nepochs[0], 2);
    CHECK_EQ_INT(v.npoints[0], 31);
    CHECK_EQ_INT(v.nunstable, 0);
    /* epoch 1: c01..c15 and A2 (16 points), then c16.. */
    CHECK(strcmp(v.points[0][15].commit, "A2") == 0);
    CHECK(strcmp(v.points[0][16].commit, "c16") == 0 && v.points[0][16].epoch == 1);
    CHECK(v.points[0][16].joined);
    CHECK_NEAR(exp(v.points[0][16].joined_y), 0.9 * v.points[0][16].median_us, 0.02);
    CHECK_EQ_INT(v.nchanges, 1);
    if (v.nchanges == 1) {
        CHECK_EQ_INT(v.changes[0].series, 0);
        CHECK(strcmp(v.points[0][v.changes[0].at].commit, "c24") == 0);
        CHECK_NEAR(v.changes[0].floor, 0.05, 1e-12);
    }
    gb_history_view_free(&v);
}
