/* v4r1 epilogue: the C tile -> dx (NCHW: a row's pixels are contiguous;
 * NHWC: a pixel's channels are; the direct path addresses the rows by the
 * layout's dx_inner: dx_rows, below). A column j is the pixel (image, hi, wi)
 * of tile column n0 + col_base + col_off(j) (hi = htilda * stride_h +
 * iy*dil_h - pad_h, likewise wi); a row is channel m0 + row_base +
 * row_off(i) of the group. Pixels outside dx, columns past gemm_n and rows
 * past C/G are not stored. */
#include "kw.h"

void v4r1_column_consts(v4r1_kw *w, opnd v_ch, opnd v_cw)
{
    emit *e = w->e;
    sv a_sh = V4R1_ARG(w, stride_h), a_sw = V4R1_ARG(w, stride_w);
    sv th = sv_mul(e, "s_th", w->a_htl, a_sh), ch = sv_add(e, "s_ch", th, w->a_hoff);
    h_vmov(e, v_ch, sv_op(ch));
    sv_free(e, ch);
    sv_free(e, th);
    sv tw = sv_mul(e, "s_tw", w->a_wtl, a_sw), cw = sv_add(e, "s_cw", tw, w->a_woff);
    h_vmov(e, v_cw, sv_op(cw));
    sv_free(e, cw);
    sv_free(e, tw);
}

/* Tile column v_n -> its image (v_img) and tilde coordinates (v_q: hts_i,
 * wts_i): the two divisions of v4r1_column_pixel. */
static void column_tilde(v4r1_kw *w, opnd v_n, opnd v_img, opnd v_q, sv hwts)
{
    emit *e = w->e;
    opnd v_r = at(w->v_t, 2), s_t0 = at(w->s_t, 0);
    vx_divmod(e, v_img, v_r, v_n, hwts, w->a_mdiv_hwts, w->a_shift_hwts, s_t0);
    vx_divmod(e, at(v_q, 0), at(v_q, 1), v_r, w->a_wts, w->a_mdiv_wts, w->a_shift_wts, s_t0);
}

/* Tilde coordinates v_t (hts_i, wts_i) -> dx pixel v_q (hi, wi; v_q may be
 * v_t), and VCC = the lanes whose column v_n is below lim and whose pixel is
 * inside dx. */
static void tilde_pixel(v4r1_kw *w, opnd v_q, opnd v_t, opnd v_ch, opnd v_cw, opnd v_n, sv lim)
{
    emit *e = w->e;
    opnd s_t0 = at(w->s_t, 0);
    sv a_sh = V4R1_ARG(w, stride_h), a_sw = V4R1_ARG(w, stride_w);
    /* hi = hts_i * stride_h + (htl * stride_h + hi_off), all below 2^24 */
    vx_mad24(e, at(v_q, 0), at(v_t, 0), a_sh, v_ch, s_t0);
    vx_mad24(e, at(v_q, 1), at(v_t, 1), a_sw, v_cw, s_t0);
    e_vopc(e, "v_cmp_gt_u32", VCC, sv_op(lim), v_n);
    e_vopc(e, "v_cmp_gt_u32", w->s_m, sv_sgpr(e, w->a_hi, at(w->s_t, 1)), at(v_q, 0));
    e_sop2(e, "s_and_b64", VCC, VCC, w->s_m);
    e_vopc(e, "v_cmp_gt_u32", w->s_m, sv_sgpr(e, w->a_wi, at(w->s_t, 1)), at(v_q, 1));
    e_sop2(e, "s_and_b64", VCC, VCC, w->s_m);
}

void v4r1_column_pixel(v4r1_kw *w, opnd v_n, opnd v_img, opnd v_q, sv hwts, opnd v_ch, opnd v_cw)
{
    column_tilde(w, v_n, v_img, v_q, hwts);
    tilde_pixel(w, v_q, v_q, v_ch, v_cw, v_n, w->a_gemm_n);
}

/* The column d (> 0) tile columns past base: image v_img, pixel v_q and
 * VCC as v4r1_column_pixel gives them, without a division (kw.h,
 * v4r1_pixel_offset_step). */
static void column_step(v4r1_kw *w, const v4r1_pixels *p, const v4r1_column *base, int d, opnd v_img, opnd v_q)
{
    emit *e = w->e;
    opnd v_d = at(w->v_t, 2), s_t0 = at(w->s_t, 0);
    sv qh, r1, rh, rw;
    /* (the quotients in scalars as they are needed: SGPRs are short here) */
    sv_divmod(e, "s_step_qh", "s_step_r1", sv_const((uint32_t)d), p->hwts, w->a_mdiv_hwts, w->a_shift_hwts, &qh, &r1);
    h_vadd(e, v_img, sv_op(qh), base->v_img);
    sv_free(e, qh);
    sv_divmod(e, "s_step_rh", "s_step_rw", r1, w->a_wts, w->a_mdiv_wts, w->a_shift_wts, &rh, &rw);
    sv_free(e, r1);
    /* wts_i + rw < 2 wts: at most one carry (s_m) into hts_i */
    h_vadd(e, at(v_q, 1), sv_op(rw), at(base->v_t, 1));
    sv_free(e, rw);
    e_vopc(e, "v_cmp_le_u32", w->s_m, sv_sgpr(e, w->a_wts, s_t0), at(v_q, 1));
    e_vop2(e, "v_subrev_u32", v_d, sv_op(w->a_wts), at(v_q, 1));
    e_cndmask(e, at(v_q, 1), at(v_q, 1), v_d, w->s_m);
    /* hts_i + rh + carry < 2 hts: at most one (VCC) into the image */
    h_vadd(e, at(v_q, 0), sv_op(rh), at(base->v_t, 0));
    sv_free(e, rh);
    e_vop2c(e, "v_addc_co_u32", at(v_q, 0), VCC, imm(0), at(v_q, 0), w->s_m);
    e_vopc(e, "v_cmp_le_u32", VCC, sv_sgpr(e, w->a_hts, s_t0), at(v_q, 0));
    e_vop2(e, "v_subrev_u32", v_d, sv_op(w->a_hts), at(v_q, 0));
    e_cndmask(e, at(v_q, 0), at(v_q, 0), v_d, VCC);
    e_vop2c(e, "v_addc_co_u32", v_img, VCC, imm(0), v_img, VCC);
    /* column n + d below gemm_n: n below gemm_n - d (0 where d is more) */
    sv lim;
    if (w->a_gemm_n.known) {
        lim = sv_const(w->a_gemm_n.k > (uint32_t)d ? w->a_gemm_n.k - (uint32_t)d : 0);
    } else {
        lim = sv_reg(sreg(e, "s_step_lim", 1, 1));
        e_sop2(e, "s_sub_u32", lim.r, w->a_gemm_n.r, imm(d));
        e_sop2(e, "s_cselect_b32", lim.r, imm(0), lim.r);
    }
    tilde_pixel(w, v_q, v_q, p->v_ch, p->v_cw, base->v_n, lim);
    if (!lim.known)
        rfree(e, lim.r);
}

void v4r1_pixels_begin(v4r1_kw *w, v4r1_pixels *p, sv hiwi_bytes)
{
    p->chiwi_bytes = sv_mul(w->e, "s_chiwi_bytes", w->a_c, hiwi_bytes);
    p->hwts = sv_mul(w->e, "s_hwts", w->a_hts, w->a_wts);
}

opnd v4r1_pixels_consts(v4r1_kw *w, v4r1_pixels *p, opnd v_row0)
{
    emit *e = w->e;
    opnd s_t0 = at(w->s_t, 0), v_rowoff = NOOP;
    if (v_row0.kind != OPK_NONE)
        v_rowoff = vreg(e, "v_rowoff", 1, 1);
    p->v_ch = vreg(e, "v_ch", 1, 1), p->v_cw = vreg(e, "v_cw", 1, 1);
    if (v_row0.kind != OPK_NONE)
        vx_mul(e, v_rowoff, v_row0, w->c_rowstride, s_t0);
    v4r1_column_consts(w, p->v_ch, p->v_cw);
    return v_rowoff;
}

/* off = the offset of pixel v_q (hi, wi) of image v_img (VCC: valid) */
static void offset_of(v4r1_kw *w, const v4r1_pixels *p, opnd off, opnd v_img, opnd v_q, opnd v_rowoff)
{
    emit *e = w->e;
    opnd s_t0 = at(w->s_t, 0);
    /* off = image*c*hi*wi*4 + (hi*wi_ + wi)*pixel stride + row_base*row stride */
    vx_mad24(e, at(v_q, 0), at(v_q, 0), w->a_wi, at(v_q, 1), s_t0);
    vx_mul(e, at(v_q, 0), at(v_q, 0), w->c_pix, s_t0);
    vx_mul(e, off, v_img, p->chiwi_bytes, s_t0);
    h_vadd(e, off, off, at(v_q, 0));
    if (v_rowoff.kind != OPK_NONE)
        h_vadd(e, off, off, v_rowoff);
    e_cndmask(e, off, w->v_inv, off, VCC);
}

void v4r1_pixel_offset(v4r1_kw *w, const v4r1_pixels *p, opnd off, opnd v_n, opnd v_q, opnd v_rowoff)
{
    opnd v_img = at(w->v_t, 1);
    v4r1_column_pixel(w, v_n, v_img, v_q, p->hwts, p->v_ch, p->v_cw);
    offset_of(w, p, off, v_img, v_q, v_rowoff);
}

void v4r1_pixel_offset_base(v4r1_kw *w, const v4r1_pixels *p, opnd off, const v4r1_column *base, opnd v_q)
{
    column_tilde(w, base->v_n, base->v_img, base->v_t, p->hwts);
    tilde_pixel(w, v_q, base->v_t, p->v_ch, p->v_cw, base->v_n, w->a_gemm_n);
    offset_of(w, p, off, base->v_img, v_q, NOOP);
}

void v4r1_pixel_offset_step(v4r1_kw *w, const v4r1_pixels *p, opnd off, const v4r1_column *base, int d, opnd v_q)
{
    opnd v_img = at(w->v_t, 1);
    column_step(w, p, base, d, v_img, v_q);
    offset_of(w, p, off, v_img, v_q, NOOP);
}

void v4r1_pixels_end(v4r1_kw *w, v4r1_pixels *p)
{
    rfree(w->e, p->v_ch);
    rfree(w->e, p->v_cw);
    sv_free(w->e, p->hwts);
    sv_free(w->e, p->chiwi_bytes);
}

/* Per column j of the thread: its dx offset without the row, or the
 * invalid offset. */
static void column_offsets(v4r1_kw *w, opnd v_coff, opnd v_q, sv hiwi_bytes, opnd v_row0)
{
    emit *e = w->e;
    const v4r1_math *m = w->math;
    opnd v_n = at(w->v_t, 0);
    v4r1_pixels p;
    v4r1_pixels_begin(w, &p, hiwi_bytes);
    opnd v_col0 = m->col_base(w);
    opnd v_rowoff = v4r1_pixels_consts(w, &p, v_row0);
    for (int j = 0; j < m->cols(w); j++) {
        h_vadd(e, v_n, imm(m->col_off(w, j)), v_col0);
        h_vadd(e, v_n, sv_op(w->n0), v_n);
        v4r1_pixel_offset(w, &p, at(v_coff, j), v_n, v_q, v_rowoff);
    }
    rfree(e, v_rowoff);
    v4r1_pixels_end(w, &p);
}

/* fp32 accumulator v to the tensors' 16-bit type in its low half
 * (h_narrow16). */
static void narrow(v4r1_kw *w, opnd v, opnd v_tmp, opnd v_nan) { h_narrow16(w->e, w->dt->id, v, v_tmp, v_nan, w->s_m); }

/* What the stores of the C tile share: dx's buffer resource (its
 * dx_rows: NCHW's base moves per row from s_dxbase; NHWC's
 * stays at the tile's first channel, s_dxbase its words 0-1, and a row is
 * the stores' immediate offset), the exec save pair, rows left in the
 * group from the tile's first row (mlim = C/G - m0), and the 16-bit
 * rounding's registers. */
typedef struct {
    opnd v_coff, v_row0, s_rsc, s_dxbase, s_save, v_tmp, v_nan;
    opnd s_cvec, s_rmask; /* NCHW column vectors (column_vectors), or NOOP */
    sv mlim;
} store_ctx;

/* How the direct path addresses the tile's rows (channels) in dx, by the
 * layout's dx_inner (rows_each, rows_grouped below). */
typedef struct {
    const char *name;
    /* where the tile's dx base goes (v4r1_dx_base): a register pair it
       allocates, or words 0-1 of the stores' resource x->s_rsc */
    opnd (*base)(v4r1_kw *w, const store_ctx *x);
    /* before the stores of tile row `row`: emits what moves the resource
       there, and returns the stores' immediate offset */
    int (*row_address)(v4r1_kw *w, const store_ctx *x, int row);
    /* every row of the thread (rows kept contiguous as vectors where dx
       runs along M) */
    void (*store)(v4r1_kw *w, const store_ctx *x);
} dx_rows;
static const dx_rows *dx_rows_of(const v4r1_kw *w);


/* Registers r .. r+3 of one file, consecutive, as one range (NOOP where
 * they are not, or not 64-bit aligned: gfx90a+ memory data must be) */
static opnd consecutive4(const opnd *r)
{
    for (int k = 1; k < 4; k++)
        if (r[k].kind != r[0].kind || r[k].index != r[0].index + k)
            return NOOP;
    if (r[0].kind != OPK_VGPR || r[0].index % 2)
        return NOOP;
    opnd g = r[0];
    g.count = 4;
    return g;
}

/* NCHW fp32: whether the math hands out its columns in groups of 4
 * consecutive tile columns (FMA: a thread's 4 columns of each group) */
static bool column_groups(v4r1_kw *w)
{
    const v4r1_math *m = w->math;
    if (w->lay->dx_inner != V4R1_DIM_N || w->dt->bytes != 4 || m->cols(w) % 4)
        return false;
    for (int j = 0; j < m->cols(w); j++)
        if (m->col_off(w, j) != m->col_off(w, j - j % 4) + j % 4)
            return false;
    return true;
}

/* NCHW fp32 with column groups: per group g of 4 columns, the lanes whose 4
 * pixels are 4 consecutive dx elements of a channel, all inside dx (the
 * first and the last offset valid, the others 4, 8 and 12 bytes on): they
 * store a row's group with one buffer_store_dwordx4, so consecutive lanes
 * (FMA NCHW: along N) write consecutive 16-byte pieces of a row of dx.
 * Masks in s_cvec (an SGPR pair per group), or NOOP. */
static opnd column_vectors(v4r1_kw *w, opnd v_coff)
{
    emit *e = w->e;
    if (!column_groups(w))
        return NOOP;
    int groups = w->math->cols(w) / 4;
    opnd s_cv = sreg(e, "s_cvec", 2 * groups, 2), v_d = at(w->v_t, 0);
    e_comment(e, "column vectors: lanes whose 4 pixels of a group are consecutive in dx");
    for (int g = 0; g < groups; g++) {
        opnd mk = sub(s_cv, 2 * g, 2), o = at(v_coff, 4 * g);
        e_vopc(e, "v_cmp_gt_u32", mk, w->v_inv, o);
        e_vopc(e, "v_cmp_gt_u32", w->s_m, w->v_inv, at(v_coff, 4 * g + 3));
        e_sop2(e, "s_and_b64", mk, mk, w->s_m);
        for (int k = 1; k < 4; k++) {
            h_vsub(e, v_d, at(v_coff, 4 * g + k), o);
            e_vopc(e, "v_cmp_eq_u32", w->s_m, imm(4 * k), v_d);
            e_sop2(e, "s_and_b64", mk, mk, w->s_m);
        }
    }
    return s_cv;
}

/* NCHW with column vectors, row i's values (exec: the row's lanes; off:
 * the stores' immediate offset, dx_rows's row_address): per
 * group, the lanes of its mask as one vector, the others element by
 * element; each part skipped by a scalar branch where no lane has it. */
static void store_row_vectors(v4r1_kw *w, const store_ctx *x, const opnd *vals, int off)
{
    emit *e = w->e;
    h_smov(e, x->s_rmask, EXEC);
    for (int g = 0; g < w->math->cols(w) / 4; g++) {
        opnd v4 = consecutive4(vals + 4 * g), mk = sub(x->s_cvec, 2 * g, 2);
        label l_vec = e_label_new(e, "cvec_done"), l_el = e_label_new(e, "celem_done");
        if (v4.kind != OPK_NONE) {
            e_sop2(e, "s_and_b64", EXEC, x->s_rmask, mk);
            e_branch(e, "s_cbranch_scc0", l_vec);
            e_mubuf(e, "buffer_store_dwordx4", v4, at(x->v_coff, 4 * g), x->s_rsc, imm(0), off);
            e_label(e, l_vec);
            e_sop2(e, "s_andn2_b64", EXEC, x->s_rmask, mk);
            e_branch(e, "s_cbranch_scc0", l_el);
        } else {
            h_smov(e, EXEC, x->s_rmask);
        }
        for (int k = 0; k < 4; k++)
            e_mubuf(e, "buffer_store_dword", vals[4 * g + k], at(x->v_coff, 4 * g + k), x->s_rsc, imm(0), off);
        e_label(e, l_el);
    }
}

/* Row i under an exec mask of the lanes whose row is inside C/G, less the
 * lanes of s_not where it is a register (NHWC: those stored by a vector). */
static void store_row(v4r1_kw *w, const store_ctx *x, int i, opnd s_not)
{
    emit *e = w->e;
    const v4r1_math *m = w->math;
    opnd s_t = w->s_t;
    const bool half = w->dt->bytes == 2;
    int row = m->row_off(w, i);
    label l_skip = e_label_new(e, "row_done");
    e_sop2(e, "s_sub_u32", at(s_t, 0), sv_op(x->mlim), imm(row));
    e_vopc(e, "v_cmp_gt_i32", VCC, at(s_t, 0), x->v_row0);
    if (s_not.kind == OPK_SGPR)
        e_sop2(e, "s_andn2_b64", VCC, VCC, s_not);
    e_sop1(e, "s_and_saveexec_b64", x->s_save, VCC);
    e_branch(e, "s_cbranch_execz", l_skip);
    int off = dx_rows_of(w)->row_address(w, x, row);
    opnd vals[V4R1_MAX_COLS];
    m->read_row(w, i, vals);
    if (x->s_cvec.kind == OPK_SGPR) {
        store_row_vectors(w, x, vals, off);
        e_label(e, l_skip);
        h_smov(e, EXEC, x->s_save);
        return;
    }
    for (int j = 0; j < m->cols(w); j++) {
        if (half)
            narrow(w, vals[j], x->v_tmp, x->v_nan);
        e_mubuf(e, half ? "buffer_store_short" : "buffer_store_dword", vals[j], at(x->v_coff, j), x->s_rsc, imm(0),
                off);
    }
    e_label(e, l_skip);
    h_smov(e, EXEC, x->s_save);
}

/* A 64-bit aligned range of VGPRs (the only kind a gfx90a+ memory
 * operation takes as data) */
static bool vgpr_tuple(opnd r) { return r.kind == OPK_VGPR && r.index % 2 == 0; }

/* The 4 accumulators of rows i..i+3 (i % 4 == 0), column j, as 4
 * consecutive VGPRs: where they live when the math keeps them so, else
 * read (AGPRs) or copied into v_vec. */
static opnd group_regs(v4r1_kw *w, int i, int j, opnd v_vec)
{
    emit *e = w->e;
    opnd g = w->math->acc(w, i, j, 4);
    if (vgpr_tuple(g))
        return g;
    for (int r = 0; r < 4; r++) {
        opnd a = w->math->acc(w, i + r, j, 1);
        if (a.kind == OPK_AGPR)
            e_accvgpr_read(e, at(v_vec, r), a);
        else
            h_vmov(e, at(v_vec, r), a);
    }
    return v_vec;
}

/* NHWC: rows i..i+3 of every column as one store where all four are
 * inside C/G (lanes with row + 3 < vlim: vlim = mlim - 3, or below every
 * row when the shape's alignment refuses vectors), then the lanes left
 * with some of the four inside C/G element by element. fp32: one
 * buffer_store_dwordx4; 16-bit: the four rounded to nearest even, packed
 * in pairs (h_narrow16x2, its constants in s_k) into the first two
 * registers, one buffer_store_dwordx2. */
static void store_group(v4r1_kw *w, const store_ctx *x, int i, opnd s_vlim, opnd s_full, opnd s_k, opnd v_vec)
{
    emit *e = w->e;
    const v4r1_math *m = w->math;
    const bool half = w->dt->bytes == 2;
    int row = m->row_off(w, i);
    label l_vec = e_label_new(e, "vec_done"), l_group = e_label_new(e, "group_done");
    e_sop2(e, "s_sub_u32", at(w->s_t, 0), s_vlim, imm(row));
    e_vopc(e, "v_cmp_gt_i32", s_full, at(w->s_t, 0), x->v_row0);
    e_sop1(e, "s_and_saveexec_b64", x->s_save, s_full);
    e_branch(e, "s_cbranch_execz", l_vec);
    int off = dx_rows_of(w)->row_address(w, x, row);
    for (int j = 0; j < m->cols(w); j++) {
        opnd t = group_regs(w, i, j, v_vec);
        if (half)
            for (int r = 0; r < 2; r++)
                h_narrow16x2(e, w->dt->id, at(t, r), at(t, 2 * r), at(t, 2 * r + 1), x->v_tmp, x->v_nan, w->s_m,
                             s_k);
        e_mubuf(e, half ? "buffer_store_dwordx2" : "buffer_store_dwordx4", half ? sub(t, 0, 2) : t,
                at(x->v_coff, j), x->s_rsc, imm(0), off);
    }
    e_label(e, l_vec);
    h_smov(e, EXEC, x->s_save);
    /* the tail: lanes whose first row is inside C/G but not all four (at
       most 3 rows where vectors are never refused: fp32) */
    e_sop2(e, "s_sub_u32", at(w->s_t, 0), sv_op(x->mlim), imm(row));
    e_vopc(e, "v_cmp_gt_i32", VCC, at(w->s_t, 0), x->v_row0);
    e_sop2(e, "s_andn2_b64", VCC, VCC, s_full);
    e_branch(e, "s_cbranch_scc0", l_group);
    for (int r = 0; r < (half ? V4R1_ROW_GROUP : V4R1_ROW_GROUP - 1); r++)
        store_row(w, x, i + r, s_full);
    e_label(e, l_group);
}

/* The rows handed out in groups of 4 consecutive rows (kw.h): refuse a
 * math strategy that breaks it. */
static bool rows_in_groups(v4r1_kw *w)
{
    const v4r1_math *m = w->math;
    bool ok = m->rows(w) % V4R1_ROW_GROUP == 0;
    for (int i = 0; ok && i < m->rows(w); i++)
        ok = m->row_off(w, i) == m->row_off(w, i - i % V4R1_ROW_GROUP) + i % V4R1_ROW_GROUP &&
             m->row_off(w, i - i % V4R1_ROW_GROUP) % V4R1_ROW_GROUP == 0;
    if (!ok)
        emit_fail(w->e, "math strategy %s: rows not in groups of %d consecutive rows", m->name, V4R1_ROW_GROUP);
    return ok;
}

/* A vector limit below every row: no lane stores vectors (a literal:
 * v_cmp's signed compare of NO_VECTOR - row with row_base stays false). */
#define NO_VECTOR (-0x40000000)

/* NHWC: the vector limit (C/G - m0 - 3, or a value below every row when
 * 16-bit vectors would be misaligned), the selector of the 16-bit packing
 * and the group by group stores. Alignment: the emulator faults a
 * multi-dword buffer access whose dwords are not 4-byte aligned (gfx9's
 * DWORD alignment mode; an unaligned-access mode would ask less), fp32 elements
 * always are; 4 halves at channel g*C/G + 4k of a pixel start at a dword
 * when C/G is even (then C is too) and dx's pointer is 4-byte aligned. */
static void store_groups(v4r1_kw *w, const store_ctx *x)
{
    emit *e = w->e;
    const v4r1_math *m = w->math;
    if (!rows_in_groups(w))
        return;
    const bool half = w->dt->bytes == 2;
    if (half && w->a_cg.known && w->a_cg.k % 2) { /* a static twin of odd C/G: no vectors */
        for (int i = 0; i < m->rows(w); i++)
            store_row(w, x, i, NOOP);
        return;
    }
    e_scope_begin(e, "store_groups"); /* its registers, released at its end */
    opnd s_vlim = sreg(e, "s_vlim", 1, 1), s_full = sreg(e, "s_full", 2, 2), s_k = NOOP, v_vec = NOOP;
    e_sop2(e, "s_sub_u32", s_vlim, sv_op(x->mlim), imm(V4R1_ROW_GROUP - 1));
    if (half) {
        /* SCC: dx's pointer or C/G breaks the alignment */
        e_sop2(e, "s_and_b32", at(w->s_t, 0), at(w->p_dx, 0), imm(3));
        if (!w->a_cg.known) {
            e_sop2(e, "s_and_b32", at(w->s_t, 1), w->a_cg.r, imm(1));
            e_sop2(e, "s_or_b32", at(w->s_t, 0), at(w->s_t, 0), at(w->s_t, 1));
        }
        e_sop2(e, "s_cselect_b32", s_vlim, imm(NO_VECTOR), s_vlim);
        s_k = sreg(e, "s_k16", 2, 2);
        h_narrow16x2_consts(e, w->dt->id, s_k);
    }
    if (!vgpr_tuple(m->acc(w, 0, 0, V4R1_ROW_GROUP)))
        v_vec = vreg(e, "v_vec", V4R1_ROW_GROUP, 2);
    for (int i = 0; i < m->rows(w); i += V4R1_ROW_GROUP)
        store_group(w, x, i, s_vlim, s_full, s_k, v_vec);
    e_scope_end(e, "store_groups", true);
}

/* The thread's rows as the layout stores them (dx_rows: NCHW row by
 * row, NHWC in groups of 4 rows). */
static void store_rows(v4r1_kw *w, opnd v_coff, opnd v_row0)
{
    emit *e = w->e;
    e_scope_begin(e, "store_rows"); /* x's registers, released at its end */
    store_ctx x = {.v_coff = v_coff, .v_row0 = v_row0, .v_tmp = NOOP, .v_nan = NOOP, .s_dxbase = NOOP,
                   .s_cvec = column_vectors(w, v_coff), .s_rmask = NOOP};
    if (x.s_cvec.kind == OPK_SGPR)
        x.s_rmask = sreg(e, "s_rmask", 2, 2);
    if (w->dt->id == IGEMM_BF16) {
        x.v_tmp = vreg(e, "v_round", 1, 1);
        x.v_nan = vreg(e, "v_qnan", 1, 1);
        h_narrow16_nan(e, w->dt->id, x.v_nan);
    }
    x.s_rsc = sreg(e, "s_rsc", 4, 4);
    x.s_dxbase = dx_rows_of(w)->base(w, &x);
    x.s_save = sreg(e, "s_save", 2, 2);
    v4r1_rsrc_words(e, x.s_rsc, V4R1_OPEN_RECORDS);
    v4r1_dx_base(w, x.s_dxbase);
    x.mlim = sv_sub(e, "s_mlim2", w->a_cg, w->m0);
    dx_rows_of(w)->store(w, &x);
    e_scope_end(e, "store_rows", true);
}

/* NCHW: a row (channel) of dx at a time; the resource's base moves to the
 * row from the tile's, s_dxbase, before its stores. */
static opnd rows_each_base(v4r1_kw *w, const store_ctx *x)
{
    (void)x;
    return sreg(w->e, "s_dxbase", 2, 2);
}

static int rows_each_address(v4r1_kw *w, const store_ctx *x, int row)
{
    emit *e = w->e;
    opnd s_t = w->s_t;
    if (w->c_rowstride.known) /* a static twin: one literal, not two */
        h_smov(e, at(s_t, 1), imm((int64_t)(w->c_rowstride.k * (uint32_t)row)));
    else
        e_sop2(e, "s_mul_i32", at(s_t, 1), sv_op(w->c_rowstride), imm(row));
    e_sop2(e, "s_add_u32", at(x->s_rsc, 0), at(x->s_dxbase, 0), at(s_t, 1));
    e_sop2(e, "s_addc_u32", at(x->s_rsc, 1), at(x->s_dxbase, 1), imm(0));
    return 0;
}

static void rows_each_store(v4r1_kw *w, const store_ctx *x)
{
    for (int i = 0; i < w->math->rows(w); i++)
        store_row(w, x, i, NOOP);
}

static const dx_rows rows_each = {
    .name = "each", .base = rows_each_base, .row_address = rows_each_address, .store = rows_each_store};

/* NHWC: the resource stays at the tile's first channel (the base is its
 * words 0-1) and a row is the stores' immediate offset; rows in groups of
 * 4 as vectors (store_groups). */
static opnd rows_grouped_base(v4r1_kw *w, const store_ctx *x)
{
    (void)w;
    return sub(x->s_rsc, 0, 2);
}

static int rows_grouped_address(v4r1_kw *w, const store_ctx *x, int row)
{
    (void)x;
    if (!w->c_rowstride.known) { /* the layout's dx strides put channels a known distance apart */
        emit_fail(w->e, "dx rows grouped: the channel stride is not a constant");
        return 0;
    }
    return row * (int)w->c_rowstride.k;
}

static void rows_grouped_store(v4r1_kw *w, const store_ctx *x) { store_groups(w, x); }

static const dx_rows rows_grouped = {
    .name = "grouped", .base = rows_grouped_base, .row_address = rows_grouped_address, .store = rows_grouped_store};

/* grouped where dx runs along M (the channels of a pixel contiguous), each elsewhere */
static const dx_rows *dx_rows_of(const v4r1_kw *w)
{
    return w->lay->dx_inner == V4R1_DIM_M ? &rows_grouped : &rows_each;
}

void v4r1_dx_base(v4r1_kw *w, opnd dst)
{
    emit *e = w->e;
    sv gcg = sv_mul(e, "s_gcg", w->g, w->a_cg);
    sv cm0 = sv_add(e, "s_cm0", gcg, w->m0);
    sv dxo = sv_mul(e, "s_dxo", cm0, w->c_rowstride);
    v4r1_ptr_add(e, dst, w->p_dx, dxo);
    sv_free(e, dxo);
    sv_free(e, cm0);
    sv_free(e, gcg);
}

static bool direct_takes(const v4r1_kw *w)
{
    (void)w;
    return true;
}

static void direct_store(v4r1_kw *w)
{
    emit *e = w->e;
    e_comment(e, "store: column j -> (image, hi, wi); row -> channel; pixels outside dx or past gemm_n are skipped");
    opnd v_coff = vreg(e, "v_coff", w->math->cols(w), 1);
    opnd v_q = vreg(e, "v_q2", 2, 1); /* scratch of the column decode */
    sv hiwi = sv_mul(e, "s_hiwi", w->a_hi, w->a_wi);
    sv hiwi_bytes = sv_shl(e, "s_hiwi_bytes", hiwi, w->dt->log2_bytes);
    w->lay->dx_strides(w, hiwi_bytes);
    opnd v_row0 = w->math->row_base(w);
    column_offsets(w, v_coff, v_q, hiwi_bytes, v_row0);
    rfree(e, v_q);
    store_rows(w, v_coff, v_row0);
    sv_free(e, w->c_pix);
    sv_free(e, hiwi_bytes);
    sv_free(e, hiwi);
    rfree(e, v_coff);
}

const v4r1_dx_path v4r1_dx_direct = {.name = "direct", .takes = direct_takes, .hands_on = NULL, .store = direct_store};

void v4r1_epilogue(v4r1_kw *w)
{
    emit *e = w->e;
    const v4r1_dx_path *paths[] = {&v4r1_dx_lds, &v4r1_dx_direct};
    const size_t npaths = sizeof paths / sizeof paths[0];
    for (size_t i = 0; i < npaths; i++) {
        if (!paths[i]->takes(w))
            continue;
        if (!paths[i]->hands_on || i + 1 == npaths) {
            paths[i]->store(w);
            break;
        }
        /* this path, or at run time the last one (it takes every tile) */
        label l_next = e_label_new(e, "dx_next_path"), l_end = e_label_new(e, "dx_stored");
        bool may_branch = paths[i]->hands_on(w, l_next);
        paths[i]->store(w);
        if (!may_branch)
            break;
        e_branch(e, "s_branch", l_end);
        e_label(e, l_next);
        paths[npaths - 1]->store(w);
        e_label(e, l_end);
        break;
    }
    w->math->release(w);
    opnd staged[] = {w->v_bht, w->v_bwt, w->v_t, w->v_inv};
    for (size_t i = 0; i < sizeof staged / sizeof staged[0]; i++)
        rfree(e, staged[i]);
    /* release the remaining scalar values and registers */
    sv rest[] = {w->m0, w->n0, w->g};
    for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++)
        sv_free(e, rest[i]);
    opnd regs[] = {w->s_m, w->s_t, w->s_args, w->v_tid, w->s_bx, w->s_ka};
    for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++)
        rfree(e, regs[i]);
}
