/* model.c - BLIS's analytical model of this machine (SCHED.md, "The
 * model"): the register block mr x nr from the vector lanes, the registers
 * and the FMA units' latency, and the blocks kc, mc, nc from the caches,
 * each balanced over the shape.  A param stated `= model` takes its value
 * from here for each shape. */
#include "sched_lang.h"
#include "machine.h"
#include "sched_features.h"

#include <string.h>

/* Independent sums that keep two FMA units busy at four cycles' latency:
 * published for every x86 core since Haswell (Intel's optimization manual,
 * AMD's Zen 4 guide); no counter here can measure it. */
#define FMA_LATENCY 4
#define FMA_UNITS 2
#define MODEL_MAX_MR 8 /* the language's row block (GB_SCHED_MAX_ROWS) */
/* When a cache's size is unknown: the smallest seen on the machines here. */
#define FALLBACK_L1 (32L << 10)
#define FALLBACK_L2 (1L << 20)
#define FALLBACK_L3 (32L << 20)

static const char *const names[] = { "mr", "nr", "kc", "mc", "nc" };

static gb_sched_machine machine_once(void);

void gb_sched_machine_here(gb_sched_machine *out)
{
    *out = machine_once();
}

int gb_sched_model_of(const char *name)
{
    for (int q = 0; q < GB_MODEL_COUNT; q++)
        if (strcmp(name, names[q]) == 0)
            return q;
    return -1;
}

const char *gb_sched_model_name(int q)
{
    return q >= 0 && q < GB_MODEL_COUNT ? names[q] : "?";
}

/* The machine, read once: lanes and registers of its widest vectors, its
 * data caches. */
static gb_sched_machine machine_once(void)
{
    static gb_sched_machine m;
    static int done;
    gb_machine info;

    if (done)
        return m;
    gb_machine_detect(&info);
    m.lanes = 4;
    m.registers = strcmp(info.arch, "aarch64") == 0 ? 32 : 16;
    for (int i = 0; i < info.nisa; i++)
        if (strcmp(info.isa[i], "avx512f") == 0) {
            m.lanes = 16, m.registers = 32;
            break;
        } else if (strcmp(info.isa[i], "avx2") == 0 || strcmp(info.isa[i], "avx") == 0) {
            m.lanes = m.lanes > 8 ? m.lanes : 8;
        }
    m.l1 = gb_machine_cache_bytes(&info, 1);
    m.l2 = gb_machine_cache_bytes(&info, 2);
    m.l3 = gb_machine_cache_bytes(&info, 3);
    m.l1 = m.l1 > 0 ? m.l1 : FALLBACK_L1;
    m.l2 = m.l2 > 0 ? m.l2 : FALLBACK_L2;
    m.l3 = m.l3 > 0 ? m.l3 : FALLBACK_L3;
    done = 1;
    return m;
}

/* n in the fewest blocks of at most cap, as even as they go, each rounded
 * up to a multiple of unit (n = 384, cap 336, unit 8: two blocks of 192). */
static long balance(long n, long cap, long unit)
{
    long blocks, b;

    cap = cap / unit * unit;
    if (cap < unit)
        cap = unit;
    blocks = (n + cap - 1) / cap;
    b = (n + blocks - 1) / blocks;
    return (b + unit - 1) / unit * unit;
}

void gb_sched_model_values(const gb_sched_machine *mach, int M, int N, int K, long out[])
{
    const gb_sched_machine m = mach ? *mach : machine_once();
    long mr = 1, v = 1, best = 0;

    /* rows x vectors of sums with the B vectors and A's broadcast in the
     * registers, at least FMA_LATENCY x FMA_UNITS of them; the most sums,
     * then the most rows (8 x 3 on 32 registers: 28 of them; 6 x 2 on 16) */
    for (long vv = 1; vv <= 4; vv++) {
        long rows = (m.registers - vv - 1) / vv;
        if (rows > MODEL_MAX_MR)
            rows = MODEL_MAX_MR;
        const long nr = vv * m.lanes;
        /* a width the lowering holds in registers (plan.c): a power of two
         * to 16 or a multiple of 16 */
        if (rows < 1 || rows * vv < FMA_LATENCY * FMA_UNITS ||
            !(nr % 16 == 0 || (nr <= 16 && (nr & (nr - 1)) == 0)))
            continue;
        if (rows * vv > best || (rows * vv == best && rows > mr)) {
            best = rows * vv;
            mr = rows;
            v = vv;
        }
    }
    out[GB_MODEL_MR] = mr;
    out[GB_MODEL_NR] = v * m.lanes;
    /* A's micro-panel (mr x kc) in half of L1d, the other half for B's
     * rows streaming through; A's block (mc x kc) in half of L2; B's block
     * (kc x nc) in half of L3: packed's rules, BLIS's model with halves */
    out[GB_MODEL_KC] = balance(K, m.l1 / 2 / (4 * mr), 1);
    out[GB_MODEL_MC] = balance(M, m.l2 / 2 / (4 * out[GB_MODEL_KC]), mr);
    out[GB_MODEL_NC] = balance(N, m.l3 / 2 / (4 * out[GB_MODEL_KC]), out[GB_MODEL_NR]);
}
