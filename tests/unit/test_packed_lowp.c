/*
 * test_packed_lowp.c - packed's bf16 and u8s8 kernels (schedules/packed_lowp.c)
 * against a 64-bit integer reference: shapes that are multiples of no tile
 * (M, N, K from 1, 7, 33, 100, 383, K also 2, 3 and 5 for the group tails),
 * padded leading dimensions whose padding holds sentinels (a bf16 NaN in A's
 * and B's, so that a kernel reading past K or N turns the sum into a NaN;
 * a value in C's that must survive), C filled with garbage first (beta = 0),
 * per call and pre-packed, each SIMD path (bf16's two forced in turn:
 * vdpbf16ps and the widened f32 FMA) and the forced portable one, the
 * caches' blocks and tiny forced ones (every loop ends in a partial block).
 * Inputs: bf16 integers in [-64, 64] (every sum exact in fp32 while
 * K x 64 x 64 <= 2^24), u8 over 0..255 and s8 over -128..127 (exact in
 * int32): the result must equal the reference bit for bit.
 *
 * One thread and two threads are separate tests: qemu-user hangs on a
 * second thread (scripts/cross-aarch64.sh), so only the first runs there.
 */
#include "test.h"

#include "gemmbench.h"
#include "packed_lowp.h"
#include "variant_check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Padding past K in A's rows, past N in B's and C's. */
#define PAD_A 3
#define PAD_B 5
#define PAD_C 2
#define C_SENTINEL_F -12345.5f
#define C_SENTINEL_I 0x5A5A5A5A
#define BF16_NAN 0x7FC1

typedef struct shape {
    int M, N, K;
} shape;

/* Every dimension in 1, 7, 33, 100, 383 somewhere, K also 2, 3, 5 (a bf16
 * pair and a u8 quad cut short), one K past u8's k block per call (1031)
 * and one past both types' long k blocks, cut short in its last group
 * (3103 at M = 41, six A micro-panels, long per call too: the A
 * micro-panel's kc, 1536 bf16 and 3072 u8 on a 48 KiB L1d, 1024 and 2048
 * on 32 KiB); N = 20 and 70
 * leave a fringe of 17-32 columns (the narrow kernel's two vectors; 1, 7
 * and 100 leave 1-16, its one; 33 and 383 over 32, the full tile). */
static const shape shapes[] = {
    { 1, 1, 1 },      { 1, 7, 2 },      { 7, 1, 3 },     { 7, 7, 5 },     { 33, 7, 1 },
    { 7, 33, 7 },     { 33, 33, 33 },   { 100, 7, 100 }, { 7, 100, 383 }, { 383, 33, 2 },
    { 33, 383, 3 },   { 100, 100, 5 },  { 1, 383, 100 }, { 383, 1, 33 },  { 100, 383, 7 },
    { 383, 100, 383 }, { 16, 96, 1031 }, { 7, 20, 33 },  { 33, 70, 100 },
    { 41, 50, 3103 },
};
#define NSHAPES (int)(sizeof shapes / sizeof shapes[0])

static unsigned lcg(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return *state >> 8;
}

/* One shape's operands, padded, and its reference product. */
typedef struct operands {
    gb_dtype type;
    int M, N, K, lda, ldb, ldc;
    void *A, *B;             /* exactly M x lda and K x ldb: nothing past them */
    int64_t *ref;            /* M x N */
} operands;

static void operands_free(operands *o)
{
    free(o->A);
    free(o->B);
    free(o->ref);
}

static int operands_make(operands *o, gb_dtype type, shape s, unsigned seed)
{
    const size_t es = gb_dtype_size_a(type);
    unsigned state = seed;

    memset(o, 0, sizeof *o);
    o->type = type;
    o->M = s.M, o->N = s.N, o->K = s.K;
    o->lda = s.K + PAD_A, o->ldb = s.N + PAD_B, o->ldc = s.N + PAD_C;
    o->A = malloc((size_t)o->M * o->lda * es);
    o->B = malloc((size_t)o->K * o->ldb * es);
    o->ref = malloc((size_t)o->M * o->N * sizeof *o->ref);
    if (!o->A || !o->B || !o->ref)
        return -1;
    for (int i = 0; i < o->M; i++)
        for (int k = 0; k < o->lda; k++) {
            const size_t at = (size_t)i * o->lda + k;
            if (type == GB_DTYPE_BF16)
                ((gb_bf16 *)o->A)[at] =
                    k < o->K ? gb_bf16_from_float((float)((int)(lcg(&state) % 129) - 64))
                             : BF16_NAN;
            else
                ((uint8_t *)o->A)[at] = k < o->K ? (uint8_t)lcg(&state) : 0xFF;
        }
    for (int k = 0; k < o->K; k++)
        for (int j = 0; j < o->ldb; j++) {
            const size_t at = (size_t)k * o->ldb + j;
            if (type == GB_DTYPE_BF16)
                ((gb_bf16 *)o->B)[at] =
                    j < o->N ? gb_bf16_from_float((float)((int)(lcg(&state) % 129) - 64))
                             : BF16_NAN;
            else
                ((int8_t *)o->B)[at] = j < o->N ? (int8_t)(uint8_t)lcg(&state) : 0x7F;
        }
    for (int i = 0; i < o->M; i++)
        for (int j = 0; j < o->N; j++) {
            int64_t sum = 0;
            for (int k = 0; k < o->K; k++) {
                const size_t a = (size_t)i * o->lda + k, b = (size_t)k * o->ldb + j;
                if (type == GB_DTYPE_BF16)
                    sum += (int64_t)gb_bf16_to_float(((gb_bf16 *)o->A)[a]) *
                           (int64_t)gb_bf16_to_float(((gb_bf16 *)o->B)[b]);
                else
                    sum += (int64_t)((uint8_t *)o->A)[a] * ((int8_t *)o->B)[b];
            }
            o->ref[(size_t)i * o->N + j] = sum;
        }
    return 0;
}

/* One run of the kernel on o, prepared as the harness does; the count of
 * wrong elements of C (padding included), or -1 when it could not run. */
static long run_once(const operands *o, int threads, int prepack)
{
    const gb_typed_kernel *kernel = o->type == GB_DTYPE_BF16 ? &gb_packed_bf16 : &gb_packed_u8s8;
    const size_t c_len = (size_t)o->M * o->ldc;
    gb_params none = { 0 };
    gb_ctx ctx = { threads, &none, NULL, NULL, 0, NULL };
    void *C = malloc(c_len * 4);
    long bad = 0;
    unsigned state = 7;

    if (C == NULL)
        return -1;
    for (size_t at = 0; at < c_len; at++) {
        const int pad = (int)(at % o->ldc) >= o->N;
        if (o->type == GB_DTYPE_BF16)
            ((float *)C)[at] = pad ? C_SENTINEL_F : (float)(lcg(&state) % 1000);
        else
            ((int32_t *)C)[at] = pad ? C_SENTINEL_I : (int32_t)lcg(&state);
    }
    if (kernel->prepare(o->M, o->N, o->K, o->B, o->ldb, &ctx, prepack, &ctx.state) != 0) {
        free(C);
        return -1;
    }
    if (kernel->run(o->M, o->N, o->K, o->A, o->lda, o->B, o->ldb, C, o->ldc, &ctx) != 0)
        bad = -1;
    kernel->release(ctx.state);
    for (size_t at = 0; bad >= 0 && at < c_len; at++) {
        const int j = (int)(at % o->ldc), i = (int)(at / o->ldc);
        if (o->type == GB_DTYPE_BF16) {
            const float want = j >= o->N ? C_SENTINEL_F : (float)o->ref[(size_t)i * o->N + j];
            bad += ((float *)C)[at] != want; /* a NaN is never equal */
        } else {
            const int32_t want =
                j >= o->N ? C_SENTINEL_I : (int32_t)o->ref[(size_t)i * o->N + j];
            bad += ((int32_t *)C)[at] != want;
        }
    }
    free(C);
    return bad;
}

/* The paths check_all runs: bf16's two AVX-512 ones forced in turn (where
 * the CPU runs them; else the rule's again), then the portable one. */
enum { PATH_DOT, PATH_WIDENED, PATH_PORTABLE, NPATHS };

static void force_path(int path)
{
    packed_lowp_force_portable(path == PATH_PORTABLE);
    packed_lowp_force_bf16_path(path == PATH_DOT       ? PACKED_LOWP_BF16_DOT
                                : path == PATH_WIDENED ? PACKED_LOWP_BF16_WIDENED
                                                       : PACKED_LOWP_BF16_RULE);
}

/* Every shape, both types, per call and pre-packed, on each SIMD path (when
 * the CPU has it) and the portable one, with the caches' blocks and tiny
 * ones; the first failing case is named. */
static void check_all(int threads)
{
    /* mc, kc, nc: 0 the caches' rule; then blocks smaller than every shape
     * but the smallest, so that each loop ends in a partial block. */
    static const int blocks[][3] = { { 0, 0, 0 }, { 9, 6, 50 } };
    long cases = 0, failures = 0;

    for (int t = GB_DTYPE_BF16; t <= GB_DTYPE_U8S8; t++)
        for (int s = 0; s < NSHAPES; s++) {
            operands o;
            if (operands_make(&o, (gb_dtype)t, shapes[s], 1000u * (unsigned)s + (unsigned)t) != 0) {
                operands_free(&o);
                CHECK(!"allocation");
                return;
            }
            for (int path = 0; path < NPATHS; path++)
                for (int b = 0; b < 2 && !(t == GB_DTYPE_U8S8 && path == PATH_WIDENED); b++)
                    for (int prepack = 0; prepack <= 1; prepack++) {
                        long bad;
                        force_path(path);
                        packed_lowp_force_blocks(blocks[b][0], blocks[b][1], blocks[b][2]);
                        bad = run_once(&o, threads, prepack);
                        cases++;
                        if (bad != 0 && failures++ == 0) {
                            char what[200];
                            snprintf(what, sizeof what,
                                     "%s %dx%dx%d, %d thread(s), %s path, blocks %d/%d/%d, "
                                     "prepack %d: %ld wrong elements",
                                     gb_dtype_name((gb_dtype)t), o.M, o.N, o.K, threads,
                                     packed_lowp_path((gb_dtype)t), blocks[b][0], blocks[b][1],
                                     blocks[b][2], prepack, bad);
                            gb_test_fail(__FILE__, __LINE__, what);
                        }
                    }
            operands_free(&o);
        }
    force_path(PATH_DOT);
    packed_lowp_force_bf16_path(PACKED_LOWP_BF16_RULE);
    packed_lowp_force_blocks(0, 0, 0);
    CHECK_EQ_INT(failures, 0);
    CHECK(cases == (3L + 2L) * NSHAPES * 4); /* bf16 on 3 paths, u8s8 on 2 */
}

TEST(packed_lowp_exact_on_one_thread)
{
    check_all(1);
}

TEST(packed_lowp_exact_on_two_threads)
{
    check_all(2);
}

/* Never more threads than C has tiles, as f32's plan: a 1 x 1 C at two
 * threads runs on one, which --explain says beside the two asked. */
TEST(packed_lowp_threads_never_more_than_tiles)
{
    static const gb_typed_kernel *const kinds[] = { &gb_packed_bf16, &gb_packed_u8s8 };

    for (int i = 0; i < 2; i++) {
        char *one = explain_text(kinds[i]->explain, 1, 1, 768, 2);
        char *wide = explain_text(kinds[i]->explain, 384, 768, 768, 2);
        CHECK(one != NULL && strstr(one, "2 threads (1 used: 1 tile of ") != NULL);
        CHECK(wide != NULL && strstr(wide, "384x768x768 (MxKxN) ") != NULL &&
              strstr(wide, "2 threads:") != NULL && strstr(wide, "used") == NULL);
        free(one);
        free(wide);
    }
}

/* The path named is the one the CPU runs, and the forced portable one when
 * asked; impl says the same after prepare. */
TEST(packed_lowp_names_its_path)
{
    gb_params none = { 0 };
    gb_ctx ctx = { 1, &none, NULL, NULL, 0, NULL };
    char impl[32];
    static const int8_t B[4] = { 1, 2, 3, 4 };

#if defined(__x86_64__)
    __builtin_cpu_init();
    /* bf16: the rule's choice, which it names; one of its two paths when
     * the CPU has AVX-512, and timed only when it has both */
    CHECK_STR(packed_lowp_path(GB_DTYPE_BF16), packed_lowp_bf16_rule_get()->chosen);
    CHECK_STR(packed_lowp_path(GB_DTYPE_BF16),
              !__builtin_cpu_supports("avx512f")     ? "portable"
              : !__builtin_cpu_supports("avx512bf16") ? "avx512_fma_widened"
              : packed_lowp_bf16_rule_get()->ratio >= packed_lowp_bf16_rule_get()->margin
                  ? "avx512_fma_widened"
                  : "avx512_bf16");
    CHECK(packed_lowp_bf16_rule_get()->measured ==
          (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16")));
    if (__builtin_cpu_supports("avx512f")) {
        static const gb_bf16 Bh[4] = { 0x3F80, 0x4000, 0x4040, 0x4080 }; /* 1, 2, 3, 4 */
        packed_lowp_force_bf16_path(PACKED_LOWP_BF16_WIDENED);
        CHECK_STR(packed_lowp_path(GB_DTYPE_BF16), "avx512_fma_widened");
        CHECK(gb_packed_bf16.prepare(1, 4, 1, Bh, 4, &ctx, 1, &ctx.state) == 0);
        packed_lowp_force_bf16_path(PACKED_LOWP_BF16_RULE);
        gb_packed_bf16.impl(1, 4, 1, &ctx, impl, sizeof impl);
        CHECK_STR(impl, "avx512_fma_widened"); /* the path that ran, not the rule's */
        gb_packed_bf16.release(ctx.state);
        ctx.state = NULL;
    }
    if (__builtin_cpu_supports("avx512bf16")) {
        packed_lowp_force_bf16_path(PACKED_LOWP_BF16_DOT);
        CHECK_STR(packed_lowp_path(GB_DTYPE_BF16), "avx512_bf16");
        packed_lowp_force_bf16_path(PACKED_LOWP_BF16_RULE);
    }
    CHECK_STR(packed_lowp_path(GB_DTYPE_U8S8),
              __builtin_cpu_supports("avx512vnni") ? "avx512_vnni" : "portable");
#else
    CHECK_STR(packed_lowp_path(GB_DTYPE_BF16), "portable");
    CHECK_STR(packed_lowp_path(GB_DTYPE_U8S8), "portable");
#endif
    CHECK_STR(packed_lowp_path(GB_DTYPE_F32), "");
    packed_lowp_force_portable(1);
    CHECK_STR(packed_lowp_path(GB_DTYPE_BF16), "portable");
    CHECK_STR(packed_lowp_path(GB_DTYPE_U8S8), "portable");
    CHECK(gb_packed_u8s8.prepare(1, 4, 1, B, 4, &ctx, 1, &ctx.state) == 0);
    packed_lowp_force_portable(0);
    gb_packed_u8s8.impl(1, 4, 1, &ctx, impl, sizeof impl);
    CHECK_STR(impl, "portable"); /* prepare's choice, not today's */
    gb_packed_u8s8.release(ctx.state);
    ctx.state = NULL;
    gb_packed_bf16.impl(1, 4, 1, &ctx, impl, sizeof impl);
    CHECK_STR(impl, packed_lowp_path(GB_DTYPE_BF16));
    CHECK(gb_packed_bf16.supports_prepack && gb_packed_u8s8.supports_prepack);
}

/* The low-precision plans of the kinds this project measures, from their
 * caches (packed_lowp_blocks_on), at 2 threads: per call at M = 16 B's
 * micro-panel in half of L1d (kc 256 bf16 and 384 / 512 u8 on 48 KiB),
 * per call from M = 64 and pre-packed the long kc (the A micro-panel in
 * half of L1d: 1536 bf16, 3072 u8 at K = 3072 on 48 KiB; 1024 and 1536 on
 * the family 25's 32 KiB), the grid splitting N at small M and M where a
 * thread's rows are many.  Each kind with its own bf16 path (the AMD
 * kinds' rule picks vdpbf16ps, the Intel kind's the widened FMA).  A rule
 * tuned on one kind that moves another's plan fails here first. */
typedef struct lowp_row {
    const char *path;
    int prepack, M, N, K;
    int kc, mc, nc, tm, tn, long_kc;
} lowp_row;

static void check_lowp_kind(const char *kind, long l1, long l2, long l3, const lowp_row *rows,
                            size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const lowp_row *r = &rows[i];
        const gb_dtype t = strcmp(r->path, "avx512_vnni") == 0 ? GB_DTYPE_U8S8 : GB_DTYPE_BF16;
        packed_lowp_blocks b;
        CHECK_EQ_INT(packed_lowp_blocks_on(t, r->path, l1, l2, l3, r->M, r->N, r->K, 2,
                                           r->prepack, 0.0, 0.0, &b),
                     0);
        if (b.kc != r->kc || b.mc != r->mc || b.nc != r->nc || b.tm != r->tm || b.tn != r->tn ||
            b.long_kc != r->long_kc || !b.fused) {
            char msg[300];
            snprintf(msg, sizeof msg,
                     "%s, %s%s, %dx%dx%d (MxNxK): kc %d, mc %d, nc %d, grid %dx%d, long kc %d, "
                     "fused %d",
                     kind, r->path, r->prepack ? " pre-packed" : "", r->M, r->N, r->K, b.kc, b.mc,
                     b.nc, b.tm, b.tn, b.long_kc, b.fused);
            gb_test_fail(__FILE__, __LINE__, msg);
        }
    }
}

TEST(packed_lowp_plans_on_each_kinds_figures)
{
    /* AMD EPYC family 26 model 2: 48 KiB L1d, 1 MiB L2, 508 MiB L3 */
    static const lowp_row zen5[] = {
        { "avx512_bf16", 0, 16, 768, 768, 256, 16, 384, 1, 2, 0 },
        { "avx512_bf16", 0, 64, 768, 3072, 1536, 64, 384, 1, 2, 1 },
        { "avx512_bf16", 1, 16, 768, 3072, 1536, 16, 384, 1, 2, 1 },
        { "avx512_bf16", 1, 256, 768, 768, 768, 128, 768, 2, 1, 1 },
        { "avx512_vnni", 0, 16, 768, 768, 384, 16, 384, 1, 2, 0 },
        { "avx512_vnni", 0, 16, 768, 3072, 512, 16, 384, 1, 2, 0 },
        { "avx512_vnni", 0, 64, 768, 3072, 3072, 64, 384, 1, 2, 1 },
        { "avx512_vnni", 1, 16, 768, 3072, 3072, 16, 384, 1, 2, 1 },
        { "avx512_vnni", 1, 256, 768, 768, 768, 128, 768, 2, 1, 1 },
        /* qkv's B (0.6 MB) past half of L2: its stream splits N */
        { "avx512_vnni", 1, 16, 768, 768, 768, 16, 384, 1, 2, 1 },
    };
    /* Intel Xeon family 6 model 207: 48 KiB L1d, 2 MiB L2 */
    static const lowp_row xeon[] = {
        { "avx512_fma_widened", 0, 16, 768, 768, 128, 16, 384, 1, 2, 0 },
        { "avx512_fma_widened", 0, 64, 768, 3072, 768, 64, 384, 1, 2, 1 },
        { "avx512_fma_widened", 1, 16, 768, 3072, 768, 16, 384, 1, 2, 1 },
        { "avx512_fma_widened", 1, 256, 768, 768, 768, 128, 768, 2, 1, 1 },
        { "avx512_vnni", 0, 16, 768, 768, 384, 16, 384, 1, 2, 0 },
        { "avx512_vnni", 0, 64, 768, 3072, 3072, 64, 384, 1, 2, 1 },
        { "avx512_vnni", 1, 16, 768, 3072, 3072, 16, 384, 1, 2, 1 },
        { "avx512_vnni", 1, 256, 768, 768, 768, 128, 768, 2, 1, 1 },
        /* qkv's B within half of L2: a thread's rows, not its columns */
        { "avx512_vnni", 1, 16, 768, 768, 768, 8, 768, 2, 1, 1 },
    };
    /* AMD EPYC family 25 model 17: 32 KiB L1d, 1 MiB L2, 32 MiB L3 */
    static const lowp_row zen4[] = {
        { "avx512_bf16", 0, 16, 768, 768, 154, 16, 384, 1, 2, 0 },
        { "avx512_bf16", 0, 64, 768, 3072, 1024, 64, 384, 1, 2, 1 },
        { "avx512_bf16", 1, 16, 768, 3072, 1024, 16, 384, 1, 2, 1 },
        { "avx512_bf16", 1, 256, 768, 768, 768, 128, 768, 2, 1, 1 },
        { "avx512_vnni", 0, 16, 768, 768, 256, 16, 384, 1, 2, 0 },
        { "avx512_vnni", 0, 64, 768, 3072, 1536, 64, 384, 1, 2, 1 },
        { "avx512_vnni", 1, 16, 768, 3072, 1536, 16, 384, 1, 2, 1 },
        { "avx512_vnni", 1, 256, 768, 768, 768, 128, 768, 2, 1, 1 },
        { "avx512_vnni", 1, 16, 768, 768, 768, 16, 384, 1, 2, 1 },
    };
    packed_lowp_blocks b;

    if (packed_lowp_blocks_on(GB_DTYPE_U8S8, "avx512_vnni", 32L << 10, 1L << 20, 0, 16, 768,
                              768, 1, 0, 0.0, 0.0, &b) != 0)
        SKIP("no AVX-512 low-precision kernels in this build");
    /* the path must be the type's */
    CHECK_EQ_INT(packed_lowp_blocks_on(GB_DTYPE_BF16, "avx512_vnni", 32L << 10, 1L << 20, 0, 16,
                                       768, 768, 1, 0, 0.0, 0.0, &b),
                 -1);
    check_lowp_kind("AMD EPYC family 26", 48L << 10, 1L << 20, 508L << 20, zen5,
                    sizeof zen5 / sizeof zen5[0]);
    check_lowp_kind("Intel Xeon family 6 model 207", 48L << 10, 2L << 20, 300L << 20, xeon,
                    sizeof xeon / sizeof xeon[0]);
    check_lowp_kind("AMD EPYC family 25", 32L << 10, 1L << 20, 32L << 20, zen4,
                    sizeof zen4 / sizeof zen4[0]);
}

/* The threads a call pays for, as f32's (packed_threads_for_work), on the
 * family 25 guest's figures: f32's calibration there (64x64x64 5.44 us at
 * one thread, 4.23 at two) gives a unit 5.44 / 393,216 us and a threaded
 * call's own cost 1.06 us; a k group's dot product is priced as an f32 FMA.
 * At 2 threads there, bf16 16x16x16 took 0.8 us against 0.2 at one, 32^3
 * 1.0 against 0.5, 16x64x64 1.2 against 0.9; u8s8 64^3 2.2 against 1.6:
 * one thread each.  bf16 and u8s8 128^3 (11.7 and 6.7 us at two, 19.6 and
 * 10.4 at one) keep both; so do the bar's twelve shapes where a threaded
 * call costs 24 us; unmeasured, the tiles decide. */
TEST(packed_lowp_threads_pay_for_their_call)
{
    static const struct { const char *path; int M, N, K, threads; } rows[] = {
        { "avx512_bf16", 16, 16, 16, 1 },    { "avx512_bf16", 32, 32, 32, 1 },
        { "avx512_bf16", 16, 64, 64, 1 },    { "avx512_bf16", 128, 128, 128, 2 },
        { "avx512_vnni", 16, 16, 16, 1 },    { "avx512_vnni", 32, 32, 32, 1 },
        { "avx512_vnni", 16, 64, 64, 1 },    { "avx512_vnni", 64, 64, 64, 1 },
        { "avx512_vnni", 128, 128, 128, 2 },
    };
    static const int bar_m[] = { 16, 64, 256, 384 };
    static const int bar_nk[3][2] = { { 768, 768 }, { 3072, 768 }, { 768, 3072 } };
    const double unit = 5.44 / 393216.0, own = 4.23 - unit * 229376.0;
    const long l1 = 32L << 10, l2 = 1L << 20, l3 = 32L << 20;
    packed_lowp_blocks b;

    if (packed_lowp_blocks_on(GB_DTYPE_U8S8, "avx512_vnni", l1, l2, l3, 16, 16, 16, 2, 0, unit,
                              own, &b) != 0)
        SKIP("no AVX-512 low-precision kernels in this build");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const gb_dtype t = strcmp(rows[i].path, "avx512_vnni") == 0 ? GB_DTYPE_U8S8
                                                                     : GB_DTYPE_BF16;
        CHECK_EQ_INT(packed_lowp_blocks_on(t, rows[i].path, l1, l2, l3, rows[i].M, rows[i].N,
                                           rows[i].K, 2, 0, unit, own, &b),
                     0);
        if (b.nthreads != rows[i].threads || b.tm * b.tn != b.nthreads) {
            char msg[200];
            snprintf(msg, sizeof msg, "%s %dx%dx%d (MxNxK): %d threads on %dx%d, want %d",
                     rows[i].path, rows[i].M, rows[i].N, rows[i].K, b.nthreads, b.tm, b.tn,
                     rows[i].threads);
            gb_test_fail(__FILE__, __LINE__, msg);
        }
        /* unmeasured: the tiles' */
        CHECK_EQ_INT(packed_lowp_blocks_on(t, rows[i].path, l1, l2, l3, rows[i].M, rows[i].N,
                                           rows[i].K, 2, 0, 0.0, 0.0, &b),
                     0);
        CHECK_EQ_INT(b.nthreads, 2);
    }
    for (int path = 0; path < 2; path++)
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < 4; i++) {
                CHECK_EQ_INT(packed_lowp_blocks_on(path ? GB_DTYPE_U8S8 : GB_DTYPE_BF16,
                                                   path ? "avx512_vnni" : "avx512_bf16", l1, l2,
                                                   l3, bar_m[i], bar_nk[k][0], bar_nk[k][1], 2,
                                                   0, unit, 24.0, &b),
                             0);
                CHECK_EQ_INT(b.nthreads, 2);
            }
}
