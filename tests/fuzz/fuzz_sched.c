/* fuzz_sched.c - any bytes as a schedule file: parsed and checked
 * (gb_sched_parse, gb_sched_check); a schedule they accept is resolved for
 * three shapes and lowered to C (nothing is compiled).  Besides the
 * sanitizers: a refusal always says FILE:LINE:, and the generated C holds
 * only printable ASCII and newlines and no quote (but in the lowering's own
 * constant optimize attributes), whatever the input.  The
 * same bytes as a search space (gb_space_parse): a refusal says FILE:LINE:,
 * and the points drawn from a space it accepts are checked like any text. */
#include "fuzz_util.h"
#include "sched_lang.h"
#include "sched_space.h"

/* The bytes as a space: parsed, and a few of its points made and checked. */
static void fuzz_space(const uint8_t *data, size_t size)
{
    static gb_space space;
    static gb_sched nest;
    gb_space_point p;
    unsigned rng = (unsigned)size | 1u;
    char err[512];

    if (gb_space_parse("f.space", (const char *)data, size, &space, err, sizeof err) != 0) {
        if (strncmp(err, "f.space:", 8) != 0)
            abort();
        return;
    }
    gb_space_initial(&space, &p);
    for (int n = 0; n < 8; n++) {
        if (gb_space_check(&space, &p, &nest, err, sizeof err) != 0 &&
            strncmp(err, "f.space:", 8) != 0)
            abort(); /* a refused point names the space's line */
        for (int b = 0; b < space.nblocks; b++)
            if (p.alt[b] < 0 || p.alt[b] >= space.nalts[b])
                abort();
        if (n % 2)
            gb_space_random(&space, &rng, &p);
        else
            gb_space_mutate(&space, &rng, &p);
    }
    gb_space_free(&space);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static gb_sched_text text; /* large: not on the stack */
    static gb_sched nest;
    static const int shapes[][3] = { { 1, 1, 1 }, { 7, 33, 100 }, { 64, 48, 32 } };
    char err[512];
    gb_params none = { 0 };

    fuzz_space(data, size);
    if (gb_sched_parse("f.sched", (const char *)data, size, &text, err, sizeof err) != 0 ||
        gb_sched_check(&text, &nest, err, sizeof err) != 0) {
        if (strncmp(err, "f.sched:", 8) != 0)
            abort(); /* a refusal names the file and the line */
        return 0;
    }
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        gb_sched_plan *pl = gb_sched_plan_new(&nest, &none, shapes[s][0], shapes[s][1],
                                              shapes[s][2], err, sizeof err);
        char *c;
        if (pl == NULL)
            continue;
        c = gb_sched_lower(pl, "gb_sched_kernel");
        gb_sched_plan_free(pl);
        if (c == NULL)
            abort();
        fuzz_check_lowered(c);
        free(c);
    }
    return 0;
}
