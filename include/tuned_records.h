/*
 * tuned_records.h - tuning records (schedules/tuned_records.c): what `gemmbench tune` found per machine and
 * shape, and how the `tuned` variants find a record for a shape.
 *
 * A record file is JSON ("schema": "gemmbench-tuned/1") holding records keyed
 * by (base variant, machine fingerprint, M, K, N).  The fingerprint is the CPU
 * model, the ISA list and the thread count: a record tuned on another machine
 * or at another thread count never applies.
 */
#ifndef GB_TUNED_RECORDS_H
#define GB_TUNED_RECORDS_H

#include <stddef.h>

#include "gemmbench.h"

#define GB_TUNED_SCHEMA "gemmbench-tuned/1"
#define GB_TUNED_DEFAULT_PATH "results/tuned.json"
#define GB_TUNED_PATH_ENV "GEMMBENCH_RECORDS"

typedef struct gb_tuned_record {
    char base[32];            /* the variant whose parameters were searched */
    char fingerprint[384];
    int M, K, N;
    gb_params params;         /* the best parameters found */
    double median_us;         /* their median when tuned */
    double rule_median_us;    /* the rule's median in the same tuning run */
    int trials;
    char tuned_at[32];        /* UTC */
    /* A structure search's record (base "tuned_sched", no params): the
     * winning schedule's text, checked when read, and the space it came
     * from.  Owned by the set that holds the record (gb_tuned_put copies
     * them); NULL in a parameter record. */
    char *schedule, *space;
} gb_tuned_record;

typedef struct gb_tuned_set {
    gb_tuned_record *records;
    int count, capacity;
    /* Records gb_tuned_load left out because a value is missing, out of the
     * variant's range or not one of its choices; the first one described
     * as "PATH: records[I]: KEY: problem". */
    int skipped;
    char skipped_why[512];
    /* The skipped records as they were (a cJSON array, or NULL), which
     * gb_tuned_save writes back after the others: never used, never lost. */
    struct cJSON *skipped_records;
} gb_tuned_set;

/* Largest M, K or N a record may hold. */
#define GB_TUNED_MAX_DIM 1000000

/* Where records live: $GEMMBENCH_RECORDS, else results/tuned.json. */
const char *gb_tuned_path(void);

/* The fingerprint of this machine at a thread count. */
void gb_tuned_fingerprint(int threads, char *buf, size_t len);
/* The same for the records of type t's searches (tune --space --dtype):
 * f32's is gb_tuned_fingerprint's, another type's ends in "|dtype=T", so
 * that each type's records are apart and tuned_sched of f32 never finds a
 * bf16 schedule. */
void gb_tuned_fingerprint_dtype(int threads, gb_dtype t, char *buf, size_t len);

/* Loads path into set.  A missing file is an empty set (returns 0); a file
 * that is unreadable, not a regular file, or not one strict JSON document of
 * the records schema returns -1 with err, and set is empty.  A record whose
 * values do not pass the base variant's parameter spec is skipped and
 * counted in set->skipped. */
int gb_tuned_load(const char *path, gb_tuned_set *set, char *err, size_t errlen);
/* Adds or replaces the record with the same key (its schedule and space
 * copied).  0, or -1 when memory runs out. */
int gb_tuned_put(gb_tuned_set *set, const gb_tuned_record *rec);
/* The base of a structure search's records, the variant that replays them. */
#define GB_TUNED_SCHED_BASE "tuned_sched"
/* Writes set atomically.  Returns 0, or -1 with err. */
int gb_tuned_save(const char *path, const gb_tuned_set *set, char *err, size_t errlen);
void gb_tuned_free(gb_tuned_set *set);
/* 0 when gb_tuned_save could write path (a file can be created beside it),
 * else -1 with err. */
int gb_tuned_check_writable(const char *path, char *err, size_t errlen);

/* The records at gb_tuned_path(), read once and again only when the file
 * there changes (schedules/tuned.c), or NULL when it is unreadable. */
const gb_tuned_set *gb_tuned_records(void);

/* The "schedule" object of a tuned_sched result (results/FORMAT.md): the
 * record's text, its sha256 and build, for what (M, N, K, threads) last
 * prepared; NULL when that ran rule_based (no record) or memory ran out. */
struct cJSON *gb_tuned_sched_json(gb_dtype t, int M, int N, int K, int threads);
/* Whether tuned_sched compiles a record's schedule for (M, N, K, threads):
 * the shape's record, or a nearest one that fits it, holds a text. */
int gb_tuned_sched_compiles(int M, int N, int K, int threads);

typedef enum gb_tuned_source {
    GB_TUNED_RECORD = 0,      /* a record for this very shape */
    GB_TUNED_NEAREST,         /* the record of the nearest tuned shape */
    GB_TUNED_RULE,            /* no record for this machine: the base's own rule */
    GB_TUNED_UNREADABLE       /* the record file is corrupt: the rule, and a warning */
} gb_tuned_source;

/* Finds the record for (base, fingerprint, M, K, N), or else the nearest
 * tuned shape of the same base and fingerprint: same K and N with the closest
 * M (by ratio), else the closest shape by the sum of log-ratios.  Returns the
 * record, or NULL when there is none; *exact says which. */
const gb_tuned_record *gb_tuned_find(const gb_tuned_set *set, const char *base,
                                     const char *fingerprint, int M, int K, int N, int *exact);

#endif
