/*
 * fuzz_records.c - a tuning-records file as the tuned variants and tune read
 * it: loaded, every record it keeps looked up (and found itself: the loader
 * keeps one record per key) and its parameters formatted and resolved by the
 * base variant (which indexes choice lists with them).
 */
#include "fuzz_util.h"
#include "options.h"
#include "variants.h"
#include "tuned_records.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gb_tuned_set set;
    char err[512];

    if (gb_tuned_load(fuzz_file(data, size), &set, err, sizeof err) != 0) {
        if (err[0] == '\0')
            abort();
        return 0;
    }
    for (int i = 0; i < set.count; i++) {
        const gb_tuned_record *r = &set.records[i];
        const gb_variant *v = gb_variant_find(r->base);
        int exact;
        char shown[512];
        gb_params effective;
        gb_ctx ctx = { 1, &r->params, NULL, NULL, 0, NULL };

        if (v == NULL || gb_tuned_find(&set, r->base, r->fingerprint, r->M, r->K, r->N,
                                       &exact) != r || !exact)
            abort(); /* a kept record is found again, and is its key's only one */
        gb_params_format(v, &r->params, shown, sizeof shown);
        if (v->resolve)
            v->resolve(r->M, r->N, r->K, &ctx, &effective);
    }
    gb_tuned_free(&set);
    return 0;
}
