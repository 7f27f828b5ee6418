/*
 * run_story.h - the few lines a run ends with, after its table: per kernel,
 * how far the study's steps go (baseline -> rule_based: speed-up and %peak),
 * where packed and the fastest reference library stand, what was skipped or
 * flagged, and the commands to run next.  Read from the result file, as
 * report and compare read it, so that it says what the file holds.
 */
#ifndef GB_RUN_STORY_H
#define GB_RUN_STORY_H

#include <stdio.h>

#include "resultfile.h"

/* Prints f's story to out; path is the file's name as the user gave it
 * (the next commands name it). */
void gb_run_story(FILE *out, const gb_result_file *f, const char *path);

#endif
