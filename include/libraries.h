/*
 * libraries.h - what a result file says about its reference libraries'
 * kernels (tool.libraries): each library's kernel set, the instruction set
 * it uses, and whether that is this CPU's best path (machine.isa); when it
 * is not (BLIS's portable `generic`, an OpenBLAS core forced by the
 * environment or chosen for an older CPU), why, and what would change it.
 * The run's footnote, the story, `report` and the plots all say it from here.
 */
#ifndef GB_LIBRARIES_H
#define GB_LIBRARIES_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "resultfile.h"

#define GB_MAX_LIBRARY_NOTES 8

typedef struct gb_library_note {
    char name[32];           /* the variant: openblas, blis, onednn, libxsmm */
    char version[64];
    char kernels[64];        /* "Haswell", "generic", "avx512_core_bf16" */
    const char *isa;         /* the kernels' instruction set: "AVX-512", ..., "portable C";
                                "" when not known */
    int flagged;             /* not this CPU's best path */
    char why[192];           /* when flagged: "BLIS 0.9.0 has no sub-configuration ..." */
    char change[192];        /* when flagged, if known: "--blis-arch skx" */
} gb_library_note;

/* The notes of the libraries whose variant has entries in f (in tool.libraries'
 * order), at most max; the count. */
int gb_library_notes(const gb_result_file *f, gb_library_note *notes, int max);

/* Judges one library (tool.libraries.NAME) on the machine block's ISA; the
 * run block says whether --blis-arch chose BLIS's kernels. */
void gb_library_note_of(const char *name, const cJSON *lib, const cJSON *machine,
                        const cJSON *run, gb_library_note *note);

/* "openblas 0.3.21 runs Prescott kernels (SSE)", then when flagged ": NOT
 * this CPU's best path, WHY;" and CHANGE on a line of its own (prefix, then
 * indent). */
void gb_library_note_print(FILE *out, const gb_library_note *note, const char *prefix,
                           const char *indent);

/* One line's worth: "openblas Prescott (SSE, NOT this CPU's best path), blis
 * haswell (AVX2)", no newline (the plots' titles). */
void gb_library_notes_brief(FILE *out, const gb_library_note *notes, int n);

#endif
