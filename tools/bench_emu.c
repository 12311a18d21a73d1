/* igemm-bench-emu: the emulator's speed on the project's own kernels.
 *
 *   igemm-bench-emu [--arch gfx906] [--repeat N] [--timing 0|1]
 *
 * --timing 1 runs with the timing model on (docs/TIMING.md), as the library
 * does by default; 0 (the default here) measures the functional emulator.
 *
 * Runs a few ResNet-50 layers (batch 1) with several kernel configurations
 * and the naive kernel, on one worker thread and on one per CPU, and prints
 * wave64 instructions per second (wall time of the launches only: data
 * generation and verification are outside the timed region). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../include/igemm.h"
#include "../arch/target.h"
#include "../conv/problem.h"
#include "../conv/util.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct {
    const char *conv;
    const char *solution;
} job;

static const job jobs[] = {
    {"conv -n 1 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -F 2", "igemm_bwd_v4r1_fma_fp32_nchw_128x128x8_t256"},
    {"conv -n 1 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -F 2", "igemm_bwd_v4r1_fma_fp32_nchw_64x64x8_t256"},
    {"conv -n 1 -c 256 -H 14 -W 14 -k 256 -y 3 -x 3 -p 1 -q 1 -F 2", "igemm_bwd_v4r1_fma_fp32_nchw_32x32x8_t64"},
    {"conv -n 1 -c 128 -H 28 -W 28 -k 128 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -F 2", NULL},
    {"conv -n 1 -c 16 -H 28 -W 28 -k 32 -y 3 -x 3 -p 1 -q 1 -F 2", "naive"},
};

/* Runs every job once; returns instructions and seconds. */
static int run_all(const char *arch, int threads, int repeat, int timing, double *insts, double *secs)
{
    igemm_options o = IGEMM_OPTIONS_INIT;
    o.backend = IGEMM_BACKEND_EMU;
    o.arch = arch;
    o.emu_threads = threads;
    o.emu_no_timing = !timing;
    igemm_handle *h;
    char why[512] = "";
    if (igemm_create(&h, &o, why, sizeof why) != IGEMM_OK) {
        fprintf(stderr, "igemm-bench-emu: %s\n", why);
        return -1;
    }
    *insts = *secs = 0;
    for (size_t j = 0; j < sizeof jobs / sizeof jobs[0]; j++) {
        igemm_problem p;
        igemm_shape sh;
        if (igemm_problem_parse_line(&p, jobs[j].conv, why, sizeof why) != 1 ||
            igemm_shape_init(&sh, &p, why, sizeof why) != IGEMM_OK) {
            fprintf(stderr, "igemm-bench-emu: %s: %s\n", jobs[j].conv, why);
            return -1;
        }
        size_t nx = (size_t)sh.dx_elems, ny = (size_t)sh.dy_elems, nw = (size_t)sh.w_elems;
        float *dx = calloc(nx, 4), *dy = calloc(ny, 4), *w = calloc(nw, 4);
        if (!dx || !dy || !w) {
            fprintf(stderr, "igemm-bench-emu: out of memory\n");
            return -1;
        }
        for (size_t i = 0; i < ny; i++)
            dy[i] = (float)(i % 7) - 3.0f;
        for (size_t i = 0; i < nw; i++)
            w[i] = (float)(i % 5) - 2.0f;
        for (int r = 0; r < repeat; r++) {
            igemm_run_info ri;
            double t0 = now();
            igemm_status st = igemm_conv_bwd_data_ex(h, &p, jobs[j].solution, dx, dy, w, &ri);
            double t1 = now();
            if (st != IGEMM_OK) {
                fprintf(stderr, "igemm-bench-emu: %s\n", igemm_last_error(h));
                return -1;
            }
            *insts += (double)ri.insts;
            *secs += t1 - t0;
            if (!r && threads == 1)
                printf("  %-62s %-44s %9.0f inst %6.3f s %6.1f M/s\n", jobs[j].conv + 5,
                       jobs[j].solution ? jobs[j].solution : ri.solution, (double)ri.insts, t1 - t0,
                       (double)ri.insts / (t1 - t0) / 1e6);
        }
        free(dx);
        free(dy);
        free(w);
    }
    igemm_destroy(h);
    return 0;
}

int main(int argc, char **argv)
{
    const char *arch = TARGET_DEFAULT->name;
    int repeat = 1, timing = 0;
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 == argc) {
            fprintf(stderr, "igemm-bench-emu: flag '%s' needs a value\n", argv[i]);
            return 2;
        }
        if (!strcmp(argv[i], "--arch"))
            arch = argv[i + 1];
        else if (!strcmp(argv[i], "--repeat")) {
            long v;
            if (parse_long(argv[i + 1], 1, 1000, &v)) {
                fprintf(stderr, "igemm-bench-emu: --repeat needs an integer in [1, 1000], got '%s'\n", argv[i + 1]);
                return 2;
            }
            repeat = (int)v;
        } else if (!strcmp(argv[i], "--timing")) {
            long v;
            if (parse_long(argv[i + 1], 0, 1, &v)) {
                fprintf(stderr, "igemm-bench-emu: --timing needs 0 or 1, got '%s'\n", argv[i + 1]);
                return 2;
            }
            timing = (int)v;
        } else {
            fprintf(stderr, "usage: igemm-bench-emu [--arch TARGET] [--repeat N] [--timing 0|1]\n");
            return 2;
        }
    }
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    double i1, s1, in, sn;
    printf("emulator speed on %s (wave64 instructions per second of launch wall time), timing model %s\n", arch,
           timing ? "on" : "off");
    printf("one worker thread:\n");
    if (run_all(arch, 1, repeat, timing, &i1, &s1))
        return 1;
    if (run_all(arch, (int)ncpu, repeat, timing, &in, &sn))
        return 1;
    printf("total: 1 thread  %.1f M inst/s (%.0f instructions in %.2f s)\n", i1 / s1 / 1e6, i1, s1);
    printf("       %ld threads %.1f M inst/s (%.1f M/s per core)\n", ncpu, in / sn / 1e6, in / sn / 1e6 / (double)ncpu);
    return 0;
}
