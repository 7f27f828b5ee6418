/*
 * rule_based - the study's final rule-based schedule: 12 rules, each a
 * decision the study traces to one of its measured trends (its table "The
 * final rule-based schedule applies 12 rules" and its Steps 1-13).  Each
 * rule is a fixed decision, so the schedule costs no search and every
 * choice can be printed (--explain).
 *
 *   R1  TK = 8                       split(k, TK)
 *   R2  always parallel              OpenMP threads over the fused tile loop
 *   R3  vector width = hw lanes      j_vec as simd with simdlen(GB_VEC_LANES)
 *   R4  loop order                   fused(io, jo) -> ko -> ii -> ji_o -> ki -> j_vec
 *   R5  fuse(io, jo), then parallel  tasks = ceil(M / TM) * ceil(N / TN)
 *   R6  TN = 64                      split(j, TN)
 *   R7  TM = M if M <= 32, 64 if M % 64 == 0, else 32
 *   R8  j_pack = 32                  split(j_inner, 32), for compute and write-back
 *   R9  unroll ki                    #pragma GCC unroll, ki fully unrolled
 *   R10 cache_write                  a local TM x TN C tile, written to C once
 *   R11 decompose_reduction          the tile zeroed before ko, not inside it
 *   R12 auto_unroll 64               ji_o unrolled when ji_o x ki <= 64 steps
 *
 * The C nest they become, per task (one TM x TN tile of C):
 *
 *   parallel for t in tasks:                          R2, R5: t = io * (N/TN) + jo
 *     ctile[0:TM][0:TN] = 0                           R10 local tile, R11 init
 *     for ko in K / TK:                               R1
 *       for ii in TM:
 *         for ji_o in TN / JP:                        R8, R12
 *           ki unrolled x TK:                         R9
 *             simd j_vec in JP:                       R3: JP / lanes vectors
 *               ctile[ii][ji_o JP + j_vec] += A[io TM + ii][ko TK + ki] * B[k][jo TN + ji_o JP + j_vec]
 *     K % TK tail: one more ko step with ki = K % TK (a plain loop)
 *     for ii, ji_o:  simd j_vec:  C[i][j] = ctile[ii][j]       R10 once, R8 split
 *
 * Tails: the last row tile has M % TM rows, the last column tile N % TN
 * columns, the last strip of a tile tn % JP lanes; all run the same nest.
 *
 * --param tm, tn, tk, jpack, unroll_ki override the rules (the study's
 * ablations); tiles larger than the shape are clamped to it, so the local
 * tile is never larger than C.  The kernels are compiled with TK and JP as
 * constants for TK in {4, 8, 16, 32, 64} and JP in {8, 16, 32, 64} (so ki
 * is fully unrolled and j_vec is a fixed set of vectors, as TVM generates
 * them); any other value runs the same nest with run-time bounds, ki
 * unrolled x8, which --explain says.
 *
 * The local tile is allocated per thread at every call (TM x TN floats),
 * never static and never on the stack, since overrides make it large.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gemmbench.h"
#include "schedule_util.h"

/* The rules' constants. */
enum {
    RULE_TK = 8,           /* R1 */
    RULE_TN = 64,          /* R6 */
    RULE_TM_SMALL_M = 32,  /* R7: M up to this is one row tile */
    RULE_TM_LARGE = 64,    /* R7: when it divides M */
    RULE_TM_OTHER = 32,    /* R7: otherwise */
    RULE_JPACK = 32,       /* R8 */
    RULE_AUTO_UNROLL = 64, /* R12: pragma_auto_unroll_max_step */
};

#define RB_TILE_ALIGN 64 /* a cache line: the local tile's rows start on one */

/* How the ki loop is unrolled. */
enum rb_unroll {
    RB_UNROLL_OFF,     /* --param unroll_ki=off, and the K % TK tail */
    RB_UNROLL_FULL,    /* R9 with TK a compile-time constant */
    RB_UNROLL_PARTIAL, /* R9 with TK known only at run time: x8 */
};

/* One tile parameter: what its rule says, what --param asked (0: nothing),
 * and the value used, clamped to the shape (a tile wider than the matrix is
 * the matrix). */
typedef struct rb_choice {
    int rule, asked, value;
} rb_choice;

/* The decisions for one shape: the rules applied to the user's overrides. */
typedef struct rb_plan {
    int M, N, K;
    int threads;
    rb_choice tm, tn, tk, jpack; /* R7, R6, R1, R8 */
    int unroll_ki, unroll_asked; /* R9: on or off; set by --param */
    int m_tiles, n_tiles, tasks; /* R5 */
    int specialised;             /* TK and JP have a compiled kernel */
    int jio_unrolled;            /* R12 unrolls ji_o */
} rb_plan;

/* R7. */
static int rule_tm(int M)
{
    if (M <= RULE_TM_SMALL_M)
        return M;
    return M % RULE_TM_LARGE == 0 ? RULE_TM_LARGE : RULE_TM_OTHER;
}

static int is_specialised(int tk, int jpack);
static int jio_unroll_fits(int tk, int jp);

static rb_choice choose(const gb_params *params, const char *key, int rule, int limit)
{
    rb_choice c = { rule, (int)gb_param_get(params, key, 0), 0 };
    c.value = gb_min_int(c.asked > 0 ? c.asked : rule, limit);
    return c;
}

static void plan_make(int M, int N, int K, const gb_ctx *ctx, rb_plan *p)
{
    const gb_params *params = ctx->params;
    long unroll = gb_param_get(params, "unroll_ki", -1);

    memset(p, 0, sizeof *p);
    p->M = M, p->N = N, p->K = K;
    p->threads = ctx->nthreads > 0 ? ctx->nthreads : 1;             /* R2 */
    p->tk = choose(params, "tk", RULE_TK, INT32_MAX);                /* R1 */
    p->tn = choose(params, "tn", RULE_TN, N);                        /* R6 */
    p->tm = choose(params, "tm", rule_tm(M), M);                     /* R7 */
    p->jpack = choose(params, "jpack", RULE_JPACK, p->tn.value);     /* R8 */
    p->unroll_asked = unroll >= 0;                                   /* R9 */
    p->unroll_ki = p->unroll_asked ? (int)unroll : 1;
    p->m_tiles = (M + p->tm.value - 1) / p->tm.value;                /* R5 */
    p->n_tiles = (N + p->tn.value - 1) / p->tn.value;
    p->tasks = p->m_tiles * p->n_tiles;
    p->specialised = is_specialised(p->tk.value, p->jpack.value);
    p->jio_unrolled = p->specialised && p->tn.value == RULE_TN &&    /* R12 */
                      jio_unroll_fits(p->tk.value, p->jpack.value);
}

/* ---- the nest ------------------------------------------------------------ */

/* One task's operands: the tile's rows of A (from its first row), columns
 * of B and C (from its first column), and the thread's local tile ct (row
 * stride ldt).  Every kernel below takes them as restrict parameters of a
 * function of its own: GCC honours restrict only on the parameters of the
 * function it compiles, and needs it here to keep a strip's vectors in
 * registers across the unrolled ki (TVM tells LLVM the same: noalias). */
#define RB_OPERANDS                                                                   \
    int tm, int tn, int K, const float *restrict A, int lda, const float *restrict B, \
        int ldb, float *restrict ct, int ldt, float *restrict C, int ldc
#define RB_OPERAND_NAMES tm, tn, K, A, lda, B, ldb, ct, ldt, C, ldc

#define RB_INLINE static inline __attribute__((always_inline))

/* c[0:n] += a * b[0:n] at the hardware's width (R3). */
RB_INLINE void lanes_axpy(int n, float a, const float *restrict b, float *restrict c)
{
#pragma omp simd simdlen(GB_VEC_LANES)
    for (int j = 0; j < n; j++)
        c[j] += a * b[j];
}

RB_INLINE void lanes_copy(int n, const float *restrict src, float *restrict dst)
{
#pragma omp simd simdlen(GB_VEC_LANES)
    for (int j = 0; j < n; j++)
        dst[j] = src[j];
}

RB_INLINE void lanes_zero(int n, float *restrict c)
{
#pragma omp simd simdlen(GB_VEC_LANES)
    for (int j = 0; j < n; j++)
        c[j] = 0.0f;
}

/* ki -> j_vec for one strip of w lanes: c[0:w] += sum over ki of a[ki] * b[ki][0:w].
 * With tk and w constants and ki unrolled, the strip's vectors stay in
 * registers across ki and reach c once. */
RB_INLINE void strip_update(int tk, int w, enum rb_unroll unroll, const float *a,
                            const float *b, int ldb, float *c)
{
    if (unroll == RB_UNROLL_FULL) {
#pragma GCC unroll 64
        for (int ki = 0; ki < tk; ki++)
            lanes_axpy(w, a[ki], b + (size_t)ki * ldb, c);
    } else if (unroll == RB_UNROLL_PARTIAL) {
#pragma GCC unroll 8
        for (int ki = 0; ki < tk; ki++)
            lanes_axpy(w, a[ki], b + (size_t)ki * ldb, c);
    } else {
#pragma GCC unroll 1
        for (int ki = 0; ki < tk; ki++)
            lanes_axpy(w, a[ki], b + (size_t)ki * ldb, c);
    }
}

/* The edges, one copy for every kernel: strips narrower than JP, and the
 * K % TK tail; their bounds are known only at run time, so ki stays a loop. */
static __attribute__((noinline)) void strip_update_edge(int tk, int w, const float *restrict a,
                                                        const float *restrict b, int ldb,
                                                        float *restrict c)
{
    strip_update(tk, w, RB_UNROLL_OFF, a, b, ldb, c);
}

/* R12 for a kernel compiled with TK and JP: ji_o x ki within the unroll
 * budget, ji_o counted over a full TN = 64 tile (the one width whose trip
 * count is a constant here). */
static int jio_unroll_fits(int tk, int jp)
{
    return jp > 0 && RULE_TN % jp == 0 && (RULE_TN / jp) * tk <= RULE_AUTO_UNROLL;
}

/* One ko step of a tile: ii -> ji_o -> (ki -> j_vec), k from k0, tk deep.
 * compiled: tk and jp are constants, so a full 64-wide tile runs ji_o with
 * a constant trip count, unrolled when R12's budget allows. */
RB_INLINE void ko_step(int tk, int jp, enum rb_unroll unroll, int compiled, int k0,
                       RB_OPERANDS)
{
    const float *b = B + (size_t)k0 * ldb;
    const int full = tn - tn % jp;
    const int unroll_jio = compiled && jio_unroll_fits(tk, jp);

    (void)K, (void)C, (void)ldc;
    if (unroll_jio && tn == RULE_TN) {
        /* Tested outside ii, so that every iteration of ii runs the same
         * code and the ko step's rows of B stay in registers across ii
         * (with the test inside, GCC read them from B at every ii:
         * 1.46 ms against 1.05 at M=96, N=K=768, one thread). */
        for (int ii = 0; ii < tm; ii++) {
            const float *a = A + (size_t)ii * lda + k0;
            float *c = ct + (size_t)ii * ldt;
#pragma GCC unroll 64
            for (int j = 0; j < RULE_TN; j += jp) /* ji_o, unrolled (R12) */
                strip_update(tk, jp, unroll, a, b + j, ldb, c + j);
        }
        return;
    }
    for (int ii = 0; ii < tm; ii++) {
        const float *a = A + (size_t)ii * lda + k0;
        float *c = ct + (size_t)ii * ldt;

#pragma GCC unroll 1
        for (int j = 0; j < full; j += jp) /* ji_o */
            strip_update(tk, jp, unroll, a, b + j, ldb, c + j);
        if (full < tn) /* the tile's last, narrower strip */
            strip_update_edge(tk, tn - full, a, b + full, ldb, c + full);
    }
}

/* The K % TK tail: one more ko step, tk_tail deep, at run-time bounds. */
static __attribute__((noinline)) void ko_step_tail(int tk_tail, int jp, int k0, RB_OPERANDS)
{
    ko_step(tk_tail, jp, RB_UNROLL_OFF, 0, k0, RB_OPERAND_NAMES);
}

/* One task: init, ko steps, K tail, write-back. */
RB_INLINE void tile_run(int tk, int jp, enum rb_unroll unroll, int compiled, RB_OPERANDS)
{
    const int full = tn - tn % jp;
    int k0 = 0;

    for (int ii = 0; ii < tm; ii++) /* R11: init apart from the update */
        lanes_zero(tn, ct + (size_t)ii * ldt);
    for (; k0 + tk <= K; k0 += tk) /* ko */
        ko_step(tk, jp, unroll, compiled, k0, RB_OPERAND_NAMES);
    if (k0 < K) /* tail of split(k, TK) */
        ko_step_tail(K - k0, jp, k0, RB_OPERAND_NAMES);
    for (int ii = 0; ii < tm; ii++) { /* R10: C written once; R8: split by JP */
        const float *src = ct + (size_t)ii * ldt;
        float *dst = C + (size_t)ii * ldc;
        for (int j = 0; j < full; j += jp)
            lanes_copy(jp, src + j, dst + j);
        if (full < tn)
            lanes_copy(tn - full, src + full, dst + full);
    }
}

/* The compiled kernels: TK x JP x (unroll ki on/off), TK and JP constants;
 * and two with both at run time for any other TK or JP. */
typedef void (*rb_kernel_fn)(int tk, int jp, RB_OPERANDS);

#define RB_DEFINE(TK, JP, U)                                                      \
    static void rb_kernel_##TK##_##JP##_##U(int tk, int jp, RB_OPERANDS)          \
    {                                                                             \
        (void)tk, (void)jp;                                                       \
        tile_run(TK, JP, (U) ? RB_UNROLL_FULL : RB_UNROLL_OFF, 1, RB_OPERAND_NAMES); \
    }
#define RB_ENTRY(TK, JP, U) { TK, JP, U, rb_kernel_##TK##_##JP##_##U },
#define RB_FOR_JP(X, TK, U) X(TK, 8, U) X(TK, 16, U) X(TK, 32, U) X(TK, 64, U)
#define RB_FOR_TK(X, U)                                                             \
    RB_FOR_JP(X, 4, U) RB_FOR_JP(X, 8, U) RB_FOR_JP(X, 16, U) RB_FOR_JP(X, 32, U)   \
        RB_FOR_JP(X, 64, U)
#define RB_ALL(X) RB_FOR_TK(X, 1) RB_FOR_TK(X, 0)

RB_ALL(RB_DEFINE)

static const struct {
    int tk, jp, unroll;
    rb_kernel_fn fn;
} rb_kernels[] = { RB_ALL(RB_ENTRY) };

static void rb_kernel_generic_unrolled(int tk, int jp, RB_OPERANDS)
{
    tile_run(tk, jp, RB_UNROLL_PARTIAL, 0, RB_OPERAND_NAMES);
}

static void rb_kernel_generic(int tk, int jp, RB_OPERANDS)
{
    tile_run(tk, jp, RB_UNROLL_OFF, 0, RB_OPERAND_NAMES);
}

static int is_specialised(int tk, int jpack)
{
    for (size_t i = 0; i < sizeof rb_kernels / sizeof rb_kernels[0]; i++)
        if (rb_kernels[i].tk == tk && rb_kernels[i].jp == jpack)
            return 1;
    return 0;
}

static rb_kernel_fn pick_kernel(const rb_plan *p)
{
    for (size_t i = 0; i < sizeof rb_kernels / sizeof rb_kernels[0]; i++)
        if (rb_kernels[i].tk == p->tk.value && rb_kernels[i].jp == p->jpack.value &&
            rb_kernels[i].unroll == p->unroll_ki)
            return rb_kernels[i].fn;
    return p->unroll_ki ? rb_kernel_generic_unrolled : rb_kernel_generic;
}

static int rule_based_run(int M, int N, int K, const float *A, int lda, const float *B,
                          int ldb, float *C, int ldc, const gb_ctx *ctx)
{
    rb_plan p;
    rb_kernel_fn kernel;
    size_t ldt, tile_bytes;
    int failed = 0;

    plan_make(M, N, K, ctx, &p);
    kernel = pick_kernel(&p);
    /* Rows of the local tile padded to a cache line. */
    ldt = ((size_t)p.tn.value + RB_TILE_ALIGN / sizeof(float) - 1) &
          ~(RB_TILE_ALIGN / sizeof(float) - 1);
    tile_bytes = ldt * (size_t)p.tm.value * sizeof(float);

#pragma omp parallel num_threads(p.threads)
    {
        float *ctile = aligned_alloc(RB_TILE_ALIGN, tile_bytes);

        if (ctile == NULL) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(static)
        for (int task = 0; task < p.tasks; task++) { /* fused(io, jo) */
            const int i0 = task / p.n_tiles * p.tm.value;
            const int j0 = task % p.n_tiles * p.tn.value;
            if (ctile != NULL)
                kernel(p.tk.value, p.jpack.value, gb_min_int(p.tm.value, M - i0),
                       gb_min_int(p.tn.value, N - j0), K,
                       A + (size_t)i0 * lda, lda, B + j0, ldb, ctile, (int)ldt,
                       C + (size_t)i0 * ldc + j0, ldc);
        }
        free(ctile);
    }
    return failed ? -1 : 0;
}

/* ---- parameters, resolve, explain ---------------------------------------- */

static const char *const on_off[] = { "off", "on", NULL };

static const gb_param_spec rule_params[] = {
    { "tm", 1, 1000000, NULL, "row tile TM (R7: M if M <= 32, 64 if M % 64 == 0, else 32)" },
    { "tn", 1, 1000000, NULL, "column tile TN (R6: 64)" },
    { "tk", 1, 1000000, NULL, "reduction tile TK (R1: 8; compiled for 4 8 16 32 64)" },
    { "jpack", 1, 1000000, NULL, "j partition, compute and write-back (R8: 32; compiled "
                                 "for 8 16 32 64)" },
    { "unroll_ki", 0, 1, on_off, "unroll ki (R9: on)" },
    { NULL, 0, 0, NULL, NULL },
};

static void rule_based_resolve(int M, int N, int K, const gb_ctx *ctx, gb_params *eff)
{
    rb_plan p;

    plan_make(M, N, K, ctx, &p);
    memset(eff, 0, sizeof *eff);
    gb_param_set(eff, "tm", p.tm.value);
    gb_param_set(eff, "tn", p.tn.value);
    gb_param_set(eff, "tk", p.tk.value);
    gb_param_set(eff, "jpack", p.jpack.value);
    gb_param_set(eff, "unroll_ki", p.unroll_ki);
    gb_param_set(eff, "vec_lanes", GB_VEC_LANES);
    gb_param_set(eff, "m_tiles", p.m_tiles);
    gb_param_set(eff, "n_tiles", p.n_tiles);
    gb_param_set(eff, "tasks", p.tasks);
    gb_param_set(eff, "compiled_kernel", p.specialised);
}

static const char *plural(int n)
{
    return n == 1 ? "" : "s";
}

/* Where a tile value came from, when not from its rule alone:
 * "  [--param tn=128, clamped to N = 100; rule: 64]". */
static void print_origin(FILE *out, const char *key, rb_choice c, const char *dim)
{
    const int wanted = c.asked > 0 ? c.asked : c.rule;

    if (c.asked <= 0 && c.value == c.rule)
        return;
    fprintf(out, "  [");
    if (c.asked > 0)
        fprintf(out, "--param %s=%d%s", key, c.asked, c.value < wanted ? ", " : "");
    if (c.value < wanted)
        fprintf(out, "clamped to %s = %d", dim, c.value);
    if (c.asked > 0)
        fprintf(out, "; rule: %d", c.rule);
    fprintf(out, "]");
}

static void rule_based_explain(FILE *out, int M, int N, int K, const gb_ctx *ctx)
{
    rb_plan p;
    int tk, tn, tm, jp, strips;

    plan_make(M, N, K, ctx, &p);
    tk = p.tk.value, tn = p.tn.value, tm = p.tm.value, jp = p.jpack.value;
    strips = (tn + jp - 1) / jp;

    fprintf(out, "rule_based  M=%d K=%d N=%d  threads=%d\n", M, K, N, p.threads);

    fprintf(out, "  R1  TK = %d: k in %d step%s of %d", tk, K / tk, plural(K / tk), tk);
    if (K % tk)
        fprintf(out, " + a tail of %d", K % tk);
    fprintf(out, "; B strip %dx%d = %.1f KiB", tk, tn, tk * (double)tn * 4 / 1024);
    print_origin(out, "tk", p.tk, "K");
    fprintf(out, "\n");

    fprintf(out, "  R2  parallel: always; the fused tile loop on %d thread%s\n", p.threads,
            plural(p.threads));
    fprintf(out, "  R3  vector width = %d fp32 lanes (%s, this build)\n", GB_VEC_LANES,
            GB_VEC_ISA);
    fprintf(out, "  R4  loop order: fused(io,jo) -> ko -> ii -> ji_o -> ki -> j_vec\n");
    fprintf(out, "  R5  fuse(io, jo), then parallel: %d x %d = %d task%s, %.1f per thread\n",
            p.m_tiles, p.n_tiles, p.tasks, plural(p.tasks), (double)p.tasks / p.threads);

    fprintf(out, "  R6  TN = %d: %d column tile%s", tn, p.n_tiles, plural(p.n_tiles));
    if (N % tn)
        fprintf(out, ", the last %d wide", N % tn);
    print_origin(out, "tn", p.tn, "N");
    fprintf(out, "\n");

    fprintf(out, "  R7  TM = %d: ", tm);
    if (p.tm.asked > 0)
        fprintf(out, "set by --param");
    else if (M <= RULE_TM_SMALL_M)
        fprintf(out, "M <= %d, so TM = M", RULE_TM_SMALL_M);
    else if (M % RULE_TM_LARGE == 0)
        fprintf(out, "M %% %d == 0, so TM = %d", RULE_TM_LARGE, RULE_TM_LARGE);
    else
        fprintf(out, "M > %d and M %% %d != 0, so TM = %d", RULE_TM_SMALL_M, RULE_TM_LARGE,
                RULE_TM_OTHER);
    fprintf(out, "; %d row tile%s", p.m_tiles, plural(p.m_tiles));
    if (M % tm)
        fprintf(out, ", the last %d high", M % tm);
    print_origin(out, "tm", p.tm, "M");
    fprintf(out, "\n");

    fprintf(out, "  R8  j_pack = %d (%.3g vector%s of %d lanes): %d strip%s per column tile, "
            "compute and write-back", jp, (double)jp / GB_VEC_LANES,
            jp == GB_VEC_LANES ? "" : "s", GB_VEC_LANES, strips, plural(strips));
    print_origin(out, "jpack", p.jpack, "TN");
    fprintf(out, "\n");

    if (!p.unroll_ki)
        fprintf(out, "  R9  unroll ki: off  [--param unroll_ki=off; rule: on]\n");
    else if (p.specialised)
        fprintf(out, "  R9  unroll ki: fully, x%d\n", tk);
    else
        fprintf(out, "  R9  unroll ki: x8 only (no kernel compiled for TK=%d with JP=%d: "
                "run-time bounds)\n", tk, jp);

    fprintf(out, "  R10 cache_write: local C tile %dx%d (%.1f KiB per thread), written to C "
            "once per task\n", tm, tn, tm * (double)tn * 4 / 1024);
    fprintf(out, "  R11 decompose_reduction: the tile is zeroed before ko; the update has no "
            "init branch\n");

    fprintf(out, "  R12 auto_unroll %d: ji_o x ki = %d x %d = %d steps", RULE_AUTO_UNROLL,
            strips, tk, strips * tk);
    if (p.jio_unrolled)
        fprintf(out, " <= %d: ji_o unrolled\n", RULE_AUTO_UNROLL);
    else if ((long)strips * tk > RULE_AUTO_UNROLL)
        fprintf(out, " > %d: ji_o kept as a loop\n", RULE_AUTO_UNROLL);
    else
        fprintf(out, " <= %d, but only the kernels compiled for TN=%d unroll ji_o: kept as "
                "a loop\n", RULE_AUTO_UNROLL, RULE_TN);

    fprintf(out, "  tasks: M=%d TM=%d N=%d TN=%d -> %d x %d = %d\n", M, tm, N, tn, p.m_tiles,
            p.n_tiles, p.tasks);
}

const gb_variant gb_variant_rule_based = {
    .name = "rule_based",
    .family = "rule_based",
    .description = "the study's 12 rules: TK=8, TN=64, TM by M, j_pack=32, fused (io,jo) "
                   "parallel, local C tile (--explain)",
    .run = rule_based_run,
    .params = rule_params,
    .resolve = rule_based_resolve,
    .explain = rule_based_explain,
};
