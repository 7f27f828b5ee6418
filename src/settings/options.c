/* options.c - defaults and storing settings into gb_options, shapes,
 * variant selection and --param parsing. */
#define _GNU_SOURCE   /* strtok_r, under compilers strict about -std=c11 (clang) */
#include "options.h"
#include "parse.h"
#include "settings.h"

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

void gb_options_defaults(gb_options *o)
{
    char err[GB_ERR_LEN];

    memset(o, 0, sizeof *o);
    /* The table's defaults (settings.c); each of them reads, as a unit test
     * checks.  rounds stays 0: GB_DEFAULT_ROUNDS, fewer when --reps is
     * smaller (gb_cli_parse). */
    gb_settings_defaults(GB_CMD_RUN, gb_options_store, o, err, sizeof err);
}

/* ---- storing a setting ------------------------------------------------------ */

/* A flag's list: the first of a command line replaces what bench.conf or
 * the defaults gave, the others append. */
static int store_list(char *dst, size_t size, const gb_setting_value *v, char *err,
                      size_t errlen)
{
    size_t used;

    if (!v->repeated)
        dst[0] = '\0';
    used = strlen(dst);
    if ((size_t)snprintf(dst + used, size - used, "%s%s", used ? "," : "", v->text) <
        size - used)
        return 0;
    snprintf(err, errlen, "%s: the list is too long", v->name);
    return -1;
}

static int store_m(gb_options *o, const gb_setting_value *v, char *err, size_t errlen)
{
    if (!v->repeated)
        o->nm = 0;
    if (o->nm + v->count > GB_MAX_M) {
        snprintf(err, errlen, "%s: more than %d M values", v->name, GB_MAX_M);
        return -1;
    }
    memcpy(o->m + o->nm, v->list, (size_t)v->count * sizeof *v->list);
    o->nm += v->count;
    return 0;
}

static int store_shape(gb_options *o, const gb_setting_value *v, char *err, size_t errlen)
{
    gb_shape *s = &o->shapes[o->nshapes];

    if (o->nshapes >= GB_MAX_SHAPES) {
        snprintf(err, errlen, "%s: more than %d shapes", v->name, GB_MAX_SHAPES);
        return -1;
    }
    s->M = v->M;
    s->K = v->K;
    s->N = v->N;
    snprintf(s->kernel, sizeof s->kernel, "custom");
    o->nshapes++;
    return 0;
}

static int store_param_set(gb_options *o, const gb_setting_value *v, char *err, size_t errlen)
{
    const char *set = v->text;

    if (o->nparam_sets >= GB_MAX_PARAM_SETS) {
        snprintf(err, errlen, "%s: at most %d --param sets", v->name, GB_MAX_PARAM_SETS);
        return -1;
    }
    if (set[strspn(set, " \t")] == '\0') {
        snprintf(err, errlen, "%s: '%s' is not a key=value list (or defaults)", v->name, set);
        return -1;
    }
    /* The variant's own rules as a set of their own, beside ablations. */
    if (strcmp(set, "defaults") == 0)
        set = "";
    if (strlen(set) >= sizeof o->param_sets[0]) {
        snprintf(err, errlen, "%s: the set is too long", v->name);
        return -1;
    }
    strcpy(o->param_sets[o->nparam_sets++], set);
    return 0;
}

/* --peak ALL,ONE,ISA: GFLOP/s at all threads and at one, and the ISA. */
static int store_peak(gb_options *o, const gb_setting_value *v, char *err, size_t errlen)
{
    int end = 0;

    if (sscanf(v->text, "%lf,%lf,%15[a-z0-9]%n", &o->peak_all, &o->peak_one, o->peak_isa,
               &end) != 3 || v->text[end] != '\0' ||
        !(o->peak_all > 0.0 && o->peak_all < 1e9 && o->peak_one > 0.0 && o->peak_one < 1e9)) {
        snprintf(err, errlen, "%s: '%s' is not ALL,ONE,ISA (GFLOP/s, GFLOP/s, an ISA name)",
                 v->name, v->text);
        return -1;
    }
    return 0;
}

static void store_threads(gb_options *o, const gb_setting_value *v)
{
    memcpy(o->threads_list, v->list, (size_t)v->count * sizeof *v->list);
    o->nthreads_list = v->count;
    o->threads_all = v->all;
    o->threads = v->count == 1 && !v->all ? v->list[0] : 0;
}

int gb_options_store(void *options, const gb_setting *s, const gb_setting_value *v, char *err,
                     size_t errlen)
{
    gb_options *o = options;

    switch (s->id) {
    case GB_SET_VARIANT: return store_list(o->variants, sizeof o->variants, v, err, errlen);
    case GB_SET_KERNEL: return store_list(o->kernels, sizeof o->kernels, v, err, errlen);
    case GB_SET_M: return store_m(o, v, err, errlen);
    case GB_SET_SHAPE: return store_shape(o, v, err, errlen);
    case GB_SET_PARAM: return store_param_set(o, v, err, errlen);
    case GB_SET_PEAK: return store_peak(o, v, err, errlen);
    case GB_SET_THREADS: store_threads(o, v); break;
    case GB_SET_ALL: o->all = 1; break;
    case GB_SET_PREPACK: o->prepack = 1; break;
    case GB_SET_BIND: o->bind = (gb_bind)(GB_BIND_CLOSE + v->number); break;
    case GB_SET_WARMUP: o->warmup = (int)v->number; break;
    case GB_SET_REPS: o->reps = (int)v->number; break;
    case GB_SET_MIN_REPS: o->min_reps = (int)v->number; break;
    case GB_SET_MAX_TIME: o->max_time = v->real; break;
    case GB_SET_MIN_TIME: o->min_time = v->real; break;
    case GB_SET_COOLDOWN: o->cooldown = v->real; break;
    case GB_SET_ROUNDS: o->rounds = (int)v->number; break;
    case GB_SET_ROUND: o->only_round = (int)v->number; break;
    case GB_SET_QUICK: o->quick = 1; break;
    case GB_SET_CHECK: o->check = (int)v->number; break;
    case GB_SET_CACHE: o->cache_cold = v->number == 1; break;
    case GB_SET_FORMAT: o->format = v->format; break;
    case GB_SET_FORCE: o->force = 1; break;
    case GB_SET_QUIET: o->quiet = 1; break;
    case GB_SET_LIST: o->list = 1; break;
    case GB_SET_EXPLAIN: o->explain = 1; break;
    case GB_SET_HELP: o->help = 1; break;
    case GB_SET_VERSION: o->version = 1; break;
    case GB_SET_LOCKSTEP: o->lockstep = 1; break;
    case GB_SET_OUTPUT:
        if (v->text[0] == '\0' || strlen(v->text) >= sizeof o->output) {
            snprintf(err, errlen, "%s: '%s' is not a usable file name", v->name, v->text);
            return -1;
        }
        snprintf(o->output, sizeof o->output, "%s", v->text);
        break;
    case GB_SET_CONFIG: /* read before every other setting (gb_cli_parse) */
        break;
    default:
        snprintf(err, errlen, "%s is not a setting of a run", v->name);
        return -1;
    }
    return 0;
}

/* ---- thread counts ------------------------------------------------------ */

int gb_options_set_threads(gb_options *o, const char *text, char *err, size_t errlen)
{
    gb_setting_value v;

    if (gb_setting_read(gb_setting_by_id(GB_CMD_RUN, GB_SET_THREADS), "threads", text, &v, err,
                        errlen) != 0)
        return -1;
    store_threads(o, &v);
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
