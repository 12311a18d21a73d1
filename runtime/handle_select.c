/* Solutions and selection: the registry's names, applicability with its
 * reasons, the automatic choice (perf DB, then the heuristic). */
#include <stdio.h>
#include <string.h>

#include "handle_int.h"

int igemm_solution_count(void) { return solver_count(); }
const char *igemm_solution_name(int i) { return solver_get(i) ? solver_get(i)->name : NULL; }

static igemm_status check_solver(igemm_handle *h, const solver *s, const igemm_shape *sh, char *why, size_t len)
{
    if (s->dir != sh->dir) {
        why_printf(why, len, "%s computes %s, the problem is %s", s->name, igemm_direction_get(s->dir)->name,
                   igemm_direction_get(sh->dir)->name);
        return IGEMM_ERR_NOT_APPLICABLE;
    }
    if (!s->available(s, h->t)) {
        why_printf(why, len, "%s has no %s kernel", h->t->name, s->name);
        return IGEMM_ERR_NOT_APPLICABLE;
    }
    return s->applicable(s, sh, h->t, why, len);
}

/* "no kernel configuration applies on gfx906 to conv -n 1 ...: REASON (every
 * configuration)", or per distinct reason "naive: reason; igemm_bwd_... and
 * 14 others: reason": a reason shared by several configurations is said once.
 * Configurations the target has no kernel for (MFMA ones on gfx906) and
 * those written for another layout or type are not candidates and are left
 * out; when none is left, that is the reason. */
void handle_refusal(igemm_handle *h, const igemm_shape *sh, char *buf, size_t len)
{
    enum { MAX_REASONS = 16 };
    struct {
        char why[256];
        int first, count;
    } r[MAX_REASONS];
    int nr = 0, n_solvers = solver_count();
    for (int i = 0; i < n_solvers; i++) {
        char why[256] = "";
        const solver *s = solver_get(i);
        if (s->dir != sh->dir || !s->available(s, h->t) || s->layout != sh->p.layout || s->dtype != sh->p.dtype)
            continue;
        check_solver(h, solver_get(i), sh, why, sizeof why);
        int j = 0;
        while (j < nr && strcmp(r[j].why, why))
            j++;
        if (j == nr && nr < MAX_REASONS) {
            snprintf(r[nr].why, sizeof r[nr].why, "%s", why);
            r[nr].first = i;
            r[nr++].count = 0;
        }
        if (j < nr)
            r[j].count++;
    }
    char args[256];
    igemm_problem_format(&sh->p, args, sizeof args);
    int n = snprintf(buf, len, "no kernel configuration applies on %s to %s %s:", h->t->name,
                     igemm_problem_command(&sh->p), args);
    if (nr == 0) {
        snprintf(buf + n, len - (size_t)n, " none is written for %s %s tensors",
                 igemm_layout_get(sh->p.layout)->upper, igemm_dtype_get(sh->p.dtype)->name);
        return;
    }
    if (nr == 1) {
        snprintf(buf + n, len - (size_t)n, " %s (every configuration)", r[0].why);
        return;
    }
    for (int j = 0; j < nr && n >= 0 && (size_t)n < len; j++) {
        char others[32] = "";
        if (r[j].count > 1)
            snprintf(others, sizeof others, " and %d other%s", r[j].count - 1, r[j].count > 2 ? "s" : "");
        n += snprintf(buf + n, len - (size_t)n, "%s %s%s: %s", j ? ";" : "", solver_get(r[j].first)->name, others,
                      r[j].why);
    }
}

igemm_status igemm_applicable(igemm_handle *h, const igemm_problem *p, const char *solution, char *why,
                              size_t why_len)
{
    if (!h) {
        why_printf(why, why_len, "handle is NULL");
        return IGEMM_ERR_INVALID_ARG;
    }
    h->err[0] = 0;
    igemm_shape sh;
    igemm_status st = igemm_shape_init(&sh, p, why, why_len);
    if (st == IGEMM_OK)
        st = solver_direction_check(sh.dir, why, why_len);
    if (st != IGEMM_OK)
        return st;
    if (solution) {
        const solver *s = solver_find(solution);
        if (!s) {
            why_printf(why, why_len, "unknown solution '%s' (%d names: 'igemm solutions' lists them)", solution,
                       solver_count());
            return IGEMM_ERR_INVALID_ARG;
        }
        return check_solver(h, s, &sh, why, why_len);
    }
    for (int i = 0; i < solver_count(); i++)
        if (check_solver(h, solver_get(i), &sh, NULL, 0) == IGEMM_OK)
            return IGEMM_OK;
    char buf[1024];
    handle_refusal(h, &sh, buf, sizeof buf);
    why_printf(why, why_len, "%s", buf);
    return IGEMM_ERR_NOT_APPLICABLE;
}

int handle_solver_ok(igemm_handle *h, const solver *s, const igemm_shape *sh)
{
    if (h->disabled_ksplit && s->kind == SOLVER_V4R1 && ((const v4r1_config *)s->cfg)->ksplit)
        return 0;
    return !(h->disabled_math >> s->math & 1) && check_solver(h, s, sh, NULL, 0) == IGEMM_OK;
}

/* The heuristic's filter: the solvers h can run on sh. */
static int heuristic_ok(void *ctx, const solver *s)
{
    handle_heuristic_ctx *c = ctx;
    return handle_solver_ok(c->h, s, c->sh);
}

int handle_kernel_alloc(const igemm_handle *h, const solver *s, kernel_alloc *a)
{
    char name[128];
    if (!h->co_info || s->kind != SOLVER_V4R1)
        return -1;
    v4r1_kernel_name(s->cfg, name, sizeof name);
    const emu_kernel_info *ki = emu_kernel_get_info(emu_find_kernel(h->co_info, name));
    if (!ki)
        return -1;
    *a = emu_kernel_alloc(ki);
    return 0;
}

/* The heuristic's view of the kernels: their allocations in h's code object. */
static int heuristic_alloc(void *ctx, const solver *s, kernel_alloc *a)
{
    return handle_kernel_alloc(((handle_heuristic_ctx *)ctx)->h, s, a);
}

heuristic_view handle_heuristic_view(handle_heuristic_ctx *ctx)
{
    return (heuristic_view){heuristic_ok, heuristic_alloc, ctx};
}

igemm_status handle_resolve(igemm_handle *h, const igemm_problem *p, const char *solution, handle_choice *choice)
{
    igemm_shape *sh = &choice->sh;
    const solver **out = &choice->s;
    const char **source = &choice->source;
    igemm_status st = igemm_shape_init(sh, p, h->err, sizeof h->err);
    if (st == IGEMM_OK)
        st = solver_direction_check(sh->dir, h->err, sizeof h->err);
    if (st != IGEMM_OK)
        return st;
    if (solution) {
        const solver *s = solver_find(solution);
        if (!s)
            return handle_fail(h, IGEMM_ERR_INVALID_ARG,
                               "unknown solution '%s' (igemm_solution_name lists the %d names; the CLI: igemm "
                               "solutions)",
                               solution, solver_count());
        char why[512];
        if ((st = check_solver(h, s, sh, why, sizeof why)) != IGEMM_OK)
            return handle_fail(h, st, "%s does not apply on %s: %s", s->name, h->t->name, why);
        *out = s;
        *source = "user";
        return IGEMM_OK;
    }
    const solver *s = handle_perfdb_solver(h, sh);
    *source = "perfdb";
    if (!s) {
        handle_heuristic_ctx c = {h, sh};
        heuristic_view v = handle_heuristic_view(&c);
        s = select_heuristic(sh, &h->dev_t, &v);
        *source = "heuristic";
    }
    if (!s) {
        handle_refusal(h, sh, h->err, sizeof h->err);
        return IGEMM_ERR_NOT_APPLICABLE;
    }
    *out = s;
    return IGEMM_OK;
}

igemm_status igemm_select(igemm_handle *h, const igemm_problem *p, char *solution, size_t len)
{
    if (!h)
        return IGEMM_ERR_INVALID_ARG;
    h->err[0] = 0;
    if (!p || !solution || !len)
        return handle_fail(h, IGEMM_ERR_INVALID_ARG, "igemm_select: %s is NULL or empty",
                           !p ? "the problem" : "solution");
    handle_choice c;
    igemm_status st = handle_resolve(h, p, NULL, &c);
    if (st != IGEMM_OK)
        return st;
    const solver *s = c.s;
    if (strlen(s->name) >= len)
        return handle_fail(h, IGEMM_ERR_INVALID_ARG, "igemm_select: %s needs %zu bytes, the buffer has %zu", s->name,
                           strlen(s->name) + 1, len);
    snprintf(solution, len, "%s", s->name);
    return IGEMM_OK;
}
