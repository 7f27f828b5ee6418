/*
 * report.h - `gemmbench report`: the study's pivot tables from a result file.
 *
 * Three parts: report.c decides what the tables hold (gb_report_build),
 * report_render.c writes them as text, Markdown or CSV (gb_report_render),
 * and report_cmd.c is the command line (gb_cmd_report in command.h), the
 * only part that prints errors or chooses an exit status.  report_scaling.c
 * turns the same tables into the scaling report (--metric scaling);
 * several files side by side are report_multi.h's.
 */
#ifndef GB_REPORT_H
#define GB_REPORT_H

/* Cells (rows x columns) a report table may have: far above what a run
 * writes (64 M values per kernel, a few hundred labels), and a bound on what
 * a hostile file can make the report allocate and print. */
#define GB_REPORT_MAX_CELLS 1000000

#include <stddef.h>
#include <stdio.h>

#include "filter.h"
#include "sweep.h"
#include "resultfile.h"
#include "stats.h"

typedef enum gb_report_metric {
    GB_METRIC_MEDIAN,   /* median latency, µs */
    GB_METRIC_MIN,      /* minimum latency, µs */
    GB_METRIC_GFLOPS,   /* GFLOP/s at the median */
    GB_METRIC_SPEEDUP,  /* baseline's median / this median, same kernel, shape, threads */
    GB_METRIC_PEAK,     /* percent of the machine's measured FP32 peak */
    GB_METRIC_ROOF      /* percent of the roof that applies (src/measure/bandwidth.md) */
} gb_report_metric;

typedef struct gb_report_opts {
    gb_format format;              /* GB_FMT_TABLE, GB_FMT_MD or GB_FMT_CSV */
    gb_report_metric metric;
    /* Selection: each a list of comma lists (as given to repeated flags);
     * none means everything.  Kernels by name; variants by name, label
     * (rule_based[tk=16], packed+prepack) or family; "all" matches all. */
    const char *const *kernels;
    int nkernels;
    const char *const *variants;
    int nvariants;
    int combined;                  /* one table per thread count, columns kernel/M */
    const char *const *dtypes;     /* types: f32, bf16, u8s8 or all; as kernels */
    int ndtypes;
} gb_report_opts;

/* The entry filter of o's --kernel and --variant lists (filter.h; the caller
 * frees it with gb_filter_free, also on error).  0, or -1 with err. */
int gb_report_filter(const gb_report_opts *o, gb_filter *filter, char *err, size_t errlen);

/* Speed-up of e over the file's baseline on the same kernel, M, K, N and
 * thread count (its median over e's); the run's stored speed-up when the file
 * holds no such baseline; NAN when neither is known. */
double gb_report_speedup(const gb_result_file *f, const gb_entry *e);

/* Percent of the machine's peak for e's thread count (the count's entry of
 * machine.peak_gflops_by_threads, else machine.peak_gflops for the run's
 * threads, peak_gflops_1thread for one thread); the stored peak_pct
 * otherwise; NAN when unknown. */
double gb_report_peak_pct(const gb_result_file *f, const gb_entry *e);

/* Percent of e's roof: its gflops over its attainable_gflops (roof_pct
 * when only that is there); NAN in files without roofs. */
double gb_report_roof_pct(const gb_entry *e);

/* The metric's value for e; NAN when unknown. */
double gb_report_value(const gb_result_file *f, const gb_entry *e, gb_report_metric m);

/* Parses a metric name; 0, or -1 when unknown. */
int gb_report_metric_parse(const char *name, gb_report_metric *m);

/* ---- the report as data: built by report.c, written by report_render.c ---- */

/* Each row ends with geometric means over its cells: of the metric, of the
 * speed-up and of the percent of peak. */
typedef enum gb_report_summary {
    GB_SUM_METRIC, GB_SUM_SPEEDUP, GB_SUM_PEAK, GB_SUM_COUNT
} gb_report_summary;

typedef struct gb_report_col {
    const char *kernel;
    int M, K, N;
    int uniform;             /* every column of this kernel has this K and N: M names it */
} gb_report_col;

typedef struct gb_report_cell {
    double value;            /* the metric; NAN when not measured or not known */
    int failed;              /* failed verification: the time of a wrong result */
} gb_report_cell;

typedef struct gb_report_row {
    const char *label;
    int key;                        /* its place in the report's row order: a label's in
                                       every table, ascending within a table */
    gb_report_cell *cells;          /* one per column */
    double summary[GB_SUM_COUNT];   /* NAN when no cell has a value */
    int used[GB_SUM_COUNT];         /* the cells each summary covers */
} gb_report_row;

typedef struct gb_report_table {
    const char *kernel;      /* NULL: every kernel (--combined) */
    int threads;
    gb_dtype dtype;          /* the type of its entries: a table holds one */
    gb_report_col *cols;     /* kernels in the file's order, then M, K, N ascending */
    int ncols;
    gb_report_row *rows;     /* the labels measured here, in display order */
    int nrows;
} gb_report_table;

typedef struct gb_report {
    const gb_result_file *f;
    gb_report_metric metric;
    gb_report_metric summary_metric[GB_SUM_COUNT];  /* what each summary averages */
    int *threads;            /* the selection's thread counts, ascending */
    int nthreads;
    gb_report_table *tables; /* in output order */
    int ntables;
    int duplicates;          /* entries for a cell already filled (the first is kept) */
    int typed;               /* the selection has an entry of a type other than
                                f32: titles and CSV say each table's type */
    int failed;              /* some cell failed verification */
} gb_report;

/* Selects o's entries of f and builds their tables into r (which points into
 * f: free r first).  0; -1 with err when a --kernel or --variant name matches
 * no entry, or the two select nothing together; -2 when memory runs out. */
int gb_report_build(const gb_result_file *f, const gb_report_opts *o, gb_report *r, char *err,
                    size_t errlen);
void gb_report_free(gb_report *r);

/* Writes r in format fmt.  0, or -2 when memory runs out. */
int gb_report_render(FILE *out, const gb_report *r, gb_format fmt);

/* Builds the report of f and writes it to out: 0, or as gb_report_build
 * (-2 also when writing runs out of memory). */
int gb_report_write(FILE *out, const gb_result_file *f, const gb_report_opts *o, char *err,
                    size_t errlen);

/* The scaling report of f: speed-up over 1 thread and parallel efficiency
 * per variant and shape, with a geometric mean per variant and count
 * (report_scaling.c; o's selection and format; its metric and --combined
 * are not used).  0; -1 with err when f has no 1-thread results or only
 * 1-thread results, or the selection matches nothing; -2 when memory runs
 * out. */
int gb_report_scaling(FILE *out, const gb_result_file *f, const gb_report_opts *o, char *err,
                      size_t errlen);

#endif
