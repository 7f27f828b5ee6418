/* params.c - a schedule's parameters (--param key=value): one set's values,
 * and parsing and formatting them against what a variant's spec accepts.
 * Values only: no variant table, no settings. */
#include "gemmbench.h"
#include "parse.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

long gb_param_get(const gb_params *params, const char *key, long fallback)
{
    if (params == NULL)
        return fallback;
    for (int i = 0; i < params->count; i++)
        if (strcmp(params->key[i], key) == 0)
            return params->value[i];
    return fallback;
}

int gb_params_equal(const gb_params *a, const gb_params *b)
{
    if (a->count != b->count)
        return 0;
    for (int i = 0; i < a->count; i++)
        if (gb_param_get(b, a->key[i], LONG_MIN) != a->value[i])
            return 0;
    return 1;
}

int gb_param_set(gb_params *params, const char *key, long value)
{
    for (int i = 0; i < params->count; i++)
        if (strcmp(params->key[i], key) == 0) {
            params->value[i] = value;
            return 0;
        }
    if (params->count >= GB_MAX_PARAMS || strlen(key) >= GB_PARAM_KEY_LEN)
        return -1;
    strcpy(params->key[params->count], key);
    params->value[params->count] = value;
    params->count++;
    return 0;
}

static const gb_param_spec *find_param_spec(const gb_variant *v, const char *key)
{
    for (const gb_param_spec *s = v->params; s && s->key; s++)
        if (strcmp(s->key, key) == 0)
            return s;
    return NULL;
}

struct param_parse {
    const gb_variant *v;
    gb_params *p;
    char *err;
    size_t errlen;
};

/* The key of "key=value" into key (len bytes): its value, or NULL when item
 * is not key=value or the key does not fit. */
static const char *split_key(const char *item, char *key, size_t len)
{
    const char *eq = strchr(item, '=');

    if (eq == NULL || eq == item || (size_t)(eq - item) >= len)
        return NULL;
    memcpy(key, item, (size_t)(eq - item));
    key[eq - item] = '\0';
    return eq + 1;
}

static int parse_one_param(const char *item, void *arg)
{
    struct param_parse *pp = arg;
    char key[64], skey[256], sval[256];
    const char *val = split_key(item, key, sizeof key);
    const gb_param_spec *spec;
    long value;

    /* The user's text, escaped as every message shows it. */
    gb_printable(val ? val : item, 60, sval, sizeof sval);
    if (val == NULL && strchr(item, '=') != NULL && strchr(item, '=') != item) {
        snprintf(pp->err, pp->errlen, "--param: the key of '%s' is longer than %d characters",
                 sval, (int)sizeof key - 1);
        return -1;
    }
    if (val == NULL) {
        snprintf(pp->err, pp->errlen, "--param '%s' is not key=value", sval);
        return -1;
    }
    gb_printable(key, 60, skey, sizeof skey);
    spec = find_param_spec(pp->v, key);
    if (spec == NULL) {
        char known[256] = "";
        for (const gb_param_spec *s = pp->v->params; s && s->key; s++) {
            strncat(known, known[0] ? ", " : "", sizeof known - strlen(known) - 1);
            strncat(known, s->key, sizeof known - strlen(known) - 1);
        }
        snprintf(pp->err, pp->errlen, "variant %s has no parameter '%s' (it takes: %s)",
                 pp->v->name, skey, known[0] ? known : "none");
        return -1;
    }
    if (spec->min > spec->max) {
        snprintf(pp->err, pp->errlen, "parameter '%s' of variant %s is reported, not set",
                 skey, pp->v->name);
        return -1;
    }
    if (spec->choices) {
        long idx = -1;
        for (long i = 0; spec->choices[i]; i++)
            if (strcmp(spec->choices[i], val) == 0)
                idx = i;
        if (idx < 0) {
            snprintf(pp->err, pp->errlen, "--param %s: '%s' is not a choice of variant %s",
                     skey, sval, pp->v->name);
            return -1;
        }
        value = idx;
    } else if (gb_parse_long(val, spec->min, spec->max, &value) != 0) {
        snprintf(pp->err, pp->errlen, "--param %s: '%s' is not an integer in [%ld, %ld]",
                 skey, sval, spec->min, spec->max);
        return -1;
    }
    /* tk=4,tk=16 is one set naming tk twice, not a choice of the last. */
    if (gb_param_get(pp->p, key, LONG_MIN) != LONG_MIN) {
        snprintf(pp->err, pp->errlen, "--param %s is given twice in one set", skey);
        return -1;
    }
    if (gb_param_set(pp->p, key, value) != 0) {
        snprintf(pp->err, pp->errlen, "--param: too many parameters");
        return -1;
    }
    return 0;
}

int gb_params_parse(const gb_variant *v, const char *text, gb_params *p,
                    char *err, size_t errlen)
{
    struct param_parse pp = { v, p, err, errlen };

    memset(p, 0, sizeof *p);
    err[0] = '\0';
    /* No --param (callers pass ""): every value is the variant's rule; the
     * command line refuses an empty --param itself. */
    if (text == NULL || text[0] == '\0')
        return 0;
    int rc = gb_split_list(text, parse_one_param, &pp);
    if (rc != 0) {
        if (gb_split_why(rc) || err[0] == '\0')
            gb_list_error(err, errlen, "--param", text,
                       gb_split_why(rc) ? gb_split_why(rc) : "is malformed");
        return -1;
    }
    return 0;
}

struct param_keys {
    const gb_variant *v;
    char *missing;
    size_t len;
};

static int check_one_key(const char *item, void *arg)
{
    struct param_keys *pk = arg;
    char key[64];

    if (split_key(item, key, sizeof key) == NULL)
        return 0;
    if (find_param_spec(pk->v, key) != NULL)
        return 0;
    snprintf(pk->missing, pk->len, "%s", key);
    return -1;
}

int gb_params_accepts(const gb_variant *v, const char *text, char *missing, size_t len)
{
    struct param_keys pk = { v, missing, len };

    missing[0] = '\0';
    if (text == NULL || text[0] == '\0')
        return 1;
    return gb_split_list(text, check_one_key, &pk) == 0 || missing[0] == '\0';
}

void gb_params_format(const gb_variant *v, const gb_params *p, char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (int i = 0; i < p->count && used < len; i++) {
        const gb_param_spec *spec = v ? find_param_spec(v, p->key[i]) : NULL;
        int n;
        if (spec && spec->choices)
            n = snprintf(buf + used, len - used, "%s%s=%s", i ? "," : "", p->key[i],
                         spec->choices[p->value[i]]);
        else
            n = snprintf(buf + used, len - used, "%s%s=%ld", i ? "," : "", p->key[i],
                         p->value[i]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}
