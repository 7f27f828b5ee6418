/* features.c - the columns a learned cost model reads of a (shape,
 * schedule) pair, computed from the plan (plan.h) the lowering reads, as
 * MetaSchedule's extractor reads the lowered program rather than the text:
 * two schedules that lower to one nest have one row.  Sizes enter as log2
 * (a tree splits a ratio as easily as a difference).  src/learn/LEARN.md
 * says what each column is for; a column added here raises
 * GB_FEATURES_VERSION (sched_features.h). */
#include "plan.h"
#include "sched_features.h"

#include <math.h>
#include <string.h>

/* The columns, in order.  To add one: its name here, its value in
 * gb_features_of, GB_FEATURES_COUNT and GB_FEATURES_VERSION raised. */
enum {
    F_LOG_M, F_LOG_K, F_LOG_N, F_LOG_FLOPS_THREAD, F_THREADS,
    /* the register block (SCHED.md, "Row blocks") */
    F_VEC_WIDTH, F_ROWS, F_SUMS, F_RUN, F_LOG_RUN_K, F_FOLD_INIT,
    /* local C tile, packs */
    F_LOG_TILE, F_LOG_PACK_A, F_LOG_PACK_B, F_PACK_B_SHARED, F_PACK_B_FUSED, F_PACK_A_FUSED,
    /* unroll, prefetch, tails, order */
    F_UNROLL_COPIES, F_PREFETCH_A, F_PREFETCH_B, F_PREFETCH_C, F_TAILS, F_LOOPS, F_INIT_DEPTH,
    /* the threads' work */
    F_LOG_PAR_EXTENT, F_PAR_BALANCE, F_PAR_AXIS, F_PAR_DEPTH,
    F_LOG_TASK_I, F_LOG_TASK_J, F_LOG_TASK_K,
    /* per cache level: the outermost block that fits it, and how often it is entered */
    F_LOG_FIT_L1, F_LOG_OUTER_L1, F_LOG_FIT_L2, F_LOG_OUTER_L2, F_LOG_FIT_L3, F_LOG_OUTER_L3,
    /* the machine */
    F_LANES, F_LOG_L1, F_LOG_L2,
    /* the type (SCHED.md, "Types"): an element's bytes, the run's form */
    F_ELEM_BYTES, F_DOT, F_LOG_GROUP,
    /* prefetches spread over a pass (SCHED.md, "prefetch ... over"), A, B, C */
    F_SPREAD_A, F_SPREAD_B, F_SPREAD_C,
    F_END
};

_Static_assert(F_END == GB_FEATURES_COUNT, "a column without a name, or a name too many");

static const char *const names[GB_FEATURES_COUNT] = {
    "log2_M", "log2_K", "log2_N", "log2_flops_per_thread", "threads",
    "vec_width", "rows", "sums", "register_run", "log2_run_k", "fold_init",
    "log2_tile_floats", "log2_pack_a_floats", "log2_pack_b_floats", "pack_b_shared",
    "pack_b_fused", "pack_a_fused",
    "unroll_copies", "prefetch_a", "prefetch_b", "prefetch_c", "tails", "loops", "init_depth",
    "log2_parallel_extent", "parallel_balance", "parallel_axis", "parallel_depth",
    "log2_task_i", "log2_task_j", "log2_task_k",
    "log2_fit_l1_bytes", "log2_outer_l1", "log2_fit_l2_bytes", "log2_outer_l2",
    "log2_fit_l3_bytes", "log2_outer_l3",
    "lanes", "log2_l1_bytes", "log2_l2_bytes",
    "elem_bytes", "dot_form", "log2_group",
    "prefetch_a_spread", "prefetch_b_spread", "prefetch_c_spread",
};

double gb_features_flops(const float f[GB_FEATURES_COUNT])
{
    return exp2(1.0 + (double)f[F_LOG_M] + (double)f[F_LOG_K] + (double)f[F_LOG_N]);
}

const char *gb_features_name(int c)
{
    return c >= 0 && c < GB_FEATURES_COUNT ? names[c] : "?";
}

static float log2f_of(double x)
{
    return x > 1.0 ? (float)log2(x) : 0.0f;
}

/* What loop l of the final order spans of each axis per iteration of the
 * loop outside it: its extent on its own axis, a fused loop's on each
 * part's (the parts' extents, found down the fuse tree). */
static void add_spans(const plan *pl, int l, double span[3])
{
    const gb_sched_loop *lp = &pl->s->loops[l];

    if (lp->axis == GB_AXIS_FUSED) {
        add_spans(pl, lp->fused_outer, span);
        add_spans(pl, lp->fused_inner, span);
        return;
    }
    span[lp->axis] *= (double)pl->sh->extent[l];
}

/* The spans of i, j, k over the loops at positions from..n-1 of the final
 * order (the block one iteration of the loop at from - 1 covers), each at
 * most its dimension (a tail's block is smaller). */
static void block_at(const plan *pl, int from, double span[3])
{
    const double dim[3] = { pl->sh->M, pl->sh->N, pl->sh->K };

    span[0] = span[1] = span[2] = 1.0;
    for (int p = from; p < pl->n; p++)
        add_spans(pl, pl->order[p], span);
    for (int a = 0; a < 3; a++)
        span[a] = span[a] < dim[a] ? span[a] : dim[a];
}

/* Bytes of A, B and C one block touches: mc x kc of A, kc x nc of B, mc x nc
 * of C (MetaSchedule's per-buffer footprint, the three summed). */
static double footprint(const double span[3])
{
    return 4.0 * (span[0] * span[2] + span[2] * span[1] + span[0] * span[1]);
}

/* For a cache of bytes: the outermost block of the nest that fits it
 * (log2 of its bytes) and how many times the loops outside it enter it. */
static void fit_level(const plan *pl, long bytes, float *fit, float *outer)
{
    double span[3], entered = 1.0;
    int p;

    for (p = 0; p < pl->n; p++) {
        block_at(pl, p, span);
        if (footprint(span) <= (double)bytes)
            break;
        entered *= (double)pl->sh->extent[pl->order[p]];
    }
    if (p == pl->n)
        span[0] = span[1] = span[2] = 1.0;
    *fit = log2f_of(footprint(span));
    *outer = log2f_of(entered);
}

/* Copies of the body the unrolls make together (SCHED.md, `unroll`). */
static double unroll_copies(const plan *pl)
{
    double copies = 1.0;

    for (int l = 0; l < pl->s->nloops; l++) {
        const int u = pl->s->unroll[l];
        const double extent = (double)pl->sh->extent[l];
        if (u < 0)
            copies *= extent;
        else if (u > 0)
            copies *= u < extent ? u : extent;
    }
    return copies;
}

void gb_features_of(const gb_sched_plan *pl, const gb_sched_machine *m, int threads,
                    float out[GB_FEATURES_COUNT])
{
    const gb_sched *s = pl->s;
    const gb_sched_shape *sh = pl->sh;
    const double flops = 2.0 * sh->M * sh->N * (double)sh->K;
    double span[3];
    int par = s->parallel >= 0 ? gb_sched_plan_carrier(s, s->parallel) : -1;

    memset(out, 0, GB_FEATURES_COUNT * sizeof *out);
    threads = threads > 0 ? threads : 1;
    out[F_LOG_M] = log2f_of(sh->M);
    out[F_LOG_K] = log2f_of(sh->K);
    out[F_LOG_N] = log2f_of(sh->N);
    out[F_THREADS] = (float)threads;
    out[F_LOG_FLOPS_THREAD] = log2f_of(flops / (par >= 0 ? threads : 1));

    out[F_VEC_WIDTH] = (float)pl->vec_width;
    out[F_ROWS] = (float)pl->rows;
    out[F_SUMS] = (float)(pl->rows * (pl->vec_width > 0 ? pl->vec_width : 1));
    out[F_RUN] = pl->run_at >= 0;
    if (pl->run_at >= 0) { /* the k steps the register run holds its sums over */
        block_at(pl, pl->run_at, span);
        out[F_LOG_RUN_K] = log2f_of(span[2]);
    }
    out[F_FOLD_INIT] = (float)pl->fold_init;

    out[F_LOG_TILE] = s->cache_write >= 0 ? log2f_of((double)pl->tile_h * pl->tile_w) : 0.0f;
    out[F_LOG_PACK_A] = log2f_of((double)pl->pack_floats[0]);
    out[F_LOG_PACK_B] = log2f_of((double)pl->pack_floats[1]);
    out[F_PACK_B_SHARED] = s->pack[1] != -1 && !pl->pack_per_thread[1];
    out[F_PACK_B_FUSED] = (float)s->pack_fused[1];
    out[F_PACK_A_FUSED] = (float)s->pack_fused[0];

    out[F_UNROLL_COPIES] = (float)unroll_copies(pl);
    for (int op = 0; op < 3; op++)
        out[F_PREFETCH_A + op] = s->prefetch[op] >= 0;
    out[F_TAILS] = (float)pl->ntails;
    out[F_LOOPS] = (float)pl->n;
    out[F_INIT_DEPTH] = (float)pl->init_at;

    out[F_PAR_AXIS] = -1.0f;
    if (par >= 0 && pl->pos[par] >= 0) {
        const double extent = (double)sh->extent[par];
        const double rounds = ceil(extent / threads);
        out[F_LOG_PAR_EXTENT] = log2f_of(extent);
        /* the share of the threads' time doing work: 1 when every thread
         * gets as many iterations as the busiest */
        out[F_PAR_BALANCE] = (float)(extent / (rounds * threads));
        out[F_PAR_AXIS] = (float)s->loops[par].axis;
        out[F_PAR_DEPTH] = (float)pl->pos[par];
        block_at(pl, pl->pos[par] + 1, span);
        out[F_LOG_TASK_I] = log2f_of(span[0]);
        out[F_LOG_TASK_J] = log2f_of(span[1]);
        out[F_LOG_TASK_K] = log2f_of(span[2]);
    }

    fit_level(pl, m->l1, &out[F_LOG_FIT_L1], &out[F_LOG_OUTER_L1]);
    fit_level(pl, m->l2, &out[F_LOG_FIT_L2], &out[F_LOG_OUTER_L2]);
    fit_level(pl, m->l3, &out[F_LOG_FIT_L3], &out[F_LOG_OUTER_L3]);

    out[F_LANES] = (float)m->lanes;
    out[F_LOG_L1] = log2f_of((double)m->l1);
    out[F_LOG_L2] = log2f_of((double)m->l2);

    /* the type: what an element of A is (4 f32, 2 bf16, 1 u8), and whether
     * the run multiplies groups of k in words (the dot form) or widens
     * every element where it is read; the cache columns above count 4
     * bytes an element, the widened size */
    out[F_ELEM_BYTES] = (float)gb_dtype_size_a(pl->dtype);
    out[F_DOT] = (float)pl->dot;
    out[F_LOG_GROUP] = log2f_of((double)pl->group);

    /* a box spread over the passes (packed.sched's next B micro-panel) */
    for (int op = 0; op < 3; op++)
        out[F_SPREAD_A + op] = s->prefetch[GB_SCHED_PF_SPREAD + op] >= 0;
}

int gb_features_idle_threads(const float f[GB_FEATURES_COUNT])
{
    return f[F_PAR_AXIS] >= 0.0f && exp2f(f[F_LOG_PAR_EXTENT]) < f[F_THREADS] - 0.5f;
}
