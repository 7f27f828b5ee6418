/* machine.h - what the run ran on: the machine block of every result file. */
#ifndef GB_MACHINE_H
#define GB_MACHINE_H

#include <stdio.h>

#include "topology.h"
#include "bandwidth.h"

#define GB_MAX_CACHES 8

typedef struct gb_cache {
    int level;
    char type[16];          /* Data, Instruction, Unified */
    long size_bytes;
    int line_bytes;
    int ways;               /* associativity; 0 unknown, -1 fully associative */
    char shared_cpus[64];   /* shared_cpu_list from sysfs */
} gb_cache;

typedef struct gb_machine {
    char hostname[256];
    char cpu_model[256];
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
    gb_topology topo;       /* hwloc's view; topo.available 0 without it */
    gb_bandwidth bw;        /* measured bandwidths (src/measure/bandwidth.md); bw.measured 0: none */
} gb_machine;

/* Reads hostname, CPU, ISA, caches and affinity.  Never fails: unknown
 * fields stay empty. */
void gb_machine_detect(gb_machine *m);
/* Cache size in bytes of the data or unified cache of a level; 0 unknown. */
long gb_machine_cache_bytes(const gb_machine *m, int level);
/* Its associativity (ways); 0 unknown, -1 fully associative. */
int gb_machine_cache_ways(const gb_machine *m, int level);
/* `gemmbench info`. */
void gb_machine_print(FILE *out, const gb_machine *m);
/* Its topology lines (hwloc's view, or that there is none). */
void gb_machine_print_topology(FILE *out, const gb_machine *m);

#endif
