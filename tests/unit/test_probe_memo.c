/* test_probe_memo.c - the quick probes' memo (src/measure/probe_memo.c): no
 * key without the variable, figures read back only after GB_PROBE_MEMO_RUNS
 * runs and then the best of them, a file that does not parse ignored and
 * replaced, a directory that cannot be written never read from. */
#define _DEFAULT_SOURCE /* mkdtemp */
#include "probe_memo.h"
#include "test.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* A fresh memo directory as GEMMBENCH_PROBE_MEMO; the old value into saved. */
static int memo_begin(char *dir, size_t len, char **saved)
{
    const char *old = getenv("GEMMBENCH_PROBE_MEMO");

    *saved = old ? strdup(old) : NULL;
    snprintf(dir, len, "/tmp/gb-memo-test.XXXXXX");
    if (mkdtemp(dir) == NULL)
        return -1;
    setenv("GEMMBENCH_PROBE_MEMO", dir, 1);
    return 0;
}

static void memo_end(const char *dir, char *saved)
{
    char cmd[512];

    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        gb_test_fail(__FILE__, __LINE__, "could not remove the memo directory");
    if (saved)
        setenv("GEMMBENCH_PROBE_MEMO", saved, 1);
    else
        unsetenv("GEMMBENCH_PROBE_MEMO");
    free(saved);
}

static void write_file(const char *dir, const char *key, const char *text)
{
    char path[1024];
    FILE *f;

    snprintf(path, sizeof path, "%s/%s", dir, key);
    f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

TEST(probe_memo_keys_need_the_variable_and_plain_names)
{
    char dir[64], key[256], *saved;

    if (memo_begin(dir, sizeof dir, &saved) != 0)
        SKIP("no temporary directory");
    CHECK_EQ_INT(gb_probe_memo_key("peak_fma_avx512", 2, key, sizeof key), 1);
    CHECK(strncmp(key, "peak_fma_avx512_t2_cpus", 23) == 0);
    /* a path or a space never reaches a file name */
    CHECK_EQ_INT(gb_probe_memo_key("../x", 1, key, sizeof key), 0);
    CHECK_EQ_INT(gb_probe_memo_key("a b", 1, key, sizeof key), 0);
    CHECK_EQ_INT(gb_probe_memo_key("", 1, key, sizeof key), 0);
    CHECK_EQ_INT(gb_probe_memo_key("peak_fma_avx512", 2, key, 10), 0);
    setenv("GEMMBENCH_PROBE_MEMO", "", 1);
    CHECK_EQ_INT(gb_probe_memo_key("peak_fma_avx512", 2, key, sizeof key), 0);
    unsetenv("GEMMBENCH_PROBE_MEMO");
    CHECK_EQ_INT(gb_probe_memo_key("peak_fma_avx512", 2, key, sizeof key), 0);
    memo_end(dir, saved);
}

TEST(probe_memo_reads_back_the_best_after_its_runs)
{
    char dir[64], key[256], *saved;
    const double runs[GB_PROBE_MEMO_RUNS][2] = { { 100.0, 7.0 }, { 150.25, 3.0 }, { 120.0, 9.5 } };
    double v[2] = { 0.0, 0.0 };

    if (memo_begin(dir, sizeof dir, &saved) != 0)
        SKIP("no temporary directory");
    CHECK_EQ_INT(gb_probe_memo_key("bw-1-2", 2, key, sizeof key), 1);
    CHECK_EQ_INT(gb_probe_memo_get(key, v, 2), 0);
    for (int r = 0; r < GB_PROBE_MEMO_RUNS; r++) {
        /* not read back before the last run that measures */
        CHECK_EQ_INT(gb_probe_memo_get(key, v, 2), 0);
        gb_probe_memo_put(key, runs[r], 2);
    }
    CHECK_EQ_INT(gb_probe_memo_get(key, v, 2), 1);
    CHECK(v[0] == 150.25 && v[1] == 9.5);
    /* another count of figures is another memo */
    CHECK_EQ_INT(gb_probe_memo_get(key, v, 1), 0);
    /* a better figure measured again (a busy one's retry) replaces it */
    {
        const double again[2] = { 160.0, 1.0 };
        gb_probe_memo_put(key, again, 2);
        CHECK_EQ_INT(gb_probe_memo_get(key, v, 2), 1);
        CHECK(v[0] == 160.0 && v[1] == 9.5);
    }
    memo_end(dir, saved);
}

TEST(probe_memo_ignores_files_that_do_not_parse)
{
    static const char *const bad[] = {
        "",
        "gemmbench-probe-memo 1 runs 3 figures 1\n",               /* no figures */
        "gemmbench-probe-memo 1 runs 3 figures 1\nabc\n",          /* not a number */
        "gemmbench-probe-memo 1 runs 3 figures 1\n-5\n",           /* negative */
        "gemmbench-probe-memo 1 runs 3 figures 1\nnan\n",          /* not a figure */
        "gemmbench-probe-memo 1 runs 3 figures 1\n1 2\n",          /* one too many */
        "gemmbench-probe-memo 2 runs 3 figures 1\n1\n",            /* another format */
        "gemmbench-probe-memo 1 runs 0 figures 1\n1\n",            /* no run */
    };
    char dir[64], key[256], *saved;
    double v = 0.0;

    if (memo_begin(dir, sizeof dir, &saved) != 0)
        SKIP("no temporary directory");
    CHECK_EQ_INT(gb_probe_memo_key("peak_x", 1, key, sizeof key), 1);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_file(dir, key, bad[i]);
        if (gb_probe_memo_get(key, &v, 1) != 0) {
            char m[160];
            snprintf(m, sizeof m, "memo file %zu read back", i);
            gb_test_fail(__FILE__, __LINE__, m);
        }
    }
    /* a good one is read, exactly */
    write_file(dir, key, "gemmbench-probe-memo 1 runs 3 figures 1\n0x1.edd2f1a9fbe77p+6\n");
    CHECK_EQ_INT(gb_probe_memo_get(key, &v, 1), 1);
    CHECK(v == 0x1.edd2f1a9fbe77p+6);
    /* a bad one is replaced by the next run's figure, counted from one */
    write_file(dir, key, "garbage\n");
    {
        const double f = 42.0;
        gb_probe_memo_put(key, &f, 1);
        CHECK_EQ_INT(gb_probe_memo_get(key, &v, 1), 0);
        gb_probe_memo_put(key, &f, 1);
        gb_probe_memo_put(key, &f, 1);
        CHECK_EQ_INT(gb_probe_memo_get(key, &v, 1), 1);
        CHECK(v == 42.0);
    }
    memo_end(dir, saved);
}

TEST(probe_memo_unwritable_directory_is_not_read)
{
    char dir[64], sub[128], key[256], *saved;
    const double f = 5.0;
    double v = 0.0;

    if (memo_begin(dir, sizeof dir, &saved) != 0)
        SKIP("no temporary directory");
    /* a directory that does not exist: puts fail (one warning), gets find nothing */
    snprintf(sub, sizeof sub, "%s/missing", dir);
    setenv("GEMMBENCH_PROBE_MEMO", sub, 1);
    CHECK_EQ_INT(gb_probe_memo_key("peak_x", 1, key, sizeof key), 1);
    for (int r = 0; r < GB_PROBE_MEMO_RUNS + 1; r++)
        gb_probe_memo_put(key, &f, 1);
    CHECK_EQ_INT(gb_probe_memo_get(key, &v, 1), 0);
    CHECK(access(sub, F_OK) != 0);
    memo_end(dir, saved);
}
