/*
 * test_mannwhitney.c - the U test against values derived independently:
 * small cases by hand (worked in the comments), the exact distribution
 * against brute-force enumeration of every split of the pooled values, and
 * the rest against scipy 1.10.1 (tests/data/mannwhitney_scipy.py prints the
 * constants used here).
 */
#include "test.h"

#include "mannwhitney.h"

#include <stdlib.h>

/* x = {1,2,3}, y = {4,5,6}: no x beats a y, U1 = 0.  Of the C(6,3) = 20
 * equally likely rank splits only one gives U = 0, so p = 2 * 1/20. */
TEST(mwu_separated_exact_by_hand)
{
    const double x[] = { 1, 2, 3 }, y[] = { 4, 5, 6 };
    gb_mwu r;

    CHECK(gb_mann_whitney(x, 3, y, 3, GB_MWU_AUTO, &r) == 0);
    CHECK_NEAR(r.u1, 0.0, 0.0);
    CHECK(r.exact);
    CHECK(!r.ties);
    CHECK_NEAR(r.p, 0.1, 1e-15);
}

/* x = {1.5,3.5,6.5,8.5}, y = {2.5,4.5,5.5}: x beats 0, 1, 3 and 3 of the
 * y, U1 = 7 of 12, min(7, 12-7) = 5.  The counts of U for 4 x 3 are the
 * coefficients of the Gaussian binomial [7 choose 3]_q:
 * 1 1 2 3 4 4 5 4 4 3 2 1 1 (sum 35), so P(U <= 5) = 15/35, p = 30/35. */
TEST(mwu_mixed_exact_by_hand)
{
    const double x[] = { 1.5, 3.5, 6.5, 8.5 }, y[] = { 2.5, 4.5, 5.5 };
    const int counts[] = { 1, 1, 2, 3, 4, 4, 5, 4, 4, 3, 2, 1, 1 };
    gb_mwu r;
    int cumulative = 0;

    CHECK(gb_mann_whitney(x, 4, y, 3, GB_MWU_AUTO, &r) == 0);
    CHECK_NEAR(r.u1, 7.0, 0.0);
    CHECK(r.exact);
    CHECK_NEAR(r.p, 30.0 / 35.0, 1e-15);
    for (int u = 0; u <= 12; u++) {
        cumulative += counts[u];
        CHECK_NEAR(gb_mwu_exact_cdf(4, 3, u), cumulative / 35.0, 1e-15);
    }
}

/* x = {1,2,2,3}, y = {2,3,4,5}.  Pooled and ranked: 1 -> 1; the three 2s
 * share (2+3+4)/3 = 3; the two 3s share 5.5; 4 -> 7; 5 -> 8.  R1 = 1 + 3 +
 * 3 + 5.5 = 12.5, U1 = 12.5 - 4*5/2 = 2.5, mean 8.
 * Normal: ties 3 and 2 give sum(t^3 - t) = 24 + 6 = 30; var = 16/12 *
 * (9 - 30/56) = 11.2857; z = (|2.5 - 8| - 0.5) / 3.3594 = 1.4884;
 * p = erfc(z / sqrt 2) = 0.13666 (scipy asymptotic: 0.1366582477381475).
 * Exact: of the C(8,4) = 70 splits of the ranks {1,3,3,3,5.5,5.5,7,8},
 * R1 <= 12.5 takes the 1 and three of {3,3,3,5.5,5.5} summing to <= 11.5:
 * {3,3,3} once, {3,3,5.5} 3*2 = 6 times: 7 splits, and the upper tail is
 * larger, so p = 2 * 7/70 = 0.2 (scipy permutation_test: 0.2). */
TEST(mwu_ties_by_hand)
{
    const double x[] = { 1, 2, 2, 3 }, y[] = { 2, 3, 4, 5 };
    gb_mwu r;

    CHECK(gb_mann_whitney(x, 4, y, 4, GB_MWU_NORMAL, &r) == 0);
    CHECK_NEAR(r.u1, 2.5, 0.0);
    CHECK(r.ties);
    CHECK(!r.exact);
    CHECK_NEAR(r.z, 5.0 / sqrt(16.0 / 12.0 * (9.0 - 30.0 / 56.0)), 1e-12);
    CHECK_NEAR(r.p, 0.1366582477381475, 1e-12);

    CHECK(gb_mann_whitney(x, 4, y, 4, GB_MWU_AUTO, &r) == 0);
    CHECK(r.exact);
    CHECK(r.ties);
    CHECK_NEAR(r.u1, 2.5, 0.0);
    CHECK_NEAR(r.p, 0.2, 1e-15);
}

/* Swapping the samples gives U2 = nx*ny - U1 and the same two-sided p. */
TEST(mwu_symmetric)
{
    const double x[] = { 1, 2, 2, 3 }, y[] = { 2, 3, 4, 5 };
    const double a[] = { 1.5, 3.5, 6.5, 8.5 }, b[] = { 2.5, 4.5, 5.5 };
    gb_mwu r1, r2;

    for (int m = GB_MWU_EXACT; m <= GB_MWU_NORMAL; m++) {
        CHECK(gb_mann_whitney(x, 4, y, 4, m, &r1) == 0 &&
              gb_mann_whitney(y, 4, x, 4, m, &r2) == 0);
        CHECK_NEAR(r1.u1 + r2.u1, 16.0, 0.0);
        CHECK_NEAR(r1.p, r2.p, 1e-15);
        CHECK(gb_mann_whitney(a, 4, b, 3, m, &r1) == 0 &&
              gb_mann_whitney(b, 3, a, 4, m, &r2) == 0);
        CHECK_NEAR(r1.u1 + r2.u1, 12.0, 0.0);
        CHECK_NEAR(r1.p, r2.p, 1e-15);
    }
}

/* U1 of the split that puts the pooled values whose bit is set into x:
 * pairs (x, y) with x > y, ties counting 1/2. */
static double u_of_split(const double *v, int n, unsigned mask)
{
    double u = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if ((mask >> i & 1u) && !(mask >> j & 1u))
                u += v[i] > v[j] ? 1.0 : v[i] == v[j] ? 0.5 : 0.0;
    return u;
}

/* The two-sided exact p by trying every split of the pooled values:
 * independent of the rank-sum recurrence (and of ranks altogether). */
static double brute_force_p(const double *x, int nx, const double *y, int ny)
{
    double v[24], observed, le = 0, ge = 0, splits = 0;
    int n = nx + ny;

    for (int i = 0; i < n; i++)
        v[i] = i < nx ? x[i] : y[i - nx];
    observed = u_of_split(v, n, (1u << nx) - 1u);
    for (unsigned mask = 0; mask < 1u << n; mask++) {
        double u;
        if (__builtin_popcount(mask) != nx)
            continue;
        u = u_of_split(v, n, mask);
        le += u <= observed + 1e-9;
        ge += u >= observed - 1e-9;
        splits++;
    }
    return fmin(1.0, 2.0 * fmin(le, ge) / splits);
}

TEST(mwu_exact_matches_enumeration)
{
    /* No ties, then ties within and across the samples. */
    const double a[] = { 3, 8, 1, 9 }, b[] = { 4, 2, 7, 6, 5 };
    const double c[] = { 3, 1, 4, 1, 5, 9, 2 }, d[] = { 6, 5, 3, 5, 8, 9 };
    const double e[] = { 0.4, 0.4, 0.41, 0.41, 0.42 }, f[] = { 1, 1, 1, 2, 2 };
    const double g[] = { 7, 7, 7, 7, 7, 8 }, h[] = { 7, 7, 6, 7 };
    const struct {
        const double *x, *y;
        int nx, ny;
    } cases[] = { { a, b, 4, 5 }, { c, d, 7, 6 }, { e, f, 5, 5 }, { g, h, 6, 4 },
                  { d, a, 6, 4 }, { f, c, 5, 7 } };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gb_mwu r;
        CHECK(gb_mann_whitney(cases[i].x, (size_t)cases[i].nx, cases[i].y,
                              (size_t)cases[i].ny, GB_MWU_AUTO, &r) == 0);
        CHECK(r.exact);
        CHECK_NEAR(r.p, brute_force_p(cases[i].x, cases[i].nx, cases[i].y, cases[i].ny),
                   1e-14);
    }
}

/* The exact distribution of U by enumerating every split of the ranks, for
 * sizes where that is cheap. */
TEST(mwu_exact_cdf_matches_enumeration)
{
    const int sizes[][2] = { { 1, 1 }, { 2, 5 }, { 5, 5 }, { 8, 6 }, { 3, 9 }, { 7, 7 } };

    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int nx = sizes[s][0], ny = sizes[s][1], total = nx + ny, splits = 0;
        long counts[64] = { 0 };
        long below = 0;

        for (unsigned mask = 0; mask < 1u << total; mask++) {
            int u = 0, ys_below = 0;
            if (__builtin_popcount(mask) != nx)
                continue;
            for (int r = 0; r < total; r++) {
                if (mask >> r & 1u)
                    u += ys_below;
                else
                    ys_below++;
            }
            counts[u]++;
            splits++;
        }
        for (int u = 0; u <= nx * ny; u++) {
            below += counts[u];
            CHECK_NEAR(gb_mwu_exact_cdf((size_t)nx, (size_t)ny, u), (double)below / splits,
                       1e-14);
        }
    }
}

/* At the largest exact size the distribution still sums to C(40,20) and is
 * symmetric about 200. */
TEST(mwu_exact_cdf_20x20)
{
    double at199 = gb_mwu_exact_cdf(20, 20, 199), at200 = gb_mwu_exact_cdf(20, 20, 200);

    CHECK_NEAR(gb_mwu_exact_cdf(20, 20, 400), 1.0, 1e-15);
    CHECK_NEAR(at199, 1.0 - at200, 1e-15);
    /* One split of C(40,20) = 137846528820 gives U = 0. */
    CHECK_NEAR(gb_mwu_exact_cdf(20, 20, 0) * 137846528820.0, 1.0, 1e-9);
    CHECK(isnan(gb_mwu_exact_cdf(21, 20, 3)));
    CHECK(isnan(gb_mwu_exact_cdf(0, 20, 3)));
}

/* Ties at small n: scipy's permutation_test (exhaustive) for the exact
 * path, its asymptotic method for the approximation. */
TEST(mwu_ties_exact_scipy)
{
    const double x[] = { 3, 1, 4, 1, 5, 9, 2, 6, 5, 3 }, y[] = { 5, 8, 9, 7, 9, 3, 2, 3 };
    const double e[] = { 0.4, 0.4, 0.41, 0.41, 0.42 }, f[] = { 1, 1, 1, 2, 2 };
    gb_mwu r;

    CHECK(gb_mann_whitney(x, 10, y, 8, GB_MWU_AUTO, &r) == 0);
    CHECK(r.exact && r.ties);
    CHECK_NEAR(r.u1, 25.5, 0.0);
    CHECK_NEAR(r.p, 0.20576808812102929, 1e-14);

    /* Completely separated, ties only within each side: the approximation
     * misses alpha 0.01, the exact test does not. */
    CHECK(gb_mann_whitney(e, 5, f, 5, GB_MWU_NORMAL, &r) == 0);
    CHECK_NEAR(r.p, 0.010417773157830204, 1e-14);
    CHECK(gb_mann_whitney(e, 5, f, 5, GB_MWU_AUTO, &r) == 0);
    CHECK(r.exact);
    CHECK_NEAR(r.p, 2.0 / 252.0, 1e-15);
}

static void fill_mod(double *v, int n, int step, int mod, double offset)
{
    for (int i = 0; i < n; i++)
        v[i] = (i * step) % mod + offset;
}

/* 20 x 20 without ties: the exact p, and the normal approximation next to
 * it, both from scipy: the approximation is off by 0.004 here. */
TEST(mwu_20x20_exact_vs_normal)
{
    double x[21], y[21];
    gb_mwu r;

    fill_mod(x, 20, 7, 40, 0.25);
    fill_mod(y, 20, 11, 40, 2.5);
    CHECK(gb_mann_whitney(x, 20, y, 20, GB_MWU_AUTO, &r) == 0);
    CHECK(r.exact);
    CHECK_NEAR(r.u1, 174.0, 0.0);
    CHECK_NEAR(r.p, 0.4945234964967034, 1e-13);
    CHECK(gb_mann_whitney(x, 20, y, 20, GB_MWU_NORMAL, &r) == 0);
    CHECK(!r.exact);
    CHECK_NEAR(r.p, 0.49033426450951045, 1e-13);

    /* 21 x 21 goes to the normal approximation, and cannot be exact. */
    fill_mod(x, 21, 5, 42, 0.25);
    fill_mod(y, 21, 11, 42, 3.5);
    CHECK(gb_mann_whitney(x, 21, y, 21, GB_MWU_AUTO, &r) == 0);
    CHECK(!r.exact);
    CHECK(!r.ties);
    CHECK_NEAR(r.u1, 165.0, 0.0);
    CHECK_NEAR(r.p, 0.16649147398308384, 1e-12);
    CHECK(gb_mann_whitney(x, 21, y, 21, GB_MWU_EXACT, &r) == -1);
}

/* 50 x 50 timings rounded to 0.1 us, with many ties (60 distinct values). */
TEST(mwu_50x50_ties_scipy)
{
    double x[50], y[50];
    gb_mwu r;

    for (int i = 0; i < 50; i++) {
        x[i] = round((100.0 + ((i * 37) % 50) * 0.1) * 10.0) / 10.0;
        y[i] = round((101.0 + ((i * 23) % 50) * 0.1) * 10.0) / 10.0;
    }
    CHECK(gb_mann_whitney(x, 50, y, 50, GB_MWU_AUTO, &r) == 0);
    CHECK(r.ties);
    CHECK(!r.exact);
    CHECK_NEAR(r.u1, 800.0, 0.0);
    CHECK_NEAR(r.p, 0.0019408067072591555, 1e-14);
}

/* Completely separated 50 x 50: deep in the tail, where a relative error
 * is what matters. */
TEST(mwu_50x50_separated_scipy)
{
    double x[50], y[50];
    gb_mwu r;

    for (int i = 0; i < 50; i++) {
        x[i] = 100 + i;
        y[i] = 200 + i;
    }
    CHECK(gb_mann_whitney(x, 50, y, 50, GB_MWU_AUTO, &r) == 0);
    CHECK_NEAR(r.u1, 0.0, 0.0);
    CHECK_NEAR(r.p / 7.066071930388932e-18, 1.0, 1e-9);
}

TEST(mwu_degenerate_inputs)
{
    const double same[] = { 5, 5, 5, 5, 5 }, bad[] = { 1, NAN, 3 };
    gb_mwu r;

    /* All values equal: no evidence, by either method. */
    CHECK(gb_mann_whitney(same, 5, same, 5, GB_MWU_AUTO, &r) == 0);
    CHECK_NEAR(r.p, 1.0, 0.0);
    CHECK_NEAR(r.u1, 12.5, 0.0);
    CHECK(gb_mann_whitney(same, 5, same, 5, GB_MWU_NORMAL, &r) == 0);
    CHECK_NEAR(r.p, 1.0, 0.0);
    /* One equal value on each side: a tie, U1 at the centre, p = 1. */
    CHECK(gb_mann_whitney(bad, 1, bad, 1, GB_MWU_AUTO, &r) == 0);
    CHECK(r.ties);
    CHECK_NEAR(r.u1, 0.5, 0.0);
    CHECK_NEAR(r.p, 1.0, 0.0);
    CHECK(gb_mann_whitney(same, 0, same, 5, GB_MWU_AUTO, &r) == -1);
    CHECK(gb_mann_whitney(same, 5, same, 0, GB_MWU_AUTO, &r) == -1);
    CHECK(gb_mann_whitney(bad, 3, same, 5, GB_MWU_AUTO, &r) == -1);
}
