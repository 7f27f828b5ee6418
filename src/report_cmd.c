/*
 * report_cmd.c - `gemmbench report FILE.json [options]`: the command line
 * around report.c and report_render.c.  The only part of report that prints
 * errors and chooses the exit status.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "report.h"

static const char report_usage[] =
    "usage: gemmbench report FILE.json [options]\n"
    "  pivot tables of a result file, one per kernel and thread count: variants\n"
    "  (in the variant table's order) by M, then geometric means over each row\n"
    "\n"
    "  --format F      table (default), md or csv (CSV: '#' lines are comments)\n"
    "  -k, --kernel L  only these kernels (comma list, repeatable)\n"
    "  -v, --variant L only these variants: names, families or labels such as\n"
    "                  packed+prepack or 'k8[tk=16]' (comma list, repeatable;\n"
    "                  a comma inside brackets is part of the label)\n"
    "  --metric X      the cells: median (latency, default), min, gflops,\n"
    "                  speedup (over baseline) or peak (% of the machine's peak)\n"
    "  --combined      one table with every kernel's shapes as columns (kernel/M)\n"
    "  -h, --help      this text\n"
    "\n"
    "'-' marks a cell not measured; a geomean marked * covers fewer cells than the\n"
    "table has columns.  Exit status: 0 ok, 2 bad arguments or an unreadable file,\n"
    "3 out of memory or the report not written.\n";

enum { OPT_FORMAT = 256, OPT_METRIC, OPT_COMBINED };

static const struct option report_options[] = {
    { "format",   required_argument, NULL, OPT_FORMAT },
    { "kernel",   required_argument, NULL, 'k' },
    { "variant",  required_argument, NULL, 'v' },
    { "metric",   required_argument, NULL, OPT_METRIC },
    { "combined", no_argument,       NULL, OPT_COMBINED },
    { "help",     no_argument,       NULL, 'h' },
    { NULL, 0, NULL, 0 }
};

static int parse_format(const char *name, gb_format *format)
{
    if (strcmp(name, "table") == 0)
        *format = GB_FMT_TABLE;
    else if (strcmp(name, "md") == 0)
        *format = GB_FMT_MD;
    else if (strcmp(name, "csv") == 0)
        *format = GB_FMT_CSV;
    else
        return -1;
    return 0;
}

/* Not an exit status: the arguments are good, go on. */
enum { PARSED = -1 };

/* Parses the options into o, each -k and -v list into kernels[] and
 * variants[] (o points at them), and the one file into *path.  PARSED, or
 * the exit status when done (--help) or wrong. */
static int parse_args(int argc, char **argv, gb_report_opts *o, const char **kernels,
                      const char **variants, const char **path)
{
    int ch;

    opterr = 0;
    optind = 0;
    while ((ch = getopt_long(argc, argv, ":k:v:h", report_options, NULL)) != -1) {
        switch (ch) {
        case OPT_FORMAT:
            if (parse_format(optarg, &o->format) != 0)
                return gb_usage("report", "--format '%s' is not table, md or csv", optarg);
            break;
        case 'k':
            kernels[o->nkernels++] = optarg;
            break;
        case 'v':
            variants[o->nvariants++] = optarg;
            break;
        case OPT_METRIC:
            if (gb_report_metric_parse(optarg, &o->metric) != 0)
                return gb_usage("report",
                                "--metric '%s' is not median, min, gflops, speedup or peak",
                                optarg);
            break;
        case OPT_COMBINED:
            o->combined = 1;
            break;
        case 'h':
            return gb_help("report", report_usage);
        default:
            return gb_getopt_fail_opts("report", ch, argv, report_options);
        }
    }
    if (optind == argc)
        return gb_usage("report", "no result file given");
    if (optind < argc - 1)
        return gb_usage("report", "one result file only, got '%s' too", argv[optind + 1]);
    *path = argv[optind];
    return PARSED;
}

static int report_file(const char *path, const gb_report_opts *o)
{
    gb_result_file f;
    char err[GB_ERR_LEN + 4200];   /* room for a path of PATH_MAX */
    int rc;

    if (gb_result_file_load(path, &f, err, sizeof err) != 0)
        return gb_fail(GB_EXIT_USAGE, "report", "%s", err);
    rc = gb_report_write(stdout, &f, o, err, sizeof err);
    gb_result_file_free(&f);
    if (rc != 0)
        return gb_fail(rc == -2 ? GB_EXIT_IO : GB_EXIT_USAGE, "report", "%s", err);
    return gb_finish_stdout("report");
}

int gb_cmd_report(int argc, char **argv)
{
    gb_report_opts o = { GB_FMT_TABLE, GB_METRIC_MEDIAN, NULL, 0, NULL, 0, 0 };
    /* Each -k or -v is one list: there are fewer than argc. */
    const char **kernels = calloc((size_t)argc, sizeof *kernels);
    const char **variants = calloc((size_t)argc, sizeof *variants);
    const char *path = NULL;
    int status;

    /* argv[1] is "report": getopt sees it as the program name. */
    argc--;
    argv++;
    o.kernels = kernels;
    o.variants = variants;
    if (kernels == NULL || variants == NULL)
        status = gb_fail(GB_EXIT_IO, "report", "out of memory");
    else if ((status = parse_args(argc, argv, &o, kernels, variants, &path)) == PARSED)
        status = report_file(path, &o);
    free(kernels);
    free(variants);
    return status;
}
