/*
 * tune_cmd.c - `gemmbench tune [options]`: the command line around the
 * search of tune.c.  Tunes one shape after the other, printing a row and
 * saving the record file after each, so that an interrupted run keeps every
 * shape it finished.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "command.h"
#include "harness.h"
#include "machine.h"
#include "options.h"
#include "parse.h"
#include "tune.h"

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

static const struct option tune_options[] = {
    { "variant", required_argument, NULL, 'v' }, { "kernel", required_argument, NULL, 'k' },
    { "m", required_argument, NULL, 'm' },       { "shape", required_argument, NULL, 's' },
    { "threads", required_argument, NULL, 't' }, { "trials", required_argument, NULL, 'T' },
    { "budget", required_argument, NULL, 'b' },  { "reps", required_argument, NULL, 'r' },
    { "records", required_argument, NULL, 'R' }, { "seed", required_argument, NULL, 'S' },
    { "quiet", no_argument, NULL, 'q' },         { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 }
};

/* What to tune: the command line, then what it resolves to. */
typedef struct tune_job {
    gb_options o;              /* --kernel, --m and --shape, read as a run reads them */
    gb_tune_cfg cfg;
    const char *base_name, *records;
    double budget;             /* --budget: seconds for all the shapes; 0 when not given */
    int trials_given, quiet;

    const gb_variant *base;
    const gb_tune_space *space;
    gb_shape *shapes;
    int nshapes;
} tune_job;

/* parse_args' "no exit status yet": the command goes on. */
enum { GO_ON = -1 };

static void job_defaults(tune_job *job)
{
    const gb_tune_cfg cfg = { 0, 40, 0.0, 2, 10, 1 };

    memset(job, 0, sizeof *job);
    gb_options_defaults(&job->o);
    job->cfg = cfg;
    job->base_name = "rule_based";
    job->records = gb_tuned_path();
}

/* optarg as an integer in [lo, hi]: 0, or the usage error's status (said). */
static int int_option(const char *name, long lo, long hi, int *out)
{
    long v;

    if (gb_parse_long(optarg, lo, hi, &v) != 0)
        return gb_usage("tune", "%s: '%s' is not an integer in [%ld, %ld]", name, optarg, lo,
                        hi);
    *out = (int)v;
    return 0;
}

/* Adds a --shape MxKxN; -1 when text is not one or there are too many. */
static int add_shape(gb_options *o, const char *text)
{
    gb_shape *sh;

    if (o->nshapes >= GB_MAX_SHAPES)
        return -1;
    sh = &o->shapes[o->nshapes];
    if (gb_parse_shape(text, &sh->M, &sh->K, &sh->N) != 0)
        return -1;
    snprintf(sh->kernel, sizeof sh->kernel, "custom");
    o->nshapes++;
    return 0;
}

/* Reads argv into job.  GO_ON, or the exit status: --help was printed, or a
 * usage error said. */
static int parse_args(int argc, char **argv, tune_job *job)
{
    char err[GB_ERR_LEN];
    int ch, rc;

    opterr = 0;
    optind = 2; /* argv[1] is "tune" */
    while ((ch = getopt_long(argc, argv, ":v:k:t:r:h", tune_options, NULL)) != -1) {
        switch (ch) {
        case 'v': job->base_name = optarg; break;
        case 'k': snprintf(job->o.kernels, sizeof job->o.kernels, "%s", optarg); break;
        case 'm':
            if (gb_parse_m_list(optarg, job->o.m, &job->o.nm, err, sizeof err, "--m") != 0)
                return gb_usage("tune", "%s", err);
            break;
        case 's':
            if (add_shape(&job->o, optarg) != 0)
                return gb_usage("tune", "--shape: '%s' is not MxKxN with each in [1, %d]",
                                optarg, GB_MAX_DIM);
            break;
        case 't':
            if ((rc = int_option("--threads", 1, 4096, &job->cfg.threads)) != 0)
                return rc;
            break;
        case 'T':
            if ((rc = int_option("--trials", 1, 100000, &job->cfg.max_trials)) != 0)
                return rc;
            job->trials_given = 1;
            break;
        case 'b':
            if (gb_parse_double(optarg, 0.0, 1e6, &job->budget) != 0 || job->budget <= 0.0)
                return gb_usage("tune", "--budget: '%s' is not a number of seconds > 0", optarg);
            break;
        case 'r':
            if ((rc = int_option("--reps", 1, 10000, &job->cfg.reps)) != 0)
                return rc;
            break;
        case 'R': job->records = optarg; break;
        case 'S': {
            int seed = 0;
            if ((rc = int_option("--seed", 0, 2147483647L, &seed)) != 0)
                return rc;
            job->cfg.seed = (unsigned)seed;
            break;
        }
        case 'q': job->quiet = 1; break;
        case 'h':
            return gb_help("tune", tune_usage);
        default: /* ':' or '?' */
            return gb_getopt_fail_opts("tune", ch, argv, tune_options);
        }
    }
    if (optind < argc)
        return gb_usage("tune", "unexpected argument '%s'", argv[optind]);
    if (job->trials_given && job->budget > 0.0)
        return gb_usage("tune", "give --trials or --budget, not both");
    return GO_ON;
}

/* Resolves the variant, the shapes (checked against memory), the thread
 * count and each shape's share of --budget.  GB_EXIT_OK, or the error's
 * status (said). */
static int resolve_job(tune_job *job)
{
    char err[GB_ERR_LEN];

    job->base = gb_variant_find(job->base_name);
    job->space = gb_tune_space_for(job->base_name);
    if (job->base == NULL || job->space == NULL)
        return gb_usage("tune", "cannot tune '%s' (rule_based or packed)", job->base_name);
    job->shapes = malloc(GB_MAX_SHAPES * sizeof *job->shapes);
    if (job->shapes == NULL)
        return gb_fail(GB_EXIT_IO, "tune", "out of memory");
    job->nshapes = gb_shapes_build(&job->o, job->shapes, GB_MAX_SHAPES, err, sizeof err);
    if (job->nshapes < 0)
        return gb_usage("tune", "%s", err);
    for (int i = 0; i < job->nshapes; i++)
        if (gb_shape_check(job->shapes[i].M, job->shapes[i].K, job->shapes[i].N, err,
                           sizeof err) != 0)
            return gb_usage("tune", "%s", err);
    if (job->cfg.threads == 0) {
        gb_machine m;
        gb_machine_detect(&m);
        job->cfg.threads = m.affinity_cpus;
    }
    /* With a time budget the trial count no longer limits a shape. */
    if (job->budget > 0.0) {
        job->cfg.budget_s = job->budget / job->nshapes;
        job->cfg.max_trials = 100000;
    }
    return GB_EXIT_OK;
}

/* Loads the record file into set.  Existing records are updated, never
 * lost: a corrupt file is moved aside (and said so) rather than overwritten,
 * and records that were skipped (a value out of the variant's range) are
 * written back as they were, and said so.  Then checks that the file can be written, before
 * minutes of searching rather than after.  GB_EXIT_OK, or the error's status
 * (said). */
static int load_records(const char *path, gb_tuned_set *set)
{
    char err[GB_ERR_LEN], aside[4200];

    if (gb_tuned_load(path, set, err, sizeof err) == 0) {
        if (set->skipped > 0)
            fprintf(stderr, "gemmbench: warning: %s (%d record%s skipped: never used, kept in "
                    "the file as they are)\n", set->skipped_why, set->skipped,
                    set->skipped > 1 ? "s" : "");
    } else {
        snprintf(aside, sizeof aside, "%s.corrupt-%ld", path, (long)time(NULL));
        if (rename(path, aside) != 0)
            return gb_fail(GB_EXIT_IO, "tune", "%s; cannot move it aside", err);
        fprintf(stderr, "gemmbench: warning: %s; moved to %s, starting a new file\n", err,
                aside);
    }
    if (gb_tuned_check_writable(path, err, sizeof err) != 0) {
        gb_tuned_free(set);
        return gb_fail(GB_EXIT_IO, "tune", "%s", err);
    }
    return GB_EXIT_OK;
}

/* The progress line, on a terminal only; the time left is estimated from the
 * shapes done. */
typedef struct tune_progress {
    int shape, nshapes, max_trials;
    const gb_shape *s;
    double started;
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

/* Searches shape i into res.  GB_EXIT_OK, or the error's status (said). */
static int tune_shape(const tune_job *job, int i, double started, gb_tune_outcome *res)
{
    const gb_shape *sh = &job->shapes[i];
    tune_progress prog = { i, job->nshapes, job->budget > 0.0 ? 0 : job->cfg.max_trials, sh,
                           started };
    int tty = !job->quiet && isatty(STDERR_FILENO);
    char err[GB_ERR_LEN];
    int rc = gb_tune_shape(job->base, job->space, sh->M, sh->K, sh->N, &job->cfg,
                           &gb_interrupted, tty ? show_progress : NULL, &prog, res, err,
                           sizeof err);

    if (tty)
        fprintf(stderr, "\r\033[K"); /* clears the progress line */
    return rc == 0 ? GB_EXIT_OK : gb_fail(GB_EXIT_IO, "tune", "%s", err);
}

/* Prints the row of a tuned shape and saves its record, stamped with when
 * its search began.  GB_EXIT_OK, or the error's status (said). */
static int keep_record(const tune_job *job, gb_tuned_set *set, const char *fingerprint,
                       const gb_shape *sh, const gb_tune_outcome *res, time_t began)
{
    gb_tuned_record rec;
    struct tm tm;
    char params[256], err[GB_ERR_LEN];

    memset(&rec, 0, sizeof rec);
    snprintf(rec.base, sizeof rec.base, "%s", job->base->name);
    snprintf(rec.fingerprint, sizeof rec.fingerprint, "%s", fingerprint);
    rec.M = sh->M;
    rec.K = sh->K;
    rec.N = sh->N;
    rec.params = res->best;
    rec.median_us = res->best_us;
    rec.rule_median_us = res->rule_us;
    rec.trials = res->trials;
    gmtime_r(&began, &tm);
    strftime(rec.tuned_at, sizeof rec.tuned_at, "%Y-%m-%dT%H:%M:%SZ", &tm);

    gb_params_format(job->base, &rec.params, params, sizeof params);
    printf("%-11s %5d %5d %5d %11.1f %11.1f %6.3f %7d %6.1f  %s%s\n", sh->kernel, sh->M, sh->K,
           sh->N, res->rule_us, res->best_us, res->best_us / res->rule_us, res->trials,
           res->seconds, params, res->rejected ? "  (some rejected)" : "");
    fflush(stdout);

    if (gb_tuned_put(set, &rec) != 0)
        return gb_fail(GB_EXIT_IO, "tune", "out of memory");
    if (gb_tuned_save(job->records, set, err, sizeof err) != 0)
        return gb_fail(GB_EXIT_IO, "tune", "%s", err);
    return GB_EXIT_OK;
}

/* Tunes every shape until the end or an interrupt.  A shape whose search
 * fails is skipped; a record file that cannot be written ends the loop. */
static int tune_all(const tune_job *job, gb_tuned_set *set, const char *fingerprint,
                    double started)
{
    int status = GB_EXIT_OK;

    for (int i = 0; i < job->nshapes && !gb_interrupted; i++) {
        time_t began = time(NULL);
        gb_tune_outcome res;
        int rc = tune_shape(job, i, started, &res);

        if (rc != GB_EXIT_OK) {
            status = rc;
            continue;
        }
        if (res.interrupted)
            break;
        rc = keep_record(job, set, fingerprint, &job->shapes[i], &res, began);
        if (rc != GB_EXIT_OK)
            return rc;
    }
    return status;
}

int gb_cmd_tune(int argc, char **argv)
{
    static tune_job job; /* static: gb_options is large */
    gb_tuned_set set;
    char fingerprint[384];
    double started;
    int status;

    job_defaults(&job);
    status = parse_args(argc, argv, &job);
    if (status != GO_ON)
        return status;
    status = resolve_job(&job);
    if (status == GB_EXIT_OK)
        status = load_records(job.records, &set);
    if (status != GB_EXIT_OK) {
        free(job.shapes);
        return status;
    }
    gb_tuned_fingerprint(job.cfg.threads, fingerprint, sizeof fingerprint);
    gb_catch_interrupts();

    printf("tuning %s, %d shape(s), %d thread(s), %s; records in %s\n", job.base->name,
           job.nshapes, job.cfg.threads, job.budget > 0.0 ? "time budget" : "trial budget",
           job.records);
    printf("%-11s %5s %5s %5s %11s %11s %6s %7s %6s  %s\n", "kernel", "M", "K", "N", "rule_us",
           "tuned_us", "ratio", "trials", "secs", "parameters");
    started = gb_now();
    status = tune_all(&job, &set, fingerprint, started);
    printf("tuning took %.1f s\n", gb_now() - started);
    gb_tuned_free(&set);
    free(job.shapes);
    if (gb_interrupted)
        return gb_fail(GB_EXIT_INTERRUPTED, "tune", "interrupted; records so far kept in %s",
                       job.records);
    return status != GB_EXIT_OK ? status : gb_finish_stdout("tune");
}
