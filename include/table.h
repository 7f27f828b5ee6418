/*
 * table.h - the one table writer: rows of text cells rendered as an aligned
 * terminal table, a Markdown table or CSV.  Used by the run's rows, compare
 * and report.
 *
 * Two ways to use it:
 *   - buffered: gb_table_add every row, then gb_table_print fits each
 *     column to its widest cell (compare, report);
 *   - streaming: gb_table_print_header, then gb_table_print_row as results
 *     arrive, with the columns' minimum widths (a sweep's rows appear as
 *     they are measured).
 * Cells are formatted by the caller (each format may want other precision);
 * the writer aligns, separates and escapes: CSV fields holding a comma,
 * quote or newline are quoted, Markdown cells have '|' escaped.
 */
#ifndef GB_TABLE_H
#define GB_TABLE_H

#include <stdio.h>

#include "sweep.h"

#define GB_TABLE_CELL 192

typedef struct gb_column {
    const char *title;       /* terminal table header; NULL: the column is CSV only */
    const char *md_title;    /* Markdown header; NULL: title */
    const char *csv_title;   /* CSV header; NULL: the column is not in the CSV */
    int width;               /* terminal: minimum width */
    int right;               /* 1: right-aligned (numbers) */
} gb_column;

typedef struct gb_table {
    gb_format fmt;           /* GB_FMT_TABLE, GB_FMT_MD or GB_FMT_CSV */
    const gb_column *cols;
    int ncols;
    int gap;                 /* terminal: blanks between columns */
    int pad_md;              /* Markdown: pad cells to the column width */
    int *width;              /* per column, fitted by gb_table_print */
    char *cells;             /* buffered rows: nrows x ncols cells of GB_TABLE_CELL */
    int nrows, capacity;
} gb_table;

/* 0, or -1 when memory runs out. */
int gb_table_init(gb_table *t, gb_format fmt, const gb_column *cols, int ncols, int gap);
void gb_table_free(gb_table *t);

/* Buffers a row of ncols cells; a NULL cell is empty.  0, or -1 (memory). */
int gb_table_add(gb_table *t, const char *const *cells);
/* Writes the header and the buffered rows, columns fitted to their cells. */
void gb_table_print(FILE *out, gb_table *t);
/* The end of a buffered table: prints it unless failed (a row could not be
 * added), frees it; 0, or -1 when failed. */
int gb_table_finish(FILE *out, gb_table *t, int failed);

/* Streaming: the header, then one row at a time at the minimum widths. */
void gb_table_print_header(FILE *out, const gb_table *t);
void gb_table_print_row(FILE *out, const gb_table *t, const char *const *cells);

/* One CSV field, quoted when it holds a comma, a quote or a newline. */
void gb_csv_field(FILE *out, const char *text);

#endif
