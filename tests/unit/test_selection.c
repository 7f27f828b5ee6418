/* test_selection.c - the parameter-set rule of gb_selection_build: a
 * --param set applies to the selected variants that take all its keys, a
 * variant that takes no set runs once unlabelled, and a set no selected
 * variant takes is an error naming the key; and a round's share of a
 * measurement (gb_round_share). */
#include "test.h"

#include <stdio.h>

#include "options.h"
#include "resultfile.h"
#include "runner.h"

static char err[GB_ERR_LEN];

/* o with the variants and --param sets given (NULL-terminated), one tiny shape. */
static void options_for(gb_options *o, const char *variants, const char *const *sets)
{
    gb_options_defaults(o);
    snprintf(o->variants, sizeof o->variants, "%s", variants);
    o->nshapes = 1;
    o->shapes[0] = (gb_shape){ .kernel = "tiny", .M = 3, .K = 5, .N = 7 };
    o->nparam_sets = 0;
    for (; sets && *sets; sets++)
        snprintf(o->param_sets[o->nparam_sets++], sizeof o->param_sets[0], "%s", *sets);
}

/* The entry of sel with variant name and formatted params, or -1. */
static int find_entry(const gb_selection *sel, const char *name, const char *params)
{
    for (int i = 0; i < sel->nvariants; i++) {
        char buf[256];
        gb_params_format(sel->variants[i], &sel->params[i], buf, sizeof buf);
        if (strcmp(sel->variants[i]->name, name) == 0 && strcmp(buf, params) == 0)
            return i;
    }
    return -1;
}

TEST(param_sets_apply_to_takers)
{
    gb_options o;
    gb_selection sel;
    const char *sets[] = { "bpack=in_place", "bpack=panel", NULL };

    options_for(&o, "packed,baseline", sets);
    CHECK_EQ_INT(gb_selection_build(&o, &sel, err, sizeof err), 0);
    CHECK_EQ_INT(sel.nvariants, 3);
    CHECK(find_entry(&sel, "packed", "bpack=in_place") >= 0);
    CHECK(find_entry(&sel, "packed", "bpack=panel") >= 0);
    /* baseline takes no set: once, unlabelled */
    CHECK(find_entry(&sel, "baseline", "") >= 0);
    gb_selection_free(&sel);
}

TEST(param_sets_split_between_variants)
{
    gb_options o;
    gb_selection sel;
    const char *sets[] = { "tk=8", "bpack=in_place", NULL };

    /* each set goes to the variant that takes it, and only there */
    options_for(&o, "rule_based,packed", sets);
    CHECK_EQ_INT(gb_selection_build(&o, &sel, err, sizeof err), 0);
    CHECK_EQ_INT(sel.nvariants, 2);
    CHECK(find_entry(&sel, "rule_based", "tk=8") >= 0);
    CHECK(find_entry(&sel, "packed", "bpack=in_place") >= 0);
    gb_selection_free(&sel);
}

TEST(param_sets_refused)
{
    gb_options o;
    gb_selection sel;
    const char *nobody[] = { "bpack=in_place", "frob=1", NULL };
    const char *mixed[] = { "bpack=in_place,tk=8", NULL };
    const char *badval[] = { "bpack=sideways", NULL };
    const char *alone[] = { "tk=8", NULL };

    options_for(&o, "packed,baseline", nobody);
    CHECK(gb_selection_build(&o, &sel, err, sizeof err) < 0);
    CHECK(strstr(err, "'frob'") != NULL);
    gb_selection_free(&sel);
    /* each key is someone's, but no variant takes the set whole */
    options_for(&o, "packed,rule_based", mixed);
    CHECK(gb_selection_build(&o, &sel, err, sizeof err) < 0);
    CHECK(strstr(err, "bpack=in_place,tk=8") != NULL);
    gb_selection_free(&sel);
    /* a taker's bad value is still an error */
    options_for(&o, "packed,baseline", badval);
    CHECK(gb_selection_build(&o, &sel, err, sizeof err) < 0);
    CHECK(strstr(err, "sideways") != NULL);
    gb_selection_free(&sel);
    /* one variant: the message names it and what it takes */
    options_for(&o, "baseline", alone);
    CHECK(gb_selection_build(&o, &sel, err, sizeof err) < 0);
    CHECK(strstr(err, "variant baseline has no parameter 'tk'") != NULL);
    gb_selection_free(&sel);
}

/* A round's share: the rounds' timed calls add up to --reps, and the calls
 * --min-time may add stay, over all rounds, within what a result file
 * holds (a run of 20 rounds of a 1x1x1 shape wrote 2,000,000 samples, which
 * no reader took). */
TEST(round_share_keeps_the_samples_a_file_holds)
{
    const gb_measure_cfg all = { .warmup = 5, .reps = 50, .min_reps = 3, .max_time = 2.0,
                                 .nthreads = 1, .min_time = 40.0 };
    static const int counts[] = { 1, 2, 3, 7, 10, 11, 12, 20, 999, GB_MAX_ROUNDS };

    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        const int rounds = counts[i];
        long reps = 0, calls = 0;
        for (int r = 0; r < rounds; r++) {
            const gb_measure_cfg c = gb_round_share(&all, rounds, r);
            /* the harness's reading: 0 or above GB_MAX_CALLS is GB_MAX_CALLS */
            const long cap = c.max_calls > 0 && c.max_calls < GB_MAX_CALLS ? c.max_calls
                                                                            : GB_MAX_CALLS;
            reps += c.reps;
            calls += c.reps > cap ? c.reps : cap;
        }
        CHECK_EQ_INT(reps, all.reps);
        if (calls > GB_MAX_SAMPLES)
            fprintf(stderr, "  %d rounds: up to %ld samples\n", rounds, calls);
        CHECK(calls <= GB_MAX_SAMPLES);
    }
}
