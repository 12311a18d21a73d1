/* MIOpen's xdlops backward-data solvers, host side (miopen_xdlops.h): the
 * applicability rules, the default configuration (the heuristic MIOpen runs
 * without a find database entry), grid, block, kernel arguments and the
 * extra launches of the invokers, written anew from the published host code
 * of ROCm/MIOpen (src/solver/conv/conv_asm_implicit_gemm_gtc_bwd.cpp,
 * conv_asm_implicit_gemm_gtc_bwd_nhwc.cpp, src/include/miopen/conv/
 * asm_implicit_gemm.hpp, src/conv/invokers/impl_gemm_dynamic.cpp). The
 * configuration and tile lists the rules walk are MIOpen's own, read from
 * the user's checkout (tools/miopen_lists.c). A launch line gives the
 * kernel's arguments after its three pointers as values in the kernel's
 * argument order; tools/compare_miopen_xdlops.sh names them from the
 * kernel's metadata. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "miopen_xdlops.h"
#include "../conv/problem.h"
#include "../conv/solver.h"
#include "../conv/types.h"

void xdlops_cfg_name(const xdlops_cfg *c, const char *gtc, const char *layout, char *buf, size_t len)
{
    int o = snprintf(buf, len,
                     "igemm_bwd_%s_%s_%s_bx%d_ex%d_bt%dx%dx%d_wt%dx%dx%d_ws%dx%d_wr%dx%d_ta%dx%dx%dx%d_%dx%dx%dx%d_tb%"
                     "dx%dx%dx%d_%dx%dx%dx%d%s%s%s",
                     gtc, layout, c->prec, c->nxb, c->nxe, c->m, c->n, c->k, c->wt[0], c->wt[1], c->wt[2], c->ws[0],
                     c->ws[1], c->wr[0], c->wr[1], c->ta_t[0], c->ta_t[1], c->ta_t[2], c->ta_t[3], c->ta_c[0],
                     c->ta_c[1], c->ta_c[2], c->ta_c[3], c->tb_t[0], c->tb_t[1], c->tb_t[2], c->tb_t[3], c->tb_c[0],
                     c->tb_c[1], c->tb_c[2], c->tb_c[3], c->pta ? "_pta" : "", c->mh ? "_mh" : "",
                     c->me ? "_me" : "");
    if (o > 0 && (size_t)o < len && c->vs)
        o += snprintf(buf + o, len - (size_t)o, "_vs%d", c->vs);
    if (o > 0 && (size_t)o < len && c->gks)
        snprintf(buf + o, len - (size_t)o, "_gkgs");
}

/* ---- the problem as the xdlops solvers see it ---- */

/* One spatial dimension: the stride counts only when dx's size is > 1 (the
 * solvers read GetOutHeight, dx's height in a backward-data problem), the
 * dilation only when the filter is > 1. */
typedef struct {
    int stride, dil, gcd, tilda, dot, tilda_len, left, slice;
} xdim;

typedef struct {
    const igemm_problem *p;
    const xdlops_lists *l;
    int ho, wo, g, kg, cg, esz;
    xdim h, w;
    int ngemm, unit, splits;
    long long gemm_m_nhwc, gemm_n_nhwc; /* NHWC: N*HTildaSlice*WTildaSlice (per batch split), C/G */
} xprob;

static xdim xdim_make(int in, int out, int filter, int stride, int dil, int pad)
{
    xdim d;
    d.stride = in > 1 ? stride : 1;
    d.dil = filter > 1 ? dil : 1;
    d.gcd = igemm_gcd(d.stride, d.dil);
    d.tilda = d.stride / d.gcd;
    d.dot = (filter + d.tilda - 1) / d.tilda;
    d.tilda_len = out + (d.dil * (filter - 1) + d.stride - 1) / d.stride;
    int left = pad - d.dil * (d.tilda - 1);
    d.left = (left > 0 ? left : 0) / d.stride;
    int right = (pad + in - 1 + d.stride - 1) / d.stride + 1;
    d.slice = (d.tilda_len < right ? d.tilda_len : right) - d.left;
    return d;
}

/* igemm_split_batch_size: the number of batch pieces that keep each tensor
 * of a piece below 4 GiB; 0 when one image alone does not fit. */
static int split_batch(const xprob *x)
{
    const igemm_problem *p = x->p;
    uint64_t in = (uint64_t)p->c * p->hi * p->wi * x->esz, out = (uint64_t)p->k * x->ho * x->wo * x->esz;
    uint64_t image = in > out ? in : out, lim = 0xffffffffu, n = (uint64_t)p->n;
    if (image >= lim)
        return 0;
    uint64_t max_n = lim / image;
    if (max_n > n)
        max_n = n % max_n;
    else if (max_n < n) {
        uint64_t m = n / max_n, root = 1;
        while ((root + 1) * (root + 1) <= n)
            root++;
        while (n % max_n) {
            if (n % m == 0)
                max_n = n / m;
            else if (++m > root)
                max_n = 1;
        }
    }
    return (int)(n / max_n);
}

static void xprob_make(xprob *x, const igemm_problem *p, const xdlops_lists *l)
{
    x->p = p;
    x->l = l;
    x->ho = igemm_problem_ho(p);
    x->wo = igemm_problem_wo(p);
    x->g = p->groups;
    x->kg = p->k / p->groups;
    x->cg = p->c / p->groups;
    x->esz = p->dtype == IGEMM_FP32 ? 4 : 2;
    x->h = xdim_make(p->hi, x->ho, p->y, p->stride_h, p->dil_h, p->pad_h);
    x->w = xdim_make(p->wi, x->wo, p->x, p->stride_w, p->dil_w, p->pad_w);
    x->ngemm = x->h.tilda * x->w.tilda;
    x->unit = p->y == 1 && p->x == 1 && x->h.stride == 1 && x->w.stride == 1 && x->h.dil == 1 && x->w.dil == 1 &&
              p->pad_h == 0 && p->pad_w == 0;
    x->splits = split_batch(x);
    x->gemm_m_nhwc = (long long)(x->splits ? p->n / x->splits : p->n) * x->h.slice * x->w.slice;
    x->gemm_n_nhwc = x->cg;
}

/* phase i's YDotSlice and XDotSlice (<= 0: the phase has no taps) */
static void phase_slices(const xprob *x, int i, int *ys, int *xs)
{
    int iy = i / x->w.tilda, ix = i % x->w.tilda;
    *ys = (iy + 1) * x->h.dot <= x->p->y ? x->h.dot : x->p->y % x->h.dot;
    *xs = (ix + 1) * x->w.dot <= x->p->x ? x->w.dot : x->p->x % x->w.dot;
}

static long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }
static int prod4(const int v[4]) { return v[0] * v[1] * v[2] * v[3]; }
static uint32_t pack_shift(uint32_t s0, uint32_t s1, uint32_t s2, uint32_t s3)
{
    return s0 | s1 << 8 | s2 << 16 | s3 << 24;
}

static int need_zero(const xprob *x)
{
    return x->p->y < x->h.stride || x->p->x < x->w.stride || x->h.dil != 1 || x->w.dil != 1;
}

/* "zero BUF KERNEL GRID BLOCK UNITS": a SetTensor of buffer BUF (dx, or the
 * fp32 workspace ws) timed as this project's fill kernel of the element size
 * (plan_zero_fill's launch); model = 1: "model ..." (timed, data unchanged) */
static int print_fill(FILE *out, const igemm_problem *p, igemm_dtype d, const char *buf, int model)
{
    igemm_problem q = *p;
    q.dtype = d;
    q.fp16_mode = IGEMM_FP16_ACCURATE;
    igemm_shape sh;
    char err[256];
    launch_plan lp = {0};
    if (igemm_shape_init(&sh, &q, err, sizeof err) || plan_zero_fill(&lp, &sh, 0, p->n)) {
        fprintf(stderr, "igemm-miopen: cannot plan the zero fill: %s\n", err);
        plan_free(&lp);
        return 2;
    }
    igemm_fill_args a;
    memcpy(&a, lp.l[0].args, sizeof a);
    fprintf(out, "%s %s %s %u %u %u\n", model ? "model" : "zero", buf, lp.l[0].kernel, lp.l[0].grid, lp.l[0].block,
            a.dwords);
    plan_free(&lp);
    return 0;
}

static int prec_is(const xdlops_cfg *c, igemm_dtype d)
{
    return !strcmp(c->prec, d == IGEMM_FP32 ? "fp32" : d == IGEMM_FP16 ? "fp16" : "bf16");
}

/* ---- gfx908 NCHW fp32: FindImplicitGemmGtcDynamicBwdKernel ---- */

static int nchw_block(const xdlops_cfg *c)
{
    return (c->m / (c->wt[0] * c->ws[0] * c->wr[0])) * (c->n / (c->wt[1] * c->ws[1] * c->wr[1])) * 64;
}

/* Whether configuration c fits (pass 1: GEMM N from the unpadded slice;
 * pass 2: the slice padded to nxb), and GEMM N. */
static int nchw_fits(const xprob *x, const xdlops_cfg *c, int pass, long long *gemm_n)
{
    const igemm_problem *p = x->p;
    long long hw = (long long)x->h.slice * x->w.slice;
    long long b = pass == 1 || c->nxe == 0 ? hw : ceil_div(hw, c->nxb) * c->nxb;
    *gemm_n = (long long)p->n * b;
    if (c->nxe == 0 && !x->unit)
        return 0;
    if (*gemm_n % c->n || x->cg % c->m || c->n % c->nxb || p->n % (c->n / c->nxb) || b % c->nxb)
        return 0;
    if ((c->ta_t[0] != 1 || c->ta_t[1] != 1 || c->tb_t[0] != 1 || c->tb_t[1] != 1) && x->kg % c->k)
        return 0;
    for (int i = 0; i < x->ngemm; i++) {
        int ys, xs;
        phase_slices(x, i, &ys, &xs);
        long long gk = (long long)x->kg * ys * xs;
        if (gk > 0 && gk % c->k)
            return 0;
    }
    return 1;
}

static int nchw_plan(const xprob *x, FILE *out)
{
    const igemm_problem *p = x->p;
    if (p->layout != IGEMM_LAYOUT_NCHW || p->dtype != IGEMM_FP32 || p->groups != 1) {
        fprintf(out, "skip groups, layout or data type (MIOpen's NCHW xdlops kernels here: 1 group, NCHW fp32)\n");
        return 0;
    }
    xdlops_cfg c;
    long long gemm_n = 0;
    int found = 0;
    for (int pass = 1; pass <= 2 && !found; pass++)
        for (int i = 0; i < x->l->count && !found; i++)
            if (prec_is(&x->l->cfg[i], IGEMM_FP32) && nchw_fits(x, &x->l->cfg[i], pass, &gemm_n))
                c = x->l->cfg[i], found = 1;
    if (!found) {
        fprintf(out, "skip no tunable configuration fits (C, N*HTildaSlice*WTildaSlice or K*YDotSlice*XDotSlice)\n");
        return 0;
    }
    char name[256];
    xdlops_cfg_name(&c, "gtcx", "nchw", name, sizeof name);
    fprintf(out, "asm %s.s ROCM_METADATA_VERSION=5\n", name);
    fprintf(out, "dx %lld\n", (long long)p->n * p->c * p->hi * p->wi * 4);
    if (need_zero(x) && print_fill(out, p, IGEMM_FP32, "dx", 0))
        return 2;
    long long grid = ceil_div(x->cg, c.m) * ceil_div(gemm_n, c.n);
    long long b = (long long)x->h.slice * x->w.slice;
    if (c.nxe)
        b = ceil_div(b, c.nxb) * c.nxb;
    uint32_t n0 = (uint32_t)(c.tb_c[2] * c.tb_t[2]), n1b = (uint32_t)(c.tb_c[3] * c.tb_t[3]);
    uint32_t sub_n1 = (uint32_t)(c.n / c.nxb) / n0;
    igemm_magic m2 = igemm_magic_for((uint32_t)((long long)x->cg * p->n * b / ((long long)c.m * c.n)));
    igemm_magic m3 = igemm_magic_for((uint32_t)(p->n * b / c.n)), m4 = igemm_magic_for((uint32_t)(b * sub_n1 / n1b));
    igemm_magic m5 = igemm_magic_for((uint32_t)b), m6 = igemm_magic_for((uint32_t)x->w.slice);
    for (int i = 0; i < x->ngemm; i++) {
        int ys, xs;
        phase_slices(x, i, &ys, &xs);
        if ((long long)x->kg * ys * xs <= 0)
            continue;
        igemm_magic m0 = igemm_magic_for((uint32_t)(ys * xs)), m1 = igemm_magic_for((uint32_t)xs);
        fprintf(out,
                "launch %s %lld %d dx %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d "
                "%d %d %d %d %d %u %u %u %u %u %u %u %u %u 0\n",
                name, grid, nchw_block(&c), p->hi, p->wi, p->n, x->kg, x->cg, x->ho, x->wo, x->h.stride,
                x->w.stride, x->h.dil, x->w.dil, p->pad_h, p->pad_w, p->y, p->x, i / x->w.tilda, i % x->w.tilda,
                x->h.dil / x->h.gcd, x->w.dil / x->w.gcd, x->h.tilda, x->w.tilda, x->h.tilda_len, x->w.tilda_len, ys,
                xs, x->h.slice, x->w.slice, x->h.left, x->w.left, p->groups, m0.magic, m1.magic, m2.magic, m3.magic,
                m4.magic, m5.magic, m6.magic, pack_shift(m0.shift, m1.shift, m2.shift, m3.shift),
                pack_shift(m4.shift, m5.shift, m6.shift, 0));
    }
    return 0;
}

/* ---- gfx908/gfx90a/gfx942 NHWC: ConvAsmImplicitGemmGTCDynamicBwdXdlopsNHWC ---- */

static long long nhwc_grid(const xprob *x, const xdlops_cfg *c)
{
    long long grid = (long long)x->g * ceil_div(x->gemm_m_nhwc, c->m) * ceil_div(x->gemm_n_nhwc, c->n) << c->gks;
    return c->mh ? grid * x->ngemm : grid;
}

static long long pad_size(long long col, long long cpb, long long row, long long rpb)
{
    long long ce = ceil_div(col, cpb) * cpb - col, re = ceil_div(row, rpb) * rpb - row;
    return ce * row + re * col + ce * re;
}

/* PerformanceConfigAsmImplicitGemmGTCBwdXdlopsNHWC::IsValid (not the spare set) */
static int nhwc_valid(const xprob *x, const xdlops_cfg *c)
{
    igemm_dtype d = x->p->dtype;
    if (!prec_is(c, d))
        return 0;
    if (d == IGEMM_FP16 && c->gks && c->vs != 1 && x->splits > 1)
        return 0;
    if ((unsigned long long)prod4(c->ta_c) * (unsigned long long)nhwc_grid(x, c) * (unsigned)x->splits >
        0xffffffffull)
        return 0;
    if (!(c->ta_t[1] == 1 && c->me == 1)) {
        if (c->gks && (c->k << c->gks) > x->kg)
            return 0;
        if (((x->p->k >> c->gks) / x->g) % c->k)
            return 0;
    }
    int plain = c->ta_t[1] == 1 && c->tb_t[3] == 1 && c->me == 1 && c->gks == 0;
    int vec = igemm_gcd(c->n, c->vs == 0 ? 8 : c->vs);
    if (d == IGEMM_FP16 && !plain && (c->gks ? x->cg % 2 : x->cg % vec))
        return 0;
    if (d == IGEMM_BF16 && !plain && !c->gks && x->cg % vec)
        return 0;
    return !(c->nxe == 0 && !x->unit);
}

/* HeuristicInitMacroTileNoPadGemmK: the first tile dividing M, N and K, else
 * the M, N tiles of least padding with the first K tile dividing K; 0 when none */
static xdlops_tile macro_tile(long long gm, long long gn, long long gk, const xdlops_tile *list, int count)
{
    xdlops_tile none = {0, 0, 0};
    for (int i = 0; i < count; i++)
        if (gm % list[i].m == 0 && gn % list[i].n == 0 && gk % list[i].k == 0)
            return list[i];
    long long best = -1;
    int bm = 0, bn = 0;
    for (int i = 0; i < count; i++) {
        if (gk % list[i].k)
            continue;
        long long pad = pad_size(gm, list[i].m, gk, list[i].k) + pad_size(gn, list[i].n, gk, list[i].k) +
                        pad_size(gm, list[i].m, gn, list[i].n);
        if (best < 0 || pad < best)
            best = pad, bm = list[i].m, bn = list[i].n;
    }
    for (int i = 0; i < count; i++)
        if (list[i].m == bm && list[i].n == bn && gk % list[i].k == 0)
            return list[i];
    return none;
}

/* find_with_gemm_k_pad: the configuration with thread lengths 1 along K of
 * least padding (the first of equals) */
static void nhwc_pad_config(const xprob *x, xdlops_cfg *out)
{
    long long best = -1;
    for (int i = 0; i < x->l->count; i++) {
        xdlops_cfg c = x->l->cfg[i];
        if (!prec_is(&c, x->p->dtype) || c.ta_t[1] != 1 || c.tb_t[1] != 1)
            continue;
        long long pad = pad_size(x->gemm_m_nhwc, c.m, x->kg, c.k) + pad_size(x->gemm_n_nhwc, c.n, x->kg, c.k) +
                        pad_size(x->gemm_m_nhwc, c.m, x->gemm_n_nhwc, c.n);
        if (best < 0 || pad < best)
            best = pad, *out = c;
    }
}

/* ComputeLog2GemmKGlobalSplitsWith2DMerge(grid, 1200, K/G, 1, kpb, 8) */
static int log2_k_splits(long long grid, int kg, int kpb)
{
    int r = 0;
    for (int gs = 0; gs < 8; gs++) {
        if ((grid << gs) > 1200 || kg % (1 << gs) || (kg >> gs) % kpb)
            break;
        r = gs;
    }
    return r;
}

/* PerformanceConfigAsmImplicitGemmGTCBwdXdlopsNHWC::HeuristicInit (MIOpen's
 * default configuration; the env switches at their defaults) */
static void nhwc_heuristic(const xprob *x, xdlops_cfg *out)
{
    igemm_dtype d = x->p->dtype;
    xdlops_tile t = macro_tile(x->gemm_m_nhwc, x->gemm_n_nhwc, x->kg, x->l->tiles[d], x->l->tile_count[d]);
    int no_vector_store = d != IGEMM_FP32 && x->cg % 2;
    if ((t.m == 0 && t.n == 0 && t.k == 0) || no_vector_store) {
        nhwc_pad_config(x, out);
        return;
    }
    for (int i = 0; i < x->l->count; i++) {
        xdlops_cfg c = x->l->cfg[i];
        if (!prec_is(&c, d) || c.m != t.m || c.n != t.n || c.k != t.k)
            continue;
        int split = d == IGEMM_FP16 && x->p->c % 8 && x->p->c % 2 == 0;
        int gks = log2_k_splits(nhwc_grid(x, &c), x->kg, c.k);
        split |= gks != 0;
        if ((x->unit && c.nxe == 0) || (!x->unit && c.nxe != 0)) {
            if (!nhwc_valid(x, &c))
                continue;
            *out = c;
            if (split && gks > 0)
                out->gks = gks;
            return;
        }
    }
    nhwc_pad_config(x, out);
}

/* ConvAsmImplicitGemmGTCDynamicBwdXdlopsNHWC::IsApplicable; NULL or the reason */
static const char *nhwc_refusal(const xprob *x, const char *arch)
{
    const igemm_problem *p = x->p;
    if (p->layout != IGEMM_LAYOUT_NHWC)
        return "layout (this harness runs MIOpen's NHWC solver on NHWC problems)";
    if (p->groups != 1)
        return "groups != 1 (WORKAROUND_ISSUE_1979)";
    if (p->dtype == IGEMM_BF16 && !strcmp(arch, "gfx908"))
        return "bf16 on gfx908";
    if (x->splits == 0)
        return "an image of 4 GiB or more";
    const xdlops_cfg *c = &x->l->largest[p->dtype];
    if ((unsigned long long)prod4(c->ta_c) * (unsigned long long)nhwc_grid(x, c) * (unsigned)x->splits >
        0xffffffffull)
        return "grid of the largest tile past 2^32 work-items";
    return NULL;
}

static int nhwc_plan(const xprob *x, const char *arch, int fp16_alt, FILE *out)
{
    const igemm_problem *p = x->p;
    const char *why = nhwc_refusal(x, arch);
    if (why) {
        fprintf(out, "skip %s\n", why);
        return 0;
    }
    xdlops_cfg c;
    nhwc_heuristic(x, &c);
    char name[256];
    const char *gtc = !strcmp(arch, "gfx908") ? "gtcx" : !strcmp(arch, "gfx90a") ? "gtcx2" : "gtcx3";
    xdlops_cfg_name(&c, gtc, "nhwc", name, sizeof name);
    fprintf(out, "asm %s.s ROCM_METADATA_VERSION=5", name);
    if (!strncmp(arch, "gfx94", 5))
        fprintf(out, " force_sc0_sc1=0 atomic_add_using_cas=0");
    if (!strcmp(arch, "gfx90a") && p->dtype == IGEMM_FP16)
        fprintf(out, " igemm_bwd_fp16_alt_impl=%d", fp16_alt);
    fprintf(out, "\n");
    long long elems = (long long)p->n * p->c * p->hi * p->wi;
    fprintf(out, "dx %lld\n", elems * x->esz);
    int zero = need_zero(x) || c.gks > 0;
    int cast = p->dtype == IGEMM_FP16 ? c.vs == 1 && c.gks > 0 : p->dtype == IGEMM_BF16 ? zero : 0;
    const char *buf = cast ? "ws" : "dx";
    if (cast)
        fprintf(out, "ws %lld\n", elems * 4);
    if (zero && print_fill(out, p, cast ? IGEMM_FP32 : p->dtype, buf, 0))
        return 2;
    long long gn = ceil_div(x->gemm_n_nhwc, c.n), gm = ceil_div(x->gemm_m_nhwc, c.m);
    igemm_magic mx = igemm_magic_for((uint32_t)x->w.tilda), my = igemm_magic_for((uint32_t)x->h.tilda);
    igemm_magic mg = igemm_magic_for((uint32_t)(x->g * gn * gm)), m0 = igemm_magic_for((uint32_t)gn);
    igemm_magic m1 = igemm_magic_for((uint32_t)(gn * gm));
    igemm_magic m2 = igemm_magic_for((uint32_t)(c.nxe ? x->w.slice : p->wi));
    igemm_magic m3 = igemm_magic_for((uint32_t)(x->h.slice * x->w.slice));
    int multi = x->ngemm > 1;
    fprintf(out,
            "launch %s %lld %d %s %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %u %u %d %d %d %d %u %u %u %u %d "
            "%d %d %d %d %u %u %u %u %u %d\n",
            name, nhwc_grid(x, &c), prod4(c.ta_c), buf, p->hi, p->wi, x->splits ? p->n / x->splits : 1, x->kg, x->cg,
            x->ho, x->wo, x->h.stride, x->w.stride, x->h.dil, x->w.dil, p->pad_h, p->pad_w, p->y, p->x,
            multi ? mx.magic : 0, multi ? mx.shift : 0, x->h.dil / x->h.gcd, x->w.dil / x->w.gcd, x->h.tilda,
            x->w.tilda, multi ? mg.magic : (uint32_t)x->h.tilda_len, multi ? mg.shift : (uint32_t)x->w.tilda_len,
            multi ? my.magic : (uint32_t)p->y, multi ? my.shift : (uint32_t)p->x, x->h.slice, x->w.slice, x->h.left,
            x->w.left, x->g, m0.magic, m1.magic, m2.magic, m3.magic, pack_shift(m0.shift, m1.shift, m2.shift, m3.shift),
            c.gks);
    if (cast) {
        /* CastTensor ws -> dx, an OpenCL kernel: done by `igemm-miopen cast`,
           its traffic (4 bytes read, 2 written per element) timed as a 32-bit
           fill of ws plus a 16-bit fill of dx */
        fprintf(out, "cast ws dx\n");
        if (print_fill(out, p, IGEMM_FP32, "ws", 1) || print_fill(out, p, p->dtype, "dx", 1))
            return 2;
    }
    return 0;
}

int xdlops_plan(const igemm_problem *p, const char *arch, int fp16_alt, const char *root, FILE *out)
{
    if (strcmp(arch, "gfx908") && strcmp(arch, "gfx90a") && strcmp(arch, "gfx942")) {
        fprintf(stderr, "igemm-miopen: --arch %s: MIOpen's xdlops kernels are for gfx908, gfx90a, gfx942\n", arch);
        return 2;
    }
    int nchw = !strcmp(arch, "gfx908") && p->layout == IGEMM_LAYOUT_NCHW;
    xdlops_lists *l = malloc(sizeof *l);
    char err[512];
    if (!l || xdlops_lists_load(l, root, nchw, err, sizeof err)) {
        fprintf(stderr, "igemm-miopen: %s\n", l ? err : "out of memory");
        free(l);
        return 2;
    }
    xprob x;
    xprob_make(&x, p, l);
    int rc = nchw ? nchw_plan(&x, out) : nhwc_plan(&x, arch, fp16_alt, out);
    xdlops_lists_free(l);
    free(l);
    return rc;
}
