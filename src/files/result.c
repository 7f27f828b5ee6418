/* result.c - a result's samples: freeing, merging rounds, a round's median. */
#include "result.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double gb_flops(int M, int K, int N)
{
    return 2.0 * (double)M * (double)K * (double)N;
}

void gb_result_free(gb_result *r)
{
    free(r->samples_us);
    free(r->sample_round);
    free(r->round_clocks);
    r->samples_us = NULL;
    r->sample_round = NULL;
    r->round_clocks = NULL;
    r->nround_clocks = 0;
}

double gb_result_round_median(const gb_result *r, int round)
{
    double *v, median = NAN;
    gb_stats st;
    int n = 0;

    if (r->sample_round == NULL || r->reps <= 0)
        return NAN;
    v = malloc((size_t)r->reps * sizeof *v);
    if (v == NULL)
        return NAN;
    for (int i = 0; i < r->reps; i++)
        if (r->sample_round[i] == round)
            v[n++] = r->samples_us[i];
    if (n > 0 && stats_compute(v, (size_t)n, &st) == 0)
        median = st.median;
    free(v);
    return median;
}

/* An unknown figure (NAN, -1) stays unknown in a sum. */
static void add_clock(gb_round_clock *to, const gb_round_clock *c)
{
    to->wall_s += c->wall_s;
    to->cpu_s += c->cpu_s;
    to->steal_s += c->steal_s;
    to->nivcsw = to->nivcsw < 0 || c->nivcsw < 0 ? -1 : to->nivcsw + c->nivcsw;
}

int gb_round_clock_merge(gb_round_clock **clocks, int *n, const gb_round_clock *c)
{
    gb_round_clock *more;

    for (int i = 0; i < *n; i++)
        if ((*clocks)[i].round == c->round) {
            add_clock(&(*clocks)[i], c);
            return 0;
        }
    more = realloc(*clocks, (size_t)(*n + 1) * sizeof *more);
    if (more == NULL)
        return -1;
    more[(*n)++] = *c;
    *clocks = more;
    return 0;
}

int gb_result_merge(gb_result *into, const gb_result *part)
{
    const size_t n = (size_t)into->reps + (size_t)part->reps;
    double *samples = realloc(into->samples_us, n * sizeof *samples);
    int *tags;

    if (samples == NULL)
        return -1;
    into->samples_us = samples;
    for (int i = 0; i < part->nround_clocks; i++)
        if (gb_round_clock_merge(&into->round_clocks, &into->nround_clocks,
                                 &part->round_clocks[i]) != 0)
            return -1;
    /* Round tags follow their samples when both sides have them. */
    if (into->sample_round && part->sample_round) {
        tags = realloc(into->sample_round, n * sizeof *tags);
        if (tags == NULL)
            return -1;
        memcpy(tags + into->reps, part->sample_round, (size_t)part->reps * sizeof *tags);
        into->sample_round = tags;
    } else {
        free(into->sample_round);
        into->sample_round = NULL;
    }
    memcpy(samples + into->reps, part->samples_us, (size_t)part->reps * sizeof *samples);
    into->samples_us = samples;
    into->reps = (int)n;
    into->rounds += part->rounds;
    stats_compute(samples, n, &into->stats);
    into->gflops = into->stats.median > 0.0
                       ? gb_flops(into->shape.M, into->shape.K, into->shape.N) /
                             (into->stats.median * 1e3)
                       : 0.0;
    return 0;
}
