/* lower.h - inside src/sched: what lower.c (the nest as C) and
 * lower_runs.c (the packs' copies, the typed runs and the tiles) share:
 * the growing text, the emitter's state and the expressions both build.
 * Every name here is lw_: library symbols, prefixed so that no other
 * file's meet them. */
#ifndef GB_SCHED_LOWER_H
#define GB_SCHED_LOWER_H

#include "plan.h"

#include <stddef.h>

/* A growing string; on allocation failure it stops growing and says so. */
typedef struct sbuf {
    char *text;
    size_t len, cap;
    int failed;
    int indent;
} sbuf;

/* How an operand with a fused pack is read: in the pass's first iteration
 * from the matrix, writing the buffer as it goes (COPY), in the others
 * from the buffer (READ), or, where one piece of code serves both, as a
 * condition per element (EITHER). */
enum { EITHER, COPY, READ };

typedef struct emitter {
    const plan *pl;
    sbuf *b;
    int mode;  /* how the run reads operands with a fused pack: EITHER, COPY, READ */
    int dot_bk; /* inside the dot run's k loop: gb_bk is B's group there */
    int serial; /* the one-thread copy of the body: no parallel or work-sharing pragma */
    int pool;   /* with serial, a pool thread's copy (`parallel LOOP pool`): its share of
                 * the parallel loop, thread gb_t of gb_nt */
    int segmented[GB_SCHED_PF_SLOTS]; /* open_loop split the spread slot's INNER just now
                                       * into its two segments (gb_seg_SLOT) */
    int nseg;                 /* segmented loops open: the indent of each one's own */
    int seg_indent[GB_SCHED_MAX_LOOPS]; /* `for` inside its segments' (lw_close_loop) */
} emitter;

/* Text: put appends, line appends an indented line. */
void lw_put(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lw_line(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The C types of A, B, the accumulator and operand op's pack, and the
 * bytes of an element of A (0), B (1), C (2). */
const char *lw_type_a(const plan *pl);
const char *lw_type_b(const plan *pl);
const char *lw_type_w(const plan *pl);
const char *lw_type_pack(const plan *pl, int op);
int lw_elem_bytes(const plan *pl, int op);

/* Expressions where the loops they name are in scope: an axis's index,
 * the word and the element of a pack buffer, the words between two groups
 * of the dot loop in B's pack, an element widened, A's or B's element in
 * place, an operand as the mode reads it, C's element (or the tile's),
 * and a base loop's upper bound. */
void lw_axis_index(const plan *pl, int axis, char *out, size_t len);
void lw_pack_word(const plan *pl, int op, char *out, size_t len);
void lw_pack_index(const plan *pl, int op, char *out, size_t len);
long lw_dot_step_words(const plan *pl);
void lw_widened(const plan *pl, int op, const char *expr, char *out, size_t len);
void lw_source(const plan *pl, int op, char *out, size_t len);
void lw_operand(const plan *pl, int op, int mode, char *out, size_t len);
void lw_target(const plan *pl, char *out, size_t len);
void lw_bound_of(const plan *pl, int l, char *out, size_t len);

/* lower.c's emitters that lower_runs.c calls: a loop's closing brace, the
 * prefetches at loop l. */
void lw_close_loop(emitter *e);
void lw_emit_prefetches(emitter *e, int l);
/* The spread slot whose INNER is loop l, or -1; its bounds in its pass,
 * where the loops outside INNER are in scope (gb_s0_, gb_left_, gb_n_SLOT). */
int lw_spread_slot_over(const plan *pl, int l);
void lw_emit_spread_bounds(emitter *e, int slot);
/* Appends to out (len bytes, *used of them written), never past its end. */
void lw_append(char *out, size_t len, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* lower_runs.c's: operand op's pack copy at its site; the dot form's row
 * run and the run on the tiles from position p; the tiles configured for
 * a thread; the helpers the kernel's type and tiles need, once a file. */
void lw_emit_pack(emitter *e, int op);
void lw_emit_rows_run_dot(emitter *e, int p, int lanes);
void lw_emit_tile_run(emitter *e, int p);
void lw_emit_tiles_begin(emitter *e);
void lw_emit_type_helpers(sbuf *b, const plan *pl);
void lw_emit_tile_helpers(sbuf *b, const plan *pl);

#endif
