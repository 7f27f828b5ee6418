/*
 * run_notes.c - the notes the run command prints under its table, one
 * kind a function (run_view.h): the variants skipped in a type and why
 * (also the result file's "skipped"), the code each typed entry ran, the
 * entries that beat their roof, the reference libraries' kernels.
 */
#include "run_view.h"

#include <stdio.h>
#include <string.h>

#include "libraries.h"
#include "output.h"
#include "roof.h"

/* The selected variants that do not run a type of the run, each with its
 * reason: in the file's "skipped" (doc), or under the table (out; NULL:
 * not printed).  0, or -1 when out of memory. */
int gb_run_note_skipped(const gb_options *o, const gb_selection *sel, cJSON *doc, FILE *out)
{
    for (int i = 0; i < o->ndtypes; i++)
        for (int v = 0; v < sel->nvariants; v++) {
            char why[256];
            int s = 0;
            while (s < sel->nshapes && sel->shapes[s].dtype != o->dtypes[i])
                s++;
            if (s == sel->nshapes || gb_selection_runs(sel, v, s, why, sizeof why))
                continue;
            if (out)
                fprintf(out, "skipped: %s in %s: %s\n", sel->variants[v]->name,
                        gb_dtype_name(o->dtypes[i]), why);
            if (doc && gb_json_add_skipped(doc, sel->variants[v]->name, o->dtypes[i], why) != 0)
                return -1;
        }
    return 0;
}

/* Under the table: which code each typed entry ran, once per variant, type
 * and implementation (packed's avx512_bf16 or portable; oneDNN's choice,
 * which may differ between shapes). */
void gb_run_note_impls(FILE *out, const gb_runner *r)
{
    for (int i = 0; i < r->nentries; i++) {
        const gb_result *a = &r->entries[i].result;
        int seen = 0;
        if (!r->entries[i].measured || a->impl[0] == '\0')
            continue;
        for (int j = 0; j < i && !seen; j++) {
            const gb_result *b = &r->entries[j].result;
            seen = r->entries[j].measured && b->variant == a->variant && b->dtype == a->dtype &&
                   strcmp(b->impl, a->impl) == 0;
        }
        if (!seen)
            fprintf(out, "impl: %s in %s: %s\n", a->variant->name, gb_dtype_name(a->dtype),
                    a->impl);
    }
}

/* Under the table: entries that beat their roof, whose %roof the table
 * shows as "!roof" (roof.h). */
void gb_run_note_roofs_low(FILE *out, const gb_runner *r)
{
    int low = 0;

    for (int i = 0; i < r->nentries; i++)
        low += r->entries[i].measured && gb_roof_measured_low(r->entries[i].result.roof_pct);
    if (low)
        fprintf(out, "!roof: %d entr%s beat %s roof (%%roof above %.0f): the roof's bandwidth "
                     "was measured low (a busy machine); gemmbench info measures it again\n",
                low, low == 1 ? "y" : "ies", low == 1 ? "its" : "their", GB_ROOF_PCT_LOW);
}

/* Under the table: the kernels each reference library that ran chose, and
 * when they are not this CPU's best path, why and what would change it
 * (libraries.h). */
void gb_run_note_libraries(FILE *out, const cJSON *doc, const gb_runner *r)
{
    const cJSON *tool = cJSON_GetObjectItemCaseSensitive(doc, "tool");
    const cJSON *libs = cJSON_GetObjectItemCaseSensitive(tool, "libraries"), *lib;

    cJSON_ArrayForEach(lib, libs) {
        gb_library_note note;
        int measured = 0;
        for (int i = 0; i < r->nentries && !measured; i++)
            measured = r->entries[i].measured && lib->string &&
                       strcmp(r->entries[i].result.variant->name, lib->string) == 0;
        if (!measured)
            continue;
        gb_library_note_of(lib->string, lib, cJSON_GetObjectItemCaseSensitive(doc, "machine"),
                           cJSON_GetObjectItemCaseSensitive(doc, "run"), &note);
        gb_library_note_print(out, &note, "library: ", "         ");
    }
}

