/* space.c - a search space of schedules: a schedule file with choice points
 * (its params' `in` sets, and `choose ... or ... end` blocks of alternative
 * statements), the points of it and the schedule text of each. */
#include "sched_space.h"
#include "machine.h"
#include "parse.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MARK_NONE, MARK_CHOOSE, MARK_OR, MARK_END };

static const char *const mark_names[] = { "", "choose", "or", "end" };

/* The marker a line is (its first word), or MARK_NONE; *rest: what follows
 * the word, blanks skipped. */
static int line_mark(const char *line, int n, const char **rest)
{
    int at = 0, w;

    while (at < n && (line[at] == ' ' || line[at] == '\t'))
        at++;
    w = at;
    while (w < n && line[w] >= 'a' && line[w] <= 'z')
        w++;
    for (int m = MARK_CHOOSE; m <= MARK_END; m++)
        if ((size_t)(w - at) == strlen(mark_names[m]) &&
            memcmp(line + at, mark_names[m], (size_t)(w - at)) == 0 &&
            (w == n || line[w] == ' ' || line[w] == '\t' || line[w] == '#' || line[w] == '\r')) {
            while (w < n && (line[w] == ' ' || line[w] == '\t' || line[w] == '\r'))
                w++;
            *rest = line + w;
            return m;
        }
    return MARK_NONE;
}

static int fail_at(char *err, size_t errlen, const char *file, int line, const char *what,
                   const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(err, errlen, "%s:%d: %s: ", file, line, what);

    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < errlen)
        vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* A named block's words (SCHED.md, "Choices"): `choose NAME ANSWER` sets
 * block b's choice and its first alternative's answer, `or ANSWER` the
 * latest alternative's.  0, or -1 when they are not a choice and one of
 * its answers. */
static int named_mark(gb_space *s, int b, int m, const char *rest, int n)
{
    char words[2][GB_SCHED_NAME_LEN];
    int nwords = 0, at = 0;

    while (at < n && rest[at] != '#' && nwords < 2) {
        int w = 0;
        while (at < n && (rest[at] == ' ' || rest[at] == '\t' || rest[at] == '\r'))
            at++;
        while (at < n && ((rest[at] >= 'a' && rest[at] <= 'z') || rest[at] == '_') &&
               w < GB_SCHED_NAME_LEN - 1)
            words[nwords][w++] = rest[at++];
        words[nwords][w] = '\0';
        if (w > 0)
            nwords++;
        while (at < n && (rest[at] == ' ' || rest[at] == '\t' || rest[at] == '\r'))
            at++;
        if (w == 0)
            break;
    }
    if (at < n && rest[at] != '#')
        return -1;
    if (m == MARK_CHOOSE) {
        if (nwords != 2 || gb_sched_choice_of(words[0]) < 0)
            return -1;
        s->choice[b] = (signed char)gb_sched_choice_of(words[0]);
        s->answer[b][0] = (signed char)gb_sched_choice_answer_of(s->choice[b], words[1]);
        return s->answer[b][0] < 0 ? -1 : 0;
    }
    if (nwords != 1 || s->choice[b] < 0)
        return -1;
    s->answer[b][s->nalts[b] - 1] =
        (signed char)gb_sched_choice_answer_of(s->choice[b], words[0]);
    return s->answer[b][s->nalts[b] - 1] < 0 ? -1 : 0;
}

/* The blocks: every line's block and alternative, every marker blanked in
 * flat.  0, or the first line that breaks the block structure (its error in
 * err). */
static int read_blocks(gb_space *s, char *flat, char *err, size_t errlen)
{
    int open = -1;

    for (int l = 0; l < s->nlines; l++) {
        const char *line = s->text + s->start[l], *rest;
        int m = line_mark(line, s->len[l], &rest);

        s->block[l] = (signed char)open;
        s->alt[l] = (signed char)(open >= 0 ? s->nalts[open] - 1 : -1);
        s->mark[l] = m != MARK_NONE;
        s->param[l] = -1;
        if (m == MARK_NONE)
            continue;
        /* the schedule parser's limit, before the marker's words are copied */
        if (s->len[l] > GB_SCHED_MAX_LINE)
            return fail_at(err, errlen, s->file, l + 1, mark_names[m],
                           "line longer than %d characters", GB_SCHED_MAX_LINE), l + 1;
        if (rest < line + s->len[l] && *rest != '#' && m != MARK_CHOOSE && m != MARK_OR)
            return fail_at(err, errlen, s->file, l + 1, mark_names[m], "trailing text"), l + 1;
        {   /* the words after the marker, before the line is blanked */
            char words[GB_SCHED_MAX_LINE + 1];
            const int n = (int)(line + s->len[l] - rest);
            memcpy(words, rest, (size_t)n);
            words[n] = '\0';
            memset(flat + s->start[l], ' ', (size_t)s->len[l]);
            rest = words;
            if (m == MARK_CHOOSE && open < 0 && s->nblocks < GB_SPACE_MAX_BLOCKS) {
                s->choice[s->nblocks] = -1;
                if (n > 0 && *rest != '#' && named_mark(s, s->nblocks, m, rest, n) != 0)
                    return fail_at(err, errlen, s->file, l + 1, "choose", "trailing text"), l + 1;
            } else if (m == MARK_OR && open >= 0 && s->nalts[open] < GB_SPACE_MAX_ALTS) {
                s->nalts[open]++;
                if (((n > 0 && *rest != '#') || s->choice[open] >= 0) &&
                    named_mark(s, open, m, rest, n) != 0)
                    return fail_at(err, errlen, s->file, l + 1, "or",
                                   s->choice[open] >= 0 ? "no answer of the block's choice"
                                                        : "trailing text"), l + 1;
                s->nalts[open]--;
            }
        }
        if (m == MARK_CHOOSE) {
            if (open >= 0)
                return fail_at(err, errlen, s->file, l + 1, "choose",
                               "inside the block of line %d (blocks do not nest)",
                               s->block_line[open]), l + 1;
            if (s->nblocks == GB_SPACE_MAX_BLOCKS)
                return fail_at(err, errlen, s->file, l + 1, "choose", "more than %d blocks",
                               GB_SPACE_MAX_BLOCKS), l + 1;
            open = s->nblocks++;
            s->block_line[open] = l + 1;
            s->nalts[open] = 1;
        } else if (open < 0) {
            return fail_at(err, errlen, s->file, l + 1, mark_names[m], "outside a choose block"),
                   l + 1;
        } else if (m == MARK_OR) {
            if (s->nalts[open] == GB_SPACE_MAX_ALTS)
                return fail_at(err, errlen, s->file, l + 1, "or",
                               "more than %d alternatives", GB_SPACE_MAX_ALTS), l + 1;
            s->nalts[open]++;
        } else {
            if (s->nalts[open] < 2)
                return fail_at(err, errlen, s->file, l + 1, "end",
                               "the block of line %d has one alternative (no `or`)",
                               s->block_line[open]), l + 1;
            open = -1;
        }
        s->block[l] = (signed char)open;
    }
    if (open >= 0)
        return fail_at(err, errlen, s->file, s->block_line[open], "choose",
                       "no `end` before the end of the file"), s->block_line[open];
    return 0;
}

/* Each param's values, in the order a search walks them, and where the
 * file's own value sits among them. */
static void param_values(gb_space *s, const gb_sched_text *only, const gb_sched *nest)
{
    s->nparams = nest->nparams;
    for (int p = 0; p < nest->nparams; p++) {
        gb_space_param *sp = &s->params[p];
        memset(sp, 0, sizeof *sp);
        snprintf(sp->name, sizeof sp->name, "%s", nest->params[p].name);
        sp->line = only->stmts[p].line;
        s->param[sp->line - 1] = (signed char)p;
        if (nest->params[p].model) { /* the model's value first (0), then the set */
            long set[GB_SCHED_MAX_CHOICES];
            int n = gb_sched_param_values(&nest->params[p], set);
            sp->values[0] = 0;
            sp->nvalues = 1;
            for (int v = 0; v < n && sp->nvalues < GB_SCHED_MAX_CHOICES; v++)
                sp->values[sp->nvalues++] = set[v];
            sp->initial = 0;
            continue;
        }
        sp->nvalues = gb_sched_param_values(&nest->params[p], sp->values);
        if (sp->nvalues == 0) {
            sp->nvalues = 1;
            sp->values[0] = nest->params[p].value;
        }
        for (int v = 0; v < sp->nvalues; v++)
            if (sp->values[v] == nest->params[p].value)
                sp->initial = v;
    }
}

/* The params: each one's values, from the language's own check of the
 * param statements alone (each at its line). */
static int read_params(gb_space *s, const gb_sched_text *stmts, char *err, size_t errlen)
{
    gb_sched_text *only = malloc(sizeof *only); /* tens of KiB: off the stack */
    gb_sched nest;
    int rc = 0;

    if (only == NULL) {
        snprintf(err, errlen, "%s:1: out of memory", s->file);
        return -1;
    }
    memcpy(only->file, stmts->file, sizeof only->file);
    only->nstmts = 0;
    for (int i = 0; i < stmts->nstmts; i++) {
        const gb_sched_stmt *st = &stmts->stmts[i];
        if (st->op != GB_SCHED_PARAM)
            continue;
        if (s->block[st->line - 1] >= 0) {
            rc = fail_at(err, errlen, s->file, st->line, "param",
                         "inside a choose block (state params before the blocks)");
            break;
        }
        only->stmts[only->nstmts++] = *st;
    }
    if (rc == 0)
        rc = gb_sched_check(only, &nest, err, errlen);
    if (rc == 0)
        param_values(s, only, &nest);
    free(only);
    return rc;
}

/* What a statement says on its own, whichever alternatives are chosen: a
 * factor is a number in range or a param of the space.  A space that breaks
 * it holds no point that uses the line; refused as a whole, as a file is. */
static int check_factors(const gb_space *s, const gb_sched_text *stmts, char *err,
                         size_t errlen)
{
    for (int i = 0; i < stmts->nstmts; i++) {
        const gb_sched_stmt *st = &stmts->stmts[i];
        const char *what = gb_sched_op_name(st->op);
        for (int f = 0; f < st->nfactors; f++) {
            const gb_sched_factor *fa = &st->factors[f];
            int known = 0;
            for (int p = 0; p < s->nparams && fa->param[0]; p++)
                known |= strcmp(s->params[p].name, fa->param) == 0;
            if (fa->param[0] && !known)
                return fail_at(err, errlen, s->file, st->line, what, "no param '%s'", fa->param);
            if (!fa->param[0] && (fa->value < 1 || fa->value > GB_SCHED_MAX_FACTOR))
                return fail_at(err, errlen, s->file, st->line, what, "factor %ld is not in 1..%d",
                               fa->value, GB_SCHED_MAX_FACTOR);
        }
    }
    return 0;
}

int gb_space_parse(const char *file, const char *text, size_t len, gb_space *out, char *err,
                   size_t errlen)
{
    gb_sched_text *stmts = malloc(sizeof *stmts); /* tens of KiB: off the stack */
    char *flat;
    int bad_line, rc;

    memset(out, 0, sizeof *out);
    gb_printable(file, 200, out->file, sizeof out->file); /* as messages show it */
    if (stmts != NULL && len > GB_SCHED_MAX_FILE) { /* the parser's message */
        rc = gb_sched_parse(file, text, len, stmts, err, errlen);
        free(stmts);
        return rc;
    }
    out->text = malloc(len + 1);
    flat = malloc(len + 1);
    if (stmts == NULL || out->text == NULL || flat == NULL) {
        free(stmts);
        free(out->text);
        free(flat);
        out->text = NULL;
        snprintf(err, errlen, "%s:1: out of memory", out->file);
        return -1;
    }
    memcpy(out->text, text, len);
    out->text[len] = '\0';
    memcpy(flat, text, len);
    flat[len] = '\0';
    for (size_t at = 0; at < len && out->nlines < GB_SCHED_MAX_LINES;) {
        size_t end = at;
        while (end < len && text[end] != '\n')
            end++;
        out->start[out->nlines] = (int)at;
        out->len[out->nlines++] = (int)(end - at);
        at = end + 1;
    }
    /* The first error by line: a broken block, or a statement before it
     * that the language refuses. */
    bad_line = read_blocks(out, flat, err, errlen);
    if (bad_line > 0) {
        char saved[512];
        size_t upto = (size_t)out->start[bad_line - 1];
        snprintf(saved, sizeof saved, "%s", err);
        rc = gb_sched_parse(file, flat, upto, stmts, err, errlen) != 0 ? -1 : -2;
        if (rc == -2)
            snprintf(err, errlen, "%s", saved);
    } else {
        rc = gb_sched_parse(file, flat, len, stmts, err, errlen);
        if (rc == 0 && stmts->nstmts > 0 && stmts->stmts[0].op == GB_SCHED_TYPE) {
            out->dtype = stmts->stmts[0].dtype; /* its points' type (checked with them) */
            out->states_type = 1;
        }
        if (rc == 0)
            rc = read_params(out, stmts, err, errlen);
        if (rc == 0)
            rc = check_factors(out, stmts, err, errlen);
    }
    free(stmts);
    free(flat);
    if (rc != 0) {
        gb_space_free(out);
        return -1;
    }
    return 0;
}

int gb_space_load(const char *path, gb_space *out, char *err, size_t errlen)
{
    size_t len;
    char *text = gb_sched_read(path, &len, err, errlen);
    int rc;

    memset(out, 0, sizeof *out);
    if (text == NULL)
        return -1;
    rc = gb_space_parse(path, text, len, out, err, errlen);
    free(text);
    return rc;
}

void gb_space_free(gb_space *s)
{
    free(s->text);
    s->text = NULL;
}

int gb_sched_param_values(const gb_sched_param *p, long *out)
{
    int n = 0;

    if (p->nchoices > 0) {
        for (int c = 0; c < p->nchoices && n < GB_SCHED_MAX_CHOICES; c++)
            out[n++] = p->choices[c];
    } else if (p->nchoices < 0 && p->max - p->min < GB_SCHED_MAX_CHOICES) {
        for (long v = p->min; v <= p->max; v++)
            out[n++] = v;
    } else if (p->nchoices < 0) {
        const double ratio =
            pow((double)p->max / (double)p->min, 1.0 / (GB_SCHED_MAX_CHOICES - 2));
        out[n++] = p->value;
        for (int i = 0; i < GB_SCHED_MAX_CHOICES - 1; i++) {
            long v = i == GB_SCHED_MAX_CHOICES - 2 ? p->max : lround(p->min * pow(ratio, i));
            int seen = 0;
            for (int j = 0; j < n; j++)
                seen |= out[j] == v;
            if (!seen)
                out[n++] = v;
        }
    }
    for (int i = 1; i < n; i++) /* insertion sort: a neighbour is one step away */
        for (int j = i; j > 0 && out[j - 1] > out[j]; j--) {
            long t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

unsigned gb_space_rand(unsigned *state)
{
    /* xorshift32: full period over the non-zero states */
    unsigned x = *state ? *state : 0x9e3779b9u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

void gb_space_initial(const gb_space *s, gb_space_point *p)
{
    memset(p, 0, sizeof *p);
    for (int i = 0; i < s->nparams; i++)
        p->value[i] = s->params[i].initial;
}

void gb_space_initial_at(const gb_space *s, gb_space_point *p, int M, int N, int K,
                         int nthreads)
{
    int answer[GB_CHOICE_COUNT] = { -1, -1, -1, -1, -1 };

    int states_b_read = 0;

    gb_space_initial(s, p);
    gb_sched_model_choose(NULL, NULL, M, N, K, nthreads, answer, NULL);
    /* Where the model copies B whole (b_read copied: ir outside jr, B's
     * rows a page or more apart, as calibrated), a space that does not
     * state that form starts from each B micro-panel copied by the first
     * pass over it (b_copy copied), the nearest it states, not from B read
     * in place: at mlp_expand (rows 12 KiB apart), 2 threads, the Intel
     * Xeon kind, B read in place took 1.09x-1.87x packed's time at M = 32
     * to 256, B's micro-panels copied 0.83x-0.99x. */
    for (int b = 0; b < s->nblocks; b++)
        states_b_read |= s->choice[b] == GB_CHOICE_B_READ;
    if (!states_b_read && answer[GB_CHOICE_B_READ] == GB_READ_COPIED)
        answer[GB_CHOICE_B_COPY] = GB_READ_COPIED;
    for (int b = 0; b < s->nblocks; b++)
        for (int a = 0; s->choice[b] >= 0 && a < s->nalts[b]; a++)
            if (s->answer[b][a] == answer[s->choice[b]])
                p->alt[b] = a;
}

void gb_space_random(const gb_space *s, unsigned *rng, gb_space_point *p)
{
    memset(p, 0, sizeof *p);
    for (int b = 0; b < s->nblocks; b++)
        p->alt[b] = (int)(gb_space_rand(rng) % (unsigned)s->nalts[b]);
    for (int i = 0; i < s->nparams; i++)
        p->value[i] = (int)(gb_space_rand(rng) % (unsigned)s->params[i].nvalues);
}

/* Changes one choice: a block to another alternative, or a param to an
 * adjacent value (one time in four, to any other value).  0 when the space
 * has no choice at all. */
static int change_one(const gb_space *s, unsigned *rng, gb_space_point *p)
{
    int choices = 0, pick;

    for (int b = 0; b < s->nblocks; b++)
        choices += s->nalts[b] > 1;
    for (int i = 0; i < s->nparams; i++)
        choices += s->params[i].nvalues > 1;
    if (choices == 0)
        return 0;
    pick = (int)(gb_space_rand(rng) % (unsigned)choices);
    for (int b = 0; b < s->nblocks; b++)
        if (s->nalts[b] > 1 && pick-- == 0) {
            p->alt[b] = (p->alt[b] + 1 + (int)(gb_space_rand(rng) % (unsigned)(s->nalts[b] - 1))) %
                        s->nalts[b];
            return 1;
        }
    for (int i = 0; i < s->nparams; i++) {
        const int n = s->params[i].nvalues;
        if (n < 2 || pick-- != 0)
            continue;
        if (gb_space_rand(rng) % 4 == 0)
            p->value[i] = (p->value[i] + 1 + (int)(gb_space_rand(rng) % (unsigned)(n - 1))) % n;
        else if (p->value[i] == 0 || (p->value[i] < n - 1 && gb_space_rand(rng) % 2))
            p->value[i]++;
        else
            p->value[i]--;
        return 1;
    }
    return 0;
}

void gb_space_mutate(const gb_space *s, unsigned *rng, gb_space_point *p)
{
    if (change_one(s, rng, p) && gb_space_rand(rng) % 3 == 0)
        change_one(s, rng, p);
}

double gb_space_size(const gb_space *s)
{
    double n = 1.0;

    for (int b = 0; b < s->nblocks; b++)
        n *= s->nalts[b];
    for (int i = 0; i < s->nparams; i++)
        n *= s->params[i].nvalues;
    return n < 1e18 ? n : 1e18;
}

/* Whether a line is blank or a comment only. */
static int empty_line(const char *line, int n)
{
    for (int i = 0; i < n; i++) {
        if (line[i] == '#')
            return 1;
        if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
            return 0;
    }
    return 1;
}

int gb_space_text(const gb_space *s, const gb_space_point *p, int keep_lines, char *out,
                  size_t len)
{
    size_t at = 0;

    if (len == 0)
        return -1;
    out[0] = '\0';  /* a space of no line (or comments only) is the empty text */
    /* a type the space does not state (tune --dtype) heads the text; not
     * where the lines must stay the file's (a refusal's line number) */
    if (s->dtype != GB_DTYPE_F32 && !s->states_type && !keep_lines) {
        at = (size_t)snprintf(out, len, "type %s\n", gb_dtype_name(s->dtype));
        if (at >= len)
            return -1;
    }
    for (int l = 0; l < s->nlines; l++) {
        const char *line = s->text + s->start[l];
        int n = s->len[l], wrote;
        int in = !s->mark[l] && (s->block[l] < 0 || p->alt[s->block[l]] == s->alt[l]);

        if (in && s->param[l] >= 0) {
            const gb_space_param *sp = &s->params[s->param[l]];
            const long v = sp->values[p->value[s->param[l]]];
            wrote = v == 0 ? snprintf(out + at, len - at, "param %s = model\n", sp->name)
                           : snprintf(out + at, len - at, "param %s = %ld\n", sp->name, v);
        } else if (in && !(keep_lines == 0 && empty_line(line, n))) {
            while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
                n--;
            while (n > 0 && (line[0] == ' ' || line[0] == '\t'))
                line++, n--;
            wrote = snprintf(out + at, len - at, "%.*s\n", n, line);
        } else if (keep_lines) {
            wrote = snprintf(out + at, len - at, "\n");
        } else {
            continue;
        }
        if (wrote < 0 || (size_t)wrote >= len - at)
            return -1;
        at += (size_t)wrote;
    }
    return 0;
}

int gb_space_check(const gb_space *s, const gb_space_point *p, gb_sched *nest, char *err,
                   size_t errlen)
{
    char *text = malloc(GB_SPACE_MAX_TEXT);
    int rc = -1;

    if (text == NULL)
        snprintf(err, errlen, "%s:1: out of memory", s->file);
    else if (gb_space_text(s, p, 1, text, GB_SPACE_MAX_TEXT) != 0)
        snprintf(err, errlen, "%s:1: a point's text is over %d bytes", s->file,
                 GB_SPACE_MAX_TEXT);
    else
        rc = gb_sched_from_text(s->file, text, strlen(text), nest, err, errlen);
    if (rc == 0 && !s->states_type)
        nest->dtype = s->dtype;
    free(text);
    return rc;
}
