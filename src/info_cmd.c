/* info_cmd.c - `gemmbench info`: this machine's CPU, ISA, caches and measured FP32 peak. */
#include <stdio.h>
#include <string.h>

#include "command.h"
#include "peak.h"
#include "machine.h"

int gb_cmd_info(int argc, char **argv)
{
    gb_machine m;

    if (argc > 2 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0)) {
        puts("usage: gemmbench info\n  prints this machine's CPU, ISA, caches and measured "
             "FP32 peak");
        return gb_finish_stdout("info");
    }
    if (argc > 2)
        return gb_usage("info", "info takes no arguments");
    gb_machine_detect(&m);
    gb_machine_print(stdout, &m);
    gb_peak_info(stdout, &m);
    return gb_finish_stdout("info");
}
