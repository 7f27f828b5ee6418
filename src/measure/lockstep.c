/* lockstep.c - gemmbench ab's two builds taking turns; see lockstep.h. */
#define _GNU_SOURCE
#include "lockstep.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the build's side ---------------------------------------------------------- */

int gb_lockstep_check(char *err, size_t errlen)
{
    if (fcntl(GB_LOCKSTEP_IN, F_GETFD) < 0 || fcntl(GB_LOCKSTEP_OUT, F_GETFD) < 0) {
        snprintf(err, errlen, "--lockstep is for gemmbench ab (file descriptors %d and %d "
                 "are not open)", GB_LOCKSTEP_IN, GB_LOCKSTEP_OUT);
        return -1;
    }
    return 0;
}

static int write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

int gb_lockstep_say(const char *fmt, ...)
{
    char line[GB_LOCKSTEP_KEY_LEN + 16];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof line - 1)
        return -1;
    line[n++] = '\n';
    return write_all(GB_LOCKSTEP_OUT, line, (size_t)n);
}

/* Reads one line (without its newline) from fd, waiting as long as it takes.
 * 0; -1 at end of file or on an error; -2 when *interrupted was raised. */
static int read_line(int fd, char *buf, size_t len, volatile sig_atomic_t *interrupted)
{
    size_t n = 0;

    for (;;) {
        struct pollfd p = { fd, POLLIN, 0 };
        ssize_t got;
        if (interrupted && *interrupted)
            return -2;
        if (poll(&p, 1, -1) < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        got = read(fd, buf + n, 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        if (buf[n] == '\n')
            break;
        if (n < len - 1)
            n++;             /* a longer line is cut, and cannot match a key */
    }
    buf[n] = '\0';
    return 0;
}

int gb_lockstep_wait(const char *what)
{
    char line[16];

    if (gb_lockstep_say("wait %s", what) != 0)
        return -1;
    /* Not interruptible here: Ctrl-C reaches ab, which closes the pipe. */
    if (read_line(GB_LOCKSTEP_IN, line, sizeof line, NULL) != 0)
        return -1;
    return strcmp(line, "go") == 0 ? 0 : -1;
}

double gb_lockstep_slice(void)
{
    const char *s = getenv(GB_LOCKSTEP_SLICE_ENV);
    char *end;
    double v;

    if (s == NULL)
        return 0.0;
    v = strtod(s, &end);
    return end != s && *end == '\0' && v > 0.0 && v <= 1.0 ? v : 0.0;
}

/* ---- ab's side --------------------------------------------------------------- */

static void signal_group(gb_lockstep_child *c, int sig)
{
    if (c->pid > 0 && !c->reaped)
        kill(-c->pid, sig);
}

/* Reads c's next line: "wait ..." sets c->next; anything else, or the end of
 * its pipe, marks it gone.  -2 when interrupted. */
static int hear(gb_lockstep_child *c, volatile sig_atomic_t *interrupted)
{
    char line[GB_LOCKSTEP_KEY_LEN + 16], *end;
    long i;
    int rc = read_line(c->from, line, sizeof line, interrupted);

    if (rc == -2)
        return -2;
    c->more = 0;
    if (rc != 0 || strncmp(line, "wait ", 5) != 0) {
        c->gone = 1;
        return 0;
    }
    if (strcmp(line + 5, "more") == 0) {
        c->more = c->next >= 0 && c->next < c->nplan;
        if (!c->more)
            c->gone = 1;     /* more of nothing: not the protocol */
        return 0;
    }
    if (strcmp(line + 5, "setup") == 0) {
        c->next = -1;
        return 0;
    }
    if (strcmp(line + 5, "done") == 0) {
        c->next = c->nplan;
        return 0;
    }
    errno = 0;
    i = strtol(line + 5, &end, 10);
    if (errno || *end || end == line + 5 || i < 0 || i >= c->nplan)
        c->gone = 1;         /* not the protocol: treated as a build that stopped */
    else
        c->next = (int)i;
    return 0;
}

/* The plan lines, up to "wait setup".  0, -1 out of memory, -2 interrupted. */
static int read_plan(gb_lockstep_child *c, volatile sig_atomic_t *interrupted)
{
    char line[GB_LOCKSTEP_KEY_LEN + 16];
    int cap = 0, rc;

    while ((rc = read_line(c->from, line, sizeof line, interrupted)) == 0 &&
           strncmp(line, "plan ", 5) == 0) {
        if (c->nplan == cap) {
            char **grown = realloc(c->plan, (size_t)(cap = cap ? 2 * cap : 64) * sizeof *grown);
            if (grown == NULL)
                return -1;
            c->plan = grown;
        }
        if ((c->plan[c->nplan] = strdup(line + 5)) == NULL)
            return -1;
        c->nplan++;
    }
    if (rc == -2)
        return -2;
    if (rc != 0 || strcmp(line, "wait setup") != 0)
        c->gone = 1;
    c->next = -1;
    return 0;
}

static int exit_status(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Stops c and waits until it has stopped: kill() only sends the signal.
 * (A wrapper script's own children are stopped with it, as one group.) */
static void stop(gb_lockstep_child *c)
{
    int status;

    signal_group(c, SIGSTOP);
    for (;;) {
        if (waitpid(c->pid, &status, WUNTRACED) < 0) {
            if (errno == EINTR)
                continue;
            c->gone = 1;
            return;
        }
        if (WIFSTOPPED(status)) {
            c->stopped = 1;
            return;
        }
        if (WIFEXITED(status) || WIFSIGNALED(status)) {
            c->gone = c->reaped = 1;
            c->status = exit_status(status);
            return;
        }
    }
}

/* c's turn: continue it, "go", hear what it waits for next, stop it again. */
static int turn(gb_lockstep_child *c, volatile sig_atomic_t *interrupted)
{
    int rc;

    if (c->stopped) {
        signal_group(c, SIGCONT);
        c->stopped = 0;
    }
    if (write_all(c->to, "go\n", 3) != 0) {
        c->gone = 1;
        return 0;
    }
    rc = hear(c, interrupted);
    if (rc == 0 && !c->gone)
        stop(c);
    return rc;
}

static int finished(const gb_lockstep_child *c)
{
    return c->gone || c->next >= c->nplan;
}

/* In the middle of an entry: it did a slice and waits for the next. */
static int mid_entry(const gb_lockstep_child *c)
{
    return c->more && !c->gone;
}

static const char *waiting_key(const gb_lockstep_child *c)
{
    return finished(c) || c->next < 0 ? NULL : c->plan[c->next];
}

/* Whether key is still to come in c's round. */
static int still_to_come(const gb_lockstep_child *c, const char *key)
{
    if (finished(c))
        return 0;
    for (int i = c->next; i < c->nplan; i++)
        if (strcmp(c->plan[i], key) == 0)
            return 1;
    return 0;
}

static int coin(unsigned *rng)
{
    *rng = *rng * 1103515245u + 12345u;
    return (int)(*rng >> 16 & 1);
}

/* Both in a fresh random order. */
static int both_turns(gb_lockstep_child c[2], unsigned *rng, volatile sig_atomic_t *interrupted)
{
    int first = coin(rng);

    if (turn(&c[first], interrupted) == -2)
        return -2;
    return turn(&c[!first], interrupted);
}

int gb_lockstep_round(gb_lockstep_child c[2], unsigned *rng,
                      void (*on_turn)(void *arg, int done, int total), void *arg,
                      volatile sig_atomic_t *interrupted)
{
    int done = 0, total;

    for (int i = 0; i < 2; i++) {
        int rc = read_plan(&c[i], interrupted);
        if (rc != 0)
            return rc == -2 ? -1 : -2;
    }
    total = c[0].nplan + c[1].nplan;
    /* Setup (the first round measures each build's peak) one after the other. */
    if (both_turns(c, rng, interrupted) == -2)
        return -1;
    while (!finished(&c[0]) || !finished(&c[1])) {
        const char *k0 = waiting_key(&c[0]), *k1 = waiting_key(&c[1]);
        int rc;
        if (mid_entry(&c[0]) || mid_entry(&c[1])) {
            /* The next slices of the entry under way, and nothing else
             * until both are done with it. */
            if (mid_entry(&c[0]) && mid_entry(&c[1]))
                rc = both_turns(c, rng, interrupted);
            else
                rc = turn(&c[mid_entry(&c[0]) ? 0 : 1], interrupted);
            if (rc == -2 || *interrupted)
                return -1;
            continue;
        }
        if (k0 && k1 && strcmp(k0, k1) == 0) {
            rc = both_turns(c, rng, interrupted);
            done += 2;
        } else {
            /* An entry of one build only, or the two sweeps in another order:
             * one goes alone, the one whose entry the other will not reach. */
            int alone = k0 && (!k1 || !still_to_come(&c[1], k0)) ? 0
                      : k1 && (!k0 || !still_to_come(&c[0], k1)) ? 1
                      : k0 ? 0 : 1;
            rc = turn(&c[alone], interrupted);
            done++;
        }
        if (rc == -2 || *interrupted)
            return -1;
        if (on_turn)
            on_turn(arg, done < total ? done : total, total);
    }
    return 0;
}

static int reap(gb_lockstep_child *c)
{
    int status;

    if (c->to >= 0)
        close(c->to);
    c->to = -1;
    if (!c->reaped) {
        while (waitpid(c->pid, &status, 0) < 0)
            if (errno != EINTR) {
                status = 127 << 8;
                break;
            }
        c->status = exit_status(status);
        c->reaped = 1;
    }
    c->pid = 0;
    if (c->from >= 0)
        close(c->from);
    c->from = -1;
    return c->status;
}

int gb_lockstep_finish(gb_lockstep_child *c)
{
    if (c->stopped) {
        signal_group(c, SIGCONT);
        c->stopped = 0;
    }
    if (!c->gone && write_all(c->to, "go\n", 3) != 0)
        c->gone = 1;
    return reap(c);
}

int gb_lockstep_abandon(gb_lockstep_child *c)
{
    signal_group(c, SIGINT);
    signal_group(c, SIGCONT);
    c->stopped = 0;
    return reap(c);
}

void gb_lockstep_free(gb_lockstep_child *c)
{
    for (int i = 0; i < c->nplan; i++)
        free(c->plan[i]);
    free(c->plan);
    c->plan = NULL;
    c->nplan = 0;
}
