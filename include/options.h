/*
 * options.h - what a run is asked to do: built-in defaults < bench.conf <
 * command line.  Library code: fills an error message, never
 * prints or exits.
 */
#ifndef GB_OPTIONS_H
#define GB_OPTIONS_H

#include "sweep.h"

/* Parses a --threads / bench.conf threads list into o (as the settings
 * table's threads reads it).  0, or -1 with err. */
int gb_options_set_threads(gb_options *o, const char *text, char *err, size_t errlen);
/* The counts a run measures: o's list with `all` (or no list) resolved to
 * cpus, ascending and distinct.  Returns how many (at least 1). */
int gb_options_thread_counts(const gb_options *o, int cpus, int *out, int max);

/* Built-in defaults, the settings table's (settings.h): the study's sweep
 * (the three BERT kernels, eight M, 5 warm-ups, 50 reps). */
void gb_options_defaults(gb_options *o);

/* Parses a bench.conf into o.  Returns 0, or -1 with err naming file and line. */
int gb_config_load(gb_options *o, const char *path, char *err, size_t errlen);

/* Parses the command line into o: finds --config and loads it (or ./bench.conf
 * when present), applies --quick, then every other flag.  argv[0] is skipped.
 * Returns 0, or -1 with err. */
int gb_cli_parse(gb_options *o, int argc, char **argv, char *err, size_t errlen);

/* Parses an M list ("16, 32 64") for --m and bench.conf's m; where names the
 * source in err. */
int gb_parse_m_list(const char *text, int *m, int *nm, char *err, size_t errlen,
                    const char *where);

#endif
