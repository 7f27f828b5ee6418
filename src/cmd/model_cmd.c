/*
 * model_cmd.c - `gemmbench model train --database FILE... -o MODEL`: the
 * cost model of ml_guided and of `tune --space --model`, fitted to trial
 * databases (learn.h; src/learn/LEARN.md).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"
#include "learn.h"
#include "outpath.h"
#include "parse.h"
#include "settings.h"
#include "sweep.h"

#define MAX_DATABASES 64
#define EXPLAIN_TOP 10     /* features --explain prints */

static const char model_intro[] =
    "usage: gemmbench model train --database FILE... -o MODEL [options]\n"
    "  fits gradient-boosted trees (XGBoost) to ln(median time) of the candidates\n"
    "  that `tune --space ... --database FILE` measured, each described by features of\n"
    "  its planned loop nest (src/learn/LEARN.md); ml_guided (--model MODEL) and\n"
    "  `tune --space --model MODEL` rank candidates with it\n";

typedef struct model_args {
    const char *databases[MAX_DATABASES];
    int ndatabases;
    const char *output, *space;
    unsigned seed;
    int elites, explain, force, help;
} model_args;

static int store_setting(void *target, const gb_setting *s, const gb_setting_value *v,
                         char *err, size_t errlen)
{
    model_args *a = target;

    switch (s->id) {
    case GB_SET_DATABASE:
        if (a->ndatabases == MAX_DATABASES) {
            snprintf(err, errlen, "%s: at most %d databases", v->name, MAX_DATABASES);
            return -1;
        }
        a->databases[a->ndatabases++] = v->text;
        break;
    case GB_SET_OUTPUT: a->output = v->text; break;
    case GB_SET_SPACE: a->space = v->text; break;
    case GB_SET_SEED: a->seed = (unsigned)v->number; break;
    case GB_SET_ELITES: a->elites = (int)v->number; break;
    case GB_SET_EXPLAIN: a->explain = 1; break;
    case GB_SET_FORCE: a->force = 1; break;
    case GB_SET_HELP: a->help = 1; break;
    default:
        snprintf(err, errlen, "%s is not an option of model", v->name);
        return -1;
    }
    return 0;
}

/* --explain: the features that weigh most, by their total gain. */
static int explain(const gb_learned *l)
{
    double gain[GB_FEATURES_COUNT], total = 0.0;
    int order[GB_FEATURES_COUNT];
    char err[GB_ERR_LEN];

    if (gb_learned_gain(l, gain, err, sizeof err) != 0)
        return gb_fail(GB_EXIT_IO, "model train", "%s", err);
    for (int c = 0; c < GB_FEATURES_COUNT; c++) {
        order[c] = c;
        total += gain[c];
    }
    for (int i = 1; i < GB_FEATURES_COUNT; i++) /* by gain, then by column */
        for (int j = i; j > 0 && gain[order[j - 1]] < gain[order[j]]; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    printf("features that weigh most (share of the trees' total gain):\n");
    for (int i = 0; i < EXPLAIN_TOP && gain[order[i]] > 0.0; i++)
        printf("  %2d. %-24s %5.1f %%\n", i + 1, gb_features_name(order[i]),
               total > 0.0 ? 100.0 * gain[order[i]] / total : 0.0);
    return GB_EXIT_OK;
}

/* One of the errors out of sample: a time ratio, and the shapes held out. */
static void print_error(const char *where, double e, int shapes)
{
    if (isnan(e))
        printf("%s not measured (no such shape to hold out)", where);
    else
        printf("%s %.3fx (%d shape(s) held out)", where, exp(e), shapes);
}

static int train(const model_args *a)
{
    gb_trial_db db = { 0 };
    gb_learned *l = NULL;
    gb_learned_info info;
    char err[GB_ERR_LEN], shown[256], stale[GB_ERR_LEN];
    int skipped[2], status;

    if (a->ndatabases == 0)
        return gb_usage("model train", "give at least one --database FILE");
    if (a->output == NULL || a->output[0] == '\0')
        return gb_usage("model train", "give the model file to write: -o MODEL");
    /* the output before any work: never an input, nor a file of another
     * kind without --force */
    {
        const char *inputs[MAX_DATABASES + 1];
        int n = 0, rc;
        for (int i = 0; i < a->ndatabases; i++)
            inputs[n++] = a->databases[i];
        inputs[n++] = a->space;
        rc = gb_output_check("-o", a->output, inputs, n, gb_learned_is_model, "a model file",
                             a->force, err,
                             sizeof err);
        if (rc != GB_EXIT_OK)
            return gb_fail(rc, "model train", "%s", err);
    }
    /* the databases are read first: a bad line is said with or without XGBoost */
    for (int i = 0; i < a->ndatabases; i++)
        if (gb_trialdb_load(a->databases[i], &db, err, sizeof err) != 0) {
            gb_trialdb_free(&db);
            return gb_fail(GB_EXIT_USAGE, "model train", "%s", err);
        }
    if (!gb_xgb_available()) {
        gb_trialdb_free(&db);
        return gb_fail(GB_EXIT_USAGE, "model train", "%s", gb_xgb_missing());
    }
    if (gb_learned_train(&db, a->space, a->seed, a->elites, &l, skipped, stale, sizeof stale, err,
                         sizeof err) != 0) {
        gb_trialdb_free(&db);
        return gb_fail(GB_EXIT_USAGE, "model train", "%s", err);
    }
    gb_learned_info_of(l, &info);
    if (gb_learned_save(l, a->output, err, sizeof err) != 0) {
        gb_learned_free(l);
        gb_trialdb_free(&db);
        return gb_fail(GB_EXIT_IO, "model train", "%s", err);
    }
    gb_printable(a->output, 200, shown, sizeof shown);
    printf("trained on %d verified trials of %d shape(s) (%d trial(s) in all; %d of another "
           "machine left out), %s, %d lanes, L1d %ld, L2 %ld, L3 %ld bytes; seed %u; "
           "%d elite schedule(s) carried\n",
           info.trials, info.shapes, db.n, skipped[0], info.machine.isa, info.machine.lanes,
           info.machine.l1d, info.machine.l2, info.machine.l3, info.seed, info.nelites);
    if (skipped[1] > 0)
        printf("left out: %d trial(s) whose schedule this build no longer plans for its shape "
               "(measured by a build whose model chose other blocks); the first: %s\n",
               skipped[1], stale);
    printf("error out of sample (a predicted gain over the analytic point that did not hold, "
           "%.0fth percentile): ",
           100.0 * GB_LEARNED_ERROR_QUANTILE);
    print_error("at the edge", info.error.edge, info.error.edge_shapes);
    printf(", ");
    print_error("inside", info.error.inside, info.error.inside_shapes);
    printf("\n");
    printf("wrote %s\n", shown);
    status = a->explain ? explain(l) : GB_EXIT_OK;
    gb_learned_free(l);
    gb_trialdb_free(&db);
    return status == GB_EXIT_OK ? gb_finish_stdout("model train") : status;
}

int gb_cmd_model(int argc, char **argv)
{
    static model_args a;
    char err[GB_ERR_LEN], action[80];
    int first;

    memset(&a, 0, sizeof a);
    gb_settings_defaults(GB_CMD_MODEL, store_setting, &a, err, sizeof err);
    first = gb_settings_parse_args(GB_CMD_MODEL, argc - 1, argv + 1, 0, store_setting, &a, err,
                                   sizeof err);
    if (first < 0)
        return gb_usage("model", "%s", err);
    if (a.help)
        return gb_help_command("model", GB_CMD_MODEL, model_intro, "");
    first++; /* back to argv's numbering */
    if (first >= argc)
        return gb_usage("model", "expected an action: train");
    gb_printable(argv[first], 60, action, sizeof action);
    if (strcmp(argv[first], "train") != 0)
        return gb_usage("model", "unknown action '%s' (train)", action);
    if (first + 1 < argc) {
        gb_printable(argv[first + 1], 60, action, sizeof action);
        return gb_usage("model", "unexpected argument '%s'", action);
    }
    return train(&a);
}
