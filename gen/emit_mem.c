/* The memory format functions: LDS (DS), buffer (MUBUF) and global
 * instructions, 32-bit and wider as well as the 16-bit and d16 forms. The
 * row of the op says whether it loads or stores, how wide its data is, and
 * whether it is a read2/write2 or a d16 load (which keeps, so reads, the
 * other half of its VGPR). */
#include <stdio.h>

#include "emit_int.h"

/* Hazard bookkeeping of a memory instruction: addr/resource reads, data
 * read (stores, d16 loads) or written (loads); store_data for the
 * store-data-valu rule. */
static void issue(emit *e, const isa_opinfo *r, const opnd *rd, int nrd, const opnd *data, const opnd *store_data)
{
    hz_inst in = {.info = r, .nrd = nrd};
    for (int i = 0; i < nrd; i++)
        in.rd[i] = rd[i];
    if (data && (r->flags & (ISAF_STORE | ISAF_D16 | ISAF_ATOMIC)))
        in.rd[in.nrd++] = *data;
    if (data && (r->flags & ISAF_LOAD)) /* atomics are emitted without return */
        in.wr[in.nwr++] = *data;
    if (store_data)
        in.store_data = *store_data;
    hz_inst_issue(e, &in);
}

void e_ds(emit *e, const char *op, opnd d, opnd addr, opnd d0, opnd d1, int off0, int off1)
{
    const isa_opinfo *r = op_row(e, op, 1u << F_DS, (opnd[]){d, addr, d0, d1}, 4);
    if (!r || !need(e, is_vgpr(&addr), op, "DS address must be a VGPR"))
        return;
    bool two = r->flags & ISAF_DS2;
    if (two && !need(e, off0 >= 0 && off0 < 256 && off1 >= 0 && off1 < 256, op, "read2/write2 offsets are 8-bit"))
        return;
    if (!two && !need(e, off0 >= 0 && off0 < 65536 && off1 == 0, op, "DS offset is 16-bit"))
        return;
    char offs[48] = "";
    if (two)
        snprintf(offs, sizeof offs, " offset0:%d offset1:%d", off0, off1);
    else if (off0)
        snprintf(offs, sizeof offs, " offset:%d", off0);
    if (r->flags & ISAF_LOAD) {
        if (!need(e, is_vreg_file(&d) && d0.kind == OPK_NONE && d1.kind == OPK_NONE, op,
                  "a DS load takes a VGPR destination and no data") ||
            !width_ok(e, op, &d, r->dw, "destination"))
            return;
        issue(e, r, &addr, 1, &d, NULL);
        emit_line(e, "    %s %s, %s%s", op, S(d), S(addr), offs);
    } else if (r->flags & ISAF_STORE) {
        bool has_d1 = r->s2w != 0;
        if (!need(e, d.kind == OPK_NONE && is_vreg_file(&d0) && (has_d1 ? is_vreg_file(&d1) : d1.kind == OPK_NONE), op,
                  has_d1 ? "a DS write2 takes no destination and two data VGPRs"
                         : "a DS store takes no destination and one data VGPR") ||
            !width_ok(e, op, &d0, r->s1w, "data0") || (has_d1 && !width_ok(e, op, &d1, r->s2w, "data1")))
            return;
        issue(e, r, (opnd[]){addr, d0, has_d1 ? d1 : NOOP}, 3, NULL, NULL);
        if (has_d1)
            emit_line(e, "    %s %s, %s, %s%s", op, S(addr), S(d0), S(d1), offs);
        else
            emit_line(e, "    %s %s, %s%s", op, S(addr), S(d0), offs);
    } else {
        need(e, false, op, "only DS loads and stores are emitted");
    }
}

void e_mubuf(emit *e, const char *op, opnd data, opnd voff, opnd rsrc, opnd soff, int offset)
{
    const isa_opinfo *r = op_row(e, op, 1u << F_MUBUF, (opnd[]){data, voff, rsrc, soff}, 4);
    if (!r || !need(e, is_vreg_file(&data) && is_vgpr(&voff), op, "MUBUF data and offset must be VGPRs"))
        return;
    if (!need(e, rsrc.kind == OPK_SGPR && rsrc.count == 4 && rsrc.index % 4 == 0, op,
              "buffer resource must be 4 aligned SGPRs"))
        return;
    if (!need(e, soff.kind == OPK_SGPR || (soff.kind == OPK_INT && inline_int(soff.imm)), op,
              "soffset must be an SGPR or inline constant"))
        return;
    if (!need(e, offset >= 0 && offset < 4096, op, "MUBUF immediate offset is 12-bit"))
        return;
    if (!width_ok(e, op, &data, r->dw, "data") || !width_ok(e, op, &voff, 1, "voffset"))
        return;
    char offs[24] = "";
    if (offset)
        snprintf(offs, sizeof offs, " offset:%d", offset);
    /* store-data-valu: MUBUF only when soffset is not a register (LLVM createsVALUHazard) */
    bool sd = (r->flags & ISAF_STORE) && data.count > 2 && soff.kind != OPK_SGPR;
    issue(e, r, (opnd[]){voff, rsrc, soff}, 3, &data, sd ? &data : NULL);
    emit_line(e, "    %s %s, %s, %s, %s offen%s", op, S(data), S(voff), S(rsrc), S(soff), offs);
}

void e_global(emit *e, const char *op, opnd data, opnd vaddr, opnd saddr, int offset)
{
    const isa_opinfo *r = op_row(e, op, 1u << F_GLOBAL, (opnd[]){data, vaddr, saddr}, 3);
    bool sa = saddr.kind == OPK_SGPR;
    if (!r || !need(e, sa ? (is_vgpr(&vaddr) && vaddr.count == 1 && saddr.count == 2)
                          : (saddr.kind == OPK_OFF && is_vgpr(&vaddr) && vaddr.count == 2),
                    op, "global address: v[lo:hi] with off, or a 32-bit VGPR offset with an SGPR pair"))
        return;
    if (!need(e, is_vreg_file(&data), op, "global data must be VGPRs") || !width_ok(e, op, &data, r->dw, "data"))
        return;
    if (!need(e, offset >= -4096 && offset < 4096, op, "global offset is 13-bit signed"))
        return;
    char offs[24] = "";
    if (offset)
        snprintf(offs, sizeof offs, " offset:%d", offset);
    bool store = r->flags & (ISAF_STORE | ISAF_ATOMIC);
    bool sd = (r->flags & ISAF_STORE) && data.count > 2;
    issue(e, r, (opnd[]){vaddr, saddr}, 2, &data, sd ? &data : NULL);
    if (store)
        emit_line(e, "    %s %s, %s, %s%s", op, S(vaddr), S(data), S(saddr), offs);
    else
        emit_line(e, "    %s %s, %s, %s%s", op, S(data), S(vaddr), S(saddr), offs);
}
