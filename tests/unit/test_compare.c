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

/* A file whose tool and machine blocks are the JSON given. */
static void doc_begin_blocks(doc *d, const char *tool, const char *machine)
{
    d->entries = 0;
    d->used = (size_t)snprintf(
        d->text, sizeof d->text,
        "{\"schema\":\"gemmbench/1\",\"complete\":true,\"tool\":%s,\"machine\":%s,"
        "\"run\":{\"started\":\"s\",\"command\":\"x\",\"threads\":1,\"config\":{\"m\":[16]}},"
        "\"results\":[",
        tool, machine);
}

/* Files a and b, each one entry (vec_j, qkv M=16) under the tool and
 * machine blocks given, loaded and compared into c: 0, or -1. */
static int compare_blocks(const char *tool_a, const char *machine_a, const char *tool_b,
                          const char *machine_b, gb_result_file *fa, gb_result_file *fb,
                          gb_compare *c)
{
    gb_compare_opts o = default_opts();
    char err[512];
    doc a, b;

    doc_begin_blocks(&a, tool_a, machine_a);
    doc_entry(&a, "vec_j", "{}", "qkv", 16, 1, 0, 12, LOW);
    doc_begin_blocks(&b, tool_b, machine_b);
    doc_entry(&b, "vec_j", "{}", "qkv", 16, 1, 0, 12, LOW);
    if (doc_load(&a, fa) != 0)
        return -1;
    if (doc_load(&b, fb) != 0) {
        gb_result_file_free(fa);
        return -1;
    }
    return gb_compare_files(fa, fb, &o, c, err, sizeof err);
}

/* Two guests of one model name ("AMD EPYC"), caches and all, whose CPU
 * family differs are two machines: machine.cpu_id is of the hardware's
 * identity.  The same cpu_id on both sides is no difference. */
TEST(compare_cpu_id_tells_two_kinds_apart)
{
    static const char tool[] = "{\"version\":\"0.1.0\"}";
    static const char machine[] =
        "{\"hostname\":\"vm\",\"cpu_model\":\"AMD EPYC\",\"cpu_id\":\"%s\","
        "\"logical_cpus\":2,\"isa\":[\"avx512f\"],\"peak_gflops\":null}";
    char ma[512], mb[512];
    gb_result_file fa, fb;
    gb_compare c;
    gb_compare_opts o = default_opts();
    char err[512];

    snprintf(ma, sizeof ma, machine, "cpu family 25, model 17, stepping 1");
    snprintf(mb, sizeof mb, machine, "cpu family 26, model 2, stepping 1");
    if (compare_blocks(tool, ma, tool, mb, &fa, &fb, &c) != 0) {
        CHECK(!"the two files load and compare");
        return;
    }
    CHECK_EQ_INT(c.ndiffs, 1);
    if (c.ndiffs == 1)
        CHECK_STR(c.diffs[0].field, "machine.cpu_id");
    CHECK(c.cross_machine);
    gb_compare_free(&c);
    CHECK(gb_compare_files(&fa, &fa, &o, &c, err, sizeof err) == 0);
    CHECK_EQ_INT(c.ndiffs, 0);
    CHECK(!c.cross_machine);
    gb_compare_free(&c);
    gb_result_file_free(&fa);
    gb_result_file_free(&fb);
}

/* One differences line a leaf: nested objects by path, a cache level as
 * "2 MiB 16-way", arrays of objects by index, a side that lacks a whole
 * object as "(absent)" at each of the other's leaves, measured calibration
 * ratios left out; printed, no line over 200 characters and no '{' in the
 * block, a long list cut to its first items and its length; the JSON keeps
 * the values whole. */
TEST(compare_header_differences_are_leaves)
{
    static const char tool_a[] =
        "{\"version\":\"0.1.0\",\"libraries\":{\"blis\":{\"version\":\"0.9.0\","
        "\"kernels\":\"haswell\"}}}";
    static const char tool_b[] =
        "{\"version\":\"0.1.0\",\"libraries\":{\"blis\":{\"version\":\"0.9.0\","
        "\"kernels\":\"generic\"},\"openblas\":{\"version\":\"0.3.21\",\"kernels\":\"Haswell\","
        "\"forced_by\":\"OPENBLAS_CORETYPE=Haswell\"}}}";
    char machine_a[4096], machine_b[4096], list_a[1200] = "", list_b[1200] = "";
    gb_result_file fa, fb;
    gb_compare c;
    char *text = NULL;
    size_t len = 0;
    FILE *out;
    int saw_l2 = 0, saw_topo = 0, saw_blis = 0, saw_forced = 0, saw_read = 0, saw_list = 0;

    /* a list of 120 flags: 960 characters on one side */
    for (int i = 0; i < 120; i++) {
        snprintf(list_a + strlen(list_a), sizeof list_a - strlen(list_a), "%s\"f%03d\"",
                 i ? "," : "", i);
        snprintf(list_b + strlen(list_b), sizeof list_b - strlen(list_b), "%s\"g%03d\"",
                 i ? "," : "", i);
    }
    snprintf(machine_a, sizeof machine_a,
             "{\"hostname\":\"h\",\"cpu_model\":\"Xeon\",\"logical_cpus\":2,\"isa\":[\"avx2\"],"
             "\"flags\":[%s],"
             "\"caches\":{\"L2\":{\"size_bytes\":2097152,\"line_bytes\":64,\"ways\":16}},"
             "\"topology\":{\"caches\":[{\"level\":1,\"size_bytes\":49152},"
             "{\"level\":3,\"type\":\"Unified\",\"size_bytes\":272629760,\"ways\":20}]},"
             "\"calibration\":[{\"threads\":2,\"b\":{\"read\":\"copied\",\"ratio\":1.4},"
             "\"small_us\":5.44,\"small_t_us\":4.23}],"
             "\"peak_gflops\":null}", list_a);
    snprintf(machine_b, sizeof machine_b,
             "{\"hostname\":\"h\",\"cpu_model\":\"EPYC\",\"logical_cpus\":2,\"isa\":[\"avx2\"],"
             "\"flags\":[%s],"
             "\"caches\":{\"L2\":{\"size_bytes\":1048576,\"line_bytes\":64,\"ways\":8}},"
             "\"topology\":{\"caches\":[{\"level\":1,\"size_bytes\":49152},"
             "{\"level\":3,\"type\":\"Unified\",\"size_bytes\":532676608,\"ways\":0}]},"
             "\"calibration\":[{\"threads\":2,\"b\":{\"read\":\"in_place\",\"ratio\":1.04},"
             "\"small_us\":5.5,\"small_t_us\":4.5}],"
             "\"peak_gflops\":null}", list_b);
    if (compare_blocks(tool_a, machine_a, tool_b, machine_b, &fa, &fb, &c) != 0) {
        CHECK(!"the two files load and compare");
        return;
    }
    for (int i = 0; i < c.ndiffs; i++) {
        const gb_header_diff *d = &c.diffs[i];
        CHECK(strchr(d->old_value, '{') == NULL && strchr(d->new_value, '{') == NULL);
        CHECK(strstr(d->field, ".ratio") == NULL && strstr(d->field, ".small") == NULL);
        if (strcmp(d->field, "machine.caches.L2") == 0) {
            saw_l2 = 1;
            CHECK_STR(d->old_value, "2 MiB 16-way, 64 B lines");
            CHECK_STR(d->new_value, "1 MiB 8-way, 64 B lines");
        }
        if (strcmp(d->field, "machine.topology.caches[1]") == 0) {
            saw_topo = 1;
            CHECK_STR(d->old_value, "L3 Unified 260 MiB 20-way");
            CHECK_STR(d->new_value, "L3 Unified 508 MiB ways unknown");
        }
        saw_blis |= strcmp(d->field, "tool.libraries.blis.kernels") == 0 &&
                    strcmp(d->new_value, "generic") == 0;
        saw_forced |= strcmp(d->field, "tool.libraries.openblas.forced_by") == 0 &&
                      strcmp(d->old_value, "(absent)") == 0;
        saw_read |= strcmp(d->field, "machine.calibration[0].b.read") == 0;
        saw_list |= strcmp(d->field, "machine.flags") == 0 && d->old_items == 120;
        CHECK(strcmp(d->field, "machine.topology.caches[0]") != 0);   /* the same */
    }
    CHECK(saw_l2 && saw_topo && saw_blis && saw_forced && saw_read && saw_list);
    CHECK(c.cross_machine);

    out = open_memstream(&text, &len);
    CHECK(out && gb_compare_print(out, GB_FMT_TABLE, &c) == 0);
    if (out)
        fclose(out);
    if (text) {
        const char *block = strstr(text, "differences in the tool");
        const char *end = block ? strstr(block, "\ngate: ") : NULL;
        int longest = 0, run = 0;
        CHECK(block && end);
        for (const char *p = text; *p; p++) {
            run = *p == '\n' ? 0 : run + 1;
            if (run > longest)
                longest = run;
        }
        CHECK(longest <= 200);
        CHECK(block && end && memchr(block, '{', (size_t)(end - block)) == NULL);
        CHECK(strstr(text, "f000 f001 f002") && strstr(text, " ... (120 items)"));
        CHECK(strstr(text, "whole in --format json") != NULL);
    }
    free(text);
    {
        cJSON *json = gb_compare_json(&c);
        const cJSON *d;
        int whole = 0;
        cJSON_ArrayForEach(d, cJSON_GetObjectItem(json, "differences")) {
            const cJSON *f = cJSON_GetObjectItem(d, "field");
            if (cJSON_IsString(f) && strcmp(f->valuestring, "machine.flags") == 0)
                whole = cJSON_GetArraySize(cJSON_GetObjectItem(d, "old_value")) == 120 &&
                        strlen(cJSON_GetObjectItem(d, "old")->valuestring) == 120 * 5 - 1;
            if (cJSON_IsString(f) && strcmp(f->valuestring, "machine.caches.L2") == 0)
                whole += cJSON_GetNumberValue(cJSON_GetObjectItem(
                             cJSON_GetObjectItem(d, "new_value"), "size_bytes")) == 1048576;
        }
        CHECK(whole == 2);
        cJSON_Delete(json);
    }
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
