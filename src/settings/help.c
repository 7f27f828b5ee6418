/* help.c - a command's --help lines, written from the settings table. */
#include "settings.h"

#include <string.h>

#define HELP_COLUMN 25   /* where the help text starts */
#define HELP_WIDTH 79

/* "  -v, --variant LIST" */
static void write_flag(FILE *out, const gb_setting *s, int *col)
{
    char left[96];

    if (s->letter)
        snprintf(left, sizeof left, "  -%c, --%s", s->letter, s->flag);
    else
        snprintf(left, sizeof left, "      --%s", s->flag);
    if (s->value_name) {
        strncat(left, " ", sizeof left - strlen(left) - 1);
        strncat(left, s->value_name, sizeof left - strlen(left) - 1);
    }
    fputs(left, out);
    *col = (int)strlen(left);
}

/* text from column *col on, in words, each line from HELP_COLUMN. */
static void write_wrapped(FILE *out, const char *text, int *col)
{
    while (*text) {
        size_t word = strcspn(text, " ");
        if (*col > HELP_COLUMN && *col + 1 + (int)word > HELP_WIDTH) {
            fprintf(out, "\n%*s", HELP_COLUMN, "");
            *col = HELP_COLUMN;
        } else if (*col > HELP_COLUMN) {
            fputc(' ', out);
            (*col)++;
        }
        fwrite(text, 1, word, out);
        *col += (int)word;
        text += word;
        while (*text == ' ')
            text++;
    }
}

static void write_entry(FILE *out, const gb_setting *s)
{
    char dflt[256] = "";
    int col;

    write_flag(out, s, &col);
    /* Two blanks at least between the flag and its text, else a line of its own. */
    if (col > HELP_COLUMN - 2)
        fprintf(out, "\n%*s", HELP_COLUMN, "");
    else
        fprintf(out, "%*s", HELP_COLUMN - col, "");
    col = HELP_COLUMN;
    write_wrapped(out, s->help, &col);
    /* A switch's default is off; its initial is bench.conf's word for that. */
    if (gb_setting_takes_value(s) && (s->initial || s->default_note)) {
        snprintf(dflt, sizeof dflt, s->initial ? "(default %s)" : "(default: %s)",
                 s->initial ? s->initial : s->default_note);
        write_wrapped(out, dflt, &col);
    }
    fputc('\n', out);
}

static int shown(const gb_setting *s, unsigned cmd)
{
    return (s->commands & cmd) && !s->hidden;
}

void gb_settings_write_help(FILE *out, unsigned cmd, int headings)
{
    if (!headings) {
        for (size_t i = 0; i < gb_setting_count; i++)
            if (shown(&gb_settings[i], cmd))
                write_entry(out, &gb_settings[i]);
        return;
    }
    /* Each group once, where its first entry stands, with all its entries. */
    for (size_t i = 0; i < gb_setting_count; i++) {
        const char *group = gb_settings[i].group;
        int first = shown(&gb_settings[i], cmd);
        for (size_t j = 0; j < i && first; j++)
            if (shown(&gb_settings[j], cmd) && gb_settings[j].group && group &&
                strcmp(gb_settings[j].group, group) == 0)
                first = 0;
        if (!first)
            continue;
        if (group)
            fprintf(out, "%s\n", group);
        for (size_t j = i; j < gb_setting_count; j++)
            if (shown(&gb_settings[j], cmd) &&
                (group ? gb_settings[j].group && strcmp(gb_settings[j].group, group) == 0
                       : j == i))
                write_entry(out, &gb_settings[j]);
    }
}
