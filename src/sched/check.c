/* check.c - a schedule's statements applied in order to the nest i, j, k,
 * each refused when it breaks a rule of SCHED.md ("Statements and their
 * legality rules").  Rules about one statement are checked as it applies;
 * rules about the finished nest (where a cache_write or pack sits once
 * every reorder is done and the vectorized loop has moved innermost) are
 * checked at the end and reported at the statement that placed them.
 * Every rule of the language is here, each an apply_ function or a check
 * of the finished nest, so that the rules and SCHED.md's list of them
 * read side by side; the choose blocks, each combination a plain
 * schedule checked here, are check_blocks.c. */
#include "sched_lang.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct checker {
    gb_sched *s;
    const gb_sched_text *text;
    const gb_sched_stmt *st;  /* the statement being applied */
    int line_of[4];           /* parallel, vectorize, cache_write, tensorize: their lines */
    int pack_line[2];
    int prefetch_line[GB_SCHED_PF_SLOTS];
    int unroll_line[GB_SCHED_MAX_LOOPS];
    int param_line[GB_SCHED_MAX_PARAMS];
    char *err;
    size_t errlen;
} checker;

enum { LINE_PARALLEL, LINE_VECTORIZE, LINE_CACHE_WRITE, LINE_TENSORIZE };

static int fail_at(checker *c, int line, gb_sched_op op, const char *fmt, ...)
{
    char reason[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    snprintf(c->err, c->errlen, "%s:%d: %s: %s", c->s->file, line, gb_sched_op_name(op),
             reason);
    return -1;
}

#define FAIL(c, ...) fail_at((c), (c)->st->line, (c)->st->op, __VA_ARGS__)

static int find_loop(const gb_sched *s, const char *name)
{
    for (int l = 0; l < s->nloops; l++)
        if (strcmp(s->loops[l].name, name) == 0)
            return l;
    return -1;
}

static int find_param(const gb_sched *s, const char *name)
{
    for (int p = 0; p < s->nparams; p++)
        if (strcmp(s->params[p].name, name) == 0)
            return p;
    return -1;
}

static int position(const gb_sched *s, int loop)
{
    for (int p = 0; p < s->norder; p++)
        if (s->order[p] == loop)
            return p;
    return -1;
}

/* A loop of the nest as it stands: made, and neither split nor fused since. */
static int live_loop(checker *c, const char *name, int *out)
{
    const gb_sched *s = c->s;
    int l = find_loop(s, name);

    if (l < 0) {
        if (find_param(s, name) >= 0)
            return FAIL(c, "'%s' is a param, not a loop", name);
        return FAIL(c, "no loop '%s'", name);
    }
    if (s->loops[l].split_outer >= 0)
        return FAIL(c, "loop '%s' was split into %s, %s", name,
                    s->loops[s->loops[l].split_outer].name,
                    s->loops[s->loops[l].split_inner].name);
    if (s->loops[l].fused_into >= 0)
        return FAIL(c, "loop '%s' was fused into '%s'", name,
                    s->loops[s->loops[l].fused_into].name);
    *out = l;
    return 0;
}

/* A name a statement makes: unused by loops, params and the grammar, and
 * not made twice by the same statement. */
static int new_name(checker *c, const char *name, int index)
{
    const gb_sched *s = c->s;
    int l = find_loop(s, name), p = find_param(s, name);

    if (gb_sched_is_reserved(name))
        return FAIL(c, "'%s' is a word of the language, not a name", name);
    if (l >= 0)
        return FAIL(c, "name '%s' is used twice (a loop%s)", name,
                    s->loops[l].line ? "" : " of the computation");
    if (p >= 0)
        return FAIL(c, "name '%s' is used twice (a param, line %d)", name, c->param_line[p]);
    for (int i = 0; i < index; i++)
        if (strcmp(c->st->names[i], name) == 0)
            return FAIL(c, "name '%s' is used twice", name);
    return 0;
}

static int is_reduction(const gb_sched *s, int loop)
{
    return s->loops[loop].axis == GB_AXIS_K;
}

/* What a loop already carries: split and fuse come before annotations, so
 * that an annotation always names a loop of the final nest. */
static const char *annotation(const checker *c, int loop, int *line)
{
    const gb_sched *s = c->s;

    if (s->parallel == loop)
        return *line = c->line_of[LINE_PARALLEL], "parallel";
    if (s->vectorize == loop)
        return *line = c->line_of[LINE_VECTORIZE], "vectorized";
    if (s->unroll[loop])
        return *line = c->unroll_line[loop], "unrolled";
    if (s->cache_write == loop)
        return *line = c->line_of[LINE_CACHE_WRITE], "the cache_write site";
    for (int op = 0; op < 2; op++)
        if (s->pack[op] == loop)
            return *line = c->pack_line[op], op ? "the pack B site" : "the pack A site";
    for (int slot = 0; slot < GB_SCHED_PF_SLOTS; slot++)
        if (s->prefetch[slot] == loop || s->prefetch_over[slot] == loop)
            return *line = c->prefetch_line[slot], "a prefetch site";
    return NULL;
}

static int unannotated(checker *c, int loop)
{
    int line = 0;
    const char *what = annotation(c, loop, &line);

    if (what)
        return FAIL(c, "'%s' is %s (line %d); split and fuse come before annotations",
                    c->s->loops[loop].name, what, line);
    return 0;
}

/* A factor as written: a number in range, or a declared param. */
static int check_factor(checker *c, const gb_sched_factor *f)
{
    if (f->param[0]) {
        if (find_param(c->s, f->param) < 0)
            return FAIL(c, find_loop(c->s, f->param) >= 0 ? "'%s' is a loop, not a param"
                                                          : "no param '%s'",
                        f->param);
        return 0;
    }
    if (f->value < 1 || f->value > GB_SCHED_MAX_FACTOR)
        return FAIL(c, "factor %ld is not in 1..%d", f->value, GB_SCHED_MAX_FACTOR);
    return 0;
}

static int add_loop(checker *c, const char *name, int axis, int parent)
{
    gb_sched *s = c->s;
    gb_sched_loop *l;

    if (s->nloops == GB_SCHED_MAX_LOOPS)
        return FAIL(c, "more than %d loops", GB_SCHED_MAX_LOOPS);
    l = &s->loops[s->nloops];
    memset(l, 0, sizeof *l);
    snprintf(l->name, sizeof l->name, "%s", name);
    l->axis = axis;
    l->parent = parent;
    l->split_outer = l->split_inner = -1;
    l->fused_outer = l->fused_inner = l->fused_into = -1;
    l->line = c->st ? c->st->line : 0;
    return s->nloops++;
}

/* loop -> outer, inner at loop's place in the order. */
static int split_loop(checker *c, int loop, const gb_sched_factor *f, const char *outer_name,
                      const char *inner_name)
{
    gb_sched *s = c->s;
    int at = position(s, loop), outer, inner;

    if (s->loops[loop].axis == GB_AXIS_FUSED)
        return FAIL(c, "'%s' is a fused loop; split its parts before fusing",
                    s->loops[loop].name);
    if (unannotated(c, loop) || check_factor(c, f))
        return -1;
    if ((outer = add_loop(c, outer_name, s->loops[loop].axis, loop)) < 0 ||
        (inner = add_loop(c, inner_name, s->loops[loop].axis, loop)) < 0)
        return -1;
    s->loops[loop].split_outer = outer;
    s->loops[loop].split_inner = inner;
    s->loops[loop].factor = *f;
    memmove(s->order + at + 2, s->order + at + 1, (size_t)(s->norder - at - 1) * sizeof(int));
    s->order[at] = outer;
    s->order[at + 1] = inner;
    s->norder++;
    return 0;
}

/* ---- the statements ----------------------------------------------------- */

static int apply_param(checker *c)
{
    const gb_sched_stmt *st = c->st;
    gb_sched_param *p;
    int found = 0;

    if (new_name(c, st->names[0], 0))
        return -1;
    if (c->s->nparams == GB_SCHED_MAX_PARAMS)
        return FAIL(c, "more than %d params", GB_SCHED_MAX_PARAMS);
    if (st->model && gb_sched_model_of(st->names[0]) < 0)
        return FAIL(c, "'%s' = model: the model gives mr, nr, kc, mc, nc and pf", st->names[0]);
    if (!st->model && (st->count < 1 || st->count > GB_SCHED_MAX_FACTOR))
        return FAIL(c, "value %ld is not in 1..%d", st->count, GB_SCHED_MAX_FACTOR);
    p = &c->s->params[c->s->nparams];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", st->names[0]);
    p->value = p->min = p->max = st->count;
    p->nchoices = st->nchoices;
    if (st->model) { /* any value for --param, the set's when there is one */
        p->model = gb_sched_model_of(st->names[0]) + 1;
        p->value = p->min = 1;
        p->max = GB_SCHED_MAX_FACTOR;
    }
    if (st->nchoices == -1) {
        if (st->choices[0] < 1 || st->choices[1] > GB_SCHED_MAX_FACTOR ||
            st->choices[0] > st->choices[1])
            return FAIL(c, "range %ld..%ld is not within 1..%d, low to high", st->choices[0],
                        st->choices[1], GB_SCHED_MAX_FACTOR);
        p->min = st->choices[0];
        p->max = st->choices[1];
        found = st->count >= p->min && st->count <= p->max;
    } else if (st->nchoices > 0) {
        p->min = p->max = st->choices[0];
        for (int i = 0; i < st->nchoices; i++) {
            long v = st->choices[i];
            if (v < 1 || v > GB_SCHED_MAX_FACTOR)
                return FAIL(c, "value %ld of the set is not in 1..%d", v, GB_SCHED_MAX_FACTOR);
            for (int j = 0; j < i; j++)
                if (st->choices[j] == v)
                    return FAIL(c, "value %ld is in the set twice", v);
            p->choices[i] = v;
            p->min = v < p->min ? v : p->min;
            p->max = v > p->max ? v : p->max;
            found |= v == st->count;
        }
    } else {
        found = 1;
    }
    if (!found && !st->model)
        return FAIL(c, "value %ld is not in its own set", st->count);
    if (st->model) {
        /* the model's values reach 8 rows and 64 lanes (model.c); unroll's
         * bound reads the largest */
        const long cap[GB_MODEL_COUNT] = { 8, 64, GB_SCHED_MAX_FACTOR, GB_SCHED_MAX_FACTOR,
                                           GB_SCHED_MAX_FACTOR, 16 };
        const long most = cap[p->model - 1];
        if (st->nchoices == 0)
            p->min = 1, p->max = most;
        else if (p->max < most)
            p->max = most;
        p->value = p->min; /* a start for a range's values; the model's value is per shape */
    }
    c->param_line[c->s->nparams] = st->line;
    c->s->nparams++;
    return 0;
}

/* type T: the element types of A, B and C (SCHED.md, "Types"), stated
 * once, before anything that names a loop, so a reader knows the
 * computation before its schedule. */
static int apply_type(checker *c)
{
    if (c->st != &c->text->stmts[0])
        return FAIL(c, "a schedule states its type first, before any other statement");
    c->s->dtype = c->st->dtype;
    return 0;
}

static int apply_split(checker *c)
{
    int loop;

    if (live_loop(c, c->st->loops[0], &loop) || new_name(c, c->st->names[0], 0) ||
        new_name(c, c->st->names[1], 1))
        return -1;
    return split_loop(c, loop, &c->st->factors[0], c->st->names[0], c->st->names[1]);
}

/* Puts the loops ids[0..n) into the positions they hold, in that order. */
static void place_in_order(gb_sched *s, const int *ids, int n)
{
    int pos[GB_SCHED_MAX_LOOPS];

    for (int i = 0; i < n; i++)
        pos[i] = position(s, ids[i]);
    for (int i = 1; i < n; i++) /* positions ascending */
        for (int j = i; j > 0 && pos[j - 1] > pos[j]; j--) {
            int t = pos[j];
            pos[j] = pos[j - 1];
            pos[j - 1] = t;
        }
    for (int i = 0; i < n; i++)
        s->order[pos[i]] = ids[i];
}

static int apply_tile(checker *c)
{
    const gb_sched_stmt *st = c->st;
    gb_sched *s = c->s;
    int l1, l2, ids[4];

    if (live_loop(c, st->loops[0], &l1) || live_loop(c, st->loops[1], &l2))
        return -1;
    if (l1 == l2)
        return FAIL(c, "loop '%s' is named twice", st->loops[0]);
    for (int i = 0; i < 4; i++)
        if (new_name(c, st->names[i], i))
            return -1;
    /* names: O1 O2 I1 I2 */
    if (split_loop(c, l1, &st->factors[0], st->names[0], st->names[2]) ||
        split_loop(c, l2, &st->factors[1], st->names[1], st->names[3]))
        return -1;
    for (int i = 0; i < 4; i++)
        ids[i] = find_loop(s, st->names[i]);
    place_in_order(s, ids, 4);
    return 0;
}

static int apply_reorder(checker *c)
{
    const gb_sched_stmt *st = c->st;
    int ids[GB_SCHED_MAX_LOOPS];

    for (int i = 0; i < st->nloops; i++) {
        if (live_loop(c, st->loops[i], &ids[i]))
            return -1;
        for (int j = 0; j < i; j++)
            if (ids[j] == ids[i])
                return FAIL(c, "loop '%s' is named twice", st->loops[i]);
    }
    place_in_order(c->s, ids, st->nloops);
    return 0;
}

static int apply_fuse(checker *c)
{
    const gb_sched_stmt *st = c->st;
    gb_sched *s = c->s;
    int l1, l2, f, at;

    if (live_loop(c, st->loops[0], &l1) || live_loop(c, st->loops[1], &l2))
        return -1;
    if (l1 == l2)
        return FAIL(c, "loop '%s' is named twice", st->loops[0]);
    for (int i = 0; i < 2; i++)
        if (is_reduction(s, i ? l2 : l1))
            return FAIL(c, "'%s' is a reduction loop; only spatial loops fuse",
                        st->loops[i]);
    if (position(s, l2) != position(s, l1) + 1)
        return FAIL(c, "'%s' and '%s' are not adjacent, the first directly outside the second",
                    st->loops[0], st->loops[1]);
    if (unannotated(c, l1) || unannotated(c, l2) || new_name(c, st->names[0], 0))
        return -1;
    if ((f = add_loop(c, st->names[0], GB_AXIS_FUSED, -1)) < 0)
        return -1;
    s->loops[f].fused_outer = l1;
    s->loops[f].fused_inner = l2;
    s->loops[l1].fused_into = s->loops[l2].fused_into = f;
    at = position(s, l1);
    s->order[at] = f;
    memmove(s->order + at + 1, s->order + at + 2, (size_t)(s->norder - at - 2) * sizeof(int));
    s->norder--;
    return 0;
}

static int apply_parallel(checker *c)
{
    gb_sched *s = c->s;
    int loop;

    if (live_loop(c, c->st->loops[0], &loop))
        return -1;
    if (is_reduction(s, loop))
        return FAIL(c, "'%s' is a reduction loop: its threads would add into the same C",
                    s->loops[loop].name);
    if (s->parallel >= 0)
        return FAIL(c, "'%s' is parallel already (line %d); one parallel loop per nest",
                    s->loops[s->parallel].name, c->line_of[LINE_PARALLEL]);
    if (s->vectorize == loop)
        return FAIL(c, "'%s' is vectorized (line %d)", s->loops[loop].name,
                    c->line_of[LINE_VECTORIZE]);
    if (s->unroll[loop])
        return FAIL(c, "'%s' is unrolled (line %d)", s->loops[loop].name, c->unroll_line[loop]);
    s->parallel = loop;
    s->parallel_pool = c->st->pool;
    c->line_of[LINE_PARALLEL] = c->st->line;
    return 0;
}

static int apply_vectorize(checker *c)
{
    gb_sched *s = c->s;
    int loop;

    if (live_loop(c, c->st->loops[0], &loop))
        return -1;
    if (is_reduction(s, loop))
        return FAIL(c, "'%s' is a reduction loop; only spatial loops vectorize",
                    s->loops[loop].name);
    if (s->vectorize >= 0)
        return FAIL(c, "'%s' is vectorized already (line %d); one vectorized loop per nest",
                    s->loops[s->vectorize].name, c->line_of[LINE_VECTORIZE]);
    if (s->parallel == loop)
        return FAIL(c, "'%s' is parallel (line %d)", s->loops[loop].name,
                    c->line_of[LINE_PARALLEL]);
    if (s->unroll[loop])
        return FAIL(c, "'%s' is unrolled (line %d)", s->loops[loop].name,
                    c->unroll_line[loop]);
    s->vectorize = loop;
    c->line_of[LINE_VECTORIZE] = c->st->line;
    return 0;
}

/* Whether a loop's extent is a split factor at most max: the inner loop of
 * a split by a number, or by a param whose values all are. */
static int inner_of_small_split(const gb_sched *s, int loop, long max)
{
    const gb_sched_loop *l = &s->loops[loop];
    const gb_sched_factor *f;

    if (l->parent < 0 || s->loops[l->parent].split_inner != loop)
        return 0;
    f = &s->loops[l->parent].factor;
    if (f->param[0])
        return s->params[find_param(s, f->param)].max <= max;
    return f->value <= max;
}

/* The most iterations a loop can have at any shape, as far as the nest
 * says: the inner loop of a split at most its factor (a param's largest
 * value), every piece at most its parent, a fused loop its parts' product;
 * i, j and k are unbounded (LONG_MAX). */
static long max_extent(const gb_sched *s, int loop)
{
    const gb_sched_loop *l = &s->loops[loop];
    long n;

    if (l->axis == GB_AXIS_FUSED) {
        long a = max_extent(s, l->fused_outer), b = max_extent(s, l->fused_inner);
        return a > LONG_MAX / b ? LONG_MAX : a * b;
    }
    if (l->parent < 0)
        return LONG_MAX;
    n = max_extent(s, l->parent);
    if (s->loops[l->parent].split_inner == loop) {
        const gb_sched_factor *f = &s->loops[l->parent].factor;
        long fmax = f->param[0] ? s->params[find_param(s, f->param)].max : f->value;
        if (fmax < n)
            n = fmax;
    }
    return n;
}

/* The copies of its body an unroll makes: its count, or the whole loop,
 * never more than the loop's iterations. */
static long unroll_copies(const gb_sched *s, int loop)
{
    long n = max_extent(s, loop);

    return s->unroll[loop] > 0 && s->unroll[loop] < n ? s->unroll[loop] : n;
}

static int apply_unroll(checker *c)
{
    gb_sched *s = c->s;
    long copies = 1;
    int loop;

    if (live_loop(c, c->st->loops[0], &loop))
        return -1;
    if (s->unroll[loop])
        return FAIL(c, "'%s' is unrolled already (line %d)", s->loops[loop].name,
                    c->unroll_line[loop]);
    if (s->vectorize == loop)
        return FAIL(c, "'%s' is vectorized (line %d)", s->loops[loop].name,
                    c->line_of[LINE_VECTORIZE]);
    if (s->parallel == loop)
        return FAIL(c, "'%s' is parallel (line %d)", s->loops[loop].name,
                    c->line_of[LINE_PARALLEL]);
    if (c->st->count == 0 && !inner_of_small_split(s, loop, GB_SCHED_MAX_UNROLL))
        return FAIL(c, "unrolling all of '%s' needs the inner loop of a split by at most %d "
                       "(or give a count)", s->loops[loop].name, GB_SCHED_MAX_UNROLL);
    s->unroll[loop] = c->st->count ? (int)c->st->count : -1;
    c->unroll_line[loop] = c->st->line;
    /* Unrolled loops are nested (the nest is one), so their copies multiply:
     * three loops of 512 would be 2^27 bodies for the compiler. */
    for (int l = 0; l < s->nloops; l++)
        if (s->unroll[l] && l != loop)
            copies *= unroll_copies(s, l);
    if (copies * unroll_copies(s, loop) > GB_SCHED_MAX_UNROLLED)
        return FAIL(c, "'%s' unrolled %ld times within loops unrolled %ld times is %ld copies "
                       "of the body, over %d", s->loops[loop].name, unroll_copies(s, loop),
                    copies, copies * unroll_copies(s, loop), GB_SCHED_MAX_UNROLLED);
    return 0;
}

static int apply_cache_write(checker *c)
{
    gb_sched *s = c->s;
    int loop;

    if (s->cache_write >= 0)
        return FAIL(c, "C is cached at '%s' already (line %d)", s->loops[s->cache_write].name,
                    c->line_of[LINE_CACHE_WRITE]);
    if (live_loop(c, c->st->loops[0], &loop))
        return -1;
    if (is_reduction(s, loop))
        return FAIL(c, "'%s' is a reduction loop: the tile would be written before its sums "
                       "are complete", s->loops[loop].name);
    s->cache_write = loop;
    c->line_of[LINE_CACHE_WRITE] = c->st->line;
    return 0;
}

static int apply_pack(checker *c)
{
    gb_sched *s = c->s;
    int which = c->st->operand == 'B', loop = GB_SCHED_ROOT;

    if (s->pack[which] != -1)
        return FAIL(c, "%c is packed already (line %d)", c->st->operand, c->pack_line[which]);
    if (!c->st->at_root && live_loop(c, c->st->loops[0], &loop))
        return -1;
    s->pack[which] = loop;
    s->pack_fused[which] = c->st->fused;
    c->pack_line[which] = c->st->line;
    return 0;
}

/* The distance: 1 unless given, at most GB_SCHED_MAX_DISTANCE (a param's
 * largest value too). */
static int check_distance(checker *c, gb_sched_factor *d)
{
    const gb_sched *s = c->s;

    if (c->st->nfactors == 0) {
        memset(d, 0, sizeof *d);
        d->value = 1;
        return 0;
    }
    *d = c->st->factors[0];
    if (d->param[0] == '\0') {
        if (d->value < 1 || d->value > GB_SCHED_MAX_DISTANCE)
            return FAIL(c, "distance %ld is not in 1..%d", d->value, GB_SCHED_MAX_DISTANCE);
        return 0;
    }
    if (check_factor(c, d))
        return -1;
    if (s->params[find_param(s, d->param)].max > GB_SCHED_MAX_DISTANCE)
        return FAIL(c, "param '%s' reaches %ld, over the distance's %d", d->param,
                    s->params[find_param(s, d->param)].max, GB_SCHED_MAX_DISTANCE);
    return 0;
}

static int apply_prefetch(checker *c)
{
    gb_sched *s = c->s;
    const int spread = c->st->nloops == 2; /* `over INNER` (SCHED.md) */
    const int which = c->st->operand - 'A' + (spread ? GB_SCHED_PF_SPREAD : 0);
    int loop, inner = -1;

    if (s->prefetch[which] != -1)
        return FAIL(c, "%c %s already (line %d)", c->st->operand,
                    spread ? "has a spread prefetch" : "is prefetched", c->prefetch_line[which]);
    if (live_loop(c, c->st->loops[0], &loop) ||
        (spread && live_loop(c, c->st->loops[1], &inner)) ||
        check_distance(c, &s->distance[which]))
        return -1;
    if (s->loops[loop].axis == GB_AXIS_FUSED)
        return FAIL(c, "'%s' is a fused loop: its next iterations are no step along one axis",
                    s->loops[loop].name);
    if (inner == loop)
        return FAIL(c, "'%s' is spread over itself: name a loop inside it",
                    s->loops[loop].name);
    s->prefetch[which] = loop;
    s->prefetch_over[which] = inner;
    c->prefetch_line[which] = c->st->line;
    return 0;
}

/* ---- rules of the finished nest ----------------------------------------- */

/* The loop of the order that runs base loop b: b, or the fused loop that
 * took it in. */
/* tensorize LOOP amx: the rows of the run on AMX's tiles (SCHED.md,
 * "Tiles").  What the statement alone decides; where the loops stand once
 * every reorder is done is check_tensorize's. */
static int apply_tensorize(checker *c)
{
    gb_sched *s = c->s;
    int loop;

    if (s->dtype == GB_DTYPE_F32)
        return FAIL(c, "AMX's tiles multiply bf16 and u8s8: state `type bf16` or `type u8s8` "
                       "first");
    if (live_loop(c, c->st->loops[0], &loop))
        return -1;
    if (s->tensorize >= 0)
        return FAIL(c, "'%s' is tensorized already (line %d); one run on the tiles per nest",
                    s->loops[s->tensorize].name, c->line_of[LINE_TENSORIZE]);
    if (s->loops[loop].axis != GB_AXIS_I)
        return FAIL(c, "'%s' is not a piece of i: the tiles' rows are rows of C",
                    s->loops[loop].name);
    if (s->parallel == loop)
        return FAIL(c, "'%s' is parallel (line %d)", s->loops[loop].name,
                    c->line_of[LINE_PARALLEL]);
    if (s->unroll[loop])
        return FAIL(c, "'%s' is unrolled (line %d): its rows are the tiles'",
                    s->loops[loop].name, c->unroll_line[loop]);
    s->tensorize = loop;
    c->line_of[LINE_TENSORIZE] = c->st->line;
    return 0;
}

static int carrier(const gb_sched *s, int b)
{
    while (s->loops[b].fused_into >= 0)
        b = s->loops[b].fused_into;
    return b;
}

/* The final order: the vectorized loop moved innermost (its body's loops
 * stay and widen).  Positions in it, per loop id. */
static void final_positions(const gb_sched *s, int *pos)
{
    int p = 0;

    for (int i = 0; i < s->norder; i++)
        if (s->order[i] != s->vectorize)
            pos[s->order[i]] = p++;
    if (s->vectorize >= 0)
        pos[s->vectorize] = p;
}

/* Appends the unsplit loops of loop's split tree, outer pieces first (so
 * strides fall along the list). */
static void axis_leaves(const gb_sched *s, int loop, int *out, int *n)
{
    const gb_sched_loop *l = &s->loops[loop];

    if (l->split_outer < 0) {
        out[(*n)++] = loop;
        return;
    }
    axis_leaves(s, l->split_outer, out, n);
    axis_leaves(s, l->split_inner, out, n);
}

static int check_cache_write_site(checker *c, const int *pos)
{
    const gb_sched *s = c->s;
    const int site = s->cache_write, line = c->line_of[LINE_CACHE_WRITE];

    if (site < 0)
        return 0;
    if (site == s->vectorize)
        return fail_at(c, line, GB_SCHED_CACHE_WRITE, "'%s' is the vectorized loop",
                       s->loops[site].name);
    for (int axis = 0; axis < 3; axis++) {
        int leaves[GB_SCHED_MAX_LOOPS], n = 0, inside_from = -1;
        axis_leaves(s, axis, leaves, &n);
        for (int i = 0; i < n; i++) {
            int inside = pos[carrier(s, leaves[i])] > pos[site];
            if (axis == GB_AXIS_K && !inside)
                return fail_at(c, line, GB_SCHED_CACHE_WRITE,
                               "reduction loop '%s' is at or outside '%s': the tile would be "
                               "written before its sums are complete",
                               s->loops[leaves[i]].name, s->loops[site].name);
            if (inside && inside_from < 0)
                inside_from = i;
            if (!inside && inside_from >= 0)
                return fail_at(c, line, GB_SCHED_CACHE_WRITE,
                               "'%s' is inside '%s' but '%s' is not: the tile would not be "
                               "a dense block of C", s->loops[leaves[inside_from]].name,
                               s->loops[site].name, s->loops[leaves[i]].name);
        }
    }
    return 0;
}

/* The pass of a fused pack: the outermost loop inside the site along the
 * axis the operand lacks (i for B, j for A), or -1.  The loops that read
 * the operand must all lie inside it, so that its first iteration reads
 * all of the site's part once. */
int gb_sched_fused_pass(const gb_sched *s, int op, const int *pos)
{
    const int other = op ? GB_AXIS_I : GB_AXIS_J, site = s->pack[op];
    int pass = -1, reads = INT_MAX;

    /* the outermost loop inside the site that reads the operand */
    for (int l = 0; l < s->nloops; l++)
        if (s->loops[l].split_outer < 0 && s->loops[l].axis != other &&
            s->loops[l].axis != GB_AXIS_FUSED && pos[carrier(s, l)] > pos[site] &&
            pos[carrier(s, l)] < reads)
            reads = pos[carrier(s, l)];
    /* the innermost other loop outside it */
    for (int l = 0; l < s->nloops; l++)
        if (s->loops[l].split_outer < 0 && s->loops[l].fused_into < 0 &&
            s->loops[l].axis == other && pos[l] > pos[site] && pos[l] < reads &&
            (pass < 0 || pos[l] > pos[pass]))
            pass = l;
    return pass;
}

static int check_fused_pack(checker *c, int op, const int *pos)
{
    const gb_sched *s = c->s;
    const int site = s->pack[op], line = c->pack_line[op];
    const char *other = op ? "i" : "j";
    int pass;

    if (site == GB_SCHED_ROOT)
        return fail_at(c, line, GB_SCHED_PACK, "a fused pack needs a loop, not root: its copy "
                       "is made in the first pass of a loop inside it");
    pass = gb_sched_fused_pass(s, op, pos);
    if (pass < 0) /* the outermost other loop, for the message */
        for (int l = 0; l < s->nloops; l++)
            if (s->loops[l].split_outer < 0 && s->loops[l].fused_into < 0 &&
                s->loops[l].axis == (op ? GB_AXIS_I : GB_AXIS_J) && pos[l] > pos[site] &&
                (pass < 0 || pos[l] < pos[pass]))
                pass = l;
    if (pass < 0)
        return fail_at(c, line, GB_SCHED_PACK, "fused: no unfused %s loop inside '%s' to make "
                       "the copy in its first pass", other, s->loops[site].name);
    if (s->parallel >= 0 && pos[s->parallel] > pos[site])
        return fail_at(c, line, GB_SCHED_PACK, "fused: parallel loop '%s' is inside '%s': "
                       "threads would read the copy before its pass wrote it",
                       s->loops[s->parallel].name, s->loops[site].name);
    for (int l = 0; l < s->nloops; l++) {
        const int axis = s->loops[l].axis;
        if (s->loops[l].split_outer >= 0 || s->loops[l].axis == GB_AXIS_FUSED ||
            axis == (op ? GB_AXIS_I : GB_AXIS_J))
            continue;
        if (pos[carrier(s, l)] > pos[site] && pos[carrier(s, l)] <= pos[pass])
            return fail_at(c, line, GB_SCHED_PACK, "fused: '%s' reads %c outside the pass "
                           "loop '%s': the first pass would not copy all of it",
                           s->loops[l].name, op ? 'B' : 'A', s->loops[pass].name);
    }
    return 0;
}

static int check_pack_sites(checker *c, const int *pos)
{
    const gb_sched *s = c->s;

    for (int op = 0; op < 2; op++)
        if (s->pack[op] >= 0 && s->pack[op] == s->vectorize)
            return fail_at(c, c->pack_line[op], GB_SCHED_PACK, "'%s' is the vectorized loop",
                           s->loops[s->pack[op]].name);
    for (int op = 0; op < 2; op++)
        if (s->pack_fused[op] && check_fused_pack(c, op, pos))
            return -1;
    for (int slot = 0; slot < GB_SCHED_PF_SLOTS; slot++) {
        const int site = s->prefetch[slot], inner = s->prefetch_over[slot];
        const int line = c->prefetch_line[slot];
        if (site >= 0 && site == s->vectorize)
            return fail_at(c, line, GB_SCHED_PREFETCH,
                           "'%s' is the vectorized loop: its iterations are lanes",
                           s->loops[site].name);
        if (inner < 0)
            continue;
        if (inner == s->vectorize)
            return fail_at(c, line, GB_SCHED_PREFETCH,
                           "'%s' is the vectorized loop: its iterations are lanes",
                           s->loops[inner].name);
        if (pos[inner] < pos[site])
            return fail_at(c, line, GB_SCHED_PREFETCH, "'%s' is not inside '%s': the box is "
                           "spread over loops inside it", s->loops[inner].name,
                           s->loops[site].name);
        if (inner == s->parallel)
            return fail_at(c, line, GB_SCHED_PREFETCH, "'%s' is the parallel loop: its "
                           "iterations are the threads'", s->loops[inner].name);
        for (int o = GB_SCHED_PF_SPREAD; o < slot; o++)
            if (s->prefetch_over[o] == inner)
                return fail_at(c, line, GB_SCHED_PREFETCH, "'%s' spreads a prefetch already "
                               "(line %d): its iterations split once", s->loops[inner].name,
                               c->prefetch_line[o]);
    }
    return 0;
}

/* The tensorized loop in the finished nest: directly inside one k loop
 * (the run, whose k the tiles step through) and directly outside the
 * vectorized loop (the tiles' columns); A read in place, whose rows are
 * the A tiles' rows; B packed, not fused, outside the run, its pairs or
 * quads of k the B tiles' rows; no cache_write (C is the tiles'), no
 * prefetch in the run. */
static int check_tensorize(checker *c, const int *pos)
{
    const gb_sched *s = c->s;
    const int t = s->tensorize, line = c->line_of[LINE_TENSORIZE];
    int outer = -1;

    if (t < 0)
        return 0;
    if (s->vectorize < 0 || s->loops[s->vectorize].axis != GB_AXIS_J)
        return fail_at(c, line, GB_SCHED_TENSORIZE, "no vectorized piece of j: its lanes are "
                       "the tiles' columns (vectorize one)");
    if (pos[t] != pos[s->vectorize] - 1)
        return fail_at(c, line, GB_SCHED_TENSORIZE, "'%s' is not directly outside the "
                       "vectorized loop '%s'", s->loops[t].name, s->loops[s->vectorize].name);
    for (int i = 0; i < s->norder; i++)
        if (pos[s->order[i]] == pos[t] - 1)
            outer = s->order[i];
    if (outer < 0 || s->loops[outer].axis != GB_AXIS_K)
        return fail_at(c, line, GB_SCHED_TENSORIZE, "the loop directly outside '%s' is not a "
                       "piece of k: the tiles hold C's sums over its k", s->loops[t].name);
    if (s->cache_write >= 0)
        return fail_at(c, line, GB_SCHED_TENSORIZE, "C is cached (line %d): the tiles hold "
                       "C's block", c->line_of[LINE_CACHE_WRITE]);
    if (s->pack[0] != -1)
        return fail_at(c, line, GB_SCHED_TENSORIZE, "A is packed (line %d): the A tiles are "
                       "A's rows, read in place", c->pack_line[0]);
    if (s->pack[1] == -1)
        return fail_at(c, line, GB_SCHED_TENSORIZE, "B is not packed: the B tiles are rows "
                       "of its pack, pairs or quads of k side by side");
    if (s->pack_fused[1])
        return fail_at(c, line, GB_SCHED_TENSORIZE, "B's pack is fused (line %d): the tiles "
                       "read B's pack whole", c->pack_line[1]);
    if (s->pack[1] != GB_SCHED_ROOT && pos[s->pack[1]] >= pos[outer])
        return fail_at(c, line, GB_SCHED_TENSORIZE, "B is packed at '%s', inside the run: "
                       "pack it outside '%s'", s->loops[s->pack[1]].name, s->loops[outer].name);
    for (int slot = 0; slot < GB_SCHED_PF_SLOTS; slot++)
        for (int w = 0; w < 2; w++) {
            const int l = w ? s->prefetch_over[slot] : s->prefetch[slot];
            if (l >= 0 && (l == outer || l == t))
                return fail_at(c, c->prefetch_line[slot], GB_SCHED_PREFETCH, "'%s' is in the "
                               "run on the tiles (line %d), which prefetches nothing",
                               s->loops[l].name, line);
        }
    return 0;
}

/* `parallel LOOP pool`: each of the pool's threads runs the kernel's body
 * with its share of LOOP's iterations and nothing between them, so LOOP
 * holds the whole nest (outermost once the nest is final) and no pack is
 * filled outside it (at root). */
static int check_pool(checker *c, const int *pos)
{
    const gb_sched *s = c->s;
    const int line = c->line_of[LINE_PARALLEL];

    if (s->parallel < 0 || !s->parallel_pool)
        return 0;
    if (pos[s->parallel] != 0) /* a parallel loop is never fused into another */
        return fail_at(c, line, GB_SCHED_PARALLEL, "pool: '%s' is not the outermost loop: "
                       "the pool's threads share nothing but the parallel loop's iterations",
                       s->loops[s->parallel].name);
    for (int op = 0; op < 2; op++)
        if (s->pack[op] == GB_SCHED_ROOT)
            return fail_at(c, line, GB_SCHED_PARALLEL, "pool: %c is packed at root (line %d), "
                           "outside the parallel loop: the pool's threads share nothing but "
                           "its iterations", op ? 'B' : 'A', c->pack_line[op]);
    return 0;
}

int gb_sched_check_plain(const gb_sched_text *text, gb_sched *out, char *err, size_t errlen)
{
    static const char *const axes[] = { "i", "j", "k" };
    checker c;
    int pos[GB_SCHED_MAX_LOOPS];

    memset(out, 0, sizeof *out);
    memset(&c, 0, sizeof c);
    c.s = out;
    c.text = text;
    c.err = err;
    c.errlen = errlen;
    err[0] = '\0';
    snprintf(out->file, sizeof out->file, "%s", text->file);
    out->parallel = out->vectorize = out->cache_write = -1;
    out->pack[0] = out->pack[1] = -1;
    for (int slot = 0; slot < GB_SCHED_PF_SLOTS; slot++)
        out->prefetch[slot] = out->prefetch_over[slot] = -1;
    out->tensorize = -1;
    for (int a = 0; a < 3; a++)
        out->order[out->norder++] = add_loop(&c, axes[a], a, -1);
    for (int i = 0; i < text->nstmts; i++) {
        static int (*const apply[])(checker *) = {
            [GB_SCHED_PARAM] = apply_param,         [GB_SCHED_SPLIT] = apply_split,
            [GB_SCHED_TILE] = apply_tile,           [GB_SCHED_REORDER] = apply_reorder,
            [GB_SCHED_FUSE] = apply_fuse,           [GB_SCHED_PARALLEL] = apply_parallel,
            [GB_SCHED_VECTORIZE] = apply_vectorize, [GB_SCHED_UNROLL] = apply_unroll,
            [GB_SCHED_CACHE_WRITE] = apply_cache_write, [GB_SCHED_PACK] = apply_pack,
            [GB_SCHED_PREFETCH] = apply_prefetch,   [GB_SCHED_TYPE] = apply_type,
            [GB_SCHED_TENSORIZE] = apply_tensorize,
        };
        c.st = &text->stmts[i];
        if (apply[c.st->op](&c) != 0)
            return -1;
    }
    final_positions(out, pos);
    if (check_cache_write_site(&c, pos) || check_pack_sites(&c, pos) ||
        check_tensorize(&c, pos) || check_pool(&c, pos))
        return -1;
    return 0;
}
