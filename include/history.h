/*
 * history.h - a store's series as points per commit, their change points
 * (changepoint.h) with the store's annotations, and the two ways to show
 * them: the table or JSON of `history changes` and the offline HTML page of
 * `history html`.  Method and defaults: src/analysis/history.md.
 */
#ifndef GB_HISTORY_H
#define GB_HISTORY_H

#include <stdio.h>

#include "changepoint.h"
#include "history_store.h"

#define GB_HISTORY_ANNOTATIONS_SCHEMA "gemmbench-history-annotations/1"
#define GB_HISTORY_THRESHOLD_PCT 5.0   /* the gate: a slowdown past 5 % */

/* The store's annotations.json: changes known (a commit, optionally only
 * in series matching a glob) and ranges of commits to leave out. */
typedef struct gb_history_note {
    char *commit, *to;     /* known: commit; ignore: commit (from) .. to */
    char *series;          /* a glob over series keys; NULL: every series */
    char *note;
} gb_history_note;

typedef struct gb_history_annotations {
    gb_history_note *known, *ignore;
    int nknown, nignore;
} gb_history_annotations;

/* Reads DIR/annotations.json (none: empty).  0, or -1 with err. */
int gb_history_annotations_read(const char *dir, gb_history_annotations *a, char *err,
                                size_t errlen);
void gb_history_annotations_free(gb_history_annotations *a);

/* Checks anchor and newer as the two files of one `gemmbench ab ANCHOR
 * NEW` run (one machine, the same rounds, at least GB_AB_MIN_ROUNDS, the
 * same entries, started together, complete, verified) and gives each
 * entry's NEW/ANCHOR: the Hodges-Lehmann estimate of its per-round ratios
 * and its 95 % interval (compare.c's paired rounds).  0, or -1 with err
 * (-2 out of memory); *rows is the caller's to free. */
int gb_history_pair(const gb_result_file *anchor, const gb_result_file *newer,
                    gb_history_pair_row **rows, int *nrows, char *err, size_t errlen);

/* label equals given, or given is an abbreviated hash (7 or more
 * characters) label begins with. */
int gb_history_commit_matches(const char *label, const char *given);

/* One commit of a series: its files' measurements pooled. */
typedef struct gb_history_point {
    const char *commit, *date;   /* point into the store */
    double median_us;            /* the median of its files' medians */
    double lo_us, hi_us;         /* the widest round spread of its files */
    double se2;                  /* noise of log(median_us) */
    int nfiles;
    int first;                   /* its earliest file's place in the index (the order
                                    added): orders points of one date */
    /* A paired series' point: median_us is NEW/ANCHOR, lo_us..hi_us its
     * interval.  Its epoch: the points measured against one anchor, in
     * order of their first date; joined_y the log ratio read through the
     * joins to the first epoch (y plus every earlier join's), joined_se2
     * its variance with theirs; joined 0 when a join is missing. */
    const char *anchor;          /* NULL: an absolute point */
    int epoch, joined;
    double joined_y, joined_se2;
} gb_history_point;

/* What a series' own spread lets it see (gb_history_noise). */
typedef struct gb_history_noise {
    double sd;                   /* between-run noise: sd of a point's log median, from
                                    successive points; NAN under 4 points */
    double detectable;           /* the smallest step (ratio - 1) found with 80 % power
                                    at p < alpha with GB_HISTORY_AFTER points after it;
                                    NAN when unknown */
} gb_history_noise;

#define GB_HISTORY_AFTER 10      /* the points after a step the detectable step assumes */
#define GB_HISTORY_UNSTABLE 0.10 /* a paired series whose points' intervals are wider
                                    (hi / lo - 1, median) is unstable: no alarms */

typedef struct gb_history_change {
    int series;
    int at;                      /* its first point after the change */
    gb_cp_test test;             /* ratio after / before, interval, p */
    double p_adjusted;           /* Benjamini-Hochberg over the sweep */
    double floor;                /* a paired change's least step, ratio - 1: its 95 %
                                    interval reaches max(threshold, the series' usual
                                    run-to-run difference) */
    const char *note;            /* the annotation that knows it, or NULL */
    int gate;                    /* an unannotated slowdown past the threshold */
    int unstable;                /* in a paired series whose pairs are wider than
                                    GB_HISTORY_UNSTABLE: named, never an alarm */
} gb_history_change;

typedef struct gb_history_opts {
    double threshold_pct, alpha;
    const char *only_machine;    /* NULL: every machine */
    int best;                    /* a point's value: 1 its fastest round's median (lo_us),
                                    0 its median */
} gb_history_opts;

typedef struct gb_history_view {
    const gb_history_store *store;
    gb_history_opts opts;
    gb_history_point **points;   /* per series, in date order */
    int *npoints;
    int *ignored;                /* per series: points left out by annotations */
    gb_history_noise *noise;     /* per series */
    double *usual;               /* per paired series: its usual run-to-run difference,
                                    expm1 of the median |successive log difference| within
                                    an epoch; NAN for the others */
    double *width;               /* per paired series: the median over its points of
                                    hi / lo - 1; unstable above GB_HISTORY_UNSTABLE */
    int *nepochs;                /* per series: 1 absolute, the anchors for paired */
    int nunstable;               /* paired series named unstable: changes not reported */
    gb_history_change *changes;  /* ordered by series, then point */
    int nchanges, ngate;
} gb_history_view;

/* Points, change points and verdicts of every series in s.  0, or -1 with
 * err (-2 out of memory). */
int gb_history_analyse(const gb_history_store *s, const gb_history_annotations *a,
                       const gb_history_opts *o, gb_history_view *v, char *err, size_t errlen);
void gb_history_view_free(gb_history_view *v);

/* The noise of n points' log values y (successive differences: a step moves
 * one of them, a trend hardly any) and the step that many points with
 * GB_HISTORY_AFTER (at most half) after it would find at alpha. */
gb_history_noise gb_history_noise_of(const double *y, int n, double alpha);

/* `history changes`: json 1, else the table.  0, or -1 when out of memory. */
int gb_history_write_changes(FILE *out, int json, const gb_history_view *v);
/* `history html`: one self-contained page.  0, or -1. */
int gb_history_write_html(FILE *out, const gb_history_view *v);

#endif
