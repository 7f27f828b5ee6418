/*
 * sweep.h - what a run measures, as values every layer shares: the limits,
 * the kernels and shapes, the options of a run (filled by the settings,
 * options.h), and the shapes a selection expands to (src/base/shapes.c).
 */
#ifndef GB_SWEEP_H
#define GB_SWEEP_H

#include <limits.h>
#include "gemmbench.h"

/* PATH_MAX is POSIX, not ISO C: glibc's <limits.h> defines it only when the
 * including file asked for POSIX (_POSIX_C_SOURCE, _GNU_SOURCE), which GCC's
 * own <limits.h> lets slip and clang does not.  Linux's value, spelt as
 * <linux/limits.h> spells it, so a later definition is the same one. */
#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

#define GB_MAX_M 64          /* entries in an M list */
#define GB_MAX_SHAPES 1024   /* --shape entries, and shapes in one run */
#define GB_MAX_KERNELS 32    /* built-in plus [kernel NAME] sections */
#define GB_NAME_LEN 32
#define GB_ERR_LEN 512
#define GB_MAX_DIM 1000000   /* largest M, K or N accepted; memory is checked too */
#define GB_MAX_PARAM_SETS 16 /* --param flags in one run */
/* Rounds of a run unless told: every entry's calls spread over five passes of
 * the sweep, so that its median is not one moment of a shared machine and
 * compare can test per-round medians (src/analysis/compare.md). */
#define GB_DEFAULT_ROUNDS 5
#define GB_MAX_THREAD_COUNTS 64  /* distinct counts in a --threads list */
#define GB_MAX_SCHEDULES 16      /* --schedule files */

/* --bind: where the OpenMP threads go (src/machine/topology.c). */
typedef enum gb_bind {
    GB_BIND_DEFAULT,         /* the user's OMP_PROC_BIND/OMP_PLACES if set, else close */
    GB_BIND_CLOSE,
    GB_BIND_SPREAD,
    GB_BIND_NONE             /* no binding: the kernel's scheduler places threads */
} gb_bind;

typedef struct gb_kernel_def {
    char name[GB_NAME_LEN];
    int K, N;
    int nm;                  /* 0: use the run's M list */
    int m[GB_MAX_M];
} gb_kernel_def;

typedef struct gb_shape {
    char kernel[GB_NAME_LEN];
    int M, K, N;
    gb_dtype dtype;          /* the operands' type (a run's --dtype list) */
} gb_shape;

typedef enum gb_format { GB_FMT_TABLE, GB_FMT_JSON, GB_FMT_CSV, GB_FMT_MD } gb_format;

typedef struct gb_options {
    char variants[1024];     /* comma list: names, families, or all */
    /* --dtype LIST (bench.conf dtype): the types every shape runs in, in
     * the order given; 0 types: f32 alone (tune, which takes no list). */
    int ndtypes;
    gb_dtype dtypes[GB_DTYPE_COUNT];
    char kernels[1024];      /* comma list: kernel names, or all */
    int nm, m[GB_MAX_M];
    int nshapes;             /* --shape MxKxN entries replace kernels x M */
    gb_shape shapes[GB_MAX_SHAPES];
    int ncustom;             /* [kernel NAME] sections of bench.conf */
    gb_kernel_def custom[GB_MAX_KERNELS];
    int no_config;           /* set by tune, which reads no bench.conf: its
                                [kernel] sections are not offered in errors */

    int threads;             /* 0: all the process may use */
    int warmup, reps, min_reps;
    double max_time;         /* seconds of timed calls per measurement (cap) */
    double min_time;         /* seconds: calls go on past reps until this much; 0 none */
    double cooldown;         /* seconds slept between measurements */
    int rounds;              /* passes over the sweep; each entry's reps are
                                split between them (runner.h); 0 until parsed */

    char config_path[PATH_MAX];
    int config_given;
    char output[PATH_MAX];   /* empty: results/<host>-<UTC timestamp>.json */
    /* --model FILE (bench.conf model = FILE): the model ml_guided ranks
     * with, "none", or empty (none given) */
    char model[PATH_MAX];
    char blis_arch[32];          /* --blis-arch: BLIS's sub-configuration by name, or "" */
    int force;
    gb_format format;
    /* Each --param is one parameter set ("k=v,k=v"); every selected variant
     * runs once per set it takes whole, interleaved per shape, and once
     * unlabelled if it takes none (runner.h).  No --param: no set. */
    int nparam_sets;
    char param_sets[GB_MAX_PARAM_SETS][256];

    int list, quick, check, quiet, explain, prepack, all;
    /* gemmbench ab's: --round I runs only round I (from 1) of the rounds;
     * --peak gives the peak instead of measuring it (0: measure). */
    int only_round;
    double peak_all, peak_one;
    char peak_isa[16];
    int help, version;
    /* --threads LIST / bench.conf threads: the counts, ascending and distinct
     * (src/base/parse.c), plus threads_all for `all` (every CPU the process may
     * use, resolved at run time).  No list at all also means all.  threads
     * above is the count when the list is one number, else 0. */
    int nthreads_list;
    int threads_list[GB_MAX_THREAD_COUNTS];
    int threads_all;
    gb_bind bind;
    /* gemmbench ab's: measure only when ab gives the turn (lockstep.h). */
    int lockstep;
    /* --cache cold: every timed call finds A, B and C outside the caches
     * (harness.h: gb_workspace_go_cold); 0 warm, the default. */
    int cache_cold;
    /* --schedule FILE (bench.conf schedules = FILE, FILE): schedule files,
     * each the variant sched:STEM (src/sched/); --emit-c prints their C. */
    int nschedules;
    char schedules[GB_MAX_SCHEDULES][PATH_MAX];
    int emit_c;
} gb_options;

/* The built-in kernels: qkv, mlp_expand, mlp_reduce, square1024. */
extern const gb_kernel_def gb_builtin_kernels[];
extern const int gb_builtin_kernel_count;

/* Expands the kernel and M selection into shapes.  Returns the count, or -1. */
int gb_shapes_build(const gb_options *o, gb_shape *out, int max, char *err, size_t errlen);

#endif
