/* test_report.c - the report's arithmetic (speed-up, percent of peak,
 * geometric means) and its table layout, on small hand-written result files
 * whose numbers are known. */
#define _GNU_SOURCE
#include "test.h"

#include <stdlib.h>
#include <unistd.h>

#include "report.h"

/* One result entry; K = N = 8, so gflops = 2*M*64 / median_us / 1000. */
static void add_entry(char *doc, size_t len, const char *variant, const char *label,
                      const char *kernel, int M, int threads, double median, double stored)
{
    size_t used = strlen(doc);
    char speedup[32];

    if (isnan(stored))
        snprintf(speedup, sizeof speedup, "null");
    else
        snprintf(speedup, sizeof speedup, "%.17g", stored);
    snprintf(doc + used, len - used,
             "%s{\"variant\":\"%s\",\"label\":\"%s\",\"family\":\"f\",\"kernel\":\"%s\","
             "\"M\":%d,\"K\":8,\"N\":8,\"threads\":%d,\"reps\":1,\"median_us\":%.17g,"
             "\"min_us\":%.17g,\"mean_us\":%.17g,\"stddev_us\":0,\"gflops\":%.17g,"
             "\"speedup_vs_baseline\":%s,\"check\":\"pass\",\"params\":{},"
             "\"samples_us\":[%.17g]}",
             used > 0 ? "," : "", variant, label, kernel, M,
             threads, median, median / 2, median, 2.0 * M * 64 / median / 1000.0, speedup,
             median);
}

/* Writes the document around the entries to a temporary file and loads it. */
static int load(const char *entries, const char *peak, gb_result_file *f)
{
    char path[] = "/tmp/gemmbench-test-report-XXXXXX", err[512];
    int fd = mkstemp(path), rc;
    FILE *out;

    if (fd < 0)
        return -1;
    out = fdopen(fd, "w");
    fprintf(out,
            "{\"schema\":\"gemmbench/1\",\"complete\":true,\"tool\":{},"
            "\"machine\":{\"hostname\":\"h\",\"cpu_model\":\"c\",\"peak_gflops\":%s,"
            "\"peak_gflops_1thread\":1.0},"
            "\"run\":{\"started\":\"2026-01-01T00:00:00Z\",\"threads\":2},"
            "\"results\":[%s]}",
            peak, entries);
    fclose(out);
    rc = gb_result_file_load(path, f, err, sizeof err);
    if (rc != 0)
        printf("  load: %s\n", err);
    unlink(path);
    return rc;
}

/* Runs of blanks become one, and none ends a line: tests check the numbers
 * and their order, not the column widths. */
static void squeeze(char *text)
{
    char *out = text;
    for (char *p = text; *p; p++) {
        if (*p == ' ' && (p[1] == ' ' || p[1] == '\n' || p[1] == '\0'))
            continue;
        *out++ = *p;
    }
    *out = '\0';
}

/* The report as a string (caller frees), or NULL on error. */
static char *report_text(const gb_result_file *f, gb_format format, gb_report_metric metric)
{
    gb_report_opts o = { format, metric, NULL, 0, NULL, 0, 0, NULL, 0 };
    char *text = NULL, err[512];
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    int rc = gb_report_write(out, f, &o, err, sizeof err);

    fclose(out);
    if (rc != 0) {
        free(text);
        return NULL;
    }
    squeeze(text);
    return text;
}

TEST(report_geomean)
{
    double v[] = { 2.0, NAN, 8.0, 0.0 };
    int used = -1;

    CHECK_NEAR(gb_geomean(v, 4, &used), 4.0, 1e-12);
    CHECK_EQ_INT(used, 2);
    CHECK(isnan(gb_geomean(v + 1, 1, &used)));
    CHECK_EQ_INT(used, 0);
    CHECK_NEAR(gb_geomean((double[]){ 1.0, 10.0, 100.0 }, 3, NULL), 10.0, 1e-12);
}

TEST(report_speedup_from_baseline_medians)
{
    static char doc[8192];
    gb_result_file f;

    doc[0] = '\0';
    /* The stored speed-ups (7, 3) are deliberately wrong: the report divides
     * the file's medians itself. */
    add_entry(doc, sizeof doc, "baseline", "baseline", "qkv", 16, 2, 100.0, 1.0);
    add_entry(doc, sizeof doc, "parallel", "parallel", "qkv", 16, 2, 25.0, 7.0);
    add_entry(doc, sizeof doc, "parallel", "parallel", "qkv", 32, 2, 50.0, 3.0);
    add_entry(doc, sizeof doc, "parallel", "parallel", "qkv", 64, 2, 50.0, NAN);
    add_entry(doc, sizeof doc, "parallel", "parallel", "qkv", 16, 1, 40.0, NAN);
    if (load(doc, "null", &f) != 0) {
        CHECK(!"fixture loads");
        return;
    }
    CHECK_NEAR(gb_report_speedup(&f, &f.entries[1]), 4.0, 1e-12);
    /* No baseline at M=32 in the file: the run's own figure stands. */
    CHECK_NEAR(gb_report_speedup(&f, &f.entries[2]), 3.0, 1e-12);
    CHECK(isnan(gb_report_speedup(&f, &f.entries[3])));
    /* A baseline at another thread count is not this one's baseline. */
    CHECK(isnan(gb_report_speedup(&f, &f.entries[4])));
    CHECK_NEAR(gb_report_value(&f, &f.entries[1], GB_METRIC_MIN), 12.5, 1e-12);
    gb_result_file_free(&f);
}

TEST(report_peak_percent)
{
    static char doc[8192];
    gb_result_file f;

    doc[0] = '\0';
    /* gflops = 2*16*64/median/1000: 2.048 at median 1 µs. */
    add_entry(doc, sizeof doc, "baseline", "baseline", "qkv", 16, 2, 1.0, 1.0);
    add_entry(doc, sizeof doc, "baseline", "baseline", "qkv", 16, 1, 1.0, 1.0);
    add_entry(doc, sizeof doc, "baseline", "baseline", "qkv", 16, 4, 1.0, 1.0);
    if (load(doc, "4.096", &f) != 0) {
        CHECK(!"fixture loads");
        return;
    }
    CHECK_NEAR(gb_report_peak_pct(&f, &f.entries[0]), 50.0, 1e-9);   /* run's threads */
    CHECK_NEAR(gb_report_peak_pct(&f, &f.entries[1]), 204.8, 1e-9);  /* 1-thread peak */
    CHECK(isnan(gb_report_peak_pct(&f, &f.entries[2])));              /* unknown */
    gb_result_file_free(&f);
}

TEST(report_rows_columns_and_gaps)
{
    static char doc[16384];
    gb_result_file f;
    char *text, *p;
    const char *order[] = { "\nbaseline ", "\nparallel ", "\nparallel+prepack ",
                            "\nvec_j ", "\nzz_newer ", NULL };

    doc[0] = '\0';
    /* File order differs from table order on purpose; zz_newer is a variant
     * this build does not have; vec_j has no M=32. */
    add_entry(doc, sizeof doc, "zz_newer", "zz_newer", "qkv", 32, 2, 10.0, NAN);
    add_entry(doc, sizeof doc, "vec_j", "vec_j", "qkv", 16, 2, 50.0, NAN);
    add_entry(doc, sizeof doc, "parallel", "parallel+prepack", "qkv", 16, 2, 20.0, NAN);
    add_entry(doc, sizeof doc, "parallel", "parallel", "qkv", 16, 2, 25.0, NAN);
    add_entry(doc, sizeof doc, "parallel", "parallel", "qkv", 32, 2, 100.0, NAN);
    add_entry(doc, sizeof doc, "baseline", "baseline", "qkv", 32, 2, 400.0, NAN);
    add_entry(doc, sizeof doc, "baseline", "baseline", "qkv", 16, 2, 100.0, NAN);
    add_entry(doc, sizeof doc, "baseline", "baseline", "qkv", 16, 1, 150.0, NAN);
    if (load(doc, "null", &f) != 0) {
        CHECK(!"fixture loads");
        return;
    }
    text = report_text(&f, GB_FMT_TABLE, GB_METRIC_MEDIAN);
    CHECK(text != NULL);
    if (text == NULL)
        goto out;
    /* Thread counts ascending: the 1-thread table comes first. */
    p = strstr(text, "qkv (K=8, N=8), 1 thread:");
    CHECK(p != NULL && p < strstr(text, "qkv (K=8, N=8), 2 threads:"));
    p = strstr(text, "qkv (K=8, N=8), 2 threads:");
    for (int i = 0; p && order[i]; i++) {
        char *next = strstr(p, order[i]);
        if (next == NULL)
            printf("  row %s missing or out of order\n", order[i] + 1);
        CHECK(next != NULL);
        p = next;
    }
    /* The 1-thread table: 2*16*64 flop in 150 µs against a 1 GFLOP/s peak. */
    CHECK(strstr(text, "\nvariant \\ M 16 geomean speedup %peak\nbaseline 150.0 150.0 1.00 1.4\n"));
    /* baseline: 100 at M=16 and 400 at M=32: geomean 200, speed-up 1. */
    CHECK(strstr(text, "\nbaseline 100.0 400.0 200.0 1.00\n") != NULL);
    /* vec_j has only M=16: '-' at 32, a geomean over one cell, marked. */
    CHECK(strstr(text, "\nvec_j 50.0 - 50.0* 2.00*\n") != NULL);
    /* parallel: 4x and 4x over baseline. */
    CHECK(strstr(text, "\nparallel 25.0 100.0 50.0 4.00\n") != NULL);
    /* zz_newer has no baseline... of its own, but qkv/32's baseline is 400. */
    CHECK(strstr(text, "\nzz_newer - 10.0 10.0* 40.00*\n") != NULL);
    if (getenv("SHOW"))
        printf("%s", text);
    free(text);

    /* CSV: the same numbers, unrounded, empty where not measured. */
    text = report_text(&f, GB_FMT_CSV, GB_METRIC_SPEEDUP);
    CHECK(text != NULL);
    if (text == NULL)
        goto out;
    CHECK(strstr(text, "\nkernel,threads,variant,16,32,geomean,geomean_speedup,"
                       "geomean_peak_pct\n") != NULL);
    CHECK(strstr(text, "\nqkv,2,vec_j,2,,2,2,\n") != NULL);
    CHECK(strstr(text, "\nqkv,2,parallel+prepack,5,,5,5,\n") != NULL);
    CHECK(strstr(text, "# complete: yes\n") != NULL);
    free(text);
out:
    gb_result_file_free(&f);
}

TEST(report_selection_errors)
{
    static char doc[4096];
    gb_result_file f;
    const char *nope[] = { "nope" }, *both[] = { "qkv,mlp_expand" };
    gb_report_opts o = { GB_FMT_TABLE, GB_METRIC_MEDIAN, nope, 1, NULL, 0, 0, NULL, 0 };
    char err[512];
    FILE *out = fopen("/dev/null", "w");

    doc[0] = '\0';
    add_entry(doc, sizeof doc, "baseline", "baseline", "qkv", 16, 2, 100.0, NAN);
    if (out == NULL || load(doc, "null", &f) != 0) {
        CHECK(!"fixture loads");
        if (out)
            fclose(out);
        return;
    }
    CHECK_EQ_INT(gb_report_write(out, &f, &o, err, sizeof err), -1);
    CHECK(strstr(err, "kernel 'nope'") != NULL);
    o.kernels = both;
    CHECK_EQ_INT(gb_report_write(out, &f, &o, err, sizeof err), -1);
    CHECK(strstr(err, "kernel 'mlp_expand'") != NULL);
    o.nkernels = 0;
    o.variants = nope;
    o.nvariants = 1;
    CHECK_EQ_INT(gb_report_write(out, &f, &o, err, sizeof err), -1);
    CHECK(strstr(err, "variant 'nope'") != NULL);
    fclose(out);
    gb_result_file_free(&f);
}
