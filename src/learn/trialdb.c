/*
 * trialdb.c - the database of trials: every candidate `tune --space
 * --database FILE` measured, one JSON object a line (JSON Lines), as
 * MetaSchedule keeps its tuning records: what ran (the schedule's text and
 * the space it came from), where (the shape, the threads, the machine) and
 * what it took (the median, verified or not, the illegal draws before it).
 * Read strictly and bounded: a line that is not exactly the schema is named
 * and refused, never guessed at.  LEARN.md has the schema.
 */
#define _DEFAULT_SOURCE /* flock */
#define _POSIX_C_SOURCE 200809L
#include "inputfile.h"
#include "learn.h"
#include "machine.h"
#include "output.h"
#include "parse.h"
#include "sweep.h"
#include "text.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_CACHE (1L << 40)
#define MAX_ILLEGAL 1000000

/* ---- the machine --------------------------------------------------------- */

void gb_learn_machine_here(gb_learn_machine *out)
{
    gb_sched_machine m;
    gb_machine info;

    memset(out, 0, sizeof *out);
    gb_sched_machine_here(&m);
    gb_machine_detect(&info);
    snprintf(out->isa, sizeof out->isa, "%s", info.nisa > 0 ? info.isa[0] : info.arch);
    out->lanes = m.lanes;
    out->registers = m.registers;
    out->l1d = m.l1;
    out->l2 = m.l2;
    out->l3 = m.l3;
}

int gb_learn_machine_same(const gb_learn_machine *here, const gb_learn_machine *model,
                          char *why, size_t whylen)
{
    if (strcmp(here->isa, model->isa) != 0)
        snprintf(why, whylen, "ISA %s, the model's %s", here->isa, model->isa);
    else if (here->lanes != model->lanes || here->registers != model->registers)
        snprintf(why, whylen, "%d lanes x %d registers, the model's %d x %d", here->lanes,
                 here->registers, model->lanes, model->registers);
    else if (here->l1d != model->l1d)
        snprintf(why, whylen, "L1d %ld bytes, the model's %ld", here->l1d, model->l1d);
    else if (here->l2 != model->l2)
        snprintf(why, whylen, "L2 %ld bytes, the model's %ld", here->l2, model->l2);
    else if (here->l3 != model->l3)
        snprintf(why, whylen, "L3 %ld bytes, the model's %ld", here->l3, model->l3);
    else
        return 0;
    return -1;
}

void gb_learn_machine_sched(const gb_learn_machine *m, gb_sched_machine *out)
{
    out->lanes = m->lanes;
    out->registers = m->registers;
    out->l1 = m->l1d;
    out->l2 = m->l2;
    out->l3 = m->l3;
}

/* ---- writing ------------------------------------------------------------- */

cJSON *gb_learn_machine_json(const gb_learn_machine *m)
{
    cJSON *o = cJSON_CreateObject();

    if (o == NULL || !cJSON_AddStringToObject(o, "isa", m->isa) ||
        !cJSON_AddNumberToObject(o, "lanes", m->lanes) ||
        !cJSON_AddNumberToObject(o, "registers", m->registers) ||
        !cJSON_AddNumberToObject(o, "l1d", (double)m->l1d) ||
        !cJSON_AddNumberToObject(o, "l2", (double)m->l2) ||
        !cJSON_AddNumberToObject(o, "l3", (double)m->l3)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

void gb_trialdb_space_name(const char *path, char out[GB_TRIALS_MAX_SPACE + 1])
{
    /* every byte of the output printable ASCII; the buffer's size cuts it
     * (a long path's tail goes, as the "..." of a shorter limit would) */
    gb_printable(path, GB_TRIALS_MAX_SPACE, out, GB_TRIALS_MAX_SPACE + 1);
}

char *gb_trialdb_line(const gb_trial_row *r)
{
    cJSON *o = cJSON_CreateObject(), *m = gb_learn_machine_json(&r->machine);
    char *text = NULL, *line = NULL;
    int ok = o != NULL && m != NULL;

    ok = ok && cJSON_AddStringToObject(o, "schema", GB_TRIALS_SCHEMA) &&
         cJSON_AddNumberToObject(o, "version", GB_TRIALS_VERSION) &&
         cJSON_AddNumberToObject(o, "M", r->M) && cJSON_AddNumberToObject(o, "K", r->K) &&
         cJSON_AddNumberToObject(o, "N", r->N) &&
         cJSON_AddNumberToObject(o, "threads", r->threads) &&
         cJSON_AddStringToObject(o, "dtype", gb_dtype_name(r->dtype)) &&
         cJSON_AddItemToObject(o, "machine", m);
    if (ok)
        m = NULL;
    ok = ok && cJSON_AddStringToObject(o, "space", r->space) &&
         cJSON_AddStringToObject(o, "schedule", r->text) &&
         cJSON_AddBoolToObject(o, "verified", r->verified) &&
         (r->verified ? cJSON_AddNumberToObject(o, "median_us", r->median_us)
                      : cJSON_AddNullToObject(o, "median_us")) &&
         cJSON_AddNumberToObject(o, "illegal", r->illegal);
    if (ok)
        text = cJSON_PrintUnformatted(o);
    if (text != NULL && (line = malloc(strlen(text) + 2)) != NULL)
        sprintf(line, "%s\n", text);
    free(text);
    cJSON_Delete(m);
    cJSON_Delete(o);
    return line;
}

/* ---- reading ------------------------------------------------------------- */

static const char *const row_keys[] = { "schema", "version", "M", "K", "N", "threads",
                                        "dtype", "machine", "space", "schedule", "verified",
                                        "median_us", "illegal", NULL };
/* version 1, from before types: every trial f32's */
static const char *const row_keys_v1[] = { "schema", "version", "M", "K", "N", "threads",
                                           "machine", "space", "schedule", "verified",
                                           "median_us", "illegal", NULL };
static const char *const machine_keys[] = { "isa", "lanes", "registers", "l1d", "l2", "l3",
                                            NULL };

/* The first key of o that is not in keys, or a key of keys o lacks: the
 * schema's keys exactly, once each (cJSON keeps a duplicate). */
int gb_learn_keys_exact(const cJSON *o, const char *const *keys, char *why, size_t whylen)
{
    int n = 0;

    for (const cJSON *it = o->child; it != NULL; it = it->next) {
        int known = 0;
        for (int k = 0; keys[k]; k++)
            known |= it->string && strcmp(it->string, keys[k]) == 0;
        if (!known) {
            char shown[64];
            gb_printable(it->string ? it->string : "", 40, shown, sizeof shown);
            snprintf(why, whylen, "unknown key '%s'", shown);
            return -1;
        }
        n++;
    }
    for (int k = 0; keys[k]; k++, n--)
        if (!cJSON_GetObjectItemCaseSensitive(o, keys[k])) {
            snprintf(why, whylen, "no \"%s\"", keys[k]);
            return -1;
        }
    if (n != 0) {
        snprintf(why, whylen, "a key given twice");
        return -1;
    }
    return 0;
}

/* An integer in [lo, hi] at key. */
static int int_at(const cJSON *o, const char *key, double lo, double hi, long *out, char *why,
                  size_t whylen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble != floor(v->valuedouble) ||
        v->valuedouble < lo || v->valuedouble > hi) {
        snprintf(why, whylen, "\"%s\" is not an integer in %.0f..%.0f", key, lo, hi);
        return -1;
    }
    *out = (long)v->valuedouble;
    return 0;
}

/* A printable string of at most max bytes at key, copied into out. */
static int text_at(const cJSON *o, const char *key, size_t max, char *out, size_t outlen,
                   char *why, size_t whylen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    if (!cJSON_IsString(v) || !gb_text_printable(v->valuestring, max) ||
        strlen(v->valuestring) >= outlen) {
        snprintf(why, whylen, "\"%s\" is not printable text of 1 to %zu bytes", key, max);
        return -1;
    }
    snprintf(out, outlen, "%s", v->valuestring);
    return 0;
}

int gb_learn_machine_read(const cJSON *o, gb_learn_machine *m, char *why, size_t whylen)
{
    long lanes, registers;

    if (!cJSON_IsObject(o)) {
        snprintf(why, whylen, "\"machine\" is not an object");
        return -1;
    }
    if (gb_learn_keys_exact(o, machine_keys, why, whylen) != 0 ||
        text_at(o, "isa", sizeof m->isa - 1, m->isa, sizeof m->isa, why, whylen) != 0 ||
        int_at(o, "lanes", 1, 64, &lanes, why, whylen) != 0 ||
        int_at(o, "registers", 1, 256, &registers, why, whylen) != 0 ||
        /* 0: not reported (a build without hwloc), as tune writes it */
        int_at(o, "l1d", 0, MAX_CACHE, &m->l1d, why, whylen) != 0 ||
        int_at(o, "l2", 0, MAX_CACHE, &m->l2, why, whylen) != 0 ||
        int_at(o, "l3", 0, MAX_CACHE, &m->l3, why, whylen) != 0)
        return -1;
    m->lanes = (int)lanes;
    m->registers = (int)registers;
    return 0;
}

/* A schedule text: printable lines (the language's own check follows). */
int gb_learn_schedule_text(const cJSON *v, size_t max, char *why, size_t whylen)
{
    if (!cJSON_IsString(v) || strlen(v->valuestring) > max) {
        snprintf(why, whylen, "\"schedule\" is not a text of at most %zu bytes", max);
        return -1;
    }
    for (const char *c = v->valuestring; *c; c++)
        if (*c != '\n' && *c != '\t' && (*c < ' ' || *c > '~')) {
            snprintf(why, whylen, "\"schedule\" holds a byte that is not printable ASCII");
            return -1;
        }
    return 0;
}

/* One line into r.  0, or -1 with why (no "FILE:LINE: ": the caller's). */
static int read_row(const cJSON *o, gb_trial_row *r, char *why, size_t whylen)
{
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(o, "schema");
    const cJSON *verified, *median, *sched;
    long version, M, K, N, threads, illegal;
    gb_sched nest;
    char err[GB_ERR_LEN];

    memset(r, 0, sizeof *r);
    if (!cJSON_IsObject(o)) {
        snprintf(why, whylen, "not a JSON object");
        return -1;
    }
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, GB_TRIALS_SCHEMA) != 0) {
        snprintf(why, whylen, "not a line of a trial database (\"schema\": \"%s\")",
                 GB_TRIALS_SCHEMA);
        return -1;
    }
    if (int_at(o, "version", 0, 1e9, &version, why, whylen) != 0)
        return -1;
    if (version != GB_TRIALS_VERSION && version != 1) {
        snprintf(why, whylen, "version %ld; this gemmbench reads versions 1 and %d", version,
                 GB_TRIALS_VERSION);
        return -1;
    }
    if (gb_learn_keys_exact(o, version == 1 ? row_keys_v1 : row_keys, why, whylen) != 0)
        return -1;
    r->dtype = GB_DTYPE_F32;
    if (version != 1) {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "dtype");
        if (!cJSON_IsString(t) || gb_dtype_parse(t->valuestring, &r->dtype) != 0) {
            snprintf(why, whylen, "\"dtype\" is not f32, bf16 or u8s8");
            return -1;
        }
    }
    if (
        int_at(o, "M", 1, GB_MAX_DIM, &M, why, whylen) != 0 ||
        int_at(o, "K", 1, GB_MAX_DIM, &K, why, whylen) != 0 ||
        int_at(o, "N", 1, GB_MAX_DIM, &N, why, whylen) != 0 ||
        int_at(o, "threads", 1, GB_TRIALS_MAX_THREADS, &threads, why, whylen) != 0 ||
        int_at(o, "illegal", 0, MAX_ILLEGAL, &illegal, why, whylen) != 0 ||
        gb_learn_machine_read(cJSON_GetObjectItemCaseSensitive(o, "machine"), &r->machine, why,
                     whylen) != 0 ||
        text_at(o, "space", GB_TRIALS_MAX_SPACE, r->space, sizeof r->space, why, whylen) != 0)
        return -1;
    verified = cJSON_GetObjectItemCaseSensitive(o, "verified");
    median = cJSON_GetObjectItemCaseSensitive(o, "median_us");
    if (!cJSON_IsBool(verified)) {
        snprintf(why, whylen, "\"verified\" is not true or false");
        return -1;
    }
    r->verified = cJSON_IsTrue(verified);
    if (r->verified && !(cJSON_IsNumber(median) && isfinite(median->valuedouble) &&
                         median->valuedouble > 0.0 && median->valuedouble < GB_LEARN_MAX_US)) {
        snprintf(why, whylen, "\"median_us\" of a verified trial is not a time in microseconds");
        return -1;
    }
    if (!r->verified && !cJSON_IsNull(median)) {
        snprintf(why, whylen, "\"median_us\" of a trial not verified is not null");
        return -1;
    }
    sched = cJSON_GetObjectItemCaseSensitive(o, "schedule");
    if (gb_learn_schedule_text(sched, GB_SCHED_MAX_FILE, why, whylen) != 0)
        return -1;
    /* what the language refuses never reaches a feature or a compiler */
    if (gb_sched_from_text("schedule", sched->valuestring, strlen(sched->valuestring), &nest,
                           err, sizeof err) != 0) {
        snprintf(why, whylen, "%s", err);
        return -1;
    }
    /* the line's type is its schedule's (a typed space's point states it) */
    if (nest.dtype != r->dtype) {
        snprintf(why, whylen, "the schedule states type %s, the line's \"dtype\" is %s%s",
                 gb_dtype_name(nest.dtype), gb_dtype_name(r->dtype),
                 version == 1 ? " (version 1: f32)" : "");
        return -1;
    }
    if ((r->text = strdup(sched->valuestring)) == NULL) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    r->M = (int)M, r->K = (int)K, r->N = (int)N;
    r->threads = (int)threads;
    r->illegal = (int)illegal;
    r->median_us = r->verified ? median->valuedouble : 0.0;
    return 0;
}

static int push(gb_trial_db *db, const gb_trial_row *r)
{
    if (db->n == db->cap) {
        int cap = db->cap ? 2 * db->cap : 256;
        gb_trial_row *rows = realloc(db->rows, (size_t)cap * sizeof *rows);
        if (rows == NULL)
            return -1;
        db->rows = rows;
        db->cap = cap;
    }
    db->rows[db->n++] = *r;
    return 0;
}

int gb_trialdb_parse(const char *name, const char *text, size_t len, gb_trial_db *db,
                     char *err, size_t errlen)
{
    const int had = db->n;
    char shown[256], why[GB_ERR_LEN], *line = malloc(GB_TRIALS_MAX_LINE + 1);
    int lineno = 0;

    gb_printable(name, 200, shown, sizeof shown);
    if (line == NULL) {
        snprintf(err, errlen, "%s: out of memory", shown);
        return -1;
    }
    for (size_t at = 0; at < len;) {
        size_t end = at;
        cJSON *o;
        gb_trial_row r;
        int rc;

        while (end < len && text[end] != '\n')
            end++;
        lineno++;
        if (end == len) {
            snprintf(why, sizeof why, "the last line has no newline (a write cut short?)");
            goto bad;
        }
        if (end - at > GB_TRIALS_MAX_LINE) {
            snprintf(why, sizeof why, "a line over %d bytes", GB_TRIALS_MAX_LINE);
            goto bad;
        }
        if (db->n >= GB_TRIALS_MAX_ROWS) {
            snprintf(why, sizeof why, "more than %d trials in all", GB_TRIALS_MAX_ROWS);
            goto bad;
        }
        memcpy(line, text + at, end - at);
        line[end - at] = '\0';
        if (memchr(text + at, '\0', end - at) != NULL) {
            snprintf(why, sizeof why, "a NUL byte");
            goto bad;
        }
        /* strict: one object, no key twice, no \u0000 cutting a string */
        o = gb_json_parse_strict(line, why, sizeof why);
        if (o == NULL)
            goto bad;
        rc = read_row(o, &r, why, sizeof why);
        cJSON_Delete(o);
        if (rc != 0)
            goto bad;
        if (push(db, &r) != 0) {
            free(r.text);
            snprintf(why, sizeof why, "out of memory");
            goto bad;
        }
        at = end + 1;
    }
    free(line);
    return 0;
bad:
    snprintf(err, errlen, "%s:%d: %s", shown, lineno, why);
    while (db->n > had)
        free(db->rows[--db->n].text);
    if (had == 0) {
        /* A refused first file keeps nothing, its row array either (the
         * fuzzer's leak: a caller that stops at the refusal frees none). */
        free(db->rows);
        db->rows = NULL;
        db->cap = 0;
    }
    free(line);
    return -1;
}

char *gb_learn_read_file(const char *path, long max, size_t *len, char *err, size_t errlen)
{
    char shown[256];
    struct stat st;
    char *text = NULL;
    ssize_t got = 0;
    int fd;

    gb_printable(path, 200, shown, sizeof shown);
    fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        snprintf(err, errlen, "%s: %s", shown, strerror(e));
        errno = e;
        return NULL;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file", shown);
        close(fd);
        errno = EINVAL;
        return NULL;
    }
    if (st.st_size > max) {
        snprintf(err, errlen, "%s: over %ld MiB", shown, max >> 20);
        close(fd);
        errno = EFBIG;
        return NULL;
    }
    text = malloc((size_t)st.st_size + 1);
    while (text != NULL && got < st.st_size) {
        ssize_t n = read(fd, text + got, (size_t)(st.st_size - got));
        if (n <= 0)
            break;
        got += n;
    }
    close(fd);
    if (text == NULL || got != st.st_size) {
        snprintf(err, errlen, "%s: cannot read it", shown);
        free(text);
        errno = EIO;
        return NULL;
    }
    text[got] = '\0';
    *len = (size_t)got;
    return text;
}

int gb_trialdb_load(const char *path, gb_trial_db *db, char *err, size_t errlen)
{
    size_t len;
    char *text = gb_learn_read_file(path, GB_TRIALS_MAX_BYTES, &len, err, errlen);
    int rc;

    if (text == NULL)
        return -1;
    rc = gb_trialdb_parse(path, text, len, db, err, errlen);
    free(text);
    return rc;
}

int gb_trialdb_check(const char *path, char *err, size_t errlen)
{
    gb_trial_db db = { 0 };
    char shown[256];
    int rc, fd;
    struct stat st;

    gb_printable(path, 200, shown, sizeof shown);
    if (path[0] == '\0') {
        snprintf(err, errlen, "needs a file name");
        return -1;
    }
    if (lstat(path, &st) != 0 && errno == ENOENT) {
        /* made by the first append: the folder must take it, said now
         * rather than after the search (a file of another name, so that
         * searches starting together never see each other's probe) */
        char probe[4200];
        if (snprintf(probe, sizeof probe, "%s.XXXXXX", path) >= (int)sizeof probe) {
            snprintf(err, errlen, "cannot create %s: %s", shown, strerror(ENAMETOOLONG));
            return -1;
        }
        fd = mkstemp(probe);
        if (fd < 0) {
            snprintf(err, errlen, "cannot create %s: %s", shown, strerror(errno));
            return -1;
        }
        close(fd);
        unlink(probe);
        return 0;
    }
    rc = gb_trialdb_load(path, &db, err, errlen);
    gb_trialdb_free(&db);
    if (rc != 0)
        return -1;
    fd = open(path, O_WRONLY | O_APPEND | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot write %s: %s", shown, strerror(errno));
        return -1;
    }
    close(fd);
    return 0;
}

/* The database open for appending (created when missing), locked
 * (flock, exclusive) and checked under the lock: a regular file, a
 * database whose last line is whole, room for add more bytes.  The
 * descriptor and its size in *size, or -1 with err. */
static int open_locked(const char *path, size_t add, off_t *size, char *err, size_t errlen)
{
    char shown[256];
    struct stat st;
    gb_trial_db db = { 0 };
    char *text = NULL;
    ssize_t got = 0;
    int fd, rc;

    gb_printable(path, 200, shown, sizeof shown);
    fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "cannot write %s: %s", shown, strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file", shown);
        close(fd);
        return -1;
    }
    if (flock(fd, LOCK_EX) != 0 || fstat(fd, &st) != 0) {
        snprintf(err, errlen, "cannot lock %s: %s", shown, strerror(errno));
        close(fd);
        return -1;
    }
    if ((size_t)st.st_size + add > (size_t)GB_TRIALS_MAX_BYTES) {
        snprintf(err, errlen, "%s: would grow over %ld MiB; start another database", shown,
                 GB_TRIALS_MAX_BYTES >> 20);
        close(fd);
        return -1;
    }
    /* what is there, read through the name under the lock (the descriptor
     * writes only) and strictly: lines are added to a database, never to
     * a file that is none or that another writer left cut short */
    if (st.st_size > 0) {
        int rfd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        struct stat rst;
        text = malloc((size_t)st.st_size + 1);
        if (rfd >= 0 && fstat(rfd, &rst) == 0 && rst.st_ino == st.st_ino &&
            rst.st_dev == st.st_dev)
            while (text != NULL && got < st.st_size) {
                ssize_t n = read(rfd, text + got, (size_t)(st.st_size - got));
                if (n < 0 && errno == EINTR)
                    continue;
                if (n <= 0)
                    break;
                got += n;
            }
        if (rfd >= 0)
            close(rfd);
        if (text == NULL || got != st.st_size) {
            snprintf(err, errlen, "%s: cannot read it", shown);
            free(text);
            close(fd);
            return -1;
        }
        text[got] = '\0';
        rc = gb_trialdb_parse(path, text, (size_t)got, &db, err, errlen);
        gb_trialdb_free(&db);
        free(text);
        if (rc != 0) {
            close(fd);
            return -1;
        }
    }
    *size = st.st_size;
    return fd;
}

int gb_trialdb_append(const char *path, const gb_trial_row *rows, int n, char *err,
                      size_t errlen)
{
    char *all = NULL, shown[256];
    size_t len = 0, done = 0;
    off_t size;
    int fd, rc = -1;

    if (n == 0)
        return 0;
    gb_printable(path, 200, shown, sizeof shown);
    for (int i = 0; i < n; i++) {
        char *line = gb_trialdb_line(&rows[i]);
        size_t l = line ? strlen(line) : 0;
        char *grown = line ? realloc(all, len + l + 1) : NULL;
        if (grown == NULL) {
            free(line);
            free(all);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        all = grown;
        memcpy(all + len, line, l);
        len += l;
        free(line);
    }
    /* Appended in place under an exclusive lock, never rewritten: several
     * searches appending to one database at once keep every line (a read,
     * append and rename lost the others' lines in between). */
    if ((fd = open_locked(path, len, &size, err, errlen)) < 0) {
        free(all);
        return -1;
    }
    while (done < len) {
        ssize_t w = write(fd, all + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    if (done < len || fsync(fd) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", shown, strerror(errno ? errno : EIO));
        /* no line cut short: the file as it was */
        if (ftruncate(fd, size) != 0)
            snprintf(err, errlen, "cannot write %s, and its last line is cut short: %s", shown,
                     strerror(errno));
    } else {
        rc = 0;
    }
    close(fd); /* and the lock with it */
    free(all);
    return rc;
}

void gb_trialdb_free(gb_trial_db *db)
{
    for (int i = 0; i < db->n; i++)
        free(db->rows[i].text);
    free(db->rows);
    memset(db, 0, sizeof *db);
}
