/* The handle's state and what the handle's files share (runtime/handle*.c:
 * handle.c creation and accessors, handle_memory.c buffers and copies,
 * handle_select.c solutions and selection, handle_run.c launches,
 * handle_find.c find mode, handle_perfdb.c the performance database). */
#ifndef IGEMM_HANDLE_INT_H
#define IGEMM_HANDLE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "allocs.h"
#include "backend.h"
#include "codeobj.h"
#include "kalloc.h"
#include "../emu/emu.h"
#include "perfdb.h"
#include "../conv/select.h"
#include "../conv/solver.h"
#include "../conv/types.h"

#define MAX_CACHED_KERNELS 256

struct igemm_handle {
    backend *b;
    bk_module *mod;
    const target *t;
    codeobj_file co_file;  /* code object read from codeobj_dir (a file, or a bundle's entry) */
    emu_module *co_info;   /* its kernels' descriptors (emu_load_info, NULL when unreadable): the
                              registers and LDS the heuristic's occupancy counts */
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
    int disabled_ksplit;    /* IGEMM_DISABLE_KSPLIT=1: the splits along GEMM K left out of it */
    /* the workspace of plans that need one (a split along GEMM K: fp32
       partial sums), allocated through the backend when a plan first needs
       more than ws_bytes, kept for later calls, freed by igemm_destroy */
    void *ws;
    size_t ws_bytes;
    bool cost_only;        /* find mode's run for the model's cost alone (backend_ops.cost_only on) */
};

/* handle_run.c: h->ws with at least bytes (grown through the backend);
 * IGEMM_OK, or IGEMM_ERR_NO_MEMORY with the message in h->err. */
igemm_status handle_workspace(igemm_handle *h, size_t bytes);

/* IGEMM_ENABLE_LOGGING_CMD: the call's problem as an igemm command line
 * on stderr (nothing when the variable is unset or 0). */
void handle_log_call(const igemm_handle *h, const char *call, const igemm_problem *p, const char *solution);

/* h->err = the message; returns st. */
igemm_status handle_fail(igemm_handle *h, igemm_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* handle_memory.c: a buffer of `bytes` at p must fit the igemm_alloc
 * allocation p lies in (IGEMM_OK when p is in none). */
igemm_status handle_fits_alloc(igemm_handle *h, const char *what, const void *p, size_t bytes);

/* handle_select.c */
/* Why no configuration applies to sh on h, in one line, into buf. */
void handle_refusal(igemm_handle *h, const igemm_shape *sh, char *buf, size_t len);
/* A candidate of the automatic selection (heuristic, perf DB, find). */
int handle_solver_ok(igemm_handle *h, const solver *s, const igemm_shape *sh);
typedef struct {
    igemm_handle *h;
    const igemm_shape *sh;
} handle_heuristic_ctx;
/* The heuristic's view of h's solvers for the problem of ctx (a
 * handle_heuristic_ctx): handle_solver_ok, and the kernels' allocations
 * from h's code object. */
heuristic_view handle_heuristic_view(handle_heuristic_ctx *ctx);

/* Validate p and find the configuration to run: `solution` when given
 * (source "user"), else the perf DB's, else the heuristic's. On failure the
 * message is in h->err. */
typedef struct {
    igemm_shape sh;     /* the problem, checked */
    const solver *s;    /* the configuration to run */
    const char *source; /* who chose it: "user", "perfdb" or "heuristic" */
} handle_choice;
igemm_status handle_resolve(igemm_handle *h, const igemm_problem *p, const char *solution, handle_choice *c);

/* handle_run.c: run solver s on (dx, dy, w); fills ri. HIP: the launches
 * are queued on the stream; timed, the call waits for them and ri->ms is
 * their time. */
igemm_status handle_run(igemm_handle *h, const igemm_shape *sh, const solver *s, void *dx, const void *dy,
                        const void *w, bool timed, igemm_run_info *ri);

/* handle_perfdb.c */
/* The performance database's configuration for sh on h, when it names an
 * applicable one. */
const solver *handle_perfdb_solver(igemm_handle *h, const igemm_shape *sh);
igemm_status handle_perfdb_remember(igemm_handle *h, const igemm_problem *p, const igemm_perf *best, bool store,
                                    char *why, size_t len);

#endif
