/*
 * fuzz_resultfile.c - a result file as compare and report read it: loaded
 * and validated, then (when valid) compared with itself and reported, so
 * that what the reader lets through is used as the commands use it.
 */
#include "compare.h"
#include "fuzz_util.h"
#include "report.h"
#include "resultfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static gb_result_file f;
    char err[512];
    FILE *sink;

    if (gb_result_file_load(fuzz_file(data, size), &f, err, sizeof err) != 0) {
        if (err[0] == '\0')
            abort();
        return 0;
    }
    sink = fopen("/dev/null", "w");
    if (sink == NULL)
        abort();
    {
        gb_report_opts o;
        memset(&o, 0, sizeof o);
        gb_report_write(sink, &f, &o, err, sizeof err);
    }
    {
        gb_compare_opts o;
        gb_compare c;
        memset(&o, 0, sizeof o);
        o.alpha = 0.05;
        o.threshold_pct = 5.0;
        o.min_samples = 3;
        if (gb_compare_files(&f, &f, &o, &c, err, sizeof err) == 0) {
            gb_compare_write(sink, GB_FMT_TABLE, &c);
            gb_compare_write(sink, GB_FMT_JSON, &c);
            gb_compare_free(&c);
        }
    }
    fclose(sink);
    gb_result_file_free(&f);
    return 0;
}
