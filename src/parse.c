/* parse.c - strict number and list parsing for the CLI and bench.conf. */
#include "parse.h"
#include "options.h"

#include <ctype.h>
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

int gb_split_list(const char *text, int (*fn)(const char *item, void *arg), void *arg)
{
    char item[256];
    const char *p = text;

    while (*p) {
        size_t len = 0;
        while (*p == ',' || isspace((unsigned char)*p))
            p++;
        if (*p == '\0')
            break;
        /* A comma inside [...] is part of the item: the label of a
         * --param set, rule_based[tm=4,tn=8], is one item. */
        for (int depth = 0; p[len]; len++) {
            if (p[len] == '[')
                depth++;
            else if (p[len] == ']' && depth > 0)
                depth--;
            else if (depth == 0 && (p[len] == ',' || isspace((unsigned char)p[len])))
                break;
        }
        if (len >= sizeof item)
            return -1;
        memcpy(item, p, len);
        item[len] = '\0';
        p += len;
        int rc = fn(item, arg);
        if (rc != 0)
            return rc;
    }
    return 0;
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
