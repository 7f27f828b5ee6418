/*
 * dtype.c - the element types a GEMM runs in (gemmbench.h: gb_dtype): their
 * names, sizes, and bfloat16's conversion.
 */
#include "gemmbench.h"

#include <string.h>

static const char *const names[GB_DTYPE_COUNT] = { "f32", "bf16", "u8s8" };

const char *gb_dtype_name(gb_dtype t)
{
    return (unsigned)t < GB_DTYPE_COUNT ? names[t] : "?";
}

int gb_dtype_parse(const char *s, gb_dtype *t)
{
    for (int i = 0; i < GB_DTYPE_COUNT; i++)
        if (strcmp(s, names[i]) == 0) {
            *t = (gb_dtype)i;
            return 0;
        }
    return -1;
}

int gb_dtype_is_integer(gb_dtype t)
{
    return t == GB_DTYPE_U8S8;
}

size_t gb_dtype_size_a(gb_dtype t)
{
    return t == GB_DTYPE_BF16 ? 2 : t == GB_DTYPE_U8S8 ? 1 : 4;
}

size_t gb_dtype_size_b(gb_dtype t)
{
    return gb_dtype_size_a(t);
}

size_t gb_dtype_size_c(gb_dtype t)
{
    (void)t;
    return 4; /* f32 and bf16 write float, u8s8 int32_t */
}

/* Round to nearest even on the 16 bits dropped: add 0x7FFF plus the lowest
 * kept bit, then truncate (what vcvtneps2bf16 does). */
gb_bf16 gb_bf16_from_float(float f)
{
    uint32_t u;

    memcpy(&u, &f, sizeof u);
    if ((u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu) != 0)
        return (gb_bf16)((u >> 16) | 0x0040u); /* a quiet NaN stays one */
    u += 0x7FFFu + ((u >> 16) & 1u);
    return (gb_bf16)(u >> 16);
}

float gb_bf16_to_float(gb_bf16 b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;

    memcpy(&f, &u, sizeof f);
    return f;
}
