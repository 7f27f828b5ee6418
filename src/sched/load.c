/* load.c - the front of the language: a schedule's text (or file) to a
 * checked nest, parse.c then check.c, in the one place every reader of a
 * schedule goes through (--schedule, a search space's points, the records
 * of tuned_sched).  The stages stay apart: parse.c knows nothing of
 * check.c, and this file is the only one that calls both. */
#define _POSIX_C_SOURCE 200809L /* ssize_t, read */
#include "sched_lang.h"
#include "inputfile.h"
#include "parse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int gb_sched_from_text(const char *file, const char *text, size_t len, gb_sched *out,
                       char *err, size_t errlen)
{
    gb_sched_text *stmts = malloc(sizeof *stmts); /* tens of KiB: off the stack */
    int rc;

    if (stmts == NULL) {
        snprintf(err, errlen, "%s:1: out of memory", file);
        return -1;
    }
    rc = gb_sched_parse(file, text, len, stmts, err, errlen);
    if (rc == 0)
        rc = gb_sched_check(stmts, out, err, errlen);
    free(stmts);
    return rc;
}

char *gb_sched_read(const char *path, size_t *len_out, char *err, size_t errlen)
{
    char *buf = malloc(GB_SCHED_MAX_FILE + 2);
    size_t len = 0;
    ssize_t got = 1;
    char shown[256]; /* path as messages show it */
    int fd;

    gb_printable(path, 200, shown, sizeof shown);
    if (buf == NULL) {
        snprintf(err, errlen, "%s:1: out of memory", shown);
        return NULL;
    }
    fd = gb_open_regular(path);
    if (fd < 0) {
        snprintf(err, errlen, "%s:1: %s", shown,
                 errno == EINVAL ? "not a regular file" : strerror(errno));
        free(buf);
        return NULL;
    }
    while (len <= GB_SCHED_MAX_FILE && got > 0) {
        got = read(fd, buf + len, GB_SCHED_MAX_FILE + 1 - len);
        if (got < 0 && errno == EINTR)
            got = 1;
        else if (got > 0)
            len += (size_t)got;
    }
    close(fd);
    if (got < 0) {
        snprintf(err, errlen, "%s:1: %s", shown, strerror(errno));
        free(buf);
        return NULL;
    }
    buf[len] = '\0';
    *len_out = len;
    return buf;
}

int gb_sched_load(const char *path, gb_sched *out, char **text_out, char *err, size_t errlen)
{
    size_t len;
    char *buf = gb_sched_read(path, &len, err, errlen);
    int rc;

    if (buf == NULL)
        return -1;
    rc = gb_sched_from_text(path, buf, len, out, err, errlen);
    if (rc == 0 && text_out) { /* a text the parser took holds no NUL */
        *text_out = buf;
        return 0;
    }
    free(buf);
    return rc;
}
