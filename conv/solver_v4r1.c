/* The v4r1 solvers: one per tile configuration. A problem becomes, per
 * batch chunk, one multihead launch over every non-empty phase (more only
 * past V4R1_MAX_PHASES phases); where some dx pixels get no contribution,
 * either the empty phases join the launch and store their zeros
 * (v4r1_zeros_inside) or a zero fill of dx comes first. A _kyxc solver's
 * plan starts with the copy of w into K, Y, X, C/G order (the workspace),
 * which its GEMM launches read instead of w; a _zf solver's plan fills dx
 * with zeros first and launches the non-empty phases only (where the
 * configuration's own plan would launch the empty phases too). */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "solver.h"
#include "v4r1_config.h"

static int v4r1_available(const solver *s, const target *t) { return v4r1_config_runs_on(s->cfg, t); }

/* Images per launch: the shared byte limit, GEMM N (images * HTildaSlice *
 * WTildaSlice, a 32-bit kernel argument) below 2^31, and a dispatch of
 * workgroups * block work-items within 32 bits for the largest launch (nph
 * phases, at most V4R1_MAX_PHASES); 0 when one image is already too large. */
static int v4r1_chunk(const igemm_shape *sh, const v4r1_config *c, int nph)
{
    uint64_t chunk = (uint64_t)plan_batch_chunk(sh);
    uint64_t hw = (uint64_t)(sh->h.slice > 0 ? sh->h.slice : 0) * (uint64_t)(sh->w.slice > 0 ? sh->w.slice : 0);
    if (!hw)
        return (int)chunk;
    if (chunk * hw > INT32_MAX)
        chunk = INT32_MAX / hw;
    uint64_t per_tile = (uint64_t)c->block * (uint64_t)(nph < V4R1_MAX_PHASES ? nph : V4R1_MAX_PHASES) *
                        (((uint64_t)sh->cg + (uint64_t)c->mpb - 1) / (uint64_t)c->mpb) * (uint64_t)sh->p.groups;
    uint64_t n_tiles = UINT32_MAX / per_tile; /* most N tiles a launch may have */
    if ((chunk * hw + (uint64_t)c->npb - 1) / (uint64_t)c->npb > n_tiles)
        chunk = n_tiles * (uint64_t)c->npb / hw;
    return (int)chunk;
}

/* A split along GEMM K (c->ksplit): the K blocks of a tap (ceil(Kg/KPB))
 * in ranges of *per blocks, the last one the rest, *splits ranges (fewer
 * than c->ksplit where Kg has too few blocks: every range has one); the
 * fp32 workspace holds one slice of dx per range. */
static void ksplit_ranges(const igemm_shape *sh, const v4r1_config *c, int *per, int *splits)
{
    int nkb = (sh->kg + c->kpb - 1) / c->kpb;
    *per = (nkb + c->ksplit - 1) / c->ksplit;
    *splits = (nkb + *per - 1) / *per;
}

static igemm_status ksplit_applicable(const v4r1_config *c, const igemm_shape *sh, int nph, char *why, size_t len)
{
    int per, splits;
    ksplit_ranges(sh, c, &per, &splits);
    uint64_t ws = (uint64_t)splits * (uint64_t)sh->dx_elems * 4;
    if (splits < 2) {
        why_printf(why, len, "GEMM K per tap (K/G = %d) is one K block of %d: nothing to split", sh->kg, c->kpb);
        return IGEMM_ERR_NOT_APPLICABLE;
    }
    if (splits * nph > V4R1_MAX_PHASES) {
        /* one launch, so that every split's workgroups run at once (launches
           in a row would each leave CUs idle again) */
        why_printf(why, len, "%d splits x %d phases exceed one launch's phase table (%d rows)", splits, nph,
                   V4R1_MAX_PHASES);
        return IGEMM_ERR_NOT_APPLICABLE;
    }
    if (ws > LAUNCH_MAX_BYTES || v4r1_chunk(sh, c, nph) < sh->p.n) {
        why_printf(why, len, "the split's fp32 workspace (%d x dx: %llu bytes) or its launch exceeds one launch's "
                   "%llu bytes (the split is for small problems)", splits, (unsigned long long)ws,
                   (unsigned long long)LAUNCH_MAX_BYTES);
        return IGEMM_ERR_NOT_APPLICABLE;
    }
    return IGEMM_OK;
}

static igemm_status v4r1_applicable(const solver *s, const igemm_shape *sh, const target *t, char *why, size_t len)
{
    const v4r1_config *c = s->cfg;
    if (c->layout != sh->p.layout || c->dtype != sh->p.dtype) {
        why_printf(why, len, "written for %s %s tensors", igemm_layout_get(c->layout)->name,
                   igemm_dtype_get(c->dtype)->name);
        return IGEMM_ERR_NOT_APPLICABLE;
    }
    /* fp16 rounded to bf16 only where the problem asks for it (fp16_mode
       alt): never for accurate or flush problems */
    if (c->stage && sh->p.fp16_mode != IGEMM_FP16_ALT) {
        why_printf(why, len, "rounds fp16 to bf16 (--fp16_mode alt only)");
        return IGEMM_ERR_NOT_APPLICABLE;
    }
    /* the fp16 dot instructions of a target that flushes their subnormals
       only where the problem allows it (docs/EMULATOR.md); the fp16 MFMA
       kernels of such a target are exact (v4r1_config_ftz_checked) */
    if (c->kpack && c->math == IGEMM_MATH_FMA && v4r1_stage_type(c) == IGEMM_FP16 && t->dot2_f16_ftz &&
        sh->p.fp16_mode != IGEMM_FP16_FLUSH) {
        why_printf(why, len, "%s's fp16 dot instructions (v_dot2_f32_f16) flush subnormals (--fp16_mode flush "
                   "allows them)", t->name);
        return IGEMM_ERR_NOT_APPLICABLE;
    }
    igemm_status st = plan_check_tensors(sh, why, len);
    if (st != IGEMM_OK)
        return st;
    if ((int64_t)sh->h.tilda * sh->w.tilda > INT_MAX) {
        why_printf(why, len, "stride %dx%d: %d x %d phases are too many to number in an int", sh->p.stride_h,
                   sh->p.stride_w, sh->h.tilda, sh->w.tilda);
        return IGEMM_ERR_NOT_APPLICABLE;
    }
    int phases[V4R1_PLAN_PHASES + 1];
    int nph = v4r1_phases(sh, phases, V4R1_PLAN_PHASES + 1);
    if (nph > V4R1_PLAN_PHASES) {
        why_printf(why, len, "more than %d non-empty phases (filter and stride both large)", V4R1_PLAN_PHASES);
        return IGEMM_ERR_NOT_APPLICABLE;
    }
    int lph = v4r1_launch_phases(c, sh, phases, V4R1_PLAN_PHASES + 1);
    if (!v4r1_chunk(sh, s->cfg, lph)) {
        why_printf(why, len,
                   "one image's GEMM N (HTildaSlice %d x WTildaSlice %d) exceeds 2^31 - 1 or its dispatch 2^32 "
                   "work-items",
                   sh->h.slice, sh->w.slice);
        return IGEMM_ERR_NOT_APPLICABLE;
    }
    if (c->zfill && !v4r1_zeros_inside(sh)) {
        why_printf(why, len, "no empty phases whose zeros the kernels would write: nothing for a zero fill to "
                             "take over");
        return IGEMM_ERR_NOT_APPLICABLE;
    }
    if (c->kyxc && sh->p.y * sh->p.x == 1) {
        why_printf(why, len, "a 1x1 filter's channels are contiguous in w already: no K, Y, X, C/G copy to make");
        return IGEMM_ERR_NOT_APPLICABLE;
    }
    return c->ksplit ? ksplit_applicable(c, sh, lph, why, len) : IGEMM_OK;
}

/* A GEMM launch of kernel over the n phase rows of a (filled arguments):
 * its p_dx is buffer dx_arg's (ARG_DX, or ARG_WS for a split's partial
 * sums), dy and w the user's; NULL when out of memory. */
static launch_desc *gemm_launch(launch_plan *plan, const char *kernel, const v4r1_config *c,
                                const igemm_v4r1_args *a, int n, int part, int dx_arg)
{
    launch_desc *d = plan_add(plan);
    if (!d)
        return NULL;
    snprintf(d->kernel, sizeof d->kernel, "%s", kernel);
    d->block = (unsigned)c->block;
    d->grid = v4r1_grid(a, n);
    d->part = part;
    memcpy(d->args, a, sizeof *a);
    d->args_size = sizeof *a;
    d->ptr_off[dx_arg] = (int)offsetof(igemm_v4r1_args, p_dx);
    d->ptr_off[ARG_DY] = (int)offsetof(igemm_v4r1_args, p_dy);
    d->ptr_off[ARG_W] = (int)offsetof(igemm_v4r1_args, p_w);
    return d;
}

/* The launches of a split along GEMM K (one batch chunk: ksplit_applicable):
 * the workspace's zero fill where the phases leave pixels unwritten; the
 * (split, phase) pairs as the rows of one multihead launch of the split
 * kernel (at most V4R1_MAX_PHASES rows: ksplit_applicable), split s of every group walking K
 * channels [s * ks_chunk, + ks_chunk) and storing fp32 partial sums to
 * workspace slice s; then the reduction into dx, which also recomputes the
 * border's NaN sums from the valid taps (the non-finite guard). */
static int v4r1_plan_split(const solver *s, const igemm_shape *sh, launch_plan *plan, const int *phases, int nph)
{
    const v4r1_config *c = s->cfg;
    const igemm_problem *p = &sh->p;
    int per, splits;
    ksplit_ranges(sh, c, &per, &splits);
    uint64_t slice = (uint64_t)sh->dx_elems * 4;
    plan->ws_bytes = slice * (uint64_t)splits;
    if (v4r1_plan_fills(c, sh) && plan_zero_fill_ws(plan, plan->ws_bytes / 4, 0))
        return -1;
    char kernel[128];
    v4r1_kernel_name(c, kernel, sizeof kernel);
    int rows = splits * nph;
    for (int first = 0, part = 0; first < rows; first += V4R1_MAX_PHASES, part++) {
        int n = rows - first < V4R1_MAX_PHASES ? rows - first : V4R1_MAX_PHASES;
        int ph[V4R1_MAX_PHASES];
        for (int r = 0; r < n; r++)
            ph[r] = phases[(first + r) % nph];
        igemm_v4r1_args a;
        v4r1_fill_args(&a, sh, c, ph, n, p->n);
        a.ks_chunk = (uint32_t)(per * c->kpb);
        a.ks_slice = (uint32_t)slice;
        for (int r = 0; r < n; r++)
            v4r1_set_split_row(&a, r, (uint32_t)((first + r) / nph), (uint32_t)c->kpb);
        if (!gemm_launch(plan, kernel, c, &a, n, part, ARG_WS))
            return -1;
    }
    /* the reduction guards the sums against non-finite data (no fixup launch) */
    return plan_ksplit_sum(plan, sh, (uint64_t)sh->dx_elems, splits, slice) ? -1 : 0;
}

static int v4r1_plan(const solver *s, const igemm_shape *sh, const target *t, launch_plan *plan)
{
    const v4r1_config *c = s->cfg;
    const igemm_problem *p = &sh->p;
    (void)t;
    /* bytes per image, in the tensors' type */
    uint64_t esz = (uint64_t)igemm_dtype_get(p->dtype)->bytes;
    uint64_t dx_image = (uint64_t)sh->dx_image * esz, dy_image = (uint64_t)sh->dy_image * esz;
    int phases[V4R1_PLAN_PHASES];
    int nph = v4r1_launch_phases(c, sh, phases, V4R1_PLAN_PHASES);
    if (c->ksplit)
        return v4r1_plan_split(s, sh, plan, phases, nph);
    int chunk = v4r1_chunk(sh, c, nph);
    bool fill = v4r1_plan_fills(c, sh);
    /* _kyxc: w copied into K, Y, X, C/G order at the workspace's start,
       once for every batch chunk; the GEMMs read the copy */
    char kernel[128];
    v4r1_kernel_name(c, kernel, sizeof kernel);
    if (c->kyxc) {
        plan->ws_bytes = (uint64_t)sh->w_elems * esz;
        if (plan_w_kyxc(plan, sh, 0))
            return -1;
    }
    for (int n0 = 0; n0 < p->n; n0 += chunk) {
        int nb = p->n - n0 < chunk ? p->n - n0 : chunk;
        if (fill && plan_zero_fill(plan, sh, n0, nb))
            return -1;
        /* all non-empty phases in as few launches as the phase table allows */
        for (int first = 0, part = 0; first < nph; first += V4R1_MAX_PHASES, part++) {
            int n = nph - first < V4R1_MAX_PHASES ? nph - first : V4R1_MAX_PHASES;
            igemm_v4r1_args a;
            v4r1_fill_args(&a, sh, c, phases + first, n, nb);
            launch_desc *d = gemm_launch(plan, kernel, c, &a, n, part, ARG_DX);
            if (!d)
                return -1;
            d->ptr_add[ARG_DX] = dx_image * (uint64_t)n0;
            d->ptr_add[ARG_DY] = dy_image * (uint64_t)n0;
            if (c->kyxc) {
                d->ptr_off[ARG_WS] = d->ptr_off[ARG_W];
                d->ptr_off[ARG_W] = -1;
            }
        }
        /* no fixup launch: the kernel's non-finite guard recomputes the
           border pixels that came out NaN (docs/KERNELS.md) */
    }
    return 0;
}

/* One solver of configuration c at out[*n]. */
static void add_solver(solver *out, v4r1_config *cfgs, int max, int *np, const v4r1_config *c)
{
    int n = *np;
    if (n == max)
        igemm_die("the v4r1 configurations and their splits do not fit the solver registry (%d)", max);
    cfgs[n] = *c;
    solver *s = &out[n];
    memset(s, 0, sizeof *s);
    v4r1_config_name(&cfgs[n], s->name, sizeof s->name);
    s->kind = SOLVER_V4R1;
    s->dir = IGEMM_DIR_BWD_DATA;
    s->layout = cfgs[n].layout;
    s->dtype = cfgs[n].dtype;
    s->math = cfgs[n].math;
    s->cfg = &cfgs[n];
    s->available = v4r1_available;
    s->applicable = v4r1_applicable;
    s->plan = v4r1_plan;
    *np = n + 1;
}

int v4r1_solvers(solver *out, v4r1_config *cfgs, int max)
{
    static const int factors[] = V4R1_KSPLITS;
    int n = 0;
    for (int i = 0; i < v4r1_family_count(); i++)
        add_solver(out, cfgs, max, &n, v4r1_family_get(i));
    /* the splits after every unsplit configuration (the heuristic's ties
       go to the earlier, unsplit one) */
    for (int i = 0; i < v4r1_family_count(); i++)
        for (size_t f = 0; v4r1_config_splits(v4r1_family_get(i)) && f < sizeof factors / sizeof factors[0]; f++) {
            v4r1_config c = *v4r1_family_get(i);
            c.ksplit = factors[f];
            add_solver(out, cfgs, max, &n, &c);
        }
    /* then the w copies of the tiles that read NCHW's filter a line a lane */
    for (int i = 0; i < v4r1_family_count(); i++)
        if (v4r1_config_kyxc(v4r1_family_get(i))) {
            v4r1_config c = *v4r1_family_get(i);
            c.kyxc = 1;
            add_solver(out, cfgs, max, &n, &c);
        }
    /* then the zero fills before the non-empty phases */
    for (int i = 0; i < v4r1_family_count(); i++)
        if (v4r1_config_zfill(v4r1_family_get(i))) {
            v4r1_config c = *v4r1_family_get(i);
            c.zfill = 1;
            add_solver(out, cfgs, max, &n, &c);
        }
    return n;
}
