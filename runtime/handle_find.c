/* Find mode: every candidate configuration measured on the handle's
 * backend, ordered, the best remembered (handle_perfdb.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handle_int.h"

/* Measure one configuration: its cost, or the failure's status. Where the
 * backend can run only what a modeled cost needs (backend_ops.cost_only: the
 * emulator's traced workgroups), it does, and *partial says dx may not hold
 * this configuration's whole result; a run the model could not time is
 * repeated whole (its cost is then the run's own cycles). */
static igemm_status measure(igemm_handle *h, const igemm_shape *sh, const solver *s, void *dx, const void *dy,
                            const void *w, igemm_perf *out, bool *partial)
{
    memset(out, 0, sizeof *out);
    snprintf(out->solution, sizeof out->solution, "%s", s->name);
    out->unit = h->b->ops->cost_unit;
    igemm_run_info ri;
    /* a warm-up run where the backend times its runs; else the measurement */
    int timed_runs = h->b->ops->find_timed_runs;
    bool sampled = !timed_runs && h->b->ops->cost_only && h->b->ops->cost_only(h->b, true);
    h->cost_only = sampled;
    igemm_status st = handle_run(h, sh, s, dx, dy, w, timed_runs > 0, &ri);
    h->cost_only = false;
    if (sampled)
        h->b->ops->cost_only(h->b, false);
    if (sampled && st == IGEMM_OK && !ri.modeled_cycles)
        st = handle_run(h, sh, s, dx, dy, w, false, &ri);
    else if (sampled)
        *partial = true;
    out->launches = ri.launches;
    out->cost = timed_runs ? INFINITY : ri.modeled_cycles ? (double)ri.modeled_cycles : (double)ri.cycles;
    for (int i = 0; st == IGEMM_OK && i < timed_runs; i++) {
        st = handle_run(h, sh, s, dx, dy, w, true, &ri);
        if (st == IGEMM_OK && ri.ms < out->cost)
            out->cost = ri.ms;
    }
    if (st == IGEMM_OK && !perfdb_cost_ok(out->cost))
        st = handle_fail(h, IGEMM_ERR_BACKEND, "find: %s measured an invalid cost (%g %s): the timer failed", s->name,
                         out->cost, out->unit);
    out->status = st;
    if (st != IGEMM_OK)
        out->cost = INFINITY;
    return st;
}

/* Order: configurations that ran, cheapest first; failures last. */
static int perf_before(const igemm_perf *a, const igemm_perf *b)
{
    if ((a->status == IGEMM_OK) != (b->status == IGEMM_OK))
        return a->status == IGEMM_OK;
    return a->status == IGEMM_OK && a->cost < b->cost;
}

igemm_status igemm_find(igemm_handle *h, const igemm_problem *p, void *dx, const void *dy, const void *w,
                        igemm_perf *results, int max_results, int *count)
{
    if (count)
        *count = 0;
    if (!h)
        return IGEMM_ERR_INVALID_ARG;
    h->err[0] = 0;
    if (!dx || !dy || !w)
        return handle_fail(h, IGEMM_ERR_INVALID_ARG, "%s must not be NULL", !dx ? "dx" : !dy ? "dy" : "w");
    if (max_results < 0 || (max_results > 0 && !results))
        return handle_fail(h, IGEMM_ERR_INVALID_ARG, "igemm_find: results is NULL or max_results (%d) is negative",
                           max_results);
    igemm_shape sh;
    igemm_status st = igemm_shape_init(&sh, p, h->err, sizeof h->err);
    if (st != IGEMM_OK)
        return st;
    int n = 0;
    igemm_perf *perf = calloc((size_t)solver_count() + 1, sizeof *perf);
    if (!perf)
        return handle_fail(h, IGEMM_ERR_NO_MEMORY, "out of memory");
    igemm_status first_fail = IGEMM_OK, last = IGEMM_OK, save_st = IGEMM_OK;
    bool partial = false; /* a measurement left dx unfinished (measure) */
    char first_msg[sizeof h->err] = "", save_msg[512] = "";
    handle_heuristic_ctx hc = {h, &sh};
    heuristic_view hv = handle_heuristic_view(&hc);
    bool naive_too = heuristic_naive_worth_timing(&sh, &h->dev_t, &hv);
    handle_log_call(h, "igemm_find", p, NULL);
    int total = 0;
    for (int i = 0; h->progress && i < solver_count(); i++)
        total += handle_solver_ok(h, solver_get(i), &sh) && (solver_get(i)->kind != SOLVER_NAIVE || naive_too);
    for (int i = 0; i < solver_count(); i++) {
        const solver *s = solver_get(i);
        if (!handle_solver_ok(h, s, &sh) || (s->kind == SOLVER_NAIVE && !naive_too))
            continue;
        if (h->progress)
            h->progress(h->progress_ctx, s->name, n, total);
        last = measure(h, &sh, s, dx, dy, w, &perf[n], &partial);
        if (last != IGEMM_OK && first_fail == IGEMM_OK) {
            first_fail = last;
            snprintf(first_msg, sizeof first_msg, "%s", h->err);
        }
        /* insertion keeps perf[0..n] ordered */
        int j = n;
        for (; j > 0 && perf_before(&perf[j], &perf[j - 1]); j--) {
            igemm_perf t = perf[j];
            perf[j] = perf[j - 1];
            perf[j - 1] = t;
        }
        n++;
        /* a new best is stored at once: a find killed midway keeps it */
        if (!j && perf[0].status == IGEMM_OK) {
            igemm_status sv = handle_perfdb_remember(h, p, &perf[0], save_st == IGEMM_OK, save_msg, sizeof save_msg);
            save_st = save_st == IGEMM_OK ? sv : save_st; /* after a failed write, the handle only */
        }
    }
    if (count)
        *count = n;
    for (int i = 0; i < n && i < max_results; i++)
        results[i] = perf[i];
    if (!n) {
        free(perf);
        handle_refusal(h, &sh, h->err, sizeof h->err);
        return IGEMM_ERR_NOT_APPLICABLE;
    }
    if (perf[0].status != IGEMM_OK) {
        free(perf);
        return handle_fail(h, first_fail, "find: every configuration failed; the first: %s", first_msg);
    }
    if (last != IGEMM_OK || partial) {
        /* the last run left dx half-written: recompute it with the best */
        igemm_run_info ri;
        if ((st = handle_run(h, &sh, solver_find(perf[0].solution), dx, dy, w, false, &ri)) != IGEMM_OK) {
            free(perf);
            return st;
        }
    }
    free(perf);
    h->err[0] = 0;
    if (save_st != IGEMM_OK)
        return handle_fail(h, save_st, "find: %s", save_msg);
    return IGEMM_OK;
}
