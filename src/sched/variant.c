/* variant.c - a schedule file as the variant sched:STEM: its params as the
 * variant's --param keys, prepare() resolving the nest for the shape,
 * lowering it, compiling it (cache first) and loading it outside the timed
 * region, run() calling what was loaded. */
#define _POSIX_C_SOURCE 200809L
#include "sched_variant.h"
#include "sched_lang.h"
#include "sched_build.h"
#include "amx_tiles.h"
#include "packed_team.h"
#include "machine.h"
#include "sha256.h"
#include "parse.h"

#include <stddef.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <dlfcn.h>
#include <string.h>

/* The first build of each shape and parameter set, for the JSON's
 * "schedule" object: whether a compiler ran, and for how long. */
typedef struct build_record {
    int M, N, K;
    char params[256];
    gb_sched_built built;
} build_record;

#define MAX_RECORDS 256

typedef struct sched_entry {
    gb_sched nest;
    char path[4096];
    char *text;               /* the file, for the JSON */
    char name[64];            /* sched:STEM */
    char description[160];
    gb_param_spec spec[GB_SCHED_MAX_PARAMS + GB_SCHED_MAX_CHOOSE + 1];
    gb_variant variant;
    gb_typed_kernel typed;    /* the schedule's type's kernel, when not f32 */
    char types_note[160];
    int nrecords;
    build_record records[MAX_RECORDS];
} sched_entry;

/* The generated kernels declare gb_ctx themselves (lower.c), field for
 * field as gemmbench.h does; this is that declaration, held to it. */
typedef struct generated_ctx {
    int nthreads;
    const void *params;
    void *state;
    char *why;
    size_t whylen;
    int (*pool)(int, void (*)(void *, int, int), void *);
} generated_ctx;
_Static_assert(sizeof(generated_ctx) == sizeof(gb_ctx) &&
                   offsetof(generated_ctx, nthreads) == offsetof(gb_ctx, nthreads) &&
                   offsetof(generated_ctx, params) == offsetof(gb_ctx, params) &&
                   offsetof(generated_ctx, state) == offsetof(gb_ctx, state) &&
                   offsetof(generated_ctx, why) == offsetof(gb_ctx, why) &&
                   offsetof(generated_ctx, whylen) == offsetof(gb_ctx, whylen) &&
                   offsetof(generated_ctx, pool) == offsetof(gb_ctx, pool),
               "the generated kernels' gb_ctx must be gemmbench.h's");

/* What prepare() leaves for run(). */
typedef struct sched_state {
    gb_sched_so so;
    float *scratch;
    char impl[64];            /* a typed kernel's form, for the entry's "impl" */
} sched_state;

static sched_entry *entries[GB_SCHED_MAX_FILES];
static int nentries;

static void params_text(const sched_entry *e, const gb_params *p, char *out, size_t len)
{
    gb_params_format(&e->variant, p, out, len);
}

static build_record *find_record(sched_entry *e, int M, int N, int K, const char *params)
{
    for (int r = 0; r < e->nrecords; r++)
        if (e->records[r].M == M && e->records[r].N == N && e->records[r].K == K &&
            strcmp(e->records[r].params, params) == 0)
            return &e->records[r];
    return NULL;
}

/* Why a prepare failed, for the harness's one line (it names the variant). */
static void say_why(const gb_ctx *ctx, const char *why)
{
    if (ctx->why != NULL && ctx->whylen > 0)
        snprintf(ctx->why, ctx->whylen, "%s", why);
}

int gb_sched_state_make(const gb_sched *nest, const gb_params *params, int M, int N, int K,
                        int nthreads, void **state, gb_sched_so *built, char *why,
                        size_t whylen)
{
    gb_sched_plan *pl;
    sched_state *st = NULL;
    char *source = NULL;
    long floats;
    int rc = -1;

    *state = NULL;
    if ((pl = gb_sched_plan_for(nest, params, M, N, K, nthreads, why, whylen)) == NULL)
        return -1;
    source = gb_sched_lower(pl, "gb_sched_kernel");
    if (source == NULL || (st = calloc(1, sizeof *st)) == NULL) {
        snprintf(why, whylen, "out of memory");
        goto done;
    }
    if (gb_sched_build(source, "gb_sched_kernel", &st->so, why, whylen) != 0)
        goto done;
    if (gb_sched_plan_tiles(pl) && gb_sched_tiles_emulated()) {
        /* the emulated tile operations the kernel calls (the test hook) */
        const amx_tile_ops **ops = dlsym(st->so.handle, "gb_tile_ops_emulated");
        if (ops == NULL) {
            gb_sched_so_close(&st->so);
            snprintf(why, whylen, "object '%s': no symbol 'gb_tile_ops_emulated'", st->so.path);
            goto done;
        }
        *ops = &amx_tiles_emulated_any;
    }
    {
        int dot;
        (void)gb_sched_plan_form(pl, &dot);
        snprintf(st->impl, sizeof st->impl, "%s",
                 nest->dtype == GB_DTYPE_F32 ? ""
                 : gb_sched_plan_tiles(pl)
                     ? (nest->dtype == GB_DTYPE_BF16 ? "tiles: tdpbf16ps" : "tiles: tdpbusd")
                 : dot ? (nest->dtype == GB_DTYPE_BF16 ? "dot: vdpbf16ps" : "dot: vpdpbusd")
                 : nest->dtype == GB_DTYPE_BF16 ? "widened to f32" : "widened to int32");
    }
    floats = gb_sched_scratch_floats(pl, nthreads);
    /* On a cache line, as TVM aligns its buffers (64 bytes): a malloc'd
     * pack buffer sits 16 bytes past a page, and every vector load of it
     * then spans two lines (tvm_cache_write, M=256 N=3072: 20 ms, not 15). */
    if (floats > 0 &&
        (st->scratch = aligned_alloc(64, ((size_t)floats * sizeof(float) + 63) & ~(size_t)63)) ==
            NULL) {
        gb_sched_so_close(&st->so);
        snprintf(why, whylen, "out of memory for %ld floats of pack buffers", floats);
        goto done;
    }
    if (built)
        *built = st->so;
    *state = st;
    st = NULL;
    rc = 0;
done:
    free(st);
    free(source);
    gb_sched_plan_free(pl);
    return rc;
}

static int prepare_entry(sched_entry *e, int M, int N, int K, const gb_ctx *ctx, void **state)
{
    char err[512], params[256];
    gb_sched_so so;

    if (gb_sched_state_make(&e->nest, ctx->params, M, N, K, ctx->nthreads, state, &so, err,
                            sizeof err) != 0) {
        say_why(ctx, err);
        return -1;
    }
    params_text(e, ctx->params, params, sizeof params);
    if (find_record(e, M, N, K, params) == NULL && e->nrecords < MAX_RECORDS) {
        build_record *r = &e->records[e->nrecords++];
        r->M = M, r->N = N, r->K = K;
        snprintf(r->params, sizeof r->params, "%s", params);
        gb_sched_built_from(&r->built, &so);
    }
    return 0;
}

int gb_sched_state_run(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                     float *C, int ldc, const gb_ctx *ctx)
{
    const sched_state *st = ctx->state;
    gb_ctx inner = *ctx;
    gb_kernel_fn fn;

    if (st == NULL || st->so.fn == NULL)
        return -1;
    inner.state = st->scratch;
    inner.pool = packed_team_run; /* `parallel LOOP pool`'s threads: packed's */
    *(void **)&fn = st->so.fn;
    return fn(M, N, K, A, lda, B, ldb, C, ldc, &inner);
}

void gb_sched_state_free(void *state)
{
    sched_state *st = state;

    if (st == NULL)
        return;
    gb_sched_so_close(&st->so);
    free(st->scratch);
    free(st);
}

static void explain_entry(sched_entry *e, FILE *out, int M, int N, int K, const gb_ctx *ctx)
{
    char err[512];
    gb_sched_plan *pl =
        gb_sched_plan_for(&e->nest, ctx->params, M, N, K, ctx->nthreads, err, sizeof err);

    if (pl == NULL) {
        fprintf(out, "%s  M=%d K=%d N=%d\n  %s\n", e->name, M, K, N, err);
        return;
    }
    gb_sched_explain(out, e->name, pl);
    gb_sched_plan_free(pl);
}

/* The params' values for a run: --param's, else the file's defaults. */
static void resolve_entry(sched_entry *e, const gb_ctx *ctx, gb_params *effective)
{
    memset(effective, 0, sizeof *effective);
    for (int i = 0; i < e->nest.nparams; i++)
        if (!e->nest.params[i].model || gb_param_get(ctx->params, e->nest.params[i].name,
                                                      LONG_MIN) != LONG_MIN)
            gb_param_set(effective, e->nest.params[i].name,
                         gb_param_get(ctx->params, e->nest.params[i].name,
                                      e->nest.params[i].value)); /* a model's: per shape */
}

/* A --param value outside the param's set is refused like any bad --param. */
static int usable_entry(sched_entry *e, const gb_params *p, char *why, size_t whylen)
{
    for (int i = 0; i < e->nest.nparams; i++) {
        const gb_sched_param *sp = &e->nest.params[i];
        long v = gb_param_get(p, sp->name, LONG_MIN);
        int ok = sp->nchoices <= 0 || v == LONG_MIN; /* unset: the file's value or the model's */
        for (int c = 0; c < sp->nchoices; c++)
            ok |= sp->choices[c] == v;
        if (!ok) {
            snprintf(why, whylen, "%s=%ld: not in the set of param %s (%s)", sp->name, v,
                     sp->name, e->path);
            return -1;
        }
    }
    return 0;
}

/* A schedule that runs on AMX's tiles runs where the CPU has them and
 * Linux grants them (amx_tiles_available: asked once per process), or
 * under the test hook on their emulation; elsewhere it is skipped with
 * the reason, never run. */
static int available_entry(sched_entry *e, char *why, size_t whylen)
{
    if (e->nest.tensorize < 0 || gb_sched_tiles_emulated())
        return 1;
    return amx_tiles_available(e->nest.dtype, why, whylen);
}

/* The variant interface has no user pointer: one set of functions per
 * slot, each passing its own entry. */
#define SLOT(N)                                                                              \
    static int prepare_##N(int M, int N_, int K, const float *B, int ldb, const gb_ctx *ctx,  \
                           int prepack, void **state)                                        \
    {                                                                                        \
        (void)B, (void)ldb, (void)prepack;                                                   \
        return prepare_entry(entries[N], M, N_, K, ctx, state);                              \
    }                                                                                        \
    static int typed_prepare_##N(int M, int N_, int K, const void *B, int ldb,               \
                                 const gb_ctx *ctx, int prepack, void **state)               \
    {                                                                                        \
        (void)B, (void)ldb, (void)prepack;                                                   \
        return prepare_entry(entries[N], M, N_, K, ctx, state);                              \
    }                                                                                        \
    static void explain_##N(FILE *out, int M, int N_, int K, const gb_ctx *ctx)              \
    {                                                                                        \
        explain_entry(entries[N], out, M, N_, K, ctx);                                       \
    }                                                                                        \
    static int usable_##N(const gb_params *p, char *why, size_t whylen)                      \
    {                                                                                        \
        return usable_entry(entries[N], p, why, whylen);                                     \
    }                                                                                        \
    static int available_##N(char *why, size_t whylen)                                       \
    {                                                                                        \
        return available_entry(entries[N], why, whylen);                                     \
    }                                                                                        \
    static void resolve_##N(int M, int N_, int K, const gb_ctx *ctx, gb_params *effective)   \
    {                                                                                        \
        (void)M, (void)N_, (void)K;                                                          \
        resolve_entry(entries[N], ctx, effective);                                           \
    }
SLOT(0) SLOT(1) SLOT(2) SLOT(3) SLOT(4) SLOT(5) SLOT(6) SLOT(7)
SLOT(8) SLOT(9) SLOT(10) SLOT(11) SLOT(12) SLOT(13) SLOT(14) SLOT(15)
#undef SLOT

/* Each slot's hooks, in one table. */
static const struct slot_hooks {
    gb_prepare_fn prepare;
    gb_typed_prepare_fn typed_prepare;
    gb_explain_fn explain;
    gb_resolve_fn resolve;
    gb_usable_fn usable;
    int (*available)(char *why, size_t whylen);
} slots[GB_SCHED_MAX_FILES] = {
#define HOOKS(N) { prepare_##N, typed_prepare_##N, explain_##N, resolve_##N, usable_##N, \
                   available_##N },
    HOOKS(0) HOOKS(1) HOOKS(2) HOOKS(3) HOOKS(4) HOOKS(5) HOOKS(6) HOOKS(7)
    HOOKS(8) HOOKS(9) HOOKS(10) HOOKS(11) HOOKS(12) HOOKS(13) HOOKS(14) HOOKS(15)
#undef HOOKS
};

/* STEM: the file name without its directory and its .sched. */
static int stem_of(const char *path, char *out, size_t len)
{
    const char *base = strrchr(path, '/');
    size_t n;

    base = base ? base + 1 : path;
    n = strlen(base);
    if (n > 6 && strcmp(base + n - 6, ".sched") == 0)
        n -= 6;
    if (n == 0 || n >= len)
        return -1;
    for (size_t i = 0; i < n; i++) {
        char c = base[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.'))
            return -1;
    }
    memcpy(out, base, n);
    out[n] = '\0';
    return 0;
}

/* Sets e's text (taken over) and its params as --param keys. */
static void set_text(sched_entry *e, char *text)
{
    free(e->text);
    e->text = text;
    memset(e->spec, 0, sizeof e->spec);
    for (int p = 0; p < e->nest.nparams; p++)
        e->spec[p] = (gb_param_spec){ e->nest.params[p].name, e->nest.params[p].min,
                                      e->nest.params[p].max, NULL, "a param of the schedule" };
    /* each choose block's choice: --param b_read=copied picks its alternative */
    for (int b = 0; b < e->nest.nblocks; b++)
        e->spec[e->nest.nparams + b] =
            (gb_param_spec){ gb_sched_choice_name(e->nest.blocks[b].choice), 0, 0,
                             gb_sched_choice_answers(e->nest.blocks[b].choice),
                             "a choice of the schedule (default: the model's, per shape)" };
    e->nrecords = 0;
}

/* A new slot for sched:STEM, or NULL with err (path names it). */
static sched_entry *new_entry(const char *stem, const char *path, char *err, size_t errlen)
{
    char shown[256], other[256]; /* the paths as messages show them */
    sched_entry *e;

    gb_printable(path, 200, shown, sizeof shown);
    if (nentries == GB_SCHED_MAX_FILES) {
        snprintf(err, errlen, "%s:1: more than %d schedules in one run", shown,
                 GB_SCHED_MAX_FILES);
        return NULL;
    }
    for (int i = 0; i < nentries; i++)
        if (strcmp(entries[i]->name + 6, stem) == 0) {
            gb_printable(entries[i]->path, 200, other, sizeof other);
            snprintf(err, errlen, "%s:1: sched:%s is given twice (%s)", shown, stem, other);
            return NULL;
        }
    if ((e = calloc(1, sizeof *e)) == NULL) {
        snprintf(err, errlen, "%s:1: out of memory", path);
        return NULL;
    }
    snprintf(e->path, sizeof e->path, "%s", path);
    snprintf(e->name, sizeof e->name, "sched:%s", stem);
    snprintf(e->description, sizeof e->description, "the schedule in %s", path);
    return e;
}

/* A schedule of another type than f32 as the typed kernel's run: the
 * generated C has that type's signature (lower.c). */
int gb_sched_state_run_typed(int M, int N, int K, const void *A, int lda, const void *B,
                             int ldb, void *C, int ldc, const gb_ctx *ctx)
{
    const sched_state *st = ctx->state;
    gb_ctx inner = *ctx;
    gb_typed_kernel_fn fn;

    if (st == NULL || st->so.fn == NULL)
        return -1;
    inner.state = st->scratch;
    inner.pool = packed_team_run; /* `parallel LOOP pool`'s threads: packed's */
    *(void **)&fn = st->so.fn;
    return fn(M, N, K, A, lda, B, ldb, C, ldc, &inner);
}

int gb_sched_pick_packed(gb_sched_typed_pick *p, const gb_typed_kernel *k, int M, int N, int K,
                         const void *B, int ldb, const gb_ctx *ctx, int prepack)
{
    p->packed = k;
    p->state = NULL;
    return k != NULL && (k->prepare == NULL ||
                         k->prepare(M, N, K, B, ldb, ctx, prepack, &p->state) == 0)
               ? 0
               : -1;
}

int gb_sched_pick_run(const gb_sched_typed_pick *p, int M, int N, int K, const void *A, int lda,
                      const void *B, int ldb, void *C, int ldc, const gb_ctx *ctx)
{
    gb_ctx inner = *ctx;

    inner.state = p->state;
    if (p->packed)
        return p->packed->run(M, N, K, A, lda, B, ldb, C, ldc, &inner);
    return gb_sched_state_run_typed(M, N, K, A, lda, B, ldb, C, ldc, &inner);
}

void gb_sched_pick_release(gb_sched_typed_pick *p)
{
    if (p->packed && p->packed->release)
        p->packed->release(p->state);
    else if (!p->packed)
        gb_sched_state_free(p->state);
    p->state = NULL;
}

void gb_sched_pick_impl(const gb_sched_typed_pick *p, const char *prefix, int M, int N, int K,
                        const gb_ctx *ctx, char *buf, size_t len)
{
    char inner[96] = "";

    if (p->packed) {
        gb_ctx pc = *ctx;
        pc.state = p->state;
        if (p->packed->impl)
            p->packed->impl(M, N, K, &pc, inner, sizeof inner);
        snprintf(buf, len, "packed: %s", inner);
        return;
    }
    snprintf(buf, len, "%s%s", prefix, gb_sched_state_impl(p->state));
}

/* The variant runs the schedule's type only: f32's run, or (`type T`)
 * typed[T] and no f32 (the runner skips f32 with types_note). */
static void set_type(sched_entry *e)
{
    const gb_dtype t = e->nest.dtype;

    snprintf(e->types_note, sizeof e->types_note, "the schedule states type %s",
             gb_dtype_name(t));
    for (int d = 0; d < GB_DTYPE_COUNT; d++)
        e->variant.typed[d] = NULL;
    e->variant.run = t == GB_DTYPE_F32 ? gb_sched_state_run : NULL;
    if (t != GB_DTYPE_F32)
        e->variant.typed[t] = &e->typed;
}

/* A typed schedule's entry says its form ("dot: vpdpbusd", "widened to
 * f32"): which code ran, as packed's typed kernels say their path. */
static void typed_impl(int M, int N, int K, const gb_ctx *ctx, char *buf, size_t len)
{
    (void)M, (void)N, (void)K;
    snprintf(buf, len, "%s", gb_sched_state_impl(ctx->state));
}

const char *gb_sched_state_impl(const void *state)
{
    const sched_state *st = state;
    return st != NULL ? st->impl : "";
}

/* Makes e the variant of the next slot. */
static const gb_variant *add_entry(sched_entry *e)
{
    e->typed = (gb_typed_kernel){ .run = gb_sched_state_run_typed,
                                  .prepare = slots[nentries].typed_prepare,
                                  .release = gb_sched_state_free, .impl = typed_impl,
                                  .available = slots[nentries].available };
    e->variant = (gb_variant){
        .name = e->name,
        .family = "sched",
        .description = e->description,
        .run = gb_sched_state_run,
        .params = e->spec,
        .prepare = slots[nentries].prepare,
        .release = gb_sched_state_free,
        .explain = slots[nentries].explain,
        .usable = slots[nentries].usable,
        .resolve = slots[nentries].resolve,
        .types_note = e->types_note,
    };
    set_type(e);
    entries[nentries++] = e;
    return &e->variant;
}

const gb_variant *gb_sched_variant_add(const char *path, char *err, size_t errlen)
{
    sched_entry *e;
    char stem[GB_SCHED_MAX_STEM + 1], *text, shown[256];

    if (stem_of(path, stem, sizeof stem) != 0) {
        gb_printable(path, 200, shown, sizeof shown);
        snprintf(err, errlen, "%s:1: the file name makes no variant name (letters, digits, "
                              "_ - . only, at most %d)", shown, GB_SCHED_MAX_STEM);
        return NULL;
    }
    if ((e = new_entry(stem, path, err, errlen)) == NULL)
        return NULL;
    if (gb_sched_load(path, &e->nest, &text, err, errlen) != 0) {
        free(e);
        return NULL;
    }
    set_text(e, text);
    return add_entry(e);
}

/* Checks text as a schedule named file into nest; a copy of the text, or
 * NULL with err. */
static char *check_text(const char *file, const char *text, gb_sched *nest, char *err,
                        size_t errlen)
{
    char *copy;

    if (gb_sched_from_text(file, text, strlen(text), nest, err, errlen) != 0)
        return NULL;
    if ((copy = strdup(text)) == NULL)
        snprintf(err, errlen, "%s:1: out of memory", file);
    return copy;
}

const gb_variant *gb_sched_variant_text(const char *stem, const char *file, const char *text,
                                        char *err, size_t errlen)
{
    sched_entry *e = new_entry(stem, file, err, errlen);
    char *copy;

    if (e == NULL)
        return NULL;
    if ((copy = check_text(file, text, &e->nest, err, errlen)) == NULL) {
        free(e);
        return NULL;
    }
    set_text(e, copy);
    return add_entry(e);
}

static sched_entry *entry_of(const gb_variant *v);

int gb_sched_variant_retext(const gb_variant *v, const char *file, const char *text, char *err,
                            size_t errlen)
{
    gb_sched nest; /* e's stays as it was when the text is refused */
    sched_entry *e = entry_of(v);
    char *copy;

    if (e == NULL) {
        snprintf(err, errlen, "%s is not a schedule variant", v->name);
        return -1;
    }
    if ((copy = check_text(file, text, &nest, err, errlen)) == NULL)
        return -1;
    e->nest = nest;
    snprintf(e->path, sizeof e->path, "%s", file);
    set_text(e, copy);
    set_type(e);
    return 0;
}

int gb_sched_variant_count(void)
{
    return nentries;
}

const gb_variant *gb_sched_variant_at(int i)
{
    return i >= 0 && i < nentries ? &entries[i]->variant : NULL;
}

static sched_entry *entry_of(const gb_variant *v)
{
    for (int i = 0; i < nentries; i++)
        if (&entries[i]->variant == v)
            return entries[i];
    return NULL;
}

const gb_sched *gb_sched_variant_nest(const gb_variant *v)
{
    const sched_entry *e = entry_of(v);
    return e ? &e->nest : NULL;
}

int gb_sched_emit_c(const gb_variant *v, const gb_params *p, int M, int N, int K, FILE *out,
                    char *err, size_t errlen)
{
    sched_entry *e = entry_of(v);
    gb_sched_plan *pl;
    char *source;

    if (e == NULL || (pl = gb_sched_plan_new(&e->nest, p, M, N, K, err, errlen)) == NULL)
        return -1;
    source = gb_sched_lower(pl, "gb_sched_kernel");
    gb_sched_plan_free(pl);
    if (source == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    fprintf(out, "/* %s, M=%d N=%d K=%d, compiled with: %s */\n", e->name, M, N, K,
            gb_sched_flags());
    fputs(source, out);
    free(source);
    return 0;
}

void gb_sched_built_from(gb_sched_built *out, const gb_sched_so *so)
{
    snprintf(out->compiler, sizeof out->compiler, "%s", so->compiler);
    snprintf(out->flags, sizeof out->flags, "%s", so->flags);
    out->compile_ms = so->compile_ms;
    out->cached = so->cached;
}

cJSON *gb_sched_json_object(const char *file, const char *text, const gb_sched *nest,
                            const gb_params *p, int M, int N, int K, int nthreads,
                            const gb_sched_built *built)
{
    unsigned char digest[32];
    char hex[65];
    cJSON *o = cJSON_CreateObject(), *params;

    if (o == NULL)
        return NULL;
    gb_sha256(text, strlen(text), digest);
    gb_sha256_hex(digest, hex);
    cJSON_AddStringToObject(o, "file", file);
    cJSON_AddStringToObject(o, "text", text);
    cJSON_AddStringToObject(o, "sha256", hex);
    params = cJSON_AddObjectToObject(o, "params");
    for (int i = 0; nest && i < nest->nparams && params; i++)
        cJSON_AddNumberToObject(params, nest->params[i].name,
                                (double)gb_sched_param_at(nest, i, p, M, N, K, nthreads));
    if (built) {
        cJSON_AddStringToObject(o, "compiler", built->compiler);
        cJSON_AddStringToObject(o, "flags", built->flags);
        cJSON_AddNumberToObject(o, "compile_ms", built->compile_ms);
        cJSON_AddBoolToObject(o, "cached", built->cached);
    }
    return o;
}

cJSON *gb_sched_json(const gb_variant *v, const gb_params *p, int M, int N, int K,
                     int nthreads)
{
    sched_entry *e = entry_of(v);
    char text[256];
    const build_record *r;

    if (e == NULL)
        return NULL;
    params_text(e, p, text, sizeof text);
    r = find_record(e, M, N, K, text);
    return gb_sched_json_object(e->path, e->text, &e->nest, p, M, N, K, nthreads, r ? &r->built : NULL);
}

int gb_sched_variant_last_build(const gb_variant *v, double *compile_ms, int *cached)
{
    const sched_entry *e = entry_of(v);

    if (e == NULL || e->nrecords == 0)
        return -1;
    *compile_ms = e->records[e->nrecords - 1].built.compile_ms;
    *cached = e->records[e->nrecords - 1].built.cached;
    return 0;
}

const char *gb_sched_variant_source(const gb_variant *v)
{
    const sched_entry *e = entry_of(v);
    return e ? e->text : NULL;
}
