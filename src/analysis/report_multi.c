/*
 * report_multi.c - `report A B C ...`: several result files (machines or
 * builds) side by side (report_multi.h; the method and the column meanings:
 * src/analysis/report_multi.md).
 *
 * It keys entries itself, since no one file's tables hold every row: the
 * union of (label, kernel, M, K, N, threads) over the files, each file's
 * cell blank where it has no such entry.
 */
#define _GNU_SOURCE   /* strtok_r, under compilers strict about -std=c11 (clang) */
#include "report_multi.h"
#include "variants.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"
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
    int kernel_order;        /* first appearance of the kernel over the files */
} mkey;

typedef struct multi {
    const gb_result_file *files;
    int n;
    char (*names)[64];
    mkey *keys;
    int nkeys, maxkeys;
    const gb_entry ***cell;  /* per key, per file: the entry or NULL */
    int any_roof;
    int duplicates;
} multi;

static int same_key(const mkey *k, const gb_entry *e)
{
    return gb_entry_same(k->e, e);
}

static long variant_position(const char *variant)
{
    for (size_t i = 0; i < gb_variant_count; i++)
        if (strcmp(gb_variants[i]->name, variant) == 0)
            return (long)i;
    return (long)gb_variant_count;
}

static int kernel_position(const multi *m, const char *kernel)
{
    int seen = 0;
    for (int i = 0; i < m->nkeys; i++) {
        if (strcmp(m->keys[i].kernel, kernel) == 0)
            return m->keys[i].kernel_order;
        seen = m->keys[i].kernel_order + 1 > seen ? m->keys[i].kernel_order + 1 : seen;
    }
    return seen;
}

static int find_key(const multi *m, const gb_entry *e)
{
    for (int i = 0; i < m->nkeys; i++)
        if (same_key(&m->keys[i], e))
            return i;
    return -1;
}

static int add_key(multi *m, const gb_entry *e)
{
    mkey *k;

    if (find_key(m, e) >= 0)
        return 0;
    if (m->nkeys == m->maxkeys) {
        int cap = m->maxkeys ? 2 * m->maxkeys : 256;
        mkey *grown = realloc(m->keys, (size_t)cap * sizeof *grown);
        if (grown == NULL)
            return -2;
        m->keys = grown;
        m->maxkeys = cap;
    }
    k = &m->keys[m->nkeys];
    *k = (mkey){ e, e->label, e->variant, e->kernel, e->M, e->K, e->N, e->threads,
                 variant_position(e->variant), kernel_position(m, e->kernel) };
    m->nkeys++;
    return 0;
}

static int compare_keys(const void *a, const void *b)
{
    const mkey *x = a, *y = b;
    int c;

    if (x->kernel_order != y->kernel_order)
        return (x->kernel_order > y->kernel_order) - (x->kernel_order < y->kernel_order);
    if (x->major != y->major)
        return (x->major > y->major) - (x->major < y->major);
    if ((c = strcmp(x->label, y->label)) != 0)
        return c;
    if (x->M != y->M)
        return (x->M > y->M) - (x->M < y->M);
    if (x->K != y->K || x->N != y->N)
        return x->K != y->K ? (x->K > y->K) - (x->K < y->K) : (x->N > y->N) - (x->N < y->N);
    return (x->threads > y->threads) - (x->threads < y->threads);
}

/* The union of the selected entries' keys, sorted: kernels in the order the
 * files show them, then variants in the variant table's order, M, threads. */
static int collect_keys(multi *m, const gb_report_opts *o, char *err, size_t errlen)
{
    gb_filter filter;
    int rc = gb_report_filter(o, &filter, err, errlen);

    for (int f = 0; f < m->n && rc == 0; f++)
        for (int i = 0; i < m->files[f].nentries && rc == 0; i++)
            if (gb_filter_match(&filter, &m->files[f].entries[i]))
                rc = add_key(m, &m->files[f].entries[i]);
    if (rc == 0)
        rc = gb_filter_check_used(&filter, "any of the files", err, errlen);
    gb_filter_free(&filter);
    if (rc == 0 && m->nkeys == 0) {
        snprintf(err, errlen, "no entries match both --kernel and --variant");
        rc = -1;
    }
    if (rc == 0)
        qsort(m->keys, (size_t)m->nkeys, sizeof *m->keys, compare_keys);
    return rc;
}

/* Every file's entry for every key (the first when a file repeats one), and
 * its roof_pct when the file records one. */
static int fill_cells(multi *m)
{
    m->cell = calloc((size_t)m->nkeys, sizeof *m->cell);
    if (m->cell == NULL)
        return -2;
    for (int k = 0; k < m->nkeys; k++)
        if ((m->cell[k] = calloc((size_t)m->n, sizeof **m->cell)) == NULL)
            return -2;
    for (int f = 0; f < m->n; f++) {
        const gb_result_file *file = &m->files[f];
        for (int i = 0; i < file->nentries; i++) {
            int k = find_key(m, &file->entries[i]);
            if (!isnan(file->entries[i].roof_pct))
                m->any_roof = 1;
            if (k < 0)
                continue;
            if (m->cell[k][f] == NULL)
                m->cell[k][f] = &file->entries[i];
            else
                m->duplicates++;
        }
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
        snprintf(g.text[col++], GB_TABLE_CELL, "%s", key->label);
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

/* Per (kernel, M, K, N, threads) and file: the label with the lowest median. */
static int fastest(FILE *out, const multi *m, gb_format fmt)
{
    gb_grid g;
    char title[GB_TABLE_CELL];
    int col = 0;

    if (gb_grid_init(&g, 3 + m->n) != 0) {
        gb_grid_free(&g);
        return -2;
    }
    gb_grid_col(&g, col++, "kernel", 0);
    gb_grid_col(&g, col++, "M", 1);
    gb_grid_col(&g, col++, "threads", 1);
    for (int f = 0; f < m->n; f++) {
        snprintf(title, sizeof title, "%s fastest", m->names[f]);
        gb_grid_col(&g, col++, title, 0);
    }
    if (gb_grid_start(&g, fmt) != 0) {
        gb_grid_free(&g);
        return -2;
    }
    gb_grid_heading(out, fmt, "fastest variant on each machine (lowest median, its µs)");
    for (int k = 0; k < m->nkeys; k++) {
        const mkey *key = &m->keys[k];
        int seen = 0;
        /* One row per point: skip a key whose point an earlier key had. */
        for (int j = 0; j < k && !seen; j++)
            seen = strcmp(m->keys[j].kernel, key->kernel) == 0 && m->keys[j].M == key->M &&
                   m->keys[j].K == key->K && m->keys[j].N == key->N &&
                   m->keys[j].threads == key->threads;
        if (seen)
            continue;
        col = 0;
        snprintf(g.text[col++], GB_TABLE_CELL, "%s", key->kernel);
        snprintf(g.text[col++], GB_TABLE_CELL, "%d", key->M);
        snprintf(g.text[col++], GB_TABLE_CELL, "%d", key->threads);
        for (int f = 0; f < m->n; f++) {
            const gb_entry *best = NULL;
            for (int j = k; j < m->nkeys; j++) {
                const gb_entry *e = m->cell[j][f];
                if (e && strcmp(m->keys[j].kernel, key->kernel) == 0 && m->keys[j].M == key->M &&
                    m->keys[j].K == key->K && m->keys[j].N == key->N &&
                    m->keys[j].threads == key->threads && e->median_us > 0.0 &&
                    (best == NULL || e->median_us < best->median_us))
                    best = e;
            }
            if (best)
                snprintf(g.text[col++], GB_TABLE_CELL, "%s %.1f", best->label, best->median_us);
            else
                g.text[col++][0] = '\0';
        }
        gb_grid_row(&g);
    }
    return gb_grid_finish(out, &g);
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
            snprintf(m->names[f], sizeof m->names[f], "%s", names[f]);
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
    free(m.names);
    return rc;
}
