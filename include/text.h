/*
 * text.h - what may be printed of text that came from outside (a result
 * file's label, a store's commit, an argument): UTF-8 without control
 * characters.  One predicate for every reader and writer: a C0 control or
 * DEL would move a terminal's cursor or break a table's line, a C1 control
 * (U+0080 to U+009F; U+009B alone starts an escape sequence) likewise, and
 * a byte that is not UTF-8 may be read as C1 by a terminal and makes a JSON
 * document invalid.
 */
#ifndef GB_TEXT_H
#define GB_TEXT_H

#include <stddef.h>

/* The length (1 to 4) of the UTF-8 sequence at c, or 0 when c does not
 * start one (a NUL ends the string before a missing continuation byte). */
int gb_utf8_length(const unsigned char *c);

/* 1 when the n bytes at c (n from gb_utf8_length) are what is never
 * printed: not UTF-8 (n 0), a C0 control, DEL, or a C1 control. */
int gb_text_control(const unsigned char *c, int n);

/* 1 when text is 1 to max bytes of UTF-8 with no control character (C0,
 * DEL, C1). */
int gb_text_printable(const char *text, size_t max);

/* Replaces, in place, every control character and every byte that is not
 * UTF-8 by '?'. */
void gb_text_blank(char *text);

/* Writes "gemmbench: " and the formatted line (no newline in fmt) to
 * stderr, every control character and byte that is not UTF-8 in it as '?'
 * (gb_text_blank), as the commands' errors are: the one rule of a line the
 * library prints itself (a warning about a cache file).  Paths in it are
 * best shown with gb_printable first. */
void gb_text_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
