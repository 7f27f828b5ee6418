/*
 * history_confirm.c - `gemmbench history confirm|bisect --store DIR
 * BEFORE..AFTER [-- ab options]`: a change point is a claim about two runs
 * measured apart; confirming it measures both builds side by side, as
 * Chromium's Pinpoint does, with gemmbench ab.  Each commit is checked out
 * in a git worktree under a temporary folder (never the user's tree),
 * built there with make, and every worktree is removed at the end, on a
 * failure or an interrupt as well.  bisect halves the commits between
 * BEFORE and AFTER (git rev-list --ancestry-path), measuring each middle
 * one against BEFORE, and names the first slow commit.  Loading a store
 * for analysis (gb_history_load) lives here too, so that history_cmd.c
 * calls this file and not the other way round.
 */
#define _GNU_SOURCE
#include "command.h"
#include "history_cmd.h"
#include "parse.h"
#include "settings.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The store, its annotations and their analysis are loaded here, for
 * confirm and bisect and for history_cmd.c's changes and html: history_cmd.c
 * calls this file, never the other way. */
/* The store, its annotations and the analysis, for changes, html, confirm
 * and bisect; the exit status (GB_EXIT_OK: all three filled). */
int gb_history_load(const gb_history_args *a, const char *cmd, gb_history_store *s,
                    gb_history_annotations *notes, gb_history_view *v)
{
    char err[GB_ERR_LEN + 4200];
    gb_history_opts o = { a->threshold_pct, a->alpha, a->machine, a->best };
    int rc;

    if (gb_history_store_read(a->store, s, err, sizeof err) != 0)
        return gb_fail(GB_EXIT_USAGE, cmd, "%s", err);
    if (gb_history_annotations_read(a->store, notes, err, sizeof err) != 0) {
        gb_history_store_free(s);
        return gb_fail(GB_EXIT_USAGE, cmd, "%s", err);
    }
    if ((rc = gb_history_analyse(s, notes, &o, v, err, sizeof err)) != 0) {
        gb_history_annotations_free(notes);
        gb_history_store_free(s);
        return gb_fail(GB_EXIT_IO, cmd, "%s", err);
    }
    return GB_EXIT_OK;
}

void gb_history_unload(gb_history_store *s, gb_history_annotations *notes, gb_history_view *v)
{
    gb_history_view_free(v);
    gb_history_annotations_free(notes);
    gb_history_store_free(s);
}

#define MAX_BUILDS 64            /* bisect of 2^60 commits needs fewer */
#define MAX_ARGS 256

typedef struct session {
    const char *cmd;             /* "history confirm" or "history bisect" */
    char repo[4096], tmp[4096], self[4096];
    char *worktrees[MAX_BUILDS];
    int nworktrees;
    char *select[MAX_ARGS];      /* ab's selection: --variant ... --shape ... */
    int nselect;
} session;

/* Once gemmbench was told to stop (gb_interrupted), the child pid is told
 * too, once: a SIGTERM sent to gemmbench alone, not to its process group,
 * would otherwise wait out a whole build (make passes SIGTERM on to its
 * compilers; ab stops after its round). */
static void pass_on_stop(pid_t pid, int *told)
{
    if (gb_interrupted && !*told) {
        kill(pid, SIGTERM);
        *told = 1;
    }
}

/* Runs argv; stdout and stderr into log (appended) unless log is NULL; with
 * capture, stdout into capture[0..len) instead and stderr dropped (git's own
 * "fatal: ..." is not this command's message: the caller says what failed).
 * The exit status, 128 + the signal, or -1 when it could not start. */
static int run(char *const argv[], const char *log, char *capture, size_t len)
{
    int fds[2] = { -1, -1 }, status, told = 0;
    pid_t pid;

    if (capture && pipe(fds) != 0)
        return -1;
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (capture) {
            int null = open("/dev/null", O_WRONLY);
            dup2(fds[1], 1);
            if (null >= 0)
                dup2(null, 2);
            close(fds[0]);
            close(fds[1]);
        } else if (log) {
            FILE *f = fopen(log, "a");
            if (f == NULL)
                _exit(127);
            dup2(fileno(f), 1);
            dup2(fileno(f), 2);
        }
        execvp(argv[0], argv);
        _exit(127);
    }
    if (capture) {
        size_t got = 0;
        ssize_t n;
        close(fds[1]);
        while ((n = read(fds[0], capture + got, len - 1 - got)) > 0 || (n < 0 && errno == EINTR)) {
            if (n > 0)
                got += (size_t)n;
            pass_on_stop(pid, &told);
        }
        capture[got] = '\0';
        while (got > 0 && (capture[got - 1] == '\n' || capture[got - 1] == '\r'))
            capture[--got] = '\0';
        close(fds[0]);
    }
    pass_on_stop(pid, &told);   /* a signal before the wait began */
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return -1;
        pass_on_stop(pid, &told);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Removes every worktree made and the temporary folder. */
static void clean_up(session *s)
{
    for (int i = 0; i < s->nworktrees; i++) {
        char *rm[] = { "git", "-C", s->repo, "worktree", "remove", "--force", s->worktrees[i], NULL };
        run(rm, "/dev/null", NULL, 0);
        free(s->worktrees[i]);
    }
    s->nworktrees = 0;
    if (s->tmp[0]) {
        char *rm[] = { "rm", "-rf", s->tmp, NULL };
        char *prune[] = { "git", "-C", s->repo, "worktree", "prune", NULL };
        run(rm, "/dev/null", NULL, 0);
        run(prune, "/dev/null", NULL, 0);
        s->tmp[0] = '\0';
    }
    for (int i = 0; i < s->nselect; i++)
        free(s->select[i]);
    s->nselect = 0;
}

/* The full hash of rev in the repository; 0, or -1. */
static int resolve(session *s, const char *rev, char *hash, size_t len)
{
    char spec[512];
    snprintf(spec, sizeof spec, "%s^{commit}", rev);
    char *argv[] = { "git", "-C", s->repo, "rev-parse", "--verify", "--quiet", spec, NULL };
    return run(argv, NULL, hash, len) == 0 && strlen(hash) >= 7 ? 0 : -1;
}

/* Checks out and builds rev; bin gets its gemmbench.  The exit status. */
static int build(session *s, const char *rev, char *bin, size_t len)
{
    char path[4200], log[4200];

    if (s->nworktrees == MAX_BUILDS)
        return gb_fail(GB_EXIT_IO, s->cmd, "more than %d builds", MAX_BUILDS);
    snprintf(path, sizeof path, "%s/wt%d", s->tmp, s->nworktrees);
    snprintf(log, sizeof log, "%s/build%d.log", s->tmp, s->nworktrees);
    char *add[] = { "git", "-C", s->repo, "worktree", "add", "--detach", "--quiet", path,
                    (char *)rev, NULL };
    if (run(add, log, NULL, 0) != 0)
        return gb_fail(GB_EXIT_IO, s->cmd, "cannot check out %.40s in a worktree", rev);
    s->worktrees[s->nworktrees++] = strdup(path);
    fprintf(stderr, "gemmbench: %s: building %.12s\n", s->cmd, rev);
    char *make[] = { "make", "-C", path, "-j2", "all", NULL };
    int rc = run(make, log, NULL, 0);
    if (gb_interrupted)
        return GB_EXIT_INTERRUPTED;
    if (rc != 0)
        return gb_fail(GB_EXIT_IO, s->cmd, "%.12s does not build (make exit %d)", rev, rc);
    snprintf(bin, len, "%s/build/gemmbench", path);
    if (access(bin, X_OK) != 0)
        return gb_fail(GB_EXIT_IO, s->cmd, "%.12s built no build/gemmbench", rev);
    return GB_EXIT_OK;
}

/* gemmbench ab OLD NEW on the selection; ab's exit status (0 not slower,
 * 1 slower); its output on stdout, or in log when log is given. */
static int ab(session *s, const gb_history_args *a, const char *old_bin, const char *new_bin,
              const char *log)
{
    char *argv[MAX_ARGS * 2], threshold[32], prefix[4200];
    int n = 0;

    snprintf(threshold, sizeof threshold, "%g", a->threshold_pct);
    snprintf(prefix, sizeof prefix, "%s/ab%d", s->tmp, s->nworktrees);
    argv[n++] = s->self;
    argv[n++] = "ab";
    argv[n++] = (char *)old_bin;
    argv[n++] = (char *)new_bin;
    for (int i = 0; i < s->nselect; i++)
        argv[n++] = s->select[i];
    argv[n++] = "--threshold";
    argv[n++] = threshold;
    argv[n++] = "--output";
    argv[n++] = prefix;
    argv[n++] = "--force";
    argv[n++] = "--quiet";
    for (int i = 0; i < a->nab_args && n < MAX_ARGS * 2 - 1; i++)
        argv[n++] = a->ab_args[i];
    argv[n] = NULL;
    fflush(stdout);
    return run(argv, log, NULL, 0);
}

static int add_select(session *s, const char *flag, const char *value)
{
    if (s->nselect + 2 > MAX_ARGS)
        return -1;
    s->select[s->nselect++] = strdup(flag);
    s->select[s->nselect++] = strdup(value);
    return 0;
}

/* The entries the change moved, as ab's selection: every series with a
 * change between before and after; how many. */
static int select_entries(session *s, const gb_history_view *v, const char *before,
                          const char *after)
{
    char variants[2048] = "", threads[256] = "", types[64] = "";
    int found = 0, cold = 0, typed = 0;

    for (int c = 0; c < v->nchanges; c++) {
        const gb_history_change *ch = &v->changes[c];
        const gb_history_point *pts = v->points[ch->series];
        const gb_history_series *se = &v->store->series[ch->series];
        char shape[64], t[16];
        if (!gb_history_commit_matches(pts[ch->at - 1].commit, before) ||
            !gb_history_commit_matches(pts[ch->at].commit, after))
            continue;
        found++;
        if (!strstr(variants, se->label))
            gb_list_append(variants, sizeof variants, se->label);
        if (!strstr(types, gb_dtype_name(se->dtype)))
            gb_list_append(types, sizeof types, gb_dtype_name(se->dtype));
        typed |= se->dtype != GB_DTYPE_F32;
        snprintf(t, sizeof t, "%d", se->threads);
        if (!strstr(threads, t))
            gb_list_append(threads, sizeof threads, t);
        snprintf(shape, sizeof shape, "%dx%dx%d", se->M, se->K, se->N);
        int seen = 0;
        for (int i = 0; i + 1 < s->nselect; i += 2)
            seen |= strcmp(s->select[i + 1], shape) == 0;
        if (!seen)
            add_select(s, "--shape", shape);
        cold |= se->cold;
    }
    if (found) {
        add_select(s, "--variant", variants);
        add_select(s, "--threads", threads);
        /* The rerun measures the changed series' types (run's default: f32). */
        if (typed)
            add_select(s, "--dtype", types);
        if (cold)
            add_select(s, "--cache", "cold");
    }
    return found;
}

static int confirm_or_bisect(session *s, const gb_history_args *a, const char *before,
                             const char *after, int bisect)
{
    char old_hash[128], new_hash[128], old_bin[4400], new_bin[4400], log[4200];
    char *list = NULL;
    int rc;

    if (resolve(s, before, old_hash, sizeof old_hash) != 0 ||
        resolve(s, after, new_hash, sizeof new_hash) != 0)
        return gb_fail(GB_EXIT_USAGE, s->cmd, "%.40s or %.40s is not a commit of %s", before,
                       after, s->repo);
    snprintf(s->tmp, sizeof s->tmp, "%s/gemmbench-history-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (mkdtemp(s->tmp) == NULL) {
        s->tmp[0] = '\0';
        return gb_fail(GB_EXIT_IO, s->cmd, "cannot make a temporary folder: %s", strerror(errno));
    }
    if ((rc = build(s, old_hash, old_bin, sizeof old_bin)) != GB_EXIT_OK ||
        (rc = build(s, new_hash, new_bin, sizeof new_bin)) != GB_EXIT_OK)
        return rc;
    printf("%s: gemmbench ab %.12s %.12s on the entries the change moved\n", s->cmd, old_hash,
           new_hash);
    rc = ab(s, a, old_bin, new_bin, NULL);
    if (gb_interrupted)
        return GB_EXIT_INTERRUPTED;
    if (rc != 0 && rc != 1)
        return gb_fail(GB_EXIT_IO, s->cmd, "gemmbench ab failed (exit %d)", rc);
    printf("%s: %s\n", s->cmd, rc == 1 ? "confirmed: AFTER is slower side by side"
                                       : "not confirmed: ab finds AFTER no slower");
    if (!bisect || rc == 0)
        return rc;

    /* The commits after BEFORE up to AFTER, oldest first. */
    size_t cap = 1 << 20;
    char range[300];
    list = malloc(cap);
    if (list == NULL)
        return gb_fail(GB_EXIT_IO, s->cmd, "out of memory");
    snprintf(range, sizeof range, "%s..%s", old_hash, new_hash);
    char *revlist[] = { "git", "-C", s->repo, "rev-list", "--reverse", "--ancestry-path", range, NULL };
    if (run(revlist, NULL, list, cap) != 0) {
        free(list);
        return gb_fail(GB_EXIT_IO, s->cmd, "git rev-list %s failed", range);
    }
    char *commits[4096];
    int n = 0;
    for (char *tok = strtok(list, "\n"); tok && n < 4096; tok = strtok(NULL, "\n"))
        commits[n++] = tok;
    /* commits[lo] is no slower than BEFORE (lo = -1: BEFORE itself),
     * commits[hi] is slower (hi = n - 1: AFTER, just confirmed). */
    int lo = -1, hi = n - 1;
    snprintf(log, sizeof log, "%s/bisect.log", s->tmp);
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        char mid_bin[4400];
        if ((rc = build(s, commits[mid], mid_bin, sizeof mid_bin)) != GB_EXIT_OK) {
            free(list);
            return rc;
        }
        rc = ab(s, a, old_bin, mid_bin, log);
        if (gb_interrupted) {
            free(list);
            return GB_EXIT_INTERRUPTED;
        }
        if (rc != 0 && rc != 1) {
            free(list);
            return gb_fail(GB_EXIT_IO, s->cmd, "gemmbench ab failed on %.12s (exit %d)",
                           commits[mid], rc);
        }
        printf("%s: %.12s %s\n", s->cmd, commits[mid], rc == 1 ? "slower" : "not slower");
        if (rc == 1)
            hi = mid;
        else
            lo = mid;
    }
    printf("%s: first slow commit: %s\n", s->cmd, commits[hi]);
    free(list);
    return GB_EXIT_CHECK_FAILED;
}

int gb_history_confirm(const gb_history_args *a, const char *change, int bisect)
{
    static session s;
    gb_history_store store;
    gb_history_annotations notes;
    gb_history_view v;
    char before[GB_HISTORY_LABEL_MAX + 1], after[GB_HISTORY_LABEL_MAX + 1], shown[300];
    const char *dots = strstr(change, "..");
    int status;
    ssize_t len;

    memset(&s, 0, sizeof s);
    s.cmd = bisect ? "history bisect" : "history confirm";
    gb_printable(change, 256, shown, sizeof shown);
    if (dots == NULL || dots == change || dots[2] == '\0' ||
        (size_t)(dots - change) > GB_HISTORY_LABEL_MAX || strlen(dots + 2) > GB_HISTORY_LABEL_MAX)
        return gb_usage(s.cmd, "'%s' is not a change BEFORE..AFTER", shown);
    snprintf(before, sizeof before, "%.*s", (int)(dots - change), change);
    snprintf(after, sizeof after, "%s", dots + 2);
    if ((status = gb_history_load(a, s.cmd, &store, &notes, &v)) != GB_EXIT_OK)
        return status;
    if (select_entries(&s, &v, before, after) == 0) {
        gb_history_unload(&store, &notes, &v);
        clean_up(&s);
        return gb_fail(GB_EXIT_USAGE, s.cmd, "no change %s in %s (history changes lists them)",
                       shown, a->store);
    }
    gb_history_unload(&store, &notes, &v);
    len = readlink("/proc/self/exe", s.self, sizeof s.self - 1);
    s.self[len > 0 ? len : 0] = '\0';
    char *top[] = { "git", "rev-parse", "--show-toplevel", NULL };
    if (len <= 0 || run(top, NULL, s.repo, sizeof s.repo) != 0 || s.repo[0] == '\0') {
        clean_up(&s);
        return gb_fail(GB_EXIT_USAGE, s.cmd, "run it inside the git repository of the commits");
    }
    gb_catch_interrupts();
    status = confirm_or_bisect(&s, a, before, after, bisect);
    clean_up(&s);
    if (status <= 1 && gb_finish_stdout(s.cmd) != GB_EXIT_OK)
        return GB_EXIT_IO;
    return status;
}
