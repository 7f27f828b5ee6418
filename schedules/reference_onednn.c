/*
 * reference family - onednn: oneDNN's sgemm, the inference engines'
 * library, measured in the same run as the schedules it is the ceiling for,
 * so both see the same machine.
 *
 * Not a schedule: one dnnl_sgemm call (row-major by definition, beta = 0).
 * Built only when the Makefile found oneDNN (GB_HAVE_ONEDNN).
 *
 * Threads: the Debian build threads with OpenMP (DNNL_CPU_RUNTIME OMP) and
 * sizes its parallel regions by omp_get_max_threads(), so the calling
 * thread's OpenMP thread count is set around the call, and put back after
 * it so that nothing else in the process sees the change.
 */
#include "gemmbench.h"
#include "reference.h"

#ifdef GB_HAVE_ONEDNN
#include <dnnl.h>
#include <omp.h>

static int onednn_run(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                      float *C, int ldc, const gb_ctx *ctx)
{
    const int before = omp_get_max_threads();
    dnnl_status_t status;

    omp_set_num_threads(ctx->nthreads);
    status = dnnl_sgemm('N', 'N', M, N, K, 1.0f, A, lda, B, ldb, 0.0f, C, ldc);
    omp_set_num_threads(before);
    return status == dnnl_success ? 0 : -1;
}

const gb_variant gb_variant_onednn = {
    .name = "onednn",
    .family = "reference",
    .description = "oneDNN dnnl_sgemm (row-major, beta=0), threads via omp_set_num_threads",
    .run = onednn_run,
    .resolve = reference_resolve,
};
#endif
