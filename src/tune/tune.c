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
 * Every candidate is verified; one that fails is never chosen.  The clock,
 * the measurement and the confirmation are trial.c's, shared with the
 * structure search (search.c); this file is the strategy.
 */
#define _GNU_SOURCE /* PATH_MAX, which options.h uses */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trial.h"
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
    gb_trials t;                  /* the shape, the clock, the operands */
    progress_fn progress;
    void *progress_arg;
    unsigned rng;                 /* the random points' generator */

    double rule_us;               /* the rule's median */
    int best[GB_TUNE_MAX_DIMS];   /* grid indices of the best point so far */
    double best_us;               /* its median; INFINITY before one is measured */
    int have_best;                /* best is a candidate for confirm */

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
    gb_ctx ctx = { s->t.cfg->threads, &no_overrides, NULL, NULL, 0, NULL };

    memset(eff, 0, sizeof *eff);
    if (s->base->resolve)
        s->base->resolve(s->t.M, s->t.N, s->t.K, &ctx, eff);
}

static int out_of_time(const search *s)
{
    return gb_trials_over(&s->t, s->trials);
}

/* The median of one verified measurement of p: INFINITY when it failed
 * verification or could not run (rejected), NAN when *stop was raised. */
static double measure(search *s, const gb_params *p)
{
    char err[GB_ERR_LEN];
    double us, max_err;

    switch (gb_trials_measure(&s->t, s->base, p, &us, &max_err, err, sizeof err)) {
    case GB_TRIAL_WRONG:
    case GB_TRIAL_FAILED:
        s->rejected++;
        break;
    case GB_TRIAL_TIMED:
    case GB_TRIAL_INTERRUPTED:
        break;
    }
    return us;
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
                 s->base->name, s->t.M, s->t.K, s->t.N);
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
            if (s->t.interrupted)
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
    if (s->t.interrupted)
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
    if (s->t.interrupted)
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

/* Measures the rule and the best point again (trial.c): the winner is kept
 * only when it still beats the rule there. */
static int confirm(search *s, gb_tune_outcome *out, char *err, size_t errlen)
{
    const gb_variant *both[2] = { s->base, s->base };
    gb_params params[2] = { { 0 } };
    double us[2];

    out->rule_us = s->rule_us;
    if (!s->have_best) {
        keep_rule(s, out);
        return 0;
    }
    point_params(s, s->best, &params[1]);
    if (gb_trials_confirm(&s->t, both, params, 2, us, err, errlen) != 0)
        return -1;
    if (s->t.interrupted)
        return 0;
    out->rule_us = us[0];
    if (us[1] < out->rule_us) {
        out->best = params[1];
        out->best_us = us[1];
    } else {
        keep_rule(s, out);
    }
    return 0;
}

/* The steps in order.  0 (when interrupted too), or -1 with err. */
static int run_steps(search *s, gb_tune_outcome *out, char *err, size_t errlen)
{
    int start[GB_TUNE_MAX_DIMS];

    if (measure_rule(s, err, errlen) != 0)
        return -1;
    if (s->t.interrupted)
        return 0;
    snap_rule_to_grid(s, start);
    memcpy(s->best, start, sizeof s->best);
    while (!out_of_time(s)) {
        climb(s, start);
        if (s->t.interrupted || !random_point(s, start))
            break;
    }
    if (s->t.interrupted)
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
    if (gb_trials_init(&s->t, cfg, M, K, N, stop, err, errlen) != 0) {
        free(s);
        return -1;
    }
    s->base = base;
    s->space = space;
    s->progress = progress;
    s->progress_arg = progress_arg;
    /* Each shape draws its own sequence, the same on every run with a seed. */
    s->rng = cfg->seed ^ (unsigned)(M * 2654435761u) ^ (unsigned)(K * 40503u + N);
    s->best_us = INFINITY;

    rc = run_steps(s, out, err, errlen);
    out->trials = s->trials;
    out->rejected = s->rejected;
    out->seconds = gb_now() - s->t.started;
    out->interrupted = s->t.interrupted;
    gb_trials_free(&s->t);
    free(s);
    return rc;
}
