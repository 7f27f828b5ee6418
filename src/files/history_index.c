/* history_index.c - the history store's index, one line a stored file:
 * each entry's figures (its value, interval and noise, steal), the line
 * of a plain or a paired point, and the reader of the whole index; one
 * owner for the format, writer and reader side by side
 * (history_parts.h; src/analysis/history.md). */
#define _GNU_SOURCE
#include "history_parts.h"
#include "inputfile.h"
#include "parse.h"
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
char *hs_index_line(const gb_result_file *f, const char *sha, const char *stored,
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
    if (!sha || strlen(sha) != 64 || !file || !machine || !hs_label_ok(machine) || !commit ||
        !hs_label_ok(commit) || !date || gb_history_date(date, normal) != 0 ||
        !cJSON_IsArray(entries)) {
        snprintf(why, whylen, "a field of sha256, file, machine, commit, date, entries is "
                              "missing or malformed");
        goto out;
    }
    if (anchor && (!cJSON_IsObject(anchor) || !anchor_commit || !hs_label_ok(anchor_commit))) {
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
    if ((lock = hs_open_store(dir, 0, err, errlen)) == -1)
        return -1;
    index = hs_read_index(dir, &len, err, errlen);
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
