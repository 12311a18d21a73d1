/* The LDS store path of the epilogue (v4r1_dx_path): NHWC kernels whose
 * math holds the C tile in whole waves (MFMA) pass the tile through LDS so
 * that each lane stores 16 consecutive bytes of one pixel's channels.
 *
 * In the accumulators a lane holds 4 consecutive rows (channels) of one
 * column (pixel) of a block, so a direct NHWC store writes 16 bytes (fp32)
 * or 8 (16-bit) per lane, one pixel per lane: a store instruction touches
 * a line per lane. Here the workgroup writes a pass of the tile to LDS,
 * pixel-major (a pixel's R rows of the pass contiguous, U = R*size/16
 * units of 16 bytes), synchronises, and every thread reads back one unit,
 * V = 16/size consecutive channels of one pixel, and stores it with one
 * buffer_store_dwordx4: consecutive lanes cover whole runs of a pixel's
 * channels, U lanes a pixel.
 *
 * A pass is column block k of WNP wave columns (NC = WNP*INST pixels) and
 * RB row blocks of WMP wave rows (R = WMP*RB*INST rows), the most that fit
 * the kernel's LDS (the main loop's tiles are dead after the K walk: the
 * path starts with a barrier); RB, then WMP, then WNP halve until it
 * fits. The waves outside the pass's wave rows and columns write nothing
 * to it; every thread reads and stores.
 *
 * Bank conflicts (the timing model's bank groups: 128 bytes of data, 8
 * lanes of ds_write/read_b128, 16 of b64; gfx942 b128 reads in its
 * interleaved groups, docs/TIMING.md): unit u of pixel pc lives at unit
 * pc*U + (u ^ sw(pc)) and, for 16-bit tiles, the 8-byte half h of it at
 * half h ^ t(pc) (an XOR swizzle: the byte offset within the pixel's row
 * XORed with X(pc) = sw(pc)*16 + t(pc)*8). The accumulator writes of one
 * group are 8 (fp32, a unit each) or 16 (16-bit, half a unit each)
 * consecutive pixels at the same row: sw over the pixel bits that pc*U
 * does not already spread across the 8 units of 128 bytes, and for 16-bit
 * t over the next bit, make them distinct. The reads: fp32 one
 * ds_read_b128 per unit, U lanes per pixel along the units (distinct
 * under both groupings); 16-bit two ds_read_b64 (the halves at their own
 * swizzled places), 16 consecutive lanes covering two pixels of opposite
 * t where a pixel has more than 8 units.
 *
 * Pixels: the thread's first is decoded in full and kept; every other one
 * is a constant number of tile columns past it (round_step) and steps from
 * it without a division (v4r1_pixel_offset_step). Where the swizzle is the
 * same for every round of a thread (reads_invariant), round r reads at
 * round 0's address plus r*T*16 bytes (an immediate offset).
 *
 * Stores: a unit whose V channels are inside C/G as one dwordx4; the lanes
 * of the last, partial unit of C/G element by element (buffer_store_dword,
 * or buffer_store_short / _d16_hi for the two halves of a dword); pixels
 * outside dx or past gemm_n not at all. Shapes without whole units (C/G <
 * V; 16-bit: C/G odd or dx's pointer not 4-byte aligned, where a unit
 * would not start at a dword: the emulator, like gfx9's DWORD alignment
 * mode, faults a multi-dword access that does not) branch to the direct
 * path at run time (hands_on): every lane would store element by element
 * here, U lanes a pixel, more lines than the direct path's lanes along
 * pixels. The 16-bit
 * values are rounded as the direct path rounds them (h_narrow16x2) before
 * they go to LDS. The accumulators are read, never written: they keep
 * their values. */
#include "kw.h"


typedef struct {
    v4r1_wave_grid g;
    int bytes, V;         /* element bytes, elements per 16-byte unit */
    int rb, wmp, wnp;     /* row blocks of a wave, wave rows and wave columns per pass */
    int R, NC, U, lu;     /* pass rows and pixels, units per pixel (log2 lu) */
    int T, rounds;        /* threads; read rounds per pass */
    int sw_shift, sw_bits, t_shift; /* X(pc): bits sw_shift.. of pc (sw_bits) as
                                       the unit swizzle, bit t_shift as the half's
                                       (t_shift < 0: none) */
    bool pair;            /* 16-bit, U > 8: 16 read lanes over two pixels */
} pass_geom;

static bool geometry(const v4r1_kw *w, pass_geom *p)
{
    if (w->lay->dx_inner != V4R1_DIM_M || !w->math->wave_grid)
        return false;
    w->math->wave_grid(w, &p->g);
    p->bytes = w->dt->bytes, p->V = 16 / p->bytes, p->T = w->block;
    p->rb = p->g.bm, p->wmp = p->g.wgm, p->wnp = p->g.wgn;
    for (;;) {
        p->R = p->wmp * p->rb * p->g.inst, p->NC = p->wnp * p->g.inst;
        if (p->R * p->NC * p->bytes <= w->cfg->lds_bytes)
            break;
        if (p->rb > 1)
            p->rb /= 2;
        else if (p->wmp > 1)
            p->wmp /= 2;
        else if (p->wnp > 1)
            p->wnp /= 2;
        else
            return false;
    }
    p->U = p->R * p->bytes / 16;
    if (p->U < 2 || p->U > p->T || !is_pow2((uint32_t)p->U))
        return false;
    p->lu = log2u((uint32_t)p->U);
    p->rounds = (p->NC * p->U + p->T - 1) / p->T;
    int spread = p->lu >= 3 ? 0 : 3 - p->lu; /* low pixel bits that pc*U already spreads over the 8
                                                units of 128 bytes (8/U pixels share them) */
    p->sw_bits = p->lu < 3 ? p->lu : 3;
    if (p->bytes == 4) {
        p->sw_shift = spread, p->t_shift = -1;
    } else {
        p->t_shift = spread, p->sw_shift = spread + 1;
    }
    p->pair = p->bytes == 2 && p->U > 8;
    return true;
}

/* Whether a shape has whole units to store: C/G >= V, and for 16-bit
 * types C/G even (a unit at a dword; dx's pointer is tested at run time).
 * Without them every lane would store element by element, U lanes a pixel:
 * the direct path's lanes along pixels touch fewer lines then. */
static bool whole_units(const v4r1_kw *w, uint32_t cg)
{
    return cg >= 16u / (uint32_t)w->dt->bytes && (w->dt->bytes != 2 || cg % 2 == 0);
}

static bool lds_takes(const v4r1_kw *w)
{
    pass_geom p;
    return geometry(w, &p) && (!w->a_cg.known || whole_units(w, w->a_cg.k));
}

/* to the next path where this launch has no whole units (whole_units; dx's
 * pointer not 4-byte aligned for 16-bit types); false where no launch can
 * (a static twin's fp32: lds_takes checked its C/G) */
static bool lds_hands_on(v4r1_kw *w, label to)
{
    emit *e = w->e;
    opnd t0 = at(w->s_t, 0), t1 = at(w->s_t, 1);
    if (w->a_cg.known) {
        if (w->dt->bytes != 2)
            return false;
        e_sop2(e, "s_and_b32", t0, at(w->p_dx, 0), imm(3));
    } else {
        e_sopc(e, "s_cmp_lt_u32", w->a_cg.r, imm(16 / w->dt->bytes));
        e_sop2(e, "s_cselect_b32", t0, imm(1), imm(0));
        if (w->dt->bytes == 2) {
            e_sop2(e, "s_and_b32", t1, w->a_cg.r, imm(1));
            e_sop2(e, "s_or_b32", t0, t0, t1);
            e_sop2(e, "s_and_b32", t1, at(w->p_dx, 0), imm(3));
            e_sop2(e, "s_or_b32", t0, t0, t1);
        }
        e_sopc(e, "s_cmp_lg_u32", t0, imm(0));
    }
    e_branch(e, "s_cbranch_scc1", to);
    return true;
}

/* dst = X(v_pc) (tmp: scratch) */
static void swizzle(emit *e, const pass_geom *p, opnd dst, opnd v_pc, opnd tmp)
{
    e_vop3(e, "v_bfe_u32", dst, v_pc, imm(p->sw_shift), imm(p->sw_bits));
    e_vop2(e, "v_lshlrev_b32", dst, imm(4), dst);
    if (p->t_shift >= 0) {
        e_vop3(e, "v_bfe_u32", tmp, v_pc, imm(p->t_shift), imm(1));
        e_vop3(e, "v_lshl_or_b32", dst, tmp, imm(3), dst);
    }
}

/* Tile column of pass pixel pc in the passes of column block k and wave
 * column group wc (less n0): (wc*WNP + pc / INST) * WTN + k*INST + pc % INST */
static int pass_column(const pass_geom *p, int k, int wc, int pc)
{
    const int I = p->g.inst;
    return (wc * p->wnp + pc / I) * p->g.wtn + k * I + pc % I;
}

/* Round r of the passes of (k, wc) lies a constant d columns past round 0
 * of the first passes for every thread (the rounds' pixels are pcl + r*T/U,
 * pcl < T/U, and T/U and INST are powers of two): d, or -1 where it is not
 * (then the round is decoded in full). */
static int round_step(const pass_geom *p, int k, int wc, int r)
{
    const int S = p->T / p->U;
    int d = pass_column(p, k, wc, r * S) - pass_column(p, 0, 0, 0);
    for (int pcl = 1; pcl < S; pcl++)
        if (pass_column(p, k, wc, pcl + r * S) - pass_column(p, 0, 0, pcl) != d)
            return -1;
    return d;
}

/* X(pc) of the swizzle below, at generation time */
static int swizzle_of(const pass_geom *p, int pc)
{
    int x = ((pc >> p->sw_shift) & ((1 << p->sw_bits) - 1)) << 4;
    if (p->t_shift >= 0)
        x |= ((pc >> p->t_shift) & 1) << 3;
    return x;
}

/* Whether every round reads at round 0's address plus r*T*16 bytes (an
 * immediate offset): X(pcl + r*T/U) = X(pcl) for every thread and round. */
static bool reads_invariant(const pass_geom *p)
{
    const int S = p->T / p->U;
    if ((p->rounds - 1) * p->T * 16 > 65535)
        return false;
    for (int r = 1; r < p->rounds; r++)
        for (int pcl = 0; pcl < S; pcl++)
            if (swizzle_of(p, pcl + r * S) != swizzle_of(p, pcl))
                return false;
    return true;
}

/* The registers of the path (lane constants and scratch). */
typedef struct {
    pass_geom p;
    opnd v_wpc, v_wx, v_wr, v_wg, v_wc; /* writes: pixel row base, swizzle, row bytes, wave row and
                                           column groups */
    opnd v_pcl, v_u16, v_trow;      /* reads: round 0's pixel, unit * 16, tile row less the pass's */
    opnd v_d, v_a, v_b, v_n, v_poff, v_q; /* v_d: a batch's units; v_poff: the rounds' dx offsets */
    opnd v_tmp, v_nan, v_sum;       /* bf16 rounding; the sum of a pass's values (a pair where
                                       the target has packed fp32) */
    v4r1_column base;               /* round 0's column of the first passes, decoded */
    opnd v_rd;                      /* invariant reads: round 0's LDS address (16-bit: and its
                                       other half's), or NOOP */
    opnd s_rsc, s_exec, s_full, s_tail, s_part, s_vlim, s_k;
    sv mlim;
    v4r1_pixels px;
} lds_ctx;

/* Lane constants of the writes: pc = wn*INST + l % INST, the row of the
 * lane's first accumulator within the pass, its wave row group. */
static void write_consts(v4r1_kw *w, lds_ctx *x)
{
    emit *e = w->e;
    const pass_geom *p = &x->p;
    const int I = p->g.inst;
    opnd v_l = x->v_a, v_wave = x->v_b;
    e_vop2(e, "v_and_b32", v_l, imm(63), w->v_tid);
    e_vop2(e, "v_lshrrev_b32", v_wave, imm(6), w->v_tid);
    /* pixel: ((wave / WGM) % WNP) * INST + l % INST; wave column group (wave / WGM) / WNP */
    e_vop2(e, "v_lshrrev_b32", x->v_wc, imm(log2u((uint32_t)p->g.wgm)), v_wave);
    e_vop2(e, "v_and_b32", x->v_wpc, imm(p->wnp - 1), x->v_wc);
    e_vop2(e, "v_lshrrev_b32", x->v_wc, imm(log2u((uint32_t)p->wnp)), x->v_wc);
    e_vop2(e, "v_lshlrev_b32", x->v_wpc, imm(log2u((uint32_t)I)), x->v_wpc);
    e_vop2(e, "v_and_b32", x->v_n, imm(I - 1), v_l);
    h_vadd(e, x->v_wpc, x->v_wpc, x->v_n);
    swizzle(e, p, x->v_wx, x->v_wpc, x->v_n);
    e_vop2(e, "v_lshlrev_b32", x->v_wpc, imm(p->lu + 4), x->v_wpc);
    /* row: ((wave % WGM) % WMP) * RB * INST + 4 * (l / INST), in bytes */
    e_vop2(e, "v_lshrrev_b32", x->v_wr, imm(log2u((uint32_t)I)), v_l);
    e_vop2(e, "v_lshlrev_b32", x->v_wr, imm(2), x->v_wr);
    e_vop2(e, "v_and_b32", x->v_wg, imm(p->g.wgm - 1), v_wave);
    e_vop2(e, "v_and_b32", x->v_n, imm(p->wmp - 1), x->v_wg);
    e_vop3(e, "v_lshl_add_u32", x->v_wr, x->v_n, imm(log2u((uint32_t)(p->rb * I))), x->v_wr);
    e_vop2(e, "v_lshlrev_b32", x->v_wr, imm(log2u((uint32_t)p->bytes)), x->v_wr);
    e_vop2(e, "v_lshrrev_b32", x->v_wg, imm(log2u((uint32_t)p->wmp)), x->v_wg);
}

/* Lane constants of the reads: thread tid's unit u and round 0's pixel
 * (pair: u = ((tid >> 4) % (U/8)) * 8 + tid % 8, pc = (tid >> (lu+1)) * 2
 * + (tid >> 3) % 2; else u = tid % U, pc = tid / U; round r adds r*T/U),
 * and the tile row of u's first channel less the pass's. */
static void read_consts(v4r1_kw *w, lds_ctx *x)
{
    emit *e = w->e;
    const pass_geom *p = &x->p;
    if (p->pair) {
        e_vop3(e, "v_bfe_u32", x->v_u16, w->v_tid, imm(4), imm(p->lu - 3));
        e_vop2(e, "v_and_b32", x->v_a, imm(7), w->v_tid);
        e_vop3(e, "v_lshl_add_u32", x->v_u16, x->v_u16, imm(3), x->v_a);
        e_vop2(e, "v_lshrrev_b32", x->v_pcl, imm(p->lu + 1), w->v_tid);
        e_vop3(e, "v_bfe_u32", x->v_a, w->v_tid, imm(3), imm(1));
        e_vop3(e, "v_lshl_add_u32", x->v_pcl, x->v_pcl, imm(1), x->v_a);
    } else {
        e_vop2(e, "v_and_b32", x->v_u16, imm(p->U - 1), w->v_tid);
        e_vop2(e, "v_lshrrev_b32", x->v_pcl, imm(p->lu), w->v_tid);
    }
    /* pass row pr = u*V -> tile row (pr / (RB*INST)) * WTM + pr % (RB*INST) */
    const int rbi = p->rb * p->g.inst;
    e_vop2(e, "v_lshlrev_b32", x->v_a, imm(log2u((uint32_t)p->V)), x->v_u16);
    e_vop2(e, "v_lshrrev_b32", x->v_trow, imm(log2u((uint32_t)rbi)), x->v_a);
    e_vop2(e, "v_lshlrev_b32", x->v_trow, imm(log2u((uint32_t)p->g.wtm)), x->v_trow);
    e_vop3(e, "v_and_or_b32", x->v_trow, x->v_a, imm(rbi - 1), x->v_trow);
    e_vop2(e, "v_lshlrev_b32", x->v_u16, imm(4), x->v_u16);
    if (x->v_rd.kind != OPK_NONE) {
        swizzle(e, p, x->v_a, x->v_pcl, x->v_n);
        e_vop2(e, "v_lshlrev_b32", x->v_n, imm(p->lu + 4), x->v_pcl);
        e_vop3(e, "v_xad_u32", at(x->v_rd, 0), x->v_u16, x->v_a, x->v_n);
        if (p->bytes == 2)
            e_vop2(e, "v_xor_b32", at(x->v_rd, 1), imm(8), at(x->v_rd, 0));
    }
}

/* A pass: column block k of the waves of wave column group wc, row blocks
 * rg*RB.. of the waves of wave row group wg. */
typedef struct {
    int k, wc, wg, rg;
} pass_id;

/* v_sum (the first group: =) += the row group's four values in v_d: a
 * pair at a time where v_sum is a pair (packed fp32) */
static void sum_group(emit *e, opnd v_sum, opnd v_d, bool first)
{
    if (v_sum.count == 2) {
        for (int r = first ? 1 : 0; r < V4R1_ROW_GROUP / 2; r++)
            e_vop3p(e, "v_pk_add_f32", v_sum, sub(v_d, 2 * r, 2), first ? sub(v_d, 0, 2) : v_sum, NOOP, NULL);
        return;
    }
    for (int r = 0; r < V4R1_ROW_GROUP; r++)
        if (first && !r)
            h_vmov(e, v_sum, at(v_d, r));
        else
            e_vop2(e, "v_add_f32", v_sum, at(v_d, r), v_sum);
}

/* Pass q's accumulators into LDS, a row group at a time: 16-bit rounded
 * in pairs (h_narrow16x2; v_nan NOOP: as if none were NaN), v_sum (where
 * not NOOP) summing them as they go (sum_group). */
static void write_rows(v4r1_kw *w, lds_ctx *x, pass_id q, opnd v_nan, opnd v_sum)
{
    emit *e = w->e;
    const v4r1_math *m = w->math;
    const pass_geom *p = &x->p;
    const int I = p->g.inst, cd = m->rows(w) / p->g.bm;
    const bool half = p->bytes == 2;
    bool first = true;
    for (int bi = 0; bi < p->rb; bi++) {
        int bm = q.rg * p->rb + bi;
        for (int gi = 0; gi < cd; gi += V4R1_ROW_GROUP) {
            int i = bm * cd + gi;
            for (int r = 0; r < V4R1_ROW_GROUP; r++)
                e_accvgpr_read(e, at(x->v_d, r), m->acc(w, i + r, q.k, 1));
            if (v_sum.kind != OPK_NONE)
                sum_group(e, v_sum, x->v_d, first);
            first = false;
            if (half)
                for (int r = 0; r < V4R1_ROW_GROUP / 2; r++)
                    h_narrow16x2(e, w->dt->id, at(x->v_d, r), at(x->v_d, 2 * r), at(x->v_d, 2 * r + 1), x->v_tmp,
                                 v_nan, w->s_m, x->s_k);
            int c = (bi * I + m->row_off(w, i) - bm * I) * p->bytes;
            if (c)
                h_vadd(e, x->v_a, imm(c), x->v_wr);
            e_vop3(e, "v_xad_u32", x->v_a, c ? x->v_a : x->v_wr, x->v_wx, x->v_wpc);
            e_ds(e, half ? "ds_write_b64" : "ds_write_b128", NOOP, x->v_a, sub(x->v_d, 0, half ? 2 : 4), NOOP, 0, 0);
        }
    }
}

/* Pass q's accumulators into LDS. bf16 rounds them as if none were NaN
 * (two VALU a value where the NaN test would add two more) while summing
 * them; where a lane's sum is NaN (a NaN among them, or Infs of both
 * signs) the wave writes the pass again with the NaN test (the
 * accumulators keep their values), before the barrier. */
static void write_pass(v4r1_kw *w, lds_ctx *x, pass_id q)
{
    emit *e = w->e;
    const pass_geom *p = &x->p;
    label l_skip = e_label_new(e, "lds_pass_written");
    if (p->wmp < p->g.wgm || p->wnp < p->g.wgn) {
        e_vopc(e, "v_cmp_eq_u32", VCC, imm(q.wg), x->v_wg);
        e_vopc(e, "v_cmp_eq_u32", w->s_m, imm(q.wc), x->v_wc);
        e_sop2(e, "s_and_b64", VCC, VCC, w->s_m);
        e_sop2(e, "s_and_b64", EXEC, x->s_exec, VCC);
        e_branch(e, "s_cbranch_execz", l_skip);
    }
    if (w->dt->id == IGEMM_BF16) {
        write_rows(w, x, q, NOOP, x->v_sum);
        if (x->v_sum.count == 2)
            e_vop2(e, "v_add_f32", at(x->v_sum, 0), at(x->v_sum, 1), at(x->v_sum, 0));
        e_vopc(e, "v_cmp_u_f32", VCC, at(x->v_sum, 0), at(x->v_sum, 0));
        e_branch(e, "s_cbranch_vccz", l_skip);
        write_rows(w, x, q, x->v_nan, NOOP);
    } else {
        write_rows(w, x, q, x->v_nan, NOOP);
    }
    e_label(e, l_skip);
    h_smov(e, EXEC, x->s_exec);
    e_waitcnt(e, -1, 0);
    e_sopp(e, "s_barrier", 0);
}

/* Rounds of a batch: their units are read together (LDS_BATCH * 4 VGPRs).
 * One: the timing model put reading a pass's rounds together (4) behind
 * reading each round as its stores come (gfx942 fp16 64x64x32 tiles, 1x1
 * 64 -> 64 channels at batch 8: 7.38 us against 7.27), the LDS latency
 * then no longer under the pixel decode. */
#define LDS_BATCH 1

/* Round r's pixel of this thread: v_pcl itself for round 0, else in v_b */
static opnd round_pixel(lds_ctx *x, emit *e, int r)
{
    if (!r)
        return x->v_pcl;
    h_vadd(e, x->v_b, imm(r * (x->p.T / x->p.U)), x->v_pcl);
    return x->v_b;
}

/* The dx offset of round r's pixel in the passes of column block k of wave
 * column group wc (the same for every pass of them): tile column (wc*WNP +
 * pc / INST) * WTN + k*INST + pc % INST, plus the thread's channel part;
 * the invalid offset (and anything past it, at least 0x80000000) where the
 * pixel is outside dx, past gemm_n or, in a partial round, past the pass.
 * Round 0 of the first passes is decoded in full and kept (x->base); the
 * others step from it by their constant column distance (round_step,
 * v4r1_pixel_offset_step: no division). */
static void decode_round(v4r1_kw *w, lds_ctx *x, pass_id q, int r)
{
    emit *e = w->e;
    const pass_geom *p = &x->p;
    const int I = p->g.inst;
    opnd off = at(x->v_poff, r);
    const int d = round_step(p, q.k, q.wc, r);
    const bool first = !q.k && !q.wc && !r;
    if (d > 0) {
        v4r1_pixel_offset_step(w, &x->px, off, &x->base, d, x->v_q);
    } else {
        opnd v_pc = round_pixel(x, e, r), v_n = first ? x->base.v_n : x->v_n;
        const int col = q.wc * p->wnp * p->g.wtn + q.k * I;
        e_vop2(e, "v_lshrrev_b32", v_n, imm(log2u((uint32_t)I)), v_pc);
        e_vop2(e, "v_lshlrev_b32", v_n, imm(log2u((uint32_t)p->g.wtn)), v_n);
        e_vop3(e, "v_and_or_b32", v_n, v_pc, imm(I - 1), v_n);
        if (col)
            h_vadd(e, v_n, imm(col), v_n);
        h_vadd(e, v_n, sv_op(w->n0), v_n);
        if (first)
            v4r1_pixel_offset_base(w, &x->px, off, &x->base, x->v_q);
        else
            v4r1_pixel_offset(w, &x->px, off, v_n, x->v_q, NOOP);
    }
    if (p->NC * p->U < p->T) {
        opnd v_pc = round_pixel(x, e, r);
        e_vopc(e, "v_cmp_gt_u32", VCC, imm(p->NC), v_pc);
        e_cndmask(e, off, w->v_inv, off, VCC);
    }
    e_vop3(e, "v_lshl_add_u32", off, x->v_trow, imm(log2u((uint32_t)p->bytes)), off);
}

/* Pass q's row masks: the lanes whose unit is inside C/G (s_full; 16-bit:
 * and aligned) and those with only its first channels inside (s_tail). */
static void pass_rows(v4r1_kw *w, lds_ctx *x, int cst)
{
    emit *e = w->e;
    e_sop2(e, "s_sub_u32", at(w->s_t, 0), x->s_vlim, imm(cst));
    e_vopc(e, "v_cmp_gt_i32", x->s_full, at(w->s_t, 0), x->v_trow);
    e_sop2(e, "s_sub_u32", at(w->s_t, 0), sv_op(x->mlim), imm(cst));
    e_vopc(e, "v_cmp_gt_i32", x->s_tail, at(w->s_t, 0), x->v_trow);
    e_sop2(e, "s_andn2_b64", x->s_tail, x->s_tail, x->s_full);
}

/* Round r's unit out of LDS into its place in the batch (v_d + 4*b): at
 * round 0's address plus r*T*16 where the swizzle allows (x->v_rd), else
 * at the address of the round's pixel. */
static void read_unit(lds_ctx *x, emit *e, int r, int b)
{
    const pass_geom *p = &x->p;
    const bool partial = p->NC * p->U < p->T, half = p->bytes == 2;
    opnd d = sub(x->v_d, 4 * b, 4);
    opnd v_pc = partial || x->v_rd.kind == OPK_NONE ? round_pixel(x, e, r) : NOOP;
    if (partial) { /* a partial round: the lanes past the pass's pixels read nothing */
        e_vopc(e, "v_cmp_gt_u32", VCC, imm(p->NC), v_pc);
        e_sop2(e, "s_and_b64", EXEC, x->s_exec, VCC);
    }
    opnd a0 = x->v_a, a1 = x->v_a;
    int o = 0;
    if (x->v_rd.kind != OPK_NONE) {
        a0 = at(x->v_rd, 0), a1 = half ? at(x->v_rd, 1) : NOOP, o = r * p->T * 16;
    } else {
        swizzle(e, p, x->v_a, v_pc, x->v_n);
        e_vop2(e, "v_lshlrev_b32", x->v_n, imm(p->lu + 4), v_pc);
        e_vop3(e, "v_xad_u32", x->v_a, x->v_u16, x->v_a, x->v_n);
    }
    if (half) {
        e_ds(e, "ds_read_b64", sub(d, 0, 2), a0, NOOP, NOOP, o, 0);
        if (x->v_rd.kind == OPK_NONE)
            e_vop2(e, "v_xor_b32", x->v_a, imm(8), x->v_a);
        e_ds(e, "ds_read_b64", sub(d, 2, 2), a1, NOOP, NOOP, o, 0);
    } else {
        e_ds(e, "ds_read_b128", d, a0, NOOP, NOOP, o, 0);
    }
    if (partial)
        h_smov(e, EXEC, x->s_exec);
}

/* Round r's unit (batch place b) to dx: one dwordx4 where it is whole
 * (s_full), else its channels inside C/G one by one (s_tail); nothing for
 * an invalid pixel. */
static void store_unit(v4r1_kw *w, lds_ctx *x, int r, int b, int cst)
{
    emit *e = w->e;
    const pass_geom *p = &x->p;
    const bool half = p->bytes == 2;
    opnd d = sub(x->v_d, 4 * b, 4), off = at(x->v_poff, r);
    label l_tail = e_label_new(e, "lds_tail_done");
    h_smov(e, EXEC, x->s_exec);
    e_vopc(e, "v_cmp_gt_u32", VCC, w->v_inv, off);
    e_sop2(e, "s_and_b64", EXEC, x->s_full, VCC);
    e_mubuf(e, "buffer_store_dwordx4", d, off, x->s_rsc, imm(0), cst * p->bytes);
    /* the lanes with part of a unit: the compares under the lanes they
       choose from (a VOPC leaves the others' bits 0) */
    e_sop2(e, "s_and_b64", x->s_part, x->s_tail, VCC);
    e_branch(e, "s_cbranch_scc0", l_tail);
    for (int c = 0; c < p->V; c++) {
        e_sop2(e, "s_sub_u32", at(w->s_t, 0), sv_op(x->mlim), imm(cst + c));
        h_smov(e, EXEC, x->s_part);
        e_vopc(e, "v_cmp_gt_i32", VCC, at(w->s_t, 0), x->v_trow);
        e_sop2(e, "s_and_b64", EXEC, x->s_part, VCC);
        const char *op = !half ? "buffer_store_dword" : c % 2 ? "buffer_store_short_d16_hi" : "buffer_store_short";
        e_mubuf(e, op, at(d, half ? c / 2 : c), off, x->s_rsc, imm(0), (cst + c) * p->bytes);
    }
    e_label(e, l_tail);
}

/* Pass q out of LDS: the rounds in batches, each batch's reads issued
 * together, then (in the first pass of its column block and wave column
 * group) the dx offsets of its pixels, its stores as the reads return. */
static void read_pass(v4r1_kw *w, lds_ctx *x, pass_id q)
{
    emit *e = w->e;
    const pass_geom *p = &x->p;
    const int cst = q.wg * p->wmp * p->g.wtm + q.rg * p->rb * p->g.inst, per = p->bytes == 2 ? 2 : 1;
    pass_rows(w, x, cst);
    for (int r0 = 0; r0 < p->rounds; r0 += LDS_BATCH) {
        int n = p->rounds - r0 < LDS_BATCH ? p->rounds - r0 : LDS_BATCH;
        for (int b = 0; b < n; b++)
            read_unit(x, e, r0 + b, b);
        if (!q.wg && !q.rg) /* the first pass of its pixels: their offsets while the reads are out */
            for (int b = 0; b < n; b++)
                decode_round(w, x, q, r0 + b);
        for (int b = 0; b < n; b++) {
            e_waitcnt(e, -1, (n - 1 - b) * per);
            store_unit(w, x, r0 + b, b, cst);
        }
        h_smov(e, EXEC, x->s_exec);
    }
}

/* The vector limit: C/G - m0 - (V-1) (16-bit units are 4-byte aligned
 * here: lds_hands_on sent the other shapes to the direct path). */
static void vector_limit(v4r1_kw *w, lds_ctx *x)
{
    e_sop2(w->e, "s_sub_u32", x->s_vlim, sv_op(x->mlim), imm(x->p.V - 1));
}

static void lds_alloc(v4r1_kw *w, lds_ctx *x)
{
    emit *e = w->e;
    const char *vn[] = {"v_lwpc", "v_lwx", "v_lwr", "v_lwg", "v_lwc", "v_lpcl", "v_lu16", "v_ltrow", "v_la0", "v_lb0", "v_ln"};
    opnd *vr[] = {&x->v_wpc, &x->v_wx, &x->v_wr, &x->v_wg, &x->v_wc, &x->v_pcl, &x->v_u16, &x->v_trow,
                  &x->v_a,   &x->v_b,  &x->v_n};
    int batch = x->p.rounds < LDS_BATCH ? x->p.rounds : LDS_BATCH;
    x->v_d = vreg(e, "v_ld", 4 * batch, 4);
    x->v_poff = vreg(e, "v_lpoff", x->p.rounds, 1);
    for (size_t i = 0; i < sizeof vr / sizeof vr[0]; i++)
        *vr[i] = vreg(e, vn[i], 1, 1);
    x->v_q = vreg(e, "v_lq", 2, 1);
    x->base.v_n = vreg(e, "v_lbn", 1, 1), x->base.v_img = vreg(e, "v_lbimg", 1, 1);
    x->base.v_t = vreg(e, "v_lbt", 2, 1);
    x->v_rd = reads_invariant(&x->p) ? vreg(e, "v_lrd", x->p.bytes == 2 ? 2 : 1, 1) : NOOP;
    x->v_tmp = x->v_nan = x->v_sum = NOOP;
    if (w->dt->id == IGEMM_BF16) {
        x->v_sum = e->t->has_pk_fma_f32 ? vreg(e, "v_lsum", 2, 2) : x->v_n;
        x->v_tmp = vreg(e, "v_round", 1, 1);
        x->v_nan = vreg(e, "v_qnan", 1, 1);
        h_narrow16_nan(e, w->dt->id, x->v_nan);
    }
    x->s_rsc = sreg(e, "s_rsc", 4, 4), x->s_exec = sreg(e, "s_lexec", 2, 2);
    x->s_full = sreg(e, "s_lfull", 2, 2), x->s_tail = sreg(e, "s_ltail", 2, 2), x->s_part = sreg(e, "s_lpart", 2, 2);
    x->s_vlim = sreg(e, "s_vlim", 1, 1), x->s_k = sreg(e, "s_k16", 2, 2);
}

static void lds_store(v4r1_kw *w)
{
    emit *e = w->e;
    lds_ctx x;
    geometry(w, &x.p);
    const pass_geom *p = &x.p;
    e_comment(e, "store through LDS: passes of %d rows x %d pixels (%d row blocks, %d wave rows, %d wave columns), "
              "%d units a pixel, %d rounds; lanes store 16 bytes of one pixel's channels", p->R, p->NC, p->rb, p->wmp,
              p->wnp, p->U, p->rounds);
    e_scope_begin(e, "dx_lds");
    sv hiwi = sv_mul(e, "s_hiwi", w->a_hi, w->a_wi);
    sv hiwi_bytes = sv_shl(e, "s_hiwi_bytes", hiwi, w->dt->log2_bytes);
    w->lay->dx_strides(w, hiwi_bytes);
    lds_alloc(w, &x);
    v4r1_pixels_begin(w, &x.px, hiwi_bytes);
    v4r1_pixels_consts(w, &x.px, NOOP);
    v4r1_rsrc_words(e, x.s_rsc, V4R1_OPEN_RECORDS);
    v4r1_dx_base(w, sub(x.s_rsc, 0, 2));
    x.mlim = sv_sub(e, "s_mlim2", w->a_cg, w->m0);
    vector_limit(w, &x);
    h_narrow16x2_consts(e, w->dt->id, x.s_k);
    h_smov(e, x.s_exec, EXEC);
    write_consts(w, &x);
    read_consts(w, &x);
    int npass = 0;
    for (int k = 0; k < p->g.bn; k++)
        for (int wc = 0; wc < p->g.wgn / p->wnp; wc++) {
            for (int wg = 0; wg < p->g.wgm / p->wmp; wg++)
                for (int rg = 0; rg < p->g.bm / p->rb; rg++) {
                    pass_id q = {k, wc, wg, rg};
                    if (!npass++)
                        e_comment(e, "the K walk's LDS tiles are dead once every wave is past its last slice");
                    e_waitcnt(e, -1, 0);
                    e_sopp(e, "s_barrier", 0); /* (later passes: every thread's reads of the last one are done) */
                    write_pass(w, &x, q);
                    read_pass(w, &x, q);
                }
        }
    sv_free(e, x.mlim);
    v4r1_pixels_end(w, &x.px);
    sv_free(e, w->c_pix);
    sv_free(e, hiwi_bytes);
    sv_free(e, hiwi);
    e_scope_end(e, "dx_lds", true);
}

const v4r1_dx_path v4r1_dx_lds = {.name = "lds", .takes = lds_takes, .hands_on = lds_hands_on, .store = lds_store};
