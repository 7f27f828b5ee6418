/*
 * run_cmd.c - the run command, `gemmbench [options]`: reads the options
 * (built-in defaults < bench.conf < flags), answers --help, --version,
 * --list and --explain, claims the output file, measures the peak, then
 * hands the sweep to the runner and shows its rows as they arrive.
 * The run's steps in their order, each a function; the rows' display is
 * run_view.c, the notes under the table run_notes.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "command.h"
#include "sched_build.h"
#include "sched_variant.h"
#include "outpath.h"
#include "bandwidth.h"
#include "calibrate.h"
#include "variants.h"
#include "peak.h"
#include "roof.h"
#include "gemmbench.h"
#include "libraries.h"
#include "lockstep.h"
#include "machine.h"
#include "ml_guided.h"
#include "options.h"
#include "parse.h"
#include "output.h"
#include "run_story.h"
#include "run_view.h"
#include "runner.h"
#include "settings.h"
#include "table.h"
#include "tune.h"
#include "tuned_records.h"

/* After the commands and run's options (settings.h) in --help. */
static const char help_outro[] =
    "\n"
    "exit status: 0 ok, 1 a check failed, 2 usage or input error, 3 I/O error,\n"
    "130 interrupted (the JSON file then says \"complete\": false)\n";

/* gemmbench --help: every command (command.c), then the run's options. */
static int print_help(void)
{
    gb_write_command_list(stdout);
    fputc('\n', stdout);
    return gb_help_command(NULL, GB_CMD_RUN, "", help_outro);
}

static void print_list(FILE *out)
{
    fprintf(out, "%-16s %-11s %s\n", "variant", "family", "description");
    for (size_t i = 0; i < gb_variant_count; i++) {
        const gb_variant *v = gb_variants[i];
        char types[64] = "";
        fprintf(out, "%-16s %-11s %s\n", v->name, v->family, v->description);
        for (int t = GB_DTYPE_F32; t < GB_DTYPE_COUNT; t++)
            if (t == GB_DTYPE_F32 ? v->run != NULL : v->typed[t] != NULL)
                snprintf(types + strlen(types), sizeof types - strlen(types), "%s%s",
                         types[0] ? ", " : "", gb_dtype_name((gb_dtype)t));
        if (v->run == NULL)
            fprintf(out, "%29stypes %s; no f32: %s\n", "", types, gb_variant_types_note(v));
        else if (strchr(types, ','))
            fprintf(out, "%29stypes %s\n", "", types);
        else
            fprintf(out, "%29stypes f32 only: %s\n", "", gb_variant_types_note(v));
        for (const gb_param_spec *s = v->params; s && s->key; s++) {
            if (s->min > s->max) {
                fprintf(out, "%29sreports %s  %s\n", "", s->key, s->help);
            } else if (s->choices) {
                fprintf(out, "%29s--param %s=", "", s->key);
                for (int c = 0; s->choices[c]; c++)
                    fprintf(out, "%s%s", c ? "|" : "", s->choices[c]);
                fprintf(out, "  %s\n", s->help);
            } else {
                fprintf(out, "%29s--param %s=%ld..%ld  %s\n", "", s->key, s->min, s->max,
                        s->help);
            }
        }
    }
}

/* results/<host>-<UTC timestamp>.json, creating results/ when missing. */
static int default_output(char *path, size_t len, const char *host, char *err, size_t errlen)
{
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;

    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    if (mkdir("results", 0755) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create results/: %s", strerror(errno));
        return -1;
    }
    snprintf(path, len, "results/%s-%s.json", host, stamp);
    return 0;
}

/* Claims the output file before any measurement, so that a bad path fails
 * at once and an existing file is never overwritten without --force.  Only
 * a regular file is ever replaced: the result is renamed over the target,
 * which would replace a device node (as root, /dev/null) or a FIFO.  Sets
 * *created when this call made the (empty) file.  GB_EXIT_USAGE for a
 * target that may not be replaced, GB_EXIT_IO for one that cannot be
 * written (read-only, missing directory), as a full disk is. */
static int claim_output(const char *path, int force, int *created, char *err, size_t errlen)
{
    struct stat st;
    char shown[256]; /* the path as messages show it */
    int fd;

    gb_printable(path, 200, shown, sizeof shown);

    *created = 0;
    if (stat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode)) {
            snprintf(err, errlen, "--output %s is %s, not a regular file", shown,
                     S_ISDIR(st.st_mode) ? "a directory" : "a device, FIFO or socket");
            return GB_EXIT_USAGE;
        }
        if (!force) {
            snprintf(err, errlen, "%s exists (use --force to overwrite it)", shown);
            return GB_EXIT_USAGE;
        }
        if (access(path, W_OK) != 0) {
            snprintf(err, errlen, "cannot write %s: %s", shown, strerror(errno));
            return GB_EXIT_IO;
        }
        return 0;
    }
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    /* stat failed yet the name exists: a symbolic link to nothing, which
     * "File exists" would not explain. */
    if (fd < 0 && errno == EEXIST && lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        snprintf(err, errlen, "--output %s is a symbolic link to a missing file, not a "
                 "regular file", shown);
        return GB_EXIT_USAGE;
    }
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %s: %s", shown, strerror(errno));
        return errno == EEXIST ? GB_EXIT_USAGE : GB_EXIT_IO;
    }
    close(fd);
    *created = 1;
    return 0;
}

/* The output is none of the run's inputs (a --schedule file, the config,
 * the model), --force or not: the result would be renamed over what the run
 * read (outpath.h's rule).  0, or GB_EXIT_USAGE with err. */
static int output_not_an_input(const gb_options *o, const char *path, char *err, size_t errlen)
{
    const char *inputs[GB_MAX_SCHEDULES + 2];
    int n = 0;
    char shown[256];

    for (int i = 0; i < o->nschedules; i++)
        inputs[n++] = o->schedules[i];
    inputs[n++] = o->config_path;
    inputs[n++] = o->model;
    for (int i = 0; i < n; i++)
        if (inputs[i][0] != '\0' && gb_same_file(path, inputs[i])) {
            gb_printable(path, 200, shown, sizeof shown);
            snprintf(err, errlen, "--output %s is one of the run's inputs (%s): the result "
                     "would replace it", shown,
                     i < o->nschedules ? "a --schedule file" : i == o->nschedules ? "the config"
                                                                                  : "the model");
            return GB_EXIT_USAGE;
        }
    return 0;
}

/* The default name, unique: two runs started in the same second (a CI
 * matrix, a loop) get NAME.json and NAME-2.json, never one file.  O_EXCL
 * makes the claim atomic between processes. */
static int claim_default_output(char *path, size_t len, int *created, char *err,
                                size_t errlen)
{
    char base[PATH_MAX + 64];
    size_t n = strlen(path);

    if (n < 5 || n - 5 >= sizeof base)
        return claim_output(path, 0, created, err, errlen);
    memcpy(base, path, n - 5); /* without ".json" */
    base[n - 5] = '\0';
    for (int i = 2; i <= 1000; i++) {
        int rc = claim_output(path, 0, created, err, errlen);
        if (rc == 0 || access(path, F_OK) != 0)
            return rc;
        snprintf(path, len, "%s-%d.json", base, i);
    }
    return claim_output(path, 0, created, err, errlen);
}

/* The tuned variants fall back to their rules when the record file is
 * corrupt; say so once here, since the variants themselves never print. */
static void warn_unreadable_records(const gb_selection *sel)
{
    char err[GB_ERR_LEN];
    gb_tuned_set set;

    for (int v = 0; v < sel->nvariants; v++)
        if (strcmp(sel->variants[v]->family, "tuned") == 0) {
            if (gb_tuned_load(gb_tuned_path(), &set, err, sizeof err) != 0)
                fprintf(stderr, "gemmbench: warning: %s; the tuned variants use their rules\n",
                        err);
            else if (set.skipped > 0)
                fprintf(stderr, "gemmbench: warning: %s; %d record%s skipped, never used\n",
                        set.skipped_why, set.skipped, set.skipped > 1 ? "s" : "");
            gb_tuned_free(&set);
            return;
        }
}

/* Whether --explain shows variant v at shape s: where it runs, and where
 * only this machine cannot (AMX's tiles absent: what it would run). */
static int explains(const gb_selection *sel, int v, int s)
{
    const gb_dtype t = sel->shapes[s].dtype;

    return gb_selection_runs(sel, v, s, NULL, 0) ||
           (t != GB_DTYPE_F32 && sel->variants[v]->typed[t] != NULL &&
            sel->params[v].count == 0 && !gb_selection_available(sel, v, s, NULL, 0));
}

static void explain_all(const gb_selection *sel, int threads)
{
    int any = 0;

    for (int v = 0; v < sel->nvariants; v++) {
        const gb_variant *var = sel->variants[v];
        gb_ctx ctx = { threads, &sel->params[v], NULL, NULL, 0, NULL };
        if (var->explain == NULL)
            continue;
        any = 1;
        /* once a shape and type: bf16 and u8s8 by the variant's kernel of
         * the type where that explains itself, else by the variant (a
         * typed schedule explains its own type) */
        for (int s = 0; s < sel->nshapes; s++) {
            const gb_shape *sh = &sel->shapes[s];
            const gb_typed_kernel *tk =
                sh->dtype != GB_DTYPE_F32 ? var->typed[sh->dtype] : NULL;
            if (!explains(sel, v, s) ||
                (s > 0 && sel->shapes[s - 1].M == sh->M && sel->shapes[s - 1].N == sh->N &&
                 sel->shapes[s - 1].K == sh->K && sel->shapes[s - 1].dtype == sh->dtype &&
                 explains(sel, v, s - 1)))
                continue;
            if (tk != NULL && tk->explain != NULL)
                tk->explain(stdout, sh->M, sh->N, sh->K, &ctx);
            else
                var->explain(stdout, sh->M, sh->N, sh->K, &ctx);
        }
    }
    if (!any)
        printf("none of the selected variants derives its schedule from rules "
               "(try --variant rule_based)\n");
}


/* packed's calibration (calibrate.h) at each of n thread counts, when a
 * selected variant runs packed: cached, or measured now, before any timed
 * call; into machine for the result file.  0, or the exit status. */
static int calibrate_packed(const gb_selection *sel, gb_machine *machine, const int *counts,
                            int n, int quiet)
{
    char err[GB_ERR_LEN];
    int needed = 0;

    for (int v = 0; v < sel->nvariants; v++)
        needed |= gb_calibration_needed(sel->variants[v]);
    machine->ncalib = 0;
    for (int i = 0; needed && i < n && i < GB_MAX_CALIBRATIONS; i++) {
        const int rc = gb_calibration_ensure(machine, counts[i], quiet,
                                             &machine->calib[machine->ncalib], err, sizeof err);
        if (rc != 0)
            return gb_fail(rc == -1 ? GB_EXIT_USAGE : GB_EXIT_IO, NULL, "%s", err);
        machine->ncalib++;
    }
    return GB_EXIT_OK;
}

/* ---- the sweep -------------------------------------------------------------- */

/* The bandwidth roofs, measured per run like the peak (0.5 to 1 s;
 * src/measure/bandwidth.md): a machine whose caches are unknown runs without roofs. */
static void measure_bandwidth(gb_machine *machine, int threads, int quiet)
{
    char err[GB_ERR_LEN];
    const int all = threads > 1;

    if (gb_machine_measure_bandwidth(machine, threads, err, sizeof err) != 0) {
        fprintf(stderr, "gemmbench: warning: %s; results have no %%roof\n", err);
        return;
    }
    if (quiet)
        return;
    fprintf(stderr, "gemmbench: bandwidth roofs at %d thread%s: L2 %.0f, L3 %.0f, memory %.0f "
                    "GB/s (measured%s)\n", threads, threads > 1 ? "s" : "",
            gb_roof_bandwidth(&machine->bw, GB_BW_L2, all),
            gb_roof_bandwidth(&machine->bw, GB_BW_L3, all),
            gb_roof_bandwidth(&machine->bw, GB_BW_MEM, all),
            machine->bw.capped ? "; memory's working set capped by MemAvailable" : "");
}

static void utc_now(char *buf, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;

    gmtime_r(&now, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The thread counts of a run: o's list resolved against the CPUs the
 * process may use (Slurm's allotment when smaller), with a warning for
 * counts above them. */
typedef struct thread_plan {
    int n;
    int counts[GB_MAX_THREAD_COUNTS];
    double peaks[GB_MAX_THREAD_COUNTS];
    /* The other types' peaks at each count, for the types the run has. */
    double dtype_peaks[GB_DTYPE_COUNT][GB_MAX_THREAD_COUNTS];
} thread_plan;

static void plan_threads(const gb_options *o, const gb_machine *machine, thread_plan *plan)
{
    int cpus = gb_machine_usable_cpus(machine);
    int slurm = machine->slurm.present && cpus == machine->slurm.cpus;

    plan->n = gb_options_thread_counts(o, cpus, plan->counts, GB_MAX_THREAD_COUNTS);
    for (int i = 0; i < plan->n; i++)
        if (plan->counts[i] > cpus)
            fprintf(stderr, "gemmbench: warning: %d threads is more than the %d CPU%s %s; its "
                            "threads share CPUs\n",
                    plan->counts[i], cpus, cpus == 1 ? "" : "s",
                    slurm ? "Slurm allotted to this job (SLURM_CPUS_ON_NODE)"
                          : "this process may use (sched_getaffinity)");
}

/* With several counts, the single-thread schedules run once, at 1 thread:
 * say which, once. */
static void note_single_thread(const gb_selection *sel, const thread_plan *plan, int quiet)
{
    char names[512] = "";
    size_t used = 0;

    if (plan->n < 2 || quiet)
        return;
    for (int v = 0; v < sel->nvariants && used < sizeof names; v++)
        if (sel->variants[v]->single_thread && (v == 0 || sel->variants[v] != sel->variants[v - 1]))
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s",
                                     used ? ", " : "", sel->variants[v]->name);
    if (names[0])
        fprintf(stderr, "gemmbench: single-thread schedules measured once, at 1 thread: %s\n",
                names);
}

/* The peak of every count into plan (or --peak's, one count only). */
static void measure_peaks(const gb_options *o, gb_machine *machine, thread_plan *plan)
{
    int largest = plan->counts[plan->n - 1];

    if (o->peak_all > 0.0) {
        machine->peak_gflops = o->peak_all;
        machine->peak_gflops_1t = o->peak_one;
        snprintf(machine->peak_isa, sizeof machine->peak_isa, "%s", o->peak_isa);
        plan->peaks[0] = o->peak_all;
        gb_peak_settle(largest);
    } else if (plan->n == 1) {
        gb_peak_for_run(machine, largest, o->quiet);
        plan->peaks[0] = machine->peak_gflops;
    } else {
        gb_peak_for_counts(machine, plan->counts, plan->n, plan->peaks, o->quiet);
    }
    /* Each other type's own peak, at every count: its %peak is against the
     * instruction that type runs on, not f32's FMA.  Measured in ab's later
     * rounds too (--peak gives f32's only). */
    for (int i = 0; i < o->ndtypes; i++)
        if (o->dtypes[i] != GB_DTYPE_F32)
            gb_peak_dtype_for_counts(machine, o->dtypes[i], plan->counts, plan->n,
                                     plan->dtype_peaks[o->dtypes[i]], o->quiet);
}

/* Whether every entry that has a kernel for its type is one this machine
 * cannot run (amx without AMX): a run of nothing but those is no usage
 * error, only skipped. */
static int only_unavailable(const gb_selection *sel)
{
    int any = 0;

    for (int v = 0; v < sel->nvariants; v++)
        for (int s = 0; s < sel->nshapes; s++)
            any |= !gb_selection_available(sel, v, s, NULL, 0);
    return any;
}

/* Whether any entry of sel runs at all (a run of --dtype bf16 over f32-only
 * variants measures nothing): 1, or 0 with the reason in err. */
static int anything_runs(const gb_options *o, const gb_selection *sel, char *err, size_t errlen)
{
    for (int v = 0; v < sel->nvariants; v++)
        for (int s = 0; s < sel->nshapes; s++)
            if (gb_selection_runs(sel, v, s, NULL, 0))
                return 1;
    /* an entry of a type its variant runs, refused for another reason (a
     * --param set on a typed schedule): that reason */
    for (int v = 0; v < sel->nvariants; v++)
        for (int s = 0; s < sel->nshapes; s++) {
            const gb_dtype t = sel->shapes[s].dtype;
            char why[256];
            if (t == GB_DTYPE_F32 || sel->variants[v]->typed[t] == NULL)
                continue;
            why[0] = '\0';
            gb_selection_runs(sel, v, s, why, sizeof why);
            snprintf(err, errlen, "nothing to run: %s in %s: %s", sel->variants[v]->name,
                     gb_dtype_name(t), why[0] ? why : "refused");
            return 0;
        }
    /* a schedule of another type says which (the usual case: --dtype
     * forgotten) */
    for (int v = 0; v < sel->nvariants; v++) {
        const gb_sched *nest = gb_sched_variant_nest(sel->variants[v]);
        if (nest != NULL && nest->dtype != GB_DTYPE_F32) {
            snprintf(err, errlen, "none of the selected variants runs %s%s: %s states type %s "
                     "(--dtype %s runs it)", o->ndtypes == 1 ? "" : "these types: ",
                     o->ndtypes == 1 ? gb_dtype_name(o->dtypes[0]) : "the types asked for",
                     sel->variants[v]->name, gb_dtype_name(nest->dtype),
                     gb_dtype_name(nest->dtype));
            return 0;
        }
    }
    snprintf(err, errlen, "none of the selected variants runs %s%s (gemmbench --list says "
                          "which types each runs)",
             o->ndtypes == 1 ? "" : "these types: ",
             o->ndtypes == 1 ? gb_dtype_name(o->dtypes[0]) : "the types asked for");
    return 0;
}

/* ---- gemmbench ab's turns (--lockstep, lockstep.h) ---------------------------- */

/* What decides the sweep's order (gb_runner_plan): prepack and the thread
 * counts of the plan.  The sweep's and lockstep_begin's configurations both. */
static void set_sweep_order(gb_runner_cfg *cfg, const gb_options *o, const thread_plan *plan)
{
    cfg->prepack = o->prepack;
    cfg->threads = plan->counts[plan->n - 1];
    if (plan->n > 1) {
        cfg->nthreads = plan->n;
        cfg->thread_list = plan->counts;
    }
}

/* The round's measurements, one "plan" line each, then the wait for the turn
 * to set up.  0, or -1 when ab is gone. */
static int lockstep_begin(const gb_options *o, const gb_selection *sel,
                          const thread_plan *plan)
{
    gb_runner_cfg cfg = { 0 };
    int n, rc;
    gb_run_step *steps;

    set_sweep_order(&cfg, o, plan);
    n = gb_runner_plan(sel, &cfg, o->only_round > 0 ? o->only_round - 1 : 0, NULL, 0);
    steps = malloc((size_t)(n > 0 ? n : 1) * sizeof *steps);
    rc = steps && n >= 0 ? 0 : -1;
    if (rc == 0)
        gb_runner_plan(sel, &cfg, o->only_round > 0 ? o->only_round - 1 : 0, steps, n);
    for (int i = 0; i < n && rc == 0; i++) {
        const gb_variant *v = sel->variants[steps[i].variant];
        const gb_shape *sh = &sel->shapes[steps[i].shape];
        char params[200];
        gb_params_format(v, &sel->params[steps[i].variant], params, sizeof params);
        /* The type only when not f32: an f32 step's line is an older build's. */
        rc = gb_lockstep_say("plan %s[%s]%s\t%s\t%d\t%d\t%d\t%d%s%s", v->name, params,
                             steps[i].prepack ? "+prepack" : "", sh->kernel, sh->M, sh->K,
                             sh->N, steps[i].threads, sh->dtype == GB_DTYPE_F32 ? "" : "\t",
                             sh->dtype == GB_DTYPE_F32 ? "" : gb_dtype_name(sh->dtype));
    }
    free(steps);
    return rc == 0 ? gb_lockstep_wait("setup") : -1;
}

/* Waits for ab to give the turn ("wait WHAT"): 0, or -1 when ab is gone,
 * which stops the sweep as Ctrl-C does. */
static int lockstep_turn(const char *what)
{
    if (gb_lockstep_wait(what) == 0)
        return 0;
    gb_interrupted = 1;
    return -1;
}

/* Before measurement step of the round. */
static int lockstep_gate(void *arg, int step)
{
    char what[16];

    (void)arg;
    snprintf(what, sizeof what, "%d", step);
    return lockstep_turn(what);
}

/* A slice of an entry's calls is over: ab gives the turn to the other build. */
static int lockstep_pause(void *arg)
{
    (void)arg;
    return lockstep_turn("more");
}

/* The story after the table: a table or Markdown on stdout, not --quiet,
 * not a round of gemmbench ab (its rounds are one run). */
static int shows_story(const gb_options *o)
{
    return !o->quiet && !o->lockstep && (o->format == GB_FMT_TABLE || o->format == GB_FMT_MD);
}

/* The run's story (run_story.h), read back from the file just written: it
 * says what the file holds.  A file that cannot be read back is said on
 * stderr; the run itself stands. */
static void print_story(const char *output)
{
    gb_result_file f;
    char err[GB_ERR_LEN];

    if (gb_result_file_load(output, &f, err, sizeof err) != 0) {
        fprintf(stderr, "gemmbench: warning: no summary: %s\n", err);
        return;
    }
    gb_run_story(stdout, &f, output);
    gb_result_file_free(&f);
}

/* Measures the sweep of o into output; the exit status. */
static int run_sweep(const gb_options *o, const gb_selection *sel, gb_machine *machine,
                     thread_plan *plan, const char *output, int argc, char **argv)
{
    int threads = plan->counts[plan->n - 1];
    gb_column columns[GB_RUN_NCOLS];
    gb_bind_state bind;
    gb_runner_cfg cfg;
    gb_runner runner;
    gb_runner_hooks hooks = { NULL, gb_run_show_starting, gb_run_show_measured, gb_run_show_failed, NULL };
    run_view view = { o, { 0 }, !o->quiet && isatty(STDERR_FILENO), 0.0, 0 };
    char err[GB_ERR_LEN], started[32];
    int status = GB_EXIT_OK, rc;

    gb_catch_interrupts();
    if (o->lockstep && lockstep_begin(o, sel, plan) != 0)
        return gb_fail(GB_EXIT_INTERRUPTED, NULL, "gemmbench ab, which gives the turns, is gone");
    measure_peaks(o, machine, plan);
    if ((status = calibrate_packed(sel, machine, plan->counts, plan->n, o->quiet)) != 0)
        return status;
    note_single_thread(sel, plan, o->quiet);
    /* The table shows the threads column when there is more than one count. */
    memcpy(columns, gb_run_columns, sizeof columns);
    if (plan->n > 1)
        columns[GB_RUN_COL_THREADS] = (gb_column){ "thr", NULL, "threads", 3, 1 };
    /* The type column when a type other than f32 runs; the rate's unit
     * says GOP/s where an integer type's rows are in it. */
    {
        int ints = 0, floats = 0;
        for (int i = 0; i < o->ndtypes; i++) {
            ints += gb_dtype_is_integer(o->dtypes[i]);
            floats += !gb_dtype_is_integer(o->dtypes[i]);
        }
        if (o->ndtypes > 1 || (o->ndtypes == 1 && o->dtypes[0] != GB_DTYPE_F32))
            columns[GB_RUN_COL_DTYPE] = (gb_column){ "type", NULL, "dtype", 5, 0 };
        if (ints)
            columns[GB_RUN_COL_RATE].title = floats ? "G(FL)OP/s" : "GOP/s";
    }
    /* --peak: a round of gemmbench ab after its first, whose machine block
     * (peak and bandwidths) the merged file keeps; no probe to repeat. */
    if (o->peak_all <= 0.0)
        measure_bandwidth(machine, threads, o->quiet);
    utc_now(started, sizeof started);
    memset(&cfg, 0, sizeof cfg);
    cfg.doc = gb_json_begin(machine, o, threads, started, argc, argv);
    for (size_t i = 0; i < gb_variant_count && cfg.doc != NULL; i++) {
        gb_library lib;
        if (gb_variant_library(gb_variants[i], &lib) == 0 &&
            gb_json_add_library(cfg.doc, gb_variants[i]->name, &lib) != 0) {
            cJSON_Delete(cfg.doc);
            cfg.doc = NULL;
        }
    }
    if (cfg.doc != NULL && gb_run_note_skipped(o, sel, cfg.doc, NULL) != 0) {
        cJSON_Delete(cfg.doc);
        cfg.doc = NULL;
    }
    for (int i = 0; i < o->ndtypes && cfg.doc != NULL; i++)
        if (o->dtypes[i] != GB_DTYPE_F32 && plan->n > 1 &&
            gb_json_add_dtype_thread_peaks(cfg.doc, o->dtypes[i], plan->counts,
                                           plan->dtype_peaks[o->dtypes[i]], plan->n) != 0) {
            cJSON_Delete(cfg.doc);
            cfg.doc = NULL;
        }
    gb_bind_current(o->bind, &bind);
    if (cfg.doc != NULL && ((plan->n > 1 && gb_json_add_thread_counts(cfg.doc, plan->counts,
                                                                       plan->peaks, plan->n)) ||
                            gb_json_add_bind(cfg.doc, &bind, plan->counts, plan->n))) {
        cJSON_Delete(cfg.doc);
        cfg.doc = NULL;
    }
    if (cfg.doc == NULL || gb_table_init(&view.table, o->format, columns, GB_RUN_NCOLS, 1)) {
        cJSON_Delete(cfg.doc);
        return gb_fail(GB_EXIT_IO, NULL, "out of memory");
    }
    if (gb_json_write_atomic(cfg.doc, output, 0, err, sizeof err) != 0) {
        status = gb_fail(GB_EXIT_IO, NULL, "%s", err);
        goto out;
    }
    cfg.measure = (gb_measure_cfg){ .warmup = o->warmup, .reps = o->reps,
                                    .min_reps = o->min_reps, .max_time = o->max_time,
                                    .check = o->check, .nthreads = threads,
                                    .min_time = o->min_time };
    if (o->lockstep) {
        cfg.measure.slice = gb_lockstep_slice();
        cfg.measure.pause = lockstep_pause;
    }
    set_sweep_order(&cfg, o, plan);
    cfg.rounds = o->rounds;
    cfg.cooldown_s = o->cooldown;
    cfg.only_round = o->only_round;
    cfg.peak_gflops = machine->peak_gflops;
    cfg.output = output;
    cfg.bind = bind.policy;
    if (plan->n > 1) {
        cfg.thread_peaks = plan->peaks;
        cfg.peak_gflops_1t = machine->peak_gflops_1t;
    }
    for (int t = GB_DTYPE_F32 + 1; t < GB_DTYPE_COUNT; t++) {
        cfg.dtype_peak[t] = machine->peak_dtype[t];
        cfg.dtype_peak_1t[t] = machine->peak_dtype_1t[t];
        if (plan->n > 1)
            cfg.dtype_thread_peaks[t] = plan->dtype_peaks[t];
    }
    cfg.cold = o->cache_cold;
    cfg.machine = machine;
    hooks.arg = &view;
    if (o->lockstep)
        hooks.gate = lockstep_gate;
    view.started = gb_now();
    if (o->format != GB_FMT_JSON)
        gb_table_print_header(stdout, &view.table);

    rc = gb_runner_run(&runner, sel, &cfg, &hooks, &gb_interrupted, err, sizeof err);
    gb_run_clear_progress(&view);
    /* Written in its turn too: ab's other build may be measuring. */
    if (o->lockstep && !gb_interrupted)
        lockstep_turn("done");
    if (rc != 0)
        status = gb_fail(GB_EXIT_IO, NULL, "%s", err);
    else if (runner.failed_runs)
        status = GB_EXIT_IO;
    if (gb_interrupted)
        gb_run_show_unfinished(&view, &runner);
    /* Under the table: what was asked for and not run, and why. */
    if (o->format == GB_FMT_TABLE || o->format == GB_FMT_MD) {
        gb_run_note_impls(stdout, &runner);
        gb_run_note_roofs_low(stdout, &runner);
        gb_run_note_libraries(stdout, cfg.doc, &runner);
        gb_run_note_skipped(o, sel, NULL, stdout);
    }
    if (gb_json_write_atomic(cfg.doc, output, !gb_interrupted && status == GB_EXIT_OK, err,
                             sizeof err) != 0) {
        status = gb_fail(GB_EXIT_IO, NULL, "%s", err);
        goto out_runner;
    }
    if (o->format == GB_FMT_JSON) {
        char *text = cJSON_Print(cfg.doc);
        if (text) {
            puts(text);
            free(text);
        }
    }
    if (gb_interrupted) {
        gb_fail(GB_EXIT_INTERRUPTED, NULL, "interrupted; partial results in %s", output);
        status = GB_EXIT_INTERRUPTED;
    } else {
        /* The file's name, then the story: the story is the last thing said. */
        fflush(stdout);
        if (!o->quiet)
            fprintf(stderr, "gemmbench: results in %s\n", output);
        if (shows_story(o))
            print_story(output);
        if (status == GB_EXIT_OK && runner.failed_checks > 0)
            status = gb_fail(GB_EXIT_CHECK_FAILED, NULL, "%d result(s) failed verification",
                             runner.failed_checks);
    }
out_runner:
    gb_runner_free(&runner);
out:
    gb_table_free(&view.table);
    cJSON_Delete(cfg.doc);
    return status;
}

/* --schedule: each file checked and added as a variant (a refused one:
 * exit 2 and the checker's "FILE:LINE: STATEMENT: reason", before any
 * compiler runs); --emit-c prints their C per shape; a sweep needs the
 * compiler.  An exit status, or -1 to go on with the run. */
static int load_schedules(const gb_options *o)
{
    gb_shape shapes[GB_MAX_SHAPES];
    char err[GB_ERR_LEN], cc[256], identity[256];
    int nshapes;

    for (int i = 0; i < o->nschedules; i++)
        if (gb_sched_variant_add(o->schedules[i], err, sizeof err) == NULL)
            return gb_fail(GB_EXIT_USAGE, NULL, "%s", err);
    if (!o->emit_c) {
        if (o->explain)
            return -1;
        /* From the probe on, an interrupt kills the compiler under way (its
         * process group) and ends the run as interrupted. */
        gb_catch_interrupts();
        gb_sched_set_compile_stop(&gb_interrupted);
        int rc = gb_sched_compiler(cc, sizeof cc, identity, sizeof identity, err, sizeof err);
        if (rc == GB_SCHED_INTERRUPTED)
            return gb_fail(GB_EXIT_INTERRUPTED, NULL, "interrupted");
        if (rc != 0)
            return gb_fail(GB_EXIT_USAGE, NULL, "%s", err);
        return -1;
    }
    if ((nshapes = gb_shapes_build(o, shapes, GB_MAX_SHAPES, err, sizeof err)) < 0)
        return gb_fail(GB_EXIT_USAGE, NULL, "%s", err);
    /* Every --param set, as a sweep would run them (none: the defaults). */
    for (int set = 0; set < (o->nparam_sets ? o->nparam_sets : 1); set++)
        for (int i = 0; i < gb_sched_variant_count(); i++)
            for (int s = 0; s < nshapes; s++) {
                const gb_variant *v = gb_sched_variant_at(i);
                gb_params p;
                if (gb_params_parse(v, o->nparam_sets ? o->param_sets[set] : "", &p, err,
                                    sizeof err) != 0 ||
                    gb_sched_emit_c(v, &p, shapes[s].M, shapes[s].N, shapes[s].K, stdout, err,
                                    sizeof err) != 0)
                    return gb_fail(GB_EXIT_USAGE, NULL, "%s", err);
            }
    return gb_finish_stdout(NULL);
}

/* Each schedule of the selection resolved for every shape with its params
 * at every thread count of the run (the model's blocks depend on it; `all`
 * and no list: the default) before the sweep: one that does not fit (a tile
 * or pack over its limit there) is an input error, not a failed
 * measurement.  0, or -1 with err. */
static int schedules_fit(const gb_options *o, const gb_selection *sel, char *err, size_t errlen)
{
    const int counts = o->nthreads_list > 0 ? o->nthreads_list : 0;

    for (int v = 0; v < sel->nvariants; v++) {
        const gb_sched *nest = gb_sched_variant_nest(sel->variants[v]);
        for (int s = 0; nest && s < sel->nshapes; s++)
            for (int t = 0; t <= counts && sel->shapes[s].dtype == GB_DTYPE_F32; t++) {
                /* the listed counts, then the default (`all`, or no list) */
                const int threads = t < counts ? o->threads_list[t] : 0;
                gb_sched_plan *fit;
                if (t == counts && counts > 0 && !o->threads_all)
                    break;
                fit = gb_sched_plan_for(nest, &sel->params[v], sel->shapes[s].M,
                                        sel->shapes[s].N, sel->shapes[s].K, threads, err,
                                        errlen);
                if (fit == NULL) {
                    const size_t used = strlen(err);
                    if (threads > 0 && used < errlen)
                        snprintf(err + used, errlen - used, " at %d thread%s", threads,
                                 threads == 1 ? "" : "s");
                    return -1;
                }
                gb_sched_plan_free(fit);
            }
    }
    return 0;
}

/* --model (bench.conf model): read and checked before the sweep, whether
 * or not ml_guided runs (a bad model file is an input error, exit 2).  With
 * ml_guided selected and nothing to rank with, one note says that it runs
 * rule_based (packed's typed kernels in a typed run) and why.  An exit status, or -1 to go on with the run. */
static int use_model(const gb_options *o, const gb_selection *sel)
{
    char err[GB_ERR_LEN];
    const char *why;
    int typed = 0;

    if (gb_ml_guided_use(o->model, err, sizeof err) != 0)
        return gb_fail(GB_EXIT_USAGE, NULL, "--model: %s", err);
    for (int i = 0; i < o->ndtypes; i++)
        typed |= o->dtypes[i] != GB_DTYPE_F32;
    for (int v = 0; v < sel->nvariants; v++)
        if (strcmp(sel->variants[v]->name, "ml_guided") == 0 && !o->quiet &&
            (why = gb_ml_guided_no_model()) != NULL)
            fprintf(stderr, "gemmbench: note: ml_guided runs rule_based's schedule%s: %s\n",
                    typed ? " (packed's kernel in bf16 and u8s8)" : "", why);
    return -1;
}

/* Whether the sweep compiles: a tuned_sched that replays a record's
 * schedule for one of its shapes and thread counts (at 1 thread too: a
 * single-thread variant runs there), or an ml_guided with a model. */
static int sweep_compiles(const gb_selection *sel, const thread_plan *plan)
{
    for (int v = 0; v < sel->nvariants; v++) {
        if (strcmp(sel->variants[v]->name, "ml_guided") == 0 && gb_ml_guided_compiles())
            return 1;
        if (strcmp(sel->variants[v]->name, GB_TUNED_SCHED_BASE) != 0)
            continue;
        for (int s = 0; s < sel->nshapes; s++)
            for (int t = -1; t < plan->n; t++)
                if (gb_tuned_sched_compiles(sel->shapes[s].M, sel->shapes[s].N,
                                            sel->shapes[s].K, t < 0 ? 1 : plan->counts[t]))
                    return 1;
    }
    return 0;
}

int gb_cmd_run(int argc, char **argv)
{
    static gb_options o;
    static thread_plan plan;
    gb_selection sel;
    gb_machine machine;
    char err[GB_ERR_LEN], output[PATH_MAX + 64], cc[256], identity[256];
    int threads, rc, status, created = 0;
    struct stat st;

    gb_options_defaults(&o);
    if (gb_cli_parse(&o, argc, argv, err, sizeof err) != 0)
        return gb_fail(GB_EXIT_USAGE, NULL, "%s", err);
    if (o.lockstep && !o.help && !o.version && !o.list && gb_lockstep_check(err, sizeof err))
        return gb_fail(GB_EXIT_USAGE, NULL, "%s", err);
    if (o.help)
        return print_help();
    if (o.version) {
        printf("gemmbench %s\n", GB_VERSION);
        return gb_finish_stdout(NULL);
    }
    if (o.list) {
        print_list(stdout);
        return gb_finish_stdout(NULL);
    }
    /* --emit-c prints a schedule's C and runs nothing: without a schedule
     * it would have fallen through to a whole sweep. */
    if (o.emit_c && o.nschedules == 0)
        return gb_fail(GB_EXIT_USAGE, NULL, "--emit-c prints the C of a schedule: give "
                                            "--schedule FILE");
    if (o.nschedules > 0 && (rc = load_schedules(&o)) >= 0)
        return rc;
    if ((rc = gb_selection_build(&o, &sel, err, sizeof err)) != 0 ||
        !anything_runs(&o, &sel, err, sizeof err)) {
        /* Nothing runs here because this CPU cannot: each skip and its
         * reason, exit 0, no result file. */
        if (rc == 0 && only_unavailable(&sel)) {
            gb_run_note_skipped(&o, &sel, NULL, stdout);
            if (o.explain) { /* what it would run, were the tiles here */
                gb_machine_detect(&machine);
                plan_threads(&o, &machine, &plan);
                explain_all(&sel, plan.counts[plan.n - 1]);
            }
            gb_selection_free(&sel);
            if (!o.quiet)
                fprintf(stderr, "gemmbench: nothing this machine runs; no result file\n");
            return gb_finish_stdout(NULL);
        }
        gb_selection_free(&sel);
        return gb_fail(GB_EXIT_USAGE, NULL, "%s", err);
    }
    for (int v = 0; v < sel.nvariants; v++)
        if (gb_calibration_needed(sel.variants[v]) && gb_calibration_mode_check(err, sizeof err)) {
            gb_selection_free(&sel);
            return gb_fail(GB_EXIT_USAGE, NULL, "%s", err);
        }
    if (schedules_fit(&o, &sel, err, sizeof err) != 0) {
        gb_selection_free(&sel);
        return gb_fail(GB_EXIT_USAGE, NULL, "%s", err);
    }
    if ((rc = use_model(&o, &sel)) >= 0) {
        gb_selection_free(&sel);
        return rc;
    }
    /* The OpenMP runtime read OMP_PROC_BIND and OMP_PLACES when it was
     * loaded: --bind sets them and starts this program again. */
    if (gb_bind_apply(o.bind, argv) != 0)
        fprintf(stderr, "gemmbench: warning: --bind: cannot restart with the OpenMP "
                        "variables set (%s); threads placed as the runtime chooses\n",
                strerror(errno));
    /* BLIS reads its choice when first used: before anything calls it. */
    if (o.blis_arch[0] && gb_blis_arch_choose(o.blis_arch, err, sizeof err) != 0) {
        gb_selection_free(&sel);
        return gb_fail(GB_EXIT_USAGE, NULL, "%s", err);
    }
    gb_machine_detect(&machine);
    plan_threads(&o, &machine, &plan);
    threads = plan.counts[plan.n - 1];
    if (o.peak_all > 0.0 && plan.n > 1) {
        gb_selection_free(&sel);
        return gb_fail(GB_EXIT_USAGE, NULL, "--peak gives one count's peak; it takes one "
                                            "thread count, not %d", plan.n);
    }
    if (o.cache_cold && gb_machine_cache_bytes(&machine, 3) <= 0 &&
        gb_machine_cache_bytes(&machine, 2) <= 0) {
        gb_selection_free(&sel);
        return gb_fail(GB_EXIT_USAGE, NULL, "--cache cold: this machine reports no cache "
                                            "sizes, so the copies to rotate cannot be sized");
    }
    warn_unreadable_records(&sel);
    /* No compiler for a record's schedule: exit 2 naming CC (SCHED.md), as
     * for --schedule, not a failed measurement. */
    if (!o.explain && sweep_compiles(&sel, &plan) &&
        gb_sched_compiler(cc, sizeof cc, identity, sizeof identity, err, sizeof err) != 0) {
        gb_selection_free(&sel);
        return gb_fail(GB_EXIT_USAGE, NULL, "%s", err);
    }
    if (o.explain) {
        if ((status = calibrate_packed(&sel, &machine, &threads, 1, 0)) != 0) {
            gb_selection_free(&sel);
            return status;
        }
        explain_all(&sel, threads);
        gb_selection_free(&sel);
        return gb_finish_stdout(NULL);
    }
    if (o.output[0])
        snprintf(output, sizeof output, "%s", o.output);
    else if (default_output(output, sizeof output, machine.hostname, err, sizeof err) != 0) {
        gb_selection_free(&sel);
        return gb_fail(GB_EXIT_IO, NULL, "%s", err);
    }
    /* From here an interrupt is caught: the sweep writes what it has (a
     * document with "complete": false) rather than leave an empty file. */
    gb_catch_interrupts();
    if (gb_interrupted) { /* since the compiler's probe: nothing claimed yet */
        gb_selection_free(&sel);
        return gb_fail(GB_EXIT_INTERRUPTED, NULL, "interrupted");
    }
    rc = o.output[0] ? output_not_an_input(&o, output, err, sizeof err) : 0;
    if (rc == 0)
        rc = o.output[0] ? claim_output(output, o.force, &created, err, sizeof err)
                         : claim_default_output(output, sizeof output, &created, err, sizeof err);
    if (rc != 0) {
        gb_selection_free(&sel);
        return gb_fail(rc, NULL, "%s", err);
    }
    status = run_sweep(&o, &sel, &machine, &plan, output, argc, argv);
    gb_selection_free(&sel);
    /* The table (or JSON, CSV) lost on a full device is a failure too; the
     * result file is kept either way. */
    if (status == GB_EXIT_OK)
        status = gb_finish_stdout(NULL);
    /* Nothing was ever written (the disk was full at the first write): the
     * claimed file would be an empty result file, which no reader accepts. */
    if (created && stat(output, &st) == 0 && st.st_size == 0)
        unlink(output);
    return status;
}
