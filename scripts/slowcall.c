/* slowcall.c - an LD_PRELOAD library that makes one reference library's
 * GEMM calls take GB_SLOW_FACTOR times as long (e.g. 1.06): each call runs,
 * then the calling thread spins on the monotonic clock until the call's
 * elapsed time times the factor has passed.  Unlike scaleclock.c, which
 * slows every interval a process times, it slows one kernel only, so a
 * history or an `ab` run sees a step of known size in that variant's series
 * and none in the others (scripts/history-power.sh, the paired study).
 *
 *   GB_SLOW_FACTOR   above 1; absent, unreadable or 1: no slowdown
 *   GB_SLOW_CALL     dnnl_sgemm (oneDNN, the default) or cblas_sgemm (OpenBLAS)
 *
 * The function wrapped is found with dlsym(RTLD_NEXT): the program must be
 * linked against the library (gemmbench's onednn / openblas variants). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double factor = 1.0;
static int slow_dnnl = 1, slow_cblas = 0;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

__attribute__((constructor)) static void slowcall_init(void)
{
    const char *f = getenv("GB_SLOW_FACTOR"), *call = getenv("GB_SLOW_CALL");

    if (f != NULL) {
        char *end;
        double v = strtod(f, &end);
        if (end != f && *end == '\0' && v >= 1.0 && v < 100.0)
            factor = v;
    }
    if (call != NULL && strcmp(call, "cblas_sgemm") == 0) {
        slow_dnnl = 0;
        slow_cblas = 1;
    }
}

/* Spins until (now - start) reaches factor x the call's own time. */
static void stretch(double start, int on)
{
    double end = now();
    if (!on || factor == 1.0)
        return;
    double until = start + (end - start) * factor;
    while (now() < until)
        ;
}

typedef int (*dnnl_sgemm_fn)(char, char, int64_t, int64_t, int64_t, float, const float *,
                             int64_t, const float *, int64_t, float, float *, int64_t);

int dnnl_sgemm(char ta, char tb, int64_t M, int64_t N, int64_t K, float alpha, const float *A,
               int64_t lda, const float *B, int64_t ldb, float beta, float *C, int64_t ldc)
{
    static dnnl_sgemm_fn real;
    if (real == NULL)
        real = (dnnl_sgemm_fn)dlsym(RTLD_NEXT, "dnnl_sgemm");
    if (real == NULL)
        abort();
    double start = now();
    int rc = real(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    stretch(start, slow_dnnl);
    return rc;
}

typedef void (*cblas_sgemm_fn)(int, int, int, int, int, int, float, const float *, int,
                               const float *, int, float, float *, int);

void cblas_sgemm(int order, int ta, int tb, int M, int N, int K, float alpha, const float *A,
                 int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
    static cblas_sgemm_fn real;
    if (real == NULL)
        real = (cblas_sgemm_fn)dlsym(RTLD_NEXT, "cblas_sgemm");
    if (real == NULL)
        abort();
    double start = now();
    real(order, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    stretch(start, slow_cblas);
}
