/* check_blocks.c - a schedule's choose blocks (SCHED.md, "Choices"): the
 * blocks read and their alternatives matched to the model's answers, then
 * every combination the model can make checked as a plain schedule
 * (check.c, gb_sched_check_plain), its placement kept. */
#include "sched_lang.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- choose blocks (SCHED.md, "Choices") ------------------------------------ */

/* One line's refusal outside the checker (no nest yet). */
static int block_fail(const gb_sched_text *text, int line, gb_sched_op op, char *err,
                      size_t errlen, const char *reason)
{
    snprintf(err, errlen, "%s:%d: %s: %s", text->file, line, gb_sched_op_name(op), reason);
    return -1;
}

/* The blocks of text: each statement's block and alternative (-1 outside),
 * each block's choice and answers.  0, or -1 with err at the line. */
static int read_blocks(const gb_sched_text *text, gb_sched *out, int *block_of, int *alt_of,
                       char *err, size_t errlen)
{
    int open = -1;
    char reason[200];

    for (int i = 0; i < text->nstmts; i++) {
        const gb_sched_stmt *st = &text->stmts[i];
        gb_sched_block *b = open >= 0 ? &out->blocks[open] : NULL;
        int answer;

        block_of[i] = open;
        alt_of[i] = b ? b->nalts - 1 : -1;
        switch (st->op) {
        case GB_SCHED_CHOOSE:
            if (b != NULL) {
                snprintf(reason, sizeof reason, "inside the block of line %d (blocks do not nest)",
                         b->line);
                return block_fail(text, st->line, st->op, err, errlen, reason);
            }
            if (gb_sched_choice_of(st->names[0]) < 0) {
                snprintf(reason, sizeof reason, "no choice '%s' (the model's: b_read, b_copy, "
                         "a_read, b_next, b_pf)", st->names[0]);
                return block_fail(text, st->line, st->op, err, errlen, reason);
            }
            for (int k = 0; k < out->nblocks; k++)
                if (out->blocks[k].choice == gb_sched_choice_of(st->names[0])) {
                    snprintf(reason, sizeof reason, "%s is chosen at line %d already",
                             st->names[0], out->blocks[k].line);
                    return block_fail(text, st->line, st->op, err, errlen, reason);
                }
            if (out->nblocks == GB_SCHED_MAX_CHOOSE) {
                snprintf(reason, sizeof reason, "more than %d blocks", GB_SCHED_MAX_CHOOSE);
                return block_fail(text, st->line, st->op, err, errlen, reason);
            }
            open = out->nblocks++;
            b = &out->blocks[open];
            b->choice = gb_sched_choice_of(st->names[0]);
            b->line = st->line;
            b->nalts = 0;
            answer = gb_sched_choice_answer_of(b->choice, st->names[1]);
            if (answer < 0) {
                snprintf(reason, sizeof reason, "'%s' is no answer of %s (%s, %s)",
                         st->names[1], st->names[0], gb_sched_choice_answer_name(b->choice, 0),
                         gb_sched_choice_answer_name(b->choice, 1));
                return block_fail(text, st->line, st->op, err, errlen, reason);
            }
            b->answer[b->nalts++] = answer;
            break;
        case GB_SCHED_OR:
            if (b == NULL)
                return block_fail(text, st->line, st->op, err, errlen, "outside a choose block");
            answer = gb_sched_choice_answer_of(b->choice, st->names[0]);
            if (answer < 0) {
                snprintf(reason, sizeof reason, "'%s' is no answer of %s (%s, %s)",
                         st->names[0], gb_sched_choice_name(b->choice),
                         gb_sched_choice_answer_name(b->choice, 0),
                         gb_sched_choice_answer_name(b->choice, 1));
                return block_fail(text, st->line, st->op, err, errlen, reason);
            }
            for (int a = 0; a < b->nalts; a++)
                if (b->answer[a] == answer) {
                    snprintf(reason, sizeof reason, "%s has an alternative already",
                             st->names[0]);
                    return block_fail(text, st->line, st->op, err, errlen, reason);
                }
            if (b->nalts == GB_SCHED_MAX_ANSWERS)
                return block_fail(text, st->line, st->op, err, errlen, "more alternatives "
                                  "than the choice has answers");
            b->answer[b->nalts++] = answer;
            break;
        case GB_SCHED_END:
            if (b == NULL)
                return block_fail(text, st->line, st->op, err, errlen, "outside a choose block");
            if (b->nalts < GB_SCHED_MAX_ANSWERS) {
                snprintf(reason, sizeof reason, "the block of line %d states one answer of %s "
                         "(each answer needs its alternative, an empty one too)", b->line,
                         gb_sched_choice_name(b->choice));
                return block_fail(text, st->line, st->op, err, errlen, reason);
            }
            open = -1;
            block_of[i] = -1;
            break;
        case GB_SCHED_PARAM:
        case GB_SCHED_SPLIT:
        case GB_SCHED_TILE:
        case GB_SCHED_FUSE:
        case GB_SCHED_TYPE:
            /* the combinations share their loops and params: an alternative
             * places loops (reorder, parallel, pack, ...), it makes none */
            if (b != NULL)
                return block_fail(text, st->line, st->op, err, errlen,
                                  "inside a choose block (an alternative makes no loop or "
                                  "param; state it before the block)");
            break;
        case GB_SCHED_TENSORIZE:
            if (b != NULL)
                return block_fail(text, st->line, st->op, err, errlen,
                                  "inside a choose block (the run on the tiles is the "
                                  "schedule's; state it outside the blocks)");
            break;
        default:
            break;
        }
    }
    if (open >= 0)
        return block_fail(text, out->blocks[open].line, GB_SCHED_CHOOSE, err, errlen,
                          "no `end` before the end of the file");
    return 0;
}

/* What a block's alternative may place, the same fields in a nest and in
 * its combinations (gb_sched_placement): copied one way and back. */
#define COPY_PLACEMENT(dst, src)                                                               \
    do {                                                                                       \
        (dst)->norder = (src)->norder;                                                         \
        (dst)->parallel = (src)->parallel;                                                     \
        (dst)->parallel_pool = (src)->parallel_pool;                                           \
        (dst)->vectorize = (src)->vectorize;                                                   \
        (dst)->cache_write = (src)->cache_write;                                               \
        memcpy((dst)->order, (src)->order, sizeof (dst)->order);                               \
        memcpy((dst)->unroll, (src)->unroll, sizeof (dst)->unroll);                            \
        memcpy((dst)->pack, (src)->pack, sizeof (dst)->pack);                                  \
        memcpy((dst)->pack_fused, (src)->pack_fused, sizeof (dst)->pack_fused);                \
        memcpy((dst)->prefetch, (src)->prefetch, sizeof (dst)->prefetch);                      \
        memcpy((dst)->prefetch_over, (src)->prefetch_over, sizeof (dst)->prefetch_over);       \
        memcpy((dst)->distance, (src)->distance, sizeof (dst)->distance);                      \
    } while (0)

static void placement_of(const gb_sched *s, gb_sched_placement *p)
{
    memset(p, 0, sizeof *p);
    COPY_PLACEMENT(p, s);
}

void gb_sched_with_combo(const gb_sched *s, int c, gb_sched *out)
{
    *out = *s;
    COPY_PLACEMENT(out, &s->combo[c]);
}

/* Every combination of the blocks' alternatives that the model can make
 * (gb_sched_choice_consistent) is checked as a plain schedule: the
 * statements outside the blocks and its alternatives', in file order.  A
 * refusal names the line and the combination. */
int gb_sched_check(const gb_sched_text *text, gb_sched *out, char *err, size_t errlen)
{
    gb_sched_text *plain;
    gb_sched *nest;
    gb_sched_block blocks[GB_SCHED_MAX_CHOOSE];
    int block_of[GB_SCHED_MAX_STMTS], alt_of[GB_SCHED_MAX_STMTS];
    int nblocks, total = 1, rc = 0, any = 0;

    memset(out, 0, sizeof *out);
    snprintf(out->file, sizeof out->file, "%s", text->file);
    if (read_blocks(text, out, block_of, alt_of, err, errlen) != 0)
        return -1;
    if (out->nblocks == 0)
        return gb_sched_check_plain(text, out, err, errlen);
    nblocks = out->nblocks;
    memcpy(blocks, out->blocks, sizeof blocks);
    for (int b = 0; b < nblocks; b++)
        total *= blocks[b].nalts;
    plain = malloc(sizeof *plain); /* tens of KiB: off the stack */
    nest = malloc(sizeof *nest);
    if (plain == NULL || nest == NULL) {
        free(plain);
        free(nest);
        snprintf(err, errlen, "%s:1: out of memory", text->file);
        return -1;
    }
    for (int c = 0; c < total && rc == 0; c++) {
        int pick[GB_SCHED_MAX_CHOOSE], answer[GB_CHOICE_COUNT];
        char which[160] = "";
        size_t used = 0;

        for (int q = 0; q < GB_CHOICE_COUNT; q++)
            answer[q] = -1;
        for (int b = 0, rest = c; b < nblocks; b++) {
            pick[b] = rest % blocks[b].nalts;
            rest /= blocks[b].nalts;
            answer[blocks[b].choice] = blocks[b].answer[pick[b]];
            used += (size_t)snprintf(which + used, sizeof which - used, "%s%s %s",
                                     b ? ", " : "", gb_sched_choice_name(blocks[b].choice),
                                     gb_sched_choice_answer_name(blocks[b].choice,
                                                                 answer[blocks[b].choice]));
        }
        if (!gb_sched_choice_consistent(answer))
            continue;
        memcpy(plain->file, text->file, sizeof plain->file);
        plain->nstmts = 0;
        for (int i = 0; i < text->nstmts; i++) {
            const gb_sched_op op = text->stmts[i].op;
            if (op == GB_SCHED_CHOOSE || op == GB_SCHED_OR || op == GB_SCHED_END)
                continue;
            if (block_of[i] < 0 || alt_of[i] == pick[block_of[i]])
                plain->stmts[plain->nstmts++] = text->stmts[i];
        }
        if (gb_sched_check_plain(plain, nest, err, errlen) != 0) {
            size_t n = strlen(err);
            snprintf(err + n, errlen > n ? errlen - n : 0, " (with %s)", which);
            rc = -1;
            break;
        }
        if (!any) {
            *out = *nest;
            out->nblocks = nblocks;
            memcpy(out->blocks, blocks, sizeof out->blocks);
            any = 1;
        }
        for (int b = 0; b < nblocks; b++)
            out->combo_answer[out->ncombos][b] = blocks[b].answer[pick[b]];
        placement_of(nest, &out->combo[out->ncombos++]);
    }
    free(plain);
    free(nest);
    return rc;
}
