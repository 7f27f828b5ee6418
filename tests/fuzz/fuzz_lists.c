/*
 * fuzz_lists.c - the number and list parsers of the command line: the first
 * byte picks the parser, the rest is its text.  --m and --shape go through
 * gb_parse_m_list and gb_parse_shape, --threads and --param through the
 * whole command-line parser (gb_cli_parse), --variant and the filters of
 * compare and report through their own list readers.
 */
#include "filter.h"
#include "fuzz_util.h"
#include "options.h"
#include "variants.h"
#include "parse.h"

static char config_path[64];

static void remove_config(void)
{
    unlink(config_path);
}

/* An empty bench.conf (removed at exit), so that ./bench.conf plays no part. */
static const char *empty_config(void)
{
    if (config_path[0] == '\0') {
        FILE *f;
        snprintf(config_path, sizeof config_path, "/tmp/gemmbench-fuzz-%ld.conf",
                 (long)getpid());
        f = fopen(config_path, "w");
        if (f == NULL || fclose(f) != 0)
            abort();
        atexit(remove_config);
    }
    return config_path;
}

static void cli(const char *flag, const char *value)
{
    static gb_options o;
    char err[GB_ERR_LEN];
    char *argv[] = { "gemmbench", "--config", (char *)empty_config(), (char *)flag,
                     (char *)value, NULL };

    gb_options_defaults(&o);
    if (gb_cli_parse(&o, 5, argv, err, sizeof err) != 0 && err[0] == '\0')
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[GB_ERR_LEN];
    char *text;
    int m[GB_MAX_M], nm, M, K, N;
    long l;
    double d;

    if (size == 0)
        return 0;
    text = fuzz_string(data + 1, size - 1);
    switch (data[0] % 8) {
    case 0:
        if (gb_parse_m_list(text, m, &nm, err, sizeof err, "--m") == 0 &&
            (nm < 1 || nm > GB_MAX_M))
            abort();
        break;
    case 1:
        if (gb_parse_shape(text, &M, &K, &N) == 0 &&
            (M < 1 || K < 1 || N < 1 || M > GB_MAX_DIM || K > GB_MAX_DIM || N > GB_MAX_DIM))
            abort();
        break;
    case 2:
        cli("--threads", text);
        break;
    case 3:
        cli("--param", text);
        break;
    case 4: {
        const gb_variant *picked[256];
        gb_variants_select(text, picked, 256, err, sizeof err);
        for (size_t i = 0; i < gb_variant_count; i++) {
            gb_params p;
            if (gb_params_parse(gb_variants[i], text, &p, err, sizeof err) == 0) {
                char shown[512];
                gb_params_format(gb_variants[i], &p, shown, sizeof shown);
            }
        }
        break;
    }
    case 5: {
        gb_filter f;
        gb_filter_init(&f);
        gb_filter_add(&f, GB_FILTER_VARIANT, text, err, sizeof err);
        gb_filter_add(&f, GB_FILTER_KERNEL, text, err, sizeof err);
        gb_filter_free(&f);
        break;
    }
    case 6:
        gb_parse_long(text, -1000000, 1000000, &l);
        gb_parse_double(text, 0.0, 86400.0, &d);
        break;
    default:
        cli("--m", text);
        break;
    }
    free(text);
    return 0;
}
