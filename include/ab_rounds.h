/*
 * ab_rounds.h - gemmbench ab's two builds and their rounds: each build
 * checked, then every round run as a fresh process of each (one after the
 * other, or taking turns entry by entry: lockstep.h), its file read back
 * and merged into the build's (resultfile.h: gb_result_file_merge).  The
 * command, its options and the verdict are in src/cmd/ab_cmd.c.
 */
#ifndef GB_AB_ROUNDS_H
#define GB_AB_ROUNDS_H

#include <limits.h>
#include <stddef.h>

#include "options.h"
#include "resultfile.h"

#define AB_MAX_ARGS 256

typedef struct ab_opts {
    int rounds, quiet, force, help;
    int by_entry;            /* --interleave entry (lockstep.h), else round */
    double threshold_pct, alpha;
    unsigned seed;
    int seed_given;
    gb_format format;
    const char *prefix;
    const char *pass[AB_MAX_ARGS];   /* run options for both builds */
    int npass;
    char pair_id[33];        /* this run's identity, in both files' run.ab (32 hex digits) */
} ab_opts;

typedef struct build {
    const char *name;        /* OLD or NEW */
    const char *path;
    char shown[256];         /* path as messages show it (gb_printable) */
    char output[PATH_MAX];   /* the build's result file, every round merged */
    char round_file[PATH_MAX];   /* where a round's process writes */
    char errlog[PATH_MAX];   /* its stderr, kept to report why it stopped */
    gb_result_file merged;   /* the rounds so far (resultfile.h); doc NULL before */
    char peak[96];           /* --peak for rounds after the first, "" if unknown */
    int status;              /* the last round's exit status */
    int check_failed;        /* its first round exited 1 */
} build;

/* 0 when b->path is an executable file; else -1 with err. */
int gb_ab_check_executable(const build *b, char *err, size_t errlen);
/* 0 when b answers --version as a gemmbench that writes our schema, within
 * the probes' bound (gb_ab_probe_timeout_s); else -1 (or -3) with err. */
int gb_ab_check_gemmbench(const build *b, char *err, size_t errlen);
/* Seconds a build may take to answer `--version` (gb_ab_check_gemmbench)
 * and `OPT --help` (gb_ab_accepts), unless
 * $GEMMBENCH_AB_PROBE_TIMEOUT gives 1..600 (gb_ab_probe_timeout_s). */
#define AB_PROBE_TIMEOUT_S 10
int gb_ab_probe_timeout_s(void);

/* Whether b takes opt (with val, NULL for a flag) without a usage error: 1
 * it does, 0 it does not, -1 it did not answer within AB_PROBE_TIMEOUT_S
 * (killed). */
int gb_ab_accepts(const build *b, const char *opt, const char *val);
/* Every round of both builds, in a fresh random order each.  GB_EXIT_OK, or
 * the status to exit with (err says why). */
int gb_ab_run_rounds(build *b, const ab_opts *o, char *err, size_t errlen);

#endif
