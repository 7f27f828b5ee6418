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
#include "sched_build.h"
#include "sched_lang.h"

#define GB_SCHED_MAX_FILES 16 /* --schedule files in one run */
#define GB_SCHED_MAX_STEM 40  /* characters of a file name without .sched */

/* Loads and checks the schedule at path and adds it as sched:STEM.  The
 * variant, or NULL with err "FILE:LINE: STATEMENT: reason" (a refused
 * schedule: no compiler has run). */
const gb_variant *gb_sched_variant_add(const char *path, char *err, size_t errlen);
/* The same for a schedule given as text (a search's candidate, a tuning
 * record's): it becomes sched:STEM, file naming it in messages and in the
 * JSON's "file". */
const gb_variant *gb_sched_variant_text(const char *stem, const char *file, const char *text,
                                        char *err, size_t errlen);
/* Gives schedule variant v another text (checked first; v unchanged when it
 * is refused): the search measures its candidates through one variant.
 * 0, or -1 with err. */
int gb_sched_variant_retext(const gb_variant *v, const char *file, const char *text, char *err,
                            size_t errlen);
/* The last build prepare() made for schedule variant v: its compiler's
 * wall time and whether it came from the cache.  0, or -1 when none. */
int gb_sched_variant_last_build(const gb_variant *v, double *compile_ms, int *cached);
/* The text of schedule variant v, or NULL when v is no schedule. */
const char *gb_sched_variant_source(const gb_variant *v);
int gb_sched_variant_count(void);
const gb_variant *gb_sched_variant_at(int i);

/* The checked nest of schedule variant v (its params: what `tune --schedule`
 * searches), or NULL when v is no schedule. */
const gb_sched *gb_sched_variant_nest(const gb_variant *v);

/* The C of schedule variant v for a shape, with its compile flags in a
 * comment, to out (--emit-c).  0, or -1 with err. */
int gb_sched_emit_c(const gb_variant *v, const gb_params *p, int M, int N, int K, FILE *out,
                    char *err, size_t errlen);

/* What one build of a schedule did, as a result's "schedule" object says. */
typedef struct gb_sched_built {
    char compiler[256];
    char flags[512];
    double compile_ms;
    int cached;
} gb_sched_built;
void gb_sched_built_from(gb_sched_built *out, const gb_sched_so *so);

/* The one writer of a result's "schedule" object (results/FORMAT.md):
 * file, text, its sha256, params (each of nest's at its value in p for M x N
 * x K on nthreads threads, a model's the model's there; an
 * empty object without a nest) and, when built is not NULL, compiler,
 * flags, compile_ms, cached.  A caller adds what is its own (tuned_sched:
 * space, tuned_at).  NULL when out of memory. */
cJSON *gb_sched_json_object(const char *file, const char *text, const gb_sched *nest,
                            const gb_params *p, int M, int N, int K, int nthreads,
                            const gb_sched_built *built);
/* That object for schedule variant v, with the first build of the shape.
 * NULL when v is no schedule or out of memory. */
cJSON *gb_sched_json(const gb_variant *v, const gb_params *p, int M, int N, int K,
                     int nthreads);

/* A nest compiled for one shape, as a schedule variant's prepare() makes it:
 * resolved with params, lowered, built (cache first) and loaded, with its
 * pack buffers.  *state is for gb_sched_state_run (as ctx->state) and
 * gb_sched_state_free; built (may be NULL) gets what the build did.  0, or
 * -1 with why.  tuned_sched replays a record's schedule through these. */
int gb_sched_state_make(const gb_sched *nest, const gb_params *params, int M, int N, int K,
                        int nthreads, void **state, gb_sched_so *built, char *why,
                        size_t whylen);
/* The same for a schedule of another type (its kernel's signature is the
 * typed one of gemmbench.h); and which form it took ("dot: vpdpbusd",
 * "widened to f32"; "" for f32). */
int gb_sched_state_run_typed(int M, int N, int K, const void *A, int lda, const void *B,
                             int ldb, void *C, int ldc, const gb_ctx *ctx);
const char *gb_sched_state_impl(const void *state);
int gb_sched_state_run(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                       float *C, int ldc, const gb_ctx *ctx);
void gb_sched_state_free(void *state);

/* What a variant that replays a chosen schedule runs in bf16 or u8s8
 * (tuned_sched's record, ml_guided's pick): the schedule's compiled state
 * (gb_sched_state_make), or, where it has none to run, packed's kernel of
 * the type (rule_based runs f32 alone).  Each variant keeps one in its own
 * state beside what its impl says. */
typedef struct gb_sched_typed_pick {
    const gb_typed_kernel *packed; /* NULL: state is the schedule's */
    void *state;
} gb_sched_typed_pick;
/* Packed's kernel k of the type into p, prepared for the shape.  0, or -1. */
int gb_sched_pick_packed(gb_sched_typed_pick *p, const gb_typed_kernel *k, int M, int N, int K,
                         const void *B, int ldb, const gb_ctx *ctx, int prepack);
int gb_sched_pick_run(const gb_sched_typed_pick *p, int M, int N, int K, const void *A, int lda,
                      const void *B, int ldb, void *C, int ldc, const gb_ctx *ctx);
void gb_sched_pick_release(gb_sched_typed_pick *p);
/* Which code ran: "packed: " and packed's own impl, or the schedule's form
 * ("dot: vpdpbusd", "widened to f32") after prefix. */
void gb_sched_pick_impl(const gb_sched_typed_pick *p, const char *prefix, int M, int N, int K,
                        const gb_ctx *ctx, char *buf, size_t len);

#endif
