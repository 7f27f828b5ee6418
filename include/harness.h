/*
 * harness.h - one measurement and its verification:
 * inputs allocated and filled once per shape, the kernel checked against a
 * reference, W warm-up calls, then R calls each timed alone.
 */
#ifndef GB_HARNESS_H
#define GB_HARNESS_H

#include <signal.h>
#include <stddef.h>

#include "gemmbench.h"
#include "sweep.h"
#include "result.h"
#include "stats.h"

/* Operands of one shape, shared by every variant measured on it. */
typedef struct gb_workspace {
    int M, K, N;
    gb_dtype dtype;
    float *A, *B, *C;  /* f32's operands; NULL for the other types */
    /* Every type's operands as bytes (f32: A, B, C above), elements of
     * gb_dtype_size_a/b/c bytes, rows K, N and N apart. */
    void *a, *b, *c;
    double *ref;       /* C computed by the reference, on first need (f32, bf16) */
    int64_t *iref;     /* the same in 64-bit integers (u8s8) */
    int exact;         /* integer inputs make every summation order exact */
    int fill_a, fill_b; /* the inputs' ranges: A in [-fill_a, fill_a] (u8s8:
                           [0, fill_a]), B in [-fill_b, fill_b] (u8s8: -fill_b - 1
                           too) */
    /* Cold cache (gb_workspace_go_cold): copies sets of operands, set 0
     * being A, B and C above, the others in one buffer each; the timed
     * calls take them in turn.  copies 1 and cold 0: warm. */
    int cold, copies;
    float *Acopies, *Bcopies, *Ccopies; /* f32's: the same buffers as below */
    void *acopies, *bcopies, *ccopies;
} gb_workspace;

/* At most this many timed calls per measurement when min_time asks for more
 * than reps (a 1-us call and a long min_time would otherwise fill memory). */
#define GB_MAX_CALLS 100000

typedef struct gb_measure_cfg {
    int warmup, reps, min_reps;
    double max_time;   /* seconds: caps warm-up and timed calls, past min_reps */
    int check;
    int nthreads;      /* for the reference */
    double min_time;   /* seconds: timed calls go on past reps until this much
                          (up to max_calls calls); 0 none */
    int max_calls;     /* min_time's cap: at most this many calls (0, or above
                          GB_MAX_CALLS: GB_MAX_CALLS) */
    /* gemmbench ab's turns (lockstep.h): with slice > 0, after every slice
     * seconds of timed calls, pause() hands the turn back and returns when
     * it is this build's again: 0, or -1 to stop as on Ctrl-C. */
    double slice;
    int (*pause)(void *arg);
    void *pause_arg;
} gb_measure_cfg;

/* Bytes the harness needs for a shape, overflow-safe.  Returns 0, or -1 when
 * the size does not fit in size_t. */
int gb_shape_bytes(int M, int K, int N, size_t *bytes);

/* 0 when the shape's operands fit in available memory, else -1 with err. */
int gb_shape_check(int M, int K, int N, char *err, size_t errlen);

/* Checks memory, allocates and fills A and B with small integers.
 * Returns 0, or -1 with err (too big for memory, out of memory). */
int gb_workspace_init(gb_workspace *w, int M, int K, int N, char *err, size_t errlen);
/* The same for operands of type t (gb_workspace_init is t = f32).  The
 * inputs are integers in ranges where every sum is exact in the type's
 * accumulator whatever its order: bf16 |x| <= 64 while K * 64 * 64 <= 2^24
 * (smaller beyond), u8s8 A in 0..255 and B in -128..127 while no sum can
 * leave int32 (smaller beyond). */
int gb_workspace_init_dtype(gb_workspace *w, gb_dtype t, int M, int K, int N, char *err,
                            size_t errlen);
/* Set i's operands of any type (gb_workspace_set is f32's). */
void gb_workspace_set_bytes(const gb_workspace *w, int i, const void **A, const void **B,
                            void **C);
void gb_workspace_free(gb_workspace *w);

/* Cold cache: adds copies of A, B and C (the same values) until all the
 * sets together exceed twice llc_bytes, so that each timed call's set was
 * evicted since its last use (as benchdnn's --cold-cache and the CUTLASS
 * profiler's --llc-capacity do); at most half the available memory, then
 * fewer copies (w->copies says how many).  0, or -1 with err when out of
 * memory. */
int gb_workspace_go_cold(gb_workspace *w, long llc_bytes, char *err, size_t errlen);

/* The operands of set i (0 .. w->copies - 1). */
void gb_workspace_set(const gb_workspace *w, int i, const float **A, const float **B, float **C);

/* Runs the reference (once) and compares w->C with it; fills r's check fields. */
int gb_verify(gb_workspace *w, int nthreads, gb_result *r);

/* Measures v on w.  Returns 0 when done, 1 when *stop was raised (nothing
 * kept), -1 when the variant failed (err says how).  r->samples_us is
 * allocated here; free it with gb_result_free. */
int gb_measure(const gb_variant *v, const gb_params *params, int threads, int prepack,
               gb_workspace *w, const gb_measure_cfg *cfg, volatile sig_atomic_t *stop,
               gb_result *r, char *err, size_t errlen);



/* MemAvailable from /proc/meminfo, else physical memory; 0 when unknown. */
size_t gb_available_memory(void);

/* Monotonic seconds (CLOCK_MONOTONIC_RAW where available). */
double gb_now(void);

/* The counters a round's clock (result.h: gb_round_clock) is the difference
 * of, read at one moment: steal_s NAN and nivcsw -1 where unknown. */
typedef struct gb_clock_reading {
    double wall_s, cpu_s, steal_s;
    long nivcsw;
} gb_clock_reading;

void gb_clock_read(gb_clock_reading *r);
/* Adds the span from..to to c. */
void gb_clock_span(gb_round_clock *c, const gb_clock_reading *from, const gb_clock_reading *to);


/* A warning threshold for the coefficient of variation. */
#define GB_CV_WARN 0.10

#endif
