/*
 * report_cmd.c - `gemmbench report FILE.json [options]`: the command line
 * around report.c and report_render.c.  The only part of report that prints
 * errors and chooses the exit status.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "parse.h"
#include "report.h"
#include "report_multi.h"
#include "settings.h"

static const char report_intro[] =
    "usage: gemmbench report FILE.json [options]\n"
    "       gemmbench report [NAME=]A.json [NAME=]B.json ... [options]\n"
    "  pivot tables of a result file, one per kernel and thread count (and type,\n"
    "  in a file of several --dtype): variants\n"
    "  (in the variant table's order) by M, then geometric means over each row.\n"
    "  Several files: side by side per (variant, kernel, M, threads), each file's\n"
    "  median and %peak (%roof where recorded), the ratio to the first file, and\n"
    "  the fastest variant per file; columns named by machine (CPU model@host) or\n"
    "  NAME; entries a file lacks are blank (src/analysis/report_multi.md)\n"
    "\n";

static const char report_outro[] =
    "\n"
    "'-' marks a cell not measured; a geomean marked * covers fewer cells than the\n"
    "table has columns.  Exit status: 0 ok, 2 bad arguments or an unreadable file,\n"
    "3 out of memory or the report not written.\n";

/* Not an exit status: the arguments are good, go on. */
enum { PARSED = -1 };

/* What the command line asked for besides gb_report_opts. */
typedef struct report_args {
    const char **paths;      /* the files, argc of room */
    char **names;            /* NAME= of each (owned), or NULL */
    int npaths;
    int scaling;             /* --metric scaling */
    int metric_given, combined_given, help;
    gb_report_opts *o;       /* the options report.c takes */
    const char **kernels, **variants;   /* each -k and -v, argc of room */
    const char **dtypes;                /* each --dtype, argc of room */
} report_args;

/* Longest NAME= (a column title holds it and its " median_us"). */
#define NAME_MAX_LEN 63

/* NAME=FILE names a file's columns; a path that exists as given is a file
 * even with '=' in it.  The name is a copy (freed by the caller): as many
 * as there are arguments, since a fleet has no fixed size (a table of 64
 * once read the 65th NAME=FILE as a path).  0, or -1 with err. */
static int split_name(const char *arg, char **name, const char **path, char *err,
                      size_t errlen)
{
    const char *eq = strchr(arg, '=');
    FILE *f;

    *name = NULL;
    *path = arg;
    if (eq == NULL || eq == arg || eq[1] == '\0' || memchr(arg, '/', (size_t)(eq - arg)) != NULL)
        return 0;
    if ((f = fopen(arg, "r")) != NULL) {
        fclose(f);
        return 0;
    }
    if ((size_t)(eq - arg) > NAME_MAX_LEN) {
        char shown[GB_ERR_LEN];
        gb_printable(arg, 60, shown, sizeof shown);
        snprintf(err, errlen, "the NAME of NAME=FILE '%s' is longer than %d characters",
                 shown, NAME_MAX_LEN);
        return -1;
    }
    if ((*name = malloc((size_t)(eq - arg) + 1)) == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    memcpy(*name, arg, (size_t)(eq - arg));
    (*name)[eq - arg] = '\0';
    *path = eq + 1;
    return 0;
}

/* Stores one of report's settings (settings.h) into a. */
static int store_setting(void *target, const gb_setting *s, const gb_setting_value *v,
                         char *err, size_t errlen)
{
    report_args *a = target;
    gb_report_opts *o = a->o;

    switch (s->id) {
    case GB_SET_FORMAT: o->format = v->format; break;
    case GB_SET_KERNEL: a->kernels[o->nkernels++] = v->text; break;
    case GB_SET_VARIANT: a->variants[o->nvariants++] = v->text; break;
    case GB_SET_DTYPE: a->dtypes[o->ndtypes++] = v->text; break;
    case GB_SET_METRIC:
        /* report.c's metrics, and scaling, which has a report of its own */
        a->metric_given = 1;
        a->scaling = strcmp(v->text, "scaling") == 0;
        if (!a->scaling && gb_report_metric_parse(v->text, &o->metric) != 0) {
            snprintf(err, errlen, "%s: '%s' is not a metric of report.c", v->name, v->text);
            return -1;
        }
        break;
    case GB_SET_COMBINED:
        o->combined = 1;
        a->combined_given = 1;
        break;
    case GB_SET_HELP: a->help = 1; break;
    default:
        snprintf(err, errlen, "%s is not an option of report", v->name);
        return -1;
    }
    return 0;
}

/* Parses the options into a->o, each -k and -v list into a->kernels and
 * a->variants (a->o points at them), and the files into a.  PARSED, or the
 * exit status when done (--help) or wrong. */
static int parse_args(int argc, char **argv, report_args *a)
{
    char err[GB_ERR_LEN];
    int first;

    a->o->kernels = a->kernels;
    a->o->variants = a->variants;
    a->o->dtypes = a->dtypes;
    gb_settings_defaults(GB_CMD_REPORT, store_setting, a, err, sizeof err);
    a->metric_given = 0;   /* the default is not a --metric */
    first = gb_settings_parse_args(GB_CMD_REPORT, argc, argv, 0, store_setting, a, err,
                                   sizeof err);
    if (first < 0)
        return gb_usage("report", "%s", err);
    if (a->help)
        return gb_help_command("report", GB_CMD_REPORT, report_intro, report_outro);
    if (first == argc)
        return gb_usage("report", "no result file given");
    for (int i = first; i < argc; i++) {
        if (split_name(argv[i], &a->names[a->npaths], &a->paths[a->npaths], err,
                       sizeof err) != 0)
            return gb_usage("report", "%s", err);
        a->npaths++;
    }
    if (a->npaths > 1 && (a->metric_given || a->combined_given))
        return gb_usage("report", "%s is for one file; several files show each one's median "
                        "and %%peak side by side", a->metric_given ? "--metric" : "--combined");
    /* The scaling report has one layout: --combined would be dropped. */
    if (a->scaling && a->combined_given)
        return gb_usage("report", "--combined is for the metric tables; --metric scaling "
                        "has a layout of its own");
    if (a->npaths == 1 && a->names[0]) {
        gb_printable(argv[first], 60, err, sizeof err);
        return gb_usage("report", "NAME= names a column of a several-file report; '%s' is "
                        "one file", err);
    }
    return PARSED;
}

static int report_file(const char *path, const gb_report_opts *o, int scaling)
{
    gb_result_file f;
    char err[GB_ERR_LEN + 4200];   /* room for a path of PATH_MAX */
    int rc;

    if (gb_result_file_load(path, &f, err, sizeof err) != 0)
        return gb_fail(GB_EXIT_USAGE, "report", "%s", err);
    if (scaling)
        rc = gb_report_scaling(stdout, &f, o, err, sizeof err);
    else
        rc = gb_report_write(stdout, &f, o, err, sizeof err);
    gb_result_file_free(&f);
    if (rc != 0)
        return gb_fail(rc == -2 ? GB_EXIT_IO : GB_EXIT_USAGE, "report", "%s", err);
    return gb_finish_stdout("report");
}

/* Several files side by side: every file loads, or nothing is printed. */
static int report_files(const report_args *a, const gb_report_opts *o)
{
    gb_result_file *files = calloc((size_t)a->npaths, sizeof *files);
    char err[GB_ERR_LEN + 4200];
    int loaded = 0, status = PARSED, rc;

    if (files == NULL)
        return gb_fail(GB_EXIT_IO, "report", "out of memory");
    for (; loaded < a->npaths; loaded++)
        if (gb_result_file_load(a->paths[loaded], &files[loaded], err, sizeof err) != 0) {
            status = gb_fail(GB_EXIT_USAGE, "report", "%s", err);
            break;
        }
    if (status == PARSED) {
        rc = gb_report_multi(stdout, files, (const char *const *)a->names, a->npaths, o, err,
                             sizeof err);
        status = rc != 0 ? gb_fail(rc == -2 ? GB_EXIT_IO : GB_EXIT_USAGE, "report", "%s", err)
                         : gb_finish_stdout("report");
    }
    while (loaded-- > 0)
        gb_result_file_free(&files[loaded]);
    free(files);
    return status;
}

int gb_cmd_report(int argc, char **argv)
{
    gb_report_opts o = { GB_FMT_TABLE, GB_METRIC_MEDIAN, NULL, 0, NULL, 0, 0, NULL, 0 };
    /* Each -k or -v is one list: there are fewer than argc. */
    const char **kernels = calloc((size_t)argc, sizeof *kernels);
    const char **variants = calloc((size_t)argc, sizeof *variants);
    const char **dtypes = calloc((size_t)argc, sizeof *dtypes);
    report_args a = { calloc((size_t)argc, sizeof(char *)), calloc((size_t)argc, sizeof(char *)),
                      0, 0, 0, 0, 0, &o, kernels, variants, dtypes };
    int status;

    /* argv[1] is "report": getopt sees it as the program name. */
    argc--;
    argv++;
    if (kernels == NULL || variants == NULL || dtypes == NULL || a.paths == NULL || a.names == NULL)
        status = gb_fail(GB_EXIT_IO, "report", "out of memory");
    else if ((status = parse_args(argc, argv, &a)) == PARSED)
        status = a.npaths == 1 ? report_file(a.paths[0], &o, a.scaling) : report_files(&a, &o);
    free(kernels);
    free(variants);
    free(dtypes);
    free(a.paths);
    for (int i = 0; a.names && i < a.npaths; i++)
        free(a.names[i]);
    free(a.names);
    return status;
}
