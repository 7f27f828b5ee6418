/*
 * runner.h - the sweep engine: every selected (variant, parameter set) on
 * every shape, over one or more rounds, each measurement verified and written
 * to the result file as soon as it is taken.
 *
 * The order is rounds, then shapes, then entries, then thread counts (the
 * counts of one entry on one shape back to back).  Entries of one shape run
 * back to back, under the same machine conditions, and baseline (first in
 * the table) is known when the others need it for their speed-up.  With R
 * rounds, every entry's timed calls are split over R passes of the whole
 * sweep, so that its samples span the run instead of one moment of it; round
 * 1 verifies and warms up in full, later rounds re-warm with their share of
 * the warm-up calls.
 *
 * Library code: it prints nothing; what the caller shows (rows, progress,
 * errors) comes through the hooks.  It stops between measurements when
 * *stop is raised and keeps what it has.
 */
#ifndef GB_RUNNER_H
#define GB_RUNNER_H

#include <cjson/cJSON.h>
#include <signal.h>
#include <stddef.h>

#include "harness.h"
#include "machine.h"
#include "sweep.h"

#define GB_MAX_ENTRIES 256   /* variants x --param sets in one run */

/* What a sweep runs: entries (a variant with one parameter set) x shapes. */
typedef struct gb_selection {
    const gb_variant *variants[GB_MAX_ENTRIES];
    gb_params params[GB_MAX_ENTRIES];
    int nvariants;
    gb_shape *shapes;
    int nshapes;
} gb_selection;

/* Builds the selection of o: every selected variant once per --param set
 * that it takes whole (so an ablation runs its settings interleaved, shape
 * by shape, beside a reference), once unlabelled if it takes none; a set no
 * selected variant takes whole is an error.  Every shape is checked against
 * memory before anything runs.  0, or -1 with err. */
int gb_selection_build(const gb_options *o, gb_selection *sel, char *err, size_t errlen);
void gb_selection_free(gb_selection *sel);

/* What the caller hears of a sweep.  Every hook may be NULL. */
typedef struct gb_runner_hooks {
    void *arg;
    /* Before a measurement: what is about to run (progress lines). */
    void (*starting)(void *arg, int done, int total, const gb_variant *v,
                     const gb_shape *s, int round);
    /* After one: the entry's result with every round so far merged;
     * last says it is the entry's final round. */
    void (*measured)(void *arg, const gb_result *r, int last);
    /* A measurement that could not be taken (err says why); the sweep goes on. */
    void (*failed)(void *arg, const char *err, const gb_shape *s);
    /* Before each measurement, after starting: may hold the sweep until told
     * to go on (gemmbench ab's lockstep, src/measure/lockstep.c).  step is the
     * measurement's place in its round, in gb_runner_plan's order.  Non-zero
     * stops the sweep, as *stop does. */
    int (*gate)(void *arg, int step);
} gb_runner_hooks;

typedef struct gb_runner_cfg {
    gb_measure_cfg measure;  /* per entry, over all rounds */
    int threads;
    int rounds;
    int prepack;             /* also measure +prepack entries where the variant can */
    double cooldown_s;       /* sleep between measurements */
    int only_round;          /* 0: every round; else only this one (from 1), as
                                its share of the rounds (gemmbench ab) */
    double peak_gflops;      /* for peak_pct; 0 when unknown */
    cJSON *doc;              /* results go into its "results" array; may be NULL */
    const char *output;      /* doc is rewritten there after every measurement; may be NULL */
    /* A thread list (--threads 1,2): every entry at each count, with its
     * count's peak for peak_pct (0: unknown).  nthreads 0: the one count
     * threads and peak_gflops above.  With several counts, a single_thread
     * variant is measured once, at 1 thread, with peak_gflops_1t. */
    int nthreads;
    const int *thread_list;
    const double *thread_peaks;
    double peak_gflops_1t;
    /* The other types' peaks, as the three f32 fields above (by gb_dtype;
     * [GB_DTYPE_F32] unused); 0 or NULL: unknown, no %peak. */
    double dtype_peak[GB_DTYPE_COUNT], dtype_peak_1t[GB_DTYPE_COUNT];
    const double *dtype_thread_peaks[GB_DTYPE_COUNT];
    const char *bind;        /* recorded as every result's "bind"; NULL: not recorded */
    int cold;                /* --cache cold: operands rotated past the last-level cache */
    const gb_machine *machine;  /* caches, peaks and bandwidths for the roofs; may be NULL */
} gb_runner_cfg;

/* One entry of the sweep, (shape, variant, prepack), across rounds. */
typedef struct gb_run_entry {
    gb_result result;        /* the rounds so far, merged */
    int measured;            /* result holds at least one round */
    int final;               /* its last round is in */
    int json_index;          /* its place in the JSON results array */
} gb_run_entry;

typedef struct gb_runner {
    gb_run_entry *entries;   /* nshapes x nvariants x counts x 2: per call, then +prepack */
    int nentries;
    int failed_checks;       /* entries whose verification failed */
    int failed_runs;         /* measurements that could not be taken */
} gb_runner;

/* Whether entry v of sel runs shape s's type: when the variant has a
 * kernel for it (f32: all but amx), the entry no --param set for another
 * type (the sets are f32's) and the kernel is available here
 * (gb_selection_available).  When not, why (one line) into why, if not NULL. */
int gb_selection_runs(const gb_selection *sel, int v, int s, char *why, size_t whylen);
/* Whether this machine runs entry v's kernel for shape s's type, if it has
 * one: 1, or 0 when the kernel's available() says the CPU or the OS
 * cannot (AMX without tiles), with its reason in why, if not NULL. */
int gb_selection_available(const gb_selection *sel, int v, int s, char *why, size_t whylen);

/* Runs the sweep.  0 when it ran to the end or was stopped (*stop); -1 with
 * err when the result file could not be written or memory ran out (what was
 * measured stays in r).  Free r with gb_runner_free either way. */
int gb_runner_run(gb_runner *r, const gb_selection *sel, const gb_runner_cfg *cfg,
                  const gb_runner_hooks *hooks, volatile sig_atomic_t *stop, char *err,
                  size_t errlen);
void gb_runner_free(gb_runner *r);

/* One measurement of a round: shape, entry (variant with its parameter
 * set), thread count and whether B is pre-packed. */
typedef struct gb_run_step {
    int shape, variant, threads, prepack;
} gb_run_step;

/* The measurements of round `round` (0-based), in the order gb_runner_run
 * takes them (each shape's entries as listed, rotated by the round, so that
 * each is the first on the shape's fresh operands in its share of the
 * rounds): how many there are, the first max of them written to steps (may
 * be NULL); -1 out of memory. */
int gb_runner_plan(const gb_selection *sel, const gb_runner_cfg *cfg, int round,
                   gb_run_step *steps, int max);

/* Measurements in the whole sweep: entries x shapes x counts x rounds. */
int gb_runner_total(const gb_selection *sel, const gb_runner_cfg *cfg);

/* Round r's (0-based) share of a measurement of `rounds` rounds: its part
 * of the timed calls, the time caps and the warm-up, and a cap on the
 * calls --min-time adds, so that all the rounds' samples of an entry fit a
 * result file (GB_MAX_SAMPLES). */
gb_measure_cfg gb_round_share(const gb_measure_cfg *all, int rounds, int r);

#endif
