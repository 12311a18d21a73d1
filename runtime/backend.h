/* Backends: where kernels run. One vtable per backend, chosen at handle
 * creation: the emulator (host buffers) or HIP (device buffers). */
#ifndef IGEMM_BACKEND_H
#define IGEMM_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../include/igemm.h"
#include "../arch/target.h"

typedef struct backend backend;
typedef struct bk_module bk_module;
typedef struct bk_kernel bk_kernel;

/* What one launch reports back (the emulator's statistics; HIP: zeros). */
typedef struct {
    double ms;            /* 0 (calls are timed with timer_start/timer_stop) */
    uint64_t cycles;      /* emulator: modeled issue cycles */
    uint64_t valu_cycles, fma_cycles, loop_valu_cycles, loop_fma_cycles;
    uint64_t insts;       /* emulator: wave instructions */
    uint64_t global_bytes, lds_bytes;
    /* emulator: the timing model (docs/TIMING.md); model_cycles 0 when not timed */
    uint64_t model_cycles, model_busy[4];
    double model_us;
    igemm_memory_view memory; /* emulator: the model's memory view (0 when not timed) */
} bk_stats;

/* What a backend is and does: one static const table per backend
 * (backend_emu.c, backend_hip.c). The handle asks it what it needs to know
 * (the unit find measures in, how a failed launch is reported, what bounds
 * a modeled run) instead of recognising the backend by name. */
typedef struct backend_ops {
    const char *name;    /* "emu" or "hip" */
    const char *cost_unit; /* what find's costs count: "cycles" (modeled) or "ms" (timed) */
    igemm_status launch_error; /* the status of a failed launch (the emulator's faults: EMU_FAULT) */
    /* find: timed runs after one warm-up run; 0: the warm-up run's cycles
       (modeled where the timing model ran) are the cost */
    int find_timed_runs;
    /* the target is the caller's igemm_options.arch (the emulator), not the
       device's: a command line that repeats a call names it (--arch) */
    int arch_from_options;
    void (*destroy)(backend *b);
    int (*load)(backend *b, const void *image, size_t size, bk_module **out);
    void (*unload)(backend *b, bk_module *m);
    bk_kernel *(*kernel)(backend *b, bk_module *m, const char *name);
    /* grid counts workgroups (x only; y = z = 1), block work-items. HIP:
       enqueued on the stream, returns without waiting. */
    int (*launch)(backend *b, bk_kernel *k, unsigned grid, unsigned block, const void *args, size_t size,
                  bk_stats *st);
    int (*alloc)(backend *b, void **p, size_t bytes);
    void (*free)(backend *b, void *p);
    int (*to_device)(backend *b, void *dst, const void *src, size_t bytes);
    int (*to_host)(backend *b, void *dst, const void *src, size_t bytes);
    /* Make user buffers visible to kernels for the duration of a call (the
       emulator registers host memory; HIP: no-op). */
    int (*map)(backend *b, const void *p, size_t bytes);
    void (*unmap)(backend *b, const void *p);
    /* HIP: the hipStream_t later launches go to (NULL: the null stream).
       Returns 0, or -1 with the reason in err (the emulator takes only NULL). */
    int (*set_stream)(backend *b, void *stream);
    /* Timing: timer_start marks the stream before a call's launches,
       timer_stop after them and waits for that mark: *ms is the time
       between (HIP: events on the stream; emulator: 0). */
    int (*timer_start)(backend *b);
    int (*timer_stop)(backend *b, double *ms);
    /* Wait for everything queued on the stream (emulator: nothing is). */
    int (*synchronize)(backend *b);
    /* What bounds a run of modeled time `cycles` with busy cycles busy[]
       (bk_stats.model_busy, summed over its launches): "compute", "LDS",
       ...; NULL where the backend has no model. */
    const char *(*model_limit)(uint64_t cycles, const uint64_t busy[4]);
    /* Find mode's measurements (find_timed_runs 0): on, later launches run
       only what their modeled cost needs (the emulator: the workgroups its
       timing model traces), the cost a whole run's, the outputs not all
       written; returns whether they will (false: no model, every run is
       whole); off, whole runs again. NULL: every run is whole. */
    bool (*cost_only)(backend *b, bool on);
} backend_ops;

/* The table entries of the functions both backend files define under the
 * same names (each backend_*.c declares them static). */
#define BACKEND_OPS_FUNCTIONS                                                                                        \
    .destroy = destroy, .load = load, .unload = unload, .kernel = kernel, .launch = launch, .alloc = alloc,          \
    .free = bfree, .map = map, .unmap = unmap, .set_stream = set_stream, .timer_start = timer_start,                 \
    .timer_stop = timer_stop, .synchronize = synchronize

/* One backend instance: its table and what it found at creation. */
struct backend {
    const backend_ops *ops;
    const target *t;     /* the target kernels run on */
    int num_cu;          /* the device's compute units (HIP: multiProcessorCount; emulator: t->num_cu) */
    char target_id[64];  /* the device's target ID: "gfx90a:sramecc+:xnack-" (emulator: t->name) */
    char err[1024];
};

/* Create a backend (threads, max_wave_insts, timing: emu_options). Return
 * NULL with a reason in why. */
backend *backend_emu_create(const target *t, int threads, uint64_t max_wave_insts, bool timing, char *why, size_t len);

/* The HIP backend on device `device`. `available` lists the targets the
 * caller has code objects for ("gfx906, gfx908"); a device of another target
 * is refused with IGEMM_ERR_NO_CODE_OBJECT and that list. On failure *st is
 * IGEMM_ERR_NO_DEVICE (no HIP runtime, no GPU: the reason spells out the HIP
 * error and what to check), IGEMM_ERR_NO_CODE_OBJECT, IGEMM_ERR_BACKEND or
 * IGEMM_ERR_NO_MEMORY. The library is libamdhip64.so, or the file named by
 * the environment variable IGEMM_HIP_LIBRARY. */
backend *backend_hip_create(int device, const char *available, char *why, size_t len, igemm_status *st);

/* The target a device's gcnArchName ("gfx90a:sramecc+:xnack-") runs: IGEMM_OK
 * with the bare name ("gfx90a") in arch, or IGEMM_ERR_NO_CODE_OBJECT with a
 * reason naming the device's target and the `available` ones (used by
 * backend_hip_create; separate so that it can be tested without a GPU). */
igemm_status backend_hip_match_arch(const char *gcn_arch_name, const char *available, char *arch, size_t alen,
                                    char *why, size_t len);

/* What a HIP error code means and what to check, in words (never NULL). */
const char *backend_hip_error_meaning(int code);

#endif
