/* plan.c - a resolved nest planned for lowering (SCHED.md, "Lowering"): the
 * final order (the vectorized loop innermost), the tails and the loop that
 * carries each, where C's init falls, the register run, the cache_write
 * tile and the pack buffers; and the per-shape limits and scratch they
 * imply.  Made once per shape (gb_sched_plan_new), then read by the limits,
 * the scratch, lower.c and explain.c. */
#include "plan.h"
#include "packed_lowp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gb_sched_plan_is_base(const gb_sched *s, int l)
{
    return s->loops[l].split_outer < 0 && s->loops[l].axis != GB_AXIS_FUSED;
}

int gb_sched_plan_carrier(const gb_sched *s, int l)
{
    while (s->loops[l].fused_into >= 0)
        l = s->loops[l].fused_into;
    return l;
}

static void collect_leaves(const gb_sched *s, int l, int *out, int *n)
{
    if (s->loops[l].split_outer < 0) {
        out[(*n)++] = l;
        return;
    }
    collect_leaves(s, s->loops[l].split_outer, out, n);
    collect_leaves(s, s->loops[l].split_inner, out, n);
}

/* Unsplit loops compare by where they run: their carrier's position, then
 * (two parts of one fused loop) the outer part first. */
static long base_rank(const plan *pl, int l)
{
    const gb_sched *s = pl->s;
    long rank = 0;
    int c = l;

    /* the path of fused parts from the carrier down: outer 0, inner 1 */
    for (int depth = 0; s->loops[c].fused_into >= 0 && depth < 8; depth++) {
        int f = s->loops[c].fused_into;
        rank += (s->loops[f].fused_inner == c) ? (1L << (8 - depth)) : 0;
        c = f;
    }
    return (long)pl->pos[c] * 1024 + rank;
}

/* A carrier that never runs partly leaves the tail to the next loop out:
 * when its whole span (coef x extent) divides the limit and every other
 * coefficient, what the others leave of the limit is a multiple of it,
 * so it runs whole or not at all (M = 384 by blocks of 256 and rows of 8:
 * 256 ic + 8 ir + ii < 384 is ir's bound, and ii's 8 rows stay a register
 * block).  Whether it runs at all the others' condition decides.  1 when
 * it dropped one. */
static int drop_whole_carrier(const plan *pl, tail *t)
{
    int at = -1;
    long span, best = -1;

    for (int i = 0; i < t->n; i++)
        if (t->loop[i] == t->carrier)
            at = i;
    if (at < 0 || t->n < 2)
        return 0;
    span = t->coef[at] * pl->sh->extent[t->carrier];
    if (t->limit % span != 0)
        return 0;
    for (int i = 0; i < t->n; i++)
        if (i != at && t->coef[i] % span != 0)
            return 0;
    t->n--;
    t->loop[at] = t->loop[t->n];
    t->coef[at] = t->coef[t->n];
    for (int i = 0; i < t->n; i++)
        if (base_rank(pl, t->loop[i]) > best) {
            best = base_rank(pl, t->loop[i]);
            t->carrier = t->loop[i];
        }
    return 1;
}

static void add_tails(plan *pl, int loop)
{
    const gb_sched *s = pl->s;
    const gb_sched_shape *sh = pl->sh;
    const gb_sched_loop *l = &s->loops[loop];

    if (l->split_outer < 0)
        return;
    if (sh->extent[loop] % sh->factor[loop] != 0 && sh->factor[loop] < sh->extent[loop]) {
        tail *t = &pl->tails[pl->ntails++];
        int leaves[MAXL], n = 0;
        long best = -1;
        collect_leaves(s, loop, leaves, &n);
        t->n = n;
        t->limit = sh->extent[loop];
        t->carrier = -1;
        for (int i = 0; i < n; i++) {
            t->loop[i] = leaves[i];
            t->coef[i] = sh->stride[leaves[i]] / sh->stride[loop];
            if (base_rank(pl, leaves[i]) > best) {
                best = base_rank(pl, leaves[i]);
                t->carrier = leaves[i];
            }
        }
        while (drop_whole_carrier(pl, t))
            ;
    }
    add_tails(pl, l->split_outer);
    add_tails(pl, l->split_inner);
}

static int power_of_two(long v)
{
    return v > 0 && (v & (v - 1)) == 0;
}

/* Lanes a register run holds as GCC vectors: a power of two from 2 to 16,
 * or a multiple of 16 up to 64 (48: BLIS's NR on AVX-512), so that W splits
 * into whole vectors of 16, 8 or 4 lanes on every x86 target (GB_PW). */
static int register_width(long w)
{
    return (w >= 2 && w <= 16 && power_of_two(w)) || (w > 16 && w <= 64 && w % 16 == 0);
}

/* Prefetches of a row of n floats at an unknown alignment: one a line
 * from its first float, and its last when that starts another line. */
long gb_sched_plan_row_lines(long n)
{
    return (n - 1) / 16 + 1 + ((n - 1) % 16 != 0);
}

/* The box of operand op that one iteration of the prefetch site reads:
 * the loops inside the site vary, the site and the loops outside it do
 * not.  In the pack buffer when the operand is packed outside the site
 * (its copy is then what the loops read), else in the matrix. */
/* The lines a prefetch of a box of rows x span asks for an iteration: all
 * of them, or a spread one's rows per iteration of INNER. */
static long prefetch_lines(const plan *pl, int slot, long rows, long span)
{
    long share, per_iter;

    if (pl->s->prefetch_over[slot] < 0)
        return rows * gb_sched_plan_row_lines(span);
    gb_sched_plan_spread(pl, slot, rows, &share, &per_iter);
    return per_iter * gb_sched_plan_row_lines(span);
}

static void plan_prefetch(plan *pl, int slot)
{
    const gb_sched *s = pl->s;
    const gb_sched_shape *sh = pl->sh;
    static const int row_axis[3] = { GB_AXIS_I, GB_AXIS_K, GB_AXIS_I };
    static const int col_axis[3] = { GB_AXIS_K, GB_AXIS_J, GB_AXIS_J };
    const int site = s->prefetch[slot], op = slot % GB_SCHED_PF_SPREAD;

    if (site < 0)
        return;
    pl->pf_rows[slot] = 1;
    pl->pf_span[slot] = 1;
    pl->pf_packed[slot] = op < 2 && s->pack[op] != -1 &&
                        (s->pack[op] == GB_SCHED_ROOT || pl->pos[s->pack[op]] < pl->pos[site]);
    pl->pf_src_rows[slot] = pl->pf_src_span[slot] = 1;
    for (int l = 0; l < s->nloops; l++)
        if (gb_sched_plan_is_base(s, l) && pl->base_pos[l] > pl->pos[site]) {
            if (s->loops[l].axis == row_axis[op])
                pl->pf_src_rows[slot] += sh->stride[l] * (sh->extent[l] - 1);
            else if (s->loops[l].axis == col_axis[op])
                pl->pf_src_span[slot] += sh->stride[l] * (sh->extent[l] - 1);
        }
    /* the dot loop's iteration reads a group of k: g rows of B, g columns
     * of A (a pack's word holds the group already) */
    if (pl->dot && site == pl->dot_loop) {
        if (row_axis[op] == GB_AXIS_K)
            pl->pf_src_rows[slot] += pl->group - 1;
        else if (col_axis[op] == GB_AXIS_K)
            pl->pf_src_span[slot] += pl->group - 1;
    }
    if (pl->pf_packed[slot]) {
        long weight = 1; /* in 32-bit words: floats, or a dot pack's groups */
        int outer = -1;  /* the outermost dimension inside the site */
        long outer_weight = 1;
        for (int d = pl->npack[op] - 1; d >= 0; d--) {
            const int l = pl->pack_dim[op][d];
            if (pl->base_pos[l] > pl->pos[site]) {
                pl->pf_span[slot] += weight * (pl->pack_ext[op][d] - 1);
                outer = d, outer_weight = weight;
            }
            weight *= pl->pack_ext[op][d];
        }
        /* spread, the box's rows are its outermost dimension's (BLIS's
         * next micro-panel pb[jr + 1][kk][jv]: kc rows of 48), each the
         * span of the dimensions inside it, row_stride words apart */
        pl->pf_row_stride[slot] = 1;
        if (s->prefetch_over[slot] >= 0 && outer >= 0) {
            pl->pf_rows[slot] = pl->pack_ext[op][outer];
            pl->pf_span[slot] -= outer_weight * (pl->pack_ext[op][outer] - 1);
            pl->pf_row_stride[slot] = outer_weight;
        }
    } else {
        pl->pf_rows[slot] = pl->pf_src_rows[slot];
        pl->pf_span[slot] = pl->pf_src_span[slot];
    }
    if (s->prefetch_over[slot] >= 0) {
        /* spread: the passes are the loops between the site and INNER */
        const int inner = s->prefetch_over[slot];
        pl->pf_passes[slot] = 1;
        for (int q = pl->pos[site] + 1; q < pl->pos[inner]; q++)
            pl->pf_passes[slot] *= sh->extent[pl->order[q]];
        pl->pf_iters[slot] = inner == pl->dot_loop
                                 ? (sh->extent[inner] + pl->group - 1) / pl->group
                                 : sh->extent[inner];
    }
    pl->pf_lines[slot] = prefetch_lines(pl, slot, pl->pf_rows[slot], pl->pf_span[slot]);
    /* a fused pack's first pass asks for the matrix's box: the larger counts */
    if (pl->pf_packed[slot] && pl->pass[op] >= 0) {
        long src = prefetch_lines(pl, slot, pl->pf_src_rows[slot], pl->pf_src_span[slot]);
        if (src > pl->pf_lines[slot])
            pl->pf_lines[slot] = src;
    }
}

static int form_override; /* gb_sched_force_form's */

void gb_sched_force_form(int which)
{
    form_override = which;
}

/* Whether this CPU runs type t's dot product on 512-bit vectors. */
static int cpu_has_dot(gb_dtype t)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512f"))
        return 0;
    return t == GB_DTYPE_BF16 ? __builtin_cpu_supports("avx512bf16")
                              : t == GB_DTYPE_U8S8 && __builtin_cpu_supports("avx512vnni");
#else
    (void)t;
    return 0;
#endif
}

/* Whether type t's dot form is this machine's choice where a nest allows
 * it (the CPU has it; bf16: packed's rule prefers it, or a test forces it). */
static int dot_preferred(gb_dtype t)
{
    if (t == GB_DTYPE_F32 || !cpu_has_dot(t) || form_override == 2)
        return 0;
    if (t == GB_DTYPE_BF16 && form_override == 0) {
        const packed_lowp_bf16_rule *rule = packed_lowp_bf16_rule_get();
        return !rule->measured || strcmp(rule->chosen, "avx512_bf16") == 0;
    }
    return 1;
}

int gb_sched_model_group(const gb_sched *s)
{
    if (!dot_preferred(s->dtype))
        return 1;
    return s->dtype == GB_DTYPE_BF16 ? 2 : 4;
}

int gb_sched_spreads_b(const gb_sched *s)
{
    return s->prefetch[GB_SCHED_PF_SPREAD + 1] >= 0;
}

void gb_sched_model_values_typed(const gb_sched *s, int M, int N, int K, int nthreads,
                                 long out[])
{
    const int g = gb_sched_model_group(s);

    gb_sched_model_values_rows(NULL, M, N, (K + g - 1) / g, nthreads,
                               (long)N * (long)gb_dtype_size_b(s->dtype),
                               gb_sched_spreads_b(s), out);
    out[GB_MODEL_KC] *= g;
    /* pf is B's rows ahead (its L1d sets' rule); the dot loop's distance
     * counts groups of g rows.  u8s8 twin at M = 16, 2 threads (Intel Xeon
     * kind, two runs of 10 rounds): the rule's 16 taken as groups (64
     * rows) 1.05-1.06x packed's time (geomean of qkv, mlp_expand,
     * mlp_reduce), 8 0.98-1.01x, 16 / 4 = 4 0.93x. */
    out[GB_MODEL_PF] = out[GB_MODEL_PF] / g > 0 ? out[GB_MODEL_PF] / g : 1;
}

/* Why the run cannot take the dot form, or NULL when it can: a rows run
 * of whole 16-lane vectors, one k loop in it (the innermost piece of k,
 * every other piece a whole number of groups, so that no group straddles
 * two of its runs), B packed outside the run (its groups are words; in
 * place they are `group` rows apart), A not fused (its copy would go
 * into groups across rows). */
static int cpu_has_avx512(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
#else
    return 0;
#endif
}

static const char *dot_blocker(const plan *pl, int group)
{
    const gb_sched *s = pl->s;
    const gb_sched_shape *sh = pl->sh;
    int kloops = 0;

    if (pl->run_at < 0 || pl->rows_loop < 0 || pl->vec_width % 16 != 0)
        return "no run of rows of 16-lane vectors";
    for (int p = pl->run_at; p < pl->n && pl->order[p] != pl->rows_loop; p++)
        kloops++;
    if (kloops != 1 || sh->stride[pl->order[pl->run_at]] != 1)
        return "the run's k loops are not one loop over the innermost piece of k";
    for (int l = 0; l < s->nloops; l++)
        if (gb_sched_plan_is_base(s, l) && s->loops[l].axis == GB_AXIS_K &&
            l != pl->order[pl->run_at] && sh->stride[l] % group != 0)
            return "a piece of k that is not a whole number of groups (kc not a multiple "
                   "of the group)";
    if (s->pack[1] == -1 || (s->pack[1] != GB_SCHED_ROOT && pl->pos[s->pack[1]] >= pl->run_at))
        return "B not packed outside the run";
    if (s->pack_fused[0])
        return "A's pack is fused";
    return NULL;
}

static int tiles_emulated; /* gb_sched_force_tiles_emulated's */

void gb_sched_force_tiles_emulated(int on)
{
    tiles_emulated = on != 0;
}

int gb_sched_tiles_emulated(void)
{
    return tiles_emulated;
}

/* Why the run cannot go on the tiles at this shape, or NULL: the dot
 * form's run (dot_blocker) whose rows are the tensorized loop's, a piece
 * of i of stride 1 (consecutive rows), at most two tiles of rows and
 * three of 16 columns, tiles for C, A and B within the 8; its k loop
 * whole tiles deep at every k block (kc and K multiples of the depth:
 * the tiles read A in place, and a tile past K would read past A's row);
 * the packs' copies need AVX-512. */
static const char *tile_blocker(const plan *pl, int group)
{
    const gb_sched *s = pl->s;
    const gb_sched_shape *sh = pl->sh;
    const long depth = (long)GB_SCHED_TILE_ROWS * group;
    const char *why;
    int mt, nt;

    if (pl->rows_loop != s->tensorize)
        return "the tensorized loop is no run's rows at this shape (a tail bounds it)";
    if ((why = dot_blocker(pl, group)) != NULL)
        return why;
    if (sh->stride[pl->rows_loop] != 1)
        return "the tensorized loop is not the innermost piece of i";
    mt = (pl->rows + GB_SCHED_TILE_ROWS - 1) / GB_SCHED_TILE_ROWS;
    nt = pl->vec_width / 16;
    if (mt * nt + mt + nt > GB_SCHED_TILES)
        return "more tiles than the 8 registers (C's rows x columns of tiles, one A tile a "
               "row of them, one B tile a column)";
    if (sh->K % depth != 0 || sh->extent[pl->order[pl->run_at]] % depth != 0)
        return "K or the run's k is not a whole number of tiles deep (32 bf16, 64 u8)";
    if (!cpu_has_avx512())
        return "this CPU has no AVX-512 for the packs' copies";
    return NULL;
}

/* The type's form for this shape (plan.h): the dot form where the run and
 * the CPU allow it, and for bf16 where packed's measured rule prefers
 * vdpbf16ps to the f32 FMA on widened values (the faster of the two on
 * this machine, timed once per process: packed_lowp.c). */
/* The dot form's plan: the run's k loop steps groups, the packs hold them. */
static void set_dot(plan *pl, int group)
{
    pl->dot = 1;
    pl->group = group;
    pl->dot_loop = pl->order[pl->run_at];
    for (int op = 0; op < 2; op++)
        for (int d = 0; d < pl->npack[op]; d++)
            if (pl->pack_dim[op][d] == pl->dot_loop)
                pl->pack_ext[op][d] = (pl->pack_ext[op][d] + group - 1) / group;
}

static void plan_form(plan *pl)
{
    char tiles_why[200] = "";
    const gb_sched *s = pl->s;
    const int group = s->dtype == GB_DTYPE_BF16 ? 2 : 4;
    const char *blocker;

    pl->dtype = s->dtype;
    pl->dot = 0;
    pl->group = 1;
    pl->dot_loop = -1;
    pl->tiles = 0;
    if (s->dtype == GB_DTYPE_F32) {
        snprintf(pl->form_why, sizeof pl->form_why, "f32");
        return;
    }
    if (s->tensorize >= 0) {
        if ((blocker = tile_blocker(pl, group)) == NULL) {
            set_dot(pl, group);
            pl->tiles = 1;
            pl->tile_mt = (pl->rows + GB_SCHED_TILE_ROWS - 1) / GB_SCHED_TILE_ROWS;
            pl->tile_nt = pl->vec_width / 16;
            snprintf(pl->form_why, sizeof pl->form_why,
                     "%s on AMX's tiles%s: %d x %d C tiles of %d x 16, k %d a step: %s",
                     gb_dtype_name(s->dtype), tiles_emulated ? " (emulated: a test)" : "",
                     pl->tile_mt, pl->tile_nt, pl->rows < 16 ? pl->rows : 16, 16 * group,
                     s->dtype == GB_DTYPE_BF16 ? "tdpbf16ps" : "tdpbusd");
            return;
        }
        /* elsewhere the other forms; rows past a register block's are
         * an i loop of their own again, between the k loop and the
         * vector, so there is no register run: the memory form */
        snprintf(tiles_why, sizeof tiles_why, "not on the tiles at this shape (%s); ", blocker);
        if (pl->rows_loop >= 0 &&
            (pl->rows > GB_SCHED_MAX_ROWS || pl->rows < 2 ||
             (long)pl->rows * pl->vec_width > GB_SCHED_MAX_ROW_LANES)) {
            pl->rows_loop = -1;
            pl->rows = 1;
            pl->run_at = -1;
            pl->vec_width = 0;
            pl->fold_init = 0;
            pl->no_jam = 0;
        }
    }
    if ((blocker = dot_blocker(pl, group)) != NULL) {
        snprintf(pl->form_why, sizeof pl->form_why, "%s%s widened to %s where read: %s",
                 tiles_why, gb_dtype_name(s->dtype), s->dtype == GB_DTYPE_BF16 ? "f32" : "int32",
                 blocker);
        return;
    }
    if (!dot_preferred(s->dtype)) {
        snprintf(pl->form_why, sizeof pl->form_why, "%s%s widened to %s where read: %s",
                 tiles_why, gb_dtype_name(s->dtype), s->dtype == GB_DTYPE_BF16 ? "f32" : "int32",
                 form_override == 2 ? "forced (a test)"
                 : !cpu_has_dot(s->dtype) ? (s->dtype == GB_DTYPE_BF16
                                                 ? "this CPU has no AVX512_BF16"
                                                 : "this CPU has no AVX512_VNNI")
                                          : "packed's rule");
        if (s->dtype == GB_DTYPE_BF16 && form_override != 2 && cpu_has_dot(s->dtype))
            snprintf(pl->form_why + strlen(pl->form_why), sizeof pl->form_why - strlen(pl->form_why),
                     " (%s)", packed_lowp_bf16_rule_get()->why);
        return;
    }
    set_dot(pl, group);
    snprintf(pl->form_why, sizeof pl->form_why, "%s%s in groups of %d k: %s", tiles_why,
             gb_dtype_name(s->dtype), group, s->dtype == GB_DTYPE_BF16 ? "vdpbf16ps" : "vpdpbusd");
}

/* Fills pl for the nest resolved in pl->shape. */
static void fill_plan(plan *pl)
{
    const gb_sched_shape *sh = &pl->shape;
    const gb_sched *s = sh->s;
    int last;

    pl->sh = sh;
    pl->s = s;
    for (int l = 0; l < MAXL; l++)
        pl->pos[l] = -1;
    for (int i = 0; i < s->norder; i++)
        if (s->order[i] != s->vectorize)
            pl->order[pl->n++] = s->order[i];
    if (s->vectorize >= 0)
        pl->order[pl->n++] = s->vectorize;
    for (int p = 0; p < pl->n; p++)
        pl->pos[pl->order[p]] = p;
    for (int l = 0; l < s->nloops; l++)
        pl->base_pos[l] = gb_sched_plan_is_base(s, l) ? pl->pos[gb_sched_plan_carrier(s, l)] : -1;
    for (int a = 0; a < 3; a++)
        add_tails(pl, a);

    pl->init_at = pl->n;
    for (int p = 0; p < pl->n; p++)
        if (s->loops[pl->order[p]].axis == GB_AXIS_K) {
            pl->init_at = p;
            break;
        }

    /* A row block: an i loop directly outside the vectorized loop, unrolled
     * whole, of a constant extent (no tail at this shape), neither parallel
     * nor fused: the run below holds its rows' sums together and loads each
     * B vector once for all of them (a micro-kernel of rows x lanes). */
    last = pl->n - 1 - (s->vectorize >= 0);
    pl->rows_loop = -1;
    pl->rows = 1;
    if (s->vectorize >= 0 && last >= 0) {
        const int r = pl->order[last];
        const long rows = sh->extent[r];
        int tailed = 0;
        for (int t = 0; t < pl->ntails; t++)
            tailed |= pl->tails[t].carrier == r;
        /* the tensorized loop's rows are the tiles' (at most two tiles of
         * 16), not registers' (plan_form takes them back if the tiles
         * are not taken at this shape) */
        const int tiled = s->tensorize == r && rows <= 2 * GB_SCHED_TILE_ROWS;
        if (s->loops[r].axis == GB_AXIS_I && gb_sched_plan_is_base(s, r) && !tailed &&
            s->parallel != r &&
            (tiled || ((s->unroll[r] < 0 || s->unroll[r] >= rows) && rows >= 2 &&
                       rows <= GB_SCHED_MAX_ROWS &&
                       rows * sh->extent[s->vectorize] <= GB_SCHED_MAX_ROW_LANES))) {
            pl->rows_loop = r;
            pl->rows = (int)rows;
            last--;
        }
    }
    /* The register run: the k loops innermost but for the vectorized one
     * (and the row block), with no pack inside them. */
    pl->run_at = -1;
    for (int p = last; p >= 0 && s->loops[pl->order[p]].axis == GB_AXIS_K; p--)
        pl->run_at = p;
    for (int op = 0; op < 2 && pl->run_at >= 0; op++)
        if (s->pack[op] >= 0 && pl->pos[s->pack[op]] >= pl->run_at)
            pl->run_at = -1;
    if (s->vectorize >= 0) {
        int v = s->vectorize;
        long w = sh->extent[v];
        if (pl->run_at < 0 || s->loops[v].axis != GB_AXIS_J || sh->stride[v] != 1 ||
            !register_width(w))
            pl->run_at = -1; /* the omp simd form, accumulating in memory */
        else
            pl->vec_width = (int)w;
    }
    if (pl->run_at < 0) { /* rows are held only by a vector run */
        pl->rows_loop = -1;
        pl->rows = 1;
    }

    /* No unroll-and-jam where a k loop directly holds the spatial loop that
     * holds the register run (tvm_cache_write: ko, mi, then the run of ki).
     * Jamming two k steps into each run makes the chain of dependent FMAs
     * of each sum twice as long per iteration of the spatial loop, to save
     * one load and store of it: the jammed ko ran 1.08-1.19x the
     * hand-written twin (which GCC does not jam) at mlp_expand M=256 on one
     * thread, and 1.00 unjammed; at qkv M=128, mlp_reduce M=256 and
     * mlp_expand M=64 unjammed ran 0.88-0.97x jammed.  Elsewhere jamming
     * stays: where the sum is in memory (k4..k64, vec_j: k1 into the omp
     * simd j loop) it saves half the loads and stores of C, and those ran
     * 1.2-1.4x slower without it.  A jam of a spatial loop into another
     * spatial loop puts independent sums side by side. */
    /* C's init folded into the run: a run below the init starts from zero
     * where every k loop outside it is at its first iteration and from C
     * elsewhere, so C is not zeroed in a pass of its own (each element's
     * first run is the one at those k iterations).  Not with cache_write,
     * whose tile has its own init. */
    pl->fold_init = pl->run_at > pl->init_at && s->cache_write < 0;

    pl->no_jam = pl->run_at >= 2 && s->loops[pl->order[pl->run_at - 1]].axis != GB_AXIS_K &&
                 s->loops[pl->order[pl->run_at - 2]].axis == GB_AXIS_K;

    pl->tile_h = pl->tile_w = 1;
    if (s->cache_write >= 0)
        for (int l = 0; l < s->nloops; l++)
            if (gb_sched_plan_is_base(s, l) && pl->base_pos[l] > pl->pos[s->cache_write]) {
                long span = sh->stride[l] * (sh->extent[l] - 1);
                if (s->loops[l].axis == GB_AXIS_I)
                    pl->tile_h += span;
                else if (s->loops[l].axis == GB_AXIS_J)
                    pl->tile_w += span;
            }

    for (int op = 0; op < 2; op++) {
        const int site = s->pack[op];
        const int spatial = op ? GB_AXIS_J : GB_AXIS_I;
        int site_pos = site == GB_SCHED_ROOT ? -1 : site >= 0 ? pl->pos[site] : 0;
        if (site == -1)
            continue;
        pl->pack_floats[op] = 1;
        for (int l = 0; l < s->nloops; l++)
            if (gb_sched_plan_is_base(s, l) && pl->base_pos[l] > site_pos &&
                (s->loops[l].axis == spatial || s->loops[l].axis == GB_AXIS_K)) {
                int at = pl->npack[op]++;
                while (at > 0 && base_rank(pl, pl->pack_dim[op][at - 1]) > base_rank(pl, l)) {
                    pl->pack_dim[op][at] = pl->pack_dim[op][at - 1];
                    at--;
                }
                pl->pack_dim[op][at] = l;
            }
        pl->pack_per_thread[op] =
            site >= 0 && s->parallel >= 0 && pl->pos[s->parallel] <= site_pos;
        for (int d = 0; d < pl->npack[op]; d++)
            pl->pack_ext[op][d] = sh->extent[pl->pack_dim[op][d]];
        pl->pack_team[op] = site >= 0 && s->parallel >= 0 && pl->pos[s->parallel] > site_pos;
    }
    /* A pack outside the parallel loop (BLIS's B at pc, above the ic loop
     * the threads share) is filled by all the threads, each a share, with
     * a barrier before it is read and another before it is filled again:
     * one parallel region around the nest, omp for at the pack and at the
     * parallel loop (both end in a barrier).  Not with a cache_write tile
     * outside the parallel loop, which the threads share and the region
     * would make one per thread: then one thread packs, as before. */
    for (int op = 0; op < 2; op++)
        pl->pass[op] = s->pack_fused[op] ? gb_sched_fused_pass(s, op, pl->pos) : -1;
    plan_form(pl);
    for (int op = 0; op < 2; op++) {
        if (s->pack[op] == -1)
            continue;
        pl->pack_floats[op] = 1; /* 32-bit words: floats, or a dot pack's groups */
        for (int d = 0; d < pl->npack[op]; d++)
            pl->pack_floats[op] *= pl->pack_ext[op][d];
    }
    for (int slot = 0; slot < GB_SCHED_PF_SLOTS; slot++)
        plan_prefetch(pl, slot);
    pl->team = (pl->pack_team[0] || pl->pack_team[1]) &&
               (s->cache_write < 0 || pl->pos[s->cache_write] >= pl->pos[s->parallel]);
    if (!pl->team)
        pl->pack_team[0] = pl->pack_team[1] = 0;
}

/* The per-shape limits of SCHED.md: the cache_write tile and the pack
 * buffers.  0, or -1 with err. */
static int check_limits(const plan *pl, char *err, size_t errlen)
{
    const gb_sched *s = pl->s;

    if (pl->tile_h * pl->tile_w > GB_SCHED_MAX_TILE) {
        snprintf(err, errlen, "%s: cache_write at %s: a tile of %ld x %ld floats, over %d",
                 s->file, s->loops[s->cache_write].name, pl->tile_h, pl->tile_w,
                 GB_SCHED_MAX_TILE);
        return -1;
    }
    for (int op = 0; op < 2; op++)
        if (pl->pack_floats[op] > GB_SCHED_MAX_PACK) {
            snprintf(err, errlen, "%s: pack %c: %ld floats, over %ld", s->file, op ? 'B' : 'A',
                     pl->pack_floats[op], GB_SCHED_MAX_PACK);
            return -1;
        }
    for (int slot = 0; slot < GB_SCHED_PF_SLOTS; slot++) {
        const int over = s->prefetch_over[slot];
        char spread[96] = "";
        if (s->prefetch[slot] < 0 || pl->pf_lines[slot] <= GB_SCHED_MAX_PREFETCH_LINES)
            continue;
        if (over >= 0)
            snprintf(spread, sizeof spread, " over %s", s->loops[over].name);
        snprintf(err, errlen, "%s: prefetch %c at %s%s: %ld rows x %ld floats, %ld lines an "
                 "iteration%s, over %d", s->file, 'A' + slot % GB_SCHED_PF_SPREAD,
                 s->loops[s->prefetch[slot]].name, spread, pl->pf_rows[slot],
                 pl->pf_span[slot], pl->pf_lines[slot], over >= 0 ? " of it" : "",
                 GB_SCHED_MAX_PREFETCH_LINES);
        return -1;
    }
    return 0;
}

gb_sched_plan *gb_sched_plan_new(const gb_sched *s, const gb_params *params, int M, int N,
                                 int K, char *err, size_t errlen)
{
    return gb_sched_plan_for(s, params, M, N, K, 0, err, errlen);
}

gb_sched_plan *gb_sched_plan_for(const gb_sched *s, const gb_params *params, int M, int N,
                                 int K, int nthreads, char *err, size_t errlen)
{
    plan *pl = calloc(1, sizeof *pl); /* tens of KiB (the tails): off the stack */

    if (pl == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    /* A schedule with choices: the combination the model (or --param)
     * picks for this shape, checked with the others when it was loaded. */
    pl->nthreads = nthreads;
    if (s->nblocks > 0) {
        pl->combo = gb_sched_combo_for(s, params, M, N, K, nthreads, err, errlen);
        if (pl->combo < 0) {
            free(pl);
            return NULL;
        }
        gb_sched_with_combo(s, pl->combo, &pl->chosen);
        s = &pl->chosen;
    }
    if (gb_sched_resolve(s, params, M, N, K, nthreads, &pl->shape, err, errlen) != 0) {
        free(pl);
        return NULL;
    }
    fill_plan(pl);
    if (check_limits(pl, err, errlen) != 0) {
        free(pl);
        return NULL;
    }
    return pl;
}

void gb_sched_plan_free(gb_sched_plan *pl)
{
    free(pl);
}

const gb_sched_shape *gb_sched_plan_shape(const gb_sched_plan *pl)
{
    return pl->sh;
}

int gb_sched_plan_tiles(const gb_sched_plan *pl)
{
    return pl->tiles;
}

const char *gb_sched_plan_form(const gb_sched_plan *pl, int *dot)
{
    if (dot)
        *dot = pl->dot;
    return pl->form_why;
}

long gb_sched_scratch_floats(const gb_sched_plan *pl, int nthreads)
{
    long total = 0;

    for (int op = 0; op < 2; op++)
        total += pl->pack_floats[op] * (pl->pack_per_thread[op] ? nthreads : 1);
    return total;
}
