/*
 * config.c - bench.conf: `key = value` lines, `#` comments, and
 * `[kernel NAME]` sections (k, n, and an optional own m list) for custom
 * shapes.  The keys are the settings table's (settings.h), read as their
 * flags are.  Every error names the file and line.
 */
#define _POSIX_C_SOURCE 200809L /* fdopen */
#include "options.h"
#include "variants.h"
#include "parse.h"
#include "settings.h"
#include "inputfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CONF_LINE_MAX 1024

struct m_list {
    int *m;
    int *nm;
};

static int add_m(const char *item, void *arg)
{
    struct m_list *l = arg;
    long v;

    if (*l->nm >= GB_MAX_M)
        return -2;
    if (gb_parse_long(item, 1, GB_MAX_DIM, &v) != 0)
        return -1;
    l->m[(*l->nm)++] = (int)v;
    return 0;
}

/* Parses an M list ("16, 32 64"); shared with the CLI's --m. */
int gb_parse_m_list(const char *text, int *m, int *nm, char *err, size_t errlen,
                    const char *where)
{
    int count = 0, tmp[GB_MAX_M];
    struct m_list l = { tmp, &count };
    int rc = gb_split_list(text, add_m, &l);

    if (rc == -2) {
        snprintf(err, errlen, "%s: more than %d M values", where, GB_MAX_M);
        return -1;
    }
    if (rc != 0 || count == 0) {
        char shown[96];
        gb_printable(text, 60, shown, sizeof shown);
        if (gb_split_why(rc))
            snprintf(err, errlen, "%s: '%s' %s", where, shown, gb_split_why(rc));
        else
            snprintf(err, errlen, "%s: '%s' is not a list of integers in [1, %d]", where,
                     shown, GB_MAX_DIM);
        return -1;
    }
    memcpy(m, tmp, (size_t)count * sizeof *m);
    *nm = count;
    return 0;
}

/* Applies one top-level key, read and stored as its flag is (settings.h).
 * Returns 0, or -1 with a message (no place). */
static int apply_key(gb_options *o, const char *key, const char *value, char *msg, size_t len)
{
    const gb_setting *s = gb_setting_by_key(GB_CMD_RUN, key);
    gb_setting_value v;

    if (s == NULL) {
        snprintf(msg, len, "unknown key '%s'", key);
        return -1;
    }
    if (gb_setting_read(s, key, value, &v, msg, len) != 0)
        return -1;
    /* A file's variant list is checked as it is read, to name its line; a
     * flag's when the selection is built. */
    if (s->id == GB_SET_VARIANT) {
        const gb_variant *picked[256];
        if (gb_variants_select(value, picked, 256, msg, len) < 0)
            return -1;
    }
    return gb_options_store(o, s, &v, msg, len);
}

static int apply_kernel_key(gb_kernel_def *k, const char *key, const char *value,
                            char *msg, size_t len)
{
    long l;

    if (strcmp(key, "k") == 0 || strcmp(key, "n") == 0) {
        if (gb_parse_long(value, 1, GB_MAX_DIM, &l) != 0) {
            snprintf(msg, len, "%s: '%s' is not an integer in [1, %d]", key, value,
                     GB_MAX_DIM);
            return -1;
        }
        if (key[0] == 'k')
            k->K = (int)l;
        else
            k->N = (int)l;
        return 0;
    }
    if (strcmp(key, "m") == 0)
        return gb_parse_m_list(value, k->m, &k->nm, msg, len, "m");
    snprintf(msg, len, "unknown key '%s' in a [kernel] section (k, n, m)", key);
    return -1;
}

static int valid_name(const char *s)
{
    if (*s == '\0' || strlen(s) >= GB_NAME_LEN)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
            return 0;
    return 1;
}

/* "[kernel NAME]" exactly: one name, blanks allowed around it, nothing after
 * the closing bracket ("[kernel a b]" and "[kernel a]]" are not sections). */
static int section_name(const char *s, char *name, size_t len)
{
    const char *open = s + 1, *close = strchr(s, ']');
    size_t n;

    while (*open == ' ' || *open == '\t')
        open++;
    if (strncmp(open, "kernel", 6) != 0 || (open[6] != ' ' && open[6] != '\t') ||
        close == NULL || close[1] != '\0')
        return -1;
    open += 7;
    while (*open == ' ' || *open == '\t')
        open++;
    n = (size_t)(close - open);
    while (n > 0 && (open[n - 1] == ' ' || open[n - 1] == '\t'))
        n--;
    if (n >= len)
        return -1;
    memcpy(name, open, n);
    name[n] = '\0';
    return valid_name(name) ? 0 : -1;
}

/* Kernel names may refer to sections further down, so they are checked once
 * the whole file is read, against the line that named them. */
static int check_kernels(const gb_options *o, const char *path, int line, char *err,
                         size_t errlen)
{
    char msg[GB_ERR_LEN];
    gb_options probe = *o;
    gb_shape *shapes = malloc(GB_MAX_SHAPES * sizeof *shapes);
    int rc;

    if (shapes == NULL) {
        snprintf(err, errlen, "out of memory reading %s", path);
        return -1;
    }
    probe.nshapes = 0;
    rc = gb_shapes_build(&probe, shapes, GB_MAX_SHAPES, msg, sizeof msg);
    free(shapes);
    if (rc < 0) {
        snprintf(err, errlen, "%s:%d: %s", path, line, msg);
        return -1;
    }
    return 0;
}

/* Reads a line of f into buf (size bytes, newline kept), like fgets but
 * counting the bytes: a NUL byte ends a C string early, so fgets cannot tell
 * "reps = 3\0garbage" from "reps = 3".  The bytes read, 0 at the end of the
 * file; *nul is set when one of them was a NUL. */
static size_t read_conf_line(FILE *f, char *buf, size_t size, int *nul)
{
    size_t n = 0;
    int c;

    *nul = 0;
    while (n + 1 < size && (c = getc(f)) != EOF) {
        buf[n++] = (char)c;
        *nul |= c == '\0';
        if (c == '\n')
            break;
    }
    buf[n] = '\0';
    return n;
}

int gb_config_load(gb_options *o, const char *path, char *err, size_t errlen)
{
    /* A regular file only: a FIFO would block the run forever. */
    int fd = gb_open_regular(path);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    char line[CONF_LINE_MAX + 2], msg[GB_ERR_LEN];
    gb_kernel_def *section = NULL;
    int lineno = 0, section_line = 0, kernels_line = 0, rc = -1, nul;
    size_t got;

    if (f == NULL) {
        snprintf(err, errlen, "cannot read config %s: %s", path,
                 fd < 0 && errno == EINVAL ? "not a regular file" : strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    while ((got = read_conf_line(f, line, sizeof line, &nul)) > 0) {
        char *s, *eq, *key, *value, *hash;

        lineno++;
        /* Checked first: a NUL is binary data however long its line. */
        if (nul) {
            snprintf(err, errlen, "%s:%d: binary data (a NUL byte)", path, lineno);
            goto out;
        }
        if (line[got - 1] != '\n' && !feof(f)) {
            snprintf(err, errlen, "%s:%d: line longer than %d characters", path, lineno,
                     CONF_LINE_MAX);
            goto out;
        }
        /* A UTF-8 byte-order mark (editors on some systems write one) is
         * not part of the first key. */
        if (lineno == 1 && strncmp(line, "\xef\xbb\xbf", 3) == 0)
            memmove(line, line + 3, strlen(line + 3) + 1);
        hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        s = gb_trim(line);
        if (*s == '\0')
            continue;
        if (*s == '[') {
            char name[CONF_LINE_MAX];
            if (section_name(s, name, sizeof name) != 0) {
                snprintf(err, errlen,
                         "%s:%d: expected a section '[kernel NAME]' (NAME: letters, digits, _ -)",
                         path, lineno);
                goto out;
            }
            if (section && (section->K == 0 || section->N == 0)) {
                snprintf(err, errlen, "%s:%d: [kernel %s] needs both k and n", path,
                         section_line, section->name);
                goto out;
            }
            if (o->ncustom >= GB_MAX_KERNELS) {
                snprintf(err, errlen, "%s:%d: more than %d kernel sections", path, lineno,
                         GB_MAX_KERNELS);
                goto out;
            }
            for (int i = 0; i < gb_builtin_kernel_count; i++)
                if (strcmp(gb_builtin_kernels[i].name, name) == 0) {
                    snprintf(err, errlen, "%s:%d: kernel '%s' is built in", path, lineno, name);
                    goto out;
                }
            for (int i = 0; i < o->ncustom; i++)
                if (strcmp(o->custom[i].name, name) == 0) {
                    snprintf(err, errlen, "%s:%d: kernel '%s' defined twice", path, lineno,
                             name);
                    goto out;
                }
            section = &o->custom[o->ncustom++];
            memset(section, 0, sizeof *section);
            strcpy(section->name, name);
            section_line = lineno;
            continue;
        }
        eq = strchr(s, '=');
        if (eq == NULL) {
            snprintf(err, errlen, "%s:%d: expected 'key = value'", path, lineno);
            goto out;
        }
        *eq = '\0';
        key = gb_trim(s);
        value = gb_trim(eq + 1);
        if (*key == '\0' || *value == '\0') {
            snprintf(err, errlen, "%s:%d: expected 'key = value'", path, lineno);
            goto out;
        }
        if (section ? apply_kernel_key(section, key, value, msg, sizeof msg)
                    : apply_key(o, key, value, msg, sizeof msg)) {
            snprintf(err, errlen, "%s:%d: %s", path, lineno, msg);
            goto out;
        }
        if (!section && strcmp(key, "kernels") == 0)
            kernels_line = lineno;
    }
    if (ferror(f)) {
        snprintf(err, errlen, "cannot read config %s: %s", path, strerror(errno));
        goto out;
    }
    if (section && (section->K == 0 || section->N == 0)) {
        snprintf(err, errlen, "%s:%d: [kernel %s] needs both k and n", path, section_line,
                 section->name);
        goto out;
    }
    if (kernels_line && check_kernels(o, path, kernels_line, err, errlen) != 0)
        goto out;
    rc = 0;
out:
    fclose(f);
    if (rc != 0) {
        /* Keys and values are quoted in messages: never echo binary bytes. */
        char raw[GB_ERR_LEN];
        snprintf(raw, sizeof raw, "%s", err);
        gb_printable(raw, errlen, err, errlen);
    }
    return rc;
}
