/* peak.c - the machine's FP32 FMA peak.  Not measured yet: results carry
 * "peak_gflops": null and no percent of peak until it is. */
#include "commands.h"

void gb_peak_for_run(gb_machine *m, int threads, int quiet)
{
    (void)m;
    (void)threads;
    (void)quiet;
}

void gb_peak_info(FILE *out, gb_machine *m)
{
    (void)m;
    fprintf(out, "peak           not measured\n");
}
