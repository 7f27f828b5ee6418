/* machine.c - hostname, CPU model, ISA, caches and affinity, from the kernel's
 * own reports (/proc/cpuinfo, sysfs) and the compiler's CPU detection; the
 * topology, and then the caches, from hwloc when the build has it
 * (src/machine/topology.c), sysfs being the fallback. */
#define _GNU_SOURCE
#include "machine.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static int read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    if (fgets(buf, (int)len, f) == NULL) {
        fclose(f);
        return -1;
    }
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

/* The text after a /proc/cpuinfo line's colon, without the newline. */
static const char *cpuinfo_value(char *line)
{
    char *colon = strchr(line, ':');

    if (colon == NULL)
        return NULL;
    colon++;
    while (*colon == ' ' || *colon == '\t')
        colon++;
    colon[strcspn(colon, "\n")] = '\0';
    return colon;
}

/* The first processor's block: its model name, and the numbers that tell
 * two cores of one marketing name apart (x86: family, model, stepping;
 * aarch64, which has no model name: implementer, part, revision). */
static void detect_cpu_model(gb_machine *m)
{
    static const char *const id_fields[] = { "cpu family", "model", "stepping",
                                             "CPU implementer", "CPU part", "CPU revision" };
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    size_t used = 0;

    if (f == NULL)
        return;
    while (fgets(line, sizeof line, f)) {
        const char *value;
        if (line[0] == '\n')
            break;
        value = cpuinfo_value(line);
        if (value == NULL)
            continue;
        if (strncmp(line, "model name", 10) == 0) {
            snprintf(m->cpu_model, sizeof m->cpu_model, "%s", value);
            continue;
        }
        for (size_t i = 0; i < sizeof id_fields / sizeof id_fields[0]; i++) {
            const size_t n = strlen(id_fields[i]);
            if (strncmp(line, id_fields[i], n) == 0 && (line[n] == ' ' || line[n] == '\t') &&
                used < sizeof m->cpu_id)
                used += (size_t)snprintf(m->cpu_id + used, sizeof m->cpu_id - used, "%s%s %s",
                                         used ? ", " : "", id_fields[i], value);
        }
    }
    fclose(f);
}

static void detect_isa(gb_machine *m)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        strcpy(m->isa[m->nisa++], "avx512f");
    if (__builtin_cpu_supports("avx2"))
        strcpy(m->isa[m->nisa++], "avx2");
    if (__builtin_cpu_supports("fma"))
        strcpy(m->isa[m->nisa++], "fma");
    if (__builtin_cpu_supports("avx"))
        strcpy(m->isa[m->nisa++], "avx");
    if (__builtin_cpu_supports("sse4.2"))
        strcpy(m->isa[m->nisa++], "sse4.2");
#elif defined(__aarch64__)
    strcpy(m->isa[m->nisa++], "neon");
#endif
}

static long parse_size(const char *text)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (*end == 'K')
        v *= 1024;
    else if (*end == 'M')
        v *= 1024 * 1024;
    return v;
}

static void detect_caches(gb_machine *m)
{
    for (int i = 0; i < 16 && m->ncaches < GB_MAX_CACHES; i++) {
        char path[128], buf[128];
        gb_cache *c = &m->caches[m->ncaches];

        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        if (read_line(path, buf, sizeof buf) != 0)
            break;
        memset(c, 0, sizeof *c);
        c->level = atoi(buf);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        if (read_line(path, buf, sizeof buf) == 0)
            snprintf(c->type, sizeof c->type, "%s", buf);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if (read_line(path, buf, sizeof buf) == 0)
            c->size_bytes = parse_size(buf);
        snprintf(path, sizeof path,
                 "/sys/devices/system/cpu/cpu0/cache/index%d/coherency_line_size", i);
        if (read_line(path, buf, sizeof buf) == 0)
            c->line_bytes = atoi(buf);
        snprintf(path, sizeof path,
                 "/sys/devices/system/cpu/cpu0/cache/index%d/ways_of_associativity", i);
        if (read_line(path, buf, sizeof buf) == 0)
            c->ways = atoi(buf);
        snprintf(path, sizeof path,
                 "/sys/devices/system/cpu/cpu0/cache/index%d/shared_cpu_list", i);
        if (read_line(path, buf, sizeof buf) == 0)
            snprintf(c->shared_cpus, sizeof c->shared_cpus, "%s", buf);
        m->ncaches++;
    }
}

/* The caches as hwloc sees them, in the sysfs fields: the first of each
 * kind, and the CPUs that share it. */
static void caches_from_topology(gb_machine *m)
{
    m->ncaches = 0;
    for (int i = 0; i < m->topo.ncaches && m->ncaches < GB_MAX_CACHES; i++) {
        const gb_topo_cache *t = &m->topo.caches[i];
        gb_cache *c = &m->caches[m->ncaches++];
        memset(c, 0, sizeof *c);
        c->level = t->level;
        snprintf(c->type, sizeof c->type, "%s", t->type);
        c->size_bytes = t->size_bytes;
        c->line_bytes = t->line_bytes;
        c->ways = t->ways;
        snprintf(c->shared_cpus, sizeof c->shared_cpus, "%s", t->first_cpus);
    }
}

/* A whole non-negative number from the start of an environment variable
 * ("2(x3)" in SLURM_JOB_CPUS_PER_NODE reads 2); -1 unset or not a number. */
static long env_number(const char *name)
{
    const char *v = getenv(name);
    char *end;
    long n;

    if (v == NULL || *v < '0' || *v > '9')
        return -1;
    errno = 0;
    n = strtol(v, &end, 10);
    return errno == 0 && end != v ? n : -1;
}

static void env_copy(char *dst, size_t len, const char *name)
{
    const char *v = getenv(name);
    snprintf(dst, len, "%s", v ? v : "");
}

/* The SLURM_* variables a job step's environment carries; the allotment is
 * capped by the affinity mask (task/affinity or cgroups narrow it, task/none
 * does not). */
static void detect_slurm(gb_slurm *s, int affinity_cpus)
{
    long cpus;

    if (getenv("SLURM_JOB_ID") == NULL)
        return;
    s->present = 1;
    s->job_id = env_number("SLURM_JOB_ID");
    s->array_job_id = env_number("SLURM_ARRAY_JOB_ID");
    s->array_task_id = env_number("SLURM_ARRAY_TASK_ID");
    env_copy(s->node, sizeof s->node, "SLURMD_NODENAME");
    env_copy(s->partition, sizeof s->partition, "SLURM_JOB_PARTITION");
    cpus = env_number("SLURM_CPUS_ON_NODE");
    if (cpus <= 0)
        cpus = env_number("SLURM_JOB_CPUS_PER_NODE");
    if (cpus <= 0 || cpus > affinity_cpus)
        cpus = affinity_cpus;
    s->cpus = (int)cpus;
}

int gb_machine_usable_cpus(const gb_machine *m)
{
    if (m->slurm.present && m->slurm.cpus > 0 && m->slurm.cpus < m->affinity_cpus)
        return m->slurm.cpus;
    return m->affinity_cpus;
}

void gb_machine_detect(gb_machine *m)
{
    struct utsname u;
    cpu_set_t set;

    memset(m, 0, sizeof *m);
    if (gethostname(m->hostname, sizeof m->hostname - 1) != 0)
        strcpy(m->hostname, "unknown");
    if (uname(&u) == 0)
        snprintf(m->arch, sizeof m->arch, "%s", u.machine);
    detect_cpu_model(m);
    if (m->cpu_model[0] == '\0')
        snprintf(m->cpu_model, sizeof m->cpu_model, "unknown (%s)", m->arch);
    m->logical_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    CPU_ZERO(&set);
    m->affinity_cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                                  : m->logical_cpus;
    /* A bound OpenMP runtime (OMP_PROC_BIND, --bind) has narrowed this
     * thread's own mask to its first place; its places still cover the
     * CPUs the process was given. */
    if (gb_bind_place_cpus() > m->affinity_cpus)
        m->affinity_cpus = gb_bind_place_cpus();
    if (m->affinity_cpus < 1)
        m->affinity_cpus = 1;
    detect_slurm(&m->slurm, m->affinity_cpus);
    detect_isa(m);
    gb_topology_detect(&m->topo);
    if (m->topo.available && m->topo.ncaches > 0)
        caches_from_topology(m);
    else
        detect_caches(m);
}

static const gb_cache *data_cache(const gb_machine *m, int level)
{
    for (int i = 0; i < m->ncaches; i++)
        if (m->caches[i].level == level && strcmp(m->caches[i].type, "Instruction") != 0)
            return &m->caches[i];
    return NULL;
}

long gb_machine_level_bytes(const gb_machine *m, int level)
{
    if (m->bw.levels.swept && level >= 1 && level <= 3)
        return m->bw.levels.used[level];
    return gb_machine_cache_bytes(m, level);
}

long gb_machine_cache_bytes(const gb_machine *m, int level)
{
    const gb_cache *c = data_cache(m, level);
    return c ? c->size_bytes : 0;
}

int gb_machine_cache_ways(const gb_machine *m, int level)
{
    const gb_cache *c = data_cache(m, level);
    return c ? c->ways : 0;
}

long gb_blis_kc_cap(long l1_bytes, int l1_ways, int mr, int nr, long *c_ar)
{
    long ways = (long)(l1_ways - 1) * mr / (mr + nr);

    if (ways < 1)
        ways = 1;
    if (c_ar != NULL)
        *c_ar = ways;
    return ways * (l1_bytes / l1_ways) / ((long)mr * (long)sizeof(float));
}

long gb_set_rule_rows(long l1_bytes, int l1_ways, long row_bytes, long max_rows, long *period,
                      long *spare)
{
    const long way = l1_bytes / l1_ways;
    long a = row_bytes % way, b = way, p, s, rows;

    while (b != 0) { /* gcd(row_bytes mod way, way) */
        const long r = a % b;
        a = b;
        b = r;
    }
    p = way / a;
    s = l1_ways / 2 - 2 > 1 ? l1_ways / 2 - 2 : 1;
    rows = p * s < max_rows ? p * s : max_rows;
    if (period != NULL)
        *period = p;
    if (spare != NULL)
        *spare = s;
    return rows;
}

long gb_places_rows(long cache_bytes, long row_bytes, long page_bytes, long line_bytes)
{
    long a = row_bytes, b = page_bytes;

    while (b != 0) { /* gcd(row_bytes, page_bytes) */
        const long r = a % b;
        a = b;
        b = r;
    }
    return cache_bytes / (a > line_bytes ? a : line_bytes);
}

const char *gb_bw_level_name(int level)
{
    static const char *const level_names[GB_BW_LEVELS] = { "L2", "L3", "memory" };

    return level >= 0 && level < GB_BW_LEVELS ? level_names[level] : "?";
}

void gb_machine_print(FILE *out, const gb_machine *m)
{
    fprintf(out, "hostname       %s\n", m->hostname);
    fprintf(out, "cpu            %s%s%s%s\n", m->cpu_model, m->cpu_id[0] ? " (" : "", m->cpu_id,
            m->cpu_id[0] ? ")" : "");
    fprintf(out, "arch           %s\n", m->arch);
    fprintf(out, "logical cpus   %d online, %d usable by this process\n", m->logical_cpus,
            m->affinity_cpus);
    if (m->slurm.present)
        fprintf(out, "slurm          job %ld, node %s, partition %s, %d CPUs allotted\n",
                m->slurm.job_id, m->slurm.node[0] ? m->slurm.node : "?",
                m->slurm.partition[0] ? m->slurm.partition : "?", m->slurm.cpus);
    fprintf(out, "isa           ");
    for (int i = 0; i < m->nisa; i++)
        fprintf(out, " %s", m->isa[i]);
    fprintf(out, "%s\n", m->nisa ? "" : " (none detected)");
    for (int i = 0; i < m->ncaches; i++) {
        const gb_cache *c = &m->caches[i];
        char ways[24] = "";
        if (c->ways > 0)
            snprintf(ways, sizeof ways, "%d-way, ", c->ways);
        else if (c->ways < 0)
            snprintf(ways, sizeof ways, "fully associative, ");
        fprintf(out, "cache L%d %-11s %ld KiB, %d-byte lines, %sshared by cpus %s\n", c->level,
                c->type, c->size_bytes / 1024, c->line_bytes, ways, c->shared_cpus);
    }
    gb_machine_print_topology(out, m);
}

void gb_machine_print_topology(FILE *out, const gb_machine *m)
{
    const gb_topology *t = &m->topo;

    if (!t->available) {
        fprintf(out, "topology       not available (built without hwloc)\n");
        return;
    }
    fprintf(out, "topology       %d package%s, %d cores, %d hardware threads, %d NUMA node%s "
                 "(%s)\n", t->packages, t->packages == 1 ? "" : "s", t->cores, t->pus,
            t->numa_nodes, t->numa_nodes == 1 ? "" : "s", t->source);
    for (int i = 0; i < t->ncaches; i++)
        fprintf(out, "  L%d %-11s x%d, each shared by %d hardware thread%s (first: %s)\n",
                t->caches[i].level, t->caches[i].type, t->caches[i].count,
                t->caches[i].cpus_each, t->caches[i].cpus_each == 1 ? "" : "s",
                t->caches[i].first_cpus);
    if (t->nkinds == 0)
        fprintf(out, "cpu kinds      none reported (all cores alike as far as hwloc knows)\n");
    for (int i = 0; i < t->nkinds; i++)
        fprintf(out, "cpu kind %d     cpus %s (%d), efficiency rank %d%s%s\n", i,
                t->kinds[i].cpu_list, t->kinds[i].cpus, t->kinds[i].efficiency,
                t->kinds[i].core_type[0] ? ", " : "", t->kinds[i].core_type);
}
