/* The emulator backend: kernels run on the project's emulator; buffers are
 * host memory, registered with the emulator while a call uses them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../emu/emu.h"
#include "backend.h"
#include "../conv/util.h"

typedef struct {
    backend b;
    emu_device *dev;
    char *timeline; /* IGEMM_EMU_TIMELINE's path (the device keeps a pointer to it) */
} emu_backend;

struct bk_module {
    emu_module *m;
};

static emu_backend *E(backend *b) { return (emu_backend *)b; }

static void destroy(backend *b)
{
    emu_destroy(E(b)->dev);
    free(E(b)->timeline);
    free(b);
}

static int load(backend *b, const void *image, size_t size, bk_module **out)
{
    bk_module *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(b->err, sizeof b->err, "out of memory");
        return -1;
    }
    if (emu_load(E(b)->dev, image, size, &m->m, b->err, sizeof b->err)) {
        free(m);
        return -1;
    }
    *out = m;
    return 0;
}

static void unload(backend *b, bk_module *m)
{
    (void)b;
    if (m)
        emu_module_free(m->m);
    free(m);
}

static bk_kernel *kernel(backend *b, bk_module *m, const char *name)
{
    const emu_kernel *k = emu_find_kernel(m->m, name);
    if (!k)
        snprintf(b->err, sizeof b->err, "kernel %s not found in the %s code object", name, b->t->name);
    return (bk_kernel *)k;
}

static int launch(backend *b, bk_kernel *k, unsigned grid, unsigned block, const void *args, size_t size, bk_stats *st)
{
    emu_stats s = {0};
    unsigned g[3] = {grid, 1, 1}, bl[3] = {block, 1, 1};
    int rc = emu_launch(E(b)->dev, (const emu_kernel *)k, g, bl, args, size, &s, b->err, sizeof b->err);
    if (st) {
        memset(st, 0, sizeof *st);
        st->cycles = emu_stats_cycles(&s);
        st->valu_cycles = s.cycles[EC_VALU] + s.cycles[EC_VALU_FMA] + s.cycles[EC_VALU_TRANS] + s.cycles[EC_VALU_64];
        st->fma_cycles = s.cycles[EC_VALU_FMA];
        st->loop_valu_cycles = s.loop_valu_cycles;
        st->loop_fma_cycles = s.loop_fma_cycles;
        for (int i = 0; i < EC_COUNT; i++)
            st->insts += s.insts[i];
        st->global_bytes = s.global_read + s.global_written;
        st->lds_bytes = s.lds_read + s.lds_written;
        if (s.model_launches && !s.model_failed) {
            st->model_cycles = s.model_cycles;
            memcpy(st->model_busy, s.model_busy, sizeof st->model_busy);
            st->model_us = (double)s.model_cycles / (emu_clock_ghz(E(b)->dev) * 1e3);
            st->memory = (igemm_memory_view){
                .line_loaded = s.model_line_loaded,
                .useful_loaded = s.model_useful_loaded,
                .line_stored = s.model_line_stored,
                .useful_stored = s.model_useful_stored,
                .l1_lookups = s.model_l1_lookups,
                .l1_hits = s.model_l1_hits,
                .l2_reads = s.model_l2_reads,
                .l2_hits = s.model_l2_hits,
                .hbm_bytes = s.model_hbm_bytes,
                .lds_cycles = s.model_lds_cycles,
                .lds_ideal = s.model_lds_ideal,
            };
        }
    }
    return rc;
}

/* Every buffer between unregistered guard zones (emu_buffer_alloc): an
 * overrun faults instead of landing in the next buffer. */
static int alloc(backend *b, void **p, size_t bytes)
{
    *p = emu_buffer_alloc(bytes);
    if (!*p) {
        snprintf(b->err, sizeof b->err, "out of memory allocating %zu bytes", bytes);
        return -1;
    }
    return 0;
}

static void bfree(backend *b, void *p)
{
    (void)b;
    emu_buffer_free(p);
}

static int copy(backend *b, void *dst, const void *src, size_t bytes)
{
    (void)b;
    memmove(dst, src, bytes);
    return 0;
}

static int map(backend *b, const void *p, size_t bytes)
{
    if (emu_register(E(b)->dev, p, bytes)) {
        snprintf(b->err, sizeof b->err, "cannot register %zu bytes with the emulator", bytes);
        return -1;
    }
    return 0;
}

static void unmap(backend *b, const void *p) { emu_unregister(E(b)->dev, p); }

static int set_stream(backend *b, void *stream)
{
    if (stream) {
        snprintf(b->err, sizeof b->err, "the emulator backend has no streams (pass NULL)");
        return -1;
    }
    return 0;
}

static int timer_start(backend *b)
{
    (void)b;
    return 0;
}

static int timer_stop(backend *b, double *ms)
{
    (void)b;
    *ms = 0;
    return 0;
}

/* Launches and copies have finished when they return. */
static int synchronize(backend *b)
{
    (void)b;
    return 0;
}

/* The limit of a run's modeled time (docs/TIMING.md "Limits"). */
static const char *model_limit(uint64_t cycles, const uint64_t busy[4])
{
    return emu_limit_names[emu_model_limit(cycles, busy)];
}

static bool cost_only(backend *b, bool on) { return emu_set_timing_only(E(b)->dev, on); }

static const backend_ops emu_ops = {
    .name = "emu",
    .cost_unit = "cycles",
    .launch_error = IGEMM_ERR_EMU_FAULT,
    .find_timed_runs = 0,
    .arch_from_options = 1,
    BACKEND_OPS_FUNCTIONS,
    .to_device = copy, /* host memory both ways */
    .to_host = copy,
    .model_limit = model_limit,
    .cost_only = cost_only,
};

backend *backend_emu_create(const target *t, int threads, uint64_t max_wave_insts, bool timing, char *why, size_t len)
{
    emu_backend *e = calloc(1, sizeof *e);
    /* find and -t use the modeled time */
    emu_options o = {.threads = threads, .max_wave_insts = max_wave_insts, .timing = timing};
    const char *tl = timing ? getenv(IGEMM_ENV_EMU_TIMELINE) : NULL; /* the model writes it */
    bool ok = e && (!tl || !*tl || (o.timeline = e->timeline = strdup(tl)));
    if (!ok || !(e->dev = emu_create(t, &o))) {
        why_printf(why, len, "cannot create the %s emulator (out of memory or threads)", t ? t->name : "(null)");
        if (e)
            free(e->timeline);
        free(e);
        return NULL;
    }
    backend *b = &e->b;
    b->ops = &emu_ops;
    b->t = t;
    b->num_cu = t->num_cu;
    snprintf(b->target_id, sizeof b->target_id, "%s", t->name);
    return b;
}
