/* tuned_records.c - load, update, save and look up tuning records. */
#define _GNU_SOURCE
#include "tuned_records.h"
#include "variants.h"
#include "machine.h"
#include "output.h"
#include "inputfile.h"
#include "parse.h"
#include "sched_lang.h"
#include "sched_space.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *gb_tuned_path(void)
{
    const char *env = getenv(GB_TUNED_PATH_ENV);
    return env && env[0] ? env : GB_TUNED_DEFAULT_PATH;
}

void gb_tuned_fingerprint(int threads, char *buf, size_t len)
{
    /* The machine does not change while the process runs: detected once,
     * not for every tuned measurement. */
    static char machine[sizeof ((gb_machine *)0)->cpu_model + 130];

    if (machine[0] == '\0') {
        gb_machine m;
        char isa[128] = "";

        gb_machine_detect(&m);
        for (int i = 0; i < m.nisa; i++) {
            strncat(isa, i ? "," : "", sizeof isa - strlen(isa) - 1);
            strncat(isa, m.isa[i], sizeof isa - strlen(isa) - 1);
        }
        snprintf(machine, sizeof machine, "%s|%s", m.cpu_model, isa);
    }
    snprintf(buf, len, "%s|threads=%d", machine, threads);
}

void gb_tuned_fingerprint_dtype(int threads, gb_dtype t, char *buf, size_t len)
{
    size_t used;

    gb_tuned_fingerprint(threads, buf, len);
    used = strlen(buf);
    if (t != GB_DTYPE_F32 && used < len)
        snprintf(buf + used, len - used, "|dtype=%s", gb_dtype_name(t));
}

static void free_strings(gb_tuned_record *r)
{
    free(r->schedule);
    free(r->space);
    r->schedule = r->space = NULL;
}

void gb_tuned_free(gb_tuned_set *set)
{
    for (int i = 0; i < set->count; i++)
        free_strings(&set->records[i]);
    cJSON_Delete(set->skipped_records);
    free(set->records);
    memset(set, 0, sizeof *set);
}

static int same_key(const gb_tuned_record *a, const gb_tuned_record *b)
{
    return strcmp(a->base, b->base) == 0 && strcmp(a->fingerprint, b->fingerprint) == 0 &&
           a->M == b->M && a->K == b->K && a->N == b->N;
}

/* Appends rec without looking for its key (gb_tuned_load's dedupe() does,
 * once for the whole file). */
static int append(gb_tuned_set *set, const gb_tuned_record *rec)
{
    if (set->count == set->capacity) {
        int cap = set->capacity ? 2 * set->capacity : 32;
        gb_tuned_record *grown = realloc(set->records, (size_t)cap * sizeof *grown);
        if (grown == NULL)
            return -1;
        set->records = grown;
        set->capacity = cap;
    }
    set->records[set->count++] = *rec;
    return 0;
}

int gb_tuned_put(gb_tuned_set *set, const gb_tuned_record *rec)
{
    gb_tuned_record copy = *rec;

    copy.schedule = rec->schedule ? strdup(rec->schedule) : NULL;
    copy.space = rec->space ? strdup(rec->space) : NULL;
    if ((rec->schedule && !copy.schedule) || (rec->space && !copy.space)) {
        free_strings(&copy);
        return -1;
    }
    for (int i = 0; i < set->count; i++)
        if (same_key(&set->records[i], rec)) {
            free_strings(&set->records[i]);
            set->records[i] = copy;
            return 0;
        }
    if (append(set, &copy) != 0) {
        free_strings(&copy);
        return -1;
    }
    return 0;
}

/* Parameters are stored by name: numbers as numbers, choices as their name,
 * so a record stays readable when a choice list grows.  Every value is
 * checked against the base variant's parameter spec, as --param checks it:
 * a record is replayed as is or not at all, never half replaced by rules.
 * 0, or -1 with why naming the key. */
static int param_from_json(const gb_variant *v, const cJSON *item, gb_params *p, char *why,
                           size_t whylen)
{
    const gb_param_spec *spec = NULL;
    long value = -1;
    char key[256]; /* the file's key, as messages show it */

    for (const gb_param_spec *s = v->params; s && s->key; s++)
        if (strcmp(s->key, item->string) == 0)
            spec = s;
    if (spec == NULL || spec->min > spec->max) {
        gb_printable(item->string, 40, key, sizeof key);
        snprintf(why, whylen, "params.%s: %s", key,
                 spec ? "reported, not a parameter" : "not a parameter of the variant");
        return -1;
    }
    if (spec->choices) {
        if (cJSON_IsString(item))
            for (long c = 0; spec->choices[c]; c++)
                if (strcmp(spec->choices[c], item->valuestring) == 0)
                    value = c;
        if (value < 0) {
            snprintf(why, whylen, "params.%s: not one of the variant's choices", spec->key);
            return -1;
        }
    } else {
        double d = cJSON_IsNumber(item) ? item->valuedouble : NAN;
        if (!(d >= (double)spec->min && d <= (double)spec->max) || d != floor(d)) {
            snprintf(why, whylen, "params.%s: not an integer in [%ld, %ld]", spec->key,
                     spec->min, spec->max);
            return -1;
        }
        value = (long)d;
    }
    if (gb_param_set(p, spec->key, value) != 0) {
        snprintf(why, whylen, "params: too many parameters");
        return -1;
    }
    return 0;
}

static int params_from_json(const cJSON *obj, const char *base, gb_params *p, char *why,
                            size_t whylen)
{
    const gb_variant *v = gb_variant_find(base);
    const cJSON *item;

    memset(p, 0, sizeof *p);
    if (v == NULL) {
        snprintf(why, whylen, "base: no variant of that name");
        return -1;
    }
    if (!cJSON_IsObject(obj)) {
        snprintf(why, whylen, "params: not an object");
        return -1;
    }
    cJSON_ArrayForEach(item, obj) {
        if (param_from_json(v, item, p, why, whylen) != 0)
            return -1;
    }
    /* A combination the variant refuses (an isa this CPU cannot run). */
    if (v->usable && v->usable(p, why, whylen) != 0)
        return -1;
    return 0;
}

static int copy_string(const cJSON *obj, const char *key, char *dst, size_t len)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!cJSON_IsString(v) || strlen(v->valuestring) >= len)
        return -1;
    strcpy(dst, v->valuestring);
    return 0;
}

/* A required number in [min, max]; integral when whole is set. */
static int get_num(const cJSON *obj, const char *key, double min, double max, int whole,
                   double *out, char *why, size_t whylen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;

    if (!(d >= min && d <= max) || (whole && d != floor(d))) {
        snprintf(why, whylen, "%s: missing or not %s in [%g, %g]", key,
                 whole ? "an integer" : "a number", min, max);
        return -1;
    }
    *out = d;
    return 0;
}

/* A structure search's schedule: text the language accepts, checked as a
 * --schedule file is (nothing of a record reaches a compiler unchecked).
 * 0, or -1 with why. */
static int schedule_from_json(const cJSON *item, gb_tuned_record *r, char *why, size_t whylen)
{
    gb_sched nest;
    const cJSON *text = cJSON_GetObjectItemCaseSensitive(item, "schedule");
    const cJSON *space = cJSON_GetObjectItemCaseSensitive(item, "space");
    char err[512];

    if (!cJSON_IsString(text) || strlen(text->valuestring) >= GB_SPACE_MAX_TEXT) {
        snprintf(why, whylen, "schedule: missing or not a string under %d bytes",
                 GB_SPACE_MAX_TEXT);
        return -1;
    }
    /* "" is rule_based's win: nothing to check. */
    if (text->valuestring[0] != '\0' &&
        gb_sched_from_text("schedule", text->valuestring, strlen(text->valuestring), &nest, err,
                           sizeof err) != 0) {
        snprintf(why, whylen, "%s", err);
        return -1;
    }
    r->schedule = strdup(text->valuestring);
    r->space = strdup(cJSON_IsString(space) ? space->valuestring : "");
    if (r->schedule == NULL || r->space == NULL) {
        free_strings(r);
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    return 0;
}

/* One record of the file into r: 0, or -1 with why naming the key. */
static int record_from_json(const cJSON *item, gb_tuned_record *r, char *why, size_t whylen)
{
    double M, K, N, trials;

    memset(r, 0, sizeof *r);
    if (!cJSON_IsObject(item)) {
        snprintf(why, whylen, "not an object");
        return -1;
    }
    if (copy_string(item, "base", r->base, sizeof r->base) != 0) {
        snprintf(why, whylen, "base: missing or not a short string");
        return -1;
    }
    if (copy_string(item, "fingerprint", r->fingerprint, sizeof r->fingerprint) != 0) {
        snprintf(why, whylen, "fingerprint: missing or not a short string");
        return -1;
    }
    if (get_num(item, "M", 1, GB_TUNED_MAX_DIM, 1, &M, why, whylen) ||
        get_num(item, "K", 1, GB_TUNED_MAX_DIM, 1, &K, why, whylen) ||
        get_num(item, "N", 1, GB_TUNED_MAX_DIM, 1, &N, why, whylen) ||
        get_num(item, "median_us", 0, HUGE_VAL, 0, &r->median_us, why, whylen) ||
        get_num(item, "rule_median_us", 0, HUGE_VAL, 0, &r->rule_median_us, why, whylen) ||
        get_num(item, "trials", 0, 1e9, 1, &trials, why, whylen) ||
        params_from_json(cJSON_GetObjectItemCaseSensitive(item, "params"), r->base,
                         &r->params, why, whylen) != 0)
        return -1;
    if (strcmp(r->base, GB_TUNED_SCHED_BASE) == 0 && schedule_from_json(item, r, why, whylen) != 0)
        return -1;
    copy_string(item, "tuned_at", r->tuned_at, sizeof r->tuned_at);
    r->M = (int)M;
    r->K = (int)K;
    r->N = (int)N;
    r->trials = (int)trials;
    return 0;
}

/* A copy of a skipped record, written back as it was by gb_tuned_save: a
 * record is never trusted, and never lost either (re-tuning another shape
 * rewrites the file).  0, or -1 when memory runs out. */
static int keep_skipped(gb_tuned_set *set, const cJSON *item)
{
    cJSON *copy = cJSON_Duplicate(item, 1);

    if (set->skipped_records == NULL)
        set->skipped_records = cJSON_CreateArray();
    if (copy == NULL || set->skipped_records == NULL) {
        cJSON_Delete(copy);
        return -1;
    }
    cJSON_AddItemToArray(set->skipped_records, copy);
    return 0;
}

/* A record and its place in the file, for dedupe(). */
typedef struct placed {
    const gb_tuned_record *r;
    int at;
} placed;

static int by_key_then_place(const void *a, const void *b)
{
    const placed *x = a, *y = b;
    int c = strcmp(x->r->base, y->r->base);

    if (c == 0)
        c = strcmp(x->r->fingerprint, y->r->fingerprint);
    if (c == 0)
        c = x->r->M != y->r->M ? (x->r->M > y->r->M) - (x->r->M < y->r->M)
            : x->r->K != y->r->K ? (x->r->K > y->r->K) - (x->r->K < y->r->K)
                                 : (x->r->N > y->r->N) - (x->r->N < y->r->N);
    return c != 0 ? c : (x->at > y->at) - (x->at < y->at);
}

/* Leaves one record per key, as gb_tuned_put one by one would (the last in
 * the file, at the first's place), by sorting: put searches every record
 * already kept, and 60,000 records took minutes that way.  0, or -1 when
 * memory runs out. */
static int dedupe(gb_tuned_set *set)
{
    placed *order = malloc((size_t)set->count * sizeof *order + 1);
    int *from = malloc((size_t)set->count * sizeof *from + 1), kept = 0;
    gb_tuned_record *records = malloc((size_t)set->count * sizeof *records + 1);

    if (order == NULL || from == NULL || records == NULL) {
        free(order);
        free(from);
        free(records);
        return -1;
    }
    for (int i = 0; i < set->count; i++) {
        order[i] = (placed){ &set->records[i], i };
        from[i] = -1;
    }
    qsort(order, (size_t)set->count, sizeof *order, by_key_then_place);
    for (int i = 0, first = 0; i < set->count; i++) {
        if (i + 1 < set->count && same_key(order[i + 1].r, order[i].r))
            continue;
        from[order[first].at] = order[i].at;
        first = i + 1;
    }
    for (int i = 0; i < set->count; i++)
        if (from[i] >= 0)
            records[kept++] = set->records[from[i]];
    /* The records left out (an earlier one of a key) give up their strings:
     * order[].at is reused as a kept flag per record. */
    for (int i = 0; i < set->count; i++)
        order[i].at = 0;
    for (int i = 0; i < set->count; i++)
        if (from[i] >= 0)
            order[from[i]].at = 1;
    for (int i = 0; i < set->count; i++)
        if (!order[i].at)
            free_strings(&set->records[i]);
    free(set->records);
    set->records = records;
    set->count = set->capacity = kept;
    free(order);
    free(from);
    return 0;
}

int gb_tuned_load(const char *path, gb_tuned_set *set, char *err, size_t errlen)
{
    char *text;
    cJSON *doc = NULL;
    const cJSON *records, *item, *schema;
    char why[256], shown[256]; /* shown: path as messages show it */
    int i = 0, rc = -1;

    memset(set, 0, sizeof *set);
    gb_printable(path, 200, shown, sizeof shown);
    text = gb_read_regular(path, 64L * 1024 * 1024, err, errlen);
    if (text == NULL)
        return errno == ENOENT ? 0 : -1;
    doc = gb_json_parse_strict(text, why, sizeof why);
    if (doc == NULL) {
        snprintf(err, errlen, "%s: %s", shown, why);
        goto out;
    }
    schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, GB_TUNED_SCHEMA) != 0) {
        snprintf(err, errlen, "%s: schema is not \"%s\"", shown, GB_TUNED_SCHEMA);
        goto out;
    }
    records = cJSON_GetObjectItemCaseSensitive(doc, "records");
    if (!cJSON_IsArray(records)) {
        snprintf(err, errlen, "%s: \"records\" is not an array", shown);
        goto out;
    }
    /* A bad record is skipped and counted (the first one described), never
     * trusted: its shape then runs with the nearest record or the rules. */
    cJSON_ArrayForEach(item, records) {
        gb_tuned_record r;

        if (record_from_json(item, &r, why, sizeof why) != 0) {
            if (set->skipped++ == 0)
                snprintf(set->skipped_why, sizeof set->skipped_why, "%s: records[%d]: %s",
                         shown, i, why);
            if (keep_skipped(set, item) != 0) {
                snprintf(err, errlen, "%s: out of memory", shown);
                goto out;
            }
        } else if (append(set, &r) != 0) {
            free_strings(&r);
            snprintf(err, errlen, "%s: out of memory", shown);
            goto out;
        }
        i++;
    }
    if (dedupe(set) != 0) {
        snprintf(err, errlen, "%s: out of memory", shown);
        goto out;
    }
    rc = 0;
out:
    if (rc != 0)
        gb_tuned_free(set);
    cJSON_Delete(doc);
    free(text);
    return rc;
}

int gb_tuned_save(const char *path, const gb_tuned_set *set, char *err, size_t errlen)
{
    cJSON *doc = cJSON_CreateObject(), *records;
    int rc;

    if (doc == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    cJSON_AddStringToObject(doc, "schema", GB_TUNED_SCHEMA);
    records = cJSON_AddArrayToObject(doc, "records");
    for (int i = 0; i < set->count; i++) {
        const gb_tuned_record *r = &set->records[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "base", r->base);
        cJSON_AddStringToObject(o, "fingerprint", r->fingerprint);
        cJSON_AddNumberToObject(o, "M", r->M);
        cJSON_AddNumberToObject(o, "K", r->K);
        cJSON_AddNumberToObject(o, "N", r->N);
        cJSON_AddItemToObject(o, "params", gb_params_json(gb_variant_find(r->base), &r->params));
        cJSON_AddNumberToObject(o, "median_us", r->median_us);
        cJSON_AddNumberToObject(o, "rule_median_us", r->rule_median_us);
        cJSON_AddNumberToObject(o, "trials", r->trials);
        cJSON_AddStringToObject(o, "tuned_at", r->tuned_at);
        if (r->schedule) {
            cJSON_AddStringToObject(o, "space", r->space ? r->space : "");
            cJSON_AddStringToObject(o, "schedule", r->schedule);
        }
        cJSON_AddItemToArray(records, o);
    }
    /* The skipped ones after them, as they were (skipped again when read). */
    for (const cJSON *k = set->skipped_records ? set->skipped_records->child : NULL; k;
         k = k->next)
        cJSON_AddItemToArray(records, cJSON_Duplicate(k, 1));
    /* The result writer's atomic write sets "complete"; records have no use
     * for it, so write through a plain temporary file here. */
    {
        char tmp[4200];
        char *text = cJSON_Print(doc);
        FILE *f;
        snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
        f = text ? fopen(tmp, "w") : NULL;
        rc = -1;
        if (f) {
            int ok = fputs(text, f) >= 0 && fputc('\n', f) != EOF;
            ok = fclose(f) == 0 && ok;
            if (ok && rename(tmp, path) == 0)
                rc = 0;
            else
                unlink(tmp);
        }
        if (rc != 0)
            snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        free(text);
    }
    cJSON_Delete(doc);
    return rc;
}

int gb_tuned_check_writable(const char *path, char *err, size_t errlen)
{
    char tmp[4200];
    int fd;

    /* What gb_tuned_save needs: a new file beside path (then renamed over it). */
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "cannot write records next to %s: %s", path, strerror(errno));
        return -1;
    }
    close(fd);
    unlink(tmp);
    return 0;
}

const gb_tuned_record *gb_tuned_find(const gb_tuned_set *set, const char *base,
                                     const char *fingerprint, int M, int K, int N, int *exact)
{
    const gb_tuned_record *best = NULL;
    double best_distance = INFINITY;

    *exact = 0;
    for (int i = 0; i < set->count; i++) {
        const gb_tuned_record *r = &set->records[i];
        double d;
        if (strcmp(r->base, base) != 0 || strcmp(r->fingerprint, fingerprint) != 0)
            continue;
        if (r->M == M && r->K == K && r->N == N) {
            *exact = 1;
            return r;
        }
        /* Same K and N (the same layer) always beats another layer. */
        d = fabs(log((double)r->M / M));
        if (r->K != K || r->N != N)
            d += 1000.0 + fabs(log((double)r->K / K)) + fabs(log((double)r->N / N));
        if (d < best_distance) {
            best_distance = d;
            best = r;
        }
    }
    return best;
}
