/* cache.c - the compiled schedules: a directory of KEY.so objects named by
 * the SHA-256 of everything that decides their code, built through
 * compile.c when missing, and loaded only when they are this user's own and
 * exactly what this program compiled.
 *
 * Trust: the cache directory must be the effective user's and closed to
 * writes by group and others, so that no one else can place, replace or
 * rename a file in it.  Within it, an object is loaded only when its
 * SHA-256 matches its record, KEY.sha256, which is written (a temporary
 * file renamed) only after that object was compiled here, loaded from its
 * private directory and found to hold the symbol asked for; the object then
 * takes its name by rename, so a failed compile never leaves a KEY.so.  A
 * KEY.so without a record, or whose bytes do not match it (truncated by a
 * full disk, planted, damaged), is never mapped: it is read, not dlopen'ed,
 * and compiled again over it, so none of its constructors runs.  A symbolic
 * link, another owner's file or one writable by group or others is refused
 * by name and left as found.  The record guards against damage and against
 * files this program did not make; it is no defence against someone with
 * the user's own rights, who can write a record as well.
 *
 * Size: every schedule, shape and parameter set is an object of its own
 * (tune --space and ml_guided make thousands), so the cache keeps at most
 * CACHE_MAX_OBJECTS: a compile that stores one more removes the least
 * recently used objects (and their records) down to CACHE_KEEP_OBJECTS,
 * used meaning compiled or loaded (a load sets the object's mtime).  Only
 * this user's regular files named KEY.so are counted and removed. */
#define _GNU_SOURCE /* mkdtemp, lstat, O_NOFOLLOW under -std=c11 */
#include "sched_build.h"
#include "sha256.h"

#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* The ELF machine this process runs as: an object compiled for another
 * (a host compiler seen from under qemu-user) is refused by name, where
 * dlopen would say only "No such file or directory".  0: not checked. */
#if defined(__x86_64__)
#define PROCESS_ELF_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define PROCESS_ELF_MACHINE EM_AARCH64
#elif defined(__i386__)
#define PROCESS_ELF_MACHINE EM_386
#elif defined(__powerpc64__)
#define PROCESS_ELF_MACHINE EM_PPC64
#elif defined(__riscv)
#define PROCESS_ELF_MACHINE EM_RISCV
#elif defined(__s390x__)
#define PROCESS_ELF_MACHINE EM_S390
#else
#define PROCESS_ELF_MACHINE 0
#endif

/* About 20 KiB an object (x86-64, GCC 12: 1156 objects took 23.9 MB):
 * 8192 are about 160 MiB.  Every compile counts the directory's names;
 * only past the cap are the objects stat'ed, sorted and removed, down to
 * 7/8 of it, so that happens once in 1024 compiles. */
#define CACHE_MAX_OBJECTS GB_SCHED_CACHE_MAX_OBJECTS
#define CACHE_KEEP_OBJECTS (CACHE_MAX_OBJECTS / 8 * 7)

/* What the checks and the load found, so that a cached object that cannot
 * be loaded is compiled again while one that must not be loaded is refused. */
enum { LOAD_OK = 0, LOAD_REFUSED = -1, LOAD_FAILED = -2, LOAD_NO_SYMBOL = -3 };

/* Creates every missing directory of path, each 0700 as the XDG spec asks
 * for the ones it makes; 0, or -1 with err. */
static int make_directories(const char *path, char *err, size_t errlen)
{
    char partial[4096];
    size_t len = strlen(path);

    if (len >= sizeof partial) {
        snprintf(err, errlen, "cache directory '%.60s...': path too long", path);
        return -1;
    }
    memcpy(partial, path, len + 1);
    for (size_t i = 1; i <= len; i++) {
        if (partial[i] != '/' && partial[i] != '\0')
            continue;
        char saved = partial[i];
        partial[i] = '\0';
        if (mkdir(partial, 0700) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "cache directory: cannot create '%s' (%s)", partial,
                     strerror(errno));
            return -1;
        }
        partial[i] = saved;
    }
    return 0;
}

/* An absolute $XDG_CACHE_HOME (the XDG spec ignores a relative one), else
 * $HOME/.cache, else the password entry's; 0, or -1 with err. */
static int cache_base(char *out, size_t len, char *err, size_t errlen)
{
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;

    if (xdg && xdg[0] == '/') {
        n = snprintf(out, len, "%s", xdg);
    } else {
        if (home == NULL || home[0] != '/') {
            const struct passwd *pw = getpwuid(geteuid());
            home = pw ? pw->pw_dir : NULL;
        }
        if (home == NULL || home[0] != '/') {
            snprintf(err, errlen, "cache directory: neither XDG_CACHE_HOME nor HOME is an absolute path");
            return -1;
        }
        n = snprintf(out, len, "%s/.cache", home);
    }
    if (n < 0 || (size_t)n >= len) {
        snprintf(err, errlen, "cache directory: path too long");
        return -1;
    }
    return 0;
}

int gb_sched_cache_dir(char *out, size_t len, char *err, size_t errlen)
{
    char base[4096], path[4096];
    struct stat st;

    if (cache_base(base, sizeof base, err, errlen) != 0)
        return -1;
    if ((size_t)snprintf(path, sizeof path, "%s/gemmbench", base) >= sizeof path) {
        snprintf(err, errlen, "cache directory: path too long");
        return -1;
    }
    if (make_directories(path, err, errlen) != 0)
        return -1;
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "cache directory '%s': %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "cache directory '%s': not a directory", path);
        return -1;
    }
    if (st.st_uid != geteuid()) {
        snprintf(err, errlen, "cache directory '%s': owned by uid %lu, not by uid %lu: refused",
                 path, (unsigned long)st.st_uid, (unsigned long)geteuid());
        return -1;
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        snprintf(err, errlen,
                 "cache directory '%s': writable by group or others (mode %04o): refused",
                 path, (unsigned)(st.st_mode & 07777));
        return -1;
    }
    if (strlen(path) >= len) {
        snprintf(err, errlen, "cache directory '%s': longer than the buffer", path);
        return -1;
    }
    strcpy(out, path);
    return 0;
}

/* The first CPU's model and feature lines of /proc/cpuinfo: -march=native
 * objects must not pass between machines sharing a cache (an NFS home). */
static void host_cpu(char *out, size_t len)
{
    static const char *const wanted[] = {
        "vendor_id", "cpu family", "model", "model name", "stepping", "flags",
        "Features", "CPU implementer", "CPU architecture", "CPU variant", "CPU part",
        "CPU revision", "cpu", "isa", "uarch", NULL,
    };
    char line[8192];
    size_t used = 0;

    out[0] = '\0';
    FILE *f = fopen("/proc/cpuinfo", "re");
    if (f == NULL)
        return;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '\n')
            break; /* the end of the first processor's block */
        char *colon = strchr(line, ':');
        if (colon == NULL)
            continue;
        size_t name_len = (size_t)(colon - line);
        while (name_len > 0 && (line[name_len - 1] == ' ' || line[name_len - 1] == '\t'))
            name_len--;
        for (int i = 0; wanted[i]; i++) {
            if (strlen(wanted[i]) == name_len && strncmp(line, wanted[i], name_len) == 0) {
                size_t n = strlen(line);
                if (used + n < len) {
                    memcpy(out + used, line, n + 1);
                    used += n;
                }
                break;
            }
        }
    }
    fclose(f);
}

/* The key: SHA-256 over a format tag and each part with its NUL (no part
 * holds one), so that no two different sets of parts hash the same text. */
static void make_key(const char *source, const char *identity, const char *flags,
                     const char *host, char key[65])
{
    static const char format[] = "gemmbench schedule object 1";
    const char *parts[] = { format, source, identity, flags, host };
    unsigned char digest[32];
    struct sha256_ctx ctx;

    sha256_init(&ctx);
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        sha256_update(&ctx, strlen(parts[i]) + 1, (const uint8_t *)parts[i]);
    sha256_digest(&ctx, sizeof digest, digest);
    gb_sha256_hex(digest, key);
}

/* Refuses all but a regular file (lstat: a symlink is not followed) of the
 * effective user, closed to writes by group and others; *st: what was seen. */
static int check_object_file(const char *path, struct stat *st, char *err, size_t errlen)
{
    if (lstat(path, st) != 0) {
        snprintf(err, errlen, "object '%s': %s", path, strerror(errno));
        return LOAD_FAILED;
    }
    if (S_ISLNK(st->st_mode)) {
        snprintf(err, errlen, "object '%s': a symbolic link: refused", path);
        return LOAD_REFUSED;
    }
    if (!S_ISREG(st->st_mode)) {
        snprintf(err, errlen, "object '%s': not a regular file: refused", path);
        return LOAD_REFUSED;
    }
    if (st->st_uid != geteuid()) {
        snprintf(err, errlen, "object '%s': owned by uid %lu, not by uid %lu: refused", path,
                 (unsigned long)st->st_uid, (unsigned long)geteuid());
        return LOAD_REFUSED;
    }
    if (st->st_mode & (S_IWGRP | S_IWOTH)) {
        snprintf(err, errlen, "object '%s': writable by group or others (mode %04o): refused",
                 path, (unsigned)(st->st_mode & 07777));
        return LOAD_REFUSED;
    }
    return LOAD_OK;
}

/* The SHA-256 of everything fd reads from where it is, in hex; 0, or -1
 * (errno set).  read(2), never mmap: a file cut short is an error here, not
 * a SIGBUS. */
static int hash_file(int fd, char hex[65])
{
    unsigned char buf[65536], digest[32];
    struct sha256_ctx ctx;
    ssize_t got;

    sha256_init(&ctx);
    for (;;) {
        got = read(fd, buf, sizeof buf);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return -1;
        if (got == 0)
            break;
        sha256_update(&ctx, (size_t)got, buf);
    }
    sha256_digest(&ctx, sizeof digest, digest);
    gb_sha256_hex(digest, hex);
    return 0;
}

/* Same inode, and an ELF object of this process's class and machine?  Then
 * hex gets the SHA-256 of the whole file.  Else LOAD_FAILED (truncated,
 * foreign: compile again) or LOAD_REFUSED (swapped). */
static int check_object_bytes(const char *path, const struct stat *checked, char hex[65],
                              char *err, size_t errlen)
{
    unsigned char header[64];
    struct stat st;
    ssize_t got;

    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "object '%s': %s", path, strerror(errno));
        return LOAD_FAILED;
    }
    if (fstat(fd, &st) != 0 || st.st_dev != checked->st_dev || st.st_ino != checked->st_ino) {
        close(fd);
        snprintf(err, errlen, "object '%s': replaced while it was checked: refused", path);
        return LOAD_REFUSED;
    }
    do
        got = read(fd, header, sizeof header);
    while (got < 0 && errno == EINTR);

    int wanted_class = sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32;
    if (got < 20 || memcmp(header, ELFMAG, SELFMAG) != 0 || header[EI_CLASS] != wanted_class) {
        close(fd);
        snprintf(err, errlen, "object '%s': not an ELF object of this process's class", path);
        return LOAD_FAILED;
    }
    /* e_machine: the two bytes at 18 in either class, in the file's order. */
    unsigned machine = header[EI_DATA] == ELFDATA2MSB ? (unsigned)header[18] << 8 | header[19]
                                                      : (unsigned)header[19] << 8 | header[18];
    if (PROCESS_ELF_MACHINE != 0 && machine != PROCESS_ELF_MACHINE) {
        close(fd);
        snprintf(err, errlen,
                 "object '%s': built for ELF machine %u, this process is machine %u "
                 "(a compiler for another architecture?)",
                 path, machine, (unsigned)PROCESS_ELF_MACHINE);
        return LOAD_FAILED;
    }
    if (lseek(fd, 0, SEEK_SET) != 0 || hash_file(fd, hex) != 0) {
        snprintf(err, errlen, "object '%s': %s", path, strerror(errno));
        close(fd);
        return LOAD_FAILED;
    }
    close(fd);
    return LOAD_OK;
}

/* The object's record: 64 hex digits and a newline in KEY.sha256, a regular
 * file of the effective user (never through a link, never a FIFO's wait).
 * 0 with hex, or -1 when there is no such record: the object is then
 * compiled again, whatever else the file holds. */
static int read_record(const char *path, char hex[65])
{
    char text[66];
    struct stat st;
    size_t used = 0;

    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & (S_IWGRP | S_IWOTH)) || st.st_size != 65) {
        close(fd);
        return -1;
    }
    while (used < sizeof text) {
        ssize_t got = read(fd, text + used, sizeof text - used);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        used += (size_t)got;
    }
    close(fd);
    if (used != 65 || text[64] != '\n')
        return -1;
    for (int i = 0; i < 64; i++)
        if (!((text[i] >= '0' && text[i] <= '9') || (text[i] >= 'a' && text[i] <= 'f')))
            return -1;
    memcpy(hex, text, 64);
    hex[64] = '\0';
    return 0;
}

/* dlopen's path and resolves symbol (NULL: none) into out; LOAD_* with err. */
static int open_object(const char *path, gb_sched_so *out, const char *symbol, char *err,
                       size_t errlen)
{
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *why = dlerror();
        snprintf(err, errlen, "dlopen: %s", why ? why : "failed");
        return LOAD_FAILED;
    }
    void *fn = NULL;
    if (symbol) {
        dlerror();
        fn = dlsym(handle, symbol);
        if (fn == NULL) {
            snprintf(err, errlen, "object '%s': no symbol '%s'", out->path, symbol);
            dlclose(handle);
            return LOAD_NO_SYMBOL;
        }
    }
    out->handle = handle;
    out->fn = fn;
    return LOAD_OK;
}

/* Checks the cached out->path against its record at record_path, and only
 * then loads it and resolves symbol into out; LOAD_* with err.  LOAD_FAILED
 * (no record, another hash, cut short): compile again. */
static int load_cached(gb_sched_so *out, const char *record_path, const char *symbol,
                       char *err, size_t errlen)
{
    char hex[65], recorded[65];
    struct stat st;
    int rc = check_object_file(out->path, &st, err, errlen);
    if (rc == LOAD_OK)
        rc = check_object_bytes(out->path, &st, hex, err, errlen);
    if (rc != LOAD_OK)
        return rc;
    if (read_record(record_path, recorded) != 0 || strcmp(hex, recorded) != 0) {
        snprintf(err, errlen, "object '%s': not the object recorded for it", out->path);
        return LOAD_FAILED;
    }
    return open_object(out->path, out, symbol, err, errlen);
}

/* Writes text to a new file (never an existing one, never through a
 * link), mode 0600; 0, or -1 with err. */
static int write_new_file(const char *path, const char *text, char *err, size_t errlen)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    size_t len = strlen(text), done = 0;

    if (fd < 0) {
        snprintf(err, errlen, "cannot create '%s' (%s)", path, strerror(errno));
        return -1;
    }
    while (done < len) {
        ssize_t n = write(fd, text + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            snprintf(err, errlen, "cannot write '%s' (%s)", path, strerror(errno));
            close(fd);
            return -1;
        }
        done += (size_t)n;
    }
    if (close(fd) != 0) {
        snprintf(err, errlen, "cannot write '%s' (%s)", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* Removes the private directory and the files in it (the source, the log,
 * an object or record left by a failure): nothing of a build stays but
 * KEY.so and KEY.sha256. */
static void remove_private_dir(const char *path)
{
    DIR *dir = opendir(path);
    if (dir) {
        const struct dirent *e;
        while ((e = readdir(dir)) != NULL)
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
                unlinkat(dirfd(dir), e->d_name, 0);
        closedir(dir);
    }
    rmdir(path);
}

/* Compiles in a private directory in the cache directory and checks the
 * object there: an ELF object for this machine, loaded, holding symbol.
 * Only then its record goes to record_path and the object over out->path,
 * each by rename(2) within one file system, so that a process sharing the
 * cache sees a whole file or none, and a failed build leaves no KEY.so.
 * Two processes building one key at once each load their own object; the
 * last renames win, and a record and object of different builds (a
 * compiler whose output varies) only mean one more compile later.  0 with
 * out->handle and out->fn, or -1 or GB_SCHED_INTERRUPTED with err. */
static int compile_into_cache(const char *source, const char *symbol, const char *cc,
                              const char *cache_dir, const char *record_path, gb_sched_so *out,
                              char *err, size_t errlen)
{
    char dir[4096], source_path[4096 + 16], object_path[4096 + 80], log_path[4096 + 16];
    char record_temp[4096 + 16], hex[65], line[66];
    struct stat st;
    int rc = -1;

    if ((size_t)snprintf(dir, sizeof dir, "%s/tmp.XXXXXX", cache_dir) >= sizeof dir) {
        snprintf(err, errlen, "cache directory '%s': path too long", cache_dir);
        return -1;
    }
    if (mkdtemp(dir) == NULL) {
        snprintf(err, errlen, "cache directory '%s': cannot make a private directory (%s)",
                 cache_dir, strerror(errno));
        return -1;
    }
    snprintf(source_path, sizeof source_path, "%s/source.c", dir);
    snprintf(object_path, sizeof object_path, "%s/%s.so", dir, out->key);
    snprintf(log_path, sizeof log_path, "%s/compiler.log", dir);
    snprintf(record_temp, sizeof record_temp, "%s/record", dir);

    if (write_new_file(source_path, source, err, errlen) != 0)
        goto done;
    rc = gb_sched_compile(cc, source_path, object_path, log_path, &out->compile_ms, err, errlen);
    if (rc != 0)
        goto done;
    rc = -1;
    /* The linker's mode follows the umask; 002 would leave a group-writable
     * object that the check before dlopen refuses. */
    if (chmod(object_path, 0700) != 0 || lstat(object_path, &st) != 0) {
        snprintf(err, errlen, "%s: no object '%s' (%s)", cc, object_path, strerror(errno));
        goto done;
    }
    if (check_object_bytes(object_path, &st, hex, err, errlen) != LOAD_OK)
        goto done;
    /* Loaded where it was made (its constructors are the compiler's work,
     * which runs at any load): a missing symbol is seen before the object
     * has a name in the cache. */
    int loaded = open_object(object_path, out, symbol, err, errlen);
    if (loaded == LOAD_NO_SYMBOL)
        snprintf(err, errlen, "%s: its object has no symbol '%s' (not cached)", cc, symbol);
    if (loaded != LOAD_OK)
        goto done;
    snprintf(line, sizeof line, "%s\n", hex);
    if (write_new_file(record_temp, line, err, errlen) != 0)
        goto done;
    if (rename(record_temp, record_path) != 0) {
        snprintf(err, errlen, "cannot rename the record to '%s' (%s)", record_path,
                 strerror(errno));
        goto done;
    }
    if (rename(object_path, out->path) != 0) {
        snprintf(err, errlen, "cannot rename the object to '%s' (%s)", out->path,
                 strerror(errno));
        goto done;
    }
    rc = 0;
done:
    if (rc != 0 && out->handle) {
        dlclose(out->handle);
        out->handle = out->fn = NULL;
    }
    remove_private_dir(dir);
    return rc;
}

/* An object's name: 64 lowercase hex digits and ".so". */
static int object_name(const char *name)
{
    if (strlen(name) != 67)
        return 0;
    for (size_t i = 0; i < 64; i++)
        if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
            return 0;
    return strcmp(name + 64, ".so") == 0;
}

/* One of the cache's objects in the directory dir: an object's name, a
 * regular file (not followed through a link) of the effective user; *st. */
static int own_object(DIR *dir, const char *name, struct stat *st)
{
    return object_name(name) && fstatat(dirfd(dir), name, st, AT_SYMLINK_NOFOLLOW) == 0 &&
           S_ISREG(st->st_mode) && st->st_uid == geteuid();
}

typedef struct cached_object {
    struct timespec used;
    char key[65];
} cached_object;

static int least_recent_first(const void *a, const void *b)
{
    const cached_object *x = a, *y = b;

    if (x->used.tv_sec != y->used.tv_sec)
        return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
    if (x->used.tv_nsec != y->used.tv_nsec)
        return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
    return strcmp(x->key, y->key);
}

/* Past CACHE_MAX_OBJECTS objects of this user in cache_dir, removes the
 * least recently used (and their records) down to CACHE_KEEP_OBJECTS,
 * never `keep` (the object just made).  Nothing else is touched: another
 * owner's file, a link, a name of another form.  A process loading an
 * object removed here finds none (or no record) and compiles it again;
 * one that has it mapped keeps it.  Best effort: a failure leaves the
 * cache larger, never a run failed. */
static void prune_cache(const char *cache_dir, const char *keep)
{
    cached_object *objects = NULL;
    size_t count = 0, room = 0;
    const struct dirent *e;
    DIR *dir = opendir(cache_dir);

    if (dir == NULL)
        return;
    while ((e = readdir(dir)) != NULL)
        count += object_name(e->d_name);
    if (count <= CACHE_MAX_OBJECTS) {
        closedir(dir);
        return;
    }
    count = 0;
    rewinddir(dir);
    while ((e = readdir(dir)) != NULL) {
        struct stat st;
        if (strncmp(e->d_name, keep, 64) == 0 || !own_object(dir, e->d_name, &st))
            continue;
        if (count == room) {
            cached_object *grown;
            room = room ? room * 2 : 1024;
            grown = realloc(objects, room * sizeof *objects);
            if (grown == NULL)
                goto done;
            objects = grown;
        }
        objects[count].used = st.st_mtim;
        memcpy(objects[count].key, e->d_name, 64);
        objects[count].key[64] = '\0';
        count++;
    }
    /* count excludes keep: the cache holds count + 1 */
    if (count + 1 > CACHE_MAX_OBJECTS) {
        char name[80];
        qsort(objects, count, sizeof *objects, least_recent_first);
        for (size_t i = 0; i + CACHE_KEEP_OBJECTS < count + 1; i++) {
            snprintf(name, sizeof name, "%s.so", objects[i].key);
            unlinkat(dirfd(dir), name, 0);
            snprintf(name, sizeof name, "%s.sha256", objects[i].key);
            unlinkat(dirfd(dir), name, 0);
        }
    }
done:
    free(objects);
    closedir(dir);
}

int gb_sched_cache_usage(char *dir, size_t dirlen, long *objects, long long *bytes, char *err,
                         size_t errlen)
{
    const struct dirent *e;
    DIR *d;

    *objects = 0;
    *bytes = 0;
    if (gb_sched_cache_dir(dir, dirlen, err, errlen) != 0)
        return -1;
    d = opendir(dir);
    if (d == NULL) {
        snprintf(err, errlen, "cache directory '%s': %s", dir, strerror(errno));
        return -1;
    }
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        if (own_object(d, e->d_name, &st)) {
            (*objects)++;
            *bytes += (long long)st.st_size;
        }
    }
    closedir(d);
    return 0;
}

int gb_sched_build(const char *source, const char *symbol, gb_sched_so *out, char *err, size_t errlen)
{
    char cc[256], cache_dir[4096], host[4096], record_path[4096];
    struct stat st;
    int rc;

    memset(out, 0, sizeof *out);
    if (source == NULL) {
        snprintf(err, errlen, "no source to compile");
        return -1;
    }
    rc = gb_sched_compiler(cc, sizeof cc, out->compiler, sizeof out->compiler, err, errlen);
    if (rc != 0)
        return rc;
    snprintf(out->flags, sizeof out->flags, "%s", gb_sched_flags());
    host_cpu(host, sizeof host);
    make_key(source, out->compiler, out->flags, host, out->key);
    if (gb_sched_cache_dir(cache_dir, sizeof cache_dir, err, errlen) != 0)
        return -1;
    if ((size_t)snprintf(out->path, sizeof out->path, "%s/%s.so", cache_dir, out->key) >=
            sizeof out->path ||
        (size_t)snprintf(record_path, sizeof record_path, "%s/%s.sha256", cache_dir,
                         out->key) >= sizeof record_path) {
        snprintf(err, errlen, "cache directory '%s': path too long", cache_dir);
        return -1;
    }

    if (lstat(out->path, &st) == 0) {
        rc = load_cached(out, record_path, symbol, err, errlen);
        if (rc == LOAD_OK) {
            /* used now: the last the cache removes (its mtime, this user's
             * own file; a failure only makes it look older) */
            utimensat(AT_FDCWD, out->path, NULL, AT_SYMLINK_NOFOLLOW);
            out->cached = 1;
            return 0;
        }
        if (rc != LOAD_FAILED)
            return -1;
        /* Unrecorded, truncated, foreign or otherwise unloadable: made
         * again below, over it. */
    } else if (errno != ENOENT) {
        snprintf(err, errlen, "object '%s': %s", out->path, strerror(errno));
        return -1;
    }
    rc = compile_into_cache(source, symbol, cc, cache_dir, record_path, out, err, errlen);
    if (rc == 0)
        prune_cache(cache_dir, out->key);
    return rc;
}

void gb_sched_so_close(gb_sched_so *so)
{
    if (so->handle)
        dlclose(so->handle);
    memset(so, 0, sizeof *so);
}
