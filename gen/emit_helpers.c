/* Semantic helpers over the format functions. */
#include "emit_helpers.h"

#include <stdio.h>
#include <string.h>

void h_load_kargs(emit *e, opnd karg_ptr, opnd dst, int offset, int ndwords)
{
    static const char *const names[] = {[1] = "s_load_dword", [2] = "s_load_dwordx2", [4] = "s_load_dwordx4",
                                        [8] = "s_load_dwordx8", [16] = "s_load_dwordx16"};
    if (ndwords > dst.count) {
        emit_fail(e, "argument load of %d dwords into %s[%d]", ndwords, dst.name ? dst.name : "s", dst.count);
        return;
    }
    int i = 0;
    while (i < ndwords) {
        int n = 16;
        /* widest load that fits, is aligned in the destination and not past the end */
        while (n > 1 && (n > ndwords - i || (dst.index + i) % (n > 4 ? 4 : n)))
            n /= 2;
        e_smem(e, names[n], sub(dst, i, n), karg_ptr, offset + 4 * i);
        i += n;
    }
}

opnd h_workitem_id(emit *e)
{
    opnd v = vreg_fixed(e, "v_tid", 0, 1);
    if (e->t->packed_workitem_ids)
        e_vop2(e, "v_and_b32", v, imm(0x3ff), v);
    return v;
}

static void idx_expr(const opnd *o, char *buf, size_t len)
{
    if (o->name && o->name_off)
        snprintf(buf, len, "%s+%d", o->name, o->name_off);
    else if (o->name)
        snprintf(buf, len, "%s", o->name);
    else
        snprintf(buf, len, "%d", o->index);
}

void h_macro(emit *e, const char *name, int n, const opnd *args, int ninst)
{
    char line[512];
    int len = snprintf(line, sizeof line, "    %s", name);
    for (int i = 0; i < n; i++) {
        char x[64];
        if (args[i].kind != OPK_SGPR && args[i].kind != OPK_VGPR && args[i].kind != OPK_AGPR) {
            emit_fail(e, "macro %s argument %d is not a register", name, i);
            return;
        }
        idx_expr(&args[i], x, sizeof x);
        len += snprintf(line + len, sizeof line - (size_t)len, "%s %s", i ? "," : "", x);
    }
    emit_line(e, "%s", line);
    hz_issue(e, ninst);
}

static bool same_reg(opnd a, opnd b) { return a.kind == b.kind && a.index == b.index; }

void h_mdiv_v(emit *e, opnd q, opnd n, opnd s_magic, opnd s_shift)
{
    if (q.kind != OPK_VGPR || n.kind != OPK_VGPR || s_magic.kind != OPK_SGPR || s_shift.kind != OPK_SGPR ||
        same_reg(q, n)) {
        emit_fail(e, "h_mdiv_v: needs distinct VGPRs q, n and SGPR magic/shift");
        return;
    }
    hz_reads(e, HZR_VALU, (opnd[]){s_magic, s_shift}, 2);
    h_macro(e, "m_mdiv_u32_vs", 4, (opnd[]){q, n, s_magic, s_shift}, 3);
}

void h_mdiv_rem_v(emit *e, opnd r, opnd q, opnd n, opnd s_magic, opnd s_shift, opnd s_d)
{
    if (r.kind != OPK_VGPR || q.kind != OPK_VGPR || n.kind != OPK_VGPR || s_d.kind != OPK_SGPR || same_reg(q, n) ||
        same_reg(r, n) || same_reg(r, q)) {
        emit_fail(e, "h_mdiv_rem_v: needs distinct VGPRs r, q, n and SGPRs");
        return;
    }
    hz_reads(e, HZR_VALU, (opnd[]){s_magic, s_shift, s_d}, 3);
    h_macro(e, "m_mdiv_rem_u32_vs", 6, (opnd[]){r, q, n, s_magic, s_shift, s_d}, 5);
}

void h_mdiv_s(emit *e, opnd q, opnd n, opnd s_magic, opnd s_shift)
{
    if (q.kind != OPK_SGPR || n.kind != OPK_SGPR || same_reg(q, n)) {
        emit_fail(e, "h_mdiv_s: needs distinct SGPRs q, n");
        return;
    }
    h_macro(e, "m_mdiv_u32_ss", 4, (opnd[]){q, n, s_magic, s_shift}, 3);
}

void h_mdiv_rem_s(emit *e, opnd r, opnd q, opnd n, opnd s_magic, opnd s_shift, opnd s_d)
{
    if (r.kind != OPK_SGPR || q.kind != OPK_SGPR || n.kind != OPK_SGPR || same_reg(q, n) || same_reg(r, n) ||
        same_reg(r, q)) {
        emit_fail(e, "h_mdiv_rem_s: needs distinct SGPRs r, q, n");
        return;
    }
    h_macro(e, "m_mdiv_rem_u32_ss", 6, (opnd[]){r, q, n, s_magic, s_shift, s_d}, 5);
}

void h_buffer_rsrc(emit *e, opnd rsrc, opnd ptr, opnd bytes)
{
    if (rsrc.kind != OPK_SGPR || rsrc.count != 4 || rsrc.index % 4 || ptr.kind != OPK_SGPR || ptr.count != 2 ||
        bytes.kind != OPK_SGPR) {
        emit_fail(e, "h_buffer_rsrc: needs an aligned SGPR quad, an SGPR pair and an SGPR");
        return;
    }
    h_macro(e, "m_buffer_rsrc", 3, (opnd[]){rsrc, ptr, bytes}, 4);
}

void h_vadd(emit *e, opnd d, opnd a, opnd b) { e_vop2(e, "v_add_u32", d, a, b); }
void h_vsub(emit *e, opnd d, opnd a, opnd b) { e_vop2(e, "v_sub_u32", d, a, b); }
void h_vmul_lo(emit *e, opnd d, opnd a, opnd b) { e_vop3(e, "v_mul_lo_u32", d, a, b, NOOP); }
void h_vmov(emit *e, opnd d, opnd a) { e_vop1(e, "v_mov_b32", d, a); }
void h_smov(emit *e, opnd d, opnd a) { e_sop1(e, d.count == 2 ? "s_mov_b64" : "s_mov_b32", d, a); }

void h_widen16(emit *e, igemm_dtype dt, opnd v)
{
    if (dt == IGEMM_FP16)
        e_vop1(e, "v_cvt_f32_f16", v, v);
    else if (dt == IGEMM_BF16)
        e_vop2(e, "v_lshlrev_b32", v, imm(16), v);
}

void h_narrow16(emit *e, igemm_dtype dt, opnd v, opnd v_tmp, opnd v_nan, opnd s_m)
{
    if (dt == IGEMM_FP16) {
        e_vop1(e, "v_cvt_f16_f32", v, v);
    } else if (dt == IGEMM_BF16) {
        e_vopc(e, "v_cmp_u_f32", s_m, v, v);
        e_vop3(e, "v_bfe_u32", v_tmp, v, imm(16), imm(1));
        h_vadd(e, v, v, v_tmp);
        h_vadd(e, v, imm(0x7fff), v);
        e_vop2(e, "v_lshrrev_b32", v, imm(16), v);
        e_cndmask(e, v, v, v_nan, s_m);
    }
}
