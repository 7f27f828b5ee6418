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
 * Bound threads (--bind, OMP_PROC_BIND): OpenBLAS's pool is created by the
 * first thread that needs it, the OpenMP primary thread, which a bound
 * runtime has pinned to its place by then, so every worker inherits that
 * one CPU and shares it with the primary (measured: 2x slower at 2 threads
 * with --bind close).  prepare() gives OpenBLAS's worker i the CPUs of the
 * place OpenMP thread i + 1 runs on, so that binding means the same for
 * OpenBLAS as for every other variant.  Unbound, nothing is pinned.
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
#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

char *openblas_get_config(void);
char *openblas_get_corename(void);
/* Weak: an OpenBLAS without it (the OpenMP flavour, say) still links, and
 * its threads are then left where they are; likewise the core's name,
 * reported unknown without it. */
#pragma weak openblas_setaffinity
#pragma weak openblas_get_corename

/* Which shared object defines fn; NULL when unknown (static link). */
static const char *defining_object(void *fn)
{
    Dl_info info;
    return dladdr(fn, &info) && info.dli_fname ? info.dli_fname : NULL;
}

/* Bound OpenMP threads: OpenBLAS's worker i onto the CPUs of OpenMP thread
 * i + 1's place (the header says why).  openblas_setaffinity's index is a
 * worker's, the last index being the calling thread. */
static void follow_omp_binding(int threads)
{
    int *places;

    if (threads < 2 || omp_get_proc_bind() == omp_proc_bind_false || !openblas_setaffinity)
        return;
    places = malloc((size_t)threads * sizeof *places);
    if (places == NULL)
        return;
    for (int i = 0; i < threads; i++)
        places[i] = -1;
#pragma omp parallel num_threads(threads)
    places[omp_get_thread_num()] = omp_get_place_num();
    openblas_set_num_threads(threads);
    for (int i = 1; i < threads && i < openblas_get_num_threads(); i++) {
        const int count = places[i] >= 0 ? omp_get_place_num_procs(places[i]) : 0;
        int *ids = count > 0 ? malloc((size_t)count * sizeof *ids) : NULL;
        cpu_set_t set;
        if (ids == NULL)
            continue;
        omp_get_place_proc_ids(places[i], ids);
        CPU_ZERO(&set);
        for (int j = 0; j < count; j++)
            if (ids[j] >= 0 && ids[j] < CPU_SETSIZE)
                CPU_SET(ids[j], &set);
        if (CPU_COUNT(&set) > 0)
            (void)openblas_setaffinity(i - 1, sizeof set, &set);
        free(ids);
    }
    free(places);
}

static int openblas_prepare(int M, int N, int K, const float *B, int ldb, const gb_ctx *ctx,
                            int prepack, void **state)
{
    const char *gemm_from = defining_object((void *)cblas_sgemm);
    const char *openblas_from = defining_object((void *)openblas_get_config);

    int *threads;

    (void)M, (void)N, (void)K, (void)B, (void)ldb, (void)prepack;
    *state = NULL;
    if (gemm_from && openblas_from && strcmp(gemm_from, openblas_from) != 0)
        return -1;
    threads = malloc(sizeof *threads);
    if (threads == NULL)
        return -1;
    *threads = ctx->nthreads;
    *state = threads;
    follow_omp_binding(ctx->nthreads);
    return 0;
}

/* OpenBLAS's pthreads spin (sched_yield) for about 2^28 cycles, 0.1 s here,
 * after a call before they sleep: sleep that off after a measurement that
 * woke them, so they do not take CPU from whatever is measured next.  On one
 * thread the call runs in the caller and no worker wakes (state: the thread
 * count the measurement ran with). */
static void openblas_release(void *state)
{
    struct timespec settle = { 0, 200000000 };
    const int *threads = state;

    if (threads && *threads > 1)
        nanosleep(&settle, NULL);
    free(state);
}

static int openblas_run(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                        float *C, int ldc, const gb_ctx *ctx)
{
    openblas_set_num_threads(ctx->nthreads);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, A, lda, B, ldb, 0.0f,
                C, ldc);
    return 0;
}

/* A DYNAMIC_ARCH build picks its core when it loads: from CPUID, or from
 * OPENBLAS_CORETYPE.  The version is the configuration's second word
 * ("OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ..."). */
static void openblas_library(gb_library *lib)
{
    static const char *const vars[] = { "OPENBLAS_CORETYPE", NULL };
    const char *config = openblas_get_config();
    const char *core = openblas_get_corename ? openblas_get_corename() : NULL;

    lib->version[0] = '\0';
    if (config && strncmp(config, "OpenBLAS ", 9) == 0)
        snprintf(lib->version, sizeof lib->version, "%.*s", (int)strcspn(config + 9, " "),
                 config + 9);
    snprintf(lib->kernels, sizeof lib->kernels, "%s", core ? core : "");
    reference_forced_by(lib, vars);
}

const gb_variant gb_variant_openblas = {
    .name = "openblas",
    .family = "reference",
    .description = "OpenBLAS cblas_sgemm (row-major, beta=0), threads via openblas_set_num_threads",
    .run = openblas_run,
    .prepare = openblas_prepare,
    .release = openblas_release,
    .resolve = reference_resolve,
    .library = openblas_library,
    .types_note = "Debian's OpenBLAS 0.3.21 exports no cblas_sbgemm (built without "
                  "BUILD_BFLOAT16) and has no int8 GEMM",
};
#endif
