/* The emulator's decoded instruction form, over the shared operation table
 * (arch/isa.h).
 *
 * Operand codes use one space for every register file:
 *   0..101    SGPRs               102..127  special (vcc 106/107, m0 124, exec 126/127)
 *   128..208  integer constants   240..248  float constants   255  literal
 *   251 vccz  252 execz  253 scc
 *   256..511  VGPRs               512..1023 AGPRs (a0 = 512)
 */
#ifndef IGEMM_EMU_ISA_H
#define IGEMM_EMU_ISA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../arch/isa.h"

/* Register operand codes. */
enum {
    R_VCC = 106, R_M0 = 124, R_EXEC = 126, R_VCCZ = 251, R_EXECZ = 252, R_SCC = 253,
    R_LIT = 255, R_V0 = 256, R_A0 = 512, R_NONE = 0xffff,
};

/* Operand kinds after decoding: every source is resolved to one of these. */
typedef enum { K_NONE, K_SGPR, K_VGPR, K_AGPR, K_CONST } emu_kind;

typedef struct {
    uint16_t code;   /* operand code as above */
    uint8_t kind;    /* emu_kind */
    uint8_t width;   /* dwords */
    uint32_t value;  /* K_CONST: the 32-bit value for the operation's type */
    uint32_t value_hi; /* K_CONST: upper dword for 64-bit operands */
} emu_opnd;

enum { EXT_NONE, EXT_SDWA, EXT_DPP };

/* A decoded instruction. */
typedef struct emu_inst {
    uint16_t op;          /* isa_op */
    uint8_t fmt;          /* encoding actually used (F_VOP3 for _e64 forms) */
    uint8_t ext;          /* EXT_* */
    const isa_opinfo *info;
    uint64_t pc;          /* byte address in the code object */
    uint32_t raw[2];      /* the first two dwords at pc (0 past the end of the code): the
                             encoding, or one word of it and what follows */
    emu_opnd dst, sdst;   /* vdst/sdst/vdata and VOP3b carry-out / VOPC e64 dst */
    emu_opnd src[3];      /* sources (memory: see below) */
    /* VOP3/VOP3P modifiers */
    uint8_t neg, abs, neg_hi, opsel, opsel_hi, clamp, omod;
    /* MAI */
    uint8_t cbsz, abid, blgp, acc_cd;
    /* memory: MUBUF src0 = vaddr, src1 = srsrc, src2 = soffset; DS src0 = addr,
       src1 = data0, src2 = data1; FLAT src0 = addr, src1 = data, src2 = saddr;
       SMEM src0 = sbase, src1 = soffset */
    uint8_t offen, idxen, glc, slc, sc0, sc1, nt, scc_bit, acc, gds;
    int32_t offset;       /* MUBUF/FLAT/SMEM offset; DS offset0 (or 16-bit offset) */
    uint8_t offset1;      /* DS offset1 */
    uint8_t ds_two;       /* DS read2/write2: two elements, at offset (offset0) and offset1 */
    int16_t simm16;       /* SOPP/SOPK immediate */
    int32_t target;       /* branch target: instruction index in the kernel, -1 none */
    /* SDWA / DPP */
    uint8_t sdwa_dst_sel, sdwa_dst_unused, sdwa_src0_sel, sdwa_src1_sel;
    uint8_t sdwa_src0_sext, sdwa_src1_sext;
    uint16_t dpp_ctrl;
    uint8_t dpp_row_mask, dpp_bank_mask, dpp_bound_ctrl;
    /* Filled by emu_inst_finalize: registers read and written (for the
       pending-load and hazard checks), cost class and modeled cycles. */
    uint8_t nrd, nwr;
    uint16_t rd[6], wr[3];
    uint8_t rdw[6], wrw[3];
    uint8_t cls;          /* emu_class (emu.h) */
    uint8_t is_store, is_atomic, is_load;
    uint8_t cmpx;         /* v_cmpx_*: the result also goes to EXEC */
    uint8_t fp_mods;      /* VALU: neg/abs act on f32 sources (f32 ops and v_cndmask) */
    uint8_t plain_fmac;   /* v_fmac_f32 with VGPR sources, no modifiers, no DPP/SDWA */
    uint8_t mfma_passes;  /* MFMA: 4-cycle passes */
    uint8_t mfma_xdl;     /* MFMA: runs on CDNA3's XDL units (emu_mfma_is_xdl) */
    uint8_t mem_dwords;   /* VMEM/DS: dwords per lane (registers) moved */
    uint8_t mem_bytes;    /* VMEM/DS: bytes per lane moved (the timing model's bytes: 1 or 2 for
                             the byte and 16-bit forms, else 4 x mem_dwords) */
    uint16_t cycles;
    uint8_t regs_ok;      /* every register operand inside the kernel's allocation (emu_regs_in_bounds,
                             set by the loader): execution then checks only outstanding loads */
    /* hazards (emu_inst_finalize): rules on SGPRs, EXEC or lane selects may
       apply (hz_scalar); so may those or an MFMA's or v_accvgpr_write's
       (hz_always); the writer kind and passes it leaves on its registers */
    uint8_t hz_scalar, hz_always, hz_kind, hz_passes;
    uint8_t hz_plain;     /* a VALU write of VGPRs alone, no store: hz_after_plain records it */
    /* its register operands in the pending-load bitmap (wave.pend), set by
       the loader (emu_pend_span): npend words, word pend_word[i] under
       pend_mask[i]; EMU_PEND_MANY when they need more (checked per register) */
    uint8_t npend, pend_word[4];
    uint64_t pend_mask[4];
} emu_inst;
#define EMU_PEND_MANY 0xff

/* The type inline float constants take for an operation's sources: the
 * source type of a conversion (v_cvt_DST_SRC), else the operation's type
 * (the op table's ISAF_OT_* flags). */
typedef enum { OT_INT, OT_F16, OT_F32, OT_F64 } emu_optype;
emu_optype emu_op_type(const isa_opinfo *r);

/* Bits of the inline float constants 240..248 (0.5, -0.5, 1.0, -1.0, 2.0,
 * -2.0, 4.0, -4.0, 1/(2*pi)) as f32, f16 and f64. */
extern const uint32_t emu_fconst32[9];
extern const uint16_t emu_fconst16[9];
extern const uint64_t emu_fconst64[9];

/* Per-target decode tables (built once). */
typedef struct emu_decoder emu_decoder;

/* The decode tables of target t (NULL when t is not in the target table). */
const emu_decoder *emu_decoder_get(const target *t);

/* Decode the instruction at code[0..] (avail bytes) whose address is pc.
 * Returns the size in bytes, or 0 with a message in err. */
int emu_decode(const emu_decoder *d, const uint8_t *code, size_t avail, uint64_t pc, emu_inst *out, char *err,
               size_t errlen);

/* A VOP2 with a literal constant K of its own (v_madmk/madak, v_fmamk/fmaak). */
static inline bool emu_vop2_k(int op)
{
    return op == OP_V_MADMK_F32 || op == OP_V_MADAK_F32 || op == OP_V_FMAMK_F32 || op == OP_V_FMAAK_F32;
}

/* Classify a decoded instruction and list the registers it reads and writes. */
void emu_inst_finalize(emu_inst *in);

/* llvm-objdump style text of a decoded instruction ("v_add_u32_e32 v1, s2, v3").
 * Branch targets are printed as llvm-objdump does (signed word offset). */
void emu_disasm(const emu_inst *in, char *buf, size_t len);

#endif
