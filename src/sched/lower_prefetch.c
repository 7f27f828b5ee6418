/* lower_prefetch.c - the prefetches of a planned nest as C (SCHED.md,
 * `prefetch`, `prefetch ... over` and "Lowering"): the box an iteration
 * ahead reads, its address an integer, plain at its loop or spread over a
 * pass's iterations of INNER.  lower.c opens the loops and calls here
 * first in each body; open_loop cuts a spread's INNER in its two segments
 * with the bounds made here. */
#include "lower.h"

#include <stdio.h>

/* A loop's value in a prefetch of the iteration `distance` after this one
 * of site: the site ahead, the loops inside it at 0, the rest as they are;
 * NULL for a loop that adds nothing.  The dot loop steps a group at a
 * time: in a pack buffer its value counts groups (words). */
static const char *at_prefetch(const plan *pl, int l, int site, long distance, int packed,
                               char *buf, size_t len)
{
    const char *name = pl->s->loops[l].name;
    const int dot = l == pl->dot_loop;

    if (l == site) {
        if (dot && packed)
            snprintf(buf, len, "(l_%s / %d + %ld)", name, pl->group, distance);
        else
            snprintf(buf, len, "(l_%s + %ld)", name, distance * (dot ? pl->group : 1));
        return buf;
    }
    if (pl->base_pos[l] > pl->pos[site])
        return NULL;
    if (dot && packed)
        snprintf(buf, len, "(l_%s / %d)", name, pl->group);
    else
        snprintf(buf, len, "l_%s", name);
    return buf;
}

/* The first float of the box a prefetch asks for, as an index of the
 * operand (in place: row and column apart) or of its pack buffer. */
static void prefetch_index(const plan *pl, int slot, int packed, char *rows, char *cols,
                           size_t len)
{
    static const int row_axis[3] = { GB_AXIS_I, GB_AXIS_K, GB_AXIS_I };
    static const int col_axis[3] = { GB_AXIS_K, GB_AXIS_J, GB_AXIS_J };
    const gb_sched *s = pl->s;
    const int site = s->prefetch[slot], op = slot % GB_SCHED_PF_SPREAD;
    const long dist = pl->sh->distance[slot];
    char v[64];
    size_t ur, uc;

    if (packed) {
        snprintf(rows, len, "0");
        for (int d = 0; d < pl->npack[op]; d++) {
            const int l = pl->pack_dim[op][d];
            const char *x = at_prefetch(pl, l, site, dist, 1, v, sizeof v);
            char prev[2048];
            snprintf(prev, sizeof prev, "%s", rows);
            snprintf(rows, len, "(%s) * %ld + %s", prev, pl->pack_ext[op][d], x ? x : "0");
        }
        return;
    }
    ur = (size_t)snprintf(rows, len, "0");
    uc = (size_t)snprintf(cols, len, "0");
    for (int l = 0; l < s->nloops; l++) {
        const char *x;
        if (!gb_sched_plan_is_base(s, l) ||
            (x = at_prefetch(pl, l, site, dist, 0, v, sizeof v)) == NULL)
            continue;
        if (s->loops[l].axis == row_axis[op])
            lw_append(rows, len, &ur, " + %s * %ld", x, pl->sh->stride[l]);
        else if (s->loops[l].axis == col_axis[op])
            lw_append(cols, len, &uc, " + %s * %ld", x, pl->sh->stride[l]);
    }
}

/* A spread prefetch's pass (SCHED.md, "prefetch ... over"): the iteration
 * of the loops between its site and INNER, counted in the nest's order. */
static void spread_pass(const plan *pl, int slot, char *out, size_t len)
{
    const gb_sched *s = pl->s;
    const int site = s->prefetch[slot], inner = s->prefetch_over[slot];

    snprintf(out, len, "0");
    for (int q = pl->pos[site] + 1; q < pl->pos[inner]; q++) {
        char prev[4096];
        snprintf(prev, sizeof prev, "%s", out);
        snprintf(out, len, "(%s) * %ld + l_%s", prev, pl->sh->extent[pl->order[q]],
                 s->loops[pl->order[q]].name);
    }
}

/* The spread slot whose INNER is loop l, or -1 (one a loop: check.c). */
int lw_spread_slot_over(const plan *pl, int l)
{
    for (int slot = GB_SCHED_PF_SPREAD; slot < GB_SCHED_PF_SLOTS; slot++)
        if (pl->s->prefetch[slot] >= 0 && pl->s->prefetch_over[slot] == l)
            return slot;
    return -1;
}

/* Whether a fused pack's first pass reads the box in the matrix here. */
static int box_packed(const emitter *e, int slot)
{
    const int op = slot % GB_SCHED_PF_SPREAD;
    return e->pl->pf_packed[slot] && !(e->mode == COPY && e->pl->pass[op] >= 0);
}

/* A spread prefetch's bounds in its pass, where the loops outside INNER
 * are in scope: gb_s0_SLOT, the pass's first row of the box; gb_left_SLOT,
 * the rows of its share; gb_n_SLOT, the iterations of INNER that ask for
 * them (per_iter rows each). */
void lw_emit_spread_bounds(emitter *e, int slot)
{
    const plan *pl = e->pl;
    const int packed = box_packed(e, slot);
    const long nrows = packed ? pl->pf_rows[slot] : pl->pf_src_rows[slot];
    long share, per_iter;
    char pass[4096]; /* up to 30 loops of "(..) * EXT + l_NAME" */

    spread_pass(pl, slot, pass, sizeof pass);
    gb_sched_plan_spread(pl, slot, nrows, &share, &per_iter);
    lw_line(e->b, "const long gb_s0_%d = (long)(%s) * %ld;", slot, pass, share);
    lw_line(e->b, "const long gb_left_%d = gb_s0_%d < %ld ? (%ld - gb_s0_%d < %ld ? %ld - gb_s0_%d "
                  ": %ld) : 0;", slot, slot, nrows, nrows, slot, share, nrows, slot, share);
    lw_line(e->b, "const long gb_n_%d = (gb_left_%d + %ld) / %ld;", slot, slot, per_iter - 1,
            per_iter);
}

/* A spread prefetch's first lines at INNER l: the test of this iteration
 * against its pass's share (gb_seg_SLOT where open_loop cut l in segments,
 * else l's index against gb_n_SLOT, the bounds made here) and gb_pf, the
 * first of the per_iter rows this iteration asks for; with several rows,
 * their loop, and in step the offset of its row gb_r.  Leaves one block
 * open, two with several rows. */
static void emit_spread_rows(emitter *e, int slot, int l, int packed, const char *rows,
                             const char *cols, char *step, size_t steplen)
{
    static const char *const base[3] = { "A", "B", "C" }, *const ld[3] = { "lda", "ldb", "ldc" };
    const plan *pl = e->pl;
    const gb_sched *s = pl->s;
    const int op = slot % GB_SCHED_PF_SPREAD, size = packed ? 4 : lw_elem_bytes(pl, op);
    long share, per_iter;
    char iter[128], first[256];

    if (l == pl->dot_loop)
        snprintf(iter, sizeof iter, "(l_%s / %d)", s->loops[l].name, pl->group);
    else
        snprintf(iter, sizeof iter, "l_%s", s->loops[l].name);
    gb_sched_plan_spread(pl, slot, packed ? pl->pf_rows[slot] : pl->pf_src_rows[slot], &share,
                         &per_iter);
    if (e->segmented[slot]) { /* open_loop made the bounds and the segments */
        e->segmented[slot] = 0;
        lw_line(e->b, "if (gb_seg_%d == 0) {", slot);
    } else { /* a loop of a run of its own (the dot run's k, the row loop) */
        lw_emit_spread_bounds(e, slot);
        lw_line(e->b, "if (%s < gb_n_%d) {", iter, slot);
    }
    e->b->indent++;
    /* the box's row gb_s0 + iter * per_iter: in place ld elements apart,
     * in a pack buffer row_stride words */
    snprintf(first, sizeof first, "gb_s0_%d + (long)%s * %ld", slot, iter, per_iter);
    if (packed)
        lw_line(e->b, "const size_t gb_pf = (size_t)%s + 4 * ((size_t)(%s) + (size_t)(%s) * %ld);",
                op ? "pb" : "pa", rows, first, pl->pf_row_stride[slot]);
    else
        lw_line(e->b, "const size_t gb_pf = (size_t)%s + %d * ((size_t)(%s + %s) * %s + (%s));",
                base[op], size, rows, first, ld[op], cols);
    if (per_iter > 1) {
        if (packed)
            snprintf(step, steplen, " + gb_r * %ld", 4 * pl->pf_row_stride[slot]);
        else
            snprintf(step, steplen, " + gb_r * %d * (size_t)%s", size, ld[op]);
        lw_line(e->b, "#pragma GCC unroll %ld", per_iter);
        lw_line(e->b, "for (long gb_r = 0; gb_r < %ld; gb_r++) {", per_iter);
        e->b->indent++;
        lw_line(e->b, "if (%s + gb_r >= gb_s0_%d + gb_left_%d)", first, slot, slot);
        lw_line(e->b, "    break;");
    }
}

/* The prefetches at loop l, first in its body: for each operand
 * prefetched there, the lines of the box the iteration `distance` ahead
 * reads, its address an integer (it may lie past the operand's end, which
 * a prefetch may; a pointer may not), each row's lines one a cache line and
 * its last float.  A spread prefetch is emitted at its INNER instead: the
 * rows of its pass's share that this iteration of INNER asks for, into L2
 * (emit_spread_rows). */
void lw_emit_prefetches(emitter *e, int l)
{
    const plan *pl = e->pl;
    const gb_sched *s = pl->s;
    static const char *const base[3] = { "A", "B", "C" }, *const ld[3] = { "lda", "ldb", "ldc" };

    for (int slot = 0; slot < GB_SCHED_PF_SLOTS; slot++) {
        const int op = slot % GB_SCHED_PF_SPREAD, spread = s->prefetch_over[slot] >= 0;
        char rows[2048], cols[2048], step[64] = "";
        /* a fused pack's first pass reads the matrix, not the copy */
        const int packed = box_packed(e, slot);
        const long span = packed ? pl->pf_span[slot] : pl->pf_src_span[slot];
        const long nrows = packed ? pl->pf_rows[slot] : pl->pf_src_rows[slot];
        long share, rows_now = nrows; /* the rows one iteration asks for */
        if (s->prefetch[slot] < 0 || (spread ? s->prefetch_over[slot] : s->prefetch[slot]) != l)
            continue;
        prefetch_index(pl, slot, packed, rows, cols, sizeof rows);
        lw_line(e->b, "{");
        e->b->indent++;
        /* a pack's index counts 32-bit words; the matrix's, elements */
        const int size = packed ? 4 : lw_elem_bytes(pl, op);
        if (spread) {
            gb_sched_plan_spread(pl, slot, nrows, &share, &rows_now);
            emit_spread_rows(e, slot, l, packed, rows, cols, step, sizeof step);
        } else if (packed && op == 1 && e->dot_bk && l == pl->dot_loop) {
            /* the dot run's B pointer is this iteration's box: the one
             * `distance` groups ahead is that many groups' words on */
            lw_line(e->b, "const size_t gb_pf = (size_t)gb_bk + %ld;",
                 4 * pl->sh->distance[slot] * lw_dot_step_words(pl));
        } else if (packed) {
            lw_line(e->b, "const size_t gb_pf = (size_t)%s + 4 * (size_t)(%s);", op ? "pb" : "pa",
                 rows);
        } else {
            lw_line(e->b, "const size_t gb_pf = (size_t)%s + %d * ((size_t)(%s) * %s + (%s));",
                 base[op], size, rows, ld[op], cols);
        }
        if (!spread && nrows > 1) {
            snprintf(step, sizeof step, " + gb_r * %d * (size_t)%s", size, ld[op]);
            lw_line(e->b, "#pragma GCC unroll %ld", nrows);
            lw_line(e->b, "for (size_t gb_r = 0; gb_r < %ld; gb_r++) {", nrows);
            e->b->indent++;
        }
        /* read (0) or write (1, C); kept in every level of the cache (3),
         * or a spread one's in L2 and out (2: read an iteration of its
         * site later) */
        /* a line's elements: 16 floats or words, 32 bf16, 64 bytes */
        const long per_line = 64 / size;
        const int locality = spread ? 2 : 3;
        for (long f = 0; f < span; f += per_line)
            lw_line(e->b, "__builtin_prefetch((const void *)(gb_pf%s + %ld), %d, %d);", step,
                 (long)size * f, op == 2, locality);
        if ((span - 1) % per_line != 0)
            lw_line(e->b, "__builtin_prefetch((const void *)(gb_pf%s + %ld), %d, %d);", step,
                 (long)size * (span - 1), op == 2, locality);
        if (rows_now > 1)
            lw_close_loop(e);
        if (spread)
            lw_close_loop(e);
        lw_close_loop(e);
    }
}

