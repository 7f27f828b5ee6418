/* output.c - rows for the terminal and documents for the file. */
#define _GNU_SOURCE
#include "output.h"
#include "parse.h"
#include "roof.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef GB_GIT
#define GB_GIT "unknown"
#endif
#ifndef GB_GIT_COMMIT
#define GB_GIT_COMMIT ""
#endif
#ifndef GB_GIT_DATE
#define GB_GIT_DATE ""
#endif
#ifndef GB_GIT_DIRTY
#define GB_GIT_DIRTY 0
#endif
#ifndef GB_CFLAGS
#define GB_CFLAGS "unknown"
#endif

const char *gb_check_word(const gb_result *r)
{
    switch (r->check) {
    case GB_CHECK_PASS:
        return r->check_exact ? "pass" : "pass~";
    case GB_CHECK_FAIL:
        return "FAIL";
    default:
        return "skip";
    }
}

/* ---- JSON ----------------------------------------------------------------- */

/* hwloc's view of the machine; {"available": false} without it. */
static cJSON *topology_json(const gb_topology *t)
{
    cJSON *o = cJSON_CreateObject(), *caches, *kinds;

    cJSON_AddBoolToObject(o, "available", t->available);
    if (!t->available)
        return o;
    cJSON_AddStringToObject(o, "source", t->source);
    cJSON_AddNumberToObject(o, "packages", t->packages);
    cJSON_AddNumberToObject(o, "cores", t->cores);
    cJSON_AddNumberToObject(o, "hardware_threads", t->pus);
    cJSON_AddNumberToObject(o, "numa_nodes", t->numa_nodes);
    caches = cJSON_AddArrayToObject(o, "caches");
    for (int i = 0; i < t->ncaches; i++) {
        const gb_topo_cache *c = &t->caches[i];
        cJSON *e = cJSON_CreateObject();
        if (e == NULL || !cJSON_AddItemToArray(caches, e))
            break;
        cJSON_AddNumberToObject(e, "level", c->level);
        cJSON_AddStringToObject(e, "type", c->type);
        cJSON_AddNumberToObject(e, "size_bytes", (double)c->size_bytes);
        cJSON_AddNumberToObject(e, "line_bytes", c->line_bytes);
        cJSON_AddNumberToObject(e, "ways", c->ways);
        cJSON_AddNumberToObject(e, "count", c->count);
        cJSON_AddNumberToObject(e, "cpus_each", c->cpus_each);
        cJSON_AddStringToObject(e, "first_cpus", c->first_cpus);
    }
    kinds = cJSON_AddArrayToObject(o, "cpu_kinds");
    for (int i = 0; i < t->nkinds; i++) {
        const gb_topo_kind *k = &t->kinds[i];
        cJSON *e = cJSON_CreateObject();
        if (e == NULL || !cJSON_AddItemToArray(kinds, e))
            break;
        cJSON_AddStringToObject(e, "cpus", k->cpu_list);
        cJSON_AddNumberToObject(e, "count", k->cpus);
        cJSON_AddNumberToObject(e, "efficiency", k->efficiency);
        if (k->core_type[0])
            cJSON_AddStringToObject(e, "core_type", k->core_type);
        if (k->max_mhz > 0)
            cJSON_AddNumberToObject(e, "max_mhz", (double)k->max_mhz);
    }
    return o;
}

/* One figure pair of a level: {"read_gbs", "read_median_gbs", ...}. */
static cJSON *bandwidth_figures(const gb_bw_level *lv, int c)
{
    cJSON *o = cJSON_CreateObject();

    cJSON_AddNumberToObject(o, "bytes", (double)lv->bytes[c]);
    cJSON_AddNumberToObject(o, "read_gbs", lv->read_gbs[c]);
    cJSON_AddNumberToObject(o, "read_median_gbs", lv->read_median_gbs[c]);
    cJSON_AddNumberToObject(o, "triad_gbs", lv->triad_gbs[c]);
    cJSON_AddNumberToObject(o, "triad_median_gbs", lv->triad_median_gbs[c]);
    return o;
}

/* The cache levels the sweep found: its points, and per level the reported,
 * measured and used sizes with the reason (src/measure/bandwidth.md). */
static cJSON *levels_json(const gb_cache_levels *lv)
{
    static const char *const names[4] = { "", "L1d", "L2", "L3" };
    cJSON *o = cJSON_CreateObject(), *bytes, *gbs;

    if (o == NULL)
        return NULL;
    cJSON_AddNumberToObject(o, "seconds", lv->seconds);
    cJSON_AddBoolToObject(o, "budget_cut", lv->budget_cut);
    bytes = cJSON_AddArrayToObject(o, "bytes");
    gbs = cJSON_AddArrayToObject(o, "read_gbs");
    for (int i = 0; i < lv->npoints && bytes && gbs; i++) {
        cJSON_AddItemToArray(bytes, cJSON_CreateNumber(lv->bytes[i]));
        cJSON_AddItemToArray(gbs, cJSON_CreateNumber(lv->gbs[i]));
    }
    for (int l = 1; l <= 3; l++) {
        cJSON *one = cJSON_AddObjectToObject(o, names[l]);
        if (one == NULL)
            continue;
        cJSON_AddNumberToObject(one, "reported_bytes", (double)lv->reported[l]);
        if (lv->measured[l] > 0) {
            cJSON_AddNumberToObject(one, "measured_bytes", (double)lv->measured[l]);
            cJSON_AddNumberToObject(one, "read_gbs", lv->level_gbs[l]);
        } else {
            cJSON_AddNullToObject(one, "measured_bytes");
            cJSON_AddNullToObject(one, "read_gbs");
        }
        cJSON_AddNumberToObject(one, "used_bytes", (double)lv->used[l]);
        cJSON_AddStringToObject(one, "why", lv->why[l]);
    }
    cJSON_AddNumberToObject(o, "memory_read_gbs", lv->memory_gbs);
    return o;
}

/* The measured bandwidths (src/measure/bandwidth.md): per level, 1 thread and all. */
static cJSON *bandwidth_json(const gb_bandwidth *bw)
{
    cJSON *o = cJSON_CreateObject();

    cJSON_AddNumberToObject(o, "threads", bw->threads);
    cJSON_AddNumberToObject(o, "trials", bw->trials);
    cJSON_AddBoolToObject(o, "memory_capped", bw->capped);
    cJSON_AddStringToObject(o, "method", bw->quick ? "quick" : "full");
    for (int l = 0; l < GB_BW_LEVELS; l++) {
        const gb_bw_level *lv = &bw->level[l];
        cJSON *level;
        if (lv->bytes[0] == 0 && lv->bytes[1] == 0)
            continue;
        level = cJSON_AddObjectToObject(o, gb_bw_level_name(l));
        if (level == NULL)
            continue;
        cJSON_AddItemToObject(level, "1thread", bandwidth_figures(lv, 0));
        cJSON_AddItemToObject(level, "all_threads", bandwidth_figures(lv, 1));
    }
    if (bw->levels.swept)
        cJSON_AddItemToObject(o, "levels", levels_json(&bw->levels));
    return o;
}

static void add_id(cJSON *o, const char *name, long id)
{
    if (id >= 0)
        cJSON_AddNumberToObject(o, name, (double)id);
    else
        cJSON_AddNullToObject(o, name);
}

/* machine.slurm: the job that ran this file (results/FORMAT.md). */
static cJSON *slurm_json(const gb_slurm *s)
{
    cJSON *o = cJSON_CreateObject();

    if (o == NULL)
        return NULL;
    add_id(o, "job_id", s->job_id);
    add_id(o, "array_job_id", s->array_job_id);
    add_id(o, "array_task_id", s->array_task_id);
    cJSON_AddStringToObject(o, "node", s->node);
    cJSON_AddStringToObject(o, "partition", s->partition);
    cJSON_AddNumberToObject(o, "cpus", s->cpus);
    return o;
}

/* packed's calibration per thread count (results/FORMAT.md). */
static cJSON *calibration_json(const gb_machine *m)
{
    cJSON *list = cJSON_CreateArray();

    for (int i = 0; list != NULL && i < m->ncalib; i++) {
        const gb_calibration *c = &m->calib[i];
        cJSON *o = cJSON_CreateObject();
        if (o == NULL)
            continue;
        cJSON_AddNumberToObject(o, "threads", c->threads);
        cJSON_AddStringToObject(o, "source", c->source);
        if (c->rounds > 0)
            cJSON_AddNumberToObject(o, "rounds", c->rounds);
        for (int q = 0; q < GB_CALIB_QUESTIONS; q++) {
            const gb_calib_answer *a = &c->answer[q];
            cJSON *ans = cJSON_AddObjectToObject(o, gb_calib_questions[q].name);
            if (ans == NULL)
                continue;
            cJSON_AddStringToObject(ans, "read", gb_calib_questions[q].answers[a->read]);
            if (a->same_plan) {
                cJSON_AddTrueToObject(ans, "same_plan");
                cJSON_AddStringToObject(ans, "shapes", gb_calib_questions[q].shapes);
            } else if (a->ratio > 0.0) {
                cJSON_AddNumberToObject(ans, "ratio", a->ratio);
                cJSON_AddNumberToObject(ans, "ratio_p10", a->ratio_p10);
                cJSON_AddNumberToObject(ans, "ratio_p90", a->ratio_p90);
                cJSON_AddStringToObject(ans, "shapes", gb_calib_questions[q].shapes);
            }
        }
        if (c->small_t_us > 0.0) {
            cJSON_AddNumberToObject(o, "small_us", c->small_us);
            cJSON_AddNumberToObject(o, "small_t_us", c->small_t_us);
        }
        cJSON_AddItemToArray(list, o);
    }
    return list;
}

/* "dtype_peaks": each other type's peak the run measured. */
static void add_dtype_peaks(cJSON *o, const gb_machine *m)
{
    cJSON *peaks = NULL;

    for (int t = GB_DTYPE_F32 + 1; t < GB_DTYPE_COUNT; t++) {
        cJSON *p;
        if (m->peak_dtype[t] <= 0.0 && m->peak_dtype_1t[t] <= 0.0)
            continue;
        if (peaks == NULL && (peaks = cJSON_AddObjectToObject(o, "dtype_peaks")) == NULL)
            return;
        if ((p = cJSON_AddObjectToObject(peaks, gb_dtype_name((gb_dtype)t))) == NULL)
            return;
        cJSON_AddStringToObject(p, "unit", gb_dtype_is_integer((gb_dtype)t) ? "GOP/s"
                                                                            : "GFLOP/s");
        if (m->peak_dtype[t] > 0.0)
            cJSON_AddNumberToObject(p, "peak", m->peak_dtype[t]);
        else
            cJSON_AddNullToObject(p, "peak");
        if (m->peak_dtype_1t[t] > 0.0)
            cJSON_AddNumberToObject(p, "peak_1thread", m->peak_dtype_1t[t]);
        if (m->peak_dtype_isa[t][0])
            cJSON_AddStringToObject(p, "isa", m->peak_dtype_isa[t]);
    }
}

static cJSON *machine_json(const gb_machine *m)
{
    cJSON *o = cJSON_CreateObject(), *isa, *caches;

    cJSON_AddStringToObject(o, "hostname", m->hostname);
    cJSON_AddStringToObject(o, "cpu_model", m->cpu_model);
    /* Two kinds can share a model name (a guest's "AMD EPYC" of family 25
     * and of 26): the family, model and stepping tell them apart. */
    if (m->cpu_id[0])
        cJSON_AddStringToObject(o, "cpu_id", m->cpu_id);
    cJSON_AddStringToObject(o, "arch", m->arch);
    cJSON_AddNumberToObject(o, "logical_cpus", m->logical_cpus);
    cJSON_AddNumberToObject(o, "affinity_cpus", m->affinity_cpus);
    isa = cJSON_AddArrayToObject(o, "isa");
    for (int i = 0; i < m->nisa; i++)
        cJSON_AddItemToArray(isa, cJSON_CreateString(m->isa[i]));
    caches = cJSON_AddObjectToObject(o, "caches");
    for (int i = 0; i < m->ncaches; i++) {
        char name[32];
        const gb_cache *c = &m->caches[i];
        cJSON *entry;
        snprintf(name, sizeof name, "L%d%s", c->level,
                 strcmp(c->type, "Data") == 0 ? "d"
                 : strcmp(c->type, "Instruction") == 0 ? "i" : "");
        entry = cJSON_AddObjectToObject(caches, name);
        if (entry == NULL)
            continue;
        cJSON_AddNumberToObject(entry, "size_bytes", (double)c->size_bytes);
        cJSON_AddNumberToObject(entry, "line_bytes", c->line_bytes);
        cJSON_AddNumberToObject(entry, "ways", c->ways);
        cJSON_AddStringToObject(entry, "shared_cpus", c->shared_cpus);
    }
    if (m->peak_gflops > 0.0)
        cJSON_AddNumberToObject(o, "peak_gflops", m->peak_gflops);
    else
        cJSON_AddNullToObject(o, "peak_gflops");
    if (m->peak_gflops_1t > 0.0)
        cJSON_AddNumberToObject(o, "peak_gflops_1thread", m->peak_gflops_1t);
    if (m->peak_isa[0])
        cJSON_AddStringToObject(o, "peak_isa", m->peak_isa);
    if (m->peak_method[0])
        cJSON_AddStringToObject(o, "peak_method", m->peak_method);
    add_dtype_peaks(o, m);
    cJSON_AddItemToObject(o, "topology", topology_json(&m->topo));
    if (m->bw.measured)
        cJSON_AddItemToObject(o, "bandwidth", bandwidth_json(&m->bw));
    if (m->slurm.present)
        cJSON_AddItemToObject(o, "slurm", slurm_json(&m->slurm));
    if (m->ncalib > 0)
        cJSON_AddItemToObject(o, "calibration", calibration_json(m));
    return o;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void add_env(cJSON *obj, const char *name)
{
    const char *v = getenv(name);
    if (v)
        cJSON_AddStringToObject(obj, name, v);
    else
        cJSON_AddNullToObject(obj, name);
}

/* Every other variable in force that steers the OpenMP runtime or a
 * reference library's threads (OMP_WAIT_POLICY alone can make a 2-thread
 * call twice as slow), sorted so two files list them alike. */
static void add_threading_env(cJSON *obj)
{
    static const char *const prefixes[] = { "OMP_", "GOMP_", "KMP_", "OPENBLAS_", "GOTO_",
                                            "BLIS_", "DNNL_", "ONEDNN_", NULL };
    extern char **environ;
    const char *names[256];
    int n = 0;

    for (char **e = environ; e && *e && n < 256; e++)
        for (int p = 0; prefixes[p]; p++)
            if (strncmp(*e, prefixes[p], strlen(prefixes[p])) == 0) {
                names[n++] = *e;
                break;
            }
    qsort(names, (size_t)n, sizeof *names, compare_strings);
    for (int i = 0; i < n; i++) {
        char name[128];
        const char *eq = strchr(names[i], '=');
        size_t len = eq ? (size_t)(eq - names[i]) : strlen(names[i]);
        if (len >= sizeof name)
            continue;
        memcpy(name, names[i], len);
        name[len] = '\0';
        if (cJSON_GetObjectItemCaseSensitive(obj, name) == NULL)
            cJSON_AddStringToObject(obj, name, eq ? eq + 1 : "");
    }
}

static const char *format_name(gb_format f)
{
    static const char *const names[] = { "table", "json", "csv", "md" };
    return names[f];
}

int gb_json_add_library(cJSON *doc, const char *variant, const gb_library *lib)
{
    cJSON *tool = cJSON_GetObjectItemCaseSensitive(doc, "tool");
    cJSON *libs = cJSON_GetObjectItemCaseSensitive(tool, "libraries"), *one;

    if (tool == NULL || (libs == NULL && (libs = cJSON_AddObjectToObject(tool, "libraries")) == NULL))
        return -1;
    if ((one = cJSON_AddObjectToObject(libs, variant)) == NULL)
        return -1;
    if (cJSON_AddStringToObject(one, "version", lib->version) == NULL ||
        cJSON_AddStringToObject(one, "kernels", lib->kernels) == NULL)
        return -1;
    if (lib->forced_by[0] && cJSON_AddStringToObject(one, "forced_by", lib->forced_by) == NULL)
        return -1;
    return 0;
}

int gb_json_add_library_impl(cJSON *doc, const char *variant, gb_dtype t, const char *impl)
{
    cJSON *one = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "tool"),
                                         "libraries"),
        variant);
    cJSON *impls, *list, *item;

    if (one == NULL)
        return 0; /* not a library of this run's tool block */
    if ((impls = cJSON_GetObjectItemCaseSensitive(one, "impl")) == NULL &&
        (impls = cJSON_AddObjectToObject(one, "impl")) == NULL)
        return -1;
    if ((list = cJSON_GetObjectItemCaseSensitive(impls, gb_dtype_name(t))) == NULL &&
        (list = cJSON_AddArrayToObject(impls, gb_dtype_name(t))) == NULL)
        return -1;
    cJSON_ArrayForEach(item, list)
        if (cJSON_IsString(item) && strcmp(item->valuestring, impl) == 0)
            return 0;
    return cJSON_AddItemToArray(list, cJSON_CreateString(impl)) ? 0 : -1;
}

cJSON *gb_json_begin(const gb_machine *m, const gb_options *o, int threads,
                     const char *started, int argc, char **argv)
{
    cJSON *doc = cJSON_CreateObject(), *tool, *run, *config, *env, *ms, *params;
    char command[4096] = "";
    size_t used = 0;

    if (doc == NULL)
        return NULL;
    cJSON_AddStringToObject(doc, "schema", GB_SCHEMA);
    cJSON_AddFalseToObject(doc, "complete");

    tool = cJSON_AddObjectToObject(doc, "tool");
    cJSON_AddStringToObject(tool, "version", GB_VERSION);
    cJSON_AddStringToObject(tool, "git", GB_GIT);
    /* The build's commit in full, its committer date and whether the tree
     * had changes: `history add` keys a file by them (results/FORMAT.md);
     * absent outside a git tree. */
    if (GB_GIT_COMMIT[0] != '\0') {
        cJSON_AddStringToObject(tool, "git_commit", GB_GIT_COMMIT);
        cJSON_AddStringToObject(tool, "git_date", GB_GIT_DATE);
        cJSON_AddBoolToObject(tool, "git_dirty", GB_GIT_DIRTY);
    }
    cJSON_AddStringToObject(tool, "compiler", "gcc-compatible " __VERSION__);
    cJSON_AddStringToObject(tool, "cflags", GB_CFLAGS);

    cJSON_AddItemToObject(doc, "machine", machine_json(m));

    run = cJSON_AddObjectToObject(doc, "run");
    cJSON_AddStringToObject(run, "started", started);
    for (int i = 0; i < argc && used < sizeof command; i++) {
        int n = snprintf(command + used, sizeof command - used, "%s%s", i ? " " : "", argv[i]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    cJSON_AddStringToObject(run, "command", command);
    cJSON_AddNumberToObject(run, "threads", threads);
    cJSON_AddNumberToObject(run, "warmup", o->warmup);
    cJSON_AddNumberToObject(run, "reps", o->reps);
    cJSON_AddNumberToObject(run, "min_reps", o->min_reps);
    cJSON_AddNumberToObject(run, "max_time_s", o->max_time);
    cJSON_AddNumberToObject(run, "min_time_s", o->min_time);
    cJSON_AddNumberToObject(run, "cooldown_s", o->cooldown);
    cJSON_AddNumberToObject(run, "rounds", o->rounds);
    cJSON_AddBoolToObject(run, "check", o->check);
    cJSON_AddBoolToObject(run, "quick", o->quick);
    cJSON_AddBoolToObject(run, "prepack", o->prepack);
    cJSON_AddStringToObject(run, "cache", o->cache_cold ? "cold" : "warm");
    config = cJSON_AddObjectToObject(run, "config");
    if (o->config_path[0])
        cJSON_AddStringToObject(config, "file", o->config_path);
    else
        cJSON_AddNullToObject(config, "file");
    cJSON_AddStringToObject(config, "variants", o->variants);
    cJSON_AddStringToObject(config, "kernels", o->kernels);
    ms = cJSON_AddArrayToObject(config, "m");
    for (int i = 0; i < o->nm; i++)
        cJSON_AddItemToArray(ms, cJSON_CreateNumber(o->m[i]));
    params = cJSON_AddArrayToObject(config, "params");
    for (int i = 0; i < o->nparam_sets; i++)
        cJSON_AddItemToArray(params, cJSON_CreateString(o->param_sets[i]));
    cJSON_AddStringToObject(config, "format", format_name(o->format));
    if (o->blis_arch[0])
        cJSON_AddStringToObject(config, "blis_arch", o->blis_arch);
    env = cJSON_AddObjectToObject(run, "openmp");
    add_env(env, "OMP_NUM_THREADS");
    add_env(env, "OMP_PROC_BIND");
    add_env(env, "OMP_PLACES");
    add_env(env, "GOMP_CPU_AFFINITY");
    add_threading_env(env);
    cJSON_AddNumberToObject(env, "affinity_cpus", m->affinity_cpus);

    cJSON_AddArrayToObject(doc, "results");
    return doc;
}

cJSON *gb_params_json(const gb_variant *v, const gb_params *p)
{
    cJSON *o = cJSON_CreateObject();
    for (int i = 0; i < p->count; i++) {
        const gb_param_spec *spec = NULL;
        for (const gb_param_spec *s = v ? v->params : NULL; s && s->key; s++)
            if (strcmp(s->key, p->key[i]) == 0)
                spec = s;
        /* A key the variant only reports from its base (tuned_packed: isa). */
        for (const gb_param_spec *s = v && v->base ? v->base->params : NULL;
             spec == NULL && s && s->key; s++)
            if (strcmp(s->key, p->key[i]) == 0)
                spec = s;
        if (spec && spec->choices)
            cJSON_AddStringToObject(o, p->key[i], spec->choices[p->value[i]]);
        else
            cJSON_AddNumberToObject(o, p->key[i], (double)p->value[i]);
    }
    return o;
}

static void add_optional_number(cJSON *o, const char *key, double v)
{
    if (isnan(v))
        cJSON_AddNullToObject(o, key);
    else
        cJSON_AddNumberToObject(o, key, v);
}

/* Sets key to v (null when v is NAN), in place when o has it already. */
static void put_number(cJSON *o, const char *key, double v)
{
    cJSON *item = isnan(v) ? cJSON_CreateNull() : cJSON_CreateNumber(v);

    if (!cJSON_ReplaceItemInObjectCaseSensitive(o, key, item))
        cJSON_AddItemToObject(o, key, item);
}

/* "roof_measured_low": true when the entry beat its roof (roof.h); absent
 * otherwise. */
static void put_roof_low(cJSON *o, double roof_pct)
{
    cJSON_DeleteItemFromObjectCaseSensitive(o, "roof_measured_low");
    if (gb_roof_measured_low(roof_pct))
        cJSON_AddBoolToObject(o, "roof_measured_low", 1);
}

void gb_json_put_timing(cJSON *o, const gb_stats *st, double gflops, double peak_pct)
{
    const cJSON *attainable;

    put_number(o, "median_us", st->median);
    put_number(o, "min_us", st->min);
    put_number(o, "max_us", st->max);
    put_number(o, "mean_us", st->mean);
    put_number(o, "stddev_us", st->stddev);
    put_number(o, "cv", st->cv);
    put_number(o, "p10_us", st->p10);
    put_number(o, "p90_us", st->p90);
    put_number(o, "mad_us", st->mad);
    put_number(o, "gflops", gflops);
    put_number(o, "peak_pct", peak_pct);
    /* A result with a roof: its %roof follows the median (ab's merges). */
    attainable = cJSON_GetObjectItemCaseSensitive(o, "attainable_gflops");
    if (cJSON_IsNumber(attainable) && attainable->valuedouble > 0.0) {
        put_number(o, "roof_pct", 100.0 * gflops / attainable->valuedouble);
        put_roof_low(o, 100.0 * gflops / attainable->valuedouble);
    }
}

/* The cache mode and the roofline fields (results/FORMAT.md). */
static void add_roof(cJSON *o, const gb_result *r)
{
    cJSON_AddStringToObject(o, "cache", r->cold ? "cold" : "warm");
    if (r->cold)
        cJSON_AddNumberToObject(o, "cache_copies", r->copies);
    cJSON_AddNumberToObject(o, "intensity", r->intensity);
    if (isnan(r->attainable_gflops)) {
        cJSON_AddNullToObject(o, "roof");
        cJSON_AddNullToObject(o, "attainable_gflops");
        cJSON_AddNullToObject(o, "roof_pct");
        return;
    }
    cJSON_AddStringToObject(o, "roof", gb_roof_bound_name(r->roof_bound));
    cJSON_AddStringToObject(o, "operands_in", gb_bw_level_name(r->roof_level));
    cJSON_AddNumberToObject(o, "attainable_gflops", r->attainable_gflops);
    add_optional_number(o, "roof_pct", r->roof_pct);
    put_roof_low(o, r->roof_pct);
}

/* An array of n numbers, ints when ints is not NULL; NULL when out of memory. */
static cJSON *number_array(const double *v, const int *ints, int n)
{
    cJSON *a = cJSON_CreateArray();

    for (int i = 0; a && i < n; i++)
        if (!cJSON_AddItemToArray(a, cJSON_CreateNumber(ints ? ints[i] : v[i]))) {
            cJSON_Delete(a);
            return NULL;
        }
    return a;
}

/* "round_clocks" (results/FORMAT.md): one object per round, in the order
 * merged; an unknown CPU time, steal or switch count is null.  NULL when
 * out of memory. */
static cJSON *round_clocks_json(const gb_result *r)
{
    cJSON *a = cJSON_CreateArray();

    for (int i = 0; a && i < r->nround_clocks; i++) {
        const gb_round_clock *c = &r->round_clocks[i];
        cJSON *o = cJSON_CreateObject();
        if (o == NULL || !cJSON_AddItemToArray(a, o)) {
            cJSON_Delete(o);
            cJSON_Delete(a);
            return NULL;
        }
        cJSON_AddNumberToObject(o, "round", c->round);
        cJSON_AddNumberToObject(o, "wall_s", c->wall_s);
        add_optional_number(o, "cpu_s", isfinite(c->cpu_s) ? c->cpu_s : NAN);
        add_optional_number(o, "steal_s", isfinite(c->steal_s) ? c->steal_s : NAN);
        add_optional_number(o, "nivcsw", c->nivcsw >= 0 ? (double)c->nivcsw : NAN);
        if (cJSON_GetArraySize(o) != 5) {
            cJSON_Delete(a);
            return NULL;
        }
    }
    return a;
}

/* Sets key to item (taking it), in place when o has it already. */
static int put_item(cJSON *o, const char *key, cJSON *item)
{
    if (item == NULL)
        return -1;
    if (cJSON_GetObjectItemCaseSensitive(o, key) != NULL)
        return cJSON_ReplaceItemInObjectCaseSensitive(o, key, item) ? 0 : -1;
    return cJSON_AddItemToObject(o, key, item) ? 0 : -1;
}

int gb_json_put_samples(cJSON *o, const gb_result *r, double peak)
{
    put_number(o, "reps", r->reps);
    put_number(o, "rounds", r->rounds);
    gb_json_put_timing(o, &r->stats, r->gflops, peak > 0.0 ? 100.0 * r->gflops / peak : NAN);
    if (put_item(o, "samples_us", number_array(r->samples_us, NULL, r->reps)) != 0)
        return -1;
    if (r->nround_clocks > 0 && put_item(o, "round_clocks", round_clocks_json(r)) != 0)
        return -1;
    if (r->sample_round == NULL) {
        cJSON_DeleteItemFromObjectCaseSensitive(o, "sample_rounds");
        return 0;
    }
    return put_item(o, "sample_rounds", number_array(NULL, r->sample_round, r->reps));
}

void gb_json_put_speedup(cJSON *o, double speedup)
{
    put_number(o, "speedup_vs_baseline", isfinite(speedup) ? speedup : NAN);
}

cJSON *gb_json_result_at(cJSON *doc, int index)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "results"), index);
}

int gb_json_append_copy(cJSON *doc, const cJSON *result)
{
    cJSON *results = cJSON_GetObjectItemCaseSensitive(doc, "results");
    cJSON *copy = cJSON_Duplicate(result, 1);

    if (results == NULL || copy == NULL || !cJSON_AddItemToArray(results, copy)) {
        cJSON_Delete(copy);
        return -1;
    }
    return 0;
}

int gb_json_add_result(cJSON *doc, const gb_result *r)
{
    cJSON *results = cJSON_GetObjectItemCaseSensitive(doc, "results");

    return gb_json_set_result(doc, results ? cJSON_GetArraySize(results) : 0, r);
}

int gb_json_set_result(cJSON *doc, int index, const gb_result *r)
{
    cJSON *results = cJSON_GetObjectItemCaseSensitive(doc, "results");
    cJSON *o = cJSON_CreateObject(), *samples;
    int size = results ? cJSON_GetArraySize(results) : 0;

    if (results == NULL || o == NULL || index < 0 || index > size) {
        cJSON_Delete(o);
        return -1;
    }
    cJSON_AddStringToObject(o, "variant", r->variant->name);
    cJSON_AddStringToObject(o, "label", r->label);
    cJSON_AddStringToObject(o, "family", r->variant->family);
    cJSON_AddStringToObject(o, "kernel", r->shape.kernel);
    cJSON_AddNumberToObject(o, "M", r->shape.M);
    cJSON_AddNumberToObject(o, "K", r->shape.K);
    cJSON_AddNumberToObject(o, "N", r->shape.N);
    cJSON_AddStringToObject(o, "dtype", gb_dtype_name(r->dtype));
    if (r->impl[0])
        cJSON_AddStringToObject(o, "impl", r->impl);
    cJSON_AddNumberToObject(o, "threads", r->threads);
    cJSON_AddBoolToObject(o, "prepack", r->prepack);
    cJSON_AddNumberToObject(o, "reps", r->reps);
    cJSON_AddNumberToObject(o, "rounds", r->rounds);
    gb_json_put_timing(o, &r->stats, r->gflops, r->peak_pct);
    add_optional_number(o, "speedup_vs_baseline", r->speedup);
    add_roof(o, r);
    cJSON_AddStringToObject(o, "check", r->check == GB_CHECK_PASS   ? "pass"
                                        : r->check == GB_CHECK_FAIL ? "fail"
                                                                    : "skipped");
    if (r->check != GB_CHECK_SKIPPED) {
        cJSON_AddStringToObject(o, "check_mode", r->check_exact ? "exact" : "tolerance");
        cJSON_AddNumberToObject(o, "mismatches", (double)r->mismatches);
        add_optional_number(o, "max_abs_err", isinf(r->max_abs_err) ? NAN : r->max_abs_err);
    }
    cJSON_AddItemToObject(o, "params", gb_params_json(r->variant, &r->params));
    if (r->has_effective)
        cJSON_AddItemToObject(o, "effective_params", gb_params_json(r->variant, &r->effective));
    samples = cJSON_AddArrayToObject(o, "samples_us");
    for (int i = 0; i < r->reps; i++)
        cJSON_AddItemToArray(samples, cJSON_CreateNumber(r->samples_us[i]));
    if (r->sample_round) {
        cJSON *tags = cJSON_AddArrayToObject(o, "sample_rounds");
        for (int i = 0; i < r->reps; i++)
            cJSON_AddItemToArray(tags, cJSON_CreateNumber(r->sample_round[i]));
    }
    if (r->nround_clocks > 0 && !cJSON_AddItemToObject(o, "round_clocks", round_clocks_json(r))) {
        cJSON_Delete(o);
        return -1;
    }
    if (index == size)
        return cJSON_AddItemToArray(results, o) ? 0 : -1;
    return cJSON_ReplaceItemInArray(results, index, o) ? 0 : -1;
}

int gb_write_file_atomic(const char *path, const char *text, size_t len, char *err,
                         size_t errlen)
{
    char tmp[4200], shown[256];
    size_t done = 0;
    int fd;

    gb_printable(path, 200, shown, sizeof shown); /* as every message shows a path */
    if (snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= (int)sizeof tmp) {
        snprintf(err, errlen, "path too long: %s", shown);
        return -1;
    }
    fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(err, errlen, "cannot write %s: %s", shown, strerror(errno));
        return -1;
    }
    while (done < len) {
        ssize_t n = write(fd, text + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    if (done < len || fchmod(fd, 0644) != 0 || fsync(fd) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", shown, strerror(errno ? errno : EIO));
        close(fd);
        unlink(tmp);
        return -1;
    }
    if (close(fd) != 0 || rename(tmp, path) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", shown, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

int gb_json_write_atomic(cJSON *doc, const char *path, int complete, char *err, size_t errlen)
{
    char *text;
    size_t len;
    int rc;

    /* A document without "complete" (a calibration file) keeps none. */
    if (cJSON_GetObjectItemCaseSensitive(doc, "complete") != NULL)
        cJSON_ReplaceItemInObjectCaseSensitive(doc, "complete", cJSON_CreateBool(complete));
    text = cJSON_Print(doc);
    if (text == NULL) {
        snprintf(err, errlen, "out of memory writing %s", path);
        return -1;
    }
    len = strlen(text);
    char *line = realloc(text, len + 2);
    if (line == NULL) {
        free(text);
        snprintf(err, errlen, "out of memory writing %s", path);
        return -1;
    }
    line[len] = '\n';
    line[len + 1] = '\0';
    rc = gb_write_file_atomic(path, line, len + 1, err, errlen);
    free(line);
    return rc;
}

int gb_json_add_thread_counts(cJSON *doc, const int *counts, const double *peaks, int n)
{
    cJSON *run = cJSON_GetObjectItemCaseSensitive(doc, "run");
    cJSON *machine = cJSON_GetObjectItemCaseSensitive(doc, "machine");
    cJSON *list, *by;

    if (run == NULL || machine == NULL)
        return -1;
    list = cJSON_AddArrayToObject(run, "thread_counts");
    by = cJSON_AddArrayToObject(machine, "peak_gflops_by_threads");
    if (list == NULL || by == NULL)
        return -1;
    for (int i = 0; i < n; i++) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddItemToArray(list, cJSON_CreateNumber(counts[i]));
        if (p == NULL || !cJSON_AddItemToArray(by, p))
            return -1;
        cJSON_AddNumberToObject(p, "threads", counts[i]);
        if (peaks[i] > 0.0)
            cJSON_AddNumberToObject(p, "gflops", peaks[i]);
        else
            cJSON_AddNullToObject(p, "gflops");
    }
    return 0;
}

int gb_json_add_dtype_thread_peaks(cJSON *doc, gb_dtype t, const int *counts,
                                   const double *peaks, int n)
{
    cJSON *machine = cJSON_GetObjectItemCaseSensitive(doc, "machine");
    cJSON *all = cJSON_GetObjectItemCaseSensitive(machine, "dtype_peaks");
    cJSON *p = cJSON_GetObjectItemCaseSensitive(all, gb_dtype_name(t)), *by;

    if (p == NULL || (by = cJSON_AddArrayToObject(p, "by_threads")) == NULL)
        return -1;
    for (int i = 0; i < n; i++) {
        cJSON *q = cJSON_CreateObject();
        if (q == NULL || !cJSON_AddItemToArray(by, q))
            return -1;
        cJSON_AddNumberToObject(q, "threads", counts[i]);
        if (peaks[i] > 0.0)
            cJSON_AddNumberToObject(q, "peak", peaks[i]);
        else
            cJSON_AddNullToObject(q, "peak");
    }
    return 0;
}

int gb_json_add_skipped(cJSON *doc, const char *variant, gb_dtype t, const char *reason)
{
    cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "skipped"), *o;

    if (list == NULL && (list = cJSON_AddArrayToObject(doc, "skipped")) == NULL)
        return -1;
    if ((o = cJSON_CreateObject()) == NULL || !cJSON_AddItemToArray(list, o))
        return -1;
    cJSON_AddStringToObject(o, "variant", variant);
    cJSON_AddStringToObject(o, "dtype", gb_dtype_name(t));
    cJSON_AddStringToObject(o, "reason", reason);
    return 0;
}

int gb_json_add_bind(cJSON *doc, const gb_bind_state *s, const int *counts, int n)
{
    cJSON *run = cJSON_GetObjectItemCaseSensitive(doc, "run");
    cJSON *omp = cJSON_GetObjectItemCaseSensitive(run, "openmp");
    cJSON *bind = omp ? cJSON_AddObjectToObject(omp, "bind") : NULL, *placement;
    int largest = n > 0 ? counts[n - 1] : 1;
    int *cpus = calloc((size_t)largest, sizeof *cpus), *places = calloc((size_t)largest,
                                                                         sizeof *places);
    char proc_bind[32];

    if (bind == NULL || cpus == NULL || places == NULL) {
        free(cpus);
        free(places);
        return -1;
    }
    cJSON_AddStringToObject(bind, "policy", s->policy);
    cJSON_AddStringToObject(bind, "OMP_PROC_BIND", s->proc_bind);
    cJSON_AddStringToObject(bind, "OMP_PLACES", s->places);
    /* Where the threads were, seen from inside a parallel region: the
     * evidence that the policy took effect (a place of -1 is unbound). */
    placement = cJSON_AddArrayToObject(bind, "placement");
    for (int i = 0; i < n && placement; i++) {
        cJSON *p = cJSON_CreateObject(), *c, *pl;
        if (p == NULL || !cJSON_AddItemToArray(placement, p))
            break;
        gb_bind_probe(counts[i], cpus, places, proc_bind, sizeof proc_bind);
        cJSON_AddNumberToObject(p, "threads", counts[i]);
        cJSON_AddStringToObject(p, "proc_bind", proc_bind);
        c = cJSON_AddArrayToObject(p, "cpus");
        pl = cJSON_AddArrayToObject(p, "places");
        for (int t = 0; t < counts[i] && c && pl; t++) {
            cJSON_AddItemToArray(c, cJSON_CreateNumber(cpus[t]));
            cJSON_AddItemToArray(pl, cJSON_CreateNumber(places[t]));
        }
    }
    free(cpus);
    free(places);
    return 0;
}

int gb_json_set_bind(cJSON *doc, int index, const char *policy)
{
    cJSON *item = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "results"), index);
    return item && cJSON_AddStringToObject(item, "bind", policy) ? 0 : -1;
}
