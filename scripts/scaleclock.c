/* scaleclock.c - an LD_PRELOAD library that makes a program's monotonic
 * clocks run GB_CLOCK_SCALE times as fast (e.g. 1.07), so every interval the
 * program times comes out exactly that much longer.  scripts/ab-power.sh puts
 * it under NEW to give gemmbench ab a slowdown of exactly known size, with
 * the machine's own noise on both sides: the truth needs no long run.
 * CLOCK_REALTIME is left alone (timestamps in result files stay true). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

typedef int (*clock_fn)(clockid_t, struct timespec *);

static clock_fn real_clock;
static double scale = 1.0;
static double origin_mono, origin_raw;

static double seconds(const struct timespec *ts)
{
    return (double)ts->tv_sec + 1e-9 * (double)ts->tv_nsec;
}

__attribute__((constructor)) static void scaleclock_init(void)
{
    const char *s = getenv("GB_CLOCK_SCALE");
    struct timespec ts;

    real_clock = (clock_fn)dlsym(RTLD_NEXT, "clock_gettime");
    if (s != NULL) {
        char *end;
        double v = strtod(s, &end);
        if (end != s && *end == '\0' && v > 0.0)
            scale = v;
    }
    /* The origins are taken once, before any thread exists. */
    real_clock(CLOCK_MONOTONIC, &ts);
    origin_mono = seconds(&ts);
    real_clock(CLOCK_MONOTONIC_RAW, &ts);
    origin_raw = seconds(&ts);
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
    double origin, t;
    int rc;

    if (real_clock == NULL)
        scaleclock_init();
    rc = real_clock(id, ts);
    if (rc != 0 || scale == 1.0)
        return rc;
    if (id == CLOCK_MONOTONIC)
        origin = origin_mono;
    else if (id == CLOCK_MONOTONIC_RAW)
        origin = origin_raw;
    else
        return rc;
    t = origin + (seconds(ts) - origin) * scale;
    ts->tv_sec = (time_t)t;
    ts->tv_nsec = (long)((t - (double)ts->tv_sec) * 1e9);
    return rc;
}
