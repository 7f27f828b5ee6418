/* explain.c - a planned nest as --explain prints it, in the style of TVM's
 * `lower`: the loops of the final order with extents, annotations and the
 * tails each carries, the init, the tile and the packs. */
#include "plan.h"

#include <stdio.h>

/* Each choose block's answer at this shape and why: the model's reason,
 * or --param's over it. */
static void explain_choices(FILE *out, const plan *pl)
{
    const gb_sched *s = pl->s;
    const gb_sched_shape *sh = pl->sh;
    int model[GB_CHOICE_COUNT] = { -1, -1, -1, -1, -1 };
    char why[GB_CHOICE_COUNT][320];

    if (s->nblocks == 0)
        return;
    gb_sched_model_choose_typed(s, sh->M, sh->N, sh->K, pl->nthreads, model, why);
    for (int b = 0; b < s->nblocks; b++) {
        const int choice = s->blocks[b].choice, answer = s->combo_answer[pl->combo][b];
        fprintf(out, "  choose %s %s (line %d): ", gb_sched_choice_name(choice),
                gb_sched_choice_answer_name(choice, answer), s->blocks[b].line);
        if (answer != model[choice])
            fprintf(out, "--param; the model's: %s, %s\n",
                    gb_sched_choice_answer_name(choice, model[choice]), why[choice]);
        else
            fprintf(out, "the model's: %s\n", why[choice]);
    }
}

void gb_sched_explain(FILE *out, const char *name, const gb_sched_plan *pl)
{
    const gb_sched_shape *sh = pl->sh;
    const gb_sched *s = sh->s;

    long model[GB_MODEL_COUNT];
    int from_model = 0;

    gb_sched_model_values_typed(s, sh->M, sh->N, sh->K, sh->nthreads, model);
    fprintf(out, "%s  M=%d K=%d N=%d", name, sh->M, sh->K, sh->N);
    for (int p = 0; p < s->nparams; p++) {
        const int m = s->params[p].model && sh->param[p] == model[s->params[p].model - 1];
        fprintf(out, "%s%s=%ld%s", p ? " " : "  ", s->params[p].name, sh->param[p],
                m ? "*" : "");
        from_model |= m;
    }
    fprintf(out, "  (%s)\n", s->file);
    if (from_model) {
        fprintf(out, "  *: the model's (BLIS's): mr x nr from the vector registers and two FMA "
                     "units' latency, kc from L1d (its ways, or half of it as calibrated), mc from L2's ways, nc from L3's and the threads\n");
        const int g = gb_sched_model_group(s);
        if (g > 1)
            fprintf(out, "    in words of %d k (the dot form's groups): the model's blocks for K "
                         "= %d words, kc times %d\n", g, (sh->K + g - 1) / g, g);
        gb_sched_model_explain_rows(out, NULL, sh->M, sh->N, (sh->K + g - 1) / g, sh->nthreads,
                                    (long)sh->N * (long)gb_dtype_size_b(s->dtype),
                                    gb_sched_spreads_b(s));
    }
    explain_choices(out, pl);
    if (pl->dtype != GB_DTYPE_F32)
        fprintf(out, "  type %s\n", pl->form_why);
    for (int op = 0; op < 2; op++)
        if (s->pack[op] == GB_SCHED_ROOT) {
            fprintf(out, "  pack %c at root: %s[", op ? 'B' : 'A', op ? "pb" : "pa");
            for (int d = 0; d < pl->npack[op]; d++)
                fprintf(out, "%s%s %ld", d ? "][" : "", s->loops[pl->pack_dim[op][d]].name,
                        sh->extent[pl->pack_dim[op][d]]);
            fprintf(out, "]\n");
        }
    for (int p = 0; p < pl->n; p++) {
        const int l = pl->order[p];
        const char *kind = s->parallel == l ? (s->parallel_pool ? "parallel (pool's threads) "
                                                                : "parallel ")
                         : s->vectorize == l ? "vectorized "
                         : s->unroll[l] ? "unrolled " : "";
        if (p == pl->init_at && s->cache_write < 0 && pl->fold_init)
            fprintf(out, "%*sC = 0 folded into the run below: its sums start from 0 in the "
                         "first iteration of the k loops outside it, else from C\n", 2 * p + 2, "");
        else if (p == pl->init_at && s->cache_write < 0)
            fprintf(out, "%*sC = 0 over the spatial loops inside%s\n", 2 * p + 2, "",
                     p != pl->run_at ? "" : pl->tiles ? " (in AMX's tiles)" : " (in a register)");
        fprintf(out, "%*s%sfor %s in 0..%ld", 2 * p + 2, "", kind, s->loops[l].name,
                sh->extent[l]);
        if (s->loops[l].axis == GB_AXIS_FUSED)
            fprintf(out, "  (%s x %s)", s->loops[s->loops[l].fused_outer].name,
                    s->loops[s->loops[l].fused_inner].name);
        for (int t = 0; t < pl->ntails; t++)
            if (pl->tails[t].carrier == l || (s->loops[l].axis == GB_AXIS_FUSED &&
                                              gb_sched_plan_carrier(s, pl->tails[t].carrier) == l)) {
                fprintf(out, "  while ");
                for (int i = 0; i < pl->tails[t].n; i++)
                    fprintf(out, "%s%s*%ld", i ? " + " : "", s->loops[pl->tails[t].loop[i]].name,
                            pl->tails[t].coef[i]);
                fprintf(out, " < %ld", pl->tails[t].limit);
            }
        if (p == pl->run_at && pl->tiles)
            fprintf(out, "  (sums of %d rows x %d lanes kept in %d x %d tiles, k %d a step)",
                     pl->rows, pl->vec_width, pl->tile_mt, pl->tile_nt, 16 * pl->group);
        else if (p == pl->run_at && pl->rows_loop >= 0)
            fprintf(out, "  (sums of %d rows x %d lanes kept in vector registers)", pl->rows,
                    pl->vec_width);
        else if (p == pl->run_at)
            fprintf(out, "  (sum kept in a %s)", pl->vec_width ? "vector register" : "register");
        fprintf(out, "\n");
        if (s->cache_write == l)
            fprintf(out, "%*sC.local[%ld x %ld] = 0; written to C after the loops inside\n",
                    2 * p + 4, "", pl->tile_h, pl->tile_w);
        for (int op = 0; op < 2; op++)
            if (s->pack[op] == l) {
                fprintf(out, "%*spack %c: %s[", 2 * p + 4, "", op ? 'B' : 'A', op ? "pb" : "pa");
                for (int d = 0; d < pl->npack[op]; d++)
                    fprintf(out, "%s%s %ld", d ? "][" : "", s->loops[pl->pack_dim[op][d]].name,
                            sh->extent[pl->pack_dim[op][d]]);
                fprintf(out, "]%s%s\n", pl->pack_per_thread[op] ? " per thread"
                                         : pl->pack_team[op] ? ", filled by all the threads"
                                                             : "",
                        pl->pass[op] >= 0 ? ", copied by the first iteration of the pass loop"
                                            " that reads it (fused)" : "");
            }
        for (int slot = 0; slot < GB_SCHED_PF_SLOTS; slot++) {
            const int op = slot % GB_SCHED_PF_SPREAD, over = s->prefetch_over[slot];
            long share, per_iter;
            if (s->prefetch[slot] != l)
                continue;
            fprintf(out, "%*sprefetch %c, %ld iteration%s ahead: %ld row%s x %ld floats%s, ",
                    2 * p + 4, "", 'A' + op, sh->distance[slot],
                    sh->distance[slot] == 1 ? "" : "s", pl->pf_rows[slot],
                    pl->pf_rows[slot] == 1 ? "" : "s", pl->pf_span[slot],
                    pl->pf_packed[slot] ? op ? " of pb" : " of pa" : "");
            if (over < 0) {
                fprintf(out, "%ld lines\n", pl->pf_lines[slot]);
                continue;
            }
            gb_sched_plan_spread(pl, slot, pl->pf_rows[slot], &share, &per_iter);
            fprintf(out, "spread over %s into L2: %ld pass%s of %ld row%s, %ld row%s (%ld "
                         "lines) an iteration of %s\n", s->loops[over].name,
                    pl->pf_passes[slot], pl->pf_passes[slot] == 1 ? "" : "es", share,
                    share == 1 ? "" : "s", per_iter, per_iter == 1 ? "" : "s",
                    pl->pf_lines[slot], s->loops[over].name);
        }
    }
    fprintf(out, "%*s%s[i, j] += %s[i, k] * %s[k, j]\n", 2 * pl->n + 2, "",
            s->cache_write >= 0 ? "C.local" : "C", s->pack[0] != -1 ? "pa" : "A",
            s->pack[1] != -1 ? "pb" : "B");
}
