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

const gb_variant *const gb_variants[] = {
    &gb_variant_baseline,  /* first: every speed-up is relative to it */
    &gb_variant_parallel,
    &gb_variant_vec_j,
};

const size_t gb_variant_count = sizeof gb_variants / sizeof gb_variants[0];
