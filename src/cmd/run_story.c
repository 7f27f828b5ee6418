/* run_story.c - the lines a run ends with; see run_story.h. */
#define _GNU_SOURCE
#include "run_story.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "libraries.h"
#include "roof.h"
#include "stats.h"

/* The entries the story compares: measured per call (pre-packed ones are a
 * measurement of their own), verified or unchecked, a median above 0. */
static int usable(const gb_entry *e)
{
    return !e->prepack && e->median_us > 0.0 && strcmp(e->check, "fail") != 0;
}

/* One group of the story: a kernel in one type and cache mode, at the
 * largest thread count its entries ran. */
typedef struct story_group {
    const gb_entry *first;   /* its first entry in file order: kernel, dtype, cold */
    int threads;
} story_group;

static int same_group(const gb_entry *a, const gb_entry *b)
{
    return strcmp(a->kernel, b->kernel) == 0 && a->dtype == b->dtype && a->cold == b->cold;
}

static int in_group(const story_group *g, const gb_entry *e)
{
    return same_group(g->first, e) && e->threads == g->threads;
}

/* The entry labelled label at e's point, or NULL. */
static const gb_entry *at_point(const gb_result_file *f, const char *label, const gb_entry *e)
{
    for (int i = 0; i < f->nentries; i++) {
        const gb_entry *o = &f->entries[i];
        if (usable(o) && strcmp(o->label, label) == 0 && gb_entry_same_point(o, e))
            return o;
    }
    return NULL;
}

/* How label b compares with label a over g's points, both measured:
 * a's median over b's (above 1: b is faster), geometric mean, its least and
 * largest, b's %peak and a's and b's GFLOP/s (geometric means); the points
 * counted (0: none in common). */
typedef struct versus {
    double ratio, lo, hi, peak_a, peak_b, gflops_b;
    int points;
} versus;

static versus compare_labels(const gb_result_file *f, const story_group *g, const char *a,
                             const char *b)
{
    versus v = { NAN, INFINITY, -INFINITY, 0.0, 0.0, 0.0, 0 };
    double *ratios = calloc((size_t)f->nentries + 1, sizeof *ratios);
    int npeak = 0;

    if (ratios == NULL)
        return v;
    for (int i = 0; i < f->nentries; i++) {
        const gb_entry *eb = &f->entries[i], *ea;
        double r;
        if (!usable(eb) || !in_group(g, eb) || strcmp(eb->label, b) != 0 ||
            (ea = at_point(f, a, eb)) == NULL)
            continue;
        r = ea->median_us / eb->median_us;
        ratios[v.points++] = r;
        v.lo = fmin(v.lo, r);
        v.hi = fmax(v.hi, r);
        v.gflops_b += log(eb->gflops > 0.0 ? eb->gflops : 1e-300);
        if (isfinite(ea->peak_pct) && isfinite(eb->peak_pct) && ea->peak_pct > 0.0 &&
            eb->peak_pct > 0.0) {
            v.peak_a += log(ea->peak_pct);
            v.peak_b += log(eb->peak_pct);
            npeak++;
        }
    }
    if (v.points > 0) {
        v.ratio = gb_geomean(ratios, v.points, NULL);
        v.gflops_b = exp(v.gflops_b / v.points);
    }
    /* geometric means, as the ratio's: packed's %peak over rule_based's is
     * then its speed over rule_based's */
    v.peak_a = npeak ? exp(v.peak_a / npeak) : NAN;
    v.peak_b = npeak ? exp(v.peak_b / npeak) : NAN;
    free(ratios);
    return v;
}

/* b's %peak over g's points ("72.1% of peak"), or its GFLOP/s when the
 * file has no peak. */
static void describe_speed(char *buf, size_t len, const versus *v)
{
    if (isfinite(v->peak_b))
        snprintf(buf, len, "%.1f%% of peak", v->peak_b);
    else
        snprintf(buf, len, "%.1f GFLOP/s", v->gflops_b);
}

/* Whether any usable entry of g has this label. */
static int group_has(const gb_result_file *f, const story_group *g, const char *label)
{
    for (int i = 0; i < f->nentries; i++)
        if (usable(&f->entries[i]) && in_group(g, &f->entries[i]) &&
            strcmp(f->entries[i].label, label) == 0)
            return 1;
    return 0;
}

/* The study's steps: "baseline -> rule_based: 11.9x (9.0x..15.8x over 2
 * shapes), 0.9% -> 10.6% of peak". */
static int print_steps(FILE *out, const gb_result_file *f, const story_group *g,
                       const char *indent)
{
    versus v = compare_labels(f, g, "baseline", "rule_based");

    if (v.points == 0)
        return 0;
    fprintf(out, "%sbaseline -> rule_based: %.3gx", indent, v.ratio);
    if (v.points > 1)
        fprintf(out, " (%.3gx..%.3gx over %d shapes)", v.lo, v.hi, v.points);
    if (isfinite(v.peak_a))
        fprintf(out, ", %.1f%% -> %.1f%% of peak", v.peak_a, v.peak_b);
    fprintf(out, "\n");
    return 1;
}

/* The limit: packed against rule_based, and the fastest reference library
 * (the highest mean GFLOP/s over g's points) against packed; the lines
 * printed. */
static int print_limit(FILE *out, const gb_result_file *f, const story_group *g,
                       const char *first_indent, const char *indent)
{
    const char *best = NULL;
    double best_gflops = 0.0;
    char speed[64];
    int printed = 0;

    for (int i = 0; i < f->nentries; i++) {
        const gb_entry *e = &f->entries[i];
        versus v;
        if (!usable(e) || !in_group(g, e) || strcmp(e->family, "reference") != 0 ||
            (best && strcmp(best, e->label) == 0))
            continue;
        v = compare_labels(f, g, e->label, e->label);
        if (v.points > 0 && v.gflops_b > best_gflops) {
            best_gflops = v.gflops_b;
            best = e->label;
        }
    }
    if (group_has(f, g, "packed")) {
        versus self = compare_labels(f, g, "packed", "packed");
        versus rb = compare_labels(f, g, "rule_based", "packed");
        describe_speed(speed, sizeof speed, &self);
        fprintf(out, "%spacked: %s", first_indent, speed);
        if (rb.points > 0)
            fprintf(out, ", %.3gx rule_based's speed", rb.ratio);
        fprintf(out, "\n");
        printed++;
    }
    if (best != NULL) {
        versus self = compare_labels(f, g, best, best);
        versus vs = compare_labels(f, g, best, "packed");
        describe_speed(speed, sizeof speed, &self);
        fprintf(out, "%sfastest reference: %s %s", printed ? indent : first_indent, best, speed);
        if (vs.points > 0)
            fprintf(out, "; packed %.3gx its speed", vs.ratio);
        fprintf(out, "\n");
        printed++;
    }
    return printed;
}

/* "qkv", "qkv [bf16]", "qkv cold", "qkv 1 thread": what tells g apart. */
static void group_name(char *buf, size_t len, const story_group *g, int threads_differ)
{
    char label[64] = "";

    if (g->first->dtype != GB_DTYPE_F32)
        snprintf(label, sizeof label, " [%s]", gb_dtype_name(g->first->dtype));
    snprintf(buf, len, "%s%s%s", g->first->kernel, label, g->first->cold ? " cold" : "");
    if (threads_differ)
        snprintf(buf + strlen(buf), len - strlen(buf), " %dt", g->threads);
}

/* Labels named on a line of their own before "and N more". */
#define ALONE_NAMED 4

/* A group with nothing to compare: what ran and at what speed, and how to
 * get a comparison ("rule_based: 66.9% of peak (8 shapes); add baseline,
 * ..."), the first ALONE_NAMED labels named. */
static void print_alone(FILE *out, const gb_result_file *f, const story_group *g,
                        const char *indent)
{
    int named = 0, more = 0;

    fputs(indent, out);
    for (int i = 0; i < f->nentries; i++) {
        const gb_entry *e = &f->entries[i];
        int dup = 0;
        if (!usable(e) || !in_group(g, e))
            continue;
        for (int j = 0; j < i && !dup; j++)
            dup = usable(&f->entries[j]) && in_group(g, &f->entries[j]) &&
                  strcmp(f->entries[j].label, e->label) == 0;
        if (dup)
            continue;
        if (named == ALONE_NAMED) {
            more++;
            continue;
        }
        versus self = compare_labels(f, g, e->label, e->label);
        char speed[64];
        describe_speed(speed, sizeof speed, &self);
        fprintf(out, "%s%s: %s (%d shape%s)", named ? ", " : "", e->label, speed, self.points,
                self.points == 1 ? "" : "s");
        named++;
    }
    if (named == 0) {
        fprintf(out, "nothing to summarise (every entry pre-packed or failed its check)\n");
        return;
    }
    if (more)
        fprintf(out, " and %d more", more);
    fprintf(out, "; add baseline, packed or a reference library to --variant to compare\n");
}

/* What the reader should not miss: failed checks, high CV, a reference
 * library off this CPU's best path, variants skipped, an interrupted run. */
static void print_flags(FILE *out, const gb_result_file *f)
{
    int failed = 0, noisy = 0, measured = 0, roof_low = 0;
    const gb_entry *first_failed = NULL;
    const cJSON *skipped = cJSON_GetObjectItemCaseSensitive(f->doc, "skipped");
    gb_library_note libs[GB_MAX_LIBRARY_NOTES];
    int nlibs = gb_library_notes(f, libs, GB_MAX_LIBRARY_NOTES);

    for (int i = 0; i < f->nentries; i++) {
        const gb_entry *e = &f->entries[i];
        if (strcmp(e->check, "fail") == 0 && failed++ == 0)
            first_failed = e;
        if (e->median_us > 0.0)
            measured++;
        if (e->mean_us > 0.0 && e->stddev_us / e->mean_us > GB_CV_WARN)
            noisy++;
        roof_low += gb_roof_measured_low(e->roof_pct);
    }
    if (!f->complete)
        fprintf(out, "  flagged: the run was interrupted; the file holds what it measured\n");
    if (failed)
        fprintf(out, "  flagged: %d entr%s FAILED verification (the first: %s %s M=%d)\n",
                failed, failed == 1 ? "y" : "ies", first_failed->label, first_failed->kernel,
                first_failed->M);
    if (noisy)
        fprintf(out, "  flagged: %d of %d entries with CV above %.0f%%: the machine was busy; "
                     "--rounds 5, or gemmbench ab for two builds\n",
                noisy, measured, 100.0 * GB_CV_WARN);
    if (roof_low)
        fprintf(out, "  flagged: %d entr%s beat %s roof: a bandwidth measured low (a busy "
                     "machine); their %%roof is not a figure\n", roof_low,
                roof_low == 1 ? "y" : "ies", roof_low == 1 ? "its" : "their");
    for (int i = 0; i < nlibs; i++)
        if (libs[i].flagged)
            fprintf(out, "  flagged: %s ran %s kernels (%s), not this CPU's best path: "
                         "see its library line\n", libs[i].name, libs[i].kernels, libs[i].isa);
    if (cJSON_GetArraySize(skipped) > 0)
        fprintf(out, "  skipped: %d variant and type pair%s (the lines above say why)\n",
                cJSON_GetArraySize(skipped), cJSON_GetArraySize(skipped) == 1 ? "" : "s");
}

void gb_run_story(FILE *out, const gb_result_file *f, const char *path)
{
    story_group *groups = calloc((size_t)f->nentries + 1, sizeof *groups);
    int ngroups = 0, threads_differ = 0, width = 0;

    if (groups == NULL)
        return;
    for (int i = 0; i < f->nentries; i++) {
        const gb_entry *e = &f->entries[i];
        int g = 0;
        while (g < ngroups && !same_group(groups[g].first, e))
            g++;
        if (g == ngroups)
            groups[ngroups++] = (story_group){ e, e->threads };
        else if (e->threads > groups[g].threads)
            groups[g].threads = e->threads;
    }
    for (int g = 1; g < ngroups; g++)
        threads_differ |= groups[g].threads != groups[0].threads;
    for (int g = 0; g < ngroups; g++) {
        char name[128];
        group_name(name, sizeof name, &groups[g], threads_differ);
        if ((int)strlen(name) > width)
            width = (int)strlen(name);
    }
    fprintf(out, "\nsummary");
    if (ngroups > 0 && !threads_differ)
        fprintf(out, " at %d thread%s", groups[0].threads, groups[0].threads == 1 ? "" : "s");
    fprintf(out, " (geometric means over each kernel's shapes):\n");
    for (int g = 0; g < ngroups; g++) {
        char name[128], indent[160], rest[160];
        int lines;
        group_name(name, sizeof name, &groups[g], threads_differ);
        snprintf(indent, sizeof indent, "  %-*s  ", width, name);
        lines = print_steps(out, f, &groups[g], indent);
        snprintf(rest, sizeof rest, "  %-*s  ", width, "");
        lines += print_limit(out, f, &groups[g], lines ? rest : indent, rest);
        if (lines == 0)
            print_alone(out, f, &groups[g], indent);
    }
    print_flags(out, f);
    fprintf(out, "next: make plots PLOT_FILE=%s   (figures)\n", path);
    fprintf(out, "      gemmbench report %s   (tables by kernel and M)\n", path);
    fprintf(out, "      gemmbench compare %s NEW.json   (what a later run changed)\n", path);
    free(groups);
}
