/* igemm plan: the launches of one problem, for launching them with the HIP
 * module API from any language.
 *
 *   igemm plan conv|convfp16|convbfp16 -n N -c C ... -F 2 --arch gfxNNN [--solution NAME] [--json]
 *   (the command word gives the data type: the JSON's "dtype")
 *
 * Per launch: the code object file (<arch>.hsaco of share/igemm or the
 * build's co/), the kernel, grid (workgroups) and block (work-items), the
 * kernel's LDS bytes, the argument buffer in hex and, for each tensor (dx,
 * dy, w) the kernel takes, the byte offset in that buffer where the 64-bit
 * address (tensor base + add) goes. Launches run in order on one stream. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../emu/emu.h"
#include "../include/igemm.h"
#include "../arch/target.h"
#include "../conv/problem.h"
#include "../conv/select.h"
#include "../conv/solver.h"
#include "../conv/types.h"
#include "../runtime/kalloc.h"
#include "cli.h"

static void plan_help(void)
{
    printf("usage: igemm plan conv|convfp16|convbfp16 -n N -c C -H H -W W -k K -y Y -x X [-p -q -u -v -l -j -g] -F 2\n"
           "                  --arch TARGET [--solution NAME] [--json] [--estimates]\n"
           "The kernel launches of one backward-data problem on TARGET (%s): code object,\n"
           "kernel, grid, block, LDS bytes, argument bytes (hex) and the offsets of the dx, dy\n"
           "and w pointers in them, and of the workspace (ws: a split along GEMM K's fp32 partial\n"
           "sums, its bytes in tensor_bytes.ws, 0 when none). Nothing runs.\n"
           "--estimates instead: the selection heuristic's estimate of every applicable v4r1\n"
           "configuration, least first, with its terms in model cycles (conv/select.h v4r1_terms:\n"
           "total = (busy^6 + latency^6)^(1/6) + extra, busy = max(issue, l2, hbm, path) + zeros),\n"
           "the workgroups a CU holds (wg/CU: the occupancy of the kernel's allocation in the code\n"
           "object) and the term it bounds by; the selected configuration is marked. Estimates, not\n"
           "the timing model: -s 1 (find mode) times them.\n",
           cli_library_targets());
}

/* LDS bytes of a kernel from the embedded code object's descriptor, read
 * by the emulator's loader (the public API does not expose descriptors). */
static int kernel_lds(const char *arch_name, const char *kernel)
{
    for (int i = 0; i < igemm_codeobj_count(); i++) {
        const char *arch;
        const void *img;
        size_t size;
        igemm_codeobj_get(i, &arch, &img, &size);
        if (strcmp(arch, arch_name))
            continue;
        emu_device *d = emu_create(target_by_name(arch), NULL);
        emu_module *m;
        char err[256];
        int lds = -1;
        if (d && !emu_load(d, img, size, &m, err, sizeof err)) {
            const emu_kernel *k = emu_find_kernel(m, kernel);
            lds = k ? emu_kernel_get_info(k)->lds_bytes : -1;
            emu_module_free(m);
        }
        emu_destroy(d);
        return lds;
    }
    return -1;
}

static void print_plan(const igemm_problem *p, const char *arch, const char *solution, const igemm_launch *l, int n,
                       int json, size_t ws)
{
    static const char *const tensor[4] = {"dx", "dy", "w", "ws"};
    char args[256];
    igemm_problem_format(p, args, sizeof args);
    igemm_shape sh;
    igemm_shape_init(&sh, p, NULL, 0);
    long long es = igemm_dtype_get(p->dtype)->bytes;
    long long bytes[3] = {sh.dx_elems * es, sh.dy_elems * es, sh.w_elems * es};
    if (json) {
        printf("{\n  \"problem\": \"%s %s -F 2\",\n  \"arch\": \"%s\",\n  \"code_object\": \"%s.hsaco\",\n"
               "  \"solution\": \"%s\",\n  \"dtype\": \"%s\",\n  \"layout\": \"%s\",\n  \"tensor_bytes\": {\"dx\": %lld, "
               "\"dy\": %lld, \"w\": %lld, \"ws\": %zu},\n  \"launches\": [",
               igemm_problem_command(p), args, arch, arch, solution, igemm_dtype_get(p->dtype)->name,
               igemm_layout_get(p->layout)->upper, bytes[0], bytes[1], bytes[2], ws);
        for (int i = 0; i < n; i++) {
            printf("%s\n    {\"kernel\": \"%s\", \"grid\": [%u, %u, %u], \"block\": [%u, %u, %u], "
                   "\"lds_bytes\": %d, \"args_size\": %zu,\n     \"pointers\": {",
                   i ? "," : "", l[i].kernel, l[i].grid[0], l[i].grid[1], l[i].grid[2], l[i].block[0], l[i].block[1],
                   l[i].block[2], kernel_lds(arch, l[i].kernel), l[i].args_size);
            int first = 1;
            for (int a = 0; a < 4; a++)
                if (l[i].ptr_offset[a] >= 0) {
                    printf("%s\"%s\": {\"offset\": %d, \"add\": %llu}", first ? "" : ", ", tensor[a],
                           l[i].ptr_offset[a], (unsigned long long)l[i].ptr_add[a]);
                    first = 0;
                }
            printf("},\n     \"args\": \"");
            for (size_t b = 0; b < l[i].args_size; b++)
                printf("%02x", l[i].args[b]);
            printf("\"}");
        }
        printf("\n  ]\n}\n");
        return;
    }
    printf("plan %s %s -F 2 on %s: %s, %d launch%s, code object %s.hsaco\n", igemm_problem_command(p), args, arch,
           solution, n, n == 1 ? "" : "es", arch);
    if (ws)
        printf("  workspace (ws): %zu bytes\n", ws);
    for (int i = 0; i < n; i++) {
        printf("  %d: %s grid %u block %u lds %d args %zu bytes;", i + 1, l[i].kernel, l[i].grid[0], l[i].block[0],
               kernel_lds(arch, l[i].kernel), l[i].args_size);
        for (int a = 0; a < 4; a++)
            if (l[i].ptr_offset[a] >= 0)
                printf(" %s@%d+%llu", tensor[a], l[i].ptr_offset[a], (unsigned long long)l[i].ptr_add[a]);
        printf("\n     ");
        for (size_t b = 0; b < l[i].args_size; b++)
            printf("%02x%s", l[i].args[b], b % 32 == 31 && b + 1 < l[i].args_size ? "\n     " : "");
        printf("\n");
    }
}

typedef struct {
    const solver *s;
    v4r1_terms e;
} estimate_row;

static int by_total(const void *a, const void *b)
{
    double x = ((const estimate_row *)a)->e.total, y = ((const estimate_row *)b)->e.total;
    return x < y ? -1 : x > y;
}

/* The term an estimate is bound by: the largest of busy's, or the latency. */
static const char *bound_by(const v4r1_terms *e)
{
    const char *name = "issue";
    double v = e->issue;
    const struct {
        const char *name;
        double v;
    } t[] = {{"l2", e->l2}, {"hbm", e->hbm}, {"path", e->path}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (t[i].v > v)
            name = t[i].name, v = t[i].v;
    return e->latency > v + e->zeros ? "latency" : name;
}

/* igemm plan --estimates: every applicable v4r1 configuration of p on h's
 * target, by the heuristic's estimate (conv/heuristic.c), least first. */
static int print_estimates(igemm_handle *h, const igemm_problem *p, const char *chosen)
{
    const target *t = target_by_name(igemm_handle_arch(h));
    igemm_shape sh;
    if (!t || igemm_shape_init(&sh, p, NULL, 0) != IGEMM_OK)
        return usage_error("plan: no estimates for this problem on %s", igemm_handle_arch(h));
    estimate_row *rows = calloc((size_t)solver_count(), sizeof *rows);
    if (!rows)
        return usage_error("out of memory");
    int n = 0;
    for (int i = 0; i < solver_count(); i++) {
        const solver *s = solver_get(i);
        if (s->kind == SOLVER_V4R1 && s->dtype == p->dtype && s->layout == p->layout &&
            igemm_applicable(h, p, s->name, NULL, 0) == IGEMM_OK) {
            rows[n].s = s;
            kernel_alloc a;
            v4r1_estimate_terms(s->cfg, &sh, t, handle_kernel_alloc(h, s, &a) ? NULL : &a, &rows[n].e);
            n++;
        }
    }
    qsort(rows, (size_t)n, sizeof *rows, by_total);
    char args[256];
    igemm_problem_format(p, args, sizeof args);
    printf("estimates %s %s -F 2 on %s: %d v4r1 configurations, model cycles (the heuristic's, not the timing "
           "model's)\n",
           igemm_problem_command(p), args, igemm_handle_arch(h), n);
    printf("  %-58s %10s %10s %10s %10s %10s %10s %10s %10s %6s  %s\n", "configuration", "total", "issue", "l2", "hbm",
           "path", "zeros", "latency", "extra", "wg/CU", "bound");
    for (int i = 0; i < n; i++) {
        const v4r1_terms *e = &rows[i].e;
        printf("  %-58s %10.0f %10.0f %10.0f %10.0f %10.0f %10.0f %10.0f %10.0f %6d  %s%s\n", rows[i].s->name,
               e->total, e->issue, e->l2, e->hbm, e->path, e->zeros, e->latency, e->extra, e->occ, bound_by(e),
               strcmp(rows[i].s->name, chosen) ? "" : "  <- selected");
    }
    free(rows);
    return 0;
}

int cmd_plan(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        plan_help();
        return 0;
    }
    const igemm_dtype_desc *cmd = argc >= 2 ? igemm_dtype_by_command(argv[1]) : NULL;
    if (!cmd)
        return usage_error("plan: expected 'igemm plan conv|convfp16|convbfp16 PROBLEM --arch TARGET' (igemm plan "
                           "--help)");
    const char *arch = NULL, *solution = NULL;
    int json = 0, estimates = 0, pargc = 0;
    char **pargv = calloc((size_t)argc + 1, sizeof *pargv);
    if (!pargv)
        return usage_error("out of memory");
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = 1;
        else if (!strcmp(argv[i], "--estimates"))
            estimates = 1;
        else if (!strcmp(argv[i], "--arch") || !strcmp(argv[i], "--solution")) {
            if (i + 1 >= argc) {
                free(pargv);
                return usage_error("flag '%s' needs a value", argv[i]);
            }
            *(!strcmp(argv[i], "--arch") ? &arch : &solution) = argv[i + 1];
            i++;
        } else
            pargv[pargc++] = argv[i];
    }
    igemm_problem p;
    char why[512];
    int bad = igemm_problem_parse_args(&p, pargc, pargv, why, sizeof why);
    free(pargv);
    if (bad)
        return usage_error("%s", why);
    p.dtype = cmd->id;
    if (igemm_problem_check(&p, why, sizeof why) != IGEMM_OK)
        return usage_error("%s", why);
    if (!arch)
        return usage_error("plan: --arch is required (one of %s)", cli_library_targets());
    if (estimates && (json || solution))
        return usage_error("plan: --estimates lists every configuration as text (no --json, no --solution)");
    igemm_options o = igemm_options_init();
    o.backend = IGEMM_BACKEND_EMU; /* plans offline for the target */
    o.arch = arch;
    o.emu_threads = 1;
    igemm_handle *h;
    igemm_status st = igemm_create(&h, &o, why, sizeof why);
    if (st != IGEMM_OK)
        return st == IGEMM_ERR_UNSUPPORTED ? usage_error("%s", why) : (fprintf(stderr, "igemm: %s\n", why), 1);
    char chosen[96];
    int n = 0, rc = 0;
    if (estimates) {
        if ((st = igemm_select(h, &p, chosen, sizeof chosen)) != IGEMM_OK) {
            fprintf(stderr, "igemm: %s: %s\n", igemm_status_name(st), igemm_last_error(h));
            rc = st == IGEMM_ERR_INVALID_ARG || st == IGEMM_ERR_NOT_APPLICABLE ? 2 : 1;
        } else
            rc = print_estimates(h, &p, chosen);
        igemm_destroy(h);
        return rc;
    }
    igemm_launch *l = NULL;
    size_t ws = 0;
    if ((st = solution ? igemm_applicable(h, &p, solution, why, sizeof why) : IGEMM_OK) != IGEMM_OK ||
        (st = igemm_select(h, &p, chosen, sizeof chosen)) != IGEMM_OK ||
        (st = igemm_get_launches(h, &p, solution, NULL, 0, &n)) != IGEMM_OK || !(l = calloc((size_t)n, sizeof *l)) ||
        (st = igemm_get_launches(h, &p, solution, l, n, &n)) != IGEMM_OK ||
        (st = igemm_get_workspace_size(h, &p, solution, &ws)) != IGEMM_OK) {
        fprintf(stderr, "igemm: %s: %s\n", igemm_status_name(st), solution && why[0] ? why : igemm_last_error(h));
        rc = st == IGEMM_ERR_INVALID_ARG || st == IGEMM_ERR_NOT_APPLICABLE ? 2 : 1;
    } else
        print_plan(&p, igemm_handle_arch(h), solution ? solution : chosen, l, n, json, ws);
    free(l);
    igemm_destroy(h);
    return rc;
}
