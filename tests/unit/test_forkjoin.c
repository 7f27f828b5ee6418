/* test_forkjoin.c - the fork/join probe (src/measure/forkjoin.c): bad
 * arguments are refused, and a measurement gives finite, positive medians
 * at the counts asked, and a system call's cost where Linux is there. */
#include "test.h"

#include <math.h>

#include "forkjoin.h"

TEST(forkjoin_refuses_bad_arguments)
{
    gb_forkjoin fj;

    CHECK(gb_forkjoin_measure(0, 3, &fj) == -1);
    CHECK(gb_forkjoin_measure(2, 0, &fj) == -1);
    CHECK(gb_forkjoin_measure(2, 3, NULL) == -1);
}

TEST(forkjoin_measures_both_counts)
{
    gb_forkjoin fj = { 0, 0, -1.0, -1.0, -2.0 };

    CHECK(gb_forkjoin_measure(2, 3, &fj) == 0);
    CHECK_EQ_INT(fj.threads, 2);
    CHECK_EQ_INT(fj.trials, 3);
    /* An empty region takes some time, and far less than a second. */
    CHECK(isfinite(fj.region_1t_us) && fj.region_1t_us > 0.0 && fj.region_1t_us < 1e6);
    CHECK(isfinite(fj.region_us) && fj.region_us > 0.0 && fj.region_us < 1e6);
#if defined(__linux__)
    CHECK(isfinite(fj.syscall_us) && fj.syscall_us > 0.0 && fj.syscall_us < 1e6);
#else
    CHECK(fj.syscall_us == -1.0);
#endif
}
