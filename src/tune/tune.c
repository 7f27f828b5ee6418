/*
 * tune.c - the search behind `gemmbench tune`: per shape, the parameters of a
 * schedule that run fastest, measured with the same harness and verification
 * as a run (the command line is tune_cmd.c).
 *
 * Not exhaustive: the rule_based grid below has 6*5*5*4*2 = 1200 points,
 * each a verified measurement.  gb_tune_shape starts from the rule instead and
 * runs these steps:
 *   measure_rule  the rule's own choice (no overrides): the time to beat;
 *   climb         a hill-climb on the grid, from the rule's values snapped to
 *                 it: try both neighbours of the best point in every
 *                 dimension, move to the best improvement of more than 1%,
 *                 repeat until no neighbour improves;
 *   random_point  an unvisited grid point from a seeded generator; one better
 *                 by more than 1% restarts the climb there.  Random points
 *                 and climbs alternate until the trial count or the time
 *                 budget runs out (out_of_time) or the grid is exhausted;
 *   confirm       the rule and the winner measured again by the runner
 *                 (runner.h), interleaved over three rounds: the winner is
 *                 kept only if the median of its round medians still
 *                 beats the rule's, so noise in one measurement cannot make
 *                 a record slower than the rule.
 * Every candidate is verified; one that fails is never chosen.
 */
#define _GNU_SOURCE /* PATH_MAX, which options.h uses */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "stats.h"
#include "runner.h"
#include "tune.h"

/* The searched grids: values a tuner would try, around each rule's choice. */
static const gb_tune_space spaces[] = {
    { "rule_based", 5, {
        { "tm", 6, { 8, 16, 32, 64, 96, 128 } },
        { "tn", 5, { 32, 64, 128, 256, 512 } },
        { "tk", 5, { 4, 8, 16, 32, 64 } },
        { "jpack", 4, { 8, 16, 32, 64 } },
        { "unroll_ki", 2, { 0, 1 } },
    } },
    /* packed: cache blocks, the micro-kernel (by ISA: 8x48 AVX-512 or 4x24
     * AVX2; a path this CPU cannot run fails and is rejected), the inner loop
     * order that shapes the threads' split, and whether B is packed. */
    { "packed", 6, {
        { "mc", 7, { 24, 48, 72, 96, 144, 192, 288 } },
        { "kc", 6, { 128, 192, 256, 384, 512, 768 } },
        { "nc", 6, { 240, 480, 960, 1536, 2064, 3072 } },
        { "isa", 2, { 0, 1 } },
        { "loop", 2, { 0, 1 } },
        { "bpack", 2, { 0, 1 } },
    } },
};

const gb_tune_space *gb_tune_space_for(const char *base)
{
    for (size_t i = 0; i < sizeof spaces / sizeof spaces[0]; i++)
        if (strcmp(spaces[i].base, base) == 0)
            return &spaces[i];
    return NULL;
}

/* ---- the state of one shape's search ------------------------------------- */

/* Points remembered as visited: more than either grid above has (1200 and
 * 2016), so that the search never measures one twice. */
#define MAX_VISITED 4096

/* A candidate replaces the best only below this fraction of its time: a
 * difference of 1% or less may be noise. */
#define IMPROVEMENT 0.99

typedef void (*progress_fn)(void *arg, int trial, double best_us, double rule_us);

typedef struct search {
    const gb_variant *base;
    const gb_tune_space *space;
    const gb_tune_cfg *cfg;
    int M, K, N;
    gb_workspace w;
    volatile sig_atomic_t *stop;
    progress_fn progress;
    void *progress_arg;
    double started;               /* gb_now() when the search began */
    unsigned rng;                 /* the random points' generator */

    double rule_us;               /* the rule's median */
    int best[GB_TUNE_MAX_DIMS];   /* grid indices of the best point so far */
    double best_us;               /* its median; INFINITY before one is measured */
    int have_best;                /* best is a candidate for confirm */
    int interrupted;              /* *stop was raised during a measurement */

    unsigned long visited[MAX_VISITED];
    int nvisited;
    int trials, rejected;
} search;

static const gb_params no_overrides;

static unsigned long point_key(const search *s, const int *idx)
{
    unsigned long key = 0;
    for (int d = 0; d < s->space->ndims; d++)
        key = key * GB_TUNE_MAX_VALUES + (unsigned long)idx[d];
    return key;
}

static int visited(const search *s, const int *idx)
{
    unsigned long key = point_key(s, idx);
    for (int i = 0; i < s->nvisited; i++)
        if (s->visited[i] == key)
            return 1;
    return 0;
}

static void point_params(const search *s, const int *idx, gb_params *p)
{
    memset(p, 0, sizeof *p);
    for (int d = 0; d < s->space->ndims; d++)
        gb_param_set(p, s->space->dims[d].key, s->space->dims[d].values[idx[d]]);
}

/* The values the rule itself resolves for this shape. */
static void rule_values(const search *s, gb_params *eff)
{
    gb_ctx ctx = { s->cfg->threads, &no_overrides, NULL, NULL, 0 };

    memset(eff, 0, sizeof *eff);
    if (s->base->resolve)
        s->base->resolve(s->M, s->N, s->K, &ctx, eff);
}

/* The search ends at an interrupt, at the trial count, or past its share of
 * the time budget. */
static int out_of_time(const search *s)
{
    return *s->stop || s->trials >= s->cfg->max_trials ||
           (s->cfg->budget_s > 0.0 && gb_now() - s->started > s->cfg->budget_s);
}

int gb_tune_measure(const gb_variant *v, const gb_params *p, const gb_tune_cfg *cfg,
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

/* The median of one verified measurement of p: INFINITY when it failed
 * verification or could not run (rejected), NAN when *stop was raised. */
static double measure(search *s, const gb_params *p)
{
    char err[GB_ERR_LEN];
    double median, max_err;
    int rc = gb_tune_measure(s->base, p, s->cfg, &s->w, s->stop, &median, &max_err, err,
                             sizeof err);

    /* Raised during the measurement: whatever it returned (a compile the
     * interrupt cut short fails), the search stops without a verdict. */
    if (rc == 1 || *s->stop) {
        s->interrupted = 1;
        return NAN;
    }
    if (rc != 0 || isinf(median)) {
        s->rejected++;
        return INFINITY;
    }
    return median;
}

/* Measures a grid point as one trial, and remembers it as visited. */
static double measure_point(search *s, const int *idx)
{
    gb_params p;

    if (s->nvisited < MAX_VISITED)
        s->visited[s->nvisited++] = point_key(s, idx);
    point_params(s, idx, &p);
    s->trials++;
    return measure(s, &p);
}

static void show_progress(const search *s, double us)
{
    if (s->progress)
        s->progress(s->progress_arg, s->trials, fmin(s->best_us, us), s->rule_us);
}

static void set_best(search *s, const int *idx, double us)
{
    memcpy(s->best, idx, sizeof s->best);
    s->best_us = us;
}

/* ---- the steps -------------------------------------------------------------- */

/* The rule counts as the first trial.  A rule that fails verification leaves
 * nothing to compare with: an error. */
static int measure_rule(search *s, char *err, size_t errlen)
{
    s->trials = 1;
    s->rule_us = measure(s, &no_overrides);
    if (isinf(s->rule_us)) {
        snprintf(err, errlen, "%s fails verification with its own rules on %dx%dx%d",
                 s->base->name, s->M, s->K, s->N);
        return -1;
    }
    return 0;
}

/* The grid point nearest the rule's own values, each snapped by ratio. */
static void snap_rule_to_grid(const search *s, int *idx)
{
    gb_params eff;

    rule_values(s, &eff);
    for (int d = 0; d < s->space->ndims; d++) {
        const gb_tune_dim *dim = &s->space->dims[d];
        long want = gb_param_get(&eff, dim->key, dim->values[dim->nvalues / 2]);
        double nearest = INFINITY;

        idx[d] = 0;
        for (int v = 0; v < dim->nvalues; v++) {
            double dist = fabs(log((double)(dim->values[v] + 1) / (double)(want + 1)));
            if (dist < nearest) {
                nearest = dist;
                idx[d] = v;
            }
        }
    }
}

/* One step of the climb: measures the unvisited neighbours of the best point
 * and moves to the fastest if it beats the best by more than 1% (and each
 * neighbour so chosen the one before it).  1 when it moved. */
static int climb_step(search *s)
{
    int next[GB_TUNE_MAX_DIMS];
    double next_us = s->best_us;
    int moved = 0;

    for (int d = 0; d < s->space->ndims && !out_of_time(s); d++)
        for (int step = -1; step <= 1 && !out_of_time(s); step += 2) {
            int cand[GB_TUNE_MAX_DIMS];
            double us;

            memcpy(cand, s->best, sizeof cand);
            cand[d] += step;
            if (cand[d] < 0 || cand[d] >= s->space->dims[d].nvalues || visited(s, cand))
                continue;
            us = measure_point(s, cand);
            if (s->interrupted)
                return 0;
            show_progress(s, us);
            if (us < next_us * IMPROVEMENT) {
                next_us = us;
                memcpy(next, cand, sizeof next);
                moved = 1;
            }
        }
    if (moved)
        set_best(s, next, next_us);
    return moved;
}

/* Climbs from start.  A start already visited is not measured again: it is
 * the best point when there is one, else it stands for the rule. */
static void climb(search *s, const int *start)
{
    double us;

    if (!visited(s, start))
        us = measure_point(s, start);
    else
        us = s->have_best ? s->best_us : s->rule_us;
    if (s->interrupted)
        return;
    if (us < s->best_us) {
        set_best(s, start, us);
        s->have_best = 1;
    }
    while (climb_step(s))
        ;
}

static unsigned next_random(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return (*state >> 16) & 0x7fff;
}

/* Draws grid points until an unvisited one; 0 when 1000 draws found none:
 * the grid is, in all likelihood, exhausted. */
static int draw_unvisited(search *s, int *idx)
{
    for (int tries = 0; tries < 1000; tries++) {
        for (int d = 0; d < s->space->ndims; d++)
            idx[d] = (int)(next_random(&s->rng) % (unsigned)s->space->dims[d].nvalues);
        if (!visited(s, idx))
            return 1;
    }
    return 0;
}

/* Measures a random unvisited point and sets where the next climb starts:
 * there when it beat the best by more than 1%, else the best point (whose
 * neighbours the last climb has measured).  0 when the search is over. */
static int random_point(search *s, int *start)
{
    double us;

    if (!draw_unvisited(s, start) || out_of_time(s))
        return 0;
    us = measure_point(s, start);
    if (s->interrupted)
        return 0;
    show_progress(s, us);
    if (us < s->best_us * IMPROVEMENT) {
        set_best(s, start, us);
        s->have_best = 1;
    } else {
        memcpy(start, s->best, sizeof s->best);
    }
    return 1;
}

/* The median of three runs.  A rejected run is INFINITY, which the stats
 * module's interpolation would turn into NAN (0 * inf): it enters as the
 * largest finite time, and a median that is one comes back as INFINITY. */
static int median3(const double runs[3], double *median)
{
    double v[3];
    gb_stats st;

    for (int i = 0; i < 3; i++)
        v[i] = fmin(runs[i], DBL_MAX);
    if (stats_compute(v, 3, &st) != 0)
        return -1;
    *median = st.median == DBL_MAX ? INFINITY : st.median;
    return 0;
}

/* No winner: the record keeps the rule's own values of the searched keys, so
 * that `tuned` replays the rule. */
static void keep_rule(const search *s, gb_tune_outcome *out)
{
    gb_params eff;

    rule_values(s, &eff);
    memset(&out->best, 0, sizeof out->best);
    for (int d = 0; d < s->space->ndims; d++) {
        long v = gb_param_get(&eff, s->space->dims[d].key, LONG_MIN);
        if (v != LONG_MIN)
            gb_param_set(&out->best, s->space->dims[d].key, v);
    }
    out->best_us = out->rule_us;
}

/* A confirmed entry's time: the median of its three round medians, or
 * INFINITY when it failed verification or could not run. */
static int confirmed_time(const gb_run_entry *e, double *us)
{
    double runs[3];

    if (!e->measured || e->result.check != GB_CHECK_PASS) {
        *us = INFINITY;
        return 0;
    }
    for (int round = 0; round < 3; round++)
        runs[round] = fmin(gb_result_round_median(&e->result, round + 1), INFINITY);
    return median3(runs, us);
}

/* Measures the rule and the best point again with the runner: three rounds,
 * the two interleaved in each so that both see the same states of the
 * machine; each keeps the median of its round medians. */
static int confirm(search *s, gb_tune_outcome *out, char *err, size_t errlen)
{
    gb_shape shape = { "tune", s->M, s->K, s->N };
    gb_selection sel;
    gb_runner_cfg rc;
    gb_runner runner;
    double best_us;
    int status;

    out->rule_us = s->rule_us;
    if (!s->have_best) {
        keep_rule(s, out);
        return 0;
    }
    memset(&sel, 0, sizeof sel);
    sel.variants[0] = sel.variants[1] = s->base;
    point_params(s, s->best, &sel.params[1]);
    sel.nvariants = 2;
    sel.shapes = &shape;
    sel.nshapes = 1;
    memset(&rc, 0, sizeof rc);
    rc.measure = (gb_measure_cfg){ .warmup = s->cfg->warmup, .reps = 3 * s->cfg->reps,
                                   .min_reps = 9, .max_time = 0.75, .check = 1,
                                   .nthreads = s->cfg->threads };
    rc.threads = s->cfg->threads;
    rc.rounds = 3;
    status = gb_runner_run(&runner, &sel, &rc, NULL, s->stop, err, errlen);
    if (status == 0 && *s->stop)
        s->interrupted = 1;
    /* Entries are (shape, variant, per call/prepacked): 0 the rule, 2 the winner. */
    if (status == 0 && !s->interrupted &&
        (confirmed_time(&runner.entries[0], &out->rule_us) != 0 ||
         confirmed_time(&runner.entries[2], &best_us) != 0)) {
        snprintf(err, errlen, "out of memory");
        status = -1;
    }
    if (status == 0 && !s->interrupted) {
        if (best_us < out->rule_us) {
            out->best = sel.params[1];
            out->best_us = best_us;
        } else {
            keep_rule(s, out);
        }
    }
    gb_runner_free(&runner);
    return status;
}

/* The steps in order.  0 (when interrupted too), or -1 with err. */
static int run_steps(search *s, gb_tune_outcome *out, char *err, size_t errlen)
{
    int start[GB_TUNE_MAX_DIMS];

    if (measure_rule(s, err, errlen) != 0)
        return -1;
    if (s->interrupted)
        return 0;
    snap_rule_to_grid(s, start);
    memcpy(s->best, start, sizeof s->best);
    while (!out_of_time(s)) {
        climb(s, start);
        if (s->interrupted || !random_point(s, start))
            break;
    }
    if (s->interrupted)
        return 0;
    return confirm(s, out, err, errlen);
}

static int has_param(const gb_variant *v, const char *key)
{
    for (const gb_param_spec *p = v->params; p && p->key; p++)
        if (strcmp(p->key, key) == 0)
            return 1;
    return 0;
}

/* Every searched key must be a parameter of the variant. */
static int space_fits(const gb_variant *base, const gb_tune_space *space, char *err,
                      size_t errlen)
{
    for (int d = 0; d < space->ndims; d++)
        if (!has_param(base, space->dims[d].key)) {
            snprintf(err, errlen, "variant %s has no parameter '%s' to tune", base->name,
                     space->dims[d].key);
            return -1;
        }
    return 0;
}

int gb_tune_shape(const gb_variant *base, const gb_tune_space *space, int M, int K, int N,
                  const gb_tune_cfg *cfg, volatile sig_atomic_t *stop,
                  void (*progress)(void *arg, int trial, double best_us, double rule_us),
                  void *progress_arg, gb_tune_outcome *out, char *err, size_t errlen)
{
    double started = gb_now();
    search *s;
    int rc;

    memset(out, 0, sizeof *out);
    if (space_fits(base, space, err, errlen) != 0)
        return -1;
    s = calloc(1, sizeof *s);
    if (s == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (gb_workspace_init(&s->w, M, K, N, err, errlen) != 0) {
        free(s);
        return -1;
    }
    s->base = base;
    s->space = space;
    s->cfg = cfg;
    s->M = M;
    s->K = K;
    s->N = N;
    s->stop = stop;
    s->progress = progress;
    s->progress_arg = progress_arg;
    s->started = started;
    /* Each shape draws its own sequence, the same on every run with a seed. */
    s->rng = cfg->seed ^ (unsigned)(M * 2654435761u) ^ (unsigned)(K * 40503u + N);
    s->best_us = INFINITY;

    rc = run_steps(s, out, err, errlen);
    out->trials = s->trials;
    out->rejected = s->rejected;
    out->seconds = gb_now() - started;
    out->interrupted = s->interrupted;
    gb_workspace_free(&s->w);
    free(s);
    return rc;
}
