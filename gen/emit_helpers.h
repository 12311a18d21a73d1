/* Semantic helpers over the format functions: target spellings, argument
 * loading, division, buffer resources, exec-masked regions. */
#ifndef IGEMM_EMIT_HELPERS_H
#define IGEMM_EMIT_HELPERS_H

#include "emit.h"
#include "../include/igemm.h"

/* Load ndwords kernel-argument dwords starting at byte offset into dst
 * (an SGPR range), splitting into the widest aligned s_load_dwordxN. */
void h_load_kargs(emit *e, opnd karg_ptr, opnd dst, int offset, int ndwords);

/* The workitem id x in a VGPR (masks the packed y/z bits where the target
 * packs them). Returns v0 named "v_tid". */
opnd h_workitem_id(emit *e);

/* q = n / d with the magic pair (magic, shift) in SGPRs; q != n. */
void h_mdiv_v(emit *e, opnd q, opnd n, opnd s_magic, opnd s_shift);
/* q = n / d and r = n - q * d. */
void h_mdiv_rem_v(emit *e, opnd r, opnd q, opnd n, opnd s_magic, opnd s_shift, opnd s_d);
void h_mdiv_s(emit *e, opnd q, opnd n, opnd s_magic, opnd s_shift);
void h_mdiv_rem_s(emit *e, opnd r, opnd q, opnd n, opnd s_magic, opnd s_shift, opnd s_d);

/* Buffer resource (4 aligned SGPRs) from a 64-bit pointer and a byte count. */
void h_buffer_rsrc(emit *e, opnd rsrc, opnd ptr, opnd bytes);

/* d = a + b without carry (gfx9 spelling v_add_u32). */
void h_vadd(emit *e, opnd d, opnd a, opnd b);
void h_vsub(emit *e, opnd d, opnd a, opnd b);
/* d = a * b (low 32 bits). */
void h_vmul_lo(emit *e, opnd d, opnd a, opnd b);
void h_vmov(emit *e, opnd d, opnd a);
void h_smov(emit *e, opnd d, opnd a);

/* A 16-bit element (low half of v) widened to fp32 in place: fp16 by the
 * conversion (exact, subnormals included), bf16 by moving it to the high
 * half (bf16 is the top half of an fp32); fp32: nothing. */
void h_widen16(emit *e, igemm_dtype dt, opnd v);
/* The same from the low half of src into d. */
void h_widen16_to(emit *e, igemm_dtype dt, opnd d, opnd src);

/* fp32 v to dt in its low half, rounded to nearest even: fp16 by the
 * conversion (overflow to inf, subnormals kept); bf16 by adding 0x7fff plus
 * the result's lowest bit and keeping the top half, NaN kept a quiet NaN
 * (v_nan holds h_narrow16_nan's; v_tmp and the SGPR pair s_m are scratch). */
void h_narrow16(emit *e, igemm_dtype dt, opnd v, opnd v_tmp, opnd v_nan, opnd s_m);

/* Two fp32 values narrowed to dt as h_narrow16 rounds them and packed:
 * dst = (hi << 16) | lo (dst may be lo or hi; both are clobbered). bf16
 * rounds each in its high half (four VALU a value, no shift) and packs
 * the high halves; fp16 converts and packs the low halves. v_tmp is a
 * scratch VGPR and s_m a scratch SGPR pair (bf16 only); the SGPR pair
 * s_k holds h_narrow16x2_consts' (the rounding bias and the
 * v_perm_b32 selector of the pack); v_nan is h_narrow16_nan's, or NOOP
 * where the caller knows the values are not NaN (bf16: two VALU a value,
 * no s_m). */
void h_narrow16x2_consts(emit *e, igemm_dtype dt, opnd s_k);
void h_narrow16x2(emit *e, igemm_dtype dt, opnd dst, opnd lo, opnd hi, opnd v_tmp, opnd v_nan, opnd s_m, opnd s_k);

/* Two fp16 values (the halves of v) rounded to bf16 in place, each to
 * nearest even through its exact fp32 value (fp16's subnormals become
 * normal bf16s, a NaN the quiet NaN 0x7fc0, as h_narrow16 rounds); t0, t1
 * and v_tmp are scratch VGPRs, s_m a scratch SGPR pair, v_nan and the SGPR
 * pair s_k hold h_f16x2_to_bf16x2_consts'. H_F16X2_TO_BF16X2_VALU
 * instructions (two conversions and a shift in, four per value, one pack). */
#define H_F16X2_TO_BF16X2_VALU 12
void h_f16x2_to_bf16x2_consts(emit *e, opnd v_nan, opnd s_k);
void h_f16x2_to_bf16x2(emit *e, opnd v, opnd t0, opnd t1, opnd v_tmp, opnd v_nan, opnd s_m, opnd s_k);

/* v_nan = the quiet NaN h_narrow16 writes for bf16 (0x7fc0), in the high
 * half (0x7fc00000: the rounding keeps its value there); nothing for
 * the other types, which do not read it. */
void h_narrow16_nan(emit *e, igemm_dtype dt, opnd v_nan);

#endif
