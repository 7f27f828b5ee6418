/* history_layout.c - the history store's folders and what guards them: the
 * store's own folder made, folders inside it made without following a
 * planted link, labels as path components, dates, and the marker, the lock
 * and the index read without following links (history_parts.h;
 * src/analysis/history.md). */
#define _GNU_SOURCE
#include "history_parts.h"
#include "inputfile.h"
#include "output.h"
#include "parse.h"
#include "text.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- small helpers ------------------------------------------------------------- */

/* mkdir -p of the store's own folder (the user's path: a link there is
 * the user's choice). */
static int make_dirs(const char *path, char *err, size_t errlen)
{
    char buf[4200];
    size_t len = strlen(path);

    if (len >= sizeof buf) {
        snprintf(err, errlen, "path too long: %s", path);
        return -1;
    }
    memcpy(buf, path, len + 1);
    for (size_t i = 1; i <= len; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char saved = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "cannot create %s: %s", buf, strerror(errno));
            return -1;
        }
        buf[i] = saved;
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: not a directory", path);
        return -1;
    }
    return 0;
}

/* mkdir -p of rel inside the store dir, each folder a real one: a store
 * is committed by whoever can push, and a planted link (runs/MACHINE ->
 * elsewhere) would send a write out of it. */
int hs_make_dirs_inside(const char *dir, const char *rel, char *err, size_t errlen)
{
    char buf[4200];
    int n = snprintf(buf, sizeof buf, "%s/%s", dir, rel);
    size_t start = strlen(dir) + 1;

    if (n < 0 || (size_t)n >= sizeof buf) {
        snprintf(err, errlen, "path too long: %s/%s", dir, rel);
        return -1;
    }
    for (size_t i = start; i <= (size_t)n; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char saved = buf[i];
        struct stat st;
        buf[i] = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "cannot create %s: %s", buf, strerror(errno));
            return -1;
        }
        if (lstat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "%s: not a directory (a store's folders are never links)", buf);
            return -1;
        }
        buf[i] = saved;
    }
    return 0;
}

/* A label as a path component: letters, digits, '.', '-', '_' kept, the
 * rest '_'; never empty, never "." or "..". */
void hs_path_safe(const char *label, char *out, size_t len)
{
    size_t n = 0;

    for (; *label && n + 1 < len && n < 64; label++)
        out[n++] = (isalnum((unsigned char)*label) || *label == '-' || *label == '_' ||
                    *label == '.')
                       ? *label
                       : '_';
    out[n] = '\0';
    if (n == 0 || strspn(out, ".") == n)
        snprintf(out, len, "_");
}

/* Text the store keeps and prints (the table goes to a terminal): 1 to max
 * bytes of UTF-8, no control character (text.h). */
int gb_history_text_ok(const char *text, size_t max)
{
    return gb_text_printable(text, max);
}

/* A label the store keys files by (a machine, a commit). */
int hs_label_ok(const char *label)
{
    return gb_history_text_ok(label, GB_HISTORY_LABEL_MAX);
}


static int digits(const char *s, int n, int *out)
{
    int v = 0;

    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

int gb_history_date(const char *text, char out[24])
{
    struct tm tm;
    int y, mo, d, h = 0, mi = 0, s = 0, offset = 0;
    const char *p = text;
    time_t t;

    memset(&tm, 0, sizeof tm);
    if (strlen(text) < 10 || digits(p, 4, &y) || p[4] != '-' || digits(p + 5, 2, &mo) ||
        p[7] != '-' || digits(p + 8, 2, &d))
        return -1;
    p += 10;
    if (*p == 'T' || *p == ' ') {
        if (digits(p + 1, 2, &h) || p[3] != ':' || digits(p + 4, 2, &mi))
            return -1;
        p += 6;
        if (*p == ':') {
            if (digits(p + 1, 2, &s))
                return -1;
            p += 3;
            if (*p == '.' || *p == ',') {
                p++;
                if (!isdigit((unsigned char)*p))
                    return -1;
                while (isdigit((unsigned char)*p))
                    p++;
            }
        }
        if (*p == 'Z') {
            p++;
        } else if (*p == '+' || *p == '-') {
            int oh, om, sign = *p == '-' ? -1 : 1;
            if (digits(p + 1, 2, &oh) || p[3] != ':' || digits(p + 4, 2, &om) || oh > 23 ||
                om > 59)
                return -1;
            offset = sign * (oh * 3600 + om * 60);
            p += 6;
        }
    }
    if (*p != '\0' || y < 1970 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > 31 ||
        h > 23 || mi > 59 || s > 60)
        return -1;
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = s;
    t = timegm(&tm);
    /* timegm normalizes 31 February into March: a date that moved was wrong. */
    struct tm back;
    if (t == (time_t)-1 || gmtime_r(&t, &back) == NULL || back.tm_mday != d ||
        back.tm_mon != mo - 1)
        return -1;
    t -= offset;
    /* The offset may carry the date out of what the reader takes. */
    if (gmtime_r(&t, &back) == NULL || back.tm_year + 1900 < 1970 || back.tm_year + 1900 > 9999 ||
        strftime(out, 24, "%Y-%m-%dT%H:%M:%SZ", &back) == 0)
        return -1;
    return 0;
}

long long gb_history_seconds(const char *text)
{
    char utc[24];
    struct tm tm;

    if (gb_history_date(text, utc) != 0)
        return -1;
    memset(&tm, 0, sizeof tm);
    if (sscanf(utc, "%4d-%2d-%2dT%2d:%2d:%2dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
               &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return (long long)timegm(&tm);
}

/* The store's marker and lock: created in a new store, checked in an old
 * one.  Returns the lock's descriptor, or -1 with err. */
int hs_open_store(const char *dir, int create, char *err, size_t errlen)
{
    char path[4200], *text;
    int fd;

    snprintf(path, sizeof path, "%s/%s", dir, MARKER_NAME);
    if (access(path, F_OK) != 0) {
        if (!create) {
            snprintf(err, errlen, "%s: not a history store (no %s; make one with gemmbench "
                                  "history add)", dir, MARKER_NAME);
            return -1;
        }
        static const char marker[] = "{\n  \"schema\": \"" GB_HISTORY_SCHEMA "\"\n}\n";
        if (make_dirs(dir, err, errlen) != 0 ||
            gb_write_file_atomic(path, marker, sizeof marker - 1, err, errlen) != 0)
            return -1;
    }
    text = gb_read_regular_nolink(path, 1 << 20, err, errlen);
    if (text == NULL)
        return -1;
    char why[256];
    cJSON *doc = gb_json_parse_strict(text, why, sizeof why);
    const char *schema = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "schema"));
    int ok = schema != NULL && strcmp(schema, GB_HISTORY_SCHEMA) == 0;
    cJSON_Delete(doc);
    free(text);
    if (!ok) {
        snprintf(err, errlen, "%s/%s: not a %s store marker", dir, MARKER_NAME,
                 GB_HISTORY_SCHEMA);
        return -1;
    }
    snprintf(path, sizeof path, "%s/%s", dir, LOCK_NAME);
    if (!create) {
        /* A reader takes a shared lock when it can and creates nothing: a
         * store another user owns, or on a read-only mount, is still read
         * (its index is renamed whole, never written in place). */
        fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0)
            return errno == ELOOP ? (snprintf(err, errlen, "%s: a symbolic link, not followed",
                                              path), -1)
                                  : NO_LOCK;
        if (flock(fd, LOCK_SH) != 0) {
            close(fd);
            return NO_LOCK;
        }
        return fd;
    }
    fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644);
    if (fd < 0 || flock(fd, LOCK_EX) != 0) {
        snprintf(err, errlen, "cannot lock %s: %s", path,
                 errno == ELOOP ? "a symbolic link, not followed" : strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

/* The index's text ("" in a new store); NULL with err. */
char *hs_read_index(const char *dir, size_t *len, char *err, size_t errlen)
{
    char path[4200];
    char *text;

    snprintf(path, sizeof path, "%s/%s", dir, INDEX_NAME);
    struct stat st;
    if (lstat(path, &st) != 0 && errno == ENOENT) {
        *len = 0;
        return calloc(1, 1);
    }
    text = gb_read_regular_nolink(path, INDEX_MAX, err, errlen);
    if (text)
        *len = strlen(text);
    return text;
}
