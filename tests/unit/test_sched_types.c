/* test_sched_types.c - the type statement (src/sched/SCHED.md, "Types"):
 * its refusals, the form each nest takes (the dot form where the run and
 * the CPU allow it, widened elsewhere, each forced in turn), and the
 * kernels of bf16 and u8s8 schedules exact on shapes that are multiples of
 * no tile (K not a whole number of groups either), against a reference in
 * 64-bit integers, with padded leading dimensions, on 1 and 2 threads.
 * One compiler run for all kernels. */
#define _POSIX_C_SOURCE 200809L
#include "test.h"
#include "sched_lang.h"
#include "sched_build.h"
#include "machine.h"
#include "amx_tiles.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_text(const char *text, char *err, size_t errlen)
{
    static gb_sched nest;
    return gb_sched_from_text("t.sched", text, strlen(text), &nest, err, errlen);
}

TEST(sched_type_refusals_name_the_line)
{
    static const struct {
        const char *text, *message;
    } refused[] = {
        { "type fp8\n", "t.sched:1: type: no type 'fp8' (f32, bf16, u8s8)" },
        { "type\n", "t.sched:1: type: expected a type (f32, bf16, u8s8), found the end of the "
                    "line" },
        { "type bf16 u8s8\n", "t.sched:1: type: unexpected 'u8s8' after the statement" },
        { "split i 4 -> io ii\ntype bf16\n",
          "t.sched:2: type: a schedule states its type first, before any other statement" },
        { "type bf16\ntype u8s8\n",
          "t.sched:2: type: a schedule states its type first, before any other statement" },
        { "choose a_read in_place\ntype u8s8\nor copied\nend\n",
          "t.sched:2: type: inside a choose block (an alternative makes no loop or param; "
          "state it before the block)" },
        { "param type = 4\n", "t.sched:1: param: 'type' is a word of the language, not a name" },
    };
    char err[512];

    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        int rc = check_text(refused[i].text, err, sizeof err);
        if (rc == 0 || strcmp(err, refused[i].message) != 0) {
            char msg[1400];
            snprintf(msg, sizeof msg, "schedule %zu: got %s'%s', expected '%s'", i,
                     rc == 0 ? "no refusal, " : "", err, refused[i].message);
            gb_test_fail(__FILE__, __LINE__, msg);
        }
    }
    CHECK(check_text("# a comment first\ntype u8s8\nsplit i 4 -> io ii\n", err, sizeof err) == 0);
    CHECK(check_text("type f32\n", err, sizeof err) == 0);
}

/* Nests of each form: the shipped twins (dot where the CPU has the
 * instruction), B packed by a copy of its own with A in place or packed,
 * and nests that can only widen (no rows run; B in place; a cache_write
 * tile; a pack at root). */
static const char *const nests[] = {
    "schedules/packed_u8s8.sched",
    "schedules/packed_bf16.sched",
    /* B at pc, copied by the team; A in place: the last group's part */
    "split j 48 -> jc jv\nsplit k 12 -> pc kk\nsplit i 5 -> ic ii\n"
    "reorder pc jc ic kk ii jv\nparallel jc\npack B at pc\nvectorize jv\nunroll ii\n",
    /* B and A both copied, kc and mc not multiples of anything */
    "split j 32 -> jc jv\nsplit k 20 -> pc kk\nsplit i 3 -> ic ii\n"
    "reorder jc pc ic kk ii jv\npack B at pc\npack A at pc\nvectorize jv\nunroll ii\n",
    /* widened: vectorized in memory, B in place */
    "split j 16 -> jo ji\nsplit k 7 -> ko ki\nreorder i jo ko ki ji\nparallel i\nvectorize ji\n",
    /* widened: a cache_write tile and a pack of A at root */
    "split i 4 -> io ii\nsplit j 8 -> jo ji\nreorder io jo k ii ji\ncache_write C at jo\n"
    "pack A at root\n",
};
enum { NNESTS = sizeof nests / sizeof nests[0] };

static const int shapes[][3] = { /* M, N, K */
    { 1, 7, 33 }, { 17, 100, 45 }, { 33, 49, 7 }, { 16, 96, 130 }, { 9, 48, 1 },
};
enum { NSHAPES = sizeof shapes / sizeof shapes[0] };

/* The shipped twins are most of the compile: in make test on one shape of
 * BERT's kind (16 x 96 x 130), the other nests on every shape; in make
 * test-slow the twins on a shape of tails everywhere (17 x 100 x 45), where
 * their 8 x 48 run falls back to memory (4 of the 34 kernels of a type, 16
 * of the 32 s gcc -O3 took for all of them, AMD EPYC family 26).
 * tests/cli/sched_types.sh runs the twins on that shape too, as a run
 * does (the rule's form, verified), in make test. */
static int shape_used(int n, int s, int slow)
{
    return slow ? n < 2 && s == 1 : n >= 2 || s == 3;
}

typedef struct typed_case {
    gb_dtype t;
    int M, N, K;
    long scratch;
    int dot;
    char what[200];
} typed_case;

/* A and B drawn in the type's exact ranges (bf16: small integers, exact in
 * f32 however summed; u8 x s8: the whole range), C poisoned, the padding
 * checked untouched.  The number of wrong elements, -1: did not run. */
static long verify_typed(gb_typed_kernel_fn fn, const typed_case *c, int threads,
                         unsigned *seed)
{
    const int pad = 5, lda = c->K + pad, ldb = c->N + pad, ldc = c->N + pad;
    const int u8 = c->t == GB_DTYPE_U8S8;
    const size_t na = (size_t)c->M * lda, nb = (size_t)c->K * ldb, nc = (size_t)c->M * ldc;
    void *A = malloc(na * 2), *B = malloc(nb * 2), *C = malloc(nc * 4);
    int64_t *ia = malloc(na * 8), *ib = malloc(nb * 8);
    float *scratch = c->scratch > 0 ? malloc(sizeof(float) * (size_t)c->scratch) : NULL;
    gb_params none = { 0 };
    gb_ctx ctx = { threads, &none, scratch, NULL, 0, NULL };
    long bad = 0;

    if (!A || !B || !C || !ia || !ib || (c->scratch > 0 && !scratch)) {
        bad = -1;
        goto out;
    }
    for (size_t i = 0; i < na; i++) {
        *seed = *seed * 1103515245u + 12345u;
        ia[i] = u8 ? (int64_t)(*seed >> 16 & 255) : (int64_t)(*seed >> 16) % 7 - 3;
        if (u8)
            ((uint8_t *)A)[i] = (uint8_t)ia[i];
        else
            ((gb_bf16 *)A)[i] = gb_bf16_from_float((float)ia[i]);
    }
    for (size_t i = 0; i < nb; i++) {
        *seed = *seed * 1103515245u + 12345u;
        ib[i] = u8 ? (int64_t)(*seed >> 16 & 255) - 128 : (int64_t)(*seed >> 16) % 7 - 3;
        if (u8)
            ((int8_t *)B)[i] = (int8_t)ib[i];
        else
            ((gb_bf16 *)B)[i] = gb_bf16_from_float((float)ib[i]);
    }
    for (size_t i = 0; i < nc; i++)
        if (u8)
            ((int32_t *)C)[i] = 777;
        else
            ((float *)C)[i] = 777.0f;
    if (fn(c->M, c->N, c->K, A, lda, B, ldb, C, ldc, &ctx) != 0) {
        bad = -1;
        goto out;
    }
    for (int i = 0; i < c->M; i++)
        for (int j = 0; j < ldc; j++) {
            int64_t ref = 777;
            double got = u8 ? ((int32_t *)C)[(size_t)i * ldc + j] : ((float *)C)[(size_t)i * ldc + j];
            if (j < c->N) {
                ref = 0;
                for (int k = 0; k < c->K; k++)
                    ref += ia[(size_t)i * lda + k] * ib[(size_t)k * ldb + j];
            }
            bad += got != (double)ref;
        }
out:
    free(A), free(B), free(C), free(ia), free(ib), free(scratch);
    return bad;
}

/* Appends kernel (taken over, freed) to the growing *source; 0, or -1
 * when out of memory (*source freed). */
static int append_kernel(char **source, size_t *cap, size_t *used, char *kernel)
{
    const size_t len = strlen(kernel);

    while (*used + len + 1 > *cap) {
        char *grown = realloc(*source, *cap *= 2);
        if (grown == NULL) {
            free(*source), free(kernel);
            *source = NULL;
            return -1;
        }
        *source = grown;
    }
    memcpy(*source + *used, kernel, len + 1);
    *used += len;
    free(kernel);
    return 0;
}

/* Lowers pl (freed) as the kernel PREFIX_INDEX of case c and appends it
 * to the growing *source: 0; 1 when it did not lower (a failed CHECK,
 * the case left out); -1 when out of memory (a failed CHECK, *source
 * freed). */
static int add_case(gb_sched_plan *pl, typed_case *c, const char *prefix, int index,
                    char **source, size_t *cap, size_t *used)
{
    char symbol[64], *kernel;

    c->scratch = gb_sched_scratch_floats(pl, 2);
    snprintf(symbol, sizeof symbol, "%s_%d", prefix, index);
    kernel = gb_sched_lower(pl, symbol);
    gb_sched_plan_free(pl);
    CHECK(kernel != NULL);
    if (kernel == NULL)
        return 1;
    if (append_kernel(source, cap, used, kernel) != 0) {
        CHECK(0);
        return -1;
    }
    return 0;
}

/* Compiles source (freed) into *so: 0; 1 when there is no C compiler;
 * -1 when it failed (a failure said). */
static int build_cases(char *source, gb_sched_so *so)
{
    char err[512];
    const int rc = gb_sched_build(source, NULL, so, err, sizeof err);

    free(source);
    if (rc == 0)
        return 0;
    if (strncmp(err, "CC '", 4) == 0)
        return 1;
    gb_test_fail(__FILE__, __LINE__, err);
    return -1;
}

/* Cases [first, n) of the built object, symbols PREFIX_i, each verified
 * at 1 and 2 threads; a failure names the case. */
static void verify_cases(const gb_sched_so *so, const char *prefix, const typed_case *cases,
                         int first, int n, unsigned *seed)
{
    for (int i = first; i < n; i++)
        for (int threads = 1; threads <= 2; threads++) {
            char symbol[64];
            gb_typed_kernel_fn fn;
            long bad;
            snprintf(symbol, sizeof symbol, "%s_%d", prefix, i);
            *(void **)&fn = dlsym(so->handle, symbol);
            CHECK(fn != NULL);
            if (fn == NULL)
                continue;
            bad = verify_typed(fn, &cases[i], threads, seed);
            if (bad != 0) {
                char msg[400];
                snprintf(msg, sizeof msg, "%s threads=%d: %ld wrong", cases[i].what, threads, bad);
                gb_test_fail(__FILE__, __LINE__, msg);
            }
        }
}

static int load_nest(const char *what, gb_sched *nest, gb_dtype t, char *err, size_t errlen)
{
    char text[2048];

    if (strncmp(what, "schedules/", 10) == 0)
        return gb_sched_load(what, nest, NULL, err, errlen);
    snprintf(text, sizeof text, "type %s\n%s", gb_dtype_name(t), what);
    return gb_sched_from_text("t.sched", text, strlen(text), nest, err, errlen);
}

/* form: 0 the rule's, 1 dot forced where legal, 2 widened forced */
/* The kernels of each nest and type that shape_used(slow) names, in each
 * form where the forms differ: exact at 1 and 2 threads. */
static void check_typed_forms(int slow)
{
    enum { NFORMS = 3, NCASES = NNESTS * 2 * NSHAPES * NFORMS };
    static typed_case cases[NCASES];
    static gb_sched nest;
    char err[512];
    int ncases = 0, dots = 0, widened = 0;
    unsigned seed = 12345;

    /* one file and one compiler run per type: kernels of one type share
     * their helpers (lower.c), as a schedule's shapes do */
    for (int ti = 0; ti < 2; ti++) {
        const gb_dtype t = ti ? GB_DTYPE_BF16 : GB_DTYPE_U8S8;
        const int first = ncases;
        size_t cap = 1 << 20, used = 0;
        char *source = malloc(cap);
        gb_sched_so so;
        int rc;
        CHECK(source != NULL);
        if (source == NULL)
            return;
        source[0] = '\0';
        for (int n = 0; n < NNESTS; n++) {
            if (load_nest(nests[n], &nest, t, err, sizeof err) != 0) {
                gb_test_fail(__FILE__, __LINE__, err);
                continue;
            }
            if (nest.dtype != t) /* a shipped twin runs its own type */
                continue;
            for (int s = 0; s < NSHAPES; s++)
                for (int form = 0; form < NFORMS; form++) {
                    /* the compiler's time is the test's: the forms where
                     * they differ (u8s8's rule is the dot form where it
                     * can be, bf16's either), the widening nests once */
                    if ((n >= 4 && form != 0) || (t == GB_DTYPE_U8S8 && form == 1) ||
                        (t == GB_DTYPE_BF16 && form == 0) || !shape_used(n, s, slow))
                        continue;
                    typed_case *c = &cases[ncases];
                    gb_params none = { 0 };
                    gb_sched_plan *pl;
                    c->t = t;
                    c->M = shapes[s][0], c->N = shapes[s][1], c->K = shapes[s][2];
                    gb_sched_force_form(form);
                    pl = gb_sched_plan_new(&nest, &none, c->M, c->N, c->K, err, sizeof err);
                    gb_sched_force_form(0);
                    if (pl == NULL) {
                        gb_test_fail(__FILE__, __LINE__, err);
                        continue;
                    }
                    snprintf(c->what, sizeof c->what, "nest %d %s M=%d N=%d K=%d form %d: %s", n,
                             gb_dtype_name(t), c->M, c->N, c->K, form,
                             gb_sched_plan_form(pl, &c->dot));
                    dots += c->dot;
                    widened += !c->dot;
                    if (form == 2)
                        CHECK(!c->dot);
                    rc = add_case(pl, c, "typed", ncases, &source, &cap, &used);
                    if (rc < 0)
                        return;
                    ncases += rc == 0;
                }
        }
        rc = build_cases(source, &so);
        if (rc > 0)
            SKIP("no C compiler");
        if (rc < 0)
            return;
        verify_cases(&so, "typed", cases, first, ncases, &seed);
        gb_sched_so_close(&so);
    }
    CHECK(widened > 0);
    if (slow) /* on tails the twins' runs widen in memory: no dot form to ask for */
        return;
    /* a CPU with AVX512_VNNI takes u8s8's dot form in the shipped twin and
     * the nests of B packed; without, nothing can, and that is said */
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512vnni"))
        SKIP("the dot form: this CPU has no AVX512_VNNI (the widened forms ran)");
    CHECK(dots > 0);
#else
    SKIP("the dot form: not an x86-64 CPU (the widened forms ran)");
#endif
}

TEST(sched_typed_kernels_are_exact_in_each_form)
{
    check_typed_forms(0);
}

TEST_SLOW(sched_typed_twins_are_exact_on_tails_in_each_form)
{
    check_typed_forms(1);
}

/* The model counts the dot form's k in words: its blocks for K / group
 * words, kc times the group back in k (a word holds a group, so the caches
 * hold group times the k); widened, f32's blocks. */
TEST(sched_model_counts_dot_k_in_words)
{
    static gb_sched nest;
    char err[512];
    long typed[GB_MODEL_COUNT], f32[GB_MODEL_COUNT];

    CHECK(load_nest("schedules/packed_u8s8.sched", &nest, GB_DTYPE_U8S8, err, sizeof err) == 0);
    gb_sched_force_form(2);
    CHECK_EQ_INT(gb_sched_model_group(&nest), 1);
    gb_sched_model_values_typed(&nest, 64, 768, 3072, 2, typed);
    gb_sched_model_values(NULL, 64, 768, 3072, 2, f32);
    for (int q = 0; q < GB_MODEL_COUNT; q++)
        if (q != GB_MODEL_PF)
            CHECK_EQ_INT(typed[q], f32[q]);
    /* pf is the L1d sets' rule on B's own rows (768 bytes of u8, not
     * 3072 of f32): equal to f32's only where the sets happen to agree
     * (48 KiB 12-way, not qemu's aarch64 default) */
    gb_sched_model_values_rows(NULL, 64, 768, 3072, 2, 768, 0, f32);
    CHECK_EQ_INT(typed[GB_MODEL_PF], f32[GB_MODEL_PF]);
    gb_sched_force_form(1);
    if (gb_sched_model_group(&nest) == 1) { /* no AVX512_VNNI: never the dot form */
        gb_sched_force_form(0);
        SKIP("the words' model: this CPU has no AVX512_VNNI");
    }
    CHECK_EQ_INT(gb_sched_model_group(&nest), 4);
    gb_sched_model_values_typed(&nest, 64, 768, 3070, 2, typed);
    gb_sched_model_values(NULL, 64, 768, 768, 2, f32); /* ceil(3070 / 4) words */
    CHECK_EQ_INT(typed[GB_MODEL_KC], 4 * f32[GB_MODEL_KC]);
    CHECK_EQ_INT(typed[GB_MODEL_MC], f32[GB_MODEL_MC]);
    CHECK_EQ_INT(typed[GB_MODEL_NC], f32[GB_MODEL_NC]);
    CHECK_EQ_INT(typed[GB_MODEL_MR], f32[GB_MODEL_MR]);
    /* pf, rows ahead by its rule, in groups of the dot loop */
    gb_sched_model_values_rows(NULL, 64, 768, 768, 2, 768, 0, f32);
    CHECK_EQ_INT(typed[GB_MODEL_PF], f32[GB_MODEL_PF] / 4 > 0 ? f32[GB_MODEL_PF] / 4 : 1);
    gb_sched_force_form(0);
}

/* Widened, A is copied (read in place it would be widened at every
 * broadcast); in the dot form the page rule and the calibration decide,
 * as for f32. */
TEST(sched_model_copies_a_when_widened)
{
    static gb_sched nest;
    char err[512], why[GB_CHOICE_COUNT][320];
    int answer[GB_CHOICE_COUNT];

    CHECK(load_nest("schedules/packed_bf16.sched", &nest, GB_DTYPE_BF16, err, sizeof err) == 0);
    gb_sched_force_form(2);
    for (int c = 0; c < GB_CHOICE_COUNT; c++)
        answer[c] = -1;
    gb_sched_model_choose_typed(&nest, 64, 768, 768, 2, answer, why);
    CHECK_EQ_INT(answer[GB_CHOICE_A_READ], GB_READ_COPIED);
    CHECK(strstr(why[GB_CHOICE_A_READ], "widened") != NULL);
    /* --param a_read=in_place still rules */
    for (int c = 0; c < GB_CHOICE_COUNT; c++)
        answer[c] = -1;
    answer[GB_CHOICE_A_READ] = GB_READ_IN_PLACE;
    gb_sched_model_choose_typed(&nest, 64, 768, 768, 2, answer, why);
    CHECK_EQ_INT(answer[GB_CHOICE_A_READ], GB_READ_IN_PLACE);
    /* bnear is f32 packed's: B's rows under a page apart in place at every
     * M, whatever the calibration answers */
    {
        const char *was = getenv("GEMMBENCH_CALIBRATE");
        char saved[64];
        snprintf(saved, sizeof saved, "%s", was != NULL ? was : "");
        setenv("GEMMBENCH_CALIBRATE", "copied", 1);
        for (int c = 0; c < GB_CHOICE_COUNT; c++)
            answer[c] = -1;
        gb_sched_model_choose_typed(&nest, 4096, 768, 768, 2, answer, why);
        CHECK_EQ_INT(answer[GB_CHOICE_B_READ], GB_READ_IN_PLACE);
        CHECK(strstr(why[GB_CHOICE_B_READ], "at every M") != NULL);
        if (was != NULL)
            setenv("GEMMBENCH_CALIBRATE", saved, 1);
        else
            unsetenv("GEMMBENCH_CALIBRATE");
    }
    gb_sched_force_form(0);
}

/* ---- tensorize (SCHED.md, "Tiles") ----------------------------------------- */

/* Each rule of `tensorize LOOP amx`, refused at its line before any
 * compiler runs. */
TEST(sched_tensorize_refusals_name_the_line)
{
    /* the legal nest the refusals break, one thing each */
    static const char legal[] = "type bf16\nsplit j 32 -> jr jv\nsplit i 32 -> ir ii\n"
                                "reorder jr ir k ii jv\npack B at jr\nvectorize jv\n";
    static const struct {
        const char *text, *message;
    } refused[] = {
        { "split i 16 -> io ii\ntensorize ii amx\n",
          "t.sched:2: tensorize: AMX's tiles multiply bf16 and u8s8: state `type bf16` or "
          "`type u8s8` first" },
        { "type bf16\ntensorize i avx\n", "t.sched:2: tensorize: expected 'amx', found 'avx'" },
        { "type bf16\ntensorize j amx\n",
          "t.sched:2: tensorize: 'j' is not a piece of i: the tiles' rows are rows of C" },
        { "type bf16\ntensorize i amx\ntensorize i amx\n",
          "t.sched:3: tensorize: 'i' is tensorized already (line 2); one run on the tiles "
          "per nest" },
        { "+tensorize jv amx\n",
          "t.sched:7: tensorize: 'jv' is not a piece of i: the tiles' rows are rows of C" },
        { "type bf16\nsplit i 16 -> io ii\nreorder io j k ii\npack B at io\ntensorize ii amx\n",
          "t.sched:5: tensorize: no vectorized piece of j: its lanes are the tiles' columns "
          "(vectorize one)" },
        { "type bf16\nsplit j 32 -> jr jv\nsplit i 32 -> ir ii\nreorder jr ir ii k jv\n"
          "pack B at jr\nvectorize jv\ntensorize ii amx\n",
          "t.sched:7: tensorize: 'ii' is not directly outside the vectorized loop 'jv'" },
        { "type bf16\nsplit j 32 -> jr jv\nsplit i 32 -> ir ii\nreorder jr k ir ii jv\n"
          "pack B at jr\nvectorize jv\ntensorize ii amx\n",
          "t.sched:7: tensorize: the loop directly outside 'ii' is not a piece of k: the tiles "
          "hold C's sums over its k" },
        { "+pack A at jr\ntensorize ii amx\n",
          "t.sched:8: tensorize: A is packed (line 7): the A tiles are A's rows, read in place" },
        { "type u8s8\nsplit j 32 -> jr jv\nsplit i 32 -> ir ii\nreorder jr ir k ii jv\n"
          "vectorize jv\ntensorize ii amx\n",
          "t.sched:6: tensorize: B is not packed: the B tiles are rows of its pack, pairs or "
          "quads of k side by side" },
        { "type bf16\nsplit j 32 -> jr jv\nsplit i 32 -> ir ii\nreorder jr ir k ii jv\n"
          "pack B at jr fused\nvectorize jv\ntensorize ii amx\n",
          "t.sched:7: tensorize: B's pack is fused (line 5): the tiles read B's pack whole" },
        { "+prefetch C at k\ntensorize ii amx\n",
          "t.sched:7: prefetch: 'k' is in the run on the tiles (line 8), which prefetches "
          "nothing" },
        { "+prefetch B at jr over k\ntensorize ii amx\n",
          "t.sched:7: prefetch: 'k' is in the run on the tiles (line 8), which prefetches "
          "nothing" },
        { "+cache_write C at ir\ntensorize ii amx\n",
          "t.sched:8: tensorize: C is cached (line 7): the tiles hold C's block" },
        { "type bf16\nsplit i 16 -> io ii\nchoose a_read in_place\ntensorize ii amx\n"
          "or copied\nend\n",
          "t.sched:4: tensorize: inside a choose block (the run on the tiles is the "
          "schedule's; state it outside the blocks)" },
        { "param tensorize = 4\n",
          "t.sched:1: param: 'tensorize' is a word of the language, not a name" },
    };
    char err[512], text[1024];

    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        int rc;
        if (refused[i].text[0] == '+') /* the legal nest and more */
            snprintf(text, sizeof text, "%s%s", legal, refused[i].text + 1);
        else
            snprintf(text, sizeof text, "%s", refused[i].text);
        rc = check_text(text, err, sizeof err);
        if (rc == 0 || strcmp(err, refused[i].message) != 0) {
            char msg[1400];
            snprintf(msg, sizeof msg, "schedule %zu: got %s'%s', expected '%s'", i,
                     rc == 0 ? "no refusal, " : "", err, refused[i].message);
            gb_test_fail(__FILE__, __LINE__, msg);
        }
    }
    snprintf(text, sizeof text, "%stensorize ii amx\n", legal);
    CHECK(check_text(text, err, sizeof err) == 0);
    CHECK(gb_sched_load("schedules/amx_bf16.sched", &(gb_sched){ 0 }, NULL, err, sizeof err) == 0);
}

/* Tensorized nests on the tiles' emulation (the lowering's test hook: the
 * same C, its tile operations calls of amx_tiles_emulated_any), exact on
 * shapes that take the tiles (2 x 2, 1 x 2 and 1 x 3 blocks; C's init
 * folded where k is split outside the run; B packed by the team) and on
 * shapes that cannot (tails in the rows, K not whole tiles deep), which
 * run the other forms; 1 and 2 threads. */
TEST(sched_tensorized_kernels_are_exact_on_emulated_tiles)
{
    static const struct {
        gb_dtype t;
        const char *nest;
    } tnests[] = {
        { GB_DTYPE_BF16, "schedules/amx_bf16.sched" },
        /* k split outside the run (C's init folded: tiles loaded from C
         * after the first block), B at pc by the team, 1 x 3 tiles */
        { GB_DTYPE_U8S8, "split j 48 -> jr jv\nsplit k 128 -> pc kk\nsplit i 16 -> ir ii\n"
                         "reorder pc jr ir kk ii jv\nparallel jr\npack B at pc\nvectorize jv\n"
                         "tensorize ii amx\n" },
        { GB_DTYPE_BF16, "split j 16 -> jr jv\nsplit k 64 -> pc kk\nsplit i 24 -> ir ii\n"
                         "reorder jr pc ir kk ii jv\nparallel jr\npack B at pc\nvectorize jv\n"
                         "tensorize ii amx\n" },
    };
    static const int tshapes[][3] = { /* M, N, K */
        { 32, 64, 64 }, { 16, 96, 256 }, { 64, 96, 384 }, { 48, 96, 192 }, { 17, 100, 45 },
        { 24, 48, 96 },
    };
    enum { NT = sizeof tnests / sizeof tnests[0], NS = sizeof tshapes / sizeof tshapes[0] };
    static typed_case cases[NT * NS];
    static gb_sched nest;
    char err[512];
    int ncases = 0, tiled = 0, other = 0;
    unsigned seed = 4242;

    /* one file and one compiler run per type, as above */
    for (int ti = 0; ti < 2; ti++) {
        const gb_dtype type = ti ? GB_DTYPE_U8S8 : GB_DTYPE_BF16;
        const int first = ncases;
        size_t cap = 1 << 20, used = 0;
        char *source = malloc(cap);
        gb_sched_so so;
        int rc = 0;

        CHECK(source != NULL);
        if (source == NULL)
            return;
        source[0] = '\0';
        gb_sched_force_tiles_emulated(1);
        for (int n = 0; n < NT && rc >= 0; n++) {
            if (tnests[n].t != type)
                continue;
            if (load_nest(tnests[n].nest, &nest, tnests[n].t, err, sizeof err) != 0) {
                gb_test_fail(__FILE__, __LINE__, err);
                continue;
            }
            for (int s = 0; s < NS && rc >= 0; s++) {
                typed_case *c = &cases[ncases];
                gb_params none = { 0 };
                gb_sched_plan *pl;
                c->t = tnests[n].t;
                c->M = tshapes[s][0], c->N = tshapes[s][1], c->K = tshapes[s][2];
                pl = gb_sched_plan_new(&nest, &none, c->M, c->N, c->K, err, sizeof err);
                if (pl == NULL) {
                    gb_test_fail(__FILE__, __LINE__, err);
                    continue;
                }
                snprintf(c->what, sizeof c->what, "nest %d M=%d N=%d K=%d: %s", n, c->M, c->N,
                         c->K, gb_sched_plan_form(pl, &c->dot));
                c->dot = gb_sched_plan_tiles(pl); /* here: whether on the tiles */
                tiled += c->dot;
                other += !c->dot;
                rc = add_case(pl, c, "tiled", ncases, &source, &cap, &used);
                ncases += rc == 0;
            }
        }
        gb_sched_force_tiles_emulated(0);
        if (rc < 0)
            return;
        rc = build_cases(source, &so);
        if (rc > 0)
            SKIP("no C compiler");
        if (rc < 0)
            return;
        {
            const amx_tile_ops **ops = dlsym(so.handle, "gb_tile_ops_emulated");
            CHECK(ops != NULL || tiled == 0);
            if (ops != NULL)
                *ops = &amx_tiles_emulated_any;
        }
        verify_cases(&so, "tiled", cases, first, ncases, &seed);
        gb_sched_so_close(&so);
    }
    CHECK(other > 0);
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512f"))
        SKIP("the tiles: this CPU has no AVX-512 for the packs (the other forms ran)");
    CHECK(tiled >= 2 * NT);
#else
    SKIP("the tiles: not an x86-64 CPU (the other forms ran)");
#endif
}
