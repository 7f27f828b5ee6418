/*
 * table.c - the variant table: --list, --variant and the docs come from it.
 * To add a schedule: write schedules/NAME.c defining `const gb_variant
 * gb_variant_NAME`, declare it below, and add it to gb_variants[] where it
 * belongs in display order.  The Makefile picks up the new file by itself.
 */
#include "gemmbench.h"

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
/* Reference libraries: in the table only when the build found them. */
extern const gb_variant gb_variant_openblas;
extern const gb_variant gb_variant_blis;
extern const gb_variant gb_variant_onednn;

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
#ifdef GB_HAVE_OPENBLAS
    &gb_variant_openblas,
#endif
#ifdef GB_HAVE_BLIS
    &gb_variant_blis,
#endif
#ifdef GB_HAVE_ONEDNN
    &gb_variant_onednn,
#endif
    /* gemmbench tune's records replayed */
    &gb_variant_tuned,
    &gb_variant_tuned_packed,
};

const size_t gb_variant_count = sizeof gb_variants / sizeof gb_variants[0];
