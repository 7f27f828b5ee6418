/*
 * main.c - the CLI layer: the only place that prints errors and exits.
 * `gemmbench [options]` runs a sweep; `gemmbench SUBCOMMAND` runs the others.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "gemmbench.h"
#include "harness.h"
#include "machine.h"
#include "options.h"
#include "output.h"
#include "tune.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

static const char usage_text[] =
    "usage: gemmbench [options]                 run a sweep (bench.conf, then flags)\n"
    "       gemmbench info                      describe this machine, measure its peak\n"
    "       gemmbench compare OLD.json NEW.json  what changed; a CI gate (exit 1 on a slowdown)\n"
    "       gemmbench report FILE.json          pivot tables (variant x M) of a result file\n"
    "       gemmbench tune                      search schedule parameters, record the best\n"
    "       gemmbench SUBCOMMAND --help         help on a subcommand\n"
    "\n"
    "selection\n"
    "  -v, --variant LIST     variant names, family names (family:NAME when a variant\n"
    "                         has the same name, e.g. family:parallel), or all\n"
    "  -k, --kernel LIST      qkv, mlp_expand, mlp_reduce, square1024, bench.conf\n"
    "                         [kernel] names, or all (= the three BERT kernels)\n"
    "      --m LIST           M values, e.g. 16,32,64\n"
    "      --shape MxKxN      a custom shape (repeatable; replaces --kernel and --m)\n"
    "  -a, --all              every variant on every kernel\n"
    "  -p, --param K=V[,...]  schedule parameters (see --list), labelled in the output;\n"
    "                         each --param is one set, and every set runs (ablations)\n"
    "      --prepack          also measure with B packed outside the timed region\n"
    "                         (variants that can; separate +prepack entries)\n"
    "timing\n"
    "  -t, --threads N        OpenMP threads (default: all the process may use)\n"
    "  -w, --warmup N         warm-up calls per measurement (default 5)\n"
    "  -r, --reps N           timed calls per measurement (default 50)\n"
    "      --min-reps N       timed calls kept even past --max-time (default 5)\n"
    "      --max-time S       seconds of calls per measurement before stopping early\n"
    "      --cooldown S       seconds to sleep between measurements (default 0)\n"
    "      --rounds N         split every entry's timed calls over N passes of the\n"
    "                         sweep, so each median spans the run (default 1)\n"
    "  -q, --quick            a fast smoke sweep: M 16,128, 1 warm-up, 5 reps\n"
    "      --no-check         skip verification against the reference\n"
    "output\n"
    "  -o, --output FILE      JSON file (default results/<host>-<UTC time>.json)\n"
    "  -f, --force            overwrite an existing --output file\n"
    "      --format F         stdout as table, json, csv or md (default table)\n"
    "      --quiet            no progress line\n"
    "other\n"
    "  -c, --config FILE      read FILE instead of ./bench.conf\n"
    "  -l, --list             list the variants and their parameters\n"
    "      --explain          print how each variant derives its schedule per shape\n"
    "  -h, --help             this text\n"
    "  -V, --version          the version\n"
    "\n"
    "exit status: 0 ok, 1 a check failed, 2 usage or input error, 3 I/O error,\n"
    "130 interrupted (the JSON file then says \"complete\": false)\n";

static int fail(int code, const char *msg)
{
    fprintf(stderr, "gemmbench: %s\n", msg);
    return code;
}

static void print_list(FILE *out)
{
    fprintf(out, "%-16s %-11s %s\n", "variant", "family", "description");
    for (size_t i = 0; i < gb_variant_count; i++) {
        const gb_variant *v = gb_variants[i];
        fprintf(out, "%-16s %-11s %s\n", v->name, v->family, v->description);
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
 * at once and an existing file is never overwritten without --force. */
static int claim_output(const char *path, int force, char *err, size_t errlen)
{
    struct stat st;
    int fd;

    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "--output %s is a directory", path);
            return GB_EXIT_USAGE;
        }
        if (!force) {
            snprintf(err, errlen, "%s exists (use --force to overwrite it)", path);
            return GB_EXIT_USAGE;
        }
        if (access(path, W_OK) != 0) {
            snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
            return GB_EXIT_USAGE;
        }
        return 0;
    }
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
        return GB_EXIT_USAGE;
    }
    close(fd);
    return 0;
}

/* The progress line on stderr: done/total, what runs now, and a rough ETA. */
static void progress(int done, int total, const char *next, double started)
{
    double elapsed = gb_now() - started;
    double eta = done > 0 ? elapsed / done * (total - done) : 0.0;

    fprintf(stderr, "\r\033[K[%d/%d] %s  elapsed %.0fs", done, total, next, elapsed);
    if (done > 0)
        fprintf(stderr, ", ~%.0fs left", eta);
    fflush(stderr);
}

/* One entry of the sweep, (shape, variant, prepack), across rounds. */
typedef struct run_entry {
    gb_result result;  /* the rounds so far, merged */
    int measured;      /* result holds at least one round */
    int printed;       /* its table row is out */
    int json_index;    /* its place in the JSON results array */
} run_entry;

typedef struct run_selection {
    const gb_variant *variants[256];
    gb_params params[256];
    int nvariants;
    gb_shape *shapes;
    int nshapes;
} run_selection;

/* Entries are (variant, parameter set): every selected variant once per
 * --param set, so an ablation (--param tk=4 --param tk=8 ...) runs its
 * settings interleaved, shape by shape. */
static int select_run(const gb_options *o, run_selection *sel, char *err, size_t errlen)
{
    const gb_variant *picked[256];
    int prepack_ok = 0, npicked, nsets = o->nparam_sets > 0 ? o->nparam_sets : 1;

    npicked = gb_variants_select(o->variants, picked, 256, err, errlen);
    if (npicked < 0)
        return -1;
    sel->nvariants = 0;
    for (int i = 0; i < npicked; i++)
        for (int set = 0; set < nsets; set++) {
            const char *text = o->nparam_sets > 0 ? o->param_sets[set] : "";
            if (sel->nvariants == 256) {
                snprintf(err, errlen, "too many variants x --param sets (at most 256)");
                return -1;
            }
            if (gb_params_parse(picked[i], text, &sel->params[sel->nvariants], err, errlen))
                return -1;
            if (picked[i]->usable) {
                char why[GB_ERR_LEN];
                if (picked[i]->usable(&sel->params[sel->nvariants], why, sizeof why) != 0) {
                    snprintf(err, errlen, "%s: --param %s", picked[i]->name, why);
                    return -1;
                }
            }
            sel->variants[sel->nvariants++] = picked[i];
            prepack_ok |= picked[i]->supports_prepack;
        }
    if (o->prepack && !prepack_ok) {
        snprintf(err, errlen, "--prepack: none of the selected variants can pre-pack B");
        return -1;
    }
    sel->shapes = malloc(GB_MAX_SHAPES * sizeof *sel->shapes);
    if (sel->shapes == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    sel->nshapes = gb_shapes_build(o, sel->shapes, GB_MAX_SHAPES, err, errlen);
    if (sel->nshapes < 0)
        return -1;
    /* Every shape must fit before the first one runs. */
    for (int i = 0; i < sel->nshapes; i++) {
        const gb_shape *s = &sel->shapes[i];
        if (gb_shape_check(s->M, s->K, s->N, err, errlen) != 0)
            return -1;
    }
    return 0;
}

/* The tuned variants fall back to their rules when the record file is
 * corrupt; say so once here, since the variants themselves never print. */
static void warn_unreadable_records(const run_selection *sel)
{
    char err[GB_ERR_LEN];
    gb_tuned_set set;

    for (int v = 0; v < sel->nvariants; v++)
        if (strcmp(sel->variants[v]->family, "tuned") == 0) {
            if (gb_tuned_load(gb_tuned_path(), &set, err, sizeof err) != 0)
                fprintf(stderr, "gemmbench: warning: %s; the tuned variants use their rules\n",
                        err);
            gb_tuned_free(&set);
            return;
        }
}

static void explain_all(const run_selection *sel, int threads)
{
    int any = 0;

    for (int v = 0; v < sel->nvariants; v++) {
        const gb_variant *var = sel->variants[v];
        gb_ctx ctx = { threads, &sel->params[v], NULL };
        if (var->explain == NULL)
            continue;
        any = 1;
        for (int s = 0; s < sel->nshapes; s++)
            var->explain(stdout, sel->shapes[s].M, sel->shapes[s].N, sel->shapes[s].K, &ctx);
    }
    if (!any)
        printf("none of the selected variants derives its schedule from rules "
               "(try --variant rule_based)\n");
}

static int cmd_run(int argc, char **argv)
{
    static gb_options o;
    run_selection sel;
    gb_machine machine;
    char err[GB_ERR_LEN], output[PATH_MAX + 64], started[32];
    gb_measure_cfg cfg;
    cJSON *doc = NULL;
    double *baseline_median = NULL;
    int threads, rc, status = GB_EXIT_OK, done = 0, total, failed_checks = 0;
    int nsteps = 0, njson = 0;
    run_entry *entries = NULL;
    double t_start;
    time_t now;
    struct tm tm;
    struct sigaction sa;

    memset(&sel, 0, sizeof sel);
    gb_options_defaults(&o);
    if (gb_cli_parse(&o, argc, argv, err, sizeof err) != 0)
        return fail(GB_EXIT_USAGE, err);
    if (o.help) {
        fputs(usage_text, stdout);
        return GB_EXIT_OK;
    }
    if (o.version) {
        printf("gemmbench %s\n", GB_VERSION);
        return GB_EXIT_OK;
    }
    if (o.list) {
        print_list(stdout);
        return GB_EXIT_OK;
    }
    if (select_run(&o, &sel, err, sizeof err) != 0) {
        free(sel.shapes);
        return fail(GB_EXIT_USAGE, err);
    }
    gb_machine_detect(&machine);
    threads = o.threads > 0 ? o.threads : machine.affinity_cpus;
    warn_unreadable_records(&sel);
    if (o.explain) {
        explain_all(&sel, threads);
        free(sel.shapes);
        return GB_EXIT_OK;
    }

    if (o.output[0])
        snprintf(output, sizeof output, "%s", o.output);
    else if (default_output(output, sizeof output, machine.hostname, err, sizeof err) != 0)
        return free(sel.shapes), fail(GB_EXIT_IO, err);
    rc = claim_output(output, o.force, err, sizeof err);
    if (rc != 0)
        return free(sel.shapes), fail(rc, err);

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    gb_peak_for_run(&machine, threads, o.quiet);

    now = time(NULL);
    gmtime_r(&now, &tm);
    strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%SZ", &tm);
    doc = gb_json_begin(&machine, &o, threads, started, argc, argv);
    baseline_median = calloc((size_t)sel.nshapes, sizeof *baseline_median);
    if (doc == NULL || baseline_median == NULL) {
        status = fail(GB_EXIT_IO, "out of memory");
        goto out;
    }
    if (gb_json_write_atomic(doc, output, 0, err, sizeof err) != 0) {
        status = fail(GB_EXIT_IO, err);
        goto out;
    }

    cfg.warmup = o.warmup;
    cfg.reps = o.reps;
    cfg.min_reps = o.min_reps;
    cfg.max_time = o.max_time;
    cfg.check = o.check;
    cfg.nthreads = threads;
    nsteps = 2 * sel.nvariants;
    entries = calloc((size_t)sel.nshapes * (size_t)nsteps, sizeof *entries);
    if (entries == NULL) {
        status = fail(GB_EXIT_IO, "out of memory");
        goto out;
    }
    total = 0;
    for (int v = 0; v < sel.nvariants; v++)
        total += sel.nshapes * (1 + (o.prepack && sel.variants[v]->supports_prepack));
    total *= o.rounds;
    t_start = gb_now();
    if (o.format != GB_FMT_JSON)
        gb_print_header(stdout, o.format);

    /* Rounds outer (--rounds R: R passes over the whole sweep, each taking
     * its share of every entry's timed calls, so that an entry's samples
     * span the run instead of one moment of it), then shapes, then
     * variants: variants of one shape run back to back under the same
     * machine conditions, and baseline (first in the table) is known when
     * the others need it for their speed-up.  Round 1 verifies and warms up
     * in full; later rounds re-warm with their share of the warm-up calls
     * (at least one when there are any). */
    for (int round = 0; round < o.rounds && !interrupted && status == GB_EXIT_OK; round++) {
        const int last = round == o.rounds - 1;
        gb_measure_cfg rcfg = cfg, ecfg;

        rcfg.reps = cfg.reps / o.rounds + (round < cfg.reps % o.rounds);
        rcfg.min_reps = (cfg.min_reps + o.rounds - 1) / o.rounds;
        if (rcfg.min_reps > rcfg.reps)
            rcfg.min_reps = rcfg.reps;
        rcfg.max_time = cfg.max_time / o.rounds;
        if (round > 0) {
            rcfg.warmup = (cfg.warmup + o.rounds - 1) / o.rounds;
            rcfg.check = 0;
        }
        for (int s = 0; s < sel.nshapes && !interrupted; s++) {
            gb_workspace w;
            const gb_shape *shape = &sel.shapes[s];

            if (gb_workspace_init(&w, shape->M, shape->K, shape->N, err, sizeof err) != 0) {
                status = fail(GB_EXIT_IO, err);
                break;
            }
            /* Two steps per variant: per call, then (--prepack, variants
             * that can) with B pre-packed, as its own entry (+prepack). */
            for (int step = 0; step < nsteps && !interrupted; step++) {
                const int v = step / 2, prepack = step % 2;
                const gb_variant *var = sel.variants[v];
                run_entry *e = &entries[s * nsteps + step];
                gb_result part, *r = &e->result;
                char label[200];

                if (prepack && !(o.prepack && var->supports_prepack))
                    continue;
                if (!o.quiet && isatty(STDERR_FILENO)) {
                    snprintf(label, sizeof label, "%s %s M=%d", var->name, shape->kernel,
                             shape->M);
                    if (o.rounds > 1)
                        snprintf(label + strlen(label), sizeof label - strlen(label),
                                 " (round %d/%d)", round + 1, o.rounds);
                    progress(done, total, label, t_start);
                }
                /* A call longer than the round's time cap is not re-warmed:
                 * it re-reads its own operands many times over anyway. */
                ecfg = rcfg;
                if (e->measured && e->result.stats.median * 1e-6 > rcfg.max_time)
                    ecfg.warmup = 0;
                rc = gb_measure(var, &sel.params[v], threads, prepack, &w, &ecfg,
                                &interrupted, &part, err, sizeof err);
                if (!o.quiet && isatty(STDERR_FILENO))
                    fprintf(stderr, "\r\033[K");
                done++;
                if (rc == 1)
                    break;
                if (rc != 0) {
                    fprintf(stderr, "gemmbench: %s (%s M=%d)\n", err, shape->kernel, shape->M);
                    status = GB_EXIT_IO;
                    continue;
                }
                if (!e->measured) {
                    *r = part;
                    snprintf(r->shape.kernel, sizeof r->shape.kernel, "%s", shape->kernel);
                    e->json_index = njson++;
                    e->measured = 1;
                } else {
                    rc = gb_result_merge(r, &part);
                    gb_result_free(&part);
                    if (rc != 0) {
                        status = fail(GB_EXIT_IO, "out of memory");
                        break;
                    }
                }
                if (machine.peak_gflops > 0.0)
                    r->peak_pct = 100.0 * r->gflops / machine.peak_gflops;
                if (strcmp(var->name, "baseline") == 0 && r->params.count == 0)
                    baseline_median[s] = r->stats.median;
                if (baseline_median[s] > 0.0)
                    r->speedup = baseline_median[s] / r->stats.median;
                if (round == 0 && r->check == GB_CHECK_FAIL)
                    failed_checks++;
                if (last && o.format != GB_FMT_JSON) {
                    gb_print_row(stdout, o.format, r);
                    e->printed = 1;
                }
                if (last && o.format != GB_FMT_TABLE && r->stats.cv > GB_CV_WARN && !o.quiet)
                    fprintf(stderr,
                            "gemmbench: warning: %s %s M=%d: CV %.0f%%, the timing is noisy\n",
                            r->label, shape->kernel, shape->M, 100.0 * r->stats.cv);
                /* Rewritten after every measurement: a crash loses nothing,
                 * and an interrupted run keeps the rounds it finished. */
                if (gb_json_set_result(doc, e->json_index, r) != 0 ||
                    gb_json_write_atomic(doc, output, 0, err, sizeof err) != 0) {
                    status = fail(GB_EXIT_IO, err[0] ? err : "out of memory");
                    break;
                }
                if (o.cooldown > 0.0 && !interrupted) {
                    struct timespec ts = { (time_t)o.cooldown,
                                           (long)((o.cooldown - floor(o.cooldown)) * 1e9) };
                    nanosleep(&ts, NULL);
                }
            }
            gb_workspace_free(&w);
            if (status == GB_EXIT_IO && !interrupted)
                break;
        }
    }

    /* Interrupted before the last round: the entries measured so far still
     * get their rows, from the rounds they had (the JSON says how many). */
    if (interrupted && o.rounds > 1 && o.format != GB_FMT_JSON) {
        int header = 0;
        for (int i = 0; i < sel.nshapes * nsteps; i++) {
            if (!entries[i].measured || entries[i].printed)
                continue;
            if (!header++)
                fprintf(stderr, "gemmbench: interrupted before the last of %d rounds; the "
                                "rows below have fewer (the JSON's \"rounds\" says how many)\n",
                        o.rounds);
            gb_print_row(stdout, o.format, &entries[i].result);
        }
    }
    if (gb_json_write_atomic(doc, output, !interrupted && status == GB_EXIT_OK, err,
                             sizeof err) != 0) {
        status = fail(GB_EXIT_IO, err);
        goto out;
    }
    if (o.format == GB_FMT_JSON) {
        char *text = cJSON_Print(doc);
        if (text) {
            puts(text);
            free(text);
        }
    }
    if (interrupted)
        fprintf(stderr, "gemmbench: interrupted; partial results in %s\n", output);
    else if (!o.quiet)
        fprintf(stderr, "gemmbench: results in %s\n", output);
    if (interrupted)
        status = GB_EXIT_INTERRUPTED;
    else if (status == GB_EXIT_OK && failed_checks > 0) {
        fprintf(stderr, "gemmbench: %d result(s) failed verification\n", failed_checks);
        status = GB_EXIT_CHECK_FAILED;
    }
out:
    if (entries)
        for (int i = 0; i < sel.nshapes * nsteps; i++)
            gb_result_free(&entries[i].result);
    free(entries);
    cJSON_Delete(doc);
    free(baseline_median);
    free(sel.shapes);
    return status;
}

static int cmd_info(int argc, char **argv)
{
    gb_machine m;

    if (argc > 2 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0)) {
        puts("usage: gemmbench info\n  prints this machine's CPU, ISA, caches and measured "
             "FP32 peak");
        return GB_EXIT_OK;
    }
    if (argc > 2)
        return fail(GB_EXIT_USAGE, "info takes no arguments");
    gb_machine_detect(&m);
    gb_machine_print(stdout, &m);
    gb_peak_info(stdout, &m);
    return GB_EXIT_OK;
}

/* Subcommands: one line each. */
static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} subcommands[] = {
    { "info", cmd_info },
    { "compare", gb_cmd_compare },
    { "report", gb_cmd_report },
    { "tune", gb_cmd_tune },
};

int main(int argc, char **argv)
{
    if (argc > 1)
        for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
            if (strcmp(argv[1], subcommands[i].name) == 0)
                return subcommands[i].run(argc, argv);
    return cmd_run(argc, argv);
}
