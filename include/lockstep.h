/*
 * lockstep.h - gemmbench ab's two builds taking turns entry by entry.
 *
 * In a round, both builds' processes run at once but never measure at once:
 * each stops before every measurement and waits for its turn, and ab gives
 * the turn for one entry to OLD and NEW in a fresh random order, so that the
 * two measurements of an entry are milliseconds apart instead of a whole
 * sweep.  The process not measuring is stopped (SIGSTOP) while the other
 * measures: its OpenMP and BLAS threads, which spin for a while after a
 * parallel region, cannot take a CPU from the measurement.  Each round
 * process leads a process group of its own, so that a wrapper script that
 * does not exec is stopped with the gemmbench it started.
 *
 * The protocol, one line each way, over two pipes that ab sets up as the
 * round process's file descriptors 3 (ab to the build) and 4 (back):
 *
 *   build -> ab   "plan KEY"   once per measurement of the round, in order,
 *                              before anything else (KEY: the entry and shape)
 *   build -> ab   "wait setup" then waits: its peak and first shape come next
 *   build -> ab   "wait I"     about to measure the plan's I-th (from 0); waits
 *   build -> ab   "wait more"  in the middle of that measurement: a slice of
 *                              its timed calls is done; waits for the next
 *   build -> ab   "wait done"  the sweep is over; waits, then writes its file
 *   ab -> build   "go"         take the turn
 *
 * Slices: an entry's two measurements in a round are not one block each but
 * alternate in slices of about GB_LOCKSTEP_SLICE seconds of timed calls (a
 * fresh random order for every pair of slices), so that both builds sample
 * the same stretch of the machine's time even when a round's calls of an
 * entry take long: on a shared VM the speed of a CPU changes within 0.1 s.
 * ab asks for slices through the environment variable GB_LOCKSTEP_SLICE_ENV
 * (seconds); a build that does not see it, or one older than slices, measures
 * each entry in one turn, and ab pairs it as before.
 *
 * End of file on descriptor 3 means ab is gone or interrupted: the build
 * stops as on Ctrl-C and keeps what it measured.
 */
#ifndef GB_LOCKSTEP_H
#define GB_LOCKSTEP_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#define GB_LOCKSTEP_IN 3     /* the build reads "go" here */
#define GB_LOCKSTEP_OUT 4    /* and writes its lines here */
#define GB_LOCKSTEP_KEY_LEN 256
#define GB_LOCKSTEP_SLICE_ENV "GEMMBENCH_AB_SLICE"
#define GB_LOCKSTEP_SLICE 0.002  /* seconds of timed calls per turn */

/* ---- the build's side (the run command with --lockstep) ---- */

/* 0 when descriptors 3 and 4 are open, else -1 with err. */
int gb_lockstep_check(char *err, size_t errlen);
/* One line to ab.  0, or -1 when ab is gone. */
int gb_lockstep_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "wait WHAT", then blocks until "go": 0, or -1 when ab is gone. */
int gb_lockstep_wait(const char *what);
/* The slice ab asked for (seconds), or 0: no slices. */
double gb_lockstep_slice(void);

/* ---- ab's side ---- */

typedef struct gb_lockstep_child {
    const char *name;        /* OLD or NEW, for messages */
    pid_t pid;
    int to, from;            /* ab's ends of the two pipes */
    char **plan;             /* the keys of its round, in order */
    int nplan;
    int next;                /* what it waits for: -1 setup, 0..nplan-1 a
                                measurement, nplan done */
    int more;                /* in the middle of measurement next (a slice done) */
    int gone;                /* it closed its pipe (exited or crashed) */
    int stopped;             /* ab stopped it (SIGSTOP), and saw it stop */
    int reaped, status;      /* it ended while ab waited for it to stop */
} gb_lockstep_child;

/* Drives one round of two started processes to the end of their sweeps,
 * turn by turn; after it, both wait to write their files: gb_lockstep_finish
 * lets each go in turn.  rng is the state of the turn order.  on_turn, when
 * not NULL, hears of every turn (progress).  0; -1 when interrupted, -2 out
 * of memory (the caller then abandons both). */
int gb_lockstep_round(gb_lockstep_child c[2], unsigned *rng,
                      void (*on_turn)(void *arg, int done, int total), void *arg,
                      volatile sig_atomic_t *interrupted);
/* Lets c finish (writes its file, exits) alone, and reaps it: its exit status. */
int gb_lockstep_finish(gb_lockstep_child *c);
/* Interrupted or failed: continues c, closes its pipe (it stops and keeps what
 * it has), reaps it: its exit status. */
int gb_lockstep_abandon(gb_lockstep_child *c);
void gb_lockstep_free(gb_lockstep_child *c);

#endif
