/* command.c - errors, exit statuses and signals shared by the subcommands; see command.h. */
#define _GNU_SOURCE
#include "command.h"

#include <getopt.h>
#include <stdarg.h>
#include <string.h>

volatile sig_atomic_t gb_interrupted;

static void vreport(const char *cmd, const char *fmt, va_list ap, int with_help)
{
    fputs("gemmbench: ", stderr);
    if (cmd)
        fprintf(stderr, "%s: ", cmd);
    vfprintf(stderr, fmt, ap);
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

int gb_getopt_fail(const char *cmd, int ch, char **argv)
{
    if (ch == ':')
        return gb_usage(cmd, "option '%s' needs a value", argv[optind - 1]);
    if (optopt > 0 && optopt < 256)
        return gb_usage(cmd, "unknown option '-%c'", optopt);
    return gb_usage(cmd, "unknown option '%s'", argv[optind - 1]);
}

int gb_help(const char *cmd, const char *text)
{
    fputs(text, stdout);
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
}
