/* main.c - runs the registered tests: all but the slow ones, the slow ones
 * (--slow), or those named on the command line. */
#include "test.h"

#include <stdlib.h>

#ifdef GB_HAVE_HWLOC
#include <hwloc.h>
#endif

static gb_test *tests;
static int current_failures;
static const char *current_name;
static const char *current_skip;

void gb_test_register(gb_test *t)
{
    /* Constructors run in link order; keep registration order. */
    gb_test **tail = &tests;
    while (*tail)
        tail = &(*tail)->next;
    t->next = NULL;
    *tail = t;
}

void gb_test_skip(const char *why)
{
    current_skip = why;
}

void gb_test_fail(const char *file, int line, const char *expr)
{
    current_failures++;
    printf("  FAIL %s (%s:%d): %s\n", current_name, file, line, expr);
}

int main(int argc, char **argv)
{
    int passed = 0, failed = 0, skipped = 0;

    setvbuf(stdout, NULL, _IOLBF, 0);
#ifdef GB_HAVE_HWLOC
    /* hwloc opens its plugins (dlopen) when a process makes its first
     * topology and closes them when the last one goes.  packed detects the
     * machine (a topology made and destroyed) in every prepare(), and the
     * exactness tests call it thousands of times: half their time went on
     * opening and closing the plugins.  One topology kept for the binary's
     * life opens them once; what a detection finds is the same. */
    hwloc_topology_t keep_plugins_open = NULL;
    if (hwloc_topology_init(&keep_plugins_open) != 0)
        keep_plugins_open = NULL;
#endif
    /* No argument: the tests that are not slow; --slow: the slow ones;
     * names: those tests, slow or not. */
    int slow = argc > 1 && strcmp(argv[1], "--slow") == 0;
    for (gb_test *t = tests; t; t = t->next) {
        int selected = argc < 2 ? !t->slow : slow && argc == 2 ? t->slow : 0;
        for (int i = 1 + slow; i < argc; i++)
            if (strcmp(argv[i], t->name) == 0)
                selected = 1;
        if (!selected)
            continue;
        current_name = t->name;
        current_failures = 0;
        current_skip = NULL;
        t->fn();
        if (current_failures) {
            failed++;
            printf("FAIL %s\n", t->name);
        } else if (current_skip) {
            skipped++;
            printf("skip %s: %s\n", t->name, current_skip);
        } else {
            passed++;
            printf("ok   %s\n", t->name);
        }
    }
#ifdef GB_HAVE_HWLOC
    if (keep_plugins_open)
        hwloc_topology_destroy(keep_plugins_open);
#endif
    printf("unit: %d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}
