/*
 * report_multi.c - `report A B C ...`: several result files (machines or
 * builds) side by side (report_multi.h; the method and the column meanings:
 * src/analysis/report_multi.md).
 *
 * It keys entries itself, since no one file's tables hold every row: the
 * union of (label, kernel, M, K, N, type, threads) over the files, each file's
 * cell blank where it has no such entry.
 */
#define _GNU_SOURCE   /* strtok_r, under compilers strict about -std=c11 (clang) */
#include "report_multi.h"
#include "variants.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
#include "parse.h"
#include "gemmbench.h"
#include "report_grid.h"

/* Vendor and marketing words that make a CPU model long without telling two
 * machines apart. */
static int noise_word(const char *w)
{
    static const char *const words[] = { "AMD", "Intel", "Core", "CPU", "Processor", "with",
                                         "Radeon",
                                         "Graphics", "64-Core", "32-Core", "16-Core",
                                         "8-Core", NULL };
    for (int i = 0; words[i]; i++)
        if (strcmp(w, words[i]) == 0)
            return 1;
    return w[0] == '@';
}

void gb_report_machine_label(const gb_result_file *f, char *buf, size_t len)
{
    char model[256] = "", words[256], hostname[64] = "unknown", *save = NULL;
    size_t used = 0;

    snprintf(words, sizeof words, "%s", f->cpu_model ? f->cpu_model : "");
    for (char *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        char *mark;
        /* Xeon(R) is Xeon. */
        while ((mark = strstr(w, "(R)")) != NULL || (mark = strstr(w, "(TM)")) != NULL)
            memmove(mark, mark + (mark[1] == 'R' ? 3 : 4), strlen(mark + (mark[1] == 'R' ? 3 : 4)) + 1);
        if (w[0] == '\0' || noise_word(w))
            continue;
        /* "@ 2.10GHz": the clock and what follows it go. */
        if (strchr(w, '@'))
            break;
        used += (size_t)snprintf(model + used, sizeof model - used, "%s%s", used ? " " : "", w);
        if (used >= sizeof model)
            break;
    }
    if (f->hostname && f->hostname[0]) {
        snprintf(hostname, sizeof hostname, "%s", f->hostname);
        hostname[strcspn(hostname, ".")] = '\0';
    }
    snprintf(buf, len, "%s@%s", model[0] ? model : "unknown", hostname);
}

/* One row of the side-by-side table: a measurement point. */
typedef struct mkey {
    const gb_entry *e;       /* the first entry of this measurement over the files */
    const char *label, *variant, *kernel;
    int M, K, N, threads;
    long major;              /* variant table position, unknown variants after */
    long kernel_order;       /* first appearance of the kernel over the files */
    long seq;                /* first appearance of the measurement over the files */
    int group;               /* its place before sorting, in entry order */
    gb_dtype dtype;          /* its type: "onednn [bf16]" is a row of its own */
} mkey;

/* A selected entry of one of the files, seq counting over all of them. */
typedef struct cand {
    const gb_entry *e;
    int file;
    long seq;
    int key;                 /* its row, once the keys are sorted */
} cand;

typedef struct multi {
    const gb_result_file *files;
    int n;
    char (*names)[64];
    mkey *keys;
    int nkeys;
    cand *cands;             /* every selected entry, by measurement then seq */
    long ncands;
    const gb_entry ***cell;  /* per key, per file: the entry or NULL */
    int any_roof;
    int duplicates;
} multi;

static long variant_position(const char *variant)
{
    for (size_t i = 0; i < gb_variant_count; i++)
        if (strcmp(gb_variants[i]->name, variant) == 0)
            return (long)i;
    return (long)gb_variant_count;
}

static int order(long a, long b)
{
    return (a > b) - (a < b);
}

/* Candidates by measurement (gb_entry_order), then by appearance. */
static int compare_cands(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    int c = gb_entry_order(x->e, y->e);
    return c != 0 ? c : order(x->seq, y->seq);
}

static int compare_kernels(const void *a, const void *b)
{
    const mkey *x = a, *y = b;
    int c = strcmp(x->kernel, y->kernel);
    return c != 0 ? c : order(x->seq, y->seq);
}

static int compare_keys(const void *a, const void *b)
{
    const mkey *x = a, *y = b;
    int c;

    if (x->kernel_order != y->kernel_order)
        return order(x->kernel_order, y->kernel_order);
    if (x->major != y->major)
        return order(x->major, y->major);
    if ((c = strcmp(x->label, y->label)) != 0)
        return c;
    if (x->dtype != y->dtype)
        return order(x->dtype, y->dtype);
    if (x->M != y->M)
        return order(x->M, y->M);
    if (x->K != y->K || x->N != y->N)
        return x->K != y->K ? order(x->K, y->K) : order(x->N, y->N);
    return x->threads != y->threads ? order(x->threads, y->threads) : order(x->seq, y->seq);
}

/* The keys: one per run of candidates of one measurement, its first. */
static int make_keys(multi *m)
{
    int *pos;

    m->keys = calloc((size_t)m->ncands, sizeof *m->keys);
    if (m->keys == NULL)
        return -2;
    for (long i = 0; i < m->ncands; i++) {
        const gb_entry *e = m->cands[i].e;
        if (i == 0 || gb_entry_order(m->cands[i - 1].e, e) != 0) {
            m->keys[m->nkeys] = (mkey){ e, e->label, e->variant, e->kernel, e->M, e->K, e->N,
                                        e->threads, variant_position(e->variant), 0,
                                        m->cands[i].seq, m->nkeys, e->dtype };
            m->nkeys++;
        }
        m->cands[i].key = m->nkeys - 1;
    }
    /* A kernel's order is its first measurement's appearance. */
    qsort(m->keys, (size_t)m->nkeys, sizeof *m->keys, compare_kernels);
    for (int k = 0; k < m->nkeys; k++)
        m->keys[k].kernel_order = k > 0 && strcmp(m->keys[k - 1].kernel, m->keys[k].kernel) == 0
                                      ? m->keys[k - 1].kernel_order
                                      : m->keys[k].seq;
    qsort(m->keys, (size_t)m->nkeys, sizeof *m->keys, compare_keys);
    pos = malloc((size_t)m->nkeys * sizeof *pos + 1);
    if (pos == NULL)
        return -2;
    for (int k = 0; k < m->nkeys; k++)
        pos[m->keys[k].group] = k;
    for (long i = 0; i < m->ncands; i++)
        m->cands[i].key = pos[m->cands[i].key];
    free(pos);
    return 0;
}

/* The union of the selected entries' keys, sorted: kernels in the order the
 * files show them, then variants in the variant table's order, M, threads.
 * By sorting, not by searching the keys per entry: 50,000 entries in a file
 * made that search run for minutes. */
static int collect_keys(multi *m, const gb_report_opts *o, char *err, size_t errlen)
{
    gb_filter filter;
    long total = 0;
    int rc = gb_report_filter(o, &filter, err, errlen);

    for (int f = 0; f < m->n; f++)
        total += m->files[f].nentries;
    m->cands = malloc((size_t)total * sizeof *m->cands + 1);
    if (rc == 0 && m->cands == NULL)
        rc = -2;
    for (int f = 0; f < m->n && rc == 0; f++)
        for (int i = 0; i < m->files[f].nentries; i++) {
            const gb_entry *e = &m->files[f].entries[i];
            if (gb_filter_match(&filter, e)) {
                m->cands[m->ncands] = (cand){ e, f, m->ncands, 0 };
                m->ncands++;
            }
        }
    if (rc == 0)
        rc = gb_filter_check_used(&filter, "any of the files", err, errlen);
    gb_filter_free(&filter);
    if (rc == 0 && m->ncands == 0) {
        snprintf(err, errlen, "no entries match both --kernel and --variant");
        rc = -1;
    }
    if (rc == 0) {
        qsort(m->cands, (size_t)m->ncands, sizeof *m->cands, compare_cands);
        rc = make_keys(m);
    }
    return rc;
}

/* Every file's entry for every key (the first when a file repeats one), and
 * whether any file records a roof_pct. */
static int fill_cells(multi *m)
{
    m->cell = calloc((size_t)m->nkeys, sizeof *m->cell);
    if (m->cell == NULL)
        return -2;
    for (int k = 0; k < m->nkeys; k++)
        if ((m->cell[k] = calloc((size_t)m->n, sizeof **m->cell)) == NULL)
            return -2;
    for (int f = 0; f < m->n; f++)
        for (int i = 0; i < m->files[f].nentries; i++)
            if (!isnan(m->files[f].entries[i].roof_pct))
                m->any_roof = 1;
    /* By measurement, then appearance: a file's first entry comes first. */
    for (long i = 0; i < m->ncands; i++) {
        const gb_entry **c = &m->cell[m->cands[i].key][m->cands[i].file];
        if (*c == NULL)
            *c = m->cands[i].e;
        else
            m->duplicates++;
    }
    return 0;
}

static double roof_of(const gb_entry *e)
{
    return e ? e->roof_pct : NAN;
}

/* Per file: median, %peak, (%roof), and past the first, the ratio to it. */
static int file_columns(const multi *m)
{
    return 2 + m->any_roof + 1;
}

static int side_by_side(FILE *out, const multi *m, gb_format fmt)
{
    gb_grid g;
    char title[GB_TABLE_CELL];
    int per = file_columns(m), col = 0;

    if (gb_grid_init(&g, 6 + m->n * per - 1) != 0) {
        gb_grid_free(&g);
        return -2;
    }
    gb_grid_col(&g, col++, "variant", 0);
    gb_grid_col(&g, col++, "kernel", 0);
    gb_grid_col(&g, col++, "M", 1);
    gb_grid_col(&g, col++, "K", 1);
    gb_grid_col(&g, col++, "N", 1);
    /* K and N in the CSV only: the kernel names them everywhere else. */
    g.cols[col - 2].title = g.cols[col - 1].title = NULL;
    gb_grid_col(&g, col++, "threads", 1);
    for (int f = 0; f < m->n; f++) {
        snprintf(title, sizeof title, "%s median_us", m->names[f]);
        gb_grid_col(&g, col++, title, 1);
        snprintf(title, sizeof title, "%s %%peak", m->names[f]);
        gb_grid_col(&g, col++, title, 1);
        if (m->any_roof) {
            snprintf(title, sizeof title, "%s %%roof", m->names[f]);
            gb_grid_col(&g, col++, title, 1);
        }
        if (f > 0) {
            snprintf(title, sizeof title, "%s /%s", m->names[f], m->names[0]);
            gb_grid_col(&g, col++, title, 1);
        }
    }
    if (gb_grid_start(&g, fmt) != 0) {
        gb_grid_free(&g);
        return -2;
    }
    gb_grid_heading(out, fmt, "median µs and % of each machine's peak per file; /FIRST = this "
                      "median / the first file's (below 1: faster); blank = not in that file");
    for (int k = 0; k < m->nkeys; k++) {
        const mkey *key = &m->keys[k];
        const gb_entry *first = m->cell[k][0];
        col = 0;
        gb_entry_typed_label(key->e, g.text[col++], GB_TABLE_CELL);
        snprintf(g.text[col++], GB_TABLE_CELL, "%s", key->kernel);
        snprintf(g.text[col++], GB_TABLE_CELL, "%d", key->M);
        snprintf(g.text[col++], GB_TABLE_CELL, "%d", key->K);
        snprintf(g.text[col++], GB_TABLE_CELL, "%d", key->N);
        snprintf(g.text[col++], GB_TABLE_CELL, "%d", key->threads);
        for (int f = 0; f < m->n; f++) {
            const gb_entry *e = m->cell[k][f];
            gb_grid_number(&g, col++, e ? e->median_us : NAN, "%.1f");
            gb_grid_number(&g, col++, e ? gb_report_peak_pct(&m->files[f], e) : NAN, "%.1f");
            if (m->any_roof)
                gb_grid_number(&g, col++, roof_of(e), "%.1f");
            if (f > 0)
                gb_grid_number(&g, col++,
                               e && first && first->median_us > 0.0 ? e->median_us / first->median_us
                                                                    : NAN,
                               "%.3f");
        }
        gb_grid_row(&g);
    }
    return gb_grid_finish(out, &g);
}

static int same_point(const mkey *a, const mkey *b)
{
    return strcmp(a->kernel, b->kernel) == 0 && a->M == b->M && a->K == b->K && a->N == b->N &&
           a->dtype == b->dtype && a->threads == b->threads;
}

/* The keys the comparator below reads (qsort passes it no context). */
static const mkey *sorting;

/* Key numbers by point (kernel, M, K, N, type, threads), then display order. */
static int compare_points(const void *a, const void *b)
{
    const mkey *x = &sorting[*(const int *)a], *y = &sorting[*(const int *)b];
    int c = strcmp(x->kernel, y->kernel);

    if (c == 0)
        c = x->M != y->M ? order(x->M, y->M) : x->K != y->K ? order(x->K, y->K)
                                                           : order(x->N, y->N);
    if (c == 0)
        c = order(x->dtype, y->dtype);
    if (c == 0)
        c = order(x->threads, y->threads);
    return c != 0 ? c : order(*(const int *)a, *(const int *)b);
}

/* One row of the fastest table: the point of key k, its first in display
 * order; keys[sorted[from..]] are the point's keys. */
static void fastest_row(gb_grid *g, const multi *m, const int *sorted, int from)
{
    const mkey *key = &m->keys[sorted[from]];
    int col = 0;

    snprintf(g->text[col++], GB_TABLE_CELL, "%s", key->kernel);
    snprintf(g->text[col++], GB_TABLE_CELL, "%d", key->M);
    snprintf(g->text[col++], GB_TABLE_CELL, "%d", key->threads);
    for (int f = 0; f < m->n; f++) {
        const gb_entry *best = NULL;
        for (int j = from; j < m->nkeys && same_point(&m->keys[sorted[j]], key); j++) {
            const gb_entry *e = m->cell[sorted[j]][f];
            if (e && e->median_us > 0.0 && (best == NULL || e->median_us < best->median_us))
                best = e;
        }
        if (best) {
            char label[GB_TABLE_CELL];
            snprintf(g->text[col++], GB_TABLE_CELL, "%s %.1f",
                     gb_entry_typed_label(best, label, sizeof label), best->median_us);
        }
        else
            g->text[col++][0] = '\0';
    }
    gb_grid_row(g);
}

/* Per (kernel, M, K, N, type, threads) and file: the label with the lowest median.
 * The keys of a point are found by sorting, not by comparing every pair. */
static int fastest(FILE *out, const multi *m, gb_format fmt)
{
    gb_grid g;
    char title[GB_TABLE_CELL];
    int col = 0, rc;
    int *sorted = malloc((size_t)m->nkeys * sizeof *sorted + 1);
    int *at = malloc((size_t)m->nkeys * sizeof *at + 1);

    if (sorted == NULL || at == NULL || gb_grid_init(&g, 3 + m->n) != 0) {
        if (sorted && at)
            gb_grid_free(&g);
        free(sorted);
        free(at);
        return -2;
    }
    for (int k = 0; k < m->nkeys; k++)
        sorted[k] = k;
    sorting = m->keys;
    qsort(sorted, (size_t)m->nkeys, sizeof *sorted, compare_points);
    for (int j = 0; j < m->nkeys; j++)
        at[sorted[j]] = j;
    gb_grid_col(&g, col++, "kernel", 0);
    gb_grid_col(&g, col++, "M", 1);
    gb_grid_col(&g, col++, "threads", 1);
    for (int f = 0; f < m->n; f++) {
        snprintf(title, sizeof title, "%s fastest", m->names[f]);
        gb_grid_col(&g, col++, title, 0);
    }
    if (gb_grid_start(&g, fmt) != 0) {
        gb_grid_free(&g);
        free(sorted);
        free(at);
        return -2;
    }
    gb_grid_heading(out, fmt, "fastest variant on each machine (lowest median, its µs)");
    /* A point's row where its first key is in display order. */
    for (int k = 0; k < m->nkeys; k++)
        if (at[k] == 0 || !same_point(&m->keys[sorted[at[k] - 1]], &m->keys[k]))
            fastest_row(&g, m, sorted, at[k]);
    rc = gb_grid_finish(out, &g);
    free(sorted);
    free(at);
    return rc;
}

static void multi_header(FILE *out, const multi *m, gb_format fmt)
{
    const char *pre = fmt == GB_FMT_CSV ? "# " : fmt == GB_FMT_MD ? "- " : "  ";

    fprintf(out, "%sgemmbench report of %d files\n%s", fmt == GB_FMT_CSV ? "# " : "", m->n,
            fmt == GB_FMT_MD ? "\n" : "");
    for (int f = 0; f < m->n; f++) {
        const gb_result_file *file = &m->files[f];
        fprintf(out, "%s%s: %s%s%s, %s, started %s, peak ", pre, m->names[f],
                fmt == GB_FMT_MD ? "`" : "", file->path, fmt == GB_FMT_MD ? "`" : "",
                file->cpu_model ? file->cpu_model : "unknown CPU",
                file->started ? file->started : "unknown");
        if (file->peak_gflops > 0.0)
            fprintf(out, "%.1f GFLOP/s", file->peak_gflops);
        else
            fprintf(out, "not measured");
        fprintf(out, "%s\n", file->complete ? "" : " (INCOMPLETE)");
    }
}

/* Column names: the user's NAME=, else the machine label; a label two files
 * share gets #2, #3 (two runs on one machine). */
static void name_files(multi *m, const char *const *names)
{
    for (int f = 0; f < m->n; f++) {
        int same = 0;
        if (names && names[f] && names[f][0]) {
            /* The user's text, escaped as every error shows it (a directory
             * name from fleet-report.sh may hold anything). */
            gb_printable(names[f], sizeof m->names[f], m->names[f], sizeof m->names[f]);
            continue;
        }
        gb_report_machine_label(&m->files[f], m->names[f], sizeof m->names[f]);
        for (int g = 0; g < f; g++) {
            char other[64];
            if (names && names[g] && names[g][0])
                continue;
            gb_report_machine_label(&m->files[g], other, sizeof other);
            same += strcmp(other, m->names[f]) == 0;
        }
        if (same) {
            size_t len = strlen(m->names[f]);
            snprintf(m->names[f] + (len < 58 ? len : 58), sizeof m->names[f] - (len < 58 ? len : 58),
                     "#%d", same + 1);
        }
    }
}

int gb_report_multi(FILE *out, const gb_result_file *files, const char *const *names, int n,
                    const gb_report_opts *o, char *err, size_t errlen)
{
    multi m;
    int rc;

    memset(&m, 0, sizeof m);
    m.files = files;
    m.n = n;
    m.names = calloc((size_t)n, sizeof *m.names);
    rc = m.names == NULL ? -2 : collect_keys(&m, o, err, errlen);
    if (rc == 0)
        rc = fill_cells(&m);
    if (rc == 0) {
        name_files(&m, names);
        multi_header(out, &m, o->format);
        rc = side_by_side(out, &m, o->format);
    }
    if (rc == 0)
        rc = fastest(out, &m, o->format);
    if (rc == 0 && m.duplicates)
        fprintf(out, "\n%s%d entr%s repeat%s a row already shown: the first in its file is "
                     "used\n", o->format == GB_FMT_CSV ? "# " : "", m.duplicates,
                m.duplicates == 1 ? "y" : "ies", m.duplicates == 1 ? "s" : "");
    if (rc == -2)
        snprintf(err, errlen, "out of memory");
    for (int k = 0; m.cell && k < m.nkeys; k++)
        free(m.cell[k]);
    free(m.cell);
    free(m.keys);
    free(m.cands);
    free(m.names);
    return rc;
}
