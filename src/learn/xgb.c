/*
 * xgb.c - the one file that includes <xgboost/c_api.h> (Debian's
 * libxgboost-dev), as reference_*.c own the BLAS libraries: gradient-boosted
 * trees trained on rows of features, predicting, saved to and loaded from
 * XGBoost's own JSON.  Every call's status is checked and XGBGetLastError()
 * named in the one-line error.  The rest of gemmbench sees learn.h's small
 * interface, never the library's handles.
 *
 * Without the library (the Makefile's probe, GB_HAVE_XGBOOST) every entry
 * point fails with one line that says how to get it.
 */
#include "learn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef GB_HAVE_XGBOOST
#include <dlfcn.h>
#include <xgboost/c_api.h>

/* The trees: depth 3 and 0.1 shrinkage over 300 rounds; the exact greedy
 * split finder and one thread, so that a seed gives one model bit for bit;
 * no row or column sampling.  Depth 3 rather than XGBoost's 6: a model
 * predicts shapes it never saw, and shallower trees carry fewer of the
 * trained shapes' particulars there (leave one shape out, offline on two
 * Intel Xeon databases of 24 shapes: the first pick's time over the
 * fastest measured 1.223 and 1.346 at depth 3, 1.302 and 1.479 at 6;
 * results/notes/ml-guided.md). */
#define ROUNDS 300
static const char *const train_params[][2] = {
    { "objective", "reg:squarederror" },
    { "tree_method", "exact" },
    { "max_depth", "3" },
    { "eta", "0.1" },
    { "min_child_weight", "1" },
    { "subsample", "1" },
    { "nthread", "1" },
    { "verbosity", "0" },
};

struct gb_xgb {
    BoosterHandle booster;
    int cols;
};

/* XGBoost is opened when a model is first trained or loaded, not when
 * gemmbench starts: linked, libxgboost and what it needs (libdmlc) took
 * 5.8 ms of every run's CPU to load and relocate (AMD EPYC guest; a tenth
 * of a small run's), and only `model train`, `tune --model` and a run's
 * --model use it.  GB_XGBOOST_SONAME is the library the build probed (the
 * Makefile reads its SONAME). */
#define XGB_API(X)                                                                          \
    X(XGBGetLastError) X(XGBSetGlobalConfig) X(XGBoosterCreate) X(XGBoosterFree)            \
    X(XGBoosterFeatureScore) X(XGBoosterGetNumFeature) X(XGBoosterLoadModelFromBuffer)       \
    X(XGBoosterPredict) X(XGBoosterSaveModelToBuffer) X(XGBoosterSetParam)                  \
    X(XGBoosterUpdateOneIter) X(XGDMatrixCreateFromMat) X(XGDMatrixFree)                    \
    X(XGDMatrixSetFloatInfo)
#define XGB_FIELD(f) __typeof__(&f) f;
static struct {
    XGB_API(XGB_FIELD)
} xgb;
static int xgb_state;          /* 0 not tried, 1 opened, -1 not available */
static char xgb_why[512];

/* Opens the library and finds every function: 1, or 0 with xgb_why. */
static int xgb_open(void)
{
    void *lib;

    if (xgb_state != 0)
        return xgb_state > 0;
    xgb_state = -1;
    lib = dlopen(GB_XGBOOST_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        snprintf(xgb_why, sizeof xgb_why, "XGBoost's library did not load (%s): install "
                 "libxgboost-dev (scripts/setup.sh does, as root)", dlerror());
        return 0;
    }
#define XGB_FIND(f)                                                                         \
    {                                                                                       \
        void *sym = dlsym(lib, #f);                                                         \
        if (sym == NULL) {                                                                  \
            snprintf(xgb_why, sizeof xgb_why, "XGBoost's library %s has no %s: rebuild "     \
                     "against the installed one", GB_XGBOOST_SONAME, #f);                   \
            dlclose(lib);                                                                   \
            return 0;                                                                       \
        }                                                                                   \
        memcpy(&xgb.f, &sym, sizeof sym);                                                   \
    }
    XGB_API(XGB_FIND)
    xgb_state = 1;
    return 1;
}

int gb_xgb_available(void)
{
    return xgb_open();
}

const char *gb_xgb_missing(void)
{
    return xgb_open() ? "" : xgb_why;
}

/* The library's last error as the line's end. */
static int fail(char *err, size_t errlen, const char *what)
{
    snprintf(err, errlen, "xgboost: %s: %s", what, xgb.XGBGetLastError());
    return -1;
}

/* Quiet: XGBoost warns on stdout/stderr by itself, which a command's
 * output must not carry. */
static int quiet(char *err, size_t errlen)
{
    return xgb.XGBSetGlobalConfig("{\"verbosity\": 0}") == 0 ? 0 : fail(err, errlen, "set config");
}

void gb_xgb_free(gb_xgb *x)
{
    if (x == NULL)
        return;
    if (x->booster)
        xgb.XGBoosterFree(x->booster);
    free(x);
}

static gb_xgb *booster_new(int cols, char *err, size_t errlen)
{
    gb_xgb *x = calloc(1, sizeof *x);

    if (x == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    x->cols = cols;
    if (quiet(err, errlen) != 0 || xgb.XGBoosterCreate(NULL, 0, &x->booster) != 0) {
        if (x->booster == NULL)
            fail(err, errlen, "create a booster");
        gb_xgb_free(x);
        return NULL;
    }
    return x;
}

int gb_xgb_train(const float *X, const float *y, int rows, int cols, unsigned seed,
                 gb_xgb **out, char *err, size_t errlen)
{
    DMatrixHandle dm = NULL;
    gb_xgb *x;
    char seed_text[16];
    int rc = -1;

    *out = NULL;
    if (!xgb_open()) {
        snprintf(err, errlen, "%s", xgb_why);
        return -1;
    }
    if ((x = booster_new(cols, err, errlen)) == NULL)
        return -1;
    if (xgb.XGDMatrixCreateFromMat(X, (bst_ulong)rows, (bst_ulong)cols, NAN, &dm) != 0) {
        fail(err, errlen, "the training matrix");
        goto done;
    }
    if (xgb.XGDMatrixSetFloatInfo(dm, "label", y, (bst_ulong)rows) != 0) {
        fail(err, errlen, "the labels");
        goto done;
    }
    xgb.XGBoosterFree(x->booster);
    x->booster = NULL;
    if (xgb.XGBoosterCreate(&dm, 1, &x->booster) != 0) {
        fail(err, errlen, "create a booster");
        goto done;
    }
    snprintf(seed_text, sizeof seed_text, "%u", seed);
    for (size_t i = 0; i < sizeof train_params / sizeof train_params[0]; i++)
        if (xgb.XGBoosterSetParam(x->booster, train_params[i][0], train_params[i][1]) != 0) {
            fail(err, errlen, train_params[i][0]);
            goto done;
        }
    if (xgb.XGBoosterSetParam(x->booster, "seed", seed_text) != 0) {
        fail(err, errlen, "seed");
        goto done;
    }
    for (int round = 0; round < ROUNDS; round++)
        if (xgb.XGBoosterUpdateOneIter(x->booster, round, dm) != 0) {
            fail(err, errlen, "a boosting round");
            goto done;
        }
    rc = 0;
done:
    if (dm)
        xgb.XGDMatrixFree(dm);
    if (rc == 0)
        *out = x;
    else
        gb_xgb_free(x);
    return rc;
}

int gb_xgb_predict(const gb_xgb *x, const float *X, int rows, float *out, char *err,
                   size_t errlen)
{
    DMatrixHandle dm = NULL;
    bst_ulong n = 0;
    const float *pred = NULL;
    int rc = -1;

    if (xgb.XGDMatrixCreateFromMat(X, (bst_ulong)rows, (bst_ulong)x->cols, NAN, &dm) != 0)
        return fail(err, errlen, "the candidates' matrix");
    if (xgb.XGBoosterPredict(x->booster, dm, 0, 0, 0, &n, &pred) != 0)
        fail(err, errlen, "predict");
    else if (n != (bst_ulong)rows)
        snprintf(err, errlen, "xgboost: predict: %lu predictions for %d rows", (unsigned long)n,
                 rows);
    else {
        memcpy(out, pred, (size_t)rows * sizeof *out);
        rc = 0;
    }
    xgb.XGDMatrixFree(dm);
    return rc;
}

int gb_xgb_save(const gb_xgb *x, char **json, size_t *len, char *err, size_t errlen)
{
    bst_ulong n = 0;
    const char *buf = NULL;

    *json = NULL;
    if (xgb.XGBoosterSaveModelToBuffer(x->booster, "{\"format\": \"json\"}", &n, &buf) != 0)
        return fail(err, errlen, "save the model");
    if ((*json = malloc((size_t)n + 1)) == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    memcpy(*json, buf, (size_t)n);
    (*json)[n] = '\0';
    *len = (size_t)n;
    return 0;
}

int gb_xgb_load(const char *json, size_t len, int cols, gb_xgb **out, char *err, size_t errlen)
{
    gb_xgb *x;
    bst_ulong features = 0;

    *out = NULL;
    if (!xgb_open()) {
        snprintf(err, errlen, "%s", xgb_why);
        return -1;
    }
    if ((x = booster_new(cols, err, errlen)) == NULL)
        return -1;
    if (xgb.XGBoosterLoadModelFromBuffer(x->booster, json, (bst_ulong)len) != 0) {
        fail(err, errlen, "load the model");
        gb_xgb_free(x);
        return -1;
    }
    /* A model of another column count would read past each row. */
    if (xgb.XGBoosterGetNumFeature(x->booster, &features) != 0 || features != (bst_ulong)cols) {
        snprintf(err, errlen, "xgboost: the model reads %lu features, not %d",
                 (unsigned long)features, cols);
        gb_xgb_free(x);
        return -1;
    }
    if (xgb.XGBoosterSetParam(x->booster, "nthread", "1") != 0) {
        fail(err, errlen, "nthread");
        gb_xgb_free(x);
        return -1;
    }
    *out = x;
    return 0;
}

int gb_xgb_gain(const gb_xgb *x, double *gain, char *err, size_t errlen)
{
    bst_ulong n = 0, dim = 0;
    const char **names = NULL;
    const bst_ulong *shape = NULL;
    const float *scores = NULL;

    for (int c = 0; c < x->cols; c++)
        gain[c] = 0.0;
    if (xgb.XGBoosterFeatureScore(x->booster, "{\"importance_type\": \"total_gain\"}", &n, &names,
                              &dim, &shape, &scores) != 0)
        return fail(err, errlen, "feature scores");
    /* unnamed columns are "f0", "f1", ...: a column never split on is absent */
    for (bst_ulong i = 0; i < n; i++) {
        char *end;
        long c = names[i][0] == 'f' ? strtol(names[i] + 1, &end, 10) : -1;
        if (c >= 0 && c < x->cols)
            gain[c] = scores[i];
    }
    return 0;
}

#else /* no XGBoost: said once, by every entry point */

struct gb_xgb {
    int unused;
};

int gb_xgb_available(void)
{
    return 0;
}

const char *gb_xgb_missing(void)
{
    return GB_XGB_MISSING;
}

static int missing(char *err, size_t errlen)
{
    snprintf(err, errlen, "%s", GB_XGB_MISSING);
    return -1;
}

int gb_xgb_train(const float *X, const float *y, int rows, int cols, unsigned seed,
                 gb_xgb **out, char *err, size_t errlen)
{
    (void)X, (void)y, (void)rows, (void)cols, (void)seed;
    *out = NULL;
    return missing(err, errlen);
}

int gb_xgb_predict(const gb_xgb *x, const float *X, int rows, float *out, char *err,
                   size_t errlen)
{
    (void)x, (void)X, (void)rows, (void)out;
    return missing(err, errlen);
}

int gb_xgb_save(const gb_xgb *x, char **json, size_t *len, char *err, size_t errlen)
{
    (void)x, (void)len;
    *json = NULL;
    return missing(err, errlen);
}

int gb_xgb_load(const char *json, size_t len, int cols, gb_xgb **out, char *err, size_t errlen)
{
    (void)json, (void)len, (void)cols;
    *out = NULL;
    return missing(err, errlen);
}

int gb_xgb_gain(const gb_xgb *x, double *gain, char *err, size_t errlen)
{
    (void)x, (void)gain;
    return missing(err, errlen);
}

void gb_xgb_free(gb_xgb *x)
{
    (void)x;
}

#endif
