/* packed_team.c - packed's own threads for a call's parallel part
 * (packed_team.h).
 *
 * The team: nt - 1 threads made on first use (and again after a fork, or
 * when a call asks for more), each placed where OpenMP would place thread
 * t of a region opened by the caller (OMP_PROC_BIND close: the t-th place
 * on from the caller's; spread: spaced over the places; primary: the
 * caller's place; false: not placed), so that packed's threads sit where
 * they sat in a region.
 *
 * A call: the caller writes fn, arg and nt, then bumps the run counter
 * (one cache line every worker reads); each worker runs its part and
 * stores the counter into its own done line, which the caller reads.  A
 * worker between calls spins on the counter for SPIN_US, then sleeps on
 * it (a futex), so that a run of calls pays no system call and an idle
 * process holds no core; OMP_WAIT_POLICY=passive: it sleeps at once, as
 * libgomp's do.  The caller wakes a sleeping worker with a futex.
 *
 * Standing beside OpenMP: libgomp's idle workers spin for milliseconds
 * after every region (measured: 5.6-5.9 ms on the AMD EPYC guest), on the
 * cores the team's threads are placed on, and two spinners on one core
 * share it at the scheduler's slice (a call then waited up to 4.3 ms for
 * its other half).  So before a call the caller releases the OpenMP
 * threads it started (omp_pause_resource_all: libgomp ends them; its next
 * region starts them again, tens of microseconds once).  Where the team
 * cannot run a call as asked it returns 0 and the caller opens an OpenMP
 * region: dynamic threads (OMP_DYNAMIC), a caller inside a region, a second
 * caller while a call runs, more threads than the CPUs they would have (a
 * place each, bound close or spread; the caller's place's, primary; the
 * caller's mask, unbound), or no threads.
 */
#define _GNU_SOURCE
#include "packed_team.h"

#include <omp.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__)

#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* A worker's spin before it sleeps, microseconds: the gap between one
 * call and the next in a run of calls is far shorter. */
#define SPIN_US 200.0
#define MAX_WORKERS 255

typedef struct worker {
    _Alignas(64) atomic_uint done; /* the last run it finished */
    atomic_int sleeping;           /* on the futex, or about to be */
    pthread_t thread;
    int t;
} worker;

static struct {
    _Alignas(64) atomic_uint run; /* bumped by each call: the futex word */
    packed_team_fn fn;
    void *arg;
    int nt;
    _Alignas(64) atomic_uint arrived; /* the barrier's count ... */
    atomic_uint phase;                /* ... and its generation */
    _Alignas(64) atomic_flag busy;    /* a call is running */
    int started;                      /* the fork handler is registered */
    int placed;                       /* placed_* and cpus hold ... */
    int placed_nt, placed_p0, placed_bind; /* ... the run the workers were placed for */
    int cpus;                         /* and the CPUs the caller could use then */
    int nworkers;
    int spin;                         /* workers spin before sleeping */
    worker *workers[MAX_WORKERS];
} team = { .busy = ATOMIC_FLAG_INIT };

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e6 * (double)ts.tv_sec + 1e-3 * (double)ts.tv_nsec;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static void futex_wait(atomic_uint *word, unsigned seen)
{
    syscall(SYS_futex, (unsigned *)word, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
}

static void futex_wake(atomic_uint *word)
{
    syscall(SYS_futex, (unsigned *)word, FUTEX_WAKE_PRIVATE, MAX_WORKERS, NULL, NULL, 0);
}

/* The run after seen, spinning first where the policy spins. */
static unsigned wait_run(worker *w, unsigned seen)
{
    unsigned run = atomic_load_explicit(&team.run, memory_order_acquire);
    if (run != seen)
        return run;
    if (team.spin) {
        const double until = now_us() + SPIN_US;
        for (unsigned i = 1;; i++) {
            run = atomic_load_explicit(&team.run, memory_order_acquire);
            if (run != seen)
                return run;
            if (i % 256 == 0 && now_us() > until)
                break;
            cpu_relax();
        }
    }
    for (;;) {
        atomic_store(&w->sleeping, 1);
        run = atomic_load(&team.run);
        if (run == seen)
            futex_wait(&team.run, seen);
        atomic_store(&w->sleeping, 0);
        run = atomic_load_explicit(&team.run, memory_order_acquire);
        if (run != seen)
            return run;
    }
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    unsigned seen = atomic_load(&w->done);
    for (;;) {
        seen = wait_run(w, seen);
        if (w->t < team.nt)
            team.fn(team.arg, w->t, team.nt);
        atomic_store_explicit(&w->done, seen, memory_order_release);
    }
    return NULL;
}

/* Place p's CPUs into set; 0, or -1 when it has none. */
static int place_cpus(int p, cpu_set_t *set)
{
    const int n = omp_get_place_num_procs(p);
    int *ids;
    if (n <= 0 || (ids = malloc((size_t)n * sizeof *ids)) == NULL)
        return -1;
    omp_get_place_proc_ids(p, ids);
    CPU_ZERO(set);
    for (int i = 0; i < n; i++)
        if (ids[i] >= 0 && ids[i] < CPU_SETSIZE)
            CPU_SET(ids[i], set);
    free(ids);
    return 0;
}

/* The place OpenMP gives thread t of nt under the caller's binding, or -1
 * (not bound). */
static int place_of(int t, int nt)
{
    const int places = omp_get_num_places(), p0 = omp_get_place_num();
    if (places <= 0 || p0 < 0)
        return -1;
    switch (omp_get_proc_bind()) {
    case omp_proc_bind_close:
        return (p0 + t) % places;
    case omp_proc_bind_spread:
        return (p0 + (int)((long)t * places / nt)) % places;
    case omp_proc_bind_master:
        return p0;
    default:
        return -1;
    }
}

/* A fork's child has none of its parent's threads (nor a call running). */
static void forked(void)
{
    team.nworkers = 0;
    team.placed = 0;
    atomic_flag_clear(&team.busy);
}

/* Worker w placed as thread w->t of nt (or unbound). */
static void place(worker *w, int nt, pthread_attr_t *attr)
{
    cpu_set_t set;
    const int p = place_of(w->t, nt);
    if (p < 0 || place_cpus(p, &set) != 0) {
        /* unbound: every CPU the process may use */
        if (sched_getaffinity(0, sizeof set, &set) != 0)
            return;
    }
    if (attr)
        pthread_attr_setaffinity_np(attr, sizeof set, &set);
    else
        pthread_setaffinity_np(w->thread, sizeof set, &set);
}

/* Workers 1 .. nt - 1 there and placed for nt from the caller's place; 0,
 * or -1. */
static int team_ready(int nt)
{
    if (!team.started) {
        /* not getpid() per call: a system call (a microsecond on a guest) */
        if (pthread_atfork(NULL, NULL, forked) != 0)
            return -1;
        const char *policy = getenv("OMP_WAIT_POLICY");
        team.spin = policy == NULL || strcmp(policy, "passive") != 0;
        team.started = 1;
    }
    /* Another caller's place, binding or count: the workers move, and the
     * CPUs the threads have are counted again (a system call: not per
     * call): a place each under close or spread binding, the caller's
     * place's under primary, else the CPUs the caller may use (bound, the
     * caller's own mask is its place).  More threads than CPUs: the team
     * stands aside, since its threads would spin on a CPU another needs
     * (libgomp throttles its spin then; the team took 1.5-3x a region's
     * time with two threads on one CPU). */
    const int p0 = omp_get_place_num(), bind = (int)omp_get_proc_bind();
    if (!team.placed || p0 != team.placed_p0 || bind != team.placed_bind ||
        nt != team.placed_nt) {
        cpu_set_t set;
        if (place_of(0, nt) >= 0)
            team.cpus = bind == omp_proc_bind_master ? omp_get_place_num_procs(p0)
                                                     : omp_get_num_places();
        else
            team.cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
        for (int i = 0; i < team.nworkers; i++)
            place(team.workers[i], nt, NULL);
        team.placed = 1;
        team.placed_p0 = p0;
        team.placed_bind = bind;
        team.placed_nt = nt;
    }
    if (nt > team.cpus)
        return -1;
    while (team.nworkers < nt - 1) {
        worker *w = aligned_alloc(64, sizeof(worker));
        pthread_attr_t attr;
        if (w == NULL)
            return -1;
        memset(w, 0, sizeof *w);
        atomic_init(&w->done, atomic_load(&team.run));
        w->t = team.nworkers + 1;
        pthread_attr_init(&attr);
        place(w, nt, &attr);
        const int err = pthread_create(&w->thread, &attr, worker_main, w);
        pthread_attr_destroy(&attr);
        if (err != 0) {
            free(w);
            return -1;
        }
        team.workers[team.nworkers++] = w;
    }
    return 0;
}

/* A futex wake where a worker sleeps or is about to. */
static void wake_sleepers(void)
{
    for (int i = 0; i < team.nworkers; i++)
        if (atomic_load_explicit(&team.workers[i]->sleeping, memory_order_relaxed)) {
            futex_wake(&team.run);
            return;
        }
}

int packed_team_run(int nt, packed_team_fn fn, void *arg)
{
    if (nt < 2 || nt - 1 > MAX_WORKERS || omp_in_parallel() || omp_get_dynamic())
        return 0;
    if (atomic_flag_test_and_set(&team.busy))
        return 0;
    if (team_ready(nt) != 0) {
        atomic_flag_clear(&team.busy);
        return 0;
    }
    /* libgomp's idle workers spin where the team's run */
    omp_pause_resource_all(omp_pause_soft);

    team.fn = fn;
    team.arg = arg;
    team.nt = nt;
    atomic_store_explicit(&team.arrived, 0, memory_order_relaxed);
    /* A plain store (the caller alone writes run): the caller goes on to
     * its part while the line travels; a locked add would wait for it. */
    const unsigned run = atomic_load_explicit(&team.run, memory_order_relaxed) + 1;
    atomic_store_explicit(&team.run, run, memory_order_release);
    wake_sleepers();
    fn(arg, 0, nt);
    /* Every worker, the idle ones too (past nt), has seen the run before
     * the next can change fn.  Without a fence after the store, a worker
     * may have gone to sleep as it became visible: the wait wakes it. */
    for (int i = 0; i < team.nworkers; i++) {
        worker *w = team.workers[i];
        for (unsigned n = 1; atomic_load_explicit(&w->done, memory_order_acquire) != run; n++)
            if (n % 1024 == 0) {
                wake_sleepers();
                sched_yield();
            } else
                cpu_relax();
    }
    atomic_flag_clear(&team.busy);
    return 1;
}

void packed_team_barrier(void)
{
    const unsigned phase = atomic_load_explicit(&team.phase, memory_order_acquire);
    if (atomic_fetch_add(&team.arrived, 1) + 1 == (unsigned)team.nt) {
        atomic_store_explicit(&team.arrived, 0, memory_order_relaxed);
        atomic_store_explicit(&team.phase, phase + 1, memory_order_release);
        return;
    }
    for (unsigned n = 1; atomic_load_explicit(&team.phase, memory_order_acquire) == phase; n++)
        if (n % 4096 == 0)
            sched_yield();
        else
            cpu_relax();
}

#else

int packed_team_run(int nt, packed_team_fn fn, void *arg)
{
    (void)nt, (void)fn, (void)arg;
    return 0;
}

void packed_team_barrier(void)
{
}

#endif
