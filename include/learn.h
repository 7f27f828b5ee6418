/*
 * learn.h - learned schedules (src/learn/LEARN.md): the database of measured
 * candidates that `tune --space --database` appends to (trialdb.c), the
 * model `gemmbench model train` fits to it and the model file (learned.c),
 * and the gradient-boosted trees behind it (xgb.c, the only user of
 * XGBoost).  Library code: errors go into a buffer as one line, nothing
 * prints.
 */
#ifndef GB_LEARN_H
#define GB_LEARN_H

#include <stddef.h>

#include "sched_features.h"
#include "sched_lang.h"

#define GB_TRIALS_SCHEMA "gemmbench-trials"
#define GB_TRIALS_VERSION 2   /* 1, from before types, still read: f32 */
#define GB_MODEL_SCHEMA "gemmbench-model"
#define GB_MODEL_VERSION 3

#define GB_TRIALS_MAX_BYTES (64L << 20)  /* a database file */
#define GB_TRIALS_MAX_LINE 65536         /* bytes of one line */
#define GB_TRIALS_MAX_ROWS 200000        /* lines of all databases read together */
#define GB_MODEL_MAX_BYTES (64L << 20)   /* a model file */
#define GB_MODEL_MAX_ELITES 4096         /* schedules a model file carries */
#define GB_TRIALS_MAX_SPACE 200         /* bytes of a trial's "space" */
#define GB_TRIALS_MAX_THREADS 4096       /* a trial's or an elite's thread count */
#define GB_LEARN_MAX_US 1e12             /* a time (us) a trial, elite or prediction may be */

/* What a model must match of a machine: its widest vector ISA, lanes and
 * registers, and its data caches.  The thread count is a column. */
typedef struct gb_learn_machine {
    char isa[16];             /* "avx512f", "avx2", ... or the architecture */
    int lanes, registers;
    long l1d, l2, l3;         /* bytes */
} gb_learn_machine;

/* This machine (model.c's view of it and the widest ISA gemmbench info names). */
void gb_learn_machine_here(gb_learn_machine *out);
/* 0 when a and b are the same kind of machine, else -1 with why naming
 * the first difference ("L2 1048576 bytes, the model's 2097152"). */
int gb_learn_machine_same(const gb_learn_machine *here, const gb_learn_machine *model,
                          char *why, size_t whylen);
/* As the model of model.c reads a machine (for the features). */
void gb_learn_machine_sched(const gb_learn_machine *m, gb_sched_machine *out);

/* The machine as a JSON object (database lines, model files), and read
 * back strictly (exactly its keys, each in range).  NULL / -1 with why. */
struct cJSON *gb_learn_machine_json(const gb_learn_machine *m);
int gb_learn_machine_read(const struct cJSON *o, gb_learn_machine *m, char *why, size_t whylen);
/* 0 when object o has exactly the keys of the NULL-ended list, once each;
 * else -1 with why naming the first unknown or missing key. */
int gb_learn_keys_exact(const struct cJSON *o, const char *const *keys, char *why,
                        size_t whylen);

/* 0 when v is a schedule's text as the files carry it: a string of at most
 * max bytes, printable ASCII, tabs and newlines; else -1 with why. */
int gb_learn_schedule_text(const struct cJSON *v, size_t max, char *why, size_t whylen);

/* The file at path, a regular file of at most max bytes, NUL-ended
 * (malloc'ed), its length in *len; NULL with err "FILE: reason". */
char *gb_learn_read_file(const char *path, long max, size_t *len, char *err, size_t errlen);

/* ---- the database of trials (trialdb.c) ---------------------------------- */

/* One measured candidate: a line of the database. */
typedef struct gb_trial_row {
    int M, K, N, threads;
    gb_dtype dtype;           /* its schedule's type (version 1 lines: f32) */
    gb_learn_machine machine;
    char space[256];          /* the space file it was drawn from, as given
                               * (gb_trialdb_space_name: at most
                               * GB_TRIALS_MAX_SPACE printable bytes) */
    char *text;               /* its schedule text (malloc'ed) */
    int verified;             /* 0: failed verification or did not run */
    double median_us;         /* when verified */
    int illegal;              /* points refused by the checker since the last trial */
} gb_trial_row;

typedef struct gb_trial_db {
    gb_trial_row *rows;
    int n, cap;
} gb_trial_db;

/* Appends to db the rows of the database text (len bytes), named name in
 * messages.  Strict: every line a JSON object of exactly the schema's keys
 * and types, in range, its schedule checked by the language; the first bad
 * line fails it all as "NAME:LINE: reason".  0, or -1 with err (db keeps
 * the rows it had). */
int gb_trialdb_parse(const char *name, const char *text, size_t len, gb_trial_db *db,
                     char *err, size_t errlen);
/* Reads a database file (a regular file, at most GB_TRIALS_MAX_BYTES) into db. */
int gb_trialdb_load(const char *path, gb_trial_db *db, char *err, size_t errlen);
/* A space file's path as a trial keeps it: escaped (gb_printable) and cut
 * to GB_TRIALS_MAX_SPACE bytes, what the reader takes back. */
void gb_trialdb_space_name(const char *path, char out[GB_TRIALS_MAX_SPACE + 1]);
/* The row as one line of JSON, newline ended (malloc'ed), or NULL. */
char *gb_trialdb_line(const gb_trial_row *row);
/* Appends n rows to the database at path (created when missing), in place
 * under an exclusive flock, never rewritten: what it holds is read first,
 * under the lock and strictly (a file that is no database, or whose last
 * line is cut short, is refused, never written to); a write that fails is
 * taken back.  0, or -1 with err. */
int gb_trialdb_append(const char *path, const gb_trial_row *rows, int n, char *err,
                      size_t errlen);
/* Whether path may become a database: a name, missing in a folder that
 * takes a new file, or a readable database this process may write.  0, or
 * -1 with err (the same refusals as append, before any search). */
int gb_trialdb_check(const char *path, char *err, size_t errlen);
void gb_trialdb_free(gb_trial_db *db);

/* ---- the model and its file (learned.c) ---------------------------------- */

typedef struct gb_learned gb_learned;

/* One of the fastest trials of a shape trained on, carried in the model:
 * ml_guided ranks its schedule, as it stands, among the space's points. */
typedef struct gb_learned_elite {
    int M, K, N, threads;
    gb_dtype dtype;           /* its schedule's type */
    double median_us;
    char *text;               /* the trial's schedule text */
} gb_learned_elite;

/* A (shape, threads) a model was trained on. */
typedef struct gb_learned_shape {
    int M, K, N, threads;
    gb_dtype dtype;
} gb_learned_shape;

/* The model's error out of sample (src/learn/LEARN.md, "The guard"): for
 * each trial of a shape held out of a fit, its residual ln(time) -
 * ln(predicted) less that of the shape's analytic point (the space's own
 * point, packed.sched's), i.e. how much the trees overstate a candidate's
 * gain over the analytic point; GB_LEARNED_ERROR_QUANTILE of these, at
 * least 0, over the shapes that were outside the others' M range when held
 * out (edge) and over the others (inside).  NAN: no such shape to hold out. */
#define GB_LEARNED_ERROR_QUANTILE 0.9
#define GB_LEARNED_EDGE_FOLDS 12   /* edge shapes held out, one fit each */
#define GB_LEARNED_INSIDE_FOLDS 4  /* fits the inside shapes are held out in */
typedef struct gb_learned_error {
    double edge, inside;           /* ln of a time ratio, or NAN */
    int edge_shapes, inside_shapes; /* shapes held out for each */
} gb_learned_error;

/* What a model file says it was trained on. */
typedef struct gb_learned_info {
    gb_learn_machine machine;
    unsigned seed;
    int trials, shapes;       /* verified rows trained on, distinct (shape, threads) */
    const char *space_file;   /* the space its candidates came from */
    const char *space_text;   /* ... and its text, carried in the file */
    int nelites;              /* the fastest trials of each shape, fastest first */
    const gb_learned_elite *elites;
    int ntrained;             /* the (shape, threads) trained on */
    const gb_learned_shape *trained;
    gb_learned_error error;
} gb_learned_info;

/* 1 when M x K x N on threads in dtype lies outside what the shapes
 * trained on bracket: no trained shape of the same K, N, threads and type
 * has an M at most M, or none has one at least M (a BERT shape's M is the
 * tokens; its K and N are the layer's).  The trees extrapolate there. */
int gb_learned_outside(const gb_learned_shape *trained, int n, int M, int K, int N, int threads,
                       gb_dtype dtype);
/* 1 when the model was trained on trials of dtype. */
int gb_learned_trained_on(const gb_learned *l, gb_dtype dtype);
/* The guard (src/learn/LEARN.md, "The guard"), on predicted times: the
 * candidate predicted best_us runs rather than the analytic point
 * predicted analytic_us only when the predicted gain analytic_us / best_us
 * exceeds GB_GUARD_MIN_GAIN, and, for a shape outside what the model was
 * trained on (edge), when ln of it exceeds error too (the model's error
 * out of sample at the edge, ln of a ratio; NAN, not measured, trusts no
 * gain).  GB_GUARD_BEATS (edge), GB_GUARD_INSIDE (inside), or
 * GB_GUARD_KEPT (the analytic point runs). */
enum { GB_GUARD_BEATS, GB_GUARD_KEPT, GB_GUARD_INSIDE };
/* The least predicted gain a pick runs for: in the 24-shape leave-one-out
 * (Intel Xeon kind, 2 threads), the picks inside the trained range that
 * the model predicted under 1.15x faster than the analytic point ran
 * slower than it on 10 of 11 shapes (1.06x its time, geomean; mlp_reduce
 * M=32 1.22x), those predicted 1.17x and more faster on all 7. */
#define GB_GUARD_MIN_GAIN 1.15
/* 1 when a predicted gain (ln of a ratio) reaches GB_GUARD_MIN_GAIN. */
int gb_learned_promises(double gain);
int gb_learned_guard(int edge, double best_us, double analytic_us, double error);
/* The model's error out of sample for a shape like this one: the edge one
 * when it is outside what the model was trained on (*edge 1), else the
 * inside one (reported; the guard does not use it). */
double gb_learned_error_for(const gb_learned *l, int M, int K, int N, int threads,
                            gb_dtype dtype, int *edge);

/* Fits a model of ln(median_us / (2 M N K)) to db's verified rows of one
 * machine (the first verified row's; the others are counted in
 * skipped[0]), features from each row's schedule planned for its shape (a
 * schedule that checks but no longer plans for its shape on this build is
 * left out, counted in skipped[1], the first in stale); a schedule that
 * does not check fails it.  The space file it was drawn from goes into the
 * model (ml_guided draws from it), and the elites fastest distinct
 * schedules of each (shape, threads) trained on.  Deterministic for a
 * seed.  0, or -1 with err. */
int gb_learned_train(const gb_trial_db *db, const char *space_path, unsigned seed, int elites,
                     gb_learned **out, int skipped[2], char *stale, size_t stalelen,
                     char *err, size_t errlen);
/* Writes the model file (a JSON envelope around XGBoost's model) through
 * the atomic writer.  0, or -1 with err. */
int gb_learned_save(const gb_learned *l, const char *path, char *err, size_t errlen);
/* Reads a model file strictly: its schema and version, GB_FEATURES_VERSION
 * and the feature names in order, the machine, the space (parsed), the
 * trees.  0, or -1 with err "FILE: reason". */
int gb_learned_load(const char *path, gb_learned **out, char *err, size_t errlen);
/* 1 when the file at path is a model file (JSON of schema GB_MODEL_SCHEMA,
 * any version): what `model train -o` replaces without --force. */
int gb_learned_is_model(const char *path);
void gb_learned_info_of(const gb_learned *l, gb_learned_info *out);
/* Predicted median microseconds of n rows of GB_FEATURES_COUNT features. */
int gb_learned_predict(const gb_learned *l, const float *features, int n, double *us,
                       char *err, size_t errlen);
/* Each feature's total gain over the model's splits. */
int gb_learned_gain(const gb_learned *l, double gain[GB_FEATURES_COUNT], char *err,
                    size_t errlen);
void gb_learned_free(gb_learned *l);

/* The features of a schedule text for a shape and thread count on m:
 * 0; -1 with err when it does not check, -2 when it checks but does not
 * plan for the shape. */
int gb_learned_features(const char *file, const char *text, int M, int K, int N, int threads,
                        const gb_learn_machine *m, float out[GB_FEATURES_COUNT], char *err,
                        size_t errlen);

/* ---- the trees (xgb.c: the one user of XGBoost) -------------------------- */

typedef struct gb_xgb gb_xgb;

/* What every entry point says in a build without XGBoost. */
#define GB_XGB_MISSING \
    "built without XGBoost: install libxgboost-dev (scripts/setup.sh does, as root) and rebuild"
/* Whether XGBoost can run: the build has it (GB_HAVE_XGBOOST) and its
 * library opens (it is opened on first use, not linked). */
int gb_xgb_available(void);
/* Why it cannot ("" when it can): GB_XGB_MISSING, or the library that did
 * not open and why. */
const char *gb_xgb_missing(void);
/* Fits regression trees to rows x cols features X (row-major) and labels y,
 * one thread, deterministic for a seed. */
int gb_xgb_train(const float *X, const float *y, int rows, int cols, unsigned seed,
                 gb_xgb **out, char *err, size_t errlen);
int gb_xgb_predict(const gb_xgb *x, const float *X, int rows, float *out, char *err,
                   size_t errlen);
/* XGBoost's JSON model (malloc'ed, NUL-ended) and its length. */
int gb_xgb_save(const gb_xgb *x, char **json, size_t *len, char *err, size_t errlen);
/* Checks XGBoost's JSON model before the library sees it (trees.c): the
 * kind gb_xgb_train writes, cols columns, each tree a proper binary tree
 * (children in range, none reached twice, split columns < cols), the
 * counts consistent, a finite prediction.  0, or -1 with why. */
int gb_xgb_check(const char *json, int cols, char *why, size_t whylen);
/* Loads XGBoost's model from json; refused unless it reads cols features. */
int gb_xgb_load(const char *json, size_t len, int cols, gb_xgb **out, char *err,
                size_t errlen);
/* Each column's total gain (0: never split on) into gain[cols]. */
int gb_xgb_gain(const gb_xgb *x, double *gain, char *err, size_t errlen);
void gb_xgb_free(gb_xgb *x);

#endif
