/*
 * topology.h - the machine's topology as hwloc sees it (src/machine/topology.c):
 * packages, cores, hardware threads, the caches and which CPUs share each,
 * NUMA nodes and CPU kinds (hybrid performance/efficiency cores); and where
 * the OpenMP threads go (--bind).
 *
 * hwloc (Debian's libhwloc-dev) is what MPI and OpenMP runtimes use to see
 * the machine; a build without it (make HWLOC=) reports the topology as not
 * available and the machine block keeps the caches read from sysfs.
 *
 * Library code: fills structures, never prints or exits.
 */
#ifndef GB_TOPOLOGY_H
#define GB_TOPOLOGY_H

#include <stddef.h>

#include "sweep.h"

#define GB_TOPO_MAX_CACHES 8
#define GB_TOPO_MAX_KINDS 4
#define GB_TOPO_LIST 256     /* a CPU list such as "0-7,16-23" */

typedef struct gb_topo_cache {
    int level;
    char type[16];           /* Data, Instruction, Unified */
    long size_bytes;
    int line_bytes;
    int ways;                /* associativity; 0 unknown, -1 fully associative */
    int count;               /* instances in the machine */
    int cpus_each;           /* hardware threads that share one instance */
    char first_cpus[GB_TOPO_LIST];  /* the CPUs that share the first one */
} gb_topo_cache;

typedef struct gb_topo_kind {
    int efficiency;          /* hwloc's rank: higher is the faster kind; -1 unknown */
    int cpus;                /* hardware threads of this kind */
    char cpu_list[GB_TOPO_LIST];
    char core_type[32];      /* hwloc's CoreType info (IntelCore, IntelAtom), or "" */
    long max_mhz;            /* FrequencyMaxMHz, 0 unknown */
} gb_topo_kind;

typedef struct gb_topology {
    int available;           /* 0: built without hwloc, or hwloc failed */
    char source[32];         /* "hwloc API 2.8.0" */
    int packages, cores, pus, numa_nodes;
    gb_topo_cache caches[GB_TOPO_MAX_CACHES];   /* by level, data before instruction */
    int ncaches;
    gb_topo_kind kinds[GB_TOPO_MAX_KINDS];
    int nkinds;
} gb_topology;

/* Reads the topology into t; t->available says whether it could. */
void gb_topology_detect(gb_topology *t);

/* ---- thread placement ---------------------------------------------------- */

/* What a process's OpenMP threads were told: the policy name ("close",
 * "spread", "none", or "user" when the user's OMP_PROC_BIND/OMP_PLACES were
 * left alone, "default" when neither), and the two variables as in force. */
typedef struct gb_bind_state {
    char policy[16];
    char proc_bind[64];      /* OMP_PROC_BIND, "" when unset */
    char places[64];         /* OMP_PLACES, "" when unset */
} gb_bind_state;

/* The environment bind needs: OMP_PROC_BIND and OMP_PLACES to set (NULL:
 * unset), or nothing to do (returns 0) for GB_BIND_DEFAULT.  libgomp reads
 * both once, when it is loaded, so a process that needs them changed must
 * re-execute itself with them set (gb_bind_apply).  Returns 1 when the
 * environment must change. */
int gb_bind_needs(gb_bind bind, const char **proc_bind, const char **places);

/* Sets the variables of bind and re-executes /proc/self/exe with argv,
 * marked so that the new process does not do it again.  Returns only when
 * nothing had to change (0) or the exec failed (-1, errno set). */
int gb_bind_apply(gb_bind bind, char **argv);

/* What is in force in this process for bind (after gb_bind_apply). */
void gb_bind_current(gb_bind bind, gb_bind_state *s);

/* Where threads threads run: in a parallel region of that many threads,
 * each one's CPU (sched_getcpu) and OpenMP place (-1: not bound), and the
 * runtime's proc_bind (omp_get_proc_bind as a name).  cpus and places have
 * room for threads entries. */
void gb_bind_probe(int threads, int *cpus, int *places, char *proc_bind, size_t len);

/* The CPUs in the OpenMP places (0 when the runtime has none: unbound).
 * A bound runtime pins the initial thread to the first place when it
 * starts, so sched_getaffinity then sees one place's CPUs, not the
 * process's; the places still list them all. */
int gb_bind_place_cpus(void);

#endif
