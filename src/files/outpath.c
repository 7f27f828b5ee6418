/* outpath.c - the one rule of an output path; see outpath.h. */
#define _POSIX_C_SOURCE 200809L
#include "outpath.h"
#include "gemmbench.h"
#include "parse.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int gb_same_file(const char *a, const char *b)
{
    struct stat sa, sb;

    if (a == NULL || b == NULL)
        return 0;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0)
        return strcmp(a, b) == 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Whether a new file can be made beside path (the writers' temporary file,
 * renamed over it): 0, or -1 with errno. */
static int folder_takes(const char *path)
{
    char tmp[4200];
    int fd;

    if (snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= (int)sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    fd = mkstemp(tmp);
    if (fd < 0)
        return -1;
    close(fd);
    unlink(tmp);
    return 0;
}

int gb_output_check(const char *option, const char *path, const char *const *inputs,
                    int ninputs, gb_output_kind same_kind, const char *kind_name, int force,
                    char *err, size_t errlen)
{
    char shown[256];
    struct stat st;

    if (path == NULL || path[0] == '\0') {
        snprintf(err, errlen, "%s needs a file name", option);
        return GB_EXIT_USAGE;
    }
    gb_printable(path, 200, shown, sizeof shown);
    for (int i = 0; i < ninputs; i++)
        if (inputs[i] != NULL && gb_same_file(path, inputs[i])) {
            snprintf(err, errlen, "%s %s is one of this command's inputs (not replaced, even "
                     "with --force)", option, shown);
            return GB_EXIT_USAGE;
        }
    if (lstat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode)) {
            snprintf(err, errlen, "%s %s is %s, not a regular file (not replaced, even with "
                     "--force)", option, shown,
                     S_ISDIR(st.st_mode)   ? "a directory"
                     : S_ISLNK(st.st_mode) ? "a symbolic link"
                                           : "a device, FIFO or socket");
            return GB_EXIT_USAGE;
        }
        if (!force && st.st_size > 0 && (same_kind == NULL || !same_kind(path))) {
            snprintf(err, errlen, "%s %s exists and is not %s (--force replaces it)", option,
                     shown, same_kind ? kind_name : "empty");
            return GB_EXIT_USAGE;
        }
    } else if (errno != ENOENT) {
        snprintf(err, errlen, "cannot write %s: %s", shown, strerror(errno));
        return GB_EXIT_IO;
    }
    if (folder_takes(path) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", shown, strerror(errno));
        return GB_EXIT_IO;
    }
    return GB_EXIT_OK;
}
