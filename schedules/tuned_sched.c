/*
 * tuned family - tuned_sched: replays the schedule `gemmbench tune --space`
 * found for the shape (a structure search's winner, a schedule text).
 *
 * For a shape, in this order: the record for this very shape, machine and
 * thread count; else the record of the nearest searched shape (same layer and
 * closest M first), its schedule compiled for this shape; else rule_based
 * with its own rules.  A record with an empty schedule says that rule_based
 * beat every schedule the search found: rule_based runs.  bf16 and u8s8 run
 * the records of `tune --space --dtype` (their fingerprint ends in the
 * type) the same way, packed's kernel of the type in rule_based's place.  The choice is reported as effective_params.source, as
 * `tuned` reports it, and a result of a record carries the schedule's JSON
 * object (its text and sha256), so that compare and ab never pair two
 * different schedules under this one name.  The text was checked when the
 * record file was read, and is checked again here before it is lowered.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "gemmbench.h"
#include "parse.h"
#include "sched_lang.h"
#include "sched_variant.h"
#include "tuned_records.h"
#include "variants.h"

extern const gb_variant gb_variant_rule_based, gb_variant_packed;

static const char *const source_names[] = { "record", "nearest", "rule", "unreadable", NULL };

/* Reported only (min > max): --param refuses them. */
static const gb_param_spec tuned_sched_params[] = {
    { "source", 1, 0, source_names, "reported: where the schedule came from" },
    { "from_m", 1, 0, NULL, "reported: M of the record used (nearest)" },
    { NULL, 0, 0, NULL, NULL },
};

typedef struct sched_state {
    int from_record;          /* 1: a record's schedule, else rule_based */
    void *state;              /* gb_sched_state_* or rule_based's */
} sched_state;

/* What each (shape, threads) ran, for the JSON and --explain: the last
 * prepare's choice. */
typedef struct replayed {
    int M, N, K, threads;
    gb_dtype t;
    gb_tuned_source source;
    int from_m;
    char *text;               /* the record's schedule (owned), or NULL */
    char space[256], tuned_at[32];
    double median_us, rule_median_us;
    gb_sched_built build;
} replayed;

#define MAX_REPLAYED 256
static replayed played[MAX_REPLAYED];
static int nplayed;

static int nest_of(const gb_tuned_record *rec, gb_sched *nest, char *why, size_t whylen);

/* Whether a record's schedule resolves for M x N x K on threads threads
 * (its tiles and packs within their limits at this size; the model's
 * blocks depend on the thread count). */
static int fits(const gb_tuned_record *rec, int M, int N, int K, int threads)
{
    static const gb_params none;
    gb_sched nest;
    gb_sched_plan *pl = NULL;
    char why[512];

    if (nest_of(rec, &nest, why, sizeof why) == 0)
        pl = gb_sched_plan_for(&nest, &none, M, N, K, threads, why, sizeof why);
    gb_sched_plan_free(pl);
    return pl != NULL;
}

/* The record of type t for a shape, or NULL; *source says where the
 * schedule comes from.  The nearest shape's schedule that does not fit
 * this shape is passed over for rule_based (another type: packed), as when
 * there is no record (SCHED.md). */
static const gb_tuned_record *choose_typed(gb_dtype t, int M, int N, int K, int threads,
                                           gb_tuned_source *source)
{
    const gb_tuned_set *set = gb_tuned_records();
    char fingerprint[384];
    const gb_tuned_record *rec;
    int exact;

    if (set == NULL) {
        *source = GB_TUNED_UNREADABLE;
        return NULL;
    }
    gb_tuned_fingerprint_dtype(threads, t, fingerprint, sizeof fingerprint);
    rec = gb_tuned_find(set, GB_TUNED_SCHED_BASE, fingerprint, M, K, N, &exact);
    if (rec != NULL && !exact && rec->schedule[0] != '\0' && !fits(rec, M, N, K, threads))
        rec = NULL;
    *source = rec == NULL ? GB_TUNED_RULE : exact ? GB_TUNED_RECORD : GB_TUNED_NEAREST;
    return rec;
}

static const gb_tuned_record *choose(int M, int N, int K, int threads, gb_tuned_source *source)
{
    return choose_typed(GB_DTYPE_F32, M, N, K, threads, source);
}

static replayed *slot_for(gb_dtype t, int M, int N, int K, int threads)
{
    for (int i = 0; i < nplayed; i++)
        if (played[i].M == M && played[i].N == N && played[i].K == K &&
            played[i].threads == threads && played[i].t == t)
            return &played[i];
    if (nplayed == MAX_REPLAYED)
        return NULL;
    played[nplayed] = (replayed){ .M = M, .N = N, .K = K, .threads = threads, .t = t };
    return &played[nplayed++];
}

/* Notes what a shape ran (a failure to note only costs the JSON object). */
static void note(gb_dtype t, int M, int N, int K, int threads, gb_tuned_source source,
                 const gb_tuned_record *rec, const gb_sched_so *build)
{
    replayed *p = slot_for(t, M, N, K, threads);

    if (p == NULL)
        return;
    free(p->text);
    p->text = rec && rec->schedule[0] ? strdup(rec->schedule) : NULL;
    p->source = source;
    p->from_m = rec ? rec->M : 0;
    snprintf(p->space, sizeof p->space, "%s", rec && rec->space ? rec->space : "");
    snprintf(p->tuned_at, sizeof p->tuned_at, "%s", rec ? rec->tuned_at : "");
    p->median_us = rec ? rec->median_us : 0.0;
    p->rule_median_us = rec ? rec->rule_median_us : 0.0;
    if (build)
        gb_sched_built_from(&p->build, build);
}

/* The record's text as a nest: 0, or -1 with why. */
static int nest_of(const gb_tuned_record *rec, gb_sched *nest, char *why, size_t whylen)
{
    return gb_sched_from_text(gb_tuned_path(), rec->schedule, strlen(rec->schedule), nest, why,
                              whylen);
}

static void say(const gb_ctx *ctx, const char *why)
{
    if (ctx->why && ctx->whylen)
        snprintf(ctx->why, ctx->whylen, "%s", why);
}

static int tuned_sched_prepare(int M, int N, int K, const float *B, int ldb, const gb_ctx *ctx,
                               int prepack, void **state)
{
    static gb_sched nest;
    static const gb_params none;
    sched_state *st = calloc(1, sizeof *st);
    gb_tuned_source source;
    const gb_tuned_record *rec = choose(M, N, K, ctx->nthreads, &source);
    char why[512];
    gb_sched_so build;

    if (st == NULL)
        return -1;
    if (rec != NULL && rec->schedule[0] != '\0') {
        if (nest_of(rec, &nest, why, sizeof why) != 0 ||
            gb_sched_state_make(&nest, &none, M, N, K, ctx->nthreads, &st->state, &build, why,
                                sizeof why) != 0) {
            char line[600];
            snprintf(line, sizeof line, "the record of %dx%dx%d: %s", rec->M, rec->K, rec->N,
                     why);
            say(ctx, line);
            free(st);
            return -1;
        }
        st->from_record = 1;
        note(GB_DTYPE_F32, M, N, K, ctx->nthreads, source, rec, &build);
    } else {
        gb_ctx base = { ctx->nthreads, &none, NULL, ctx->why, ctx->whylen, NULL };
        if (gb_variant_rule_based.prepare &&
            gb_variant_rule_based.prepare(M, N, K, B, ldb, &base, prepack, &st->state) != 0) {
            free(st);
            return -1;
        }
        note(GB_DTYPE_F32, M, N, K, ctx->nthreads, source, rec, NULL); /* rule_based's win, or NULL */
    }
    *state = st;
    return 0;
}

static void tuned_sched_release(void *state)
{
    sched_state *st = state;

    if (st == NULL)
        return;
    if (st->from_record)
        gb_sched_state_free(st->state);
    else if (gb_variant_rule_based.release)
        gb_variant_rule_based.release(st->state);
    free(st);
}

static int tuned_sched_run(int M, int N, int K, const float *A, int lda, const float *B,
                           int ldb, float *C, int ldc, const gb_ctx *ctx)
{
    static const gb_params none;
    const sched_state *st = ctx->state;
    gb_ctx inner = { ctx->nthreads, &none, NULL, NULL, 0, NULL };

    if (st == NULL)
        return -1;
    inner.state = st->state;
    if (st->from_record)
        return gb_sched_state_run(M, N, K, A, lda, B, ldb, C, ldc, &inner);
    return gb_variant_rule_based.run(M, N, K, A, lda, B, ldb, C, ldc, &inner);
}

static void tuned_sched_resolve(int M, int N, int K, const gb_ctx *ctx, gb_params *effective)
{
    gb_tuned_source source;
    const gb_tuned_record *rec = choose(M, N, K, ctx->nthreads, &source);

    memset(effective, 0, sizeof *effective);
    gb_param_set(effective, "source", source);
    if (source == GB_TUNED_NEAREST)
        gb_param_set(effective, "from_m", rec->M);
}

static void tuned_sched_explain(FILE *out, int M, int N, int K, const gb_ctx *ctx)
{
    static const gb_params none;
    gb_sched nest;
    gb_sched_plan *pl;
    gb_tuned_source source;
    const gb_tuned_record *rec = choose(M, N, K, ctx->nthreads, &source);
    char why[512], path[256], space[256], tuned_at[256]; /* as messages show them */

    if (rec == NULL) {
        fprintf(out, "tuned_sched  M=%d K=%d N=%d\n  no record of `tune --space` for this "
                "machine at %d thread(s)%s: rule_based with its own rules\n", M, K, N,
                ctx->nthreads, source == GB_TUNED_UNREADABLE ? " (the record file is unreadable)"
                                                              : "");
        return;
    }
    gb_printable(gb_tuned_path(), 200, path, sizeof path);
    gb_printable(rec->space && rec->space[0] ? rec->space : "?", 200, space, sizeof space);
    gb_printable(rec->tuned_at, 60, tuned_at, sizeof tuned_at);
    fprintf(out, "tuned_sched  M=%d K=%d N=%d\n  %s of %dx%dx%d in %s (space %s, tuned %s: "
            "%.1f us against rule_based's %.1f us)\n", M, K, N,
            source == GB_TUNED_RECORD ? "the record" : "the record of the nearest shape",
            rec->M, rec->K, rec->N, path, space, tuned_at, rec->median_us, rec->rule_median_us);
    if (rec->schedule[0] == '\0') {
        fprintf(out, "  rule_based won that search (no schedule beat it when measured again): "
                "rule_based with its own rules\n");
        return;
    }
    if (nest_of(rec, &nest, why, sizeof why) != 0 ||
        (pl = gb_sched_plan_for(&nest, &none, M, N, K, ctx->nthreads, why, sizeof why)) == NULL) {
        fprintf(out, "  %s\n", why);
        return;
    }
    gb_sched_explain(out, "tuned_sched", pl);
    gb_sched_plan_free(pl);
}

int gb_tuned_sched_compiles(int M, int N, int K, int threads)
{
    gb_tuned_source source;
    const gb_tuned_record *rec = choose(M, N, K, threads, &source);

    return rec != NULL && rec->schedule[0] != '\0';
}

cJSON *gb_tuned_sched_json(gb_dtype t, int M, int N, int K, int threads)
{
    const replayed *p = NULL;
    cJSON *o;

    for (int i = 0; i < nplayed; i++)
        if (played[i].M == M && played[i].N == N && played[i].K == K &&
            played[i].threads == threads && played[i].t == t)
            p = &played[i];
    if (p == NULL || p->text == NULL ||
        (o = gb_sched_json_object(gb_tuned_path(), p->text, NULL, NULL, 0, 0, 0, 0, &p->build)) == NULL)
        return NULL;
    cJSON_AddStringToObject(o, "space", p->space);
    cJSON_AddStringToObject(o, "tuned_at", p->tuned_at);
    return o;
}

/* ---- bf16 and u8s8: the records of tune --space --dtype ------------------------ */

/* A typed record's schedule, or packed's kernel of the type where there is
 * none (or packed won that search): what prepare chose, for run and impl. */
typedef struct typed_state {
    gb_sched_typed_pick pick;
    gb_tuned_source source;
    int from_m;
} typed_state;

static int typed_prepare(gb_dtype t, int M, int N, int K, const void *B, int ldb,
                         const gb_ctx *ctx, int prepack, void **state)
{
    static gb_sched nest;
    static const gb_params none;
    typed_state *st = calloc(1, sizeof *st);
    const gb_tuned_record *rec;
    char why[512];

    if (st == NULL)
        return -1;
    rec = choose_typed(t, M, N, K, ctx->nthreads, &st->source);
    st->from_m = rec ? rec->M : 0;
    if (rec != NULL && rec->schedule[0] != '\0') {
        char line[700];
        gb_sched_so build;
        if (nest_of(rec, &nest, why, sizeof why) == 0 && nest.dtype != t)
            snprintf(why, sizeof why, "its schedule states type %s, not %s",
                     gb_dtype_name(nest.dtype), gb_dtype_name(t));
        else if (nest_of(rec, &nest, why, sizeof why) == 0 &&
                 gb_sched_state_make(&nest, &none, M, N, K, ctx->nthreads, &st->pick.state,
                                     &build, why, sizeof why) == 0) {
            note(t, M, N, K, ctx->nthreads, st->source, rec, &build);
            *state = st;
            return 0;
        }
        snprintf(line, sizeof line, "the %s record of %dx%dx%d: %s", gb_dtype_name(t), rec->M,
                 rec->K, rec->N, why);
        say(ctx, line);
        free(st);
        return -1;
    }
    note(t, M, N, K, ctx->nthreads, st->source, rec, NULL); /* packed's win, or none */
    if (gb_sched_pick_packed(&st->pick, gb_variant_packed.typed[t], M, N, K, B, ldb, ctx,
                             prepack) != 0) {
        free(st);
        return -1;
    }
    *state = st;
    return 0;
}

static int typed_run(int M, int N, int K, const void *A, int lda, const void *B, int ldb,
                     void *C, int ldc, const gb_ctx *ctx)
{
    const typed_state *st = ctx->state;

    return st == NULL ? -1 : gb_sched_pick_run(&st->pick, M, N, K, A, lda, B, ldb, C, ldc, ctx);
}

static void typed_release(void *state)
{
    typed_state *st = state;

    if (st == NULL)
        return;
    gb_sched_pick_release(&st->pick);
    free(st);
}

/* Which code ran: "record: dot: vpdpbusd", "nearest (M=64): widened to
 * f32", or "packed: avx512_vnni" where no record (or packed's win) ran. */
static void typed_impl(int M, int N, int K, const gb_ctx *ctx, char *buf, size_t len)
{
    const typed_state *st = ctx->state;
    char prefix[32];

    if (st == NULL) {
        snprintf(buf, len, "%s", "");
        return;
    }
    if (st->source == GB_TUNED_NEAREST)
        snprintf(prefix, sizeof prefix, "nearest (M=%d): ", st->from_m);
    else
        snprintf(prefix, sizeof prefix, "record: ");
    gb_sched_pick_impl(&st->pick, prefix, M, N, K, ctx, buf, len);
}

static int typed_prepare_bf16(int M, int N, int K, const void *B, int ldb, const gb_ctx *ctx,
                              int prepack, void **state)
{
    return typed_prepare(GB_DTYPE_BF16, M, N, K, B, ldb, ctx, prepack, state);
}

static int typed_prepare_u8s8(int M, int N, int K, const void *B, int ldb, const gb_ctx *ctx,
                              int prepack, void **state)
{
    return typed_prepare(GB_DTYPE_U8S8, M, N, K, B, ldb, ctx, prepack, state);
}

static const gb_typed_kernel tuned_sched_typed[GB_DTYPE_COUNT] = {
    [GB_DTYPE_BF16] = { .run = typed_run, .prepare = typed_prepare_bf16,
                        .release = typed_release, .impl = typed_impl },
    [GB_DTYPE_U8S8] = { .run = typed_run, .prepare = typed_prepare_u8s8,
                        .release = typed_release, .impl = typed_impl },
};

const gb_variant gb_variant_tuned_sched = {
    .name = "tuned_sched",
    .family = "tuned",
    .description = "the schedule `gemmbench tune --space` recorded for the shape (a schedule "
                   "text, compiled at run time)",
    .run = tuned_sched_run,
    .params = tuned_sched_params,
    .prepare = tuned_sched_prepare,
    .release = tuned_sched_release,
    .resolve = tuned_sched_resolve,
    .explain = tuned_sched_explain,
    .base = &gb_variant_rule_based,
    .typed = { [GB_DTYPE_BF16] = &tuned_sched_typed[GB_DTYPE_BF16],
               [GB_DTYPE_U8S8] = &tuned_sched_typed[GB_DTYPE_U8S8] },
};
