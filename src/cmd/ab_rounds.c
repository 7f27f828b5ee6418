/*
 * ab_rounds.c - gemmbench ab's builds and rounds; see ab_rounds.h.
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

#include "ab_rounds.h"
#include "command.h"
#include "compare.h"
#include "harness.h"
#include "lockstep.h"
#include "output.h"
#include "parse.h"
#include "settings.h"
#include "stats.h"

/* ---- the builds ----------------------------------------------------------------- */

int gb_ab_check_executable(const build *b, char *err, size_t errlen)
{
    struct stat st;
    char shown[4200];

    gb_printable(b->path, sizeof shown, shown, sizeof shown);
    if (stat(b->path, &st) != 0)
        return snprintf(err, errlen, "%s '%s': %s", b->name, shown, strerror(errno)), -1;
    if (!S_ISREG(st.st_mode) || access(b->path, X_OK) != 0)
        return snprintf(err, errlen, "%s '%s' is not an executable file", b->name, shown),
               -1;
    return 0;
}

/* Reads one line from fd into buf within timeout_ms in all (a build that
 * writes a byte now and then does not stretch the bound).  0; -1 at end of
 * file or on an error; -2 at the timeout. */
static int read_line(int fd, char *buf, size_t len, int timeout_ms)
{
    double deadline = gb_now() + timeout_ms / 1e3;
    size_t n = 0;

    while (n < len - 1) {
        int left_ms = (int)((deadline - gb_now()) * 1e3);
        if (left_ms <= 0)
            return -2;
        struct pollfd p = { fd, POLLIN, 0 };
        int ready = poll(&p, 1, left_ms);
        ssize_t got;
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready == 0)
            return -2;
        if (ready < 0 || (got = read(fd, buf + n, 1)) <= 0)
            return -1;
        if (buf[n] == '\n')
            break;
        n++;
    }
    buf[n] = '\0';
    return 0;
}

/* `BUILD --version` must say it is gemmbench, within the probes' bound. */
int gb_ab_check_gemmbench(const build *b, char *err, size_t errlen)
{
    int fd[2], status, got;
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
    got = read_line(fd[0], line, sizeof line, gb_ab_probe_timeout_s() * 1000);
    if (got != 0)
        line[0] = '\0';
    close(fd[0]);
    kill(pid, SIGKILL);   /* done with it whatever it was */
    waitpid(pid, &status, 0);
    /* Both are the user's text: escaped as every message shows it. */
    char path[4200], said[256];
    gb_printable(b->path, sizeof path, path, sizeof path);
    if (got == -2)
        return snprintf(err, errlen, "%s '%s' did not answer --version within %d s", b->name,
                        path, gb_ab_probe_timeout_s()), -1;
    if (strncmp(line, "gemmbench ", 10) != 0) {
        gb_printable(line, 60, said, sizeof said);
        return snprintf(err, errlen, "%s '%s' is not gemmbench (--version printed '%s')",
                        b->name, path, said), -1;
    }
    return 0;
}

/* Whether b knows run option opt (with value val, or none): `BUILD OPT [VAL]
 * --help` exits 0; an older build refuses the option. */
int gb_ab_probe_timeout_s(void)
{
    const char *env = getenv("GEMMBENCH_AB_PROBE_TIMEOUT");
    char *end;
    long s = env ? strtol(env, &end, 10) : 0;

    /* 1..600 s from the environment (the tests' hung build: 2 s), else 10 */
    if (env == NULL || end == env || *end != '\0' || s < 1 || s > 600)
        return AB_PROBE_TIMEOUT_S;
    return (int)s;
}

int gb_ab_accepts(const build *b, const char *opt, const char *val)
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
    /* Bounded, as --version's read is: a build (or a wrapper) that hangs
     * here would hang ab before its first round. */
    const int bound_ms = gb_ab_probe_timeout_s() * 1000;
    for (int waited_ms = 0;; waited_ms += 10) {
        pid_t got = waitpid(pid, &status, WNOHANG);
        if (got == pid)
            return WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (got < 0 && errno != EINTR)
            return 0;
        if (waited_ms >= bound_ms) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
            return -1;
        }
        usleep(10000);
    }
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

/* run.ab in a build's file: which run it was measured in and on which
 * side, so that `history add --anchor` can tell ab's two files of one run
 * from two files of two runs. */
static void stamp_pair(build *b, const ab_opts *o)
{
    cJSON *run = cJSON_GetObjectItemCaseSensitive(b->merged.doc, "run"), *ab;

    if (!cJSON_IsObject(run))
        return;
    cJSON_DeleteItemFromObjectCaseSensitive(run, "ab");
    if ((ab = cJSON_AddObjectToObject(run, "ab")) == NULL)
        return;
    cJSON_AddStringToObject(ab, "pair", o->pair_id);
    cJSON_AddStringToObject(ab, "side", strcmp(b->name, "OLD") == 0 ? "old" : "new");
    cJSON_AddNumberToObject(ab, "rounds", o->rounds);
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
        snprintf(err, errlen, "%s '%s' did not run the sweep: %s", b->name, b->shown, why);
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
        stamp_pair(b, o);
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
int gb_ab_run_rounds(build *b, const ab_opts *o, char *err, size_t errlen)
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

