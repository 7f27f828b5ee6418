/*
 * sched_features.h - what a learned cost model reads of a (shape, schedule)
 * pair (src/sched/features.c): numbers computed from the plan the compiler
 * builds for the shape (blocks, extents, per-level footprints, lanes,
 * packing, unroll, parallel extent) and from the machine (lanes, caches,
 * threads), never from the schedule's text.  The columns, their order and
 * what each means are the table in features.c and src/learn/LEARN.md; a
 * model file names them and GB_FEATURES_VERSION, and is refused when they
 * differ.
 */
#ifndef GB_SCHED_FEATURES_H
#define GB_SCHED_FEATURES_H

#include "sched_lang.h"

/* Raised whenever a column is added, removed, reordered or computed
 * differently: a model trained on other columns must not be fed these. */
#define GB_FEATURES_VERSION 3
#define GB_FEATURES_COUNT 46

/* The name of column c (0 <= c < GB_FEATURES_COUNT). */
const char *gb_features_name(int c);

/* The features of a planned nest run with threads threads on machine m,
 * in out[GB_FEATURES_COUNT]. */
void gb_features_of(const gb_sched_plan *pl, const gb_sched_machine *m, int threads,
                    float out[GB_FEATURES_COUNT]);

/* Whether the features say that some of the threads get no iteration of
 * the parallel loop, at every fork of the team: such a schedule wastes the
 * threads by its structure, whatever a model trained on few of them
 * predicts (a parallel loop of 1 iteration at 2 threads, entered 192
 * times, took 1.05 s for mlp_reduce M=256, 65x rule_based's time:
 * results/notes/ml-guided.md).  ml_guided ranks no such candidate. */
int gb_features_idle_threads(const float f[GB_FEATURES_COUNT]);

/* The shape's floating-point operations, 2 M N K, as the features give
 * them (their log2 sizes): what a model's time per operation is scaled by. */
double gb_features_flops(const float f[GB_FEATURES_COUNT]);

/* This machine as the model of model.c reads it (lanes, registers, caches). */
void gb_sched_machine_here(gb_sched_machine *out);

#endif
