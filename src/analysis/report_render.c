/*
 * report_render.c - writes a built report (report.h): header lines, then each
 * table, as an aligned terminal table or Markdown through the shared table
 * writer (table.h), or as CSV.  Numbers are formatted here and nowhere else.
 *
 * The CSV is what scripts/plot.sh draws, so every figure shows exactly the
 * numbers the tables print; it and tests/cli/report.sh read its layout:
 * '# ' comment lines, then per table `kernel,threads,variant,<columns>,
 * <summaries>` and one line per row, unrounded, empty where not measured.
 * A selection with a type other than f32 has `kernel,dtype,threads,variant,
 * ...` and `dtype=T` in each `# table:` line; f32 alone (an f32 file,
 * --dtype f32) is as before.
 */
#include "gemmbench.h"
#include "libraries.h"
#include "report.h"
#include "roof.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

/* A metric's title in a table of type t: the integer type's rate is in
 * GOP/s, a peak is the type's own. */
static void metric_title(gb_report_metric m, gb_dtype t, char *buf, size_t len);

static const struct {
    const char *csv_name;    /* the CSV's `# metric:` line */
    const char *title;       /* what a table of it shows */
} metric_text[] = {
    [GB_METRIC_MEDIAN] = { "median_us", "median latency, µs (lower is better)" },
    [GB_METRIC_MIN] = { "min_us", "minimum latency, µs (lower is better)" },
    [GB_METRIC_GFLOPS] = { "gflops", "GFLOP/s at the median (higher is better)" },
    [GB_METRIC_SPEEDUP] = { "speedup",
                            "speed-up over baseline: its median / this median (higher is "
                            "better)" },
    [GB_METRIC_PEAK] = { "peak_pct",
                         "% of the machine's FP32 peak at the median (higher is better)" },
    [GB_METRIC_ROOF] = { "roof_pct",
                         "% of the roof that applies, min(peak, intensity x bandwidth), at "
                         "the median (higher is better)" },
};

static const char *const summary_title[GB_SUM_COUNT] = { "geomean", "speedup", "%peak" };
static const char *const summary_csv_name[GB_SUM_COUNT] = { "geomean", "geomean_speedup",
                                                             "geomean_peak_pct" };

/* ---- header lines ---------------------------------------------------------- */

typedef struct facts {
    const char *cpu, *host, *started;
    char threads[256];       /* "1, 2" */
} facts;

static void gather_facts(const gb_report *r, facts *x)
{
    size_t used = 0;

    x->cpu = r->f->cpu_model && r->f->cpu_model[0] ? r->f->cpu_model : "unknown CPU";
    x->host = r->f->hostname && r->f->hostname[0] ? r->f->hostname : "unknown host";
    x->started = r->f->started && r->f->started[0] ? r->f->started : "unknown date";
    x->threads[0] = '\0';
    for (int i = 0; i < r->nthreads && used < sizeof x->threads; i++)
        used += (size_t)snprintf(x->threads + used, sizeof x->threads - used, "%s%d",
                                 i ? ", " : "", r->threads[i]);
}

/* The roofs of each thread count, for scripts/plot.sh's roofline:
 * "# roofs: threads=T peak=P L2=B L3=B memory=B" (GFLOP/s; GB/s as the
 * results' roofs use them, src/machine/roof.c; 0 unmeasured), and "# cache:
 * warm|cold".  Files without bandwidths: no roofs line. */
static void write_roofs_csv(FILE *out, const gb_report *r)
{
    gb_bandwidth b;

    fprintf(out, "# cache: %s\n", r->f->cache && r->f->cache[0] ? r->f->cache : "warm");
    if (gb_result_file_bandwidth(r->f, &b) != 0)
        return;
    for (int i = 0; i < r->nthreads; i++) {
        int t = r->threads[i];
        double peak = t > 1 ? r->f->peak_gflops : r->f->peak_1thread;
        if (t == 1 && peak <= 0.0)
            peak = r->f->peak_gflops;
        fprintf(out, "# roofs: threads=%d peak=%.2f", t, peak);
        for (int l = 0; l < GB_BW_LEVELS; l++)
            fprintf(out, " %s=%.2f", gb_bw_level_name(l), gb_roof_bandwidth(&b, l, t > 1));
        fprintf(out, "\n");
    }
}

/* Each reference library that ran: its kernels, flagged when they are not
 * this CPU's best path (libraries.h). */
static void write_libraries(FILE *out, const gb_result_file *f, const char *prefix,
                            const char *indent)
{
    gb_library_note libs[GB_MAX_LIBRARY_NOTES];
    int n = gb_library_notes(f, libs, GB_MAX_LIBRARY_NOTES);

    for (int i = 0; i < n; i++)
        gb_library_note_print(out, &libs[i], prefix, indent);
}

/* Comment lines: gnuplot skips them, pandas with comment='#'. */
static void write_header_csv(FILE *out, const gb_report *r, const facts *x)
{
    const gb_result_file *f = r->f;
    gb_library_note libs[GB_MAX_LIBRARY_NOTES];

    fprintf(out, "# file: %s\n# machine: %s (%s)\n# started: %s\n# threads: %s\n", f->path,
            x->cpu, x->host, x->started, x->threads);
    fprintf(out, "# complete: %s\n# metric: %s\n", f->complete ? "yes" : "no",
            metric_text[r->metric].csv_name);
    if (f->peak_gflops > 0.0)
        fprintf(out, "# peak_gflops: %.2f\n", f->peak_gflops);
    write_libraries(out, f, "# library: ", "#   ");
    if (gb_library_notes(f, libs, GB_MAX_LIBRARY_NOTES) > 0) {
        /* one line for scripts/plot.sh's figure titles */
        fprintf(out, "# libraries: ");
        gb_library_notes_brief(out, libs, gb_library_notes(f, libs, GB_MAX_LIBRARY_NOTES));
        fprintf(out, "\n");
    }
    write_roofs_csv(out, r);
    fprintf(out, "# empty cell: not measured; geomeans over the cells present\n");
}

static void write_header_text(FILE *out, const gb_report *r, const facts *x, gb_format fmt)
{
    const gb_result_file *f = r->f;
    const char *bullet = fmt == GB_FMT_MD ? "- " : "";

    if (fmt == GB_FMT_MD)
        fprintf(out, "gemmbench report of `%s`\n\n", f->path);
    else
        fprintf(out, "gemmbench report of %s\n", f->path);
    fprintf(out, "%smachine: %s (host %s), peak ", bullet, x->cpu, x->host);
    if (f->peak_gflops > 0.0)
        fprintf(out, "%.1f GFLOP/s", f->peak_gflops);
    else
        fprintf(out, "not measured (no %% of peak)");
    /* each other type's own peak, where the run measured it */
    for (int t = GB_DTYPE_F32 + 1; t < GB_DTYPE_COUNT; t++) {
        double p = gb_result_file_peak_dtype(f, (gb_dtype)t, f->run_threads > 0 ? f->run_threads : 1);
        if (p > 0.0)
            fprintf(out, ", %s %.1f %s", gb_dtype_name((gb_dtype)t), p,
                    gb_dtype_is_integer((gb_dtype)t) ? "GOP/s" : "GFLOP/s");
    }
    fputc('\n', out);
    fprintf(out, "%srun: started %s; threads %s; %s\n", bullet, x->started, x->threads,
            f->complete ? "complete" : "INCOMPLETE (interrupted: cells may be missing)");
    write_libraries(out, f, fmt == GB_FMT_MD ? "- library: " : "library: ",
                    fmt == GB_FMT_MD ? "  " : "         ");
    fprintf(out, "%scells: %s; '-' = not measured\n", bullet, metric_text[r->metric].title);
    fprintf(out, "%sgeomean: over the cells present in the row; * = fewer than all columns\n",
            bullet);
}

/* ---- pieces of a table ------------------------------------------------------- */

/* A kernel's table names its columns by M when its K and N are one pair
 * (then given once, in the title), a combined table by kernel/M. */
static void col_label(const gb_report_table *t, int c, char *buf, size_t len)
{
    const gb_report_col *col = &t->cols[c];

    if (t->kernel && col->uniform)
        snprintf(buf, len, "%d", col->M);
    else if (t->kernel)
        snprintf(buf, len, "%dx%dx%d", col->M, col->K, col->N);
    else if (col->uniform)
        snprintf(buf, len, "%s/%d", col->kernel, col->M);
    else
        snprintf(buf, len, "%s/%dx%dx%d", col->kernel, col->M, col->K, col->N);
}

/* The K and N that a kernel's title gives once: when all its columns share
 * them (a table has a column, and its columns share `uniform`). */
static int title_shape(const gb_report_table *t, int *K, int *N)
{
    if (t->kernel == NULL || !t->cols[0].uniform)
        return 0;
    *K = t->cols[0].K;
    *N = t->cols[0].N;
    return 1;
}

/* ---- CSV ----------------------------------------------------------------------- */

static void csv_number(FILE *out, double v)
{
    fputc(',', out);
    if (isfinite(v))
        fprintf(out, "%.10g", v);
}

/* Every summary, every row, one header line: what plot.sh reads. */
static void write_table_csv(FILE *out, const gb_report *r, const gb_report_table *t)
{
    char label[GB_TABLE_CELL];
    int K, N;

    fprintf(out, "\n# table: kernel=%s", t->kernel ? t->kernel : "all");
    if (r->typed)
        fprintf(out, " dtype=%s", gb_dtype_name(t->dtype));
    fprintf(out, " threads=%d", t->threads);
    if (title_shape(t, &K, &N))
        fprintf(out, " K=%d N=%d", K, N);
    fputs(r->typed ? "\nkernel,dtype,threads,variant" : "\nkernel,threads,variant", out);
    for (int c = 0; c < t->ncols; c++) {
        col_label(t, c, label, sizeof label);
        fputc(',', out);
        gb_csv_field(out, label);
    }
    for (int s = 0; s < GB_SUM_COUNT; s++)
        fprintf(out, ",%s", summary_csv_name[s]);
    fputc('\n', out);
    for (int i = 0; i < t->nrows; i++) {
        const gb_report_row *row = &t->rows[i];
        gb_csv_field(out, t->kernel ? t->kernel : "all");
        if (r->typed)
            fprintf(out, ",%s", gb_dtype_name(t->dtype));
        fprintf(out, ",%d,", t->threads);
        gb_csv_field(out, row->label);
        for (int c = 0; c < t->ncols; c++)
            csv_number(out, row->cells[c].value);
        for (int s = 0; s < GB_SUM_COUNT; s++)
            csv_number(out, row->summary[s]);
        fputc('\n', out);
    }
}

/* ---- terminal and Markdown ------------------------------------------------------ */

/* The columns after the variant: the shapes, then the summaries shown. */
typedef struct layout {
    const gb_report *r;
    const gb_report_table *t;
    int sum[GB_SUM_COUNT];   /* the summaries shown, in order */
    int nsum;
} layout;

static int summary_known(const gb_report_table *t, int s)
{
    for (int i = 0; i < t->nrows; i++)
        if (isfinite(t->rows[i].summary[s]))
            return 1;
    return 0;
}

/* The metric's geomean always; the speed-up and percent of peak unless they
 * are the metric itself or '-' on every row. */
static void choose_summaries(layout *l)
{
    l->nsum = 0;
    for (int s = 0; s < GB_SUM_COUNT; s++)
        if (s == GB_SUM_METRIC ||
            (l->r->summary_metric[s] != l->r->metric && summary_known(l->t, s)))
            l->sum[l->nsum++] = s;
}

static void format_value(char *buf, size_t len, double v, gb_report_metric m, const char *mark)
{
    if (!isfinite(v))
        snprintf(buf, len, "-%s", mark);
    else if (m == GB_METRIC_GFLOPS || m == GB_METRIC_SPEEDUP)
        snprintf(buf, len, "%.2f%s", v, mark);
    else
        snprintf(buf, len, "%.1f%s", v, mark);
}

static void column_title(const layout *l, int k, char *buf, size_t len)
{
    if (k < l->t->ncols)
        col_label(l->t, k, buf, len);
    else
        snprintf(buf, len, "%s", summary_title[l->sum[k - l->t->ncols]]);
}

static void cell_text(const layout *l, const gb_report_row *row, int k, char *buf, size_t len)
{
    int ncols = l->t->ncols, s;

    if (k < ncols) {
        /* A roof the entry beat was measured low: no figure (roof.h). */
        if (l->r->metric == GB_METRIC_ROOF && gb_roof_measured_low(row->cells[k].value)) {
            snprintf(buf, len, "!roof");
            return;
        }
        /* A wrong result's time is shown, but marked. */
        format_value(buf, len, row->cells[k].value, l->r->metric,
                     row->cells[k].failed ? "!" : "");
        return;
    }
    /* A summary over fewer cells than columns is marked; the blank keeps the
     * digits of marked and unmarked ones aligned. */
    s = l->sum[k - ncols];
    format_value(buf, len, row->summary[s], l->r->summary_metric[s],
                 isfinite(row->summary[s]) && row->used[s] < ncols ? "*" : " ");
}

typedef char cell_buf[GB_TABLE_CELL];

/* The table's columns: the variant column, then every shape and summary. */
static void grid_columns(const layout *l, int ncols, cell_buf *title, gb_column *cols)
{
    /* Pivot notation: rows \ columns. */
    snprintf(title[0], GB_TABLE_CELL, "variant \\ %s", l->t->kernel ? "M" : "kernel/M");
    for (int i = 0; i <= ncols; i++) {
        if (i > 0)
            column_title(l, i - 1, title[i], GB_TABLE_CELL);
        cols[i] = (gb_column){ title[i], NULL, NULL, 0, i > 0 };
    }
}

static int write_grid(FILE *out, const layout *l, gb_format fmt, int ncols)
{
    const int n = 1 + ncols;
    cell_buf *title = calloc((size_t)n, sizeof *title), *text = calloc((size_t)n, sizeof *text);
    const char **cells = calloc((size_t)n, sizeof *cells);
    gb_column *cols = calloc((size_t)n, sizeof *cols);
    gb_table tab;
    int rc = -2;

    if (title == NULL || text == NULL || cells == NULL || cols == NULL)
        goto out;
    grid_columns(l, ncols, title, cols);
    if (gb_table_init(&tab, fmt, cols, n, 2) != 0)
        goto out;
    tab.pad_md = 1;
    rc = 0;
    for (int row = 0; row < l->t->nrows && rc == 0; row++) {
        cells[0] = l->t->rows[row].label;
        for (int i = 1; i < n; i++) {
            cell_text(l, &l->t->rows[row], i - 1, text[i], GB_TABLE_CELL);
            cells[i] = text[i];
        }
        if (gb_table_add(&tab, cells) != 0)
            rc = -2;
    }
    if (rc == 0)
        gb_table_print(out, &tab);
    gb_table_free(&tab);
out:
    free(title);
    free(text);
    free(cells);
    free(cols);
    return rc;
}

static int write_table_text(FILE *out, const gb_report *r, const gb_report_table *t,
                            gb_format fmt)
{
    layout l = { r, t, { 0 }, 0 };
    const char *em = fmt == GB_FMT_MD ? "**" : "";
    char shape[64] = "", type[16] = "", title[160];
    int K, N, ncols;

    if (title_shape(t, &K, &N))
        snprintf(shape, sizeof shape, " (K=%d, N=%d)", K, N);
    if (r->typed)
        snprintf(type, sizeof type, ", %s", gb_dtype_name(t->dtype));
    metric_title(r->metric, t->dtype, title, sizeof title);
    fprintf(out, "\n%s%s%s%s%s, %d thread%s: %s\n%s", em,
            t->kernel ? t->kernel : "all kernels", em, shape, type, t->threads,
            t->threads == 1 ? "" : "s", title, fmt == GB_FMT_MD ? "\n" : "");
    choose_summaries(&l);
    ncols = t->ncols + l.nsum;
    return write_grid(out, &l, fmt, ncols);
}

static void metric_title(gb_report_metric m, gb_dtype t, char *buf, size_t len)
{
    if (m == GB_METRIC_GFLOPS && gb_dtype_is_integer(t))
        snprintf(buf, len, "GOP/s at the median (higher is better)");
    else if (m == GB_METRIC_PEAK && t != GB_DTYPE_F32)
        snprintf(buf, len, "%% of the machine's %s peak at the median (higher is better)",
                 gb_dtype_name(t));
    else
        snprintf(buf, len, "%s", metric_text[m].title);
}

/* ---- the report ------------------------------------------------------------------ */

/* Whether a cell of r's tables beat its roof. */
static int roof_low(const gb_report *r)
{
    for (int i = 0; i < r->ntables; i++)
        for (int j = 0; j < r->tables[i].nrows; j++)
            for (int c = 0; c < r->tables[i].ncols; c++)
                if (gb_roof_measured_low(r->tables[i].rows[j].cells[c].value))
                    return 1;
    return 0;
}

/* Notes that only apply to some files come last, after the tables. */
static void write_notes(FILE *out, const gb_report *r, gb_format fmt)
{
    if (fmt != GB_FMT_CSV && r->failed)
        fprintf(out, "\n! = failed verification: the time of a wrong result\n");
    if (fmt != GB_FMT_CSV && r->metric == GB_METRIC_ROOF && roof_low(r))
        fprintf(out, "\n!roof = the entry beat its roof (%%roof above %.0f): the roof's "
                     "bandwidth was measured low (a busy machine)\n", GB_ROOF_PCT_LOW);
    if (r->duplicates)
        fprintf(out, "\n%s%d entr%s repeat%s a cell already shown: the first in the file is "
                     "used\n", fmt == GB_FMT_CSV ? "# " : "", r->duplicates,
                r->duplicates == 1 ? "y" : "ies", r->duplicates == 1 ? "s" : "");
}

int gb_report_render(FILE *out, const gb_report *r, gb_format fmt)
{
    facts x;
    int rc = 0;

    gather_facts(r, &x);
    if (fmt == GB_FMT_CSV)
        write_header_csv(out, r, &x);
    else
        write_header_text(out, r, &x, fmt);
    for (int i = 0; i < r->ntables && rc == 0; i++) {
        if (fmt == GB_FMT_CSV)
            write_table_csv(out, r, &r->tables[i]);
        else
            rc = write_table_text(out, r, &r->tables[i], fmt);
    }
    if (rc == 0)
        write_notes(out, r, fmt);
    return rc;
}

int gb_report_write(FILE *out, const gb_result_file *f, const gb_report_opts *o, char *err,
                    size_t errlen)
{
    gb_report r;
    int rc = gb_report_build(f, o, &r, err, errlen);

    if (rc != 0)
        return rc;
    rc = gb_report_render(out, &r, o->format);
    if (rc != 0)
        snprintf(err, errlen, "out of memory");
    gb_report_free(&r);
    return rc;
}
