/* test_sched_space.c - search spaces (src/sched/space.c): every malformed
 * space refused with its message, FILE:LINE of the space; the text of a
 * point; a refused point named by the space's line; the points drawn and
 * mutated stay in the space; the default space parses. */
#define _POSIX_C_SOURCE 200809L /* setenv, strdup */
#include "test.h"
#include "sched_space.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gb_space space_buf;

static int parse(const char *text, char *err, size_t errlen)
{
    gb_space_free(&space_buf);
    return gb_space_parse("t.space", text, strlen(text), &space_buf, err, errlen);
}

static const struct {
    const char *text;
    const char *message;
} refused[] = {
    { "choose now\nsplit i 4 -> a b\nor\nend\n", "t.space:1: choose: trailing text" },
    { "or\n", "t.space:1: or: outside a choose block" },
    { "split i 4 -> a b\nend\n", "t.space:2: end: outside a choose block" },
    { "choose\nchoose\n", "t.space:2: choose: inside the block of line 1 (blocks do not nest)" },
    { "choose\nsplit i 4 -> a b\nor\n", "t.space:1: choose: no `end` before the end of the file" },
    { "choose\nsplit i 4 -> a b\nend\n",
      "t.space:3: end: the block of line 1 has one alternative (no `or`)" },
    { "choose\nparam t = 4 in 4,8\nor\nend\n",
      "t.space:2: param: inside a choose block (state params before the blocks)" },
    { "choose\nsplit i 4 -> a\nor\nend\n", "t.space:2: split: expected a new loop name, found the end of the line" },
    { "param t = 3 in 4,8\n", "t.space:1: param: value 3 is not in its own set" },
    { "param t = 4\nparam t = 8\n", "t.space:2: param: name 't' is used twice (a param, line 1)" },
    { "choose\nor\nor\nor\nor\nor\nor\nor\nor\nend\n", "t.space:9: or: more than 8 alternatives" },
    /* what a line says on its own is checked whichever point uses it */
    { "choose\nsplit i 99999999 -> a b\nor\nend\n",
      "t.space:2: split: factor 99999999 is not in 1..65536" },
    { "split i 4 -> a b\nchoose\nsplit a t -> c d\nor\nend\n", "t.space:3: split: no param 't'" },
    /* the first error by line: a statement above a broken block */
    { "splat i\nor\n", "t.space:1: unknown statement 'splat'" },
    { "split i 4 -> a b\nend x\n", "t.space:2: end: trailing text" },
    { "choose\nsplit i 4 -> a b\nor\nend # a comment is fine\nor\n",
      "t.space:5: or: outside a choose block" },
};

TEST(space_refuses_each_malformed_space_with_its_message)
{
    char err[512];

    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        int rc = parse(refused[i].text, err, sizeof err);
        if (rc == 0 || strcmp(err, refused[i].message) != 0) {
            char msg[1400];
            snprintf(msg, sizeof msg, "space %zu: got %s'%s', expected '%s'", i,
                     rc == 0 ? "no refusal, " : "", err, refused[i].message);
            gb_test_fail(__FILE__, __LINE__, msg);
        }
    }
}

TEST(space_refuses_a_seventeenth_block_and_binary_text)
{
    char text[2048] = "", err[512];

    for (int b = 0; b < 17; b++)
        strcat(text, "choose\nor\nend\n");
    CHECK(parse(text, err, sizeof err) == -1);
    CHECK_STR(err, "t.space:49: choose: more than 16 blocks");
    CHECK(gb_space_parse("t.space", "split i 4 -> a b\n\0\n", 19, &space_buf, err,
                         sizeof err) == -1);
    CHECK(strncmp(err, "t.space:2: ", 11) == 0);
    /* a marker line over the language's 256 characters, refused before its
     * words are copied (a 289-character `choose` line overflowed the copy:
     * fuzz_sched) */
    snprintf(text, sizeof text, "choose b_copy %0300d\nor\nend\n", 0);
    CHECK(parse(text, err, sizeof err) == -1);
    CHECK_STR(err, "t.space:1: choose: line longer than 256 characters");
    snprintf(text, sizeof text, "choose\nor %0300d\nend\n", 0);
    CHECK(parse(text, err, sizeof err) == -1);
    CHECK_STR(err, "t.space:2: or: line longer than 256 characters");
}

static const char small[] =
    "# a small space\n"                       /* 1 */
    "param t = 8 in 4,8,16\n"                 /* 2 */
    "split i t -> io ii\n"                    /* 3 */
    "choose\n"                                /* 4 */
    "  reorder ii io   # inner first\n"      /* 5 */
    "or\n"                                    /* 6 */
    "or\n"                                    /* 7 */
    "  parallel ii\n"                         /* 8 */
    "end\n"                                   /* 9 */
    "choose\n"                                /* 10 */
    "  vectorize j\n"                         /* 11 */
    "or\n"                                    /* 12 */
    "  unroll k 4\n"                          /* 13 */
    "end\n";                                  /* 14 */

TEST(space_makes_the_text_of_a_point)
{
    gb_space_point p;
    char err[512], text[1024];
    static gb_sched nest;

    CHECK(parse(small, err, sizeof err) == 0);
    CHECK_EQ_INT(space_buf.nblocks, 2);
    CHECK_EQ_INT(space_buf.nalts[0], 3);
    CHECK_EQ_INT(space_buf.nparams, 1);
    CHECK_EQ_INT(space_buf.params[0].nvalues, 3);
    CHECK_EQ_INT(space_buf.params[0].initial, 1);
    CHECK(gb_space_size(&space_buf) == 18.0);

    gb_space_initial(&space_buf, &p);
    CHECK(gb_space_text(&space_buf, &p, 0, text, sizeof text) == 0);
    CHECK_STR(text, "param t = 8\nsplit i t -> io ii\nreorder ii io   # inner first\n"
                    "vectorize j\n");
    p.alt[0] = 1, p.alt[1] = 1, p.value[0] = 2;
    CHECK(gb_space_text(&space_buf, &p, 0, text, sizeof text) == 0);
    CHECK_STR(text, "param t = 16\nsplit i t -> io ii\nunroll k 4\n");
    CHECK(gb_space_check(&space_buf, &p, &nest, err, sizeof err) == 0);
    CHECK(gb_space_text(&space_buf, &p, 0, text, 20) == -1); /* does not fit */

    /* A space of comments only (or nothing) is the empty text, not what the
     * buffer held before. */
    for (int keep = 0; keep <= 1; keep++) {
        memset(text, 'x', sizeof text);
        CHECK(parse(keep ? "" : "# comments only\n\n", err, sizeof err) == 0);
        gb_space_initial(&space_buf, &p);
        CHECK(gb_space_text(&space_buf, &p, 0, text, sizeof text) == 0);
        CHECK(memchr(text, '\0', sizeof text) != NULL && strspn(text, "\n") == strlen(text));
    }
    CHECK(parse(small, err, sizeof err) == 0);
    gb_space_initial(&space_buf, &p);

    /* A refused point names the space's line: ii is not the outer loop of a
     * split it could be parallel in... it is legal; vectorize of the parallel
     * loop is not. */
    p.alt[0] = 2, p.alt[1] = 0;
    CHECK(gb_space_check(&space_buf, &p, &nest, err, sizeof err) == 0);
    CHECK(parse("split i 4 -> io ii\nchoose\nparallel io\nor\nparallel ii\nend\n"
                "choose\nvectorize io\nor\nvectorize ii\nend\n", err, sizeof err) == 0);
    gb_space_initial(&space_buf, &p);
    CHECK(gb_space_check(&space_buf, &p, &nest, err, sizeof err) == -1);
    CHECK_STR(err, "t.space:8: vectorize: 'io' is parallel (line 3)");
}

TEST(space_points_drawn_and_mutated_stay_in_the_space)
{
    gb_space_point p, q;
    unsigned rng = 12345;
    char err[512];
    int moved = 0;

    CHECK(parse(small, err, sizeof err) == 0);
    gb_space_initial(&space_buf, &p);
    for (int n = 0; n < 2000; n++) {
        q = p;
        if (n % 10 == 0)
            gb_space_random(&space_buf, &rng, &p);
        else
            gb_space_mutate(&space_buf, &rng, &p);
        moved += memcmp(&p, &q, sizeof p) != 0;
        for (int b = 0; b < space_buf.nblocks; b++)
            CHECK(p.alt[b] >= 0 && p.alt[b] < space_buf.nalts[b]);
        CHECK(p.value[0] >= 0 && p.value[0] < space_buf.params[0].nvalues);
    }
    CHECK(moved > 1800); /* a mutation always changes a choice */
}

TEST(space_default_space_parses_and_has_legal_points)
{
    static gb_sched nest;
    gb_space_point p;
    unsigned rng = 7;
    char err[512];
    int legal = 0;

    gb_space_free(&space_buf);
    if (gb_space_load("schedules/cpu_gemm.space", &space_buf, err, sizeof err) != 0) {
        gb_test_fail(__FILE__, __LINE__, err);
        return;
    }
    CHECK(space_buf.nblocks >= 3);
    CHECK(gb_space_size(&space_buf) > 1000.0);
    gb_space_initial(&space_buf, &p);
    CHECK(gb_space_check(&space_buf, &p, &nest, err, sizeof err) == 0);
    for (int n = 0; n < 200; n++) {
        gb_space_random(&space_buf, &rng, &p);
        legal += gb_space_check(&space_buf, &p, &nest, err, sizeof err) == 0;
    }
    CHECK(legal > 20);
    gb_space_free(&space_buf);
}

/* A named block (`choose a_read copied`): its alternatives' answers, and
 * the search's first point at the model's answer for the shape (A's rows
 * 3 KiB apart at K = 768: in place, the second alternative); a named
 * block's `or` names an answer of its choice. */
TEST(space_named_block_starts_at_the_models_answer)
{
    static const char text[] = "split i 8 -> io ii\nchoose a_read copied\n  pack A at io\n"
                               "or in_place\nend\n";
    gb_space_point p;
    char err[512];

    CHECK(parse(text, err, sizeof err) == 0);
    CHECK(space_buf.nblocks == 1 && space_buf.choice[0] == GB_CHOICE_A_READ);
    CHECK(space_buf.answer[0][0] == 1 && space_buf.answer[0][1] == 0);
    gb_space_initial_at(&space_buf, &p, 16, 768, 768, 1);
    CHECK(p.alt[0] == 1);
    gb_space_free(&space_buf);
    /* B's rows 12 KiB apart (N = 3072) and the calibration copying them
     * (b_read copied): a space without a b_read block starts from B's
     * micro-panels copied (b_copy copied); one with it, from B copied
     * whole there and its micro-panels not again (b_copy in place). */
    {
        const char *saved = getenv("GEMMBENCH_CALIBRATE");
        char *keep = saved ? strdup(saved) : NULL;
        setenv("GEMMBENCH_CALIBRATE", "copied", 1);
        CHECK(parse("split j 48 -> jo ji\nchoose b_copy in_place\nor copied\n  pack B at jo "
                    "fused\nend\n", err, sizeof err) == 0);
        gb_space_initial_at(&space_buf, &p, 64, 3072, 768, 1);
        CHECK(p.alt[0] == 1);
        gb_space_initial_at(&space_buf, &p, 64, 768, 768, 1); /* rows 3 KiB apart: in place */
        CHECK(p.alt[0] == 0);
        gb_space_free(&space_buf);
        CHECK(parse("split j 48 -> jo ji\nsplit i 8 -> io ii\nchoose b_read in_place\nor "
                    "copied\n  pack B at io fused\nend\nchoose b_copy in_place\nor copied\n"
                    "  pack B at jo fused\nend\n", err, sizeof err) == 0);
        gb_space_initial_at(&space_buf, &p, 64, 3072, 768, 1);
        CHECK(p.alt[0] == 1 && p.alt[1] == 0);
        if (keep)
            setenv("GEMMBENCH_CALIBRATE", keep, 1);
        else
            unsetenv("GEMMBENCH_CALIBRATE");
        free(keep);
    }
    CHECK(parse("choose a_read copied\nor\nend\n", err, sizeof err) == -1);
    CHECK(strcmp(err, "t.space:2: or: no answer of the block's choice") == 0);
    CHECK(parse("choose a_read sometimes\nor in_place\nend\n", err, sizeof err) == -1);
    CHECK(strcmp(err, "t.space:1: choose: trailing text") == 0);
    gb_space_free(&space_buf);
}
