/*
 * trial.h - the core both searches of `gemmbench tune` share
 * (src/tune/trial.c): when a search must end, one verified measurement of a
 * candidate, and the confirmation that measures the finalists again,
 * interleaved with the rule over three rounds.  The strategies around it:
 * tune.c climbs a parameter grid, search.c evolves points of a space.
 */
#ifndef GB_TRIAL_H
#define GB_TRIAL_H

#include <signal.h>
#include <stddef.h>

#include "gemmbench.h"
#include "harness.h"
#include "tune.h"

/* One shape's search: its configuration, operands and clock. */
typedef struct gb_trials {
    const gb_tune_cfg *cfg;
    int M, K, N;
    gb_workspace w;
    volatile sig_atomic_t *stop;
    double started;            /* gb_now() when the search began */
    int interrupted;           /* *stop was raised during a measurement */
} gb_trials;

/* What a trial's measurement came to. */
typedef enum gb_trial_verdict {
    GB_TRIAL_TIMED,            /* verified: *us is its median */
    GB_TRIAL_WRONG,            /* failed verification (*us INFINITY) */
    GB_TRIAL_FAILED,           /* could not build or run: err (*us INFINITY) */
    GB_TRIAL_INTERRUPTED       /* *stop was raised: no verdict (*us NAN) */
} gb_trial_verdict;

/* Starts a search of M x K x N (the clock too).  0, or -1 with err. */
int gb_trials_init(gb_trials *t, const gb_tune_cfg *cfg, int M, int K, int N,
                   volatile sig_atomic_t *stop, char *err, size_t errlen);
void gb_trials_free(gb_trials *t);

/* Whether the search ends: an interrupt, trials at the cap, or the time
 * budget spent. */
int gb_trials_over(const gb_trials *t, int trials);

/* One verified measurement of v with p.  A raised *stop
 * during it is an interrupt whatever it returned (a compile the interrupt
 * cut short fails), and sets t->interrupted.  *max_err: of a wrong one. */
gb_trial_verdict gb_trials_measure(gb_trials *t, const gb_variant *v, const gb_params *p,
                                   double *us, double *max_err, char *err, size_t errlen);

/* Measures the n variants (with their params) again with the runner over
 * three rounds, interleaved in each so that all see the same states of the
 * machine; us[i] gets the median of variant i's round medians (INFINITY
 * when it failed or could not run).  0 (t->interrupted set when *stop was
 * raised: us is then not filled), or -1 with err. */
int gb_trials_confirm(gb_trials *t, const gb_variant *const *variants, const gb_params *params,
                      int n, double *us, char *err, size_t errlen);

#endif
