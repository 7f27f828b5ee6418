/* resolve.c - a checked nest made concrete for one shape: each param's
 * value, each split's factor, each loop's extent and stride, and the limits
 * that depend on them (SCHED.md, "Lowering"). */
#include "sched_lang.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static long factor_value(const gb_sched_shape *sh, const gb_sched_factor *f)
{
    if (f->param[0] == '\0')
        return f->value;
    for (int p = 0; p < sh->s->nparams; p++)
        if (strcmp(sh->s->params[p].name, f->param) == 0)
            return sh->param[p];
    return 1; /* unreachable: check.c refused an undeclared param */
}

/* Extents and strides down a split tree: LOOP = OUTER * F + INNER. */
static void resolve_tree(gb_sched_shape *sh, int loop)
{
    const gb_sched_loop *l = &sh->s->loops[loop];
    long f, n = sh->extent[loop];

    if (l->split_outer < 0)
        return;
    f = factor_value(sh, &l->factor);
    sh->factor[loop] = f;
    sh->extent[l->split_inner] = f < n ? f : n;
    sh->stride[l->split_inner] = sh->stride[loop];
    sh->extent[l->split_outer] = (n + f - 1) / f;
    sh->stride[l->split_outer] = sh->stride[loop] * f;
    resolve_tree(sh, l->split_outer);
    resolve_tree(sh, l->split_inner);
}

long gb_sched_param_at(const gb_sched *s, int p, const gb_params *params, int M, int N, int K,
                       int nthreads)
{
    long model[GB_MODEL_COUNT];
    long v = gb_param_get(params, s->params[p].name, LONG_MIN);

    if (v != LONG_MIN)
        return v;
    if (s->params[p].model == 0)
        return s->params[p].value;
    gb_sched_model_values_typed(s, M, N, K, nthreads, model);
    return model[s->params[p].model - 1];
}

static int param_allowed(const gb_sched_param *p, long v)
{
    if (p->nchoices > 0) {
        for (int i = 0; i < p->nchoices; i++)
            if (p->choices[i] == v)
                return 1;
        return 0;
    }
    if (p->nchoices < 0)
        return v >= p->min && v <= p->max;
    return v >= 1 && v <= GB_SCHED_MAX_FACTOR;
}

int gb_sched_resolve(const gb_sched *s, const gb_params *params, int M, int N, int K,
                     int nthreads, gb_sched_shape *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->s = s;
    out->M = M, out->N = N, out->K = K;
    out->nthreads = nthreads;
    for (int p = 0; p < s->nparams; p++) {
        long v = gb_param_get(params, s->params[p].name, LONG_MIN);
        if (v != LONG_MIN && !param_allowed(&s->params[p], v)) {
            snprintf(err, errlen, "%s: --param %s=%ld is not in the param's set", s->file,
                     s->params[p].name, v);
            return -1;
        }
        out->param[p] = v != LONG_MIN ? v : gb_sched_param_at(s, p, params, M, N, K, nthreads);
    }
    for (int a = 0; a < 3; a++) {
        out->extent[a] = a == GB_AXIS_I ? M : a == GB_AXIS_J ? N : K;
        out->stride[a] = 1;
        resolve_tree(out, a);
    }
    for (int l = 0; l < s->nloops; l++)
        if (s->loops[l].axis == GB_AXIS_FUSED) /* made after its parts: ids ascend */
            out->extent[l] = out->extent[s->loops[l].fused_outer] *
                             out->extent[s->loops[l].fused_inner];
    for (int slot = 0; slot < GB_SCHED_PF_SLOTS; slot++)
        out->distance[slot] =
            s->prefetch[slot] >= 0 ? factor_value(out, &s->distance[slot]) : 0;
    for (int l = 0; l < s->nloops; l++)
        if (s->unroll[l] == -1 && out->extent[l] > GB_SCHED_MAX_UNROLL) {
            snprintf(err, errlen, "%s: unroll %s: %ld iterations, over %d", s->file,
                     s->loops[l].name, out->extent[l], GB_SCHED_MAX_UNROLL);
            return -1;
        }
    return 0;
}
