/*
 * ml_guided.h - the ml_guided variant (schedules/ml_guided.c): for each
 * shape, candidates drawn from the space a learned model carries (all
 * checked, none compiled), ranked by the model (learn.h), the best
 * predicted compiled and run; rule_based's schedule, with the reason, when
 * it cannot (src/learn/LEARN.md).
 */
#ifndef GB_ML_GUIDED_H
#define GB_ML_GUIDED_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "gemmbench.h"

/* The model ml_guided ranks with, from --model or bench.conf's `model`:
 * a model file, "none" (rule_based, said so), or NULL / "" when none was
 * given (the same, for that reason).  A file that cannot be read or is
 * refused is an input error: -1 with err.  Built without XGBoost, a file is
 * not read and ml_guided reports that reason.  0 otherwise. */
int gb_ml_guided_use(const char *path, char *err, size_t errlen);
/* Why ml_guided will run rule_based whatever the shape (no model, none,
 * no XGBoost), as a sentence, or NULL when it has a model to rank with. */
const char *gb_ml_guided_no_model(void);
/* Whether ml_guided has a model (so a sweep of it compiles). */
int gb_ml_guided_compiles(void);
/* The "schedule" object of an ml_guided result of type dtype
 * (results/FORMAT.md): the chosen schedule's text, sha256 and build, its
 * predicted time, the model file, the guard; NULL when that shape ran
 * rule_based (f32) or packed's kernel (bf16, u8s8). */
cJSON *gb_ml_guided_json(gb_dtype dtype, int M, int N, int K, int threads);

#endif
