/* text.c - UTF-8 without control characters: the one predicate of what
 * gemmbench prints of text from outside; see text.h. */
#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int gb_utf8_length(const unsigned char *c)
{
    int n = 0;

    if (c[0] < 0x80)
        return 1;
    if (c[0] >= 0xc2 && c[0] <= 0xdf)
        n = 2;
    else if (c[0] >= 0xe0 && c[0] <= 0xef)
        n = 3;
    else if (c[0] >= 0xf0 && c[0] <= 0xf4)
        n = 4;
    for (int i = 1; i < n; i++)
        if ((c[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

int gb_text_control(const unsigned char *c, int n)
{
    return n == 0 || (n == 1 && (c[0] < 0x20 || c[0] == 0x7f)) ||
           (n == 2 && c[0] == 0xc2 && c[1] < 0xa0);
}

int gb_text_printable(const char *text, size_t max)
{
    const unsigned char *c = (const unsigned char *)text;
    size_t len = strlen(text);

    if (len == 0 || len > max)
        return 0;
    while (*c) {
        int n = gb_utf8_length(c);
        if (gb_text_control(c, n))
            return 0;
        c += n;
    }
    return 1;
}

void gb_text_blank(char *text)
{
    unsigned char *in = (unsigned char *)text, *out = in;

    while (*in) {
        int n = gb_utf8_length(in);
        if (gb_text_control(in, n)) {
            *out++ = '?';
            in += n ? n : 1;
        } else {
            memmove(out, in, (size_t)n);
            out += n;
            in += n;
        }
    }
    *out = '\0';
}

void gb_text_say(const char *fmt, ...)
{
    char line[4096];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    gb_text_blank(line);
    fprintf(stderr, "gemmbench: %s\n", line);
}
