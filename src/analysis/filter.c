/* filter.c - the --variant/--kernel/--dtype selection of result entries; see filter.h. */
#include "filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemmbench.h"
#include "parse.h"

void gb_filter_init(gb_filter *f)
{
    f->items = NULL;
    f->n = 0;
}

struct add_arg {
    gb_filter *f;
    gb_filter_kind kind;
    int added;
};

static int add_item(const char *item, void *arg)
{
    struct add_arg *a = arg;
    gb_filter_item *grown;

    if (strlen(item) >= sizeof a->f->items[0].name)
        return -1;
    grown = realloc(a->f->items, (size_t)(a->f->n + 1) * sizeof *grown);
    if (grown == NULL)
        return -2;
    a->f->items = grown;
    snprintf(grown[a->f->n].name, sizeof grown[a->f->n].name, "%s", item);
    grown[a->f->n].kind = a->kind;
    grown[a->f->n].used = 0;
    a->f->n++;
    a->added++;
    return 0;
}

static const char *flag_of(gb_filter_kind kind)
{
    return kind == GB_FILTER_KERNEL ? "--kernel" : kind == GB_FILTER_DTYPE ? "--dtype"
                                                                           : "--variant";
}

/* A --dtype item that is no type is refused when given, not reported later
 * as matching nothing: "all" or one of gb_dtype_parse's names. */
static int bad_dtype(const gb_filter *f, int from)
{
    gb_dtype t;

    for (int i = from; i < f->n; i++)
        if (strcmp(f->items[i].name, "all") != 0 && gb_dtype_parse(f->items[i].name, &t) != 0)
            return i;
    return -1;
}

int gb_filter_add(gb_filter *f, gb_filter_kind kind, const char *list, char *err,
                  size_t errlen)
{
    struct add_arg a = { f, kind, 0 };
    int from = f->n, bad;
    int rc = gb_split_list(list, add_item, &a);

    if (rc == -2) {
        snprintf(err, errlen, "out of memory");
        return -2;
    }
    if (rc != 0) {
        char shown[96];
        gb_printable(list, 60, shown, sizeof shown);
        snprintf(err, errlen, "%s '%s' %s", flag_of(kind), shown,
                 gb_split_why(rc) ? gb_split_why(rc) : "is malformed");
        return -1;
    }
    if (a.added == 0) {
        snprintf(err, errlen, "%s '%s' names nothing", flag_of(kind), list);
        return -1;
    }
    if (kind == GB_FILTER_DTYPE && (bad = bad_dtype(f, from)) >= 0) {
        char shown[96];
        gb_printable(f->items[bad].name, 60, shown, sizeof shown);
        snprintf(err, errlen, "--dtype '%s' is not a type: f32, bf16 or u8s8", shown);
        return -1;
    }
    return 0;
}

static int item_matches(const gb_filter_item *it, const gb_entry *e)
{
    if (strcmp(it->name, "all") == 0)
        return 1;
    if (it->kind == GB_FILTER_KERNEL)
        return strcmp(it->name, e->kernel) == 0;
    if (it->kind == GB_FILTER_DTYPE)
        return strcmp(it->name, gb_dtype_name(e->dtype)) == 0;
    return strcmp(it->name, e->variant) == 0 || strcmp(it->name, e->label) == 0 ||
           strcmp(it->name, e->family) == 0;
}

int gb_filter_match(gb_filter *f, const gb_entry *e)
{
    int any[GB_FILTER_KINDS] = { 0 }, hit[GB_FILTER_KINDS] = { 0 };

    /* Every item sees every entry, so that `used` is complete. */
    for (int i = 0; i < f->n; i++) {
        gb_filter_item *it = &f->items[i];
        any[it->kind] = 1;
        if (item_matches(it, e)) {
            it->used = 1;
            hit[it->kind] = 1;
        }
    }
    for (int k = 0; k < GB_FILTER_KINDS; k++)
        if (any[k] && !hit[k])
            return 0;
    return 1;
}

int gb_filter_check_used(const gb_filter *f, const char *where, char *err, size_t errlen)
{
    for (int i = 0; i < f->n; i++)
        if (!f->items[i].used) {
            char shown[256];
            gb_printable(f->items[i].name, 60, shown, sizeof shown);
            snprintf(err, errlen, "%s '%s' matches no entry of %s", flag_of(f->items[i].kind),
                     shown, where);
            return -1;
        }
    return 0;
}

void gb_filter_free(gb_filter *f)
{
    free(f->items);
    gb_filter_init(f);
}
