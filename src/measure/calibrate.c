/*
 * calibrate.c - packed's regime choices that no machine report decides,
 * measured on the machine: how it reads an operand whose rows are a page
 * or more apart (machine.h's questions).
 *
 * B (mlp_expand's, N = 3072, rows 12 KiB apart):
 *   in place - jr outside ir: every A micro-panel's pass reads the B
 *              micro-panel where it is, software-prefetched (B fused; from
 *              5 A micro-panels up the first pass copies it for the
 *              others), or panel fused where fused would cut kc;
 *   copied   - ir outside jr, B in kc x nc blocks in the pre-packed layout:
 *              the first A micro-panel's pass over a block reads B in place
 *              and copies it there, the others read the copy (panel fused
 *              at every M).
 * A (mlp_reduce's, K = 3072): in place (the kernel broadcasts from MR rows
 * 12 KiB apart) or copied (each micro-panel packed on its first use, A
 * fused).
 * B's copy where B is fused (read in place, jr outer): copied (the first A
 * micro-panel's pass stores each B micro-panel it loads into a contiguous
 * copy the later passes read, from FUSED_COPY_FMAS up, packed_plan.c) or
 * in place (every pass reads B where it is).  The copy buys the later
 * passes a contiguous read from L2 for the first pass's stores; on the AMD
 * EPYC (family 26) it paid from 5 A micro-panels, on a Zen 4 guest in
 * place was 2-5 % faster at 6 to 16.
 * B's prefetch where its rows are a page or more apart and read in place:
 * into L1 by the set rule's distance and into L2 16 rows ahead (l1), or
 * into L2 only (l2).  The set rule counts ways; whether an L1 prefetch two
 * rows ahead pays over the L2 one depends on the core's L2 latency and
 * load queue: on a Zen 4 guest L2 only was 2.6 % faster on mlp_expand.
 * Which costs less depends on what reading rows a page apart costs the
 * core: its prefetchers (none crosses a page), its TLB, what an L1d set
 * conflict costs against an L2 hit, none of which a machine report
 * settles.  On an AMD EPYC (Zen 4) guest, 32 KiB 8-way L1d, B in place took
 * 0.96x the time of copied and A in place 0.85x, where the ways rule this
 * replaced packed A; on an Intel Xeon guest, B read in place cost 1.7-2x
 * what the same kernel took on packed B.  So both are measured, not
 * derived.
 *
 * B's L2 prefetch 16 rows ahead where its rows are a page or more apart
 * and every pass reads them in place (bfar): on, or off, the next
 * micro-panel's prefetch alone bringing them into L2 (each pass prefetches
 * its share of it).  Two prefetches of the same lines are one request too
 * many only where the L3 requests are what the pass waits for: on the AMD
 * EPYC family 26 without it took 0.91-0.94x the time at M = 16 and 32
 * (mlp_expand, 1 and 2 threads), on M = 16 and 64 with no copy 0.92x.
 *
 * There too, kc cut to the rows L2 has places for at B's row stride
 * (kcplaces: 256 rows 12 KiB apart on 1 MiB), or not: on the AMD EPYC
 * family 26 the cut took 0.93-0.98x the time at mlp_expand M = 8-32; on
 * the family 25 (Zen 4) guest, whose 8-way L2 has as many places, uncut
 * took 0.95-0.99x at M = 8-256 (why is not measured: the cut adds a
 * third pass over C at K = 768).  Nothing in a machine report tells the
 * two apart.
 *
 * B's rows under a page apart, where an A block holds fewer than M rows
 * (bnear): in place (jr outer, every A block reads B again from L3, row by
 * row) or panel fused (the first A micro-panel's pass copies each block
 * of B for the rest), timed on mlp_reduce M = 256 and 384: on the AMD EPYC
 * family 26 the kernel alone read B's rows 768 floats apart from L2 at
 * 0.95-0.97x its rate on packed B (scripts/ukernel.c, 2 threads).
 *
 * B fused where C has many rows (bmany: M of 192 or more, B's rows a page
 * or more apart and read in place, fused not cutting kc): fused (jr outer)
 * or panel fused (ir outer), timed on mlp_expand M = 192 and 256 last:
 * jr outer streams the A block from L2 on every pass, ir outer keeps the
 * A micro-panel in L1 and streams B's packed block; on the family 25 guest
 * panel fused took 0.975-0.988x fused's time at 1 thread, where nothing in
 * a machine report says which of the two a core's L2 serves faster.
 *
 * B's rows under a page apart, read in place by every pass where a B
 * micro-panel has two A micro-panels or fewer (bnearnext): each pass
 * prefetching its share of the next micro-panel into L2 (on), or not
 * (off), timed on qkv M = 8 and 16 last (M = 8 is no BERT shape: it is
 * the one pass).  The fewer the passes, the denser the prefetch (at M = 16
 * a row every two k, on top of the kernel's own prefetch 16 rows ahead):
 * on the AMD EPYC family 26 off took 0.94-0.96x the time at M = 16 and
 * 0.91x at 8, while on mlp_expand, rows 12 KiB apart, the same prefetch
 * saves 4-14 %.  What the extra L2
 * requests cost against what they hide is the core's, not a report's.
 *
 * kc's rule: BLIS's analytical cap from L1d's ways (128 for 8 x 48 on a
 * 4 KiB way) or A's micro-panel in half of L1d (768 on 48 KiB), timed on
 * qkv M = 64 and 256 (K 768): on the AMD EPYC family 26 the half took
 * 0.94-0.95x the ways' time.
 *
 * The measurement, question by question in measure_order, each with the
 * answers before it that it runs under (measure_order says why), per
 * question: two of the
 * BERT shapes that ask it (M = 16, where every pass reads the operand in
 * place, and M = 64), each answer timed by the harness (gb_measure:
 * CALIB_WARMUP warm-up calls, then the fastest of CALIB_REPS timed calls) in
 * CALIB_ROUNDS rounds, the two answers in alternating order; a round's ratio
 * is the geometric mean over the two shapes of in place / copied; where the
 * two answers make the same plan at both shapes on this machine (packed's
 * effective params equal: the plan does not ask the question there),
 * nothing is timed and the answer is the first (same_plan).  Copied is
 * chosen when the median round's ratio exceeds the question's copied_above
 * (machine.h: 1.10 for A and B, where in place copies nothing; 1.02 for
 * bfar, whose tie keeps the prefetch; 1.0 for the rest, B's copy among
 * them, which costs nothing else).  Before any timed call of a run, once per
 * machine and thread count: about 285 GFLOP over the ten questions
 * (bnear's and bmany's shapes are most of it), 1.2 s at 2 threads and 1.7
 * s at 1 on the AMD EPYC family 26 with seven, 1.7 s and 3.2 s on the
 * family 25 guest with nine (2.1-2.2 s and 3.4-3.5 s while each plan
 * detected the machine again); under emulation (qemu) many minutes, so
 * the cross build's runs force it.
 *
 * The cache is schedules/packed_calibration.c's; this file measures and
 * writes it.
 */
#define _POSIX_C_SOURCE 200809L
#include "calibrate.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "calibration.h"
#include "harness.h"
#include "sched_lang.h"
#include "sched_variant.h"
#include "parse.h"
#include "stats.h"
#include "text.h"

extern const gb_variant gb_variant_packed;

#define CALIB_ROUNDS 5
#define CALIB_ROUNDS_QUICK 3
#define CALIB_WARMUP 1
#define CALIB_REPS 3
#define CALIB_REPS_QUICK 2
#define CALIB_NSHAPES 2
/* The threads' cost: the small call's rounds, and each round's warm-up
 * and timed calls at each count (a few microseconds a call: tens of
 * milliseconds in all). */
#define SMALL_ROUNDS 5
#define SMALL_ROUNDS_QUICK 3
#define SMALL_WARMUP 20
#define SMALL_REPS 200

/* packed reads the calibration, and so does a schedule with choose blocks
 * (the model answers them from it: SCHED.md, "Choices"). */
int gb_calibration_needed(const gb_variant *v)
{
    const gb_sched *nest = v != NULL ? gb_sched_variant_nest(v) : NULL;

    return v != NULL && (v == &gb_variant_packed || v->base == &gb_variant_packed ||
                         (nest != NULL && nest->nblocks > 0));
}

/* One round of a question: each shape's fastest call per answer, in place
 * first on even rounds; the geometric mean over the shapes of in place /
 * copied. */
static int measure_round(int round, int threads, gb_workspace *ws, const gb_params *read_as,
                         const gb_measure_cfg *cfg, double *ratio, char *err, size_t errlen)
{
    volatile sig_atomic_t stop = 0;
    double log_sum = 0.0;

    for (int s = 0; s < CALIB_NSHAPES; s++) {
        double t[GB_READ_CHOICES];
        for (int k = 0; k < GB_READ_CHOICES; k++) {
            const int r = (round + k) % GB_READ_CHOICES;
            gb_result res;
            if (gb_measure(&gb_variant_packed, &read_as[r], threads, 0, &ws[s], cfg, &stop,
                           &res, err, errlen) != 0) {
                gb_result_free(&res);
                return -1;
            }
            /* The fastest call: on a shared machine another process only
             * ever adds time, so the least is the regime's own. */
            t[r] = res.stats.min;
            gb_result_free(&res);
        }
        if (!(t[GB_READ_IN_PLACE] > 0.0) || !(t[GB_READ_COPIED] > 0.0)) {
            snprintf(err, errlen, "calibration: a call took no measurable time");
            return -1;
        }
        log_sum += log(t[GB_READ_IN_PLACE] / t[GB_READ_COPIED]);
    }
    *ratio = exp(log_sum / CALIB_NSHAPES);
    return 0;
}

/* Question q's two param sets, answer 0's and answer 1's: context, the
 * question's fixed params, then its own param.  0, or -1 with err. */
static int question_params(int q, const char *context, gb_params read_as[GB_READ_CHOICES],
                           char *err, size_t errlen)
{
    const gb_calib_question *cq = &gb_calib_questions[q];

    for (int r = 0; r < GB_READ_CHOICES; r++) {
        char text[512];
        if ((size_t)snprintf(text, sizeof text, "%s%s%s=%s", context, cq->fixed, cq->param,
                             cq->answers[r]) >= sizeof text) {
            snprintf(err, errlen, "calibration: the params of %s too long", cq->name);
            return -1;
        }
        if (gb_params_parse(&gb_variant_packed, text, &read_as[r], err, errlen) != 0)
            return -1;
    }
    return 0;
}

/* The plans the two param sets make at q's shapes, compared by packed's
 * effective params: the plan's every choice (blocks, loop order, B's and
 * A's modes, grid, prefetch), and each calibrated answer under its param's
 * name where the plan asked it (bcopy: what the shape does), so two
 * answers of an asked question always differ. */
static int plans_equal(int q, int threads, const gb_params read_as[GB_READ_CHOICES])
{
    const gb_calib_question *cq = &gb_calib_questions[q];

    for (int s = 0; s < CALIB_NSHAPES; s++) {
        gb_params eff[GB_READ_CHOICES];
        for (int r = 0; r < GB_READ_CHOICES; r++) {
            const gb_ctx ctx = { threads, &read_as[r], NULL, NULL, 0, NULL };
            memset(&eff[r], 0, sizeof eff[r]);
            gb_variant_packed.resolve(cq->M[s], cq->N, cq->K, &ctx, &eff[r]);
        }
        if (!gb_params_equal(&eff[0], &eff[1]))
            return 0;
    }
    return 1;
}

int gb_calibration_same_plan(int q, int threads, const char *context, char *err, size_t errlen)
{
    gb_params read_as[GB_READ_CHOICES];

    if (question_params(q, context, read_as, err, errlen) != 0)
        return -1;
    return plans_equal(q, threads, read_as);
}

/* One question's rounds into its answer, with the answers measured before
 * it in context ("kcplaces=off," or ""): 0, or -1 with err.  Where both
 * answers make the same plan at its shapes on this machine nothing is
 * timed: answer 0, same_plan.  By the AMD EPYC family 26's figures (48
 * KiB L1d, 1 MiB L2) B fused would cut kc from 768 to 682 and 512 at
 * bmany's M = 192 and 256, so its plan is panel fused whatever bmany
 * answers: timed, one plan against itself, answered by the noise. */
static int measure_question(int q, int threads, int rounds, const gb_measure_cfg *cfg,
                            const char *context, gb_calib_answer *out, char *err, size_t errlen)
{
    gb_workspace ws[CALIB_NSHAPES];
    gb_params read_as[GB_READ_CHOICES];
    double ratios[CALIB_ROUNDS];
    gb_stats st;
    int rc = -1;

    memset(ws, 0, sizeof ws);
    memset(out, 0, sizeof *out);
    if (question_params(q, context, read_as, err, errlen) != 0)
        return -1;
    if (plans_equal(q, threads, read_as)) {
        out->read = 0;
        out->same_plan = 1;
        return 0;
    }
    for (int s = 0; s < CALIB_NSHAPES; s++)
        if (gb_workspace_init(&ws[s], gb_calib_questions[q].M[s], gb_calib_questions[q].K,
                              gb_calib_questions[q].N, err,
                              errlen) != 0)
            goto cleanup;
    for (int r = 0; r < rounds; r++)
        if (measure_round(r, threads, ws, read_as, cfg, &ratios[r], err, errlen) != 0)
            goto cleanup;
    if (stats_compute(ratios, (size_t)rounds, &st) != 0) {
        snprintf(err, errlen, "calibration: out of memory");
        goto cleanup;
    }
    out->ratio = st.median;
    out->ratio_p10 = st.p10;
    out->ratio_p90 = st.p90;
    out->read = gb_calibration_decide(q, st.median);
    rc = 0;
cleanup:
    for (int s = 0; s < CALIB_NSHAPES; s++)
        gb_workspace_free(&ws[s]);
    return rc;
}

/* The order of the measurement.  kcplaces (kc's cut), bprefetch (B's L1
 * prefetch), bfar (its L2 one) and bcopy (its copy) make how B's rows a
 * page or more apart are read in place: each question after one of them
 * runs with its answer set, as the plan will run it, unless the question
 * fixes that param itself.  Measured under the defaults instead, bcopy
 * compared in place at kc 256 with copied at 384 on the family 25 guest
 * (kcplaces; in place at 384 took 0.96-0.99x copied's time), and bfar
 * timed its plans with an L1 prefetch that the run's plan does not issue
 * where bprefetch answers l2 (on that guest no answer moved for it in
 * three calibrations). */
static const int measure_order[GB_CALIB_QUESTIONS] = {
    GB_CALIB_KCPLACES, GB_CALIB_BPREFETCH, GB_CALIB_BFAR, GB_CALIB_BCOPY, GB_CALIB_B,
    GB_CALIB_A,        GB_CALIB_KC,        GB_CALIB_BNEAR, GB_CALIB_BMANY, GB_CALIB_BNEARNEXT,
};
static const int context_questions[] = { GB_CALIB_KCPLACES, GB_CALIB_BPREFETCH, GB_CALIB_BFAR,
                                         GB_CALIB_BCOPY };

void gb_calibration_context(int q, const gb_calibration *out, const int *measured,
                            char *context, size_t len)
{
    size_t used = 0;

    context[0] = '\0';
    for (size_t i = 0; i < sizeof context_questions / sizeof context_questions[0]; i++) {
        const int c = context_questions[i];
        const gb_calib_question *cq = &gb_calib_questions[c];
        char key[32];
        if (c == q || !measured[c])
            continue;
        snprintf(key, sizeof key, "%s=", cq->param);
        if (strstr(gb_calib_questions[q].fixed, key) != NULL)
            continue;
        used += (size_t)snprintf(context + used, len - used, "%s%s,", key,
                                 cq->answers[out->answer[c].read]);
        if (used >= len)
            break;
    }
}

/* What a call at more than one thread pays for them (machine.h): packed's
 * median call on the small shape, default params, at one thread and at
 * `threads`, the two interleaved over SMALL_ROUNDS rounds (the median of
 * each count's round medians).  Its plan at `threads` keeps them all: the
 * threads rule reads this calibration, not yet in the cache.  0, or -1
 * with err. */
static int measure_threads_cost(int threads, int quick, gb_calibration *out, char *err,
                                size_t errlen)
{
    const int counts[2] = { 1, threads }, rounds = quick ? SMALL_ROUNDS_QUICK : SMALL_ROUNDS;
    volatile sig_atomic_t stop = 0;
    double medians[2][SMALL_ROUNDS];
    gb_workspace ws;
    gb_params none;
    gb_stats st;
    int rc = 0;

    memset(&ws, 0, sizeof ws);
    memset(&none, 0, sizeof none);
    if (gb_workspace_init(&ws, GB_CALIB_SMALL, GB_CALIB_SMALL, GB_CALIB_SMALL, err, errlen) != 0)
        return -1;
    for (int r = 0; r < rounds && rc == 0; r++)
        for (int i = 0; i < 2 && rc == 0; i++) {
            const int c = (r + i) % 2;
            const gb_measure_cfg cfg = { .warmup = SMALL_WARMUP, .reps = SMALL_REPS,
                                         .min_reps = SMALL_REPS, .max_time = 10.0, .check = 0,
                                         .nthreads = counts[c] };
            gb_result res;
            memset(&res, 0, sizeof res);
            rc = gb_measure(&gb_variant_packed, &none, counts[c], 0, &ws, &cfg, &stop, &res, err,
                            errlen);
            if (rc == 0 && !(res.stats.median > 0.0)) {
                snprintf(err, errlen, "calibration: a call took no measurable time");
                rc = -1;
            }
            if (rc == 0)
                medians[c][r] = res.stats.median;
            gb_result_free(&res);
        }
    gb_workspace_free(&ws);
    if (rc != 0)
        return -1;
    if (stats_compute(medians[0], (size_t)rounds, &st) != 0)
        goto nomem;
    out->small_us = st.median;
    if (stats_compute(medians[1], (size_t)rounds, &st) != 0)
        goto nomem;
    out->small_t_us = st.median;
    return 0;
nomem:
    snprintf(err, errlen, "calibration: out of memory");
    return -1;
}

int gb_calibration_measure(int threads, int quick, gb_calibration *out, char *err,
                           size_t errlen)
{
    const int rounds = quick ? CALIB_ROUNDS_QUICK : CALIB_ROUNDS;
    const int reps = quick ? CALIB_REPS_QUICK : CALIB_REPS;
    const gb_measure_cfg cfg = { .warmup = CALIB_WARMUP, .reps = reps, .min_reps = reps,
                                 .max_time = 10.0, .check = 0, .nthreads = threads };
    int measured[GB_CALIB_QUESTIONS] = { 0 };
    char context[256];

    memset(out, 0, sizeof *out);
    for (int i = 0; i < GB_CALIB_QUESTIONS; i++) {
        const int q = measure_order[i];
        gb_calibration_context(q, out, measured, context, sizeof context);
        if (measure_question(q, threads, rounds, &cfg, context, &out->answer[q], err,
                             errlen) != 0)
            return -1;
        measured[q] = 1;
    }
    if (threads > 1 && measure_threads_cost(threads, quick, out, err, errlen) != 0)
        return -1;
    out->threads = threads;
    out->rounds = rounds;
    snprintf(out->source, sizeof out->source, "measured");
    return 0;
}

int gb_calibration_ensure(const gb_machine *m, int threads, int quiet, gb_calibration *out,
                          char *err, size_t errlen)
{
    const int mode = gb_calibration_mode();
    char key[1024], path[4200], why[512], line[256], shown[256];
    int rc;

    if (gb_calibration_mode_check(err, errlen) != 0)
        return -1;
    if (mode >= 0 && mode < GB_READ_CHOICES) {
        gb_calibration_set(out, threads, mode, "forced");
        return 0;
    }
    gb_calibration_key(m, threads, key, sizeof key);
    if (gb_calibration_path(key, path, sizeof path, why, sizeof why) != 0) {
        gb_text_say("warning: packed's calibration cannot be cached (%s): A and B read by the "
                    "default, in place", why);
        gb_calibration_set(out, threads, GB_READ_IN_PLACE, "default");
        return 0;
    }
    /* the path is the environment's (XDG_CACHE_HOME): shown escaped */
    gb_printable(path, 200, shown, sizeof shown);
    rc = gb_calibration_load(path, key, out, why, sizeof why);
    if (rc == 0)
        return 0;
    if (rc == 2) {
        /* A FIFO, device or directory there: packed's plan cannot read a
         * cache from it, so a measurement would be lost; nothing replaces
         * what someone put there. */
        gb_text_say("warning: calibration cache %s is %s: packed's calibration not cached, A "
                    "and B read by the default, in place", shown, why);
        gb_calibration_set(out, threads, GB_READ_IN_PLACE, "default");
        return 0;
    }
    if (rc < 0)
        gb_text_say("calibration cache %s refused: %s; measuring again", shown, why);
    if (gb_calibration_measure(threads, mode == GB_READ_CHOICES, out, err, errlen) != 0)
        return -2;
    if (gb_calibration_store(path, key, out, why, sizeof why) != 0) {
        gb_text_say("warning: packed's calibration not cached (%s): A and B read by the "
                    "default, in place", why);
        gb_calibration_set(out, threads, GB_READ_IN_PLACE, "default");
        return 0;
    }
    for (int q = 0; q < GB_CALIB_QUESTIONS && !quiet; q++) {
        gb_calibration_describe(out, q, line, sizeof line);
        fprintf(stderr, "gemmbench: packed calibrated at %d thread%s, %s: %s\n", threads,
                threads > 1 ? "s" : "", gb_calib_questions[q].label, line);
    }
    if (threads > 1 && !quiet) {
        gb_calibration_describe_threads(out, line, sizeof line);
        fprintf(stderr, "gemmbench: packed calibrated at %d threads, what they cost a call: %s\n",
                threads, line);
    }
    return 0;
}

