/*
 * forkjoin.c - the fixed cost of a threaded call: an empty OpenMP parallel
 * region at 1 and at n threads, and one system call, each the median of
 * trials that time many of them together.
 *
 * Why a benchmark measures it: every schedule here but packed opens one
 * parallel region per call, and what that costs is the machine's, not the
 * schedule's.  libgomp (GCC 12) ends every barrier with a futex wake,
 * whether or not a thread sleeps on it: one system call per region at 1
 * thread, two at 2 (the start's dock and the end's barrier; strace counts
 * them).  A system call costs about 1 us on the paravirtualized guest the
 * packed notes were measured on (results/notes/packed-zen5.md), so a
 * 2-thread region costs about 3 us there: 6 % of a 50 us call (qkv at
 * M = 16).  Every OpenMP library in the process (oneDNN included) pays the
 * same.  packed runs its calls on threads of its own (schedules/
 * packed_team.c: a run counter the caller writes, a done line each worker
 * writes): the second figure, an empty call of that team, is what it pays
 * instead (0.8-1.0 us at 2 threads on the family 26 guest, against 3.1-3.7
 * for the region).
 *
 * The fourth figure is what the region's threads pay to hear from each
 * other: a cache line written by one thread, seen and written back by
 * another pinned to a second CPU, there and back, timed over many trips.
 * The two vCPUs of the family 26 guest answered in 0.36-0.49 us, and there
 * a packed A written by both threads and read by both took 1.15-1.24x the
 * time of A read in place at 2 threads (1.00-1.07x at 1): data one thread
 * writes and another reads costs lines at this price.
 */
#define _GNU_SOURCE /* syscall() */
#include "forkjoin.h"
#include "harness.h"
#include "packed_team.h"
#include "stats.h"

#include <omp.h>
#include <stdatomic.h>
#include <stdlib.h>
#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

/* Regions and system calls per trial: enough that the clock's own cost
 * (tens of ns) is lost in a trial of a millisecond or so. */
#define REGIONS_PER_TRIAL 200
#define SYSCALLS_PER_TRIAL 1000
#define TRIPS_PER_TRIAL 500
/* Spins of a waiting thread before it yields its CPU: a trip takes tens
 * where both threads run; where they share a CPU (pinning refused) only a
 * yield lets the other one answer. */
#define SPINS_BEFORE_YIELD 4096

/* The median of v[0..n-1] (stats_compute's), or -1 without memory. */
static double median(const double *v, int n)
{
    gb_stats s;
    return stats_compute(v, (size_t)n, &s) == 0 ? s.median : -1.0;
}

/* One trial: microseconds per empty region of `threads` threads.  Each
 * thread writes its own slot, so the region has a body to run. */
static double region_trial(int threads, volatile int *slots)
{
    const double t0 = gb_now();
    for (int r = 0; r < REGIONS_PER_TRIAL; r++) {
#pragma omp parallel num_threads(threads)
        slots[omp_get_thread_num()] = r;
    }
    return 1e6 * (gb_now() - t0) / REGIONS_PER_TRIAL;
}

static void team_part(void *arg, int t, int nt)
{
    volatile int *slots = arg;
    (void)nt;
    slots[t] = t;
}

/* One trial: microseconds per empty call of packed's team of `threads`
 * threads, or -1 where it stands aside.  Calls back to back, as in a
 * measurement: untimed ones first wake the team (asleep after the regions'
 * trial, and woken onto the caller's CPU where nothing binds it, until
 * the scheduler moves it: 3.5 us a call then, against 0.8) and end
 * libgomp's spinning threads. */
static double team_trial(int threads, volatile int *slots)
{
    for (int r = 0; r < REGIONS_PER_TRIAL; r++)
        if (!packed_team_run(threads, team_part, (void *)slots))
            return -1.0;
    const double t0 = gb_now();
    for (int r = 0; r < REGIONS_PER_TRIAL; r++)
        if (!packed_team_run(threads, team_part, (void *)slots))
            return -1.0;
    return 1e6 * (gb_now() - t0) / REGIONS_PER_TRIAL;
}

#if defined(__linux__)
/* Waits until the line holds v. */
static void wait_for(atomic_long *line, long v)
{
    for (unsigned spins = 1; atomic_load_explicit(line, memory_order_acquire) != v; spins++) {
        if (spins % SPINS_BEFORE_YIELD == 0)
            sched_yield();
#if defined(__x86_64__)
        else
            __builtin_ia32_pause();
#endif
    }
}

/* trip[0..trials-1]: microseconds per round trip of one line between two
 * threads pinned to the process's first two CPUs (cpus[0], cpus[1]), each
 * thread's own CPU mask restored after.  0, or -1: not measured (one CPU,
 * one thread, or a pin refused). */
static int line_trips(int trials, double *trip, int cpus[2])
{
    cpu_set_t mask;
    int found = 0;
    _Alignas(64) atomic_long line = 0;
    atomic_int refused = 0;

    cpus[0] = cpus[1] = -1;
    if (sched_getaffinity(0, sizeof mask, &mask) != 0)
        return -1;
    for (int c = 0; c < CPU_SETSIZE && found < 2; c++)
        if (CPU_ISSET(c, &mask))
            cpus[found++] = c;
    if (found < 2)
        return -1;
#pragma omp parallel num_threads(2)
    {
        const int me = omp_get_thread_num();
        cpu_set_t before, one;
        int pinned = 0;

        if (omp_get_num_threads() == 2 &&
            pthread_getaffinity_np(pthread_self(), sizeof before, &before) == 0) {
            CPU_ZERO(&one);
            CPU_SET(cpus[me], &one);
            pinned = pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0;
        }
        if (!pinned)
            atomic_store(&refused, 1);
#pragma omp barrier
        if (!atomic_load(&refused)) {
            long v = 0;
            for (int t = 0; t < trials; t++) {
                const double t0 = gb_now();
                for (int i = 0; i < TRIPS_PER_TRIAL; i++, v += 2) {
                    if (me == 0) {
                        atomic_store_explicit(&line, v + 1, memory_order_release);
                        wait_for(&line, v + 2);
                    } else {
                        wait_for(&line, v + 1);
                        atomic_store_explicit(&line, v + 2, memory_order_release);
                    }
                }
                if (me == 0)
                    trip[t] = 1e6 * (gb_now() - t0) / TRIPS_PER_TRIAL;
            }
        }
        if (pinned)
            (void)pthread_setaffinity_np(pthread_self(), sizeof before, &before);
    }
    return atomic_load(&refused) ? -1 : 0;
}
#endif

int gb_forkjoin_measure(int threads, int trials, gb_forkjoin *out)
{
    double *one, *many, *team, *sys, *trip;
    volatile int *slots;

    if (out == NULL || threads < 1 || trials < 1)
        return -1;
    one = malloc((size_t)trials * sizeof *one);
    many = malloc((size_t)trials * sizeof *many);
    team = malloc((size_t)trials * sizeof *team);
    sys = malloc((size_t)trials * sizeof *sys);
    trip = malloc((size_t)trials * sizeof *trip);
    slots = calloc((size_t)threads, sizeof *slots);
    if (one == NULL || many == NULL || team == NULL || sys == NULL || trip == NULL ||
        slots == NULL) {
        free(one);
        free(many);
        free(team);
        free(sys);
        free(trip);
        free((void *)slots);
        return -1;
    }
    /* A warm-up region and team call: the threads exist before the first
     * trial. */
    (void)region_trial(threads, slots);
    int teamed = threads > 1 && team_trial(threads, slots) >= 0.0;
    /* Interleaved, so that a busy moment of the host reaches every count
     * (the team's first call after a region also ends libgomp's spinning
     * threads, as in a run where packed follows an OpenMP library). */
    for (int t = 0; t < trials; t++) {
        one[t] = region_trial(1, slots);
        many[t] = region_trial(threads, slots);
        if (teamed && (team[t] = team_trial(threads, slots)) < 0.0)
            teamed = 0;
#if defined(__linux__) && defined(SYS_getppid)
        const double t0 = gb_now();
        for (int c = 0; c < SYSCALLS_PER_TRIAL; c++)
            (void)syscall(SYS_getppid);
        sys[t] = 1e6 * (gb_now() - t0) / SYSCALLS_PER_TRIAL;
#endif
    }
    out->threads = threads;
    out->trials = trials;
    out->region_1t_us = median(one, trials);
    out->region_us = median(many, trials);
    out->team_us = teamed ? median(team, trials) : -1.0;
#if defined(__linux__) && defined(SYS_getppid)
    out->syscall_us = median(sys, trials);
#else
    out->syscall_us = -1.0;
#endif
    /* After the regions, not between them: its threads are pinned. */
    out->trip_us = -1.0;
    out->trip_cpus[0] = out->trip_cpus[1] = -1;
#if defined(__linux__)
    if (threads > 1 && line_trips(trials, trip, out->trip_cpus) == 0)
        out->trip_us = median(trip, trials);
#endif
    free(one);
    free(many);
    free(team);
    free(sys);
    free(trip);
    free((void *)slots);
    return out->region_1t_us < 0.0 || out->region_us < 0.0 ? -1 : 0;
}
