/*
 * history_cmd.h - what `gemmbench history`'s two command files share:
 * history_cmd.c (add, changes, html) and history_confirm.c (confirm,
 * bisect: builds of commits measured by gemmbench ab).
 */
#ifndef GB_HISTORY_CMD_H
#define GB_HISTORY_CMD_H

#include "history.h"

/* The command line of `gemmbench history`. */
typedef struct gb_history_args {
    const char *store, *commit, *date, *machine, *output;
    const char *anchor, *anchor_commit;   /* add --anchor FILE, --anchor-commit REV */
    double threshold_pct, alpha;
    int json, force, help;
    int best;                /* --value best */
    char **ab_args;          /* after `--`: handed to gemmbench ab */
    int nab_args;
} gb_history_args;

/* Reads the store, its annotations and their analysis; the exit status
 * (GB_EXIT_OK: all filled; release with gb_history_unload). */
int gb_history_load(const gb_history_args *a, const char *cmd, gb_history_store *s,
                    gb_history_annotations *notes, gb_history_view *v);
void gb_history_unload(gb_history_store *s, gb_history_annotations *notes, gb_history_view *v);

/* confirm (bisect 0) or bisect the change named "BEFORE..AFTER"; the exit
 * status. */
int gb_history_confirm(const gb_history_args *a, const char *change, int bisect);

#endif
