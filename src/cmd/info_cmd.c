/* info_cmd.c - `gemmbench info`: this machine's CPU, ISA, caches, measured
 * peaks (FP32, bf16, u8s8; whether AMX is there), what a parallel region
 * costs (forkjoin.c) and measured bandwidths (src/measure/bandwidth.md). */
#include <stdio.h>
#include <string.h>

#include "command.h"
#include "bandwidth.h"
#include "libraries.h"
#include "calibrate.h"
#include "variants.h"
#include "peak.h"
#include "forkjoin.h"
#include "sched_build.h"
#include "machine.h"
#include "options.h"
#include "roof.h"
#include "settings.h"

/* Trials of the fork/join figures: each a few milliseconds here. */
#define FORKJOIN_TRIALS 15

/* "  512 KiB" or " 128.0 MiB": working sets span KiB to GiB. */
static void format_bytes(char *buf, size_t len, size_t bytes)
{
    if (bytes < (size_t)1 << 20)
        snprintf(buf, len, "%zu KiB", bytes >> 10);
    else
        snprintf(buf, len, "%.1f MiB", (double)bytes / 1048576.0);
}

/* "48K", "2M", "1G": the sweep's sizes in a line of the curve. */
static void format_short(char *buf, size_t len, double bytes)
{
    if (bytes >= 1000.0 * 1024 * 1024)
        snprintf(buf, len, "%.3gG", bytes / (1024.0 * 1024 * 1024));
    else if (bytes >= 1000.0 * 1024)
        snprintf(buf, len, "%.3gM", bytes / (1024.0 * 1024));
    else
        snprintf(buf, len, "%.3gK", bytes / 1024.0);
}

/* The cache levels as reported and as the sweep measured them, each with
 * the size the roofs, the cold copies and the level probe use and why. */
static void print_levels(FILE *out, const gb_cache_levels *lv)
{
    static const char *const names[4] = { "", "L1d", "L2", "L3" };
    char a[32], b[32];

    if (!lv->swept) {
        fprintf(out, "cache levels   not swept (GEMMBENCH_BANDWIDTH=quick): the reported "
                     "sizes are used\n");
        return;
    }
    format_short(a, sizeof a, lv->npoints ? lv->bytes[0] : 0);
    format_short(b, sizeof b, lv->npoints ? lv->bytes[lv->npoints - 1] : 0);
    fprintf(out, "cache levels   measured: one thread's read rate against its working set, %s "
                 "to %s, %d points in %.1f s%s\n", a, b, lv->npoints, lv->seconds,
            lv->budget_cut ? " (stopped at its time budget)" : "");
    for (int l = 1; l <= 3; l++) {
        char used[32];
        if (lv->used[l] > 0)
            format_short(used, sizeof used, (double)lv->used[l]);
        else
            snprintf(used, sizeof used, "none");
        fprintf(out, "  %-12s %s -> %s", names[l], lv->why[l], used);
        if (lv->measured[l] > 0)
            fprintf(out, " (reads %.3g GB/s there)", lv->level_gbs[l]);
        fprintf(out, "\n");
    }
    if (lv->memory_gbs > 0.0)
        fprintf(out, "  %-12s reads %.3g GB/s past the last knee\n", "memory", lv->memory_gbs);
    fprintf(out, "  %-12s", "curve GB/s");
    for (int i = 0, col = 15; i < lv->npoints; i += 2) {   /* every other point */
        char one[48];
        format_short(a, sizeof a, lv->bytes[i]);
        snprintf(one, sizeof one, " %s:%.3g", a, lv->gbs[i]);
        if (col + (int)strlen(one) > 110) {
            fprintf(out, "\n%15s", "");
            col = 15;
        }
        col += fprintf(out, "%s", one);
    }
    fprintf(out, "\n");
}

static void print_bandwidth(FILE *out, const gb_bandwidth *bw)
{
    print_levels(out, &bw->levels);
    fprintf(out, "bandwidth      GB/s (1e9 bytes/s): the best of at least %d trials (more "
                 "within 50 ms), the median in parentheses;\n               read: a sum "
                 "over the working set, 4 streams per thread; triad: a = b + s c, 12 bytes "
                 "per element\n", bw->trials);
    fprintf(out, "%-8s %12s %24s %24s %12s %24s %24s\n", "level", "set 1 thr", "read 1 thread",
            "triad 1 thread", "set all", "read all threads", "triad all threads");
    for (int l = 0; l < GB_BW_LEVELS; l++) {
        const gb_bw_level *lv = &bw->level[l];
        char cells[6][40];
        for (int c = 0; c < 2; c++) {
            if (lv->bytes[c] == 0) {
                snprintf(cells[3 * c], 40, "-");
                snprintf(cells[3 * c + 1], 40, "not measured");
                snprintf(cells[3 * c + 2], 40, "-");
                continue;
            }
            format_bytes(cells[3 * c], 40, lv->bytes[c]);
            snprintf(cells[3 * c + 1], 40, "%.1f (%.1f)", lv->read_gbs[c],
                     lv->read_median_gbs[c]);
            snprintf(cells[3 * c + 2], 40, "%.1f (%.1f)", lv->triad_gbs[c],
                     lv->triad_median_gbs[c]);
        }
        fprintf(out, "%-8s %12s %24s %24s %12s %24s %24s\n", gb_bw_level_name(l), cells[0],
                cells[1], cells[2], cells[3], cells[4], cells[5]);
    }
    fprintf(out, "all threads    %d\n", bw->threads);
    for (int l = 0; l < GB_BW_LEVELS; l++)
        if (bw->threads > 1 && bw->level[l].bytes[1] > 0 &&
            bw->level[l].read_gbs[1] < bw->level[l].read_gbs[0])
            fprintf(out, "note           %s: all threads read less than one thread: a thread "
                         "was descheduled in every trial (a busy machine); the roofs use "
                         "one thread's figure there\n", gb_bw_level_name(l));
    if (bw->capped)
        fprintf(out, "note           memory's working set was capped at half of MemAvailable "
                     "(less than 4x the last-level cache)\n");
}

/* The reference libraries in this build and the kernels each chose here:
 * a library that did not recognise the CPU, or was told otherwise by its
 * environment, is not the ceiling it is taken for. */
static void print_libraries(FILE *out, const gb_machine *m)
{
    /* judged as a result file's are (libraries.h), on this machine's ISA */
    cJSON *machine = cJSON_CreateObject(), *isa = cJSON_AddArrayToObject(machine, "isa");

    cJSON_AddStringToObject(machine, "arch", m->arch);
    cJSON_AddStringToObject(machine, "cpu_model", m->cpu_model);
    for (int i = 0; i < m->nisa && isa; i++)
        cJSON_AddItemToArray(isa, cJSON_CreateString(m->isa[i]));
    for (size_t i = 0; i < gb_variant_count; i++) {
        gb_library lib;
        gb_library_note note;
        cJSON *one;

        if (gb_variant_library(gb_variants[i], &lib) != 0 || (one = cJSON_CreateObject()) == NULL)
            continue;
        cJSON_AddStringToObject(one, "version", lib.version);
        cJSON_AddStringToObject(one, "kernels", lib.kernels);
        if (lib.forced_by[0])
            cJSON_AddStringToObject(one, "forced_by", lib.forced_by);
        gb_library_note_of(gb_variants[i]->name, one, machine, NULL, &note);
        gb_library_note_print(out, &note, "library        ", "               ");
        cJSON_Delete(one);
    }
    cJSON_Delete(machine);
}

/* What a threaded call pays before its first FLOP (forkjoin.c): on a
 * guest where a system call costs a microsecond, a few percent of a small
 * shape's call, in every variant that opens a parallel region; packed's
 * own threads, what it pays instead. */
static void print_forkjoin(FILE *out, int threads)
{
    gb_forkjoin fj;

    if (gb_forkjoin_measure(threads, FORKJOIN_TRIALS, &fj) != 0)
        return;
    fprintf(out, "fork/join      an empty OpenMP region %.2f us on 1 thread", fj.region_1t_us);
    if (threads > 1)
        fprintf(out, ", %.2f us on %d threads", fj.region_us, threads);
    if (fj.syscall_us >= 0.0)
        fprintf(out, "; a system call %.2f us", fj.syscall_us);
    fprintf(out, " (medians of %d trials): every threaded call's fixed cost\n", fj.trials);
    if (fj.team_us >= 0.0)
        fprintf(out, "               packed's own threads (an empty call) %.2f us on %d "
                     "threads: what packed pays instead\n",
                fj.team_us, fj.threads);
    if (fj.trip_us >= 0.0)
        fprintf(out, "cpu to cpu     a cache line from cpu %d to cpu %d and back %.2f us (median of "
                     "%d trials): the price of a line one thread writes and another reads\n",
                fj.trip_cpus[0], fj.trip_cpus[1], fj.trip_us, fj.trials);
}

/* The schedule cache's objects (src/sched/cache.c): where, how many, how
 * large, and its bound.  A cache directory that cannot be used is said on
 * the line, not a failure of info (a run with --schedule fails on it). */
static void print_schedule_cache(FILE *out)
{
    char dir[4096], err[GB_ERR_LEN];
    long objects;
    long long bytes;

    if (gb_sched_cache_usage(dir, sizeof dir, &objects, &bytes, err, sizeof err) != 0)
        fprintf(out, "schedules      no cache: %s\n", err);
    else
        fprintf(out, "schedules      %ld compiled object%s in %s (%.1f MB); the %d most recently "
                "used are kept\n", objects, objects == 1 ? "" : "s", dir, (double)bytes / 1e6,
                GB_SCHED_CACHE_MAX_OBJECTS);
}

static const char info_intro[] =
    "usage: gemmbench info\n"
    "  prints this machine's CPU, ISA, caches, measured FP32, bf16 and u8s8 peaks\n"
    "  (and whether the CPU has AMX), the cost of an empty OpenMP region and of a\n"
    "  system call, the schedule cache's compiled objects, packed's calibration,\n"
    "  and measured read and triad bandwidths at L2, L3 and memory\n"
    "  (src/measure/bandwidth.md)\n";

/* info's one setting, --help. */
static int store_setting(void *target, const gb_setting *s, const gb_setting_value *v,
                         char *err, size_t errlen)
{
    (void)v, (void)err, (void)errlen;
    *(int *)target = s->id == GB_SET_HELP;
    return 0;
}

int gb_cmd_info(int argc, char **argv)
{
    gb_machine m;
    char err[GB_ERR_LEN];
    int help = 0;
    /* argv[1] is "info": getopt sees it as the program name. */
    int first = gb_settings_parse_args(GB_CMD_INFO, argc - 1, argv + 1, 0, store_setting, &help,
                                       err, sizeof err);

    if (first < 0)
        return gb_usage("info", "%s", err);
    if (help)
        return gb_help_command("info", GB_CMD_INFO, info_intro, "");
    if (first < argc - 1)
        return gb_usage("info", "info takes no arguments");
    if (gb_calibration_mode_check(err, sizeof err) != 0)
        return gb_fail(GB_EXIT_USAGE, "info", "%s", err);
    gb_machine_detect(&m);
    gb_machine_print(stdout, &m);
    print_libraries(stdout, &m);
    gb_peak_info(stdout, &m);
    print_forkjoin(stdout, m.affinity_cpus > 0 ? m.affinity_cpus : 1);
    print_schedule_cache(stdout);
    /* The calibration at the peak's two counts: one thread and all. */
    for (int all = 0; all < 2; all++) {
        const int threads = all ? m.affinity_cpus : 1;
        gb_calibration c;
        char why[512];
        int rc;
        if (all && threads <= 1)
            break;
        rc = gb_calibration_ensure(&m, threads, 1, &c, err, sizeof err);
        if (rc != 0)
            return gb_fail(rc == -1 ? GB_EXIT_USAGE : GB_EXIT_IO, "info", "%s", err);
        for (int q = 0; q < GB_CALIB_QUESTIONS; q++) {
            gb_calibration_describe(&c, q, why, sizeof why);
            printf("calibration    packed at %d thread%s, %s: %s\n", threads,
                   threads > 1 ? "s" : "", gb_calib_questions[q].about, why);
        }
        if (threads > 1) {
            gb_calibration_describe_threads(&c, why, sizeof why);
            printf("calibration    packed at %d threads, what they cost a call: %s\n", threads,
                   why);
        }
    }
    fflush(stdout);
    if (gb_machine_measure_bandwidth(&m, m.affinity_cpus, err, sizeof err) != 0)
        return gb_fail(GB_EXIT_IO, "info", "%s", err);
    print_bandwidth(stdout, &m.bw);
    return gb_finish_stdout("info");
}
