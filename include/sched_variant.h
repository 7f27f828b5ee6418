/*
 * sched_variant.h - schedule files as variants (src/sched/variant.c): each
 * --schedule FILE is the variant sched:STEM, measured, verified, explained
 * and written like a built-in one, with a "schedule" object in its results.
 */
#ifndef GB_SCHED_VARIANT_H
#define GB_SCHED_VARIANT_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "gemmbench.h"
#include "sched_lang.h"

#define GB_SCHED_MAX_FILES 16 /* --schedule files in one run */

/* Loads and checks the schedule at path and adds it as sched:STEM.  The
 * variant, or NULL with err "FILE:LINE: STATEMENT: reason" (a refused
 * schedule: no compiler has run). */
const gb_variant *gb_sched_variant_add(const char *path, char *err, size_t errlen);
int gb_sched_variant_count(void);
const gb_variant *gb_sched_variant_at(int i);

/* The checked nest of schedule variant v (its params: what `tune --schedule`
 * searches), or NULL when v is no schedule. */
const gb_sched *gb_sched_variant_nest(const gb_variant *v);

/* The C of schedule variant v for a shape, with its compile flags in a
 * comment, to out (--emit-c).  0, or -1 with err. */
int gb_sched_emit_c(const gb_variant *v, const gb_params *p, int M, int N, int K, FILE *out,
                    char *err, size_t errlen);

/* A result's "schedule" object (results/FORMAT.md): file, text, sha256,
 * params, and the first build of the shape: compiler, flags, compile_ms,
 * cached.  NULL when v is no schedule or out of memory. */
cJSON *gb_sched_json(const gb_variant *v, const gb_params *p, int M, int N, int K);

#endif
