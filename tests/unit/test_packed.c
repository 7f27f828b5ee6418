/*
 * test_packed.c - the packed schedule beyond the table-wide test: every
 * micro-kernel this CPU can run (forced with --param isa=...), block sizes
 * small enough that every one of the five loops runs several times and
 * ends in a tail, pre-packed B, 1 and 2 threads, padded leading dimensions;
 * and the blocking and threading rules the header of packed_plan.c promises.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, strdup */
#include "test.h"
#include "variants.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemmbench.h"
#include "machine.h"
#include "options.h"
#include "packed_kinds.h"
#include "packed_plan.h"
#include "sched_lang.h"
#include "variant_check.h"

/* The isa choices this CPU runs, decided here independently of packed.c. */
static int cpu_runs(const char *isa)
{
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (strcmp(isa, "avx512") == 0)
        return __builtin_cpu_supports("avx512f");
    if (strcmp(isa, "avx2") == 0)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    if (strcmp(isa, "avx512") == 0 || strcmp(isa, "avx2") == 0)
        return 0;
#endif
    return strcmp(isa, "portable") == 0;
}

static const gb_param_spec *spec_of(const gb_variant *v, const char *key)
{
    for (const gb_param_spec *s = v->params; s && s->key; s++)
        if (strcmp(s->key, key) == 0)
            return s;
    return NULL;
}

/* Settings per run: the rules' own; tiny blocks, so that jc, pc, ic, ir and
 * jr each iterate several times and end in a partial block; and every B
 * mode, A mode and loop order forced, each with tails too. */
static const char *const block_settings[] = {
    "",
    "mc=8,kc=5,nc=50",
    "mc=1,kc=1,nc=1",
    "bpack=panel_fused,mc=8,kc=7,nc=50",
    "apack=block,mc=8,kc=5,nc=50",
    "bpack=panel",
    "bpack=in_place,loop=ir_jr,kc=5,nc=50,bpf=0",
    "bpack=panel,loop=jr_ir,mc=8,kc=5",
    "apack=whole,bpack=panel_fused,kc=7,bpf=64",
    "apack=in_place",
    "apack=in_place,mc=8,kc=5,nc=50,bnext=0",
    "apack=in_place,bpack=panel,loop=ir_jr,kc=7",
    "bpack=fused,bcopy=copied,mc=48,kc=5,nc=50,bpf=3,bahead=0",
    "bpack=fused,bcopy=copied,apack=whole,kc=7",
    "apack=fused,bpack=fused,bcopy=copied,mc=16,kc=5",
    "apack=fused,bpack=panel,loop=ir_jr,mc=16,kc=7",
};
/* At most 16: scripts/cross-aarch64.sh passes them all as --param sets. */

/* Every block setting on every shape below, 1 and 2 threads, padded or not,
 * pre-packed or not: on the micro-kernel the CPU gets by default
 * (default_isa), or on every other one it runs.  Every combination, or
 * (every_combination 0, make test) half of them: each setting and shape
 * padded and not, per call and pre-packed, in all four pairings, each
 * pairing on one of the thread counts (the one set by the parity of
 * setting, shape, padding and pre-packing), so that each thread count
 * also meets both paddings and both ways of passing B. */
static void check_packed_block_settings(int default_isa, int every_combination)
{
    const gb_variant *v = gb_variant_find("packed");
    const gb_param_spec *isa = v ? spec_of(v, "isa") : NULL;
    static const int shapes[][3] = {
        /* M, N, K */
        { 1, 1, 1 },   { 7, 33, 100 }, { 33, 100, 7 },  { 100, 7, 33 },
        { 17, 131, 71 }, { 65, 97, 129 }, { 48, 96, 16 }, { 9, 49, 3 },
        /* rows of B, then of A, a page or more apart: the rules' fused regimes */
        { 19, 1030, 9 }, { 5, 1100, 13 }, { 21, 40, 1030 },
        /* ... with enough A micro-panels that fused copies B (bcopy) */
        { 41, 1030, 9 },
        /* rows of B a multiple of L1d's way apart: prefetched closer */
        { 5, 1024, 13 }, { 19, 2048, 9 },
    };
    int isas_run = 0;

    CHECK(v != NULL && isa != NULL && isa->choices != NULL);
    CHECK(sizeof block_settings / sizeof block_settings[0] <= GB_MAX_PARAM_SETS);
    if (v == NULL || isa == NULL || isa->choices == NULL)
        return;
    gb_params none = { 0 };
    const long chosen = effective(v, &none, 7, 7, 7, 1, "isa");

    for (long c = 0; isa->choices[c]; c++) {
        if (!cpu_runs(isa->choices[c]) || (c == chosen) != default_isa)
            continue;
        isas_run++;
        for (size_t b = 0; b < sizeof block_settings / sizeof block_settings[0]; b++) {
            gb_params p;
            char err[256], text[96];
            snprintf(text, sizeof text, "isa=%s%s%s", isa->choices[c],
                     block_settings[b][0] ? "," : "", block_settings[b]);
            CHECK(gb_params_parse(v, text, &p, err, sizeof err) == 0);
            CHECK_EQ_INT(effective(v, &p, 7, 7, 7, 1, "isa"), c);
            for (int threads = 1; threads <= 2; threads++)
                for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
                    for (int pad = 0; pad <= 3; pad += 3)
                        for (int prepack = 0; prepack <= 1; prepack++) {
                            if (!every_combination &&
                                ((b + s + (pad > 0) + prepack + threads) & 1) != 0)
                                continue;
                            long bad = run_and_compare(v, &p, shapes[s][0], shapes[s][1],
                                                       shapes[s][2], pad, threads, prepack);
                            if (bad != 0) {
                                char msg[200];
                                snprintf(msg, sizeof msg,
                                         "packed[%s] M=%d N=%d K=%d pad=%d threads=%d "
                                         "prepack=%d: %ld wrong",
                                         text, shapes[s][0], shapes[s][1], shapes[s][2], pad,
                                         threads, prepack, bad);
                                gb_test_fail(__FILE__, __LINE__, msg);
                            }
                        }
        }
    }
    /* The default path always runs; another one may not exist on this CPU. */
    if (default_isa)
        CHECK(isas_run == 1);
    else if (isas_run == 0)
        SKIP("the CPU runs no micro-kernel but its default one");
}

TEST(packed_exact_on_the_default_isa_and_every_block_size)
{
    check_packed_block_settings(1, 0);
}

/* The same with every combination (8 s on a 2-vCPU VM). */
TEST_SLOW(packed_exact_on_the_default_isa_every_combination)
{
    check_packed_block_settings(1, 1);
}

/* The other micro-kernels, every combination (8 s each on a 2-vCPU VM). */
TEST_SLOW(packed_exact_on_every_other_isa_and_block_size)
{
    check_packed_block_settings(0, 1);
}

/* A path the CPU cannot run is refused, never silently replaced. */
TEST(packed_refuses_an_isa_the_cpu_lacks)
{
    const gb_variant *v = gb_variant_find("packed");
    const gb_param_spec *isa = v ? spec_of(v, "isa") : NULL;
    int refused = 0;

    /* packed and its isa choice are in every build (schedules/table.c). */
    CHECK(v != NULL && isa != NULL && isa->choices != NULL);
    if (v == NULL || isa == NULL || isa->choices == NULL)
        return;
    for (long c = 0; isa->choices[c]; c++) {
        gb_params p = { 0 };
        gb_ctx ctx = { 1, &p, NULL, NULL, 0, NULL };
        void *state = NULL;
        float B[4] = { 1, 2, 3, 4 };
        char why[256] = "";
        int rc;
        gb_param_set(&p, "isa", c);
        CHECK(v->usable != NULL);
        if (v->usable == NULL)
            return;
        rc = v->usable(&p, why, sizeof why);
        if (cpu_runs(isa->choices[c])) {
            CHECK(rc == 0);
            continue;
        }
        /* Refused up front (main: an input error before the sweep) ... */
        CHECK(rc == -1 && strstr(why, isa->choices[c]) != NULL &&
              strstr(why, "portable") != NULL);
        /* ... and by prepare(), should anything call it regardless. */
        rc = v->prepare(2, 2, 2, B, 2, &ctx, 0, &state);
        CHECK(rc == -1 && state == NULL);
        refused++;
    }
    /* Every choice was accepted above (checked); the refusal needs a CPU
     * without one of them. */
    if (refused == 0)
        SKIP("this CPU runs every isa choice: none to refuse (needs one without "
             "AVX-512F, or without AVX2 and FMA)");
}

/* The blocking rules of packed_plan.c's header, on BERT's qkv shape (B read
 * in place, its micro-panel in L1) and mlp_expand's (B fused: copied by the
 * first pass). */
TEST(packed_blocks_follow_the_cache_rule)
{
    const gb_variant *v = gb_variant_find("packed");
    gb_params none = { 0 }, user = { 0 };
    gb_machine m;
    long mr, nr, mc, kc, nc, l1;
    /* B a page apart read in place, as calibrated on a machine where that
     * is faster (test_calibrate.c tests the other way). */
    char *mode = calibrate_mode_save();

    /* packed is in every build (schedules/table.c). */
    CHECK(v != NULL);
    if (v == NULL) {
        free(mode);
        return;
    }
    setenv("GEMMBENCH_CALIBRATE", "in_place", 1);
    gb_machine_detect(&m);
    l1 = gb_machine_cache_bytes(&m, 1);
    mr = effective(v, &none, 384, 768, 768, 1, "mr");
    nr = effective(v, &none, 384, 768, 768, 1, "nr");
    mc = effective(v, &none, 384, 768, 768, 1, "mc");
    kc = effective(v, &none, 384, 768, 768, 1, "kc");
    nc = effective(v, &none, 384, 768, 768, 1, "nc");
    CHECK(mr > 0 && nr > 0 && mc > 0 && kc > 0 && nc > 0);
    CHECK_EQ_INT(mc % mr, 0);
    CHECK_EQ_INT(nc % nr, 0);
    /* Balanced: K is cut into equal blocks, not a full one and a sliver. */
    CHECK_EQ_INT(768 % kc, 0);
    /* N = 768: rows 3 KiB apart, B in place, jr outer; kc from the A
     * micro-panel's share of L1 whichever loop is outer. */
    CHECK_EQ_INT(effective(v, &none, 384, 768, 768, 1, "bpack"), 1);
    CHECK_EQ_INT(effective(v, &none, 384, 768, 768, 1, "loop"), 1);
    if (l1 > 0)
        CHECK(mr * kc * (long)sizeof(float) <= l1 / 2);
    /* kcrule: forced l1_half (the default answer) the half's cap; l1_ways
     * BLIS's, gb_blis_kc_cap, balanced over K; kc itself wins over both.
     * Asked only where L1d's ways are known (not under qemu). */
    if (l1 > 0 && gb_machine_cache_ways(&m, 1) > 0) {
        CHECK_EQ_INT(effective(v, &none, 384, 768, 768, 1, "kcrule"), 0);
        const long cap = gb_blis_kc_cap(l1, gb_machine_cache_ways(&m, 1), (int)mr, (int)nr, NULL);
        const long blocks = (768 + cap - 1) / cap;
        gb_param_set(&user, "kcrule", 1);
        CHECK_EQ_INT(effective(v, &user, 384, 768, 768, 1, "kcrule"), 1);
        CHECK_EQ_INT(effective(v, &user, 384, 768, 768, 1, "kc"), (768 + blocks - 1) / blocks);
        gb_param_set(&user, "kc", 100);
        CHECK_EQ_INT(effective(v, &user, 384, 768, 768, 1, "kc"), 100);
        memset(&user, 0, sizeof user);
    }
    /* K = 768 too: A's rows 3 KiB apart, read in place (apack 2) ... */
    CHECK_EQ_INT(effective(v, &none, 384, 768, 768, 1, "apack"), 2);
    /* ... and K = 3072 (mlp_reduce), rows 12 KiB apart, as calibrated: in
     * place here (test_calibrate.c forces the other answer); with B packed
     * (ir outer) likewise. */
    CHECK_EQ_INT(effective(v, &none, 384, 768, 3072, 1, "apack"), 2);
    gb_param_set(&user, "bpack", 0);
    CHECK_EQ_INT(effective(v, &user, 384, 768, 3072, 1, "apack"), 2);
    CHECK_EQ_INT(effective(v, &user, 384, 3072, 768, 1, "apack"), 2);
    CHECK_EQ_INT(effective(v, &user, 384, 3072, 768, 1, "loop"), 0);
    kc = effective(v, &user, 384, 3072, 768, 1, "kc");
    CHECK_EQ_INT(768 % kc, 0);
    if (l1 > 0)
        CHECK(mr * kc * (long)sizeof(float) <= l1 / 2);
    memset(&user, 0, sizeof user);
    /* N = 3072: rows 12 KiB apart, B fused (3), jr outer, A in place, while
     * all M rows of A at L1's kc fit half of L2 (one A micro-panel per
     * thread: it copies nothing); beyond, panel fused (4): ir outer, kc
     * L1's figure, the B block copied by the first A pass; A in place in
     * both (rows 3 KiB apart). */
    if (l1 > 0 && gb_machine_cache_bytes(&m, 2) > 0) {
        const long l2 = gb_machine_cache_bytes(&m, 2);
        const long l1_kc = l1 / 2 / (mr * 4) < 768 ? l1 / 2 / (mr * 4) : 768;
        for (int rows = 1; rows <= 2048; rows *= 2) {
            const long padded = (rows + mr - 1) / mr * mr;
            const int cut = padded * l1_kc * 4 > l2 / 2;
            CHECK_EQ_INT(effective(v, &none, rows, 3072, 768, 2, "bpack"), cut ? 4 : 3);
            CHECK_EQ_INT(effective(v, &none, rows, 3072, 768, 1, "loop"), cut ? 0 : 1);
            CHECK_EQ_INT(effective(v, &none, rows, 3072, 768, 1, "apack"), 2);
            kc = effective(v, &none, rows, 3072, 768, 1, "kc");
            CHECK_EQ_INT(768 % kc, 0);
            CHECK(mr * kc * (long)sizeof(float) <= l1 / 2);
            if (cut) {
                const long blocks = (768 + l1_kc - 1) / l1_kc;
                CHECK_EQ_INT(kc, (768 + blocks - 1) / blocks);
            }
        }
    }
    /* B fused, bcopy copied, copies B only when the passes after the first
     * do at least 32 FMAs per copied element: (A micro-panels - 1) x MR >=
     * 32; the A micro-panels of a block are its rows (all M at these sizes)
     * over MR.  bcopy in place: never.  Reported only in the fused regime. */
    {
        int fused_rows = 0;
        gb_params copied = { 0 }, in_place = { 0 };
        gb_param_set(&copied, "bcopy", GB_READ_COPIED);
        gb_param_set(&in_place, "bcopy", GB_READ_IN_PLACE);
        for (int rows = 1; rows <= 64; rows++) {
            const long panels = (rows + mr - 1) / mr;
            if (effective(v, &none, rows, 3072, 768, 1, "bpack") != 3)
                continue;
            fused_rows++;
            CHECK_EQ_INT(effective(v, &copied, rows, 3072, 768, 1, "bcopy"),
                         (panels - 1) * mr >= 32);
            CHECK_EQ_INT(effective(v, &in_place, rows, 3072, 768, 1, "bcopy"), 0);
            /* Copied: ahead (every pass) where the kernel can, 0 with
             * --param bahead=0; not asked where nothing is copied. */
            const int copies = (panels - 1) * mr >= 32;
            const int can = mr == 8 && effective(v, &none, rows, 3072, 768, 1, "isa") == 0;
            CHECK_EQ_INT(effective(v, &copied, rows, 3072, 768, 1, "bahead"),
                         copies && can ? 1 : -1);
            CHECK_EQ_INT(effective(v, &in_place, rows, 3072, 768, 1, "bahead"), -1);
            gb_params first = copied;
            gb_param_set(&first, "bahead", 0);
            CHECK_EQ_INT(effective(v, &first, rows, 3072, 768, 1, "bahead"),
                         copies && can ? 0 : -1);
        }
        /* Fused holds at least up to M = 8 MR on any L2 of 512 KiB or more. */
        if (gb_machine_cache_bytes(&m, 2) >= 512 * 1024)
            CHECK(fused_rows >= 8 * mr && fused_rows <= 64);
    }
    CHECK_EQ_INT(effective(v, &none, 384, 768, 768, 1, "bcopy"), -1);
    /* B in place (N = 768, jr outer): kc from L1's figure at every M, cut
     * to the places L2 has for rows 3 KiB apart where they are fewer (the
     * calibration forced in place: kcplaces on; none are with 8 rows of A
     * on 48 KiB, 1024 of 1536 with the portable kernel's 4), down to a
     * quarter of L1's figure; mc within half of L2 (more than one ic block
     * where M rows do not fit).
     * B fused (forced here): kc cut until all M rows x kc fit half of L2, so
     * that one ic block (mc = M) reads B once, never below a quarter of the
     * L1 figure. */
    if (l1 > 0 && gb_machine_cache_bytes(&m, 2) > 0) {
        const long l2 = gb_machine_cache_bytes(&m, 2), l1_kc = l1 / 2 / (mr * 4);
        const long places = gb_places_rows(l2, 768 * 4, 4096, 64);
        long blocks = (3072 + l1_kc - 1) / l1_kc;
        if (places < (3072 + blocks - 1) / blocks) {
            const long cap = places > l1_kc / 4 ? places : l1_kc / 4;
            blocks = (3072 + cap - 1) / cap;
        }
        gb_params fused = { 0 };
        gb_param_set(&fused, "bpack", 3);
        static const int rows_list[] = { 16, 64, 256, 384, 768, 1536 };
        for (size_t i = 0; i < sizeof rows_list / sizeof rows_list[0]; i++) {
            const int rows = rows_list[i];
            const long kc_m = effective(v, &none, rows, 768, 3072, 1, "kc");
            const long mc_m = effective(v, &none, rows, 768, 3072, 1, "mc");
            const long kc_f = effective(v, &fused, rows, 3072, 768, 1, "kc");
            const long mc_f = effective(v, &fused, rows, 3072, 768, 1, "mc");
            CHECK_EQ_INT(kc_m, (3072 + blocks - 1) / blocks);
            CHECK(mc_m * kc_m * 4 <= l2 / 2 || mc_m == mr);
            CHECK(kc_f <= l1_kc && kc_f >= l1_kc / 8);
            if ((long)rows * kc_f * 4 <= l2 / 2)
                CHECK_EQ_INT(mc_f, rows);
            else
                CHECK(kc_f <= l1_kc / 4);
        }
    }
    /* Overrides: mc and nc rounded up to the register block, kc as given. */
    gb_param_set(&user, "mc", mr + 1);
    gb_param_set(&user, "kc", 5);
    gb_param_set(&user, "nc", 1);
    CHECK_EQ_INT(effective(v, &user, 384, 768, 768, 1, "mc"), 2 * mr);
    CHECK_EQ_INT(effective(v, &user, 384, 768, 768, 1, "kc"), 5);
    CHECK_EQ_INT(effective(v, &user, 384, 768, 768, 1, "nc"), nr);
    calibrate_mode_restore(mode);
}

/* B's rows and L2's places (gb_places_rows): rows a multiple of a page
 * apart have L2 / page places at one line offset, rows 3 KiB apart four
 * times that, rows a line-multiple but no larger power of two apart every
 * line; on this kind's 1 MiB L2, the Intel kind's 2 MiB and a 256 KiB. */
TEST(packed_places_rows_follow_the_row_stride)
{
    static const long l2s[] = { 256L * 1024, 1024L * 1024, 2048L * 1024 };

    for (size_t i = 0; i < sizeof l2s / sizeof l2s[0]; i++) {
        const long l2 = l2s[i];
        CHECK_EQ_INT(gb_places_rows(l2, 3072 * 4, 4096, 64), l2 / 4096);
        CHECK_EQ_INT(gb_places_rows(l2, 1024 * 4, 4096, 64), l2 / 4096);
        CHECK_EQ_INT(gb_places_rows(l2, 768 * 4, 4096, 64), l2 / 1024);
        CHECK_EQ_INT(gb_places_rows(l2, 2304 * 4, 4096, 64), l2 / 1024);
        CHECK_EQ_INT(gb_places_rows(l2, 3088 * 4, 4096, 64), l2 / 64);
        CHECK_EQ_INT(gb_places_rows(l2, 100, 4096, 64), l2 / 64);
    }
    CHECK_EQ_INT(gb_places_rows(1024L * 1024, 3072 * 4, 4096, 64), 256);
    CHECK_EQ_INT(gb_places_rows(2048L * 1024, 3072 * 4, 4096, 64), 512);
}

/* kc where every pass reads B in place (jr outer): no more rows than L2's
 * places for B's row stride, balanced over K, down to a quarter of L1's
 * figure, where the calibration's kcplaces says on (asked only where the
 * places are fewer than L1's figure); not where it says off, nor where the
 * first pass copies B, nor over a --param kc. */
TEST(packed_kc_fits_b_rows_in_l2_places)
{
    const gb_variant *v = gb_variant_find("packed");
    gb_params none = { 0 }, copied = { 0 }, user = { 0 }, uncut = { 0 }, calib_off = { 0 };
    gb_machine m;
    char *mode = calibrate_mode_save();
    long l1, l2, mr;

    CHECK(v != NULL);
    gb_machine_detect(&m);
    l1 = gb_machine_cache_bytes(&m, 1);
    l2 = gb_machine_cache_bytes(&m, 2);
    if (v == NULL || l1 <= 0 || l2 <= 0) {
        free(mode);
        if (v != NULL)
            SKIP("L1d or L2 size unknown here: the rule falls back to common sizes");
        return;
    }
    /* Every calibrated answer in place: B fused copies nothing. */
    setenv("GEMMBENCH_CALIBRATE", "in_place", 1);
    mr = effective(v, &none, 16, 3072, 768, 1, "mr");
    {
        const long l1_kc = l1 / 2 / (mr * 4) < 768 ? l1 / 2 / (mr * 4) : 768;
        const long places = gb_places_rows(l2, 3072 * 4, 4096, 64);
        long cap = places < l1_kc ? places : l1_kc, blocks;
        /* the floor is a quarter of L1's figure itself, not of K's cap on
         * it (1536 with the portable kernel's 4 rows on 48 KiB: 384) */
        if (cap < l1 / 2 / (mr * 4) / 4)
            cap = l1 / 2 / (mr * 4) / 4;
        blocks = (768 + cap - 1) / cap;
        const long b1 = (768 + l1_kc - 1) / l1_kc;
        /* mlp_expand M = 16 and 32: B fused, no copy, jr outer; kcplaces
         * asked where it cuts, and then off keeps L1's figure. */
        gb_param_set(&uncut, "kcplaces", GB_OFF);
        for (int rows = 16; rows <= 32; rows += 16) {
            CHECK_EQ_INT(effective(v, &none, rows, 3072, 768, 1, "bpack"), 3);
            CHECK_EQ_INT(effective(v, &none, rows, 3072, 768, 1, "kc"),
                         (768 + blocks - 1) / blocks);
            CHECK_EQ_INT(effective(v, &none, rows, 3072, 768, 1, "kcplaces"),
                         places < l1_kc ? GB_ON : -1);
            CHECK_EQ_INT(effective(v, &uncut, rows, 3072, 768, 1, "kc"), (768 + b1 - 1) / b1);
            CHECK_EQ_INT(effective(v, &uncut, rows, 3072, 768, 1, "kcplaces"),
                         places < l1_kc ? GB_OFF : -1);
        }
        /* Calibrated off: every answer 1, but B read in place and kc by
         * half of L1d, as above (B fused then copies from 5 A micro-panels:
         * M = 16 at 1 thread, 2 of them, still reads B in place). */
        setenv("GEMMBENCH_CALIBRATE", "copied", 1);
        gb_param_set(&calib_off, "bread", GB_READ_IN_PLACE);
        gb_param_set(&calib_off, "kcrule", 0);
        CHECK_EQ_INT(effective(v, &calib_off, 16, 3072, 768, 1, "bpack"), 3);
        CHECK_EQ_INT(effective(v, &calib_off, 16, 3072, 768, 1, "kc"), (768 + b1 - 1) / b1);
        CHECK_EQ_INT(effective(v, &calib_off, 16, 3072, 768, 1, "kcplaces"),
                     places < l1_kc ? GB_OFF : -1);
        setenv("GEMMBENCH_CALIBRATE", "in_place", 1);
        /* The first pass copying B (8 A micro-panels): L1's figure. */
        gb_param_set(&copied, "bcopy", GB_READ_COPIED);
        if (effective(v, &copied, 64, 3072, 768, 1, "bcopy") == 1) {
            CHECK_EQ_INT(effective(v, &copied, 64, 3072, 768, 1, "kc"), (768 + b1 - 1) / b1);
        }
        /* N = 768, rows 3 KiB apart: places for every row at L2 >= 768 KiB. */
        if (gb_places_rows(l2, 768 * 4, 4096, 64) >= 768) {
            CHECK_EQ_INT(effective(v, &none, 16, 768, 768, 1, "kc"), (768 + b1 - 1) / b1);
        }
        gb_param_set(&user, "kc", 700);
        CHECK_EQ_INT(effective(v, &user, 16, 3072, 768, 1, "kc"), 700);
    }
    calibrate_mode_restore(mode);
}

/* ---- the plans of the kinds not at hand (packed_kinds.h) -------------------- */

/* What a plan decides: B's mode (bpack's index), ir outer, the blocks, kc
 * cut to L2's places, the L2 prefetch 16 rows ahead, B copied ahead, and
 * the rows B is prefetched ahead into L1. */
typedef struct plan_row {
    int N, K, M;
    int b_mode, ir_outer, kc, mc, nc, kc_places, b_far, copy_ahead, bpf, b_next;
} plan_row;

#define QKV 768, 768
#define EXPAND 3072, 768
#define REDUCE 768, 3072

static void check_kind_plans(const char *kind, const gb_machine *m, unsigned copied,
                             const plan_row *rows, size_t nrows)
{
    gb_params avx512 = { 0 };

    gb_param_set(&avx512, "isa", 0); /* avx512: the kinds' micro-kernel, 8 x 48 */
    for (int threads = 1; threads <= 2; threads++) {
        const gb_calibration cal = kind_calibration(threads, copied);
        const gb_ctx ctx = { threads, &avx512, NULL, NULL, 0, NULL };
        for (size_t i = 0; i < nrows; i++) {
            const plan_row *r = &rows[i];
            packed_plan p;
            packed_plan_call_on(m, &cal, r->M, r->N, r->K, &ctx, 0, &p);
            const plan_row got = { r->N, r->K, r->M, p.b_mode, p.ir_outer, p.kc, p.mc, p.nc,
                                   p.kc_places, p.b_far, p.copy_ahead,
                                   packed_b_prefetch_rows(&p, r->N), p.b_next };
            if (memcmp(&got, r, sizeof got) != 0 || p.tm != 1 || p.tn != threads) {
                char msg[400];
                snprintf(msg, sizeof msg,
                         "%s, %d thread%s, %dx%dx%d (MxNxK): bpack %d, ir_outer %d, kc %d, "
                         "mc %d, nc %d, places %d, bfar %d, ahead %d, bpf %d, bnext %d, "
                         "grid %dx%d",
                         kind, threads, threads > 1 ? "s" : "", r->M, r->N, r->K, got.b_mode,
                         got.ir_outer, got.kc, got.mc, got.nc, got.kc_places, got.b_far,
                         got.copy_ahead, got.bpf, got.b_next, p.tm, p.tn);
                gb_test_fail(__FILE__, __LINE__, msg);
            }
        }
    }
}

/* packed's plans on the bar's twelve shapes for each kind this project
 * measures, from its caches and its calibration as recorded (results/
 * notes): a rule tuned on one kind must not move another's plan unseen
 * (a change that does updates the kind's rows, with a measurement there
 * or the reason none could be made).  The same plan at 1 and 2 threads
 * (grid 1 x threads: the threads split N). */
TEST(packed_plans_on_each_kinds_figures)
{
    /* AMD EPYC family 26 model 2 (Zen 5): 48 KiB 12-way L1d, 1 MiB L2
     * (reported 8-way), 508 MiB L3; calibrated (2026-12-04) bcopy copied,
     * bprefetch l2, bnear copied, bfar off, the rest the first answer
     * (kcplaces on: the cut took 0.93-0.98x the time; bmany never asked
     * at these shapes); bnearnext off (2026-12-06: the next micro-panel's
     * prefetch took 1.06x | 1.03x the time at qkv M = 8, 16, 1 | 2
     * threads): none at M = 16 where B's rows are 3 KiB apart. */
    static const plan_row zen5[] = {
        /* B's rows 3 KiB apart: in place; from M = 256 an A block (mc 128,
         * half of L2 at kc 768) holds fewer rows: bnear copies (panel fused) */
        { QKV, 16, 1, 0, 768, 16, 768, 0, 1, 0, 16, 0 },
        { QKV, 64, 1, 0, 768, 64, 768, 0, 1, 0, 16, 1 },
        { QKV, 256, 4, 1, 768, 128, 144, 0, 1, 0, 16, 1 },
        { QKV, 384, 4, 1, 768, 128, 144, 0, 1, 0, 16, 1 },
        /* 12 KiB rows, fused: M = 16 reads B in place on both passes, kc
         * cut to L2's places (256), no far prefetch, none into L1; M = 64
         * copies ahead; from 256 fused would cut kc: panel fused */
        { EXPAND, 16, 3, 0, 256, 16, 3072, 1, 0, 0, 0, 1 },
        { EXPAND, 64, 3, 0, 768, 64, 3072, 0, 1, 1, 0, 1 },
        { EXPAND, 256, 4, 1, 768, 128, 144, 0, 1, 0, 0, 1 },
        { EXPAND, 384, 4, 1, 768, 128, 144, 0, 1, 0, 0, 1 },
        { REDUCE, 16, 1, 0, 768, 16, 768, 0, 1, 0, 16, 0 },
        { REDUCE, 64, 1, 0, 768, 64, 768, 0, 1, 0, 16, 1 },
        { REDUCE, 256, 4, 1, 768, 128, 144, 0, 1, 0, 16, 1 },
        { REDUCE, 384, 4, 1, 768, 128, 144, 0, 1, 0, 16, 1 },
    };
    /* Intel Xeon family 6 model 207: 48 KiB 12-way L1d, 2 MiB 16-way L2;
     * calibrated (issue 47's sessions) B copied (in place 1.7-2x the
     * copy's time) and bcopy copied; bprefetch, kc, bnear, bfar, kcplaces
     * and bmany came after and were never measured there: the first
     * answer stands for each. */
    static const plan_row xeon[] = {
        { QKV, 16, 1, 0, 768, 16, 768, 0, 1, 0, 16, 1 },
        { QKV, 64, 1, 0, 768, 64, 768, 0, 1, 0, 16, 1 },
        { QKV, 256, 1, 0, 768, 256, 768, 0, 1, 0, 16, 1 },
        { QKV, 384, 1, 0, 768, 192, 768, 0, 1, 0, 16, 1 },
        /* B copied: panel fused at every M */
        { EXPAND, 16, 4, 1, 768, 16, 336, 0, 1, 0, 4, 1 },
        { EXPAND, 64, 4, 1, 768, 64, 336, 0, 1, 0, 4, 1 },
        { EXPAND, 256, 4, 1, 768, 256, 336, 0, 1, 0, 4, 1 },
        { EXPAND, 384, 4, 1, 768, 192, 336, 0, 1, 0, 4, 1 },
        { REDUCE, 16, 1, 0, 768, 16, 768, 0, 1, 0, 16, 1 },
        { REDUCE, 64, 1, 0, 768, 64, 768, 0, 1, 0, 16, 1 },
        { REDUCE, 256, 1, 0, 768, 256, 768, 0, 1, 0, 16, 1 },
        { REDUCE, 384, 1, 0, 768, 192, 768, 0, 1, 0, 16, 1 },
    };
    /* AMD EPYC family 25 model 17 (Zen 4): 32 KiB 8-way L1d, 1 MiB 8-way
     * L2, 32 MiB L3; calibrated (2026-12-05, eight calibrations each
     * thread count) bprefetch l2, kcplaces off, bmany copied (at 2
     * threads copied in 8 of 16, a tie), the rest the first answer. */
    static const plan_row zen4[] = {
        { QKV, 16, 1, 0, 384, 16, 768, 0, 1, 0, 8, 1 },
        { QKV, 64, 1, 0, 384, 64, 768, 0, 1, 0, 8, 1 },
        { QKV, 256, 1, 0, 384, 256, 768, 0, 1, 0, 8, 1 },
        { QKV, 384, 1, 0, 384, 192, 768, 0, 1, 0, 8, 1 },
        /* fused, no copy (bcopy in place); bmany's panel fused at 256;
         * at 384 fused would cut kc */
        { EXPAND, 16, 3, 0, 384, 16, 3072, 0, 1, 0, 0, 1 },
        { EXPAND, 64, 3, 0, 384, 64, 3072, 0, 1, 0, 0, 1 },
        { EXPAND, 256, 4, 1, 384, 256, 336, 0, 1, 0, 0, 1 },
        { EXPAND, 384, 4, 1, 384, 192, 336, 0, 1, 0, 0, 1 },
        { REDUCE, 16, 1, 0, 512, 16, 768, 0, 1, 0, 8, 1 },
        { REDUCE, 64, 1, 0, 512, 64, 768, 0, 1, 0, 8, 1 },
        { REDUCE, 256, 1, 0, 512, 256, 768, 0, 1, 0, 8, 1 },
        { REDUCE, 384, 1, 0, 512, 192, 768, 0, 1, 0, 8, 1 },
    };
    const gb_machine zen5_m = kind_of(&KIND_ZEN5);
    const gb_machine xeon_m = kind_of(&KIND_XEON);
    const gb_machine zen4_m = kind_of(&KIND_ZEN4);
    gb_params avx512 = { 0 };
    packed_plan probe;
    const gb_ctx one = { 1, &avx512, NULL, NULL, 0, NULL };

    gb_param_set(&avx512, "isa", 0);
    packed_plan_call_on(&zen4_m, NULL, 16, 768, 768, &one, 0, &probe);
    if (probe.isa == NULL || probe.mr != 8 || probe.nr != 48)
        SKIP("no AVX-512 micro-kernel (8 x 48) in this build");
    check_kind_plans(KIND_ZEN5.name, &zen5_m, KIND_ZEN5.copied, zen5,
                     sizeof zen5 / sizeof zen5[0]);
    check_kind_plans(KIND_XEON.name, &xeon_m, KIND_XEON.copied, xeon,
                     sizeof xeon / sizeof xeon[0]);
    check_kind_plans(KIND_ZEN4.name, &zen4_m, KIND_ZEN4.copied, zen4,
                     sizeof zen4 / sizeof zen4[0]);

    /* bmany on family 26: fused would cut kc at its own shapes (M = 192,
     * 256), so both answers make one plan there and the calibration does
     * not time it (same_plan); on family 25 they are two plans. */
    for (int M = 192; M <= 256; M += 64) {
        gb_params in_place = avx512, copied = avx512, e[2][2];
        const gb_machine *kinds[2] = { &zen5_m, &zen4_m };
        gb_param_set(&in_place, "bmany", GB_READ_IN_PLACE);
        gb_param_set(&copied, "bmany", GB_READ_COPIED);
        for (int k = 0; k < 2; k++) {
            const gb_calibration cal = kind_calibration(2, 0);
            const gb_ctx a = { 2, &in_place, NULL, NULL, 0, NULL }, b = { 2, &copied, NULL, NULL, 0, NULL };
            packed_plan pa, pb;
            packed_plan_call_on(kinds[k], &cal, M, 3072, 768, &a, 0, &pa);
            packed_plan_call_on(kinds[k], &cal, M, 3072, 768, &b, 0, &pb);
            packed_plan_effective(&pa, M, 3072, &e[k][0]);
            packed_plan_effective(&pb, M, 3072, &e[k][1]);
        }
        CHECK(e[0][0].count == e[0][1].count &&
              memcmp(e[0][0].value, e[0][1].value, sizeof e[0][0].value) == 0 &&
              gb_param_get(&e[0][0], "bmany", -1) == -1);
        CHECK(gb_param_get(&e[1][0], "bpack", -1) == 3 && gb_param_get(&e[1][1], "bpack", -1) == 4);
    }
}

/* The schedule model's b_read (packed.sched's `choose b_read`) for B's
 * rows a page or more apart (mlp_expand's N = 3072): copied where packed's
 * plan copies B's block and reads it ir outer (panel fused), in place where
 * packed reads B fused, on each kind's figures and calibration, at every M
 * to 512, 1 and 2 threads.  (Rows under a page apart are bnear's: the
 * model asks it where its own A block, BLIS's mc, holds fewer than M
 * rows, packed where its half of L2 does: on family 26's figures M = 176
 * to 208 lie between the two.)  And its b_next (`choose b_next`), on the
 * three BERT kernels: off where packed leaves the next micro-panel's
 * prefetch out (bnearnext: B's rows under a page apart read in place by
 * two A micro-panels or fewer), on wherever packed prefetches it (where
 * packed splits N alone, as the model's threads do); family 26's answer
 * leaves it out somewhere.  And its b_pf (`choose b_pf`): where the model
 * reads B's far rows in place at every pass (b_read and b_copy in place,
 * b_next on) and packed reads them fused, off exactly where packed
 * prefetches none ahead into L1 (the calibration's
 * bprefetch l2); on, B copied or a pass copying it, wherever packed's rows
 * are prefetched into L1; off somewhere on some kind (family 26, family
 * 25's figures), on somewhere in that domain (family 26 with bprefetch
 * l1). */
TEST(sched_model_reads_b_as_packed_plans_it)
{
    const int shapes[3][2] = { { 3072, 768 }, { 768, 768 }, { 768, 3072 } }; /* N, K */
    int left_out = 0, pf_off = 0, pf_on_far = 0;
    kind_figures kinds[5] = { KIND_ZEN5, KIND_XEON, KIND_ZEN4, KIND_ZEN4, KIND_ZEN5 };

    /* the family 25 guest's 2-thread tie the other way: bmany fused */
    kinds[3].name = "AMD EPYC family 25, bmany fused";
    kinds[3].copied &= ~(1u << GB_CALIB_BMANY);
    /* family 26 with B's far rows prefetched into L1 as well (bprefetch
     * l1, as no kind has measured): b_pf on there */
    kinds[4].name = "AMD EPYC family 26, bprefetch l1";
    kinds[4].copied &= ~(1u << GB_CALIB_BPREFETCH);
    gb_params avx512 = { 0 };
    packed_plan probe;

    gb_param_set(&avx512, "isa", 0);
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        const gb_machine m = kind_of(&kinds[k]);
        const gb_ctx one = { 1, &avx512, NULL, NULL, 0, NULL };
        packed_plan_call_on(&m, NULL, 16, 768, 768, &one, 0, &probe);
        if (probe.isa == NULL || probe.mr != 8 || probe.nr != 48)
            SKIP("no AVX-512 micro-kernel (8 x 48) in this build");
        for (int threads = 1; threads <= 2; threads++) {
            const gb_calibration cal = kind_calibration(threads, kinds[k].copied);
            const gb_ctx ctx = { threads, &avx512, NULL, NULL, 0, NULL };
            const gb_sched_machine sm = kind_sched_machine(&kinds[k], &cal);
            for (int sh = 0; sh < 3; sh++)
                for (int M = 8; M <= 512; M += 8) {
                    const int N = shapes[sh][0], K = shapes[sh][1];
                    int answer[GB_CHOICE_COUNT] = { -1, -1, -1, -1, -1 };
                    char msg[300];
                    packed_plan p;
                    packed_plan_call_on(&m, &cal, M, N, K, &ctx, 0, &p);
                    gb_sched_model_choose(&sm, &cal, M, N, K, threads, answer, NULL);
                    const int packed_copies = p.b_mode == B_PANEL_FUSED;
                    const int next_off = answer[GB_CHOICE_B_NEXT] == GB_OFF;
                    left_out += next_off;
                    snprintf(msg, sizeof msg, "%s, %d thread%s, %dx%dx%d (MxNxK): packed's "
                             "bpack %d, bnext %d; the model's b_read %s, b_next %s",
                             kinds[k].name, threads, threads > 1 ? "s" : "", M, N, K, p.b_mode,
                             p.b_next, gb_read_names[answer[GB_CHOICE_B_READ]],
                             gb_sched_choice_answer_name(GB_CHOICE_B_NEXT,
                                                         answer[GB_CHOICE_B_NEXT]));
                    if (N == 3072 &&
                        packed_copies != (answer[GB_CHOICE_B_READ] == GB_READ_COPIED))
                        gb_test_fail(__FILE__, __LINE__, msg);
                    if (p.tm == 1 && next_off == (p.b_next != 0))
                        gb_test_fail(__FILE__, __LINE__, msg);
                    /* b_pf: every pass reads B's far rows in place */
                    const int pf_on = answer[GB_CHOICE_B_PF] == GB_ON;
                    const int rows_l1 = packed_b_prefetch_rows(&p, N);
                    pf_off += !pf_on;
                    pf_on_far += pf_on && N == 3072 &&
                                 answer[GB_CHOICE_B_READ] == GB_READ_IN_PLACE &&
                                 answer[GB_CHOICE_B_COPY] == GB_READ_IN_PLACE &&
                                 answer[GB_CHOICE_B_NEXT] == GB_ON && p.b_mode == B_FUSED;
                    snprintf(msg, sizeof msg, "%s, %d thread%s, %dx%dx%d (MxNxK): packed's "
                             "bpack %d, rows ahead into L1 %d; the model's b_copy %s, b_pf %s",
                             kinds[k].name, threads, threads > 1 ? "s" : "", M, N, K, p.b_mode,
                             rows_l1, gb_read_names[answer[GB_CHOICE_B_COPY]],
                             gb_sched_choice_answer_name(GB_CHOICE_B_PF, answer[GB_CHOICE_B_PF]));
                    if (N == 3072 && answer[GB_CHOICE_B_READ] == GB_READ_IN_PLACE &&
                        answer[GB_CHOICE_B_COPY] == GB_READ_IN_PLACE &&
                        answer[GB_CHOICE_B_NEXT] == GB_ON && p.b_mode == B_FUSED &&
                        pf_on != (rows_l1 > 0))
                        gb_test_fail(__FILE__, __LINE__, msg);
                    if (!pf_on && (N != 3072 || answer[GB_CHOICE_B_COPY] != GB_READ_IN_PLACE ||
                                   answer[GB_CHOICE_B_READ] != GB_READ_IN_PLACE || rows_l1 > 0))
                        gb_test_fail(__FILE__, __LINE__, msg);
                }
        }
    }
    CHECK(left_out > 0);
    CHECK(pf_off > 0);
    CHECK(pf_on_far > 0);
}

/* Where the model copies B (b_read copied, by whichever rule: the far
 * rows' calibration, B fused cutting kc, bmany, bnear), every row
 * micro-panel's pass reads the copied block again, so the model's nc keeps
 * that block (kc x nc) in half of L2, grown at most 1.25x for even jc
 * blocks: on each kind's figures and calibration, the three BERT kernels,
 * M to 512, 1 and 2 threads.  Both kinds of rows must be copied somewhere
 * (bnear on family 26's figures, kc's cut or bmany at N = 3072). */
TEST(sched_model_keeps_a_copied_b_block_in_l2)
{
    const kind_figures kinds[3] = { KIND_ZEN5, KIND_XEON, KIND_ZEN4 };
    const int shapes[3][2] = { { 768, 768 }, { 768, 3072 }, { 3072, 768 } }; /* N, K */
    int near_copied = 0, far_copied = 0;

    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        for (int threads = 1; threads <= 2; threads++) {
            const gb_calibration cal = kind_calibration(threads, kinds[k].copied);
            const gb_sched_machine sm = kind_sched_machine(&kinds[k], &cal);
            for (int s = 0; s < 3; s++) {
                for (int M = 16; M <= 512; M += 16) {
                    const int N = shapes[s][0], K = shapes[s][1];
                    int answer[GB_CHOICE_COUNT] = { -1, -1, -1, -1, -1 };
                    long v[GB_MODEL_COUNT];
                    gb_sched_model_choose(&sm, &cal, M, N, K, threads, answer, NULL);
                    gb_sched_model_values(&sm, M, N, K, threads, v);
                    if (answer[GB_CHOICE_B_READ] != GB_READ_COPIED)
                        continue;
                    *(N * 4 < 4096 ? &near_copied : &far_copied) += 1;
                    if (v[GB_MODEL_NC] * v[GB_MODEL_KC] * 4 > 1.25 * kinds[k].l2 / 2) {
                        char msg[300];
                        snprintf(msg, sizeof msg, "%s, %d thread%s, %dx%dx%d (MxNxK): B copied, "
                                 "its block %ld x %ld over half of L2 (%ld KiB)", kinds[k].name,
                                 threads, threads > 1 ? "s" : "", M, N, K, v[GB_MODEL_KC],
                                 v[GB_MODEL_NC], kinds[k].l2 >> 11);
                        gb_test_fail(__FILE__, __LINE__, msg);
                    }
                }
            }
        }
    }
    CHECK(near_copied > 0 && far_copied > 0);
}

#undef QKV
#undef EXPAND
#undef REDUCE

/* B's rows a page or more apart, read in place (bread in_place), fused
 * where that would not cut kc: from M = 192 up, bmany decides fused (jr
 * outer) or panel fused (ir outer); asked only there, never below 192, nor
 * with rows under a page apart, nor where bread copies (panel fused at
 * every M), nor over a --param bpack. */
TEST(packed_many_rows_panel_fused_as_calibrated)
{
    const gb_variant *v = gb_variant_find("packed");
    gb_params none = { 0 }, many = { 0 }, forced = { 0 }, read_copied = { 0 };
    char *mode = calibrate_mode_save();

    CHECK(v != NULL);
    if (v == NULL) {
        free(mode);
        return;
    }
    gb_param_set(&many, "bmany", GB_READ_COPIED);
    gb_param_set(&forced, "bmany", GB_READ_COPIED);
    gb_param_set(&forced, "bpack", 3); /* fused */
    gb_param_set(&read_copied, "bread", GB_READ_COPIED);
    setenv("GEMMBENCH_CALIBRATE", "in_place", 1);
    for (int threads = 1; threads <= 2; threads++) {
        /* Below 192 rows: fused (panel fused where fused would cut kc, as
         * with the portable kernel's blocks), not asked, whatever --param
         * bmany says. */
        const int cut184 = effective(v, &none, 184, 3072, 768, threads, "bpack") == 4;
        CHECK_EQ_INT(effective(v, &many, 184, 3072, 768, threads, "bpack"), cut184 ? 4 : 3);
        CHECK_EQ_INT(effective(v, &many, 184, 3072, 768, threads, "bmany"), -1);
        CHECK_EQ_INT(effective(v, &none, 184, 3072, 768, threads, "loop"), cut184 ? 0 : 1);
        for (int M = 192; M <= 256; M += 64) {
            /* Where fused would cut kc the plan is panel fused already and
             * asks nothing; else calibrated in place: fused, jr outer. */
            const int cut = effective(v, &none, M, 3072, 768, threads, "bpack") == 4;
            CHECK_EQ_INT(effective(v, &none, M, 3072, 768, threads, "bmany"),
                         cut ? -1 : GB_READ_IN_PLACE);
            CHECK_EQ_INT(effective(v, &none, M, 3072, 768, threads, "loop"), cut ? 0 : 1);
            /* copied: panel fused, ir outer. */
            CHECK_EQ_INT(effective(v, &many, M, 3072, 768, threads, "bpack"), 4);
            CHECK_EQ_INT(effective(v, &many, M, 3072, 768, threads, "loop"), 0);
            CHECK_EQ_INT(effective(v, &many, M, 3072, 768, threads, "bmany"),
                         cut ? -1 : GB_READ_COPIED);
            /* --param bpack wins; bread copied is panel fused unasked. */
            CHECK_EQ_INT(effective(v, &forced, M, 3072, 768, threads, "bpack"), 3);
            CHECK_EQ_INT(effective(v, &forced, M, 3072, 768, threads, "bmany"), -1);
            CHECK_EQ_INT(effective(v, &read_copied, M, 3072, 768, threads, "bpack"), 4);
            CHECK_EQ_INT(effective(v, &read_copied, M, 3072, 768, threads, "bmany"), -1);
            /* Rows 3 KiB apart: never asked. */
            CHECK_EQ_INT(effective(v, &many, M, 768, 768, threads, "bmany"), -1);
        }
    }
    /* Calibrated copied (every answer 1) with B read in place: panel fused
     * from 192 rows where fused would not cut kc. */
    {
        const int cut184 = effective(v, &none, 184, 3072, 768, 1, "bpack") == 4;
        setenv("GEMMBENCH_CALIBRATE", "copied", 1);
        gb_param_set(&none, "bread", GB_READ_IN_PLACE);
        CHECK_EQ_INT(effective(v, &none, 184, 3072, 768, 1, "bpack"), cut184 ? 4 : 3);
        CHECK_EQ_INT(effective(v, &none, 184, 3072, 768, 1, "bmany"), -1);
        CHECK_EQ_INT(effective(v, &none, 256, 3072, 768, 1, "bpack"), 4);
    }
    calibrate_mode_restore(mode);
}

/* The next B micro-panel's prefetch, jr outer: the passes over the current
 * micro-panel share the next one's rows, consecutive, every row once, none
 * more than its even share; a pass past the rows prefetches none. */
TEST(packed_b_next_shares_cover_each_row_once)
{
    for (int rows = 1; rows <= 130; rows++)
        for (int passes = 1; passes <= 70; passes++) {
            int covered = 0, bad = 0;
            for (int pass = 0; pass < passes; pass++) {
                int first = -1;
                const int n = b_next_share(rows, passes, pass, &first);
                if (n < 0 || n > (rows + passes - 1) / passes || (n > 0 && first != covered))
                    bad++;
                covered += n;
            }
            if (bad || covered != rows) {
                char msg[120];
                snprintf(msg, sizeof msg, "rows %d passes %d: %d rows covered, %d bad shares",
                         rows, passes, covered, bad);
                gb_test_fail(__FILE__, __LINE__, msg);
            }
        }
}

/* bnext: reported (1 by default, 0 when asked) where B is read in place,
 * in place (jr outer) and panel fused alike; absent where B is packed.
 * bnearnext off takes it away where B's rows are under a page apart and
 * read in place, jr outer, by 2 A micro-panels or fewer (AVX-512's 8 rows:
 * M <= 16 a thread), nowhere else, and bnext=1 keeps it there. */
TEST(packed_b_next_reported_where_b_is_read_in_place)
{
    const gb_variant *v = gb_variant_find("packed");
    gb_params none = { 0 }, off = { 0 }, panel = { 0 }, near_off = { 0 }, near_kept = { 0 };
    char *mode = calibrate_mode_save();

    CHECK(v != NULL); /* in every build */
    if (v == NULL)
        return;
    /* the first answers (bnearnext on), whatever this machine measured */
    setenv("GEMMBENCH_CALIBRATE", "in_place", 1);
    gb_param_set(&off, "bnext", 0);
    gb_param_set(&panel, "bpack", 0);
    CHECK_EQ_INT(effective(v, &none, 16, 768, 768, 2, "bnext"), 1);
    CHECK_EQ_INT(effective(v, &none, 384, 3072, 768, 1, "bnext"), 1);
    CHECK_EQ_INT(effective(v, &off, 16, 768, 768, 2, "bnext"), 0);
    CHECK_EQ_INT(effective(v, &panel, 16, 768, 768, 2, "bnext"), -1);

    gb_param_set(&near_off, "isa", 0);
    gb_param_set(&near_off, "bnearnext", GB_OFF);
    near_kept = near_off;
    gb_param_set(&near_kept, "bnext", 1);
    if (effective(v, &near_off, 16, 768, 768, 1, "mr") == 8) {
        for (int threads = 1; threads <= 2; threads++) {
            CHECK_EQ_INT(effective(v, &near_off, 8, 768, 768, threads, "bnext"), 0);
            CHECK_EQ_INT(effective(v, &near_off, 16, 768, 768, threads, "bnext"), 0);
            CHECK_EQ_INT(effective(v, &near_off, 16, 768, 3072, threads, "bnext"), 0);
            /* 3 and 8 passes; rows 12 KiB apart (fused); ir outer */
            CHECK_EQ_INT(effective(v, &near_off, 24, 768, 768, threads, "bnext"), 1);
            CHECK_EQ_INT(effective(v, &near_off, 64, 768, 768, threads, "bnext"), 1);
            CHECK_EQ_INT(effective(v, &near_off, 16, 3072, 768, threads, "bnext"), 1);
            CHECK_EQ_INT(effective(v, &near_off, 384, 3072, 768, threads, "bnext"), 1);
            CHECK_EQ_INT(effective(v, &near_kept, 16, 768, 768, threads, "bnext"), 1);
        }
    }
    calibrate_mode_restore(mode);
}

/* The rows of B a kernel prefetches ahead where it reads B in place: what
 * the L1d set holds of rows that share it (half its ways less two, times
 * the rows after which the set repeats), at most 16; 16 when the ways are
 * unknown.  Reported for the modes that read B in place only. */
TEST(packed_b_prefetch_follows_l1_sets)
{
    const gb_variant *v = gb_variant_find("packed");
    /* The set rule's distance (bprefetch l1), whatever this machine's
     * calibration says; l2 below. */
    gb_params none = { 0 }, user = { 0 }, l2 = { 0 };
    gb_machine m;
    static const int widths[] = { 768, 1000, 1024, 1536, 2048, 3072, 4100 };
    long l1;
    int ways;

    CHECK(v != NULL); /* in every build */
    if (v == NULL)
        return;
    gb_machine_detect(&m);
    l1 = gb_machine_cache_bytes(&m, 1);
    ways = gb_machine_cache_ways(&m, 1);
    gb_param_set(&none, "bprefetch", 0);
    gb_param_set(&l2, "bprefetch", 1);
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        const int n = widths[i];
        long want = 16;
        if (l1 > 0 && ways > 0 && l1 % ways == 0) {
            const long way = l1 / ways, spare = ways / 2 - 2 > 1 ? ways / 2 - 2 : 1;
            /* The first row that falls into row 0's set again. */
            long period = 1;
            while ((period * n * 4L) % way != 0)
                period++;
            want = period * spare < 16 ? period * spare : 16;
        }
        CHECK_EQ_INT(effective(v, &none, 16, n, 768, 1, "bpf"), want);
        CHECK_EQ_INT(effective(v, &none, 384, n, 768, 2, "bpf"), want);
        /* l2: none ahead into L1 where rows are a page or more apart. */
        CHECK_EQ_INT(effective(v, &l2, 16, n, 768, 1, "bpf"), n * 4L >= 4096 ? 0 : want);
    }
    /* A 4 KiB way (48 KiB 12-way, 32 KiB 8-way): dense rows of 3072 floats
     * all fall into one set, rows of 768 into one in four: four times as
     * far ahead, up to 16. */
    if (l1 > 0 && ways > 0 && l1 / ways == 4096) {
        const long wide = effective(v, &none, 16, 3072, 768, 1, "bpf");
        CHECK(wide < 16);
        CHECK_EQ_INT(effective(v, &none, 16, 768, 768, 1, "bpf"), 4 * wide < 16 ? 4 * wide : 16);
    }
    /* Not read in place: nothing to report. */
    gb_param_set(&user, "bpack", 0);
    CHECK_EQ_INT(effective(v, &user, 16, 3072, 768, 1, "bpf"), -1);
    /* The override, however the sets fall. */
    memset(&user, 0, sizeof user);
    gb_param_set(&user, "bpf", 0);
    CHECK_EQ_INT(effective(v, &user, 16, 3072, 768, 1, "bpf"), 0);
    gb_param_set(&user, "bpf", 40);
    CHECK_EQ_INT(effective(v, &user, 16, 768, 768, 1, "bpf"), 40);
}

/* One measurement calls run() many times on prepare()'s state, and the
 * split between threads moves with their speed from call to call: every
 * call must still be exact, and leave no column to nobody.  Also with A
 * fused, whose per-call flags must start afresh on every call. */
TEST(packed_exact_on_every_call_of_a_measurement)
{
    const gb_variant *v = gb_variant_find("packed");
    const int M = 57, N = 1000, K = 300;
    float *A = malloc(sizeof(float) * M * K), *B = malloc(sizeof(float) * K * N);
    float *C = malloc(sizeof(float) * M * N), *want = malloc(sizeof(float) * M * N);
    gb_params sets[2] = { { 0 }, { 0 } };
    long wrong = 0;

    if (v == NULL || !A || !B || !C || !want) {
        CHECK(0);
        goto out;
    }
    for (int i = 0; i < M * K; i++)
        A[i] = (float)(i % 7 - 3);
    for (int i = 0; i < K * N; i++)
        B[i] = (float)(i % 5 - 2);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double sum = 0.0;
            for (int k = 0; k < K; k++)
                sum += (double)A[i * K + k] * B[k * N + j];
            want[i * N + j] = (float)sum;
        }
    gb_param_set(&sets[1], "apack", 3);
    for (int run = 0; run < 4; run++) {
        const int prepack = run % 2;
        gb_ctx ctx = { 2, &sets[run / 2], NULL, NULL, 0, NULL };
        CHECK(v->prepare(M, N, K, B, N, &ctx, prepack, &ctx.state) == 0);
        for (int call = 0; call < 30 && ctx.state; call++) {
            for (int i = 0; i < M * N; i++)
                C[i] = NAN;
            CHECK(v->run(M, N, K, A, K, B, N, C, N, &ctx) == 0);
            for (int i = 0; i < M * N; i++)
                wrong += C[i] != want[i];
        }
        v->release(ctx.state);
    }
    CHECK_EQ_INT(wrong, 0);
out:
    free(A), free(B), free(C), free(want);
}
