/*
 * test_badinput.c - the parsers refuse what is malformed: list elements that
 * are empty, tuning records whose values the variant's spec does not allow,
 * JSON that is more or other than one document, bench.conf sections that are
 * not exactly [kernel NAME], files that are not regular.  Each case is one of
 * the findings of a malformed-input sweep (README.md, "Bad input").
 */
#define _POSIX_C_SOURCE 200809L
#include "test.h"
#include "variants.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inputfile.h"
#include "options.h"
#include "parse.h"
#include "tune.h"

static char err[GB_ERR_LEN];

static int count_item(const char *item, void *arg)
{
    (void)item;
    ++*(int *)arg;
    return 0;
}

static int split(const char *text)
{
    int n = 0;
    int rc = gb_split_list(text, count_item, &n);
    return rc != 0 ? rc : n;
}

TEST(split_list_refuses_empty_elements)
{
    CHECK_EQ_INT(split("16,32"), 2);
    CHECK_EQ_INT(split("16, 32 64"), 3);
    CHECK_EQ_INT(split(" 16 "), 1);
    CHECK_EQ_INT(split("16,,32"), GB_SPLIT_EMPTY);
    CHECK_EQ_INT(split("16,"), GB_SPLIT_EMPTY);
    CHECK_EQ_INT(split(",16"), GB_SPLIT_EMPTY);
    CHECK_EQ_INT(split("16, ,32"), GB_SPLIT_EMPTY);
    CHECK_EQ_INT(split(""), GB_SPLIT_EMPTY);
    CHECK_EQ_INT(split("  "), GB_SPLIT_EMPTY);
    CHECK(gb_split_why(GB_SPLIT_EMPTY) != NULL && gb_split_why(-1) == NULL);
    char longer[400];
    memset(longer, 'a', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    CHECK_EQ_INT(split(longer), GB_SPLIT_LONG);
}

TEST(m_list_and_params_refuse_empty_and_twice)
{
    int m[GB_MAX_M], nm = 0;
    const gb_variant *v = gb_variant_find("rule_based");
    gb_params p;

    CHECK(gb_parse_m_list("16,,32", m, &nm, err, sizeof err, "--m") != 0);
    CHECK(strstr(err, "empty element") != NULL);
    CHECK(gb_parse_m_list("16 32", m, &nm, err, sizeof err, "--m") == 0 && nm == 2);
    CHECK(gb_params_parse(v, "tk=4,tk=16", &p, err, sizeof err) != 0);
    CHECK(strstr(err, "twice") != NULL);
    CHECK(gb_params_parse(v, "tk=4,", &p, err, sizeof err) != 0);
    CHECK(gb_params_parse(v, "tk=4,tm=8", &p, err, sizeof err) == 0 && p.count == 2);
}

TEST(printable_escapes_and_cuts)
{
    char out[64];

    gb_printable("a\x01\xff\\b", 60, out, sizeof out);
    CHECK_STR(out, "a\\x01\\xff\\x5cb");
    gb_printable("abcdefgh", 3, out, sizeof out);
    CHECK_STR(out, "abc...");
    gb_printable("abcdefgh", 60, out, 5);
    CHECK_STR(out, "abcd");
}

/* Writes text to a new temporary file; its path in path. */
static void write_temp(char *path, const char *text)
{
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
}

/* Loads one record of base with params (a JSON object text): the number of
 * records kept (0 or 1), and the reason of a skipped one in why. */
static int load_record(const char *base, const char *params, char *why, size_t whylen)
{
    char path[] = "/tmp/gemmbench-badrec-XXXXXX", text[1024];
    gb_tuned_set set;
    int kept;

    snprintf(text, sizeof text,
             "{\"schema\": \"gemmbench-tuned/1\", \"records\": [{\"base\": \"%s\", "
             "\"fingerprint\": \"f\", \"M\": 16, \"K\": 768, \"N\": 768, \"params\": %s, "
             "\"median_us\": 1, \"rule_median_us\": 2, \"trials\": 3}]}",
             base, params);
    write_temp(path, text);
    if (gb_tuned_load(path, &set, err, sizeof err) != 0) {
        snprintf(why, whylen, "load failed: %s", err);
        unlink(path);
        return -1;
    }
    kept = set.count;
    snprintf(why, whylen, "%s", set.skipped_why);
    CHECK_EQ_INT(set.count + set.skipped, 1);
    gb_tuned_free(&set);
    unlink(path);
    return kept;
}

TEST(tuned_records_validated_against_the_spec)
{
    static const char *const bad[][3] = {
        /* the two crashes (a choice index past the list), then values the
         * rules used to replace silently under source "record" */
        { "packed", "{\"isa\": 3}", "params.isa" },
        { "packed", "{\"isa\": \"sse\"}", "params.isa" },
        { "rule_based", "{\"unroll_ki\": 7}", "params.unroll_ki" },
        { "packed", "{\"mc\": -100}", "params.mc" },
        { "rule_based", "{\"tk\": -8}", "params.tk" },
        { "rule_based", "{\"tm\": 1e12}", "params.tm" },
        { "rule_based", "{\"tm\": 4.5}", "params.tm" },
        { "rule_based", "{\"tm\": \"4\"}", "params.tm" },
        { "rule_based", "{\"bogus\": 4}", "params.bogus" },
        { "rule_based", "[4]", "params" },
        { "packed", "{\"bpack\": \"prepacked\"}", "bpack" },
        { "nope", "{}", "base" },
    };
    char why[600];

    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int kept = load_record(bad[i][0], bad[i][1], why, sizeof why);
        CHECK_EQ_INT(kept, 0);
        if (strstr(why, "records[0]") == NULL || strstr(why, bad[i][2]) == NULL)
            gb_test_fail(__FILE__, __LINE__, why);
    }
    CHECK_EQ_INT(load_record("rule_based", "{\"tm\": 32, \"unroll_ki\": \"off\"}", why,
                             sizeof why), 1);
    CHECK_EQ_INT(load_record("packed", "{\"mc\": 96, \"isa\": \"portable\"}", why,
                             sizeof why), 1);
}

TEST(strict_json_refuses_what_cjson_lets_through)
{
    static const char *const bad[] = {
        "{\"a\": 1} x", "{\"a\": 1}{\"a\": 1}", "{\"a\": 1} {}", "{\"a\": 1, \"a\": 2}",
        "{\"b\": {\"a\": 1, \"a\": 1}}", "{\"a\": 1e999}", "[-1e400]", "1e999", "", "{",
    };
    char why[256];
    cJSON *doc;

    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        doc = gb_json_parse_strict(bad[i], why, sizeof why);
        if (doc != NULL)
            gb_test_fail(__FILE__, __LINE__, bad[i]);
        cJSON_Delete(doc);
    }
    doc = gb_json_parse_strict(" {\"a\": [1, 2], \"b\": {\"a\": 1}}\n\t ", why, sizeof why);
    CHECK(doc != NULL);
    cJSON_Delete(doc);
    doc = gb_json_parse_strict("{\"a\": 1, \"a\": 2}", why, sizeof why);
    CHECK(doc == NULL && strstr(why, "twice") != NULL);
    /* The key quoted is the file's: escaped, never a raw control byte. */
    doc = gb_json_parse_strict("{\"\\u001b[2J\x0f\": 1, \"\\u001b[2J\x0f\": 2}", why,
                               sizeof why);
    CHECK(doc == NULL && strstr(why, "\\x1b[2J") != NULL);
    for (const char *c = why; *c; c++)
        CHECK(*c >= 0x20 && *c < 0x7f);
}

TEST(read_regular_refuses_fifo_directory_and_nul)
{
    char dir[] = "/tmp/gemmbench-nonreg-XXXXXX", fifo[64], file[64];
    char *text;

    CHECK(mkdtemp(dir) != NULL);
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    snprintf(file, sizeof file, "%s/nul", dir);
    CHECK(mkfifo(fifo, 0600) == 0);
    /* no writer: a blocking open would hang here */
    text = gb_read_regular(fifo, 1024, err, sizeof err);
    CHECK(text == NULL && errno == EINVAL && strstr(err, "not a regular file") != NULL);
    text = gb_read_regular(dir, 1024, err, sizeof err);
    CHECK(text == NULL && errno == EISDIR);
    text = gb_read_regular("/dev/zero", 1024, err, sizeof err);
    CHECK(text == NULL);
    FILE *f = fopen(file, "wb");
    fwrite("ab\0cd", 1, 5, f);
    fclose(f);
    text = gb_read_regular(file, 1024, err, sizeof err);
    CHECK(text == NULL && strstr(err, "NUL") != NULL);
    text = gb_read_regular(file, 2, err, sizeof err);
    CHECK(text == NULL && strstr(err, "larger") != NULL);
    unlink(file);
    unlink(fifo);
    rmdir(dir);
}

TEST(config_section_names_exact)
{
    static const char *const bad[] = {
        "[kernel foo bar]\nk = 8\nn = 8\n", "[kernel foo]]\nk = 8\nn = 8\n",
        "[kernel]\n", "[kernelfoo]\n", "[kernel foo] x\n", "[kernel f,o]\n",
    };
    char path[] = "/tmp/gemmbench-conf-XXXXXX";
    gb_options o;

    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        strcpy(path, "/tmp/gemmbench-conf-XXXXXX");
        write_temp(path, bad[i]);
        gb_options_defaults(&o);
        if (gb_config_load(&o, path, err, sizeof err) == 0)
            gb_test_fail(__FILE__, __LINE__, bad[i]);
        unlink(path);
    }
    strcpy(path, "/tmp/gemmbench-conf-XXXXXX");
    /* a byte-order mark, and a section with blanks inside its brackets */
    write_temp(path, "\xef\xbb\xbfreps = 3\n[ kernel  foo ]\nk = 8\nn = 8\n");
    gb_options_defaults(&o);
    CHECK(gb_config_load(&o, path, err, sizeof err) == 0);
    CHECK_EQ_INT(o.reps, 3);
    CHECK_EQ_INT(o.ncustom, 1);
    unlink(path);
    strcpy(path, "/tmp/gemmbench-conf-XXXXXX");
    /* binary bytes are escaped in the message, never echoed */
    write_temp(path, "re\x01ps = 3\n");
    gb_options_defaults(&o);
    CHECK(gb_config_load(&o, path, err, sizeof err) != 0);
    CHECK(strstr(err, "\\x01") != NULL && strchr(err, '\x01') == NULL);
    unlink(path);
}
