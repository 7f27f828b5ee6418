/* test_learn.c - the guard of learned schedules (learn.h, src/learn/LEARN.md
 * "The guard"): which shapes lie outside what a model was trained on, and
 * when the best predicted candidate runs rather than the analytic point,
 * on synthetic predictions. */
#include <math.h>

#include "learn.h"
#include "test.h"

/* mlp_expand's K and N at M 32..384 on 2 threads, and qkv's at M 16 */
static const gb_learned_shape trained[] = {
    { 32, 768, 3072, 2, GB_DTYPE_F32 }, { 64, 768, 3072, 2, GB_DTYPE_F32 },
    { 128, 768, 3072, 2, GB_DTYPE_F32 }, { 384, 768, 3072, 2, GB_DTYPE_F32 },
    { 16, 768, 768, 2, GB_DTYPE_F32 }, { 16, 768, 768, 2, GB_DTYPE_BF16 },
};
#define F32 GB_DTYPE_F32
#define NTRAINED ((int)(sizeof trained / sizeof trained[0]))

TEST(learn_outside_is_beyond_the_trained_m_of_the_same_k_n_threads)
{
    /* below the smallest M of its K and N: a smaller M of another K, N
     * (qkv's 16) brackets nothing */
    CHECK_EQ_INT(gb_learned_outside(trained, NTRAINED, 16, 768, 3072, 2, F32), 1);
    CHECK_EQ_INT(gb_learned_outside(trained, NTRAINED, 512, 768, 3072, 2, F32), 1);
    /* between two trained M, or one of them */
    CHECK_EQ_INT(gb_learned_outside(trained, NTRAINED, 48, 768, 3072, 2, F32), 0);
    CHECK_EQ_INT(gb_learned_outside(trained, NTRAINED, 32, 768, 3072, 2, F32), 0);
    CHECK_EQ_INT(gb_learned_outside(trained, NTRAINED, 384, 768, 3072, 2, F32), 0);
    /* another thread count, another K or N: nothing trained brackets it */
    CHECK_EQ_INT(gb_learned_outside(trained, NTRAINED, 48, 768, 3072, 1, F32), 1);
    CHECK_EQ_INT(gb_learned_outside(trained, NTRAINED, 48, 3072, 768, 2, F32), 1);
    /* a single trained M brackets itself only */
    CHECK_EQ_INT(gb_learned_outside(trained, NTRAINED, 16, 768, 768, 2, F32), 0);
    CHECK_EQ_INT(gb_learned_outside(trained, NTRAINED, 17, 768, 768, 2, F32), 1);
    CHECK_EQ_INT(gb_learned_outside(trained, 0, 16, 768, 768, 2, F32), 1);
    /* another type: only its own trials bracket it */
    CHECK_EQ_INT(gb_learned_outside(trained, NTRAINED, 48, 768, 3072, 2, GB_DTYPE_BF16), 1);
    CHECK_EQ_INT(gb_learned_outside(trained, NTRAINED, 16, 768, 768, 2, GB_DTYPE_BF16), 0);
    CHECK_EQ_INT(gb_learned_outside(trained, NTRAINED, 16, 768, 768, 2, GB_DTYPE_U8S8), 1);
}

TEST(learn_guard_keeps_the_analytic_point_within_the_error)
{
    const double error = log(1.409); /* the edge error of a 23-shape model */

    /* mlp_expand M=16 left out: the best predicted 516.9 us, the analytic
     * point 669.8 (1.296x): within the error, the analytic point runs */
    CHECK_EQ_INT(gb_learned_guard(1, 516.9, 669.8, error), GB_GUARD_KEPT);
    /* a gain beyond the error: the best predicted runs */
    CHECK_EQ_INT(gb_learned_guard(1, 400.0, 669.8, error), GB_GUARD_BEATS);
    /* exactly the error is no gain beyond it */
    CHECK_EQ_INT(gb_learned_guard(1, 100.0, 150.0, log(150.0 / 100.0)), GB_GUARD_KEPT);
    CHECK_EQ_INT(gb_learned_guard(1, 100.0, 150.1, log(150.0 / 100.0)), GB_GUARD_BEATS);
    /* no error measured: no gain trusted, however large */
    CHECK_EQ_INT(gb_learned_guard(1, 1.0, 1000.0, NAN), GB_GUARD_KEPT);
    /* an error of 0: any gain at all */
    CHECK_EQ_INT(gb_learned_guard(1, 99.0, 100.0, 0.0), GB_GUARD_BEATS);
    CHECK_EQ_INT(gb_learned_guard(1, 101.0, 100.0, 0.0), GB_GUARD_KEPT);
    /* inside the trained range the best predicted runs, whatever the gain */
    CHECK_EQ_INT(gb_learned_guard(0, 516.9, 669.8, error), GB_GUARD_INSIDE);
    CHECK_EQ_INT(gb_learned_guard(0, 1.0, 1000.0, NAN), GB_GUARD_INSIDE);
}
