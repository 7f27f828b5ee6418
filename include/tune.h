/*
 * tune.h - the search of `gemmbench tune` (src/tune/tune.c): a variant's
 * parameter space, climbed shape by shape with the harness; what it finds
 * goes to the tuning records (tuned_records.h).
 */
#ifndef GB_TUNE_H
#define GB_TUNE_H

#include <signal.h>
#include <stddef.h>

#include "gemmbench.h"
#include "tuned_records.h"

#define GB_TUNE_MAX_DIMS 8
#define GB_TUNE_MAX_VALUES 16

/* One searched parameter and the values it may take, in increasing order so
 * that index +-1 is a neighbour. */
typedef struct gb_tune_dim {
    const char *key;
    int nvalues;
    long values[GB_TUNE_MAX_VALUES];
} gb_tune_dim;

typedef struct gb_tune_space {
    const char *base;
    int ndims;
    gb_tune_dim dims[GB_TUNE_MAX_DIMS];
} gb_tune_space;

struct gb_learned;

typedef struct gb_tune_cfg {
    int threads;
    int max_trials;        /* candidates measured per shape, the rule included */
    double budget_s;       /* seconds per shape; 0: no limit */
    int warmup, reps;      /* per candidate */
    unsigned seed;
    /* --space only: keep every measured candidate in the outcome (for the
     * database), and rank draws with a learned model (guided search) */
    int keep_trials;
    const struct gb_learned *model;
    /* --space: the candidates' type; the time to beat is packed's kernel of
     * the type (rule_based's for f32) */
    gb_dtype dtype;
} gb_tune_cfg;

typedef struct gb_tune_outcome {
    gb_params best;        /* explicit values of every searched key */
    double best_us, rule_us;  /* medians from the final interleaved confirmation */
    int trials, rejected;  /* measured, and failed verification or errored */
    double seconds;
    int interrupted;
} gb_tune_outcome;

/* The variant a --space search must beat for type t: rule_based for f32,
 * packed (its kernel of the type) otherwise. */
const char *gb_tune_baseline(gb_dtype t);

/* The search space for a base variant, or NULL. */
const gb_tune_space *gb_tune_space_for(const char *base);

/* Searches one shape: the rule first, then a neighbourhood hill-climb from
 * the rule's own values (snapped to the grid), then random points, then the
 * rule and the winner measured again to confirm; every candidate is verified
 * and one that fails is never chosen.  progress may be NULL.  Returns 0 (with
 * out->interrupted set when *stop was raised), or -1 with err. */
int gb_tune_shape(const gb_variant *base, const gb_tune_space *space, int M, int K, int N,
                  const gb_tune_cfg *cfg, volatile sig_atomic_t *stop,
                  void (*progress)(void *arg, int trial, double best_us, double rule_us),
                  void *progress_arg, gb_tune_outcome *out, char *err, size_t errlen);

/* ---- structure search (src/tune/search.c) -------------------------------- */

#include "sched_space.h"

/* A candidate a structure search measured, as the database keeps it. */
typedef struct gb_space_trial {
    char *text;                   /* its schedule (malloc'ed) */
    int verified;                 /* 0: wrong, or could not build or run */
    double us;                    /* its median, when verified */
    int illegal;                  /* points refused by the checker since the trial before */
} gb_space_trial;

/* What a structure search of one shape found. */
typedef struct gb_space_outcome {
    char text[GB_SPACE_MAX_TEXT]; /* the winner's schedule ("" when none was measured) */
    double best_us, rule_us;      /* medians from the final interleaved confirmation */
    int trials;                   /* candidates compiled and measured */
    int illegal;                  /* points the checker refused: never compiled */
    int failed;                   /* candidates that did not build or run */
    int wrong;                    /* candidates that failed verification (a lowering bug) */
    int compiled;                 /* compiler runs (the others came from the cache) */
    double compile_s, measure_s;  /* the compiler's wall time; the harness's, less it */
    double seconds;
    int interrupted;
    int rule_won;                 /* no finalist beat rule_based (text is "") */
    /* the fastest finalist in the confirmation, whether it won or not: a
     * search of another type prints it (text "" when none was confirmed) */
    char fastest[GB_SPACE_MAX_TEXT];
    double fastest_us;
    char why[512];                /* the first failure or wrong result, for the message */
    gb_space_trial *kept;         /* cfg->keep_trials: every candidate measured, in order */
    int nkept;                    /* (gb_space_outcome_free frees them) */
    int guided;                   /* candidates the model ranked first */
} gb_space_outcome;

/* Frees what an outcome holds (its kept trials). */
void gb_space_outcome_free(gb_space_outcome *out);

/* Searches the space for one shape: the file's own point and random legal
 * points first, then mutations of the fastest so far (one or two choices
 * changed, a param to a neighbouring value), each compiled (cache first),
 * verified and measured with the harness; illegal points are counted and
 * skipped before any compiler runs.  The three fastest are measured again
 * interleaved with rule_based over three rounds; the winner is the fastest
 * median of round medians, and rule_based itself (rule_won, an empty text)
 * when no finalist beats it there.  cfg->seed makes it repeatable.  With
 * cfg->model, after the file's own point the model's elites it predicts
 * fastest (ELITE_TRIALS of them, as they stand), then each candidate the one
 * the model predicts fastest among GUIDED_DRAWS legal points (random points
 * and mutations of the fastest points), one in ten a random point (search.c).  0 (out->
 * interrupted set when *stop was raised), -2 with err when the space has no
 * legal point for the shape (an input error), or -1 with err. */
int gb_tune_space_shape(const gb_space *space, int M, int K, int N, const gb_tune_cfg *cfg,
                        volatile sig_atomic_t *stop,
                        void (*progress)(void *arg, int trial, double best_us, double rule_us),
                        void *progress_arg, gb_space_outcome *out, char *err, size_t errlen);

#endif
