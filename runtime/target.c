/* The per-target facts table. */
#include "target.h"

#include <string.h>

static const target gfx906 = {
    .name = "gfx906",
    .family = "Vega 20, GCN5 (MI50/MI60)",
    .num_cu = 60,
    .clock_ghz = 1.725,
    .lds_bytes = 65536,
    .arch_vgprs = 256,
    .acc_vgprs = 0,
    .max_sgprs = 102,
    .has_fmac = true,
    .hz = {
        .valu_sgpr_vmem = 5,
        .valu_sgpr_lanesel = 4,
        .valu_exec_dpp = 5,
        .valu_vgpr_dpp = 2,
        .store_data_valu = 1,
    },
};

static const target gfx908 = {
    .name = "gfx908",
    .family = "CDNA1 (MI100)",
    .num_cu = 120,
    .clock_ghz = 1.502,
    .lds_bytes = 65536,
    .arch_vgprs = 256,
    .acc_vgprs = 256,
    .max_sgprs = 102,
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

static const target gfx90a = {
    .name = "gfx90a",
    .family = "CDNA2 (MI200)",
    .num_cu = 110,
    .clock_ghz = 1.7,
    .lds_bytes = 65536,
    .arch_vgprs = 256,
    .acc_vgprs = 256,
    .max_sgprs = 102,
    .has_fmac = true,
    .has_mfma = true,
    .unified_acc_vgprs = true,
    .packed_workitem_ids = true,
    .has_pk_fma_f32 = true,
    .mfma_bf16_1k = true,
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

static const target gfx942 = {
    .name = "gfx942",
    .family = "CDNA3 (MI300)",
    .num_cu = 304,
    .clock_ghz = 2.1,
    .lds_bytes = 65536,
    .arch_vgprs = 256,
    .acc_vgprs = 256,
    .max_sgprs = 102,
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

const target *const igemm_targets[] = {&gfx906, &gfx908, &gfx90a, &gfx942};
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

const char *target_names(void) { return "gfx906, gfx908, gfx90a, gfx942"; }
