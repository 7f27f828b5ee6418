/*
 * compare_cmd.c - `gemmbench compare OLD.json NEW.json [options]`: the
 * command line around compare.c (analysis) and compare_render.c (output).
 */
#include "command.h"
#include "compare.h"
#include "gemmbench.h"
#include "settings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char compare_intro[] =
    "usage: gemmbench compare OLD.json NEW.json [options]\n"
    "\n"
    "Pairs the measurements of two result files by (variant, params, kernel, M, K, N,\n"
    "type, threads, prepack) and prints, per pair, the old and new median, new/old, and a\n"
    "two-sided Mann-Whitney U test on the raw samples; then the entries found in one\n"
    "file only, geometric means of new/old per variant, per kernel and overall, and\n"
    "what differs between the files' tool, machine and run blocks.\n"
    "\n";

static const char compare_outro[] =
    "\n"
    "exit status: 0 no entry failed the gate, 1 at least one did (listed at the end),\n"
    "2 usage or input error (a file missing, empty, malformed, of another schema, with\n"
    "no results, or nothing in common), 3 out of memory\n";

/* What the command line asks for. */
typedef struct compare_args {
    gb_compare_opts opts;
    gb_format format;
    char variants[1024], kernels[1024], dtypes[1024];   /* every -v, -k and --dtype,
                                                           one comma list each */
    int help;
} compare_args;

/* Stores one of compare's settings (settings.h) into a. */
static int store_setting(void *target, const gb_setting *s, const gb_setting_value *v,
                         char *err, size_t errlen)
{
    compare_args *a = target;

    switch (s->id) {
    case GB_SET_THRESHOLD: a->opts.threshold_pct = v->real; break;
    case GB_SET_ALPHA: a->opts.alpha = v->real; break;
    case GB_SET_MIN_SAMPLES: a->opts.min_samples = (int)v->number; break;
    case GB_SET_PAIRED: a->opts.paired = 1; break;
    case GB_SET_FORMAT: a->format = v->format; break;
    case GB_SET_HELP: a->help = 1; break;
    case GB_SET_VARIANT:
    case GB_SET_KERNEL:
    case GB_SET_DTYPE:
        /* An empty list would select everything, where run and report
         * refuse it: a variable that expanded to nothing is a mistake. */
        if (v->text[0] == '\0') {
            snprintf(err, errlen, "%s '' is an empty list", v->name);
            return -1;
        }
        if (gb_list_append(s->id == GB_SET_VARIANT ? a->variants
                           : s->id == GB_SET_KERNEL ? a->kernels : a->dtypes,
                           sizeof a->variants, v->text) != 0) {
            snprintf(err, errlen, "the %s list is too long", v->name);
            return -1;
        }
        break;
    default:
        snprintf(err, errlen, "%s is not an option of compare", v->name);
        return -1;
    }
    return 0;
}

static void print_warnings(const gb_compare *c)
{
    const gb_result_file *files[2] = { c->old_f, c->new_f };

    for (int i = 0; i < 2; i++)
        if (!files[i]->complete)
            fprintf(stderr, "gemmbench: warning: %s is incomplete (an interrupted run)\n",
                    files[i]->path);
    if (c->ntoo_few)
        fprintf(stderr, "gemmbench: warning: %d of %d entries have fewer than %d samples on "
                        "a side: no verdict for them (rerun with more --reps)\n",
                c->ntoo_few, c->nrows, c->opts.min_samples);
    if (c->ncheck_failed)
        fprintf(stderr, "gemmbench: warning: %d compared entries failed verification in "
                        "one of the files: their times are of wrong results\n",
                c->ncheck_failed);
    /* A failed gate between single-pass runs may be the machine, not the code. */
    if (c->nfailed && (c->old_f->run_rounds < 2 || c->new_f->run_rounds < 2))
        fprintf(stderr, "gemmbench: note: a file was measured in one round: each entry's "
                        "samples then come from one moment, and on a shared machine two "
                        "such runs can differ with nothing changed; measure both with "
                        "--rounds 5 (src/analysis/compare.md)\n");
    if (c->nonly_old || c->nonly_new)
        fprintf(stderr, "gemmbench: note: %d entries only in %s, %d only in %s (listed, "
                        "not compared)\n",
                c->nonly_old, c->old_f->path, c->nonly_new, c->new_f->path);
    if (c->ntext_differs)
        fprintf(stderr, "gemmbench: note: %d entries of a schedule variant ran different "
                        "schedule texts in the two files (schedule.sha256): not compared\n",
                c->ntext_differs);
}

/* The comparison on stdout in format; the exit status. */
static int show(const gb_compare *c, gb_format format)
{
    if (gb_compare_write(stdout, format, c) != 0)
        return gb_fail(GB_EXIT_IO, "compare", "out of memory");
    return gb_finish_stdout("compare");
}

/* Two names of one file (the same path, a link): a comparison with itself. */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;

    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

int gb_cmd_compare(int argc, char **argv)
{
    static compare_args a;   /* static: two lists of 1 KiB */
    gb_result_file old_f, new_f;
    gb_compare c;
    char err[GB_ERR_LEN + 4200];
    int rc, status, first;

    memset(&a, 0, sizeof a);
    gb_settings_defaults(GB_CMD_COMPARE, store_setting, &a, err, sizeof err);
    /* argv[1] is "compare": getopt sees it as the program name. */
    argc--;
    argv++;
    first = gb_settings_parse_args(GB_CMD_COMPARE, argc, argv, 0, store_setting, &a, err,
                                   sizeof err);
    if (first < 0)
        return gb_usage("compare", "%s", err);
    if (a.help)
        return gb_help_command("compare", GB_CMD_COMPARE, compare_intro, compare_outro);
    if (argc - first != 2) {
        snprintf(err, sizeof err, "expected two result files, OLD and NEW, got %d",
                 argc - first);
        return gb_usage("compare", "%s", err);
    }
    a.opts.variants = a.variants;
    a.opts.kernels = a.kernels;
    a.opts.dtypes = a.dtypes;

    if (gb_result_file_load(argv[first], &old_f, err, sizeof err) != 0)
        return gb_fail(GB_EXIT_USAGE, "compare", "%s", err);
    if (gb_result_file_load(argv[first + 1], &new_f, err, sizeof err) != 0) {
        gb_result_file_free(&old_f);
        return gb_fail(GB_EXIT_USAGE, "compare", "%s", err);
    }
    if (same_file(argv[first], argv[first + 1]))
        fprintf(stderr, "gemmbench: compare: warning: %s and %s are the same file: every "
                        "difference is zero by construction\n", old_f.path, new_f.path);
    rc = gb_compare_files(&old_f, &new_f, &a.opts, &c, err, sizeof err);
    if (rc != 0) {
        status = gb_fail(rc == -2 ? GB_EXIT_IO : GB_EXIT_USAGE, "compare", "%s", err);
        goto out;
    }
    status = show(&c, a.format);
    if (status == GB_EXIT_OK) {
        print_warnings(&c);
        status = c.nfailed ? GB_EXIT_CHECK_FAILED : GB_EXIT_OK;
    }
    gb_compare_free(&c);
out:
    gb_result_file_free(&old_f);
    gb_result_file_free(&new_f);
    return status;
}
