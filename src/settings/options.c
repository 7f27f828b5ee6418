/* options.c - defaults, shapes, variant selection and --param parsing. */
#define _GNU_SOURCE   /* strtok_r, under compilers strict about -std=c11 (clang) */
#include "options.h"
#include "parse.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* BERT-base MatMul shapes (hidden 768, intermediate 3072).  "all" means these three; square1024
 * (the TVM tutorial's problem) and bench.conf's [kernel] sections run only
 * when named. */
const gb_kernel_def gb_builtin_kernels[] = {
    { "qkv",        768,  768,  0, { 0 } },
    { "mlp_expand", 768,  3072, 0, { 0 } },
    { "mlp_reduce", 3072, 768,  0, { 0 } },
    { "square1024", 1024, 1024, 1, { 1024 } },
};
const int gb_builtin_kernel_count = sizeof gb_builtin_kernels / sizeof gb_builtin_kernels[0];
/* How many of the built-ins "all" means (the BERT three). */
#define GB_BERT_KERNELS 3

static const int study_m_list[] = { 16, 32, 64, 96, 128, 192, 256, 384 };

void gb_options_defaults(gb_options *o)
{
    memset(o, 0, sizeof *o);
    strcpy(o->variants, "all");
    strcpy(o->kernels, "all");
    o->nm = (int)(sizeof study_m_list / sizeof study_m_list[0]);
    memcpy(o->m, study_m_list, sizeof study_m_list);
    o->threads = 0;
    o->warmup = 5;
    o->reps = 50;
    o->min_reps = 5;
    o->max_time = 2.0;
    o->cooldown = 0.0;
    o->rounds = 0;           /* GB_DEFAULT_ROUNDS, fewer when --reps is smaller */
    o->format = GB_FMT_TABLE;
    o->check = 1;
}

/* ---- thread counts ------------------------------------------------------ */

/* Why a thread list was refused: its first element that is wrong, and how. */
static void thread_list_problem(const char *text, char *why, size_t len)
{
    char buf[256], *save = NULL;
    size_t n = strlen(text);

    snprintf(why, len, "not a thread list");
    if (n == 0 || text[0] == ',' || text[n - 1] == ',' || strstr(text, ",,") != NULL) {
        snprintf(why, len, "an empty element");
        return;
    }
    snprintf(buf, sizeof buf, "%s", text);
    for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *t = gb_trim(item), *dash = strchr(t, '-');
        long a, b;
        if (*t == '\0') {
            snprintf(why, len, "an empty element");
            return;
        }
        if (strcmp(t, "all") == 0)
            continue;
        if (strcmp(t, "0") == 0) {
            snprintf(why, len, "0 threads (all means every CPU)");
            return;
        }
        if (t[0] == '-') {
            snprintf(why, len, "a negative count '%s'", t);
            return;
        }
        if (dash) {
            int ok;
            *dash = '\0';
            ok = gb_parse_long(t, 1, GB_MAX_THREAD_COUNT, &a) == 0 &&
                 gb_parse_long(dash + 1, 1, GB_MAX_THREAD_COUNT, &b) == 0;
            *dash = '-';
            if (ok && b < a) {
                snprintf(why, len, "a descending range '%s'", t);
                return;
            }
            if (ok)
                continue;
        } else if (gb_parse_long(t, 1, GB_MAX_THREAD_COUNT, &a) == 0) {
            continue;
        }
        snprintf(why, len, "'%s' is not a count in [1, %d]", t, GB_MAX_THREAD_COUNT);
        return;
    }
}

int gb_options_set_threads(gb_options *o, const char *text, char *err, size_t errlen)
{
    int list[GB_MAX_THREAD_COUNTS], n = 0, all = 0;
    int rc = gb_parse_thread_list(text, list, &n, GB_MAX_THREAD_COUNTS, &all);

    if (rc == -2) {
        snprintf(err, errlen, "'%s' has more than %d thread counts", text,
                 GB_MAX_THREAD_COUNTS);
        return -1;
    }
    if (rc != 0) {
        char why[300];
        thread_list_problem(text, why, sizeof why);
        snprintf(err, errlen, "'%s': %s (a list: counts, ranges A-B or all, comma-separated)", text, why);
        return -1;
    }
    memcpy(o->threads_list, list, (size_t)n * sizeof *list);
    o->nthreads_list = n;
    o->threads_all = all;
    o->threads = n == 1 && !all ? list[0] : 0;
    return 0;
}

int gb_options_thread_counts(const gb_options *o, int cpus, int *out, int max)
{
    int n = 0;

    if (cpus < 1)
        cpus = 1;
    for (int i = 0; i < o->nthreads_list && n < max; i++)
        out[n++] = o->threads_list[i];
    if (o->threads_all || o->nthreads_list == 0) {
        int at = 0;
        while (at < n && out[at] < cpus)
            at++;
        if ((at == n || out[at] != cpus) && n < max) {
            memmove(out + at + 1, out + at, (size_t)(n - at) * sizeof *out);
            out[at] = cpus;
            n++;
        }
    }
    return n;
}

/* ---- variants ------------------------------------------------------------- */

const gb_variant *gb_variant_find(const char *name)
{
    for (size_t i = 0; i < gb_variant_count; i++)
        if (strcmp(gb_variants[i]->name, name) == 0)
            return gb_variants[i];
    return NULL;
}

int gb_variant_library(const gb_variant *v, gb_library *lib)
{
    memset(lib, 0, sizeof *lib);
    if (v->library == NULL)
        return -1;
    v->library(lib);
    return 0;
}

struct variant_pick {
    int mark[256];
    char *err;
    size_t errlen;
};

/* An item is "all", a variant name, "family:NAME", or a bare family name.
 * A variant name wins over a family of the same name (`parallel` is both):
 * `--variant parallel` is the one variant, `family:parallel` the family. */
/* "WHAT 'text' why", the text cut and escaped so that the reason is never
 * lost behind a long or binary list. */
static void list_error(char *err, size_t errlen, const char *what, const char *text,
                       const char *why)
{
    char shown[96];

    gb_printable(text, 60, shown, sizeof shown);
    snprintf(err, errlen, "%s '%s' %s", what, shown, why);
}

static int pick_variant(const char *item, void *arg)
{
    struct variant_pick *pick = arg;
    const char *family = strncmp(item, "family:", 7) == 0 ? item + 7 : NULL;
    int found = 0;

    if (family == NULL && strcmp(item, "all") != 0 && gb_variant_find(item) == NULL)
        family = item;
    for (size_t i = 0; i < gb_variant_count && i < 256; i++) {
        const gb_variant *v = gb_variants[i];
        if (strcmp(item, "all") == 0 || (family ? strcmp(family, v->family) == 0
                                                : strcmp(item, v->name) == 0)) {
            pick->mark[i] = 1;
            found = 1;
        }
    }
    if (!found) {
        char shown[96];
        gb_printable(item, 60, shown, sizeof shown);
        snprintf(pick->err, pick->errlen,
                 "unknown variant or family '%s' (gemmbench --list shows them)", shown);
        return -1;
    }
    return 0;
}

int gb_variants_select(const char *spec, const gb_variant **out, int max,
                       char *err, size_t errlen)
{
    struct variant_pick pick;
    int n = 0;

    memset(&pick, 0, sizeof pick);
    pick.err = err;
    pick.errlen = errlen;
    int rc = gb_split_list(spec, pick_variant, &pick);
    if (rc != 0) {
        if (gb_split_why(rc))
            list_error(err, errlen, "variant list", spec, gb_split_why(rc));
        return -1;
    }
    for (size_t i = 0; i < gb_variant_count && i < 256; i++)
        if (pick.mark[i] && n < max)
            out[n++] = gb_variants[i];
    if (n == 0) {
        snprintf(err, errlen, "no variant selected");
        return -1;
    }
    return n;
}

/* ---- shapes -------------------------------------------------------------- */

struct shape_build {
    const gb_options *o;
    gb_shape *out;
    int max, n;
    char *err;
    size_t errlen;
};

static int add_shape(struct shape_build *b, const char *kernel, int M, int K, int N)
{
    if (b->n >= b->max) {
        snprintf(b->err, b->errlen, "too many shapes (at most %d)", b->max);
        return -1;
    }
    snprintf(b->out[b->n].kernel, sizeof b->out[b->n].kernel, "%s", kernel);
    b->out[b->n].M = M;
    b->out[b->n].K = K;
    b->out[b->n].N = N;
    b->n++;
    return 0;
}

static int add_kernel_shapes(struct shape_build *b, const gb_kernel_def *k)
{
    const int *ms = k->nm > 0 ? k->m : b->o->m;
    int nm = k->nm > 0 ? k->nm : b->o->nm;

    for (int i = 0; i < nm; i++)
        if (add_shape(b, k->name, ms[i], k->K, k->N) != 0)
            return -1;
    return 0;
}

static const gb_kernel_def *find_kernel(const gb_options *o, const char *name)
{
    for (int i = 0; i < o->ncustom; i++)
        if (strcmp(o->custom[i].name, name) == 0)
            return &o->custom[i];
    for (int i = 0; i < gb_builtin_kernel_count; i++)
        if (strcmp(gb_builtin_kernels[i].name, name) == 0)
            return &gb_builtin_kernels[i];
    return NULL;
}

static int pick_kernel(const char *item, void *arg)
{
    struct shape_build *b = arg;
    const gb_kernel_def *k;

    if (strcmp(item, "all") == 0) {
        for (int i = 0; i < GB_BERT_KERNELS; i++)
            if (add_kernel_shapes(b, &gb_builtin_kernels[i]) != 0)
                return -1;
        return 0;
    }
    k = find_kernel(b->o, item);
    if (k == NULL) {
        snprintf(b->err, b->errlen,
                 "unknown kernel '%s' (known: qkv, mlp_expand, mlp_reduce, square1024, "
                 "bench.conf [kernel] sections, or all)", item);
        return -1;
    }
    return add_kernel_shapes(b, k);
}

int gb_shapes_build(const gb_options *o, gb_shape *out, int max, char *err, size_t errlen)
{
    struct shape_build b = { o, out, max, 0, err, errlen };

    err[0] = '\0';
    if (o->nshapes > 0) {
        for (int i = 0; i < o->nshapes; i++)
            if (add_shape(&b, o->shapes[i].kernel, o->shapes[i].M, o->shapes[i].K,
                          o->shapes[i].N) != 0)
                return -1;
        return b.n;
    }
    int rc = gb_split_list(o->kernels, pick_kernel, &b);
    if (rc != 0) {
        if (gb_split_why(rc) || err[0] == '\0')
            list_error(err, errlen, "kernel list", o->kernels,
                       gb_split_why(rc) ? gb_split_why(rc) : "is malformed");
        return -1;
    }
    if (b.n == 0) {
        snprintf(err, errlen, "no kernel selected");
        return -1;
    }
    return b.n;
}

/* ---- parameters ---------------------------------------------------------- */

long gb_param_get(const gb_params *params, const char *key, long fallback)
{
    if (params == NULL)
        return fallback;
    for (int i = 0; i < params->count; i++)
        if (strcmp(params->key[i], key) == 0)
            return params->value[i];
    return fallback;
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
    char key[64];
    const char *val = split_key(item, key, sizeof key);
    const gb_param_spec *spec;
    long value;

    if (val == NULL) {
        snprintf(pp->err, pp->errlen, "--param '%s' is not key=value", item);
        return -1;
    }
    spec = find_param_spec(pp->v, key);
    if (spec == NULL) {
        char known[256] = "";
        for (const gb_param_spec *s = pp->v->params; s && s->key; s++) {
            strncat(known, known[0] ? ", " : "", sizeof known - strlen(known) - 1);
            strncat(known, s->key, sizeof known - strlen(known) - 1);
        }
        snprintf(pp->err, pp->errlen, "variant %s has no parameter '%s' (it takes: %s)",
                 pp->v->name, key, known[0] ? known : "none");
        return -1;
    }
    if (spec->min > spec->max) {
        snprintf(pp->err, pp->errlen, "parameter '%s' of variant %s is reported, not set",
                 key, pp->v->name);
        return -1;
    }
    if (spec->choices) {
        long idx = -1;
        for (long i = 0; spec->choices[i]; i++)
            if (strcmp(spec->choices[i], val) == 0)
                idx = i;
        if (idx < 0) {
            snprintf(pp->err, pp->errlen, "--param %s: '%s' is not a choice of variant %s",
                     key, val, pp->v->name);
            return -1;
        }
        value = idx;
    } else if (gb_parse_long(val, spec->min, spec->max, &value) != 0) {
        snprintf(pp->err, pp->errlen, "--param %s: '%s' is not an integer in [%ld, %ld]",
                 key, val, spec->min, spec->max);
        return -1;
    }
    /* tk=4,tk=16 is one set naming tk twice, not a choice of the last. */
    if (gb_param_get(pp->p, key, LONG_MIN) != LONG_MIN) {
        snprintf(pp->err, pp->errlen, "--param %s is given twice in one set", key);
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
            list_error(err, errlen, "--param", text,
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

int gb_parse_cache(const char *text, int *cold)
{
    if (strcmp(text, "warm") == 0)
        *cold = 0;
    else if (strcmp(text, "cold") == 0)
        *cold = 1;
    else
        return -1;
    return 0;
}
