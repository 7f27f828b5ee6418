/*
 * result.h - one measurement's result in memory, as the run keeps it and
 * the writer (output.h) writes it: what ran, its samples and their rounds,
 * the statistics, the check and the roof.  gb_result_merge is the one merge
 * of a later round's samples into an entry, for the run and for gemmbench
 * ab's documents (resultfile.h: gb_result_file_merge).
 */
#ifndef GB_RESULT_H
#define GB_RESULT_H

#include "gemmbench.h"
#include "sweep.h"
#include "stats.h"

typedef enum gb_check {
    GB_CHECK_SKIPPED = 0, GB_CHECK_PASS, GB_CHECK_FAIL
} gb_check;

/* What the machine did while one round of an entry's timed calls ran
 * (gb_clock_span, harness.h): the spans of timed calls only, so that
 * gemmbench ab's turns (the other build's time) are left out.  A round
 * slowed by steal shows steal_s > 0 and cpu_s falling behind wall_s; one
 * slowed by another process on these CPUs, nivcsw rising and no steal. */
typedef struct gb_round_clock {
    int round;                 /* from 1, as sample_round */
    double wall_s;             /* monotonic seconds over the timed calls */
    double cpu_s;              /* CLOCK_PROCESS_CPUTIME_ID over the same spans: every
                                  thread of the process, so with T OpenMP threads
                                  up to T x wall_s */
    double steal_s;            /* /proc/stat's steal over the spans, summed over the
                                  machine's CPUs, seconds (1/CLK_TCK resolution);
                                  NAN when unknown */
    long nivcsw;               /* getrusage(RUSAGE_SELF) ru_nivcsw over the spans:
                                  every thread's; -1 when unknown */
} gb_round_clock;

typedef struct gb_result {
    const gb_variant *variant;
    gb_dtype dtype;            /* the operands' type: shape.dtype */
    char impl[64];             /* the typed kernel's code path ("avx512_bf16",
                                  oneDNN's "brg:avx512_core_bf16"); "" none said */
    char label[128];           /* name, name[k=v,...] when overridden, +prepack */
    gb_params params;          /* what the user set */
    gb_params effective;       /* what ran (from the variant's resolve), if any */
    int has_effective;
    gb_shape shape;
    int threads, prepack;
    int reps;
    int rounds;                /* measurements merged into this result */
    double *samples_us;        /* reps entries, owned */
    int *sample_round;         /* the round (from 1) each sample was taken in; owned;
                                  NULL until the runner tags them */
    gb_round_clock *round_clocks;  /* one per round measured; owned; NULL none */
    int nround_clocks;
    gb_stats stats;
    double gflops;
    double peak_pct;           /* NAN when the peak is unknown */
    double speedup;            /* over baseline on the same shape; NAN when unknown */
    gb_check check;
    int check_exact;           /* 1: compared exactly; 0: with a tolerance */
    long mismatches;
    double max_abs_err;
    /* Cache mode and the roof (src/machine/roof.c; set by the runner). */
    int cold;                  /* measured with --cache cold */
    int copies;                /* operand sets rotated (1 warm) */
    double intensity;          /* flop per compulsory byte */
    int roof_level;            /* where the operands live: GB_BW_L2 .. GB_BW_MEM */
    int roof_bound;            /* GB_ROOF_COMPUTE or the level */
    double attainable_gflops;  /* NAN when unknown */
    double roof_pct;           /* NAN when unknown */
} gb_result;

/* FLOPs of one GEMM: 2 M N K. */
double gb_flops(int M, int K, int N);

void gb_result_free(gb_result *r);

/* Appends part's samples to into's (a later round of the same entry) and
 * recomputes into's statistics; part's round clocks join into's (a round
 * into already has adds up: both are spans of that round).  part is left
 * alone.  0, or -1 when out of memory (into unchanged). */
int gb_result_merge(gb_result *into, const gb_result *part);

/* The median of the samples r took in round (from 1); NAN when it has none
 * there, its samples are not tagged, or memory runs out. */
double gb_result_round_median(const gb_result *r, int round);

/* Adds c's spans to the clock of its round in *clocks (n of them),
 * appending it when the round is new.  0, or -1 when out of memory. */
int gb_round_clock_merge(gb_round_clock **clocks, int *n, const gb_round_clock *c);

#endif
