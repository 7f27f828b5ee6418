/*
 * calibrate.c - packed's regime choices that no machine report decides,
 * measured on the machine: how it reads an operand whose rows are a page
 * or more apart.
 *
 * B (mlp_expand's, N = 3072, rows 12 KiB apart):
 *   in place - jr outside ir: every A micro-panel's pass reads the B
 *              micro-panel where it is, software-prefetched (B fused; from
 *              5 A micro-panels up the first pass copies it for the
 *              others), or panel fused where fused would cut kc;
 *   copied   - ir outside jr, B in kc x nc blocks in the pre-packed layout:
 *              the first A micro-panel's pass over a block reads B in place
 *              and copies it there, the others read the copy (panel fused
 *              at every M).
 * A (mlp_reduce's, K = 3072): in place (the kernel broadcasts from MR rows
 * 12 KiB apart) or copied (each micro-panel packed on its first use, A
 * fused).
 * Which costs less depends on what reading rows a page apart costs the
 * core: its prefetchers (none crosses a page), its TLB, how many ways its
 * L1d really has (a guest's CPUID may report fewer than the host's core),
 * none of which a machine report settles.  On an AMD EPYC guest reporting
 * a 32 KiB 8-way L1d, B in place took 0.8x the time of copied and A in
 * place 0.96x; on an Intel Xeon guest, B read in place cost 1.7-2x what the
 * same kernel took on packed B.  So both are measured, not derived.
 *
 * The measurement, per question: two of the BERT shapes that ask it (M =
 * 16, where every pass reads the operand in place, and M = 64), each answer
 * timed by the harness (gb_measure: CALIB_WARMUP warm-up calls, then the
 * fastest of CALIB_REPS timed calls) in CALIB_ROUNDS rounds, the two
 * answers in alternating order; a round's ratio is the geometric mean over
 * the two shapes of in place / copied.  Copied is chosen when the median
 * round's ratio exceeds CALIB_COPIED_RATIO.  A few hundred ms, before any
 * timed call of a run.
 *
 * The cache: one small JSON file per key (CPU model, ISA, caches, thread
 * count, method version), named after the key's hash, in the schedule
 * cache's directory; written atomically; a file that does not parse, lacks
 * a field, or was written for another key or method is refused and
 * measured again.
 */
#define _POSIX_C_SOURCE 200809L
#include "calibrate.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "output.h"
#include "sched_build.h"
#include "sha256.h"
#include "stats.h"

extern const gb_variant gb_variant_packed;

/* Bump when what is measured, or how it decides, changes: older files are
 * then refused and measured again. */
#define CALIB_METHOD 2
#define CALIB_SCHEMA "gemmbench-calibration/2"
#define CALIB_ROUNDS 7
#define CALIB_ROUNDS_QUICK 3
#define CALIB_WARMUP 1
#define CALIB_REPS 4
#define CALIB_REPS_QUICK 2
/* Copied only when in place measured more than 10 % slower: closer than
 * that the two are one regime on a shared machine (on the AMD EPYC guest
 * B's median round moved between 0.78 and 1.05 from one calibration to
 * the next, the rounds' p10-p90 spanning 0.5-1.3 under load), and in place
 * is the one that copies nothing. */
#define CALIB_COPIED_RATIO 1.10
/* A calibration file is a few hundred bytes; more is not one. */
#define CALIB_MAX_FILE 65536

const char *const gb_read_names[] = { "in_place", "copied", NULL };
const char *const gb_calib_question_names[] = { "b", "a", NULL };

/* Per question: the shapes it times, the --param that answers it. */
static const struct {
    int M[2], K, N;
    const char *param;
    const char *shapes;
} questions[GB_CALIB_QUESTIONS] = {
    [GB_CALIB_B] = { { 16, 64 }, 768, 3072, "bread", "mlp_expand M=16,64 (K 768, N 3072)" },
    [GB_CALIB_A] = { { 16, 64 }, 3072, 768, "aread", "mlp_reduce M=16,64 (K 3072, N 768)" },
};
#define CALIB_NSHAPES 2

const char *gb_calibration_shapes(int question)
{
    return questions[question].shapes;
}

int gb_calibration_needed(const gb_variant *v)
{
    return v != NULL && (v == &gb_variant_packed || v->base == &gb_variant_packed);
}

void gb_calibration_key(const gb_machine *m, int threads, char *key, size_t len)
{
    size_t used = 0;

    used += (size_t)snprintf(key, len, "method=%d|cpu=%s|isa=", CALIB_METHOD, m->cpu_model);
    for (int i = 0; i < m->nisa && used < len; i++)
        used += (size_t)snprintf(key + used, len - used, "%s%s", i ? "," : "", m->isa[i]);
    if (used < len)
        used += (size_t)snprintf(key + used, len - used, "|caches=");
    for (int i = 0; i < m->ncaches && used < len; i++)
        used += (size_t)snprintf(key + used, len - used, "%sL%d%c:%ld:%d", i ? "," : "",
                                 m->caches[i].level, m->caches[i].type[0],
                                 m->caches[i].size_bytes, m->caches[i].ways);
    if (used < len)
        snprintf(key + used, len - used, "|threads=%d", threads);
}

int gb_calibration_path(const char *key, char *path, size_t len, char *err, size_t errlen)
{
    char dir[4096], hex[65];
    unsigned char digest[32];

    if (gb_sched_cache_dir(dir, sizeof dir, err, errlen) != 0)
        return -1;
    gb_sha256(key, strlen(key), digest);
    gb_sha256_hex(digest, hex);
    hex[16] = '\0';
    if ((size_t)snprintf(path, len, "%s/calibration-%s.json", dir, hex) >= len) {
        snprintf(err, errlen, "cache directory '%s': path too long", dir);
        return -1;
    }
    return 0;
}

static int read_index(const char *name)
{
    for (int i = 0; gb_read_names[i]; i++)
        if (strcmp(gb_read_names[i], name) == 0)
            return i;
    return -1;
}

/* The whole file, NUL-terminated, or NULL (errno ENOENT: none; EFBIG: too
 * large to be one). */
static char *read_small_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *text;
    size_t n;

    if (f == NULL)
        return NULL;
    text = malloc(CALIB_MAX_FILE + 1);
    if (text == NULL) {
        fclose(f);
        errno = ENOMEM;
        return NULL;
    }
    n = fread(text, 1, CALIB_MAX_FILE + 1, f);
    if (ferror(f) || n > CALIB_MAX_FILE) {
        const int why = ferror(f) ? EIO : EFBIG;
        fclose(f);
        free(text);
        errno = why;
        return NULL;
    }
    fclose(f);
    text[n] = '\0';
    return text;
}

static int positive_number(const cJSON *doc, const char *name, double *out)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(doc, name);
    if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble) || !(item->valuedouble > 0.0))
        return -1;
    *out = item->valuedouble;
    return 0;
}

/* The answer to one question from its object in a file: 0, or -1. */
static int answer_from_json(const cJSON *o, gb_calib_answer *a)
{
    const cJSON *read = cJSON_GetObjectItemCaseSensitive(o, "read");

    if (!cJSON_IsObject(o) || !cJSON_IsString(read) || read_index(read->valuestring) < 0 ||
        positive_number(o, "ratio", &a->ratio) != 0 ||
        positive_number(o, "ratio_p10", &a->ratio_p10) != 0 ||
        positive_number(o, "ratio_p90", &a->ratio_p90) != 0)
        return -1;
    a->read = read_index(read->valuestring);
    return 0;
}

int gb_calibration_load(const char *path, const char *key, gb_calibration *out, char *err,
                        size_t errlen)
{
    char *text = read_small_file(path);
    cJSON *doc;
    const cJSON *schema, *file_key, *threads, *rounds;
    int rc = -1, answers = 0;

    memset(out, 0, sizeof *out);
    if (text == NULL) {
        if (errno == ENOENT)
            return 1;
        snprintf(err, errlen, "%s", errno == EFBIG ? "corrupt: larger than a calibration"
                                                   : strerror(errno));
        return -1;
    }
    doc = cJSON_Parse(text);
    free(text);
    if (doc == NULL) {
        snprintf(err, errlen, "corrupt: not JSON");
        return -1;
    }
    schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
    file_key = cJSON_GetObjectItemCaseSensitive(doc, "key");
    threads = cJSON_GetObjectItemCaseSensitive(doc, "threads");
    rounds = cJSON_GetObjectItemCaseSensitive(doc, "rounds");
    for (int q = 0; q < GB_CALIB_QUESTIONS; q++)
        answers += answer_from_json(cJSON_GetObjectItemCaseSensitive(
                                        doc, gb_calib_question_names[q]),
                                    &out->answer[q]) == 0;
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, CALIB_SCHEMA) != 0) {
        snprintf(err, errlen, "corrupt: schema is not %s", CALIB_SCHEMA);
    } else if (!cJSON_IsString(file_key)) {
        snprintf(err, errlen, "corrupt: no key");
    } else if (strcmp(file_key->valuestring, key) != 0) {
        /* The file name is the key's hash: another key here is another
         * machine's file copied in. */
        snprintf(err, errlen, "stale: measured for %.160s, not this machine and thread count",
                 file_key->valuestring);
    } else if (!cJSON_IsNumber(threads) || threads->valuedouble < 1 ||
               threads->valuedouble > 1e6 || !cJSON_IsNumber(rounds) ||
               rounds->valuedouble < 1 || rounds->valuedouble > 1e6 ||
               answers != GB_CALIB_QUESTIONS) {
        snprintf(err, errlen, "corrupt: a field is missing or out of range");
    } else {
        out->threads = (int)threads->valuedouble;
        out->rounds = (int)rounds->valuedouble;
        snprintf(out->source, sizeof out->source, "cached");
        rc = 0;
    }
    cJSON_Delete(doc);
    if (rc != 0)
        memset(out, 0, sizeof *out);
    return rc;
}

int gb_calibration_store(const char *path, const char *key, const gb_calibration *c,
                         char *err, size_t errlen)
{
    cJSON *doc = cJSON_CreateObject();
    char when[32];
    time_t now = time(NULL);
    struct tm tm;
    int rc;

    if (doc == NULL) {
        snprintf(err, errlen, "out of memory writing %s", path);
        return -1;
    }
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    cJSON_AddStringToObject(doc, "schema", CALIB_SCHEMA);
    cJSON_AddStringToObject(doc, "key", key);
    cJSON_AddNumberToObject(doc, "threads", c->threads);
    cJSON_AddNumberToObject(doc, "rounds", c->rounds);
    for (int q = 0; q < GB_CALIB_QUESTIONS; q++) {
        const gb_calib_answer *a = &c->answer[q];
        cJSON *o = cJSON_AddObjectToObject(doc, gb_calib_question_names[q]);
        if (o == NULL)
            continue;
        cJSON_AddStringToObject(o, "read", gb_read_names[a->read]);
        cJSON_AddNumberToObject(o, "ratio", a->ratio);
        cJSON_AddNumberToObject(o, "ratio_p10", a->ratio_p10);
        cJSON_AddNumberToObject(o, "ratio_p90", a->ratio_p90);
        cJSON_AddStringToObject(o, "shapes", questions[q].shapes);
    }
    cJSON_AddStringToObject(doc, "measured", when);
    rc = gb_json_write_atomic(doc, path, 1, err, errlen);
    cJSON_Delete(doc);
    return rc;
}

/* One round of a question: each shape's fastest call per answer, in place
 * first on even rounds; the geometric mean over the shapes of in place /
 * copied. */
static int measure_round(int round, int threads, gb_workspace *ws, const gb_params *read_as,
                         const gb_measure_cfg *cfg, double *ratio, char *err, size_t errlen)
{
    volatile sig_atomic_t stop = 0;
    double log_sum = 0.0;

    for (int s = 0; s < CALIB_NSHAPES; s++) {
        double t[GB_READ_CHOICES];
        for (int k = 0; k < GB_READ_CHOICES; k++) {
            const int r = (round + k) % GB_READ_CHOICES;
            gb_result res;
            if (gb_measure(&gb_variant_packed, &read_as[r], threads, 0, &ws[s], cfg, &stop,
                           &res, err, errlen) != 0) {
                gb_result_free(&res);
                return -1;
            }
            /* The fastest call: on a shared machine another process only
             * ever adds time, so the least is the regime's own. */
            t[r] = res.stats.min;
            gb_result_free(&res);
        }
        if (!(t[GB_READ_IN_PLACE] > 0.0) || !(t[GB_READ_COPIED] > 0.0)) {
            snprintf(err, errlen, "calibration: a call took no measurable time");
            return -1;
        }
        log_sum += log(t[GB_READ_IN_PLACE] / t[GB_READ_COPIED]);
    }
    *ratio = exp(log_sum / CALIB_NSHAPES);
    return 0;
}

/* One question's rounds into its answer.  0, or -1 with err. */
static int measure_question(int q, int threads, int rounds, const gb_measure_cfg *cfg,
                            gb_calib_answer *out, char *err, size_t errlen)
{
    gb_workspace ws[CALIB_NSHAPES];
    gb_params read_as[GB_READ_CHOICES];
    double ratios[CALIB_ROUNDS];
    gb_stats st;
    int rc = -1;

    memset(ws, 0, sizeof ws);
    for (int r = 0; r < GB_READ_CHOICES; r++) {
        char text[32];
        snprintf(text, sizeof text, "%s=%s", questions[q].param, gb_read_names[r]);
        if (gb_params_parse(&gb_variant_packed, text, &read_as[r], err, errlen) != 0)
            return -1;
    }
    for (int s = 0; s < CALIB_NSHAPES; s++)
        if (gb_workspace_init(&ws[s], questions[q].M[s], questions[q].K, questions[q].N, err,
                              errlen) != 0)
            goto cleanup;
    for (int r = 0; r < rounds; r++)
        if (measure_round(r, threads, ws, read_as, cfg, &ratios[r], err, errlen) != 0)
            goto cleanup;
    if (stats_compute(ratios, (size_t)rounds, &st) != 0) {
        snprintf(err, errlen, "calibration: out of memory");
        goto cleanup;
    }
    out->ratio = st.median;
    out->ratio_p10 = st.p10;
    out->ratio_p90 = st.p90;
    out->read = st.median > CALIB_COPIED_RATIO ? GB_READ_COPIED : GB_READ_IN_PLACE;
    rc = 0;
cleanup:
    for (int s = 0; s < CALIB_NSHAPES; s++)
        gb_workspace_free(&ws[s]);
    return rc;
}

int gb_calibration_measure(int threads, int quick, gb_calibration *out, char *err,
                           size_t errlen)
{
    const int rounds = quick ? CALIB_ROUNDS_QUICK : CALIB_ROUNDS;
    const int reps = quick ? CALIB_REPS_QUICK : CALIB_REPS;
    const gb_measure_cfg cfg = { .warmup = CALIB_WARMUP, .reps = reps, .min_reps = reps,
                                 .max_time = 10.0, .check = 0, .nthreads = threads };

    memset(out, 0, sizeof *out);
    for (int q = 0; q < GB_CALIB_QUESTIONS; q++)
        if (measure_question(q, threads, rounds, &cfg, &out->answer[q], err, errlen) != 0)
            return -1;
    out->threads = threads;
    out->rounds = rounds;
    snprintf(out->source, sizeof out->source, "measured");
    return 0;
}

/* GEMMBENCH_CALIBRATE: -1 unset (or empty), GB_READ_CHOICES quick, a
 * read index forced (every question's), -2 a value it does not take. */
static int calibrate_mode(void)
{
    const char *mode = getenv("GEMMBENCH_CALIBRATE");

    if (mode == NULL || mode[0] == '\0')
        return -1;
    if (strcmp(mode, "quick") == 0)
        return GB_READ_CHOICES;
    return read_index(mode) >= 0 ? read_index(mode) : -2;
}

int gb_calibration_mode_check(char *err, size_t errlen)
{
    if (calibrate_mode() != -2)
        return 0;
    snprintf(err, errlen, "GEMMBENCH_CALIBRATE=%.64s: takes quick, in_place or copied",
             getenv("GEMMBENCH_CALIBRATE"));
    return -1;
}

static void set_without_measuring(gb_calibration *out, int threads, int read,
                                  const char *source)
{
    memset(out, 0, sizeof *out);
    out->threads = threads;
    for (int q = 0; q < GB_CALIB_QUESTIONS; q++)
        out->answer[q].read = read;
    snprintf(out->source, sizeof out->source, "%s", source);
}

void gb_calibration_lookup(const gb_machine *m, int threads, gb_calibration *out)
{
    const int mode = calibrate_mode();
    char key[1024], path[4200], err[256];

    if (mode >= 0 && mode < GB_READ_CHOICES) {
        set_without_measuring(out, threads, mode, "forced");
        return;
    }
    gb_calibration_key(m, threads, key, sizeof key);
    if (mode == -2 || gb_calibration_path(key, path, sizeof path, err, sizeof err) != 0 ||
        gb_calibration_load(path, key, out, err, sizeof err) != 0)
        set_without_measuring(out, threads, GB_READ_IN_PLACE, "default");
}

int gb_calibration_ensure(const gb_machine *m, int threads, int quiet, gb_calibration *out,
                          char *err, size_t errlen)
{
    const int mode = calibrate_mode();
    char key[1024], path[4200], why[512], line[256];
    int rc;

    if (gb_calibration_mode_check(err, errlen) != 0)
        return -1;
    if (mode >= 0 && mode < GB_READ_CHOICES) {
        set_without_measuring(out, threads, mode, "forced");
        return 0;
    }
    gb_calibration_key(m, threads, key, sizeof key);
    if (gb_calibration_path(key, path, sizeof path, why, sizeof why) != 0) {
        fprintf(stderr, "gemmbench: warning: packed's calibration cannot be cached (%s): "
                        "A and B read by the default, in place\n", why);
        set_without_measuring(out, threads, GB_READ_IN_PLACE, "default");
        return 0;
    }
    rc = gb_calibration_load(path, key, out, why, sizeof why);
    if (rc == 0)
        return 0;
    if (rc < 0)
        fprintf(stderr, "gemmbench: calibration cache %s refused: %s; measuring again\n", path,
                why);
    if (gb_calibration_measure(threads, mode == GB_READ_CHOICES, out, err, errlen) != 0)
        return -2;
    if (gb_calibration_store(path, key, out, why, sizeof why) != 0) {
        fprintf(stderr, "gemmbench: warning: packed's calibration not cached (%s): A and B "
                        "read by the default, in place\n", why);
        set_without_measuring(out, threads, GB_READ_IN_PLACE, "default");
        return 0;
    }
    for (int q = 0; q < GB_CALIB_QUESTIONS && !quiet; q++) {
        gb_calibration_describe(out, q, line, sizeof line);
        fprintf(stderr, "gemmbench: packed calibrated at %d thread%s, %s read: %s\n", threads,
                threads > 1 ? "s" : "", q == GB_CALIB_B ? "B" : "A", line);
    }
    return 0;
}

void gb_calibration_describe(const gb_calibration *c, int question, char *buf, size_t len)
{
    const gb_calib_answer *a = &c->answer[question];
    const char *choice = gb_read_names[a->read];

    if (strcmp(c->source, "forced") == 0)
        snprintf(buf, len, "%s (forced by GEMMBENCH_CALIBRATE)", choice);
    else if (!(a->ratio > 0.0))
        snprintf(buf, len, "%s (not calibrated: the default)", choice);
    else
        snprintf(buf, len, "%s: in place took %.2fx the time of copied (median of %d rounds, "
                           "p10-p90 %.2f-%.2f, on %s; copied above %.2fx), %s",
                 choice, a->ratio, c->rounds, a->ratio_p10, a->ratio_p90,
                 questions[question].shapes, CALIB_COPIED_RATIO, c->source);
}
