/*
 * test_signedrank.c - the signed-rank test and the Hodges-Lehmann interval
 * against values derived independently: small cases by hand (worked in the
 * comments), the exact distribution with ties against enumeration of every
 * sign pattern, and p-values against scipy 1.10.1
 * (tests/data/signedrank_scipy.py prints the constants used here).
 */
#include "test.h"

#include "signedrank.h"

#include <math.h>
#include <stdlib.h>

/* Ten differences, two negative with the smallest |d| (ranks 1 and 2):
 * W- = 3, W+ = 55 - 3 = 52.  Sign patterns with W- <= 3: {}, {1}, {2},
 * {3}, {1,2}: 5 of 1024, so p = 10/1024. */
TEST(signed_rank_d10_by_hand_and_scipy)
{
    const double d[] = { 0.012, -0.003, 0.021, 0.008, 0.015, -0.001, 0.030, 0.011, 0.006, 0.019 };
    gb_signed_rank r;

    CHECK(gb_signed_rank_test(d, 10, 0.01, &r) == 0);
    CHECK(r.exact);
    CHECK_NEAR(r.w_plus, 52.0, 0.0);
    CHECK_NEAR(r.p, 0.009765625, 1e-15);   /* scipy: 0.009765625 */
    /* The 99% interval: k - 1 = 3 is the largest c with P(W+ <= c) <= 0.005
     * (5/1024 = 0.0049; c = 4 gives 7/1024), so [W_(4), W_(52)] of the 55
     * Walsh averages, at level 1 - 10/1024. */
    CHECK_NEAR(r.level, 1.0 - 10.0 / 1024.0, 1e-15);
    CHECK(r.lo > 0.0);                      /* p < 0.01: the interval excludes 0 */
    CHECK(r.lo < r.estimate && r.estimate < r.hi);
}

TEST(signed_rank_scipy_exact_and_normal)
{
    double d20[20], d60[60];
    gb_signed_rank r;

    for (int i = 0; i < 20; i++)
        d20[i] = ((i * 7) % 20 - 6) * 0.001 + 0.0003;
    for (int i = 0; i < 60; i++)
        d60[i] = ((i * 37) % 60 - 25) * 0.01 + 0.005;
    CHECK(gb_signed_rank_test(d20, 20, 0.01, &r) == 0);
    CHECK(r.exact);
    CHECK_NEAR(r.w_plus, 168.0, 0.0);
    CHECK_NEAR(r.p, 0.017181396484375, 1e-15);
    /* 60 differences with tied |d| (-0.005 and 0.005, ...): the normal
     * approximation with the tie term. */
    CHECK(gb_signed_rank_test(d60, 60, 0.01, &r) == 0);
    CHECK(!r.exact);
    CHECK_NEAR(r.w_plus, 1196.0, 0.0);
    CHECK_NEAR(r.p, 0.03857344515582892, 1e-12);
}

/* Eight rounds all slower: only the all-positive pattern reaches W+ = 36,
 * p = 2/256: the fewest rounds that can pass alpha = 0.01. */
TEST(signed_rank_eight_positive)
{
    const double d[] = { 0.05, 0.06, 0.04, 0.07, 0.05, 0.08, 0.03, 0.06 };
    gb_signed_rank r;

    CHECK(gb_signed_rank_test(d, 8, 0.01, &r) == 0);
    CHECK_NEAR(r.p, 2.0 / 256.0, 1e-15);
    /* Seven cannot: p = 2/128 > 0.01, and no 99% interval exists. */
    CHECK(gb_signed_rank_test(d, 7, 0.01, &r) == 0);
    CHECK_NEAR(r.p, 2.0 / 128.0, 1e-15);
    CHECK(isinf(r.lo) && isinf(r.hi));
}

/* d = {1, 2, 3}: Walsh averages 1, 1.5, 2, 2, 2.5, 3; median 2.  At alpha
 * 0.25: P(W+ <= 0) = 1/8 <= 0.125 but P(W+ <= 1) = 2/8, so c = 0, k = 1:
 * [W_(1), W_(6)] = [1, 3] at level 1 - 2/8. */
TEST(hodges_lehmann_by_hand)
{
    const double d[] = { 3, 1, 2 };
    gb_signed_rank r;

    CHECK(gb_signed_rank_test(d, 3, 0.25, &r) == 0);
    CHECK_NEAR(r.estimate, 2.0, 0.0);
    CHECK_NEAR(r.lo, 1.0, 0.0);
    CHECK_NEAR(r.hi, 3.0, 0.0);
    CHECK_NEAR(r.level, 0.75, 1e-15);
    CHECK_NEAR(r.p, 0.25, 1e-15);   /* W+ = 6: only all-positive, 2 * 1/8 */
}

/* Ties and zeros: zeros are dropped from the test; tied |d| share their
 * average rank, and the exact p is the conditional distribution over sign
 * patterns given those ranks, checked here by enumeration. */
TEST(signed_rank_ties_enumerated)
{
    const double d[] = { 0.5, -0.5, 1.0, 0.0, 2.0, 2.0, -3.0, 1.0, 0.25 };
    const double nz[] = { 0.5, -0.5, 1.0, 2.0, 2.0, -3.0, 1.0, 0.25 };
    /* |d| sorted: .25(1) .5 .5(2.5) 1 1(4.5) 2 2(6.5) 3(8) */
    const double rank[] = { 2.5, 2.5, 4.5, 6.5, 6.5, 8.0, 4.5, 1.0 };
    double w = 0.0;
    int below = 0, above = 0;
    gb_signed_rank r;

    for (int i = 0; i < 8; i++)
        if (nz[i] > 0)
            w += rank[i];
    for (int mask = 0; mask < 256; mask++) {
        double s = 0.0;
        for (int i = 0; i < 8; i++)
            if (mask & (1 << i))
                s += rank[i];
        below += s <= w;
        above += s >= w;
    }
    CHECK(gb_signed_rank_test(d, 9, 0.05, &r) == 0);
    CHECK_EQ_INT(r.nonzero, 8);
    CHECK_NEAR(r.w_plus, w, 0.0);
    CHECK_NEAR(r.p, fmin(1.0, 2.0 * fmin(below, above) / 256.0), 1e-15);
}

TEST(signed_rank_bad_input)
{
    const double d[] = { 1.0, NAN };
    gb_signed_rank r;

    CHECK(gb_signed_rank_test(d, 0, 0.01, &r) == -1);
    CHECK(gb_signed_rank_test(d, 2, 0.01, &r) == -1);
    CHECK(gb_signed_rank_test(d, 1, 0.0, &r) == -1);
    CHECK(gb_signed_rank_test(d, 1, 1.0, &r) == -1);
}

TEST(normal_quantile)
{
    CHECK_NEAR(gb_normal_quantile(0.975), 1.959963984540054, 1e-12);
    CHECK_NEAR(gb_normal_quantile(0.5), 0.0, 1e-12);
    CHECK_NEAR(gb_normal_quantile(0.995), 2.5758293035489004, 1e-12);
}
