/*
 * learned.c - the cost model of learned schedules and its file: trees
 * (xgb.c) fitted to ln(median_us / (2 M N K)) of a database's trials, each row the
 * features (sched_features.h) of the trial's schedule planned for its
 * shape.  The file is a JSON envelope that says what the trees read and
 * were trained on (schema and version, GB_FEATURES_VERSION and the feature
 * names in order, the machine, the seed, the space the candidates come
 * from, with its text) around XGBoost's own JSON model; it is read
 * strictly, and a model that does not match is refused with the reason.
 * One file of just over 1,000 lines: training (with its out-of-sample error,
 * which fills the model as it is fitted), the file's writer and strict
 * reader share struct gb_learned, private here; split, they would share
 * it through a header for no reader's gain.  The error's measurement
 * (held_out_fit, cross_validate) is the piece to move first if it grows.
 */
#define _POSIX_C_SOURCE 200809L
#include "inputfile.h"
#include "learn.h"
#include "output.h"
#include "parse.h"
#include "sched_space.h"
#include "sweep.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gb_learned {
    gb_xgb *trees;
    gb_learn_machine machine;
    unsigned seed;
    int trials, shapes;
    char space_file[256];
    char *space_text;
    int nelites;
    gb_learned_elite *elites;   /* fastest first within a shape */
    int ntrained;
    gb_learned_shape *trained;  /* the (shape, threads) trained on */
    gb_learned_error error;     /* out of sample, by shapes held out */
};

void gb_learned_free(gb_learned *l)
{
    if (l == NULL)
        return;
    gb_xgb_free(l->trees);
    free(l->space_text);
    for (int i = 0; i < l->nelites; i++)
        free(l->elites[i].text);
    free(l->elites);
    free(l->trained);
    free(l);
}

int gb_learned_features(const char *file, const char *text, int M, int K, int N, int threads,
                        const gb_learn_machine *m, float out[GB_FEATURES_COUNT], char *err,
                        size_t errlen)
{
    static const gb_params none;
    gb_sched nest;
    gb_sched_plan *pl;
    gb_sched_machine sm;

    if (gb_sched_from_text(file, text, strlen(text), &nest, err, errlen) != 0)
        return -1;
    if ((pl = gb_sched_plan_for(&nest, &none, M, N, K, threads, err, errlen)) == NULL)
        return -2;
    gb_learn_machine_sched(m, &sm);
    gb_features_of(pl, &sm, threads, out);
    gb_sched_plan_free(pl);
    return 0;
}

/* Reads a space file for the model to carry. */
static char *space_of(const char *path, char *err, size_t errlen)
{
    gb_space space;
    size_t len;
    char *text = gb_learn_read_file(path, GB_SCHED_MAX_FILE, &len, err, errlen);

    if (text == NULL)
        return NULL;
    if (gb_space_parse(path, text, len, &space, err, errlen) != 0) {
        free(text);
        return NULL;
    }
    gb_space_free(&space);
    return text;
}

/* A row as the elites are ordered: by shape and threads, then by time,
 * then by place in the database (a total order: the same model for the
 * same databases). */
typedef struct ranked_row {
    const gb_trial_row *r;
    int at;
} ranked_row;

static int same_shape(const gb_trial_row *p, const gb_trial_row *q)
{
    return p->M == q->M && p->K == q->K && p->N == q->N && p->threads == q->threads &&
           p->dtype == q->dtype;
}

static int by_shape_then_time(const void *a, const void *b)
{
    const ranked_row *x = a, *y = b;
    const gb_trial_row *p = x->r, *q = y->r;
    const int key_p[5] = { p->M, p->K, p->N, p->threads, (int)p->dtype };
    const int key_q[5] = { q->M, q->K, q->N, q->threads, (int)q->dtype };

    for (int k = 0; k < 5; k++)
        if (key_p[k] != key_q[k])
            return key_p[k] < key_q[k] ? -1 : 1;
    if (p->median_us != q->median_us)
        return p->median_us < q->median_us ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

/* The per fastest distinct schedules of each (shape, threads) among the
 * rows used, into l; a text longer than a point of a space (which the
 * model file refuses) is passed over.  0, or -1 (out of memory). */
static int take_elites(gb_learned *l, const gb_trial_db *db, const char *used, int per)
{
    ranked_row *order = malloc((size_t)(db->n > 0 ? db->n : 1) * sizeof *order);
    int n = 0, rc = -1;

    if (order == NULL)
        return -1;
    for (int i = 0; i < db->n; i++)
        if (used[i])
            order[n++] = (ranked_row){ &db->rows[i], i };
    qsort(order, (size_t)n, sizeof *order, by_shape_then_time);
    l->elites = calloc((size_t)(n > 0 ? n : 1), sizeof *l->elites);
    if (l->elites == NULL)
        goto done;
    for (int a = 0, group = 0; a < n && l->nelites < GB_MODEL_MAX_ELITES; a++) {
        const gb_trial_row *r = order[a].r;
        int dup = strlen(r->text) >= GB_SPACE_MAX_TEXT;

        if (a > 0 && !same_shape(order[a - 1].r, r))
            group = l->nelites;
        for (int e = group; e < l->nelites; e++)
            dup |= strcmp(l->elites[e].text, r->text) == 0;
        if (l->nelites - group >= per || dup) /* the shape has its elites, or this text */
            continue;
        l->elites[l->nelites] = (gb_learned_elite){ r->M, r->K, r->N, r->threads, r->dtype,
                                                    r->median_us,
                                                    strdup(r->text) };
        if (l->elites[l->nelites].text == NULL)
            goto done;
        l->nelites++;
    }
    rc = 0;
done:
    free(order);
    return rc;
}

int gb_learned_outside(const gb_learned_shape *trained, int n, int M, int K, int N, int threads,
                       gb_dtype dtype)
{
    int below = 0, above = 0;

    for (int i = 0; i < n; i++) {
        const gb_learned_shape *t = &trained[i];
        if (t->K != K || t->N != N || t->threads != threads || t->dtype != dtype)
            continue;
        below |= t->M <= M;
        above |= t->M >= M;
    }
    return !(below && above);
}

int gb_learned_promises(double gain)
{
    return gain > log(GB_GUARD_MIN_GAIN);
}

int gb_learned_guard(int edge, double best_us, double analytic_us, double error)
{
    const double gain = log(analytic_us / best_us);

    if (!gb_learned_promises(gain))
        return GB_GUARD_KEPT;
    if (!edge)
        return GB_GUARD_INSIDE;
    /* NAN compares false: an error never measured trusts no gain */
    return gain > error ? GB_GUARD_BEATS : GB_GUARD_KEPT;
}

int gb_learned_trained_on(const gb_learned *l, gb_dtype dtype)
{
    for (int s = 0; s < l->ntrained; s++)
        if (l->trained[s].dtype == dtype)
            return 1;
    return 0;
}

double gb_learned_error_for(const gb_learned *l, int M, int K, int N, int threads,
                            gb_dtype dtype, int *edge)
{
    *edge = gb_learned_outside(l->trained, l->ntrained, M, K, N, threads, dtype);
    return *edge ? l->error.edge : l->error.inside;
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q quantile of v[n] (nearest rank; v sorted in place), at least 0. */
static double quantile_of(double *v, int n, double q)
{
    int at;

    if (n == 0)
        return NAN;
    qsort(v, (size_t)n, sizeof *v, by_value);
    at = (int)ceil(q * n) - 1;
    at = at < 0 ? 0 : at >= n ? n - 1 : at;
    return v[at] > 0.0 ? v[at] : 0.0;
}

/* One fit without the shapes marked in out_of[] (indices into l->trained),
 * then for each of them every trial's residual less its analytic point's
 * appended to d (*nd).  rows: the training rows, shape_of[r] each one's
 * index in l->trained, analytic[s] the row of shape s's analytic point or
 * -1 (its residual is then the shape's median).  1, 0 when the fold has
 * too few rows on either side (passed over), or -1 with err. */
static int held_out_fit(const gb_learned *l, const float *X, const float *y, int rows,
                        const int *shape_of, const int *analytic, const char *out_of,
                        double *d, int *nd, char *err, size_t errlen)
{
    const int F = GB_FEATURES_COUNT;
    float *Xt = malloc((size_t)rows * F * sizeof *Xt), *yt = malloc((size_t)rows * sizeof *yt);
    float *pred = malloc((size_t)rows * sizeof *pred);
    double *r = malloc((size_t)rows * sizeof *r), *sorted = malloc((size_t)rows * sizeof *sorted);
    int *held = malloc((size_t)rows * sizeof *held);
    int nt = 0, nh = 0, rc = -1;
    gb_xgb *x = NULL;

    if (!Xt || !yt || !pred || !r || !sorted || !held) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    for (int i = 0; i < rows; i++) {
        if (out_of[shape_of[i]]) {
            held[nh++] = i;
            continue;
        }
        memcpy(Xt + (size_t)nt * F, X + (size_t)i * F, F * sizeof *Xt);
        yt[nt++] = y[i];
    }
    rc = 0;
    if (nt < 8 || nh == 0)
        goto done;
    rc = -1;
    if (gb_xgb_train(Xt, yt, nt, F, l->seed, &x, err, errlen) != 0)
        goto done;
    /* the held-out rows into Xt's first nh rows (the fit has its own copy) */
    for (int i = 0; i < nh; i++)
        memcpy(Xt + (size_t)i * F, X + (size_t)held[i] * F, F * sizeof *Xt);
    if (gb_xgb_predict(x, Xt, nh, pred, err, errlen) != 0)
        goto done;
    for (int i = 0; i < nh; i++)
        r[i] = (double)y[held[i]] - (double)pred[i];
    for (int s = 0; s < l->ntrained; s++) {
        double base = NAN;
        int m = 0;
        if (!out_of[s])
            continue;
        for (int i = 0; i < nh; i++)
            if (shape_of[held[i]] == s) {
                if (held[i] == analytic[s])
                    base = r[i];
                sorted[m++] = r[i];
            }
        if (m == 0)
            continue;
        if (isnan(base)) { /* no analytic trial: the shape's median residual */
            qsort(sorted, (size_t)m, sizeof *sorted, by_value);
            base = m % 2 ? sorted[m / 2] : 0.5 * (sorted[m / 2 - 1] + sorted[m / 2]);
        }
        for (int i = 0; i < nh; i++)
            if (shape_of[held[i]] == s)
                d[(*nd)++] = r[i] - base;
    }
    rc = 1;
done:
    gb_xgb_free(x);
    free(Xt);
    free(yt);
    free(pred);
    free(r);
    free(sorted);
    free(held);
    return rc;
}

/* The model's error out of sample into l->error (learn.h): each edge shape
 * (outside the others' range) held out alone, up to GB_LEARNED_EDGE_FOLDS
 * of them; the inside shapes in GB_LEARNED_INSIDE_FOLDS fits, round robin
 * (each stays inside: the ends of its K, N and threads are never held out
 * with it).  text[r]: row r's schedule; the analytic point of a shape is
 * the space's own point for it (gb_space_initial_at), found by its text. */
static int cross_validate(gb_learned *l, const float *X, const float *y, int rows,
                          const int *shape_of, const char *const *text, char *err, size_t errlen)
{
    const int S = l->ntrained;
    int *analytic = malloc((size_t)S * sizeof *analytic);
    char *out_of = calloc((size_t)S, 1), *edge = calloc((size_t)S, 1);
    double *d = malloc((size_t)rows * sizeof *d);
    char *point = malloc(GB_SPACE_MAX_TEXT);
    gb_space space;
    int nd = 0, ninside = 0, rc = -1;

    l->error = (gb_learned_error){ NAN, NAN, 0, 0 };
    if (!analytic || !out_of || !edge || !d || !point) {
        free(analytic);
        free(out_of);
        free(edge);
        free(d);
        free(point);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (gb_space_parse(l->space_file, l->space_text, strlen(l->space_text), &space, err,
                       errlen) != 0)
        goto done;
    for (int s = 0; s < S; s++) {
        const gb_learned_shape *t = &l->trained[s];
        gb_space_point p;
        analytic[s] = -1;
        gb_space_initial_at(&space, &p, t->M, t->N, t->K, t->threads);
        if (gb_space_text(&space, &p, 0, point, GB_SPACE_MAX_TEXT) == 0)
            for (int i = 0; i < rows && analytic[s] < 0; i++)
                if (shape_of[i] == s && strcmp(text[i], point) == 0)
                    analytic[s] = i;
        /* outside the others? (itself swapped to the end, out of the count) */
        {
            gb_learned_shape mine = l->trained[s];
            l->trained[s] = l->trained[S - 1];
            edge[s] = (char)gb_learned_outside(l->trained, S - 1, mine.M, mine.K, mine.N,
                                              mine.threads, mine.dtype);
            l->trained[s] = mine;
        }
    }
    gb_space_free(&space);
    for (int s = 0, folds = 0; S > 1 && s < S && folds < GB_LEARNED_EDGE_FOLDS; s++) {
        if (!edge[s])
            continue;
        int ran;
        out_of[s] = 1;
        if ((ran = held_out_fit(l, X, y, rows, shape_of, analytic, out_of, d, &nd, err,
                                errlen)) < 0)
            goto done;
        out_of[s] = 0;
        folds++;
        l->error.edge_shapes += ran;
    }
    l->error.edge = quantile_of(d, nd, GB_LEARNED_ERROR_QUANTILE);
    nd = 0;
    for (int f = 0; f < GB_LEARNED_INSIDE_FOLDS; f++) {
        int any = 0, ran;
        memset(out_of, 0, (size_t)S);
        for (int s = 0, k = 0; s < S; s++)
            if (!edge[s] && k++ % GB_LEARNED_INSIDE_FOLDS == f)
                any = out_of[s] = 1;
        if (!any)
            continue;
        if ((ran = held_out_fit(l, X, y, rows, shape_of, analytic, out_of, d, &nd, err,
                                errlen)) < 0)
            goto done;
        for (int s = 0; ran && s < S; s++)
            ninside += out_of[s];
    }
    l->error.inside_shapes = ninside;
    l->error.inside = quantile_of(d, nd, GB_LEARNED_ERROR_QUANTILE);
    rc = 0;
done:
    free(analytic);
    free(out_of);
    free(edge);
    free(d);
    free(point);
    return rc;
}

/* The (shape, threads) of row r in l->trained, added when new: its index,
 * or -1 (out of memory). */
static int shape_index(gb_learned *l, const gb_trial_row *r, int cap)
{
    for (int s = 0; s < l->ntrained; s++) {
        const gb_learned_shape *t = &l->trained[s];
        if (t->M == r->M && t->K == r->K && t->N == r->N && t->threads == r->threads &&
            t->dtype == r->dtype)
            return s;
    }
    if (l->ntrained == cap)
        return -1;
    l->trained[l->ntrained] = (gb_learned_shape){ r->M, r->K, r->N, r->threads, r->dtype };
    return l->ntrained++;
}

int gb_learned_train(const gb_trial_db *db, const char *space_path, unsigned seed, int elites,
                     gb_learned **out, int skipped[2], char *stale, size_t stalelen,
                     char *err, size_t errlen)
{
    gb_learned *l = calloc(1, sizeof *l);
    const size_t n = (size_t)(db->n > 0 ? db->n : 1);
    float *X = malloc(n * GB_FEATURES_COUNT * sizeof *X);
    float *y = malloc(n * sizeof *y);
    char *used = calloc(n, 1);
    int *shape_of = malloc(n * sizeof *shape_of);
    const char **text = malloc(n * sizeof *text);
    int rows = 0, first = -1, rc = -1, fc;

    *out = NULL;
    skipped[0] = skipped[1] = 0;
    if (stalelen > 0)
        stale[0] = '\0';
    if (l == NULL || !X || !y || !used || !shape_of || !text ||
        (l->trained = malloc(n * sizeof *l->trained)) == NULL) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    if ((l->space_text = space_of(space_path, err, errlen)) == NULL)
        goto done;
    gb_printable(space_path, 200, l->space_file, sizeof l->space_file);
    /* The machine of the first verified trial: a model is of one kind of
     * machine, and the rows of any other are left out (counted). */
    for (int i = 0; i < db->n; i++) {
        const gb_trial_row *r = &db->rows[i];
        char why[GB_ERR_LEN];
        if (!r->verified)
            continue;
        if (first < 0) {
            first = i;
            l->machine = r->machine;
        }
        if (gb_learn_machine_same(&r->machine, &l->machine, why, sizeof why) != 0) {
            skipped[0]++;
            continue;
        }
        fc = gb_learned_features("schedule", r->text, r->M, r->K, r->N, r->threads, &r->machine,
                                 X + (size_t)rows * GB_FEATURES_COUNT, why, sizeof why);
        if (fc == -2) {
            /* checks, but no longer plans for its shape: measured by a
             * build whose model chose other blocks (a cache_write tile
             * then under its bound, say); left out, counted, the first
             * said */
            if (skipped[1]++ == 0 && stalelen > 0)
                snprintf(stale, stalelen, "trial %d (%dx%dx%d): %s", i + 1, r->M, r->K, r->N,
                         why);
            continue;
        }
        if (fc != 0) {
            snprintf(err, errlen, "trial %d (%dx%dx%d): %s", i + 1, r->M, r->K, r->N, why);
            goto done;
        }
        /* time per operation: the shape's size is no longer what the
         * trees must split on first (it carried 74 % of their gain), and
         * a shape between two trained ones is not predicted as one of
         * them (trees do not interpolate) */
        y[rows] = (float)(log(r->median_us) -
                          log(gb_features_flops(X + (size_t)rows * GB_FEATURES_COUNT)));
        shape_of[rows] = shape_index(l, r, db->n);
        text[rows] = r->text;
        rows++;
        used[i] = 1;
    }
    /* Fewer rows than this fit nothing a ranking could trust. */
    if (rows < 8) {
        snprintf(err, errlen, "%d verified trial(s) of one machine: at least 8 are needed "
                 "(tune --space ... --database FILE measures them)", rows);
        goto done;
    }
    l->seed = seed;
    if (gb_xgb_train(X, y, rows, GB_FEATURES_COUNT, seed, &l->trees, err, errlen) != 0 ||
        cross_validate(l, X, y, rows, shape_of, text, err, errlen) != 0)
        goto done;
    l->trials = rows;
    l->shapes = l->ntrained;
    if (take_elites(l, db, used, elites) != 0) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    *out = l;
    l = NULL;
    rc = 0;
done:
    gb_learned_free(l);
    free(X);
    free(y);
    free(used);
    free(shape_of);
    free(text);
    return rc;
}

/* ---- the file ------------------------------------------------------------ */

static const char *const model_keys[] = { "schema", "version", "features_version", "features",
                                          "target", "machine", "seed", "trials", "shapes",
                                          "space", "elites", "trained", "error", "xgboost",
                                          NULL };
static const char *const shape_keys[] = { "M", "K", "N", "threads", "dtype", NULL };
static const char *const error_keys[] = { "quantile", "edge", "edge_shapes", "inside",
                                          "inside_shapes", NULL };
static const char *const space_keys[] = { "file", "text", NULL };
static const char *const elite_keys[] = { "M", "K", "N", "threads", "dtype", "median_us",
                                          "schedule",
                                          NULL };

/* The elites as a JSON array, or NULL. */
static cJSON *elites_json(const gb_learned *l)
{
    cJSON *a = cJSON_CreateArray();

    for (int i = 0; a && i < l->nelites; i++) {
        const gb_learned_elite *e = &l->elites[i];
        cJSON *o = cJSON_CreateObject();
        if (o == NULL || !cJSON_AddItemToArray(a, o) || !cJSON_AddNumberToObject(o, "M", e->M) ||
            !cJSON_AddNumberToObject(o, "K", e->K) || !cJSON_AddNumberToObject(o, "N", e->N) ||
            !cJSON_AddNumberToObject(o, "threads", e->threads) ||
            !cJSON_AddStringToObject(o, "dtype", gb_dtype_name(e->dtype)) ||
            !cJSON_AddNumberToObject(o, "median_us", e->median_us) ||
            !cJSON_AddStringToObject(o, "schedule", e->text)) {
            cJSON_Delete(a);
            return NULL;
        }
    }
    return a;
}
#define TARGET "ln(median_us / (2 M N K))"

/* The shapes trained on, as a JSON array, or NULL. */
static cJSON *trained_json(const gb_learned *l)
{
    cJSON *a = cJSON_CreateArray();

    for (int i = 0; a && i < l->ntrained; i++) {
        const gb_learned_shape *t = &l->trained[i];
        cJSON *o = cJSON_CreateObject();
        if (o == NULL || !cJSON_AddItemToArray(a, o) || !cJSON_AddNumberToObject(o, "M", t->M) ||
            !cJSON_AddNumberToObject(o, "K", t->K) || !cJSON_AddNumberToObject(o, "N", t->N) ||
            !cJSON_AddNumberToObject(o, "threads", t->threads) ||
            !cJSON_AddStringToObject(o, "dtype", gb_dtype_name(t->dtype))) {
            cJSON_Delete(a);
            return NULL;
        }
    }
    return a;
}

/* A number, or null for NAN. */
static int add_maybe(cJSON *o, const char *key, double v)
{
    return isnan(v) ? cJSON_AddNullToObject(o, key) != NULL
                    : cJSON_AddNumberToObject(o, key, v) != NULL;
}

/* The error out of sample as a JSON object, or NULL. */
static cJSON *error_json(const gb_learned *l)
{
    cJSON *o = cJSON_CreateObject();

    if (o == NULL || !cJSON_AddNumberToObject(o, "quantile", GB_LEARNED_ERROR_QUANTILE) ||
        !add_maybe(o, "edge", l->error.edge) ||
        !cJSON_AddNumberToObject(o, "edge_shapes", l->error.edge_shapes) ||
        !add_maybe(o, "inside", l->error.inside) ||
        !cJSON_AddNumberToObject(o, "inside_shapes", l->error.inside_shapes)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int gb_learned_save(const gb_learned *l, const char *path, char *err, size_t errlen)
{
    cJSON *doc = cJSON_CreateObject(), *names = cJSON_CreateArray(), *space = cJSON_CreateObject();
    cJSON *machine = gb_learn_machine_json(&l->machine), *elites = NULL, *extra = NULL;
    char *trees = NULL, *text = NULL;
    size_t len;
    int ok, rc = -1;

    if (gb_xgb_save(l->trees, &trees, &len, err, errlen) != 0)
        goto done;
    ok = doc && names && space && machine;
    for (int c = 0; ok && c < GB_FEATURES_COUNT; c++)
        ok = cJSON_AddItemToArray(names, cJSON_CreateString(gb_features_name(c)));
    ok = ok && cJSON_AddStringToObject(space, "file", l->space_file) &&
         cJSON_AddStringToObject(space, "text", l->space_text);
    ok = ok && cJSON_AddStringToObject(doc, "schema", GB_MODEL_SCHEMA) &&
         cJSON_AddNumberToObject(doc, "version", GB_MODEL_VERSION) &&
         cJSON_AddNumberToObject(doc, "features_version", GB_FEATURES_VERSION) &&
         cJSON_AddItemToObject(doc, "features", names);
    if (ok)
        names = NULL;
    ok = ok && cJSON_AddStringToObject(doc, "target", TARGET) &&
         cJSON_AddItemToObject(doc, "machine", machine);
    if (ok)
        machine = NULL;
    ok = ok && cJSON_AddNumberToObject(doc, "seed", l->seed) &&
         cJSON_AddNumberToObject(doc, "trials", l->trials) &&
         cJSON_AddNumberToObject(doc, "shapes", l->shapes) &&
         cJSON_AddItemToObject(doc, "space", space);
    if (ok)
        space = NULL;
    ok = ok && (elites = elites_json(l)) != NULL && cJSON_AddItemToObject(doc, "elites", elites);
    if (ok)
        elites = NULL;
    ok = ok && (extra = trained_json(l)) != NULL && cJSON_AddItemToObject(doc, "trained", extra);
    if (ok)
        extra = NULL;
    ok = ok && (extra = error_json(l)) != NULL && cJSON_AddItemToObject(doc, "error", extra);
    if (ok)
        extra = NULL;
    ok = ok && cJSON_AddStringToObject(doc, "xgboost", trees);
    if (!ok || (text = cJSON_Print(doc)) == NULL) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    len = strlen(text);
    text[len] = '\0';
    {
        char *nl = malloc(len + 2);
        if (nl == NULL) {
            snprintf(err, errlen, "out of memory");
            goto done;
        }
        memcpy(nl, text, len);
        nl[len] = '\n';
        nl[len + 1] = '\0';
        rc = gb_write_file_atomic(path, nl, len + 1, err, errlen);
        free(nl);
    }
done:
    free(text);
    free(trees);
    cJSON_Delete(doc);
    cJSON_Delete(names);
    cJSON_Delete(space);
    cJSON_Delete(machine);
    cJSON_Delete(elites);
    cJSON_Delete(extra);
    return rc;
}

/* An integer in [lo, hi] at key, or -1 with why. */
static int int_in(const cJSON *o, const char *key, double lo, double hi, long *out, char *why,
                  size_t whylen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < lo ||
        v->valuedouble > hi) {
        snprintf(why, whylen, "\"%s\" is not an integer in %.0f..%.0f", key, lo, hi);
        return -1;
    }
    *out = (long)v->valuedouble;
    return 0;
}

/* A type at "dtype" of o, or -1 with why. */
static int dtype_in(const cJSON *o, gb_dtype *out, char *why, size_t whylen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "dtype");

    if (!cJSON_IsString(v) || gb_dtype_parse(v->valuestring, out) != 0) {
        snprintf(why, whylen, "\"dtype\" is not f32, bf16 or u8s8");
        return -1;
    }
    return 0;
}

/* The "elites" array of doc into l: each object exactly its keys, the
 * shape and threads in range, a time, a schedule the language accepts
 * (what it refuses never reaches a feature or a compiler).  0, or -1
 * with why naming the elite. */
static int read_elites(const cJSON *doc, gb_learned *l, char *why, size_t whylen)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(doc, "elites");
    int n, i = 0;

    if (!cJSON_IsArray(a) || (n = cJSON_GetArraySize(a)) > GB_MODEL_MAX_ELITES) {
        snprintf(why, whylen, "\"elites\" is not a list of at most %d schedules",
                 GB_MODEL_MAX_ELITES);
        return -1;
    }
    if ((l->elites = calloc((size_t)(n > 0 ? n : 1), sizeof *l->elites)) == NULL) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    for (const cJSON *o = a->child; o; o = o->next, i++) {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "schedule");
        const cJSON *us = cJSON_GetObjectItemCaseSensitive(o, "median_us");
        gb_learned_elite *e = &l->elites[i];
        long M, K, N, threads;
        gb_dtype dtype;
        gb_sched nest;
        char part[GB_ERR_LEN];

        if (!cJSON_IsObject(o) || gb_learn_keys_exact(o, elite_keys, part, sizeof part) != 0 ||
            int_in(o, "M", 1, GB_MAX_DIM, &M, part, sizeof part) != 0 ||
            int_in(o, "K", 1, GB_MAX_DIM, &K, part, sizeof part) != 0 ||
            int_in(o, "N", 1, GB_MAX_DIM, &N, part, sizeof part) != 0 ||
            int_in(o, "threads", 1, GB_TRIALS_MAX_THREADS, &threads, part, sizeof part) != 0 ||
            dtype_in(o, &dtype, part, sizeof part) != 0) {
            if (!cJSON_IsObject(o))
                snprintf(part, sizeof part, "not an object");
            snprintf(why, whylen, "elite %d: %s", i + 1, part);
            return -1;
        }
        if (!cJSON_IsNumber(us) || !isfinite(us->valuedouble) || us->valuedouble <= 0.0 ||
            us->valuedouble >= GB_LEARN_MAX_US) {
            snprintf(why, whylen, "elite %d: \"median_us\" is not a time in microseconds", i + 1);
            return -1;
        }
        /* a point's text: ml_guided and the guided search hold it as one */
        if (gb_learn_schedule_text(t, GB_SPACE_MAX_TEXT - 1, part, sizeof part) != 0 ||
            gb_sched_from_text("schedule", t->valuestring, strlen(t->valuestring), &nest, part,
                               sizeof part) != 0) {
            snprintf(why, whylen, "elite %d: %s", i + 1, part);
            return -1;
        }
        if (nest.dtype != dtype) {
            snprintf(why, whylen, "elite %d: its schedule states type %s, its \"dtype\" is %s",
                     i + 1, gb_dtype_name(nest.dtype), gb_dtype_name(dtype));
            return -1;
        }
        *e = (gb_learned_elite){ (int)M, (int)K, (int)N, (int)threads, dtype, us->valuedouble,
                                 strdup(t->valuestring) };
        if (e->text == NULL) {
            snprintf(why, whylen, "out of memory");
            return -1;
        }
        l->nelites++;
    }
    return 0;
}

/* The "trained" array of doc into l: exactly "shapes" objects of a shape
 * and threads in range, none twice.  0, or -1 with why. */
static int read_trained(const cJSON *doc, gb_learned *l, char *why, size_t whylen)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(doc, "trained");
    int i = 0;

    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != l->shapes) {
        snprintf(why, whylen, "\"trained\" is not a list of the %d shapes trained on", l->shapes);
        return -1;
    }
    if ((l->trained = calloc((size_t)l->shapes, sizeof *l->trained)) == NULL) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    for (const cJSON *o = a->child; o; o = o->next, i++) {
        long M, K, N, threads;
        gb_dtype dtype;
        char part[GB_ERR_LEN];
        if (!cJSON_IsObject(o) || gb_learn_keys_exact(o, shape_keys, part, sizeof part) != 0 ||
            int_in(o, "M", 1, GB_MAX_DIM, &M, part, sizeof part) != 0 ||
            int_in(o, "K", 1, GB_MAX_DIM, &K, part, sizeof part) != 0 ||
            int_in(o, "N", 1, GB_MAX_DIM, &N, part, sizeof part) != 0 ||
            int_in(o, "threads", 1, GB_TRIALS_MAX_THREADS, &threads, part, sizeof part) != 0 ||
            dtype_in(o, &dtype, part, sizeof part) != 0) {
            if (!cJSON_IsObject(o))
                snprintf(part, sizeof part, "not an object");
            snprintf(why, whylen, "trained shape %d: %s", i + 1, part);
            return -1;
        }
        l->trained[i] = (gb_learned_shape){ (int)M, (int)K, (int)N, (int)threads, dtype };
        for (int j = 0; j < i; j++)
            if (memcmp(&l->trained[j], &l->trained[i], sizeof l->trained[i]) == 0) {
                snprintf(why, whylen, "trained shape %d: the same as %d", i + 1, j + 1);
                return -1;
            }
        l->ntrained++;
    }
    return 0;
}

/* An error (ln of a ratio) at key: null (NAN) or a number in [0, 50]. */
static int error_in(const cJSON *o, const char *key, double *out, char *why, size_t whylen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    if (cJSON_IsNull(v)) {
        *out = NAN;
        return 0;
    }
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0.0 && v->valuedouble <= 50.0)) {
        snprintf(why, whylen, "\"error\": \"%s\" is not null or a number in 0..50", key);
        return -1;
    }
    *out = v->valuedouble;
    return 0;
}

/* The "error" object of doc into l.  0, or -1 with why. */
static int read_error(const cJSON *doc, gb_learned *l, char *why, size_t whylen)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(doc, "error");
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(o, "quantile");
    long edge_shapes, inside_shapes;
    char part[GB_ERR_LEN];

    if (!cJSON_IsObject(o) || gb_learn_keys_exact(o, error_keys, part, sizeof part) != 0) {
        snprintf(why, whylen, "\"error\": %s", cJSON_IsObject(o) ? part : "not an object");
        return -1;
    }
    if (!cJSON_IsNumber(q) || q->valuedouble != GB_LEARNED_ERROR_QUANTILE) {
        snprintf(why, whylen, "\"error\": \"quantile\" is not %g (train it again)",
                 GB_LEARNED_ERROR_QUANTILE);
        return -1;
    }
    if (error_in(o, "edge", &l->error.edge, why, whylen) != 0 ||
        error_in(o, "inside", &l->error.inside, why, whylen) != 0)
        return -1;
    if (int_in(o, "edge_shapes", 0, l->shapes, &edge_shapes, part, sizeof part) != 0 ||
        int_in(o, "inside_shapes", 0, l->shapes, &inside_shapes, part, sizeof part) != 0) {
        snprintf(why, whylen, "\"error\": %s", part);
        return -1;
    }
    /* a measured error has its shapes, and shapes held out an error */
    if ((edge_shapes > 0) != !isnan(l->error.edge) ||
        (inside_shapes > 0) != !isnan(l->error.inside)) {
        snprintf(why, whylen, "\"error\": an error without shapes held out, or shapes "
                 "without an error");
        return -1;
    }
    l->error.edge_shapes = (int)edge_shapes;
    l->error.inside_shapes = (int)inside_shapes;
    return 0;
}

/* The envelope of doc into l (not the trees).  0, or -1 with why. */
static int read_envelope(const cJSON *doc, gb_learned *l, char *why, size_t whylen)
{
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
    const cJSON *names, *target, *space, *file, *text;
    long version, features, seed, trials, shapes;
    int c = 0;

    if (!cJSON_IsObject(doc) || !cJSON_IsString(schema) ||
        strcmp(schema->valuestring, GB_MODEL_SCHEMA) != 0) {
        snprintf(why, whylen, "not a gemmbench model (\"schema\": \"%s\")", GB_MODEL_SCHEMA);
        return -1;
    }
    if (int_in(doc, "version", 0, 1e9, &version, why, whylen) != 0)
        return -1;
    if (version != GB_MODEL_VERSION) {
        snprintf(why, whylen, "model version %ld; this gemmbench reads version %d (train it "
                 "again)", version, GB_MODEL_VERSION);
        return -1;
    }
    if (gb_learn_keys_exact(doc, model_keys, why, whylen) != 0 ||
        int_in(doc, "features_version", 0, 1e9, &features, why, whylen) != 0)
        return -1;
    if (features != GB_FEATURES_VERSION) {
        snprintf(why, whylen, "features version %ld; this gemmbench computes version %d "
                 "(train it again)", features, GB_FEATURES_VERSION);
        return -1;
    }
    names = cJSON_GetObjectItemCaseSensitive(doc, "features");
    if (!cJSON_IsArray(names) || cJSON_GetArraySize(names) != GB_FEATURES_COUNT) {
        snprintf(why, whylen, "\"features\" is not the list of %d feature names",
                 GB_FEATURES_COUNT);
        return -1;
    }
    for (const cJSON *n = names->child; n; n = n->next, c++)
        if (!cJSON_IsString(n) || strcmp(n->valuestring, gb_features_name(c)) != 0) {
            snprintf(why, whylen, "feature %d is not %s: trained on other columns", c + 1,
                     gb_features_name(c));
            return -1;
        }
    target = cJSON_GetObjectItemCaseSensitive(doc, "target");
    if (!cJSON_IsString(target) || strcmp(target->valuestring, TARGET) != 0) {
        snprintf(why, whylen, "\"target\" is not \"%s\"", TARGET);
        return -1;
    }
    if (gb_learn_machine_read(cJSON_GetObjectItemCaseSensitive(doc, "machine"), &l->machine,
                              why, whylen) != 0 ||
        int_in(doc, "seed", 0, 4294967295.0, &seed, why, whylen) != 0 ||
        int_in(doc, "trials", 1, GB_TRIALS_MAX_ROWS, &trials, why, whylen) != 0 ||
        int_in(doc, "shapes", 1, GB_TRIALS_MAX_ROWS, &shapes, why, whylen) != 0)
        return -1;
    l->seed = (unsigned)seed;
    l->trials = (int)trials;
    l->shapes = (int)shapes;
    space = cJSON_GetObjectItemCaseSensitive(doc, "space");
    if (!cJSON_IsObject(space) || gb_learn_keys_exact(space, space_keys, why, whylen) != 0) {
        if (!cJSON_IsObject(space))
            snprintf(why, whylen, "\"space\" is not an object");
        return -1;
    }
    file = cJSON_GetObjectItemCaseSensitive(space, "file");
    text = cJSON_GetObjectItemCaseSensitive(space, "text");
    if (!cJSON_IsString(file) || strlen(file->valuestring) >= sizeof l->space_file ||
        !cJSON_IsString(text) || strlen(text->valuestring) > GB_SCHED_MAX_FILE) {
        snprintf(why, whylen, "\"space\" is not a file name and a text of at most %d bytes",
                 GB_SCHED_MAX_FILE);
        return -1;
    }
    gb_printable(file->valuestring, 200, l->space_file, sizeof l->space_file);
    {   /* the space's text, checked as a space file is */
        gb_space sp;
        char err[GB_ERR_LEN];
        if (gb_space_parse(l->space_file, text->valuestring, strlen(text->valuestring), &sp, err,
                           sizeof err) != 0) {
            snprintf(why, whylen, "its space: %s", err);
            return -1;
        }
        gb_space_free(&sp);
    }
    if ((l->space_text = strdup(text->valuestring)) == NULL) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    return read_elites(doc, l, why, whylen) != 0 || read_trained(doc, l, why, whylen) != 0 ||
                   read_error(doc, l, why, whylen) != 0
               ? -1
               : 0;
}

int gb_learned_load(const char *path, gb_learned **out, char *err, size_t errlen)
{
    gb_learned *l = calloc(1, sizeof *l);
    char shown[256], why[GB_ERR_LEN];
    size_t len;
    char *text = NULL;
    cJSON *doc = NULL;
    const cJSON *trees;
    int rc = -1;

    *out = NULL;
    gb_printable(path, 200, shown, sizeof shown);
    if (l == NULL) {
        snprintf(err, errlen, "%s: out of memory", shown);
        return -1;
    }
    if ((text = gb_learn_read_file(path, GB_MODEL_MAX_BYTES, &len, err, errlen)) == NULL)
        goto done;
    if (strlen(text) != len) {
        snprintf(err, errlen, "%s: not a model file (a NUL byte)", shown);
        goto done;
    }
    if ((doc = gb_json_parse_strict(text, why, sizeof why)) == NULL) {
        snprintf(err, errlen, "%s: not a model file: %s", shown, why);
        goto done;
    }
    if (read_envelope(doc, l, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s: %s", shown, why);
        goto done;
    }
    trees = cJSON_GetObjectItemCaseSensitive(doc, "xgboost");
    if (!cJSON_IsString(trees) ||
        gb_xgb_check(trees->valuestring, GB_FEATURES_COUNT, why, sizeof why) != 0 ||
        gb_xgb_load(trees->valuestring, strlen(trees->valuestring), GB_FEATURES_COUNT,
                    &l->trees, why, sizeof why) != 0) {
        if (!cJSON_IsString(trees))
            snprintf(why, sizeof why, "\"xgboost\" is not XGBoost's model as text");
        snprintf(err, errlen, "%s: %s", shown, why);
        goto done;
    }
    *out = l;
    l = NULL;
    rc = 0;
done:
    gb_learned_free(l);
    cJSON_Delete(doc);
    free(text);
    return rc;
}

int gb_learned_is_model(const char *path)
{
    char err[GB_ERR_LEN], why[GB_ERR_LEN];
    size_t len;
    char *text = gb_learn_read_file(path, GB_MODEL_MAX_BYTES, &len, err, sizeof err);
    cJSON *doc = text && strlen(text) == len ? gb_json_parse_strict(text, why, sizeof why) : NULL;
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
    int is = cJSON_IsString(schema) && strcmp(schema->valuestring, GB_MODEL_SCHEMA) == 0;

    cJSON_Delete(doc);
    free(text);
    return is;
}

void gb_learned_info_of(const gb_learned *l, gb_learned_info *out)
{
    out->machine = l->machine;
    out->seed = l->seed;
    out->trials = l->trials;
    out->shapes = l->shapes;
    out->space_file = l->space_file;
    out->space_text = l->space_text;
    out->nelites = l->nelites;
    out->elites = l->elites;
    out->ntrained = l->ntrained;
    out->trained = l->trained;
    out->error = l->error;
}

int gb_learned_predict(const gb_learned *l, const float *features, int n, double *us,
                       char *err, size_t errlen)
{
    float *pred = malloc((size_t)(n > 0 ? n : 1) * sizeof *pred);

    if (pred == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (gb_xgb_predict(l->trees, features, n, pred, err, errlen) != 0) {
        free(pred);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        us[i] = exp((double)pred[i]) * gb_features_flops(features + (size_t)i * GB_FEATURES_COUNT);
        /* a time, or no ranking at all: an infinite or zero prediction
         * would be ranked first or last and reported as a number */
        if (!(isfinite(us[i]) && us[i] > 0.0 && us[i] < GB_LEARN_MAX_US)) {
            snprintf(err, errlen, "the model predicts %g us for a candidate: not a time", us[i]);
            free(pred);
            return -1;
        }
    }
    free(pred);
    return 0;
}

int gb_learned_gain(const gb_learned *l, double gain[GB_FEATURES_COUNT], char *err,
                    size_t errlen)
{
    return gb_xgb_gain(l->trees, gain, err, errlen);
}
