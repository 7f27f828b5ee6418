/*
 * reference family - openblas: OpenBLAS's sgemm, a library ceiling the
 * hand-written schedules are measured against in the same run, so both see
 * the same machine.
 *
 * Not a schedule: one cblas_sgemm call, row-major, beta = 0, the caller's
 * lda/ldb/ldc.  Built only when the Makefile found OpenBLAS (GB_HAVE_OPENBLAS);
 * without it this file is empty and the table has no `openblas` entry.
 *
 * Threads: the Debian package is the pthreads build, whose own thread pool
 * ignores OpenMP; openblas_set_num_threads() before every call is its own
 * mechanism for --threads (the call only stores a number once the pool
 * exists).  OpenBLAS may still use fewer threads on small problems: its choice.
 *
 * OpenBLAS and BLIS both export cblas_sgemm.  The blis variant calls BLIS
 * through its own typed API (bli_sgemm_ex), so cblas_sgemm here must be
 * OpenBLAS's; the Makefile links OpenBLAS before BLIS so that the dynamic
 * linker binds it there, and prepare() checks that it did (dladdr: the
 * symbol lives in the same shared object as openblas_get_config), so a
 * different link order fails loudly instead of measuring the wrong library.
 */
#define _GNU_SOURCE
#include "gemmbench.h"
#include "reference.h"

#ifdef GB_HAVE_OPENBLAS
#include <cblas.h>
#include <dlfcn.h>
#include <string.h>
#include <time.h>

char *openblas_get_config(void);

/* Which shared object defines fn; NULL when unknown (static link). */
static const char *defining_object(void *fn)
{
    Dl_info info;
    return dladdr(fn, &info) && info.dli_fname ? info.dli_fname : NULL;
}

static int openblas_prepare(int M, int N, int K, const float *B, int ldb, const gb_ctx *ctx,
                            int prepack, void **state)
{
    const char *gemm_from = defining_object((void *)cblas_sgemm);
    const char *openblas_from = defining_object((void *)openblas_get_config);

    (void)M, (void)N, (void)K, (void)B, (void)ldb, (void)ctx, (void)prepack;
    *state = NULL;
    if (gemm_from && openblas_from && strcmp(gemm_from, openblas_from) != 0)
        return -1;
    return 0;
}

/* OpenBLAS's pthreads spin (sched_yield) for about 2^28 cycles, 0.1 s here,
 * after a call before they sleep: sleep that off after the measurement, so
 * they do not take CPU from whatever is measured next. */
static void openblas_release(void *state)
{
    struct timespec settle = { 0, 200000000 };
    (void)state;
    nanosleep(&settle, NULL);
}

static int openblas_run(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                        float *C, int ldc, const gb_ctx *ctx)
{
    openblas_set_num_threads(ctx->nthreads);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, A, lda, B, ldb, 0.0f,
                C, ldc);
    return 0;
}

const gb_variant gb_variant_openblas = {
    .name = "openblas",
    .family = "reference",
    .description = "OpenBLAS cblas_sgemm (row-major, beta=0), threads via openblas_set_num_threads",
    .run = openblas_run,
    .prepare = openblas_prepare,
    .release = openblas_release,
    .resolve = reference_resolve,
};
#endif
