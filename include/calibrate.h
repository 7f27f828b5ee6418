/*
 * calibrate.h - packed's regime choices that no machine report decides,
 * measured on the machine (src/measure/calibrate.c says what and how):
 * once per machine and thread count, outside every timed region, cached in
 * the user's cache directory beside the compiled schedules, and read back
 * by packed's plan (schedules/packed_plan.c).
 *
 * GEMMBENCH_CALIBRATE: unset, the full measurement (a few hundred ms);
 * "quick", the shortest one (the tests' mode); "in_place" or "copied", the
 * answer to every question forced, nothing measured, read or cached.
 */
#ifndef GB_CALIBRATE_H
#define GB_CALIBRATE_H

#include <stddef.h>
#include <stdio.h>

#include "gemmbench.h"
#include "machine.h"

/* The answers' names, "in_place" and "copied" (packed's --param bread and
 * aread); the questions', "b" and "a" (the JSON's). */
extern const char *const gb_read_names[];
extern const char *const gb_calib_question_names[];

/* Whether running v needs the calibration (packed, and what runs packed). */
int gb_calibration_needed(const gb_variant *v);

/* The cache key of machine m at a thread count: CPU model, ISA, every
 * cache's level, type, size and ways, the thread count, and the version
 * of the calibration's method. */
void gb_calibration_key(const gb_machine *m, int threads, char *key, size_t len);
/* Its cache file: DIR/calibration-<first 16 hex digits of the key's
 * SHA-256>.json, DIR being the schedule cache's directory.  0, or -1 with
 * err. */
int gb_calibration_path(const char *key, char *path, size_t len, char *err, size_t errlen);

/* Reads a cache file written for key: 0 and out filled (source "cached");
 * 1 when there is none; -1 when it is refused, err saying why in a few
 * words (corrupt, another key, a newer or older method). */
int gb_calibration_load(const char *path, const char *key, gb_calibration *out, char *err,
                        size_t errlen);
/* Writes c for key to path atomically (a temporary file renamed).  0, or
 * -1 with err. */
int gb_calibration_store(const char *path, const char *key, const gb_calibration *c,
                         char *err, size_t errlen);

/* The measurement at a thread count (quick: the shortest).  0, or -1 with
 * err (out of memory, a failed call). */
int gb_calibration_measure(int threads, int quick, gb_calibration *out, char *err,
                           size_t errlen);

/* What packed's plan uses, without measuring or printing: the forced
 * result, else the cached one, else the default (in place, source
 * "default"). */
void gb_calibration_lookup(const gb_machine *m, int threads, gb_calibration *out);

/* What a run uses: the forced result, else the cached one, else measured
 * now and cached.  A refused cache file is reported in one line on stderr
 * and measured again; a cache that cannot be written is warned about (the
 * run then plans with the default, in place).  Unless quiet, one line
 * says what was measured.  0; -1 with err when GEMMBENCH_CALIBRATE has a
 * value it does not take (an input error); -2 with err when the
 * measurement failed (out of memory). */
int gb_calibration_ensure(const gb_machine *m, int threads, int quiet, gb_calibration *out,
                          char *err, size_t errlen);

/* 0, or -1 with err when GEMMBENCH_CALIBRATE has a value it does not take
 * (checked before anything is measured). */
int gb_calibration_mode_check(char *err, size_t errlen);

/* One line without a newline: a question's answer and its reason
 * ("copied: in place took 1.42x the time of copied (median of 7 rounds,
 * p10-p90 1.30-1.51, on mlp_expand M=16,64 ...), measured"). */
void gb_calibration_describe(const gb_calibration *c, int question, char *buf, size_t len);

/* The shapes the calibration times for a question, as the description
 * names them. */
const char *gb_calibration_shapes(int question);

#endif
