/*
 * command.h - what every subcommand shares: the table of commands, one way
 * to report an error and choose the exit status, --help written from the
 * settings table (settings.h), and list flags that may repeat.
 *
 * Each subcommand is a small command file (src/cmd/<name>_cmd.c) that parses its
 * options, calls the library, and returns an exit status through these
 * helpers.  Library code never prints an error or exits: it fills a message
 * and returns -1 (or -2 when memory runs out).
 */
#ifndef GB_COMMAND_H
#define GB_COMMAND_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include "gemmbench.h"

/* Prints one line "gemmbench: CMD: message" ("gemmbench: message" when cmd
 * is NULL, i.e. the run command) on stderr and returns code. */
int gb_fail(int code, const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A usage error: "gemmbench: CMD: message (see gemmbench CMD --help)";
 * returns GB_EXIT_USAGE. */
int gb_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* --help of a command on stdout: intro, then its options from the settings
 * table (settings is its GB_CMD_* bit), then outro; the exit status
 * (GB_EXIT_IO when it was lost). */
int gb_help_command(const char *cmd, unsigned settings, const char *intro, const char *outro);

/* Appends item to the comma list in dst (a repeated --variant, --kernel).
 * 0, or -1 when dst is full. */
int gb_list_append(char *dst, size_t size, const char *item);

/* Flushes stdout: GB_EXIT_OK, or GB_EXIT_IO (and says so) when what was
 * written did not arrive (a full disk, a closed pipe). */
int gb_finish_stdout(const char *cmd);

/* After gb_catch_interrupts(), SIGINT and SIGTERM (and SIGHUP, SIGQUIT and
 * SIGPIPE, unless ignored) raise gb_interrupted instead of ending the
 * process, so a long command stops between measurements and keeps what it
 * has. */
extern volatile sig_atomic_t gb_interrupted;
void gb_catch_interrupts(void);

/* The commands: main's dispatch and gemmbench --help's list (command.c). */
typedef struct gb_command {
    const char *name;        /* argv[1]; NULL for run, which needs none */
    unsigned settings;       /* its GB_CMD_* bit: which settings it takes */
    const char *synopsis;    /* what follows "gemmbench NAME" in usage lines */
    const char *summary;     /* its line in gemmbench --help */
    int (*main)(int argc, char **argv);
} gb_command;
extern const gb_command gb_commands[];
extern const size_t gb_command_count;
/* The command argv[1] names, else run (gb_commands[0]). */
const gb_command *gb_command_for(int argc, char **argv);
/* "usage: gemmbench ..." with a line per command, for gemmbench --help. */
void gb_write_command_list(FILE *out);

/* The subcommands (src/cmd/<name>_cmd.c); each returns the exit status. */
int gb_cmd_run(int argc, char **argv);
int gb_cmd_info(int argc, char **argv);
int gb_cmd_compare(int argc, char **argv);
int gb_cmd_ab(int argc, char **argv);
int gb_cmd_report(int argc, char **argv);
int gb_cmd_tune(int argc, char **argv);
int gb_cmd_history(int argc, char **argv);
int gb_cmd_model(int argc, char **argv);

#endif
