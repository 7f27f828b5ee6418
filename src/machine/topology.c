/* topology.c - the machine's topology through hwloc, and --bind; see
 * topology.h.  hwloc's API: https://www.open-mpi.org/projects/hwloc/doc/ */
#define _GNU_SOURCE
#include "topology.h"

#include <errno.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef GB_HAVE_HWLOC
#include <hwloc.h>
#endif

#ifdef GB_HAVE_HWLOC

static int count_type(hwloc_topology_t topo, hwloc_obj_type_t type)
{
    int n = hwloc_get_nbobjs_by_type(topo, type);
    return n > 0 ? n : 0;
}

static const char *cache_type_name(hwloc_obj_cache_type_t type)
{
    return type == HWLOC_OBJ_CACHE_DATA          ? "Data"
           : type == HWLOC_OBJ_CACHE_INSTRUCTION ? "Instruction"
                                                 : "Unified";
}

/* One entry per cache object type present (L1d, L1i, L2, L3, ...): its
 * size, line, how many there are and how many hardware threads share one
 * (the first one's CPU list, as sysfs's shared_cpu_list would say). */
static void read_caches(hwloc_topology_t topo, gb_topology *t)
{
    static const hwloc_obj_type_t types[] = { HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L1ICACHE,
                                              HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L2ICACHE,
                                              HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L3ICACHE,
                                              HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE };

    for (size_t i = 0; i < sizeof types / sizeof types[0] && t->ncaches < GB_TOPO_MAX_CACHES;
         i++) {
        hwloc_obj_t obj = hwloc_get_obj_by_type(topo, types[i], 0);
        gb_topo_cache *c = &t->caches[t->ncaches];
        if (obj == NULL || obj->attr == NULL)
            continue;
        memset(c, 0, sizeof *c);
        c->level = (int)obj->attr->cache.depth;
        snprintf(c->type, sizeof c->type, "%s", cache_type_name(obj->attr->cache.type));
        c->size_bytes = (long)obj->attr->cache.size;
        c->line_bytes = (int)obj->attr->cache.linesize;
        c->ways = obj->attr->cache.associativity;
        c->count = count_type(topo, types[i]);
        c->cpus_each = obj->cpuset ? hwloc_bitmap_weight(obj->cpuset) : 0;
        if (obj->cpuset)
            hwloc_bitmap_list_snprintf(c->first_cpus, sizeof c->first_cpus, obj->cpuset);
        t->ncaches++;
    }
}

static void read_kinds(hwloc_topology_t topo, gb_topology *t)
{
    int n = hwloc_cpukinds_get_nr(topo, 0);
    hwloc_bitmap_t set = hwloc_bitmap_alloc();

    if (set == NULL)
        return;
    for (int i = 0; i < n && t->nkinds < GB_TOPO_MAX_KINDS; i++) {
        gb_topo_kind *k = &t->kinds[t->nkinds];
        struct hwloc_info_s *infos = NULL;
        unsigned ninfos = 0;
        memset(k, 0, sizeof *k);
        if (hwloc_cpukinds_get_info(topo, (unsigned)i, set, &k->efficiency, &ninfos, &infos,
                                    0) != 0)
            continue;
        k->cpus = hwloc_bitmap_weight(set);
        hwloc_bitmap_list_snprintf(k->cpu_list, sizeof k->cpu_list, set);
        for (unsigned j = 0; j < ninfos; j++) {
            if (strcmp(infos[j].name, "CoreType") == 0)
                snprintf(k->core_type, sizeof k->core_type, "%s", infos[j].value);
            else if (strcmp(infos[j].name, "FrequencyMaxMHz") == 0)
                k->max_mhz = strtol(infos[j].value, NULL, 10);
        }
        t->nkinds++;
    }
    hwloc_bitmap_free(set);
}

/* hwloc opens its plugins (dlopen) whenever a process makes a topology
 * and none exists: Debian's four (GL, OpenCL, PCI, libxml2's XML) pull in
 * X11, OpenCL's loader, libudev and ICU, and none of them adds a CPU or a
 * cache.  Leaving them closed took 4 ms off every small run (36 to 32 ms
 * of CPU, AMD EPYC guest), more in runs that detect the machine per call.
 * A blacklist the user set is theirs. */
static void skip_io_plugins(void)
{
    setenv("HWLOC_PLUGINS_BLACKLIST", "hwloc_gl,hwloc_opencl,hwloc_pci,hwloc_xml_libxml", 0);
}

void gb_topology_detect(gb_topology *t)
{
    hwloc_topology_t topo;
    unsigned v = hwloc_get_api_version();

    memset(t, 0, sizeof *t);
    skip_io_plugins();
    if (hwloc_topology_init(&topo) != 0)
        return;
    /* hwloc leaves instruction caches out unless asked; sysfs listed them. */
    hwloc_topology_set_icache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL);
    if (hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        return;
    }
    t->available = 1;
    snprintf(t->source, sizeof t->source, "hwloc API %u.%u.%u", v >> 16, (v >> 8) & 0xff, v & 0xff);
    t->packages = count_type(topo, HWLOC_OBJ_PACKAGE);
    t->cores = count_type(topo, HWLOC_OBJ_CORE);
    t->pus = count_type(topo, HWLOC_OBJ_PU);
    t->numa_nodes = count_type(topo, HWLOC_OBJ_NUMANODE);
    read_caches(topo, t);
    read_kinds(topo, t);
    hwloc_topology_destroy(topo);
}

#else

void gb_topology_detect(gb_topology *t)
{
    memset(t, 0, sizeof *t);
}

#endif

/* ---- thread placement ---------------------------------------------------- */

/* Set in the environment of a process that re-executed itself for --bind. */
#define BIND_MARK "GEMMBENCH_BIND_APPLIED"

static const char *const bind_names[] = {
    [GB_BIND_DEFAULT] = "default", [GB_BIND_CLOSE] = "close", [GB_BIND_SPREAD] = "spread",
    [GB_BIND_NONE] = "none",
};

int gb_bind_needs(gb_bind bind, const char **proc_bind, const char **places)
{
    const char *want_bind = NULL, *want_places = NULL, *have_bind, *have_places;

    switch (bind) {
    case GB_BIND_DEFAULT:
        return 0;
    case GB_BIND_CLOSE:
    case GB_BIND_SPREAD:
        /* One place per core: threads go to distinct cores before they
         * share one (SMT), and stay there. */
        want_bind = bind_names[bind];
        want_places = "cores";
        break;
    case GB_BIND_NONE:
        want_bind = "false";
        break;
    }
    *proc_bind = want_bind;
    *places = want_places;
    have_bind = getenv("OMP_PROC_BIND");
    have_places = getenv("OMP_PLACES");
    return !(have_bind && strcmp(have_bind, want_bind) == 0 &&
             (want_places ? have_places && strcmp(have_places, want_places) == 0
                          : have_places == NULL));
}

/* A bound runtime pinned this thread to its first place, and exec keeps a
 * thread's mask: give the new process back every CPU of the places. */
static void unpin_for_exec(void)
{
    int n = omp_get_num_places();
    cpu_set_t set;

    if (n <= 0)
        return;
    CPU_ZERO(&set);
    for (int p = 0; p < n; p++) {
        int count = omp_get_place_num_procs(p);
        int *ids = count > 0 ? malloc((size_t)count * sizeof *ids) : NULL;
        if (ids == NULL)
            continue;
        omp_get_place_proc_ids(p, ids);
        for (int i = 0; i < count; i++)
            if (ids[i] >= 0 && ids[i] < CPU_SETSIZE)
                CPU_SET(ids[i], &set);
        free(ids);
    }
    if (CPU_COUNT(&set) > 0)
        (void)sched_setaffinity(0, sizeof set, &set);
}

int gb_bind_apply(gb_bind bind, char **argv)
{
    const char *proc_bind, *places, *mark = getenv(BIND_MARK);

    if (!gb_bind_needs(bind, &proc_bind, &places))
        return 0;
    /* Already re-executed: the variables were set and read; a runtime that
     * rewrites them must not make this loop. */
    if (mark && strcmp(mark, bind_names[bind]) == 0)
        return 0;
    if (setenv("OMP_PROC_BIND", proc_bind, 1) != 0 ||
        (places ? setenv("OMP_PLACES", places, 1) : unsetenv("OMP_PLACES")) != 0 ||
        setenv(BIND_MARK, bind_names[bind], 1) != 0)
        return -1;
    unpin_for_exec();
    execv("/proc/self/exe", argv);
    return -1;
}

/* Whether GOMP_CPU_AFFINITY names CPUs (libgomp ignores an empty one). */
static int gomp_affinity(void)
{
    const char *g = getenv("GOMP_CPU_AFFINITY");

    return g != NULL && g[strspn(g, " \t")] != '\0';
}

void gb_bind_current(gb_bind bind, gb_bind_state *s)
{
    const char *b = getenv("OMP_PROC_BIND"), *p = getenv("OMP_PLACES");

    memset(s, 0, sizeof *s);
    if (bind != GB_BIND_DEFAULT)
        snprintf(s->policy, sizeof s->policy, "%s", bind_names[bind]);
    else
        /* libgomp pins threads by GOMP_CPU_AFFINITY when OMP_PROC_BIND is
         * unset: that is the user's binding too, not libgomp's default. */
        snprintf(s->policy, sizeof s->policy, "%s", b || p || gomp_affinity() ? "user"
                                                                               : "default");
    snprintf(s->proc_bind, sizeof s->proc_bind, "%s", b ? b : "");
    snprintf(s->places, sizeof s->places, "%s", p ? p : "");
}

static const char *proc_bind_name(omp_proc_bind_t b)
{
    switch (b) {
    case omp_proc_bind_false:
        return "false";
    case omp_proc_bind_true:
        return "true";
    case omp_proc_bind_master:
        return "primary";
    case omp_proc_bind_close:
        return "close";
    case omp_proc_bind_spread:
        return "spread";
    }
    return "unknown";
}

void gb_bind_probe(int threads, int *cpus, int *places, char *proc_bind, size_t len)
{
    snprintf(proc_bind, len, "%s", proc_bind_name(omp_get_proc_bind()));
    for (int i = 0; i < threads; i++)
        cpus[i] = places[i] = -1;
#pragma omp parallel num_threads(threads)
    {
        int me = omp_get_thread_num();
        if (me < threads) {
            cpus[me] = sched_getcpu();
            places[me] = omp_get_place_num();
        }
    }
}

int gb_bind_place_cpus(void)
{
    int n = omp_get_num_places(), total = 0;

    for (int p = 0; p < n; p++)
        total += omp_get_place_num_procs(p);
    return total;
}
