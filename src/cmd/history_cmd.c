/*
 * history_cmd.c - `gemmbench history ACTION --store DIR ...`: add result
 * files to a store, find the change points of its series, draw them into
 * one offline page; confirm and bisect a change (history_confirm.c).  The
 * store is history_store.c's, the statistics changepoint.c's, the output
 * history.c's and history_html.c's.
 */
#define _GNU_SOURCE
#include "command.h"
#include "history.h"
#include "history_cmd.h"
#include "parse.h"
#include "settings.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char history_intro[] =
    "usage: gemmbench history add --store DIR [--commit REV] [--date ISO8601] FILE...\n"
    "       gemmbench history add --store DIR [--commit REV] [--date ISO8601]\n"
    "                             --anchor PREFIX-old.json PREFIX-new.json\n"
    "       gemmbench history changes --store DIR [--format table|json] [--threshold PCT]\n"
    "                                 [--value median|best]\n"
    "       gemmbench history html --store DIR -o FILE.html\n"
    "       gemmbench history confirm --store DIR BEFORE..AFTER [-- ab options]\n"
    "       gemmbench history bisect --store DIR BEFORE..AFTER [-- ab options]\n"
    "\n"
    "Keeps result files over commits and finds where a series changed.  add copies\n"
    "files into the store (runs/MACHINE/DATE-COMMIT-HASH.json, a line each in\n"
    "index.jsonl); a file already there is left as it is.  changes splits every\n"
    "series (machine, variant, shape, threads, cache) at its change points: E-divisive\n"
    "means, a t-test on the per-commit medians with the rounds as each point's noise,\n"
    "the false discovery rate over the series (src/analysis/history.md); the store's\n"
    "annotations.json marks known changes and ranges to leave out.  html draws every\n"
    "series into one page that needs no network.  confirm builds BEFORE and AFTER in\n"
    "git worktrees outside this tree and measures the affected entries with\n"
    "gemmbench ab; bisect does it along the commits between them and names the\n"
    "first slow one.\n"
    "\n";

static const char history_outro[] =
    "\n"
    "exit status: 0 done (changes: no unannotated slowdown past --threshold; confirm:\n"
    "not confirmed), 1 changes: such a slowdown, confirm: ab found AFTER slower, bisect:\n"
    "a first slow commit named, 2 usage or input error (one line naming it), 3 I/O\n"
    "error, 130 interrupted\n";

static int store_setting(void *target, const gb_setting *s, const gb_setting_value *v,
                         char *err, size_t errlen)
{
    gb_history_args *a = target;

    switch (s->id) {
    case GB_SET_STORE: a->store = v->text; break;
    case GB_SET_COMMIT: a->commit = v->text; break;
    case GB_SET_DATE: a->date = v->text; break;
    case GB_SET_MACHINE: a->machine = v->text; break;
    case GB_SET_ANCHOR: a->anchor = v->text; break;
    case GB_SET_ANCHOR_COMMIT: a->anchor_commit = v->text; break;
    case GB_SET_THRESHOLD: a->threshold_pct = v->real; break;
    case GB_SET_ALPHA: a->alpha = v->real; break;
    case GB_SET_VALUE: a->best = v->number == 1; break;
    case GB_SET_FORMAT: a->json = v->format == GB_FMT_JSON; break;
    case GB_SET_OUTPUT: a->output = v->text; break;
    case GB_SET_FORCE: a->force = 1; break;
    case GB_SET_HELP: a->help = 1; break;
    default:
        snprintf(err, errlen, "%s is not an option of history", v->name);
        return -1;
    }
    return 0;
}

/* add --anchor: ab's two files as one paired point. */
static int action_add_pair(const gb_history_args *a, char **files, int n)
{
    gb_history_add_opts o = { a->commit, a->date, a->machine, a->anchor_commit };
    gb_history_input anchor, newer;
    gb_history_pair_row *rows = NULL;
    gb_history_added out;
    char err[GB_ERR_LEN + 4200], shown[600];
    int nrows = 0, rc;

    if (n != 1)
        return gb_usage("history add", "--anchor takes one more file, the pair's NEW "
                                       "(PREFIX-new.json); %d given", n);
    if (gb_history_input_read(a->anchor, &anchor, err, sizeof err) != 0)
        return gb_fail(GB_EXIT_USAGE, "history add", "%s", err);
    if (gb_history_input_read(files[0], &newer, err, sizeof err) != 0) {
        gb_history_input_free(&anchor);
        return gb_fail(GB_EXIT_USAGE, "history add", "%s", err);
    }
    if (anchor.len == newer.len && memcmp(anchor.text, newer.text, anchor.len) == 0) {
        snprintf(err, sizeof err, "%s: the same file as --anchor: not a pair", newer.f.path);
        rc = -1;
    } else {
        rc = gb_history_pair(&anchor.f, &newer.f, &rows, &nrows, err, sizeof err);
    }
    if (rc == 0)
        rc = gb_history_add_pair(a->store, &anchor, &newer, rows, nrows, &o, &out, err, sizeof err);
    free(rows);
    gb_history_input_free(&anchor);
    gb_history_input_free(&newer);
    if (rc != 0)
        return gb_fail(rc == -2 || errno == ENOSPC || errno == EIO ? GB_EXIT_IO : GB_EXIT_USAGE,
                       "history add", "%s", err);
    gb_printable(files[0], 512, shown, sizeof shown);
    printf("%s %s (paired, %d entries) as %s\n",
           out.duplicate ? "unchanged (already stored):" : "added", shown, nrows, out.stored_as);
    return gb_finish_stdout("history add");
}

static int action_add(const gb_history_args *a, char **files, int n)
{
    gb_history_add_opts o = { a->commit, a->date, a->machine, NULL };
    gb_history_added *out;
    char err[GB_ERR_LEN + 4200], shown[600];
    int rc;

    if (n == 0)
        return gb_usage("history add", "expected one or more result files");
    if ((out = calloc((size_t)n, sizeof *out)) == NULL)
        return gb_fail(GB_EXIT_IO, "history add", "out of memory");
    rc = gb_history_add(a->store, files, n, &o, out, err, sizeof err);
    if (rc != 0) {
        free(out);
        /* A file refused, or the store malformed, is input; else the disk. */
        return gb_fail(rc == -2 || errno == ENOSPC || errno == EIO ? GB_EXIT_IO : GB_EXIT_USAGE,
                       "history add", "%s", err);
    }
    for (int i = 0; i < n; i++) {
        gb_printable(files[i], 512, shown, sizeof shown);
        printf("%s %s as %s\n", out[i].duplicate ? "unchanged (already stored):" : "added",
               shown, out[i].stored_as);
    }
    free(out);
    return gb_finish_stdout("history add");
}

static int action_changes(const gb_history_args *a)
{
    gb_history_store s;
    gb_history_annotations notes;
    gb_history_view v;
    int status = gb_history_load(a, "history changes", &s, &notes, &v);

    if (status != GB_EXIT_OK)
        return status;
    if (gb_history_write_changes(stdout, a->json, &v) != 0)
        status = gb_fail(GB_EXIT_IO, "history changes", "out of memory");
    else
        status = gb_finish_stdout("history changes");
    if (status == GB_EXIT_OK && v.ngate)
        status = GB_EXIT_CHECK_FAILED;
    gb_history_unload(&s, &notes, &v);
    return status;
}

/* Whether path names one of the store's own files: its index, marker,
 * lock or annotations, or anything in a folder below it (a stored run).
 * A page beside them, in the store's own folder, is where
 * scripts/history-commits.sh keeps it. */
static int inside_store(const char *store, const char *path)
{
    static const char *const own[] = { "index.jsonl", "store.json", ".lock",
                                       "annotations.json" };
    char *dir = strdup(path), *slash, *real_store, *real_dir;
    const char *name;
    size_t n;
    int inside = 0;

    if (dir == NULL)
        return 0;
    slash = strrchr(dir, '/');
    name = slash ? path + (slash - dir) + 1 : path;
    if (slash == NULL)
        snprintf(dir, strlen(dir) + 1, ".");
    else
        slash[slash == dir] = '\0'; /* "/x": the root */
    real_store = realpath(store, NULL);
    real_dir = realpath(dir, NULL);
    if (real_store && real_dir) {
        n = strlen(real_store);
        if (strcmp(real_dir, real_store) == 0) {
            for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
                inside |= strcmp(name, own[i]) == 0;
        } else {
            inside = strncmp(real_dir, real_store, n) == 0 &&
                     (real_dir[n] == '/' || (n == 1 && real_dir[1] != '\0'));
        }
    }
    free(real_store);
    free(real_dir);
    free(dir);
    return inside;
}

static int action_html(const gb_history_args *a)
{
    gb_history_store s;
    gb_history_annotations notes;
    gb_history_view v;
    char tmp[4200], shown[600];
    FILE *out;
    int fd, status;

    if (a->output == NULL || a->output[0] == '\0')
        return gb_usage("history html", "expected -o FILE.html");
    gb_printable(a->output, 512, shown, sizeof shown);
    if (a->store && inside_store(a->store, a->output))
        return gb_fail(GB_EXIT_USAGE, "history html", "%s is one of the store's own files (not "
                       "replaced, even with --force): the page is drawn from them",
                       shown);
    struct stat st;
    if (lstat(a->output, &st) == 0) {
        /* --force replaces a page, never a device, FIFO, link or folder. */
        if (!S_ISREG(st.st_mode))
            return gb_fail(GB_EXIT_USAGE, "history html", "%s exists and is not a regular file "
                                                         "(not replaced, even with --force)", shown);
        if (!a->force)
            return gb_fail(GB_EXIT_USAGE, "history html", "%s exists (--force replaces it)", shown);
    }
    if ((status = gb_history_load(a, "history html", &s, &notes, &v)) != GB_EXIT_OK)
        return status;
    /* A temporary file beside the page, renamed over it when whole. */
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", a->output);
    fd = mkstemp(tmp);
    out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (out == NULL) {
        status = gb_fail(GB_EXIT_IO, "history html", "cannot write %s: %s", shown,
                         strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
    } else {
        int failed = gb_history_write_html(out, &v) != 0;
        failed |= fflush(out) != 0 || fsync(fileno(out)) != 0;
        failed |= fclose(out) != 0;
        if (failed || chmod(tmp, 0644) != 0 || rename(tmp, a->output) != 0) {
            unlink(tmp);
            status = gb_fail(GB_EXIT_IO, "history html", "cannot write %s", shown);
        } else {
            printf("wrote %s\n", shown);
            status = gb_finish_stdout("history html");
        }
    }
    gb_history_unload(&s, &notes, &v);
    return status;
}

int gb_cmd_history(int argc, char **argv)
{
    static gb_history_args a;
    char err[GB_ERR_LEN + 4200];
    int first, tail = argc, nops;
    const char *action;

    memset(&a, 0, sizeof a);
    gb_settings_defaults(GB_CMD_HISTORY, store_setting, &a, err, sizeof err);
    /* What follows `--` is ab's (confirm, bisect): kept from getopt. */
    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], "--") == 0) {
            tail = i;
            break;
        }
    a.ab_args = argv + (tail < argc ? tail + 1 : argc);
    a.nab_args = tail < argc ? argc - tail - 1 : 0;
    first = gb_settings_parse_args(GB_CMD_HISTORY, tail - 1, argv + 1, 0, store_setting, &a,
                                   err, sizeof err);
    if (first < 0)
        return gb_usage("history", "%s", err);
    if (a.help)
        return gb_help_command("history", GB_CMD_HISTORY, history_intro, history_outro);
    first++;   /* back to argv's numbering */
    nops = tail - first;
    if (nops < 1)
        return gb_usage("history", "expected an action: add, changes, html, confirm or bisect");
    action = argv[first];
    if (a.store == NULL || a.store[0] == '\0')
        return gb_usage("history", "%s needs --store DIR", action);
    if (a.nab_args && strcmp(action, "confirm") != 0 && strcmp(action, "bisect") != 0)
        return gb_usage("history", "options after -- are ab's: confirm and bisect only");
    if (strcmp(action, "add") == 0) {
        if (a.anchor_commit && !a.anchor)
            return gb_usage("history", "--anchor-commit needs --anchor");
        return a.anchor ? action_add_pair(&a, argv + first + 1, nops - 1)
                        : action_add(&a, argv + first + 1, nops - 1);
    }
    if (a.commit || a.date || a.anchor || a.anchor_commit)
        return gb_usage("history", "--commit, --date, --anchor and --anchor-commit are add's");
    if (strcmp(action, "changes") == 0 || strcmp(action, "html") == 0) {
        if (nops != 1)
            return gb_usage("history", "%s takes no operand", action);
        return action[0] == 'c' ? action_changes(&a) : action_html(&a);
    }
    if (strcmp(action, "confirm") == 0 || strcmp(action, "bisect") == 0) {
        if (nops != 2)
            return gb_usage("history", "%s takes one change, BEFORE..AFTER", action);
        return gb_history_confirm(&a, argv[first + 1], action[0] == 'b');
    }
    gb_printable(action, 64, err, sizeof err);
    return gb_usage("history", "unknown action '%s' (add, changes, html, confirm, bisect)", err);
}
