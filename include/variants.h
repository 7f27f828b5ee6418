/*
 * variants.h - the variant table (schedules/table.c), in display order, and
 * finding and selecting its entries by name and family.
 */
#ifndef GB_VARIANTS_H
#define GB_VARIANTS_H

#include "gemmbench.h"

extern const gb_variant *const gb_variants[];
extern const size_t gb_variant_count;

/* The variant of that name, or NULL. */
const gb_variant *gb_variant_find(const char *name);
/* What v's library hook reports, into lib (zeroed first): 0, or -1 when v
 * is not a library wrapper. */
int gb_variant_library(const gb_variant *v, gb_library *lib);
/* Why v does not run the types it has no kernel for: its own types_note,
 * else its family's (the study's and the tutorial's steps are f32, as
 * they were measured). */
const char *gb_variant_types_note(const gb_variant *v);
/* Expands "name,family,all" into table entries (table order, no duplicates).
 * Returns the count, or -1 with err naming the unknown entry. */
int gb_variants_select(const char *spec, const gb_variant **out, int max,
                       char *err, size_t errlen);

/* --blis-arch NAME: BLIS's sub-configuration for this process, set as the
 * number BLIS_ARCH_TYPE that BLIS reads when it first initializes (so
 * before any BLIS call).  0, or -1 with err: a name this BLIS was not built
 * with (the ones it has listed), one whose instruction set this CPU lacks,
 * or a build without BLIS. */
int gb_blis_arch_choose(const char *name, char *err, size_t errlen);

#endif
