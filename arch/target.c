/* The per-target facts table: one struct per target of targets.def, its
 * identity (name, op-table bit, ELF machine) derived from that list.
 *
 * Occupancy facts: AMDGPUUsage ("AMDGPU Processors", register granules of
 * .amdhsa_next_free_vgpr), the CDNA ISA guides (10 waves per SIMD on GCN5
 * and CDNA1, 8 on CDNA2/3; 256 VGPRs + 256 AGPRs per lane on gfx908, one
 * 512-entry unified file on gfx90a/gfx942). Buffer resource dword 3 and the
 * s_waitcnt fields: the Vega/CDNA ISA guides ("Buffer Resource", "S_WAITCNT"). */
#include "target.h"

#include <string.h>

enum {
#define TARGET(name, id, mach) MACH_##id = mach,
#include "targets.def"
#undef TARGET
};
#define IDENT(nm, id) .name = #nm, .bit = T_##id, .elf_mach = MACH_##id

/* what every gfx9 target shares */
#define GFX9_COMMON                                                            \
    .simds_per_cu = 4, .lds_bytes = 65536, .arch_vgprs = 256, .max_sgprs = 102, \
    .sgprs_reserved = 6, .vmcnt_max = 63, .expcnt_max = 7, .lgkmcnt_max = 15,  \
    .buffer_rsrc_word3 = 0x00027000u

static const target t_GFX906 = {
    IDENT(gfx906, GFX906),
    GFX9_COMMON,
    .family = "Vega 20, GCN5 (MI50/MI60)",
    .num_cu = 60,
    .clock_ghz = 1.725,
    .max_waves_per_simd = 10,
    .vgprs_per_simd = 256,
    .vgpr_granule = 4,
    .acc_vgprs = 0,
    .has_fmac = true,
    .hz = {
        .valu_sgpr_vmem = 5,
        .valu_sgpr_lanesel = 4,
        .valu_exec_dpp = 5,
        .valu_vgpr_dpp = 2,
        .store_data_valu = 1,
    },
};

static const target t_GFX908 = {
    IDENT(gfx908, GFX908),
    GFX9_COMMON,
    .family = "CDNA1 (MI100)",
    .num_cu = 120,
    .clock_ghz = 1.502,
    .max_waves_per_simd = 10,
    .vgprs_per_simd = 256,
    .vgpr_granule = 4,
    .acc_vgprs = 256,
    .has_fmac = true,
    .has_mfma = true,
    .hz = {
        .valu_sgpr_vmem = 5,
        .valu_sgpr_lanesel = 4,
        .valu_exec_dpp = 5,
        .valu_vgpr_dpp = 2,
        .store_data_valu = 1,
        .valu_exec_mfma = 4,
        .valu_exec_accw = 4,
        .valu_mfma = 2,
        .valu_accw = 2,
        .accw_mfma_c = 1,
        .accw_mfma_ab = 3,
        .accw_accr = 3,
        .accw_accw = 3,
        .accr_mem = 2,
        .accrw_mem_valu = 1,
        .mfma_c_overlap = {{0, 2}, {0, 2}},
        .mfma_ab = {{0, 4}, {0, 4}},
        .mfma_read = {{1, 2}, {1, 2}},   /* v_accvgpr_read: 4 / 10 / 18 */
        .mfma_waw = {{1, -1}, {1, -1}},  /* v_accvgpr_write: 1 / 7 / 15 */
        .mfma_c_war = {{1, -3}, {1, -3}}, /* v_accvgpr_write: 0 / 5 / 13 */
    },
};

static const target t_GFX90A = {
    IDENT(gfx90a, GFX90A),
    GFX9_COMMON,
    .family = "CDNA2 (MI200)",
    .num_cu = 110,
    .clock_ghz = 1.7,
    .max_waves_per_simd = 8,
    .vgprs_per_simd = 512,
    .vgpr_granule = 8,
    .acc_vgprs = 256,
    .has_fmac = true,
    .has_mfma = true,
    .unified_acc_vgprs = true,
    .packed_workitem_ids = true,
    .mem_scc_bit = true,
    .has_pk_fma_f32 = true,
    .mfma_bf16_1k = true,
    .mfma_16bit_ftz = true,
    .hz = {
        .valu_sgpr_vmem = 5,
        .valu_sgpr_lanesel = 4,
        .valu_exec_dpp = 5,
        .valu_vgpr_dpp = 2,
        .store_data_valu = 1,
        .dot_read = 3,
        .dot_waw = 3,
        .valu_exec_mfma = 4,
        .valu_mfma = 2,
        .accw_mfma_c = 2,
        .accw_mfma_ab = 2,
        .mfma_c_overlap = {{1, 0}, {1, 0}},
        .mfma_ab = {{1, 3}, {1, 3}},
        .mfma_read = {{1, 3}, {1, 3}},   /* 5 / 11 / 19 */
        .mfma_waw = {{1, 3}, {1, 3}},
        .mfma_c_war = {{1, -1}, {1, -1}}, /* 1 / 7 / 15 */
    },
};

static const target t_GFX942 = {
    IDENT(gfx942, GFX942),
    GFX9_COMMON,
    .family = "CDNA3 (MI300)",
    .num_cu = 304,
    .clock_ghz = 2.1,
    .max_waves_per_simd = 8,
    .vgprs_per_simd = 512,
    .vgpr_granule = 8,
    .acc_vgprs = 256,
    .has_fmac = true,
    .has_mfma = true,
    .unified_acc_vgprs = true,
    .packed_workitem_ids = true,
    .mfma_gfx940_names = true,
    .cache_bits_sc = true,
    .has_pk_fma_f32 = true,
    .mfma_bf16_1k = true,
    .hz = {
        .valu_sgpr_vmem = 5,
        .valu_sgpr_lanesel = 4,
        .valu_exec_dpp = 5,
        .valu_vgpr_dpp = 2,
        .store_data_valu = 2,
        .valu_sgpr_valu = 2,
        .valu_exec_lane = 4,
        .valu_vgpr_readlane = 1,
        .dot_read = 3,
        .dot_waw = 3,
        .valu_exec_mfma = 4,
        .valu_mfma = 2,
        .accw_mfma_c = 2,
        .accw_mfma_ab = 2,
        .mfma_c_overlap = {{1, 1}, {1, 0}},
        .mfma_same_c_2pass = 2,
        .mfma_c_smfma_xdl_free = true,
        .mfma_ab = {{1, 3}, {1, 2}},
        .mfma_read = {{1, 3}, {1, 2}},
        .mfma_waw = {{1, 3}, {1, 2}},
        .mfma_c_war = {{1, -1}, {0, 0}},
    },
};

const target *const igemm_targets[] = {
#define TARGET(name, id, mach) [TI_##id] = &t_##id,
#include "targets.def"
#undef TARGET
};
const int igemm_target_count = sizeof igemm_targets / sizeof igemm_targets[0];

const target *target_by_name(const char *name)
{
    if (!name)
        return NULL;
    for (int i = 0; i < igemm_target_count; i++)
        if (!strcmp(igemm_targets[i]->name, name))
            return igemm_targets[i];
    return NULL;
}

const target *target_by_bit(unsigned bit)
{
    for (int i = 0; i < igemm_target_count; i++)
        if (igemm_targets[i]->bit == bit)
            return igemm_targets[i];
    return NULL;
}

const target *target_by_elf_mach(unsigned mach)
{
    for (int i = 0; i < igemm_target_count; i++)
        if (igemm_targets[i]->elf_mach == mach)
            return igemm_targets[i];
    return NULL;
}

const char *target_names(void)
{
    return ""
#define TARGET(nm, id, mach) ", " #nm
#include "targets.def"
#undef TARGET
           + 2;
}
