/*
 * tune.c - the search behind `gemmbench tune` (the command line is
 * tune_cmd.c): a schedule's parameters per shape, with the same harness and
 * verification as a run, kept as records that the `tuned` variants replay.
 *
 * The search, per shape (better than exhaustive: the rule_based grid below
 * has 6*5*5*4*2 = 1200 points and the study's tuner used 256 trials):
 *   1. the rule's own choice (no overrides): the point to beat;
 *   2. a hill-climb on the grid from the rule's values: try both neighbours
 *      of the current best in every dimension, move to the best improvement
 *      of more than 1%, repeat until no neighbour improves;
 *   3. random unvisited grid points (a seeded generator) until the trial
 *      count or the time budget runs out; a better one restarts step 2 there.
 * Every candidate is verified first; one that fails is never chosen.  At the
 * end the rule and the winner are measured again, interleaved, and the record
 * keeps the winner only if it is still faster there (noise cannot turn the
 * rule into a slower record).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
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

/* ---- the search ------------------------------------------------------------ */

#define MAX_VISITED 4096

typedef struct search {
    const gb_variant *base;
    const gb_tune_space *space;
    gb_workspace *w;
    const gb_tune_cfg *cfg;
    volatile sig_atomic_t *stop;
    unsigned long visited[MAX_VISITED];
    int nvisited;
    int trials, rejected;
} search;

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

/* Median of one verified measurement; INFINITY when it failed or errored,
 * NAN when interrupted. */
static double measure(search *s, const gb_params *p)
{
    gb_measure_cfg mc = { s->cfg->warmup, s->cfg->reps, 3, 0.25, 1, s->cfg->threads };
    gb_result r;
    char err[GB_ERR_LEN];
    double median;
    int rc = gb_measure(s->base, p, s->cfg->threads, 0, s->w, &mc, s->stop, &r, err, sizeof err);

    if (rc == 1)
        return NAN;
    if (rc != 0) {
        s->rejected++;
        return INFINITY;
    }
    median = r.stats.median;
    if (r.check != GB_CHECK_PASS) {
        s->rejected++;
        median = INFINITY;
    }
    gb_result_free(&r);
    return median;
}

static double measure_point(search *s, const int *idx)
{
    gb_params p;
    if (s->nvisited < MAX_VISITED)
        s->visited[s->nvisited++] = point_key(s, idx);
    point_params(s, idx, &p);
    s->trials++;
    return measure(s, &p);
}

/* Snaps the rule's resolved value of each key to the nearest grid value. */
static void rule_point(const search *s, int M, int N, int K, int *idx)
{
    gb_params eff = { 0 };
    gb_ctx ctx = { s->cfg->threads, &eff, NULL };
    gb_params none = { 0 };

    ctx.params = &none;
    if (s->base->resolve)
        s->base->resolve(M, N, K, &ctx, &eff);
    for (int d = 0; d < s->space->ndims; d++) {
        const gb_tune_dim *dim = &s->space->dims[d];
        long want = gb_param_get(&eff, dim->key, dim->values[dim->nvalues / 2]);
        double best = INFINITY;
        idx[d] = 0;
        for (int v = 0; v < dim->nvalues; v++) {
            double dist = fabs(log((double)(dim->values[v] + 1) / (double)(want + 1)));
            if (dist < best) {
                best = dist;
                idx[d] = v;
            }
        }
    }
}

static unsigned next_random(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return (*state >> 16) & 0x7fff;
}

int gb_tune_shape(const gb_variant *base, const gb_tune_space *space, int M, int K, int N,
                  const gb_tune_cfg *cfg, volatile sig_atomic_t *stop,
                  void (*progress)(void *arg, int trial, double best_us, double rule_us),
                  void *progress_arg, gb_tune_outcome *out, char *err, size_t errlen)
{
    static const gb_params none;
    gb_workspace w;
    search *s = calloc(1, sizeof *s);
    int cur[GB_TUNE_MAX_DIMS], best[GB_TUNE_MAX_DIMS], have_best = 0;
    double rule_us, best_us = INFINITY, t0 = gb_now();
    unsigned rng = cfg->seed ^ (unsigned)(M * 2654435761u) ^ (unsigned)(K * 40503u + N);
    int rc = -1;

    memset(out, 0, sizeof *out);
    if (s == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int d = 0; d < space->ndims; d++) {
        const gb_param_spec *spec = NULL;
        for (const gb_param_spec *p = base->params; p && p->key; p++)
            if (strcmp(p->key, space->dims[d].key) == 0)
                spec = p;
        if (spec == NULL) {
            snprintf(err, errlen, "variant %s has no parameter '%s' to tune", base->name,
                     space->dims[d].key);
            free(s);
            return -1;
        }
    }
    if (gb_workspace_init(&w, M, K, N, err, errlen) != 0) {
        free(s);
        return -1;
    }
    s->base = base;
    s->space = space;
    s->w = &w;
    s->cfg = cfg;
    s->stop = stop;

#define OUT_OF_TIME()                                                                     \
    (*stop || s->trials >= cfg->max_trials ||                                             \
     (cfg->budget_s > 0.0 && gb_now() - t0 > cfg->budget_s))

    s->trials = 1;
    rule_us = measure(s, &none);
    if (isnan(rule_us))
        goto interrupted;
    if (isinf(rule_us)) {
        snprintf(err, errlen, "%s fails verification with its own rules on %dx%dx%d",
                 base->name, M, K, N);
        goto out;
    }
    rule_point(s, M, N, K, cur);
    memcpy(best, cur, sizeof best);
    while (!OUT_OF_TIME()) {
        /* 2. hill-climb from cur */
        double cur_us = visited(s, cur) ? (have_best ? best_us : rule_us) : measure_point(s, cur);
        if (isnan(cur_us))
            goto interrupted;
        if (cur_us < best_us) {
            best_us = cur_us;
            memcpy(best, cur, sizeof best);
            have_best = 1;
        }
        for (;;) {
            int moved = 0, next[GB_TUNE_MAX_DIMS];
            double next_us = best_us;
            for (int d = 0; d < space->ndims && !OUT_OF_TIME(); d++)
                for (int step = -1; step <= 1 && !OUT_OF_TIME(); step += 2) {
                    int cand[GB_TUNE_MAX_DIMS];
                    double us;
                    memcpy(cand, best, sizeof cand);
                    cand[d] += step;
                    if (cand[d] < 0 || cand[d] >= space->dims[d].nvalues || visited(s, cand))
                        continue;
                    us = measure_point(s, cand);
                    if (isnan(us))
                        goto interrupted;
                    if (progress)
                        progress(progress_arg, s->trials, fmin(best_us, us), rule_us);
                    if (us < next_us * 0.99) {
                        next_us = us;
                        memcpy(next, cand, sizeof next);
                        moved = 1;
                    }
                }
            if (!moved)
                break;
            best_us = next_us;
            memcpy(best, next, sizeof best);
        }
        /* 3. a random unvisited point; the loop climbs from it if it wins */
        for (int tries = 0; tries < 1000; tries++) {
            for (int d = 0; d < space->ndims; d++)
                cur[d] = (int)(next_random(&rng) % (unsigned)space->dims[d].nvalues);
            if (!visited(s, cur))
                break;
        }
        if (visited(s, cur))
            break; /* the grid is exhausted */
        if (!OUT_OF_TIME()) {
            double us = measure_point(s, cur);
            if (isnan(us))
                goto interrupted;
            if (progress)
                progress(progress_arg, s->trials, fmin(best_us, us), rule_us);
            if (us < best_us * 0.99) {
                best_us = us;
                memcpy(best, cur, sizeof best);
                have_best = 1;
            } else {
                memcpy(cur, best, sizeof cur); /* visited: the climb will not re-measure */
            }
        }
    }

    /* Confirmation: rule and winner again, interleaved, three rounds each. */
    {
        gb_params winner;
        double rule_runs[3], best_runs[3];
        out->rule_us = rule_us;
        if (have_best) {
            point_params(s, best, &winner);
            for (int round = 0; round < 3; round++) {
                rule_runs[round] = measure(s, &none);
                best_runs[round] = measure(s, &winner);
                if (isnan(rule_runs[round]) || isnan(best_runs[round]))
                    goto interrupted;
            }
            /* median of three */
            for (int i = 0; i < 2; i++)
                for (int j = i + 1; j < 3; j++) {
                    if (rule_runs[j] < rule_runs[i]) {
                        double t = rule_runs[i]; rule_runs[i] = rule_runs[j]; rule_runs[j] = t;
                    }
                    if (best_runs[j] < best_runs[i]) {
                        double t = best_runs[i]; best_runs[i] = best_runs[j]; best_runs[j] = t;
                    }
                }
            out->rule_us = rule_runs[1];
            if (best_runs[1] < rule_runs[1]) {
                out->best = winner;
                out->best_us = best_runs[1];
            } else {
                have_best = 0;
            }
        }
        if (!have_best) {
            /* the rule stays: record its own values so `tuned` replays it */
            gb_params eff = { 0 };
            gb_ctx ctx = { cfg->threads, &none, NULL };
            memset(&out->best, 0, sizeof out->best);
            if (base->resolve)
                base->resolve(M, N, K, &ctx, &eff);
            for (int d = 0; d < space->ndims; d++) {
                long v = gb_param_get(&eff, space->dims[d].key, LONG_MIN);
                if (v != LONG_MIN)
                    gb_param_set(&out->best, space->dims[d].key, v);
            }
            out->best_us = out->rule_us;
        }
    }
    rc = 0;
    goto out;
interrupted:
    out->interrupted = 1;
    rc = 0;
out:
    out->trials = s->trials;
    out->rejected = s->rejected;
    out->seconds = gb_now() - t0;
    gb_workspace_free(&w);
    free(s);
    return rc;
#undef OUT_OF_TIME
}
