/*
 * report_grid.c - the tables of the scaling and several-files reports
 * (report_grid.h): titles made at run time, rows filled as text, then the
 * one table writer (table.h) fits and prints them.
 */
#include "report_grid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int gb_grid_init(gb_grid *g, int ncols)
{
    memset(g, 0, sizeof *g);
    g->ncols = ncols;
    g->cols = calloc((size_t)ncols, sizeof *g->cols);
    g->titles = calloc((size_t)ncols, sizeof *g->titles);
    g->text = calloc((size_t)ncols, sizeof *g->text);
    g->cells = calloc((size_t)ncols, sizeof *g->cells);
    if (g->cols == NULL || g->titles == NULL || g->text == NULL || g->cells == NULL)
        return -2;
    return 0;
}

void gb_grid_col(gb_grid *g, int i, const char *title, int right)
{
    snprintf(g->titles[i], GB_TABLE_CELL, "%s", title);
    g->cols[i] = (gb_column){ g->titles[i], NULL, g->titles[i], 0, right };
}

int gb_grid_start(gb_grid *g, gb_format fmt)
{
    g->csv = fmt == GB_FMT_CSV;
    if (gb_table_init(&g->tab, fmt, g->cols, g->ncols, 2) != 0)
        return -2;
    g->tab.pad_md = 1;
    return 0;
}

void gb_grid_number(gb_grid *g, int i, double v, const char *fmt)
{
    if (isfinite(v))
        snprintf(g->text[i], GB_TABLE_CELL, g->csv ? "%.10g" : fmt, v);
    else
        g->text[i][0] = '\0';
}

void gb_grid_row(gb_grid *g)
{
    for (int i = 0; i < g->ncols; i++)
        g->cells[i] = g->text[i];
    if (gb_table_add(&g->tab, g->cells) != 0)
        g->failed = 1;
}

void gb_grid_free(gb_grid *g)
{
    free(g->cols);
    free(g->titles);
    free(g->text);
    free(g->cells);
}

int gb_grid_finish(FILE *out, gb_grid *g)
{
    int rc = gb_table_finish(out, &g->tab, g->failed) != 0 ? -2 : 0;
    gb_grid_free(g);
    return rc;
}

void gb_grid_heading(FILE *out, gb_format fmt, const char *text)
{
    if (fmt == GB_FMT_CSV)
        fprintf(out, "\n# %s\n", text);
    else if (fmt == GB_FMT_MD)
        fprintf(out, "\n**%s**\n\n", text);
    else
        fprintf(out, "\n%s\n", text);
}
