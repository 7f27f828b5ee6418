/*
 * levels.c - the cache levels found on the bandwidth sweep's curve, as
 * likwid-bench and lmbench find them (a VM's cpuid is the hypervisor's, and
 * one guest reported a 508 MiB L3 on a chip of 32 MiB a CCD).  The method is
 * in src/measure/bandwidth.md, "Cache levels measured"; the sweep itself is
 * bandwidth.c's.  Pure: it measures nothing and prints nothing.
 */
#include "bandwidth.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A knee is a fall of the read rate by at least this factor from one
 * plateau to the next, seen on two points running: L1 -> L2 -> L3 ->
 * memory fall 1.5-4x each on the machines measured, while a shared host's
 * noise, after a 3-point median, stays within about 1.2x. */
#define KNEE_FALL 1.3
/* A fall goes on while each point is this much below the one before. */
#define KNEE_STILL_FALLING 1.08
/* The plateau, as a ratio of working sets, that keeps two falls apart as
 * two levels (1.25 octaves; real levels are 8x and more apart). */
#define KNEE_PLATEAU 2.4
/* A reported size and a knee agree within this factor (a cache's knee
 * falls somewhat before its capacity: the system's own lines share it). */
#define LEVEL_AGREE 2.0

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(const double *v, int n)
{
    double tmp[GB_SWEEP_MAX_POINTS];

    if (n <= 0)
        return 0.0;
    memcpy(tmp, v, (size_t)n * sizeof *tmp);
    qsort(tmp, (size_t)n, sizeof *tmp, cmp_double);
    return n % 2 ? tmp[n / 2] : sqrt(tmp[n / 2 - 1] * tmp[n / 2]);
}

/* A fall of the smoothed curve s: from index first (the last point of the
 * plateau above) to last (the first of the plateau below). */
typedef struct fall {
    int first, last;
    double above, below;
} fall;

/* Where s crosses level between first and last, interpolated in log-log. */
static double crossing(const double *bytes, const double *s, int first, int last, double level)
{
    for (int k = first + 1; k <= last; k++)
        if (s[k - 1] >= level && s[k] < level) {
            double f = (log(s[k - 1]) - log(level)) / (log(s[k - 1]) - log(s[k]));
            return exp(log(bytes[k - 1]) + f * (log(bytes[k]) - log(bytes[k - 1])));
        }
    return bytes[last];
}

int gb_bw_knees(const double *bytes, const double *gbs, int n, gb_bw_knee *knees, int max)
{
    double s[GB_SWEEP_MAX_POINTS];
    fall falls[GB_SWEEP_MAX_POINTS];
    int nf = 0, start = 0, found = 0;

    if (n > GB_SWEEP_MAX_POINTS)
        n = GB_SWEEP_MAX_POINTS;
    /* A 3-point median: one trial caught by a busy moment is not a knee. */
    for (int i = 0; i < n; i++) {
        double w[3];
        int k = 0;
        for (int j = i - 1; j <= i + 1; j++)
            if (j >= 0 && j < n)
                w[k++] = gbs[j];
        s[i] = median_of(w, k);
    }
    for (int i = start + 1; i + 1 < n; i++) {
        double above = median_of(s + start, i - start), below;
        int end;
        if (!(s[i] * KNEE_FALL < above && s[i + 1] * KNEE_FALL < above))
            continue;
        /* The fall ends where the curve stops falling. */
        end = i;
        while (end + 1 < n && s[end + 1] * KNEE_STILL_FALLING < s[end])
            end++;
        below = median_of(s + end, n - end < 4 ? n - end : 4);
        if (below * KNEE_FALL < above)
            falls[nf++] = (fall){ i - 1, end, above, below };
        start = end;
        i = end;
    }
    /* Two falls with less than KNEE_PLATEAU of plateau between them are
     * one level's (a shared host's L3, whose replacement and other tenants
     * spread its fall over two octaves, paused by noise). */
    for (int f = 0; f < nf; f++) {
        fall one = falls[f];
        while (f + 1 < nf && bytes[falls[f + 1].first] < KNEE_PLATEAU * bytes[one.last]) {
            one.last = falls[f + 1].last;
            one.below = falls[f + 1].below;
            f++;
        }
        if (found == max)
            break;
        knees[found].bytes = crossing(bytes, s, one.first, one.last, sqrt(one.above * one.below));
        knees[found].above_gbs = one.above;
        knees[found].below_gbs = one.below;
        found++;
    }
    return found;
}

static void format_size(char *buf, size_t len, double bytes)
{
    if (bytes >= 1024.0 * 1024)
        snprintf(buf, len, "%.3g MiB", bytes / (1024.0 * 1024));
    else
        snprintf(buf, len, "%.3g KiB", bytes / 1024.0);
}

void gb_bw_find_levels(gb_cache_levels *lv)
{
    gb_bw_knee knees[8];
    int nk = gb_bw_knees(lv->bytes, lv->gbs, lv->npoints, knees, 8), next = 1;
    double swept = lv->npoints > 0 ? lv->bytes[lv->npoints - 1] : 0.0;
    int knee_of[4] = { -1, -1, -1, -1 };

    memset(lv->measured, 0, sizeof lv->measured);
    memset(lv->level_gbs, 0, sizeof lv->level_gbs);
    lv->memory_gbs = nk > 0 ? knees[nk - 1].below_gbs : 0.0;
    /* Knees to levels, in order: each knee takes, among the levels after
     * the last one taken, the one whose reported size is nearest (in
     * octaves; a level reported with no size is at its order), so that a
     * knee the sweep missed (L1d's, where L2 reads as fast) does not shift
     * the others.  The last level, L3, takes among the knees left the one
     * nearest its reported size (none reported: the last knee, the fall to
     * memory), so that a small extra knee before it does not take its place. */
    for (int k = 0; k < nk && next <= 3; k++) {
        int best = next;
        double best_d = INFINITY;
        for (int l = next; l <= 3; l++) {
            double d = lv->reported[l] > 0 ? fabs(log2(knees[k].bytes / (double)lv->reported[l]))
                                           : (double)(l - next);
            if (d < best_d) {
                best_d = d;
                best = l;
            }
        }
        if (best == 3) {
            int pick = nk - 1;
            for (int j = k; j < nk && lv->reported[3] > 0; j++)
                if (fabs(log2(knees[j].bytes / (double)lv->reported[3])) <
                    fabs(log2(knees[pick].bytes / (double)lv->reported[3])))
                    pick = j;
            k = pick;
        }
        knee_of[best] = k;
        lv->measured[best] = (long)knees[k].bytes;
        lv->level_gbs[best] = knees[k].above_gbs;
        next = best + 1;
    }
    for (int l = 1; l <= 3; l++) {
        char rep[32], mea[32];
        long r = lv->reported[l], m = lv->measured[l];
        format_size(rep, sizeof rep, (double)r);
        format_size(mea, sizeof mea, (double)m);
        if (m > 0 && r > 0 && (double)m * LEVEL_AGREE >= (double)r &&
            (double)r * LEVEL_AGREE >= (double)m) {
            lv->used[l] = r;
            snprintf(lv->why[l], sizeof lv->why[l], "reported %s, knee at %s: they agree", rep,
                     mea);
        } else if (m > 0 && r > 0) {
            lv->used[l] = m;
            snprintf(lv->why[l], sizeof lv->why[l], "reported %s, but the read rate falls at "
                     "%s (%.3g -> %.3g GB/s): the measured size is used", rep, mea,
                     knees[knee_of[l]].above_gbs, knees[knee_of[l]].below_gbs);
        } else if (m > 0) {
            lv->used[l] = m;
            snprintf(lv->why[l], sizeof lv->why[l], "none reported; the read rate falls at %s "
                     "(%.3g -> %.3g GB/s)", mea, knees[knee_of[l]].above_gbs,
                     knees[knee_of[l]].below_gbs);
        } else if (r > 0 && swept >= LEVEL_AGREE * (double)r && l == 3) {
            /* The sweep went well past it and the curve never fell there:
             * nothing of that size is faster than what lies outside it. */
            lv->used[l] = 0;
            snprintf(lv->why[l], sizeof lv->why[l], "reported %s, but the read rate does not "
                     "fall anywhere near it (swept to %.3g MiB): no such level is used", rep,
                     swept / (1024.0 * 1024));
        } else if (r > 0) {
            lv->used[l] = r;
            snprintf(lv->why[l], sizeof lv->why[l], "reported %s; the sweep %s: the reported "
                     "size is used", rep, swept < LEVEL_AGREE * (double)r ? "did not reach "
                     "twice that" : "found no knee for it");
        } else {
            lv->used[l] = 0;
            snprintf(lv->why[l], sizeof lv->why[l], "none reported, no knee found");
        }
    }
}
