/* test_sched_build.c - SHA-256 (Debian's nettle, one-shot through sha256.h
 * and in pieces) against the FIPS 180-4 examples, and the schedule compiler:
 * build, cache, key, the records that objects are loaded against, each
 * refusal, and an interrupt's stop.  Every test has its own
 * XDG_CACHE_HOME under /tmp, removed at its end; the compiler runs about a
 * dozen times in all, on a one-line source (30-50 ms each here). */
#define _GNU_SOURCE /* nftw, setenv, mkdtemp, symlink */
#include "test.h"

#include "sched_build.h"
#include "sha256.h"

#include <dirent.h>
#include <errno.h>
#include <dlfcn.h>
#include <ftw.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define PROBE_SOURCE "int gb_probe(int x){return x+1;}\n"
#define PROBE_SOURCE_2 "int gb_probe(int x){return x+2;}\n"

/* The digest of data as hex, the form the vectors are published in. */
static void hex_of(const void *data, size_t len, char out[65])
{
    unsigned char digest[32];
    gb_sha256(data, len, digest);
    gb_sha256_hex(digest, out);
}

TEST(sha256_fips_vectors)
{
    char hex[65];
    hex_of("", 0, hex);
    CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    hex_of("abc", 3, hex);
    CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    /* 448 bits: the padding's length field needs a second block. */
    const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    hex_of(m448, strlen(m448), hex);
    CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    const char *m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
                       "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
    hex_of(m896, strlen(m896), hex);
    CHECK_STR(hex, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");

    /* One million 'a' through update in uneven pieces: across block
     * boundaries, whole blocks, and pieces of a partly filled block. */
    static const size_t pieces[] = { 1, 63, 64, 65, 127, 1000, 3, 4096, 55, 56, 57 };
    char a[4096];
    memset(a, 'a', sizeof a);
    struct sha256_ctx ctx;
    unsigned char digest[32];
    size_t left = 1000000;
    sha256_init(&ctx);
    for (size_t i = 0; left > 0; i++) {
        size_t n = pieces[i % (sizeof pieces / sizeof pieces[0])];
        n = n < left ? n : left;
        sha256_update(&ctx, n, (const uint8_t *)a);
        left -= n;
    }
    sha256_digest(&ctx, sizeof digest, digest);
    gb_sha256_hex(digest, hex);
    CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    /* update with nothing changes nothing */
    sha256_init(&ctx);
    sha256_update(&ctx, 2, (const uint8_t *)"ab");
    sha256_update(&ctx, 0, (const uint8_t *)"");
    sha256_update(&ctx, 1, (const uint8_t *)"c");
    sha256_digest(&ctx, sizeof digest, digest);
    gb_sha256_hex(digest, hex);
    CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

/* A test's surroundings: its scratch directory (the XDG_CACHE_HOME) and
 * the environment it changes, put back by scratch_end. */
typedef struct scratch {
    char dir[64];
    char cache[128];       /* dir/gemmbench */
    char *saved_xdg, *saved_cc, *saved_home;
} scratch;

/* A copy of an environment variable (NULL: unset), for put_back. */
static char *saved_value(const char *name)
{
    const char *v = getenv(name);
    return v ? strdup(v) : NULL;
}

/* Restores a variable saved by saved_value, and frees the copy. */
static void put_back(const char *name, char *value)
{
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
    free(value);
}

/* Makes the scratch directory and points XDG_CACHE_HOME at it, so that no
 * test touches the user's cache; 0, or -1. */
static int scratch_begin(scratch *s)
{
    memset(s, 0, sizeof *s);
    strcpy(s->dir, "/tmp/gb-sched-test.XXXXXX");
    if (mkdtemp(s->dir) == NULL)
        return -1;
    snprintf(s->cache, sizeof s->cache, "%s/gemmbench", s->dir);
    s->saved_xdg = saved_value("XDG_CACHE_HOME");
    s->saved_cc = saved_value("CC");
    s->saved_home = saved_value("HOME");
    setenv("XDG_CACHE_HOME", s->dir, 1);
    return 0;
}

/* nftw's callback for scratch_end: removes links themselves, never targets. */
static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path) != 0 && errno != ENOENT ? -1 : 0;
}

/* Puts the environment and the compiler settings back; removes the scratch. */
static void scratch_end(scratch *s)
{
    put_back("XDG_CACHE_HOME", s->saved_xdg);
    put_back("CC", s->saved_cc);
    put_back("HOME", s->saved_home);
    gb_sched_compiler_reset();
    gb_sched_set_compile_timeout(0);
    chmod(s->cache, 0700);
    nftw(s->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* How many entries of dir start with prefix ("": all but . and ..). */
static int count_entries(const char *dir, const char *prefix)
{
    int n = 0;
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    const struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
            strncmp(e->d_name, prefix, strlen(prefix)) == 0)
            n++;
    closedir(d);
    return n;
}

/* Calls gb_probe through the object's fn (POSIX: a void * holds it). */
static int call_probe(const gb_sched_so *so, int x)
{
    int (*probe)(int);
    memcpy(&probe, &so->fn, sizeof probe);
    return probe(x);
}

/* Monotonic milliseconds, for the cached load and the timeout's bound. */
static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A process whose objects this compiler cannot make (a host compiler run
 * from under qemu-user: scripts/cross-aarch64.sh) cannot test loading. */
static int foreign_objects(const char *err)
{
    return strstr(err, "ELF machine") != NULL;
}

TEST(sched_build_loads_caches_and_keys_the_source)
{
    scratch s;
    gb_sched_so a, again, b;
    char err[512] = "";

    if (scratch_begin(&s) != 0)
        SKIP("no scratch directory under /tmp");
    int rc = gb_sched_build(PROBE_SOURCE, "gb_probe", &a, err, sizeof err);
    if (rc != 0 && foreign_objects(err)) {
        scratch_end(&s);
        SKIP("the compiler's objects are for another machine");
    }
    CHECK_STR(err, "");
    CHECK_EQ_INT(rc, 0);
    if (rc != 0) {
        scratch_end(&s);
        return;
    }
    CHECK(a.handle != NULL && a.fn != NULL);
    CHECK_EQ_INT(call_probe(&a, 41), 42);
    CHECK_EQ_INT(a.cached, 0);
    CHECK(a.compile_ms > 0);
    CHECK_EQ_INT(strlen(a.key), 64);
    CHECK(a.compiler[0] != '\0');
    CHECK_STR(a.flags, gb_sched_flags());
    CHECK(strncmp(a.flags, "-std=c11 ", 9) == 0 && strstr(a.flags, " -fPIC -shared -fopenmp"));
    char want[512];
    snprintf(want, sizeof want, "%s/%s.so", s.cache, a.key);
    CHECK_STR(a.path, want);
    struct stat st;
    CHECK(lstat(a.path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 077) == 0);
    CHECK(stat(s.cache, &st) == 0 && (st.st_mode & 0777) == 0700);
    /* the private directory, its source and log are gone */
    CHECK_EQ_INT(count_entries(s.cache, "tmp."), 0);

    /* The same source again: from the cache, no compiler. */
    double start = now_ms();
    CHECK_EQ_INT(gb_sched_build(PROBE_SOURCE, "gb_probe", &again, err, sizeof err), 0);
    double cached_ms = now_ms() - start;
    CHECK_EQ_INT(again.cached, 1);
    CHECK_NEAR(again.compile_ms, 0.0, 0);
    CHECK_STR(again.key, a.key);
    CHECK(again.fn != NULL && call_probe(&again, 1) == 2);
    CHECK(cached_ms < a.compile_ms + 50);

    /* Another source: another key and object. */
    CHECK_EQ_INT(gb_sched_build(PROBE_SOURCE_2, "gb_probe", &b, err, sizeof err), 0);
    CHECK(strcmp(b.key, a.key) != 0);
    CHECK_EQ_INT(b.cached, 0);
    CHECK(b.fn != NULL && call_probe(&b, 1) == 3);
    CHECK_EQ_INT(count_entries(s.cache, ""), 4); /* two objects, two records */

    /* A symbol the object does not have. */
    gb_sched_so none;
    CHECK_EQ_INT(gb_sched_build(PROBE_SOURCE, "gb_absent", &none, err, sizeof err), -1);
    CHECK(strstr(err, "no symbol 'gb_absent'") != NULL);
    CHECK(none.handle == NULL);

    gb_sched_so_close(&a);
    gb_sched_so_close(&again);
    gb_sched_so_close(&none);
    CHECK(a.handle == NULL && a.key[0] == '\0');

    /* A cached object cut short (a full disk, a crash) is compiled again. */
    char b_path[4096];
    snprintf(b_path, sizeof b_path, "%s", b.path);
    gb_sched_so_close(&b);
    CHECK_EQ_INT(truncate(b_path, 10), 0);
    CHECK_EQ_INT(gb_sched_build(PROBE_SOURCE_2, "gb_probe", &b, err, sizeof err), 0);
    CHECK_EQ_INT(b.cached, 0);
    CHECK(b.fn != NULL && call_probe(&b, 2) == 4);
    gb_sched_so_close(&b);
    scratch_end(&s);
}

/* Writes an executable shell script standing in for the compiler: it says
 * "fake-cc 1.0" to --version and runs body otherwise.  0, or -1. */
static int write_fake_cc(const char *path, const char *body)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -1;
    fprintf(f, "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'fake-cc 1.0'; exit 0; fi\n%s\n",
            body);
    return fclose(f) == 0 && chmod(path, 0700) == 0 ? 0 : -1;
}

/* The record beside an object: its SHA-256 in hex and a newline. */
static int read_text(const char *path, char *out, size_t len)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    size_t n = fread(out, 1, len - 1, f);
    out[n] = '\0';
    fclose(f);
    return 0;
}

/* The SHA-256 of a file's bytes, in hex; 0, or -1. */
static int hash_of_file(const char *path, char hex[65])
{
    static char data[1 << 20];
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return -1;
    size_t n = fread(data, 1, sizeof data, f);
    fclose(f);
    hex_of(data, n, hex);
    return 0;
}

/* Copies a file's bytes over another (kept: its inode, owner and mode). */
static int copy_over(const char *from, const char *to)
{
    static char data[1 << 20];
    FILE *in = fopen(from, "rb"), *out = fopen(to, "r+b");
    size_t n = in ? fread(data, 1, sizeof data, in) : 0;
    int ok = in && out && fwrite(data, 1, n, out) == n;
    if (in)
        fclose(in);
    if (out && (fclose(out) != 0 || truncate(to, (off_t)n) != 0))
        ok = 0;
    return ok ? 0 : -1;
}

/* An object is loaded only when its bytes match the record written after
 * it was compiled and checked; anything else is compiled again over it. */
TEST(sched_cache_loads_only_recorded_objects)
{
    scratch s;
    gb_sched_so a, b, again;
    char err[512] = "", record[4200], text[128], hex[65], a_path[4096], b_path[4096];
    struct stat st;

    if (scratch_begin(&s) != 0)
        SKIP("no scratch directory under /tmp");
    int rc = gb_sched_build(PROBE_SOURCE, "gb_probe", &a, err, sizeof err);
    if (rc != 0 && foreign_objects(err)) {
        scratch_end(&s);
        SKIP("the compiler's objects are for another machine");
    }
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(gb_sched_build(PROBE_SOURCE_2, "gb_probe", &b, err, sizeof err), 0);
    if (rc != 0 || b.handle == NULL) {
        scratch_end(&s);
        return;
    }
    snprintf(a_path, sizeof a_path, "%s", a.path);
    snprintf(b_path, sizeof b_path, "%s", b.path);
    snprintf(record, sizeof record, "%s/%s.sha256", s.cache, a.key);
    CHECK(lstat(record, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 077) == 0);
    CHECK_EQ_INT(read_text(record, text, sizeof text), 0);
    CHECK_EQ_INT(hash_of_file(a_path, hex), 0);
    CHECK_EQ_INT(strlen(text), 65);
    CHECK(strncmp(text, hex, 64) == 0 && text[64] == '\n');
    gb_sched_so_close(&a);
    gb_sched_so_close(&b);

    /* Cut in half (its ELF header whole): compiled again, never mapped. */
    CHECK_EQ_INT(stat(a_path, &st), 0);
    CHECK_EQ_INT(truncate(a_path, st.st_size / 2), 0);
    CHECK_EQ_INT(gb_sched_build(PROBE_SOURCE, "gb_probe", &again, err, sizeof err), 0);
    CHECK_EQ_INT(again.cached, 0);
    CHECK(again.fn != NULL && call_probe(&again, 41) == 42);
    gb_sched_so_close(&again);

    /* Another object under its name (a planted one; here b's): not loaded,
     * compiled again, so the probe is a's. */
    CHECK_EQ_INT(copy_over(b_path, a_path), 0);
    CHECK_EQ_INT(gb_sched_build(PROBE_SOURCE, "gb_probe", &again, err, sizeof err), 0);
    CHECK_EQ_INT(again.cached, 0);
    CHECK(again.fn != NULL && call_probe(&again, 41) == 42);
    gb_sched_so_close(&again);

    /* No record, or one that is not a's hash: compiled again. */
    CHECK_EQ_INT(unlink(record), 0);
    CHECK_EQ_INT(gb_sched_build(PROBE_SOURCE, "gb_probe", &again, err, sizeof err), 0);
    CHECK_EQ_INT(again.cached, 0);
    gb_sched_so_close(&again);
    CHECK_EQ_INT(read_text(record, text, sizeof text), 0);
    text[0] = text[0] == '0' ? '1' : '0';
    FILE *f = fopen(record, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    CHECK_EQ_INT(gb_sched_build(PROBE_SOURCE, "gb_probe", &again, err, sizeof err), 0);
    CHECK_EQ_INT(again.cached, 0);
    gb_sched_so_close(&again);
    /* ... and after each, the object and record agree again: a hit. */
    CHECK_EQ_INT(gb_sched_build(PROBE_SOURCE, "gb_probe", &again, err, sizeof err), 0);
    CHECK_EQ_INT(again.cached, 1);
    gb_sched_so_close(&again);
    CHECK_EQ_INT(count_entries(s.cache, "tmp."), 0);
    scratch_end(&s);
}

/* A compiler whose object lacks the symbol leaves nothing under the key:
 * the next build, by a compiler that makes it, succeeds. */
TEST(sched_cache_not_poisoned_by_object_without_symbol)
{
    scratch s;
    gb_sched_so so;
    char err[512] = "", fake[128], other[128], body[512];

    if (scratch_begin(&s) != 0)
        SKIP("no scratch directory under /tmp");
    snprintf(fake, sizeof fake, "%s/nosym-cc", s.dir);
    snprintf(other, sizeof other, "%s/other.c", s.dir);
    FILE *f = fopen(other, "w");
    if (f == NULL || fputs("int gb_other;\n", f) < 0 || fclose(f) != 0) {
        scratch_end(&s);
        SKIP("cannot write under /tmp");
    }
    /* the same identity ("fake-cc 1.0"), so the same key, as the next */
    snprintf(body, sizeof body,
             "while [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; shift; done\n"
             "exec cc -shared -fPIC -o \"$out\" '%s'", other);
    if (write_fake_cc(fake, body) != 0) {
        scratch_end(&s);
        SKIP("cannot write a script under /tmp");
    }
    setenv("CC", fake, 1);
    gb_sched_compiler_reset();
    int rc = gb_sched_build(PROBE_SOURCE, "gb_probe", &so, err, sizeof err);
    if (rc != 0 && (strncmp(err, "CC '", 4) == 0 || foreign_objects(err))) {
        scratch_end(&s);
        SKIP("cannot run a script under /tmp (noexec?), or foreign objects");
    }
    CHECK_EQ_INT(rc, -1);
    CHECK(strstr(err, "no symbol 'gb_probe' (not cached)") != NULL);
    CHECK(so.handle == NULL);
    CHECK_EQ_INT(count_entries(s.cache, ""), 0);

    CHECK_EQ_INT(write_fake_cc(fake, "exec cc \"$@\""), 0);
    CHECK_EQ_INT(gb_sched_build(PROBE_SOURCE, "gb_probe", &so, err, sizeof err), 0);
    CHECK_EQ_INT(so.cached, 0);
    CHECK(so.fn != NULL && call_probe(&so, 1) == 2);
    gb_sched_so_close(&so);
    scratch_end(&s);
}

TEST(sched_cache_dir_made_private_or_refused)
{
    scratch s;
    char dir[4096], want[512], err[512] = "";
    struct stat st;

    if (scratch_begin(&s) != 0)
        SKIP("no scratch directory under /tmp");
    /* Missing parents are made, each 0700. */
    snprintf(want, sizeof want, "%s/x/y", s.dir);
    setenv("XDG_CACHE_HOME", want, 1);
    CHECK_EQ_INT(gb_sched_cache_dir(dir, sizeof dir, err, sizeof err), 0);
    snprintf(want, sizeof want, "%s/x/y/gemmbench", s.dir);
    CHECK_STR(dir, want);
    CHECK(stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
    snprintf(want, sizeof want, "%s/x", s.dir);
    CHECK(stat(want, &st) == 0 && (st.st_mode & 0777) == 0700);

    /* A relative XDG_CACHE_HOME is ignored: $HOME/.cache. */
    snprintf(want, sizeof want, "%s/home", s.dir);
    setenv("HOME", want, 1);
    setenv("XDG_CACHE_HOME", "relative/cache", 1);
    CHECK_EQ_INT(gb_sched_cache_dir(dir, sizeof dir, err, sizeof err), 0);
    snprintf(want, sizeof want, "%s/home/.cache/gemmbench", s.dir);
    CHECK_STR(dir, want);
    CHECK(access("relative", F_OK) != 0);

    /* Open to group and others: refused, by the build too. */
    setenv("XDG_CACHE_HOME", s.dir, 1);
    CHECK_EQ_INT(mkdir(s.cache, 0700), 0);
    CHECK_EQ_INT(chmod(s.cache, 0777), 0);
    err[0] = '\0';
    CHECK_EQ_INT(gb_sched_cache_dir(dir, sizeof dir, err, sizeof err), -1);
    CHECK(strstr(err, "writable by group or others (mode 0777): refused") != NULL);
    CHECK(strstr(err, s.cache) != NULL);
    gb_sched_so so;
    CHECK_EQ_INT(gb_sched_build(PROBE_SOURCE, "gb_probe", &so, err, sizeof err), -1);
    CHECK(strstr(err, "refused") != NULL && so.handle == NULL);
    CHECK_EQ_INT(count_entries(s.cache, ""), 0);
    /* A file where the directory should be. */
    CHECK_EQ_INT(rmdir(s.cache), 0);
    FILE *f = fopen(s.cache, "w");
    CHECK(f != NULL);
    if (f)
        fclose(f);
    CHECK_EQ_INT(gb_sched_cache_dir(dir, sizeof dir, err, sizeof err), -1);
    CHECK(strstr(err, "not a directory") != NULL);
    scratch_end(&s);
}

/* The key is computed before the cache directory is looked at: with the
 * directory refused, keys are compared without compiling anything. */
TEST(sched_key_follows_source_and_compiler)
{
    scratch s;
    gb_sched_so first, other_source, other_compiler, same;
    char err[512], fake[128];

    if (scratch_begin(&s) != 0)
        SKIP("no scratch directory under /tmp");
    CHECK_EQ_INT(mkdir(s.cache, 0777), 0);
    CHECK_EQ_INT(chmod(s.cache, 0777), 0);
    CHECK_EQ_INT(gb_sched_build(PROBE_SOURCE, "gb_probe", &first, err, sizeof err), -1);
    CHECK_EQ_INT(gb_sched_build(PROBE_SOURCE, "gb_probe", &same, err, sizeof err), -1);
    CHECK_EQ_INT(gb_sched_build(PROBE_SOURCE_2, "gb_probe", &other_source, err, sizeof err), -1);
    CHECK_EQ_INT(strlen(first.key), 64);
    CHECK_STR(same.key, first.key);
    CHECK(strcmp(other_source.key, first.key) != 0);

    snprintf(fake, sizeof fake, "%s/fake-cc", s.dir);
    if (write_fake_cc(fake, "exit 1") != 0) {
        scratch_end(&s);
        SKIP("cannot write a script under /tmp");
    }
    setenv("CC", fake, 1);
    gb_sched_compiler_reset();
    int rc = gb_sched_build(PROBE_SOURCE, "gb_probe", &other_compiler, err, sizeof err);
    if (strncmp(err, "CC '", 4) == 0) {
        scratch_end(&s);
        SKIP("cannot run a script under /tmp (noexec?)");
    }
    CHECK_EQ_INT(rc, -1);
    CHECK_STR(other_compiler.compiler, "fake-cc 1.0");
    CHECK_STR(other_compiler.flags, first.flags);
    CHECK(strcmp(other_compiler.key, first.key) != 0);
    CHECK(strcmp(other_compiler.key, other_source.key) != 0);
    scratch_end(&s);
}

TEST(sched_build_missing_compiler_named)
{
    scratch s;
    gb_sched_so so;
    char err[512] = "", cc[256], id[256];

    if (scratch_begin(&s) != 0)
        SKIP("no scratch directory under /tmp");
    setenv("CC", "/nonexistent", 1);
    gb_sched_compiler_reset();
    CHECK_EQ_INT(gb_sched_build(PROBE_SOURCE, "gb_probe", &so, err, sizeof err), -1);
    CHECK(strncmp(err, "CC '/nonexistent': ", 19) == 0);
    CHECK(strstr(err, "cannot be run") != NULL);
    CHECK(strchr(err, '\n') == NULL);
    CHECK(so.handle == NULL);
    /* nothing made: the compiler is looked up first */
    CHECK(access(s.cache, F_OK) != 0);

    setenv("CC", "gb-no-such-compiler", 1); /* looked up on PATH */
    CHECK_EQ_INT(gb_sched_compiler(cc, sizeof cc, id, sizeof id, err, sizeof err), -1);
    CHECK(strncmp(err, "CC 'gb-no-such-compiler': cannot be run", 39) == 0);

    /* The lookup is kept per $CC value: back to the real compiler. */
    put_back("CC", s.saved_cc);
    s.saved_cc = saved_value("CC");
    CHECK_EQ_INT(gb_sched_compiler(cc, sizeof cc, id, sizeof id, err, sizeof err), 0);
    CHECK(id[0] != '\0' && strchr(id, '\n') == NULL);
    scratch_end(&s);
}

TEST(sched_build_syntax_error_is_one_line)
{
    scratch s;
    gb_sched_so so;
    char err[512] = "";

    if (scratch_begin(&s) != 0)
        SKIP("no scratch directory under /tmp");
    CHECK_EQ_INT(gb_sched_build("int gb_probe(int x){return x+;}\n", "gb_probe", &so, err,
                                sizeof err), -1);
    CHECK(strstr(err, "error") != NULL);
    CHECK(strstr(err, "source.c:1:") != NULL);  /* the line, not its directory */
    CHECK(strstr(err, s.dir) == NULL);
    CHECK(strchr(err, '\n') == NULL);
    CHECK(strlen(err) <= 240);
    CHECK(so.handle == NULL && so.key[0] != '\0');
    CHECK_EQ_INT(count_entries(s.cache, ""), 0); /* no object, no private directory */

    /* Messages longer than the bound are cut, and still one line. */
    char source[1024];
    snprintf(source, sizeof source, "int gb_probe(int x){return x+%0400d;}\n", 0);
    memset(strchr(source, '+') + 1, 'y', 400);
    CHECK_EQ_INT(gb_sched_build(source, "gb_probe", &so, err, sizeof err), -1);
    CHECK(strstr(err, "error") != NULL);
    CHECK(strlen(err) <= 240 && strchr(err, '\n') == NULL);
    CHECK(strstr(err, "...") != NULL);
    scratch_end(&s);
}

TEST(sched_build_refuses_planted_symlink)
{
    scratch s;
    gb_sched_so so, planted;
    char err[512] = "", target[256];
    struct stat st;

    if (scratch_begin(&s) != 0)
        SKIP("no scratch directory under /tmp");
    int rc = gb_sched_build(PROBE_SOURCE, "gb_probe", &so, err, sizeof err);
    if (rc != 0 && foreign_objects(err)) {
        scratch_end(&s);
        SKIP("the compiler's objects are for another machine");
    }
    CHECK_EQ_INT(rc, 0);
    if (rc != 0) {
        scratch_end(&s);
        return;
    }
    /* The object moves out of the cache; a link to it takes its name. */
    char object[4096];
    snprintf(object, sizeof object, "%s", so.path);
    gb_sched_so_close(&so);
    snprintf(target, sizeof target, "%s/planted.so", s.dir);
    CHECK_EQ_INT(rename(object, target), 0);
    CHECK_EQ_INT(symlink(target, object), 0);

    CHECK_EQ_INT(gb_sched_build(PROBE_SOURCE, "gb_probe", &planted, err, sizeof err), -1);
    CHECK(strstr(err, "symbolic link: refused") != NULL);
    CHECK(planted.handle == NULL && planted.fn == NULL);
    CHECK(dlopen(target, RTLD_NOW | RTLD_NOLOAD) == NULL);
    CHECK(lstat(object, &st) == 0 && S_ISLNK(st.st_mode)); /* left as found */
    scratch_end(&s);
}

/* The state letter of /proc/PID/stat, or 0 when there is no such process. */
static char process_state(long pid)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    char *got = fgets(line, sizeof line, f);
    fclose(f);
    const char *paren = got ? strrchr(line, ')') : NULL;
    return paren && paren[1] == ' ' ? paren[2] : 0;
}

TEST(sched_build_kills_compiler_at_timeout)
{
    scratch s;
    gb_sched_so so;
    char err[512] = "", fake[128], body[512], pidfile[128];

    if (scratch_begin(&s) != 0)
        SKIP("no scratch directory under /tmp");
    snprintf(fake, sizeof fake, "%s/slow-cc", s.dir);
    snprintf(pidfile, sizeof pidfile, "%s/sleep.pid", s.dir);
    /* The compiler's child (as cc1 is gcc's) must die with it. */
    snprintf(body, sizeof body, "sleep 30 &\necho $! > '%s'\nwait", pidfile);
    if (write_fake_cc(fake, body) != 0) {
        scratch_end(&s);
        SKIP("cannot write a script under /tmp");
    }
    setenv("CC", fake, 1);
    gb_sched_compiler_reset();
    gb_sched_set_compile_timeout(300);
    double start = now_ms();
    int rc = gb_sched_build(PROBE_SOURCE, "gb_probe", &so, err, sizeof err);
    double ms = now_ms() - start;
    if (rc != 0 && strncmp(err, "CC '", 4) == 0) {
        scratch_end(&s);
        SKIP("cannot run a script under /tmp (noexec?)");
    }
    CHECK_EQ_INT(rc, -1);
    CHECK(strstr(err, "killed after 0 s, the bound on a compile") != NULL);
    CHECK(ms >= 290 && ms < 2000);
    CHECK_EQ_INT(count_entries(s.cache, "tmp."), 0);
    FILE *f = fopen(pidfile, "r");
    long pid = 0;
    CHECK(f != NULL && fscanf(f, "%ld", &pid) == 1 && pid > 0);
    if (f)
        fclose(f);
    /* Killed: gone, or a zombie waiting for its new parent to reap it. */
    char state = 'R';
    for (int i = 0; i < 100 && (state = process_state(pid)) != 0 && state != 'Z'; i++) {
        struct timespec pause = { 0, 10 * 1000 * 1000 };
        nanosleep(&pause, NULL);
    }
    CHECK(state == 0 || state == 'Z');
    if (state != 0 && state != 'Z')
        kill((pid_t)pid, SIGKILL);
    scratch_end(&s);
}

static volatile sig_atomic_t test_stop;

static void raise_test_stop(int sig)
{
    (void)sig;
    test_stop = 1;
}

/* Raises test_stop from a SIGALRM handler after ms, as ^C raises the run's
 * flag; ms 0 puts SIGALRM back. */
static void stop_after(int ms)
{
    struct sigaction sa;
    struct itimerval at = { { 0, 0 }, { ms / 1000, (ms % 1000) * 1000 } };

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = ms > 0 ? raise_test_stop : SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    setitimer(ITIMER_REAL, &at, NULL);
}

/* Waits up to a second for pid to be gone or a zombie; 1 when it is. */
static int ended(long pid)
{
    char state = 'R';
    for (int i = 0; i < 100 && (state = process_state(pid)) != 0 && state != 'Z'; i++) {
        struct timespec pause = { 0, 10 * 1000 * 1000 };
        nanosleep(&pause, NULL);
    }
    if (state != 0 && state != 'Z')
        kill((pid_t)pid, SIGKILL);
    return state == 0 || state == 'Z';
}

/* The stop flag raised while `$CC --version` or the compile runs: the
 * compiler's process group is killed at once, its files removed, and the
 * outcome is GB_SCHED_INTERRUPTED; an interrupted probe is not kept. */
TEST(sched_build_stops_at_interrupt)
{
    scratch s;
    gb_sched_so so;
    char err[512] = "", fake[128], pids[128], hang[128];
    long shell = 0, child = 0;

    if (scratch_begin(&s) != 0)
        SKIP("no scratch directory under /tmp");
    snprintf(fake, sizeof fake, "%s/hang-cc", s.dir);
    snprintf(pids, sizeof pids, "%s/pids", s.dir);
    snprintf(hang, sizeof hang, "%s/hang-version", s.dir);
    FILE *f = fopen(fake, "w");
    if (f == NULL) {
        scratch_end(&s);
        SKIP("cannot write a script under /tmp");
    }
    /* sleep is the compiler's child (as cc1 is gcc's): it must die too. */
    fprintf(f, "#!/bin/sh\n"
               "if [ \"$1\" = --version ] && [ ! -e '%s' ]; then echo 'fake-cc 1.0'; exit 0; fi\n"
               "sleep 30 &\necho $$ $! > '%s'\nwait\n", hang, pids);
    fclose(f);
    chmod(fake, 0700);
    f = fopen(hang, "w");
    if (f)
        fclose(f);
    setenv("CC", fake, 1);
    gb_sched_compiler_reset();
    gb_sched_set_compile_stop(&test_stop);

    for (int step = 0; step < 2; step++) { /* the probe, then the compile */
        if (step == 1)
            unlink(hang);
        unlink(pids);
        test_stop = 0;
        stop_after(300);
        double start = now_ms();
        int rc = gb_sched_build(PROBE_SOURCE, "gb_probe", &so, err, sizeof err);
        double ms = now_ms() - start;
        stop_after(0);
        if (rc == -1 && strncmp(err, "CC '", 4) == 0 && strstr(err, "stopped") == NULL) {
            gb_sched_set_compile_stop(NULL);
            scratch_end(&s);
            SKIP("cannot run a script under /tmp (noexec?)");
        }
        CHECK_EQ_INT(rc, GB_SCHED_INTERRUPTED);
        CHECK(strstr(err, step == 0 ? " --version' stopped: the run was interrupted"
                                    : ": stopped: the run was interrupted") != NULL);
        CHECK(ms >= 290 && ms < 2000);
        CHECK(so.handle == NULL);
        f = fopen(pids, "r");
        CHECK(f != NULL && fscanf(f, "%ld %ld", &shell, &child) == 2);
        if (f)
            fclose(f);
        CHECK(shell > 0 && child > 0 && ended(shell) && ended(child));
        CHECK(count_entries(s.cache, "tmp.") <= 0);
    }
    /* Raised before the start: nothing runs. */
    unlink(pids);
    test_stop = 1;
    CHECK_EQ_INT(gb_sched_build(PROBE_SOURCE, "gb_probe", &so, err, sizeof err),
                 GB_SCHED_INTERRUPTED);
    CHECK(access(pids, F_OK) != 0);
    CHECK_EQ_INT(count_entries(s.cache, ""), 0);
    gb_sched_set_compile_stop(NULL);
    test_stop = 0;
    scratch_end(&s);
}
