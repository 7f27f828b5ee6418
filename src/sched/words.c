/* words.c - the words of the grammar (SCHED.md, "Grammar"): the statements'
 * names and the words that are not names.  In a file of their own so that
 * the stages depend one way: parse.c reads them to know a statement, check.c
 * to refuse one as a new name, and neither reaches into the other.  A new
 * statement adds its name here, at its gb_sched_op. */
#include "sched_lang.h"

#include <string.h>

static const char *const statement_names[] = {
    [GB_SCHED_PARAM] = "param",         [GB_SCHED_SPLIT] = "split",
    [GB_SCHED_TILE] = "tile",           [GB_SCHED_REORDER] = "reorder",
    [GB_SCHED_FUSE] = "fuse",           [GB_SCHED_PARALLEL] = "parallel",
    [GB_SCHED_VECTORIZE] = "vectorize", [GB_SCHED_UNROLL] = "unroll",
    [GB_SCHED_CACHE_WRITE] = "cache_write", [GB_SCHED_PACK] = "pack",
    [GB_SCHED_PREFETCH] = "prefetch",   [GB_SCHED_CHOOSE] = "choose",
    [GB_SCHED_OR] = "or",               [GB_SCHED_END] = "end",
    [GB_SCHED_TYPE] = "type",           [GB_SCHED_TENSORIZE] = "tensorize",
};
#define NSTATEMENTS (sizeof statement_names / sizeof statement_names[0])

/* Never a loop or param name: a loop named `in` would make `param` lines
 * ambiguous. */
static const char *const reserved_words[] = { "in", "at", "root", "over" };

const char *gb_sched_op_name(gb_sched_op op)
{
    return (size_t)op < NSTATEMENTS ? statement_names[op] : "?";
}

int gb_sched_op_of(const char *word)
{
    for (size_t op = 0; op < NSTATEMENTS; op++)
        if (strcmp(word, statement_names[op]) == 0)
            return (int)op;
    return -1;
}

int gb_sched_is_reserved(const char *name)
{
    if (gb_sched_op_of(name) >= 0)
        return 1;
    for (size_t i = 0; i < sizeof reserved_words / sizeof reserved_words[0]; i++)
        if (strcmp(name, reserved_words[i]) == 0)
            return 1;
    return 0;
}
