/*
 * report_scaling.c - `report FILE --metric scaling`: per variant and shape,
 * the speed-up over 1 thread and the parallel efficiency at every other
 * count, then their geometric mean per variant and count (report.h; the
 * method: src/analysis/report_multi.md).
 *
 * It reuses report.c's tables of medians (one per kernel and thread count,
 * same selection rules) and divides the 1-thread table by the others.
 */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_grid.h"

/* The table of kernel in type t at threads: a type's speed-up is over
 * its own 1-thread median. */
static const gb_report_table *find_table(const gb_report *r, const char *kernel, gb_dtype t,
                                         int threads)
{
    for (int i = 0; i < r->ntables; i++)
        if (r->tables[i].threads == threads && r->tables[i].dtype == t && r->tables[i].kernel &&
            strcmp(r->tables[i].kernel, kernel) == 0)
            return &r->tables[i];
    return NULL;
}

/* The median of row key on col's shape in t; NAN when not measured there.
 * Binary searches: a table's rows ascend by key, and its columns (one
 * kernel's) by shape; searching them per cell took seconds at 20,000 labels. */
static double median_at(const gb_report_table *t, int key, const gb_report_col *col)
{
    int lo = 0, hi;

    if (t == NULL)
        return NAN;
    for (hi = t->nrows; lo < hi;) {
        int mid = lo + (hi - lo) / 2;
        if (t->rows[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == t->nrows || t->rows[lo].key != key)
        return NAN;
    for (int clo = 0, chi = t->ncols; clo < chi;) {
        int mid = clo + (chi - clo) / 2;
        const gb_report_col *c = &t->cols[mid];
        int d = c->M != col->M ? (c->M > col->M) - (c->M < col->M)
                : c->K != col->K ? (c->K > col->K) - (c->K < col->K)
                                 : (c->N > col->N) - (c->N < col->N);
        if (d == 0)
            return t->rows[lo].cells[mid].value;
        if (d < 0)
            clo = mid + 1;
        else
            chi = mid;
    }
    return NAN;
}

/* Per label and type, the geometric mean's running sums, one per count
 * above 1. */
typedef struct scaling_sum {
    char label[160];          /* the label, then " [type]" in a report of several types */
    double *log_sum;
    int *n;
} scaling_sum;

typedef struct scaling {
    const gb_report *r;
    const int *counts;       /* above 1 */
    int ncounts;
    scaling_sum *sums;
    int nsums, maxsums;
    int *sum_of_key;         /* per row key and type (key x GB_DTYPE_COUNT + type): its
                                sum, or -1 */
    char single[1024];       /* labels measured at 1 thread only */
} scaling;

static scaling_sum *sum_for(scaling *s, const char *label, int key, gb_dtype t)
{
    const int at = key * GB_DTYPE_COUNT + (int)t;

    if (s->sum_of_key[at] >= 0)
        return &s->sums[s->sum_of_key[at]];
    if (s->nsums == s->maxsums)
        return NULL;
    snprintf(s->sums[s->nsums].label, sizeof s->sums[s->nsums].label, "%s", label);
    s->sums[s->nsums].log_sum = calloc((size_t)s->ncounts, sizeof(double));
    s->sums[s->nsums].n = calloc((size_t)s->ncounts, sizeof(int));
    if (s->sums[s->nsums].log_sum == NULL || s->sums[s->nsums].n == NULL)
        return NULL;
    s->sum_of_key[at] = s->nsums;
    return &s->sums[s->nsums++];
}

/* Adds label to the list of labels measured at 1 thread only, once. */
static void note_single(scaling *s, const char *label)
{
    size_t used = strlen(s->single), len = strlen(label);

    for (const char *p = s->single; (p = strstr(p, label)) != NULL; p += len)
        if ((p == s->single || p[-1] == ' ') && (p[len] == ',' || p[len] == '\0'))
            return;
    if (used < sizeof s->single)
        snprintf(s->single + used, sizeof s->single - used, "%s%s", used ? ", " : "", label);
}

/* The rows of one kernel's 1-thread table: one per (label, shape) that was
 * measured at another count too. */
static int scaling_rows(scaling *s, const gb_report_table *t1, gb_grid *g)
{
    /* The kernel's table at each count, found once. */
    const gb_report_table **at = malloc((size_t)s->ncounts * sizeof *at + 1);

    if (at == NULL)
        return -2;
    for (int k = 0; k < s->ncounts; k++)
        at[k] = find_table(s->r, t1->kernel, t1->dtype, s->counts[k]);
    for (int row = 0; row < t1->nrows; row++) {
        char label[160];
        int any = 0;
        /* the type beside the label where the report has several */
        snprintf(label, sizeof label, "%s%s%s%s", t1->rows[row].label, s->r->typed ? " [" : "",
                 s->r->typed ? gb_dtype_name(t1->dtype) : "", s->r->typed ? "]" : "");
        for (int c = 0; c < t1->ncols; c++) {
            double base = t1->rows[row].cells[c].value;
            int col = 0, measured = 0;
            scaling_sum *sum;
            if (!(base > 0.0))
                continue;
            snprintf(g->text[col++], GB_TABLE_CELL, "%s", label);
            snprintf(g->text[col++], GB_TABLE_CELL, "%s", t1->kernel);
            snprintf(g->text[col++], GB_TABLE_CELL, "%d", t1->cols[c].M);
            gb_grid_number(g, col++, base, "%.1f");
            sum = sum_for(s, label, t1->rows[row].key, t1->dtype);
            if (sum == NULL) {
                free(at);
                return -2;
            }
            for (int k = 0; k < s->ncounts; k++) {
                double m = median_at(at[k], t1->rows[row].key, &t1->cols[c]);
                double speedup = m > 0.0 ? base / m : NAN;
                gb_grid_number(g, col++, speedup, "%.2f");
                gb_grid_number(g, col++, 100.0 * speedup / s->counts[k], "%.0f");
                if (isfinite(speedup)) {
                    sum->log_sum[k] += log(speedup);
                    sum->n[k]++;
                    measured = 1;
                }
            }
            if (measured)
                gb_grid_row(g);
            any |= measured;
        }
        if (!any)
            note_single(s, label);
    }
    free(at);
    return 0;
}

static int scaling_table(FILE *out, scaling *s, gb_format fmt)
{
    gb_grid g;
    char title[64];
    int col = 0, rc = gb_grid_init(&g, 4 + 2 * s->ncounts);

    if (rc != 0) {
        gb_grid_free(&g);
        return rc;
    }
    gb_grid_col(&g, col++, "variant", 0);
    gb_grid_col(&g, col++, "kernel", 0);
    gb_grid_col(&g, col++, "M", 1);
    gb_grid_col(&g, col++, "1t_median_us", 1);
    for (int k = 0; k < s->ncounts; k++) {
        snprintf(title, sizeof title, "speedup_%dt", s->counts[k]);
        gb_grid_col(&g, col++, title, 1);
        snprintf(title, sizeof title, "efficiency_%dt_pct", s->counts[k]);
        gb_grid_col(&g, col++, title, 1);
    }
    if (gb_grid_start(&g, fmt) != 0) {
        gb_grid_free(&g);
        return -2;
    }
    gb_grid_heading(out, fmt, "speed-up over 1 thread (its median / this median) and parallel "
                      "efficiency (speed-up / threads, %), per variant and shape");
    for (int i = 0; i < s->r->ntables && rc == 0; i++)
        if (s->r->tables[i].threads == 1)
            rc = scaling_rows(s, &s->r->tables[i], &g);
    if (rc != 0)
        g.failed = 1;
    return gb_grid_finish(out, &g) != 0 ? -2 : rc;
}

static int scaling_geomeans(FILE *out, const scaling *s, gb_format fmt)
{
    gb_grid g;
    char title[64];
    int col = 0;

    if (gb_grid_init(&g, 1 + 3 * s->ncounts) != 0) {
        gb_grid_free(&g);
        return -2;
    }
    gb_grid_col(&g, col++, "variant", 0);
    for (int k = 0; k < s->ncounts; k++) {
        snprintf(title, sizeof title, "geomean_speedup_%dt", s->counts[k]);
        gb_grid_col(&g, col++, title, 1);
        snprintf(title, sizeof title, "efficiency_%dt_pct", s->counts[k]);
        gb_grid_col(&g, col++, title, 1);
        snprintf(title, sizeof title, "shapes_%dt", s->counts[k]);
        gb_grid_col(&g, col++, title, 1);
    }
    if (gb_grid_start(&g, fmt) != 0) {
        gb_grid_free(&g);
        return -2;
    }
    gb_grid_heading(out, fmt, "geometric mean over the shapes, per variant");
    for (int i = 0; i < s->nsums; i++) {
        const scaling_sum *sum = &s->sums[i];
        int any = 0;
        col = 0;
        snprintf(g.text[col++], GB_TABLE_CELL, "%s", sum->label);
        for (int k = 0; k < s->ncounts; k++) {
            double gm = sum->n[k] > 0 ? exp(sum->log_sum[k] / sum->n[k]) : NAN;
            gb_grid_number(&g, col++, gm, "%.2f");
            gb_grid_number(&g, col++, 100.0 * gm / s->counts[k], "%.0f");
            snprintf(g.text[col++], GB_TABLE_CELL, "%d", sum->n[k]);
            any |= sum->n[k] > 0;
        }
        if (any)
            gb_grid_row(&g);
    }
    return gb_grid_finish(out, &g);
}

static void scaling_header(FILE *out, const gb_report *r, gb_format fmt)
{
    const char *cpu = r->f->cpu_model, *host = r->f->hostname;
    const char *pre = fmt == GB_FMT_CSV ? "# " : fmt == GB_FMT_MD ? "- " : "";

    if (fmt == GB_FMT_MD)
        fprintf(out, "gemmbench scaling report of `%s`\n\n", r->f->path);
    else
        fprintf(out, "%sgemmbench scaling report of %s\n", fmt == GB_FMT_CSV ? "# " : "",
                r->f->path);
    fprintf(out, "%smachine: %s (host %s)\n", pre,
            cpu ? cpu : "unknown CPU",
            host ? host : "unknown host");
    fprintf(out, "%sthreads:", pre);
    for (int i = 0; i < r->nthreads; i++)
        fprintf(out, "%s %d", i ? "," : "", r->threads[i]);
    fprintf(out, "; %s\n", r->f->complete ? "complete" : "INCOMPLETE (interrupted)");
}

/* Whether some (label, shape) has a median above zero at 1 thread and at
 * another count: else every table would be empty. */
static int any_speedup(const gb_report *r)
{
    for (int i = 0; i < r->ntables; i++) {
        const gb_report_table *t1 = &r->tables[i];
        if (t1->threads != 1 || t1->kernel == NULL)
            continue;
        for (int row = 0; row < t1->nrows; row++)
            for (int c = 0; c < t1->ncols; c++)
                for (int k = 1; k < r->nthreads && t1->rows[row].cells[c].value > 0.0; k++)
                    if (median_at(find_table(r, t1->kernel, t1->dtype, r->threads[k]),
                                  t1->rows[row].key, &t1->cols[c]) > 0.0)
                        return 1;
    }
    return 0;
}

int gb_report_scaling(FILE *out, const gb_result_file *f, const gb_report_opts *o, char *err,
                      size_t errlen)
{
    gb_report_opts medians = *o;
    gb_report r;
    scaling s;
    int rc, rows = 0;

    medians.metric = GB_METRIC_MEDIAN;
    medians.combined = 0;
    rc = gb_report_build(f, &medians, &r, err, errlen);
    if (rc != 0)
        return rc;
    if (r.nthreads == 0 || r.threads[0] != 1 || r.nthreads < 2) {
        snprintf(err, errlen, "%s: %s: scaling is the speed-up over 1 thread (measure with "
                 "--threads 1,N)", f->path,
                 r.nthreads > 0 && r.threads[0] == 1 ? "only 1-thread results"
                                                     : "no 1-thread results");
        gb_report_free(&r);
        return -1;
    }
    if (!any_speedup(&r)) {
        snprintf(err, errlen, "%s: no entry has a median above zero at 1 thread and at "
                 "another count: no speed-up to show", f->path);
        gb_report_free(&r);
        return -1;
    }
    memset(&s, 0, sizeof s);
    s.r = &r;
    s.counts = r.threads + 1;
    s.ncounts = r.nthreads - 1;
    for (int i = 0; i < r.ntables; i++)
        rows += r.tables[i].nrows;
    s.maxsums = rows;
    s.sums = calloc((size_t)(rows > 0 ? rows : 1), sizeof *s.sums);
    /* Row keys count the report's labels: fewer than its tables' rows. */
    s.sum_of_key = malloc((size_t)(rows > 0 ? rows : 1) * GB_DTYPE_COUNT * sizeof *s.sum_of_key);
    rc = s.sums == NULL || s.sum_of_key == NULL ? -2 : 0;
    for (int i = 0; rc == 0 && i < rows * GB_DTYPE_COUNT; i++)
        s.sum_of_key[i] = -1;
    if (rc == 0) {
        scaling_header(out, &r, o->format);
        rc = scaling_table(out, &s, o->format);
    }
    if (rc == 0)
        rc = scaling_geomeans(out, &s, o->format);
    if (rc == 0 && s.single[0])
        fprintf(out, "\n%smeasured at 1 thread only (single-thread schedules): %s\n",
                o->format == GB_FMT_CSV ? "# " : "", s.single);
    if (rc == -2)
        snprintf(err, errlen, "out of memory");
    for (int i = 0; i < s.nsums; i++) {
        free(s.sums[i].log_sum);
        free(s.sums[i].n);
    }
    free(s.sums);
    free(s.sum_of_key);
    gb_report_free(&r);
    return rc;
}
