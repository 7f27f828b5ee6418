/*
 * fuzz_util.h - what the libFuzzer harnesses share: the input as a
 * NUL-terminated string, or as a regular file (the readers under test take a
 * path and refuse anything but a regular file).
 */
#ifndef GB_FUZZ_UTIL_H
#define GB_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* data as a C string (free() it); bytes after a NUL are cut, as a C caller
 * (argv, a line read with fgets) would cut them. */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (s == NULL)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

static char fuzz_path[64];

static inline void fuzz_remove_file(void)
{
    unlink(fuzz_path);
}

/* Writes data to this process's scratch file (removed at exit) and returns
 * its path. */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
    const char *path = fuzz_path;
    FILE *f;

    if (fuzz_path[0] == '\0') {
        snprintf(fuzz_path, sizeof fuzz_path, "/tmp/gemmbench-fuzz-%ld.in", (long)getpid());
        atexit(fuzz_remove_file);
    }
    f = fopen(path, "wb");
    if (f == NULL || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    return path;
}

#endif
