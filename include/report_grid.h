/*
 * report_grid.h - a buffered table whose column titles are made at run time
 * (one per thread count, one per file), its number cells and its heading:
 * what the scaling report (report_scaling.c) and the several-files report
 * (report_multi.c) write their tables with, through the one table writer
 * (table.h).  A grid is filled a row at a time in text[], then printed
 * whole, each column fitted to its widest cell.
 */
#ifndef GB_REPORT_GRID_H
#define GB_REPORT_GRID_H

#include <stdio.h>

#include "sweep.h"
#include "table.h"

typedef char gb_cell_buf[GB_TABLE_CELL];

typedef struct gb_grid {
    gb_table tab;
    gb_column *cols;
    gb_cell_buf *titles, *text;   /* text: the row being filled, one cell per column */
    const char **cells;
    int ncols, failed;
    int csv;                      /* numbers unrounded, for spreadsheets */
} gb_grid;

/* ncols columns, none titled yet: 0, or -2 when memory runs out (then
 * gb_grid_free). */
int gb_grid_init(gb_grid *g, int ncols);
/* Column i: title (also the CSV's), right-aligned when a number. */
void gb_grid_col(gb_grid *g, int i, const char *title, int right);
/* After the titles, before the rows: 0, or -2 (then gb_grid_free). */
int gb_grid_start(gb_grid *g, gb_format fmt);
/* Cell i of the row being filled: v in printf format fmt (unrounded in a
 * CSV), blank when v is not finite. */
void gb_grid_number(gb_grid *g, int i, double v, const char *fmt);
/* Adds the row in g->text. */
void gb_grid_row(gb_grid *g);
/* Prints the table (unless a row failed) and frees g.  0 or -2. */
int gb_grid_finish(FILE *out, gb_grid *g);
void gb_grid_free(gb_grid *g);

/* A table heading: a line for the terminal and Markdown, a comment in CSV. */
void gb_grid_heading(FILE *out, gb_format fmt, const char *text);

#endif
