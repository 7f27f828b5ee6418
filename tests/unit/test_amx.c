/*
 * test_amx.c - the amx variant (schedules/amx.c) without AMX: the tile
 * configuration per shape against palette 1's limits and the instructions'
 * shape rules, the packed layouts on Intel's figures (B's pairs and quads
 * of k), the emulated tile operations against the SDM's semantics and
 * faults, and the whole driver run on emulated tiles (amx_force_emulated),
 * exact against a 64-bit integer reference on shapes that are multiples of
 * no tile and on BERT's.  What this cannot show is the instructions'
 * speed, or that the CPU agrees with the emulation (schedules/AMX.md).
 *
 * Inputs: bf16 integers in [-64, 64] (every sum exact in fp32 while
 * K x 64 x 64 <= 2^24: K <= 4096), u8 over 0..255 and s8 over -128..127
 * (exact in int32): the result must equal the reference bit for bit.
 */
#include "test.h"

#include "amx.h"
#include "amx_tiles.h"
#include "gemmbench.h"
#include "variants.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#define PAD_A 3
#define PAD_B 5
#define PAD_C 2
#define C_SENTINEL_F -12345.5f
#define C_SENTINEL_I 0x5A5A5A5A
#define BF16_NAN 0x7FC1

extern const gb_variant gb_variant_amx;

static unsigned lcg(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return *state >> 8;
}

/* ---- the tile configuration per shape ------------------------------------------ */

/* Palette 1's limits and TDP*'s shape rules for every dot product the plan's
 * layout issues; the block's tiles are distinct and all within tmm0-7. */
static void check_plan(gb_dtype t, int M, int N, int K, int threads)
{
    amx_plan p;
    const amx_tilecfg *c = &p.cfg;
    int used[16] = { 0 };
    char what[120];

    amx_plan_shape(t, M, N, K, threads, &p);
    snprintf(what, sizeof what, "%s %dx%dx%d", gb_dtype_name(t), M, N, K);
    CHECK(c->palette == 1 && c->start_row == 0);
    for (int i = 0; i < 14; i++)
        CHECK(c->reserved[i] == 0);
    for (int tile = 0; tile < 16; tile++) {
        CHECK(c->rows[tile] <= AMX_MAX_ROWS && c->colsb[tile] <= AMX_MAX_COLSB);
        CHECK(!c->rows[tile] == !c->colsb[tile]);
        if (tile >= AMX_TILES)
            CHECK(c->rows[tile] == 0);
    }
    CHECK(p.rows == (M < 16 ? M : 16) && p.cols == (N < 16 ? N : 16));
    CHECK(p.kg == ((K + p.group - 1) / p.group < 16 ? (K + p.group - 1) / p.group : 16));
    CHECK((long)p.strips * p.rows >= M && (long)(p.strips - 1) * p.rows < M);
    CHECK((long)p.panels * p.cols >= N && (long)(p.panels - 1) * p.cols < N);
    CHECK((long)p.ksteps * p.kg * p.group >= K && (long)(p.ksteps - 1) * p.kg * p.group < K);
    CHECK(p.tm * p.tn == threads);
    for (int i = 0; i < p.layout.mt; i++)
        for (int j = 0; j < p.layout.nt; j++) {
            const int ct = amx_tile_c(p.layout, i, j), at = amx_tile_a(p.layout, i),
                      bt = amx_tile_b(p.layout, j);
            CHECK(ct < AMX_TILES && at < AMX_TILES && bt < AMX_TILES);
            used[ct] = used[at] = used[bt] = 1;
            CHECK(amx_dot_known(ct, at, bt));
            if (c->rows[at] != c->rows[ct] || c->colsb[bt] != c->colsb[ct] ||
                c->colsb[at] != 4 * c->rows[bt])
                gb_test_fail(__FILE__, __LINE__, what);
        }
    for (int tile = 0; tile < AMX_TILES; tile++)
        CHECK(used[tile] == (c->rows[tile] != 0)); /* configured exactly the tiles used */
}

TEST(amx_tile_configuration_per_shape)
{
    static const int shapes[][3] = {
        { 17, 37, 45 }, { 16, 768, 768 }, { 64, 2304, 768 }, { 256, 3072, 768 },
        { 384, 768, 3072 }, { 1, 1, 1 },  { 5, 7, 3 },       { 33, 15, 129 },
        { 16, 16, 32 }, { 32, 32, 64 },   { 100, 383, 7 },
    };
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int t = GB_DTYPE_BF16; t <= GB_DTYPE_U8S8; t++)
            for (int threads = 1; threads <= 4; threads++)
                check_plan((gb_dtype)t, shapes[s][0], shapes[s][1], shapes[s][2], threads);
}

/* Intel's figures for palette 1: a full tile is 16 rows of 64 bytes, so a
 * bf16 step is 16 x 16 x 32 (A 16 x 32 bf16, B 16 pairs x 16 columns) and
 * an int8 step 16 x 16 x 64; the 2 x 2 block uses all 8 tiles. */
TEST(amx_full_tiles_on_intels_figures)
{
    amx_plan p;

    amx_plan_shape(GB_DTYPE_BF16, 64, 768, 768, 1, &p);
    CHECK_EQ_INT(p.layout.mt, 2);
    CHECK_EQ_INT(p.layout.nt, 2);
    CHECK_EQ_INT(p.kg * p.group, 32); /* k per step */
    for (int tile = 0; tile < 8; tile++)
        CHECK(p.cfg.rows[tile] == 16 && p.cfg.colsb[tile] == 64);
    CHECK_EQ_INT(p.ksteps, 768 / 32);
    amx_plan_shape(GB_DTYPE_U8S8, 64, 768, 768, 1, &p);
    CHECK_EQ_INT(p.kg * p.group, 64);
    CHECK_EQ_INT(p.ksteps, 768 / 64);
    /* M = 16 (BERT's smallest): one strip, 1 x 3 blocks, tile 7 unused */
    amx_plan_shape(GB_DTYPE_BF16, 16, 768, 768, 2, &p);
    CHECK_EQ_INT(p.layout.mt, 1);
    CHECK_EQ_INT(p.layout.nt, 3);
    CHECK(p.cfg.rows[7] == 0 && p.cfg.colsb[7] == 0);
    CHECK(p.tm == 1 && p.tn == 2); /* 16 blocks of 48 columns split by columns */
    /* a small shape's tiles are only as large as it is */
    amx_plan_shape(GB_DTYPE_U8S8, 5, 7, 3, 1, &p);
    CHECK(p.rows == 5 && p.cols == 7 && p.kg == 1);
    CHECK(p.cfg.colsb[amx_tile_a(p.layout, 0)] == 4 && p.cfg.rows[amx_tile_b(p.layout, 0)] == 1);
}

/* ---- the packed layouts ---------------------------------------------------------- */

/* B in the VNNI layout, as Intel's figure draws it for bf16 (K x N into
 * K/2 rows of N pairs: row g, column j holds B[2g][j], B[2g+1][j], the even
 * k in the low half) and int8 (K/4 rows of N quads, k in byte 0); k past K
 * and columns past N zero. */
TEST(amx_b_layout_pairs_and_quads)
{
    enum { K = 45, N = 37 };
    static uint16_t Bh[K][N];
    static int8_t Bq[K][N];
    amx_plan p;
    uint8_t *dst;
    unsigned state = 3;

    for (int k = 0; k < K; k++)
        for (int j = 0; j < N; j++) {
            Bh[k][j] = (uint16_t)lcg(&state);
            Bq[k][j] = (int8_t)lcg(&state);
        }
    amx_plan_shape(GB_DTYPE_BF16, 17, N, K, 1, &p);
    dst = malloc(amx_packed_b_bytes(&p));
    CHECK(dst != NULL);
    if (dst == NULL)
        return;
    amx_pack_b(&p, N, K, Bh, N, 0, p.panels, dst);
    for (int k = 0; k < p.ksteps * p.kg * 2; k++)
        for (int j = 0; j < p.panels * p.cols; j++) {
            const int q = k / (p.kg * 2), g = (k / 2) % p.kg, panel = j / p.cols;
            uint16_t got;
            memcpy(&got, dst + amx_b_tile_offset(&p, panel, q) + (size_t)g * p.cols * 4 +
                             (size_t)(j % p.cols) * 4 + (k % 2) * 2,
                   2);
            CHECK(got == (k < K && j < N ? Bh[k][j] : 0));
        }
    free(dst);
    amx_plan_shape(GB_DTYPE_U8S8, 17, N, K, 1, &p);
    dst = malloc(amx_packed_b_bytes(&p));
    CHECK(dst != NULL);
    if (dst == NULL)
        return;
    amx_pack_b(&p, N, K, Bq, N, 0, p.panels, dst);
    for (int k = 0; k < p.ksteps * p.kg * 4; k++)
        for (int j = 0; j < p.panels * p.cols; j++) {
            const int q = k / (p.kg * 4), g = (k / 4) % p.kg, panel = j / p.cols;
            const int8_t got = (int8_t)dst[amx_b_tile_offset(&p, panel, q) +
                                           (size_t)g * p.cols * 4 + (size_t)(j % p.cols) * 4 +
                                           k % 4];
            CHECK(got == (k < K && j < N ? Bq[k][j] : 0));
        }
    free(dst);
}

/* A's tiles: row r of strip s, k step q, holds A's row s rows + r at k from
 * q kg group on, as it lies; rows past M and k past K zero. */
TEST(amx_a_layout_rows_as_they_lie)
{
    enum { M = 17, K = 45, LDA = 50 };
    static uint8_t A[M][LDA];
    amx_plan p;
    uint8_t *dst;
    unsigned state = 5;

    for (int i = 0; i < M; i++)
        for (int k = 0; k < LDA; k++)
            A[i][k] = k < K ? (uint8_t)lcg(&state) : 0xEE;
    amx_plan_shape(GB_DTYPE_U8S8, M, 37, K, 1, &p);
    dst = malloc(amx_packed_a_bytes(&p));
    CHECK(dst != NULL);
    if (dst == NULL)
        return;
    amx_pack_a(&p, M, K, A, LDA, 0, p.strips, dst);
    for (int i = 0; i < p.strips * p.rows; i++)
        for (int k = 0; k < p.ksteps * p.kg * 4; k++) {
            const int q = k / (p.kg * 4);
            const uint8_t got = dst[amx_a_tile_offset(&p, i / p.rows, q) +
                                    (size_t)(i % p.rows) * p.kg * 4 + k % (p.kg * 4)];
            CHECK(got == (i < M && k < K ? A[i][k] : 0));
        }
    free(dst);
}

/* ---- the emulated operations ------------------------------------------------------- */

static void *new_tiles(void)
{
    return calloc(1, amx_tiles_emulated.state_bytes);
}

/* TDPBUSD on one 2 x 2 block's tiles 0, 4, 6: C[m][n] += the four
 * u8 x s8 products of each of A's groups with B's row of that group,
 * wrapping in int32; a load past the configured shape reads zeros; a
 * store writes only rows x colsb. */
TEST(amx_emulated_tdpbusd_on_the_sdm)
{
    amx_tilecfg cfg = { .palette = 1 };
    void *tiles = new_tiles();
    uint8_t a[3][8];
    int8_t b[2][12];
    int32_t c[3][4];
    unsigned state = 9;

    CHECK(tiles != NULL);
    if (tiles == NULL)
        return;
    /* C 3 x 3 int32, A 3 rows x 2 groups, B 2 rows x 3 groups */
    cfg.rows[0] = 3, cfg.colsb[0] = 12;
    cfg.rows[4] = 3, cfg.colsb[4] = 8;
    cfg.rows[6] = 2, cfg.colsb[6] = 12;
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 8; k++)
            a[i][k] = (uint8_t)lcg(&state);
    for (int g = 0; g < 2; g++)
        for (int k = 0; k < 12; k++)
            b[g][k] = (int8_t)lcg(&state);
    memset(c, 0x77, sizeof c);
    amx_tiles_emulated.configure(tiles, &cfg);
    amx_tiles_emulated.zero(tiles, 0);
    amx_tiles_emulated.load(tiles, 4, a, sizeof a[0]);
    amx_tiles_emulated.load(tiles, 6, b, sizeof b[0]);
    amx_tiles_emulated.dot(tiles, GB_DTYPE_U8S8, 0, 4, 6);
    amx_tiles_emulated.dot(tiles, GB_DTYPE_U8S8, 0, 4, 6); /* accumulates */
    amx_tiles_emulated.store(tiles, 0, c, sizeof c[0]);
    CHECK(amx_emulated_fault(tiles) == NULL);
    for (int m = 0; m < 3; m++) {
        for (int n = 0; n < 3; n++) {
            int32_t want = 0;
            for (int k = 0; k < 8; k++)
                want += a[m][k] * b[k / 4][4 * n + k % 4];
            CHECK(c[m][n] == 2 * want);
        }
        CHECK(c[m][3] == 0x77777777); /* past colsb: untouched */
    }
    amx_tiles_emulated.release(tiles);
    free(tiles);
}

/* TDPBF16PS: pairs of bf16, fp32 sums; a denormal bf16 reads as zero. */
TEST(amx_emulated_tdpbf16ps_on_the_sdm)
{
    amx_tilecfg cfg = { .palette = 1 };
    void *tiles = new_tiles();
    uint16_t a[2][4], b[2][4];
    float c[2][2];

    CHECK(tiles != NULL);
    if (tiles == NULL)
        return;
    /* C 2 x 2 fp32 (tile 0), A 2 rows x 2 pairs (4), B 2 pairs x 2 (6) */
    cfg.rows[0] = 2, cfg.colsb[0] = 8;
    cfg.rows[4] = 2, cfg.colsb[4] = 8;
    cfg.rows[6] = 2, cfg.colsb[6] = 8;
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 4; k++) {
            a[i][k] = gb_bf16_from_float((float)(i + 2 * k - 3));
            b[k / 2][2 * i + k % 2] = gb_bf16_from_float((float)(5 - k * i)); /* B[k][i] */
        }
    a[1][3] = 0x0001; /* a denormal: zero */
    amx_tiles_emulated.configure(tiles, &cfg);
    amx_tiles_emulated.zero(tiles, 0);
    amx_tiles_emulated.load(tiles, 4, a, sizeof a[0]);
    amx_tiles_emulated.load(tiles, 6, b, sizeof b[0]);
    amx_tiles_emulated.dot(tiles, GB_DTYPE_BF16, 0, 4, 6);
    amx_tiles_emulated.store(tiles, 0, c, sizeof c[0]);
    CHECK(amx_emulated_fault(tiles) == NULL);
    for (int m = 0; m < 2; m++)
        for (int n = 0; n < 2; n++) {
            float want = 0.0f;
            for (int k = 0; k < 4; k++)
                if (!(m == 1 && k == 3))
                    want += gb_bf16_to_float(a[m][k]) * gb_bf16_to_float(b[k / 2][2 * n + k % 2]);
            CHECK(c[m][n] == want);
        }
    free(tiles);
}

/* What the hardware faults on, the emulation refuses and names: a
 * configuration past 16 x 64, shapes that disagree, an unconfigured tile,
 * a triple the hardware ops do not issue. */
TEST(amx_emulated_faults_where_the_cpu_would)
{
    amx_tilecfg cfg = { .palette = 1 };
    void *tiles = new_tiles();

    CHECK(tiles != NULL);
    if (tiles == NULL)
        return;
    cfg.rows[0] = 17, cfg.colsb[0] = 64;
    amx_tiles_emulated.configure(tiles, &cfg);
    CHECK(amx_emulated_fault(tiles) != NULL);

    memset(tiles, 0, amx_tiles_emulated.state_bytes);
    cfg.rows[0] = 16, cfg.colsb[0] = 64;
    cfg.rows[4] = 15, cfg.colsb[4] = 64; /* A.rows != C.rows */
    cfg.rows[6] = 16, cfg.colsb[6] = 64;
    amx_tiles_emulated.configure(tiles, &cfg);
    CHECK(amx_emulated_fault(tiles) == NULL);
    amx_tiles_emulated.dot(tiles, GB_DTYPE_BF16, 0, 4, 6);
    CHECK(amx_emulated_fault(tiles) != NULL);

    memset(tiles, 0, amx_tiles_emulated.state_bytes);
    cfg.rows[4] = 16;
    amx_tiles_emulated.configure(tiles, &cfg);
    amx_tiles_emulated.load(tiles, 5, &cfg, 0); /* not configured */
    CHECK(amx_emulated_fault(tiles) != NULL);

    memset(tiles, 0, amx_tiles_emulated.state_bytes);
    cfg.rows[1] = 16, cfg.colsb[1] = 64;
    amx_tiles_emulated.configure(tiles, &cfg);
    amx_tiles_emulated.dot(tiles, GB_DTYPE_U8S8, 1, 4, 6); /* no layout's triple */
    CHECK(amx_emulated_fault(tiles) != NULL);

    memset(tiles, 0, amx_tiles_emulated.state_bytes);
    amx_tiles_emulated.zero(tiles, 0); /* before LDTILECFG */
    CHECK(amx_emulated_fault(tiles) != NULL);
    free(tiles);
}

/* ---- the driver on emulated tiles ------------------------------------------------- */

typedef struct operands {
    gb_dtype type;
    int M, N, K, lda, ldb, ldc;
    void *A, *B;
    int64_t *ref;
} operands;

static void operands_free(operands *o)
{
    free(o->A);
    free(o->B);
    free(o->ref);
}

/* A and B padded with values that spoil a sum read past K or N (a bf16
 * NaN, 0xFF), the reference in 64-bit integers. */
static int operands_make(operands *o, gb_dtype type, int M, int N, int K, unsigned seed)
{
    const size_t es = gb_dtype_size_a(type);
    unsigned state = seed;

    memset(o, 0, sizeof *o);
    o->type = type;
    o->M = M, o->N = N, o->K = K;
    o->lda = K + PAD_A, o->ldb = N + PAD_B, o->ldc = N + PAD_C;
    o->A = malloc((size_t)M * o->lda * es);
    o->B = malloc((size_t)K * o->ldb * es);
    o->ref = malloc((size_t)M * N * sizeof *o->ref);
    if (!o->A || !o->B || !o->ref)
        return -1;
    for (int i = 0; i < M; i++)
        for (int k = 0; k < o->lda; k++) {
            const size_t at = (size_t)i * o->lda + k;
            if (type == GB_DTYPE_BF16)
                ((gb_bf16 *)o->A)[at] =
                    k < K ? gb_bf16_from_float((float)((int)(lcg(&state) % 129) - 64)) : BF16_NAN;
            else
                ((uint8_t *)o->A)[at] = k < K ? (uint8_t)lcg(&state) : 0xFF;
        }
    for (int k = 0; k < K; k++)
        for (int j = 0; j < o->ldb; j++) {
            const size_t at = (size_t)k * o->ldb + j;
            if (type == GB_DTYPE_BF16)
                ((gb_bf16 *)o->B)[at] =
                    j < N ? gb_bf16_from_float((float)((int)(lcg(&state) % 129) - 64)) : BF16_NAN;
            else
                ((int8_t *)o->B)[at] = j < N ? (int8_t)(uint8_t)lcg(&state) : 0x7F;
        }
    for (int i = 0; i < M; i++) {
        int64_t *row = o->ref + (size_t)i * N;
        for (int j = 0; j < N; j++)
            row[j] = 0;
        for (int k = 0; k < K; k++) {
            const size_t a = (size_t)i * o->lda + k;
            const int64_t av = type == GB_DTYPE_BF16
                                   ? (int64_t)gb_bf16_to_float(((gb_bf16 *)o->A)[a])
                                   : ((uint8_t *)o->A)[a];
            for (int j = 0; j < N; j++) {
                const size_t b = (size_t)k * o->ldb + j;
                row[j] += av * (type == GB_DTYPE_BF16
                                    ? (int64_t)gb_bf16_to_float(((gb_bf16 *)o->B)[b])
                                    : ((int8_t *)o->B)[b]);
            }
        }
    }
    return 0;
}

/* One run of amx's kernel of o's type through its entry (prepare, run,
 * release, as the harness calls it), on emulated tiles; the count of wrong
 * elements of C (padding included), or -1 when it could not run. */
static long run_once(const operands *o, int threads, int prepack, char *impl, size_t impl_len)
{
    const gb_typed_kernel *kernel = gb_variant_amx.typed[o->type];
    const size_t c_len = (size_t)o->M * o->ldc;
    gb_params none = { 0 };
    char why[200] = "";
    gb_ctx ctx = { threads, &none, NULL, why, sizeof why, NULL };
    void *C = malloc(c_len * 4);
    long bad = 0;
    unsigned state = 7;

    if (C == NULL)
        return -1;
    for (size_t at = 0; at < c_len; at++) {
        const int pad = (int)(at % o->ldc) >= o->N;
        if (o->type == GB_DTYPE_BF16)
            ((float *)C)[at] = pad ? C_SENTINEL_F : (float)(lcg(&state) % 1000);
        else
            ((int32_t *)C)[at] = pad ? C_SENTINEL_I : (int32_t)lcg(&state);
    }
    if (kernel->prepare(o->M, o->N, o->K, o->B, o->ldb, &ctx, prepack, &ctx.state) != 0) {
        free(C);
        return -1;
    }
    if (kernel->run(o->M, o->N, o->K, o->A, o->lda, o->B, o->ldb, C, o->ldc, &ctx) != 0)
        bad = -1;
    kernel->impl(o->M, o->N, o->K, &ctx, impl, impl_len);
    kernel->release(ctx.state);
    for (size_t at = 0; bad >= 0 && at < c_len; at++) {
        const int j = (int)(at % o->ldc), i = (int)(at / o->ldc);
        if (o->type == GB_DTYPE_BF16) {
            const float want = j >= o->N ? C_SENTINEL_F : (float)o->ref[(size_t)i * o->N + j];
            bad += ((float *)C)[at] != want; /* a NaN is never equal */
        } else {
            const int32_t want = j >= o->N ? C_SENTINEL_I : (int32_t)o->ref[(size_t)i * o->N + j];
            bad += ((int32_t *)C)[at] != want;
        }
    }
    free(C);
    return bad;
}

/* Every shape, both types, per call and pre-packed, on emulated tiles or
 * on the CPU's; the first failure named. */
static void check_shapes(const int (*shapes)[3], int nshapes, int threads, int emulated)
{
    long failures = 0;

    amx_force_emulated(emulated);
    for (int t = GB_DTYPE_BF16; t <= GB_DTYPE_U8S8; t++)
        for (int s = 0; s < nshapes; s++) {
            operands o;
            if (operands_make(&o, (gb_dtype)t, shapes[s][0], shapes[s][1], shapes[s][2],
                              100u * (unsigned)s + (unsigned)t) != 0) {
                operands_free(&o);
                CHECK(!"allocation");
                break;
            }
            for (int prepack = 0; prepack <= 1; prepack++) {
                char impl[32] = "";
                const long bad = run_once(&o, threads, prepack, impl, sizeof impl);
                CHECK_STR(impl + (emulated ? 0 : 9),
                          t == GB_DTYPE_BF16 ? "emulated_amx_bf16" : "emulated_amx_int8");
                if (bad != 0 && failures++ == 0) {
                    char what[160];
                    snprintf(what, sizeof what, "%s %dx%dx%d, %d thread(s), prepack %d: %ld wrong",
                             gb_dtype_name((gb_dtype)t), o.M, o.N, o.K, threads, prepack, bad);
                    gb_test_fail(__FILE__, __LINE__, what);
                }
            }
            operands_free(&o);
        }
    amx_force_emulated(0);
    CHECK_EQ_INT(failures, 0);
}

/* M, N, K multiples of no tile (16 rows, 16 columns, 32 bf16 / 64 int8 of
 * k), a tile's exact size, one k step plus one, and each dimension 1. */
static const int odd_shapes[][3] = {
    { 17, 37, 45 }, { 1, 1, 1 },   { 5, 7, 3 },    { 16, 16, 32 }, { 33, 15, 129 },
    { 31, 49, 65 }, { 48, 33, 2 }, { 1, 100, 97 }, { 100, 1, 64 }, { 16, 50, 33 },
};

TEST(amx_emulated_exact_on_odd_shapes_one_thread)
{
    check_shapes(odd_shapes, (int)(sizeof odd_shapes / sizeof odd_shapes[0]), 1, 1);
}

TEST(amx_emulated_exact_on_odd_shapes_two_threads)
{
    check_shapes(odd_shapes, (int)(sizeof odd_shapes / sizeof odd_shapes[0]), 2, 1);
}

/* BERT's qkv and mlp_reduce at M = 16 (1 x 3 blocks) and qkv at M = 64
 * (2 x 2), two threads. */
TEST(amx_emulated_exact_on_bert_shapes)
{
    static const int bert[][3] = { { 16, 768, 768 }, { 16, 768, 3072 }, { 64, 768, 768 } };
    check_shapes(bert, (int)(sizeof bert / sizeof bert[0]), 2, 1);
}

/* The same shapes on the CPU's tiles, where it has them and Linux grants
 * them: the one test of the instructions themselves against the
 * reference (and so of the emulation against the CPU). */
TEST(amx_hardware_exact_where_the_cpu_has_it)
{
    static char why[200]; /* SKIP keeps the pointer */

    if (!amx_tiles_available(GB_DTYPE_BF16, why, sizeof why) ||
        !amx_tiles_available(GB_DTYPE_U8S8, why, sizeof why))
        SKIP(why);
    check_shapes(odd_shapes, (int)(sizeof odd_shapes / sizeof odd_shapes[0]), 2, 0);
}

/* ---- without AMX ------------------------------------------------------------------ */

/* No f32, and where the CPU has no tiles (this test's machines), both types
 * unavailable with the reason and prepare refusing: never run. */
TEST(amx_skipped_with_its_reason_without_tiles)
{
    gb_params none = { 0 };
    char why[200] = "", prep_why[200] = "";
    gb_ctx ctx = { 1, &none, NULL, prep_why, sizeof prep_why, NULL };
    static const gb_bf16 B[4] = { 0 };
    void *state = NULL;

    CHECK(gb_variant_amx.run == NULL && gb_variant_amx.types_note != NULL);
    CHECK(gb_variant_find("amx") == &gb_variant_amx);
    if (amx_tiles_available(GB_DTYPE_BF16, why, sizeof why))
        SKIP("this CPU has AMX and Linux granted the tiles (the hardware test runs them)");
    CHECK(strncmp(why, "AMX not available: ", 19) == 0);
    CHECK(!gb_variant_amx.typed[GB_DTYPE_BF16]->available(why, sizeof why));
    CHECK(!gb_variant_amx.typed[GB_DTYPE_U8S8]->available(why, sizeof why));
    CHECK(gb_variant_amx.typed[GB_DTYPE_BF16]->prepare(1, 4, 1, B, 4, &ctx, 0, &state) == -1);
    CHECK(state == NULL);
    CHECK_STR(prep_why, why);
#if defined(__x86_64__)
    {
        unsigned eax, ebx, ecx, edx;
        if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && !(edx & (1u << 24)))
            CHECK_STR(why, "AMX not available: the CPU does not report amx_tile: cpuid leaf 7 "
                           "EDX bit 24");
    }
#endif
}
