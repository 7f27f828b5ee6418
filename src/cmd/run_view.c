/* run_view.c - the run's progress line and rows; see run_view.h. */
#include "run_view.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "command.h"
#include "harness.h"
#include "output.h"
#include "roof.h"

/* The run's table: CSV has the family, threads and reps too. */
const gb_column gb_run_columns[GB_RUN_NCOLS] = {
    { "variant", NULL, "variant", 34, 0 },
    { NULL, NULL, "family", 0, 0 },
    { "kernel", NULL, "kernel", 11, 0 },
    { "M", NULL, "M", 5, 1 },
    { "K", NULL, "K", 5, 1 },
    { "N", NULL, "N", 5, 1 },
    { NULL, NULL, "dtype", 0, 0 },
    { NULL, NULL, "threads", 0, 1 },
    { NULL, NULL, "reps", 0, 1 },
    { "median_us", "median µs", "median_us", 12, 1 },
    { "min_us", "min µs", "min_us", 12, 1 },
    { "GFLOP/s", NULL, "gflops", 8, 1 },
    { "%peak", "% peak", "peak_pct", 6, 1 },
    /* The roofline (src/measure/bandwidth.md): percent of the roof that applies;
     * CSV also names that roof and the cache mode. */
    { "%roof", "% roof", "roof_pct", 6, 1 },
    { NULL, NULL, "roof", 0, 0 },
    { NULL, NULL, "cache", 0, 0 },
    { "speedup", "speed-up", "speedup", 8, 1 },
    { "cv%", "CV %", "cv", 6, 1 },
    { "check", NULL, "check", 5, 1 },
};
/* ---- the rows ------------------------------------------------------------- */


static void format_optional(char *buf, size_t len, double v, const char *fmt)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, fmt, v);
}

/* One result as the table's cells: CSV keeps more digits. */
static void print_result_row(FILE *out, const gb_table *t, const gb_result *r)
{
    const int csv = t->fmt == GB_FMT_CSV, text = t->fmt == GB_FMT_TABLE;
    char v[GB_RUN_NCOLS][64];
    const char *cells[GB_RUN_NCOLS];

    snprintf(v[0], 64, "%s", r->label);
    snprintf(v[1], 64, "%s", r->variant->family);
    snprintf(v[2], 64, "%s", r->shape.kernel);
    snprintf(v[3], 64, "%d", r->shape.M);
    snprintf(v[4], 64, "%d", r->shape.K);
    snprintf(v[5], 64, "%d", r->shape.N);
    snprintf(v[6], 64, "%s", gb_dtype_name(r->dtype));
    snprintf(v[7], 64, "%d", r->threads);
    snprintf(v[8], 64, "%d", r->reps);
    snprintf(v[9], 64, csv ? "%.3f" : "%.1f", r->stats.median);
    snprintf(v[10], 64, csv ? "%.3f" : "%.1f", r->stats.min);
    snprintf(v[11], 64, csv ? "%.3f" : "%.2f", r->gflops);
    format_optional(v[12], 64, r->peak_pct, csv ? "%.2f" : "%.1f");
    /* A roof the entry beat was measured low: no figure (run_cmd says why). */
    if (!csv && gb_roof_measured_low(r->roof_pct))
        snprintf(v[13], 64, "!roof");
    else
        format_optional(v[13], 64, r->roof_pct, csv ? "%.2f" : "%.1f");
    snprintf(v[14], 64, "%s", isnan(r->attainable_gflops) ? "" : gb_roof_bound_name(r->roof_bound));
    snprintf(v[15], 64, "%s", r->cold ? "cold" : "warm");
    format_optional(v[16], 64, r->speedup, csv ? "%.4f" : "%.2fx");
    snprintf(v[17], 64, csv ? "%.4f" : "%.1f", csv ? r->stats.cv : 100.0 * r->stats.cv);
    /* The note would push the check word left: pad it to the column first. */
    snprintf(v[18], 64, text ? "%5s%s" : "%s%s", gb_check_word(r),
             text && r->stats.cv > GB_CV_WARN ? "  (high CV)" : "");
    for (int c = 0; c < GB_RUN_NCOLS; c++)
        cells[c] = v[c];
    gb_table_print_row(out, t, cells);
}

/* ---- the progress line and the rows as they come ------------------------------- */


void gb_run_show_starting(void *arg, int done, int total, const gb_variant *v,
                          const gb_shape *s, int round)
{
    run_view *view = arg;
    double elapsed = gb_now() - view->started;

    if (!view->progress)
        return;
    fprintf(stderr, "\r\033[K[%d/%d] %s %s M=%d", done, total, v->name, s->kernel, s->M);
    if (view->o->rounds > 1)
        fprintf(stderr, " (round %d/%d)", round + 1, view->o->rounds);
    fprintf(stderr, "  elapsed %.0fs", elapsed);
    if (done > 0)
        fprintf(stderr, ", ~%.0fs left", elapsed / done * (total - done));
    fflush(stderr);
}

void gb_run_clear_progress(const run_view *view)
{
    if (view->progress)
        fprintf(stderr, "\r\033[K");
}

void gb_run_show_measured(void *arg, const gb_result *r, int last)
{
    run_view *view = arg;
    const gb_options *o = view->o;

    gb_run_clear_progress(view);
    if (!last)
        return;
    if (o->format != GB_FMT_JSON) {
        print_result_row(stdout, &view->table, r);
        view->rows++;
    }
    if (o->format != GB_FMT_TABLE && r->stats.cv > GB_CV_WARN && !o->quiet)
        fprintf(stderr, "gemmbench: warning: %s %s M=%d: CV %.0f%%, the timing is noisy\n",
                r->label, r->shape.kernel, r->shape.M, 100.0 * r->stats.cv);
}

void gb_run_show_failed(void *arg, const char *err, const gb_shape *s)
{
    gb_run_clear_progress(arg);
    gb_fail(GB_EXIT_IO, NULL, "%s (%s M=%d)", err, s->kernel, s->M);
}

/* Interrupted before the last round: the entries measured so far still get
 * their rows, from the rounds they had (the JSON says how many). */
void gb_run_show_unfinished(run_view *view, const gb_runner *r)
{
    int header = 0;

    if (view->o->rounds < 2 || view->o->format == GB_FMT_JSON)
        return;
    for (int i = 0; i < r->nentries; i++) {
        if (!r->entries[i].measured || r->entries[i].final)
            continue;
        if (!header++)
            fprintf(stderr, "gemmbench: interrupted before the last of %d rounds; the "
                            "rows below have fewer (the JSON's \"rounds\" says how many)\n",
                    view->o->rounds);
        print_result_row(stdout, &view->table, &r->entries[i].result);
    }
}

