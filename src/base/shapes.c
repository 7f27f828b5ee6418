/* shapes.c - the built-in kernels and the shapes a kernel and M selection
 * (or a --shape list) expands to. */
#include "sweep.h"
#include "parse.h"

#include <stdio.h>
#include <string.h>

/* BERT-base MatMul shapes (hidden 768, intermediate 3072).  "all" means these three; square1024
 * (the TVM tutorial's problem) and bench.conf's [kernel] sections run only
 * when named. */
const gb_kernel_def gb_builtin_kernels[] = {
    { "qkv",        768,  768,  0, { 0 } },
    { "mlp_expand", 768,  3072, 0, { 0 } },
    { "mlp_reduce", 3072, 768,  0, { 0 } },
    { "square1024", 1024, 1024, 1, { 1024 } },
};
const int gb_builtin_kernel_count = sizeof gb_builtin_kernels / sizeof gb_builtin_kernels[0];
/* How many of the built-ins "all" means (the BERT three). */
#define GB_BERT_KERNELS 3

struct shape_build {
    const gb_options *o;
    gb_shape *out;
    int max, n;
    char *err;
    size_t errlen;
};

/* The shape once per type of the run, the types innermost: a shape's
 * types run back to back, under the same machine conditions. */
static int add_shape(struct shape_build *b, const char *kernel, int M, int K, int N)
{
    const int ntypes = b->o->ndtypes > 0 ? b->o->ndtypes : 1;

    for (int t = 0; t < ntypes; t++) {
        if (b->n >= b->max) {
            snprintf(b->err, b->errlen, "too many shapes (at most %d)", b->max);
            return -1;
        }
        snprintf(b->out[b->n].kernel, sizeof b->out[b->n].kernel, "%s", kernel);
        b->out[b->n].M = M;
        b->out[b->n].K = K;
        b->out[b->n].N = N;
        b->out[b->n].dtype = b->o->ndtypes > 0 ? b->o->dtypes[t] : GB_DTYPE_F32;
        b->n++;
    }
    return 0;
}

static int add_kernel_shapes(struct shape_build *b, const gb_kernel_def *k)
{
    const int *ms = k->nm > 0 ? k->m : b->o->m;
    int nm = k->nm > 0 ? k->nm : b->o->nm;

    for (int i = 0; i < nm; i++)
        if (add_shape(b, k->name, ms[i], k->K, k->N) != 0)
            return -1;
    return 0;
}

static const gb_kernel_def *find_kernel(const gb_options *o, const char *name)
{
    for (int i = 0; i < o->ncustom; i++)
        if (strcmp(o->custom[i].name, name) == 0)
            return &o->custom[i];
    for (int i = 0; i < gb_builtin_kernel_count; i++)
        if (strcmp(gb_builtin_kernels[i].name, name) == 0)
            return &gb_builtin_kernels[i];
    return NULL;
}

static int pick_kernel(const char *item, void *arg)
{
    struct shape_build *b = arg;
    const gb_kernel_def *k;

    if (strcmp(item, "all") == 0) {
        for (int i = 0; i < GB_BERT_KERNELS; i++)
            if (add_kernel_shapes(b, &gb_builtin_kernels[i]) != 0)
                return -1;
        return 0;
    }
    k = find_kernel(b->o, item);
    if (k == NULL) {
        char shown[256];
        gb_printable(item, 60, shown, sizeof shown);
        snprintf(b->err, b->errlen,
                 "unknown kernel '%s' (known: qkv, mlp_expand, mlp_reduce, square1024, %s)",
                 shown, b->o->no_config ? "or all; other shapes with --shape MxKxN"
                                        : "bench.conf [kernel] sections, or all");
        return -1;
    }
    return add_kernel_shapes(b, k);
}

int gb_shapes_build(const gb_options *o, gb_shape *out, int max, char *err, size_t errlen)
{
    struct shape_build b = { o, out, max, 0, err, errlen };

    err[0] = '\0';
    if (o->nshapes > 0) {
        for (int i = 0; i < o->nshapes; i++)
            if (add_shape(&b, o->shapes[i].kernel, o->shapes[i].M, o->shapes[i].K,
                          o->shapes[i].N) != 0)
                return -1;
        return b.n;
    }
    int rc = gb_split_list(o->kernels, pick_kernel, &b);
    if (rc != 0) {
        if (gb_split_why(rc) || err[0] == '\0')
            gb_list_error(err, errlen, "kernel list", o->kernels,
                       gb_split_why(rc) ? gb_split_why(rc) : "is malformed");
        return -1;
    }
    if (b.n == 0) {
        snprintf(err, errlen, "no kernel selected");
        return -1;
    }
    return b.n;
}
