/* test_topology.c - hwloc's view of this machine, and --bind's environment. */
#define _GNU_SOURCE
#include "test.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machine.h"
#include "topology.h"

TEST(topology_describes_this_machine)
{
    gb_topology t;
    long online = sysconf(_SC_NPROCESSORS_ONLN);

    gb_topology_detect(&t);
#ifdef GB_HAVE_HWLOC
    CHECK(t.available);
#endif
    if (!t.available)
        SKIP("built without hwloc");
    CHECK(strncmp(t.source, "hwloc", 5) == 0);
    CHECK(t.pus >= 1 && t.pus <= online);
    CHECK(t.cores >= 1 && t.cores <= t.pus);
    CHECK(t.packages >= 1 && t.packages <= t.cores);
    CHECK(t.numa_nodes >= 1);
    /* Every cache: a level, a size, and sharers that fit the machine;
     * levels never go down along the list. */
    for (int i = 0; i < t.ncaches; i++) {
        CHECK(t.caches[i].level >= 1 && t.caches[i].size_bytes > 0);
        CHECK(t.caches[i].count >= 1 && t.caches[i].cpus_each >= 1 &&
              t.caches[i].cpus_each <= t.pus);
        CHECK(t.caches[i].first_cpus[0] != '\0');
        if (i > 0)
            CHECK(t.caches[i].level >= t.caches[i - 1].level);
    }
    /* A kind's CPUs are the machine's. */
    for (int i = 0; i < t.nkinds; i++)
        CHECK(t.kinds[i].cpus >= 1 && t.kinds[i].cpus <= t.pus);
}

TEST(machine_caches_come_from_hwloc_when_built_with_it)
{
    gb_machine m;

    gb_machine_detect(&m);
    if (!m.topo.available || m.topo.ncaches == 0)
        SKIP("no hwloc topology, or it lists no cache");
    CHECK(m.ncaches == m.topo.ncaches);
    for (int i = 0; i < m.ncaches && i < m.topo.ncaches; i++)
        CHECK(m.caches[i].size_bytes == m.topo.caches[i].size_bytes &&
              m.caches[i].level == m.topo.caches[i].level);
    CHECK(gb_machine_cache_bytes(&m, 1) > 0);
}

/* Restores one environment variable after a test changed it. */
static void restore(const char *name, const char *saved)
{
    if (saved)
        setenv(name, saved, 1);
    else
        unsetenv(name);
}

TEST(bind_needs_the_variables_libgomp_reads)
{
    char *saved_bind = getenv("OMP_PROC_BIND") ? strdup(getenv("OMP_PROC_BIND")) : NULL;
    char *saved_places = getenv("OMP_PLACES") ? strdup(getenv("OMP_PLACES")) : NULL;
    const char *b = NULL, *p = NULL;
    gb_bind_state s;

    unsetenv("OMP_PROC_BIND");
    unsetenv("OMP_PLACES");
    CHECK(gb_bind_needs(GB_BIND_DEFAULT, &b, &p) == 0);
    gb_bind_current(GB_BIND_DEFAULT, &s);
    CHECK(strcmp(s.policy, "default") == 0 && s.proc_bind[0] == '\0');
    CHECK(gb_bind_needs(GB_BIND_CLOSE, &b, &p) == 1 && strcmp(b, "close") == 0 &&
          strcmp(p, "cores") == 0);
    CHECK(gb_bind_needs(GB_BIND_SPREAD, &b, &p) == 1 && strcmp(b, "spread") == 0);
    CHECK(gb_bind_needs(GB_BIND_NONE, &b, &p) == 1 && strcmp(b, "false") == 0 && p == NULL);
    /* Already what is asked: nothing to restart for. */
    setenv("OMP_PROC_BIND", "close", 1);
    setenv("OMP_PLACES", "cores", 1);
    CHECK(gb_bind_needs(GB_BIND_CLOSE, &b, &p) == 0);
    CHECK(gb_bind_needs(GB_BIND_SPREAD, &b, &p) == 1);
    CHECK(gb_bind_needs(GB_BIND_NONE, &b, &p) == 1);  /* OMP_PLACES must go too */
    gb_bind_current(GB_BIND_DEFAULT, &s);
    CHECK(strcmp(s.policy, "user") == 0 && strcmp(s.proc_bind, "close") == 0 &&
          strcmp(s.places, "cores") == 0);
    gb_bind_current(GB_BIND_SPREAD, &s);
    CHECK(strcmp(s.policy, "spread") == 0);
    restore("OMP_PROC_BIND", saved_bind);
    restore("OMP_PLACES", saved_places);
    free(saved_bind);
    free(saved_places);
}

TEST(bind_probe_sees_every_thread)
{
    int cpus[2], places[2];
    char proc_bind[32];

    gb_bind_probe(2, cpus, places, proc_bind, sizeof proc_bind);
    CHECK(cpus[0] >= 0 && cpus[1] >= 0);
    CHECK(proc_bind[0] != '\0');
}
