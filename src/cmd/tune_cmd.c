/*
 * tune_cmd.c - `gemmbench tune [options]`: the command line around the
 * search of tune.c.  Tunes one shape after the other, printing a row and
 * saving the record file after each, so that an interrupted run keeps every
 * shape it finished.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "command.h"
#include "variants.h"
#include "harness.h"
#include "learn.h"
#include "machine.h"
#include "options.h"
#include "outpath.h"
#include "parse.h"
#include "sched_build.h"
#include "sched_space.h"
#include "sched_variant.h"
#include "settings.h"
#include "tune.h"

static const char tune_intro[] =
    "usage: gemmbench tune [options]\n"
    "  searches a schedule's parameters per shape and records the best for the\n"
    "  `tuned` (rule_based) and `tuned_packed` (packed) variants; with\n"
    "  --schedule FILE, the params of that schedule file (their `in` sets),\n"
    "  printed as --param values to replay (not recorded); with --space FILE, the\n"
    "  schedules of a search space, the fastest recorded per shape for `tuned_sched`\n";

/* What to tune: the command line, then what it resolves to. */
typedef struct tune_job {
    gb_options o;              /* --kernel, --m, --shape and --threads, read as a run reads them */
    gb_tune_cfg cfg;           /* cfg.threads: the count being tuned */
    const char *base_name, *records;
    const char *schedule;      /* --schedule: tune this file's params instead */
    const char *space_file;    /* --space: search this space's schedules instead */
    gb_space search_space;
    const char *database;      /* --database: every candidate measured appended here */
    const char *model_path;    /* --model: a guided search */
    gb_learned *model;
    int variant_given;
    gb_tune_space sched_space; /* built from the schedule's params */
    double budget;             /* --budget: seconds for all the shapes; 0 when not given */
    int trials_given, quiet, help;
    int kernel_given, m_given; /* beside --shape: refused, as run does */
    int dtype_given;           /* --dtype: the space's points take that type */

    const gb_variant *base;
    const gb_tune_space *space;
    gb_shape *shapes;
    int nshapes;
    int ncounts;               /* the thread counts, each tuned on its own */
    int counts[GB_MAX_THREAD_COUNTS];
} tune_job;

/* parse_args' "no exit status yet": the command goes on. */
enum { GO_ON = -1 };

/* Stores one of tune's settings (settings.h) into job. */
static int store_setting(void *target, const gb_setting *s, const gb_setting_value *v,
                         char *err, size_t errlen)
{
    tune_job *job = target;

    switch (s->id) {
    case GB_SET_KERNEL:
    case GB_SET_M:
        job->kernel_given |= s->id == GB_SET_KERNEL;
        job->m_given |= s->id == GB_SET_M;
        return gb_options_store(&job->o, s, v, err, errlen);
    case GB_SET_SHAPE:
    case GB_SET_THREADS:
        return gb_options_store(&job->o, s, v, err, errlen);
    case GB_SET_VARIANT:
        job->base_name = v->text;
        job->variant_given = 1;
        break;
    case GB_SET_SCHEDULE:
        if (job->schedule != NULL) {
            snprintf(err, errlen, "%s: tune searches one schedule at a time", v->name);
            return -1;
        }
        job->schedule = v->text;
        break;
    case GB_SET_SPACE:
        if (job->space_file != NULL) {
            snprintf(err, errlen, "%s: tune searches one space at a time", v->name);
            return -1;
        }
        job->space_file = v->text;
        break;
    case GB_SET_DTYPE:
        if (gb_dtype_parse(v->text, &job->cfg.dtype) != 0) {
            snprintf(err, errlen, "--dtype '%s': not a type (f32, bf16, u8s8: one)", v->text);
            return -1;
        }
        job->dtype_given = 1;
        break;
    case GB_SET_DATABASE: job->database = v->text; break;
    case GB_SET_MODEL: job->model_path = v->text; break;
    case GB_SET_TRIALS:
        job->cfg.max_trials = (int)v->number;
        job->trials_given = 1;
        break;
    case GB_SET_BUDGET: job->budget = v->real; break;
    case GB_SET_REPS: job->cfg.reps = (int)v->number; break;
    case GB_SET_RECORDS: job->records = v->text; break;
    case GB_SET_SEED: job->cfg.seed = (unsigned)v->number; break;
    case GB_SET_QUIET: job->quiet = 1; break;
    case GB_SET_HELP: job->help = 1; break;
    default:
        snprintf(err, errlen, "%s is not an option of tune", v->name);
        return -1;
    }
    return 0;
}

static void job_defaults(tune_job *job)
{
    char err[GB_ERR_LEN];

    memset(job, 0, sizeof *job);
    gb_options_defaults(&job->o);
    job->cfg.warmup = 2;
    gb_settings_defaults(GB_CMD_TUNE, store_setting, job, err, sizeof err);
    job->trials_given = 0;   /* the default is not a --trials */
    job->variant_given = 0;  /* nor rule_based a --variant */
    job->kernel_given = job->m_given = 0;
    job->dtype_given = 0;      /* nor f32 a --dtype */
    job->o.no_config = 1;
    job->records = gb_tuned_path();
}

/* Reads argv into job.  GO_ON, or the exit status: --help was printed, or a
 * usage error said. */
static int parse_args(int argc, char **argv, tune_job *job)
{
    char err[GB_ERR_LEN];
    /* argv[1] is "tune": getopt sees it as the program name. */
    int operands = gb_settings_parse_args(GB_CMD_TUNE, argc - 1, argv + 1, 0, store_setting, job,
                                          err, sizeof err);

    if (operands < 0)
        return gb_usage("tune", "%s", err);
    if (job->help)
        return gb_help_command("tune", GB_CMD_TUNE, tune_intro, "");
    if (operands < argc - 1)
        return gb_usage("tune", "unexpected argument '%s'", argv[1 + operands]);
    if (job->trials_given && job->budget > 0.0)
        return gb_usage("tune", "give --trials or --budget, not both");
    if ((job->schedule != NULL) + (job->space_file != NULL) + job->variant_given > 1)
        return gb_usage("tune", "give one of --variant, --schedule and --space");
    if ((job->database || job->model_path) && job->space_file == NULL)
        return gb_usage("tune", "%s goes with --space FILE",
                        job->database ? "--database" : "--model");
    if (job->dtype_given && job->space_file == NULL)
        return gb_usage("tune", "--dtype goes with --space FILE");
    /* --shape replaces the kernel list: a --kernel beside it would be dropped. */
    if (job->o.nshapes > 0 && (job->kernel_given || job->m_given))
        return gb_usage("tune", "--shape cannot be combined with --kernel or --m");
    return GO_ON;
}

/* --schedule: the file loaded as its variant, and its params with a set as
 * the space.  GB_EXIT_OK, or the error's status (said). */
static int schedule_space(tune_job *job)
{
    char err[GB_ERR_LEN];
    const gb_sched *nest;
    gb_tune_space *sp = &job->sched_space;

    job->base = gb_sched_variant_add(job->schedule, err, sizeof err);
    if (job->base == NULL)
        return gb_fail(GB_EXIT_USAGE, "tune", "%s", err);
    nest = gb_sched_variant_nest(job->base);
    if (nest->dtype != GB_DTYPE_F32) /* its kernels take no --param (a typed run's rule) */
        return gb_fail(GB_EXIT_USAGE, "tune", "%s states type %s: tune --schedule searches "
                       "the params of f32 schedules", job->schedule, gb_dtype_name(nest->dtype));
    memset(sp, 0, sizeof *sp);
    sp->base = job->base->name;
    for (int i = 0; i < nest->nparams; i++) {
        gb_tune_dim d = { .key = nest->params[i].name };
        d.nvalues = gb_sched_param_values(&nest->params[i], d.values);
        if (d.nvalues < 2)
            continue;
        if (sp->ndims == GB_TUNE_MAX_DIMS)
            return gb_fail(GB_EXIT_USAGE, "tune", "%s: more than %d params with an `in` set; "
                           "tune searches at most %d", job->schedule, GB_TUNE_MAX_DIMS,
                           GB_TUNE_MAX_DIMS);
        sp->dims[sp->ndims++] = d;
    }
    if (sp->ndims == 0)
        return gb_fail(GB_EXIT_USAGE, "tune", "%s: no param with an `in` set of two values "
                       "or more: nothing to search", job->schedule);
    job->space = sp;
    return GB_EXIT_OK;
}

/* The output, --records, checked before any work (the compiler's probe,
 * the machine, a search), once the inputs are read (a bad space file or
 * shape is said first): a path that will not take the records is refused
 * at once, never after minutes of searching.  Only a regular file is ever
 * moved aside or replaced: the save renames over the path, which would
 * replace a symlink with a file, and moving aside a device node (as root,
 * /dev/null) or a FIFO breaks the system.  GB_EXIT_OK, or the error's
 * status (said): 2 for a path that may not be written, 3 for one that
 * cannot (a missing or read-only directory), as run's --output. */
static int check_records_path(const char *path)
{
    char err[GB_ERR_LEN], shown[256]; /* shown: the path as messages show it */
    struct stat st;

    if (path[0] == '\0')
        return gb_usage("tune", "--records needs a file name");
    gb_printable(path, 200, shown, sizeof shown);
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return gb_fail(GB_EXIT_USAGE, "tune", "--records %s is %s, not a regular file", shown,
                       S_ISDIR(st.st_mode) ? "a directory"
                       : S_ISLNK(st.st_mode) ? "a symbolic link"
                                             : "a device, FIFO or socket");
    /* err names the path unescaped; errno is still its open's. */
    if (gb_tuned_check_writable(path, err, sizeof err) != 0)
        return gb_fail(GB_EXIT_IO, "tune", "cannot write records next to --records %s: %s",
                       shown, strerror(errno));
    return GB_EXIT_OK;
}

/* The two files tune writes are none of its inputs nor each other: the
 * records saved over the database (or the space, or the model) would lose
 * what was read or measured.  GB_EXIT_OK, or GB_EXIT_USAGE (said). */
static int outputs_apart(const tune_job *job)
{
    const char *const inputs[] = { job->space_file, job->schedule, job->model_path };
    const char *const input_names[] = { "--space", "--schedule", "--model" };
    const char *const outputs[] = { job->schedule ? NULL : job->records, job->database };
    const char *const output_names[] = { "--records", "--database" };
    char shown[256];

    for (int o = 0; o < 2; o++) {
        if (outputs[o] == NULL)
            continue;
        gb_printable(outputs[o], 200, shown, sizeof shown);
        for (int i = 0; i < 3; i++)
            if (inputs[i] && gb_same_file(outputs[o], inputs[i]))
                return gb_usage("tune", "%s %s is the %s file, which it would replace",
                                output_names[o], shown, input_names[i]);
    }
    if (outputs[0] && outputs[1] && gb_same_file(outputs[0], outputs[1])) {
        gb_printable(outputs[1], 200, shown, sizeof shown);
        return gb_usage("tune", "--records and --database are one file, %s: give each its own",
                        shown);
    }
    return GB_EXIT_OK;
}

/* Resolves the variant, the shapes (checked against memory), the thread
 * counts and each shape's share of --budget.  GB_EXIT_OK, or the error's
 * status (said). */
static int resolve_job(tune_job *job)
{
    char err[GB_ERR_LEN], cc[256], identity[256];
    int cpus = 1;

    /* A bad GEMMBENCH_CALIBRATE is an input error here as in a run. */
    if (gb_calibration_mode_check(err, sizeof err) != 0)
        return gb_fail(GB_EXIT_USAGE, "tune", "%s", err);
    if (job->schedule) {
        int status = schedule_space(job);
        if (status != GB_EXIT_OK)
            return status;
    } else if (job->space_file) {
        if (gb_space_load(job->space_file, &job->search_space, err, sizeof err) != 0)
            return gb_fail(GB_EXIT_USAGE, "tune", "%s", err);
        job->base = gb_variant_find(GB_TUNED_SCHED_BASE);
        if (job->search_space.states_type && job->dtype_given &&
            job->search_space.dtype != job->cfg.dtype)
            return gb_usage("tune", "--dtype %s: %s states type %s", gb_dtype_name(job->cfg.dtype),
                            job->search_space.file, gb_dtype_name(job->search_space.dtype));
        if (job->search_space.states_type)
            job->cfg.dtype = job->search_space.dtype;
        job->search_space.dtype = job->cfg.dtype;
    } else {
        job->base = gb_variant_find(job->base_name);
        job->space = gb_tune_space_for(job->base_name);
        if (job->base == NULL || job->space == NULL)
            return gb_usage("tune", "cannot tune '%s' (rule_based or packed)", job->base_name);
    }
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
    if (job->database && gb_trialdb_check(job->database, err, sizeof err) != 0)
        return gb_fail(GB_EXIT_USAGE, "tune", "--database: %s", err);
    {
        int status = outputs_apart(job);
        if (status != GB_EXIT_OK)
            return status;
    }
    if (job->model_path) {
        gb_learned_info info;
        gb_learn_machine here;
        char why[256];
        if (!gb_xgb_available())
            return gb_fail(GB_EXIT_USAGE, "tune", "--model: %s", gb_xgb_missing());
        if (gb_learned_load(job->model_path, &job->model, err, sizeof err) != 0)
            return gb_fail(GB_EXIT_USAGE, "tune", "--model: %s", err);
        gb_learned_info_of(job->model, &info);
        gb_learn_machine_here(&here);
        if (gb_learn_machine_same(&here, &info.machine, why, sizeof why) != 0)
            return gb_fail(GB_EXIT_USAGE, "tune", "--model: a model of another kind of machine "
                           "(%s)", why);
        if (!gb_learned_trained_on(job->model, job->cfg.dtype))
            return gb_fail(GB_EXIT_USAGE, "tune", "--model: trained on no %s trial (train it on "
                           "a database of `tune --space ... --dtype %s --database FILE`)",
                           gb_dtype_name(job->cfg.dtype), gb_dtype_name(job->cfg.dtype));
        job->cfg.model = job->model;
    }
    job->cfg.keep_trials = job->database != NULL;
    /* --schedule records nothing (its params are printed to replay), nor
     * a search of another type than f32 (its winners are printed). */
    if (job->schedule == NULL) {
        int status = check_records_path(job->records);
        if (status != GB_EXIT_OK)
            return status;
    }
    /* A schedule or a space is compiled: with no compiler, exit 2 naming CC
     * (SCHED.md) before any search, as a run does, rather than every
     * candidate failing one by one. */
    if (job->schedule || job->space_file) {
        int rc = gb_sched_compiler(cc, sizeof cc, identity, sizeof identity, err, sizeof err);
        if (rc == GB_SCHED_INTERRUPTED)
            return gb_fail(GB_EXIT_INTERRUPTED, "tune", "interrupted");
        if (rc != 0)
            return gb_fail(GB_EXIT_USAGE, "tune", "%s", err);
    }
    /* `all` (or no --threads): the CPUs the process may use, as in a run. */
    if (job->o.threads_all || job->o.nthreads_list == 0) {
        gb_machine m;
        gb_machine_detect(&m);
        cpus = gb_machine_usable_cpus(&m);
    }
    job->ncounts = gb_options_thread_counts(&job->o, cpus, job->counts, GB_MAX_THREAD_COUNTS);
    /* With a time budget the trial count no longer limits a shape. */
    if (job->budget > 0.0) {
        job->cfg.budget_s = job->budget / (job->nshapes * job->ncounts);
        job->cfg.max_trials = 100000;
    }
    return GB_EXIT_OK;
}

/* Loads the record file (checked by check_records_path) into set.  Existing
 * records are updated, never lost: a corrupt file is moved aside (and said
 * so) rather than overwritten, and records that were skipped (a value out
 * of the variant's range) are written back as they were, and said so.
 * GB_EXIT_OK, or the error's status (said). */
static int load_records(const char *path, gb_tuned_set *set)
{
    char err[GB_ERR_LEN], aside[4200], shown[256];

    if (gb_tuned_load(path, set, err, sizeof err) == 0) {
        if (set->skipped > 0)
            fprintf(stderr, "gemmbench: warning: %s (%d record%s skipped: never used, kept in "
                    "the file as they are)\n", set->skipped_why, set->skipped,
                    set->skipped > 1 ? "s" : "");
    } else {
        snprintf(aside, sizeof aside, "%s.corrupt-%ld", path, (long)time(NULL));
        if (rename(path, aside) != 0)
            return gb_fail(GB_EXIT_IO, "tune", "%s; cannot move it aside", err);
        gb_printable(aside, 220, shown, sizeof shown);
        fprintf(stderr, "gemmbench: warning: %s; moved to %s, starting a new file\n", err,
                shown);
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

    if (job->schedule) /* a schedule's params are replayed with --param */
        return GB_EXIT_OK;
    if (gb_tuned_put(set, &rec) != 0)
        return gb_fail(GB_EXIT_IO, "tune", "out of memory");
    if (gb_tuned_save(job->records, set, err, sizeof err) != 0)
        return gb_fail(GB_EXIT_IO, "tune", "%s", err);
    return GB_EXIT_OK;
}

/* --database: the shape's measured candidates appended to the database
 * (res's kept trials, freed).  0, or -1 (said). */
static int keep_trials(const tune_job *job, const gb_shape *sh, gb_space_outcome *res)
{
    gb_trial_row *rows = calloc((size_t)(res->nkept > 0 ? res->nkept : 1), sizeof *rows);
    gb_learn_machine here;
    char err[GB_ERR_LEN];
    int rc = 0;

    if (rows == NULL) {
        gb_space_outcome_free(res);
        gb_fail(GB_EXIT_IO, "tune", "out of memory");
        return -1;
    }
    gb_learn_machine_here(&here);
    for (int i = 0; i < res->nkept; i++) {
        gb_trial_row *r = &rows[i];
        r->M = sh->M, r->K = sh->K, r->N = sh->N;
        r->threads = job->cfg.threads;
        r->dtype = job->cfg.dtype; /* the space's points state it (a typed text) */
        r->machine = here;
        gb_trialdb_space_name(job->space_file, r->space);
        r->text = res->kept[i].text;
        r->verified = res->kept[i].verified;
        r->median_us = res->kept[i].us;
        r->illegal = res->kept[i].illegal;
    }
    if (gb_trialdb_append(job->database, rows, res->nkept, err, sizeof err) != 0) {
        gb_fail(GB_EXIT_IO, "tune", "--database: %s", err);
        rc = -1;
    }
    free(rows);
    gb_space_outcome_free(res);
    return rc;
}

/* A typed search's winner (or, packed kept, the fastest schedule found),
 * each line of its text after "  | ", so that it can be kept as a file:
 * `sed -n 's/^  | //p'`.  The text is the checked schedule's, printable
 * ASCII (the language's rule), so it is printed as it is. */
static void print_winner(const gb_space_outcome *res)
{
    const char *t = res->rule_won ? res->fastest : res->text;

    if (t[0] == '\0')
        return;
    while (*t) {
        const char *nl = strchr(t, '\n');
        int n = nl ? (int)(nl - t) : (int)strlen(t);
        printf("  | %.*s\n", n, t);
        t += n + (nl != NULL);
    }
}

/* --space: searches shape i, prints its row and saves its record (an
 * interrupted search too: its fastest so far, unconfirmed).  GB_EXIT_OK, or
 * the error's status (said). */
static int search_shape(const tune_job *job, gb_tuned_set *set, const char *fingerprint, int i,
                        double started)
{
    static gb_space_outcome res; /* 16 KiB of text */
    const gb_shape *sh = &job->shapes[i];
    tune_progress prog = { i, job->nshapes, job->budget > 0.0 ? 0 : job->cfg.max_trials, sh,
                           started };
    int tty = !job->quiet && isatty(STDERR_FILENO);
    time_t began = time(NULL);
    gb_tuned_record rec;
    struct tm tm;
    char err[GB_ERR_LEN];
    int rc = gb_tune_space_shape(&job->search_space, sh->M, sh->K, sh->N, &job->cfg,
                                 &gb_interrupted, tty ? show_progress : NULL, &prog, &res, err,
                                 sizeof err);

    if (tty)
        fprintf(stderr, "\r\033[K");
    if (rc != 0) {
        gb_space_outcome_free(&res);
        return gb_fail(rc == -2 ? GB_EXIT_USAGE : GB_EXIT_IO, "tune", "%s", err);
    }
    if (res.wrong > 0)
        fprintf(stderr, "gemmbench: tune: error: %d candidate(s) failed verification: %s\n",
                res.wrong, res.why);
    else if (res.failed > 0 && !job->quiet)
        fprintf(stderr, "gemmbench: tune: note: %d candidate(s) could not run; the first: %s\n",
                res.failed, res.why);
    if (job->database && keep_trials(job, sh, &res) != 0)
        return GB_EXIT_IO;
    if (res.text[0] == '\0' && !res.rule_won)
        return res.wrong > 0 ? GB_EXIT_CHECK_FAILED : GB_EXIT_OK;
    printf("%-11s %5d %5d %5d %11.1f %11.1f %6.3f %7d %7d %7d %8.1f %8.1f %s\n", sh->kernel,
           sh->M, sh->K, sh->N, res.rule_us, res.best_us, res.best_us / res.rule_us, res.trials,
           res.illegal, res.compiled, res.compile_s, res.measure_s,
           res.interrupted ? "  (interrupted: the fastest so far, unconfirmed)"
           : !res.rule_won ? ""
           : job->cfg.dtype == GB_DTYPE_F32 ? "  (rule_based kept: no schedule beat it when "
                                              "measured again)"
                                            : "  (packed kept: no schedule beat it when measured "
                                              "again)");
    if (job->cfg.dtype != GB_DTYPE_F32) { /* the winner's text too, to read or keep */
        if (res.rule_won && res.fastest[0] != '\0')
            printf("  the fastest schedule found: %.1f us, %.3fx packed's time\n",
                   res.fastest_us, res.fastest_us / res.rule_us);
        print_winner(&res);
    }
    fflush(stdout);

    memset(&rec, 0, sizeof rec);
    snprintf(rec.base, sizeof rec.base, "%s", GB_TUNED_SCHED_BASE);
    snprintf(rec.fingerprint, sizeof rec.fingerprint, "%s", fingerprint);
    rec.M = sh->M;
    rec.K = sh->K;
    rec.N = sh->N;
    rec.median_us = res.best_us;
    rec.rule_median_us = res.rule_us;
    rec.trials = res.trials;
    rec.schedule = res.text;
    rec.space = (char *)job->space_file;
    gmtime_r(&began, &tm);
    strftime(rec.tuned_at, sizeof rec.tuned_at, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (gb_tuned_put(set, &rec) != 0)
        return gb_fail(GB_EXIT_IO, "tune", "out of memory");
    if (gb_tuned_save(job->records, set, err, sizeof err) != 0)
        return gb_fail(GB_EXIT_IO, "tune", "%s", err);
    return res.wrong > 0 ? GB_EXIT_CHECK_FAILED : GB_EXIT_OK;
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
        int rc;

        if (job->space_file) {
            rc = search_shape(job, set, fingerprint, i, started);
            if (rc == GB_EXIT_IO && !gb_interrupted)
                status = rc;
            else if (rc != GB_EXIT_OK)
                status = rc;
            continue;
        }
        rc = tune_shape(job, i, started, &res);
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
    char fingerprint[384], model_shown[256] = "", records_shown[256], space_shown[256],
        base_shown[256];
    double started;
    int status;

    job_defaults(&job);
    status = parse_args(argc, argv, &job);
    if (status != GO_ON)
        return status;
    /* From the compiler's probe in resolve_job on, an interrupt kills the
     * compiler at once and ends the command with 130. */
    gb_catch_interrupts();
    gb_sched_set_compile_stop(&gb_interrupted);
    status = resolve_job(&job);
    memset(&set, 0, sizeof set);
    if (status == GB_EXIT_OK && job.schedule == NULL)
        status = load_records(job.records, &set);
    if (status != GB_EXIT_OK) {
        free(job.shapes);
        return status;
    }
    started = gb_now();
    /* every path and name printed as every message shows user text */
    if (job.model)
        gb_printable(job.model_path, 200, model_shown, sizeof model_shown);
    gb_printable(job.records, 200, records_shown, sizeof records_shown);
    gb_printable(job.space_file ? job.space_file : "", 200, space_shown, sizeof space_shown);
    gb_printable(job.base ? job.base->name : "", 200, base_shown, sizeof base_shown);
    /* Records are per thread count (the fingerprint has it): each count is
     * a search of its own. */
    for (int t = 0; t < job.ncounts && !gb_interrupted; t++) {
        int rc;
        job.cfg.threads = job.counts[t];
        gb_tuned_fingerprint_dtype(job.cfg.threads, job.cfg.dtype, fingerprint,
                                   sizeof fingerprint);
        if (job.space_file) {
            if (job.cfg.dtype == GB_DTYPE_F32)
                printf("searching %s (%.3g points), %d shape(s), %d thread(s), %s%s%s; "
                       "rule_us: rule_based; records in %s\n", space_shown,
                       gb_space_size(&job.search_space), job.nshapes, job.cfg.threads,
                       job.budget > 0.0 ? "time budget" : "trial budget",
                       job.model ? ", guided by " : "", job.model ? model_shown : "",
                       records_shown);
            else
                printf("searching %s in %s (%.3g points), %d shape(s), %d thread(s), %s; "
                       "rule_us: packed's %s kernel; records in %s (of %s: tuned_sched "
                       "--dtype %s), each winner's text under its row\n", space_shown,
                       gb_dtype_name(job.cfg.dtype), gb_space_size(&job.search_space),
                       job.nshapes, job.cfg.threads,
                       job.budget > 0.0 ? "time budget" : "trial budget",
                       gb_dtype_name(job.cfg.dtype), records_shown,
                       gb_dtype_name(job.cfg.dtype), gb_dtype_name(job.cfg.dtype));
            printf("%-11s %5s %5s %5s %11s %11s %6s %7s %7s %7s %8s %8s\n", "kernel", "M", "K",
                   "N", "rule_us", "best_us", "ratio", "trials", "illegal", "compiled",
                   "compile_s", "measure_s");
        } else {
            printf("tuning %s, %d shape(s), %d thread(s), %s; %s%s\n", base_shown,
                   job.nshapes, job.cfg.threads,
                   job.budget > 0.0 ? "time budget" : "trial budget",
                   job.schedule ? "rule_us: the file's own param values; not recorded, "
                                  "replay with --schedule FILE --shape MxKxN --param "
                                : "records in ",
                   job.schedule ? "..." : records_shown);
            printf("%-11s %5s %5s %5s %11s %11s %6s %7s %6s  %s\n", "kernel", "M", "K", "N",
                   "rule_us", "tuned_us", "ratio", "trials", "secs", "parameters");
        }
        rc = tune_all(&job, &set, fingerprint, gb_now());
        if (rc != GB_EXIT_OK)
            status = rc;
    }
    printf("tuning took %.1f s\n", gb_now() - started);
    gb_tuned_free(&set);
    gb_space_free(&job.search_space);
    gb_learned_free(job.model);
    free(job.shapes);
    if (gb_interrupted && job.schedule)
        return gb_fail(GB_EXIT_INTERRUPTED, "tune", "interrupted; the shapes above are done");
    if (gb_interrupted) {
        char shown[256];
        gb_printable(job.records, 200, shown, sizeof shown);
        return gb_fail(GB_EXIT_INTERRUPTED, "tune", "interrupted; records so far kept in %s",
                       shown);
    }
    return status != GB_EXIT_OK ? status : gb_finish_stdout("tune");
}
