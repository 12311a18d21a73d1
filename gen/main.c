/* igemmgen: writes the assembly of the igemm kernels for one GPU target.
 *
 *   igemmgen --arch gfx906 -o build/co/gfx906.s
 *       every dynamic kernel: naive reference, zero fill, every v4r1 tile
 *       configuration
 *   igemmgen --arch gfx906 --static "conv -n 2 -c 64 ... -F 2" [--config NAME] -o twin.s
 *       the static twin of one shape: the same v4r1 configuration (the
 *       heuristic's pick unless --config names one) with the shape's values
 *       baked in, one kernel per launch of the dynamic plan (every 16 phases)
 *       named <config>_static_p<i>, taking only the dx, dy, w pointers; plus
 *       the zero fill kernel
 *   igemmgen --list-targets
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../conv/ofile.h"
#include "../conv/select.h"
#include "../conv/solver.h"
#include "emit.h"
#include "kern.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: igemmgen --arch TARGET [-o FILE.s]\n"
            "       igemmgen --arch TARGET --static \"conv -n N -c C ... -F 2\" [--config NAME] [-o FILE.s]\n"
            "       igemmgen --list-targets\n"
            "Writes the assembly of every kernel for TARGET (%s), or the static twin of one shape.\n",
            target_names_generated());
}

/* The assembly into path (NULL: standard output) through a temporary
 * file, so a failed write leaves an older file as it was. */
static int write_file(const char *path, const char *text, size_t len)
{
    char why[1200];
    if (ofile_write_all(path, text, len, why, sizeof why)) {
        fprintf(stderr, "igemmgen: %s\n", why);
        return -1;
    }
    return 0;
}

static int dynamic_kernels(emit *e)
{
    kern_naive(e);
    kern_fill_zero(e);
    kern_fill_zero16(e);
    kern_ksum(e);
    kern_w_kyxc(e);
    for (int i = 0; i < v4r1_family_count(); i++) {
        const v4r1_config *c = v4r1_family_get(i);
        char name[128];
        if (!v4r1_config_runs_on(c, e->t))
            continue;
        v4r1_config_name(c, name, sizeof name);
        kern_v4r1(e, c, NULL, 0, name);
        /* the split solvers' kernel: the same tile walking one range of K
           per workgroup, storing fp32 partial sums */
        if (v4r1_config_splits(c)) {
            v4r1_config p = *c;
            p.ksplit = 1;
            v4r1_kernel_name(&p, name, sizeof name);
            kern_v4r1(e, &p, NULL, 0, name);
        }
    }
    return 0;
}

typedef struct {
    const igemm_shape *sh;
    const target *t;
} fit_ctx;

static int fits(void *ctx, const solver *s)
{
    fit_ctx *f = ctx;
    if (s->kind == SOLVER_V4R1 && ((const v4r1_config *)s->cfg)->ksplit)
        return 0; /* static twins exist for the unsplit configurations */
    return s->available(s, f->t) && s->applicable(s, f->sh, f->t, NULL, 0) == IGEMM_OK;
}

static int static_twin(emit *e, const char *conv, const char *config)
{
    igemm_problem p;
    igemm_shape sh;
    char why[256];
    if (igemm_problem_parse_line(&p, conv, why, sizeof why) != 1 || igemm_shape_init(&sh, &p, why, sizeof why)) {
        fprintf(stderr, "igemmgen: --static: %s\n", why[0] ? why : "expected \"conv -n ... -F 2\"");
        return 2;
    }
    fit_ctx fc = {&sh, e->t};
    heuristic_view v = {fits, NULL, &fc}; /* no code object yet: the configurations' register estimates */
    const solver *s = config ? solver_find(config) : select_heuristic(&sh, e->t, &v);
    if (!s || s->kind != SOLVER_V4R1) {
        fprintf(stderr, "igemmgen: --static: %s is not a v4r1 configuration\n", config ? config : "the heuristic's pick");
        return 2;
    }
    if (((const v4r1_config *)s->cfg)->ksplit) {
        fprintf(stderr, "igemmgen: --static: %s splits GEMM K; static twins exist for unsplit configurations only\n",
                s->name);
        return 2;
    }
    if (!fits(&fc, s)) {
        fprintf(stderr, "igemmgen: --static: %s does not apply to this shape\n", s->name);
        return 2;
    }
    /* one twin per GEMM launch of the dynamic plan, with that launch's
       arguments baked in (tools/bench.c pairs them by launch part) */
    launch_plan plan = {0};
    if (s->plan(s, &sh, e->t, &plan)) {
        plan_free(&plan);
        fprintf(stderr, "igemmgen: out of memory\n");
        return 1;
    }
    for (int i = 0; i < plan.n; i++)
        if (plan.l[i].ptr_add[ARG_DX]) {
            plan_free(&plan);
            fprintf(stderr, "igemmgen: --static: the shape needs several batch chunks; a static twin covers one launch\n");
            return 2;
        }
    if (p.dtype == IGEMM_FP32)
        kern_fill_zero(e);
    else
        kern_fill_zero16(e);
    if (((const v4r1_config *)s->cfg)->kyxc)
        kern_w_kyxc(e); /* the plan's filter copy runs before the twins */
    for (int i = 0; i < plan.n; i++) {
        const launch_desc *d = &plan.l[i];
        if (d->part < 0)
            continue; /* the zero fill */
        igemm_v4r1_args a;
        memcpy(&a, d->args, sizeof a);
        int nph = (int)(d->grid / a.wgs); /* v4r1_grid's inverse */
        char name[160];
        snprintf(name, sizeof name, "%s_static_p%d", s->name, d->part);
        kern_v4r1(e, s->cfg, &a, nph, name);
    }
    plan_free(&plan);
    return 0;
}

int main(int argc, char **argv)
{
    const char *arch = NULL, *out = NULL, *conv = NULL, *config = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--arch") && i + 1 < argc) {
            arch = argv[++i];
        } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            out = argv[++i];
        } else if (!strcmp(argv[i], "--static") && i + 1 < argc) {
            conv = argv[++i];
        } else if (!strcmp(argv[i], "--config") && i + 1 < argc) {
            config = argv[++i];
        } else if (!strcmp(argv[i], "--list-targets")) {
            for (int t = 0; t < igemm_target_count; t++)
                if (!igemm_targets[t]->emulate_only)
                    printf("%s\t%s\n", igemm_targets[t]->name, igemm_targets[t]->family);
            return 0;
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "igemmgen: unknown argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (!arch) {
        usage(stderr);
        return 2;
    }
    if (config && !conv) {
        fprintf(stderr, "igemmgen: --config only applies with --static\n");
        return 2;
    }
    const target *t = target_by_name(arch);
    if (!t || t->emulate_only) {
        fprintf(stderr, "igemmgen: %s target '%s' (kernels are generated for: %s)\n",
                t ? "emulate-only" : "unknown", arch, target_names_generated());
        return 2;
    }
    emit e;
    emit_init(&e, t);
    emit_begin_file(&e);
    int rc = conv ? static_twin(&e, conv, config) : dynamic_kernels(&e) ? 1 : 0;
    if (!rc && emit_finish(&e)) {
        fprintf(stderr, "igemmgen: %s\n", e.err);
        rc = 1;
    }
    if (!rc && write_file(out, e.buf, e.len))
        rc = 1;
    emit_free(&e);
    return rc;
}
