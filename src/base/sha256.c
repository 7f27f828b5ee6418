/* sha256.c - SHA-256 as FIPS 180-4 states it (sections 4.1.2, 4.2.2, 5.1.1,
 * 5.3.3, 6.2), written from the standard: the schedule cache names a
 * compiled object by the digest of what went into it. */
#include "sha256.h"

#include <string.h>

/* K: the first 32 bits of the fractional parts of the cube roots of the
 * first 64 primes (4.2.2). */
static const uint32_t round_constants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/* H(0): the first 32 bits of the fractional parts of the square roots of the
 * first 8 primes (5.3.3). */
static const uint32_t initial_hash[8] = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

/* ROTR^n(x) for 0 < n < 32 (3.2). */
static uint32_t rotate_right(uint32_t x, unsigned n)
{
    return (x >> n) | (x << (32 - n));
}

/* The message is big-endian words (3.1); read one from four bytes. */
static uint32_t load_big_endian(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The digest and the length field are big-endian too. */
static void store_big_endian(unsigned char *p, uint32_t x)
{
    p[0] = (unsigned char)(x >> 24);
    p[1] = (unsigned char)(x >> 16);
    p[2] = (unsigned char)(x >> 8);
    p[3] = (unsigned char)x;
}

/* The hash computation of one 512-bit block (6.2.2, steps 1 to 4). */
static void compress_block(uint32_t state[8], const unsigned char block[64])
{
    uint32_t w[64];
    for (int t = 0; t < 16; t++)
        w[t] = load_big_endian(block + 4 * t);
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = rotate_right(w[t - 15], 7) ^ rotate_right(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = rotate_right(w[t - 2], 17) ^ rotate_right(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = s1 + w[t - 7] + s0 + w[t - 16];
    }

    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
    for (int t = 0; t < 64; t++) {
        uint32_t sigma1 = rotate_right(e, 6) ^ rotate_right(e, 11) ^ rotate_right(e, 25);
        uint32_t choose = (e & f) ^ (~e & g);
        uint32_t t1 = h + sigma1 + choose + round_constants[t] + w[t];
        uint32_t sigma0 = rotate_right(a, 2) ^ rotate_right(a, 13) ^ rotate_right(a, 22);
        uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
        uint32_t t2 = sigma0 + majority;
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
    state[5] += f;
    state[6] += g;
    state[7] += h;
}

void gb_sha256_init(gb_sha256_ctx *ctx)
{
    memcpy(ctx->state, initial_hash, sizeof initial_hash);
    ctx->length = 0;
    ctx->filled = 0;
}

void gb_sha256_update(gb_sha256_ctx *ctx, const void *data, size_t len)
{
    const unsigned char *p = data;
    ctx->length += len;
    while (len > 0) {
        if (ctx->filled == 0 && len >= 64) {
            /* Whole blocks straight from the input, without a copy. */
            compress_block(ctx->state, p);
            p += 64;
            len -= 64;
            continue;
        }
        size_t take = 64 - ctx->filled < len ? 64 - ctx->filled : len;
        memcpy(ctx->block + ctx->filled, p, take);
        ctx->filled += take;
        p += take;
        len -= take;
        if (ctx->filled == 64) {
            compress_block(ctx->state, ctx->block);
            ctx->filled = 0;
        }
    }
}

void gb_sha256_final(gb_sha256_ctx *ctx, unsigned char out[32])
{
    /* 5.1.1: a 1 bit, zeros up to 448 mod 512, the length in bits as 64. */
    uint64_t bits = ctx->length * 8;
    ctx->block[ctx->filled++] = 0x80;
    if (ctx->filled > 56) {
        memset(ctx->block + ctx->filled, 0, 64 - ctx->filled);
        compress_block(ctx->state, ctx->block);
        ctx->filled = 0;
    }
    memset(ctx->block + ctx->filled, 0, 56 - ctx->filled);
    store_big_endian(ctx->block + 56, (uint32_t)(bits >> 32));
    store_big_endian(ctx->block + 60, (uint32_t)bits);
    compress_block(ctx->state, ctx->block);
    for (int i = 0; i < 8; i++)
        store_big_endian(out + 4 * i, ctx->state[i]);
    memset(ctx, 0, sizeof *ctx);
}

void gb_sha256(const void *data, size_t len, unsigned char out[32])
{
    gb_sha256_ctx ctx;
    gb_sha256_init(&ctx);
    gb_sha256_update(&ctx, data, len);
    gb_sha256_final(&ctx, out);
}

void gb_sha256_hex(const unsigned char digest[32], char out[65])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        out[2 * i] = digits[digest[i] >> 4];
        out[2 * i + 1] = digits[digest[i] & 15];
    }
    out[64] = '\0';
}
