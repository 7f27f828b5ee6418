/*
 * resultfile.h - reading a gemmbench/1 JSON result file back (for compare,
 * report and plots), validated field by field: every problem is one message
 * naming the file and what is wrong.
 */
#ifndef GB_RESULTFILE_H
#define GB_RESULTFILE_H

#include <cjson/cJSON.h>
#include <stddef.h>

typedef struct gb_entry {
    const char *variant, *label, *family, *kernel;  /* point into the document */
    char params[256];        /* canonical "k=v,k=v" (keys sorted), "" when none */
    int M, K, N, threads, prepack;
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
    /* The cache mode and the roofline (absent in older files: warm, NAN). */
    int cold;                /* "cache": "cold" */
    double intensity, attainable_gflops, roof_pct;
    const char *roof;        /* "compute", "L2", "L3", "memory"; NULL when absent */
} gb_entry;

typedef struct gb_result_file {
    char path[4096];
    cJSON *doc;
    int complete;
    const cJSON *tool, *machine, *run;
    double peak_gflops;      /* 0 when null */
    gb_entry *entries;
    int nentries;
} gb_result_file;

/* Loads and validates path.  Returns 0, or -1 with err ("FILE: problem"). */
int gb_result_file_load(const char *path, gb_result_file *f, char *err, size_t errlen);
void gb_result_file_free(gb_result_file *f);

#endif
