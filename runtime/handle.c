/* Handles: backend choice, code object loading, memory helpers, the
 * bwd-data entry points that turn a problem into launches, find mode and the
 * performance database lookup. */
#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allocs.h"
#include "backend.h"
#include "codeobj.h"
#include "perfdb.h"
#include "../conv/types.h"
#include "../conv/select.h"
#include "../conv/solver.h"
#include "../emu/emu.h"
#include "../conv/types.h"

#define MAX_CACHED_KERNELS 256

struct igemm_handle {
    backend *b;
    bk_module *mod;
    const target *t;
    codeobj_file co_file;  /* code object read from codeobj_dir (a file, or a bundle's entry) */
    char err[1024];
    char fallback[1024];   /* why AUTO did not use HIP */
    struct {
        char name[128];
        bk_kernel *k;
    } kcache[MAX_CACHED_KERNELS];
    int nk;
    target dev_t;          /* t with the device's CU count (the heuristic's view of the device) */
    int timing;            /* igemm_options.timing */
    int log_cmd;           /* IGEMM_ENABLE_LOGGING_CMD: each call's command line on stderr */
    void (*progress)(void *ctx, const char *what, int done, int total);
    void *progress_ctx;
    char *perfdb;          /* database file (NULL: none) */
    perfdb db;             /* its records, and what find mode learned */
    char warning[1024];    /* what igemm_create tolerated (a skipped perfdb line) */
    alloc_table allocs;    /* igemm_alloc's buffers and their sizes */
    unsigned disabled_math; /* IGEMM_DISABLE_MATH: 1 << igemm_math left out of the automatic selection */
};

/* IGEMM_DISABLE_MATH: math strategies ("fma", "mfma", comma-separated) the
 * automatic selection leaves out, as MIOpen's MIOPEN_DEBUG_CONV_* variables
 * turn solver families off; an unknown name is refused. */
static int disabled_math(unsigned *mask, char *why, size_t len)
{
    const char *v = getenv("IGEMM_DISABLE_MATH");
    *mask = 0;
    for (const char *p = v; p && *p;) {
        size_t n = strcspn(p, ",");
        int found = 0;
        for (int m = 0; m < IGEMM_MATH_COUNT; m++)
            if (strlen(igemm_math_get((igemm_math)m)->name) == n && !strncmp(p, igemm_math_get((igemm_math)m)->name, n))
                *mask |= 1u << m, found = 1;
        if (!found && n) {
            why_printf(why, len, "IGEMM_DISABLE_MATH: '%.*s' is not a math strategy (fma, mfma)", (int)(n > 32 ? 32 : n),
                       p);
            return -1;
        }
        p += n + (p[n] == ',');
    }
    return 0;
}

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
int igemm_version_number(void) { return IGEMM_VERSION_NUMBER; }

igemm_problem igemm_problem_init(void)
{
    igemm_problem p = IGEMM_PROBLEM_INIT;
    return p;
}

igemm_options igemm_options_init(void)
{
    igemm_options o = IGEMM_OPTIONS_INIT;
    return o;
}

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
    unsigned no_math;
    if (disabled_math(&no_math, why, why_len))
        return IGEMM_ERR_INVALID_ARG;
    const target *emu_t = o.arch ? target_by_name(o.arch) : TARGET_DEFAULT;
    if (!emu_t || emu_t->emulate_only) {
        why_printf(why, why_len, "%s target '%s' (the library's kernels are built for: %s)",
                   emu_t ? "emulate-only" : "unknown", o.arch, target_names_generated());
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
        h->b = backend_emu_create(emu_t, o.emu_threads, o.emu_max_wave_insts, !o.emu_no_timing, reason, sizeof reason);
        if (!h->b) {
            why_printf(why, why_len, "%s", reason);
            free(h);
            return IGEMM_ERR_BACKEND;
        }
    }
    h->t = h->b->t;
    h->dev_t = *h->t;
    h->dev_t.num_cu = h->b->num_cu;
    h->timing = o.timing;
    h->disabled_math = no_math;
    h->progress = o.progress;
    h->progress_ctx = o.progress_ctx;
    const char *env = getenv(IGEMM_ENV_LOGGING_CMD);
    h->log_cmd = env && *env && strcmp(env, "0");
    char udb[4096];
    env = getenv(IGEMM_ENV_USER_DB_PATH);
    if (!o.perfdb && env && *env) { /* the default perf-db, as MIOPEN_USER_DB_PATH */
        snprintf(udb, sizeof udb, "%s/%s", env, IGEMM_USER_DB_FILE);
        o.perfdb = udb;
    }

    const void *image = NULL;
    size_t size = 0;
    if (o.codeobj_dir) {
        char bad[1400];
        if (codeobj_dir_load(o.codeobj_dir, h->t->name, h->b->target_id, &h->co_file, bad, sizeof bad)) {
            why_printf(why, why_len, "%s (that directory has usable code objects for: %s)", bad,
                       available[0] ? available : "no target");
            igemm_destroy(h);
            return IGEMM_ERR_NO_CODE_OBJECT;
        }
        image = h->co_file.image;
        size = h->co_file.size;
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
        st = perfdb_load(&h->db, o.perfdb, h->warning, sizeof h->warning, why, why_len);
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
    codeobj_file_free(&h->co_file);
    free(h->perfdb);
    perfdb_free(&h->db);
    allocs_free(&h->allocs);
    free(h);
}

const char *igemm_last_error(const igemm_handle *h) { return h ? h->err : "handle is NULL"; }
const char *igemm_handle_arch(const igemm_handle *h) { return h ? h->t->name : NULL; }
const char *igemm_handle_backend(const igemm_handle *h) { return h ? h->b->name : NULL; }
const char *igemm_handle_fallback(const igemm_handle *h) { return h ? h->fallback : NULL; }
const char *igemm_handle_warning(const igemm_handle *h) { return h ? h->warning : NULL; }
const char *igemm_handle_target_id(const igemm_handle *h) { return h ? h->b->target_id : NULL; }
int igemm_handle_cu_count(const igemm_handle *h) { return h ? h->b->num_cu : 0; }

igemm_status igemm_synchronize(igemm_handle *h)
{
    if (!h)
        return IGEMM_ERR_INVALID_ARG;
    h->err[0] = 0;
    if (h->b->synchronize(h->b))
        return fail(h, IGEMM_ERR_BACKEND, "%s", h->b->err);
    return IGEMM_OK;
}

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
    if (allocs_add(&h->allocs, *p, bytes)) {
        h->b->free(h->b, *p);
        *p = NULL;
        return fail(h, IGEMM_ERR_NO_MEMORY, "out of memory");
    }
    return IGEMM_OK;
}

void igemm_free(igemm_handle *h, void *p)
{
    if (h && p) {
        allocs_remove(&h->allocs, p);
        h->b->free(h->b, p);
    }
}

/* A buffer of `bytes` at p must fit the igemm_alloc allocation p lies in. */
static igemm_status fits_alloc(igemm_handle *h, const char *what, const void *p, size_t bytes)
{
    size_t size, off;
    if (!allocs_check(&h->allocs, p, bytes, &size, &off))
        return IGEMM_OK;
    return fail(h, IGEMM_ERR_INVALID_ARG, "%s needs %zu bytes at offset %zu of an igemm_alloc buffer of %zu bytes", what,
                bytes, off, size);
}

/* The two copy directions share their checks; fn names the caller. */
static igemm_status copy(igemm_handle *h, const char *fn, bool to_device, void *dst, const void *src, size_t bytes)
{
    if (!h)
        return IGEMM_ERR_INVALID_ARG;
    h->err[0] = 0;
    if ((!dst || !src) && bytes)
        return fail(h, IGEMM_ERR_INVALID_ARG, "%s: %s pointer is NULL", fn, dst ? "source" : "destination");
    char what[64];
    snprintf(what, sizeof what, "%s: the destination", fn);
    igemm_status st = fits_alloc(h, what, dst, bytes);
    snprintf(what, sizeof what, "%s: the source", fn);
    if (st != IGEMM_OK || (st = fits_alloc(h, what, src, bytes)) != IGEMM_OK)
        return st;
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

/* "no kernel configuration applies on gfx906 to conv -n 1 ...: REASON (every
 * configuration)", or per distinct reason "naive: reason; igemm_bwd_... and
 * 14 others: reason": a reason shared by several configurations is said once.
 * Configurations the target has no kernel for (MFMA ones on gfx906) and
 * those written for another layout or type are not candidates and are left
 * out; when none is left, that is the reason. */
static void refusal(igemm_handle *h, const igemm_shape *sh, char *buf, size_t len)
{
    enum { MAX_REASONS = 16 };
    struct {
        char why[256];
        int first, count;
    } r[MAX_REASONS];
    int nr = 0, n_solvers = solver_count();
    for (int i = 0; i < n_solvers; i++) {
        char why[256] = "";
        const solver *s = solver_get(i);
        if (!s->available(s, h->t) || s->layout != sh->p.layout || s->dtype != sh->p.dtype)
            continue;
        check_solver(h, solver_get(i), sh, why, sizeof why);
        int j = 0;
        while (j < nr && strcmp(r[j].why, why))
            j++;
        if (j == nr && nr < MAX_REASONS) {
            snprintf(r[nr].why, sizeof r[nr].why, "%s", why);
            r[nr].first = i;
            r[nr++].count = 0;
        }
        if (j < nr)
            r[j].count++;
    }
    char args[256];
    igemm_problem_format(&sh->p, args, sizeof args);
    int n = snprintf(buf, len, "no kernel configuration applies on %s to %s %s:", h->t->name,
                     igemm_problem_command(&sh->p), args);
    if (nr == 0) {
        snprintf(buf + n, len - (size_t)n, " none is written for %s %s tensors",
                 igemm_layout_get(sh->p.layout)->upper, igemm_dtype_get(sh->p.dtype)->name);
        return;
    }
    if (nr == 1) {
        snprintf(buf + n, len - (size_t)n, " %s (every configuration)", r[0].why);
        return;
    }
    for (int j = 0; j < nr && n >= 0 && (size_t)n < len; j++) {
        char others[32] = "";
        if (r[j].count > 1)
            snprintf(others, sizeof others, " and %d other%s", r[j].count - 1, r[j].count > 2 ? "s" : "");
        n += snprintf(buf + n, len - (size_t)n, "%s %s%s: %s", j ? ";" : "", solver_get(r[j].first)->name, others,
                      r[j].why);
    }
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
            why_printf(why, why_len, "unknown solution '%s' (%d names: 'igemm solutions' lists them)", solution,
                       solver_count());
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

/* A candidate of the automatic selection (heuristic, perf DB, find). */
static int handle_solver_ok(igemm_handle *h, const solver *s, const igemm_shape *sh)
{
    return !(h->disabled_math >> s->math & 1) && check_solver(h, s, sh, NULL, 0) == IGEMM_OK;
}

static const char *cost_unit(const igemm_handle *h) { return is_emu(h) ? "cycles" : "ms"; }

/* The performance database's configuration for sh on h (the record whose
 * unit is this backend's first), when it names an applicable one. */
static const solver *perfdb_solver(igemm_handle *h, const igemm_shape *sh)
{
    char key[160];
    perfdb_key(&sh->p, h->b->num_cu, key, sizeof key);
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
            return fail(h, IGEMM_ERR_INVALID_ARG, "unknown solution '%s' (igemm_solution_name lists the %d names; the CLI: igemm solutions)",
                        solution, solver_count());
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
        s = select_heuristic(sh, &h->dev_t, heuristic_ok, &c);
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
    if (strlen(s->name) >= len)
        return fail(h, IGEMM_ERR_INVALID_ARG, "igemm_select: %s needs %zu bytes, the buffer has %zu", s->name,
                    strlen(s->name) + 1, len);
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

/* Run solver s on (dx, dy, w); fills ri. HIP: the launches are queued on
 * the stream; timed, the call waits for them and ri->ms is their time. */
static igemm_status run(igemm_handle *h, const igemm_shape *sh, const solver *s, void *dx, const void *dy,
                        const void *w, bool timed, igemm_run_info *ri)
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
    for (int t = 0; t < 3; t++)
        if ((st = fits_alloc(h, tensor[t], base[t], bytes[t])) != IGEMM_OK) {
            plan_free(&plan);
            return st;
        }
    int mapped = 0;
    for (; mapped < 3; mapped++)
        if (h->b->map(h->b, base[mapped], bytes[mapped])) {
            st = fail(h, IGEMM_ERR_BACKEND, "%s (%s)", h->b->err, tensor[mapped]);
            break;
        }
    if (st == IGEMM_OK && timed && h->b->timer_start(h->b))
        st = fail(h, IGEMM_ERR_BACKEND, "%s (timing %s)", h->b->err, s->name);
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
        ri->cycles += bs.cycles;
        ri->insts += bs.insts;
        ri->valu_cycles += bs.valu_cycles;
        ri->fma_cycles += bs.fma_cycles;
        ri->loop_valu_cycles += bs.loop_valu_cycles;
        ri->loop_fma_cycles += bs.loop_fma_cycles;
        ri->global_bytes += bs.global_bytes;
        ri->lds_bytes += bs.lds_bytes;
        if (bs.model_cycles && (ri->launches == 1 || ri->modeled_cycles)) {
            ri->modeled_cycles += bs.model_cycles;
            ri->modeled_us += bs.model_us;
            for (int j = 0; j < 4; j++)
                ri->modeled_busy[j] += bs.model_busy[j];
        } else { /* one launch not timed: the run is not */
            ri->modeled_cycles = 0;
            ri->modeled_us = 0;
        }
    }
    if (ri->modeled_cycles)
        snprintf(ri->limit, sizeof ri->limit, "%s", emu_limit_names[emu_model_limit(ri->modeled_cycles, ri->modeled_busy)]);
    if (st == IGEMM_OK && timed && h->b->timer_stop(h->b, &ri->ms))
        st = fail(h, IGEMM_ERR_BACKEND, "%s (after the launches of %s)", h->b->err, s->name);
    for (int a = 0; a < mapped; a++)
        h->b->unmap(h->b, base[a]);
    plan_free(&plan);
    return st;
}

/* IGEMM_ENABLE_LOGGING_CMD: the call's problem as an igemm command line. */
static void log_call(const igemm_handle *h, const char *call, const igemm_problem *p, const char *solution)
{
    if (!h->log_cmd || !p)
        return;
    char args[512];
    igemm_problem_format(p, args, sizeof args);
    fprintf(stderr, "igemm(%s): Command [%s] igemm %s %s -F 2%s%s%s%s\n", h->b->name, call,
            igemm_problem_command(p), args, is_emu(h) ? " --arch " : "", is_emu(h) ? h->t->name : "",
            solution ? " --solution " : "", solution ? solution : "");
}

igemm_status igemm_conv_bwd_data_ex(igemm_handle *h, const igemm_problem *p, const char *solution, void *dx,
                                   const void *dy, const void *w, igemm_run_info *info)
{
    if (!h)
        return IGEMM_ERR_INVALID_ARG;
    h->err[0] = 0;
    if (!dx || !dy || !w)
        return fail(h, IGEMM_ERR_INVALID_ARG, "%s must not be NULL", !dx ? "dx" : !dy ? "dy" : "w");
    log_call(h, "igemm_conv_bwd_data", p, solution);
    igemm_shape sh;
    const solver *s;
    const char *source;
    igemm_status st = resolve(h, p, solution, &sh, &s, &source);
    if (st != IGEMM_OK)
        return st;
    igemm_run_info ri;
    st = run(h, &sh, s, dx, dy, w, h->timing, &ri);
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
    igemm_status st = run(h, sh, s, dx, dy, w, !is_emu(h), &ri); /* HIP: warm-up; emulator: the measurement */
    out->launches = ri.launches;
    out->cost = !is_emu(h) ? INFINITY : ri.modeled_cycles ? (double)ri.modeled_cycles : (double)ri.cycles;
    for (int i = 0; st == IGEMM_OK && !is_emu(h) && i < FIND_HIP_TIMED_RUNS; i++) {
        st = run(h, sh, s, dx, dy, w, true, &ri);
        if (st == IGEMM_OK && ri.ms < out->cost)
            out->cost = ri.ms;
    }
    if (st == IGEMM_OK && !perfdb_cost_ok(out->cost))
        st = fail(h, IGEMM_ERR_BACKEND, "find: %s measured an invalid cost (%g %s): the timer failed", s->name,
                  out->cost, out->unit);
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
    heuristic_ctx hc = {h, &sh};
    bool naive_too = heuristic_naive_worth_timing(&sh, &h->dev_t, heuristic_ok, &hc);
    log_call(h, "igemm_find", p, NULL);
    int total = 0;
    for (int i = 0; h->progress && i < solver_count(); i++)
        total += handle_solver_ok(h, solver_get(i), &sh) && (solver_get(i)->kind != SOLVER_NAIVE || naive_too);
    for (int i = 0; i < solver_count(); i++) {
        const solver *s = solver_get(i);
        if (!handle_solver_ok(h, s, &sh) || (s->kind == SOLVER_NAIVE && !naive_too))
            continue;
        if (h->progress)
            h->progress(h->progress_ctx, s->name, n, total);
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
        if ((st = run(h, &sh, solver_find(perf[0].solution), dx, dy, w, false, &ri)) != IGEMM_OK) {
            free(perf);
            return st;
        }
    }
    perfdb_rec rec;
    memset(&rec, 0, sizeof rec);
    snprintf(rec.arch, sizeof rec.arch, "%s", h->t->name);
    perfdb_key(p, h->b->num_cu, rec.key, sizeof rec.key);
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
