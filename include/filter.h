/*
 * filter.h - the --variant and --kernel selection of entries read from result
 * files, one meaning everywhere (compare, report, ab):
 *   --variant items match an entry's variant name, its label
 *     (rule_based[tk=16], packed+prepack) or its family;
 *   --kernel items match its kernel name;
 *   --dtype items (f32, bf16, u8s8) match its type (files from before
 *     types: f32);
 *   "all" matches everything; no items of a kind: everything passes.
 * Lists are comma lists, repeatable; a comma inside brackets belongs to the
 * label.  An item that matches no entry is a typo, reported as an error
 * rather than shown as an empty table.
 */
#ifndef GB_FILTER_H
#define GB_FILTER_H

#include <stddef.h>

#include "resultfile.h"

typedef enum gb_filter_kind {
    GB_FILTER_VARIANT, GB_FILTER_KERNEL, GB_FILTER_DTYPE, GB_FILTER_KINDS
} gb_filter_kind;

typedef struct gb_filter_item {
    char name[256];
    gb_filter_kind kind;
    int used;                /* some entry matched it */
} gb_filter_item;

typedef struct gb_filter {
    gb_filter_item *items;
    int n;
} gb_filter;

/* An empty filter (everything passes). */
void gb_filter_init(gb_filter *f);
/* Adds a comma list of one kind.  0; -1 with err when the list names nothing,
 * an item is too long or a --dtype item is not a type; -2 when memory runs
 * out. */
int gb_filter_add(gb_filter *f, gb_filter_kind kind, const char *list, char *err,
                  size_t errlen);
/* Whether e passes every kind; marks every item that matches e. */
int gb_filter_match(gb_filter *f, const gb_entry *e);
/* 0 when every item matched some entry; else -1 with err
 * "--variant 'x' matches no entry of WHERE". */
int gb_filter_check_used(const gb_filter *f, const char *where, char *err, size_t errlen);
void gb_filter_free(gb_filter *f);

#endif
