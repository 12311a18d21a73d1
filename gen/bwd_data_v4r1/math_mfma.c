/* The MFMA math strategy: matrix cores (VOP3P-MAI) on gfx908/gfx90a/gfx942.
 *
 * The workgroup's waves form a WGM x WGN grid over the MPB x NPB tile; a
 * wave owns a (MPB/WGM) x (NPB/WGN) wave tile made of BM x BN blocks of one
 * single-block MFMA of shape INST x INST x K (32x32x2 or 16x16x4 f32),
 * accumulating in AGPRs (C/D in AGPRs works on every CDNA target; gfx90a+
 * could also keep them in VGPRs). With 16-bit k-quad LDS tiles (kw.h) the
 * blocks are INST x INST x (4*64/INST) 16-bit MFMAs (32x32x8, 16x16x16;
 * on gfx908 bf16, two k-pair ones, 32x32x4 / 16x16x8, per quad).
 *
 * Operands (AMD's matrix calculator layout, shared/isa/mfma): lane l holds
 * A[m = l % INST][k = l / INST] and B[k = l / INST][n = l % INST] in one
 * VGPR each, so with the LDS tiles stored [k][m] and [k][n] (the staging's
 * layout) a fragment is one ds_read_b32 per lane at
 *   ((l / INST) * MPB + m0_wave + bm*INST + l % INST) * 4 + k0 * MPB * 4
 * (consecutive lanes read consecutive dwords: no bank conflict within a
 * 32-lane half for INST 32). The 16-bit instructions take k quads: lane l
 * holds A[m = l % INST][k = 4*(l / INST) + 0..3] in two VGPRs (the k-pair
 * ones k = 2*(l / INST) + 0..1 in one: issuing one per register of the
 * quad covers every k once, the same k for A and B), so a fragment is one
 * ds_read_b64 of the quad entry ((l / INST) * MPB + m) * 8. Result D (register g, lane l) is element
 *   row (g / 4) * (4 * 64 / INST) + 4 * (l / INST) + g % 4, column l % INST
 * of its block, which the epilogue reads with v_accvgpr_read_b32.
 *
 * Exact 16-bit products where the 16-bit MFMAs flush
 * (v4r1_config_ftz_checked: gfx90a reads a subnormal fp16 or bf16 A or B
 * element, and a subnormal fp32 C or D, as zero). Every matrix step tests
 * the wave's fragments before multiplying them: per half, 2h - 2 modulo
 * 2^16 (the sign shifted out, zero wrapped to 0xfffe) grows with the
 * magnitude, so the packed minimum over the fragments, against
 * v4r1_ftz_small() (fp16: below the least normal; bf16: below 2^-56), says
 * whether the step has a small value. A step without (nearly every step of
 * real data) runs the 16-bit MFMAs, which then flush nothing; a step with
 * one branches out of line and multiplies the same fragments on the f32
 * MFMA of the block's shape, which keeps subnormals: quad element j of
 * every lane (the A and B fragments hold the same k there) widened to f32
 * is one k of a 32x32x2 / 16x16x4 f32 MFMA, so four of them cover the quad,
 * their products exact like the 16-bit ones and accumulated into the same
 * accumulators (their D layout is the block's, whatever the type). fp16
 * sends only the quad elements j where some lane's fragments hold a small
 * value (exact_elements: test_small leaves each fragment register's minima
 * for that), zeroes them in both sides' fragments and runs the step's
 * 16-bit MFMAs on the rest: a step with one subnormal costs one f32 MFMA
 * per block more instead of four in place of one. No
 * accumulator a 16-bit MFMA reads or writes is subnormal: fp16 products
 * are multiples of 2^-48, and bf16 ones of values >= 2^-56 multiples of
 * 2^-126; a bf16 wave that took the f32 path once (its sums may now be
 * subnormal) takes it for the rest of its walk (v4r1_ftz_sticky: the bound
 * in s_small becomes 0xffff). */
#include "../../arch/mfma.h"
#include "kw.h"

/* The configuration's wave grid and blocks (v4r1_config_derive). */
static int waves_m(const v4r1_kw *w) { return w->cfg->wgm; }
static int blocks_m(const v4r1_kw *w) { return w->cfg->bm; }
static int blocks_n(const v4r1_kw *w) { return w->cfg->bn; }
static int inst(const v4r1_kw *w) { return w->cfg->inst; }
static int cd_regs(const v4r1_kw *w) { return inst(w) * inst(w) / 64; }
/* bytes per LDS entry (one k, or one k quad) */
static int entry_bytes(const v4r1_kw *w) { return w->fmt->entry_bytes; }

static const mfma_info *pick(v4r1_kw *w, int *issues)
{
    const mfma_info *m = v4r1_mfma_inst(w->cfg, w->e->t, issues);
    if (!m)
        emit_fail(w->e, "no %dx%dx%d MFMA for %s on this target", inst(w), inst(w), v4r1_mfma_kstep(w->cfg),
                  w->dt->name);
    return m;
}

/* The B read addresses (buffer 0), k = l / INST, i = l % INST, n0_wave in
 * v_wave: (k*L + n0_wave + i) * size + the tile's base, or on a swizzled
 * tile one per step t of the XOR's period: base 0's column i ^
 * v4r1_bswz_xor(k), base t base 0 XOR v4r1_bswz_step_xor(t) * size (a
 * constant below the swizzle's span G = bswz * Q, where k*L + n0_wave and
 * the tile's base, multiples of G entries, have no bits): a row of lanes
 * keeps reading consecutive columns, permuted within aligned blocks.
 * tmp: scratch. */
static void b_read_bases(v4r1_kw *w, opnd tmp, opnd v_wave, opnd v_k, opnd v_i)
{
    emit *e = w->e;
    const v4r1_config *c = w->cfg;
    const int n = v4r1_bswz_bases(c), lb = log2u((uint32_t)entry_bytes(w));
    const int rows = v4r1_bswz_rows(c), lanes = v4r1_bswz_lanes(c);
    opnd d = at(w->v_brd, 0);
    if (c->bswz) {
        /* the shifts and mask below are v4r1_bswz_xor's division and modulo */
        for (int r = 0; r < c->kpb; r++)
            if ((((r >> log2u((uint32_t)rows)) & (lanes - 1)) << log2u((uint32_t)c->bswz)) != v4r1_bswz_xor(c, r))
                emit_fail(e, "B swizzle of row %d: the shifts give no v4r1_bswz_xor (R %d, Q %d, P %d)", r, rows,
                          lanes, c->bswz);
        if (w->b_lds % (c->bswz * lanes * entry_bytes(w)))
            emit_fail(e, "B swizzle: the tile's base %d is not a multiple of its span", w->b_lds);
        e_comment(e, "B swizzled: column i ^ %d * (((t*%d + k) / %d) %% %d), the step's t of %d", c->bswz,
                  64 / inst(w), rows, lanes, n);
        v4r1_row_mul(w, tmp, v_k, w->b_len); /* k*L + n0_wave */
        h_vadd(e, tmp, tmp, v_wave);
        e_vop2(e, "v_lshrrev_b32", d, imm(log2u((uint32_t)rows)), v_k);
        e_vop2(e, "v_and_b32", d, imm(lanes - 1), d);
        e_vop2(e, "v_lshlrev_b32", d, imm(log2u((uint32_t)c->bswz)), d);
        e_vop2(e, "v_xor_b32", d, d, v_i);
        h_vadd(e, d, d, tmp);
    } else {
        v4r1_row_mul(w, d, v_k, w->b_len);
        h_vadd(e, d, d, v_wave);
        h_vadd(e, d, d, v_i);
    }
    e_vop2(e, "v_lshlrev_b32", d, imm(lb), d);
    if (w->b_lds)
        h_vadd(e, d, imm(w->b_lds), d);
    for (int t = 1; t < n; t++) {
        const int ct = v4r1_bswz_step_xor(c, t);
        if (ct < 0) /* derive_channels swizzles only where every step's is a constant */
            emit_fail(e, "B swizzle: step %d's XOR differs from step 0's by no constant", t);
        e_vop2(e, "v_xor_b32", at(w->v_brd, t), imm(ct * entry_bytes(w)), d);
    }
}

/* The columns of a wave's tile along N (its share of the tile's), and its
 * first column n0_wave = (wave / WGM) * wtn into dst, from the thread id */
static int wave_cols(const v4r1_kw *w) { return w->npb / (w->block / 64 / waves_m(w)); }
static void wave_n0(v4r1_kw *w, opnd dst)
{
    e_vop2(w->e, "v_lshrrev_b32", dst, imm(6 + log2u((uint32_t)waves_m(w))), w->v_tid);
    e_vop2(w->e, "v_lshlrev_b32", dst, imm(log2u((uint32_t)wave_cols(w))), dst);
}

static void mfma_setup(v4r1_kw *w)
{
    emit *e = w->e;
    const int I = inst(w), lb = log2u((uint32_t)entry_bytes(w));
    const int wtm = w->mpb / waves_m(w), wtn = wave_cols(w);
    e_comment(e, "MFMA %dx%d: %d waves as %dx%d, wave tile %dx%d = %dx%d blocks, accumulators in AGPRs", I, I,
              w->block / 64, waves_m(w), w->block / 64 / waves_m(w), wtm, wtn, blocks_m(w), blocks_n(w));
    w->v_ard = vreg(e, "v_ard", 1, 1), w->v_brd = vreg(e, "v_brd", v4r1_bswz_bases(w->cfg), 1);
    w->v_tm4 = vreg(e, "v_row0", 1, 1);
    opnd v_lane = at(w->v_t, 0), v_wave = at(w->v_t, 1), v_k = at(w->v_t, 2), v_i = at(w->v_t, 3);
    e_vop2(e, "v_and_b32", v_lane, imm(63), w->v_tid);
    e_vop2(e, "v_lshrrev_b32", v_wave, imm(6), w->v_tid);
    e_vop2(e, "v_lshrrev_b32", v_k, imm(log2u((uint32_t)I)), v_lane); /* k within the MFMA (and row group) */
    e_vop2(e, "v_and_b32", v_i, imm(I - 1), v_lane);                  /* row / column within a block */
    /* wave (wm, wn): m0_wave = (wave % WGM) * wtm, n0_wave = (wave / WGM) * wtn */
    opnd v_wm = v_lane; /* the lane id is not needed past here */
    e_vop2(e, "v_and_b32", v_wm, imm(waves_m(w) - 1), v_wave);
    e_vop2(e, "v_lshlrev_b32", v_wm, imm(log2u((uint32_t)wtm)), v_wm);
    e_vop2(e, "v_lshrrev_b32", v_wave, imm(log2u((uint32_t)waves_m(w))), v_wave);
    e_vop2(e, "v_lshlrev_b32", v_wave, imm(log2u((uint32_t)wtn)), v_wave); /* n0_wave */
    /* row base (epilogue): m0_wave + 4 * (l / INST); A read: (k*MPB + m0_wave + i) * 4 */
    e_vop2(e, "v_lshlrev_b32", w->v_tm4, imm(2), v_k);
    h_vadd(e, w->v_tm4, w->v_tm4, v_wm);
    e_vop2(e, "v_lshlrev_b32", w->v_ard, imm(log2u((uint32_t)w->mpb)), v_k);
    h_vadd(e, w->v_ard, w->v_ard, v_wm);
    h_vadd(e, w->v_ard, w->v_ard, v_i);
    e_vop2(e, "v_lshlrev_b32", w->v_ard, imm(lb), w->v_ard);
    if (w->a_lds)
        h_vadd(e, w->v_ard, imm(w->a_lds), w->v_ard);
    /* B read: (k*L + n0_wave + i) * 4 (L: the B tile's row, NPB and its
       pad); a swizzled tile's one register per XOR after the first loads
       (mfma_late_setup); the column part, n0_wave + i, is recomputed for
       the epilogue (col_base) */
    if (!w->cfg->bswz)
        b_read_bases(w, v_wm, v_wave, v_k, v_i);
    int nacc = blocks_m(w) * blocks_n(w) * cd_regs(w);
    w->c_regs = areg(e, "a_c", nacc, 4);
    for (int i = 0; i < nacc; i++)
        e_accvgpr_write(e, at(w->c_regs, i), imm(0));
}

/* A swizzled B tile's read bases (b_read_bases: about five VALU each),
 * where the first tile's loads hide them: k, i and n0_wave again from the
 * thread id into the scratch registers */
static void mfma_late_setup(v4r1_kw *w)
{
    if (!w->cfg->bswz)
        return;
    emit *e = w->e;
    const int I = inst(w);
    opnd v_row = at(w->v_t, 0), v_wave = at(w->v_t, 1), v_k = at(w->v_t, 2), v_i = at(w->v_t, 3);
    e_comment(e, "B's swizzled read bases, under the first loads");
    wave_n0(w, v_wave);
    e_vop2(e, "v_and_b32", v_i, imm(63), w->v_tid);
    e_vop2(e, "v_lshrrev_b32", v_k, imm(log2u((uint32_t)I)), v_i);
    e_vop2(e, "v_and_b32", v_i, imm(I - 1), v_i);
    b_read_bases(w, v_row, v_wave, v_k, v_i);
}

static bool ftz_checked(const v4r1_kw *w) { return v4r1_config_ftz_checked(w->cfg, w->e->t); }
static bool sticky(const v4r1_kw *w) { return ftz_checked(w) && v4r1_ftz_sticky(w->cfg); }

static void mfma_loop_alloc(v4r1_kw *w)
{
    w->v_la = vreg(w->e, "v_la", 2 * blocks_m(w) * w->fmt->entry_regs, w->fmt->entry_regs);
    w->v_lb = vreg(w->e, "v_lb", 2 * blocks_n(w) * w->fmt->entry_regs, w->fmt->entry_regs);
    if (ftz_checked(w))
        w->v_x32 = vreg(w->e, "v_x32", 4 * 2, 1);
    if (sticky(w)) {
        w->s_small = sreg(w->e, "s_small", 1, 1);
        h_smov(w->e, w->s_small, imm((int)v4r1_ftz_small(w->cfg)));
    } else if (ftz_checked(w))
        w->s_sent = sreg(w->e, "s_sent", 1, 1);
}

/* Fragment b of register set `set` (blocks per set nb). */
static opnd frag(const v4r1_kw *w, opnd regs, int nb, int set, int b)
{
    return sub(regs, (set * nb + b) * w->fmt->entry_regs, w->fmt->entry_regs);
}

/* Blocks of side A (0) or B (1), and its fragment b of register set `set`. */
static int side_blocks(const v4r1_kw *w, int side) { return side ? blocks_n(w) : blocks_m(w); }
static opnd side_frag(const v4r1_kw *w, int side, int set, int b)
{
    return frag(w, side ? w->v_lb : w->v_la, side_blocks(w, side), set, b);
}

/* The fragments of matrix step s (LDS entry rows s*64/INST .. +64/INST-1:
 * one k or one k quad each) into register set `set`. */
static void lds_reads(v4r1_kw *w, int s, int set)
{
    emit *e = w->e;
    const int I = inst(w), K = 64 / I, esz = entry_bytes(w);
    const char *op = w->fmt->entry_regs == 2 ? "ds_read_b64" : "ds_read_b32";
    for (int side = 0; side < 2; side++) {
        opnd addr = side ? at(w->v_brd, s % v4r1_bswz_bases(w->cfg)) : w->v_ard;
        const int row = side ? w->b_len : w->mpb, buf = v4r1_lds_buf(w, side, w->rd_buf);
        for (int b = 0; b < side_blocks(w, side); b++)
            e_ds(e, op, side_frag(w, side, set, b), addr, NOOP, NOOP, buf + (s * K * row + b * I) * esz, 0);
    }
}

/* VCC: the lanes whose fragments of register set `set` hold a small
 * value (v4r1_ftz_check_valu instructions). The packed minimum of each
 * fragment register r (quad elements 2r, 2r + 1) is left in v_x32[r] for
 * the out-of-line test of one element (small_at). */
static void test_small(v4r1_kw *w, int set)
{
    emit *e = w->e;
    const vop3p_mods twice_less_2 = {.op_sel_hi = 1}; /* both halves of src1, src2: the low ones (2, -2) */
    const int R = w->fmt->entry_regs;
    opnd t = at(w->v_x32, R);
    bool first[2] = {true, true};
    for (int side = 0; side < 2; side++)
        for (int b = 0; b < side_blocks(w, side); b++)
            for (int r = 0; r < R; r++) {
                opnd x = at(side_frag(w, side, set, b), r), m = at(w->v_x32, r);
                e_vop3p(e, "v_pk_mad_u16", first[r] ? m : t, x, imm(2), imm(-2), &twice_less_2);
                if (!first[r])
                    e_vop3p(e, "v_pk_min_u16", m, m, t, NOOP, NULL);
                first[r] = false;
            }
    opnd m = at(w->v_x32, 0);
    if (R == 2) {
        e_vop3p(e, "v_pk_min_u16", t, m, at(w->v_x32, 1), NOOP, NULL);
        m = t;
    }
    /* low half: the lesser of the two halves */
    e_vop3p(e, "v_pk_min_u16", t, m, m, NOOP, &(vop3p_mods){.op_sel = 2, .op_sel_hi = 1});
    e_vopc(e, "v_cmp_gt_u16", VCC, sticky(w) ? w->s_small : imm((int)v4r1_ftz_small(w->cfg)), t);
}

/* VCC: the lanes whose element j of the quads test_small just tested is
 * small (from its minima in v_x32). */
static void small_at(v4r1_kw *w, int j)
{
    emit *e = w->e;
    opnd m = at(w->v_x32, j / 2);
    if (j & 1) {
        opnd t = at(w->v_x32, w->fmt->entry_regs);
        e_vop2(e, "v_lshrrev_b32", t, imm(16), m);
        m = t;
    }
    e_vopc(e, "v_cmp_gt_u16", VCC, imm((int)v4r1_ftz_small(w->cfg)), m);
}

/* Quad element j of 16-bit register x (j: 0..3 of its pair) widened to an
 * f32 in d. */
static void widen_element(v4r1_kw *w, opnd d, opnd x, int j)
{
    emit *e = w->e;
    if (!(j & 1))
        h_widen16_to(e, w->dt->id, d, x);
    else if (w->dt->id == IGEMM_BF16) /* the high half: already an f32's top half */
        e_vop2(e, "v_and_b32", d, imm((int)0xffff0000), x);
    else {
        e_vop2(e, "v_lshrrev_b32", d, imm(16), x);
        h_widen16(e, w->dt->id, d);
    }
}

static const mfma_info *f32_mfma(v4r1_kw *w)
{
    const mfma_info *f = mfma_pick(w->e->t, inst(w), inst(w), 64 / inst(w), 1, MFMA_F32);
    if (!f)
        emit_fail(w->e, "no %dx%d f32 MFMA for the exact 16-bit steps on this target", inst(w), inst(w));
    return f;
}

/* The block pairs of register set `set` on the f32 MFMA: quad element j
 * of both fragments widened, one f32 MFMA per j. */
static void exact_step(v4r1_kw *w, int set)
{
    emit *e = w->e;
    const mfma_info *f = f32_mfma(w);
    if (!f)
        return;
    const int cd = cd_regs(w);
    opnd a32 = sub(w->v_x32, 0, 4), b32 = sub(w->v_x32, 4, 4);
    for (int bm = 0; bm < blocks_m(w); bm++)
        for (int bn = 0; bn < blocks_n(w); bn++) {
            opnd a = side_frag(w, 0, set, bm), b = side_frag(w, 1, set, bn);
            for (int j = 0; j < 4; j++) {
                widen_element(w, at(a32, j), at(a, j / 2), j);
                widen_element(w, at(b32, j), at(b, j / 2), j);
            }
            opnd c = sub(w->c_regs, (bm * blocks_n(w) + bn) * cd, cd);
            for (int j = 0; j < 4; j++)
                e_mfma(e, mfma_name(f), c, at(a32, j), at(b32, j), c, 0, 0, 0);
        }
}

/* fp16 (no accumulator ever subnormal, so the 16-bit MFMAs may follow f32
 * ones): only the quad elements j where the wave holds a small value go
 * to the f32 MFMA, one per block pair, after which element j of every
 * fragment of the set is zeroed (both sides: a zero times an Inf of the
 * other would be a NaN) and the step's 16-bit MFMAs, at l_mfma, multiply
 * the rest (unless every element went: then they would multiply zeros,
 * and the step goes on at l_after). A step with one such element (nearly
 * every one that has any) costs one f32 MFMA per block more, not four. */
static void exact_elements(v4r1_kw *w, int set, label l_mfma, label l_after)
{
    emit *e = w->e;
    const mfma_info *f = f32_mfma(w);
    if (!f)
        return;
    const int cd = cd_regs(w), R = w->fmt->entry_regs;
    opnd a32 = at(w->v_x32, R), b32 = at(w->v_x32, R + 1);
    h_smov(e, w->s_sent, imm(0));
    for (int j = 0; j < 2 * R; j++) {
        label l_clean = e_label_new(e, "ftz_clean");
        small_at(w, j);
        e_branch(e, "s_cbranch_vccz", l_clean);
        e_sop2(e, "s_add_u32", w->s_sent, w->s_sent, imm(1));
        for (int bm = 0; bm < blocks_m(w); bm++)
            for (int bn = 0; bn < blocks_n(w); bn++) {
                opnd c = sub(w->c_regs, (bm * blocks_n(w) + bn) * cd, cd);
                widen_element(w, a32, at(side_frag(w, 0, set, bm), j / 2), j);
                widen_element(w, b32, at(side_frag(w, 1, set, bn), j / 2), j);
                e_mfma(e, mfma_name(f), c, a32, b32, c, 0, 0, 0);
            }
        const int keep = j & 1 ? 0x0000ffff : (int)0xffff0000;
        for (int side = 0; side < 2; side++)
            for (int b = 0; b < side_blocks(w, side); b++) {
                opnd x = at(side_frag(w, side, set, b), j / 2);
                e_vop2(e, "v_and_b32", x, imm(keep), x);
            }
        e_label(e, l_clean);
    }
    e_sopc(e, "s_cmp_lt_u32", w->s_sent, imm(2 * R));
    e_branch(e, "s_cbranch_scc1", l_mfma);
    e_branch(e, "s_branch", l_after);
}

/* One K slice's matrix steps; checked: each tests its fragments first
 * and takes the f32 path out of line when they hold a small value (after
 * the slice, which branches over it to *exit, or past it when exit is
 * NULL). */
static void slice_steps(v4r1_kw *w, bool checked, const label *exit)
{
    emit *e = w->e;
    int issues;
    const mfma_info *m = pick(w, &issues);
    if (!m)
        return;
    const char *op = mfma_name(m);
    const int steps = w->kpb / v4r1_mfma_kstep(w->cfg), nreads = blocks_m(w) + blocks_n(w), cd = cd_regs(w);
    label l_exact[64], l_back[64], l_after[64];
    /* sticky types go all f32 once they met a small value */
    const bool by_element = checked && !sticky(w);
    if (checked && steps > 64) {
        emit_fail(e, "%d matrix steps per K slice: more than 64 exact-step branches", steps);
        return;
    }
    lds_reads(w, 0, 0);
    if (w->slice_fill) /* while the first fragments are on their way */
        w->slice_fill(w);
    for (int s = 0; s < steps; s++) {
        int set = s & 1;
        if (s + 1 < steps) {
            lds_reads(w, s + 1, set ^ 1);
            e_waitcnt(e, -1, nreads);
        } else {
            e_waitcnt(e, -1, 0);
        }
        if (checked) {
            l_exact[s] = e_label_new(e, "ftz_exact"), l_back[s] = e_label_new(e, "ftz_fast");
            if (by_element)
                l_after[s] = e_label_new(e, "ftz_after");
            test_small(w, set);
            e_branch(e, "s_cbranch_vccnz", l_exact[s]);
            if (by_element)
                e_label(e, l_back[s]);
        }
        for (int bm = 0; bm < blocks_m(w); bm++)
            for (int bn = 0; bn < blocks_n(w); bn++) {
                opnd c = sub(w->c_regs, (bm * blocks_n(w) + bn) * cd, cd);
                opnd a = side_frag(w, 0, set, bm), b = side_frag(w, 1, set, bn);
                for (int r = 0; r < issues; r++)
                    e_mfma(e, op, c, sub(a, r * m->a_gprs, m->a_gprs), sub(b, r * m->b_gprs, m->b_gprs), c, 0, 0, 0);
            }
        if (checked)
            e_label(e, by_element ? l_after[s] : l_back[s]);
    }
    if (!checked)
        return;
    /* out of line: the steps whose fragments hold a small value, on f32 MFMAs */
    label l_done = exit ? *exit : e_label_new(e, "ftz_slice_done");
    e_branch(e, "s_branch", l_done);
    for (int s = 0; s < steps; s++) {
        e_label(e, l_exact[s]);
        if (by_element) {
            e_comment(e, "matrix step %d has a small 16-bit value: its quad elements on f32 MFMAs", s);
            exact_elements(w, s & 1, l_back[s], l_after[s]);
            continue;
        }
        e_comment(e, "matrix step %d has a small 16-bit value: f32 MFMAs", s);
        exact_step(w, s & 1);
        if (sticky(w)) /* and so has the rest of the walk */
            h_smov(e, w->s_small, imm(0xffff));
        e_branch(e, "s_branch", l_back[s]);
    }
    if (!exit)
        e_label(e, l_done);
}

/* A flush problem (PH_GUARD_FLUSH: fp16 only) needs no test: a static twin
 * knows its problem, the dynamic kernel carries the slice both ways and
 * picks one per slice on the bit. */
static void mfma_slice(v4r1_kw *w)
{
    emit *e = w->e;
    if (!ftz_checked(w)) {
        slice_steps(w, false, NULL);
        return;
    }
    if (w->st || w->dt->id != IGEMM_FP16) {
        slice_steps(w, !(w->st && (w->st->ph[0][PH_GUARD] & PH_GUARD_FLUSH)), NULL);
        return;
    }
    label l_plain = e_label_new(e, "ftz_flush"), l_end = e_label_new(e, "ftz_slice_end");
    e_sopc(e, "s_bitcmp1_b32", sv_op(w->a_guard), imm(log2u(PH_GUARD_FLUSH)));
    e_branch(e, "s_cbranch_scc1", l_plain);
    slice_steps(w, true, &l_end); /* (its out-of-line steps after it) */
    e_label(e, l_plain);
    e_comment(e, "a flush problem: the 16-bit MFMAs as they are");
    slice_steps(w, false, NULL);
    e_label(e, l_end);
}

static void mfma_loop_free(v4r1_kw *w)
{
    rfree(w->e, w->v_la);
    rfree(w->e, w->v_lb);
    rfree(w->e, w->v_ard);
    if (ftz_checked(w))
        rfree(w->e, w->v_x32);
    if (sticky(w))
        rfree(w->e, w->s_small);
    else if (ftz_checked(w))
        rfree(w->e, w->s_sent);
    /* the epilogue reads a row's accumulators into these */
    w->v_out = vreg(w->e, "v_out", blocks_n(w), 1);
}

static int mfma_rows(const v4r1_kw *w) { return blocks_m(w) * cd_regs(w); }
static int mfma_cols(const v4r1_kw *w) { return blocks_n(w); }
static opnd mfma_row_base(v4r1_kw *w) { return w->v_tm4; }

/* the thread's column: n0_wave + l % INST */
static opnd mfma_col_base(v4r1_kw *w)
{
    emit *e = w->e;
    opnd v = at(w->v_brd, 0);
    wave_n0(w, v);
    e_vop2(e, "v_and_b32", at(w->v_t, 0), imm(inst(w) - 1), w->v_tid);
    h_vadd(e, v, v, at(w->v_t, 0));
    return v;
}

static int mfma_row_off(const v4r1_kw *w, int i)
{
    int I = inst(w), b = i / cd_regs(w), g = i % cd_regs(w);
    return b * I + (g / 4) * (4 * 64 / I) + g % 4;
}

static int mfma_col_off(const v4r1_kw *w, int j) { return j * inst(w); }

static void mfma_read_row(v4r1_kw *w, int i, opnd *vals)
{
    int b = i / cd_regs(w), g = i % cd_regs(w);
    for (int j = 0; j < blocks_n(w); j++) {
        vals[j] = at(w->v_out, j);
        e_accvgpr_read(w->e, vals[j], at(w->c_regs, (b * blocks_n(w) + j) * cd_regs(w) + g));
    }
}

static opnd mfma_acc(const v4r1_kw *w, int i, int j, int n) { return sub(w->c_regs, (i / cd_regs(w) * blocks_n(w) + j) * cd_regs(w) + i % cd_regs(w), n); }

static void mfma_release(v4r1_kw *w)
{
    rfree(w->e, w->v_out);
    rfree(w->e, w->v_brd);
    rfree(w->e, w->c_regs);
    rfree(w->e, w->v_tm4);
}

static void mfma_wave_grid(const v4r1_kw *w, v4r1_wave_grid *g)
{
    g->wgm = waves_m(w), g->wgn = w->block / 64 / waves_m(w);
    g->bm = blocks_m(w), g->bn = blocks_n(w), g->inst = inst(w);
    g->wtm = w->mpb / g->wgm, g->wtn = w->npb / g->wgn;
}

const v4r1_math v4r1_math_mfma = {
    .name = "mfma",
    .setup = mfma_setup,
    .late_setup = mfma_late_setup,
    .loop_alloc = mfma_loop_alloc,
    .slice = mfma_slice,
    .loop_free = mfma_loop_free,
    .rows = mfma_rows,
    .cols = mfma_cols,
    .row_base = mfma_row_base,
    .col_base = mfma_col_base,
    .row_off = mfma_row_off,
    .col_off = mfma_col_off,
    .read_row = mfma_read_row,
    .acc = mfma_acc,
    .release = mfma_release,
    .wave_grid = mfma_wave_grid,
};
