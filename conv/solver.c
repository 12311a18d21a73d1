/* The solver registry, launch plans, the naive solver and the zero fill. */
#include "solver.h"

#include <pthread.h>
#include <stdbool.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../arch/kargs.h"
#include "types.h"
#include "v4r1_config.h"

/* ---- plans ---- */

launch_desc *plan_add(launch_plan *p)
{
    if (p->n == p->cap) {
        int cap = p->cap ? 2 * p->cap : 8;
        launch_desc *l = realloc(p->l, sizeof *l * (size_t)cap);
        if (!l)
            return NULL;
        p->l = l;
        p->cap = cap;
    }
    launch_desc *d = &p->l[p->n++];
    memset(d, 0, sizeof *d);
    for (int a = 0; a < ARG_COUNT; a++)
        d->ptr_off[a] = -1;
    d->part = -1;
    return d;
}

void plan_bind(launch_desc *d, void *const base[ARG_COUNT])
{
    for (int a = 0; a < ARG_COUNT; a++)
        if (d->ptr_off[a] >= 0) {
            uint64_t ptr = (uint64_t)(uintptr_t)base[a] + d->ptr_add[a];
            memcpy(d->args + d->ptr_off[a], &ptr, 8);
        }
}

void plan_free(launch_plan *p)
{
    free(p->l);
    memset(p, 0, sizeof *p);
}

int plan_batch_chunk(const igemm_shape *sh)
{
    uint64_t per_image = (uint64_t)(sh->dx_image > sh->dy_image ? sh->dx_image : sh->dy_image) *
                         (uint64_t)igemm_dtype_get(sh->p.dtype)->bytes;
    uint64_t n = LAUNCH_MAX_BYTES / per_image;
    if (n < 1)
        return 0; /* one image is already too large */
    return n < (uint64_t)sh->p.n ? (int)n : sh->p.n;
}

igemm_status plan_check_tensors(const igemm_shape *sh, char *why, size_t len)
{
    uint64_t esz = (uint64_t)igemm_dtype_get(sh->p.dtype)->bytes;
    struct {
        const char *what;
        uint64_t bytes;
    } t[] = {
        {"one image of dx", (uint64_t)sh->dx_image * esz},
        {"one image of dy", (uint64_t)sh->dy_image * esz},
        {"w", (uint64_t)sh->w_elems * esz},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (t[i].bytes > LAUNCH_MAX_BYTES) {
            why_printf(why, len, "%s is %llu bytes, more than the %llu one launch can address (32-bit offsets)",
                       t[i].what, (unsigned long long)t[i].bytes, (unsigned long long)LAUNCH_MAX_BYTES);
            return IGEMM_ERR_NOT_APPLICABLE;
        }
    return IGEMM_OK;
}

int plan_zero_fill(launch_plan *p, const igemm_shape *sh, int n0, int nb)
{
    launch_desc *d = plan_add(p);
    if (!d)
        return -1;
    uint64_t image = (uint64_t)sh->dx_image, esz = (uint64_t)igemm_dtype_get(sh->p.dtype)->bytes;
    unsigned q = 16u / (unsigned)esz; /* elements a work-item zeroes */
    igemm_fill_args a = {.dwords = (uint32_t)(image * (uint64_t)nb)};
    snprintf(d->kernel, sizeof d->kernel, "%s", esz == 4 ? KERNEL_FILL : KERNEL_FILL16);
    d->block = FILL_BLOCK;
    d->grid = (unsigned)((a.dwords + q * FILL_BLOCK - 1) / (q * FILL_BLOCK));
    memcpy(d->args, &a, sizeof a);
    d->args_size = sizeof a;
    d->ptr_off[ARG_DX] = (int)offsetof(igemm_fill_args, p_out);
    d->ptr_add[ARG_DX] = image * (uint64_t)n0 * esz;
    return 0;
}

int plan_zero_fill_ws(launch_plan *p, uint64_t dwords, uint64_t off)
{
    launch_desc *d = plan_add(p);
    if (!d)
        return -1;
    igemm_fill_args a = {.dwords = (uint32_t)dwords};
    snprintf(d->kernel, sizeof d->kernel, "%s", KERNEL_FILL);
    d->block = FILL_BLOCK;
    d->grid = (unsigned)((dwords + 4 * FILL_BLOCK - 1) / (4 * FILL_BLOCK));
    memcpy(d->args, &a, sizeof a);
    d->args_size = sizeof a;
    d->ptr_off[ARG_WS] = (int)offsetof(igemm_fill_args, p_out);
    d->ptr_add[ARG_WS] = off;
    return 0;
}

int plan_ksplit_sum(launch_plan *p, const igemm_shape *sh, uint64_t elems, int splits, uint64_t slice_bytes)
{
    launch_desc *d = plan_add(p);
    if (!d)
        return -1;
    igemm_ksum_args a = {.elems = (uint32_t)elems, .splits = (uint32_t)splits, .slice_bytes = (uint32_t)slice_bytes};
    const igemm_problem *pr = &sh->p;
    /* the non-finite guard: an element index's decode, innermost first,
       and the recompute's block (every image: one launch) */
    a.nhwc = pr->layout == IGEMM_LAYOUT_NHWC;
    a.d0 = (uint32_t)(a.nhwc ? pr->c : pr->wi);
    a.d1 = (uint32_t)(a.nhwc ? pr->wi : pr->hi);
    a.d2 = (uint32_t)(a.nhwc ? pr->hi : pr->c);
    a.cg = (uint32_t)sh->cg;
    igemm_magic m;
    m = igemm_magic_for(a.d0), a.mdiv_d0 = m.magic, a.shift_d0 = m.shift;
    m = igemm_magic_for(a.d1), a.mdiv_d1 = m.magic, a.shift_d1 = m.shift;
    m = igemm_magic_for(a.d2), a.mdiv_d2 = m.magic, a.shift_d2 = m.shift;
    m = igemm_magic_for(a.cg), a.mdiv_cg = m.magic, a.shift_cg = m.shift;
    plan_nonfinite_args(sh, pr->n, &a.nf);
    igemm_dtype dt = sh->p.dtype;
    snprintf(d->kernel, sizeof d->kernel, "%s",
             dt == IGEMM_FP16 ? KERNEL_KSUM_FP16 : dt == IGEMM_BF16 ? KERNEL_KSUM_BF16 : KERNEL_KSUM);
    d->block = KSUM_BLOCK;
    d->grid = (unsigned)((elems + KSUM_BLOCK - 1) / KSUM_BLOCK);
    memcpy(d->args, &a, sizeof a);
    d->args_size = sizeof a;
    d->ptr_off[ARG_DX] = (int)offsetof(igemm_ksum_args, p_out);
    d->ptr_off[ARG_WS] = (int)offsetof(igemm_ksum_args, p_ws);
    d->ptr_off[ARG_DY] = (int)offsetof(igemm_ksum_args, p_dy);
    d->ptr_off[ARG_W] = (int)offsetof(igemm_ksum_args, p_w);
    return 0;
}

int plan_w_kyxc(launch_plan *p, const igemm_shape *sh, uint64_t off)
{
    launch_desc *d = plan_add(p);
    if (!d)
        return -1;
    const igemm_problem *pr = &sh->p;
    igemm_w_kyxc_args a = {.elems = (uint32_t)sh->w_elems, .cg = (uint32_t)sh->cg, .yx = (uint32_t)(pr->y * pr->x)};
    igemm_magic m;
    m = igemm_magic_for(a.cg), a.mdiv_cg = m.magic, a.shift_cg = m.shift;
    m = igemm_magic_for(a.yx), a.mdiv_yx = m.magic, a.shift_yx = m.shift;
    snprintf(d->kernel, sizeof d->kernel, "%s", igemm_dtype_get(pr->dtype)->bytes == 4 ? KERNEL_W_KYXC : KERNEL_W_KYXC16);
    d->block = W_KYXC_BLOCK;
    d->grid = (unsigned)((sh->w_elems + W_KYXC_BLOCK - 1) / W_KYXC_BLOCK);
    memcpy(d->args, &a, sizeof a);
    d->args_size = sizeof a;
    d->ptr_off[ARG_WS] = (int)offsetof(igemm_w_kyxc_args, p_out);
    d->ptr_add[ARG_WS] = off;
    d->ptr_off[ARG_W] = (int)offsetof(igemm_w_kyxc_args, p_in);
    d->feeds = true; /* the GEMM reads the copy: garbage there would be NaN for its guard */
    return 0;
}

/* ---- the naive solver ---- */

static int naive_available(const solver *s, const target *t)
{
    (void)s;
    (void)t;
    return 1;
}

/* The naive kernel addresses dx and dy per launch (batch chunks) and all of
 * w with 32-bit buffer sizes and offsets; the element index of a launch and
 * every other product it forms stay below them. */
static igemm_status naive_applicable(const solver *s, const igemm_shape *sh, const target *t, char *why, size_t len)
{
    (void)t;
    if (sh->p.layout != IGEMM_LAYOUT_NCHW || sh->p.dtype != s->dtype) {
        why_printf(why, len, "written for nchw %s tensors (the naive kernel), not %s %s",
                   igemm_dtype_get(s->dtype)->name, igemm_layout_get(sh->p.layout)->name,
                   igemm_dtype_get(sh->p.dtype)->name);
        return IGEMM_ERR_NOT_APPLICABLE;
    }
    return plan_check_tensors(sh, why, len);
}

void plan_band_all(const igemm_shape *sh, plan_band *b)
{
    *b = (plan_band){.top = sh->p.hi, .left = 0, .right = 0, .bottom = 0};
}

/* Clamp v to [0, n]. */
static int clamp_to(int64_t v, int n) { return v < 0 ? 0 : v > n ? n : (int)v; }

void plan_band_border(const igemm_shape *sh, plan_band *b)
{
    const igemm_problem *p = &sh->p;
    /* a tap y of pixel hi reads dy row (hi + Ph - y*Dh) / Sh: before row 0
       only when hi < (Y-1)*Dh - Ph, past row Ho-1 only when hi + Ph >= Ho*Sh
       (y = 0 reads the lowest row); the same along w */
    b->top = clamp_to((int64_t)(p->y - 1) * p->dil_h - p->pad_h, p->hi);
    b->bottom = clamp_to((int64_t)p->hi - ((int64_t)sh->ho * p->stride_h - p->pad_h), p->hi);
    b->left = clamp_to((int64_t)(p->x - 1) * p->dil_w - p->pad_w, p->wi);
    b->right = clamp_to((int64_t)p->wi - ((int64_t)sh->wo * p->stride_w - p->pad_w), p->wi);
    if (b->top + b->bottom >= p->hi)
        b->top = p->hi, b->bottom = 0;
    if (b->left + b->right >= p->wi)
        b->left = p->wi, b->right = 0;
}

int64_t plan_band_pixels(const igemm_shape *sh, const plan_band *b)
{
    int rows = b->top + b->bottom;
    return (int64_t)rows * sh->p.wi + (int64_t)(sh->p.hi - rows) * (b->left + b->right);
}

bool plan_has_border(const igemm_shape *sh)
{
    plan_band b;
    plan_band_border(sh, &b);
    return plan_band_pixels(sh, &b) > 0;
}

void plan_nonfinite_args(const igemm_shape *sh, int nb, igemm_nonfinite_args *a)
{
    const igemm_problem *p = &sh->p;
    const uint32_t esz = (uint32_t)igemm_dtype_get(p->dtype)->bytes;
    const bool nhwc = p->layout == IGEMM_LAYOUT_NHWC;
    plan_band b;
    plan_band_border(sh, &b);
    memset(a, 0, sizeof *a);
    a->top = (uint32_t)b.top;
    a->bot = (uint32_t)(p->hi - b.bottom);
    a->left = (uint32_t)b.left;
    a->rgt = (uint32_t)(p->wi - b.right);
    a->pad_h = (uint32_t)p->pad_h;
    a->pad_w = (uint32_t)p->pad_w;
    a->dil_h = (uint32_t)p->dil_h;
    a->dil_w = (uint32_t)p->dil_w;
    a->stride_h = (uint32_t)p->stride_h;
    a->stride_w = (uint32_t)p->stride_w;
    igemm_magic m;
    m = igemm_magic_for(a->stride_h), a->mdiv_sh = m.magic, a->shift_sh = m.shift;
    m = igemm_magic_for(a->stride_w), a->mdiv_sw = m.magic, a->shift_sw = m.shift;
    a->ho = (uint32_t)sh->ho;
    a->wo = (uint32_t)sh->wo;
    a->fy = (uint32_t)p->y;
    a->fx = (uint32_t)p->x;
    a->kg = (uint32_t)sh->kg;
    uint32_t hw_out = (uint32_t)(sh->ho * sh->wo), k = (uint32_t)p->k;
    /* byte strides: NCHW (n, k, h, w), NHWC (n, h, w, k); the filter
       K, C/G, Y, X or K, Y, X, C/G (plan_nonfinite_w_strides) */
    a->dy_sn = (uint32_t)sh->dy_image * esz;
    a->dy_sk = (nhwc ? 1 : hw_out) * esz;
    a->dy_sh = (nhwc ? (uint32_t)sh->wo * k : (uint32_t)sh->wo) * esz;
    a->dy_sw = (nhwc ? k : 1) * esz;
    a->dy_bytes = a->dy_sn * (uint32_t)nb;
    plan_nonfinite_w_strides(sh, nhwc, a);
}

void plan_nonfinite_w_strides(const igemm_shape *sh, bool kyxc, igemm_nonfinite_args *a)
{
    const igemm_problem *p = &sh->p;
    const uint32_t esz = (uint32_t)igemm_dtype_get(p->dtype)->bytes;
    uint32_t yx = (uint32_t)(p->y * p->x), cg = (uint32_t)sh->cg;
    a->w_sk = cg * yx * esz;
    a->w_sc = (kyxc ? 1 : yx) * esz;
    a->w_sy = (kyxc ? (uint32_t)p->x * cg : (uint32_t)p->x) * esz;
    a->w_sx = (kyxc ? cg : 1) * esz;
    a->w_bytes = a->w_sk * (uint32_t)p->k;
}

int plan_naive(launch_plan *plan, const igemm_shape *sh, int n0, int nb, const plan_band *b, int only_nan)
{
    const igemm_problem *p = &sh->p;
    const uint32_t esz = (uint32_t)igemm_dtype_get(p->dtype)->bytes;
    const bool nhwc = p->layout == IGEMM_LAYOUT_NHWC;
    launch_desc *d = plan_add(plan);
    if (!d)
        return -1;
    igemm_nonfinite_args t; /* the tap geometry and strides: one writer */
    plan_nonfinite_args(sh, nb, &t);
    igemm_naive_args a = {0};
    a.band_px = (uint32_t)plan_band_pixels(sh, b);
    a.total = (uint32_t)((uint64_t)a.band_px * (uint64_t)p->c * (uint64_t)nb);
    a.batch = (uint32_t)nb;
    a.only_nan = (uint32_t)only_nan;
    a.hi = (uint32_t)p->hi;
    a.wi = (uint32_t)p->wi;
    a.c = (uint32_t)p->c;
    a.k = (uint32_t)p->k;
    a.ho = t.ho;
    a.wo = t.wo;
    a.fy = t.fy;
    a.fx = t.fx;
    a.cg = (uint32_t)sh->cg;
    a.kg = t.kg;
    a.stride_h = t.stride_h;
    a.stride_w = t.stride_w;
    a.dil_h = t.dil_h;
    a.dil_w = t.dil_w;
    a.pad_h = t.pad_h;
    a.pad_w = t.pad_w;
    a.top = (uint32_t)b->top;
    a.rows_skip = (uint32_t)(p->hi - b->top - b->bottom);
    a.rows_px = (uint32_t)((b->top + b->bottom) * p->wi);
    a.left = (uint32_t)b->left;
    a.lr = (uint32_t)(b->left + b->right > 0 ? b->left + b->right : 1);
    a.cols_skip = (uint32_t)(p->wi - b->left - b->right);
    uint32_t hw_in = (uint32_t)(p->hi * p->wi);
    a.dx_sn = (uint32_t)sh->dx_image * esz;
    a.dx_sc = (nhwc ? 1 : hw_in) * esz;
    a.dx_sh = (nhwc ? (uint32_t)p->wi * a.c : (uint32_t)p->wi) * esz;
    a.dx_sw = (nhwc ? a.c : 1) * esz;
    a.dy_sn = t.dy_sn;
    a.dy_sk = t.dy_sk;
    a.dy_sh = t.dy_sh;
    a.dy_sw = t.dy_sw;
    a.w_sk = t.w_sk;
    a.w_sc = t.w_sc;
    a.w_sy = t.w_sy;
    a.w_sx = t.w_sx;
    igemm_magic m;
    m = igemm_magic_for(a.wi), a.mdiv_wi = m.magic, a.shift_wi = m.shift;
    m = igemm_magic_for(a.band_px), a.mdiv_band = m.magic, a.shift_band = m.shift;
    m = igemm_magic_for(a.lr), a.mdiv_lr = m.magic, a.shift_lr = m.shift;
    m = igemm_magic_for(a.c), a.mdiv_c = m.magic, a.shift_c = m.shift;
    m = igemm_magic_for(a.cg), a.mdiv_cg = m.magic, a.shift_cg = m.shift;
    a.mdiv_sh = t.mdiv_sh, a.shift_sh = t.shift_sh;
    a.mdiv_sw = t.mdiv_sw, a.shift_sw = t.shift_sw;
    snprintf(d->kernel, sizeof d->kernel, "%s",
             p->dtype == IGEMM_FP16 ? KERNEL_NAIVE_FP16 : p->dtype == IGEMM_BF16 ? KERNEL_NAIVE_BF16 : KERNEL_NAIVE);
    d->block = NAIVE_BLOCK;
    d->grid = (a.total + NAIVE_BLOCK - 1) / NAIVE_BLOCK;
    memcpy(d->args, &a, sizeof a);
    d->args_size = sizeof a;
    d->ptr_off[ARG_DX] = (int)offsetof(igemm_naive_args, p_dx);
    d->ptr_off[ARG_DY] = (int)offsetof(igemm_naive_args, p_dy);
    d->ptr_off[ARG_W] = (int)offsetof(igemm_naive_args, p_w);
    d->ptr_add[ARG_DX] = (uint64_t)a.dx_sn * (uint64_t)n0;
    d->ptr_add[ARG_DY] = (uint64_t)a.dy_sn * (uint64_t)n0;
    d->ptr_add[ARG_W] = 0;
    return 0;
}

static int naive_plan(const solver *s, const igemm_shape *sh, const target *t, launch_plan *plan)
{
    (void)s;
    (void)t;
    int chunk = plan_batch_chunk(sh);
    plan_band all;
    plan_band_all(sh, &all);
    for (int n0 = 0; n0 < sh->p.n; n0 += chunk)
        if (plan_naive(plan, sh, n0, sh->p.n - n0 < chunk ? sh->p.n - n0 : chunk, &all, 0))
            return -1;
    return 0;
}

#define NAIVE_SOLVER(dt, solver_name)                                                                        \
    {                                                                                                          \
        .layout = IGEMM_LAYOUT_NCHW, .dtype = dt, .math = IGEMM_MATH_FMA, .dir = IGEMM_DIR_BWD_DATA,          \
        .name = solver_name, .kind = SOLVER_NAIVE, .available = naive_available, .applicable = naive_applicable, \
        .plan = naive_plan,                                                                                    \
    }
/* fp32 first (the reference); the 16-bit ones after the v4r1 configurations */
static const solver naive = NAIVE_SOLVER(IGEMM_FP32, "naive");
static const solver naive16[2] = {NAIVE_SOLVER(IGEMM_FP16, "naive_fp16"), NAIVE_SOLVER(IGEMM_BF16, "naive_bf16")};

/* ---- registry ---- */

static solver registry[SOLVER_MAX];
static v4r1_config registry_cfgs[SOLVER_MAX];
static int registry_n;
static pthread_once_t registry_once = PTHREAD_ONCE_INIT;

static void registry_init(void)
{
    registry[0] = naive;
    registry_n = 1 + v4r1_solvers(registry + 1, registry_cfgs, SOLVER_MAX - 3);
    registry[registry_n++] = naive16[0];
    registry[registry_n++] = naive16[1];
}

int solver_count(void)
{
    pthread_once(&registry_once, registry_init);
    return registry_n;
}

const solver *solver_get(int i) { return i >= 0 && i < solver_count() ? &registry[i] : NULL; }

const solver *solver_find(const char *name)
{
    for (int i = 0; name && i < solver_count(); i++)
        if (!strcmp(registry[i].name, name))
            return &registry[i];
    return NULL;
}

igemm_status solver_direction_check(igemm_direction d, char *why, size_t len)
{
    const igemm_direction_desc *dd = igemm_direction_get(d);
    if (!dd) {
        why_printf(why, len, "direction %d is not bwd-data, fwd or bwd-weights", (int)d);
        return IGEMM_ERR_INVALID_ARG;
    }
    for (int i = 0; i < solver_count(); i++)
        if (registry[i].dir == d)
            return IGEMM_OK;
    why_printf(why, len, "%s (-F %d: %s from %s and %s) has no solver: igemm computes %s (-F %d) only", dd->name,
               dd->driver_forw, dd->out, dd->in0, dd->in1, igemm_direction_get(IGEMM_DIR_BWD_DATA)->name,
               igemm_direction_get(IGEMM_DIR_BWD_DATA)->driver_forw);
    return IGEMM_ERR_UNSUPPORTED;
}
