/* test_settings.c - the settings table (src/settings/settings.c): consistent,
 * its defaults readable, every setting and command in --help, and
 * src/settings/SETTINGS.md's tables written from it. */
#define _GNU_SOURCE /* open_memstream */
#include "test.h"

#include <stdlib.h>

#include "command.h"
#include "options.h"
#include "report.h"
#include "settings.h"

static const unsigned every_command[] = { GB_CMD_RUN, GB_CMD_INFO, GB_CMD_COMPARE,
                                          GB_CMD_AB, GB_CMD_REPORT, GB_CMD_TUNE };
#define NCOMMANDS (sizeof every_command / sizeof every_command[0])

static void fail_entry(const gb_setting *s, const char *why)
{
    char m[200];
    snprintf(m, sizeof m, "--%s (commands 0x%x): %s", s->flag ? s->flag : "?", s->commands, why);
    gb_test_fail(__FILE__, __LINE__, m);
}

/* One entry as the table promises it (settings.h). */
static void check_entry(const gb_setting *s)
{
    char err[GB_ERR_LEN];
    gb_setting_value v;

    if (s->flag == NULL || s->help == NULL || s->commands == 0 || s->id >= GB_SET_COUNT)
        fail_entry(s, "needs a flag, a help line, commands and an id");
    if (s->conf_key && !(s->commands & GB_CMD_RUN))
        fail_entry(s, "a bench.conf key belongs to a run setting");
    if ((s->commands & GB_CMD_AB_BUILDS) && !(s->commands & GB_CMD_RUN))
        fail_entry(s, "ab hands on run options only");
    if (s->hidden && (s->commands != GB_CMD_RUN))
        fail_entry(s, "only run options ab sets itself are hidden");
    if ((s->kind == GB_KIND_CHOICE || s->kind == GB_KIND_FORMAT) && s->choices == NULL)
        fail_entry(s, "a choice needs its names");
    if (s->min > s->max)
        fail_entry(s, "min above max");
    if ((s->value_name != NULL) != gb_setting_takes_value(s))
        fail_entry(s, "a value name iff it takes a value");
    if (s->initial && gb_setting_read(s, s->flag, s->initial, &v, err, sizeof err) != 0)
        fail_entry(s, err);
    if (s->initial && s->default_note)
        fail_entry(s, "one default, a value or a note");
    if (strchr(s->help, '|') || (s->default_note && strchr(s->default_note, '|')))
        fail_entry(s, "'|' would break SETTINGS.md's table");
}

TEST(settings_table_is_consistent)
{
    int ids[GB_SET_COUNT] = { 0 };

    CHECK(gb_setting_count <= GB_MAX_SETTINGS);
    for (size_t i = 0; i < gb_setting_count; i++) {
        const gb_setting *a = &gb_settings[i];
        check_entry(a);
        if (a->id < GB_SET_COUNT)
            ids[a->id]++;
        /* A command's flags, letters and keys each name one entry. */
        for (size_t j = i + 1; j < gb_setting_count; j++) {
            const gb_setting *b = &gb_settings[j];
            unsigned both = a->commands & b->commands & ~(unsigned)GB_CMD_AB_BUILDS;
            if (both && strcmp(a->flag, b->flag) == 0)
                fail_entry(b, "flag taken twice by one command");
            if (both && a->letter && a->letter == b->letter)
                fail_entry(b, "letter taken twice by one command");
            if (a->conf_key && b->conf_key && strcmp(a->conf_key, b->conf_key) == 0)
                fail_entry(b, "bench.conf key taken twice");
        }
    }
    for (int id = 0; id < GB_SET_COUNT; id++)
        CHECK(ids[id] > 0);
    /* Every command has --help. */
    for (size_t c = 0; c < NCOMMANDS; c++)
        CHECK(gb_setting_by_id(every_command[c], GB_SET_HELP) != NULL);
}

TEST(settings_choices_are_known)
{
    const gb_setting *run_format = gb_setting_by_id(GB_CMD_RUN, GB_SET_FORMAT);
    const gb_setting *metric = gb_setting_by_id(GB_CMD_REPORT, GB_SET_METRIC);
    char err[GB_ERR_LEN];
    gb_setting_value v, w;

    /* Every command's --format is one of the run's, and means the same. */
    for (size_t i = 0; i < gb_setting_count; i++)
        for (int c = 0; gb_settings[i].kind == GB_KIND_FORMAT && gb_settings[i].choices[c]; c++) {
            const char *name = gb_settings[i].choices[c];
            CHECK(gb_setting_read(&gb_settings[i], "--format", name, &v, err, sizeof err) == 0);
            CHECK(gb_setting_read(run_format, "--format", name, &w, err, sizeof err) == 0);
            CHECK(v.format == w.format);
        }
    CHECK(gb_setting_read(run_format, "--format", "md", &v, err, sizeof err) == 0 &&
          v.format == GB_FMT_MD);
    /* report's metrics are report.c's, and scaling. */
    CHECK(metric != NULL);
    for (int c = 0; metric && metric->choices[c]; c++) {
        gb_report_metric m;
        CHECK(strcmp(metric->choices[c], "scaling") == 0 ||
              gb_report_metric_parse(metric->choices[c], &m) == 0);
    }
}

TEST(settings_errors_name_flag_and_limits)
{
    static const struct {
        unsigned cmd;
        gb_setting_id id;
        const char *text, *said;
    } cases[] = {
        { GB_CMD_RUN, GB_SET_REPS, "0", "--reps: '0' is not an integer in [1, 1000000]" },
        { GB_CMD_TUNE, GB_SET_REPS, "20000", "--reps: '20000' is not an integer in [1, 10000]" },
        { GB_CMD_RUN, GB_SET_MAX_TIME, "0", "is not a number of seconds in (0, 86400]" },
        { GB_CMD_RUN, GB_SET_MIN_TIME, "1s", "is not a number of seconds in [0, 86400]" },
        { GB_CMD_RUN, GB_SET_FORMAT, "xml", "--format: 'xml' is not table, json, csv or md" },
        { GB_CMD_COMPARE, GB_SET_FORMAT, "csv", "'csv' is not table, md or json" },
        { GB_CMD_REPORT, GB_SET_FORMAT, "json", "'json' is not table, md or csv" },
        { GB_CMD_COMPARE, GB_SET_ALPHA, "1", "--alpha: '1' is not a number in (0, 1)" },
        { GB_CMD_AB, GB_SET_ROUNDS, "5", "--rounds: '5' is not an integer in [8, 1000]" },
        { GB_CMD_RUN, GB_SET_BIND, "tight", "'tight' is not close, spread or none" },
        { GB_CMD_RUN, GB_SET_THREADS, "1,,2", "'1,,2' is not a thread count or list: an empty" },
        { GB_CMD_TUNE, GB_SET_THREADS, "3-1", "a descending range '3-1'" },
        { GB_CMD_RUN, GB_SET_M, "16,,32", "--m: '16,,32' has an empty element" },
        { GB_CMD_RUN, GB_SET_SHAPE, "4x4", "'4x4' is not MxKxN" },
        { GB_CMD_RUN, GB_SET_CHECK, "maybe", "'maybe' is not yes or no" },
    };
    char err[GB_ERR_LEN];
    gb_setting_value v;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const gb_setting *s = gb_setting_by_id(cases[i].cmd, cases[i].id);
        char name[48];
        CHECK(s != NULL);
        if (s == NULL)
            continue;
        snprintf(name, sizeof name, "--%s", s->flag);
        err[0] = '\0';
        CHECK(gb_setting_read(s, name, cases[i].text, &v, err, sizeof err) != 0);
        if (strstr(err, cases[i].said) == NULL)
            printf("  '%s': %s\n", cases[i].text, err);
        CHECK(strstr(err, cases[i].said) != NULL);
    }
    /* tune takes a thread list as a run does. */
    CHECK(gb_setting_read(gb_setting_by_id(GB_CMD_TUNE, GB_SET_THREADS), "--threads", "1-2,4",
                          &v, err, sizeof err) == 0 &&
          v.count == 3 && v.list[2] == 4);
}

/* The defaults a run starts from are the table's, and they are the study's sweep. */
TEST(settings_defaults_of_a_run)
{
    static gb_options o;
    static const int study_m[] = { 16, 32, 64, 96, 128, 192, 256, 384 };

    gb_options_defaults(&o);
    CHECK_STR(o.variants, "all");
    CHECK_STR(o.kernels, "all");
    CHECK_EQ_INT(o.nm, 8);
    CHECK(memcmp(o.m, study_m, sizeof study_m) == 0);
    CHECK_EQ_INT(o.warmup, 5);
    CHECK_EQ_INT(o.reps, 50);
    CHECK_EQ_INT(o.min_reps, 5);
    CHECK_NEAR(o.max_time, 2.0, 0);
    CHECK_NEAR(o.min_time, 0.0, 0);
    CHECK_NEAR(o.cooldown, 0.0, 0);
    CHECK_EQ_INT(o.rounds, 0);
    CHECK(o.format == GB_FMT_TABLE && o.check == 1 && o.cache_cold == 0);
    CHECK(o.bind == GB_BIND_DEFAULT && o.nthreads_list == 0 && !o.threads_all);
    CHECK(!o.quick && !o.all && !o.prepack && !o.quiet && o.nparam_sets == 0);
}

/* --quick stands for flags a run takes, with values it accepts. */
TEST(settings_quick_is_run_flags)
{
    const char *p = GB_QUICK_FLAGS;
    char flag[32], value[64], err[GB_ERR_LEN];
    int used = 0, n = 0;
    gb_setting_value v;

    while (sscanf(p, " --%31s %63s%n", flag, value, &used) == 2) {
        const gb_setting *s = gb_setting_by_flag(GB_CMD_RUN, flag, strlen(flag));
        CHECK(s != NULL);
        CHECK(s && gb_setting_read(s, flag, value, &v, err, sizeof err) == 0);
        p += used;
        n++;
    }
    CHECK(n == 6 && *p == '\0');
}

/* Text written by fn(out, arg) into a string (free it). */
static char *written(void (*fn)(FILE *, unsigned), unsigned arg)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);

    if (out == NULL)
        return NULL;
    fn(out, arg);
    fclose(out);
    return text;
}

static void write_help(FILE *out, unsigned cmd)
{
    gb_settings_write_help(out, cmd, cmd == GB_CMD_RUN);
}

static void write_commands(FILE *out, unsigned unused)
{
    (void)unused;
    gb_write_command_list(out);
}

/* Whether help has s's line: its flag column, as help.c writes it, at a
 * line's start. */
static int has_line(const char *help, const gb_setting *s)
{
    char left[96];
    const char *at;

    if (s->letter)
        snprintf(left, sizeof left, "\n  -%c, --%s", s->letter, s->flag);
    else
        snprintf(left, sizeof left, "\n      --%s", s->flag);
    for (at = strstr(help, left); at; at = strstr(at + 1, left))
        if (at[strlen(left)] == ' ' || at[strlen(left)] == '\n')
            return 1;
    return 0;
}

TEST(help_lists_every_setting)
{
    for (size_t c = 0; c < NCOMMANDS; c++) {
        char *help = written(write_help, every_command[c]), *text;
        CHECK(help != NULL);
        if (help == NULL)
            continue;
        text = malloc(strlen(help) + 2);
        CHECK(text != NULL);
        if (text == NULL) {
            free(help);
            continue;
        }
        text[0] = '\n';
        strcpy(text + 1, help);
        for (size_t i = 0; i < gb_setting_count; i++) {
            const gb_setting *s = &gb_settings[i];
            if ((s->commands & every_command[c]) && has_line(text, s) == (s->hidden != 0))
                fail_entry(s, s->hidden ? "hidden, but in --help" : "missing from --help");
        }
        free(text);
        free(help);
    }
}

TEST(help_lists_every_command)
{
    char *list = written(write_commands, 0);

    CHECK(list != NULL && strncmp(list, "usage: gemmbench [options]", 26) == 0);
    for (size_t i = 0; list && i < gb_command_count; i++) {
        char line[64];
        snprintf(line, sizeof line, "gemmbench %s ", gb_commands[i].name ? gb_commands[i].name
                                                                         : "[options]");
        if (strstr(list, line) == NULL)
            printf("  '%s' is missing from:\n%s", line, list);
        CHECK(strstr(list, line) != NULL);
    }
    free(list);
}

/* ---- src/settings/SETTINGS.md ------------------------------------------------ */

#define DOC_PATH "src/settings/SETTINGS.md"
#define DOC_BEGIN "<!-- settings tables: written from gb_settings[] by tests/unit/test_settings.c -->\n"
#define DOC_END "<!-- end of the settings tables -->\n"

/* A table cell: '|' cannot occur (check_entry), newlines do not. */
static void write_setting_row(FILE *out, const gb_setting *s, unsigned cmd)
{
    const char *key = cmd == GB_CMD_RUN ? s->conf_key : NULL;  /* only a run reads bench.conf */

    char value[200];

    if (s->letter)
        fprintf(out, "| `-%c`, `--%s%s%s` ", s->letter, s->flag, s->value_name ? " " : "",
                s->value_name ? s->value_name : "");
    else
        fprintf(out, "| `--%s%s%s` ", s->flag, s->value_name ? " " : "",
                s->value_name ? s->value_name : "");
    fprintf(out, "| %s%s%s ", key ? "`" : "", key ? key : "", key ? "`" : "");
    gb_setting_describe(s, value, sizeof value);
    fprintf(out, "| %s ", gb_setting_takes_value(s) ? value : key ? "switch; yes or no"
                                                                 : "switch");
    if (s->initial)
        fprintf(out, "| `%s` ", s->initial);
    else
        fprintf(out, "| %s ", s->default_note ? s->default_note : "");
    fprintf(out, "| %s%s |\n", s->hidden ? "(set by gemmbench ab for its builds; not in "
                                           "--help) " : "", s->help);
}

/* The tables SETTINGS.md carries: one per command, in gb_commands' order. */
static void write_doc_tables(FILE *out, unsigned unused)
{
    (void)unused;
    fputs(DOC_BEGIN, out);
    for (size_t c = 0; c < gb_command_count; c++) {
        const gb_command *cmd = &gb_commands[c];
        fprintf(out, "\n### gemmbench%s%s%s%s\n\n", cmd->name ? " " : "",
                cmd->name ? cmd->name : "", cmd->synopsis[0] ? " " : "", cmd->synopsis);
        if (cmd->settings == GB_CMD_AB) {
            /* what ab hands on, from the table too */
            fputs("ab's own options are below.  These run options are read as a run reads "
                  "them, then handed to both builds:", out);
            for (size_t i = 0, n = 0; i < gb_setting_count; i++)
                if (gb_settings[i].commands & GB_CMD_AB_BUILDS)
                    fprintf(out, "%s `--%s`", n++ ? "," : "", gb_settings[i].flag);
            fputs(".\n\n", out);
        }
        fputs("| flag | bench.conf | value | default | what it does |\n"
              "|---|---|---|---|---|\n", out);
        for (size_t i = 0; i < gb_setting_count; i++)
            if (gb_settings[i].commands & cmd->settings)
                write_setting_row(out, &gb_settings[i], cmd->settings);
    }
    fputs("\n" DOC_END, out);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    long n;

    if (f == NULL)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (text = malloc((size_t)n + 1)) != NULL) {
        text[fread(text, 1, (size_t)n, f)] = '\0';
    }
    fclose(f);
    return text;
}

/* The tables in SETTINGS.md are the table's.  When they differ, run
 * GB_SETTINGS_DOC=write build/gemmbench-tests settings_doc_matches_table
 * from the repository's top to write them again, and read the diff. */
TEST(settings_doc_matches_table)
{
    char *doc = read_file(DOC_PATH), *tables = written(write_doc_tables, 0);
    char *begin = doc ? strstr(doc, DOC_BEGIN) : NULL;
    char *end = begin ? strstr(begin, DOC_END) : NULL;
    const char *mode = getenv("GB_SETTINGS_DOC");
    int same;

    CHECK(doc != NULL && tables != NULL && begin != NULL && end != NULL);
    if (doc == NULL || tables == NULL || begin == NULL || end == NULL) {
        printf("  %s (read from the repository's top) needs its markers\n", DOC_PATH);
        goto out;
    }
    end += strlen(DOC_END);
    same = strlen(tables) == (size_t)(end - begin) && memcmp(begin, tables, strlen(tables)) == 0;
    if (!same && mode && strcmp(mode, "write") == 0) {
        FILE *f = fopen(DOC_PATH, "w");
        CHECK(f != NULL);
        if (f) {
            fwrite(doc, 1, (size_t)(begin - doc), f);
            fputs(tables, f);
            fputs(end, f);
            CHECK(fclose(f) == 0);
            printf("  wrote the tables of %s\n", DOC_PATH);
        }
    } else if (!same) {
        printf("  %s's tables differ from gb_settings[]; to write them again:\n"
               "  GB_SETTINGS_DOC=write build/gemmbench-tests settings_doc_matches_table\n",
               DOC_PATH);
        CHECK(same);
    }
out:
    free(doc);
    free(tables);
}
