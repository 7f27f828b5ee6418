/* peak.h - the machine's measured FP32 FMA peak (src/measure/peak.c): what every
 * result's percent of peak divides by. */
#ifndef GB_PEAK_H
#define GB_PEAK_H

#include <stdio.h>

#include "machine.h"

/* Measures the FP32 FMA peak for the run's thread count (and one thread)
 * into m; quiet suppresses the note on stderr. */
void gb_peak_for_run(gb_machine *m, int threads, int quiet);
/* The peak at each of n thread counts (ascending) into peaks[i]: measured
 * once per count; m gets the one-thread and the largest count's figures as
 * gb_peak_for_run would.  One note per count on stderr unless quiet. */
void gb_peak_for_counts(gb_machine *m, const int *counts, int n, double *peaks, int quiet);
/* Type t's peak (t not f32: bf16's vdpbf16ps, u8s8's vpdpbusd loop, or
 * the portable loop where the CPU lacks them) at each of n thread counts
 * (ascending) into peaks[i], and into m's peak_dtype[t] (the largest
 * count's), peak_dtype_1t[t] and peak_dtype_isa[t], as gb_peak_for_counts
 * does for f32.  GFLOP/s for bf16, GOP/s for u8s8. */
void gb_peak_dtype_for_counts(gb_machine *m, gb_dtype t, const int *counts, int n,
                              double *peaks, int quiet);
/* What measuring the peak does for the threads, without the figure: a
 * tenth of a second of the FMA loop on every thread, so that the OpenMP
 * threads exist and the scheduler has spread them over the CPUs before the
 * first timed call (a process started with --peak would otherwise time its
 * first calls with two threads sharing one CPU: 4 to 8 ms instead of 0.4). */
void gb_peak_settle(int threads);
/* `gemmbench info`'s peak lines. */
void gb_peak_info(FILE *out, gb_machine *m);
/* One thread's sustained FP32 rates (src/measure/peak.c): trials of trial_s seconds
 * alternating the FMA loop and a loop shaped like the packed micro-kernel;
 * GFLOP/s, median and best of each.  0, or -1 on bad arguments or no memory. */
typedef struct gb_sustained_peak {
    int trials;
    double trial_s;
    double fma_median, fma_best;
    double kernel_median, kernel_best;
    char isa[16];
} gb_sustained_peak;
int gb_peak_sustained(int trials, double trial_s, gb_sustained_peak *out);

#endif
