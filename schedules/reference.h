/*
 * reference.h - what the reference variants (openblas, blis, onednn) share:
 * each tells its library the thread count through the library's own
 * mechanism, and records that count in the JSON through this resolve hook;
 * each names the kernels its library chose (gb_library) and the variable
 * that forced them, if one did.
 */
#ifndef GB_REFERENCE_H
#define GB_REFERENCE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemmbench.h"

static inline void reference_resolve(int M, int N, int K, const gb_ctx *ctx,
                                     gb_params *effective)
{
    (void)M, (void)N, (void)K;
    memset(effective, 0, sizeof *effective);
    gb_param_set(effective, "threads", ctx->nthreads);
}

/* lib->forced_by: "VAR=value" for the first of the NULL-terminated
 * environment variables that is set (the library's own override of its
 * kernel choice, read when it loaded), or "". */
static inline void reference_forced_by(gb_library *lib, const char *const vars[])
{
    lib->forced_by[0] = '\0';
    for (int i = 0; vars[i]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) {
            snprintf(lib->forced_by, sizeof lib->forced_by, "%s=%s", vars[i], v);
            return;
        }
    }
}

#endif
