/* options.c - defaults, and storing settings into gb_options. */
#define _GNU_SOURCE   /* strtok_r, under compilers strict about -std=c11 (clang) */
#include "options.h"
#include "parse.h"
#include "settings.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

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

static int add_dtype(const char *item, void *arg)
{
    gb_options *o = arg;
    gb_dtype t;

    if (gb_dtype_parse(item, &t) != 0)
        return -1;
    for (int i = 0; i < o->ndtypes; i++)
        if (o->dtypes[i] == t)
            return -2;
    o->dtypes[o->ndtypes++] = t;
    return 0;
}

/* --dtype f32,bf16: each type once, in the order given. */
static int store_dtypes(gb_options *o, const gb_setting_value *v, char *err, size_t errlen)
{
    int rc;

    o->ndtypes = 0;
    rc = gb_split_list(v->text, add_dtype, o);
    if (rc == 0)
        return 0;
    if (gb_split_why(rc))
        gb_list_error(err, errlen, v->name, v->text, gb_split_why(rc));
    else
        gb_list_error(err, errlen, v->name, v->text,
                      rc == -2 ? "names a type twice" : "names a type other than f32, bf16, u8s8");
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

/* One --schedule path, or bench.conf's comma list of them. */
static int add_schedule(const char *item, void *arg)
{
    gb_options *o = arg;

    if (o->nschedules == GB_MAX_SCHEDULES || strlen(item) >= sizeof o->schedules[0])
        return -1;
    strcpy(o->schedules[o->nschedules++], item);
    return 0;
}

static int store_schedule(gb_options *o, const gb_setting_value *v, char *err, size_t errlen)
{
    const int from_conf = v->name[0] != '-';
    int rc;

    if (!v->repeated) /* the command line's replace bench.conf's */
        o->nschedules = 0;
    rc = from_conf ? gb_split_list(v->text, add_schedule, o)
                   : v->text[0] ? add_schedule(v->text, o) : GB_SPLIT_EMPTY;
    if (rc != 0) {
        gb_list_error(err, errlen, v->name, v->text,
                      gb_split_why(rc) ? gb_split_why(rc)
                                       : "holds too many schedules (at most 16) or too long a path");
        return -1;
    }
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
    case GB_SET_DTYPE: return store_dtypes(o, v, err, errlen);
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
    case GB_SET_SCHEDULE: return store_schedule(o, v, err, errlen);
    case GB_SET_EMIT_C: o->emit_c = 1; break;
    case GB_SET_MODEL:
        if (v->text[0] == '\0' || strlen(v->text) >= sizeof o->model) {
            snprintf(err, errlen, "%s: '%s' is not a usable file name (or none)", v->name,
                     v->text);
            return -1;
        }
        snprintf(o->model, sizeof o->model, "%s", v->text);
        break;
    case GB_SET_BLIS_ARCH:
        /* a name: BLIS's are short lower-case words (checked against the
         * library when the run starts) */
        if (v->text[0] == '\0' || strlen(v->text) >= sizeof o->blis_arch ||
            strspn(v->text, "abcdefghijklmnopqrstuvwxyz0123456789") != strlen(v->text)) {
            snprintf(err, errlen, "%s: '%s' is not a BLIS sub-configuration name (skx, "
                     "haswell, zen3, ...)", v->name, v->text);
            return -1;
        }
        snprintf(o->blis_arch, sizeof o->blis_arch, "%s", v->text);
        break;
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
