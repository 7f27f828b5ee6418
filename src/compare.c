/* compare.c - pairing, testing and summarising two result files; see compare.h. */
#define _GNU_SOURCE
#include "compare.h"
#include "parse.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *gb_verdict_word(gb_verdict v)
{
    switch (v) {
    case GB_VERDICT_FASTER:
        return "faster";
    case GB_VERDICT_SLOWER:
        return "slower";
    case GB_VERDICT_TOO_FEW:
        return "too few samples";
    default:
        return "same";
    }
}

/* ---- selection (--variant, --kernel) ------------------------------------- */

/* One comma-list item of a filter, and whether any entry of either file
 * matched it (an item that matches nothing is a typo, and an error). */
typedef struct filter_item {
    char name[256];
    int used;
} filter_item;

typedef struct filter {
    filter_item *items;
    int n;                   /* 0: everything passes */
} filter;

static int add_filter_item(const char *item, void *arg)
{
    filter *f = arg;
    filter_item *grown = realloc(f->items, (size_t)(f->n + 1) * sizeof *grown);

    if (grown == NULL)
        return -2;
    f->items = grown;
    snprintf(f->items[f->n].name, sizeof f->items[f->n].name, "%s", item);
    f->items[f->n].used = 0;
    f->n++;
    return 0;
}

static int filter_parse(filter *f, const char *spec, const char *flag, char *err, size_t errlen)
{
    int rc;

    f->items = NULL;
    f->n = 0;
    if (spec == NULL || spec[0] == '\0')
        return 0;
    rc = gb_split_list(spec, add_filter_item, f);
    if (rc == -2) {
        snprintf(err, errlen, "out of memory");
        return -2;
    }
    if (rc != 0 || f->n == 0) {
        snprintf(err, errlen, "%s '%s' is not a list of names", flag, spec);
        return -1;
    }
    return 0;
}

/* Marks every item that names (or is "all") one of the given names. */
static int filter_match(filter *f, const char *a, const char *b)
{
    int hit = f->n == 0;

    for (int i = 0; i < f->n; i++) {
        const char *name = f->items[i].name;
        if (strcmp(name, "all") == 0 || strcmp(name, a) == 0 || (b && strcmp(name, b) == 0)) {
            f->items[i].used = 1;
            hit = 1;
        }
    }
    return hit;
}

static int entry_selected(filter *variants, filter *kernels, const gb_entry *e)
{
    /* Both filters see every entry, so that `used` is complete for each. */
    int v = filter_match(variants, e->variant, e->family);
    int k = filter_match(kernels, e->kernel, NULL);
    return v && k;
}

static int filter_unused(const filter *f, const char *flag, const gb_compare *c, char *err,
                         size_t errlen)
{
    for (int i = 0; i < f->n; i++)
        if (!f->items[i].used) {
            snprintf(err, errlen, "%s '%s' matches no entry of %s or %s", flag,
                     f->items[i].name, c->old_f->path, c->new_f->path);
            return -1;
        }
    return 0;
}

/* ---- pairing --------------------------------------------------------------- */

/* What identifies a measurement across files: the schedule with its
 * parameters, the shape, the thread count and whether B was pre-packed. */
static int compare_keys(const gb_entry *a, const gb_entry *b)
{
    int d = strcmp(a->variant, b->variant);
    if (d == 0)
        d = strcmp(a->params, b->params);
    if (d == 0)
        d = strcmp(a->kernel, b->kernel);
    if (d == 0)
        d = (a->M > b->M) - (a->M < b->M);
    if (d == 0)
        d = (a->K > b->K) - (a->K < b->K);
    if (d == 0)
        d = (a->N > b->N) - (a->N < b->N);
    if (d == 0)
        d = (a->threads > b->threads) - (a->threads < b->threads);
    if (d == 0)
        d = (a->prepack > b->prepack) - (a->prepack < b->prepack);
    return d;
}

/* Key order, then file order: a key measured twice in one file (a repeated
 * --shape) pairs its k-th occurrence with the other file's k-th. */
static int compare_entry_ptrs(const void *pa, const void *pb)
{
    const gb_entry *a = *(const gb_entry *const *)pa, *b = *(const gb_entry *const *)pb;
    int d = compare_keys(a, b);
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
static const gb_entry **selected_entries(const gb_result_file *f, filter *variants,
                                         filter *kernels, int *count)
{
    const gb_entry **out = malloc((size_t)f->nentries * sizeof *out);
    int n = 0;

    if (out == NULL)
        return NULL;
    for (int i = 0; i < f->nentries; i++)
        if (entry_selected(variants, kernels, &f->entries[i]))
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

static int assess_row(gb_compare *c, gb_compare_row *row, char *err, size_t errlen)
{
    const gb_compare_opts *o = &c->opts;
    const gb_entry *a = row->old_e, *b = row->new_e;

    /* A zero median (a clock that did not tick) leaves no ratio to judge. */
    if (a->median_us <= 0.0 || b->median_us <= 0.0) {
        const gb_result_file *f = a->median_us <= 0.0 ? c->old_f : c->new_f;
        const gb_entry *e = a->median_us <= 0.0 ? a : b;
        snprintf(err, errlen, "%s: results[%d]: \"median_us\" is 0, no ratio to compare",
                 f->path, entry_index(f, e));
        return -1;
    }
    row->ratio = b->median_us / a->median_us;
    row->old_peak_pct = row->new_peak_pct = NAN;
    if (c->peak_both) {
        row->old_peak_pct = peak_pct(a, c->old_f);
        row->new_peak_pct = peak_pct(b, c->new_f);
    }
    if (strcmp(a->check, "fail") == 0 || strcmp(b->check, "fail") == 0)
        c->ncheck_failed++;

    memset(&row->test, 0, sizeof row->test);
    if (a->nsamples < o->min_samples || b->nsamples < o->min_samples) {
        row->verdict = GB_VERDICT_TOO_FEW;
        c->ntoo_few++;
        return 0;
    }
    if (gb_mann_whitney(a->samples_us, (size_t)a->nsamples, b->samples_us,
                        (size_t)b->nsamples, GB_MWU_AUTO, &row->test) != 0) {
        snprintf(err, errlen, "out of memory");
        return -2;
    }
    if (row->test.p >= o->alpha || row->ratio == 1.0)
        row->verdict = GB_VERDICT_SAME;
    else
        row->verdict = row->ratio > 1.0 ? GB_VERDICT_SLOWER : GB_VERDICT_FASTER;
    row->gate_fail = row->verdict == GB_VERDICT_SLOWER &&
                     row->ratio > 1.0 + o->threshold_pct / 100.0;
    c->nfaster += row->verdict == GB_VERDICT_FASTER;
    c->nslower += row->verdict == GB_VERDICT_SLOWER;
    c->nsame += row->verdict == GB_VERDICT_SAME;
    c->nfailed += row->gate_fail;
    return 0;
}

/* ---- geometric means ------------------------------------------------------ */

/* Accumulates log(ratio) into the group called name (appended when new);
 * ratio holds the sum of logs until finish_geomeans. */
static int add_to_group(gb_geomean **groups, int *n, const char *name, double ratio)
{
    gb_geomean *grown;

    for (int i = 0; i < *n; i++)
        if (strcmp((*groups)[i].name, name) == 0) {
            (*groups)[i].ratio += log(ratio);
            (*groups)[i].count++;
            return 0;
        }
    grown = realloc(*groups, (size_t)(*n + 1) * sizeof *grown);
    if (grown == NULL)
        return -1;
    *groups = grown;
    grown[*n].name = name;
    grown[*n].ratio = log(ratio);
    grown[*n].count = 1;
    (*n)++;
    return 0;
}

static void finish_geomeans(gb_geomean *groups, int n)
{
    for (int i = 0; i < n; i++)
        groups[i].ratio = exp(groups[i].ratio / groups[i].count);
}

static int compute_geomeans(gb_compare *c)
{
    c->overall.name = "overall";
    c->overall.ratio = 0.0;
    c->overall.count = 0;
    for (int i = 0; i < c->nrows; i++) {
        const gb_compare_row *r = &c->rows[i];
        /* Labels carry the parameters and +prepack: each is its own schedule. */
        if (add_to_group(&c->by_variant, &c->nby_variant, r->old_e->label, r->ratio) != 0 ||
            add_to_group(&c->by_kernel, &c->nby_kernel, r->old_e->kernel, r->ratio) != 0)
            return -1;
        c->overall.ratio += log(r->ratio);
        c->overall.count++;
    }
    finish_geomeans(c->by_variant, c->nby_variant);
    finish_geomeans(c->by_kernel, c->nby_kernel);
    finish_geomeans(&c->overall, 1);
    return 0;
}

/* ---- header differences ----------------------------------------------------- */

/* Fields that differ on every run or say nothing about the measurement; the
 * peak has its own line (it is measured, so it always differs a little). */
static const char *const ignored_fields[] = {
    "run.started", "run.command", "run.config.format", "machine.peak_gflops",
    "machine.peak_gflops_1thread", NULL
};

/* Fields that identify the hardware: when one differs, the files come from
 * two machines.  A prefix ending in '.' covers every field below it. */
static const char *const machine_identity[] = {
    "machine.hostname", "machine.cpu_model", "machine.arch", "machine.isa",
    "machine.logical_cpus", "machine.caches.", NULL
};

static int in_list(const char *const *list, const char *field)
{
    for (int i = 0; list[i]; i++) {
        size_t len = strlen(list[i]);
        if (list[i][len - 1] == '.' ? strncmp(field, list[i], len) == 0
                                    : strcmp(field, list[i]) == 0)
            return 1;
    }
    return 0;
}

/* A value as one line of text: strings bare, arrays of scalars joined by
 * blanks, anything else as compact JSON; NULL when out of memory. */
static char *render_value(const cJSON *v)
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
                                                                 : render_value(item);
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

static int add_diff(gb_compare *c, const char *field, const cJSON *a, const cJSON *b)
{
    gb_header_diff *grown, *d;
    char *va = render_value(a), *vb = render_value(b);
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
    va = vb = NULL;
    c->ndiffs++;
    if (in_list(machine_identity, field))
        c->cross_machine = 1;
    rc = 0;
out:
    /* render_value's text came from malloc or cJSON's allocator, which is
     * malloc unless cJSON_InitHooks says otherwise (gemmbench never does). */
    free(va);
    free(vb);
    return rc;
}

/* Walks two objects in step (OLD's keys, then NEW's extra keys), recording
 * every leaf whose rendering differs. */
static int diff_blocks(gb_compare *c, const char *prefix, const cJSON *a, const cJSON *b)
{
    const cJSON *item;
    char field[512];

    if (!cJSON_IsObject(a) || !cJSON_IsObject(b)) {
        if (in_list(ignored_fields, prefix))
            return 0;
        return add_diff(c, prefix, a, b);
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

static int pair_entries(gb_compare *c, const gb_entry **a, int na, const gb_entry **b, int nb)
{
    int i = 0, j = 0;

    c->rows = calloc((size_t)(na < nb ? na : nb) + 1, sizeof *c->rows);
    c->only_old = malloc(((size_t)na + 1) * sizeof *c->only_old);
    c->only_new = malloc(((size_t)nb + 1) * sizeof *c->only_new);
    if (c->rows == NULL || c->only_old == NULL || c->only_new == NULL)
        return -1;
    while (i < na || j < nb) {
        int d = i == na ? 1 : j == nb ? -1 : compare_keys(a[i], b[j]);
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
    qsort(c->rows, (size_t)c->nrows, sizeof *c->rows, compare_rows_old_order);
    qsort(c->only_old, (size_t)c->nonly_old, sizeof *c->only_old, compare_ptr_order);
    qsort(c->only_new, (size_t)c->nonly_new, sizeof *c->only_new, compare_ptr_order);
    return 0;
}

static void nothing_in_common(const gb_compare *c, char *err, size_t errlen)
{
    const cJSON *ta = cJSON_GetObjectItemCaseSensitive(c->old_f->run, "threads");
    const cJSON *tb = cJSON_GetObjectItemCaseSensitive(c->new_f->run, "threads");
    int filtered = (c->opts.variants && c->opts.variants[0]) ||
                   (c->opts.kernels && c->opts.kernels[0]);
    char hint[128] = "";

    if (cJSON_IsNumber(ta) && cJSON_IsNumber(tb) && ta->valuedouble != tb->valuedouble)
        snprintf(hint, sizeof hint, "; they ran %g and %g threads: rerun one with --threads",
                 ta->valuedouble, tb->valuedouble);
    snprintf(err, errlen,
             "%s and %s have no measurement in common%s (matched on variant, params, "
             "kernel, M, K, N, threads, prepack)%s",
             c->old_f->path, c->new_f->path, filtered ? " after --variant/--kernel" : "",
             hint);
}

int gb_compare_files(const gb_result_file *old_f, const gb_result_file *new_f,
                     const gb_compare_opts *opts, gb_compare *c, char *err, size_t errlen)
{
    filter variants = { NULL, 0 }, kernels = { NULL, 0 };
    const gb_entry **a = NULL, **b = NULL;
    int na = 0, nb = 0, rc = -2;

    memset(c, 0, sizeof *c);
    c->old_f = old_f;
    c->new_f = new_f;
    c->opts = *opts;
    c->peak_both = old_f->peak_gflops > 0.0 && new_f->peak_gflops > 0.0;

    if ((rc = filter_parse(&variants, opts->variants, "--variant", err, errlen)) != 0 ||
        (rc = filter_parse(&kernels, opts->kernels, "--kernel", err, errlen)) != 0)
        goto fail;
    rc = -2;
    a = selected_entries(old_f, &variants, &kernels, &na);
    b = selected_entries(new_f, &variants, &kernels, &nb);
    if (a == NULL || b == NULL)
        goto oom;
    rc = -1;
    if (filter_unused(&variants, "--variant", c, err, errlen) != 0 ||
        filter_unused(&kernels, "--kernel", c, err, errlen) != 0)
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
    if (compute_geomeans(c) != 0 || diff_blocks(c, "tool", old_f->tool, new_f->tool) != 0 ||
        diff_blocks(c, "machine", old_f->machine, new_f->machine) != 0 ||
        diff_blocks(c, "run", old_f->run, new_f->run) != 0)
        goto oom;
    free(a);
    free(b);
    free(variants.items);
    free(kernels.items);
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
fail:
    free(a);
    free(b);
    free(variants.items);
    free(kernels.items);
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

/* ---- rendering ------------------------------------------------------------- */

static const char *block_string(const cJSON *block, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(block, key);
    return cJSON_IsString(v) ? v->valuestring : "?";
}

/* "started 2026-..., gemmbench 0.1.0 (git abc), incomplete" */
static void describe_file(FILE *out, const gb_result_file *f)
{
    fprintf(out, "%s (started %s, gemmbench %s, git %s, %d entries%s)", f->path,
            block_string(f->run, "started"), block_string(f->tool, "version"),
            block_string(f->tool, "git"), f->nentries,
            f->complete ? "" : ", INCOMPLETE: interrupted run");
}

static void describe_machine(FILE *out, const gb_result_file *f)
{
    const cJSON *cpus = cJSON_GetObjectItemCaseSensitive(f->machine, "logical_cpus");
    char *isa = render_value(cJSON_GetObjectItemCaseSensitive(f->machine, "isa"));

    fprintf(out, "%s, %g logical CPUs, ISA %s", block_string(f->machine, "cpu_model"),
            cJSON_IsNumber(cpus) ? cpus->valuedouble : 0.0, isa ? isa : "?");
    free(isa);
}

/* "machine.cpu_model, machine.isa differ": what made it cross-machine. */
static void identity_fields(FILE *out, const gb_compare *c)
{
    int count = 0;
    for (int i = 0; i < c->ndiffs; i++)
        if (in_list(machine_identity, c->diffs[i].field))
            fprintf(out, "%s%s", count++ ? ", " : "", c->diffs[i].field);
    fprintf(out, " %s", count == 1 ? "differs" : "differ");
}

static void format_p(char *buf, size_t len, const gb_compare_row *r)
{
    if (r->verdict == GB_VERDICT_TOO_FEW)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.2g", r->test.p);
}

static void format_peak(char *buf, size_t len, const gb_compare_row *r)
{
    snprintf(buf, len, "%.1f->%.1f", r->old_peak_pct, r->new_peak_pct);
}

/* "parallel qkv M=64 K=768 N=768 t=2" */
static void format_entry(char *buf, size_t len, const gb_entry *e)
{
    snprintf(buf, len, "%s %s M=%d K=%d N=%d threads=%d", e->label, e->kernel, e->M, e->K,
             e->N, e->threads);
}

static void print_gate_rule(FILE *out, const gb_compare *c)
{
    fprintf(out,
            "an entry fails when its new/old median is above %.4g (more than %.4g%% slower) "
            "with p < %.4g (two-sided Mann-Whitney U on the raw samples); fewer than %d "
            "samples on a side: no verdict",
            1.0 + c->opts.threshold_pct / 100.0, c->opts.threshold_pct, c->opts.alpha,
            c->opts.min_samples);
}

static void print_gate_result(FILE *out, gb_format fmt, const gb_compare *c)
{
    const char *bold = fmt == GB_FMT_MD ? "**" : "";

    if (c->nfailed == 0)
        fprintf(out, "%sgate: pass%s: no entry is more than %.4g%% slower with p < %.4g",
                bold, bold, c->opts.threshold_pct, c->opts.alpha);
    else
        fprintf(out, "%sgate: FAIL%s: %d of %d entries are more than %.4g%% slower with "
                     "p < %.4g",
                bold, bold, c->nfailed, c->nrows, c->opts.threshold_pct, c->opts.alpha);
    fprintf(out, " (%d compared: %d faster, %d slower, %d same, %d too few samples)\n",
            c->nrows, c->nfaster, c->nslower, c->nsame, c->ntoo_few);
    for (int i = 0; i < c->nrows && c->nfailed; i++) {
        const gb_compare_row *r = &c->rows[i];
        char what[512];
        if (!r->gate_fail)
            continue;
        format_entry(what, sizeof what, r->old_e);
        fprintf(out, "%s%s: %+.1f%% (%.1f -> %.1f us), p = %.2g\n",
                fmt == GB_FMT_MD ? "- " : "  FAIL ", what, 100.0 * (r->ratio - 1.0),
                r->old_e->median_us, r->new_e->median_us, r->test.p);
    }
}

static void print_header_table(FILE *out, const gb_compare *c)
{
    fprintf(out, "OLD  ");
    describe_file(out, c->old_f);
    fprintf(out, "\nNEW  ");
    describe_file(out, c->new_f);
    fprintf(out, "\n");
    if (c->cross_machine) {
        fprintf(out, "CROSS-MACHINE comparison (");
        identity_fields(out, c);
        fprintf(out, "): ratios mix the hardware change with any code change%s\n",
                c->peak_both ? "; the %peak column compares each run with its own "
                               "machine's measured peak" : "");
        fprintf(out, "  OLD machine: ");
        describe_machine(out, c->old_f);
        fprintf(out, "\n  NEW machine: ");
        describe_machine(out, c->new_f);
        fprintf(out, "\n");
    } else {
        fprintf(out, "same machine: ");
        describe_machine(out, c->old_f);
        fprintf(out, "\n");
    }
    if (c->peak_both)
        fprintf(out, "measured FP32 peak: %.1f -> %.1f GFLOP/s\n", c->old_f->peak_gflops,
                c->new_f->peak_gflops);
    if (c->ndiffs == 0) {
        fprintf(out, "no differences in the tool, machine and run blocks\n");
    } else {
        int width = 5;
        for (int i = 0; i < c->ndiffs; i++)
            if ((int)strlen(c->diffs[i].field) > width)
                width = (int)strlen(c->diffs[i].field);
        fprintf(out, "differences in the tool, machine and run blocks (OLD | NEW):\n");
        for (int i = 0; i < c->ndiffs; i++)
            fprintf(out, "  %-*s  %s | %s\n", width, c->diffs[i].field,
                    c->diffs[i].old_value, c->diffs[i].new_value);
    }
    fprintf(out, "gate: ");
    print_gate_rule(out, c);
    fprintf(out, "\n\n");
}

static void print_rows_table(FILE *out, const gb_compare *c)
{
    int wl = 7, wk = 6;

    for (int i = 0; i < c->nrows; i++) {
        if ((int)strlen(c->rows[i].old_e->label) > wl)
            wl = (int)strlen(c->rows[i].old_e->label);
        if ((int)strlen(c->rows[i].old_e->kernel) > wk)
            wk = (int)strlen(c->rows[i].old_e->kernel);
    }
    fprintf(out, "%-*s %-*s %5s %5s %5s %3s %9s %11s %11s %7s %8s %8s", wl, "variant", wk,
            "kernel", "M", "K", "N", "thr", "n old/new", "old_us", "new_us", "new/old",
            "change", "p");
    if (c->peak_both)
        fprintf(out, " %13s", "%peak");
    fprintf(out, "  verdict\n");
    for (int i = 0; i < c->nrows; i++) {
        const gb_compare_row *r = &c->rows[i];
        char n[32], p[32], peak[48];
        snprintf(n, sizeof n, "%d/%d", r->old_e->nsamples, r->new_e->nsamples);
        format_p(p, sizeof p, r);
        fprintf(out, "%-*s %-*s %5d %5d %5d %3d %9s %11.1f %11.1f %7.3f %+7.1f%% %8s", wl,
                r->old_e->label, wk, r->old_e->kernel, r->old_e->M, r->old_e->K, r->old_e->N,
                r->old_e->threads, n, r->old_e->median_us, r->new_e->median_us, r->ratio,
                100.0 * (r->ratio - 1.0), p);
        if (c->peak_both) {
            format_peak(peak, sizeof peak, r);
            fprintf(out, " %13s", peak);
        }
        fprintf(out, "  %s%s\n", gb_verdict_word(r->verdict), r->gate_fail ? "  FAIL" : "");
    }
}

static void print_one_sided(FILE *out, gb_format fmt, const char *side, const gb_entry **e,
                            int n)
{
    char what[512];

    if (n == 0)
        return;
    if (fmt == GB_FMT_MD)
        fprintf(out, "\n### Only in %s (%d, not compared)\n\n", side, n);
    else
        fprintf(out, "\nonly in %s (%d, not compared):\n", side, n);
    for (int i = 0; i < n; i++) {
        format_entry(what, sizeof what, e[i]);
        fprintf(out, "%s%s  median %.1f us\n", fmt == GB_FMT_MD ? "- " : "  ", what,
                e[i]->median_us);
    }
}

static void print_geomeans(FILE *out, gb_format fmt, const gb_compare *c)
{
    const struct {
        const char *kind;
        const gb_geomean *g;
        int n;
    } groups[] = {
        { "all", &c->overall, 1 },
        { "variant", c->by_variant, c->nby_variant },
        { "kernel", c->by_kernel, c->nby_kernel },
    };

    if (fmt == GB_FMT_MD)
        fprintf(out, "\n### Geometric means of new/old (below 1: NEW is faster)\n\n"
                     "| group | name | new/old | change | entries |\n|---|---|--:|--:|--:|\n");
    else
        fprintf(out, "\ngeometric mean of new/old medians (below 1: NEW is faster)\n");
    for (size_t k = 0; k < sizeof groups / sizeof groups[0]; k++)
        for (int i = 0; i < groups[k].n; i++) {
            const gb_geomean *g = &groups[k].g[i];
            if (fmt == GB_FMT_MD)
                fprintf(out, "| %s | %s | %.3f | %+.1f%% | %d |\n", groups[k].kind, g->name,
                        g->ratio, 100.0 * (g->ratio - 1.0), g->count);
            else
                fprintf(out, "  %-8s %-28s %7.3f %+7.1f%%  (%d)\n", groups[k].kind, g->name,
                        g->ratio, 100.0 * (g->ratio - 1.0), g->count);
        }
}

static void print_header_md(FILE *out, const gb_compare *c)
{
    fprintf(out, "## gemmbench compare\n\n- **OLD**: ");
    describe_file(out, c->old_f);
    fprintf(out, "\n- **NEW**: ");
    describe_file(out, c->new_f);
    if (c->cross_machine) {
        fprintf(out, "\n- **Cross-machine comparison** (");
        identity_fields(out, c);
        fprintf(out, "): ratios mix the hardware change with any code change%s",
                c->peak_both ? "; % of peak compares each run with its own machine's peak"
                             : "");
        fprintf(out, "\n  - OLD machine: ");
        describe_machine(out, c->old_f);
        fprintf(out, "\n  - NEW machine: ");
        describe_machine(out, c->new_f);
    } else {
        fprintf(out, "\n- **Same machine**: ");
        describe_machine(out, c->old_f);
    }
    if (c->peak_both)
        fprintf(out, "\n- Measured FP32 peak: %.1f -> %.1f GFLOP/s", c->old_f->peak_gflops,
                c->new_f->peak_gflops);
    fprintf(out, "\n- Gate: ");
    print_gate_rule(out, c);
    fprintf(out, "\n\n");
    if (c->ndiffs == 0) {
        fprintf(out, "No differences in the tool, machine and run blocks.\n\n");
        return;
    }
    fprintf(out, "| field | OLD | NEW |\n|---|---|---|\n");
    for (int i = 0; i < c->ndiffs; i++)
        fprintf(out, "| %s | %s | %s |\n", c->diffs[i].field, c->diffs[i].old_value,
                c->diffs[i].new_value);
    fprintf(out, "\n");
}

static void print_rows_md(FILE *out, const gb_compare *c)
{
    fprintf(out, "| variant | kernel | M | K | N | threads | n old/new | old µs | new µs "
                 "| new/old | change | p |%s verdict |\n",
            c->peak_both ? " % peak old->new |" : "");
    fprintf(out, "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|%s---|\n",
            c->peak_both ? "--:|" : "");
    for (int i = 0; i < c->nrows; i++) {
        const gb_compare_row *r = &c->rows[i];
        char p[32], peak[48];
        format_p(p, sizeof p, r);
        fprintf(out, "| %s | %s | %d | %d | %d | %d | %d/%d | %.1f | %.1f | %.3f | %+.1f%% "
                     "| %s |",
                r->old_e->label, r->old_e->kernel, r->old_e->M, r->old_e->K, r->old_e->N,
                r->old_e->threads, r->old_e->nsamples, r->new_e->nsamples,
                r->old_e->median_us, r->new_e->median_us, r->ratio, 100.0 * (r->ratio - 1.0),
                p);
        if (c->peak_both) {
            format_peak(peak, sizeof peak, r);
            fprintf(out, " %s |", peak);
        }
        if (r->gate_fail)
            fprintf(out, " **%s: FAIL** |\n", gb_verdict_word(r->verdict));
        else
            fprintf(out, " %s |\n", gb_verdict_word(r->verdict));
    }
}

void gb_compare_print(FILE *out, gb_format fmt, const gb_compare *c)
{
    if (fmt == GB_FMT_MD) {
        print_header_md(out, c);
        print_rows_md(out, c);
    } else {
        print_header_table(out, c);
        print_rows_table(out, c);
    }
    print_one_sided(out, fmt, "OLD", c->only_old, c->nonly_old);
    print_one_sided(out, fmt, "NEW", c->only_new, c->nonly_new);
    print_geomeans(out, fmt, c);
    fprintf(out, "\n");
    print_gate_result(out, fmt, c);
}

/* ---- JSON ------------------------------------------------------------------- */

static cJSON *entry_key_json(const gb_entry *e)
{
    cJSON *o = cJSON_CreateObject();

    cJSON_AddStringToObject(o, "variant", e->variant);
    cJSON_AddStringToObject(o, "label", e->label);
    cJSON_AddStringToObject(o, "params", e->params);
    cJSON_AddStringToObject(o, "kernel", e->kernel);
    cJSON_AddNumberToObject(o, "M", e->M);
    cJSON_AddNumberToObject(o, "K", e->K);
    cJSON_AddNumberToObject(o, "N", e->N);
    cJSON_AddNumberToObject(o, "threads", e->threads);
    cJSON_AddBoolToObject(o, "prepack", e->prepack);
    return o;
}

static cJSON *file_json(const gb_result_file *f)
{
    cJSON *o = cJSON_CreateObject();

    cJSON_AddStringToObject(o, "path", f->path);
    cJSON_AddStringToObject(o, "started", block_string(f->run, "started"));
    cJSON_AddBoolToObject(o, "complete", f->complete);
    cJSON_AddNumberToObject(o, "entries", f->nentries);
    if (f->peak_gflops > 0.0)
        cJSON_AddNumberToObject(o, "peak_gflops", f->peak_gflops);
    else
        cJSON_AddNullToObject(o, "peak_gflops");
    return o;
}

static cJSON *row_json(const gb_compare *c, const gb_compare_row *r)
{
    cJSON *o = entry_key_json(r->old_e);

    cJSON_AddNumberToObject(o, "old_median_us", r->old_e->median_us);
    cJSON_AddNumberToObject(o, "new_median_us", r->new_e->median_us);
    cJSON_AddNumberToObject(o, "old_samples", r->old_e->nsamples);
    cJSON_AddNumberToObject(o, "new_samples", r->new_e->nsamples);
    cJSON_AddNumberToObject(o, "ratio", r->ratio);
    cJSON_AddNumberToObject(o, "change_pct", 100.0 * (r->ratio - 1.0));
    if (r->verdict == GB_VERDICT_TOO_FEW) {
        cJSON_AddNullToObject(o, "u");
        cJSON_AddNullToObject(o, "p");
        cJSON_AddNullToObject(o, "test");
    } else {
        cJSON_AddNumberToObject(o, "u", r->test.u1);
        cJSON_AddNumberToObject(o, "p", r->test.p);
        cJSON_AddStringToObject(o, "test", r->test.exact ? "exact" : "normal");
    }
    if (c->peak_both) {
        cJSON_AddNumberToObject(o, "old_peak_pct", r->old_peak_pct);
        cJSON_AddNumberToObject(o, "new_peak_pct", r->new_peak_pct);
    }
    cJSON_AddStringToObject(o, "verdict", gb_verdict_word(r->verdict));
    cJSON_AddBoolToObject(o, "gate_fail", r->gate_fail);
    return o;
}

static cJSON *geomeans_json(const gb_geomean *g, int n)
{
    cJSON *o = cJSON_CreateObject();

    for (int i = 0; i < n; i++) {
        cJSON *one = cJSON_AddObjectToObject(o, g[i].name);
        cJSON_AddNumberToObject(one, "ratio", g[i].ratio);
        cJSON_AddNumberToObject(one, "entries", g[i].count);
    }
    return o;
}

cJSON *gb_compare_json(const gb_compare *c)
{
    cJSON *doc = cJSON_CreateObject(), *gate, *list, *geo;

    if (doc == NULL)
        return NULL;
    cJSON_AddItemToObject(doc, "old", file_json(c->old_f));
    cJSON_AddItemToObject(doc, "new", file_json(c->new_f));
    cJSON_AddBoolToObject(doc, "cross_machine", c->cross_machine);
    list = cJSON_AddArrayToObject(doc, "differences");
    for (int i = 0; i < c->ndiffs; i++) {
        cJSON *d = cJSON_CreateObject();
        cJSON_AddStringToObject(d, "field", c->diffs[i].field);
        cJSON_AddStringToObject(d, "old", c->diffs[i].old_value);
        cJSON_AddStringToObject(d, "new", c->diffs[i].new_value);
        cJSON_AddItemToArray(list, d);
    }
    gate = cJSON_AddObjectToObject(doc, "gate");
    cJSON_AddNumberToObject(gate, "threshold_pct", c->opts.threshold_pct);
    cJSON_AddNumberToObject(gate, "alpha", c->opts.alpha);
    cJSON_AddNumberToObject(gate, "min_samples", c->opts.min_samples);
    cJSON_AddStringToObject(gate, "result", c->nfailed ? "fail" : "pass");
    cJSON_AddNumberToObject(gate, "failed", c->nfailed);
    cJSON_AddNumberToObject(gate, "compared", c->nrows);
    cJSON_AddNumberToObject(gate, "faster", c->nfaster);
    cJSON_AddNumberToObject(gate, "slower", c->nslower);
    cJSON_AddNumberToObject(gate, "same", c->nsame);
    cJSON_AddNumberToObject(gate, "too_few_samples", c->ntoo_few);
    list = cJSON_AddArrayToObject(doc, "entries");
    for (int i = 0; i < c->nrows; i++)
        cJSON_AddItemToArray(list, row_json(c, &c->rows[i]));
    list = cJSON_AddArrayToObject(doc, "only_old");
    for (int i = 0; i < c->nonly_old; i++)
        cJSON_AddItemToArray(list, entry_key_json(c->only_old[i]));
    list = cJSON_AddArrayToObject(doc, "only_new");
    for (int i = 0; i < c->nonly_new; i++)
        cJSON_AddItemToArray(list, entry_key_json(c->only_new[i]));
    geo = cJSON_AddObjectToObject(doc, "geomean");
    cJSON_AddNumberToObject(geo, "overall", c->overall.ratio);
    cJSON_AddItemToObject(geo, "variants", geomeans_json(c->by_variant, c->nby_variant));
    cJSON_AddItemToObject(geo, "kernels", geomeans_json(c->by_kernel, c->nby_kernel));
    return doc;
}
