/*
 * inputfile.h - opening the files gemmbench reads (bench.conf, result files,
 * tuning records) without trusting what the path names: only a regular file
 * is read, so a FIFO or a device never blocks or streams forever, and JSON is
 * parsed strictly (one document, no duplicate keys, no number that overflows).
 */
#ifndef GB_INPUTFILE_H
#define GB_INPUTFILE_H

#include <cjson/cJSON.h>
#include <stddef.h>

/* Opens path for reading when it is a regular file: the descriptor, or -1
 * with errno set (ENOENT when it does not exist, EISDIR for a directory,
 * EINVAL for a FIFO, device or socket). */
int gb_open_regular(const char *path);

/* Reads a regular file of at most max bytes and NUL-terminates it; the text
 * (free() it), or NULL with err ("PATH: problem") and errno: as above when
 * it cannot be opened, EFBIG when larger than max, EILSEQ when it holds a
 * NUL byte (no text format of gemmbench has one), else EIO or ENOMEM. */
char *gb_read_regular(const char *path, long max, char *err, size_t errlen);
/* The same, refusing a symbolic link as the last component (ELOOP: "a
 * symbolic link, not followed"): for files inside a folder that others
 * write, such as a history store, where a planted link would read a
 * private file into it. */
char *gb_read_regular_nolink(const char *path, long max, char *err, size_t errlen);

/* Parses text as exactly one JSON document and checks what cJSON lets
 * through: anything but blanks after the document (a second document,
 * garbage), an object with the same key twice (other JSON readers keep the
 * last, cJSON's lookups the first), a number too large for a double (cJSON
 * reads 1e999 as inf), a string holding \u0000 (cJSON's strings end at a
 * NUL: the rest would be cut off unseen).  The tree, or NULL with why
 * ("problem"). */
cJSON *gb_json_parse_strict(const char *text, char *why, size_t whylen);
/* The byte offset of the first \u0000 inside a string of the JSON text
 * (len bytes, or up to a NUL), or -1: the escapes read as JSON reads them (a
 * backslash escapes the next character).  The one rule of every reader,
 * gb_json_parse_strict's and the line readers' (history index, trials). */
long gb_json_escaped_nul(const char *text, size_t len);

#endif
