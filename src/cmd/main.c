/*
 * main.c - `gemmbench SUBCOMMAND ...` goes to the subcommand's command file
 * (src/cmd/<name>_cmd.c); without a subcommand, `gemmbench [options]` runs a
 * sweep (src/cmd/run_cmd.c).
 */
#include <string.h>

#include "command.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} subcommands[] = {
    { "info", gb_cmd_info },
    { "compare", gb_cmd_compare },
    { "ab", gb_cmd_ab },
    { "report", gb_cmd_report },
    { "tune", gb_cmd_tune },
};

int main(int argc, char **argv)
{
    if (argc > 1)
        for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
            if (strcmp(argv[1], subcommands[i].name) == 0)
                return subcommands[i].run(argc, argv);
    return gb_cmd_run(argc, argv);
}
