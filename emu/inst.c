/* Per-instruction properties computed once at load: the registers an
 * instruction reads and writes, and its class and issue cycles in the cost
 * model (docs/EMULATOR.md, "Cost model"). */
#include <string.h>

#include "emu_int.h"

const char *const emu_class_names[EC_COUNT] = {
    [EC_SALU] = "salu", [EC_SMEM] = "smem", [EC_VALU] = "valu", [EC_VALU_FMA] = "valu_fma",
    [EC_VALU_TRANS] = "valu_trans", [EC_VALU_64] = "valu_quarter", [EC_MFMA] = "mfma",
    [EC_VMEM_LOAD] = "vmem_load", [EC_VMEM_STORE] = "vmem_store", [EC_DS] = "ds",
    [EC_BRANCH] = "branch", [EC_WAIT] = "wait", [EC_OTHER] = "other",
};

static void add_rd(emu_inst *in, const emu_opnd *o)
{
    if (o->code == R_NONE || o->kind == K_CONST || o->code == R_SCC || o->code == R_VCCZ || o->code == R_EXECZ)
        return;
    if (in->nrd < 6) {
        in->rd[in->nrd] = o->code;
        in->rdw[in->nrd++] = o->width;
    }
}

static void add_wr(emu_inst *in, uint16_t code, int width)
{
    if (code == R_NONE)
        return;
    if (in->nwr < 3) {
        in->wr[in->nwr] = code;
        in->wrw[in->nwr++] = (uint8_t)width;
    }
}

static bool flag(const emu_inst *in, unsigned f) { return (in->info->flags & f) != 0; }

static bool is_fma(isa_op op)
{
    switch (op) {
    case OP_V_FMAC_F32: case OP_V_MAC_F32: case OP_V_FMA_F32: case OP_V_MAD_F32: case OP_V_MADMK_F32:
    case OP_V_MADAK_F32: case OP_V_PK_FMA_F32: case OP_V_PK_FMA_F16: case OP_V_DOT2_F32_F16:
    case OP_V_DOT2C_F32_F16: case OP_V_MAC_F16: case OP_V_FMA_F16: case OP_V_MAD_F16: case OP_V_FMA_MIX_F32:
        return true;
    default:
        return false;
    }
}

static bool is_trans(const emu_inst *in) { return flag(in, ISAF_TRANS); }

static bool is_quarter(isa_op op)
{
    switch (op) {
    case OP_V_MUL_LO_U32: case OP_V_MUL_HI_U32: case OP_V_MUL_HI_I32: case OP_V_MAD_U64_U32: case OP_V_MAD_I64_I32:
        return true;
    default:
        return false;
    }
}

/* Can a hazard rule on SGPRs, EXEC or a lane select apply to in (hazard.c
 * scalar_rules)? VMEM (an SGPR address), the lane moves, DPP, and VALU
 * instructions reading an SGPR (VCC of v_div_fmas included); a VALU
 * instruction on VGPRs alone (the main loops' v_fmac) skips those rules. */
static bool hz_scalar_applies(const emu_inst *in)
{
    isa_op op = (isa_op)in->op;
    if (emu_is_vmem(in) || in->ext == EXT_DPP || op == OP_V_READLANE_B32 || op == OP_V_WRITELANE_B32 ||
        op == OP_V_READFIRSTLANE_B32 || op == OP_V_DIV_FMAS_F32 || op == OP_V_DIV_FMAS_F64)
        return true;
    if (emu_is_valu(in))
        for (int i = 0; i < in->nrd; i++)
            if (in->rd[i] < 128)
                return true;
    return false;
}

/* The v_dot opcodes, each with a small id (hazard.c's "same v_dot" test). */
static int dot_id(isa_op op)
{
    switch (op) {
    case OP_V_DOT2_F32_F16: return 1;
    case OP_V_DOT2_I32_I16: return 2;
    case OP_V_DOT2_U32_U16: return 3;
    case OP_V_DOT4_I32_I8: return 4;
    case OP_V_DOT4_U32_U8: return 5;
    case OP_V_DOT2C_F32_F16: return 6;
    default: return 0;
    }
}

/* The writer kind in leaves on the registers it writes, and its passes (an
 * MFMA's) or v_dot id. A v_dot is HZ_DOT here; on a target without v_dot
 * rules hz_after records it as HZ_VALU. */
static void hz_writer(emu_inst *in)
{
    isa_op op = (isa_op)in->op;
    in->hz_passes = 0;
    if (in->cls == EC_MFMA) {
        in->hz_kind = (uint8_t)(HZ_MFMA | (in->mfma_xdl ? HZ_XDL : 0));
        in->hz_passes = in->mfma_passes;
    } else if (op == OP_V_ACCVGPR_WRITE_B32)
        in->hz_kind = HZ_ACCW;
    else if (op == OP_V_ACCVGPR_READ_B32)
        in->hz_kind = HZ_ACCR;
    else if (dot_id(op)) {
        in->hz_kind = HZ_DOT;
        in->hz_passes = (uint8_t)dot_id(op);
    } else
        in->hz_kind = emu_is_valu(in) ? HZ_VALU : HZ_OTHER;
}

void emu_inst_finalize(emu_inst *in)
{
    isa_op op = (isa_op)in->op;
    in->nrd = in->nwr = 0;
    in->cycles = 4;
    if (!in->info) { /* unknown encoding: faults when executed */
        in->cls = EC_OTHER;
        in->hz_scalar = in->hz_always = in->hz_passes = in->hz_plain = 0;
        in->hz_kind = HZ_OTHER;
        return;
    }
    switch (in->fmt) {
    case F_SOP1: case F_SOP2: case F_SOPC: case F_SOPK:
        in->cls = EC_SALU;
        in->cycles = 1;
        for (int i = 0; i < 3; i++)
            add_rd(in, &in->src[i]);
        if (op == OP_S_CMOVK_I32 || op == OP_S_ADDK_I32 || op == OP_S_MULK_I32 || op == OP_S_CMOV_B32 ||
            op == OP_S_CMOV_B64)
            add_rd(in, &in->dst);
        if (!flag(in, ISAF_COMPARE))
            add_wr(in, in->dst.code, in->dst.width);
        if (flag(in, ISAF_EXEC_W)) { /* s_*_saveexec_b64 */
            emu_opnd ex = {.code = R_EXEC, .kind = K_SGPR, .width = 2};
            add_rd(in, &ex);
            add_wr(in, R_EXEC, 2);
        }
        break;
    case F_SOPP:
        in->cycles = 1;
        if (op == OP_S_BRANCH || (op >= OP_S_CBRANCH_SCC0 && op <= OP_S_CBRANCH_EXECNZ))
            in->cls = EC_BRANCH;
        else if (op == OP_S_WAITCNT || op == OP_S_NOP || op == OP_S_SLEEP) {
            in->cls = EC_WAIT;
            if (op == OP_S_NOP)
                in->cycles = (uint16_t)((in->simm16 & 15) + 1);
        } else
            in->cls = EC_OTHER;
        break;
    case F_SMEM:
        in->cls = EC_SMEM;
        in->cycles = 1;
        in->is_load = 1;
        add_rd(in, &in->src[0]);
        add_rd(in, &in->src[1]);
        add_wr(in, in->dst.code, in->dst.width);
        break;
    case F_VOP1: case F_VOP2: case F_VOPC: case F_VOP3: case F_VOP3P:
        in->cls = is_fma(op) ? EC_VALU_FMA : is_trans(in) ? EC_VALU_TRANS : is_quarter(op) ? EC_VALU_64 : EC_VALU;
        if (in->cls == EC_VALU_TRANS || in->cls == EC_VALU_64)
            in->cycles = 16;
        else if (in->fmt != F_VOP3P && (in->info->dw == 2 || in->info->s0w == 2 || in->info->s1w == 2)) /* 64-bit */
            in->cycles = 8;
        for (int i = 0; i < 3; i++)
            add_rd(in, &in->src[i]);
        if (op == OP_V_FMAC_F32 || op == OP_V_MAC_F32 || op == OP_V_MAC_F16 || op == OP_V_DOT2C_F32_F16 ||
            op == OP_V_FMAC_F64 || op == OP_V_WRITELANE_B32 || (in->ext == EXT_SDWA && in->sdwa_dst_unused == 2))
            add_rd(in, &in->dst);
        if (op == OP_V_DIV_FMAS_F64 || op == OP_V_DIV_FMAS_F32) { /* reads VCC implicitly (v_div_scale's flags) */
            emu_opnd vcc = {.code = R_VCC, .kind = K_SGPR, .width = 2};
            add_rd(in, &vcc);
        }
        add_wr(in, in->dst.code, in->dst.width);
        add_wr(in, in->sdst.code, 2);
        in->cmpx = in->info->fmt == F_VOPC && flag(in, ISAF_EXEC_W);
        if (in->cmpx)
            add_wr(in, R_EXEC, 2);
        in->fp_mods = flag(in, ISAF_FMOD);
        in->plain_fmac = op == OP_V_FMAC_F32 && in->ext == EXT_NONE && !in->neg && !in->abs && !in->clamp &&
                         !in->omod && in->src[0].kind == K_VGPR && in->src[1].kind == K_VGPR;
        break;
    case F_MAI:
        if (op == OP_V_ACCVGPR_READ_B32 || op == OP_V_ACCVGPR_WRITE_B32) {
            in->cls = EC_VALU;
        } else {
            in->cls = EC_MFMA;
            in->mfma_passes = (uint8_t)emu_mfma_passes(op);
            in->mfma_xdl = (uint8_t)emu_mfma_is_xdl(op);
            in->cycles = (uint16_t)(4 * in->mfma_passes);
        }
        for (int i = 0; i < 3; i++)
            add_rd(in, &in->src[i]);
        add_wr(in, in->dst.code, in->dst.width);
        break;
    case F_DS: {
        in->cls = EC_DS;
        bool read = (in->info->flags & ISAF_LOAD) || op == OP_DS_SWIZZLE_B32 || op == OP_DS_PERMUTE_B32 ||
                    op == OP_DS_BPERMUTE_B32;
        in->is_load = read;
        in->is_store = !read;
        in->is_atomic = (in->info->flags & ISAF_ATOMIC) != 0;
        int dw = read ? in->dst.width : (in->src[1].width + (in->src[2].code != R_NONE ? in->src[2].width : 0));
        bool b8 = flag(in, ISAF_MEM8), b16 = flag(in, ISAF_MEM16);
        if (b8 || b16)
            dw = 1;
        in->mem_dwords = (uint8_t)dw;
        in->mem_bytes = (uint8_t)(b8 ? 1 : b16 ? 2 : 4 * dw);
        in->cycles = (uint16_t)(dw * 256 / 128 < 2 ? 2 : dw * 256 / 128);
        for (int i = 0; i < 3; i++)
            add_rd(in, &in->src[i]);
        if (flag(in, ISAF_D16))
            add_rd(in, &in->dst);
        add_wr(in, in->dst.code, in->dst.width);
        break;
    }
    case F_MUBUF: case F_FLAT: case F_GLOBAL: case F_SCRATCH: {
        bool atomic = flag(in, ISAF_ATOMIC), store = flag(in, ISAF_STORE);
        in->is_atomic = atomic;
        in->is_store = store || atomic;
        in->is_load = !store && !atomic;
        in->cls = in->is_load ? EC_VMEM_LOAD : EC_VMEM_STORE;
        int dw = in->fmt == F_MUBUF ? in->dst.width : (in->is_load ? in->dst.width : in->src[1].width);
        in->mem_dwords = (uint8_t)dw;
        in->mem_bytes = (uint8_t)(flag(in, ISAF_MEM8) ? 1 : flag(in, ISAF_MEM16) ? 2 : 4 * dw);
        in->cycles = (uint16_t)(4 * dw);
        for (int i = 0; i < 3; i++)
            add_rd(in, &in->src[i]);
        if (in->fmt == F_MUBUF) {
            if (in->is_store)
                add_rd(in, &in->dst);
            if (in->is_load)
                add_wr(in, in->dst.code, in->dst.width);
            else if (atomic && (in->glc || in->sc0))
                add_wr(in, in->dst.code, op == OP_BUFFER_ATOMIC_CMPSWAP ? 1 : in->dst.width);
            if (flag(in, ISAF_D16))
                add_rd(in, &in->dst);
        } else {
            add_wr(in, in->dst.code, in->dst.width);
            if (flag(in, ISAF_D16))
                add_rd(in, &in->dst);
        }
        break;
    }
    default:
        in->cls = EC_OTHER;
    }
    in->hz_scalar = hz_scalar_applies(in);
    in->hz_always = in->hz_scalar || in->cls == EC_MFMA || op == OP_V_ACCVGPR_WRITE_B32;
    hz_writer(in);
    in->hz_plain = in->hz_kind == HZ_VALU && in->nwr == 1 && in->wr[0] >= R_V0 && in->wr[0] < R_A0 && !in->is_store;
}
