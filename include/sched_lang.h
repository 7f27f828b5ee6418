/*
 * sched_lang.h - the schedule language (src/sched/SCHED.md): a schedule file's
 * statements (parse.c), the loop nest they make once every legality rule
 * holds (check.c), and that nest resolved for one shape and lowered to C
 * (lower.c).  Library code: errors go into a buffer as one line
 * "FILE:LINE: STATEMENT: reason", nothing prints.
 */
#ifndef GB_SCHED_LANG_H
#define GB_SCHED_LANG_H

#include <stddef.h>
#include <stdio.h>

#include "gemmbench.h"

#define GB_SCHED_NAME_LEN 32       /* a name: at most 31 characters */
#define GB_SCHED_MAX_FILE 65536    /* bytes of a schedule file */
#define GB_SCHED_MAX_LINES 256
#define GB_SCHED_MAX_LINE 256      /* characters of one line */
#define GB_SCHED_MAX_STMTS 64
#define GB_SCHED_MAX_LOOPS 32      /* loops ever made: i, j, k and every split's two */
#define GB_SCHED_MAX_PARAMS 16
#define GB_SCHED_MAX_CHOICES 16    /* values of a param's `in` list */
#define GB_SCHED_MAX_FACTOR 65536  /* a split factor or param value */
#define GB_SCHED_MAX_UNROLL 512
#define GB_SCHED_MAX_UNROLLED 512   /* copies of the body all unrolls make together */
#define GB_SCHED_MAX_TILE 65536    /* floats of a cache_write tile */
#define GB_SCHED_MAX_PACK (16L << 20) /* floats of a pack buffer */
#define GB_SCHED_ROOT (-2)         /* pack ... at root */
#define GB_SCHED_MAX_DISTANCE 1024 /* a prefetch's iterations ahead */
#define GB_SCHED_MAX_PREFETCH_LINES 64 /* cache lines one prefetch asks for per iteration */
/* A prefetch's slot: A, B, C (`prefetch X at L`), then their spread forms
 * (`prefetch X at L over INNER`), one of each an operand. */
#define GB_SCHED_PF_SLOTS 6
#define GB_SCHED_PF_SPREAD 3       /* slot of operand op's spread prefetch: op + this */
#define GB_SCHED_MAX_CHOOSE 5      /* `choose NAME` blocks in a schedule (one per choice) */
#define GB_SCHED_MAX_ANSWERS 2     /* alternatives of a choice: its answers */
#define GB_SCHED_MAX_COMBOS 32     /* combinations of the blocks' answers, each checked */

typedef enum gb_sched_op {
    GB_SCHED_PARAM,
    GB_SCHED_SPLIT,
    GB_SCHED_TILE,
    GB_SCHED_REORDER,
    GB_SCHED_FUSE,
    GB_SCHED_PARALLEL,
    GB_SCHED_VECTORIZE,
    GB_SCHED_UNROLL,
    GB_SCHED_CACHE_WRITE,
    GB_SCHED_PACK,
    GB_SCHED_PREFETCH,
    GB_SCHED_CHOOSE,               /* choose NAME ANSWER: a model choice's block opens */
    GB_SCHED_OR,                   /* or ANSWER: its next alternative */
    GB_SCHED_END,                  /* end: the block closes */
    GB_SCHED_TYPE,                 /* type T: the computation's element types */
    GB_SCHED_TENSORIZE             /* tensorize LOOP amx: the run on AMX's tiles */
} gb_sched_op;

/* A split factor as written: a number, or the name of a param. */
typedef struct gb_sched_factor {
    long value;                    /* the number, when param[0] == '\0' */
    char param[GB_SCHED_NAME_LEN];
} gb_sched_factor;

/* One statement as parsed, before any rule is checked. */
typedef struct gb_sched_stmt {
    gb_sched_op op;
    int line;
    int nloops;                    /* the loops it names (reorder: up to 32) */
    char loops[GB_SCHED_MAX_LOOPS][GB_SCHED_NAME_LEN];
    int nnew;                      /* the names after -> (split 2, tile 4, fuse 1) */
    char names[4][GB_SCHED_NAME_LEN];
    int nfactors;                  /* split 1, tile 2, prefetch 0 or 1 */
    gb_sched_factor factors[2];
    long count;                    /* unroll's N (0: whole loop); param's value */
    char operand;                  /* cache_write 'C', pack 'A' or 'B', prefetch any */
    int at_root;                   /* pack ... at root */
    int fused;                     /* pack ... at LOOP fused */
    int pool;                      /* parallel LOOP pool */
    int model;                     /* param NAME = model */
    gb_dtype dtype;                /* type's T */
    /* param: its name in names[0]; its set, when `in` was given */
    int nchoices;                  /* 0: no set; -1: a range lo..hi */
    long choices[GB_SCHED_MAX_CHOICES];
} gb_sched_stmt;

typedef struct gb_sched_text {
    char file[256];                /* for messages */
    int nstmts;
    gb_sched_stmt stmts[GB_SCHED_MAX_STMTS];
} gb_sched_text;

enum { GB_AXIS_I, GB_AXIS_J, GB_AXIS_K, GB_AXIS_FUSED };

typedef struct gb_sched_param {
    char name[GB_SCHED_NAME_LEN];
    int model;                     /* `= model`: GB_MODEL_* + 1 (the value, per shape,
                                      is the model's); 0: value is the default */
    long value;                    /* the default */
    long min, max;                 /* the `in` set's bounds, or the value's */
    int nchoices;                  /* 0: no set, -1: range, else the list */
    long choices[GB_SCHED_MAX_CHOICES];
} gb_sched_param;

/* A loop ever made: i, j, k, each split's outer and inner, each fuse's. */
typedef struct gb_sched_loop {
    char name[GB_SCHED_NAME_LEN];
    int axis;                      /* GB_AXIS_*; a fused loop: GB_AXIS_FUSED */
    int parent;                    /* the loop split into this one, or -1 */
    int split_outer, split_inner;  /* this loop's pieces once split, else -1 */
    gb_sched_factor factor;        /* of that split */
    int fused_outer, fused_inner;  /* a fused loop's parts, else -1 */
    int fused_into;                /* the loop this one was fused into, or -1 */
    int line;                      /* where it was made (0: i, j, k) */
} gb_sched_loop;

/* Where the statements of a choose block's alternatives put things: what
 * differs between the combinations of a schedule's answers (alternatives
 * neither make loops nor declare params, so the loops and params are the
 * same in all). */
typedef struct gb_sched_placement {
    int norder;
    int order[GB_SCHED_MAX_LOOPS];
    int parallel, parallel_pool, vectorize, cache_write;
    int unroll[GB_SCHED_MAX_LOOPS];
    int pack[2], pack_fused[2], prefetch[GB_SCHED_PF_SLOTS], prefetch_over[GB_SCHED_PF_SLOTS];
    gb_sched_factor distance[GB_SCHED_PF_SLOTS];
} gb_sched_placement;

/* A `choose NAME` block: the model choice it asks and, per alternative in
 * file order, the answer it states (an index into the choice's answers). */
typedef struct gb_sched_block {
    int choice;                    /* GB_CHOICE_* */
    int line;
    int nalts;
    int answer[GB_SCHED_MAX_ANSWERS];
} gb_sched_block;

/* The nest a schedule states: what check.c makes of the statements. */
typedef struct gb_sched {
    char file[256];
    gb_dtype dtype;                /* `type T` (SCHED.md, "Types"); f32 without one */
    int nparams;
    gb_sched_param params[GB_SCHED_MAX_PARAMS];
    int nloops;
    gb_sched_loop loops[GB_SCHED_MAX_LOOPS];
    int norder;                    /* the nest, outermost first (loop ids) */
    int order[GB_SCHED_MAX_LOOPS];
    int parallel;                  /* loop id, or -1 */
    int parallel_pool;             /* `parallel LOOP pool`: run on the pool's threads */
    int vectorize;                 /* loop id, or -1 */
    int unroll[GB_SCHED_MAX_LOOPS];/* per loop: 0 none, -1 whole, else N */
    int cache_write;               /* loop id, or -1 */
    int pack[2];                   /* [0] A, [1] B: loop id, GB_SCHED_ROOT, or -1 */
    int pack_fused[2];             /* the copy made by the first pass that reads it */
    int prefetch[GB_SCHED_PF_SLOTS]; /* per slot ([0] A, [1] B, [2] C, then spread):
                                      the loop whose next iteration's box it asks
                                      for, or -1 */
    int prefetch_over[GB_SCHED_PF_SLOTS]; /* a spread slot's INNER, else -1 */
    gb_sched_factor distance[GB_SCHED_PF_SLOTS]; /* each prefetch's iterations ahead */
    int tensorize;                 /* `tensorize LOOP amx`: the rows loop whose run is
                                      on AMX's tiles (SCHED.md, "Tiles"), or -1 */
    /* Model choices (SCHED.md, "Choices"): the fields above are the first
     * combination's; combo[c] holds combination c's placement, its answer
     * to each block in combo_answer[c] (an index into the choice's answers,
     * per block).  Only the combinations the model can make are kept, each
     * checked as a schedule of its own. */
    int nblocks;
    gb_sched_block blocks[GB_SCHED_MAX_CHOOSE];
    int ncombos;
    int combo_answer[GB_SCHED_MAX_COMBOS][GB_SCHED_MAX_CHOOSE];
    gb_sched_placement combo[GB_SCHED_MAX_COMBOS];
} gb_sched;

/* Parses text (len bytes; it need not end in NUL) into statements.  file
 * names it in messages.  0, or -1 with err "FILE:LINE: ...: reason". */
int gb_sched_parse(const char *file, const char *text, size_t len, gb_sched_text *out,
                   char *err, size_t errlen);

/* Param p's value for M x N x K on nthreads threads (0: the run's default):
 * params' (--param), else the model's for a param `= model`, else the
 * file's. */
long gb_sched_param_at(const gb_sched *s, int p, const gb_params *params, int M, int N, int K,
                       int nthreads);

/* ---- the model (model.c) --------------------------------------------------- */

enum { GB_MODEL_MR, GB_MODEL_NR, GB_MODEL_KC, GB_MODEL_MC, GB_MODEL_NC, GB_MODEL_PF,
       GB_MODEL_COUNT };

/* What the model reads of a machine.  A size, ways or line of 0 is
 * unknown: the model falls back to a stated figure and --explain says so. */
typedef struct gb_sched_machine {
    int lanes, registers;   /* fp32 lanes of the widest vector, vector registers */
    long l1, l2, l3;        /* data cache bytes */
    int l1_ways, l2_ways, l3_ways; /* associativity */
    int line;               /* bytes of a cache line */
    const char *kind;       /* what it is, for --explain ("AMD EPYC, family 26 ...") */
    int kc_half;            /* 1: kc capped by A's micro-panel in half of L1d, 0: by
                             * L1d's ways (BLIS's); this machine's: its calibration's */
    int b_copied;           /* 1: B's rows a page or more apart are copied (b_read
                             * copied: nc from L2); this machine's: its calibration's */
    int b_l2_only;          /* 1: B's rows a page or more apart, read in place, are
                             * prefetched into L2 only (packed's bprefetch l2): pf is
                             * its cap; this machine's: its calibration's */
    int bnear_copied;       /* 1: B's rows under a page apart, more than one A block
                             * of them, are copied (packed's bnear); its calibration's */
    int bmany_copied;       /* 1: B's rows a page or more apart, read in place, are
                             * copied from 192 rows of C (packed's bmany); likewise */
} gb_sched_machine;

/* The quantity a param name is (mr, nr, kc, mc, nc), or -1; its name. */
int gb_sched_model_of(const char *name);
const char *gb_sched_model_name(int q);
/* k per 32-bit word the model counts in for s: the group of s's type where
 * its run is expected to take the dot form (this CPU has the type's dot
 * product and, for bf16, packed's rule prefers it: plan.c), else 1.  A
 * dot pack holds a group of k in a word, so the caches hold group times
 * the k of f32's blocks: the model's blocks are computed for K / group
 * words and kc multiplied back (gb_sched_model_values_typed). */
int gb_sched_model_group(const gb_sched *s);
/* Whether s spreads a prefetch of B (`prefetch B at jr over kk`: the next
 * micro-panel into L2): the model's b_next (gb_sched_model_values_rows). */
int gb_sched_spreads_b(const gb_sched *s);
void gb_sched_model_values_typed(const gb_sched *s, int M, int N, int K, int nthreads,
                                 long out[]);

/* The model's mr, nr, kc, mc, nc and pf (B's prefetch distance) for M x N x K on m (NULL: this machine,
 * read once, with kc's rule from its calibration at nthreads; 0: the run's
 * default), in out[GB_MODEL_COUNT]. */
void gb_sched_model_values(const gb_sched_machine *m, int M, int N, int K, int nthreads,
                           long out[]);
/* The same with B's rows b_row bytes apart (f32's: N x 4), for a type's
 * storage (the page rule of b_read's nc, and pf's set rule), and b_next 1
 * where the schedule brings B's next micro-panel into L2 (a spread
 * prefetch of B: pf then keeps the set rule where rows a page apart would
 * take the cap). */
void gb_sched_model_values_rows(const gb_sched_machine *m, int M, int N, int K, int nthreads,
                                long b_row, int b_next, long out[]);
/* The same, one line a block with the figures it came from (--explain). */
void gb_sched_model_explain(FILE *out, const gb_sched_machine *m, int M, int N, int K,
                            int nthreads);
void gb_sched_model_explain_rows(FILE *out, const gb_sched_machine *m, int M, int N, int K,
                                 int nthreads, long b_row, int b_next);

/* The model's choices (SCHED.md, "Choices"): how B and A reach the
 * micro-kernel, decided per shape and machine from packed's rules and its
 * calibration.  b_read, b_copy and a_read answer gb_read_names (in_place,
 * copied), b_next and b_pf gb_on_off_names (on, off: B's next
 * micro-panel prefetched into L2 by the passes over the one before, or
 * not; B's rows prefetched pf k steps ahead into L1, or not). */
enum { GB_CHOICE_B_READ, GB_CHOICE_B_COPY, GB_CHOICE_A_READ, GB_CHOICE_B_NEXT, GB_CHOICE_B_PF,
       GB_CHOICE_COUNT };
int gb_sched_choice_of(const char *name);
const char *gb_sched_choice_name(int choice);
/* The names of a choice's answers, NULL-terminated. */
const char *const *gb_sched_choice_answers(int choice);
/* The answer index of name for a choice, or -1. */
int gb_sched_choice_answer_of(int choice, const char *name);
const char *gb_sched_choice_answer_name(int choice, int answer);
/* Whether the model can give these answers together (answer[choice], -1:
 * not asked): b_copy copied only where b_read is in place. */
int gb_sched_choice_consistent(const int answer[GB_CHOICE_COUNT]);
struct gb_calibration;
/* The model's answer to every choice for M x N x K on nthreads threads
 * (m and cal NULL: this machine and its calibration at nthreads), with a
 * line of reason each in why[choice] (may be NULL). */
void gb_sched_model_choose(const gb_sched_machine *m, const struct gb_calibration *cal, int M,
                           int N, int K, int nthreads, int answer[GB_CHOICE_COUNT],
                           char why[][320]);
/* The same with B's and A's rows b_row and a_row bytes apart (the model's
 * page rule), and for schedule s: its type's rows (u8s8's B rows are N
 * bytes apart, not N floats) and blocks in words (gb_sched_model_group). */
void gb_sched_model_choose_rows(const gb_sched_machine *m, const struct gb_calibration *cal,
                                int M, int N, int K, int nthreads, long b_row, long a_row,
                                int answer[GB_CHOICE_COUNT], char why[][320]);
void gb_sched_model_choose_typed(const gb_sched *s, int M, int N, int K, int nthreads,
                                 int answer[GB_CHOICE_COUNT], char why[][320]);
/* The combination of s's blocks for M x N x K on nthreads threads (0: the
 * run's default): params' answers (--param b_read=copied) over the model's.
 * The index into s->combo, or -1 with err when params ask for a combination
 * the model never makes. */
int gb_sched_combo_for(const gb_sched *s, const gb_params *params, int M, int N, int K,
                       int nthreads, char *err, size_t errlen);
/* s with combination c's placement, in out. */
void gb_sched_with_combo(const gb_sched *s, int c, gb_sched *out);

/* The loop whose first iteration makes a fused pack's copy (check.c), pos
 * the final positions per loop id; -1 when there is none. */
int gb_sched_fused_pass(const gb_sched *s, int op, const int *pos);

/* The words of the grammar (words.c): a statement's name ("split"); the
 * statement a word names, or -1; whether a name is a word of the grammar. */
const char *gb_sched_op_name(gb_sched_op op);
int gb_sched_op_of(const char *word);
int gb_sched_is_reserved(const char *name);

/* Applies the statements in order to the nest i, j, k, checking every rule
 * of SCHED.md.  0, or -1 with err. */
int gb_sched_check(const gb_sched_text *text, gb_sched *out, char *err, size_t errlen);
/* The same for statements with no choose block (check.c); gb_sched_check
 * (check_blocks.c) calls it once per combination of the blocks. */
int gb_sched_check_plain(const gb_sched_text *text, gb_sched *out, char *err, size_t errlen);

/* ---- text to a checked nest (load.c) ----------------------------------------- */

/* Parses and checks text (len bytes; it need not end in NUL) as a schedule
 * named file in messages: what every reader of a schedule text calls.
 * 0 with *out, or -1 with err "FILE:LINE: ...: reason". */
int gb_sched_from_text(const char *file, const char *text, size_t len, gb_sched *out,
                       char *err, size_t errlen);

/* Reads a regular file of at most GB_SCHED_MAX_FILE bytes (one more is read,
 * so that the parser can say it is too long), NUL-terminated; *len gets its
 * length.  NULL with err "FILE:1: reason". */
char *gb_sched_read(const char *path, size_t *len, char *err, size_t errlen);

/* Reads, parses and checks a schedule file (a regular file of text, at most
 * GB_SCHED_MAX_FILE bytes).  0, or -1 with err.  When text is not NULL it
 * gets the file as it was checked, NUL-terminated (free() it): the one read,
 * so that what is recorded is what was checked. */
int gb_sched_load(const char *path, gb_sched *out, char **text, char *err, size_t errlen);

/* ---- one shape: resolve, plan, lower ------------------------------------- */

/* The nest resolved for a shape and the params' values. */
typedef struct gb_sched_shape {
    const gb_sched *s;
    int M, N, K;
    int nthreads;                      /* the threads it was resolved for; 0: the default */
    long param[GB_SCHED_MAX_PARAMS];   /* each param's value */
    long extent[GB_SCHED_MAX_LOOPS];   /* every loop's trip count */
    long stride[GB_SCHED_MAX_LOOPS];   /* its step in its axis's index */
    long factor[GB_SCHED_MAX_LOOPS];   /* a split loop's factor, resolved */
    long distance[GB_SCHED_PF_SLOTS];  /* each prefetch's distance, resolved */
} gb_sched_shape;

/* Resolves s for M x N x K on nthreads threads (0: the run's default; the
 * model's kc rule is calibrated per thread count) with the values params
 * sets (the rest default):
 * every factor, extent and stride (resolve.c).  0, or -1 with err when a
 * value is outside its param's set or a whole unroll is too long. */
int gb_sched_resolve(const gb_sched *s, const gb_params *params, int M, int N, int K,
                     int nthreads, gb_sched_shape *out, char *err, size_t errlen);

/* The nest for one shape, planned for lowering (src/sched/plan.h): made
 * once, then read by whatever the shape needs (scratch, C, explanation). */
typedef struct gb_sched_plan gb_sched_plan;

/* Resolves s for M x N x K (gb_sched_resolve), plans it and checks the
 * per-shape limits of SCHED.md (cache_write tile, pack buffers).  The plan
 * (gb_sched_plan_free it) keeps a pointer to s, or NULL with err. */
gb_sched_plan *gb_sched_plan_new(const gb_sched *s, const gb_params *params, int M, int N,
                                 int K, char *err, size_t errlen);
/* The same for a run on nthreads threads (0: the run's default), which a
 * schedule's choices may depend on (the calibration is per thread count). */
gb_sched_plan *gb_sched_plan_for(const gb_sched *s, const gb_params *params, int M, int N,
                                 int K, int nthreads, char *err, size_t errlen);
void gb_sched_plan_free(gb_sched_plan *pl);
/* The resolved nest the plan was made for. */
const gb_sched_shape *gb_sched_plan_shape(const gb_sched_plan *pl);

/* The form the type takes for the planned shape, one line (--explain's
 * "type ..." line): "f32", "u8s8 in groups of 4 k: vpdpbusd", "bf16
 * widened to f32 where read: ..."; and whether it is the dot form. */
const char *gb_sched_plan_form(const gb_sched_plan *pl, int *dot);
/* Whether the planned run is on AMX's tiles (SCHED.md, "Tiles"). */
int gb_sched_plan_tiles(const gb_sched_plan *pl);

/* The test hook for a typed schedule's form (SCHED.md, "Types"): 0 the
 * rule's (the default), 1 the dot form wherever the nest and the CPU allow
 * it, 2 always widened.  Not for use while a plan is made. */
void gb_sched_force_form(int which);

/* The test hook for a tensorized schedule (SCHED.md, "Tiles"): 1, the
 * kernel's tile operations are lowered to calls of the emulation
 * (amx_tiles_emulated_any), so that the lowering runs and is verified on
 * a CPU without AMX; 0 (the default), AMX's instructions.  Not for use
 * while a plan is made. */
void gb_sched_force_tiles_emulated(int on);
int gb_sched_tiles_emulated(void);

/* Floats of scratch the kernel takes in ctx->state for nthreads threads
 * (its pack buffers); 0 when it needs none. */
long gb_sched_scratch_floats(const gb_sched_plan *pl, int nthreads);

/* The C of the planned nest (lower.c): one function `symbol` with the
 * kernel signature of gemmbench.h.  The text is malloc'ed (the caller
 * frees it); NULL when out of memory. */
char *gb_sched_lower(const gb_sched_plan *pl, const char *symbol);

/* The nest as --explain prints it under the heading name (explain.c, TVM's
 * `lower` style): loops with their extents, annotations and the statement
 * bodies. */
void gb_sched_explain(FILE *out, const char *name, const gb_sched_plan *pl);

#endif
