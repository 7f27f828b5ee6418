/* packed_team.h - packed's own threads for a call's parallel part.
 *
 * An OpenMP parallel region costs a 2-thread call 3-4 us on a guest whose
 * two vCPUs are far apart (`gemmbench info`'s fork/join against its cpu to
 * cpu line): libgomp's fork and join move several cache lines between the
 * cores and end each barrier with a futex system call.  The team's fork is
 * one line written by the caller and read by each worker, its join one
 * line each worker writes: a round trip between the cores.  See
 * packed_team.c for the placement, the waiting and where it stands aside.
 */
#ifndef PACKED_TEAM_H
#define PACKED_TEAM_H

/* The work of thread t of nt. */
typedef void (*packed_team_fn)(void *arg, int t, int nt);

/* Runs fn(arg, t, nt) for t = 0 .. nt - 1, t = 0 on the caller, the others
 * on the team's threads, and returns when all have; 1.  0 (nothing run)
 * where the team stands aside: OMP_DYNAMIC or a caller inside an OpenMP
 * region, another call in the team at the time, nt above the CPUs its
 * threads would have (packed_team.c), or a thread that could not be
 * started; the caller then opens an OpenMP region as before. */
int packed_team_run(int nt, packed_team_fn fn, void *arg);

/* Inside fn: waits until every thread of the run has arrived. */
void packed_team_barrier(void);

#endif
