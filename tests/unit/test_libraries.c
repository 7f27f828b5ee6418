/*
 * test_libraries.c - the reference libraries' kernels judged against the
 * machine (libraries.c), on the machine and tool blocks of the two kinds the
 * project runs on: the AMD EPYC guest (AVX-512) whose BLIS 0.9.0 runs its
 * generic kernels and whose OpenBLAS was forced to Haswell, and the Intel
 * Xeon guest whose OpenBLAS 0.3.21 picks Prescott and BLIS haswell.
 */
#define _GNU_SOURCE
#include "test.h"

#include "libraries.h"

#include <stdlib.h>

#define AVX512_MACHINE(cpu) \
    "{\"cpu_model\":\"" cpu "\",\"arch\":\"x86_64\",\"isa\":[\"avx512f\",\"avx2\",\"fma\",\"avx\"]}"

static gb_library_note judge(const char *name, const char *lib, const char *machine,
                             const char *run)
{
    cJSON *l = cJSON_Parse(lib), *m = cJSON_Parse(machine), *r = run ? cJSON_Parse(run) : NULL;
    gb_library_note n;

    gb_library_note_of(name, l, m, r, &n);
    cJSON_Delete(l);
    cJSON_Delete(m);
    cJSON_Delete(r);
    return n;
}

TEST(library_notes_amd_kind)
{
    gb_library_note n;

    n = judge("blis", "{\"version\":\"0.9.0\",\"kernels\":\"generic\"}", AVX512_MACHINE("AMD EPYC"),
              NULL);
    CHECK(n.flagged);
    CHECK_STR(n.isa, "portable C");
    CHECK_STR(n.why, "BLIS 0.9.0 has no sub-configuration for this CPU");
    CHECK(strstr(n.change, "--blis-arch skx") != NULL);

    n = judge("openblas",
              "{\"version\":\"0.3.21\",\"kernels\":\"Haswell\",\"forced_by\":"
              "\"OPENBLAS_CORETYPE=Haswell\"}",
              AVX512_MACHINE("AMD EPYC"), NULL);
    CHECK(n.flagged);
    CHECK_STR(n.why, "OPENBLAS_CORETYPE=Haswell forced them");
    CHECK(strncmp(n.change, "unset OPENBLAS_CORETYPE", 23) == 0);

    n = judge("onednn", "{\"version\":\"2.6.3\",\"kernels\":\"avx512_core_bf16\"}",
              AVX512_MACHINE("AMD EPYC"), NULL);
    CHECK(!n.flagged);
    CHECK_STR(n.isa, "AVX-512");
}

TEST(library_notes_xeon_kind)
{
    gb_library_note n;
    FILE *out;
    char *text = NULL;
    size_t len = 0;

    n = judge("openblas", "{\"version\":\"0.3.21\",\"kernels\":\"Prescott\"}",
              AVX512_MACHINE("Intel(R) Xeon(R) Processor"), NULL);
    CHECK(n.flagged);
    CHECK_STR(n.isa, "SSE");
    CHECK_STR(n.why, "OpenBLAS 0.3.21 chose them from CPUID");
    CHECK(strstr(n.change, "OPENBLAS_CORETYPE=SkylakeX") != NULL);
    out = open_memstream(&text, &len);
    CHECK(out != NULL);
    if (out) {
        gb_library_note_print(out, &n, "library: ", "    ");
        fclose(out);
        CHECK_STR(text, "library: openblas 0.3.21 runs Prescott kernels (SSE): NOT this CPU's "
                        "best path, OpenBLAS 0.3.21 chose them from CPUID;\n    "
                        "OPENBLAS_CORETYPE=SkylakeX in the environment chooses its AVX-512 "
                        "kernels\n");
        free(text);
    }

    /* --blis-arch's choice is named as such */
    n = judge("blis", "{\"version\":\"0.9.0\",\"kernels\":\"zen3\",\"forced_by\":"
              "\"BLIS_ARCH_TYPE=6\"}", AVX512_MACHINE("Intel(R) Xeon(R) Processor"),
              "{\"config\":{\"blis_arch\":\"zen3\"}}");
    CHECK(n.flagged);
    CHECK_STR(n.why, "--blis-arch zen3 (BLIS_ARCH_TYPE=6) chose them");
    n = judge("blis", "{\"version\":\"0.9.0\",\"kernels\":\"skx\",\"forced_by\":"
              "\"BLIS_ARCH_TYPE=0\"}", AVX512_MACHINE("Intel(R) Xeon(R) Processor"),
              "{\"config\":{\"blis_arch\":\"skx\"}}");
    CHECK(!n.flagged);
}

/* Where the machine's best is AVX2 those kernels are its best; off x86, or
 * with kernels it does not know, nothing is judged. */
TEST(library_notes_no_false_flags)
{
    gb_library_note n;
    const char *avx2 = "{\"cpu_model\":\"AMD EPYC 7B12\",\"arch\":\"x86_64\","
                       "\"isa\":[\"avx2\",\"fma\",\"avx\"]}";

    n = judge("openblas", "{\"version\":\"0.3.21\",\"kernels\":\"Zen\"}", avx2, NULL);
    CHECK(!n.flagged && strcmp(n.isa, "AVX2") == 0);
    n = judge("blis", "{\"version\":\"0.9.0\",\"kernels\":\"generic\"}", avx2, NULL);
    CHECK(n.flagged && strstr(n.change, "--blis-arch zen3") != NULL);
    n = judge("blis", "{\"version\":\"0.9.0\",\"kernels\":\"generic\"}",
              "{\"arch\":\"aarch64\",\"isa\":[\"neon\"]}", NULL);
    CHECK(!n.flagged);
    n = judge("openblas", "{\"version\":\"0.3.30\",\"kernels\":\"Zen5\"}",
              AVX512_MACHINE("AMD EPYC"), NULL);
    CHECK(!n.flagged && n.isa[0] == '\0');
}
