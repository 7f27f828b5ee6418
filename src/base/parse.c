/* parse.c - strict number and list parsing for the CLI and bench.conf. */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include "parse.h"
#include "sweep.h"

#include <ctype.h>
#include <stdio.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int gb_parse_long(const char *text, long min, long max, long *out)
{
    char *end;
    long v;

    if (text == NULL || *text == '\0' || isspace((unsigned char)*text))
        return -1;
    errno = 0;
    v = strtol(text, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int gb_parse_double(const char *text, double min, double max, double *out)
{
    char *end;
    double v;

    if (text == NULL || *text == '\0' || isspace((unsigned char)*text))
        return -1;
    errno = 0;
    v = strtod(text, &end);
    if (errno != 0 || *end != '\0' || !isfinite(v) || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int gb_parse_shape(const char *text, int *M, int *K, int *N)
{
    char buf[96], *parts[3], *save = NULL, *tok;
    long dims[3];
    int n = 0;

    if (text == NULL || strlen(text) >= sizeof buf)
        return -1;
    strcpy(buf, text);
    /* strtok_r would accept "4xx4x4"; require exactly two separators. */
    for (const char *c = text; *c; c++)
        if (*c == 'x' || *c == 'X')
            n++;
    if (n != 2)
        return -1;
    n = 0;
    for (tok = strtok_r(buf, "xX", &save); tok; tok = strtok_r(NULL, "xX", &save)) {
        if (n == 3)
            return -1;
        parts[n++] = tok;
    }
    if (n != 3)
        return -1;
    for (int i = 0; i < 3; i++)
        if (gb_parse_long(parts[i], 1, GB_MAX_DIM, &dims[i]) != 0)
            return -1;
    *M = (int)dims[0];
    *K = (int)dims[1];
    *N = (int)dims[2];
    return 0;
}

/* One item starting at p: up to the next comma or blank outside [...] (a
 * comma inside brackets is part of the item: the label of a --param set,
 * rule_based[tm=4,tn=8], is one item). */
static size_t item_length(const char *p)
{
    size_t len = 0;

    for (int depth = 0; p[len]; len++) {
        if (p[len] == '[')
            depth++;
        else if (p[len] == ']' && depth > 0)
            depth--;
        else if (depth == 0 && (p[len] == ',' || isspace((unsigned char)p[len])))
            break;
    }
    return len;
}

/* Items are separated by one comma or by blanks ("16,32", "16, 32", "16 32");
 * a comma with no item before it, or after it, is an empty item: refused,
 * since "16,,32" or "16," is a typo more often than a list. */
int gb_split_list(const char *text, int (*fn)(const char *item, void *arg), void *arg)
{
    char item[256];
    const char *p = text;
    int need_item = 1; /* at the start, or just after a comma */

    if (text == NULL)
        return GB_SPLIT_EMPTY;
    for (;;) {
        size_t len;
        while (isspace((unsigned char)*p))
            p++;
        if (*p == '\0')
            return need_item ? GB_SPLIT_EMPTY : 0;
        if (*p == ',') {
            if (need_item)
                return GB_SPLIT_EMPTY;
            need_item = 1;
            p++;
            continue;
        }
        len = item_length(p);
        if (len >= sizeof item)
            return GB_SPLIT_LONG;
        memcpy(item, p, len);
        item[len] = '\0';
        p += len;
        need_item = 0;
        int rc = fn(item, arg);
        if (rc != 0)
            return rc;
    }
}

const char *gb_split_why(int rc)
{
    return rc == GB_SPLIT_EMPTY  ? "has an empty element"
           : rc == GB_SPLIT_LONG ? "has an element longer than 255 characters"
                                 : NULL;
}

void gb_printable(const char *text, size_t max, char *out, size_t outlen)
{
    size_t used = 0, shown = 0;

    if (outlen == 0)
        return;
    for (const unsigned char *c = (const unsigned char *)text; *c; c++, shown++) {
        char piece[8];
        if (shown == max) {
            snprintf(piece, sizeof piece, "...");
        } else if (*c < 0x20 || *c >= 0x7f || *c == '\\') {
            snprintf(piece, sizeof piece, "\\x%02x", *c);
        } else {
            piece[0] = (char)*c;
            piece[1] = '\0';
        }
        if (used + strlen(piece) >= outlen)
            break;
        strcpy(out + used, piece);
        used += strlen(piece);
        if (shown == max)
            break;
    }
    out[used] = '\0';
}

char *gb_trim(char *s)
{
    char *end;

    while (isspace((unsigned char)*s))
        s++;
    end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        *--end = '\0';
    return s;
}

/* One element of a thread list: N, A-B, or all. */
static int thread_element(const char *item, int *list, int *n, int max, int *all)
{
    const char *dash = strchr(item, '-');
    char lo[32];
    long a, b;

    if (strcmp(item, "all") == 0) {
        *all = 1;
        return 0;
    }
    if (dash == NULL) {
        if (gb_parse_long(item, 1, GB_MAX_THREAD_COUNT, &a) != 0)
            return -1;
        b = a;
    } else {
        /* "-1" leaves an empty low end, "3-1" a descending range: both refused. */
        if (dash == item || (size_t)(dash - item) >= sizeof lo)
            return -1;
        memcpy(lo, item, (size_t)(dash - item));
        lo[dash - item] = '\0';
        if (gb_parse_long(lo, 1, GB_MAX_THREAD_COUNT, &a) != 0 ||
            gb_parse_long(dash + 1, 1, GB_MAX_THREAD_COUNT, &b) != 0 || b < a)
            return -1;
    }
    for (long t = a; t <= b; t++) {
        int seen = 0;
        for (int i = 0; i < *n; i++)
            seen |= list[i] == t;
        if (seen)
            continue;
        if (*n >= max)
            return -2;
        list[(*n)++] = (int)t;
    }
    return 0;
}

static int ascending(const void *a, const void *b)
{
    return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

int gb_parse_thread_list(const char *text, int *list, int *n, int max, int *all)
{
    char buf[256];
    const char *p = text;
    int count = 0, any_all = 0;

    if (text == NULL)
        return -1;
    /* Split on commas only, so that an empty element ("1,,2", "1,", ",1")
     * is seen and refused rather than skipped. */
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char *item;
        int rc;
        if (len >= sizeof buf)
            return -1;
        memcpy(buf, p, len);
        buf[len] = '\0';
        item = gb_trim(buf);
        if (*item == '\0')
            return -1;
        rc = thread_element(item, list, &count, max, &any_all);
        if (rc != 0)
            return rc;
        if (comma == NULL)
            break;
        p = comma + 1;
    }
    qsort(list, (size_t)count, sizeof *list, ascending);
    *n = count;
    *all = any_all;
    return 0;
}

/* Why a thread list was refused: its first element that is wrong, and how. */
void gb_thread_list_why(const char *text, char *why, size_t len)
{
    char buf[256], shown[256], *save = NULL;
    size_t n = strlen(text);

    snprintf(why, len, "not a thread list");
    if (n == 0 || text[0] == ',' || text[n - 1] == ',' || strstr(text, ",,") != NULL) {
        snprintf(why, len, "an empty element");
        return;
    }
    snprintf(buf, sizeof buf, "%s", text);
    for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *t = gb_trim(item), *dash = strchr(t, '-');
        long a, b;
        if (*t == '\0') {
            snprintf(why, len, "an empty element");
            return;
        }
        if (strcmp(t, "all") == 0)
            continue;
        if (strcmp(t, "0") == 0) {
            snprintf(why, len, "0 threads (all means every CPU)");
            return;
        }
        if (t[0] == '-') {
            snprintf(why, len, "a negative count '%s'", t);
            return;
        }
        if (dash) {
            int ok;
            *dash = '\0';
            ok = gb_parse_long(t, 1, GB_MAX_THREAD_COUNT, &a) == 0 &&
                 gb_parse_long(dash + 1, 1, GB_MAX_THREAD_COUNT, &b) == 0;
            *dash = '-';
            if (ok && b < a) {
                gb_printable(t, 60, shown, sizeof shown);
                snprintf(why, len, "a descending range '%s'", shown);
                return;
            }
            if (ok)
                continue;
        } else if (gb_parse_long(t, 1, GB_MAX_THREAD_COUNT, &a) == 0) {
            continue;
        }
        gb_printable(t, 60, shown, sizeof shown);
        snprintf(why, len, "'%s' is not a count in [1, %d]", shown, GB_MAX_THREAD_COUNT);
        return;
    }
}

void gb_list_error(char *err, size_t errlen, const char *what, const char *text,
                   const char *why)
{
    char shown[96];

    gb_printable(text, 60, shown, sizeof shown);
    snprintf(err, errlen, "%s '%s' %s", what, shown, why);
}
