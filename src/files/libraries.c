/* libraries.c - the reference libraries' kernels judged; see libraries.h. */
#define _GNU_SOURCE
#include "libraries.h"

#include <string.h>
#include <strings.h>

/* Instruction-set levels, in order: a library's kernels below the
 * machine's level are not this CPU's best path. */
enum { ISA_UNKNOWN = -1, ISA_PORTABLE, ISA_SSE, ISA_AVX, ISA_AVX2, ISA_AVX512 };

static const char *const isa_names[] = { "portable C", "SSE", "AVX", "AVX2", "AVX-512" };

/* A kernel set's name and its level, per library: adding a core is a line.
 * OpenBLAS's cores (its gotoblas names), BLIS 0.9's sub-configurations,
 * libxsmm's targets; oneDNN's ISA names are read by prefix (isa_of). */
typedef struct kernel_isa {
    const char *library, *kernels;
    int level;
} kernel_isa;

static const kernel_isa kernel_isas[] = {
    { "openblas", "SkylakeX", ISA_AVX512 },   { "openblas", "Cooperlake", ISA_AVX512 },
    { "openblas", "SapphireRapids", ISA_AVX512 },
    { "openblas", "Haswell", ISA_AVX2 },      { "openblas", "Zen", ISA_AVX2 },
    { "openblas", "Excavator", ISA_AVX2 },
    { "openblas", "Sandybridge", ISA_AVX },   { "openblas", "Bulldozer", ISA_AVX },
    { "openblas", "Piledriver", ISA_AVX },    { "openblas", "Steamroller", ISA_AVX },
    { "openblas", "Prescott", ISA_SSE },      { "openblas", "Core2", ISA_SSE },
    { "openblas", "Penryn", ISA_SSE },        { "openblas", "Dunnington", ISA_SSE },
    { "openblas", "Nehalem", ISA_SSE },       { "openblas", "Atom", ISA_SSE },
    { "openblas", "Barcelona", ISA_SSE },     { "openblas", "Nano", ISA_SSE },
    { "openblas", "Opteron", ISA_SSE },       { "openblas", "Opteron(SSE3)", ISA_SSE },
    { "blis", "skx", ISA_AVX512 },            { "blis", "knl", ISA_AVX512 },
    { "blis", "zen4", ISA_AVX512 },
    { "blis", "haswell", ISA_AVX2 },          { "blis", "zen", ISA_AVX2 },
    { "blis", "zen2", ISA_AVX2 },             { "blis", "zen3", ISA_AVX2 },
    { "blis", "sandybridge", ISA_AVX },       { "blis", "excavator", ISA_AVX },
    { "blis", "steamroller", ISA_AVX },       { "blis", "piledriver", ISA_AVX },
    { "blis", "bulldozer", ISA_AVX },         { "blis", "penryn", ISA_SSE },
    { "blis", "generic", ISA_PORTABLE },
    { "libxsmm", "spr", ISA_AVX512 },         { "libxsmm", "cpx", ISA_AVX512 },
    { "libxsmm", "clx", ISA_AVX512 },         { "libxsmm", "skx", ISA_AVX512 },
    { "libxsmm", "knl", ISA_AVX512 },         { "libxsmm", "knm", ISA_AVX512 },
    { "libxsmm", "hsw", ISA_AVX2 },           { "libxsmm", "snb", ISA_AVX },
    { "libxsmm", "wsm", ISA_SSE },            { "libxsmm", "generic", ISA_PORTABLE },
};

static const char *display_name(const char *variant);

static int isa_of(const char *library, const char *kernels)
{
    for (size_t i = 0; i < sizeof kernel_isas / sizeof kernel_isas[0]; i++)
        if (strcmp(kernel_isas[i].library, library) == 0 &&
            strcasecmp(kernel_isas[i].kernels, kernels) == 0)
            return kernel_isas[i].level;
    if (strcmp(library, "onednn") == 0) {   /* "avx512_core_bf16", "avx2", "sse41" */
        if (strncmp(kernels, "avx512", 6) == 0 || strncmp(kernels, "avx10", 5) == 0 ||
            strstr(kernels, "amx") != NULL)
            return ISA_AVX512;
        if (strncmp(kernels, "avx2", 4) == 0)
            return ISA_AVX2;
        if (strncmp(kernels, "avx", 3) == 0)
            return ISA_AVX;
        if (strncmp(kernels, "sse", 3) == 0)
            return ISA_SSE;
    }
    return ISA_UNKNOWN;
}

static int has_flag(const cJSON *isa, const char *flag)
{
    const cJSON *item;

    cJSON_ArrayForEach(item, isa)
        if (cJSON_IsString(item) && strcmp(item->valuestring, flag) == 0)
            return 1;
    return 0;
}

/* The machine's best level for single-precision GEMM, from machine.isa;
 * unknown off x86 (no judgement there). */
static int machine_level(const cJSON *machine)
{
    const cJSON *isa = cJSON_GetObjectItemCaseSensitive(machine, "isa");
    const cJSON *arch = cJSON_GetObjectItemCaseSensitive(machine, "arch");

    if (cJSON_IsString(arch) && strcmp(arch->valuestring, "x86_64") != 0)
        return ISA_UNKNOWN;
    if (has_flag(isa, "avx512f"))
        return ISA_AVX512;
    if (has_flag(isa, "avx2") && has_flag(isa, "fma"))
        return ISA_AVX2;
    if (has_flag(isa, "avx"))
        return ISA_AVX;
    if (cJSON_GetArraySize(isa) > 0)
        return ISA_SSE;
    return ISA_UNKNOWN;
}

static int is_amd(const cJSON *machine)
{
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(machine, "cpu_model");
    return cJSON_IsString(model) && strstr(model->valuestring, "AMD") != NULL;
}

/* What each library would run at the machine's level, and how to ask. */
static void suggest(gb_library_note *n, int level, int amd, const char *forced)
{
    const char *core;

    if (strcmp(n->name, "openblas") == 0) {
        if (forced[0]) {
            snprintf(n->change, sizeof n->change, "unset %.*s: OpenBLAS then chooses its "
                     "kernels from CPUID", (int)strcspn(forced, "="), forced);
            return;
        }
        core = level == ISA_AVX512 ? "SkylakeX" : level == ISA_AVX2 ? (amd ? "Zen" : "Haswell")
                                                                    : "Sandybridge";
        snprintf(n->change, sizeof n->change,
                 "OPENBLAS_CORETYPE=%s in the environment chooses its %s kernels", core,
                 isa_names[level]);
    } else if (strcmp(n->name, "blis") == 0) {
        core = level == ISA_AVX512 ? "skx" : level == ISA_AVX2 ? (amd ? "zen3" : "haswell")
                                                               : "sandybridge";
        snprintf(n->change, sizeof n->change, "--blis-arch %s (bench.conf blis_arch) chooses "
                 "its %s sub-configuration", core, isa_names[level]);
    } else if (forced[0]) {
        snprintf(n->change, sizeof n->change, "unset %.*s", (int)strcspn(forced, "="), forced);
    }
}

void gb_library_note_of(const char *name, const cJSON *lib, const cJSON *machine,
                        const cJSON *run, gb_library_note *n)
{
    const cJSON *chosen = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(run, "config"), "blis_arch");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(lib, "version");
    const cJSON *kernels = cJSON_GetObjectItemCaseSensitive(lib, "kernels");
    const cJSON *forced = cJSON_GetObjectItemCaseSensitive(lib, "forced_by");
    const char *forced_by = cJSON_IsString(forced) ? forced->valuestring : "";
    int level, best = machine_level(machine);

    memset(n, 0, sizeof *n);
    snprintf(n->name, sizeof n->name, "%s", name);
    snprintf(n->version, sizeof n->version, "%s",
             cJSON_IsString(version) ? version->valuestring : "");
    snprintf(n->kernels, sizeof n->kernels, "%s",
             cJSON_IsString(kernels) ? kernels->valuestring : "");
    level = isa_of(name, n->kernels);
    n->isa = level == ISA_UNKNOWN ? "" : isa_names[level];
    if (level == ISA_UNKNOWN || best == ISA_UNKNOWN || level >= best)
        return;
    n->flagged = 1;
    if (forced_by[0] && strcmp(name, "blis") == 0 && cJSON_IsString(chosen))
        snprintf(n->why, sizeof n->why, "--blis-arch %s (%s) chose them", chosen->valuestring,
                 forced_by);
    else if (forced_by[0])
        snprintf(n->why, sizeof n->why, "%s forced them", forced_by);
    else if (strcmp(name, "blis") == 0 && level == ISA_PORTABLE)
        snprintf(n->why, sizeof n->why, "BLIS %s has no sub-configuration for this CPU",
                 n->version);
    else
        snprintf(n->why, sizeof n->why, "%s %s chose them from CPUID", display_name(name),
                 n->version);
    suggest(n, best, is_amd(machine), forced_by);
}

/* The library as its authors write it. */
static const char *display_name(const char *variant)
{
    static const char *const names[][2] = {
        { "openblas", "OpenBLAS" }, { "blis", "BLIS" }, { "onednn", "oneDNN" },
        { "libxsmm", "libxsmm" },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(names[i][0], variant) == 0)
            return names[i][1];
    return variant;
}

/* Whether f has entries of the variant name (its library ran). */
static int ran(const gb_result_file *f, const char *name)
{
    for (int i = 0; i < f->nentries; i++)
        if (strcmp(f->entries[i].variant, name) == 0)
            return 1;
    return 0;
}

int gb_library_notes(const gb_result_file *f, gb_library_note *notes, int max)
{
    const cJSON *libs = cJSON_GetObjectItemCaseSensitive(f->tool, "libraries"), *lib;
    int n = 0;

    cJSON_ArrayForEach(lib, libs) {
        if (n == max)
            break;
        if (cJSON_IsObject(lib) && lib->string && ran(f, lib->string))
            gb_library_note_of(lib->string, lib, f->machine, f->run, &notes[n++]);
    }
    return n;
}

void gb_library_note_print(FILE *out, const gb_library_note *n, const char *prefix,
                           const char *indent)
{
    fprintf(out, "%s%s%s%s runs %s kernels", prefix, n->name, n->version[0] ? " " : "",
            n->version, n->kernels[0] ? n->kernels : "unknown");
    if (n->isa[0])
        fprintf(out, " (%s)", n->isa);
    if (n->flagged) {
        fprintf(out, ": NOT this CPU's best path, %s", n->why);
        if (n->change[0])
            fprintf(out, ";\n%s%s", indent, n->change);
    }
    fprintf(out, "\n");
}

void gb_library_notes_brief(FILE *out, const gb_library_note *notes, int n)
{
    for (int i = 0; i < n; i++)
        fprintf(out, "%s%s %s%s%s%s%s", i ? ", " : "", notes[i].name,
                notes[i].kernels[0] ? notes[i].kernels : "unknown", notes[i].isa[0] ? " (" : "",
                notes[i].isa, notes[i].flagged ? ", NOT this CPU's best path" : "",
                notes[i].isa[0] ? ")" : "");
}
