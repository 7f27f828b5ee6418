/*
 * report.c - `gemmbench report FILE.json` (SPEC §9): the study's pivot tables
 * from any result file.  One table per kernel and thread count: rows are the
 * variants in the variant table's order (variants this build does not know
 * follow, in file order; labelled entries such as rule_based[tk=16] or
 * packed+prepack are rows of their own), columns are the shapes measured, and
 * the last columns are geometric means over the row.
 *
 * The CSV form is what scripts/plot.sh draws, so every figure shows exactly
 * the numbers these tables print.
 */
#define _GNU_SOURCE
#include "report.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "gemmbench.h"
#include "parse.h"

/* ---- values --------------------------------------------------------------- */

/* The baseline every speed-up divides by: the variant as written, without
 * parameters or pre-packing. */
static int is_plain_baseline(const gb_entry *e)
{
    return strcmp(e->variant, "baseline") == 0 && strcmp(e->label, "baseline") == 0;
}

static int same_measurement_point(const gb_entry *a, const gb_entry *b)
{
    return a->M == b->M && a->K == b->K && a->N == b->N && a->threads == b->threads &&
           strcmp(a->kernel, b->kernel) == 0;
}

double gb_report_speedup(const gb_result_file *f, const gb_entry *e)
{
    if (!(e->median_us > 0.0))
        return NAN;
    for (int i = 0; i < f->nentries; i++) {
        const gb_entry *b = &f->entries[i];
        if (is_plain_baseline(b) && same_measurement_point(b, e) && b->median_us > 0.0)
            return b->median_us / e->median_us;
    }
    /* A file filtered after the run may have lost its baseline entries; the
     * speed-up the run computed from them is still right. */
    return e->speedup;
}

/* The peak that belongs to a thread count: the run measured it for its own
 * thread count and for one thread (SPEC §6). */
static double peak_for_threads(const gb_result_file *f, int threads)
{
    const cJSON *run_threads = cJSON_GetObjectItemCaseSensitive(f->run, "threads");
    const cJSON *peak_1t = cJSON_GetObjectItemCaseSensitive(f->machine, "peak_gflops_1thread");

    if (f->peak_gflops > 0.0 &&
        (!cJSON_IsNumber(run_threads) || run_threads->valuedouble == threads))
        return f->peak_gflops;
    if (threads == 1 && cJSON_IsNumber(peak_1t) && peak_1t->valuedouble > 0.0)
        return peak_1t->valuedouble;
    return 0.0;
}

double gb_report_peak_pct(const gb_result_file *f, const gb_entry *e)
{
    double peak = peak_for_threads(f, e->threads);
    return peak > 0.0 ? 100.0 * e->gflops / peak : e->peak_pct;
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
    }
    return NAN;
}

static const struct {
    const char *name;        /* --metric */
    const char *csv_name;    /* the CSV's `# metric:` line */
    const char *title;       /* what a table of it shows */
} metric_info[] = {
    [GB_METRIC_MEDIAN] = { "median", "median_us", "median latency, µs (lower is better)" },
    [GB_METRIC_MIN] = { "min", "min_us", "minimum latency, µs (lower is better)" },
    [GB_METRIC_GFLOPS] = { "gflops", "gflops", "GFLOP/s at the median (higher is better)" },
    [GB_METRIC_SPEEDUP] = { "speedup", "speedup",
                            "speed-up over baseline: its median / this median (higher is "
                            "better)" },
    [GB_METRIC_PEAK] = { "peak", "peak_pct",
                         "% of the machine's FP32 peak at the median (higher is better)" },
};

int gb_report_metric_parse(const char *name, gb_report_metric *m)
{
    for (size_t i = 0; i < sizeof metric_info / sizeof metric_info[0]; i++) {
        if (strcmp(name, metric_info[i].name) == 0) {
            *m = (gb_report_metric)i;
            return 0;
        }
    }
    return -1;
}

/* ---- selection ------------------------------------------------------------ */

enum { SELECT_KERNEL, SELECT_VARIANT };

static int entry_matches(const gb_entry *e, const char *item, int kind)
{
    if (strcmp(item, "all") == 0)
        return 1;
    if (kind == SELECT_KERNEL)
        return strcmp(e->kernel, item) == 0;
    return strcmp(e->variant, item) == 0 || strcmp(e->label, item) == 0 ||
           strcmp(e->family, item) == 0;
}

struct match_arg {
    const gb_entry *entry;
    int kind, found;
};

static int match_item(const char *item, void *arg)
{
    struct match_arg *m = arg;
    m->found = entry_matches(m->entry, item, m->kind);
    return m->found;  /* non-zero stops at the first match */
}

static int entry_selected(const gb_entry *e, const char *const *lists, int nlists, int kind)
{
    struct match_arg m = { e, kind, 0 };

    if (nlists == 0)
        return 1;
    for (int i = 0; i < nlists && !m.found; i++)
        gb_split_list(lists[i], match_item, &m);
    return m.found;
}

struct check_arg {
    const gb_result_file *f;
    int kind, items;
    char *err;
    size_t errlen;
};

/* Every name the user gave must be in the file: a typo is an error, not an
 * empty table. */
static int check_item(const char *item, void *arg)
{
    struct check_arg *c = arg;

    c->items++;
    for (int i = 0; i < c->f->nentries; i++)
        if (entry_matches(&c->f->entries[i], item, c->kind))
            return 0;
    snprintf(c->err, c->errlen, "%s has no entries for %s '%s'", c->f->path,
             c->kind == SELECT_KERNEL ? "kernel" : "variant", item);
    return -1;
}

static int check_lists(const gb_result_file *f, const char *const *lists, int nlists, int kind,
                       char *err, size_t errlen)
{
    const char *flag = kind == SELECT_KERNEL ? "--kernel" : "--variant";

    for (int i = 0; i < nlists; i++) {
        struct check_arg c = { f, kind, 0, err, errlen };
        err[0] = '\0';
        if (gb_split_list(lists[i], check_item, &c) != 0) {
            if (err[0] == '\0')
                snprintf(err, errlen, "%s: an item of '%s' is too long", flag, lists[i]);
            return -1;
        }
        if (c.items == 0) {
            snprintf(err, errlen, "%s: '%s' names nothing", flag, lists[i]);
            return -1;
        }
    }
    return 0;
}

/* ---- the tables ------------------------------------------------------------- */

typedef struct report_row {
    const char *label;
    long major, minor;       /* sort key: see order_rows */
} report_row;

typedef struct report_col {
    const char *kernel;
    int M, K, N;
    long kernel_rank;        /* kernels in the order the file first has them */
} report_col;

typedef struct report {
    const gb_result_file *f;
    const gb_report_opts *o;
    const gb_entry **sel;    /* the selected entries, in file order */
    int nsel;
    report_row *rows;        /* every selected label, in display order */
    int nrows;
    int duplicates;          /* entries for a cell already filled (first kept) */
    int failed_shown;        /* a shown cell failed verification */
} report;

typedef struct report_table {
    const char *kernel;      /* NULL: every kernel (--combined) */
    int threads;
    report_col *cols;
    int ncols;
    const gb_entry **cells;  /* [row][col] over r->rows; NULL = not measured */
    double *row_values;      /* ncols: one row's values, for its geometric means */
} report_table;

static long table_index(const char *variant)
{
    for (size_t i = 0; i < gb_variant_count; i++)
        if (strcmp(gb_variants[i]->name, variant) == 0)
            return (long)i;
    return -1;
}

static long first_selected(const report *r, const char *variant, const char *kernel)
{
    for (int i = 0; i < r->nsel; i++)
        if ((variant && strcmp(r->sel[i]->variant, variant) == 0) ||
            (kernel && strcmp(r->sel[i]->kernel, kernel) == 0))
            return i;
    return -1;
}

static int compare_rows(const void *a, const void *b)
{
    const report_row *x = a, *y = b;
    if (x->major != y->major)
        return x->major < y->major ? -1 : 1;
    return (x->minor > y->minor) - (x->minor < y->minor);
}

static int find_row(const report *r, const char *label)
{
    for (int i = 0; i < r->nrows; i++)
        if (strcmp(r->rows[i].label, label) == 0)
            return i;
    return -1;
}

/* Rows in the variant table's order, so tables read like the study's:
 * major = position in gb_variants[], or after the table in the file's order
 * for variants this build does not have; within a variant the plain entry
 * first, then its labelled ones (parameters, +prepack) in file order. */
static int order_rows(report *r)
{
    r->rows = calloc((size_t)r->nsel, sizeof *r->rows);
    if (r->rows == NULL)
        return -1;
    for (int i = 0; i < r->nsel; i++) {
        const gb_entry *e = r->sel[i];
        long known = table_index(e->variant);
        report_row *row;

        if (find_row(r, e->label) >= 0)
            continue;
        row = &r->rows[r->nrows++];
        row->label = e->label;
        row->major = known >= 0 ? known
                                : (long)gb_variant_count + first_selected(r, e->variant, NULL);
        row->minor = strcmp(e->label, e->variant) == 0 ? -1 : i;
    }
    qsort(r->rows, (size_t)r->nrows, sizeof *r->rows, compare_rows);
    return 0;
}

static int compare_cols(const void *a, const void *b)
{
    const report_col *x = a, *y = b;
    if (x->kernel_rank != y->kernel_rank)
        return x->kernel_rank < y->kernel_rank ? -1 : 1;
    if (x->M != y->M)
        return x->M < y->M ? -1 : 1;
    if (x->K != y->K)
        return x->K < y->K ? -1 : 1;
    return (x->N > y->N) - (x->N < y->N);
}

static int in_table(const report_table *t, const gb_entry *e)
{
    return e->threads == t->threads && (t->kernel == NULL || strcmp(e->kernel, t->kernel) == 0);
}

static int find_col(const report_table *t, const gb_entry *e)
{
    for (int c = 0; c < t->ncols; c++) {
        const report_col *col = &t->cols[c];
        if (col->M == e->M && col->K == e->K && col->N == e->N &&
            strcmp(col->kernel, e->kernel) == 0)
            return c;
    }
    return -1;
}

static void table_free(report_table *t)
{
    free(t->cols);
    free(t->cells);
    free(t->row_values);
    t->cols = NULL;
    t->cells = NULL;
    t->row_values = NULL;
}

/* Columns are the distinct shapes of the table's entries, kernels in file
 * order and then ascending M; cells keep the first entry of each. */
static int table_build(report *r, report_table *t)
{
    t->ncols = 0;
    t->cols = calloc((size_t)r->nsel, sizeof *t->cols);
    if (t->cols == NULL)
        return -1;
    for (int i = 0; i < r->nsel; i++) {
        const gb_entry *e = r->sel[i];
        report_col *col;
        if (!in_table(t, e) || find_col(t, e) >= 0)
            continue;
        col = &t->cols[t->ncols++];
        col->kernel = e->kernel;
        col->M = e->M;
        col->K = e->K;
        col->N = e->N;
        col->kernel_rank = first_selected(r, NULL, e->kernel);
    }
    qsort(t->cols, (size_t)t->ncols, sizeof *t->cols, compare_cols);
    t->cells = calloc((size_t)r->nrows * (size_t)t->ncols, sizeof *t->cells);
    t->row_values = calloc((size_t)t->ncols, sizeof *t->row_values);
    if (t->cells == NULL || t->row_values == NULL)
        return -1;
    for (int i = 0; i < r->nsel; i++) {
        const gb_entry *e = r->sel[i];
        const gb_entry **cell;
        if (!in_table(t, e))
            continue;
        cell = &t->cells[(size_t)find_row(r, e->label) * (size_t)t->ncols + (size_t)find_col(t, e)];
        if (*cell)
            r->duplicates++;
        else
            *cell = e;
    }
    return 0;
}

static const gb_entry *cell_at(const report_table *t, int row, int col)
{
    return t->cells[(size_t)row * (size_t)t->ncols + (size_t)col];
}

static int row_shown(const report_table *t, int row)
{
    for (int c = 0; c < t->ncols; c++)
        if (cell_at(t, row, c))
            return 1;
    return 0;
}

/* 1 when every column of kernel in t has the same K and N: then M alone
 * names a column (always so for the built-in kernels). */
static int kernel_uniform(const report_table *t, const char *kernel, int *K, int *N)
{
    int found = 0;
    for (int c = 0; c < t->ncols; c++) {
        const report_col *col = &t->cols[c];
        if (strcmp(col->kernel, kernel) != 0)
            continue;
        if (found && (col->K != *K || col->N != *N))
            return 0;
        *K = col->K;
        *N = col->N;
        found = 1;
    }
    return found;
}

static void col_label(const report_table *t, int c, char *buf, size_t len)
{
    const report_col *col = &t->cols[c];
    int K, N, uniform = kernel_uniform(t, col->kernel, &K, &N);

    if (t->kernel && uniform)
        snprintf(buf, len, "%d", col->M);
    else if (t->kernel)
        snprintf(buf, len, "%dx%dx%d", col->M, col->K, col->N);
    else if (uniform)
        snprintf(buf, len, "%s/%d", col->kernel, col->M);
    else
        snprintf(buf, len, "%s/%dx%dx%d", col->kernel, col->M, col->K, col->N);
}

/* ---- writing ---------------------------------------------------------------- */

/* Summary columns after the shapes: the metric's geometric mean, and the
 * speed-up and percent of peak that the other metrics imply. */
enum { SUM_GEOMEAN, SUM_SPEEDUP, SUM_PEAK, SUM_COUNT };

static const char *const summary_csv_name[SUM_COUNT] = { "geomean", "geomean_speedup",
                                                          "geomean_peak_pct" };
static const char *const summary_title[SUM_COUNT] = { "geomean", "speedup", "%peak" };

static gb_report_metric summary_metric(const gb_report_opts *o, int s)
{
    return s == SUM_GEOMEAN ? o->metric : s == SUM_SPEEDUP ? GB_METRIC_SPEEDUP : GB_METRIC_PEAK;
}

/* The geometric mean of summary s over a row; *used = cells it covers. */
static double row_summary(const report *r, const report_table *t, int row, int s, int *used)
{
    for (int c = 0; c < t->ncols; c++) {
        const gb_entry *e = cell_at(t, row, c);
        t->row_values[c] = e ? gb_report_value(r->f, e, summary_metric(r->o, s)) : NAN;
    }
    return gb_geomean(t->row_values, t->ncols, used);
}

static void format_value(char *buf, size_t len, double v, gb_report_metric m)
{
    if (!isfinite(v))
        snprintf(buf, len, "-");
    else if (m == GB_METRIC_GFLOPS || m == GB_METRIC_SPEEDUP)
        snprintf(buf, len, "%.2f", v);
    else
        snprintf(buf, len, "%.1f", v);
}

static const char *json_text(const cJSON *obj, const char *key, const char *fallback)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : fallback;
}

/* The distinct thread counts of the selection, ascending. */
static int thread_counts(const report *r, int *out)
{
    int n = 0;
    for (int i = 0; i < r->nsel; i++) {
        int t = r->sel[i]->threads, at = n;
        for (int j = 0; j < n; j++)
            if (out[j] >= t) {
                at = j;
                break;
            }
        if (at < n && out[at] == t)
            continue;
        memmove(out + at + 1, out + at, (size_t)(n - at) * sizeof *out);
        out[at] = t;
        n++;
    }
    return n;
}

static void write_header(FILE *out, const report *r, const int *threads, int nthreads)
{
    const gb_result_file *f = r->f;
    const char *cpu = json_text(f->machine, "cpu_model", "unknown CPU");
    const char *host = json_text(f->machine, "hostname", "unknown host");
    const char *started = json_text(f->run, "started", "unknown date");
    char thread_list[256] = "";
    size_t used = 0;

    for (int i = 0; i < nthreads && used < sizeof thread_list; i++)
        used += (size_t)snprintf(thread_list + used, sizeof thread_list - used, "%s%d",
                                 i ? ", " : "", threads[i]);
    if (r->o->format == GB_FMT_CSV) {
        /* Comment lines: gnuplot skips them, pandas with comment='#'. */
        fprintf(out, "# file: %s\n# machine: %s (%s)\n# started: %s\n# threads: %s\n",
                f->path, cpu, host, started, thread_list);
        fprintf(out, "# complete: %s\n# metric: %s\n", f->complete ? "yes" : "no",
                metric_info[r->o->metric].csv_name);
        if (f->peak_gflops > 0.0)
            fprintf(out, "# peak_gflops: %.2f\n", f->peak_gflops);
        fprintf(out, "# empty cell: not measured; geomeans over the cells present\n");
        return;
    }
    const char *bullet = r->o->format == GB_FMT_MD ? "- " : "";
    if (r->o->format == GB_FMT_MD)
        fprintf(out, "gemmbench report of `%s`\n\n", f->path);
    else
        fprintf(out, "gemmbench report of %s\n", f->path);
    fprintf(out, "%smachine: %s (host %s), peak ", bullet, cpu, host);
    if (f->peak_gflops > 0.0)
        fprintf(out, "%.1f GFLOP/s\n", f->peak_gflops);
    else
        fprintf(out, "not measured (no %% of peak)\n");
    fprintf(out, "%srun: started %s; threads %s; %s\n", bullet, started, thread_list,
            f->complete ? "complete" : "INCOMPLETE (interrupted: cells may be missing)");
    fprintf(out, "%scells: %s; '-' = not measured\n", bullet, metric_info[r->o->metric].title);
    fprintf(out, "%sgeomean: over the cells present in the row; * = fewer than all columns\n",
            bullet);
}

static void write_csv_field(FILE *out, const char *text)
{
    if (strpbrk(text, ",\"\n") == NULL) {
        fputs(text, out);
        return;
    }
    fputc('"', out);
    for (const char *p = text; *p; p++) {
        if (*p == '"')
            fputc('"', out);
        fputc(*p, out);
    }
    fputc('"', out);
}

static void write_table_csv(FILE *out, const report *r, const report_table *t)
{
    char label[128];
    int K, N;

    fprintf(out, "\n# table: kernel=%s threads=%d", t->kernel ? t->kernel : "all", t->threads);
    if (t->kernel && kernel_uniform(t, t->kernel, &K, &N))
        fprintf(out, " K=%d N=%d", K, N);
    fprintf(out, "\nkernel,threads,variant");
    for (int c = 0; c < t->ncols; c++) {
        col_label(t, c, label, sizeof label);
        fputc(',', out);
        write_csv_field(out, label);
    }
    for (int s = 0; s < SUM_COUNT; s++)
        fprintf(out, ",%s", summary_csv_name[s]);
    fputc('\n', out);
    for (int row = 0; row < r->nrows; row++) {
        if (!row_shown(t, row))
            continue;
        write_csv_field(out, t->kernel ? t->kernel : "all");
        fprintf(out, ",%d,", t->threads);
        write_csv_field(out, r->rows[row].label);
        for (int c = 0; c < t->ncols; c++) {
            const gb_entry *e = cell_at(t, row, c);
            double v = e ? gb_report_value(r->f, e, r->o->metric) : NAN;
            fputc(',', out);
            if (isfinite(v))
                fprintf(out, "%.10g", v);
        }
        for (int s = 0; s < SUM_COUNT; s++) {
            int used;
            double g = row_summary(r, t, row, s, &used);
            fputc(',', out);
            if (isfinite(g))
                fprintf(out, "%.10g", g);
        }
        fputc('\n', out);
    }
}

/* Table and Markdown: every cell formatted first, so columns can be aligned. */
#define CELL_LEN 160

typedef struct grid {
    int nrows, ncols;
    char *text;              /* nrows x ncols cells of CELL_LEN */
} grid;

static char *grid_cell(grid *g, int row, int col)
{
    return g->text + ((size_t)row * (size_t)g->ncols + (size_t)col) * CELL_LEN;
}

/* Which summary columns a text table shows: not the metric's own twice, and
 * none that would be all '-'. */
static int summary_shown(const report *r, const report_table *t, int s)
{
    if (s == SUM_GEOMEAN)
        return 1;
    if (summary_metric(r->o, s) == r->o->metric)
        return 0;
    for (int row = 0; row < r->nrows; row++) {
        int used;
        if (row_shown(t, row) && isfinite(row_summary(r, t, row, s, &used)))
            return 1;
    }
    return 0;
}

static int grid_fill(report *r, const report_table *t, grid *g)
{
    int shown[SUM_COUNT], nshown = 0, rows = 1, row_out = 1;

    for (int s = 0; s < SUM_COUNT; s++)
        nshown += shown[s] = summary_shown(r, t, s);
    for (int row = 0; row < r->nrows; row++)
        rows += row_shown(t, row);
    g->nrows = rows;
    g->ncols = 1 + t->ncols + nshown;
    g->text = calloc((size_t)g->nrows * (size_t)g->ncols, CELL_LEN);
    if (g->text == NULL)
        return -1;

    /* Pivot notation: rows \ columns. */
    snprintf(grid_cell(g, 0, 0), CELL_LEN, "variant \\ %s", t->kernel ? "M" : "kernel/M");
    for (int c = 0; c < t->ncols; c++)
        col_label(t, c, grid_cell(g, 0, 1 + c), CELL_LEN);
    for (int s = 0, at = 1 + t->ncols; s < SUM_COUNT; s++)
        if (shown[s])
            snprintf(grid_cell(g, 0, at++), CELL_LEN, "%s", summary_title[s]);

    for (int row = 0; row < r->nrows; row++) {
        int at = 1 + t->ncols;
        if (!row_shown(t, row))
            continue;
        snprintf(grid_cell(g, row_out, 0), CELL_LEN, "%s", r->rows[row].label);
        for (int c = 0; c < t->ncols; c++) {
            const gb_entry *e = cell_at(t, row, c);
            char *cell = grid_cell(g, row_out, 1 + c);
            format_value(cell, CELL_LEN, e ? gb_report_value(r->f, e, r->o->metric) : NAN,
                         r->o->metric);
            /* A wrong result's timing is shown, but marked. */
            if (e && strcmp(e->check, "fail") == 0) {
                strcat(cell, "!");
                r->failed_shown = 1;
            }
        }
        for (int s = 0; s < SUM_COUNT; s++) {
            int used;
            double v;
            char *cell;
            if (!shown[s])
                continue;
            cell = grid_cell(g, row_out, at++);
            v = row_summary(r, t, row, s, &used);
            format_value(cell, CELL_LEN, v, summary_metric(r->o, s));
            /* Marked when it covers fewer cells; the space keeps digits aligned. */
            strcat(cell, isfinite(v) && used < t->ncols ? "*" : " ");
        }
        row_out++;
    }
    return 0;
}

static void write_grid(FILE *out, grid *g, gb_format format)
{
    int *width = calloc((size_t)g->ncols, sizeof *width);

    if (width == NULL)
        return;
    for (int row = 0; row < g->nrows; row++)
        for (int c = 0; c < g->ncols; c++) {
            int w = (int)strlen(grid_cell(g, row, c));
            if (w > width[c])
                width[c] = w;
        }
    for (int row = 0; row < g->nrows; row++) {
        for (int c = 0; c < g->ncols; c++) {
            const char *cell = grid_cell(g, row, c);
            if (format == GB_FMT_MD)
                fprintf(out, c == 0 ? "| %-*s |" : " %*s |", width[c], cell);
            else
                fprintf(out, c == 0 ? "%-*s" : "  %*s", width[c], cell);
        }
        fputc('\n', out);
        if (format == GB_FMT_MD && row == 0) {
            fputs("|---|", out);
            for (int c = 1; c < g->ncols; c++)
                fputs("--:|", out);
            fputc('\n', out);
        }
    }
    free(width);
}

static int write_table_text(FILE *out, report *r, const report_table *t)
{
    grid g = { 0, 0, NULL };
    int K, N;
    char shape[64] = "";

    if (t->kernel && kernel_uniform(t, t->kernel, &K, &N))
        snprintf(shape, sizeof shape, " (K=%d, N=%d)", K, N);
    if (grid_fill(r, t, &g) != 0)
        return -1;
    if (r->o->format == GB_FMT_MD)
        fprintf(out, "\n**%s**%s, %d thread%s: %s\n\n", t->kernel ? t->kernel : "all kernels",
                shape, t->threads, t->threads == 1 ? "" : "s", metric_info[r->o->metric].title);
    else
        fprintf(out, "\n%s%s, %d thread%s: %s\n", t->kernel ? t->kernel : "all kernels", shape,
                t->threads, t->threads == 1 ? "" : "s", metric_info[r->o->metric].title);
    write_grid(out, &g, r->o->format);
    free(g.text);
    return 0;
}

static int write_table(FILE *out, report *r, report_table *t)
{
    int rc = table_build(r, t);
    if (rc == 0) {
        if (r->o->format == GB_FMT_CSV)
            write_table_csv(out, r, t);
        else
            rc = write_table_text(out, r, t);
    }
    table_free(t);
    return rc;
}

static int table_has_entries(const report *r, const report_table *t)
{
    for (int i = 0; i < r->nsel; i++)
        if (in_table(t, r->sel[i]))
            return 1;
    return 0;
}

static int write_tables(FILE *out, report *r, const int *threads, int nthreads)
{
    if (r->o->combined) {
        for (int i = 0; i < nthreads; i++) {
            report_table t = { NULL, threads[i], NULL, 0, NULL, NULL };
            if (write_table(out, r, &t) != 0)
                return -1;
        }
        return 0;
    }
    /* Kernels in the order the file first has them, thread counts ascending. */
    for (int i = 0; i < r->nsel; i++) {
        const char *kernel = r->sel[i]->kernel;
        if (first_selected(r, NULL, kernel) != i)
            continue;
        for (int j = 0; j < nthreads; j++) {
            report_table t = { kernel, threads[j], NULL, 0, NULL, NULL };
            if (table_has_entries(r, &t) && write_table(out, r, &t) != 0)
                return -1;
        }
    }
    return 0;
}

int gb_report_write(FILE *out, const gb_result_file *f, const gb_report_opts *o, char *err,
                    size_t errlen)
{
    report r = { f, o, NULL, 0, NULL, 0, 0, 0 };
    int *threads = NULL, nthreads, status = -1;

    if (check_lists(f, o->kernels, o->nkernels, SELECT_KERNEL, err, errlen) != 0 ||
        check_lists(f, o->variants, o->nvariants, SELECT_VARIANT, err, errlen) != 0)
        return -1;
    r.sel = calloc((size_t)f->nentries, sizeof *r.sel);
    threads = calloc((size_t)f->nentries, sizeof *threads);
    if (r.sel == NULL || threads == NULL) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    for (int i = 0; i < f->nentries; i++) {
        const gb_entry *e = &f->entries[i];
        if (entry_selected(e, o->kernels, o->nkernels, SELECT_KERNEL) &&
            entry_selected(e, o->variants, o->nvariants, SELECT_VARIANT))
            r.sel[r.nsel++] = e;
    }
    if (r.nsel == 0) {
        snprintf(err, errlen, "%s: no entries match both --kernel and --variant", f->path);
        goto out;
    }
    if (order_rows(&r) != 0) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    nthreads = thread_counts(&r, threads);
    write_header(out, &r, threads, nthreads);
    if (write_tables(out, &r, threads, nthreads) != 0) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    /* Notes that only apply to some files come last, after the tables. */
    if (o->format != GB_FMT_CSV && r.failed_shown)
        fprintf(out, "\n! = failed verification: the time of a wrong result\n");
    if (r.duplicates)
        fprintf(out, "\n%s%d entr%s repeat%s a cell already shown: the first in the file is "
                     "used\n", o->format == GB_FMT_CSV ? "# " : "", r.duplicates,
                r.duplicates == 1 ? "y" : "ies", r.duplicates == 1 ? "s" : "");
    status = 0;
out:
    free(r.sel);
    free(r.rows);
    free(threads);
    return status;
}

/* ---- the subcommand ----------------------------------------------------------- */

static const char report_usage[] =
    "usage: gemmbench report FILE.json [options]\n"
    "  pivot tables of a result file, one per kernel and thread count: variants\n"
    "  (in the variant table's order) by M, then geometric means over each row\n"
    "\n"
    "  --format F      table (default), md or csv (CSV: '#' lines are comments)\n"
    "  -k, --kernel L  only these kernels (comma list, repeatable)\n"
    "  -v, --variant L only these variants: names, families or labels such as\n"
    "                  packed+prepack or 'k8[tk=16]' (comma list, repeatable;\n"
    "                  a comma inside brackets is part of the label)\n"
    "  --metric X      the cells: median (latency, default), min, gflops,\n"
    "                  speedup (over baseline) or peak (% of the machine's peak)\n"
    "  --combined      one table with every kernel's shapes as columns (kernel/M)\n"
    "  -h, --help      this text\n"
    "\n"
    "'-' marks a cell not measured; a geomean marked * covers fewer cells than the\n"
    "table has columns.  Exit status: 0 ok, 2 bad arguments or an unreadable file.\n";

enum { OPT_FORMAT = 256, OPT_METRIC, OPT_COMBINED };

static int report_fail(int code, const char *msg)
{
    fprintf(stderr, "gemmbench: report: %s\n", msg);
    return code;
}

int gb_cmd_report(int argc, char **argv)
{
    static const struct option long_options[] = {
        { "format", required_argument, NULL, OPT_FORMAT },
        { "kernel", required_argument, NULL, 'k' },
        { "variant", required_argument, NULL, 'v' },
        { "metric", required_argument, NULL, OPT_METRIC },
        { "combined", no_argument, NULL, OPT_COMBINED },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    gb_report_opts o = { GB_FMT_TABLE, GB_METRIC_MEDIAN, NULL, 0, NULL, 0, 0 };
    const char **kernels = NULL, **variants = NULL;
    gb_result_file f;
    char err[GB_ERR_LEN + 4200];
    int c, status = GB_EXIT_USAGE, loaded = 0;

    /* argv[0] is "gemmbench", argv[1] "report": options start after it. */
    argc--;
    argv++;
    kernels = calloc((size_t)argc, sizeof *kernels);
    variants = calloc((size_t)argc, sizeof *variants);
    if (kernels == NULL || variants == NULL) {
        status = report_fail(GB_EXIT_IO, "out of memory");
        goto out;
    }
    opterr = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":k:v:h", long_options, NULL)) != -1) {
        switch (c) {
        case OPT_FORMAT:
            if (strcmp(optarg, "table") == 0)
                o.format = GB_FMT_TABLE;
            else if (strcmp(optarg, "md") == 0)
                o.format = GB_FMT_MD;
            else if (strcmp(optarg, "csv") == 0)
                o.format = GB_FMT_CSV;
            else {
                snprintf(err, sizeof err, "--format: '%s' is not table, md or csv", optarg);
                goto usage;
            }
            break;
        case 'k':
            kernels[o.nkernels++] = optarg;
            break;
        case 'v':
            variants[o.nvariants++] = optarg;
            break;
        case OPT_METRIC:
            if (gb_report_metric_parse(optarg, &o.metric) != 0) {
                snprintf(err, sizeof err,
                         "--metric: '%s' is not median, min, gflops, speedup or peak", optarg);
                goto usage;
            }
            break;
        case OPT_COMBINED:
            o.combined = 1;
            break;
        case 'h':
            fputs(report_usage, stdout);
            status = GB_EXIT_OK;
            goto out;
        case ':':
            snprintf(err, sizeof err, "option %s needs a value", argv[optind - 1]);
            goto usage;
        default:
            if (optopt && optopt < 256)
                snprintf(err, sizeof err, "unknown option -%c (see gemmbench report --help)",
                         optopt);
            else
                snprintf(err, sizeof err,
                         "unknown option %s (see gemmbench report --help)", argv[optind - 1]);
            goto usage;
        }
    }
    if (optind == argc) {
        snprintf(err, sizeof err, "no result file given (see gemmbench report --help)");
        goto usage;
    }
    if (optind < argc - 1) {
        snprintf(err, sizeof err, "one result file only, got '%s' too", argv[optind + 1]);
        goto usage;
    }
    o.kernels = kernels;
    o.variants = variants;
    if (gb_result_file_load(argv[optind], &f, err, sizeof err) != 0) {
        status = report_fail(GB_EXIT_USAGE, err);
        goto out;
    }
    loaded = 1;
    if (gb_report_write(stdout, &f, &o, err, sizeof err) != 0) {
        status = report_fail(GB_EXIT_USAGE, err);
        goto out;
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        status = report_fail(GB_EXIT_IO, "cannot write the report to stdout");
        goto out;
    }
    status = GB_EXIT_OK;
    goto out;
usage:
    status = report_fail(GB_EXIT_USAGE, err);
out:
    if (loaded)
        gb_result_file_free(&f);
    free(kernels);
    free(variants);
    return status;
}
