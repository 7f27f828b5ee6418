/* variant_check.h - the exact check of one variant call that test_variants.c
 * defines, shared with tests that vary a variant's parameters. */
#ifndef GB_VARIANT_CHECK_H
#define GB_VARIANT_CHECK_H

#include "gemmbench.h"

/* Runs v once on an MxKxN problem (leading dimensions padded by pad) with
 * integer inputs; returns the wrong elements of C plus touched padding, or
 * -1 when the variant failed. */
long run_and_compare(const gb_variant *v, const gb_params *params, int M, int N, int K,
                     int pad, int nthreads, int prepack);

#endif
