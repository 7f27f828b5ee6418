/*
 * settings.h - every setting of every command, declared once in
 * gb_settings[] (src/settings/settings.c): its flag, bench.conf key, kind of
 * value, limits, default, help line and the commands that take it.  The
 * flag parser (gb_settings_parse_args), the bench.conf reader, each
 * command's --help (gb_settings_write_help) and src/settings/SETTINGS.md
 * all read that table.  Library code: fills an error message and returns a
 * status; only the commands print and exit.
 */
#ifndef GB_SETTINGS_H
#define GB_SETTINGS_H

#include <stddef.h>
#include <stdio.h>

#include "options.h"

/* The commands, as bits of gb_setting.commands. */
enum {
    GB_CMD_RUN = 1 << 0,       /* gemmbench [options] */
    GB_CMD_INFO = 1 << 1,
    GB_CMD_COMPARE = 1 << 2,
    GB_CMD_AB = 1 << 3,        /* ab's own options */
    GB_CMD_REPORT = 1 << 4,
    GB_CMD_TUNE = 1 << 5,
    GB_CMD_AB_BUILDS = 1 << 6, /* a run option ab checks, then hands to both builds */
    GB_CMD_HISTORY = 1 << 7,
    GB_CMD_MODEL = 1 << 8      /* gemmbench model ACTION */
};

/* How a setting's value is written, and what it becomes in gb_setting_value. */
typedef enum gb_setting_kind {
    GB_KIND_SWITCH,          /* a flag without a value: 1; bench.conf: yes or no */
    GB_KIND_SWITCH_OFF,      /* the same, but the flag says no (--no-check) */
    GB_KIND_INT,             /* an integer in [min, max]: number */
    GB_KIND_NUMBER,          /* a finite number in [min, max] (see open): real */
    GB_KIND_SECONDS,         /* a NUMBER of seconds: real */
    GB_KIND_CHOICE,          /* one of choices: number is its index */
    GB_KIND_FORMAT,          /* one of choices, an output format: format */
    GB_KIND_THREADS,         /* counts, ranges A-B and all: list, count, all */
    GB_KIND_M_LIST,          /* M values in [1, GB_MAX_DIM]: list, count */
    GB_KIND_SHAPE,           /* MxKxN, each in [1, GB_MAX_DIM]: M, K, N */
    GB_KIND_TEXT             /* any text (a name, a path, a list): the command checks it */
} gb_setting_kind;

/* gb_setting.open: which ends of [min, max] are excluded. */
enum { GB_OPEN_MIN = 1, GB_OPEN_MAX = 2 };

/* What a setting sets.  One id may have an entry per command when their
 * limits, defaults or help differ (tune's --reps is not run's). */
typedef enum gb_setting_id {
    GB_SET_VARIANT, GB_SET_DTYPE, GB_SET_KERNEL, GB_SET_M, GB_SET_SHAPE, GB_SET_ALL, GB_SET_PARAM,
    GB_SET_PREPACK, GB_SET_THREADS, GB_SET_BIND, GB_SET_WARMUP, GB_SET_REPS,
    GB_SET_MIN_REPS, GB_SET_MAX_TIME, GB_SET_MIN_TIME, GB_SET_COOLDOWN, GB_SET_ROUNDS,
    GB_SET_QUICK, GB_SET_CHECK, GB_SET_CACHE, GB_SET_OUTPUT, GB_SET_FORCE, GB_SET_FORMAT,
    GB_SET_QUIET, GB_SET_CONFIG, GB_SET_LIST, GB_SET_EXPLAIN, GB_SET_HELP, GB_SET_VERSION,
    GB_SET_ROUND, GB_SET_PEAK, GB_SET_LOCKSTEP,
    GB_SET_TRIALS, GB_SET_BUDGET, GB_SET_RECORDS, GB_SET_SEED,
    GB_SET_THRESHOLD, GB_SET_ALPHA, GB_SET_MIN_SAMPLES, GB_SET_PAIRED,
    GB_SET_METRIC, GB_SET_COMBINED, GB_SET_INTERLEAVE, GB_SET_SCHEDULE, GB_SET_EMIT_C,
    GB_SET_SPACE, GB_SET_STORE, GB_SET_COMMIT, GB_SET_DATE, GB_SET_MACHINE, GB_SET_VALUE,
    GB_SET_ANCHOR, GB_SET_ANCHOR_COMMIT, GB_SET_DATABASE, GB_SET_MODEL, GB_SET_ELITES,
    GB_SET_BLIS_ARCH,
    GB_SET_COUNT
} gb_setting_id;

typedef struct gb_setting {
    gb_setting_id id;
    unsigned commands;           /* GB_CMD_* bits */
    const char *flag;            /* the long option, without "--" */
    char letter;                 /* the short option, or 0 */
    const char *conf_key;        /* the bench.conf key (run only), or NULL */
    gb_setting_kind kind;
    double min, max;             /* INT, NUMBER and SECONDS */
    int open;                    /* GB_OPEN_* */
    const char *const *choices;  /* CHOICE and FORMAT: the names, NULL-ended */
    const char *value_name;      /* "N", "LIST" in --help; NULL for a switch */
    const char *initial;         /* the default, written as a value, or NULL */
    const char *default_note;    /* the default when no value says it, or NULL */
    const char *group;           /* run's --help heading */
    const char *help;            /* what it does, for --help and SETTINGS.md */
    int hidden;                  /* set by gemmbench ab for its builds: no --help line */
} gb_setting;

extern const gb_setting gb_settings[];
extern const size_t gb_setting_count;
#define GB_MAX_SETTINGS 128      /* room for the table (checked where it is) */

/* --quick: the settings it stands for, as flags.  A smoke sweep of every
 * variant and kernel in well under two minutes; bench.conf comes before it,
 * the flags given after. */
#define GB_QUICK_FLAGS "--warmup 1 --reps 5 --min-reps 3 --max-time 0.3 --m 16,128 --rounds 1"

/* Room for the longest list a setting holds (GB_MAX_M, GB_MAX_THREAD_COUNTS). */
#define GB_SETTING_LIST_MAX 64

/* A value read by gb_setting_read: the fields its kind fills. */
typedef struct gb_setting_value {
    char name[48];           /* as errors name it: "--reps", or bench.conf's "reps" */
    const char *text;        /* as given; the caller's storage (copy what is kept) */
    long number;             /* INT; CHOICE's index; SWITCH 1 or 0 */
    double real;             /* NUMBER, SECONDS */
    gb_format format;        /* FORMAT */
    int M, K, N;             /* SHAPE */
    int count;               /* M_LIST, THREADS */
    int list[GB_SETTING_LIST_MAX];   /* THREADS ascending and distinct */
    int all;                 /* THREADS: `all` was in the list */
    int repeated;            /* an earlier flag of the same line set it: lists append */
} gb_setting_value;

/* Stores v into target (a command's own options).  0, or -1 with err. */
typedef int (*gb_setting_store)(void *target, const gb_setting *s, const gb_setting_value *v,
                                char *err, size_t errlen);

/* The entry of command cmd (a GB_CMD_* bit) for a long flag (without
 * dashes), a short letter, a bench.conf key, or an id; NULL when none. */
const gb_setting *gb_setting_by_flag(unsigned cmd, const char *flag, size_t len);
const gb_setting *gb_setting_by_letter(unsigned cmd, int letter);
const gb_setting *gb_setting_by_key(unsigned cmd, const char *key);
const gb_setting *gb_setting_by_id(unsigned cmd, gb_setting_id id);
/* Whether s takes a value on the command line (every kind but the switches). */
int gb_setting_takes_value(const gb_setting *s);

/* Reads text as a value of s into v; name is how errors call it ("--reps",
 * "reps").  A switch's text is "" from a flag, "yes" or "no" from a file.
 * 0, or -1 with err: "NAME: 'TEXT' is not WHAT". */
int gb_setting_read(const gb_setting *s, const char *name, const char *text,
                    gb_setting_value *v, char *err, size_t errlen);

/* The run command's store: into a gb_options (src/settings/options.c);
 * bench.conf and tune's selection use it too. */
int gb_options_store(void *options, const gb_setting *s, const gb_setting_value *v, char *err,
                     size_t errlen);

/* Reads and stores the default (initial) of every setting cmd takes. */
int gb_settings_defaults(unsigned cmd, gb_setting_store store, void *target, char *err,
                         size_t errlen);

/* Parses argv's options for cmd with getopt_long (argv[0] is the program or
 * command name), each value read by gb_setting_read and handed to store.
 * Returns the index of the first operand (getopt moves them to the end), or
 * -1 with err for a bad value or GB_ARGS_BAD_OPTION for an unknown option,
 * a missing value or a value after a switch ("option '--force' takes no
 * value").  With GB_ARGS_SCAN, values are not read (v has name and text
 * only), errors are skipped, and only store's return ends the scan. */
#define GB_ARGS_BAD_OPTION (-2)
#define GB_ARGS_SCAN 1
int gb_settings_parse_args(unsigned cmd, int argc, char **argv, int flags,
                           gb_setting_store store, void *target, char *err, size_t errlen);

/* cmd's options as --help lines: the flag, its value, its help and default,
 * wrapped at 80 columns; under run's group headings when headings is set. */
void gb_settings_write_help(FILE *out, unsigned cmd, int headings);
/* What values s takes, for --help and SETTINGS.md ("an integer in [1, 1000]"). */
void gb_setting_describe(const gb_setting *s, char *buf, size_t len);

#endif
