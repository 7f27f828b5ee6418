/*
 * history_store.h - a store of result files kept over commits (`gemmbench
 * history`): the files as they were written, one folder per machine, and an
 * index beside them (index.jsonl, one line per file: its key and, per entry,
 * the median, the round spread and the noise) so that reading a store reads
 * one file, not thousands.  Layout and index: src/analysis/history.md.
 * Library code: fills err and returns -1 (or -2 when memory runs out).
 */
#ifndef GB_HISTORY_STORE_H
#define GB_HISTORY_STORE_H

#include <stddef.h>

#include "resultfile.h"

#define GB_HISTORY_SCHEMA "gemmbench-history/1"
#define GB_HISTORY_LABEL_MAX 128    /* a machine or commit label, at most */

/* One stored file (a line of the index). */
typedef struct gb_history_file {
    char *file;          /* relative to the store: runs/MACHINE/DATE-COMMIT-HASH.json */
    char *machine, *commit;
    char date[24];       /* UTC, YYYY-MM-DDThh:mm:ssZ: sorts as it reads */
    char sha256[65];
    int dirty;
    char *anchor;        /* a paired point's anchor commit; NULL: an absolute one */
} gb_history_file;

/* One measurement of a series in one file.  In a paired series (a file
 * added with --anchor) the value is the entry's NEW/ANCHOR ratio, not a
 * time: median_us the Hodges-Lehmann estimate of its per-round ratios,
 * lo_us and hi_us its 95 % interval, se2 the variance of log(ratio) that
 * interval implies. */
typedef struct gb_history_obs {
    int series, file;
    double median_us;    /* the entry's median */
    double lo_us, hi_us; /* the spread of its rounds' medians (one round: its calls' p10, p90) */
    double se2;          /* squared standard error of log(median) from the same */
    int steal_known;     /* rounds whose steal time was recorded (both files of a pair) */
    int steal_rounds;    /* ... of them under steal (resultfile.h: gb_entry_steal) */
    double steal_s;      /* the steal seconds of those rounds */
} gb_history_obs;

/* A series: one entry's measurements over the files of one machine. */
typedef struct gb_history_series {
    char *key;           /* MACHINE/LABEL/KERNEL/MxKxN/tT/CACHE, "/TYPE" appended for
                            a type other than f32 (/bf16, /u8s8), then "/paired"
                            for a paired series */
    char *machine, *label, *kernel;
    int M, K, N, threads, cold;
    int paired;          /* its points are ratios to an anchor build */
    gb_dtype dtype;      /* the entries' type; f32 in stores from before types
                            (last: positional initializers predate it) */
} gb_history_series;

typedef struct gb_history_store {
    gb_history_file *files;
    int nfiles;
    gb_history_series *series;
    int nseries;
    gb_history_obs *obs;
    int nobs;
} gb_history_store;

/* Reads DIR's index.  0, or -1 with err ("DIR: not a history store",
 * "DIR/index.jsonl:LINE: problem"). */
/* 1 when text is 1 to max bytes with no control character (C0, DEL, C1):
 * what the store keeps and the table prints. */
int gb_history_text_ok(const char *text, size_t max);

int gb_history_store_read(const char *dir, gb_history_store *s, char *err, size_t errlen);
void gb_history_store_free(gb_history_store *s);

/* What `history add` takes for one file: each NULL means "from the file"
 * (commit: tool.git_commit, "-dirty" appended for a dirty tree, else
 * tool.git; date: tool.git_date for a clean commit, else run.started;
 * machine: machine.hostname and its CPU's kind, "vm-f26m2", where the file
 * records machine.cpu_id). */
typedef struct gb_history_add_opts {
    const char *commit, *date, *machine;
    const char *anchor_commit;   /* a pair's anchor (NULL: the anchor file's commit) */
} gb_history_add_opts;

/* The outcome of adding one file. */
typedef struct gb_history_added {
    char stored_as[512];   /* relative to the store */
    int duplicate;         /* 1: its content was already there (nothing done) */
} gb_history_added;

/* Adds paths[0..n) to the store in dir (created when absent), under a
 * lock: every file is read and checked first (resultfile.c), and one that
 * fails stops the whole add before anything is written; then each is
 * copied in (a temporary file, renamed) and the index rewritten once (the
 * same).  out[i] tells what became of paths[i].  0, or -1 with err. */
int gb_history_add(const char *dir, char *const *paths, int n, const gb_history_add_opts *o,
                   gb_history_added *out, char *err, size_t errlen);

/* A result file read once: its bytes, stored as they are, and its reading. */
typedef struct gb_history_input {
    char *text;
    size_t len;
    gb_result_file f;
} gb_history_input;

/* Reads and checks path (resultfile.c's reader).  0, or -1 with err. */
int gb_history_input_read(const char *path, gb_history_input *in, char *err, size_t errlen);
void gb_history_input_free(gb_history_input *in);

/* One entry of a paired point: NEW's entry and its NEW/ANCHOR ratio (the
 * Hodges-Lehmann estimate of the per-round ratios, its 95 % interval). */
typedef struct gb_history_pair_row {
    const gb_entry *e, *anchor_e;
    double ratio, lo, hi;
} gb_history_pair_row;

/* Adds a pair, `gemmbench ab ANCHOR NEW`'s two files, checked as a pair by
 * the caller (gb_history_pair), as one paired point: both files are kept
 * (NEW as a plain add keeps it, ANCHOR beside it as NAME.anchor.json), the
 * index line holds the anchor's commit and the rows' ratios.  The key is
 * NEW's (o as for gb_history_add); the anchor's commit o->anchor_commit, else
 * the anchor file's.  out tells what became of NEW.  0, or -1 with err. */
int gb_history_add_pair(const char *dir, const gb_history_input *anchor,
                        const gb_history_input *newer, const gb_history_pair_row *rows, int nrows,
                        const gb_history_add_opts *o, gb_history_added *out, char *err,
                        size_t errlen);

/* The commit label of a result file as `history add` keys it: the given
 * label, else tool.git_commit ("-dirty" appended), else tool.git. */
void gb_history_commit_of(const gb_result_file *f, const char *given, char *out, size_t len);

/* Seconds since 1970 of a date gb_history_date accepts; -1 when it does not. */
long long gb_history_seconds(const char *text);

/* Parses an ISO 8601 date (YYYY-MM-DD, or with Thh:mm[:ss[.frac]] and Z or
 * +hh:mm / -hh:mm; no zone: UTC) into UTC "YYYY-MM-DDThh:mm:ssZ".  0, or -1. */
int gb_history_date(const char *text, char out[24]);


#endif
