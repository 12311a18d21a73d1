/* igemm conv: run backward-data convolutions, MIOpenDriver style.
 *
 * Every MIOpenDriver conv flag, short or long (conv/driver_flags.c: problem
 * flags, -F, -m, --spatial_dim, the driver options below, flags with no
 * effect here), a leading MIOpenDriver word (igemm.c), and ours:
 * Driver flags:  -V 1 verify (our rule and MIOpenDriver's sentence)
 *                -t 1 time: our line and MIOpenDriver's algorithm, kernel
 *                     time and stats lines (HIP: events on the handle's
 *                     stream; emulator: the timing model's modeled time)
 *                -i N iterations (default 1; the first is left out of the
 *                     average when there are more), -w 1 wall-clock time
 *                     of the calls (with -t 1; 2: after one warm-up run)
 *                -s 1 find mode: run every applicable configuration, keep
 *                     the best (in the --perfdb file when given), then run it
 *                -S / --solution: a MIOpen solver id or name (its family here,
 *                     tools/miopen_solvers.c, or one note), one of our
 *                     configuration names, -1/0 (the selection) or list
 *                     (the selection) or list
 * Commands:      conv (fp32), convfp16, convbfp16 (the data type; --input lists
 *                run as written under conv, all in the command's type otherwise)
 * Long flags:    --fp16_mode accurate|flush|alt (fp16 on gfx90a), --arch gfxNNN, --backend auto|emu|hip,
 *                --input FILE (a shape list, progress on stderr; lines of other
 *                directions skipped), --batch N (override -n of every problem),
 *                --warmup N, --seed N, --threads N, --codeobj-dir DIR, --perfdb FILE,
 *                --device N, --json, --max-wave-insts N (emulator: per-wave instruction budget),
 *                --progress (find mode: each configuration on stderr with the time left; on by
 *                default when stderr is a terminal), --stats (emulator: the timing model's
 *                memory view of the run; --json always carries it as modeled_memory),
 *                --timeline FILE (emulator: the timing model's issue timeline of sampled
 *                CU 0 of each launch, through IGEMM_EMU_TIMELINE)
 */
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../include/igemm.h"
#include "../conv/half.h"
#include "../conv/problem.h"
#include "../conv/driver_flags.h"
#include "../conv/types.h"
#include "../conv/util.h"
#include "cli.h"
#include "cli_miopen.h"
#include "miopen_solvers.h"

typedef struct {
    int verify, time, iters, warmup, wall, json, batch, threads, find, device, progress, stats;
    unsigned long long seed, max_wave_insts;
    const char *arch, *backend, *solution, *input, *codeobj_dir, *perfdb, *timeline;
    const miopen_solver *miopen; /* -S: a MIOpen solver, resolved per problem */
} conv_opts;

#define MAX_FIND 64

static void conv_help(void)
{
    printf("usage: igemm conv -n N -c C -H H -W W -k K -y Y -x X [-p P -q Q -u U -v V -l L -j J -g G] -F 2\n"
           "                  [-V 1] [-t 1 [-w 1]] [-i ITERS] [--warmup N] [-s 1 [--perfdb FILE]]\n"
           "                  [--arch TARGET] [--backend auto|emu|hip] [--device N]\n"
           "                  [--solution NAME|N|list] [--seed N] [--threads N] [--codeobj-dir DIR] [--json]\n"
           "                  [--max-wave-insts N] [--progress] [--stats] [--timeline FILE]\n"
           "       igemm conv --input SHAPES.txt [--batch N] [same options]\n"
           "       igemm convfp16 ... / igemm convbfp16 ...  [--fp16_mode accurate|flush|alt]\n"
           "       igemm [./bin/]MIOpenDriver conv ...  (a pasted MIOpenDriver command line)\n"
           "Backward data of a 2-D convolution, fp32 (conv), fp16 (convfp16) or bf16 (convbfp16)\n"
           "tensors with fp32 accumulation, NCHW or NHWC (-I/-O/-f, all three alike). -V 1 compares\n"
           "with a float64 CPU reference: our rule (within 1e-5 of sum |terms|, plus half an ulp of\n"
           "the 16-bit format) and MIOpenDriver's sentence (RMS measure and tolerance); exit status\n"
           "1 when either fails. -t 1 adds MIOpenDriver's algorithm, kernel time and stats lines\n"
           "(HIP: event-timed; emulator: the timing model's modeled time, not a measurement); the\n"
           "first of several iterations is left out of the average, as MIOpenDriver does.\n"
           "--stats (emulator) adds the timing model's memory view: line bytes per useful byte of\n"
           "loads and stores, L1 and L2 hit rates, HBM bytes against dx, dy and w once, LDS cycles\n"
           "against their conflict-free count (--json: modeled_memory; per launch and buffer:\n"
           "igemm emu-run --stats), and where a plan has several launches each one's modeled time\n"
           "and limit (--json: modeled_launches, always).\n"
           "--timeline FILE (emulator) writes the timing model's issue timeline of sampled CU 0 of\n"
           "each launch to FILE: one line per instruction its waves issue (cycle, workgroup, wave,\n"
           "SIMD, PC, instruction; docs/TIMING.md \"Timeline\"), to see where a kernel's cycles go.\n"
           "-s 1 runs every applicable configuration (the naive kernel only where the heuristic\n"
           "gives it a chance), reports each one's cost (HIP: ms; emulator: modeled cycles), keeps\n"
           "the best in the --perfdb file and runs it. --solution list (or 'igemm solutions')\n"
           "names every configuration. TARGET is one of %s (default gfx906).\n"
           "Defaults that differ from MIOpenDriver's: every size 1 (MIOpenDriver: -n 100 -c 3\n"
           "-H 32 -W 32 -k 32 -y 3 -x 3), -F 2 (0), -V 0 (1), -i 1 (10).\n"
           "MIOpenDriver flags (short, long, what igemm does with them):\n",
           cli_library_targets());
    static const char *const kind[] = {"problem", "problem", "direction", "checked", "checked",
                                       "honoured", "accepted, no effect", "only its default",
                                       "noted, ignored"};
    for (int i = 0; driver_flag_get(i); i++) {
        const driver_flag *f = driver_flag_get(i);
        char shrt[4] = "  ";
        if (f->shrt)
            snprintf(shrt, sizeof shrt, "-%c", f->shrt);
        printf("  %s  --%-20s %-20s %s%s%s\n", shrt, f->lng, kind[f->kind], f->what,
               f->kind == DF_DEFAULT ? ": " : "", f->kind == DF_DEFAULT ? (f->dflt[0] ? f->dflt : "(empty)") : "");
    }
}

/* Our long options that take a value. */
static int parse_long_opt(conv_opts *o, const char *a, const char *v)
{
    long x;
    static const struct {
        const char *name;
        size_t off;
    } str[] = {
        {"--arch", offsetof(conv_opts, arch)},         {"--backend", offsetof(conv_opts, backend)},
        {"--input", offsetof(conv_opts, input)},       {"--codeobj-dir", offsetof(conv_opts, codeobj_dir)},
        {"--perfdb", offsetof(conv_opts, perfdb)},     {"--timeline", offsetof(conv_opts, timeline)},
    };
    for (size_t i = 0; i < sizeof str / sizeof str[0]; i++)
        if (!strcmp(a, str[i].name)) {
            *(const char **)((char *)o + str[i].off) = v;
            return 0;
        }
    static const struct {
        const char *name;
        long lo, hi;
        size_t off;
    } num[] = {
        {"--device", 0, 1024, offsetof(conv_opts, device)},   {"--batch", 1, 1 << 20, offsetof(conv_opts, batch)},
        {"--threads", 0, 1024, offsetof(conv_opts, threads)}, {"--warmup", 0, 100000, offsetof(conv_opts, warmup)},
    };
    for (size_t i = 0; i < sizeof num / sizeof num[0]; i++)
        if (!strcmp(a, num[i].name)) {
            if (parse_num(a, v, num[i].lo, num[i].hi, &x))
                return 2;
            *(int *)((char *)o + num[i].off) = (int)x;
            return 0;
        }
    if (!strcmp(a, "--max-wave-insts") || !strcmp(a, "--seed")) {
        if (parse_num(a, v, a[2] == 'm', LONG_MAX, &x))
            return 2;
        *(a[2] == 'm' ? &o->max_wave_insts : &o->seed) = (unsigned long long)x;
        return 0;
    }
    return -1;
}

/* MIOpenDriver's driver options (DF_RUN): -V -t -i -w -s and -S, short or long. */
/* One of our configuration names (igemm solutions)? */
static bool is_solution_name(const char *v)
{
    for (int i = 0; i < igemm_solution_count(); i++)
        if (!strcmp(igemm_solution_name(i), v))
            return true;
    return false;
}

static int parse_run_opt(conv_opts *o, const driver_flag *f, const char *a, const char *v)
{
    long x;
    struct {
        char c;
        long lo, hi;
        int *dst;
    } num[] = {{'V', 0, 1, &o->verify}, {'t', 0, 1, &o->time}, {'i', 1, 100000, &o->iters},
               {'w', 0, 2, &o->wall},   {'s', 0, 1, &o->find}};
    for (size_t i = 0; i < sizeof num / sizeof num[0]; i++)
        if (f->shrt == num[i].c) {
            if (parse_num(a, v, num[i].lo, num[i].hi, &x))
                return 2;
            *num[i].dst = (int)x;
            return 0;
        }
    /* -S / --solution: MIOpen's -1 / 0 (the library's selection), a MIOpen
       solver id or name (its family here, miopen_solvers.c), one of our
       configuration names, or "list" */
    o->solution = NULL;
    o->miopen = NULL;
    if (!parse_long(v, LONG_MIN, LONG_MAX, &x)) {
        if (x == 0 || x == -1)
            return 0;
        if (x < 0)
            return usage_error("flag '%s %s': a MIOpen solver id is positive (-1 and 0: the library's selection)", a,
                               v);
        if (!(o->miopen = miopen_solver_by_id(x)))
            return usage_error("flag '%s %s': MIOpen has no backward-data solver with that id (our own "
                               "configurations: --solution NAME, 'igemm solutions' lists them)", a, v);
        return 0;
    }
    if (!is_solution_name(v) && (o->miopen = miopen_solver_by_name(v)))
        return 0;
    o->solution = v;
    return 0;
}

/* The configuration that o's MIOpen solver (-S) stands for on p, into buf,
 * or NULL (our selection), with one note saying which. */
static const char *miopen_choice(igemm_handle *h, const igemm_problem *p, const conv_opts *o, char *buf, size_t len)
{
    const miopen_solver *ms = o->miopen;
    static const char *const fam[] = {"", "naive kernel", "v4r1 fma configurations", "v4r1 mfma configurations"};
    if (ms->family != MS_NONE && !miopen_solver_pick(h, p, ms, buf, len)) {
        cli_note("-S %d (MIOpen's %s, %s): runs %s, of our %s", ms->id, ms->name, ms->what, buf, fam[ms->family]);
        return buf;
    }
    if (ms->family == MS_NONE)
        cli_note("-S %d (MIOpen's %s, %s) has no counterpart here: our selection is used", ms->id, ms->name, ms->what);
    else
        cli_note("-S %d (MIOpen's %s): none of our %s applies to this problem on %s: our selection is used", ms->id,
                 ms->name, fam[ms->family], igemm_handle_arch(h));
    return NULL;
}

/* Split argv into problem flags (for igemm_problem_parse_args) and driver
 * options. Returns 0 or the exit status of a usage error. */
static int parse(int argc, char **argv, conv_opts *o, int *pargc, char **pargv)
{
    *pargc = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--json") || !strcmp(a, "--progress") || !strcmp(a, "--stats")) {
            *(a[2] == 'j' ? &o->json : a[2] == 'p' ? &o->progress : &o->stats) = 1;
            continue;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            conv_help();
            return -1;
        }
        const driver_flag *f = driver_flag_find(a);
        bool ours = !strncmp(a, "--", 2) && !f && strcmp(a, "--fp16_mode");
        if ((ours || (f && f->kind == DF_RUN)) && !v)
            return usage_error("flag '%s' needs a value", a);
        if (ours) {
            int rc = parse_long_opt(o, a, v);
            if (rc > 0)
                return rc;
            if (rc < 0)
                return usage_error("unknown flag '%s'", a);
            i++;
            continue;
        }
        if (f && f->kind == DF_RUN) {
            int rc = parse_run_opt(o, f, a, v);
            if (rc)
                return rc;
            i++;
            continue;
        }
        if (f && driver_flag_noted(f, v))
            cli_note("'%s %s': %s", a, v ? v : "", f->what);
        pargv[(*pargc)++] = argv[i];
        if (a[0] == '-' && v) {
            pargv[(*pargc)++] = argv[i + 1];
            i++;
        }
    }
    return 0;
}

typedef struct {
    int ok, verified, miopen_ok, not_saved;
    igemm_verify_result vr;
    igemm_run_info ri;
    double first_ms, total_ms;   /* HIP: timed ms; emulator: modeled ms (per iteration) */
    double wall_first_ms, wall_ms; /* -w: wall-clock time of the calls */
    double rms, tol;             /* -V: MIOpenDriver's measure and tolerance */
    int nfind;               /* find mode: configurations tried */
    igemm_perf find[MAX_FIND];
} conv_result;

/* Host memory of the machine in bytes (0 when unknown). */
static double host_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (double)pages * (double)page : 0;
}

/* The buffers of one run, allocated together before anything runs. */
typedef struct {
    void *hy, *hw, *hx;   /* in the problem's data type */
    void *dx, *dy, *dw;
    double *ref, *abs_sum;
    unsigned char *cov;
} run_bufs;

static void bufs_free(igemm_handle *h, run_bufs *b)
{
    igemm_free(h, b->dx);
    igemm_free(h, b->dy);
    igemm_free(h, b->dw);
    free(b->hy);
    free(b->hw);
    free(b->hx);
    free(b->ref);
    free(b->abs_sum);
    free(b->cov);
}

/* Allocate and fill everything: 0, or the exit status after the message. */
static int bufs_make(igemm_handle *h, const igemm_shape *sh, const conv_opts *o, run_bufs *b)
{
    const igemm_dtype dt = sh->p.dtype;
    size_t nx = (size_t)sh->dx_elems, ny = (size_t)sh->dy_elems, nw = (size_t)sh->w_elems;
    size_t eb = (size_t)igemm_dtype_get(dt)->bytes;
    /* host tensors, the emulator's "device" copies (host memory too) and the
       reference: more than the machine has would end in the OOM killer */
    double tensors = (double)eb * (double)(nx + ny + nw);
    double need = tensors * (strcmp(igemm_handle_backend(h), "emu") ? 1 : 2) + (o->verify ? 17.0 * (double)nx : 0);
    double have = host_memory();
    if (have > 0 && need > have)
        return cli_error(1, "the problem needs %.3g GB of host memory (tensors%s), the machine has %.3g GB", need / 1e9,
                         o->verify ? " and the float64 reference" : "", have / 1e9);
    b->hy = malloc(ny * eb);
    b->hw = malloc(nw * eb);
    b->hx = malloc(nx * eb);
    if (o->verify) {
        b->ref = malloc(nx * sizeof *b->ref);
        b->abs_sum = malloc(nx * sizeof *b->abs_sum);
        b->cov = malloc(nx);
    }
    if (!b->hy || !b->hw || !b->hx || (o->verify && (!b->ref || !b->abs_sum || !b->cov)))
        return cli_error(1, "out of host memory for the tensors%s (%.3g GB)",
                         o->verify ? " and the reference" : "", need / 1e9);
    uint64_t state = igemm_fill_random_dtype(b->hy, ny, dt, o->seed); /* one sequence: dy, then w */
    igemm_fill_random_dtype(b->hw, nw, dt, state);
    if (sh->p.fp16_mode == IGEMM_FP16_FLUSH) { /* the same answer whether the kernel flushes or not */
        igemm_flush_subnormals(b->hy, ny, dt);
        igemm_flush_subnormals(b->hw, nw, dt);
    }
    for (size_t i = 0; i < nx; i++)
        igemm_elem_set(dt, b->hx, i, NAN); /* a kernel that misses a pixel shows up */
    if (igemm_alloc(h, &b->dx, nx * eb) || igemm_alloc(h, &b->dy, ny * eb) || igemm_alloc(h, &b->dw, nw * eb) ||
        igemm_copy_to_device(h, b->dy, b->hy, ny * eb) || igemm_copy_to_device(h, b->dw, b->hw, nw * eb) ||
        igemm_copy_to_device(h, b->dx, b->hx, nx * eb))
        return cli_error(1, "%s", igemm_last_error(h));
    return 0;
}

/* igemm_options.progress: find mode's configurations as they are timed, with
 * an estimate of the time left from the mean time of those so far. */
static void find_progress(void *ctx, const char *what, int done, int total)
{
    struct timespec *t0 = ctx, now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (!done)
        *t0 = now;
    double el = (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
    char left[64] = "";
    if (done)
        snprintf(left, sizeof left, ", about %.0f s left", el / done * (total - done));
    fprintf(stderr, "igemm progress: find [%d/%d] %s  (%.1f s%s)\n", done + 1, total, what, el, left);
}

static int status_exit(igemm_status st)
{
    return st == IGEMM_ERR_INVALID_ARG || st == IGEMM_ERR_NOT_APPLICABLE || st == IGEMM_ERR_UNSUPPORTED ? 2 : 1;
}

static int run_one(igemm_handle *h, const igemm_problem *p, const conv_opts *o, conv_result *res)
{
    igemm_shape sh;
    char why[1024];
    memset(res, 0, sizeof *res);
    if (igemm_shape_init(&sh, p, why, sizeof why) != IGEMM_OK)
        return cli_error(2, "%s", why);
    /* refused before anything is allocated */
    igemm_status st = igemm_applicable(h, p, o->solution, why, sizeof why);
    if (st != IGEMM_OK)
        return cli_error(status_exit(st), "%s", why);
    run_bufs b = {0};
    int rc = bufs_make(h, &sh, o, &b);
    if (rc)
        goto out;
    rc = 1;
    if (o->find) {
        st = igemm_find(h, p, b.dx, b.dy, b.dw, res->find, MAX_FIND, &res->nfind);
        if (res->nfind > MAX_FIND)
            res->nfind = MAX_FIND;
        if (st == IGEMM_ERR_IO && res->nfind > 0 && res->find[0].status == IGEMM_OK) {
            /* the perfdb file could not be written: the results stand, the handle keeps the best */
            cli_warning("find results not saved: %s", igemm_last_error(h));
            res->not_saved = 1;
        }
        else if (st != IGEMM_OK) {
            rc = cli_error(status_exit(st), "%s: %s", igemm_status_name(st), igemm_last_error(h));
            goto out;
        }
    }
    int warmup = o->warmup + (o->wall == 2); /* MIOpenDriver's -w 2: warm the library up first */
    /* the emulator's run and modeled time are the same every time: once */
    bool once = !strcmp(igemm_handle_backend(h), "emu");
    int iters = once ? 1 : o->iters;
    if (once)
        warmup = 0;
    for (int it = 0; it < warmup + iters; it++) {
        igemm_run_info ri;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        st = igemm_conv_bwd_data_ex(h, p, o->solution, b.dx, b.dy, b.dw, &ri);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (st != IGEMM_OK) {
            rc = cli_error(status_exit(st), "%s: %s", igemm_status_name(st), igemm_last_error(h));
            goto out;
        }
        if (it < warmup)
            continue;
        double ms = strcmp(igemm_handle_backend(h), "emu") ? ri.ms : ri.modeled_us / 1e3;
        double wall = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
        if (it == warmup) {
            res->ri = ri;
            res->first_ms = ms;
            res->wall_first_ms = wall;
        }
        res->total_ms += ms;
        res->wall_ms += wall;
    }
    if (once && o->iters > 1) { /* N identical iterations: the first and the average are the one run's */
        res->total_ms *= o->iters;
        res->wall_ms *= o->iters;
    }
    res->ri.ms = res->total_ms / o->iters;
    rc = 0;
    res->ok = 1;
    if (o->verify) {
        size_t nx = (size_t)sh.dx_elems, eb = (size_t)igemm_dtype_get(p->dtype)->bytes;
        if (igemm_copy_to_host(h, b.hx, b.dx, nx * eb)) {
            rc = cli_error(1, "%s", igemm_last_error(h));
            goto out;
        }
        if ((st = igemm_reference_bwd_data_ex(p, b.hy, b.hw, b.ref, b.abs_sum, b.cov)) != IGEMM_OK) {
            rc = cli_error(1, "the reference failed: %s", igemm_status_name(st));
            goto out;
        }
        res->verified = 1;
        res->ok = igemm_verify_ex(p, b.hx, b.ref, b.abs_sum, b.cov, 1e-5, &res->vr);
        res->rms = miopen_rms_range(p, b.ref, b.hx, nx);
        res->tol = miopen_tolerance(p, res->ri.solution);
        res->miopen_ok = isfinite(res->rms) && res->rms <= res->tol;
        rc = res->ok && res->miopen_ok ? 0 : 1;
    }
    if (!rc && res->not_saved)
        rc = 1; /* the results stand, but the perf-db did not get them */
out:
    bufs_free(h, &b);
    return rc;
}

/* Print the comma-separated kernel list as JSON strings. */
static void json_kernels(const char *list)
{
    printf("[");
    for (const char *k = list; *k;) {
        size_t n = strcspn(k, ",");
        printf("%s\"%.*s\"", k == list ? "" : ", ", (int)n, k);
        k += n + (k[n] == ',');
    }
    printf("]");
}

/* The verify rule of p's data type in words (include/igemm.h, igemm_verify). */
static const char *verify_rule(const igemm_problem *p)
{
    if (p->dtype == IGEMM_FP32)
        return "|dx - ref| <= 1e-5 * sum|terms|, uncovered pixels 0, no NaN";
    if (p->dtype == IGEMM_FP16 && p->fp16_mode == IGEMM_FP16_ALT)
        return "|dx - ref| <= half an fp16 ulp of ref + 1e-5 * sum|terms|, ref and terms of dy and w rounded to bf16 "
               "(fp16_mode alt), uncovered pixels 0, no NaN";
    return p->dtype == IGEMM_FP16 ? "|dx - ref| <= half an fp16 ulp of ref + 1e-5 * sum|terms|, uncovered pixels 0, no NaN"
                                  : "|dx - ref| <= half a bf16 ulp of ref + 1e-5 * sum|terms|, uncovered pixels 0, no NaN";
}

static double tflops(const igemm_shape *sh, double ms) { return ms > 0 ? (double)sh->flops / ms / 1e9 : 0.0; }

/* dx, dy and w once: the bytes a launch that moves each tensor once through HBM moves */
static uint64_t tensor_bytes(const igemm_shape *sh)
{
    return (uint64_t)(sh->dx_elems + sh->dy_elems + sh->w_elems) * (uint64_t)igemm_dtype_get(sh->p.dtype)->bytes;
}

static double ratio_of(uint64_t a, uint64_t b) { return b ? (double)a / (double)b : 0.0; }

/* --stats: the timing model's memory view of the run (docs/TIMING.md "What
 * --stats prints"; igemm emu-run --stats gives it per launch and buffer) */
static void print_memory(const igemm_memory_view *m, const igemm_shape *sh)
{
    printf("  modeled memory: loads %.2f, stores %.2f line bytes per useful byte; L1 hits %.1f%% of %llu load lines, "
           "L2 hits %.1f%% of %llu lines read; HBM %llu bytes (%.2fx dx, dy and w once); LDS %.2fx its "
           "conflict-free cycles\n",
           ratio_of(m->line_loaded, m->useful_loaded), ratio_of(m->line_stored, m->useful_stored),
           100.0 * ratio_of(m->l1_hits, m->l1_lookups), (unsigned long long)m->l1_lookups,
           100.0 * ratio_of(m->l2_hits, m->l2_reads), (unsigned long long)m->l2_reads,
           (unsigned long long)m->hbm_bytes, ratio_of(m->hbm_bytes, tensor_bytes(sh)),
           m->lds_ideal ? ratio_of(m->lds_cycles, m->lds_ideal) : 1.0);
}

/* The launches whose igemm_launch_time the run kept (the first ones) */
static int launches_kept(const igemm_run_info *ri)
{
    return ri->launches < IGEMM_RUN_LAUNCHES ? ri->launches : IGEMM_RUN_LAUNCHES;
}

/* --stats: each launch's modeled time and limit (igemm_run_info.launch),
 * where a plan has more than one: which of them the time goes to */
static void print_launch_times(const igemm_run_info *ri)
{
    int n = launches_kept(ri);
    for (int i = 0; ri->launches > 1 && i < n; i++)
        printf("  modeled launch %d of %d: %s, %u workgroups of %u: %.3f us (limit: %s)\n", i + 1, ri->launches,
               ri->launch[i].kernel, ri->launch[i].grid, ri->launch[i].block, ri->launch[i].modeled_us,
               ri->launch[i].limit);
    if (ri->launches > n)
        printf("  modeled launches %d to %d: not listed (the run keeps the first %d)\n", n + 1, ri->launches, n);
}

/* --json: the same, every kept launch */
static void json_launch_times(const igemm_run_info *ri)
{
    int n = launches_kept(ri);
    printf(", \"modeled_launches\": [");
    for (int i = 0; i < n; i++)
        printf("%s{\"kernel\": \"%s\", \"grid\": %u, \"block\": %u, \"modeled_us\": %.6g, \"limit\": \"%s\"}",
               i ? ", " : "", ri->launch[i].kernel, ri->launch[i].grid, ri->launch[i].block, ri->launch[i].modeled_us,
               ri->launch[i].limit);
    printf("]");
}

static void report(const igemm_handle *h, const igemm_problem *p, const conv_opts *o, const conv_result *r)
{
    char args[256];
    igemm_problem_format(p, args, sizeof args);
    igemm_shape sh;
    igemm_shape_init(&sh, p, NULL, 0);
    bool emu = !strcmp(igemm_handle_backend(h), "emu");
    if (o->json) {
        printf("{\"problem\": \"%s -F 2\", \"layout\": \"%s\", \"dtype\": \"%s\", \"arch\": \"%s\", "
               "\"backend\": \"%s\", \"solution\": \"%s\", \"source\": \"%s\", \"kernels\": ",
               args, igemm_layout_get(p->layout)->upper, igemm_dtype_get(p->dtype)->name, igemm_handle_arch(h),
               igemm_handle_backend(h), r->ri.solution, r->ri.source);
        json_kernels(r->ri.kernels);
        printf(", \"launches\": %d, \"flops\": %lld", r->ri.launches, (long long)sh.flops);
        if (emu) {
            printf(", \"emu_insts\": %llu, \"emu_cycles\": %llu, \"cycles_per_flop\": %.6g, \"modeled_us\": %.6g, "
                   "\"modeled_tflops\": %.6g, \"limit\": \"%s\"",
                   (unsigned long long)r->ri.insts, (unsigned long long)r->ri.cycles,
                   (double)r->ri.cycles / (double)sh.flops, r->ri.modeled_us, tflops(&sh, r->ri.modeled_us / 1e3),
                   r->ri.limit);
            printf(", \"modeled_cycles\": %llu, \"modeled_busy\": {\"valu\": %llu, \"matrix\": %llu, \"lds\": %llu, "
                   "\"memory\": %llu}",
                   (unsigned long long)r->ri.modeled_cycles, (unsigned long long)r->ri.modeled_busy[0],
                   (unsigned long long)r->ri.modeled_busy[1], (unsigned long long)r->ri.modeled_busy[2],
                   (unsigned long long)r->ri.modeled_busy[3]);
            const igemm_memory_view *m = &r->ri.memory;
            printf(", \"modeled_memory\": {\"line_loaded\": %llu, \"useful_loaded\": %llu, \"line_stored\": %llu, "
                   "\"useful_stored\": %llu, \"l1_lookups\": %llu, \"l1_hits\": %llu, \"l2_reads\": %llu, "
                   "\"l2_hits\": %llu, \"hbm_bytes\": %llu, \"tensor_bytes\": %llu, \"lds_cycles\": %llu, "
                   "\"lds_ideal\": %llu}",
                   (unsigned long long)m->line_loaded, (unsigned long long)m->useful_loaded,
                   (unsigned long long)m->line_stored, (unsigned long long)m->useful_stored,
                   (unsigned long long)m->l1_lookups, (unsigned long long)m->l1_hits, (unsigned long long)m->l2_reads,
                   (unsigned long long)m->l2_hits, (unsigned long long)m->hbm_bytes,
                   (unsigned long long)tensor_bytes(&sh), (unsigned long long)m->lds_cycles,
                   (unsigned long long)m->lds_ideal);
            json_launch_times(&r->ri);
        } else
            printf(", \"ms\": %.6f, \"tflops\": %.4f", r->ri.ms, tflops(&sh, r->ri.ms));
        if (o->find) {
            printf(", \"find\": [");
            for (int i = 0; i < r->nfind; i++)
                printf("%s{\"solution\": \"%s\", \"status\": \"%s\", \"cost\": %.6g, \"unit\": \"%s\"}",
                       i ? ", " : "", r->find[i].solution, igemm_status_name(r->find[i].status),
                       r->find[i].status == IGEMM_OK ? r->find[i].cost : -1.0, r->find[i].unit);
            printf("]");
        }
        if (r->verified)
            printf(", \"max_abs_err\": %.3g, \"max_rel_err\": %.3g, \"nan\": %lld, \"uncovered_nonzero\": %lld, "
                   "\"verify_rule\": \"%s\", \"verify\": \"%s\"",
                   r->vr.max_abs_err, r->vr.max_rel_err, (long long)r->vr.nan_count, (long long)r->vr.uncovered_nonzero,
                   verify_rule(p), r->ok ? "PASS" : "FAIL");
        printf("}\n");
        return;
    }
    printf("%s %s -F 2  (%s, %s)\n", igemm_problem_command(p), args, igemm_handle_arch(h), igemm_handle_backend(h));
    if (o->find) {
        printf("  find: %d configuration%s tried%s%s%s\n", r->nfind, r->nfind == 1 ? "" : "s",
               !o->perfdb ? "" : r->not_saved ? ", best kept for this run only (could not write " : ", best saved to ",
               o->perfdb ? o->perfdb : "", o->perfdb && r->not_saved ? ")" : "");
        for (int i = 0; i < r->nfind; i++) {
            if (r->find[i].status == IGEMM_OK)
                printf("    %-48s %14.6g %s%s\n", r->find[i].solution, r->find[i].cost, r->find[i].unit,
                       i ? "" : "  (best)");
            else
                printf("    %-48s failed: %s\n", r->find[i].solution, igemm_status_name(r->find[i].status));
        }
    }
    printf("  solution %s (%s), %d launch%s, %.3g GFLOP\n", r->ri.solution, r->ri.source, r->ri.launches,
           r->ri.launches == 1 ? "" : "es", (double)sh.flops / 1e9);
    printf("  kernels: %s\n", r->ri.kernels);
    if (emu) {
        printf("  emulated: %llu wave instructions, %llu modeled issue cycles, %.4f cycles/FLOP\n",
               (unsigned long long)r->ri.insts, (unsigned long long)r->ri.cycles,
               (double)r->ri.cycles / (double)sh.flops);
        if (r->ri.modeled_us > 0) { /* docs/TIMING.md */
            printf("  modeled time: %.3f us, %.3f TFLOP/s (limit: %s)\n", r->ri.modeled_us,
                   tflops(&sh, r->ri.modeled_us / 1e3), r->ri.limit);
            if (o->stats) {
                print_memory(&r->ri.memory, &sh);
                print_launch_times(&r->ri);
            }
        } else
            printf("  modeled time: not available (the timing model could not time a launch)\n");
    }
    else if (o->time)
        printf("  time %.4f ms (mean of %d), %.3f TFLOP/s\n", r->ri.ms, o->iters, tflops(&sh, r->ri.ms));
    if (r->verified)
        printf("  verify: max abs err %.3g, max rel err %.3g%s%s: %s (rule: %s)\n", r->vr.max_abs_err,
               r->vr.max_rel_err, r->vr.nan_count ? ", NaN/Inf present" : "",
               r->vr.uncovered_nonzero ? ", uncovered pixels not zero" : "", r->ok ? "PASS" : "FAIL", verify_rule(p));
    /* MIOpenDriver's lines, in its order: wall clock, algorithm, kernel time, stats; the verify sentence */
    if (o->time && o->wall)
        printf("Wall-clock Time Backward Data Conv. Elapsed: %g ms\n",
               miopen_average(r->wall_ms, r->wall_first_ms, o->iters));
    if (o->time && (!emu || r->ri.modeled_us > 0))
        miopen_print_time(p, r->ri.solution, miopen_average(r->total_ms, r->first_ms, o->iters),
                          emu ? igemm_handle_arch(h) : NULL);
    if (r->verified)
        miopen_print_verify(r->rms, r->tol);
}

/* A shape list's line of another direction (skipped[0]) or, in a log, a
 * command igemm cannot run (skipped[1]): a note, and counted. */
static void list_skip(void *ctx, const char *path, int line, const char *why)
{
    ++((int *)ctx)[strncmp(why, "-F ", 3) != 0];
    cli_note("%s:%d: skipped: %s", path, line, why);
}

/* The problems of a list once each, in first-seen order, with how many
 * times the list has each (times[], malloc'd); returns the count. */
static int distinct(igemm_problem *probs, int n, int **times)
{
    int m = 0;
    *times = calloc((size_t)n, sizeof **times);
    if (!*times)
        return n;
    for (int i = 0; i < n; i++) {
        char a[512], b[512];
        igemm_problem_format(&probs[i], a, sizeof a);
        int j = 0;
        for (; j < m; j++) {
            igemm_problem_format(&probs[j], b, sizeof b);
            if (probs[j].dtype == probs[i].dtype && !strcmp(a, b))
                break;
        }
        if (j == m)
            probs[m++] = probs[i];
        (*times)[j]++;
    }
    return m;
}

/* "[i/n] PROBLEM  (elapsed, about ... s left, failed)" on stderr before
 * problem i of a list. */
static void print_list_progress(const igemm_problem *probs, int i, int nprobs, const struct timespec *t0, int failed)
{
    char args[256];
    igemm_problem_format(&probs[i], args, sizeof args);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double el = (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
    char left[64] = "";
    if (i > 0) /* the mean time of the problems so far, for the rest */
        snprintf(left, sizeof left, ", about %.0f s left", el / i * (nprobs - i));
    fprintf(stderr, "[%d/%d] %s %s  (%.1f s elapsed%s, %d failed)\n", i + 1, nprobs, igemm_problem_command(&probs[i]),
            args, el, left, failed);
}

/* The problems to run: the --input log's distinct commands (times[i]: how
 * often each appears), or the one of the command line. 0, or the usage
 * error's status with nothing left allocated. */
static int read_problems(const conv_opts *o, const char *cmd, int pargc, char **pargv, igemm_problem **probsp,
                         int *nprobsp, int **times, int nskipped[2])
{
    int not_commands = 0;
    if (o->input) {
        if (pargc)
            return usage_error("--input takes no problem flags (got '%s')", pargv[0]);
        char why[512];
        if (igemm_problem_read_log(o->input, o->batch, probsp, nprobsp, NULL, list_skip, nskipped, &not_commands, why,
                                   sizeof why) != IGEMM_OK)
            return usage_error("%s", why);
        int lines = *nprobsp;
        int nprobs = *nprobsp = distinct(*probsp, lines, times);
        if (not_commands || nprobs < lines)
            cli_note("%s: %d command line%s, %d distinct problem%s (each run once), %d other line%s left out", o->input,
                     lines, lines == 1 ? "" : "s", nprobs, nprobs == 1 ? "" : "s", not_commands,
                     not_commands == 1 ? "" : "s");
        for (int i = 0; i < nprobs && strcmp(cmd, "conv"); i++) /* convfp16/convbfp16: every problem */
            (*probsp)[i].dtype = igemm_dtype_by_command(cmd)->id;
    } else {
        char why[256];
        int forw;
        igemm_problem *probs = *probsp = malloc(sizeof *probs);
        *nprobsp = 1;
        if (!probs || igemm_problem_parse_args(probs, pargc, pargv, why, sizeof why)) {
            free(probs);
            *probsp = NULL;
            return usage_error("%s", probs ? why : "out of memory");
        }
        igemm_problem_parse_args_forw(probs, pargc, pargv, &forw, NULL, 0);
        if (forw != FORW_BWD)
            cli_note("-F %d: running its backward-data part (-F 2)", forw);
        if (o->batch)
            probs->n = o->batch;
        if (strcmp(cmd, "conv")) /* convfp16/convbfp16; conv keeps a "convfp16" first word's type */
            probs->dtype = igemm_dtype_by_command(cmd)->id;
        igemm_status st = igemm_problem_check(probs, why, sizeof why);
        if (st != IGEMM_OK) {
            free(probs);
            *probsp = NULL;
            return usage_error("%s", why);
        }
    }
    return 0;
}

int cmd_conv(int argc, char **argv)
{
    conv_opts o = {.iters = 1, .seed = 1};
    int nskipped[2] = {0, 0}, *times = NULL;
    char **pargv = calloc((size_t)argc + 1, sizeof *pargv);
    int pargc, rc;
    if (!pargv)
        return usage_error("out of memory");
    rc = parse(argc, argv, &o, &pargc, pargv);
    if (rc) {
        free(pargv);
        return rc < 0 ? 0 : rc;
    }
    if (o.solution && !strcmp(o.solution, "list")) {
        free(pargv);
        print_solutions();
        return 0;
    }
    igemm_problem *probs = NULL;
    int nprobs = 0;
    rc = read_problems(&o, argv[0], pargc, pargv, &probs, &nprobs, &times, nskipped);
    if (rc) {
        free(pargv);
        return rc;
    }
    free(pargv);
    if (o.find && (o.solution || o.miopen)) {
        free(probs);
        return usage_error("-s 1 (find) and --solution exclude each other");
    }

    if (o.timeline) { /* named to the library */
        if (cli_timeline_file(o.timeline)) {
            free(probs);
            return 2;
        }
        setenv(IGEMM_ENV_EMU_TIMELINE, o.timeline, 1);
    }
    igemm_options opt = IGEMM_OPTIONS_INIT;
    opt.arch = o.arch;
    opt.codeobj_dir = o.codeobj_dir;
    opt.emu_threads = o.threads;
    opt.emu_max_wave_insts = o.max_wave_insts;
    opt.perfdb = o.perfdb;
    opt.device = o.device;
    opt.timing = o.time; /* HIP: events on the stream; untimed launches do not wait */
    struct timespec find_t0 = {0};
    if (o.find && (o.progress || isatty(2))) {
        opt.progress = find_progress;
        opt.progress_ctx = &find_t0;
    }
    if (!o.backend || !strcmp(o.backend, "auto"))
        opt.backend = o.arch ? IGEMM_BACKEND_EMU : IGEMM_BACKEND_AUTO;
    else if (!strcmp(o.backend, "emu"))
        opt.backend = IGEMM_BACKEND_EMU;
    else if (!strcmp(o.backend, "hip"))
        opt.backend = IGEMM_BACKEND_HIP;
    else {
        free(probs);
        return usage_error("unknown backend '%s' (auto, emu, hip)", o.backend);
    }
    igemm_handle *h;
    char why[512];
    igemm_status st = igemm_create(&h, &opt, why, sizeof why);
    if (st != IGEMM_OK) {
        free(probs);
        if (st == IGEMM_ERR_UNSUPPORTED || st == IGEMM_ERR_INVALID_ARG)
            return usage_error("%s", why);
        return cli_error(1, "%s: %s", igemm_status_name(st), why);
    }
    if (o.solution && igemm_applicable(h, probs, o.solution, why, sizeof why) == IGEMM_ERR_INVALID_ARG) {
        igemm_destroy(h);
        free(probs);
        return usage_error("%s", why);
    }
    if (igemm_handle_warning(h)[0])
        cli_warning("%s", igemm_handle_warning(h));
    if (!o.json && igemm_handle_fallback(h)[0] && !o.backend)
        cli_note("running on the emulator (%s): %s", igemm_handle_arch(h), igemm_handle_fallback(h));
    if (!o.json && o.verify)
        cli_note("random data in [-1, 1) with seed %llu", o.seed);
    if (o.iters > 1 && !strcmp(igemm_handle_backend(h), "emu") && !o.json)
        cli_note("-i %d: the emulator's result and modeled time are the same each time: emulated once", o.iters);
    if (o.wall && !o.time) /* MIOpenDriver's words */
        cli_note("'--wall %d' is ignored because '--time' is not set", o.wall);
    int failed = 0, worst = 0;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < nprobs; i++) {
        if (nprobs > 1)
            print_list_progress(probs, i, nprobs, &t0, failed);
        conv_opts po = o;
        char picked[128];
        if (o.miopen)
            po.solution = miopen_choice(h, &probs[i], &o, picked, sizeof picked);
        conv_result r;
        rc = run_one(h, &probs[i], &po, &r);
        if (r.ok || r.verified)
            report(h, &probs[i], &po, &r);
        if (times && times[i] > 1 && !o.json && (r.ok || r.verified))
            printf("  %s has this problem %d times: run once\n", o.input, times[i]);
        if (rc) {
            failed++;
            if (rc > worst)
                worst = rc;
        }
    }
    if ((nprobs > 1 || nskipped[0] || nskipped[1]) && !o.json) {
        printf("%d of %d problems %s", nprobs - failed, nprobs, o.verify ? "passed" : "ran");
        if (nskipped[0])
            printf(", %d skipped (other directions than backward data)", nskipped[0]);
        if (nskipped[1])
            printf(", %d skipped (commands igemm cannot run: see the notes)", nskipped[1]);
        printf("\n");
    }
    igemm_destroy(h);
    free(times);
    free(probs);
    return worst;
}
