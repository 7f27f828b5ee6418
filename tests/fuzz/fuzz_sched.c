/* fuzz_sched.c - any bytes as a schedule file: parsed and checked
 * (gb_sched_parse, gb_sched_check); a schedule they accept is resolved for
 * three shapes and lowered to C (nothing is compiled).  Besides the
 * sanitizers: a refusal always says FILE:LINE:, and the generated C holds
 * only printable ASCII and newlines and no quote, whatever the input. */
#include "fuzz_util.h"
#include "sched_lang.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static gb_sched_text text; /* large: not on the stack */
    static gb_sched nest;
    static const int shapes[][3] = { { 1, 1, 1 }, { 7, 33, 100 }, { 64, 48, 32 } };
    char err[512];
    gb_params none = { 0 };

    if (gb_sched_parse("f.sched", (const char *)data, size, &text, err, sizeof err) != 0 ||
        gb_sched_check(&text, &nest, err, sizeof err) != 0) {
        if (strncmp(err, "f.sched:", 8) != 0)
            abort(); /* a refusal names the file and the line */
        return 0;
    }
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        gb_sched_shape sh;
        char *c;
        if (gb_sched_resolve(&nest, &none, shapes[s][0], shapes[s][1], shapes[s][2], &sh, err,
                             sizeof err) != 0)
            continue;
        if ((c = gb_sched_lower(&sh, "gb_sched_kernel")) == NULL)
            abort();
        for (const char *p = c; *p; p++)
            if ((*p < 0x20 && *p != '\n') || *p > 0x7e || *p == '"' || *p == '\'')
                abort(); /* only the nest's checked names and numbers reach the C */
        free(c);
    }
    return 0;
}
