/*
 * reference family - blis: BLIS's sgemm, a library ceiling measured in the
 * same run as the schedules it is compared with, so both see the same
 * machine.
 *
 * Not a schedule: one bli_sgemm_ex call with row strides (rs = ld, cs = 1),
 * beta = 0.  Built only when the Makefile found BLIS (GB_HAVE_BLIS).
 *
 * Why BLIS's typed API and not cblas_sgemm: OpenBLAS exports cblas_sgemm
 * too, and one process can bind that name to one library only.  bli_sgemm_ex
 * exists in BLIS alone, so both libraries link side by side with no
 * dlopen tricks (reference_openblas.c checks its side of the bargain).
 *
 * Threads: a runtime object (rntm_t) per call with the thread count, BLIS's
 * own per-call mechanism; BLIS then factors the threads over its loops
 * itself.  The Debian build threads with OpenMP (blis-openmp).
 */
/* blis.h uses POSIX barriers, hidden by -std=c11 unless asked for. */
#define _GNU_SOURCE
#include "gemmbench.h"
#include "reference.h"

#ifdef GB_HAVE_BLIS
#include <blis.h>

static int blis_run(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                    float *C, int ldc, const gb_ctx *ctx)
{
    float one = 1.0f, zero = 0.0f;
    rntm_t rntm = BLIS_RNTM_INITIALIZER;

    bli_rntm_set_num_threads(ctx->nthreads, &rntm);
    /* The casts: older BLIS headers declare the inputs without const. */
    bli_sgemm_ex(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, M, N, K, &one, (float *)A, lda, 1,
                 (float *)B, ldb, 1, &zero, C, ldc, 1, NULL, &rntm);
    return 0;
}

/* BLIS picks its sub-configuration (kernels and blocksizes) at its first
 * use: from CPUID among the ones the build has, else "generic" (portable
 * C), or from BLIS_ARCH_TYPE. */
static void blis_library(gb_library *lib)
{
    static const char *const vars[] = { "BLIS_ARCH_TYPE", NULL };
    const char *version = bli_info_get_version_str();
    const char *arch = bli_arch_string(bli_arch_query_id());

    snprintf(lib->version, sizeof lib->version, "%s", version ? version : "");
    snprintf(lib->kernels, sizeof lib->kernels, "%s", arch ? arch : "");
    reference_forced_by(lib, vars);
}

const gb_variant gb_variant_blis = {
    .name = "blis",
    .types_note = "BLIS 0.9 has no bf16 or int8 GEMM",
    .family = "reference",
    .description = "BLIS bli_sgemm_ex (row strides, beta=0), threads via a per-call rntm_t",
    .run = blis_run,
    .resolve = reference_resolve,
    .library = blis_library,
};
#endif
