/*
 * test_run_story.c - the lines a run ends with (run_story.c), on small
 * result files whose figures are known: the study's steps as a geometric
 * mean over the shapes, packed and the fastest reference, pre-packed and
 * failed entries left out, the flags and the next commands.
 */
#define _GNU_SOURCE
#include "test.h"

#include "run_story.h"

#include <stdlib.h>
#include <unistd.h>

/* "variant family kernel M median_us peak_pct check [prepack]" entries. */
static char *story_of(const char *entries, const char *extra)
{
    char path[] = "/tmp/gemmbench-test-story-XXXXXX", err[512], *text = NULL;
    size_t len = 0;
    gb_result_file f;
    FILE *out;
    int fd = mkstemp(path);

    if (fd < 0)
        return NULL;
    dprintf(fd,
            "{\"schema\":\"gemmbench/1\",\"complete\":true,"
            "\"tool\":{\"version\":\"0.1.0\"},\"machine\":{\"cpu_model\":\"c\",\"peak_gflops\":100},"
            "\"run\":{\"started\":\"s\",\"threads\":2}%s,\"results\":[%s]}\n",
            extra, entries);
    close(fd);
    if (gb_result_file_load(path, &f, err, sizeof err) != 0) {
        printf("  load failed: %s\n", err);
        unlink(path);
        return NULL;
    }
    out = open_memstream(&text, &len);
    if (out) {
        gb_run_story(out, &f, "results/x.json");
        fclose(out);
    }
    gb_result_file_free(&f);
    unlink(path);
    return text;
}

#define E(variant, family, kernel, M, median, peak, check, prepack, stddev)                    \
    "{\"variant\":\"" variant "\",\"family\":\"" family "\",\"kernel\":\"" kernel "\","          \
    "\"M\":" #M ",\"K\":8,\"N\":8,\"threads\":2,\"prepack\":" prepack ",\"reps\":5,"             \
    "\"median_us\":" #median ",\"min_us\":1,\"mean_us\":" #median ",\"stddev_us\":" #stddev ","  \
    "\"gflops\":" #peak ",\"peak_pct\":" #peak ",\"check\":\"" check "\",\"params\":{},"         \
    "\"samples_us\":[" #median "]}"

TEST(run_story_steps_limit_and_next)
{
    /* qkv: baseline/rule_based 8x at M=16 and 2x at M=64 (geomean 4x);
     * packed 2x rule_based at both; onednn beats openblas, packed 1.25x
     * onednn; a pre-packed packed 100x faster and a failed blis entry that
     * would be fastest are left out. */
    static const char entries[] =
        E("baseline", "baseline", "qkv", 16, 800, 1, "pass", "false", 0) ","
        E("rule_based", "rule_based", "qkv", 16, 100, 8, "pass", "false", 0) ","
        E("packed", "packed", "qkv", 16, 50, 16, "pass", "false", 0) ","
        E("packed", "packed", "qkv", 16, 0.5, 99, "pass", "true", 0) ","
        E("openblas", "reference", "qkv", 16, 100, 8, "pass", "false", 0) ","
        E("onednn", "reference", "qkv", 16, 62.5, 12.8, "pass", "false", 0) ","
        E("blis", "reference", "qkv", 16, 1, 99, "fail", "false", 0) ","
        E("baseline", "baseline", "qkv", 64, 800, 4, "pass", "false", 0) ","
        E("rule_based", "rule_based", "qkv", 64, 400, 8, "pass", "false", 300) ","
        E("packed", "packed", "qkv", 64, 200, 16, "pass", "false", 0) ","
        E("openblas", "reference", "qkv", 64, 400, 8, "pass", "false", 0) ","
        E("onednn", "reference", "qkv", 64, 250, 12.8, "pass", "false", 0) ","
        E("packed", "packed", "mlp_expand", 16, 10, 50, "pass", "false", 0);
    char *text = story_of(entries, ",\"skipped\":[{\"variant\":\"k8\",\"dtype\":\"bf16\","
                                   "\"reason\":\"f32 only\"}]");

    CHECK(text != NULL);
    if (text == NULL)
        return;
    CHECK(strstr(text, "summary at 2 threads") != NULL);
    CHECK(strstr(text, "  qkv         baseline -> rule_based: 4x (2x..8x over 2 shapes), "
                       "2.0% -> 8.0% of peak\n") != NULL);
    CHECK(strstr(text, "packed: 16.0% of peak, 2x rule_based's speed\n") != NULL);
    CHECK(strstr(text, "fastest reference: onednn 12.8% of peak; packed 1.25x its speed\n") !=
          NULL);
    /* a kernel with packed alone: its line starts with its name */
    CHECK(strstr(text, "  mlp_expand  packed: 50.0% of peak\n") != NULL);
    CHECK(strstr(text, "1 entry FAILED verification (the first: blis qkv M=16)") != NULL);
    CHECK(strstr(text, "1 of 13 entries with CV above 10%") != NULL);
    CHECK(strstr(text, "skipped: 1 variant and type pair") != NULL);
    CHECK(strstr(text, "next: make plots PLOT_FILE=results/x.json") != NULL);
    CHECK(strstr(text, "gemmbench report results/x.json") != NULL);
    CHECK(strstr(text, "99") == NULL);     /* neither prepack nor the failed entry */
    free(text);
}

/* A run of neither the steps nor packed nor a reference: what ran, at what
 * speed (geometric mean of %peak over its shapes), and what to add. */
TEST(run_story_nothing_to_compare)
{
    static const char entries[] =
        E("rule_based", "rule_based", "qkv", 16, 10, 8, "pass", "false", 0) ","
        E("rule_based", "rule_based", "qkv", 64, 10, 2, "pass", "false", 0) ","
        E("rule_based", "rule_based", "qkv", 96, 10, 99, "fail", "false", 0);
    char *text = story_of(entries, "");

    CHECK(text && strstr(text, "  qkv  rule_based: 4.0% of peak (2 shapes); add baseline, "
                               "packed or a reference library to --variant to compare\n") != NULL);
    CHECK(text && strstr(text, "neither") == NULL);
    free(text);
}

/* Five labels alone: four named in file order, then "and 1 more". */
TEST(run_story_nothing_to_compare_many)
{
    static const char entries[] =
        E("vec_j", "vectorized", "qkv", 16, 10, 5, "pass", "false", 0) ","
        E("k16", "tiled", "qkv", 16, 10, 1, "pass", "false", 0) ","
        E("vec_j", "vectorized", "qkv", 64, 10, 5, "pass", "false", 0) ","
        E("tvm_blocking", "tutorial", "qkv", 16, 10, 2, "pass", "false", 0) ","
        E("tvm_packing", "tutorial", "qkv", 16, 10, 3, "pass", "false", 0) ","
        E("tvm_parallel", "tutorial", "qkv", 16, 10, 4, "pass", "false", 0);
    char *text = story_of(entries, "");

    CHECK(text && strstr(text, "  qkv  vec_j: 5.0% of peak (2 shapes), k16: 1.0% of peak (1 "
                               "shape), tvm_blocking: 2.0% of peak (1 shape), tvm_packing: "
                               "3.0% of peak (1 shape) and 1 more; add baseline") != NULL);
    CHECK(text && strstr(text, "tvm_parallel") == NULL);
    CHECK(text && strstr(text, "flagged") == NULL);
    free(text);
}

/* Only a pre-packed entry: nothing per call to summarise, said so. */
TEST(run_story_nothing_per_call)
{
    char *text = story_of(E("packed", "packed", "qkv", 16, 10, 5, "pass", "true", 0), "");

    CHECK(text && strstr(text, "  qkv  nothing to summarise (every entry pre-packed or failed "
                               "its check)\n") != NULL);
    free(text);
}

/* An entry above its roof: flagged, its figure not given. */
TEST(run_story_roof_measured_low)
{
    static const char entries[] =
        "{\"variant\":\"packed\",\"family\":\"packed\",\"kernel\":\"qkv\",\"M\":16,"
        "\"K\":8,\"N\":8,\"threads\":2,\"prepack\":false,\"reps\":1,\"median_us\":1,"
        "\"min_us\":1,\"mean_us\":1,\"stddev_us\":0,\"gflops\":30,\"peak_pct\":30,"
        "\"check\":\"pass\",\"params\":{},\"samples_us\":[1],\"intensity\":1,"
        "\"roof\":\"memory\",\"attainable_gflops\":10,\"roof_pct\":300}";
    char *text = story_of(entries, "");

    CHECK(text && strstr(text, "flagged: 1 entry beat its roof: a bandwidth measured low") != NULL);
    CHECK(text && strstr(text, "300") == NULL);
    free(text);
}
