/* forkjoin.h - what a threaded call pays before its first FLOP
 * (src/measure/forkjoin.c): an empty OpenMP parallel region, a system
 * call, packed's own threads' empty call and a cache line's round trip
 * between two CPUs, measured.
 * `gemmbench info` prints them. */
#ifndef GB_FORKJOIN_H
#define GB_FORKJOIN_H

typedef struct gb_forkjoin {
    int threads;        /* the second region's thread count */
    int trials;         /* medians of this many trials */
    double region_1t_us; /* an empty `omp parallel num_threads(1)`, microseconds */
    double region_us;   /* the same with `threads` threads */
    double team_us;     /* an empty call of packed's own threads (schedules/packed_team.c)
                         * at `threads`, or -1: not measured (one thread, or the team
                         * stood aside: packed then opens a region) */
    double syscall_us;  /* one system call (getppid), or -1: not measured here */
    double trip_us;     /* a cache line written by one thread, answered by another on
                         * another CPU and back, or -1: not measured (fewer than 2
                         * threads or usable CPUs, or not Linux) */
    int trip_cpus[2];   /* the two CPUs of trip_us (the process's first two), or -1 */
} gb_forkjoin;

/* Medians of trials trials (each many regions, calls or trips, timed
 * together).  0, or -1 on bad arguments (threads < 1, trials < 1) or no
 * memory; a trip not measured is trip_us -1, not a failure. */
int gb_forkjoin_measure(int threads, int trials, gb_forkjoin *out);

#endif
