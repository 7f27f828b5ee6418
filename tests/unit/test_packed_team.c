/* test_packed_team.c - packed's own threads (schedules/packed_team.c): every
 * thread's part run once a call, the barrier, a sleeping worker woken, where
 * the team stands aside for OpenMP, a fork's child; and packed exact with
 * and without it. */
#define _GNU_SOURCE
#include "gemmbench.h"
#include "packed_team.h"
#include "test.h"
#include "variants.h"
#include "variant_check.h"

#include <omp.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_T 8

typedef struct parts {
    atomic_int ran[MAX_T]; /* per thread number, the parts it ran */
    atomic_int bad_nt;     /* parts told another count than asked */
    int nt;
    atomic_int before[MAX_T]; /* the barrier test: set before it ... */
    atomic_int missed;        /* ... and a thread that found one unset after it */
    int inner;                /* packed_team_run's answer from inside a part */
} parts;

static void count_part(void *arg, int t, int nt)
{
    parts *p = arg;
    if (nt != p->nt)
        atomic_fetch_add(&p->bad_nt, 1);
    if (t >= 0 && t < MAX_T)
        atomic_fetch_add(&p->ran[t], 1);
}

static void barrier_part(void *arg, int t, int nt)
{
    parts *p = arg;
    atomic_store(&p->before[t], 1);
    packed_team_barrier();
    for (int i = 0; i < nt; i++)
        if (!atomic_load(&p->before[i]))
            atomic_fetch_add(&p->missed, 1);
    /* every thread past the barrier before anyone clears for the next run */
    packed_team_barrier();
    atomic_store(&p->before[t], 0);
}

static void nested_part(void *arg, int t, int nt)
{
    parts *p = arg;
    (void)nt;
    if (t == 0)
        p->inner = packed_team_run(2, count_part, p);
}

/* The most threads the tests ask, up to 3: the team refuses more than the
 * places where OpenMP binds threads, or than the CPUs the caller may use;
 * 0 where those are fewer than 2. */
static int team_threads(void)
{
    cpu_set_t set;
    const int p0 = omp_get_place_num();
    const omp_proc_bind_t bind = omp_get_proc_bind();
    /* bound, the caller's own mask is its place's: close and spread give
     * each thread a place, primary all of them the caller's */
    const int most = bind == omp_proc_bind_false || p0 < 0
                         ? (sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1)
                     : bind == omp_proc_bind_master ? omp_get_place_num_procs(p0)
                                                    : omp_get_num_places();
    return most < 2 ? 0 : most < 3 ? 2 : 3;
}

/* The tests that need the team to run two threads here skip elsewhere. */
#define NEED_TEAM()                                                         \
    do {                                                                    \
        if (team_threads() == 0)                                            \
            SKIP("needs 2 usable CPUs (and places, where OpenMP binds threads)"); \
    } while (0)

/* p cleared for runs of nt threads. */
static void parts_for(parts *p, int nt)
{
    memset(p, 0, sizeof *p);
    p->nt = nt;
}

TEST(packed_team_runs_every_part_once)
{
    parts p;
    const int nt = team_threads(), runs = 2000;
    NEED_TEAM();
    parts_for(&p, nt);
    for (int r = 0; r < runs; r++)
        if (!packed_team_run(nt, count_part, &p)) {
            CHECK(r > 0 && "the team ran no call");
            SKIP("the team stands aside here (dynamic OpenMP, or threads it could not start)");
        }
    for (int t = 0; t < nt; t++)
        CHECK_EQ_INT(atomic_load(&p.ran[t]), runs);
    for (int t = nt; t < MAX_T; t++)
        CHECK_EQ_INT(atomic_load(&p.ran[t]), 0);
    CHECK_EQ_INT(atomic_load(&p.bad_nt), 0);
    /* fewer threads than the team has: the others run nothing */
    parts_for(&p, 2);
    CHECK(packed_team_run(2, count_part, &p));
    CHECK_EQ_INT(atomic_load(&p.ran[0]) + atomic_load(&p.ran[1]), 2);
    CHECK_EQ_INT(atomic_load(&p.ran[2]), 0);
}

TEST(packed_team_barrier_holds_every_thread)
{
    parts p;
    const int nt = team_threads();
    NEED_TEAM();
    parts_for(&p, nt);
    for (int r = 0; r < 500; r++)
        if (!packed_team_run(nt, barrier_part, &p)) {
            CHECK(!"the team ran the barrier's call");
            break;
        }
    CHECK_EQ_INT(atomic_load(&p.missed), 0);
}

/* Between calls a worker spins, then sleeps on a futex: a call after a
 * pause longer than the spin must wake it (else this test hangs, and the
 * alarm fails it). */
TEST(packed_team_wakes_a_sleeping_worker)
{
    NEED_TEAM();
    parts p;
    parts_for(&p, 2);
    alarm(60);
    for (int r = 0; r < 10; r++) {
        usleep(2000);
        CHECK(packed_team_run(2, count_part, &p));
    }
    alarm(0);
    CHECK_EQ_INT(atomic_load(&p.ran[1]), 10);
}

TEST(packed_team_stands_aside_for_openmp)
{
    NEED_TEAM();
    parts p;
    atomic_int inside = 0;
    parts_for(&p, 2);
    /* a caller in an OpenMP region */
#pragma omp parallel num_threads(2)
    {
        if (packed_team_run(2, count_part, &p))
            atomic_fetch_add(&inside, 1);
    }
    CHECK_EQ_INT(atomic_load(&inside), 0);
    /* dynamic threads: OpenMP may give fewer */
    omp_set_dynamic(1);
    CHECK(!packed_team_run(2, count_part, &p));
    omp_set_dynamic(0);
    /* a call from inside a call: the team is busy */
    p.inner = -1;
    CHECK(packed_team_run(2, nested_part, &p));
    CHECK_EQ_INT(p.inner, 0);
    /* one thread is not a team's */
    CHECK(!packed_team_run(1, count_part, &p));
    CHECK_EQ_INT(atomic_load(&p.ran[1]), 0);
}

/* A fork's child has none of its parent's threads: its first call makes
 * its own (without, it would wait for ever: the alarm ends it). */
TEST(packed_team_serves_a_forked_child)
{
    NEED_TEAM();
    parts p;
    int status = 0;
    parts_for(&p, 2);
    CHECK(packed_team_run(2, count_part, &p));
    fflush(NULL);
    const pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        alarm(20);
        parts_for(&p, 2);
        const int ran = packed_team_run(2, count_part, &p) && packed_team_run(2, count_part, &p);
        _exit(ran && atomic_load(&p.ran[1]) == 2 ? 0 : 1);
    }
    if (child > 0) {
        CHECK(waitpid(child, &status, 0) == child);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    CHECK(packed_team_run(2, count_part, &p));
}

/* More threads than the CPUs the caller may use: the team stands aside
 * (its workers would spin on a CPU the caller needs).  In a fork's child,
 * whose team is new, pinned to one CPU before its first call. */
TEST(packed_team_stands_aside_on_fewer_cpus)
{
    parts p;
    int status = 0;
    cpu_set_t one;
    parts_for(&p, 2);
    if (omp_get_proc_bind() != omp_proc_bind_false && omp_get_place_num() >= 0)
        SKIP("OpenMP binds threads here: the team counts its places, not the caller's CPUs");
    if (sched_getaffinity(0, sizeof one, &one) != 0 || CPU_COUNT(&one) < 2)
        SKIP("needs 2 usable CPUs");
    fflush(NULL);
    const pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        alarm(20);
        int first = -1;
        for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
            if (CPU_ISSET(c, &one))
                first = c;
        CPU_ZERO(&one);
        CPU_SET(first, &one);
        if (sched_setaffinity(0, sizeof one, &one) != 0)
            _exit(3);
        _exit(packed_team_run(2, count_part, &p) ? 1 : 0);
    }
    if (child > 0) {
        CHECK(waitpid(child, &status, 0) == child);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
}

/* packed exact with its team and with an OpenMP region, on shapes that are
 * multiples of no tile, A packed whole too (the team's barrier). */
TEST(packed_exact_with_and_without_its_team)
{
    const gb_variant *v = gb_variant_find("packed");
    CHECK(v != NULL);
    if (v == NULL)
        return;
    for (int team = 0; team < 2; team++)
        for (int whole = 0; whole < 2; whole++)
            for (int nt = 2; nt <= 3; nt++) {
                gb_params p = { 0 };
                gb_param_set(&p, "team", team ? 0 : 1); /* on, off */
                if (whole)
                    gb_param_set(&p, "apack", 0); /* whole: every thread packs, a barrier */
                CHECK_EQ_INT(run_and_compare(v, &p, 37, 101, 53, 3, nt, 0), 0);
                CHECK_EQ_INT(run_and_compare(v, &p, 61, 77, 300, 0, nt, 1), 0);
            }
}
