/* fuzz_space.c - any bytes as a search-space file (`gemmbench tune --space`,
 * src/sched/space.c): parsed from memory (gb_space_parse) and read as a file
 * (gb_space_load), and when accepted, walked the way the structure search
 * walks it (src/tune/search.c): the file's own point, random ones and
 * mutations, each written out as schedule text and checked; a point the
 * checker accepts is resolved for two shapes and lowered to C (nothing is
 * compiled).  Besides the sanitizers: a refusal is one line that names the
 * file and a line (FILE:LINE:), and the file and the buffer get the same
 * verdict and message; an accepted space's blocks, params and values are
 * within the header's limits (values increasing, the file's own among
 * them); every point stays in range, a mutation changes at most two
 * choices, and a point's text is whole lines (never left unterminated: the
 * buffers hold 'x' before each call), every line of the file in its place. */
#include "fuzz_util.h"
#include "sched_lang.h"
#include "sched_space.h"

/* err is one line that begins "NAME:" followed by a line number. */
static void check_refusal(const char *err, const char *name)
{
    const size_t n = strlen(name);

    if (strncmp(err, name, n) != 0 || err[n] != ':' || err[n + 1] < '1' || err[n + 1] > '9' ||
        strchr(err, '\n') != NULL)
        abort();
}

static void check_space(const gb_space *s)
{
    if (s->nblocks < 0 || s->nblocks > GB_SPACE_MAX_BLOCKS || s->nparams < 0 ||
        s->nparams > GB_SCHED_MAX_PARAMS || s->nlines < 0 || s->nlines > GB_SCHED_MAX_LINES ||
        !(gb_space_size(s) >= 1.0))
        abort();
    for (int b = 0; b < s->nblocks; b++)
        if (s->nalts[b] < 2 || s->nalts[b] > GB_SPACE_MAX_ALTS)
            abort(); /* a block has at least two alternatives */
    for (int i = 0; i < s->nparams; i++) {
        const gb_space_param *p = &s->params[i];
        if (p->nvalues < 1 || p->nvalues > GB_SCHED_MAX_CHOICES || p->initial < 0 ||
            p->initial >= p->nvalues)
            abort();
        for (int v = 1; v < p->nvalues; v++)
            if (p->values[v - 1] >= p->values[v])
                abort(); /* increasing: index +-1 is a neighbour */
    }
}

static void check_point(const gb_space *s, const gb_space_point *p)
{
    for (int b = 0; b < s->nblocks; b++)
        if (p->alt[b] < 0 || p->alt[b] >= s->nalts[b])
            abort();
    for (int i = 0; i < s->nparams; i++)
        if (p->value[i] < 0 || p->value[i] >= s->params[i].nvalues)
            abort();
}

static char *fill(char *buf, size_t len)
{
    memset(buf, 'x', len - 1);
    buf[len - 1] = '\0';
    return buf;
}

/* Empty, or lines each ended by a newline. */
static int whole_lines(const char *text)
{
    const size_t n = strlen(text);
    return n == 0 || text[n - 1] == '\n';
}

static int choices_changed(const gb_space *s, const gb_space_point *a, const gb_space_point *b)
{
    int n = 0;

    for (int i = 0; i < s->nblocks; i++)
        n += a->alt[i] != b->alt[i];
    for (int i = 0; i < s->nparams; i++)
        n += a->value[i] != b->value[i];
    return n;
}

/* A checked point's nest resolved and lowered, as fuzz_sched does: only the
 * nest's checked names and numbers reach the C. */
static void lower(const gb_sched *nest)
{
    static const int shapes[][3] = { { 7, 33, 100 }, { 64, 48, 32 } };
    gb_params none = { 0 };
    char err[512];

    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        gb_sched_plan *pl = gb_sched_plan_new(nest, &none, shapes[i][0], shapes[i][1],
                                              shapes[i][2], err, sizeof err);
        char *c;
        if (pl == NULL)
            continue;
        c = gb_sched_lower(pl, "gb_sched_kernel");
        gb_sched_plan_free(pl);
        if (c == NULL)
            abort();
        fuzz_check_lowered(c);
        free(c);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static gb_space space, from_file;
    static gb_sched nest;
    static char text[GB_SPACE_MAX_TEXT], dense[GB_SPACE_MAX_TEXT];
    const char *path = fuzz_file(data, size);
    char err[512], file_err[512];
    gb_space_point p, before;
    unsigned rng = (unsigned)size * 2654435761u | 1u;
    int rc, file_rc;

    rc = gb_space_parse("f.space", (const char *)data, size, &space, err, sizeof err);
    file_rc = gb_space_load(path, &from_file, file_err, sizeof file_err);
    if (rc != file_rc)
        abort(); /* the file and its bytes get the same verdict */
    if (rc != 0) {
        /* ... and the same message, as far as the longer name leaves it */
        const char *mine = err + strlen("f.space"), *its = file_err + strlen(path);
        check_refusal(err, "f.space");
        check_refusal(file_err, path);
        if (strlen(file_err) < sizeof file_err - 1 ? strcmp(mine, its) != 0
                                                   : strncmp(mine, its, strlen(its)) != 0)
            abort();
        return 0;
    }
    gb_space_free(&from_file);
    check_space(&space);

    gb_space_initial(&space, &p);
    for (int n = 0; n < 12; n++) {
        check_point(&space, &p);
        /* keep_lines: one line of text per line of the file, in its place
         * (a refusal's LINE is the file's); the dense text is no longer.
         * Both are whole lines: the buffers are filled with 'x' first, so
         * that a text left unterminated (or stale) cannot pass. */
        if (gb_space_text(&space, &p, 1, fill(text, sizeof text), sizeof text) == 0) {
            int lines = 0;
            for (const char *q = text; *q; q++)
                lines += *q == '\n';
            if (lines != space.nlines || !whole_lines(text))
                abort();
            if (gb_space_text(&space, &p, 0, fill(dense, sizeof dense), sizeof dense) != 0 ||
                !whole_lines(dense) || strlen(dense) > strlen(text))
                abort();
        }
        if (gb_space_check(&space, &p, &nest, err, sizeof err) != 0)
            check_refusal(err, "f.space");
        else if (n < 3)
            lower(&nest);
        before = p;
        if (n % 3 == 2) {
            gb_space_random(&space, &rng, &p);
        } else {
            gb_space_mutate(&space, &rng, &p);
            if (choices_changed(&space, &before, &p) > 2 ||
                (gb_space_size(&space) == 1.0 && choices_changed(&space, &before, &p) != 0))
                abort();
        }
    }
    gb_space_free(&space);
    return 0;
}
