/* parse.c - a schedule file's text to statements (SCHED.md, "Grammar").
 * Only the form is checked here: characters, tokens, each statement's
 * arguments; what the names refer to is check.c's. */
#include "sched_lang.h"
#include "parse.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define TOKEN_LEN 64 /* longer tokens are refused before they are stored */

enum tok_kind { TOK_NAME, TOK_INT, TOK_OPERAND, TOK_ARROW, TOK_EQ, TOK_COMMA, TOK_DOTS };

typedef struct token {
    enum tok_kind kind;
    char text[TOKEN_LEN];
    long value; /* TOK_INT */
} token;

/* One line's tokens and where messages about it go. */
typedef struct line_state {
    const char *file;
    int line;
    const char *stmt; /* the statement's name once known, for messages */
    int ntok, pos;
    token tok[GB_SCHED_MAX_LINE / 2 + 1];
    char *err;
    size_t errlen;
} line_state;

/* "FILE:LINE: STATEMENT: reason" (no STATEMENT before one is known). */
static int fail(line_state *ls, const char *fmt, ...)
{
    /* a bad token after a statement's name: name the statement */
    int op = ls->ntok > 0 && ls->tok[0].kind == TOK_NAME ? gb_sched_op_of(ls->tok[0].text) : -1;
    char reason[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    if (ls->stmt == NULL && op >= 0)
        ls->stmt = gb_sched_op_name((gb_sched_op)op);
    if (ls->stmt)
        snprintf(ls->err, ls->errlen, "%s:%d: %s: %s", ls->file, ls->line, ls->stmt, reason);
    else
        snprintf(ls->err, ls->errlen, "%s:%d: %s", ls->file, ls->line, reason);
    return -1;
}

static int is_name_start(int c)
{
    return (c >= 'a' && c <= 'z') || c == '_';
}

static int is_name_char(int c)
{
    return is_name_start(c) || (c >= '0' && c <= '9');
}

static int is_word_char(int c)
{
    return is_name_char(c) || (c >= 'A' && c <= 'Z');
}

/* Splits one line (comment already cut) into tokens.  A word with an
 * upper-case letter is an operand when it is A, B or C alone, else refused
 * as a name; a number has at most 9 digits and no letters after it. */
static int tokenize(line_state *ls, const char *s, size_t n)
{
    size_t i = 0;

    ls->ntok = 0;
    while (i < n) {
        token *t = &ls->tok[ls->ntok];
        size_t start = i;
        if (s[i] == ' ' || s[i] == '\t') {
            i++;
            continue;
        }
        if (ls->ntok == (int)(sizeof ls->tok / sizeof ls->tok[0]))
            return fail(ls, "too many tokens");
        if (s[i] == '-' && i + 1 < n && s[i + 1] == '>') {
            t->kind = TOK_ARROW, i += 2;
        } else if (s[i] == '.' && i + 1 < n && s[i + 1] == '.') {
            t->kind = TOK_DOTS, i += 2;
        } else if (s[i] == '=') {
            t->kind = TOK_EQ, i++;
        } else if (s[i] == ',') {
            t->kind = TOK_COMMA, i++;
        } else if (s[i] >= '0' && s[i] <= '9') {
            while (i < n && is_word_char((unsigned char)s[i]))
                i++;
            if (i - start >= TOKEN_LEN)
                return fail(ls, "number '%.20s...' is too long", s + start);
            memcpy(t->text, s + start, i - start);
            t->text[i - start] = '\0';
            t->value = 0;
            for (size_t d = 0; t->text[d]; d++) {
                if (t->text[d] < '0' || t->text[d] > '9')
                    return fail(ls, "'%s' is neither a number nor a name", t->text);
                if (d >= 9)
                    return fail(ls, "number '%s' has more than 9 digits", t->text);
                t->value = t->value * 10 + (t->text[d] - '0');
            }
            t->kind = TOK_INT;
        } else if (is_word_char((unsigned char)s[i])) {
            while (i < n && is_word_char((unsigned char)s[i]))
                i++;
            if (i - start >= GB_SCHED_NAME_LEN)
                return fail(ls, "name '%.31s...' is longer than %d characters", s + start,
                            GB_SCHED_NAME_LEN - 1);
            memcpy(t->text, s + start, i - start);
            t->text[i - start] = '\0';
            if (strcmp(t->text, "A") == 0 || strcmp(t->text, "B") == 0 ||
                strcmp(t->text, "C") == 0) {
                t->kind = TOK_OPERAND;
            } else {
                for (size_t c = 0; t->text[c]; c++)
                    if (!is_name_char((unsigned char)t->text[c]))
                        return fail(ls, "name '%s' is not [a-z_][a-z0-9_]*", t->text);
                t->kind = TOK_NAME;
            }
        } else {
            return fail(ls, "unexpected character '%c'", s[i]);
        }
        ls->ntok++;
    }
    return 0;
}

/* ---- reading the tokens of one statement -------------------------------- */

static const token *peek(line_state *ls)
{
    return ls->pos < ls->ntok ? &ls->tok[ls->pos] : NULL;
}

static const char *shown(const token *t)
{
    switch (t->kind) {
    case TOK_ARROW: return "->";
    case TOK_EQ: return "=";
    case TOK_COMMA: return ",";
    case TOK_DOTS: return "..";
    default: return t->text;
    }
}

static int expect_name(line_state *ls, const char *what, char *out)
{
    const token *t = peek(ls);

    if (t == NULL)
        return fail(ls, "expected %s, found the end of the line", what);
    if (t->kind != TOK_NAME)
        return fail(ls, "expected %s, found '%s'", what, shown(t));
    snprintf(out, GB_SCHED_NAME_LEN, "%s", t->text);
    ls->pos++;
    return 0;
}

static int expect_int(line_state *ls, const char *what, long *out)
{
    const token *t = peek(ls);

    if (t == NULL)
        return fail(ls, "expected %s, found the end of the line", what);
    if (t->kind != TOK_INT)
        return fail(ls, "expected %s, found '%s'", what, shown(t));
    *out = t->value;
    ls->pos++;
    return 0;
}

static int expect_kind(line_state *ls, enum tok_kind kind, const char *text)
{
    const token *t = peek(ls);

    if (t == NULL)
        return fail(ls, "expected '%s', found the end of the line", text);
    if (t->kind != kind)
        return fail(ls, "expected '%s', found '%s'", text, shown(t));
    ls->pos++;
    return 0;
}

static int expect_word(line_state *ls, const char *word)
{
    const token *t = peek(ls);

    if (t == NULL)
        return fail(ls, "expected '%s', found the end of the line", word);
    if (t->kind != TOK_NAME || strcmp(t->text, word) != 0)
        return fail(ls, "expected '%s', found '%s'", word, shown(t));
    ls->pos++;
    return 0;
}

/* A split factor: a number, or a param's name (check.c resolves it). */
static int expect_factor(line_state *ls, gb_sched_factor *f)
{
    const token *t = peek(ls);

    memset(f, 0, sizeof *f);
    if (t && t->kind == TOK_NAME)
        return expect_name(ls, "a factor", f->param);
    return expect_int(ls, "a factor (an integer or a param)", &f->value);
}

static int expect_end(line_state *ls)
{
    const token *t = peek(ls);
    return t ? fail(ls, "unexpected '%s' after the statement", shown(t)) : 0;
}

/* ---- the statements ----------------------------------------------------- */

static int parse_param(line_state *ls, gb_sched_stmt *st)
{
    const token *t;

    if (expect_name(ls, "the param's name", st->names[0]) || expect_kind(ls, TOK_EQ, "="))
        return -1;
    if ((t = peek(ls)) && t->kind == TOK_NAME && strcmp(t->text, "model") == 0) {
        ls->pos++; /* the value is the model's, per shape */
        st->model = 1;
    } else if (expect_int(ls, "the param's value (an integer or `model`)", &st->count)) {
        return -1;
    }
    st->nnew = 1;
    if ((t = peek(ls)) == NULL)
        return 0;
    if (expect_word(ls, "in") || expect_int(ls, "a value of the set", &st->choices[0]))
        return -1;
    st->nchoices = 1;
    if ((t = peek(ls)) && t->kind == TOK_DOTS) {
        ls->pos++;
        if (expect_int(ls, "the range's upper end", &st->choices[1]))
            return -1;
        st->nchoices = -1;
        return expect_end(ls);
    }
    while ((t = peek(ls)) && t->kind == TOK_COMMA) {
        ls->pos++;
        if (st->nchoices == GB_SCHED_MAX_CHOICES)
            return fail(ls, "more than %d values in the set", GB_SCHED_MAX_CHOICES);
        if (expect_int(ls, "a value of the set", &st->choices[st->nchoices]))
            return -1;
        st->nchoices++;
    }
    return expect_end(ls);
}

static int parse_new_names(line_state *ls, gb_sched_stmt *st, int n)
{
    if (expect_kind(ls, TOK_ARROW, "->"))
        return -1;
    for (int i = 0; i < n; i++)
        if (expect_name(ls, "a new loop name", st->names[i]))
            return -1;
    st->nnew = n;
    return expect_end(ls);
}

static int parse_loops(line_state *ls, gb_sched_stmt *st, int n)
{
    for (int i = 0; i < n; i++)
        if (expect_name(ls, "a loop", st->loops[st->nloops++]))
            return -1;
    return 0;
}

static int parse_operand_at(line_state *ls, gb_sched_stmt *st, const char *allowed)
{
    const token *t = peek(ls);

    if (t == NULL || t->kind != TOK_OPERAND || strchr(allowed, t->text[0]) == NULL)
        return fail(ls, "expected %s, found '%s'",
                    strlen(allowed) == 1 ? "C" : strlen(allowed) == 2 ? "A or B" : "A, B or C",
                    t ? shown(t) : "the end of the line");
    st->operand = t->text[0];
    ls->pos++;
    if (expect_word(ls, "at"))
        return -1;
    t = peek(ls);
    if (t && t->kind == TOK_NAME && strcmp(t->text, "root") == 0) {
        if (st->op != GB_SCHED_PACK)
            return fail(ls, "expected a loop, found 'root'");
        st->at_root = 1;
        ls->pos++;
        if (st->op == GB_SCHED_PACK && peek(ls)) { /* check.c says why not at root */
            if (expect_word(ls, "fused"))
                return -1;
            st->fused = 1;
        }
        return expect_end(ls);
    }
    if (parse_loops(ls, st, 1))
        return -1;
    if (st->op == GB_SCHED_PACK && peek(ls)) { /* pack ... at LOOP fused */
        if (expect_word(ls, "fused"))
            return -1;
        st->fused = 1;
    }
    if (st->op == GB_SCHED_PREFETCH) {
        t = peek(ls);
        if (t && !(t->kind == TOK_NAME && strcmp(t->text, "over") == 0)) {
            if (expect_factor(ls, &st->factors[0])) /* the distance; else 1 */
                return -1;
            st->nfactors = 1;
        }
        t = peek(ls);
        if (t && t->kind == TOK_NAME && strcmp(t->text, "over") == 0) {
            ls->pos++; /* spread: over INNER, in loops[1] */
            if (parse_loops(ls, st, 1))
                return -1;
        }
    }
    return expect_end(ls);
}

static int parse_statement(line_state *ls, gb_sched_stmt *st)
{
    const token *t = peek(ls);
    int op;

    if (t->kind != TOK_NAME)
        return fail(ls, "expected a statement, found '%s'", shown(t));
    if ((op = gb_sched_op_of(t->text)) < 0)
        return fail(ls, "unknown statement '%s'", t->text);
    memset(st, 0, sizeof *st);
    st->op = (gb_sched_op)op;
    st->line = ls->line;
    ls->stmt = gb_sched_op_name(st->op);
    ls->pos++;
    switch (st->op) {
    case GB_SCHED_PARAM:
        return parse_param(ls, st);
    case GB_SCHED_SPLIT:
        if (parse_loops(ls, st, 1) || expect_factor(ls, &st->factors[0]))
            return -1;
        st->nfactors = 1;
        return parse_new_names(ls, st, 2);
    case GB_SCHED_TILE:
        if (parse_loops(ls, st, 2) || expect_factor(ls, &st->factors[0]) ||
            expect_factor(ls, &st->factors[1]))
            return -1;
        st->nfactors = 2;
        return parse_new_names(ls, st, 4);
    case GB_SCHED_REORDER:
        while (peek(ls)) {
            if (st->nloops == GB_SCHED_MAX_LOOPS)
                return fail(ls, "more than %d loops", GB_SCHED_MAX_LOOPS);
            if (parse_loops(ls, st, 1))
                return -1;
        }
        return st->nloops < 2 ? fail(ls, "needs at least two loops") : 0;
    case GB_SCHED_FUSE:
        if (parse_loops(ls, st, 2))
            return -1;
        return parse_new_names(ls, st, 1);
    case GB_SCHED_PARALLEL: /* parallel LOOP [pool] */
        if (parse_loops(ls, st, 1))
            return -1;
        if (peek(ls)) {
            if (expect_word(ls, "pool"))
                return -1;
            st->pool = 1;
        }
        return expect_end(ls);
    case GB_SCHED_VECTORIZE:
        if (parse_loops(ls, st, 1))
            return -1;
        return expect_end(ls);
    case GB_SCHED_UNROLL:
        if (parse_loops(ls, st, 1))
            return -1;
        if (peek(ls) == NULL)
            return 0; /* count 0: the whole loop */
        if (expect_int(ls, "the unroll count", &st->count))
            return -1;
        if (st->count < 1 || st->count > GB_SCHED_MAX_UNROLL)
            return fail(ls, "count %ld is not in 1..%d", st->count, GB_SCHED_MAX_UNROLL);
        return expect_end(ls);
    case GB_SCHED_CACHE_WRITE:
        return parse_operand_at(ls, st, "C");
    case GB_SCHED_PACK:
        return parse_operand_at(ls, st, "AB");
    case GB_SCHED_PREFETCH:
        return parse_operand_at(ls, st, "ABC");
    case GB_SCHED_CHOOSE: /* the choice and its first alternative's answer */
        if (expect_name(ls, "a choice (b_read, b_copy, a_read, b_next, b_pf)", st->names[0]) ||
            expect_name(ls, "the answer of the first alternative", st->names[1]))
            return -1;
        return expect_end(ls);
    case GB_SCHED_OR:
        if (expect_name(ls, "the answer of the alternative", st->names[0]))
            return -1;
        return expect_end(ls);
    case GB_SCHED_END:
        return expect_end(ls);
    case GB_SCHED_TYPE: {
        char name[GB_SCHED_NAME_LEN];
        if (expect_name(ls, "a type (f32, bf16, u8s8)", name))
            return -1;
        if (gb_dtype_parse(name, &st->dtype) != 0)
            return fail(ls, "no type '%s' (f32, bf16, u8s8)", name);
        return expect_end(ls);
    }
    case GB_SCHED_TENSORIZE: /* tensorize LOOP amx: the one target there is */
        if (parse_loops(ls, st, 1) || expect_word(ls, "amx"))
            return -1;
        return expect_end(ls);
    }
    return fail(ls, "unknown statement");
}

int gb_sched_parse(const char *file, const char *text, size_t len, gb_sched_text *out,
                   char *err, size_t errlen)
{
    line_state ls;
    size_t at = 0;

    memset(out, 0, sizeof *out);
    memset(&ls, 0, sizeof ls);
    /* The name as every message shows it: escaped, so that a file name
     * cannot send escapes to the terminal (check, resolve and lower too). */
    gb_printable(file, 200, out->file, sizeof out->file);
    ls.file = out->file;
    ls.err = err;
    ls.errlen = errlen;
    err[0] = '\0';
    if (len > GB_SCHED_MAX_FILE) {
        snprintf(err, errlen, "%s:1: the file is over %d bytes", out->file, GB_SCHED_MAX_FILE);
        return -1;
    }
    while (at < len) {
        size_t end = at, n, cut;
        ls.line++;
        ls.stmt = NULL;
        ls.ntok = 0;
        while (end < len && text[end] != '\n')
            end++;
        n = end - at;
        if (n > 0 && text[at + n - 1] == '\r')
            n--;
        if (ls.line > GB_SCHED_MAX_LINES)
            return fail(&ls, "more than %d lines", GB_SCHED_MAX_LINES);
        if (n > GB_SCHED_MAX_LINE)
            return fail(&ls, "line longer than %d characters", GB_SCHED_MAX_LINE);
        /* Text only: a NUL, a control character or a byte past ASCII is a
         * file that is not a schedule (a binary, another encoding). */
        for (size_t c = 0; c < n; c++) {
            unsigned char b = (unsigned char)text[at + c];
            if ((b < 0x20 && b != '\t') || b > 0x7e)
                return fail(&ls, "not a text file (byte 0x%02x in column %zu)", b, c + 1);
        }
        cut = 0;
        while (cut < n && text[at + cut] != '#')
            cut++;
        if (tokenize(&ls, text + at, cut) != 0)
            return -1;
        if (ls.ntok > 0) {
            if (out->nstmts == GB_SCHED_MAX_STMTS)
                return fail(&ls, "more than %d statements", GB_SCHED_MAX_STMTS);
            ls.pos = 0;
            if (parse_statement(&ls, &out->stmts[out->nstmts]) != 0)
                return -1;
            out->nstmts++;
        }
        at = end + 1;
    }
    return 0;
}
