/*
 * report.c - what `gemmbench report FILE.json` shows: the selected entries,
 * the rows and columns of each table, and the number in every cell and row
 * summary.  report_render.c writes what this builds.
 *
 * One table per kernel and thread count (per thread count with --combined):
 * rows are the variants in the variant table's order (variants this build
 * does not know follow, in file order; labelled entries such as
 * rule_based[tk=16] or packed+prepack are rows of their own), columns are the
 * shapes measured, and each row ends with geometric means over it.
 */
#include "report.h"
#include "variants.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "gemmbench.h"

/* ---- values --------------------------------------------------------------- */

/* The baseline every speed-up divides by: the variant as written, without
 * parameters or pre-packing. */
static int is_plain_baseline(const gb_entry *e)
{
    return strcmp(e->variant, "baseline") == 0 && strcmp(e->label, "baseline") == 0;
}

double gb_report_speedup(const gb_result_file *f, const gb_entry *e)
{
    if (!(e->median_us > 0.0))
        return NAN;
    for (int i = 0; i < f->nentries; i++) {
        const gb_entry *b = &f->entries[i];
        if (is_plain_baseline(b) && gb_entry_same_point(b, e) && b->median_us > 0.0)
            return b->median_us / e->median_us;
    }
    /* A file filtered after the run may have lost its baseline entries; the
     * speed-up the run computed from them is still right. */
    return e->speedup;
}

double gb_report_peak_pct(const gb_result_file *f, const gb_entry *e)
{
    double peak = gb_result_file_peak(f, e->threads);
    return peak > 0.0 ? 100.0 * e->gflops / peak : e->peak_pct;
}

double gb_report_roof_pct(const gb_entry *e)
{
    if (isfinite(e->attainable_gflops) && e->attainable_gflops > 0.0)
        return 100.0 * e->gflops / e->attainable_gflops;
    return e->roof_pct;
}

double gb_report_value(const gb_result_file *f, const gb_entry *e, gb_report_metric m)
{
    switch (m) {
    case GB_METRIC_MEDIAN:
        return e->median_us;
    case GB_METRIC_MIN:
        return e->min_us;
    case GB_METRIC_GFLOPS:
        return e->gflops;
    case GB_METRIC_SPEEDUP:
        return gb_report_speedup(f, e);
    case GB_METRIC_PEAK:
        return gb_report_peak_pct(f, e);
    case GB_METRIC_ROOF:
        return gb_report_roof_pct(e);
    }
    return NAN;
}

int gb_report_metric_parse(const char *name, gb_report_metric *m)
{
    static const char *const names[] = {
        [GB_METRIC_MEDIAN] = "median", [GB_METRIC_MIN] = "min", [GB_METRIC_GFLOPS] = "gflops",
        [GB_METRIC_SPEEDUP] = "speedup", [GB_METRIC_PEAK] = "peak",
        [GB_METRIC_ROOF] = "roof",
    };

    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(name, names[i]) == 0) {
            *m = (gb_report_metric)i;
            return 0;
        }
    }
    return -1;
}

/* ---- selection and rows ------------------------------------------------------ */

typedef struct row_key {
    const char *label;
    long major, minor;       /* sort key: see order_rows */
} row_key;

/* What every table is built from. */
typedef struct builder {
    const gb_result_file *f;
    gb_report *r;
    const gb_entry **sel;    /* the selected entries, in file order */
    int nsel;
    row_key *rows;           /* every selected label, in display order */
    int nrows;
} builder;

int gb_report_filter(const gb_report_opts *o, gb_filter *filter, char *err, size_t errlen)
{
    int rc = 0;

    gb_filter_init(filter);
    for (int i = 0; i < o->nkernels && rc == 0; i++)
        rc = gb_filter_add(filter, GB_FILTER_KERNEL, o->kernels[i], err, errlen);
    for (int i = 0; i < o->nvariants && rc == 0; i++)
        rc = gb_filter_add(filter, GB_FILTER_VARIANT, o->variants[i], err, errlen);
    return rc;
}

/* The entries both kinds of list select.  A name that matches no entry is an
 * error (a typo), not an empty table. */
static int select_entries(builder *b, const gb_report_opts *o, char *err, size_t errlen)
{
    gb_filter filter;
    int rc = gb_report_filter(o, &filter, err, errlen);

    for (int i = 0; i < b->f->nentries && rc == 0; i++)
        if (gb_filter_match(&filter, &b->f->entries[i]))
            b->sel[b->nsel++] = &b->f->entries[i];
    if (rc == 0)
        rc = gb_filter_check_used(&filter, b->f->path, err, errlen);
    gb_filter_free(&filter);
    if (rc == 0 && b->nsel == 0) {
        snprintf(err, errlen, "%s: no entries match both --kernel and --variant", b->f->path);
        rc = -1;
    }
    return rc;
}

static long variant_table_index(const char *variant)
{
    for (size_t i = 0; i < gb_variant_count; i++)
        if (strcmp(gb_variants[i]->name, variant) == 0)
            return (long)i;
    return -1;
}

/* The position of the first selected entry of a variant or of a kernel. */
static long first_selected(const builder *b, const char *variant, const char *kernel)
{
    for (int i = 0; i < b->nsel; i++)
        if ((variant && strcmp(b->sel[i]->variant, variant) == 0) ||
            (kernel && strcmp(b->sel[i]->kernel, kernel) == 0))
            return i;
    return -1;
}

/* Whether selected entry i is its kernel's first: kernels are taken in this
 * order, for tables and for columns. */
static int first_of_kernel(const builder *b, int i)
{
    return first_selected(b, NULL, b->sel[i]->kernel) == i;
}

static int find_row(const builder *b, const char *label)
{
    for (int i = 0; i < b->nrows; i++)
        if (strcmp(b->rows[i].label, label) == 0)
            return i;
    return -1;
}

/* -1, 0 or 1 as a is below, at or above b: the comparators' steps. */
static int order(long a, long b)
{
    return (a > b) - (a < b);
}

static int compare_rows(const void *a, const void *b)
{
    const row_key *x = a, *y = b;
    return x->major != y->major ? order(x->major, y->major) : order(x->minor, y->minor);
}

/* Rows in the variant table's order, so tables read like the study's:
 * major = position in gb_variants[], or after the table in the file's order
 * for variants this build does not have; within a variant the plain entry
 * first, then its labelled ones (parameters, +prepack) in file order. */
static int order_rows(builder *b)
{
    b->rows = calloc((size_t)b->nsel, sizeof *b->rows);
    if (b->rows == NULL)
        return -2;
    for (int i = 0; i < b->nsel; i++) {
        const gb_entry *e = b->sel[i];
        long known = variant_table_index(e->variant);
        row_key *row;

        if (find_row(b, e->label) >= 0)
            continue;
        row = &b->rows[b->nrows++];
        row->label = e->label;
        row->major = known >= 0 ? known
                                : (long)gb_variant_count + first_selected(b, e->variant, NULL);
        row->minor = strcmp(e->label, e->variant) == 0 ? -1 : i;
    }
    qsort(b->rows, (size_t)b->nrows, sizeof *b->rows, compare_rows);
    return 0;
}

/* The distinct thread counts of the selection, ascending, into r->threads. */
static void thread_counts(const builder *b)
{
    int *out = b->r->threads, n = 0;

    for (int i = 0; i < b->nsel; i++) {
        int t = b->sel[i]->threads, at = 0;
        while (at < n && out[at] < t)
            at++;
        if (at < n && out[at] == t)
            continue;
        memmove(out + at + 1, out + at, (size_t)(n - at) * sizeof *out);
        out[at] = t;
        n++;
    }
    b->r->nthreads = n;
}

/* ---- one table ------------------------------------------------------------- */

static int in_table(const gb_report_table *t, const gb_entry *e)
{
    return e->threads == t->threads && (t->kernel == NULL || strcmp(e->kernel, t->kernel) == 0);
}

static int find_col(const gb_report_table *t, const gb_entry *e)
{
    for (int c = 0; c < t->ncols; c++) {
        const gb_report_col *col = &t->cols[c];
        if (col->M == e->M && col->K == e->K && col->N == e->N &&
            strcmp(col->kernel, e->kernel) == 0)
            return c;
    }
    return -1;
}

static int compare_shapes(const void *a, const void *b)
{
    const gb_report_col *x = a, *y = b;
    return x->M != y->M ? order(x->M, y->M) : x->K != y->K ? order(x->K, y->K)
                                                            : order(x->N, y->N);
}

/* Whether every column of column c's kernel has its K and N (always so for
 * the built-in kernels): then M alone names a column. */
static int kernel_uniform(const gb_report_table *t, int c)
{
    const gb_report_col *col = &t->cols[c];

    for (int i = 0; i < t->ncols; i++)
        if (strcmp(t->cols[i].kernel, col->kernel) == 0 &&
            (t->cols[i].K != col->K || t->cols[i].N != col->N))
            return 0;
    return 1;
}

/* Columns are the distinct shapes of the table's entries: kernels in the
 * order the selection first has them, each kernel's shapes ascending. */
static int build_cols(const builder *b, gb_report_table *t)
{
    t->cols = calloc((size_t)b->nsel, sizeof *t->cols);
    if (t->cols == NULL)
        return -2;
    for (int i = 0; i < b->nsel; i++) {
        const char *kernel = b->sel[i]->kernel;
        int first = t->ncols;
        if (!first_of_kernel(b, i))
            continue;
        for (int j = i; j < b->nsel; j++) {
            const gb_entry *e = b->sel[j];
            if (strcmp(e->kernel, kernel) == 0 && in_table(t, e) && find_col(t, e) < 0)
                t->cols[t->ncols++] = (gb_report_col){ e->kernel, e->M, e->K, e->N, 0 };
        }
        qsort(t->cols + first, (size_t)(t->ncols - first), sizeof *t->cols, compare_shapes);
    }
    for (int c = 0; c < t->ncols; c++)
        t->cols[c].uniform = kernel_uniform(t, c);
    return 0;
}

/* Fills row from its entries (one per column, NULL where not measured). */
static int fill_row(const builder *b, const gb_report_table *t, gb_report_row *row,
                    const gb_entry *const *entries)
{
    gb_report *r = b->r;
    double *values = calloc((size_t)t->ncols, sizeof *values);

    row->cells = calloc((size_t)t->ncols, sizeof *row->cells);
    if (values == NULL || row->cells == NULL) {
        free(values);
        return -2;
    }
    for (int c = 0; c < t->ncols; c++) {
        const gb_entry *e = entries[c];
        row->cells[c].value = e ? gb_report_value(b->f, e, r->metric) : NAN;
        row->cells[c].failed = e && strcmp(e->check, "fail") == 0;
        r->failed |= row->cells[c].failed;
    }
    for (int s = 0; s < GB_SUM_COUNT; s++) {
        gb_report_metric m = r->summary_metric[s];
        for (int c = 0; c < t->ncols; c++)
            values[c] = entries[c] ? gb_report_value(b->f, entries[c], m) : NAN;
        row->summary[s] = gb_geomean(values, t->ncols, &row->used[s]);
    }
    free(values);
    return 0;
}

static int any_entry(const gb_entry *const *entries, int n)
{
    for (int i = 0; i < n; i++)
        if (entries[i])
            return 1;
    return 0;
}

/* Places each entry of t in its cell (the first of a cell's entries is kept),
 * then makes a row of every label that has a cell. */
static int build_rows(const builder *b, gb_report_table *t)
{
    size_t ncols = (size_t)t->ncols;
    const gb_entry **grid = calloc((size_t)b->nrows * ncols, sizeof *grid);
    int rc = 0;

    t->rows = calloc((size_t)b->nrows, sizeof *t->rows);
    if (grid == NULL || t->rows == NULL) {
        free(grid);
        return -2;
    }
    for (int i = 0; i < b->nsel; i++) {
        const gb_entry *e = b->sel[i], **cell;
        if (!in_table(t, e))
            continue;
        cell = &grid[(size_t)find_row(b, e->label) * ncols + (size_t)find_col(t, e)];
        if (*cell)
            b->r->duplicates++;
        else
            *cell = e;
    }
    for (int i = 0; i < b->nrows && rc == 0; i++) {
        const gb_entry *const *entries = &grid[(size_t)i * ncols];
        if (!any_entry(entries, t->ncols))
            continue;
        t->rows[t->nrows].label = b->rows[i].label;
        rc = fill_row(b, t, &t->rows[t->nrows++], entries);
    }
    free(grid);
    return rc;
}

static int has_entries(const builder *b, const gb_report_table *t)
{
    for (int i = 0; i < b->nsel; i++)
        if (in_table(t, b->sel[i]))
            return 1;
    return 0;
}

/* Adds the table of kernel (NULL: all) at threads when it has entries. */
static int add_table(const builder *b, const char *kernel, int threads)
{
    gb_report *r = b->r;
    gb_report_table *t = &r->tables[r->ntables];
    int rc;

    *t = (gb_report_table){ kernel, threads, NULL, 0, NULL, 0 };
    if (!has_entries(b, t))
        return 0;
    r->ntables++;
    rc = build_cols(b, t);
    return rc != 0 ? rc : build_rows(b, t);
}

/* With --combined one table per thread count; else one per kernel, in the
 * order the selection first has them, and thread count, ascending. */
static int build_tables(const builder *b, int combined)
{
    gb_report *r = b->r;
    int nkernels = 0, rc = 0;

    for (int i = 0; i < b->nsel; i++)
        nkernels += first_of_kernel(b, i);
    r->tables = calloc((size_t)(combined ? 1 : nkernels) * (size_t)r->nthreads,
                       sizeof *r->tables);
    if (r->tables == NULL)
        return -2;
    if (combined) {
        for (int j = 0; j < r->nthreads && rc == 0; j++)
            rc = add_table(b, NULL, r->threads[j]);
        return rc;
    }
    for (int i = 0; i < b->nsel && rc == 0; i++) {
        if (!first_of_kernel(b, i))
            continue;
        for (int j = 0; j < r->nthreads && rc == 0; j++)
            rc = add_table(b, b->sel[i]->kernel, r->threads[j]);
    }
    return rc;
}

/* ---- the report -------------------------------------------------------------- */

int gb_report_build(const gb_result_file *f, const gb_report_opts *o, gb_report *r, char *err,
                    size_t errlen)
{
    builder b = { f, r, NULL, 0, NULL, 0 };
    int rc = -2;

    *r = (gb_report){ .f = f, .metric = o->metric };
    r->summary_metric[GB_SUM_METRIC] = o->metric;
    r->summary_metric[GB_SUM_SPEEDUP] = GB_METRIC_SPEEDUP;
    r->summary_metric[GB_SUM_PEAK] = GB_METRIC_PEAK;
    b.sel = calloc((size_t)f->nentries, sizeof *b.sel);
    r->threads = calloc((size_t)f->nentries, sizeof *r->threads);
    if (b.sel != NULL && r->threads != NULL)
        rc = select_entries(&b, o, err, errlen);
    if (rc == 0)
        rc = order_rows(&b);
    if (rc == 0) {
        thread_counts(&b);
        rc = build_tables(&b, o->combined);
    }
    if (rc == -2)
        snprintf(err, errlen, "out of memory");
    if (rc != 0)
        gb_report_free(r);
    free(b.sel);
    free(b.rows);
    return rc;
}

void gb_report_free(gb_report *r)
{
    for (int i = 0; i < r->ntables; i++) {
        gb_report_table *t = &r->tables[i];
        for (int row = 0; row < t->nrows; row++)
            free(t->rows[row].cells);
        free(t->rows);
        free(t->cols);
    }
    free(r->tables);
    free(r->threads);
    *r = (gb_report){ 0 };
}
