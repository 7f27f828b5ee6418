/*
 * test_calibrate.c - packed's calibration (src/measure/calibrate.c): the
 * cache round-trips, a corrupt or stale file is refused, a machine change
 * gives another key; a forced result flips packed's regime for B (in place,
 * jr outer / copied, ir outer) and for A (in place / packed on first use),
 * every branch exact; the quick measurement measures, caches and reads
 * back; only a small regular file in strict JSON is read, and a FIFO at the
 * path is never waited on.
 */
#define _GNU_SOURCE /* setenv, mkdtemp */
#include "test.h"
#include "variants.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "calibrate.h"
#include "calibration.h"
#include "gemmbench.h"
#include "machine.h"
#include "variant_check.h"

/* The packed plan's b_mode and a_mode numbers (schedules/packed_plan.h). */
#define BPACK_FUSED 3
#define BPACK_PANEL_FUSED 4
#define APACK_IN_PLACE 2
#define APACK_FUSED 3

typedef struct env_scratch {
    char dir[64];
    char *saved_xdg, *saved_mode;
} env_scratch;

static char *saved_value(const char *name)
{
    const char *v = getenv(name);
    return v ? strdup(v) : NULL;
}

static void put_back(const char *name, char *value)
{
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
    free(value);
}

/* A cache directory of the test's own, and GEMMBENCH_CALIBRATE as mode
 * (NULL: unset); 0, or -1. */
static int scratch_begin(env_scratch *s, const char *mode)
{
    memset(s, 0, sizeof *s);
    strcpy(s->dir, "/tmp/gb-calib-test.XXXXXX");
    if (mkdtemp(s->dir) == NULL)
        return -1;
    s->saved_xdg = saved_value("XDG_CACHE_HOME");
    s->saved_mode = saved_value("GEMMBENCH_CALIBRATE");
    setenv("XDG_CACHE_HOME", s->dir, 1);
    if (mode)
        setenv("GEMMBENCH_CALIBRATE", mode, 1);
    else
        unsetenv("GEMMBENCH_CALIBRATE");
    return 0;
}

static void scratch_end(env_scratch *s)
{
    char cmd[128];
    put_back("XDG_CACHE_HOME", s->saved_xdg);
    put_back("GEMMBENCH_CALIBRATE", s->saved_mode);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", s->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "test_calibrate: could not remove %s\n", s->dir);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static long read_text(const char *path, char *text, size_t len);

static long effective(const gb_variant *v, const gb_params *p, int M, int N, int K, int threads,
                      const char *key)
{
    gb_ctx ctx = { threads, p, NULL, NULL, 0, NULL };
    gb_params eff;
    v->resolve(M, N, K, &ctx, &eff);
    return gb_param_get(&eff, key, -1);
}

TEST(calibration_cache_round_trips)
{
    env_scratch s;
    gb_machine m;
    gb_calibration c = { 0 }, back;
    char key[1024], path[4200], err[512];

    if (scratch_begin(&s, NULL) != 0)
        SKIP("no scratch directory");
    gb_machine_detect(&m);
    gb_calibration_key(&m, 2, key, sizeof key);
    CHECK_EQ_INT(gb_calibration_path(key, path, sizeof path, err, sizeof err), 0);
    CHECK(strstr(path, s.dir) == path);
    CHECK_EQ_INT(gb_calibration_load(path, key, &back, err, sizeof err), 1);
    c.threads = 2;
    c.rounds = 7;
    c.answer[GB_CALIB_B] = (gb_calib_answer){ GB_READ_COPIED, 1.375, 1.25, 1.5, 0 };
    c.answer[GB_CALIB_A] = (gb_calib_answer){ GB_READ_IN_PLACE, 0.875, 0.75, 1.0, 0 };
    c.answer[GB_CALIB_BCOPY] = (gb_calib_answer){ GB_READ_COPIED, 1.0625, 1.03125, 1.125, 0 };
    c.answer[GB_CALIB_BPREFETCH] = (gb_calib_answer){ 1, 1.5, 1.25, 1.75, 0 };
    c.answer[GB_CALIB_KC] = (gb_calib_answer){ 1, 1.125, 1.0625, 1.25, 0 };
    c.answer[GB_CALIB_BNEAR] = (gb_calib_answer){ GB_READ_COPIED, 1.0625, 1.03125, 1.125, 0 };
    c.answer[GB_CALIB_BFAR] = (gb_calib_answer){ GB_OFF, 1.09375, 1.0625, 1.125, 0 };
    c.answer[GB_CALIB_KCPLACES] = (gb_calib_answer){ GB_ON, 0.96875, 0.9375, 1.0, 0 };
    c.answer[GB_CALIB_BMANY] = (gb_calib_answer){ GB_READ_COPIED, 1.015625, 1.0, 1.03125, 0 };
    c.answer[GB_CALIB_BNEARNEXT] = (gb_calib_answer){ GB_OFF, 1.03125, 1.0, 1.0625, 0 };
    c.small_us = 5.4375;
    c.small_t_us = 4.25;
    CHECK_EQ_INT(gb_calibration_store(path, key, &c, err, sizeof err), 0);
    CHECK_EQ_INT(gb_calibration_load(path, key, &back, err, sizeof err), 0);
    CHECK_EQ_INT(back.threads, 2);
    CHECK_EQ_INT(back.rounds, 7);
    CHECK(back.small_us == 5.4375 && back.small_t_us == 4.25);
    for (int q = 0; q < GB_CALIB_QUESTIONS; q++) {
        CHECK_EQ_INT(back.answer[q].read, c.answer[q].read);
        CHECK(back.answer[q].ratio == c.answer[q].ratio);
        CHECK(back.answer[q].ratio_p10 == c.answer[q].ratio_p10);
        CHECK(back.answer[q].ratio_p90 == c.answer[q].ratio_p90);
    }
    CHECK_STR(back.source, "cached");
    /* The plan's lookup finds it (nothing forced). */
    gb_calibration_lookup(&m, 2, &back);
    CHECK_EQ_INT(back.answer[GB_CALIB_B].read, GB_READ_COPIED);
    CHECK_EQ_INT(back.answer[GB_CALIB_A].read, GB_READ_IN_PLACE);
    CHECK_EQ_INT(back.answer[GB_CALIB_BCOPY].read, GB_READ_COPIED);
    CHECK_EQ_INT(back.answer[GB_CALIB_BPREFETCH].read, 1);
    CHECK_EQ_INT(back.answer[GB_CALIB_KC].read, 1);
    CHECK_EQ_INT(back.answer[GB_CALIB_BNEAR].read, GB_READ_COPIED);
    CHECK_EQ_INT(back.answer[GB_CALIB_BFAR].read, GB_OFF);
    CHECK_EQ_INT(back.answer[GB_CALIB_KCPLACES].read, GB_ON);
    CHECK(back.answer[GB_CALIB_KCPLACES].ratio == 0.96875);
    CHECK_EQ_INT(back.answer[GB_CALIB_BMANY].read, GB_READ_COPIED);
    CHECK_STR(back.source, "cached");
    CHECK(back.small_us == 5.4375 && back.small_t_us == 4.25);
    /* The threads' cost: both measured, or both 0 (not measured); else
     * the file is refused. */
    {
        static const char *const broken[] = { "-4.25", "0", "1e999", "\"4.25\"" };
        char good[8192], bad[8300];
        const long len = read_text(path, good, sizeof good);
        const char *at = len > 0 ? strstr(good, "4.25") : NULL;
        CHECK(at != NULL && strstr(at + 1, "4.25") == NULL);
        for (size_t i = 0; at != NULL && i < sizeof broken / sizeof broken[0]; i++) {
            snprintf(bad, sizeof bad, "%.*s%s%s", (int)(at - good), good, broken[i], at + 4);
            write_text(path, bad);
            err[0] = '\0';
            CHECK_EQ_INT(gb_calibration_load(path, key, &back, err, sizeof err), -1);
            /* 1e999: the strict reader's (a number out of range) */
            CHECK(strstr(err, i == 2 ? "corrupt: " : "corrupt: small_us and small_t_us") == err);
        }
        c.small_us = c.small_t_us = 0.0;
        CHECK_EQ_INT(gb_calibration_store(path, key, &c, err, sizeof err), 0);
        CHECK_EQ_INT(gb_calibration_load(path, key, &back, err, sizeof err), 0);
        CHECK(back.small_us == 0.0 && back.small_t_us == 0.0);
    }
    /* At another thread count there is none: the default. */
    gb_calibration_lookup(&m, 3, &back);
    CHECK_EQ_INT(back.answer[GB_CALIB_B].read, GB_READ_IN_PLACE);
    CHECK_STR(back.source, "default");
    scratch_end(&s);
}

extern const gb_variant gb_variant_packed;

/* Each question runs under the answers measured before it that shape how
 * B's far rows are read (kcplaces, bprefetch, bfar, bcopy), never its own
 * nor one its fixed params set. */
TEST(calibration_questions_run_under_the_answers_before_them)
{
    gb_calibration c;
    int measured[GB_CALIB_QUESTIONS] = { 0 };
    char ctx[256];

    gb_calibration_set(&c, 2, GB_READ_IN_PLACE, "measured");
    c.answer[GB_CALIB_KCPLACES].read = GB_OFF;
    c.answer[GB_CALIB_BPREFETCH].read = GB_PREFETCH_L2;
    c.answer[GB_CALIB_BFAR].read = GB_OFF;
    c.answer[GB_CALIB_BCOPY].read = GB_READ_COPIED;
    gb_calibration_context(GB_CALIB_KCPLACES, &c, measured, ctx, sizeof ctx);
    CHECK_STR(ctx, "");
    measured[GB_CALIB_KCPLACES] = 1;
    gb_calibration_context(GB_CALIB_KCPLACES, &c, measured, ctx, sizeof ctx);
    CHECK_STR(ctx, "");
    gb_calibration_context(GB_CALIB_BPREFETCH, &c, measured, ctx, sizeof ctx);
    CHECK_STR(ctx, "kcplaces=off,");
    measured[GB_CALIB_BPREFETCH] = 1;
    gb_calibration_context(GB_CALIB_BFAR, &c, measured, ctx, sizeof ctx);
    CHECK_STR(ctx, "kcplaces=off,bprefetch=l2,");
    measured[GB_CALIB_BFAR] = 1;
    measured[GB_CALIB_BCOPY] = 1;
    /* bfar fixes bcopy=in_place itself */
    gb_calibration_context(GB_CALIB_BFAR, &c, measured, ctx, sizeof ctx);
    CHECK_STR(ctx, "kcplaces=off,bprefetch=l2,");
    gb_calibration_context(GB_CALIB_B, &c, measured, ctx, sizeof ctx);
    CHECK_STR(ctx, "kcplaces=off,bprefetch=l2,bfar=off,bcopy=copied,");
    gb_calibration_context(GB_CALIB_BMANY, &c, measured, ctx, sizeof ctx);
    CHECK_STR(ctx, "kcplaces=off,bprefetch=l2,bfar=off,bcopy=copied,");
    /* and every context parses with the question's own params */
    for (int q = 0; q < GB_CALIB_QUESTIONS; q++) {
        char text[512], err[256];
        gb_params p;
        gb_calibration_context(q, &c, measured, ctx, sizeof ctx);
        snprintf(text, sizeof text, "%s%s%s=%s", ctx, gb_calib_questions[q].fixed,
                 gb_calib_questions[q].param, gb_calib_questions[q].answers[1]);
        CHECK_EQ_INT(gb_params_parse(&gb_variant_packed, text, &p, err, sizeof err), 0);
    }
}

/* An answer both of whose plans are one at the question's shapes is not
 * timed (same_plan): it is the first answer with no ratios, written and read
 * back so, described so; a file whose same_plan answer is the second, has
 * ratios, or is not true is refused. */
TEST(calibration_same_plan_round_trips_and_contradictions_are_refused)
{
    static const char *const broken[] = {
        "{\"read\": \"copied\", \"same_plan\": true}",
        "{\"read\": \"in_place\", \"same_plan\": true, \"ratio\": 1.0}",
        "{\"read\": \"in_place\", \"same_plan\": true, \"ratio_p90\": 1.0}",
        "{\"read\": \"in_place\", \"same_plan\": false}",
        "{\"read\": \"in_place\", \"same_plan\": 1}",
    };
    env_scratch s;
    gb_machine m;
    gb_calibration c, back;
    char key[1024], path[4200], err[512], said[512], text[8192];
    FILE *f;
    size_t n;

    if (scratch_begin(&s, NULL) != 0)
        SKIP("no scratch directory");
    gb_machine_detect(&m);
    gb_calibration_key(&m, 1, key, sizeof key);
    CHECK_EQ_INT(gb_calibration_path(key, path, sizeof path, err, sizeof err), 0);
    gb_calibration_set(&c, 1, GB_READ_IN_PLACE, "measured");
    c.rounds = 5;
    for (int q = 0; q < GB_CALIB_QUESTIONS; q++)
        c.answer[q] = (gb_calib_answer){ GB_READ_IN_PLACE, 0.96875, 0.9375, 1.0, 0 };
    c.answer[GB_CALIB_BMANY] = (gb_calib_answer){ GB_READ_IN_PLACE, 0.0, 0.0, 0.0, 1 };
    CHECK_EQ_INT(gb_calibration_store(path, key, &c, err, sizeof err), 0);
    CHECK_EQ_INT(gb_calibration_load(path, key, &back, err, sizeof err), 0);
    CHECK_EQ_INT(back.answer[GB_CALIB_BMANY].same_plan, 1);
    CHECK_EQ_INT(back.answer[GB_CALIB_BMANY].read, GB_READ_IN_PLACE);
    CHECK(back.answer[GB_CALIB_BMANY].ratio == 0.0);
    CHECK_EQ_INT(back.answer[GB_CALIB_BNEAR].same_plan, 0);
    CHECK(back.answer[GB_CALIB_BNEAR].ratio == 0.96875);
    gb_calibration_describe(&back, GB_CALIB_BMANY, said, sizeof said);
    CHECK(strstr(said, "in_place: both answers make the same plan here on mlp_expand M=192,256") ==
          said);
    CHECK(strstr(said, "not timed") != NULL && strstr(said, "cached") != NULL);
    /* The stored text, and then each broken same_plan in bmany's place. */
    f = fopen(path, "r");
    CHECK(f != NULL);
    if (f == NULL) {
        scratch_end(&s);
        return;
    }
    n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    CHECK(strstr(text, "\"same_plan\":\ttrue") != NULL || strstr(text, "\"same_plan\": true") != NULL);
    for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
        char changed[8192];
        const char *at = strstr(text, "\"bmany\":");
        const char *end = at ? strchr(at, '}') : NULL;
        CHECK(end != NULL);
        if (end == NULL)
            break;
        snprintf(changed, sizeof changed, "%.*s\"bmany\": %s%s", (int)(at - text), text,
                 broken[i], end + 1);
        write_text(path, changed);
        CHECK_EQ_INT(gb_calibration_load(path, key, &back, err, sizeof err), -1);
        CHECK(strncmp(err, "corrupt: ", 9) == 0);
    }
    scratch_end(&s);
}


/* Whether a question's two answers make one plan: never where the plan
 * asks it (its param among packed's effective params: the two answers
 * then differ there), always where a --param the question does not set
 * decides in its place (bpack: bmany and bread are never asked). */
TEST(calibration_same_plan_where_the_answer_is_not_asked)
{
    char err[256];

    for (int threads = 1; threads <= 2; threads++) {
        CHECK_EQ_INT(gb_calibration_same_plan(GB_CALIB_BMANY, threads, "bpack=fused,", err,
                                              sizeof err),
                     1);
        CHECK_EQ_INT(gb_calibration_same_plan(GB_CALIB_B, threads, "bpack=panel_fused,", err,
                                              sizeof err),
                     1);
        for (int q = 0; q < GB_CALIB_QUESTIONS; q++) {
            const gb_calib_question *cq = &gb_calib_questions[q];
            gb_params own;
            char text[128];
            int asked = 0;
            snprintf(text, sizeof text, "%s%s=%s", cq->fixed, cq->param, cq->answers[1]);
            CHECK_EQ_INT(gb_params_parse(&gb_variant_packed, text, &own, err, sizeof err), 0);
            for (int sh = 0; sh < 2; sh++)
                asked |= effective(&gb_variant_packed, &own, cq->M[sh], cq->N, cq->K, threads,
                                   cq->param) >= 0;
            if (asked)
                CHECK_EQ_INT(gb_calibration_same_plan(q, threads, "", err, sizeof err), 0);
        }
    }
    CHECK_EQ_INT(gb_calibration_same_plan(GB_CALIB_B, 1, "bpack=sideways,", err, sizeof err), -1);
}

TEST(calibration_cache_refuses_corrupt_and_stale_files)
{
#define ANSWER(read, ratio) "{\"read\": \"" read "\", \"ratio\": " ratio ", \"ratio_p10\": 0.5, " \
                                "\"ratio_p90\": 2}"
    static const char *const corrupt[] = {
        "",
        "{\"schema\": \"gemmbench-calibration/3\"",
        "[1, 2]",
        "{\"schema\": \"gemmbench-calibration/1\", \"key\": \"KEY\"}",
        "{\"schema\": \"gemmbench-calibration/3\", \"key\": \"KEY\", \"threads\": 2, "
        "\"rounds\": 3, \"b\": " ANSWER("sideways", "1") ", \"a\": " ANSWER("copied", "1") "}",
        "{\"schema\": \"gemmbench-calibration/3\", \"key\": \"KEY\", \"threads\": 2, "
        "\"rounds\": 3, \"b\": " ANSWER("copied", "-1") ", \"a\": " ANSWER("copied", "1") "}",
        "{\"schema\": \"gemmbench-calibration/3\", \"key\": \"KEY\", \"threads\": 2, "
        "\"rounds\": 3, \"b\": " ANSWER("copied", "1.2") "}",
        "{\"schema\": \"gemmbench-calibration/3\", \"key\": \"KEY\", \"threads\": 0, "
        "\"rounds\": 3, \"b\": " ANSWER("copied", "1.2") ", \"a\": " ANSWER("copied", "1") "}",
    };
#undef ANSWER
    env_scratch s;
    gb_machine m, other;
    gb_calibration c = { 2, 7, "measured", { { 0, 0.8, 0.7, 0.9, 0 }, { 0, 0.9, 0.8, 1.0, 0 } },
                         5.5, 4.25 },
                   back;
    char key[1024], other_key[1024], path[4200], other_path[4200], err[512], text[2048];

    if (scratch_begin(&s, NULL) != 0)
        SKIP("no scratch directory");
    gb_machine_detect(&m);
    gb_calibration_key(&m, 2, key, sizeof key);
    CHECK_EQ_INT(gb_calibration_path(key, path, sizeof path, err, sizeof err), 0);
    for (size_t i = 0; i < sizeof corrupt / sizeof corrupt[0]; i++) {
        /* KEY: this machine's key, so that only the broken field refuses it. */
        const char *at = strstr(corrupt[i], "KEY");
        if (at)
            snprintf(text, sizeof text, "%.*s%s%s", (int)(at - corrupt[i]), corrupt[i], key,
                     at + 3);
        else
            snprintf(text, sizeof text, "%s", corrupt[i]);
        write_text(path, text);
        err[0] = '\0';
        CHECK_EQ_INT(gb_calibration_load(path, key, &back, err, sizeof err), -1);
        CHECK(strncmp(err, "corrupt", 7) == 0);
        CHECK(strchr(err, '\n') == NULL);
    }
    /* A machine change: another CPU model, another core of the same name,
     * other caches, another thread count each give another key, so another
     * file; this machine's file copied there is refused as stale. */
    other = m;
    snprintf(other.cpu_model, sizeof other.cpu_model, "%s (another)", m.cpu_model);
    gb_calibration_key(&other, 2, other_key, sizeof other_key);
    CHECK(strcmp(key, other_key) != 0);
    CHECK_EQ_INT(gb_calibration_path(other_key, other_path, sizeof other_path, err, sizeof err),
                 0);
    CHECK(strcmp(path, other_path) != 0);
    CHECK_EQ_INT(gb_calibration_store(other_path, key, &c, err, sizeof err), 0);
    CHECK_EQ_INT(gb_calibration_load(other_path, other_key, &back, err, sizeof err), -1);
    CHECK(strncmp(err, "stale", 5) == 0);
    other = m;
    snprintf(other.cpu_id, sizeof other.cpu_id, "%s, another stepping", m.cpu_id);
    gb_calibration_key(&other, 2, other_key, sizeof other_key);
    CHECK(strcmp(key, other_key) != 0);
    other = m;
    if (other.ncaches > 0) {
        other.caches[0].size_bytes *= 2;
        gb_calibration_key(&other, 2, other_key, sizeof other_key);
        CHECK(strcmp(key, other_key) != 0);
    }
    gb_calibration_key(&m, 1, other_key, sizeof other_key);
    CHECK(strcmp(key, other_key) != 0);
    /* A stale file's key is the file's text: shown escaped, never sent to
     * the terminal as it is. */
    write_text(path, "{\"schema\": \"gemmbench-calibration/3\", \"key\": \"\\u001b[31mred\"}");
    CHECK_EQ_INT(gb_calibration_load(path, key, &back, err, sizeof err), -1);
    CHECK(strncmp(err, "stale", 5) == 0 && strchr(err, '\033') == NULL &&
          strstr(err, "\\x1b[31mred") != NULL);
    /* The plan never uses a refused file: the default. */
    write_text(path, "not json");
    gb_calibration_lookup(&m, 2, &back);
    CHECK_STR(back.source, "default");
    CHECK_EQ_INT(back.answer[GB_CALIB_B].read, GB_READ_IN_PLACE);
    CHECK_EQ_INT(back.answer[GB_CALIB_A].read, GB_READ_IN_PLACE);
    scratch_end(&s);
}

/* A file in the scratch directory for what a call prints: its path. */
static const char *said_path(const env_scratch *s, char *path, size_t len)
{
    snprintf(path, len, "%s/said", s->dir);
    return path;
}

/* The file as text: at most len - 1 bytes of path, NUL-terminated; its
 * length, or -1. */
static long read_text(const char *path, char *text, size_t len)
{
    FILE *f = fopen(path, "rb");
    size_t n;

    if (f == NULL)
        return -1;
    n = fread(text, 1, len - 1, f);
    fclose(f);
    text[n] = '\0';
    return (long)n;
}

static void write_bytes(const char *path, const char *bytes, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(bytes, 1, n, f);
        fclose(f);
    }
}

/* gb_calibration_load of path for key, then packed's plan's lookup (m, 2
 * threads), in a child process that must answer within 5 s: a reader that
 * opens a FIFO without a writer waits for one forever.  The load's value,
 * err and the lookup's source (32 bytes); or -9 when the child did not
 * answer (it is killed). */
static int load_in_time(const char *path, const char *key, const gb_machine *m, char *err,
                        size_t errlen, char source[32])
{
    int fds[2], rc = -9;
    struct pollfd in;
    char msg[600];
    ssize_t n;
    pid_t pid;

    if (pipe(fds) != 0)
        return -9;
    pid = fork();
    if (pid == 0) {
        gb_calibration back;
        char why[512] = "";
        int got;
        close(fds[0]);
        got = gb_calibration_load(path, key, &back, why, sizeof why);
        gb_calibration_lookup(m, 2, &back);
        n = snprintf(msg, sizeof msg, "%d %s %s", got, back.source, why);
        _exit(write(fds[1], msg, (size_t)n) == n ? 0 : 1);
    }
    close(fds[1]);
    in = (struct pollfd){ .fd = fds[0], .events = POLLIN };
    if (pid > 0 && poll(&in, 1, 5000) == 1 && (n = read(fds[0], msg, sizeof msg - 1)) > 0) {
        int used = 0;
        msg[n] = '\0';
        if (sscanf(msg, "%d %31s %n", &rc, source, &used) == 2 && used > 0)
            snprintf(err, errlen, "%s", msg + used);
    } else if (pid > 0) {
        kill(pid, SIGKILL);
    }
    close(fds[0]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    return rc;
}

/* The cache is read as every input file is (inputfile.h): a FIFO at its
 * path is not waited on, neither it nor a directory is read or replaced
 * (the run reads the default, saying so in one line); a file larger than a
 * calibration, one that is not JSON, or JSON that only a lenient parser
 * takes (more after the document, a key twice, a NUL byte) is corrupt. */
TEST(calibration_cache_reads_only_a_small_regular_file)
{
    env_scratch s;
    gb_machine m;
    gb_calibration c = { 2, 7, "measured", { { 0, 0.8, 0.7, 0.9, 0 }, { 0, 0.9, 0.8, 1.0, 0 },
                                             { 1, 1.2, 1.1, 1.3, 0 }, { 0, 0.9, 0.8, 1.0, 0 },
                                             { 1, 1.1, 1.0, 1.2, 0 }, { 0, 0.95, 0.9, 1.0, 0 },
                                             { 1, 1.05, 1.0, 1.1, 0 }, { 0, 0.98, 0.97, 0.99, 0 },
                                             { 1, 1.02, 1.01, 1.03, 0 }, { 1, 1.03, 1.02, 1.04, 0 } },
                         5.5, 4.25 },
                   back;
    char key[1024], path[4200], err[512], source[32] = "", valid[4096], text[4200];
    static char big[70000];
    struct stat st;
    long len;
    int rc;

    if (scratch_begin(&s, NULL) != 0)
        SKIP("no scratch directory");
    gb_machine_detect(&m);
    gb_calibration_key(&m, 2, key, sizeof key);
    CHECK_EQ_INT(gb_calibration_path(key, path, sizeof path, err, sizeof err), 0);
    CHECK_EQ_INT(gb_calibration_store(path, key, &c, err, sizeof err), 0);
    len = read_text(path, valid, sizeof valid);
    CHECK(len > 0 && (size_t)len < sizeof valid - 1);
    CHECK_EQ_INT(load_in_time(path, key, &m, err, sizeof err, source), 0);
    CHECK_STR(source, "cached");

    /* A FIFO without a writer: answered at once, left where it is. */
    CHECK_EQ_INT(unlink(path), 0);
    CHECK_EQ_INT(mkfifo(path, 0600), 0);
    rc = load_in_time(path, key, &m, err, sizeof err, source);
    CHECK_EQ_INT(rc, 2);
    CHECK(strstr(err, "FIFO") != NULL);
    CHECK_STR(source, "default");
    if (rc == 2) {
        /* The run: one line on stderr, nothing measured, nothing written
         * over the FIFO. */
        char said[1024];
        const int saved = dup(2),
                  to = open(said_path(&s, said, sizeof said), O_WRONLY | O_CREAT, 0600);
        setenv("GEMMBENCH_CALIBRATE", "quick", 1);
        fflush(stderr);
        dup2(to, 2);
        CHECK_EQ_INT(gb_calibration_ensure(&m, 2, 0, &back, err, sizeof err), 0);
        fflush(stderr);
        dup2(saved, 2);
        close(saved);
        close(to);
        unsetenv("GEMMBENCH_CALIBRATE");
        CHECK_STR(back.source, "default");
        CHECK_EQ_INT(back.answer[GB_CALIB_B].read, GB_READ_IN_PLACE);
        const long said_len = read_text(said, text, sizeof text);
        CHECK(said_len > 0 && strchr(text, '\n') == text + said_len - 1);
        CHECK(strstr(text, "gemmbench: warning: calibration cache ") == text &&
              strstr(text, "is a FIFO, device or socket, not a regular file") != NULL);
    }
    CHECK(stat(path, &st) == 0 && S_ISFIFO(st.st_mode));
    unlink(path);

    /* A directory. */
    CHECK_EQ_INT(mkdir(path, 0700), 0);
    err[0] = '\0';
    CHECK_EQ_INT(gb_calibration_load(path, key, &back, err, sizeof err), 2);
    CHECK(strstr(err, "directory") != NULL);
    gb_calibration_lookup(&m, 2, &back);
    CHECK_STR(back.source, "default");
    rmdir(path);

    /* Larger than a calibration: the valid file, blanks after it. */
    memset(big, ' ', sizeof big);
    memcpy(big, valid, (size_t)len);
    write_bytes(path, big, sizeof big);
    CHECK_EQ_INT(gb_calibration_load(path, key, &back, err, sizeof err), -1);
    CHECK(strncmp(err, "corrupt: larger", 15) == 0);

    /* Not JSON; and what cJSON_Parse alone would take. */
    write_text(path, "calibration: in place\n");
    CHECK_EQ_INT(gb_calibration_load(path, key, &back, err, sizeof err), -1);
    CHECK_STR(err, "corrupt: not JSON");
    snprintf(text, sizeof text, "%s garbage", valid);
    write_text(path, text);
    CHECK_EQ_INT(gb_calibration_load(path, key, &back, err, sizeof err), -1);
    CHECK(strncmp(err, "corrupt: more after", 19) == 0);
    snprintf(text, sizeof text, "%.*s, \"threads\": 9}", (int)(strrchr(valid, '}') - valid),
             valid);
    write_text(path, text);
    CHECK_EQ_INT(gb_calibration_load(path, key, &back, err, sizeof err), -1);
    CHECK(strstr(err, "twice") != NULL);
    memcpy(text, valid, (size_t)len);
    memcpy(text + len, "\0x", 2);
    write_bytes(path, text, (size_t)len + 2);
    CHECK_EQ_INT(gb_calibration_load(path, key, &back, err, sizeof err), -1);
    CHECK(strncmp(err, "corrupt: binary", 15) == 0);
    gb_calibration_lookup(&m, 2, &back);
    CHECK_STR(back.source, "default");
    /* The valid file itself is still read. */
    write_bytes(path, valid, (size_t)len);
    CHECK_EQ_INT(gb_calibration_load(path, key, &back, err, sizeof err), 0);
    scratch_end(&s);
}

/* The case: the calibration says reading B in place is slower, and
 * packed goes over to the pre-packed-like regime (panel fused, ir outer);
 * it says the opposite, and B is read in place (fused, jr outer).  Both
 * exact, at the shapes the calibration times, with tails, 1 and 2 threads. */
TEST(calibration_result_decides_how_packed_reads_b)
{
    static const int shapes[][3] = { { 16, 3072, 768 }, { 64, 3072, 768 }, { 37, 1100, 70 } };
    const gb_variant *v = gb_variant_find("packed");
    gb_params none = { 0 }, asked = { 0 };
    env_scratch s;

    CHECK(v != NULL); /* in every build */
    if (v == NULL)
        return;
    if (scratch_begin(&s, "in_place") != 0)
        SKIP("no scratch directory");
    CHECK_EQ_INT(effective(v, &none, 16, 3072, 768, 2, "bread"), GB_READ_IN_PLACE);
    CHECK_EQ_INT(effective(v, &none, 16, 3072, 768, 2, "bpack"), BPACK_FUSED);
    CHECK_EQ_INT(effective(v, &none, 16, 3072, 768, 2, "loop"), 1);
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int t = 1; t <= 2; t++)
            CHECK_EQ_INT(run_and_compare(v, &none, shapes[i][0], shapes[i][1], shapes[i][2], 3,
                                         t, 0),
                         0);

    setenv("GEMMBENCH_CALIBRATE", "copied", 1);
    CHECK_EQ_INT(effective(v, &none, 16, 3072, 768, 2, "bread"), GB_READ_COPIED);
    CHECK_EQ_INT(effective(v, &none, 16, 3072, 768, 2, "bpack"), BPACK_PANEL_FUSED);
    CHECK_EQ_INT(effective(v, &none, 16, 3072, 768, 2, "loop"), 0);
    CHECK_EQ_INT(effective(v, &none, 64, 3072, 768, 1, "bpack"), BPACK_PANEL_FUSED);
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int t = 1; t <= 2; t++)
            CHECK_EQ_INT(run_and_compare(v, &none, shapes[i][0], shapes[i][1], shapes[i][2], 3,
                                         t, 0),
                         0);
    /* A: mlp_reduce's rows 12 KiB apart, packed on first use when copied,
     * read in place when in place; both exact. */
    CHECK_EQ_INT(effective(v, &none, 16, 768, 3072, 2, "aread"), GB_READ_COPIED);
    CHECK_EQ_INT(effective(v, &none, 16, 768, 3072, 2, "apack"), APACK_FUSED);
    for (int t = 1; t <= 2; t++) {
        CHECK_EQ_INT(run_and_compare(v, &none, 16, 768, 3072, 3, t, 0), 0);
        CHECK_EQ_INT(run_and_compare(v, &none, 21, 70, 1100, 3, t, 0), 0);
    }
    setenv("GEMMBENCH_CALIBRATE", "in_place", 1);
    CHECK_EQ_INT(effective(v, &none, 16, 768, 3072, 2, "aread"), GB_READ_IN_PLACE);
    CHECK_EQ_INT(effective(v, &none, 16, 768, 3072, 2, "apack"), APACK_IN_PLACE);
    for (int t = 1; t <= 2; t++) {
        CHECK_EQ_INT(run_and_compare(v, &none, 16, 768, 3072, 3, t, 0), 0);
        CHECK_EQ_INT(run_and_compare(v, &none, 21, 70, 1100, 3, t, 0), 0);
    }
    /* K under a page: A in place, not asked. */
    CHECK_EQ_INT(effective(v, &none, 16, 768, 768, 2, "aread"), -1);
    setenv("GEMMBENCH_CALIBRATE", "copied", 1);
    /* Rows under a page apart are not bread's question; bnear's only where
     * an A block holds fewer than M rows: then copied is panel fused (ir
     * outer), in place jr outer; --param bnear forces either at every M;
     * every one exact, 1 and 2 threads.  kc 700 (copied's kc rule would cap
     * it at BLIS's 128): an A block of at most 374 rows on an L2 up to
     * 2 MiB, so M = 600 takes two or more. */
    CHECK_EQ_INT(effective(v, &none, 16, 768, 768, 2, "bread"), -1);
    CHECK_EQ_INT(effective(v, &none, 16, 768, 768, 2, "bpack"), 1);
    CHECK_EQ_INT(effective(v, &none, 16, 768, 768, 2, "bnear"), -1);
    gb_param_set(&asked, "kc", 700);
    CHECK_EQ_INT(effective(v, &asked, 16, 768, 768, 2, "bnear"), -1);
    CHECK_EQ_INT(effective(v, &asked, 600, 768, 768, 2, "bnear"), GB_READ_COPIED);
    CHECK_EQ_INT(effective(v, &asked, 600, 768, 768, 2, "bpack"), BPACK_PANEL_FUSED);
    CHECK_EQ_INT(effective(v, &asked, 600, 768, 768, 2, "loop"), 0);
    for (int t = 1; t <= 2; t++)
        CHECK_EQ_INT(run_and_compare(v, &asked, 601, 70, 770, 3, t, 0), 0);
    setenv("GEMMBENCH_CALIBRATE", "in_place", 1);
    CHECK_EQ_INT(effective(v, &asked, 600, 768, 768, 2, "bnear"), GB_READ_IN_PLACE);
    CHECK_EQ_INT(effective(v, &asked, 600, 768, 768, 2, "bpack"), 1);
    CHECK_EQ_INT(effective(v, &asked, 600, 768, 768, 2, "loop"), 1);
    for (int t = 1; t <= 2; t++)
        CHECK_EQ_INT(run_and_compare(v, &asked, 601, 70, 770, 3, t, 0), 0);
    gb_param_set(&asked, "bnear", GB_READ_COPIED);
    CHECK_EQ_INT(effective(v, &asked, 16, 768, 768, 2, "bpack"), BPACK_PANEL_FUSED);
    for (int t = 1; t <= 2; t++)
        CHECK_EQ_INT(run_and_compare(v, &asked, 19, 70, 770, 3, t, 0), 0);
    asked = (gb_params){ 0 };
    setenv("GEMMBENCH_CALIBRATE", "copied", 1);
    /* B fused's copy: the calibration's answer, at 8 A micro-panels
     * (mlp_expand M=64, B fused forced); in place never copies, copied from
     * the rule's 5 up; both exact, 1 and 2 threads; --param bcopy overrides. */
    gb_param_set(&asked, "bpack", BPACK_FUSED);
    setenv("GEMMBENCH_CALIBRATE", "in_place", 1);
    CHECK_EQ_INT(effective(v, &asked, 64, 3072, 768, 2, "bcopy"), GB_READ_IN_PLACE);
    for (int t = 1; t <= 2; t++)
        CHECK_EQ_INT(run_and_compare(v, &asked, 45, 1100, 70, 3, t, 0), 0);
    setenv("GEMMBENCH_CALIBRATE", "copied", 1);
    CHECK_EQ_INT(effective(v, &asked, 64, 3072, 768, 2, "bcopy"), GB_READ_COPIED);
    CHECK_EQ_INT(effective(v, &asked, 16, 3072, 768, 2, "bcopy"), GB_READ_IN_PLACE);
    CHECK_EQ_INT(effective(v, &asked, 45, 1100, 70, 2, "bcopy"), GB_READ_COPIED);
    for (int t = 1; t <= 2; t++)
        CHECK_EQ_INT(run_and_compare(v, &asked, 45, 1100, 70, 3, t, 0), 0);
    gb_param_set(&asked, "bcopy", GB_READ_IN_PLACE);
    CHECK_EQ_INT(effective(v, &asked, 64, 3072, 768, 2, "bcopy"), GB_READ_IN_PLACE);
    setenv("GEMMBENCH_CALIBRATE", "in_place", 1);
    gb_param_set(&asked, "bcopy", GB_READ_COPIED);
    CHECK_EQ_INT(effective(v, &asked, 64, 3072, 768, 2, "bcopy"), GB_READ_COPIED);
    /* B's prefetch, rows a page or more apart read in place: answer 0 the
     * set rule's distance into L1, answer 1 none ahead (into L2 only); both
     * exact; --param bprefetch overrides, --param bpf asks nothing. */
    asked = (gb_params){ 0 };
    gb_param_set(&asked, "bpack", BPACK_FUSED);
    setenv("GEMMBENCH_CALIBRATE", "in_place", 1);
    CHECK_EQ_INT(effective(v, &asked, 16, 3072, 768, 2, "bprefetch"), 0);
    CHECK(effective(v, &asked, 16, 3072, 768, 2, "bpf") > 0);
    setenv("GEMMBENCH_CALIBRATE", "copied", 1);
    CHECK_EQ_INT(effective(v, &asked, 16, 3072, 768, 2, "bprefetch"), 1);
    CHECK_EQ_INT(effective(v, &asked, 16, 3072, 768, 2, "bpf"), 0);
    for (int t = 1; t <= 2; t++)
        CHECK_EQ_INT(run_and_compare(v, &asked, 19, 1100, 70, 3, t, 0), 0);
    /* Rows under a page apart: the set rule, nothing asked. */
    CHECK_EQ_INT(effective(v, &none, 16, 768, 768, 2, "bprefetch"), -1);
    CHECK(effective(v, &none, 16, 768, 768, 2, "bpf") > 0);
    gb_param_set(&asked, "bprefetch", 0);
    CHECK_EQ_INT(effective(v, &asked, 16, 3072, 768, 2, "bprefetch"), 0);
    CHECK(effective(v, &asked, 16, 3072, 768, 2, "bpf") > 0);
    gb_param_set(&asked, "bpf", 5);
    CHECK_EQ_INT(effective(v, &asked, 16, 3072, 768, 2, "bprefetch"), -1);
    CHECK_EQ_INT(effective(v, &asked, 16, 3072, 768, 2, "bpf"), 5);
    /* B's L2 prefetch 16 rows ahead, where every pass of B fused reads its
     * rows (a page or more apart) in place while the next micro-panel is
     * prefetched: answer 0 on, 1 off; asked only there, --param bfar
     * overrides; off exact, 1 and 2 threads. */
    asked = (gb_params){ 0 };
    gb_param_set(&asked, "bpack", BPACK_FUSED);
    gb_param_set(&asked, "bcopy", GB_READ_IN_PLACE);
    setenv("GEMMBENCH_CALIBRATE", "in_place", 1);
    CHECK_EQ_INT(effective(v, &asked, 16, 3072, 768, 2, "bfar"), GB_ON);
    setenv("GEMMBENCH_CALIBRATE", "copied", 1);
    CHECK_EQ_INT(effective(v, &asked, 16, 3072, 768, 2, "bfar"), GB_OFF);
    CHECK_EQ_INT(effective(v, &asked, 64, 3072, 768, 2, "bfar"), GB_OFF);
    for (int t = 1; t <= 2; t++)
        CHECK_EQ_INT(run_and_compare(v, &asked, 19, 1100, 70, 3, t, 0), 0);
    /* A first pass that copies keeps it (M = 64 at 1 thread: 8 A
     * micro-panels), and so does a B no next-micro-panel prefetch brings,
     * or rows under a page apart: not asked. */
    gb_param_set(&asked, "bcopy", GB_READ_COPIED);
    CHECK_EQ_INT(effective(v, &asked, 64, 3072, 768, 1, "bfar"), -1);
    CHECK_EQ_INT(effective(v, &asked, 16, 3072, 768, 1, "bfar"), GB_OFF);
    gb_param_set(&asked, "bnext", 0);
    CHECK_EQ_INT(effective(v, &asked, 16, 3072, 768, 1, "bfar"), -1);
    CHECK_EQ_INT(effective(v, &none, 16, 768, 768, 2, "bfar"), -1);
    asked = (gb_params){ 0 };
    gb_param_set(&asked, "bpack", BPACK_FUSED);
    gb_param_set(&asked, "bfar", GB_ON);
    CHECK_EQ_INT(effective(v, &asked, 16, 3072, 768, 2, "bfar"), GB_ON);
    asked = (gb_params){ 0 };
    /* --param bread overrides the calibration, both ways. */
    gb_param_set(&asked, "bread", GB_READ_IN_PLACE);
    CHECK_EQ_INT(effective(v, &asked, 16, 3072, 768, 2, "bpack"), BPACK_FUSED);
    setenv("GEMMBENCH_CALIBRATE", "in_place", 1);
    gb_param_set(&asked, "bread", GB_READ_COPIED);
    CHECK_EQ_INT(effective(v, &asked, 16, 3072, 768, 2, "bpack"), BPACK_PANEL_FUSED);
    scratch_end(&s);
}

TEST(calibration_measures_caches_and_measures_again_when_refused)
{
    env_scratch s;
    gb_machine m;
    gb_calibration c, again;
    char key[1024], path[4200], err[512];

    if (scratch_begin(&s, "quick") != 0)
        SKIP("no scratch directory");
    gb_machine_detect(&m);
    CHECK_EQ_INT(gb_calibration_ensure(&m, 2, 1, &c, err, sizeof err), 0);
    CHECK_STR(c.source, "measured");
    CHECK_EQ_INT(c.threads, 2);
    CHECK_EQ_INT(c.rounds, 3);
    /* the threads' cost, measured at 2 */
    CHECK(c.small_us > 0.0 && c.small_t_us > 0.0);
    for (int q = 0; q < GB_CALIB_QUESTIONS; q++) {
        const gb_calib_answer *a = &c.answer[q];
        /* One plan for both answers here: nothing timed, the first. */
        if (a->same_plan) {
            CHECK(a->read == 0 && a->ratio == 0.0);
            continue;
        }
        CHECK(a->ratio > 0.0 && a->ratio_p10 <= a->ratio && a->ratio <= a->ratio_p90);
        /* The choice is the measurement's: answer 1 above the question's
         * ratio (1.10x for B and A, 1.02x for bfar and bnearnext, 1.0x
         * for the rest), else answer 0. */
        CHECK_EQ_INT(a->read, a->ratio > (q == GB_CALIB_B || q == GB_CALIB_A      ? 1.10
                                          : q == GB_CALIB_BFAR || q == GB_CALIB_BNEARNEXT ? 1.02
                                                                                  : 1.0));
    }
    gb_calibration_key(&m, 2, key, sizeof key);
    CHECK_EQ_INT(gb_calibration_path(key, path, sizeof path, err, sizeof err), 0);
    CHECK_EQ_INT(access(path, R_OK), 0);
    CHECK_EQ_INT(gb_calibration_ensure(&m, 2, 1, &again, err, sizeof err), 0);
    CHECK_STR(again.source, "cached");
    CHECK_EQ_INT(again.answer[GB_CALIB_B].read, c.answer[GB_CALIB_B].read);
    /* cJSON writes 15 digits when they read back within an epsilon. */
    CHECK(fabs(again.answer[GB_CALIB_A].ratio - c.answer[GB_CALIB_A].ratio) <=
          1e-12 * c.answer[GB_CALIB_A].ratio);
    write_text(path, "{\"schema\": \"gemmbench-calibration/3\"}");
    CHECK_EQ_INT(gb_calibration_ensure(&m, 2, 1, &again, err, sizeof err), 0);
    CHECK_STR(again.source, "measured");
    CHECK_EQ_INT(gb_calibration_load(path, key, &again, err, sizeof err), 0);
    /* A value GEMMBENCH_CALIBRATE does not take is an input error. */
    setenv("GEMMBENCH_CALIBRATE", "sideways", 1);
    CHECK_EQ_INT(gb_calibration_ensure(&m, 2, 1, &again, err, sizeof err), -1);
    CHECK(strstr(err, "GEMMBENCH_CALIBRATE=sideways") != NULL);
    /* Forced: nothing measured or read. */
    setenv("GEMMBENCH_CALIBRATE", "copied", 1);
    CHECK_EQ_INT(gb_calibration_ensure(&m, 2, 1, &again, err, sizeof err), 0);
    CHECK_STR(again.source, "forced");
    CHECK_EQ_INT(again.answer[GB_CALIB_B].read, GB_READ_COPIED);
    CHECK_EQ_INT(again.answer[GB_CALIB_A].read, GB_READ_COPIED);
    scratch_end(&s);
}
