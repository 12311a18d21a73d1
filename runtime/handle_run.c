/* Running: a problem's launch plan on the handle's backend (the bwd-data
 * entry points), and the plan for embedders (igemm_get_launches). */
#include <stdio.h>
#include <string.h>

#include "handle_int.h"

static bk_kernel *kernel_lookup(igemm_handle *h, const char *name)
{
    for (int i = 0; i < h->nk; i++)
        if (!strcmp(h->kcache[i].name, name))
            return h->kcache[i].k;
    bk_kernel *k = h->b->ops->kernel(h->b, h->mod, name);
    if (k && h->nk == MAX_CACHED_KERNELS)
        igemm_die("kernel cache full (%d kernels) looking up %s", MAX_CACHED_KERNELS, name);
    if (k) {
        snprintf(h->kcache[h->nk].name, sizeof h->kcache[h->nk].name, "%s", name);
        h->kcache[h->nk++].k = k;
    }
    return k;
}

/* a launch's memory view added to the run's */
static void memory_add(igemm_memory_view *m, const igemm_memory_view *l)
{
    m->line_loaded += l->line_loaded, m->useful_loaded += l->useful_loaded;
    m->line_stored += l->line_stored, m->useful_stored += l->useful_stored;
    m->l1_lookups += l->l1_lookups, m->l1_hits += l->l1_hits;
    m->l2_reads += l->l2_reads, m->l2_hits += l->l2_hits, m->hbm_bytes += l->hbm_bytes;
    m->lds_cycles += l->lds_cycles, m->lds_ideal += l->lds_ideal;
}

/* Append name to the comma-separated list unless it is there already. */
static void add_kernel_name(char *list, size_t len, const char *name)
{
    size_t n = strlen(name);
    if (list_has(list, name, n))
        return;
    size_t used = strlen(list);
    if (used + (used ? 1 : 0) + n + 1 > len)
        return; /* the list is full: later names are left out */
    snprintf(list + used, len - used, "%s%s", used ? "," : "", name);
}

igemm_status handle_workspace(igemm_handle *h, size_t bytes)
{
    if (bytes <= h->ws_bytes)
        return IGEMM_OK;
    if (h->ws)
        h->b->ops->free(h->b, h->ws);
    h->ws = NULL;
    h->ws_bytes = 0;
    if (h->b->ops->alloc(h->b, &h->ws, bytes)) {
        h->ws = NULL;
        return handle_fail(h, IGEMM_ERR_NO_MEMORY, "%s (the workspace of %zu bytes)", h->b->err, bytes);
    }
    h->ws_bytes = bytes;
    return IGEMM_OK;
}

igemm_status handle_run(igemm_handle *h, const igemm_shape *sh, const solver *s, void *dx, const void *dy,
                        const void *w, bool timed, igemm_run_info *ri)
{
    memset(ri, 0, sizeof *ri);
    snprintf(ri->solution, sizeof ri->solution, "%s", s->name);
    launch_plan plan = {0};
    if (s->plan(s, sh, h->t, &plan)) {
        plan_free(&plan);
        return handle_fail(h, IGEMM_ERR_NO_MEMORY, "out of memory planning the launches of %s", s->name);
    }
    igemm_status st = IGEMM_OK;
    void *base[ARG_COUNT] = {dx, (void *)dy, (void *)w, NULL};
    size_t eb = (size_t)igemm_dtype_get(sh->p.dtype)->bytes;
    size_t bytes[ARG_COUNT] = {(size_t)sh->dx_elems * eb, (size_t)sh->dy_elems * eb, (size_t)sh->w_elems * eb,
                               (size_t)plan.ws_bytes};
    const char *tensor[ARG_COUNT] = {"dx", "dy", "w", "workspace"};
    for (int t = 0; t < ARG_WS; t++)
        if ((st = handle_fits_alloc(h, tensor[t], base[t], bytes[t])) != IGEMM_OK) {
            plan_free(&plan);
            return st;
        }
    if (plan.ws_bytes && (st = handle_workspace(h, (size_t)plan.ws_bytes)) != IGEMM_OK) {
        plan_free(&plan);
        return st;
    }
    base[ARG_WS] = h->ws;
    int nbuf = plan.ws_bytes ? ARG_COUNT : ARG_WS; /* the buffers the launches address */
    int mapped = 0;
    for (; mapped < nbuf; mapped++)
        if (h->b->ops->map(h->b, base[mapped], bytes[mapped])) {
            st = handle_fail(h, IGEMM_ERR_BACKEND, "%s (%s)", h->b->err, tensor[mapped]);
            break;
        }
    if (st == IGEMM_OK && timed && h->b->ops->timer_start(h->b))
        st = handle_fail(h, IGEMM_ERR_BACKEND, "%s (timing %s)", h->b->err, s->name);
    for (int i = 0; st == IGEMM_OK && i < plan.n; i++) {
        launch_desc *d = &plan.l[i];
        plan_bind(d, base);
        bk_kernel *k = kernel_lookup(h, d->kernel);
        if (!k) {
            st = handle_fail(h, IGEMM_ERR_NO_CODE_OBJECT, "%s", h->b->err);
            break;
        }
        bk_stats bs;
        /* a launch whose output a later one reads runs whole, even for the
           model's cost alone (its sampled workgroups would leave the rest of
           its output unwritten: the _kyxc copy of w, whose garbage the GEMM's
           non-finite guard would recompute at length) */
        bool whole = h->cost_only && d->feeds;
        if (whole)
            h->b->ops->cost_only(h->b, false);
        int failed = h->b->ops->launch(h->b, k, d->grid, d->block, d->args, d->args_size, &bs);
        if (whole)
            h->b->ops->cost_only(h->b, true);
        if (failed) {
            st = handle_fail(h, h->b->ops->launch_error, "%s (launch %d of %d of %s)", h->b->err,
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
        if (ri->launches <= IGEMM_RUN_LAUNCHES) {
            igemm_launch_time *lt = &ri->launch[ri->launches - 1];
            /* the plan's names fit (igemm_launch.kernel is longer: at -O1 gcc
               warns of the truncation unless the precision bounds it) */
            snprintf(lt->kernel, sizeof lt->kernel, "%.*s", (int)sizeof lt->kernel - 1, d->kernel);
            lt->grid = d->grid;
            lt->block = d->block;
            if (bs.model_cycles) {
                lt->modeled_us = bs.model_us;
                if (h->b->ops->model_limit)
                    snprintf(lt->limit, sizeof lt->limit, "%s", h->b->ops->model_limit(bs.model_cycles, bs.model_busy));
            }
        }
        if (bs.model_cycles && (ri->launches == 1 || ri->modeled_cycles)) {
            ri->modeled_cycles += bs.model_cycles;
            ri->modeled_us += bs.model_us;
            for (int j = 0; j < 4; j++)
                ri->modeled_busy[j] += bs.model_busy[j];
            memory_add(&ri->memory, &bs.memory);
        } else { /* one launch not timed: the run is not */
            ri->modeled_cycles = 0;
            ri->modeled_us = 0;
            ri->memory = (igemm_memory_view){0};
        }
    }
    if (ri->modeled_cycles && h->b->ops->model_limit)
        snprintf(ri->limit, sizeof ri->limit, "%s", h->b->ops->model_limit(ri->modeled_cycles, ri->modeled_busy));
    if (st == IGEMM_OK && timed && h->b->ops->timer_stop(h->b, &ri->ms))
        st = handle_fail(h, IGEMM_ERR_BACKEND, "%s (after the launches of %s)", h->b->err, s->name);
    for (int a = 0; a < mapped; a++)
        h->b->ops->unmap(h->b, base[a]);
    plan_free(&plan);
    return st;
}

igemm_status igemm_conv_bwd_data_ex(igemm_handle *h, const igemm_problem *p, const char *solution, void *dx,
                                   const void *dy, const void *w, igemm_run_info *info)
{
    if (!h)
        return IGEMM_ERR_INVALID_ARG;
    h->err[0] = 0;
    if (!dx || !dy || !w)
        return handle_fail(h, IGEMM_ERR_INVALID_ARG, "%s must not be NULL", !dx ? "dx" : !dy ? "dy" : "w");
    handle_log_call(h, "igemm_conv_bwd_data", p, solution);
    handle_choice c;
    igemm_status st = handle_resolve(h, p, solution, &c);
    if (st != IGEMM_OK)
        return st;
    igemm_run_info ri;
    st = handle_run(h, &c.sh, c.s, dx, dy, w, h->timing, &ri);
    snprintf(ri.source, sizeof ri.source, "%s", c.source);
    if (info)
        *info = ri;
    return st;
}

igemm_status igemm_conv_bwd_data(igemm_handle *h, const igemm_problem *p, void *dx, const void *dy, const void *w)
{
    return igemm_conv_bwd_data_ex(h, p, NULL, dx, dy, w, NULL);
}

/* ---- launch plans for embedders ---- */

igemm_status igemm_get_launches(igemm_handle *h, const igemm_problem *p, const char *solution,
                                igemm_launch *launches, int max, int *count)
{
    if (!h)
        return IGEMM_ERR_INVALID_ARG;
    h->err[0] = 0;
    if (!count)
        return handle_fail(h, IGEMM_ERR_INVALID_ARG, "igemm_get_launches: count is NULL");
    *count = 0;
    if (launches && max < 0)
        return handle_fail(h, IGEMM_ERR_INVALID_ARG, "igemm_get_launches: max (%d) is negative", max);
    handle_choice c;
    igemm_status st = handle_resolve(h, p, solution, &c);
    if (st != IGEMM_OK)
        return st;
    const solver *s = c.s;
    launch_plan plan = {0};
    if (s->plan(s, &c.sh, h->t, &plan)) {
        plan_free(&plan);
        return handle_fail(h, IGEMM_ERR_NO_MEMORY, "out of memory planning the launches of %s", s->name);
    }
    *count = plan.n;
    if (launches && max < plan.n) {
        int n = plan.n;
        plan_free(&plan);
        return handle_fail(h, IGEMM_ERR_INVALID_ARG, "the plan of %s has %d launches; the array holds %d", s->name,
                           n, max);
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
        for (int a = 0; a < ARG_COUNT; a++) {
            l->ptr_offset[a] = d->ptr_off[a];
            l->ptr_add[a] = d->ptr_add[a];
        }
    }
    plan_free(&plan);
    return IGEMM_OK;
}

igemm_status igemm_get_workspace_size(igemm_handle *h, const igemm_problem *p, const char *solution, size_t *bytes)
{
    if (!h)
        return IGEMM_ERR_INVALID_ARG;
    h->err[0] = 0;
    if (!bytes)
        return handle_fail(h, IGEMM_ERR_INVALID_ARG, "igemm_get_workspace_size: bytes is NULL");
    *bytes = 0;
    handle_choice c;
    igemm_status st = handle_resolve(h, p, solution, &c);
    if (st != IGEMM_OK)
        return st;
    launch_plan plan = {0};
    if (c.s->plan(c.s, &c.sh, h->t, &plan)) {
        plan_free(&plan);
        return handle_fail(h, IGEMM_ERR_NO_MEMORY, "out of memory planning the launches of %s", c.s->name);
    }
    *bytes = (size_t)plan.ws_bytes;
    plan_free(&plan);
    return IGEMM_OK;
}
