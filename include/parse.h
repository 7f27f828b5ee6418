/* parse.h - strict number parsing: the whole string, errno, range. */
#ifndef GB_PARSE_H
#define GB_PARSE_H

#include <stddef.h>

/* 0 when text is a decimal integer in [min, max] and nothing else. */
int gb_parse_long(const char *text, long min, long max, long *out);
/* 0 when text is a finite number in [min, max] and nothing else. */
int gb_parse_double(const char *text, double min, double max, double *out);
/* Parses "MxKxN" with each dimension in [1, GB_MAX_DIM]. */
int gb_parse_shape(const char *text, int *M, int *K, int *N);
/* Splits a list on commas and blanks outside brackets (so a label such as
 * rule_based[tm=4,tn=8] is one item), calling fn for each item; stops at the
 * first non-zero return and passes it on.  An empty element (",,", a leading
 * or trailing comma, an empty or blank text) is GB_SPLIT_EMPTY, an item of
 * 256 characters or more GB_SPLIT_LONG; fn must not return either.  Every
 * list of the command line and bench.conf goes through here. */
#define GB_SPLIT_EMPTY (-30)
#define GB_SPLIT_LONG (-31)
int gb_split_list(const char *text, int (*fn)(const char *item, void *arg), void *arg);
/* Largest thread count --threads and bench.conf accept. */
#define GB_MAX_THREAD_COUNT 4096
/* Parses a thread list: comma-separated counts in [1, GB_MAX_THREAD_COUNT],
 * ranges A-B (A <= B) and `all` (every CPU the process may use, resolved by
 * the caller: *all is set, nothing is added).  Empty elements, 0, negative
 * and descending ranges are refused.  The counts come back ascending and
 * without duplicates.  0; -1 malformed; -2 more than max distinct counts. */
int gb_parse_thread_list(const char *text, int *list, int *n, int max, int *all);
/* Why text is not a thread list, its first wrong element and how ("an
 * empty element", "a descending range '3-1'"), for an error message. */
void gb_thread_list_why(const char *text, char *why, size_t len);
/* What GB_SPLIT_EMPTY or GB_SPLIT_LONG means ("has an empty element"), for
 * "LIST 'text' has ..."; NULL for any other code. */
const char *gb_split_why(int rc);
/* Copies text for an error message: bytes outside printable ASCII (and the
 * backslash) as \xNN, and at most max characters of text, then "...", so
 * that a message about binary or very long input stays one readable line. */
void gb_printable(const char *text, size_t max, char *out, size_t outlen);
/* "WHAT 'text' why" into err, text cut and escaped (gb_printable) so that
 * the reason is never lost behind a long or binary list. */
void gb_list_error(char *err, size_t errlen, const char *what, const char *text,
                   const char *why);
/* Trims leading and trailing blanks in place; returns s. */
char *gb_trim(char *s);

#endif
