/* The channel path of B (dy): NHWC, the matrix-core tiles
 * (v4r1_bpath in conv/v4r1_config.h).
 *
 * NHWC keeps a pixel's channels k contiguous, so a thread loads WB
 * consecutive channels of one pixel as one vector (WB*size bytes: a
 * buffer_load_dwordx4 of 4 fp32 or 8 halves where the tile allows) and
 * KPB/WB consecutive lanes cover one pixel's KPB channels of the step:
 * lane l loads channels kk_b = (l % (KPB/WB)) * WB .. + WB-1 of column
 * n_b = l / (KPB/WB), and its VB columns are block*WB/KPB apart. Where
 * lanes ran along pixels (the pixel path) every lane touched a line of its
 * own, K elements from its neighbour's.
 *
 * In LDS the vector is WB rows of one column: WB fp32 entries, or WB/4 k
 * quads of 8 bytes. The B rows are padded (the configuration's bpad:
 * derive_channels) so that the lanes of one bank group, which write rows
 * of several k quads of the same few pixels, hit distinct banks; the math
 * reads rows of consecutive columns as before (one row per bank group).
 *
 * Full channel blocks load vectors. The last block of a tap (K/G not a
 * multiple of KPB) loads them in pieces of P channels where the channels
 * left, krem, are a multiple of P = WB or WB/2 (ResNeXt's 4, 8, 16 channels
 * a group): each piece wholly before krem or wholly past it (its offset
 * then past NUM_RECORDS: zeros). A last block whose krem is neither and,
 * for 16-bit types, shapes whose vectors would not be 4-byte aligned (K or
 * K/G odd, dy's pointer not 4-byte aligned: the emulator, like gfx9's
 * DWORD alignment mode, faults a multi-dword access that is not) load
 * element by element under per-channel masks, into the registers where
 * the vector would have landed. */
#include "kw.h"

/* lanes per pixel */
static int lanes(const v4r1_kw *w) { return w->kpb / w->wb; }
static bool half(const v4r1_kw *w) { return w->dt->bytes == 2; }

/* Pixel j's WB registers; a 16-bit vector (WB/2 dwords of packed halves)
 * lands at their start where the LDS format keeps the values in their type
 * (k quads, written as they are) and in their upper half where it widens
 * them (prepare unpacks it downwards). */
static int region(const v4r1_kw *w, int j) { return j * w->wb; }
static int packed_at(const v4r1_kw *w) { return half(w) && w->fmt->widens ? w->wb / 2 : 0; }
static int vec_dwords(const v4r1_kw *w) { return w->wb * w->dt->bytes / 4; }

static void channels_map(v4r1_kw *w, opnd v_nb)
{
    emit *e = w->e;
    const int q = lanes(w);
    e_comment(e, "B loads along channels: n_b = tid / %d, kk_b = (tid %% %d) * %d, a vector of %d channels per pixel, "
              "pixels %d apart", q, q, w->wb, w->wb, w->sb);
    e_vop2(e, "v_lshrrev_b32", v_nb, imm(log2u((uint32_t)q)), w->v_tid);
    e_vop2(e, "v_and_b32", w->v_bkk, imm(q - 1), w->v_tid);
    e_vop2(e, "v_lshlrev_b32", w->v_bkk, imm(log2u((uint32_t)w->wb)), w->v_bkk);
}

/* fp32 vectors are always 4-byte aligned; 16-bit ones when K and K/G are
 * even (a pixel's and a group's first channel at a dword: kk_b is a
 * multiple of WB) and dy's pointer is 4-byte aligned. */
static bool channels_has_check(const v4r1_kw *w) { return half(w); }

static void channels_check(v4r1_kw *w, opnd t0, opnd t1)
{
    emit *e = w->e;
    e_comment(e, "dy channel vectors when (K | K/G) %% 2 == 0 and p_dy %% 4 == 0");
    e_sop2(e, "s_and_b32", t0, at(w->p_dy, 0), imm(3));
    if (w->a_k.known && w->a_kg.known) {
        if ((w->a_k.k | w->a_kg.k) & 1)
            h_smov(e, t0, imm(1));
    } else {
        e_sop2(e, "s_or_b32", t1, sv_sgpr(e, w->a_k, t1), sv_op(w->a_kg));
        e_sop2(e, "s_and_b32", t1, t1, imm(1));
        e_sop2(e, "s_or_b32", t0, t0, t1);
    }
}

/* The element path: channel c of pixel j (MUBUF offset c * size from the
 * vector's) where kk_b + c < krem, zero past it; 16-bit elements land as
 * halves of the vector's registers: channel 2d + h in register d of the
 * packed half's place (h = 0) or of the other (h = 1), packed after the
 * wait. */
static void channels_elements(v4r1_kw *w)
{
    emit *e = w->e;
    const char *ld = v4r1_load_op(w);
    const int WB = w->wb, hw = WB / 2;
    opnd s_t = w->s_t;
    for (int c = 0; c < WB; c++) {
        e_sop2(e, "s_sub_u32", at(s_t, 1), w->s_krem, imm(c));
        e_vopc(e, "v_cmp_gt_i32", VCC, at(s_t, 1), w->v_bkk);
        for (int j = 0; j < w->vb; j++) {
            int r = region(w, j) + c;
            if (half(w))
                r = region(w, j) + (c % 2 ? hw - packed_at(w) : packed_at(w)) + c / 2;
            e_cndmask(e, at(w->v_t, j % 4), w->v_inv, at(w->v_boff, j), VCC);
            e_mubuf(e, ld, at(w->v_gb, r), at(w->v_t, j % 4), w->s_rsb, imm(0), c * w->dt->bytes);
        }
    }
    if (!half(w))
        return;
    e_waitcnt(e, 0, -1);
    for (int j = 0; j < w->vb; j++)
        for (int d = 0; d < hw; d++) {
            opnd lo = at(w->v_gb, region(w, j) + packed_at(w) + d);
            opnd hi = at(w->v_gb, region(w, j) + hw - packed_at(w) + d);
            e_vop3(e, "v_lshl_or_b32", lo, hi, imm(16), lo);
        }
}

static const char *const vec_op[] = {NULL, "buffer_load_dword", "buffer_load_dwordx2", NULL, "buffer_load_dwordx4"};

/* The vector path: pixel j's vector from its offset, v_boff[j]. */
static void channels_vectors(v4r1_kw *w)
{
    for (int j = 0; j < w->vb; j++)
        e_mubuf(w->e, vec_op[vec_dwords(w)], sub(w->v_gb, region(w, j) + packed_at(w), vec_dwords(w)),
                at(w->v_boff, j), w->s_rsb, imm(0), 0);
}

/* The last channel block of a tap where krem is a multiple of P channels
 * (P = WB or WB/2): each lane's vector as WB/P pieces of P channels, piece
 * p loaded where kk_b + p*P < krem and zeros past it (its offset v_inv, past
 * NUM_RECORDS), landing where the vector would have. */
static void channels_pieces(v4r1_kw *w, int P)
{
    emit *e = w->e;
    const int dw = P * w->dt->bytes / 4;
    for (int p = 0; p < w->wb / P; p++) {
        opnd left = w->s_krem;
        if (p) {
            left = at(w->s_t, 1);
            e_sop2(e, "s_sub_u32", left, w->s_krem, imm(p * P));
        }
        e_vopc(e, "v_cmp_gt_i32", VCC, left, w->v_bkk);
        for (int j = 0; j < w->vb; j++) {
            opnd o = at(w->v_t, j % 4);
            e_cndmask(e, o, w->v_inv, at(w->v_boff, j), VCC);
            e_mubuf(e, vec_op[dw], sub(w->v_gb, region(w, j) + packed_at(w) + p * dw, dw), o, w->s_rsb, imm(0),
                    p * P * w->dt->bytes);
        }
    }
}

/* Whether the last block takes pieces of P channels: WB or WB/2 (P a
 * power of two, as WB is), each a dword or more. */
static bool piece_ok(const v4r1_kw *w, int P) { return P >= w->wb / 2 && P * w->dt->bytes >= 4; }

static void channels_load(v4r1_kw *w)
{
    emit *e = w->e;
    label l_part = e_label_new(e, "dy_last_block"), l_elem = e_label_new(e, "dy_elements");
    label l_done = e_label_new(e, "dy_loaded");
    e_sopc(e, "s_cmp_lt_u32", w->s_krem, imm(w->kpb));
    e_branch(e, "s_cbranch_scc1", l_part);
    if (channels_has_check(w))
        v4r1_vec_branch_off(w, V4R1_VEC_B, l_elem);
    e_comment(e, "a whole channel block: one %d-dword vector of %d channels per pixel", vec_dwords(w), w->wb);
    channels_vectors(w);
    e_branch(e, "s_branch", l_done);
    e_label(e, l_part);
    if (channels_has_check(w))
        v4r1_vec_branch_off(w, V4R1_VEC_B, l_elem);
    /* pieces of WB channels, then of WB/2 where those are a dword or more */
    int smallest = w->wb;
    for (int P = w->wb; piece_ok(w, P); P /= 2) {
        label l_next = piece_ok(w, P / 2) ? e_label_new(e, "dy_half_pieces") : l_elem;
        smallest = P;
        e_sop2(e, "s_and_b32", at(w->s_t, 1), w->s_krem, imm(P - 1));
        e_branch(e, "s_cbranch_scc1", l_next);
        e_comment(e, "last channel block of the tap, krem a multiple of %d: %d-channel pieces, each wholly before "
                  "krem (loaded) or wholly past it (zeros)", P, P);
        channels_pieces(w, P);
        e_branch(e, "s_branch", l_done);
        if (l_next.id != l_elem.id)
            e_label(e, l_next);
    }
    e_label(e, l_elem);
    e_comment(e, "last channel block of the tap, krem not a multiple of %d (channels kk >= krem load nothing)%s",
              smallest, channels_has_check(w) ? ", or vectors that are not aligned" : "");
    channels_elements(w);
    e_label(e, l_done);
}

/* One vector per pixel on the vector path; the element path loads more
 * (WB per pixel). */
static int channels_min_loads(const v4r1_kw *w) { return w->vb; }

/* A format that widens 16-bit values: the packed halves of each pixel
 * unpacked into WB registers (channel c in register c; upwards, so that no
 * source is overwritten before it is read) and widened. */
static void channels_prepare(v4r1_kw *w)
{
    emit *e = w->e;
    if (!half(w) || !w->fmt->widens)
        return;
    const int hw = w->wb / 2;
    for (int j = 0; j < w->vb; j++) {
        opnd g = sub(w->v_gb, region(w, j), w->wb);
        for (int d = 0; d < hw; d++) {
            h_vmov(e, at(g, 2 * d), at(g, hw + d));
            e_vop2(e, "v_lshrrev_b32", at(g, 2 * d + 1), imm(16), at(g, hw + d));
        }
        for (int c = 0; c < w->wb; c++)
            h_widen16(e, w->dt->id, at(g, c));
    }
}

/* Pixel j's vector down its column as the format's entries (WB/4 k
 * quads, or WB fp32 entries), rows b_len entries apart. */
static void channels_write(v4r1_kw *w)
{
    const int buf = v4r1_lds_buf(w, 1, w->wr_buf);
    for (int j = 0; j < w->vb; j++)
        v4r1_write_column(w, sub(w->v_gb, region(w, j), w->wb), w->wb, w->v_bwr,
                          buf + j * w->sb * w->fmt->entry_bytes, w->b_len);
}

const v4r1_dy_path v4r1_dy_channels = {
    .name = "channels",
    .map = channels_map,
    .has_check = channels_has_check,
    .vec_check = channels_check,
    .load = channels_load,
    .min_loads = channels_min_loads,
    .prepare = channels_prepare,
    .write = channels_write,
};
