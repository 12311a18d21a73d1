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

/* A wait-state requirement that grows with the passes (4-cycle steps) of
 * the MFMA involved: need = per_pass * passes + base, never below 0.
 * {0, 0} means no hazard. */
typedef struct {
    int per_pass, base;
} hz_pass_rule;

/* Software-managed hazards: the wait states (one per issued instruction,
 * N+1 for s_nop N) a target needs between two instructions and does not
 * enforce itself. 0 means the target has no such hazard. Every value is from
 * LLVM's GCNHazardRecognizer.cpp (and GCNSubtarget.h for which target has
 * which); docs/EMULATOR.md "Hazards" lists them with their sources, and
 * emu/hazard.c checks them. "VALU" includes v_accvgpr_read/write/mov unless
 * a field says otherwise; MFMA rules index [0] by an XDL MFMA and [1] by an
 * SMFMA (gfx940+ runs f32 MFMAs outside the XDL units; earlier targets have
 * the same value in both). */
typedef struct {
    /* VALU and VMEM, every gfx9 target */
    int valu_sgpr_vmem;      /* VALU writes SGPR -> VMEM reads it: 5 */
    int valu_sgpr_lanesel;   /* VALU writes SGPR -> v_readlane/v_writelane lane select: 4 */
    int valu_vcc_div_fmas;   /* VALU writes VCC -> v_div_fmas reads it: 4 */
    int valu_exec_dpp;       /* VALU writes EXEC -> DPP operation: 5 */
    int valu_vgpr_dpp;       /* VALU writes VGPR -> DPP reads it: 2 */
    int store_data_valu;     /* VMEM store of > 8 bytes -> VALU writes its data registers */
    /* VALU writes SGPRs without interlock (gfx940+, hasVDecCoExecHazard) */
    int valu_sgpr_valu;      /* VALU writes SGPR/VCC -> VALU reads it */
    int valu_exec_lane;      /* VALU writes EXEC -> v_readlane/v_readfirstlane/v_writelane */
    int valu_vgpr_readlane;  /* VALU writes VGPR -> v_readlane/v_readfirstlane reads it */
    /* v_dot* results (gfx90a+) */
    int dot_read;            /* v_dot writes -> another opcode reads it, or the same v_dot as A/B */
    int dot_waw;             /* v_dot writes -> another opcode overwrites it */
    /* MFMA and the AGPR moves */
    int valu_exec_mfma;      /* VALU writes EXEC -> MFMA */
    int valu_exec_accw;      /* VALU writes EXEC -> v_accvgpr_write (gfx908) */
    int valu_mfma;           /* VALU (not v_accvgpr_write, not v_dot) writes -> MFMA reads it */
    int valu_accw;           /* VALU writes VGPR -> v_accvgpr_write reads it (gfx908) */
    int accw_mfma_c;         /* v_accvgpr_write -> MFMA reads it as C */
    int accw_mfma_ab;        /* v_accvgpr_write -> MFMA reads it as A/B */
    int accw_accr;           /* v_accvgpr_write -> v_accvgpr_read of it (gfx908) */
    int accw_accw;           /* v_accvgpr_write -> v_accvgpr_write of it (gfx908) */
    int accr_mem;            /* v_accvgpr_read -> VMEM/DS reads its VGPR (gfx908) */
    int accrw_mem_valu;      /* VALU writes VGPR, v_accvgpr_read/write just before a VMEM/DS
                                that reads it (gfx908) */
    hz_pass_rule mfma_c_overlap[2]; /* MFMA writes -> MFMA reads an overlapping, not identical C */
    int mfma_same_c_2pass;   /* 2-pass MFMA writes -> MFMA reads exactly that C (gfx940+) */
    bool mfma_c_smfma_xdl_free; /* SMFMA writes -> XDL MFMA reads it as C: no wait (gfx940+) */
    hz_pass_rule mfma_ab[2]; /* MFMA writes -> MFMA reads it as A/B */
    hz_pass_rule mfma_read[2]; /* MFMA writes -> any other instruction reads it */
    hz_pass_rule mfma_waw[2];  /* MFMA writes -> any other instruction overwrites it */
    hz_pass_rule mfma_c_war[2]; /* MFMA reads C -> any other instruction overwrites it */
} hazard_facts;

/* Machine facts of the timing model (emu/timing*.c, docs/TIMING.md lists
 * every value with its source). Rates are per CU per clock unless noted;
 * latencies are cycles from issue to the data being usable. The latencies
 * are estimates (see docs/TIMING.md "Constants"): no vendor publishes them. */
typedef struct {
    int sgprs_per_simd;      /* SGPR file per SIMD (800 on gfx9) */
    int lds_alloc_granule;   /* LDS allocation step in bytes (128 dwords) */
    int max_wg_per_cu;       /* workgroups of more than one wave per CU (barrier slots) */
    int lds_bytes_per_clk;   /* LDS bandwidth per CU */
    int l1_bytes_per_clk;    /* vector memory (TA/TD, L1) bandwidth per CU */
    int l2_bytes;            /* L2 size (per GCD / all XCDs) */
    int l2_bytes_per_clk;    /* L2 bandwidth of the whole device (channels x bytes) */
    double hbm_tbps;         /* HBM bandwidth, TB/s (1e12 bytes/s): the product's peak */
    double hbm_achievable;   /* share of hbm_tbps a streaming kernel reaches (published
                                STREAM/BabelStream-type measurements) */
    double launch_us;        /* per launch: dispatch of back-to-back kernels (published
                                dispatch-latency microbenchmarks) */
    /* memory hierarchy: a VMEM instruction moves whole lines of line_bytes
       (the vector L1's line, the unit the address path (TA) coalesces lanes
       into and the L2 and HBM are charged in); a per-CU vector L1 of
       l1_bytes, l1_ways-way LRU, write-through without write allocation; a
       device L2 of l2_bytes, l2_ways-way LRU, write-back */
    int line_bytes;
    int l1_bytes, l1_ways;
    int l2_ways;
    int l2_instances;        /* L2s the device's L2 is split into (0: one; MI300X: one per XCD, 8); a CU
                                uses only its own */
    /* LDS banks: ds_read_b128 serviced in CDNA3's interleaved 8-lane groups
       (lanes 0-3 with 20-23, 4-7 with 16-19, ...) instead of 8 consecutive
       lanes */
    bool lds_b128_cdna3_groups;
    /* vector and matrix throughput in FLOPs per CU per clock (0: none) */
    int valu_flops_f32;      /* v_fmac_f32 / v_fma_f32 */
    int valu_flops_pk_f32;   /* v_pk_fma_f32 */
    int valu_flops_pk_f16;   /* v_pk_fma_f16 */
    int mfma_flops_f32, mfma_flops_f16, mfma_flops_bf16; /* dense MFMA peak */
    /* latencies (cycles) */
    int lat_salu;            /* SALU result to a dependent instruction */
    int lat_smem;            /* scalar load, scalar cache hit */
    int lat_lds;             /* ds_read to data */
    int lat_l1;              /* vector load that hits the vector L1 */
    int lat_l2;              /* vector load that hits L2 */
    int lat_hbm;             /* vector load that misses L2 */
} timing_facts;

/* Target indices and op-table bits, from the one list (targets.def). */
enum {
#define TARGET(name, id, mach) TI_##id,
#include "targets.def"
#undef TARGET
    TARGET_COUNT
};
enum {
#define TARGET(name, id, mach) T_##id = 1u << TI_##id,
#include "targets.def"
#undef TARGET
};

typedef struct target {
    const char *name;        /* "gfx906": llvm -mcpu and the code object's target */
    const char *family;      /* human description */
    unsigned bit;            /* T_* bit of the op table's target masks */
    unsigned elf_mach;       /* EF_AMDGPU_MACH of its code objects */
    int num_cu;              /* CUs of the reference product (selection heuristic) */
    double clock_ghz;        /* peak engine clock of the reference product */
    /* occupancy: per CU simds_per_cu SIMDs, each holding at most
       max_waves_per_simd waves; a wave's VGPRs (plus AGPRs where the file is
       unified or, on gfx908, shares the granule) come in vgpr_granule steps
       out of vgprs_per_simd per lane; LDS per workgroup and per CU */
    int simds_per_cu;
    int max_waves_per_simd;
    int vgprs_per_simd;      /* registers per lane of one SIMD's file(s) a wave allocates from */
    int vgpr_granule;        /* VGPR allocation step (AMDGPUUsage: 4 on gfx9, 8 on gfx90a+) */
    int lds_bytes;           /* LDS per workgroup (and per CU) */
    int arch_vgprs;          /* architectural VGPRs per wave */
    int acc_vgprs;           /* AGPRs per wave (0: none) */
    int max_sgprs;           /* addressable SGPRs incl. VCC (gfx9: 102 + vcc) */
    int sgprs_reserved;      /* SGPRs at the top the allocator leaves alone (vcc, xnack_mask) */
    /* s_waitcnt field limits (gfx9: vmcnt 6 bits split 4 + 2, expcnt 3, lgkmcnt 4) */
    int vmcnt_max, expcnt_max, lgkmcnt_max;
    unsigned buffer_rsrc_word3; /* buffer resource dword 3 of a raw 32-bit tensor:
                                   DST_SEL xyzw, NUM_FORMAT float, DATA_FORMAT 32 */
    bool has_fmac;           /* v_fmac_f32 */
    bool has_mfma;           /* matrix FMA (VOP3P-MAI) */
    bool has_dot2_f16;       /* v_dot2_f32_f16 (VOP3P): d = a.lo*b.lo + a.hi*b.hi + c, fp16
                                pairs into fp32 (every gfx9 target here: gfx906's dot
                                instructions, kept on CDNA) */
    bool unified_acc_vgprs;  /* gfx90a+: one 512-entry file, AGPRs at accum_offset;
                                MFMA C/D may be VGPRs (acc_cd bit) */
    bool packed_workitem_ids;/* gfx90a+: v0 = x | y << 10 | z << 20 */
    bool mfma_gfx940_names;  /* v_mfma_f32_32x32x2_f32 spellings, 4-pass f32 variants */
    bool cache_bits_sc;      /* gfx940+: sc0/sc1/nt instead of glc/slc */
    bool mem_scc_bit;        /* gfx90a: MUBUF/FLAT bit 15 (dword 0) / 17 is SCC */
    bool architected_flat_scratch; /* gfx940+ (AMDGPUUsage processor table "Architected flat
                                scratch"): the hardware sets each wave's FLAT_SCRATCH base; no
                                private segment buffer or flat scratch init user SGPRs */
    bool scratch_sve_bit;    /* gfx940+: SCRATCH dword 0 bit 13 (SVE) says VADDR is used
                                (before: VADDR is used when SADDR is off) */
    bool has_pk_fma_f32;     /* gfx90a+: packed fp32 */
    bool mfma_bf16_1k;       /* gfx90a+: the _1k bf16 MFMA opcodes exist */
    bool force_store_sc0_sc1;/* gfx940/gfx941: LLVM sets sc0 sc1 on every store
                                (FeatureForceStoreSC0SC1); informational: the
                                timing model's stores write through L1 anyway */
    /* Emulate-only rows: the project builds no code objects for them
       (igemmgen and the library refuse them); the emulator loads foreign
       code objects built for them and decodes them with the op-table bit of
       isa_alias (0: the target's own bit). */
    bool emulate_only;
    unsigned isa_alias;
    bool mfma_16bit_ftz;     /* gfx90a (MI200): the f16, bf16 and bf16_1k MFMAs read subnormal
                                A/B elements and C values as zero and write subnormal results
                                as zero (AMD: MIOpen "MI200 MFMA behavior specifics", PyTorch
                                "Reduced precision ... on AMD Instinct MI200"); f32/f64 MFMAs
                                do not; no other target does (docs/EMULATOR.md "Denormals") */
    bool dot2_f16_ftz;       /* gfx90a: v_dot2_f32_f16 flushes subnormal inputs and outputs too
                                (PyTorch's MI200 note: "the FP16 and BF16 V_DOT2 and MFMA matrix
                                instructions flush"); the emulator does not model it yet, so
                                the library treats such kernels as flushing (fp16_mode) */
    hazard_facts hz;         /* software-managed hazards (below) */
    timing_facts tm;         /* the timing model's machine facts (above) */
} target;

/* Targets in the order of targets.def; igemm_targets[TI_x] is target x. */
extern const target *const igemm_targets[];
extern const int igemm_target_count;

/* The op-table bit a target's instructions decode with. */
static inline unsigned target_isa_bit(const target *t) { return t->isa_alias ? t->isa_alias : t->bit; }

/* The target whose op-table bit is bit, or whose ELF machine is mach; NULL
 * when none. */
const target *target_by_bit(unsigned bit);
const target *target_by_elf_mach(unsigned mach);

/* The emulator's default target: the first of targets.def. */
#define TARGET_DEFAULT (igemm_targets[0])

/* Look up a target by name; NULL when unknown. */
const target *target_by_name(const char *name);

/* "gfx906, gfx908, gfx90a, gfx942, gfx940, gfx941": every name of targets.def */
const char *target_names(void);

/* "gfx906, gfx908, gfx90a, gfx942": the targets the project builds kernels
 * for (every row but the emulate-only ones) */
const char *target_names_generated(void);

#endif
