/* history.c - a store's series as per-commit points, their change points,
 * the annotations that explain or hide them, and the changes' table and
 * JSON; see history.h and history.md. */
#define _GNU_SOURCE
#include "history.h"
#include "compare.h"
#include "inputfile.h"

#include <cjson/cJSON.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- annotations ------------------------------------------------------------------ */

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* One list of annotations ("known" or "ignore"); 0, or -1 with why. */
static int read_notes(const cJSON *doc, const char *name, int ranges, gb_history_note **out,
                      int *n, char *why, size_t whylen)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, name), *item;
    int i = 0;

    *out = NULL;
    *n = 0;
    if (list == NULL)
        return 0;
    if (!cJSON_IsArray(list)) {
        snprintf(why, whylen, "\"%s\" is not an array", name);
        return -1;
    }
    *out = calloc((size_t)cJSON_GetArraySize(list) + 1, sizeof **out);
    if (*out == NULL) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    cJSON_ArrayForEach(item, list) {
        const char *commit = cJSON_GetStringValue(
            cJSON_GetObjectItemCaseSensitive(item, ranges ? "from" : "commit"));
        const char *to = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(item, "to"));
        const cJSON *series = cJSON_GetObjectItemCaseSensitive(item, "series");
        const cJSON *note = cJSON_GetObjectItemCaseSensitive(item, "note");
        if (!cJSON_IsObject(item) || commit == NULL || commit[0] == '\0' ||
            (ranges && (to == NULL || to[0] == '\0')) ||
            (series && !cJSON_IsString(series)) || (note && !cJSON_IsString(note))) {
            snprintf(why, whylen, "\"%s\"[%d] needs %s (strings; \"series\" and \"note\" "
                                  "optional)", name, i, ranges ? "\"from\" and \"to\"" : "\"commit\"");
            return -1;
        }
        /* The table prints notes on a terminal. */
        if (!gb_history_text_ok(commit, GB_HISTORY_LABEL_MAX) ||
            (to && !gb_history_text_ok(to, GB_HISTORY_LABEL_MAX)) ||
            (series && !gb_history_text_ok(series->valuestring, 1024)) ||
            (note && note->valuestring[0] && !gb_history_text_ok(note->valuestring, 4096))) {
            snprintf(why, whylen, "\"%s\"[%d] holds a control character or an over-long "
                                  "string", name, i);
            return -1;
        }
        gb_history_note *a = &(*out)[i++];
        a->commit = strdup(commit);
        a->to = dup_or_null(to);
        a->series = dup_or_null(cJSON_GetStringValue(series));
        a->note = strdup(note ? note->valuestring : "");
        (*n)++;
    }
    return 0;
}

int gb_history_annotations_read(const char *dir, gb_history_annotations *a, char *err,
                                size_t errlen)
{
    char path[4200], why[256];
    char *text;
    cJSON *doc;
    const char *schema;
    int rc = -1;

    memset(a, 0, sizeof *a);
    snprintf(path, sizeof path, "%s/annotations.json", dir);
    if (access(path, F_OK) != 0)
        return 0;
    text = gb_read_regular_nolink(path, 16L << 20, err, errlen);
    if (text == NULL)
        return -1;
    doc = gb_json_parse_strict(text, why, sizeof why);
    free(text);
    if (doc == NULL) {
        snprintf(err, errlen, "%s: %s", path, why);
        return -1;
    }
    schema = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "schema"));
    if (schema == NULL || strcmp(schema, GB_HISTORY_ANNOTATIONS_SCHEMA) != 0)
        snprintf(err, errlen, "%s: \"schema\" is not \"%s\"", path,
                 GB_HISTORY_ANNOTATIONS_SCHEMA);
    else if (read_notes(doc, "known", 0, &a->known, &a->nknown, why, sizeof why) != 0 ||
             read_notes(doc, "ignore", 1, &a->ignore, &a->nignore, why, sizeof why) != 0)
        snprintf(err, errlen, "%s: %s", path, why);
    else
        rc = 0;
    cJSON_Delete(doc);
    if (rc != 0)
        gb_history_annotations_free(a);
    return rc;
}

static void free_notes(gb_history_note *list, int n)
{
    for (int i = 0; list && i < n; i++) {
        free(list[i].commit);
        free(list[i].to);
        free(list[i].series);
        free(list[i].note);
    }
    free(list);
}

void gb_history_annotations_free(gb_history_annotations *a)
{
    free_notes(a->known, a->nknown);
    free_notes(a->ignore, a->nignore);
    memset(a, 0, sizeof *a);
}

/* A commit label matches a given commit (an annotation's, a change named
 * on the command line) when equal, or when the given one is an abbreviated
 * hash (7 characters or more) it begins with. */
int gb_history_commit_matches(const char *label, const char *given)
{
    size_t n = strlen(given);
    return strcmp(label, given) == 0 || (n >= 7 && strncmp(label, given, n) == 0);
}

static int series_matches(const gb_history_note *a, const char *key)
{
    return a->series == NULL || fnmatch(a->series, key, 0) == 0;
}

/* ---- a pair ------------------------------------------------------------------------- */

/* Two files of one `gemmbench ab` run, at most this far apart in their
 * start (both builds' first rounds start together, or one after the other). */
#define PAIR_MAX_APART_S 3600

/* run.ab of f: its run's identity and side ("old" or "new"), NULL if absent. */
static const char *ab_field(const gb_result_file *f, const char *name)
{
    const cJSON *ab = cJSON_GetObjectItemCaseSensitive(f->run, "ab");
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ab, name));
}

static int same_ab_run(const gb_result_file *anchor, const gb_result_file *newer)
{
    const char *pa = ab_field(anchor, "pair"), *pn = ab_field(newer, "pair");
    const char *sa = ab_field(anchor, "side"), *sn = ab_field(newer, "side");
    return pa && pn && sa && sn && strlen(pa) == 32 && strcmp(pa, pn) == 0 &&
           strcmp(sa, "old") == 0 && strcmp(sn, "new") == 0;
}

int gb_history_pair(const gb_result_file *anchor, const gb_result_file *newer,
                    gb_history_pair_row **rows, int *nrows, char *err, size_t errlen)
{
    gb_compare_opts co = { 0.0, 0.05, GB_COMPARE_MIN_SAMPLES, NULL, NULL, 1, NULL };
    gb_compare c;
    long long ta, tn;
    int rc = -1;

    *rows = NULL;
    *nrows = 0;
    if (!anchor->complete || !newer->complete) {
        snprintf(err, errlen, "%s: an interrupted run (\"complete\": false) is no pair",
                 anchor->complete ? newer->path : anchor->path);
        return -1;
    }
    /* The CPU's family, model and stepping where both files say them (a
     * guest's model name can be one kind's and another's). */
    if (!anchor->hostname || !newer->hostname || strcmp(anchor->hostname, newer->hostname) != 0 ||
        !anchor->cpu_model || !newer->cpu_model || strcmp(anchor->cpu_model, newer->cpu_model) != 0 ||
        (anchor->cpu_id && newer->cpu_id && strcmp(anchor->cpu_id, newer->cpu_id) != 0)) {
        snprintf(err, errlen, "%s and %s: not one machine's (hostname, CPU model or CPU "
                              "family, model and stepping differ): not a pair",
                 anchor->path, newer->path);
        return -1;
    }
    if (anchor->run_rounds != newer->run_rounds || anchor->run_rounds < GB_AB_MIN_ROUNDS) {
        snprintf(err, errlen, "%s and %s: not one gemmbench ab run's (%d and %d rounds; a pair "
                              "has the same rounds, at least %d)", anchor->path, newer->path,
                 anchor->run_rounds, newer->run_rounds, GB_AB_MIN_ROUNDS);
        return -1;
    }
    if (!same_ab_run(anchor, newer)) {
        snprintf(err, errlen, "%s and %s: not the old and new files of one gemmbench ab run "
                              "(run.ab.pair differs or is missing: ab before 2026-11-28?)",
                 anchor->path, newer->path);
        return -1;
    }
    ta = anchor->started ? gb_history_seconds(anchor->started) : -1;
    tn = newer->started ? gb_history_seconds(newer->started) : -1;
    if (ta < 0 || tn < 0 || llabs(ta - tn) > PAIR_MAX_APART_S) {
        snprintf(err, errlen, "%s and %s: started more than an hour apart, or without a "
                              "run.started: not one gemmbench ab run's", anchor->path, newer->path);
        return -1;
    }
    if (gb_compare_files(anchor, newer, &co, &c, err, errlen) != 0)
        return -1;
    if (c.nonly_old || c.nonly_new || c.ntext_differs || c.nrows == 0) {
        snprintf(err, errlen, "%s and %s: not the same entries (%d only in the anchor, %d only "
                              "in NEW): not one gemmbench ab run's", anchor->path, newer->path,
                 c.nonly_old, c.nonly_new + c.ntext_differs);
        goto out;
    }
    if (c.ncheck_failed) {
        snprintf(err, errlen, "%s and %s: %d entries failed verification", anchor->path,
                 newer->path, c.ncheck_failed);
        goto out;
    }
    *rows = calloc((size_t)c.nrows, sizeof **rows);
    if (*rows == NULL) {
        snprintf(err, errlen, "out of memory");
        rc = -2;
        goto out;
    }
    for (int i = 0; i < c.nrows; i++) {
        const gb_compare_row *r = &c.rows[i];
        if (r->verdict == GB_VERDICT_TOO_FEW || !(r->lo > 0.0) || !isfinite(r->hi) ||
            !(r->ratio > 0.0) || !isfinite(r->ratio)) {
            if (r->verdict == GB_VERDICT_TOO_FEW)
                snprintf(err, errlen, "%s: %s %s M=%d: fewer than %d rounds measured by both "
                         "builds", newer->path, r->new_e->label, r->new_e->kernel, r->new_e->M,
                         GB_AB_MIN_ROUNDS);
            else /* times whose ratio a double cannot hold */
                snprintf(err, errlen, "%s: %s %s M=%d: its ratio to the anchor is not a finite "
                         "number above 0", newer->path, r->new_e->label, r->new_e->kernel,
                         r->new_e->M);
            free(*rows);
            *rows = NULL;
            goto out;
        }
        (*rows)[i].e = r->new_e;
        (*rows)[i].anchor_e = r->old_e;
        (*rows)[i].ratio = r->ratio;
        (*rows)[i].lo = r->lo;
        (*rows)[i].hi = r->hi;
    }
    *nrows = c.nrows;
    rc = 0;
out:
    gb_compare_free(&c);
    return rc;
}

/* ---- points ------------------------------------------------------------------------ */

/* Two points' anchors in order (absolute first); 0 when the same. */
static int same_anchor(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return (a != NULL) - (b != NULL);
    return strcmp(a, b);
}

/* qsort has no context: the store the comparisons below read. */
static const gb_history_store *sorting_store;

/* Observations by series, then commit, then date. */
static int by_series_commit(const void *pa, const void *pb)
{
    const gb_history_obs *a = &sorting_store->obs[*(const int *)pa];
    const gb_history_obs *b = &sorting_store->obs[*(const int *)pb];
    const gb_history_file *fa = &sorting_store->files[a->file];
    const gb_history_file *fb = &sorting_store->files[b->file];
    int c;

    if (a->series != b->series)
        return a->series < b->series ? -1 : 1;
    if ((c = strcmp(fa->commit, fb->commit)) != 0)
        return c;
    if ((c = same_anchor(fa->anchor, fb->anchor)) != 0)
        return c;
    return strcmp(fa->date, fb->date);
}

/* By date; commits of one date (a rebase gives many the same committer
 * date) in the order their files were added, as a CI adds them. */
static int by_date(const void *pa, const void *pb)
{
    const gb_history_point *a = pa, *b = pb;
    int c = strcmp(a->date, b->date);
    return c ? c : (a->first > b->first) - (a->first < b->first);
}

static int by_value(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* The points of the series whose observations are idx[0..n) (one series,
 * by commit then date): one per commit, dated by its earliest file. */
static int make_points(const gb_history_store *s, const int *idx, int n, gb_history_point **out,
                       int *count)
{
    gb_history_point *pts = malloc((size_t)(n > 0 ? n : 1) * sizeof *pts);
    double *medians = malloc((size_t)(n > 0 ? n : 1) * sizeof *medians);
    int np = 0;

    if (pts == NULL || medians == NULL) {
        free(pts);
        free(medians);
        return -1;
    }
    for (int i = 0; i < n;) {
        const gb_history_file *f = &s->files[s->obs[idx[i]].file];
        gb_history_point *p = &pts[np++];
        int j = i, k = 0;
        double se2 = 0.0;

        p->commit = f->commit;
        p->date = f->date;
        p->anchor = f->anchor;
        p->epoch = 0;
        p->joined = 1;
        p->first = s->obs[idx[i]].file;
        p->lo_us = INFINITY;
        p->hi_us = 0.0;
        for (; j < n && strcmp(s->files[s->obs[idx[j]].file].commit, f->commit) == 0 &&
               same_anchor(s->files[s->obs[idx[j]].file].anchor, f->anchor) == 0;
             j++) {
            const gb_history_obs *o = &s->obs[idx[j]];
            medians[k++] = o->median_us;
            se2 += o->se2;
            if (strcmp(s->files[o->file].date, p->date) == 0 && o->file < p->first)
                p->first = o->file;
            p->lo_us = fmin(p->lo_us, o->lo_us);
            p->hi_us = fmax(p->hi_us, o->hi_us);
        }
        qsort(medians, (size_t)k, sizeof *medians, by_value);
        p->median_us = k % 2 ? medians[k / 2] : 0.5 * (medians[k / 2 - 1] + medians[k / 2]);
        /* k files of one commit: the mean of their noises over k. */
        p->se2 = se2 / k / k;
        p->nfiles = k;
        i = j;
    }
    qsort(pts, (size_t)np, sizeof *pts, by_date);
    free(medians);
    *out = pts;
    *count = np;
    return 0;
}

/* By epoch, then date (as by_date). */
static int by_epoch_date(const void *pa, const void *pb)
{
    const gb_history_point *a = pa, *b = pb;
    return a->epoch != b->epoch ? (a->epoch > b->epoch) - (a->epoch < b->epoch) : by_date(pa, pb);
}

/* A paired series' points (in date order) into epochs: one per anchor, in
 * the order of its first point, the points of each together; then each
 * epoch joined to the one before it through that epoch's point of this
 * epoch's anchor (the overlap run: old anchor against new), so that
 * joined_y reads every point against the first epoch's anchor.  The number
 * of epochs. */
static int make_epochs(gb_history_point *pts, int n)
{
    int nepochs = 0;
    double offset = 0.0, offset_se2 = 0.0;
    int joined = 1;

    for (int i = 0; i < n; i++) {
        int e = -1;
        for (int j = 0; j < i && e < 0; j++)
            if (same_anchor(pts[j].anchor, pts[i].anchor) == 0)
                e = pts[j].epoch;
        pts[i].epoch = e >= 0 ? e : nepochs++;
    }
    qsort(pts, (size_t)n, sizeof *pts, by_epoch_date);
    for (int i = 0, start = 0; i < n; i++) {
        if (i > 0 && pts[i].epoch != pts[i - 1].epoch) {
            /* The join: a point of the epoch just ended measuring this anchor. */
            int found = -1;
            for (int j = start; j < i; j++)
                if (gb_history_commit_matches(pts[j].commit, pts[i].anchor) ||
                    gb_history_commit_matches(pts[i].anchor, pts[j].commit))
                    found = j;
            if (found >= 0) {
                offset = pts[found].joined_y;
                offset_se2 = pts[found].joined_se2;
            } else {
                joined = 0;
            }
            start = i;
        }
        pts[i].joined_y = offset + log(pts[i].median_us);
        pts[i].joined_se2 = offset_se2 + pts[i].se2;
        pts[i].joined = joined;
    }
    return nepochs;
}

/* expm1 of the median |successive difference| of y within each epoch (the
 * series' usual run-to-run difference: a step moves one difference); NAN
 * with fewer than 2 differences. */
static double usual_difference(const gb_history_point *pts, const double *y, int n)
{
    double *d = malloc((size_t)(n > 0 ? n : 1) * sizeof *d), r = NAN;
    int m = 0;

    if (d == NULL)
        return NAN;
    for (int i = 1; i < n; i++)
        if (pts[i].epoch == pts[i - 1].epoch)
            d[m++] = fabs(y[i] - y[i - 1]);
    if (m >= 2) {
        qsort(d, (size_t)m, sizeof *d, by_value);
        r = expm1(m % 2 ? d[m / 2] : 0.5 * (d[m / 2 - 1] + d[m / 2]));
    }
    free(d);
    return r;
}

/* The median over a paired series' points of hi / lo - 1: how wide its
 * pairs are. */
static double median_width(const gb_history_point *pts, int n)
{
    double *w = malloc((size_t)(n > 0 ? n : 1) * sizeof *w), r = NAN;

    if (w == NULL || n == 0) {
        free(w);
        return NAN;
    }
    for (int i = 0; i < n; i++)
        w[i] = pts[i].lo_us > 0.0 ? pts[i].hi_us / pts[i].lo_us - 1.0 : INFINITY;
    qsort(w, (size_t)n, sizeof *w, by_value);
    r = n % 2 ? w[n / 2] : 0.5 * (w[n / 2 - 1] + w[n / 2]);
    free(w);
    return r;
}

/* Leaves out the points the store's "ignore" ranges name; how many. */
static int apply_ignore(const gb_history_annotations *a, const char *key, gb_history_point *pts,
                        int *n)
{
    int dropped = 0;

    for (int r = 0; r < a->nignore; r++) {
        const gb_history_note *note = &a->ignore[r];
        int from = -1, to = -1;
        if (!series_matches(note, key))
            continue;
        for (int i = 0; i < *n; i++) {
            if (from < 0 && gb_history_commit_matches(pts[i].commit, note->commit))
                from = i;
            if (gb_history_commit_matches(pts[i].commit, note->to))
                to = i;
        }
        if (from < 0 || to < from)
            continue;
        memmove(&pts[from], &pts[to + 1], (size_t)(*n - to - 1) * sizeof *pts);
        *n -= to - from + 1;
        dropped += to - from + 1;
    }
    return dropped;
}

/* ---- what a series can see --------------------------------------------------------- */

gb_history_noise gb_history_noise_of(const double *y, int n, double alpha)
{
    gb_history_noise r = { NAN, NAN };
    double ss = 0.0;
    int after, before, df;

    if (n < 4)
        return r;
    /* von Neumann: E[(y_i - y_(i-1))^2] = 2 sigma^2 for independent points;
     * a step adds its square to one difference of n - 1. */
    for (int i = 1; i < n; i++)
        ss += (y[i] - y[i - 1]) * (y[i] - y[i - 1]);
    r.sd = sqrt(ss / (2.0 * (n - 1)));
    after = n / 2 < GB_HISTORY_AFTER ? n / 2 : GB_HISTORY_AFTER;
    before = n - after;
    df = n - 2;
    /* A two-sample t with this noise on both sides: the step whose expected
     * t reaches the critical value at alpha plus the 80 % power quantile. */
    r.detectable = expm1((gb_student_quantile(alpha, df) + gb_student_quantile(0.4, df)) *
                         r.sd * sqrt(1.0 / before + 1.0 / after));
    return r;
}

/* ---- the analysis --------------------------------------------------------------- */

/* The candidates of every series, before the false discovery rate. */
typedef struct candidate {
    int series, at;
    int pi;                      /* its p's place in the list adjusted together */
    gb_cp_test test;
} candidate;

int gb_history_analyse(const gb_history_store *s, const gb_history_annotations *a,
                       const gb_history_opts *o, gb_history_view *v, char *err, size_t errlen)
{
    int *idx = malloc((size_t)(s->nobs > 0 ? s->nobs : 1) * sizeof *idx);
    candidate *cand = NULL;
    double *p = NULL, *adj = NULL;
    int ncand = 0, cap = 0, np = 0, rc = -2;
    gb_cp_opts cp = { GB_CP_MIN_SEGMENT, GB_CP_P_CANDIDATE };

    memset(v, 0, sizeof *v);
    v->store = s;
    v->opts = *o;
    v->points = calloc((size_t)s->nseries + 1, sizeof *v->points);
    v->npoints = calloc((size_t)s->nseries + 1, sizeof *v->npoints);
    v->ignored = calloc((size_t)s->nseries + 1, sizeof *v->ignored);
    v->noise = calloc((size_t)s->nseries + 1, sizeof *v->noise);
    v->usual = calloc((size_t)s->nseries + 1, sizeof *v->usual);
    v->width = calloc((size_t)s->nseries + 1, sizeof *v->width);
    v->nepochs = calloc((size_t)s->nseries + 1, sizeof *v->nepochs);
    /* One p per hypothesis: each candidate's, and each series without one
     * its best split's. */
    p = malloc(((size_t)s->nseries + 1) * (GB_CP_MAX_CHANGES + 1) * sizeof *p);
    if (idx == NULL || v->points == NULL || v->npoints == NULL || v->ignored == NULL ||
        v->noise == NULL || !v->usual || !v->width || !v->nepochs || !p)
        goto out;
    for (int i = 0; i < s->nseries; i++) {
        v->noise[i].sd = v->noise[i].detectable = NAN;   /* until measured */
        v->usual[i] = v->width[i] = NAN;
    }
    for (int i = 0; i < s->nobs; i++)
        idx[i] = i;
    sorting_store = s;
    qsort(idx, (size_t)s->nobs, sizeof *idx, by_series_commit);
    for (int i = 0; i < s->nobs;) {
        int series = s->obs[idx[i]].series, j = i;
        while (j < s->nobs && s->obs[idx[j]].series == series)
            j++;
        if (make_points(s, idx + i, j - i, &v->points[series], &v->npoints[series]) != 0)
            goto out;
        i = j;
    }
    for (int si = 0; si < s->nseries; si++) {
        const gb_history_series *se = &s->series[si];
        int at[GB_CP_MAX_CHANGES], n;
        gb_cp_test tests[GB_CP_MAX_CHANGES];
        gb_cp_point *pts;
        double best_p, *y;

        if (o->only_machine && strcmp(se->machine, o->only_machine) != 0)
            continue;
        v->ignored[si] = apply_ignore(a, se->key, v->points[si], &v->npoints[si]);
        v->nepochs[si] = se->paired ? make_epochs(v->points[si], v->npoints[si]) : 1;
        pts = malloc((size_t)(v->npoints[si] + 1) * sizeof *pts);
        y = malloc((size_t)(v->npoints[si] + 1) * sizeof *y);
        if (pts == NULL || y == NULL) {
            free(pts);
            free(y);
            goto out;
        }
        /* A paired point's value is its ratio (--value does not apply);
         * the noise is read across epochs through their joins. */
        for (int i = 0; i < v->npoints[si]; i++) {
            const gb_history_point *pt = &v->points[si][i];
            pts[i].y = log(!se->paired && o->best ? pt->lo_us : pt->median_us);
            pts[i].se2 = pt->se2;
            y[i] = se->paired ? pt->joined_y : pts[i].y;
        }
        v->noise[si] = gb_history_noise_of(y, v->npoints[si], o->alpha);
        if (se->paired) {
            v->usual[si] = usual_difference(v->points[si], y, v->npoints[si]);
            v->width[si] = median_width(v->points[si], v->npoints[si]);
            v->nunstable += !(v->width[si] <= GB_HISTORY_UNSTABLE);
        }
        free(y);
        /* Change points within each epoch: only points measured against
         * one anchor build are compared. */
        double series_best_p = 1.0;
        int nseries_cand = 0;
        for (int e0 = 0; e0 < v->npoints[si];) {
            int e1 = e0;
            while (e1 < v->npoints[si] && v->points[si][e1].epoch == v->points[si][e0].epoch)
                e1++;
            n = gb_cp_detect(pts + e0, e1 - e0, &cp, at, tests, GB_CP_MAX_CHANGES, &best_p);
            if (n < 0) {
                free(pts);
                goto out;
            }
            if (n == 0 && best_p < series_best_p)
                series_best_p = best_p;
            for (int j = 0; j < n && nseries_cand < GB_CP_MAX_CHANGES; j++, nseries_cand++) {
                if (ncand == cap) {
                    cap = cap ? cap * 2 : 64;
                    candidate *grown = realloc(cand, (size_t)cap * sizeof *cand);
                    if (grown == NULL) {
                        free(pts);
                        goto out;
                    }
                    cand = grown;
                }
                cand[ncand].series = si;
                cand[ncand].at = e0 + at[j];
                cand[ncand].test = tests[j];
                cand[ncand].pi = np;
                ncand++;
                p[np++] = tests[j].p;
            }
            e0 = e1;
        }
        free(pts);
        if (nseries_cand == 0)
            p[np++] = series_best_p;
    }
    /* Every hypothesis' p at once; each candidate knows its own. */
    adj = malloc((size_t)(np > 0 ? np : 1) * sizeof *adj);
    v->changes = calloc((size_t)ncand + 1, sizeof *v->changes);
    if (adj == NULL || v->changes == NULL || gb_bh_adjust(p, np, adj) != 0)
        goto out;
    for (int c = 0; c < ncand; c++) {
        const candidate *cd = &cand[c];
        int k = cd->pi;
        gb_history_change *ch;
        const gb_history_series *se = &s->series[cd->series];
        double floor = GB_CP_MIN_CHANGE;
        int unstable = 0;
        if (se->paired) {
            /* A paired change must also be as large as the gate's threshold
             * and the series' usual run-to-run difference.  One in an
             * unstable series is named but raises no alarm: muted, such
             * series hid the two real steps of this project's own paired
             * history (results/notes/history.md), each found at its commit
             * with its points' intervals as their noise. */
            floor = fmax(o->threshold_pct / 100.0, isnan(v->usual[cd->series]) ? 0.0
                                                                                : v->usual[cd->series]);
            unstable = !(v->width[cd->series] <= GB_HISTORY_UNSTABLE);
        }
        if (!(adj[k] < o->alpha) || fabs(cd->test.ratio - 1.0) < GB_CP_MIN_CHANGE)
            continue;
        /* A paired step's 95 % interval must reach the floor: a 5 % step
         * measured as 4.7 % [3.9, 5.6] is one, a 3 % shift of code layout
         * measured as [2.5, 3.5] is not. */
        if (se->paired && (cd->test.ratio > 1.0 ? !(cd->test.hi >= 1.0 + floor)
                                                : !(cd->test.lo <= 1.0 / (1.0 + floor))))
            continue;
        ch = &v->changes[v->nchanges++];
        ch->floor = floor;
        ch->series = cd->series;
        ch->at = cd->at;
        ch->test = cd->test;
        ch->p_adjusted = adj[k];
        const char *key = s->series[cd->series].key;
        const char *after = v->points[cd->series][cd->at].commit;
        for (int k2 = 0; k2 < a->nknown && ch->note == NULL; k2++)
            if (series_matches(&a->known[k2], key) &&
                gb_history_commit_matches(after, a->known[k2].commit))
                ch->note = a->known[k2].note;
        ch->unstable = unstable;
        ch->gate = ch->note == NULL && !unstable && cd->test.ratio > 1.0 + o->threshold_pct / 100.0;
        v->ngate += ch->gate;
    }
    rc = 0;
out:
    if (rc != 0) {
        snprintf(err, errlen, "out of memory");
        gb_history_view_free(v);
    }
    free(idx);
    free(cand);
    free(p);
    free(adj);
    return rc;
}

void gb_history_view_free(gb_history_view *v)
{
    for (int i = 0; v->points && v->store && i < v->store->nseries; i++)
        free(v->points[i]);
    free(v->points);
    free(v->npoints);
    free(v->ignored);
    free(v->noise);
    free(v->usual);
    free(v->width);
    free(v->nepochs);
    free(v->changes);
    memset(v, 0, sizeof *v);
}

/* ---- the changes, as a table or JSON --------------------------------------------- */

static int shown(const gb_history_view *v, int i)
{
    return v->npoints[i] > 0 &&
           (!v->opts.only_machine || strcmp(v->store->series[i].machine, v->opts.only_machine) == 0);
}

/* The median of the shown series' noise and detectable step, over those
 * that have them (how many: the return); the noisiest one in *worst. */
static int noise_summary(const gb_history_view *v, double *sd, double *det, int *worst)
{
    double *a = malloc(((size_t)v->store->nseries + 1) * sizeof *a);
    double *b = malloc(((size_t)v->store->nseries + 1) * sizeof *b);
    int n = 0;

    *sd = *det = NAN;
    *worst = -1;
    if (a == NULL || b == NULL) {
        free(a);
        free(b);
        return 0;
    }
    for (int i = 0; i < v->store->nseries; i++)
        if (shown(v, i) && !isnan(v->noise[i].sd)) {
            a[n] = v->noise[i].sd;
            b[n++] = v->noise[i].detectable;
            if (*worst < 0 || v->noise[i].sd > v->noise[*worst].sd)
                *worst = i;
        }
    if (n > 0) {
        qsort(a, (size_t)n, sizeof *a, by_value);
        qsort(b, (size_t)n, sizeof *b, by_value);
        *sd = n % 2 ? a[n / 2] : 0.5 * (a[n / 2 - 1] + a[n / 2]);
        *det = n % 2 ? b[n / 2] : 0.5 * (b[n / 2 - 1] + b[n / 2]);
    }
    free(a);
    free(b);
    return n;
}

/* Steal over the shown series' measurements: how many recorded it, how
 * many ran rounds under it, those rounds and their seconds. */
typedef struct steal_summary {
    int known, under, rounds;
    double seconds;
} steal_summary;

static steal_summary steal_of(const gb_history_view *v)
{
    steal_summary t = { 0, 0, 0, 0.0 };

    for (int i = 0; i < v->store->nobs; i++) {
        const gb_history_obs *o = &v->store->obs[i];
        if (!shown(v, o->series) || o->steal_known == 0)
            continue;
        t.known++;
        t.under += o->steal_rounds > 0;
        t.rounds += o->steal_rounds;
        t.seconds += o->steal_s;
    }
    return t;
}

static void add_pct(cJSON *o, const char *name, double ratio_minus_1)
{
    if (isnan(ratio_minus_1))
        cJSON_AddNullToObject(o, name);
    else
        cJSON_AddNumberToObject(o, name, 100.0 * ratio_minus_1);
}

static int write_json(FILE *out, const gb_history_view *v)
{
    cJSON *doc = cJSON_CreateObject(), *method, *list;
    char *text;
    int npoints = 0, nseries = 0;

    if (doc == NULL)
        return -1;
    for (int i = 0; i < v->store->nseries; i++)
        if (v->npoints[i] > 0 && (!v->opts.only_machine ||
                                  strcmp(v->store->series[i].machine, v->opts.only_machine) == 0)) {
            nseries++;
            npoints += v->npoints[i];
        }
    cJSON_AddStringToObject(doc, "schema", "gemmbench-history-changes/1");
    cJSON_AddNumberToObject(doc, "files", v->store->nfiles);
    cJSON_AddNumberToObject(doc, "series", nseries);
    cJSON_AddNumberToObject(doc, "points", npoints);
    method = cJSON_AddObjectToObject(doc, "method");
    cJSON_AddStringToObject(method, "split", "E-divisive means (alpha = 1)");
    cJSON_AddStringToObject(method, "value", v->opts.best ? "best" : "median");
    cJSON_AddStringToObject(method, "test", "Welch t on per-commit log values, variance "
                                            "floored by the rounds' noise");
    cJSON_AddNumberToObject(method, "min_segment", GB_CP_MIN_SEGMENT);
    cJSON_AddNumberToObject(method, "p_candidate", GB_CP_P_CANDIDATE);
    cJSON_AddStringToObject(method, "fdr", "Benjamini-Hochberg over the series");
    cJSON_AddNumberToObject(method, "alpha", v->opts.alpha);
    cJSON_AddNumberToObject(method, "min_change", GB_CP_MIN_CHANGE);
    cJSON_AddNumberToObject(method, "threshold_pct", v->opts.threshold_pct);
    cJSON_AddStringToObject(method, "paired", "per epoch on ln(NEW/ANCHOR); a change at least "
                                              "max(threshold, the usual run-to-run difference); "
                                              "pairs wider than 10 % (median): unstable, its "
                                              "changes named with no alarm");
    list = cJSON_AddArrayToObject(doc, "changes");
    for (int c = 0; list && c < v->nchanges; c++) {
        const gb_history_change *ch = &v->changes[c];
        const gb_history_series *se = &v->store->series[ch->series];
        const gb_history_point *pts = v->points[ch->series];
        cJSON *o = cJSON_CreateObject(), *ci;
        if (o == NULL || !cJSON_AddItemToArray(list, o))
            break;
        cJSON_AddStringToObject(o, "series", se->key);
        cJSON_AddStringToObject(o, "machine", se->machine);
        cJSON_AddStringToObject(o, "label", se->label);
        cJSON_AddStringToObject(o, "kernel", se->kernel);
        cJSON_AddStringToObject(o, "dtype", gb_dtype_name(se->dtype));
        cJSON_AddNumberToObject(o, "M", se->M);
        cJSON_AddNumberToObject(o, "K", se->K);
        cJSON_AddNumberToObject(o, "N", se->N);
        cJSON_AddNumberToObject(o, "threads", se->threads);
        cJSON_AddStringToObject(o, "cache", se->cold ? "cold" : "warm");
        cJSON_AddStringToObject(o, "before", pts[ch->at - 1].commit);
        cJSON_AddStringToObject(o, "after", pts[ch->at].commit);
        cJSON_AddStringToObject(o, "before_date", pts[ch->at - 1].date);
        cJSON_AddStringToObject(o, "after_date", pts[ch->at].date);
        cJSON_AddNumberToObject(o, "points_before", ch->at);
        cJSON_AddNumberToObject(o, "points_after", v->npoints[ch->series] - ch->at);
        cJSON_AddNumberToObject(o, "ratio", ch->test.ratio);
        ci = cJSON_AddArrayToObject(o, "ci95");
        cJSON_AddItemToArray(ci, cJSON_CreateNumber(ch->test.lo));
        cJSON_AddItemToArray(ci, cJSON_CreateNumber(ch->test.hi));
        cJSON_AddNumberToObject(o, "p", ch->test.p);
        cJSON_AddNumberToObject(o, "p_adjusted", ch->p_adjusted);
        cJSON_AddStringToObject(o, "direction", ch->test.ratio > 1.0 ? "slower" : "faster");
        cJSON_AddBoolToObject(o, "paired", se->paired);
        if (se->paired) {
            cJSON_AddStringToObject(o, "anchor", pts[ch->at].anchor);
            cJSON_AddNumberToObject(o, "epoch", pts[ch->at].epoch + 1);
        }
        cJSON_AddNumberToObject(o, "min_step_pct", 100.0 * ch->floor);
        if (ch->note)
            cJSON_AddStringToObject(o, "known", ch->note);
        else
            cJSON_AddNullToObject(o, "known");
        cJSON_AddBoolToObject(o, "gate", ch->gate);
        cJSON_AddBoolToObject(o, "unstable", ch->unstable);
    }
    cJSON_AddNumberToObject(doc, "gate_failures", v->ngate);
    {
        /* Slow spells that were the host's: rounds that ran under steal. */
        steal_summary t = steal_of(v);
        cJSON *st = cJSON_AddObjectToObject(doc, "steal");
        cJSON_AddNumberToObject(st, "measurements_recorded", t.known);
        cJSON_AddNumberToObject(st, "measurements_under_steal", t.under);
        cJSON_AddNumberToObject(st, "rounds_under_steal", t.rounds);
        cJSON_AddNumberToObject(st, "seconds", t.seconds);
    }
    {
        /* Paired series whose pairs are too wide to judge: named, never alarms. */
        cJSON *list_u = cJSON_AddArrayToObject(doc, "unstable");
        for (int i = 0; list_u && i < v->store->nseries; i++) {
            cJSON *o;
            if (!shown(v, i) || !v->store->series[i].paired ||
                v->width[i] <= GB_HISTORY_UNSTABLE || (o = cJSON_CreateObject()) == NULL ||
                !cJSON_AddItemToArray(list_u, o))
                continue;
            cJSON_AddStringToObject(o, "series", v->store->series[i].key);
            add_pct(o, "pair_width_pct", v->width[i]);
        }
    }
    {
        double sd, det;
        int worst, n = noise_summary(v, &sd, &det, &worst);
        cJSON *noise = cJSON_AddObjectToObject(doc, "noise"), *per;
        cJSON_AddStringToObject(noise, "method", "between-run sd of a point's log median from "
                                                 "successive points; detectable: 80 % power at "
                                                 "p < alpha, before the FDR");
        cJSON_AddNumberToObject(noise, "after", GB_HISTORY_AFTER);
        cJSON_AddNumberToObject(noise, "series", n);
        add_pct(noise, "median_pct", expm1(sd));
        add_pct(noise, "median_detectable_pct", det);
        per = cJSON_AddArrayToObject(noise, "per_series");
        for (int i = 0; per && i < v->store->nseries; i++) {
            cJSON *o;
            if (!shown(v, i) || (o = cJSON_CreateObject()) == NULL || !cJSON_AddItemToArray(per, o))
                continue;
            cJSON_AddStringToObject(o, "series", v->store->series[i].key);
            cJSON_AddNumberToObject(o, "points", v->npoints[i]);
            add_pct(o, "noise_pct", expm1(v->noise[i].sd));
            add_pct(o, "detectable_pct", v->noise[i].detectable);
            cJSON_AddBoolToObject(o, "paired", v->store->series[i].paired);
            if (v->store->series[i].paired) {
                cJSON_AddNumberToObject(o, "epochs", v->nepochs[i]);
                add_pct(o, "usual_difference_pct", v->usual[i]);
                add_pct(o, "pair_width_pct", v->width[i]);
                cJSON_AddBoolToObject(o, "unstable", !(v->width[i] <= GB_HISTORY_UNSTABLE));
            }
        }
    }
    text = cJSON_Print(doc);
    cJSON_Delete(doc);
    if (text == NULL)
        return -1;
    fprintf(out, "%s\n", text);
    free(text);
    return 0;
}

int gb_history_write_changes(FILE *out, int json, const gb_history_view *v)
{
    int npoints = 0, nseries = 0, ignored = 0;

    if (json)
        return write_json(out, v);
    for (int i = 0; i < v->store->nseries; i++) {
        int mine = !v->opts.only_machine ||
                   strcmp(v->store->series[i].machine, v->opts.only_machine) == 0;
        if (mine && v->npoints[i] > 0) {
            nseries++;
            npoints += v->npoints[i];
        }
        /* also a series annotations left empty */
        ignored += mine ? v->ignored[i] : 0;
    }
    fprintf(out, "%d files, %d series, %d points", v->store->nfiles, nseries, npoints);
    if (ignored)
        fprintf(out, " (%d left out by annotations)", ignored);
    fprintf(out, "; E-divisive + Welch t on each commit's %s, BH-adjusted p < %g\n",
            v->opts.best ? "fastest round" : "median", v->opts.alpha);
    {
        double sd, det;
        int worst, n = noise_summary(v, &sd, &det, &worst);
        if (n > 0)
            fprintf(out, "noise between runs: %.1f %% (median of %d series; the most: %.1f %%, "
                         "%s); a step under %.1f %% is unlikely to be found with %d commits "
                         "after it\n",
                    100.0 * expm1(sd), n, 100.0 * expm1(v->noise[worst].sd),
                    v->store->series[worst].key, 100.0 * det, GB_HISTORY_AFTER);
    }
    {
        steal_summary t = steal_of(v);
        if (t.under > 0)
            fprintf(out, "steal: %d of %d measurements ran rounds under the host's steal (%d "
                         "rounds, %.2f s): slow spells there are the host's\n",
                    t.under, t.known, t.rounds, t.seconds);
        else if (t.known > 0)
            fprintf(out, "steal: none in the %d measurements that record it\n", t.known);
    }
    if (v->nunstable) {
        fprintf(out, "unstable (pairs wider than %.0f %%, no alarms):", 100.0 * GB_HISTORY_UNSTABLE);
        for (int i = 0; i < v->store->nseries; i++)
            if (shown(v, i) && v->store->series[i].paired && !(v->width[i] <= GB_HISTORY_UNSTABLE))
                fprintf(out, " %s (%.0f %%)", v->store->series[i].key, 100.0 * v->width[i]);
        fputc('\n', out);
    }
    fputc('\n', out);
    if (v->nchanges == 0) {
        fprintf(out, "no change point\n");
    } else {
        fprintf(out, "%-52s %-25s %7s %17s %9s %9s  %s\n", "series", "before..after", "ratio",
                "95% CI", "p", "adj. p", "verdict");
        for (int c = 0; c < v->nchanges; c++) {
            const gb_history_change *ch = &v->changes[c];
            const gb_history_point *pts = v->points[ch->series];
            char range[64], ci[40];
            snprintf(range, sizeof range, "%.12s..%.12s", pts[ch->at - 1].commit,
                     pts[ch->at].commit);
            snprintf(ci, sizeof ci, "[%.3f, %.3f]", ch->test.lo, ch->test.hi);
            fprintf(out, "%-52s %-25s %7.3f %17s %9.2g %9.2g  %s%s\n",
                    v->store->series[ch->series].key, range, ch->test.ratio, ci, ch->test.p,
                    ch->p_adjusted,
                    ch->note ? "known: " : ch->gate ? "SLOWER (gate)"
                               : ch->test.ratio > 1.0 ? "slower"
                                                      : "faster",
                    ch->note ? ch->note : ch->unstable ? " (unstable series: no alarm)" : "");
        }
    }
    fprintf(out, "\ngate: %s (%d unannotated slowdowns past %g%%)\n",
            v->ngate ? "FAIL" : "pass", v->ngate, v->opts.threshold_pct);
    return 0;
}
