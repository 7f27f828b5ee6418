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
    const char *arch;

    /* BLIS 0.9 checks a BLIS_ARCH_TYPE choice against its registered
     * contexts, which exist only once it is initialized: asked first, it
     * aborts the process whatever the number. */
    bli_init();
    arch = bli_arch_string(bli_arch_query_id());

    snprintf(lib->version, sizeof lib->version, "%s", version ? version : "");
    snprintf(lib->kernels, sizeof lib->kernels, "%s", arch ? arch : "");
    reference_forced_by(lib, vars);
}

/* The sub-configurations this BLIS was built with: BLIS_CONFIG_* of its
 * blis.h, which is the library's own configuration header. */
static const arch_t blis_compiled_in[] = {
#ifdef BLIS_CONFIG_SKX
    BLIS_ARCH_SKX,
#endif
#ifdef BLIS_CONFIG_KNL
    BLIS_ARCH_KNL,
#endif
#ifdef BLIS_CONFIG_KNC
    BLIS_ARCH_KNC,
#endif
#ifdef BLIS_CONFIG_HASWELL
    BLIS_ARCH_HASWELL,
#endif
#ifdef BLIS_CONFIG_SANDYBRIDGE
    BLIS_ARCH_SANDYBRIDGE,
#endif
#ifdef BLIS_CONFIG_PENRYN
    BLIS_ARCH_PENRYN,
#endif
#ifdef BLIS_CONFIG_ZEN3
    BLIS_ARCH_ZEN3,
#endif
#ifdef BLIS_CONFIG_ZEN2
    BLIS_ARCH_ZEN2,
#endif
#ifdef BLIS_CONFIG_ZEN
    BLIS_ARCH_ZEN,
#endif
#ifdef BLIS_CONFIG_EXCAVATOR
    BLIS_ARCH_EXCAVATOR,
#endif
#ifdef BLIS_CONFIG_STEAMROLLER
    BLIS_ARCH_STEAMROLLER,
#endif
#ifdef BLIS_CONFIG_PILEDRIVER
    BLIS_ARCH_PILEDRIVER,
#endif
#ifdef BLIS_CONFIG_BULLDOZER
    BLIS_ARCH_BULLDOZER,
#endif
#ifdef BLIS_CONFIG_GENERIC
    BLIS_ARCH_GENERIC,
#endif
    BLIS_NUM_ARCHS   /* the end (and a list that is never empty) */
};

/* Whether this CPU runs a sub-configuration's kernels: x86's by their
 * instruction set (a missing one would end the process on SIGILL). */
static int blis_arch_runs_here(arch_t id, const char **needs)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    switch (id) {
    case BLIS_ARCH_SKX:
    case BLIS_ARCH_KNL:
        *needs = "AVX-512";
        return __builtin_cpu_supports("avx512f");
    case BLIS_ARCH_HASWELL:
    case BLIS_ARCH_ZEN3:
    case BLIS_ARCH_ZEN2:
    case BLIS_ARCH_ZEN:
        *needs = "AVX2 and FMA";
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case BLIS_ARCH_SANDYBRIDGE:
        *needs = "AVX";
        return __builtin_cpu_supports("avx");
    case BLIS_ARCH_EXCAVATOR:
    case BLIS_ARCH_STEAMROLLER:
    case BLIS_ARCH_PILEDRIVER:
    case BLIS_ARCH_BULLDOZER:
        *needs = "FMA4 (AMD's Bulldozer family)";
        return __builtin_cpu_supports("fma4");
    default:
        return 1;
    }
#else
    (void)id, (void)needs;
    return 1;
#endif
}

/* BLIS 0.9 reads BLIS_ARCH_TYPE as a number when it first initializes
 * (a name reads as 0, skx; a number not compiled in aborts the process), so
 * the name is checked here and set as its number before any BLIS call. */
int gb_blis_arch_choose(const char *name, char *err, size_t errlen)
{
    char number[16], have[512] = "";
    const char *needs = "";
    size_t used = 0;

    for (size_t i = 0; blis_compiled_in[i] != BLIS_NUM_ARCHS; i++)
        used += (size_t)snprintf(have + used, used < sizeof have ? sizeof have - used : 0,
                                 "%s%s", i ? " " : "", bli_arch_string(blis_compiled_in[i]));
    for (size_t i = 0; blis_compiled_in[i] != BLIS_NUM_ARCHS; i++) {
        arch_t id = blis_compiled_in[i];
        if (strcmp(bli_arch_string(id), name) != 0)
            continue;
        if (!blis_arch_runs_here(id, &needs)) {
            snprintf(err, errlen, "--blis-arch %s: its kernels need %s, which this CPU does "
                     "not have (this BLIS has: %s)", name, needs, have);
            return -1;
        }
        snprintf(number, sizeof number, "%d", (int)id);
        if (setenv("BLIS_ARCH_TYPE", number, 1) != 0) {
            snprintf(err, errlen, "--blis-arch %s: cannot set BLIS_ARCH_TYPE", name);
            return -1;
        }
        return 0;
    }
    snprintf(err, errlen, "--blis-arch %s: BLIS %s was not built with that sub-configuration "
             "(it has: %s)", name, bli_info_get_version_str(), have);
    return -1;
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
#else

int gb_blis_arch_choose(const char *name, char *err, size_t errlen)
{
    snprintf(err, errlen, "--blis-arch %s: this build has no BLIS (the Makefile did not find "
             "it)", name);
    return -1;
}
#endif
