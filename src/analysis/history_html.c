/* history_html.c - `gemmbench history html`: one page that opens from
 * file:// with nothing else, a chart per series drawn as SVG here (the
 * per-commit median, its round spread as a band, each change point a
 * dashed line with its commit range and ratio), and three filters in a few
 * lines of inline script.  No network, no library: the same page in a year. */
#include "history.h"

#include <math.h>
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

/* The distinct values of one series field, for a filter's options. */
static void put_options(FILE *out, const gb_history_view *v, int which)
{
    const gb_history_store *s = v->store;

    for (int i = 0; i < s->nseries; i++) {
        const char *name = which == 0 ? s->series[i].machine
                         : which == 1 ? s->series[i].label
                                      : s->series[i].kernel;
        int seen = v->npoints[i] == 0;
        for (int j = 0; j < i && !seen; j++) {
            const char *other = which == 0 ? s->series[j].machine
                              : which == 1 ? s->series[j].label
                                           : s->series[j].kernel;
            seen = v->npoints[j] > 0 && strcmp(other, name) == 0;
        }
        if (seen)
            continue;
        fputs("<option>", out);
        put_escaped(out, name);
        fputs("</option>", out);
    }
}

static double x_of(int i, int n)
{
    return PAD_L + (n > 1 ? (double)i / (n - 1) : 0.5) * (CHART_W - PAD_L - PAD_R);
}

static void put_chart(FILE *out, const gb_history_view *v, int si)
{
    const gb_history_series *se = &v->store->series[si];
    const gb_history_point *pts = v->points[si];
    int n = v->npoints[si];
    double lo = INFINITY, hi = 0.0;

    for (int i = 0; i < n; i++) {
        lo = fmin(lo, fmin(pts[i].lo_us, pts[i].median_us));
        hi = fmax(hi, fmax(pts[i].hi_us, pts[i].median_us));
    }
    if (!(hi > lo)) {
        lo *= 0.95;
        hi = hi * 1.05 + 1e-9;
    }
    double span = hi - lo;
    lo -= 0.05 * span;
    hi += 0.05 * span;
#define Y(val) (PAD_T + (hi - (val)) / (hi - lo) * (CHART_H - PAD_T - PAD_B))

    fputs("<div class=\"chart\" data-machine=\"", out);
    put_escaped(out, se->machine);
    fputs("\" data-variant=\"", out);
    put_escaped(out, se->label);
    fputs("\" data-kernel=\"", out);
    put_escaped(out, se->kernel);
    fputs("\"><h2>", out);
    put_escaped(out, se->key);
    fputs("</h2>\n", out);
    if (!isnan(v->noise[si].sd))
        fprintf(out, "<p class=\"noise\">%s: noise between runs %.1f %%, a step under %.1f %% "
                     "is unlikely to be found with %d commits after it</p>\n",
                v->opts.best ? "each commit's fastest round" : "each commit's median",
                100.0 * expm1(v->noise[si].sd), 100.0 * v->noise[si].detectable,
                GB_HISTORY_AFTER);
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                 "viewBox=\"0 0 %d %d\">\n", CHART_W, CHART_H, CHART_W, CHART_H);
    /* axes and their extremes */
    fprintf(out, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", PAD_L, PAD_T,
            PAD_L, CHART_H - PAD_B);
    fprintf(out, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", PAD_L,
            CHART_H - PAD_B, CHART_W - PAD_R, CHART_H - PAD_B);
    fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.4g us</text>", PAD_L - 4,
            Y(hi) + 10, hi);
    fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.4g us</text>\n", PAD_L - 4,
            Y(lo), lo);
    if (n > 0) {
        fprintf(out, "<text x=\"%d\" y=\"%d\">%.10s</text>", PAD_L, CHART_H - 8, pts[0].date);
        fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.10s</text>\n",
                CHART_W - PAD_R, CHART_H - 8, pts[n - 1].date);
    }
    /* the round spread: the band lo..hi */
    fputs("<polygon class=\"spread\" points=\"", out);
    for (int i = 0; i < n; i++)
        fprintf(out, "%.1f,%.1f ", x_of(i, n), Y(pts[i].hi_us));
    for (int i = n - 1; i >= 0; i--)
        fprintf(out, "%.1f,%.1f ", x_of(i, n), Y(pts[i].lo_us));
    /* the value the changes were found on: the median, or the fastest round */
#define VALUE(p) (v->opts.best ? (p).lo_us : (p).median_us)
    fputs("\"/>\n<polyline class=\"median\" points=\"", out);
    for (int i = 0; i < n; i++)
        fprintf(out, "%.1f,%.1f ", x_of(i, n), Y(VALUE(pts[i])));
    fputs("\"/>\n", out);
    for (int i = 0; i < n; i++) {
        fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\"><title>", x_of(i, n),
                Y(VALUE(pts[i])));
        put_escaped(out, pts[i].commit);
        fprintf(out, " %s: median %.4g us (rounds %.4g-%.4g)</title></circle>\n", pts[i].date,
                pts[i].median_us, pts[i].lo_us, pts[i].hi_us);
    }
#undef VALUE
    /* the change points, between the commit before and the one after */
    /* Each line labelled with its ratio and the first 12 characters of the
     * commit after it (the whole range is written under the chart); the
     * labels of one chart stepped down so that close ones do not overlap. */
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

int gb_history_write_html(FILE *out, const gb_history_view *v)
{
    int charts = 0;

    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<title>gemmbench history</title>\n<style>\n"
          "body{font:14px sans-serif;margin:1em 2em;color:#222}\n"
          "h2{font-size:13px;font-weight:normal;font-family:monospace;margin:1.2em 0 .2em}\n"
          ".noise{font-size:12px;color:#555;margin:0 0 .2em}\n"
          "svg text{font:10px sans-serif;fill:#444}\n"
          ".axis{stroke:#888}.spread{fill:#9cc3e6;opacity:.5;stroke:none}\n"
          ".median{fill:none;stroke:#1f5f99;stroke-width:1.5}circle{fill:#1f5f99}\n"
          ".change{stroke:#c0392b;stroke-dasharray:4 3}.change.known{stroke:#888}\n"
          "svg text.change-label{fill:#c0392b}.change-note{margin:.2em 0;font-size:12px}\n"
          ".hidden{display:none}\n</style></head><body>\n"
          "<h1>gemmbench history</h1>\n<p>", out);
    fprintf(out, "%d result files; per commit, the median time (line) and the spread of its "
                 "rounds' medians (band); dashed: a change point (E-divisive + t-test, "
                 "src/analysis/history.md), grey when annotated as known.</p>\n",
            v->store->nfiles);
    static const char *const filters[] = { "machine", "variant", "kernel" };
    fputs("<p>", out);
    for (int f = 0; f < 3; f++) {
        fprintf(out, "<label>%s <select id=\"f-%s\"><option value=\"\">all</option>",
                filters[f], filters[f]);
        put_options(out, v, f);
        fputs("</select></label> ", out);
    }
    fputs("<span id=\"shown\"></span></p>\n<div id=\"charts\">\n", out);
    for (int si = 0; si < v->store->nseries; si++) {
        if (v->npoints[si] == 0 || (v->opts.only_machine &&
                                    strcmp(v->store->series[si].machine, v->opts.only_machine)))
            continue;
        put_chart(out, v, si);
        charts++;
    }
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
