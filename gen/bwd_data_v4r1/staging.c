/* v4r1 staging: global memory -> registers -> LDS.
 *
 * GEMM K is walked tap by tap: for each (ydot, xdot), ceil(Kg / KPB) steps
 * of KPB channels k. Every thread of a workgroup shares (ydot, xdot) and
 * the channel block, so the walk is scalar: the buffer resources' base
 * addresses move, the per-thread offsets stay. Only a tap change recomputes
 * which dy elements are inside dy (a few VALU ops per element); only the
 * last channel block of a tap, when K/G is not a multiple of KPB, masks
 * rows (A by shrinking NUM_RECORDS, B by a scalar-branched masked load). */
#include "kw.h"

void v4r1_row_mul(v4r1_kw *w, opnd dst, opnd v, int len)
{
    if (is_pow2((uint32_t)len))
        e_vop2(w->e, "v_lshlrev_b32", dst, imm(log2u((uint32_t)len)), v);
    else
        e_vop2(w->e, "v_mul_u32_u24", dst, imm(len), v);
}

/* The LDS byte address of tile element (kk, m), kk a multiple of the
 * format's kpack, in a tile of rows of len entries: (kk*len + m*kpack) *
 * the bytes of one element (kw.h, v4r1_lds_format). */
static void lds_address(v4r1_kw *w, opnd dst, opnd v_kk, opnd v_m, int len, int base)
{
    emit *e = w->e;
    const int kpack = w->fmt->kpack;
    v4r1_row_mul(w, dst, v_kk, len);
    if (kpack > 1)
        e_vop3(e, "v_lshl_add_u32", dst, v_m, imm(log2u((uint32_t)kpack)), dst);
    else
        h_vadd(e, dst, dst, v_m);
    e_vop2(e, "v_lshlrev_b32", dst, imm(log2u((uint32_t)(w->fmt->entry_bytes / kpack))), dst);
    if (base)
        h_vadd(e, dst, imm(base), dst);
}

/* v *= kpack: a thread's first tile row from the index of its first
 * entry row */
static void entry_rows(v4r1_kw *w, opnd v)
{
    if (w->fmt->kpack > 1)
        e_vop2(w->e, "v_lshlrev_b32", v, imm(log2u((uint32_t)w->fmt->kpack)), v);
}

/* A (w) loads: thread -> (kk_a, m_a), vector i at kk_a + i*DKA (k quads:
 * kk_a = 4 * (tid / (MPB/WA)), DKA = 1). */
static void a_offsets(v4r1_kw *w)
{
    emit *e = w->e;
    const int MPB = w->mpb, WA = w->wa, VA = w->va;
    e_comment(e, "A loads: m_a = (tid %% %d) * %d, kk_a = tid / %d, element j at m_a + %d j; byte offset %s, 0x%x past "
              "cg", MPB / WA, w->sa == 1 ? WA : 1, MPB / WA, w->sa,
              w->lay->a_offset_note,
              V4R1_INVALID_OFFSET);
    w->v_aoff = vreg(e, "v_aoff", VA * WA, 1);
    opnd v_ma = at(w->v_t, 0), v_kka = at(w->v_t, 1);
    e_vop2(e, "v_and_b32", v_ma, imm(MPB / WA - 1), w->v_tid);
    if (w->sa == 1)
        e_vop2(e, "v_lshlrev_b32", v_ma, imm(log2u((uint32_t)WA)), v_ma);
    e_vop2(e, "v_lshrrev_b32", v_kka, imm(log2u((uint32_t)(MPB / WA))), w->v_tid);
    entry_rows(w, v_kka);
    /* base = kk_a*cg*y*x*4 + m_a*mstride; element (i, j) adds j*mstride +
       i*DKA*cg*y*x*4 */
    sv mlim = sv_sub(e, "s_mlim", w->a_cg, w->m0);
    opnd v_abase = at(w->v_t, 3);
    /* rows cg*y*x elements apart in every w layout; m by the layout's
       stride (NCHW's w: y*x elements, or one in its K, Y, X, C/G copy) */
    vx_mul(e, v_abase, v_kka, w->w_sk, at(w->s_t, 0));
    vx_mul(e, at(w->v_t, 2), v_ma, w->a_mstride, at(w->s_t, 0));
    h_vadd(e, v_abase, v_abase, at(w->v_t, 2));
    for (int i = 0; i < VA; i++) {
        sv di = sv_mul(e, "s_di", w->w_sk, sv_const((uint32_t)(i * w->dka)));
        for (int j = 0; j < WA; j++) {
            opnd off = at(w->v_aoff, i * WA + j);
            sv dj = sv_mul(e, "s_dj", w->a_mstride, sv_const((uint32_t)(j * w->sa)));
            sv dij = sv_add(e, "s_dij", dj, di);
            h_vadd(e, off, sv_op(dij), v_abase);
            sv_free(e, dij);
            sv_free(e, dj);
            h_vadd(e, at(w->v_t, 2), imm(j * w->sa), v_ma);
            e_vopc(e, "v_cmp_gt_u32", VCC, sv_op(mlim), at(w->v_t, 2));
            e_cndmask(e, off, w->v_inv, off, VCC);
        }
        sv_free(e, di);
    }
    sv_free(e, mlim);
    w->v_awr = vreg(e, "v_awr", 1, 1); /* LDS write address of vector 0 */
    lds_address(w, w->v_awr, v_kka, v_ma, MPB, w->a_lds);
}

/* The pixel path's mapping: n_b = (tid % (NPB/WB)) * WB (NCHW: tid %
 * (NPB/WB), its WB columns NPB/WB apart), kk_b = tid / (NPB/WB) (k quads:
 * times 4). */
static void pixels_map(v4r1_kw *w, opnd v_nb)
{
    emit *e = w->e;
    const int NPB = w->npb, WB = w->wb;
    e_comment(e, "B loads: n_b = (tid %% %d) * %d, kk_b = tid / %d, element j at n_b + %d j", NPB / WB,
              w->sb == 1 ? WB : 1, NPB / WB, w->sb);
    e_vop2(e, "v_and_b32", v_nb, imm(NPB / WB - 1), w->v_tid);
    if (w->sb == 1)
        e_vop2(e, "v_lshlrev_b32", v_nb, imm(log2u((uint32_t)WB)), v_nb);
    e_vop2(e, "v_lshrrev_b32", w->v_bkk, imm(log2u((uint32_t)(NPB / WB))), w->v_tid);
    entry_rows(w, w->v_bkk);
}

/* The LDS column of B's column v_nb (into tmp): v_nb, or on the
 * swizzled channel path v_nb ^ v4r1_bswz_xor of the thread's first entry
 * row, bswz * (kk_b / WB) (its vectors' other rows share the lane's XOR;
 * the columns j*sb further on keep it: sb is a multiple of the XOR's
 * span, conv/v4r1_config.c derive_channels) */
static opnd b_swizzled(v4r1_kw *w, opnd v_nb, opnd tmp)
{
    if (!w->cfg->bswz)
        return v_nb;
    emit *e = w->e;
    /* kk_b / WB: the lane's entry rows over R, less than Q */
    if (w->wb != v4r1_bswz_rows(w->cfg) * w->fmt->kpack)
        emit_fail(e, "B swizzle: %d channels a vector, %d entry rows", w->wb, v4r1_bswz_rows(w->cfg));
    e_comment(e, "B's LDS column swizzled: n_b ^ %d * (kk_b / %d)", w->cfg->bswz, w->wb);
    e_vop2(e, "v_lshrrev_b32", tmp, imm(log2u((uint32_t)w->wb)), w->v_bkk);
    e_vop2(e, "v_lshlrev_b32", tmp, imm(log2u((uint32_t)w->cfg->bswz)), tmp);
    e_vop2(e, "v_xor_b32", tmp, tmp, v_nb);
    return tmp;
}

/* B (dy) loads: thread -> (kk_b, n_b) by the data path; column j of the
 * thread is n0 + n_b + j*sb, the same for every vector: its (htilda,
 * wtilda) and the offset of row kk_b + i*DKB (vector i) before the tap's
 * shift. */
static void b_offsets(v4r1_kw *w)
{
    emit *e = w->e;
    const int WB = w->b_cols, VB = w->b_vecs;
    w->v_bht = vreg(e, "v_bht", WB, 1), w->v_bwt = vreg(e, "v_bwt", WB, 1);
    w->v_bpre = vreg(e, "v_bpre", VB * WB, 1), w->v_boff = vreg(e, "v_boff", VB * WB, 1);
    w->v_bkk = vreg(e, "v_bkk", 1, 1);
    opnd v_nb = at(w->v_t, 0);
    w->bp->map(w, v_nb);
    w->v_bwr = vreg(e, "v_bwr", 1, 1);
    lds_address(w, w->v_bwr, w->v_bkk, b_swizzled(w, v_nb, at(w->v_t, 1)), w->b_len, w->b_lds);

    opnd v_n = at(w->v_t, 1), v_img = at(w->v_t, 2), v_r = at(w->v_t, 3);
    opnd v_q = vreg(e, "v_q", 2, 1);
    opnd s_t0 = at(w->s_t, 0);
    sv hwts = sv_mul(e, "s_hwts", w->a_hts, w->a_wts);
    opnd v_bkkoff = vreg(e, "v_bkkoff", 1, 1); /* kk_b * row stride */
    vx_mul(e, v_bkkoff, w->v_bkk, w->b_rowstride, s_t0);
    h_vadd(e, v_n, sv_op(w->n0), v_nb);
    for (int j = 0; j < WB; j++) {
        if (j)
            h_vadd(e, v_n, imm(w->sb), v_n);
        /* n -> (image, hts index, wts index) */
        vx_divmod(e, v_img, v_r, v_n, hwts, w->a_mdiv_hwts, w->a_shift_hwts, s_t0);
        vx_divmod(e, at(v_q, 0), at(v_q, 1), v_r, w->a_wts, w->a_mdiv_wts, w->a_shift_wts, s_t0);
        h_vadd(e, at(w->v_bht, j), sv_op(w->a_htl), at(v_q, 0));
        h_vadd(e, at(w->v_bwt, j), sv_op(w->a_wtl), at(v_q, 1));
        /* columns past gemm_n: an htilda no tap brings inside dy */
        e_vopc(e, "v_cmp_gt_u32", VCC, sv_op(w->a_gemm_n), v_n);
        h_vmov(e, at(v_q, 0), imm(0x7fffffff));
        e_cndmask(e, at(w->v_bht, j), at(v_q, 0), at(w->v_bht, j), VCC);
        /* pre = image*k*ho*wo*4 + kk_b*row stride + (htilda*wo + wtilda)*pixel stride, per vector */
        vx_mul(e, at(v_q, 0), v_img, w->dy_sn, s_t0);
        vx_mad24(e, at(v_q, 1), at(w->v_bht, j), w->a_wo, at(w->v_bwt, j), s_t0);
        vx_mul(e, at(v_q, 1), at(v_q, 1), w->b_pix, s_t0);
        h_vadd(e, at(v_q, 0), at(v_q, 0), at(v_q, 1));
        h_vadd(e, at(v_q, 0), at(v_q, 0), v_bkkoff);
        for (int i = 0; i < VB; i++) {
            sv di = sv_mul(e, "s_di", w->b_rowstride, sv_const((uint32_t)(i * w->dkb)));
            h_vadd(e, at(w->v_bpre, i * WB + j), sv_op(di), at(v_q, 0));
            sv_free(e, di);
        }
    }
    sv_free(e, hwts);
    rfree(e, v_bkkoff);
    rfree(e, v_q);
}

/* The pixel path on NHWC dy with k quads (the dot2 FMA tiles): a quad is
 * 4 consecutive channels k of one pixel, 8 contiguous bytes, so a full
 * channel block loads it with one buffer_load_dwordx2 when every quad is
 * 8-byte aligned: K and K/G multiples of 4 and dy's base pointer 8-byte
 * aligned (the channel block and the tap's shift keep the alignment
 * then). */
static bool b_quad_vectors(const v4r1_kw *w) { return w->fmt->kpack == 4 && w->lay->dy_inner == V4R1_DIM_K; }

static void quads_check(v4r1_kw *w, opnd t0, opnd t1)
{
    emit *e = w->e;
    e_comment(e, "dy quads as dwordx2 when (K | K/G) %% 4 == 0 and p_dy %% 8 == 0");
    e_sop2(e, "s_and_b32", t0, at(w->p_dy, 0), imm(7));
    if (w->a_k.known && w->a_kg.known) {
        if ((w->a_k.k | w->a_kg.k) & 3)
            h_smov(e, t0, imm(1));
    } else {
        e_sop2(e, "s_or_b32", t1, sv_sgpr(e, w->a_k, t1), sv_op(w->a_kg));
        e_sop2(e, "s_and_b32", t1, t1, imm(3));
        e_sop2(e, "s_or_b32", t0, t0, t1);
    }
}

/* NHWC w: a thread's WA columns of one row are WA consecutive channels,
 * contiguous: one vector load per row when no vector straddles C/G (C/G a
 * multiple of WA; m_a and the tile's m0 are multiples of WA, so a vector is
 * then wholly inside or wholly past C/G, whose offset is the invalid one)
 * and, for 16-bit, w is 4-byte aligned (a row is WA/2 dwords) and the
 * LDS format keeps the values in their type. fp32: the rows are the LDS
 * write's registers as loaded. k quads: the 4 rows land in the upper half
 * of the tile's registers and the format's write_tile transposes them into
 * quads with v_perm_b32. Whether the rows load as vectors at all is the
 * configuration's fact (conv/v4r1_config.c v4r1_config_w_row_vectors),
 * which the heuristic's line counts read too. */
bool v4r1_a_row_vectors(const v4r1_kw *w) { return v4r1_config_w_row_vectors(w->cfg); }
static int a_row_dwords(const v4r1_kw *w) { return w->wa * w->dt->bytes / 4; }

/* The vector paths' shape conditions, once per kernel, as bits of s_vec
 * (kw.h): w's rows (a_row_vectors), dy's vectors (the data path's). */
enum { VEC_A = V4R1_VEC_A, VEC_B = V4R1_VEC_B };

static void vec_flag(v4r1_kw *w, opnd t, int bit)
{
    e_sopc(w->e, "s_cmp_lg_u32", t, imm(0));
    e_sop2(w->e, "s_cselect_b32", t, imm(1 << bit), imm(0));
    e_sop2(w->e, "s_or_b32", w->s_vec, w->s_vec, t);
}

static void vector_checks(v4r1_kw *w)
{
    emit *e = w->e;
    opnd t0 = at(w->s_t, 0), t1 = at(w->s_t, 1);
    w->s_vec = sreg(e, "s_vec", 1, 1);
    h_smov(e, w->s_vec, imm(0));
    if (v4r1_a_row_vectors(w)) {
        bool half = w->dt->bytes == 2;
        e_comment(e, "w rows as %d-dword vectors when C/G %% %d == 0%s", a_row_dwords(w), w->wa,
                  half ? " and p_w %% 4 == 0" : "");
        if (w->a_cg.known)
            h_smov(e, t0, imm(w->a_cg.k % (uint32_t)w->wa));
        else
            e_sop2(e, "s_and_b32", t0, sv_op(w->a_cg), imm(w->wa - 1));
        if (half) {
            e_sop2(e, "s_and_b32", t1, at(w->p_w, 0), imm(3));
            e_sop2(e, "s_or_b32", t0, t0, t1);
        }
        vec_flag(w, t0, VEC_A);
    }
    if (w->bp->has_check(w)) {
        w->bp->vec_check(w, t0, t1);
        vec_flag(w, t0, VEC_B);
    }
}

void v4r1_vec_branch_off(v4r1_kw *w, int bit, label to)
{
    e_sopc(w->e, "s_bitcmp1_b32", w->s_vec, imm(bit));
    e_branch(w->e, "s_cbranch_scc1", to);
}

void v4r1_staging_setup(v4r1_kw *w)
{
    a_offsets(w);
    b_offsets(w);
    if (v4r1_a_row_vectors(w) || w->bp->has_check(w))
        vector_checks(w);
    w->fmt->setup(w);
}

void v4r1_staging_alloc(v4r1_kw *w)
{
    static const char *na[V4R1_MAX_SETS] = {"v_ga", "v_ga1", "v_ga2"}, *nb[V4R1_MAX_SETS] = {"v_gb", "v_gb1", "v_gb2"};
    for (int k = 0; k < v4r1_in_flight(w); k++) {
        w->v_sga[k] = vreg(w->e, na[k], w->va * w->wa, 4);
        w->v_sgb[k] = vreg(w->e, nb[k], w->vb * w->wb, 4);
    }
    v4r1_use_set(w, 0);
}

void v4r1_use_set(v4r1_kw *w, int set)
{
    w->v_ga = w->v_sga[set];
    w->v_gb = w->v_sgb[set];
}

/* The columns' dy offsets for the tap: each column's (htilda - dh,
 * wtilda - dw) against dy's bounds, the invalid offset outside (dh, dw:
 * the tap's shifts in SGPRs, or NOOP for tap (0, 0)'s none). */
static void tap_bounds(v4r1_kw *w, opnd s_dh, opnd s_dw)
{
    emit *e = w->e;
    for (int j = 0; j < w->b_cols; j++) {
        opnd h = at(w->v_bht, j), x = at(w->v_bwt, j);
        if (s_dh.kind != OPK_NONE) {
            e_vop2(e, "v_subrev_u32", at(w->v_t, 0), s_dh, h);
            h = at(w->v_t, 0);
        }
        e_vopc(e, "v_cmp_gt_u32", w->s_m, sv_sgpr(e, w->a_ho, at(w->s_t, 1)), h);
        if (s_dw.kind != OPK_NONE) {
            e_vop2(e, "v_subrev_u32", at(w->v_t, 0), s_dw, x);
            x = at(w->v_t, 0);
        }
        e_vopc(e, "v_cmp_gt_u32", VCC, sv_op(w->a_wo), x);
        e_sop2(e, "s_and_b64", VCC, VCC, w->s_m);
        for (int i = 0; i < w->b_vecs; i++)
            e_cndmask(e, at(w->v_boff, i * w->b_cols + j), w->v_inv, at(w->v_bpre, i * w->b_cols + j), VCC);
    }
}

/* The walk's first tap, (0, 0): the bases themselves (what v4r1_set_tap
 * computes there, without its products of zeros). */
void v4r1_set_first_tap(v4r1_kw *w)
{
    emit *e = w->e;
    e_comment(e, "tap (0, 0): A base = w base, dy base");
    h_smov(e, sub(w->s_rsa, 0, 2), w->s_wbase);
    h_smov(e, sub(w->s_rsb, 0, 2), w->s_dybase);
    tap_bounds(w, NOOP, NOOP);
}

void v4r1_set_tap(v4r1_kw *w)
{
    emit *e = w->e;
    opnd s_t = w->s_t, s_rsa = w->s_rsa, s_rsb = w->s_rsb, s_yd = w->s_yd, s_xd = w->s_xd;
    e_comment(e, "tap (ydot, xdot): A base = w base + %s, dy base moves back",
              w->lay->tap_note);
    e_sop2(e, "s_mul_i32", at(s_t, 0), s_yd, sv_op(w->a_ystep));
    e_sop2(e, "s_mul_i32", at(s_t, 1), s_xd, sv_op(w->a_xstep));
    e_sop2(e, "s_add_u32", at(s_t, 0), at(s_t, 0), at(s_t, 1));
    e_sop2(e, "s_add_u32", at(s_rsa, 0), at(w->s_wbase, 0), at(s_t, 0));
    e_sop2(e, "s_addc_u32", at(s_rsa, 1), at(w->s_wbase, 1), imm(0));
    e_sop2(e, "s_mul_i32", at(s_t, 2), s_yd, sv_op(w->a_dh_step));
    e_sop2(e, "s_mul_i32", at(s_t, 3), s_xd, sv_op(w->a_dw_step));
    e_sop2(e, "s_mul_i32", at(s_t, 0), at(s_t, 2), sv_op(w->a_wo));
    e_sop2(e, "s_add_u32", at(s_t, 0), at(s_t, 0), at(s_t, 3));
    v4r1_smul(e, at(s_t, 0), at(s_t, 0), w->b_pix);
    e_sop2(e, "s_sub_u32", at(s_rsb, 0), at(w->s_dybase, 0), at(s_t, 0));
    e_sop2(e, "s_subb_u32", at(s_rsb, 1), at(w->s_dybase, 1), imm(0));
    tap_bounds(w, at(s_t, 2), at(s_t, 3));
}

/* The global load of one element of the tensors' type (zero-extended to 32
 * bits for 16-bit types). */
const char *v4r1_load_op(const v4r1_kw *w) { return w->dt->bytes == 2 ? "buffer_load_ushort" : "buffer_load_dword"; }


/* A tile (g, offsets off, resource rs, V vectors of W) one element per lane,
 * each into its register of the LDS format (slot). */
static void element_loads(v4r1_kw *w, const char *ld, opnd g, opnd off, opnd rs, int nv, int width)
{
    for (int i = 0; i < nv; i++)
        for (int j = 0; j < width; j++)
            e_mubuf(w->e, ld, at(g, w->fmt->slot(i, j, width)), at(off, i * width + j), rs, imm(0), 0);
}

void v4r1_load_tile(v4r1_kw *w)
{
    emit *e = w->e;
    const char *ld = v4r1_load_op(w);
    const int KPB = w->kpb, VA = w->va, WA = w->wa;
    opnd s_t = w->s_t;
    e_comment(e, "A rows past the channel block are past NUM_RECORDS = min(krem, KPB) * cg*y*x*4");
    e_sop2(e, "s_min_u32", at(s_t, 0), w->s_krem, imm(KPB));
    e_sop2(e, "s_mul_i32", at(w->s_rsa, 2), at(s_t, 0), sv_op(w->w_sk));
    if (v4r1_a_row_vectors(w)) {
        label l_aelem = e_label_new(e, "a_elements"), l_adone = e_label_new(e, "a_loaded");
        v4r1_vec_branch_off(w, VEC_A, l_aelem);
        static const char *vec_op[] = {NULL, "buffer_load_dword", "buffer_load_dwordx2", NULL, "buffer_load_dwordx4"};
        const int nd = a_row_dwords(w), base = w->fmt->row_vectors_at(WA);
        for (int i = 0; i < VA; i++)
            e_mubuf(e, vec_op[nd], sub(w->v_ga, base + i * nd, nd), at(w->v_aoff, i * WA), w->s_rsa, imm(0), 0);
        e_branch(e, "s_branch", l_adone);
        e_label(e, l_aelem);
        element_loads(w, ld, w->v_ga, w->v_aoff, w->s_rsa, VA, WA);
        e_label(e, l_adone);
    } else {
        element_loads(w, ld, w->v_ga, w->v_aoff, w->s_rsa, VA, WA);
    }
    w->bp->load(w);
}

/* A's fewest loads: its vector path's (one per vector) or, without it,
 * the element path's. */
static int a_min_loads(const v4r1_kw *w) { return v4r1_a_row_vectors(w) ? w->va : w->va * w->wa; }

int v4r1_tile_min_loads(const v4r1_kw *w) { return a_min_loads(w) + w->bp->min_loads(w); }

int v4r1_in_flight(const v4r1_kw *w)
{
    int n = 1 + w->e->t->vmcnt_max / v4r1_tile_min_loads(w), most = w->cfg->in_flight;
    if (most < 1 || most > V4R1_MAX_SETS) {
        emit_fail(w->e, "%d tiles in flight: not 1 to %d", most, V4R1_MAX_SETS);
        return 1;
    }
    return n < most ? n : most;
}

/* The pixel path's fewest loads: one dwordx2 per column on the quad path,
 * else one per element (the partial path's as many, or packed after a
 * wait of its own). */
static int pixels_min_loads(const v4r1_kw *w) { return b_quad_vectors(w) ? w->wb : w->vb * w->wb; }

/* The pixel path's B loads: full channel blocks one element per lane (or,
 * NHWC k quads, one dwordx2 per aligned quad), the last block of a tap
 * masked by row. */
static void pixels_load(v4r1_kw *w)
{
    emit *e = w->e;
    const char *ld = v4r1_load_op(w);
    const int KPB = w->kpb, VB = w->vb, WB = w->wb;
    opnd s_t = w->s_t, s_krem = w->s_krem;
    label l_part = e_label_new(e, "partial_k"), l_done = e_label_new(e, "loaded");
    e_sopc(e, "s_cmp_lt_u32", s_krem, imm(KPB));
    e_branch(e, "s_cbranch_scc1", l_part);
    if (b_quad_vectors(w)) {
        e_comment(e, "a whole channel block of aligned quads: one dwordx2 per quad, packed as it lands");
        v4r1_vec_branch_off(w, VEC_B, l_part);
        for (int j = 0; j < WB; j++)
            e_mubuf(e, "buffer_load_dwordx2", sub(w->v_gb, 2 * j, 2), at(w->v_boff, j), w->s_rsb, imm(0), 0);
    } else {
        element_loads(w, ld, w->v_gb, w->v_boff, w->s_rsb, VB, WB);
    }
    e_branch(e, "s_branch", l_done);
    e_label(e, l_part);
    e_comment(e, "last channel block of the tap (rows kk >= krem load nothing)%s",
              b_quad_vectors(w) ? ", or dy quads that are not aligned" : "");
    for (int i = 0; i < VB; i++) {
        e_sop2(e, "s_sub_u32", at(s_t, 1), s_krem, imm(i * w->dkb));
        e_vopc(e, "v_cmp_gt_i32", VCC, at(s_t, 1), w->v_bkk);
        for (int j = 0; j < WB; j++) {
            e_cndmask(e, at(w->v_t, j % 4), w->v_inv, at(w->v_boff, i * WB + j), VCC);
            e_mubuf(e, ld, at(w->v_gb, w->fmt->slot(i, j, WB)), at(w->v_t, j % 4), w->s_rsb, imm(0), 0);
        }
    }
    if (b_quad_vectors(w)) {
        /* the element path packs here, so that both paths leave dy packed
           (a wait the vector path does not have: only partial or unaligned
           channel blocks take it) */
        e_waitcnt(e, 0, -1);
        w->fmt->entries(w, w->v_gb, VB, WB);
    }
    e_label(e, l_done);
}

static void cvt_as_is(v4r1_kw *w, opnd regs, int n) { (void)w, (void)regs, (void)n; }

static void cvt_fp16_bf16(v4r1_kw *w, opnd regs, int n)
{
    opnd t = w->v_t, s_k = sreg(w->e, "s_cvt", 2, 2);
    h_f16x2_to_bf16x2_consts(w->e, at(t, 3), s_k);
    for (int x = 0; x < n; x++)
        h_f16x2_to_bf16x2(w->e, at(regs, x), at(t, 0), at(t, 1), at(t, 2), at(t, 3), w->s_m, s_k);
    rfree(w->e, s_k);
}

const v4r1_stage_cvt v4r1_stage_as_is = {.name = "as-is", .convert = cvt_as_is};
const v4r1_stage_cvt v4r1_stage_fp16_bf16 = {.name = "fp16-bf16", .convert = cvt_fp16_bf16};

/* The pixel path's registers as LDS entries (unless load_tile's quad
 * vectors left them so), and their writes. */
static void pixels_prepare(v4r1_kw *w)
{
    if (!b_quad_vectors(w))
        w->fmt->entries(w, w->v_gb, w->vb, w->wb);
}

static void pixels_write(v4r1_kw *w)
{
    w->fmt->write(w, w->v_gb, w->v_bwr, v4r1_lds_buf(w, 1, w->wr_buf), w->vb, w->wb, w->dkb, w->b_len, w->sb);
}

/* The tile in flight to LDS, as the format writes it (lds_format.c). */
void v4r1_write_tile(v4r1_kw *w) { w->fmt->write_tile(w); }

const v4r1_dy_path v4r1_dy_pixels = {
    .name = "pixels",
    .map = pixels_map,
    .has_check = b_quad_vectors,
    .vec_check = quads_check,
    .load = pixels_load,
    .min_loads = pixels_min_loads,
    .prepare = pixels_prepare,
    .write = pixels_write,
};

int v4r1_lds_buf(const v4r1_kw *w, int side, int buf)
{
    if (!buf)
        return 0;
    return side ? w->b_size : w->a_size;
}

void v4r1_staging_free(v4r1_kw *w)
{
    for (int k = v4r1_in_flight(w) - 1; k > 0; k--) {
        rfree(w->e, w->v_sga[k]);
        rfree(w->e, w->v_sgb[k]);
    }
    opnd regs[] = {w->v_sga[0], w->v_sgb[0], w->v_aoff, w->v_bpre, w->v_boff, w->v_awr, w->v_bwr, w->v_bkk};
    for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++)
        rfree(w->e, regs[i]);
    if (v4r1_a_row_vectors(w) || w->bp->has_check(w))
        rfree(w->e, w->s_vec);
    w->fmt->release(w);
}
