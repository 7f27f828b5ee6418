/* machine.h - what the run ran on: the machine block of every result file. */
#ifndef GB_MACHINE_H
#define GB_MACHINE_H

#include <stddef.h>
#include <stdio.h>

#include "topology.h"

#define GB_MAX_CACHES 8

typedef struct gb_cache {
    int level;
    char type[16];          /* Data, Instruction, Unified */
    long size_bytes;
    int line_bytes;
    int ways;               /* associativity; 0 unknown, -1 fully associative */
    char shared_cpus[64];   /* shared_cpu_list from sysfs */
} gb_cache;

/* The bandwidths measured at each level a GEMM's operands can live in
 * (src/measure/bandwidth.c measures them, src/measure/bandwidth.md says how). */
enum { GB_BW_L2 = 0, GB_BW_L3, GB_BW_MEM, GB_BW_LEVELS };

/* One level's figures; index 0 one thread, 1 all threads.  0: not measured. */
typedef struct gb_bw_level {
    size_t bytes[2];         /* working set of the whole measurement */
    double read_gbs[2];      /* best trial, GB/s (1e9 bytes) */
    double read_median_gbs[2];
    double triad_gbs[2];     /* a[i] = b[i] + s * c[i]: 12 bytes per element */
    double triad_median_gbs[2];
} gb_bw_level;

/* The cache levels the bandwidth sweep found (src/measure/bandwidth.md,
 * "Cache levels measured"): one thread's read rate against its working set
 * from 16 KiB up, the knees of that curve matched to L1d, L2 and L3 (index
 * 1..3), and what the roofs, the cold copies and the level probe use. */
#define GB_SWEEP_MAX_POINTS 96
typedef struct gb_cache_levels {
    int swept;               /* 1 when the sweep ran */
    int npoints;
    double bytes[GB_SWEEP_MAX_POINTS];   /* ascending working sets */
    double gbs[GB_SWEEP_MAX_POINTS];     /* best read rate at each, GB/s */
    int budget_cut;          /* the sweep stopped at its time budget */
    double seconds;          /* what it took, touch_seconds included */
    double touch_seconds;    /* the set's first touch (outside the budget) */
    long reported[4];        /* sysfs/hwloc's sizes, by level; 0 none */
    long measured[4];        /* the knee matched to the level; 0 none found */
    double level_gbs[4];     /* the plateau of the level's own reads */
    double memory_gbs;       /* the plateau past the last knee */
    long used[4];            /* the size the run uses: measured where they disagree */
    char why[4][192];        /* how used was chosen, per level */
} gb_cache_levels;

typedef struct gb_bandwidth {
    gb_cache_levels levels;  /* the sweep (levels.swept 0: not run) */
    int measured;            /* 1 when at least one figure is in */
    int threads;             /* the "all threads" count */
    int trials;              /* per figure, at least (src/measure/bandwidth.md) */
    int capped;              /* memory's working set was capped by MemAvailable */
    int quick;               /* GEMMBENCH_BANDWIDTH=quick: the tests' probe */
    gb_bw_level level[GB_BW_LEVELS];
} gb_bandwidth;

/* The level's name: "L2", "L3", "memory". */
const char *gb_bw_level_name(int level);

/* Where the run ran when a Slurm job started it (from the SLURM_* variables
 * of the job's environment and the affinity mask; results/FORMAT.md). */
typedef struct gb_slurm {
    int present;             /* SLURM_JOB_ID is set */
    long job_id;             /* SLURM_JOB_ID; -1 unknown */
    long array_job_id;       /* SLURM_ARRAY_JOB_ID; -1 not an array task */
    long array_task_id;      /* SLURM_ARRAY_TASK_ID; -1 not an array task */
    char node[256];          /* SLURMD_NODENAME (Slurm's node name) */
    char partition[128];     /* SLURM_JOB_PARTITION */
    int cpus;                /* the CPUs allotted on this node: SLURM_CPUS_ON_NODE,
                              * capped by the affinity mask; 0 unknown */
} gb_slurm;

/* packed's regime choices calibrated on the machine, per thread count
 * (src/measure/calibrate.c, include/calibrate.h): how it reads an operand
 * whose rows are a page or more apart, B (mlp_expand's, N = 3072) and A
 * (mlp_reduce's, K = 3072); each read in place, or copied (B into the
 * pre-packed layout by the first A micro-panel's pass, A packed micro-panel
 * by micro-panel on first use); and, where B is read in place and fused,
 * whether the first A micro-panel's pass copies each B micro-panel for the
 * later passes (from FUSED_COPY_FMAS up, packed_plan.c) or every pass reads
 * it in place; and where B's rows are a page or more apart and read in
 * place, whether the kernel also prefetches them into L1 a few rows ahead
 * (the distance of packed_plan.c's set rule) or into L2 only; and whether
 * kc is capped by A's micro-panel in half of L1d or by BLIS's analytical
 * model (L1d's ways, gb_blis_kc_cap); and, where B's rows are under a page
 * apart and an A block holds fewer than M rows (so that B read in place is
 * read again from L3 for every A block), whether it is read in place or
 * copied into a packed block by the first A micro-panel's pass (panel
 * fused); and, where B's rows are a page or more apart and every pass
 * reads them in place while the next B micro-panel is prefetched into L2,
 * whether the kernel also prefetches each row into L2 16 rows ahead; and
 * there, whether kc is cut to the rows L2 has places for (gb_places_rows);
 * and, where B's rows are a page or more apart and read fused (jr outer)
 * with many rows of A (from PANEL_MANY_ROWS, packed_plan.c), whether it
 * stays fused or is panel fused (ir outer, each B block copied by the
 * first A micro-panel's pass); and, where B's rows are under a page apart
 * and read in place by every pass of two A micro-panels or fewer (jr
 * outer), whether each pass also prefetches its share of the next B
 * micro-panel into L2.
 * Answer 0 is the rule's (in place; L1; half of L1d; on), answer 1 the
 * other (copied; L2 only; L1d's ways; off). */
enum { GB_CALIB_B = 0, GB_CALIB_A, GB_CALIB_BCOPY, GB_CALIB_BPREFETCH, GB_CALIB_KC,
       GB_CALIB_BNEAR, GB_CALIB_BFAR, GB_CALIB_KCPLACES, GB_CALIB_BMANY,
       GB_CALIB_BNEARNEXT, GB_CALIB_QUESTIONS };
enum { GB_READ_IN_PLACE = 0, GB_READ_COPIED, GB_READ_CHOICES };
/* One per count of a --threads list (GB_MAX_THREAD_COUNTS). */
#define GB_MAX_CALIBRATIONS 64

typedef struct gb_calib_answer {
    int read;                /* GB_READ_IN_PLACE or GB_READ_COPIED: the question's
                              * answers[0] or answers[1] */
    double ratio;            /* time of answer 0 / time of answer 1, the median round's;
                              * 0: not measured (forced or default) */
    double ratio_p10, ratio_p90;
    int same_plan;           /* 1: on this machine both answers make the same plan at
                              * the question's shapes (its param not asked there, or
                              * asked to no effect): nothing timed, answer 0, ratio 0 */
} gb_calib_answer;

typedef struct gb_calibration {
    int threads;
    int rounds;              /* 0: not measured */
    char source[16];         /* "measured", "cached", "forced", "default" */
    gb_calib_answer answer[GB_CALIB_QUESTIONS];
    /* What a call at more than one thread pays for them (threads > 1;
     * 0: not measured): packed's median call on GB_CALIB_SMALL cubed at
     * one thread and at `threads`, whose difference from its share of the
     * work is the threaded call's own cost (its parallel region, the other
     * threads' start).  packed runs a call on one thread where the busiest
     * thread's saving is no more than that (packed_plan.h,
     * packed_threads_for_work). */
    double small_us;
    double small_t_us;
} gb_calibration;
/* The small call's M = K = N: a few microseconds of packed's work. */
#define GB_CALIB_SMALL 64

/* Copied only when in place measured more than 10 % slower: closer than
 * that the two are one regime on a shared machine, and in place is the one
 * that copies nothing (src/machine/calibration.c). */
#define GB_CALIB_COPIED_RATIO 1.10
/* bfar off only when the L2 prefetch measured more than 2 % slower: the
 * calibration times each answer's fastest call, which a prefetch that
 * spares the slower calls does not move, so a tie keeps it
 * (src/machine/calibration.c). */
#define GB_CALIB_BFAR_OFF_ABOVE 1.02

/* What a question times: two BERT shapes (M[0], M[1] x K x N), and the
 * --param of packed that answers it, with the params that put packed in
 * the regime the question is about. */
typedef struct gb_calib_question {
    const char *name;        /* "b", "a", "bcopy": the JSON's */
    const char *label;       /* --explain's: "B read", "A read", "B copy rule" */
    const char *about;       /* info's: "B rows a page or more apart", ... */
    int M[2], K, N;
    const char *param;       /* "bread", "aread", "bcopy" */
    const char *fixed;       /* "" or params set for both answers, "bpack=fused," */
    double copied_above;     /* answer 1 when answer 0's time / answer 1's exceeds this */
    const char *const *answers; /* the names, gb_read_names or gb_prefetch_names */
    const char *words[2];    /* the answers in prose: "in place", "copied" */
    const char *shapes;      /* "mlp_expand M=16,64 (K 768, N 3072)" */
} gb_calib_question;
extern const gb_calib_question gb_calib_questions[GB_CALIB_QUESTIONS];
/* The answers' names, "in_place" and "copied" (--param bread, aread,
 * bcopy), and "l1" and "l2" (--param bprefetch). */
extern const char *const gb_read_names[];
extern const char *const gb_prefetch_names[];
/* kcrule's answers: "l1_half" (A's micro-panel in half of L1d) and
 * "l1_ways" (BLIS's analytical model, gb_blis_kc_cap). */
extern const char *const gb_kc_rule_names[];
/* bprefetch's answers by name (GB_READ_IN_PLACE and GB_READ_COPIED's
 * indices). */
enum { GB_PREFETCH_L1 = 0, GB_PREFETCH_L2 = 1 };
/* bfar's, kcplaces' and bnearnext's answers: "on" (bfar: B read in place
 * by every pass, its rows a page or more apart, is prefetched into L2 16
 * rows ahead as well as by the next micro-panel's prefetch; kcplaces: kc
 * is cut to the rows L2 has places for; bnearnext: B's rows under a page
 * apart, few passes, the next micro-panel is prefetched into L2) and "off"
 * (by the next micro-panel's prefetch alone; kc as L1 and L2's shares give
 * it; not prefetched). */
extern const char *const gb_on_off_names[];
enum { GB_ON = 0, GB_OFF = 1 };



typedef struct gb_machine {
    char hostname[256];
    char cpu_model[256];
    char cpu_id[128];       /* "cpu family 25, model 17, stepping 1" (x86), or the
                             * CPU implementer, part and revision (aarch64); "" unknown */
    char arch[32];
    int logical_cpus;       /* online */
    int affinity_cpus;      /* CPUs this process may run on */
    char isa[8][16];        /* detected SIMD extensions, widest first */
    int nisa;
    gb_cache caches[GB_MAX_CACHES];
    int ncaches;
    double peak_gflops;     /* measured FP32 FMA peak at the run's threads; 0 unknown */
    double peak_gflops_1t;  /* the same for one thread; 0 unknown */
    char peak_isa[16];
    char peak_method[8];    /* how it was measured: "full" (trials for PEAK_BUDGET_S) or
                             * "quick" (GEMMBENCH_PEAK=quick); "": given (--peak) */
    /* The other types' peaks, by gb_dtype ([GB_DTYPE_F32] unused: the
     * fields above), measured like it with the type's dot-product
     * instruction (src/measure/peak.c): GFLOP/s for bf16, GOP/s for u8s8
     * (a multiply and an add each); 0 unknown or not measured. */
    double peak_dtype[GB_DTYPE_COUNT];     /* at the run's threads */
    double peak_dtype_1t[GB_DTYPE_COUNT];  /* one thread */
    char peak_dtype_isa[GB_DTYPE_COUNT][16]; /* "avx512_bf16", "avx512_vnni", "portable" */
    gb_topology topo;       /* hwloc's view; topo.available 0 without it */
    gb_bandwidth bw;        /* measured bandwidths (src/measure/bandwidth.md); bw.measured 0: none */
    gb_slurm slurm;         /* slurm.present 0: not run by Slurm */
    /* packed's calibration at each thread count the run measures packed
     * at (ncalib 0: none; include/calibrate.h) */
    gb_calibration calib[GB_MAX_CALIBRATIONS];
    int ncalib;
} gb_machine;

/* Reads hostname, CPU, ISA, caches and affinity.  Never fails: unknown
 * fields stay empty. */
void gb_machine_detect(gb_machine *m);
/* The CPUs a run may use: affinity_cpus, or Slurm's allotment when that is
 * smaller (what `--threads all` means). */
int gb_machine_usable_cpus(const gb_machine *m);
/* Cache size in bytes of the data or unified cache of a level; 0 unknown. */
long gb_machine_cache_bytes(const gb_machine *m, int level);
/* The size the run uses for a level (2 or 3): the sweep's where it ran and
 * disagreed with the reported one (a VM's cpuid is the hypervisor's), else
 * the reported (gb_machine_cache_bytes); 0 none. */
long gb_machine_level_bytes(const gb_machine *m, int level);
/* Its associativity (ways); 0 unknown, -1 fully associative. */
int gb_machine_cache_ways(const gb_machine *m, int level);
/* BLIS's analytical kc (Low, Igual, Smith and Quintana-Orti, TOMS 2016,
 * 4.2) for an mr x nr micro-kernel: B's micro-panel (kc x nr) stays in L1d
 * while A's micro-panels (mr x kc) stream through it, each set holding
 * C_Br ways of B and C_Ar of A and one for C's lines: C_Ar = floor((W - 1)
 * / (1 + nr / mr)), at least 1, and kc = C_Ar x (a way's bytes) / (mr x 4).
 * *c_ar, when not NULL, gets C_Ar.  l1_bytes and l1_ways must be positive
 * (the caller's fallbacks for unknown ones). */
long gb_blis_kc_cap(long l1_bytes, int l1_ways, int mr, int nr, long *c_ar);
/* packed's set rule for how many rows ahead to prefetch an operand whose
 * rows are row_bytes apart: a prefetched row waits in L1d until it is
 * loaded, and rows a multiple of a way apart share a set, which repeats
 * every period = way / gcd(row_bytes mod way, way) rows; a set gives half
 * its ways to the A micro-panel and one each to the row being loaded and
 * the lines being stored, and the rest (at least 1) times the period, at
 * most max_rows, is the distance.  *period and *spare, when not NULL, get
 * the two factors.  l1_bytes and l1_ways positive, l1_bytes a multiple of
 * l1_ways (the caller falls back otherwise). */
long gb_set_rule_rows(long l1_bytes, int l1_ways, long row_bytes, long max_rows, long *period,
                      long *spare);
/* Rows row_bytes apart that a physically indexed cache of cache_bytes can
 * hold at one offset in a line, whatever its ways: the set index bits
 * below g = gcd(row_bytes, page_bytes) are the same for all of them, those
 * above vary (with the row below the page, with the page frame above it),
 * so they have cache_bytes / g places (g a line_bytes at the least).  1 MiB:
 * 256 rows 12 KiB apart (3072 floats), 1024 rows 3 KiB apart (768 floats);
 * 2 MiB: 512 and 2048; rows 3088 floats apart: every line of it. */
long gb_places_rows(long cache_bytes, long row_bytes, long page_bytes, long line_bytes);
/* `gemmbench info`. */
void gb_machine_print(FILE *out, const gb_machine *m);
/* Its topology lines (hwloc's view, or that there is none). */
void gb_machine_print_topology(FILE *out, const gb_machine *m);

/* packed's calibration (src/machine/calibration.c). */
/* The cache key of machine m at a thread count: CPU model (its name, and
 * family, model and stepping, since guests of two core generations may
 * share a name), ISA, every cache's level, type, size and ways, the thread
 * count, and the version of the calibration's method. */
void gb_calibration_key(const gb_machine *m, int threads, char *key, size_t len);
/* GEMMBENCH_CALIBRATE: -1 unset (or empty), GB_READ_CHOICES "quick", a
 * GB_READ_* forced for every question, -2 a value it does not take. */
int gb_calibration_mode(void);
/* 0, or -1 with err when GEMMBENCH_CALIBRATE has a value it does not take. */
int gb_calibration_mode_check(char *err, size_t errlen);
/* c without a measurement: every answer read, source "forced" or "default". */
void gb_calibration_set(gb_calibration *c, int threads, int read, const char *source);
/* The answer to question q that a measured ratio (the median of the rounds'
 * in place over copied) gives: the second answer (copied, L2 only, BLIS's
 * ways) exactly when ratio > the question's copied_above.  The one rule of
 * the measurement and of the cache's reader (an answer that contradicts its
 * own ratios is not believed). */
int gb_calibration_decide(int q, double ratio);
/* The most A micro-panels of mr rows per B micro-panel that question q's
 * shapes have (its larger M over mr): where a question about few passes
 * (bnearnext) is asked, by packed's plan and the schedule model alike. */
long gb_calibration_passes_asked(int q, int mr);
/* One line without a newline: a question's answer and its reason
 * ("copied: in place took 1.42x the time of copied (median of 5 rounds,
 * p10-p90 1.30-1.51, on mlp_expand M=16,64 ...), measured"). */
void gb_calibration_describe(const gb_calibration *c, int question, char *buf, size_t len);
/* The threads' cost in a line: the small call's two times, or why there
 * are none (forced, default, not measured). */
void gb_calibration_describe_threads(const gb_calibration *c, char *buf, size_t len);

#endif
