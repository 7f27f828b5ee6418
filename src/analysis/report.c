/*
 * report.c - what `gemmbench report FILE.json` shows: the selected entries,
 * the rows and columns of each table, and the number in every cell and row
 * summary.  report_render.c writes what this builds.
 *
 * One table per kernel, type and thread count (per type and thread count
 * with --combined; a file of f32 alone has one type):
 * rows are the variants in the variant table's order (variants this build
 * does not know follow, in file order; labelled entries such as
 * rule_based[tk=16] or packed+prepack are rows of their own), columns are the
 * shapes measured, and each row ends with geometric means over it.
 */
#include "report.h"
#include "variants.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "gemmbench.h"

/* ---- values --------------------------------------------------------------- */

double gb_report_speedup(const gb_result_file *f, const gb_entry *e)
{
    const gb_entry *b;

    if (!(e->median_us > 0.0))
        return NAN;
    /* The baseline every speed-up divides by: the variant as written,
     * without parameters or pre-packing. */
    if ((b = gb_result_file_baseline(f, e)) != NULL)
        return b->median_us / e->median_us;
    /* A file filtered after the run may have lost its baseline entries; the
     * speed-up the run computed from them is still right. */
    return e->speedup;
}

double gb_report_peak_pct(const gb_result_file *f, const gb_entry *e)
{
    double peak = gb_result_file_peak_dtype(f, e->dtype, e->threads);
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
    int first;               /* its first selected entry */
} row_key;

/* What every table is built from.  Every lookup is an index built once (a
 * sort), never a search of the entries: a report of 50,000 entries searched
 * them per entry and per cell and ran for a minute. */
typedef struct builder {
    const gb_result_file *f;
    gb_report *r;
    const gb_entry **sel;    /* the selected entries, in file order */
    int nsel;
    row_key *rows;           /* every selected label, in display order */
    int nrows;
    int *row_of;             /* per selected entry: its row in rows */
    int *kernel_first;       /* per selected entry: its kernel's first selected entry */
    int *variant_first;      /* ... and its variant's */
} builder;

int gb_report_filter(const gb_report_opts *o, gb_filter *filter, char *err, size_t errlen)
{
    int rc = 0;

    gb_filter_init(filter);
    for (int i = 0; i < o->nkernels && rc == 0; i++)
        rc = gb_filter_add(filter, GB_FILTER_KERNEL, o->kernels[i], err, errlen);
    for (int i = 0; i < o->nvariants && rc == 0; i++)
        rc = gb_filter_add(filter, GB_FILTER_VARIANT, o->variants[i], err, errlen);
    for (int i = 0; i < o->ndtypes && rc == 0; i++)
        rc = gb_filter_add(filter, GB_FILTER_DTYPE, o->dtypes[i], err, errlen);
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
        snprintf(err, errlen, "%s: no entries match --kernel, --variant and --dtype together",
                 b->f->path);
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

/* A selected entry's text (label, kernel or variant) and its position. */
typedef struct keyed {
    const char *text;
    int at;
} keyed;

static int by_text_then_position(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    int d = strcmp(x->text, y->text);
    return d != 0 ? d : (x->at > y->at) - (x->at < y->at);
}

/* first[i] = the first selected entry with entry i's text at offset (a
 * gb_entry's label, kernel or variant).  0, or -2 out of memory. */
static int first_same(const builder *b, size_t offset, int *first)
{
    keyed *k = malloc((size_t)b->nsel * sizeof *k + 1);

    if (k == NULL)
        return -2;
    for (int i = 0; i < b->nsel; i++)
        k[i] = (keyed){ *(const char *const *)((const char *)b->sel[i] + offset), i };
    qsort(k, (size_t)b->nsel, sizeof *k, by_text_then_position);
    for (int i = 0, head = 0; i < b->nsel; i++) {
        if (strcmp(k[i].text, k[head].text) != 0)
            head = i;
        first[k[i].at] = k[head].at;
    }
    free(k);
    return 0;
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
    int *label_first = calloc((size_t)b->nsel + 1, sizeof *label_first);
    int *row_at = calloc((size_t)b->nsel + 1, sizeof *row_at);
    int rc = -2;

    b->rows = calloc((size_t)b->nsel, sizeof *b->rows);
    b->row_of = calloc((size_t)b->nsel + 1, sizeof *b->row_of);
    b->kernel_first = calloc((size_t)b->nsel + 1, sizeof *b->kernel_first);
    b->variant_first = calloc((size_t)b->nsel + 1, sizeof *b->variant_first);
    if (label_first == NULL || row_at == NULL || b->rows == NULL || b->row_of == NULL ||
        b->kernel_first == NULL || b->variant_first == NULL ||
        first_same(b, offsetof(gb_entry, label), label_first) != 0 ||
        first_same(b, offsetof(gb_entry, kernel), b->kernel_first) != 0 ||
        first_same(b, offsetof(gb_entry, variant), b->variant_first) != 0)
        goto out;
    for (int i = 0; i < b->nsel; i++) {
        const gb_entry *e = b->sel[i];
        long known = variant_table_index(e->variant);
        row_key *row;

        if (label_first[i] != i)
            continue;
        row = &b->rows[b->nrows++];
        row->label = e->label;
        row->major = known >= 0 ? known : (long)gb_variant_count + b->variant_first[i];
        row->minor = strcmp(e->label, e->variant) == 0 ? -1 : i;
        row->first = i;
    }
    qsort(b->rows, (size_t)b->nrows, sizeof *b->rows, compare_rows);
    for (int r = 0; r < b->nrows; r++)
        row_at[b->rows[r].first] = r;
    for (int i = 0; i < b->nsel; i++)
        b->row_of[i] = row_at[label_first[i]];
    rc = 0;
out:
    free(label_first);
    free(row_at);
    return rc;
}

static int compare_ints(const void *a, const void *b)
{
    return order(*(const int *)a, *(const int *)b);
}

/* The distinct thread counts of the selection, ascending, into r->threads. */
static void thread_counts(const builder *b)
{
    int *out = b->r->threads, n = 0;

    for (int i = 0; i < b->nsel; i++)
        out[i] = b->sel[i]->threads;
    qsort(out, (size_t)b->nsel, sizeof *out, compare_ints);
    for (int i = 0; i < b->nsel; i++)
        if (n == 0 || out[n - 1] != out[i])
            out[n++] = out[i];
    b->r->nthreads = n;
}

/* ---- one table ------------------------------------------------------------- */

/* A table's entries, with what its columns and rows are sorted by. */
typedef struct member {
    int at;                  /* the selected entry */
    int kernel, row, col;    /* its kernel's first entry, its row, its column */
} member;

/* What one table is built from: its selected entries. */
typedef struct table_src {
    member *m;
    int n;
} table_src;

/* The builder the comparators below read (qsort passes them no context);
 * set before each sort, in one thread. */
static const builder *sorting;

/* Columns: a kernel's shapes together, kernels in the order the selection
 * first has them, each kernel's shapes ascending. */

static int compare_by_shape(const void *a, const void *b)
{
    const member *x = a, *y = b;
    const gb_entry *p = sorting->sel[x->at], *q = sorting->sel[y->at];

    if (x->kernel != y->kernel)
        return order(x->kernel, y->kernel);
    if (p->M != q->M || p->K != q->K)
        return p->M != q->M ? order(p->M, q->M) : order(p->K, q->K);
    return p->N != q->N ? order(p->N, q->N) : order(x->at, y->at);
}

static int compare_by_cell(const void *a, const void *b)
{
    const member *x = a, *y = b;

    if (x->row != y->row)
        return order(x->row, y->row);
    return x->col != y->col ? order(x->col, y->col) : order(x->at, y->at);
}

static int same_shape(const gb_entry *a, const gb_entry *b)
{
    return a->M == b->M && a->K == b->K && a->N == b->N;
}

/* The distinct shapes of the table's entries, and each entry's column. */
static int build_cols(const builder *b, gb_report_table *t, table_src *src)
{
    t->cols = calloc((size_t)src->n, sizeof *t->cols);
    if (t->cols == NULL)
        return -2;
    sorting = b;
    qsort(src->m, (size_t)src->n, sizeof *src->m, compare_by_shape);
    for (int i = 0; i < src->n; i++) {
        const gb_entry *e = b->sel[src->m[i].at];
        if (i == 0 || src->m[i].kernel != src->m[i - 1].kernel ||
            !same_shape(e, b->sel[src->m[i - 1].at]))
            t->cols[t->ncols++] = (gb_report_col){ e->kernel, e->M, e->K, e->N, 0 };
        src->m[i].col = t->ncols - 1;
    }
    /* uniform: every column of the kernel has its K and N (always so for the
     * built-in kernels): then M alone names a column.  A kernel's columns
     * are adjacent. */
    for (int c = 0, from = 0; c <= t->ncols; c++) {
        if (c < t->ncols && strcmp(t->cols[c].kernel, t->cols[from].kernel) == 0)
            continue;
        int uniform = 1;
        for (int i = from; i < c; i++)
            uniform &= t->cols[i].K == t->cols[from].K && t->cols[i].N == t->cols[from].N;
        for (int i = from; i < c; i++)
            t->cols[i].uniform = uniform;
        from = c;
    }
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

/* Places each entry of t in its cell (the first of a cell's entries is kept)
 * and makes a row of every label that has a cell.  A table too large to
 * print is refused: its cells would be rows x columns. */
static int build_rows(const builder *b, gb_report_table *t, table_src *src, char *err,
                      size_t errlen)
{
    size_t ncols = t->ncols > 0 ? (size_t)t->ncols : 1;
    const gb_entry **cells = calloc(ncols, sizeof *cells);
    int nrows = 0, rc = 0;

    sorting = b;
    qsort(src->m, (size_t)src->n, sizeof *src->m, compare_by_cell);
    for (int i = 0; i < src->n; i++)
        nrows += i == 0 || src->m[i].row != src->m[i - 1].row;
    if ((double)nrows * t->ncols > GB_REPORT_MAX_CELLS) {
        free(cells);
        snprintf(err, errlen, "%s: a table of %d rows by %d shapes (%s, %d threads) is more "
                 "than %d cells: choose some with --variant or --kernel", b->f->path, nrows,
                 t->ncols, t->kernel ? t->kernel : "every kernel", t->threads,
                 GB_REPORT_MAX_CELLS);
        return -1;
    }
    t->rows = calloc((size_t)nrows + 1, sizeof *t->rows);
    if (cells == NULL || t->rows == NULL) {
        free(cells);
        return -2;
    }
    for (int i = 0; i < src->n && rc == 0; i++) {
        const member *m = &src->m[i];
        if (i > 0 && m->row == m[-1].row && m->col == m[-1].col)
            b->r->duplicates++;
        else
            cells[m->col] = b->sel[m->at];
        if (i + 1 < src->n && m[1].row == m->row)
            continue;
        t->rows[t->nrows].label = b->rows[m->row].label;
        t->rows[t->nrows].key = m->row;
        rc = fill_row(b, t, &t->rows[t->nrows++], cells);
        memset(cells, 0, ncols * sizeof *cells);
    }
    free(cells);
    return rc;
}

/* Adds the table of kernel (NULL: all) at threads of src's entries. */
static int add_table(const builder *b, const char *kernel, int threads, table_src *src,
                     char *err, size_t errlen)
{
    gb_report *r = b->r;
    gb_report_table *t = &r->tables[r->ntables++];
    int rc;

    *t = (gb_report_table){ kernel, threads, b->sel[src->m[0].at]->dtype, NULL, 0, NULL, 0 };
    rc = build_cols(b, t, src);
    return rc != 0 ? rc : build_rows(b, t, src, err, errlen);
}

static int compare_by_table(const void *a, const void *b)
{
    const member *x = a, *y = b;
    const gb_entry *e = sorting->sel[x->at], *g = sorting->sel[y->at];

    if (x->kernel != y->kernel)
        return order(x->kernel, y->kernel);
    if (e->dtype != g->dtype)
        return order(e->dtype, g->dtype);
    return e->threads != g->threads ? order(e->threads, g->threads) : order(x->at, y->at);
}

/* Whether members x and y (sorted by compare_by_table) are of one table. */
static int same_table(const builder *b, const member *x, const member *y)
{
    const gb_entry *e = b->sel[x->at], *g = b->sel[y->at];
    return x->kernel == y->kernel && e->dtype == g->dtype && e->threads == g->threads;
}

/* With --combined one table per type and thread count; else one per
 * kernel, in the order the selection first has them, type (f32, bf16,
 * u8s8) and thread count, ascending: the entries sorted so, each run of
 * them one table. */
static int build_tables(const builder *b, int combined, char *err, size_t errlen)
{
    gb_report *r = b->r;
    member *all = malloc((size_t)b->nsel * sizeof *all + 1);
    int ntables = 0, rc = 0;

    if (all == NULL)
        return -2;
    for (int i = 0; i < b->nsel; i++)
        all[i] = (member){ i, combined ? 0 : b->kernel_first[i], b->row_of[i], 0 };
    sorting = b;
    qsort(all, (size_t)b->nsel, sizeof *all, compare_by_table);
    for (int i = 0; i < b->nsel; i++)
        ntables += i == 0 || !same_table(b, &all[i], &all[i - 1]);
    r->tables = calloc((size_t)ntables + 1, sizeof *r->tables);
    if (r->tables == NULL) {
        free(all);
        return -2;
    }
    for (int i = 0, from = 0; i < b->nsel && rc == 0; i++) {
        const gb_entry *e = b->sel[all[i].at];
        table_src src = { all + from, i + 1 - from };
        if (i + 1 < b->nsel && same_table(b, &all[i + 1], &all[i]))
            continue;
        /* For the sorts within the table, kernels by first appearance. */
        for (int j = 0; j < src.n; j++)
            src.m[j].kernel = b->kernel_first[src.m[j].at];
        rc = add_table(b, combined ? NULL : e->kernel, e->threads, &src, err, errlen);
        from = i + 1;
    }
    free(all);
    return rc;
}

/* ---- the report -------------------------------------------------------------- */

int gb_report_build(const gb_result_file *f, const gb_report_opts *o, gb_report *r, char *err,
                    size_t errlen)
{
    builder b = { f, r, NULL, 0, NULL, 0, NULL, NULL, NULL };
    int rc = -2;

    *r = (gb_report){ .f = f, .metric = o->metric };
    r->summary_metric[GB_SUM_METRIC] = o->metric;
    r->summary_metric[GB_SUM_SPEEDUP] = GB_METRIC_SPEEDUP;
    r->summary_metric[GB_SUM_PEAK] = GB_METRIC_PEAK;
    b.sel = calloc((size_t)f->nentries, sizeof *b.sel);
    r->threads = calloc((size_t)f->nentries, sizeof *r->threads);
    if (b.sel != NULL && r->threads != NULL)
        rc = select_entries(&b, o, err, errlen);
    /* A selection of f32 alone (an f32 file, --dtype f32) reads as before. */
    for (int i = 0; rc == 0 && i < b.nsel; i++)
        r->typed |= b.sel[i]->dtype != GB_DTYPE_F32;
    if (rc == 0)
        rc = order_rows(&b);
    if (rc == 0) {
        thread_counts(&b);
        rc = build_tables(&b, o->combined, err, errlen);
    }
    if (rc == -2)
        snprintf(err, errlen, "out of memory");
    if (rc != 0)
        gb_report_free(r);
    free(b.sel);
    free(b.rows);
    free(b.row_of);
    free(b.kernel_first);
    free(b.variant_first);
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
