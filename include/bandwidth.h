/*
 * bandwidth.h - measured read and triad bandwidths at each level a GEMM's
 * operands can live in (L2, L3, memory), on one thread and on all threads:
 * the bandwidth roofs of every result (src/machine/roof.c).  The method is in
 * src/measure/bandwidth.md.  Library code: it prints nothing.
 */
#ifndef GB_BANDWIDTH_H
#define GB_BANDWIDTH_H

#include <stddef.h>

/* What it measures into: gb_bandwidth, a part of the machine's record. */
#include "machine.h"

/* What the probe measures with: the machine's caches (bytes; 0 unknown),
 * the available memory, and how much work.  quick: the tests' mode (one
 * trial per figure, memory working set 2x the last-level cache instead of
 * 4x), set by gb_bw_plan_init from GEMMBENCH_BANDWIDTH=quick. */
typedef struct gb_bw_plan {
    long l2_bytes;           /* per core */
    long l3_bytes;           /* shared; 0 when the machine has none */
    size_t mem_available;    /* bytes; 0 unknown */
    int threads;
    int trials;
    int quick;
} gb_bw_plan;

/* The plan for this machine's caches.  threads >= 1. */
void gb_bw_plan_init(gb_bw_plan *p, long l2_bytes, long l3_bytes, int threads);

/* Measures every level the plan allows into bw.  0, or -1 with err when
 * nothing could be measured (no cache sizes known, out of memory); a level
 * that cannot be measured (no L3) stays 0. */
int gb_bw_measure(const gb_bw_plan *p, gb_bandwidth *bw, char *err, size_t errlen);

/* The sweep: one thread's best read rate from 16 KiB up to twice
 * largest_reported (at least 128 MiB, at most 1 GiB and half the available
 * memory), a few points an octave, within a time budget, into lv's points
 * (lv->swept 1 when it ran).  Finding the levels is gb_bw_find_levels'. */
void gb_bw_sweep(const gb_bw_plan *p, long largest_reported, gb_cache_levels *lv);

/* Measures m's bandwidths for threads: the full probe sweeps first and
 * sizes the levels from what it found (m->bw.levels), the quick one uses
 * the reported caches (gb_bw_measure).
 * 0, or -1 with err (m->bw then says nothing was measured). */
int gb_machine_measure_bandwidth(gb_machine *m, int threads, char *err, size_t errlen);

/* A knee of the sweep's curve: the working set where the read rate falls
 * from one plateau to the next (src/measure/levels.c). */
typedef struct gb_bw_knee {
    double bytes;            /* where the curve crosses the plateaus' geometric middle */
    double above_gbs, below_gbs;   /* the plateaus' medians */
} gb_bw_knee;

/* The knees of the curve gbs(bytes), bytes ascending, at most max; the count. */
int gb_bw_knees(const double *bytes, const double *gbs, int n, gb_bw_knee *knees, int max);

/* From lv's points (bytes, gbs, npoints) and reported sizes: the knees
 * matched to L1d, L2, L3 (measured, level_gbs, memory_gbs), and the size used
 * for each level with the reason (used, why). */
void gb_bw_find_levels(gb_cache_levels *lv);

#endif
