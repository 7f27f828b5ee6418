/* lower_runs.c - the parts of the lowering (SCHED.md, "Lowering", "Types",
 * "Tiles") that depend on the type: the packs' copies (widened, in groups
 * of k by shuffles, A's words), the dot form's row run (vdpbf16ps,
 * vpdpbusd), the run on AMX's tiles, and the helpers each type's C needs.
 * lower.c calls them from its walk over the nest; what they share is
 * lower.h. */
#include "lower.h"
#include "amx_tiles.h"

#include <stdio.h>
#include <string.h>

static void emit_pack_groups(emitter *e, const char *kbound, const char *idx, const char *src);
static void emit_pack_words_a(emitter *e, const char *kbound, const char *idx, const char *src);

/* The pack of operand op at a site: its dims' loops, copying.  In the dot
 * form the dot loop runs on to a whole group and the k past its bound is
 * zero (a product with it adds nothing); elsewhere each element is widened
 * as it is copied. */
void lw_emit_pack(emitter *e, int op)
{
    const plan *pl = e->pl;
    const gb_sched *s = pl->s;
    char idx[2048], src[2400], a[1024], b[1024], dot_bound[4096] = "";
    const char *name = op ? "pb" : "pa";

    lw_pack_index(pl, op, idx, sizeof idx);
    lw_axis_index(pl, op ? GB_AXIS_K : GB_AXIS_I, a, sizeof a);
    lw_axis_index(pl, op ? GB_AXIS_J : GB_AXIS_K, b, sizeof b);
    snprintf(src, sizeof src, "%s[(size_t)(%s) * %s + (%s)]", op ? "B" : "A", a,
             op ? "ldb" : "lda", b);
    if (pl->pack_per_thread[op])
        lw_line(e->b, "%s *restrict %s = %s_all + (size_t)%s * %ld;", lw_type_pack(pl, op),
             name, name, e->pool ? "gb_t" : "omp_get_thread_num()",
             pl->pack_floats[op] * pl->group);
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
        lw_bound_of(pl, l, bound, sizeof bound);
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
        if (d == 0 && (pl->pack_team[op] || (s->pack[op] == GB_SCHED_ROOT && pl->team))) {
            if (!e->serial)
                lw_line(e->b, "#pragma omp for schedule(static)");
        } else if (d == 0 && s->pack[op] == GB_SCHED_ROOT) {
            if (!e->serial)
                lw_line(e->b, "#pragma omp parallel for num_threads(nthreads) schedule(static)");
        } else if (d == pl->npack[op] - 1) /* a copy: its innermost loop is SIMD */
            lw_line(e->b, "#pragma omp simd");
        if (l == pl->dot_loop) {
            snprintf(dot_bound, sizeof dot_bound, "%s", bound);
            lw_line(e->b, "for (int l_%s = 0; l_%s < (%s + %d) / %d * %d; l_%s++) {",
                 s->loops[l].name, s->loops[l].name, bound, pl->group - 1, pl->group, pl->group,
                 s->loops[l].name);
        } else {
            lw_line(e->b, "for (int l_%s = 0; l_%s < %s; l_%s++) {", s->loops[l].name,
                 s->loops[l].name, bound, s->loops[l].name);
        }
        e->b->indent++;
    }
    if (groups16 || words_a) {
        for (int d = 0; d < pl->npack[op] - 2; d++)
            lw_close_loop(e);
        return;
    }
    if (dot_bound[0] != '\0') {
        lw_line(e->b, "%s[%s] = l_%s < %s ? %s : 0;", name, idx, s->loops[pl->dot_loop].name,
             dot_bound, src);
    } else {
        char w[2600];
        lw_widened(pl, op, src, w, sizeof w);
        lw_line(e->b, "%s[%s] = %s;", name, idx, w);
    }
    for (int d = 0; d < pl->npack[op]; d++)
        lw_close_loop(e);
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

    lw_bound_of(pl, s->vectorize, jbound, sizeof jbound);
    lw_line(e->b, "for (int l_%s = 0; l_%s < %s; l_%s += %d) {", kk, kk, kbound, kk, g);
    e->b->indent++;
    lw_line(e->b, "const int gb_rows = %s - l_%s;", kbound, kk);
    lw_line(e->b, "for (int l_%s = 0; l_%s < %s; l_%s += 16) {", jv, jv, jbound, jv);
    e->b->indent++;
    lw_line(e->b, "if (gb_rows >= %d && l_%s + 16 <= %s) {", g, jv, jbound);
    lw_line(e->b, "    gb_pack16(&pb[%s], &%s, ldb);", idx, src);
    lw_line(e->b, "    continue;");
    lw_line(e->b, "}");
    lw_line(e->b, "const int gb_cols = gb_min(16, %s - l_%s);", jbound, jv);
    lw_line(e->b, "for (int gb_g = 0; gb_g < %d; gb_g++)", g);
    lw_line(e->b, "    for (int gb_j = 0; gb_j < gb_cols; gb_j++)");
    lw_line(e->b, "        (&pb[%s])[gb_j * %d + gb_g] = gb_g < gb_rows ? (&%s)[(size_t)gb_g * ldb + "
               "gb_j] : 0;", idx, g, src);
    lw_close_loop(e);
    lw_close_loop(e);
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

    lw_bound_of(pl, rows, rbound, sizeof rbound);
    lw_line(e->b, "for (int l_%s = 0; l_%s < %s; l_%s += %d) {", kk, kk, kbound, kk, g);
    e->b->indent++;
    lw_line(e->b, "const int gb_part = gb_min(%d, %s - l_%s);", g, kbound, kk);
    lw_line(e->b, "for (int l_%s = 0; l_%s < %s; l_%s++) {", ii, ii, rbound, ii);
    e->b->indent++;
    lw_line(e->b, "const int gb_w = gb_part == %d ? gb_word(&%s) : gb_word_part(&%s, gb_part);", g,
         src, src);
    lw_line(e->b, "__builtin_memcpy(&pa[%s], &gb_w, 4);", idx);
    lw_close_loop(e);
    lw_close_loop(e);
}

/* The rows run in the dot form (plan.h): rows x lanes sums in 512-bit
 * vectors (lanes / 16 a row), the one k loop stepping a group at a time;
 * per step B's group of each 16 columns is one 64-byte load from its
 * pack (16 words of `group` k), each row's group of A one 32-bit word
 * broadcast, and each sum takes the group's products in one vdpbf16ps or
 * vpdpbusd.  The k past the dot loop's bound is zero in the packs; A read
 * in place stops at the last whole group and reads the rest into a word
 * whose high bytes are zero (gb_word_part), never past its row. */
void lw_emit_rows_run_dot(emitter *e, int p, int lanes)
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
    char t[4096], bword[2048], aref[4096], bound[4096], bsrc[2400];

    /* The sums are named variables, one per row and piece, and the rows
     * are written out, so that nothing depends on GCC's unrolling.  (The
     * spills GCC 12 made here are header copying's: see no_tree_ch.) */
    lw_target(pl, t, sizeof t);
    lw_pack_word(pl, 1, bword, sizeof bword);
    lw_source(pl, 1, bsrc, sizeof bsrc);
    if (a_in_place)
        lw_source(pl, 0, aref, sizeof aref);
    else {
        char w[2048];
        lw_pack_word(pl, 0, w, sizeof w);
        snprintf(aref, sizeof aref, "pa[(size_t)(%s) * %d]", w, g);
    }
    lw_bound_of(pl, pl->dot_loop, bound, sizeof bound);
    lw_line(e->b, "const int l_%s = 0;", s->loops[s->vectorize].name);
    for (int row = 0; row < pl->rows; row++) {
        char names[96] = "";
        for (int q = 0; q < np; q++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%sacc%d_%d",
                     q ? ", " : "", row, q);
        lw_line(e->b, "%s %s;", vt, names);
        lw_line(e->b, "{");
        e->b->indent++;
        lw_line(e->b, "const int l_%s = %d;", r, row);
        for (int q = 0; q < np; q++) {
            if (zero)
                lw_line(e->b, "acc%d_%d = %s;", row, q, zero_v);
            else if (pl->fold_init)
                lw_line(e->b, "acc%d_%d = gb_first ? %s : %s(&%s + %d);", row, q, zero_v, load_c, t,
                     16 * q);
            else
                lw_line(e->b, "acc%d_%d = %s(&%s + %d);", row, q, load_c, t, 16 * q);
        }
        lw_line(e->b, "(void)l_%s;", r);
        lw_close_loop(e);
    }
    /* whole groups, then (A in place) the part of the last one */
    lw_line(e->b, "const int gb_kend = %s;", bound);
    if (split_last)
        lw_line(e->b, "const int gb_kwhole = gb_kend / %d * %d;", g, g);
    else
        lw_line(e->b, "const int gb_kwhole = gb_kend;");
    lw_line(e->b, "int l_%s = 0;", kk);
    lw_line(e->b, "%s *gb_bk = pb + (size_t)(%s) * %d;", lw_type_b(pl), bword, g);
    for (int part = 0; part < 1 + split_last; part++) {
        if (part == 0)
            lw_line(e->b, "for (; l_%s < gb_kwhole; l_%s += %d, gb_bk += %ld) {", kk, kk, g,
                 lw_dot_step_words(pl) * g);
        else
            lw_line(e->b, "if (l_%s < gb_kend) {", kk);
        e->b->indent++;
        if (part == 0) {
            e->dot_bk = 1;
            lw_emit_prefetches(e, pl->dot_loop);
            e->dot_bk = 0;
        }
        for (int q = 0; q < np; q++) {
            if (!b_copy) {
                lw_line(e->b, "const __m512i bv%d = _mm512_loadu_si512((const void *)(gb_bk + %d));",
                     q, 64 / lw_elem_bytes(pl, 1) * q);
                continue;
            }
            if (part == 0)
                lw_line(e->b, "const __m512i bv%d = gb_group16(&%s + %d, ldb);", q, bsrc, 16 * q);
            else
                lw_line(e->b, "const __m512i bv%d = gb_group16_part(&%s + %d, ldb, gb_kend - l_%s);",
                     q, bsrc, 16 * q, kk);
            lw_line(e->b, "_mm512_storeu_si512((void *)(gb_bk + %d), bv%d);",
                 64 / lw_elem_bytes(pl, 1) * q, q);
        }
        for (int row = 0; row < pl->rows; row++) {
            lw_line(e->b, "{");
            e->b->indent++;
            lw_line(e->b, "const int l_%s = %d;", r, row);
            lw_emit_prefetches(e, pl->rows_loop);
            if (part == 0 || !a_in_place)
                lw_line(e->b, "const __m512i a = _mm512_set1_epi32(gb_word(&%s));", aref);
            else
                lw_line(e->b, "const __m512i a = _mm512_set1_epi32(gb_word_part(&%s, gb_kend - "
                           "l_%s));", aref, kk);
            for (int q = 0; q < np; q++)
                if (u8)
                    lw_line(e->b, "acc%d_%d = _mm512_dpbusd_epi32(acc%d_%d, a, bv%d);", row, q, row,
                         q, q);
                else
                    lw_line(e->b, "acc%d_%d = _mm512_dpbf16_ps(acc%d_%d, (__m512bh)a, "
                               "(__m512bh)bv%d);", row, q, row, q, q);
            lw_line(e->b, "(void)l_%s;", r);
            lw_close_loop(e);
        }
        lw_close_loop(e);
    }
    for (int row = 0; row < pl->rows; row++) {
        lw_line(e->b, "{");
        e->b->indent++;
        lw_line(e->b, "const int l_%s = %d;", r, row);
        for (int q = 0; q < np; q++)
            lw_line(e->b, "%s(&%s + %d, acc%d_%d);", store_c, t, 16 * q, row, q);
        lw_line(e->b, "(void)l_%s;", r);
        lw_close_loop(e);
    }
}

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
void lw_emit_tile_helpers(sbuf *b, const plan *pl)
{
    const char *tag = gb_dtype_name(pl->dtype);

    if (!pl->tiles)
        return;
    if (gb_sched_tiles_emulated()) {
        lw_put(b, "#ifndef GB_TILES_EMULATED\n#define GB_TILES_EMULATED\n");
        /* amx_tile_ops of schedules/amx_tiles.h, field for field */
        lw_put(b, "typedef struct gb_tile_ops { const char *name; size_t state_bytes; "
               "void (*configure)(void *, const void *); void (*zero)(void *, int); "
               "void (*load)(void *, int, const void *, long); "
               "void (*store)(void *, int, void *, long); "
               "void (*dot)(void *, int, int, int, int); void (*release)(void *); } "
               "gb_tile_ops;\n");
        lw_put(b, "__attribute__((visibility(\"default\"))) const gb_tile_ops *gb_tile_ops_emulated;\n");
        lw_put(b, "#define GB_TILES_BEGIN(cfg) unsigned char gb_tstate[%zu] "
               "__attribute__((aligned(64))) = { 0 }; gb_tile_ops_emulated->configure(gb_tstate, "
               "cfg)\n", amx_tiles_emulated_any.state_bytes);
        lw_put(b, "#define GB_TILES_END() gb_tile_ops_emulated->release(gb_tstate)\n");
        lw_put(b, "#define GB_TZERO(t) gb_tile_ops_emulated->zero(gb_tstate, t)\n");
        lw_put(b, "#define GB_TLOAD(t, p, s) gb_tile_ops_emulated->load(gb_tstate, t, p, s)\n");
        lw_put(b, "#define GB_TSTORE(t, p, s) gb_tile_ops_emulated->store(gb_tstate, t, p, s)\n");
        lw_put(b, "#endif\n");
        lw_put(b, "#ifndef GB_TDOT_%s\n#define GB_TDOT_%s(c, a, b) gb_tile_ops_emulated->dot("
               "gb_tstate, %d, c, a, b)\n#endif\n", tag, tag, (int)pl->dtype);
        return;
    }
    lw_put(b, "#ifndef GB_TILES_HARDWARE\n#define GB_TILES_HARDWARE\n#include <immintrin.h>\n");
    lw_put(b, "#define GB_TILES_BEGIN(cfg) _tile_loadconfig(cfg)\n");
    lw_put(b, "#define GB_TILES_END() _tile_release()\n");
    lw_put(b, "#define GB_TZERO(t) _tile_zero(t)\n");
    lw_put(b, "#define GB_TLOAD(t, p, s) _tile_loadd(t, p, s)\n");
    lw_put(b, "#define GB_TSTORE(t, p, s) _tile_stored(t, p, s)\n#endif\n");
    lw_put(b, "#ifndef GB_TDOT_%s\n#define GB_TDOT_%s(c, a, b) %s(c, a, b)\n#endif\n", tag, tag,
        pl->dtype == GB_DTYPE_BF16 ? "_tile_dpbf16ps" : "_tile_dpbusd");
}

/* LDTILECFG's 64 bytes for the run's tiles (palette 1, start row 0, each
 * tile's bytes a row as 16 bits, then its rows), a constant of the
 * kernel, and the tiles configured for the thread: first in the body of
 * the parallel loop (or of the kernel), released at its end. */
void lw_emit_tiles_begin(emitter *e)
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
    lw_put(e->b, "%*sstatic const unsigned char gb_tcfg[64] __attribute__((aligned(64))) = { 1, 0",
        4 * e->b->indent, "");
    for (int t = 0; t < 14; t++)
        lw_put(e->b, ", 0");
    for (int t = 0; t < 16; t++)
        lw_put(e->b, ", %d, %d", t < GB_SCHED_TILES ? colsb[t] & 255 : 0,
            t < GB_SCHED_TILES ? colsb[t] >> 8 : 0);
    for (int t = 0; t < 16; t++)
        lw_put(e->b, ", %d", t < GB_SCHED_TILES ? rows[t] : 0);
    lw_put(e->b, " };\n");
    lw_line(e->b, "GB_TILES_BEGIN(gb_tcfg);");
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
void lw_emit_tile_run(emitter *e, int p)
{
    const plan *pl = e->pl;
    const gb_sched *s = pl->s;
    const int zero = p == pl->init_at;
    const int g = pl->group, depth = GB_SCHED_TILE_ROWS * g;
    const char *tag = gb_dtype_name(pl->dtype), *kk = s->loops[pl->dot_loop].name;
    char t[2048], aref[2048], bword[2048], bound[4096];

    lw_target(pl, t, sizeof t);
    lw_source(pl, 0, aref, sizeof aref);
    lw_pack_word(pl, 1, bword, sizeof bword);
    lw_bound_of(pl, pl->dot_loop, bound, sizeof bound);
    lw_line(e->b, "const int l_%s = 0, l_%s = 0;", s->loops[s->vectorize].name,
         s->loops[pl->rows_loop].name);
    lw_line(e->b, "int l_%s = 0;", kk);
    lw_line(e->b, "__atomic_signal_fence(__ATOMIC_SEQ_CST);");
    for (int i = 0; i < pl->tile_mt; i++)
        for (int j = 0; j < pl->tile_nt; j++) {
            char at[2200];
            snprintf(at, sizeof at, "&%s + (size_t)%d * ldc + %d", t, 16 * i, 16 * j);
            if (zero)
                lw_line(e->b, "GB_TZERO(%d);", tile_c(pl, i, j));
            else if (pl->fold_init)
                lw_line(e->b, "if (gb_first) GB_TZERO(%d); else GB_TLOAD(%d, %s, (long)ldc * 4);",
                     tile_c(pl, i, j), tile_c(pl, i, j), at);
            else
                lw_line(e->b, "GB_TLOAD(%d, %s, (long)ldc * 4);", tile_c(pl, i, j), at);
        }
    lw_line(e->b, "const %s *gb_bk = pb + (size_t)(%s) * %d;", lw_type_b(pl), bword, g);
    lw_line(e->b, "for (const int gb_kend = %s; l_%s < gb_kend; l_%s += %d, gb_bk += %ld) {", bound,
         kk, kk, depth, lw_dot_step_words(pl) * depth);
    e->b->indent++;
    for (int i = 0; i < pl->tile_mt; i++)
        lw_line(e->b, "GB_TLOAD(%d, &%s + (size_t)%d * lda, (long)lda * %d);", tile_a(pl, i), aref,
             16 * i, lw_elem_bytes(pl, 0));
    for (int j = 0; j < pl->tile_nt; j++)
        lw_line(e->b, "GB_TLOAD(%d, gb_bk + %d, %ld);", tile_b(pl, j), 16 * g * j,
             lw_dot_step_words(pl) * 4);
    for (int i = 0; i < pl->tile_mt; i++)
        for (int j = 0; j < pl->tile_nt; j++)
            lw_line(e->b, "GB_TDOT_%s(%d, %d, %d);", tag, tile_c(pl, i, j), tile_a(pl, i),
                 tile_b(pl, j));
    lw_close_loop(e);
    for (int i = 0; i < pl->tile_mt; i++)
        for (int j = 0; j < pl->tile_nt; j++)
            lw_line(e->b, "GB_TSTORE(%d, &%s + (size_t)%d * ldc + %d, (long)ldc * 4);",
                 tile_c(pl, i, j), t, 16 * i, 16 * j);
    lw_line(e->b, "__atomic_signal_fence(__ATOMIC_SEQ_CST);");
}

/* What the kernel's type needs, each guarded so that kernels of several
 * shapes and types can share one file: the register run's vectors of the
 * accumulator's type and their loads (gb_vW_load_b widens B's elements as
 * it loads them: a bf16 is the f32 of its bits above 16 zero bits, exact;
 * an s8 sign-extends), bf16's scalar widening, and the dot form's 32-bit
 * group loads (memcpy: A's groups need not be aligned). */
void lw_emit_type_helpers(sbuf *b, const plan *pl)
{
    const int w = pl->vec_width;
    const char *tw = lw_type_w(pl), *tag = gb_dtype_name(pl->dtype);

    if (pl->dtype == GB_DTYPE_BF16)
        lw_put(b, "#ifndef GB_BF16_WIDE\n#define GB_BF16_WIDE\n"
               "static inline float gb_bf16_wide(unsigned short x) { unsigned int u = "
               "(unsigned int)x << 16; float f; __builtin_memcpy(&f, &u, 4); return f; }\n"
               "#endif\n");
    if (pl->dot)
        lw_put(b, "#ifndef GB_WORD_%s\n#define GB_WORD_%s\n#include <immintrin.h>\n"
               "static inline int gb_word(const %s *p) { int w; __builtin_memcpy(&w, p, 4); "
               "return w; }\n"
               "static inline int gb_word_part(const %s *p, int n) { int w = 0; "
               "__builtin_memcpy(&w, p, (unsigned)n * sizeof *p); return w; }\n",
            tag, tag, lw_type_a(pl), lw_type_a(pl));
    if (pl->dot) {
        /* 16 columns of `group` rows of B (ld elements apart) as 16 words,
         * column j's k in order in word j: element j * group + r of the
         * result is element r * 16 + j of the rows side by side */
        const int g = pl->group;
        lw_put(b, "typedef %s gb_row64 __attribute__((vector_size(64)));\n", lw_type_b(pl));
        lw_put(b, "typedef %s gb_idx64 __attribute__((vector_size(64)));\n",
            g == 4 ? "unsigned char" : "unsigned short");
        /* the rows into one vector by inserts (a copy through memory,
         * 16-byte stores read back as 64 bytes, stalls store forwarding) */
        lw_put(b, "static inline __m512i gb_group16(const %s *src, long ld) { ", lw_type_b(pl));
        if (g == 4)
            lw_put(b, "__m512i w = _mm512_castsi128_si512(_mm_loadu_si128((const void *)src)); "
                   "w = _mm512_inserti32x4(w, _mm_loadu_si128((const void *)(src + ld)), 1); "
                   "w = _mm512_inserti32x4(w, _mm_loadu_si128((const void *)(src + 2 * ld)), 2); "
                   "w = _mm512_inserti32x4(w, _mm_loadu_si128((const void *)(src + 3 * ld)), 3); ");
        else
            lw_put(b, "__m512i w = _mm512_castsi256_si512(_mm256_loadu_si256((const void *)src)); "
                   "w = _mm512_inserti64x4(w, _mm256_loadu_si256((const void *)(src + ld)), 1); ");
        lw_put(b, "gb_row64 v = (gb_row64)w; const gb_idx64 m = {");
        for (int j = 0; j < 16; j++)
            for (int r = 0; r < g; r++)
                lw_put(b, "%s%d", j || r ? "," : " ", r * 16 + j);
        lw_put(b, " }; v = __builtin_shuffle(v, m); return (__m512i)v; }\n");
        lw_put(b, "static inline void gb_pack16(%s *dst, const %s *src, long ld) { "
               "_mm512_storeu_si512((void *)dst, gb_group16(src, ld)); }\n", lw_type_b(pl),
            lw_type_b(pl));
        /* the last group's rows that exist, the rest zero */
        lw_put(b, "static inline __m512i gb_group16_part(const %s *src, long ld, int rows) { "
               "%s t[%d] = { 0 }; for (int r = 0; r < rows; r++) __builtin_memcpy(t + r * 16, "
               "src + r * ld, sizeof t / %d); return gb_group16(t, 16); }\n", lw_type_b(pl),
            lw_type_b(pl), 16 * g, g);
    }
    if (pl->dot)
        lw_put(b, "#endif\n");
    if (w == 0 || pl->dot)
        return;
    lw_put(b, "#ifndef GB_V%d_%s\n#define GB_V%d_%s\n", w, tag, w, tag);
    lw_put(b, "typedef %s gb_v%d __attribute__((vector_size(4 * GB_PW(%d))));\n", tw, w, w);
    lw_put(b, "static inline gb_v%d gb_v%d_load(const %s *p) { gb_v%d v; "
           "__builtin_memcpy(&v, p, sizeof v); return v; }\n", w, w, tw, w);
    lw_put(b, "#define gb_v%d_store(p, v) __builtin_memcpy((p), &(v), sizeof(v))\n", w);
    if (pl->dtype == GB_DTYPE_F32) {
        lw_put(b, "#define gb_v%d_load_b gb_v%d_load\n", w, w);
    } else {
        const int u8 = pl->dtype == GB_DTYPE_U8S8;
        lw_put(b, "typedef %s gb_n%d __attribute__((vector_size(%d * GB_PW(%d))));\n",
            lw_type_b(pl), w, u8 ? 1 : 2, w);
        lw_put(b, "typedef %s gb_u%d __attribute__((vector_size(4 * GB_PW(%d))));\n",
            u8 ? "int" : "unsigned int", w, w);
        lw_put(b, "static inline gb_v%d gb_v%d_load_b(const %s *p) { gb_n%d n; gb_v%d v; "
               "__builtin_memcpy(&n, p, sizeof n); ", w, w, lw_type_b(pl), w, w);
        if (u8)
            lw_put(b, "v = __builtin_convertvector(n, gb_u%d); return v; }\n", w);
        else
            lw_put(b, "gb_u%d u = __builtin_convertvector(n, gb_u%d) << 16; "
                   "__builtin_memcpy(&v, &u, sizeof v); return v; }\n", w, w);
    }
    lw_put(b, "#endif\n");
}
