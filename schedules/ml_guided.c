/*
 * ml_guided - the study's fourth paradigm: a learned model picks the
 * schedule, with no measured trial at run time.
 *
 * For a shape: DRAWS points of the space the model carries (its own point
 * and points one to four choices from it, each shape its own fixed
 * sequence) and the fastest trials of each shape the model was trained on
 * (its elites, as they stand), every one
 * checked and planned for the shape, none compiled (nor one whose parallel
 * loop leaves threads idle: gb_features_idle_threads); their features
 * (sched_features.h) ranked by the model (learn.h); the best predicted
 * compiled, run once against rule_based on exact operands, then timed and
 * verified as every variant is.  A candidate that fails to compile or to verify gives way to the
 * next of the TRY best; when none is left, or there is no model to rank with
 * (none given, `--model none`, a build without XGBoost, a model of another
 * kind of machine), rule_based runs with its own rules.  Which one ran and
 * why is effective_params.source and .why; --explain prints the chosen nest
 * and its predicted time.  The analytic point (the first draw) is kept
 * unless the best predicted beats it by 1.15x, and, at a shape outside the
 * M range the model was trained on, by more than the model's error there
 * (the guard).
 * bf16 and u8s8 (--dtype): the typed space's points and that type's
 * elites, the pick checked against packed's kernel of the type, which runs
 * where there is no pick.  src/learn/LEARN.md says the rest.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gemmbench.h"
#include "learn.h"
#include "ml_guided.h"
#include "parse.h"
#include "sched_space.h"
#include "sched_variant.h"
#include "sweep.h"
#include "variants.h"

extern const gb_variant gb_variant_rule_based;

/* Points drawn per shape (duplicates ranked once).  Checking,
 * planning and featurizing one takes about 0.1 ms, so ranking costs tens of
 * milliseconds per shape, once. */
#define DRAWS 1024
#define TRY 3              /* the best predicted tried in turn */
#define MAX_CHOICES 256    /* (shape, threads) pairs remembered */

static const char *const source_names[] = { "model", "rule", NULL };
enum { SOURCE_MODEL, SOURCE_RULE };
static const char *const why_names[] = { "none", "no_model", "model_none", "no_xgboost",
                                         "other_machine", "no_candidate", "compile_failed",
                                         "verify_failed", "no_time", "no_type", "other_type",
                                         NULL };
enum { WHY_NONE, WHY_NO_MODEL, WHY_MODEL_NONE, WHY_NO_XGBOOST, WHY_OTHER_MACHINE,
       WHY_NO_CANDIDATE, WHY_COMPILE_FAILED, WHY_VERIFY_FAILED, WHY_NO_TIME, WHY_NO_TYPE,
       WHY_OTHER_TYPE };
static const char *const why_text[] = {
    "", "no model given (--model FILE, or bench.conf's model)", "--model none",
    "built without XGBoost (libxgboost-dev)", "the model is of another kind of machine",
    "no candidate of the space is legal for this shape",
    "the best predicted candidates failed to compile",
    "the best predicted candidates failed verification",
    "the model predicts no time for this shape's candidates (not finite and positive, or "
    "over its bound)",
    "the model was trained on no trial of this type (tune --space ... --dtype T --database)",
    "the model's space states another type",
};

/* The guard (src/learn/LEARN.md): the best predicted runs only when its
 * predicted gain over the analytic point is at least GB_GUARD_MIN_GAIN and,
 * at the edge, exceeds the model's error out of sample for such a shape;
 * else the analytic point is kept. */
static const char *const guard_names[] = { "beats", "kept", "inside", "analytic", "no_analytic",
                                           NULL };
enum { GUARD_BEATS = GB_GUARD_BEATS, GUARD_KEPT = GB_GUARD_KEPT, GUARD_INSIDE = GB_GUARD_INSIDE,
       GUARD_ANALYTIC, GUARD_NO_ANALYTIC };

/* Reported only (min > max): --param refuses them. */
static const gb_param_spec ml_guided_params[] = {
    { "source", 1, 0, source_names, "reported: model, or rule (rule_based's schedule)" },
    { "why", 1, 0, why_names, "reported: why rule_based's schedule ran" },
    { "rank", 1, 0, NULL, "reported: which of the ranked candidates ran (0: the first)" },
    { "predicted_ns", 1, 0, NULL, "reported: the model's time for it, nanoseconds" },
    { "guard", 1, 0, guard_names,
      "reported: at the edge of the M range trained on, beats (the best predicted's gain over "
      "the analytic point exceeds the model's error there) or kept (within it: the analytic "
      "point runs); inside (the best predicted runs), analytic (it is the best predicted), "
      "no_analytic (not a legal candidate here)" },
    { "edge", 1, 0, NULL, "reported: 1 when the shape is outside the M range trained on" },
    { "gain_pct", 1, 0, NULL, "reported: the best predicted's gain over the analytic point, %" },
    { "error_pct", 1, 0, NULL,
      "reported: the model's error out of sample for such a shape, % (-1: not measured)" },
    { NULL, 0, 0, NULL, NULL },
};

/* What ranks: the model and the space it carries (the parsed options'
 * consequence, set once by gb_ml_guided_use). */
static struct {
    int why;                  /* WHY_NONE: a model is loaded */
    gb_learned *model;
    gb_space space;
    char path[256];           /* as messages show it */
    char machine_why[256];    /* WHY_OTHER_MACHINE: the difference */
} ranker = { .why = WHY_NO_MODEL };

/* One shape's choice, made once and kept. */
typedef struct choice {
    int M, N, K, threads;
    gb_dtype dtype;
    int why;                  /* WHY_NONE: the model's candidate runs */
    int ncand, legal, illegal;
    int idle;                 /* legal, but leaving threads idle (never ranked) */
    char *text[TRY];          /* the best predicted, best first (owned) */
    double predicted_us[TRY];
    char origin[TRY][80];     /* "space", or the elite's "trial of MxKxN, T thread(s)" */
    int rank;                 /* the one that runs */
    int guard;                /* GUARD_*: why text[0] is the one it is */
    int edge;                 /* outside the M range trained on */
    char *analytic_text;      /* the analytic point's text, when legal (owned) */
    double gain, error;       /* ln: best predicted's gain over the analytic point; the
                               * model's error for such a shape (NAN: not measured) */
    int checked;              /* compiled and verified once */
    gb_sched_built build;
} choice;

static choice choices[MAX_CHOICES];
static int nchoices;

typedef struct ml_state {
    int from_model;
    void *state;
} ml_state;

int gb_ml_guided_use(const char *path, char *err, size_t errlen)
{
    gb_learned_info info;
    gb_learn_machine here;

    if (path == NULL || path[0] == '\0') {
        ranker.why = WHY_NO_MODEL;
        return 0;
    }
    if (strcmp(path, "none") == 0) {
        ranker.why = WHY_MODEL_NONE;
        return 0;
    }
    gb_printable(path, 200, ranker.path, sizeof ranker.path);
    if (!gb_xgb_available()) {
        ranker.why = WHY_NO_XGBOOST;
        return 0;
    }
    if (gb_learned_load(path, &ranker.model, err, errlen) != 0)
        return -1;
    gb_learned_info_of(ranker.model, &info);
    if (gb_space_parse(info.space_file, info.space_text, strlen(info.space_text), &ranker.space,
                       err, errlen) != 0)
        return -1;
    gb_learn_machine_here(&here);
    ranker.why = gb_learn_machine_same(&here, &info.machine, ranker.machine_why,
                                       sizeof ranker.machine_why) == 0 ? WHY_NONE
                                                                       : WHY_OTHER_MACHINE;
    return 0;
}

const char *gb_ml_guided_no_model(void)
{
    return ranker.why == WHY_NONE || ranker.why == WHY_OTHER_MACHINE ? NULL
                                                                      : why_text[ranker.why];
}

int gb_ml_guided_compiles(void)
{
    return ranker.why == WHY_NONE;
}

static unsigned long long text_hash(const char *t)
{
    unsigned long long h = 1469598103934665603ull; /* FNV-1a */
    for (; *t; t++)
        h = (h ^ (unsigned char)*t) * 1099511628211ull;
    return h;
}

/* The candidates of a shape: drawn, checked, featurized, ranked; the TRY
 * best kept in c.  c->why says when there is none. */
static void rank_candidates(choice *c)
{
    const int F = GB_FEATURES_COUNT;
    gb_learned_info info;
    int cap;
    float *X;
    double *us;
    unsigned long long *hash;
    char **texts, *text = malloc(GB_SPACE_MAX_TEXT), err[GB_ERR_LEN];
    int *elite;                /* the candidate's elite, or -1: a point of the space */
    gb_learn_machine here;
    gb_space_point start;
    /* each shape its own sequence of draws, the same in every run */
    unsigned rng = (0x6d6c6775u ^ (unsigned)c->M * 2654435761u ^ (unsigned)(c->K * 40503u + c->N)) | 1u;
    int n = 0, analytic = -1;   /* analytic: the space's own point's place, when legal */

    gb_learned_info_of(ranker.model, &info);
    cap = DRAWS + info.nelites;
    X = malloc((size_t)cap * F * sizeof *X);
    us = malloc((size_t)cap * sizeof *us);
    hash = malloc((size_t)cap * sizeof *hash);
    texts = calloc((size_t)cap, sizeof *texts);
    elite = malloc((size_t)cap * sizeof *elite);
    c->why = WHY_NO_CANDIDATE;
    if (!X || !us || !hash || !texts || !text || !elite)
        goto done;
    gb_learn_machine_here(&here);
    gb_space_initial_at(&ranker.space, &start, c->M, c->N, c->K, c->threads);
    for (int d = 0; d < cap; d++) {
        gb_space_point p;
        unsigned long long h;
        int dup = 0;

        /* the space's own point for the shape (the analytic model's), and
         * points one to four choices from it: where a search spends its
         * trials, so where the trees have seen schedules like them.  Points
         * drawn anywhere are where the trees extrapolate: with half the
         * draws anywhere, a leave-one-out pick for mlp_expand M=384 (1
         * thread, AMD EPYC family 26), predicted 8.6 ms, ran 25.3 ms against
         * the searched best's 9.6. */
        if (d < DRAWS) {
            p = start;
            for (int m = d == 0 ? 0 : 1 + (int)(gb_space_rand(&rng) % 4); m > 0; m--)
                gb_space_mutate(&ranker.space, &rng, &p);
            if (gb_space_text(&ranker.space, &p, 0, text, GB_SPACE_MAX_TEXT) != 0)
                continue;
        } else {
            /* the fastest trials of the shapes trained on, as they stand:
             * where the searches ended, each at least as legal as the
             * checker and the plan below find it for this shape */
            if (info.elites[d - DRAWS].dtype != c->dtype) /* another type's */
                continue;
            snprintf(text, GB_SPACE_MAX_TEXT, "%s", info.elites[d - DRAWS].text);
        }
        h = text_hash(text);
        for (int i = 0; i < n && !dup; i++)
            dup = hash[i] == h && strcmp(texts[i], text) == 0;
        if (dup)
            continue;
        if (gb_learned_features(ranker.space.file, text, c->M, c->K, c->N, c->threads, &here,
                                X + (size_t)n * F, err, sizeof err) != 0) {
            c->illegal++;
            continue;
        }
        if (gb_features_idle_threads(X + (size_t)n * F)) {
            c->idle++;
            continue;
        }
        if ((texts[n] = strdup(text)) == NULL)
            goto done;
        elite[n] = d < DRAWS ? -1 : d - DRAWS;
        if (d == 0)
            analytic = n;
        hash[n++] = h;
    }
    c->legal = n;
    if (n == 0)
        goto done;
    if (gb_learned_predict(ranker.model, X, n, us, err, sizeof err) != 0) {
        c->why = WHY_NO_TIME; /* legal candidates, but no prediction to rank them by */
        goto done;
    }
    {   /* the guard: the analytic point (the first drawn, d = 0, when legal here)
         * first unless the best predicted's gain over it exceeds the error */
        int best = 0;
        for (int i = 1; i < n; i++)
            if (us[i] < us[best])
                best = i;
        c->error = gb_learned_error_for(ranker.model, c->M, c->K, c->N, c->threads, c->dtype,
                                        &c->edge);
        c->gain = analytic >= 0 ? log(us[analytic] / us[best]) : NAN;
        if (analytic >= 0 && (c->analytic_text = strdup(texts[analytic])) == NULL)
            goto done;
        c->guard = analytic < 0        ? GUARD_NO_ANALYTIC
                   : best == analytic ? GUARD_ANALYTIC
                                      : gb_learned_guard(c->edge, us[best], us[analytic], c->error);
        if (c->guard == GUARD_KEPT) { /* it goes first; the rest by prediction after it */
            c->text[0] = texts[analytic];
            c->predicted_us[0] = us[analytic];
            snprintf(c->origin[0], sizeof c->origin[0], "space");
            texts[analytic] = NULL;
            c->ncand++;
        }
    }
    for (int t = c->ncand; t < TRY && t < n; t++) { /* the fastest predicted, by selection */
        int best = -1;
        for (int i = 0; i < n; i++)
            if (texts[i] && (best < 0 || us[i] < us[best]))
                best = i;
        c->text[t] = texts[best];
        c->predicted_us[t] = us[best];
        if (elite[best] < 0) {
            snprintf(c->origin[t], sizeof c->origin[t], "space");
        } else {
            const gb_learned_elite *e = &info.elites[elite[best]];
            snprintf(c->origin[t], sizeof c->origin[t], "trial of %dx%dx%d, %d thread(s)", e->M,
                     e->K, e->N, e->threads);
        }
        texts[best] = NULL;
        c->ncand++;
    }
    c->why = WHY_NONE;
done:
    for (int i = 0; texts && i < n; i++)
        free(texts[i]);
    free(texts);
    free(elite);
    free(X);
    free(us);
    free(hash);
    free(text);
}

/* The choice of (M, N, K, threads), made on first need; NULL when the table
 * is full (rule_based then). */
static choice *find_choice(int M, int N, int K, int threads, gb_dtype dtype)
{
    for (int i = 0; i < nchoices; i++)
        if (choices[i].M == M && choices[i].N == N && choices[i].K == K &&
            choices[i].threads == threads && choices[i].dtype == dtype)
            return &choices[i];
    return NULL;
}

static choice *choose(int M, int N, int K, int threads, gb_dtype dtype)
{
    choice *c = find_choice(M, N, K, threads, dtype);

    if (c != NULL)
        return c;
    if (nchoices == MAX_CHOICES)
        return NULL;
    c = &choices[nchoices++];
    *c = (choice){ .M = M, .N = N, .K = K, .threads = threads, .dtype = dtype,
                   .why = ranker.why };
    if (c->why == WHY_NONE && !gb_learned_trained_on(ranker.model, dtype))
        c->why = WHY_NO_TYPE;
    else if (c->why == WHY_NONE && ranker.space.states_type && ranker.space.dtype != dtype)
        c->why = WHY_OTHER_TYPE;
    if (c->why == WHY_NONE) {
        const gb_dtype was = ranker.space.dtype;
        ranker.space.dtype = dtype; /* the points' texts state the type */
        rank_candidates(c);
        ranker.space.dtype = was;
    }
    return c;
}

/* Whether the compiled candidate in state computes this shape's C as
 * rule_based does, on operands of small integers (in [-4, 4], as the
 * harness fills them: every sum of them up to K = 2^20 is exact in fp32,
 * so the two agree bit for bit, whatever their order of summation).  The
 * harness verifies what is timed against its own reference afterwards, as
 * for every variant; this check only lets a wrong candidate give way
 * before it is measured. */
static int agrees_with_rule(int M, int N, int K, int threads, void *state)
{
    static const gb_params none;
    float *A = malloc((size_t)M * K * sizeof *A), *B = malloc((size_t)K * N * sizeof *B);
    float *C = malloc((size_t)M * N * sizeof *C), *R = malloc((size_t)M * N * sizeof *R);
    gb_ctx ctx = { threads, &none, state, NULL, 0, NULL }, rule = { threads, &none, NULL, NULL, 0, NULL };
    unsigned x = 12345u;
    int ok = 0;

    if (A && B && C && R) {
        for (size_t i = 0; i < (size_t)M * K; i++)
            A[i] = (float)((int)((x = x * 1664525u + 1013904223u) >> 16) % 9 - 4);
        for (size_t i = 0; i < (size_t)K * N; i++)
            B[i] = (float)((int)((x = x * 1664525u + 1013904223u) >> 16) % 9 - 4);
        for (size_t i = 0; i < (size_t)M * N; i++)
            C[i] = R[i] = NAN; /* an element never written differs */
        ok = gb_sched_state_run(M, N, K, A, K, B, N, C, N, &ctx) == 0;
        if (ok && gb_variant_rule_based.prepare)
            ok = gb_variant_rule_based.prepare(M, N, K, B, N, &rule, 0, &rule.state) == 0;
        ok = ok && gb_variant_rule_based.run(M, N, K, A, K, B, N, R, N, &rule) == 0;
        if (rule.state && gb_variant_rule_based.release)
            gb_variant_rule_based.release(rule.state);
        for (size_t i = 0; ok && i < (size_t)M * N; i++)
            ok = C[i] == R[i];
    }
    free(A);
    free(B);
    free(C);
    free(R);
    return ok;
}

extern const gb_variant gb_variant_packed;

/* The same for a pick of another type, against packed's kernel of it (A,
 * B of small integers: products exact in bf16's f32 sums and in u8s8's
 * int32, so the two agree bit for bit). */
static int agrees_with_packed(gb_dtype t, int M, int N, int K, int threads, void *state)
{
    static const gb_params none;
    const gb_typed_kernel *pk = gb_variant_packed.typed[t];
    const size_t sa = gb_dtype_size_a(t), sb = gb_dtype_size_b(t), sc = gb_dtype_size_c(t);
    unsigned char *A = malloc((size_t)M * K * sa), *B = malloc((size_t)K * N * sb);
    unsigned char *C = malloc((size_t)M * N * sc), *R = malloc((size_t)M * N * sc);
    gb_ctx ctx = { threads, &none, state, NULL, 0, NULL }, ref = { threads, &none, NULL, NULL, 0, NULL };
    unsigned x = 54321u;
    int ok = 0;

    if (pk != NULL && A && B && C && R) {
        for (size_t i = 0; i < (size_t)M * K; i++) {
            const int v = (int)((x = x * 1664525u + 1013904223u) >> 16) % 9;
            if (t == GB_DTYPE_BF16)
                ((gb_bf16 *)A)[i] = gb_bf16_from_float((float)(v - 4));
            else
                A[i] = (unsigned char)v; /* u8: 0..8 */
        }
        for (size_t i = 0; i < (size_t)K * N; i++) {
            const int v = (int)((x = x * 1664525u + 1013904223u) >> 16) % 9 - 4;
            if (t == GB_DTYPE_BF16)
                ((gb_bf16 *)B)[i] = gb_bf16_from_float((float)v);
            else
                ((signed char *)B)[i] = (signed char)v;
        }
        memset(C, 0xff, (size_t)M * N * sc); /* an element never written differs */
        memset(R, 0x00, (size_t)M * N * sc);
        ok = gb_sched_state_run_typed(M, N, K, A, K, B, N, C, N, &ctx) == 0;
        if (ok && pk->prepare)
            ok = pk->prepare(M, N, K, B, N, &ref, 0, &ref.state) == 0;
        ok = ok && pk->run(M, N, K, A, K, B, N, R, N, &ref) == 0;
        if (ref.state && pk->release)
            pk->release(ref.state);
        ok = ok && memcmp(C, R, (size_t)M * N * sc) == 0;
    }
    free(A);
    free(B);
    free(C);
    free(R);
    return ok;
}

/* The first of c's candidates, from c->rank on, that compiles (and, the
 * first time, verifies) into *state; else c->why says which failed. */
static int build_candidate(choice *c, void **state)
{
    static const gb_params none;
    gb_sched nest;
    gb_sched_so so;
    char why[GB_ERR_LEN];
    int failed_verify = 0;

    for (; c->rank < c->ncand; c->rank++) {
        if (gb_sched_from_text(ranker.space.file, c->text[c->rank], strlen(c->text[c->rank]),
                               &nest, why, sizeof why) != 0 ||
            gb_sched_state_make(&nest, &none, c->M, c->N, c->K, c->threads, state, &so, why,
                                sizeof why) != 0)
            continue;
        /* a typed pick against packed's kernel of its type (rule_based runs
         * f32 alone) */
        if (c->checked ||
            (c->dtype == GB_DTYPE_F32
                 ? agrees_with_rule(c->M, c->N, c->K, c->threads, *state)
                 : agrees_with_packed(c->dtype, c->M, c->N, c->K, c->threads, *state))) {
            c->checked = 1;
            gb_sched_built_from(&c->build, &so);
            return 0;
        }
        failed_verify = 1;
        gb_sched_state_free(*state);
        *state = NULL;
    }
    c->why = failed_verify ? WHY_VERIFY_FAILED : WHY_COMPILE_FAILED;
    return -1;
}

static int ml_guided_prepare(int M, int N, int K, const float *B, int ldb, const gb_ctx *ctx,
                             int prepack, void **state)
{
    static const gb_params none;
    ml_state *st = calloc(1, sizeof *st);
    choice *c = choose(M, N, K, ctx->nthreads, GB_DTYPE_F32);

    if (st == NULL)
        return -1;
    if (c != NULL && c->why == WHY_NONE && build_candidate(c, &st->state) == 0) {
        st->from_model = 1;
    } else {
        gb_ctx base = { ctx->nthreads, &none, NULL, ctx->why, ctx->whylen, NULL };
        if (gb_variant_rule_based.prepare &&
            gb_variant_rule_based.prepare(M, N, K, B, ldb, &base, prepack, &st->state) != 0) {
            free(st);
            return -1;
        }
    }
    *state = st;
    return 0;
}

static void ml_guided_release(void *state)
{
    ml_state *st = state;

    if (st == NULL)
        return;
    if (st->from_model)
        gb_sched_state_free(st->state);
    else if (gb_variant_rule_based.release)
        gb_variant_rule_based.release(st->state);
    free(st);
}

static int ml_guided_run(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                         float *C, int ldc, const gb_ctx *ctx)
{
    static const gb_params none;
    const ml_state *st = ctx->state;
    gb_ctx inner = { ctx->nthreads, &none, NULL, NULL, 0, NULL };

    if (st == NULL)
        return -1;
    inner.state = st->state;
    if (st->from_model)
        return gb_sched_state_run(M, N, K, A, lda, B, ldb, C, ldc, &inner);
    return gb_variant_rule_based.run(M, N, K, A, lda, B, ldb, C, ldc, &inner);
}

static void ml_guided_resolve(int M, int N, int K, const gb_ctx *ctx, gb_params *effective)
{
    const choice *c = choose(M, N, K, ctx->nthreads, GB_DTYPE_F32);
    const int why = c ? c->why : WHY_NO_CANDIDATE;

    memset(effective, 0, sizeof *effective);
    gb_param_set(effective, "source", why == WHY_NONE ? SOURCE_MODEL : SOURCE_RULE);
    gb_param_set(effective, "why", why);
    if (why == WHY_NONE) {
        gb_param_set(effective, "rank", c->rank);
        gb_param_set(effective, "predicted_ns", lround(c->predicted_us[c->rank] * 1000.0));
        gb_param_set(effective, "guard", c->guard);
        gb_param_set(effective, "edge", c->edge);
        if (!isnan(c->gain))
            gb_param_set(effective, "gain_pct", lround(100.0 * (exp(c->gain) - 1.0)));
        gb_param_set(effective, "error_pct",
                     isnan(c->error) ? -1 : lround(100.0 * (exp(c->error) - 1.0)));
    }
}

/* Why c's first candidate is the one it is, in a sentence. */
static void guard_text(const choice *c, char *out, size_t len)
{
    const char *where = c->edge ? "shapes outside the M range it was trained on"
                                : "shapes inside the M range it was trained on";
    char err[64];

    if (isnan(c->error))
        snprintf(err, sizeof err, "not measured (no such shape to hold out): no gain trusted");
    else
        snprintf(err, sizeof err, "%.3fx", exp(c->error));
    switch (c->guard) {
    case GUARD_KEPT:
        if (!gb_learned_promises(c->gain))
            snprintf(out, len, "the analytic point (the space's own point) kept: the best "
                     "predicted is %.3fx faster by the model, under the %.2fx a pick must "
                     "promise (%s)", exp(c->gain), GB_GUARD_MIN_GAIN, where);
        else
            snprintf(out, len, "the analytic point (the space's own point) kept: the best "
                     "predicted is %.3fx faster by the model, within its error out of sample "
                     "for %s (%s)", exp(c->gain), where, err);
        break;
    case GUARD_BEATS:
        snprintf(out, len, "the best predicted runs: %.3fx faster than the analytic point by the "
                 "model, beyond its error out of sample for %s (%s)", exp(c->gain), where, err);
        break;
    case GUARD_INSIDE:
        snprintf(out, len, "the best predicted runs: %.3fx faster than the analytic point by "
                 "the model, at least the %.2fx a pick must promise; the shape is inside the M "
                 "range the model was trained on, where its error out of sample (%s) is not "
                 "asked", exp(c->gain), GB_GUARD_MIN_GAIN, err);
        break;
    case GUARD_ANALYTIC:
        snprintf(out, len, "the analytic point (the space's own point) is the best predicted");
        break;
    default:
        snprintf(out, len, "the analytic point is no legal candidate here: the best predicted "
                 "runs (the model's error for %s: %s)", where, err);
    }
}

/* --explain for type t: the model's pick, or what runs without one
 * (rule_based for f32, packed's kernel of the type for bf16 and u8s8). */
static void explain_type(gb_dtype type, FILE *out, int M, int N, int K, const gb_ctx *ctx)
{
    static const gb_params none;
    choice *c = choose(M, N, K, ctx->nthreads, type);
    gb_learned_info info;
    gb_sched nest;
    gb_sched_plan *pl;
    char why[GB_ERR_LEN];

    fprintf(out, "ml_guided  M=%d K=%d N=%d%s%s\n", M, K, N, type == GB_DTYPE_F32 ? "" : " ",
            type == GB_DTYPE_F32 ? "" : gb_dtype_name(type));
    if (c == NULL || c->why != WHY_NONE) {
        const int w = c ? c->why : WHY_NO_CANDIDATE;
        fprintf(out, "  %s: %s%s%s\n",
                type == GB_DTYPE_F32 ? "rule_based with its own rules"
                                     : "packed's kernel of the type",
                why_text[w], w == WHY_OTHER_MACHINE ? ": " : "",
                w == WHY_OTHER_MACHINE ? ranker.machine_why : "");
        if (type != GB_DTYPE_F32 && gb_variant_packed.typed[type]->explain != NULL)
            gb_variant_packed.typed[type]->explain(out, M, N, K, ctx);
        return;
    }
    gb_learned_info_of(ranker.model, &info);
    fprintf(out, "  model %s (%d trials of %d shapes, seed %u, %d elite schedules), space %s: "
            "%d legal candidates ranked (%d illegal, %d leaving threads idle), none measured\n",
            ranker.path, info.trials, info.shapes, info.seed, info.nelites, ranker.space.file,
            c->legal, c->illegal, c->idle);
    for (int t = 0; t < c->ncand; t++)
        fprintf(out, "  candidate %d: predicted %.1f us, %s%s\n", t + 1, c->predicted_us[t],
                strcmp(c->origin[t], "space") == 0 ? "a point of the space"
                                                   : c->origin[t],
                t != c->rank                ? ""
                : type == GB_DTYPE_F32 ? "  <- runs (checked against rule_based before it is timed)"
                                       : "  <- runs");
    guard_text(c, why, sizeof why);
    fprintf(out, "  guard: %s\n", why);
    if (gb_sched_from_text(ranker.space.file, c->text[c->rank], strlen(c->text[c->rank]), &nest,
                           why, sizeof why) != 0 ||
        (pl = gb_sched_plan_for(&nest, &none, M, N, K, ctx->nthreads, why, sizeof why)) == NULL) {
        fprintf(out, "  %s\n", why);
        return;
    }
    gb_sched_explain(out, "ml_guided", pl);
    gb_sched_plan_free(pl);
}

static void ml_guided_explain(FILE *out, int M, int N, int K, const gb_ctx *ctx)
{
    explain_type(GB_DTYPE_F32, out, M, N, K, ctx);
}

cJSON *gb_ml_guided_json(gb_dtype dtype, int M, int N, int K, int threads)
{
    const choice *c = find_choice(M, N, K, threads, dtype);
    cJSON *o;

    if (c == NULL || c->why != WHY_NONE || !c->checked ||
        (o = gb_sched_json_object(ranker.space.file, c->text[c->rank], NULL, NULL, 0, 0, 0, 0,
                                  &c->build)) == NULL)
        return NULL;
    cJSON_AddStringToObject(o, "model", ranker.path);
    cJSON_AddNumberToObject(o, "predicted_us", c->predicted_us[c->rank]);
    cJSON_AddNumberToObject(o, "candidates", c->legal);
    cJSON_AddStringToObject(o, "origin", c->origin[c->rank]);
    {
        char why[GB_ERR_LEN];
        cJSON *g = cJSON_AddObjectToObject(o, "guard");
        guard_text(c, why, sizeof why);
        if (g) {
            cJSON_AddStringToObject(g, "rule", guard_names[c->guard]);
            cJSON_AddBoolToObject(g, "edge", c->edge);
            if (isnan(c->gain))
                cJSON_AddNullToObject(g, "predicted_gain");
            else
                cJSON_AddNumberToObject(g, "predicted_gain", exp(c->gain));
            if (isnan(c->error))
                cJSON_AddNullToObject(g, "error");
            else
                cJSON_AddNumberToObject(g, "error", exp(c->error));
            cJSON_AddStringToObject(g, "why", why);
            if (c->analytic_text)
                cJSON_AddStringToObject(g, "analytic", c->analytic_text);
        }
    }
    return o;
}

/* ---- bf16 and u8s8: the model's pick among the typed space's points ------- */

/* The model's typed pick, or packed's kernel of the type where it has none
 * (rule_based runs f32 alone): what prepare chose, for run and impl. */
typedef struct typed_state {
    gb_sched_typed_pick pick;
    int why;                       /* the choice's why where packed runs */
} typed_state;

static int typed_prepare(gb_dtype t, int M, int N, int K, const void *B, int ldb,
                         const gb_ctx *ctx, int prepack, void **state)
{
    typed_state *st = calloc(1, sizeof *st);
    choice *c = choose(M, N, K, ctx->nthreads, t);

    if (st == NULL)
        return -1;
    if (c != NULL && c->why == WHY_NONE && build_candidate(c, &st->pick.state) == 0) {
        *state = st;
        return 0;
    }
    st->why = c ? c->why : WHY_NO_CANDIDATE;
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

/* Which code ran: "model: dot: vdpbf16ps", or "packed: avx512_bf16 (WHY)"
 * where the model had no pick, WHY the reason's name (no_type, ...). */
static void typed_impl(int M, int N, int K, const gb_ctx *ctx, char *buf, size_t len)
{
    const typed_state *st = ctx->state;
    char ran[160];

    if (st == NULL) {
        snprintf(buf, len, "%s", "");
        return;
    }
    gb_sched_pick_impl(&st->pick, "model: ", M, N, K, ctx, ran, sizeof ran);
    if (st->pick.packed)
        snprintf(buf, len, "%s (%s)", ran, why_names[st->why]);
    else
        snprintf(buf, len, "%s", ran);
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

static void typed_explain_bf16(FILE *out, int M, int N, int K, const gb_ctx *ctx)
{
    explain_type(GB_DTYPE_BF16, out, M, N, K, ctx);
}

static void typed_explain_u8s8(FILE *out, int M, int N, int K, const gb_ctx *ctx)
{
    explain_type(GB_DTYPE_U8S8, out, M, N, K, ctx);
}

static const gb_typed_kernel ml_guided_typed[GB_DTYPE_COUNT] = {
    [GB_DTYPE_BF16] = { .run = typed_run, .prepare = typed_prepare_bf16,
                        .release = typed_release, .impl = typed_impl,
                        .explain = typed_explain_bf16 },
    [GB_DTYPE_U8S8] = { .run = typed_run, .prepare = typed_prepare_u8s8,
                        .release = typed_release, .impl = typed_impl,
                        .explain = typed_explain_u8s8 },
};

const gb_variant gb_variant_ml_guided = {
    .name = "ml_guided",
    .family = "learned",
    .description = "the schedule a learned model (gemmbench model train) predicts fastest "
                   "among candidates of its space, no trial at run time; else rule_based",
    .run = ml_guided_run,
    .params = ml_guided_params,
    .prepare = ml_guided_prepare,
    .release = ml_guided_release,
    .resolve = ml_guided_resolve,
    .explain = ml_guided_explain,
    .base = &gb_variant_rule_based,
    .typed = { [GB_DTYPE_BF16] = &ml_guided_typed[GB_DTYPE_BF16],
               [GB_DTYPE_U8S8] = &ml_guided_typed[GB_DTYPE_U8S8] },
};
