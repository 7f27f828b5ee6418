/* lower.c - a planned nest as C (SCHED.md, "Lowering").  Everything that
 * enters the C comes from the checked nest: loop names (already
 * [a-z_][a-z0-9_]*, prefixed l_) and integers.  This file walks the nest
 * (loops, tails, C's init, the f32 and widened runs, the kernel around
 * them); lower_prefetch.c holds the prefetches (plain and spread),
 * lower_runs.c what the types add (the packs' copies in groups, the dot
 * run, the tiles), lower.h what they share. */
#include "lower.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static void vput(sbuf *b, const char *fmt, va_list args)
{
    va_list ap;
    int n;

    if (b->failed)
        return;
    for (;;) {
        va_copy(ap, args);
        n = vsnprintf(b->text + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->failed = 1;
            return;
        }
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = (b->cap + (size_t)n + 1) * 2;
        char *t = realloc(b->text, cap);
        if (t == NULL) {
            b->failed = 1;
            return;
        }
        b->text = t;
        b->cap = cap;
    }
}

void lw_put(sbuf *b, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vput(b, fmt, ap);
    va_end(ap);
}

/* A line at the current indentation, of any length (a fixed buffer here
 * cut a legal nest's long index expressions, and the C did not compile). */
void lw_line(sbuf *b, const char *fmt, ...)
{
    va_list ap;

    lw_put(b, "%*s", 4 * b->indent, "");
    va_start(ap, fmt);
    vput(b, fmt, ap);
    va_end(ap);
    lw_put(b, "\n");
}

/* Appends to out (len bytes, *used of them written), never past its end:
 * the expressions' buffers hold the longest nest the language allows
 * (15 loops of an axis with 31-character names), so this never cuts one;
 * if it ever did, the compiler would refuse the cut C, nothing would be
 * written past the buffer. */
void lw_append(char *out, size_t len, size_t *used, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (*used >= len)
        return;
    va_start(ap, fmt);
    n = vsnprintf(out + *used, len - *used, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    *used = *used + (size_t)n < len ? *used + (size_t)n : len - 1;
}

/* ---- types (SCHED.md, "Types") --------------------------------------------- */

/* A's, B's and C's element types in the C, and W, the type an element is
 * widened to where it is read (the accumulator's: C's). */
const char *lw_type_a(const plan *pl)
{
    return pl->dtype == GB_DTYPE_BF16 ? "unsigned short"
           : pl->dtype == GB_DTYPE_U8S8 ? "unsigned char" : "float";
}

const char *lw_type_b(const plan *pl)
{
    return pl->dtype == GB_DTYPE_BF16 ? "unsigned short"
           : pl->dtype == GB_DTYPE_U8S8 ? "signed char" : "float";
}

const char *lw_type_w(const plan *pl)
{
    return pl->dtype == GB_DTYPE_U8S8 ? "int" : "float";
}

/* A pack buffer's element: the type's own in the dot form, else widened. */
const char *lw_type_pack(const plan *pl, int op)
{
    return pl->dot ? (op ? lw_type_b(pl) : lw_type_a(pl)) : lw_type_w(pl);
}

int lw_elem_bytes(const plan *pl, int op)
{
    if (op == 2 || pl->dtype == GB_DTYPE_F32)
        return 4;
    return pl->dtype == GB_DTYPE_BF16 ? 2 : 1;
}

/* ---- expressions ----------------------------------------------------------- */

/* An axis's index where all its loops are in scope: sum of stride * loop. */
void lw_axis_index(const plan *pl, int axis, char *out, size_t len)
{
    const gb_sched *s = pl->s;
    size_t used = 0;
    int first = 1;

    out[0] = '\0';
    for (int l = 0; l < s->nloops; l++)
        if (gb_sched_plan_is_base(s, l) && s->loops[l].axis == axis) {
            lw_append(out, len, &used, "%sl_%s * %ld", first ? "" : " + ", s->loops[l].name,
                      pl->sh->stride[l]);
            first = 0;
        }
}

/* The 32-bit word of (outer, inner) in a pack buffer: mixed radix over
 * its dims (the dot loop's in groups).  In the dot form the element is
 * that word's times the group plus the k within it (pack_index). */
void lw_pack_word(const plan *pl, int op, char *out, size_t len)
{
    snprintf(out, len, "0");
    for (int d = 0; d < pl->npack[op]; d++) {
        int l = pl->pack_dim[op][d];
        char prev[2048];
        snprintf(prev, sizeof prev, "%s", out);
        if (l == pl->dot_loop)
            snprintf(out, len, "(%s) * %ld + l_%s / %d", prev, pl->pack_ext[op][d],
                     pl->s->loops[l].name, pl->group);
        else
            snprintf(out, len, "(%s) * %ld + l_%s", prev, pl->pack_ext[op][d],
                     pl->s->loops[l].name);
    }
}

void lw_pack_index(const plan *pl, int op, char *out, size_t len)
{
    char word[2048];

    lw_pack_word(pl, op, word, sizeof word);
    if (pl->dot)
        snprintf(out, len, "(%s) * %d + l_%s %% %d", word, pl->group,
                 pl->s->loops[pl->dot_loop].name, pl->group);
    else
        snprintf(out, len, "%s", word);
}

/* Words between two groups of the dot loop in B's pack: the extents of
 * the dims inside it. */
long lw_dot_step_words(const plan *pl)
{
    long words = 1;

    for (int d = pl->npack[1] - 1; d >= 0 && pl->pack_dim[1][d] != pl->dot_loop; d--)
        words *= pl->pack_ext[1][d];
    return words;
}

/* expr, an element of A (op 0) or B (1) as stored, widened to the
 * accumulator's type. */
void lw_widened(const plan *pl, int op, const char *expr, char *out, size_t len)
{
    if (pl->dtype == GB_DTYPE_F32)
        snprintf(out, len, "%s", expr);
    else if (pl->dtype == GB_DTYPE_BF16)
        snprintf(out, len, "gb_bf16_wide(%s)", expr);
    else
        snprintf(out, len, "(int)%s", expr);
    (void)op;
}

/* Operand op (0: A[i, k], 1: B[k, j]) in place, where all its loops are
 * in scope. */
void lw_source(const plan *pl, int op, char *out, size_t len)
{
    char rows[1024], cols[1024];

    lw_axis_index(pl, op ? GB_AXIS_K : GB_AXIS_I, rows, sizeof rows);
    lw_axis_index(pl, op ? GB_AXIS_J : GB_AXIS_K, cols, sizeof cols);
    snprintf(out, len, "%s[(size_t)(%s) * %s + (%s)]", op ? "B" : "A", rows, op ? "ldb" : "lda",
             cols);
}


/* Operand op where all its loops are in scope: its pack buffer when
 * packed, else the matrix itself; a fused pack's as the mode says. */
/* Whether a fused pack's copy is being made: every loop from its site's
 * body out to its pass loop (none of them reads the operand) at its first
 * iteration, "(l_ic == 0 && l_ir == 0)". */
static void pass_condition(const plan *pl, int op, char *out, size_t len)
{
    size_t used = (size_t)snprintf(out, len, "(");

    for (int q = pl->pos[pl->s->pack[op]] + 1; q <= pl->pos[pl->pass[op]]; q++)
        lw_append(out, len, &used, "%sl_%s == 0", used > 1 ? " && " : "",
                  pl->s->loops[pl->order[q]].name);
    lw_append(out, len, &used, ")");
}

/* Operand op's element, widened (its value in the accumulator's type). */
void lw_operand(const plan *pl, int op, int mode, char *out, size_t len)
{
    char idx[2048], src[2400], raw[2600];

    if (pl->s->pack[op] == -1) {
        lw_source(pl, op, src, sizeof src);
        lw_widened(pl, op, src, out, len);
        return;
    }
    lw_pack_index(pl, op, idx, sizeof idx);
    if (pl->pass[op] < 0 || mode == READ) {
        snprintf(raw, sizeof raw, "%s[%s]", op ? "pb" : "pa", idx);
        if (pl->dot) /* the buffer holds the type's elements */
            lw_widened(pl, op, raw, out, len);
        else
            snprintf(out, len, "%s", raw);
        return;
    }
    /* a fused pack: its buffer holds widened values, or (the dot form) the
     * type's, widened as read */
    lw_source(pl, op, src, sizeof src);
    if (pl->dot)
        snprintf(raw, sizeof raw, "%s", src);
    else
        lw_widened(pl, op, src, raw, sizeof raw);
    if (mode == COPY) {
        snprintf(out, len, "(%s[%s] = %s)", op ? "pb" : "pa", idx, raw);
    } else {
        char first[1024];
        pass_condition(pl, op, first, sizeof first);
        snprintf(out, len, "(%s ? (%s[%s] = %s) : %s[%s])", first, op ? "pb" : "pa", idx, raw,
                 op ? "pb" : "pa", idx);
    }
    if (pl->dot) {
        char copy[4096];
        snprintf(copy, sizeof copy, "%s", out);
        lw_widened(pl, op, copy, out, len);
    }
}

/* Where C's sums go: the cache_write tile, or C. */
void lw_target(const plan *pl, char *out, size_t len)
{
    const gb_sched *s = pl->s;
    char i[1024], j[1024];

    if (s->cache_write < 0) {
        lw_axis_index(pl, GB_AXIS_I, i, sizeof i);
        lw_axis_index(pl, GB_AXIS_J, j, sizeof j);
        snprintf(out, len, "C[(size_t)(%s) * ldc + (%s)]", i, j);
        return;
    }
    /* the tile's row and column: the loops inside the site only */
    size_t ui = 0, uj = 0;
    i[0] = j[0] = '\0';
    ui += (size_t)snprintf(i, sizeof i, "0");
    uj += (size_t)snprintf(j, sizeof j, "0");
    for (int l = 0; l < s->nloops; l++)
        if (gb_sched_plan_is_base(s, l) && pl->base_pos[l] > pl->pos[s->cache_write]) {
            if (s->loops[l].axis == GB_AXIS_I)
                lw_append(i, sizeof i, &ui, " + l_%s * %ld", s->loops[l].name,
                                       pl->sh->stride[l]);
            else if (s->loops[l].axis == GB_AXIS_J)
                lw_append(j, sizeof j, &uj, " + l_%s * %ld", s->loops[l].name,
                                       pl->sh->stride[l]);
        }
    snprintf(out, len, "cc[(%s) * %ld + (%s)]", i, pl->tile_w, j);
}

/* The upper bound of base loop l: its extent, lowered by every tail whose
 * carrier it is. */
void lw_bound_of(const plan *pl, int l, char *out, size_t len)
{
    const gb_sched *s = pl->s;
    size_t used = (size_t)snprintf(out, len, "%ld", pl->sh->extent[l]);

    for (int t = 0; t < pl->ntails; t++) {
        const tail *tl = &pl->tails[t];
        long c = 1;
        char rest[1024];
        size_t ur = 0;
        if (tl->carrier != l)
            continue;
        rest[0] = '\0';
        for (int i = 0; i < tl->n; i++) {
            if (tl->loop[i] == l) {
                c = tl->coef[i];
                continue;
            }
            lw_append(rest, sizeof rest, &ur, " - l_%s * %ld",
                                   s->loops[tl->loop[i]].name, tl->coef[i]);
        }
        char prev[2048];
        snprintf(prev, sizeof prev, "%s", out);
        used = (size_t)snprintf(out, len, "gb_min(%s, (%ld%s + %ld) / %ld)", prev, tl->limit,
                                rest, c - 1, c);
    }
    (void)used;
}

/* ---- emitting ------------------------------------------------------------ */


static void emit_body(emitter *e, int site);
static void emit_from(emitter *e, int p);

/* Declares the parts of fused loop f (recursively) and guards the tails a
 * part carries: a fused loop cannot take them as bounds. */
static void emit_fused_parts(emitter *e, int f)
{
    const plan *pl = e->pl;
    const gb_sched *s = pl->s;
    const int outer = s->loops[f].fused_outer, inner = s->loops[f].fused_inner;

    lw_line(e->b, "const int l_%s = l_%s / %ld;", s->loops[outer].name, s->loops[f].name,
         pl->sh->extent[inner]);
    lw_line(e->b, "const int l_%s = l_%s %% %ld;", s->loops[inner].name, s->loops[f].name,
         pl->sh->extent[inner]);
    for (int part = 0; part < 2; part++) {
        int l = part ? inner : outer;
        if (s->loops[l].axis == GB_AXIS_FUSED) {
            emit_fused_parts(e, l);
            continue;
        }
        char bound[4096];
        lw_bound_of(pl, l, bound, sizeof bound);
        if (strcmp(bound, "0") != 0 && strchr(bound, '('))
            lw_line(e->b, "if (l_%s >= %s) continue;", s->loops[l].name, bound);
    }
}

/* `for` over loop l with its pragmas; the caller closes the brace. */
/* Opens loop l.  body: the computation's nest, whose prefetches at l follow
 * (a spread prefetch over l then cuts it in its two segments); else a
 * nest of its own (C's init). */
static void open_loop(emitter *e, int l, int with_pragmas, int body)
{
    const plan *pl = e->pl;
    const gb_sched *s = pl->s;
    char bound[4096];

    if (s->loops[l].axis == GB_AXIS_FUSED)
        snprintf(bound, sizeof bound, "%ld", pl->sh->extent[l]);
    else
        lw_bound_of(pl, l, bound, sizeof bound);
    const int spread = body ? lw_spread_slot_over(pl, l) : -1;
    if (spread >= 0) {
        /* a spread prefetch's INNER, as two segments: the iterations that
         * ask for rows of the share, then the rest (neither tests) */
        lw_emit_spread_bounds(e, spread);
        lw_line(e->b, "const int gb_e_%d = gb_n_%d < (%s) ? (int)gb_n_%d : (%s);", spread, spread,
                bound, spread, bound);
        lw_line(e->b, "#pragma GCC unroll 2");
        lw_line(e->b, "for (int gb_seg_%d = 0; gb_seg_%d < 2; gb_seg_%d++) {", spread, spread,
                spread);
        e->b->indent++;
        e->segmented[spread] = 1;
        e->seg_indent[e->nseg++] = e->b->indent;
    }
    if (with_pragmas && s->parallel == l && !e->serial)
        lw_line(e->b, pl->team ? "#pragma omp for schedule(static)"
                            : "#pragma omp parallel for num_threads(nthreads) schedule(static)");
    if (with_pragmas && s->vectorize == l)
        lw_line(e->b, "#pragma omp simd");
    if (with_pragmas && s->unroll[l])
        lw_line(e->b, "#pragma GCC unroll %ld", s->unroll[l] > 0 ? (long)s->unroll[l]
                                                              : pl->sh->extent[l]);
    if (spread >= 0)
        lw_line(e->b, "for (int l_%s = gb_seg_%d ? gb_e_%d : 0; l_%s < (gb_seg_%d ? (%s) : "
                      "gb_e_%d); l_%s++) {", s->loops[l].name, spread, spread, s->loops[l].name,
                spread, bound, spread, s->loops[l].name);
    else if (with_pragmas && s->parallel == l && e->pool) {
        /* thread gb_t's share, as schedule(static) deals them: the first
         * n % nt threads one iteration more (the parallel loop is the
         * outermost, so these names are the body's own) */
        lw_line(e->b, "const int gb_pn = %s, gb_pq = gb_pn / gb_nt, gb_pr = gb_pn %% gb_nt;",
                bound);
        lw_line(e->b, "const int gb_plo = gb_t * gb_pq + (gb_t < gb_pr ? gb_t : gb_pr);");
        lw_line(e->b, "const int gb_phi = gb_plo + gb_pq + (gb_t < gb_pr);");
        lw_line(e->b, "for (int l_%s = gb_plo; l_%s < gb_phi; l_%s++) {", s->loops[l].name,
                s->loops[l].name, s->loops[l].name);
    } else
        lw_line(e->b, "for (int l_%s = 0; l_%s < %s; l_%s++) {", s->loops[l].name,
                s->loops[l].name, bound, s->loops[l].name);
    e->b->indent++;
    if (s->loops[l].axis == GB_AXIS_FUSED)
        emit_fused_parts(e, l);
}

void lw_close_loop(emitter *e)
{
    e->b->indent--;
    lw_line(e->b, "}");
    /* a segmented loop: its segments' loop too */
    if (e->nseg > 0 && e->seg_indent[e->nseg - 1] == e->b->indent) {
        e->nseg--;
        e->b->indent--;
        lw_line(e->b, "}");
    }
}

/* The spatial loops from position p on, innermost a statement: C's init
 * (tile = 0) and the cache_write copy (C = tile). */
static void emit_spatial_nest(emitter *e, int p, const char *stmt)
{
    const plan *pl = e->pl;
    const gb_sched *s = pl->s;
    int opened = 0;

    for (int q = p; q < pl->n; q++) {
        int l = pl->order[q];
        if (s->loops[l].axis == GB_AXIS_K)
            continue;
        open_loop(e, l, s->parallel == l || s->vectorize == l, 0);
        opened++;
    }
    lw_line(e->b, "%s", stmt);
    while (opened--)
        lw_close_loop(e);
}

static void emit_init(emitter *e, int p)
{
    char t[4096], stmt[4200];

    lw_target(e->pl, t, sizeof t);
    snprintf(stmt, sizeof stmt, "%s = 0;", t);
    emit_spatial_nest(e, p, stmt);
}

/* Where C's init is folded into the run at p: gb_first, whether every k
 * loop outside the run is at its first iteration. */
static void emit_first(emitter *e, int p)
{
    const plan *pl = e->pl;
    const gb_sched *s = pl->s;
    char cond[2200];
    size_t used = 0;

    cond[0] = '\0';
    for (int q = pl->init_at; q < p; q++)
        if (s->loops[pl->order[q]].axis == GB_AXIS_K)
            lw_append(cond, sizeof cond, &used, "%sl_%s == 0",
                                     used ? " && " : "", s->loops[pl->order[q]].name);
    lw_line(e->b, "const int gb_first = %s;", used ? cond : "1");
}

/* B's vector piece p of a register run of `lanes` lanes where all its
 * loops are in scope, widened: from the pack (already widened) or from B
 * in place (gb_vW_load_b widens as it loads). */
static void b_vector(const plan *pl, int lanes, char *out, size_t len)
{
    char ref[2048];

    if (pl->s->pack[1] == -1) {
        lw_source(pl, 1, ref, sizeof ref);
        snprintf(out, len, "gb_v%d_load_b(&%s + p * GB_PW(%d))", lanes, ref, lanes);
    } else {
        char idx[2048];
        lw_pack_index(pl, 1, idx, sizeof idx);
        snprintf(out, len, "gb_v%d_load(&pb[%s] + p * GB_PW(%d))", lanes, idx, lanes);
    }
}


/* The register run of a row block from position p: rows x lanes sums in
 * vectors, each B vector loaded once per k step for all the rows, each row's
 * A element broadcast (a micro-kernel: BLIS's MR x NR, A broadcast and B
 * vectors as in packed's row-major kernels). */
static void emit_rows_run(emitter *e, int p, int lanes)
{
    const plan *pl = e->pl;
    const gb_sched *s = pl->s;
    const int zero = p == pl->init_at && s->cache_write < 0;
    const int last = pl->n - 2; /* the k loops: up to the row loop */
    const char *r = s->loops[pl->rows_loop].name;
    char t[4096], a[8192], b[8192];

    if (pl->tiles) {
        lw_emit_tile_run(e, p);
        return;
    }
    if (pl->dot) {
        lw_emit_rows_run_dot(e, p, lanes);
        return;
    }
    lw_target(pl, t, sizeof t);
    lw_operand(pl, 0, e->mode, a, sizeof a);
    lw_line(e->b, "const int l_%s = 0;", s->loops[s->vectorize].name);
    lw_line(e->b, "gb_v%d acc[%d][GB_NP(%d)];", lanes, pl->rows, lanes);
    lw_line(e->b, "#pragma GCC unroll %d", pl->rows);
    lw_line(e->b, "for (int l_%s = 0; l_%s < %d; l_%s++)", r, r, pl->rows, r);
    lw_line(e->b, "    #pragma GCC unroll 16");
    lw_line(e->b, "    for (int p = 0; p < GB_NP(%d); p++)", lanes);
    if (zero)
        lw_line(e->b, "        acc[l_%s][p] = (gb_v%d){ 0 };", r, lanes);
    else if (pl->fold_init)
        lw_line(e->b, "        acc[l_%s][p] = gb_first ? (gb_v%d){ 0 } : gb_v%d_load(&%s + p * GB_PW(%d));",
             r, lanes, lanes, t, lanes);
    else
        lw_line(e->b, "        acc[l_%s][p] = gb_v%d_load(&%s + p * GB_PW(%d));", r, lanes, t,
             lanes);
    for (int q = p; q < last; q++) {
        open_loop(e, pl->order[q], 1, 1);
        lw_emit_prefetches(e, pl->order[q]);
    }
    lw_line(e->b, "gb_v%d bv[GB_NP(%d)];", lanes, lanes);
    lw_line(e->b, "#pragma GCC unroll 16");
    lw_line(e->b, "for (int p = 0; p < GB_NP(%d); p++) {", lanes);
    if (e->mode == COPY && pl->pass[1] >= 0) { /* from B, into its copy */
        char src[2400], idx[2048];
        lw_source(pl, 1, src, sizeof src);
        lw_pack_index(pl, 1, idx, sizeof idx);
        lw_line(e->b, "    bv[p] = gb_v%d_load_b(&%s + p * GB_PW(%d));", lanes, src, lanes);
        lw_line(e->b, "    gb_v%d_store(&pb[%s] + p * GB_PW(%d), bv[p]);", lanes, idx, lanes);
    } else {
        b_vector(pl, lanes, b, sizeof b);
        lw_line(e->b, "    bv[p] = %s;", b);
    }
    lw_line(e->b, "}");
    lw_line(e->b, "#pragma GCC unroll %d", pl->rows);
    lw_line(e->b, "for (int l_%s = 0; l_%s < %d; l_%s++) {", r, r, pl->rows, r);
    e->b->indent++;
    lw_emit_prefetches(e, pl->rows_loop);
    lw_line(e->b, "const %s a = %s;", lw_type_w(pl), a);
    lw_line(e->b, "#pragma GCC unroll 16");
    lw_line(e->b, "for (int p = 0; p < GB_NP(%d); p++)", lanes);
    lw_line(e->b, "    acc[l_%s][p] += a * bv[p];", r);
    lw_close_loop(e);
    for (int q = p; q < last; q++)
        lw_close_loop(e);
    lw_line(e->b, "#pragma GCC unroll %d", pl->rows);
    lw_line(e->b, "for (int l_%s = 0; l_%s < %d; l_%s++)", r, r, pl->rows, r);
    lw_line(e->b, "    #pragma GCC unroll 16");
    lw_line(e->b, "    for (int p = 0; p < GB_NP(%d); p++)", lanes);
    lw_line(e->b, "        gb_v%d_store(&%s + p * GB_PW(%d), acc[l_%s][p]);", lanes, t, lanes, r);
}

/* The register run from position p: a scalar or a vector holds the sum
 * over the k loops and reaches the target once. */
static void emit_run(emitter *e, int p, int lanes)
{
    const plan *pl = e->pl;
    const gb_sched *s = pl->s;
    const int zero = p == pl->init_at && s->cache_write < 0;
    char t[4096], a[8192], b[8192];
    const int last = pl->n - (s->vectorize >= 0);

    lw_target(pl, t, sizeof t);
    lw_operand(pl, 0, e->mode, a, sizeof a);
    lw_operand(pl, 1, lanes ? READ : e->mode, b, sizeof b);
    if (lanes) {
        /* W lanes as W / GB_PW(W) vectors of the machine's width at most:
         * GCC splats a scalar into a wider generic vector through memory,
         * one lane at a time (8x slower at W = 32 on AVX-512). */
        lw_line(e->b, "const int l_%s = 0;", s->loops[s->vectorize].name);
        lw_line(e->b, "gb_v%d acc[GB_NP(%d)];", lanes, lanes);
        lw_line(e->b, "#pragma GCC unroll 16");
        lw_line(e->b, "for (int p = 0; p < GB_NP(%d); p++)", lanes);
        if (zero)
            lw_line(e->b, "    acc[p] = (gb_v%d){ 0 };", lanes);
        else if (pl->fold_init)
            lw_line(e->b, "    acc[p] = gb_first ? (gb_v%d){ 0 } : gb_v%d_load(&%s + p * GB_PW(%d));",
                 lanes, lanes, t, lanes);
        else
            lw_line(e->b, "    acc[p] = gb_v%d_load(&%s + p * GB_PW(%d));", lanes, t, lanes);
    } else {
        lw_line(e->b, zero ? "%s acc = 0;" : pl->fold_init ? "%s acc = gb_first ? 0 : %s;"
                                                       : "%s acc = %s;", lw_type_w(pl), t);
    }
    for (int q = p; q < last; q++) {
        open_loop(e, pl->order[q], 1, 1);
        lw_emit_prefetches(e, pl->order[q]);
    }
    if (lanes) {
        lw_line(e->b, "const %s a = %s;", lw_type_w(pl), a);
        lw_line(e->b, "#pragma GCC unroll 16");
        lw_line(e->b, "for (int p = 0; p < GB_NP(%d); p++) {", lanes);
        if (e->mode == COPY && pl->pass[1] >= 0) { /* from B, into its copy */
            char src[2400], idx[2048];
            lw_source(pl, 1, src, sizeof src);
            lw_pack_index(pl, 1, idx, sizeof idx);
            lw_line(e->b, "    const gb_v%d bv = gb_v%d_load_b(&%s + p * GB_PW(%d));", lanes, lanes,
                 src, lanes);
            lw_line(e->b, "    gb_v%d_store(&pb[%s] + p * GB_PW(%d), bv);", lanes, idx, lanes);
            lw_line(e->b, "    acc[p] += a * bv;");
        } else {
            b_vector(pl, lanes, b, sizeof b);
            lw_line(e->b, "    acc[p] += a * %s;", b);
        }
        lw_line(e->b, "}");
    } else
        lw_line(e->b, "acc += %s * %s;", a, b);
    for (int q = p; q < last; q++)
        lw_close_loop(e);
    if (lanes) {
        lw_line(e->b, "#pragma GCC unroll 16");
        lw_line(e->b, "for (int p = 0; p < GB_NP(%d); p++)", lanes);
        lw_line(e->b, "    gb_v%d_store(&%s + p * GB_PW(%d), acc[p]);", lanes, t, lanes);
    } else
        lw_line(e->b, "%s = acc;", t);
}

/* The register run at p in the form this shape takes: whole vectors, or
 * (a tail bounds the vector) whole vectors where they fit and the memory
 * form elsewhere. */
static void emit_run_forms(emitter *e, int p)
{
    const plan *pl = e->pl;
    const gb_sched *s = pl->s;

    if (pl->vec_width == 0) {
        emit_run(e, p, 0);
        return;
    }
    /* the vector of lanes is whole unless a tail bounds it */
    char bound[4096];
    const int v = s->vectorize;
    lw_bound_of(pl, v, bound, sizeof bound);
    if (strchr(bound, '(') == NULL) {
        lw_line(e->b, "{");
        e->b->indent++;
        if (pl->rows_loop >= 0)
            emit_rows_run(e, p, pl->vec_width);
        else
            emit_run(e, p, pl->vec_width);
        lw_close_loop(e);
        return;
    }
    lw_line(e->b, "if (%s == %d) {", bound, pl->vec_width);
    e->b->indent++;
    if (pl->rows_loop >= 0)
        emit_rows_run(e, p, pl->vec_width);
    else
        emit_run(e, p, pl->vec_width);
    e->b->indent--;
    lw_line(e->b, "} else {");
    e->b->indent++;
    if (p == pl->init_at && s->cache_write < 0)
        emit_init(e, p);
    if (pl->fold_init) {
        lw_line(e->b, "if (gb_first) {");
        e->b->indent++;
        emit_init(e, p);
        lw_close_loop(e);
    }
    for (int q = p; q < pl->n; q++) {
        open_loop(e, pl->order[q], 1, 1);
        lw_emit_prefetches(e, pl->order[q]);
    }
    {
        char t[4096], a[8192], b[8192];
        lw_target(pl, t, sizeof t);
        lw_operand(pl, 0, e->mode, a, sizeof a);
        lw_operand(pl, 1, e->mode, b, sizeof b);
        lw_line(e->b, "%s += %s * %s;", t, a, b);
    }
    for (int q = p; q < pl->n; q++)
        lw_close_loop(e);
    lw_close_loop(e);
}

/* The loops from position p on, and what sits between them. */
/* The statement in memory form, innermost, with both operands as they are
 * read: a function of its own, so that its buffers are not in the frame of
 * every level of emit_from's recursion. */
static __attribute__((noinline)) void emit_statement(emitter *e)
{
    char t[4096], a[8192], b[8192];

    lw_target(e->pl, t, sizeof t);
    lw_operand(e->pl, 0, EITHER, a, sizeof a);
    lw_operand(e->pl, 1, EITHER, b, sizeof b);
    lw_line(e->b, "%s += %s * %s;", t, a, b);
}

static void emit_from(emitter *e, int p)
{
    const plan *pl = e->pl;
    const gb_sched *s = pl->s;

    if (p == pl->init_at && s->cache_write < 0 && p != pl->run_at && !pl->fold_init)
        emit_init(e, p);
    if (p == pl->run_at) {
        char cond[2200], first[1024];
        size_t used = 0;
        if (pl->fold_init)
            emit_first(e, p);
        /* A fused pack: the run twice, copying where a pass is at its first
         * iteration (an operand copied again there rewrites the values its
         * copy holds), reading the copies elsewhere. */
        for (int op = 0; op < 2; op++)
            if (pl->pass[op] >= 0) {
                pass_condition(pl, op, first, sizeof first);
                lw_append(cond, sizeof cond, &used, "%s%s",
                                         used ? " || " : "", first);
            }
        if (used == 0) {
            emit_run_forms(e, p);
            return;
        }
        lw_line(e->b, "if (%s) {", cond);
        e->b->indent++;
        e->mode = COPY;
        emit_run_forms(e, p);
        e->b->indent--;
        lw_line(e->b, "} else {");
        e->b->indent++;
        e->mode = READ;
        emit_run_forms(e, p);
        lw_close_loop(e);
        e->mode = EITHER;
        return;
    }
    if (p == pl->n) {
        emit_statement(e);
        return;
    }
    open_loop(e, pl->order[p], 1, 1);
    if (pl->tiles && pl->order[p] == s->parallel)
        lw_emit_tiles_begin(e);
    lw_emit_prefetches(e, pl->order[p]);
    emit_body(e, pl->order[p]);
    if (pl->tiles && pl->order[p] == s->parallel)
        lw_line(e->b, "GB_TILES_END();");
    lw_close_loop(e);
}

/* The body of loop site (GB_SCHED_ROOT: the function's): packs, the
 * cache_write tile, the loops inside, the tile's copy to C. */
static void emit_body(emitter *e, int site)
{
    const plan *pl = e->pl;
    const gb_sched *s = pl->s;
    const int p = site == GB_SCHED_ROOT ? 0 : pl->pos[site] + 1;

    for (int op = 0; op < 2; op++)
        if (s->pack[op] == site)
            lw_emit_pack(e, op);
    if (s->cache_write >= 0 && s->cache_write == site) {
        lw_line(e->b, "%s cc[%ld];", lw_type_w(pl), pl->tile_h * pl->tile_w);
        lw_line(e->b, "#pragma omp simd");
        lw_line(e->b, "for (int t = 0; t < %ld; t++)", pl->tile_h * pl->tile_w);
        lw_line(e->b, "    cc[t] = 0;");
    }
    emit_from(e, p);
    if (s->cache_write >= 0 && s->cache_write == site) {
        char c[4096], t[4096], stmt[8400], i[1024], j[1024];
        lw_axis_index(pl, GB_AXIS_I, i, sizeof i);
        lw_axis_index(pl, GB_AXIS_J, j, sizeof j);
        snprintf(c, sizeof c, "C[(size_t)(%s) * ldc + (%s)]", i, j);
        lw_target(pl, t, sizeof t);
        snprintf(stmt, sizeof stmt, "%s = %s;", c, t);
        emit_spatial_nest(e, p, stmt);
    }
}

/* Whether the body opens a parallel region: the team's, the parallel
 * loop's, or a pack's at the root (lower_runs.c). */
static int opens_region(const plan *pl)
{
    const gb_sched *s = pl->s;
    return pl->team || s->parallel >= 0 || s->pack[0] == GB_SCHED_ROOT ||
           s->pack[1] == GB_SCHED_ROOT;
}

/* The kernel's body: the team's region around it where the plan has one
 * (and the copy is not the serial one), AMX's tile set-up outside a
 * parallel loop, the nest. */
static void emit_function_body(emitter *e)
{
    const plan *pl = e->pl;
    const int team = pl->team && !e->serial;

    if (team) {
        lw_line(e->b, "#pragma omp parallel num_threads(nthreads)");
        lw_line(e->b, "{");
        e->b->indent++;
    }
    if (pl->tiles && pl->s->parallel < 0)
        lw_emit_tiles_begin(e);
    emit_body(e, GB_SCHED_ROOT);
    if (pl->tiles && pl->s->parallel < 0)
        lw_line(e->b, "GB_TILES_END();");
    if (team)
        lw_close_loop(e);
}

/* The kernel functions: SYMBOL itself; SERIAL, the one-thread copy of the
 * body (static, never inlined, SYMBOL_1t: no parallel or work-sharing
 * pragma), which SYMBOL hands one thread to where the body opens a region
 * (gb_sched_lower says why apart); POOL, thread gb_t of gb_nt's copy
 * (SYMBOL_pool, likewise no pragma), which SYMBOL runs on the pool's
 * threads where the parallel loop is `pool` and the caller offers one. */
enum { KERNEL, SERIAL, POOL };

static void emit_kernel(emitter *e, const char *symbol, int kind)
{
    const int serial = kind != KERNEL;
    const plan *pl = e->pl;
    const gb_sched_shape *sh = pl->sh;
    sbuf *b = e->b;

    /* The plan's no_jam: GCC's unroll-and-jam off for this kernel alone
     * (the outlined parallel regions inherit it; the code is that of
     * -fno-loop-unroll-and-jam on the command line).  GCC only: clang runs
     * no unroll-and-jam by default. */
    /* The dot form: loop header copying off too.  With it, where the k
     * loop's trip count is a constant GCC 12 split each sum's live range
     * around the copied header and stored 18 of the 24 sums to the stack
     * at every k step (objdump of the 8 x 48 u8s8 run at K = 768; with a
     * count known only at run time it did not).  And the dominator
     * optimizations: with A packed (pa's word indexed from l_kk / 4) the
     * same 18 stores came back, and went without them (the run's loop 55
     * instructions, the in-place one's 50 either way). */
    /* And everywhere, loop distribution's patterns off: a pack's or a
     * write-back's row copy (a `#pragma omp simd` loop of 32 floats) became
     * a call of memmove per row in the one-thread copy of tvm_parallel's
     * kernel (73,728 calls of 128 bytes at 16 x 768 x 3072, 1.12x the time
     * at one thread), where the same loop beside the parallel copy had been
     * vector moves.  A vectorized loop is SIMD code, never a library call. */
    lw_put(b, "#if defined(__GNUC__) && !defined(__clang__)\n"
            "__attribute__((optimize(\"no-tree-loop-distribute-patterns\"%s%s)))\n#endif\n",
        pl->no_jam ? ", \"no-loop-unroll-and-jam\"" : "",
        pl->dot ? ", \"no-tree-ch\", \"no-tree-dominator-opts\"" : "");
    /* _tile_loadconfig is an inline function of the amx-tile target */
    if (pl->tiles && !gb_sched_tiles_emulated())
        lw_put(b, "__attribute__((target(\"amx-tile,amx-bf16,amx-int8\")))\n");
    lw_put(b,
        "%sint %s%s(int M, int N, int K, const %s *restrict A, int lda, const %s *restrict "
        "B, int ldb, %s *restrict C, int ldc, const gb_ctx *ctx%s)\n{\n",
        serial ? "static __attribute__((noinline)) " : "", symbol,
        kind == SERIAL ? "_1t" : kind == POOL ? "_pool" : "", lw_type_a(pl), lw_type_b(pl),
        lw_type_w(pl), kind == POOL ? ", int gb_t, int gb_nt" : "");
    b->indent = 1;
    /* Where the parallel loop is the body's only region, no more threads
     * than it has iterations at this shape: a thread with none only adds
     * the region's fork and join, and one iteration runs the one-thread
     * copy, with no region (packed's rule for its tiles; packed.sched at
     * 8x64x48 took 1.1 us at 2 threads against 0.5 at 1, AMD EPYC family
     * 25).  A team's region or a root pack shares more work than the
     * loop's iterations: its threads stay as asked. */
    if (kind == POOL)
        lw_line(b, "const int nthreads = gb_nt;");
    else if (pl->s->parallel >= 0 && !pl->team && pl->s->pack[0] != GB_SCHED_ROOT &&
             pl->s->pack[1] != GB_SCHED_ROOT)
        lw_line(b, "const int nthreads = ctx->nthreads < %ld ? ctx->nthreads : %ld;",
                sh->extent[pl->s->parallel], sh->extent[pl->s->parallel]);
    else
        lw_line(b, "const int nthreads = ctx->nthreads;");
    lw_line(b, "if (M != %d || N != %d || K != %d)", sh->M, sh->N, sh->K);
    lw_line(b, "    return -1;");
    lw_line(b, "(void)nthreads, (void)lda, (void)ldb;");
    if (!serial && opens_region(pl)) {
        lw_line(b, "if (nthreads == 1)");
        lw_line(b, "    return %s_1t(M, N, K, A, lda, B, ldb, C, ldc, ctx);", symbol);
    }
    if (pl->pack_floats[0] || pl->pack_floats[1]) {
        lw_line(b, "float *scratch = (float *)ctx->state;");
        lw_line(b, "if (scratch == NULL)");
        lw_line(b, "    return -1;");
    }
    if (pl->pack_floats[0])
        lw_line(b, "%s *restrict pa%s = (%s *)scratch;", lw_type_pack(pl, 0),
             pl->pack_per_thread[0] ? "_all" : "", lw_type_pack(pl, 0));
    if (pl->pack_floats[1])
        lw_line(b, "%s *restrict pb%s = (%s *)(scratch + (size_t)%ld * %s);", lw_type_pack(pl, 1),
             pl->pack_per_thread[1] ? "_all" : "", lw_type_pack(pl, 1), pl->pack_floats[0],
             pl->pack_per_thread[0] ? "nthreads" : "1");
    if (kind == KERNEL && pl->s->parallel >= 0 && pl->s->parallel_pool) {
        /* the pool's threads where the caller offers them and they run it
         * (gemmbench.h: gb_ctx's pool), else the OpenMP region below */
        lw_line(b, "if (ctx->pool != NULL) {");
        lw_line(b, "    const struct %s_args gb_args = { M, N, K, A, lda, B, ldb, C, ldc, ctx };",
                symbol);
        lw_line(b, "    if (ctx->pool(nthreads, %s_part, (void *)&gb_args))", symbol);
        lw_line(b, "        return 0;");
        lw_line(b, "}");
    }
    e->serial = serial;
    e->pool = kind == POOL;
    emit_function_body(e);
    e->serial = e->pool = 0;
    lw_line(b, "return 0;");
    lw_put(b, "}\n");
}

char *gb_sched_lower(const gb_sched_plan *pl, const char *symbol)
{
    const gb_sched_shape *sh = pl->sh;
    sbuf b = { malloc(8192), 0, 8192, 0, 0 };
    emitter e = { .pl = pl, .b = &b, .mode = EITHER };

    if (b.text == NULL)
        return NULL;
    lw_put(&b, "/* generated by the gemmbench schedule language for M=%d N=%d K=%d */\n", sh->M,
        sh->N, sh->K);
    /* Guarded, so that kernels of several shapes can share one file. */
    lw_put(&b, "#ifndef GB_SCHED_PREAMBLE\n#define GB_SCHED_PREAMBLE\n");
    lw_put(&b, "#include <stddef.h>\n#include <omp.h>\n\n");
    /* gb_ctx of include/gemmbench.h, field for field (variant.c asserts
     * that the two layouts agree) */
    lw_put(&b, "typedef struct gb_params gb_params;\n");
    lw_put(&b, "typedef struct gb_ctx { int nthreads; const gb_params *params; void *state; "
            "char *why; size_t whylen; int (*pool)(int, void (*)(void *, int, int), void *); "
            "} gb_ctx;\n\n");
    lw_put(&b, "static inline int gb_min(int a, int b) { return a < b ? a : b; }\n");
    /* the widest vector of the target (the flags say -march=native) */
    lw_put(&b, "#if defined(__AVX512F__)\n#define GB_NL 16\n#elif defined(__AVX__)\n"
            "#define GB_NL 8\n#else\n#define GB_NL 4\n#endif\n");
    lw_put(&b, "#define GB_PW(w) ((w) < GB_NL ? (w) : GB_NL) /* lanes of one piece */\n");
    lw_put(&b, "#define GB_NP(w) ((w) / GB_PW(w))             /* pieces of w lanes */\n#endif\n");
    lw_emit_type_helpers(&b, pl);
    lw_emit_tile_helpers(&b, pl);
    /* One thread: the body again without its parallel and work-sharing
     * pragmas, since a region costs a system call even on one thread
     * (libgomp's barrier wakes a futex: 1.2 us a call on the AMD EPYC
     * guest, `gemmbench info`'s fork/join), as packed.c runs one thread.
     * A function of its own, never inlined: in one function with the
     * parallel copy GCC no longer kept a register tile of B across the
     * loop over A's rows (tvm_packing's 4 x 32: its 8 loads hoisted out of
     * the mi loop became memory operands of the FMAs in both copies) and
     * the twin took 1.5x the time (AMD EPYC family 25, qkv M = 64, 256). */
    if (opens_region(pl)) {
        emit_kernel(&e, symbol, SERIAL);
        lw_put(&b, "\n");
    }
    /* `parallel LOOP pool`: thread t's copy, and what the pool calls: the
     * kernel's arguments in a struct, passed through to the copy (the
     * pool's threads are gemmbench's, not OpenMP's: SCHED.md, parallel) */
    if (pl->s->parallel >= 0 && pl->s->parallel_pool) {
        emit_kernel(&e, symbol, POOL);
        lw_put(&b, "\nstruct %s_args { int M, N, K; const %s *A; int lda; const %s *B; int ldb; "
                "%s *C; int ldc; const gb_ctx *ctx; };\n", symbol, lw_type_a(pl), lw_type_b(pl),
                lw_type_w(pl));
        lw_put(&b, "static void %s_part(void *arg, int t, int nt)\n{\n"
                "    const struct %s_args *a = arg;\n"
                "    (void)%s_pool(a->M, a->N, a->K, a->A, a->lda, a->B, a->ldb, a->C, a->ldc, "
                "a->ctx, t, nt);\n}\n\n", symbol, symbol, symbol);
    }
    emit_kernel(&e, symbol, KERNEL);
    if (b.failed) {
        free(b.text);
        return NULL;
    }
    return b.text;
}
