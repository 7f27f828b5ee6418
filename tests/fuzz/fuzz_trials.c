/*
 * fuzz_trials.c - a trial database as `model train` and `tune --database`
 * read it: parsed strictly, and every row it keeps featurized for its
 * shape (the schedule planned with the row's own machine).
 */
#include "fuzz_util.h"
#include "learn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gb_trial_db db = { 0 };
    float features[GB_FEATURES_COUNT];
    char err[512];

    if (gb_trialdb_load(fuzz_file(data, size), &db, err, sizeof err) != 0) {
        if (err[0] == '\0' || db.n != 0)
            abort(); /* a refusal says why and keeps no row */
        return 0;
    }
    for (int i = 0; i < db.n; i++) {
        const gb_trial_row *r = &db.rows[i];
        /* small shapes only: a plan of M = 10^6 is legal, and slow to fuzz */
        if ((long)r->M * r->N * r->K <= (1L << 24))
            gb_learned_features("fuzz", r->text, r->M, r->K, r->N, r->threads, &r->machine,
                                features, err, sizeof err);
    }
    gb_trialdb_free(&db);
    return 0;
}
