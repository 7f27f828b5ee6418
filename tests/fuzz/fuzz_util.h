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

/* A lowered kernel's C (fuzz_sched, fuzz_space): its own quoted constants
 * blanked (loop distribution's patterns off on every function, and GCC's
 * unroll-and-jam and, for the dot form, loop header copying for some
 * nests; a tensorized kernel's AMX target and, under the test hook, its
 * emulation's symbol), nothing else quoted, no control or non-ASCII byte:
 * only the nest's checked names and numbers reach the C.  Aborts if not. */
static inline void fuzz_check_lowered(char *c)
{
    static const char *const consts[] = {
        "optimize(\"no-tree-loop-distribute-patterns\", \"no-loop-unroll-and-jam\", "
        "\"no-tree-ch\", \"no-tree-dominator-opts\")",
        "optimize(\"no-tree-loop-distribute-patterns\", \"no-loop-unroll-and-jam\")",
        "optimize(\"no-tree-loop-distribute-patterns\", \"no-tree-ch\", "
        "\"no-tree-dominator-opts\")",
        "optimize(\"no-tree-loop-distribute-patterns\")",
        "target(\"amx-tile,amx-bf16,amx-int8\")",
        "visibility(\"default\")",
    };
    for (size_t k = 0; k < sizeof consts / sizeof consts[0]; k++)
        for (char *q = strstr(c, consts[k]); q; q = strstr(q, consts[k]))
            memset(q, ' ', strlen(consts[k]));
    for (const char *p = c; *p; p++)
        if ((*p < 0x20 && *p != '\n') || *p > 0x7e || *p == '"' || *p == '\'')
            abort();
}

#endif
