/*
 * amx_tiles.h - AMX's tile operations behind one small interface, for the
 * amx variant's driver (amx.c), with two implementations:
 *   amx_tiles_hardware  the instructions, through GCC's intrinsics
 *                       (amx_tiles_x86.c, built with -mamx-tile -mamx-bf16
 *                       -mamx-int8; x86-64 only);
 *   amx_tiles_emulated  the same semantics in plain C on tiles held in
 *                       memory (amx_tiles_emulated.c), so that the driver
 *                       runs end to end, and is checked, on a CPU without
 *                       AMX (tests/unit/test_amx.c).
 * The driver does not know which one it calls: only the ops differ.
 *
 * The tiles (Intel's SDM, vol. 1 ch. 18, palette 1): 8 registers tmm0-7 of
 * at most 16 rows of 64 bytes, each configured by LDTILECFG with its own
 * rows and bytes per row (colsb); a row past rows, or a byte past colsb,
 * reads as zero.  TDPBF16PS and TDPBUSD multiply an A tile (M rows x K
 * groups of 32 bits) by a B tile (K rows of N groups: B's "VNNI" layout,
 * pairs of bf16 or quads of bytes of k per 32-bit word) into a C tile (M
 * rows x N fp32 or int32), and fault (#UD) unless the shapes agree:
 * A.rows = C.rows, B.colsb = C.colsb, A.colsb = 4 B.rows, three distinct
 * tiles.  The emulation checks each rule the hardware would fault on.
 */
#ifndef GB_AMX_TILES_H
#define GB_AMX_TILES_H

#include <stddef.h>
#include <stdint.h>

#include "gemmbench.h"

#define AMX_TILES 8      /* palette 1's registers */
#define AMX_MAX_ROWS 16  /* palette 1: rows per tile */
#define AMX_MAX_COLSB 64 /* palette 1: bytes per row */

/* LDTILECFG's 64-byte operand (SDM, "Tile configuration"): palette 1,
 * start_row 0, then per tile its bytes per row and its rows; tiles 8-15
 * and the reserved bytes must be zero. */
typedef struct amx_tilecfg {
    uint8_t palette;
    uint8_t start_row;
    uint8_t reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} amx_tilecfg;

_Static_assert(sizeof(amx_tilecfg) == 64, "LDTILECFG reads 64 bytes");

/*
 * The dot products are named by their three tiles.  Every instruction
 * names its registers, so the hardware ops can issue only the triples they
 * were written for: those of the block layouts below, C tiles first (row
 * by row), then the A tiles, then the B tiles.  Layout mt x nt:
 *     C(i, j) = i nt + j,  A(i) = mt nt + i,  B(j) = mt nt + mt + j
 *   2 x 2: C 0 1 / 2 3, A 4 5, B 6 7   (32 x 32 of C; all 8 tiles)
 *   1 x 3: C 0 1 2, A 3, B 4 5 6       (16 x 48 of C; M <= 16)
 */
typedef struct amx_layout {
    int mt, nt; /* C tiles per block: mt rows x nt columns of tiles */
} amx_layout;

extern const amx_layout amx_layouts[];
extern const int amx_layout_count;

static inline int amx_tile_c(amx_layout l, int i, int j)
{
    return i * l.nt + j;
}
static inline int amx_tile_a(amx_layout l, int i)
{
    return l.mt * l.nt + i;
}
static inline int amx_tile_b(amx_layout l, int j)
{
    return l.mt * l.nt + l.mt + j;
}

/* 1 when (c, a, b) is a dot product of one of amx_layouts' blocks. */
int amx_dot_known(int c, int a, int b);

/* The operations, each one instruction.  state: the thread's tile file
 * (state_bytes of it, zeroed, 64-byte aligned; the hardware keeps its own
 * and needs none).  A thread configures before its first tile operation
 * and releases after its last; tiles are per thread. */
typedef struct amx_tile_ops {
    const char *name;    /* the impl's prefix: "amx" or "emulated_amx" */
    size_t state_bytes;
    void (*configure)(void *state, const amx_tilecfg *cfg);       /* LDTILECFG */
    void (*zero)(void *state, int tile);                          /* TILEZERO */
    void (*load)(void *state, int tile, const void *base, long stride); /* TILELOADD */
    void (*store)(void *state, int tile, void *base, long stride);      /* TILESTORED */
    /* TDPBF16PS (bf16) or TDPBUSD (u8s8: A unsigned, B signed): C += A . B */
    void (*dot)(void *state, gb_dtype type, int c, int a, int b);
    void (*release)(void *state);                                 /* TILERELEASE */
} amx_tile_ops;

extern const amx_tile_ops amx_tiles_emulated;
/* The same emulation with any three distinct tiles as a dot product: the
 * code the schedule language generates names its tiles as constants, so
 * the hardware issues every triple it writes (src/sched/SCHED.md,
 * "Tiles"; the language's test hook). */
extern const amx_tile_ops amx_tiles_emulated_any;
#if defined(__x86_64__)
extern const amx_tile_ops amx_tiles_hardware;
#endif

/* The first fault of an emulated tile file (the rule the hardware would
 * have raised #GP or #UD on), or NULL; after one, the file ignores every
 * operation, as the faulting thread would not have gone on. */
const char *amx_emulated_fault(const void *state);

/* Whether this CPU, this build and the OS run type t on the tiles: 1, or 0
 * with the reason in why.  The CPU's bits (cpuid leaf 7 EDX: 24 amx_tile,
 * 22 amx_bf16, 25 amx_int8) and XSAVE's enabling of the tile state (XCR0
 * bits 17, 18) are read first; only when they are there is Linux asked,
 * once per process, for the tile data (arch_prctl(ARCH_REQ_XCOMP_PERM,
 * XFEATURE_XTILEDATA)), and its refusal is the reason. */
int amx_tiles_available(gb_dtype t, char *why, size_t whylen);

#endif
