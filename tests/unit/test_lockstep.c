/* test_lockstep.c - gemmbench ab's turns (lockstep.c) with two fake builds:
 * forked processes that speak the protocol through the real build-side
 * functions and log every turn they are given to one shared file. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lockstep.h"
#include "test.h"

/* Slices per entry of the fake OLD and NEW (1: the entry in one turn). */
static int old_slices = 1, new_slices = 1;

/* A fake build: its plan, then a turn per key, each logged "NAME KEY"; with
 * slices, "NAME KEY S" for every slice S and a "wait more" between them. */
static void fake_build(const char *name, const char *const *plan, int n, int logfd)
{
    char what[16], line[64];
    int slices = strcmp(name, "OLD") == 0 ? old_slices : new_slices;

    for (int i = 0; i < n; i++)
        if (gb_lockstep_say("plan %s", plan[i]) != 0)
            _exit(3);
    if (gb_lockstep_wait("setup") != 0)
        _exit(4);
    for (int i = 0; i < n; i++) {
        snprintf(what, sizeof what, "%d", i);
        if (gb_lockstep_wait(what) != 0)
            _exit(5);
        for (int s = 0; s < slices; s++) {
            if (s > 0 && gb_lockstep_wait("more") != 0)
                _exit(8);
            if (slices > 1)
                snprintf(line, sizeof line, "%s %s %d\n", name, plan[i], s);
            else
                snprintf(line, sizeof line, "%s %s\n", name, plan[i]);
            if (write(logfd, line, strlen(line)) < 0)
                _exit(6);
        }
    }
    if (gb_lockstep_wait("done") != 0)
        _exit(7);
    _exit(0);
}

static void start(gb_lockstep_child *c, const char *name, const char *const *plan, int n,
                  int logfd)
{
    int down[2], up[2];
    pid_t pid;

    CHECK(pipe(down) == 0 && pipe(up) == 0);
    pid = fork();
    if (pid == 0) {
        /* Everything out of the way of 3 and 4 first (the log may be 3). */
        int in = fcntl(down[0], F_DUPFD, 10), out = fcntl(up[1], F_DUPFD, 10);
        logfd = fcntl(logfd, F_DUPFD, 10);
        setpgid(0, 0);
        dup2(in, GB_LOCKSTEP_IN);
        dup2(out, GB_LOCKSTEP_OUT);
        close(down[1]);
        close(up[0]);
        fake_build(name, plan, n, logfd);
    }
    setpgid(pid, pid);
    close(down[0]);
    close(up[1]);
    *c = (gb_lockstep_child){ .name = name, .pid = pid, .to = down[1], .from = up[0] };
}

/* The state letter of /proc/PID/stat: 'T' when stopped. */
static char state_of(pid_t pid)
{
    char path[64], buf[256], *close_paren;
    FILE *f;
    size_t n;

    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if ((f = fopen(path, "r")) == NULL)
        return '?';
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    close_paren = strrchr(buf, ')');
    return close_paren && close_paren[1] == ' ' ? close_paren[2] : '?';
}

typedef struct watch {
    gb_lockstep_child *c;
    int turns, both_stopped;
} watch;

/* Between turns, neither build may run. */
static void on_turn(void *arg, int done, int total)
{
    watch *w = arg;

    (void)done;
    (void)total;
    w->turns++;
    w->both_stopped += state_of(w->c[0].pid) == 'T' && state_of(w->c[1].pid) == 'T';
}

/* Runs a round of the two plans; the log of turns in *log (caller frees). */
static int run_round(const char *const *old_plan, int nold, const char *const *new_plan,
                     int nnew, char **log, watch *w)
{
    char path[] = "/tmp/gemmbench-lockstep-XXXXXX";
    int logfd = mkstemp(path), rc, status[2];
    gb_lockstep_child c[2];
    unsigned rng = 12345;
    FILE *f;
    long len;

    CHECK(logfd >= 0);
    start(&c[0], "OLD", old_plan, nold, logfd);
    start(&c[1], "NEW", new_plan, nnew, logfd);
    w->c = c;
    rc = gb_lockstep_round(c, &rng, on_turn, w, &(volatile sig_atomic_t){ 0 });
    for (int i = 0; i < 2; i++) {
        status[i] = gb_lockstep_finish(&c[i]);
        CHECK_EQ_INT(status[i], 0);
        gb_lockstep_free(&c[i]);
    }
    f = fdopen(logfd, "r");
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    rewind(f);
    *log = calloc(1, (size_t)len + 1);
    CHECK(fread(*log, 1, (size_t)len, f) == (size_t)len);
    fclose(f);
    unlink(path);
    return rc;
}

/* The same plan: every key measured by both builds back to back, and neither
 * running between turns. */
TEST(lockstep_same_plan_pairs_every_entry)
{
    static const char *const plan[] = { "a", "b", "c", "d", "e", "f" };
    watch w = { 0 };
    char *log, *line;
    int n = 0, pairs = 0, first_old = 0;
    char names[16][4], keys[16][4];

    CHECK_EQ_INT(run_round(plan, 6, plan, 6, &log, &w), 0);
    for (line = strtok(log, "\n"); line && n < 16; line = strtok(NULL, "\n"), n++)
        CHECK(sscanf(line, "%3s %3s", names[n], keys[n]) == 2);
    CHECK_EQ_INT(n, 12);
    for (int i = 0; i + 1 < n; i += 2) {
        pairs += strcmp(keys[i], keys[i + 1]) == 0 && strcmp(names[i], names[i + 1]) != 0 &&
                 strcmp(keys[i], plan[i / 2]) == 0;
        first_old += strcmp(names[i], "OLD") == 0;
    }
    CHECK_EQ_INT(pairs, 6);
    /* A fresh random order per entry: over six entries both orders occur. */
    CHECK(first_old > 0 && first_old < 6);
    /* Turns: six paired entries, stopped in between every time. */
    CHECK_EQ_INT(w.turns, 6);
    CHECK_EQ_INT(w.both_stopped, 6);
    free(log);
}

/* An entry of NEW only goes alone, at its place; the rest stay paired. */
TEST(lockstep_entry_of_one_build_goes_alone)
{
    static const char *const old_plan[] = { "a", "b", "c" };
    static const char *const new_plan[] = { "a", "x", "b", "c" };
    watch w = { 0 };
    char *log;

    CHECK_EQ_INT(run_round(old_plan, 3, new_plan, 4, &log, &w), 0);
    /* a twice, x once (NEW), then b twice, then c twice, in that order. */
    CHECK(strstr(log, "NEW x\n") != NULL);
    {
        const char *x = strstr(log, "NEW x\n"), *b = strstr(log, " b\n"),
                   *a1 = strstr(log, " a\n"), *a2 = a1 ? strstr(a1 + 1, " a\n") : NULL;
        CHECK(a2 != NULL && x != NULL && b != NULL && a2 < x && x < b);
    }
    CHECK_EQ_INT(w.turns, 4);
    free(log);
}

/* The same entries in another order: each build still measures each once. */
TEST(lockstep_other_order_measures_everything)
{
    static const char *const old_plan[] = { "a", "b", "c" };
    static const char *const new_plan[] = { "c", "b", "a" };
    static const char *const expect[] = { "OLD a", "OLD b", "OLD c", "NEW a", "NEW b", "NEW c" };
    watch w = { 0 };
    char *log;

    CHECK_EQ_INT(run_round(old_plan, 3, new_plan, 3, &log, &w), 0);
    for (int i = 0; i < 6; i++) {
        char want[16];
        snprintf(want, sizeof want, "%s\n", expect[i]);
        CHECK(strstr(log, want) != NULL);
    }
    free(log);
}

/* Slices: an entry's turns alternate slice by slice (a fresh order for every
 * pair), the next entry waits until both are done with this one, and the
 * build with more slices goes on alone once the other has none left. */
TEST(lockstep_slices_alternate_within_an_entry)
{
    static const char *const plan[] = { "a", "b" };
    watch w = { 0 };
    char *log, *line, names[32][4], keys[32][4];
    int slice[32], n = 0, both_orders[2] = { 0, 0 };

    old_slices = 4;
    new_slices = 6;
    CHECK_EQ_INT(run_round(plan, 2, plan, 2, &log, &w), 0);
    old_slices = new_slices = 1;
    for (line = strtok(log, "\n"); line && n < 32; line = strtok(NULL, "\n"), n++)
        CHECK(sscanf(line, "%3s %3s %d", names[n], keys[n], &slice[n]) == 3);
    CHECK_EQ_INT(n, 20);
    for (int e = 0; e < 2; e++) {
        const int *s = slice + 10 * e;
        char (*nm)[4] = names + 10 * e;
        /* All of a's slices before any of b's. */
        for (int i = 0; i < 10; i++)
            CHECK(strcmp(keys[10 * e + i], plan[e]) == 0);
        /* Four pairs: one slice of each build, in either order ... */
        for (int i = 0; i < 8; i += 2) {
            CHECK(strcmp(nm[i], nm[i + 1]) != 0);
            CHECK_EQ_INT(s[i], i / 2);
            CHECK_EQ_INT(s[i + 1], i / 2);
            both_orders[strcmp(nm[i], "OLD") == 0]++;
        }
        /* ... then NEW's last two alone. */
        CHECK(strcmp(nm[8], "NEW") == 0 && strcmp(nm[9], "NEW") == 0);
        CHECK(s[8] == 4 && s[9] == 5);
    }
    CHECK(both_orders[0] > 0 && both_orders[1] > 0);
    free(log);
}
