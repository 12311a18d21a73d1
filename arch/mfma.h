/* The MFMA table (mfma.def, derived from AMD's matrix instruction
 * calculator by tools/isa/gen_mfma.py): per VOP3P-MAI matrix instruction its
 * shape (M x N x K, blocks), execution cycles, A/B input type, register
 * counts, the targets that have it under this spelling, and what its
 * operands may be there. Code picks an instruction by shape and type for a
 * target (mfma_pick) and never spells an MFMA mnemonic itself. */
#ifndef IGEMM_ARCH_MFMA_H
#define IGEMM_ARCH_MFMA_H

#include <stdbool.h>

#include "isa.h"

typedef enum { MFMA_F32, MFMA_F16, MFMA_BF16 } mfma_type;

typedef struct {
    isa_op op;
    int m, n, k, blocks;
    int cycles;                 /* execution cycles; passes = cycles / 4 */
    mfma_type type;             /* A and B element type (C/D are f32) */
    int a_gprs, b_gprs, cd_gprs;
    unsigned targets;           /* T_* mask: targets with this spelling */
    unsigned cd_vgpr_targets;   /* T_* mask: where C/D may be ArchVGPRs (acc_cd = 0) */
    bool ab_agpr;               /* A/B may be AGPRs */
    bool cbsz_abid;             /* CBSZ/ABID broadcast supported */
    bool blgp;                  /* BLGP lane-group pattern supported */
} mfma_info;

extern const mfma_info mfma_table[];
extern const int mfma_table_len;

/* The row of op (NULL: not an MFMA of the table). */
const mfma_info *mfma_by_op(isa_op op);

/* The MFMA with that shape and type on target t (NULL: t has none). */
const mfma_info *mfma_pick(const target *t, int m, int n, int k, int blocks, mfma_type type);

/* The dense matrix peak of target t for A/B type: the FLOPs per clock per
 * SIMD of its fastest MFMA of that type, 2 * M * N * K * blocks / cycles
 * (the table's cycles are one SIMD's issue time); *best (best may be NULL)
 * receives that row (of equally fast ones, the one with fewest blocks). 0 (and NULL) when t has no MFMA of the type. */
double mfma_peak_flops_per_clk(const target *t, mfma_type type, const mfma_info **best);

/* That peak for the whole reference product of t in TFLOP/s: per SIMD per
 * clock x SIMDs per CU x CUs x clock (arch/target.c). */
double mfma_peak_tflops(const target *t, mfma_type type);

/* The mnemonic of an MFMA row, as llvm-mc spells it on its targets. */
const char *mfma_name(const mfma_info *m);

/* Passes (4-cycle steps) of an MFMA: what its hazard waits scale with. */
static inline int mfma_passes(const mfma_info *m) { return m->cycles / 4; }

/* Runs on CDNA3's XDL units (LLVM isXDL: every MFMA but the f32 ones, which
 * gfx940+ executes as "SMFMA"); selects index [0] (XDL) or [1] of the
 * hazard_facts MFMA rules. */
static inline bool mfma_is_xdl(const mfma_info *m) { return m->type != MFMA_F32; }

#endif
