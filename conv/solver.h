/* Solvers: kernel families that can compute a problem. Each knows when it
 * applies (with a reason when not) and how to turn a problem into launches
 * (kernel name, grid, block, packed arguments). */
#ifndef IGEMM_SOLVER_H
#define IGEMM_SOLVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "problem.h"
#include "../arch/target.h"
#include "types.h"

/* Largest tensor slice one launch addresses: buffer offsets are 32-bit and
 * invalid lanes use offset 0x80000000, so every tensor a launch touches
 * stays below 2 GiB; larger problems are split along the batch. */
#define LAUNCH_MAX_BYTES 0x7fff0000ull

/* The buffers a launch addresses: the user's tensors, and the plan's
 * workspace (ARG_WS: plan.ws_bytes, the runtime's, e.g. the fp32 partial
 * sums of a split along GEMM K). */
enum { ARG_DX, ARG_DY, ARG_W, ARG_WS, ARG_COUNT };

typedef struct {
    char kernel[128];
    unsigned grid, block;
    uint8_t args[1024];
    size_t args_size;
    int ptr_off[ARG_COUNT];      /* byte offset of the dx/dy/w/workspace pointer in args, -1 if absent */
    uint64_t ptr_add[ARG_COUNT]; /* bytes added to the base pointer */
    int part;              /* index of this GEMM launch (a group of phases) within its
                              batch chunk; -1 for launches that are not GEMMs */
    bool feeds;            /* a later launch reads what this one writes, and its cost depends on
                              the values (the _kyxc copy of w): a run for the model's cost alone
                              (find mode on the emulator) runs this launch whole */
} launch_desc;

typedef struct {
    int n, cap;
    launch_desc *l;
    uint64_t ws_bytes; /* the workspace the launches need (0: none) */
} launch_plan;

typedef struct solver solver;
struct solver {
    char name[96];         /* the configuration's name, as users and the perf DB see it */
    int kind;              /* SOLVER_NAIVE, SOLVER_V4R1 */
    igemm_direction dir;   /* the direction it computes (every solver so far: backward data) */
    igemm_layout layout;   /* of the tensors its kernels read and write */
    igemm_dtype dtype;
    igemm_math math;       /* the naive kernel counts as fma (vector ALU) */
    const void *cfg;       /* kind-specific configuration */
    /* 1 when the target's code object has this solver's kernels */
    int (*available)(const solver *s, const target *t);
    /* IGEMM_OK or IGEMM_ERR_NOT_APPLICABLE with a reason */
    igemm_status (*applicable)(const solver *s, const igemm_shape *sh, const target *t, char *why, size_t len);
    /* append the launches of a problem to plan; returns 0 or -1 (out of memory) */
    int (*plan)(const solver *s, const igemm_shape *sh, const target *t, launch_plan *plan);
};

enum { SOLVER_NAIVE, SOLVER_V4R1 };

/* Every solver, the naive reference first; at most SOLVER_MAX of them (a
 * larger configuration table stops with an internal error). */
#define SOLVER_MAX 256
int solver_count(void);
const solver *solver_get(int i);
const solver *solver_find(const char *name);

/* IGEMM_OK when some solver computes direction d; else IGEMM_ERR_UNSUPPORTED
 * with the reason ("fwd (-F 1) has no solver: igemm computes bwd-data (-F 2)
 * ..."). The selection asks it before it looks for a solver of a shape. */
igemm_status solver_direction_check(igemm_direction d, char *why, size_t len);

/* The v4r1 solvers (solver_v4r1.c): fills out[] and their configurations
 * cfgs[] (which must outlive the solvers); returns how many. */
#include "v4r1_config.h"
int v4r1_solvers(solver *out, v4r1_config *cfgs, int max);

/* Launch plans */
launch_desc *plan_add(launch_plan *p);
void plan_free(launch_plan *p);

/* Write the device addresses of the user's tensors and of the workspace
 * (base[ARG_DX..ARG_WS]; the workspace NULL where the plan needs none) into
 * a launch's arguments: base + ptr_add at ptr_off. */
void plan_bind(launch_desc *d, void *const base[ARG_COUNT]);

/* Images per launch so that each tensor's slice stays under LAUNCH_MAX_BYTES. */
int plan_batch_chunk(const igemm_shape *sh);

/* The limits every kernel shares (its buffer sizes and offsets are 32-bit):
 * one image of dx and of dy, and all of w, within LAUNCH_MAX_BYTES.
 * IGEMM_OK, or IGEMM_ERR_NOT_APPLICABLE with the reason (the same words
 * for every solver, so that a refusal by all of them is said once). */
igemm_status plan_check_tensors(const igemm_shape *sh, char *why, size_t len);

/* A band of dx pixels (arch/kargs.h, the naive kernel): the first `top`
 * and the last `bottom` rows, and of the rows between them the first `left`
 * and the last `right` columns. */
typedef struct {
    int top, bottom, left, right;
} plan_band;

/* Every pixel. */
void plan_band_all(const igemm_shape *sh, plan_band *b);
/* The pixels a v4r1 kernel computes with a masked dy tap (one that falls
 * outside dy), or a superset of them: where 0 x an infinite weight is NaN. */
void plan_band_border(const igemm_shape *sh, plan_band *b);
int64_t plan_band_pixels(const igemm_shape *sh, const plan_band *b);
/* Whether the border band has a pixel: a tap of some pixel falls outside dy
 * (padding, or the filter reaching past the image), so the non-finite
 * guard must check (arch/kargs.h PH_GUARD). */
bool plan_has_border(const igemm_shape *sh);

/* The non-finite guard's argument block (arch/kargs.h) of a launch of nb
 * images: the border band (plan_band_border), the tap geometry and dy's and
 * w's byte strides (the naive kernel's too: plan_naive takes them here). */
void plan_nonfinite_args(const igemm_shape *sh, int nb, igemm_nonfinite_args *a);
/* Its w strides and size: K, C/G, Y, X (kyxc false), or K, Y, X, C/G (NHWC's
 * filter, and the copy of an NCHW filter the _kyxc solvers read). */
void plan_nonfinite_w_strides(const igemm_shape *sh, bool kyxc, igemm_nonfinite_args *a);

/* The copy of w into K, Y, X, C/G order at workspace byte offset off
 * (igemm_w_kyxc_b32/_b16: the _kyxc solvers' first launch). */
int plan_w_kyxc(launch_plan *p, const igemm_shape *sh, uint64_t off);

/* A naive launch over band b of dx images [n0, n0+nb), any layout and data
 * type; with only_nan it computes only the elements that hold NaN (the
 * fixup after the v4r1 launches of those images). 0, or -1 (out of memory). */
int plan_naive(launch_plan *plan, const igemm_shape *sh, int n0, int nb, const plan_band *b, int only_nan);

/* Zero fill of dx images [n0, n0+nb) (used when some dx pixels get no
 * contribution from any phase GEMM). */
int plan_zero_fill(launch_plan *p, const igemm_shape *sh, int n0, int nb);
/* Zero fill of `dwords` fp32 words of the workspace at byte offset off. */
int plan_zero_fill_ws(launch_plan *p, uint64_t dwords, uint64_t off);
/* The reduction of a split along GEMM K: dx (elems elements of the problem's
 * type) = the sum of the workspace's `splits` fp32 slices, slice_bytes
 * apart, in split order (igemm_ksplit_sum_<type>). */
int plan_ksplit_sum(launch_plan *p, const igemm_shape *sh, uint64_t elems, int splits, uint64_t slice_bytes);

#endif
