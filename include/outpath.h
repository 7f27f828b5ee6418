/*
 * outpath.h - the one rule of a command's output file, checked before the
 * command's work starts: a new path is created when its folder takes it; an
 * existing path is replaced only when it is a regular file of the writer's
 * own kind (or empty) and none of the command's inputs; any other regular
 * file only with --force; a folder, device, FIFO, socket or symbolic link
 * never (the writers rename a new file over the path, which would replace
 * the node itself), nor one of the command's inputs (the measurements read
 * would be lost to what they made).
 */
#ifndef GB_OUTPATH_H
#define GB_OUTPATH_H

#include <stddef.h>

/* Two names of one file: the same existing file (the same path, a hard or
 * symbolic link), or, when either does not exist yet, the same text. */
int gb_same_file(const char *a, const char *b);

/* Whether the existing regular file at path is of the writer's kind: 1 or 0. */
typedef int (*gb_output_kind)(const char *path);

/* The rule above for output path (option names it in messages) with the
 * command's inputs[ninputs] (NULL entries skipped); kind_name says the kind
 * ("a model file").  GB_EXIT_OK, GB_EXIT_USAGE (a path that may not be written, said
 * in err) or GB_EXIT_IO (one that cannot be: a missing or read-only folder). */
int gb_output_check(const char *option, const char *path, const char *const *inputs,
                    int ninputs, gb_output_kind same_kind, const char *kind_name, int force,
                    char *err, size_t errlen);

#endif
