/*
 * trees.c - XGBoost's JSON model checked before XGBoost sees it.  The
 * library trusts the file it loads: a child index out of range, two nodes
 * pointing at each other, a negative split index or a `num_trees` larger
 * than the trees given end the process (SIGSEGV) when it predicts.  A model
 * is a file people share, so the booster inside it is read here first, as
 * the one kind gemmbench writes (gb_xgb_train): gradient-boosted trees of
 * one target, squared error, numeric splits on the model's columns; each
 * tree a proper binary tree (every node reached once from the root, each
 * child after its parent) with its arrays as long as it says.  No library
 * call: the fuzzer runs it in a build without XGBoost.
 */
#define _POSIX_C_SOURCE 200809L
#include "inputfile.h"
#include "learn.h"
#include "parse.h"
#include "sweep.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Trees and nodes a model may hold: gb_xgb_train grows 300 of depth 3 (at
 * most 15 nodes); the bounds only keep a hostile file's work finite. */
#define MAX_TREES 100000
#define MAX_NODES 1000000
#define MAX_DEPTH 64
/* What the trees may add up to, ln(median_us / (2 M N K)): a real model's
 * lie about -25..0 (its 300 trees' largest leaves and base_score summed:
 * -8 on the tests' fixture).  At most the time of GB_LEARN_MAX_US for the
 * smallest shape (2 operations), at least -MAX_MARGIN (exp() stays
 * positive): a leaf of 1e30 or a base_score of 1E30 would predict an
 * infinite time, a base_score of 100 one of 10^43 us. */
#define MAX_MARGIN 200.0
#define MAX_ABOVE log(GB_LEARN_MAX_US / 2.0)
/* XGBoost's parent of the root (kInvalidNodeId without its left-child bit). */
#define ROOT_PARENT 2147483647.0

static const cJSON *member(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* The keys of o all among keys (NULL-ended): a key XGBoost reads that is
 * not checked here would reach it unchecked. */
static int keys_among(const cJSON *o, const char *what, const char *const *keys, char *why,
                      size_t whylen)
{
    for (const cJSON *it = o->child; it; it = it->next) {
        int known = 0;
        for (int k = 0; keys[k] && !known; k++)
            known = strcmp(it->string, keys[k]) == 0;
        if (!known) {
            char shown[64];
            gb_printable(it->string, 40, shown, sizeof shown);
            snprintf(why, whylen, "%s: unknown key '%s'", what, shown);
            return -1;
        }
    }
    return 0;
}

/* An object at key of o, or NULL with why. */
static const cJSON *object_at(const cJSON *o, const char *key, char *why, size_t whylen)
{
    const cJSON *v = member(o, key);

    if (!cJSON_IsObject(v)) {
        snprintf(why, whylen, "\"%s\" is not an object", key);
        return NULL;
    }
    return v;
}

/* The string at key equal to want. */
static int string_is(const cJSON *o, const char *key, const char *want, char *why,
                     size_t whylen)
{
    const cJSON *v = member(o, key);

    if (!cJSON_IsString(v) || strcmp(v->valuestring, want) != 0) {
        snprintf(why, whylen, "\"%s\" is not \"%s\"", key, want);
        return -1;
    }
    return 0;
}

/* XGBoost writes its parameters as strings: an integer in [lo, hi] as a
 * string at key into *out. */
static int count_at(const cJSON *o, const char *key, long lo, long hi, long *out, char *why,
                    size_t whylen)
{
    const cJSON *v = member(o, key);
    char *end;
    long n;

    errno = 0;
    if (!cJSON_IsString(v) || v->valuestring[0] < '0' || v->valuestring[0] > '9' ||
        (n = strtol(v->valuestring, &end, 10), *end != '\0') || errno != 0 || n < lo ||
        n > hi) {
        snprintf(why, whylen, "\"%s\" is not an integer in %ld..%ld", key, lo, hi);
        return -1;
    }
    *out = n;
    return 0;
}

/* An empty array at key, or no key (the features carry no names or types,
 * and no split is categorical). */
static int empty_or_absent(const cJSON *o, const char *key, char *why, size_t whylen)
{
    const cJSON *v = member(o, key);

    if (v != NULL && (!cJSON_IsArray(v) || v->child != NULL)) {
        snprintf(why, whylen, "\"%s\" is not an empty list", key);
        return -1;
    }
    return 0;
}

/* The array at key of n finite numbers into out[n] (integers when whole). */
static int numbers_at(const cJSON *o, const char *key, long n, int whole, double *out, char *why,
                      size_t whylen)
{
    const cJSON *a = member(o, key);
    long i = 0;

    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n) {
        snprintf(why, whylen, "\"%s\" is not a list of %ld numbers", key, n);
        return -1;
    }
    for (const cJSON *v = a->child; v; v = v->next, i++) {
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) ||
            (whole && v->valuedouble != floor(v->valuedouble))) {
            snprintf(why, whylen, "\"%s\" %ld is not %s", key, i + 1,
                     whole ? "an integer" : "a finite number");
            return -1;
        }
        out[i] = v->valuedouble;
    }
    return 0;
}

static const char *const tree_keys[] = { "base_weights", "categories", "categories_nodes",
                                         "categories_segments", "categories_sizes",
                                         "default_left", "id", "left_children", "loss_changes",
                                         "parents", "right_children", "split_conditions",
                                         "split_indices", "split_type", "sum_hessian",
                                         "tree_param", NULL };
static const char *const tree_param_keys[] = { "num_deleted", "num_feature", "num_nodes",
                                               "size_leaf_vector", NULL };

/* The per-node arrays of a tree of n nodes (one block, six columns). */
enum { LEFT, RIGHT, PARENT, SPLIT, VALUE, DEFAULT_LEFT, COLUMNS };

/* Walks tree t (n nodes, columns in col) from the root: each node once,
 * children after their parent, the leaves' smallest and largest values into
 * leaf[0] and leaf[1]. */
static int walk(long n, double *const col[COLUMNS], int cols, double leaf[2], char *why,
                size_t whylen)
{
    long *stack = malloc((size_t)n * sizeof *stack), *depth = malloc((size_t)n * sizeof *depth);
    char *seen = calloc((size_t)n, 1);
    long top = 0, reached = 0;
    int rc = -1;

    if (stack == NULL || depth == NULL || seen == NULL) {
        snprintf(why, whylen, "out of memory");
        goto done;
    }
    if (col[PARENT][0] != ROOT_PARENT) {
        snprintf(why, whylen, "node 0 (the root) has a parent");
        goto done;
    }
    leaf[0] = INFINITY, leaf[1] = -INFINITY;
    stack[top] = 0, depth[top++] = 0, seen[0] = 1;
    while (top > 0) {
        long v = stack[--top], d = depth[top];
        double l = col[LEFT][v], r = col[RIGHT][v];

        reached++;
        if (col[SPLIT][v] < 0 || col[SPLIT][v] >= cols) {
            snprintf(why, whylen, "node %ld splits on column %.0f of %d", v, col[SPLIT][v], cols);
            goto done;
        }
        if (col[DEFAULT_LEFT][v] != 0 && col[DEFAULT_LEFT][v] != 1) {
            snprintf(why, whylen, "node %ld: \"default_left\" is not 0 or 1", v);
            goto done;
        }
        if (l == -1 && r == -1) { /* a leaf: its value is the split condition */
            leaf[0] = fmin(leaf[0], col[VALUE][v]);
            leaf[1] = fmax(leaf[1], col[VALUE][v]);
            continue;
        }
        /* children after their parent: no cycle, whatever else is wrong */
        if (l <= v || l >= n || r <= v || r >= n || l == r) {
            snprintf(why, whylen, "node %ld has children %.0f and %.0f (of %ld nodes)", v, l, r,
                     n);
            goto done;
        }
        if (seen[(long)l] || seen[(long)r]) {
            snprintf(why, whylen, "node %.0f is reached twice", seen[(long)l] ? l : r);
            goto done;
        }
        if (col[PARENT][(long)l] != v || col[PARENT][(long)r] != v) {
            snprintf(why, whylen, "node %ld's children do not name it their parent", v);
            goto done;
        }
        if (d + 1 > MAX_DEPTH) {
            snprintf(why, whylen, "deeper than %d", MAX_DEPTH);
            goto done;
        }
        seen[(long)l] = seen[(long)r] = 1;
        stack[top] = (long)l, depth[top++] = d + 1;
        stack[top] = (long)r, depth[top++] = d + 1;
    }
    if (reached != n) {
        snprintf(why, whylen, "%ld of its %ld nodes are not reached from the root", n - reached,
                 n);
        goto done;
    }
    rc = 0;
done:
    free(stack);
    free(depth);
    free(seen);
    return rc;
}

/* Tree number i (t) of a model reading cols columns; its smallest and
 * largest leaves. */
static int check_tree(const cJSON *t, long i, int cols, long *nodes_left, double leaf[2],
                      char *why, size_t whylen)
{
    const cJSON *param, *id = member(t, "id");
    double *block = NULL, *col[COLUMNS], *scratch = NULL;
    long n, features, zero;
    int rc = -1;
    static const char *const names[COLUMNS] = { "left_children", "right_children", "parents",
                                                "split_indices", "split_conditions",
                                                "default_left" };
    static const char *const other[] = { "split_type", "base_weights", "loss_changes",
                                         "sum_hessian", NULL };

    if (!cJSON_IsObject(t) || keys_among(t, "tree", tree_keys, why, whylen) != 0) {
        if (!cJSON_IsObject(t))
            snprintf(why, whylen, "not an object");
        return -1;
    }
    if (!cJSON_IsNumber(id) || id->valuedouble != (double)i) {
        snprintf(why, whylen, "\"id\" is not %ld", i);
        return -1;
    }
    if ((param = object_at(t, "tree_param", why, whylen)) == NULL ||
        keys_among(param, "\"tree_param\"", tree_param_keys, why, whylen) != 0 ||
        count_at(param, "num_nodes", 1, *nodes_left, &n, why, whylen) != 0 ||
        count_at(param, "num_feature", cols, cols, &features, why, whylen) != 0 ||
        count_at(param, "num_deleted", 0, 0, &zero, why, whylen) != 0 ||
        count_at(param, "size_leaf_vector", 0, 0, &zero, why, whylen) != 0)
        return -1;
    *nodes_left -= n;
    for (int k = 0; k < 4; k++)
        if (empty_or_absent(t, tree_keys[1 + k], why, whylen) != 0)
            return -1;
    block = malloc((size_t)n * COLUMNS * sizeof *block);
    scratch = malloc((size_t)n * sizeof *scratch);
    if (block == NULL || scratch == NULL) {
        snprintf(why, whylen, "out of memory");
        goto done;
    }
    for (int c = 0; c < COLUMNS; c++) {
        col[c] = block + (size_t)c * (size_t)n;
        if (numbers_at(t, names[c], n, c != VALUE, col[c], why, whylen) != 0)
            goto done;
    }
    /* numerical splits only (split_type 0), the rest finite */
    for (int k = 0; other[k]; k++) {
        if (numbers_at(t, other[k], n, k == 0, scratch, why, whylen) != 0)
            goto done;
        for (long v = 0; k == 0 && v < n; v++)
            if (scratch[v] != 0.0) {
                snprintf(why, whylen, "node %ld's split is not numerical", v);
                goto done;
            }
    }
    rc = walk(n, col, cols, leaf, why, whylen);
done:
    free(block);
    free(scratch);
    return rc;
}

static const char *const top_keys[] = { "learner", "version", NULL };
static const char *const learner_keys[] = { "attributes", "feature_names", "feature_types",
                                            "gradient_booster", "learner_model_param",
                                            "objective", NULL };
static const char *const param_keys[] = { "base_score", "boost_from_average", "num_class",
                                          "num_feature", "num_target", NULL };
static const char *const booster_keys[] = { "model", "name", NULL };
static const char *const model_keys[] = { "gbtree_model_param", "tree_info", "trees", NULL };
static const char *const gbtree_keys[] = { "num_parallel_tree", "num_trees",
                                           "size_leaf_vector", NULL };

/* The learner's parameters: one target, cols columns, a finite base. */
static int check_params(const cJSON *learner, int cols, double *base, char *why, size_t whylen)
{
    const cJSON *p = object_at(learner, "learner_model_param", why, whylen), *b;
    long n;
    char *end;

    if (p == NULL || keys_among(p, "\"learner_model_param\"", param_keys, why, whylen) != 0 ||
        count_at(p, "num_feature", cols, cols, &n, why, whylen) != 0 ||
        count_at(p, "num_class", 0, 0, &n, why, whylen) != 0 ||
        (member(p, "num_target") && count_at(p, "num_target", 1, 1, &n, why, whylen) != 0))
        return -1;
    b = member(p, "base_score");
    if (!cJSON_IsString(b) || (*base = strtod(b->valuestring, &end), *end != '\0') ||
        end == b->valuestring || !isfinite(*base) || fabs(*base) > MAX_MARGIN) {
        snprintf(why, whylen, "\"base_score\" is not a number in -%.0f..%.0f", MAX_MARGIN,
                 MAX_MARGIN);
        return -1;
    }
    return 0;
}

static int check_booster(const cJSON *doc, int cols, char *why, size_t whylen)
{
    const cJSON *learner, *booster, *model, *param, *objective, *info, *trees, *attrs;
    double base, lowest, highest, leaf[2];
    long ntrees, one, nodes_left = MAX_NODES, i = 0;
    char part[GB_ERR_LEN];

    if (!cJSON_IsObject(doc)) {
        snprintf(why, whylen, "not a JSON object");
        return -1;
    }
    if (keys_among(doc, "its top", top_keys, why, whylen) != 0 ||
        (learner = object_at(doc, "learner", why, whylen)) == NULL ||
        keys_among(learner, "\"learner\"", learner_keys, why, whylen) != 0)
        return -1;
    {   /* the library version that wrote it: three counts, when given */
        const cJSON *version = member(doc, "version");
        int n = 0;
        for (const cJSON *c = version ? version->child : NULL; c; c = c->next, n++)
            if (!cJSON_IsNumber(c) || c->valuedouble < 0 || c->valuedouble > 1e6 ||
                c->valuedouble != floor(c->valuedouble))
                n = 99;
        if (version != NULL && (!cJSON_IsArray(version) || n != 3)) {
            snprintf(why, whylen, "\"version\" is not three counts");
            return -1;
        }
    }
    attrs = member(learner, "attributes");
    if (attrs != NULL && (!cJSON_IsObject(attrs) || attrs->child != NULL)) {
        snprintf(why, whylen, "\"attributes\" is not empty");
        return -1;
    }
    if (empty_or_absent(learner, "feature_names", why, whylen) != 0 ||
        empty_or_absent(learner, "feature_types", why, whylen) != 0 ||
        check_params(learner, cols, &base, why, whylen) != 0 ||
        (objective = object_at(learner, "objective", why, whylen)) == NULL ||
        string_is(objective, "name", "reg:squarederror", why, whylen) != 0 ||
        (booster = object_at(learner, "gradient_booster", why, whylen)) == NULL ||
        keys_among(booster, "\"gradient_booster\"", booster_keys, why, whylen) != 0 ||
        string_is(booster, "name", "gbtree", why, whylen) != 0 ||
        (model = object_at(booster, "model", why, whylen)) == NULL ||
        keys_among(model, "\"model\"", model_keys, why, whylen) != 0 ||
        (param = object_at(model, "gbtree_model_param", why, whylen)) == NULL ||
        keys_among(param, "\"gbtree_model_param\"", gbtree_keys, why, whylen) != 0 ||
        count_at(param, "num_trees", 0, MAX_TREES, &ntrees, why, whylen) != 0 ||
        count_at(param, "num_parallel_tree", 1, 1, &one, why, whylen) != 0 ||
        (member(param, "size_leaf_vector") &&
         count_at(param, "size_leaf_vector", 0, 0, &one, why, whylen) != 0))
        return -1;
    trees = member(model, "trees");
    info = member(model, "tree_info");
    if (!cJSON_IsArray(trees) || cJSON_GetArraySize(trees) != ntrees) {
        snprintf(why, whylen, "\"num_trees\" is %ld, and %d trees are given", ntrees,
                 cJSON_IsArray(trees) ? cJSON_GetArraySize(trees) : 0);
        return -1;
    }
    if (!cJSON_IsArray(info) || cJSON_GetArraySize(info) != ntrees) {
        snprintf(why, whylen, "\"tree_info\" is not a list of %ld zeros", ntrees);
        return -1;
    }
    for (const cJSON *g = info->child; g; g = g->next)
        if (!cJSON_IsNumber(g) || g->valuedouble != 0.0) {
            snprintf(why, whylen, "\"tree_info\" is not a list of %ld zeros (one target)", ntrees);
            return -1;
        }
    lowest = highest = base;
    for (const cJSON *t = trees->child; t; t = t->next, i++) {
        if (check_tree(t, i, cols, &nodes_left, leaf, part, sizeof part) != 0) {
            snprintf(why, whylen, "tree %ld: %s", i, part);
            return -1;
        }
        lowest += leaf[0];
        highest += leaf[1];
    }
    if (highest > MAX_ABOVE || lowest < -MAX_MARGIN) {
        snprintf(why, whylen, "its trees can add up to ln(time per operation) of %.3g: no time "
                 "(a leaf or base_score out of range; at most %.1f, at least -%.0f)",
                 highest > MAX_ABOVE ? highest : lowest, MAX_ABOVE, MAX_MARGIN);
        return -1;
    }
    return 0;
}

int gb_xgb_check(const char *json, int cols, char *why, size_t whylen)
{
    char part[GB_ERR_LEN];
    cJSON *doc = gb_json_parse_strict(json, part, sizeof part);
    int rc;

    if (doc == NULL) {
        snprintf(why, whylen, "XGBoost's model: %s", part);
        return -1;
    }
    rc = check_booster(doc, cols, part, sizeof part);
    if (rc != 0)
        snprintf(why, whylen, "XGBoost's model: %s", part);
    cJSON_Delete(doc);
    return rc;
}
