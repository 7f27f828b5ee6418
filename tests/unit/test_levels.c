/*
 * test_levels.c - cache levels from the bandwidth sweep's curve
 * (src/measure/levels.c) on synthetic curves: the AMD EPYC guest's (a 508 MiB
 * L3 reported, a 32 MiB one read, memory flat from there to 1 GiB), an L3
 * that the curve does not show, noise of a shared host, a fall spread over
 * an octave, a sweep cut short, the Intel Xeon guest's (all agree).
 */
#include "test.h"

#include "bandwidth.h"

#include <math.h>

#define KIB 1024.0
#define MIB (1024.0 * 1024.0)

typedef struct plateau {
    double capacity, gbs;    /* capacity 0: the end (memory) */
} plateau;

/* lv's points: 16 KiB to `to` at 4 per octave, each the rate of the first
 * plateau whose capacity holds the set (a fall over `spread` octaves past
 * it), times 1 +- noise (a fixed pseudo-random sequence of seed). */
static void curve(gb_cache_levels *lv, const plateau *p, double to, double spread, double noise,
                  unsigned seed)
{
    memset(lv, 0, sizeof *lv);
    lv->swept = 1;
    for (double b = 16 * KIB; b <= to * 1.0001 && lv->npoints < GB_SWEEP_MAX_POINTS;
         b *= pow(2.0, 0.25)) {
        double g = 0.0;
        for (int i = 0;; i++) {
            double over = p[i].capacity > 0 ? log2(b / p[i].capacity) : -1.0;
            if (p[i].capacity <= 0 || over <= 0.0) {
                g = p[i].gbs;
                break;
            }
            if (spread > 0 && over < spread) {   /* falling to the next plateau */
                g = exp(log(p[i].gbs) + over / spread * (log(p[i + 1].gbs) - log(p[i].gbs)));
                break;
            }
        }
        seed = seed * 1103515245u + 12345u;
        g *= 1.0 + noise * (((seed >> 8) & 0xffff) / 32768.0 - 1.0);
        lv->bytes[lv->npoints] = b;
        lv->gbs[lv->npoints++] = g;
    }
}

static const plateau amd[] = { { 48 * KIB, 180 }, { 1 * MIB, 90 }, { 32 * MIB, 45 }, { 0, 18 } };

static void report_amd(gb_cache_levels *lv)
{
    lv->reported[1] = 48 * 1024;
    lv->reported[2] = 1 << 20;
    lv->reported[3] = 532676608;   /* 508 MiB: the guest's cpuid and hwloc */
}

TEST(levels_amd_flat_vm_tail)
{
    gb_cache_levels lv;

    curve(&lv, amd, 1024 * MIB, 0.0, 0.0, 1);
    report_amd(&lv);
    gb_bw_find_levels(&lv);
    CHECK(lv.measured[3] >= 16 * MIB && lv.measured[3] <= 48 * MIB);
    CHECK(lv.used[3] == lv.measured[3] && lv.used[3] <= 128 * MIB);
    CHECK(lv.level_gbs[3] >= 1.3 * lv.memory_gbs);
    CHECK_NEAR(lv.memory_gbs, 18, 1);
    CHECK(strstr(lv.why[3], "reported 508 MiB, but the read rate falls at") != NULL);
    CHECK_EQ_INT(lv.used[2], 1 << 20);           /* L2 agrees: the reported size */
    CHECK(strstr(lv.why[2], "agree") != NULL);
    CHECK(lv.measured[1] >= 32 * KIB && lv.measured[1] <= 64 * KIB);
}

TEST(levels_missing_l3)
{
    static const plateau p[] = { { 48 * KIB, 180 }, { 2 * MIB, 90 }, { 0, 20 } };
    gb_cache_levels lv;

    curve(&lv, p, 1024 * MIB, 0.0, 0.0, 1);
    lv.reported[1] = 48 * 1024;
    lv.reported[2] = 2 << 20;
    lv.reported[3] = 32 << 20;
    gb_bw_find_levels(&lv);
    CHECK_EQ_INT(lv.measured[3], 0);
    CHECK_EQ_INT(lv.used[3], 0);
    CHECK(strstr(lv.why[3], "does not fall anywhere near it") != NULL);
    CHECK(lv.measured[2] >= 1 * MIB && lv.measured[2] <= 3 * MIB);
    CHECK_NEAR(lv.memory_gbs, 20, 1);
}

/* A shared host: every point off by up to 12 %, ten sequences. */
TEST(levels_noise)
{
    for (unsigned seed = 1; seed <= 10; seed++) {
        gb_cache_levels lv;
        gb_bw_knee k[8];
        curve(&lv, amd, 1024 * MIB, 0.0, 0.12, seed);
        CHECK_EQ_INT(gb_bw_knees(lv.bytes, lv.gbs, lv.npoints, k, 8), 3);
        report_amd(&lv);
        gb_bw_find_levels(&lv);
        CHECK(lv.used[3] >= 16 * MIB && lv.used[3] <= 64 * MIB);
        CHECK(lv.used[2] == 1 << 20);
    }
}

/* A fall spread over an octave (a cache whose replacement is not LRU). */
TEST(levels_gradual_fall)
{
    gb_cache_levels lv;

    curve(&lv, amd, 1024 * MIB, 1.0, 0.05, 3);
    report_amd(&lv);
    gb_bw_find_levels(&lv);
    CHECK(lv.used[3] >= 24 * MIB && lv.used[3] <= 90 * MIB);
}

TEST(levels_xeon_agree_and_cut_short)
{
    static const plateau p[] = { { 48 * KIB, 200 }, { 2 * MIB, 100 }, { 260 * MIB, 40 },
                                 { 0, 15 } };
    gb_cache_levels lv;

    curve(&lv, p, 1024 * MIB, 0.0, 0.0, 1);
    lv.reported[1] = 48 * 1024;
    lv.reported[2] = 2 << 20;
    lv.reported[3] = 260L << 20;
    gb_bw_find_levels(&lv);
    for (int l = 1; l <= 3; l++) {
        CHECK(lv.used[l] == lv.reported[l]);
        CHECK(strstr(lv.why[l], "agree") != NULL);
    }
    /* Stopped at 64 MiB by its budget: no knee for L3 yet, the reported
     * size stays. */
    curve(&lv, p, 64 * MIB, 0.0, 0.0, 1);
    lv.reported[1] = 48 * 1024;
    lv.reported[2] = 2 << 20;
    lv.reported[3] = 260L << 20;
    gb_bw_find_levels(&lv);
    CHECK(lv.used[3] == 260L << 20);
    CHECK(strstr(lv.why[3], "did not reach") != NULL);
}

/* No L3 reported, one on the curve: it is used. */
TEST(levels_unreported_level)
{
    gb_cache_levels lv;

    curve(&lv, amd, 512 * MIB, 0.0, 0.0, 1);
    lv.reported[1] = 48 * 1024;
    lv.reported[2] = 1 << 20;
    gb_bw_find_levels(&lv);
    CHECK(lv.used[3] >= 16 * MIB && lv.used[3] <= 48 * MIB);
    CHECK(strstr(lv.why[3], "none reported") != NULL);
}

/* Flat, or one point off: no knee. */
TEST(levels_no_false_knee)
{
    double b[40], g[40];
    gb_bw_knee k[4];

    for (int i = 0; i < 40; i++) {
        b[i] = 16 * KIB * pow(2.0, i / 4.0);
        g[i] = i == 20 ? 20.0 : 60.0;
    }
    CHECK_EQ_INT(gb_bw_knees(b, g, 40, k, 4), 0);
}

/* The Intel Xeon guest (family 6 model 207, 2 vCPUs, a busy shared host),
 * one sweep as measured: 25 GB/s from 3 to 40 MiB, then a fall over two
 * octaves, paused by noise, to memory's 6-7 GB/s: one L3 knee, not two, and
 * far below the 260 MiB the guest reports. */
TEST(levels_xeon_busy_host_measured)
{
    static const double points[][2] = {
        { 16384, 153.63 }, { 19456, 154.13 }, { 23040, 166.77 }, { 27136, 165.49 },
        { 32768, 189.50 }, { 38912, 194.34 }, { 46080, 147.66 }, { 54784, 107.52 },
        { 65536, 105.86 }, { 77824, 109.88 }, { 92672, 110.25 }, { 110080, 110.15 },
        { 131072, 110.14 }, { 155648, 111.13 }, { 185344, 115.77 }, { 220160, 112.67 },
        { 262144, 112.07 }, { 311296, 110.82 }, { 370688, 114.65 }, { 440832, 116.56 },
        { 524288, 114.53 }, { 623104, 114.79 }, { 741376, 115.63 }, { 881664, 115.01 },
        { 1048576, 105.89 }, { 1246720, 101.18 }, { 1482752, 88.93 }, { 1763328, 71.24 },
        { 2097152, 46.41 }, { 2493440, 32.82 }, { 2965504, 26.83 }, { 3526656, 26.44 },
        { 4194304, 25.18 }, { 4987392, 25.86 }, { 5931520, 25.99 }, { 7053824, 25.37 },
        { 8388608, 25.84 }, { 9975296, 25.91 }, { 11863040, 27.42 }, { 14107648, 26.55 },
        { 16777216, 25.87 }, { 19951104, 24.40 }, { 23726080, 26.65 }, { 28215296, 23.72 },
        { 33554432, 25.82 }, { 39902720, 25.83 }, { 47452672, 21.77 }, { 56431104, 18.27 },
        { 67108864, 11.02 }, { 79805952, 19.54 }, { 94905856, 18.12 }, { 112862720, 15.35 },
        { 134217728, 10.59 }, { 159612416, 9.11 }, { 189812224, 6.93 }, { 225725952, 7.40 },
        { 268435456, 5.92 }, { 319225344, 6.69 }, { 379624960, 6.62 }, { 451452416, 6.91 },
        { 536870912, 6.62 },
    };
    gb_cache_levels lv;
    gb_bw_knee k[8];

    memset(&lv, 0, sizeof lv);
    for (size_t i = 0; i < sizeof points / sizeof points[0]; i++) {
        lv.bytes[i] = points[i][0];
        lv.gbs[i] = points[i][1];
    }
    lv.npoints = (int)(sizeof points / sizeof points[0]);
    lv.swept = 1;
    CHECK_EQ_INT(gb_bw_knees(lv.bytes, lv.gbs, lv.npoints, k, 8), 3);
    lv.reported[1] = 48 * 1024;
    lv.reported[2] = 2 << 20;
    lv.reported[3] = 260L << 20;
    gb_bw_find_levels(&lv);
    CHECK(lv.used[3] >= 64 * MIB && lv.used[3] <= 160 * MIB);
    CHECK(lv.level_gbs[3] >= 3 * lv.memory_gbs);
    CHECK(lv.used[2] == 2 << 20 && lv.used[1] == 48 * 1024);
}
