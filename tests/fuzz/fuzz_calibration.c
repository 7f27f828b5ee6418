/* fuzz_calibration.c - any bytes as packed's calibration cache file
 * (gb_calibration_load, schedules/packed_calibration.c, which every run of
 * packed and packed's plan read from ~/.cache/gemmbench) for the key KEY;
 * an accepted one described (gb_calibration_describe, what info, --explain
 * and the run print), written back (gb_calibration_store) and read again.
 * Besides the sanitizers: a regular file is never "none" or "not a regular
 * file"; a refusal says corrupt or stale in one line that holds no control
 * character (a run prints it on the terminal; the key in a stale file is
 * the file's text); what is accepted is in range and reads back the same. */
#include <math.h>

#include "calibration.h"
#include "fuzz_util.h"

/* The seeds' key (tests/fuzz/corpus/calibration/). */
#define KEY "method=5|cpu=Fuzz CPU|id=x86_64 family 6|isa=avx2,fma|caches=L1d:32768:8|threads=2"

/* No byte below 0x20, no DEL, no C1 control (C2 80 to C2 9F). */
static int printable(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
            return 0;
    return 1;
}

static void check_accepted(const gb_calibration *c)
{
    if (strcmp(c->source, "cached") != 0 || c->threads < 1 || c->threads > 1000000 ||
        c->rounds < 1 || c->rounds > 1000000)
        abort();
    /* the threads' cost: both 0, or both measured at more than one thread */
    if (!(c->small_us == 0.0 && c->small_t_us == 0.0) &&
        (c->threads < 2 || !(c->small_us > 0.0 && c->small_us < 1e6) ||
         !(c->small_t_us > 0.0 && c->small_t_us < 1e6)))
        abort();
    for (int q = 0; q < GB_CALIB_QUESTIONS; q++) {
        const gb_calib_answer *a = &c->answer[q];
        char line[512];
        if (a->read != 0 && a->read != 1)
            abort();
        /* same_plan: nothing timed, the first answer, no ratios */
        if (a->same_plan && (a->read != 0 || a->ratio != 0.0 || a->ratio_p10 != 0.0 ||
                             a->ratio_p90 != 0.0))
            abort();
        if (!a->same_plan && (!(a->ratio > 0.0) || !isfinite(a->ratio) ||
                              !(a->ratio_p10 > 0.0) || !isfinite(a->ratio_p10) ||
                              !(a->ratio_p90 > 0.0) || !isfinite(a->ratio_p90)))
            abort();
        gb_calibration_describe(c, q, line, sizeof line);
        if (!printable(line))
            abort();
    }
}

static int same(double a, double b)
{
    return fabs(a - b) <= 1e-12 * fabs(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char again_path[80];
    gb_calibration c, back;
    char err[512] = "";
    int rc = gb_calibration_load(fuzz_file(data, size), KEY, &c, err, sizeof err);

    if (rc != 0) {
        if (rc != -1 || (strncmp(err, "corrupt: ", 9) != 0 && strncmp(err, "stale: ", 7) != 0) ||
            !printable(err))
            abort();
        return 0;
    }
    check_accepted(&c);
    if (again_path[0] == '\0')
        snprintf(again_path, sizeof again_path, "/tmp/gemmbench-fuzz-%ld.calibration",
                 (long)getpid());
    if (gb_calibration_store(again_path, KEY, &c, err, sizeof err) != 0 ||
        gb_calibration_load(again_path, KEY, &back, err, sizeof err) != 0)
        abort(); /* what was accepted is written and read back */
    unlink(again_path);
    if (back.threads != c.threads || back.rounds != c.rounds || !same(back.small_us, c.small_us) ||
        !same(back.small_t_us, c.small_t_us))
        abort();
    for (int q = 0; q < GB_CALIB_QUESTIONS; q++)
        if (back.answer[q].read != c.answer[q].read ||
            back.answer[q].same_plan != c.answer[q].same_plan ||
            !same(back.answer[q].ratio, c.answer[q].ratio) ||
            !same(back.answer[q].ratio_p10, c.answer[q].ratio_p10) ||
            !same(back.answer[q].ratio_p90, c.answer[q].ratio_p90))
            abort();
    return 0;
}
