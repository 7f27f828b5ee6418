/*
 * table.c - the variant table: --list, --variant and the docs come from it.
 * To add a schedule: write schedules/NAME.c defining `const gb_variant
 * gb_variant_NAME`, declare it below, and add it to gb_variants[] where it
 * belongs in display order.  The Makefile picks up the new file by itself.
 */
#include "variants.h"
#include "parse.h"

#include <stdio.h>
#include <string.h>

extern const gb_variant gb_variant_baseline;
extern const gb_variant gb_variant_k4, gb_variant_k8, gb_variant_k16, gb_variant_k32,
    gb_variant_k64;
extern const gb_variant gb_variant_parallel;
extern const gb_variant gb_variant_vec_j, gb_variant_vec_k;
extern const gb_variant gb_variant_parallel_k16, gb_variant_parallel_vec_j;
extern const gb_variant gb_variant_vec_j_k16;
extern const gb_variant gb_variant_full;
extern const gb_variant gb_variant_tvm_blocking, gb_variant_tvm_vectorize,
    gb_variant_tvm_permute, gb_variant_tvm_packing, gb_variant_tvm_cache_write,
    gb_variant_tvm_parallel;
extern const gb_variant gb_variant_rule_based;
extern const gb_variant gb_variant_tuned;
extern const gb_variant gb_variant_packed, gb_variant_tuned_packed;
extern const gb_variant gb_variant_amx;
extern const gb_variant gb_variant_tuned_sched;
extern const gb_variant gb_variant_ml_guided;
/* Reference libraries: in the table only when the build found them. */
extern const gb_variant gb_variant_openblas;
extern const gb_variant gb_variant_blis;
extern const gb_variant gb_variant_onednn;
extern const gb_variant gb_variant_libxsmm;

const gb_variant *const gb_variants[] = {
    &gb_variant_baseline,  /* first: every speed-up is relative to it */
    /* the study's single-transform schedules, in its order */
    &gb_variant_k4,
    &gb_variant_k8,
    &gb_variant_k16,
    &gb_variant_k32,
    &gb_variant_k64,
    &gb_variant_parallel,
    &gb_variant_vec_j,
    &gb_variant_vec_k,
    &gb_variant_parallel_k16,
    &gb_variant_parallel_vec_j,
    &gb_variant_vec_j_k16,
    &gb_variant_full,
    /* the TVM tutorial's steps, in its order */
    &gb_variant_tvm_blocking,
    &gb_variant_tvm_vectorize,
    &gb_variant_tvm_permute,
    &gb_variant_tvm_packing,
    &gb_variant_tvm_cache_write,
    &gb_variant_tvm_parallel,
    /* the study's rule-based schedule */
    &gb_variant_rule_based,
    /* beyond the study: our fastest schedule, and the vendor libraries */
    &gb_variant_packed,
    /* bf16 and u8s8 on AMX's tiles, where the CPU has them */
    &gb_variant_amx,
#ifdef GB_HAVE_OPENBLAS
    &gb_variant_openblas,
#endif
#ifdef GB_HAVE_BLIS
    &gb_variant_blis,
#endif
#ifdef GB_HAVE_ONEDNN
    &gb_variant_onednn,
#endif
#ifdef GB_HAVE_LIBXSMM
    &gb_variant_libxsmm,
#endif
    /* gemmbench tune's records replayed */
    &gb_variant_tuned,
    &gb_variant_tuned_packed,
    &gb_variant_tuned_sched,
    /* the study's ML-guided schedule: a learned model's pick, no trial */
    &gb_variant_ml_guided,
};

const size_t gb_variant_count = sizeof gb_variants / sizeof gb_variants[0];

/* ---- finding and selecting variants ------------------------------------- */

const gb_variant *gb_variant_find(const char *name)
{
    for (size_t i = 0; i < gb_variant_count; i++)
        if (strcmp(gb_variants[i]->name, name) == 0)
            return gb_variants[i];
    return NULL;
}

int gb_variant_library(const gb_variant *v, gb_library *lib)
{
    memset(lib, 0, sizeof *lib);
    if (v->library == NULL)
        return -1;
    v->library(lib);
    return 0;
}

struct variant_pick {
    int mark[256];
    char *err;
    size_t errlen;
};

/* An item is "all", a variant name, "family:NAME", or a bare family name.
 * A variant name wins over a family of the same name (`parallel` is both):
 * `--variant parallel` is the one variant, `family:parallel` the family. */
static int pick_variant(const char *item, void *arg)
{
    struct variant_pick *pick = arg;
    const char *family = strncmp(item, "family:", 7) == 0 ? item + 7 : NULL;
    int found = 0;

    if (family == NULL && strcmp(item, "all") != 0 && gb_variant_find(item) == NULL)
        family = item;
    for (size_t i = 0; i < gb_variant_count && i < 256; i++) {
        const gb_variant *v = gb_variants[i];
        if (strcmp(item, "all") == 0 || (family ? strcmp(family, v->family) == 0
                                                : strcmp(item, v->name) == 0)) {
            pick->mark[i] = 1;
            found = 1;
        }
    }
    if (!found) {
        char shown[96];
        gb_printable(item, 60, shown, sizeof shown);
        snprintf(pick->err, pick->errlen,
                 "unknown variant or family '%s' (gemmbench --list shows them)", shown);
        return -1;
    }
    return 0;
}

int gb_variants_select(const char *spec, const gb_variant **out, int max,
                       char *err, size_t errlen)
{
    struct variant_pick pick;
    int n = 0;

    memset(&pick, 0, sizeof pick);
    pick.err = err;
    pick.errlen = errlen;
    int rc = gb_split_list(spec, pick_variant, &pick);
    if (rc != 0) {
        if (gb_split_why(rc))
            gb_list_error(err, errlen, "variant list", spec, gb_split_why(rc));
        return -1;
    }
    for (size_t i = 0; i < gb_variant_count && i < 256; i++)
        if (pick.mark[i] && n < max)
            out[n++] = gb_variants[i];
    if (n == 0) {
        snprintf(err, errlen, "no variant selected");
        return -1;
    }
    return n;
}

const char *gb_variant_types_note(const gb_variant *v)
{
    static const struct {
        const char *family, *note;
    } notes[] = {
        { "ktile", "a step of the study, which measured f32" },
        { "parallel", "a step of the study, which measured f32" },
        { "vectorized", "a step of the study, which measured f32" },
        { "rule_based", "the study's rules, derived from f32 measurements" },
        { "tutorial", "a step of TVM's CPU GEMM tutorial, which is f32" },
        { "tuned", "replays f32 records of gemmbench tune" },
        { "learned", "ranks f32 schedules with an f32 model" },
        { "sched", "the schedule states no type (f32)" },
    };

    if (v->types_note)
        return v->types_note;
    for (size_t i = 0; i < sizeof notes / sizeof notes[0]; i++)
        if (strcmp(v->family, notes[i].family) == 0)
            return notes[i].note;
    return "f32 only";
}
