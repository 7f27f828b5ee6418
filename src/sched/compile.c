/* compile.c - the system C compiler, run for a schedule's generated C: its
 * identity (`$CC --version`), the flags, and one bounded compile.  The
 * compiler is started from an argument vector (posix_spawnp), never through a
 * shell, so nothing in $CC or a path is interpreted. */
#define _GNU_SOURCE /* environ; posix_spawn and the POSIX calls under -std=c11 */
#include "sched_build.h"
#include "parse.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* The build's OPT and SCHED_FLAGS (Makefile, DEFS); these defaults are the
 * Makefile's, for a build without it. */
#ifndef GB_SCHED_OPT
#define GB_SCHED_OPT "-O3 -march=native"
#endif
#ifndef GB_SCHED_FLAGS
#define GB_SCHED_FLAGS "-fno-tree-vectorize -fno-loop-interchange -ffp-contract=fast -falign-loops=64"
#endif
#define ALL_FLAGS "-std=c11 " GB_SCHED_OPT " -fPIC -shared -fopenmp " GB_SCHED_FLAGS

#define DEFAULT_TIMEOUT_MS 120000
/* $CC as messages show it: escaped and cut (gb_printable), so that a name
 * holding escape bytes or a page of text stays one readable line. */
#define CC_SHOWN_CHARS 80
#define CC_SHOWN (4 * CC_SHOWN_CHARS + 8)
#define MAX_FLAGS 64
#define ERROR_LINE_MAX 200

static int compile_timeout_ms = DEFAULT_TIMEOUT_MS;

/* The flags, one space between words: what is recorded is exactly what the
 * compiler is given, whatever blanks the Makefile's variables carried. */
static char flags_text[512];
static char *flag_words[MAX_FLAGS + 1];
static pthread_once_t flags_once = PTHREAD_ONCE_INIT;

/* The compiler found for one value of $CC, kept for the process. */
static pthread_mutex_t compiler_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    int known;            /* the fields below hold a lookup's result */
    int status;           /* its return value */
    char cc[256];         /* the $CC it was made for */
    char identity[256];
    char err[512];
} compiler_found;

/* Splits ALL_FLAGS once into flags_text and its words (pthread_once: two
 * threads building at once see one result). */
static void split_flags(void)
{
    static char words[sizeof flags_text];
    size_t used = 0;
    int n = 0;
    const char *p = ALL_FLAGS;

    while (*p) {
        while (*p == ' ' || *p == '\t')
            p++;
        size_t len = strcspn(p, " \t");
        if (len == 0)
            break;
        if (n == MAX_FLAGS || used + len + 1 > sizeof words)
            break; /* not reached with the Makefile's flags */
        memcpy(words + used, p, len);
        words[used + len] = '\0';
        flag_words[n++] = words + used;
        used += len + 1;
        p += len;
    }
    flag_words[n] = NULL;
    for (int i = 0; i < n; i++) {
        if (i > 0)
            strcat(flags_text, " ");
        strcat(flags_text, flag_words[i]);
    }
}

const char *gb_sched_flags(void)
{
    pthread_once(&flags_once, split_flags);
    return flags_text;
}

void gb_sched_set_compile_timeout(int ms)
{
    compile_timeout_ms = ms > 0 ? ms : DEFAULT_TIMEOUT_MS;
}

/* Raised (by a signal handler): a compile under way is killed at once. */
static volatile sig_atomic_t *compile_stop;

void gb_sched_set_compile_stop(volatile sig_atomic_t *stop)
{
    compile_stop = stop;
}

static int stopped(void)
{
    return compile_stop != NULL && *compile_stop;
}

/* Monotonic milliseconds: the compile time, unmoved by clock changes. */
static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The environment with LC_ALL=C: the error line and the --version line in
 * ASCII and English whatever the locale.  free() it; NULL: out of memory. */
static char **environment_in_c_locale(void)
{
    size_t n = 0;
    while (environ && environ[n])
        n++;
    char **env = malloc((n + 2) * sizeof *env);
    if (env == NULL)
        return NULL;
    size_t used = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "LC_ALL=", 7) != 0)
            env[used++] = environ[i];
    env[used++] = "LC_ALL=C";
    env[used] = NULL;
    return env;
}

/* How a run of the compiler ended. */
typedef struct run_result {
    int spawn_error;   /* errno of a failed start (0: it started) */
    int timed_out;     /* killed at the bound */
    int stopped;       /* killed because the run was interrupted */
    int wait_status;   /* waitpid's status when it ended on its own */
    double ms;         /* wall time from start to end */
} run_result;

/* Waits on a pidfd, which wakes poll(2) the moment pid ends (exact times);
 * 1 ended (reaped into r), -1 timed out, 0 no pidfd_open (old kernel, qemu). */
static int wait_with_pidfd(pid_t pid, double start, int timeout_ms, run_result *r)
{
#ifdef SYS_pidfd_open
    int fd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (fd < 0)
        return 0;
    for (;;) {
        double left = timeout_ms - (now_ms() - start);
        if (left <= 0 || stopped()) {
            close(fd);
            return -1;
        }
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        /* at most 100 ms at a time: a stop raised just before poll waits */
        int n = poll(&pfd, 1, left < 100 ? (int)left + 1 : 100);
        if (n > 0)
            break;
        if (n < 0 && errno != EINTR) {
            close(fd);
            return 0;
        }
    }
    close(fd);
    while (waitpid(pid, &r->wait_status, 0) < 0) {
        if (errno != EINTR) {
            r->spawn_error = errno; /* ECHILD: someone else reaped it */
            break;
        }
    }
    return 1;
#else
    (void)pid, (void)start, (void)timeout_ms, (void)r;
    return 0;
#endif
}

/* Waits by polling waitpid (1 ms, doubling to 10 ms) where there is no
 * pidfd; 1 ended (reaped into r), -1 timed out. */
static int wait_by_polling(pid_t pid, double start, int timeout_ms, run_result *r)
{
    long sleep_us = 1000;
    for (;;) {
        pid_t done = waitpid(pid, &r->wait_status, WNOHANG);
        if (done == pid)
            return 1;
        if (done < 0 && errno != EINTR) {
            r->spawn_error = errno;
            return 1;
        }
        if (now_ms() - start >= timeout_ms || stopped())
            return -1;
        struct timespec pause = { 0, sleep_us * 1000 };
        nanosleep(&pause, NULL);
        if (sleep_us < 10000)
            sleep_us *= 2;
    }
}

/* Runs argv (PATH lookup), stdin /dev/null, output into output_fd, in its own
 * process group so that a timeout kills cc1, as and ld with the driver. */
static void run_program(char *const argv[], int output_fd, int timeout_ms, run_result *r)
{
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    sigset_t empty, defaults;
    pid_t pid;
    int rc;

    memset(r, 0, sizeof *r);
    if (stopped()) { /* raised before the start: not started */
        r->timed_out = r->stopped = 1;
        return;
    }
    char **env = environment_in_c_locale();
    if (env == NULL) {
        r->spawn_error = ENOMEM;
        return;
    }
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, output_fd, 1);
    posix_spawn_file_actions_adddup2(&actions, output_fd, 2);
    posix_spawnattr_init(&attr);
    sigemptyset(&empty);
    sigemptyset(&defaults);
    /* Dispositions the caller may have changed go back to the default;
     * SIGCHLD ignored would make the driver lose its own children. */
    const int reset[] = { SIGCHLD, SIGPIPE, SIGINT, SIGQUIT, SIGHUP, SIGTERM, SIGXFSZ };
    for (size_t i = 0; i < sizeof reset / sizeof reset[0]; i++)
        sigaddset(&defaults, reset[i]);
    posix_spawnattr_setsigmask(&attr, &empty);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                        POSIX_SPAWN_SETSIGDEF);

    double start = now_ms();
    rc = posix_spawnp(&pid, argv[0], &actions, &attr, argv, env);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    free(env);
    if (rc != 0) {
        r->spawn_error = rc;
        return;
    }

    int ended = wait_with_pidfd(pid, start, timeout_ms, r);
    if (ended == 0)
        ended = wait_by_polling(pid, start, timeout_ms, r);
    if (ended < 0) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL); /* in case the group was never made */
        while (waitpid(pid, &r->wait_status, 0) < 0 && errno == EINTR)
            ;
        r->timed_out = 1;
        r->stopped = stopped();
    }
    r->ms = now_ms() - start;
}

/* text as one printable ASCII line of at most ERROR_LINE_MAX characters,
 * without drop (the private directory: the line says source.c, not a path). */
static void one_line(char *out, size_t outlen, const char *text, size_t len, const char *drop)
{
    size_t drop_len = drop ? strlen(drop) : 0, used = 0;
    for (size_t i = 0; i < len && used + 1 < outlen; i++) {
        if (drop_len && len - i >= drop_len && memcmp(text + i, drop, drop_len) == 0) {
            i += drop_len - 1;
            continue;
        }
        if (used == ERROR_LINE_MAX) {
            if (outlen > ERROR_LINE_MAX + 3)
                memcpy(out + ERROR_LINE_MAX - 3, "...", 3);
            break;
        }
        unsigned char c = (unsigned char)text[i];
        out[used++] = c >= 0x20 && c < 0x7f ? (char)c : ' ';
    }
    while (used > 0 && out[used - 1] == ' ')
        used--;
    out[used] = '\0';
}

/* Reads up to 64 KiB of a file into a NUL-terminated buffer; NULL when it
 * cannot be read.  free() the result. */
static char *read_start_of_file(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return NULL;
    size_t cap = 64 * 1024, used = 0;
    char *buf = malloc(cap + 1);
    while (buf && used < cap) {
        ssize_t got = read(fd, buf + used, cap - used);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        used += (size_t)got;
    }
    close(fd);
    if (buf)
        buf[used] = '\0';
    return buf;
}

/* The line of log worth showing: the first naming an error (GCC's and
 * Clang's "error:", "fatal error:"), else the first that is not blank. */
static const char *pick_error_line(const char *log, size_t *len)
{
    const char *first = NULL;
    for (const char *line = log; *line; ) {
        size_t n = strcspn(line, "\n");
        const char *hit = strstr(line, "error");
        if (hit && hit < line + n) {
            *len = n;
            return line;
        }
        if (first == NULL && strspn(line, " \t\r") < n) {
            first = line;
            *len = n;
        }
        line += n + (line[n] == '\n');
    }
    return first;
}

/* One line saying how the compiler ended when it failed. */
static void describe_failure(const char *cc, const run_result *r, const char *log_path,
                             const char *drop, char *err, size_t errlen)
{
    char line[ERROR_LINE_MAX + 8] = "";

    if (r->stopped) {
        snprintf(err, errlen, "%s: stopped: the run was interrupted", cc);
        return;
    }
    if (r->timed_out) {
        snprintf(err, errlen, "%s: killed after %.0f s, the bound on a compile", cc,
                 compile_timeout_ms / 1e3);
        return;
    }
    char *log = read_start_of_file(log_path);
    size_t len = 0;
    const char *picked = log ? pick_error_line(log, &len) : NULL;
    if (picked)
        one_line(line, sizeof line, picked, len, drop);
    free(log);
    if (line[0])
        snprintf(err, errlen, "%s: %s", cc, line);
    else if (WIFSIGNALED(r->wait_status))
        snprintf(err, errlen, "%s: killed by signal %d", cc, WTERMSIG(r->wait_status));
    else
        snprintf(err, errlen, "%s: exit status %d and no message", cc,
                 WEXITSTATUS(r->wait_status));
}

/* An unnamed file (deleted at close) for `$CC --version` to write into;
 * close-on-exec, so that only the dup2'd copy reaches the child. */
static FILE *scratch_file(void)
{
    FILE *f = tmpfile();
    if (f)
        fcntl(fileno(f), F_SETFD, FD_CLOEXEC);
    return f;
}

/* Runs `cc --version` and keeps the first line of its output in identity;
 * 0, or -1 or GB_SCHED_INTERRUPTED with err starting "CC 'cc': ". */
static int find_identity(const char *cc, char *identity, size_t idlen, char *err, size_t errlen)
{
    char *argv[] = { (char *)cc, "--version", NULL };
    char shown[CC_SHOWN];
    run_result r;
    FILE *out = scratch_file();

    gb_printable(cc, CC_SHOWN_CHARS, shown, sizeof shown);

    if (out == NULL) {
        snprintf(err, errlen, "CC '%s': no temporary file for its --version (%s)", shown,
                 strerror(errno));
        return -1;
    }
    run_program(argv, fileno(out), compile_timeout_ms, &r);
    if (r.stopped) {
        snprintf(err, errlen, "CC '%s': '%s --version' stopped: the run was interrupted", shown,
                 shown);
        fclose(out);
        return GB_SCHED_INTERRUPTED;
    }
    if (r.spawn_error) {
        snprintf(err, errlen, "CC '%s': cannot be run (%s)", shown, strerror(r.spawn_error));
        fclose(out);
        return -1;
    }
    /* 127: the exec failed where posix_spawnp could not tell (qemu-user). */
    if (!r.timed_out && WIFEXITED(r.wait_status) && WEXITSTATUS(r.wait_status) == 127) {
        snprintf(err, errlen, "CC '%s': cannot be run (exit status 127)", shown);
        fclose(out);
        return -1;
    }
    if (r.timed_out || !WIFEXITED(r.wait_status) || WEXITSTATUS(r.wait_status) != 0) {
        snprintf(err, errlen, "CC '%s': '%s --version' %s", shown, shown,
                 r.timed_out ? "did not finish" : "failed");
        fclose(out);
        return -1;
    }
    char first[1024] = "";
    rewind(out);
    if (fgets(first, sizeof first, out) == NULL)
        first[0] = '\0';
    fclose(out);
    one_line(identity, idlen, first, strcspn(first, "\r\n"), NULL);
    if (identity[0] == '\0') {
        snprintf(err, errlen, "CC '%s': '%s --version' printed nothing", shown, shown);
        return -1;
    }
    return 0;
}

int gb_sched_compiler(char *cc, size_t cclen, char *identity, size_t idlen, char *err, size_t errlen)
{
    const char *value = getenv("CC");
    if (value == NULL || value[0] == '\0')
        value = "cc";
    char shown[CC_SHOWN];
    gb_printable(value, CC_SHOWN_CHARS, shown, sizeof shown);
    if (strlen(value) >= sizeof compiler_found.cc) {
        snprintf(err, errlen, "CC '%s': longer than %zu characters", shown,
                 sizeof compiler_found.cc - 1);
        return -1;
    }

    pthread_mutex_lock(&compiler_lock);
    if (!compiler_found.known || strcmp(compiler_found.cc, value) != 0) {
        memset(&compiler_found, 0, sizeof compiler_found);
        strcpy(compiler_found.cc, value);
        compiler_found.status = find_identity(value, compiler_found.identity,
                                              sizeof compiler_found.identity,
                                              compiler_found.err, sizeof compiler_found.err);
        /* An interrupted probe says nothing of the compiler: asked again. */
        compiler_found.known = compiler_found.status != GB_SCHED_INTERRUPTED;
    }
    int status = compiler_found.status;
    if (status == 0 && (strlen(compiler_found.cc) >= cclen ||
                        strlen(compiler_found.identity) >= idlen)) {
        snprintf(err, errlen, "CC '%s': its name or identity does not fit the buffer", shown);
        status = -1;
    } else if (status == 0) {
        strcpy(cc, compiler_found.cc);
        strcpy(identity, compiler_found.identity);
    } else {
        snprintf(err, errlen, "%s", compiler_found.err);
    }
    pthread_mutex_unlock(&compiler_lock);
    return status;
}

void gb_sched_compiler_reset(void)
{
    pthread_mutex_lock(&compiler_lock);
    memset(&compiler_found, 0, sizeof compiler_found);
    pthread_mutex_unlock(&compiler_lock);
}

int gb_sched_compile(const char *cc, const char *source_path, const char *object_path,
                     const char *log_path, double *ms, char *err, size_t errlen)
{
    char *argv[MAX_FLAGS + 5];
    char shown[CC_SHOWN];
    int n = 0;

    *ms = 0;
    gb_printable(cc, CC_SHOWN_CHARS, shown, sizeof shown);
    gb_sched_flags();
    argv[n++] = (char *)cc;
    for (int i = 0; flag_words[i]; i++)
        argv[n++] = flag_words[i];
    argv[n++] = "-o";
    argv[n++] = (char *)object_path;
    argv[n++] = (char *)source_path;
    argv[n] = NULL;

    int log_fd = open(log_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (log_fd < 0) {
        snprintf(err, errlen, "%s: cannot create its log '%s' (%s)", shown, log_path,
                 strerror(errno));
        return -1;
    }
    run_result r;
    run_program(argv, log_fd, compile_timeout_ms, &r);
    close(log_fd);
    *ms = r.ms;
    if (r.spawn_error) {
        snprintf(err, errlen, "CC '%s': cannot be run (%s)", shown, strerror(r.spawn_error));
        return -1;
    }
    if (!r.timed_out && WIFEXITED(r.wait_status) && WEXITSTATUS(r.wait_status) == 0)
        return 0;

    /* The directory of source_path, with its slash, left out of the line. */
    char drop[4096];
    const char *slash = strrchr(source_path, '/');
    size_t dir_len = slash ? (size_t)(slash - source_path) + 1 : 0;
    if (dir_len >= sizeof drop)
        dir_len = 0;
    memcpy(drop, source_path, dir_len);
    drop[dir_len] = '\0';
    describe_failure(shown, &r, log_path, dir_len ? drop : NULL, err, errlen);
    return r.stopped ? GB_SCHED_INTERRUPTED : -1;
}
