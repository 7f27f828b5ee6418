/* tuned_records.c - load, update, save and look up tuning records. */
#define _GNU_SOURCE
#include "tune.h"
#include "machine.h"
#include "output.h"

#include <cjson/cJSON.h>
#include <errno.h>
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
    gb_machine m;
    char isa[128] = "";

    gb_machine_detect(&m);
    for (int i = 0; i < m.nisa; i++) {
        strncat(isa, i ? "," : "", sizeof isa - strlen(isa) - 1);
        strncat(isa, m.isa[i], sizeof isa - strlen(isa) - 1);
    }
    snprintf(buf, len, "%s|%s|threads=%d", m.cpu_model, isa, threads);
}

void gb_tuned_free(gb_tuned_set *set)
{
    free(set->records);
    memset(set, 0, sizeof *set);
}

static int same_key(const gb_tuned_record *a, const gb_tuned_record *b)
{
    return strcmp(a->base, b->base) == 0 && strcmp(a->fingerprint, b->fingerprint) == 0 &&
           a->M == b->M && a->K == b->K && a->N == b->N;
}

int gb_tuned_put(gb_tuned_set *set, const gb_tuned_record *rec)
{
    for (int i = 0; i < set->count; i++)
        if (same_key(&set->records[i], rec)) {
            set->records[i] = *rec;
            return 0;
        }
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

/* Parameters are stored by name: numbers as numbers, choices as their name,
 * so a record stays readable when a choice list grows. */
static int params_from_json(const cJSON *obj, const char *base, gb_params *p)
{
    const gb_variant *v = gb_variant_find(base);
    const cJSON *item;

    memset(p, 0, sizeof *p);
    if (!cJSON_IsObject(obj))
        return -1;
    cJSON_ArrayForEach(item, obj) {
        long value;
        if (cJSON_IsNumber(item)) {
            value = (long)item->valuedouble;
        } else if (cJSON_IsString(item) && v) {
            value = -1;
            for (const gb_param_spec *s = v->params; s && s->key; s++)
                if (strcmp(s->key, item->string) == 0 && s->choices)
                    for (long c = 0; s->choices[c]; c++)
                        if (strcmp(s->choices[c], item->valuestring) == 0)
                            value = c;
            if (value < 0)
                return -1;
        } else {
            return -1;
        }
        if (gb_param_set(p, item->string, value) != 0)
            return -1;
    }
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

static int get_num(const cJSON *obj, const char *key, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0)
        return -1;
    *out = v->valuedouble;
    return 0;
}

int gb_tuned_load(const char *path, gb_tuned_set *set, char *err, size_t errlen)
{
    FILE *f;
    char *text = NULL;
    long size;
    cJSON *doc = NULL;
    const cJSON *records, *item;
    int i = 0, rc = -1;

    memset(set, 0, sizeof *set);
    f = fopen(path, "rb");
    if (f == NULL) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        return -1;
    }
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
        size > 64L * 1024 * 1024 || (text = malloc((size_t)size + 1)) == NULL ||
        fread(text, 1, (size_t)size, f) != (size_t)size) {
        snprintf(err, errlen, "%s: cannot read", path);
        goto out;
    }
    text[size] = '\0';
    doc = cJSON_Parse(text);
    if (doc == NULL) {
        snprintf(err, errlen, "%s: not valid JSON", path);
        goto out;
    }
    if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(doc, "schema")) ||
        strcmp(cJSON_GetObjectItemCaseSensitive(doc, "schema")->valuestring,
               GB_TUNED_SCHEMA) != 0) {
        snprintf(err, errlen, "%s: schema is not \"%s\"", path, GB_TUNED_SCHEMA);
        goto out;
    }
    records = cJSON_GetObjectItemCaseSensitive(doc, "records");
    if (!cJSON_IsArray(records)) {
        snprintf(err, errlen, "%s: \"records\" is not an array", path);
        goto out;
    }
    cJSON_ArrayForEach(item, records) {
        gb_tuned_record r;
        double M, K, N, trials;

        memset(&r, 0, sizeof r);
        if (copy_string(item, "base", r.base, sizeof r.base) ||
            copy_string(item, "fingerprint", r.fingerprint, sizeof r.fingerprint) ||
            get_num(item, "M", &M) || get_num(item, "K", &K) || get_num(item, "N", &N) ||
            M < 1 || K < 1 || N < 1 || M > 1e6 || K > 1e6 || N > 1e6 ||
            get_num(item, "median_us", &r.median_us) ||
            get_num(item, "rule_median_us", &r.rule_median_us) ||
            get_num(item, "trials", &trials) ||
            params_from_json(cJSON_GetObjectItemCaseSensitive(item, "params"), r.base,
                             &r.params) != 0) {
            snprintf(err, errlen, "%s: records[%d] is malformed", path, i);
            goto out;
        }
        copy_string(item, "tuned_at", r.tuned_at, sizeof r.tuned_at);
        r.M = (int)M;
        r.K = (int)K;
        r.N = (int)N;
        r.trials = (int)trials;
        if (gb_tuned_put(set, &r) != 0) {
            snprintf(err, errlen, "%s: out of memory", path);
            goto out;
        }
        i++;
    }
    rc = 0;
out:
    if (rc != 0)
        gb_tuned_free(set);
    cJSON_Delete(doc);
    free(text);
    fclose(f);
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
        cJSON_AddItemToArray(records, o);
    }
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
