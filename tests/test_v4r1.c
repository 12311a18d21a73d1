/* The v4r1 backward-data kernels (issue 4) through the public API on the
 * emulator (strict: waits, hazards, out-of-range accesses and LDS races stop
 * a run), against the float64 CPU reference (tc_run_case in common.c, which
 * spells the rule out itself besides asking igemm_verify): relative error
 * (error / sum of |terms|) within 1e-5, no NaN, and dx pixels that receive no
 * contribution exactly 0 (dx is prefilled with NaN, so a pixel no launch
 * writes shows up).
 *
 *  - every shape of the edge list for every v4r1 configuration, on gfx906,
 *    gfx908, gfx90a and gfx942 (every target's code object carries the same
 *    configurations); igemm_applicable must accept each pair;
 *  - a seeded random sweep of small shapes on gfx906 (strides 1-4,
 *    dilations 1-3, pads 0-3, filters 1-7 per dimension, groups 1-4): 500
 *    draws with the heuristic's configuration, then 20 draws forced onto each
 *    configuration. The seed is printed first; IGEMM_SWEEP_SEED (a number, or
 *    "random"), IGEMM_SWEEP_COUNT (heuristic draws) and IGEMM_SWEEP_FORCED
 *    (draws per configuration) change it for longer local runs, and
 *    IGEMM_SWEEP_ARCH runs it on another target. A failure
 *    prints the shape as MIOpenDriver flags, the configuration and the errors;
 *  - NHWC channel tails: every NHWC configuration on channel counts around
 *    the epilogue's 4-channel vector stores (C/G = 2, 7 and 6 with groups,
 *    12 with groups, 131), on every target; 16-bit NHWC dx and dy 2 bytes
 *    past a dword (vectors refused) and dword aligned;
 *  - NHWC dy channel tails: every NHWC matrix-core configuration on K/G
 *    around its dy channel vectors (odd, partial blocks, groups) with
 *    strides, dilations and pads, on gfx908, gfx90a and gfx942;
 *  - structure: the configuration names decode to the configuration table
 *    and to what the code objects and launch plans do; each configuration's
 *    VGPR estimate (which the heuristic's occupancy model uses) covers what
 *    every code object's descriptor allocates; the heuristic picks a v4r1
 *    configuration for every ResNet-50 layer.
 *
 * Expected values: the float64 reference, hand arithmetic next to constants,
 * and the build's code objects read with the emulator's loader.
 *
 * Shape lists are read from ../shared/shapes/ (beside the repository, as on
 * the project's machines and CI); a clone without it uses the vendored copies
 * in tests/shapes/, and when both exist they must be identical (also for the
 * ResNeXt-101 and Inception-v3 lists that make check-networks reads). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../include/igemm.h"
#include "../conv/problem.h"
#include "../arch/isa.h"
#include "../arch/target.h"
#include "../conv/half.h"
#include "../conv/select.h"
#include "../conv/solver.h"
#include "../conv/v4r1_config.h"
#include "../gen/emit_helpers.h"
#include "../runtime/kalloc.h"
#include "common.h"

#define MAX_CONFIGS 256
#define PREFIX "igemm_bwd_v4r1_"
#define MAX_REPORTED 20 /* failures printed per test */

static const char *const archs[] = {TC_ARCH_LIST};

static tc_shape_list edge, resnet50;

/* The v4r1 solutions the library lists, and the tile each name encodes. */
typedef struct {
    const char *name;
    int mpb, npb, kpb, block;
    igemm_layout layout;
    bool mfma;    /* matrix cores: only on targets with them */
    int inst;     /* MFMA: the instruction's block */
    int kstep;    /* MFMA: the instruction's K (per step of the K walk) */
    bool quad;    /* 16-bit k-quad LDS tiles: the 16-bit MFMAs (K = 256/I) and FMA _dot2 */
    bool alt;     /* fp16alt: fp16 staged as bf16 (fp16_mode alt only) */
    igemm_dtype dtype;
} config;

static config configs[MAX_CONFIGS];
static int nconfigs;

/* The fp16 mode that lets a configuration run on arch: fp16 on
 * v_dot2_f32_f16 (the _dot2 tiles) flushes subnormals on gfx90a and is
 * refused there unless the problem allows it (the fp16 MFMA tiles stay
 * exact: sixteen_bit_exact_on_flushing_mfma); the fp16alt ones run only for alt
 * problems (fp16_alt_mode); elsewhere the accurate default. */
static igemm_fp16_mode fp16_mode_for(const config *c, const char *arch)
{
    const target *t = target_by_name(arch);
    if (c->alt)
        return IGEMM_FP16_ALT;
    /* the fp16 MFMA kernels stay exact where the f16 MFMAs flush
       (sixteen_bit_exact_on_flushing_mfma); gfx90a's dot instructions do not */
    return c->dtype == IGEMM_FP16 && c->quad && !c->mfma && t->dot2_f16_ftz ? IGEMM_FP16_FLUSH : IGEMM_FP16_ACCURATE;
}

/* Whether arch's code object carries configuration c: MFMA ones need matrix
 * cores, _dot2 ones v_dot2_f32_f16 (per arch/ops.def: every target). */
static bool runs_on(const config *c, const char *arch)
{
    const target *t = target_by_name(arch);
    return c->mfma ? t->has_mfma : !c->quad || t->has_dot2_f16;
}

static int setup(void **state)
{
    (void)state;
    if (tc_load_shapes(&edge, "edge.txt") || tc_load_shapes(&resnet50, "resnet50.txt"))
        return -1;
    nconfigs = 0;
    for (int i = 0; i < igemm_solution_count(); i++) {
        const char *name = igemm_solution_name(i);
        if (strncmp(name, PREFIX, strlen(PREFIX)))
            continue;
        const char *ks = strstr(name, "_ks");
        if (ks && ks[3] >= '1' && ks[3] <= '9' && !ks[3 + strspn(ks + 3, "0123456789")])
            continue; /* the splits along GEMM K of these configurations: tests/test_ksplit.c */
        if (strstr(name, "_kyxc"))
            continue; /* the w copies of some of them: kyxc_reads_the_copy */
        if (strstr(name, "_zf"))
            continue; /* their plans with a zero fill first: zfill_fills_first */
        if (nconfigs == MAX_CONFIGS) {
            fprintf(stderr, "more than %d v4r1 solutions\n", MAX_CONFIGS);
            return -1;
        }
        config *c = &configs[nconfigs++];
        c->name = name;
        char tail[8] = "", lay[8] = "", math[8] = "", type[8] = "";
        int ik = 0, in2 = 0, n, end = 0;
        /* "igemm_bwd_v4r1_<fma|mfma>_<fp32|fp16|bf16|fp16alt>_<layout>_<M>x<N>x<K>_t<threads>[_wt<I>x<I>x<K>|_dot2]" */
        int pre = 0;
        n = sscanf(name, PREFIX "%4[a-z]_%4[a-z0-9]%n", math, type, &pre);
        c->alt = n == 2 && !strncmp(name + pre, "alt_", 4);
        pre += c->alt ? 3 : 0;
        if (n == 2)
            n += sscanf(name + pre, "_%4[a-z]_%dx%dx%d_t%d%n", lay, &c->mpb, &c->npb, &c->kpb, &c->block, &end);
        end += pre;
        const char *rest = n == 7 ? name + end : "";
        c->mfma = !strcmp(math, "mfma");
        c->dtype = !strcmp(type, "fp16") ? IGEMM_FP16 : !strcmp(type, "bf16") ? IGEMM_BF16 : IGEMM_FP32;
        if (c->mfma)
            n += sscanf(rest, "_wt%dx%dx%d%7s", &c->inst, &in2, &ik, tail);
        c->quad = c->mfma ? ik * c->inst == 256 : !strcmp(rest, "_dot2");
        if ((strcmp(math, "fma") && !c->mfma) || (strcmp(lay, "nchw") && strcmp(lay, "nhwc")) ||
            (strcmp(type, "fp32") && strcmp(type, "fp16") && strcmp(type, "bf16")) || n != (c->mfma ? 10 : 7) ||
            (!c->mfma && *rest && !c->quad) || (c->quad && c->dtype == IGEMM_FP32) ||
            (!c->mfma && c->quad && c->dtype != IGEMM_FP16) ||
            (c->alt && (!c->mfma || !c->quad || c->dtype != IGEMM_FP16)) ||
            (c->mfma && (in2 != c->inst || (ik * c->inst != 64 && !c->quad)))) {
            fprintf(stderr, "solution name '%s' does not encode <fma|mfma>_<fp32|fp16|bf16|fp16alt>_<nchw|nhwc>_<M>x<N>x<K>_"
                    "t<threads>, MFMA ones _wt<I>x<I>x<64/I> (16-bit ones also <256/I>), fp16 FMA ones maybe "
                    "_dot2\n", name);
            return -1;
        }
        c->layout = strcmp(lay, "nchw") ? IGEMM_LAYOUT_NHWC : IGEMM_LAYOUT_NCHW;
        c->kstep = ik;
    }
    return 0;
}

/* ---- structure ---- */

static void shape_lists_are_complete(void **state)
{
    (void)state;
    /* edge.txt holds twelve shapes and resnet50.txt the 23 distinct layers
     * of ResNet-50 v1.5; fewer means lines were lost. */
    assert_int_equal(edge.n, 12);
    assert_int_equal(resnet50.n, 23);
    tc_expect_same_as_shared("edge.txt");
    tc_expect_same_as_shared("resnet50.txt");
    /* make check-networks reads the vendored copies of these two */
    tc_expect_same_as_shared("resnext101.txt");
    tc_expect_same_as_shared("inception3.txt");
}

/* Every v4r1 solution name decodes to an entry of the configuration table
 * and every table entry is a solution (none silently refused); the family
 * covers the tiles issue 4 asks for. */
static void names_encode_the_configuration_table(void **state)
{
    (void)state;
    assert_true(nconfigs > 0);
    /* every fp32 tile in both layouts; in each 16-bit type eight of them
       and the ten k-quad MFMA tiles in both layouts; in fp16 the five
       k-quad FMA (dot2) tiles in both layouts */
    int quad_mfma = 0, quad_fma = 0;
    for (int i = 0; i < v4r1_tile_count; i++) {
        quad_mfma += v4r1_tiles[i].kpack == 4 && v4r1_tiles[i].math == IGEMM_MATH_MFMA;
        quad_fma += v4r1_tiles[i].kpack == 4 && v4r1_tiles[i].math == IGEMM_MATH_FMA;
    }
    assert_int_equal(quad_mfma, 10);
    assert_int_equal(quad_fma, 5);
    /* and fp16alt: the ten k-quad MFMA tiles again in both layouts */
    assert_int_equal(nconfigs, 2 * (v4r1_tile_count - 10 - 5) + 2 * 2 * (8 + 10) + 2 * 5 + 2 * 10);
    int nalt = 0;
    for (int i = 0; i < nconfigs; i++)
        nalt += configs[i].alt;
    assert_int_equal(nalt, 2 * 10);
    /* the heuristic charges the fp16alt staging what the writer emits */
    assert_int_equal(V4R1_STAGE_CVT_VALU, H_F16X2_TO_BF16X2_VALU);
    int nmfma = 0, ndot2 = 0;
    for (int i = 0; i < nconfigs; i++) {
        nmfma += configs[i].mfma;
        ndot2 += !configs[i].mfma && configs[i].quad;
    }
    assert_true(nmfma > 0 && nmfma < nconfigs);
    assert_int_equal(ndot2, 2 * 5);
    assert_int_equal(nconfigs, v4r1_family_count());
    for (int i = 0; i < nconfigs; i++) {
        const config *c = &configs[i];
        for (int j = 0; j < i; j++)
            if (!strcmp(configs[j].name, c->name))
                fail_msg("solution %s is listed twice", c->name);
        int found = 0;
        for (int j = 0; j < v4r1_family_count(); j++) {
            const v4r1_config *t = v4r1_family_get(j);
            if (t->mpb == c->mpb && t->npb == c->npb && t->kpb == c->kpb && t->block == c->block &&
                t->layout == c->layout && t->dtype == c->dtype && (t->stage != 0) == c->alt &&
                (t->math == IGEMM_MATH_MFMA) == c->mfma &&
                (t->kpack != 0) == c->quad && (!c->mfma || (t->inst == c->inst && v4r1_mfma_kstep(t) == c->kstep))) {
                char name[128];
                v4r1_config_name(t, name, sizeof name);
                assert_string_equal(name, c->name);
                found++;
            }
        }
        if (found != 1)
            fail_msg("%s matches %d configurations of the family", c->name, found);
    }
    static const int want[][2] = {{128, 128}, {128, 64}, {64, 128}, {64, 64}, {32, 64}, {64, 32}, {32, 32}};
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        int have = 0;
        for (int i = 0; i < nconfigs; i++)
            have |= configs[i].mpb == want[w][0] && configs[i].npb == want[w][1];
        if (!have)
            fail_msg("no %dx%d configuration", want[w][0], want[w][1]);
    }
    int thin = 0, k8 = 0, k16 = 0, t64 = 0, t256 = 0;
    for (int i = 0; i < nconfigs; i++) {
        thin |= configs[i].mpb >= 4 * configs[i].npb || configs[i].npb >= 4 * configs[i].mpb;
        k8 |= configs[i].kpb == 8;
        k16 |= configs[i].kpb == 16;
        t64 |= configs[i].block == 64;
        t256 |= configs[i].block == 256;
        assert_true(configs[i].block >= 64 && configs[i].block <= 256);
    }
    assert_true(thin && k8 && k16 && t64 && t256);
}

/* What each name says is what runs: the code object's kernel of that name
 * has the LDS of two double-buffered K x M and K x N fp32 tiles, and the
 * launch plan uses the name's thread count and tiles M and N as the name
 * says (grid = ceil(C/M) * ceil(N*Hi*Wi/N_tile) * G for a 1x1 stride-1 problem). */
/* The B row pad of an NHWC matrix-core configuration (docs/KERNELS.md,
 * "dy along channels"), found here by trying pads on the bank model of
 * docs/TIMING.md: a thread loads WB channels of one pixel (4 fp32 or 8
 * halves, at most its share KPB*NPB/threads and KPB), KPB/WB lanes per
 * pixel; it writes them as WB fp32 entries or WB/4 k quads down its
 * column. The pad is the smallest for which the lanes of one bank group
 * (128 bytes of data: 32 lanes of 4-byte writes, 16 of 8-byte ones) of
 * one write instruction touch each bank once; 0 elsewhere. */
static int channel_pad(const config *c)
{
    if (!c->mfma || c->layout != IGEMM_LAYOUT_NHWC)
        return 0;
    int bytes = c->dtype == IGEMM_FP32 ? 4 : 2, per = c->kpb * c->npb / c->block, wb = 16 / bytes;
    while (wb > per || wb > c->kpb)
        wb /= 2;
    int lanes = c->kpb / wb, entry = c->quad ? 8 : 4, group = 128 / entry, rows = c->quad ? wb / 4 : wb;
    for (int pad = 0; pad < 32; pad++) {
        int len = c->npb + pad, hits[32] = {0}, worst = 0;
        for (int l = 0; l < group; l++) {
            int q = l % lanes, n = l / lanes, ent = q * rows * len + n; /* the instruction's first row */
            for (int d = 0; d < entry / 4; d++) {
                int b = (ent * entry / 4 + d) % 32;
                if (++hits[b] > worst)
                    worst = hits[b];
            }
        }
        if (worst == 1)
            return pad;
    }
    return 0;
}

static void names_match_code_objects_and_plans(void **state)
{
    (void)state;
    int swizzled = 0;
    for (size_t a = 0; a < sizeof archs / sizeof archs[0]; a++) {
        tc_loaded co = tc_load_codeobj(archs[a]);
        igemm_handle *h = tc_emu_handle(archs[a], NULL, 0);
        /* 2 groups of 100 channels, 3 x 10 x 10 pixels: GEMM M = 100, N = 300 */
        igemm_problem p = IGEMM_PROBLEM_INIT;
        p.n = 3, p.c = 200, p.hi = 10, p.wi = 10, p.k = 24, p.groups = 2;
        for (int i = 0; i < nconfigs; i++) {
            const config *c = &configs[i];
            const emu_kernel *k = emu_find_kernel(co.m, c->name);
            if (!runs_on(c, archs[a])) {
                /* a target without the instructions carries no such kernel and refuses the name */
                if (k)
                    fail_msg("%s: kernel %s in a code object of a target without its instructions", archs[a],
                             c->name);
                char why[256];
                assert_int_equal(igemm_applicable(h, &p, c->name, why, sizeof why), IGEMM_ERR_NOT_APPLICABLE);
                continue;
            }
            if (!k)
                fail_msg("%s: no kernel %s in the code object", archs[a], c->name);
            const emu_kernel_info *ki = emu_kernel_get_info(k);
            /* fp32 LDS tiles, or 16-bit k quads; NHWC matrix-core B rows padded */
            int esz = c->quad ? 2 : 4, pad = channel_pad(c);
            /* by hand: fp16 64x64x32, 256 threads: 8 halves a lane, 4 lanes a pixel, 4 pixels per 16-lane
               group, 2 quad rows a vector: 2L = 4 (mod 16), L = 66; fp32 128x128x8: 4 floats, 2 lanes
               a pixel, 16 pixels per 32 lanes, 4 rows: 4L = 16 (mod 32), L = 132 */
            if (!strcmp(c->name, "igemm_bwd_v4r1_mfma_fp16_nhwc_64x64x32_t256_wt32x32x8"))
                assert_int_equal(pad, 2);
            if (!strcmp(c->name, "igemm_bwd_v4r1_mfma_fp32_nhwc_128x128x8_t256_wt32x32x2"))
                assert_int_equal(pad, 4);
            /* a pad that would cost a workgroup a CU's 64 KiB may be swapped for the column
               swizzle (no pad; nhwc_channel_path_lds_conflict_free checks it conflicts as little) */
            int padded = 2 * esz * c->kpb * (c->mpb + c->npb + pad), bare = 2 * esz * c->kpb * (c->mpb + c->npb);
            bool pad_costs = pad && 65536 / padded < 65536 / bare;
            swizzled += pad_costs && ki->lds_bytes == bare;
            if (ki->lds_bytes != padded && !(pad_costs && ki->lds_bytes == bare))
                fail_msg("%s %s: descriptor LDS %d bytes, the name says 2 x %d x %d x (%d + %d + pad %d)%s", archs[a],
                         c->name, ki->lds_bytes, esz, c->kpb, c->mpb, c->npb, pad,
                         pad_costs ? " or, swizzled, no pad" : "");
            /* by hand: fp16 64x64x32 padded would take 16640 bytes, three workgroups a CU where 16384
               allows four: swizzled; fp16 64x128x32: 24832 or 24576, two either way: padded */
            if (!strcmp(c->name, "igemm_bwd_v4r1_mfma_fp16_nhwc_64x64x32_t256_wt32x32x8"))
                assert_int_equal(ki->lds_bytes, 16384);
            if (!strcmp(c->name, "igemm_bwd_v4r1_mfma_fp16_nhwc_64x128x32_t256_wt32x32x8"))
                assert_int_equal(ki->lds_bytes, 24832);
            if (ki->max_block < c->block)
                fail_msg("%s %s: max workgroup size %d < %d", archs[a], c->name, ki->max_block, c->block);
            igemm_launch l[4];
            int cnt = 0;
            p.layout = c->layout;
            p.dtype = c->dtype;
            p.fp16_mode = fp16_mode_for(c, archs[a]);
            igemm_status st = igemm_get_launches(h, &p, c->name, l, 4, &cnt);
            if (st != IGEMM_OK)
                fail_msg("%s %s: igemm_get_launches: %s", archs[a], c->name, igemm_last_error(h));
            assert_int_equal(cnt, 1); /* full coverage, one phase */
            assert_string_equal(l[0].kernel, c->name);
            assert_int_equal(l[0].block[0] * l[0].block[1] * l[0].block[2], c->block);
            unsigned want = (unsigned)((100 + c->mpb - 1) / c->mpb * ((300 + c->npb - 1) / c->npb) * 2);
            if (l[0].grid[0] * l[0].grid[1] * l[0].grid[2] != want)
                fail_msg("%s %s: %u workgroups for M 100 x N 300 x 2 groups, the name's tile gives %u", archs[a],
                         c->name, l[0].grid[0] * l[0].grid[1] * l[0].grid[2], want);
        }
        igemm_destroy(h);
        tc_unload(&co);
    }
    print_message("%d (target, configuration) pairs swizzle their B tile instead of padding it\n", swizzled);
    assert_true(swizzled > 0);
}

/* The heuristic's occupancy model counts v4r1_config.vgprs: it must not be
 * below what any code object's descriptor allocates for the kernel. */
static void vgpr_estimates_cover_code_objects(void **state)
{
    (void)state;
    for (size_t a = 0; a < sizeof archs / sizeof archs[0]; a++) {
        tc_loaded co = tc_load_codeobj(archs[a]);
        int tightest = 1 << 30;
        char tight_name[128] = "";
        for (int i = 0; i < v4r1_family_count(); i++) {
            v4r1_config c = *v4r1_family_get(i);
            char name[128];
            if (!v4r1_config_runs_on(&c, target_by_name(archs[a])))
                continue;
            v4r1_config_name(&c, name, sizeof name);
            const emu_kernel *k = emu_find_kernel(co.m, name);
            if (!k)
                fail_msg("%s: no kernel %s", archs[a], name);
            const emu_kernel_info *ki = emu_kernel_get_info(k);
            assert_true(ki->vgprs > 0);
            /* gfx908 allocates VGPRs and AGPRs with one count, the larger */
            int est = c.vgprs;
            if (!target_by_name(archs[a])->unified_acc_vgprs && c.agprs > est)
                est = c.agprs;
            if (est < ki->vgprs)
                fail_msg("%s %s: estimate %d VGPRs, the descriptor allocates %d", archs[a], name, est, ki->vgprs);
            /* the unified file: AGPRs above accum_offset, up to the allocation granule past the estimate */
            const target *t = target_by_name(archs[a]);
            if (t->unified_acc_vgprs && ki->agprs > c.agprs + t->vgpr_granule)
                fail_msg("%s %s: estimate %d AGPRs, the descriptor allocates %d", archs[a], name, c.agprs, ki->agprs);
            if (est - ki->vgprs < tightest)
                tightest = est - ki->vgprs, snprintf(tight_name, sizeof tight_name, "%s", name);
            if (!strcmp(archs[a], "gfx906"))
                print_message("  %s: estimate %d, gfx906 allocates %d VGPRs\n", name, c.vgprs, ki->vgprs);
        }
        print_message("%s: tightest VGPR margin %d (%s)\n", archs[a], tightest, tight_name);
        tc_unload(&co);
    }
}

/* The heuristic counts what the kernels of the handle's code object
 * allocate (handle_kernel_alloc, read by emu_load_info without decoding any
 * code), the allocations the emulator's full load reads and the timing
 * model's occupancy counts, for every v4r1 kernel of every target, split
 * kernels (_ksplit) included; and on the MFMA targets those give some
 * kernel more workgroups a CU than the configurations' own upper-bound
 * estimates, which the heuristic counted before. */
static void heuristic_counts_code_object_allocations(void **state)
{
    (void)state;
    for (size_t t = 0; t < sizeof archs / sizeof archs[0]; t++) {
        const target *tg = target_by_name(archs[t]);
        tc_loaded co = tc_load_codeobj(archs[t]);
        igemm_handle *h = tc_emu_handle(archs[t], NULL, 1);
        int checked = 0, more = 0;
        for (int i = 0; i < solver_count(); i++) {
            const solver *s = solver_get(i);
            if (s->kind != SOLVER_V4R1 || !s->available(s, tg))
                continue;
            const v4r1_config *c = s->cfg;
            char name[128];
            v4r1_kernel_name(c, name, sizeof name);
            const emu_kernel_info *ki = emu_kernel_get_info(emu_find_kernel(co.m, name));
            if (!ki)
                fail_msg("%s: no kernel %s for %s", archs[t], name, s->name);
            kernel_alloc a, want = emu_kernel_alloc(ki);
            if (handle_kernel_alloc(h, s, &a))
                fail_msg("%s %s: the handle knows no allocation for kernel %s", archs[t], s->name, name);
            if (memcmp(&a, &want, sizeof a))
                fail_msg("%s %s: the handle reads %d VGPRs, %d AGPRs, %d SGPRs, %d LDS bytes; the emulator's load "
                         "%d, %d, %d, %d",
                         archs[t], s->name, a.vgprs, a.agprs, a.sgprs, a.lds_bytes, want.vgprs, want.agprs,
                         want.sgprs, want.lds_bytes);
            occupancy mine, est;
            kernel_alloc e = v4r1_config_alloc(c);
            assert_int_equal(target_occupancy(tg, &a, c->block / 64, &mine), 0);
            if (!target_occupancy(tg, &e, c->block / 64, &est) && mine.max_wg > est.max_wg)
                more++;
            checked++;
        }
        print_message("%s: %d kernels' allocations read; %d hold more workgroups a CU than their estimate gives\n",
                      archs[t], checked, more);
        assert_true(checked > 0);
        if (tg->has_mfma)
            assert_true(more > 0);
        igemm_destroy(h);
        tc_unload(&co);
    }
}

/* The heuristic picks a v4r1 configuration, not the naive kernel, for every
 * ResNet-50 layer, at the listed batch (256) and at batch 1. */
static void heuristic_picks_v4r1_for_resnet50(void **state)
{
    (void)state;
    igemm_handle *h = tc_emu_handle("gfx906", NULL, 0);
    for (int batch = 0; batch < 2; batch++)
        for (int i = 0; i < resnet50.n; i++) {
            igemm_problem p = resnet50.s[i].p;
            if (batch)
                p.n = 1;
            char name[128];
            igemm_status st = igemm_select(h, &p, name, sizeof name);
            if (st != IGEMM_OK)
                fail_msg("%s -n %d: igemm_select: %s", resnet50.s[i].text, p.n, igemm_last_error(h));
            if (strncmp(name, PREFIX, strlen(PREFIX)))
                fail_msg("gfx906 %s (batch %d): the heuristic picks %s", resnet50.s[i].text, p.n, name);
        }
    igemm_destroy(h);
}

/* The heuristic's estimate of the configuration named `name`, its kernel's
 * allocation read from h's code object as the selection reads it. */
static double estimate_of(const igemm_handle *h, const char *name, const igemm_problem *p, const target *t)
{
    igemm_shape sh;
    assert_int_equal(igemm_shape_init(&sh, p, NULL, 0), IGEMM_OK);
    const solver *s = solver_find(name); /* a family configuration, or a _kyxc / _ks one */
    if (!s || s->kind != SOLVER_V4R1)
        fail_msg("no configuration %s", name);
    kernel_alloc a;
    if (handle_kernel_alloc(h, s, &a))
        fail_msg("%s: the handle knows no allocation of %s", t->name, name);
    return v4r1_estimate(s->cfg, &sh, t, &a, NULL);
}

/* gfx906 fp16: the dot2 tiles issue half the VALU instructions and LDS
 * reads of the widened fp32 tiles per K row (and the dot peak is twice the
 * fp32 FMA peak), so the heuristic picks them on the big ResNet-50 layers
 * (at least 64 channels in and out) and estimates them well under the fp32
 * pick of the same layer: below 0.65 of it (the model gives 0.56-0.60; one
 * that charged a dot2 tile's K rows like fp32 FMAs gives 1.0 and picks the
 * widened tiles); the _dot2 configurations exist on a target exactly where the
 * op table (arch/ops.def, from llvm-mc) has v_dot2_f32_f16. */
static void heuristic_picks_dot2_for_fp16(void **state)
{
    (void)state;
    for (int i = 0; i < igemm_target_count; i++) {
        const target *t = igemm_targets[i];
        assert_int_equal(t->has_dot2_f16, isa_find("v_dot2_f32_f16", target_isa_bit(t)) != NULL);
    }
    igemm_handle *h = tc_emu_handle("gfx906", NULL, 0);
    int dot2 = 0, big = 0;
    for (int i = 0; i < resnet50.n; i++) {
        igemm_problem p = resnet50.s[i].p;
        p.dtype = IGEMM_FP16;
        char name[128];
        if (igemm_select(h, &p, name, sizeof name) != IGEMM_OK)
            fail_msg("%s fp16: igemm_select: %s", resnet50.s[i].text, igemm_last_error(h));
        size_t n = strlen(name);
        bool is_dot2 = (n > 5 && !strcmp(name + n - 5, "_dot2")) || (n > 10 && !strcmp(name + n - 10, "_dot2_kyxc")) ||
                       (n > 8 && !strcmp(name + n - 8, "_dot2_zf"));
        char name32[128];
        igemm_problem p32 = resnet50.s[i].p;
        if (igemm_select(h, &p32, name32, sizeof name32) != IGEMM_OK)
            fail_msg("%s fp32: igemm_select: %s", resnet50.s[i].text, igemm_last_error(h));
        if (!strncmp(name, "naive", 5)) { /* the stem (3 channels): a naive kernel may be the pick */
            if (p.c >= 64 && p.k >= 64)
                fail_msg("gfx906 fp16 %s: the heuristic picks %s, not a _dot2 configuration", resnet50.s[i].text,
                         name);
            continue;
        }
        const target *t = target_by_name("gfx906");
        double ratio = estimate_of(h, name, &p, t) / estimate_of(h, name32, &p32, t);
        print_message("  gfx906 fp16 %s: %s, estimated %.2f x the fp32 pick %s\n", resnet50.s[i].text, name, ratio,
                      name32);
        if (p.c >= 64 && p.k >= 64) {
            big++;
            if (ratio > 0.65)
                fail_msg("gfx906 fp16 %s: %s estimated %.2f x the fp32 pick, want below 0.65", resnet50.s[i].text,
                         name, ratio);
            if (!is_dot2)
                fail_msg("gfx906 fp16 %s: the heuristic picks %s, not a _dot2 configuration", resnet50.s[i].text,
                         name);
        }
        dot2 += is_dot2;
    }
    assert_int_equal(big, resnet50.n - 1); /* all but the stem */
    assert_true(dot2 >= big);
    igemm_destroy(h);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ---- the _zf solvers: a zero fill first instead of the empty phases ---- */

/* Every _zf solver on every target that carries its kernel: on a shape
 * whose empty phases the kernels would store (1x1 stride 2), two launches,
 * the zero fill of all dx, then the configuration's own kernel over the
 * one phase with a tap (a quarter of the workgroups of the configuration's
 * own plan, which launches all four phases); dx within the rule, the
 * holes zero; on a shape without empty phases (stride 1) refused by name.
 * Launching the empty phases after the fill (a plan that forgets the
 * configuration is _zf) fails the workgroup count; a plan without the fill
 * leaves the holes unwritten (the buffers start as NaN) and fails the
 * verification. */
static void zfill_fills_first(void **state)
{
    (void)state;
    igemm_problem p = IGEMM_PROBLEM_INIT, flat;
    p.n = 2, p.c = 40, p.k = 24, p.hi = 14, p.wi = 13, p.stride_h = p.stride_w = 2;
    flat = p;
    flat.stride_h = flat.stride_w = 1;
    int runs = 0, failures = 0, solvers = 0;
    for (size_t a = 0; a < sizeof archs / sizeof archs[0]; a++) {
        igemm_handle *h = tc_emu_handle(archs[a], NULL, 0);
        const target *t = target_by_name(archs[a]);
        for (int i = 0; i < igemm_solution_count(); i++) {
            const char *name = igemm_solution_name(i), *tail = strstr(name, "_zf");
            if (!tail)
                continue;
            assert_string_equal(tail, "_zf");
            char why[256], kernel[128];
            snprintf(kernel, sizeof kernel, "%.*s", (int)(tail - name), name);
            igemm_problem sh = p, one = flat;
            sh.dtype = one.dtype = solver_find(name)->dtype;
            if (sh.dtype == IGEMM_FP16)
                sh.fp16_mode = one.fp16_mode = IGEMM_FP16_FLUSH; /* gfx90a's dot instructions flush */
            if (strstr(name, "_dot2") && !t->has_dot2_f16) {
                assert_int_equal(igemm_applicable(h, &sh, name, why, sizeof why), IGEMM_ERR_NOT_APPLICABLE);
                continue;
            }
            solvers++;
            assert_int_equal(igemm_applicable(h, &one, name, why, sizeof why), IGEMM_ERR_NOT_APPLICABLE);
            tc_expect_contains(why, "no empty phases");
            igemm_launch l[4], own[4];
            int cnt = 0, own_cnt = 0;
            assert_int_equal(igemm_get_launches(h, &sh, name, l, 4, &cnt), IGEMM_OK);
            assert_int_equal(igemm_get_launches(h, &sh, kernel, own, 4, &own_cnt), IGEMM_OK);
            assert_int_equal(cnt, 2);
            assert_int_equal(own_cnt, 1);
            assert_string_equal(l[0].kernel, sh.dtype == IGEMM_FP32 ? "igemm_fill_zero_b32" : "igemm_fill_zero_b16");
            assert_string_equal(l[1].kernel, kernel);
            unsigned wgs = l[1].grid[0] * l[1].grid[1] * l[1].grid[2];
            unsigned own_wgs = own[0].grid[0] * own[0].grid[1] * own[0].grid[2];
            if (wgs * 4 != own_wgs)
                fail_msg("%s %s: %u workgroups, want a quarter of the configuration's own plan's %u (one phase of 4)",
                         archs[a], name, wgs, own_wgs);
            tc_case_result r;
            char msg[1024];
            runs++;
            if (tc_run_case(h, &sh, name, 500u + (uint64_t)i, &r, msg, sizeof msg)) {
                if (failures++ < MAX_REPORTED)
                    print_error("%s %s: %s\n", archs[a], name, msg);
                continue;
            }
            assert_true(r.holes > 0); /* the shape has pixels no tap reaches */
        }
        igemm_destroy(h);
    }
    print_message("zf: %d solver-target pairs, %d runs, %d failures\n", solvers, runs, failures);
    if (failures)
        fail_msg("%d of %d _zf runs failed", failures, runs);
    /* every target: 6 fp32 FMA tiles and 3 fp16 _dot2 ones */
    assert_int_equal(solvers, (int)(sizeof archs / sizeof archs[0]) * (6 + 3));
}

/* ---- the _kyxc solvers: an NCHW filter copied into K, Y, X, C/G ---- */

/* Every _kyxc solver on every target that carries its kernel: two
 * launches, the copy (igemm_w_kyxc_b32, _b16 for 16-bit) into a workspace of w's bytes,
 * then the configuration's own kernel, which reads the copy; dx within the
 * rule on shapes whose channels leave partial tiles (groups of 20 channels,
 * 12 output channels a group), with several phases (stride 2), a
 * non-square dilated filter, and with Inf/NaN in w (the kernel's non-finite
 * guard recomputes the border from the copy's strides); a 1x1 filter is
 * refused by name. The copy's index arithmetic wrong, or the kernel reading
 * the copy with KCYX's strides, fails every 3x3 case. */
static void kyxc_reads_the_copy(void **state)
{
    (void)state;
    igemm_problem shapes[3];
    for (int i = 0; i < 3; i++)
        shapes[i] = (igemm_problem)IGEMM_PROBLEM_INIT;
    shapes[0].n = 2, shapes[0].c = 40, shapes[0].groups = 2, shapes[0].k = 24, shapes[0].hi = shapes[0].wi = 9;
    shapes[0].y = shapes[0].x = 3, shapes[0].pad_h = shapes[0].pad_w = 1;
    shapes[1].n = 1, shapes[1].c = 16, shapes[1].k = 16, shapes[1].hi = shapes[1].wi = 11;
    shapes[1].y = shapes[1].x = 3, shapes[1].pad_h = shapes[1].pad_w = 1, shapes[1].stride_h = shapes[1].stride_w = 2;
    shapes[2].n = 1, shapes[2].c = 8, shapes[2].k = 8, shapes[2].hi = 7, shapes[2].wi = 9, shapes[2].y = 1;
    shapes[2].x = 3, shapes[2].pad_w = 2, shapes[2].dil_w = 2;
    int runs = 0, failures = 0, solvers = 0;
    for (size_t a = 0; a < sizeof archs / sizeof archs[0]; a++) {
        igemm_handle *h = tc_emu_handle(archs[a], NULL, 0);
        const target *t = target_by_name(archs[a]);
        for (int i = 0; i < igemm_solution_count(); i++) {
            const char *name = igemm_solution_name(i), *tail = strstr(name, "_kyxc");
            if (!tail)
                continue;
            assert_string_equal(tail, "_kyxc");
            char why[256], kernel[128];
            snprintf(kernel, sizeof kernel, "%.*s", (int)(tail - name), name);
            igemm_dtype dt = solver_find(name)->dtype;
            igemm_problem sh[3];
            for (int k = 0; k < 3; k++) {
                sh[k] = shapes[k];
                sh[k].dtype = dt;
                if (dt == IGEMM_FP16)
                    sh[k].fp16_mode = IGEMM_FP16_FLUSH; /* gfx90a's 16-bit matrix and dot instructions flush */
            }
            if ((strstr(name, "_mfma_") && !t->has_mfma) || (strstr(name, "_dot2") && !t->has_dot2_f16)) {
                assert_int_equal(igemm_applicable(h, &sh[0], name, why, sizeof why), IGEMM_ERR_NOT_APPLICABLE);
                continue;
            }
            solvers++;
            igemm_problem one = sh[0];
            one.y = one.x = 1, one.pad_h = one.pad_w = 0;
            assert_int_equal(igemm_applicable(h, &one, name, why, sizeof why), IGEMM_ERR_NOT_APPLICABLE);
            tc_expect_contains(why, "1x1 filter");
            igemm_launch l[4];
            int cnt = 0;
            size_t ws = 0;
            assert_int_equal(igemm_get_launches(h, &sh[0], name, l, 4, &cnt), IGEMM_OK);
            assert_int_equal(cnt, 2);
            assert_string_equal(l[0].kernel, dt == IGEMM_FP32 ? KERNEL_W_KYXC : KERNEL_W_KYXC16);
            assert_string_equal(l[1].kernel, kernel);
            assert_int_equal(l[1].ptr_offset[IGEMM_LAUNCH_WORKSPACE], (int)offsetof(igemm_v4r1_args, p_w));
            assert_int_equal(l[1].ptr_offset[2], -1); /* not the user's w */
            assert_int_equal(igemm_get_workspace_size(h, &sh[0], name, &ws), IGEMM_OK);
            assert_int_equal(ws, (size_t)24 * 20 * 9 * (dt == IGEMM_FP32 ? 4 : 2));
            for (int k = 0; k < 4; k++) {
                tc_case_result r;
                char msg[1024];
                runs++;
                if (tc_run_case_ex(h, &sh[k % 3], name, 300u + (uint64_t)k, k == 3 ? TC_SPECIALS_W : 0, &r, msg,
                                   sizeof msg)) {
                    if (failures++ < MAX_REPORTED)
                        print_error("%s %s shape %d%s: %s\n", archs[a], name, k % 3, k == 3 ? " (Inf/NaN in w)" : "",
                                    msg);
                }
            }
        }
        igemm_destroy(h);
    }
    print_message("kyxc: %d solver-target pairs, %d runs, %d failures\n", solvers, runs, failures);
    /* gfx906: 8 fp32 FMA tiles and 3 fp16 _dot2 ones; the MFMA targets also 7 fp32 MFMA tiles
       and 3 k-quad MFMA tiles in fp16 and in bf16 */
    assert_int_equal(solvers, 11 + 3 * (11 + 7 + 2 * 3));
    assert_int_equal(failures, 0);
}

/* ---- every edge shape, every configuration ---- */

static void edge_all_configs(const char *arch)
{
    igemm_handle *h = tc_emu_handle(arch, NULL, 0);
    int64_t holes = 0;
    int failures = 0, ran = 0;
    double t0 = now_s();
    for (int c = 0; c < nconfigs; c++)
        for (int i = 0; i < edge.n && runs_on(&configs[c], arch); i++, ran++) {
            tc_case_result r;
            char msg[1024];
            igemm_problem p = edge.s[i].p;
            p.layout = configs[c].layout;
            p.dtype = configs[c].dtype;
            p.fp16_mode = fp16_mode_for(&configs[c], arch);
            if (tc_run_case(h, &p, configs[c].name, 100u + (uint64_t)i, &r, msg, sizeof msg)) {
                if (failures++ < MAX_REPORTED)
                    print_error("conv %s -F 2 --arch %s --solution %s: %s\n", edge.s[i].text, arch, configs[c].name,
                                msg);
                continue;
            }
            if (strcmp(r.ri.source, "user"))
                fail_msg("%s %s: source '%s', want 'user'", arch, configs[c].name, r.ri.source);
            holes += r.holes;
        }
    print_message("%s: %d (configuration, edge shape) pairs in %.1f s\n", arch, ran, now_s() - t0);
    igemm_destroy(h);
    if (failures)
        fail_msg("%s: %d of %d (configuration, edge shape) pairs failed (%s listed above)", arch, failures, ran,
                 failures > MAX_REPORTED ? "the first ones" : "all");
    /* the list holds shapes with holes: the exact-zero rule was exercised */
    assert_true(holes > 0);
}

static void edge_gfx906(void **state)
{
    (void)state;
    edge_all_configs("gfx906");
}
static void edge_gfx908(void **state)
{
    (void)state;
    edge_all_configs("gfx908");
}
static void edge_gfx90a(void **state)
{
    (void)state;
    edge_all_configs("gfx90a");
}
static void edge_gfx942(void **state)
{
    (void)state;
    edge_all_configs("gfx942");
}

/* ---- K walks around the pipeline depth ---- */

/* The MFMA walk keeps up to three tiles in flight (v4r1_config.in_flight,
 * fewer where vmcnt cannot count their loads: fp32 NCHW 64x64x16_t64 keeps
 * two): its prologue, the waits that let the later tiles' loads stay
 * outstanding (the last steps' out of line), and the loop unrolled to six
 * copies (three register sets, two LDS buffers named in the ds offsets)
 * all depend on how many K steps the walk has. 1x1 and 2x2 filters with K
 * from one partial block to 13 steps (K steps: taps x ceil(K / KPB)),
 * walks shorter than, as long as and longer than the depth, every residue
 * of the unroll (mod 6: 1-5 and 7 steps, 4 to 28 with four taps), against
 * the float64 reference on the strict emulator (its LDS race detector
 * catches a copy that writes the buffer the others read: seen failing so,
 * and numerically with B read from the wrong buffer). */
static void walks_around_the_pipeline_depth(void **state)
{
    (void)state;
    static const struct {
        const char *arch, *solution;
        igemm_dtype dtype;
        igemm_layout layout;
    } cases[] = {
        {"gfx942", "igemm_bwd_v4r1_mfma_fp16_nhwc_64x64x32_t256_wt32x32x8", IGEMM_FP16, IGEMM_LAYOUT_NHWC},
        {"gfx942", "igemm_bwd_v4r1_mfma_bf16_nchw_128x128x32_t256_wt32x32x8", IGEMM_BF16, IGEMM_LAYOUT_NCHW},
        {"gfx90a", "igemm_bwd_v4r1_mfma_fp32_nhwc_64x64x16_t64_wt32x32x2", IGEMM_FP32, IGEMM_LAYOUT_NHWC},
        {"gfx908", "igemm_bwd_v4r1_mfma_fp32_nchw_64x64x16_t64_wt32x32x2", IGEMM_FP32, IGEMM_LAYOUT_NCHW},
    };
    static const int ks[] = {8, 24, 32, 48, 80, 112, 136, 200};
    int failures = 0, ran = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        igemm_handle *h = tc_emu_handle(cases[c].arch, NULL, 0);
        for (int taps = 1; taps <= 2; taps++)
            for (size_t k = 0; k < sizeof ks / sizeof ks[0]; k++, ran++) {
                char line[256], why[256], msg[1024];
                igemm_problem p;
                tc_case_result r;
                snprintf(line, sizeof line,
                         "conv -n 1 -c 72 -H 6 -W 5 -k %d -y %d -x %d -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 -g 1 -F 2", ks[k],
                         taps, taps);
                if (igemm_problem_parse_line(&p, line, why, sizeof why) != 1)
                    fail_msg("%s: %s", line, why);
                p.dtype = cases[c].dtype;
                p.layout = cases[c].layout;
                if (tc_run_case(h, &p, cases[c].solution, 300u + (uint64_t)k, &r, msg, sizeof msg) &&
                    failures++ < MAX_REPORTED)
                    print_error("%s --arch %s --solution %s: %s\n", line, cases[c].arch, cases[c].solution, msg);
            }
        igemm_destroy(h);
    }
    print_message("%d K walks\n", ran);
    if (failures)
        fail_msg("%d of %d K walks failed", failures, ran);
}

/* ---- dx's zeros inside the launch ---- */

/* Shapes whose dx has pixels no filter tap reaches, and what their plans
 * must be, worked out by hand from the v4r1 formulas (docs/KERNELS.md):
 * the phases of the GEMM launch (YTilda * XTilda when the empty phases
 * store the zeros; only the non-empty ones after a zero fill), whether a
 * zero fill comes first, HTildaSlice * WTildaSlice (GEMM N per image), and
 * whether some border pixel's taps lie outside dy (padding, or a tilde
 * slice past Ho), so that the GEMM launch's non-finite guard has a
 * non-empty border band (arch/kargs.h igemm_nonfinite_args; no fixup
 * launch follows). Shapes not in edge.txt are also verified here. */
static const struct {
    const char *args, *what;
    int phases;
    bool fill;
    int hw_tilda;
    bool verify, border;
} zero_shapes[] = {
    {"-n 2 -c 16 -H 14 -W 14 -k 16 -y 1 -x 1 -p 0 -q 0 -u 2 -v 2 -l 1 -j 1 -g 1", "1x1 stride 2 (edge.txt)", 4,
     false, 7 * 7, false, false},
    /* HTilda = Ho + ceil(d (Y - 1) / s) = 3 + 1: the last tilde row's tap
       lies past dy's Ho, a masked term at the edge: a border band */
    {"-n 1 -c 8 -H 9 -W 9 -k 8 -y 2 -x 2 -p 0 -q 0 -u 3 -v 3 -l 1 -j 1 -g 1", "2x2 stride 3 (edge.txt)", 9, false,
     4 * 4, false, true},
    /* H: Ho 6, slice 6, hi = 2ht + iy; W: Wo 4, slice 5, wi = 4wt + ix - 1 */
    {"-n 2 -c 5 -H 11 -W 13 -k 3 -y 1 -x 3 -p 0 -q 1 -u 2 -v 4 -l 1 -j 1 -g 1", "1x3 stride 2x4, padded", 8, false,
     6 * 5, true, true},
    /* gcd(2, 2) = 2: the pixels of odd hi + pad belong to no phase */
    {"-n 1 -c 4 -H 13 -W 11 -k 6 -y 3 -x 3 -p 2 -q 2 -u 2 -v 2 -l 2 -j 2 -g 1", "stride 2, dilation 2 (edge.txt)", 1,
     true, 7 * 6, false, true},
    /* 25 phases: more than one phase table holds */
    {"-n 1 -c 6 -H 11 -W 11 -k 4 -y 1 -x 1 -p 0 -q 0 -u 5 -v 5 -l 1 -j 1 -g 1", "1x1 stride 5", 1, true, 3 * 3,
     true, false},
};

/* Every configuration on every target: the plan of each shape (one GEMM
 * launch whose empty phases store the zeros, or the zero fill first), and
 * dx against the float64 reference (every uncovered pixel exactly 0 on
 * dx prefilled with NaN). */
static void zeros_inside_the_launch(void **state)
{
    (void)state;
    int failures = 0, ran = 0;
    for (size_t a = 0; a < sizeof archs / sizeof archs[0]; a++) {
        igemm_handle *h = tc_emu_handle(archs[a], NULL, 0);
        for (size_t i = 0; i < sizeof zero_shapes / sizeof zero_shapes[0]; i++) {
            char line[256], why[256];
            igemm_problem p0;
            snprintf(line, sizeof line, "conv %s -F 2", zero_shapes[i].args);
            if (igemm_problem_parse_line(&p0, line, why, sizeof why) != 1)
                fail_msg("%s: %s", line, why);
            for (int c = 0; c < nconfigs; c++) {
                const config *cf = &configs[c];
                if (!runs_on(cf, archs[a]))
                    continue;
                igemm_problem p = p0;
                p.layout = cf->layout;
                p.dtype = cf->dtype;
                p.fp16_mode = fp16_mode_for(cf, archs[a]);
                igemm_launch l[4];
                int cnt = 0;
                if (igemm_get_launches(h, &p, cf->name, l, 4, &cnt) != IGEMM_OK)
                    fail_msg("%s %s %s: igemm_get_launches: %s", archs[a], cf->name, line, igemm_last_error(h));
                int fill = zero_shapes[i].fill;
                assert_int_equal(cnt, 1 + fill); /* no fixup launch: the kernel guards itself */
                igemm_nonfinite_args nf;
                memcpy(&nf, l[fill].args + offsetof(igemm_v4r1_args, nf), sizeof nf);
                bool band = nf.top || nf.left || nf.bot < (uint32_t)p.hi || nf.rgt < (uint32_t)p.wi;
                if (band != zero_shapes[i].border)
                    fail_msg("%s %s, %s: the guard's band (top %u bot %u left %u rgt %u) is %sempty", archs[a],
                             cf->name, zero_shapes[i].what, nf.top, nf.bot, nf.left, nf.rgt, band ? "not " : "");
                if (fill)
                    assert_string_equal(l[0].kernel, cf->dtype == IGEMM_FP32 ? "igemm_fill_zero_b32"
                                                                            : "igemm_fill_zero_b16");
                assert_string_equal(l[fill].kernel, cf->name);
                unsigned gemm_n = (unsigned)(p.n * zero_shapes[i].hw_tilda);
                unsigned want = (unsigned)zero_shapes[i].phases * (unsigned)((p.c + cf->mpb - 1) / cf->mpb) *
                                ((gemm_n + (unsigned)cf->npb - 1) / (unsigned)cf->npb);
                if (l[fill].grid[0] * l[fill].grid[1] * l[fill].grid[2] != want)
                    fail_msg("%s %s, %s: %u workgroups, want %d phases x the tiles of M %d x N %u = %u", archs[a],
                             cf->name, zero_shapes[i].what, l[fill].grid[0] * l[fill].grid[1] * l[fill].grid[2],
                             zero_shapes[i].phases, p.c, gemm_n, want);
                if (!zero_shapes[i].verify)
                    continue; /* edge_gfx* verifies it */
                tc_case_result r;
                char msg[1024];
                ran++;
                if (tc_run_case(h, &p, cf->name, 300u + (uint64_t)i, &r, msg, sizeof msg)) {
                    if (failures++ < MAX_REPORTED)
                        print_error("%s --arch %s --solution %s: %s\n", line, archs[a], cf->name, msg);
                    continue;
                }
                assert_true(r.holes > 0); /* the shape has pixels no tap reaches */
            }
        }
        igemm_destroy(h);
    }
    if (failures)
        fail_msg("%d of %d (target, configuration, shape) runs failed", failures, ran);
}

/* ---- 16-bit extremes ---- */

/* One run of problem p with `solution` (NULL: the heuristic's pick) on
 * data given here, dx at dx_shift bytes past the start of its allocation;
 * verified by the 16-bit rule (igemm_verify_ex against
 * igemm_reference_bwd_data_ex) of problem rp (the same problem in another
 * fp16 mode: its reference). Counts the dx elements that are subnormal and
 * infinite; returns whether the rule holds. */
static bool run_16bit_ref(igemm_handle *h, const char *arch, const igemm_problem *p, const igemm_problem *rp,
                          const char *solution, size_t shifts, const void *dy, const void *w, int *subnormal,
                          int *inf)
{
    /* shifts: dx's bytes into its buffer, plus 256 times dy's */
    size_t dx_shift = shifts % 256, dy_shift = shifts / 256;
    igemm_shape sh;
    assert_int_equal(igemm_shape_init(&sh, p, NULL, 0), IGEMM_OK);
    size_t nx = (size_t)sh.dx_elems, ny = (size_t)sh.dy_elems, nw = (size_t)sh.w_elems;
    uint16_t *hx = malloc(nx * 2);
    double *ref = malloc(nx * sizeof *ref), *abs_sum = malloc(nx * sizeof *abs_sum);
    unsigned char *cov = malloc(nx);
    void *dx_alloc, *ddy_alloc, *dw;
    assert_true(hx && ref && abs_sum && cov);
    assert_int_equal(igemm_alloc(h, &dx_alloc, nx * 2 + dx_shift), IGEMM_OK);
    void *dx = (char *)dx_alloc + dx_shift;
    assert_int_equal(igemm_alloc(h, &ddy_alloc, ny * 2 + dy_shift), IGEMM_OK);
    void *ddy = (char *)ddy_alloc + dy_shift;
    assert_int_equal(igemm_alloc(h, &dw, nw * 2), IGEMM_OK);
    assert_int_equal(igemm_copy_to_device(h, ddy, dy, ny * 2), IGEMM_OK);
    assert_int_equal(igemm_copy_to_device(h, dw, w, nw * 2), IGEMM_OK);
    igemm_run_info ri;
    if (igemm_conv_bwd_data_ex(h, p, solution, dx, ddy, dw, &ri) != IGEMM_OK)
        fail_msg("%s %s (dx %zu, dy %zu bytes into their buffers): %s", arch, solution ? solution : "", dx_shift,
                 dy_shift, igemm_last_error(h));
    assert_int_equal(igemm_copy_to_host(h, hx, dx, nx * 2), IGEMM_OK);
    assert_int_equal(igemm_reference_bwd_data_ex(rp, dy, w, ref, abs_sum, cov), IGEMM_OK);
    igemm_verify_result vr;
    bool ok = igemm_verify_ex(rp, hx, ref, abs_sum, cov, 1e-5, &vr);
    if (!ok)
        print_message("  %s %s (%s, dx %zu, dy %zu bytes into their buffers): %lld over the 16-bit rule's tolerance, "
                      "%lld NaN, max rel err %g\n", arch, p->dtype == IGEMM_FP16 ? "fp16" : "bf16", ri.solution, dx_shift,
                      dy_shift,
                      (long long)vr.over_tolerance, (long long)vr.nan_count, vr.max_rel_err);
    /* what the stored bits are: exponent field 0 with a non-zero fraction, or all ones with a zero one */
    int mant = p->dtype == IGEMM_FP16 ? 10 : 7;
    unsigned emask = p->dtype == IGEMM_FP16 ? 0x7c00u : 0x7f80u, fmask = (1u << mant) - 1;
    *subnormal = *inf = 0;
    for (size_t i = 0; i < nx; i++) {
        *subnormal += (hx[i] & emask) == 0 && (hx[i] & fmask) != 0;
        *inf += (hx[i] & 0x7fffu) == emask;
    }
    igemm_free(h, dx_alloc);
    igemm_free(h, ddy_alloc);
    igemm_free(h, dw);
    free(hx);
    free(ref);
    free(abs_sum);
    free(cov);
    return ok;
}

/* The same against p's own reference. */
static bool run_16bit_try(igemm_handle *h, const char *arch, const igemm_problem *p, const char *solution,
                          size_t shifts, const void *dy, const void *w, int *subnormal, int *inf)
{
    return run_16bit_ref(h, arch, p, p, solution, shifts, dy, w, subnormal, inf);
}

/* The same, which must pass the 16-bit rule. */
static void run_16bit(igemm_handle *h, const char *arch, const igemm_problem *p, const char *solution,
                      size_t shifts, const void *dy, const void *w, int *subnormal, int *inf)
{
    if (!run_16bit_try(h, arch, p, solution, shifts, dy, w, subnormal, inf))
        fail_msg("%s %s: fails the 16-bit rule", arch, solution ? solution : "(the heuristic's pick)");
}

/* The extremes forced onto an fp16 _dot2 configuration (the heuristic
 * picks other ones on the tiny shape): where its v_dot2_f32_f16 keeps
 * subnormals it must pass the 16-bit rule and produce the subnormal or
 * infinite elements; where the target flushes (gfx90a) the accurate mode
 * refuses it. */
static void extreme_dot2(igemm_handle *h, const char *arch, const igemm_problem *p, const void *dy, const void *w,
                         bool huge)
{
    const char *dot2 = p->layout == IGEMM_LAYOUT_NHWC ? "igemm_bwd_v4r1_fma_fp16_nhwc_32x32x16_t64_dot2"
                                                      : "igemm_bwd_v4r1_fma_fp16_nchw_32x32x16_t64_dot2";
    char why[256];
    igemm_status st = igemm_applicable(h, p, dot2, why, sizeof why);
    if (target_by_name(arch)->dot2_f16_ftz) {
        assert_int_equal(st, IGEMM_ERR_NOT_APPLICABLE);
        assert_non_null(strstr(why, "flush"));
        return;
    }
    if (st != IGEMM_OK)
        fail_msg("%s %s: %s", arch, dot2, why);
    int sub, inf;
    run_16bit(h, arch, p, dot2, 0, dy, w, &sub, &inf);
    if (huge ? inf == 0 : sub == 0)
        fail_msg("%s %s: no %s dx element", arch, dot2, huge ? "infinite" : "subnormal");
}

/* Subnormal inputs and results (fp16: dy of 2^-18 and below, itself
 * subnormal, times w below 1/4; bf16: dy below 2^-69 times w below 2^-62
 * lands below 2^-126) and sums past the largest finite
 * value (fp16 65504; bf16 3.39e38), on every target, by the heuristic's
 * pick and (tiny) by a 16-bit MFMA tile: dx within the 16-bit rule
 * (subnormals rounded to nearest even, overflow to inf as IEEE says), and
 * the data does produce subnormal and infinite dx elements. */
static void sixteen_bit_extremes(void **state)
{
    (void)state;
    for (size_t a = 0; a < sizeof archs / sizeof archs[0]; a++) {
        igemm_handle *h = tc_emu_handle(archs[a], NULL, 0);
        for (int t = 0; t < 2; t++) {
            igemm_problem p = IGEMM_PROBLEM_INIT;
            p.n = 1, p.c = 8, p.hi = 6, p.wi = 6, p.k = 8, p.y = 3, p.x = 3, p.pad_h = p.pad_w = 1;
            p.dtype = t ? IGEMM_BF16 : IGEMM_FP16;
            size_t ny = 8 * 36, nw = 8 * 8 * 9;
            uint16_t dy[8 * 36], w[8 * 8 * 9];
            uint64_t s = 77 + (uint64_t)t;
            /* tiny: subnormal products */
            for (size_t i = 0; i < ny; i++)
                igemm_elem_set(p.dtype, dy, i, ldexp((double)(1 + tc_splitmix64(&s) % 64), t ? -75 : -24));
            for (size_t i = 0; i < nw; i++)
                igemm_elem_set(p.dtype, w, i, ldexp((double)(tc_splitmix64(&s) % 16) / 64.0, t ? -60 : 0));
            int sub, inf;
            char pick[128];
            assert_int_equal(igemm_select(h, &p, pick, sizeof pick), IGEMM_OK);
            run_16bit(h, archs[a], &p, NULL, 0, dy, w, &sub, &inf);
            /* and on a 16-bit MFMA tile (the heuristic may pick another on this
               tiny shape): gfx90a's flush the subnormal inputs and sums, its
               kernels take the f32 path for these steps (v4r1_config_ftz_checked) */
            if (target_by_name(archs[a])->has_mfma) {
                const char *quad = t ? "igemm_bwd_v4r1_mfma_bf16_nchw_16x16x16_t64_wt16x16x16"
                                     : "igemm_bwd_v4r1_mfma_fp16_nchw_16x16x16_t64_wt16x16x16";
                int qsub, qinf;
                run_16bit(h, archs[a], &p, quad, 0, dy, w, &qsub, &qinf);
                if (qsub == 0)
                    fail_msg("%s %s: no subnormal dx element", archs[a], quad);
            }
            if (sub == 0)
                fail_msg("%s %s: no subnormal dx element, the case tests nothing", archs[a], t ? "bf16" : "fp16");
            if (!t)
                extreme_dot2(h, archs[a], &p, dy, w, false);
            /* huge: sums of 72 terms of up to (1.9 * 2^e)^2 overflow */
            for (size_t i = 0; i < ny; i++)
                igemm_elem_set(p.dtype, dy, i, ldexp(1.0 + (double)(tc_splitmix64(&s) % 8) / 8.0, t ? 62 : 6));
            for (size_t i = 0; i < nw; i++)
                igemm_elem_set(p.dtype, w, i, ldexp(1.0 + (double)(tc_splitmix64(&s) % 8) / 8.0, t ? 62 : 6));
            run_16bit(h, archs[a], &p, NULL, 0, dy, w, &sub, &inf);
            if (inf == 0)
                fail_msg("%s %s: no infinite dx element, the case tests nothing", archs[a], t ? "bf16" : "fp16");
            if (!t)
                extreme_dot2(h, archs[a], &p, dy, w, true);
        }
        igemm_destroy(h);
    }
}

/* fp16 on the 16-bit matrix instructions with subnormal inputs. gfx90a's
 * f16 MFMAs read a subnormal A or B element as zero (test_mfma
 * denormals_per_target); its k-quad fp16 kernels test each matrix step's
 * fragments and multiply a step that holds a subnormal on the f32 MFMAs
 * (v4r1_config_ftz_checked), so they hold the 16-bit rule in the accurate
 * default on every MFMA target:
 * - every product and sum subnormal (dy of 2^-24..2^-18, w below 1/4:
 *   every step takes the f32 path on gfx90a), accurate mode; in flush
 *   mode gfx90a's kernel skips the test (PH_GUARD_FLUSH) and flushes them
 *   (the rule fails there, holds elsewhere);
 * - every unsplit fp16 MFMA tile and a split one on gfx90a, w's first 16
 *   output channels a quarter subnormal among small normals and dy's
 *   channels from 32 on an eighth subnormal, the rest normal: the steps
 *   over those channels take the f32 path, the others the f16 MFMAs, into
 *   the same accumulators. Flushed, the subnormal terms are a few percent
 *   of dx, far over the rule (with the exact path's branch never taken,
 *   the first tile fails with 2339 of its 2352 dx elements over, and the
 *   all-subnormal case with 288 of 288). */
static void sixteen_bit_exact_on_flushing_mfma(void **state)
{
    (void)state;
    static const char *quad = "igemm_bwd_v4r1_mfma_fp16_nchw_16x16x16_t64_wt16x16x16";
    for (size_t a = 0; a < sizeof archs / sizeof archs[0]; a++) {
        const target *t = target_by_name(archs[a]);
        if (!t->has_mfma)
            continue;
        igemm_handle *h = tc_emu_handle(archs[a], NULL, 0);
        igemm_problem p = IGEMM_PROBLEM_INIT;
        p.n = 1, p.c = 8, p.hi = 6, p.wi = 6, p.k = 16, p.y = 3, p.x = 3, p.pad_h = p.pad_w = 1;
        p.dtype = IGEMM_FP16;
        uint16_t dy[16 * 36], w[16 * 8 * 9];
        uint64_t s = 91;
        for (size_t i = 0; i < sizeof dy / sizeof dy[0]; i++)
            igemm_elem_set(p.dtype, dy, i, ldexp((double)(1 + tc_splitmix64(&s) % 64), -24));
        for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
            igemm_elem_set(p.dtype, w, i, ldexp((double)(1 + tc_splitmix64(&s) % 15) / 64.0, 0));
        int sub, inf;
        char why[256];
        for (int m = IGEMM_FP16_ACCURATE; m <= IGEMM_FP16_FLUSH; m++) {
            p.fp16_mode = (igemm_fp16_mode)m;
            if (igemm_applicable(h, &p, quad, why, sizeof why) != IGEMM_OK)
                fail_msg("%s %s: %s", archs[a], quad, why);
            /* a flush problem lets gfx90a's kernel skip the test (PH_GUARD_FLUSH):
               the f16 MFMAs then flush these subnormals and the rule fails */
            bool flushes = m == IGEMM_FP16_FLUSH && t->mfma_16bit_ftz;
            if (run_16bit_try(h, archs[a], &p, quad, 0, dy, w, &sub, &inf) == flushes)
                fail_msg("%s %s, fp16 mode %d: the 16-bit rule %s", archs[a], quad, m,
                         flushes ? "holds: the flush problem did not skip the test" : "fails");
            if (!flushes)
                assert_true(sub > 0);
        }
        igemm_destroy(h);
    }

    igemm_handle *h = tc_emu_handle("gfx90a", NULL, 0);
    int ran = 0;
    for (int ci = 0; ci <= nconfigs; ci++) {
        const char *name = ci < nconfigs ? configs[ci].name : "igemm_bwd_v4r1_mfma_fp16_nhwc_64x64x32_t256_wt32x32x8_ks4";
        if (ci < nconfigs && !(configs[ci].mfma && configs[ci].quad && configs[ci].dtype == IGEMM_FP16 && !configs[ci].alt))
            continue;
        bool nhwc = strstr(name, "_nhwc_") != NULL;
        igemm_problem p = IGEMM_PROBLEM_INIT;
        p.n = 2, p.c = 24, p.hi = 7, p.wi = 7, p.k = 40, p.y = 3, p.x = 3, p.pad_h = p.pad_w = 1;
        p.dtype = IGEMM_FP16, p.layout = nhwc ? IGEMM_LAYOUT_NHWC : IGEMM_LAYOUT_NCHW;
        enum { NY = 2 * 40 * 49, NW = 40 * 24 * 9 };
        static uint16_t dy[NY], w[NW];
        uint64_t s = 1000 + (uint64_t)ci;
        for (size_t i = 0; i < NY; i++) {
            size_t k = nhwc ? i % 40 : i / 49 % 40;
            double v = (double)(1024 + tc_splitmix64(&s) % 1024) / 2048.0; /* [1/2, 1) */
            if (k >= 32 && tc_splitmix64(&s) % 8 == 0)
                v = ldexp((double)(1 + tc_splitmix64(&s) % 1023), -24); /* subnormal */
            igemm_elem_set(p.dtype, dy, i, tc_splitmix64(&s) & 1 ? -v : v);
        }
        for (size_t i = 0; i < NW; i++) {
            size_t k = i / (24 * 9); /* K is outermost in KCYX and KYXC */
            double v = ldexp((double)(1024 + tc_splitmix64(&s) % 1024), -24); /* [2^-14, 2^-13) */
            if (k < 16 && tc_splitmix64(&s) % 4 == 0)
                v = ldexp((double)(1 + tc_splitmix64(&s) % 1023), -24);
            igemm_elem_set(p.dtype, w, i, tc_splitmix64(&s) & 1 ? -v : v);
        }
        char why[256];
        if (igemm_applicable(h, &p, name, why, sizeof why) != IGEMM_OK)
            fail_msg("gfx90a %s: %s", name, why);
        int sub, inf;
        run_16bit(h, "gfx90a", &p, name, 0, dy, w, &sub, &inf);
        ran++;
    }
    if (ran < 10)
        fail_msg("only %d fp16 MFMA tiles ran on gfx90a", ran);

    /* bf16: dy of 2^-46..2^-40, w's first 8 output channels of 2^-96..2^-92
       (below 2^-56: products of 2^-132 and less, subnormal fp32 sums), its
       others zero, so that the steps over channels 16..31 have no small
       value but must not take the bf16 MFMAs, which would read the
       subnormal accumulators as zero (v4r1_ftz_sticky; not sticky, 288 of
       288 elements fail: seen; with bf16's bound at fp16's,
       sixteen_bit_extremes's tiny bf16 fails with 288 of 288) */
    for (int l = 0; l < 2; l++) {
        const char *bq = l ? "igemm_bwd_v4r1_mfma_bf16_nhwc_16x16x16_t64_wt16x16x16"
                           : "igemm_bwd_v4r1_mfma_bf16_nchw_16x16x16_t64_wt16x16x16";
        igemm_problem p = IGEMM_PROBLEM_INIT;
        p.n = 1, p.c = 8, p.hi = 6, p.wi = 6, p.k = 32, p.y = 3, p.x = 3, p.pad_h = p.pad_w = 1;
        p.dtype = IGEMM_BF16, p.layout = l ? IGEMM_LAYOUT_NHWC : IGEMM_LAYOUT_NCHW;
        static uint16_t dy[32 * 36], w[32 * 8 * 9];
        uint64_t s = 95;
        for (size_t i = 0; i < sizeof dy / sizeof dy[0]; i++)
            igemm_elem_set(p.dtype, dy, i, ldexp((double)(1 + tc_splitmix64(&s) % 64), -46));
        for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
            igemm_elem_set(p.dtype, w, i, i / (8 * 9) < 8 ? ldexp((double)(1 + tc_splitmix64(&s) % 15), -96) : 0.0);
        int sub, inf;
        run_16bit(h, "gfx90a", &p, bq, 0, dy, w, &sub, &inf);
        if (sub == 0)
            fail_msg("gfx90a %s: no subnormal dx element, the case tests nothing", bq);
    }
    igemm_destroy(h);
}

/* gfx90a's fp16 MFMA kernels send only the quad elements of a step that
 * hold a subnormal to the f32 MFMA (math_mfma.c exact_elements: element j
 * multiplied there, zeroed in both sides' fragments, the rest on the f16
 * MFMAs). Three subnormals in w, in steps of their own on the 32x32 tiles
 * (one element of the quad is sent, the others not; on the 16x16 tiles,
 * whose steps cover 16 k, w's k = 20 and dy's k = 30 below meet in one
 * step of some waves: two elements), among small normals (products of
 * 2^-15: a flushed one is a few percent of its dx elements, far over the
 * rule); an Inf in dy on the output channel of one of them (w of that
 * channel positive) and an Inf in w on a subnormal of dy (dy of that
 * channel positive): their dx elements are +Inf, where the zeroed
 * subnormal times the Inf on the f16 MFMA would give a NaN. Seen failing:
 * element j's f32 MFMA on element j ^ 1, either side not zeroed (NaN), no
 * f32 MFMA at all. */
static void sixteen_bit_exact_single_elements(void **state)
{
    (void)state;
    igemm_handle *h = tc_emu_handle("gfx90a", NULL, 0);
    int ran = 0;
    for (int ci = 0; ci < nconfigs; ci++) {
        if (!(configs[ci].mfma && configs[ci].quad && configs[ci].dtype == IGEMM_FP16 && !configs[ci].alt))
            continue;
        const char *name = configs[ci].name;
        bool nhwc = strstr(name, "_nhwc_") != NULL;
        enum { N = 2, C = 24, H = 7, K = 40, R = 3, NY = N * K * H * H, NW = K * C * R * R };
        igemm_problem p = IGEMM_PROBLEM_INIT;
        p.n = N, p.c = C, p.hi = p.wi = H, p.k = K, p.y = p.x = R, p.pad_h = p.pad_w = 1;
        p.dtype = IGEMM_FP16, p.layout = nhwc ? IGEMM_LAYOUT_NHWC : IGEMM_LAYOUT_NCHW;
        static uint16_t dy[NY], w[NW];
        uint64_t s = 2000 + (uint64_t)ci;
        for (size_t i = 0; i < NY; i++) {
            double v = (double)(1024 + tc_splitmix64(&s) % 1024) / 2048.0; /* [1/2, 1) */
            bool neg = (nhwc ? i % K : i / (H * H) % K) != 30 && tc_splitmix64(&s) & 1;
            igemm_elem_set(p.dtype, dy, i, neg ? -v : v);
        }
#define DY_AT(n, k, y, x) (nhwc ? (((size_t)(n) * H + (y)) * H + (x)) * K + (k) : (((size_t)(n) * K + (k)) * H + (y)) * H + (x))
#define W_AT(k, c, y, x) (nhwc ? (((size_t)(k) * R + (y)) * R + (x)) * C + (c) : (((size_t)(k) * C + (c)) * R + (y)) * R + (x))
        igemm_elem_set(p.dtype, dy, DY_AT(1, 5, 3, 3), INFINITY);
        igemm_elem_set(p.dtype, dy, DY_AT(0, 30, 2, 4), ldexp(777.0, -24)); /* subnormal, on w's Inf */
        for (size_t i = 0; i < NW; i++) {
            double v = ldexp((double)(1024 + tc_splitmix64(&s) % 1024), -24); /* [2^-14, 2^-13) */
            bool neg = i / (C * R * R) != 5 && tc_splitmix64(&s) & 1;
            igemm_elem_set(p.dtype, w, i, neg ? -v : v);
        }
        igemm_elem_set(p.dtype, w, W_AT(30, 7, 1, 1), INFINITY);
        const int sub[3][4] = {{5, 2, 1, 1}, {20, 0, 2, 0}, {37, 11, 0, 2}}; /* k, c, y, x */
        for (int i = 0; i < 3; i++) {
            const int *q = sub[i];
            igemm_elem_set(p.dtype, w, W_AT(q[0], q[1], q[2], q[3]), ldexp(1023.0 - 300 * i, -24) * (i == 2 ? -1 : 1));
        }
#undef DY_AT
#undef W_AT
        char why[256];
        if (igemm_applicable(h, &p, name, why, sizeof why) != IGEMM_OK)
            fail_msg("gfx90a %s: %s", name, why);
        int nsub, inf;
        run_16bit(h, "gfx90a", &p, name, 0, dy, w, &nsub, &inf);
        if (inf == 0)
            fail_msg("gfx90a %s: no infinite dx element, the Inf tests nothing", name);
        ran++;
    }
    if (ran < 10)
        fail_msg("only %d fp16 MFMA tiles ran on gfx90a", ran);
    igemm_destroy(h);
}

/* fp16_mode alt on every MFMA target (NCHW and NHWC): the fp16alt
 * configurations are refused for accurate and flush problems and taken for
 * alt ones; on gfx90a the heuristic's alt pick is an fp16alt one and its
 * accurate and flush picks never are (ResNet-50 NHWC, batch 8). The data:
 * subnormal dy (2^-24 .. 2^-18) times w of 8+ significant bits (so that
 * rounding to bf16 moves every product), plus the NaNs whose rounding
 * carries into the exponent (0x7fff, 0xffff: the all-ones payloads) and an
 * inf: dx passes the 16-bit rule against the reference of the bf16-rounded
 * inputs (the subnormals kept, the NaNs NaN) and fails it against the
 * reference of the fp16 values (the rounding is bf16's, not fp16's). */
static void fp16_alt_mode(void **state)
{
    (void)state;
    for (size_t a = 0; a < sizeof archs / sizeof archs[0]; a++) {
        const target *t = target_by_name(archs[a]);
        if (!t->has_mfma)
            continue;
        igemm_handle *h = tc_emu_handle(archs[a], NULL, 0);
        for (int l = 0; l < 2; l++) {
            const char *alt = l ? "igemm_bwd_v4r1_mfma_fp16alt_nhwc_64x64x32_t256_wt32x32x8"
                                : "igemm_bwd_v4r1_mfma_fp16alt_nchw_16x16x16_t64_wt16x16x16";
            igemm_problem p = IGEMM_PROBLEM_INIT;
            p.n = 1, p.c = 8, p.hi = 6, p.wi = 6, p.k = 16, p.y = 3, p.x = 3, p.pad_h = p.pad_w = 1;
            p.dtype = IGEMM_FP16, p.layout = l ? IGEMM_LAYOUT_NHWC : IGEMM_LAYOUT_NCHW;
            uint16_t dy[16 * 36], w[16 * 8 * 9];
            uint64_t s = 93;
            for (size_t i = 0; i < sizeof dy / sizeof dy[0]; i++)
                igemm_elem_set(p.dtype, dy, i, ldexp((double)(1 + tc_splitmix64(&s) % 64), -24));
            for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
                igemm_elem_set(p.dtype, w, i, (double)(257 + tc_splitmix64(&s) % 767) / 2048.0);
            dy[5] = 0x7fff, dy[77] = 0xffff, dy[200] = 0x7c00;
            char why[256];
            for (int m = IGEMM_FP16_ACCURATE; m <= IGEMM_FP16_FLUSH; m++) {
                p.fp16_mode = (igemm_fp16_mode)m;
                assert_int_equal(igemm_applicable(h, &p, alt, why, sizeof why), IGEMM_ERR_NOT_APPLICABLE);
                assert_non_null(strstr(why, "--fp16_mode alt only"));
            }
            p.fp16_mode = IGEMM_FP16_ALT;
            if (igemm_applicable(h, &p, alt, why, sizeof why) != IGEMM_OK)
                fail_msg("%s %s: %s", archs[a], alt, why);
            int sub, inf;
            run_16bit(h, archs[a], &p, alt, 0, dy, w, &sub, &inf);
            assert_true(sub > 0 && inf > 0);
            /* the same dx against the fp16 values' reference: not within it */
            igemm_problem pr = p;
            pr.fp16_mode = IGEMM_FP16_ACCURATE;
            if (run_16bit_ref(h, archs[a], &p, &pr, alt, 0, dy, w, &sub, &inf))
                fail_msg("%s %s: dx is within the fp16 values' rule: the kernel did not round to bf16", archs[a], alt);
        }
        igemm_destroy(h);
    }
    /* the heuristic: alt problems get 16-bit MFMA kernels on gfx90a (fp16alt
       ones, or the exact fp16 ones, which are not slower there), the others
       never an fp16alt one */
    igemm_handle *h = tc_emu_handle("gfx90a", NULL, 0);
    for (int i = 0; i < resnet50.n; i++)
        for (int m = IGEMM_FP16_ACCURATE; m <= IGEMM_FP16_ALT; m++) {
            igemm_problem p = resnet50.s[i].p;
            p.n = 8, p.dtype = IGEMM_FP16, p.layout = IGEMM_LAYOUT_NHWC, p.fp16_mode = (igemm_fp16_mode)m;
            char name[128];
            if (igemm_select(h, &p, name, sizeof name) != IGEMM_OK)
                fail_msg("%s fp16 mode %d: igemm_select: %s", resnet50.s[i].text, m, igemm_last_error(h));
            bool is_alt = strstr(name, "_fp16alt_") != NULL;
            bool quad16 = strstr(name, "_mfma_fp16") && (strstr(name, "_wt32x32x8") || strstr(name, "_wt16x16x16"));
            if (m != IGEMM_FP16_ALT && is_alt)
                fail_msg("gfx90a fp16 %s (mode %d): the heuristic picks %s", resnet50.s[i].text, m, name);
            if (m == IGEMM_FP16_ALT && !quad16 && p.c >= 64 && p.k >= 64)
                fail_msg("gfx90a fp16 alt %s: the heuristic picks %s, not a 16-bit MFMA configuration",
                         resnet50.s[i].text, name);
        }
    igemm_destroy(h);
}

/* ---- NHWC channel tails ---- */

/* Channel counts around the NHWC epilogue's vectors (it stores 4
 * consecutive channels as one vector where all four are inside C/G, the
 * rest element by element; 16-bit vectors only where they are 4-byte
 * aligned, C/G even). The edge list has C/G = 1, 3, 5, 6, 130 and 8 with 4
 * groups; these add C/G = 2, 7 with 2 groups (odd: the second group's
 * halves start mid-dword), 12 with 2 groups (every vector full, past the
 * first group), 1 with 3 groups, 6 with 3 groups (even, a tail of 2 per
 * group) and 131 (a tail of 3 in the second M tile of the 128-row tiles). */
static const struct {
    int n, c, g, hw, k, y;
} tails[] = {
    {2, 2, 1, 3, 3, 1}, {1, 14, 2, 4, 4, 3}, {2, 24, 2, 4, 6, 3},
    {2, 3, 3, 3, 6, 1}, {1, 18, 3, 3, 3, 3}, {1, 131, 1, 3, 5, 1},
};

static void nhwc_tails_on(const char *arch)
{
    igemm_handle *h = tc_emu_handle(arch, NULL, 0);
    int failures = 0, ran = 0;
    for (int c = 0; c < nconfigs; c++) {
        if (configs[c].layout != IGEMM_LAYOUT_NHWC || !runs_on(&configs[c], arch))
            continue;
        for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++, ran++) {
            igemm_problem p = IGEMM_PROBLEM_INIT;
            p.n = tails[i].n, p.c = tails[i].c, p.groups = tails[i].g, p.hi = p.wi = tails[i].hw;
            p.k = tails[i].k, p.y = p.x = tails[i].y, p.pad_h = p.pad_w = tails[i].y / 2;
            p.layout = IGEMM_LAYOUT_NHWC;
            p.dtype = configs[c].dtype;
            p.fp16_mode = fp16_mode_for(&configs[c], arch);
            tc_case_result r;
            char msg[1024], text[256];
            if (tc_run_case(h, &p, configs[c].name, 300u + (uint64_t)i, &r, msg, sizeof msg)) {
                igemm_problem_format(&p, text, sizeof text);
                if (failures++ < MAX_REPORTED)
                    print_error("conv %s -F 2 --arch %s --solution %s: %s\n", text, arch, configs[c].name, msg);
            }
        }
    }
    igemm_destroy(h);
    print_message("%s: %d (NHWC configuration, channel tail shape) pairs\n", arch, ran);
    if (failures)
        fail_msg("%s: %d of %d (NHWC configuration, channel tail shape) pairs failed", arch, failures, ran);
}

static void nhwc_channel_tails(void **state)
{
    (void)state;
    for (size_t a = 0; a < sizeof archs / sizeof archs[0]; a++)
        nhwc_tails_on(archs[a]);
}

/* 16-bit NHWC dx at 2 bytes past a dword (the API takes any element-aligned
 * pointer): vectors of halves would be misaligned there, so every 16-bit
 * NHWC configuration must store element by element (the emulator faults a
 * multi-dword access that is not 4-byte aligned), and at 0 and 4 bytes
 * store vectors; likewise dy at 2 bytes past a dword (the matrix-core
 * tiles' dy channel vectors load element by element there); verified
 * against the reference each time. C/G = 8, K = 6, one phase, every pixel
 * covered. */
static void sixteen_bit_nhwc_dx_alignment(void **state)
{
    (void)state;
    igemm_problem p = IGEMM_PROBLEM_INIT;
    p.n = 2, p.c = 8, p.hi = 5, p.wi = 5, p.k = 6, p.y = 3, p.x = 3, p.pad_h = p.pad_w = 1;
    p.layout = IGEMM_LAYOUT_NHWC;
    uint16_t dy[2 * 6 * 25], w[6 * 8 * 9];
    for (size_t a = 0; a < sizeof archs / sizeof archs[0]; a++) {
        igemm_handle *h = tc_emu_handle(archs[a], NULL, 0);
        for (int c = 0; c < nconfigs; c++) {
            if (configs[c].layout != IGEMM_LAYOUT_NHWC || configs[c].dtype == IGEMM_FP32 ||
                !runs_on(&configs[c], archs[a]))
                continue;
            p.dtype = configs[c].dtype;
            p.fp16_mode = fp16_mode_for(&configs[c], archs[a]);
            uint64_t s = 900 + (uint64_t)c;
            for (size_t i = 0; i < sizeof dy / sizeof dy[0]; i++)
                igemm_elem_set(p.dtype, dy, i, (double)(int)(tc_splitmix64(&s) % 64 - 32) / 16.0);
            for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
                igemm_elem_set(p.dtype, w, i, (double)(int)(tc_splitmix64(&s) % 64 - 32) / 16.0);
            for (size_t shift = 0; shift <= 4; shift += 2) {
                int sub, inf;
                run_16bit(h, archs[a], &p, configs[c].name, shift, dy, w, &sub, &inf);
                run_16bit(h, archs[a], &p, configs[c].name, shift * 256, dy, w, &sub, &inf); /* dy shifted */
            }
        }
        igemm_destroy(h);
    }
}

/* ---- NHWC dx through LDS (gen/bwd_data_v4r1/dx_lds.c) ---- */

/* The matrix-core tiles store NHWC dx through LDS, a lane storing a unit of
 * 16 bytes of one pixel's channels (4 fp32, 8 halves) where the unit is
 * inside C/G, else element by element. Shapes around its tails and passes:
 * C = 20 (fp32 whole units; 16-bit two units and a tail of 4) over 162
 * pixels (several column blocks, column tiles and read rounds); C/G = 18
 * with 2 groups (a tail of 2; the second group 36 bytes into a 16-bit
 * pixel); C = 14 on a 2x2 image at stride 2 (a 16-bit tail of 6, fp32 of
 * 2; the phases' pixels 2 apart); C = 11 on 1x1 images (odd: 16-bit shapes
 * store element by element); C = 140 (12 rows in the 128-row tiles' second
 * M tile, rows past the first pass of the 256-row ones). Expected values:
 * the float64 reference (tc_run_case); the 16-bit configurations also with
 * NaN, Inf and subnormals in dy and w (the rounding and NaN rule of the
 * direct path). */
static const struct {
    int n, c, g, hw, k, y, u;
} lds_tails[] = {
    {2, 20, 1, 9, 4, 1, 1}, {1, 36, 2, 3, 6, 3, 1}, {1, 14, 1, 2, 3, 3, 2}, {3, 11, 1, 1, 5, 1, 1}, {1, 140, 1, 5, 3, 1, 1},
};

static void nhwc_lds_tails_on(const char *arch, int *ran, int *failures)
{
    igemm_handle *h = tc_emu_handle(arch, NULL, 0);
    for (int c = 0; c < nconfigs; c++) {
        if (configs[c].layout != IGEMM_LAYOUT_NHWC || !configs[c].mfma || !runs_on(&configs[c], arch))
            continue;
        for (size_t i = 0; i < sizeof lds_tails / sizeof lds_tails[0]; i++) {
            igemm_problem p = IGEMM_PROBLEM_INIT;
            p.n = lds_tails[i].n, p.c = lds_tails[i].c, p.groups = lds_tails[i].g, p.hi = p.wi = lds_tails[i].hw;
            p.k = lds_tails[i].k, p.y = p.x = lds_tails[i].y, p.pad_h = p.pad_w = lds_tails[i].y / 2;
            p.stride_h = p.stride_w = lds_tails[i].u;
            p.layout = IGEMM_LAYOUT_NHWC;
            p.dtype = configs[c].dtype;
            p.fp16_mode = fp16_mode_for(&configs[c], arch);
            unsigned specials[] = {0, TC_SPECIALS_DY | TC_SPECIALS_W};
            for (int k = 0; k < (p.dtype == IGEMM_FP32 ? 1 : 2); k++) {
                unsigned sp = specials[k];
                tc_case_result r;
                char msg[1024], text[256];
                int bad = tc_run_case_ex(h, &p, configs[c].name, 1300u + (uint64_t)i, sp, &r, msg, sizeof msg);
                ++*ran;
                if (bad && (*failures)++ < MAX_REPORTED) {
                    igemm_problem_format(&p, text, sizeof text);
                    print_error("conv %s -F 2 --arch %s --solution %s%s: %s\n", text, arch, configs[c].name,
                                sp ? " (specials)" : "", msg);
                }
            }
        }
    }
    igemm_destroy(h);
}

static void nhwc_lds_store_tails(void **state)
{
    (void)state;
    int ran = 0, failures = 0;
    for (size_t a = 0; a < sizeof archs / sizeof archs[0]; a++)
        if (target_by_name(archs[a])->has_mfma)
            nhwc_lds_tails_on(archs[a], &ran, &failures);
    print_message("%d (NHWC matrix-core configuration, dx tail shape) runs\n", ran);
    assert_true(ran > 0);
    if (failures)
        fail_msg("%d of %d (NHWC matrix-core configuration, dx tail shape) runs failed", failures, ran);
}

/* ---- the channel path's LDS ---- */

/* The matrix-core NHWC tiles write dy's channel vectors down their LDS
 * columns, the Q lanes of a pixel into Q row blocks of one column: with
 * rows a multiple of the bank group those would share a bank, so the
 * tile swizzles its columns (conv/v4r1_config.h, v4r1_bswz_xor) or pads
 * its rows. Every such configuration, each on one target in turn, on a
 * 1x1 layer of whole tiles (C = MPB, K = 2 KPB, H*W = NPB): the numbers
 * must be right, and the timing model's LDS count (its own bank model,
 * emu/timing_trace.c) must find no conflict, but for two known ones
 * (docs/KERNELS.md), bounded at 1.5x: k-quad tiles whose A share is 4
 * quads a thread write them as two ds_write_b128 32 bytes apart per lane
 * (the 8 lanes of a group on 4 banks' worth twice), and fp32 LDS entries
 * read by 16x16 MFMAs put rows r and r+1 in one 32-lane ds_read_b32 group
 * (the same banks but for the rows' skew). */
static bool known_lds_conflict(const config *cf)
{
    return (cf->quad && cf->mpb * cf->kpb / 4 / cf->block == 4) || (!cf->quad && cf->inst == 16);
}

static void nhwc_channel_path_lds_conflict_free(void **state)
{
    (void)state;
    const char *mfma_archs[sizeof archs / sizeof archs[0]];
    int narch = 0, ran = 0, failures = 0, known_seen = 0;
    for (size_t a = 0; a < sizeof archs / sizeof archs[0]; a++)
        if (target_by_name(archs[a])->has_mfma)
            mfma_archs[narch++] = archs[a];
    assert_true(narch > 0);
    igemm_handle *h[sizeof archs / sizeof archs[0]] = {0};
    for (int c = 0; c < nconfigs; c++) {
        const config *cf = &configs[c];
        if (cf->layout != IGEMM_LAYOUT_NHWC || !cf->mfma)
            continue;
        int a = ran % narch;
        if (!runs_on(cf, mfma_archs[a]))
            continue;
        if (!h[a])
            h[a] = tc_emu_handle(mfma_archs[a], NULL, 0);
        igemm_problem p = IGEMM_PROBLEM_INIT;
        p.n = 1, p.c = cf->mpb, p.hi = cf->npb / 8, p.wi = 8, p.k = 2 * cf->kpb, p.y = p.x = 1;
        p.layout = IGEMM_LAYOUT_NHWC, p.dtype = cf->dtype, p.fp16_mode = fp16_mode_for(cf, mfma_archs[a]);
        tc_case_result r;
        char msg[1024];
        ran++;
        if (tc_run_case(h[a], &p, cf->name, 11 + (uint64_t)c, &r, msg, sizeof msg)) {
            if (failures++ < MAX_REPORTED)
                print_error("%s %s: %s\n", mfma_archs[a], cf->name, msg);
        } else {
            const igemm_memory_view *m = &r.ri.memory;
            bool known = known_lds_conflict(cf);
            known_seen += known && m->lds_cycles > m->lds_ideal;
            if (!m->lds_ideal || (known ? m->lds_cycles > 1.5 * (double)m->lds_ideal : m->lds_cycles != m->lds_ideal))
                if (failures++ < MAX_REPORTED)
                    print_error("%s %s: LDS %llu cycles, %llu without bank conflicts%s\n", mfma_archs[a], cf->name,
                                (unsigned long long)m->lds_cycles, (unsigned long long)m->lds_ideal,
                                known ? " (a known conflict, over 1.5x)" : "");
        }
    }
    for (int a = 0; a < narch; a++)
        if (h[a])
            igemm_destroy(h[a]);
    print_message("%d NHWC matrix-core configurations run, %d with a known LDS conflict\n", ran, known_seen);
    assert_true(ran > 0);
    if (failures)
        fail_msg("%d of %d NHWC matrix-core configurations conflict in LDS or miscompute", failures, ran);
}

/* ---- NHWC dy channel tails ---- */

/* Shapes around the matrix-core tiles' dy channel vectors (docs/KERNELS.md:
 * KPB/WB lanes load WB consecutive channels k of one pixel, 4 fp32 or 8
 * halves; the last block of a tap loads pieces of WB or WB/2 channels
 * under per-lane masks where the channels left are a multiple of the
 * piece, else, like 16-bit shapes with odd K or K/G, element by element
 * under per-channel masks): K/G = 3, 5 and 17 (odd: 16-bit vectors
 * refused; 17 also a partial block after whole ones), 20 (even, a partial
 * block of 4 after 16: fp32 vectors, 16-bit half vectors),
 * 24 with 2 groups (the second group's channels 48 bytes into a pixel),
 * 40 (a partial block of 8 for KPB 16 and 32, whole blocks for KPB 8) and
 * 64 (whole blocks of every KPB); strides, dilations and pads so that taps
 * fall outside dy. */
static const struct {
    int n, c, g, hw, k, y, u, l, p;
} ktails[] = {
    {1, 8, 1, 5, 3, 3, 1, 1, 1},   {2, 6, 1, 4, 5, 1, 1, 1, 0},   {1, 10, 2, 5, 34, 3, 2, 1, 1},
    {1, 5, 1, 6, 20, 3, 1, 2, 2},  {1, 4, 2, 4, 48, 1, 1, 1, 0},  {1, 8, 1, 6, 40, 3, 1, 2, 2},
    {1, 6, 1, 5, 64, 3, 2, 1, 1},
};

static void nhwc_k_tails_on(const char *arch)
{
    igemm_handle *h = tc_emu_handle(arch, NULL, 0);
    int failures = 0, ran = 0;
    for (int c = 0; c < nconfigs; c++) {
        if (configs[c].layout != IGEMM_LAYOUT_NHWC || !configs[c].mfma || !runs_on(&configs[c], arch))
            continue;
        for (size_t i = 0; i < sizeof ktails / sizeof ktails[0]; i++, ran++) {
            igemm_problem p = IGEMM_PROBLEM_INIT;
            p.n = ktails[i].n, p.c = ktails[i].c, p.groups = ktails[i].g, p.hi = p.wi = ktails[i].hw;
            p.k = ktails[i].k, p.y = p.x = ktails[i].y, p.stride_h = p.stride_w = ktails[i].u;
            p.dil_h = p.dil_w = ktails[i].l, p.pad_h = p.pad_w = ktails[i].p;
            p.layout = IGEMM_LAYOUT_NHWC;
            p.dtype = configs[c].dtype;
            p.fp16_mode = fp16_mode_for(&configs[c], arch);
            tc_case_result r;
            char msg[1024], text[256];
            if (tc_run_case(h, &p, configs[c].name, 700u + (uint64_t)i, &r, msg, sizeof msg)) {
                igemm_problem_format(&p, text, sizeof text);
                if (failures++ < MAX_REPORTED)
                    print_error("conv %s -F 2 --arch %s --solution %s: %s\n", text, arch, configs[c].name, msg);
            }
        }
    }
    igemm_destroy(h);
    print_message("%s: %d (NHWC matrix-core configuration, K tail shape) pairs\n", arch, ran);
    if (failures)
        fail_msg("%s: %d of %d (NHWC matrix-core configuration, K tail shape) pairs failed", arch, failures, ran);
}

static void nhwc_dy_channel_tails(void **state)
{
    (void)state;
    for (size_t a = 0; a < sizeof archs / sizeof archs[0]; a++)
        if (target_by_name(archs[a])->has_mfma)
            nhwc_k_tails_on(archs[a]);
}

/* ---- random sweep ---- */

/* uniform in [lo, hi] */
static int rng_int(uint64_t *s, int lo, int hi) { return lo + (int)(tc_splitmix64(s) % (uint64_t)(hi - lo + 1)); }

/* A small problem: every parameter drawn independently (so anisotropic
 * filters, strides, dilations and pads come up), sizes small enough that a
 * draw costs milliseconds; draws with an empty output are redrawn. */
static igemm_problem draw_problem(uint64_t *s)
{
    for (;;) {
        igemm_problem p = IGEMM_PROBLEM_INIT;
        int g = rng_int(s, 0, 9) < 6 ? 1 : rng_int(s, 2, 4);
        /* channels per group: mostly small, sometimes past 32 (several M
           tiles of the thin configurations, several K blocks of 16), now and
           then past 128 (several M tiles of every configuration) */
        int big = rng_int(s, 0, 11) == 0;
        int cg = big ? rng_int(s, 100, 140) : rng_int(s, 0, 4) ? rng_int(s, 1, 20) : rng_int(s, 21, 40);
        int kg = big ? rng_int(s, 1, 70) : rng_int(s, 0, 4) ? rng_int(s, 1, 20) : rng_int(s, 21, 40);
        if (big)
            g = 1;
        p.groups = g, p.c = g * cg, p.k = g * kg;
        p.n = rng_int(s, 1, 3);
        p.hi = rng_int(s, 1, 20);
        p.wi = rng_int(s, 0, 3) ? rng_int(s, 1, 20) : p.hi;
        p.y = rng_int(s, 1, 7);
        p.x = rng_int(s, 0, 2) ? rng_int(s, 1, 7) : p.y;
        p.stride_h = rng_int(s, 1, 4);
        p.stride_w = rng_int(s, 0, 2) ? rng_int(s, 1, 4) : p.stride_h;
        p.dil_h = rng_int(s, 1, 3);
        p.dil_w = rng_int(s, 0, 2) ? rng_int(s, 1, 3) : p.dil_h;
        p.pad_h = rng_int(s, 0, 3);
        p.pad_w = rng_int(s, 0, 2) ? rng_int(s, 0, 3) : p.pad_h;
        if (igemm_problem_check(&p, NULL, 0) == IGEMM_OK)
            return p;
    }
}

static long env_long(const char *name, long dflt, long lo, long hi)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    char *end;
    long x = strtol(v, &end, 0);
    if (*end || x < lo || x > hi)
        fail_msg("%s='%s': want an integer in [%ld, %ld]", name, v, lo, hi);
    return x;
}

#define SWEEP_SEED_DEFAULT 20240604ull
#define SWEEP_COUNT_DEFAULT 500
#define SWEEP_FORCED_DEFAULT 20

/* The sweep on arch: count draws with the heuristic's pick, then forced
 * draws onto each configuration cfg_ok accepts (the ones arch runs; on an
 * MFMA target the MFMA ones: the FMA ones have their sweep on gfx906).
 * IGEMM_SWEEP_ARCH replaces arch when set. */
static void sweep(const char *arch, bool (*cfg_ok)(const config *c, const char *arch))
{
    uint64_t seed = SWEEP_SEED_DEFAULT;
    const char *sv = getenv("IGEMM_SWEEP_SEED");
    if (sv && !strcmp(sv, "random"))
        seed = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    else if (sv && *sv) {
        char *end;
        seed = strtoull(sv, &end, 0);
        if (*end)
            fail_msg("IGEMM_SWEEP_SEED='%s': want a number or 'random'", sv);
    }
    const char *env_arch = getenv("IGEMM_SWEEP_ARCH");
    if (env_arch && *env_arch)
        arch = env_arch;
    if (!target_by_name(arch))
        fail_msg("IGEMM_SWEEP_ARCH='%s' is not a target", arch);
    int forced_cfg[MAX_CONFIGS], nforced_cfg = 0;
    for (int c = 0; c < nconfigs; c++)
        if (cfg_ok(&configs[c], arch))
            forced_cfg[nforced_cfg++] = c;
    int count = (int)env_long("IGEMM_SWEEP_COUNT", SWEEP_COUNT_DEFAULT, 0, 10000000);
    int forced = (int)env_long("IGEMM_SWEEP_FORCED", SWEEP_FORCED_DEFAULT, 0, 1000000);
    int total = count + forced * nforced_cfg;
    print_message("v4r1 sweep on %s (IGEMM_SWEEP_ARCH): seed %llu (IGEMM_SWEEP_SEED), %d draws with the "
                  "heuristic's configuration (IGEMM_SWEEP_COUNT), %d forced onto each of %d configurations "
                  "(IGEMM_SWEEP_FORCED)\n",
                  arch, (unsigned long long)seed, count, forced, nforced_cfg);

    igemm_handle *h = tc_emu_handle(arch, NULL, 0);
    uint64_t rng = seed;
    double t0 = now_s();
    int failures = 0, picked[MAX_CONFIGS] = {0}, strided = 0, dilated = 0, grouped = 0, holed = 0, wide = 0, naive_picks = 0;
    for (int i = 0; i < total; i++) {
        igemm_problem p = draw_problem(&rng);
        const config *fc = i < count ? NULL : &configs[forced_cfg[(i - count) % nforced_cfg]];
        const char *solution = fc ? fc->name : NULL;
        /* the heuristic's draws: every third one channels-last; the forced
           ones in their configuration's layout */
        p.layout = fc ? fc->layout : i % 3 == 2 ? IGEMM_LAYOUT_NHWC : IGEMM_LAYOUT_NCHW;
        /* the heuristic's draws: every fifth one fp16, every seventh bf16 */
        p.dtype = fc ? fc->dtype : i % 5 == 4 ? IGEMM_FP16 : i % 7 == 6 ? IGEMM_BF16 : IGEMM_FP32;
        /* forced: what the configuration needs; every other fp16 draw of the
           heuristic allows the flushing instructions */
        p.fp16_mode = fc ? fp16_mode_for(fc, arch) : i % 10 == 9 ? IGEMM_FP16_FLUSH : IGEMM_FP16_ACCURATE;
        char text[256], msg[1024], sel[128] = "";
        igemm_problem_format(&p, text, sizeof text);
        strided += p.stride_h > 1 || p.stride_w > 1;
        dilated += p.dil_h > 1 || p.dil_w > 1;
        grouped += p.groups > 1;
        wide += p.c / p.groups > 128;
        if (!solution) {
            igemm_status st = igemm_select(h, &p, sel, sizeof sel);
            if (st != IGEMM_OK) {
                if (failures++ < MAX_REPORTED)
                    print_error("sweep #%d (seed %llu): conv %s -F 2 --arch %s: igemm_select: %s: %s\n", i,
                                (unsigned long long)seed, text, arch, igemm_status_name(st), igemm_last_error(h));
                continue;
            }
        }
        tc_case_result r;
        int rc = tc_run_case(h, &p, solution, seed + (uint64_t)i, &r, msg, sizeof msg);
        if (!rc && !solution && (strcmp(r.ri.source, "heuristic") || strcmp(r.ri.solution, sel))) {
            snprintf(msg, sizeof msg, "ran %s (%s), igemm_select said %s", r.ri.solution, r.ri.source, sel);
            rc = -1;
        }
        /* the heuristic may pick the naive kernel where its model says it
           wins (a few channels a group: tests/test_select.c checks those
           picks against find mode); anything else must be v4r1 */
        naive_picks += !rc && !solution && !strcmp(r.ri.solution, "naive");
        if (!rc && !solution && strncmp(r.ri.solution, "naive", 5) && strncmp(r.ri.solution, PREFIX, strlen(PREFIX))) {
            snprintf(msg, sizeof msg, "the heuristic picked %s, not a v4r1 configuration", r.ri.solution);
            rc = -1;
        }
        if (rc) {
            if (failures++ < MAX_REPORTED)
                print_error("sweep #%d (seed %llu): conv %s -F 2 --arch %s --solution %s: %s\n", i,
                            (unsigned long long)seed, text, arch, solution ? solution : sel, msg);
            continue;
        }
        holed += r.holes > 0;
        for (int c = 0; c < nconfigs; c++)
            if (!solution && !strcmp(configs[c].name, r.ri.solution))
                picked[c]++;
    }
    igemm_destroy(h);
    print_message("sweep: %d shapes in %.1f s, %d strided, %d dilated, %d grouped, %d with uncovered pixels, %d with "
                  "more than 128 channels per group; the heuristic picked (naive %d times):\n",
                  total, now_s() - t0, strided, dilated, grouped, holed, wide, naive_picks);
    /* the sweep is there to exercise the v4r1 kernels: the naive picks stay few */
    assert_true(naive_picks * 20 < total);
    for (int c = 0; c < nconfigs; c++)
        if (picked[c])
            print_message("  %4d  %s\n", picked[c], configs[c].name);
    if (failures)
        fail_msg("sweep on %s (seed %llu): %d of %d shapes failed (%s listed above)", arch, (unsigned long long)seed,
                 failures, total, failures > MAX_REPORTED ? "the first ones" : "all");
    /* the draws exercise what they are meant to (fixed default seed: these
       hold; a custom seed with a tiny count may legitimately miss) */
    if (total >= 200)
        assert_true(strided > 0 && dilated > 0 && grouped > 0 && holed > 0 && wide > 0);
}

static bool mfma_only(const config *c, const char *arch) { return c->mfma && target_by_name(arch)->has_mfma; }

static void random_sweep(void **state)
{
    (void)state;
    sweep("gfx906", runs_on);
}

/* The MFMA configurations: gfx90a's code object (IGEMM_SWEEP_ARCH=gfx908
 * or gfx942 for the others; make check-mfma runs all three). */
static void random_sweep_mfma(void **state)
{
    (void)state;
    sweep("gfx90a", mfma_only);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shape_lists_are_complete),
        cmocka_unit_test(names_encode_the_configuration_table),
        cmocka_unit_test(names_match_code_objects_and_plans),
        cmocka_unit_test(vgpr_estimates_cover_code_objects),
        cmocka_unit_test(heuristic_counts_code_object_allocations),
        cmocka_unit_test(heuristic_picks_v4r1_for_resnet50),
        cmocka_unit_test(heuristic_picks_dot2_for_fp16),
        cmocka_unit_test(edge_gfx906),
        cmocka_unit_test(edge_gfx908),
        cmocka_unit_test(edge_gfx90a),
        cmocka_unit_test(edge_gfx942),
        cmocka_unit_test(walks_around_the_pipeline_depth),
        cmocka_unit_test(kyxc_reads_the_copy),
        cmocka_unit_test(zeros_inside_the_launch),
        cmocka_unit_test(zfill_fills_first),
        cmocka_unit_test(sixteen_bit_extremes),
        cmocka_unit_test(sixteen_bit_exact_on_flushing_mfma),
        cmocka_unit_test(sixteen_bit_exact_single_elements),
        cmocka_unit_test(fp16_alt_mode),
        cmocka_unit_test(nhwc_channel_tails),
        cmocka_unit_test(sixteen_bit_nhwc_dx_alignment),
        cmocka_unit_test(nhwc_dy_channel_tails),
        cmocka_unit_test(nhwc_lds_store_tails),
        cmocka_unit_test(nhwc_channel_path_lds_conflict_free),
        cmocka_unit_test(random_sweep),
        cmocka_unit_test(random_sweep_mfma),
    };
    if (getenv("TEST_FILTER")) /* one test by name pattern, while developing */
        cmocka_set_test_filter(getenv("TEST_FILTER"));
    return cmocka_run_group_tests(tests, setup, NULL);
}
