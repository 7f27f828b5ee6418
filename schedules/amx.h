/*
 * amx.h - the amx variant's plan and packing (amx.c), for its tests: the
 * tile configuration a shape gets, the packed layouts of A and B, and the
 * hook that runs the driver on emulated tiles (amx_tiles.h).
 */
#ifndef GB_AMX_H
#define GB_AMX_H

#include <stddef.h>
#include <stdint.h>

#include "amx_tiles.h"
#include "gemmbench.h"

/*
 * One shape's tiles.  Every C tile is rows x cols (fp32 or int32), every
 * A tile rows x kg 32-bit groups of k, every B tile kg rows x cols groups:
 *   rows = min(16, M), cols = min(16, N), kg = min(16, K's groups),
 * so a small shape's tiles are only as large as it is (TDP* does a tile's
 * rows, so M = 5 costs 5 rows, not 16) and the tiles' shapes agree as the
 * instructions require.  Blocks of layout.mt x layout.nt C tiles:
 * 2 x 2 (32 x 32 of C, all 8 tiles), or 1 x 3 when M fits one tile.
 */
typedef struct amx_plan {
    gb_dtype type;
    int group;          /* k per 32-bit group: 2 (bf16) or 4 (u8s8) */
    amx_layout layout;
    int rows, cols, kg;
    int strips;         /* A's strips of rows rows: ceil(M / rows) */
    int panels;         /* B's panels of cols columns: ceil(N / cols) */
    int ksteps;         /* K in steps of kg groups */
    int tm, tn;         /* threads' grid over the blocks */
    int nthreads;
    amx_tilecfg cfg;
} amx_plan;

/* The plan of type t (bf16 or u8s8) for M x N x K on nthreads threads. */
void amx_plan_shape(gb_dtype t, int M, int N, int K, int nthreads, amx_plan *p);

/*
 * Packed layouts, every tile's image contiguous and zero-padded (rows past
 * M, columns past N, k past K), so that every tile is loaded whole:
 *   A: [strip][kstep] images of rows x kg groups (row stride kg 4 bytes),
 *      row r's group g = A[strip rows + r][(kstep kg + g) group + 0..group-1];
 *   B: [panel][kstep] images of kg x cols groups (row stride cols 4 bytes),
 *      row g's group j = B[(kstep kg + g) group + 0..group-1][panel cols + j],
 *      k ascending from the group's low bytes: Intel's "VNNI" layout, pairs
 *      of bf16 (k even in the low half) or quads of int8 (k in byte 0).
 */
size_t amx_packed_a_bytes(const amx_plan *p);
size_t amx_packed_b_bytes(const amx_plan *p);
/* The offsets of a tile's image in the packed operands. */
size_t amx_a_tile_offset(const amx_plan *p, int strip, int kstep);
size_t amx_b_tile_offset(const amx_plan *p, int panel, int kstep);
/* Strips [s0, s1) of A (M x K, row stride lda elements) into dst. */
void amx_pack_a(const amx_plan *p, int M, int K, const void *A, long lda, int s0, int s1,
                uint8_t *dst);
/* Panels [p0, p1) of B (K x N, row stride ldb elements) into dst. */
void amx_pack_b(const amx_plan *p, int N, int K, const void *B, long ldb, int p0, int p1,
                uint8_t *dst);

/* The test hook: on != 0 makes every later prepare and call run on
 * amx_tiles_emulated, and the types available, whatever the CPU has.
 * Not for use while a call runs. */
void amx_force_emulated(int on);

#endif
