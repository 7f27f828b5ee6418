/*
 * result_merge.c - a later round's result file folded into an earlier one
 * (gemmbench ab merges each build's rounds so).  The entries are matched by
 * gb_entry_same and merged by gb_result_merge, as the run merges its own
 * rounds; the writer rewrites what changed; see resultfile.h.
 */
#include "output.h"
#include "result.h"
#include "resultfile.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A result holding a copy of e's samples, round tags and round clocks, for
 * gb_result_merge. */
static int result_of(const gb_entry *e, gb_result *r)
{
    memset(r, 0, sizeof *r);
    r->shape.M = e->M;
    r->shape.K = e->K;
    r->shape.N = e->N;
    r->threads = e->threads;
    r->reps = e->nsamples;
    r->rounds = e->rounds;
    r->samples_us = malloc((size_t)e->nsamples * sizeof *r->samples_us);
    if (r->samples_us == NULL)
        return -1;
    memcpy(r->samples_us, e->samples_us, (size_t)e->nsamples * sizeof *r->samples_us);
    if (e->sample_rounds) {
        r->sample_round = malloc((size_t)e->nsamples * sizeof *r->sample_round);
        if (r->sample_round == NULL) {
            gb_result_free(r);
            return -1;
        }
        memcpy(r->sample_round, e->sample_rounds, (size_t)e->nsamples * sizeof *r->sample_round);
    }
    if (e->nround_clocks > 0) {
        r->round_clocks = malloc((size_t)e->nround_clocks * sizeof *r->round_clocks);
        if (r->round_clocks == NULL) {
            gb_result_free(r);
            return -1;
        }
        memcpy(r->round_clocks, e->round_clocks, (size_t)e->nround_clocks * sizeof *r->round_clocks);
        r->nround_clocks = e->nround_clocks;
    }
    return 0;
}

static int index_of(const gb_result_file *f, const gb_entry *e)
{
    for (int i = 0; i < f->nentries; i++)
        if (gb_entry_same(&f->entries[i], e))
            return i;
    return -1;
}

/* Entry i's samples merged with e's, written into f's document. */
static int merge_entry(gb_result_file *f, int i, const gb_entry *e)
{
    gb_result into, part;
    int rc = -1;

    if (result_of(&f->entries[i], &into) != 0)
        return -1;
    if (result_of(e, &part) == 0) {
        if (gb_result_merge(&into, &part) == 0)
            rc = gb_json_put_samples(gb_json_result_at(f->doc, i), &into,
                                     gb_result_file_peak_dtype(f, e->dtype, into.threads));
        gb_result_free(&part);
    }
    gb_result_free(&into);
    return rc;
}

/* The plain baseline (no parameters, B not pre-packed) is what every
 * speed-up divides by, at the same point of the sweep. */
static int is_plain_baseline(const gb_entry *e)
{
    return strcmp(e->variant, "baseline") == 0 && strcmp(e->label, "baseline") == 0;
}

static void put_speedups(gb_result_file *f)
{
    for (int i = 0; i < f->nentries; i++) {
        const gb_entry *e = &f->entries[i];
        double base = NAN;
        for (int k = 0; k < f->nentries; k++)
            if (is_plain_baseline(&f->entries[k]) && gb_entry_same_point(&f->entries[k], e))
                base = f->entries[k].median_us;
        gb_json_put_speedup(gb_json_result_at(f->doc, i), base / e->median_us);
    }
}

int gb_result_file_merge(gb_result_file *f, const gb_result_file *round, char *err,
                         size_t errlen)
{
    int n = f->nentries;

    for (int j = 0; j < round->nentries; j++) {
        int i = index_of(f, &round->entries[j]);
        int rc = i >= 0 && i < n
                     ? merge_entry(f, i, &round->entries[j])
                     : gb_json_append_copy(f->doc, gb_json_result_at(round->doc, j));
        if (rc != 0) {
            snprintf(err, errlen, "%s: out of memory merging %s", f->path, round->path);
            return -1;
        }
    }
    /* The medians changed: read them back, then the speed-ups follow them. */
    if (gb_result_file_reread(f, err, errlen) != 0)
        return -1;
    put_speedups(f);
    return gb_result_file_reread(f, err, errlen);
}
