/*
 * report_multi.h - `gemmbench report A.json B.json ...`: several result
 * files (machines or builds) side by side per (variant, kernel, M, threads)
 * (src/analysis/report_multi.c, method in src/analysis/report_multi.md).
 * One file's reports, the scaling report among them, are report.h's.
 *
 * Library code: writes the report to out, never prints errors or exits.
 */
#ifndef GB_REPORT_MULTI_H
#define GB_REPORT_MULTI_H

#include <stddef.h>
#include <stdio.h>

#include "report.h"
#include "resultfile.h"

/* n files side by side, columns named names[i] (a machine label when NULL
 * or empty).  o's selection and format apply; an entry missing from a file
 * is a blank.  0; -1 with err when a --kernel or --variant item matches no
 * entry of any file; -2 when memory runs out. */
int gb_report_multi(FILE *out, const gb_result_file *files, const char *const *names, int n,
                    const gb_report_opts *o, char *err, size_t errlen);

/* A short label for the machine of f: its CPU model without vendor words,
 * then @host (first component).  "unknown" parts when absent. */
void gb_report_machine_label(const gb_result_file *f, char *buf, size_t len);

#endif
