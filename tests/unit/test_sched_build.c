/* test_sched_build.c - SHA-256 against the FIPS 180-4 examples (the key
 * of the schedule cache). */
#include "test.h"

#include "sha256.h"

/* The digest of data as hex, the form the vectors are published in. */
static void hex_of(const void *data, size_t len, char out[65])
{
    unsigned char digest[32];
    gb_sha256(data, len, digest);
    gb_sha256_hex(digest, out);
}

TEST(sha256_fips_vectors)
{
    char hex[65];
    hex_of("", 0, hex);
    CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    hex_of("abc", 3, hex);
    CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    /* 448 bits: the padding's length field needs a second block. */
    const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    hex_of(m448, strlen(m448), hex);
    CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    const char *m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
                       "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
    hex_of(m896, strlen(m896), hex);
    CHECK_STR(hex, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");

    /* One million 'a' through update in uneven pieces: across block
     * boundaries, whole blocks, and pieces of a partly filled block. */
    static const size_t pieces[] = { 1, 63, 64, 65, 127, 1000, 3, 4096, 55, 56, 57 };
    char a[4096];
    memset(a, 'a', sizeof a);
    gb_sha256_ctx ctx;
    unsigned char digest[32];
    size_t left = 1000000;
    gb_sha256_init(&ctx);
    for (size_t i = 0; left > 0; i++) {
        size_t n = pieces[i % (sizeof pieces / sizeof pieces[0])];
        n = n < left ? n : left;
        gb_sha256_update(&ctx, a, n);
        left -= n;
    }
    gb_sha256_final(&ctx, digest);
    gb_sha256_hex(digest, hex);
    CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    /* update with nothing changes nothing */
    gb_sha256_init(&ctx);
    gb_sha256_update(&ctx, "ab", 2);
    gb_sha256_update(&ctx, "", 0);
    gb_sha256_update(&ctx, "c", 1);
    gb_sha256_final(&ctx, digest);
    gb_sha256_hex(digest, hex);
    CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}
