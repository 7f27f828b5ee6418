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
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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
#define AB_MAX_ARGS 256

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
    "kept in both files, \"complete\": false)\n";

typedef struct ab_opts {
    int rounds, quiet, force, help;
    int by_entry;            /* --interleave entry (lockstep.h), else round */
    double threshold_pct, alpha;
    unsigned seed;
    int seed_given;
    gb_format format;
    const char *prefix;
    const char *pass[AB_MAX_ARGS];   /* run options for both builds */
    int npass;
} ab_opts;

typedef struct build {
    const char *name;        /* OLD or NEW */
    const char *path;
    char output[PATH_MAX];   /* the build's result file, every round merged */
    char round_file[PATH_MAX];   /* where a round's process writes */
    char errlog[PATH_MAX];   /* its stderr, kept to report why it stopped */
    gb_result_file merged;   /* the rounds so far (resultfile.h); doc NULL before */
    char peak[96];           /* --peak for rounds after the first, "" if unknown */
    int status;              /* the last round's exit status */
    int check_failed;        /* its first round exited 1 */
} build;

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

/* ab's own options into o; the run options are read as a run reads them (so
 * that a bad value is refused before any build starts) and kept for both
 * builds, except those that would stop a build from running a sweep or that
 * ab sets itself; options this build does not know go on to the builds,
 * which say whether they take them. */
static int parse_ab(int argc, char **argv, ab_opts *o, char *err, size_t errlen)
{
    for (int i = 4; i < argc; i++) {
        const char *a = argv[i], *eq = a[1] == '-' ? strchr(a, '=') : NULL, *text = NULL;
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
        if (gb_setting_takes_value(s) && eq == NULL && i + 1 == argc)
            return snprintf(err, errlen, "option '%s' needs a value", a), -1;
        if (!gb_setting_takes_value(s) && eq)
            return snprintf(err, errlen, "option '%s' takes no value", name), -1;
        if (gb_setting_takes_value(s))
            text = eq ? eq + 1 : argv[++i];
        if (gb_setting_read(s, name, text, &v, err, errlen) != 0)
            return -1;
        if (own && store_setting(o, s, &v, err, errlen) != 0)
            return -1;
        for (int k = first; !own && k <= i; k++)
            if (pass_on(o, argv[k], err, errlen) != 0)
                return -1;
    }
    return 0;
}

/* ---- the builds ----------------------------------------------------------------- */

static int check_executable(const build *b, char *err, size_t errlen)
{
    struct stat st;

    if (stat(b->path, &st) != 0)
        return snprintf(err, errlen, "%s '%s': %s", b->name, b->path, strerror(errno)), -1;
    if (!S_ISREG(st.st_mode) || access(b->path, X_OK) != 0)
        return snprintf(err, errlen, "%s '%s' is not an executable file", b->name, b->path),
               -1;
    return 0;
}

/* Reads one line from fd into buf within timeout_ms.  0, or -1 at end of
 * file, on an error or at the timeout. */
static int read_line(int fd, char *buf, size_t len, int timeout_ms)
{
    size_t n = 0;

    while (n < len - 1) {
        struct pollfd p = { fd, POLLIN, 0 };
        int ready = poll(&p, 1, timeout_ms);
        ssize_t got;
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0 || (got = read(fd, buf + n, 1)) <= 0)
            return -1;
        if (buf[n] == '\n')
            break;
        n++;
    }
    buf[n] = '\0';
    return 0;
}

/* `BUILD --version` must say it is gemmbench. */
static int check_gemmbench(const build *b, char *err, size_t errlen)
{
    int fd[2], status;
    char line[128] = "";
    pid_t pid;

    if (pipe2(fd, O_CLOEXEC) != 0)
        return snprintf(err, errlen, "pipe: %s", strerror(errno)), -3;
    pid = fork();
    if (pid < 0)
        return snprintf(err, errlen, "fork: %s", strerror(errno)), -3;
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(fd[1], STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        dup2(null, STDIN_FILENO);
        execl(b->path, b->path, "--version", (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    if (read_line(fd[0], line, sizeof line, 30000) != 0)
        line[0] = '\0';
    close(fd[0]);
    kill(pid, SIGKILL);   /* done with it whatever it was */
    waitpid(pid, &status, 0);
    if (strncmp(line, "gemmbench ", 10) != 0)
        return snprintf(err, errlen, "%s '%s' is not gemmbench (--version printed '%.60s')",
                        b->name, b->path, line), -1;
    return 0;
}

/* Whether b knows run option opt (with value val, or none): `BUILD OPT [VAL]
 * --help` exits 0; an older build refuses the option. */
static int accepts(const build *b, const char *opt, const char *val)
{
    int status;
    pid_t pid = fork();

    if (pid < 0)
        return 0;
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        if (val)
            execl(b->path, b->path, opt, val, "--help", (char *)NULL);
        else
            execl(b->path, b->path, opt, "--help", (char *)NULL);
        _exit(127);
    }
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return 0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Starts round (from 1) of b as a process of its own.  With c, it takes
 * turns (--lockstep): it leads a process group of its own (lockstep.h) and
 * talks over two pipes, c's ends of which are filled in.  Its pid, or -1 when
 * it could not be started (err says why). */
static pid_t start_round_process(build *b, const ab_opts *o, int round, gb_lockstep_child *c,
                                 char *err, size_t errlen)
{
    const char *args[AB_MAX_ARGS + 16];
    char rounds[16], index[16];
    int n = 0, logfd, down[2] = { -1, -1 }, up[2] = { -1, -1 };
    pid_t pid;

    snprintf(rounds, sizeof rounds, "%d", o->rounds);
    snprintf(index, sizeof index, "%d", round);
    args[n++] = b->path;
    for (int i = 0; i < o->npass; i++)
        args[n++] = o->pass[i];
    args[n++] = "--rounds";
    args[n++] = rounds;
    args[n++] = "--round";
    args[n++] = index;
    if (b->peak[0]) {
        args[n++] = "--peak";
        args[n++] = b->peak;
    }
    if (c)
        args[n++] = "--lockstep";
    args[n++] = "--output";
    args[n++] = b->round_file;
    args[n++] = "--force";
    args[n++] = "--quiet";
    args[n] = NULL;
    if (c && (pipe2(down, O_CLOEXEC) != 0 || pipe2(up, O_CLOEXEC) != 0)) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        goto fail;
    }
    logfd = open(b->errlog, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (logfd < 0) {
        snprintf(err, errlen, "cannot write %s: %s", b->errlog, strerror(errno));
        goto fail;
    }
    pid = fork();
    if (pid < 0) {
        close(logfd);
        snprintf(err, errlen, "fork: %s", strerror(errno));
        goto fail;
    }
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(logfd, STDERR_FILENO);
        signal(SIGPIPE, SIG_DFL);
        if (c) {
            /* Out of the way of 3 and 4 first: dup2 onto themselves would
             * keep close-on-exec. */
            int in = fcntl(down[0], F_DUPFD_CLOEXEC, 10), out = fcntl(up[1], F_DUPFD_CLOEXEC, 10);
            setpgid(0, 0);
            if (in < 0 || out < 0 || dup2(in, GB_LOCKSTEP_IN) < 0 ||
                dup2(out, GB_LOCKSTEP_OUT) < 0)
                _exit(127);
        }
        execv(b->path, (char *const *)args);
        _exit(127);
    }
    close(logfd);
    if (c) {
        setpgid(pid, pid);   /* whichever of the two runs first */
        close(down[0]);
        close(up[1]);
        *c = (gb_lockstep_child){ .name = b->name, .pid = pid, .to = down[1], .from = up[0] };
    }
    return pid;
fail:
    for (int i = 0; i < 2; i++) {
        if (down[i] >= 0)
            close(down[i]);
        if (up[i] >= 0)
            close(up[i]);
    }
    return -1;
}

/* The exit status of a round's process run by itself.  Ctrl-C reaches it
 * too; a SIGTERM to ab alone is passed on, so that it stops after its
 * measurement. */
static int wait_round_process(pid_t pid)
{
    int status;

    while (waitpid(pid, &status, 0) < 0)
        if (errno == EINTR && gb_interrupted)
            kill(pid, SIGINT);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The last line b's round wrote on stderr: why it stopped. */
static void last_words(const build *b, char *buf, size_t len)
{
    FILE *f = fopen(b->errlog, "r");
    char line[1024];

    snprintf(buf, len, "exit %d, nothing on stderr", b->status);
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0])
            snprintf(buf, len, "%s", line);
    }
    if (f)
        fclose(f);
}

/* The first round's peak, for the rest: --peak ALL,ONE,ISA.  A run of
 * several thread counts (peak_gflops_by_threads) has one peak per count,
 * which --peak cannot carry: its rounds measure their own, as any build
 * that takes a thread list does, and the merge keeps the first round's. */
static void keep_peak(build *b)
{
    const gb_result_file *f = &b->merged;
    const char *isa = f->peak_isa ? f->peak_isa : "";

    if (f->npeaks > 0)
        return;
    if (f->peak_gflops > 0.0 && f->peak_1thread > 0.0 && isa[0] && strlen(isa) < 16 &&
        strspn(isa, "abcdefghijklmnopqrstuvwxyz0123456789") == strlen(isa))
        snprintf(b->peak, sizeof b->peak, "%.17g,%.17g,%s", f->peak_gflops, f->peak_1thread,
                 isa);
}

/* ---- the rounds --------------------------------------------------------------- */

/* "[round 3/20] OLD" or "[round 3/20] entries 40/276", elapsed and left. */
static void progress(const ab_opts *o, int round, const char *what, int done, int total,
                     double started)
{
    double elapsed = gb_now() - started, part = total > 0 ? (double)done / total : 0.0;

    if (o->quiet || !isatty(STDERR_FILENO))
        return;
    fprintf(stderr, "\r\033[K[round %d/%d] %s", round + 1, o->rounds, what);
    if (total > 0)
        fprintf(stderr, " %d/%d", done, total);
    fprintf(stderr, "  elapsed %.0fs", elapsed);
    if (round + part > 0.0)
        fprintf(stderr, ", ~%.0fs left", elapsed / (round + part) * (o->rounds - round - part));
    fflush(stderr);
}

/* After b's round process ended with status: read its file back, merge,
 * write the build's file.  GB_EXIT_OK to go on, or the status to stop with
 * (err says why). */
static int after_round(build *b, const ab_opts *o, int round, int status, char *err,
                       size_t errlen)
{
    gb_result_file f;
    char why[1024];
    int merged;

    b->status = status;
    if (b->status == 127 || (round == 0 && b->status == GB_EXIT_USAGE)) {
        last_words(b, why, sizeof why);
        snprintf(err, errlen, "%s '%s' did not run the sweep: %s", b->name, b->path, why);
        return GB_EXIT_USAGE;
    }
    if (gb_result_file_load(b->round_file, &f, err, errlen) != 0) {
        if (b->status == GB_EXIT_INTERRUPTED)
            return GB_EXIT_INTERRUPTED;   /* stopped before its first measurement */
        last_words(b, why, sizeof why);
        snprintf(err + strlen(err), errlen - strlen(err), " (%s round %d: %s)", b->name,
                 round + 1, why);
        return b->status == GB_EXIT_IO ? GB_EXIT_IO : GB_EXIT_USAGE;
    }
    if (b->merged.doc == NULL) {
        b->merged = f;   /* the first round is the build's file so far */
        snprintf(b->merged.path, sizeof b->merged.path, "%s", b->output);
    } else {
        merged = gb_result_file_merge(&b->merged, &f, err, errlen);
        gb_result_file_free(&f);
        if (merged != 0)
            return GB_EXIT_IO;
    }
    if (round == 0) {
        keep_peak(b);
        b->check_failed = b->status == GB_EXIT_CHECK_FAILED;
    }
    if (gb_json_write_atomic(b->merged.doc, b->output,
                             round == o->rounds - 1 && b->status != GB_EXIT_INTERRUPTED, err,
                             errlen) != 0)
        return GB_EXIT_IO;
    if (b->status == GB_EXIT_INTERRUPTED || gb_interrupted)
        return GB_EXIT_INTERRUPTED;
    if (b->status != GB_EXIT_OK && b->status != GB_EXIT_CHECK_FAILED) {
        last_words(b, why, sizeof why);
        snprintf(err, errlen, "%s stopped in round %d: %s", b->name, round + 1, why);
        return GB_EXIT_IO;
    }
    return GB_EXIT_OK;
}

static unsigned next_random(unsigned *rng)
{
    return (*rng = *rng * 1103515245u + 12345u) >> 16;
}

/* A round of one build after the other, in a random order. */
static int round_by_round(build *b, const ab_opts *o, int round, unsigned *rng,
                          double started, char *err, size_t errlen)
{
    int first = (int)(next_random(rng) & 1);

    for (int k = 0; k < 2; k++) {
        build *x = &b[k ? !first : first];
        pid_t pid;
        int status;
        progress(o, round, x->name, 0, 0, started);
        unlink(x->round_file);
        pid = start_round_process(x, o, round + 1, NULL, err, errlen);
        if (pid < 0)
            return GB_EXIT_IO;
        status = after_round(x, o, round, wait_round_process(pid), err, errlen);
        if (status != GB_EXIT_OK)
            return status;
    }
    return GB_EXIT_OK;
}

typedef struct turn_view {
    const ab_opts *o;
    int round;
    double started;
} turn_view;

static void show_turn(void *arg, int done, int total)
{
    turn_view *t = arg;
    progress(t->o, t->round, "entries", done, total, t->started);
}

/* A round of both builds at once, taking turns entry by entry (lockstep.h). */
static int round_by_entry(build *b, const ab_opts *o, int round, unsigned *rng,
                          double started, char *err, size_t errlen)
{
    gb_lockstep_child c[2];
    turn_view view = { o, round, started };
    int status[2], rc = 0, out = GB_EXIT_OK;

    memset(c, 0, sizeof c);
    for (int i = 0; i < 2; i++) {
        unlink(b[i].round_file);
        if (start_round_process(&b[i], o, round + 1, &c[i], err, errlen) < 0) {
            if (i == 1)
                gb_lockstep_abandon(&c[0]);
            return GB_EXIT_IO;
        }
    }
    rc = gb_lockstep_round(c, rng, show_turn, &view, &gb_interrupted);
    /* Both write their files one after the other, or stop keeping what they have. */
    for (int i = 0; i < 2; i++)
        status[i] = rc == 0 ? gb_lockstep_finish(&c[i]) : gb_lockstep_abandon(&c[i]);
    for (int i = 0; i < 2; i++)
        gb_lockstep_free(&c[i]);
    if (rc == -2)
        return snprintf(err, errlen, "out of memory"), GB_EXIT_IO;
    for (int i = 0; i < 2; i++) {
        char why[GB_ERR_LEN + 2 * PATH_MAX];
        int st = after_round(&b[i], o, round, status[i], why, sizeof why);
        /* The first reason to stop wins; an interruption yields to an error. */
        if (st != GB_EXIT_OK && (out == GB_EXIT_OK || out == GB_EXIT_INTERRUPTED)) {
            out = st;
            snprintf(err, errlen, "%s", why);
        }
    }
    return out != GB_EXIT_OK ? out : rc == -1 ? GB_EXIT_INTERRUPTED : GB_EXIT_OK;
}

/* Every round, both builds in a fresh random order.  GB_EXIT_OK, or the
 * status to exit with (err says why). */
static int run_rounds(build *b, const ab_opts *o, char *err, size_t errlen)
{
    unsigned rng = o->seed_given ? o->seed : (unsigned)time(NULL) ^ (unsigned)getpid();
    double started = gb_now();

    for (int round = 0; round < o->rounds; round++) {
        int status = o->by_entry ? round_by_entry(b, o, round, &rng, started, err, errlen)
                                 : round_by_round(b, o, round, &rng, started, err, errlen);
        if (status != GB_EXIT_OK)
            return status;
    }
    if (!o->quiet && isatty(STDERR_FILENO))
        fprintf(stderr, "\r\033[K");
    return GB_EXIT_OK;
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
    gb_compare_opts copts = { o->threshold_pct, o->alpha, 1, NULL, NULL, 1 };
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
        for (int i = 0; i < 2; i++) {
            int n = failed_checks(&f[i]);
            if (n || b[i].check_failed) {
                gb_fail(GB_EXIT_CHECK_FAILED, "ab", "%s (%s) failed verification in %d "
                        "result(s)", b[i].name, b[i].path, n);
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
static int default_min_time(const build b[2], ab_opts *o, char *buf, size_t len)
{
    for (int i = 0; i < o->npass; i++)
        if (is_opt(o->pass[i], "--min-time"))
            return 0;
    for (int i = 0; i < 2; i++)
        if (!accepts(&b[i], "--min-time", "0")) {
            if (!o->quiet)
                fprintf(stderr, "gemmbench: ab: note: %s '%s' is older than --min-time: "
                        "both builds take --reps calls per entry, however short\n",
                        b[i].name, b[i].path);
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
    int status;

    if (argc > 2 && (strcmp(argv[2], "-h") == 0 || strcmp(argv[2], "--help") == 0))
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
    for (int i = 0; i < 2; i++) {
        int rc = check_executable(&b[i], err, sizeof err);
        if (rc == 0)
            rc = check_gemmbench(&b[i], err, sizeof err);
        if (rc != 0)
            return gb_fail(rc == -3 ? GB_EXIT_IO : GB_EXIT_USAGE, "ab", "%s", err);
    }
    for (int i = 0; i < 2 && o.by_entry; i++)
        if (!accepts(&b[i], "--lockstep", NULL)) {
            o.by_entry = 0;
            if (!o.quiet)
                fprintf(stderr, "gemmbench: ab: note: %s '%s' cannot take turns (a build older "
                        "than --lockstep): each round runs one build after the other\n",
                        b[i].name, b[i].path);
        }
    if (default_min_time(b, &o, min_time, sizeof min_time) != 0)
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

    gb_catch_interrupts();
    status = run_rounds(b, &o, err, sizeof err);
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
