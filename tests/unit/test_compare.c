/*
 * test_compare.c - pairing of two result files, one-sided entries, verdicts
 * and the gate, geometric means, filters and the header differences.  The
 * files are written to a temporary directory and read back through
 * gb_result_file_load, as the command does.
 */
#define _GNU_SOURCE
#include "test.h"

#include "compare.h"

#include <stdlib.h>
#include <unistd.h>

#define DOC_MAX 16384

/* Samples that the exact U test separates completely from each other. */
#define LOW "10,11,12,13,14"
#define HIGH "20,21,22,23,24"

typedef struct doc {
    char text[DOC_MAX];
    size_t used;
    int entries;
} doc;

static void doc_begin(doc *d, const char *cpu, const char *cflags, int threads)
{
    d->entries = 0;
    d->used = (size_t)snprintf(
        d->text, sizeof d->text,
        "{\"schema\":\"gemmbench/1\",\"complete\":true,"
        "\"tool\":{\"version\":\"0.1.0\",\"git\":\"g\",\"compiler\":\"cc\",\"cflags\":\"%s\"},"
        "\"machine\":{\"hostname\":\"h\",\"cpu_model\":\"%s\",\"logical_cpus\":2,"
        "\"isa\":[\"avx2\"],\"caches\":{\"L1d\":{\"size_bytes\":49152}},"
        "\"peak_gflops\":null},"
        "\"run\":{\"started\":\"%s\",\"command\":\"x\",\"threads\":%d,\"config\":{\"m\":[16]}},"
        "\"results\":[",
        cflags, cpu, cpu, threads);
}

/* params is JSON ("{}" or {"tk":8}); samples a comma list of numbers. */
static void doc_entry(doc *d, const char *variant, const char *params, const char *kernel,
                      int M, int threads, int prepack, double median, const char *samples)
{
    d->used += (size_t)snprintf(
        d->text + d->used, sizeof d->text - d->used,
        "%s{\"variant\":\"%s\",\"family\":\"fam_%s\",\"kernel\":\"%s\",\"M\":%d,\"K\":8,"
        "\"N\":8,\"threads\":%d,\"prepack\":%s,\"reps\":5,\"median_us\":%.17g,"
        "\"min_us\":1,\"mean_us\":1,\"stddev_us\":0,\"gflops\":1,\"check\":\"pass\","
        "\"params\":%s,\"samples_us\":[%s]}",
        d->entries++ ? "," : "", variant, variant, kernel, M, threads,
        prepack ? "true" : "false", median, params, samples);
}

/* Ends the document, writes it to a temporary file and loads it. */
static int doc_load(doc *d, gb_result_file *f)
{
    char path[] = "/tmp/gemmbench-test-compare-XXXXXX";
    char err[512];
    int fd, rc;

    snprintf(d->text + d->used, sizeof d->text - d->used, "]}\n");
    fd = mkstemp(path);
    if (fd < 0)
        return -1;
    rc = write(fd, d->text, strlen(d->text)) == (ssize_t)strlen(d->text) ? 0 : -1;
    close(fd);
    if (rc == 0 && gb_result_file_load(path, f, err, sizeof err) != 0) {
        printf("  load failed: %s\n", err);
        rc = -1;
    }
    unlink(path);
    return rc;
}

static gb_compare_opts default_opts(void)
{
    gb_compare_opts o = { GB_COMPARE_THRESHOLD_PCT, GB_COMPARE_ALPHA, GB_COMPARE_MIN_SAMPLES,
                          NULL, NULL, 0, NULL };
    return o;
}

static const gb_compare_group *find_group(const gb_compare_group *g, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(g[i].name, name) == 0)
            return &g[i];
    return NULL;
}

/* Every key component separates entries; pairs come out in OLD's order and
 * the unpaired ones are listed on their side, in file order. */
TEST(compare_matching_and_one_sided)
{
    doc a, b;
    gb_result_file fa, fb;
    gb_compare c;
    gb_compare_opts o = default_opts();
    char err[512];

    doc_begin(&a, "cpu", "-O3", 2);
    doc_entry(&a, "vec_j", "{}", "qkv", 16, 2, 0, 12, LOW);            /* pairs */
    doc_entry(&a, "k8", "{\"tk\":8}", "qkv", 16, 2, 0, 12, LOW);       /* params differ */
    doc_entry(&a, "baseline", "{}", "qkv", 32, 2, 0, 12, LOW);         /* pairs */
    doc_entry(&a, "packed", "{}", "qkv", 16, 2, 1, 12, LOW);           /* prepack differs */
    doc_entry(&a, "vec_j", "{}", "qkv", 16, 1, 0, 12, LOW);            /* threads differ */
    doc_begin(&b, "cpu", "-O3", 2);
    doc_entry(&b, "packed", "{}", "qkv", 16, 2, 0, 12, LOW);
    doc_entry(&b, "baseline", "{}", "qkv", 32, 2, 0, 22, HIGH);
    doc_entry(&b, "k8", "{\"tk\":16}", "qkv", 16, 2, 0, 12, LOW);
    doc_entry(&b, "vec_j", "{}", "qkv", 16, 2, 0, 22, HIGH);
    doc_entry(&b, "vec_j", "{}", "mlp_reduce", 16, 2, 0, 12, LOW);     /* kernel differs */
    CHECK(doc_load(&a, &fa) == 0 && doc_load(&b, &fb) == 0);

    CHECK(gb_compare_files(&fa, &fb, &o, &c, err, sizeof err) == 0);
    CHECK_EQ_INT(c.nrows, 2);
    CHECK(c.rows[0].old_e == &fa.entries[0] && c.rows[0].new_e == &fb.entries[3]);
    CHECK(c.rows[1].old_e == &fa.entries[2] && c.rows[1].new_e == &fb.entries[1]);
    CHECK_EQ_INT(c.nonly_old, 3);
    CHECK(c.only_old[0] == &fa.entries[1] && c.only_old[1] == &fa.entries[3] &&
          c.only_old[2] == &fa.entries[4]);
    CHECK_EQ_INT(c.nonly_new, 3);
    CHECK(c.only_new[0] == &fb.entries[0] && c.only_new[1] == &fb.entries[2] &&
          c.only_new[2] == &fb.entries[4]);
    /* Both pairs: 22/12 slower, all samples apart: p = 2/252. */
    CHECK_NEAR(c.rows[0].ratio, 22.0 / 12.0, 1e-12);
    CHECK_NEAR(c.rows[0].test.p, 2.0 / 252.0, 1e-12);
    CHECK(c.rows[0].verdict == GB_VERDICT_SLOWER && c.rows[0].gate_fail);
    CHECK_EQ_INT(c.nfailed, 2);
    gb_compare_free(&c);
    gb_result_file_free(&fa);
    gb_result_file_free(&fb);
}

/* A key measured twice in a file pairs occurrence by occurrence. */
TEST(compare_repeated_keys_pair_in_order)
{
    doc a, b;
    gb_result_file fa, fb;
    gb_compare c;
    gb_compare_opts o = default_opts();
    char err[512];

    doc_begin(&a, "cpu", "-O3", 1);
    doc_entry(&a, "vec_j", "{}", "custom", 16, 1, 0, 12, LOW);
    doc_entry(&a, "vec_j", "{}", "custom", 16, 1, 0, 22, HIGH);
    doc_entry(&a, "vec_j", "{}", "custom", 16, 1, 0, 12, LOW);
    doc_begin(&b, "cpu", "-O3", 1);
    doc_entry(&b, "vec_j", "{}", "custom", 16, 1, 0, 12, LOW);
    doc_entry(&b, "vec_j", "{}", "custom", 16, 1, 0, 22, HIGH);
    CHECK(doc_load(&a, &fa) == 0 && doc_load(&b, &fb) == 0);
    CHECK(gb_compare_files(&fa, &fb, &o, &c, err, sizeof err) == 0);
    CHECK_EQ_INT(c.nrows, 2);
    CHECK(c.rows[0].old_e == &fa.entries[0] && c.rows[0].new_e == &fb.entries[0]);
    CHECK(c.rows[1].old_e == &fa.entries[1] && c.rows[1].new_e == &fb.entries[1]);
    CHECK_NEAR(c.rows[0].ratio, 1.0, 0.0);
    CHECK_NEAR(c.rows[1].ratio, 1.0, 0.0);
    CHECK_EQ_INT(c.nonly_old, 1);
    CHECK(c.only_old[0] == &fa.entries[2]);
    CHECK_EQ_INT(c.nonly_new, 0);
    CHECK_EQ_INT(c.nfailed, 0);
    gb_compare_free(&c);
    gb_result_file_free(&fa);
    gb_result_file_free(&fb);
}

/* Ratios 2, 1/2 and 4 for vec_j on qkv, qkv and mlp_reduce, and 1 for
 * baseline: geometric means (2 * 1/2 * 4)^(1/3) = cbrt 4 (vec_j),
 * 1 (baseline), 1 (qkv: 2, 1/2, 1), 4 (mlp_reduce), and overall
 * (2 * 1/2 * 4 * 1)^(1/4) = sqrt 2. */
TEST(compare_geomeans)
{
    doc a, b;
    gb_result_file fa, fb;
    gb_compare c;
    gb_compare_opts o = default_opts();
    const gb_compare_group *g;
    char err[512];

    doc_begin(&a, "cpu", "-O3", 1);
    doc_entry(&a, "vec_j", "{}", "qkv", 16, 1, 0, 10, LOW);
    doc_entry(&a, "vec_j", "{}", "qkv", 32, 1, 0, 20, LOW);
    doc_entry(&a, "vec_j", "{}", "mlp_reduce", 16, 1, 0, 5, LOW);
    doc_entry(&a, "baseline", "{}", "qkv", 16, 1, 0, 7, LOW);
    doc_begin(&b, "cpu", "-O3", 1);
    doc_entry(&b, "vec_j", "{}", "qkv", 16, 1, 0, 20, HIGH);
    doc_entry(&b, "vec_j", "{}", "qkv", 32, 1, 0, 10, LOW);
    doc_entry(&b, "vec_j", "{}", "mlp_reduce", 16, 1, 0, 20, HIGH);
    doc_entry(&b, "baseline", "{}", "qkv", 16, 1, 0, 7, LOW);
    CHECK(doc_load(&a, &fa) == 0 && doc_load(&b, &fb) == 0);
    CHECK(gb_compare_files(&fa, &fb, &o, &c, err, sizeof err) == 0);

    CHECK_EQ_INT(c.nby_variant, 2);
    CHECK_EQ_INT(c.nby_kernel, 2);
    g = find_group(c.by_variant, c.nby_variant, "vec_j");
    CHECK(g && g->count == 3);
    CHECK_NEAR(g ? g->ratio : 0, cbrt(4.0), 1e-12);
    g = find_group(c.by_variant, c.nby_variant, "baseline");
    CHECK(g && g->count == 1);
    CHECK_NEAR(g ? g->ratio : 0, 1.0, 1e-12);
    g = find_group(c.by_kernel, c.nby_kernel, "qkv");
    CHECK(g && g->count == 3);
    CHECK_NEAR(g ? g->ratio : 0, 1.0, 1e-12);
    g = find_group(c.by_kernel, c.nby_kernel, "mlp_reduce");
    CHECK(g && g->count == 1);
    CHECK_NEAR(g ? g->ratio : 0, 4.0, 1e-12);
    CHECK_EQ_INT(c.overall.count, 4);
    CHECK_NEAR(c.overall.ratio, sqrt(2.0), 1e-12);
    gb_compare_free(&c);
    gb_result_file_free(&fa);
    gb_result_file_free(&fb);
}

/* Verdicts and the gate: direction, threshold, alpha, too few samples. */
TEST(compare_verdicts_and_gate)
{
    doc a, b;
    gb_result_file fa, fb;
    gb_compare c;
    gb_compare_opts o = default_opts();
    char err[512];

    doc_begin(&a, "cpu", "-O3", 1);
    doc_entry(&a, "slower", "{}", "qkv", 16, 1, 0, 12, LOW);
    doc_entry(&a, "faster", "{}", "qkv", 16, 1, 0, 22, HIGH);
    doc_entry(&a, "same", "{}", "qkv", 16, 1, 0, 12, LOW);
    doc_entry(&a, "slight", "{}", "qkv", 16, 1, 0, 100, "98,99,100,101,102");
    doc_entry(&a, "few", "{}", "qkv", 16, 1, 0, 11, "10,11,12");
    doc_begin(&b, "cpu", "-O3", 1);
    doc_entry(&b, "slower", "{}", "qkv", 16, 1, 0, 22, HIGH);
    doc_entry(&b, "faster", "{}", "qkv", 16, 1, 0, 12, LOW);
    doc_entry(&b, "same", "{}", "qkv", 16, 1, 0, 12.5, "10.5,11.5,12.5,13.5,14.5");
    doc_entry(&b, "slight", "{}", "qkv", 16, 1, 0, 104, "102.5,103,104,105,106");
    doc_entry(&b, "few", "{}", "qkv", 16, 1, 0, 31, "30,31,32");
    CHECK(doc_load(&a, &fa) == 0 && doc_load(&b, &fb) == 0);

    CHECK(gb_compare_files(&fa, &fb, &o, &c, err, sizeof err) == 0);
    CHECK(c.rows[0].verdict == GB_VERDICT_SLOWER && c.rows[0].gate_fail);
    CHECK(c.rows[1].verdict == GB_VERDICT_FASTER && !c.rows[1].gate_fail);
    CHECK(c.rows[2].verdict == GB_VERDICT_SAME && !c.rows[2].gate_fail);
    CHECK(c.rows[2].test.p > 0.5);
    /* 4% slower and significant, but inside the 5% threshold. */
    CHECK(c.rows[3].verdict == GB_VERDICT_SLOWER && !c.rows[3].gate_fail);
    /* 3 samples a side: never a verdict, even for a 2.8x slowdown. */
    CHECK(c.rows[4].verdict == GB_VERDICT_TOO_FEW && !c.rows[4].gate_fail);
    CHECK_EQ_INT(c.nfailed, 1);
    CHECK_EQ_INT(c.nslower, 2);
    CHECK_EQ_INT(c.nfaster, 1);
    CHECK_EQ_INT(c.nsame, 1);
    CHECK_EQ_INT(c.ntoo_few, 1);
    CHECK_STR(gb_verdict_word(c.rows[4].verdict), "too few samples");
    gb_compare_free(&c);

    o.threshold_pct = 3.0;
    CHECK(gb_compare_files(&fa, &fb, &o, &c, err, sizeof err) == 0);
    CHECK(c.rows[3].gate_fail);
    CHECK_EQ_INT(c.nfailed, 2);
    gb_compare_free(&c);

    /* Below the smallest p that 5 against 5 samples can give (2/252). */
    o.alpha = 0.005;
    CHECK(gb_compare_files(&fa, &fb, &o, &c, err, sizeof err) == 0);
    CHECK(c.rows[0].verdict == GB_VERDICT_SAME);
    CHECK_EQ_INT(c.nfailed, 0);
    gb_compare_free(&c);

    o = default_opts();
    o.min_samples = 3;
    CHECK(gb_compare_files(&fa, &fb, &o, &c, err, sizeof err) == 0);
    CHECK(c.rows[4].verdict == GB_VERDICT_SAME);   /* p = 2/20 at best */
    CHECK_NEAR(c.rows[4].test.p, 0.1, 1e-12);
    gb_compare_free(&c);
    gb_result_file_free(&fa);
    gb_result_file_free(&fb);
}

TEST(compare_filters)
{
    doc a;
    gb_result_file fa, fb;
    gb_compare c;
    gb_compare_opts o = default_opts();
    char err[512];

    doc_begin(&a, "cpu", "-O3", 1);
    doc_entry(&a, "vec_j", "{}", "qkv", 16, 1, 0, 12, LOW);
    doc_entry(&a, "vec_j", "{}", "mlp_reduce", 16, 1, 0, 12, LOW);
    doc_entry(&a, "baseline", "{}", "qkv", 16, 1, 0, 12, LOW);
    CHECK(doc_load(&a, &fa) == 0 && doc_load(&a, &fb) == 0);

    o.variants = "vec_j";
    CHECK(gb_compare_files(&fa, &fb, &o, &c, err, sizeof err) == 0);
    CHECK_EQ_INT(c.nrows, 2);
    CHECK_EQ_INT(c.nonly_old + c.nonly_new, 0);   /* filtered out, not one-sided */
    gb_compare_free(&c);
    o.variants = "fam_baseline";                    /* a family */
    o.kernels = "qkv,mlp_reduce";
    CHECK(gb_compare_files(&fa, &fb, &o, &c, err, sizeof err) == 0);
    CHECK_EQ_INT(c.nrows, 1);
    gb_compare_free(&c);
    o.variants = "all";
    o.kernels = "mlp_reduce";
    CHECK(gb_compare_files(&fa, &fb, &o, &c, err, sizeof err) == 0);
    CHECK_EQ_INT(c.nrows, 1);
    gb_compare_free(&c);
    o.kernels = "mlp_reduce,qkvv";
    CHECK(gb_compare_files(&fa, &fb, &o, &c, err, sizeof err) == -1);
    CHECK(strstr(err, "--kernel 'qkvv' matches no entry") != NULL);
    o.variants = "baseline";
    o.kernels = "mlp_reduce";                       /* both exist, never together */
    CHECK(gb_compare_files(&fa, &fb, &o, &c, err, sizeof err) == -1);
    CHECK(strstr(err, "no measurement in common after --variant/--kernel") != NULL);
    gb_result_file_free(&fa);
    gb_result_file_free(&fb);
}

/* Header: changed fields listed (nested ones by path), run.started and
 * run.command ignored, identity fields make it cross-machine. */
TEST(compare_header_differences)
{
    doc a, b;
    gb_result_file fa, fb;
    gb_compare c;
    gb_compare_opts o = default_opts();
    char err[512];
    int saw_cflags = 0, saw_cpu = 0;

    doc_begin(&a, "cpu A", "-O3", 1);
    doc_entry(&a, "vec_j", "{}", "qkv", 16, 1, 0, 12, LOW);
    doc_begin(&b, "cpu A", "-O2", 1);
    doc_entry(&b, "vec_j", "{}", "qkv", 16, 1, 0, 12, LOW);
    CHECK(doc_load(&a, &fa) == 0 && doc_load(&b, &fb) == 0);
    CHECK(gb_compare_files(&fa, &fb, &o, &c, err, sizeof err) == 0);
    CHECK_EQ_INT(c.ndiffs, 1);
    if (c.ndiffs == 1) {
        CHECK_STR(c.diffs[0].field, "tool.cflags");
        CHECK_STR(c.diffs[0].old_value, "-O3");
        CHECK_STR(c.diffs[0].new_value, "-O2");
    }
    CHECK(!c.cross_machine);
    gb_compare_free(&c);
    gb_result_file_free(&fb);

    /* doc_begin also writes the CPU name into run.started, which must not
     * show up. */
    doc_begin(&b, "cpu B", "-O2", 1);
    doc_entry(&b, "vec_j", "{}", "qkv", 16, 1, 0, 12, LOW);
    CHECK(doc_load(&b, &fb) == 0);
    CHECK(gb_compare_files(&fa, &fb, &o, &c, err, sizeof err) == 0);
    CHECK_EQ_INT(c.ndiffs, 2);
    for (int i = 0; i < c.ndiffs; i++) {
        saw_cflags |= strcmp(c.diffs[i].field, "tool.cflags") == 0;
        saw_cpu |= strcmp(c.diffs[i].field, "machine.cpu_model") == 0;
        CHECK(strcmp(c.diffs[i].field, "run.started") != 0);
    }
    CHECK(saw_cflags && saw_cpu);
    CHECK(c.cross_machine);
    gb_compare_free(&c);
    gb_result_file_free(&fa);
    gb_result_file_free(&fb);
}

TEST(compare_nothing_in_common_and_zero_median)
{
    doc a, b;
    gb_result_file fa, fb;
    gb_compare c;
    gb_compare_opts o = default_opts();
    char err[512];

    doc_begin(&a, "cpu", "-O3", 1);
    doc_entry(&a, "vec_j", "{}", "qkv", 16, 1, 0, 12, LOW);
    doc_begin(&b, "cpu", "-O3", 2);
    doc_entry(&b, "vec_j", "{}", "qkv", 16, 2, 0, 12, LOW);
    CHECK(doc_load(&a, &fa) == 0 && doc_load(&b, &fb) == 0);
    CHECK(gb_compare_files(&fa, &fb, &o, &c, err, sizeof err) == -1);
    CHECK(strstr(err, "no measurement in common") != NULL);
    CHECK(strstr(err, "ran 1 and 2 threads") != NULL);
    CHECK(c.rows == NULL && c.nrows == 0);
    gb_result_file_free(&fb);

    doc_begin(&b, "cpu", "-O3", 1);
    doc_entry(&b, "vec_j", "{}", "qkv", 16, 1, 0, 0, "0,0,0,1,2");
    CHECK(doc_load(&b, &fb) == 0);
    CHECK(gb_compare_files(&fa, &fb, &o, &c, err, sizeof err) == -1);
    CHECK(strstr(err, "results[0]: \"median_us\" is 0") != NULL);
    gb_result_file_free(&fa);
    gb_result_file_free(&fb);
}
