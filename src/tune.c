/*
 * tune.c - `gemmbench tune`: search a schedule's parameters per shape, with
 * the same harness and verification as a run, and keep the best as records
 * that the `tuned` variants replay.
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
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "harness.h"
#include "options.h"
#include "parse.h"
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

/* ---- the command ---------------------------------------------------------- */

static volatile sig_atomic_t tune_interrupted;

static void on_tune_signal(int sig)
{
    (void)sig;
    tune_interrupted = 1;
}

static const char tune_usage[] =
    "usage: gemmbench tune [options]\n"
    "  searches a schedule's parameters per shape and records the best for the\n"
    "  `tuned` (rule_based) and `tuned_packed` (packed) variants\n"
    "  -v, --variant V      rule_based (default) or packed\n"
    "  -k, --kernel LIST    qkv, mlp_expand, mlp_reduce, square1024 or all (default all)\n"
    "      --m LIST         M values (default 16 32 64 96 128 192 256 384)\n"
    "      --shape MxKxN    a custom shape (repeatable; replaces --kernel and --m)\n"
    "  -t, --threads N      threads (default: all the process may use); records are per count\n"
    "      --trials N       candidates per shape, the rule included (default 40)\n"
    "      --budget S       seconds in all, shared evenly by the shapes (instead of --trials)\n"
    "  -r, --reps N         timed calls per candidate (default 10, after 2 warm-up calls)\n"
    "      --records FILE   record file (default $GEMMBENCH_RECORDS or results/tuned.json)\n"
    "      --seed N         seed of the random phase (default 1)\n"
    "      --quiet          no progress line\n";

typedef struct tune_progress {
    int shape, nshapes, max_trials;
    const gb_shape *s;
    double started, budget;
} tune_progress;

static void show_progress(void *arg, int trial, double best_us, double rule_us)
{
    const tune_progress *p = arg;
    double elapsed = gb_now() - p->started;
    double per_shape = p->shape > 0 ? elapsed / p->shape : 0.0;

    fprintf(stderr, "\r\033[K[%d/%d] %s M=%d  trial %d/%d  best %.1f us (rule %.1f us)",
            p->shape + 1, p->nshapes, p->s->kernel, p->s->M, trial, p->max_trials, best_us,
            rule_us);
    if (p->shape > 0)
        fprintf(stderr, "  ~%.0fs left", per_shape * (p->nshapes - p->shape));
    fflush(stderr);
}

int gb_cmd_tune(int argc, char **argv)
{
    static const struct option opts[] = {
        { "variant", required_argument, NULL, 'v' }, { "kernel", required_argument, NULL, 'k' },
        { "m", required_argument, NULL, 'm' },       { "shape", required_argument, NULL, 's' },
        { "threads", required_argument, NULL, 't' }, { "trials", required_argument, NULL, 'T' },
        { "budget", required_argument, NULL, 'b' },  { "reps", required_argument, NULL, 'r' },
        { "records", required_argument, NULL, 'R' }, { "seed", required_argument, NULL, 'S' },
        { "quiet", no_argument, NULL, 'q' },         { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    static gb_options o;
    gb_shape *shapes = NULL;
    gb_tuned_set set;
    gb_tune_cfg cfg = { 0, 40, 0.0, 2, 10, 1 };
    const gb_variant *base;
    const gb_tune_space *space;
    const char *base_name = "rule_based", *records = gb_tuned_path();
    char err[GB_ERR_LEN], fingerprint[384];
    int c, nshapes, trials_given = 0, budget_given = 0, quiet = 0, status = GB_EXIT_OK;
    double total_budget = 0.0, started;
    long l;
    struct sigaction sa;

    gb_options_defaults(&o);
    opterr = 0;
    optind = 2;
    while ((c = getopt_long(argc, argv, ":v:k:t:r:h", opts, NULL)) != -1) {
        switch (c) {
        case 'v': base_name = optarg; break;
        case 'k': snprintf(o.kernels, sizeof o.kernels, "%s", optarg); break;
        case 'm':
            if (gb_parse_m_list(optarg, o.m, &o.nm, err, sizeof err, "--m") != 0)
                goto usage_error;
            break;
        case 's': {
            gb_shape *sh = &o.shapes[o.nshapes];
            if (o.nshapes >= GB_MAX_SHAPES || gb_parse_shape(optarg, &sh->M, &sh->K, &sh->N)) {
                snprintf(err, sizeof err, "--shape: '%s' is not MxKxN with each in [1, %d]",
                         optarg, GB_MAX_DIM);
                goto usage_error;
            }
            snprintf(sh->kernel, sizeof sh->kernel, "custom");
            o.nshapes++;
            break;
        }
        case 't':
            if (gb_parse_long(optarg, 1, 4096, &l) != 0) {
                snprintf(err, sizeof err, "--threads: '%s' is not an integer in [1, 4096]", optarg);
                goto usage_error;
            }
            cfg.threads = (int)l;
            break;
        case 'T':
            if (gb_parse_long(optarg, 1, 100000, &l) != 0) {
                snprintf(err, sizeof err, "--trials: '%s' is not an integer in [1, 100000]", optarg);
                goto usage_error;
            }
            cfg.max_trials = (int)l;
            trials_given = 1;
            break;
        case 'b':
            if (gb_parse_double(optarg, 0.0, 1e6, &total_budget) != 0 || total_budget <= 0.0) {
                snprintf(err, sizeof err, "--budget: '%s' is not a number of seconds > 0", optarg);
                goto usage_error;
            }
            budget_given = 1;
            break;
        case 'r':
            if (gb_parse_long(optarg, 1, 10000, &l) != 0) {
                snprintf(err, sizeof err, "--reps: '%s' is not an integer in [1, 10000]", optarg);
                goto usage_error;
            }
            cfg.reps = (int)l;
            break;
        case 'R': records = optarg; break;
        case 'S':
            if (gb_parse_long(optarg, 0, 2147483647L, &l) != 0) {
                snprintf(err, sizeof err, "--seed: '%s' is not an integer >= 0", optarg);
                goto usage_error;
            }
            cfg.seed = (unsigned)l;
            break;
        case 'q': quiet = 1; break;
        case 'h': fputs(tune_usage, stdout); return GB_EXIT_OK;
        case ':':
            snprintf(err, sizeof err, "tune: option %s needs a value", argv[optind - 1]);
            goto usage_error;
        default:
            snprintf(err, sizeof err, "tune: unknown option %s (see gemmbench tune --help)",
                     argv[optind - 1]);
            goto usage_error;
        }
    }
    if (optind < argc) {
        snprintf(err, sizeof err, "tune: unexpected argument '%s'", argv[optind]);
        goto usage_error;
    }
    if (trials_given && budget_given) {
        snprintf(err, sizeof err, "tune: give --trials or --budget, not both");
        goto usage_error;
    }
    base = gb_variant_find(base_name);
    space = gb_tune_space_for(base_name);
    if (base == NULL || space == NULL) {
        snprintf(err, sizeof err, "tune: cannot tune '%s' (rule_based or packed)", base_name);
        goto usage_error;
    }
    shapes = malloc(GB_MAX_SHAPES * sizeof *shapes);
    if (shapes == NULL) {
        snprintf(err, sizeof err, "out of memory");
        goto usage_error;
    }
    nshapes = gb_shapes_build(&o, shapes, GB_MAX_SHAPES, err, sizeof err);
    if (nshapes < 0)
        goto usage_error;
    for (int i = 0; i < nshapes; i++)
        if (gb_shape_check(shapes[i].M, shapes[i].K, shapes[i].N, err, sizeof err) != 0)
            goto usage_error;
    if (cfg.threads == 0) {
        gb_machine m;
        gb_machine_detect(&m);
        cfg.threads = m.affinity_cpus;
    }
    if (budget_given) {
        cfg.budget_s = total_budget / nshapes;
        cfg.max_trials = 100000;
    }

    /* Existing records are updated, never lost: a corrupt file is moved
     * aside (and said so) rather than overwritten. */
    if (gb_tuned_load(records, &set, err, sizeof err) != 0) {
        char aside[4200];
        snprintf(aside, sizeof aside, "%s.corrupt-%ld", records, (long)time(NULL));
        if (rename(records, aside) != 0) {
            fprintf(stderr, "gemmbench: %s; cannot move it aside\n", err);
            free(shapes);
            return GB_EXIT_IO;
        }
        fprintf(stderr, "gemmbench: warning: %s; moved to %s, starting a new file\n", err, aside);
    }
    gb_tuned_fingerprint(cfg.threads, fingerprint, sizeof fingerprint);

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_tune_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    printf("tuning %s, %d shape(s), %d thread(s), %s; records in %s\n", base->name, nshapes,
           cfg.threads, budget_given ? "time budget" : "trial budget", records);
    printf("%-11s %5s %5s %5s %11s %11s %6s %7s %6s  %s\n", "kernel", "M", "K", "N", "rule_us",
           "tuned_us", "ratio", "trials", "secs", "parameters");
    started = gb_now();
    for (int i = 0; i < nshapes && !tune_interrupted; i++) {
        tune_progress prog = { i, nshapes, budget_given ? 0 : cfg.max_trials, &shapes[i],
                               started, cfg.budget_s };
        gb_tune_outcome res;
        gb_tuned_record rec;
        char params[256];
        time_t now = time(NULL);
        struct tm tm;
        int tty = !quiet && isatty(STDERR_FILENO);

        if (gb_tune_shape(base, space, shapes[i].M, shapes[i].K, shapes[i].N, &cfg,
                          &tune_interrupted, tty ? show_progress : NULL, &prog, &res, err,
                          sizeof err) != 0) {
            if (tty)
                fprintf(stderr, "\r\033[K");
            fprintf(stderr, "gemmbench: %s\n", err);
            status = GB_EXIT_IO;
            continue;
        }
        if (tty)
            fprintf(stderr, "\r\033[K");
        if (res.interrupted)
            break;
        memset(&rec, 0, sizeof rec);
        snprintf(rec.base, sizeof rec.base, "%s", base->name);
        snprintf(rec.fingerprint, sizeof rec.fingerprint, "%s", fingerprint);
        rec.M = shapes[i].M;
        rec.K = shapes[i].K;
        rec.N = shapes[i].N;
        rec.params = res.best;
        rec.median_us = res.best_us;
        rec.rule_median_us = res.rule_us;
        rec.trials = res.trials;
        gmtime_r(&now, &tm);
        strftime(rec.tuned_at, sizeof rec.tuned_at, "%Y-%m-%dT%H:%M:%SZ", &tm);
        gb_params_format(base, &rec.params, params, sizeof params);
        printf("%-11s %5d %5d %5d %11.1f %11.1f %6.3f %7d %6.1f  %s%s\n", shapes[i].kernel,
               rec.M, rec.K, rec.N, res.rule_us, res.best_us, res.best_us / res.rule_us,
               res.trials, res.seconds, params, res.rejected ? "  (some rejected)" : "");
        fflush(stdout);
        if (gb_tuned_put(&set, &rec) != 0 || gb_tuned_save(records, &set, err, sizeof err)) {
            fprintf(stderr, "gemmbench: %s\n", err[0] ? err : "out of memory");
            status = GB_EXIT_IO;
            break;
        }
    }
    printf("tuning took %.1f s\n", gb_now() - started);
    gb_tuned_free(&set);
    free(shapes);
    if (tune_interrupted) {
        fprintf(stderr, "gemmbench: interrupted; records so far kept in %s\n", records);
        return GB_EXIT_INTERRUPTED;
    }
    return status;

usage_error:
    free(shapes);
    fprintf(stderr, "gemmbench: %s\n", err);
    return GB_EXIT_USAGE;
}
