/*
 * probe_memo.c - the quick probes' figures kept for later runs
 * (probe_memo.h says when and why).
 *
 * One file per key in GEMMBENCH_PROBE_MEMO's directory, two lines:
 *   gemmbench-probe-memo 1 runs R figures N
 *   F1 F2 ... FN              (C99 hex floats: read back exactly)
 * written to a temporary file beside it and renamed over it, so a reader
 * sees the old memo or the new one, never half of one.  Two runs that put
 * the same key at once may lose one run's figures (the later rename wins):
 * the memo is then one run short of its best, nothing worse.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_ISSET */
#include "probe_memo.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MEMO_ENV "GEMMBENCH_PROBE_MEMO"
#define MEMO_MAGIC "gemmbench-probe-memo 1"

static const char *memo_dir(void)
{
    const char *dir = getenv(MEMO_ENV);
    return dir != NULL && dir[0] != '\0' ? dir : NULL;
}

/* This process's CPUs as ranges ("0-1", "0.2.5-7"), or "" when unknown. */
static void cpu_ranges(char *out, size_t len)
{
    cpu_set_t set;
    size_t used = 0;

    out[0] = '\0';
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        int last = c;
        int n;
        if (!CPU_ISSET(c, &set))
            continue;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set))
            last++;
        n = last > c ? snprintf(out + used, len - used, "%s%d-%d", used ? "." : "", c, last)
                     : snprintf(out + used, len - used, "%s%d", used ? "." : "", c);
        if (n < 0 || (size_t)n >= len - used) {
            out[0] = '\0';
            return;
        }
        used += (size_t)n;
        c = last;
    }
}

static int key_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '-' || c == '_';
}

int gb_probe_memo_key(const char *what, int threads, char *key, size_t keylen)
{
    char cpus[128];
    int n;

    if (memo_dir() == NULL || what == NULL || what[0] == '\0')
        return 0;
    for (const char *c = what; *c; c++)
        if (!key_char(*c))
            return 0;
    cpu_ranges(cpus, sizeof cpus);
    if (cpus[0] == '\0')
        return 0;
    /* well under NAME_MAX with the temporary file's suffix */
    n = snprintf(key, keylen, "%s_t%d_cpus%s", what, threads, cpus);
    return n > 0 && (size_t)n < keylen && n < 200;
}

static int memo_path(const char *key, char *path, size_t len)
{
    const char *dir = memo_dir();
    int n = dir ? snprintf(path, len, "%s/%s", dir, key) : -1;
    return n > 0 && (size_t)n < len ? 0 : -1;
}

/* The memo under key: its runs and n figures, or -1 (absent, unreadable,
 * another count of figures, anything that does not parse). */
static int read_memo(const char *key, double *v, int n)
{
    char path[4096], line[64 * GB_PROBE_MEMO_MAX];
    int runs = -1, count = -1;
    FILE *f;

    if (n < 1 || n > GB_PROBE_MEMO_MAX || memo_path(key, path, sizeof path) != 0)
        return -1;
    f = fopen(path, "r");
    if (f == NULL)
        return -1;
    if (fgets(line, sizeof line, f) == NULL ||
        sscanf(line, MEMO_MAGIC " runs %d figures %d", &runs, &count) != 2 || runs < 1 ||
        count != n || fgets(line, sizeof line, f) == NULL) {
        fclose(f);
        return -1;
    }
    fclose(f);
    {
        char *p = line, *end;
        for (int i = 0; i < n; i++) {
            errno = 0;
            v[i] = strtod(p, &end);
            if (end == p || errno != 0 || !(v[i] >= 0.0))
                return -1;
            p = end;
        }
        while (*p == ' ')
            p++;
        if (*p != '\n')
            return -1;
    }
    return runs;
}

int gb_probe_memo_get(const char *key, double *v, int n)
{
    double kept[GB_PROBE_MEMO_MAX];
    int runs = read_memo(key, kept, n);

    if (runs < GB_PROBE_MEMO_RUNS)
        return 0;
    memcpy(v, kept, sizeof(double) * (size_t)n);
    return 1;
}

/* The one warning of a memo that cannot be written: the directory, why. */
static void warn_once(const char *why)
{
    static int warned;

    if (warned++)
        return;
    fprintf(stderr, "gemmbench: warning: %s: cannot write in %s: %s; the probes are measured "
                    "in every run\n", MEMO_ENV, memo_dir(), why);
}

void gb_probe_memo_put(const char *key, const double *v, int n)
{
    char path[4096], tmp[4096 + 32];
    double kept[GB_PROBE_MEMO_MAX];
    int runs, fd, ok;
    FILE *f;

    if (n < 1 || n > GB_PROBE_MEMO_MAX || memo_path(key, path, sizeof path) != 0)
        return;
    runs = read_memo(key, kept, n);
    if (runs < 0)
        runs = 0;
    for (int i = 0; i < n; i++)
        if (runs == 0 || v[i] > kept[i])
            kept[i] = v[i];
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    fd = mkstemp(tmp);
    if (fd < 0) {
        warn_once(strerror(errno));
        return;
    }
    f = fdopen(fd, "w");
    if (f == NULL) {
        warn_once(strerror(errno));
        close(fd);
        unlink(tmp);
        return;
    }
    ok = fprintf(f, MEMO_MAGIC " runs %d figures %d\n", runs + 1, n) > 0;
    for (int i = 0; i < n; i++)
        ok = ok && fprintf(f, "%s%a", i ? " " : "", kept[i]) > 0;
    ok = ok && fprintf(f, "\n") > 0;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        warn_once(ok ? strerror(errno) : "a short write");
        unlink(tmp);
    }
}
