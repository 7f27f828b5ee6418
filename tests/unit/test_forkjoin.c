/* test_forkjoin.c - the fork/join probe (src/measure/forkjoin.c): bad
 * arguments are refused, and a measurement gives finite, positive medians
 * at the counts asked, packed's team's empty call at two threads, a system
 * call's cost where Linux is there, and a
 * cache line's round trip between the process's first two CPUs where it
 * has two (none at 1 thread). */
#define _GNU_SOURCE /* sched_getaffinity */
#include "test.h"

#include <math.h>
#include <omp.h>
#if defined(__linux__)
#include <sched.h>
#endif

#include "forkjoin.h"
#include "packed_team.h"

static void nothing(void *arg, int t, int nt)
{
    (void)arg, (void)t, (void)nt;
}

TEST(forkjoin_refuses_bad_arguments)
{
    gb_forkjoin fj;

    CHECK(gb_forkjoin_measure(0, 3, &fj) == -1);
    CHECK(gb_forkjoin_measure(2, 0, &fj) == -1);
    CHECK(gb_forkjoin_measure(2, 3, NULL) == -1);
}

TEST(forkjoin_measures_both_counts)
{
    gb_forkjoin fj = { .region_1t_us = -1.0, .region_us = -1.0, .team_us = -2.0,
                       .syscall_us = -2.0, .trip_us = -2.0, .trip_cpus = { -2, -2 } };

    CHECK(gb_forkjoin_measure(2, 3, &fj) == 0);
    CHECK_EQ_INT(fj.threads, 2);
    CHECK_EQ_INT(fj.trials, 3);
    /* An empty region takes some time, and far less than a second. */
    CHECK(isfinite(fj.region_1t_us) && fj.region_1t_us > 0.0 && fj.region_1t_us < 1e6);
    CHECK(isfinite(fj.region_us) && fj.region_us > 0.0 && fj.region_us < 1e6);
    /* packed's team's empty call, wherever the team runs two threads here
     * (schedules/packed_team.c says where; test_packed_team.c tests it) */
    if (packed_team_run(2, nothing, NULL))
        CHECK(isfinite(fj.team_us) && fj.team_us > 0.0 && fj.team_us < 1e6);
    else
        CHECK(fj.team_us == -1.0);
    CHECK(gb_forkjoin_measure(1, 2, &fj) == 0);
    CHECK(fj.team_us == -1.0); /* one thread: no team */
    CHECK(gb_forkjoin_measure(2, 3, &fj) == 0);
#if defined(__linux__)
    CHECK(isfinite(fj.syscall_us) && fj.syscall_us > 0.0 && fj.syscall_us < 1e6);
#else
    CHECK(fj.syscall_us == -1.0);
#endif
}

TEST(forkjoin_times_a_line_between_two_cpus)
{
    gb_forkjoin fj;
    int cpus = 1, first[2] = { -1, -1 };

#if defined(__linux__)
    cpu_set_t mask;
    if (sched_getaffinity(0, sizeof mask, &mask) == 0) {
        cpus = 0;
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &mask)) {
                if (cpus < 2)
                    first[cpus] = c;
                cpus++;
            }
    }
#endif
    /* One thread: no trip, whatever the CPUs. */
    CHECK(gb_forkjoin_measure(1, 2, &fj) == 0);
    CHECK(fj.trip_us == -1.0);
    CHECK_EQ_INT(fj.trip_cpus[0], -1);

    CHECK(gb_forkjoin_measure(2, 3, &fj) == 0);
#if defined(__linux__)
    if (cpus >= 2) {
        CHECK(isfinite(fj.trip_us) && fj.trip_us > 0.0 && fj.trip_us < 1e6);
        CHECK_EQ_INT(fj.trip_cpus[0], first[0]);
        CHECK_EQ_INT(fj.trip_cpus[1], first[1]);
        return;
    }
#endif
    CHECK(fj.trip_us == -1.0);
}
