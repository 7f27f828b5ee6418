/*
 * run_view.h - what the run command shows while it measures: the progress
 * line on a terminal and a table row per result as it arrives (the
 * runner's hooks, runner.h), and after an interruption the rows of
 * entries short of their last round.
 */
#ifndef GB_RUN_VIEW_H
#define GB_RUN_VIEW_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "options.h"
#include "result.h"
#include "runner.h"
#include "table.h"

/* The run's table: CSV has the family, threads and reps too. */
#define GB_RUN_NCOLS 19
#define GB_RUN_COL_DTYPE 6     /* CSV only, unless a run has a type other than f32 */
#define GB_RUN_COL_THREADS 7   /* CSV only, unless a run has several counts */
#define GB_RUN_COL_RATE 11     /* GFLOP/s; GOP/s for the integer types */
extern const gb_column gb_run_columns[GB_RUN_NCOLS];

typedef struct run_view {
    const gb_options *o;
    gb_table table;
    int progress;            /* a progress line on stderr (a terminal, not --quiet) */
    double started;
    int rows;                /* printed so far */
} run_view;

void gb_run_show_starting(void *arg, int done, int total, const gb_variant *v,
                          const gb_shape *s, int round);
void gb_run_show_measured(void *arg, const gb_result *r, int last);
void gb_run_show_failed(void *arg, const char *err, const gb_shape *s);
void gb_run_clear_progress(const run_view *view);
void gb_run_show_unfinished(run_view *view, const gb_runner *r);

/* Under the table (run_notes.c): the selected variants that do not run a
 * type of the run, with the reason, into doc's "skipped" and/or out
 * (either NULL: not there; 0, or -1 when out of memory); the code each
 * typed entry ran, once per variant, type and implementation; the entries
 * that beat their roof; the kernels each reference library that ran chose
 * and, when not this CPU's best path, why. */
int gb_run_note_skipped(const gb_options *o, const gb_selection *sel, cJSON *doc, FILE *out);
void gb_run_note_impls(FILE *out, const gb_runner *r);
void gb_run_note_roofs_low(FILE *out, const gb_runner *r);
void gb_run_note_libraries(FILE *out, const cJSON *doc, const gb_runner *r);

#endif
