/*
 * ab_cmd.c - `gemmbench ab OLD NEW [run options]`: two builds measured
 * side by side, round by round, and the change judged per round.
 *
 * Every round, OLD and NEW each run their share of every entry's timed calls
 * (`--rounds N --round I`), in a fresh random order (randomized multiple
 * interleaved trials: Abedi & Brecht, ICPE 2017), each as a fresh process:
 * what one process's layout happens to cost or give (stack and heap
 * placement, huge pages) then varies from round to round instead of
 * standing for the build.  A build's peak is measured by its first round
 * and passed to the others (--peak; with a --threads list each round
 * measures its own, one per count).  After each round its result is merged
 * into the build's file.  The unit of analysis is the round (Kalibera &
 * Jones, ISMM 2013): per entry and round, NEW's median over OLD's; the
 * signed-rank test and the Hodges-Lehmann interval over those ratios decide
 * (compare.c, unit "paired rounds"; src/analysis/compare.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ab_rounds.h"
#include "command.h"
#include "compare.h"
#include "harness.h"
#include "lockstep.h"
#include "output.h"
#include "parse.h"
#include "settings.h"
#include "stats.h"

/* Seconds of timed calls per entry and round when --min-time is not given:
 * a round's median of a short entry then rests on tens of calls, not 3, and
 * a 4-8 ms stall of the VM moves a few of them, not the median. */
#define AB_ROUND_MIN_TIME 0.02

static const char ab_intro[] =
    "usage: gemmbench ab OLD NEW [run options] [options]\n"
    "\n"
    "Measures the same sweep with two gemmbench builds (two executables, or wrapper\n"
    "scripts that set an environment and run one) as separate processes, round by\n"
    "round, OLD and NEW in a fresh random order for every entry; then judges every\n"
    "entry on its per-round NEW/OLD ratios: Hodges-Lehmann estimate, its interval at\n"
    "1 - alpha, and a Wilcoxon signed-rank test (src/analysis/compare.md).\n"
    "\n"
    "Run options (--variant, --kernel, --m, --shape, --param, --threads, --reps,\n"
    "--warmup, --prepack, --config, ...) go to both builds; bench.conf applies as in\n"
    "a run.  --reps is per entry over all rounds.  A --threads list measures every\n"
    "entry at each count, judged per count.\n"
    "\n"
    "\n";

/* After ab's options (settings.h) in its --help. */
static const char ab_outro[] =
    "\n"
    "exit status: 0 no entry significantly slower beyond the threshold; 1 at least\n"
    "one, or a verification failed in either build; 2 bad input (a missing or\n"
    "non-executable build, one that is not gemmbench or writes another schema,\n"
    "options a build refuses); 3 I/O error; 130 interrupted (what was measured is\n"
    "kept in both files, \"complete\": false)\n"
    "environment: GEMMBENCH_AB_PROBE_TIMEOUT, the seconds a build may take to\n"
    "answer the probe of its options (1-600; default 10)\n";


/* ---- options ------------------------------------------------------------------ */

/* Stores one of ab's own settings (settings.h) into o. */
static int store_setting(void *target, const gb_setting *s, const gb_setting_value *v,
                         char *err, size_t errlen)
{
    ab_opts *o = target;

    switch (s->id) {
    case GB_SET_ROUNDS: o->rounds = (int)v->number; break;
    case GB_SET_INTERLEAVE: o->by_entry = strcmp(v->text, "entry") == 0; break;
    case GB_SET_THRESHOLD: o->threshold_pct = v->real; break;
    case GB_SET_ALPHA: o->alpha = v->real; break;
    case GB_SET_FORMAT: o->format = v->format; break;
    case GB_SET_FORCE: o->force = 1; break;
    case GB_SET_QUIET: o->quiet = 1; break;
    case GB_SET_HELP: o->help = 1; break;
    case GB_SET_SEED:
        o->seed = (unsigned)v->number;
        o->seed_given = 1;
        break;
    case GB_SET_OUTPUT:
        if (v->text[0] == '\0')
            return snprintf(err, errlen, "%s needs a file name prefix", v->name), -1;
        o->prefix = v->text;
        break;
    default:
        return snprintf(err, errlen, "%s is not an option of ab", v->name), -1;
    }
    return 0;
}

/* The setting of cmd that arg names ("--name", "--name=value", "-x"), or NULL. */
static const gb_setting *setting_named(unsigned cmd, const char *arg)
{
    if (arg[0] == '-' && arg[1] == '-' && arg[2] != '\0')
        return gb_setting_by_flag(cmd, arg + 2, strcspn(arg + 2, "="));
    if (arg[0] == '-' && arg[1] != '\0' && arg[2] == '\0')
        return gb_setting_by_letter(cmd, arg[1]);
    return NULL;
}

static int is_opt(const char *arg, const char *name)
{
    size_t len = strlen(name);
    return strncmp(arg, name, len) == 0 && (arg[len] == '\0' || arg[len] == '=');
}

static int pass_on(ab_opts *o, const char *arg, char *err, size_t errlen)
{
    if (o->npass >= AB_MAX_ARGS - 16)
        return snprintf(err, errlen, "too many run options"), -1;
    o->pass[o->npass++] = arg;
    return 0;
}

/* The setting a long option's unique abbreviation names (getopt_long takes
 * "--hel" for --help, and so must ab, or it would hand it to the builds),
 * or NULL; *ambiguous is set when several flags begin so. */
static const gb_setting *abbreviated(const char *name, size_t len, int *ambiguous)
{
    const gb_setting *found = NULL;

    *ambiguous = 0;
    for (size_t i = 0; i < gb_setting_count; i++) {
        const gb_setting *s = &gb_settings[i];
        if (!(s->commands & (GB_CMD_AB | GB_CMD_RUN)) || strncmp(s->flag, name, len) != 0)
            continue;
        if (found && strcmp(found->flag, s->flag) != 0)
            *ambiguous = 1;
        found = s;
    }
    return *ambiguous ? NULL : found;
}

/* Room for the options rewritten by spell_out; they live until ab exits. */
static char spelled[8192];
static size_t spelled_used;

static const char *keep(const char *a, size_t alen, const char *b)
{
    size_t blen = strlen(b);
    char *at = spelled + spelled_used;

    if (spelled_used + alen + blen + 1 > sizeof spelled)
        return NULL;
    memcpy(at, a, alen);
    memcpy(at + alen, b, blen + 1);
    spelled_used += alen + blen + 1;
    return at;
}

/* ab's arguments as getopt_long would read them, each option on its own:
 * an abbreviation spelled out ("--hel" is "--help"), a group of letters
 * split ("-qh" is "-q" "-h"), an attached value apart ("-oP" is "-o" "P").
 * Left as they are: values, and what this build does not know (the builds
 * say whether they take it).  The count in out, or -1 with err. */
static int spell_out(int argc, char **argv, const char **out, int max, char *err,
                     size_t errlen)
{
    int n = 0;

    for (int i = 4; i < argc; i++) {
        const char *a = argv[i];
        const gb_setting *s = NULL;
        int ambiguous = 0, value_next = 0;

        if (n + 2 > max)
            return snprintf(err, errlen, "too many run options"), -1;
        if (a[0] == '-' && a[1] == '-' && a[2] != '\0') {
            size_t len = strcspn(a + 2, "=");
            s = setting_named(GB_CMD_AB, a);
            if (s == NULL)
                s = setting_named(GB_CMD_RUN, a);
            if (s == NULL)
                s = abbreviated(a + 2, len, &ambiguous);
            if (ambiguous)
                return snprintf(err, errlen, "option '%.*s' is ambiguous", (int)len + 2, a), -1;
            if (s && strlen(s->flag) != len) { /* an abbreviation */
                out[n] = keep("--", 2, s->flag);
                if (out[n] && a[2 + len] == '=')
                    out[n] = keep(out[n], strlen(out[n]), a + 2 + len);
                if (out[n] == NULL)
                    return snprintf(err, errlen, "too many run options"), -1;
                n++;
            } else {
                out[n++] = a;
            }
            value_next = s && gb_setting_takes_value(s) && a[2 + len] != '=';
        } else if (a[0] == '-' && a[1] != '-' && a[1] != '\0') {
            /* Letters: split while each is known; the first that takes a
             * value takes the rest of the argument, or the next one. */
            const char *p = a + 1;
            for (; *p; p++) {
                char one[3] = { '-', *p, '\0' };
                s = gb_setting_by_letter(GB_CMD_AB, *p);
                if (s == NULL)
                    s = gb_setting_by_letter(GB_CMD_RUN, *p);
                if (s == NULL || n + 2 > max)
                    break;
                out[n++] = keep(one, 2, "");
                if (gb_setting_takes_value(s)) {
                    if (p[1])
                        out[n++] = p + 1;
                    else
                        value_next = 1;
                    p = "";
                    break;
                }
            }
            if (*p) /* a letter this build does not know: as it was */
                out[n++] = p == a + 1 ? a : keep("-", 1, p);
            if (out[n - 1] == NULL)
                return snprintf(err, errlen, "too many run options"), -1;
        } else {
            out[n++] = a;
        }
        if (value_next && i + 1 < argc) {
            if (n == max)
                return snprintf(err, errlen, "too many run options"), -1;
            out[n++] = argv[++i];
        }
    }
    return n;
}

/* ab's own options into o; the run options are read as a run reads them (so
 * that a bad value is refused before any build starts) and kept for both
 * builds, except those that would stop a build from running a sweep or that
 * ab sets itself; options this build does not know go on to the builds,
 * which say whether they take them. */
static int parse_ab(int argc, char **argv, ab_opts *o, char *err, size_t errlen)
{
    static const char *args[AB_MAX_ARGS * 2];
    int nargs = spell_out(argc, argv, args, AB_MAX_ARGS * 2, err, errlen);

    if (nargs < 0)
        return -1;
    for (int i = 0; i < nargs; i++) {
        const char *a = args[i], *eq = a[0] == '-' && a[1] == '-' ? strchr(a, '=') : NULL;
        const char *text = NULL;
        const gb_setting *own = setting_named(GB_CMD_AB, a);
        const gb_setting *s = own ? own : setting_named(GB_CMD_RUN, a);
        gb_setting_value v;
        char name[48];
        int first = i;

        if (s == NULL) {
            if (pass_on(o, a, err, errlen) != 0)
                return -1;
            continue;
        }
        if (!own && !(s->commands & GB_CMD_AB_BUILDS))
            return snprintf(err, errlen, "%s is not a run option ab can pass on", a), -1;
        snprintf(name, sizeof name, "--%s", s->flag);
        if (gb_setting_takes_value(s) && eq == NULL && i + 1 == nargs)
            return snprintf(err, errlen, "option '%s' needs a value", a), -1;
        if (!gb_setting_takes_value(s) && eq)
            return snprintf(err, errlen, "option '%s' takes no value", name), -1;
        if (gb_setting_takes_value(s))
            text = eq ? eq + 1 : args[++i];
        if (gb_setting_read(s, name, text, &v, err, errlen) != 0)
            return -1;
        if (own && store_setting(o, s, &v, err, errlen) != 0)
            return -1;
        if (o->help) /* the help, whatever follows */
            return 0;
        for (int k = first; !own && k <= i; k++)
            if (pass_on(o, args[k], err, errlen) != 0)
                return -1;
    }
    return 0;
}

/* 32 hex digits that name this run in both files (run.ab.pair): random,
 * else the clock and the process. */
static void make_pair_id(char out[33])
{
    unsigned char r[16];

    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
        unsigned long long t = (unsigned long long)time(NULL), p = (unsigned long long)getpid();
        for (int i = 0; i < 16; i++)
            r[i] = (unsigned char)((i < 8 ? t >> (8 * i) : p >> (8 * (i - 8))) & 0xff);
    }
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", r[i]);
}

/* ---- the verdict ---------------------------------------------------------------- */

static int show(const gb_compare *c, gb_format format)
{
    if (gb_compare_write(stdout, format, c) != 0)
        return gb_fail(GB_EXIT_IO, "ab", "out of memory");
    return gb_finish_stdout("ab");
}

static int failed_checks(const gb_result_file *f)
{
    int n = 0;

    for (int i = 0; i < f->nentries; i++)
        n += strcmp(f->entries[i].check, "fail") == 0;
    return n;
}

/* Reads both files back and judges; the exit status. */
static int judge(build *b, const ab_opts *o, int status)
{
    gb_result_file f[2];
    gb_compare c;
    gb_compare_opts copts = { o->threshold_pct, o->alpha, 1, NULL, NULL, 1, NULL };
    char err[GB_ERR_LEN + 8400];
    int rc, bad = 0;

    for (int i = 0; i < 2; i++)
        if (gb_result_file_load(b[i].output, &f[i], err, sizeof err) != 0) {
            if (i == 1)
                gb_result_file_free(&f[0]);
            /* Interrupted before a build measured anything: nothing to judge. */
            if (status == GB_EXIT_INTERRUPTED)
                return gb_fail(status, "ab", "%s has nothing to compare yet: %s", b[i].name,
                               err);
            return gb_fail(GB_EXIT_USAGE, "ab", "%s wrote no usable result file: %s",
                           b[i].name, err);
        }
    rc = gb_compare_files(&f[0], &f[1], &copts, &c, err, sizeof err);
    if (rc != 0) {
        status = gb_fail(rc == -2 ? GB_EXIT_IO : GB_EXIT_USAGE, "ab", "%s", err);
        goto out;
    }
    rc = show(&c, o->format);
    if (rc != GB_EXIT_OK) {
        status = rc;
    } else {
        if (c.nonly_old || c.nonly_new)
            fprintf(stderr, "gemmbench: ab: note: %d entries measured by OLD only, %d by NEW "
                            "only (listed, not compared)\n", c.nonly_old, c.nonly_new);
        if (c.ntext_differs)
            fprintf(stderr, "gemmbench: ab: note: %d entries of a schedule variant ran "
                            "different schedule texts in OLD and NEW (schedule.sha256): not "
                            "compared\n", c.ntext_differs);
        for (int i = 0; i < 2; i++) {
            int n = failed_checks(&f[i]);
            if (n || b[i].check_failed) {
                gb_fail(GB_EXIT_CHECK_FAILED, "ab", "%s (%s) failed verification in %d "
                        "result(s)", b[i].name, b[i].shown, n);
                bad = 1;
            }
        }
        if (status == GB_EXIT_OK)
            status = bad || c.nfailed ? GB_EXIT_CHECK_FAILED : GB_EXIT_OK;
    }
    gb_compare_free(&c);
out:
    gb_result_file_free(&f[0]);
    gb_result_file_free(&f[1]);
    return status;
}

/* Whether the directory of path takes new files (checked before minutes of
 * measuring, without leaving an empty file behind). */
static int writable_dir(const char *path)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');

    if (slash == NULL)
        return access(".", W_OK | X_OK) == 0;
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - path) + (slash == path), path);
    return access(dir, W_OK | X_OK) == 0;
}

static int prepare_outputs(build *b, const ab_opts *o, const char *tmp, char *err,
                           size_t errlen)
{
    char prefix[PATH_MAX - 16];

    if (o->prefix) {
        snprintf(prefix, sizeof prefix, "%s", o->prefix);
    } else {
        char stamp[32];
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
        if (mkdir("results", 0755) != 0 && errno != EEXIST)
            return snprintf(err, errlen, "cannot create results/: %s", strerror(errno)), -2;
        snprintf(prefix, sizeof prefix, "results/ab-%s", stamp);
    }
    for (int i = 0; i < 2; i++) {
        struct stat st;
        snprintf(b[i].output, sizeof b[i].output, "%s-%s.json", prefix, i ? "new" : "old");
        snprintf(b[i].round_file, sizeof b[i].round_file, "%s/%s-round.json", tmp, b[i].name);
        snprintf(b[i].errlog, sizeof b[i].errlog, "%s/%s-stderr.txt", tmp, b[i].name);
        /* Only a regular file is replaced, as run's --output: the merged
         * file is renamed over the path after each round, which would
         * replace a FIFO or a device node, or fail at a directory. */
        if (stat(b[i].output, &st) == 0 && !S_ISREG(st.st_mode))
            return snprintf(err, errlen, "%s is %s, not a regular file", b[i].output,
                            S_ISDIR(st.st_mode) ? "a directory" : "a device, FIFO or socket"),
                   -1;
        if (stat(b[i].output, &st) == 0 && !o->force)
            return snprintf(err, errlen, "%s exists (use --force to overwrite it)",
                            b[i].output), -1;
        if (!writable_dir(b[i].output))
            return snprintf(err, errlen, "cannot write %s: %s", b[i].output, strerror(errno)),
                   -2;
    }
    return 0;
}

/* Unless the run options set --min-time, both builds get AB_ROUND_MIN_TIME
 * seconds per round (value in buf); a build older than the option gets
 * neither, with a note, so that both sample alike.  0, or -1 when the
 * options are full. */
static int default_min_time(const build b[2], const int takes[2], ab_opts *o, char *buf,
                            size_t len)
{
    for (int i = 0; i < o->npass; i++)
        if (is_opt(o->pass[i], "--min-time"))
            return 0;
    for (int i = 0; i < 2; i++)
        if (takes[i] != 1) {
            if (!o->quiet)
                fprintf(stderr, "gemmbench: ab: note: %s '%s' is older than --min-time: "
                        "both builds take --reps calls per entry, however short\n",
                        b[i].name, b[i].shown);
            return 0;
        }
    if (o->npass + 2 > AB_MAX_ARGS - 16)
        return -1;
    snprintf(buf, len, "%g", AB_ROUND_MIN_TIME * o->rounds);
    o->pass[o->npass++] = "--min-time";
    o->pass[o->npass++] = buf;
    return 0;
}

int gb_cmd_ab(int argc, char **argv)
{
    static ab_opts o;
    build b[2] = { { .name = "OLD" }, { .name = "NEW" } };
    char err[GB_ERR_LEN + 2 * PATH_MAX], tmp[] = "/tmp/gemmbench-ab-XXXXXX", min_time[32];
    int status, takes_min_time[2], takes_lockstep[2];

    /* `ab --help`, and `ab OLD --help` (not a build named --help). */
    for (int i = 2; i < argc && i < 4; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return gb_help_command("ab", GB_CMD_AB, ab_intro, ab_outro);
    if (argc < 4)
        return gb_usage("ab", "expected two gemmbench builds, OLD and NEW");
    memset(&o, 0, sizeof o);
    gb_settings_defaults(GB_CMD_AB, store_setting, &o, err, sizeof err);
    if (parse_ab(argc, argv, &o, err, sizeof err) != 0)
        return gb_usage("ab", "%s", err);
    if (o.help)
        return gb_help_command("ab", GB_CMD_AB, ab_intro, ab_outro);
    b[0].path = argv[2];
    b[1].path = argv[3];
    for (int i = 0; i < 2; i++)
        gb_printable(b[i].path, 200, b[i].shown, sizeof b[i].shown);
    for (int i = 0; i < 2; i++) {
        int rc = gb_ab_check_executable(&b[i], err, sizeof err);
        if (rc == 0)
            rc = gb_ab_check_gemmbench(&b[i], err, sizeof err);
        if (rc != 0)
            return gb_fail(rc == -3 ? GB_EXIT_IO : GB_EXIT_USAGE, "ab", "%s", err);
    }
    /* What each build takes, asked once; a build that does not answer in
     * time is refused here rather than waited for. */
    for (int i = 0; i < 2; i++) {
        /* The second probe only when the first answered: a build that
         * hangs costs one timeout, not two. */
        takes_min_time[i] = gb_ab_accepts(&b[i], "--min-time", "0");
        takes_lockstep[i] = takes_min_time[i] >= 0 && o.by_entry
                          ? gb_ab_accepts(&b[i], "--lockstep", NULL) : 0;
        if (takes_min_time[i] < 0 || takes_lockstep[i] < 0)
            return gb_fail(GB_EXIT_USAGE, "ab", "%s '%s' answered --version but not --help "
                           "within %d s", b[i].name, b[i].shown, gb_ab_probe_timeout_s());
    }
    for (int i = 0; i < 2 && o.by_entry; i++)
        if (takes_lockstep[i] != 1) {
            o.by_entry = 0;
            if (!o.quiet)
                fprintf(stderr, "gemmbench: ab: note: %s '%s' cannot take turns (a build older "
                        "than --lockstep): each round runs one build after the other\n",
                        b[i].name, b[i].shown);
        }
    if (default_min_time(b, takes_min_time, &o, min_time, sizeof min_time) != 0)
        return gb_fail(GB_EXIT_USAGE, "ab", "too many run options");
    /* Slices for the builds that take turns (read with --lockstep only). */
    if (o.by_entry) {
        char slice[32];
        snprintf(slice, sizeof slice, "%g", GB_LOCKSTEP_SLICE);
        setenv(GB_LOCKSTEP_SLICE_ENV, slice, 1);
    }
    /* A build that is gone is heard as the end of its pipe, not a signal. */
    signal(SIGPIPE, SIG_IGN);
    if (mkdtemp(tmp) == NULL)
        return gb_fail(GB_EXIT_IO, "ab", "cannot create a directory in /tmp: %s",
                       strerror(errno));
    status = prepare_outputs(b, &o, tmp, err, sizeof err);
    if (status != 0) {
        rmdir(tmp);
        return gb_fail(status == -2 ? GB_EXIT_IO : GB_EXIT_USAGE, "ab", "%s", err);
    }

    make_pair_id(o.pair_id);
    gb_catch_interrupts();
    status = gb_ab_run_rounds(b, &o, err, sizeof err);
    if (status != GB_EXIT_OK && status != GB_EXIT_INTERRUPTED)
        gb_fail(status, "ab", "%s", err);
    if ((status == GB_EXIT_OK || status == GB_EXIT_INTERRUPTED) && b[0].merged.doc && b[1].merged.doc)
        status = judge(b, &o, status);
    if (status == GB_EXIT_INTERRUPTED && b[0].merged.doc && b[1].merged.doc)
        gb_fail(status, "ab", "interrupted; what was measured is in %s and %s", b[0].output,
                b[1].output);
    else if (status == GB_EXIT_INTERRUPTED)
        gb_fail(status, "ab", "interrupted before both builds measured a round");
    else if (!o.quiet && b[0].merged.doc && b[1].merged.doc)
        fprintf(stderr, "gemmbench: ab: results in %s and %s\n", b[0].output, b[1].output);
    for (int i = 0; i < 2; i++) {
        unlink(b[i].round_file);
        unlink(b[i].errlog);
        gb_result_file_free(&b[i].merged);
    }
    rmdir(tmp);
    return status;
}
