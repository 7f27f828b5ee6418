/* test_stats.c - statistics against values worked out by hand. */
#include "test.h"

#include "stats.h"

TEST(stats_odd_count)
{
    /* sorted: 1 2 3 4 100; mean 22; deviations from 3: 2 1 0 1 97 -> MAD 1 */
    const double x[] = { 4, 1, 100, 3, 2 };
    gb_stats s;
    CHECK(stats_compute(x, 5, &s) == 0);
    CHECK_EQ_INT(s.n, 5);
    CHECK_NEAR(s.median, 3.0, 0);
    CHECK_NEAR(s.min, 1.0, 0);
    CHECK_NEAR(s.max, 100.0, 0);
    CHECK_NEAR(s.mean, 22.0, 1e-12);
    /* sum of squares about 22: 441+400+361+324+6084 = 7610; /4 = 1902.5 */
    CHECK_NEAR(s.stddev, 43.617656975128774, 1e-9);
    CHECK_NEAR(s.cv, 43.617656975128774 / 22.0, 1e-12);
    CHECK_NEAR(s.mad, 1.0, 0);
    /* type-7 quantiles: p10 at rank 0.4 -> 1.4; p90 at rank 3.6 -> 4 + 0.6*96 */
    CHECK_NEAR(s.p10, 1.4, 1e-12);
    CHECK_NEAR(s.p90, 61.6, 1e-12);
    /* the input is not reordered */
    CHECK_NEAR(x[0], 4.0, 0);
}

TEST(stats_even_count_and_single)
{
    const double x[] = { 10, 20, 30, 40 };
    const double one[] = { 7.5 };
    gb_stats s;
    CHECK(stats_compute(x, 4, &s) == 0);
    CHECK_NEAR(s.median, 25.0, 0);
    CHECK_NEAR(s.mad, 10.0, 0); /* |x-25| = 15 5 5 15 -> median 10 */
    CHECK(stats_compute(one, 1, &s) == 0);
    CHECK_NEAR(s.median, 7.5, 0);
    CHECK_NEAR(s.stddev, 0.0, 0);
    CHECK_NEAR(s.p90, 7.5, 0);
    CHECK(stats_compute(x, 0, &s) != 0);
}

TEST(stats_quantile_edges)
{
    const double sorted[] = { 1, 2, 3 };
    CHECK_NEAR(stats_quantile_sorted(sorted, 3, 0.0), 1.0, 0);
    CHECK_NEAR(stats_quantile_sorted(sorted, 3, 1.0), 3.0, 0);
    CHECK_NEAR(stats_quantile_sorted(sorted, 3, 0.25), 1.5, 1e-15);
    CHECK(isnan(stats_quantile_sorted(sorted, 0, 0.5)));
}
