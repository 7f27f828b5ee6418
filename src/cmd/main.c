/*
 * main.c - `gemmbench SUBCOMMAND ...` goes to the subcommand's command file
 * (src/cmd/<name>_cmd.c) through the table of commands (command.c), which
 * gemmbench --help lists too; without a subcommand, `gemmbench [options]`
 * runs a sweep (src/cmd/run_cmd.c).
 */
#include "command.h"

int main(int argc, char **argv)
{
    return gb_command_for(argc, argv)->main(argc, argv);
}
