/* The HIP test double's internals: devices from the environment, streams
 * with worker threads, events on a modeled device clock, allocations and
 * modules on emulator devices. */
#ifndef IGEMM_HIPEMU_INT_H
#define IGEMM_HIPEMU_INT_H

#define __HIP_PLATFORM_AMD__ 1
#include <hip/hip_runtime_api.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "../emu/emu.h"
#include "hooks.h"

#define HX_MAX_DEVICES 8
#define HX_MAX_STREAMS 64

/* One device of IGEMM_HIPEMU_ARCH. */
typedef struct {
    char gcn[64];        /* gcnArchName: "gfx90a:sramecc+:xnack-" */
    const target *t;     /* its bare target (NULL: one the emulator does not run) */
    int cus;             /* multiProcessorCount */
} hx_device;

/* The devices the environment describes now; 0 when IGEMM_HIPEMU_ARCH is
 * empty. An entry the emulator does not run still counts (its modules fail
 * to load with hipErrorNoBinaryForGpu). */
int hx_devices(hx_device *out, int max);

/* The calling thread's current device (hipSetDevice). */
int hx_current_device(void);

/* Fault injection at the start of every API function: returns the error to
 * return for this call, or hipSuccess. */
hipError_t hx_injected(const char *api);

/* Return the injected error, if any, from the API function this is in. */
#define INJECT()                                                                                                     \
    do {                                                                                                             \
        hipError_t inj_e = hx_injected(__func__);                                                                    \
        if (inj_e != hipSuccess)                                                                                     \
            return inj_e;                                                                                            \
    } while (0)

typedef enum { OP_LAUNCH, OP_COPY, OP_RECORD, OP_WAIT_EVENT } hx_op_kind;

struct ihipModule_t {
    emu_device *dev;
    emu_module *m;
    int device;
    struct ihipModule_t *next;
};

struct ihipModuleSymbol_t {
    struct ihipModule_t *mod;
    const emu_kernel *k;
};

struct ihipEvent_t {
    uint64_t gen_recorded, gen_done; /* done when equal */
    double t_ms;                     /* the modeled device clock when it completed */
};

typedef struct hx_op hx_op;
struct hx_op {
    hx_op_kind kind;
    hx_op *next;
    uint64_t seq;
    int ndeps;                       /* wait until dep[i]->done >= dep_seq[i] (legacy null stream) */
    struct ihipStream_t *dep[HX_MAX_STREAMS];
    uint64_t dep_seq[HX_MAX_STREAMS];
    struct ihipModuleSymbol_t *f;    /* OP_LAUNCH */
    unsigned grid[3], block[3];
    unsigned char *args;
    size_t args_size;
    void *dst;                       /* OP_COPY */
    const void *src;
    size_t bytes;
    struct ihipEvent_t *ev;          /* OP_RECORD, OP_WAIT_EVENT */
    uint64_t gen;
};

struct ihipStream_t {
    unsigned flags;                  /* hipStreamNonBlocking or 0 */
    pthread_t thr;
    int started, stop;
    hx_op *head, *tail;
    uint64_t enq, done;              /* ops enqueued / completed */
};

/* The global state; one lock guards everything but kernel execution. */
typedef struct {
    pthread_mutex_t lk;
    pthread_cond_t cv;               /* broadcast on every completion and enqueue */
    struct ihipStream_t null_stream;
    struct ihipStream_t *streams[HX_MAX_STREAMS]; /* live created streams */
    struct ihipModule_t *modules;
    struct hx_alloc { void *p; size_t n; struct hx_alloc *next; } *allocs;
    double clock_ms;                 /* modeled device time: sum of kernel makespans */
    unsigned delay_us;
    hipError_t fault;                /* sticky kernel fault */
    char fault_msg[1024];
    hipemu_counters cnt;
} hx_state;

extern hx_state hx;

/* Resolve NULL to the null stream; NULL when s is not a live stream. */
struct ihipStream_t *hx_stream(hipStream_t s);

/* Enqueue an op (malloc'd; the queue frees it) on stream s; starts the
 * stream's worker on first use. Returns the op's sequence number, 0 when out
 * of memory. Called with hx.lk held. */
uint64_t hx_enqueue(struct ihipStream_t *s, hx_op *op);

/* Wait until stream s has completed op seq. Called with hx.lk held. */
void hx_wait(struct ihipStream_t *s, uint64_t seq);

/* Wait until every stream is idle. Called with hx.lk held. */
void hx_wait_all(void);

/* Is p .. p+n inside one allocation? Called with hx.lk held. */
int hx_is_device(const void *p, size_t n);

/* Execute a launch (on a worker, without hx.lk): the emulator run. */
void hx_run_kernel(hx_op *op);

#endif
