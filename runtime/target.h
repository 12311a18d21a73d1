/* Per-target hardware facts: one const table shared by the generator, the
 * emulator and the runtime. Code asks capabilities (has_mfma,
 * unified_acc_vgprs, ...), never compares target names or generation numbers.
 *
 * Sources: LLVM AMDGPUUsage (register files, descriptor fields, initial
 * register state), GCNHazardRecognizer.cpp (wait states), AMD's CDNA ISA
 * guides and product pages (CU counts, clocks). */
#ifndef IGEMM_TARGET_H
#define IGEMM_TARGET_H

#include <stdbool.h>

typedef struct target {
    const char *name;        /* "gfx906": llvm -mcpu and the code object's target */
    const char *family;      /* human description */
    int num_cu;              /* CUs of the reference product (selection heuristic) */
    double clock_ghz;        /* peak engine clock of the reference product */
    int lds_bytes;           /* LDS per workgroup */
    int arch_vgprs;          /* architectural VGPRs per wave */
    int acc_vgprs;           /* AGPRs per wave (0: none) */
    int max_sgprs;           /* addressable SGPRs incl. VCC (gfx9: 102 + vcc) */
    bool has_fmac;           /* v_fmac_f32 */
    bool has_mfma;           /* matrix FMA (VOP3P-MAI) */
    bool unified_acc_vgprs;  /* gfx90a+: one 512-entry file, AGPRs at accum_offset;
                                MFMA C/D may be VGPRs (acc_cd bit) */
    bool packed_workitem_ids;/* gfx90a+: v0 = x | y << 10 | z << 20 */
    bool mfma_gfx940_names;  /* v_mfma_f32_32x32x2_f32 spellings, 4-pass f32 variants */
    bool cache_bits_sc;      /* gfx940+: sc0/sc1/nt instead of glc/slc */
    bool has_pk_fma_f32;     /* gfx90a+: packed fp32 */
    bool mfma_bf16_1k;       /* gfx90a+: the _1k bf16 MFMA opcodes exist */
    /* Hazard wait states (GCNHazardRecognizer; s_nop N provides N+1). */
    int mfma_read_extra;     /* added to the pass-based MFMA-result-read wait */
    int valu_write_sgpr_vmem_ws; /* VALU writes SGPR -> VMEM reads it */
} target;

/* Targets in a fixed order: gfx906, gfx908, gfx90a, gfx942. */
extern const target *const igemm_targets[];
extern const int igemm_target_count;

/* Look up a target by name; NULL when unknown. */
const target *target_by_name(const char *name);

/* "gfx906, gfx908, gfx90a, gfx942" */
const char *target_names(void);

#endif
