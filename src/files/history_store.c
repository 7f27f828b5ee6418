/* history_store.c - adding to the store of `gemmbench history`: result
 * files kept as they are, keyed (machine, commit, date, hash), each
 * written whole and renamed, then the index rewritten whole under the
 * store's lock; the layout is history_layout.c's, the index line
 * history_index.c's (history_parts.h, history_store.h,
 * src/analysis/history.md). */
#define _GNU_SOURCE
#include "history_parts.h"
#include "inputfile.h"
#include "output.h"
#include "parse.h"
#include "sha256.h"
#include "text.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- adding ---------------------------------------------------------------------- */

static int by_hash(const void *a, const void *b)
{
    return memcmp(a, b, 64);
}

/* The hashes of the index's lines, sorted (64 bytes each, no terminator). */
static char *index_hashes(const char *index, size_t len, int *count)
{
    size_t cap = 64, n = 0;
    char *h = malloc(cap * 64);
    const char *p = index, *end = index + len;
    size_t head = strlen(LINE_HEAD);

    while (h && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (nl == NULL)
            nl = end;
        if ((size_t)(nl - p) > head + 64 && memcmp(p, LINE_HEAD, head) == 0) {
            if (n == cap) {
                char *grown = realloc(h, cap * 2 * 64);
                if (grown == NULL) {
                    free(h);
                    return NULL;
                }
                h = grown;
                cap *= 2;
            }
            memcpy(h + n * 64, p + head, 64);
            n++;
        }
        p = nl + 1;
    }
    if (h)
        qsort(h, n, 64, by_hash);
    *count = (int)n;
    return h;
}

int gb_history_input_read(const char *path, gb_history_input *in, char *err, size_t errlen)
{
    memset(in, 0, sizeof *in);
    in->text = gb_read_regular(path, GB_RESULT_FILE_MAX, err, errlen);
    if (in->text == NULL)
        return -1;
    in->len = strlen(in->text);
    if (gb_result_file_parse(path, in->text, &in->f, err, errlen) != 0) {
        free(in->text);
        in->text = NULL;
        return -1;
    }
    return 0;
}

void gb_history_input_free(gb_history_input *in)
{
    if (in->text)
        gb_result_file_free(&in->f);
    free(in->text);
    memset(in, 0, sizeof *in);
}

void gb_history_commit_of(const gb_result_file *f, const char *given, char *out, size_t len)
{
    if (given)
        snprintf(out, len, "%s", given);
    else if (f->git_commit)
        snprintf(out, len, "%s%s", f->git_commit, f->git_dirty ? "-dirty" : "");
    else
        snprintf(out, len, "%s", f->git ? f->git : "");
}

static void sha_hex(const char *text, size_t len, char out[65])
{
    unsigned char digest[32];

    gb_sha256(text, len, digest);
    gb_sha256_hex(digest, out);
}

/* One file to add, keyed; a pair's anchor file rides along. */
typedef struct pending {
    const char *text;    /* the bytes, as they are stored */
    size_t len;
    char sha[65];
    char *line;          /* its index line */
    int skip;            /* a duplicate */
    const char *anchor_text;   /* a pair's anchor file, stored beside it */
    size_t anchor_len;
    char anchor_as[520];
} pending;

/* The machine a file is kept under without --machine: its hostname and,
 * where it recorded one, its CPU's kind (machine.cpu_id's family and model,
 * or an Arm core's implementer and part: "vm-f26m2"), since guests of
 * different CPUs share a hostname (every VM of this farm is "vm") and one
 * series across two kinds would read the change of kind as a step.  The
 * stepping (a revision of one design) stays out.  NULL: no hostname. */
static const char *default_machine(const gb_result_file *fp, char *buf, size_t len)
{
    int family, model;
    char implementer[24], part[24];

    if (fp->hostname == NULL)
        return NULL;
    if (fp->cpu_id && sscanf(fp->cpu_id, "cpu family %d, model %d", &family, &model) == 2)
        snprintf(buf, len, "%s-f%dm%d", fp->hostname, family, model);
    else if (fp->cpu_id && sscanf(fp->cpu_id, "CPU implementer %23[0-9a-fA-Fx], CPU part "
                                              "%23[0-9a-fA-Fx]", implementer, part) == 2)
        snprintf(buf, len, "%s-%s-%s", fp->hostname, implementer, part);
    else
        snprintf(buf, len, "%s", fp->hostname);
    return buf;
}

static int key_file(const gb_history_input *in, const gb_history_add_opts *o,
                    const gb_history_input *anchor, const gb_history_pair_row *rows, int nrows,
                    pending *pf, gb_history_added *out, char *err, size_t errlen)
{
    const gb_result_file *fp = &in->f;
    char commit[GB_HISTORY_LABEL_MAX + 16], anchor_commit[GB_HISTORY_LABEL_MAX + 16];
    char date[24], machine_dir[80], commit_dir[80], anchor_sha[65] = "", kind[320];
    const char *machine, *date_text;
    int dirty;

    pf->text = in->text;
    pf->len = in->len;
    sha_hex(in->text, in->len, pf->sha);
    dirty = fp->git_dirty;
    machine = o->machine ? o->machine : default_machine(fp, kind, sizeof kind);
    gb_history_commit_of(fp, o->commit, commit, sizeof commit);
    /* A dirty tree's code is of no commit: its date is the run's. */
    date_text = o->date ? o->date : (fp->git_date && !dirty) ? fp->git_date : fp->started;
    if (machine == NULL || !hs_label_ok(machine)) {
        snprintf(err, errlen, "%s: no usable machine name (give --machine NAME)", fp->path);
        return -1;
    }
    if (!hs_label_ok(commit)) {
        snprintf(err, errlen, "%s: no usable commit (give --commit REV: 1 to %d printable "
                              "characters)", fp->path, GB_HISTORY_LABEL_MAX);
        return -1;
    }
    if (date_text == NULL || gb_history_date(date_text, date) != 0) {
        snprintf(err, errlen, "%s: no ISO 8601 date (give --date, e.g. 2026-11-26T14:03:11Z)",
                 fp->path);
        return -1;
    }
    if (fp->nentries == 0) {
        snprintf(err, errlen, "%s: no results to keep", fp->path);
        return -1;
    }
    for (int i = 0; i < fp->nentries; i++)
        if (!gb_history_text_ok(fp->entries[i].label, GB_HISTORY_NAME_MAX) ||
            !gb_history_text_ok(fp->entries[i].kernel, GB_HISTORY_NAME_MAX)) {
            snprintf(err, errlen, "%s: result %d's label or kernel is empty, over %d bytes or "
                                  "holds a control character", fp->path, i + 1, GB_HISTORY_NAME_MAX);
            return -1;
        }
    if (anchor) {
        gb_history_commit_of(&anchor->f, o->anchor_commit, anchor_commit, sizeof anchor_commit);
        if (!hs_label_ok(anchor_commit)) {
            snprintf(err, errlen, "%s: no usable anchor commit (give --anchor-commit REV: 1 to "
                                  "%d printable characters)", anchor->f.path, GB_HISTORY_LABEL_MAX);
            return -1;
        }
        sha_hex(anchor->text, anchor->len, anchor_sha);
    }
    hs_path_safe(machine, machine_dir, sizeof machine_dir);
    hs_path_safe(commit, commit_dir, sizeof commit_dir);
    /* runs/MACHINE/YYYYMMDDThhmmssZ-COMMIT-HASH12.json: by machine, then
     * in date order in a listing, unique by content. */
    snprintf(out->stored_as, sizeof out->stored_as, "runs/%s/%.4s%.2s%.2sT%.2s%.2s%.2sZ-%s-%.12s.json",
             machine_dir, date, date + 5, date + 8, date + 11, date + 14, date + 17,
             commit_dir, pf->sha);
    if (anchor) {
        /* NAME.anchor.json beside NAME.json: the pair stays together. */
        snprintf(pf->anchor_as, sizeof pf->anchor_as, "%.*s.anchor.json",
                 (int)(strlen(out->stored_as) - 5), out->stored_as);
        pf->anchor_text = anchor->text;
        pf->anchor_len = anchor->len;
    }
    pf->line = hs_index_line(fp, pf->sha, out->stored_as, machine, commit, date, dirty,
                             anchor ? anchor_commit : NULL, anchor_sha, pf->anchor_as,
                             anchor ? rows : NULL, nrows);
    if (pf->line == NULL) {
        snprintf(err, errlen, "%s: out of memory", fp->path);
        return -2;
    }
    return 0;
}

/* Writes the keyed files pf[0..n) and their index lines into the store,
 * under its lock.  0, or -1 / -2 with err. */
static int store_pending(const char *dir, pending *pf, int n, gb_history_added *out, char *err,
                         size_t errlen)
{
    char *index = NULL, *hashes = NULL, *text = NULL, path[4200];
    size_t index_len = 0, used, cap;
    int lock = -1, nhashes = 0, rc = -1, added = 0;

    if ((lock = hs_open_store(dir, 1, err, errlen)) < 0)
        goto out;
    if ((index = hs_read_index(dir, &index_len, err, errlen)) == NULL)
        goto out;
    if ((hashes = index_hashes(index, index_len, &nhashes)) == NULL) {
        snprintf(err, errlen, "out of memory");
        rc = -2;
        goto out;
    }
    cap = index_len + 2;
    for (int i = 0; i < n; i++) {
        pf[i].skip = bsearch(pf[i].sha, hashes, (size_t)nhashes, 64, by_hash) != NULL;
        for (int j = 0; j < i && !pf[i].skip; j++)
            pf[i].skip = !pf[j].skip && strcmp(pf[i].sha, pf[j].sha) == 0;
        out[i].duplicate = pf[i].skip;
        if (!pf[i].skip)
            cap += strlen(pf[i].line) + 1;
    }
    for (int i = 0; i < n; i++) {
        if (pf[i].skip)
            continue;
        char folder[600];
        snprintf(path, sizeof path, "%s/%s", dir, out[i].stored_as);
        snprintf(folder, sizeof folder, "%s", out[i].stored_as);
        *strrchr(folder, '/') = '\0';
        if (hs_make_dirs_inside(dir, folder, err, errlen) != 0 ||
            gb_write_file_atomic(path, pf[i].text, pf[i].len, err, errlen) != 0)
            goto out;
        if (pf[i].anchor_text) {
            snprintf(path, sizeof path, "%s/%s", dir, pf[i].anchor_as);
            if (gb_write_file_atomic(path, pf[i].anchor_text, pf[i].anchor_len, err, errlen) != 0)
                goto out;
        }
        added++;
    }
    if (added == 0) {
        rc = 0;
        goto out;
    }
    /* The index: the old lines as they were, the new ones after. */
    text = malloc(cap);
    if (text == NULL) {
        snprintf(err, errlen, "out of memory");
        rc = -2;
        goto out;
    }
    memcpy(text, index, index_len);
    used = index_len;
    if (used > 0 && text[used - 1] != '\n')
        text[used++] = '\n';
    for (int i = 0; i < n; i++) {
        if (pf[i].skip)
            continue;
        size_t l = strlen(pf[i].line);
        memcpy(text + used, pf[i].line, l);
        used += l;
        text[used++] = '\n';
    }
    snprintf(path, sizeof path, "%s/%s", dir, INDEX_NAME);
    rc = gb_write_file_atomic(path, text, used, err, errlen);
out:
    free(index);
    free(hashes);
    free(text);
    if (lock >= 0)
        close(lock);
    return rc;
}

static int check_date_option(const gb_history_add_opts *o, char *err, size_t errlen)
{
    char check[24];

    if (o->date && gb_history_date(o->date, check) != 0) {
        snprintf(err, errlen, "--date is not an ISO 8601 date");
        return -1;
    }
    return 0;
}

int gb_history_add_pair(const char *dir, const gb_history_input *anchor,
                        const gb_history_input *newer, const gb_history_pair_row *rows, int nrows,
                        const gb_history_add_opts *o, gb_history_added *out, char *err,
                        size_t errlen)
{
    pending pf;
    int rc;

    memset(&pf, 0, sizeof pf);
    memset(out, 0, sizeof *out);
    if (check_date_option(o, err, errlen) != 0)
        return -1;
    if ((rc = key_file(newer, o, anchor, rows, nrows, &pf, out, err, errlen)) == 0)
        rc = store_pending(dir, &pf, 1, out, err, errlen);
    free(pf.line);
    return rc;
}

int gb_history_add(const char *dir, char *const *paths, int n, const gb_history_add_opts *o,
                   gb_history_added *out, char *err, size_t errlen)
{
    pending *pf = calloc((size_t)(n > 0 ? n : 1), sizeof *pf);
    gb_history_input *in = calloc((size_t)(n > 0 ? n : 1), sizeof *in);
    int rc = -1;

    if (pf == NULL || in == NULL) {
        free(pf);
        free(in);
        snprintf(err, errlen, "out of memory");
        return -2;
    }
    if (check_date_option(o, err, errlen) != 0)
        goto out;
    /* Every file read once and checked before the store is touched. */
    for (int i = 0; i < n; i++) {
        memset(&out[i], 0, sizeof out[i]);
        if (gb_history_input_read(paths[i], &in[i], err, errlen) != 0) {
            rc = -1;
            goto out;
        }
        if ((rc = key_file(&in[i], o, NULL, NULL, 0, &pf[i], &out[i], err, errlen)) != 0)
            goto out;
    }
    rc = store_pending(dir, pf, n, out, err, errlen);
out:
    for (int i = 0; i < n; i++) {
        free(pf[i].line);
        gb_history_input_free(&in[i]);
    }
    free(pf);
    free(in);
    return rc;
}
