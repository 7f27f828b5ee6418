/*
 * amx.c - the amx variant: bf16 and u8s8 GEMM on AMX's tiles (TDPBF16PS,
 * TDPBUSD), C accumulated in tiles over all of K and stored once.  The
 * driver is portable C: the plan (the tile configuration per shape), the
 * packing and the loops; the tile operations are amx_tiles.h's, the
 * instructions on a CPU with AMX, an emulation of them in the tests.  The
 * design, and what was and was not verified where, is schedules/AMX.md.
 *
 * Tiles (amx.h: amx_plan): C tiles of rows x cols (at most 16 x 16 fp32
 * or int32: 16 rows of 64 bytes), A tiles of rows x kg 32-bit groups of k
 * (16 x 32 bf16, or 16 x 64 u8), B tiles of kg rows x cols groups in the
 * pair / quad layout.  A block of C is 2 x 2 tiles:
 *
 *                B tile 6       B tile 7      <- kg groups of k x 16 columns
 *   A tile 4 -->  C tile 0       C tile 1
 *   A tile 5 -->  C tile 2       C tile 3
 *
 * 4 loads and 4 dot products per k step (each dot product is 16 x 16 x 32
 * bf16 or 16 x 16 x 64 int8 multiply-adds), all 8 tiles in use; when M
 * fits one tile (BERT's M = 16), 1 x 3: A tile 3, B tiles 4-6, C tiles
 * 0-2, so that no dot product runs on zero rows.
 *
 * Loops, per thread on its cell of a tm x tn grid over the blocks:
 *   jr: a block column (nt B panels: kg x cols per k step, all of K:
 *       at most 3072 x 32 bf16, 192 KiB, in L2 across ...)
 *     ir: ... every block row of the cell (mt A strips, all of K)
 *       C tiles zeroed
 *       k: one step of kg groups: mt A tiles, nt B tiles, mt x nt TDP*
 *       C tiles stored: in place when whole, through a scratch tile at
 *       the edges (the rows and columns that exist copied out)
 * No kc blocking: AMX's C tiles hold the block over all of K, and A's and
 * B's k steps stream from L2.
 *
 * Packing (amx.h's layouts): A and B into whole tile images, zero-padded,
 * so every tile is loaded whole and there is one kernel, no edge variant.
 * A is packed too (not read in place) because a k step past K would read
 * beyond A's rows.  In one parallel region: A's strips, then B's panels
 * (unless prepare() packed B: --prepack), shared by the threads, then the
 * blocks.
 *
 * The tiles may be used only where the CPU has them and Linux granted the
 * process their state (amx_tiles_available, asked once per process); the
 * variant is otherwise skipped with the reason, never run.
 *
 * Learnt from: Intel's SDM and its AMX sample (the tile configuration,
 * the VNNI layout of B), oneDNN's brgemm on AMX (C accumulated in tiles
 * over K, 2 x 2 blocks of tiles, the tiles' shapes per M tail), BLIS (the
 * loops' names, packing that pads so the kernel sees only whole tiles).
 */
#include "amx.h"

#include "amx_tiles.h"
#include "gemmbench.h"

#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Packed buffers on a cache line: a tile's row of 64 bytes is one line. */
#define AMX_ALIGN 64
/* A C tile's bytes: 16 rows of 64 (fp32 or int32 of 16 columns). */
#define C_TILE_BYTES (AMX_MAX_ROWS * AMX_MAX_COLSB)

/* The test hook (amx_force_emulated): read at prepare and at a call
 * without prepare's state, never while a call runs. */
static int force_emulated;

void amx_force_emulated(int on)
{
    force_emulated = on != 0;
}

static long ceil_div(long a, long b)
{
    return (a + b - 1) / b;
}

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

/* ---- the plan ----------------------------------------------------------------- */

/* Each tile's rows and bytes per row in the block layout l: C rows x cols
 * groups, A rows x kg groups, B kg x cols groups (4 bytes a group). */
static void configure_tiles(amx_plan *p)
{
    const amx_layout l = p->layout;

    memset(&p->cfg, 0, sizeof p->cfg);
    p->cfg.palette = 1;
    for (int i = 0; i < l.mt; i++) {
        for (int j = 0; j < l.nt; j++) {
            p->cfg.rows[amx_tile_c(l, i, j)] = (uint8_t)p->rows;
            p->cfg.colsb[amx_tile_c(l, i, j)] = (uint16_t)(4 * p->cols);
        }
        p->cfg.rows[amx_tile_a(l, i)] = (uint8_t)p->rows;
        p->cfg.colsb[amx_tile_a(l, i)] = (uint16_t)(4 * p->kg);
    }
    for (int j = 0; j < l.nt; j++) {
        p->cfg.rows[amx_tile_b(l, j)] = (uint8_t)p->kg;
        p->cfg.colsb[amx_tile_b(l, j)] = (uint16_t)(4 * p->cols);
    }
}

void amx_plan_shape(gb_dtype t, int M, int N, int K, int nthreads, amx_plan *p)
{
    const int max_groups = AMX_MAX_COLSB / 4;
    long best = -1;

    memset(p, 0, sizeof *p);
    p->type = t;
    p->group = t == GB_DTYPE_BF16 ? 2 : 4;
    /* 1 x 3 when M fits one tile's rows: 2 x 2 would run half its dot
     * products on zero rows. */
    p->layout = M <= AMX_MAX_ROWS ? amx_layouts[1] : amx_layouts[0];
    p->rows = min_int(M, AMX_MAX_ROWS);
    p->cols = min_int(N, max_groups);
    p->kg = (int)(ceil_div(K, p->group) < max_groups ? ceil_div(K, p->group) : max_groups);
    p->strips = (int)ceil_div(M, p->rows);
    p->panels = (int)ceil_div(N, p->cols);
    p->ksteps = (int)ceil_div(ceil_div(K, p->group), p->kg);
    configure_tiles(p);

    /* Threads: the tm x tn grid whose busiest cell has the fewest blocks;
     * among equals the most columns of threads (each packs nothing extra:
     * A and B are packed once, shared). */
    p->nthreads = nthreads > 0 ? nthreads : 1;
    {
        const long rb = ceil_div(p->strips, p->layout.mt), cb = ceil_div(p->panels, p->layout.nt);
        for (int tm = 1; tm <= p->nthreads; tm++) {
            const int tn = p->nthreads / tm;
            long busiest;
            if (tm * tn != p->nthreads)
                continue;
            busiest = ceil_div(rb, tm) * ceil_div(cb, tn);
            if (best < 0 || busiest < best) {
                best = busiest;
                p->tm = tm;
                p->tn = tn;
            }
        }
    }
}

/* ---- packing ------------------------------------------------------------------ */

static size_t a_image_bytes(const amx_plan *p)
{
    return (size_t)p->rows * p->kg * 4;
}

static size_t b_image_bytes(const amx_plan *p)
{
    return (size_t)p->kg * p->cols * 4;
}

size_t amx_packed_a_bytes(const amx_plan *p)
{
    return (size_t)p->strips * p->ksteps * a_image_bytes(p);
}

size_t amx_packed_b_bytes(const amx_plan *p)
{
    return (size_t)p->panels * p->ksteps * b_image_bytes(p);
}

size_t amx_a_tile_offset(const amx_plan *p, int strip, int kstep)
{
    return ((size_t)strip * p->ksteps + kstep) * a_image_bytes(p);
}

size_t amx_b_tile_offset(const amx_plan *p, int panel, int kstep)
{
    return ((size_t)panel * p->ksteps + kstep) * b_image_bytes(p);
}

/* A's rows are copied as they lie (a tile row is kg groups of k, in k's
 * order), the k past K and the rows past M zero. */
void amx_pack_a(const amx_plan *p, int M, int K, const void *A, long lda, int s0, int s1,
                uint8_t *dst)
{
    const size_t es = gb_dtype_size_a(p->type);
    const int step_k = p->kg * p->group;

    for (int s = s0; s < s1; s++)
        for (int q = 0; q < p->ksteps; q++) {
            uint8_t *image = dst + amx_a_tile_offset(p, s, q);
            const int k0 = q * step_k, kn = K - k0 < step_k ? K - k0 : step_k;
            for (int r = 0; r < p->rows; r++) {
                const int m = s * p->rows + r;
                uint8_t *row = image + (size_t)r * p->kg * 4;
                const int copied = m < M ? kn : 0;
                if (copied > 0)
                    memcpy(row, (const uint8_t *)A + ((size_t)m * lda + k0) * es, copied * es);
                memset(row + copied * es, 0, (size_t)(step_k - copied) * es);
            }
        }
}

/* B's k rows are read along (each line of B once): k's element i of a
 * group goes to element i of the column's 32-bit word (a bf16's half, an
 * int8's byte).  The images are 4-byte aligned, the words' halves 2. */
void amx_pack_b(const amx_plan *p, int N, int K, const void *B, long ldb, int p0, int p1,
                uint8_t *dst)
{
    for (int pn = p0; pn < p1; pn++)
        for (int q = 0; q < p->ksteps; q++) {
            uint8_t *image = dst + amx_b_tile_offset(p, pn, q);
            const int n0 = pn * p->cols, n = N - n0 < p->cols ? N - n0 : p->cols;
            memset(image, 0, b_image_bytes(p));
            for (int g = 0; g < p->kg; g++)
                for (int i = 0; i < p->group; i++) {
                    const int k = (q * p->kg + g) * p->group + i;
                    uint8_t *row = image + (size_t)g * p->cols * 4;
                    if (k >= K)
                        break;
                    if (p->type == GB_DTYPE_BF16) {
                        const gb_bf16 *src = (const gb_bf16 *)B + (size_t)k * ldb + n0;
                        gb_bf16 *half = (gb_bf16 *)row + i;
                        for (int j = 0; j < n; j++)
                            half[2 * j] = src[j];
                    } else {
                        const uint8_t *src = (const uint8_t *)B + (size_t)k * ldb + n0;
                        uint8_t *byte = row + i;
                        for (int j = 0; j < n; j++)
                            byte[4 * j] = src[j];
                    }
                }
        }
}

/* ---- the loops ---------------------------------------------------------------- */

/* One call's operands, packed, and where the tiles go. */
typedef struct amx_call {
    const amx_plan *p;
    const amx_tile_ops *ops;
    const uint8_t *a_packed, *b_packed;
    uint8_t *C;
    long ldc;
    int M, N;
} amx_call;

/* C tile (i, j) of block (bi, bj) to C: whole tiles in place; at the edges
 * the tile goes to scratch and the rows and columns that exist to C. */
static void store_c_tile(const amx_call *c, void *tiles, uint8_t *scratch, int bi, int bj, int i,
                         int j)
{
    const amx_plan *p = c->p;
    const int m0 = (bi * p->layout.mt + i) * p->rows, n0 = (bj * p->layout.nt + j) * p->cols;
    const int m = min_int(p->rows, c->M - m0), n = min_int(p->cols, c->N - n0);
    const int tile = amx_tile_c(p->layout, i, j);
    uint8_t *corner = c->C + ((size_t)m0 * c->ldc + n0) * 4;

    if (m == p->rows && n == p->cols) {
        c->ops->store(tiles, tile, corner, c->ldc * 4);
        return;
    }
    c->ops->store(tiles, tile, scratch, (long)p->cols * 4);
    for (int r = 0; r < m; r++)
        memcpy(corner + (size_t)r * c->ldc * 4, scratch + (size_t)r * p->cols * 4, (size_t)n * 4);
}

/* Block rows [bi0, bi1) x block columns [bj0, bj1) of C. */
static void run_cell(const amx_call *c, void *tiles, uint8_t *scratch, int bi0, int bi1, int bj0,
                     int bj1)
{
    const amx_plan *p = c->p;
    const amx_layout l = p->layout;

    /* jr: a block column, its nt B panels over all of K kept in L2 ... */
    for (int bj = bj0; bj < bj1; bj++) {
        const int nt = min_int(l.nt, p->panels - bj * l.nt);
        /* ir: ... while every block row of the cell streams past them */
        for (int bi = bi0; bi < bi1; bi++) {
            const int mt = min_int(l.mt, p->strips - bi * l.mt);
            for (int i = 0; i < mt; i++)
                for (int j = 0; j < nt; j++)
                    c->ops->zero(tiles, amx_tile_c(l, i, j));
            /* k: one step of kg groups, C accumulating in its tiles */
            for (int q = 0; q < p->ksteps; q++) {
                for (int i = 0; i < mt; i++)
                    c->ops->load(tiles, amx_tile_a(l, i),
                                 c->a_packed + amx_a_tile_offset(p, bi * l.mt + i, q),
                                 (long)p->kg * 4);
                for (int j = 0; j < nt; j++)
                    c->ops->load(tiles, amx_tile_b(l, j),
                                 c->b_packed + amx_b_tile_offset(p, bj * l.nt + j, q),
                                 (long)p->cols * 4);
                for (int i = 0; i < mt; i++)
                    for (int j = 0; j < nt; j++)
                        c->ops->dot(tiles, p->type, amx_tile_c(l, i, j), amx_tile_a(l, i),
                                    amx_tile_b(l, j));
            }
            for (int i = 0; i < mt; i++)
                for (int j = 0; j < nt; j++)
                    store_c_tile(c, tiles, scratch, bi, bj, i, j);
        }
    }
}

/* ---- state -------------------------------------------------------------------- */

typedef struct amx_state {
    amx_plan plan;
    const amx_tile_ops *ops;
    int M, N, K;
    uint8_t *a_packed;
    uint8_t *b_packed;       /* per call, or B packed by prepare() */
    int b_prepacked;
    uint8_t *per_thread;     /* each thread's tile file (emulated) and scratch C tile */
    size_t per_thread_bytes;
} amx_state;

static size_t round_up(size_t n)
{
    return (n + AMX_ALIGN - 1) / AMX_ALIGN * AMX_ALIGN;
}

static void *alloc_aligned(size_t n)
{
    return n == 0 ? NULL : aligned_alloc(AMX_ALIGN, round_up(n));
}

/* The ops a call runs on: the test hook's emulation, else the CPU's. */
static const amx_tile_ops *select_ops(void)
{
    if (force_emulated)
        return &amx_tiles_emulated;
#if defined(__x86_64__)
    return &amx_tiles_hardware;
#else
    return NULL;
#endif
}

/* Whether the tiles run type t here: the test hook, or the CPU and Linux. */
static int tiles_available(gb_dtype t, char *why, size_t whylen)
{
    char ignored[8];

    if (force_emulated)
        return 1;
    if (why == NULL || whylen == 0)
        return amx_tiles_available(t, ignored, sizeof ignored);
    return amx_tiles_available(t, why, whylen);
}

static void state_free(amx_state *s)
{
    free(s->a_packed);
    free(s->b_packed);
    free(s->per_thread);
}

/* Plans the call and allocates its buffers: 0, or -1 with why (when the
 * tiles are not available) or out of memory. */
static int state_init(amx_state *s, gb_dtype t, int M, int N, int K, const gb_ctx *ctx)
{
    memset(s, 0, sizeof *s);
    if (!tiles_available(t, ctx->why, ctx->whylen) || (s->ops = select_ops()) == NULL)
        return -1;
    amx_plan_shape(t, M, N, K, ctx->nthreads, &s->plan);
    s->M = M;
    s->N = N;
    s->K = K;
    s->per_thread_bytes = round_up(s->ops->state_bytes) + C_TILE_BYTES;
    s->a_packed = alloc_aligned(amx_packed_a_bytes(&s->plan));
    s->b_packed = alloc_aligned(amx_packed_b_bytes(&s->plan));
    s->per_thread = alloc_aligned(s->per_thread_bytes * (size_t)s->plan.nthreads);
    if (s->a_packed == NULL || s->b_packed == NULL || s->per_thread == NULL)
        return -1;
    return 0;
}

static void amx_release(void *state)
{
    if (state) {
        state_free(state);
        free(state);
    }
}

static int amx_prepare(gb_dtype t, int M, int N, int K, const void *B, int ldb,
                       const gb_ctx *ctx, int prepack, void **state)
{
    amx_state *s = malloc(sizeof *s);

    *state = NULL;
    if (s == NULL)
        return -1;
    if (state_init(s, t, M, N, K, ctx) != 0) {
        amx_release(s);
        return -1;
    }
    if (prepack) {
        amx_pack_b(&s->plan, N, K, B, ldb, 0, s->plan.panels, s->b_packed);
        s->b_prepacked = 1;
    }
    *state = s;
    return 0;
}

/* ---- the call ----------------------------------------------------------------- */

static int amx_run(gb_dtype t, int M, int N, int K, const void *A, int lda, const void *B,
                   int ldb, void *C, int ldc, const gb_ctx *ctx)
{
    amx_state local, *s = ctx->state;

    /* Without prepare()'s state (or for another shape or type): plan and
     * allocate here; B pre-packed for another shape cannot serve. */
    if (s == NULL || s->M != M || s->N != N || s->K != K || s->plan.type != t) {
        if (s != NULL && s->b_prepacked)
            return -1;
        s = &local;
        if (state_init(s, t, M, N, K, ctx) != 0) {
            state_free(s);
            return -1;
        }
    }

#pragma omp parallel num_threads(s->plan.nthreads)
    {
        const amx_plan *p = &s->plan;
        const int tid = omp_get_thread_num(), nt = omp_get_num_threads();
        const int rb = (int)ceil_div(p->strips, p->layout.mt);
        const int cb = (int)ceil_div(p->panels, p->layout.nt);
        uint8_t *mine = s->per_thread + (size_t)tid * s->per_thread_bytes;
        void *tiles = mine;
        uint8_t *scratch = mine + round_up(s->ops->state_bytes);
        const amx_call call = { p, s->ops, s->a_packed, s->b_packed, C, ldc, M, N };

        /* A's strips, then B's panels, shared (each barrier: omp for's) */
#pragma omp for schedule(static)
        for (int strip = 0; strip < p->strips; strip++)
            amx_pack_a(p, M, K, A, lda, strip, strip + 1, s->a_packed);
        if (!s->b_prepacked) {
#pragma omp for schedule(static)
            for (int panel = 0; panel < p->panels; panel++)
                amx_pack_b(p, N, K, B, ldb, panel, panel + 1, s->b_packed);
        }
        if (s->ops->state_bytes)
            memset(tiles, 0, s->ops->state_bytes);
        s->ops->configure(tiles, &p->cfg);
        /* Fewer threads than asked (nested or dynamic OpenMP): the grid's
         * extra cells go to the threads there are. */
        for (int cell = tid; cell < p->tm * p->tn; cell += nt) {
            const int ti = cell / p->tn, tj = cell % p->tn;
            run_cell(&call, tiles, scratch, (int)((long)rb * ti / p->tm),
                     (int)((long)rb * (ti + 1) / p->tm), (int)((long)cb * tj / p->tn),
                     (int)((long)cb * (tj + 1) / p->tn));
        }
        s->ops->release(tiles);
    }
    if (s == &local)
        state_free(s);
    return 0;
}

/* "amx_bf16" or "amx_int8" (the instructions' extensions), or the
 * emulation's "emulated_amx_..." under the test hook. */
static void amx_impl(gb_dtype t, const gb_ctx *ctx, char *buf, size_t len)
{
    const amx_state *s = ctx->state;
    const amx_tile_ops *ops = s != NULL ? s->ops : select_ops();

    if (len > 0)
        snprintf(buf, len, "%s_%s", ops ? ops->name : "amx", t == GB_DTYPE_BF16 ? "bf16" : "int8");
}

/* ---- the two types' entries --------------------------------------------------- */

static int bf16_run(int M, int N, int K, const void *A, int lda, const void *B, int ldb, void *C,
                    int ldc, const gb_ctx *ctx)
{
    return amx_run(GB_DTYPE_BF16, M, N, K, A, lda, B, ldb, C, ldc, ctx);
}

static int bf16_prepare(int M, int N, int K, const void *B, int ldb, const gb_ctx *ctx,
                        int prepack, void **state)
{
    return amx_prepare(GB_DTYPE_BF16, M, N, K, B, ldb, ctx, prepack, state);
}

static void bf16_impl(int M, int N, int K, const gb_ctx *ctx, char *buf, size_t len)
{
    (void)M, (void)N, (void)K;
    amx_impl(GB_DTYPE_BF16, ctx, buf, len);
}

static int bf16_available(char *why, size_t whylen)
{
    return tiles_available(GB_DTYPE_BF16, why, whylen);
}

static int u8s8_run(int M, int N, int K, const void *A, int lda, const void *B, int ldb, void *C,
                    int ldc, const gb_ctx *ctx)
{
    return amx_run(GB_DTYPE_U8S8, M, N, K, A, lda, B, ldb, C, ldc, ctx);
}

static int u8s8_prepare(int M, int N, int K, const void *B, int ldb, const gb_ctx *ctx,
                        int prepack, void **state)
{
    return amx_prepare(GB_DTYPE_U8S8, M, N, K, B, ldb, ctx, prepack, state);
}

static void u8s8_impl(int M, int N, int K, const gb_ctx *ctx, char *buf, size_t len)
{
    (void)M, (void)N, (void)K;
    amx_impl(GB_DTYPE_U8S8, ctx, buf, len);
}

static int u8s8_available(char *why, size_t whylen)
{
    return tiles_available(GB_DTYPE_U8S8, why, whylen);
}

static const gb_typed_kernel amx_bf16 = {
    .run = bf16_run,
    .prepare = bf16_prepare,
    .release = amx_release,
    .impl = bf16_impl,
    .available = bf16_available,
    .supports_prepack = 1,
};

static const gb_typed_kernel amx_u8s8 = {
    .run = u8s8_run,
    .prepare = u8s8_prepare,
    .release = amx_release,
    .impl = u8s8_impl,
    .available = u8s8_available,
    .supports_prepack = 1,
};

const gb_variant gb_variant_amx = {
    .name = "amx",
    .family = "amx",
    .description = "AMX tiles (tdpbf16ps, tdpbusd): 2x2 blocks of 16x16 C tiles summed over "
                   "all of K, A and B packed into tile images (B in pairs / quads of k); "
                   "on CPUs with AMX only",
    .run = NULL,
    .typed = { [GB_DTYPE_BF16] = &amx_bf16, [GB_DTYPE_U8S8] = &amx_u8s8 },
    .types_note = "AMX's tile dot products take bf16 and int8 (tdpbf16ps, tdpbusd), not f32",
};
