/* Kernel writers. Each appends one kernel to the emitter's code object. */
#ifndef IGEMM_KERN_H
#define IGEMM_KERN_H

#include "../arch/kargs.h"
#include "../conv/v4r1_config.h"
#include "emit.h"

/* The naive dynamic backward-data kernel: one work-item per dx element,
 * loops over y, x and k; every size an argument; the device-side reference. */
void kern_naive(emit *e);

/* What naive_taps reads: SGPRs (or operands an SGPR may be) holding the
 * tap geometry and the byte strides of dy and w (arch/kargs.h names). */
typedef struct {
    opnd pad_h, pad_w, dil_h, dil_w, stride_h, stride_w, mdiv_sh, shift_sh, mdiv_sw, shift_sw;
    opnd ho, wo, fy, fx, kg, dy_sk, dy_sh, dy_sw, w_sk, w_sy, w_sx;
    igemm_dtype round_to; /* where not zero: each factor rounded to this type (to nearest
                             even) before it is multiplied (the fp16alt kernels' bf16) */
} naive_geom;

/* The naive recompute of a dx element (gen/kern_naive.c; the non-finite
 * guard of the v4r1 kernels shares it): v_acc += w * dy over every filter
 * tap whose dy pixel exists for the lane's (v_hi, v_wi) and the K/G
 * channels of its group, from the lane's w and dy byte offsets v_wbase and
 * v_dybase (channel 0 of the group, tap 0). An invalid tap is no term: the
 * lanes where it is invalid leave EXEC (never 0 x w). Lanes of s_valid;
 * s_tmp: 4 scalar scratch registers; EXEC is left changed. */
void naive_taps(emit *e, igemm_dtype dt, const naive_geom *g, opnd s_valid, opnd s_tmp, opnd v_acc, opnd v_hi,
                opnd v_wi, opnd v_wbase, opnd v_dybase, opnd s_rsrc_w, opnd s_rsrc_dy);

/* Zero a buffer of 32-bit words / of 16-bit halves (dx pixels no phase GEMM
 * writes). */
void kern_fill_zero(emit *e);
void kern_fill_zero16(emit *e);

/* The reductions of the split along GEMM K (igemm_ksplit_sum_fp32/_fp16/
 * _bf16, kern_ksum.c). */
void kern_ksum(emit *e);

/* The filter copies of the _kyxc solvers: an NCHW problem's w in K, Y, X,
 * C/G order (igemm_w_kyxc_b32 / _b16, kern_wkyxc.c). */
void kern_w_kyxc(emit *e);

/* The v4r1 FMA kernel for one tile configuration (v4r1_config.h); st holds
 * a shape's values for a static twin (its phase table with nph phases),
 * NULL for the dynamic kernel. */
void kern_v4r1(emit *e, const v4r1_config *cfg, const igemm_v4r1_args *st, int nph, const char *name);

/* Declare the metadata of an argument list given as an X-macro. */
#define KARG_DECLARE(type, name, desc) e_karg(e, #name, (int)offsetof(KARG_STRUCT, name), (int)sizeof(((KARG_STRUCT *)0)->name), #type[0] == 'P', 0);

#endif
