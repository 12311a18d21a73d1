/* The v4r1 tile configurations. */
#include "v4r1_config.h"
#include "solver.h"

#include <pthread.h>

#include "../arch/mfma.h"
#include <stdio.h>
#include <string.h>

/* Large square tiles for big GEMMs, rectangular ones for unbalanced M/N,
 * small ones so that small problems still fill 60 CUs, thin ones for the
 * skinny GEMMs of few-channel layers (the ResNet stem has C = 3). */
const v4r1_config v4r1_tiles[] = {
    {.mpb = 128, .npb = 128, .kpb = 8, .block = 256},
    {.mpb = 128, .npb = 128, .kpb = 16, .block = 256},
    {.mpb = 128, .npb = 64, .kpb = 8, .block = 256},
    {.mpb = 64, .npb = 128, .kpb = 8, .block = 256},
    {.mpb = 64, .npb = 64, .kpb = 8, .block = 256},
    {.mpb = 64, .npb = 64, .kpb = 16, .block = 64},
    {.mpb = 64, .npb = 64, .kpb = 8, .block = 64},
    {.mpb = 32, .npb = 64, .kpb = 8, .block = 64},
    {.mpb = 64, .npb = 32, .kpb = 8, .block = 64},
    {.mpb = 32, .npb = 32, .kpb = 8, .block = 64},
    {.mpb = 32, .npb = 32, .kpb = 16, .block = 64},
    {.mpb = 16, .npb = 128, .kpb = 8, .block = 128},
    {.mpb = 8, .npb = 128, .kpb = 8, .block = 64},
    {.mpb = 16, .npb = 64, .kpb = 8, .block = 64},
    {.mpb = 128, .npb = 16, .kpb = 8, .block = 128},
    /* matrix cores: 32x32x2 blocks for the big and medium tiles, 16x16x4
       ones for the thin tiles of few-channel layers */
#define MFMA(m, n, k, t, i) {.mpb = m, .npb = n, .kpb = k, .block = t, .math = IGEMM_MATH_MFMA, .inst = i}
    MFMA(256, 128, 8, 256, 32),
    MFMA(128, 128, 8, 256, 32),
    MFMA(128, 128, 16, 256, 32),
    MFMA(128, 64, 8, 256, 32),
    MFMA(64, 128, 8, 256, 32),
    MFMA(64, 64, 8, 256, 32),
    MFMA(64, 64, 8, 64, 32),
    MFMA(64, 64, 16, 64, 32),
    MFMA(32, 64, 8, 64, 32),
    MFMA(64, 32, 8, 64, 32),
    MFMA(32, 32, 8, 64, 32),
    MFMA(32, 32, 16, 64, 32),
    MFMA(16, 64, 8, 64, 16),
    MFMA(64, 16, 8, 64, 16),
    MFMA(16, 128, 8, 128, 16),
    MFMA(16, 16, 16, 64, 16),
    /* 16-bit matrix instructions (32x32x8, 16x16x16) on k-quad LDS tiles:
       the 16-bit types only; K steps of 32 for the big and medium ones (the
       16-bit MFMAs are 4x the f32 rate, so a step of 16 is too short to
       hide the next tile's loads) */
#define MFMA16(m, n, k, t, i) {.mpb = m, .npb = n, .kpb = k, .block = t, .math = IGEMM_MATH_MFMA, .inst = i, .kpack = 4}
    MFMA16(256, 128, 16, 256, 32),
    MFMA16(128, 128, 32, 256, 32),
    MFMA16(128, 128, 16, 256, 32),
    MFMA16(128, 64, 32, 256, 32),
    MFMA16(64, 128, 32, 256, 32),
    MFMA16(64, 64, 32, 256, 32),
    MFMA16(64, 64, 16, 64, 32),
    MFMA16(32, 32, 16, 64, 32),
    MFMA16(16, 64, 16, 64, 16),
    MFMA16(16, 16, 16, 64, 16),
#undef MFMA16
    /* fp16 FMA on k-quad LDS tiles: two v_dot2_f32_f16 per accumulator and
       k quad (names end _dot2); fp16 only, gfx9 has no bf16 dot */
#define DOT2(m, n, k, t) {.mpb = m, .npb = n, .kpb = k, .block = t, .kpack = 4}
    DOT2(128, 128, 16, 256),
    DOT2(64, 64, 16, 256),
    DOT2(64, 64, 16, 64),
    DOT2(32, 32, 16, 64),
    DOT2(16, 64, 16, 64),
#undef DOT2
#undef MFMA
};
const int v4r1_tile_count = sizeof v4r1_tiles / sizeof v4r1_tiles[0];

#define FAMILY_MAX 256
static v4r1_config family[FAMILY_MAX];
static int family_n;
static pthread_once_t family_once = PTHREAD_ONCE_INIT;

/* The tiles the 16-bit types get: a big, a medium, a small and a thin one
 * of each math strategy (the code objects carry every fp32 tile). */
static bool tile_for_16bit(const v4r1_config *t)
{
    static const int keep[][5] = {
        /* math, M, N, K, threads */
        {IGEMM_MATH_FMA, 128, 128, 8, 256},  {IGEMM_MATH_FMA, 64, 64, 8, 256},   {IGEMM_MATH_FMA, 32, 32, 8, 64},
        {IGEMM_MATH_FMA, 16, 64, 8, 64},     {IGEMM_MATH_MFMA, 128, 128, 8, 256}, {IGEMM_MATH_MFMA, 64, 64, 8, 256},
        {IGEMM_MATH_MFMA, 32, 32, 8, 64},    {IGEMM_MATH_MFMA, 16, 64, 8, 64},
    };
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
        if ((int)t->math == keep[i][0] && t->mpb == keep[i][1] && t->npb == keep[i][2] && t->kpb == keep[i][3] &&
            t->block == keep[i][4])
            return true;
    return false;
}

/* Whether tile t exists for type d: fp32 the fp32-tile ones, fp16 and bf16
 * a subset of those and the k-quad ones their math reads (the dot2 FMA
 * ones only fp16). */
static bool tile_for_type(const v4r1_config *t, igemm_dtype d)
{
    if (d == IGEMM_FP32)
        return !t->kpack;
    if (!t->kpack)
        return tile_for_16bit(t);
    return t->math == IGEMM_MATH_MFMA || d == IGEMM_FP16;
}

/* The family member of tile t for type d and layout l, derived; with alt
 * the fp16 k-quad MFMA tile staged as bf16 (fp16_mode alt). */
static void family_add(const v4r1_config *t, int i, igemm_dtype d, igemm_layout l, bool alt)
{
    char why[256];
    if (family_n == FAMILY_MAX)
        igemm_die("the v4r1 family exceeds %d configurations", FAMILY_MAX);
    v4r1_config c = *t;
    c.layout = l;
    c.dtype = d;
    c.stage = alt ? IGEMM_BF16 : IGEMM_FP32;
    if (v4r1_config_derive(&c, why, sizeof why))
        igemm_die("v4r1 tile %d: %s", i, why);
    family[family_n++] = c;
}

static void family_init(void)
{
    static const igemm_layout layouts[] = {IGEMM_LAYOUT_NCHW, IGEMM_LAYOUT_NHWC};
    static const igemm_dtype dtypes[] = {IGEMM_FP32, IGEMM_FP16, IGEMM_BF16};
    for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++)
        for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++)
            for (int i = 0; i < v4r1_tile_count; i++)
                if (tile_for_type(&v4r1_tiles[i], dtypes[d]))
                    family_add(&v4r1_tiles[i], i, dtypes[d], layouts[l], false);
    /* fp16_mode alt: every fp16 k-quad MFMA tile again, staged as bf16 */
    for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++)
        for (int i = 0; i < v4r1_tile_count; i++)
            if (v4r1_tiles[i].math == IGEMM_MATH_MFMA && v4r1_tiles[i].kpack)
                family_add(&v4r1_tiles[i], i, IGEMM_FP16, layouts[l], true);
}

int v4r1_family_count(void)
{
    pthread_once(&family_once, family_init);
    return family_n;
}

const v4r1_config *v4r1_family_get(int i) { return i >= 0 && i < v4r1_family_count() ? &family[i] : NULL; }

static int vec_width(int elems, int rowlen, int block, int *w, int *v)
{
    int per = elems / block;
    if (per < 1 || elems % block)
        return -1;
    *w = per >= 4 && rowlen % 4 == 0 ? 4 : per >= 2 && rowlen % 2 == 0 ? 2 : 1;
    *v = per / *w;
    return 0;
}

static int pow2(int x) { return x > 0 && !(x & (x - 1)); }

igemm_dtype v4r1_stage_type(const v4r1_config *c) { return c->stage ? c->stage : c->dtype; }

int v4r1_mfma_kstep(const v4r1_config *c) { return (c->kpack ? c->kpack : 1) * 64 / c->inst; }

int v4r1_bswz_rows(const v4r1_config *c) { return c->kpack ? c->wb / c->kpack : c->wb; }
int v4r1_bswz_lanes(const v4r1_config *c) { return c->kpb / c->wb; }

int v4r1_bswz_xor(const v4r1_config *c, int row)
{
    return c->bswz ? c->bswz * ((row / v4r1_bswz_rows(c)) % v4r1_bswz_lanes(c)) : 0;
}

/* the fragment rows of matrix step t (64/INST a step) */
static int step_rows(const v4r1_config *c) { return 64 / c->inst; }

int v4r1_bswz_step_xor(const v4r1_config *c, int t)
{
    const int k = step_rows(c), ct = v4r1_bswz_xor(c, t * k) ^ v4r1_bswz_xor(c, 0);
    for (int l = 1; l < k; l++)
        if ((v4r1_bswz_xor(c, t * k + l) ^ v4r1_bswz_xor(c, l)) != ct)
            return -1;
    return ct;
}

int v4r1_bswz_bases(const v4r1_config *c)
{
    if (!c->bswz)
        return 1;
    const int k = step_rows(c), steps = c->kpb / (c->kpack ? c->kpack : 1) / k;
    for (int p = 1; p < steps; p++) {
        bool same = steps % p == 0;
        for (int s = p; same && s < steps; s++)
            for (int l = 0; l < k; l++)
                same = same && v4r1_bswz_xor(c, s * k + l) == v4r1_bswz_xor(c, (s % p) * k + l);
        if (same)
            return p;
    }
    return steps;
}

const mfma_info *v4r1_mfma_inst(const v4r1_config *c, const target *t, int *issues)
{
    int k = v4r1_mfma_kstep(c);
    *issues = 1;
    if (!c->kpack)
        return mfma_pick(t, c->inst, c->inst, k, 1, MFMA_F32);
    mfma_type type = igemm_dtype_get(v4r1_stage_type(c))->mfma;
    const mfma_info *m = mfma_pick(t, c->inst, c->inst, k, 1, type);
    if (m && m->a_gprs == 2)
        return m;
    /* a k-pair instruction (one register of A and B) twice per quad */
    m = mfma_pick(t, c->inst, c->inst, k / 2, 1, type);
    *issues = 2;
    return m && m->a_gprs == 1 ? m : NULL;
}

bool v4r1_config_ftz_checked(const v4r1_config *c, const target *t)
{
    return c->math == IGEMM_MATH_MFMA && c->kpack && !c->stage &&
           (c->dtype == IGEMM_FP16 || c->dtype == IGEMM_BF16) && t->mfma_16bit_ftz;
}

unsigned v4r1_ftz_small(const v4r1_config *c)
{
    /* fp16: magnitude bits 1..0x3ff; bf16: 1 .. (127 - 56) << 7, less one */
    unsigned below = c->dtype == IGEMM_BF16 ? (127u - 56u) << 7 : 0x400u;
    return 2 * below - 3;
}

bool v4r1_ftz_sticky(const v4r1_config *c) { return c->dtype == IGEMM_BF16; }

int v4r1_ftz_check_valu(const v4r1_config *c)
{
    int dwords = (c->bm + c->bn) * (c->kpack * 2 / 4); /* a fragment: one k quad, two dwords */
    return 2 * dwords - 2 + 3; /* the registers' fold, the halves' fold, the compare */
}

bool v4r1_config_runs_on(const v4r1_config *c, const target *t)
{
    int issues;
    if (c->math == IGEMM_MATH_MFMA)
        return t->has_mfma && v4r1_mfma_inst(c, t, &issues) != NULL;
    return c->kpack ? t->has_dot2_f16 : t->has_fmac;
}

static int ilog2(int x)
{
    int l = 0;
    while (x > 1)
        x >>= 1, l++;
    return l;
}

/* k quads: every thread loads 4 consecutive rows (one quad) of W consecutive
 * columns, W = elements per thread / 4 (1, 2, 4 or 8). */
static int quad_width(int elems, int block, int *w, int *v)
{
    int per = elems / block;
    if (elems % block || per % 4 || per / 4 > 8)
        return -1;
    *w = per / 4, *v = 4;
    return 0;
}

/* The LDS of a CU (what one workgroup may use, shared out among those a
 * CU holds), the least of the targets' (arch/target.c): the family is
 * every target's */
static int lds_per_cu(void)
{
    int least = igemm_targets[0]->lds_bytes;
    for (int i = 1; i < igemm_target_count; i++)
        if (igemm_targets[i]->lds_bytes < least)
            least = igemm_targets[i]->lds_bytes;
    return least;
}

/* The channel path of B (v4r1_bpath): a vector is the widest power of two
 * of channels one dwordx4 holds (4 fp32, 8 halves), at most the thread's
 * share of the tile and KPB (k quads: whole quads, the share is a multiple
 * of 4); KPB/WB consecutive lanes load one pixel's KPB channels. The LDS
 * writes of one bank group (the timing model's: 128 bytes of data, 32
 * lanes of 4-byte entries or 16 of k quads) must hit distinct banks: lane
 * l writes entry row q*R + h, column p + n, q = l % (KPB/WB), n = l /
 * (KPB/WB), R = the entry rows of a vector, P = G*WB/KPB the pixels of a
 * group of G entries. Rows of L = NPB entries (a multiple of G) put all Q
 * = KPB/WB lanes of a pixel in one bank. The swizzle (bswz = P) stores
 * column n of row r at n ^ P*((r / R) % Q): lane l's at (p + n) ^ P*q,
 * P*Q = G distinct values over a group. Where the reads' immediate offsets
 * would cross the XOR's bits, the rows are padded instead: with row
 * length L the entry is (q*R + h)*L + p + n, distinct modulo G when R*L =
 * P (mod G): the smallest pad that gives that (a tile whose LDS then
 * crosses a workgroups-a-CU boundary loses occupancy: docs/KERNELS.md). */
/* Both tiles' LDS, double buffered, B's rows padded by `pad` entries:
 * fp32 entries, or 16-bit values in k quads */
static int lds_tiles_bytes(const v4r1_config *c, int pad)
{
    return 2 * (c->kpack ? 2 : 4) * c->kpb * (c->mpb + c->npb + pad);
}

static void derive_channels(v4r1_config *c)
{
    int esz = igemm_dtype_get(c->dtype)->bytes, per = c->kpb * c->npb / c->block;
    int wb = 16 / esz;
    while (wb > per || wb > c->kpb)
        wb /= 2;
    c->bpath = V4R1_B_CHANNELS;
    c->wb = wb, c->vb = per / wb;
    int lanes = v4r1_bswz_lanes(c), group = c->kpack ? 16 : 32, rows = v4r1_bswz_rows(c);
    int pix = group / lanes, wtn = c->npb / (c->block / 64 / c->wgm);
    c->bpad = 0, c->bswz = 0;
    for (int pad = 0; pix >= 1 && pad < group; pad++)
        if ((rows * (c->npb + pad) - pix) % group == 0) {
            c->bpad = pad;
            break;
        }
    /* the swizzle instead where the pad would cost workgroups a CU (its
       LDS over a boundary of lds_per_cu() / n that the tiles without it
       are under; where it costs none, the pad is free and the swizzle's
       read addresses would cost VGPRs), and where its XOR (below `group`)
       leaves the multiples of `group` that the immediate offsets add
       alone: the rows (NPB), a thread's pixels (block*WB/KPB apart), the
       waves' and blocks' columns (the wave tile, INST) */
    if (!c->bpad || lds_per_cu() / lds_tiles_bytes(c, c->bpad) >= lds_per_cu() / lds_tiles_bytes(c, 0) ||
        c->npb % group || c->block * wb / c->kpb % group || wtn % group || c->inst < group)
        return;
    /* and where every step's XOR is step 0's XOR a constant for every lane
       (the kernel writer's read bases past the first are the first XOR it) */
    const int pad = c->bpad;
    c->bpad = 0, c->bswz = pix;
    for (int t = 1; t < v4r1_bswz_bases(c); t++)
        if (v4r1_bswz_step_xor(c, t) < 0) {
            c->bpad = pad, c->bswz = 0;
            return;
        }
}

/* What every math strategy shares: the global-load vectors of the A and B
 * tiles and the double-buffered LDS tiles (fp32 whatever the tensors' type,
 * or 16-bit k quads). NHWC matrix-core tiles load B on the channel path. */
static int derive_staging(v4r1_config *c, char *why, size_t len)
{
    if (c->kpack ? quad_width(c->kpb * c->mpb, c->block, &c->wa, &c->va) ||
                       quad_width(c->kpb * c->npb, c->block, &c->wb, &c->vb)
                 : vec_width(c->kpb * c->mpb, c->mpb, c->block, &c->wa, &c->va) ||
                       vec_width(c->kpb * c->npb, c->npb, c->block, &c->wb, &c->vb)) {
        why_printf(why, len, "a %dx%d or %dx%d tile is not a whole number of %s for each of %d threads", c->kpb,
                   c->mpb, c->kpb, c->npb, c->kpack ? "k quads of 1, 2, 4 or 8 columns" : "elements", c->block);
        return -1;
    }
    c->bpath = V4R1_B_PIXELS, c->bpad = 0, c->bswz = 0;
    if (c->math == IGEMM_MATH_MFMA && c->layout == IGEMM_LAYOUT_NHWC)
        derive_channels(c);
    c->lds_bytes = lds_tiles_bytes(c, c->bpad);
    if (c->lds_bytes > lds_per_cu()) {
        why_printf(why, len, "needs %d bytes of LDS", c->lds_bytes);
        return -1;
    }
    return 0;
}

/* MFMA: the wave grid whose wave tiles are whole INST x INST blocks and the
 * squarest; staging as for FMA. */
static int derive_mfma(v4r1_config *c, char *why, size_t len)
{
    int waves = c->block / 64, best = 1 << 30;
    if (c->inst != 16 && c->inst != 32) {
        why_printf(why, len, "MFMA block %d: 32 (32x32) or 16 (16x16)", c->inst);
        return -1;
    }
    if (c->kpack && (c->kpack != 4 || igemm_dtype_get(c->dtype)->bytes != 2)) {
        why_printf(why, len, "k packing %d: 4, and only for the 16-bit types", c->kpack);
        return -1;
    }
    if (c->stage && (c->stage != IGEMM_BF16 || c->dtype != IGEMM_FP16 || !c->kpack)) {
        why_printf(why, len, "staging %s data as %s: only fp16 as bf16, on k-quad tiles", igemm_dtype_get(c->dtype)->name,
                   igemm_dtype_get(c->stage) ? igemm_dtype_get(c->stage)->name : "?");
        return -1;
    }
    if (c->kpb % v4r1_mfma_kstep(c)) {
        why_printf(why, len, "K per step %d is not a multiple of the MFMA's K %d", c->kpb, v4r1_mfma_kstep(c));
        return -1;
    }
    c->wgm = 0;
    for (int wgm = 1; wgm <= waves; wgm *= 2) {
        int wgn = waves / wgm, wtm = c->mpb / wgm, wtn = c->npb / wgn;
        if (wtm < c->inst || wtn < c->inst || wtm % c->inst || wtn % c->inst)
            continue;
        int skew = ilog2(wtm) - ilog2(wtn), score = skew < 0 ? -skew : skew;
        if (score < best) {
            best = score;
            c->wgm = wgm, c->bm = wtm / c->inst, c->bn = wtn / c->inst;
        }
    }
    if (!c->wgm) {
        why_printf(why, len, "%d waves cannot tile %dx%d with %dx%d MFMA blocks", waves, c->mpb, c->npb, c->inst,
                   c->inst);
        return -1;
    }
    if (derive_staging(c, why, len))
        return -1;
    c->agprs = c->bm * c->bn * c->inst * c->inst / 64;
    /* the most tiles the walk keeps in flight (it keeps fewer where
       s_waitcnt vmcnt cannot count the later ones' loads: v4r1_in_flight) */
    const int tile_loads = c->va * c->wa + c->vb * c->wb;
    c->in_flight = V4R1_MFMA_IN_FLIGHT;
    /* mirrors gen/bwd_data_v4r1/math_mfma.c and the staging: two sets of fragments,
       global prefetch (a register set per tile in flight), load offsets and
       the B column state, addresses and scratch, the epilogue's row of
       outputs and column offsets, slack */
    c->vgprs = 2 * (c->kpack ? 2 : 1) * (c->bm + c->bn) + 2 * c->va * c->wa + 3 * c->vb * c->wb + 2 * c->wb +
               2 * c->bn + 14 + 8 + (c->in_flight - 1) * tile_loads + v4r1_bswz_bases(c) - 1;
    return 0;
}

int v4r1_config_derive(v4r1_config *c, char *why, size_t len)
{
    const igemm_dtype_desc *dt = igemm_dtype_get(c->dtype);
    if (!igemm_math_get(c->math) || !dt || !igemm_layout_get(c->layout)) {
        why_printf(why, len, "math %d, data type %d or layout %d is not one of the known values", (int)c->math,
                   (int)c->dtype, (int)c->layout);
        return -1;
    }
    /* every type: 16-bit tensors are widened to fp32 tiles in LDS, or kept
       in k quads (kpack), and dx rounded back (gen/bwd_data_v4r1/kw.h) */
    if (!pow2(c->mpb) || !pow2(c->npb) || !pow2(c->kpb) || !pow2(c->block)) {
        why_printf(why, len, "tile %dx%dx%d with %d threads: every size must be a power of two", c->mpb, c->npb,
                   c->kpb, c->block);
        return -1;
    }
    if (c->mpb < 4 || c->npb < 4 || c->mpb % 4 || c->npb % 4 || c->kpb < 1 || c->block < 64 || c->block % 64 ||
        c->block > 1024) {
        why_printf(why, len, "tile %dx%dx%d with %d threads: sizes must be multiples of 4 and threads of 64",
                   c->mpb, c->npb, c->kpb, c->block);
        return -1;
    }
    if (c->math == IGEMM_MATH_MFMA)
        return derive_mfma(c, why, len);
    if (c->kpack && (c->kpack != 4 || c->dtype != IGEMM_FP16 || c->kpb % 4)) {
        why_printf(why, len,
                   "k packing %d with the FMA strategy: 4, for fp16 (v_dot2_f32_f16; gfx9 has no bf16 dot) and K "
                   "per step a multiple of 4, not %s with K %d",
                   c->kpack, dt->name, c->kpb);
        return -1;
    }
    /* the squarest thread tile whose thread grid has exactly `block` threads */
    int best = -1;
    for (int rm = 1; rm <= 4; rm *= 2)
        for (int rn = 1; rn <= 4; rn *= 2) {
            if (c->mpb % (4 * rm) || c->npb % (4 * rn))
                continue;
            int tx = c->mpb / (4 * rm), ty = c->npb / (4 * rn);
            if (tx * ty != c->block)
                continue;
            int score = (rm == rn ? 100 : 0) + rm * rn;
            if (score > best) {
                best = score;
                c->tx = tx, c->ty = ty, c->rm = rm, c->rn = rn;
            }
        }
    if (best < 0) {
        why_printf(why, len, "no thread grid of %d threads tiles %dx%d with 4x4, 8x8 or 16x16 thread tiles", c->block,
                   c->mpb, c->npb);
        return -1;
    }
    if (derive_staging(c, why, len))
        return -1;
    /* mirrors gen/bwd_data_v4r1/'s allocations at the main loop: accumulators,
       two sets of LDS operands (k quads: two registers per row or column),
       global prefetch, load offsets and the B column state, addresses and
       scratch, plus alignment slack */
    int tm = 4 * c->rm, tn = 4 * c->rn;
    c->in_flight = 1;
    c->vgprs = tm * tn + 2 * (c->kpack ? 2 : 1) * (tm + tn) + 2 * c->va * c->wa + 3 * c->vb * c->wb + 2 * c->wb +
               14 + 8;
    return 0;
}

kernel_alloc v4r1_config_alloc(const v4r1_config *c) { return (kernel_alloc){c->vgprs, c->agprs, 0, c->lds_bytes}; }

void v4r1_config_name(const v4r1_config *c, char *buf, size_t len)
{
    const igemm_math_desc *m = igemm_math_get(c->math);
    const igemm_dtype_desc *d = igemm_dtype_get(c->dtype);
    const igemm_layout_desc *l = igemm_layout_get(c->layout);
    int n = snprintf(buf, len, "igemm_bwd_v4r1_%s_%s%s_%s_%dx%dx%d_t%d", m ? m->name : "?", d ? d->name : "?",
                     c->stage ? "alt" : "", l ? l->name : "?", c->mpb, c->npb, c->kpb, c->block);
    if (n <= 0 || (size_t)n >= len)
        return;
    if (c->math == IGEMM_MATH_MFMA)
        n += snprintf(buf + n, len - (size_t)n, "_wt%dx%dx%d", c->inst, c->inst, v4r1_mfma_kstep(c));
    else if (c->kpack)
        n += snprintf(buf + n, len - (size_t)n, "_dot2");
    if (c->ksplit && n > 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, "_ks%d", c->ksplit);
    if (c->kyxc && n > 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, "_kyxc");
    if (c->zfill && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, "_zf");
}

void v4r1_kernel_name(const v4r1_config *c, char *buf, size_t len)
{
    v4r1_config base = *c;
    base.ksplit = 0;
    base.kyxc = 0;
    base.zfill = 0;
    v4r1_config_name(&base, buf, len);
    size_t n = strlen(buf);
    if (c->ksplit && n < len)
        snprintf(buf + n, len - n, "_ksplit");
}

/* Whether c's tile is one of keep's rows (math, M, N, K, threads, kpack). */
static bool kept(const v4r1_config *c, const int (*keep)[6], size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((int)c->math == keep[i][0] && c->mpb == keep[i][1] && c->npb == keep[i][2] && c->kpb == keep[i][3] &&
            c->block == keep[i][4] && c->kpack == keep[i][5])
            return true;
    return false;
}

/* Whether c's tile is its type's own: fp32 tiles for fp32, k-quad ones for
 * the 16-bit types, staged as they are (no conversion while staging, as
 * fp16alt's bf16 rounding). */
static bool own_type_tile(const v4r1_config *c) { return !c->stage && (c->dtype != IGEMM_FP32) == (c->kpack != 0); }

bool v4r1_config_splits(const v4r1_config *c)
{
    static const int keep[][6] = {
        /* math, M, N, K, threads, kpack */
        {IGEMM_MATH_MFMA, 128, 128, 16, 256, 0}, {IGEMM_MATH_MFMA, 128, 64, 8, 256, 0},
        {IGEMM_MATH_MFMA, 64, 64, 8, 256, 0},
        {IGEMM_MATH_MFMA, 256, 128, 16, 256, 4}, {IGEMM_MATH_MFMA, 128, 128, 32, 256, 4},
        {IGEMM_MATH_MFMA, 64, 64, 32, 256, 4},
    };
    if (c->ksplit || !own_type_tile(c))
        return false; /* no fp16alt split: the reduction's non-finite guard recomputes with fp16's terms */
    return kept(c, keep, sizeof keep / sizeof keep[0]);
}

bool v4r1_config_zfill(const v4r1_config *c)
{
    static const int keep[][6] = {
        /* math, M, N, K, threads, kpack */
        {IGEMM_MATH_FMA, 128, 128, 8, 256, 0}, {IGEMM_MATH_FMA, 128, 128, 16, 256, 0},
        {IGEMM_MATH_FMA, 128, 64, 8, 256, 0},  {IGEMM_MATH_FMA, 64, 128, 8, 256, 0},
        {IGEMM_MATH_FMA, 64, 64, 8, 256, 0},   {IGEMM_MATH_FMA, 64, 64, 16, 64, 0},
        {IGEMM_MATH_FMA, 128, 128, 16, 256, 4}, {IGEMM_MATH_FMA, 64, 64, 16, 256, 4},
        {IGEMM_MATH_FMA, 64, 64, 16, 64, 4},
    };
    if (c->ksplit || c->kyxc || c->zfill || c->layout != IGEMM_LAYOUT_NCHW || !own_type_tile(c))
        return false;
    return kept(c, keep, sizeof keep / sizeof keep[0]);
}

bool v4r1_config_w_row_vectors(const v4r1_config *c)
{
    return c->layout == IGEMM_LAYOUT_NHWC && c->wa > 1 && (igemm_dtype_get(c->dtype)->bytes == 4 || c->kpack > 1);
}

bool v4r1_config_kyxc(const v4r1_config *c)
{
    static const int keep[][6] = {
        /* math, M, N, K, threads, kpack (fp32 tiles for fp32, k quads for 16-bit) */
        {IGEMM_MATH_FMA, 128, 128, 8, 256, 0},   {IGEMM_MATH_FMA, 128, 128, 16, 256, 0},
        {IGEMM_MATH_FMA, 128, 64, 8, 256, 0},    {IGEMM_MATH_FMA, 64, 128, 8, 256, 0},
        {IGEMM_MATH_FMA, 64, 64, 8, 256, 0},     {IGEMM_MATH_FMA, 64, 64, 16, 64, 0},
        {IGEMM_MATH_FMA, 16, 128, 8, 128, 0},    {IGEMM_MATH_FMA, 8, 128, 8, 64, 0},
        {IGEMM_MATH_MFMA, 256, 128, 8, 256, 0},
        {IGEMM_MATH_MFMA, 128, 128, 8, 256, 0},  {IGEMM_MATH_MFMA, 128, 128, 16, 256, 0},
        {IGEMM_MATH_MFMA, 128, 64, 8, 256, 0},   {IGEMM_MATH_MFMA, 64, 128, 8, 256, 0},
        {IGEMM_MATH_MFMA, 64, 64, 8, 256, 0},    {IGEMM_MATH_MFMA, 64, 64, 16, 64, 0},
        {IGEMM_MATH_FMA, 128, 128, 16, 256, 4},  {IGEMM_MATH_FMA, 64, 64, 16, 256, 4},
        {IGEMM_MATH_FMA, 64, 64, 16, 64, 4},     {IGEMM_MATH_MFMA, 256, 128, 16, 256, 4},
        {IGEMM_MATH_MFMA, 128, 128, 32, 256, 4}, {IGEMM_MATH_MFMA, 64, 64, 32, 256, 4},
    };
    if (c->ksplit || c->kyxc || c->layout != IGEMM_LAYOUT_NCHW || !own_type_tile(c))
        return false;
    return kept(c, keep, sizeof keep / sizeof keep[0]);
}

int v4r1_phases(const igemm_shape *sh, int *phases, int max)
{
    int n = 0;
    if (sh->h.slice <= 0 || sh->w.slice <= 0)
        return 0;
    /* phase i = iy * XTilda + ix has taps (igemm_phase_get: ydot_slice =
       ceil((Y - iy) / YTilda) > 0) exactly when iy < Y and ix < X: walk only
       those, so a stride far larger than the filter costs nothing */
    for (int iy = 0; iy < sh->h.tilda && iy < sh->p.y && n < max; iy++)
        for (int ix = 0; ix < sh->w.tilda && ix < sh->p.x && n < max; ix++)
            phases[n++] = iy * sh->w.tilda + ix;
    return n;
}

bool v4r1_zeros_inside(const igemm_shape *sh)
{
    return !sh->full_coverage && sh->tilda_coverage && (int64_t)sh->h.tilda * sh->w.tilda <= V4R1_MAX_PHASES;
}

bool v4r1_plan_zeros_inside(const v4r1_config *c, const igemm_shape *sh) { return v4r1_zeros_inside(sh) && !c->zfill; }

bool v4r1_plan_fills(const v4r1_config *c, const igemm_shape *sh)
{
    return !sh->full_coverage && !v4r1_plan_zeros_inside(c, sh);
}

int v4r1_launch_phases(const v4r1_config *c, const igemm_shape *sh, int *phases, int max)
{
    int n = v4r1_phases(sh, phases, max);
    if (!v4r1_plan_zeros_inside(c, sh))
        return n;
    /* the empty phases after the others: their workgroups, which only
       store, run last and fill the tail of the launch */
    for (int iy = 0; iy < sh->h.tilda && n < max; iy++)
        for (int ix = 0; ix < sh->w.tilda && n < max; ix++)
            if (iy >= sh->p.y || ix >= sh->p.x)
                phases[n++] = iy * sh->w.tilda + ix;
    return n;
}

void v4r1_fill_args(igemm_v4r1_args *a, const igemm_shape *sh, const v4r1_config *c, const int *phases, int nph,
                    int nb)
{
    const igemm_problem *p = &sh->p;
    memset(a, 0, sizeof *a);
    a->c = (uint32_t)p->c;
    a->hi = (uint32_t)p->hi;
    a->wi = (uint32_t)p->wi;
    a->k = (uint32_t)p->k;
    a->ho = (uint32_t)sh->ho;
    a->wo = (uint32_t)sh->wo;
    a->cg = (uint32_t)sh->cg;
    a->kg = (uint32_t)sh->kg;
    a->fy = (uint32_t)p->y;
    a->fx = (uint32_t)p->x;
    a->stride_h = (uint32_t)p->stride_h;
    a->stride_w = (uint32_t)p->stride_w;
    a->ytilda = (uint32_t)sh->h.tilda;
    a->xtilda = (uint32_t)sh->w.tilda;
    a->dh_step = (uint32_t)sh->h.dil_step;
    a->dw_step = (uint32_t)sh->w.dil_step;
    a->htl = (uint32_t)sh->h.tilda_left;
    a->wtl = (uint32_t)sh->w.tilda_left;
    a->hts = (uint32_t)sh->h.slice;
    a->wts = (uint32_t)sh->w.slice;
    a->gemm_n = (uint32_t)nb * a->hts * a->wts;
    a->n_tiles = (a->gemm_n + (uint32_t)c->npb - 1) / (uint32_t)c->npb;
    a->m_tiles = (a->cg + (uint32_t)c->mpb - 1) / (uint32_t)c->mpb;
    a->nkb = (a->kg + (uint32_t)c->kpb - 1) / (uint32_t)c->kpb;
    a->wgs = a->n_tiles * a->m_tiles * (uint32_t)p->groups;
    a->ks_chunk = a->kg; /* unsplit: one range (the split plans set both) */
    igemm_magic m;
    m = igemm_magic_for(a->wgs), a->mdiv_wgs = m.magic, a->shift_wgs = m.shift;
    m = igemm_magic_for(a->hts * a->wts), a->mdiv_hwts = m.magic, a->shift_hwts = m.shift;
    m = igemm_magic_for(a->wts), a->mdiv_wts = m.magic, a->shift_wts = m.shift;
    m = igemm_magic_for(a->n_tiles), a->mdiv_ntiles = m.magic, a->shift_ntiles = m.shift;
    m = igemm_magic_for(a->m_tiles), a->mdiv_mtiles = m.magic, a->shift_mtiles = m.shift;
    if (nph > V4R1_MAX_PHASES)
        igemm_die("v4r1_fill_args: %d phases exceed the phase table's %d rows", nph, V4R1_MAX_PHASES);
    plan_nonfinite_args(sh, nb, &a->nf);
    if (c->kyxc) { /* the kernel reads the copy; so does its non-finite guard */
        a->w_kyxc = 1;
        plan_nonfinite_w_strides(sh, true, &a->nf);
    }
    /* the kernel's byte strides: the guard's (one writer), and the steps
       from one tap of a phase to the next */
    a->w_sk = a->nf.w_sk, a->w_sc = a->nf.w_sc, a->w_sx = a->nf.w_sx;
    a->w_ystep = a->ytilda * a->nf.w_sy, a->w_xstep = a->xtilda * a->nf.w_sx;
    a->dy_sn = a->nf.dy_sn, a->dy_sk = a->nf.dy_sk, a->dy_sw = a->nf.dy_sw;
    /* the non-finite guard checks only where some pixel has a tap outside
       dy; a flush problem lets the 16-bit MFMAs flush */
    uint32_t guard = (plan_has_border(sh) ? PH_GUARD_BAND : 0) | (p->fp16_mode == IGEMM_FP16_FLUSH ? PH_GUARD_FLUSH : 0);
    for (int i = 0; i < nph; i++) {
        igemm_phase g = igemm_phase_get(sh, phases[i]);
        a->ph[i][PH_WOFF] = (uint32_t)g.iy * a->nf.w_sy + (uint32_t)g.ix * a->nf.w_sx;
        a->ph[i][PH_STEPS] = (uint32_t)(g.ydot_slice * g.xdot_slice) * a->nkb;
        a->ph[i][PH_YDOT] = (uint32_t)g.ydot_slice;
        a->ph[i][PH_XDOT] = (uint32_t)g.xdot_slice;
        a->ph[i][PH_HI_OFF] = (uint32_t)(g.iy * p->dil_h - p->pad_h);
        a->ph[i][PH_WI_OFF] = (uint32_t)(g.ix * p->dil_w - p->pad_w);
        a->ph[i][PH_GUARD] = guard;
    }
}

void v4r1_set_split_row(igemm_v4r1_args *a, int row, uint32_t split, uint32_t kpb)
{
    /* the row's K channels [split * ks_chunk, + min(kg - that, ks_chunk)) */
    uint32_t k0 = split * a->ks_chunk, kn = a->kg - k0 < a->ks_chunk ? a->kg - k0 : a->ks_chunk;
    a->ph[row][PH_SPLIT] = split;
    a->ph[row][PH_STEPS] = a->ph[row][PH_YDOT] * a->ph[row][PH_XDOT] * ((kn + kpb - 1) / kpb);
}

unsigned v4r1_grid(const igemm_v4r1_args *a, int nph) { return a->wgs * (unsigned)nph; }
