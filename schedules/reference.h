/*
 * reference.h - what the reference variants (openblas, blis, onednn) share:
 * each tells its library the thread count through the library's own
 * mechanism, and records that count in the JSON through this resolve hook.
 */
#ifndef GB_REFERENCE_H
#define GB_REFERENCE_H

#include <string.h>

#include "gemmbench.h"

static inline void reference_resolve(int M, int N, int K, const gb_ctx *ctx,
                                     gb_params *effective)
{
    (void)M, (void)N, (void)K;
    memset(effective, 0, sizeof *effective);
    gb_param_set(effective, "threads", ctx->nthreads);
}

#endif
