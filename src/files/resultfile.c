/* resultfile.c - load and validate a gemmbench/1 result file.  One file,
 * over 700 lines: the reader follows the schema (results/FORMAT.md) from the
 * document down to an entry, and each check sits beside the field it reads. */
#include "resultfile.h"
#include "text.h"
#include "stats.h"
#include "output.h"
#include "inputfile.h"
#include "machine.h"
#include "sweep.h"
#include "parse.h"
#include "sha256.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The whole file, a regular file only (a FIFO given as input would block
 * forever, a device stream forever). */
static char *read_whole_file(const char *path, const char *shown, char *err, size_t errlen)
{
    char *text = gb_read_regular(path, GB_RESULT_FILE_MAX, err, errlen);

    if (text != NULL && text[0] == '\0') {
        snprintf(err, errlen, "%s: empty file", shown);
        free(text);
        return NULL;
    }
    return text;
}

static const cJSON *field(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* Reads a required number field that must be finite and >= min. */
static int get_number(const cJSON *obj, const char *key, double min, double *out,
                      const char *where, char *err, size_t errlen)
{
    const cJSON *v = field(obj, key);
    if (v == NULL) {
        snprintf(err, errlen, "%s: missing field \"%s\"", where, key);
        return -1;
    }
    if (!cJSON_IsNumber(v)) {
        snprintf(err, errlen, "%s: field \"%s\" is not a number", where, key);
        return -1;
    }
    if (!isfinite(v->valuedouble) || v->valuedouble < min) {
        snprintf(err, errlen, "%s: field \"%s\" is %g, below %g", where, key, v->valuedouble,
                 min);
        return -1;
    }
    *out = v->valuedouble;
    return 0;
}

static int get_int(const cJSON *obj, const char *key, int min, int *out, const char *where,
                   char *err, size_t errlen)
{
    double d;
    if (get_number(obj, key, min, &d, where, err, errlen) != 0)
        return -1;
    if (d != floor(d) || d > 2147483647.0) {
        snprintf(err, errlen, "%s: field \"%s\" is not an integer", where, key);
        return -1;
    }
    *out = (int)d;
    return 0;
}

static int get_string(const cJSON *obj, const char *key, const char **out, const char *where,
                      char *err, size_t errlen)
{
    const cJSON *v = field(obj, key);
    if (v == NULL) {
        snprintf(err, errlen, "%s: missing field \"%s\"", where, key);
        return -1;
    }
    if (!cJSON_IsString(v) || v->valuestring == NULL) {
        snprintf(err, errlen, "%s: field \"%s\" is not a string", where, key);
        return -1;
    }
    *out = v->valuestring;
    return 0;
}

static double optional_number(const cJSON *obj, const char *key)
{
    const cJSON *v = field(obj, key);
    return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : NAN;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* params {"tk": 16, "isa": "avx2"} -> "isa=avx2,tk=16". */
static int canonical_params(const cJSON *params, char *buf, size_t len, const char *where,
                            char *err, size_t errlen)
{
    const char *keys[64];
    int n = 0;
    size_t used = 0;
    const cJSON *item;

    buf[0] = '\0';
    if (params == NULL || cJSON_IsNull(params))
        return 0;
    if (!cJSON_IsObject(params)) {
        snprintf(err, errlen, "%s: field \"params\" is not an object", where);
        return -1;
    }
    cJSON_ArrayForEach(item, params) {
        if (n == 64 || !(cJSON_IsNumber(item) || cJSON_IsString(item))) {
            snprintf(err, errlen, "%s: \"params\" holds a value that is not a number or string",
                     where);
            return -1;
        }
        keys[n++] = item->string;
    }
    qsort(keys, (size_t)n, sizeof *keys, compare_strings);
    for (int i = 0; i < n; i++) {
        const cJSON *v = field(params, keys[i]);
        int w = cJSON_IsString(v)
                    ? snprintf(buf + used, len - used, "%s%s=%s", i ? "," : "", keys[i],
                               v->valuestring)
                    : snprintf(buf + used, len - used, "%s%s=%.17g", i ? "," : "", keys[i],
                               v->valuedouble);
        if (w < 0 || (size_t)w >= len - used) {
            snprintf(err, errlen, "%s: \"params\" too long", where);
            return -1;
        }
        used += (size_t)w;
    }
    return 0;
}

/* The median of each round's samples, from the optional "sample_rounds"
 * (one round number, from 1, per sample).  Rounds are at most what --rounds
 * allows, and the samples are grouped by round in one pass: a round number
 * of 8,000 in a 100 KB file once cost 8,000 passes over the samples and,
 * in compare --paired, 512 MB of pairwise averages. */
static int load_rounds(const cJSON *o, gb_entry *e, const char *where, char *err,
                       size_t errlen)
{
    const cJSON *tags = field(o, "sample_rounds"), *t;
    double *bucket;
    int *tag, *start, i = 0, max = 0;

    if (tags == NULL)
        return 0;
    if (!cJSON_IsArray(tags) || cJSON_GetArraySize(tags) != e->nsamples) {
        snprintf(err, errlen, "%s: \"sample_rounds\" is not an array of %d round numbers",
                 where, e->nsamples);
        return -1;
    }
    tag = malloc((size_t)e->nsamples * sizeof *tag);
    bucket = malloc((size_t)e->nsamples * sizeof *bucket);
    start = calloc(GB_MAX_ROUNDS + 2, sizeof *start);
    if (tag == NULL || bucket == NULL || start == NULL) {
        free(tag);
        free(bucket);
        free(start);
        snprintf(err, errlen, "%s: out of memory", where);
        return -1;
    }
    cJSON_ArrayForEach(t, tags) {
        double v = cJSON_IsNumber(t) ? t->valuedouble : -1.0;
        if (!(v >= 1.0 && v <= GB_MAX_ROUNDS && v == floor(v))) {
            snprintf(err, errlen, "%s: \"sample_rounds\"[%d] is not a round number from 1 to "
                     "%d (the most --rounds allows)", where, i, GB_MAX_ROUNDS);
            free(tag);
            free(bucket);
            free(start);
            return -1;
        }
        tag[i++] = (int)v;
        start[(int)v + 1]++;
        if ((int)v > max)
            max = (int)v;
    }
    e->round_medians = malloc((size_t)max * sizeof *e->round_medians);
    if (e->round_medians == NULL) {
        free(tag);
        free(bucket);
        free(start);
        snprintf(err, errlen, "%s: out of memory", where);
        return -1;
    }
    e->nrounds = max;
    /* start[r] is where round r's samples begin in bucket (a counting sort). */
    for (int r = 1; r <= max + 1; r++)
        start[r] += start[r - 1];
    for (int k = 0; k < e->nsamples; k++)
        bucket[start[tag[k]]++] = e->samples_us[k];
    for (int r = 1, from = 0; r <= max; r++) {
        int n = start[r] - from;
        gb_stats st;
        e->round_medians[r - 1] = n && stats_compute(bucket + from, (size_t)n, &st) == 0
                                      ? st.median : NAN;
        from = start[r];
    }
    e->sample_rounds = tag;
    free(bucket);
    free(start);
    return 0;
}

/* Context switches of a round at most this (the seconds: GB_MAX_CLOCK_S). */
#define MAX_SWITCHES 1e15

/* A number in 0..max at key of a round clock, or null (NAN) when null_ok. */
static int clock_figure(const cJSON *o, const char *key, int null_ok, double max, double *out,
                        const char *where, int i, char *err, size_t errlen)
{
    const cJSON *v = field(o, key);

    if (null_ok && cJSON_IsNull(v)) {
        *out = NAN;
        return 0;
    }
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0.0 ||
        v->valuedouble > max) {
        snprintf(err, errlen, "%s: \"round_clocks\"[%d].%s is not a number >= 0%s, at most %g",
                 where, i, key, null_ok ? " or null" : "", max);
        return -1;
    }
    *out = v->valuedouble;
    return 0;
}

/* The optional "round_clocks": at most GB_MAX_ROUNDS objects, each round
 * from 1 to GB_MAX_ROUNDS once. */
static int load_round_clocks(const cJSON *o, gb_entry *e, const char *where, char *err,
                             size_t errlen)
{
    const cJSON *clocks = field(o, "round_clocks"), *c;
    unsigned char seen[GB_MAX_ROUNDS + 1] = { 0 };
    int n, i = 0;

    if (clocks == NULL)
        return 0;
    n = cJSON_IsArray(clocks) ? cJSON_GetArraySize(clocks) : -1;
    if (n < 1 || n > GB_MAX_ROUNDS) {
        snprintf(err, errlen, "%s: \"round_clocks\" is not an array of 1 to %d rounds", where,
                 GB_MAX_ROUNDS);
        return -1;
    }
    e->round_clocks = calloc((size_t)n, sizeof *e->round_clocks);
    if (e->round_clocks == NULL) {
        snprintf(err, errlen, "%s: out of memory", where);
        return -1;
    }
    cJSON_ArrayForEach(c, clocks) {
        gb_round_clock *rc = &e->round_clocks[i];
        const cJSON *round = field(c, "round");
        double r = cJSON_IsNumber(round) ? round->valuedouble : -1.0, nivcsw;
        if (!(r >= 1.0 && r <= GB_MAX_ROUNDS && r == floor(r)) || seen[(int)r]) {
            snprintf(err, errlen, "%s: \"round_clocks\"[%d].round is not a round from 1 to %d "
                     "named once", where, i, GB_MAX_ROUNDS);
            return -1;
        }
        seen[(int)r] = 1;
        rc->round = (int)r;
        if (clock_figure(c, "wall_s", 0, GB_MAX_CLOCK_S, &rc->wall_s, where, i, err, errlen) ||
            clock_figure(c, "cpu_s", 1, GB_MAX_CLOCK_S, &rc->cpu_s, where, i, err, errlen) ||
            clock_figure(c, "steal_s", 1, GB_MAX_CLOCK_S, &rc->steal_s, where, i, err, errlen) ||
            clock_figure(c, "nivcsw", 1, MAX_SWITCHES, &nivcsw, where, i, err, errlen))
            return -1;
        if (!isnan(nivcsw) && nivcsw != floor(nivcsw)) {
            snprintf(err, errlen, "%s: \"round_clocks\"[%d].nivcsw is not a count", where, i);
            return -1;
        }
        rc->nivcsw = isnan(nivcsw) ? -1 : (long)nivcsw;
        e->nround_clocks = ++i;
    }
    return 0;
}

const gb_round_clock *gb_entry_round_clock(const gb_entry *e, int round)
{
    for (int i = 0; i < e->nround_clocks; i++)
        if (e->round_clocks[i].round == round)
            return &e->round_clocks[i];
    return NULL;
}

void gb_entry_steal(const gb_entry *e, int *known, int *under, double *steal_s)
{
    *known = *under = 0;
    *steal_s = 0.0;
    for (int i = 0; i < e->nround_clocks; i++) {
        double s = e->round_clocks[i].steal_s;
        if (isnan(s))
            continue;
        (*known)++;
        if (s > 0.0) {
            (*under)++;
            *steal_s += s;
        }
    }
}

/* "cache", "intensity", "roof", "attainable_gflops", "roof_pct": files
 * older than the roofline have none of them (warm, unknown roof). */
static int load_roof(const cJSON *o, gb_entry *e, const char *where, char *err, size_t errlen)
{
    const cJSON *cache = field(o, "cache"), *roof = field(o, "roof");

    e->cold = 0;
    if (cache != NULL) {
        const char *mode = cJSON_GetStringValue(cache);
        if (mode == NULL || (strcmp(mode, "warm") != 0 && strcmp(mode, "cold") != 0)) {
            snprintf(err, errlen, "%s: field \"cache\" is not \"warm\" or \"cold\"", where);
            return -1;
        }
        e->cold = strcmp(mode, "cold") == 0;
    }
    e->intensity = optional_number(o, "intensity");
    e->attainable_gflops = optional_number(o, "attainable_gflops");
    e->roof_pct = optional_number(o, "roof_pct");
    e->roof = cJSON_GetStringValue(roof);
    return 0;
}

/* A positive number that fits an int, else fallback. */
static int count_or(const cJSON *obj, const char *key, int fallback)
{
    const cJSON *v = field(obj, key);

    return cJSON_IsNumber(v) && v->valuedouble >= 1.0 && v->valuedouble <= 1e6
               ? (int)v->valuedouble : fallback;
}

/* The header fields the tools read, each optional (older files lack some). */
static int load_header(gb_result_file *f, char *err, size_t errlen)
{
    const cJSON *by = field(f->machine, "peak_gflops_by_threads"), *p, *one;
    int n = cJSON_IsArray(by) ? cJSON_GetArraySize(by) : 0;

    f->cpu_model = cJSON_GetStringValue(field(f->machine, "cpu_model"));
    f->cpu_id = cJSON_GetStringValue(field(f->machine, "cpu_id"));
    f->hostname = cJSON_GetStringValue(field(f->machine, "hostname"));
    f->peak_isa = cJSON_GetStringValue(field(f->machine, "peak_isa"));
    f->version = cJSON_GetStringValue(field(f->tool, "version"));
    f->git = cJSON_GetStringValue(field(f->tool, "git"));
    f->git_commit = cJSON_GetStringValue(field(f->tool, "git_commit"));
    f->git_date = cJSON_GetStringValue(field(f->tool, "git_date"));
    f->git_dirty = cJSON_IsTrue(field(f->tool, "git_dirty"));
    f->started = cJSON_GetStringValue(field(f->run, "started"));
    f->cache = cJSON_GetStringValue(field(f->run, "cache"));
    f->logical_cpus = count_or(f->machine, "logical_cpus", 0);
    f->run_threads = count_or(f->run, "threads", 0);
    f->run_rounds = count_or(f->run, "rounds", 1);
    one = field(f->machine, "peak_gflops_1thread");
    f->peak_1thread = cJSON_IsNumber(one) && one->valuedouble > 0.0 ? one->valuedouble : 0.0;
    if (n == 0)
        return 0;
    /* Looked up for every cell of a report: as many as a run measures. */
    if (n > GB_MAX_THREAD_COUNTS) {
        snprintf(err, errlen, "%s: machine.peak_gflops_by_threads has %d entries, more than "
                 "the %d thread counts a run measures", f->path, n, GB_MAX_THREAD_COUNTS);
        return -1;
    }
    f->peaks = calloc((size_t)n, sizeof *f->peaks);
    if (f->peaks == NULL) {
        snprintf(err, errlen, "%s: out of memory", f->path);
        return -1;
    }
    cJSON_ArrayForEach(p, by) {
        const cJSON *g = field(p, "gflops");
        int t = count_or(p, "threads", 0);
        if (t > 0 && cJSON_IsNumber(g) && g->valuedouble > 0.0)
            f->peaks[f->npeaks++] = (gb_peak_at){ t, g->valuedouble };
    }
    return 0;
}

static int load_entry(const cJSON *o, gb_entry *e, const char *where, char *err, size_t errlen)
{
    const cJSON *samples, *s, *prepack;
    int i = 0;

    if (!cJSON_IsObject(o)) {
        snprintf(err, errlen, "%s: not an object", where);
        return -1;
    }
    if (get_string(o, "variant", &e->variant, where, err, errlen) ||
        get_string(o, "family", &e->family, where, err, errlen) ||
        get_string(o, "kernel", &e->kernel, where, err, errlen) ||
        get_string(o, "check", &e->check, where, err, errlen) ||
        get_int(o, "M", 1, &e->M, where, err, errlen) ||
        get_int(o, "K", 1, &e->K, where, err, errlen) ||
        get_int(o, "N", 1, &e->N, where, err, errlen) ||
        get_int(o, "threads", 1, &e->threads, where, err, errlen) ||
        get_int(o, "reps", 1, &e->reps, where, err, errlen) ||
        get_number(o, "median_us", 0.0, &e->median_us, where, err, errlen) ||
        get_number(o, "min_us", 0.0, &e->min_us, where, err, errlen) ||
        get_number(o, "mean_us", 0.0, &e->mean_us, where, err, errlen) ||
        get_number(o, "stddev_us", 0.0, &e->stddev_us, where, err, errlen) ||
        get_number(o, "gflops", 0.0, &e->gflops, where, err, errlen))
        return -1;
    if (field(o, "label") == NULL || get_string(o, "label", &e->label, where, err, errlen))
        e->label = e->variant;
    e->dtype = GB_DTYPE_F32;
    if (field(o, "dtype") != NULL) {
        const char *t = cJSON_GetStringValue(field(o, "dtype"));
        if (t == NULL || gb_dtype_parse(t, &e->dtype) != 0) {
            snprintf(err, errlen, "%s: field \"dtype\" is not \"f32\", \"bf16\" or \"u8s8\"",
                     where);
            return -1;
        }
    }
    e->impl = NULL;
    if (field(o, "impl") != NULL && get_string(o, "impl", &e->impl, where, err, errlen))
        return -1;
    e->rounds = count_or(o, "rounds", 1);
    prepack = field(o, "prepack");
    e->prepack = cJSON_IsTrue(prepack);
    if (canonical_params(field(o, "params"), e->params, sizeof e->params, where, err, errlen))
        return -1;
    e->peak_pct = optional_number(o, "peak_pct");
    e->speedup = optional_number(o, "speedup_vs_baseline");
    if (field(o, "schedule") != NULL) { /* its hash checked on load (check_schedules) */
        e->schedule_sha256 = cJSON_GetStringValue(field(field(o, "schedule"), "sha256"));
        if (e->schedule_sha256 == NULL) {
            snprintf(err, errlen, "%s: field \"schedule.sha256\" is missing", where);
            return -1;
        }
    }
    if (load_roof(o, e, where, err, errlen))
        return -1;

    samples = field(o, "samples_us");
    if (!cJSON_IsArray(samples)) {
        snprintf(err, errlen, "%s: field \"samples_us\" is %s", where,
                 samples ? "not an array" : "missing");
        return -1;
    }
    e->nsamples = cJSON_GetArraySize(samples);
    if (e->nsamples > GB_MAX_SAMPLES) {
        snprintf(err, errlen, "%s: \"samples_us\" has %d samples, more than the %d a "
                 "measurement takes at most", where, e->nsamples, GB_MAX_SAMPLES);
        return -1;
    }
    if (e->nsamples == 0) {
        snprintf(err, errlen, "%s: \"samples_us\" is empty", where);
        return -1;
    }
    e->samples_us = malloc((size_t)e->nsamples * sizeof *e->samples_us);
    if (e->samples_us == NULL) {
        snprintf(err, errlen, "%s: out of memory", where);
        return -1;
    }
    cJSON_ArrayForEach(s, samples) {
        if (!cJSON_IsNumber(s) || !isfinite(s->valuedouble) || s->valuedouble < 0.0) {
            snprintf(err, errlen, "%s: \"samples_us\"[%d] is not a time >= 0", where, i);
            return -1;
        }
        e->samples_us[i++] = s->valuedouble;
    }
    if (load_round_clocks(o, e, where, err, errlen) != 0)
        return -1;
    return load_rounds(o, e, where, err, errlen);
}

/* Where blank_controls stands: a schedule's text is the one string whose
 * newlines are content (results[i].schedule.text, hashed by its sha256). */
typedef enum json_place {
    PLACE_OTHER = 0, PLACE_DOC, PLACE_RESULTS, PLACE_ENTRY, PLACE_SCHEDULE
} json_place;

static json_place child_place(json_place parent, const cJSON *child)
{
    const char *key = child->string;

    switch (parent) {
    case PLACE_DOC:
        return key && strcmp(key, "results") == 0 ? PLACE_RESULTS : PLACE_OTHER;
    case PLACE_RESULTS:
        return PLACE_ENTRY;
    case PLACE_ENTRY:
        return key && strcmp(key, "schedule") == 0 ? PLACE_SCHEDULE : PLACE_OTHER;
    default:
        return PLACE_OTHER;
    }
}

/* Control characters in any string (an escape sequence, a newline in a
 * label or a hostname) would reach the terminal through report and compare,
 * or break a table's line: they read as '?'.  A schedule's text is left as
 * the file has it: check_schedule has refused any control in it but a tab
 * or a line end, and blanking those would break its hash (gemmbench ab
 * merges a round's entries and reads the result back).  cJSON's nesting
 * limit bounds the recursion. */
static void blank_controls(cJSON *node, json_place place)
{
    if (cJSON_IsString(node) && node->valuestring)
        gb_text_blank(node->valuestring);
    for (cJSON *child = node->child; child; child = child->next) {
        json_place at = child_place(place, child);
        if (!(place == PLACE_SCHEDULE && child->string && strcmp(child->string, "text") == 0))
            blank_controls(child, at);
    }
}

/* A schedule's text as the schedule reader takes it (src/sched/parse.c):
 * lines of text, where a tab, a newline and a carriage return before it
 * are content; any other control is not a schedule's.  The offset of the
 * first such byte, or -1 when there is none. */
static long schedule_text_control(const char *text)
{
    const unsigned char *c = (const unsigned char *)text;

    for (long i = 0; c[i];) {
        int n = gb_utf8_length(c + i);
        if (gb_text_control(c + i, n) &&
            !(n == 1 && (c[i] == '\t' || c[i] == '\n' || c[i] == '\r')))
            return i;
        i += n ? n : 1;
    }
    return -1;
}

/* A schedule object's sha256 (results/FORMAT.md): 64 lowercase hex digits,
 * the SHA-256 of the object's text, so that pairing two results by hash
 * (compare, ab) is pairing them by the text they ran. */
static int check_schedule(const cJSON *sched, const char *where, char *err, size_t errlen)
{
    const char *text = cJSON_GetStringValue(field(sched, "text"));
    const char *sha = cJSON_GetStringValue(field(sched, "sha256"));
    unsigned char digest[32];
    char hex[65];
    long at;

    if (sha == NULL || strlen(sha) != 64 || strspn(sha, "0123456789abcdef") != 64) {
        snprintf(err, errlen, "%s: field \"schedule.sha256\" is not a SHA-256 in lowercase hex",
                 where);
        return -1;
    }
    if (text == NULL) {
        snprintf(err, errlen, "%s: field \"schedule.text\" is %s", where,
                 field(sched, "text") ? "not a string" : "missing");
        return -1;
    }
    if ((at = schedule_text_control(text)) >= 0) {
        snprintf(err, errlen, "%s: field \"schedule.text\" holds a control character (byte "
                 "0x%02x at offset %ld): a schedule is lines of text", where,
                 (unsigned char)text[at], at);
        return -1;
    }
    gb_sha256(text, strlen(text), digest);
    gb_sha256_hex(digest, hex);
    if (strcmp(hex, sha) != 0) {
        snprintf(err, errlen, "%s: field \"schedule.sha256\" is not the SHA-256 of "
                 "\"schedule.text\"", where);
        return -1;
    }
    return 0;
}

/* Every result's schedule object checked (check_schedule) as the file has
 * it, before blank_controls blanks the controls of every other string. */
static int check_schedules(const cJSON *doc, const char *path, char *err, size_t errlen)
{
    const cJSON *results = field(doc, "results"), *o;
    char where[4200];
    int i = 0;

    if (!cJSON_IsArray(results))
        return 0; /* said when the entries are read */
    cJSON_ArrayForEach(o, results) {
        snprintf(where, sizeof where, "%s: results[%d]", path, i++);
        if (field(o, "schedule") != NULL && check_schedule(field(o, "schedule"), where, err, errlen))
            return -1;
    }
    return 0;
}

static void free_entries(gb_result_file *f)
{
    for (int i = 0; i < f->nentries && f->entries; i++) {
        free(f->entries[i].samples_us);
        free(f->entries[i].round_medians);
        free(f->entries[i].sample_rounds);
        free(f->entries[i].round_clocks);
    }
    free(f->entries);
    free(f->baselines);
    f->entries = NULL;
    f->baselines = NULL;
    f->nentries = f->nbaselines = 0;
}

int gb_result_file_load(const char *path, gb_result_file *f, char *err, size_t errlen)
{
    char shown[sizeof f->path];
    char *text;
    int rc;

    gb_printable(path, sizeof shown, shown, sizeof shown);
    text = read_whole_file(path, shown, err, errlen);
    if (text == NULL) {
        memset(f, 0, sizeof *f);
        return -1;
    }
    rc = gb_result_file_parse(path, text, f, err, errlen);
    free(text);
    return rc;
}

int gb_result_file_parse(const char *path, const char *text, gb_result_file *f, char *err,
                         size_t errlen)
{
    const cJSON *schema, *complete, *peak;
    char why[256];

    memset(f, 0, sizeof *f);
    /* f->path is for messages and headers: escaped as every message shows
     * user text, so that a file name cannot send escapes to the terminal. */
    gb_printable(path, sizeof f->path, f->path, sizeof f->path);
    path = f->path;
    f->doc = gb_json_parse_strict(text, why, sizeof why);
    if (f->doc == NULL) {
        snprintf(err, errlen, "%s: %s", path, why);
        return -1;
    }
    if (check_schedules(f->doc, path, err, errlen) != 0)
        goto fail;
    blank_controls(f->doc, PLACE_DOC);
    if (!cJSON_IsObject(f->doc)) {
        snprintf(err, errlen, "%s: not a JSON object", path);
        goto fail;
    }
    schema = field(f->doc, "schema");
    if (!cJSON_IsString(schema)) {
        snprintf(err, errlen, "%s: no \"schema\" field: not a gemmbench result file", path);
        goto fail;
    }
    if (strcmp(schema->valuestring, GB_SCHEMA) != 0) {
        snprintf(err, errlen, "%s: schema \"%s\" is not \"%s\"", path, schema->valuestring,
                 GB_SCHEMA);
        goto fail;
    }
    complete = field(f->doc, "complete");
    if (!cJSON_IsBool(complete)) {
        snprintf(err, errlen, "%s: field \"complete\" is %s", path,
                 complete ? "not a boolean" : "missing");
        goto fail;
    }
    f->complete = cJSON_IsTrue(complete);
    f->tool = field(f->doc, "tool");
    f->machine = field(f->doc, "machine");
    f->run = field(f->doc, "run");
    if (!cJSON_IsObject(f->tool) || !cJSON_IsObject(f->machine) || !cJSON_IsObject(f->run)) {
        snprintf(err, errlen, "%s: \"tool\", \"machine\" and \"run\" must be objects", path);
        goto fail;
    }
    peak = field(f->machine, "peak_gflops");
    f->peak_gflops = cJSON_IsNumber(peak) && peak->valuedouble > 0.0 ? peak->valuedouble : 0.0;
    if (load_header(f, err, errlen) != 0)
        goto fail;
    if (gb_result_file_reread(f, err, errlen) != 0)
        goto fail;
    return 0;
fail:
    gb_result_file_free(f);
    return -1;
}

static int is_plain_baseline(const gb_entry *e)
{
    return strcmp(e->variant, "baseline") == 0 && strcmp(e->label, "baseline") == 0 &&
           e->median_us > 0.0;
}

/* By point (kernel, M, K, N, type, threads, cache), then file order. */
static int point_order(const gb_entry *a, const gb_entry *b)
{
    int d = strcmp(a->kernel, b->kernel);
    if (d == 0)
        d = (a->dtype > b->dtype) - (a->dtype < b->dtype);
    if (d == 0)
        d = a->M != b->M ? (a->M > b->M) - (a->M < b->M) : (a->K > b->K) - (a->K < b->K);
    if (d == 0)
        d = a->N != b->N ? (a->N > b->N) - (a->N < b->N)
                         : (a->threads > b->threads) - (a->threads < b->threads);
    return d != 0 ? d : (a->cold > b->cold) - (a->cold < b->cold);
}

static int compare_baselines(const void *a, const void *b)
{
    const gb_entry *x = *(const gb_entry *const *)a, *y = *(const gb_entry *const *)b;
    int d = point_order(x, y);
    return d != 0 ? d : (x > y) - (x < y);
}

/* The plain baseline entries sorted by point: every speed-up looks one up,
 * and a search of all entries per cell made a report of 50,000 entries run
 * for a minute. */
static int index_baselines(gb_result_file *f, char *err, size_t errlen)
{
    f->baselines = malloc((size_t)f->nentries * sizeof *f->baselines);
    if (f->baselines == NULL) {
        snprintf(err, errlen, "%s: out of memory", f->path);
        return -1;
    }
    for (int i = 0; i < f->nentries; i++)
        if (is_plain_baseline(&f->entries[i]))
            f->baselines[f->nbaselines++] = &f->entries[i];
    qsort(f->baselines, (size_t)f->nbaselines, sizeof *f->baselines, compare_baselines);
    return 0;
}

const gb_entry *gb_result_file_baseline(const gb_result_file *f, const gb_entry *e)
{
    int lo = 0, hi = f->nbaselines;

    /* The first of the point's baselines in file order: the lower bound. */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (point_order(f->baselines[mid], e) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < f->nbaselines && point_order(f->baselines[lo], e) == 0 ? f->baselines[lo]
                                                                         : NULL;
}

int gb_result_file_reread(gb_result_file *f, char *err, size_t errlen)
{
    const char *path = f->path;
    const cJSON *results, *item;
    char where[4200];
    int i = 0;

    free_entries(f);
    results = field(f->doc, "results");
    if (!cJSON_IsArray(results)) {
        snprintf(err, errlen, "%s: field \"results\" is %s", path,
                 results ? "not an array" : "missing");
        return -1;
    }
    f->nentries = cJSON_GetArraySize(results);
    if (f->nentries == 0) {
        snprintf(err, errlen, "%s: \"results\" has no entries", path);
        return -1;
    }
    f->entries = calloc((size_t)f->nentries, sizeof *f->entries);
    if (f->entries == NULL) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    cJSON_ArrayForEach(item, results) {
        snprintf(where, sizeof where, "%s: results[%d]", path, i);
        if (load_entry(item, &f->entries[i], where, err, errlen) != 0)
            return -1;
        i++;
    }
    return index_baselines(f, err, errlen);
}

void gb_result_file_free(gb_result_file *f)
{
    free_entries(f);
    free(f->peaks);
    cJSON_Delete(f->doc);
    memset(f, 0, sizeof *f);
}

int gb_entry_order(const gb_entry *a, const gb_entry *b)
{
    int d = strcmp(a->variant, b->variant);
    if (d == 0)
        d = strcmp(a->params, b->params);
    if (d == 0)
        d = strcmp(a->kernel, b->kernel);
    if (d == 0)
        d = (a->M > b->M) - (a->M < b->M);
    if (d == 0)
        d = (a->K > b->K) - (a->K < b->K);
    if (d == 0)
        d = (a->N > b->N) - (a->N < b->N);
    if (d == 0)
        d = (a->dtype > b->dtype) - (a->dtype < b->dtype);
    if (d == 0)
        d = (a->threads > b->threads) - (a->threads < b->threads);
    if (d == 0)
        d = (a->prepack > b->prepack) - (a->prepack < b->prepack);
    if (d == 0)
        d = (a->cold > b->cold) - (a->cold < b->cold);
    if (d == 0 && a->schedule_sha256 != b->schedule_sha256) /* two schedule texts */
        d = a->schedule_sha256 == NULL ? -1 : b->schedule_sha256 == NULL ? 1
            : strcmp(a->schedule_sha256, b->schedule_sha256);
    return d;
}

int gb_entry_same(const gb_entry *a, const gb_entry *b)
{
    return gb_entry_order(a, b) == 0;
}

int gb_entry_same_point(const gb_entry *a, const gb_entry *b)
{
    return a->M == b->M && a->K == b->K && a->N == b->N && a->threads == b->threads &&
           a->dtype == b->dtype && a->cold == b->cold && strcmp(a->kernel, b->kernel) == 0;
}

const char *gb_entry_typed_label(const gb_entry *e, char *buf, size_t len)
{
    if (e->dtype == GB_DTYPE_F32)
        snprintf(buf, len, "%s", e->label);
    else
        snprintf(buf, len, "%s [%s]", e->label, gb_dtype_name(e->dtype));
    return buf;
}

double gb_result_file_peak_dtype(const gb_result_file *f, gb_dtype t, int threads)
{
    const cJSON *p, *by, *item;

    if (t == GB_DTYPE_F32)
        return gb_result_file_peak(f, threads);
    p = field(field(f->machine, "dtype_peaks"), gb_dtype_name(t));
    by = field(p, "by_threads");
    cJSON_ArrayForEach(item, by) {
        const cJSON *n = field(item, "threads"), *v = field(item, "peak");
        if (cJSON_IsNumber(n) && n->valuedouble == threads)
            return cJSON_IsNumber(v) && v->valuedouble > 0.0 ? v->valuedouble : 0.0;
    }
    if ((f->run_threads == 0 || f->run_threads == threads) && cJSON_IsNumber(field(p, "peak")) &&
        field(p, "peak")->valuedouble > 0.0)
        return field(p, "peak")->valuedouble;
    if (threads == 1 && cJSON_IsNumber(field(p, "peak_1thread")) &&
        field(p, "peak_1thread")->valuedouble > 0.0)
        return field(p, "peak_1thread")->valuedouble;
    return 0.0;
}

double gb_result_file_peak(const gb_result_file *f, int threads)
{
    for (int i = 0; i < f->npeaks; i++)
        if (f->peaks[i].threads == threads)
            return f->peaks[i].gflops;
    if (f->peak_gflops > 0.0 && (f->run_threads == 0 || f->run_threads == threads))
        return f->peak_gflops;
    if (threads == 1 && f->peak_1thread > 0.0)
        return f->peak_1thread;
    return 0.0;
}

static double number_or_zero(const cJSON *obj, const char *key)
{
    const cJSON *v = field(obj, key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0.0;
}

int gb_result_file_bandwidth(const gb_result_file *f, gb_bandwidth *out)
{
    static const char *const which[2] = { "1thread", "all_threads" };
    const cJSON *bw = field(f->machine, "bandwidth");

    memset(out, 0, sizeof *out);
    if (!cJSON_IsObject(bw))
        return -1;
    for (int l = 0; l < GB_BW_LEVELS; l++)
        for (int c = 0; c < 2; c++) {
            const cJSON *fig = field(field(bw, gb_bw_level_name(l)), which[c]);
            out->level[l].read_gbs[c] = number_or_zero(fig, "read_gbs");
            out->level[l].triad_gbs[c] = number_or_zero(fig, "triad_gbs");
        }
    return 0;
}
