/*
 * packed_calibration.c - the cache of packed's calibration, which packed's
 * plan reads (packed_plan.c): one small JSON file per key (CPU model, ISA,
 * caches, thread count, method version; machine.h), named after the key's
 * hash, in the schedule cache's directory, written atomically.  A file that
 * does not parse, lacks a field, or was written for another key is refused
 * (and measured again by src/measure/calibrate.c, which writes the files).
 * It is read as every input file is (inputfile.h): a regular file of at
 * most CALIB_MAX_FILE bytes, strict JSON.  Anything else at the path (a
 * FIFO, which a plain open would wait on for a writer; a device; a
 * directory) is no cache: packed's plan reads the default, in place, and a
 * run says so in one line without measuring or replacing it.
 */
#define _POSIX_C_SOURCE 200809L
#include "calibration.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "inputfile.h"
#include "output.h"
#include "parse.h"
#include "sched_build.h"
#include "sha256.h"

#define CALIB_SCHEMA "gemmbench-calibration/3"
/* A calibration file is a few hundred bytes; more is not one. */
#define CALIB_MAX_FILE 65536

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

static int read_index(const char *const *answers, const char *name)
{
    for (int i = 0; answers[i]; i++)
        if (strcmp(answers[i], name) == 0)
            return i;
    return -1;
}

static int positive_number(const cJSON *doc, const char *name, double *out)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(doc, name);
    if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble) || !(item->valuedouble > 0.0))
        return -1;
    *out = item->valuedouble;
    return 0;
}

/* The answer to question q from its object in a file: 0, -1, or -2 when it
 * contradicts its own ratios (p10 <= ratio <= p90, and the answer the ratio
 * gives: gb_calibration_decide) or, same_plan (nothing timed), is not the
 * first answer or has ratios. */
static int answer_from_json(const cJSON *o, int q, gb_calib_answer *a)
{
    const cJSON *read = cJSON_GetObjectItemCaseSensitive(o, "read");
    const cJSON *same = cJSON_GetObjectItemCaseSensitive(o, "same_plan");
    const char *const *answers = gb_calib_questions[q].answers;

    if (!cJSON_IsObject(o) || !cJSON_IsString(read) ||
        read_index(answers, read->valuestring) < 0 || (same != NULL && !cJSON_IsTrue(same)))
        return -1;
    if (same != NULL) {
        a->read = read_index(answers, read->valuestring);
        a->same_plan = 1;
        if (a->read != 0 || cJSON_GetObjectItemCaseSensitive(o, "ratio") != NULL ||
            cJSON_GetObjectItemCaseSensitive(o, "ratio_p10") != NULL ||
            cJSON_GetObjectItemCaseSensitive(o, "ratio_p90") != NULL)
            return -2;
        return 0;
    }
    if (positive_number(o, "ratio", &a->ratio) != 0 ||
        positive_number(o, "ratio_p10", &a->ratio_p10) != 0 ||
        positive_number(o, "ratio_p90", &a->ratio_p90) != 0)
        return -1;
    a->read = read_index(answers, read->valuestring);
    if (!(a->ratio_p10 <= a->ratio && a->ratio <= a->ratio_p90) ||
        a->read != gb_calibration_decide(q, a->ratio))
        return -2;
    return 0;
}

/* The threads' cost (machine.h): both measured (positive, under a second),
 * or both 0 (not measured: always at one thread). */
static int threads_cost_valid(const cJSON *small, const cJSON *small_t, double threads)
{
    double a, b;

    if (!cJSON_IsNumber(small) || !cJSON_IsNumber(small_t))
        return 0;
    a = small->valuedouble;
    b = small_t->valuedouble;
    if (a == 0.0 && b == 0.0)
        return 1;
    return threads >= 2 && a > 0.0 && a < 1e6 && b > 0.0 && b < 1e6;
}

int gb_calibration_load(const char *path, const char *key, gb_calibration *out, char *err,
                        size_t errlen)
{
    char why[256];
    char *text = gb_read_regular(path, CALIB_MAX_FILE, why, sizeof why);
    cJSON *doc;
    const cJSON *schema, *file_key, *threads, *rounds, *small, *small_t;
    int rc = -1, answers = 0, contradicted = 0;

    memset(out, 0, sizeof *out);
    if (text == NULL) {
        if (errno == ENOENT)
            return 1;
        if (errno == EINVAL || errno == EISDIR) {
            snprintf(err, errlen, "%s",
                     errno == EISDIR ? "a directory, not a file"
                                     : "a FIFO, device or socket, not a regular file");
            return 2;
        }
        snprintf(err, errlen, "%s", errno == EFBIG    ? "corrupt: larger than a calibration"
                                    : errno == EILSEQ ? "corrupt: binary data (a NUL byte)"
                                                      : strerror(errno));
        return -1;
    }
    doc = gb_json_parse_strict(text, why, sizeof why);
    if (doc == NULL) {
        /* Not JSON at all says so in two words, as it always has; what only
         * the strict reader refuses (more after the document, a key twice)
         * says what. */
        cJSON *lenient = cJSON_Parse(text);
        snprintf(err, errlen, "corrupt: %s", lenient ? why : "not JSON");
        cJSON_Delete(lenient);
        free(text);
        return -1;
    }
    free(text);
    schema = cJSON_GetObjectItemCaseSensitive(doc, "schema");
    file_key = cJSON_GetObjectItemCaseSensitive(doc, "key");
    threads = cJSON_GetObjectItemCaseSensitive(doc, "threads");
    rounds = cJSON_GetObjectItemCaseSensitive(doc, "rounds");
    small = cJSON_GetObjectItemCaseSensitive(doc, "small_us");
    small_t = cJSON_GetObjectItemCaseSensitive(doc, "small_t_us");
    for (int q = 0; q < GB_CALIB_QUESTIONS; q++) {
        int got = answer_from_json(cJSON_GetObjectItemCaseSensitive(doc, gb_calib_questions[q].name),
                                   q, &out->answer[q]);
        answers += got == 0;
        contradicted += got == -2;
    }
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, CALIB_SCHEMA) != 0) {
        snprintf(err, errlen, "corrupt: schema is not %s", CALIB_SCHEMA);
    } else if (!cJSON_IsString(file_key)) {
        snprintf(err, errlen, "corrupt: no key");
    } else if (strcmp(file_key->valuestring, key) != 0) {
        /* The file name is the key's hash: another key here is another
         * machine's file copied in.  Its key is the file's text, which a
         * run prints: escaped (gb_printable). */
        char shown[700];
        gb_printable(file_key->valuestring, 160, shown, sizeof shown);
        snprintf(err, errlen, "stale: measured for %s, not this machine and thread count",
                 shown);
    } else if (!cJSON_IsNumber(threads) || threads->valuedouble < 1 ||
               threads->valuedouble > 1e6 || !cJSON_IsNumber(rounds) ||
               rounds->valuedouble < 1 || rounds->valuedouble > 1e6 ||
               answers + contradicted != GB_CALIB_QUESTIONS) {
        snprintf(err, errlen, "corrupt: a field is missing or out of range");
    } else if (!threads_cost_valid(small, small_t, threads->valuedouble)) {
        snprintf(err, errlen, "corrupt: small_us and small_t_us are not the threads' cost");
    } else if (contradicted > 0) {
        snprintf(err, errlen, "corrupt: an answer contradicts its own ratios or same_plan");
    } else {
        out->threads = (int)threads->valuedouble;
        out->rounds = (int)rounds->valuedouble;
        out->small_us = small->valuedouble;
        out->small_t_us = small_t->valuedouble;
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
        cJSON *o = cJSON_AddObjectToObject(doc, gb_calib_questions[q].name);
        if (o == NULL)
            continue;
        cJSON_AddStringToObject(o, "read", gb_calib_questions[q].answers[a->read]);
        if (a->same_plan) {
            cJSON_AddTrueToObject(o, "same_plan");
        } else {
            cJSON_AddNumberToObject(o, "ratio", a->ratio);
            cJSON_AddNumberToObject(o, "ratio_p10", a->ratio_p10);
            cJSON_AddNumberToObject(o, "ratio_p90", a->ratio_p90);
        }
        cJSON_AddStringToObject(o, "shapes", gb_calib_questions[q].shapes);
    }
    cJSON_AddNumberToObject(doc, "small_us", c->small_us);
    cJSON_AddNumberToObject(doc, "small_t_us", c->small_t_us);
    cJSON_AddStringToObject(doc, "measured", when);
    rc = gb_json_write_atomic(doc, path, 1, err, errlen);
    cJSON_Delete(doc);
    return rc;
}

void gb_calibration_lookup(const gb_machine *m, int threads, gb_calibration *out)
{
    const int mode = gb_calibration_mode();
    char key[1024], path[4200], err[256];

    if (mode >= 0 && mode < GB_READ_CHOICES) {
        gb_calibration_set(out, threads, mode, "forced");
        return;
    }
    gb_calibration_key(m, threads, key, sizeof key);
    if (mode == -2 || gb_calibration_path(key, path, sizeof path, err, sizeof err) != 0 ||
        gb_calibration_load(path, key, out, err, sizeof err) != 0)
        gb_calibration_set(out, threads, GB_READ_IN_PLACE, "default");
}
