/*
 * test_roof.c - the roofline's arithmetic on hand-computed shapes, the
 * bandwidth probe (positive figures; a clean failure where it cannot
 * measure), and the cold cache: every variant exact on awkward shapes with 1
 * and 2 threads while the timed calls rotate among copies of the operands.
 */
#include "test.h"
#include "variants.h"

#include <signal.h>
#include <stdlib.h>

#include "bandwidth.h"
#include "gemmbench.h"
#include "harness.h"
#include "machine.h"
#include "roof.h"

#define NEAR(a, b) (fabs((a) - (b)) <= 1e-9 * fabs(b))

TEST(roof_intensity_by_hand)
{
    /* mlp_expand M=16: 2*16*768*3072 = 75,497,472 flop over
     * 4*(16*768 + 768*3072 + 16*3072) = 9,682,944 bytes. */
    CHECK(NEAR(gb_compulsory_bytes(16, 768, 3072), 9682944.0));
    CHECK(NEAR(gb_intensity(16, 768, 3072), 75497472.0 / 9682944.0));
    /* 1x1x1: 2 flop over 12 bytes. */
    CHECK(NEAR(gb_intensity(1, 1, 1), 2.0 / 12.0));
    /* Square n: 2n^3 / 12n^2 = n / 6. */
    CHECK(NEAR(gb_intensity(1024, 1024, 1024), 1024.0 / 6.0));
}

TEST(roof_level_by_capacity)
{
    const long l2 = 1L << 20, l3 = 32L << 20;

    CHECK_EQ_INT(gb_roof_level(512e3, l2, l3, 1, 0), GB_BW_L2);
    CHECK_EQ_INT(gb_roof_level(1.5e6, l2, l3, 1, 0), GB_BW_L3);
    /* Two threads hold two private L2s. */
    CHECK_EQ_INT(gb_roof_level(1.5e6, l2, l3, 2, 0), GB_BW_L2);
    CHECK_EQ_INT(gb_roof_level(40e6, l2, l3, 2, 0), GB_BW_MEM);
    /* Cold: memory, whatever the size. */
    CHECK_EQ_INT(gb_roof_level(1e3, l2, l3, 1, 1), GB_BW_MEM);
    /* No L3: past L2 is memory. */
    CHECK_EQ_INT(gb_roof_level(2e6, l2, 0, 1, 0), GB_BW_MEM);
}

/* A machine with L2 1 MiB, L3 32 MiB, peaks 100 and 200 GFLOP/s. */
static void fake_machine(gb_machine *m)
{
    memset(m, 0, sizeof *m);
    m->ncaches = 2;
    m->caches[0] = (gb_cache){ .level = 2, .type = "Unified", .size_bytes = 1L << 20 };
    m->caches[1] = (gb_cache){ .level = 3, .type = "Unified", .size_bytes = 32L << 20 };
    m->peak_gflops_1t = 100.0;
    m->peak_gflops = 200.0;
    m->bw.measured = 1;
    m->bw.level[GB_BW_L2].read_gbs[0] = 100.0;
    m->bw.level[GB_BW_L3].read_gbs[0] = 40.0;
    m->bw.level[GB_BW_L3].triad_gbs[0] = 60.0;   /* the higher one is the roof */
    m->bw.level[GB_BW_MEM].read_gbs[0] = 10.0;
    m->bw.level[GB_BW_MEM].triad_gbs[0] = 5.0;
    m->bw.level[GB_BW_MEM].read_gbs[1] = 20.0;
}

TEST(roof_attainable_by_hand)
{
    const double i = 75497472.0 / 9682944.0; /* 7.797 flop/byte */
    gb_machine m;
    gb_roof r;

    fake_machine(&m);
    /* Warm, 1 thread: 9.7 MB lives in L3 (60 GB/s: 468 > 100): compute. */
    CHECK_EQ_INT(gb_roof_for(&m, 16, 768, 3072, 1, 0, &r), 0);
    CHECK_EQ_INT(r.level, GB_BW_L3);
    CHECK_EQ_INT(r.bound, GB_ROOF_COMPUTE);
    CHECK(NEAR(r.bandwidth_gbs, 60.0));
    CHECK(NEAR(r.attainable_gflops, 100.0));
    /* Cold, 1 thread: memory at 10 GB/s, 78 GFLOP/s: memory-bound. */
    CHECK_EQ_INT(gb_roof_for(&m, 16, 768, 3072, 1, 1, &r), 0);
    CHECK_EQ_INT(r.level, GB_BW_MEM);
    CHECK_EQ_INT(r.bound, GB_BW_MEM);
    CHECK(NEAR(r.attainable_gflops, i * 10.0));
    /* Cold, 2 threads: the all-thread figure and peak. */
    CHECK_EQ_INT(gb_roof_for(&m, 16, 768, 3072, 2, 1, &r), 0);
    CHECK(NEAR(r.attainable_gflops, i * 20.0));
    CHECK(NEAR(r.peak_gflops, 200.0));
    /* Warm, 2 threads: L3's all-thread figure is unmeasured, so memory. */
    CHECK_EQ_INT(gb_roof_for(&m, 16, 768, 3072, 2, 0, &r), 0);
    CHECK_EQ_INT(r.level, GB_BW_MEM);
    /* No bandwidths: no roof, and it says so. */
    memset(&m.bw, 0, sizeof m.bw);
    CHECK_EQ_INT(gb_roof_for(&m, 16, 768, 3072, 1, 0, &r), -1);
    CHECK(isnan(r.attainable_gflops));
    CHECK(NEAR(r.intensity, i));
}

TEST(roof_bandwidth_floors)
{
    gb_bandwidth bw;

    memset(&bw, 0, sizeof bw);
    bw.level[GB_BW_L2].read_gbs[0] = 100.0;
    bw.level[GB_BW_L2].read_gbs[1] = 1.0;      /* a descheduled thread */
    bw.level[GB_BW_L3].read_gbs[0] = 5.0;      /* below memory: a busy moment */
    bw.level[GB_BW_L3].triad_gbs[1] = 80.0;
    bw.level[GB_BW_MEM].read_gbs[0] = 10.0;
    bw.level[GB_BW_MEM].read_gbs[1] = 20.0;
    /* All threads: at least one thread's figure. */
    CHECK(NEAR(gb_roof_bandwidth(&bw, GB_BW_L2, 1), 100.0));
    CHECK(NEAR(gb_roof_bandwidth(&bw, GB_BW_L2, 0), 100.0));
    /* A level: at least the levels outside it; triad when it is higher. */
    CHECK(NEAR(gb_roof_bandwidth(&bw, GB_BW_L3, 0), 10.0));
    CHECK(NEAR(gb_roof_bandwidth(&bw, GB_BW_L3, 1), 80.0));
    CHECK(NEAR(gb_roof_bandwidth(&bw, GB_BW_MEM, 1), 20.0));
    /* Unmeasured stays 0. */
    bw.level[GB_BW_L3].read_gbs[0] = bw.level[GB_BW_L3].triad_gbs[1] = 0.0;
    CHECK(gb_roof_bandwidth(&bw, GB_BW_L3, 0) == 0.0);
}

TEST(bandwidth_probe_positive)
{
    gb_bw_plan p;
    gb_bandwidth bw;
    char err[256];

    /* Small caches, so that the test is fast: L2 64 KiB, L3 1 MiB. */
    gb_bw_plan_init(&p, 64L << 10, 1L << 20, 2);
    p.trials = 1;
    p.quick = 1;
    CHECK_EQ_INT(gb_bw_measure(&p, &bw, err, sizeof err), 0);
    CHECK(bw.measured);
    for (int l = 0; l < GB_BW_LEVELS; l++)
        for (int c = 0; c < 2; c++) {
            CHECK(bw.level[l].bytes[c] > 0);
            CHECK(bw.level[l].read_gbs[c] > 0.0 && isfinite(bw.level[l].read_gbs[c]));
            CHECK(bw.level[l].triad_gbs[c] > 0.0 && isfinite(bw.level[l].triad_gbs[c]));
        }
    /* Memory is larger than L3, L3 than L2. */
    CHECK(bw.level[GB_BW_MEM].bytes[0] > bw.level[GB_BW_L3].bytes[0]);
    CHECK(bw.level[GB_BW_L3].bytes[0] > bw.level[GB_BW_L2].bytes[0]);
}

TEST(bandwidth_probe_fails_cleanly)
{
    gb_bw_plan p;
    gb_bandwidth bw;
    char err[256] = "";

    /* No L2 size: nothing to size the working sets by. */
    gb_bw_plan_init(&p, 0, 0, 1);
    CHECK_EQ_INT(gb_bw_measure(&p, &bw, err, sizeof err), -1);
    CHECK(strstr(err, "L2") != NULL);
    CHECK(!bw.measured);
    /* An L3 too small to tell from L2: not measured, the rest is. */
    gb_bw_plan_init(&p, 64L << 10, 128L << 10, 1);
    p.trials = 1;
    p.quick = 1;
    CHECK_EQ_INT(gb_bw_measure(&p, &bw, err, sizeof err), 0);
    CHECK(bw.level[GB_BW_L3].bytes[0] == 0 && bw.level[GB_BW_L3].read_gbs[0] == 0.0);
    CHECK(bw.level[GB_BW_L2].read_gbs[0] > 0.0);
    /* No memory to spare: memory's working set is capped, and said so. */
    gb_bw_plan_init(&p, 64L << 10, 1L << 20, 1);
    p.trials = 1;
    p.mem_available = 1024;
    CHECK_EQ_INT(gb_bw_measure(&p, &bw, err, sizeof err), 0);
    CHECK(bw.capped);
    CHECK(bw.level[GB_BW_MEM].read_gbs[0] == 0.0);
}

/* One variant in cold mode on one shape: the measurement's own check, then
 * every copy's C (each was written by a timed or warm-up call). */
static int cold_exact(const gb_variant *v, int M, int K, int N, int threads)
{
    static volatile sig_atomic_t no_stop;
    const gb_measure_cfg cfg = { .warmup = 1, .reps = 4, .min_reps = 1,
                           .max_time = 10.0, .check = 1, .nthreads = threads };
    gb_params none = { 0 };
    gb_workspace w;
    gb_result r;
    char err[256];
    int ok = 1;
    float *C0;

    if (gb_workspace_init(&w, M, K, N, err, sizeof err) != 0)
        return 0;
    /* An "LLC" the size of one set: three sets, all used by 1 + 4 calls. */
    if (gb_workspace_go_cold(&w, (long)gb_compulsory_bytes(M, K, N), err, sizeof err) != 0 ||
        w.copies != 3 || gb_measure(v, &none, threads, 0, &w, &cfg, &no_stop, &r, err,
                                    sizeof err) != 0) {
        gb_workspace_free(&w);
        return 0;
    }
    ok = r.check == GB_CHECK_PASS && r.cold && r.copies == 3;
    C0 = w.C;
    for (int i = 1; i < w.copies && ok; i++) {
        const float *A, *B;
        gb_result copy;
        gb_workspace_set(&w, i, &A, &B, &w.C);
        memset(&copy, 0, sizeof copy);
        ok = gb_verify(&w, threads, &copy) == 0 && copy.check == GB_CHECK_PASS &&
             A != w.A && B != w.B;
        w.C = C0;
    }
    gb_result_free(&r);
    gb_workspace_free(&w);
    return ok;
}

TEST(cold_cache_every_variant_exact)
{
    static const int shapes[][3] = { { 7, 33, 100 }, { 33, 100, 7 }, { 100, 7, 33 } };

    for (size_t v = 0; v < gb_variant_count; v++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0] && gb_variants[v]->run; s++)
            for (int threads = 1; threads <= 2; threads++) {
                int ok = cold_exact(gb_variants[v], shapes[s][0], shapes[s][1], shapes[s][2],
                                    threads);
                if (!ok)
                    fprintf(stderr, "cold: %s %dx%dx%d threads=%d\n", gb_variants[v]->name,
                            shapes[s][0], shapes[s][1], shapes[s][2], threads);
                CHECK(ok);
            }
}
