/* sha256.h - SHA-256 from Debian's nettle (<nettle/sha2.h>), in the two forms
 * most callers want: the digest of one buffer, and a digest as the lowercase
 * hex that result files, records and cache names hold.  Hashing in pieces
 * calls nettle directly (sha256_init, sha256_update, sha256_digest). */
#ifndef GB_SHA256_H
#define GB_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include <nettle/base16.h>
#include <nettle/sha2.h>

/* The digest of data[0..len-1]. */
static inline void gb_sha256(const void *data, size_t len, unsigned char out[SHA256_DIGEST_SIZE])
{
    struct sha256_ctx ctx;
    sha256_init(&ctx);
    sha256_update(&ctx, len, data);
    sha256_digest(&ctx, SHA256_DIGEST_SIZE, out);
}

/* The digest as 64 lowercase hex digits and a NUL (nettle's base16 is
 * lowercase, the form FIPS 180-4's examples and sha256sum print). */
static inline void gb_sha256_hex(const unsigned char digest[SHA256_DIGEST_SIZE],
                                 char out[2 * SHA256_DIGEST_SIZE + 1])
{
    base16_encode_update(out, SHA256_DIGEST_SIZE, digest);
    out[2 * SHA256_DIGEST_SIZE] = '\0';
}

#endif
