/* Handles: backend choice, code object loading, memory helpers, and the
 * bwd-data entry points that turn a problem into launches. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "codeobj.h"
#include "select.h"
#include "solver.h"

#define MAX_CACHED_KERNELS 256

struct igemm_handle {
    backend *b;
    bk_module *mod;
    const target *t;
    void *co_file;         /* code object read from codeobj_dir */
    char err[1024];
    struct {
        char name[128];
        bk_kernel *k;
    } kcache[MAX_CACHED_KERNELS];
    int nk;
    char *perfdb;
};

static igemm_status fail(igemm_handle *h, igemm_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static igemm_status fail(igemm_handle *h, igemm_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->err, sizeof h->err, fmt, ap);
    va_end(ap);
    return st;
}

static void say(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *why, size_t len, const char *fmt, ...)
{
    if (!why || !len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
}

static void *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    void *buf = NULL;
    long n;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n))) {
        if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        } else
            *size = (size_t)n;
    }
    fclose(f);
    return buf;
}

igemm_status igemm_create(igemm_handle **out, const igemm_options *opt, char *why, size_t why_len)
{
    if (!out) {
        say(why, why_len, "igemm_create: handle pointer is NULL");
        return IGEMM_ERR_INVALID_ARG;
    }
    *out = NULL;
    igemm_options o = IGEMM_OPTIONS_INIT;
    if (opt)
        o = *opt;
    if (o.backend != IGEMM_BACKEND_AUTO && o.backend != IGEMM_BACKEND_HIP && o.backend != IGEMM_BACKEND_EMU) {
        say(why, why_len, "unknown backend %d", (int)o.backend);
        return IGEMM_ERR_INVALID_ARG;
    }
    const target *emu_t = target_by_name(o.arch ? o.arch : "gfx906");
    if (!emu_t) {
        say(why, why_len, "unknown target '%s' (known: %s)", o.arch, target_names());
        return IGEMM_ERR_UNSUPPORTED;
    }
    igemm_handle *h = calloc(1, sizeof *h);
    if (!h) {
        say(why, why_len, "out of memory");
        return IGEMM_ERR_NO_MEMORY;
    }
    char reason[512] = "";
    igemm_status st = IGEMM_OK;
    if (o.backend == IGEMM_BACKEND_HIP || o.backend == IGEMM_BACKEND_AUTO) {
        h->b = backend_hip_create(reason, sizeof reason, &st);
        if (!h->b && o.backend == IGEMM_BACKEND_HIP) {
            say(why, why_len, "%s", reason);
            free(h);
            return st;
        }
    }
    if (!h->b) {
        h->b = backend_emu_create(emu_t, o.emu_threads, reason, sizeof reason);
        if (!h->b) {
            say(why, why_len, "%s", reason);
            free(h);
            return IGEMM_ERR_BACKEND;
        }
    }
    h->t = h->b->t;

    const void *image = NULL;
    size_t size = 0;
    if (o.codeobj_dir) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.hsaco", o.codeobj_dir, h->t->name);
        h->co_file = read_file(path, &size);
        if (!h->co_file) {
            say(why, why_len, "cannot read code object %s", path);
            igemm_destroy(h);
            return IGEMM_ERR_NO_CODE_OBJECT;
        }
        image = h->co_file;
    } else {
        const igemm_codeobj *co = igemm_codeobj_find(h->t->name);
        if (!co) {
            say(why, why_len, "no embedded code object for %s (available: %s)", h->t->name, igemm_codeobj_list());
            igemm_destroy(h);
            return IGEMM_ERR_NO_CODE_OBJECT;
        }
        image = co->data;
        size = co->size;
    }
    if (h->b->load(h->b, image, size, &h->mod)) {
        say(why, why_len, "loading the %s code object: %s", h->t->name, h->b->err);
        igemm_destroy(h);
        return IGEMM_ERR_NO_CODE_OBJECT;
    }
    if (o.perfdb && !(h->perfdb = strdup(o.perfdb))) {
        say(why, why_len, "out of memory");
        igemm_destroy(h);
        return IGEMM_ERR_NO_MEMORY;
    }
    *out = h;
    return IGEMM_OK;
}

void igemm_destroy(igemm_handle *h)
{
    if (!h)
        return;
    if (h->b) {
        if (h->mod)
            h->b->unload(h->b, h->mod);
        h->b->destroy(h->b);
    }
    free(h->co_file);
    free(h->perfdb);
    free(h);
}

const char *igemm_last_error(const igemm_handle *h) { return h ? h->err : "handle is NULL"; }
const char *igemm_handle_arch(const igemm_handle *h) { return h ? h->t->name : NULL; }
const char *igemm_handle_backend(const igemm_handle *h) { return h ? h->b->name : NULL; }
const char *igemm_handle_perfdb(const igemm_handle *h) { return h ? h->perfdb : NULL; }

/* ---- memory ---- */

igemm_status igemm_alloc(igemm_handle *h, void **p, size_t bytes)
{
    if (!h || !p)
        return IGEMM_ERR_INVALID_ARG;
    if (h->b->alloc(h->b, p, bytes))
        return fail(h, IGEMM_ERR_NO_MEMORY, "%s", h->b->err);
    return IGEMM_OK;
}

void igemm_free(igemm_handle *h, void *p)
{
    if (h && p)
        h->b->free(h->b, p);
}

igemm_status igemm_copy_to_device(igemm_handle *h, void *dst, const void *src, size_t bytes)
{
    if (!h || (!dst && bytes) || (!src && bytes))
        return h ? fail(h, IGEMM_ERR_INVALID_ARG, "copy with a NULL pointer") : IGEMM_ERR_INVALID_ARG;
    if (h->b->to_device(h->b, dst, src, bytes))
        return fail(h, IGEMM_ERR_BACKEND, "%s", h->b->err);
    return IGEMM_OK;
}

igemm_status igemm_copy_to_host(igemm_handle *h, void *dst, const void *src, size_t bytes)
{
    if (!h || (!dst && bytes) || (!src && bytes))
        return h ? fail(h, IGEMM_ERR_INVALID_ARG, "copy with a NULL pointer") : IGEMM_ERR_INVALID_ARG;
    if (h->b->to_host(h->b, dst, src, bytes))
        return fail(h, IGEMM_ERR_BACKEND, "%s", h->b->err);
    return IGEMM_OK;
}

/* ---- solutions ---- */

int igemm_solution_count(void) { return solver_count(); }
const char *igemm_solution_name(int i) { return solver_get(i) ? solver_get(i)->name : NULL; }

static igemm_status check_solver(igemm_handle *h, const solver *s, const igemm_shape *sh, char *why, size_t len)
{
    if (!s->available(s, h->t)) {
        say(why, len, "%s has no %s kernel", h->t->name, s->name);
        return IGEMM_ERR_NOT_APPLICABLE;
    }
    return s->applicable(s, sh, h->t, why, len);
}

igemm_status igemm_applicable(igemm_handle *h, const igemm_problem *p, const char *solution, char *why,
                              size_t why_len)
{
    if (!h) {
        say(why, why_len, "handle is NULL");
        return IGEMM_ERR_INVALID_ARG;
    }
    igemm_shape sh;
    igemm_status st = igemm_shape_init(&sh, p, why, why_len);
    if (st != IGEMM_OK)
        return st;
    if (solution) {
        const solver *s = solver_find(solution);
        if (!s) {
            say(why, why_len, "unknown solution '%s'", solution);
            return IGEMM_ERR_INVALID_ARG;
        }
        return check_solver(h, s, &sh, why, why_len);
    }
    for (int i = 0; i < solver_count(); i++)
        if (check_solver(h, solver_get(i), &sh, NULL, 0) == IGEMM_OK)
            return IGEMM_OK;
    return check_solver(h, solver_get(0), &sh, why, why_len);
}

igemm_status igemm_select(igemm_handle *h, const igemm_problem *p, char *solution, size_t len)
{
    if (!h || !p || !solution)
        return h ? fail(h, IGEMM_ERR_INVALID_ARG, "igemm_select: NULL argument") : IGEMM_ERR_INVALID_ARG;
    igemm_shape sh;
    igemm_status st = igemm_shape_init(&sh, p, h->err, sizeof h->err);
    if (st != IGEMM_OK)
        return st;
    const solver *s = select_solver(h, &sh);
    if (!s)
        return fail(h, IGEMM_ERR_NOT_APPLICABLE, "no kernel configuration applies on %s", h->t->name);
    snprintf(solution, len, "%s", s->name);
    return IGEMM_OK;
}

int handle_solver_ok(igemm_handle *h, const solver *s, const igemm_shape *sh)
{
    return check_solver(h, s, sh, NULL, 0) == IGEMM_OK;
}

const target *handle_target(const igemm_handle *h) { return h->t; }

/* ---- running ---- */

static bk_kernel *kernel_lookup(igemm_handle *h, const char *name)
{
    for (int i = 0; i < h->nk; i++)
        if (!strcmp(h->kcache[i].name, name))
            return h->kcache[i].k;
    bk_kernel *k = h->b->kernel(h->b, h->mod, name);
    if (k && h->nk < MAX_CACHED_KERNELS) {
        snprintf(h->kcache[h->nk].name, sizeof h->kcache[h->nk].name, "%s", name);
        h->kcache[h->nk++].k = k;
    }
    return k;
}

igemm_status igemm_conv_bwd_data_ex(igemm_handle *h, const igemm_problem *p, const char *solution, void *dx,
                                   const void *dy, const void *w, igemm_run_info *info)
{
    if (!h)
        return IGEMM_ERR_INVALID_ARG;
    h->err[0] = 0;
    if (!dx || !dy || !w)
        return fail(h, IGEMM_ERR_INVALID_ARG, "dx, dy and w must not be NULL");
    igemm_shape sh;
    igemm_status st = igemm_shape_init(&sh, p, h->err, sizeof h->err);
    if (st != IGEMM_OK)
        return st;
    const solver *s;
    if (solution) {
        s = solver_find(solution);
        if (!s)
            return fail(h, IGEMM_ERR_INVALID_ARG, "unknown solution '%s'", solution);
        char why[512];
        if ((st = check_solver(h, s, &sh, why, sizeof why)) != IGEMM_OK)
            return fail(h, st, "%s does not apply: %s", s->name, why);
    } else {
        s = select_solver(h, &sh);
        if (!s)
            return fail(h, IGEMM_ERR_NOT_APPLICABLE, "no kernel configuration applies on %s", h->t->name);
    }
    launch_plan plan = {0};
    if (s->plan(s, &sh, h->t, &plan)) {
        plan_free(&plan);
        return fail(h, IGEMM_ERR_NO_MEMORY, "out of memory planning launches");
    }
    igemm_run_info ri;
    memset(&ri, 0, sizeof ri);
    snprintf(ri.solution, sizeof ri.solution, "%s", s->name);
    void *base[3] = {dx, (void *)dy, (void *)w};
    size_t bytes[3] = {(size_t)sh.dx_elems * 4, (size_t)sh.dy_elems * 4, (size_t)sh.w_elems * 4};
    int mapped = 0;
    for (; mapped < 3; mapped++)
        if (h->b->map(h->b, base[mapped], bytes[mapped])) {
            st = fail(h, IGEMM_ERR_BACKEND, "%s", h->b->err);
            break;
        }
    for (int i = 0; st == IGEMM_OK && i < plan.n; i++) {
        launch_desc *d = &plan.l[i];
        for (int a = 0; a < 3; a++)
            if (d->ptr_off[a] >= 0) {
                uint64_t ptr = (uint64_t)(uintptr_t)base[a] + d->ptr_add[a];
                memcpy(d->args + d->ptr_off[a], &ptr, 8);
            }
        bk_kernel *k = kernel_lookup(h, d->kernel);
        if (!k) {
            st = fail(h, IGEMM_ERR_NO_CODE_OBJECT, "%s", h->b->err);
            break;
        }
        bk_stats bs;
        if (h->b->launch(h->b, k, d->grid, d->block, d->args, d->args_size, &bs)) {
            st = fail(h, h->b->name[0] == 'e' ? IGEMM_ERR_EMU_FAULT : IGEMM_ERR_BACKEND, "%s", h->b->err);
            break;
        }
        ri.launches++;
        ri.ms += bs.ms;
        ri.cycles += bs.cycles;
        ri.insts += bs.insts;
        ri.valu_cycles += bs.valu_cycles;
        ri.fma_cycles += bs.fma_cycles;
        ri.loop_valu_cycles += bs.loop_valu_cycles;
        ri.loop_fma_cycles += bs.loop_fma_cycles;
        ri.global_bytes += bs.global_bytes;
        ri.lds_bytes += bs.lds_bytes;
    }
    for (int a = 0; a < mapped; a++)
        h->b->unmap(h->b, base[a]);
    plan_free(&plan);
    if (info)
        *info = ri;
    return st;
}

igemm_status igemm_conv_bwd_data(igemm_handle *h, const igemm_problem *p, void *dx, const void *dy, const void *w)
{
    return igemm_conv_bwd_data_ex(h, p, NULL, dx, dy, w, NULL);
}
