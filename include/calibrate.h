/*
 * calibrate.h - packed's calibration measured (src/measure/calibrate.c):
 * how packed reads an operand whose rows are a page or more apart, once
 * per machine and thread count, outside every timed region, cached
 * (calibration.h) beside the compiled schedules and read back by packed's
 * plan.  What is asked and how answers read: machine.h.
 *
 * GEMMBENCH_CALIBRATE: unset, the full measurement (about a second);
 * "quick", the shortest one (the tests' mode); "in_place" or "copied", the
 * answer to every question forced, nothing measured, read or cached.
 */
#ifndef GB_CALIBRATE_H
#define GB_CALIBRATE_H

#include <stddef.h>

#include "gemmbench.h"
#include "machine.h"

/* Whether running v needs the calibration (packed, and what runs packed). */
int gb_calibration_needed(const gb_variant *v);

/* The measurement at a thread count (quick: the shortest).  0, or -1 with
 * err (out of memory, a failed call). */
int gb_calibration_measure(int threads, int quick, gb_calibration *out, char *err,
                           size_t errlen);

/* The answers measured so far (measured[c] nonzero: out's answer c) that
 * question q runs under, as packed's params ("kcplaces=off,bprefetch=l2,"):
 * kcplaces, bprefetch, bfar and bcopy, those q's own params do not fix. */
void gb_calibration_context(int q, const gb_calibration *out, const int *measured,
                            char *context, size_t len);

/* Whether question q's two answers, each with context's params before its
 * own ("kcplaces=off," or ""), make the same plan at both of its shapes
 * on this machine and thread count: every effective param of packed's
 * (its resolve) equal.  1 yes, 0 no, -1 with err when a param set does not
 * parse. */
int gb_calibration_same_plan(int q, int threads, const char *context, char *err, size_t errlen);

/* What a run uses: the forced answers, else the cached ones, else measured
 * now and cached.  A refused cache file is reported in one line on stderr
 * and measured again; a cache that cannot be written is warned about (the
 * run then plans with the default, in place).  Unless quiet, one line per
 * question says what was measured.  0; -1 with err when
 * GEMMBENCH_CALIBRATE has a value it does not take (an input error); -2
 * with err when the measurement failed (out of memory). */
int gb_calibration_ensure(const gb_machine *m, int threads, int quiet, gb_calibration *out,
                          char *err, size_t errlen);

#endif
