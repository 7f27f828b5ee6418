/* ml-loo.c - leave one shape out on a trial database, with no new
 * measurement: for each (shape, threads) of DATABASE, the model trained
 * on the others (as `gemmbench model train`) ranks that shape's measured
 * candidates; printed: the measured time of the one it ranks first over the
 * shape's fastest measured, and where that fastest sits in its ranking.
 * What it judges is the ranking of candidates a search found, not
 * ml_guided's own draws (results/notes/ml-guided.md).
 *
 * build: make build/ml-loo
 * usage: build/ml-loo DATABASE SPACE [SEED]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "learn.h"

static int same_shape(const gb_trial_row *a, const gb_trial_row *b)
{
    return a->M == b->M && a->K == b->K && a->N == b->N && a->threads == b->threads;
}

int main(int argc, char **argv)
{
    gb_trial_db db = { 0 };
    char err[1024];
    unsigned seed = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 1;
    double log_sum = 0.0;
    int shapes = 0;

    if (argc < 3) {
        fprintf(stderr, "usage: ml-loo DATABASE SPACE [SEED]\n");
        return 2;
    }
    if (gb_trialdb_load(argv[1], &db, err, sizeof err) != 0) {
        fprintf(stderr, "ml-loo: %s\n", err);
        return 2;
    }
    printf("%5s %5s %5s %3s %6s %10s %10s %8s %s\n", "M", "K", "N", "thr", "trials",
           "best_us", "pick_us", "pick/best", "rank of best");
    for (int h = 0; h < db.n; h++) {
        gb_trial_db train = { 0 };
        gb_learned *model = NULL;
        float *X;
        double *us, best = INFINITY, pick_pred = INFINITY, pick_us = 0.0, best_pred = 0.0;
        int n = 0, skipped, first = 1, rank = 1;

        for (int j = 0; j < h && first; j++) /* each shape once */
            first = !same_shape(&db.rows[j], &db.rows[h]);
        if (!first || !db.rows[h].verified)
            continue;
        train.rows = malloc((size_t)db.n * sizeof *train.rows);
        X = malloc((size_t)db.n * GB_FEATURES_COUNT * sizeof *X);
        us = malloc((size_t)db.n * sizeof *us);
        for (int j = 0; j < db.n; j++)
            if (!same_shape(&db.rows[j], &db.rows[h]))
                train.rows[train.n++] = db.rows[j];
        if (gb_learned_train(&train, argv[2], seed, 0, &model, &skipped, err, sizeof err) != 0) {
            fprintf(stderr, "ml-loo: %s\n", err);
            return 2;
        }
        for (int j = 0; j < db.n; j++) {
            const gb_trial_row *r = &db.rows[j];
            if (!same_shape(r, &db.rows[h]) || !r->verified)
                continue;
            if (gb_learned_features("db", r->text, r->M, r->K, r->N, r->threads, &r->machine,
                                    X + (size_t)n * GB_FEATURES_COUNT, err, sizeof err) != 0)
                continue;
            us[n++] = r->median_us;
        }
        {
            double *pred = malloc((size_t)n * sizeof *pred);
            gb_learned_predict(model, X, n, pred, err, sizeof err);
            for (int i = 0; i < n; i++) {
                if (us[i] < best) {
                    best = us[i];
                    best_pred = pred[i];
                }
                if (pred[i] < pick_pred) {
                    pick_pred = pred[i];
                    pick_us = us[i];
                }
            }
            for (int i = 0; i < n; i++)
                rank += pred[i] < best_pred;
            free(pred);
        }
        printf("%5d %5d %5d %3d %6d %10.1f %10.1f %8.3f %d of %d\n", db.rows[h].M, db.rows[h].K,
               db.rows[h].N, db.rows[h].threads, n, best, pick_us, pick_us / best, rank, n);
        log_sum += log(pick_us / best);
        shapes++;
        gb_learned_free(model);
        free(train.rows);
        free(X);
        free(us);
    }
    printf("geomean pick/best over %d shapes: %.3f\n", shapes, exp(log_sum / shapes));
    gb_trialdb_free(&db);
    return 0;
}
