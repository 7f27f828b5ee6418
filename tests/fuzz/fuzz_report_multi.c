/*
 * fuzz_report_multi.c - the several-file report (`report [NAME=]A B ...`)
 * as report_cmd.c drives it: up to 8 result files and their column names
 * from one input, each file loaded and validated, then the side-by-side and
 * fastest tables in every format.
 *
 * The input is parts separated by the byte 0x01: the first is the names,
 * one a line (an empty line: the machine label), each later part one file.
 * Besides the sanitizers: an error always has a message, and no output ever
 * holds a terminal escape (ESC, or a C1 control: C2 80 to C2 9F).
 */
#define _GNU_SOURCE   /* open_memstream */
#include "fuzz_util.h"
#include "report.h"
#include "report_multi.h"
#include "resultfile.h"

#define MAX_FILES 8

/* Part i of the input as a file of its own. */
static const char *part_file(int i, const uint8_t *data, size_t size)
{
    static char paths[MAX_FILES][64];
    FILE *f;

    snprintf(paths[i], sizeof paths[i], "/tmp/gemmbench-fuzz-%ld-%d.json", (long)getpid(), i);
    f = fopen(paths[i], "wb");
    if (f == NULL || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    return paths[i];
}

static void no_escape(const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (text[i] == '\033' ||
            ((unsigned char)text[i] == 0xc2 && i + 1 < len &&
             (unsigned char)text[i + 1] >= 0x80 && (unsigned char)text[i + 1] < 0xa0))
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gb_result_file files[MAX_FILES];
    const char *names[MAX_FILES] = { NULL };
    char *names_text, *line, err[4700];
    const uint8_t *end = data + size, *at = memchr(data, 1, size);
    int n = 0, loaded = 0;

    if (at == NULL)
        return 0;
    names_text = fuzz_string(data, (size_t)(at - data));
    /* The names, one a line; a NUL byte cuts them, as argv would. */
    line = names_text;
    for (int i = 0; i < MAX_FILES && line; i++) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        names[i] = line;
        line = nl ? nl + 1 : NULL;
    }
    while (at < end && n < MAX_FILES) {
        const uint8_t *from = at + 1, *next = memchr(from, 1, (size_t)(end - from));
        if (next == NULL)
            next = end;
        if (gb_result_file_load(part_file(n, from, (size_t)(next - from)), &files[n], err,
                                sizeof err) != 0) {
            if (err[0] == '\0')
                abort();
            no_escape(err, strlen(err));
            break;
        }
        n++;
        loaded = n;
        at = next;
    }
    if (loaded >= 2 && loaded == n) {
        for (int fmt = 0; fmt < 3; fmt++) {
            static const gb_format formats[] = { GB_FMT_TABLE, GB_FMT_MD, GB_FMT_CSV };
            gb_report_opts o;
            char *text = NULL;
            size_t len = 0;
            FILE *out = open_memstream(&text, &len);
            int rc;

            if (out == NULL)
                abort();
            memset(&o, 0, sizeof o);
            o.format = formats[fmt];
            rc = gb_report_multi(out, files, names, n, &o, err, sizeof err);
            fclose(out);
            if (rc != 0 && err[0] == '\0')
                abort();
            no_escape(text, len);
            if (rc != 0)
                no_escape(err, strlen(err));
            free(text);
        }
    }
    while (loaded-- > 0)
        gb_result_file_free(&files[loaded]);
    for (int i = 0; i < n + 1 && i < MAX_FILES; i++) {
        char path[64];
        snprintf(path, sizeof path, "/tmp/gemmbench-fuzz-%ld-%d.json", (long)getpid(), i);
        unlink(path);
    }
    free(names_text);
    return 0;
}
