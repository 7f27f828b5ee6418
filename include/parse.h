/* parse.h - strict number parsing: the whole string, errno, range. */
#ifndef GB_PARSE_H
#define GB_PARSE_H

/* 0 when text is a decimal integer in [min, max] and nothing else. */
int gb_parse_long(const char *text, long min, long max, long *out);
/* 0 when text is a finite number in [min, max] and nothing else. */
int gb_parse_double(const char *text, double min, double max, double *out);
/* Parses "MxKxN" with each dimension in [1, GB_MAX_DIM]. */
int gb_parse_shape(const char *text, int *M, int *K, int *N);
/* Splits a list on commas and blanks outside brackets (so a label such as
 * rule_based[tm=4,tn=8] is one item), calling fn for each item; stops at the
 * first non-zero return and passes it on. */
int gb_split_list(const char *text, int (*fn)(const char *item, void *arg), void *arg);
/* Trims leading and trailing blanks in place; returns s. */
char *gb_trim(char *s);

#endif
