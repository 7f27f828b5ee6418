/* lower.c - a planned nest as C (SCHED.md, "Lowering").  Everything that
 * enters the C comes from the checked nest: loop names (already
 * [a-z_][a-z0-9_]*, prefixed l_) and integers.  One file over 1,000 lines (the types' helpers and the dot run added):
 * the emitters (loops, packs, prefetches, the register runs and their
 * copying and reading forms) call one another and share the emitter's
 * state, and what may reach the compiler is checked in one place. */
#include "plan.h"
#include "amx_tiles.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growing string; on allocation failure it stops growing and says so. */
typedef struct sbuf {
    char *text;
    size_t len, cap;
    int failed;
    int indent;
} sbuf;

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

static void put(sbuf *b, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vput(b, fmt, ap);
    va_end(ap);
}

/* A line at the current indentation, of any length (a fixed buffer here
 * cut a legal nest's long index expressions, and the C did not compile). */
static void line(sbuf *b, const char *fmt, ...)
{
    va_list ap;

    put(b, "%*s", 4 * b->indent, "");
    va_start(ap, fmt);
    vput(b, fmt, ap);
    va_end(ap);
    put(b, "\n");
}

/* ---- types (SCHED.md, "Types") --------------------------------------------- */

/* A's, B's and C's element types in the C, and W, the type an element is
 * widened to where it is read (the accumulator's: C's). */
static const char *type_a(const plan *pl)
{
    return pl->dtype == GB_DTYPE_BF16 ? "unsigned short"
           : pl->dtype == GB_DTYPE_U8S8 ? "unsigned char" : "float";
}

static const char *type_b(const plan *pl)
{
    return pl->dtype == GB_DTYPE_BF16 ? "unsigned short"
           : pl->dtype == GB_DTYPE_U8S8 ? "signed char" : "float";
}

static const char *type_w(const plan *pl)
{
    return pl->dtype == GB_DTYPE_U8S8 ? "int" : "float";
}

/* A pack buffer's element: the type's own in the dot form, else widened. */
static const char *type_pack(const plan *pl, int op)
{
    return pl->dot ? (op ? type_b(pl) : type_a(pl)) : type_w(pl);
}

static int elem_bytes(const plan *pl, int op)
{
    if (op == 2 || pl->dtype == GB_DTYPE_F32)
        return 4;
    return pl->dtype == GB_DTYPE_BF16 ? 2 : 1;
}

/* ---- expressions ----------------------------------------------------------- */

/* An axis's index where all its loops are in scope: sum of stride * loop. */
static void axis_index(const plan *pl, int axis, char *out, size_t len)
{
    const gb_sched *s = pl->s;
    size_t used = 0;
    int first = 1;

    out[0] = '\0';
    for (int l = 0; l < s->nloops; l++)
        if (gb_sched_plan_is_base(s, l) && s->loops[l].axis == axis) {
            used += (size_t)snprintf(out + used, len - used, "%sl_%s * %ld", first ? "" : " + ",
                                     s->loops[l].name, pl->sh->stride[l]);
            first = 0;
        }
}

/* The 32-bit word of (outer, inner) in a pack buffer: mixed radix over
 * its dims (the dot loop's in groups).  In the dot form the element is
 * that word's times the group plus the k within it (pack_index). */
static void pack_word(const plan *pl, int op, char *out, size_t len)
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

static void pack_index(const plan *pl, int op, char *out, size_t len)
{
    char word[2048];

    pack_word(pl, op, word, sizeof word);
    if (pl->dot)
        snprintf(out, len, "(%s) * %d + l_%s %% %d", word, pl->group,
                 pl->s->loops[pl->dot_loop].name, pl->group);
    else
        snprintf(out, len, "%s", word);
}

/* Words between two groups of the dot loop in B's pack: the extents of
 * the dims inside it. */
static long dot_step_words(const plan *pl)
{
    long words = 1;

    for (int d = pl->npack[1] - 1; d >= 0 && pl->pack_dim[1][d] != pl->dot_loop; d--)
        words *= pl->pack_ext[1][d];
    return words;
}

/* expr, an element of A (op 0) or B (1) as stored, widened to the
 * accumulator's type. */
static void widened(const plan *pl, int op, const char *expr, char *out, size_t len)
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
static void source(const plan *pl, int op, char *out, size_t len)
{
    char rows[512], cols[512];

    axis_index(pl, op ? GB_AXIS_K : GB_AXIS_I, rows, sizeof rows);
    axis_index(pl, op ? GB_AXIS_J : GB_AXIS_K, cols, sizeof cols);
    snprintf(out, len, "%s[(size_t)(%s) * %s + (%s)]", op ? "B" : "A", rows, op ? "ldb" : "lda",
             cols);
}

/* How an operand with a fused pack is read: in the pass's first iteration
 * from the matrix, writing the buffer as it goes (COPY), in the others
 * from the buffer (READ), or, where one piece of code serves both, as a
 * condition per element (EITHER). */
enum { EITHER, COPY, READ };

/* Operand op where all its loops are in scope: its pack buffer when
 * packed, else the matrix itself; a fused pack's as the mode says. */
/* Whether a fused pack's copy is being made: every loop from its site's
 * body out to its pass loop (none of them reads the operand) at its first
 * iteration, "(l_ic == 0 && l_ir == 0)". */
static void pass_condition(const plan *pl, int op, char *out, size_t len)
{
    size_t used = (size_t)snprintf(out, len, "(");

    for (int q = pl->pos[pl->s->pack[op]] + 1; q <= pl->pos[pl->pass[op]]; q++)
        used += (size_t)snprintf(out + used, len - used, "%sl_%s == 0", used > 1 ? " && " : "",
                                 pl->s->loops[pl->order[q]].name);
    snprintf(out + used, len - used, ")");
}

/* Operand op's element, widened (its value in the accumulator's type). */
static void operand(const plan *pl, int op, int mode, char *out, size_t len)
{
    char idx[2048], src[1200], raw[1300];

    if (pl->s->pack[op] == -1) {
        source(pl, op, src, sizeof src);
        widened(pl, op, src, out, len);
        return;
    }
    pack_index(pl, op, idx, sizeof idx);
    if (pl->pass[op] < 0 || mode == READ) {
        snprintf(raw, sizeof raw, "%s[%s]", op ? "pb" : "pa", idx);
        if (pl->dot) /* the buffer holds the type's elements */
            widened(pl, op, raw, out, len);
        else
            snprintf(out, len, "%s", raw);
        return;
    }
    /* a fused pack: its buffer holds widened values, or (the dot form) the
     * type's, widened as read */
    source(pl, op, src, sizeof src);
    if (pl->dot)
        snprintf(raw, sizeof raw, "%s", src);
    else
        widened(pl, op, src, raw, sizeof raw);
    if (mode == COPY) {
        snprintf(out, len, "(%s[%s] = %s)", op ? "pb" : "pa", idx, raw);
    } else {
        char first[512];
        pass_condition(pl, op, first, sizeof first);
        snprintf(out, len, "(%s ? (%s[%s] = %s) : %s[%s])", first, op ? "pb" : "pa", idx, raw,
                 op ? "pb" : "pa", idx);
    }
    if (pl->dot) {
        char copy[4096];
        snprintf(copy, sizeof copy, "%s", out);
        widened(pl, op, copy, out, len);
    }
}

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
static void prefetch_index(const plan *pl, int op, int packed, char *rows, char *cols,
                           size_t len)
{
    static const int row_axis[3] = { GB_AXIS_I, GB_AXIS_K, GB_AXIS_I };
    static const int col_axis[3] = { GB_AXIS_K, GB_AXIS_J, GB_AXIS_J };
    const gb_sched *s = pl->s;
    const int site = s->prefetch[op];
    const long dist = pl->sh->distance[op];
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
            ur += (size_t)snprintf(rows + ur, len - ur, " + %s * %ld", x, pl->sh->stride[l]);
        else if (s->loops[l].axis == col_axis[op])
            uc += (size_t)snprintf(cols + uc, len - uc, " + %s * %ld", x, pl->sh->stride[l]);
    }
}

/* Where C's sums go: the cache_write tile, or C. */
static void target(const plan *pl, char *out, size_t len)
{
    const gb_sched *s = pl->s;
    char i[512], j[512];

    if (s->cache_write < 0) {
        axis_index(pl, GB_AXIS_I, i, sizeof i);
        axis_index(pl, GB_AXIS_J, j, sizeof j);
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
                ui += (size_t)snprintf(i + ui, sizeof i - ui, " + l_%s * %ld", s->loops[l].name,
                                       pl->sh->stride[l]);
            else if (s->loops[l].axis == GB_AXIS_J)
                uj += (size_t)snprintf(j + uj, sizeof j - uj, " + l_%s * %ld", s->loops[l].name,
                                       pl->sh->stride[l]);
        }
    snprintf(out, len, "cc[(%s) * %ld + (%s)]", i, pl->tile_w, j);
}

/* The upper bound of base loop l: its extent, lowered by every tail whose
 * carrier it is. */
static void bound_of(const plan *pl, int l, char *out, size_t len)
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
            ur += (size_t)snprintf(rest + ur, sizeof rest - ur, " - l_%s * %ld",
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

typedef struct emitter {
    const plan *pl;
    sbuf *b;
    int mode;  /* how the run reads operands with a fused pack: EITHER, COPY, READ */
    int dot_bk; /* inside the dot run's k loop: gb_bk is B's group there */
} emitter;

static void emit_body(emitter *e, int site);
static void emit_from(emitter *e, int p);

/* Declares the parts of fused loop f (recursively) and guards the tails a
 * part carries: a fused loop cannot take them as bounds. */
static void emit_fused_parts(emitter *e, int f)
{
    const plan *pl = e->pl;
    const gb_sched *s = pl->s;
    const int outer = s->loops[f].fused_outer, inner = s->loops[f].fused_inner;

    line(e->b, "const int l_%s = l_%s / %ld;", s->loops[outer].name, s->loops[f].name,
         pl->sh->extent[inner]);
    line(e->b, "const int l_%s = l_%s %% %ld;", s->loops[inner].name, s->loops[f].name,
         pl->sh->extent[inner]);
    for (int part = 0; part < 2; part++) {
        int l = part ? inner : outer;
        if (s->loops[l].axis == GB_AXIS_FUSED) {
            emit_fused_parts(e, l);
            continue;
        }
        char bound[4096];
        bound_of(pl, l, bound, sizeof bound);
        if (strcmp(bound, "0") != 0 && strchr(bound, '('))
            line(e->b, "if (l_%s >= %s) continue;", s->loops[l].name, bound);
    }
}

/* `for` over loop l with its pragmas; the caller closes the brace. */
static void open_loop(emitter *e, int l, int with_pragmas)
{
    const plan *pl = e->pl;
    const gb_sched *s = pl->s;
    char bound[4096];

    if (s->loops[l].axis == GB_AXIS_FUSED)
        snprintf(bound, sizeof bound, "%ld", pl->sh->extent[l]);
    else
        bound_of(pl, l, bound, sizeof bound);
    if (with_pragmas && s->parallel == l)
        line(e->b, pl->team ? "#pragma omp for schedule(static)"
                            : "#pragma omp parallel for num_threads(nthreads) schedule(static)");
    if (with_pragmas && s->vectorize == l)
        line(e->b, "#pragma omp simd");
    if (with_pragmas && s->unroll[l])
        line(e->b, "#pragma GCC unroll %ld", s->unroll[l] > 0 ? (long)s->unroll[l]
                                                              : pl->sh->extent[l]);
    line(e->b, "for (int l_%s = 0; l_%s < %s; l_%s++) {", s->loops[l].name, s->loops[l].name,
         bound, s->loops[l].name);
    e->b->indent++;
    if (s->loops[l].axis == GB_AXIS_FUSED)
        emit_fused_parts(e, l);
}

static void close_loop(emitter *e)
{
    e->b->indent--;
    line(e->b, "}");
}

/* The prefetches at loop l, first in its body: for each operand
 * prefetched there, the lines of the box the iteration `distance` ahead
 * reads, its address an integer (it may lie past the operand's end, which
 * a prefetch may; a pointer may not), each row's lines one a cache line and
 * its last float. */
static void emit_prefetches(emitter *e, int l)
{
    const plan *pl = e->pl;
    const gb_sched *s = pl->s;
    static const char *const base[3] = { "A", "B", "C" }, *const ld[3] = { "lda", "ldb", "ldc" };

    for (int op = 0; op < 3; op++) {
        char rows[2048], cols[2048], step[64] = "";
        /* a fused pack's first pass reads the matrix, not the copy */
        const int packed = pl->pf_packed[op] && !(e->mode == COPY && pl->pass[op] >= 0);
        const long span = packed ? pl->pf_span[op] : pl->pf_src_span[op];
        const long nrows = packed ? pl->pf_rows[op] : pl->pf_src_rows[op];
        if (s->prefetch[op] != l)
            continue;
        prefetch_index(pl, op, packed, rows, cols, sizeof rows);
        line(e->b, "{");
        e->b->indent++;
        /* a pack's index counts 32-bit words; the matrix's, elements */
        const int size = packed ? 4 : elem_bytes(pl, op);
        if (packed && op == 1 && e->dot_bk && l == pl->dot_loop)
            /* the dot run's B pointer is this iteration's box: the one
             * `distance` groups ahead is that many groups' words on */
            line(e->b, "const size_t gb_pf = (size_t)gb_bk + %ld;",
                 4 * pl->sh->distance[op] * dot_step_words(pl));
        else if (packed)
            line(e->b, "const size_t gb_pf = (size_t)%s + 4 * (size_t)(%s);", op ? "pb" : "pa",
                 rows);
        else
            line(e->b, "const size_t gb_pf = (size_t)%s + %d * ((size_t)(%s) * %s + (%s));",
                 base[op], size, rows, ld[op], cols);
        if (nrows > 1) {
            snprintf(step, sizeof step, " + gb_r * %d * (size_t)%s", size, ld[op]);
            line(e->b, "#pragma GCC unroll %ld", nrows);
            line(e->b, "for (size_t gb_r = 0; gb_r < %ld; gb_r++) {", nrows);
            e->b->indent++;
        }
        /* read (0) or write (1, C), kept in every level of the cache (3) */
        /* a line's elements: 16 floats or words, 32 bf16, 64 bytes */
        const long per_line = 64 / size;
        for (long f = 0; f < span; f += per_line)
            line(e->b, "__builtin_prefetch((const void *)(gb_pf%s + %ld), %d, 3);", step,
                 (long)size * f, op == 2);
        if ((span - 1) % per_line != 0)
            line(e->b, "__builtin_prefetch((const void *)(gb_pf%s + %ld), %d, 3);", step,
                 (long)size * (span - 1), op == 2);
        if (nrows > 1)
            close_loop(e);
        close_loop(e);
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
        open_loop(e, l, s->parallel == l || s->vectorize == l);
        opened++;
    }
    line(e->b, "%s", stmt);
    while (opened--)
        close_loop(e);
}

static void emit_init(emitter *e, int p)
{
    char t[2048], stmt[2200];

    target(e->pl, t, sizeof t);
    snprintf(stmt, sizeof stmt, "%s = 0;", t);
    emit_spatial_nest(e, p, stmt);
}

/* B's pack in the dot form where its last dims are the dot loop and the
 * vectorized loop (BLIS's micro-panel [k / group][lanes][group]): a group
 * of 16 columns at a time, its `group` rows of B loaded whole and
 * interleaved into 64 bytes by one shuffle (gb_pack16: GCC makes it
 * vpermb for u8s8 where the CPU has AVX512_VBMI, vpermw for bf16); the partial groups and
 * columns at the edges element by element, k past the bound zero.  (An
 * element at a time, the copy of a 768 x 3072 B took 6 ns a byte.) */
static void emit_pack_groups(emitter *e, const char *kbound, const char *idx, const char *src)
{
    const plan *pl = e->pl;
    const gb_sched *s = pl->s;
    const char *kk = s->loops[pl->dot_loop].name, *jv = s->loops[s->vectorize].name;
    const int g = pl->group;
    char jbound[4096];

    bound_of(pl, s->vectorize, jbound, sizeof jbound);
    line(e->b, "for (int l_%s = 0; l_%s < %s; l_%s += %d) {", kk, kk, kbound, kk, g);
    e->b->indent++;
    line(e->b, "const int gb_rows = %s - l_%s;", kbound, kk);
    line(e->b, "for (int l_%s = 0; l_%s < %s; l_%s += 16) {", jv, jv, jbound, jv);
    e->b->indent++;
    line(e->b, "if (gb_rows >= %d && l_%s + 16 <= %s) {", g, jv, jbound);
    line(e->b, "    gb_pack16(&pb[%s], &%s, ldb);", idx, src);
    line(e->b, "    continue;");
    line(e->b, "}");
    line(e->b, "const int gb_cols = gb_min(16, %s - l_%s);", jbound, jv);
    line(e->b, "for (int gb_g = 0; gb_g < %d; gb_g++)", g);
    line(e->b, "    for (int gb_j = 0; gb_j < gb_cols; gb_j++)");
    line(e->b, "        (&pb[%s])[gb_j * %d + gb_g] = gb_g < gb_rows ? (&%s)[(size_t)gb_g * ldb + "
               "gb_j] : 0;", idx, g, src);
    close_loop(e);
    close_loop(e);
}

/* A's pack in the dot form where its last dims are the dot loop and a row
 * loop (A's micro-panel [k / g][rows][g]): each row's group is a 32-bit
 * word of its row, copied as one (element by element, `pack A at ic` ran
 * 2.4x packed's time); the last group's part into a word whose high bytes
 * are zero. */
static void emit_pack_words_a(emitter *e, const char *kbound, const char *idx, const char *src)
{
    const plan *pl = e->pl;
    const gb_sched *s = pl->s;
    const int rows = pl->pack_dim[0][pl->npack[0] - 1];
    const char *kk = s->loops[pl->dot_loop].name, *ii = s->loops[rows].name;
    const int g = pl->group;
    char rbound[4096];

    bound_of(pl, rows, rbound, sizeof rbound);
    line(e->b, "for (int l_%s = 0; l_%s < %s; l_%s += %d) {", kk, kk, kbound, kk, g);
    e->b->indent++;
    line(e->b, "const int gb_part = gb_min(%d, %s - l_%s);", g, kbound, kk);
    line(e->b, "for (int l_%s = 0; l_%s < %s; l_%s++) {", ii, ii, rbound, ii);
    e->b->indent++;
    line(e->b, "const int gb_w = gb_part == %d ? gb_word(&%s) : gb_word_part(&%s, gb_part);", g,
         src, src);
    line(e->b, "__builtin_memcpy(&pa[%s], &gb_w, 4);", idx);
    close_loop(e);
    close_loop(e);
}

/* The pack of operand op at a site: its dims' loops, copying.  In the dot
 * form the dot loop runs on to a whole group and the k past its bound is
 * zero (a product with it adds nothing); elsewhere each element is widened
 * as it is copied. */
static void emit_pack(emitter *e, int op)
{
    const plan *pl = e->pl;
    const gb_sched *s = pl->s;
    char idx[2048], src[1200], a[512], b[512], dot_bound[4096] = "";
    const char *name = op ? "pb" : "pa";

    pack_index(pl, op, idx, sizeof idx);
    axis_index(pl, op ? GB_AXIS_K : GB_AXIS_I, a, sizeof a);
    axis_index(pl, op ? GB_AXIS_J : GB_AXIS_K, b, sizeof b);
    snprintf(src, sizeof src, "%s[(size_t)(%s) * %s + (%s)]", op ? "B" : "A", a,
             op ? "ldb" : "lda", b);
    if (pl->pack_per_thread[op])
        line(e->b, "%s *restrict %s = %s_all + (size_t)omp_get_thread_num() * %ld;",
             type_pack(pl, op), name, name, pl->pack_floats[op] * pl->group);
    if (pl->pass[op] >= 0) /* fused: the pass's first iteration copies */
        return;
    const int groups16 = pl->dot && op == 1 && pl->npack[1] >= 2 &&
                         pl->pack_dim[1][pl->npack[1] - 1] == s->vectorize &&
                         pl->pack_dim[1][pl->npack[1] - 2] == pl->dot_loop;
    /* A's micro-panel [k / g][rows][g]: a row's group is a word of A's row */
    const int words_a = pl->dot && op == 0 && pl->npack[0] >= 2 &&
                        pl->pack_dim[0][pl->npack[0] - 2] == pl->dot_loop &&
                        s->loops[pl->pack_dim[0][pl->npack[0] - 1]].axis == GB_AXIS_I;
    for (int d = 0; d < pl->npack[op]; d++) {
        int l = pl->pack_dim[op][d];
        char bound[4096];
        bound_of(pl, l, bound, sizeof bound);
        if (groups16 && d == pl->npack[op] - 2) {
            emit_pack_groups(e, bound, idx, src);
            break;
        }
        if (words_a && d == pl->npack[op] - 2) {
            emit_pack_words_a(e, bound, idx, src);
            break;
        }
        /* At root every thread of the run packs a share (the tutorial),
         * and so does the team at a loop outside the parallel loop. */
        if (d == 0 && (pl->pack_team[op] || (s->pack[op] == GB_SCHED_ROOT && pl->team)))
            line(e->b, "#pragma omp for schedule(static)");
        else if (d == 0 && s->pack[op] == GB_SCHED_ROOT)
            line(e->b, "#pragma omp parallel for num_threads(nthreads) schedule(static)");
        else if (d == pl->npack[op] - 1) /* a copy: its innermost loop is SIMD */
            line(e->b, "#pragma omp simd");
        if (l == pl->dot_loop) {
            snprintf(dot_bound, sizeof dot_bound, "%s", bound);
            line(e->b, "for (int l_%s = 0; l_%s < (%s + %d) / %d * %d; l_%s++) {",
                 s->loops[l].name, s->loops[l].name, bound, pl->group - 1, pl->group, pl->group,
                 s->loops[l].name);
        } else {
            line(e->b, "for (int l_%s = 0; l_%s < %s; l_%s++) {", s->loops[l].name,
                 s->loops[l].name, bound, s->loops[l].name);
        }
        e->b->indent++;
    }
    if (groups16 || words_a) {
        for (int d = 0; d < pl->npack[op] - 2; d++)
            close_loop(e);
        return;
    }
    if (dot_bound[0] != '\0') {
        line(e->b, "%s[%s] = l_%s < %s ? %s : 0;", name, idx, s->loops[pl->dot_loop].name,
             dot_bound, src);
    } else {
        char w[1300];
        widened(pl, op, src, w, sizeof w);
        line(e->b, "%s[%s] = %s;", name, idx, w);
    }
    for (int d = 0; d < pl->npack[op]; d++)
        close_loop(e);
}

/* Where C's init is folded into the run at p: gb_first, whether every k
 * loop outside the run is at its first iteration. */
static void emit_first(emitter *e, int p)
{
    const plan *pl = e->pl;
    const gb_sched *s = pl->s;
    char cond[1024];
    size_t used = 0;

    cond[0] = '\0';
    for (int q = pl->init_at; q < p; q++)
        if (s->loops[pl->order[q]].axis == GB_AXIS_K)
            used += (size_t)snprintf(cond + used, sizeof cond - used, "%sl_%s == 0",
                                     used ? " && " : "", s->loops[pl->order[q]].name);
    line(e->b, "const int gb_first = %s;", used ? cond : "1");
}

/* B's vector piece p of a register run of `lanes` lanes where all its
 * loops are in scope, widened: from the pack (already widened) or from B
 * in place (gb_vW_load_b widens as it loads). */
static void b_vector(const plan *pl, int lanes, char *out, size_t len)
{
    char ref[2048];

    if (pl->s->pack[1] == -1) {
        source(pl, 1, ref, sizeof ref);
        snprintf(out, len, "gb_v%d_load_b(&%s + p * GB_PW(%d))", lanes, ref, lanes);
    } else {
        char idx[2048];
        pack_index(pl, 1, idx, sizeof idx);
        snprintf(out, len, "gb_v%d_load(&pb[%s] + p * GB_PW(%d))", lanes, idx, lanes);
    }
}

static void emit_rows_run_dot(emitter *e, int p, int lanes);
static void emit_tile_run(emitter *e, int p);


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
    char t[2048], a[2048], b[2048];

    if (pl->tiles) {
        emit_tile_run(e, p);
        return;
    }
    if (pl->dot) {
        emit_rows_run_dot(e, p, lanes);
        return;
    }
    target(pl, t, sizeof t);
    operand(pl, 0, e->mode, a, sizeof a);
    line(e->b, "const int l_%s = 0;", s->loops[s->vectorize].name);
    line(e->b, "gb_v%d acc[%d][GB_NP(%d)];", lanes, pl->rows, lanes);
    line(e->b, "#pragma GCC unroll %d", pl->rows);
    line(e->b, "for (int l_%s = 0; l_%s < %d; l_%s++)", r, r, pl->rows, r);
    line(e->b, "    #pragma GCC unroll 16");
    line(e->b, "    for (int p = 0; p < GB_NP(%d); p++)", lanes);
    if (zero)
        line(e->b, "        acc[l_%s][p] = (gb_v%d){ 0 };", r, lanes);
    else if (pl->fold_init)
        line(e->b, "        acc[l_%s][p] = gb_first ? (gb_v%d){ 0 } : gb_v%d_load(&%s + p * GB_PW(%d));",
             r, lanes, lanes, t, lanes);
    else
        line(e->b, "        acc[l_%s][p] = gb_v%d_load(&%s + p * GB_PW(%d));", r, lanes, t,
             lanes);
    for (int q = p; q < last; q++) {
        open_loop(e, pl->order[q], 1);
        emit_prefetches(e, pl->order[q]);
    }
    line(e->b, "gb_v%d bv[GB_NP(%d)];", lanes, lanes);
    line(e->b, "#pragma GCC unroll 16");
    line(e->b, "for (int p = 0; p < GB_NP(%d); p++) {", lanes);
    if (e->mode == COPY && pl->pass[1] >= 0) { /* from B, into its copy */
        char src[1200], idx[2048];
        source(pl, 1, src, sizeof src);
        pack_index(pl, 1, idx, sizeof idx);
        line(e->b, "    bv[p] = gb_v%d_load_b(&%s + p * GB_PW(%d));", lanes, src, lanes);
        line(e->b, "    gb_v%d_store(&pb[%s] + p * GB_PW(%d), bv[p]);", lanes, idx, lanes);
    } else {
        b_vector(pl, lanes, b, sizeof b);
        line(e->b, "    bv[p] = %s;", b);
    }
    line(e->b, "}");
    line(e->b, "#pragma GCC unroll %d", pl->rows);
    line(e->b, "for (int l_%s = 0; l_%s < %d; l_%s++) {", r, r, pl->rows, r);
    e->b->indent++;
    emit_prefetches(e, pl->rows_loop);
    line(e->b, "const %s a = %s;", type_w(pl), a);
    line(e->b, "#pragma GCC unroll 16");
    line(e->b, "for (int p = 0; p < GB_NP(%d); p++)", lanes);
    line(e->b, "    acc[l_%s][p] += a * bv[p];", r);
    close_loop(e);
    for (int q = p; q < last; q++)
        close_loop(e);
    line(e->b, "#pragma GCC unroll %d", pl->rows);
    line(e->b, "for (int l_%s = 0; l_%s < %d; l_%s++)", r, r, pl->rows, r);
    line(e->b, "    #pragma GCC unroll 16");
    line(e->b, "    for (int p = 0; p < GB_NP(%d); p++)", lanes);
    line(e->b, "        gb_v%d_store(&%s + p * GB_PW(%d), acc[l_%s][p]);", lanes, t, lanes, r);
}

/* The rows run in the dot form (plan.h): rows x lanes sums in 512-bit
 * vectors (lanes / 16 a row), the one k loop stepping a group at a time;
 * per step B's group of each 16 columns is one 64-byte load from its
 * pack (16 words of `group` k), each row's group of A one 32-bit word
 * broadcast, and each sum takes the group's products in one vdpbf16ps or
 * vpdpbusd.  The k past the dot loop's bound is zero in the packs; A read
 * in place stops at the last whole group and reads the rest into a word
 * whose high bytes are zero (gb_word_part), never past its row. */
static void emit_rows_run_dot(emitter *e, int p, int lanes)
{
    const plan *pl = e->pl;
    const gb_sched *s = pl->s;
    const int zero = p == pl->init_at && s->cache_write < 0;
    const int u8 = pl->dtype == GB_DTYPE_U8S8, g = pl->group, np = lanes / 16;
    const char *r = s->loops[pl->rows_loop].name, *kk = s->loops[pl->dot_loop].name;
    const char *vt = u8 ? "__m512i" : "__m512";
    const char *load_c = u8 ? "_mm512_loadu_si512" : "_mm512_loadu_ps";
    const char *store_c = u8 ? "_mm512_storeu_si512" : "_mm512_storeu_ps";
    const char *zero_v = u8 ? "_mm512_setzero_si512()" : "_mm512_setzero_ps()";
    const int a_in_place = s->pack[0] == -1;
    /* B's fused copy made here (the pass's first iteration): its groups
     * from B's rows, written to the pack as they are used */
    const int b_copy = e->mode == COPY && pl->pass[1] >= 0;
    const int split_last = a_in_place || b_copy; /* the part of the last group apart */
    char t[2048], bword[2048], aref[2048], bound[4096], bsrc[1200];

    /* The sums are named variables, one per row and piece, and the rows
     * are written out, so that nothing depends on GCC's unrolling.  (The
     * spills GCC 12 made here are header copying's: see no_tree_ch.) */
    target(pl, t, sizeof t);
    pack_word(pl, 1, bword, sizeof bword);
    source(pl, 1, bsrc, sizeof bsrc);
    if (a_in_place)
        source(pl, 0, aref, sizeof aref);
    else {
        char w[2048];
        pack_word(pl, 0, w, sizeof w);
        snprintf(aref, sizeof aref, "pa[(size_t)(%s) * %d]", w, g);
    }
    bound_of(pl, pl->dot_loop, bound, sizeof bound);
    line(e->b, "const int l_%s = 0;", s->loops[s->vectorize].name);
    for (int row = 0; row < pl->rows; row++) {
        char names[96] = "";
        for (int q = 0; q < np; q++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%sacc%d_%d",
                     q ? ", " : "", row, q);
        line(e->b, "%s %s;", vt, names);
        line(e->b, "{");
        e->b->indent++;
        line(e->b, "const int l_%s = %d;", r, row);
        for (int q = 0; q < np; q++) {
            if (zero)
                line(e->b, "acc%d_%d = %s;", row, q, zero_v);
            else if (pl->fold_init)
                line(e->b, "acc%d_%d = gb_first ? %s : %s(&%s + %d);", row, q, zero_v, load_c, t,
                     16 * q);
            else
                line(e->b, "acc%d_%d = %s(&%s + %d);", row, q, load_c, t, 16 * q);
        }
        line(e->b, "(void)l_%s;", r);
        close_loop(e);
    }
    /* whole groups, then (A in place) the part of the last one */
    line(e->b, "const int gb_kend = %s;", bound);
    if (split_last)
        line(e->b, "const int gb_kwhole = gb_kend / %d * %d;", g, g);
    else
        line(e->b, "const int gb_kwhole = gb_kend;");
    line(e->b, "int l_%s = 0;", kk);
    line(e->b, "%s *gb_bk = pb + (size_t)(%s) * %d;", type_b(pl), bword, g);
    for (int part = 0; part < 1 + split_last; part++) {
        if (part == 0)
            line(e->b, "for (; l_%s < gb_kwhole; l_%s += %d, gb_bk += %ld) {", kk, kk, g,
                 dot_step_words(pl) * g);
        else
            line(e->b, "if (l_%s < gb_kend) {", kk);
        e->b->indent++;
        if (part == 0) {
            e->dot_bk = 1;
            emit_prefetches(e, pl->dot_loop);
            e->dot_bk = 0;
        }
        for (int q = 0; q < np; q++) {
            if (!b_copy) {
                line(e->b, "const __m512i bv%d = _mm512_loadu_si512((const void *)(gb_bk + %d));",
                     q, 64 / elem_bytes(pl, 1) * q);
                continue;
            }
            if (part == 0)
                line(e->b, "const __m512i bv%d = gb_group16(&%s + %d, ldb);", q, bsrc, 16 * q);
            else
                line(e->b, "const __m512i bv%d = gb_group16_part(&%s + %d, ldb, gb_kend - l_%s);",
                     q, bsrc, 16 * q, kk);
            line(e->b, "_mm512_storeu_si512((void *)(gb_bk + %d), bv%d);",
                 64 / elem_bytes(pl, 1) * q, q);
        }
        for (int row = 0; row < pl->rows; row++) {
            line(e->b, "{");
            e->b->indent++;
            line(e->b, "const int l_%s = %d;", r, row);
            emit_prefetches(e, pl->rows_loop);
            if (part == 0 || !a_in_place)
                line(e->b, "const __m512i a = _mm512_set1_epi32(gb_word(&%s));", aref);
            else
                line(e->b, "const __m512i a = _mm512_set1_epi32(gb_word_part(&%s, gb_kend - "
                           "l_%s));", aref, kk);
            for (int q = 0; q < np; q++)
                if (u8)
                    line(e->b, "acc%d_%d = _mm512_dpbusd_epi32(acc%d_%d, a, bv%d);", row, q, row,
                         q, q);
                else
                    line(e->b, "acc%d_%d = _mm512_dpbf16_ps(acc%d_%d, (__m512bh)a, "
                               "(__m512bh)bv%d);", row, q, row, q, q);
            line(e->b, "(void)l_%s;", r);
            close_loop(e);
        }
        close_loop(e);
    }
    for (int row = 0; row < pl->rows; row++) {
        line(e->b, "{");
        e->b->indent++;
        line(e->b, "const int l_%s = %d;", r, row);
        for (int q = 0; q < np; q++)
            line(e->b, "%s(&%s + %d, acc%d_%d);", store_c, t, 16 * q, row, q);
        line(e->b, "(void)l_%s;", r);
        close_loop(e);
    }
}

/* ---- the run on AMX's tiles (SCHED.md, "Tiles") ---------------------------- */

/* The tiles of the run's block, numbered as the hand-written amx's
 * layouts are (schedules/amx_tiles.h): C(i, j) = i nt + j, then the A
 * tiles, one a row of C tiles, then the B tiles, one a column. */
static int tile_c(const plan *pl, int i, int j)
{
    return i * pl->tile_nt + j;
}
static int tile_a(const plan *pl, int i)
{
    return pl->tile_mt * pl->tile_nt + i;
}
static int tile_b(const plan *pl, int j)
{
    return pl->tile_mt * pl->tile_nt + pl->tile_mt + j;
}

/* Rows of C tile row i: 16, the last what is left of the run's rows. */
static int tile_rows(const plan *pl, int i)
{
    const int left = pl->rows - GB_SCHED_TILE_ROWS * i;
    return left < GB_SCHED_TILE_ROWS ? left : GB_SCHED_TILE_ROWS;
}

/* The tile operations as macros: AMX's instructions (GCC's intrinsics),
 * or, under the test hook, calls of the emulation through a pointer the
 * loader sets (gb_tile_ops_emulated: variant.c), its state a zeroed tile
 * file on the thread's stack. */
static void emit_tile_helpers(sbuf *b, const plan *pl)
{
    const char *tag = gb_dtype_name(pl->dtype);

    if (!pl->tiles)
        return;
    if (gb_sched_tiles_emulated()) {
        put(b, "#ifndef GB_TILES_EMULATED\n#define GB_TILES_EMULATED\n");
        /* amx_tile_ops of schedules/amx_tiles.h, field for field */
        put(b, "typedef struct gb_tile_ops { const char *name; size_t state_bytes; "
               "void (*configure)(void *, const void *); void (*zero)(void *, int); "
               "void (*load)(void *, int, const void *, long); "
               "void (*store)(void *, int, void *, long); "
               "void (*dot)(void *, int, int, int, int); void (*release)(void *); } "
               "gb_tile_ops;\n");
        put(b, "__attribute__((visibility(\"default\"))) const gb_tile_ops *gb_tile_ops_emulated;\n");
        put(b, "#define GB_TILES_BEGIN(cfg) unsigned char gb_tstate[%zu] "
               "__attribute__((aligned(64))) = { 0 }; gb_tile_ops_emulated->configure(gb_tstate, "
               "cfg)\n", amx_tiles_emulated_any.state_bytes);
        put(b, "#define GB_TILES_END() gb_tile_ops_emulated->release(gb_tstate)\n");
        put(b, "#define GB_TZERO(t) gb_tile_ops_emulated->zero(gb_tstate, t)\n");
        put(b, "#define GB_TLOAD(t, p, s) gb_tile_ops_emulated->load(gb_tstate, t, p, s)\n");
        put(b, "#define GB_TSTORE(t, p, s) gb_tile_ops_emulated->store(gb_tstate, t, p, s)\n");
        put(b, "#endif\n");
        put(b, "#ifndef GB_TDOT_%s\n#define GB_TDOT_%s(c, a, b) gb_tile_ops_emulated->dot("
               "gb_tstate, %d, c, a, b)\n#endif\n", tag, tag, (int)pl->dtype);
        return;
    }
    put(b, "#ifndef GB_TILES_HARDWARE\n#define GB_TILES_HARDWARE\n#include <immintrin.h>\n");
    put(b, "#define GB_TILES_BEGIN(cfg) _tile_loadconfig(cfg)\n");
    put(b, "#define GB_TILES_END() _tile_release()\n");
    put(b, "#define GB_TZERO(t) _tile_zero(t)\n");
    put(b, "#define GB_TLOAD(t, p, s) _tile_loadd(t, p, s)\n");
    put(b, "#define GB_TSTORE(t, p, s) _tile_stored(t, p, s)\n#endif\n");
    put(b, "#ifndef GB_TDOT_%s\n#define GB_TDOT_%s(c, a, b) %s(c, a, b)\n#endif\n", tag, tag,
        pl->dtype == GB_DTYPE_BF16 ? "_tile_dpbf16ps" : "_tile_dpbusd");
}

/* LDTILECFG's 64 bytes for the run's tiles (palette 1, start row 0, each
 * tile's bytes a row as 16 bits, then its rows), a constant of the
 * kernel, and the tiles configured for the thread: first in the body of
 * the parallel loop (or of the kernel), released at its end. */
static void emit_tiles_begin(emitter *e)
{
    const plan *pl = e->pl;
    int colsb[GB_SCHED_TILES] = { 0 }, rows[GB_SCHED_TILES] = { 0 };

    for (int i = 0; i < pl->tile_mt; i++) {
        for (int j = 0; j < pl->tile_nt; j++) {
            colsb[tile_c(pl, i, j)] = 64; /* 16 f32 or int32 */
            rows[tile_c(pl, i, j)] = tile_rows(pl, i);
        }
        colsb[tile_a(pl, i)] = 64; /* 16 groups of k */
        rows[tile_a(pl, i)] = tile_rows(pl, i);
    }
    for (int j = 0; j < pl->tile_nt; j++) {
        colsb[tile_b(pl, j)] = 64; /* 16 columns' groups */
        rows[tile_b(pl, j)] = GB_SCHED_TILE_ROWS;
    }
    put(e->b, "%*sstatic const unsigned char gb_tcfg[64] __attribute__((aligned(64))) = { 1, 0",
        4 * e->b->indent, "");
    for (int t = 0; t < 14; t++)
        put(e->b, ", 0");
    for (int t = 0; t < 16; t++)
        put(e->b, ", %d, %d", t < GB_SCHED_TILES ? colsb[t] & 255 : 0,
            t < GB_SCHED_TILES ? colsb[t] >> 8 : 0);
    for (int t = 0; t < 16; t++)
        put(e->b, ", %d", t < GB_SCHED_TILES ? rows[t] : 0);
    put(e->b, " };\n");
    line(e->b, "GB_TILES_BEGIN(gb_tcfg);");
}

/*
 * The run from position p on the tiles: its block of rows x lanes of C is
 * tile_mt x tile_nt C tiles, zeroed (or loaded from C) before the k loop,
 * stored to C after it; per step of 16 groups of k, each A tile loaded
 * from A's rows in place (rows lda apart, 64 bytes each), each B tile from
 * B's pack (16 rows of groups, 16 columns' words each, the rows a group of
 * the pack apart), and each C tile += its A tile . its B tile.  The
 * compiler fences keep the packs' stores before the tile loads, which
 * GCC's intrinsics do not say read memory.
 */
static void emit_tile_run(emitter *e, int p)
{
    const plan *pl = e->pl;
    const gb_sched *s = pl->s;
    const int zero = p == pl->init_at;
    const int g = pl->group, depth = GB_SCHED_TILE_ROWS * g;
    const char *tag = gb_dtype_name(pl->dtype), *kk = s->loops[pl->dot_loop].name;
    char t[2048], aref[2048], bword[2048], bound[4096];

    target(pl, t, sizeof t);
    source(pl, 0, aref, sizeof aref);
    pack_word(pl, 1, bword, sizeof bword);
    bound_of(pl, pl->dot_loop, bound, sizeof bound);
    line(e->b, "const int l_%s = 0, l_%s = 0;", s->loops[s->vectorize].name,
         s->loops[pl->rows_loop].name);
    line(e->b, "int l_%s = 0;", kk);
    line(e->b, "__atomic_signal_fence(__ATOMIC_SEQ_CST);");
    for (int i = 0; i < pl->tile_mt; i++)
        for (int j = 0; j < pl->tile_nt; j++) {
            char at[2200];
            snprintf(at, sizeof at, "&%s + (size_t)%d * ldc + %d", t, 16 * i, 16 * j);
            if (zero)
                line(e->b, "GB_TZERO(%d);", tile_c(pl, i, j));
            else if (pl->fold_init)
                line(e->b, "if (gb_first) GB_TZERO(%d); else GB_TLOAD(%d, %s, (long)ldc * 4);",
                     tile_c(pl, i, j), tile_c(pl, i, j), at);
            else
                line(e->b, "GB_TLOAD(%d, %s, (long)ldc * 4);", tile_c(pl, i, j), at);
        }
    line(e->b, "const %s *gb_bk = pb + (size_t)(%s) * %d;", type_b(pl), bword, g);
    line(e->b, "for (const int gb_kend = %s; l_%s < gb_kend; l_%s += %d, gb_bk += %ld) {", bound,
         kk, kk, depth, dot_step_words(pl) * depth);
    e->b->indent++;
    for (int i = 0; i < pl->tile_mt; i++)
        line(e->b, "GB_TLOAD(%d, &%s + (size_t)%d * lda, (long)lda * %d);", tile_a(pl, i), aref,
             16 * i, elem_bytes(pl, 0));
    for (int j = 0; j < pl->tile_nt; j++)
        line(e->b, "GB_TLOAD(%d, gb_bk + %d, %ld);", tile_b(pl, j), 16 * g * j,
             dot_step_words(pl) * 4);
    for (int i = 0; i < pl->tile_mt; i++)
        for (int j = 0; j < pl->tile_nt; j++)
            line(e->b, "GB_TDOT_%s(%d, %d, %d);", tag, tile_c(pl, i, j), tile_a(pl, i),
                 tile_b(pl, j));
    close_loop(e);
    for (int i = 0; i < pl->tile_mt; i++)
        for (int j = 0; j < pl->tile_nt; j++)
            line(e->b, "GB_TSTORE(%d, &%s + (size_t)%d * ldc + %d, (long)ldc * 4);",
                 tile_c(pl, i, j), t, 16 * i, 16 * j);
    line(e->b, "__atomic_signal_fence(__ATOMIC_SEQ_CST);");
}

/* The register run from position p: a scalar or a vector holds the sum
 * over the k loops and reaches the target once. */
static void emit_run(emitter *e, int p, int lanes)
{
    const plan *pl = e->pl;
    const gb_sched *s = pl->s;
    const int zero = p == pl->init_at && s->cache_write < 0;
    char t[2048], a[2048], b[2048];
    const int last = pl->n - (s->vectorize >= 0);

    target(pl, t, sizeof t);
    operand(pl, 0, e->mode, a, sizeof a);
    operand(pl, 1, lanes ? READ : e->mode, b, sizeof b);
    if (lanes) {
        /* W lanes as W / GB_PW(W) vectors of the machine's width at most:
         * GCC splats a scalar into a wider generic vector through memory,
         * one lane at a time (8x slower at W = 32 on AVX-512). */
        line(e->b, "const int l_%s = 0;", s->loops[s->vectorize].name);
        line(e->b, "gb_v%d acc[GB_NP(%d)];", lanes, lanes);
        line(e->b, "#pragma GCC unroll 16");
        line(e->b, "for (int p = 0; p < GB_NP(%d); p++)", lanes);
        if (zero)
            line(e->b, "    acc[p] = (gb_v%d){ 0 };", lanes);
        else if (pl->fold_init)
            line(e->b, "    acc[p] = gb_first ? (gb_v%d){ 0 } : gb_v%d_load(&%s + p * GB_PW(%d));",
                 lanes, lanes, t, lanes);
        else
            line(e->b, "    acc[p] = gb_v%d_load(&%s + p * GB_PW(%d));", lanes, t, lanes);
    } else {
        line(e->b, zero ? "%s acc = 0;" : pl->fold_init ? "%s acc = gb_first ? 0 : %s;"
                                                       : "%s acc = %s;", type_w(pl), t);
    }
    for (int q = p; q < last; q++) {
        open_loop(e, pl->order[q], 1);
        emit_prefetches(e, pl->order[q]);
    }
    if (lanes) {
        line(e->b, "const %s a = %s;", type_w(pl), a);
        line(e->b, "#pragma GCC unroll 16");
        line(e->b, "for (int p = 0; p < GB_NP(%d); p++) {", lanes);
        if (e->mode == COPY && pl->pass[1] >= 0) { /* from B, into its copy */
            char src[1200], idx[2048];
            source(pl, 1, src, sizeof src);
            pack_index(pl, 1, idx, sizeof idx);
            line(e->b, "    const gb_v%d bv = gb_v%d_load_b(&%s + p * GB_PW(%d));", lanes, lanes,
                 src, lanes);
            line(e->b, "    gb_v%d_store(&pb[%s] + p * GB_PW(%d), bv);", lanes, idx, lanes);
            line(e->b, "    acc[p] += a * bv;");
        } else {
            b_vector(pl, lanes, b, sizeof b);
            line(e->b, "    acc[p] += a * %s;", b);
        }
        line(e->b, "}");
    } else
        line(e->b, "acc += %s * %s;", a, b);
    for (int q = p; q < last; q++)
        close_loop(e);
    if (lanes) {
        line(e->b, "#pragma GCC unroll 16");
        line(e->b, "for (int p = 0; p < GB_NP(%d); p++)", lanes);
        line(e->b, "    gb_v%d_store(&%s + p * GB_PW(%d), acc[p]);", lanes, t, lanes);
    } else
        line(e->b, "%s = acc;", t);
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
    bound_of(pl, v, bound, sizeof bound);
    if (strchr(bound, '(') == NULL) {
        line(e->b, "{");
        e->b->indent++;
        if (pl->rows_loop >= 0)
            emit_rows_run(e, p, pl->vec_width);
        else
            emit_run(e, p, pl->vec_width);
        close_loop(e);
        return;
    }
    line(e->b, "if (%s == %d) {", bound, pl->vec_width);
    e->b->indent++;
    if (pl->rows_loop >= 0)
        emit_rows_run(e, p, pl->vec_width);
    else
        emit_run(e, p, pl->vec_width);
    e->b->indent--;
    line(e->b, "} else {");
    e->b->indent++;
    if (p == pl->init_at && s->cache_write < 0)
        emit_init(e, p);
    if (pl->fold_init) {
        line(e->b, "if (gb_first) {");
        e->b->indent++;
        emit_init(e, p);
        close_loop(e);
    }
    for (int q = p; q < pl->n; q++) {
        open_loop(e, pl->order[q], 1);
        emit_prefetches(e, pl->order[q]);
    }
    {
        char t[2048], a[2048], b[2048];
        target(pl, t, sizeof t);
        operand(pl, 0, e->mode, a, sizeof a);
        operand(pl, 1, e->mode, b, sizeof b);
        line(e->b, "%s += %s * %s;", t, a, b);
    }
    for (int q = p; q < pl->n; q++)
        close_loop(e);
    close_loop(e);
}

/* The loops from position p on, and what sits between them. */
static void emit_from(emitter *e, int p)
{
    const plan *pl = e->pl;
    const gb_sched *s = pl->s;

    if (p == pl->init_at && s->cache_write < 0 && p != pl->run_at && !pl->fold_init)
        emit_init(e, p);
    if (p == pl->run_at) {
        char cond[1100], first[512];
        size_t used = 0;
        if (pl->fold_init)
            emit_first(e, p);
        /* A fused pack: the run twice, copying where a pass is at its first
         * iteration (an operand copied again there rewrites the values its
         * copy holds), reading the copies elsewhere. */
        for (int op = 0; op < 2; op++)
            if (pl->pass[op] >= 0) {
                pass_condition(pl, op, first, sizeof first);
                used += (size_t)snprintf(cond + used, sizeof cond - used, "%s%s",
                                         used ? " || " : "", first);
            }
        if (used == 0) {
            emit_run_forms(e, p);
            return;
        }
        line(e->b, "if (%s) {", cond);
        e->b->indent++;
        e->mode = COPY;
        emit_run_forms(e, p);
        e->b->indent--;
        line(e->b, "} else {");
        e->b->indent++;
        e->mode = READ;
        emit_run_forms(e, p);
        close_loop(e);
        e->mode = EITHER;
        return;
    }
    if (p == pl->n) {
        char t[2048], a[2048], b[2048];
        target(pl, t, sizeof t);
        operand(pl, 0, EITHER, a, sizeof a);
        operand(pl, 1, EITHER, b, sizeof b);
        line(e->b, "%s += %s * %s;", t, a, b);
        return;
    }
    open_loop(e, pl->order[p], 1);
    if (pl->tiles && pl->order[p] == s->parallel)
        emit_tiles_begin(e);
    emit_prefetches(e, pl->order[p]);
    emit_body(e, pl->order[p]);
    if (pl->tiles && pl->order[p] == s->parallel)
        line(e->b, "GB_TILES_END();");
    close_loop(e);
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
            emit_pack(e, op);
    if (s->cache_write >= 0 && s->cache_write == site) {
        line(e->b, "%s cc[%ld];", type_w(pl), pl->tile_h * pl->tile_w);
        line(e->b, "#pragma omp simd");
        line(e->b, "for (int t = 0; t < %ld; t++)", pl->tile_h * pl->tile_w);
        line(e->b, "    cc[t] = 0;");
    }
    emit_from(e, p);
    if (s->cache_write >= 0 && s->cache_write == site) {
        char c[2048], t[2048], stmt[4200], i[512], j[512];
        axis_index(pl, GB_AXIS_I, i, sizeof i);
        axis_index(pl, GB_AXIS_J, j, sizeof j);
        snprintf(c, sizeof c, "C[(size_t)(%s) * ldc + (%s)]", i, j);
        target(pl, t, sizeof t);
        snprintf(stmt, sizeof stmt, "%s = %s;", c, t);
        emit_spatial_nest(e, p, stmt);
    }
}

/* What the kernel's type needs, each guarded so that kernels of several
 * shapes and types can share one file: the register run's vectors of the
 * accumulator's type and their loads (gb_vW_load_b widens B's elements as
 * it loads them: a bf16 is the f32 of its bits above 16 zero bits, exact;
 * an s8 sign-extends), bf16's scalar widening, and the dot form's 32-bit
 * group loads (memcpy: A's groups need not be aligned). */
static void emit_type_helpers(sbuf *b, const plan *pl)
{
    const int w = pl->vec_width;
    const char *tw = type_w(pl), *tag = gb_dtype_name(pl->dtype);

    if (pl->dtype == GB_DTYPE_BF16)
        put(b, "#ifndef GB_BF16_WIDE\n#define GB_BF16_WIDE\n"
               "static inline float gb_bf16_wide(unsigned short x) { unsigned int u = "
               "(unsigned int)x << 16; float f; __builtin_memcpy(&f, &u, 4); return f; }\n"
               "#endif\n");
    if (pl->dot)
        put(b, "#ifndef GB_WORD_%s\n#define GB_WORD_%s\n#include <immintrin.h>\n"
               "static inline int gb_word(const %s *p) { int w; __builtin_memcpy(&w, p, 4); "
               "return w; }\n"
               "static inline int gb_word_part(const %s *p, int n) { int w = 0; "
               "__builtin_memcpy(&w, p, (unsigned)n * sizeof *p); return w; }\n",
            tag, tag, type_a(pl), type_a(pl));
    if (pl->dot) {
        /* 16 columns of `group` rows of B (ld elements apart) as 16 words,
         * column j's k in order in word j: element j * group + r of the
         * result is element r * 16 + j of the rows side by side */
        const int g = pl->group;
        put(b, "typedef %s gb_row64 __attribute__((vector_size(64)));\n", type_b(pl));
        put(b, "typedef %s gb_idx64 __attribute__((vector_size(64)));\n",
            g == 4 ? "unsigned char" : "unsigned short");
        /* the rows into one vector by inserts (a copy through memory,
         * 16-byte stores read back as 64 bytes, stalls store forwarding) */
        put(b, "static inline __m512i gb_group16(const %s *src, long ld) { ", type_b(pl));
        if (g == 4)
            put(b, "__m512i w = _mm512_castsi128_si512(_mm_loadu_si128((const void *)src)); "
                   "w = _mm512_inserti32x4(w, _mm_loadu_si128((const void *)(src + ld)), 1); "
                   "w = _mm512_inserti32x4(w, _mm_loadu_si128((const void *)(src + 2 * ld)), 2); "
                   "w = _mm512_inserti32x4(w, _mm_loadu_si128((const void *)(src + 3 * ld)), 3); ");
        else
            put(b, "__m512i w = _mm512_castsi256_si512(_mm256_loadu_si256((const void *)src)); "
                   "w = _mm512_inserti64x4(w, _mm256_loadu_si256((const void *)(src + ld)), 1); ");
        put(b, "gb_row64 v = (gb_row64)w; const gb_idx64 m = {");
        for (int j = 0; j < 16; j++)
            for (int r = 0; r < g; r++)
                put(b, "%s%d", j || r ? "," : " ", r * 16 + j);
        put(b, " }; v = __builtin_shuffle(v, m); return (__m512i)v; }\n");
        put(b, "static inline void gb_pack16(%s *dst, const %s *src, long ld) { "
               "_mm512_storeu_si512((void *)dst, gb_group16(src, ld)); }\n", type_b(pl),
            type_b(pl));
        /* the last group's rows that exist, the rest zero */
        put(b, "static inline __m512i gb_group16_part(const %s *src, long ld, int rows) { "
               "%s t[%d] = { 0 }; for (int r = 0; r < rows; r++) __builtin_memcpy(t + r * 16, "
               "src + r * ld, sizeof t / %d); return gb_group16(t, 16); }\n", type_b(pl),
            type_b(pl), 16 * g, g);
    }
    if (pl->dot)
        put(b, "#endif\n");
    if (w == 0 || pl->dot)
        return;
    put(b, "#ifndef GB_V%d_%s\n#define GB_V%d_%s\n", w, tag, w, tag);
    put(b, "typedef %s gb_v%d __attribute__((vector_size(4 * GB_PW(%d))));\n", tw, w, w);
    put(b, "static inline gb_v%d gb_v%d_load(const %s *p) { gb_v%d v; "
           "__builtin_memcpy(&v, p, sizeof v); return v; }\n", w, w, tw, w);
    put(b, "#define gb_v%d_store(p, v) __builtin_memcpy((p), &(v), sizeof(v))\n", w);
    if (pl->dtype == GB_DTYPE_F32) {
        put(b, "#define gb_v%d_load_b gb_v%d_load\n", w, w);
    } else {
        const int u8 = pl->dtype == GB_DTYPE_U8S8;
        put(b, "typedef %s gb_n%d __attribute__((vector_size(%d * GB_PW(%d))));\n",
            type_b(pl), w, u8 ? 1 : 2, w);
        put(b, "typedef %s gb_u%d __attribute__((vector_size(4 * GB_PW(%d))));\n",
            u8 ? "int" : "unsigned int", w, w);
        put(b, "static inline gb_v%d gb_v%d_load_b(const %s *p) { gb_n%d n; gb_v%d v; "
               "__builtin_memcpy(&n, p, sizeof n); ", w, w, type_b(pl), w, w);
        if (u8)
            put(b, "v = __builtin_convertvector(n, gb_u%d); return v; }\n", w);
        else
            put(b, "gb_u%d u = __builtin_convertvector(n, gb_u%d) << 16; "
                   "__builtin_memcpy(&v, &u, sizeof v); return v; }\n", w, w);
    }
    put(b, "#endif\n");
}

char *gb_sched_lower(const gb_sched_plan *pl, const char *symbol)
{
    const gb_sched_shape *sh = pl->sh;
    sbuf b = { malloc(8192), 0, 8192, 0, 0 };
    emitter e;

    if (b.text == NULL)
        return NULL;
    e.pl = pl;
    e.b = &b;
    e.mode = EITHER;
    e.dot_bk = 0;
    put(&b, "/* generated by the gemmbench schedule language for M=%d N=%d K=%d */\n", sh->M,
        sh->N, sh->K);
    /* Guarded, so that kernels of several shapes can share one file. */
    put(&b, "#ifndef GB_SCHED_PREAMBLE\n#define GB_SCHED_PREAMBLE\n");
    put(&b, "#include <stddef.h>\n#include <omp.h>\n\n");
    /* gb_ctx of include/gemmbench.h, field for field (variant.c asserts
     * that the two layouts agree) */
    put(&b, "typedef struct gb_params gb_params;\n");
    put(&b, "typedef struct gb_ctx { int nthreads; const gb_params *params; void *state; "
            "char *why; size_t whylen; } gb_ctx;\n\n");
    put(&b, "static inline int gb_min(int a, int b) { return a < b ? a : b; }\n");
    /* the widest vector of the target (the flags say -march=native) */
    put(&b, "#if defined(__AVX512F__)\n#define GB_NL 16\n#elif defined(__AVX__)\n"
            "#define GB_NL 8\n#else\n#define GB_NL 4\n#endif\n");
    put(&b, "#define GB_PW(w) ((w) < GB_NL ? (w) : GB_NL) /* lanes of one piece */\n");
    put(&b, "#define GB_NP(w) ((w) / GB_PW(w))             /* pieces of w lanes */\n#endif\n");
    emit_type_helpers(&b, pl);
    emit_tile_helpers(&b, pl);
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
    if (pl->no_jam || pl->dot)
        put(&b, "#if defined(__GNUC__) && !defined(__clang__)\n"
                "__attribute__((optimize(%s%s%s)))\n#endif\n",
            pl->no_jam ? "\"no-loop-unroll-and-jam\"" : "", pl->no_jam && pl->dot ? ", " : "",
            pl->dot ? "\"no-tree-ch\", \"no-tree-dominator-opts\"" : "");
    /* _tile_loadconfig is an inline function of the amx-tile target */
    if (pl->tiles && !gb_sched_tiles_emulated())
        put(&b, "__attribute__((target(\"amx-tile,amx-bf16,amx-int8\")))\n");
    put(&b,
        "int %s(int M, int N, int K, const %s *restrict A, int lda, const %s *restrict "
        "B, int ldb, %s *restrict C, int ldc, const gb_ctx *ctx)\n{\n",
        symbol, type_a(pl), type_b(pl), type_w(pl));
    b.indent = 1;
    line(&b, "const int nthreads = ctx->nthreads;");
    line(&b, "if (M != %d || N != %d || K != %d)", sh->M, sh->N, sh->K);
    line(&b, "    return -1;");
    line(&b, "(void)nthreads, (void)lda, (void)ldb;");
    if (pl->pack_floats[0] || pl->pack_floats[1]) {
        line(&b, "float *scratch = (float *)ctx->state;");
        line(&b, "if (scratch == NULL)");
        line(&b, "    return -1;");
    }
    if (pl->pack_floats[0])
        line(&b, "%s *restrict pa%s = (%s *)scratch;", type_pack(pl, 0),
             pl->pack_per_thread[0] ? "_all" : "", type_pack(pl, 0));
    if (pl->pack_floats[1])
        line(&b, "%s *restrict pb%s = (%s *)(scratch + (size_t)%ld * %s);", type_pack(pl, 1),
             pl->pack_per_thread[1] ? "_all" : "", type_pack(pl, 1), pl->pack_floats[0],
             pl->pack_per_thread[0] ? "nthreads" : "1");
    if (pl->team) {
        line(&b, "#pragma omp parallel num_threads(nthreads)");
        line(&b, "{");
        b.indent++;
    }
    if (pl->tiles && pl->s->parallel < 0)
        emit_tiles_begin(&e);
    emit_body(&e, GB_SCHED_ROOT);
    if (pl->tiles && pl->s->parallel < 0)
        line(&b, "GB_TILES_END();");
    if (pl->team)
        close_loop(&e);
    line(&b, "return 0;");
    put(&b, "}\n");
    if (b.failed) {
        free(b.text);
        return NULL;
    }
    return b.text;
}
