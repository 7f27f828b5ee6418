/* history_html.c - `gemmbench history html`: one page that opens from
 * file:// with nothing else: a summary of every change, largest first; a
 * chart per series drawn as SVG here (the per-commit median or, for a
 * paired series, the ratio to its anchor with the epochs marked; the band
 * of its spread; y ticks; each change point a dashed line with its commit
 * range and ratio; each point's commit, date and value on hover), the
 * series with changes first and the rest folded; three filters in a few
 * lines of inline script.  No network, no library: the same page in a year. */
#include "history.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CHART_W 640
#define CHART_H 200
#define PAD_L 64
#define PAD_R 12
#define PAD_T 12
#define PAD_B 28

/* Text for HTML content and attribute values. */
static void put_escaped(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default:
            if ((unsigned char)*s >= 0x20 && *s != 0x7f)
                fputc(*s, out);
        }
    }
}

/* Series si's value of a filter's field (0 machine, 1 variant, 2 kernel). */
static const char *field_of(const gb_history_store *s, int si, int which)
{
    return which == 0 ? s->series[si].machine
         : which == 1 ? s->series[si].label
                      : s->series[si].kernel;
}

/* The first charted series with series si's value of the field: the
 * filter compares these numbers, never the text, so that no way a browser
 * reads a text (runs of whitespace collapsed in an option's label, line
 * ends normalized) can make an option match no chart. */
static int value_id(const gb_history_view *v, int si, int which)
{
    const gb_history_store *s = v->store;
    const char *name = field_of(s, si, which);

    for (int j = 0; j < s->nseries; j++)
        if (v->npoints[j] > 0 && strcmp(field_of(s, j, which), name) == 0)
            return j;
    return si;
}

/* The distinct values of one series field, for a filter's options. */
static void put_options(FILE *out, const gb_history_view *v, int which)
{
    const gb_history_store *s = v->store;

    for (int i = 0; i < s->nseries; i++) {
        if (v->npoints[i] == 0 || value_id(v, i, which) != i)
            continue;
        fprintf(out, "<option value=\"v%d\">", i);
        put_escaped(out, field_of(s, i, which));
        fputs("</option>", out);
    }
}

static double x_of(int i, int n)
{
    return PAD_L + (n > 1 ? (double)i / (n - 1) : 0.5) * (CHART_W - PAD_L - PAD_R);
}

/* A coordinate as SVG takes it: finite and within the chart whatever the
 * values (times near the largest double, a ratio of 0). */
static double clamp(double c, double lo, double hi)
{
    return isnan(c) ? hi : c < lo ? lo : c > hi ? hi : c;
}

/* A point's value on the chart: a paired point's ratio read through the
 * epochs' joins; an absolute one's median or fastest round (--value). */
static double value_of(const gb_history_view *v, const gb_history_series *se,
                       const gb_history_point *p)
{
    if (se->paired)
        return exp(p->joined_y);
    return v->opts.best ? p->lo_us : p->median_us;
}

/* A paired point's interval read through the joins as its value is. */
static double band_of(const gb_history_series *se, const gb_history_point *p, int high)
{
    double raw = high ? p->hi_us : p->lo_us;
    return se->paired ? raw * exp(p->joined_y) / p->median_us : raw;
}

/* The most grid lines a chart draws. */
#define MAX_TICKS 32

/* Tick step: 1, 2 or 5 times a power of ten, about 5 ticks over span. */
static double tick_step(double span)
{
    double raw = span / 5.0, p = pow(10.0, floor(log10(raw))), m = raw / p;
    return p * (m < 1.5 ? 1.0 : m < 3.5 ? 2.0 : m < 7.5 ? 5.0 : 10.0);
}

static void put_chart(FILE *out, const gb_history_view *v, int si)
{
    const gb_history_series *se = &v->store->series[si];
    const gb_history_point *pts = v->points[si];
    int n = v->npoints[si];
    double lo = INFINITY, hi = -INFINITY;
    const char *unit = se->paired ? "x" : " us";

    for (int i = 0; i < n; i++) {
        lo = fmin(lo, fmin(band_of(se, &pts[i], 0), value_of(v, se, &pts[i])));
        hi = fmax(hi, fmax(band_of(se, &pts[i], 1), value_of(v, se, &pts[i])));
    }
    if (se->paired) {   /* 1.0, the anchor's time, always in view */
        lo = fmin(lo, 1.0);
        hi = fmax(hi, 1.0);
    }
    if (!isfinite(lo) || !isfinite(hi) || !isfinite(hi - lo)) {
        lo = 0.0;
        hi = 1.0;
    }
    /* One value, or values a few ULPs apart (a spread from exp(log(x)) of
     * equal calls is not always x): 5 % either side.  Ticks a step below
     * t's ULP apart would never pass hi. */
    if (!(hi - lo > 1e-9 * fmax(fabs(lo), fabs(hi)))) {
        lo = lo * 0.95 - 1e-9;
        hi = hi * 1.05 + 1e-9;
    }
    double span = hi - lo;
    lo -= 0.05 * span;
    hi += 0.05 * span;
#define Y(val) clamp(PAD_T + (hi - (val)) / (hi - lo) * (CHART_H - PAD_T - PAD_B), 0, CHART_H)

    fprintf(out, "<div class=\"chart\" id=\"s%d\" data-machine=\"v%d\" data-variant=\"v%d\" "
                 "data-kernel=\"v%d\"><h2>", si, value_id(v, si, 0), value_id(v, si, 1),
            value_id(v, si, 2));
    put_escaped(out, se->key);
    fputs("</h2>\n", out);
    if (!isnan(v->noise[si].sd))
        fprintf(out, "<p class=\"noise\">%s: noise between runs %.1f %%, a step under %.1f %% "
                     "is unlikely to be found with %d commits after it%s</p>\n",
                se->paired ? "each commit's time over the anchor's, side by side"
                : v->opts.best ? "each commit's fastest round" : "each commit's median",
                100.0 * expm1(v->noise[si].sd), 100.0 * v->noise[si].detectable,
                GB_HISTORY_AFTER,
                se->paired && !(v->width[si] <= GB_HISTORY_UNSTABLE) ? "; UNSTABLE: its pairs "
                "are wider than 10 %, no alarms" : "");
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                 "viewBox=\"0 0 %d %d\">\n", CHART_W, CHART_H, CHART_W, CHART_H);
    /* the epochs of a paired series: each anchor's stretch, labelled */
    for (int i = 0; se->paired && i < n; i++) {
        if (i > 0 && pts[i].epoch == pts[i - 1].epoch)
            continue;
        double x = i == 0 ? PAD_L : 0.5 * (x_of(i - 1, n) + x_of(i, n));
        if (i > 0)
            fprintf(out, "<line class=\"epoch\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>", x,
                    PAD_T, x, CHART_H - PAD_B);
        fprintf(out, "<text class=\"epoch-label\" x=\"%.1f\" y=\"%d\">anchor ", x + 3,
                CHART_H - PAD_B - 4);
        char anchor[13];
        snprintf(anchor, sizeof anchor, "%s", pts[i].anchor);
        put_escaped(out, anchor);
        fprintf(out, "%s</text>\n", pts[i].joined ? "" : " (not joined)");
    }
    /* axes, ticks and grid */
    fprintf(out, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", PAD_L, PAD_T,
            PAD_L, CHART_H - PAD_B);
    fprintf(out, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", PAD_L,
            CHART_H - PAD_B, CHART_W - PAD_R, CHART_H - PAD_B);
    /* counted, never more than MAX_TICKS (about 6 from tick_step) */
    const double step = tick_step(hi - lo), first = ceil(lo / step);
    for (int k = 0; isfinite(step) && step > 0 && k < MAX_TICKS && (first + k) * step <= hi;
         k++) {
        double t = (first + k) * step;
        if (fabs(t) < 1e-12 * step)
            t = 0.0;
        fprintf(out, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>", PAD_L,
                Y(t), CHART_W - PAD_R, Y(t));
        fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.4g%s</text>\n", PAD_L - 4,
                Y(t) + 3, t, unit);
    }
    if (se->paired)
        fprintf(out, "<line class=\"one\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n", PAD_L,
                Y(1.0), CHART_W - PAD_R, Y(1.0));
    if (n > 0) {
        fprintf(out, "<text x=\"%d\" y=\"%d\">%.10s</text>", PAD_L, CHART_H - 8, pts[0].date);
        fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.10s</text>\n",
                CHART_W - PAD_R, CHART_H - 8, pts[n - 1].date);
    }
    /* the band: the rounds' spread, or a pair's interval */
    fputs("<polygon class=\"spread\" points=\"", out);
    for (int i = 0; i < n; i++)
        fprintf(out, "%.1f,%.1f ", x_of(i, n), Y(band_of(se, &pts[i], 1)));
    for (int i = n - 1; i >= 0; i--)
        fprintf(out, "%.1f,%.1f ", x_of(i, n), Y(band_of(se, &pts[i], 0)));
    fputs("\"/>\n<polyline class=\"median\" points=\"", out);
    for (int i = 0; i < n; i++)
        fprintf(out, "%.1f,%.1f ", x_of(i, n), Y(value_of(v, se, &pts[i])));
    fputs("\"/>\n", out);
    for (int i = 0; i < n; i++) {
        fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\"><title>", x_of(i, n),
                Y(value_of(v, se, &pts[i])));
        put_escaped(out, pts[i].commit);
        if (se->paired) {
            fprintf(out, " %s: %.4fx the anchor ", pts[i].date, pts[i].median_us);
            put_escaped(out, pts[i].anchor);
            fprintf(out, " [%.4f, %.4f]; read through the joins %.4fx</title></circle>\n",
                    pts[i].lo_us, pts[i].hi_us, exp(pts[i].joined_y));
        } else {
            fprintf(out, " %s: median %.4g us (rounds %.4g-%.4g)</title></circle>\n",
                    pts[i].date, pts[i].median_us, pts[i].lo_us, pts[i].hi_us);
        }
    }
    /* The change points, between the commit before and the one after, each
     * labelled with its ratio and the first 12 characters of the commit
     * after it (the whole range is written under the chart); the labels of
     * one chart stepped down so that close ones do not overlap. */
    for (int c = 0, k = 0; c < v->nchanges; c++) {
        const gb_history_change *ch = &v->changes[c];
        char after[13];
        if (ch->series != si)
            continue;
        double x = 0.5 * (x_of(ch->at - 1, n) + x_of(ch->at, n));
        fprintf(out, "<line class=\"change%s\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>",
                ch->note ? " known" : "", x, PAD_T, x, CHART_H - PAD_B);
        fprintf(out, "<text class=\"change-label\" x=\"%.1f\" y=\"%d\">%.3fx ", x + 3,
                PAD_T + 10 + 12 * (k++ % 4), ch->test.ratio);
        size_t cut = strlen(pts[ch->at].commit);
        if (cut > 12) {
            cut = 12;   /* not inside a UTF-8 character: back to its first byte */
            while (cut > 0 && ((unsigned char)pts[ch->at].commit[cut] & 0xc0) == 0x80)
                cut--;
        }
        memcpy(after, pts[ch->at].commit, cut);
        after[cut] = '\0';
        put_escaped(out, after);
        fputs("</text>\n", out);
    }
    fputs("</svg>\n", out);
    for (int c = 0; c < v->nchanges; c++) {
        const gb_history_change *ch = &v->changes[c];
        if (ch->series != si)
            continue;
        fprintf(out, "<p class=\"change-note\">change %.3fx [%.3f, %.3f], p %.2g (adj. %.2g) "
                     "between <code>", ch->test.ratio, ch->test.lo, ch->test.hi, ch->test.p,
                ch->p_adjusted);
        put_escaped(out, pts[ch->at - 1].commit);
        fputs("</code> and <code>", out);
        put_escaped(out, pts[ch->at].commit);
        fputs("</code>", out);
        if (ch->note) {
            fputs(": known, ", out);
            put_escaped(out, ch->note);
        }
        fputs("</p>\n", out);
    }
    fputs("</div>\n", out);
#undef Y
}

/* qsort has no context: the view the order of the summary reads. */
static const gb_history_view *sorting_view;

/* Changes, largest step (|log ratio|) first. */
static int by_size(const void *pa, const void *pb)
{
    const gb_history_change *a = &sorting_view->changes[*(const int *)pa];
    const gb_history_change *b = &sorting_view->changes[*(const int *)pb];
    double x = fabs(log(a->test.ratio)), y = fabs(log(b->test.ratio));
    return (x < y) - (x > y);
}

static int shown_series(const gb_history_view *v, int si)
{
    return v->npoints[si] > 0 &&
           (!v->opts.only_machine || strcmp(v->store->series[si].machine, v->opts.only_machine) == 0);
}

/* The summary: every change, largest first, each linked to its chart. */
static void put_summary(FILE *out, const gb_history_view *v, const int *order)
{
    fprintf(out, "<h2 class=\"section\">%d change%s</h2>\n", v->nchanges,
            v->nchanges == 1 ? "" : "s");
    if (v->nchanges == 0) {
        fputs("<p>no change point</p>\n", out);
        return;
    }
    fputs("<table class=\"summary\"><tr><th>series</th><th>before..after</th><th>ratio</th>"
          "<th>95% interval</th><th>adj. p</th><th>measured</th><th>annotated</th></tr>\n", out);
    for (int k = 0; k < v->nchanges; k++) {
        const gb_history_change *ch = &v->changes[order[k]];
        const gb_history_series *se = &v->store->series[ch->series];
        const gb_history_point *pts = v->points[ch->series];
        fprintf(out, "<tr class=\"%s\"><td><a href=\"#s%d\">", ch->test.ratio > 1.0 ? "slower"
                                                                                   : "faster",
                ch->series);
        put_escaped(out, se->key);
        fputs("</a></td><td><code>", out);
        put_escaped(out, pts[ch->at - 1].commit);
        fputs("</code>..<code>", out);
        put_escaped(out, pts[ch->at].commit);
        fprintf(out, "</code></td><td>%.3fx</td><td>[%.3f, %.3f]</td><td>%.2g</td><td>%s</td>"
                     "<td>", ch->test.ratio, ch->test.lo, ch->test.hi, ch->p_adjusted,
                se->paired ? "side by side with the anchor" : "apart (history confirm)");
        if (ch->note)
            put_escaped(out, ch->note);
        else
            fputs(ch->gate ? "no: gate" : ch->unstable ? "no (unstable series: no alarm)" : "no", out);
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
}

int gb_history_write_html(FILE *out, const gb_history_view *v)
{
    const gb_history_store *s = v->store;
    int charts = 0, quiet = 0;
    int *order = malloc(((size_t)v->nchanges + 1) * sizeof *order);
    char *charted = calloc((size_t)s->nseries + 1, 1);

    if (order == NULL || charted == NULL) {
        free(order);
        free(charted);
        return -1;
    }
    for (int k = 0; k < v->nchanges; k++)
        order[k] = k;
    sorting_view = v;
    qsort(order, (size_t)v->nchanges, sizeof *order, by_size);
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<title>gemmbench history</title>\n<style>\n"
          "body{font:14px sans-serif;margin:1em 2em;color:#222}\n"
          "h2{font-size:13px;font-weight:normal;font-family:monospace;margin:1.2em 0 .2em}\n"
          "h2.section{font:bold 15px sans-serif}\n"
          ".noise{font-size:12px;color:#555;margin:0 0 .2em}\n"
          "svg text{font:10px sans-serif;fill:#444}\n"
          ".axis{stroke:#888}.grid{stroke:#e4e4e4}.one{stroke:#555;stroke-dasharray:1 2}\n"
          ".spread{fill:#9cc3e6;opacity:.5;stroke:none}\n"
          ".median{fill:none;stroke:#1f5f99;stroke-width:1.5}circle{fill:#1f5f99}\n"
          "circle:hover{fill:#c0392b}\n"
          ".epoch{stroke:#8e44ad;stroke-width:2;opacity:.6}svg text.epoch-label{fill:#8e44ad}\n"
          ".change{stroke:#c0392b;stroke-dasharray:4 3}.change.known{stroke:#888}\n"
          "svg text.change-label{fill:#c0392b}.change-note{margin:.2em 0;font-size:12px}\n"
          "table.summary{border-collapse:collapse;font-size:12px}\n"
          ".summary td,.summary th{border:1px solid #ddd;padding:2px 6px;text-align:left}\n"
          ".summary tr.slower td{background:#fdecea}.summary tr.faster td{background:#eaf5ea}\n"
          ".hidden{display:none}\n</style></head><body>\n"
          "<h1>gemmbench history</h1>\n<p>", out);
    fprintf(out, "%d result files. Absolute series: per commit, the median time (line) and "
                 "the spread of its rounds' medians (band); paired series: per commit, its "
                 "time over the anchor build's measured side by side (line, 1.0 dotted) and "
                 "the interval of that ratio (band), the anchors' epochs in purple. Dashed: a "
                 "change point (E-divisive + t-test), grey when annotated as known. Hover a "
                 "point for its commit, date and value.</p>\n", s->nfiles);
    put_summary(out, v, order);
    static const char *const filters[] = { "machine", "variant", "kernel" };
    fputs("<p>", out);
    for (int f = 0; f < 3; f++) {
        fprintf(out, "<label>%s <select id=\"f-%s\"><option value=\"\">all</option>",
                filters[f], filters[f]);
        put_options(out, v, f);
        fputs("</select></label> ", out);
    }
    fputs("<span id=\"shown\"></span></p>\n<div id=\"charts\">\n", out);
    /* The series with changes, in the summary's order; then the rest, folded. */
    for (int k = 0; k < v->nchanges; k++) {
        int si = v->changes[order[k]].series;
        if (charted[si] || !shown_series(v, si))
            continue;
        charted[si] = 1;
        put_chart(out, v, si);
        charts++;
    }
    for (int si = 0; si < s->nseries; si++)
        quiet += shown_series(v, si) && !charted[si];
    if (quiet > 0) {
        fprintf(out, "<details id=\"quiet\"><summary>%d series without a change</summary>\n",
                quiet);
        for (int si = 0; si < s->nseries; si++) {
            if (!shown_series(v, si) || charted[si])
                continue;
            put_chart(out, v, si);
            charts++;
        }
        fputs("</details>\n", out);
    }
    free(order);
    free(charted);
    fprintf(out, "</div>\n<script>\n"
                 "\"use strict\";\n"
                 "const total = %d;\n"
                 "function applyFilters() {\n"
                 "  const want = {};\n"
                 "  for (const f of [\"machine\", \"variant\", \"kernel\"])\n"
                 "    want[f] = document.getElementById(\"f-\" + f).value;\n"
                 "  let shown = 0;\n"
                 "  for (const c of document.querySelectorAll(\"div.chart\")) {\n"
                 "    const ok = Object.keys(want).every(f => !want[f] || c.dataset[f] === want[f]);\n"
                 "    c.classList.toggle(\"hidden\", !ok);\n"
                 "    shown += ok;\n"
                 "  }\n"
                 "  document.getElementById(\"shown\").textContent = shown + \" of \" + total + \" series\";\n"
                 "  document.body.dataset.charts = String(shown);\n"
                 "}\n"
                 "for (const f of [\"machine\", \"variant\", \"kernel\"])\n"
                 "  document.getElementById(\"f-\" + f).addEventListener(\"change\", applyFilters);\n"
                 "applyFilters();\n"
                 "</script>\n</body></html>\n",
            charts);
    return ferror(out) ? -1 : 0;
}
