/*
 * calibration.c - what packed's calibration asks and how its answers read:
 * the questions (how an operand whose rows are a page or more apart is
 * read, and the shapes that time it), the cache key of a machine, the
 * GEMMBENCH_CALIBRATE mode, and the one-line description --explain, info
 * and the run print.  The measurement is src/measure/calibrate.c's, the
 * cache schedules/packed_calibration.c's.
 */
#include "machine.h"
#include "parse.h"

#include <stdlib.h>
#include <string.h>

/* Bump when what is measured, or how it decides, changes: the key changes
 * with it, so older files are never read (and refused if copied in). */
#define CALIB_METHOD 19

const char *const gb_read_names[] = { "in_place", "copied", NULL };
const char *const gb_prefetch_names[] = { "l1", "l2", NULL };
const char *const gb_kc_rule_names[] = { "l1_half", "l1_ways", NULL };
const char *const gb_on_off_names[] = { "on", "off", NULL };

/* B and A: M = 16 (every pass reads the operand in place on AVX-512's
 * 8-row micro-panels) and 64 (the first of 8 passes copies).  B's copy in
 * the fused regime: M = 64 and 128, 8 and 16 A micro-panels per B
 * micro-panel, where the rule copies (from 5), B fused forced; the copy
 * costs nothing else, so copied as soon as in place is slower.  B's
 * prefetch where its rows are a page or more apart: M = 16 and 64, B
 * fused without a copy (every pass reads B in place), L1 as soon as it is
 * the faster.  kc's rule: qkv M = 64 and 256 (K 768: one block under half
 * of a 48 KiB L1d, six under BLIS's ways with an 8 x 48 micro-kernel), B
 * in place; BLIS's ways as soon as they are the faster.  B's rows under a
 * page apart where an A block holds fewer than M rows: mlp_reduce M = 256
 * and 384 (two and three A blocks of 128 rows on a 1 MiB L2, B's k block
 * 1.2 MB a thread at 2 threads), in place against panel fused; panel fused
 * as soon as it is the faster (on the AMD EPYC family 26 it took 0.93-0.98x
 * in place's time at M = 256 and 384, 1 and 2 threads; on a Zen 4 guest,
 * tried as a rule, 0.99-1.05x).  B's L2 prefetch 16 rows ahead where its
 * rows are a page or more apart and every pass reads them in place (no
 * copy), while each pass also prefetches its share of the next B
 * micro-panel into L2: M = 16 and 64 with B fused and no copy, as
 * bprefetch's; off only when on is more than 2 % the slower (on the AMD
 * EPYC family 26, without it mlp_expand took 0.87-0.94x the time at M = 16
 * and 32 in two runs, where the default copies nothing, and 1.02-1.05x at
 * M = 48-128, where the first pass copies and keeps it; on the family 25
 * guest on / off measured 0.997-1.007 in six calibrations, answering
 * either, while by the median call on ran M = 16-128 0.96-1.00x off's
 * time at 1 thread: the fastest call does not see it).  kc cut to the rows L2 has
 * places for, where B's rows are a page or more apart and every pass reads
 * them in place: the same shapes and regime, on against off, off as soon
 * as on is the slower (on the AMD EPYC family 26 the cut took 0.93-0.98x
 * the time at mlp_expand M = 8-32, 1 and 2 threads; on the family 25 (Zen
 * 4) guest, whose calibration never copies B fused, 1.01-1.05x at every M
 * of mlp_expand from 8 to 256).  B fused (its rows a page or more apart,
 * jr outer) where C has many rows: mlp_expand M = 192 and 256, fused
 * against panel fused (ir outer, B copied a block at a time), with the
 * answers it depends on measured first (bcopy, bprefetch, bfar,
 * kcplaces); panel fused as soon as it is the faster (on the family 25
 * guest it took 0.975-0.988x fused's time at M = 192 and 256 at 1 thread,
 * 0.98-1.00x at 2, in four processes each, and 0.99x at M = 128 and 160:
 * jr outer reads the A block from L2 on every pass, ir outer keeps the A
 * micro-panel in L1; on the family 26, whose L1 half holds kc 768, fused
 * would cut kc at these M and the plan is panel fused already).  B's rows
 * under a page apart, read in place (jr outer) by every pass of two A
 * micro-panels or fewer (M of 16 or less a thread on AVX-512's 8-row
 * micro-panels), each pass prefetching its share of the next B
 * micro-panel into L2 (at least half of it, a row every two k or closer):
 * qkv M = 8 and 16, on against off, off only when on is more than 2 % the
 * slower, as bfar's (on the AMD EPYC family 26 off took 0.91x the time at
 * qkv M = 8 and 0.94-0.96x at 16, 0.96-1.00x at mlp_reduce M = 16 (K
 * 3072); with four passes 0.96-1.00x at qkv M = 32 but 1.01-1.06x at
 * mlp_reduce's at 1 thread, and 0.99-1.01x from M = 64: not asked there;
 * the kernel's own prefetch 16 rows ahead still brings each row in). */
const gb_calib_question gb_calib_questions[GB_CALIB_QUESTIONS] = {
    [GB_CALIB_B] = { "b", "B read", "B rows a page or more apart", { 16, 64 }, 768, 3072, "bread", "", GB_CALIB_COPIED_RATIO,
                     gb_read_names, { "in place", "copied" },
                     "mlp_expand M=16,64 (K 768, N 3072)" },
    [GB_CALIB_A] = { "a", "A read", "A rows a page or more apart", { 16, 64 }, 3072, 768, "aread", "", GB_CALIB_COPIED_RATIO,
                     gb_read_names, { "in place", "copied" },
                     "mlp_reduce M=16,64 (K 3072, N 768)" },
    [GB_CALIB_BCOPY] = { "bcopy", "B copy rule", "B fused, the first pass's copy",
                         { 64, 128 }, 768, 3072, "bcopy", "bpack=fused,", 1.0,
                         gb_read_names, { "in place", "copied" },
                         "mlp_expand M=64,128 (K 768, N 3072), B fused" },
    [GB_CALIB_BPREFETCH] = { "bprefetch", "B prefetch to",
                             "B rows a page or more apart, prefetched into", { 16, 64 }, 768,
                             3072, "bprefetch", "bpack=fused,bcopy=in_place,", 1.0,
                             gb_prefetch_names, { "L1 and L2", "L2 only" },
                             "mlp_expand M=16,64 (K 768, N 3072), B fused, no copy" },
    [GB_CALIB_KC] = { "kc", "kc rule", "kc capped by", { 64, 256 }, 768, 768, "kcrule", "",
                      1.0, gb_kc_rule_names, { "A's micro-panel in half of L1d",
                                               "L1d's ways (BLIS's model)" },
                      "qkv M=64,256 (K 768, N 768)" },
    [GB_CALIB_BNEAR] = { "bnear", "B near read",
                         "B rows under a page apart, more than one A block", { 256, 384 },
                         3072, 768, "bnear", "", 1.0, gb_read_names,
                         { "in place", "copied" }, "mlp_reduce M=256,384 (K 3072, N 768)" },
    [GB_CALIB_BFAR] = { "bfar", "B far prefetch",
                        "B rows a page or more apart, read in place by every pass, also "
                        "prefetched 16 rows ahead into L2",
                        { 16, 64 }, 768, 3072, "bfar", "bpack=fused,bcopy=in_place,", GB_CALIB_BFAR_OFF_ABOVE,
                        gb_on_off_names, { "16 rows ahead and the next micro-panel",
                                        "the next micro-panel alone" },
                        "mlp_expand M=16,64 (K 768, N 3072), B fused, no copy" },
    [GB_CALIB_KCPLACES] = { "kcplaces", "kc places",
                            "B rows a page or more apart, read in place by every pass, kc "
                            "cut to the rows L2 has places for",
                            { 16, 64 }, 768, 3072, "kcplaces", "bpack=fused,bcopy=in_place,", 1.0,
                            gb_on_off_names, { "kc cut to L2's places", "kc uncut" },
                            "mlp_expand M=16,64 (K 768, N 3072), B fused, no copy" },
    [GB_CALIB_BMANY] = { "bmany", "B many rows",
                         "B rows a page or more apart, read fused (jr outer), M of 192 or more",
                         { 192, 256 }, 768, 3072, "bmany", "bread=in_place,", 1.0,
                         gb_read_names, { "fused", "panel fused" },
                         "mlp_expand M=192,256 (K 768, N 3072), B read in place" },
    [GB_CALIB_BNEARNEXT] = { "bnearnext", "B near next",
                             "B rows under a page apart, read in place by two A micro-panels "
                             "or fewer, the next micro-panel prefetched into L2",
                             { 8, 16 }, 768, 768, "bnearnext", "", GB_CALIB_BFAR_OFF_ABOVE,
                             gb_on_off_names, { "the next micro-panel prefetched",
                                                "not prefetched" },
                             "qkv M=8,16 (K 768, N 768)" },
};

void gb_calibration_key(const gb_machine *m, int threads, char *key, size_t len)
{
    size_t used = 0;

    used += (size_t)snprintf(key, len, "method=%d|cpu=%s|id=%s|isa=", CALIB_METHOD, m->cpu_model,
                             m->cpu_id);
    for (int i = 0; i < m->nisa && used < len; i++)
        used += (size_t)snprintf(key + used, len - used, "%s%s", i ? "," : "", m->isa[i]);
    if (used < len)
        used += (size_t)snprintf(key + used, len - used, "|caches=");
    for (int i = 0; i < m->ncaches && used < len; i++)
        used += (size_t)snprintf(key + used, len - used, "%sL%d%c:%ld:%d", i ? "," : "",
                                 m->caches[i].level, m->caches[i].type[0],
                                 m->caches[i].size_bytes, m->caches[i].ways);
    if (used < len)
        snprintf(key + used, len - used, "|threads=%d", threads);
}

int gb_calibration_mode(void)
{
    const char *mode = getenv("GEMMBENCH_CALIBRATE");

    if (mode == NULL || mode[0] == '\0')
        return -1;
    if (strcmp(mode, "quick") == 0)
        return GB_READ_CHOICES;
    for (int i = 0; gb_read_names[i]; i++)
        if (strcmp(gb_read_names[i], mode) == 0)
            return i;
    return -2;
}

int gb_calibration_mode_check(char *err, size_t errlen)
{
    char shown[256];

    if (gb_calibration_mode() != -2)
        return 0;
    gb_printable(getenv("GEMMBENCH_CALIBRATE"), 64, shown, sizeof shown);
    snprintf(err, errlen, "GEMMBENCH_CALIBRATE=%s: takes quick, in_place or copied", shown);
    return -1;
}

void gb_calibration_set(gb_calibration *c, int threads, int read, const char *source)
{
    memset(c, 0, sizeof *c);
    c->threads = threads;
    for (int q = 0; q < GB_CALIB_QUESTIONS; q++)
        c->answer[q].read = read;
    snprintf(c->source, sizeof c->source, "%s", source);
}

int gb_calibration_decide(int q, double ratio)
{
    return ratio > gb_calib_questions[q].copied_above ? GB_READ_COPIED : GB_READ_IN_PLACE;
}

long gb_calibration_passes_asked(int q, int mr)
{
    return mr > 0 ? ((long)gb_calib_questions[q].M[1] + mr - 1) / mr : 0;
}

void gb_calibration_describe(const gb_calibration *c, int question, char *buf, size_t len)
{
    const gb_calib_answer *a = &c->answer[question];
    const gb_calib_question *q = &gb_calib_questions[question];
    const char *choice = q->answers[a->read];

    if (strcmp(c->source, "forced") == 0)
        snprintf(buf, len, "%s (forced by GEMMBENCH_CALIBRATE)", choice);
    else if (a->same_plan)
        snprintf(buf, len, "%s: both answers make the same plan here on %s (not timed; "
                           "the first answer), %s",
                 choice, q->shapes, c->source);
    else if (!(a->ratio > 0.0))
        snprintf(buf, len, "%s (not calibrated: the default)", choice);
    else
        snprintf(buf, len, "%s: %s took %.2fx the time of %s (median of %d rounds, "
                           "p10-p90 %.2f-%.2f, on %s; %s above %.2fx), %s",
                 choice, q->words[0], a->ratio, q->words[1], c->rounds, a->ratio_p10,
                 a->ratio_p90, q->shapes, q->words[1], q->copied_above, c->source);
}

void gb_calibration_describe_threads(const gb_calibration *c, char *buf, size_t len)
{
    if (c->small_t_us > 0.0)
        snprintf(buf, len, "%dx%dx%d took %.2f us at 1 thread, %.2f at %d (medians), %s",
                 GB_CALIB_SMALL, GB_CALIB_SMALL, GB_CALIB_SMALL, c->small_us, c->small_t_us,
                 c->threads, c->source);
    else
        snprintf(buf, len, "not measured (%s): every call takes the threads its tiles allow",
                 c->source);
}
