/* sha256.h - SHA-256 (FIPS 180-4): one call, or incremental over pieces. */
#ifndef GB_SHA256_H
#define GB_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct gb_sha256_ctx {
    uint32_t state[8];         /* H0..H7, the running hash value */
    uint64_t length;           /* bytes hashed so far */
    unsigned char block[64];   /* the block being filled */
    size_t filled;             /* bytes of block in use, 0..63 */
} gb_sha256_ctx;

void gb_sha256_init(gb_sha256_ctx *ctx);
void gb_sha256_update(gb_sha256_ctx *ctx, const void *data, size_t len);
/* Pads, writes the digest and leaves ctx to be initialised again. */
void gb_sha256_final(gb_sha256_ctx *ctx, unsigned char out[32]);

/* The digest of data[0..len-1]. */
void gb_sha256(const void *data, size_t len, unsigned char out[32]);
/* The digest as 64 lowercase hex digits and a NUL. */
void gb_sha256_hex(const unsigned char digest[32], char out[65]);

#endif
