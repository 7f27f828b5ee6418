/*
 * tuned family - replays what `gemmbench tune` found (the study's
 * MetaSchedule ceiling and its ml_guided fallback idea, in C).
 *
 * tuned        rule_based with the parameters of a tuning record
 * tuned_packed packed with the parameters of a tuning record
 *
 * For a shape, in this order: the record for this very shape, machine and
 * thread count; else the record of the nearest tuned shape (same layer and
 * closest M first); else the base's own rules.  The choice is reported as
 * effective_params.source (record / nearest / rule / unreadable) together
 * with the parameters that ran, and the label says so when it is not a
 * record.  The loop nest is the base variant's: this file only picks its
 * parameters, outside the timed region (prepare).
 */
#define _GNU_SOURCE   /* struct stat's st_mtim under -std=c11 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gemmbench.h"
#include "variants.h"
#include "tuned_records.h"

extern const gb_variant gb_variant_rule_based, gb_variant_packed;

static const char *const source_names[] = { "record", "nearest", "rule", "unreadable", NULL };

/* Reported only (min > max): --param refuses them. */
static const gb_param_spec tuned_params[] = {
    { "source", 1, 0, source_names, "reported: where the parameters came from" },
    { "from_m", 1, 0, NULL, "reported: M of the record used (nearest)" },
    { NULL, 0, 0, NULL, NULL },
};

typedef struct tuned_state {
    const gb_variant *base;
    gb_params params;       /* what the base runs with */
    void *base_state;
} tuned_state;

/* The record file as last read, read again only when another file or a
 * changed one is at the path (tune rewrites it): every tuned measurement and
 * every resolve asks for it, and 60,000 records (11 MB) re-read each time
 * made a two-shape run take over a minute. */
static struct {
    int loaded, rc;
    char path[4096];
    struct stat st;
    gb_tuned_set set;
} cache;

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

const gb_tuned_set *gb_tuned_records(void)
{
    const char *path = gb_tuned_path();
    struct stat st;
    char err[512];

    memset(&st, 0, sizeof st);
    if (stat(path, &st) != 0)
        memset(&st, 0, sizeof st);
    if (cache.loaded && strcmp(cache.path, path) == 0 && same_file(&cache.st, &st))
        return cache.rc == 0 ? &cache.set : NULL;
    gb_tuned_free(&cache.set);
    cache.rc = gb_tuned_load(path, &cache.set, err, sizeof err);
    /* A path too long to keep is read every time, as before. */
    cache.loaded = strlen(path) < sizeof cache.path;
    snprintf(cache.path, sizeof cache.path, "%s", path);
    cache.st = st;
    return cache.rc == 0 ? &cache.set : NULL;
}

/* Picks the base's parameters for a shape; fills *source and *from_m. */
static void choose(const char *base, int M, int N, int K, int threads, gb_params *params,
                   gb_tuned_source *source, int *from_m)
{
    const gb_tuned_set *set = gb_tuned_records();
    char fingerprint[384];
    const gb_tuned_record *rec;
    int exact;

    memset(params, 0, sizeof *params);
    *from_m = 0;
    if (set == NULL) {
        *source = GB_TUNED_UNREADABLE;
        return;
    }
    gb_tuned_fingerprint(threads, fingerprint, sizeof fingerprint);
    rec = gb_tuned_find(set, base, fingerprint, M, K, N, &exact);
    if (rec == NULL) {
        *source = GB_TUNED_RULE;
    } else {
        *params = rec->params;
        *source = exact ? GB_TUNED_RECORD : GB_TUNED_NEAREST;
        *from_m = rec->M;
    }
}

static int tuned_prepare_for(const char *base_name, int M, int N, int K, const float *B,
                             int ldb, const gb_ctx *ctx, int prepack, void **state)
{
    tuned_state *st = calloc(1, sizeof *st);
    gb_tuned_source source;
    int from_m;

    if (st == NULL)
        return -1;
    st->base = gb_variant_find(base_name);
    if (st->base == NULL) {
        free(st);
        return -1;
    }
    choose(base_name, M, N, K, ctx->nthreads, &st->params, &source, &from_m);
    if (st->base->prepare) {
        gb_ctx base_ctx = { ctx->nthreads, &st->params, NULL, ctx->why, ctx->whylen, NULL };
        if (st->base->prepare(M, N, K, B, ldb, &base_ctx, prepack, &st->base_state) != 0) {
            free(st);
            return -1;
        }
    }
    *state = st;
    return 0;
}

static void tuned_release(void *state)
{
    tuned_state *st = state;
    if (st && st->base->release)
        st->base->release(st->base_state);
    free(st);
}

static int tuned_run(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                     float *C, int ldc, const gb_ctx *ctx)
{
    const tuned_state *st = ctx->state;
    gb_ctx base_ctx = { ctx->nthreads, &st->params, st->base_state, NULL, 0, NULL };

    if (st == NULL)
        return -1;
    return st->base->run(M, N, K, A, lda, B, ldb, C, ldc, &base_ctx);
}

static void tuned_resolve_for(const char *base_name, int M, int N, int K, const gb_ctx *ctx,
                              gb_params *effective)
{
    const gb_variant *base = gb_variant_find(base_name);
    gb_params chosen;
    gb_tuned_source source;
    int from_m;

    choose(base_name, M, N, K, ctx->nthreads, &chosen, &source, &from_m);
    memset(effective, 0, sizeof *effective);
    if (base && base->resolve) {
        gb_ctx base_ctx = { ctx->nthreads, &chosen, NULL, NULL, 0, NULL };
        base->resolve(M, N, K, &base_ctx, effective);
    } else {
        *effective = chosen;
    }
    gb_param_set(effective, "source", source);
    if (source == GB_TUNED_NEAREST)
        gb_param_set(effective, "from_m", from_m);
}

static int tuned_rule_prepare(int M, int N, int K, const float *B, int ldb, const gb_ctx *ctx,
                              int prepack, void **state)
{
    return tuned_prepare_for("rule_based", M, N, K, B, ldb, ctx, prepack, state);
}

static void tuned_rule_resolve(int M, int N, int K, const gb_ctx *ctx, gb_params *effective)
{
    tuned_resolve_for("rule_based", M, N, K, ctx, effective);
}

static int tuned_packed_prepare(int M, int N, int K, const float *B, int ldb,
                                const gb_ctx *ctx, int prepack, void **state)
{
    return tuned_prepare_for("packed", M, N, K, B, ldb, ctx, prepack, state);
}

static void tuned_packed_resolve(int M, int N, int K, const gb_ctx *ctx, gb_params *effective)
{
    tuned_resolve_for("packed", M, N, K, ctx, effective);
}

const gb_variant gb_variant_tuned = {
    .name = "tuned",
    .family = "tuned",
    .description = "rule_based with the parameters `gemmbench tune` recorded for the shape",
    .run = tuned_run,
    .params = tuned_params,
    .prepare = tuned_rule_prepare,
    .release = tuned_release,
    .resolve = tuned_rule_resolve,
    .base = &gb_variant_rule_based,
};

const gb_variant gb_variant_tuned_packed = {
    .name = "tuned_packed",
    .family = "tuned",
    .description = "packed with the parameters `gemmbench tune --variant packed` recorded",
    .run = tuned_run,
    .params = tuned_params,
    .prepare = tuned_packed_prepare,
    .release = tuned_release,
    .resolve = tuned_packed_resolve,
    .supports_prepack = 1,
    .base = &gb_variant_packed,
};
