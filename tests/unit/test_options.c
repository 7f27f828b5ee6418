/* test_options.c - number parsing, bench.conf, the CLI and its precedence. */
#define _GNU_SOURCE
#include "test.h"
#include "variants.h"

#include <stdlib.h>
#include <unistd.h>

#include "options.h"
#include "parse.h"

static char err[GB_ERR_LEN];

TEST(parse_numbers_strictly)
{
    long l;
    double d;
    CHECK(gb_parse_long("42", 1, 100, &l) == 0 && l == 42);
    CHECK(gb_parse_long("12abc", 1, 100, &l) != 0);
    CHECK(gb_parse_long("", 1, 100, &l) != 0);
    CHECK(gb_parse_long(" 5", 1, 100, &l) != 0);
    CHECK(gb_parse_long("0", 1, 100, &l) != 0);
    CHECK(gb_parse_long("-5", 1, 100, &l) != 0);
    CHECK(gb_parse_long("99999999999999999999", 1, 100, &l) != 0);
    CHECK(gb_parse_double("0.5", 0, 1, &d) == 0 && d == 0.5);
    CHECK(gb_parse_double("nan", 0, 1, &d) != 0);
    CHECK(gb_parse_double("inf", 0, 1e9, &d) != 0);
    CHECK(gb_parse_double("1e", 0, 10, &d) != 0);
}

static int join_item(const char *item, void *arg)
{
    char *out = arg;
    strcat(out, "<");
    strcat(out, item);
    strcat(out, ">");
    return 0;
}

TEST(split_list_keeps_bracketed_commas)
{
    char out[256];

    out[0] = '\0';
    CHECK(gb_split_list(" a,b  c , d", join_item, out) == 0);
    CHECK(strcmp(out, "<a><b><c><d>") == 0);
    out[0] = '\0';
    CHECK(gb_split_list("rule_based[tm=4,tn=8],packed+prepack,x[a=1, b=2]", join_item, out) == 0);
    CHECK(strcmp(out, "<rule_based[tm=4,tn=8]><packed+prepack><x[a=1, b=2]>") == 0);
    /* An unclosed bracket runs to the end: one item, which then matches
     * nothing and is reported by the caller. */
    out[0] = '\0';
    CHECK(gb_split_list("a[b,c", join_item, out) == 0);
    CHECK(strcmp(out, "<a[b,c>") == 0);
}

TEST(parse_shapes)
{
    int M, K, N;
    CHECK(gb_parse_shape("16x768x3072", &M, &K, &N) == 0);
    CHECK_EQ_INT(M, 16);
    CHECK_EQ_INT(K, 768);
    CHECK_EQ_INT(N, 3072);
    CHECK(gb_parse_shape("0x5x5", &M, &K, &N) != 0);
    CHECK(gb_parse_shape("4x4", &M, &K, &N) != 0);
    CHECK(gb_parse_shape("4xx4x4", &M, &K, &N) != 0);
    CHECK(gb_parse_shape("4x4x4x4", &M, &K, &N) != 0);
    CHECK(gb_parse_shape("4x4x", &M, &K, &N) != 0);
    CHECK(gb_parse_shape("4x4x1000001", &M, &K, &N) != 0);
}

/* Runs the CLI parser from a directory without bench.conf. */
static int parse(gb_options *o, int argc, char **argv)
{
    gb_options_defaults(o);
    return gb_cli_parse(o, argc, argv, err, sizeof err);
}

static char *write_conf(const char *text)
{
    static char path[64];
    FILE *f;
    strcpy(path, "/tmp/gemmbench-test-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

/* An empty configuration file (--config takes regular files only), removed
 * when the tests end. */
static char empty_path[64];

static void remove_empty_conf(void)
{
    unlink(empty_path);
}

static char *empty_conf(void)
{
    if (empty_path[0] == '\0') {
        char *p = write_conf("");
        snprintf(empty_path, sizeof empty_path, "%s", p ? p : "");
        atexit(remove_empty_conf);
    }
    return empty_path;
}

TEST(cli_defaults_and_flags)
{
    static gb_options o;
    char *argv1[] = { "gemmbench", "--config", empty_conf(), NULL };
    char *argv2[] = { "gemmbench", "--config", empty_conf(), "-v", "baseline", "--variant",
                      "parallel", "--m", "7,9", "--m", "11", "-t", "2", "--reps", "9",
                      "--max-time", "0.5", "--format", "csv", "--param", "a=1", "-p", "b=2",
                      NULL };
    CHECK(parse(&o, 3, argv1) == 0);
    CHECK_EQ_INT(o.warmup, 5);
    CHECK_EQ_INT(o.reps, 50);
    CHECK_EQ_INT(o.nm, 8);
    CHECK_STR(o.variants, "all");
    CHECK(parse(&o, 23, argv2) == 0);
    CHECK_STR(o.variants, "baseline,parallel");
    CHECK_EQ_INT(o.nm, 3);
    CHECK_EQ_INT(o.m[2], 11);
    CHECK_EQ_INT(o.threads, 2);
    CHECK_EQ_INT(o.reps, 9);
    CHECK_NEAR(o.max_time, 0.5, 0);
    CHECK(o.format == GB_FMT_CSV);
    /* each --param is a set of its own */
    CHECK_EQ_INT(o.nparam_sets, 2);
    CHECK_STR(o.param_sets[0], "a=1");
    CHECK_STR(o.param_sets[1], "b=2");
}

TEST(cli_rejects_bad_values)
{
    static gb_options o;
    char *bad[][4] = {
        { "gemmbench", "--m", "0", NULL },       { "gemmbench", "--m", "12abc", NULL },
        { "gemmbench", "--threads", "0", NULL }, { "gemmbench", "--reps", "0", NULL },
        { "gemmbench", "--shape", "4x4", NULL }, { "gemmbench", "--format", "xml", NULL },
        { "gemmbench", "--bogus", NULL, NULL },  { "gemmbench", "--reps", NULL, NULL },
        { "gemmbench", "stray", NULL, NULL },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int argc = 0;
        while (argc < 4 && bad[i][argc])
            argc++;
        /* --config first, so a missing value at the end stays missing */
        char *full[6] = { bad[i][0], "--config", empty_conf(), bad[i][1], bad[i][2], NULL };
        err[0] = '\0';
        CHECK(parse(&o, argc + 2, full) != 0);
        CHECK(err[0] != '\0');
    }
}

TEST(precedence_defaults_conf_quick_cli)
{
    static gb_options o;
    char *path = write_conf("reps = 20\nwarmup = 3\nm = 64 128\nmax_time = 4\n");
    char *argv1[] = { "gemmbench", "--config", path, NULL };
    char *argv2[] = { "gemmbench", "--reps", "7", "--config", path, NULL };
    char *argv3[] = { "gemmbench", "--config", path, "--quick", "--reps", "11", NULL };
    CHECK(path != NULL);
    CHECK(parse(&o, 3, argv1) == 0);
    CHECK_EQ_INT(o.reps, 20);
    CHECK_EQ_INT(o.warmup, 3);
    CHECK_EQ_INT(o.nm, 2);
    /* the CLI wins over the file wherever it stands on the line */
    CHECK(parse(&o, 5, argv2) == 0);
    CHECK_EQ_INT(o.reps, 7);
    CHECK_EQ_INT(o.warmup, 3);
    /* --quick overrides the file; explicit flags override --quick */
    CHECK(parse(&o, 6, argv3) == 0);
    CHECK_EQ_INT(o.reps, 11);
    CHECK_EQ_INT(o.warmup, 1);
    CHECK_EQ_INT(o.m[0], 16);
    unlink(path);
}

TEST(config_errors_name_file_and_line)
{
    static gb_options o;
    const char *cases[][2] = {
        { "reps = 5\n\n# c\nbogus = 1\n", ":4: unknown key 'bogus'" },
        { "reps = five\n", ":1: reps" },
        { "reps\n", ":1: expected 'key = value'" },
        { "m = 16 0\n", ":1: m" },
        { "variants = nope\n", ":1: unknown variant" },
        { "kernels = qkv, nope\n", ":1: unknown kernel 'nope'" },
        { "[kernel a]\nk = 4\n", ":1: [kernel a] needs both k and n" },
        { "[kernel qkv]\nk = 4\nn = 4\n", ":1: kernel 'qkv' is built in" },
        { "[section]\n", ":1: expected a section" },
        { "[kernel b]\nk = 4\nn = 4\nwarmup = 3\n", ":4: unknown key 'warmup' in a [kernel]" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *path = write_conf(cases[i][0]);
        gb_options_defaults(&o);
        err[0] = '\0';
        CHECK(gb_config_load(&o, path, err, sizeof err) != 0);
        if (strstr(err, path) == NULL || strstr(err, cases[i][1]) == NULL) {
            char m[700];
            snprintf(m, sizeof m, "case %zu: '%s' lacks '%s'", i, err, cases[i][1]);
            gb_test_fail(__FILE__, __LINE__, m);
        }
        unlink(path);
    }
    CHECK(gb_config_load(&o, "/nonexistent/bench.conf", err, sizeof err) != 0);
    CHECK(strstr(err, "/nonexistent/bench.conf") != NULL);
}

TEST(config_custom_kernels_and_shapes)
{
    static gb_options o;
    static gb_shape shapes[GB_MAX_SHAPES];
    char *path = write_conf("kernels = tiny, qkv  # later section is fine\nm = 1 2\n"
                            "[kernel tiny]\nk = 3\nn = 5\nm = 9\n");
    gb_options_defaults(&o);
    CHECK(gb_config_load(&o, path, err, sizeof err) == 0);
    CHECK_EQ_INT(o.ncustom, 1);
    CHECK_EQ_INT(gb_shapes_build(&o, shapes, GB_MAX_SHAPES, err, sizeof err), 3);
    CHECK_STR(shapes[0].kernel, "tiny");
    CHECK_EQ_INT(shapes[0].M, 9);
    CHECK_EQ_INT(shapes[0].K, 3);
    CHECK_EQ_INT(shapes[0].N, 5);
    CHECK_STR(shapes[2].kernel, "qkv");
    CHECK_EQ_INT(shapes[2].M, 2);
    CHECK_EQ_INT(shapes[2].N, 768);
    /* "all" is the three BERT kernels, not the custom ones */
    strcpy(o.kernels, "all");
    CHECK_EQ_INT(gb_shapes_build(&o, shapes, GB_MAX_SHAPES, err, sizeof err), 6);
    unlink(path);
}

TEST(variant_selection)
{
    const gb_variant *picked[256];
    int n = gb_variants_select("all", picked, 256, err, sizeof err);
    CHECK_EQ_INT(n, (int)gb_variant_count);
    n = gb_variants_select("baseline,baseline", picked, 256, err, sizeof err);
    CHECK_EQ_INT(n, 1);
    /* a variant name wins over the family of the same name */
    n = gb_variants_select("parallel", picked, 256, err, sizeof err);
    CHECK_EQ_INT(n, 1);
    CHECK_STR(picked[0]->name, "parallel");
    n = gb_variants_select("family:parallel", picked, 256, err, sizeof err);
    CHECK(n > 1);
    for (int i = 0; i < n; i++)
        CHECK_STR(picked[i]->family, "parallel");
    /* a bare family name that is no variant's name */
    n = gb_variants_select("ktile", picked, 256, err, sizeof err);
    CHECK_EQ_INT(n, 5);
    CHECK_STR(picked[0]->name, "k4");
    CHECK(gb_variants_select("family:nope", picked, 256, err, sizeof err) < 0);
    CHECK(gb_variants_select("nope", picked, 256, err, sizeof err) < 0);
    CHECK(strstr(err, "'nope'") != NULL);
}

/* A variant with parameters, to test --param parsing independent of the table. */
static const char *const isa_choices[] = { "avx512", "avx2", "portable", NULL };
static const gb_param_spec demo_params[] = {
    { "tk", 1, 64, NULL, "k tile" },
    { "isa", 0, 2, isa_choices, "path" },
    { NULL, 0, 0, NULL, NULL },
};
static int demo_run(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                    float *C, int ldc, const gb_ctx *ctx)
{
    (void)M, (void)N, (void)K, (void)A, (void)lda, (void)B, (void)ldb, (void)C, (void)ldc;
    (void)ctx;
    return 0;
}

TEST(params_parse_and_format)
{
    gb_variant demo = { .name = "demo", .family = "test", .description = "", .run = demo_run,
                        .params = demo_params };
    gb_params p;
    char buf[128];
    CHECK(gb_params_parse(&demo, "tk=16,isa=avx2", &p, err, sizeof err) == 0);
    CHECK_EQ_INT(gb_param_get(&p, "tk", 8), 16);
    CHECK_EQ_INT(gb_param_get(&p, "isa", 0), 1);
    CHECK_EQ_INT(gb_param_get(&p, "other", 5), 5);
    gb_params_format(&demo, &p, buf, sizeof buf);
    CHECK_STR(buf, "tk=16,isa=avx2");
    CHECK(gb_params_parse(&demo, "tk=0", &p, err, sizeof err) != 0);
    CHECK(gb_params_parse(&demo, "tk=65", &p, err, sizeof err) != 0);
    CHECK(gb_params_parse(&demo, "tk=1x", &p, err, sizeof err) != 0);
    CHECK(gb_params_parse(&demo, "isa=sse", &p, err, sizeof err) != 0);
    CHECK(gb_params_parse(&demo, "nope=1", &p, err, sizeof err) != 0);
    CHECK(strstr(err, "tk, isa") != NULL);
    CHECK(gb_params_parse(&demo, "tk", &p, err, sizeof err) != 0);
    CHECK(gb_params_parse(&demo, "", &p, err, sizeof err) == 0 && p.count == 0);
}
