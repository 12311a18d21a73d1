/* Handles: creation (backend choice, code object loading, the perf DB
 * file, IGEMM_DISABLE_MATH), destruction, accessors, streams. The rest of
 * the handle's API is in handle_memory.c, handle_select.c, handle_run.c,
 * handle_find.c and handle_perfdb.c (handle_int.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "handle_int.h"

/* IGEMM_DISABLE_MATH: math strategies ("fma", "mfma", comma-separated) the
 * automatic selection leaves out, as MIOpen's MIOPEN_DEBUG_CONV_* variables
 * turn solver families off; an unknown name is refused. */
static int disabled_math(unsigned *mask, char *why, size_t len)
{
    const char *v = getenv("IGEMM_DISABLE_MATH");
    *mask = 0;
    const char *p;
    size_t n;
    while (list_next(&v, &p, &n)) {
        int found = 0;
        for (int m = 0; m < IGEMM_MATH_COUNT; m++)
            if (list_has(igemm_math_get((igemm_math)m)->name, p, n))
                *mask |= 1u << m, found = 1;
        if (!found && n) {
            why_printf(why, len, "IGEMM_DISABLE_MATH: '%.*s' is not a math strategy (fma, mfma)", (int)(n > 32 ? 32 : n),
                       p);
            return -1;
        }
    }
    return 0;
}

/* IGEMM_DISABLE_KSPLIT=1: the automatic selection leaves out the solvers
 * that split GEMM K (names ending _ks2, _ks4, _ks8); unset or 0: they
 * compete. Another value is refused. */
static int disabled_ksplit(int *off, char *why, size_t len)
{
    const char *v = getenv("IGEMM_DISABLE_KSPLIT");
    *off = v && !strcmp(v, "1");
    if (v && *v && strcmp(v, "0") && strcmp(v, "1")) {
        why_printf(why, len, "IGEMM_DISABLE_KSPLIT: '%.32s' is neither 0 nor 1", v);
        return -1;
    }
    return 0;
}

_Static_assert(sizeof(((igemm_launch *)0)->args) >= sizeof(((launch_desc *)0)->args),
               "igemm_launch.args must hold a launch_desc's arguments");
_Static_assert(sizeof(((igemm_launch *)0)->kernel) >= sizeof(((launch_desc *)0)->kernel),
               "igemm_launch.kernel must hold a launch_desc's kernel name");

igemm_status handle_fail(igemm_handle *h, igemm_status st, const char *fmt, ...)
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
    int no_ksplit;
    if (disabled_math(&no_math, why, why_len) || disabled_ksplit(&no_ksplit, why, why_len))
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
        /* more emulator threads than CPUs: they run (time-shared), and the
           handle says so rather than quietly using fewer */
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        if (ncpu > 0 && o.emu_threads > ncpu)
            snprintf(h->warning, sizeof h->warning, "emu_threads %d is more than the %ld online CPUs: %d threads share them",
                     o.emu_threads, ncpu, o.emu_threads);
    }
    h->t = h->b->t;
    h->dev_t = *h->t;
    h->dev_t.num_cu = h->b->num_cu;
    h->timing = o.timing;
    h->disabled_math = no_math;
    h->disabled_ksplit = no_ksplit;
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
    if (h->b->ops->load(h->b, image, size, &h->mod)) {
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
    /* the kernels' allocations for the heuristic (a backend that loads what
       the emulator's checks refuse still runs: the heuristic then counts
       the configurations' own register estimates, and says so) */
    char info_err[256];
    if (emu_load_info(image, size, &h->co_info, info_err, sizeof info_err) && !h->warning[0])
        snprintf(h->warning, sizeof h->warning,
                 "the %s code object's kernel descriptors are unreadable (%s): the heuristic counts its own register "
                 "estimates",
                 h->t->name, info_err);
    *out = h;
    return IGEMM_OK;
}

void igemm_destroy(igemm_handle *h)
{
    if (!h)
        return;
    if (h->b) {
        if (h->ws)
            h->b->ops->free(h->b, h->ws);
        if (h->mod)
            h->b->ops->unload(h->b, h->mod);
        h->b->ops->destroy(h->b);
    }
    codeobj_file_free(&h->co_file);
    emu_module_free(h->co_info);
    free(h->perfdb);
    perfdb_free(&h->db);
    allocs_free(&h->allocs);
    free(h);
}

const char *igemm_last_error(const igemm_handle *h) { return h ? h->err : "handle is NULL"; }
const char *igemm_handle_arch(const igemm_handle *h) { return h ? h->t->name : NULL; }
const char *igemm_handle_backend(const igemm_handle *h) { return h ? h->b->ops->name : NULL; }
const char *igemm_handle_fallback(const igemm_handle *h) { return h ? h->fallback : NULL; }
const char *igemm_handle_warning(const igemm_handle *h) { return h ? h->warning : NULL; }
const char *igemm_handle_target_id(const igemm_handle *h) { return h ? h->b->target_id : NULL; }
int igemm_handle_cu_count(const igemm_handle *h) { return h ? h->b->num_cu : 0; }

igemm_status igemm_synchronize(igemm_handle *h)
{
    if (!h)
        return IGEMM_ERR_INVALID_ARG;
    h->err[0] = 0;
    if (h->b->ops->synchronize(h->b))
        return handle_fail(h, IGEMM_ERR_BACKEND, "%s", h->b->err);
    return IGEMM_OK;
}

igemm_status igemm_set_stream(igemm_handle *h, void *stream)
{
    if (!h)
        return IGEMM_ERR_INVALID_ARG;
    h->err[0] = 0;
    if (h->b->ops->set_stream(h->b, stream))
        return handle_fail(h, IGEMM_ERR_UNSUPPORTED, "%s", h->b->err);
    return IGEMM_OK;
}

void handle_log_call(const igemm_handle *h, const char *call, const igemm_problem *p, const char *solution)
{
    if (!h->log_cmd || !p)
        return;
    char args[512];
    igemm_problem_format(p, args, sizeof args);
    const int arch = h->b->ops->arch_from_options;
    fprintf(stderr, "igemm(%s): Command [%s] igemm %s %s -F 2%s%s%s%s\n", h->b->ops->name, call,
            igemm_problem_command(p), args, arch ? " --arch " : "", arch ? h->t->name : "",
            solution ? " --solution " : "", solution ? solution : "");
}
