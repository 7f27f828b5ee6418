/*
 * compare_render.c - a comparison (compare.c) shown as a terminal table,
 * Markdown or a JSON document.
 */
#define _GNU_SOURCE
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "roof.h"
#include "table.h"

const char *gb_verdict_word(gb_verdict v)
{
    switch (v) {
    case GB_VERDICT_FASTER:
        return "faster";
    case GB_VERDICT_SLOWER:
        return "slower";
    case GB_VERDICT_TOO_FEW:
        return "too few samples";
    default:
        return "same";
    }
}


static const char *or_unknown(const char *s)
{
    return s ? s : "?";
}

/* "started 2026-..., gemmbench 0.1.0 (git abc), incomplete" */
static void describe_file(FILE *out, const gb_result_file *f)
{
    fprintf(out, "%s (started %s, gemmbench %s, git %s, %d entries%s)", f->path,
            or_unknown(f->started), or_unknown(f->version), or_unknown(f->git), f->nentries,
            f->complete ? "" : ", INCOMPLETE: interrupted run");
}

static void describe_machine(FILE *out, const gb_result_file *f)
{
    char *isa = gb_json_value_text(cJSON_GetObjectItemCaseSensitive(f->machine, "isa"));

    fprintf(out, "%s%s%s%s, %d logical CPUs, ISA %s", or_unknown(f->cpu_model),
            f->cpu_id ? " (" : "", f->cpu_id ? f->cpu_id : "", f->cpu_id ? ")" : "",
            f->logical_cpus, isa ? isa : "?");
    free(isa);
}

/* "machine.cpu_model, machine.isa differ": what made it cross-machine. */
static void identity_fields(FILE *out, const gb_compare *c)
{
    int count = 0;
    for (int i = 0; i < c->ndiffs; i++)
        if (c->diffs[i].identity)
            fprintf(out, "%s%s", count++ ? ", " : "", c->diffs[i].field);
    fprintf(out, " %s", count == 1 ? "differs" : "differ");
}

static void format_p(char *buf, size_t len, const gb_compare_row *r)
{
    if (r->verdict == GB_VERDICT_TOO_FEW)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.2g", r->p_gate);
}

static const char *const unit_names[] = { "calls", "rounds", "paired rounds" };

static void format_peak(char *buf, size_t len, const gb_compare_row *r)
{
    snprintf(buf, len, "%.1f->%.1f", r->old_peak_pct, r->new_peak_pct);
}

/* "-" on a side without a roof (a file older than the roofline). */
static void format_roof(char *buf, size_t len, const gb_compare_row *r)
{
    char a[32] = "-", b[32] = "-";

    /* a roof an entry beat was measured low: no figure (roof.h) */
    if (gb_roof_measured_low(r->old_roof_pct))
        snprintf(a, sizeof a, "!roof");
    else if (isfinite(r->old_roof_pct))
        snprintf(a, sizeof a, "%.1f", r->old_roof_pct);
    if (gb_roof_measured_low(r->new_roof_pct))
        snprintf(b, sizeof b, "!roof");
    else if (isfinite(r->new_roof_pct))
        snprintf(b, sizeof b, "%.1f", r->new_roof_pct);
    snprintf(buf, len, "%s->%s", a, b);
}

/* "parallel qkv M=64 K=768 N=768 t=2" */
static void format_entry(char *buf, size_t len, const gb_entry *e)
{
    char label[320];

    snprintf(buf, len, "%s %s M=%d K=%d N=%d threads=%d",
             gb_entry_typed_label(e, label, sizeof label), e->kernel, e->M, e->K, e->N,
             e->threads);
}

/* A group's name as printed and as its JSON key: "onednn", "onednn [bf16]". */
static const char *group_name(const gb_compare_group *g, char *buf, size_t len)
{
    if (g->dtype == GB_DTYPE_F32)
        return g->name;
    snprintf(buf, len, "%s [%s]", g->name, gb_dtype_name(g->dtype));
    return buf;
}

/* The rule, and what the verdicts rest on: the unit of each row. */
static void print_gate_rule(FILE *out, const gb_compare *c)
{
    const gb_compare_opts *o = &c->opts;

    if (o->paired) {
        fprintf(out,
                "an entry fails when NEW/OLD is above %.4g (more than %.4g%% slower) with "
                "p < %.4g adjusted over the entries (Benjamini-Hochberg); the unit is the round: "
                "per round, NEW's median over OLD's, the two measured in the same round in "
                "random order, each round a fresh process; Wilcoxon signed-rank test on the "
                "log-ratios, Hodges-Lehmann estimate with its %.4g%% interval; fewer than "
                "%d rounds: no verdict",
                1.0 + o->threshold_pct / 100.0, o->threshold_pct, o->alpha,
                100.0 * (1.0 - o->alpha), GB_AB_MIN_ROUNDS);
        return;
    }
    fprintf(out,
            "an entry fails when its new/old median is above %.4g (more than %.4g%% slower) "
            "with p < %.4g, and beyond the spread of its round medians when it has rounds; ", 1.0 + o->threshold_pct / 100.0, o->threshold_pct, o->alpha);
    if (c->nunit[GB_UNIT_ROUNDS])
        fprintf(out, "%d entr%s tested on per-round medians (two-sided Mann-Whitney U)%s",
                c->nunit[GB_UNIT_ROUNDS], c->nunit[GB_UNIT_ROUNDS] == 1 ? "y" : "ies",
                c->nunit[GB_UNIT_CALLS] ? "; " : "");
    if (c->nunit[GB_UNIT_CALLS] || !c->nunit[GB_UNIT_ROUNDS])
        fprintf(out, "%d tested on the raw samples (two-sided Mann-Whitney U) because a file "
                     "has fewer than %d rounds: calls from one moment of each run, which "
                     "cannot show drift between runs",
                c->nunit[GB_UNIT_CALLS], GB_COMPARE_MIN_ROUNDS);
    fprintf(out, "; fewer than %d samples on a side: no verdict", o->min_samples);
}

/* The rule on the terminal: a line a clause (at "; "), so that no line runs
 * past a screen's width; Markdown keeps it one paragraph. */
static void print_gate_rule_lines(FILE *out, const gb_compare *c)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);

    if (mem == NULL) {
        print_gate_rule(out, c);
        return;
    }
    print_gate_rule(mem, c);
    if (fclose(mem) != 0 || text == NULL) {
        free(text);
        print_gate_rule(out, c);
        return;
    }
    for (const char *p = text; *p; p++) {
        if (p[0] == ';' && p[1] == ' ') {
            fputs(";\n     ", out);
            continue;
        }
        fputc(*p, out);
    }
    free(text);
}

static void print_gate_result(FILE *out, gb_format fmt, const gb_compare *c)
{
    const char *bold = fmt == GB_FMT_MD ? "**" : "";

    if (c->nfailed == 0)
        fprintf(out, "%sgate: pass%s: no entry is more than %.4g%% slower with p < %.4g",
                bold, bold, c->opts.threshold_pct, c->opts.alpha);
    else
        fprintf(out, "%sgate: FAIL%s: %d of %d entries are more than %.4g%% slower with "
                     "p < %.4g",
                bold, bold, c->nfailed, c->nrows, c->opts.threshold_pct, c->opts.alpha);
    fprintf(out, " (%d compared: %d faster, %d slower, %d same, %d too few samples)\n",
            c->nrows, c->nfaster, c->nslower, c->nsame, c->ntoo_few);
    for (int i = 0; i < c->nrows && c->nfailed; i++) {
        const gb_compare_row *r = &c->rows[i];
        char what[512];
        if (!r->gate_fail)
            continue;
        format_entry(what, sizeof what, r->old_e);
        fprintf(out, "%s%s: %+.1f%% (%.1f -> %.1f us), p = %.2g\n",
                fmt == GB_FMT_MD ? "- " : "  FAIL ", what, 100.0 * (r->ratio - 1.0),
                r->old_e->median_us, r->new_e->median_us, r->p_gate);
    }
}

/* A differences line is at most DIFF_LINE characters: two values and a
 * field name, each cut to fit (a list to its first items and its length),
 * the whole of every value staying in --format json. */
enum { DIFF_LINE = 200, DIFF_FIELD_WIDTH = 48 };

/* The characters each value of d's line may take, its field padded to width. */
static size_t diff_side_width(const gb_header_diff *d, int width)
{
    size_t field = strlen(d->field) > (size_t)width ? strlen(d->field) : (size_t)width;
    size_t fixed = 2 + field + 2 + 3;   /* "  FIELD  OLD | NEW" */

    return fixed + 2 * 16 >= DIFF_LINE ? 16 : (DIFF_LINE - fixed) / 2;
}

/* value as at most max characters: "(empty)" for an empty text; a list
 * longer than that as its first items and "... (N items)"; other text cut
 * with "... (N characters)". */
static void shorten_value(char *buf, size_t len, const char *value, int items, size_t max)
{
    size_t n = strlen(value), keep;
    char tail[48];

    if (max >= len)
        max = len - 1;
    if (n == 0) {
        snprintf(buf, len, "(empty)");
        return;
    }
    if (n <= max) {
        snprintf(buf, len, "%s", value);
        return;
    }
    if (items > 0)
        snprintf(tail, sizeof tail, " ... (%d items)", items);
    else
        snprintf(tail, sizeof tail, "... (%zu characters)", n);
    keep = max > strlen(tail) ? max - strlen(tail) : 0;
    if (items > 0)   /* whole items only: back to the last blank */
        while (keep > 0 && value[keep] != ' ')
            keep--;
    snprintf(buf, len, "%.*s%s", (int)keep, value, tail);
}

static int diff_is_cut(const gb_header_diff *d, int width)
{
    size_t side = diff_side_width(d, width);
    return strlen(d->old_value) > side || strlen(d->new_value) > side;
}

static void print_header_table(FILE *out, const gb_compare *c)
{
    fprintf(out, "OLD  ");
    describe_file(out, c->old_f);
    fprintf(out, "\nNEW  ");
    describe_file(out, c->new_f);
    fprintf(out, "\n");
    if (c->cross_machine) {
        fprintf(out, "CROSS-MACHINE comparison (");
        identity_fields(out, c);
        fprintf(out, "): ratios mix the hardware change with any code change%s\n",
                c->peak_both ? ";\n  the %peak column compares each run with its own "
                               "machine's measured peak" : "");
        fprintf(out, "  OLD machine: ");
        describe_machine(out, c->old_f);
        fprintf(out, "\n  NEW machine: ");
        describe_machine(out, c->new_f);
        fprintf(out, "\n");
    } else {
        fprintf(out, "same machine: ");
        describe_machine(out, c->old_f);
        fprintf(out, "\n");
    }
    if (c->peak_both)
        fprintf(out, "measured FP32 peak: %.1f -> %.1f GFLOP/s\n", c->old_f->peak_gflops,
                c->new_f->peak_gflops);
    if (c->ndiffs == 0) {
        fprintf(out, "no differences in the tool, machine and run blocks\n");
    } else {
        int width = 5, cut = 0;
        for (int i = 0; i < c->ndiffs; i++)
            if ((int)strlen(c->diffs[i].field) > width)
                width = (int)strlen(c->diffs[i].field);
        if (width > DIFF_FIELD_WIDTH)
            width = DIFF_FIELD_WIDTH;
        for (int i = 0; i < c->ndiffs; i++)
            cut |= diff_is_cut(&c->diffs[i], width);
        fprintf(out, "differences in the tool, machine and run blocks (OLD | NEW)%s:\n",
                cut ? "; long values cut to fit, whole in --format json" : "");
        for (int i = 0; i < c->ndiffs; i++) {
            char va[DIFF_LINE], vb[DIFF_LINE];
            const gb_header_diff *d = &c->diffs[i];
            size_t side = diff_side_width(d, width);
            shorten_value(va, sizeof va, d->old_value, d->old_items, side);
            shorten_value(vb, sizeof vb, d->new_value, d->new_items, side);
            fprintf(out, "  %-*s  %s | %s\n", width, d->field, va, vb);
        }
    }
    fprintf(out, "gate: ");
    print_gate_rule_lines(out, c);
    fprintf(out, "\n\n");
}

static void print_one_sided(FILE *out, gb_format fmt, const char *side, const gb_entry **e,
                            int n)
{
    char what[512];

    if (n == 0)
        return;
    if (fmt == GB_FMT_MD)
        fprintf(out, "\n### Only in %s (%d, not compared)\n\n", side, n);
    else
        fprintf(out, "\nonly in %s (%d, not compared):\n", side, n);
    for (int i = 0; i < n; i++) {
        format_entry(what, sizeof what, e[i]);
        fprintf(out, "%s%s  median %.1f us\n", fmt == GB_FMT_MD ? "- " : "  ", what,
                e[i]->median_us);
    }
}

static const gb_column geomean_columns[] = {
    { "  group", "group", NULL, 8, 0 },
    { "name", NULL, NULL, 28, 0 },
    { "new/old", NULL, NULL, 7, 1 },
    { "change", NULL, NULL, 7, 1 },
    { "entries", NULL, NULL, 0, 1 },
};

static int print_geomeans(FILE *out, gb_format fmt, const gb_compare *c)
{
    const struct {
        const char *kind;
        const gb_compare_group *g;
        int n;
    } groups[] = {
        { "all", &c->overall, 1 },
        { "variant", c->by_variant, c->nby_variant },
        { "kernel", c->by_kernel, c->nby_kernel },
    };
    gb_table t;
    int failed = 0;

    if (gb_table_init(&t, fmt, geomean_columns, 5, 1) != 0)
        return -1;
    t.width[0] = fmt == GB_FMT_MD ? 0 : 10;
    if (fmt == GB_FMT_MD)
        fprintf(out, "\n### Geometric means of new/old (below 1: NEW is faster)\n\n");
    else
        fprintf(out, "\ngeometric mean of new/old medians (below 1: NEW is faster)\n");
    for (size_t k = 0; k < sizeof groups / sizeof groups[0]; k++)
        for (int i = 0; i < groups[k].n; i++) {
            const gb_compare_group *g = &groups[k].g[i];
            char kind[32], ratio[32], change[32], count[32], name[320];
            const char *cells[5] = { kind, group_name(g, name, sizeof name), ratio, change,
                                     count };
            snprintf(kind, sizeof kind, "%s%s", fmt == GB_FMT_MD ? "" : "  ", groups[k].kind);
            snprintf(ratio, sizeof ratio, "%.3f", g->ratio);
            snprintf(change, sizeof change, "%+.1f%%", 100.0 * (g->ratio - 1.0));
            snprintf(count, sizeof count, "%d", g->count);
            failed |= gb_table_add(&t, cells) != 0;
        }
    return gb_table_finish(out, &t, failed);
}

static void print_header_md(FILE *out, const gb_compare *c)
{
    fprintf(out, "## gemmbench %s\n\n- **OLD**: ", c->opts.paired ? "ab" : "compare");
    describe_file(out, c->old_f);
    fprintf(out, "\n- **NEW**: ");
    describe_file(out, c->new_f);
    if (c->cross_machine) {
        fprintf(out, "\n- **Cross-machine comparison** (");
        identity_fields(out, c);
        fprintf(out, "): ratios mix the hardware change with any code change%s",
                c->peak_both ? "; % of peak compares each run with its own machine's peak"
                             : "");
        fprintf(out, "\n  - OLD machine: ");
        describe_machine(out, c->old_f);
        fprintf(out, "\n  - NEW machine: ");
        describe_machine(out, c->new_f);
    } else {
        fprintf(out, "\n- **Same machine**: ");
        describe_machine(out, c->old_f);
    }
    if (c->peak_both)
        fprintf(out, "\n- Measured FP32 peak: %.1f -> %.1f GFLOP/s", c->old_f->peak_gflops,
                c->new_f->peak_gflops);
    fprintf(out, "\n- Gate: ");
    print_gate_rule(out, c);
    fprintf(out, "\n\n");
    if (c->ndiffs == 0) {
        fprintf(out, "No differences in the tool, machine and run blocks.\n\n");
        return;
    }
    fprintf(out, "| field | OLD | NEW |\n|---|---|---|\n");
    for (int i = 0; i < c->ndiffs; i++) {
        char va[DIFF_LINE], vb[DIFF_LINE];
        const gb_header_diff *d = &c->diffs[i];
        size_t side = diff_side_width(d, DIFF_FIELD_WIDTH);
        shorten_value(va, sizeof va, d->old_value, d->old_items, side);
        shorten_value(vb, sizeof vb, d->new_value, d->new_items, side);
        fprintf(out, "| %s | %s | %s |\n", d->field, va, vb);
    }
    fprintf(out, "\n");
}

/* One row per compared pair; the %peak column when both files have a peak. */
static const gb_column row_columns[] = {
    { "variant", NULL, NULL, 7, 0 }, { "kernel", NULL, NULL, 6, 0 },
    { "M", NULL, NULL, 5, 1 }, { "K", NULL, NULL, 5, 1 }, { "N", NULL, NULL, 5, 1 },
    { "thr", "threads", NULL, 3, 1 }, { "n old/new", NULL, NULL, 9, 1 },
    { "old_us", "old µs", NULL, 11, 1 }, { "new_us", "new µs", NULL, 11, 1 },
    { "new/old", NULL, NULL, 7, 1 }, { "change", NULL, NULL, 8, 1 }, { "p", NULL, NULL, 8, 1 },
    { "%peak", "% peak old->new", NULL, 13, 1 }, { "%roof", "% roof old->new", NULL, 13, 1 },
    { "interval", NULL, NULL, 13, 1 }, { "steal", "steal old/new", NULL, 11, 1 },
    { " verdict", "verdict", NULL, 0, 0 },
};
#define ROW_NCOLS ((int)(sizeof row_columns / sizeof row_columns[0]))
#define PEAK_COL 12
#define ROOF_COL 13
#define CI_COL 14
#define STEAL_COL 15

/* Whether a round of either file ran under steal: the steal column then. */
static int any_steal(const gb_compare *c)
{
    return c->steal.under[0] + c->steal.under[1] > 0;
}

/* "2r/0r": the row's rounds under steal, OLD/NEW ("-" on a side without
 * round clocks). */
static void format_steal(char *buf, size_t len, const gb_compare_row *r)
{
    char side[2][16];

    for (int s = 0; s < 2; s++)
        if (r->steal.known[s])
            snprintf(side[s], sizeof side[s], "%dr", r->steal.under[s]);
        else
            snprintf(side[s], sizeof side[s], "-");
    snprintf(buf, len, "%s/%s", side[0], side[1]);
}

/* The steal line, under the table, when the files have round clocks:
 * how many rounds ran under steal and how much it took; every round stays
 * in the verdicts (results/FORMAT.md, round_clocks). */
static void print_steal(FILE *out, gb_format fmt, const gb_compare *c)
{
    const gb_compare_steal *s = &c->steal;
    int known = s->known[0] + s->known[1], under = s->under[0] + s->under[1];
    char side[2][64];

    if (known == 0)
        return;
    fprintf(out, "\n%ssteal: ", fmt == GB_FMT_MD ? "- " : "");
    for (int i = 0; i < 2; i++)
        if (s->known[i])
            snprintf(side[i], sizeof side[i], "%d of its %d rounds", s->under[i], s->known[i]);
        else
            snprintf(side[i], sizeof side[i], "no round clocks, steal unknown");
    if (under == 0) {
        fprintf(out, "no round ran under steal, of the %d whose steal is recorded "
                     "(OLD: %s; NEW: %s)\n", known, side[0], side[1]);
        return;
    }
    /* two lines: one would run past 200 characters */
    fprintf(out, "%d of the %d rounds whose steal is recorded ran under steal (OLD: %s; "
                 "NEW: %s),\n%s%.3g s of CPU time taken by the hypervisor in all (OLD %.3g s, "
                 "NEW %.3g s, over the machine's CPUs); every round is kept in the verdicts\n",
            under, known, side[0], side[1], fmt == GB_FMT_MD ? "  " : "       ",
            s->seconds[0] + s->seconds[1], s->seconds[0], s->seconds[1]);
}

static int print_rows(FILE *out, gb_format fmt, const gb_compare *c)
{
    gb_column cols[ROW_NCOLS];
    gb_table t;
    int ncols = 0, failed = 0;

    for (int i = 0; i < ROW_NCOLS; i++)
        if ((i != PEAK_COL || c->peak_both) && (i != ROOF_COL || c->roof_any) &&
            (i != CI_COL || c->opts.paired) && (i != STEAL_COL || any_steal(c)))
            cols[ncols++] = row_columns[i];
    if (fmt == GB_FMT_MD)
        cols[ncols - 1].title = "verdict";
    if (c->opts.paired)
        for (int i = 0; i < ncols; i++)
            if (strcmp(cols[i].title, "p") == 0)
                cols[i].title = "p adj";
    if (gb_table_init(&t, fmt, cols, ncols, 1) != 0)
        return -1;
    for (int i = 0; i < c->nrows; i++) {
        const gb_compare_row *r = &c->rows[i];
        char v[ROW_NCOLS][160];
        const char *cells[ROW_NCOLS];
        int n = 0;
        gb_entry_typed_label(r->old_e, v[n++], 160);
        snprintf(v[n++], 160, "%s", r->old_e->kernel);
        snprintf(v[n++], 160, "%d", r->old_e->M);
        snprintf(v[n++], 160, "%d", r->old_e->K);
        snprintf(v[n++], 160, "%d", r->old_e->N);
        snprintf(v[n++], 160, "%d", r->old_e->threads);
        snprintf(v[n++], 160, r->unit == GB_UNIT_CALLS ? "%d/%d" : "%dr/%dr", r->n_old,
                 r->n_new);
        snprintf(v[n++], 160, "%.1f", r->old_e->median_us);
        snprintf(v[n++], 160, "%.1f", r->new_e->median_us);
        snprintf(v[n++], 160, "%.3f", r->ratio);
        snprintf(v[n++], 160, "%+.1f%%", 100.0 * (r->ratio - 1.0));
        format_p(v[n++], 160, r);
        if (c->peak_both)
            format_peak(v[n++], 160, r);
        if (c->roof_any)
            format_roof(v[n++], 160, r);
        if (c->opts.paired) {
            if (r->verdict == GB_VERDICT_TOO_FEW || !isfinite(r->hi))
                snprintf(v[n++], 160, "-");
            else
                snprintf(v[n++], 160, "%.3f-%.3f", r->lo, r->hi);
        }
        if (any_steal(c))
            format_steal(v[n++], 160, r);
        if (fmt == GB_FMT_MD)
            snprintf(v[n++], 160, r->gate_fail ? "**%s: FAIL**" : "%s",
                     gb_verdict_word(r->verdict));
        else
            snprintf(v[n++], 160, " %s%s", gb_verdict_word(r->verdict),
                     r->gate_fail ? "  FAIL" : "");
        for (int k = 0; k < n; k++)
            cells[k] = v[k];
        failed |= gb_table_add(&t, cells) != 0;
    }
    return gb_table_finish(out, &t, failed);
}

int gb_compare_print(FILE *out, gb_format fmt, const gb_compare *c)
{
    if (fmt == GB_FMT_MD) {
        print_header_md(out, c);
    } else {
        print_header_table(out, c);
    }
    if (print_rows(out, fmt, c) != 0)
        return -1;
    print_steal(out, fmt, c);
    print_one_sided(out, fmt, "OLD", c->only_old, c->nonly_old);
    print_one_sided(out, fmt, "NEW", c->only_new, c->nonly_new);
    if (print_geomeans(out, fmt, c) != 0)
        return -1;
    fprintf(out, "\n");
    print_gate_result(out, fmt, c);
    return 0;
}

int gb_compare_write(FILE *out, gb_format fmt, const gb_compare *c)
{
    cJSON *doc;
    char *text;

    if (fmt != GB_FMT_JSON)
        return gb_compare_print(out, fmt, c);
    doc = gb_compare_json(c);
    text = doc ? cJSON_Print(doc) : NULL;
    cJSON_Delete(doc);
    if (text == NULL)
        return -1;
    fprintf(out, "%s\n", text);
    free(text);
    return 0;
}

/* ---- JSON ------------------------------------------------------------------- */

/* A %roof figure, null on a side without a roof. */
static void add_roof_number(cJSON *o, const char *key, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

static cJSON *entry_key_json(const gb_entry *e)
{
    cJSON *o = cJSON_CreateObject();

    cJSON_AddStringToObject(o, "variant", e->variant);
    cJSON_AddStringToObject(o, "label", e->label);
    cJSON_AddStringToObject(o, "params", e->params);
    cJSON_AddStringToObject(o, "kernel", e->kernel);
    cJSON_AddStringToObject(o, "dtype", gb_dtype_name(e->dtype));
    cJSON_AddNumberToObject(o, "M", e->M);
    cJSON_AddNumberToObject(o, "K", e->K);
    cJSON_AddNumberToObject(o, "N", e->N);
    cJSON_AddNumberToObject(o, "threads", e->threads);
    cJSON_AddBoolToObject(o, "prepack", e->prepack);
    return o;
}

static cJSON *file_json(const gb_result_file *f)
{
    cJSON *o = cJSON_CreateObject();

    cJSON_AddStringToObject(o, "path", f->path);
    cJSON_AddStringToObject(o, "started", or_unknown(f->started));
    cJSON_AddBoolToObject(o, "complete", f->complete);
    cJSON_AddNumberToObject(o, "entries", f->nentries);
    if (f->peak_gflops > 0.0)
        cJSON_AddNumberToObject(o, "peak_gflops", f->peak_gflops);
    else
        cJSON_AddNullToObject(o, "peak_gflops");
    return o;
}

/* {"old_rounds", "old_under_steal", "old_steal_s", "new_...": 0 without
 * round clocks}. */
static cJSON *steal_json(const gb_compare_steal *s)
{
    static const char *const side[2] = { "old", "new" };
    cJSON *o = cJSON_CreateObject();
    char key[32];

    for (int i = 0; o && i < 2; i++) {
        snprintf(key, sizeof key, "%s_rounds", side[i]);
        cJSON_AddNumberToObject(o, key, s->known[i]);
        snprintf(key, sizeof key, "%s_under_steal", side[i]);
        cJSON_AddNumberToObject(o, key, s->under[i]);
        snprintf(key, sizeof key, "%s_steal_s", side[i]);
        cJSON_AddNumberToObject(o, key, s->seconds[i]);
    }
    return o;
}

static cJSON *row_json(const gb_compare *c, const gb_compare_row *r)
{
    cJSON *o = entry_key_json(r->old_e);

    cJSON_AddNumberToObject(o, "old_median_us", r->old_e->median_us);
    cJSON_AddNumberToObject(o, "new_median_us", r->new_e->median_us);
    cJSON_AddNumberToObject(o, "old_samples", r->old_e->nsamples);
    cJSON_AddNumberToObject(o, "new_samples", r->new_e->nsamples);
    cJSON_AddStringToObject(o, "unit", unit_names[r->unit]);
    cJSON_AddNumberToObject(o, "old_n", r->n_old);
    cJSON_AddNumberToObject(o, "new_n", r->n_new);
    cJSON_AddNumberToObject(o, "ratio", r->ratio);
    cJSON_AddNumberToObject(o, "change_pct", 100.0 * (r->ratio - 1.0));
    if (r->unit == GB_UNIT_PAIRED && r->verdict != GB_VERDICT_TOO_FEW && isfinite(r->hi)) {
        cJSON_AddNumberToObject(o, "ratio_lo", r->lo);
        cJSON_AddNumberToObject(o, "ratio_hi", r->hi);
    }
    if (r->unit == GB_UNIT_ROUNDS)
        cJSON_AddNumberToObject(o, "noise_pct", r->noise_pct);
    if (r->verdict == GB_VERDICT_TOO_FEW) {
        cJSON_AddNullToObject(o, "p");
        cJSON_AddNullToObject(o, "test");
    } else if (r->unit == GB_UNIT_PAIRED) {
        cJSON_AddNumberToObject(o, "p", r->p);
        cJSON_AddNumberToObject(o, "p_adjusted", r->p_gate);
        cJSON_AddStringToObject(o, "test", "signed-rank");
    } else {
        cJSON_AddNumberToObject(o, "u", r->test.u1);
        cJSON_AddNumberToObject(o, "p", r->p);
        cJSON_AddStringToObject(o, "test", r->test.exact ? "exact" : "normal");
    }
    if (c->peak_both) {
        cJSON_AddNumberToObject(o, "old_peak_pct", r->old_peak_pct);
        cJSON_AddNumberToObject(o, "new_peak_pct", r->new_peak_pct);
    }
    if (c->roof_any) {
        add_roof_number(o, "old_roof_pct", r->old_roof_pct);
        add_roof_number(o, "new_roof_pct", r->new_roof_pct);
    }
    if (r->old_e->cold)
        cJSON_AddStringToObject(o, "cache", "cold");
    cJSON_AddItemToObject(o, "steal", steal_json(&r->steal));
    cJSON_AddStringToObject(o, "verdict", gb_verdict_word(r->verdict));
    cJSON_AddBoolToObject(o, "gate_fail", r->gate_fail);
    return o;
}

static cJSON *geomeans_json(const gb_compare_group *g, int n)
{
    cJSON *o = cJSON_CreateObject();

    for (int i = 0; i < n; i++) {
        char name[320];
        cJSON *one = cJSON_AddObjectToObject(o, group_name(&g[i], name, sizeof name));
        cJSON_AddNumberToObject(one, "ratio", g[i].ratio);
        cJSON_AddNumberToObject(one, "entries", g[i].count);
    }
    return o;
}

cJSON *gb_compare_json(const gb_compare *c)
{
    cJSON *doc = cJSON_CreateObject(), *gate, *list, *geo;

    if (doc == NULL)
        return NULL;
    cJSON_AddItemToObject(doc, "old", file_json(c->old_f));
    cJSON_AddItemToObject(doc, "new", file_json(c->new_f));
    cJSON_AddBoolToObject(doc, "cross_machine", c->cross_machine);
    list = cJSON_AddArrayToObject(doc, "differences");
    for (int i = 0; i < c->ndiffs; i++) {
        cJSON *d = cJSON_CreateObject();
        cJSON_AddStringToObject(d, "field", c->diffs[i].field);
        cJSON_AddStringToObject(d, "old", c->diffs[i].old_value);
        cJSON_AddStringToObject(d, "new", c->diffs[i].new_value);
        /* the values themselves, as the files have them (null: absent) */
        cJSON_AddItemToObject(d, "old_value", c->diffs[i].old_json
                                                   ? cJSON_Duplicate(c->diffs[i].old_json, 1)
                                                   : cJSON_CreateNull());
        cJSON_AddItemToObject(d, "new_value", c->diffs[i].new_json
                                                   ? cJSON_Duplicate(c->diffs[i].new_json, 1)
                                                   : cJSON_CreateNull());
        cJSON_AddItemToArray(list, d);
    }
    gate = cJSON_AddObjectToObject(doc, "gate");
    cJSON_AddNumberToObject(gate, "threshold_pct", c->opts.threshold_pct);
    cJSON_AddNumberToObject(gate, "alpha", c->opts.alpha);
    cJSON_AddNumberToObject(gate, "min_samples", c->opts.min_samples);
    cJSON_AddStringToObject(gate, "result", c->nfailed ? "fail" : "pass");
    cJSON_AddNumberToObject(gate, "failed", c->nfailed);
    cJSON_AddNumberToObject(gate, "compared", c->nrows);
    cJSON_AddNumberToObject(gate, "faster", c->nfaster);
    cJSON_AddNumberToObject(gate, "slower", c->nslower);
    cJSON_AddNumberToObject(gate, "same", c->nsame);
    cJSON_AddNumberToObject(gate, "too_few_samples", c->ntoo_few);
    cJSON_AddItemToObject(doc, "steal", steal_json(&c->steal));
    list = cJSON_AddArrayToObject(doc, "entries");
    for (int i = 0; i < c->nrows; i++)
        cJSON_AddItemToArray(list, row_json(c, &c->rows[i]));
    list = cJSON_AddArrayToObject(doc, "only_old");
    for (int i = 0; i < c->nonly_old; i++)
        cJSON_AddItemToArray(list, entry_key_json(c->only_old[i]));
    list = cJSON_AddArrayToObject(doc, "only_new");
    for (int i = 0; i < c->nonly_new; i++)
        cJSON_AddItemToArray(list, entry_key_json(c->only_new[i]));
    geo = cJSON_AddObjectToObject(doc, "geomean");
    cJSON_AddNumberToObject(geo, "overall", c->overall.ratio);
    cJSON_AddItemToObject(geo, "variants", geomeans_json(c->by_variant, c->nby_variant));
    cJSON_AddItemToObject(geo, "kernels", geomeans_json(c->by_kernel, c->nby_kernel));
    return doc;
}
