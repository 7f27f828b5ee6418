/*
 * report.h - `gemmbench report` (SPEC §9): the study's pivot tables from a
 * result file.  Library part: builds the tables and writes them; only the
 * subcommand (gb_cmd_report in commands.h) parses arguments and exits.
 */
#ifndef GB_REPORT_H
#define GB_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "options.h"
#include "resultfile.h"
#include "stats.h"

typedef enum gb_report_metric {
    GB_METRIC_MEDIAN,   /* median latency, µs */
    GB_METRIC_MIN,      /* minimum latency, µs */
    GB_METRIC_GFLOPS,   /* GFLOP/s at the median */
    GB_METRIC_SPEEDUP,  /* baseline's median / this median, same kernel, shape, threads */
    GB_METRIC_PEAK      /* percent of the machine's measured FP32 peak */
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
} gb_report_opts;

/* Speed-up of e over the file's baseline on the same kernel, M, K, N and
 * thread count (its median over e's); the run's stored speed-up when the file
 * holds no such baseline; NAN when neither is known. */
double gb_report_speedup(const gb_result_file *f, const gb_entry *e);

/* Percent of the machine's peak for e's thread count (machine.peak_gflops for
 * the run's threads, peak_gflops_1thread for one thread); the stored
 * peak_pct otherwise; NAN when unknown. */
double gb_report_peak_pct(const gb_result_file *f, const gb_entry *e);

/* The metric's value for e; NAN when unknown. */
double gb_report_value(const gb_result_file *f, const gb_entry *e, gb_report_metric m);

/* Parses a metric name; 0, or -1 when unknown. */
int gb_report_metric_parse(const char *name, gb_report_metric *m);

/* Writes the report of f to out.  Returns 0, or -1 with err when the
 * selection names something the file does not hold or matches nothing,
 * or memory runs out. */
int gb_report_write(FILE *out, const gb_result_file *f, const gb_report_opts *o, char *err,
                    size_t errlen);

#endif
