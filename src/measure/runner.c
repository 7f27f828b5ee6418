/* runner.c - the sweep engine; see runner.h. */
#define _GNU_SOURCE
#include "runner.h"
#include "ml_guided.h"
#include "tuned_records.h"
#include "parse.h"
#include "sched_variant.h"
#include "variants.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "output.h"
#include "resultfile.h"
#include "roof.h"

/* A --param set that no selected variant takes whole is an error naming a
 * key none of them has (or, each key being someone's, the set). */
static int check_set_taken(const gb_options *o, int set, const gb_variant *const *picked,
                           int npicked, char *err, size_t errlen)
{
    const char *text = o->param_sets[set];
    char missing[64];
    int lacked = 0;

    for (int i = 0; i < npicked; i++)
        if (gb_params_accepts(picked[i], text, missing, sizeof missing))
            return 0;
    if (npicked == 1) {
        gb_params scratch;
        return gb_params_parse(picked[0], text, &scratch, err, errlen) ? -1 : 0;
    }
    /* A key some variant lacks that no selected variant has? */
    for (int i = 0; i < npicked && !lacked; i++) {
        char key[64], probe[80], other[64];
        gb_params_accepts(picked[i], text, key, sizeof key);
        snprintf(probe, sizeof probe, "%s=0", key);
        lacked = 1;
        for (int j = 0; j < npicked; j++)
            if (gb_params_accepts(picked[j], probe, other, sizeof other))
                lacked = 0;
        if (lacked) {
            char shown[256];
            gb_printable(key, 60, shown, sizeof shown);
            snprintf(err, errlen, "no selected variant has parameter '%s'", shown);
        }
    }
    if (!lacked) {
        char shown[256];
        gb_printable(text, 60, shown, sizeof shown);
        snprintf(err, errlen, "--param '%s': no selected variant takes all of its keys", shown);
    }
    return -1;
}

/* Adds picked variant v with the set text (NULL: none, unlabelled). */
static int add_entry(gb_selection *sel, const gb_variant *v, const char *text, char *err,
                     size_t errlen)
{
    gb_params *p = &sel->params[sel->nvariants];
    char why[GB_ERR_LEN];

    if (sel->nvariants == GB_MAX_ENTRIES) {
        snprintf(err, errlen, "too many variants x --param sets (at most %d)", GB_MAX_ENTRIES);
        return -1;
    }
    if (gb_params_parse(v, text ? text : "", p, err, errlen))
        return -1;
    if (v->usable && v->usable(p, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s: --param %s", v->name, why);
        return -1;
    }
    /* tk=4 twice (or tk=4,tm=8 and tm=8,tk=4) would be one set measured
     * twice, as two entries under one label. */
    for (int j = 0; j < sel->nvariants; j++)
        if (sel->variants[j] == v && gb_params_equal(&sel->params[j], p)) {
            snprintf(err, errlen, "--param '%s' is the same set as an earlier --param of %s",
                     text && text[0] ? text : "defaults", v->name);
            return -1;
        }
    sel->variants[sel->nvariants++] = v;
    return 0;
}

int gb_selection_build(const gb_options *o, gb_selection *sel, char *err, size_t errlen)
{
    const gb_variant *picked[GB_MAX_ENTRIES];
    int prepack_ok = 0, npicked;

    memset(sel, 0, sizeof *sel);
    /* No --variant beside --schedule: the schedules alone. */
    npicked = o->variants[0] || o->nschedules == 0
                  ? gb_variants_select(o->variants, picked, GB_MAX_ENTRIES, err, errlen)
                  : 0;
    if (npicked < 0)
        return -1;
    for (int i = 0; i < gb_sched_variant_count() && npicked < GB_MAX_ENTRIES; i++)
        picked[npicked++] = gb_sched_variant_at(i);
    for (int set = 0; set < o->nparam_sets; set++)
        if (check_set_taken(o, set, picked, npicked, err, errlen) != 0)
            return -1;
    /* Each variant once per set it takes whole; once, unlabelled, if none. */
    for (int i = 0; i < npicked; i++) {
        int taken = 0;
        char missing[64];
        for (int set = 0; set < o->nparam_sets; set++) {
            if (!gb_params_accepts(picked[i], o->param_sets[set], missing, sizeof missing))
                continue;
            if (add_entry(sel, picked[i], o->param_sets[set], err, errlen) != 0)
                return -1;
            taken++;
        }
        if (taken == 0 && add_entry(sel, picked[i], NULL, err, errlen) != 0)
            return -1;
        prepack_ok |= picked[i]->supports_prepack;
        for (int t = 0; t < o->ndtypes; t++)
            prepack_ok |= o->dtypes[t] != GB_DTYPE_F32 && picked[i]->typed[o->dtypes[t]] &&
                          picked[i]->typed[o->dtypes[t]]->supports_prepack;
    }
    if (o->prepack && !prepack_ok) {
        snprintf(err, errlen, "--prepack: none of the selected variants can pre-pack B");
        return -1;
    }
    sel->shapes = malloc(GB_MAX_SHAPES * sizeof *sel->shapes);
    if (sel->shapes == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    sel->nshapes = gb_shapes_build(o, sel->shapes, GB_MAX_SHAPES, err, errlen);
    if (sel->nshapes < 0)
        return -1;
    /* Every shape must fit before the first one runs. */
    for (int i = 0; i < sel->nshapes; i++) {
        const gb_shape *s = &sel->shapes[i];
        if (gb_shape_check(s->M, s->K, s->N, err, errlen) != 0)
            return -1;
    }
    return 0;
}

void gb_selection_free(gb_selection *sel)
{
    free(sel->shapes);
    sel->shapes = NULL;
}

int gb_selection_runs(const gb_selection *sel, int v, int s, char *why, size_t whylen)
{
    const gb_variant *var = sel->variants[v];
    const gb_dtype t = sel->shapes[s].dtype;

    if (t == GB_DTYPE_F32 && var->run != NULL)
        return 1;
    if (t == GB_DTYPE_F32 || var->typed[t] == NULL) {
        if (why)
            snprintf(why, whylen, "%s", gb_variant_types_note(var));
        return 0;
    }
    if (sel->params[v].count > 0) {
        if (why)
            snprintf(why, whylen, "a --param set applies to f32 only");
        return 0;
    }
    return gb_selection_available(sel, v, s, why, whylen);
}

int gb_selection_available(const gb_selection *sel, int v, int s, char *why, size_t whylen)
{
    const gb_dtype t = sel->shapes[s].dtype;
    const gb_typed_kernel *tk = t == GB_DTYPE_F32 ? NULL : sel->variants[v]->typed[t];
    char ignored[8];

    if (tk == NULL || tk->available == NULL)
        return 1;
    return why && whylen ? tk->available(why, whylen) : tk->available(ignored, sizeof ignored);
}

/* Entries run per call, then (--prepack, variants that can) with B packed
 * outside the timed region, as an entry of its own (+prepack). */
static int runs_prepacked_type(const gb_runner_cfg *cfg, const gb_variant *v, gb_dtype t)
{
    if (t != GB_DTYPE_F32)
        return cfg->prepack && v->typed[t] && v->typed[t]->supports_prepack;
    return cfg->prepack && v->supports_prepack;
}


static int thread_counts(const gb_runner_cfg *cfg)
{
    return cfg->nthreads > 0 ? cfg->nthreads : 1;
}

/* The count at index t of the list; a single-thread variant runs only at
 * the first index, as 1 thread, when there are several counts (returns 0
 * for its other indices: not measured). */
static int count_at(const gb_runner_cfg *cfg, const gb_variant *v, int t)
{
    if (cfg->nthreads <= 0)
        return cfg->threads;
    if (cfg->nthreads > 1 && v->single_thread)
        return t == 0 ? 1 : 0;
    return cfg->thread_list[t];
}

static double peak_at(const gb_runner_cfg *cfg, const gb_variant *v, int t, gb_dtype type)
{
    if (type != GB_DTYPE_F32) {
        if (cfg->nthreads <= 0)
            return cfg->dtype_peak[type];
        if (cfg->nthreads > 1 && v->single_thread)
            return cfg->dtype_peak_1t[type];
        return cfg->dtype_thread_peaks[type] ? cfg->dtype_thread_peaks[type][t] : 0.0;
    }
    if (cfg->nthreads <= 0)
        return cfg->peak_gflops;
    if (cfg->nthreads > 1 && v->single_thread)
        return cfg->peak_gflops_1t;
    return cfg->thread_peaks ? cfg->thread_peaks[t] : 0.0;
}

/* Shape s's entries that run, as (v * counts + t) * 2 + prepack (its index
 * among the shape's entries), into order in the order of round `round`:
 * the listed order, from its round-th (mod their count) on.  The first
 * after the workspace's fresh operands runs slower (2-6 % at M = 16, 1-3 %
 * at 64, none from 256, on the AMD EPYC family 26 with one plan listed
 * twice), so each entry takes that place in its share of the rounds
 * rather than the first listed in all.  The count. */
static int shape_order(const gb_selection *sel, const gb_runner_cfg *cfg, int s, int round,
                       int *order)
{
    const int counts = thread_counts(cfg);
    int n = 0;

    for (int v = 0; v < sel->nvariants; v++)
        for (int t = 0; t < counts; t++)
            for (int prepack = 0; prepack < 2; prepack++)
                if (gb_selection_runs(sel, v, s, NULL, 0) &&
                    (!prepack ||
                     runs_prepacked_type(cfg, sel->variants[v], sel->shapes[s].dtype)) &&
                    count_at(cfg, sel->variants[v], t) > 0)
                    order[n++] = (v * counts + t) * 2 + prepack;
    for (int r = 0; n > 1 && r < round % n; r++) { /* rotate left by round mod n */
        const int first = order[0];
        memmove(order, order + 1, (size_t)(n - 1) * sizeof *order);
        order[n - 1] = first;
    }
    return n;
}

int gb_runner_plan(const gb_selection *sel, const gb_runner_cfg *cfg, int round,
                   gb_run_step *steps, int max)
{
    const int counts = thread_counts(cfg), per_shape = sel->nvariants * counts * 2;
    int *order = malloc((size_t)(per_shape > 0 ? per_shape : 1) * sizeof *order), n = 0;

    if (order == NULL)
        return -1;
    /* The order of run_round's loops. */
    for (int s = 0; s < sel->nshapes; s++) {
        const int m = shape_order(sel, cfg, s, round, order);
        for (int i = 0; i < m; i++, n++) {
            const int v = order[i] / 2 / counts, t = order[i] / 2 % counts;
            if (steps && n < max)
                steps[n] = (gb_run_step){ s, v, count_at(cfg, sel->variants[v], t),
                                          order[i] % 2 };
        }
    }
    free(order);
    return n;
}

int gb_runner_total(const gb_selection *sel, const gb_runner_cfg *cfg)
{
    int total = 0;

    for (int s = 0; s < sel->nshapes; s++)
        for (int v = 0; v < sel->nvariants; v++)
            for (int t = 0; t < thread_counts(cfg); t++)
                if (gb_selection_runs(sel, v, s, NULL, 0) && count_at(cfg, sel->variants[v], t) > 0)
                    total += 1 + runs_prepacked_type(cfg, sel->variants[v], sel->shapes[s].dtype);
    return total * cfg->rounds;
}

/* Round r's share of the measurement: its part of the timed calls, of the
 * time cap and, after the first round (which warms up in full and
 * verifies), of the warm-up calls, at least one when there are any. */
gb_measure_cfg gb_round_share(const gb_measure_cfg *all, int rounds, int r)
{
    gb_measure_cfg c = *all;

    c.reps = all->reps / rounds + (r < all->reps % rounds);
    c.min_reps = (all->min_reps + rounds - 1) / rounds;
    if (c.min_reps > c.reps)
        c.min_reps = c.reps;
    c.max_time = all->max_time / rounds;
    c.min_time = all->min_time / rounds;
    /* min_time's calls capped per round so that all the rounds' samples of
     * an entry stay within what a result file holds (ab merges them). */
    c.max_calls = GB_MAX_SAMPLES / rounds < GB_MAX_CALLS ? GB_MAX_SAMPLES / rounds : GB_MAX_CALLS;
    if (r > 0) {
        c.warmup = (all->warmup + rounds - 1) / rounds;
        c.check = 0;
    }
    return c;
}

static void cool_down(double seconds)
{
    struct timespec ts = { (time_t)seconds, (long)((seconds - floor(seconds)) * 1e9) };

    if (seconds > 0.0)
        nanosleep(&ts, NULL);
}

typedef struct sweep {
    gb_runner *r;
    const gb_selection *sel;
    const gb_runner_cfg *cfg;
    const gb_runner_hooks *hooks;
    volatile sig_atomic_t *stop;
    int done, total, njson;
    int step;                  /* measurements taken so far in this round */
    double *baseline_median;   /* per shape: plain baseline's median, 0 if none yet */
    char *err;
    size_t errlen;
} sweep;

/* The result's intensity and roof, from the machine's peaks and bandwidths
 * (unknown ones leave attainable and roof_pct NAN). */
/* The roof of res from the machine's bandwidths, at peak, the peak of its
 * thread count (the machine's figure for all threads may be a larger count's). */
static void set_roof(const gb_runner_cfg *cfg, gb_result *res, double peak)
{
    gb_roof roof;

    res->intensity = gb_intensity_dtype(res->dtype, res->shape.M, res->shape.K, res->shape.N);
    if (cfg->machine == NULL)
        return;
    if (gb_roof_for_dtype(cfg->machine, res->dtype, res->shape.M, res->shape.K, res->shape.N,
                          res->threads, res->cold, &roof) != 0)
        return;
    if (peak > 0.0) {
        double bw_roof = roof.intensity * roof.bandwidth_gbs;
        roof.bound = bw_roof < peak ? roof.level : GB_ROOF_COMPUTE;
        roof.attainable_gflops = bw_roof < peak ? bw_roof : peak;
    }
    res->roof_level = roof.level;
    res->roof_bound = roof.bound;
    res->attainable_gflops = roof.attainable_gflops;
    res->roof_pct = 100.0 * res->gflops / roof.attainable_gflops;
}

/* Folds one round's measurement into its entry and derives what depends on
 * the others (peak, speed-up over baseline).  0, or -1 when out of memory. */
static int record(sweep *w, gb_run_entry *e, gb_result *part, int shape, int round,
                  double peak)
{
    gb_result *res = &e->result;

    /* Every sample says which round it was taken in (paired analyses). */
    part->sample_round = malloc((size_t)(part->reps > 0 ? part->reps : 1) * sizeof(int));
    if (part->sample_round == NULL) {
        gb_result_free(part);
        return -1;
    }
    for (int i = 0; i < part->reps; i++)
        part->sample_round[i] = round + 1;
    for (int i = 0; i < part->nround_clocks; i++)
        part->round_clocks[i].round = round + 1;

    if (!e->measured) {
        *res = *part;
        snprintf(res->shape.kernel, sizeof res->shape.kernel, "%s", w->sel->shapes[shape].kernel);
        res->shape.dtype = w->sel->shapes[shape].dtype;
        e->json_index = w->njson++;
        e->measured = 1;
    } else {
        int rc = gb_result_merge(res, part);
        gb_result_free(part);
        if (rc != 0)
            return -1;
    }
    if (peak > 0.0)
        res->peak_pct = 100.0 * res->gflops / peak;
    set_roof(w->cfg, res, peak);
    if (strcmp(res->variant->name, "baseline") == 0 && res->params.count == 0 && !res->prepack)
        w->baseline_median[shape] = res->stats.median;
    if (w->baseline_median[shape] > 0.0)
        res->speedup = w->baseline_median[shape] / res->stats.median;
    if (round == 0 && res->check == GB_CHECK_FAIL)
        w->r->failed_checks++;
    return 0;
}

/* Entry e's result into the run's JSON document (none: nothing).  0, or
 * -1 with w->err. */
static int entry_json(sweep *w, const gb_run_entry *e)
{
    const gb_runner_cfg *cfg = w->cfg;

    if (cfg->doc == NULL)
        return 0;
    if (gb_json_set_result(cfg->doc, e->json_index, &e->result) != 0 ||
        (e->result.impl[0] && e->result.variant->library &&
         gb_json_add_library_impl(cfg->doc, e->result.variant->name, e->result.dtype,
                                  e->result.impl) != 0) ||
        (cfg->bind && gb_json_set_bind(cfg->doc, e->json_index, cfg->bind) != 0)) {
        snprintf(w->err, w->errlen, "out of memory");
        return -1;
    }
    if (strcmp(e->result.variant->family, "sched") == 0) { /* a --schedule's text, hash, build */
        const gb_result *r = &e->result;
        cJSON *o = gb_json_result_at(cfg->doc, e->json_index);
        cJSON *sched = gb_sched_json(r->variant, &r->params, r->shape.M, r->shape.N, r->shape.K,
                                     r->threads);
        if (o == NULL || sched == NULL || !cJSON_AddItemToObject(o, "schedule", sched)) {
            cJSON_Delete(sched);
            snprintf(w->err, w->errlen, "out of memory");
            return -1;
        }
    } else if (strcmp(e->result.variant->name, "ml_guided") == 0) {
        /* the model's candidate (none when it ran rule_based) */
        const gb_result *r = &e->result;
        cJSON *o = gb_json_result_at(cfg->doc, e->json_index);
        cJSON *sched = gb_ml_guided_json(r->dtype, r->shape.M, r->shape.N, r->shape.K,
                                          r->threads);
        if (o == NULL || (sched != NULL && !cJSON_AddItemToObject(o, "schedule", sched))) {
            cJSON_Delete(sched);
            snprintf(w->err, w->errlen, "out of memory");
            return -1;
        }
    } else if (strcmp(e->result.variant->name, "tuned_sched") == 0) {
        /* a record's schedule (none when it ran rule_based) */
        const gb_result *r = &e->result;
        cJSON *o = gb_json_result_at(cfg->doc, e->json_index);
        cJSON *sched = gb_tuned_sched_json(r->dtype, r->shape.M, r->shape.N, r->shape.K,
                                           r->threads);
        if (o == NULL || (sched != NULL && !cJSON_AddItemToObject(o, "schedule", sched))) {
            cJSON_Delete(sched);
            snprintf(w->err, w->errlen, "out of memory");
            return -1;
        }
    }
    return 0;
}

/* Rewritten after every measurement: a crash loses nothing, and an
 * interrupted run keeps the rounds it finished. */
static int checkpoint(sweep *w, const gb_run_entry *e)
{
    if (entry_json(w, e) != 0)
        return -1;
    if (w->cfg->doc != NULL && w->cfg->output)
        return gb_json_write_atomic(w->cfg->doc, w->cfg->output, 0, w->err, w->errlen);
    return 0;
}

/* One measurement of entry (v, prepack) on a shape at thread index t.  0,
 * or -1 to stop the sweep (an I/O error, in w->err). */
static int measure_entry(sweep *w, gb_workspace *ws, int shape, int v, int t, int prepack,
                         int round, const gb_measure_cfg *share)
{
    const gb_runner_cfg *cfg = w->cfg;
    const gb_runner_hooks *h = w->hooks;
    const gb_variant *var = w->sel->variants[v];
    int nt = thread_counts(cfg), threads = count_at(cfg, var, t);
    gb_run_entry *e = &w->r->entries[((shape * w->sel->nvariants + v) * nt + t) * 2 + prepack];
    gb_measure_cfg mc = *share;
    gb_result part;
    char why[GB_ERR_LEN];
    int rc, last = round == cfg->rounds - 1 || cfg->only_round > 0;

    if (h->starting)
        h->starting(h->arg, w->done, w->total, var, &w->sel->shapes[shape], round);
    if (h->gate && h->gate(h->arg, w->step++) != 0) {
        *w->stop = 1;
        return 0;
    }
    /* A call longer than the round's time cap is not re-warmed: it re-reads
     * its own operands many times over anyway. */
    if (e->measured && e->result.stats.median * 1e-6 > share->max_time)
        mc.warmup = 0;
    rc = gb_measure(var, &w->sel->params[v], threads, prepack, ws, &mc, w->stop, &part,
                    why, sizeof why);
    w->done++;
    if (rc == 1)
        return 0;                      /* stopped: nothing kept of this one */
    if (rc != 0) {
        w->r->failed_runs++;
        if (h->failed)
            h->failed(h->arg, why, &w->sel->shapes[shape]);
        return 0;
    }
    if (record(w, e, &part, shape, round, peak_at(cfg, var, t, w->sel->shapes[shape].dtype)) != 0) {
        snprintf(w->err, w->errlen, "out of memory");
        return -1;
    }
    e->final = last;
    /* The last round's row waits for the shape's other entries (run_round):
     * its speed-up over baseline is final only then. */
    if (h->measured && !last)
        h->measured(h->arg, &e->result, last);
    if (checkpoint(w, e) != 0)
        return -1;
    if (!*w->stop)
        cool_down(cfg->cooldown_s);
    return 0;
}

/* The tests' quick probe (GEMMBENCH_BANDWIDTH=quick) sweeps no sizes, so
 * the last level is the reported one; its cold copies stop at this many
 * bytes (twice it in all).  A VM's reported 508 MiB L3 made them 1 GiB a
 * shape a round: 8 of tests/cli/roof.sh's 25 s of CPU, page faults on an
 * AMD EPYC guest.  A quick run checks that cold runs and verifies, not
 * what memory costs; its file says "method": "quick". */
#define COLD_LLC_MAX_QUICK (32L << 20)

/* The last-level cache the cold mode must exceed: the machine's L3, else
 * its L2, as the bandwidth sweep found them where it disagreed with the
 * reported sizes (a VM's 508 MiB "L3" made every shape copy 1 GiB a round);
 * 0 unknown (the run command refuses --cache cold then); under the quick
 * probe at most COLD_LLC_MAX_QUICK. */
static long last_level_cache(const gb_runner_cfg *cfg)
{
    long l3 = cfg->machine ? gb_machine_level_bytes(cfg->machine, 3) : 0;
    long l2 = cfg->machine ? gb_machine_level_bytes(cfg->machine, 2) : 0;
    long llc = l3 > 0 ? l3 : l2;

    if (cfg->machine && cfg->machine->bw.quick && llc > COLD_LLC_MAX_QUICK)
        llc = COLD_LLC_MAX_QUICK;
    return llc;
}

/* The speed-ups over baseline of shape s's entries, from baseline's median
 * once the round has measured it (an entry measured before baseline in the
 * round took the rounds' before), written where they changed.  0, or -1
 * with w->err. */
static int shape_speedups(sweep *w, int s)
{
    const int per_shape = w->sel->nvariants * thread_counts(w->cfg) * 2;
    const double base = w->baseline_median[s];
    int changed = 0;

    if (!(base > 0.0))
        return 0;
    for (int i = s * per_shape; i < (s + 1) * per_shape; i++) {
        gb_run_entry *e = &w->r->entries[i];
        if (!e->measured || e->result.speedup == base / e->result.stats.median)
            continue;
        e->result.speedup = base / e->result.stats.median;
        if (entry_json(w, e) != 0)
            return -1;
        changed = 1;
    }
    if (changed && w->cfg->doc != NULL && w->cfg->output)
        return gb_json_write_atomic(w->cfg->doc, w->cfg->output, 0, w->err, w->errlen);
    return 0;
}

/* One pass over the sweep.  0; 1 when a measurement could not be taken
 * (the sweep ends); -1 with w->err on an I/O error. */
static int run_round(sweep *w, int round)
{
    const gb_selection *sel = w->sel;
    gb_measure_cfg share = gb_round_share(&w->cfg->measure, w->cfg->rounds, round);

    w->step = 0;
    for (int s = 0; s < sel->nshapes && !*w->stop; s++) {
        const gb_shape *shape = &sel->shapes[s];
        gb_workspace ws;
        int rc = 0;

        if (gb_workspace_init_dtype(&ws, shape->dtype, shape->M, shape->K, shape->N, w->err,
                                    w->errlen) != 0)
            return -1;
        if (w->cfg->cold && gb_workspace_go_cold(&ws, last_level_cache(w->cfg), w->err,
                                                 w->errlen) != 0) {
            gb_workspace_free(&ws);
            return -1;
        }
        /* The shape's entries in this round's order (shape_order). */
        const int per_shape = sel->nvariants * thread_counts(w->cfg) * 2;
        int *order = malloc((size_t)(per_shape > 0 ? per_shape : 1) * sizeof *order), n;
        if (order == NULL) {
            gb_workspace_free(&ws);
            snprintf(w->err, w->errlen, "out of memory");
            return -1;
        }
        n = shape_order(sel, w->cfg, s, round, order);
        for (int i = 0; i < n && rc == 0 && !*w->stop; i++)
            rc = measure_entry(w, &ws, s, order[i] / 2 / thread_counts(w->cfg),
                               order[i] / 2 % thread_counts(w->cfg), order[i] % 2, round,
                               &share);
        if (rc == 0)
            rc = shape_speedups(w, s);
        /* The last round's rows, in the listed order, speed-ups final. */
        for (int k = 0; k < per_shape && rc == 0 && w->hooks->measured; k++) {
            const gb_run_entry *e = &w->r->entries[s * per_shape + k];
            int ran = 0;
            for (int i = 0; i < n; i++)
                ran |= order[i] == k;
            if (ran && e->measured && e->final)
                w->hooks->measured(w->hooks->arg, &e->result, 1);
        }
        free(order);
        gb_workspace_free(&ws);
        if (rc != 0)
            return -1;
        /* A schedule that could not run ends the sweep after its shape. */
        if (w->r->failed_runs)
            return 1;
    }
    return 0;
}

int gb_runner_run(gb_runner *r, const gb_selection *sel, const gb_runner_cfg *cfg,
                  const gb_runner_hooks *hooks, volatile sig_atomic_t *stop, char *err,
                  size_t errlen)
{
    static const gb_runner_hooks no_hooks;
    sweep w = { r, sel, cfg, hooks ? hooks : &no_hooks, stop, 0, 0, 0, 0, NULL, err, errlen };
    int status = 0;

    memset(r, 0, sizeof *r);
    r->nentries = sel->nshapes * sel->nvariants * thread_counts(cfg) * 2;
    r->entries = calloc((size_t)(r->nentries > 0 ? r->nentries : 1), sizeof *r->entries);
    w.baseline_median = calloc((size_t)(sel->nshapes > 0 ? sel->nshapes : 1),
                               sizeof *w.baseline_median);
    if (r->entries == NULL || w.baseline_median == NULL) {
        free(w.baseline_median);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    w.total = gb_runner_total(sel, cfg);
    if (cfg->only_round > 0)
        w.total /= cfg->rounds;
    for (int round = 0; round < cfg->rounds && !*stop && status == 0; round++) {
        if (cfg->only_round > 0 && round != cfg->only_round - 1)
            continue;
        status = run_round(&w, round);
        if (status == 1) {
            status = 0;
            break;
        }
    }
    free(w.baseline_median);
    return status;
}

void gb_runner_free(gb_runner *r)
{
    for (int i = 0; i < r->nentries; i++)
        gb_result_free(&r->entries[i].result);
    free(r->entries);
    memset(r, 0, sizeof *r);
}
