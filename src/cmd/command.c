/* command.c - the table of commands, and the errors, exit statuses, help and
 * signals they share; see command.h. */
#define _GNU_SOURCE
#include "command.h"
#include "text.h"
#include "parse.h"
#include "settings.h"

#include <stdarg.h>
#include <string.h>

volatile sig_atomic_t gb_interrupted;

/* Every error is one line of printable text, whatever the user's text in
 * it held (a path, a --date, a label): control characters and bytes that
 * are not UTF-8 read as '?' (text.h). */
static void vreport(const char *cmd, const char *fmt, va_list ap, int with_help)
{
    char line[8192];

    vsnprintf(line, sizeof line, fmt, ap);
    gb_text_blank(line);
    fputs("gemmbench: ", stderr);
    if (cmd)
        fprintf(stderr, "%s: ", cmd);
    fputs(line, stderr);
    if (with_help)
        fprintf(stderr, " (see gemmbench%s%s --help)", cmd ? " " : "", cmd ? cmd : "");
    fputc('\n', stderr);
}

int gb_fail(int code, const char *cmd, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vreport(cmd, fmt, ap, 0);
    va_end(ap);
    return code;
}

int gb_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vreport(cmd, fmt, ap, 1);
    va_end(ap);
    return GB_EXIT_USAGE;
}

/* ---- the commands ------------------------------------------------------------- */

/* main's dispatch and gemmbench --help's list, in --help's order.  To add a
 * command: its file src/cmd/NAME_cmd.c, its gb_cmd_NAME in command.h, a
 * GB_CMD_* bit for its settings (settings.h), and one line here. */
const gb_command gb_commands[] = {
    { NULL, GB_CMD_RUN, "[options]", "run a sweep (bench.conf, then flags)", gb_cmd_run },
    { "info", GB_CMD_INFO, "", "describe this machine, measure its peak", gb_cmd_info },
    { "compare", GB_CMD_COMPARE, "OLD.json NEW.json",
      "what changed; a CI gate (exit 1 on a slowdown)", gb_cmd_compare },
    { "ab", GB_CMD_AB, "OLD NEW [run options]",
      "two builds measured round by round; a CI gate", gb_cmd_ab },
    { "report", GB_CMD_REPORT, "FILE.json...", "pivot tables of result files, side by side",
      gb_cmd_report },
    { "tune", GB_CMD_TUNE, "[options]", "search schedule parameters, record the best",
      gb_cmd_tune },
    { "model", GB_CMD_MODEL, "train --database FILE... -o MODEL",
      "fit the cost model of ml_guided to trial databases", gb_cmd_model },
    { "history", GB_CMD_HISTORY, "ACTION --store DIR ...",
      "a store of runs over commits: add, changes, html, confirm, bisect", gb_cmd_history },
};
const size_t gb_command_count = sizeof gb_commands / sizeof gb_commands[0];

const gb_command *gb_command_for(int argc, char **argv)
{
    for (size_t i = 0; i < gb_command_count && argc > 1; i++)
        if (gb_commands[i].name && strcmp(argv[1], gb_commands[i].name) == 0)
            return &gb_commands[i];
    return &gb_commands[0];
}

void gb_write_command_list(FILE *out)
{
    for (size_t i = 0; i < gb_command_count; i++) {
        const gb_command *c = &gb_commands[i];
        char line[96];
        snprintf(line, sizeof line, "gemmbench%s%s%s%s", c->name ? " " : "",
                 c->name ? c->name : "", c->synopsis[0] ? " " : "", c->synopsis);
        fprintf(out, "%s %-37s %s\n", i == 0 ? "usage:" : "      ", line, c->summary);
    }
    fprintf(out, "       %-37s %s\n", "gemmbench SUBCOMMAND --help", "help on a subcommand");
}

int gb_help_command(const char *cmd, unsigned settings, const char *intro, const char *outro)
{
    fputs(intro, stdout);
    /* run's long list under headings; a subcommand's few options as they come */
    gb_settings_write_help(stdout, settings, settings == GB_CMD_RUN);
    fputs(outro, stdout);
    return gb_finish_stdout(cmd);
}

int gb_list_append(char *dst, size_t size, const char *item)
{
    size_t used = strlen(dst);
    int n = snprintf(dst + used, size - used, "%s%s", used ? "," : "", item);

    return (n < 0 || (size_t)n >= size - used) ? -1 : 0;
}

int gb_finish_stdout(const char *cmd)
{
    if (fflush(stdout) != 0 || ferror(stdout))
        return gb_fail(GB_EXIT_IO, cmd, "cannot write to stdout");
    return GB_EXIT_OK;
}

static void on_signal(int sig)
{
    (void)sig;
    gb_interrupted = 1;
}

void gb_catch_interrupts(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* A closed terminal (HUP), Ctrl-\ (QUIT) and a reader of stdout that is
     * gone (PIPE) end a run too: stop the same way, keeping what was
     * measured, rather than die between claiming the output file and the
     * first write, leaving it empty.  Unless ignored: nohup, or ab, which
     * ignores PIPE to hear a build's end as the end of its pipe. */
    static const int others[] = { SIGHUP, SIGQUIT, SIGPIPE };
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        struct sigaction old;
        if (sigaction(others[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(others[i], &sa, NULL);
    }
}
