/*
 * forkjoin.c - the fixed cost of a threaded call: an empty OpenMP parallel
 * region at 1 and at n threads, and one system call, each the median of
 * trials that time many of them together.
 *
 * Why a benchmark measures it: every schedule here opens one parallel
 * region per call, and what that costs is the machine's, not the
 * schedule's.  libgomp (GCC 12) ends every barrier with a futex wake,
 * whether or not a thread sleeps on it: one system call per region at 1
 * thread, two at 2 (the start's dock and the end's barrier; strace counts
 * them).  A system call costs about 1 us on the paravirtualized guest the
 * packed notes were measured on (results/notes/packed-zen5.md), so a
 * 2-thread region costs about 3 us there: 6 % of a 50 us call (qkv at
 * M = 16).  Every OpenMP library in the process (oneDNN included) pays the
 * same.
 */
#define _GNU_SOURCE /* syscall() */
#include "forkjoin.h"
#include "harness.h"
#include "stats.h"

#include <omp.h>
#include <stdlib.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

/* Regions and system calls per trial: enough that the clock's own cost
 * (tens of ns) is lost in a trial of a millisecond or so. */
#define REGIONS_PER_TRIAL 200
#define SYSCALLS_PER_TRIAL 1000

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

int gb_forkjoin_measure(int threads, int trials, gb_forkjoin *out)
{
    double *one, *many, *sys;
    volatile int *slots;

    if (out == NULL || threads < 1 || trials < 1)
        return -1;
    one = malloc((size_t)trials * sizeof *one);
    many = malloc((size_t)trials * sizeof *many);
    sys = malloc((size_t)trials * sizeof *sys);
    slots = calloc((size_t)threads, sizeof *slots);
    if (one == NULL || many == NULL || sys == NULL || slots == NULL) {
        free(one);
        free(many);
        free(sys);
        free((void *)slots);
        return -1;
    }
    /* A warm-up region: the threads exist before the first trial. */
    (void)region_trial(threads, slots);
    /* Interleaved, so that a busy moment of the host reaches both counts. */
    for (int t = 0; t < trials; t++) {
        one[t] = region_trial(1, slots);
        many[t] = region_trial(threads, slots);
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
#if defined(__linux__) && defined(SYS_getppid)
    out->syscall_us = median(sys, trials);
#else
    out->syscall_us = -1.0;
#endif
    free(one);
    free(many);
    free(sys);
    free((void *)slots);
    return out->region_1t_us < 0.0 || out->region_us < 0.0 ? -1 : 0;
}
