/* variant_check.h - the exact check of one variant call that test_variants.c
 * defines, shared with tests that vary a variant's parameters; and the text
 * of an explanation. */
#ifndef GB_VARIANT_CHECK_H
#define GB_VARIANT_CHECK_H

#include "gemmbench.h"

/* Runs v once on an MxKxN problem (leading dimensions padded by pad) with
 * integer inputs; returns the wrong elements of C plus touched padding, or
 * -1 when the variant failed. */
long run_and_compare(const gb_variant *v, const gb_params *params, int M, int N, int K,
                     int pad, int nthreads, int prepack);

/* What an explain function prints (--explain) for an MxKxN problem at
 * nthreads, no parameters: malloc'ed text, or NULL when the stream could
 * not be opened. */
char *explain_text(gb_explain_fn explain, int M, int N, int K, int nthreads);

#endif
