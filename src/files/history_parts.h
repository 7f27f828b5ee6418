/* history_parts.h - what the three files of the history store share, and
 * nothing else includes (history_store.h is the store's interface):
 * history_layout.c the folders, links, marker and lock; history_index.c
 * the index line, written and read by one owner so that the two never
 * drift apart; history_store.c adding files. */
#ifndef GB_HISTORY_PARTS_H
#define GB_HISTORY_PARTS_H

#include "history_store.h"
#include "resultfile.h"

#include <stddef.h>

#define INDEX_NAME "index.jsonl"
#define MARKER_NAME "store.json"
#define LOCK_NAME ".lock"
#define NO_LOCK (-2)     /* hs_open_store for a reader: no lock to take, read anyway */
/* The index of 10,000 full sweeps is some 100 MB; refuse what no store holds. */
#define INDEX_MAX (4L * 1024 * 1024 * 1024)
/* Every index line begins so, its hash at a fixed place: adding a file
 * finds duplicates without parsing the index. */
#define LINE_HEAD "{\"sha256\":\""
/* An entry's variant label and kernel: the series key holds both. */
#define GB_HISTORY_NAME_MAX 256

/* ---- history_layout.c ---- */
/* mkdir -p of rel inside the store dir, each folder a real one (no link
 * followed).  0, or -1 with err. */
int hs_make_dirs_inside(const char *dir, const char *rel, char *err, size_t errlen);
/* A label as a path component: letters, digits, '.', '-', '_' kept, the
 * rest '_'; never empty, never "." or "..". */
void hs_path_safe(const char *label, char *out, size_t len);
/* A label the store keys files by (a machine, a commit). */
int hs_label_ok(const char *label);
/* The store's marker and lock: created in a new store (create), checked in
 * an old one.  The lock's descriptor, NO_LOCK (a reader that may read
 * without one), or -1 with err. */
int hs_open_store(const char *dir, int create, char *err, size_t errlen);
/* The index's text ("" in a new store) and its length; NULL with err. */
char *hs_read_index(const char *dir, size_t *len, char *err, size_t errlen);

/* ---- history_index.c ---- */
/* The index line of a loaded file (no newline); NULL when out of memory.
 * A pair's line (rows != NULL) has its anchor and the rows' ratios. */
char *hs_index_line(const gb_result_file *f, const char *sha, const char *stored,
                    const char *machine, const char *commit, const char *date, int dirty,
                    const char *anchor, const char *anchor_sha, const char *anchor_file,
                    const gb_history_pair_row *rows, int nrows);

#endif
