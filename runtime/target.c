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
    .valu_write_sgpr_vmem_ws = 5,
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
    .valu_write_sgpr_vmem_ws = 5,
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
    .valu_write_sgpr_vmem_ws = 5,
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
    .mfma_read_extra = 2,
    .valu_write_sgpr_vmem_ws = 5,
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
