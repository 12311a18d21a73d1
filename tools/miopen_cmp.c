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
 *       and "launch KERNEL GRID BLOCK VALUE..." (the values of the kernel's
 *       arguments after its three pointers, in its order: the comparison
 *       names them from the kernel's metadata).
 *   igemm-miopen fill --seed S --dy FILE --w FILE conv ...
 *       random dy and w (fp32), the sequence `igemm conv --seed S` uses.
 *   igemm-miopen verify --seed S --dx FILE conv ...
 *       dx against the float64 reference by the verify rule; exit 1 on FAIL.
 *
 * With --arch gfx908|gfx90a|gfx942 --miopen-root DIR plan gives the
 * launches of MIOpen's xdlops kernels instead (tools/miopen_xdlops.c, the
 * configuration lists read from the solver sources of the MIOpen checkout
 * DIR; launch lines give values only, in the kernel's argument order after
 * its three pointers; --fp16-alt 0|1 picks
 * gfx90a fp16's implementation, 1 by default as in MIOpen), with more line
 * kinds: "asm FILE SYM=VALUE..." (the kernel file and its --defsym values),
 * "ws BYTES" (an fp32 workspace), "zero BUF KERNEL GRID BLOCK UNITS" (a
 * SetTensor of dx or ws as this project's fill kernel), "cast ws dx"
 * (MIOpen's CastTensor: `igemm-miopen cast`) and "model BUF KERNEL GRID BLOCK
 * UNITS" (a launch timed in the cast's place, its data discarded).
 * fill, verify and cast work in the problem's data type and layout
 * (convfp16, convbfp16, --in_layout NHWC ...):
 *   igemm-miopen cast --ws FILE --dx FILE conv...
 *       fp32 ws to dx of the problem's type, rounded to nearest even.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../include/igemm.h"
#include "../conv/problem.h"
#include "../conv/solver.h"
#include "../conv/half.h"
#include "miopen_xdlops.h"

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
        printf("launch %s %ld %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d "
               "%d %d 0\n",
               kernel, grid, tile == 128 ? 256 : 64, p->hi, p->wi, p->n, p->k, p->c, ho, wo, h.stride, w.stride,
               h.dil, w.dil, p->pad_h, p->pad_w, p->y, p->x, iy, ix, h.dtile_d, w.dtile_d, h.tilda, w.tilda,
               h.tilda_len, w.tilda_len, ys, xs, h.slice, w.slice, h.left, w.left);
    }
    return 0;
}

static int write_bytes(const char *path, const void *v, size_t n)
{
    FILE *f = fopen(path, "wb");
    int bad = !f || fwrite(v, 1, n, f) != n;
    if (f && fclose(f))
        bad = 1;
    return bad ? fail(1, "cannot write", path) : 0;
}

static int read_bytes(const char *path, void *v, size_t n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return fail(1, "cannot read", path);
    int bad = fread(v, 1, n, f) != n || fgetc(f) != EOF;
    fclose(f);
    return bad ? fail(1, "file does not hold exactly N*C*Hi*Wi elements of its type", path) : 0;
}

/* fill (verify = 0): random dy and w of the problem's type and layout, one
 * sequence (dy, then w) as `igemm conv --seed` fills them; verify: dx (of
 * the problem's type) against the float64 reference by the type's rule */
static int cmd_data(const igemm_problem *p, int verify, unsigned long long seed, const char *dyf, const char *wf,
                    const char *dxf)
{
    igemm_shape sh;
    char why[256];
    if (igemm_shape_init(&sh, p, why, sizeof why))
        return fail(2, why, NULL);
    size_t esz = p->dtype == IGEMM_FP32 ? 4 : 2;
    size_t ny = (size_t)sh.dy_elems, nw = (size_t)sh.w_elems, nx = (size_t)sh.dx_elems;
    void *dy = malloc(ny * esz), *w = malloc(nw * esz), *dx = NULL;
    double *ref = NULL, *sum = NULL;
    unsigned char *cov = NULL;
    int rc = 1;
    if (!dy || !w)
        goto out;
    igemm_fill_random_dtype(w, nw, p->dtype, igemm_fill_random_dtype(dy, ny, p->dtype, seed));
    if (!verify) {
        rc = write_bytes(dyf, dy, ny * esz) || write_bytes(wf, w, nw * esz);
        goto out;
    }
    dx = malloc(nx * esz);
    ref = malloc(nx * sizeof *ref);
    sum = malloc(nx * sizeof *sum);
    cov = malloc(nx);
    if (!dx || !ref || !sum || !cov || read_bytes(dxf, dx, nx * esz) ||
        igemm_reference_bwd_data_ex(p, dy, w, ref, sum, cov) != IGEMM_OK)
        goto out;
    igemm_verify_result r;
    int ok = igemm_verify_ex(p, dx, ref, sum, cov, 1e-5, &r);
    printf("verify: max abs err %.3g, max rel err %.3g, max err/allowed %.3g: %s\n", r.max_abs_err, r.max_rel_err,
           r.max_err_ratio, ok ? "PASS" : "FAIL");
    rc = !ok;
out:
    if (!dy || !w || (verify && (!dx || !ref || !sum || !cov)))
        fail(1, "out of memory", NULL);
    free(dy), free(w), free(dx), free(ref), free(sum), free(cov);
    return rc;
}

/* cast: the fp32 workspace ws to dx of the problem's 16-bit type */
static int cmd_cast(const igemm_problem *p, const char *wsf, const char *dxf)
{
    if (p->dtype == IGEMM_FP32)
        return fail(2, "cast wants a 16-bit problem (convfp16 or convbfp16)", NULL);
    size_t n = (size_t)p->n * p->c * p->hi * p->wi;
    float *ws = malloc(n * sizeof *ws);
    uint16_t *dx = malloc(n * sizeof *dx);
    int rc = 1;
    if (!ws || !dx)
        fail(1, "out of memory", NULL);
    else if (!read_bytes(wsf, ws, n * sizeof *ws)) {
        for (size_t i = 0; i < n; i++)
            dx[i] = p->dtype == IGEMM_FP16 ? igemm_f32_to_f16(ws[i]) : igemm_f32_to_bf16(ws[i]);
        rc = write_bytes(dxf, dx, n * sizeof *dx);
    }
    free(ws), free(dx);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return fail(2,
                    "usage: igemm-miopen plan|fill|verify|cast [--arch A --miopen-root DIR] [--fp16-alt 0|1] [--seed S] "
                    "[--dy F --w F | --dx F | --ws F --dx F] conv ...",
                    NULL);
    const char *cmd = argv[1], *dyf = NULL, *wf = NULL, *dxf = NULL, *wsf = NULL, *arch = NULL, *root = NULL;
    unsigned long long seed = 1;
    int alt = 1, i = 2;
    for (; i + 1 < argc && !strncmp(argv[i], "--", 2); i += 2) {
        const char *v = argv[i + 1];
        if (!strcmp(argv[i], "--seed")) {
            char *end;
            seed = strtoull(v, &end, 0);
            if (!*v || *end || *v == '-')
                return fail(2, "--seed wants a number", v);
        } else if (!strcmp(argv[i], "--fp16-alt")) {
            if (strcmp(v, "0") && strcmp(v, "1"))
                return fail(2, "--fp16-alt wants 0 or 1", v);
            alt = *v == '1';
        } else if (!strcmp(argv[i], "--arch"))
            arch = v;
        else if (!strcmp(argv[i], "--miopen-root"))
            root = v;
        else if (!strcmp(argv[i], "--dy"))
            dyf = v;
        else if (!strcmp(argv[i], "--w"))
            wf = v;
        else if (!strcmp(argv[i], "--dx"))
            dxf = v;
        else if (!strcmp(argv[i], "--ws"))
            wsf = v;
        else
            return fail(2, "unknown flag", argv[i]);
    }
    igemm_problem p;
    char why[256];
    if (igemm_problem_parse_args(&p, argc - i, argv + i, why, sizeof why) ||
        igemm_problem_check(&p, why, sizeof why))
        return fail(2, why, NULL);
    if (!strcmp(cmd, "plan"))
        return arch && strcmp(arch, "gfx906") ? xdlops_plan(&p, arch, alt, root, stdout) : cmd_plan(&p);
    if (!strcmp(cmd, "fill") && dyf && wf)
        return cmd_data(&p, 0, seed, dyf, wf, NULL);
    if (!strcmp(cmd, "verify") && dxf)
        return cmd_data(&p, 1, seed, NULL, NULL, dxf);
    if (!strcmp(cmd, "cast") && wsf && dxf)
        return cmd_cast(&p, wsf, dxf);
    return fail(2, "plan, fill --dy F --w F, verify --dx F or cast --ws F --dx F", cmd);
}
