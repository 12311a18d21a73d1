/* Kernel writers. Each appends one kernel to the emitter's code object. */
#ifndef IGEMM_KERN_H
#define IGEMM_KERN_H

#include "../arch/kargs.h"
#include "../conv/v4r1_config.h"
#include "emit.h"

/* The naive dynamic backward-data kernel: one work-item per dx element,
 * loops over y, x and k; every size an argument; the device-side reference. */
void kern_naive(emit *e);

/* Zero a buffer of 32-bit words / of 16-bit halves (dx pixels no phase GEMM
 * writes). */
void kern_fill_zero(emit *e);
void kern_fill_zero16(emit *e);

/* The reductions of the split along GEMM K (igemm_ksplit_sum_fp32/_fp16/
 * _bf16, kern_ksum.c). */
void kern_ksum(emit *e);

/* The v4r1 FMA kernel for one tile configuration (v4r1_config.h); st holds
 * a shape's values for a static twin (its phase table with nph phases),
 * NULL for the dynamic kernel. */
void kern_v4r1(emit *e, const v4r1_config *cfg, const igemm_v4r1_args *st, int nph, const char *name);

/* Declare the metadata of an argument list given as an X-macro. */
#define KARG_DECLARE(type, name, desc) e_karg(e, #name, (int)offsetof(KARG_STRUCT, name), (int)sizeof(((KARG_STRUCT *)0)->name), #type[0] == 'P', 0);

#endif
