/*
 * trial.c - the trial-and-confirm core of `gemmbench tune` (trial.h): both
 * searches measure candidates one trial at a time until the budget ends,
 * then confirm the finalists against the rule, interleaved, so that one
 * lucky measurement cannot crown a slower candidate.
 */
#define _GNU_SOURCE /* PATH_MAX, which options.h uses */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runner.h"
#include "stats.h"
#include "trial.h"

/* Rounds of the confirmation: a median of three is not moved by one round
 * the machine spent on something else. */
#define CONFIRM_ROUNDS 3

int gb_trials_init(gb_trials *t, const gb_tune_cfg *cfg, int M, int K, int N,
                   volatile sig_atomic_t *stop, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    if (gb_workspace_init_dtype(&t->w, cfg->dtype, M, K, N, err, errlen) != 0)
        return -1;
    t->cfg = cfg;
    t->M = M, t->K = K, t->N = N;
    t->stop = stop;
    t->started = gb_now();
    return 0;
}

void gb_trials_free(gb_trials *t)
{
    gb_workspace_free(&t->w);
}

int gb_trials_over(const gb_trials *t, int trials)
{
    return *t->stop || trials >= t->cfg->max_trials ||
           (t->cfg->budget_s > 0.0 && gb_now() - t->started > t->cfg->budget_s);
}

/* One verified measurement (the harness; cfg's warm-up and calls, at most
 * 0.25 s past 3): 0 with *median (INFINITY when it failed verification)
 * and *max_err, 1 when *stop was raised, -1 when it could not run (err). */
static int measure_once(const gb_variant *v, const gb_params *p, const gb_tune_cfg *cfg,
                        gb_workspace *w, volatile sig_atomic_t *stop, double *median,
                        double *max_err, char *err, size_t errlen)
{
    gb_measure_cfg mc = { .warmup = cfg->warmup, .reps = cfg->reps, .min_reps = 3,
                          .max_time = 0.25, .check = 1, .nthreads = cfg->threads };
    gb_result r;
    int rc = gb_measure(v, p, cfg->threads, 0, w, &mc, stop, &r, err, errlen);

    if (rc != 0)
        return rc == 1 ? 1 : -1;
    *median = r.check == GB_CHECK_PASS ? r.stats.median : INFINITY;
    *max_err = r.max_abs_err;
    gb_result_free(&r);
    return 0;
}

gb_trial_verdict gb_trials_measure(gb_trials *t, const gb_variant *v, const gb_params *p,
                                   double *us, double *max_err, char *err, size_t errlen)
{
    int rc = measure_once(v, p, t->cfg, &t->w, t->stop, us, max_err, err, errlen);

    if (rc == 1 || *t->stop) {
        t->interrupted = 1;
        *us = NAN;
        return GB_TRIAL_INTERRUPTED;
    }
    if (rc != 0) {
        *us = INFINITY;
        return GB_TRIAL_FAILED;
    }
    return isinf(*us) ? GB_TRIAL_WRONG : GB_TRIAL_TIMED;
}

/* A confirmed entry's time: the median of its round medians, or INFINITY.
 * A round that failed enters as the largest finite time (the stats
 * module's interpolation would make INFINITY a NAN: 0 * inf), and a median
 * that is one comes back as INFINITY. */
static double confirmed_time(const gb_run_entry *e)
{
    double runs[CONFIRM_ROUNDS];
    gb_stats st;

    if (!e->measured || e->result.check != GB_CHECK_PASS)
        return INFINITY;
    for (int r = 0; r < CONFIRM_ROUNDS; r++)
        runs[r] = fmin(gb_result_round_median(&e->result, r + 1), DBL_MAX);
    if (stats_compute(runs, CONFIRM_ROUNDS, &st) != 0 || st.median == DBL_MAX)
        return INFINITY;
    return st.median;
}

int gb_trials_confirm(gb_trials *t, const gb_variant *const *variants, const gb_params *params,
                      int n, double *us, char *err, size_t errlen)
{
    gb_shape shape = { "tune", t->M, t->K, t->N, t->cfg->dtype };
    gb_selection sel;
    gb_runner_cfg rc;
    gb_runner runner;
    int status;

    memset(&sel, 0, sizeof sel);
    for (int i = 0; i < n; i++) {
        sel.variants[i] = variants[i];
        sel.params[i] = params[i];
    }
    sel.nvariants = n;
    sel.shapes = &shape;
    sel.nshapes = 1;
    memset(&rc, 0, sizeof rc);
    rc.measure = (gb_measure_cfg){ .warmup = t->cfg->warmup,
                                   .reps = CONFIRM_ROUNDS * t->cfg->reps,
                                   .min_reps = 3 * CONFIRM_ROUNDS, .max_time = 0.75,
                                   .check = 1, .nthreads = t->cfg->threads };
    rc.threads = t->cfg->threads;
    rc.rounds = CONFIRM_ROUNDS;
    status = gb_runner_run(&runner, &sel, &rc, NULL, t->stop, err, errlen);
    if (status == 0 && *t->stop)
        t->interrupted = 1;
    /* entries: (shape, variant, per call / prepacked): variant v at 2 v */
    for (int i = 0; status == 0 && !t->interrupted && i < n; i++)
        us[i] = confirmed_time(&runner.entries[2 * i]);
    gb_runner_free(&runner);
    return status;
}
