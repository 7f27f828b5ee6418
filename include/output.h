/* output.h - the result file (JSON, schema gemmbench/1; results/FORMAT.md). */
#ifndef GB_OUTPUT_H
#define GB_OUTPUT_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "result.h"
#include "machine.h"
#include "sweep.h"

#define GB_SCHEMA "gemmbench/1"

/* The check column's word: pass, FAIL, skip (pass~ for a tolerance check). */
const char *gb_check_word(const gb_result *r);

/* The document without results; NULL when out of memory. */
cJSON *gb_json_begin(const gb_machine *m, const gb_options *o, int threads,
                     const char *started, int argc, char **argv);
/* tool.libraries.VARIANT: a reference library of this build, its version,
 * the kernels it chose in this process and the variable that forced them
 * (gb_library, as the variant reports it).  0, or -1 (out of memory). */
int gb_json_add_library(cJSON *doc, const char *variant, const gb_library *lib);
/* tool.libraries.VARIANT.impl.TYPE: the implementations the library ran
 * for type t (oneDNN's "brg:avx512_core_bf16"), each once.  0 (also when
 * the variant has no libraries entry), or -1 out of memory. */
int gb_json_add_library_impl(cJSON *doc, const char *variant, gb_dtype t, const char *impl);
/* Parameters as a JSON object: numbers, and choices by name (v's spec;
 * v may be NULL, then all are numbers). */
cJSON *gb_params_json(const gb_variant *v, const gb_params *p);
/* A result's timing fields (median_us ... mad_us, gflops, peak_pct; peak_pct
 * null when NAN), set in place or added: the run writes them, and gemmbench ab
 * rewrites them after merging a round's samples. */
void gb_json_put_timing(cJSON *o, const gb_stats *st, double gflops, double peak_pct);
/* A result's samples after a merge (gb_result_merge): reps, rounds,
 * samples_us, sample_rounds and the timing fields, peak_pct against peak
 * (unknown when 0), set in place in o.  0 or -1 (out of memory). */
int gb_json_put_samples(cJSON *o, const gb_result *r, double peak);
/* speedup_vs_baseline, null when NAN. */
void gb_json_put_speedup(cJSON *o, double speedup);
/* results[index], or NULL. */
cJSON *gb_json_result_at(cJSON *doc, int index);
/* Appends a copy of another document's result as it is; 0 or -1. */
int gb_json_append_copy(cJSON *doc, const cJSON *result);
/* Appends one result; 0 or -1 (out of memory). */
int gb_json_add_result(cJSON *doc, const gb_result *r);
/* Replaces result number index, or appends when index is the array's size
 * (--rounds: an entry grows by one round at a time); 0 or -1. */
int gb_json_set_result(cJSON *doc, int index, const gb_result *r);
/* Writes text to path through a temporary file in the same folder,
 * fsync'd and renamed over it (a reader never sees half of it, a crash
 * leaves the old file): the one such writer of src/files.  0, or -1 with err. */
int gb_write_file_atomic(const char *path, const char *text, size_t len, char *err,
                         size_t errlen);
/* Sets "complete" (where doc has one) and writes doc to path through a
 * temporary file in the same directory and rename(2), so a reader never
 * sees half a file.  Returns 0, or -1 with err. */
int gb_json_write_atomic(cJSON *doc, const char *path, int complete, char *err, size_t errlen);

/* A run over several thread counts: run.thread_counts and, in the machine
 * block, peak_gflops_by_threads ({threads, gflops} per count).  0 or -1. */
int gb_json_add_thread_counts(cJSON *doc, const int *counts, const double *peaks, int n);
/* machine.dtype_peaks.TYPE.by_threads: type t's peak at each count (after
 * gb_json_begin wrote dtype_peaks).  0, or -1. */
int gb_json_add_dtype_thread_peaks(cJSON *doc, gb_dtype t, const int *counts,
                                   const double *peaks, int n);
/* Appends {variant, dtype, reason} to the top-level "skipped" array: a
 * variant the run selected that does not run a type it asked for.  0, or -1. */
int gb_json_add_skipped(cJSON *doc, const char *variant, gb_dtype t, const char *reason);
/* run.openmp.bind: the policy and its variables, and where the threads of
 * each count ran (gb_bind_probe).  0 or -1. */
int gb_json_add_bind(cJSON *doc, const gb_bind_state *s, const int *counts, int n);
/* results[index].bind = policy (after gb_json_set_result).  0 or -1. */
int gb_json_set_bind(cJSON *doc, int index, const char *policy);

#endif
