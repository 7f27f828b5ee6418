/*
 * sched_space.h - a search space of schedules (src/sched/space.c): a schedule
 * file whose params' `in` sets and whose `choose ... or ... end` blocks are
 * choice points.  A point picks one value per param and one alternative per
 * block; its text is an ordinary schedule, which the checker of the language
 * accepts or refuses (SCHED.md, "Search spaces").  Library code: errors go
 * into a buffer as one line "FILE:LINE: what: reason", nothing prints.
 */
#ifndef GB_SCHED_SPACE_H
#define GB_SCHED_SPACE_H

#include <stddef.h>

#include "sched_lang.h"

#define GB_SPACE_MAX_BLOCKS 16    /* choose blocks in a space */
#define GB_SPACE_MAX_ALTS 8       /* alternatives of one block */
#define GB_SPACE_MAX_TEXT 16384   /* bytes of one point's schedule text */

/* One point of a space: an alternative per block, a value (index into the
 * param's values) per param. */
typedef struct gb_space_point {
    int alt[GB_SPACE_MAX_BLOCKS];
    int value[GB_SCHED_MAX_PARAMS];
} gb_space_point;

typedef struct gb_space_param {
    char name[GB_SCHED_NAME_LEN];
    int line;                      /* of its `param` statement */
    int nvalues;                   /* 1: fixed (no `in` set) */
    long values[GB_SCHED_MAX_CHOICES]; /* increasing: index +-1 is a neighbour */
    int initial;                   /* the index of the value the file gives */
} gb_space_param;

typedef struct gb_space {
    char file[256];
    char *text;                    /* the file as read (malloc'ed) */
    int nlines;
    int start[GB_SCHED_MAX_LINES]; /* each line's offset in text, */
    int len[GB_SCHED_MAX_LINES];   /* its length without the newline, */
    signed char block[GB_SCHED_MAX_LINES]; /* its block or -1, */
    signed char alt[GB_SCHED_MAX_LINES];   /* its alternative in the block, */
    signed char mark[GB_SCHED_MAX_LINES];  /* 1: choose / or / end, */
    signed char param[GB_SCHED_MAX_LINES]; /* the param it states, or -1 */
    int nblocks;
    int block_line[GB_SPACE_MAX_BLOCKS];   /* where each `choose` is */
    int nalts[GB_SPACE_MAX_BLOCKS];
    /* `choose NAME ANSWER`: the model choice a block asks (GB_CHOICE_*, or
     * -1: a plain block) and each alternative's answer; a search starts
     * from the model's answer for the shape (gb_space_initial_at). */
    signed char choice[GB_SPACE_MAX_BLOCKS];
    signed char answer[GB_SPACE_MAX_BLOCKS][GB_SPACE_MAX_ALTS];
    int nparams;
    gb_space_param params[GB_SCHED_MAX_PARAMS];
    /* The points' type: a space states it (`type T`, its first statement)
     * or tune --dtype sets it; a point's text (keep_lines 0) then starts
     * with `type T` when the space does not state it. */
    gb_dtype dtype;
    int states_type;
} gb_space;

/* Parses text (len bytes) as a space named file into out: the grammar of the
 * language for every statement (each alternative's too), blocks well formed
 * (no nesting, at least two alternatives, closed), params outside blocks.
 * 0, or -1 with err (out->text is then NULL). */
int gb_space_parse(const char *file, const char *text, size_t len, gb_space *out, char *err,
                   size_t errlen);
/* Reads and parses a space file (a regular file of text).  0, or -1 with err. */
int gb_space_load(const char *path, gb_space *out, char *err, size_t errlen);
void gb_space_free(gb_space *s);

/* The values a search tries for a param, in increasing order: its `in` list,
 * or up to 16 of its range (all of a short one; else spread geometrically,
 * with both ends and the default).  0 when it has no set: it keeps its value. */
int gb_sched_param_values(const gb_sched_param *p, long *out);

/* Points: the file's own (first alternatives, the values it gives), a random
 * one, and a neighbour (one or two choices changed; a param moves to an
 * adjacent value or, now and then, anywhere).  rng: the caller's state. */
void gb_space_initial(const gb_space *s, gb_space_point *p);
/* The same with each named block at the model's answer for M x N x K on
 * nthreads threads: the point packed.sched makes there. */
void gb_space_initial_at(const gb_space *s, gb_space_point *p, int M, int N, int K,
                         int nthreads);
void gb_space_random(const gb_space *s, unsigned *rng, gb_space_point *p);
void gb_space_mutate(const gb_space *s, unsigned *rng, gb_space_point *p);
/* How many points the space has (saturating at 1e18). */
double gb_space_size(const gb_space *s);
/* A small seeded generator (the search's and the tests'). */
unsigned gb_space_rand(unsigned *state);

/* The schedule text of a point into out: the lines of its alternatives, each
 * param as `param NAME = V`; blank lines and comments dropped, unless
 * keep_lines, which keeps every line's place (a refusal's LINE is then the
 * space file's).  0, or -1 when it does not fit. */
int gb_space_text(const gb_space *s, const gb_space_point *p, int keep_lines, char *out,
                  size_t len);

/* Parses and checks a point's text: 0 with *nest, or -1 with err naming the
 * space file's line and the rule the point breaks. */
int gb_space_check(const gb_space *s, const gb_space_point *p, gb_sched *nest, char *err,
                   size_t errlen);

#endif
