/* test_output.c - the JSON document: fixed fields, atomic write, and that
 * the reader gets back what the writer wrote. */
#define _GNU_SOURCE
#include "test.h"
#include "variants.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "machine.h"
#include "options.h"
#include "output.h"
#include "resultfile.h"
#include "sha256.h"

static char err[GB_ERR_LEN];

static void fake_result(gb_result *r, double *samples, int n)
{
    memset(r, 0, sizeof *r);
    r->variant = gb_variants[0];
    snprintf(r->label, sizeof r->label, "%s", r->variant->name);
    snprintf(r->shape.kernel, sizeof r->shape.kernel, "qkv");
    r->shape.M = 16;
    r->shape.K = 768;
    r->shape.N = 768;
    r->threads = 2;
    r->reps = n;
    r->samples_us = samples;
    stats_compute(samples, (size_t)n, &r->stats);
    r->gflops = gb_flops(16, 768, 768) / (r->stats.median * 1e3);
    r->peak_pct = NAN;
    r->speedup = NAN;
    r->check = GB_CHECK_PASS;
    r->check_exact = 1;
}

TEST(json_has_fixed_fields_and_round_trips)
{
    static gb_options o;
    gb_machine m;
    gb_result r;
    gb_result_file f;
    double samples[] = { 100, 110, 90, 105, 95 };
    char path[] = "/tmp/gemmbench-json-XXXXXX";
    char *argv[] = { "gemmbench", "--quick" };
    int fd = mkstemp(path);
    const char *fixed_results[] = { "variant", "family", "kernel", "M", "K", "N", "threads",
                                    "reps", "median_us", "min_us", "mean_us", "stddev_us",
                                    "gflops", "check", "params", "samples_us" };
    cJSON *doc, *entry;

    close(fd);
    gb_options_defaults(&o);
    gb_machine_detect(&m);
    doc = gb_json_begin(&m, &o, 2, "2026-01-01T00:00:00Z", 2, argv);
    CHECK(doc != NULL);
    fake_result(&r, samples, 5);
    CHECK(gb_json_add_result(doc, &r) == 0);
    CHECK(gb_json_write_atomic(doc, path, 1, err, sizeof err) == 0);

    entry = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "results"), 0);
    for (size_t i = 0; i < sizeof fixed_results / sizeof fixed_results[0]; i++)
        CHECK(cJSON_GetObjectItemCaseSensitive(entry, fixed_results[i]) != NULL);
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "machine"), "peak_gflops")));
    cJSON_Delete(doc);

    CHECK(gb_result_file_load(path, &f, err, sizeof err) == 0);
    CHECK(f.complete == 1);
    CHECK_EQ_INT(f.nentries, 1);
    CHECK_STR(f.entries[0].variant, "baseline");
    CHECK_EQ_INT(f.entries[0].M, 16);
    CHECK_NEAR(f.entries[0].median_us, 100.0, 0);
    CHECK_NEAR(f.entries[0].min_us, 90.0, 0);
    CHECK_EQ_INT(f.entries[0].nsamples, 5);
    CHECK_NEAR(f.entries[0].samples_us[1], 110.0, 0);
    CHECK(isnan(f.entries[0].speedup));
    CHECK_STR(cJSON_GetObjectItem(f.run, "command")->valuestring, "gemmbench --quick");
    gb_result_file_free(&f);
    unlink(path);
}

TEST(json_write_is_atomic_and_reports_errors)
{
    static gb_options o;
    gb_machine m;
    char *argv[] = { "gemmbench" };
    cJSON *doc;
    struct stat st;

    gb_options_defaults(&o);
    gb_machine_detect(&m);
    doc = gb_json_begin(&m, &o, 1, "x", 1, argv);
    CHECK(gb_json_write_atomic(doc, "/nonexistent-dir/r.json", 0, err, sizeof err) != 0);
    CHECK(strstr(err, "/nonexistent-dir/r.json") != NULL);
    CHECK(stat("/nonexistent-dir", &st) != 0);
    cJSON_Delete(doc);
}

static int write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

TEST(result_reader_rejects_malformed_files)
{
    const char *cases[][2] = {
        { "", "empty file" },
        { "{\"schema\": \"gemmbench/1\", \"complete\": tr", "not valid JSON" },
        { "[1,2]", "not a JSON object" },
        { "{\"schema\": \"other/2\"}", "schema \"other/2\"" },
        { "{\"schema\": \"gemmbench/1\", \"complete\": true, \"tool\": {}, \"machine\": {},"
          " \"run\": {}, \"results\": []}", "no entries" },
        { "{\"schema\": \"gemmbench/1\", \"complete\": true, \"tool\": {}, \"machine\": {},"
          " \"run\": {}, \"results\": [{\"variant\": \"x\"}]}", "missing field" },
        { "{\"schema\": \"gemmbench/1\", \"complete\": true, \"tool\": {}, \"machine\": {},"
          " \"run\": {}, \"results\": [{\"variant\": \"x\", \"family\": \"f\", \"kernel\": \"k\","
          " \"check\": \"pass\", \"M\": 1, \"K\": 1, \"N\": 1, \"threads\": 1, \"reps\": 1,"
          " \"median_us\": -1, \"min_us\": 1, \"mean_us\": 1, \"stddev_us\": 0, \"gflops\": 1,"
          " \"samples_us\": [1]}]}", "\"median_us\" is -1" },
        { "{\"schema\": \"gemmbench/1\", \"complete\": true, \"tool\": {}, \"machine\": {},"
          " \"run\": {}, \"results\": [{\"variant\": \"x\", \"family\": \"f\", \"kernel\": \"k\","
          " \"check\": \"pass\", \"M\": \"1\", \"K\": 1, \"N\": 1, \"threads\": 1, \"reps\": 1,"
          " \"median_us\": 1, \"min_us\": 1, \"mean_us\": 1, \"stddev_us\": 0, \"gflops\": 1,"
          " \"samples_us\": [1]}]}", "\"M\" is not a number" },
    };
    char path[] = "/tmp/gemmbench-bad-XXXXXX";
    int fd = mkstemp(path);
    gb_result_file f;

    close(fd);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK(write_text(path, cases[i][0]) == 0);
        err[0] = '\0';
        CHECK(gb_result_file_load(path, &f, err, sizeof err) != 0);
        if (strstr(err, cases[i][1]) == NULL || strstr(err, path) == NULL) {
            char m[700];
            snprintf(m, sizeof m, "case %zu: '%s' lacks '%s'", i, err, cases[i][1]);
            gb_test_fail(__FILE__, __LINE__, m);
        }
    }
    unlink(path);
    CHECK(gb_result_file_load("/nonexistent.json", &f, err, sizeof err) != 0);
}

/* A result file of one entry whose schedule is text with its hash, the
 * text given as JSON (escapes and all). */
static int write_schedule_file(const char *path, const char *json_text, const char *raw)
{
    unsigned char digest[32];
    char hex[65];
    FILE *f = fopen(path, "w");

    if (!f)
        return -1;
    gb_sha256(raw, strlen(raw), digest);
    gb_sha256_hex(digest, hex);
    fprintf(f, "{\"schema\": \"gemmbench/1\", \"complete\": true, \"tool\": {}, \"machine\": {},"
               " \"run\": {}, \"results\": [{\"variant\": \"sched:s\", \"family\": \"sched\","
               " \"kernel\": \"k\", \"check\": \"pass\", \"M\": 8, \"K\": 8, \"N\": 8,"
               " \"threads\": 1, \"reps\": 1, \"median_us\": 1, \"min_us\": 1, \"mean_us\": 1,"
               " \"stddev_us\": 0, \"gflops\": 1, \"samples_us\": [1], \"sample_rounds\": [1],"
               " \"schedule\": {\"text\": \"%s\", \"sha256\": \"%s\"}}]}", json_text, hex);
    return fclose(f);
}

/* A schedule's newlines, tabs and CRLF line ends are its content: read back
 * as written, its hash still holds after gemmbench ab merges a round into
 * the file and reads it again (the reader once blanked them to '?' and ab
 * failed on every --schedule).  Any other control in it is refused. */
TEST(schedule_text_keeps_its_lines_and_refuses_other_controls)
{
    const char *raw = "# a schedule\n\tloop i\r\nparam mr = model\n";
    char path[] = "/tmp/gemmbench-sched-XXXXXX";
    int fd = mkstemp(path);
    gb_result_file f, round;

    close(fd);
    CHECK(write_schedule_file(path, "# a schedule\\n\\tloop i\\r\\nparam mr = model\\n",
                              raw) == 0);
    CHECK(gb_result_file_load(path, &f, err, sizeof err) == 0);
    CHECK(gb_result_file_load(path, &round, err, sizeof err) == 0);
    if (f.doc && round.doc) {
        const cJSON *sched = cJSON_GetObjectItem(gb_json_result_at(f.doc, 0), "schedule");
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(sched, "text")), raw);
        CHECK(gb_result_file_merge(&f, &round, err, sizeof err) == 0);
        CHECK(f.doc && f.nentries == 1 && f.entries[0].nsamples == 2);
        /* The merged document written and read again, as ab's judge does. */
        CHECK(f.doc && gb_json_write_atomic(f.doc, path, 1, err, sizeof err) == 0);
        gb_result_file_free(&round);
        CHECK(gb_result_file_load(path, &round, err, sizeof err) == 0);
    }
    gb_result_file_free(&f);
    gb_result_file_free(&round);

    /* A control that is not a tab or a line end: refused, with the byte named. */
    CHECK(write_schedule_file(path, "loop i\\u0001\\n", "loop i\x01\n") == 0);
    CHECK(gb_result_file_load(path, &f, err, sizeof err) != 0);
    CHECK(strstr(err, "\"schedule.text\" holds a control character (byte 0x01") != NULL);
    CHECK(write_schedule_file(path, "loop i\\u009b\\n", "loop i\xc2\x9b\n") == 0);
    CHECK(gb_result_file_load(path, &f, err, sizeof err) != 0);
    CHECK(strstr(err, "control character (byte 0xc2") != NULL);
    unlink(path);
}

/* tuned_packed reports packed's parameters: choices by their names, as
 * packed's own entries do (isa=avx2, not isa=1). */
TEST(json_effective_params_name_the_base_variants_choices)
{
    const gb_variant *tp = gb_variant_find("tuned_packed");
    gb_params eff = { 0 };
    cJSON *o;

    CHECK(tp != NULL && tp->base != NULL);
    CHECK(gb_param_set(&eff, "isa", 1) == 0);
    CHECK(gb_param_set(&eff, "kc", 384) == 0);
    CHECK(gb_param_set(&eff, "source", 2) == 0);
    o = gb_params_json(tp, &eff);
    CHECK(o != NULL);
    CHECK(cJSON_IsString(cJSON_GetObjectItem(o, "isa")));
    CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(o, "isa")), "avx2") == 0);
    CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(o, "source")), "rule") == 0);
    CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(o, "kc")) == 384.0);
    cJSON_Delete(o);
}
