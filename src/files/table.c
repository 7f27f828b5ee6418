/* table.c - the one table writer (terminal, Markdown, CSV); see table.h. */
#include "table.h"

#include <stdlib.h>
#include <string.h>

int gb_table_init(gb_table *t, gb_format fmt, const gb_column *cols, int ncols, int gap)
{
    memset(t, 0, sizeof *t);
    t->fmt = fmt;
    t->cols = cols;
    t->ncols = ncols;
    t->gap = gap;
    t->width = calloc((size_t)ncols, sizeof *t->width);
    if (t->width == NULL)
        return -1;
    for (int c = 0; c < ncols; c++)
        t->width[c] = cols[c].width;
    return 0;
}

void gb_table_free(gb_table *t)
{
    free(t->width);
    free(t->cells);
    memset(t, 0, sizeof *t);
}

static char *cell_at(const gb_table *t, int row, int col)
{
    return t->cells + ((size_t)row * (size_t)t->ncols + (size_t)col) * GB_TABLE_CELL;
}

int gb_table_add(gb_table *t, const char *const *cells)
{
    if (t->nrows == t->capacity) {
        int cap = t->capacity ? 2 * t->capacity : 16;
        char *grown = realloc(t->cells, (size_t)cap * (size_t)t->ncols * GB_TABLE_CELL);
        if (grown == NULL)
            return -1;
        t->cells = grown;
        t->capacity = cap;
    }
    for (int c = 0; c < t->ncols; c++)
        snprintf(cell_at(t, t->nrows, c), GB_TABLE_CELL, "%s", cells[c] ? cells[c] : "");
    t->nrows++;
    return 0;
}

void gb_csv_field(FILE *out, const char *text)
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

/* A Markdown cell: '|' would end it. */
static void md_text(FILE *out, const char *text, int width, int right)
{
    int len = 0;

    for (const char *p = text; *p; p++)
        len += 1 + (*p == '|');
    if (right)
        fprintf(out, "%*s", width > len ? width - len : 0, "");
    for (const char *p = text; *p; p++) {
        if (*p == '|')
            fputc('\\', out);
        fputc(*p, out);
    }
    if (!right)
        fprintf(out, "%*s", width > len ? width - len : 0, "");
}

static void write_row(FILE *out, const gb_table *t, const char *const *cells)
{
    int first = 1, last = t->ncols - 1;

    while (last > 0 && t->cols[last].title == NULL)
        last--;

    for (int c = 0; c < t->ncols; c++) {
        const gb_column *col = &t->cols[c];
        const char *text = cells[c] ? cells[c] : "";
        if (t->fmt == GB_FMT_CSV ? col->csv_title == NULL : col->title == NULL)
            continue;
        switch (t->fmt) {
        case GB_FMT_CSV:
            if (!first)
                fputc(',', out);
            gb_csv_field(out, text);
            break;
        case GB_FMT_MD:
            fputs(first ? "| " : " ", out);
            md_text(out, text, t->pad_md ? t->width[c] : 0, col->right);
            fputs(" |", out);
            break;
        default:
            if (!first)
                fprintf(out, "%*s", t->gap, "");
            /* The last column is not padded on the right: no trailing blanks. */
            if (col->right)
                fprintf(out, "%*s", t->width[c], text);
            else if (c == last)
                fputs(text, out);
            else
                fprintf(out, "%-*s", t->width[c], text);
            break;
        }
        first = 0;
    }
    fputc('\n', out);
}

void gb_table_print_header(FILE *out, const gb_table *t)
{
    const char *titles[t->ncols > 0 ? t->ncols : 1];
    int n = t->ncols;

    titles[0] = NULL;
    for (int c = 0; c < n; c++) {
        const gb_column *col = &t->cols[c];
        titles[c] = t->fmt == GB_FMT_CSV ? col->csv_title
                  : t->fmt == GB_FMT_MD && col->md_title ? col->md_title : col->title;
    }
    write_row(out, t, titles);
    if (t->fmt == GB_FMT_MD) {
        fputc('|', out);
        for (int c = 0; c < n; c++)
            if (t->cols[c].title)
                fputs(t->cols[c].right ? "--:|" : "---|", out);
        fputc('\n', out);
    }
    fflush(out);
}

void gb_table_print_row(FILE *out, const gb_table *t, const char *const *cells)
{
    write_row(out, t, cells);
    fflush(out);
}

void gb_table_print(FILE *out, gb_table *t)
{
    for (int c = 0; c < t->ncols; c++) {
        const gb_column *col = &t->cols[c];
        const char *title = t->fmt == GB_FMT_MD && col->md_title ? col->md_title : col->title;
        int w = title ? (int)strlen(title) : 0;
        if (w > t->width[c])
            t->width[c] = w;
        for (int r = 0; r < t->nrows; r++) {
            w = (int)strlen(cell_at(t, r, c));
            if (w > t->width[c])
                t->width[c] = w;
        }
    }
    gb_table_print_header(out, t);
    for (int r = 0; r < t->nrows; r++) {
        const char *cells[t->ncols > 0 ? t->ncols : 1];
        for (int c = 0; c < t->ncols; c++)
            cells[c] = cell_at(t, r, c);
        write_row(out, t, cells);
    }
}

int gb_table_finish(FILE *out, gb_table *t, int failed)
{
    if (!failed)
        gb_table_print(out, t);
    gb_table_free(t);
    return failed ? -1 : 0;
}
