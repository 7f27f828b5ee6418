/* plan.h - inside src/sched: a resolved nest planned for lowering, what
 * lower.c turns into C and explain.c into text (plan.c makes it, once per
 * shape: gb_sched_plan_new).  A new statement's decisions for one shape
 * go here, where both emitters read them. */
#ifndef GB_SCHED_PLAN_H
#define GB_SCHED_PLAN_H

#include "sched_lang.h"

#define MAXL GB_SCHED_MAX_LOOPS
/* At most this many rows of vectors held in registers by one run, and at
 * most this many lanes in all (24 AVX-512 vectors, BLIS's 8 x 48; the run's
 * 3 B vectors and the broadcast of A take 4 more of the 32 registers). */
#define GB_SCHED_MAX_ROWS 8
#define GB_SCHED_MAX_ROW_LANES 384
/* The tiles (palette 1): 8 registers of at most 16 rows of 64 bytes. */
#define GB_SCHED_TILES 8
#define GB_SCHED_TILE_ROWS 16

/* A tail condition: sum over its loops of coef * loop < limit. */
typedef struct tail {
    int n;
    int loop[MAXL];
    long coef[MAXL];
    long limit;
    int carrier; /* the loop, innermost of them, that bounds it */
} tail;

/* What the emitters need to know about the nest for this shape
 * (gb_sched_plan of sched_lang.h). */
typedef struct gb_sched_plan {
    gb_sched chosen;        /* a schedule with choices: its combination for the shape */
    int combo;              /* that combination (0 without choices) */
    int nthreads;           /* the run's threads the choices were made for (0: default) */
    gb_sched_shape shape;   /* the nest resolved for the shape: sh points here */
    const gb_sched_shape *sh;
    const gb_sched *s;
    int n;                  /* loops in the final order */
    int order[MAXL];        /* the final order: the vectorized loop innermost */
    int pos[MAXL];          /* position in it, per loop id (-1: not in it) */
    int base_pos[MAXL];     /* per unsplit loop: the position of the loop running it */
    int ntails;
    tail tails[3 * MAXL];
    int init_at;            /* position of the outermost k loop: C's init */
    int run_at;             /* the run of k loops kept in a register, or -1 */
    int vec_width;          /* the register vector's lanes, or 0 (no register vector) */
    int rows_loop;          /* an i loop between the run and the vectorized loop whose
                               rows' sums the run holds together, or -1 */
    int rows;               /* its extent (the rows held), or 1 */
    int fold_init;          /* C's init is the run's: zero when every k loop outside
                               the run is at 0, else C (no zeroing pass) */
    int team;               /* one parallel region: the loops outside the parallel
                               loop run on every thread, a pack there is filled by
                               the team (omp for) and the parallel loop is an omp for */
    int no_jam;             /* a k loop holds the spatial loop holding the run:
                             * GCC's unroll-and-jam is kept off (plan.c) */
    long tile_h, tile_w;    /* cache_write's tile */
    int npack[2];           /* pack A, B: their dimensions (unsplit loops), outer first */
    int pack_dim[2][MAXL];
    long pack_ext[2][MAXL]; /* each dim's extent in the buffer (the dot loop's in groups) */
    long pack_floats[2];    /* 32-bit words of each buffer: floats, widened
                               elements, or a dot pack's groups */
    int pack_per_thread[2]; /* the site is inside the parallel loop */
    int pack_team[2];       /* the site is outside it (not root): filled by the team */
    int pass[2];            /* a fused pack's pass loop (its first iteration copies), or -1 */
    /* prefetch A, B, C: per iteration of the site, the box that iteration
     * + distance reads: rows of it (in place), each `span` floats from its
     * first to its last, as `lines` prefetches in all */
    int pf_packed[GB_SCHED_PF_SLOTS]; /* per prefetch slot: the box is in the pack
                                       * buffer (packed outside the site) */
    long pf_rows[GB_SCHED_PF_SLOTS], pf_span[GB_SCHED_PF_SLOTS];
    long pf_lines[GB_SCHED_PF_SLOTS]; /* a spread one's: per iteration of INNER */
    /* a spread prefetch: the iterations of the loops between the site and
     * INNER (the passes) and INNER's own (its dot loop's: groups) */
    long pf_passes[GB_SCHED_PF_SLOTS], pf_iters[GB_SCHED_PF_SLOTS];
    /* a spread box in a pack buffer: words between its rows (its outermost
     * dimension inside the site), else 1 */
    long pf_row_stride[GB_SCHED_PF_SLOTS];
    /* The type (SCHED.md, "Types"): a run of bf16 or u8s8 in the dot form
     * multiplies groups of `group` k (2: vdpbf16ps, 4: vpdpbusd) held in
     * 32-bit words; its k loop `dot_loop` steps a group at a time and the
     * packs hold the type's elements in groups ([..][k / group][..][lanes]
     * [group]).  Otherwise (f32, or a type widened) every element is
     * widened to the accumulator's type where it is read, and packs hold
     * it widened. */
    gb_dtype dtype;
    int dot;                /* 1: the run uses the type's dot-product instruction */
    int group;              /* k per 32-bit word in the dot form, else 1 */
    int dot_loop;           /* the run's k loop in the dot form, or -1 */
    char form_why[320];     /* the form and why (--explain) */
    /* The run on AMX's tiles (`tensorize`, SCHED.md "Tiles"), a dot form
     * whose rows x lanes are tile_mt x tile_nt C tiles of 16 columns (the
     * last row of tiles holds what is left of 16 rows), and whose k loop
     * steps a tile's depth, 16 groups (32 bf16, 64 u8). */
    int tiles;
    int tile_mt, tile_nt;
    /* the box in the matrix, where a fused pack's first pass reads it */
    long pf_src_rows[GB_SCHED_PF_SLOTS], pf_src_span[GB_SCHED_PF_SLOTS];
} plan;

/* A spread prefetch of a box of `rows` rows (SCHED.md, "prefetch ... over"):
 * each pass's share of them and the rows one iteration of INNER asks for. */
static inline void gb_sched_plan_spread(const plan *pl, int slot, long rows, long *share,
                                        long *per_iter)
{
    const long passes = pl->pf_passes[slot], iters = pl->pf_iters[slot];

    *share = (rows + passes - 1) / passes;
    *per_iter = (*share + iters - 1) / iters;
}

/* Whether loop l is a piece no split divided, not a fused loop. */
int gb_sched_plan_is_base(const gb_sched *s, int l);
/* The loop of the final order that runs loop l: l, or the fused loop that
 * took it in. */
int gb_sched_plan_carrier(const gb_sched *s, int l);
/* Prefetches that cover a row of n floats at an unknown alignment. */
long gb_sched_plan_row_lines(long n);

#endif
