/*
 * roof.h - the roofline of a result (Williams, Waterman, Patterson, CACM
 * 2009): its arithmetic intensity, the level its operands stream from under
 * the cache mode, and the attainable rate min(peak, intensity x bandwidth),
 * from the machine's record.  A model, measuring nothing (src/machine/roof.c);
 * its choices are in src/measure/bandwidth.md.  Library code.
 */
#ifndef GB_ROOF_H
#define GB_ROOF_H

#include <stddef.h>

#include "machine.h"

#define GB_ROOF_COMPUTE (-1)

typedef struct gb_roof {
    double intensity;          /* flop per compulsory byte */
    double working_set;        /* bytes of A, B and C */
    int level;                 /* GB_BW_L2, GB_BW_L3, GB_BW_MEM: where the operands live */
    int bound;                 /* GB_ROOF_COMPUTE or the level: which roof is lower */
    double bandwidth_gbs;      /* the level's bandwidth at the threads (gb_roof_bandwidth) */
    double peak_gflops;        /* at the threads */
    double attainable_gflops;  /* min(peak, intensity x bandwidth) */
} gb_roof;

/* Compulsory bytes of C = A B in fp32: A and B read once, C written once
 * (C's write-allocate read is not counted).  4 (MK + KN + MN). */
double gb_compulsory_bytes(int M, int K, int N);
/* 2 M N K / the compulsory bytes. */
double gb_intensity(int M, int K, int N);
/* The same for operands of type t: its bytes per element of A, B and C. */
double gb_compulsory_bytes_dtype(gb_dtype t, int M, int K, int N);
double gb_intensity_dtype(gb_dtype t, int M, int K, int N);

/* The level a working set of ws bytes lives in between calls: warm, the
 * first whose capacity holds it (L2 per core, times threads for threads >
 * 1; then the shared L3; else memory); cold, memory.  l2 and l3 are the
 * machine's sizes (0 unknown: that level holds nothing). */
int gb_roof_level(double ws, long l2, long l3, int threads, int cold);

/* The bandwidth roof of a level (all: 1 for all threads, 0 for one): the
 * higher of its best read and best triad figure, the most the level was seen
 * to deliver; for all threads at least one thread's figure, and at least the
 * roof of every level outside it, so that the roof stays an upper bound on a
 * busy machine too.  0 when the level was not measured. */
double gb_roof_bandwidth(const gb_bandwidth *bw, int level, int all);

/* The roof of shape M x K x N at threads under the cache mode, from m's
 * peaks and bandwidths.  0, or -1 when m lacks the peak or the level's
 * bandwidth (r then has the intensity and level only). */
int gb_roof_for(const gb_machine *m, int M, int K, int N, int threads, int cold, gb_roof *r);
/* The same for type t, against t's own peak (m->peak_dtype for bf16, u8s8). */
int gb_roof_for_dtype(const gb_machine *m, gb_dtype t, int M, int K, int N, int threads,
                      int cold, gb_roof *r);

/* A result above its roof by more than this percent has beaten a bound
 * that it cannot beat: the roof's bandwidth was measured low (a busy
 * machine; src/measure/bandwidth.md).  Its %roof is then never shown as a
 * figure: "!roof" and a line saying why, the file's roof_measured_low. */
#define GB_ROOF_PCT_LOW 105.0
/* Whether roof_pct (NAN: none) says the roof was measured low. */
int gb_roof_measured_low(double roof_pct);

/* The name of r's bound: "compute", "L2", "L3", "memory". */
const char *gb_roof_bound_name(int bound);

#endif
