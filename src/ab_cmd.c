/*
 * ab_cmd.c - `gemmbench ab OLD NEW [run options]`: two builds measured
 * side by side, round by round, and the change judged per round.
 *
 * Each build runs as its own process for the whole sweep (its peak measured
 * once), paced by this one through --lockstep: every round, OLD and NEW each
 * run their share of every entry's timed calls, in a fresh random order
 * (randomized multiple interleaved trials: Abedi & Brecht, ICPE 2017).  The
 * unit of analysis is the round (Kalibera & Jones, ISMM 2013): per entry and
 * round, NEW's median over OLD's; the signed-rank test and the
 * Hodges-Lehmann interval over those ratios decide (compare.c, unit
 * "paired rounds"; src/compare.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
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
#include "parse.h"

#define AB_DEFAULT_ROUNDS 10
#define AB_MAX_ARGS 256

static const char ab_usage[] =
    "usage: gemmbench ab OLD NEW [run options] [options]\n"
    "\n"
    "Measures the same sweep with two gemmbench builds (two executables, or wrapper\n"
    "scripts that set an environment and exec one) as separate processes, round by\n"
    "round, OLD and NEW in a fresh random order each round; then judges every entry\n"
    "on its per-round NEW/OLD ratios: Hodges-Lehmann estimate, its interval at\n"
    "1 - alpha, and a Wilcoxon signed-rank test (src/compare.md).\n"
    "\n"
    "Run options (--variant, --kernel, --m, --shape, --param, --threads, --reps,\n"
    "--warmup, --prepack, --config, ...) go to both builds; bench.conf applies as in\n"
    "a run.  --reps is per entry over all rounds.\n"
    "\n"
    "      --rounds N        rounds, at least 8 (default 10)\n"
    "      --threshold PCT   an entry fails when NEW is more than PCT percent slower\n"
    "                        (estimate above 1 + PCT/100) ... (default 3)\n"
    "      --alpha A         ... and the signed-rank test gives p < A (default 0.01)\n"
    "      --format F        table (default), md or json\n"
    "  -o, --output PREFIX   result files PREFIX-old.json and PREFIX-new.json\n"
    "                        (default results/ab-<UTC time>)\n"
    "  -f, --force           overwrite them\n"
    "      --seed N          seed of the round order (default: the clock)\n"
    "      --quiet           no progress line\n"
    "  -h, --help            this text\n"
    "\n"
    "exit status: 0 no entry significantly slower beyond the threshold; 1 at least\n"
    "one, or a verification failed in either build; 2 bad input (a missing or\n"
    "non-executable build, one that is not gemmbench or writes another schema,\n"
    "options a build refuses); 3 I/O error; 130 interrupted (what was measured is\n"
    "kept in both files, \"complete\": false)\n";

typedef struct ab_opts {
    int rounds, quiet, force;
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
    char output[PATH_MAX];
    char errlog[64];         /* its stderr, kept to report why it stopped */
    pid_t pid;
    int ctl, status_fd;      /* our ends: "go" out, "ready"/"done" in */
    int exited, status;
} build;

/* ---- options ------------------------------------------------------------------ */

/* Options of the run command that would stop a build from running a sweep,
 * or that ab sets itself. */
static const char *const refused[] = {
    "--lockstep", "--list", "-l", "--explain", "--version", "-V", NULL
};

/* "--name=value" or "--name value": the value, advancing *i; NULL when missing. */
static const char *value_of(int argc, char **argv, int *i, const char *name)
{
    size_t len = strlen(name);

    if (strncmp(argv[*i], name, len) == 0 && argv[*i][len] == '=')
        return argv[*i] + len + 1;
    if (*i + 1 < argc)
        return argv[++*i];
    return NULL;
}

static int is_opt(const char *arg, const char *name)
{
    size_t len = strlen(name);
    return strncmp(arg, name, len) == 0 && (arg[len] == '\0' || arg[len] == '=');
}

static int parse_ab(int argc, char **argv, ab_opts *o, char *err, size_t errlen)
{
    long l;

    for (int i = 4; i < argc; i++) {
        const char *a = argv[i], *v;
        if (is_opt(a, "--rounds")) {
            if ((v = value_of(argc, argv, &i, "--rounds")) == NULL ||
                gb_parse_long(v, GB_AB_MIN_ROUNDS, 1000, &l) != 0)
                return snprintf(err, errlen, "--rounds '%s' is not an integer in [%d, 1000]",
                                v ? v : "", GB_AB_MIN_ROUNDS), -1;
            o->rounds = (int)l;
        } else if (is_opt(a, "--threshold")) {
            if ((v = value_of(argc, argv, &i, "--threshold")) == NULL ||
                gb_parse_double(v, 0.0, 1e6, &o->threshold_pct) != 0)
                return snprintf(err, errlen, "--threshold '%s' is not a percentage",
                                v ? v : ""), -1;
        } else if (is_opt(a, "--alpha")) {
            if ((v = value_of(argc, argv, &i, "--alpha")) == NULL ||
                gb_parse_double(v, 0.0, 1.0, &o->alpha) != 0 || o->alpha <= 0.0 ||
                o->alpha >= 1.0)
                return snprintf(err, errlen, "--alpha '%s' is not a probability strictly "
                                "between 0 and 1", v ? v : ""), -1;
        } else if (is_opt(a, "--format")) {
            v = value_of(argc, argv, &i, "--format");
            if (v && strcmp(v, "table") == 0)
                o->format = GB_FMT_TABLE;
            else if (v && strcmp(v, "md") == 0)
                o->format = GB_FMT_MD;
            else if (v && strcmp(v, "json") == 0)
                o->format = GB_FMT_JSON;
            else
                return snprintf(err, errlen, "--format '%s' is not table, md or json",
                                v ? v : ""), -1;
        } else if (strcmp(a, "-o") == 0 || is_opt(a, "--output")) {
            if ((v = value_of(argc, argv, &i, strcmp(a, "-o") ? "--output" : "-o")) == NULL ||
                !v[0])
                return snprintf(err, errlen, "%s needs a file name prefix", a), -1;
            o->prefix = v;
        } else if (strcmp(a, "-f") == 0 || strcmp(a, "--force") == 0) {
            o->force = 1;
        } else if (is_opt(a, "--seed")) {
            if ((v = value_of(argc, argv, &i, "--seed")) == NULL ||
                gb_parse_long(v, 0, 2147483647L, &l) != 0)
                return snprintf(err, errlen, "--seed '%s' is not an integer >= 0", v ? v : ""),
                       -1;
            o->seed = (unsigned)l;
            o->seed_given = 1;
        } else if (strcmp(a, "--quiet") == 0) {
            o->quiet = 1;
        } else {
            for (int k = 0; refused[k]; k++)
                if (is_opt(a, refused[k]))
                    return snprintf(err, errlen, "%s is not a run option ab can pass on", a),
                           -1;
            if (o->npass >= AB_MAX_ARGS - 16)
                return snprintf(err, errlen, "too many run options"), -1;
            o->pass[o->npass++] = a;
        }
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

/* Reads one line from fd into buf within timeout_ms (-1: no limit).  0; -1 at
 * end of file, on an error or at the timeout; -2 when interrupted. */
static int read_line(int fd, char *buf, size_t len, int timeout_ms)
{
    size_t n = 0;

    while (n < len - 1) {
        struct pollfd p = { fd, POLLIN, 0 };
        int ready = poll(&p, 1, timeout_ms);
        ssize_t got;
        if (ready < 0 && errno == EINTR) {
            if (gb_interrupted)
                return -2;
            continue;
        }
        if (ready <= 0)
            return -1;
        got = read(fd, buf + n, 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
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

static int start(build *b, const ab_opts *o, char *err, size_t errlen)
{
    int ctl[2], st[2], logfd;
    char lockstep[32], rounds[16];
    const char *args[AB_MAX_ARGS + 16];
    int n = 0;

    snprintf(b->errlog, sizeof b->errlog, "/tmp/gemmbench-ab-%s-XXXXXX", b->name);
    logfd = mkstemp(b->errlog);
    if (logfd < 0 || pipe2(ctl, O_CLOEXEC) != 0 || pipe2(st, O_CLOEXEC) != 0)
        return snprintf(err, errlen, "cannot set up %s: %s", b->name, strerror(errno)), -1;
    snprintf(lockstep, sizeof lockstep, "%d,%d", ctl[0], st[1]);
    snprintf(rounds, sizeof rounds, "%d", o->rounds);
    args[n++] = b->path;
    for (int i = 0; i < o->npass; i++)
        args[n++] = o->pass[i];
    args[n++] = "--rounds";
    args[n++] = rounds;
    args[n++] = "--lockstep";
    args[n++] = lockstep;
    args[n++] = "--output";
    args[n++] = b->output;
    args[n++] = "--force";
    args[n++] = "--quiet";
    args[n] = NULL;
    b->pid = fork();
    if (b->pid < 0)
        return snprintf(err, errlen, "fork: %s", strerror(errno)), -1;
    if (b->pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(logfd, STDERR_FILENO);
        fcntl(ctl[0], F_SETFD, 0);
        fcntl(st[1], F_SETFD, 0);
        execv(b->path, (char *const *)args);
        _exit(127);
    }
    close(logfd);
    close(ctl[0]);
    close(st[1]);
    b->ctl = ctl[1];
    b->status_fd = st[0];
    return 0;
}

/* Waits for b to end; its exit status (128 + signal when killed). */
static int finish(build *b)
{
    int status;

    if (b->exited || b->pid <= 0)
        return b->status;
    if (b->ctl >= 0)
        close(b->ctl);
    b->ctl = -1;
    while (waitpid(b->pid, &status, 0) < 0 && errno == EINTR)
        ;
    b->exited = 1;
    b->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (b->status_fd >= 0)
        close(b->status_fd);
    b->status_fd = -1;
    return b->status;
}

/* The last line b wrote on stderr: why it stopped. */
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

/* ---- the rounds --------------------------------------------------------------- */

static void progress(const ab_opts *o, int round, const build *b, double started)
{
    double elapsed = gb_now() - started;

    if (o->quiet || !isatty(STDERR_FILENO))
        return;
    fprintf(stderr, "\r\033[K[round %d/%d] %s  elapsed %.0fs", round + 1, o->rounds, b->name,
            elapsed);
    if (round > 0)
        fprintf(stderr, ", ~%.0fs left", elapsed / round * (o->rounds - round));
    fflush(stderr);
}

/* One build's share of a round.  0; -1 when it stopped (see its status); -2
 * when interrupted. */
static int run_share(build *b)
{
    char line[32];
    int rc;

    if (write(b->ctl, "go\n", 3) != 3)
        return -1;
    rc = read_line(b->status_fd, line, sizeof line, -1);
    if (rc == 0 && strcmp(line, "done") == 0)
        return 0;
    return rc == -2 ? -2 : -1;
}

/* Starts both builds, one after the other so that each measures its peak on
 * a quiet machine, then paces the rounds.  GB_EXIT_OK, or the status to
 * exit with (err says why). */
static int run_rounds(build *b, const ab_opts *o, char *err, size_t errlen)
{
    unsigned rng = o->seed_given ? o->seed : (unsigned)time(NULL) ^ (unsigned)getpid();
    double started;

    for (int i = 0; i < 2; i++) {
        char line[32], why[1024];
        if (start(&b[i], o, err, errlen) != 0)
            return GB_EXIT_IO;
        if (read_line(b[i].status_fd, line, sizeof line, 600000) == 0 &&
            strcmp(line, "ready") == 0)
            continue;
        if (gb_interrupted)
            return GB_EXIT_INTERRUPTED;
        kill(b[i].pid, SIGTERM);
        finish(&b[i]);
        last_words(&b[i], why, sizeof why);
        snprintf(err, errlen, "%s '%s' did not start the sweep: %s", b[i].name, b[i].path, why);
        return b[i].status == GB_EXIT_IO ? GB_EXIT_IO : GB_EXIT_USAGE;
    }
    started = gb_now();
    for (int round = 0; round < o->rounds; round++) {
        int first = (int)((rng = rng * 1103515245u + 12345u) >> 16 & 1);
        for (int k = 0; k < 2; k++) {
            build *x = &b[k ? !first : first];
            int rc;
            progress(o, round, x, started);
            rc = run_share(x);
            if (rc == -2 || gb_interrupted)
                return GB_EXIT_INTERRUPTED;
            if (rc != 0) {
                char why[1024];
                finish(x);
                last_words(x, why, sizeof why);
                snprintf(err, errlen, "%s stopped in round %d: %s", x->name, round + 1, why);
                return x->status == GB_EXIT_INTERRUPTED ? GB_EXIT_INTERRUPTED : GB_EXIT_IO;
            }
        }
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
            if (n || b[i].status == GB_EXIT_CHECK_FAILED) {
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

static int prepare_outputs(build *b, const ab_opts *o, char *err, size_t errlen)
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
            return snprintf(err, errlen, "cannot create results/: %s", strerror(errno)), -1;
        snprintf(prefix, sizeof prefix, "results/ab-%s", stamp);
    }
    for (int i = 0; i < 2; i++) {
        struct stat st;
        snprintf(b[i].output, sizeof b[i].output, "%s-%s.json", prefix, i ? "new" : "old");
        if (stat(b[i].output, &st) == 0 && !o->force)
            return snprintf(err, errlen, "%s exists (use --force to overwrite it)",
                            b[i].output), -1;
    }
    return 0;
}

int gb_cmd_ab(int argc, char **argv)
{
    static ab_opts o;
    build b[2] = { { "OLD", NULL, "", "", -1, -1, -1, 0, 0 },
                   { "NEW", NULL, "", "", -1, -1, -1, 0, 0 } };
    char err[GB_ERR_LEN + 2 * PATH_MAX];
    int status;

    if (argc > 2 && (strcmp(argv[2], "-h") == 0 || strcmp(argv[2], "--help") == 0)) {
        fputs(ab_usage, stdout);
        return gb_finish_stdout("ab");
    }
    if (argc < 4)
        return gb_usage("ab", "expected two gemmbench builds, OLD and NEW");
    memset(&o, 0, sizeof o);
    o.rounds = AB_DEFAULT_ROUNDS;
    o.threshold_pct = GB_AB_THRESHOLD_PCT;
    o.alpha = GB_COMPARE_ALPHA;
    o.format = GB_FMT_TABLE;
    if (parse_ab(argc, argv, &o, err, sizeof err) != 0)
        return gb_usage("ab", "%s", err);
    b[0].path = argv[2];
    b[1].path = argv[3];
    for (int i = 0; i < 2; i++) {
        int rc = check_executable(&b[i], err, sizeof err);
        if (rc == 0)
            rc = check_gemmbench(&b[i], err, sizeof err);
        if (rc != 0)
            return gb_fail(rc == -3 ? GB_EXIT_IO : GB_EXIT_USAGE, "ab", "%s", err);
    }
    if (prepare_outputs(b, &o, err, sizeof err) != 0)
        return gb_fail(GB_EXIT_USAGE, "ab", "%s", err);

    gb_catch_interrupts();
    status = run_rounds(b, &o, err, sizeof err);
    if (status != GB_EXIT_OK && status != GB_EXIT_INTERRUPTED)
        gb_fail(status, "ab", "%s", err);
    for (int i = 0; i < 2; i++) {
        if (status != GB_EXIT_OK && b[i].pid > 0 && !b[i].exited)
            kill(b[i].pid, SIGINT);   /* stop after the measurement under way */
        finish(&b[i]);
        if (status == GB_EXIT_OK && b[i].status != GB_EXIT_OK &&
            b[i].status != GB_EXIT_CHECK_FAILED) {
            char why[1024];
            last_words(&b[i], why, sizeof why);
            status = gb_fail(GB_EXIT_IO, "ab", "%s ended with exit %d: %s", b[i].name,
                             b[i].status, why);
        }
    }
    if (status == GB_EXIT_OK || status == GB_EXIT_INTERRUPTED) {
        if (b[0].pid > 0 && b[1].pid > 0)
            status = judge(b, &o, status);
        if (gb_interrupted)
            gb_fail(GB_EXIT_INTERRUPTED, "ab", "interrupted; what was measured is in %s and %s",
                    b[0].output, b[1].output);
    }
    for (int i = 0; i < 2; i++)
        if (b[i].errlog[0])
            unlink(b[i].errlog);
    if (!o.quiet && status != GB_EXIT_USAGE)
        fprintf(stderr, "gemmbench: ab: results in %s and %s\n", b[0].output, b[1].output);
    return status;
}
