/* igemm-miopen: the host side of a comparison with MIOpen's gfx906 dynamic
 * v4r1 backward-data kernels (ConvAsmImplicitGemmV4R1DynamicBwd), for
 * tools/compare_miopen.sh and docs/MIOPEN.md. It holds none of MIOpen's code:
 * its applicability rule, kernel choice, grid and argument values are written
 * here from the published host code (src/solver/conv/
 * conv_asm_implicit_gemm_bwd_v4r1_dynamic.cpp, src/conv/invokers/
 * impl_gemm_dynamic.cpp) so that `igemm emu-run` can launch a user's own
 * assembled copy of src/kernels/dynamic_igemm/igemm_bwd_gtc_dynamic.s.
 *
 *   igemm-miopen plan conv -n N -c C ... -F 2
 *       "skip REASON" when MIOpen's rule refuses the problem, else "dx BYTES"
 *       (the size of dx), then one line per launch in order: "zero GRID BLOCK DWORDS" (MIOpen's SetTensor of dx,
 *       timed with this project's fill kernel, same launch as plan_zero_fill)
 *       and "launch KERNEL GRID BLOCK NAME=VALUE..." (emu-run --arg values).
 *   igemm-miopen fill --seed S --dy FILE --w FILE conv ...
 *       random dy and w (fp32), the sequence `igemm conv --seed S` uses.
 *   igemm-miopen verify --seed S --dx FILE conv ...
 *       dx against the float64 reference by the verify rule; exit 1 on FAIL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../include/igemm.h"
#include "../conv/problem.h"
#include "../conv/solver.h"

static int fail(int status, const char *msg, const char *arg)
{
    fprintf(stderr, "igemm-miopen: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    return status;
}

static int imax(int a, int b) { return a > b ? a : b; }
static int imin(int a, int b) { return a < b ? a : b; }

/* One spatial dimension as MIOpen's invoker derives it (dx size in, dy size
 * out): stride counts only when out > 1, dilation only when filter > 1. */
typedef struct {
    int stride, dil, tilda, dot, dtile_d, tilda_len, left, slice;
} mdim;

static mdim mdim_make(int in, int out, int filter, int stride, int dil, int pad)
{
    mdim d;
    d.stride = out > 1 ? stride : 1;
    d.dil = filter > 1 ? dil : 1;
    int g = igemm_gcd(d.stride, d.dil);
    d.tilda = d.stride / g;
    d.dot = (filter + d.tilda - 1) / d.tilda;
    d.dtile_d = d.dil / g;
    d.tilda_len = out + (d.dil * (filter - 1) + d.stride - 1) / d.stride;
    d.left = imax(0, pad - d.dil * (d.tilda - 1)) / d.stride;
    int right = imin(d.tilda_len, (pad + in - 1 + d.stride - 1) / d.stride + 1);
    d.slice = right - d.left;
    return d;
}

/* MIOpen's kernel choice (FindImplicitGemmDynamicKernelBwd): name and tile,
 * or NULL with the reason. */
static const char *pick_kernel(const igemm_problem *p, int ho, int wo, const mdim *h, const mdim *w, int *tile,
                               const char **why)
{
    long gm = p->c, gn = (long)p->n * h->slice * w->slice;
    int plain1x1 = p->y == 1 && p->x == 1 && h->stride == 1 && w->stride == 1 && h->dil == 1 && w->dil == 1 &&
                   p->pad_h == 0 && p->pad_w == 0;
    *tile = 128;
    if (gm % 128 == 0 && gn % 128 == 0 && p->k % 16 == 0)
        return plain1x1 && p->n % 128 == 0 ? "igemm_bwd_gtc_bt128x128x16_tt8x8_gm2x4x4_gn2x4x4_ta1x1x1x2x4_"
                                             "16x1x1x16x1_tb1x1x1x2x4x1x1_16x1x1x16x1x1x1"
                                           : "igemm_bwd_gtc";
    if (plain1x1 && gm % 128 == 0 && gn % 128 == 0 && p->k % 8 == 0 && ((long)ho * wo) % 16 == 0)
        return "igemm_bwd_gtc_bt128x128x8_tt8x8_gm2x4x4_gn2x4x4_ta1x1x1x1x4_8x1x1x32x1_tb1x1x1x1x4x1x1_"
               "8x1x1x2x1x1x16";
    if (plain1x1 && gm % 64 == 0 && gn % 64 == 0 && p->k % 8 == 0 && p->n % 64 == 0) {
        *tile = 64;
        return "igemm_bwd_gtc_bt64x64x8_tt8x8_gm2x4x2_gn2x4x2_ta1x2x1x1x4_4x1x1x16x1_tb1x2x1x1x4x1x1_"
               "4x1x1x16x1x1x1";
    }
    *why = gm % 128 ? "C % 128 != 0"
           : gn % 128 ? "N*HTildaSlice*WTildaSlice % 128 != 0"
                      : "K % 16 != 0";
    return NULL;
}

static int cmd_plan(const igemm_problem *p)
{
    if (p->groups != 1 || p->layout != IGEMM_LAYOUT_NCHW || p->dtype != IGEMM_FP32) {
        printf("skip groups, layout or data type (MIOpen's kernel: 1 group, NCHW fp32)\n");
        return 0;
    }
    int ho = igemm_problem_ho(p), wo = igemm_problem_wo(p);
    mdim h = mdim_make(p->hi, ho, p->y, p->stride_h, p->dil_h, p->pad_h);
    mdim w = mdim_make(p->wi, wo, p->x, p->stride_w, p->dil_w, p->pad_w);
    const char *why = "";
    int tile;
    const char *kernel = pick_kernel(p, ho, wo, &h, &w, &tile, &why);
    if (!kernel) {
        printf("skip %s\n", why);
        return 0;
    }
    printf("dx %lld\n", (long long)p->n * p->c * p->hi * p->wi * 4);
    if (p->y < h.stride || p->x < w.stride || h.dil != 1 || w.dil != 1) {
        igemm_shape sh;
        char err[256];
        launch_plan lp = {0};
        if (igemm_shape_init(&sh, p, err, sizeof err) || plan_zero_fill(&lp, &sh, 0, p->n))
            return fail(2, "cannot plan the zero fill", err);
        igemm_fill_args a;
        memcpy(&a, lp.l[0].args, sizeof a);
        printf("zero %u %u %u\n", lp.l[0].grid, lp.l[0].block, a.dwords);
        free(lp.l);
    }
    long grid = ((long)p->c / tile) * ((long)p->n * h.slice * w.slice / tile);
    for (int g = 0; g < h.tilda * w.tilda; g++) {
        int iy = g / w.tilda, ix = g % w.tilda;
        int ys = (iy + 1) * h.dot <= p->y ? h.dot : p->y % h.dot;
        int xs = (ix + 1) * w.dot <= p->x ? w.dot : p->x % w.dot;
        if ((long)p->k * ys * xs <= 0)
            continue;
        printf("launch %s %ld %d hi=%d wi=%d n_=%d k=%d c=%d ho=%d wo=%d stride_h=%d stride_w=%d dilation_h=%d "
               "dilation_w=%d pad_h=%d pad_w=%d y_=%d x=%d dtile_iy=%d dtile_ix=%d dtile_dy=%d dtile_dx=%d "
               "dtile_y=%d dtile_x=%d dtile_h=%d dtile_w=%d dslice_y=%d dslice_x=%d dslice_h=%d dslice_w=%d "
               "dslice_h_left=%d dslice_w_left=%d __pack0=0\n",
               kernel, grid, tile == 128 ? 256 : 64, p->hi, p->wi, p->n, p->k, p->c, ho, wo, h.stride, w.stride,
               h.dil, w.dil, p->pad_h, p->pad_w, p->y, p->x, iy, ix, h.dtile_d, w.dtile_d, h.tilda, w.tilda,
               h.tilda_len, w.tilda_len, ys, xs, h.slice, w.slice, h.left, w.left);
    }
    return 0;
}

static int write_floats(const char *path, const float *v, size_t n)
{
    FILE *f = fopen(path, "wb");
    int bad = !f || fwrite(v, sizeof *v, n, f) != n;
    if (f && fclose(f))
        bad = 1;
    return bad ? fail(1, "cannot write", path) : 0;
}

static int read_floats(const char *path, float *v, size_t n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return fail(1, "cannot read", path);
    int bad = fread(v, sizeof *v, n, f) != n || fgetc(f) != EOF;
    fclose(f);
    return bad ? fail(1, "dx file does not hold exactly N*C*Hi*Wi floats", path) : 0;
}

static int cmd_data(const igemm_problem *p, int verify, unsigned long long seed, const char *dyf, const char *wf,
                    const char *dxf)
{
    igemm_shape sh;
    char why[256];
    if (igemm_shape_init(&sh, p, why, sizeof why))
        return fail(2, why, NULL);
    size_t ny = (size_t)sh.dy_elems, nw = (size_t)sh.w_elems, nx = (size_t)sh.dx_elems;
    float *dy = malloc(ny * sizeof *dy), *w = malloc(nw * sizeof *w), *dx = NULL;
    double *ref = NULL, *sum = NULL;
    unsigned char *cov = NULL;
    int rc = 1;
    if (!dy || !w)
        goto out;
    igemm_fill_random(w, nw, igemm_fill_random(dy, ny, seed)); /* one sequence: dy, then w */
    if (!verify) {
        rc = write_floats(dyf, dy, ny) || write_floats(wf, w, nw);
        goto out;
    }
    dx = malloc(nx * sizeof *dx);
    ref = malloc(nx * sizeof *ref);
    sum = malloc(nx * sizeof *sum);
    cov = malloc(nx);
    if (!dx || !ref || !sum || !cov || read_floats(dxf, dx, nx) ||
        igemm_reference_bwd_data(p, dy, w, ref, sum, cov) != IGEMM_OK)
        goto out;
    igemm_verify_result r;
    int ok = igemm_verify(p, dx, ref, sum, cov, 1e-5, &r);
    printf("verify: max abs err %.3g, max rel err %.3g: %s\n", r.max_abs_err, r.max_rel_err, ok ? "PASS" : "FAIL");
    rc = !ok;
out:
    if (!dy || !w || (verify && (!dx || !ref || !sum || !cov)))
        fail(1, "out of memory", NULL);
    free(dy), free(w), free(dx), free(ref), free(sum), free(cov);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return fail(2, "usage: igemm-miopen plan|fill|verify [--seed S] [--dy F --w F | --dx F] conv ...", NULL);
    const char *cmd = argv[1], *dyf = NULL, *wf = NULL, *dxf = NULL;
    unsigned long long seed = 1;
    int i = 2;
    for (; i + 1 < argc && !strncmp(argv[i], "--", 2); i += 2) {
        if (!strcmp(argv[i], "--seed")) {
            char *end;
            seed = strtoull(argv[i + 1], &end, 0);
            if (!*argv[i + 1] || *end || *argv[i + 1] == '-')
                return fail(2, "--seed wants a number", argv[i + 1]);
        } else if (!strcmp(argv[i], "--dy"))
            dyf = argv[i + 1];
        else if (!strcmp(argv[i], "--w"))
            wf = argv[i + 1];
        else if (!strcmp(argv[i], "--dx"))
            dxf = argv[i + 1];
        else
            return fail(2, "unknown flag", argv[i]);
    }
    igemm_problem p;
    char why[256];
    if (igemm_problem_parse_args(&p, argc - i, argv + i, why, sizeof why) ||
        igemm_problem_check(&p, why, sizeof why))
        return fail(2, why, NULL);
    if (!strcmp(cmd, "plan"))
        return cmd_plan(&p);
    if (!strcmp(cmd, "fill") && dyf && wf)
        return cmd_data(&p, 0, seed, dyf, wf, NULL);
    if (!strcmp(cmd, "verify") && dxf)
        return cmd_data(&p, 1, seed, NULL, NULL, dxf);
    return fail(2, "plan, fill --dy F --w F or verify --dx F", cmd);
}
