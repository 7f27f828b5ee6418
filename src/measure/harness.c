/*
 * harness.c - allocation, fill, verification and timing of one measurement.
 * Nothing but the kernel call sits between the two clock readings.
 */
#define _GNU_SOURCE
#include "harness.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* Inputs are integers in [-GB_FILL_MAX, GB_FILL_MAX] (as oneDNN's benchdnn
 * does): every partial sum is an integer below 2^24 while K * max^2 < 2^24,
 * so any summation order gives the same fp32 result and the check is exact. */
#define GB_FILL_MAX 4
#define GB_EXACT_LIMIT 16777216.0 /* 2^24 */

double gb_now(void)
{
    struct timespec ts;
#ifdef CLOCK_MONOTONIC_RAW
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
#else
    clock_gettime(CLOCK_MONOTONIC, &ts);
#endif
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The machine's steal time so far, seconds summed over its CPUs: the eighth
 * figure of /proc/stat's "cpu" line (user nice system idle iowait irq
 * softirq steal), in ticks of sysconf(_SC_CLK_TCK).  NAN where the kernel
 * does not say (not Linux, or a kernel before 2.6.11). */
static double steal_seconds(void)
{
    FILE *f = fopen("/proc/stat", "r");
    unsigned long long v[8];
    long tick = sysconf(_SC_CLK_TCK);
    int n = 0;

    if (f == NULL)
        return NAN;
    n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
               &v[4], &v[5], &v[6], &v[7]);
    fclose(f);
    return n == 8 && tick > 0 ? (double)v[7] / (double)tick : NAN;
}

void gb_clock_read(gb_clock_reading *r)
{
    struct timespec ts;
    struct rusage ru;

    /* The process's clock, not the calling thread's: with T threads the
     * kernel runs on the OpenMP team, and a worker descheduled or robbed by
     * the hypervisor stalls every call at its barrier while the calling
     * thread's own clock barely shows it.  The context switches likewise
     * count every thread (RUSAGE_SELF, not RUSAGE_THREAD). */
    r->wall_s = gb_now();
    r->cpu_s = clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0
                   ? (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec : NAN;
    r->nivcsw = getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_nivcsw : -1;
    r->steal_s = steal_seconds();
}

void gb_clock_span(gb_round_clock *c, const gb_clock_reading *from, const gb_clock_reading *to)
{
    c->wall_s += to->wall_s - from->wall_s;
    c->cpu_s += to->cpu_s - from->cpu_s;
    c->steal_s += to->steal_s - from->steal_s;
    c->nivcsw = c->nivcsw < 0 || from->nivcsw < 0 || to->nivcsw < 0
                    ? -1 : c->nivcsw + (to->nivcsw - from->nivcsw);
}

int gb_shape_bytes(int M, int K, int N, size_t *bytes)
{
    size_t mk, kn, mn, floats, total;

    if (M < 1 || K < 1 || N < 1)
        return -1;
    if (__builtin_mul_overflow((size_t)M, (size_t)K, &mk) ||
        __builtin_mul_overflow((size_t)K, (size_t)N, &kn) ||
        __builtin_mul_overflow((size_t)M, (size_t)N, &mn))
        return -1;
    /* A, B, C as float, the reference as double (two floats' worth). */
    if (__builtin_add_overflow(mk, kn, &floats) ||
        __builtin_add_overflow(floats, mn, &floats) ||
        __builtin_add_overflow(floats, mn, &floats) ||
        __builtin_add_overflow(floats, mn, &floats) ||
        __builtin_mul_overflow(floats, sizeof(float), &total))
        return -1;
    *bytes = total;
    return 0;
}

size_t gb_available_memory(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kib = 0;

    if (f) {
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
                break;
        fclose(f);
    }
    if (kib > 0)
        return (size_t)kib * 1024;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (size_t)pages * (size_t)page : 0;
}

/* xorshift64: the same operands on every run and machine. */
static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void fill_integers(float *x, size_t n, uint64_t seed)
{
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++)
        x[i] = (float)((int)(next_random(&s) % (2 * GB_FILL_MAX + 1)) - GB_FILL_MAX);
}

static void *alloc_aligned(size_t bytes)
{
    void *p = NULL;
    /* 64 bytes: a cache line and an AVX-512 register. */
    if (posix_memalign(&p, 64, bytes ? bytes : 64) != 0)
        return NULL;
    return p;
}

int gb_shape_check(int M, int K, int N, char *err, size_t errlen)
{
    size_t bytes, avail;

    if (gb_shape_bytes(M, K, N, &bytes) != 0) {
        snprintf(err, errlen, "shape %dx%dx%d is too large to address", M, K, N);
        return -1;
    }
    avail = gb_available_memory();
    if (avail > 0 && bytes > avail) {
        snprintf(err, errlen, "shape %dx%dx%d needs %.1f GiB, more than the %.1f GiB available",
                 M, K, N, (double)bytes / 1073741824.0, (double)avail / 1073741824.0);
        return -1;
    }
    return 0;
}

/* The inputs' ranges for type t at depth K (harness.h). */
static void fill_ranges(gb_dtype t, int K, int *fa, int *fb)
{
    if (t == GB_DTYPE_U8S8) {
        /* K * 255 * 128 < 2^31 up to K = 65793; beyond, A's range shrinks
         * (K <= GB_MAX_DIM keeps it above 16). */
        long a = (2147483647L / 128) / K;
        *fa = a > 255 ? 255 : a < 1 ? 1 : (int)a;
        *fb = 127;
    } else if (t == GB_DTYPE_BF16) {
        /* Integers up to 256 are exact in bf16's 8 bits; K r^2 <= 2^24
         * keeps every fp32 partial sum an exact integer. */
        int r = (int)floor(sqrt(GB_EXACT_LIMIT / K));
        *fa = *fb = r > 64 ? 64 : r < 1 ? 1 : r;
    } else {
        *fa = *fb = GB_FILL_MAX;
    }
}

static void fill_typed(gb_dtype t, int operand, void *x, size_t n, int range, uint64_t seed)
{
    uint64_t s = seed;

    for (size_t i = 0; i < n; i++) {
        uint64_t r = next_random(&s);
        if (t == GB_DTYPE_U8S8 && operand == 0)
            ((uint8_t *)x)[i] = (uint8_t)(r % (uint64_t)(range + 1));
        else if (t == GB_DTYPE_U8S8)
            ((int8_t *)x)[i] = (int8_t)((int)(r % (uint64_t)(2 * range + 2)) - range - 1);
        else if (t == GB_DTYPE_BF16)
            ((gb_bf16 *)x)[i] = gb_bf16_from_float(
                (float)((int)(r % (uint64_t)(2 * range + 1)) - range));
    }
}

int gb_workspace_init_dtype(gb_workspace *w, gb_dtype t, int M, int K, int N, char *err,
                            size_t errlen)
{
    const size_t sa = gb_dtype_size_a(t), sb = gb_dtype_size_b(t), sc = gb_dtype_size_c(t);

    memset(w, 0, sizeof *w);
    if (gb_shape_check(M, K, N, err, errlen) != 0)
        return -1;
    w->M = M;
    w->K = K;
    w->N = N;
    w->dtype = t;
    w->a = alloc_aligned((size_t)M * K * sa);
    w->b = alloc_aligned((size_t)K * N * sb);
    w->c = alloc_aligned((size_t)M * N * sc);
    if (!w->a || !w->b || !w->c) {
        gb_workspace_free(w);
        snprintf(err, errlen, "out of memory allocating shape %dx%dx%d", M, K, N);
        return -1;
    }
    fill_ranges(t, K, &w->fill_a, &w->fill_b);
    if (t == GB_DTYPE_F32) {
        w->A = w->a;
        w->B = w->b;
        w->C = w->c;
        fill_integers(w->A, (size_t)M * K, 0x9E3779B97F4A7C15ull ^ (uint64_t)M);
        fill_integers(w->B, (size_t)K * N, 0xD1B54A32D192ED03ull ^ (uint64_t)N);
        w->exact = (double)K * GB_FILL_MAX * GB_FILL_MAX < GB_EXACT_LIMIT;
    } else {
        fill_typed(t, 0, w->a, (size_t)M * K, w->fill_a, 0x9E3779B97F4A7C15ull ^ (uint64_t)M);
        fill_typed(t, 1, w->b, (size_t)K * N, w->fill_b, 0xD1B54A32D192ED03ull ^ (uint64_t)N);
        w->exact = t == GB_DTYPE_U8S8 ||
                   (double)K * w->fill_a * w->fill_b <= GB_EXACT_LIMIT;
    }
    memset(w->c, 0, (size_t)M * N * sc);
    return 0;
}

int gb_workspace_init(gb_workspace *w, int M, int K, int N, char *err, size_t errlen)
{
    return gb_workspace_init_dtype(w, GB_DTYPE_F32, M, K, N, err, errlen);
}

/* Copies beyond what keeps every set out of the caches cost memory only. */
#define GB_COLD_LLC_FACTOR 2

int gb_workspace_go_cold(gb_workspace *w, long llc_bytes, char *err, size_t errlen)
{
    const size_t a = (size_t)w->M * w->K * gb_dtype_size_a(w->dtype),
                 b = (size_t)w->K * w->N * gb_dtype_size_b(w->dtype),
                 c = (size_t)w->M * w->N * gb_dtype_size_c(w->dtype);
    const size_t set = a + b + c, avail = gb_available_memory();
    size_t want = llc_bytes > 0 ? (size_t)llc_bytes * GB_COLD_LLC_FACTOR / set + 1 : 1;

    w->cold = 1;
    if (avail > 0 && want * set > avail / 2)
        want = avail / 2 / set > 1 ? avail / 2 / set : 1;
    w->copies = 1;
    if (want <= 1)
        return 0;
    w->acopies = alloc_aligned((want - 1) * a);
    w->bcopies = alloc_aligned((want - 1) * b);
    w->ccopies = alloc_aligned((want - 1) * c);
    if (!w->acopies || !w->bcopies || !w->ccopies) {
        snprintf(err, errlen, "out of memory for %zu cold-cache copies of %dx%dx%d", want,
                 w->M, w->K, w->N);
        return -1;
    }
    for (size_t i = 0; i + 1 < want; i++) {
        memcpy((char *)w->acopies + i * a, w->a, a);
        memcpy((char *)w->bcopies + i * b, w->b, b);
        memset((char *)w->ccopies + i * c, 0, c);
    }
    if (w->dtype == GB_DTYPE_F32) {
        w->Acopies = w->acopies;
        w->Bcopies = w->bcopies;
        w->Ccopies = w->ccopies;
    }
    w->copies = (int)want;
    return 0;
}

void gb_workspace_set_bytes(const gb_workspace *w, int i, const void **A, const void **B,
                            void **C)
{
    const size_t a = (size_t)w->M * w->K * gb_dtype_size_a(w->dtype),
                 b = (size_t)w->K * w->N * gb_dtype_size_b(w->dtype),
                 c = (size_t)w->M * w->N * gb_dtype_size_c(w->dtype);

    if (i <= 0 || i >= w->copies) {
        *A = w->a;
        *B = w->b;
        *C = w->c;
        return;
    }
    *A = (const char *)w->acopies + (size_t)(i - 1) * a;
    *B = (const char *)w->bcopies + (size_t)(i - 1) * b;
    *C = (char *)w->ccopies + (size_t)(i - 1) * c;
}

void gb_workspace_set(const gb_workspace *w, int i, const float **A, const float **B, float **C)
{
    const void *a, *b;
    void *c;

    gb_workspace_set_bytes(w, i, &a, &b, &c);
    *A = a;
    *B = b;
    *C = c;
}

void gb_workspace_free(gb_workspace *w)
{
    free(w->acopies);
    free(w->bcopies);
    free(w->ccopies);
    free(w->a);
    free(w->b);
    free(w->c);
    free(w->ref);
    free(w->iref);
    memset(w, 0, sizeof *w);
}

/* An element of A, B as a number, whatever the type. */
static double elem_a(const gb_workspace *w, size_t i)
{
    switch (w->dtype) {
    case GB_DTYPE_BF16: return gb_bf16_to_float(((const gb_bf16 *)w->a)[i]);
    case GB_DTYPE_U8S8: return ((const uint8_t *)w->a)[i];
    default: return ((const float *)w->a)[i];
    }
}

static double elem_b(const gb_workspace *w, size_t i)
{
    switch (w->dtype) {
    case GB_DTYPE_BF16: return gb_bf16_to_float(((const gb_bf16 *)w->b)[i]);
    case GB_DTYPE_U8S8: return ((const int8_t *)w->b)[i];
    default: return ((const float *)w->b)[i];
    }
}

/* The reference: i, k, j with a double accumulator row (64-bit integers
 * for u8s8), independent of every schedule in schedules/. */
static int compute_reference(gb_workspace *w, int nthreads)
{
    const int M = w->M, K = w->K, N = w->N;

    if (w->dtype == GB_DTYPE_U8S8) {
        const uint8_t *A = w->a;
        const int8_t *B = w->b;
        w->iref = malloc((size_t)M * N * sizeof(int64_t));
        if (w->iref == NULL)
            return -1;
#pragma omp parallel for num_threads(nthreads) schedule(static)
        for (int i = 0; i < M; i++) {
            int64_t *row = w->iref + (size_t)i * N;
            for (int j = 0; j < N; j++)
                row[j] = 0;
            for (int k = 0; k < K; k++) {
                const int64_t a = A[(size_t)i * K + k];
                const int8_t *b = B + (size_t)k * N;
                for (int j = 0; j < N; j++)
                    row[j] += a * b[j];
            }
        }
        return 0;
    }
    w->ref = malloc((size_t)M * N * sizeof(double));
    if (w->ref == NULL)
        return -1;
#pragma omp parallel for num_threads(nthreads) schedule(static)
    for (int i = 0; i < M; i++) {
        double *row = w->ref + (size_t)i * N;
        for (int j = 0; j < N; j++)
            row[j] = 0.0;
        for (int k = 0; k < K; k++) {
            const double a = elem_a(w, (size_t)i * K + k);
            for (int j = 0; j < N; j++)
                row[j] += a * elem_b(w, (size_t)k * N + j);
        }
    }
    return 0;
}

/* What C holds before the verification call: NaN (float), or INT32_MIN,
 * which no u8s8 sum within the inputs' ranges reaches, so that an element
 * the kernel never writes cannot pass. */
static void poison_c(gb_workspace *w)
{
    const size_t n = (size_t)w->M * w->N;

    if (w->dtype == GB_DTYPE_U8S8)
        for (size_t i = 0; i < n; i++)
            ((int32_t *)w->c)[i] = INT32_MIN;
    else
        for (size_t i = 0; i < n; i++)
            ((float *)w->c)[i] = NAN;
}

int gb_verify(gb_workspace *w, int nthreads, gb_result *r)
{
    const size_t n = (size_t)w->M * w->N;
    /* Outside the exact range: fp32 rounding bound of a K-term dot product. */
    const double tol = w->exact ? 0.0
                                : (double)w->K * FLT_EPSILON * w->fill_a * w->fill_b;
    long bad = 0;
    double max_err = 0.0;

    if (w->ref == NULL && w->iref == NULL && compute_reference(w, nthreads) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        double e;
        if (w->dtype == GB_DTYPE_U8S8) {
            int64_t got = ((const int32_t *)w->c)[i];
            e = got == INT32_MIN ? INFINITY : fabs((double)(got - w->iref[i]));
        } else {
            e = fabs((double)((const float *)w->c)[i] - w->ref[i]);
        }
        /* NaN (an element never written) fails too. */
        if (!(e <= tol)) {
            bad++;
            if (isnan(e))
                e = INFINITY;
        }
        if (e > max_err)
            max_err = e;
    }
    r->check = bad ? GB_CHECK_FAIL : GB_CHECK_PASS;
    r->check_exact = w->exact;
    r->mismatches = bad;
    r->max_abs_err = max_err;
    return 0;
}

/* name, then [k=v,...] for user overrides, +prepack, and (source) when the
 * variant reports where its parameters came from other than its own record
 * (the tuned variants: nearest, rule, unreadable). */
static void make_label(gb_result *r)
{
    char params[96], source[32] = "";

    gb_params_format(r->variant, &r->params, params, sizeof params);
    if (r->has_effective) {
        long s = gb_param_get(&r->effective, "source", -1);
        for (const gb_param_spec *spec = r->variant->params; spec && spec->key; spec++)
            if (s > 0 && strcmp(spec->key, "source") == 0 && spec->choices)
                snprintf(source, sizeof source, "(%s)", spec->choices[s]);
    }
    snprintf(r->label, sizeof r->label, "%s%s%s%s%s%s", r->variant->name,
             params[0] ? "[" : "", params, params[0] ? "]" : "",
             r->prepack ? "+prepack" : "", source);
}

/* The set after *set in the ring (set 0 alone when warm). */
static int next_set(const gb_workspace *w, int *set)
{
    *set = w->copies > 1 ? (*set + 1) % w->copies : 0;
    return *set;
}

/* One call of v on operands of w's shape: f32's kernel, or the type's
 * (tk).  The caller finds the operands before its clock starts. */
static int call(const gb_variant *v, const gb_typed_kernel *tk, const gb_workspace *w,
                const void *A, const void *B, void *C, const gb_ctx *ctx)
{
    if (tk)
        return tk->run(w->M, w->N, w->K, A, w->K, B, w->N, C, w->N, ctx);
    return v->run(w->M, w->N, w->K, A, w->K, B, w->N, C, w->N, ctx);
}

int gb_measure(const gb_variant *v, const gb_params *params, int threads, int prepack,
               gb_workspace *w, const gb_measure_cfg *cfg, volatile sig_atomic_t *stop,
               gb_result *r, char *err, size_t errlen)
{
    static const gb_params no_params;
    const int M = w->M, K = w->K, N = w->N;
    const gb_typed_kernel *tk = w->dtype == GB_DTYPE_F32 ? NULL : v->typed[w->dtype];
    char why[GB_ERR_LEN] = "";
    /* --param sets are f32's: a typed kernel sees none. */
    gb_ctx ctx = { threads, tk ? &no_params : params, NULL, why, sizeof why, NULL };
    gb_round_clock round_clock = { 1, 0.0, 0.0, 0.0, 0 };
    gb_clock_reading span_start, span_end;
    double spent, slice_start, t1 = 0.0;
    int rc = -1, n = 0, cap = cfg->reps, prepared = 0, set = 0;
    const int max_calls =
        cfg->max_calls > 0 && cfg->max_calls < GB_MAX_CALLS ? cfg->max_calls : GB_MAX_CALLS;

    memset(r, 0, sizeof *r);
    r->variant = v;
    r->dtype = w->dtype;
    r->params = *params;
    r->shape.M = M;
    r->shape.K = K;
    r->shape.N = N;
    r->threads = threads;
    r->prepack = prepack;
    r->peak_pct = NAN;
    r->speedup = NAN;
    r->cold = w->cold;
    r->copies = w->copies > 0 ? w->copies : 1;
    r->attainable_gflops = NAN;
    r->roof_pct = NAN;
    make_label(r);
    r->samples_us = malloc((size_t)cfg->reps * sizeof *r->samples_us);
    if (r->samples_us == NULL) {
        snprintf(err, errlen, "out of memory for %d samples", cfg->reps);
        return -1;
    }
    if (w->dtype != GB_DTYPE_F32 ? tk == NULL || params->count > 0 : v->run == NULL) {
        snprintf(err, errlen, "%s does not run %s%s", v->name, gb_dtype_name(w->dtype),
                 tk ? " with --param" : "");
        goto out; /* frees the samples */
    }
    /* Never called where it cannot run (AMX without tiles: SIGILL). */
    if (tk && tk->available && !tk->available(why, sizeof why)) {
        snprintf(err, errlen, "%s: %s", r->label, why);
        goto out;
    }
    if (tk ? tk->prepare && tk->prepare(M, N, K, w->b, N, &ctx, prepack, &ctx.state) != 0
           : v->prepare && v->prepare(M, N, K, w->B, N, &ctx, prepack, &ctx.state) != 0) {
        if (why[0] != '\0')
            snprintf(err, errlen, "%s: %s", r->label, why);
        else
            snprintf(err, errlen, "%s: set-up failed (out of memory?)", r->label);
        goto out;
    }
    prepared = 1;
    /* After prepare(): what ran may depend on its state (packed: prepack). */
    if (v->resolve && tk == NULL) {
        v->resolve(M, N, K, &ctx, &r->effective);
        r->has_effective = 1;
    }
    if (tk && tk->impl)
        tk->impl(M, N, K, &ctx, r->impl, sizeof r->impl);
    make_label(r); /* again: the label may name where the parameters came from */

    /* Verification first, on a C full of NaN, so an element the kernel never
     * writes cannot pass on a previous variant's result. */
    spent = 0.0;
    if (cfg->check) {
        double t0;
        int status;
        poison_c(w);
        t0 = gb_now();
        status = call(v, tk, w, w->a, w->b, w->c, &ctx);
        spent = gb_now() - t0;
        if (status != 0) {
            snprintf(err, errlen, "%s: kernel failed (out of memory?)", r->label);
            goto out;
        }
        if (gb_verify(w, cfg->nthreads, r) != 0) {
            snprintf(err, errlen, "out of memory for the reference of %dx%dx%d", M, K, N);
            goto out;
        }
    }

    /* The verification call is the first warm-up call: on the slowest
     * schedules (seconds per call) a separate one would cost a call more. */
    for (int i = cfg->check ? 1 : 0; i < cfg->warmup && spent <= cfg->max_time; i++) {
        const void *A, *B;
        void *C;
        double t0;
        gb_workspace_set_bytes(w, next_set(w, &set), &A, &B, &C);
        t0 = gb_now();
        if (call(v, tk, w, A, B, C, &ctx) != 0) {
            snprintf(err, errlen, "%s: kernel failed (out of memory?)", r->label);
            goto out;
        }
        spent += gb_now() - t0;
        if (*stop) {
            rc = 1;
            goto out;
        }
    }

    spent = 0.0;
    gb_clock_read(&span_start);
    slice_start = gb_now();
    while (n < cfg->reps || (spent < cfg->min_time && n < max_calls)) {
        const void *A, *B;
        void *C;
        double t0;
        int status;

        if (n == cap) {           /* min_time asks for more calls than reps */
            int grown = cap == 0 ? 64 : cap < max_calls / 2 ? 2 * cap : max_calls;
            double *more = realloc(r->samples_us, (size_t)grown * sizeof *more);
            if (more == NULL) {
                snprintf(err, errlen, "out of memory for %d samples", grown);
                goto out;
            }
            r->samples_us = more;
            cap = grown;
        }
        /* ab's turn is over after a slice (t1: the last call's end); the
         * calls go on at the next. */
        if (cfg->slice > 0.0 && n > 0 && t1 - slice_start >= cfg->slice) {
            gb_clock_read(&span_end);   /* the other build's turn is not this round's */
            gb_clock_span(&round_clock, &span_start, &span_end);
            if (cfg->pause(cfg->pause_arg) != 0) {
                rc = 1;
                goto out;
            }
            gb_clock_read(&span_start);
            slice_start = gb_now();
        }

        /* Cold: the next set, untouched since the whole ring went by. */
        gb_workspace_set_bytes(w, next_set(w, &set), &A, &B, &C);
        t0 = gb_now();
        status = call(v, tk, w, A, B, C, &ctx);
        t1 = gb_now();
        if (status != 0) {
            snprintf(err, errlen, "%s: kernel failed (out of memory?)", r->label);
            goto out;
        }
        r->samples_us[n++] = (t1 - t0) * 1e6;
        spent += t1 - t0;
        if (*stop) {
            rc = 1;
            goto out;
        }
        if (n >= cfg->min_reps && spent > cfg->max_time)
            break;
    }
    gb_clock_read(&span_end);
    gb_clock_span(&round_clock, &span_start, &span_end);
    r->round_clocks = malloc(sizeof *r->round_clocks);
    if (r->round_clocks == NULL) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    r->round_clocks[0] = round_clock;
    r->nround_clocks = 1;
    r->reps = n;
    r->rounds = 1;
    stats_compute(r->samples_us, (size_t)n, &r->stats);
    r->gflops = r->stats.median > 0.0 ? gb_flops(M, K, N) / (r->stats.median * 1e3) : 0.0;
    rc = 0;
out:
    if (prepared && (tk ? tk->release != NULL : v->release != NULL))
        (tk ? tk->release : v->release)(ctx.state);
    if (rc != 0)
        gb_result_free(r);
    return rc;
}
