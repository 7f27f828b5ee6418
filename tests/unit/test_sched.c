/* test_sched.c - the schedule language's parser and checker: every rule of
 * src/sched/SCHED.md refuses its schedule with the message it must print,
 * before anything is compiled; legal schedules make the nest they say. */
#include "test.h"
#include "sched_lang.h"
#include "machine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gb_sched_text text_buf;
static gb_sched nest_buf;

/* Parses and checks text as the file t.sched: 0, or -1 with err. */
static int check_text(const char *text, char *err, size_t errlen)
{
    return gb_sched_from_text("t.sched", text, strlen(text), &nest_buf, err, errlen);
}

/* Each illegal schedule and the message it must give (the whole line). */
static const struct {
    const char *text;
    const char *message;
} refused[] = {
    /* unknown or used-up loops */
    { "split x 4 -> a b\n", "t.sched:1: split: no loop 'x'" },
    { "split i 4 -> io ii\nsplit i 2 -> a b\n", "t.sched:2: split: loop 'i' was split into io, ii" },
    { "split i 4 -> io ii\nsplit j 4 -> jo ji\nreorder io jo ii ji\nfuse io jo -> f\nparallel io\n",
      "t.sched:5: parallel: loop 'io' was fused into 'f'" },
    { "param t = 4\nvectorize t\n", "t.sched:2: vectorize: 't' is a param, not a loop" },
    /* params */
    { "split k t -> ko ki\n", "t.sched:1: split: no param 't'" },
    { "param t = 4 in 8,16\n", "t.sched:1: param: value 4 is not in its own set" },
    { "param t = 4 in 16..8\n", "t.sched:1: param: range 16..8 is not within 1..65536, low to high" },
    { "param t = 0\n", "t.sched:1: param: value 0 is not in 1..65536" },
    { "param t = 4 in 4,8,4\n", "t.sched:1: param: value 4 is in the set twice" },
    /* names */
    { "split i 4 -> io io\n", "t.sched:1: split: name 'io' is used twice" },
    { "split i 4 -> j ii\n", "t.sched:1: split: name 'j' is used twice (a loop of the computation)" },
    { "param t = 4\nsplit i 4 -> t ii\n", "t.sched:2: split: name 't' is used twice (a param, line 1)" },
    { "split i 4 -> in ii\n", "t.sched:1: split: 'in' is a word of the language, not a name" },
    { "split i 4 -> Io ii\n", "t.sched:1: split: name 'Io' is not [a-z_][a-z0-9_]*" },
    { "split i 4 -> a_very_long_name_of_thirty_two_ch ii\n",
      "t.sched:1: split: name 'a_very_long_name_of_thirty_two_...' is longer than 31 characters" },
    /* factors */
    { "split i 0 -> io ii\n", "t.sched:1: split: factor 0 is not in 1..65536" },
    { "split i 100000 -> io ii\n", "t.sched:1: split: factor 100000 is not in 1..65536" },
    { "split i 99999999999 -> io ii\n", "t.sched:1: split: number '99999999999' has more than 9 digits" },
    /* reorder */
    { "reorder i i\n", "t.sched:1: reorder: loop 'i' is named twice" },
    { "reorder i\n", "t.sched:1: reorder: needs at least two loops" },
    /* fuse */
    { "fuse i k -> f\n", "t.sched:1: fuse: 'k' is a reduction loop; only spatial loops fuse" },
    { "reorder i k j\nfuse i j -> f\n", "t.sched:2: fuse: 'i' and 'j' are not adjacent, the first directly outside the second" },
    { "fuse j i -> f\n", "t.sched:1: fuse: 'j' and 'i' are not adjacent, the first directly outside the second" },
    /* parallel */
    { "parallel k\n", "t.sched:1: parallel: 'k' is a reduction loop: its threads would add into the same C" },
    { "parallel i\nparallel j\n", "t.sched:2: parallel: 'i' is parallel already (line 1); one parallel loop per nest" },
    { "vectorize j\nparallel j\n", "t.sched:2: parallel: 'j' is vectorized (line 1)" },
    { "parallel i poll\n", "t.sched:1: parallel: expected 'pool', found 'poll'" },
    { "split j 4 -> jo ji\nparallel jo pool\n", "t.sched:2: parallel: pool: 'jo' is not the "
      "outermost loop: the pool's threads share nothing but the parallel loop's iterations" },
    { "parallel j pool\nreorder j i\npack B at root\n", "t.sched:1: parallel: pool: B is packed "
      "at root (line 3), outside the parallel loop: the pool's threads share nothing but its "
      "iterations" },
    /* vectorize */
    { "vectorize k\n", "t.sched:1: vectorize: 'k' is a reduction loop; only spatial loops vectorize" },
    { "vectorize j\nvectorize i\n", "t.sched:2: vectorize: 'j' is vectorized already (line 1); one vectorized loop per nest" },
    /* unroll */
    { "unroll k\n", "t.sched:1: unroll: unrolling all of 'k' needs the inner loop of a split by at most 512 (or give a count)" },
    { "split k 1024 -> ko ki\nunroll ki\n", "t.sched:2: unroll: unrolling all of 'ki' needs the inner loop of a split by at most 512 (or give a count)" },
    { "unroll k 0\n", "t.sched:1: unroll: count 0 is not in 1..512" },
    { "parallel i\nunroll i 4\n", "t.sched:2: unroll: 'i' is parallel (line 1)" },
    { "unroll i 4\nparallel i\n", "t.sched:2: parallel: 'i' is unrolled (line 1)" },
    /* nested unrolls multiply: their product is bounded, counted as each
     * loop can iterate (a count over a split's factor makes the factor) */
    { "split i 512 -> io ii\nsplit j 512 -> jo ji\nsplit k 512 -> ko ki\n"
      "reorder io jo ko ii ji ki\nunroll ii\nunroll ji\nunroll ki\n",
      "t.sched:6: unroll: 'ji' unrolled 512 times within loops unrolled 512 times is 262144 copies of the body, over 512" },
    { "param t = 4 in 4,8,16\nsplit k t -> ko ki\nsplit i 8 -> io ii\nunroll ki\nunroll ii\nunroll j 5\n",
      "t.sched:6: unroll: 'j' unrolled 5 times within loops unrolled 128 times is 640 copies of the body, over 512" },
    /* cache_write */
    { "cache_write C at k\n", "t.sched:1: cache_write: 'k' is a reduction loop: the tile would be written before its sums are complete" },
    { "reorder k i j\ncache_write C at i\n", "t.sched:2: cache_write: reduction loop 'k' is at or outside 'i': the tile would be written before its sums are complete" },
    { "cache_write C at j\nreorder i k j\n", "t.sched:1: cache_write: reduction loop 'k' is at or outside 'j': the tile would be written before its sums are complete" },
    { "split i 4 -> io ii\nreorder ii io j k\ncache_write C at ii\n",
      "t.sched:3: cache_write: 'io' is inside 'ii' but 'ii' is not: the tile would not be a dense block of C" },
    { "cache_write C at i\ncache_write C at j\n", "t.sched:2: cache_write: C is cached at 'i' already (line 1)" },
    { "cache_write A at i\n", "t.sched:1: cache_write: expected C, found 'A'" },
    /* pack */
    { "pack B at root\npack B at i\n", "t.sched:2: pack: B is packed already (line 1)" },
    { "pack C at root\n", "t.sched:1: pack: expected A or B, found 'C'" },
    { "vectorize j\npack B at j\n", "t.sched:2: pack: 'j' is the vectorized loop" },
    /* pack ... fused */
    { "pack B at root fused\n", "t.sched:1: pack: a fused pack needs a loop, not root: its copy is made in the first pass of a loop inside it" },
    { "pack B at j fused\n", "t.sched:1: pack: fused: no unfused i loop inside 'j' to make the copy in its first pass" },
    { "pack B at i fusedd\n", "t.sched:1: pack: expected 'fused', found 'fusedd'" },
    { "reorder k i j\nparallel i\npack B at k fused\n", "t.sched:3: pack: fused: parallel loop 'i' is inside 'k': threads would read the copy before its pass wrote it" },
    { "split i 4 -> io ii\nreorder io k ii j\npack B at io fused\n", "t.sched:3: pack: fused: 'k' reads B outside the pass loop 'ii': the first pass would not copy all of it" },
    /* prefetch */
    { "prefetch B at k\nprefetch B at j 4\n", "t.sched:2: prefetch: B is prefetched already (line 1)" },
    { "prefetch x at k\n", "t.sched:1: prefetch: expected A, B or C, found 'x'" },
    { "prefetch B at root\n", "t.sched:1: prefetch: expected a loop, found 'root'" },
    { "prefetch B k\n", "t.sched:1: prefetch: expected 'at', found 'k'" },
    { "prefetch B at k 0\n", "t.sched:1: prefetch: distance 0 is not in 1..1024" },
    { "prefetch B at k 1025\n", "t.sched:1: prefetch: distance 1025 is not in 1..1024" },
    { "prefetch B at k d\n", "t.sched:1: prefetch: no param 'd'" },
    { "prefetch B at k i\n", "t.sched:1: prefetch: 'i' is a loop, not a param" },
    { "param d = 8 in 8..2048\nprefetch B at k d\n", "t.sched:2: prefetch: param 'd' reaches 2048, over the distance's 1024" },
    { "prefetch B at k 4 4\n", "t.sched:1: prefetch: unexpected '4' after the statement" },
    { "vectorize j\nprefetch B at j\n", "t.sched:2: prefetch: 'j' is the vectorized loop: its iterations are lanes" },
    { "prefetch B at j\nvectorize j\n", "t.sched:1: prefetch: 'j' is the vectorized loop: its iterations are lanes" },
    { "fuse i j -> f\nprefetch A at f\n", "t.sched:2: prefetch: 'f' is a fused loop: its next iterations are no step along one axis" },
    { "prefetch C at i\nsplit i 4 -> io ii\n", "t.sched:2: split: 'i' is a prefetch site (line 1); split and fuse come before annotations" },
    /* prefetch ... over INNER: a box spread over the loops inside LOOP */
    { "prefetch B at k over k\n", "t.sched:1: prefetch: 'k' is spread over itself: name a loop inside it" },
    { "prefetch B at k over x\n", "t.sched:1: prefetch: no loop 'x'" },
    { "prefetch B at k over i\n", "t.sched:1: prefetch: 'i' is not inside 'k': the box is spread over loops inside it" },
    { "prefetch B at i over k\nreorder k i j\n", "t.sched:1: prefetch: 'k' is not inside 'i': the box is spread over loops inside it" },
    { "prefetch B at i over k\nprefetch B at j over k\n", "t.sched:2: prefetch: B has a spread prefetch already (line 1)" },
    { "prefetch A at i over k\nprefetch B at i over k\n", "t.sched:2: prefetch: 'k' spreads a prefetch already (line 1): its iterations split once" },
    { "vectorize j\nprefetch B at i over j\n", "t.sched:2: prefetch: 'j' is the vectorized loop: its iterations are lanes" },
    { "reorder k i j\nparallel i\nprefetch B at k over i\n", "t.sched:3: prefetch: 'i' is the parallel loop: its iterations are the threads'" },
    { "prefetch B at i over\n", "t.sched:1: prefetch: expected a loop, found the end of the line" },
    { "prefetch B at i over 4\n", "t.sched:1: prefetch: expected a loop, found '4'" },
    { "prefetch B at i over k 2\n", "t.sched:1: prefetch: unexpected '2' after the statement" },
    { "param over = 2\n", "t.sched:1: param: 'over' is a word of the language, not a name" },
    { "split k 4 -> over ki\n", "t.sched:1: split: 'over' is a word of the language, not a name" },
    { "prefetch B at i over k\nsplit k 4 -> ko ki\n", "t.sched:2: split: 'k' is a prefetch site (line 1); split and fuse come before annotations" },
    { "fuse i j -> f\nprefetch B at f over k\n", "t.sched:2: prefetch: 'f' is a fused loop: its next iterations are no step along one axis" },
    /* annotations come after split and fuse */
    { "parallel i\nsplit i 4 -> io ii\n", "t.sched:2: split: 'i' is parallel (line 1); split and fuse come before annotations" },
    /* form */
    { "splitt i 4 -> io ii\n", "t.sched:1: unknown statement 'splitt'" },
    { "split i 4 -> io ii extra\n", "t.sched:1: split: unexpected 'extra' after the statement" },
    { "split i 4 io ii\n", "t.sched:1: split: expected '->', found 'io'" },
    { "split i\n", "t.sched:1: split: expected a factor (an integer or a param), found the end of the line" },
    { "split i 4 -> io ii; system(\"rm -rf /\")\n", "t.sched:1: split: unexpected character ';'" },
    { "split i 4 -> io ii\n\x01\n", "t.sched:2: not a text file (byte 0x01 in column 1)" },
    { "# caf\xc3\xa9\n", "t.sched:1: not a text file (byte 0xc3 in column 6)" },
    { "split i 4 -> 4ii io\n", "t.sched:1: split: '4ii' is neither a number nor a name" },
    { "param t = 4 in\n", "t.sched:1: param: expected a value of the set, found the end of the line" },
};

TEST(sched_refuses_each_illegal_schedule_with_its_message)
{
    char err[512];

    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        int rc = check_text(refused[i].text, err, sizeof err);
        if (rc == 0 || strcmp(err, refused[i].message) != 0) {
            char msg[1400];
            snprintf(msg, sizeof msg, "schedule %zu: got %s'%s', expected '%s'", i,
                     rc == 0 ? "no refusal, " : "", err, refused[i].message);
            gb_test_fail(__FILE__, __LINE__, msg);
        }
    }
    CHECK(sizeof refused / sizeof refused[0] >= 25);
}

TEST(sched_refuses_a_file_that_is_no_schedule)
{
    char err[512], big[GB_SCHED_MAX_FILE + 2];
    const char nul[] = "split i 4 -> io ii\nsplit j 4\0 -> jo ji\n";

    /* a NUL inside, which strlen would hide: parse by length */
    CHECK(gb_sched_parse("t.sched", nul, sizeof nul - 1, &text_buf, err, sizeof err) == -1);
    CHECK(strcmp(err, "t.sched:2: not a text file (byte 0x00 in column 10)") == 0);
    memset(big, '#', sizeof big);
    CHECK(gb_sched_parse("t.sched", big, sizeof big, &text_buf, err, sizeof err) == -1);
    CHECK(strstr(err, "t.sched:1: the file is over 65536 bytes") == err);
    memset(big, '\n', sizeof big);
    CHECK(gb_sched_parse("t.sched", big, 300, &text_buf, err, sizeof err) == -1);
    CHECK(strcmp(err, "t.sched:257: more than 256 lines") == 0);
    memset(big, ' ', 300);
    big[300] = '\n';
    CHECK(gb_sched_parse("t.sched", big, 301, &text_buf, err, sizeof err) == -1);
    CHECK(strcmp(err, "t.sched:1: line longer than 256 characters") == 0);
}

TEST(sched_refuses_deep_splitting_at_the_loop_limit)
{
    char text[4096] = "", err[512];
    size_t used = 0;

    /* each split of the last inner loop adds two: 3 + 2 * 14 = 31, then 33 */
    used += (size_t)snprintf(text + used, sizeof text - used, "split i 2 -> a0 b0\n");
    for (int d = 1; d < 15; d++)
        used += (size_t)snprintf(text + used, sizeof text - used, "split b%d 2 -> a%d b%d\n",
                                 d - 1, d, d);
    CHECK(check_text(text, err, sizeof err) == -1);
    CHECK(strcmp(err, "t.sched:15: split: more than 32 loops") == 0);
}

TEST(sched_refuses_a_tile_or_pack_too_large_for_the_shape)
{
    char err[512];
    gb_sched_plan *pl;
    gb_params none = { 0 };

    CHECK(check_text("cache_write C at i\n", err, sizeof err) == 0);
    /* the tile is one row of C: 65536 floats fit, 65537 do not */
    CHECK((pl = gb_sched_plan_new(&nest_buf, &none, 4, 65536, 8, err, sizeof err)) != NULL);
    gb_sched_plan_free(pl);
    CHECK(gb_sched_plan_new(&nest_buf, &none, 4, 65537, 8, err, sizeof err) == NULL);
    CHECK(strcmp(err, "t.sched: cache_write at i: a tile of 1 x 65537 floats, over 65536") == 0);
    CHECK(check_text("param t = 4 in 4,8\nsplit k t -> ko ki\n", err, sizeof err) == 0);
    gb_params p = { 0 };
    gb_param_set(&p, "t", 5);
    CHECK(gb_sched_plan_new(&nest_buf, &p, 4, 4, 4, err, sizeof err) == NULL);
    CHECK(strcmp(err, "t.sched: --param t=5 is not in the param's set") == 0);
}

/* A prefetch asks for at most 64 lines an iteration: the box its loop's
 * next iteration reads, checked for each shape. */
TEST(sched_refuses_a_prefetch_too_large_for_the_shape)
{
    char err[512];
    gb_sched_plan *pl;
    gb_params none = { 0 };

    /* at k: one row of B, the j loop inside it */
    CHECK(check_text("reorder i k j\nprefetch B at k 2\n", err, sizeof err) == 0);
    /* one row of N floats, a prefetch every 16 and one at the last float:
     * N = 1009 is 64 lines, 1010 a 65th */
    CHECK((pl = gb_sched_plan_new(&nest_buf, &none, 4, 1009, 8, err, sizeof err)) != NULL);
    gb_sched_plan_free(pl);
    CHECK(gb_sched_plan_new(&nest_buf, &none, 4, 1010, 8, err, sizeof err) == NULL);
    CHECK(strcmp(err, "t.sched: prefetch B at k: 1 rows x 1010 floats, 65 lines an iteration, "
                      "over 64") == 0);
    /* C at io: 8 rows of 48 floats, 4 lines each */
    CHECK(check_text("split i 8 -> io ii\nprefetch C at io\n", err, sizeof err) == 0);
    CHECK((pl = gb_sched_plan_new(&nest_buf, &none, 64, 48, 8, err, sizeof err)) != NULL);
    gb_sched_plan_free(pl);
    CHECK(gb_sched_plan_new(&nest_buf, &none, 64, 128, 8, err, sizeof err) == NULL);
    CHECK(strcmp(err, "t.sched: prefetch C at io: 8 rows x 128 floats, 72 lines an iteration, "
                      "over 64") == 0);
    /* spread, the limit is one iteration of INNER's rows: the next i's row
     * of A over j, N iterations, one row of K floats each (K = 1009: 64
     * lines); all of B over k, K rows dealt one a k step, N floats each */
    CHECK(check_text("prefetch A at i over j\nprefetch B at i 2 over k\n", err, sizeof err) == 0);
    CHECK((pl = gb_sched_plan_new(&nest_buf, &none, 4, 1009, 1009, err, sizeof err)) != NULL);
    gb_sched_plan_free(pl);
    CHECK(gb_sched_plan_new(&nest_buf, &none, 4, 8, 1010, err, sizeof err) == NULL);
    CHECK(strcmp(err, "t.sched: prefetch A at i over j: 1 rows x 1010 floats, 65 lines an "
                      "iteration of it, over 64") == 0);
    CHECK(gb_sched_plan_new(&nest_buf, &none, 4, 1010, 8, err, sizeof err) == NULL);
    CHECK(strcmp(err, "t.sched: prefetch B at i over k: 8 rows x 1010 floats, 65 lines an "
                      "iteration of it, over 64") == 0);
    /* a plain and a spread prefetch of one operand stand together */
    CHECK(check_text("split k 8 -> ko ki\nreorder i ko j ki\nprefetch B at ki 4\n"
                     "prefetch B at ko over j\n", err, sizeof err) == 0);
    CHECK((pl = gb_sched_plan_new(&nest_buf, &none, 4, 64, 64, err, sizeof err)) != NULL);
    gb_sched_plan_free(pl);
}

/* The nest a legal schedule makes: the tutorial's cache_write step. */
TEST(sched_checks_the_tutorials_nest)
{
    static const char *text = "param bn = 32 in 8,16,32,64   # the block\n"
                              "tile i j bn bn -> mo no mi ni\n"
                              "split k 4 -> ko ki\n"
                              "reorder mo no ko mi ki ni\n"
                              "vectorize ni\n"
                              "unroll ki\n"
                              "pack B at root\n"
                              "cache_write C at no\n";
    static const char *order[] = { "mo", "no", "ko", "mi", "ki", "ni" };
    char err[512];
    const gb_sched_shape *sh;
    gb_sched_plan *pl;
    gb_params none = { 0 };

    CHECK(check_text(text, err, sizeof err) == 0);
    CHECK_EQ_INT(nest_buf.norder, 6);
    for (int p = 0; p < 6 && p < nest_buf.norder; p++)
        CHECK(strcmp(nest_buf.loops[nest_buf.order[p]].name, order[p]) == 0);
    CHECK(nest_buf.nparams == 1 && nest_buf.params[0].value == 32 &&
          nest_buf.params[0].nchoices == 4);
    CHECK(nest_buf.pack[1] == GB_SCHED_ROOT && nest_buf.pack[0] == -1);
    CHECK(strcmp(nest_buf.loops[nest_buf.cache_write].name, "no") == 0);
    pl = gb_sched_plan_new(&nest_buf, &none, 33, 100, 7, err, sizeof err);
    CHECK(pl != NULL);
    if (pl == NULL)
        return;
    sh = gb_sched_plan_shape(pl);
    for (int l = 0; l < nest_buf.nloops; l++) {
        const char *n = nest_buf.loops[l].name;
        if (strcmp(n, "mo") == 0)
            CHECK(sh->extent[l] == 2 && sh->stride[l] == 32);
        if (strcmp(n, "ni") == 0)
            CHECK(sh->extent[l] == 32 && sh->stride[l] == 1);
        if (strcmp(n, "ko") == 0)
            CHECK(sh->extent[l] == 2 && sh->stride[l] == 4);
    }
    /* B packed as pb[no][ko][ki][ni]: 4 x 2 x 4 x 32 floats */
    CHECK(gb_sched_scratch_floats(pl, 2) == 4 * 2 * 4 * 32);
    gb_sched_plan_free(pl);
}

/* Lowers text for M = K = 64 and N: the C (the caller frees it), or NULL. */
static char *lowered(const char *text, int N)
{
    char err[512], *c;
    gb_sched_plan *pl;
    gb_params none = { 0 };

    if (check_text(text, err, sizeof err) != 0 ||
        (pl = gb_sched_plan_new(&nest_buf, &none, 64, N, 64, err, sizeof err)) == NULL)
        return NULL;
    c = gb_sched_lower(pl, "gb_k");
    gb_sched_plan_free(pl);
    return c;
}

/* GCC's unroll-and-jam is off for a kernel exactly where a k loop directly
 * holds the spatial loop that holds the register run (the cache_write
 * step: jamming ko into mi ran 1.08-1.19x the hand-written twin at
 * mlp_expand M=256, one thread); elsewhere it stays (the sum in memory, as
 * k8's: it halves the loads and stores of C, 1.2-1.4x faster).  On the
 * kernel, GCC only. */
TEST(sched_lowered_c_turns_off_unroll_and_jam_where_it_lengthens_a_run)
{
    /* every function's attribute: loop distribution's patterns off (a
     * row copy is never a call of memmove), and the jam where it lengthens
     * a run */
    static const char *attr = "#if defined(__GNUC__) && !defined(__clang__)\n"
                              "__attribute__((optimize(\"no-tree-loop-distribute-patterns\", "
                              "\"no-loop-unroll-and-jam\")))\n#endif\n"
                              "int gb_k(";
    static const struct {
        const char *text;
        int N, no_jam;
    } cases[] = {
        /* the tutorial's cache_write step: ko holds mi, mi the run of ki */
        { "tile i j 32 32 -> mo no mi ni\nsplit k 4 -> ko ki\nreorder mo no ko mi ki ni\n"
          "vectorize ni\nunroll ki\npack B at root\ncache_write C at no\n", 64, 1 },
        /* a scalar run: ko holds j, j the run of ki */
        { "split k 4 -> ko ki\nreorder i ko j ki\n", 64, 1 },
        /* a spatial loop, i, between ko and j */
        { "split k 4 -> ko ki\nreorder ko i j ki\n", 64, 0 },
        /* the sum in memory (96 lanes are no register vector): the jam stays */
        { "split k 4 -> ko ki\nreorder ko i ki j\nvectorize j\n", 96, 0 },
        /* the same nest at 64 lanes: a register run */
        { "split k 4 -> ko ki\nreorder ko i ki j\nvectorize j\n", 64, 1 },
        /* k8: the run holds both k loops, none is outside it */
        { "split k 8 -> k0 k1\nvectorize j\n", 64, 0 },
    };

    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *src = lowered(cases[c].text, cases[c].N);
        CHECK(src != NULL);
        if (src == NULL)
            continue;
        const char *at = strstr(src, attr);
        if ((at != NULL) != cases[c].no_jam)
            gb_test_fail(__FILE__, __LINE__, cases[c].text);
        /* once at most on each function: the kernel, and its one-thread
         * copy where the body opens a region (the root pack's) */
        const int functions = 1 + (strstr(src, "static __attribute__((noinline)) int gb_k_1t(") != NULL);
        int seen = 0;
        for (const char *u = strstr(src, "unroll-and-jam"); u; u = strstr(u + 1, "unroll-and-jam"))
            seen++;
        CHECK_EQ_INT(seen, cases[c].no_jam * functions);
        seen = 0;
        for (const char *u = strstr(src, "no-tree-loop-distribute-patterns"); u;
             u = strstr(u + 1, "no-tree-loop-distribute-patterns"))
            seen++;
        CHECK_EQ_INT(seen, functions);
        CHECK_EQ_INT(functions, 1 + (strstr(cases[c].text, "pack B at root") != NULL));
        free(src);
    }
}

/* A parallel loop that is the body's only region asks no more threads than
 * it has iterations at the shape (one: the one-thread copy, no region); a
 * root pack's region shares more work, and keeps the threads asked. */
TEST(sched_lowered_c_asks_no_more_threads_than_the_parallel_loop_has)
{
    static const struct {
        const char *text;
        int N;
        const char *want;
    } cases[] = {
        { "split j 16 -> jo ji\nparallel jo\nvectorize ji\n", 16,
          "const int nthreads = ctx->nthreads < 1 ? ctx->nthreads : 1;" },
        { "split j 16 -> jo ji\nparallel jo\nvectorize ji\n", 64,
          "const int nthreads = ctx->nthreads < 4 ? ctx->nthreads : 4;" },
        { "split j 16 -> jo ji\nparallel jo\nvectorize ji\npack B at root\n", 16,
          "const int nthreads = ctx->nthreads;" },
        { "split j 16 -> jo ji\nvectorize ji\n", 16, "const int nthreads = ctx->nthreads;" },
    };

    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *src = lowered(cases[c].text, cases[c].N);
        CHECK(src != NULL);
        if (src == NULL)
            continue;
        if (strstr(src, cases[c].want) == NULL)
            gb_test_fail(__FILE__, __LINE__, cases[c].text);
        free(src);
    }
}

/* `parallel LOOP pool`: the kernel offers its parallel loop to the pool
 * where the caller gives one (ctx->pool), thread t's share in a copy of
 * the body of its own, as schedule(static) deals it, and keeps the OpenMP
 * region for when the pool stands aside; without `pool`, no such copy. */
TEST(sched_lowered_c_runs_a_pool_loop_on_the_pools_threads)
{
    char *pool = lowered("split i 16 -> io ii\nparallel io pool\nvectorize j\n", 16);
    char *plain = lowered("split i 16 -> io ii\nparallel io\nvectorize j\n", 16);

    CHECK(pool != NULL && plain != NULL);
    if (pool != NULL && plain != NULL) {
        CHECK(strstr(pool, "static __attribute__((noinline)) int gb_k_pool(int M, int N, int K, "
                           "const float *restrict A, int lda, const float *restrict B, int ldb, "
                           "float *restrict C, int ldc, const gb_ctx *ctx, int gb_t, int gb_nt)"));
        CHECK(strstr(pool, "const int gb_pn = 4, gb_pq = gb_pn / gb_nt, gb_pr = gb_pn % gb_nt;"));
        CHECK(strstr(pool, "for (int l_io = gb_plo; l_io < gb_phi; l_io++) {"));
        CHECK(strstr(pool, "if (ctx->pool(nthreads, gb_k_part, (void *)&gb_args))"));
        CHECK(strstr(pool, "#pragma omp parallel for num_threads(nthreads) schedule(static)"));
        /* the pool's copy has no OpenMP pragma but omp simd's */
        const char *copy = strstr(pool, "gb_k_pool(int M"), *end = strstr(pool, "struct gb_k_args");
        CHECK(copy && end && copy < end);
        if (copy && end) {
            const char *omp = strstr(copy, "#pragma omp parallel");
            CHECK(omp == NULL || omp > end);
        }
        CHECK(strstr(plain, "ctx->pool") == NULL && strstr(plain, "gb_k_pool") == NULL);
    }
    free(pool);
    free(plain);
}

/* A tail whose innermost loop only ever runs whole moves out to the next
 * loop: M = 40 by blocks of 16 and rows of 8 is `ic*16 + ir*8 < 40` at ir,
 * so the 8 rows stay a register block; M = 36 leaves 4 rows, and ii keeps
 * the tail (the memory form for this shape). */
TEST(sched_tail_leaves_whole_row_blocks_whole)
{
    static const char *text = "split i 16 -> ic im\nsplit im 8 -> ir ii\nsplit j 16 -> jr jv\n"
                              "reorder ic jr ir k ii jv\nvectorize jv\nunroll ii\n";
    char err[512], *c;
    gb_params none = { 0 };
    gb_sched_plan *pl;

    CHECK(check_text(text, err, sizeof err) == 0);
    CHECK((pl = gb_sched_plan_new(&nest_buf, &none, 40, 32, 8, err, sizeof err)) != NULL);
    if (pl) {
        c = gb_sched_lower(pl, "k40");
        CHECK(c && strstr(c, "l_ir < gb_min(2, (40 - l_ic * 16 + 7) / 8)") && strstr(c, "bv[p] = "));
        free(c);
        gb_sched_plan_free(pl);
    }
    CHECK((pl = gb_sched_plan_new(&nest_buf, &none, 36, 32, 8, err, sizeof err)) != NULL);
    if (pl) {
        c = gb_sched_lower(pl, "k36");
        CHECK(c && strstr(c, "bv[p] = ") == NULL);
        free(c);
        gb_sched_plan_free(pl);
    }
}

/* The model (model.c): BLIS's register block, and the cache blocks from
 * each cache's size, ways and line as Low et al. (2016) derive them,
 * balanced over the shape.  The kinds' figures as `gemmbench info` reads
 * them there: the Intel Xeon kind (48 KiB 12-way L1d, 2 MiB 16-way L2) and
 * the AMD EPYC Zen 4 kind (32 KiB 8-way, 1 MiB 8-way, 32 MiB 16-way). */
TEST(sched_model_gives_blis_blocks_for_each_machine)
{
    const gb_sched_machine xeon = { 16, 32, 48L << 10, 2L << 20, 300L << 20, 12, 16, 15, 64,
                                    "Intel Xeon", 0, 0, 0, 0, 0 };
    const gb_sched_machine zen4 = { 16, 32, 32L << 10, 1L << 20, 32L << 20, 8, 8, 16, 64,
                                    "AMD EPYC family 25", 0, 0, 0, 0, 0 };
    const gb_sched_machine avx2 = { 8, 16, 32L << 10, 256L << 10, 8L << 20, 8, 4, 16, 64,
                                    NULL, 0, 0, 0, 0, 0 };
    const gb_sched_machine neon = { 4, 32, 64L << 10, 1L << 20, 0 + (8L << 20), 4, 8, 16, 64,
                                    NULL, 0, 0, 0, 0, 0 };
    const gb_sched_machine unknown = { 16, 32, 0, 0, 0, 0, 0, 0, 0, NULL, 0, 0, 0, 0, 0 };
    gb_sched_machine half;
    long v[GB_MODEL_COUNT];

    /* 8 x 48: 24 sums, 3 B vectors and a broadcast in 32 registers; kc:
     * C_Ar = floor(11 / (1 + 48/8)) = 1 way of 4 KiB for A's micro-panel,
     * 4096 / (8 x 4) = 128 (B's 128 x 48 takes 6 of the 12) */
    gb_sched_model_values(&xeon, 384, 3072, 768, 2, v);
    CHECK(v[GB_MODEL_MR] == 8 && v[GB_MODEL_NR] == 48 && v[GB_MODEL_KC] == 128);
    /* mc: 16 - 1 - 1 ways of 128 KiB over 128 x 4: 3584, all of M; nc:
     * B copied (b_read: B fused, jr outer, would cut kc to keep 384 rows
     * of A in half of L2), so its block in half of L2, 1 MiB / (128 x 4) =
     * 2048, balanced over N: 1536, the two threads' half too */
    CHECK(v[GB_MODEL_MC] == 384 && v[GB_MODEL_NC] == 1536);
    gb_sched_model_values(&xeon, 384, 3072, 768, 1, v);
    CHECK(v[GB_MODEL_NC] == 1536);
    /* M = 128 reads B in place (no cut, under 192 rows): L3's cap is all
     * of N, one thread's all of it */
    gb_sched_model_values(&xeon, 128, 3072, 768, 1, v);
    CHECK(v[GB_MODEL_NC] == 3072);
    gb_sched_model_values(&xeon, 384, 3072, 768, 3, v);
    CHECK(v[GB_MODEL_NC] == 1056); /* 64 micro-panels over 3: 22 x 48 */
    /* K = 100 is one block of 100; M = 100 one of 104 (rows of 8) */
    gb_sched_model_values(&xeon, 100, 768, 100, 2, v);
    CHECK(v[GB_MODEL_KC] == 100 && v[GB_MODEL_MC] == 104);
    /* Zen 4: floor(7 / 7) = 1 way, kc 128; L2: 8 - 1 - 1 = 6 ways of
     * 128 KiB, mc up to 1536; K = 3072 as 24 blocks of 128 */
    gb_sched_model_values(&zen4, 256, 768, 3072, 2, v);
    CHECK(v[GB_MODEL_MR] == 8 && v[GB_MODEL_NR] == 48 && v[GB_MODEL_KC] == 128);
    CHECK(v[GB_MODEL_MC] == 256 && v[GB_MODEL_NC] == 384);
    /* 16 registers of 8 lanes: BLIS's Haswell 6 x 16 (12 sums, 2 + 1
     * more); floor(7 / (1 + 16/6)) = 1 way, kc 4096 / 24 = 170, K = 768 as
     * five of 154; L2 of 4
     * ways of 64 KiB: 4 - 1 - 1 = 2 for A's block, 2 x 65536 / 680 = 192 */
    gb_sched_model_values(&avx2, 384, 768, 768, 2, v);
    CHECK(v[GB_MODEL_MR] == 6 && v[GB_MODEL_NR] == 16 && v[GB_MODEL_KC] == 154);
    CHECK(v[GB_MODEL_MC] % 6 == 0 && v[GB_MODEL_MC] <= 2 * 65536 / (154 * 4));
    CHECK(v[GB_MODEL_NC] % 16 == 0);
    /* 4 lanes: 16 lanes wide (a width the lowering holds), 6 rows */
    gb_sched_model_values(&neon, 64, 768, 768, 2, v);
    CHECK(v[GB_MODEL_MR] == 6 && v[GB_MODEL_NR] == 16);
    /* nothing known: the stated fallbacks, Zen 4's figures */
    gb_sched_model_values(&unknown, 256, 768, 3072, 2, v);
    CHECK(v[GB_MODEL_KC] == 128 && v[GB_MODEL_MC] == 256 && v[GB_MODEL_NC] == 384);
    /* Calibrated to half of L1d (kc_half, as the AMD EPYC family 26
     * measured it): A's micro-panel 8 x kc in 24 KiB on the Xeon, kc 768,
     * one block of K = 768; L2: 16 - 1 - 2 (B's 768 x 48 micro-panel, 144
     * KiB) = 13 ways of 128 KiB over 768 x 4: mc up to 554, all 384 rows.
     * Zen 4: 16 KiB / 32 = 512, K = 768 as two blocks of 384. */
    half = xeon, half.kc_half = 1;
    gb_sched_model_values(&half, 384, 3072, 768, 2, v);
    CHECK(v[GB_MODEL_KC] == 768 && v[GB_MODEL_MC] == 384);
    half = zen4, half.kc_half = 1;
    gb_sched_model_values(&half, 256, 768, 3072, 2, v);
    CHECK(v[GB_MODEL_KC] == 512);
    gb_sched_model_values(&half, 256, 768, 768, 2, v);
    CHECK(v[GB_MODEL_KC] == 384);
    /* pf, packed's set rule: 12 ways, N = 768 (3 KiB rows, a set every 4
     * rows) 4 x 4 = 16, N = 3072 (a page: every row) 4; 8 ways 8 and 2 */
    CHECK(v[GB_MODEL_PF] == 8);
    gb_sched_model_values(&half, 256, 3072, 768, 2, v);
    CHECK(v[GB_MODEL_PF] == 2);
    gb_sched_model_values(&xeon, 256, 768, 768, 2, v);
    CHECK(v[GB_MODEL_PF] == 16);
    gb_sched_model_values(&xeon, 256, 3072, 768, 2, v);
    CHECK(v[GB_MODEL_PF] == 4);
    /* B's rows a page or more apart prefetched into L2 only by packed's
     * calibration (b_l2_only, as the AMD EPYC families 25 and 26 answer):
     * f32's rows read in place ask 16 ahead; rows under a page, B copied,
     * or a type's rows (its twin reads a packed buffer) keep the rule. */
    half = zen4, half.kc_half = 1, half.b_l2_only = 1;
    gb_sched_model_values(&half, 16, 3072, 768, 2, v);
    CHECK(v[GB_MODEL_PF] == 16);
    gb_sched_model_values(&half, 16, 768, 768, 2, v);
    CHECK(v[GB_MODEL_PF] == 8);
    gb_sched_model_values_rows(&half, 16, 3072, 768, 2, 3072 * 2, 0, v);
    CHECK(v[GB_MODEL_PF] == 4);
    /* ... and where the schedule spreads B's next micro-panel into L2
     * (b_next: packed.sched's `prefetch B at jr over kk`), the rule's 2 */
    gb_sched_model_values_rows(&half, 16, 3072, 768, 2, 3072 * 4, 1, v);
    CHECK(v[GB_MODEL_PF] == 2);
    half.b_copied = 1;
    gb_sched_model_values(&half, 16, 3072, 768, 2, v);
    CHECK(v[GB_MODEL_PF] == 2);
    /* B copied (b_copied: the Intel Xeon family 6 model 207 calibrates it
     * at N = 3072) is read again by each row micro-panel: its block in half
     * of L2.  kc 768 (half of L1d): 1 MiB / (768 x 4) = 341, 336 in columns
     * of 48, N = 3072 as ten blocks of 308, rounded up to 336; kc 128: 2048,
     * two blocks of 1536.  Rows under a page apart (N = 768) keep L3's. */
    half = xeon, half.kc_half = 1, half.b_copied = 1;
    gb_sched_model_values(&half, 256, 3072, 768, 1, v);
    CHECK(v[GB_MODEL_KC] == 768 && v[GB_MODEL_NC] == 336);
    /* At 2 threads the ten blocks of 336 (the last 48 wide) share as 5 and
     * 5, 1680 columns against 1392: nc grows (up to 1.25 x the cap, 426)
     * to 384, eight blocks, 1536 columns each.  N = 768 splits evenly as
     * it is, and a block is never shrunk for it. */
    gb_sched_model_values(&half, 256, 3072, 768, 2, v);
    CHECK(v[GB_MODEL_KC] == 768 && v[GB_MODEL_NC] == 384);
    gb_sched_model_values(&half, 256, 768, 768, 2, v);
    CHECK(v[GB_MODEL_NC] == 384);
    gb_sched_model_values(&half, 256, 3072 + 48, 768, 2, v);
    CHECK(v[GB_MODEL_NC] == 336); /* 65 columns of 48: 35 and 30; 384 would be 40 and 25 */
    half.kc_half = 0;
    gb_sched_model_values(&half, 256, 3072, 768, 1, v);
    CHECK(v[GB_MODEL_KC] == 128 && v[GB_MODEL_NC] == 1536);
    gb_sched_model_values(&half, 256, 768, 768, 1, v);
    CHECK(v[GB_MODEL_NC] == 768);
    /* The formula is machine.c's, shared with packed's kcrule l1_ways */
    CHECK(gb_blis_kc_cap(48L << 10, 12, 8, 48, NULL) == 128);
    CHECK(gb_blis_kc_cap(32L << 10, 8, 6, 16, NULL) == 170);
}

/* The model's choices from a kind's calibration (machine.h's answers). */
static gb_calibration calib_of(int b, int a, int bcopy)
{
    gb_calibration c;

    gb_calibration_set(&c, 2, GB_READ_IN_PLACE, "cached");
    c.rounds = 5;
    c.answer[GB_CALIB_B] = (gb_calib_answer){ b, b ? 1.8 : 0.95, 0.9, 2.0, 0 };
    c.answer[GB_CALIB_A] = (gb_calib_answer){ a, a ? 1.2 : 0.985, 0.9, 1.3, 0 };
    c.answer[GB_CALIB_BCOPY] = (gb_calib_answer){ bcopy, bcopy ? 1.15 : 0.96, 0.9, 1.2, 0 };
    return c;
}

static void choose_at(const gb_sched_machine *m, const gb_calibration *c, int M, int N, int K,
                      int out[GB_CHOICE_COUNT])
{
    char why[GB_CHOICE_COUNT][320];

    for (int q = 0; q < GB_CHOICE_COUNT; q++)
        out[q] = -1;
    gb_sched_model_choose(m, c, M, N, K, 2, out, why);
}

/* The AMD EPYC Zen 4 kind's calibration (issue 47: B in place 0.94-0.97x
 * the copy's time, A in place 0.98-0.99x, no first-pass copy 0.95-0.97x)
 * reads both in place at every shape; the Intel Xeon kind's (B in place
 * 1.7-2x the copy's time) copies mlp_expand's B whole; this AMD EPYC
 * family 26's at 2 threads (B in place, the copy paying) copies B's
 * micro-panels from 5 A micro-panels up (M = 40). */
TEST(sched_model_chooses_from_each_kinds_calibration)
{
    const gb_sched_machine zen4 = { 16, 32, 32L << 10, 1L << 20, 32L << 20, 8, 8, 16, 64, NULL, 0, 0, 0, 0, 0 };
    const gb_sched_machine xeon = { 16, 32, 48L << 10, 2L << 20, 300L << 20, 12, 16, 15, 64,
                                    NULL, 0, 0, 0, 0, 0 };
    const gb_calibration zen4_cal = calib_of(GB_READ_IN_PLACE, GB_READ_IN_PLACE,
                                             GB_READ_IN_PLACE);
    const gb_calibration xeon_cal = calib_of(GB_READ_COPIED, GB_READ_IN_PLACE, GB_READ_COPIED);
    const gb_calibration fam26_cal = calib_of(GB_READ_IN_PLACE, GB_READ_IN_PLACE,
                                              GB_READ_COPIED);
    int a[GB_CHOICE_COUNT];

    for (int M = 16; M <= 384; M *= 2) {
        choose_at(&zen4, &zen4_cal, M, 3072, 768, a);
        CHECK(a[GB_CHOICE_B_READ] == GB_READ_IN_PLACE && a[GB_CHOICE_B_COPY] == GB_READ_IN_PLACE);
        choose_at(&zen4, &zen4_cal, M, 768, 3072, a);
        CHECK(a[GB_CHOICE_A_READ] == GB_READ_IN_PLACE && a[GB_CHOICE_B_COPY] == GB_READ_IN_PLACE);
        /* mlp_expand on the Xeon kind: B copied whole, not copied again */
        choose_at(&xeon, &xeon_cal, M, 3072, 768, a);
        CHECK(a[GB_CHOICE_B_READ] == GB_READ_COPIED && a[GB_CHOICE_B_COPY] == GB_READ_IN_PLACE);
        /* qkv's rows (3 KiB) are under a page: in place on every kind */
        choose_at(&xeon, &xeon_cal, M, 768, 768, a);
        CHECK(a[GB_CHOICE_B_READ] == GB_READ_IN_PLACE && a[GB_CHOICE_B_COPY] == GB_READ_IN_PLACE &&
              a[GB_CHOICE_A_READ] == GB_READ_IN_PLACE);
        choose_at(&zen4, &fam26_cal, M, 3072, 768, a);
        CHECK(a[GB_CHOICE_B_READ] == GB_READ_IN_PLACE &&
              a[GB_CHOICE_B_COPY] == (M >= 40 ? GB_READ_COPIED : GB_READ_IN_PLACE));
    }
    /* bmany copied (the family 25 guest's): B's rows a page or more apart,
     * read in place, copied whole (ir outer) from M = 192, as packed runs
     * panel fused there; below, and with rows under a page, as before. */
    {
        gb_calibration many = zen4_cal;
        many.answer[GB_CALIB_BMANY] = (gb_calib_answer){ GB_READ_COPIED, 1.02, 1.01, 1.03, 0 };
        for (int M = 128; M <= 384; M += 56) {
            choose_at(&zen4, &many, M, 3072, 768, a);
            CHECK(a[GB_CHOICE_B_READ] == (M >= 192 ? GB_READ_COPIED : GB_READ_IN_PLACE) &&
                  a[GB_CHOICE_B_COPY] == GB_READ_IN_PLACE);
            choose_at(&zen4, &many, M, 768, 768, a);
            CHECK(a[GB_CHOICE_B_READ] == GB_READ_IN_PLACE);
        }
    }
    /* bnear copied (the family 26's at 2 threads): B's rows under a page
     * apart copied whole where the model's A block holds fewer than M
     * rows, in place where one holds all */
    gb_calibration near = fam26_cal;
    near.answer[GB_CALIB_BNEAR] = (gb_calib_answer){ GB_READ_COPIED, 1.05, 1.03, 1.07, 0 };
    choose_at(&zen4, &near, 16, 768, 768, a);
    CHECK(a[GB_CHOICE_B_READ] == GB_READ_IN_PLACE);
    choose_at(&zen4, &near, 4096, 768, 768, a);
    CHECK(a[GB_CHOICE_B_READ] == GB_READ_COPIED && a[GB_CHOICE_B_COPY] == GB_READ_IN_PLACE);
    choose_at(&zen4, &fam26_cal, 4096, 768, 768, a);
    CHECK(a[GB_CHOICE_B_READ] == GB_READ_IN_PLACE);
    /* a --param answer stands; b_copy copied reads B in place */
    a[GB_CHOICE_B_READ] = a[GB_CHOICE_A_READ] = -1;
    a[GB_CHOICE_B_COPY] = GB_READ_COPIED;
    gb_sched_model_choose(&xeon, &xeon_cal, 16, 3072, 768, 2, a, NULL);
    CHECK(a[GB_CHOICE_B_READ] == GB_READ_IN_PLACE && a[GB_CHOICE_B_COPY] == GB_READ_COPIED);
}

/* choose blocks: every combination the model makes is checked at load,
 * a refusal names its line and the combination; the structure's rules. */
TEST(sched_choose_blocks_are_checked)
{
    static const char head[] = "split i 8 -> io ii\nsplit j 16 -> jo jv\n";
    char text[1024], err[512];

    snprintf(text, sizeof text, "%schoose b_read in_place\n  reorder io jo ii jv\nor copied\n"
             "  pack B at io\nend\nchoose b_copy copied\n  pack B at jo fused\nor in_place\n"
             "end\nvectorize jv\n", head);
    CHECK(check_text(text, err, sizeof err) == 0);
    /* (copied, copied) is no combination of the model's: three are kept */
    CHECK(nest_buf.nblocks == 2 && nest_buf.ncombos == 3);
    snprintf(text, sizeof text, "%schoose b_read in_place\nor copied\n  parallel k\nend\n",
             head);
    CHECK(check_text(text, err, sizeof err) == -1);
    CHECK(strcmp(err, "t.sched:5: parallel: 'k' is a reduction loop (threads would add into "
                      "one C element) (with b_read copied)") == 0 ||
          strstr(err, "t.sched:5: parallel:") == err);
    CHECK(strstr(err, "(with b_read copied)") != NULL);
    CHECK(check_text("choose b_read in_place\nend\n", err, sizeof err) == -1);
    CHECK(strcmp(err, "t.sched:2: end: the block of line 1 states one answer of b_read (each "
                      "answer needs its alternative, an empty one too)") == 0);
    CHECK(check_text("choose bread in_place\nor copied\nend\n", err, sizeof err) == -1);
    CHECK(strcmp(err, "t.sched:1: choose: no choice 'bread' (the model's: b_read, b_copy, "
                      "a_read, b_next, b_pf)") == 0);
    /* each choice's own answers: b_next's and b_pf's are on and off */
    CHECK(check_text("choose b_next in_place\nor copied\nend\n", err, sizeof err) == -1);
    CHECK(strcmp(err, "t.sched:1: choose: 'in_place' is no answer of b_next (on, off)") == 0);
    CHECK(check_text("choose b_pf copied\nor in_place\nend\n", err, sizeof err) == -1);
    CHECK(strcmp(err, "t.sched:1: choose: 'copied' is no answer of b_pf (on, off)") == 0);
    CHECK(check_text("choose b_read on\nor off\nend\n", err, sizeof err) == -1);
    CHECK(strcmp(err, "t.sched:1: choose: 'on' is no answer of b_read (in_place, copied)") == 0);
    CHECK(check_text("choose b_next on\nor copied\nend\n", err, sizeof err) == -1);
    CHECK(strcmp(err, "t.sched:2: or: 'copied' is no answer of b_next (on, off)") == 0);
    CHECK(check_text("choose b_next off\nor on\nend\n", err, sizeof err) == 0);
    CHECK(check_text("choose b_read in_place\nor in_place\nend\n", err, sizeof err) == -1);
    CHECK(check_text("choose b_read in_place\nor copied\n", err, sizeof err) == -1);
    CHECK(strcmp(err, "t.sched:1: choose: no `end` before the end of the file") == 0);
    CHECK(check_text("choose b_read in_place\nsplit i 4 -> a b\nor copied\nend\n", err,
                     sizeof err) == -1);
    CHECK(strstr(err, "t.sched:2: split: inside a choose block") == err);
    CHECK(check_text("or copied\n", err, sizeof err) == -1);
    CHECK(strcmp(err, "t.sched:1: or: outside a choose block") == 0);
    CHECK(check_text("choose a_read in_place\nchoose b_read in_place\n", err, sizeof err) == -1);
    CHECK(strstr(err, "blocks do not nest") != NULL);
}

/* `param NAME = model`: the model's value per shape unless --param sets
 * one (then in the set, when there is one); only the model's names. */
TEST(sched_model_params_resolve_per_shape)
{
    char err[512];
    gb_params none = { 0 }, set = { 0 };
    gb_sched_plan *pl;
    long v[GB_MODEL_COUNT];

    CHECK(check_text("param x = model\n", err, sizeof err) == -1);
    CHECK(strcmp(err, "t.sched:1: param: 'x' = model: the model gives mr, nr, kc, mc, nc and pf") == 0);
    CHECK(check_text("param kc = modl\n", err, sizeof err) == -1);
    CHECK(check_text("param kc = model in 128,256\nsplit k kc -> ko ki\n", err, sizeof err) == 0);
    gb_sched_model_values(NULL, 8, 8, 3000, 2, v);
    CHECK((pl = gb_sched_plan_new(&nest_buf, &none, 8, 8, 3000, err, sizeof err)) != NULL);
    if (pl) {
        char *c = gb_sched_lower(pl, "m");
        char want[64];
        snprintf(want, sizeof want, "l_ki < %ld", v[GB_MODEL_KC]);
        CHECK(c && strstr(c, want));
        free(c);
        gb_sched_plan_free(pl);
    }
    gb_param_set(&set, "kc", 256);
    CHECK((pl = gb_sched_plan_new(&nest_buf, &set, 8, 8, 3000, err, sizeof err)) != NULL);
    gb_sched_plan_free(pl);
    gb_param_set(&set, "kc", 300);
    CHECK(gb_sched_plan_new(&nest_buf, &set, 8, 8, 3000, err, sizeof err) == NULL);
    CHECK(strcmp(err, "t.sched: --param kc=300 is not in the param's set") == 0);
    /* unroll's bound reads the model's largest rows */
    CHECK(check_text("param mr = model\nsplit i mr -> io ii\nunroll ii\n", err, sizeof err) == 0);
}
