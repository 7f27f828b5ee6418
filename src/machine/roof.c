/* roof.c - intensity, the level that applies and the attainable rate; see roof.h. */
#include "roof.h"

#include <math.h>
#include <string.h>

double gb_compulsory_bytes_dtype(gb_dtype t, int M, int K, int N)
{
    return (double)gb_dtype_size_a(t) * M * K + (double)gb_dtype_size_b(t) * K * N +
           (double)gb_dtype_size_c(t) * M * N;
}

double gb_intensity_dtype(gb_dtype t, int M, int K, int N)
{
    return 2.0 * M * K * N / gb_compulsory_bytes_dtype(t, M, K, N);
}

double gb_compulsory_bytes(int M, int K, int N)
{
    return gb_compulsory_bytes_dtype(GB_DTYPE_F32, M, K, N);
}

double gb_intensity(int M, int K, int N)
{
    return gb_intensity_dtype(GB_DTYPE_F32, M, K, N);
}

int gb_roof_level(double ws, long l2, long l3, int threads, int cold)
{
    if (cold)
        return GB_BW_MEM;
    /* L2 is private: threads on distinct cores hold threads of them. */
    if (l2 > 0 && ws <= (double)l2 * (threads > 1 ? threads : 1))
        return GB_BW_L2;
    if (l3 > 0 && ws <= (double)l3)
        return GB_BW_L3;
    return GB_BW_MEM;
}

int gb_roof_measured_low(double roof_pct)
{
    return isfinite(roof_pct) && roof_pct > GB_ROOF_PCT_LOW;
}

const char *gb_roof_bound_name(int bound)
{
    return bound == GB_ROOF_COMPUTE ? "compute" : gb_bw_level_name(bound);
}

/* The higher of a figure pair's best read and best triad. */
static double best_of(const gb_bw_level *lv, int all)
{
    return lv->read_gbs[all] > lv->triad_gbs[all] ? lv->read_gbs[all] : lv->triad_gbs[all];
}

double gb_roof_bandwidth(const gb_bandwidth *bw, int level, int all)
{
    double b = best_of(&bw->level[level], all);

    if (b <= 0.0)
        return 0.0;
    /* All threads move at least what one does: a lower figure is a trial
     * in which a thread was descheduled (a busy machine), not a limit. */
    if (all && best_of(&bw->level[level], 0) > b)
        b = best_of(&bw->level[level], 0);
    /* Data in a level is read at least as fast as from the levels outside it. */
    for (int outer = level + 1; outer < GB_BW_LEVELS; outer++) {
        double o = gb_roof_bandwidth(bw, outer, all);
        if (o > b)
            b = o;
    }
    return b;
}

int gb_roof_for(const gb_machine *m, int M, int K, int N, int threads, int cold, gb_roof *r)
{
    return gb_roof_for_dtype(m, GB_DTYPE_F32, M, K, N, threads, cold, r);
}

int gb_roof_for_dtype(const gb_machine *m, gb_dtype t, int M, int K, int N, int threads,
                      int cold, gb_roof *r)
{
    const int all = threads > 1;
    double roof;

    memset(r, 0, sizeof *r);
    r->intensity = gb_intensity_dtype(t, M, K, N);
    r->working_set = gb_compulsory_bytes_dtype(t, M, K, N);
    r->level = gb_roof_level(r->working_set, gb_machine_level_bytes(m, 2),
                             gb_machine_level_bytes(m, 3), threads, cold);
    /* A working set past L2 on a machine without a measured L3 (an L3 too
     * small to measure apart from L2) streams from memory. */
    if (r->level == GB_BW_L3 && gb_roof_bandwidth(&m->bw, GB_BW_L3, all) <= 0.0)
        r->level = GB_BW_MEM;
    r->bandwidth_gbs = gb_roof_bandwidth(&m->bw, r->level, all);
    if (t == GB_DTYPE_F32)
        r->peak_gflops = all ? m->peak_gflops : m->peak_gflops_1t;
    else
        r->peak_gflops = all ? m->peak_dtype[t] : m->peak_dtype_1t[t];
    r->attainable_gflops = NAN;
    r->bound = GB_ROOF_COMPUTE;
    if (r->bandwidth_gbs <= 0.0 || r->peak_gflops <= 0.0)
        return -1;
    roof = r->intensity * r->bandwidth_gbs;
    r->attainable_gflops = roof < r->peak_gflops ? roof : r->peak_gflops;
    r->bound = roof < r->peak_gflops ? r->level : GB_ROOF_COMPUTE;
    return 0;
}
