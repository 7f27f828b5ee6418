/*
 * table.c - the variant table: --list, --variant and the docs come from it.
 * To add a schedule: write schedules/NAME.c defining `const gb_variant
 * gb_variant_NAME`, declare it below, and add it to gb_variants[] where it
 * belongs in display order.  The Makefile picks up the new file by itself.
 */
#include "gemmbench.h"

extern const gb_variant gb_variant_baseline;
extern const gb_variant gb_variant_parallel;
extern const gb_variant gb_variant_vec_j;
extern const gb_variant gb_variant_packed;
/* Reference libraries: in the table only when the build found them. */
extern const gb_variant gb_variant_openblas;
extern const gb_variant gb_variant_blis;
extern const gb_variant gb_variant_onednn;

const gb_variant *const gb_variants[] = {
    &gb_variant_baseline,  /* first: every speed-up is relative to it */
    &gb_variant_parallel,
    &gb_variant_vec_j,
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
};

const size_t gb_variant_count = sizeof gb_variants / sizeof gb_variants[0];
