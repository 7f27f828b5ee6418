/*
 * settings.c - the table of every setting (settings.h), and reading a value
 * of one: the only place a flag's or a bench.conf key's limits are checked
 * and its error worded.
 */
#include "settings.h"
#include "compare.h"
#include "history.h"
#include "parse.h"

#include <stdio.h>
#include <string.h>

/* The kinds of value, with their limits (settings.h). */
#define SWITCH .kind = GB_KIND_SWITCH
#define SWITCH_OFF .kind = GB_KIND_SWITCH_OFF
#define INT(lo, hi) .kind = GB_KIND_INT, .min = (lo), .max = (hi)
#define NUMBER(lo, hi, ends) .kind = GB_KIND_NUMBER, .min = (lo), .max = (hi), .open = (ends)
#define SECONDS(lo, hi, ends) .kind = GB_KIND_SECONDS, .min = (lo), .max = (hi), .open = (ends)
#define CHOICE(names) .kind = GB_KIND_CHOICE, .choices = (names)
#define FORMAT(names) .kind = GB_KIND_FORMAT, .choices = (names)
#define THREADS .kind = GB_KIND_THREADS
#define M_LIST .kind = GB_KIND_M_LIST
#define SHAPE .kind = GB_KIND_SHAPE
#define TEXT .kind = GB_KIND_TEXT

/* Who takes what: run's options that ab hands on to both builds, and the
 * subcommands that share an entry. */
#define RUN_AB (GB_CMD_RUN | GB_CMD_AB_BUILDS)
#define FILTERS (GB_CMD_COMPARE | GB_CMD_REPORT)
#define SUBCOMMANDS \
    (GB_CMD_INFO | GB_CMD_COMPARE | GB_CMD_AB | GB_CMD_REPORT | GB_CMD_TUNE | GB_CMD_HISTORY | \
     GB_CMD_MODEL)

#define STR_(x) #x
#define STR(x) STR_(x)

/* The values of the choices; an entry's index is its number. */
static const char *const bind_names[] = { "close", "spread", "none", NULL };
static const char *const cache_names[] = { "warm", "cold", NULL };
/* Every format, in gb_format's order: a --format name's index is its gb_format. */
static const char *const run_formats[] = { "table", "json", "csv", "md", NULL };
static const char *const compare_formats[] = { "table", "md", "json", NULL };
static const char *const report_formats[] = { "table", "md", "csv", NULL };
static const char *const history_formats[] = { "table", "json", NULL };
/* report.c's metric names (gb_report_metric_parse), then scaling. */
static const char *const history_value_names[] = { "median", "best", NULL };
static const char *const metric_names[] = { "median", "min", "gflops", "speedup", "peak",
                                            "roof", "scaling", NULL };
static const char *const interleave_names[] = { "entry", "round", NULL };

/* Every setting of every command.  To add one: an id in settings.h, one
 * entry here (in the group where --help should show it), and a case in the
 * store of each command that takes it (gb_options_store for run and
 * bench.conf); --help, the parser, bench.conf and the test of
 * src/settings/SETTINGS.md follow.  Entries of one id for different
 * commands stand together. */
const gb_setting gb_settings[] = {
    /* ---- selection ---- */
    { .id = GB_SET_VARIANT, .commands = RUN_AB, .flag = "variant", .letter = 'v',
      .conf_key = "variants", TEXT, .value_name = "LIST", .initial = "all", .group = "selection",
      .help = "variant names, family names (family:NAME when a variant has the same name, "
              "e.g. family:parallel), or all; repeatable" },
    { .id = GB_SET_VARIANT, .commands = GB_CMD_TUNE, .flag = "variant", .letter = 'v', TEXT,
      .value_name = "V", .initial = "rule_based", .group = "selection",
      .help = "the schedule to tune: rule_based (replayed by `tuned`) or packed (by "
              "`tuned_packed`)" },
    { .id = GB_SET_SCHEDULE, .commands = GB_CMD_TUNE, .flag = "schedule", TEXT,
      .value_name = "FILE", .group = "selection",
      .help = "tune a schedule file's params instead (their `in` sets; not recorded: the "
              "best are printed as --param values)" },
    { .id = GB_SET_SPACE, .commands = GB_CMD_TUNE, .flag = "space", TEXT,
      .value_name = "FILE", .group = "selection",
      .help = "search the schedules of a space file (schedules/cpu_gemm.space; choose blocks "
              "and param sets): the winner's text recorded per shape, replayed by "
              "`tuned_sched`" },
    { .id = GB_SET_DTYPE, .commands = GB_CMD_TUNE, .flag = "dtype", TEXT, .value_name = "T",
      .initial = "f32", .group = "selection",
      .help = "--space: the type of the schedules searched, f32, bf16 or u8s8 (a space that "
              "states its type searches that one); bf16 and u8s8 are measured against "
              "packed's kernel of the type, recorded per type for tuned_sched --dtype" },
    { .id = GB_SET_MODEL, .commands = GB_CMD_RUN, .flag = "model", .conf_key = "model", TEXT,
      .value_name = "FILE", .group = "selection", .default_note = "none",
      .help = "the model ml_guided ranks its candidates with (gemmbench model train), or "
              "none: without one ml_guided runs rule_based's schedule and says why" },
    { .id = GB_SET_MODEL, .commands = GB_CMD_TUNE, .flag = "model", TEXT, .value_name = "FILE",
      .group = "selection",
      .help = "--space: measure the candidates this model (gemmbench model train) ranks "
              "fastest instead of random draws (a guided search)" },
    { .id = GB_SET_DATABASE, .commands = GB_CMD_TUNE, .flag = "database", TEXT,
      .value_name = "FILE", .group = "output",
      .help = "--space: append every candidate measured to FILE, a trial database (JSON "
              "lines, src/learn/LEARN.md) for gemmbench model train" },
    { .id = GB_SET_DATABASE, .commands = GB_CMD_MODEL, .flag = "database", TEXT,
      .value_name = "FILE",
      .help = "train: a trial database of tune --space --database (repeatable)" },
    { .id = GB_SET_SPACE, .commands = GB_CMD_MODEL, .flag = "space", TEXT,
      .value_name = "FILE", .initial = "schedules/cpu_gemm.space",
      .help = "train: the space ml_guided draws its candidates from, carried in the model" },
    { .id = GB_SET_OUTPUT, .commands = GB_CMD_MODEL, .flag = "output", .letter = 'o', TEXT,
      .value_name = "FILE",
      .help = "train: the model file to write (replaces a model file, never an input)" },
    { .id = GB_SET_FORCE, .commands = GB_CMD_MODEL, .flag = "force", .letter = 'f', SWITCH,
      .help = "train: replace --output though it is a file of another kind" },
    { .id = GB_SET_SEED, .commands = GB_CMD_MODEL, .flag = "seed", INT(0, 2147483647),
      .value_name = "N", .initial = "1", .help = "train: the trees' seed (one model per seed)" },
    { .id = GB_SET_ELITES, .commands = GB_CMD_MODEL, .flag = "elites", INT(0, 64),
      .value_name = "N", .initial = "3",
      .help = "train: the fastest distinct schedules of each shape the model carries "
              "(ml_guided ranks them beside the space's points; 0: none)" },
    { .id = GB_SET_EXPLAIN, .commands = GB_CMD_MODEL, .flag = "explain", SWITCH,
      .help = "train: print the features that weigh most (their total gain)" },
    { .id = GB_SET_VARIANT, .commands = FILTERS, .flag = "variant", .letter = 'v', TEXT,
      .value_name = "LIST", .default_note = "all",
      .help = "only these variants: names, families or labels such as packed+prepack or "
              "'k8[tk=16]' (comma list, repeatable; a comma inside brackets is part of the "
              "label)" },
    { .id = GB_SET_DTYPE, .commands = RUN_AB, .flag = "dtype", .conf_key = "dtype", TEXT,
      .value_name = "LIST", .initial = "f32", .group = "selection",
      .help = "the operands' types: f32, bf16 (bf16 x bf16 -> f32) and u8s8 (u8 x s8 -> "
              "s32), comma list; a variant without a type is skipped with its reason" },
    { .id = GB_SET_DTYPE, .commands = FILTERS, .flag = "dtype", TEXT, .value_name = "LIST",
      .default_note = "all", .help = "only these types: f32, bf16, u8s8 (comma list)" },
    { .id = GB_SET_KERNEL, .commands = RUN_AB, .flag = "kernel", .letter = 'k',
      .conf_key = "kernels", TEXT, .value_name = "LIST", .initial = "all", .group = "selection",
      .help = "qkv, mlp_expand, mlp_reduce, square1024, bench.conf [kernel] names, or all "
              "(the three BERT kernels); repeatable" },
    { .id = GB_SET_KERNEL, .commands = GB_CMD_TUNE, .flag = "kernel", .letter = 'k', TEXT,
      .value_name = "LIST", .initial = "all", .group = "selection",
      .help = "qkv, mlp_expand, mlp_reduce, square1024, or all (the three BERT kernels); "
              "repeatable" },
    { .id = GB_SET_KERNEL, .commands = FILTERS, .flag = "kernel", .letter = 'k', TEXT,
      .value_name = "LIST", .default_note = "all",
      .help = "only these kernels (comma list, repeatable)" },
    { .id = GB_SET_M, .commands = RUN_AB | GB_CMD_TUNE, .flag = "m", .conf_key = "m", M_LIST,
      .value_name = "LIST", .initial = "16,32,64,96,128,192,256,384", .group = "selection",
      .help = "M values, e.g. 16,32,64 (commas or blanks)" },
    { .id = GB_SET_SHAPE, .commands = RUN_AB | GB_CMD_TUNE, .flag = "shape", SHAPE,
      .value_name = "MxKxN", .group = "selection",
      .help = "a custom shape (repeatable; instead of --kernel and --m, not with them)" },
    { .id = GB_SET_ALL, .commands = RUN_AB, .flag = "all", .letter = 'a', SWITCH,
      .group = "selection", .help = "every variant on every kernel" },
    { .id = GB_SET_PARAM, .commands = RUN_AB, .flag = "param", .letter = 'p', TEXT,
      .value_name = "K=V[,...]", .group = "selection",
      .help = "schedule parameters (see --list), labelled in the output; each --param is "
              "one set, and every set runs (ablations); --param defaults: the variant's "
              "own rules, as a set" },
    { .id = GB_SET_SCHEDULE, .commands = RUN_AB, .flag = "schedule", .conf_key = "schedules",
      TEXT, .value_name = "FILE", .group = "selection",
      .help = "a schedule file (src/sched/SCHED.md), measured as the variant sched:STEM; "
              "repeatable; alone, the whole selection" },
    { .id = GB_SET_BLIS_ARCH, .commands = GB_CMD_RUN, .flag = "blis-arch",
      .conf_key = "blis_arch", TEXT, .value_name = "NAME", .group = "selection",
      .default_note = "BLIS's own choice from CPUID",
      .help = "BLIS's sub-configuration for the blis variant (skx, haswell, zen3, ...: one "
              "this BLIS was built with, for an instruction set this CPU has), so that BLIS "
              "can be measured at its best; recorded in run.config and tool.libraries.blis" },
    { .id = GB_SET_PREPACK, .commands = RUN_AB, .flag = "prepack", SWITCH, .group = "selection",
      .help = "also measure with B packed outside the timed region (the variants that can; "
              "separate +prepack entries)" },

    /* ---- timing ---- */
    { .id = GB_SET_THREADS, .commands = RUN_AB, .flag = "threads", .letter = 't',
      .conf_key = "threads", THREADS, .value_name = "LIST", .group = "timing",
      .default_note = "all, the CPUs the process may use (under Slurm, its allotment)",
      .help = "OpenMP thread counts: 2, 1,2, 1-8 or all; every entry at each count, the "
              "single-thread schedules once at 1" },
    { .id = GB_SET_THREADS, .commands = GB_CMD_TUNE, .flag = "threads", .letter = 't', THREADS,
      .value_name = "LIST", .group = "timing",
      .default_note = "all, the CPUs the process may use (under Slurm, its allotment)",
      .help = "thread counts, as a run takes them (2, 1,2, 1-8 or all); records are kept per "
              "count, so each count is tuned on its own" },
    { .id = GB_SET_BIND, .commands = RUN_AB, .flag = "bind", CHOICE(bind_names),
      .value_name = "P", .group = "timing",
      .default_note = "the user's OMP_PROC_BIND/OMP_PLACES, else unbound",
      .help = "close or spread (OMP_PLACES=cores), or none" },
    { .id = GB_SET_WARMUP, .commands = RUN_AB, .flag = "warmup", .letter = 'w',
      .conf_key = "warmup", INT(0, 1000000), .value_name = "N", .initial = "5",
      .group = "timing", .help = "warm-up calls per measurement" },
    { .id = GB_SET_REPS, .commands = RUN_AB, .flag = "reps", .letter = 'r', .conf_key = "reps",
      INT(1, 1000000), .value_name = "N", .initial = "50", .group = "timing",
      .help = "timed calls per measurement" },
    { .id = GB_SET_REPS, .commands = GB_CMD_TUNE, .flag = "reps", .letter = 'r',
      INT(1, 10000), .value_name = "N", .initial = "10", .group = "timing",
      .help = "timed calls per candidate, after 2 warm-up calls" },
    { .id = GB_SET_TRIALS, .commands = GB_CMD_TUNE, .flag = "trials", INT(1, 100000),
      .value_name = "N", .initial = "40", .group = "timing",
      .help = "candidates per shape, the rule included" },
    { .id = GB_SET_BUDGET, .commands = GB_CMD_TUNE, .flag = "budget",
      SECONDS(0, 1e6, GB_OPEN_MIN), .value_name = "S", .group = "timing",
      .help = "seconds in all, shared evenly by the shapes and thread counts (instead of "
              "--trials)" },
    { .id = GB_SET_SEED, .commands = GB_CMD_TUNE, .flag = "seed", INT(0, 2147483647),
      .value_name = "N", .initial = "1", .group = "timing",
      .help = "seed of the random phase" },
    { .id = GB_SET_MIN_REPS, .commands = RUN_AB, .flag = "min-reps", .conf_key = "min_reps",
      INT(1, 1000000), .value_name = "N", .initial = "5", .group = "timing",
      .help = "timed calls kept even past --max-time" },
    { .id = GB_SET_MAX_TIME, .commands = RUN_AB, .flag = "max-time", .conf_key = "max_time",
      SECONDS(0, 86400, GB_OPEN_MIN), .value_name = "S", .initial = "2", .group = "timing",
      .help = "seconds of calls per measurement before stopping early" },
    { .id = GB_SET_MIN_TIME, .commands = RUN_AB, .flag = "min-time", .conf_key = "min_time",
      SECONDS(0, 86400, 0), .value_name = "S", .initial = "0", .group = "timing",
      .help = "seconds of calls per measurement: go on past --reps until then (--max-time "
              "still caps; at most 100000 calls)" },
    { .id = GB_SET_COOLDOWN, .commands = RUN_AB, .flag = "cooldown", .conf_key = "cooldown",
      SECONDS(0, 3600, 0), .value_name = "S", .initial = "0", .group = "timing",
      .help = "seconds to sleep between measurements" },
    { .id = GB_SET_ROUNDS, .commands = GB_CMD_RUN, .flag = "rounds", .conf_key = "rounds",
      INT(1, 1000), .value_name = "N", .group = "timing",
      .default_note = STR(GB_DEFAULT_ROUNDS) ", or --reps when that is smaller",
      .help = "split every entry's timed calls over N passes of the sweep, so each median "
              "spans the run" },
    { .id = GB_SET_QUICK, .commands = RUN_AB, .flag = "quick", .letter = 'q', SWITCH,
      .group = "timing",
      .help = "a fast smoke sweep: " GB_QUICK_FLAGS ", after bench.conf and before the "
              "other flags" },
    { .id = GB_SET_CHECK, .commands = RUN_AB, .flag = "no-check", .conf_key = "check",
      SWITCH_OFF, .initial = "yes", .group = "timing",
      .help = "skip verification against the reference (bench.conf: check = no)" },
    { .id = GB_SET_CACHE, .commands = RUN_AB, .flag = "cache", .conf_key = "cache",
      CHOICE(cache_names), .value_name = "MODE", .initial = "warm", .group = "timing",
      .help = "warm: operands stay cached between calls; cold: each call gets a copy of A, "
              "B, C evicted since its last use (src/measure/bandwidth.md)" },

    /* ---- compare's and ab's gate ---- */
    { .id = GB_SET_THRESHOLD, .commands = GB_CMD_COMPARE, .flag = "threshold",
      NUMBER(0, 1e6, 0), .value_name = "PCT", .initial = STR(GB_COMPARE_THRESHOLD_PCT),
      .help = "an entry fails the gate when it is more than PCT percent slower (new/old "
              "median > 1 + PCT/100) ..." },
    { .id = GB_SET_THRESHOLD, .commands = GB_CMD_AB, .flag = "threshold", NUMBER(0, 1e6, 0),
      .value_name = "PCT", .initial = STR(GB_AB_THRESHOLD_PCT),
      .help = "an entry fails when NEW is more than PCT percent slower (estimate above 1 + "
              "PCT/100) ..." },
    { .id = GB_SET_THRESHOLD, .commands = GB_CMD_HISTORY, .flag = "threshold",
      NUMBER(0, 1e6, 0), .value_name = "PCT", .initial = STR(GB_HISTORY_THRESHOLD_PCT),
      .help = "changes: exit 1 when a change point not annotated as known is more than PCT "
              "percent slower (after/before > 1 + PCT/100); confirm: ab's threshold" },
    { .id = GB_SET_ALPHA, .commands = GB_CMD_HISTORY, .flag = "alpha",
      NUMBER(0, 1, GB_OPEN_MIN | GB_OPEN_MAX), .value_name = "A", .initial = STR(GB_CP_ALPHA),
      .help = "a change point is kept when its p, adjusted over the series "
              "(Benjamini-Hochberg), is below A (src/analysis/history.md)" },
    { .id = GB_SET_VALUE, .commands = GB_CMD_HISTORY, .flag = "value", CHOICE(history_value_names),
      .value_name = "V", .initial = "median",
      .help = "changes, html, confirm, bisect: a point's value: median, the median of its "
              "calls; best, the median of its fastest round (steadier on a shared machine: "
              "src/analysis/history.md)" },
    { .id = GB_SET_STORE, .commands = GB_CMD_HISTORY, .flag = "store", TEXT,
      .value_name = "DIR", .help = "the history store (made by the first add)" },
    { .id = GB_SET_COMMIT, .commands = GB_CMD_HISTORY, .flag = "commit", TEXT,
      .value_name = "REV", .default_note = "the file's tool.git_commit (else tool.git)",
      .help = "add: the commit (any label) the files measured" },
    { .id = GB_SET_DATE, .commands = GB_CMD_HISTORY, .flag = "date", TEXT,
      .value_name = "ISO8601", .default_note = "the commit's date (tool.git_date), else run.started",
      .help = "add: the date that orders the files' points in their series" },
    { .id = GB_SET_MACHINE, .commands = GB_CMD_HISTORY, .flag = "machine", TEXT,
      .value_name = "NAME", .default_note = "machine.hostname and its CPU kind (vm-f26m2)",
      .help = "add: the machine the files are kept under; changes, html: only its series" },
    { .id = GB_SET_ANCHOR, .commands = GB_CMD_HISTORY, .flag = "anchor", TEXT,
      .value_name = "FILE",
      .help = "add: a paired point: FILE is PREFIX-old.json of `gemmbench ab ANCHOR_BUILD "
              "NEW_BUILD -o PREFIX`, the one FILE after the options its PREFIX-new.json; the "
              "point's value per entry is NEW/ANCHOR (src/analysis/history.md)" },
    { .id = GB_SET_ANCHOR_COMMIT, .commands = GB_CMD_HISTORY, .flag = "anchor-commit", TEXT,
      .value_name = "REV", .default_note = "the anchor file's tool.git_commit",
      .help = "add --anchor: the anchor build's commit (its epoch)" },
    { .id = GB_SET_ALPHA, .commands = GB_CMD_COMPARE, .flag = "alpha",
      NUMBER(0, 1, GB_OPEN_MIN | GB_OPEN_MAX), .value_name = "A",
      .initial = STR(GB_COMPARE_ALPHA), .help = "... and the U test gives p < A" },
    { .id = GB_SET_ALPHA, .commands = GB_CMD_AB, .flag = "alpha",
      NUMBER(0, 1, GB_OPEN_MIN | GB_OPEN_MAX), .value_name = "A",
      .initial = STR(GB_COMPARE_ALPHA),
      .help = "... and the signed-rank test gives p < A, adjusted over the entries "
              "(Benjamini-Hochberg)" },
    { .id = GB_SET_MIN_SAMPLES, .commands = GB_CMD_COMPARE, .flag = "min-samples",
      INT(2, 1000000), .value_name = "N", .initial = STR(GB_COMPARE_MIN_SAMPLES),
      .help = "fewer samples on either side: no verdict" },
    { .id = GB_SET_PAIRED, .commands = GB_CMD_COMPARE, .flag = "paired", SWITCH,
      .help = "the files are OLD and NEW of one gemmbench ab run: judge the per-round "
              "ratios as ab does (src/analysis/compare.md)" },
    { .id = GB_SET_ROUNDS, .commands = GB_CMD_AB, .flag = "rounds", INT(GB_AB_MIN_ROUNDS, 1000),
      .value_name = "N", .initial = "20",
      .help = "rounds, each a fresh process of each build (at least 8: the fewest whose "
              "signed-rank p can fall below 0.01)" },
    { .id = GB_SET_INTERLEAVE, .commands = GB_CMD_AB, .flag = "interleave",
      CHOICE(interleave_names), .value_name = "HOW", .initial = "entry",
      .help = "entry: in a round both builds' processes run and take turns entry by entry, "
              "OLD and NEW in a fresh random order for each entry, the one waiting stopped; "
              "round: one build's process after the other's (how a build older than this "
              "option is run)" },
    { .id = GB_SET_SEED, .commands = GB_CMD_AB, .flag = "seed", INT(0, 2147483647),
      .value_name = "N", .default_note = "the clock", .help = "seed of the turn order" },

    /* ---- output ---- */
    { .id = GB_SET_OUTPUT, .commands = GB_CMD_RUN, .flag = "output", .letter = 'o', TEXT,
      .value_name = "FILE", .default_note = "results/<host>-<UTC time>.json",
      .group = "output", .help = "the JSON result file" },
    { .id = GB_SET_OUTPUT, .commands = GB_CMD_AB, .flag = "output", .letter = 'o', TEXT,
      .value_name = "PREFIX", .default_note = "results/ab-<UTC time>",
      .help = "result files PREFIX-old.json and PREFIX-new.json" },
    { .id = GB_SET_FORCE, .commands = GB_CMD_RUN, .flag = "force", .letter = 'f', SWITCH,
      .group = "output", .help = "overwrite an existing --output file" },
    { .id = GB_SET_FORCE, .commands = GB_CMD_AB, .flag = "force", .letter = 'f', SWITCH,
      .help = "overwrite them" },
    { .id = GB_SET_FORMAT, .commands = GB_CMD_RUN, .flag = "format", .conf_key = "format",
      FORMAT(run_formats), .value_name = "F", .initial = "table", .group = "output",
      .help = "stdout as table, json, csv or md" },
    { .id = GB_SET_FORMAT, .commands = GB_CMD_COMPARE | GB_CMD_AB, .flag = "format",
      FORMAT(compare_formats), .value_name = "F", .initial = "table",
      .help = "the output: table, md or json" },
    { .id = GB_SET_FORMAT, .commands = GB_CMD_HISTORY, .flag = "format",
      FORMAT(history_formats), .value_name = "F", .initial = "table",
      .help = "changes: the output, table or json" },
    { .id = GB_SET_OUTPUT, .commands = GB_CMD_HISTORY, .flag = "output", .letter = 'o', TEXT,
      .value_name = "FILE", .help = "html: the page to write (never over a file without --force)" },
    { .id = GB_SET_FORCE, .commands = GB_CMD_HISTORY, .flag = "force", .letter = 'f', SWITCH,
      .help = "html: replace --output" },
    { .id = GB_SET_FORMAT, .commands = GB_CMD_REPORT, .flag = "format", FORMAT(report_formats),
      .value_name = "F", .initial = "table",
      .help = "the output: table, md or csv (CSV: '#' lines are comments)" },
    { .id = GB_SET_METRIC, .commands = GB_CMD_REPORT, .flag = "metric", CHOICE(metric_names),
      .value_name = "X", .initial = "median",
      .help = "the cells: median (latency), min, gflops, speedup (over baseline), peak (% of "
              "the machine's peak), roof (% of the roof that applies, "
              "src/measure/bandwidth.md) or scaling (speed-up over 1 thread and efficiency "
              "per count; the file needs 1-thread results: run with --threads 1,N)" },
    { .id = GB_SET_COMBINED, .commands = GB_CMD_REPORT, .flag = "combined", SWITCH,
      .help = "one table with every kernel's shapes as columns (kernel/M)" },
    { .id = GB_SET_RECORDS, .commands = GB_CMD_TUNE, .flag = "records", TEXT,
      .value_name = "FILE", .default_note = "$GEMMBENCH_RECORDS or results/tuned.json",
      .group = "output", .help = "the record file" },
    { .id = GB_SET_QUIET, .commands = GB_CMD_RUN, .flag = "quiet", SWITCH, .group = "output",
      .help = "no progress line" },
    { .id = GB_SET_QUIET, .commands = GB_CMD_TUNE | GB_CMD_AB, .flag = "quiet", SWITCH,
      .group = "output", .help = "no progress line" },

    /* ---- other ---- */
    { .id = GB_SET_CONFIG, .commands = RUN_AB, .flag = "config", .letter = 'c', TEXT,
      .value_name = "FILE", .default_note = "./bench.conf when there is one",
      .group = "other", .help = "read FILE instead of ./bench.conf" },
    { .id = GB_SET_LIST, .commands = GB_CMD_RUN, .flag = "list", .letter = 'l', SWITCH,
      .group = "other", .help = "list the variants and their parameters" },
    { .id = GB_SET_EXPLAIN, .commands = GB_CMD_RUN, .flag = "explain", SWITCH, .group = "other",
      .help = "print how each variant derives its schedule per shape" },
    { .id = GB_SET_EMIT_C, .commands = GB_CMD_RUN, .flag = "emit-c", SWITCH, .group = "other",
      .help = "print the C of each --schedule for each shape, and exit" },
    { .id = GB_SET_HELP, .commands = GB_CMD_RUN, .flag = "help", .letter = 'h', SWITCH,
      .group = "other", .help = "this text" },
    { .id = GB_SET_HELP, .commands = SUBCOMMANDS, .flag = "help", .letter = 'h', SWITCH,
      .group = "other", .help = "this text" },
    { .id = GB_SET_VERSION, .commands = GB_CMD_RUN, .flag = "version", .letter = 'V', SWITCH,
      .group = "other", .help = "the version" },
    /* gemmbench ab runs every round of a build as a fresh process: only round
     * I of --rounds, with the peak its first round measured, taking turns
     * with the other build (src/measure/lockstep.c). */
    { .id = GB_SET_ROUND, .commands = GB_CMD_RUN, .flag = "round", INT(1, 1000),
      .value_name = "I", .hidden = 1, .group = "other",
      .help = "measure only round I of --rounds" },
    { .id = GB_SET_PEAK, .commands = GB_CMD_RUN, .flag = "peak", TEXT,
      .value_name = "ALL,ONE,ISA", .hidden = 1, .group = "other",
      .help = "the peak (GFLOP/s at all threads and at one, and its ISA) instead of "
              "measuring it" },
    { .id = GB_SET_LOCKSTEP, .commands = GB_CMD_RUN, .flag = "lockstep", SWITCH, .hidden = 1,
      .group = "other", .help = "measure only when gemmbench ab gives the turn" },
};
const size_t gb_setting_count = sizeof gb_settings / sizeof gb_settings[0];
_Static_assert(sizeof gb_settings / sizeof gb_settings[0] <= GB_MAX_SETTINGS,
               "GB_MAX_SETTINGS (settings.h) is too small for the table");
_Static_assert(GB_SETTING_LIST_MAX >= GB_MAX_M && GB_SETTING_LIST_MAX >= GB_MAX_THREAD_COUNTS,
               "gb_setting_value.list cannot hold an M or thread list");

/* ---- finding an entry ------------------------------------------------------- */

const gb_setting *gb_setting_by_flag(unsigned cmd, const char *flag, size_t len)
{
    for (size_t i = 0; i < gb_setting_count; i++)
        if ((gb_settings[i].commands & cmd) && strlen(gb_settings[i].flag) == len &&
            strncmp(gb_settings[i].flag, flag, len) == 0)
            return &gb_settings[i];
    return NULL;
}

const gb_setting *gb_setting_by_letter(unsigned cmd, int letter)
{
    for (size_t i = 0; i < gb_setting_count; i++)
        if ((gb_settings[i].commands & cmd) && letter != 0 && gb_settings[i].letter == letter)
            return &gb_settings[i];
    return NULL;
}

const gb_setting *gb_setting_by_key(unsigned cmd, const char *key)
{
    for (size_t i = 0; i < gb_setting_count; i++)
        if ((gb_settings[i].commands & cmd) && gb_settings[i].conf_key &&
            strcmp(gb_settings[i].conf_key, key) == 0)
            return &gb_settings[i];
    return NULL;
}

const gb_setting *gb_setting_by_id(unsigned cmd, gb_setting_id id)
{
    for (size_t i = 0; i < gb_setting_count; i++)
        if ((gb_settings[i].commands & cmd) && gb_settings[i].id == id)
            return &gb_settings[i];
    return NULL;
}

int gb_setting_takes_value(const gb_setting *s)
{
    return s->kind != GB_KIND_SWITCH && s->kind != GB_KIND_SWITCH_OFF;
}

/* ---- reading a value ---------------------------------------------------------- */

/* "[0, 86400]", "(0, 1)": the limits as the user may write them. */
static void describe_limits(const gb_setting *s, char *buf, size_t len)
{
    snprintf(buf, len, "%c%.15g, %.15g%c", (s->open & GB_OPEN_MIN) ? '(' : '[', s->min, s->max,
             (s->open & GB_OPEN_MAX) ? ')' : ']');
}

/* "a, b or c" */
static void describe_choices(const char *const *names, char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (int i = 0; names[i] && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                 i == 0 ? "" : names[i + 1] ? ", " : " or ", names[i]);
}

void gb_setting_describe(const gb_setting *s, char *buf, size_t len)
{
    char limits[96];

    describe_limits(s, limits, sizeof limits);
    switch (s->kind) {
    case GB_KIND_SWITCH:
    case GB_KIND_SWITCH_OFF:
        snprintf(buf, len, "yes or no");
        break;
    case GB_KIND_INT:
        snprintf(buf, len, "an integer in %s", limits);
        break;
    case GB_KIND_NUMBER:
        snprintf(buf, len, "a number in %s", limits);
        break;
    case GB_KIND_SECONDS:
        snprintf(buf, len, "a number of seconds in %s", limits);
        break;
    case GB_KIND_CHOICE:
    case GB_KIND_FORMAT:
        describe_choices(s->choices, buf, len);
        break;
    case GB_KIND_THREADS:
        snprintf(buf, len, "a thread count or list");
        break;
    case GB_KIND_M_LIST:
        snprintf(buf, len, "a list of integers in [1, %d]", GB_MAX_DIM);
        break;
    case GB_KIND_SHAPE:
        snprintf(buf, len, "MxKxN with each in [1, %d]", GB_MAX_DIM);
        break;
    case GB_KIND_TEXT:
        snprintf(buf, len, "text");
        break;
    }
}

static int choice_index(const char *const *names, const char *text)
{
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], text) == 0)
            return i;
    return -1;
}

static int read_thread_list(gb_setting_value *v, const char *text, char *err, size_t errlen)
{
    int rc = gb_parse_thread_list(text, v->list, &v->count, GB_MAX_THREAD_COUNTS, &v->all);
    char shown[96], why[300];

    if (rc == 0)
        return 0;
    gb_printable(text, 60, shown, sizeof shown);
    if (rc == -2) {
        snprintf(err, errlen, "%s: '%s' has more than %d thread counts", v->name, shown,
                 GB_MAX_THREAD_COUNTS);
        return -1;
    }
    gb_thread_list_why(text, why, sizeof why);
    snprintf(err, errlen, "%s: '%s' is not a thread count or list: %s (counts, ranges A-B "
             "or all, comma-separated)", v->name, shown, why);
    return -1;
}

/* Whether x lies within s's limits, open ends excluded. */
static int within(const gb_setting *s, double x)
{
    return !((s->open & GB_OPEN_MIN) && x <= s->min) && !((s->open & GB_OPEN_MAX) && x >= s->max);
}

int gb_setting_read(const gb_setting *s, const char *name, const char *text,
                    gb_setting_value *v, char *err, size_t errlen)
{
    char what[200], shown[96];
    int ok = 0;

    memset(v, 0, sizeof *v);
    snprintf(v->name, sizeof v->name, "%s", name);
    v->text = text;
    switch (s->kind) {
    case GB_KIND_SWITCH:
    case GB_KIND_SWITCH_OFF:
        /* The flag (no text) says yes, or no for SWITCH_OFF; a file says which. */
        if (text == NULL) {
            v->number = s->kind == GB_KIND_SWITCH;
            v->text = "";
            return 0;
        }
        ok = strcmp(text, "yes") == 0 || strcmp(text, "no") == 0;
        v->number = strcmp(text, "yes") == 0;
        break;
    case GB_KIND_INT:
        ok = gb_parse_long(text, (long)s->min, (long)s->max, &v->number) == 0;
        break;
    case GB_KIND_NUMBER:
    case GB_KIND_SECONDS:
        ok = gb_parse_double(text, s->min, s->max, &v->real) == 0 && within(s, v->real);
        break;
    case GB_KIND_CHOICE:
    case GB_KIND_FORMAT:
        v->number = text ? choice_index(s->choices, text) : -1;
        ok = v->number >= 0;
        if (ok && s->kind == GB_KIND_FORMAT)
            v->format = (gb_format)choice_index(run_formats, text);
        break;
    case GB_KIND_THREADS:
        return read_thread_list(v, text, err, errlen);
    case GB_KIND_M_LIST:
        return gb_parse_m_list(text, v->list, &v->count, err, errlen, name);
    case GB_KIND_SHAPE:
        ok = gb_parse_shape(text, &v->M, &v->K, &v->N) == 0;
        break;
    case GB_KIND_TEXT:
        ok = text != NULL;
        break;
    }
    if (ok)
        return 0;
    gb_setting_describe(s, what, sizeof what);
    gb_printable(text ? text : "", 60, shown, sizeof shown);
    snprintf(err, errlen, "%s: '%s' is not %s", name, shown, what);
    return -1;
}

int gb_settings_defaults(unsigned cmd, gb_setting_store store, void *target, char *err,
                         size_t errlen)
{
    gb_setting_value v;

    for (size_t i = 0; i < gb_setting_count; i++) {
        const gb_setting *s = &gb_settings[i];
        if (!(s->commands & cmd) || s->initial == NULL)
            continue;
        if (gb_setting_read(s, s->flag, s->initial, &v, err, errlen) != 0 ||
            store(target, s, &v, err, errlen) != 0)
            return -1;
    }
    return 0;
}
