/*
 * test_round_clocks.c - what the machine did during each round (result.h:
 * gb_round_clock): measured by the harness, merged with the rounds, written
 * and read back (resultfile.h: gb_entry_round_clock, gb_entry_steal),
 * refused when malformed, and said by compare beside its verdicts.
 */
#define _GNU_SOURCE
#include "test.h"
#include "variants.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "compare.h"
#include "harness.h"
#include "options.h"
#include "output.h"
#include "resultfile.h"

static volatile sig_atomic_t no_stop;

/* A file of one entry with six one-sample rounds, clocks given as JSON
 * (NULL: none, an older file). */
static int write_entry_file(const char *path, const char *clocks)
{
    FILE *f = fopen(path, "w");

    if (!f)
        return -1;
    fprintf(f, "{\"schema\": \"gemmbench/1\", \"complete\": true, \"tool\": {}, \"machine\": {},"
               " \"run\": {\"rounds\": 6}, \"results\": [{\"variant\": \"v\", \"family\": \"f\","
               " \"kernel\": \"k\", \"check\": \"pass\", \"M\": 8, \"K\": 8, \"N\": 8,"
               " \"threads\": 2, \"reps\": 6, \"median_us\": 10, \"min_us\": 10,"
               " \"mean_us\": 10, \"stddev_us\": 0, \"gflops\": 1,"
               " \"samples_us\": [10, 10, 10, 10, 10, 10],"
               " \"sample_rounds\": [1, 2, 3, 4, 5, 6]%s%s}]}",
            clocks ? ", \"round_clocks\": " : "", clocks ? clocks : "");
    return fclose(f);
}

/* Six rounds, round 4 under 0.02 s of steal (when steal is 1). */
static const char *six_rounds(int steal)
{
    return steal ? "[{\"round\": 1, \"wall_s\": 0.02, \"cpu_s\": 0.04, \"steal_s\": 0, \"nivcsw\": 0},"
                   " {\"round\": 2, \"wall_s\": 0.02, \"cpu_s\": 0.04, \"steal_s\": 0, \"nivcsw\": 1},"
                   " {\"round\": 3, \"wall_s\": 0.02, \"cpu_s\": 0.04, \"steal_s\": 0, \"nivcsw\": 0},"
                   " {\"round\": 4, \"wall_s\": 0.03, \"cpu_s\": 0.04, \"steal_s\": 0.02, \"nivcsw\": 0},"
                   " {\"round\": 5, \"wall_s\": 0.02, \"cpu_s\": 0.04, \"steal_s\": 0, \"nivcsw\": 0},"
                   " {\"round\": 6, \"wall_s\": 0.02, \"cpu_s\": 0.04, \"steal_s\": null, \"nivcsw\": null}]"
                 : "[{\"round\": 1, \"wall_s\": 0.02, \"cpu_s\": 0.04, \"steal_s\": 0, \"nivcsw\": 0},"
                   " {\"round\": 2, \"wall_s\": 0.02, \"cpu_s\": 0.04, \"steal_s\": 0, \"nivcsw\": 0}]";
}

/* The harness times the spans of timed calls: one clock, round 1, its wall
 * time at least the calls' own, its counters read (Linux has them all). */
TEST(harness_records_the_rounds_clock)
{
    gb_measure_cfg cfg = { .warmup = 1, .reps = 20, .min_reps = 1, .max_time = 100.0,
                           .nthreads = 1 };
    gb_params none = { 0 };
    gb_workspace w;
    gb_result r;
    char err[256];
    double calls = 0.0;

    CHECK(gb_workspace_init(&w, 32, 32, 32, err, sizeof err) == 0);
    CHECK(gb_measure(gb_variants[0], &none, 1, 0, &w, &cfg, &no_stop, &r, err, sizeof err) == 0);
    CHECK_EQ_INT(r.nround_clocks, 1);
    if (r.nround_clocks == 1) {
        const gb_round_clock *c = &r.round_clocks[0];
        for (int i = 0; i < r.reps; i++)
            calls += r.samples_us[i] * 1e-6;
        CHECK_EQ_INT(c->round, 1);
        CHECK(c->wall_s >= calls && c->wall_s < calls + 0.5);
        CHECK(c->cpu_s > 0.0);
        CHECK(c->steal_s >= 0.0);    /* a tick count's difference: finite on Linux */
        CHECK(c->nivcsw >= 0);
    }
    gb_result_free(&r);
    CHECK(r.round_clocks == NULL && r.nround_clocks == 0);
    gb_workspace_free(&w);
}

/* A later round appends its clock; the same round again adds its spans;
 * an unknown figure stays unknown. */
TEST(round_clocks_merge_with_the_rounds)
{
    double s1[] = { 1, 2 }, s2[] = { 3 };
    gb_round_clock c1 = { 1, 0.5, 1.0, 0.0, 2 }, c2 = { 2, 0.25, 0.5, 0.01, 1 };
    gb_round_clock c2b = { 2, 0.25, 0.5, NAN, -1 };
    gb_result into = { 0 }, part = { 0 };

    into.samples_us = malloc(sizeof s1);
    memcpy(into.samples_us, s1, sizeof s1);
    into.reps = 2;
    into.rounds = 1;
    CHECK(gb_round_clock_merge(&into.round_clocks, &into.nround_clocks, &c1) == 0);
    part.samples_us = s2;
    part.reps = 1;
    part.rounds = 1;
    part.round_clocks = &c2;
    part.nround_clocks = 1;
    CHECK(gb_result_merge(&into, &part) == 0);
    CHECK_EQ_INT(into.nround_clocks, 2);
    CHECK(into.nround_clocks == 2 && into.round_clocks[1].round == 2 &&
          into.round_clocks[1].steal_s == 0.01 && into.round_clocks[1].nivcsw == 1);
    part.round_clocks = &c2b;
    CHECK(gb_result_merge(&into, &part) == 0);
    CHECK_EQ_INT(into.nround_clocks, 2);
    if (into.nround_clocks == 2) {
        CHECK_NEAR(into.round_clocks[1].wall_s, 0.5, 1e-12);
        CHECK_NEAR(into.round_clocks[1].cpu_s, 1.0, 1e-12);
        CHECK(isnan(into.round_clocks[1].steal_s));
        CHECK_EQ_INT(into.round_clocks[1].nivcsw, -1);
        CHECK_NEAR(into.round_clocks[0].wall_s, 0.5, 0);
    }
    gb_result_free(&into);
}

/* Written by the writer, read back per round; a file without them (older)
 * reads as none. */
TEST(round_clocks_written_and_read_back)
{
    static gb_options o;
    gb_machine m;
    gb_result r = { 0 };
    gb_result_file f;
    double samples[] = { 10, 11, 12 };
    int rounds[] = { 1, 2, 2 };
    gb_round_clock clocks[] = { { 1, 0.125, 0.25, 0.0, 3 }, { 2, 0.5, 0.75, NAN, -1 } };
    char path[] = "/tmp/gemmbench-clocks-XXXXXX", err[512];
    char *argv[] = { "gemmbench" };
    int fd = mkstemp(path), known, under;
    double steal;
    cJSON *doc;

    close(fd);
    gb_options_defaults(&o);
    gb_machine_detect(&m);
    doc = gb_json_begin(&m, &o, 1, "2026-01-01T00:00:00Z", 1, argv);
    r.variant = gb_variants[0];
    snprintf(r.label, sizeof r.label, "baseline");
    snprintf(r.shape.kernel, sizeof r.shape.kernel, "qkv");
    r.shape.M = r.shape.K = r.shape.N = 8;
    r.threads = 1;
    r.reps = 3;
    r.rounds = 2;
    r.samples_us = samples;
    r.sample_round = rounds;
    r.round_clocks = clocks;
    r.nround_clocks = 2;
    r.peak_pct = r.speedup = r.attainable_gflops = NAN;
    stats_compute(samples, 3, &r.stats);
    CHECK(doc && gb_json_add_result(doc, &r) == 0);
    CHECK(doc && gb_json_write_atomic(doc, path, 1, err, sizeof err) == 0);
    cJSON_Delete(doc);
    CHECK(gb_result_file_load(path, &f, err, sizeof err) == 0);
    if (f.doc) {
        const gb_entry *e = &f.entries[0];
        const gb_round_clock *c1 = gb_entry_round_clock(e, 1), *c2 = gb_entry_round_clock(e, 2);
        CHECK_EQ_INT(e->nround_clocks, 2);
        CHECK(c1 && c1->wall_s == 0.125 && c1->cpu_s == 0.25 && c1->steal_s == 0.0 &&
              c1->nivcsw == 3);
        CHECK(c2 && c2->wall_s == 0.5 && isnan(c2->steal_s) && c2->nivcsw == -1);
        CHECK(gb_entry_round_clock(e, 3) == NULL);
        gb_entry_steal(e, &known, &under, &steal);
        CHECK(known == 1 && under == 0 && steal == 0.0);
        gb_result_file_free(&f);
    }
    CHECK(write_entry_file(path, NULL) == 0);
    CHECK(gb_result_file_load(path, &f, err, sizeof err) == 0);
    if (f.doc) {
        CHECK(f.entries[0].round_clocks == NULL && f.entries[0].nround_clocks == 0);
        CHECK(gb_entry_round_clock(&f.entries[0], 1) == NULL);
        gb_entry_steal(&f.entries[0], &known, &under, &steal);
        CHECK(known == 0 && under == 0);
        gb_result_file_free(&f);
    }
    unlink(path);
}

TEST(round_clocks_malformed_are_refused)
{
    const char *cases[][2] = {
        { "{}", "\"round_clocks\" is not an array" },
        { "[]", "\"round_clocks\" is not an array" },
        { "[{\"round\": 0, \"wall_s\": 1, \"cpu_s\": 1, \"steal_s\": 0, \"nivcsw\": 0}]",
          "\"round_clocks\"[0].round is not a round" },
        { "[{\"round\": 1, \"wall_s\": 1, \"cpu_s\": 1, \"steal_s\": 0, \"nivcsw\": 0},"
          " {\"round\": 1, \"wall_s\": 1, \"cpu_s\": 1, \"steal_s\": 0, \"nivcsw\": 0}]",
          "\"round_clocks\"[1].round is not a round from 1 to 1000 named once" },
        { "[{\"round\": 1, \"wall_s\": -1, \"cpu_s\": 1, \"steal_s\": 0, \"nivcsw\": 0}]",
          "\"round_clocks\"[0].wall_s is not a number >= 0" },
        { "[{\"round\": 1, \"wall_s\": null, \"cpu_s\": 1, \"steal_s\": 0, \"nivcsw\": 0}]",
          "\"round_clocks\"[0].wall_s is not a number >= 0" },
        { "[{\"round\": 1, \"wall_s\": 1, \"cpu_s\": 1, \"steal_s\": \"x\", \"nivcsw\": 0}]",
          "\"round_clocks\"[0].steal_s is not a number >= 0 or null" },
        { "[{\"round\": 1, \"wall_s\": 1, \"cpu_s\": 1, \"steal_s\": 0, \"nivcsw\": 1.5}]",
          "\"round_clocks\"[0].nivcsw is not a count" },
    };
    char path[] = "/tmp/gemmbench-clocks-bad-XXXXXX", err[512];
    int fd = mkstemp(path);
    gb_result_file f;

    close(fd);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK(write_entry_file(path, cases[i][0]) == 0);
        err[0] = '\0';
        CHECK(gb_result_file_load(path, &f, err, sizeof err) != 0);
        if (strstr(err, cases[i][1]) == NULL || strchr(err, '\n') != NULL) {
            char msg[800];
            snprintf(msg, sizeof msg, "case %zu: '%s' lacks '%s'", i, err, cases[i][1]);
            gb_test_fail(__FILE__, __LINE__, msg);
        }
    }
    unlink(path);
}

/* Whether the table's header line (the one that begins "variant") has word. */
static int header_has(const char *text, const char *word)
{
    const char *h = text ? strstr(text, "\nvariant") : NULL;
    const char *end = h ? strchr(h + 1, '\n') : NULL;
    const char *w = h ? strstr(h, word) : NULL;

    return w != NULL && end != NULL && w < end;
}

/* compare (and ab, which prints the same) says how many rounds ran under
 * steal and how much, in the table and the JSON, and judges on every round. */
TEST(compare_says_rounds_under_steal)
{
    char pa[] = "/tmp/gemmbench-steal-a-XXXXXX", pb[] = "/tmp/gemmbench-steal-b-XXXXXX";
    char err[512], *text = NULL;
    gb_compare_opts o = { 3.0, 0.01, 1, NULL, NULL, 1, NULL };
    gb_result_file a, b;
    gb_compare c;
    size_t len = 0;
    FILE *out;
    cJSON *doc;
    int fa = mkstemp(pa), fb = mkstemp(pb);

    close(fa);
    close(fb);
    CHECK(write_entry_file(pa, six_rounds(1)) == 0);
    CHECK(write_entry_file(pb, NULL) == 0);
    CHECK(gb_result_file_load(pa, &a, err, sizeof err) == 0);
    CHECK(gb_result_file_load(pb, &b, err, sizeof err) == 0);
    CHECK_EQ_INT(gb_compare_files(&a, &b, &o, &c, err, sizeof err), 0);
    CHECK(c.steal.known[0] == 5 && c.steal.under[0] == 1 && c.steal.known[1] == 0);
    CHECK_NEAR(c.steal.seconds[0], 0.02, 1e-12);
    CHECK(c.nrows == 1 && c.rows[0].steal.under[0] == 1 && c.rows[0].n_old == 6);
    out = open_memstream(&text, &len);
    CHECK(out && gb_compare_print(out, GB_FMT_TABLE, &c) == 0);
    if (out)
        fclose(out);
    CHECK(text && strstr(text, "steal: 1 of the 5 rounds whose steal is recorded ran under "
                               "steal (OLD: 1 of its 5 rounds; NEW: no round clocks, steal "
                               "unknown),\n       0.02 s") != NULL);
    /* no line of it runs past 200 characters */
    for (const char *p = text, *nl; p && *p; p = nl + 1) {
        nl = strchr(p, '\n');
        if (nl == NULL)
            nl = p + strlen(p) - 1;
        CHECK(nl - p <= 200);
    }
    CHECK(header_has(text, "steal") && text && strstr(text, " 1r/- ") != NULL);
    free(text);
    doc = gb_compare_json(&c);
    CHECK(doc != NULL);
    if (doc) {
        const cJSON *s = cJSON_GetObjectItem(doc, "steal");
        const cJSON *rs = cJSON_GetObjectItem(
            cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "entries"), 0), "steal");
        CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(s, "old_under_steal")) == 1);
        CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(s, "old_rounds")) == 5);
        CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(rs, "old_steal_s")) == 0.02);
        CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(rs, "new_rounds")) == 0);
        cJSON_Delete(doc);
    }
    gb_compare_free(&c);

    /* No steal: the line says so, and no column. */
    gb_result_file_free(&a);
    CHECK(write_entry_file(pa, six_rounds(0)) == 0);
    CHECK(gb_result_file_load(pa, &a, err, sizeof err) == 0);
    CHECK_EQ_INT(gb_compare_files(&a, &b, &o, &c, err, sizeof err), 0);
    text = NULL;
    out = open_memstream(&text, &len);
    CHECK(out && gb_compare_print(out, GB_FMT_TABLE, &c) == 0);
    if (out)
        fclose(out);
    /* never "no round ran under steal ... NEW 0", which read as a contradiction */
    CHECK(text && strstr(text, "steal: no round ran under steal, of the 2 whose steal is "
                               "recorded (OLD: 0 of its 2 rounds; NEW: no round clocks, "
                               "steal unknown)") != NULL);
    CHECK(!header_has(text, "steal"));
    free(text);
    gb_compare_free(&c);
    gb_result_file_free(&a);
    gb_result_file_free(&b);
    unlink(pa);
    unlink(pb);
}

/* ab merges each round's file into the build's: the clocks follow. */
TEST(round_clocks_follow_abs_merge)
{
    char pa[] = "/tmp/gemmbench-abclk-a-XXXXXX", pb[] = "/tmp/gemmbench-abclk-b-XXXXXX";
    char err[512];
    gb_result_file a, b;
    int fa = mkstemp(pa), fb = mkstemp(pb);

    close(fa);
    close(fb);
    CHECK(write_entry_file(pa, "[{\"round\": 1, \"wall_s\": 0.5, \"cpu_s\": 1, \"steal_s\": 0,"
                               " \"nivcsw\": 4}]") == 0);
    CHECK(write_entry_file(pb, "[{\"round\": 2, \"wall_s\": 0.25, \"cpu_s\": 0.5,"
                               " \"steal_s\": 0.03, \"nivcsw\": 1}]") == 0);
    CHECK(gb_result_file_load(pa, &a, err, sizeof err) == 0);
    CHECK(gb_result_file_load(pb, &b, err, sizeof err) == 0);
    CHECK(gb_result_file_merge(&a, &b, err, sizeof err) == 0);
    if (a.doc) {
        const gb_round_clock *c2 = gb_entry_round_clock(&a.entries[0], 2);
        CHECK_EQ_INT(a.entries[0].nround_clocks, 2);
        CHECK(c2 && c2->steal_s == 0.03 && c2->nivcsw == 1);
    }
    gb_result_file_free(&a);
    gb_result_file_free(&b);
    unlink(pa);
    unlink(pb);
}
