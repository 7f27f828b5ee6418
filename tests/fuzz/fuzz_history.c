/* fuzz_history.c - any bytes as a history store's index.jsonl and
 * annotations.json (gb_history_store_read, gb_history_annotations_read;
 * src/files/history_store.c, src/analysis/history.c): the input split at
 * its first byte 0x01 into the index and the annotations (none without
 * it), written into a store folder of this process's own beside a valid
 * store.json.  An accepted store is analysed (gb_history_analyse: points,
 * change points, annotations) and written as the changes' table, JSON and
 * the HTML page.  Besides the sanitizers: a refusal is one line naming the
 * file, with no control character (it reaches a terminal); the JSON parses;
 * the table holds no control character but newlines; the page holds the
 * tool's one script element and no control character but newlines, whatever
 * the labels (they are escaped). */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <sys/stat.h>

#include "fuzz_util.h"
#include "history.h"
#include "history_store.h"

static char store[96];

static void remove_store(void)
{
    char path[160];
    const char *names[] = { "store.json", "index.jsonl", "annotations.json", ".lock" };

    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", store, names[i]);
        unlink(path);
    }
    rmdir(store);
}

static void put(const char *name, const uint8_t *data, size_t size)
{
    char path[160];
    FILE *f;

    snprintf(path, sizeof path, "%s/%s", store, name);
    f = fopen(path, "wb");
    if (f == NULL || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        abort();
}

/* No byte below 0x20 but newlines (when lines), no DEL, no C1 control. */
static int clean(const char *s, size_t n, int lines)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 && !(lines && c == '\n')) || c == 0x7f ||
            (c == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 &&
             (unsigned char)s[i + 1] <= 0x9f))
            return 0;
    }
    return 1;
}

static void check_refusal(const char *err, const char *file)
{
    if (err[0] == '\0' || strchr(err, '\n') || !clean(err, strlen(err), 0) ||
        strstr(err, file) == NULL)
        abort();
}

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, what)) != NULL; p++)
        n++;
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *cut = memchr(data, 0x01, size);
    size_t nindex = cut ? (size_t)(cut - data) : size;
    gb_history_store s;
    gb_history_annotations a;
    gb_history_view v;
    gb_history_opts o = { GB_HISTORY_THRESHOLD_PCT, 0.001, NULL, 0 };
    char err[1024] = "";
    char *text = NULL;
    size_t len = 0;
    FILE *out;
    cJSON *doc;

    if (store[0] == '\0') {
        snprintf(store, sizeof store, "/tmp/gemmbench-fuzz-%ld.store", (long)getpid());
        if (mkdir(store, 0700) != 0)
            abort();
        atexit(remove_store);
        put("store.json", (const uint8_t *)"{\"schema\": \"gemmbench-history/1\"}\n", 34);
    }
    put("index.jsonl", data, nindex);
    if (cut)
        put("annotations.json", cut + 1, size - nindex - 1);
    else {
        char path[160];
        snprintf(path, sizeof path, "%s/annotations.json", store);
        unlink(path);
    }

    if (gb_history_store_read(store, &s, err, sizeof err) != 0) {
        check_refusal(err, "index.jsonl");
        return 0;
    }
    if (gb_history_annotations_read(store, &a, err, sizeof err) != 0) {
        check_refusal(err, "annotations.json");
        gb_history_store_free(&s);
        return 0;
    }
    o.best = size > 0 && (data[size - 1] & 1); /* either value */
    if (gb_history_analyse(&s, &a, &o, &v, err, sizeof err) != 0)
        abort(); /* a store that was read is analysed */

    out = open_memstream(&text, &len);
    if (out == NULL || gb_history_write_changes(out, 0, &v) != 0 || fclose(out) != 0 ||
        !clean(text, len, 1))
        abort();
    free(text);
    out = open_memstream(&text, &len);
    if (out == NULL || gb_history_write_changes(out, 1, &v) != 0 || fclose(out) != 0)
        abort();
    doc = cJSON_Parse(text);
    if (doc == NULL)
        abort();
    cJSON_Delete(doc);
    free(text);
    out = open_memstream(&text, &len);
    if (out == NULL || gb_history_write_html(out, &v) != 0 || fclose(out) != 0 ||
        !clean(text, len, 1) || count(text, "<script") != 1 || count(text, "</script") != 1)
        abort();
    free(text);

    gb_history_view_free(&v);
    gb_history_annotations_free(&a);
    gb_history_store_free(&s);
    return 0;
}
