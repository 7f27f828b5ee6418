/*
 * reference family - onednn: oneDNN, the inference engines' library,
 * measured in the same run as the schedules it is the ceiling for, so both
 * see the same machine.
 *
 * Not a schedule.  f32 is one dnnl_sgemm call (row-major by definition,
 * beta = 0).  bf16 (bf16:bf16:f32) and u8s8 (u8:s8:s32) are oneDNN's matmul
 * primitive, which is what a BERT served through oneDNN runs: its
 * primitive descriptor and primitive are made once per measurement in
 * prepare(), so a call is one execute, as in benchdnn's --mode=p.  B is
 * either plain (row stride ldb, benchdnn's --wtag=ab: the primitive copies
 * it into its own layout inside every call) or, pre-packed, reordered once
 * into the layout the primitive chose for "any" (--wtag=any: how inference
 * keeps its weights).  Built only when the Makefile found oneDNN
 * (GB_HAVE_ONEDNN); the matmul path is written against the 1.x/2.x C API
 * (memory descriptors as structs), so a oneDNN 3 build runs f32 only.
 *
 * Threads: the Debian build threads with OpenMP (DNNL_CPU_RUNTIME OMP) and
 * sizes its parallel regions by omp_get_max_threads(), so the calling
 * thread's OpenMP thread count is set around every call into it, and put
 * back after it so that nothing else in the process sees the change.  A
 * matmul primitive reads the count when it is created too (its blocking and
 * its split of the work over threads are decided then, and the count is
 * part of the primitive cache's key), so prepare() makes it under the count
 * the calls will run with.
 */
#include "gemmbench.h"
#include "reference.h"

#ifdef GB_HAVE_ONEDNN
#include <dnnl.h>
#include <dnnl_version.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* dnnl_debug.h's, declared here: not every oneDNN's dnnl.h includes it.
 * Weak, with the ISA query: a oneDNN without them still links, and its
 * kernels and statuses are then reported by number or unknown. */
const char *dnnl_cpu_isa2str(dnnl_cpu_isa_t v);
const char *dnnl_status2str(dnnl_status_t v);
#pragma weak dnnl_cpu_isa2str
#pragma weak dnnl_status2str
#pragma weak dnnl_get_effective_cpu_isa

static int onednn_run(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                      float *C, int ldc, const gb_ctx *ctx)
{
    const int before = omp_get_max_threads();
    dnnl_status_t status;

    omp_set_num_threads(ctx->nthreads);
    status = dnnl_sgemm('N', 'N', M, N, K, 1.0f, A, lda, B, ldb, 0.0f, C, ldc);
    omp_set_num_threads(before);
    return status == dnnl_success ? 0 : -1;
}

/* oneDNN's JIT generates code for the widest ISA the CPU has, at most
 * ONEDNN_MAX_CPU_ISA (or its older name, DNNL_MAX_CPU_ISA). */
static void onednn_library(gb_library *lib)
{
    static const char *const vars[] = { "ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA", NULL };
    const dnnl_version_t *v = dnnl_version();
    const char *isa = dnnl_cpu_isa2str && dnnl_get_effective_cpu_isa
                          ? dnnl_cpu_isa2str(dnnl_get_effective_cpu_isa())
                          : NULL;

    lib->version[0] = '\0';
    if (v)
        snprintf(lib->version, sizeof lib->version, "%d.%d.%d", v->major, v->minor, v->patch);
    if (isa && strncmp(isa, "cpu_isa_", 8) == 0)
        isa += 8;
    snprintf(lib->kernels, sizeof lib->kernels, "%s", isa ? isa : "");
    reference_forced_by(lib, vars);
}


#if DNNL_VERSION_MAJOR < 3

/* A type's oneDNN data types: src (A), weights (B), dst (C). */
typedef struct onednn_types {
    gb_dtype dtype;
    dnnl_data_type_t a, b, c;
} onednn_types;

static const onednn_types onednn_bf16 = { GB_DTYPE_BF16, dnnl_bf16, dnnl_bf16, dnnl_f32 };
static const onednn_types onednn_u8s8 = { GB_DTYPE_U8S8, dnnl_u8, dnnl_s8, dnnl_s32 };

/* One measurement's matmul, made by prepare() and executed by every call.
 * A primitive is made for fixed strides of A and C and a fixed thread
 * count, which prepare() does not know (it sees B and ldb only): it makes
 * the primitive for the padding of B on every operand (lda = K + ldb - N,
 * ldc = ldb: the harness's and the tests' layout), and a call whose
 * lda, ldc or thread count differ makes it again first.  src, dst and (per
 * call) weights are memories without storage whose handles each call
 * points at its operands; pre-packed, weights owns the reordered B. */
typedef struct onednn_matmul {
    const onednn_types *types;
    int M, N, K;
    int lda, ldc, nthreads;   /* what pd and matmul were made for */
    int prepacked;
    dnnl_memory_desc_t b_md;  /* B as the matmul reads it: plain at ldb, or its own layout */
    dnnl_engine_t engine;
    dnnl_stream_t stream;
    dnnl_primitive_desc_t pd;
    dnnl_primitive_t matmul;
    dnnl_memory_t src, weights, dst;
} onednn_matmul;

/* A rows x cols row-major matrix of type dt whose rows are ld elements
 * apart (ld > cols: padded; oneDNN never touches the padding). */
static dnnl_status_t onednn_strided_md(dnnl_memory_desc_t *md, int rows, int cols, int ld,
                                       dnnl_data_type_t dt)
{
    const dnnl_dims_t dims = { rows, cols };
    const dnnl_dims_t strides = { ld, 1 };
    return dnnl_memory_desc_init_by_strides(md, 2, dims, dt, strides);
}

/* Frees mm's primitive and the memories made with it (not weights). */
static void onednn_matmul_drop_primitive(onednn_matmul *mm)
{
    if (mm->src)
        dnnl_memory_destroy(mm->src);
    if (mm->dst)
        dnnl_memory_destroy(mm->dst);
    if (mm->matmul)
        dnnl_primitive_destroy(mm->matmul);
    if (mm->pd)
        dnnl_primitive_desc_destroy(mm->pd);
    mm->src = mm->dst = NULL;
    mm->matmul = NULL;
    mm->pd = NULL;
}

static void onednn_matmul_release(void *state)
{
    onednn_matmul *mm = state;

    if (!mm)
        return;
    onednn_matmul_drop_primitive(mm);
    if (mm->weights)
        dnnl_memory_destroy(mm->weights);
    if (mm->stream)
        dnnl_stream_destroy(mm->stream);
    if (mm->engine)
        dnnl_engine_destroy(mm->engine);
    free(mm);
}

/* (Re)makes mm's primitive for A at lda, C at ldc and B as mm->b_md, under
 * nthreads OpenMP threads; *step names what failed. */
static dnnl_status_t onednn_matmul_build(onednn_matmul *mm, int lda, int ldc, int nthreads,
                                         const char **step)
{
    const int before = omp_get_max_threads();
    dnnl_memory_desc_t a_md, c_md;
    dnnl_matmul_desc_t op;
    dnnl_status_t st;

    onednn_matmul_drop_primitive(mm);
    mm->lda = lda;
    mm->ldc = ldc;
    mm->nthreads = nthreads;
    omp_set_num_threads(nthreads);
    *step = "memory descriptors";
    st = onednn_strided_md(&a_md, mm->M, mm->K, lda, mm->types->a);
    if (st == dnnl_success)
        st = onednn_strided_md(&c_md, mm->M, mm->N, ldc, mm->types->c);
    if (st == dnnl_success) {
        *step = "matmul descriptor";
        st = dnnl_matmul_desc_init(&op, &a_md, &mm->b_md, NULL, &c_md);
    }
    if (st == dnnl_success) {
        *step = "primitive descriptor";
        st = dnnl_primitive_desc_create(&mm->pd, &op, NULL, mm->engine, NULL);
    }
    if (st == dnnl_success) {
        *step = "primitive";
        st = dnnl_primitive_create(&mm->matmul, mm->pd);
    }
    if (st == dnnl_success) {
        *step = "memories";
        st = dnnl_memory_create(&mm->src, &a_md, mm->engine, DNNL_MEMORY_NONE);
    }
    if (st == dnnl_success)
        st = dnnl_memory_create(&mm->dst, &c_md, mm->engine, DNNL_MEMORY_NONE);
    omp_set_num_threads(before);
    return st;
}

/* B (plain as b_plain describes it) into mm->weights, in the layout the
 * primitive chose, once, under nthreads threads. */
static dnnl_status_t onednn_prepack_b(onednn_matmul *mm, const dnnl_memory_desc_t *b_plain,
                                      const void *B, int nthreads)
{
    const int before = omp_get_max_threads();
    dnnl_primitive_desc_t reorder_pd = NULL;
    dnnl_primitive_t reorder = NULL;
    dnnl_memory_t user_b = NULL;
    dnnl_status_t st;

    omp_set_num_threads(nthreads);
    st = dnnl_memory_create(&mm->weights, &mm->b_md, mm->engine, DNNL_MEMORY_ALLOCATE);
    if (st == dnnl_success)
        st = dnnl_memory_create(&user_b, b_plain, mm->engine, (void *)B);
    if (st == dnnl_success)
        st = dnnl_reorder_primitive_desc_create(&reorder_pd, b_plain, mm->engine, &mm->b_md,
                                                mm->engine, NULL);
    if (st == dnnl_success)
        st = dnnl_primitive_create(&reorder, reorder_pd);
    if (st == dnnl_success) {
        const dnnl_exec_arg_t args[] = { { DNNL_ARG_FROM, user_b }, { DNNL_ARG_TO, mm->weights } };
        st = dnnl_primitive_execute(reorder, mm->stream, 2, args);
    }
    if (st == dnnl_success)
        st = dnnl_stream_wait(mm->stream);
    if (reorder)
        dnnl_primitive_destroy(reorder);
    if (reorder_pd)
        dnnl_primitive_desc_destroy(reorder_pd);
    if (user_b)
        dnnl_memory_destroy(user_b);
    omp_set_num_threads(before);
    return st;
}

/* The matmul of type t for an MxKxN problem with B at ldb; B reordered into
 * the primitive's own layout when prepack is set.  On failure ctx->why
 * names the step and oneDNN's status. */
static int onednn_matmul_prepare(const onednn_types *t, int M, int N, int K, const void *B,
                                 int ldb, const gb_ctx *ctx, int prepack, void **state)
{
    onednn_matmul *mm = calloc(1, sizeof *mm);
    dnnl_memory_desc_t b_plain;
    const char *step = "engine";
    dnnl_status_t st;

    *state = NULL;
    if (!mm)
        return -1;
    mm->types = t;
    mm->M = M;
    mm->N = N;
    mm->K = K;
    mm->prepacked = prepack;
    st = dnnl_engine_create(&mm->engine, dnnl_cpu, 0);
    if (st == dnnl_success) {
        step = "stream";
        st = dnnl_stream_create(&mm->stream, mm->engine, dnnl_stream_default_flags);
    }
    if (st == dnnl_success) {
        const dnnl_dims_t b_dims = { K, N };
        step = "memory descriptors";
        st = onednn_strided_md(&b_plain, K, N, ldb, t->b);
        mm->b_md = b_plain;
        if (st == dnnl_success && prepack)
            st = dnnl_memory_desc_init_by_tag(&mm->b_md, 2, b_dims, t->b, dnnl_format_tag_any);
    }
    if (st == dnnl_success)
        st = onednn_matmul_build(mm, K + (ldb - N), ldb, ctx->nthreads, &step);
    if (st == dnnl_success && !prepack) {
        step = "memories";
        st = dnnl_memory_create(&mm->weights, &b_plain, mm->engine, DNNL_MEMORY_NONE);
    }
    if (st == dnnl_success && prepack) {
        /* From here on B is the chosen layout, also for a rebuild in run. */
        const dnnl_memory_desc_t *chosen =
            dnnl_primitive_desc_query_md(mm->pd, dnnl_query_weights_md, 0);
        step = "reorder of B";
        st = chosen ? dnnl_success : dnnl_runtime_error;
        if (st == dnnl_success) {
            mm->b_md = *chosen;
            st = onednn_prepack_b(mm, &b_plain, B, ctx->nthreads);
        }
    }
    if (st == dnnl_success) {
        *state = mm;
        return 0;
    }
    if (ctx->why && ctx->whylen) {
        const char *name = dnnl_status2str ? dnnl_status2str(st) : "";
        if (st == dnnl_unimplemented && strcmp(step, "primitive descriptor") == 0)
            snprintf(ctx->why, ctx->whylen, "oneDNN has no %s matmul on this CPU: %s",
                     gb_dtype_name(t->dtype), name[0] ? name : "unimplemented");
        else
            snprintf(ctx->why, ctx->whylen, "oneDNN %s matmul: %s failed: %s (status %d)",
                     gb_dtype_name(t->dtype), step, name, (int)st);
    }
    onednn_matmul_release(mm);
    return -1;
}

static int onednn_prepare_bf16(int M, int N, int K, const void *B, int ldb, const gb_ctx *ctx,
                               int prepack, void **state)
{
    return onednn_matmul_prepare(&onednn_bf16, M, N, K, B, ldb, ctx, prepack, state);
}

static int onednn_prepare_u8s8(int M, int N, int K, const void *B, int ldb, const gb_ctx *ctx,
                               int prepack, void **state)
{
    return onednn_matmul_prepare(&onednn_u8s8, M, N, K, B, ldb, ctx, prepack, state);
}

/* One execute on this call's operands (B: the pre-packed copy when there
 * is one), under ctx->nthreads threads.  The shape is prepare()'s. */
static int onednn_matmul_run(int M, int N, int K, const void *A, int lda, const void *B,
                             int ldb, void *C, int ldc, const gb_ctx *ctx)
{
    onednn_matmul *mm = ctx->state;
    const char *step;
    dnnl_status_t st = dnnl_success;
    int before;

    (void)ldb;
    if (!mm || M != mm->M || N != mm->N || K != mm->K)
        return -1;
    if (lda != mm->lda || ldc != mm->ldc || ctx->nthreads != mm->nthreads)
        st = onednn_matmul_build(mm, lda, ldc, ctx->nthreads, &step);
    if (st == dnnl_success)
        st = dnnl_memory_set_data_handle(mm->src, (void *)A);
    if (st == dnnl_success)
        st = dnnl_memory_set_data_handle(mm->dst, C);
    if (st == dnnl_success && !mm->prepacked)
        st = dnnl_memory_set_data_handle(mm->weights, (void *)B);
    if (st != dnnl_success)
        return -1;
    before = omp_get_max_threads();
    omp_set_num_threads(ctx->nthreads);
    {
        const dnnl_exec_arg_t args[] = {
            { DNNL_ARG_SRC, mm->src }, { DNNL_ARG_WEIGHTS, mm->weights }, { DNNL_ARG_DST, mm->dst }
        };
        st = dnnl_primitive_execute(mm->matmul, mm->stream, 3, args);
    }
    if (st == dnnl_success)
        st = dnnl_stream_wait(mm->stream);
    omp_set_num_threads(before);
    return st == dnnl_success ? 0 : -1;
}

/* The implementation oneDNN picked: "brg:avx512_core_bf16", "gemm:jit", ... */
static void onednn_matmul_impl(int M, int N, int K, const gb_ctx *ctx, char *buf, size_t len)
{
    const onednn_matmul *mm = ctx->state;
    const char *info = NULL;

    (void)M, (void)N, (void)K;
    if (len == 0)
        return;
    if (!mm || !mm->pd ||
        dnnl_primitive_desc_query(mm->pd, dnnl_query_impl_info_str, 0, &info) != dnnl_success)
        info = NULL;
    snprintf(buf, len, "%s", info ? info : "");
}

static const gb_typed_kernel onednn_matmul_bf16 = {
    .run = onednn_matmul_run,
    .prepare = onednn_prepare_bf16,
    .release = onednn_matmul_release,
    .impl = onednn_matmul_impl,
    .supports_prepack = 1,
};

static const gb_typed_kernel onednn_matmul_u8s8 = {
    .run = onednn_matmul_run,
    .prepare = onednn_prepare_u8s8,
    .release = onednn_matmul_release,
    .impl = onednn_matmul_impl,
    .supports_prepack = 1,
};
#define ONEDNN_TYPED { [GB_DTYPE_BF16] = &onednn_matmul_bf16, [GB_DTYPE_U8S8] = &onednn_matmul_u8s8 }
#define ONEDNN_TYPES_NOTE NULL
#else
#define ONEDNN_TYPED { NULL }
#define ONEDNN_TYPES_NOTE "bf16 and u8s8 are written against oneDNN's 2.x C API; this is oneDNN 3"
#endif

const gb_variant gb_variant_onednn = {
    .name = "onednn",
    .family = "reference",
    .description = "oneDNN dnnl_sgemm (row-major, beta=0), threads via omp_set_num_threads; "
                   "bf16 and u8s8: its matmul primitive",
    .run = onednn_run,
    .resolve = reference_resolve,
    .library = onednn_library,
    .typed = ONEDNN_TYPED,
    .types_note = ONEDNN_TYPES_NOTE,
};
#endif
