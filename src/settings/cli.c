/*
 * cli.c - the command line, getopt_long in two passes: the first
 * finds --config and --quick, so that the order is always built-in defaults <
 * bench.conf < --quick < every other flag, wherever they stand on the line.
 */
#include "command.h"
#include "options.h"
#include "parse.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum {
    OPT_M = 256, OPT_SHAPE, OPT_MAX_TIME, OPT_MIN_TIME, OPT_MIN_REPS, OPT_COOLDOWN, OPT_FORMAT,
    OPT_NO_CHECK, OPT_QUIET, OPT_EXPLAIN, OPT_PREPACK, OPT_ROUNDS, OPT_ROUND, OPT_PEAK,
    OPT_LOCKSTEP, OPT_BIND, OPT_CACHE
};

static const struct option long_options[] = {
    { "variant",  required_argument, NULL, 'v' },
    { "kernel",   required_argument, NULL, 'k' },
    { "m",        required_argument, NULL, OPT_M },
    { "shape",    required_argument, NULL, OPT_SHAPE },
    { "threads",  required_argument, NULL, 't' },
    { "warmup",   required_argument, NULL, 'w' },
    { "reps",     required_argument, NULL, 'r' },
    { "min-reps", required_argument, NULL, OPT_MIN_REPS },
    { "max-time", required_argument, NULL, OPT_MAX_TIME },
    { "min-time", required_argument, NULL, OPT_MIN_TIME },
    { "cooldown", required_argument, NULL, OPT_COOLDOWN },
    { "rounds",   required_argument, NULL, OPT_ROUNDS },
    { "round",    required_argument, NULL, OPT_ROUND },
    { "peak",     required_argument, NULL, OPT_PEAK },
    { "lockstep", no_argument,       NULL, OPT_LOCKSTEP },
    { "bind",     required_argument, NULL, OPT_BIND },
    { "config",   required_argument, NULL, 'c' },
    { "output",   required_argument, NULL, 'o' },
    { "force",    no_argument,       NULL, 'f' },
    { "format",   required_argument, NULL, OPT_FORMAT },
    { "param",    required_argument, NULL, 'p' },
    { "list",     no_argument,       NULL, 'l' },
    { "quick",    no_argument,       NULL, 'q' },
    { "no-check", no_argument,       NULL, OPT_NO_CHECK },
    { "all",      no_argument,       NULL, 'a' },
    { "quiet",    no_argument,       NULL, OPT_QUIET },
    { "explain",  no_argument,       NULL, OPT_EXPLAIN },
    { "prepack",  no_argument,       NULL, OPT_PREPACK },
    { "cache",    required_argument, NULL, OPT_CACHE },
    { "help",     no_argument,       NULL, 'h' },
    { "version",  no_argument,       NULL, 'V' },
    { NULL, 0, NULL, 0 }
};
static const char short_options[] = ":v:k:t:w:r:c:o:fp:lqahV";

/* --quick: every variant and kernel in well under two minutes; flags given
 * explicitly still win. */
static void apply_quick(gb_options *o)
{
    o->warmup = 1;
    o->reps = 5;
    o->min_reps = 3;
    o->max_time = 0.3;
    o->nm = 2;
    o->m[0] = 16;
    o->m[1] = 128;
    o->rounds = 1;   /* a smoke test: one pass (--rounds still wins) */
}

static int bad_number(char *err, size_t errlen, const char *flag, const char *arg,
                      const char *what)
{
    snprintf(err, errlen, "%s: '%s' is not %s", flag, arg, what);
    return -1;
}

static int append_list(char *dst, size_t size, const char *item)
{
    size_t used = strlen(dst);
    int n = snprintf(dst + used, size - used, "%s%s", used ? "," : "", item);
    return (n < 0 || (size_t)n >= size - used) ? -1 : 0;
}

int gb_cli_parse(gb_options *o, int argc, char **argv, char *err, size_t errlen)
{
    const char *config = NULL;
    int quick = 0, informational = 0, c, variants_given = 0, kernels_given = 0, m_given = 0;
    int rounds_given = 0;
    long l;
    double d;

    err[0] = '\0';
    /* Pass 1: --config and --quick only; errors are reported by pass 2. */
    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, short_options, long_options, NULL)) != -1) {
        if (c == 'c')
            config = optarg;
        else if (c == 'q')
            quick = 1;
        else if (c == 'h' || c == 'V' || c == 'l')
            informational = 1;
    }
    /* --help, --version and --list answer without settings: a broken
     * ./bench.conf must not hide how to fix it. */
    if (informational && config == NULL) {
        /* skip ./bench.conf */
    } else if (config) {
        if (gb_config_load(o, config, err, errlen) != 0)
            return -1;
        snprintf(o->config_path, sizeof o->config_path, "%s", config);
        o->config_given = 1;
    } else if (access("bench.conf", F_OK) == 0) {
        if (gb_config_load(o, "bench.conf", err, errlen) != 0)
            return -1;
        snprintf(o->config_path, sizeof o->config_path, "bench.conf");
    }
    if (quick) {
        apply_quick(o);
        o->quick = 1;
    }

    optind = 0;
    while ((c = getopt_long(argc, argv, short_options, long_options, NULL)) != -1) {
        switch (c) {
        case 'v':
            if (!variants_given)
                o->variants[0] = '\0';
            variants_given = 1;
            if (append_list(o->variants, sizeof o->variants, optarg) != 0)
                return bad_number(err, errlen, "--variant", optarg, "a shorter list");
            break;
        case 'k':
            if (!kernels_given)
                o->kernels[0] = '\0';
            kernels_given = 1;
            if (append_list(o->kernels, sizeof o->kernels, optarg) != 0)
                return bad_number(err, errlen, "--kernel", optarg, "a shorter list");
            break;
        case OPT_M: {
            int tmp[GB_MAX_M], n;
            if (gb_parse_m_list(optarg, tmp, &n, err, errlen, "--m") != 0)
                return -1;
            if (!m_given)
                o->nm = 0;
            m_given = 1;
            if (o->nm + n > GB_MAX_M)
                return bad_number(err, errlen, "--m", optarg, "a shorter list");
            memcpy(o->m + o->nm, tmp, (size_t)n * sizeof *tmp);
            o->nm += n;
            break;
        }
        case OPT_SHAPE: {
            gb_shape *s;
            if (o->nshapes >= GB_MAX_SHAPES)
                return bad_number(err, errlen, "--shape", optarg, "allowed: too many shapes");
            s = &o->shapes[o->nshapes];
            if (gb_parse_shape(optarg, &s->M, &s->K, &s->N) != 0)
                return bad_number(err, errlen, "--shape", optarg,
                                  "MxKxN with each in [1, 1000000]");
            snprintf(s->kernel, sizeof s->kernel, "custom");
            o->nshapes++;
            break;
        }
        case 't':
            if (gb_options_set_threads(o, optarg, err, errlen) != 0) {
                char why[GB_ERR_LEN];
                snprintf(why, sizeof why, "%s", err);
                snprintf(err, errlen, "--threads: %s", why);
                return -1;
            }
            break;
        case OPT_BIND:
            if (strcmp(optarg, "close") == 0)
                o->bind = GB_BIND_CLOSE;
            else if (strcmp(optarg, "spread") == 0)
                o->bind = GB_BIND_SPREAD;
            else if (strcmp(optarg, "none") == 0)
                o->bind = GB_BIND_NONE;
            else
                return bad_number(err, errlen, "--bind", optarg, "close, spread or none");
            break;
        case 'w':
            if (gb_parse_long(optarg, 0, 1000000, &l) != 0)
                return bad_number(err, errlen, "--warmup", optarg,
                                  "an integer in [0, 1000000]");
            o->warmup = (int)l;
            break;
        case 'r':
            if (gb_parse_long(optarg, 1, 1000000, &l) != 0)
                return bad_number(err, errlen, "--reps", optarg, "an integer in [1, 1000000]");
            o->reps = (int)l;
            break;
        case OPT_MIN_REPS:
            if (gb_parse_long(optarg, 1, 1000000, &l) != 0)
                return bad_number(err, errlen, "--min-reps", optarg,
                                  "an integer in [1, 1000000]");
            o->min_reps = (int)l;
            break;
        case OPT_MAX_TIME:
            if (gb_parse_double(optarg, 0.0, 86400.0, &d) != 0 || d <= 0.0)
                return bad_number(err, errlen, "--max-time", optarg,
                                  "a number of seconds in (0, 86400]");
            o->max_time = d;
            break;
        case OPT_MIN_TIME:
            if (gb_parse_double(optarg, 0.0, 86400.0, &d) != 0)
                return bad_number(err, errlen, "--min-time", optarg,
                                  "a number of seconds in [0, 86400]");
            o->min_time = d;
            break;
        case OPT_ROUNDS:
            if (gb_parse_long(optarg, 1, 1000, &l) != 0)
                return bad_number(err, errlen, "--rounds", optarg, "an integer in [1, 1000]");
            o->rounds = (int)l;
            rounds_given = 1;
            break;
        /* --round and --peak are for gemmbench ab, which runs every round of
         * a build as a fresh process: only round I of --rounds, with the
         * peak its first round measured (ALL,ONE,ISA). */
        case OPT_ROUND:
            if (gb_parse_long(optarg, 1, 1000, &l) != 0)
                return bad_number(err, errlen, "--round", optarg, "an integer in [1, 1000]");
            o->only_round = (int)l;
            break;
        case OPT_LOCKSTEP:   /* gemmbench ab's turns (src/measure/lockstep.c) */
            o->lockstep = 1;
            break;
        case OPT_PEAK: {
            int end = 0;
            if (sscanf(optarg, "%lf,%lf,%15[a-z0-9]%n", &o->peak_all, &o->peak_one,
                       o->peak_isa, &end) != 3 || optarg[end] != '\0' ||
                !(o->peak_all > 0.0 && o->peak_all < 1e9 && o->peak_one > 0.0 &&
                  o->peak_one < 1e9))
                return bad_number(err, errlen, "--peak", optarg,
                                  "ALL,ONE,ISA (GFLOP/s, GFLOP/s, an ISA name)");
            break;
        }
        case OPT_COOLDOWN:
            if (gb_parse_double(optarg, 0.0, 3600.0, &d) != 0)
                return bad_number(err, errlen, "--cooldown", optarg,
                                  "a number of seconds in [0, 3600]");
            o->cooldown = d;
            break;
        case 'c':
        case 'q':
            break; /* handled in pass 1 */
        case 'o':
            if (optarg[0] == '\0' || strlen(optarg) >= sizeof o->output)
                return bad_number(err, errlen, "--output", optarg, "a usable file name");
            snprintf(o->output, sizeof o->output, "%s", optarg);
            break;
        case 'f':
            o->force = 1;
            break;
        case OPT_FORMAT:
            if (strcmp(optarg, "table") == 0)
                o->format = GB_FMT_TABLE;
            else if (strcmp(optarg, "json") == 0)
                o->format = GB_FMT_JSON;
            else if (strcmp(optarg, "csv") == 0)
                o->format = GB_FMT_CSV;
            else if (strcmp(optarg, "md") == 0)
                o->format = GB_FMT_MD;
            else
                return bad_number(err, errlen, "--format", optarg, "table, json, csv or md");
            break;
        case 'p':
            if (o->nparam_sets >= GB_MAX_PARAM_SETS)
                return bad_number(err, errlen, "--param", optarg,
                                  "allowed: at most 16 --param sets");
            if (optarg[strspn(optarg, " \t")] == '\0')
                return bad_number(err, errlen, "--param", optarg,
                                  "a key=value list (or defaults)");
            /* The variant's own rules as a set of their own, beside ablations. */
            if (strcmp(optarg, "defaults") == 0)
                optarg = "";
            if (strlen(optarg) >= sizeof o->param_sets[0])
                return bad_number(err, errlen, "--param", optarg, "a shorter list");
            strcpy(o->param_sets[o->nparam_sets++], optarg);
            break;
        case 'l':
            o->list = 1;
            break;
        case OPT_NO_CHECK:
            o->check = 0;
            break;
        case 'a':
            o->all = 1;
            break;
        case OPT_QUIET:
            o->quiet = 1;
            break;
        case OPT_EXPLAIN:
            o->explain = 1;
            break;
        case OPT_PREPACK:
            o->prepack = 1;
            break;
        case OPT_CACHE:
            if (gb_parse_cache(optarg, &o->cache_cold) != 0)
                return bad_number(err, errlen, "--cache", optarg, "warm or cold");
            break;
        case 'h':
            o->help = 1;
            break;
        case 'V':
            o->version = 1;
            break;
        case ':':
            snprintf(err, errlen, "option %s needs a value", argv[optind - 1]);
            return -1;
        default: {
            char msg[GB_ERR_LEN - 64];
            gb_getopt_describe(c, argv, long_options, msg, sizeof msg);
            snprintf(err, errlen, "%s (see gemmbench --help)", msg);
            return -1;
        }
        }
    }
    if (optind < argc) {
        snprintf(err, errlen, "unexpected argument '%s' (see gemmbench --help)", argv[optind]);
        return -1;
    }
    if (o->all) {
        if (!variants_given)
            strcpy(o->variants, "all");
        if (!kernels_given)
            strcpy(o->kernels, "all");
    }
    if (o->nshapes > 0 && (kernels_given || m_given)) {
        snprintf(err, errlen, "--shape cannot be combined with --kernel or --m");
        return -1;
    }
    if (o->min_reps > o->reps)
        o->min_reps = o->reps;
    /* Not set: GB_DEFAULT_ROUNDS.  Unless --rounds says otherwise, rounds are
     * at most one per timed call (bench.conf's 5 with `--reps 3` is 3 rounds,
     * as its min_reps is cut to --reps above); --rounds is taken at its word. */
    if (o->rounds == 0)
        o->rounds = GB_DEFAULT_ROUNDS;
    if (!rounds_given && o->rounds > o->reps)
        o->rounds = o->reps;
    if (o->only_round > o->rounds) {
        snprintf(err, errlen, "--round %d is past --rounds %d", o->only_round, o->rounds);
        return -1;
    }
    if (o->rounds > o->reps) {
        snprintf(err, errlen, "rounds (%d) is more than reps (%d): every round needs a "
                 "timed call", o->rounds, o->reps);
        return -1;
    }
    return 0;
}
