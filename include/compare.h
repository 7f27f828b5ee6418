/*
 * compare.h - `gemmbench compare OLD.json NEW.json`: pairs the
 * measurements of two result files, tests each pair with the Mann-Whitney U
 * test on the raw samples, summarises the ratios with geometric means, lists
 * what differs between the files' tool, machine and run blocks, and decides
 * the CI gate.  Library code: builds a gb_compare and renders it to a FILE
 * or a cJSON document; the CLI (compare_cmd.c) prints errors and exits.
 */
#ifndef GB_COMPARE_H
#define GB_COMPARE_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdio.h>

#include "mannwhitney.h"
#include "sweep.h"
#include "resultfile.h"

/* Defaults of the gate; src/analysis/compare.md says why these. */
#define GB_COMPARE_THRESHOLD_PCT 10.0
#define GB_COMPARE_ALPHA 0.01
#define GB_COMPARE_MIN_SAMPLES 5
/* Rounds on each side before compare tests per-round medians instead of calls. */
#define GB_COMPARE_MIN_ROUNDS 3
/* gemmbench ab: pairs of rounds before a verdict (8: the fewest whose exact
 * signed-rank p can fall below 0.01, 2/256). */
#define GB_AB_MIN_ROUNDS 8
/* gemmbench ab's default threshold, %: below the 5-10% a schedule change
 * moves times, above the spread of identical builds (src/analysis/compare.md). */
#define GB_AB_THRESHOLD_PCT 3.0

/* What a verdict rests on. */
typedef enum gb_compare_unit {
    GB_UNIT_CALLS = 0,       /* timed calls, when a file has fewer than
                                GB_COMPARE_MIN_ROUNDS rounds: U test on calls
                                from one moment of each run */
    GB_UNIT_ROUNDS,          /* per-round medians of two separate runs: U test */
    GB_UNIT_PAIRED           /* gemmbench ab: per-round NEW/OLD ratios of rounds
                                run side by side: signed-rank test */
} gb_compare_unit;

typedef struct gb_compare_opts {
    double threshold_pct;    /* a slowdown fails the gate above this many percent */
    double alpha;            /* ... when also significant: p < alpha */
    int min_samples;         /* fewer on either side: no verdict */
    const char *variants;    /* comma list of variant names, labels, families or all;
                                NULL or "": every entry */
    const char *kernels;     /* comma list of kernel names or all; NULL or "": every */
    int paired;              /* the files are one gemmbench ab run: round r of OLD
                                and of NEW ran side by side */
    const char *dtypes;      /* comma list of types (f32, bf16, u8s8) or all;
                                NULL or "": every */
} gb_compare_opts;

typedef enum gb_verdict {
    GB_VERDICT_SAME = 0,     /* p >= alpha */
    GB_VERDICT_FASTER,       /* p < alpha, new median below old */
    GB_VERDICT_SLOWER,       /* p < alpha, new median above old */
    GB_VERDICT_TOO_FEW       /* fewer than min_samples on a side: not tested */
} gb_verdict;

/* Rounds that ran under steal (resultfile.h: gb_entry_steal), each side:
 * said beside the verdicts, never dropped from them. */
typedef struct gb_compare_steal {
    int known[2];            /* OLD, NEW: rounds whose steal the files give */
    int under[2];            /* of them, rounds that ran under steal */
    double seconds[2];       /* their steal, seconds over the machine's CPUs */
} gb_compare_steal;

/* One measurement found in both files. */
typedef struct gb_compare_row {
    const gb_entry *old_e, *new_e;
    gb_compare_unit unit;
    double ratio;            /* NEW/OLD estimate, above 1 is slower: medians of
                                calls or of round medians; paired: the
                                Hodges-Lehmann estimate of the round ratios */
    double lo, hi;           /* paired: its interval at 1 - alpha (0, inf: none) */
    double p;                /* the test's two-sided p; NAN when not tested */
    double p_gate;           /* what the verdict compares with alpha: p, or for
                                paired rounds p adjusted over the entries
                                (Benjamini-Hochberg) */
    double noise_pct;        /* rounds: the larger spread of round medians
                                (max - min over median), %; a slowdown within
                                it does not fail the gate */
    int n_old, n_new;        /* calls, or rounds, each side */
    gb_mwu test;             /* calls and rounds: the U test (zeroed if not run) */
    gb_verdict verdict;
    int gate_fail;           /* slower by more than the threshold, with p < alpha */
    double old_peak_pct, new_peak_pct;  /* NAN unless both files carry a peak */
    double old_roof_pct, new_roof_pct;  /* NAN where a file has no roof (older files) */
    gb_compare_steal steal;  /* its rounds that ran under steal (gb_entry_steal) */
} gb_compare_row;

typedef struct gb_compare_group {
    const char *name;        /* a label or kernel name (points into a file), or "overall" */
    gb_dtype dtype;          /* its entries' type: a group holds one (overall: f32) */
    double ratio;            /* exp(mean(log(new/old))) */
    int count;
} gb_compare_group;

/* A field of the tool, machine or run blocks whose value differs. */
typedef struct gb_header_diff {
    char *field;             /* e.g. "machine.cpu_model", "run.config.m" */
    char *old_value, *new_value;   /* rendered as text; "(absent)" when missing */
    const cJSON *old_json, *new_json;   /* the values themselves (NULL: absent),
                                           pointing into the files' blocks */
    int old_items, new_items;      /* an array's length; -1 for other values */
    int identity;                  /* a field that identifies the hardware */
} gb_header_diff;

typedef struct gb_compare {
    const gb_result_file *old_f, *new_f;
    gb_compare_opts opts;
    gb_compare_row *rows;    /* in OLD's order */
    int nrows;
    const gb_entry **only_old, **only_new;   /* in each file's order */
    int nonly_old, nonly_new;
    /* One-sided pairs that differ only by their schedule text (a
     * --schedule edited between the runs): never compared, said apart. */
    int ntext_differs;
    gb_compare_group *by_variant, *by_kernel;      /* in order of first appearance */
    int nby_variant, nby_kernel;
    gb_compare_group overall;
    gb_header_diff *diffs;
    int ndiffs;
    int cross_machine;       /* a machine identity field differs (hostname, CPU, ...) */
    int peak_both;           /* both files carry machine.peak_gflops */
    int nfaster, nslower, nsame, ntoo_few, nfailed;
    int nunit[3];            /* tested rows per gb_compare_unit */
    int ncheck_failed;       /* compared pairs with a failed verification on a side */
    int roof_any;            /* a row has %roof on both sides (the %roof column) */
    gb_compare_steal steal;  /* over every row: the steal line, and the steal
                                column when a round ran under steal */
} gb_compare;

/* Pairs and tests old_f against new_f.  Returns 0; -1 with err when the two
 * files cannot be compared (nothing in common, a filter name that matches
 * nothing, a zero median); -2 with err when memory runs out.  On error c
 * holds nothing to free. */
int gb_compare_files(const gb_result_file *old_f, const gb_result_file *new_f,
                     const gb_compare_opts *opts, gb_compare *c, char *err, size_t errlen);
void gb_compare_free(gb_compare *c);

/* The header, the table, the one-sided entries, the geometric means and the
 * gate's decision, as a terminal table (GB_FMT_TABLE) or Markdown (GB_FMT_MD).
 * 0, or -1 when memory runs out. */
int gb_compare_print(FILE *out, gb_format fmt, const gb_compare *c);
/* gb_compare_print, or the JSON document for GB_FMT_JSON; 0, or -1 when
 * memory runs out. */
int gb_compare_write(FILE *out, gb_format fmt, const gb_compare *c);
/* The same as a JSON document; NULL when out of memory (cJSON skips members
 * it could not allocate, as output.c's documents do). */
cJSON *gb_compare_json(const gb_compare *c);

/* A JSON value as one line of text: strings bare, arrays of scalars joined
 * by blanks, anything else as compact JSON; NULL when out of memory. */
char *gb_json_value_text(const cJSON *v);

/* The verdict's word: same, faster, slower, too few samples. */
const char *gb_verdict_word(gb_verdict v);

#endif
