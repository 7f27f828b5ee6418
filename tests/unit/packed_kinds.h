/*
 * packed_kinds.h - what the packed unit tests share (test_packed.c,
 * test_packed_threads.c): GEMMBENCH_CALIBRATE saved and put back, a
 * variant's effective parameter, and the kinds this project measures as
 * machines and calibrations, for the plans of the kinds not at hand.
 */
#ifndef GB_TEST_PACKED_KINDS_H
#define GB_TEST_PACKED_KINDS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibration.h"
#include "gemmbench.h"
#include "machine.h"
#include "sched_lang.h"

/* GEMMBENCH_CALIBRATE as the test found it, saved before a test forces a
 * mode and put back after (NULL: it was unset). */
static inline char *calibrate_mode_save(void)
{
    const char *saved = getenv("GEMMBENCH_CALIBRATE");
    return saved ? strdup(saved) : NULL;
}

static inline void calibrate_mode_restore(char *mode)
{
    if (mode != NULL)
        setenv("GEMMBENCH_CALIBRATE", mode, 1);
    else
        unsetenv("GEMMBENCH_CALIBRATE");
    free(mode);
}

static inline long effective(const gb_variant *v, const gb_params *p, int M, int N, int K, int threads,
                      const char *key)
{
    gb_ctx ctx = { threads, p, NULL, NULL, 0, NULL };
    gb_params eff;
    v->resolve(M, N, K, &ctx, &eff);
    return gb_param_get(&eff, key, -1);
}

/* A machine with a kind's caches (L1d, L2, L3: size and ways as its
 * `gemmbench info` reported them), nothing else: all packed's rules read. */
static inline gb_machine kind_machine(long l1, int l1_ways, long l2, int l2_ways, long l3, int l3_ways)
{
    const long size[3] = { l1, l2, l3 };
    const int ways[3] = { l1_ways, l2_ways, l3_ways };
    gb_machine m;

    memset(&m, 0, sizeof m);
    for (int i = 0; i < 3; i++) {
        gb_cache *c = &m.caches[m.ncaches++];
        c->level = i + 1;
        snprintf(c->type, sizeof c->type, "%s", i == 0 ? "Data" : "Unified");
        c->size_bytes = size[i];
        c->line_bytes = 64;
        c->ways = ways[i];
    }
    return m;
}

/* A kind's calibration: answer 1 for the questions in copied (bits
 * 1 << GB_CALIB_*), answer 0 for the rest. */
static inline gb_calibration kind_calibration(int threads, unsigned copied)
{
    gb_calibration c;

    gb_calibration_set(&c, threads, GB_READ_IN_PLACE, "cached");
    c.rounds = 5;
    for (int q = 0; q < GB_CALIB_QUESTIONS; q++)
        c.answer[q].read = (copied >> q) & 1u;
    return c;
}

/* The kinds this project measures: their caches as `gemmbench info`
 * reported them, and their calibrations as recorded (the questions in
 * copied answered 1; the comments in packed_plans_on_each_kinds_figures
 * say when and where). */
typedef struct kind_figures {
    const char *name;
    long l1, l2, l3;
    int l1_ways, l2_ways, l3_ways;
    unsigned copied;
} kind_figures;

static const kind_figures KIND_ZEN5 = {
    "AMD EPYC family 26", 48L << 10, 1L << 20, 508L << 20, 12, 8, 0,
    1u << GB_CALIB_BCOPY | 1u << GB_CALIB_BPREFETCH | 1u << GB_CALIB_BNEAR | 1u << GB_CALIB_BFAR |
        1u << GB_CALIB_BNEARNEXT
};
static const kind_figures KIND_XEON = {
    "Intel Xeon family 6 model 207", 48L << 10, 2L << 20, 300L << 20, 12, 16, 15,
    1u << GB_CALIB_B | 1u << GB_CALIB_BCOPY
};
static const kind_figures KIND_ZEN4 = {
    "AMD EPYC family 25", 32L << 10, 1L << 20, 32L << 20, 8, 8, 16,
    1u << GB_CALIB_BPREFETCH | 1u << GB_CALIB_KCPLACES | 1u << GB_CALIB_BMANY
};

static inline gb_machine kind_of(const kind_figures *k)
{
    return kind_machine(k->l1, k->l1_ways, k->l2, k->l2_ways, k->l3, k->l3_ways);
}

/* The schedule model's machine of a kind (AVX-512: 16 lanes, 32
 * registers; 64-byte lines) with its calibration's answers at cal. */
static inline gb_sched_machine kind_sched_machine(const kind_figures *k, const gb_calibration *cal)
{
    const gb_sched_machine sm = {
        16, 32, k->l1, k->l2, k->l3, k->l1_ways, k->l2_ways, k->l3_ways, 64, k->name,
        cal->answer[GB_CALIB_KC].read == 0, cal->answer[GB_CALIB_B].read == GB_READ_COPIED,
        cal->answer[GB_CALIB_BPREFETCH].read == GB_PREFETCH_L2,
        cal->answer[GB_CALIB_BNEAR].read == GB_READ_COPIED,
        cal->answer[GB_CALIB_BMANY].read == GB_READ_COPIED
    };
    return sm;
}

#endif
