/* inputfile.c - regular files only, strict JSON; see inputfile.h. */
#define _POSIX_C_SOURCE 200809L /* O_CLOEXEC, fstat */
#include "inputfile.h"
#include "parse.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int open_regular(const char *path, int flags)
{
    struct stat st;
    /* O_NONBLOCK: opening a FIFO with no writer would otherwise wait for
     * one; the mode is checked before anything is read. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | flags);

    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0) {
        const int why = errno;
        close(fd);
        errno = why;
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        return -1;
    }
    /* Back to blocking reads: a regular file never waits anyway. */
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

int gb_open_regular(const char *path)
{
    return open_regular(path, 0);
}

static char *read_regular(const char *path, long max, int flags, char *err, size_t errlen)
{
    int fd = open_regular(path, flags);
    struct stat st;
    char *text, shown[4200];
    size_t got = 0;

    /* The path as every message shows user text: a file name cannot send
     * escapes to the terminal. */
    gb_printable(path, sizeof shown, shown, sizeof shown);

    if (fd < 0) {
        int saved = errno;
        snprintf(err, errlen, "%s: %s", shown,
                 errno == EINVAL   ? "not a regular file (a FIFO, device or socket)"
                 : errno == EISDIR ? "is a directory, not a file"
                 : errno == ELOOP && (flags & O_NOFOLLOW) ? "a symbolic link, not followed"
                                   : strerror(errno));
        errno = saved;
        return NULL;
    }
    if (fstat(fd, &st) != 0 || st.st_size > max) {
        snprintf(err, errlen, "%s: larger than %ld bytes", shown, max);
        close(fd);
        errno = EFBIG;
        return NULL;
    }
    text = malloc((size_t)st.st_size + 1);
    if (text == NULL) {
        snprintf(err, errlen, "%s: out of memory", shown);
        close(fd);
        errno = ENOMEM;
        return NULL;
    }
    while (got < (size_t)st.st_size) {
        ssize_t n = read(fd, text + got, (size_t)st.st_size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    if (got != (size_t)st.st_size) {
        snprintf(err, errlen, "%s: cannot read: %s", shown,
                 errno ? strerror(errno) : "it shrank while being read");
        free(text);
        errno = EIO;
        return NULL;
    }
    text[got] = '\0';
    /* gzip's magic: results/notes keeps result files compressed. */
    if (got >= 2 && (unsigned char)text[0] == 0x1f && (unsigned char)text[1] == 0x8b) {
        snprintf(err, errlen, "%s: gzip-compressed; decompress it first (gunzip -k FILE)",
                 shown);
        free(text);
        errno = EILSEQ;
        return NULL;
    }
    if (strlen(text) != got) {
        snprintf(err, errlen, "%s: binary data (a NUL byte at offset %zu)", shown,
                 strlen(text));
        free(text);
        errno = EILSEQ;
        return NULL;
    }
    return text;
}

char *gb_read_regular(const char *path, long max, char *err, size_t errlen)
{
    return read_regular(path, max, 0, err, errlen);
}

char *gb_read_regular_nolink(const char *path, long max, char *err, size_t errlen)
{
    return read_regular(path, max, O_NOFOLLOW, err, errlen);
}

static int by_name(const void *a, const void *b)
{
    return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

/* 0 when no two members of obj share a key: sorted names, neighbours compared
 * (an object of a million keys stays fast). */
static int unique_keys(const cJSON *obj, char *why, size_t whylen)
{
    const cJSON **members;
    int n = cJSON_GetArraySize(obj), rc = 0, i = 0;

    if (n < 2)
        return 0;
    members = malloc((size_t)n * sizeof *members);
    if (members == NULL) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    for (const cJSON *c = obj->child; c; c = c->next)
        members[i++] = c;
    qsort(members, (size_t)n, sizeof *members, by_name);
    for (i = 1; i < n && rc == 0; i++)
        if (strcmp(members[i - 1]->string, members[i]->string) == 0) {
            /* The key is the file's text: escaped, as a message shows it. */
            char shown[256];
            gb_printable(members[i]->string, 60, shown, sizeof shown);
            snprintf(why, whylen, "key \"%s\" appears twice in one object", shown);
            rc = -1;
        }
    free(members);
    return rc;
}

/* The first problem cJSON does not check, depth first (cJSON's nesting limit
 * bounds the recursion); 0 when none. */
static int check_tree(const cJSON *node, char *why, size_t whylen)
{
    if (cJSON_IsNumber(node) && !isfinite(node->valuedouble)) {
        snprintf(why, whylen, "a number too large for a double");
        return -1;
    }
    if (cJSON_IsObject(node) && unique_keys(node, why, whylen) != 0)
        return -1;
    for (const cJSON *c = node->child; c; c = c->next)
        if (check_tree(c, why, whylen) != 0)
            return -1;
    return 0;
}

long gb_json_escaped_nul(const char *text, size_t len)
{
    int in_string = 0;

    for (size_t i = 0; i < len && text[i] != '\0'; i++) {
        if (text[i] == '"')
            in_string = !in_string;
        else if (in_string && text[i] == '\\') {
            if (i + 5 < len && text[i + 1] == 'u' && strncmp(text + i + 2, "0000", 4) == 0)
                return (long)i;
            if (i + 1 < len && text[i + 1] != '\0')
                i++;
        }
    }
    return -1;
}

cJSON *gb_json_parse_strict(const char *text, char *why, size_t whylen)
{
    const char *end = NULL;
    cJSON *doc = cJSON_ParseWithOpts(text, &end, 1);

    if (doc == NULL) {
        /* cJSON reports where it stopped: a second document or garbage
         * after a valid one stops it there too. */
        cJSON *first = cJSON_ParseWithOpts(text, NULL, 0);
        long at = end && end >= text ? (long)(end - text) : -1;
        if (first)
            snprintf(why, whylen, "more after the JSON document (byte %ld)", at);
        else
            snprintf(why, whylen, "not valid JSON (truncated or malformed near byte %ld)", at);
        cJSON_Delete(first);
        return NULL;
    }
    if (check_tree(doc, why, whylen) != 0) {
        cJSON_Delete(doc);
        return NULL;
    }
    if (gb_json_escaped_nul(text, strlen(text)) >= 0) {
        snprintf(why, whylen, "a string holds \\u0000 (byte %ld): a NUL would cut it short",
                 gb_json_escaped_nul(text, strlen(text)));
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}
