/* ml-loo.c - leave one shape out on a trial database, with no new
 * measurement: for each (shape, threads) of DATABASE, the model trained
 * on the others (as `gemmbench model train`) ranks that shape's measured
 * candidates; printed: the measured time of the one it ranks first over the
 * shape's fastest measured, where that fastest sits in its ranking, and
 * the guard (src/learn/LEARN.md): the shape's analytic point (the space's
 * own point for it, when it was measured) over the fastest, the gain the
 * model predicts for its first over it, the model's error for such a shape
 * (edge: outside the trained M range) and what the guard then runs.  What
 * it judges is the ranking of candidates a search found, not ml_guided's
 * own draws (results/notes/ml-guided.md).
 *
 * build: make build/ml-loo
 * usage: build/ml-loo DATABASE SPACE [SEED]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "learn.h"
#include "sched_space.h"

static int same_shape(const gb_trial_row *a, const gb_trial_row *b)
{
    return a->M == b->M && a->K == b->K && a->N == b->N && a->threads == b->threads &&
           a->dtype == b->dtype;
}

int main(int argc, char **argv)
{
    gb_trial_db db = { 0 };
    gb_space space;
    char err[1024], *point = malloc(GB_SPACE_MAX_TEXT);
    unsigned seed = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 1;
    double log_sum = 0.0, log_guard = 0.0, log_analytic = 0.0, worst = 0.0, worst_guard = 0.0;
    int shapes = 0, with_analytic = 0;

    if (argc < 3) {
        fprintf(stderr, "usage: ml-loo DATABASE SPACE [SEED]\n");
        return 2;
    }
    if (gb_trialdb_load(argv[1], &db, err, sizeof err) != 0 ||
        gb_space_load(argv[2], &space, err, sizeof err) != 0 || point == NULL) {
        fprintf(stderr, "ml-loo: %s\n", err);
        return 2;
    }
    printf("%5s %5s %5s %3s %6s %10s %10s %9s %12s %13s %9s %10s %11s\n", "M", "K", "N", "thr",
           "trials", "best_us", "pick_us", "pick/best", "rank of best", "analytic/best",
           "pred_gain", "error", "guard/best");
    for (int h = 0; h < db.n; h++) {
        gb_trial_db train = { 0 };
        gb_learned *model = NULL;
        gb_space_point p;
        float *X;
        double *us, *pred, best = INFINITY, pick_pred = INFINITY, pick_us = 0.0, best_pred = 0.0;
        double analytic_us = NAN, analytic_pred = NAN, error, guard_us;
        int n = 0, skipped[2], first = 1, rank = 1, edge;

        for (int j = 0; j < h && first; j++) /* each shape once */
            first = !same_shape(&db.rows[j], &db.rows[h]);
        if (!first || !db.rows[h].verified)
            continue;
        gb_space_initial_at(&space, &p, db.rows[h].M, db.rows[h].N, db.rows[h].K,
                            db.rows[h].threads);
        if (gb_space_text(&space, &p, 0, point, GB_SPACE_MAX_TEXT) != 0)
            point[0] = '\0';
        train.rows = malloc((size_t)db.n * sizeof *train.rows);
        X = malloc((size_t)db.n * GB_FEATURES_COUNT * sizeof *X);
        us = malloc((size_t)db.n * sizeof *us);
        pred = malloc((size_t)db.n * sizeof *pred);
        for (int j = 0; j < db.n; j++)
            if (!same_shape(&db.rows[j], &db.rows[h]))
                train.rows[train.n++] = db.rows[j];
        if (gb_learned_train(&train, argv[2], seed, 0, &model, skipped, NULL, 0, err,
                             sizeof err) != 0) {
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
            if (isnan(analytic_us) && strcmp(r->text, point) == 0)
                analytic_us = -(double)n - 1.0; /* its index, until predicted */
            us[n++] = r->median_us;
        }
        if (gb_learned_predict(model, X, n, pred, err, sizeof err) != 0) {
            fprintf(stderr, "ml-loo: %s\n", err);
            return 2;
        }
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
        if (!isnan(analytic_us)) {
            const int a = (int)(-analytic_us) - 1;
            analytic_us = us[a];
            analytic_pred = pred[a];
        }
        error = gb_learned_error_for(model, db.rows[h].M, db.rows[h].K, db.rows[h].N,
                                     db.rows[h].threads, db.rows[h].dtype, &edge);
        guard_us = isnan(analytic_us) ||
                           gb_learned_guard(edge, pick_pred, analytic_pred, error) != GB_GUARD_KEPT
                       ? pick_us
                       : analytic_us;
        printf("%5d %5d %5d %3d %6d %10.1f %10.1f %9.3f %5d of %4d %13.3f %9.3f %6.3f %s %11.3f\n",
               db.rows[h].M, db.rows[h].K, db.rows[h].N, db.rows[h].threads, n, best, pick_us,
               pick_us / best, rank, n, analytic_us / best, analytic_pred / pick_pred,
               exp(error), edge ? "edge" : "in  ", guard_us / best);
        log_sum += log(pick_us / best);
        log_guard += log(guard_us / best);
        worst = fmax(worst, pick_us / best);
        worst_guard = fmax(worst_guard, guard_us / best);
        if (!isnan(analytic_us)) {
            log_analytic += log(analytic_us / best);
            with_analytic++;
        }
        shapes++;
        gb_learned_free(model);
        free(train.rows);
        free(X);
        free(us);
        free(pred);
    }
    printf("geomean over %d shapes, over the fastest measured: the first pick %.3f (worst %.3f), "
           "the guard's %.3f (worst %.3f); the analytic point %.3f (%d shapes)\n",
           shapes, exp(log_sum / shapes), worst, exp(log_guard / shapes), worst_guard,
           exp(log_analytic / (with_analytic ? with_analytic : 1)), with_analytic);
    gb_space_free(&space);
    free(point);
    gb_trialdb_free(&db);
    return 0;
}
