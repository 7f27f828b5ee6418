/*
 * compare_cmd.c - `gemmbench compare OLD.json NEW.json [options]`: the
 * command line around compare.c (analysis) and compare_render.c (output).
 */
#include "command.h"
#include "compare.h"
#include "gemmbench.h"
#include "parse.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char compare_usage[] =
    "usage: gemmbench compare OLD.json NEW.json [options]\n"
    "\n"
    "Pairs the measurements of two result files by (variant, params, kernel, M, K, N,\n"
    "threads, prepack) and prints, per pair, the old and new median, new/old, and a\n"
    "two-sided Mann-Whitney U test on the raw samples; then the entries found in one\n"
    "file only, geometric means of new/old per variant, per kernel and overall, and\n"
    "what differs between the files' tool, machine and run blocks.\n"
    "\n"
    "      --threshold PCT   an entry fails the gate when it is more than PCT percent\n"
    "                        slower (new/old median > 1 + PCT/100) ... (default 10)\n"
    "      --alpha A         ... and the U test gives p < A, 0 < A < 1 (default 0.01)\n"
    "      --min-samples N   fewer samples on either side: no verdict (default 5)\n"
    "      --paired          the files are OLD and NEW of one gemmbench ab run: judge\n"
    "                        the per-round ratios as ab does (src/analysis/compare.md)\n"
    "  -v, --variant LIST    only these variants or families, or all (repeatable)\n"
    "  -k, --kernel LIST     only these kernels, or all (repeatable)\n"
    "      --format F        table (default), md or json\n"
    "  -h, --help            this text\n"
    "\n"
    "exit status: 0 no entry failed the gate, 1 at least one did (listed at the end),\n"
    "2 usage or input error (a file missing, empty, malformed, of another schema, with\n"
    "no results, or nothing in common), 3 out of memory\n";

enum { OPT_THRESHOLD = 256, OPT_ALPHA, OPT_MIN_SAMPLES, OPT_FORMAT, OPT_PAIRED };

static const struct option compare_options[] = {
    { "threshold",   required_argument, NULL, OPT_THRESHOLD },
    { "alpha",       required_argument, NULL, OPT_ALPHA },
    { "min-samples", required_argument, NULL, OPT_MIN_SAMPLES },
    { "variant",     required_argument, NULL, 'v' },
    { "kernel",      required_argument, NULL, 'k' },
    { "format",      required_argument, NULL, OPT_FORMAT },
    { "paired",      no_argument,       NULL, OPT_PAIRED },
    { "help",        no_argument,       NULL, 'h' },
    { NULL, 0, NULL, 0 }
};

/* run.rounds of a file; files from before --rounds existed had one. */
static int rounds_of(const gb_result_file *f)
{
    const cJSON *r = f->run ? cJSON_GetObjectItemCaseSensitive(f->run, "rounds") : NULL;
    return cJSON_IsNumber(r) ? (int)r->valuedouble : 1;
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
    if (c->nfailed && (rounds_of(c->old_f) < 2 || rounds_of(c->new_f) < 2))
        fprintf(stderr, "gemmbench: note: a file was measured in one round: each entry's "
                        "samples then come from one moment, and on a shared machine two "
                        "such runs can differ with nothing changed; measure both with "
                        "--rounds 5 (src/analysis/compare.md)\n");
    if (c->nonly_old || c->nonly_new)
        fprintf(stderr, "gemmbench: note: %d entries only in %s, %d only in %s (listed, "
                        "not compared)\n",
                c->nonly_old, c->old_f->path, c->nonly_new, c->new_f->path);
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
    gb_compare_opts opts = { GB_COMPARE_THRESHOLD_PCT, GB_COMPARE_ALPHA,
                             GB_COMPARE_MIN_SAMPLES, NULL, NULL, 0 };
    gb_result_file old_f, new_f;
    gb_compare c;
    gb_format format = GB_FMT_TABLE;
    char variants[1024] = "", kernels[1024] = "", err[GB_ERR_LEN + 4200];
    int ch, rc, status;
    long l;


    /* argv[1] is "compare": getopt sees it as the program name. */
    argc--;
    argv++;
    optind = 0;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":v:k:h", compare_options, NULL)) != -1) {
        switch (ch) {
        case OPT_THRESHOLD:
            if (gb_parse_double(optarg, 0.0, 1e6, &opts.threshold_pct) != 0) {
                snprintf(err, sizeof err, "--threshold '%s' is not a percentage in [0, 1e6]",
                         optarg);
                return gb_usage("compare", "%s", err);
            }
            break;
        case OPT_ALPHA:
            if (gb_parse_double(optarg, 0.0, 1.0, &opts.alpha) != 0 || opts.alpha <= 0.0 ||
                opts.alpha >= 1.0) {
                snprintf(err, sizeof err,
                         "--alpha '%s' is not a probability strictly between 0 and 1", optarg);
                return gb_usage("compare", "%s", err);
            }
            break;
        case OPT_MIN_SAMPLES:
            if (gb_parse_long(optarg, 2, 1000000, &l) != 0) {
                snprintf(err, sizeof err, "--min-samples '%s' is not an integer in [2, 1000000]",
                         optarg);
                return gb_usage("compare", "%s", err);
            }
            opts.min_samples = (int)l;
            break;
        case 'v':
        case 'k':
            if (gb_list_append(ch == 'v' ? variants : kernels, sizeof variants, optarg) != 0) {
                snprintf(err, sizeof err, "the %s list is too long",
                         ch == 'v' ? "--variant" : "--kernel");
                return gb_usage("compare", "%s", err);
            }
            break;
        case OPT_PAIRED:
            opts.paired = 1;
            break;
        case OPT_FORMAT:
            if (strcmp(optarg, "table") == 0)
                format = GB_FMT_TABLE;
            else if (strcmp(optarg, "md") == 0)
                format = GB_FMT_MD;
            else if (strcmp(optarg, "json") == 0)
                format = GB_FMT_JSON;
            else {
                snprintf(err, sizeof err, "--format '%s' is not table, md or json", optarg);
                return gb_usage("compare", "%s", err);
            }
            break;
        case 'h':
            return gb_help("compare", compare_usage);
        default:
            return gb_getopt_fail_opts("compare", ch, argv, compare_options);
        }
    }
    if (argc - optind != 2) {
        snprintf(err, sizeof err, "expected two result files, OLD and NEW, got %d",
                 argc - optind);
        return gb_usage("compare", "%s", err);
    }
    opts.variants = variants;
    opts.kernels = kernels;

    if (gb_result_file_load(argv[optind], &old_f, err, sizeof err) != 0)
        return gb_fail(GB_EXIT_USAGE, "compare", "%s", err);
    if (gb_result_file_load(argv[optind + 1], &new_f, err, sizeof err) != 0) {
        gb_result_file_free(&old_f);
        return gb_fail(GB_EXIT_USAGE, "compare", "%s", err);
    }
    if (same_file(argv[optind], argv[optind + 1]))
        fprintf(stderr, "gemmbench: compare: warning: %s and %s are the same file: every "
                        "difference is zero by construction\n", argv[optind], argv[optind + 1]);
    rc = gb_compare_files(&old_f, &new_f, &opts, &c, err, sizeof err);
    if (rc != 0) {
        status = gb_fail(rc == -2 ? GB_EXIT_IO : GB_EXIT_USAGE, "compare", "%s", err);
        goto out;
    }
    status = show(&c, format);
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
