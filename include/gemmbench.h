/*
 * gemmbench.h - the kernel interface every schedule implements, and the
 * parameters a schedule takes (src/base/params.c); the variant table is
 * variants.h.
 *
 * A schedule computes C[M][N] = sum_k A[M][K] * B[K][N] in fp32, row-major,
 * beta = 0 (C is overwritten), with explicit leading dimensions so padded
 * layouts and sub-matrices work.  Adding a schedule is one file under
 * schedules/ that defines a gb_variant, plus one line in schedules/table.c.
 */
#ifndef GEMMBENCH_H
#define GEMMBENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define GB_VERSION "0.1.0"

/* Exit codes of every command. */
enum gb_exit {
    GB_EXIT_OK = 0,
    GB_EXIT_CHECK_FAILED = 1, /* a verification failed, or compare found a regression */
    GB_EXIT_USAGE = 2,        /* usage, config or input error */
    GB_EXIT_IO = 3,           /* I/O or system error */
    GB_EXIT_INTERRUPTED = 130
};

/* ---- schedule parameters (--param key=value) ---------------------------- */

/* packed's effective parameters alone are 19 at mlp_expand's shapes (every
 * calibrated answer, the blocks, the grid): room for them and more. */
#define GB_MAX_PARAMS 32
#define GB_PARAM_KEY_LEN 24

/* What a variant accepts: an integer in [min, max], or, when choices is
 * non-NULL, one of the NULL-terminated names (stored as its index).  A spec
 * with min > max names a value the variant only reports (in the JSON's
 * effective_params, through resolve) and --param refuses. */
typedef struct gb_param_spec {
    const char *key;
    long min, max;
    const char *const *choices;
    const char *help;
} gb_param_spec;

/* The values the user set; a variant falls back to its own rule for the rest. */
typedef struct gb_params {
    int count;
    char key[GB_MAX_PARAMS][GB_PARAM_KEY_LEN];
    long value[GB_MAX_PARAMS];
} gb_params;

/* The value set for key, or fallback when the user did not set it. */
long gb_param_get(const gb_params *params, const char *key, long fallback);
/* Whether a and b set the same keys to the same values, in any order. */
int gb_params_equal(const gb_params *a, const gb_params *b);
/* Sets (or replaces) key; returns -1 when the table is full. */
int gb_param_set(gb_params *params, const char *key, long value);


/* ---- element types (src/base/dtype.c) ------------------------------------ */

/* The type of a GEMM's operands, as oneDNN names its matmul's data types
 * (src:weights:dst).  Every type's inputs are integers, so every type's
 * result is exact whatever the order of the sums (harness.c). */
typedef enum gb_dtype {
    GB_DTYPE_F32 = 0, /* f32:f32:f32, the kernel interface below */
    GB_DTYPE_BF16,    /* bf16:bf16:f32: A and B bfloat16, sums and C float */
    GB_DTYPE_U8S8,    /* u8:s8:s32: A uint8_t, B int8_t, C int32_t, sums as
                       * VNNI's vpdpbusd makes them (no saturation) */
    GB_DTYPE_COUNT
} gb_dtype;

/* A bfloat16 as stored: the high 16 bits of a float. */
typedef uint16_t gb_bf16;

/* "f32", "bf16", "u8s8". */
const char *gb_dtype_name(gb_dtype t);
/* The type named s: 0, or -1 when s names none. */
int gb_dtype_parse(const char *s, gb_dtype *t);
/* 1 for an integer type (throughput in GOP/s, not GFLOP/s). */
int gb_dtype_is_integer(gb_dtype t);
/* Bytes of one element of A, of B and of C. */
size_t gb_dtype_size_a(gb_dtype t);
size_t gb_dtype_size_b(gb_dtype t);
size_t gb_dtype_size_c(gb_dtype t);
/* f rounded to the nearest bfloat16, ties to even (NaN stays a NaN). */
gb_bf16 gb_bf16_from_float(float f);
float gb_bf16_to_float(gb_bf16 b);


/* ---- the kernel interface ------------------------------------------------ */

/* Per-call context: everything a kernel may use besides the operands. */
typedef struct gb_ctx {
    int nthreads;             /* OpenMP threads the kernel may use (>= 1) */
    const gb_params *params;  /* user overrides; never NULL */
    void *state;              /* what prepare() returned, or NULL */
    char *why;                /* where a failing prepare() may say why, one
                               * line of at most whylen bytes; NULL: nowhere */
    size_t whylen;
    /* Threads of gemmbench's own that a kernel may run its parallel part
     * on (packed's team, placed as OpenMP places its threads), where the
     * caller offers them: runs fn(arg, t, nt) for t = 0 .. nt - 1 (t = 0
     * on the caller) and returns 1, or runs nothing and returns 0 (the
     * kernel then opens an OpenMP region).  NULL: none offered. */
    int (*pool)(int nthreads, void (*fn)(void *arg, int t, int nt), void *arg);
} gb_ctx;

/* One signature for every schedule.  Returns 0, or -1 when it could not run
 * (allocation failure); it never prints. */
typedef int (*gb_kernel_fn)(int M, int N, int K,
                            const float *A, int lda,
                            const float *B, int ldb,
                            float *C, int ldc,
                            const gb_ctx *ctx);

/* Optional set-up outside the timed region, once per measurement (e.g. pack
 * buffers, or B pre-packed when prepack is set).  Returns 0 or -1; on -1 it
 * may write the reason into ctx->why (else: out of memory is assumed). */
typedef int (*gb_prepare_fn)(int M, int N, int K, const float *B, int ldb,
                             const gb_ctx *ctx, int prepack, void **state);
/* Called once after every measurement whose prepare() succeeded, with what
 * prepare() stored (which may be NULL). */
typedef void (*gb_release_fn)(void *state);

/* Optional: the parameters the variant will actually use on this shape
 * (rules applied to the user's overrides), for the JSON and --explain. */
typedef void (*gb_resolve_fn)(int M, int N, int K, const gb_ctx *ctx,
                              gb_params *effective);

/* Optional: whether this build and CPU can run the variant with these
 * parameters at all (packed's --param isa=avx512 on a CPU without it).
 * Returns 0, or -1 with a one-line reason in why; asked once per parameter
 * set before a sweep starts, so that such a run fails up front as an input
 * error instead of as a failed set-up in the middle. */
typedef int (*gb_usable_fn)(const gb_params *params, char *why, size_t whylen);

/* Optional: print, for --explain, how the schedule was derived for a shape. */
typedef void (*gb_explain_fn)(FILE *out, int M, int N, int K,
                              const gb_ctx *ctx);

/* Optional, for the reference variants: which library and which of its
 * kernels this process runs.  A library picks its kernels when it loads,
 * from the CPU or from an environment variable that overrides it (a VM's
 * OPENBLAS_CORETYPE=Haswell halves OpenBLAS on an AVX-512 CPU), so a
 * result file must say what ran.  Empty strings: unknown. */
typedef struct gb_library {
    char version[64];    /* "0.3.21" */
    char kernels[64];    /* the kernel set it chose: "Cooperlake", "skx", "avx512_core" */
    char forced_by[128]; /* "VAR=value" when the environment chose them, else "" */
} gb_library;
typedef void (*gb_library_fn)(gb_library *lib);

/* A kernel of another type than f32 (gb_dtype): the f32 kernel's contract
 * (row-major, beta = 0, leading dimensions in elements) with A, B and C of
 * the type's storage: bf16 gb_bf16, gb_bf16, float; u8s8 uint8_t, int8_t,
 * int32_t.  ctx->params is always empty: --param sets are f32's. */
typedef int (*gb_typed_kernel_fn)(int M, int N, int K, const void *A, int lda,
                                  const void *B, int ldb, void *C, int ldc,
                                  const gb_ctx *ctx);
typedef int (*gb_typed_prepare_fn)(int M, int N, int K, const void *B, int ldb,
                                   const gb_ctx *ctx, int prepack, void **state);
/* Which code ran, for the entry's "impl": "avx512_bf16", "avx512_vnni",
 * "portable", oneDNN's "brg:avx512_core_bf16"; after prepare (ctx->state). */
typedef void (*gb_impl_fn)(int M, int N, int K, const gb_ctx *ctx, char *buf, size_t len);

typedef struct gb_typed_kernel {
    gb_typed_kernel_fn run;
    gb_typed_prepare_fn prepare; /* optional, as gb_variant's */
    gb_release_fn release;       /* optional */
    gb_impl_fn impl;             /* optional */
    /* Optional: whether this CPU and OS run the kernel at all (AMX: the
     * CPU's tiles and Linux's permission for them): 1, or 0 with a one-line
     * reason in why.  A kernel that says 0 is skipped with the reason
     * (exit 0), never called.  Without it: always. */
    int (*available)(char *why, size_t whylen);
    int supports_prepack;
    /* Optional: --explain for this type, where the variant's explain
     * describes its f32 plan only (packed, ml_guided).  Without it the
     * variant's explain runs (a typed schedule's knows its type). */
    gb_explain_fn explain;
} gb_typed_kernel;

typedef struct gb_variant {
    const char *name;          /* the interface: never renamed */
    const char *family;        /* --variant accepts family names too */
    const char *description;   /* one line, for --list and the docs */
    gb_kernel_fn run;          /* f32's kernel; NULL: the variant runs no f32,
                                * and types_note says why */
    const gb_param_spec *params; /* accepted --param keys, {0}-terminated; NULL if none */
    gb_prepare_fn prepare;     /* optional */
    gb_release_fn release;     /* optional, frees prepare's state */
    gb_resolve_fn resolve;     /* optional */
    gb_explain_fn explain;     /* optional */
    gb_usable_fn usable;       /* optional; without it, always usable */
    int supports_prepack;      /* prepare() honours prepack = 1 */
    /* Optional: the variant whose parameters this one runs (tuned runs
     * rule_based's, tuned_packed packed's); its spec names their values in
     * effective_params (packed's isa=avx512, not isa=1). */
    const struct gb_variant *base;
    /* 1 when the kernel runs on one thread whatever ctx->nthreads says: a
     * --threads list measures it once, at 1 thread, not once per count. */
    int single_thread;
    gb_library_fn library;     /* optional: reference libraries */
    /* The kernels of the other types, by gb_dtype ([GB_DTYPE_F32] unused:
     * run above is f32's).  NULL: the variant does not run that type, and
     * types_note says why (--list, and the run's skipped entries), as it
     * does for a NULL run. */
    const gb_typed_kernel *typed[GB_DTYPE_COUNT];
    const char *types_note;
} gb_variant;

/* Parses "key=value[,key=value...]" against what variant v accepts: unknown
 * keys, out-of-range numbers and unknown choices are errors.  An empty text
 * gives empty params.  Returns 0, or -1 with err. */
int gb_params_parse(const gb_variant *v, const char *text, gb_params *p,
                    char *err, size_t errlen);
/* Whether v takes every key of the --param set text: 1, or 0 with the
 * first key it lacks in missing.  Items that are not key=value count as
 * taken, so that gb_params_parse names them. */
int gb_params_accepts(const gb_variant *v, const char *text, char *missing, size_t len);
/* "k=v,k=v" in set order (choices by name), or "" when empty. */
void gb_params_format(const gb_variant *v, const gb_params *p, char *buf, size_t len);

#endif
