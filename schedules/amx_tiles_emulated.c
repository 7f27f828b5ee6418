/*
 * amx_tiles_emulated.c - AMX's tile operations in plain C (amx_tiles.h):
 * the tile file in memory, each operation as Intel's SDM states it
 * (vol. 2, LDTILECFG, TILELOADD, TILESTORED, TILEZERO, TDPBF16PS,
 * TDPBUSD, TILERELEASE), and the rules the hardware faults on checked.
 * It is how the amx driver (amx.c) is tested on a CPU without AMX: the
 * same loops, packing and tile configuration, with these ops in place of
 * the instructions (tests/unit/test_amx.c).  Also the block layouts'
 * table, which both implementations share.
 */
#include "amx_tiles.h"

#include <stdio.h>
#include <string.h>

const amx_layout amx_layouts[] = { { 2, 2 }, { 1, 3 } };
const int amx_layout_count = (int)(sizeof amx_layouts / sizeof amx_layouts[0]);

int amx_dot_known(int c, int a, int b)
{
    for (int l = 0; l < amx_layout_count; l++)
        for (int i = 0; i < amx_layouts[l].mt; i++)
            for (int j = 0; j < amx_layouts[l].nt; j++)
                if (c == amx_tile_c(amx_layouts[l], i, j) && a == amx_tile_a(amx_layouts[l], i) &&
                    b == amx_tile_b(amx_layouts[l], j))
                    return 1;
    return 0;
}

/* One thread's tiles, as the registers hold them: the configuration, and
 * 16 rows of 64 bytes per tile whatever it says (the bytes past a tile's
 * shape stay zero). */
typedef struct emulated_tiles {
    amx_tilecfg cfg;
    int configured;
    const char *fault;
    uint8_t tile[AMX_TILES][AMX_MAX_ROWS][AMX_MAX_COLSB];
} emulated_tiles;

static void fault(emulated_tiles *s, const char *why)
{
    if (s->fault == NULL)
        s->fault = why;
}

/* A tile an operation may name: configured, with rows and bytes. */
static int usable_tile(emulated_tiles *s, int t)
{
    if (s->fault)
        return 0;
    if (!s->configured) {
        fault(s, "#UD: a tile operation before LDTILECFG");
        return 0;
    }
    if (t < 0 || t >= AMX_TILES || s->cfg.rows[t] == 0 || s->cfg.colsb[t] == 0) {
        fault(s, "#UD: a tile that the configuration leaves empty");
        return 0;
    }
    return 1;
}

/* LDTILECFG: #GP unless palette 1 (or 0, which releases), start_row 0,
 * reserved bytes zero, every tile at most 16 rows of at most 64 bytes,
 * rows and colsb both zero or both not, tiles 8-15 empty.  Loading zeroes
 * every tile. */
static void emulated_configure(void *state, const amx_tilecfg *cfg)
{
    emulated_tiles *s = state;
    static const uint8_t zeros[14];

    if (s->fault)
        return;
    if (cfg->palette == 0) {
        memset(s->tile, 0, sizeof s->tile);
        s->configured = 0;
        return;
    }
    if (cfg->palette != 1 || cfg->start_row != 0 || memcmp(cfg->reserved, zeros, sizeof zeros)) {
        fault(s, "#GP: LDTILECFG: palette not 1, start_row not 0 or reserved bytes set");
        return;
    }
    for (int t = 0; t < 16; t++) {
        const int rows = cfg->rows[t], colsb = cfg->colsb[t];
        if (t >= AMX_TILES ? rows || colsb
                           : rows > AMX_MAX_ROWS || colsb > AMX_MAX_COLSB || !rows != !colsb) {
            fault(s, "#GP: LDTILECFG: a tile beyond 16 rows of 64 bytes, half configured, "
                     "or beyond tmm7");
            return;
        }
    }
    s->cfg = *cfg;
    s->configured = 1;
    memset(s->tile, 0, sizeof s->tile);
}

static void emulated_zero(void *state, int t)
{
    emulated_tiles *s = state;

    if (usable_tile(s, t))
        memset(s->tile[t], 0, sizeof s->tile[t]);
}

/* TILELOADD: rows rows of colsb bytes, stride bytes apart; the rest zero. */
static void emulated_load(void *state, int t, const void *base, long stride)
{
    emulated_tiles *s = state;

    if (!usable_tile(s, t))
        return;
    memset(s->tile[t], 0, sizeof s->tile[t]);
    for (int r = 0; r < s->cfg.rows[t]; r++)
        memcpy(s->tile[t][r], (const uint8_t *)base + r * stride, s->cfg.colsb[t]);
}

/* TILESTORED: rows rows of colsb bytes; nothing else is written. */
static void emulated_store(void *state, int t, void *base, long stride)
{
    emulated_tiles *s = state;

    if (!usable_tile(s, t))
        return;
    for (int r = 0; r < s->cfg.rows[t]; r++)
        memcpy((uint8_t *)base + r * stride, s->tile[t][r], s->cfg.colsb[t]);
}

/* A bf16's value as TDPBF16PS reads it: denormals as zero (DAZ). */
static float bf16_daz(uint16_t h)
{
    if ((h & 0x7F80u) == 0)
        h &= 0x8000u;
    return gb_bf16_to_float(h);
}

/*
 * TDPBF16PS / TDPBUSD, C[m][n] += sum over A's 32-bit groups k of
 *   bf16: A[m].bf16[2k] B[k].bf16[2n] + A[m].bf16[2k+1] B[k].bf16[2n+1],
 *         in fp32, the even product first; every product of two bf16 is
 *         exact in fp32, so on integer inputs any order gives C exactly;
 *   u8s8: the four u8(A[m].byte[4k+i]) x s8(B[k].byte[4n+i]), added to the
 *         int32 wrapping (no saturation).
 * #UD unless A.rows = C.rows, B.colsb = C.colsb, A.colsb = 4 B.rows, the
 * three tiles distinct; and here, a triple the hardware ops do not issue.
 */
static void dot_of(void *state, gb_dtype type, int c, int a, int b, int layouts_only)
{
    emulated_tiles *s = state;
    const amx_tilecfg *k = &s->cfg;

    if (!usable_tile(s, c) || !usable_tile(s, a) || !usable_tile(s, b))
        return;
    if (c == a || c == b || a == b || k->rows[a] != k->rows[c] || k->colsb[b] != k->colsb[c] ||
        k->colsb[a] != 4 * k->rows[b] || k->colsb[c] % 4 != 0) {
        fault(s, "#UD: TDP*: the tiles' shapes disagree, or a tile named twice");
        return;
    }
    if (layouts_only && !amx_dot_known(c, a, b)) {
        fault(s, "a dot product of no block layout: amx_tiles_hardware cannot issue it");
        return;
    }
    if (type != GB_DTYPE_BF16 && type != GB_DTYPE_U8S8) {
        fault(s, "#UD: no tile dot product of this type");
        return;
    }
    for (int m = 0; m < k->rows[c]; m++)
        for (int n = 0; n < k->colsb[c] / 4; n++) {
            uint8_t *cw = s->tile[c][m] + 4 * n;
            for (int g = 0; g < k->colsb[a] / 4; g++) {
                const uint8_t *aw = s->tile[a][m] + 4 * g, *bw = s->tile[b][g] + 4 * n;
                if (type == GB_DTYPE_BF16) {
                    uint16_t ah[2], bh[2];
                    float acc;
                    memcpy(ah, aw, sizeof ah);
                    memcpy(bh, bw, sizeof bh);
                    memcpy(&acc, cw, sizeof acc);
                    acc += bf16_daz(ah[0]) * bf16_daz(bh[0]);
                    acc += bf16_daz(ah[1]) * bf16_daz(bh[1]);
                    memcpy(cw, &acc, sizeof acc);
                } else {
                    uint32_t acc;
                    memcpy(&acc, cw, sizeof acc);
                    for (int i = 0; i < 4; i++)
                        acc += (uint32_t)((int32_t)aw[i] * (int32_t)(int8_t)bw[i]);
                    memcpy(cw, &acc, sizeof acc);
                }
            }
        }
}

static void emulated_dot(void *state, gb_dtype type, int c, int a, int b)
{
    dot_of(state, type, c, a, b, 1);
}

static void emulated_dot_any(void *state, gb_dtype type, int c, int a, int b)
{
    dot_of(state, type, c, a, b, 0);
}

/* TILERELEASE: the tiles back to their initial state, unconfigured. */
static void emulated_release(void *state)
{
    emulated_tiles *s = state;

    memset(s->tile, 0, sizeof s->tile);
    memset(&s->cfg, 0, sizeof s->cfg);
    s->configured = 0;
}

const char *amx_emulated_fault(const void *state)
{
    return ((const emulated_tiles *)state)->fault;
}

/* The two tables differ only in the dot product's check of the triple. */
#define EMULATED_OPS(dot_fn)                                                                 \
    {                                                                                        \
        .name = "emulated_amx", .state_bytes = sizeof(emulated_tiles),                       \
        .configure = emulated_configure, .zero = emulated_zero, .load = emulated_load,       \
        .store = emulated_store, .dot = (dot_fn), .release = emulated_release,               \
    }

const amx_tile_ops amx_tiles_emulated = EMULATED_OPS(emulated_dot);
const amx_tile_ops amx_tiles_emulated_any = EMULATED_OPS(emulated_dot_any);
