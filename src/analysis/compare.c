/* compare.c - pairing, testing and summarising two result files; see compare.h.
 * The analysis only: compare_render.c shows it. */
#define _GNU_SOURCE
#include "compare.h"
#include "filter.h"
#include "signedrank.h"
#include "stats.h"

#include <fnmatch.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- pairing --------------------------------------------------------------- */

/* Key order, then file order: a key measured twice in one file (a repeated
 * --shape) pairs its k-th occurrence with the other file's k-th. */
static int compare_entry_ptrs(const void *pa, const void *pb)
{
    const gb_entry *a = *(const gb_entry *const *)pa, *b = *(const gb_entry *const *)pb;
    int d = gb_entry_order(a, b);
    return d ? d : (a > b) - (a < b);
}

/* File order of pointers into one file's entries. */
static int compare_ptr_order(const void *pa, const void *pb)
{
    const gb_entry *a = *(const gb_entry *const *)pa, *b = *(const gb_entry *const *)pb;
    return (a > b) - (a < b);
}

static int compare_rows_old_order(const void *pa, const void *pb)
{
    const gb_compare_row *a = pa, *b = pb;
    return (a->old_e > b->old_e) - (a->old_e < b->old_e);
}

/* The entries of f that pass the filters, as pointers sorted by key. */
static const gb_entry **selected_entries(const gb_result_file *f, gb_filter *filter,
                                         int *count)
{
    const gb_entry **out = malloc((size_t)f->nentries * sizeof *out);
    int n = 0;

    if (out == NULL)
        return NULL;
    for (int i = 0; i < f->nentries; i++)
        if (gb_filter_match(filter, &f->entries[i]))
            out[n++] = &f->entries[i];
    qsort(out, (size_t)n, sizeof *out, compare_entry_ptrs);
    *count = n;
    return out;
}

/* ---- per-pair statistics ---------------------------------------------------- */

static double peak_pct(const gb_entry *e, const gb_result_file *f)
{
    if (isfinite(e->peak_pct))
        return e->peak_pct;
    return 100.0 * e->gflops / f->peak_gflops;
}

static int entry_index(const gb_result_file *f, const gb_entry *e)
{
    return (int)(e - f->entries);
}

/* Per-round medians of e, those a round measured (finite, > 0), in order. */
static int round_values(const gb_entry *e, double *out)
{
    int n = 0;

    for (int r = 0; r < e->nrounds; r++)
        if (isfinite(e->round_medians[r]) && e->round_medians[r] > 0.0)
            out[n++] = e->round_medians[r];
    return n;
}

/* ab: log(NEW/OLD) of each round both sides measured, signed-rank tested.
 * 1 when too few rounds, -1 when memory runs out.  (The rounds come from the
 * files: on the heap, not the stack, however many they claim.) */
static int test_paired(const gb_compare *c, gb_compare_row *row)
{
    const gb_entry *a = row->old_e, *b = row->new_e;
    int n = a->nrounds < b->nrounds ? a->nrounds : b->nrounds, m = 0, rc = 1;
    double *d = malloc((size_t)(n > 0 ? n : 1) * sizeof *d);
    gb_signed_rank sr;

    if (d == NULL)
        return -1;
    for (int r = 0; r < n; r++)
        if (a->round_medians[r] > 0.0 && b->round_medians[r] > 0.0 &&
            isfinite(a->round_medians[r]) && isfinite(b->round_medians[r]))
            d[m++] = log(b->round_medians[r]) - log(a->round_medians[r]); /* no overflow */
    row->n_old = row->n_new = m;
    if (m >= GB_AB_MIN_ROUNDS) {
        rc = gb_signed_rank_test(d, (size_t)m, c->opts.alpha, &sr) == 0 ? 0 : -1;
        if (rc == 0) {
            row->ratio = exp(sr.estimate);
            row->lo = exp(sr.lo);
            row->hi = exp(sr.hi);
            row->p = sr.p;
        }
    }
    free(d);
    return rc;
}

/* Separate runs with rounds: the U test on the per-round medians; new/old is
 * the ratio of their medians, the noise floor the larger spread (max - min
 * over median) of either side.  1 when too few rounds, -1 out of memory. */
static int test_rounds(const gb_compare *c, gb_compare_row *row)
{
    const gb_entry *a = row->old_e, *b = row->new_e;
    double *va = malloc((size_t)(a->nrounds + b->nrounds + 1) * sizeof *va), *vb;
    gb_stats sa, sb;
    int na, nb, rc = 1;

    (void)c;
    if (va == NULL)
        return -1;
    vb = va + a->nrounds;
    na = round_values(a, va);
    nb = round_values(b, vb);
    row->n_old = na;
    row->n_new = nb;
    if (na >= 2 && nb >= 2) {
        rc = -1;
        if (stats_compute(va, (size_t)na, &sa) == 0 && stats_compute(vb, (size_t)nb, &sb) == 0 &&
            gb_mann_whitney(va, (size_t)na, vb, (size_t)nb, GB_MWU_AUTO, &row->test) == 0) {
            row->ratio = sb.median / sa.median;
            row->noise_pct = 100.0 * fmax((sa.max - sa.min) / sa.median,
                                          (sb.max - sb.min) / sb.median);
            row->p = row->test.p;
            rc = 0;
        }
    }
    free(va);
    return rc;
}

/* One moment of each run: U test on the calls. */
static int test_calls(const gb_compare *c, gb_compare_row *row)
{
    const gb_entry *a = row->old_e, *b = row->new_e;

    row->n_old = a->nsamples;
    row->n_new = b->nsamples;
    if (a->nsamples < c->opts.min_samples || b->nsamples < c->opts.min_samples)
        return 1;
    if (gb_mann_whitney(a->samples_us, (size_t)a->nsamples, b->samples_us,
                        (size_t)b->nsamples, GB_MWU_AUTO, &row->test) != 0)
        return -1;
    row->p = row->test.p;
    return 0;
}

static gb_compare_unit unit_of(const gb_compare *c, const gb_compare_row *row)
{
    if (c->opts.paired)
        return GB_UNIT_PAIRED;
    if (row->old_e->nrounds >= GB_COMPARE_MIN_ROUNDS &&
        row->new_e->nrounds >= GB_COMPARE_MIN_ROUNDS)
        return GB_UNIT_ROUNDS;
    return GB_UNIT_CALLS;
}

/* The row's rounds under steal, and the comparison's totals. */
static void count_steal(gb_compare *c, gb_compare_row *row)
{
    const gb_entry *side[2] = { row->old_e, row->new_e };

    for (int s = 0; s < 2; s++) {
        gb_entry_steal(side[s], &row->steal.known[s], &row->steal.under[s],
                       &row->steal.seconds[s]);
        c->steal.known[s] += row->steal.known[s];
        c->steal.under[s] += row->steal.under[s];
        c->steal.seconds[s] += row->steal.seconds[s];
    }
}

static int assess_row(gb_compare *c, gb_compare_row *row, char *err, size_t errlen)
{
    const gb_entry *a = row->old_e, *b = row->new_e;
    int rc;

    /* A zero median (a clock that did not tick) leaves no ratio to judge. */
    if (a->median_us <= 0.0 || b->median_us <= 0.0) {
        const gb_result_file *f = a->median_us <= 0.0 ? c->old_f : c->new_f;
        const gb_entry *e = a->median_us <= 0.0 ? a : b;
        snprintf(err, errlen, "%s: results[%d]: \"median_us\" is 0, no ratio to compare",
                 f->path, entry_index(f, e));
        return -1;
    }
    row->ratio = b->median_us / a->median_us;
    row->lo = 0.0;
    row->hi = INFINITY;
    row->p = NAN;
    row->old_peak_pct = row->new_peak_pct = NAN;
    if (c->peak_both) {
        row->old_peak_pct = peak_pct(a, c->old_f);
        row->new_peak_pct = peak_pct(b, c->new_f);
    }
    /* %roof: each against its own file's roof for the shape. */
    row->old_roof_pct = a->roof_pct;
    row->new_roof_pct = b->roof_pct;
    if (isfinite(a->roof_pct) && isfinite(b->roof_pct))
        c->roof_any = 1;
    if (strcmp(a->check, "fail") == 0 || strcmp(b->check, "fail") == 0)
        c->ncheck_failed++;
    count_steal(c, row);

    memset(&row->test, 0, sizeof row->test);
    row->unit = unit_of(c, row);
    rc = row->unit == GB_UNIT_PAIRED ? test_paired(c, row)
       : row->unit == GB_UNIT_ROUNDS ? test_rounds(c, row)
                                     : test_calls(c, row);
    if (rc < 0) {
        snprintf(err, errlen, "out of memory");
        return -2;
    }
    row->verdict = rc > 0 ? GB_VERDICT_TOO_FEW : GB_VERDICT_SAME;
    row->p_gate = row->p;
    return 0;
}

/* Paired rounds judge many entries at once (a CI sweep has 138): at alpha
 * 0.01 each, identical builds would show a "significant" entry in most runs
 * (1 - 0.99^138 = 75%).  The verdict uses p adjusted by Benjamini and
 * Hochberg's step-up procedure (J. R. Statist. Soc. B, 1995): the k-th
 * smallest of m p-values times m / k, made monotone from the largest down.
 * When nothing changed it keeps the chance of any false verdict below alpha;
 * when a change moves many entries, as a compiler flag or a thread setting
 * does, it keeps the expected share of false ones below alpha, which leaves
 * more power than a correction for the worst case (Holm's). */
/* The rows adjust_p sorts (qsort passes no context). */
static const gb_compare_row *sorting_rows;

/* By p, then row order (a stable sort's). */
static int by_p(const void *pa, const void *pb)
{
    int a = *(const int *)pa, b = *(const int *)pb;
    double x = sorting_rows[a].p, y = sorting_rows[b].p;
    return x < y ? -1 : x > y ? 1 : (a > b) - (a < b);
}

static int adjust_p(gb_compare *c)
{
    int m = 0, *idx = malloc((size_t)(c->nrows > 0 ? c->nrows : 1) * sizeof *idx);
    double running = 1.0;

    if (idx == NULL)
        return -1;
    for (int i = 0; i < c->nrows; i++)
        if (c->rows[i].unit == GB_UNIT_PAIRED && c->rows[i].verdict != GB_VERDICT_TOO_FEW)
            idx[m++] = i;
    /* Sorted, not insertion-sorted: a file may hold 50,000 entries. */
    sorting_rows = c->rows;
    qsort(idx, (size_t)m, sizeof *idx, by_p);
    for (int k = m - 1; k >= 0; k--) {
        gb_compare_row *r = &c->rows[idx[k]];
        running = fmin(running, fmin(1.0, r->p * m / (k + 1)));
        r->p_gate = running;
    }
    free(idx);
    return 0;
}

static void judge_row(gb_compare *c, gb_compare_row *row)
{
    const gb_compare_opts *o = &c->opts;

    if (row->verdict == GB_VERDICT_TOO_FEW) {
        c->ntoo_few++;
        return;
    }
    if (row->p_gate >= o->alpha || row->ratio == 1.0)
        row->verdict = GB_VERDICT_SAME;
    else
        row->verdict = row->ratio > 1.0 ? GB_VERDICT_SLOWER : GB_VERDICT_FASTER;
    row->gate_fail = row->verdict == GB_VERDICT_SLOWER &&
                     row->ratio > 1.0 + fmax(o->threshold_pct, row->noise_pct) / 100.0;
    c->nfaster += row->verdict == GB_VERDICT_FASTER;
    c->nslower += row->verdict == GB_VERDICT_SLOWER;
    c->nsame += row->verdict == GB_VERDICT_SAME;
    c->nfailed += row->gate_fail;
    c->nunit[row->unit]++;
}

/* ---- geometric means ------------------------------------------------------ */

/* A row's label or kernel and its position, for the groups. */
typedef struct named_row {
    const char *name;
    gb_dtype dtype;          /* a type's rows are a group of their own */
    int at;
} named_row;

static int by_name_then_row(const void *pa, const void *pb)
{
    const named_row *a = pa, *b = pb;
    int d = strcmp(a->name, b->name);
    if (d == 0)
        d = (a->dtype > b->dtype) - (a->dtype < b->dtype);
    return d ? d : (a->at > b->at) - (a->at < b->at);
}

/* A group and its first row, to put the groups in row order. */
typedef struct placed_group {
    gb_compare_group g;
    int first;
} placed_group;

static int by_first_row(const void *pa, const void *pb)
{
    const placed_group *a = pa, *b = pb;
    return (a->first > b->first) - (a->first < b->first);
}

/* The geometric mean of the rows' ratios per label (by_label) or kernel and type,
 * groups in the order the rows first have them.  Found by sorting: a search
 * of the groups per row and a pass over every row per group took seconds
 * with 30,000 labels.  0, or -1 out of memory. */
static int group_means(const gb_compare *c, int by_label, double *ratios,
                       gb_compare_group **groups, int *ngroups)
{
    named_row *rows = malloc((size_t)c->nrows * sizeof *rows + 1);
    placed_group *placed = malloc((size_t)c->nrows * sizeof *placed + 1);
    int n = 0;

    *groups = malloc((size_t)c->nrows * sizeof **groups + 1);
    if (rows == NULL || placed == NULL || *groups == NULL) {
        free(rows);
        free(placed);
        return -1;
    }
    for (int i = 0; i < c->nrows; i++)
        rows[i] = (named_row){ by_label ? c->rows[i].old_e->label : c->rows[i].old_e->kernel,
                               c->rows[i].old_e->dtype, i };
    qsort(rows, (size_t)c->nrows, sizeof *rows, by_name_then_row);
    for (int i = 0, from = 0; i < c->nrows; i++) {
        placed_group *p = &placed[n];
        if (i + 1 < c->nrows && strcmp(rows[i + 1].name, rows[i].name) == 0 &&
            rows[i + 1].dtype == rows[i].dtype)
            continue;
        /* The group's ratios in row order, as one pass over the rows had them. */
        for (int k = from; k <= i; k++)
            ratios[k - from] = c->rows[rows[k].at].ratio;
        p->g.name = rows[from].name;
        p->g.dtype = rows[from].dtype;
        p->g.ratio = gb_geomean(ratios, i + 1 - from, &p->g.count);
        p->first = rows[from].at;
        n++;
        from = i + 1;
    }
    qsort(placed, (size_t)n, sizeof *placed, by_first_row);
    for (int i = 0; i < n; i++)
        (*groups)[i] = placed[i].g;
    *ngroups = n;
    free(rows);
    free(placed);
    return 0;
}

static int compute_geomeans(gb_compare *c)
{
    double *ratios = malloc((size_t)c->nrows * sizeof *ratios + sizeof *ratios);

    if (ratios == NULL)
        return -1;
    /* Labels carry the parameters and +prepack: each is its own schedule. */
    if (group_means(c, 1, ratios, &c->by_variant, &c->nby_variant) != 0 ||
        group_means(c, 0, ratios, &c->by_kernel, &c->nby_kernel) != 0) {
        free(ratios);
        return -1;
    }
    for (int i = 0; i < c->nrows; i++)
        ratios[i] = c->rows[i].ratio;
    c->overall.ratio = gb_geomean(ratios, c->nrows, &c->overall.count);
    c->overall.name = "overall";
    free(ratios);
    return 0;
}

/* ---- header differences ----------------------------------------------------- */

/* Fields that differ on every run or say nothing about the measurement
 * (fnmatch patterns over the printed path); the peak has its own line (it is
 * measured, so it always differs a little), the measured bandwidths (every
 * figure of every level) show in %roof, and packed's calibration ratios and
 * small calls are measurements too: the regime each chose (`read`) stays,
 * and the threads a call took are its effective parameters. */
static const char *const ignored_fields[] = {
    "run.started", "run.command", "run.config.format", "machine.peak_gflops",
    "machine.peak_gflops_1thread", "machine.bandwidth.*", "machine.calibration\\[*\\].*.ratio*",
    "machine.calibration\\[*\\].small_us", "machine.calibration\\[*\\].small_t_us", NULL
};

/* Fields that identify the hardware: when one differs, the files come from
 * two machines. */
static const char *const machine_identity[] = {
    "machine.hostname", "machine.cpu_model", "machine.cpu_id", "machine.arch", "machine.isa",
    "machine.logical_cpus", "machine.caches.*", NULL
};

static int in_list(const char *const *list, const char *field)
{
    for (int i = 0; list[i]; i++)
        if (fnmatch(list[i], field, 0) == 0)
            return 1;
    return 0;
}

/* A value as one line of text: strings bare, arrays of scalars joined by
 * blanks, anything else as compact JSON; NULL when out of memory. */
char *gb_json_value_text(const cJSON *v)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out;
    const cJSON *item;

    if (v == NULL)
        return strdup("(absent)");
    if (cJSON_IsString(v))
        return strdup(v->valuestring);
    if (cJSON_IsNumber(v)) {
        char buf[64];
        snprintf(buf, sizeof buf, "%.10g", v->valuedouble);
        return strdup(buf);
    }
    if (!cJSON_IsArray(v))
        return cJSON_PrintUnformatted(v);
    out = open_memstream(&text, &len);
    if (out == NULL)
        return NULL;
    cJSON_ArrayForEach(item, v) {
        char *one = cJSON_IsArray(item) || cJSON_IsObject(item) ? cJSON_PrintUnformatted(item)
                                                                 : gb_json_value_text(item);
        fprintf(out, "%s%s", item == v->child ? "" : " ", one ? one : "?");
        if (cJSON_IsArray(item) || cJSON_IsObject(item))
            cJSON_free(one);
        else
            free(one);
    }
    if (fclose(out) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* "2 MiB", "48 KiB", "508 MiB": a cache's size as people say it. */
static void format_cache_size(char *buf, size_t len, double bytes)
{
    if (bytes >= 1024.0 * 1024 * 1024)
        snprintf(buf, len, "%.3g GiB", bytes / (1024.0 * 1024 * 1024));
    else if (bytes >= 1024.0 * 1024)
        snprintf(buf, len, "%.3g MiB", bytes / (1024.0 * 1024));
    else if (bytes >= 1024.0)
        snprintf(buf, len, "%.3g KiB", bytes / 1024.0);
    else
        snprintf(buf, len, "%.0f B", bytes);
}

/* A cache level (machine.caches.L2, machine.topology.caches[2]) is one
 * leaf: "2 MiB 16-way, 64 B lines, CPUs 0" reads as the level it is, where
 * its fields one by one would take five lines.  Every field is in the text;
 * NULL when out of memory. */
static char *cache_text(const cJSON *o)
{
    const cJSON *level = cJSON_GetObjectItemCaseSensitive(o, "level");
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(o, "type");
    const cJSON *size = cJSON_GetObjectItemCaseSensitive(o, "size_bytes");
    const cJSON *ways = cJSON_GetObjectItemCaseSensitive(o, "ways");
    const cJSON *item;
    char *text = NULL, sz[32];
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);

    if (out == NULL)
        return NULL;
    if (cJSON_IsNumber(level))
        fprintf(out, "L%d ", level->valueint);
    if (cJSON_IsString(type))
        fprintf(out, "%s ", type->valuestring);
    format_cache_size(sz, sizeof sz, cJSON_GetNumberValue(size));
    fprintf(out, "%s", sz);
    if (cJSON_IsNumber(ways))
        fprintf(out, ways->valueint > 0 ? " %d-way" : " ways unknown", ways->valueint);
    cJSON_ArrayForEach(item, o) {
        const char *k = item->string;
        char *v;
        if (strcmp(k, "level") == 0 || strcmp(k, "type") == 0 || strcmp(k, "size_bytes") == 0 ||
            strcmp(k, "ways") == 0)
            continue;
        v = gb_json_value_text(item);
        if (strcmp(k, "line_bytes") == 0)
            fprintf(out, ", %s B lines", v ? v : "?");
        else if (strcmp(k, "count") == 0)
            fprintf(out, ", x%s", v ? v : "?");
        else if (strcmp(k, "cpus_each") == 0)
            fprintf(out, " (%s CPUs each)", v ? v : "?");
        else if (strcmp(k, "shared_cpus") == 0 || strcmp(k, "first_cpus") == 0)
            fprintf(out, ", CPUs %s", v ? v : "?");
        else
            fprintf(out, ", %s %s", k, v ? v : "?");
        free(v);
    }
    if (fclose(out) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* An object that describes one cache level: printed as one leaf. */
static int is_cache_object(const cJSON *v)
{
    return cJSON_IsObject(v) && cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(v, "size_bytes"));
}

static char *leaf_text(const cJSON *v)
{
    return is_cache_object(v) ? cache_text(v) : gb_json_value_text(v);
}

static int leaf_items(const cJSON *v)
{
    return cJSON_IsArray(v) ? cJSON_GetArraySize(v) : -1;
}

/* Whether two objects differ in a field both have. */
static int fields_differ(const cJSON *a, const cJSON *b)
{
    const cJSON *item;

    cJSON_ArrayForEach(item, a) {
        const cJSON *other = cJSON_GetObjectItemCaseSensitive(b, item->string);
        if (other != NULL && !cJSON_Compare(item, other, 1))
            return 1;
    }
    return 0;
}

static int add_diff(gb_compare *c, const char *field, const cJSON *a, const cJSON *b)
{
    gb_header_diff *grown, *d;
    char *va = leaf_text(a), *vb = leaf_text(b);
    int rc = -1;

    if (va == NULL || vb == NULL)
        goto out;
    if (strcmp(va, vb) == 0) {
        rc = 0;
        goto out;
    }
    grown = realloc(c->diffs, (size_t)(c->ndiffs + 1) * sizeof *grown);
    if (grown == NULL)
        goto out;
    c->diffs = grown;
    d = &c->diffs[c->ndiffs];
    d->field = strdup(field);
    if (d->field == NULL)
        goto out;
    d->old_value = va;
    d->new_value = vb;
    d->old_json = a;
    d->new_json = b;
    d->old_items = leaf_items(a);
    d->new_items = leaf_items(b);
    va = vb = NULL;
    /* A field one file lacks is a format the other's build did not write
     * (caches' ways, say), not another machine. */
    d->identity = a != NULL && b != NULL && in_list(machine_identity, field) &&
                  (!is_cache_object(a) || !is_cache_object(b) || fields_differ(a, b));
    c->cross_machine |= d->identity;
    c->ndiffs++;
    rc = 0;
out:
    /* render_value's text came from malloc or cJSON's allocator, which is
     * malloc unless cJSON_InitHooks says otherwise (gemmbench never does). */
    free(va);
    free(vb);
    return rc;
}

/* An array that holds objects or arrays: walked element by element
 * (`machine.calibration[0].b.read`), never printed whole. */
static int has_containers(const cJSON *v)
{
    const cJSON *item;

    if (!cJSON_IsArray(v))
        return 0;
    cJSON_ArrayForEach(item, v)
        if (cJSON_IsObject(item) || cJSON_IsArray(item))
            return 1;
    return 0;
}

/* Whether two values (either may be absent) are walked into rather than
 * compared as one leaf: objects, and arrays that hold objects or arrays. */
static int walk_into(const cJSON *a, const cJSON *b)
{
    if (is_cache_object(a) || is_cache_object(b))
        return 0;
    if ((a == NULL || cJSON_IsObject(a)) && (b == NULL || cJSON_IsObject(b)))
        return a != NULL || b != NULL;
    if ((a == NULL || cJSON_IsArray(a)) && (b == NULL || cJSON_IsArray(b)))
        return has_containers(a) || has_containers(b);
    return 0;
}

/* Walks two values in step, recording every leaf whose rendering differs:
 * objects by key (OLD's keys, then NEW's extra keys), arrays of objects by
 * index, a side that lacks a whole object or array as "(absent)" at each of
 * the other side's leaves.  A leaf is a scalar, an array of scalars or a
 * cache level, so that a difference is one line a person reads. */
static int diff_blocks(gb_compare *c, const char *prefix, const cJSON *a, const cJSON *b)
{
    const cJSON *item;
    char field[512];

    if (in_list(ignored_fields, prefix))
        return 0;
    if (!walk_into(a, b))
        return add_diff(c, prefix, a, b);
    if (cJSON_IsArray(a) || cJSON_IsArray(b)) {
        int na = cJSON_GetArraySize(a), nb = cJSON_GetArraySize(b);
        for (int i = 0; i < (na > nb ? na : nb); i++) {
            snprintf(field, sizeof field, "%s[%d]", prefix, i);
            if (diff_blocks(c, field, i < na ? cJSON_GetArrayItem(a, i) : NULL,
                            i < nb ? cJSON_GetArrayItem(b, i) : NULL))
                return -1;
        }
        return 0;
    }
    cJSON_ArrayForEach(item, a) {
        snprintf(field, sizeof field, "%s.%s", prefix, item->string);
        if (diff_blocks(c, field, item, cJSON_GetObjectItemCaseSensitive(b, item->string)))
            return -1;
    }
    cJSON_ArrayForEach(item, b) {
        if (cJSON_GetObjectItemCaseSensitive(a, item->string) != NULL)
            continue;
        snprintf(field, sizeof field, "%s.%s", prefix, item->string);
        if (diff_blocks(c, field, NULL, item))
            return -1;
    }
    return 0;
}

/* ---- the comparison ------------------------------------------------------- */

/* The measurement of a schedule file, whatever its text (gb_entry_order
 * without the text's hash). */
static int order_but_text(const void *pa, const void *pb)
{
    const gb_entry *a = *(const gb_entry *const *)pa, *b = *(const gb_entry *const *)pb;
    int d = strcmp(a->variant, b->variant);

    if (d == 0)
        d = strcmp(a->params, b->params);
    if (d == 0)
        d = (a->prepack > b->prepack) - (a->prepack < b->prepack);
    if (d == 0 && !gb_entry_same_point(a, b)) {
        d = strcmp(a->kernel, b->kernel);
        if (d == 0)
            d = a->M != b->M ? (a->M > b->M) - (a->M < b->M) : (a->K > b->K) - (a->K < b->K);
        if (d == 0)
            d = a->N != b->N ? (a->N > b->N) - (a->N < b->N)
                             : (a->threads > b->threads) - (a->threads < b->threads);
        if (d == 0)
            d = (a->cold > b->cold) - (a->cold < b->cold);
    }
    return d;
}

/* Entries in one file only whose schedule text differs from one in the
 * other file at the same point: looked up in a sorted copy, not by
 * comparing every pair.  0, or -1 out of memory. */
static int count_text_differs(gb_compare *c)
{
    const gb_entry **with_text = malloc((size_t)c->nonly_new * sizeof *with_text + 1);
    size_t n = 0;

    if (with_text == NULL)
        return -1;
    for (int y = 0; y < c->nonly_new; y++)
        if (c->only_new[y]->schedule_sha256)
            with_text[n++] = c->only_new[y];
    qsort(with_text, n, sizeof *with_text, order_but_text);
    for (int x = 0; x < c->nonly_old; x++)
        if (c->only_old[x]->schedule_sha256 &&
            bsearch(&c->only_old[x], with_text, n, sizeof *with_text, order_but_text))
            c->ntext_differs++;
    free(with_text);
    return 0;
}

static int pair_entries(gb_compare *c, const gb_entry **a, int na, const gb_entry **b, int nb)
{
    int i = 0, j = 0;

    c->rows = calloc((size_t)(na < nb ? na : nb) + 1, sizeof *c->rows);
    c->only_old = malloc(((size_t)na + 1) * sizeof *c->only_old);
    c->only_new = malloc(((size_t)nb + 1) * sizeof *c->only_new);
    if (c->rows == NULL || c->only_old == NULL || c->only_new == NULL)
        return -1;
    while (i < na || j < nb) {
        int d = i == na ? 1 : j == nb ? -1 : gb_entry_order(a[i], b[j]);
        if (d < 0) {
            c->only_old[c->nonly_old++] = a[i++];
        } else if (d > 0) {
            c->only_new[c->nonly_new++] = b[j++];
        } else {
            c->rows[c->nrows].old_e = a[i++];
            c->rows[c->nrows].new_e = b[j++];
            c->nrows++;
        }
    }
    if (count_text_differs(c) != 0)
        return -1;
    qsort(c->rows, (size_t)c->nrows, sizeof *c->rows, compare_rows_old_order);
    qsort(c->only_old, (size_t)c->nonly_old, sizeof *c->only_old, compare_ptr_order);
    qsort(c->only_new, (size_t)c->nonly_new, sizeof *c->only_new, compare_ptr_order);
    return 0;
}

static void nothing_in_common(const gb_compare *c, char *err, size_t errlen)
{
    int ta = c->old_f->run_threads, tb = c->new_f->run_threads;
    int filtered = (c->opts.variants && c->opts.variants[0]) ||
                   (c->opts.kernels && c->opts.kernels[0]) ||
                   (c->opts.dtypes && c->opts.dtypes[0]);
    char hint[128] = "";

    if (ta > 0 && tb > 0 && ta != tb)
        snprintf(hint, sizeof hint, "; they ran %d and %d threads: rerun one with --threads",
                 ta, tb);
    else if (c->ntext_differs)
        snprintf(hint, sizeof hint, "; %d entries of a schedule variant ran different "
                                    "schedule texts (schedule.sha256)", c->ntext_differs);
    snprintf(err, errlen,
             "%s and %s have no measurement in common%s (matched on variant, params, "
             "kernel, M, K, N, type, threads, prepack, cache, schedule text)%s",
             c->old_f->path, c->new_f->path,
             filtered ? " after --variant/--kernel/--dtype" : "",
             hint);
}

int gb_compare_files(const gb_result_file *old_f, const gb_result_file *new_f,
                     const gb_compare_opts *opts, gb_compare *c, char *err, size_t errlen)
{
    gb_filter filter;
    char where[2 * sizeof old_f->path + 8];
    const gb_entry **a = NULL, **b = NULL;
    int na = 0, nb = 0, rc = -2;

    memset(c, 0, sizeof *c);
    c->old_f = old_f;
    c->new_f = new_f;
    c->opts = *opts;
    c->peak_both = old_f->peak_gflops > 0.0 && new_f->peak_gflops > 0.0;

    gb_filter_init(&filter);
    if ((opts->variants && opts->variants[0] &&
         (rc = gb_filter_add(&filter, GB_FILTER_VARIANT, opts->variants, err, errlen)) != 0) ||
        (opts->kernels && opts->kernels[0] &&
         (rc = gb_filter_add(&filter, GB_FILTER_KERNEL, opts->kernels, err, errlen)) != 0) ||
        (opts->dtypes && opts->dtypes[0] &&
         (rc = gb_filter_add(&filter, GB_FILTER_DTYPE, opts->dtypes, err, errlen)) != 0))
        goto fail;
    rc = -2;
    a = selected_entries(old_f, &filter, &na);
    b = selected_entries(new_f, &filter, &nb);
    if (a == NULL || b == NULL)
        goto oom;
    rc = -1;
    snprintf(where, sizeof where, "%s or %s", old_f->path, new_f->path);
    if (gb_filter_check_used(&filter, where, err, errlen) != 0)
        goto fail;
    rc = -2;
    if (pair_entries(c, a, na, b, nb) != 0)
        goto oom;
    if (c->nrows == 0) {
        nothing_in_common(c, err, errlen);
        rc = -1;
        goto fail;
    }
    for (int i = 0; i < c->nrows; i++)
        if ((rc = assess_row(c, &c->rows[i], err, errlen)) != 0)
            goto fail;
    rc = -2;
    if (adjust_p(c) != 0)
        goto oom;
    for (int i = 0; i < c->nrows; i++)
        judge_row(c, &c->rows[i]);
    rc = -2;
    if (compute_geomeans(c) != 0 || diff_blocks(c, "tool", old_f->tool, new_f->tool) != 0 ||
        diff_blocks(c, "machine", old_f->machine, new_f->machine) != 0 ||
        diff_blocks(c, "run", old_f->run, new_f->run) != 0)
        goto oom;
    free(a);
    free(b);
    gb_filter_free(&filter);
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
fail:
    free(a);
    free(b);
    gb_filter_free(&filter);
    gb_compare_free(c);
    return rc;
}

void gb_compare_free(gb_compare *c)
{
    for (int i = 0; i < c->ndiffs; i++) {
        free(c->diffs[i].field);
        free(c->diffs[i].old_value);
        free(c->diffs[i].new_value);
    }
    free(c->diffs);
    free(c->rows);
    free(c->only_old);
    free(c->only_new);
    free(c->by_variant);
    free(c->by_kernel);
    memset(c, 0, sizeof *c);
}

