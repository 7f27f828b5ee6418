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
#include <string.h>

/* dnnl_debug.h's, declared here: not every oneDNN's dnnl.h includes it.
 * Weak, with the ISA query: a oneDNN without them still links, and its
 * kernels are then reported unknown. */
const char *dnnl_cpu_isa2str(dnnl_cpu_isa_t v);
#pragma weak dnnl_cpu_isa2str
#pragma weak dnnl_get_effective_cpu_isa

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

/* oneDNN's JIT generates code for the widest ISA the CPU has, at most
 * ONEDNN_MAX_CPU_ISA (or its older name, DNNL_MAX_CPU_ISA). */
static void onednn_library(gb_library *lib)
{
    static const char *const vars[] = { "ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA", NULL };
    const dnnl_version_t *v = dnnl_version();
    const char *isa = dnnl_cpu_isa2str && dnnl_get_effective_cpu_isa
                          ? dnnl_cpu_isa2str(dnnl_get_effective_cpu_isa())
                          : NULL;

    lib->version[0] = '\0';
    if (v)
        snprintf(lib->version, sizeof lib->version, "%d.%d.%d", v->major, v->minor, v->patch);
    if (isa && strncmp(isa, "cpu_isa_", 8) == 0)
        isa += 8;
    snprintf(lib->kernels, sizeof lib->kernels, "%s", isa ? isa : "");
    reference_forced_by(lib, vars);
}

const gb_variant gb_variant_onednn = {
    .name = "onednn",
    .family = "reference",
    .description = "oneDNN dnnl_sgemm (row-major, beta=0), threads via omp_set_num_threads",
    .run = onednn_run,
    .resolve = reference_resolve,
    .library = onednn_library,
};
#endif
