/* Handles: backend choice, code object loading, memory helpers, the
 * bwd-data entry points that turn a problem into launches, find mode and the
 * performance database lookup. */
#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "codeobj.h"
#include "perfdb.h"
#include "../conv/select.h"
#include "../conv/solver.h"
#include "../conv/types.h"

#define MAX_CACHED_KERNELS 256

struct igemm_handle {
    backend *b;
    bk_module *mod;
    const target *t;
    void *co_file;         /* code object read from codeobj_dir */
    char err[1024];
    char fallback[1024];   /* why AUTO did not use HIP */
    struct {
        char name[128];
        bk_kernel *k;
    } kcache[MAX_CACHED_KERNELS];
    int nk;
    char *perfdb;          /* database file (NULL: none) */
    perfdb db;             /* its records, and what find mode learned */
};

_Static_assert(sizeof(((igemm_launch *)0)->args) >= sizeof(((launch_desc *)0)->args),
               "igemm_launch.args must hold a launch_desc's arguments");
_Static_assert(sizeof(((igemm_launch *)0)->kernel) >= sizeof(((launch_desc *)0)->kernel),
               "igemm_launch.kernel must hold a launch_desc's kernel name");

static igemm_status fail(igemm_handle *h, igemm_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static igemm_status fail(igemm_handle *h, igemm_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->err, sizeof h->err, fmt, ap);
    va_end(ap);
    return st;
}

const char *igemm_version(void) { return IGEMM_VERSION; }

igemm_status igemm_create(igemm_handle **out, const igemm_options *opt, char *why, size_t why_len)
{
    if (!out) {
        why_printf(why, why_len, "igemm_create: handle pointer is NULL");
        return IGEMM_ERR_INVALID_ARG;
    }
    *out = NULL;
    igemm_options o = IGEMM_OPTIONS_INIT;
    if (opt)
        o = *opt;
    if (o.backend != IGEMM_BACKEND_AUTO && o.backend != IGEMM_BACKEND_HIP && o.backend != IGEMM_BACKEND_EMU) {
        why_printf(why, why_len, "unknown backend %d (IGEMM_BACKEND_AUTO, _HIP or _EMU)", (int)o.backend);
        return IGEMM_ERR_INVALID_ARG;
    }
    if (o.device < 0) {
        why_printf(why, why_len, "HIP device index %d is negative", o.device);
        return IGEMM_ERR_INVALID_ARG;
    }
    if (o.emu_threads < 0) {
        why_printf(why, why_len, "emulator thread count %d is negative (0: one per CPU)", o.emu_threads);
        return IGEMM_ERR_INVALID_ARG;
    }
    const target *emu_t = o.arch ? target_by_name(o.arch) : TARGET_DEFAULT;
    if (!emu_t) {
        why_printf(why, why_len, "unknown target '%s' (known: %s)", o.arch, target_names());
        return IGEMM_ERR_UNSUPPORTED;
    }
    igemm_handle *h = calloc(1, sizeof *h);
    if (!h) {
        why_printf(why, why_len, "out of memory");
        return IGEMM_ERR_NO_MEMORY;
    }
    char available[256];
    codeobj_available(o.codeobj_dir, available, sizeof available);
    char reason[1024] = "";
    igemm_status st = IGEMM_OK;
    if (o.backend == IGEMM_BACKEND_HIP || o.backend == IGEMM_BACKEND_AUTO) {
        h->b = backend_hip_create(o.device, available, reason, sizeof reason, &st);
        if (!h->b && o.backend == IGEMM_BACKEND_HIP) {
            why_printf(why, why_len, "%s", reason);
            free(h);
            return st;
        }
        if (!h->b)
            snprintf(h->fallback, sizeof h->fallback, "%s", reason);
    }
    if (!h->b) {
        h->b = backend_emu_create(emu_t, o.emu_threads, reason, sizeof reason);
        if (!h->b) {
            why_printf(why, why_len, "%s", reason);
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
        if (!h->co_file || !size) {
            why_printf(why, why_len, "cannot read code object %s (that directory has code objects for: %s)", path,
                available[0] ? available : "no target");
            igemm_destroy(h);
            return IGEMM_ERR_NO_CODE_OBJECT;
        }
        image = h->co_file;
    } else {
        const igemm_codeobj *co = igemm_codeobj_find(h->t->name);
        if (!co) {
            why_printf(why, why_len, "no embedded code object for %s (available: %s)", h->t->name, igemm_codeobj_list());
            igemm_destroy(h);
            return IGEMM_ERR_NO_CODE_OBJECT;
        }
        image = co->data;
        size = co->size;
    }
    if (h->b->load(h->b, image, size, &h->mod)) {
        why_printf(why, why_len, "loading the %s code object%s%s: %s", h->t->name, o.codeobj_dir ? " from " : "",
            o.codeobj_dir ? o.codeobj_dir : "", h->b->err);
        igemm_destroy(h);
        return IGEMM_ERR_NO_CODE_OBJECT;
    }
    if (o.perfdb) {
        if (!(h->perfdb = strdup(o.perfdb))) {
            why_printf(why, why_len, "out of memory");
            igemm_destroy(h);
            return IGEMM_ERR_NO_MEMORY;
        }
        st = perfdb_load(&h->db, o.perfdb, why, why_len);
        if (st != IGEMM_OK) {
            igemm_destroy(h);
            return st;
        }
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
    perfdb_free(&h->db);
    free(h);
}

const char *igemm_last_error(const igemm_handle *h) { return h ? h->err : "handle is NULL"; }
const char *igemm_handle_arch(const igemm_handle *h) { return h ? h->t->name : NULL; }
const char *igemm_handle_backend(const igemm_handle *h) { return h ? h->b->name : NULL; }
const char *igemm_handle_fallback(const igemm_handle *h) { return h ? h->fallback : NULL; }

static int is_emu(const igemm_handle *h) { return !strcmp(h->b->name, "emu"); }

igemm_status igemm_set_stream(igemm_handle *h, void *stream)
{
    if (!h)
        return IGEMM_ERR_INVALID_ARG;
    h->err[0] = 0;
    if (h->b->set_stream(h->b, stream))
        return fail(h, IGEMM_ERR_UNSUPPORTED, "%s", h->b->err);
    return IGEMM_OK;
}

/* ---- memory ---- */

igemm_status igemm_alloc(igemm_handle *h, void **p, size_t bytes)
{
    if (!h)
        return IGEMM_ERR_INVALID_ARG;
    h->err[0] = 0;
    if (!p)
        return fail(h, IGEMM_ERR_INVALID_ARG, "igemm_alloc: the result pointer is NULL");
    *p = NULL;
    if (h->b->alloc(h->b, p, bytes))
        return fail(h, IGEMM_ERR_NO_MEMORY, "%s", h->b->err);
    return IGEMM_OK;
}

void igemm_free(igemm_handle *h, void *p)
{
    if (h && p)
        h->b->free(h->b, p);
}

/* The two copy directions share their checks; fn names the caller. */
static igemm_status copy(igemm_handle *h, const char *fn, bool to_device, void *dst, const void *src, size_t bytes)
{
    if (!h)
        return IGEMM_ERR_INVALID_ARG;
    h->err[0] = 0;
    if ((!dst || !src) && bytes)
        return fail(h, IGEMM_ERR_INVALID_ARG, "%s: %s pointer is NULL", fn, dst ? "source" : "destination");
    if (bytes && (to_device ? h->b->to_device : h->b->to_host)(h->b, dst, src, bytes))
        return fail(h, IGEMM_ERR_BACKEND, "%s", h->b->err);
    return IGEMM_OK;
}

igemm_status igemm_copy_to_device(igemm_handle *h, void *dst, const void *src, size_t bytes)
{
    return copy(h, "igemm_copy_to_device", true, dst, src, bytes);
}

igemm_status igemm_copy_to_host(igemm_handle *h, void *dst, const void *src, size_t bytes)
{
    return copy(h, "igemm_copy_to_host", false, dst, src, bytes);
}

/* ---- solutions ---- */

int igemm_solution_count(void) { return solver_count(); }
const char *igemm_solution_name(int i) { return solver_get(i) ? solver_get(i)->name : NULL; }

static igemm_status check_solver(igemm_handle *h, const solver *s, const igemm_shape *sh, char *why, size_t len)
{
    if (!s->available(s, h->t)) {
        why_printf(why, len, "%s has no %s kernel", h->t->name, s->name);
        return IGEMM_ERR_NOT_APPLICABLE;
    }
    return s->applicable(s, sh, h->t, why, len);
}

/* "no kernel configuration applies on gfx906 to conv -n 1 ...: naive: reason;
 * v4r1_a and 21 more: reason; ...": configurations with the same reason
 * are named once, by the first of them and a count. */
static void refusal(igemm_handle *h, const igemm_shape *sh, char *buf, size_t len)
{
    char args[256];
    igemm_problem_format(&sh->p, args, sizeof args);
    int n = snprintf(buf, len, "no kernel configuration applies on %s to %s %s:", h->t->name,
                     igemm_problem_command(&sh->p), args);
    int ns = solver_count();
    char (*why)[256] = calloc((size_t)ns, sizeof *why);
    for (int i = 0; why && i < ns; i++)
        check_solver(h, solver_get(i), sh, why[i], sizeof why[i]);
    for (int i = 0, first = 1; i < ns && n >= 0 && (size_t)n < len; i++) {
        char one[256] = "";
        if (!why)
            check_solver(h, solver_get(i), sh, one, sizeof one);
        const char *r = why ? why[i] : one;
        int seen = 0, more = 0;
        for (int j = 0; why && j < ns; j++) {
            seen |= j < i && !strcmp(why[j], r);
            more += j > i && !strcmp(why[j], r);
        }
        if (seen)
            continue;
        if (more)
            n += snprintf(buf + n, len - (size_t)n, "%s %s and %d more: %s", first ? "" : ";", solver_get(i)->name,
                          more, r);
        else
            n += snprintf(buf + n, len - (size_t)n, "%s %s: %s", first ? "" : ";", solver_get(i)->name, r);
        first = 0;
    }
    free(why);
}

igemm_status igemm_applicable(igemm_handle *h, const igemm_problem *p, const char *solution, char *why,
                              size_t why_len)
{
    if (!h) {
        why_printf(why, why_len, "handle is NULL");
        return IGEMM_ERR_INVALID_ARG;
    }
    h->err[0] = 0;
    igemm_shape sh;
    igemm_status st = igemm_shape_init(&sh, p, why, why_len);
    if (st != IGEMM_OK)
        return st;
    if (solution) {
        const solver *s = solver_find(solution);
        if (!s) {
            why_printf(why, why_len, "unknown solution '%s'", solution);
            return IGEMM_ERR_INVALID_ARG;
        }
        return check_solver(h, s, &sh, why, why_len);
    }
    for (int i = 0; i < solver_count(); i++)
        if (check_solver(h, solver_get(i), &sh, NULL, 0) == IGEMM_OK)
            return IGEMM_OK;
    char buf[1024];
    refusal(h, &sh, buf, sizeof buf);
    why_printf(why, why_len, "%s", buf);
    return IGEMM_ERR_NOT_APPLICABLE;
}

static int handle_solver_ok(igemm_handle *h, const solver *s, const igemm_shape *sh)
{
    return check_solver(h, s, sh, NULL, 0) == IGEMM_OK;
}

static const char *cost_unit(const igemm_handle *h) { return is_emu(h) ? "cycles" : "ms"; }

/* The performance database's configuration for sh on h (the record whose
 * unit is this backend's first), when it names an applicable one. */
static const solver *perfdb_solver(igemm_handle *h, const igemm_shape *sh)
{
    char key[160];
    perfdb_key(&sh->p, key, sizeof key);
    const perfdb_rec *r = perfdb_find(&h->db, h->t->name, key, cost_unit(h));
    if (!r)
        return NULL;
    const solver *s = solver_find(r->solution);
    return s && handle_solver_ok(h, s, sh) ? s : NULL;
}

/* The heuristic's filter: the solvers h can run on sh. */
typedef struct {
    igemm_handle *h;
    const igemm_shape *sh;
} heuristic_ctx;

static int heuristic_ok(void *ctx, const solver *s)
{
    heuristic_ctx *c = ctx;
    return handle_solver_ok(c->h, s, c->sh);
}

/* Validate p and find the configuration to run: `solution` when given
 * (source "user"), else the perf DB's, else the heuristic's. On failure the
 * message is in h->err. */
static igemm_status resolve(igemm_handle *h, const igemm_problem *p, const char *solution, igemm_shape *sh,
                            const solver **out, const char **source)
{
    igemm_status st = igemm_shape_init(sh, p, h->err, sizeof h->err);
    if (st != IGEMM_OK)
        return st;
    if (solution) {
        const solver *s = solver_find(solution);
        if (!s)
            return fail(h, IGEMM_ERR_INVALID_ARG, "unknown solution '%s' (igemm_solution_name lists them)", solution);
        char why[512];
        if ((st = check_solver(h, s, sh, why, sizeof why)) != IGEMM_OK)
            return fail(h, st, "%s does not apply on %s: %s", s->name, h->t->name, why);
        *out = s;
        *source = "user";
        return IGEMM_OK;
    }
    const solver *s = perfdb_solver(h, sh);
    *source = "perfdb";
    if (!s) {
        heuristic_ctx c = {h, sh};
        s = select_heuristic(sh, h->t, heuristic_ok, &c);
        *source = "heuristic";
    }
    if (!s) {
        refusal(h, sh, h->err, sizeof h->err);
        return IGEMM_ERR_NOT_APPLICABLE;
    }
    *out = s;
    return IGEMM_OK;
}

igemm_status igemm_select(igemm_handle *h, const igemm_problem *p, char *solution, size_t len)
{
    if (!h)
        return IGEMM_ERR_INVALID_ARG;
    h->err[0] = 0;
    if (!p || !solution || !len)
        return fail(h, IGEMM_ERR_INVALID_ARG, "igemm_select: %s is NULL or empty", !p ? "the problem" : "solution");
    igemm_shape sh;
    const solver *s;
    const char *source;
    igemm_status st = resolve(h, p, NULL, &sh, &s, &source);
    if (st != IGEMM_OK)
        return st;
    snprintf(solution, len, "%s", s->name);
    return IGEMM_OK;
}

/* ---- running ---- */

static bk_kernel *kernel_lookup(igemm_handle *h, const char *name)
{
    for (int i = 0; i < h->nk; i++)
        if (!strcmp(h->kcache[i].name, name))
            return h->kcache[i].k;
    bk_kernel *k = h->b->kernel(h->b, h->mod, name);
    if (k && h->nk == MAX_CACHED_KERNELS)
        igemm_die("kernel cache full (%d kernels) looking up %s", MAX_CACHED_KERNELS, name);
    if (k) {
        snprintf(h->kcache[h->nk].name, sizeof h->kcache[h->nk].name, "%s", name);
        h->kcache[h->nk++].k = k;
    }
    return k;
}

/* Append name to the comma-separated list unless it is there already. */
static void add_kernel_name(char *list, size_t len, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        size_t w = strcspn(p, ",");
        if (w == n && !strncmp(p, name, n))
            return;
        p += w + (p[w] == ',');
    }
    size_t used = strlen(list);
    if (used + (used ? 1 : 0) + n + 1 > len)
        return; /* the list is full: later names are left out */
    snprintf(list + used, len - used, "%s%s", used ? "," : "", name);
}

/* Run solver s on (dx, dy, w); fills ri. */
static igemm_status run(igemm_handle *h, const igemm_shape *sh, const solver *s, void *dx, const void *dy,
                        const void *w, igemm_run_info *ri)
{
    memset(ri, 0, sizeof *ri);
    snprintf(ri->solution, sizeof ri->solution, "%s", s->name);
    launch_plan plan = {0};
    if (s->plan(s, sh, h->t, &plan)) {
        plan_free(&plan);
        return fail(h, IGEMM_ERR_NO_MEMORY, "out of memory planning the launches of %s", s->name);
    }
    igemm_status st = IGEMM_OK;
    void *base[3] = {dx, (void *)dy, (void *)w};
    size_t eb = (size_t)igemm_dtype_get(sh->p.dtype)->bytes;
    size_t bytes[3] = {(size_t)sh->dx_elems * eb, (size_t)sh->dy_elems * eb, (size_t)sh->w_elems * eb};
    const char *tensor[3] = {"dx", "dy", "w"};
    int mapped = 0;
    for (; mapped < 3; mapped++)
        if (h->b->map(h->b, base[mapped], bytes[mapped])) {
            st = fail(h, IGEMM_ERR_BACKEND, "%s (%s)", h->b->err, tensor[mapped]);
            break;
        }
    for (int i = 0; st == IGEMM_OK && i < plan.n; i++) {
        launch_desc *d = &plan.l[i];
        plan_bind(d, base);
        bk_kernel *k = kernel_lookup(h, d->kernel);
        if (!k) {
            st = fail(h, IGEMM_ERR_NO_CODE_OBJECT, "%s", h->b->err);
            break;
        }
        bk_stats bs;
        if (h->b->launch(h->b, k, d->grid, d->block, d->args, d->args_size, &bs)) {
            st = fail(h, is_emu(h) ? IGEMM_ERR_EMU_FAULT : IGEMM_ERR_BACKEND, "%s (launch %d of %d of %s)", h->b->err,
                      i + 1, plan.n, s->name);
            break;
        }
        add_kernel_name(ri->kernels, sizeof ri->kernels, d->kernel);
        ri->launches++;
        ri->ms += bs.ms;
        ri->cycles += bs.cycles;
        ri->insts += bs.insts;
        ri->valu_cycles += bs.valu_cycles;
        ri->fma_cycles += bs.fma_cycles;
        ri->loop_valu_cycles += bs.loop_valu_cycles;
        ri->loop_fma_cycles += bs.loop_fma_cycles;
        ri->global_bytes += bs.global_bytes;
        ri->lds_bytes += bs.lds_bytes;
    }
    for (int a = 0; a < mapped; a++)
        h->b->unmap(h->b, base[a]);
    plan_free(&plan);
    return st;
}

igemm_status igemm_conv_bwd_data_ex(igemm_handle *h, const igemm_problem *p, const char *solution, void *dx,
                                   const void *dy, const void *w, igemm_run_info *info)
{
    if (!h)
        return IGEMM_ERR_INVALID_ARG;
    h->err[0] = 0;
    if (!dx || !dy || !w)
        return fail(h, IGEMM_ERR_INVALID_ARG, "%s must not be NULL", !dx ? "dx" : !dy ? "dy" : "w");
    igemm_shape sh;
    const solver *s;
    const char *source;
    igemm_status st = resolve(h, p, solution, &sh, &s, &source);
    if (st != IGEMM_OK)
        return st;
    igemm_run_info ri;
    st = run(h, &sh, s, dx, dy, w, &ri);
    snprintf(ri.source, sizeof ri.source, "%s", source);
    if (info)
        *info = ri;
    return st;
}

igemm_status igemm_conv_bwd_data(igemm_handle *h, const igemm_problem *p, void *dx, const void *dy, const void *w)
{
    return igemm_conv_bwd_data_ex(h, p, NULL, dx, dy, w, NULL);
}

/* ---- find mode ---- */

#define FIND_HIP_TIMED_RUNS 3

/* Measure one configuration: its cost, or the failure's status. */
static igemm_status measure(igemm_handle *h, const igemm_shape *sh, const solver *s, void *dx, const void *dy,
                            const void *w, igemm_perf *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->solution, sizeof out->solution, "%s", s->name);
    out->unit = cost_unit(h);
    igemm_run_info ri;
    igemm_status st = run(h, sh, s, dx, dy, w, &ri); /* HIP: warm-up; emulator: the measurement */
    out->launches = ri.launches;
    out->cost = is_emu(h) ? (double)ri.cycles : INFINITY;
    for (int i = 0; st == IGEMM_OK && !is_emu(h) && i < FIND_HIP_TIMED_RUNS; i++) {
        st = run(h, sh, s, dx, dy, w, &ri);
        if (st == IGEMM_OK && ri.ms < out->cost)
            out->cost = ri.ms;
    }
    out->status = st;
    if (st != IGEMM_OK)
        out->cost = INFINITY;
    return st;
}

/* Order: configurations that ran, cheapest first; failures last. */
static int perf_before(const igemm_perf *a, const igemm_perf *b)
{
    if ((a->status == IGEMM_OK) != (b->status == IGEMM_OK))
        return a->status == IGEMM_OK;
    return a->status == IGEMM_OK && a->cost < b->cost;
}

igemm_status igemm_find(igemm_handle *h, const igemm_problem *p, void *dx, const void *dy, const void *w,
                        igemm_perf *results, int max_results, int *count)
{
    if (count)
        *count = 0;
    if (!h)
        return IGEMM_ERR_INVALID_ARG;
    h->err[0] = 0;
    if (!dx || !dy || !w)
        return fail(h, IGEMM_ERR_INVALID_ARG, "%s must not be NULL", !dx ? "dx" : !dy ? "dy" : "w");
    if (max_results < 0 || (max_results > 0 && !results))
        return fail(h, IGEMM_ERR_INVALID_ARG, "igemm_find: results is NULL or max_results (%d) is negative",
                    max_results);
    igemm_shape sh;
    igemm_status st = igemm_shape_init(&sh, p, h->err, sizeof h->err);
    if (st != IGEMM_OK)
        return st;
    int n = 0;
    igemm_perf *perf = calloc((size_t)solver_count() + 1, sizeof *perf);
    if (!perf)
        return fail(h, IGEMM_ERR_NO_MEMORY, "out of memory");
    igemm_status first_fail = IGEMM_OK, last = IGEMM_OK;
    char first_msg[sizeof h->err] = "";
    for (int i = 0; i < solver_count(); i++) {
        const solver *s = solver_get(i);
        if (!handle_solver_ok(h, s, &sh))
            continue;
        last = measure(h, &sh, s, dx, dy, w, &perf[n]);
        if (last != IGEMM_OK && first_fail == IGEMM_OK) {
            first_fail = last;
            snprintf(first_msg, sizeof first_msg, "%s", h->err);
        }
        /* insertion keeps perf[0..n] ordered */
        for (int j = n; j > 0 && perf_before(&perf[j], &perf[j - 1]); j--) {
            igemm_perf t = perf[j];
            perf[j] = perf[j - 1];
            perf[j - 1] = t;
        }
        n++;
    }
    if (count)
        *count = n;
    for (int i = 0; i < n && i < max_results; i++)
        results[i] = perf[i];
    if (!n) {
        free(perf);
        refusal(h, &sh, h->err, sizeof h->err);
        return IGEMM_ERR_NOT_APPLICABLE;
    }
    if (perf[0].status != IGEMM_OK) {
        free(perf);
        return fail(h, first_fail, "find: every configuration failed; the first: %s", first_msg);
    }
    if (last != IGEMM_OK) {
        /* the last run left dx half-written: recompute it with the best */
        igemm_run_info ri;
        if ((st = run(h, &sh, solver_find(perf[0].solution), dx, dy, w, &ri)) != IGEMM_OK) {
            free(perf);
            return st;
        }
    }
    perfdb_rec rec;
    memset(&rec, 0, sizeof rec);
    snprintf(rec.arch, sizeof rec.arch, "%s", h->t->name);
    perfdb_key(p, rec.key, sizeof rec.key);
    snprintf(rec.solution, sizeof rec.solution, "%s", perf[0].solution);
    rec.cost = perf[0].cost;
    snprintf(rec.unit, sizeof rec.unit, "%s", perf[0].unit);
    free(perf);
    if (perfdb_put(&h->db, &rec))
        return fail(h, IGEMM_ERR_NO_MEMORY, "out of memory");
    h->err[0] = 0;
    if (h->perfdb) {
        char why[512];
        st = perfdb_store(h->perfdb, &rec, why, sizeof why);
        if (st != IGEMM_OK)
            return fail(h, st, "find: %s", why);
    }
    return IGEMM_OK;
}

/* ---- launch plans for embedders ---- */

igemm_status igemm_get_launches(igemm_handle *h, const igemm_problem *p, const char *solution,
                                igemm_launch *launches, int max, int *count)
{
    if (!h)
        return IGEMM_ERR_INVALID_ARG;
    h->err[0] = 0;
    if (!count)
        return fail(h, IGEMM_ERR_INVALID_ARG, "igemm_get_launches: count is NULL");
    *count = 0;
    if (launches && max < 0)
        return fail(h, IGEMM_ERR_INVALID_ARG, "igemm_get_launches: max (%d) is negative", max);
    igemm_shape sh;
    const solver *s;
    const char *source;
    igemm_status st = resolve(h, p, solution, &sh, &s, &source);
    if (st != IGEMM_OK)
        return st;
    launch_plan plan = {0};
    if (s->plan(s, &sh, h->t, &plan)) {
        plan_free(&plan);
        return fail(h, IGEMM_ERR_NO_MEMORY, "out of memory planning the launches of %s", s->name);
    }
    *count = plan.n;
    if (launches && max < plan.n) {
        int n = plan.n;
        plan_free(&plan);
        return fail(h, IGEMM_ERR_INVALID_ARG, "the plan of %s has %d launches; the array holds %d", s->name, n, max);
    }
    for (int i = 0; launches && i < plan.n; i++) {
        const launch_desc *d = &plan.l[i];
        igemm_launch *l = &launches[i];
        memset(l, 0, sizeof *l);
        snprintf(l->kernel, sizeof l->kernel, "%s", d->kernel);
        l->grid[0] = d->grid;
        l->grid[1] = l->grid[2] = 1;
        l->block[0] = d->block;
        l->block[1] = l->block[2] = 1;
        memcpy(l->args, d->args, d->args_size);
        l->args_size = d->args_size;
        for (int a = 0; a < 3; a++) {
            l->ptr_offset[a] = d->ptr_off[a];
            l->ptr_add[a] = d->ptr_add[a];
        }
    }
    plan_free(&plan);
    return IGEMM_OK;
}
