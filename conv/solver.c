/* The solver registry, launch plans, the naive solver and the zero fill. */
#include "solver.h"

#include <pthread.h>

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
    d->ptr_off[0] = d->ptr_off[1] = d->ptr_off[2] = -1;
    d->part = -1;
    return d;
}

void plan_bind(launch_desc *d, void *const base[3])
{
    for (int a = 0; a < 3; a++)
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

static int naive_plan(const solver *s, const igemm_shape *sh, const target *t, launch_plan *plan)
{
    (void)t;
    const igemm_problem *p = &sh->p;
    const uint64_t es = (uint64_t)igemm_dtype_get(s->dtype)->bytes;
    const char *kernel = s->dtype == IGEMM_FP16 ? KERNEL_NAIVE_FP16 : s->dtype == IGEMM_BF16 ? KERNEL_NAIVE_BF16
                                                                                              : KERNEL_NAIVE;
    int chunk = plan_batch_chunk(sh);
    uint64_t dx_image = (uint64_t)sh->dx_image, dy_image = (uint64_t)sh->dy_image;
    for (int n0 = 0; n0 < p->n; n0 += chunk) {
        int nb = p->n - n0 < chunk ? p->n - n0 : chunk;
        launch_desc *d = plan_add(plan);
        if (!d)
            return -1;
        igemm_naive_args a = {0};
        a.total = (uint32_t)(dx_image * (uint64_t)nb);
        a.batch = (uint32_t)nb;
        a.hi = (uint32_t)p->hi;
        a.wi = (uint32_t)p->wi;
        a.c = (uint32_t)p->c;
        a.k = (uint32_t)p->k;
        a.ho = (uint32_t)sh->ho;
        a.wo = (uint32_t)sh->wo;
        a.fy = (uint32_t)p->y;
        a.fx = (uint32_t)p->x;
        a.cg = (uint32_t)sh->cg;
        a.kg = (uint32_t)sh->kg;
        a.stride_h = (uint32_t)p->stride_h;
        a.stride_w = (uint32_t)p->stride_w;
        a.dil_h = (uint32_t)p->dil_h;
        a.dil_w = (uint32_t)p->dil_w;
        a.pad_h = (uint32_t)p->pad_h;
        a.pad_w = (uint32_t)p->pad_w;
        igemm_magic m;
        m = igemm_magic_for(a.wi), a.mdiv_wi = m.magic, a.shift_wi = m.shift;
        m = igemm_magic_for(a.hi), a.mdiv_hi = m.magic, a.shift_hi = m.shift;
        m = igemm_magic_for(a.c), a.mdiv_c = m.magic, a.shift_c = m.shift;
        m = igemm_magic_for(a.cg), a.mdiv_cg = m.magic, a.shift_cg = m.shift;
        m = igemm_magic_for(a.stride_h), a.mdiv_sh = m.magic, a.shift_sh = m.shift;
        m = igemm_magic_for(a.stride_w), a.mdiv_sw = m.magic, a.shift_sw = m.shift;
        snprintf(d->kernel, sizeof d->kernel, "%s", kernel);
        d->block = NAIVE_BLOCK;
        d->grid = (a.total + NAIVE_BLOCK - 1) / NAIVE_BLOCK;
        memcpy(d->args, &a, sizeof a);
        d->args_size = sizeof a;
        d->ptr_off[ARG_DX] = (int)offsetof(igemm_naive_args, p_dx);
        d->ptr_off[ARG_DY] = (int)offsetof(igemm_naive_args, p_dy);
        d->ptr_off[ARG_W] = (int)offsetof(igemm_naive_args, p_w);
        d->ptr_add[ARG_DX] = dx_image * (uint64_t)n0 * es;
        d->ptr_add[ARG_DY] = dy_image * (uint64_t)n0 * es;
        d->ptr_add[ARG_W] = 0;
    }
    return 0;
}

#define NAIVE_SOLVER(dt, solver_name)                                                                        \
    {                                                                                                          \
        .layout = IGEMM_LAYOUT_NCHW, .dtype = dt, .math = IGEMM_MATH_FMA, .name = solver_name,               \
        .kind = SOLVER_NAIVE, .available = naive_available, .applicable = naive_applicable, .plan = naive_plan, \
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
