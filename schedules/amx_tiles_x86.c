/*
 * amx_tiles_x86.c - AMX's tile operations on the CPU (amx_tiles.h:
 * amx_tiles_hardware), through GCC's intrinsics, and whether this CPU, OS
 * and process may run them (amx_tiles_available).
 *
 * Built with -mamx-tile -mamx-bf16 -mamx-int8 where the compiler targets
 * x86-64 (the Makefile); elsewhere, or with a compiler without them, the
 * ops are absent and amx_tiles_available says why.  Nothing here runs an
 * AMX instruction before amx_tiles_available has said yes: on a CPU or a
 * VM without AMX each one raises SIGILL.
 *
 * An intrinsic names its tile registers in the instruction (_tile_loadd(3,
 * ...) is "tileloadd ..., %tmm3"), so a tile chosen at run time goes
 * through a switch; the dot products are issued for the block layouts'
 * triples only (amx_layouts), which the emulation checks the driver keeps
 * to.
 */
#define _DEFAULT_SOURCE /* syscall(), for arch_prctl */

#include "amx_tiles.h"

#include <stdio.h>
#include <string.h>

#if defined(__x86_64__) && defined(__linux__)
#include <cpuid.h>
#include <errno.h>
#include <immintrin.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

/* -mamx-*: GCC defines __AMX_TILE__ and the like, clang __AMXTILE__. */
#if defined(__x86_64__) && ((defined(__AMX_TILE__) && defined(__AMX_BF16__) &&               \
                             defined(__AMX_INT8__)) ||                                       \
                            (defined(__AMXTILE__) && defined(__AMXBF16__) && defined(__AMXINT8__)))
#define HAVE_AMX_INTRINSICS 1

static void hw_configure(void *state, const amx_tilecfg *cfg)
{
    (void)state;
    _tile_loadconfig(cfg);
}

#define FOR_TILES(op) op(0) op(1) op(2) op(3) op(4) op(5) op(6) op(7)

static void hw_zero(void *state, int t)
{
    (void)state;
    switch (t) {
#define ZERO_CASE(n)                                                          \
    case n:                                                                   \
        _tile_zero(n);                                                        \
        break;
        FOR_TILES(ZERO_CASE)
#undef ZERO_CASE
    }
}

static void hw_load(void *state, int t, const void *base, long stride)
{
    (void)state;
    switch (t) {
#define LOAD_CASE(n)                                                          \
    case n:                                                                   \
        _tile_loadd(n, base, stride);                                         \
        break;
        FOR_TILES(LOAD_CASE)
#undef LOAD_CASE
    }
}

static void hw_store(void *state, int t, void *base, long stride)
{
    (void)state;
    switch (t) {
#define STORE_CASE(n)                                                         \
    case n:                                                                   \
        _tile_stored(n, base, stride);                                        \
        break;
        FOR_TILES(STORE_CASE)
#undef STORE_CASE
    }
}

/* The block layouts' dot products (amx_tiles.h): 2 x 2, then 1 x 3. */
#define DOT_CODE(c, a, b) ((c) * 64 + (a) * 8 + (b))
#define FOR_DOTS(op)                                                          \
    op(0, 4, 6) op(1, 4, 7) op(2, 5, 6) op(3, 5, 7)                           \
    op(0, 3, 4) op(1, 3, 5) op(2, 3, 6)

static void hw_dot(void *state, gb_dtype type, int c, int a, int b)
{
    (void)state;
    if (type == GB_DTYPE_BF16) {
        switch (DOT_CODE(c, a, b)) {
#define BF16_CASE(c, a, b)                                                    \
    case DOT_CODE(c, a, b):                                                   \
        _tile_dpbf16ps(c, a, b);                                              \
        break;
            FOR_DOTS(BF16_CASE)
#undef BF16_CASE
        }
    } else {
        switch (DOT_CODE(c, a, b)) {
#define U8S8_CASE(c, a, b)                                                    \
    case DOT_CODE(c, a, b):                                                   \
        _tile_dpbusd(c, a, b);                                                \
        break;
            FOR_DOTS(U8S8_CASE)
#undef U8S8_CASE
        }
    }
}

static void hw_release(void *state)
{
    (void)state;
    _tile_release();
}

const amx_tile_ops amx_tiles_hardware = {
    .name = "amx",
    .state_bytes = 0,
    .configure = hw_configure,
    .zero = hw_zero,
    .load = hw_load,
    .store = hw_store,
    .dot = hw_dot,
    .release = hw_release,
};
#elif defined(__x86_64__)
/* A compiler without AMX's intrinsics: ops that are never called
 * (amx_tiles_available says no), so that the driver links. */
const amx_tile_ops amx_tiles_hardware = { .name = "amx" };
#endif

/* ---- may this process use the tiles? ------------------------------------------ */

#if defined(__x86_64__) && defined(__linux__) && defined(HAVE_AMX_INTRINSICS)

/* asm/prctl.h's codes (Linux 5.16; older headers lack them) and the tile
 * data's bit in XCR0 and in the permission masks; XTILECFG is bit 17. */
#ifndef ARCH_GET_XCOMP_PERM
#define ARCH_GET_XCOMP_PERM 0x1022
#endif
#ifndef ARCH_REQ_XCOMP_PERM
#define ARCH_REQ_XCOMP_PERM 0x1023
#endif
#define XFEATURE_XTILECFG 17
#define XFEATURE_XTILEDATA 18

/* The permission is the process's (Linux grants it to every thread of the
 * process at once), so it is asked once: the answer and its reason are
 * kept for the process's life, the only state this file keeps. */
static pthread_once_t permission_once = PTHREAD_ONCE_INIT;
static int permission_granted;
static char permission_why[200];

__attribute__((target("xsave"))) static unsigned long long read_xcr0(void)
{
    return _xgetbv(0);
}

static void ask_permission(void)
{
    unsigned eax, ebx, ecx, edx;
    unsigned long permitted = 0;
    const unsigned long long tile_state = (1ull << XFEATURE_XTILECFG) | (1ull << XFEATURE_XTILEDATA);

    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & bit_OSXSAVE)) {
        snprintf(permission_why, sizeof permission_why,
                 "the OS has not enabled XSAVE (cpuid leaf 1 ECX bit 27, OSXSAVE)");
        return;
    }
    if ((read_xcr0() & tile_state) != tile_state) {
        snprintf(permission_why, sizeof permission_why,
                 "the OS has not enabled the tile state in XCR0 (bits 17 XTILECFG, 18 "
                 "XTILEDATA): Linux before 5.16, or a hypervisor that hides it");
        return;
    }
    if (syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) != 0) {
        snprintf(permission_why, sizeof permission_why,
                 "Linux refused the tile data: arch_prctl(ARCH_REQ_XCOMP_PERM, "
                 "XFEATURE_XTILEDATA) failed: %s", strerror(errno));
        return;
    }
    if (syscall(SYS_arch_prctl, ARCH_GET_XCOMP_PERM, &permitted) != 0 ||
        !(permitted & (1ul << XFEATURE_XTILEDATA))) {
        snprintf(permission_why, sizeof permission_why,
                 "Linux granted ARCH_REQ_XCOMP_PERM but ARCH_GET_XCOMP_PERM does not list "
                 "the tile data");
        return;
    }
    permission_granted = 1;
}

int amx_tiles_available(gb_dtype t, char *why, size_t whylen)
{
    unsigned eax, ebx, ecx, edx;
    const char *missing = NULL;

    if (t != GB_DTYPE_BF16 && t != GB_DTYPE_U8S8)
        missing = "a tile dot product of this type (AMX multiplies bf16 and int8)";
    else if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) || !(edx & (1u << 24)))
        missing = "amx_tile: cpuid leaf 7 EDX bit 24";
    else if (t == GB_DTYPE_BF16 && !(edx & (1u << 22)))
        missing = "amx_bf16: cpuid leaf 7 EDX bit 22";
    else if (t == GB_DTYPE_U8S8 && !(edx & (1u << 25)))
        missing = "amx_int8: cpuid leaf 7 EDX bit 25";
    if (missing) {
        snprintf(why, whylen, "AMX not available: the CPU does not report %s", missing);
        return 0;
    }
    pthread_once(&permission_once, ask_permission);
    if (!permission_granted) {
        snprintf(why, whylen, "AMX not available: %s", permission_why);
        return 0;
    }
    return 1;
}

#else

int amx_tiles_available(gb_dtype t, char *why, size_t whylen)
{
    (void)t;
#if !defined(__x86_64__)
    snprintf(why, whylen, "AMX not available: AMX is x86-64's, and this build is for another "
                          "architecture");
#elif !defined(__linux__)
    snprintf(why, whylen, "AMX not available: the tile data's permission is asked of Linux "
                          "(arch_prctl), and this is another OS");
#else
    snprintf(why, whylen, "AMX not available: this build's compiler has no AMX intrinsics "
                          "(-mamx-tile -mamx-bf16 -mamx-int8: GCC 11 or later)");
#endif
    return 0;
}

#endif
