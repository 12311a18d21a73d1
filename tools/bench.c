/* igemm-bench: dynamic kernels against their static twins on the emulator.
 *
 *   igemm-bench --input SHAPES.txt [--batch N] [--arch gfx906] [-o REPORT.md]
 *               [--igemmgen PATH] [--llvm-bin DIR] [--threads N] [--density "conv ..."]
 *               [--co-dir DIR] [--launch-us US] [--type fp32|fp16|bf16] [--layout NCHW|NHWC]
 *               [--commit REV] [--lines]
 *
 * --igemmgen and --llvm-bin build the static twins; --threads: emulator worker threads
 * (0: one per CPU); --density: the layer of the density table; --co-dir:
 * DIR/<arch>.hsaco instead of the library's embedded code object (for the
 * selection, the runs and the density table alike); --launch-us: modeled
 * cost of one kernel launch (default 5); --type and --layout: every layer
 * (and the density layer) in that data type / layout instead of the list's;
 * --commit: the source revision the report's header says it measured (the
 * Makefile passes `git describe --always --dirty`).
 *
 * For every layer of the shape list (batch scaled to N, default 1): run the
 * configuration the library's heuristic picks, verify it against the
 * float64 reference, count its modeled issue cycles and its main-loop
 * VALU mix; generate the static twin of the same configuration for that
 * shape (igemmgen --static), assemble it, run the same launches, verify
 * and count. Writes a Markdown report with one row per layer and a table of
 * every configuration's main-loop math density. Progress goes to stderr;
 * stdout gets one "summary arch=... type=... layout=... issue=R
 * issue_worst=R modeled=R modeled_worst=R verified=N/M" line with the
 * report's dyn/static ratios (type and layout of the first layer), for
 * tools/bench_twins.sh.
 * Exit status 1 when any run fails verification or faults. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../emu/emu.h"
#include "../runtime/codeobj.h"
#include "../include/igemm.h"
#include "../arch/kargs.h"
#include "../arch/mfma.h"
#include "../arch/target.h"
#include "../conv/ofile.h"
#include "../conv/problem.h"
#include "../conv/solver.h"
#include "../conv/types.h"
#include "../conv/util.h"

#ifndef LLVM_BIN
#define LLVM_BIN "/usr/lib/llvm-19/bin"
#endif

typedef struct {
    const char *input, *arch, *out, *igemmgen, *llvm_bin, *density, *co_dir;
    const char *commit;   /* the source revision the report says it measured (--commit) */
    int batch, threads;
    double launch_us;     /* modeled cost of one kernel launch */
    const void *co;       /* the project's code object for arch: embedded, or read from co_dir */
    size_t co_size;
    int dtype, layout;    /* igemm_dtype / igemm_layout every problem gets; -1: the list's */
    bool lines;           /* only the line-efficiency table of the library's picks */
} opts;

/* The problem as benchmarked: the list's, in --type / --layout when given. */
static void apply_overrides(const opts *o, igemm_problem *p)
{
    if (o->dtype >= 0)
        p->dtype = (igemm_dtype)o->dtype;
    if (o->layout >= 0)
        p->layout = (igemm_layout)o->layout;
}

typedef struct {
    igemm_problem p;
    const char *comment; /* the text after '#' on its line of the shape list */
    char solution[96];
    int launches;
    double flops;
    uint64_t dyn_cycles, st_cycles, loop_valu, loop_fma;
    double us_run, us_split; /* modeled time: as run (multihead), one launch per phase */
    uint64_t tm_dyn, tm_st;  /* the timing model's cycles (docs/TIMING.md), 0: not timed */
    const char *limit;       /* its limiting resource for the dynamic kernels */
    int phases;
    double dyn_err, st_err;
    int ok;
    uint64_t line_ld, line_st, use_ld, use_st; /* --lines: plan_run's memory figures */
    uint64_t lds_cyc, lds_ideal;               /* --lines: LDS pipe cycles, and without bank conflicts */
} row;

static void *tensor_alloc(size_t bytes);

/* Build the static twin code object of (problem, solution). */
static void *build_twin(const opts *o, const igemm_problem *p, const char *solution, size_t *size)
{
    char dir[] = "/tmp/igemm-bench-XXXXXX", args[256], cmd[2048];
    if (!mkdtemp(dir))
        return NULL;
    igemm_problem_format(p, args, sizeof args);
    snprintf(cmd, sizeof cmd,
             "%s --arch %s --static \"%s %s -F 2\" --config %s -o %s/t.s && "
             "%s/llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=%s -filetype=obj %s/t.s -o %s/t.o && "
             "%s/ld.lld -shared %s/t.o -o %s/t.hsaco",
             o->igemmgen, o->arch, igemm_problem_command(p), args, solution, dir, o->llvm_bin, o->arch, dir, dir, o->llvm_bin, dir, dir);
    void *img = NULL;
    if (!system(cmd)) {
        char path[300];
        snprintf(path, sizeof path, "%s/t.hsaco", dir);
        img = read_file(path, size);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) {
        /* a leftover temporary directory is harmless */
    }
    return img;
}

typedef struct {
    uint64_t cycles;          /* modeled issue cycles, all launches */
    uint64_t loop_valu, loop_fma;
    uint64_t fill_span;       /* makespan of the zero fill (0 when none) */
    uint64_t phase_spans;     /* sum of the phase launches' makespans */
    uint64_t merged_span;     /* the phase launches scheduled as one */
    int phase_launches, launches;
    uint64_t model_cycles, model_busy[EL_LATENCY]; /* the timing model, all launches */
    bool model_failed;        /* a launch was not timed */
    /* the timing model's memory figures (docs/TIMING.md "Caches"): bytes of
       the cache lines VMEM instructions touch, and the bytes they ask for */
    uint64_t line_ld, line_st, use_ld, use_st;
    uint64_t lds_cyc, lds_ideal; /* LDS pipe cycles under the bank model, and conflict-free */
} plan_run;

/* Run a solver's launch plan on the emulator with the kernels of img: the
 * dynamic kernels as planned, or (twin) each phase's static twin. */
static int run_plan(const opts *o, const igemm_problem *p, const solver *s, const void *img, size_t size, bool twin,
                    bool split, void *dx, const void *dy, const void *w, plan_run *out)
{
    igemm_shape sh;
    igemm_shape_init(&sh, p, NULL, 0);
    const target *t = target_by_name(o->arch);
    emu_options eo = {.threads = o->threads, .timing = true};
    emu_device *d = emu_create(t, &eo);
    emu_module *m = NULL, *dyn = NULL;
    char err[1024];
    int rc = -1;
    launch_plan plan = {0};
    void *ws = NULL;
    memset(out, 0, sizeof *out);
    if (!d || emu_load(d, img, size, &m, err, sizeof err)) {
        fprintf(stderr, "igemm-bench: %s\n", d ? err : "no emulator");
        goto out;
    }
    /* a twin's module holds its GEMM kernels (and the zero fill); the plan's
       other launches, where it has any (no fixup since fx23), come from the
       library's code object, as they do for the dynamic kernel */
    if (twin && emu_load(d, o->co, o->co_size, &dyn, err, sizeof err)) {
        fprintf(stderr, "igemm-bench: %s\n", err);
        goto out;
    }
    if (s->plan(s, &sh, t, &plan))
        goto out;
    size_t eb = (size_t)igemm_dtype_get(p->dtype)->bytes;
    emu_register(d, dx, (size_t)sh.dx_elems * eb);
    emu_register(d, dy, (size_t)sh.dy_elems * eb);
    emu_register(d, w, (size_t)sh.w_elems * eb);
    /* the workspace of a split along GEMM K */
    if (plan.ws_bytes && (!(ws = tensor_alloc((size_t)plan.ws_bytes)) || emu_register(d, ws, (size_t)plan.ws_bytes)))
        goto out;
    if (split) {
        /* the alternative to multihead launches: one launch per phase */
        launch_plan one = {0};
        for (int i = 0; i < plan.n; i++) {
            launch_desc *l = &plan.l[i];
            igemm_v4r1_args a;
            if (l->part < 0 || s->kind != SOLVER_V4R1) {
                launch_desc *c = plan_add(&one);
                if (!c)
                    goto out;
                *c = *l;
                continue;
            }
            memcpy(&a, l->args, sizeof a);
            for (unsigned ph = 0; ph < l->grid / a.wgs; ph++) {
                launch_desc *c = plan_add(&one);
                if (!c)
                    goto out;
                *c = *l;
                igemm_v4r1_args b = a;
                memcpy(b.ph[0], a.ph[ph], sizeof b.ph[0]);
                memcpy(c->args, &b, sizeof b);
                c->grid = a.wgs;
            }
        }
        plan_free(&plan);
        plan = one;
    }
    emu_schedule_reset(d);
    rc = 0;
    for (int i = 0; i < plan.n && !rc; i++) {
        launch_desc *l = &plan.l[i];
        char name[200];
        plan_bind(l, (void *const[ARG_COUNT]){dx, (void *)dy, (void *)w, ws});
        const void *args = l->args;
        size_t nargs = l->args_size;
        igemm_static_args a;
        snprintf(name, sizeof name, "%s", l->kernel);
        if (twin && l->part >= 0) { /* the twin takes only the three pointers */
            memcpy(&a.p_dx, l->args + l->ptr_off[ARG_DX], 8);
            memcpy(&a.p_dy, l->args + l->ptr_off[ARG_DY], 8);
            /* a _kyxc plan's GEMMs read the filter's copy in the workspace */
            memcpy(&a.p_w, l->args + (l->ptr_off[ARG_W] >= 0 ? l->ptr_off[ARG_W] : l->ptr_off[ARG_WS]), 8);
            snprintf(name, sizeof name, "%s_static_p%d", s->name, l->part);
            args = &a;
            nargs = sizeof a;
        }
        const emu_kernel *k = emu_find_kernel(m, name);
        if (!k && dyn && l->part < 0)
            k = emu_find_kernel(dyn, name);
        unsigned grid[3] = {l->grid, 1, 1}, block[3] = {l->block, 1, 1};
        emu_stats st = {0};
        if (l->part < 0)
            emu_schedule_reset(d); /* the zero fill stays a launch of its own */
        if (!k || emu_launch(d, k, grid, block, args, nargs, &st, err, sizeof err)) {
            fprintf(stderr, "igemm-bench: %s: %s\n", name, k ? err : "kernel missing");
            rc = -1;
            break;
        }
        if (l->part < 0) {
            out->fill_span += st.makespan;
            emu_schedule_reset(d);
        } else {
            out->phase_spans += st.makespan;
            out->phase_launches++;
        }
        out->launches++;
        out->model_cycles += st.model_cycles;
        for (int j = 0; j < EL_LATENCY; j++)
            out->model_busy[j] += st.model_busy[j];
        out->model_failed |= st.model_failed || !st.model_launches;
        out->line_ld += st.model_line_loaded;
        out->line_st += st.model_line_stored;
        out->use_ld += st.model_useful_loaded;
        out->use_st += st.model_useful_stored;
        out->lds_cyc += st.model_lds_cycles;
        out->lds_ideal += st.model_lds_ideal;
        out->cycles += emu_stats_cycles(&st);
        out->loop_valu += st.loop_valu_cycles;
        out->loop_fma += st.loop_fma_cycles;
    }
    out->merged_span = emu_schedule_makespan(d);
    emu_unregister(d, dx);
    emu_unregister(d, dy);
    emu_unregister(d, w);
    if (ws)
        emu_unregister(d, ws);
out:
    free(ws);
    plan_free(&plan);
    emu_module_free(m);
    emu_module_free(dyn);
    emu_destroy(d);
    return rc;
}

/* A tensor's host buffer, 4 KiB aligned as device allocations are (the
 * timing model counts the cache lines an access touches, which depend on
 * where the tensor starts; malloc's large blocks start 16 bytes into a page). */
static void *tensor_alloc(size_t bytes)
{
    size_t page = 4096;
    return aligned_alloc(page, (bytes + page - 1) / page * page);
}

static int bench_layer(const opts *o, igemm_handle *h, row *r)
{
    igemm_shape sh;
    char why[512];
    if (igemm_shape_init(&sh, &r->p, why, sizeof why) != IGEMM_OK) {
        fprintf(stderr, "igemm-bench: %s\n", why);
        return -1;
    }
    size_t nx = (size_t)sh.dx_elems, ny = (size_t)sh.dy_elems, nw = (size_t)sh.w_elems;
    size_t eb = (size_t)igemm_dtype_get(r->p.dtype)->bytes;
    void *dy = tensor_alloc(ny * eb), *w = tensor_alloc(nw * eb), *dx = tensor_alloc(nx * eb);
    double *ref = malloc(nx * 8), *abs_sum = malloc(nx * 8);
    unsigned char *cov = malloc(nx);
    int rc = -1;
    if (!dy || !w || !dx || !ref || !abs_sum || !cov)
        goto out;
    igemm_fill_random_dtype(dy, ny, r->p.dtype, 1);
    igemm_fill_random_dtype(w, nw, r->p.dtype, 2);
    if (igemm_reference_bwd_data_ex(&r->p, dy, w, ref, abs_sum, cov) != IGEMM_OK)
        goto out;
    r->flops = (double)sh.flops;

    /* dynamic: the library's pick, run on the project's code object */
    char sol[96];
    if (igemm_select(h, &r->p, sol, sizeof sol) != IGEMM_OK) {
        fprintf(stderr, "igemm-bench: %s\n", igemm_last_error(h));
        goto out;
    }
    const solver *s = solver_find(sol);
    memset(dx, 0xff, nx * eb); /* NaN in every type: an element the kernel leaves fails */
    plan_run dyn, st;
    if (!s || run_plan(o, &r->p, s, o->co, o->co_size, false, false, dx, dy, w, &dyn))
        goto out;
    igemm_verify_result vr;
    int ok_dyn = igemm_verify_ex(&r->p, dx, ref, abs_sum, cov, 1e-5, &vr);
    snprintf(r->solution, sizeof r->solution, "%s", sol);
    r->launches = dyn.launches;
    r->dyn_cycles = dyn.cycles;
    r->loop_valu = dyn.loop_valu;
    r->loop_fma = dyn.loop_fma;
    r->dyn_err = vr.max_rel_err;
    r->tm_dyn = dyn.model_failed ? 0 : dyn.model_cycles;
    r->limit = r->tm_dyn ? emu_limit_names[emu_model_limit(dyn.model_cycles, dyn.model_busy)] : "-";
    double clk = target_by_name(o->arch)->clock_ghz * 1e3; /* cycles per microsecond */
    r->us_run = ((double)(dyn.fill_span + dyn.phase_spans)) / clk + o->launch_us * dyn.launches;
    r->us_split = r->us_run;
    {
        /* the same kernels launched phase by phase: what multihead saves */
        plan_run sp;
        int phases[1024];
        r->phases = s->kind == SOLVER_V4R1 ? v4r1_launch_phases(s->cfg, &sh, phases, 1024) : 1;
        if (r->phases > 1 && !run_plan(o, &r->p, s, o->co, o->co_size, false, true, dx, dy, w, &sp))
            r->us_split = ((double)(sp.fill_span + sp.phase_spans)) / clk + o->launch_us * sp.launches;
    }

    /* static twin of the same configuration */
    int ok_st = 0;
    if (s->kind == SOLVER_V4R1 && ((const v4r1_config *)s->cfg)->ksplit)
        ok_st = 1; /* a split along GEMM K has no static twin (igemmgen --static refuses it): its row's
                      twin columns are 0, and the dyn/static totals leave it out */
    else if (s->kind == SOLVER_V4R1) {
        size_t size;
        void *img = build_twin(o, &r->p, s->name, &size);
        if (!img) {
            fprintf(stderr, "igemm-bench: cannot build the static twin\n");
            goto out;
        }
        memset(dx, 0xff, nx * eb);
        if (!run_plan(o, &r->p, s, img, size, true, false, dx, dy, w, &st)) {
            r->st_cycles = st.cycles;
            r->tm_st = st.model_failed ? 0 : st.model_cycles;
            ok_st = igemm_verify_ex(&r->p, dx, ref, abs_sum, cov, 1e-5, &vr);
            r->st_err = vr.max_rel_err;
        }
        free(img);
    }
    r->ok = ok_dyn && ok_st;
    rc = r->ok ? 0 : -1;
out:
    free(dy);
    free(w);
    free(dx);
    free(ref);
    free(abs_sum);
    free(cov);
    return rc;
}

/* --lines: the library's pick's plan on random data, run once with the
 * timing model for its memory figures (no reference, no twin). */
static int lines_layer(const opts *o, igemm_handle *h, row *r)
{
    igemm_shape sh;
    char why[512], sol[96];
    if (igemm_shape_init(&sh, &r->p, why, sizeof why) != IGEMM_OK || igemm_select(h, &r->p, sol, sizeof sol)) {
        fprintf(stderr, "igemm-bench: %s\n", igemm_shape_init(&sh, &r->p, why, sizeof why) ? why : igemm_last_error(h));
        return -1;
    }
    size_t eb = (size_t)igemm_dtype_get(r->p.dtype)->bytes;
    void *dy = tensor_alloc((size_t)sh.dy_elems * eb), *w = tensor_alloc((size_t)sh.w_elems * eb),
         *dx = tensor_alloc((size_t)sh.dx_elems * eb);
    const solver *s = solver_find(sol);
    plan_run run;
    int rc = -1;
    if (dy && w && dx && s) {
        igemm_fill_random_dtype(dy, (size_t)sh.dy_elems, r->p.dtype, 1);
        igemm_fill_random_dtype(w, (size_t)sh.w_elems, r->p.dtype, 2);
        rc = run_plan(o, &r->p, s, o->co, o->co_size, false, false, dx, dy, w, &run);
    }
    if (!rc) {
        snprintf(r->solution, sizeof r->solution, "%s", sol);
        r->launches = run.launches;
        r->line_ld = run.line_ld, r->line_st = run.line_st, r->use_ld = run.use_ld, r->use_st = run.use_st;
        r->lds_cyc = run.lds_cyc, r->lds_ideal = run.lds_ideal;
        r->ok = !run.model_failed;
    }
    free(dy);
    free(w);
    free(dx);
    return rc || !r->ok ? -1 : 0;
}

static double line_ratio(uint64_t lines, uint64_t useful) { return useful ? (double)lines / (double)useful : 0; }

/* --lines: cache-line bytes per useful byte of every layer's loads (w and
 * dy) and stores (dx), and the LDS pipe's cycles over its conflict-free
 * cycles (the timing model's bank model: 1.00, no bank conflict). */
static void lines_table(FILE *f, const opts *o, const row *rows, int n)
{
    fprintf(f, "| layer | configuration | launches | loads: lines / useful | stores: lines / useful | LDS: cycles / "
               "conflict-free |\n"
               "|---|---|---:|---:|---:|---:|\n");
    uint64_t t[6] = {0};
    for (int i = 0; i < n; i++) {
        const row *r = &rows[i];
        char args[256];
        igemm_problem_format(&r->p, args, sizeof args);
        fprintf(f, "| `%s`%s%s | %s | %d | %.2f | %.2f | %.2f |\n", args, r->comment[0] ? " " : "", r->comment,
                r->solution + (strncmp(r->solution, "igemm_bwd_", 10) ? 0 : 10), r->launches,
                line_ratio(r->line_ld, r->use_ld), line_ratio(r->line_st, r->use_st),
                r->lds_ideal ? line_ratio(r->lds_cyc, r->lds_ideal) : 1.0);
        t[0] += r->line_ld, t[1] += r->use_ld, t[2] += r->line_st, t[3] += r->use_st;
        t[4] += r->lds_cyc, t[5] += r->lds_ideal;
    }
    fprintf(f, "\nAll layers (%s): loads %.2f, stores %.2f line bytes per useful byte; LDS %.2fx its conflict-free "
               "cycles.\n",
            o->arch, line_ratio(t[0], t[1]), line_ratio(t[2], t[3]), t[5] ? line_ratio(t[4], t[5]) : 1.0);
}

/* What "of peak" divides by for a layer of data type d on t: the dense
 * matrix peak of d's MFMA type (igemm arch --peak), the FP32 vector peak
 * where t has no such MFMA. */
static double layer_peak(const target *t, igemm_dtype d)
{
    double mp = mfma_peak_tflops(t, igemm_dtype_get(d)->mfma);
    return mp > 0 ? mp : t->tm.valu_flops_f32 * (double)t->num_cu * t->clock_ghz / 1e3;
}

/* The timing model's figures per layer (docs/TIMING.md); *all and *worst
 * receive the modeled dyn/static ratio of all layers and of the worst one. */
static void timing_table(FILE *f, const opts *o, const row *rows, int n, double *all, double *worst)
{
    const target *t = target_by_name(o->arch);
    double clk = t->clock_ghz * 1e3;
    fprintf(f, "\n## Modeled time (timing model)\n\n"
               "The timing model of docs/TIMING.md: per-CU pipelines, occupancy, latencies, LDS/L2/HBM\n"
               "bandwidth, on the %s reference product (%d CUs at %.3g GHz; *of peak*: share of the dense\n"
               "matrix peak of the layer's data type, `igemm arch --peak TYPE`: %.1f TFLOP/s for %s; the FP32\n"
               "vector peak where the target has no MFMA of the type).\n"
               "Modeled, not measured: no AMD GPU ran these. *modeled us* covers every launch of the plan\n"
               "one after another (zero fill and reduction included), each with the model's dispatch\n"
               "cost (%.1f us a launch); *limit* is the resource\n"
               "busy longest (latency when none is busy half the time); *dyn/static* divides the modeled\n"
               "times of the dynamic kernel and its static twin. Rows are in the shape list's order;\n"
               "*issue-cycle us* repeats the multihead column above (the schedule model of issue cycles).\n"
               "The comparison with MIOpen's gfx906 v4r1 kernel, layer by layer at batch 32, is in\n"
               "docs/MIOPEN.md (`make compare-miopen`).\n\n"
               "| layer | modeled us | TFLOP/s | of peak | limit | static twin us | dyn/static | issue-cycle us |\n"
               "|---|---:|---:|---:|---|---:|---:|---:|\n",
            t->name, t->num_cu, t->clock_ghz, layer_peak(t, n ? rows[0].p.dtype : IGEMM_FP32),
            igemm_dtype_get(n ? rows[0].p.dtype : IGEMM_FP32)->name, t->tm.launch_us);
    double sum = 0, sum_st = 0, sum_twinned = 0, flops = 0; /* sum_twinned: the layers with a twin */
    *worst = 0;
    for (int i = 0; i < n; i++) {
        const row *r = &rows[i];
        char args[256];
        igemm_problem_format(&r->p, args, sizeof args);
        double us = (double)r->tm_dyn / clk, us_st = (double)r->tm_st / clk;
        double tf = us > 0 ? r->flops / us / 1e6 : 0;
        sum += us;
        sum_st += us_st;
        sum_twinned += us_st > 0 ? us : 0;
        flops += r->flops;
        if (us_st > 0 && us / us_st > *worst)
            *worst = us / us_st;
        fprintf(f, "| `%s`%s%s | %.2f | %.3f | %.1f%% | %s | %.2f | %.3f | %.1f |\n", args, r->comment[0] ? " " : "",
                r->comment, us, tf, 100 * tf / layer_peak(t, r->p.dtype), r->limit, us_st, us_st > 0 ? us / us_st : 0,
                r->us_run);
    }
    fprintf(f, "\nAll layers: %.1f us modeled (%.3f TFLOP/s), static twins %.1f us; dyn/static %.4f overall, "
               "worst layer %.4f.\n",
            sum, sum > 0 ? flops / sum / 1e6 : 0, sum_st, sum_st > 0 ? sum_twinned / sum_st : 0, *worst);
    *all = sum_st > 0 ? sum_twinned / sum_st : 0;
}

/* Main-loop math density of every configuration on one layer. */
static void density_table(FILE *f, igemm_handle *h, const igemm_problem *p)
{
    igemm_shape sh;
    igemm_shape_init(&sh, p, NULL, 0);
    size_t nx = (size_t)sh.dx_elems, ny = (size_t)sh.dy_elems, nw = (size_t)sh.w_elems;
    float *dy = calloc(ny, 4), *w = calloc(nw, 4), *dx = calloc(nx, 4); /* 4 bytes hold any type */
    if (!dy || !w || !dx)
        goto out;
    char args[256];
    igemm_problem_format(p, args, sizeof args);
    fprintf(f, "\n## Main-loop math density per configuration\n\n"
               "Measured on `%s` (every configuration runs it; the loop is the region between the\n"
               "`__kloop_begin_`/`__kloop_end_` markers the generator emits). Density = v_fmac issue\n"
               "cycles / all VALU issue cycles inside the loop; cycles/FLOP over the whole launch.\n\n"
               "| configuration | loop math density | cycles/FLOP |\n|---|---:|---:|\n",
            args);
    for (int i = 0; i < igemm_solution_count(); i++) {
        const char *name = igemm_solution_name(i);
        igemm_run_info ri;
        if (strncmp(name, "igemm_bwd_v4r1", 14) ||
            igemm_conv_bwd_data_ex(h, p, name, dx, dy, w, &ri) != IGEMM_OK)
            continue;
        fprintf(f, "| %s | %.3f | %.4f |\n", name,
                ri.loop_valu_cycles ? (double)ri.loop_fma_cycles / (double)ri.loop_valu_cycles : 0.0,
                (double)ri.cycles / (double)sh.flops);
        fprintf(stderr, "density %s\n", name);
    }
out:
    free(dy);
    free(w);
    free(dx);
}

static int bad_number(const char *flag, const char *v)
{
    fprintf(stderr, "igemm-bench: flag '%s' needs a number in range, got '%s'\n", flag, v);
    return 2;
}

/* The flags into *o: 0, or the exit status (2) after a message. */
static int parse_opts(int argc, char **argv, opts *o)
{
    long num;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--lines")) { /* the one flag without a value */
            o->lines = true;
            continue;
        }
        if (!v) {
            fprintf(stderr, "igemm-bench: flag '%s' needs a value\n", a);
            return 2;
        }
        i++;
        if (!strcmp(a, "--input"))
            o->input = v;
        else if (!strcmp(a, "--arch"))
            o->arch = v;
        else if (!strcmp(a, "-o"))
            o->out = v;
        else if (!strcmp(a, "--igemmgen"))
            o->igemmgen = v;
        else if (!strcmp(a, "--llvm-bin"))
            o->llvm_bin = v;
        else if (!strcmp(a, "--batch")) {
            if (parse_long(v, 1, 1 << 24, &num))
                return bad_number(a, v);
            o->batch = (int)num;
        }
        else if (!strcmp(a, "--co-dir"))
            o->co_dir = v;
        else if (!strcmp(a, "--commit"))
            o->commit = v;
        else if (!strcmp(a, "--launch-us")) {
            char *end;
            o->launch_us = strtod(v, &end);
            if (!*v || *end || !(o->launch_us >= 0 && o->launch_us < 1e6))
                return bad_number(a, v);
        }
        else if (!strcmp(a, "--density"))
            o->density = v;
        else if (!strcmp(a, "--type")) {
            const igemm_dtype_desc *d = igemm_dtype_by_name(v);
            if (!d) {
                fprintf(stderr, "igemm-bench: --type: unknown data type '%s' (fp32, fp16, bf16)\n", v);
                return 2;
            }
            o->dtype = (int)d->id;
        } else if (!strcmp(a, "--layout")) {
            const igemm_layout_desc *l = igemm_layout_by_upper(v);
            if (!l) {
                fprintf(stderr, "igemm-bench: --layout: unknown layout '%s' (NCHW, NHWC)\n", v);
                return 2;
            }
            o->layout = (int)l->id;
        }
        else if (!strcmp(a, "--threads")) {
            if (parse_long(v, 0, 1024, &num))
                return bad_number(a, v);
            o->threads = (int)num;
        }
        else {
            fprintf(stderr, "igemm-bench: unknown flag '%s'\n", a);
            return 2;
        }
    }
    return 0;
}

/* The report's title, how to read it and the table's header. */
static void report_head(FILE *f, const opts *o)
{
    fprintf(f, "# Performance on the emulator: %s, %s, batch %d%s%s%s%s\n\n", o->arch, o->input, o->batch,
            o->dtype >= 0 ? ", " : "", o->dtype >= 0 ? igemm_dtype_get((igemm_dtype)o->dtype)->name : "",
            o->layout >= 0 ? ", " : "", o->layout >= 0 ? igemm_layout_get((igemm_layout)o->layout)->upper : "");
    fprintf(f, "Generated by `make bench` (tools/bench.c) at commit %s. Every row ran on the emulator in\n"
               "strict mode and was verified against the float64 reference (dynamic and static both).\n\n"
               "**Cost model** (docs/EMULATOR.md): the modeled issue cycles of a launch are the sum over all\n"
               "wave instructions of: VALU 4 cycles (wave64 on a 16-lane SIMD; quarter-rate ops such as\n"
               "v_mul_lo_u32 and transcendentals 16, 64-bit ops 8), SALU/SMEM/branch/s_waitcnt 1,\n"
               "s_nop N N+1, VMEM 4 per dword per lane, LDS bytes/128 per wave (at least 2), MFMA 4 per pass.\n"
               "A v_fmac_f32 does 128 FLOPs in 4 cycles, so **0.03125 cycles/FLOP is the FMA bound**.\n\n"
               "- *cycles/FLOP*: modeled issue cycles of all launches (zero fill included) / useful FLOPs\n"
               "  (2 * N * C/G * K * Ho * Wo * Y * X).\n"
               "- *dyn/static*: cycles of the dynamic kernel / cycles of its static twin (same configuration,\n"
               "  the shape's values baked in by `igemmgen --static`: no argument loads for sizes, divisions\n"
               "  by constants). Goal <= 1.03.\n"
               "- *loop density*: share of VALU issue cycles inside the main loop that are v_fmac.\n"
               "- *modeled us*: the emulator's schedule model (docs/EMULATOR.md): each launch's workgroups\n"
               "  placed on the target's %d CUs (least-loaded CU, least-loaded of its 4 SIMDs; a SIMD's time\n"
               "  is the sum of its waves' issue cycles), the busiest SIMD's time at %.3g GHz, plus %.1f us\n"
               "  per launch. *multihead* is the plan as run: one launch for every phase; *per phase* runs\n"
               "  the same kernel once per phase (the alternative; same as multihead for one phase).\n\n",
            o->commit, target_by_name(o->arch)->num_cu, target_by_name(o->arch)->clock_ghz, o->launch_us);
    fprintf(f, "| layer | configuration | launches | cycles/FLOP | dyn/static | loop density | modeled us: multihead | per phase | max rel err |\n"
               "|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
}

/* One table row per layer, then the totals: *worst the worst dyn/static
 * ratio, *dyn and *st the cycles of the layers with a static twin (all
 * but splits along GEMM K), dynamic and static. */
static void report_rows(FILE *f, const row *rows, int n, double *worst, double *dyn, double *st)
{
    double worst_ratio = 0, sum_dyn = 0, sum_twinned = 0, sum_st = 0, sum_flops = 0, us_ph = 0, us_mg = 0, us_ph_multi = 0,
           us_mg_multi = 0;
    for (int i = 0; i < n; i++) {
        const row *r = &rows[i];
        char args[256];
        igemm_problem_format(&r->p, args, sizeof args);
        double ratio = r->st_cycles ? (double)r->dyn_cycles / (double)r->st_cycles : 0;
        if (ratio > worst_ratio)
            worst_ratio = ratio;
        sum_dyn += (double)r->dyn_cycles;
        sum_twinned += r->st_cycles ? (double)r->dyn_cycles : 0; /* dyn/static over the layers with a twin */
        sum_st += (double)r->st_cycles;
        sum_flops += r->flops;
        us_ph += r->us_run;
        us_mg += r->us_split;
        if (r->phases > 1) {
            us_ph_multi += r->us_run;
            us_mg_multi += r->us_split;
        }
        fprintf(f, "| `%s`%s%s | %s | %d | %.4f | %.4f | %.3f | %.1f | %.1f | %.1e%s |\n", args,
                r->comment[0] ? " " : "", r->comment, r->solution + (strncmp(r->solution, "igemm_bwd_", 10) ? 0 : 10),
                r->launches, (double)r->dyn_cycles / r->flops, ratio,
                r->loop_valu ? (double)r->loop_fma / (double)r->loop_valu : 0.0, r->us_run, r->us_split,
                r->dyn_err, r->ok ? "" : " FAIL");
    }
    fprintf(f, "\nAll layers: %.4f cycles/FLOP dynamic, %.4f static; dyn/static %.4f overall, worst layer %.4f.\n",
            sum_dyn / sum_flops, sum_st / sum_flops, sum_st > 0 ? sum_twinned / sum_st : 0, worst_ratio);
    fprintf(f, "Modeled time of all layers: %.1f us multihead, %.1f us with one launch per phase "
               "(layers with several phases: %.1f us vs %.1f us).\n",
            us_ph, us_mg, us_ph_multi, us_mg_multi);
    *worst = worst_ratio;
    *dyn = sum_twinned;
    *st = sum_st;
}

int main(int argc, char **argv)
{
    opts o = {.arch = TARGET_DEFAULT->name,
              .batch = 1,
              .igemmgen = "build/bin/igemmgen",
              .llvm_bin = LLVM_BIN,
              .density = "conv -n 1 -c 256 -H 14 -W 14 -k 256 -y 3 -x 3 -p 1 -q 1 -F 2",
              .launch_us = 5.0,
              .commit = "(not given: --commit)",
              .dtype = -1,
              .layout = -1};
    int prc = parse_opts(argc, argv, &o);
    if (prc)
        return prc;
    if (!o.input || o.batch < 1 || !target_by_name(o.arch)) {
        fprintf(stderr, "usage: igemm-bench --input SHAPES.txt [--batch N] [--arch TARGET] [-o REPORT.md]\n"
                        "                   [--igemmgen PATH] [--llvm-bin DIR] [--threads N] [--density \"conv ...\"]\n"
                        "                   [--co-dir DIR] [--launch-us US] [--type fp32|fp16|bf16] [--layout NCHW|NHWC]\n"
                        "                   [--commit REV] [--lines]\n");
        return 2;
    }
    /* one code object for the runs here and the handle's selection and density runs */
    void *co_file = NULL;
    char **comments = NULL, why[512];
    int n = 0, rc = 2, failed = 0;
    row *rows = NULL;
    igemm_handle *h = NULL;
    FILE *f = NULL;
    ofile of = {0};
    if (o.co_dir) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.hsaco", o.co_dir, o.arch);
        o.co = co_file = read_file(path, &o.co_size);
        if (!o.co) {
            fprintf(stderr, "igemm-bench: cannot read %s\n", path);
            goto done;
        }
    } else {
        const igemm_codeobj *co = igemm_codeobj_find(o.arch);
        if (!co) {
            fprintf(stderr, "igemm-bench: no embedded code object for %s\n", o.arch);
            goto done;
        }
        o.co = co->data;
        o.co_size = co->size;
    }
    igemm_problem *probs;
    if (igemm_problem_read_list(o.input, o.batch, &probs, &n, &comments, NULL, NULL, why, sizeof why) != IGEMM_OK) {
        fprintf(stderr, "igemm-bench: %s\n", why);
        goto done;
    }
    rc = 1;
    if (!(rows = calloc((size_t)n, sizeof *rows))) {
        free(probs);
        fprintf(stderr, "igemm-bench: out of memory\n");
        goto done;
    }
    for (int i = 0; i < n; i++) {
        rows[i].p = probs[i];
        apply_overrides(&o, &rows[i].p);
        rows[i].comment = comments[i];
    }
    free(probs);

    igemm_options opt = IGEMM_OPTIONS_INIT;
    opt.backend = IGEMM_BACKEND_EMU;
    opt.arch = o.arch;
    opt.codeobj_dir = o.co_dir;
    opt.emu_threads = o.threads;
    if (igemm_create(&h, &opt, why, sizeof why) != IGEMM_OK) {
        fprintf(stderr, "igemm-bench: %s\n", why);
        goto done;
    }
    for (int i = 0; i < n; i++) {
        char args[256];
        igemm_problem_format(&rows[i].p, args, sizeof args);
        fprintf(stderr, "[%d/%d] %s %s\n", i + 1, n, igemm_problem_command(&rows[i].p), args);
        if (o.lines ? lines_layer(&o, h, &rows[i]) : bench_layer(&o, h, &rows[i]))
            failed++;
    }
    if (o.lines) {
        if (ofile_open(&of, o.out, why, sizeof why)) {
            fprintf(stderr, "igemm-bench: %s\n", why);
            goto done;
        }
        lines_table(of.f, &o, rows, n);
        if (ofile_commit(&of, why, sizeof why))
            fprintf(stderr, "igemm-bench: %s\n", why);
        rc = failed ? 1 : 0;
        goto done;
    }

    /* through a temporary file: a failed write leaves the old report */
    if (ofile_open(&of, o.out, why, sizeof why)) {
        fprintf(stderr, "igemm-bench: %s\n", why);
        goto done;
    }
    f = of.f;
    report_head(f, &o);
    double worst_ratio, sum_dyn, sum_st;
    report_rows(f, rows, n, &worst_ratio, &sum_dyn, &sum_st);
    double tm_all, tm_worst;
    timing_table(f, &o, rows, n, &tm_all, &tm_worst);
    {
        /* every configuration's loop on one mid-sized layer with a long K loop */
        igemm_problem dp;
        char dwhy[256];
        if (igemm_problem_parse_line(&dp, o.density, dwhy, sizeof dwhy) == 1) {
            apply_overrides(&o, &dp);
            density_table(f, h, &dp);
        }
        else
            fprintf(stderr, "igemm-bench: --density: %s\n", dwhy);
    }
    if (ofile_commit(&of, why, sizeof why)) {
        fprintf(stderr, "igemm-bench: %s\n", why);
        goto done;
    }
    fprintf(stderr, "%d of %d layers verified\n", n - failed, n);
    /* one line for scripts (tools/bench_twins.sh): the ratios of the report */
    printf("summary arch=%s type=%s layout=%s issue=%.4f issue_worst=%.4f modeled=%.4f modeled_worst=%.4f "
           "verified=%d/%d\n",
           o.arch, igemm_dtype_get(rows[0].p.dtype)->name, igemm_layout_get(rows[0].p.layout)->upper,
           sum_st > 0 ? sum_dyn / sum_st : 0, worst_ratio, tm_all, tm_worst, n - failed, n);
    rc = failed ? 1 : 0;
done:
    igemm_destroy(h);
    for (int i = 0; comments && i < n; i++)
        free(comments[i]);
    free(comments);
    free(rows);
    free(co_file);
    return rc;
}
