/*
 * calibration.h - the cache of packed's calibration
 * (schedules/packed_calibration.c), read by packed's plan without
 * measuring; src/measure/calibrate.c (calibrate.h) measures and writes it.
 * What is asked, the key and the descriptions: machine.h.
 */
#ifndef GB_CALIBRATION_H
#define GB_CALIBRATION_H

#include <stddef.h>

#include "machine.h"

/* The cache file of a key: DIR/calibration-<first 16 hex digits of the
 * key's SHA-256>.json, DIR being the schedule cache's directory.  0, or -1
 * with err. */
int gb_calibration_path(const char *key, char *path, size_t len, char *err, size_t errlen);

/* Reads a cache file written for key, a regular file of a few hundred
 * bytes in strict JSON (inputfile.h): 0 and out filled (source "cached");
 * 1 when there is none; -1 when it is refused, err saying why in a few
 * words ("corrupt: ...", "stale: ..."), to be measured again and replaced;
 * 2 when something else is at the path (a FIFO, device, socket or
 * directory: nothing read, nothing waited for), err saying which: no cache
 * can be kept there, and it is left alone. */
int gb_calibration_load(const char *path, const char *key, gb_calibration *out, char *err,
                        size_t errlen);
/* Writes c for key to path atomically (a temporary file renamed).  0, or
 * -1 with err. */
int gb_calibration_store(const char *path, const char *key, const gb_calibration *c,
                         char *err, size_t errlen);

/* What packed's plan uses, without measuring or printing: the forced
 * answers (GEMMBENCH_CALIBRATE=in_place or copied), else the cached ones,
 * else the default (in place, source "default"). */
void gb_calibration_lookup(const gb_machine *m, int threads, gb_calibration *out);

#endif
