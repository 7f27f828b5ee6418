/*
 * test_packed_threads.c - how many threads packed's calls take and how
 * they split C: columns where B is the big operand, rows where N is tiny or
 * a fringe micro-panel would unbalance the columns; never more threads than
 * tiles; one thread where a call is too small to pay for more (the
 * calibration's small call, packed_threads_for_work).
 */
#define _POSIX_C_SOURCE 200809L /* setenv, strdup */
#include "test.h"
#include "variants.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemmbench.h"
#include "machine.h"
#include "packed_kinds.h"
#include "packed_plan.h"
#include "variant_check.h"

/* Threads: columns of C when B is the big operand, rows when N is tiny. */
TEST(packed_thread_grid_follows_the_operands)
{
    const gb_variant *v = gb_variant_find("packed");
    gb_params none = { 0 };

    CHECK(v != NULL); /* in every build */
    if (v == NULL)
        return;
    CHECK_EQ_INT(effective(v, &none, 16, 768, 768, 2, "threads_n"), 2);
    CHECK_EQ_INT(effective(v, &none, 16, 768, 768, 2, "threads_m"), 1);
    /* N of one narrow micro-panel: rows (K large enough that the call
     * keeps both threads on every kind's calibration: at 384 x 1 x 64 the
     * AMD EPYC family 26, a threaded call's own cost 4.2 us, takes one) */
    CHECK_EQ_INT(effective(v, &none, 1536, 256, 16, 2, "threads_m"), 2);
    CHECK_EQ_INT(effective(v, &none, 1536, 256, 16, 2, "threads_n"), 1);
    CHECK_EQ_INT(effective(v, &none, 16, 768, 768, 1, "threads_m") *
                     effective(v, &none, 16, 768, 768, 1, "threads_n"),
                 1);
    /* Where every calibrated answer is reported too (B's and A's rows a
     * page apart), the grid and bcopy still are: a full set of effective
     * parameters dropped the last ones. */
    for (int rows = 16; rows <= 64; rows += 48) {
        CHECK_EQ_INT(effective(v, &none, rows, 3072, 768, 2, "threads_m") *
                         effective(v, &none, rows, 3072, 768, 2, "threads_n"),
                     2);
        CHECK_EQ_INT(effective(v, &none, rows, 768, 3072, 2, "threads_m") *
                         effective(v, &none, rows, 768, 3072, 2, "threads_n"),
                     2);
    }
    CHECK(effective(v, &none, 16, 3072, 768, 2, "bcopy") >= 0);
}

/* Never more threads than C has MR x NR tiles (a thread without one only
 * adds the region's fork and join); the explanation says how many run. */
TEST(packed_threads_never_more_than_tiles)
{
    const gb_variant *v = gb_variant_find("packed");
    gb_params none = { 0 };
    char *mode = calibrate_mode_save();

    CHECK(v != NULL);
    if (v == NULL) {
        calibrate_mode_restore(mode);
        return;
    }
    /* The tiles alone: no calibrated cost of the threads (a cache of this
     * machine's would add packed_threads_for_work's rule). */
    setenv("GEMMBENCH_CALIBRATE", "in_place", 1);
    const int mr = (int)effective(v, &none, 64, 64, 64, 1, "mr");
    const int nr = (int)effective(v, &none, 64, 64, 64, 1, "nr");
    CHECK(mr > 0 && nr > 0);
    if (mr <= 0 || nr <= 0)
        return;
    static const struct { int m, n, threads, used; } cases[] = {
        { 1, 1, 2, 1 }, { 1, 1, 8, 1 }, { 1, 1, 1, 1 }, { 1, 2, 2, 2 }, { 2, 1, 2, 2 },
        { 1, 3, 4, 3 }, { 3, 1, 4, 3 }, { 2, 2, 4, 4 }, { 2, 3, 4, 4 }, { 1, 2, 8, 2 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* the last tile of each dimension a fringe: M and N multiples of nothing */
        const int M = (cases[i].m - 1) * mr + 1 + (mr > 2 ? mr / 2 : 0);
        const int N = (cases[i].n - 1) * nr + 1 + (nr > 2 ? nr / 2 : 0);
        const long tm = effective(v, &none, M, N, 768, cases[i].threads, "threads_m");
        const long tn = effective(v, &none, M, N, 768, cases[i].threads, "threads_n");
        if (tm * tn != cases[i].used)
            fprintf(stderr, "  M=%d N=%d at %d threads: grid %ldx%ld, want %d threads\n", M, N,
                    cases[i].threads, tm, tn, cases[i].used);
        CHECK_EQ_INT(tm * tn, cases[i].used);
    }

    /* What --explain prints: the threads asked, and the ones used. */
    char *one = explain_text(v->explain, 1, 1, 768, 2);
    char *wide = explain_text(v->explain, 384, 768, 768, 2);
    CHECK(one != NULL && strstr(one, "2 threads (1 used: 1 tile of ") != NULL);
    CHECK(wide != NULL && strstr(wide, "384x768x768 (MxKxN), 2 threads:") != NULL);
    CHECK(wide != NULL && strstr(wide, "threads       2, all the tiles allow: what a threaded "
                                       "call costs not calibrated (forced)") != NULL);
    free(one);
    free(wide);
    calibrate_mode_restore(mode);
}

/* The threads a call pays for (packed_threads_for_work), on the family 25
 * guest's figures: its calibration's small call (64x64x64: 5.44 us at one
 * thread, 4.23 at two, 2026-12-05) puts the calls whose saving is under a
 * threaded call's own cost (about 1.1 us) on one thread, and leaves both
 * to the rest; with a threaded call costing 24 us (more than the worst
 * spell measured on family 26, whose worker began a region 23-84 us late
 * only where the region cost 13-24 us over the work) the bar's twelve
 * shapes still take both; unmeasured, the tiles alone decide.  Family
 * 26's and the Intel kind's small calls are not measured: their rows are
 * the 24 us case.  And the grid counts a fringe micro-panel at the narrow
 * kernel's width: 256 x 256 x 256 (six micro-panels, the last 16 wide)
 * splits its rows, where counting the fringe at 48 tied and split the
 * columns 144 | 112 (1.11x oneDNN's time at 2 threads on that guest). */
TEST(packed_threads_pay_for_their_call)
{
    static const struct { int M, N, K, threads, tm; } small[] = {
        { 16, 16, 16, 1, 1 },   { 32, 32, 32, 1, 1 },   { 16, 64, 64, 1, 1 },
        { 64, 64, 64, 2, 2 },   { 96, 96, 96, 2, 1 },   { 16, 256, 256, 2, 1 },
        { 256, 256, 256, 2, 2 }, { 64, 64, 768, 2, 2 }, { 16, 768, 768, 2, 1 },
    };
    static const int bar_m[] = { 16, 64, 256, 384 };
    static const int bar_nk[3][2] = { { 768, 768 }, { 3072, 768 }, { 768, 3072 } };
    const gb_machine zen4_m = kind_of(&KIND_ZEN4);
    gb_params avx512 = { 0 };
    gb_calibration cal = kind_calibration(2, KIND_ZEN4.copied);
    const gb_calibration unmeasured = cal;
    const gb_ctx two = { 2, &avx512, NULL, NULL, 0, NULL };
    double saving, unit, own;
    packed_plan p;

    /* the rule alone: a unit of 0.1 us against a call's own 1 us */
    CHECK_EQ_INT(packed_threads_for_work(2, 100, 60, 0.1, 1.0, &saving), 2);
    CHECK(fabs(saving - 4.0) < 1e-12);
    CHECK_EQ_INT(packed_threads_for_work(2, 100, 90, 0.1, 1.0, &saving), 1);
    CHECK_EQ_INT(packed_threads_for_work(4, 100, 90, 0.1, 1.0, &saving), 1);
    CHECK_EQ_INT(packed_threads_for_work(2, 100, 90, 0.0, 1.0, &saving), 2);
    CHECK(saving == 0.0);
    CHECK_EQ_INT(packed_threads_for_work(1, 100, 90, 0.1, 1.0, &saving), 1);

    gb_param_set(&avx512, "isa", 0);
    packed_plan_call_on(&zen4_m, &cal, 16, 768, 768, &two, 0, &p);
    if (p.isa == NULL || p.mr != 8 || p.nr != 48)
        SKIP("no AVX-512 micro-kernel (8 x 48) in this build");
    CHECK_EQ_INT(packed_threads_cost(&cal, p.isa, &unit, &own), 0);
    CHECK(unit == 0.0 && own == 0.0);
    cal.small_us = 5.44;
    cal.small_t_us = 4.23;
    /* 64x64x64 at one thread: 64 x 64 x 64 FMAs and 16 x (64 + 64) x 64
     * elements' worth, 393,216 units; at two, a 2 x 1 grid's 32 rows,
     * 229,376 */
    CHECK_EQ_INT(packed_threads_cost(&cal, p.isa, &unit, &own), 1);
    CHECK(fabs(unit - 5.44 / 393216.0) < 1e-15);
    CHECK(fabs(own - (4.23 - 5.44 * 229376.0 / 393216.0)) < 1e-12);
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) {
        packed_plan_call_on(&zen4_m, &cal, small[i].M, small[i].N, small[i].K, &two, 0, &p);
        if (p.nthreads != small[i].threads || p.tm != small[i].tm ||
            p.tm * p.tn != p.nthreads) {
            char msg[200];
            snprintf(msg, sizeof msg, "%dx%dx%d (MxNxK): %d threads on %dx%d, want %d (%d rows)",
                     small[i].M, small[i].N, small[i].K, p.nthreads, p.tm, p.tn,
                     small[i].threads, small[i].tm);
            gb_test_fail(__FILE__, __LINE__, msg);
        }
        CHECK(p.threads_tiles == 2 && p.threads_own_us > 0.5 && p.threads_own_us < 2.0);
        /* unmeasured: as many as the tiles allow, on the same grid rule */
        packed_plan_call_on(&zen4_m, &unmeasured, small[i].M, small[i].N, small[i].K, &two, 0,
                            &p);
        CHECK_EQ_INT(p.nthreads, 2);
        CHECK(p.threads_saving_us == 0.0 && p.threads_own_us == 0.0);
    }
    cal.small_t_us = 24.0 + cal.small_us;
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 4; i++) {
            packed_plan_call_on(&zen4_m, &cal, bar_m[i], bar_nk[k][0], bar_nk[k][1], &two, 0, &p);
            CHECK_EQ_INT(p.nthreads, 2);
            CHECK(p.threads_own_us >= 24.0 && p.threads_saving_us > p.threads_own_us);
        }
}
