/*
 * search.c - the structure search behind `gemmbench tune --space FILE`: per
 * shape, the fastest schedule of a search space (sched_space.h), each
 * candidate an ordinary schedule text, checked, compiled, verified and
 * measured like any --schedule.
 *
 * An evolutionary search, as MetaSchedule's (a population of measured
 * schedules, mutated), without its cost model:
 *   measure_rule   rule_based with its own rules: the time to beat;
 *   seed           the space file's own point, each point one alternative
 *                  away from it (one transform changed), then SEED_RANDOM
 *                  random legal points;
 *   evolve         until the trials or the time run out: one time in five
 *                  a random point, else a mutation of the better of two
 *                  drawn from the POOL fastest so far;
 *   guided         with a model (cfg->model): after the file's own point,
 *                  the ELITE_TRIALS of its elites (the fastest schedules
 *                  of the shapes it was trained on) it predicts fastest,
 *                  then at each step the point it predicts fastest among
 *                  GUIDED_DRAWS drawn as the evolution draws;
 *   confirm        the FINALISTS fastest measured again, interleaved with
 *                  rule_based over three rounds by the runner: the winner is
 *                  the fastest median of round medians, so that one lucky
 *                  measurement cannot crown a slower schedule; when none
 *                  beats rule_based there, rule_based is the record.
 * A point the checker refuses (or that does not fit the shape: a tile or a
 * pack buffer too large) is counted as illegal and never compiled; a point
 * already measured is not measured again (its text's hash).  The clock, the
 * measurement and the confirmation are trial.c's, shared with the
 * parameter search (tune.c); this file is the strategy.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "learn.h"
#include "sched_build.h"
#include "sched_variant.h"
#include "trial.h"
#include "tune.h"
#include "variants.h"

#define SEED_RANDOM 6      /* random points after the file's own */
#define POOL 8             /* parents are drawn from the fastest POOL */
#define FINALISTS 3
#define MAX_MEASURED 4096
#define MAX_DRAWS 2000     /* refused points in a row before the space is declared empty */
/* A guided step ranks this many legal points with the model and measures
 * the one predicted fastest (MetaSchedule scores its whole evolved
 * population, then measures the top): at about 0.1 ms a point to check,
 * plan and featurize, a step's ranking costs a fraction of one trial. */
#define GUIDED_DRAWS 256
#define GUIDED_EXPLORE 10  /* one guided step in this many measures a random point */
/* Guided, after the file's own point: the model's elites (the fastest
 * schedules of the shapes it was trained on) it predicts fastest here, this
 * many, each measured as it stands, as MetaSchedule's search starts from the
 * database's best. */
#define ELITE_TRIALS 4
/* A candidate whose compile takes longer is dropped as failed: a whole
 * unroll of a long k step around a row block made GCC run for minutes
 * (cpu_gemm.space, tk=256), the budget of many candidates. */
#define COMPILE_LIMIT_MS 15000
/* A winner of no statements (the nest i, j, k) as its text: a record's empty
 * text means rule_based won, so the empty schedule is written as a comment,
 * printed, recorded and replayed like any other. */
#define EMPTY_SCHEDULE "# the empty schedule: the nest i, j, k\n"

typedef struct measured {
    gb_space_point point;     /* when elite < 0 */
    int elite;                /* the model's elite measured, or -1: a point */
    unsigned long long hash;
    double us;
} measured;

typedef struct search {
    const gb_space *space;
    gb_trials t;              /* the shape, the clock, the operands */
    void (*progress)(void *arg, int trial, double best_us, double rule_us);
    void *progress_arg;
    unsigned rng;
    measured *done;           /* every point measured, in order */
    int ndone;
    double rule_us, best_us;
    int next_seed;            /* the next one-change point (0: the file's own), -1: done */
    int seeded;               /* points measured when the seeds were done */
    gb_space_outcome *out;
    char text[GB_SPACE_MAX_TEXT];
    int illegal_before;       /* out->illegal at the last trial kept */
    gb_learn_machine machine; /* for the model's features */
    gb_learned_info model;    /* cfg->model's elites */
    int elite_queue[ELITE_TRIALS], nqueue, next; /* fastest predicted first; next to measure */
    int queued;               /* the elites were ranked */
    int elite;                /* the elite in s->text, or -1 */
} search;

static const gb_params no_overrides;

const char *gb_tune_baseline(gb_dtype t)
{
    /* the study's rules are f32's; for another type the hand-written
     * kernel of the type is the time to beat */
    return t == GB_DTYPE_F32 ? "rule_based" : "packed";
}

/* The variants the search measures through: one for the candidates, and
 * FINALISTS for the confirmation (made once per process, retexted). */
static const gb_variant *slot[1 + FINALISTS];

static unsigned long long text_hash(const char *t)
{
    unsigned long long h = 1469598103934665603ull; /* FNV-1a */
    for (; *t; t++)
        h = (h ^ (unsigned char)*t) * 1099511628211ull;
    return h;
}

/* Gives slot i the text; makes the slot the first time.  0, or -1 with err. */
static int slot_text(int i, const char *file, const char *text, char *err, size_t errlen)
{
    char stem[32];

    if (slot[i] != NULL)
        return gb_sched_variant_retext(slot[i], file, text, err, errlen);
    snprintf(stem, sizeof stem, i == 0 ? "search" : "search_%d", i);
    slot[i] = gb_sched_variant_text(stem, file, text, err, errlen);
    return slot[i] != NULL ? 0 : -1;
}

static int out_of_time(const search *s)
{
    return gb_trials_over(&s->t, s->out->trials);
}

/* One verified measurement of v: its median, INFINITY when it could not be
 * taken or was wrong (counted, the first reason kept), NAN when *stop. */
static double measure(search *s, const gb_variant *v)
{
    char err[GB_ERR_LEN];
    double us, max_err;

    switch (gb_trials_measure(&s->t, v, &no_overrides, &us, &max_err, err, sizeof err)) {
    case GB_TRIAL_FAILED:
        if (s->out->failed++ == 0)
            snprintf(s->out->why, sizeof s->out->why, "%s", err);
        break;
    case GB_TRIAL_WRONG:
        if (s->out->wrong++ == 0)
            snprintf(s->out->why, sizeof s->out->why,
                     "%s failed verification on %dx%dx%d (max error %g): a lowering bug",
                     v->name, s->t.M, s->t.K, s->t.N, max_err);
        break;
    case GB_TRIAL_TIMED:
    case GB_TRIAL_INTERRUPTED:
        break;
    }
    return us;
}

static int seen(const search *s, unsigned long long hash)
{
    for (int i = 0; i < s->ndone; i++)
        if (s->done[i].hash == hash)
            return 1;
    return 0;
}

/* Whether p is a legal, new point for this shape; its text in s->text.
 * An illegal point is counted. */
static int usable_point(search *s, const gb_space_point *p)
{
    gb_sched nest;
    gb_sched_plan *pl = NULL;
    char err[GB_ERR_LEN];

    if (gb_space_text(s->space, p, 0, s->text, sizeof s->text) != 0 ||
        seen(s, text_hash(s->text)))
        return 0;
    if (gb_space_check(s->space, p, &nest, err, sizeof err) == 0)
        pl = gb_sched_plan_for(&nest, &no_overrides, s->t.M, s->t.N, s->t.K, s->t.cfg->threads,
                               err, sizeof err);
    if (pl == NULL) {
        s->out->illegal++;
        return 0;
    }
    gb_sched_plan_free(pl);
    return 1;
}

/* Keeps the trial of s->text for the database (cfg->keep_trials).  0, or
 * -1 when out of memory. */
static int keep_trial(search *s, double us)
{
    gb_space_outcome *o = s->out;
    gb_space_trial *kept;

    if (!s->t.cfg->keep_trials)
        return 0;
    if ((o->nkept & (o->nkept - 1)) == 0) { /* grown at each power of two */
        kept = realloc(o->kept, (size_t)(o->nkept ? 2 * o->nkept : 1) * sizeof *kept);
        if (kept == NULL)
            return -1;
        o->kept = kept;
    }
    kept = &o->kept[o->nkept];
    if ((kept->text = strdup(s->text)) == NULL)
        return -1;
    kept->verified = isfinite(us);
    kept->us = isfinite(us) ? us : 0.0;
    kept->illegal = o->illegal - s->illegal_before;
    s->illegal_before = o->illegal;
    o->nkept++;
    return 0;
}

void gb_space_outcome_free(gb_space_outcome *out)
{
    for (int i = 0; i < out->nkept; i++)
        free(out->kept[i].text);
    free(out->kept);
    out->kept = NULL;
    out->nkept = 0;
}

/* Measures the point whose text is in s->text as a trial.  0, or -1 when the
 * search must stop (interrupted, or err). */
static int measure_point(search *s, const gb_space_point *p, char *err, size_t errlen)
{
    measured *m = &s->done[s->ndone];
    double t0 = gb_now(), compile_ms = 0.0, us;
    int cached = 1;

    if (slot_text(0, s->space->file, s->text, err, errlen) != 0)
        return -1;
    us = measure(s, slot[0]);
    if (isnan(us)) {
        s->out->interrupted = 1;
        return -1;
    }
    if (gb_sched_variant_last_build(slot[0], &compile_ms, &cached) == 0 && !cached) {
        s->out->compiled++;
        s->out->compile_s += compile_ms / 1000.0;
    }
    s->out->measure_s += gb_now() - t0 - (cached ? 0.0 : compile_ms / 1000.0);
    s->out->trials++;
    if (keep_trial(s, us) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    m->point = *p;
    m->elite = s->elite;
    s->elite = -1;
    m->hash = text_hash(s->text);
    m->us = us;
    s->ndone++;
    if (us < s->best_us)
        s->best_us = us;
    if (s->progress)
        s->progress(s->progress_arg, s->out->trials, s->best_us, s->rule_us);
    return 0;
}

static int by_time(const void *a, const void *b)
{
    const measured *x = a, *y = b;
    return (x->us > y->us) - (x->us < y->us);
}

/* A draw of the evolution: one time in five (or before enough are
 * measured) a random point, else a mutation of the better of two drawn from
 * the POOL fastest so far (s->done kept sorted). */
static void draw(search *s, gb_space_point *p)
{
    int parents[POOL], pool = 0;

    /* an elite is a text, not a point of the space: never a parent */
    for (int i = 0; i < s->ndone && pool < POOL; i++)
        if (s->done[i].elite < 0)
            parents[pool++] = i;
    if (pool == 0 || s->ndone <= s->seeded + SEED_RANDOM || gb_space_rand(&s->rng) % 5 == 0) {
        gb_space_random(s->space, &s->rng, p);
    } else {
        int a = (int)(gb_space_rand(&s->rng) % (unsigned)pool);
        int b = (int)(gb_space_rand(&s->rng) % (unsigned)pool);
        *p = s->done[parents[a < b ? a : b]].point;
        gb_space_mutate(s->space, &s->rng, p);
    }
}

/* Guided (cfg->model): the point the model predicts fastest among
 * GUIDED_DRAWS legal new ones, drawn as the evolution draws them; one step
 * in GUIDED_EXPLORE a random legal point, so that the measurements also
 * reach where the model has seen nothing.  0 with s->text set, or -1 when
 * no legal point was found. */
static int guided_point(search *s, gb_space_point *p)
{
    gb_space_point *pts = malloc(GUIDED_DRAWS * sizeof *pts);
    float *X = malloc((size_t)GUIDED_DRAWS * GB_FEATURES_COUNT * sizeof *X);
    double *us = malloc(GUIDED_DRAWS * sizeof *us);
    char err[GB_ERR_LEN];
    int n = 0, best = -1, rc = -1;
    const int explore = gb_space_rand(&s->rng) % GUIDED_EXPLORE == 0;

    for (int d = 0; pts && X && us && d < MAX_DRAWS && n < (explore ? 1 : GUIDED_DRAWS); d++) {
        if (explore)
            gb_space_random(s->space, &s->rng, &pts[n]);
        else
            draw(s, &pts[n]);
        if (!usable_point(s, &pts[n]))
            continue;
        /* the same point twice in one batch is ranked once */
        if (gb_learned_features(s->space->file, s->text, s->t.M, s->t.K, s->t.N,
                                s->t.cfg->threads, &s->machine, X + (size_t)n * GB_FEATURES_COUNT,
                                err, sizeof err) != 0)
            continue;
        if (!explore && gb_features_idle_threads(X + (size_t)n * GB_FEATURES_COUNT))
            continue; /* ml_guided ranks none of these either */
        n++;
    }
    if (n > 0 && !explore && gb_learned_predict(s->t.cfg->model, X, n, us, err, sizeof err) == 0) {
        best = 0;
        for (int i = 1; i < n; i++)
            if (us[i] < us[best])
                best = i;
        s->out->guided++;
    } else if (n > 0) {
        best = 0;
    }
    if (best >= 0) {
        *p = pts[best];
        rc = gb_space_text(s->space, p, 0, s->text, sizeof s->text);
    }
    free(pts);
    free(X);
    free(us);
    return rc;
}

/* Guided: the ELITE_TRIALS of the model's elites it predicts fastest for
 * this shape (legal here, none leaving threads idle) into s->elite_queue,
 * fastest first.  Ranking costs about 0.1 ms an elite. */
static void queue_elites(search *s)
{
    const int n = s->model.nelites, F = GB_FEATURES_COUNT;
    float *X = malloc((size_t)(n > 0 ? n : 1) * F * sizeof *X);
    double *us = malloc((size_t)(n > 0 ? n : 1) * sizeof *us);
    int *which = malloc((size_t)(n > 0 ? n : 1) * sizeof *which), legal = 0;
    char err[GB_ERR_LEN];

    s->queued = 1;
    for (int e = 0; X && us && which && e < n; e++) {
        if (s->model.elites[e].dtype != s->t.cfg->dtype) /* another type's schedule */
            continue;
        if (gb_learned_features(s->space->file, s->model.elites[e].text, s->t.M, s->t.K, s->t.N,
                                s->t.cfg->threads, &s->machine, X + (size_t)legal * F, err,
                                sizeof err) != 0) {
            s->out->illegal++;
            continue;
        }
        if (!gb_features_idle_threads(X + (size_t)legal * F))
            which[legal++] = e;
    }
    if (legal > 0 && gb_learned_predict(s->t.cfg->model, X, legal, us, err, sizeof err) == 0)
        for (; s->nqueue < ELITE_TRIALS && s->nqueue < legal; s->nqueue++) {
            int best = -1;
            for (int i = 0; i < legal; i++)
                if (which[i] >= 0 && (best < 0 || us[i] < us[best]))
                    best = i;
            s->elite_queue[s->nqueue] = which[best];
            which[best] = -1;
        }
    free(X);
    free(us);
    free(which);
}

/* The next point to measure: seeds first, then mutations of the fast ones.
 * 0 with s->text set, or -1 when MAX_DRAWS points in a row were refused or
 * already measured (the space holds no more for this shape). */
static int next_point(search *s, gb_space_point *p)
{
    /* The file's own point, then each point one alternative away from it
     * (the study's way: change one transform, measure again). */
    while (s->next_seed >= 0) {
        int seed = s->next_seed++, b = 0;
        /* guided: only the file's own point; the model ranks the rest */
        if (s->t.cfg->model != NULL && seed > 0) {
            s->next_seed = -1;
            s->seeded = s->ndone;
            break;
        }
        gb_space_initial_at(s->space, p, s->t.M, s->t.N, s->t.K, s->t.cfg->threads);
        for (seed -= 1; seed >= 0 && b < s->space->nblocks; b++) {
            if (seed < s->space->nalts[b] - 1) {
                p->alt[b] = seed + 1;
                break;
            }
            seed -= s->space->nalts[b] - 1;
        }
        if (b == s->space->nblocks && seed >= 0) {
            s->next_seed = -1; /* every one-change point drawn */
            s->seeded = s->ndone;
            break;
        }
        if (usable_point(s, p))
            return 0;
    }
    if (s->t.cfg->model != NULL) {
        if (!s->queued)
            queue_elites(s);
        while (s->next < s->nqueue) {
            const int e = s->elite_queue[s->next++];
            /* fits: the model file holds no elite longer than a point's text */
            snprintf(s->text, sizeof s->text, "%s", s->model.elites[e].text);
            if (!seen(s, text_hash(s->text))) {
                memset(p, 0, sizeof *p); /* no point: the text is the elite's */
                s->elite = e;
                return 0;
            }
        }
        return guided_point(s, p);
    }
    for (int draws = 0; draws < MAX_DRAWS; draws++) {
        draw(s, p);
        if (usable_point(s, p))
            return 0;
    }
    return -1;
}

/* The text of a measured candidate into buf.  0, or -1 when it does not fit. */
static int text_of(const search *s, const measured *m, char *buf, size_t len)
{
    if (m->elite < 0)
        return gb_space_text(s->space, &m->point, 0, buf, len);
    return snprintf(buf, len, "%s", s->model.elites[m->elite].text) < (int)len ? 0 : -1;
}

/* The finalists and rule_based, interleaved over three rounds (trial.c). */
static int confirm(search *s, char *err, size_t errlen)
{
    const gb_variant *variants[1 + FINALISTS];
    gb_params params[1 + FINALISTS] = { { 0 } };
    double us[1 + FINALISTS], best = INFINITY;
    int nfinal = 0;
    char texts[FINALISTS][GB_SPACE_MAX_TEXT];

    qsort(s->done, (size_t)s->ndone, sizeof *s->done, by_time);
    variants[0] = gb_variant_find(gb_tune_baseline(s->t.cfg->dtype));
    for (int i = 0; i < s->ndone && nfinal < FINALISTS && isfinite(s->done[i].us); i++) {
        if (text_of(s, &s->done[i], texts[nfinal], sizeof texts[0]) != 0 ||
            slot_text(1 + nfinal, s->space->file, texts[nfinal], err, errlen) != 0)
            return -1;
        variants[1 + nfinal] = slot[1 + nfinal];
        nfinal++;
    }
    s->out->rule_us = s->rule_us;
    if (nfinal == 0)
        return 0;
    if (gb_trials_confirm(&s->t, variants, params, 1 + nfinal, us, err, errlen) != 0)
        return -1;
    if (s->t.interrupted) {
        s->out->interrupted = 1;
        return 0;
    }
    s->out->rule_us = us[0];
    for (int f = 0; f < nfinal; f++)
        if (us[1 + f] < best) {
            best = us[1 + f];
            snprintf(s->out->text, sizeof s->out->text, "%s",
                     texts[f][0] ? texts[f] : EMPTY_SCHEDULE);
        }
    s->out->best_us = best;
    snprintf(s->out->fastest, sizeof s->out->fastest, "%s", s->out->text);
    s->out->fastest_us = best;
    /* No finalist beat rule_based here: the record says so (an empty
     * schedule), and tuned_sched runs rule_based on this shape. */
    if (!(best < s->out->rule_us)) {
        s->out->text[0] = '\0';
        s->out->rule_won = 1;
        s->out->best_us = s->out->rule_us;
    }
    return 0;
}

/* Interrupted: the fastest point measured so far, unconfirmed (the user
 * stopped the search; what it found is kept). */
static int keep_fastest(search *s)
{
    qsort(s->done, (size_t)s->ndone, sizeof *s->done, by_time);
    s->out->text[0] = '\0';
    if (s->ndone > 0 && isfinite(s->done[0].us) &&
        text_of(s, &s->done[0], s->out->text, sizeof s->out->text) == 0) {
        if (s->out->text[0] == '\0')
            snprintf(s->out->text, sizeof s->out->text, "%s", EMPTY_SCHEDULE);
        s->out->best_us = s->done[0].us;
        s->out->rule_us = s->rule_us;
    }
    return 0;
}

static int run_steps(search *s, char *err, size_t errlen)
{
    const gb_variant *rule = gb_variant_find(gb_tune_baseline(s->t.cfg->dtype));
    gb_space_point p;

    if (rule == NULL) {
        snprintf(err, errlen, "no %s variant to compare with", gb_tune_baseline(s->t.cfg->dtype));
        return -1;
    }
    s->rule_us = measure(s, rule);
    if (isnan(s->rule_us)) {
        s->out->interrupted = 1;
        return 0;
    }
    while (!out_of_time(s) && s->ndone < MAX_MEASURED) {
        if (next_point(s, &p) != 0)
            break;
        if (measure_point(s, &p, err, errlen) != 0)
            return s->out->interrupted ? keep_fastest(s) : -1;
        qsort(s->done, (size_t)s->ndone, sizeof *s->done, by_time);
    }
    if (s->ndone == 0) {
        snprintf(err, errlen, "%s: no legal schedule for %dx%dx%d in %d points drawn "
                 "(%d refused by the checker)", s->space->file, s->t.M, s->t.K, s->t.N, MAX_DRAWS,
                 s->out->illegal);
        return -2; /* the space's fault: an input error */
    }
    if (*s->t.stop) {
        s->out->interrupted = 1;
        return keep_fastest(s);
    }
    if (confirm(s, err, errlen) != 0)
        return -1;
    return s->out->interrupted ? keep_fastest(s) : 0;
}

int gb_tune_space_shape(const gb_space *space, int M, int K, int N, const gb_tune_cfg *cfg,
                        volatile sig_atomic_t *stop,
                        void (*progress)(void *arg, int trial, double best_us, double rule_us),
                        void *progress_arg, gb_space_outcome *out, char *err, size_t errlen)
{
    search *s = calloc(1, sizeof *s);
    int rc;

    memset(out, 0, sizeof *out);
    out->best_us = out->rule_us = INFINITY;
    if (s == NULL || (s->done = calloc(MAX_MEASURED, sizeof *s->done)) == NULL) {
        free(s);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (gb_trials_init(&s->t, cfg, M, K, N, stop, err, errlen) != 0) {
        free(s->done);
        free(s);
        return -1;
    }
    s->space = space;
    s->progress = progress;
    s->progress_arg = progress_arg;
    s->best_us = INFINITY;
    s->out = out;
    s->elite = -1;
    if (cfg->model != NULL) {
        gb_learn_machine_here(&s->machine);
        gb_learned_info_of(cfg->model, &s->model);
    }
    /* Each shape draws its own sequence, the same on every run with a seed. */
    s->rng = (cfg->seed ^ (unsigned)(M * 2654435761u) ^ (unsigned)(K * 40503u + N)) | 1u;

    gb_sched_set_compile_timeout(COMPILE_LIMIT_MS);
    gb_sched_set_compile_stop(stop);
    rc = run_steps(s, err, errlen);
    gb_sched_set_compile_stop(NULL);
    gb_sched_set_compile_timeout(0);
    out->seconds = gb_now() - s->t.started;
    gb_trials_free(&s->t);
    free(s->done);
    free(s);
    return rc;
}
