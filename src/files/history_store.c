/* history_store.c - the store of `gemmbench history`: result files kept as
 * they are, and the index that lets a reader skip them; see
 * history_store.h and src/analysis/history.md.  One file of about 1,000
 * lines: the store's layout, its lock, its link-proof folders and reads,
 * its writes (each whole, then renamed), the index line of a plain or a
 * paired point and the index's reader are one format, kept by one owner
 * as resultfile.c keeps the result file's; split, the line's writer and
 * its reader would drift apart. */
#define _GNU_SOURCE
#include "history_store.h"
#include "inputfile.h"
#include "output.h"
#include "parse.h"
#include "resultfile.h"
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

#define INDEX_NAME "index.jsonl"
#define MARKER_NAME "store.json"
#define LOCK_NAME ".lock"
#define NO_LOCK (-2)     /* open_store for a reader: no lock to take, read anyway */
/* The index of 10,000 full sweeps is some 100 MB; refuse what no store holds. */
#define INDEX_MAX (4L * 1024 * 1024 * 1024)
/* Every index line begins so, its hash at a fixed place: adding a file
 * finds duplicates without parsing the index. */
#define LINE_HEAD "{\"sha256\":\""

/* ---- small helpers ------------------------------------------------------------- */

/* mkdir -p of the store's own folder (the user's path: a link there is
 * the user's choice). */
static int make_dirs(const char *path, char *err, size_t errlen)
{
    char buf[4200];
    size_t len = strlen(path);

    if (len >= sizeof buf) {
        snprintf(err, errlen, "path too long: %s", path);
        return -1;
    }
    memcpy(buf, path, len + 1);
    for (size_t i = 1; i <= len; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char saved = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "cannot create %s: %s", buf, strerror(errno));
            return -1;
        }
        buf[i] = saved;
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: not a directory", path);
        return -1;
    }
    return 0;
}

/* mkdir -p of rel inside the store dir, each folder a real one: a store
 * is committed by whoever can push, and a planted link (runs/MACHINE ->
 * elsewhere) would send a write out of it. */
static int make_dirs_inside(const char *dir, const char *rel, char *err, size_t errlen)
{
    char buf[4200];
    int n = snprintf(buf, sizeof buf, "%s/%s", dir, rel);
    size_t start = strlen(dir) + 1;

    if (n < 0 || (size_t)n >= sizeof buf) {
        snprintf(err, errlen, "path too long: %s/%s", dir, rel);
        return -1;
    }
    for (size_t i = start; i <= (size_t)n; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char saved = buf[i];
        struct stat st;
        buf[i] = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "cannot create %s: %s", buf, strerror(errno));
            return -1;
        }
        if (lstat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "%s: not a directory (a store's folders are never links)", buf);
            return -1;
        }
        buf[i] = saved;
    }
    return 0;
}

/* A label as a path component: letters, digits, '.', '-', '_' kept, the
 * rest '_'; never empty, never "." or "..". */
static void path_safe(const char *label, char *out, size_t len)
{
    size_t n = 0;

    for (; *label && n + 1 < len && n < 64; label++)
        out[n++] = (isalnum((unsigned char)*label) || *label == '-' || *label == '_' ||
                    *label == '.')
                       ? *label
                       : '_';
    out[n] = '\0';
    if (n == 0 || strspn(out, ".") == n)
        snprintf(out, len, "_");
}

/* Text the store keeps and prints (the table goes to a terminal): 1 to max
 * bytes of UTF-8, no control character (text.h). */
int gb_history_text_ok(const char *text, size_t max)
{
    return gb_text_printable(text, max);
}

/* A label the store keys files by (a machine, a commit). */
static int label_ok(const char *label)
{
    return gb_history_text_ok(label, GB_HISTORY_LABEL_MAX);
}

/* An entry's variant label and kernel: the series key holds both. */
#define GB_HISTORY_NAME_MAX 256

static int digits(const char *s, int n, int *out)
{
    int v = 0;

    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

int gb_history_date(const char *text, char out[24])
{
    struct tm tm;
    int y, mo, d, h = 0, mi = 0, s = 0, offset = 0;
    const char *p = text;
    time_t t;

    memset(&tm, 0, sizeof tm);
    if (strlen(text) < 10 || digits(p, 4, &y) || p[4] != '-' || digits(p + 5, 2, &mo) ||
        p[7] != '-' || digits(p + 8, 2, &d))
        return -1;
    p += 10;
    if (*p == 'T' || *p == ' ') {
        if (digits(p + 1, 2, &h) || p[3] != ':' || digits(p + 4, 2, &mi))
            return -1;
        p += 6;
        if (*p == ':') {
            if (digits(p + 1, 2, &s))
                return -1;
            p += 3;
            if (*p == '.' || *p == ',') {
                p++;
                if (!isdigit((unsigned char)*p))
                    return -1;
                while (isdigit((unsigned char)*p))
                    p++;
            }
        }
        if (*p == 'Z') {
            p++;
        } else if (*p == '+' || *p == '-') {
            int oh, om, sign = *p == '-' ? -1 : 1;
            if (digits(p + 1, 2, &oh) || p[3] != ':' || digits(p + 4, 2, &om) || oh > 23 ||
                om > 59)
                return -1;
            offset = sign * (oh * 3600 + om * 60);
            p += 6;
        }
    }
    if (*p != '\0' || y < 1970 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > 31 ||
        h > 23 || mi > 59 || s > 60)
        return -1;
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = s;
    t = timegm(&tm);
    /* timegm normalizes 31 February into March: a date that moved was wrong. */
    struct tm back;
    if (t == (time_t)-1 || gmtime_r(&t, &back) == NULL || back.tm_mday != d ||
        back.tm_mon != mo - 1)
        return -1;
    t -= offset;
    /* The offset may carry the date out of what the reader takes. */
    if (gmtime_r(&t, &back) == NULL || back.tm_year + 1900 < 1970 || back.tm_year + 1900 > 9999 ||
        strftime(out, 24, "%Y-%m-%dT%H:%M:%SZ", &back) == 0)
        return -1;
    return 0;
}

/* ---- one entry's figures for the index ------------------------------------------- */

static int by_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* The spread and noise of e: from its rounds' medians when it has two or
 * more, else from its calls (a --rounds 1 file); -1 when out of memory. */
static int entry_noise(const gb_entry *e, double *lo, double *hi, double *se2)
{
    const double *src = e->round_medians;
    int n = 0, from_rounds = 0;
    double *v;

    for (int r = 0; r < e->nrounds; r++)
        from_rounds += isfinite(e->round_medians[r]) && e->round_medians[r] > 0.0;
    if (from_rounds < 2) {
        src = e->samples_us;
        from_rounds = 0;
    }
    int count = from_rounds ? e->nrounds : e->nsamples;
    v = malloc((size_t)(count > 0 ? count : 1) * sizeof *v);
    if (v == NULL)
        return -1;
    for (int i = 0; i < count; i++)
        if (isfinite(src[i]) && src[i] > 0.0)
            v[n++] = log(src[i]);
    *lo = *hi = e->median_us;
    *se2 = 0.0;
    if (n >= 2) {
        double *dev = malloc((size_t)n * sizeof *dev), med, mad;
        if (dev == NULL) {
            free(v);
            return -1;
        }
        qsort(v, (size_t)n, sizeof *v, by_double);
        med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
        for (int i = 0; i < n; i++)
            dev[i] = fabs(v[i] - med);
        qsort(dev, (size_t)n, sizeof *dev, by_double);
        mad = n % 2 ? dev[n / 2] : 0.5 * (dev[n / 2 - 1] + dev[n / 2]);
        free(dev);
        /* The median's variance, pi/2 sigma^2 / n, sigma from the MAD
         * (1.4826 MAD for normal noise): one slow round (the first, warming
         * caches) moves it no more than it moves the median. */
        *se2 = 1.5707963 * (1.4826 * mad) * (1.4826 * mad) / n;
        if (from_rounds) {
            *lo = exp(v[0]);
            *hi = exp(v[n - 1]);
        } else {
            *lo = exp(v[(int)floor(0.1 * (n - 1))]);
            *hi = exp(v[(int)ceil(0.9 * (n - 1))]);
        }
    }
    free(v);
    return 0;
}

/* One entry's row of the index: its key, then value, lo, hi, se2, and
 * when its rounds recorded steal time (round_clocks), the rounds known, those
 * under steal and their seconds, over e and a pair's anchor entry a; last,
 * for a type other than f32 only, the type's name (a row without one, as
 * every row of a store from before types, is f32). */
static cJSON *index_row(const gb_entry *e, const gb_entry *a, double value, double lo,
                        double hi, double se2)
{
    cJSON *row = cJSON_CreateArray();
    int known, under, known_a = 0, under_a = 0;
    double steal, steal_a = 0.0;

    if (row == NULL)
        return NULL;
    cJSON_AddItemToArray(row, cJSON_CreateString(e->label));
    cJSON_AddItemToArray(row, cJSON_CreateString(e->kernel));
    cJSON_AddItemToArray(row, cJSON_CreateNumber(e->M));
    cJSON_AddItemToArray(row, cJSON_CreateNumber(e->K));
    cJSON_AddItemToArray(row, cJSON_CreateNumber(e->N));
    cJSON_AddItemToArray(row, cJSON_CreateNumber(e->threads));
    cJSON_AddItemToArray(row, cJSON_CreateString(e->cold ? "cold" : "warm"));
    cJSON_AddItemToArray(row, cJSON_CreateNumber(value));
    cJSON_AddItemToArray(row, cJSON_CreateNumber(lo));
    cJSON_AddItemToArray(row, cJSON_CreateNumber(hi));
    cJSON_AddItemToArray(row, cJSON_CreateNumber(se2));
    gb_entry_steal(e, &known, &under, &steal);
    if (a)
        gb_entry_steal(a, &known_a, &under_a, &steal_a);
    if (known + known_a > 0) {
        cJSON_AddItemToArray(row, cJSON_CreateNumber(known + known_a));
        cJSON_AddItemToArray(row, cJSON_CreateNumber(under + under_a));
        cJSON_AddItemToArray(row, cJSON_CreateNumber(steal + steal_a));
    }
    if (e->dtype != GB_DTYPE_F32)
        cJSON_AddItemToArray(row, cJSON_CreateString(gb_dtype_name(e->dtype)));
    return row;
}

/* A paired row's noise: the variance of log(ratio) its 95 % interval
 * implies, (ln(hi / lo) / (2 x 1.96))^2. */
static double pair_se2(const gb_history_pair_row *r)
{
    double half = log(r->hi / r->lo) / (2.0 * 1.959964);
    return half * half;
}

/* The index line of a loaded file (no newline); NULL when out of memory.
 * A pair's line (rows != NULL) has its anchor and the rows' ratios. */
static char *index_line(const gb_result_file *f, const char *sha, const char *stored,
                        const char *machine, const char *commit, const char *date, int dirty,
                        const char *anchor, const char *anchor_sha, const char *anchor_file,
                        const gb_history_pair_row *rows, int nrows)
{
    cJSON *line = cJSON_CreateObject(), *entries;
    char *text = NULL;

    if (line == NULL)
        return NULL;
    cJSON_AddStringToObject(line, "sha256", sha);
    cJSON_AddStringToObject(line, "file", stored);
    cJSON_AddStringToObject(line, "machine", machine);
    cJSON_AddStringToObject(line, "commit", commit);
    cJSON_AddStringToObject(line, "date", date);
    cJSON_AddBoolToObject(line, "dirty", dirty);
    if (rows) {
        cJSON *a = cJSON_AddObjectToObject(line, "anchor");
        if (a == NULL)
            goto out;
        cJSON_AddStringToObject(a, "commit", anchor);
        cJSON_AddStringToObject(a, "sha256", anchor_sha);
        cJSON_AddStringToObject(a, "file", anchor_file);
    }
    entries = cJSON_AddArrayToObject(line, "entries");
    for (int i = 0; entries && i < (rows ? nrows : f->nentries); i++) {
        cJSON *row;
        if (rows) {
            row = index_row(rows[i].e, rows[i].anchor_e, rows[i].ratio, rows[i].lo, rows[i].hi,
                            pair_se2(&rows[i]));
        } else {
            const gb_entry *e = &f->entries[i];
            double lo, hi, se2;
            if (entry_noise(e, &lo, &hi, &se2) != 0)
                goto out;
            row = index_row(e, NULL, e->median_us, lo, hi, se2);
        }
        if (row == NULL)
            goto out;
        cJSON_AddItemToArray(entries, row);
    }
    text = cJSON_PrintUnformatted(line);
out:
    cJSON_Delete(line);
    return text;
}

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

/* The store's marker and lock: created in a new store, checked in an old
 * one.  Returns the lock's descriptor, or -1 with err. */
static int open_store(const char *dir, int create, char *err, size_t errlen)
{
    char path[4200], *text;
    int fd;

    snprintf(path, sizeof path, "%s/%s", dir, MARKER_NAME);
    if (access(path, F_OK) != 0) {
        if (!create) {
            snprintf(err, errlen, "%s: not a history store (no %s; make one with gemmbench "
                                  "history add)", dir, MARKER_NAME);
            return -1;
        }
        static const char marker[] = "{\n  \"schema\": \"" GB_HISTORY_SCHEMA "\"\n}\n";
        if (make_dirs(dir, err, errlen) != 0 ||
            gb_write_file_atomic(path, marker, sizeof marker - 1, err, errlen) != 0)
            return -1;
    }
    text = gb_read_regular_nolink(path, 1 << 20, err, errlen);
    if (text == NULL)
        return -1;
    char why[256];
    cJSON *doc = gb_json_parse_strict(text, why, sizeof why);
    const char *schema = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "schema"));
    int ok = schema != NULL && strcmp(schema, GB_HISTORY_SCHEMA) == 0;
    cJSON_Delete(doc);
    free(text);
    if (!ok) {
        snprintf(err, errlen, "%s/%s: not a %s store marker", dir, MARKER_NAME,
                 GB_HISTORY_SCHEMA);
        return -1;
    }
    snprintf(path, sizeof path, "%s/%s", dir, LOCK_NAME);
    if (!create) {
        /* A reader takes a shared lock when it can and creates nothing: a
         * store another user owns, or on a read-only mount, is still read
         * (its index is renamed whole, never written in place). */
        fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0)
            return errno == ELOOP ? (snprintf(err, errlen, "%s: a symbolic link, not followed",
                                              path), -1)
                                  : NO_LOCK;
        if (flock(fd, LOCK_SH) != 0) {
            close(fd);
            return NO_LOCK;
        }
        return fd;
    }
    fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644);
    if (fd < 0 || flock(fd, LOCK_EX) != 0) {
        snprintf(err, errlen, "cannot lock %s: %s", path,
                 errno == ELOOP ? "a symbolic link, not followed" : strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

/* The index's text ("" in a new store); NULL with err. */
static char *read_index(const char *dir, size_t *len, char *err, size_t errlen)
{
    char path[4200];
    char *text;

    snprintf(path, sizeof path, "%s/%s", dir, INDEX_NAME);
    struct stat st;
    if (lstat(path, &st) != 0 && errno == ENOENT) {
        *len = 0;
        return calloc(1, 1);
    }
    text = gb_read_regular_nolink(path, INDEX_MAX, err, errlen);
    if (text)
        *len = strlen(text);
    return text;
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

long long gb_history_seconds(const char *text)
{
    char utc[24];
    struct tm tm;

    if (gb_history_date(text, utc) != 0)
        return -1;
    memset(&tm, 0, sizeof tm);
    if (sscanf(utc, "%4d-%2d-%2dT%2d:%2d:%2dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
               &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return (long long)timegm(&tm);
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

static int key_file(const gb_history_input *in, const gb_history_add_opts *o,
                    const gb_history_input *anchor, const gb_history_pair_row *rows, int nrows,
                    pending *pf, gb_history_added *out, char *err, size_t errlen)
{
    const gb_result_file *fp = &in->f;
    char commit[GB_HISTORY_LABEL_MAX + 16], anchor_commit[GB_HISTORY_LABEL_MAX + 16];
    char date[24], machine_dir[80], commit_dir[80], anchor_sha[65] = "";
    const char *machine, *date_text;
    int dirty;

    pf->text = in->text;
    pf->len = in->len;
    sha_hex(in->text, in->len, pf->sha);
    dirty = fp->git_dirty;
    machine = o->machine ? o->machine : fp->hostname;
    gb_history_commit_of(fp, o->commit, commit, sizeof commit);
    /* A dirty tree's code is of no commit: its date is the run's. */
    date_text = o->date ? o->date : (fp->git_date && !dirty) ? fp->git_date : fp->started;
    if (machine == NULL || !label_ok(machine)) {
        snprintf(err, errlen, "%s: no usable machine name (give --machine NAME)", fp->path);
        return -1;
    }
    if (!label_ok(commit)) {
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
        if (!label_ok(anchor_commit)) {
            snprintf(err, errlen, "%s: no usable anchor commit (give --anchor-commit REV: 1 to "
                                  "%d printable characters)", anchor->f.path, GB_HISTORY_LABEL_MAX);
            return -1;
        }
        sha_hex(anchor->text, anchor->len, anchor_sha);
    }
    path_safe(machine, machine_dir, sizeof machine_dir);
    path_safe(commit, commit_dir, sizeof commit_dir);
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
    pf->line = index_line(fp, pf->sha, out->stored_as, machine, commit, date, dirty,
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

    if ((lock = open_store(dir, 1, err, errlen)) < 0)
        goto out;
    if ((index = read_index(dir, &index_len, err, errlen)) == NULL)
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
        if (make_dirs_inside(dir, folder, err, errlen) != 0 ||
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

/* ---- reading --------------------------------------------------------------------- */

typedef struct series_table {
    int *slot;           /* series index + 1, 0 empty */
    size_t size;         /* a power of two */
} series_table;

static uint64_t hash_key(const char *s)
{
    uint64_t h = 1469598103934665603ULL;   /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static int grow(void **p, int *cap, int need, size_t each)
{
    if (need <= *cap)
        return 0;
    int want = *cap ? *cap * 2 : 64;
    while (want < need)
        want *= 2;
    void *q = realloc(*p, (size_t)want * each);
    if (q == NULL)
        return -1;
    *p = q;
    *cap = want;
    return 0;
}

/* The series of key, made when new; its index, or -1 when out of memory. */
static int series_for(gb_history_store *s, series_table *t, int *cap, const char *key,
                      const char *machine, const char *label, const char *kernel,
                      const int dims[4], int cold, gb_dtype dtype, int paired)
{
    if ((size_t)s->nseries * 2 >= t->size) {
        size_t size = t->size ? t->size * 2 : 1024;
        int *slot = calloc(size, sizeof *slot);
        if (slot == NULL)
            return -1;
        for (int i = 0; i < s->nseries; i++) {
            size_t h = hash_key(s->series[i].key) & (size - 1);
            while (slot[h])
                h = (h + 1) & (size - 1);
            slot[h] = i + 1;
        }
        free(t->slot);
        t->slot = slot;
        t->size = size;
    }
    size_t h = hash_key(key) & (t->size - 1);
    while (t->slot[h]) {
        if (strcmp(s->series[t->slot[h] - 1].key, key) == 0)
            return t->slot[h] - 1;
        h = (h + 1) & (t->size - 1);
    }
    if (grow((void **)&s->series, cap, s->nseries + 1, sizeof *s->series) != 0)
        return -1;
    gb_history_series *se = &s->series[s->nseries];
    memset(se, 0, sizeof *se);
    se->key = strdup(key);
    se->machine = strdup(machine);
    se->label = strdup(label);
    se->kernel = strdup(kernel);
    se->M = dims[0];
    se->K = dims[1];
    se->N = dims[2];
    se->threads = dims[3];
    se->cold = cold;
    se->dtype = dtype;
    se->paired = paired;
    if (!se->key || !se->machine || !se->label || !se->kernel) {
        free(se->key);
        free(se->machine);
        free(se->label);
        free(se->kernel);
        return -1;
    }
    t->slot[h] = ++s->nseries;
    return s->nseries - 1;
}

/* A machine, label or kernel as a part of a series key: '%' and '/' as
 * %25 and %2F, so that "a/b" and "c" never make the key of "a" and "b/c". */
static void key_part(const char *text, char *out, size_t len)
{
    size_t n = 0;

    for (; *text && n + 4 < len; text++) {
        if (*text == '/' || *text == '%')
            n += (size_t)snprintf(out + n, len - n, "%%%02X", (unsigned char)*text);
        else
            out[n++] = *text;
    }
    out[n] = '\0';
}

static const char *string_of(const cJSON *o, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

static int read_line(gb_history_store *s, series_table *t, int caps[3], const char *text,
                     size_t len, char *why, size_t whylen)
{
    cJSON *line = cJSON_ParseWithLength(text, len), *entries, *row, *anchor;
    const char *sha, *file, *machine, *commit, *date, *anchor_commit;
    gb_history_file *f;
    int rc = -1;

    if (line == NULL) {
        snprintf(why, whylen, "not JSON");
        return -1;
    }
    /* A \u0000 would cut the string it is in (a commit's label) short. */
    if (gb_json_escaped_nul(text, len) >= 0) {
        snprintf(why, whylen, "a string holds \\u0000");
        cJSON_Delete(line);
        return -1;
    }
    sha = string_of(line, "sha256");
    file = string_of(line, "file");
    machine = string_of(line, "machine");
    commit = string_of(line, "commit");
    date = string_of(line, "date");
    entries = cJSON_GetObjectItemCaseSensitive(line, "entries");
    anchor = cJSON_GetObjectItemCaseSensitive(line, "anchor");
    anchor_commit = string_of(anchor, "commit");
    char normal[24];
    if (!sha || strlen(sha) != 64 || !file || !machine || !label_ok(machine) || !commit ||
        !label_ok(commit) || !date || gb_history_date(date, normal) != 0 ||
        !cJSON_IsArray(entries)) {
        snprintf(why, whylen, "a field of sha256, file, machine, commit, date, entries is "
                              "missing or malformed");
        goto out;
    }
    if (anchor && (!cJSON_IsObject(anchor) || !anchor_commit || !label_ok(anchor_commit))) {
        snprintf(why, whylen, "\"anchor\" is not an object with a printable \"commit\"");
        goto out;
    }
    if (grow((void **)&s->files, &caps[0], s->nfiles + 1, sizeof *s->files) != 0)
        goto oom;
    f = &s->files[s->nfiles];
    memset(f, 0, sizeof *f);
    f->file = strdup(file);
    f->machine = strdup(machine);
    f->commit = strdup(commit);
    f->anchor = anchor ? strdup(anchor_commit) : NULL;
    if (!f->file || !f->machine || !f->commit || (anchor && !f->anchor)) {
        free(f->file);
        free(f->machine);
        free(f->commit);
        free(f->anchor);
        goto oom;
    }
    memcpy(f->date, normal, sizeof normal);
    memcpy(f->sha256, sha, 65);
    f->dirty = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(line, "dirty"));
    s->nfiles++;
    cJSON_ArrayForEach(row, entries) {
        const cJSON *c[15];
        int i = 0, dims[4], nvalues, typed;
        gb_dtype dtype = GB_DTYPE_F32;
        char key[3 * (3 * GB_HISTORY_NAME_MAX + 1) + 96];
        cJSON *item;

        nvalues = cJSON_IsArray(row) ? cJSON_GetArraySize(row) : 0;
        /* A type other than f32 is one more value, a string, last. */
        typed = (nvalues == 12 || nvalues == 15);
        if (nvalues - typed != 11 && nvalues - typed != 14) {
            snprintf(why, whylen, "an entry is not an array of 11 values (14 with steal, one "
                                  "more with a type)");
            goto out;
        }
        cJSON_ArrayForEach(item, row) c[i++] = item;
        if (typed) {
            nvalues--;
            if (!cJSON_IsString(c[nvalues]) ||
                gb_dtype_parse(c[nvalues]->valuestring, &dtype) != 0) {
                snprintf(why, whylen, "an entry's type is not f32, bf16 or u8s8");
                goto out;
            }
        }
        for (i = 0; i < nvalues; i++) {
            int want_string = i <= 1 || i == 6;
            if (want_string ? !cJSON_IsString(c[i])
                            : !cJSON_IsNumber(c[i]) || !isfinite(c[i]->valuedouble) ||
                                  c[i]->valuedouble < 0.0) {
                snprintf(why, whylen, "an entry's value %d is malformed", i + 1);
                goto out;
            }
        }
        for (i = 0; i < 4; i++) {
            double d = c[2 + i]->valuedouble;
            if (d < 1 || d > 1e9 || d != floor(d)) {
                snprintf(why, whylen, "an entry's M, K, N or threads is not a count");
                goto out;
            }
            dims[i] = (int)d;
        }
        if (!(c[7]->valuedouble > 0.0) || !(c[8]->valuedouble > 0.0) ||
            !(c[9]->valuedouble >= c[8]->valuedouble)) {
            snprintf(why, whylen, "an entry's median or lowest round is not above 0, or its "
                                  "highest is below its lowest");
            goto out;
        }
        if (!gb_history_text_ok(c[0]->valuestring, GB_HISTORY_NAME_MAX) ||
            !gb_history_text_ok(c[1]->valuestring, GB_HISTORY_NAME_MAX) ||
            (strcmp(c[6]->valuestring, "warm") != 0 && strcmp(c[6]->valuestring, "cold") != 0)) {
            snprintf(why, whylen, "an entry's label or kernel is empty, over %d bytes or holds a "
                                  "control character, or its cache is not warm or cold",
                     GB_HISTORY_NAME_MAX);
            goto out;
        }
        int cold = strcmp(c[6]->valuestring, "cold") == 0;
        /* A ratio is not a time: a paired entry is a series of its own. */
        if (anchor && !(c[8]->valuedouble > 0.0 && c[9]->valuedouble >= c[8]->valuedouble)) {
            snprintf(why, whylen, "a paired entry's interval is not 0 < lo <= hi");
            goto out;
        }
        char part[3][3 * GB_HISTORY_NAME_MAX + 1];
        key_part(machine, part[0], sizeof part[0]);
        key_part(c[0]->valuestring, part[1], sizeof part[1]);
        key_part(c[1]->valuestring, part[2], sizeof part[2]);
        snprintf(key, sizeof key, "%s/%s/%s/%dx%dx%d/t%d/%s%s%s%s", part[0], part[1], part[2],
                 dims[0], dims[1], dims[2], dims[3], cold ? "cold" : "warm",
                 dtype != GB_DTYPE_F32 ? "/" : "", dtype != GB_DTYPE_F32 ? gb_dtype_name(dtype) : "",
                 anchor ? "/paired" : "");
        int si = series_for(s, t, &caps[1], key, machine, c[0]->valuestring,
                            c[1]->valuestring, dims, cold, dtype, anchor != NULL);
        if (si < 0 || grow((void **)&s->obs, &caps[2], s->nobs + 1, sizeof *s->obs) != 0)
            goto oom;
        gb_history_obs *ob = &s->obs[s->nobs++];
        ob->series = si;
        ob->file = s->nfiles - 1;
        ob->median_us = c[7]->valuedouble;
        ob->lo_us = c[8]->valuedouble;
        ob->hi_us = c[9]->valuedouble;
        ob->se2 = c[10]->valuedouble;
        ob->steal_known = ob->steal_rounds = 0;
        ob->steal_s = 0.0;
        if (nvalues == 14) {
            double known = c[11]->valuedouble, under = c[12]->valuedouble;
            if (known != floor(known) || under != floor(under) || under > known ||
                known > 2.0 * GB_MAX_ROUNDS) {
                snprintf(why, whylen, "an entry's steal rounds are not counts, or more are under "
                                      "steal than known");
                goto out;
            }
            /* at most the rounds' bound: the page's sums stay finite */
            if (c[13]->valuedouble > 2.0 * GB_MAX_ROUNDS * GB_MAX_CLOCK_S) {
                snprintf(why, whylen, "an entry's steal seconds are over %g",
                         2.0 * GB_MAX_ROUNDS * GB_MAX_CLOCK_S);
                goto out;
            }
            ob->steal_known = (int)known;
            ob->steal_rounds = (int)under;
            ob->steal_s = c[13]->valuedouble;
        }
    }
    rc = 0;
    goto out;
oom:
    snprintf(why, whylen, "out of memory");
    rc = -2;
out:
    cJSON_Delete(line);
    return rc;
}

int gb_history_store_read(const char *dir, gb_history_store *s, char *err, size_t errlen)
{
    char *index, path[4200], why[256];
    size_t len;
    int lock, caps[3] = { 0, 0, 0 }, lineno = 0, rc = 0;
    series_table t = { NULL, 0 };
    const char *p, *end;

    memset(s, 0, sizeof *s);
    /* The lock: a reader never sees an add half done (the index is renamed
     * whole anyway; this keeps the files it names in place). */
    if ((lock = open_store(dir, 0, err, errlen)) == -1)
        return -1;
    index = read_index(dir, &len, err, errlen);
    if (lock >= 0)
        close(lock);
    if (index == NULL)
        return -1;
    snprintf(path, sizeof path, "%s/%s", dir, INDEX_NAME);
    for (p = index, end = index + len; p < end && rc == 0;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (nl == NULL)
            nl = end;
        lineno++;
        if (nl > p && (rc = read_line(s, &t, caps, p, (size_t)(nl - p), why, sizeof why)) != 0)
            snprintf(err, errlen, "%s:%d: %s", path, lineno, why);
        p = nl + 1;
    }
    free(t.slot);
    free(index);
    if (rc != 0)
        gb_history_store_free(s);
    return rc;
}

void gb_history_store_free(gb_history_store *s)
{
    for (int i = 0; i < s->nfiles; i++) {
        free(s->files[i].file);
        free(s->files[i].machine);
        free(s->files[i].commit);
        free(s->files[i].anchor);
    }
    for (int i = 0; i < s->nseries; i++) {
        free(s->series[i].key);
        free(s->series[i].machine);
        free(s->series[i].label);
        free(s->series[i].kernel);
    }
    free(s->files);
    free(s->series);
    free(s->obs);
    memset(s, 0, sizeof *s);
}
