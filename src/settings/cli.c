/*
 * cli.c - command lines, read with getopt_long against the settings table:
 * gb_settings_parse_args for every command, and the run command's two
 * passes, the first of which finds --config and --quick, so that the order
 * is always built-in defaults < bench.conf < --quick < every other flag,
 * wherever they stand on the line.
 */
#include "options.h"
#include "parse.h"
#include "settings.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ---- any command's options ------------------------------------------------------ */

/* The long option an argument names ("--force=yes" -> "force"), and how
 * many entries of longopts it could mean: the one it spells exactly, else
 * every one it is a prefix of. */
static int long_matches(const char *arg, const struct option *longopts, char *names,
                        size_t len, const struct option **exact)
{
    size_t n = strcspn(arg + 2, "=");
    int count = 0;

    *exact = NULL;
    names[0] = '\0';
    for (const struct option *o = longopts; o->name; o++)
        if (strlen(o->name) == n && strncmp(o->name, arg + 2, n) == 0)
            *exact = o;
    if (*exact)
        return 1;
    for (const struct option *o = longopts; o->name; o++)
        if (strncmp(o->name, arg + 2, n) == 0) {
            size_t used = strlen(names);
            snprintf(names + used, len - used, "%s--%s", count ? ", " : "", o->name);
            count++;
        }
    return count;
}

/* What getopt_long's ':' (a missing value) or '?' was about, named as the
 * user typed it: "--force=yes" takes no value, "--co" is ambiguous. */
static void describe_getopt_error(int ch, char **argv, const struct option *longopts,
                                  char *buf, size_t len)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "";
    char names[256], shown[96];

    if (ch == ':') {
        snprintf(buf, len, "option '%s' needs a value", arg);
        return;
    }
    if (strncmp(arg, "--", 2) == 0 && arg[2] != '\0') {
        const struct option *exact;
        int n = long_matches(arg, longopts, names, sizeof names, &exact);
        gb_printable(arg, 60, shown, sizeof shown);
        if (exact && exact->has_arg == no_argument && strchr(arg, '='))
            snprintf(buf, len, "option '--%s' takes no value", exact->name);
        else if (n > 1)
            snprintf(buf, len, "option '%s' is ambiguous (%s)", shown, names);
        else
            snprintf(buf, len, "unknown option '%s'", shown);
        return;
    }
    if (optopt > 0 && optopt < 256)
        snprintf(buf, len, "unknown option '-%c'", optopt);
    else
        snprintf(buf, len, "unknown option '%s'", arg);
}

/* getopt_long's tables for cmd: a long option per entry (val: 256 + the
 * entry's index), a letter per short one. */
static void build_options(unsigned cmd, struct option *longopts, char *shortopts)
{
    int n = 0;
    char *end = shortopts;

    *end++ = ':';   /* a missing value is ':', not '?' */
    for (size_t i = 0; i < gb_setting_count; i++) {
        const gb_setting *s = &gb_settings[i];
        int has_arg = gb_setting_takes_value(s) ? required_argument : no_argument;
        if (!(s->commands & cmd))
            continue;
        longopts[n++] = (struct option){ s->flag, has_arg, NULL, 256 + (int)i };
        if (s->letter) {
            *end++ = s->letter;
            if (has_arg == required_argument)
                *end++ = ':';
        }
    }
    longopts[n] = (struct option){ NULL, 0, NULL, 0 };
    *end = '\0';
}

int gb_settings_parse_args(unsigned cmd, int argc, char **argv, int flags,
                           gb_setting_store store, void *target, char *err, size_t errlen)
{
    struct option longopts[GB_MAX_SETTINGS + 1];
    char shortopts[3 * GB_MAX_SETTINGS + 2];
    unsigned char seen[GB_SET_COUNT] = { 0 };
    int c;

    err[0] = '\0';
    build_options(cmd, longopts, shortopts);
    opterr = 0;
    optind = 0;   /* glibc: start afresh, as for a new argv */
    while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        const gb_setting *s = c >= 256 ? &gb_settings[c - 256]
                            : c == ':' || c == '?' ? NULL
                                                   : gb_setting_by_letter(cmd, c);
        const char *text = s && gb_setting_takes_value(s) ? optarg : NULL;
        gb_setting_value v;
        char name[48];

        if (s == NULL) {
            if (flags & GB_ARGS_SCAN)
                continue;
            describe_getopt_error(c, argv, longopts, err, errlen);
            return GB_ARGS_BAD_OPTION;
        }
        snprintf(name, sizeof name, "--%s", s->flag);
        if (flags & GB_ARGS_SCAN) {
            memset(&v, 0, sizeof v);
            snprintf(v.name, sizeof v.name, "%s", name);
            v.text = text;
        } else if (gb_setting_read(s, name, text, &v, err, errlen) != 0) {
            return -1;
        }
        v.repeated = seen[s->id] != 0;
        seen[s->id] = 1;
        if (store(target, s, &v, err, errlen) != 0)
            return -1;
    }
    return optind;
}

/* ---- the run command --------------------------------------------------------------- */

/* What the first pass looks for. */
typedef struct first_pass {
    const char *config;
    int quick;
    int informational;       /* --help, --version or --list */
} first_pass;

static int note_first_pass(void *target, const gb_setting *s, const gb_setting_value *v,
                           char *err, size_t errlen)
{
    first_pass *p = target;

    (void)err, (void)errlen;
    if (s->id == GB_SET_CONFIG)
        p->config = v->text;
    else if (s->id == GB_SET_QUICK)
        p->quick = 1;
    else if (s->id == GB_SET_HELP || s->id == GB_SET_VERSION || s->id == GB_SET_LIST)
        p->informational = 1;
    return 0;
}

/* The second pass: every flag into the options, noting which were given. */
typedef struct flag_pass {
    gb_options *o;
    unsigned char given[GB_SET_COUNT];
} flag_pass;

static int store_flag(void *target, const gb_setting *s, const gb_setting_value *v, char *err,
                      size_t errlen)
{
    flag_pass *p = target;

    p->given[s->id] = 1;
    return gb_options_store(p->o, s, v, err, errlen);
}

/* --quick: GB_QUICK_FLAGS, read and stored as those flags would be. */
static int apply_quick(gb_options *o, char *err, size_t errlen)
{
    const char *p = GB_QUICK_FLAGS;
    char flag[32], value[64];
    int used = 0;

    while (sscanf(p, " --%31s %63s%n", flag, value, &used) == 2) {
        const gb_setting *s = gb_setting_by_flag(GB_CMD_RUN, flag, strlen(flag));
        gb_setting_value v;
        if (s == NULL || gb_setting_read(s, "--quick", value, &v, err, errlen) != 0 ||
            gb_options_store(o, s, &v, err, errlen) != 0)
            return -1;
        p += used;
    }
    o->quick = 1;
    return 0;
}

static int load_config(gb_options *o, const first_pass *first, char *err, size_t errlen)
{
    /* --help, --version and --list answer without settings: a broken
     * ./bench.conf must not hide how to fix it. */
    if (first->informational && first->config == NULL)
        return 0;
    if (first->config) {
        if (gb_config_load(o, first->config, err, errlen) != 0)
            return -1;
        snprintf(o->config_path, sizeof o->config_path, "%s", first->config);
        o->config_given = 1;
    } else if (access("bench.conf", F_OK) == 0) {
        if (gb_config_load(o, "bench.conf", err, errlen) != 0)
            return -1;
        snprintf(o->config_path, sizeof o->config_path, "bench.conf");
    }
    return 0;
}

/* What the flags mean together, once all are read. */
static int resolve(gb_options *o, const flag_pass *flags, char *err, size_t errlen)
{
    if (o->all) {
        if (!flags->given[GB_SET_VARIANT])
            strcpy(o->variants, "all");
        if (!flags->given[GB_SET_KERNEL])
            strcpy(o->kernels, "all");
    }
    /* --schedule alone is the whole selection; with --variant or --all, both. */
    if (o->nschedules > 0 && flags->given[GB_SET_SCHEDULE] && !flags->given[GB_SET_VARIANT] &&
        !o->all)
        o->variants[0] = '\0';
    if (o->nshapes > 0 && (flags->given[GB_SET_KERNEL] || flags->given[GB_SET_M])) {
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
    if (!flags->given[GB_SET_ROUNDS] && o->rounds > o->reps)
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

int gb_cli_parse(gb_options *o, int argc, char **argv, char *err, size_t errlen)
{
    first_pass first = { NULL, 0, 0 };
    flag_pass flags;
    int operands;

    /* Pass 1: --config and --quick only; errors are reported by pass 2. */
    gb_settings_parse_args(GB_CMD_RUN, argc, argv, GB_ARGS_SCAN, note_first_pass, &first, err,
                           errlen);
    err[0] = '\0';
    if (load_config(o, &first, err, errlen) != 0)
        return -1;
    if (first.quick && apply_quick(o, err, errlen) != 0)
        return -1;

    memset(&flags, 0, sizeof flags);
    flags.o = o;
    operands = gb_settings_parse_args(GB_CMD_RUN, argc, argv, 0, store_flag, &flags, err,
                                      errlen);
    if (operands == GB_ARGS_BAD_OPTION) {
        size_t n = strlen(err);
        snprintf(err + n, errlen - n, " (see gemmbench --help)");
        return -1;
    }
    if (operands < 0)
        return -1;
    if (operands < argc) {
        snprintf(err, errlen, "unexpected argument '%s' (see gemmbench --help)", argv[operands]);
        return -1;
    }
    return resolve(o, &flags, err, errlen);
}
