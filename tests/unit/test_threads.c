/* test_threads.c - --threads lists: the strict parser, `all`, bench.conf. */
#define _GNU_SOURCE
#include "test.h"
#include "variants.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemmbench.h"
#include "options.h"
#include "parse.h"

static int parsed(const char *text, const int *want, int nwant, int want_all)
{
    int list[GB_MAX_THREAD_COUNTS], n = -1, all = -1;

    if (gb_parse_thread_list(text, list, &n, GB_MAX_THREAD_COUNTS, &all) != 0)
        return 0;
    if (n != nwant || all != want_all)
        return 0;
    for (int i = 0; i < n; i++)
        if (list[i] != want[i])
            return 0;
    return 1;
}

static int refused(const char *text)
{
    int list[GB_MAX_THREAD_COUNTS], n = 0, all = 0;
    return gb_parse_thread_list(text, list, &n, GB_MAX_THREAD_COUNTS, &all) != 0;
}

TEST(thread_lists_parse)
{
    static const int one_two[] = { 1, 2 }, one_to_four[] = { 1, 2, 3, 4 }, mixed[] = { 1, 2, 3,
                                                                                        6, 8 };
    CHECK(parsed("1,2", one_two, 2, 0));
    CHECK(parsed("2, 1", one_two, 2, 0));          /* sorted */
    CHECK(parsed("1-4", one_to_four, 4, 0));
    CHECK(parsed("8,1-3,6,2", mixed, 5, 0));       /* sorted, duplicates dropped */
    CHECK(parsed("all", one_two, 0, 1));
    CHECK(parsed("1,all", one_two, 1, 1));
    CHECK(parsed("4096", (const int[]){ 4096 }, 1, 0));
}

TEST(thread_lists_refuse_bad_elements)
{
    CHECK(refused("0"));
    CHECK(refused("1,,2"));
    CHECK(refused("1,"));
    CHECK(refused(",1"));
    CHECK(refused(""));
    CHECK(refused("3-1"));
    CHECK(refused("-1"));
    CHECK(refused("1-"));
    CHECK(refused("0-2"));
    CHECK(refused("1 2"));
    CHECK(refused("4097"));
    CHECK(refused("two"));
    CHECK(refused("1-2-3"));
    /* More distinct counts than the list holds. */
    CHECK(!refused("1-64"));
    {
        int list[GB_MAX_THREAD_COUNTS], n = 0, all = 0;
        CHECK(gb_parse_thread_list("1-65", list, &n, GB_MAX_THREAD_COUNTS, &all) == -2);
    }
}

TEST(thread_counts_resolve_all)
{
    gb_options o;
    int out[GB_MAX_THREAD_COUNTS];
    char err[GB_ERR_LEN];

    gb_options_defaults(&o);
    /* No list: every CPU the process may use, as before. */
    CHECK(gb_options_thread_counts(&o, 6, out, GB_MAX_THREAD_COUNTS) == 1 && out[0] == 6);
    CHECK(gb_options_set_threads(&o, "1,all", err, sizeof err) == 0 && o.threads == 0);
    CHECK(gb_options_thread_counts(&o, 4, out, GB_MAX_THREAD_COUNTS) == 2 && out[0] == 1 &&
          out[1] == 4);
    /* all equal to a listed count is one count. */
    CHECK(gb_options_set_threads(&o, "2,all,8", err, sizeof err) == 0);
    CHECK(gb_options_thread_counts(&o, 2, out, GB_MAX_THREAD_COUNTS) == 2 && out[0] == 2 &&
          out[1] == 8);
    CHECK(gb_options_thread_counts(&o, 4, out, GB_MAX_THREAD_COUNTS) == 3 && out[1] == 4);
    CHECK(gb_options_set_threads(&o, "3", err, sizeof err) == 0 && o.threads == 3);
    CHECK(gb_options_set_threads(&o, "0", err, sizeof err) != 0 && strstr(err, "'0'") != NULL);
}

/* The one line names what is wrong with the list. */
TEST(thread_list_errors_say_why)
{
    static const struct {
        const char *text, *why;
    } cases[] = {
        { "0", "0 threads" },          { "1,,2", "empty element" }, { "1,", "empty element" },
        { ",1", "empty element" },     { "", "empty element" },     { "3-1", "descending range '3-1'" },
        { "-1", "negative count" },    { "2,x", "'x' is not a count" },
        { "1-2-3", "'1-2-3' is not a count" }, { "4097", "'4097' is not a count" },
    };
    gb_options o;
    char err[GB_ERR_LEN];

    gb_options_defaults(&o);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int refused = gb_options_set_threads(&o, cases[i].text, err, sizeof err) != 0;
        CHECK(refused && strstr(err, cases[i].why) != NULL);
        if (!refused || strstr(err, cases[i].why) == NULL)
            printf("  '%s': %s\n", cases[i].text, err);
    }
}

TEST(thread_lists_in_bench_conf)
{
    char path[] = "/tmp/gb-threads-XXXXXX";
    char err[GB_ERR_LEN];
    gb_options o;
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

    CHECK(f != NULL);
    if (f == NULL)
        return;
    fputs("threads = 1-2, 4\n", f);
    fclose(f);
    gb_options_defaults(&o);
    CHECK(gb_config_load(&o, path, err, sizeof err) == 0);
    CHECK(o.nthreads_list == 3 && o.threads_list[2] == 4 && !o.threads_all);
    f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs("threads = 0\n", f);  /* was "all"; now refused as on the command line */
        fclose(f);
        CHECK(gb_config_load(&o, path, err, sizeof err) != 0 && strstr(err, ":1:") != NULL);
    }
    remove(path);
}

/* The variants that say they run on one thread: a thread list measures
 * them once.  The ones that take ctx->nthreads must not be among them. */
TEST(single_thread_variants_are_the_serial_ones)
{
    static const char *const serial[] = { "baseline", "k4", "k8", "k16", "k32", "k64",
                                          "vec_j", "vec_k", "vec_j_k16", "tvm_blocking",
                                          "tvm_vectorize", "tvm_permute", NULL };
    for (size_t i = 0; i < gb_variant_count; i++) {
        int listed = 0;
        for (int s = 0; serial[s]; s++)
            listed |= strcmp(serial[s], gb_variants[i]->name) == 0;
        if (gb_variants[i]->single_thread != listed)
            printf("  %s: single_thread %d\n", gb_variants[i]->name,
                   gb_variants[i]->single_thread);
        CHECK(gb_variants[i]->single_thread == listed);
    }
}
