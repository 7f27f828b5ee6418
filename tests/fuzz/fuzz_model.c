/*
 * fuzz_model.c - a model file as ml_guided, --explain and `tune --model`
 * read it (gb_learned_load): the envelope read strictly and the booster
 * inside it checked (gb_xgb_check) before XGBoost would see it.  The same
 * bytes are also checked as a booster alone, so that the tree checker is
 * fuzzed without the envelope in the way.  The fuzz build has no XGBoost:
 * a model that passes every check ends at gb_xgb_load's "built without
 * XGBoost", which is the point where the library would take over.
 */
#include "fuzz_util.h"
#include "learn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gb_learned *l = NULL;
    char err[512], *text;

    err[0] = '\0';
    if (gb_learned_load(fuzz_file(data, size), &l, err, sizeof err) != 0) {
        if (err[0] == '\0' || l != NULL)
            abort(); /* a refusal says why and keeps nothing */
    } else {
        gb_learned_free(l);
    }
    text = fuzz_string(data, size);
    err[0] = '\0';
    if (gb_xgb_check(text, GB_FEATURES_COUNT, err, sizeof err) != 0 && err[0] == '\0')
        abort();
    free(text);
    return 0;
}
