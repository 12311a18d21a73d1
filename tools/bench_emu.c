/* igemm-bench-emu: the emulator's speed on the project's own kernels.
 *
 *   igemm-bench-emu [--arch TARGET|all] [--repeat N] [--timing 0|1] [--threads N] [--only TEXT]
 *
 * For each target (every one of the target table with `all`, the default)
 * it runs one ResNet-50 layer (batch 1, 64 -> 64 channels, 56x56, 3x3)
 * with a FMA kernel and, on targets with matrix cores, with an fp32 and an
 * fp16 MFMA kernel, and prints per job the wave64 instructions per second
 * and the convolution's GFLOP/s (2*N*C*K*Ho*Wo*Y*X over the time), per core:
 * the emulator runs on one worker thread (--threads, default 1) and the
 * figures divide by the process's CPU time (every thread's), so other load
 * on the machine does not count. Wall time is printed beside it.
 * --timing 1 (the default) keeps the timing model on (docs/TIMING.md), as
 * the library does; 0 measures the functional emulator alone. Each job runs
 * --repeat times (default 3) and the fastest run is reported. Data
 * generation is outside the timed region. --only TEXT keeps the jobs whose
 * kernel name contains TEXT ("fma_fp32", "mfma_fp16"), for profiling one. Each job also prints a 64-bit
 * FNV-1a hash of dx's bytes: equal hashes before and after a change to the
 * emulator show the results unchanged bit for bit; "model" is the timing
 * model's cycles for the run, to show the model unchanged too. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../include/igemm.h"
#include "../arch/target.h"
#include "../conv/problem.h"
#include "../conv/half.h"
#include "../conv/util.h"

static double clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct {
    const char *conv;
    const char *solution;
    bool mfma;        /* needs matrix cores */
} job;

#define LAYER "-n 1 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -F 2"
static const job jobs[] = {
    {"conv " LAYER, "igemm_bwd_v4r1_fma_fp32_nchw_128x128x8_t256", false},
    {"conv " LAYER, "igemm_bwd_v4r1_mfma_fp32_nchw_128x128x8_t256_wt32x32x2", true},
    {"convfp16 " LAYER, "igemm_bwd_v4r1_mfma_fp16_nchw_128x128x32_t256_wt32x32x8", true},
};

typedef struct {
    double insts, flops, cpu, wall;
    uint64_t hash;    /* FNV-1a of dx */
    uint64_t model;   /* the timing model's cycles (0 when off) */
} tally;

static uint64_t fnv1a(const void *buf, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ ((const uint8_t *)buf)[i]) * 1099511628211ull;
    return h;
}

static void fill(void *buf, size_t n, bool half, int mod, int off)
{
    for (size_t i = 0; i < n; i++) {
        float v = (float)((int)(i % (size_t)mod) - off) * 0.25f;
        if (half)
            ((uint16_t *)buf)[i] = igemm_f32_to_f16(v);
        else
            ((float *)buf)[i] = v;
    }
}

/* Runs job j on handle h `repeat` times; the fastest run goes to *t. */
static int run_job(igemm_handle *h, const job *jb, int repeat, tally *t)
{
    igemm_problem p;
    igemm_shape sh;
    char why[512] = "";
    if (igemm_problem_parse_line(&p, jb->conv, why, sizeof why) != 1 ||
        igemm_shape_init(&sh, &p, why, sizeof why) != IGEMM_OK) {
        fprintf(stderr, "igemm-bench-emu: %s: %s\n", jb->conv, why);
        return -1;
    }
    bool half = p.dtype != IGEMM_FP32;
    if (p.dtype == IGEMM_FP16) /* gfx90a's flushing fp16 dot kernels too; the same computation elsewhere */
        p.fp16_mode = IGEMM_FP16_FLUSH;
    size_t es = half ? 2 : 4;
    size_t nx = (size_t)sh.dx_elems, ny = (size_t)sh.dy_elems, nw = (size_t)sh.w_elems;
    /* the library's allocations (the emulator's: page-aligned, as a GPU
       allocator's are), not the host heap's, whose placement would move
       the cache model's lines from run to run and job to job */
    void *dx = NULL, *dy = NULL, *w = NULL;
    if (igemm_alloc(h, &dx, nx * es) != IGEMM_OK || igemm_alloc(h, &dy, ny * es) != IGEMM_OK ||
        igemm_alloc(h, &w, nw * es) != IGEMM_OK) {
        fprintf(stderr, "igemm-bench-emu: %s\n", igemm_last_error(h));
        igemm_free(h, dx), igemm_free(h, dy), igemm_free(h, w);
        return -1;
    }
    memset(dx, 0, nx * es);
    fill(dy, ny, half, 7, 3);
    fill(w, nw, half, 5, 2);
    *t = (tally){0};
    int rc = 0;
    for (int r = 0; r < repeat && !rc; r++) {
        igemm_run_info ri;
        double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
        igemm_status st = igemm_conv_bwd_data_ex(h, &p, jb->solution, dx, dy, w, &ri);
        double cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0, wall = clock_s(CLOCK_MONOTONIC) - w0;
        if (st != IGEMM_OK) {
            fprintf(stderr, "igemm-bench-emu: %s %s: %s\n", jb->conv, jb->solution, igemm_last_error(h));
            rc = -1;
        } else if (!r || cpu < t->cpu) {
            *t = (tally){(double)ri.insts, (double)sh.flops, cpu, wall, fnv1a(dx, nx * es), ri.modeled_cycles};
        }
    }
    igemm_free(h, dx);
    igemm_free(h, dy);
    igemm_free(h, w);
    return rc;
}

static int bench_target(const target *tg, int threads, int repeat, int timing, const char *only, tally *fma,
                        tally *mfma)
{
    igemm_options o = IGEMM_OPTIONS_INIT;
    o.backend = IGEMM_BACKEND_EMU;
    o.arch = tg->name;
    o.emu_threads = threads;
    o.emu_no_timing = !timing;
    igemm_handle *h;
    char why[512] = "";
    if (igemm_create(&h, &o, why, sizeof why) != IGEMM_OK) {
        fprintf(stderr, "igemm-bench-emu: %s\n", why);
        return -1;
    }
    for (size_t j = 0; j < sizeof jobs / sizeof jobs[0]; j++) {
        const job *jb = &jobs[j];
        if ((jb->mfma && !tg->has_mfma) || (only && !strstr(jb->solution, only)))
            continue;
        tally t;
        if (run_job(h, jb, repeat, &t)) {
            igemm_destroy(h);
            return -1;
        }
        printf("  %-7s %-55s %9.0f inst %6.3f s cpu %6.3f s wall %6.2f M inst/s %5.2f GFLOP/s dx %016llx model %llu\n",
               tg->name, jb->solution, t.insts, t.cpu, t.wall, t.insts / t.cpu / 1e6, t.flops / t.cpu / 1e9,
               (unsigned long long)t.hash, (unsigned long long)t.model);
        tally *sum = jb->mfma ? mfma : fma;
        sum->insts += t.insts;
        sum->flops += t.flops;
        sum->cpu += t.cpu;
        sum->wall += t.wall;
    }
    igemm_destroy(h);
    return 0;
}

static int parse_int_flag(const char *flag, const char *v, long lo, long hi, int *out)
{
    long x;
    if (parse_long(v, lo, hi, &x)) {
        fprintf(stderr, "igemm-bench-emu: %s needs an integer in [%ld, %ld], got '%s'\n", flag, lo, hi, v);
        return -1;
    }
    *out = (int)x;
    return 0;
}

int main(int argc, char **argv)
{
    const char *arch = "all", *only = NULL;
    int repeat = 3, timing = 1, threads = 1;
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 == argc) {
            fprintf(stderr, "igemm-bench-emu: flag '%s' needs a value\n", argv[i]);
            return 2;
        }
        int bad = 0;
        if (!strcmp(argv[i], "--arch"))
            arch = argv[i + 1];
        else if (!strcmp(argv[i], "--only"))
            only = argv[i + 1];
        else if (!strcmp(argv[i], "--repeat"))
            bad = parse_int_flag(argv[i], argv[i + 1], 1, 1000, &repeat);
        else if (!strcmp(argv[i], "--timing"))
            bad = parse_int_flag(argv[i], argv[i + 1], 0, 1, &timing);
        else if (!strcmp(argv[i], "--threads"))
            bad = parse_int_flag(argv[i], argv[i + 1], 1, 1024, &threads);
        else {
            fprintf(stderr, "usage: igemm-bench-emu [--arch TARGET|all] [--repeat N] [--timing 0|1] [--threads N] "
                            "[--only TEXT]\n");
            return 2;
        }
        if (bad)
            return 2;
    }
    if (strcmp(arch, "all") && !target_by_name(arch)) {
        fprintf(stderr, "igemm-bench-emu: unknown target '%s'\n", arch);
        return 2;
    }
    printf("emulator speed per core (%d worker thread%s; figures over process CPU time, fastest of %d), timing "
           "model %s\n",
           threads, threads == 1 ? "" : "s", repeat, timing ? "on" : "off");
    tally fma = {0}, mfma = {0};
    for (int i = 0; i < igemm_target_count; i++) {
        const target *tg = igemm_targets[i];
        if (strcmp(arch, "all") ? strcmp(arch, tg->name) != 0 : tg->emulate_only)
            continue;
        if (bench_target(tg, threads, repeat, timing, only, &fma, &mfma))
            return 1;
    }
    if (fma.cpu > 0)
        printf("FMA  kernels: %6.2f M inst/s %5.2f GFLOP/s per core\n", fma.insts / fma.cpu / 1e6,
               fma.flops / fma.cpu / 1e9);
    if (mfma.cpu > 0)
        printf("MFMA kernels: %6.2f M inst/s %5.2f GFLOP/s per core\n", mfma.insts / mfma.cpu / 1e6,
               mfma.flops / mfma.cpu / 1e9);
    return 0;
}
