/*
 * resultfile.h - reading a gemmbench/1 JSON result file back (for compare,
 * report and plots), validated field by field: every problem is one message
 * naming the file and what is wrong.
 */
#ifndef GB_RESULTFILE_H
#define GB_RESULTFILE_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "result.h"

/* What a reader accepts is bounded by what the writer can produce, so that a
 * small hostile file cannot cost minutes or gigabytes: rounds at most what
 * --rounds allows (run and ab), samples per entry at most what --reps allows
 * (--min-time stops at 100000 calls). */
#define GB_MAX_ROUNDS 1000
#define GB_MAX_SAMPLES 1000000
/* A round's seconds (wall, CPU, steal) at most this, a billion (31 years):
 * their sums over an entry's rounds, a pair's two entries and a history's
 * points then cannot overflow (an index would write inf as null, which its
 * reader refuses). */
#define GB_MAX_CLOCK_S 1e9
/* The largest result file read: a full sweep with every call kept is a few MB. */
#define GB_RESULT_FILE_MAX (512L * 1024 * 1024)

typedef struct gb_entry {
    const char *variant, *label, *family, *kernel;  /* point into the document */
    char params[256];        /* canonical "k=v,k=v" (keys sorted), "" when none */
    int M, K, N, threads, prepack;
    gb_dtype dtype;          /* "dtype"; f32 in files from before types */
    const char *impl;        /* "impl", the typed kernel's code path; NULL when absent */
    int reps;
    double median_us, min_us, mean_us, stddev_us, gflops;
    double peak_pct;         /* NAN when absent or null */
    double speedup;          /* NAN when absent or null */
    const char *check;       /* pass, fail, skipped */
    double *samples_us;      /* nsamples entries, owned */
    int nsamples;
    /* From "sample_rounds" when the file has it: the median of each round's
     * samples, round_medians[r - 1] for round r (NAN when a round has none
     * of this entry's samples); owned.  NULL and 0 without tags. */
    double *round_medians;
    int nrounds;
    int *sample_rounds;      /* the tags themselves, nsamples entries; owned; NULL without */
    int rounds;              /* "rounds": rounds merged into the entry (1 when absent) */
    /* The cache mode and the roofline (absent in older files: warm, NAN). */
    int cold;                /* "cache": "cold" */
    double intensity, attainable_gflops, roof_pct;
    const char *roof;        /* "compute", "L2", "L3", "memory"; NULL when absent */
    /* A --schedule variant's text, by its hash (schedule.sha256): two
     * texts under one name are two measurements.  NULL for the others. */
    const char *schedule_sha256;
    /* From "round_clocks" when the file has it (absent in older files:
     * NULL and 0): per round, the wall and CPU time of its timed calls, the
     * machine's steal and the involuntary context switches over them
     * (result.h: gb_round_clock), in the file's order, each round once;
     * owned.  gb_entry_round_clock finds a round's, gb_entry_steal sums them. */
    gb_round_clock *round_clocks;
    int nround_clocks;
} gb_entry;

/* A peak measured at one thread count (machine.peak_gflops_by_threads). */
typedef struct gb_peak_at {
    int threads;
    double gflops;
} gb_peak_at;

typedef struct gb_result_file {
    char path[4096];
    cJSON *doc;
    int complete;
    /* The header blocks, for compare's field-by-field header diff; every
     * field the tools read is also below, read once here. */
    const cJSON *tool, *machine, *run;
    /* Strings point into the document; NULL when absent or not a string. */
    const char *cpu_model, *hostname, *peak_isa, *version, *git, *started, *cache;
    const char *cpu_id;      /* "cpu family 26, model 2, stepping 1", or NULL (older files) */
    /* tool.git_commit, git_date (NULL in older files) and git_dirty (0 then). */
    const char *git_commit, *git_date;
    int git_dirty;
    int logical_cpus;        /* 0 when unknown */
    int run_threads;         /* run.threads; 0 when absent (a thread list) */
    int run_rounds;          /* run.rounds; 1 in files from before --rounds */
    double peak_gflops;      /* 0 when null */
    double peak_1thread;     /* 0 when absent or null */
    gb_peak_at *peaks;       /* peak_gflops_by_threads, npeaks entries; owned */
    int npeaks;
    gb_entry *entries;
    int nentries;
    /* The plain baseline entries (variant and label "baseline", a median
     * above 0) sorted by point, for gb_result_file_baseline; owned. */
    const gb_entry **baselines;
    int nbaselines;
} gb_result_file;

/* Loads and validates path.  Returns 0, or -1 with err ("FILE: problem"). */
int gb_result_file_load(const char *path, gb_result_file *f, char *err, size_t errlen);
/* The same from text already read (at most GB_RESULT_FILE_MAX bytes: the
 * caller read it with gb_read_regular); path names it in messages. */
int gb_result_file_parse(const char *path, const char *text, gb_result_file *f, char *err,
                         size_t errlen);
void gb_result_file_free(gb_result_file *f);

/* What makes two entries the same measurement, in files, rounds and runs:
 * the schedule (variant and canonical params), pre-packing, the kernel and
 * its M, K, N, the type, the thread count and the cache mode.  A total order over
 * them (<0, 0, >0) that compare sorts and pairs by; gb_entry_same is its 0. */
int gb_entry_order(const gb_entry *a, const gb_entry *b);
int gb_entry_same(const gb_entry *a, const gb_entry *b);
/* The same point of the sweep, whatever the schedule: kernel, M, K, N,
 * type, threads and cache mode (where a speed-up finds its baseline). */
int gb_entry_same_point(const gb_entry *a, const gb_entry *b);
/* e's label as the analysis tools print it: "onednn" for f32, "onednn [bf16]"
 * for another type, so that the types of one schedule read apart; buf. */
const char *gb_entry_typed_label(const gb_entry *e, char *buf, size_t len);

/* The peak an entry at `threads` is measured against: that count's in a run
 * over a thread list, the run's own at its thread count, the one-thread
 * peak at one thread; 0 when the file has none for that count. */
double gb_result_file_peak(const gb_result_file *f, int threads);
/* The same for an entry of type t: machine.dtype_peaks' figure for bf16
 * and u8s8 (GFLOP/s, GOP/s); 0 when the file has none. */
double gb_result_file_peak_dtype(const gb_result_file *f, gb_dtype t, int threads);
/* The first plain baseline entry of f (in file order) at e's point
 * (gb_entry_same_point), or NULL: a binary search. */
const gb_entry *gb_result_file_baseline(const gb_result_file *f, const gb_entry *e);

/* The clock of e's round (from 1), or NULL when the file has none for it. */
const gb_round_clock *gb_entry_round_clock(const gb_entry *e, int round);

/* What a round's steal means (results/FORMAT.md): a round "ran under steal"
 * when the hypervisor took any CPU time from the machine during its timed
 * calls (steal_s > 0, one tick or more).  Over e's rounds with a known
 * steal: how many (*known), how many ran under steal (*under), and their
 * steal in seconds (*steal_s); all 0 for a file without round clocks. */
void gb_entry_steal(const gb_entry *e, int *known, int *under, double *steal_s);

struct gb_bandwidth;
/* The machine block's bandwidths (machine.h), 0 where a figure is absent:
 * 0, or -1 when the file has no bandwidth block. */
int gb_result_file_bandwidth(const gb_result_file *f, struct gb_bandwidth *out);

/* Reads f's entries again from f->doc (after a change to the document):
 * 0, or -1 with err (f then holds no entries; free it). */
int gb_result_file_reread(gb_result_file *f, char *err, size_t errlen);

/* Folds a later round's file into f (ab: f is a copy of the first round):
 * an entry f has (gb_entry_same) takes the round's samples, tags and
 * rounds through gb_result_merge, the run's own merge, and the writer
 * rewrites its statistics against its peak; a new entry is appended as
 * it is; then every speed-up over baseline is recomputed, and f's entries
 * are read again from the merged document.  0, or -1 with err (f is then
 * as before, or freed on a failure to read it back: check f->doc). */
int gb_result_file_merge(gb_result_file *f, const gb_result_file *round, char *err,
                         size_t errlen);

#endif
