/* forkjoin.h - what a threaded call pays before its first FLOP
 * (src/measure/forkjoin.c): an empty OpenMP parallel region, and a system
 * call, measured.  `gemmbench info` prints them. */
#ifndef GB_FORKJOIN_H
#define GB_FORKJOIN_H

typedef struct gb_forkjoin {
    int threads;        /* the second region's thread count */
    int trials;         /* medians of this many trials */
    double region_1t_us; /* an empty `omp parallel num_threads(1)`, microseconds */
    double region_us;   /* the same with `threads` threads */
    double syscall_us;  /* one system call (getppid), or -1: not measured here */
} gb_forkjoin;

/* Medians of trials trials (each many regions or calls, timed together).
 * 0, or -1 on bad arguments (threads < 1, trials < 1) or no memory. */
int gb_forkjoin_measure(int threads, int trials, gb_forkjoin *out);

#endif
