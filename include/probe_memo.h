/*
 * probe_memo.h - the quick probes' figures kept for later runs
 * (src/measure/probe_memo.c).  Under GEMMBENCH_PEAK=quick and
 * GEMMBENCH_BANDWIDTH=quick (the tests' probes) every run still measured
 * its peaks and roofs: 45 to 65 ms of a tiny run's 65 to 85 ms of CPU, a
 * sixth of `make test`.  With GEMMBENCH_PROBE_MEMO=DIR (tests/run.sh sets
 * it to the suite's own directory) a figure is measured by the first
 * GB_PROBE_MEMO_RUNS runs that ask for it, the best of them kept in DIR,
 * and read back by every later run with the same key (the loop or working
 * sets, the thread count, the CPUs the process may use).  Never under the
 * full probes: a user's run measures its machine now.  Library code: it
 * prints nothing but the one warning of a memo it cannot write.
 */
#ifndef GB_PROBE_MEMO_H
#define GB_PROBE_MEMO_H

#include <stddef.h>

/* Runs that measure a figure before the later ones read it back: one busy
 * moment then does not set every later run's roofs. */
#define GB_PROBE_MEMO_RUNS 3
/* Figures one key holds at most. */
#define GB_PROBE_MEMO_MAX 32

/* The memo's key for what (letters, digits, '.', '-', '_'), with the
 * thread count and this process's CPU set appended, into key: 1, or 0 when
 * there is no memo (GEMMBENCH_PROBE_MEMO unset or empty) or what does not
 * fit. */
int gb_probe_memo_key(const char *what, int threads, char *key, size_t keylen);

/* The n figures kept under key once GB_PROBE_MEMO_RUNS runs measured them:
 * 1 with v filled, or 0 (not yet, no such key, a file that does not parse). */
int gb_probe_memo_get(const char *key, double *v, int n);

/* Keeps n figures just measured under key: each the larger of v's and the
 * memo's, one more run counted.  A memo that cannot be written is warned
 * about once per process, and the run goes on with its own figures. */
void gb_probe_memo_put(const char *key, const double *v, int n);

#endif
