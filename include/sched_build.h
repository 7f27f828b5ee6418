/* sched_build.h - a schedule's generated C compiled into a shared object by
 * the system C compiler (run without a shell), cached by the digest of what
 * went into it, and loaded (src/sched/compile.c, src/sched/cache.c). */
#ifndef GB_SCHED_BUILD_H
#define GB_SCHED_BUILD_H

#include <signal.h>
#include <stddef.h>

typedef struct gb_sched_so {
    void *handle;          /* dlopen's */
    void *fn;              /* the resolved symbol */
    char path[4096];       /* the object loaded */
    char key[65];          /* sha256 hex of source + compiler identity + flags
                            * (+ this host's CPU: the flags say -march=native) */
    int cached;            /* 1: found in the cache, no compiler ran */
    double compile_ms;     /* wall time of the compiler (0 when cached) */
    char compiler[256];    /* identity: the first line of `$CC --version` */
    char flags[512];       /* the flags used, in the order passed */
} gb_sched_so;

/* The most compiled objects the cache keeps (cache.c removes the least
 * recently used past it). */
#define GB_SCHED_CACHE_MAX_OBJECTS 8192

/* The cache's directory (made if missing, as gb_sched_build makes it), its
 * objects (this user's regular files named KEY.so) and their bytes: 0, or
 * -1 with err. */
int gb_sched_cache_usage(char *dir, size_t dirlen, long *objects, long long *bytes, char *err,
                         size_t errlen);

/* What gb_sched_compiler, gb_sched_compile and gb_sched_build return when
 * the stop flag (gb_sched_set_compile_stop) was raised while the compiler
 * ran: it was killed, its process group too, and its files removed; the
 * caller exits as interrupted rather than report a failed build. */
#define GB_SCHED_INTERRUPTED (-2)

/* The compiler ($CC, default "cc" when unset or empty; one program name or
 * path, never split into words) and its identity, the first line of
 * `$CC --version`.  0, or -1 with err starting "CC '<value>': " when it
 * cannot be run, or GB_SCHED_INTERRUPTED.  Cached per process for each
 * value of $CC (an interrupted probe is not). */
int gb_sched_compiler(char *cc, size_t cclen, char *identity, size_t idlen, char *err, size_t errlen);
/* Forgets the cached compiler, so that the next call runs `$CC --version`
 * again (a test changing $CC; a compiler upgraded under a long run). */
void gb_sched_compiler_reset(void);

/* The flags every schedule is compiled with, space-separated, in order:
 * -std=c11, the build's OPT, -fPIC -shared -fopenmp, the schedules/ flags. */
const char *gb_sched_flags(void);

/* How long the compiler may run before it is killed (its whole process
 * group) and the build fails; 120 s unless set (a test of the kill).
 * ms <= 0 restores the default. */
void gb_sched_set_compile_timeout(int ms);

/* A flag (raised by a signal handler) that kills a compile or a
 * `$CC --version` under way, or NULL: an interrupted run or search does not
 * wait out the compiler, nor leave it running. */
void gb_sched_set_compile_stop(volatile sig_atomic_t *stop);

/* Runs the compiler cc on source_path with gb_sched_flags() into
 * object_path, stdin from /dev/null, stdout and stderr into log_path,
 * LC_ALL=C, bounded by the timeout.  *ms gets its wall time.  0,
 * GB_SCHED_INTERRUPTED, or -1 with one line in err: the log's first error
 * line with the directory of source_path left out, trimmed to about 200
 * characters.  The part of gb_sched_build that runs the compiler (used by
 * cache.c). */
int gb_sched_compile(const char *cc, const char *source_path, const char *object_path,
                     const char *log_path, double *ms, char *err, size_t errlen);

/* The cache directory: $XDG_CACHE_HOME/gemmbench (an absolute
 * XDG_CACHE_HOME only, as the XDG spec says), else $HOME/.cache/gemmbench;
 * created 0700 when missing (parents too).  0, or -1 with err when it cannot
 * be made or is not a directory owned by the effective user and closed to
 * writes by group and others. */
int gb_sched_cache_dir(char *out, size_t len, char *err, size_t errlen);

/* Compiles source (C text) into a shared object and loads symbol from it
 * (NULL: loads only).  The cache first (KEY.so in the cache directory; key:
 * sha256 of the source, the compiler's identity, the flags and this host's
 * CPU), loaded (dlopen RTLD_NOW | RTLD_LOCAL) only when it is a regular
 * file (not a symlink) owned by the effective user, not writable by group
 * or others, an ELF object for this process's machine, and its SHA-256 is
 * the one in its record KEY.sha256; else the compiler runs in a private
 * directory made in the cache directory (mkdtemp, 0700), the object is
 * loaded and its symbol found there, and then its record and the object are
 * renamed into the cache atomically, so processes may share it (cache.c
 * says the trust model).  0 with *out filled, or -1 or GB_SCHED_INTERRUPTED
 * with one line in err: *out then holds no handle, and its compiler, flags
 * and key as far as the build got before failing. */
int gb_sched_build(const char *source, const char *symbol, gb_sched_so *out, char *err, size_t errlen);
/* dlclose and clear; safe on a cleared or failed gb_sched_so. */
void gb_sched_so_close(gb_sched_so *so);

#endif
