/* The per-target facts table: one struct per target of targets.def, its
 * identity (name, op-table bit, ELF machine) derived from that list.
 *
 * Occupancy facts: AMDGPUUsage ("AMDGPU Processors", register granules of
 * .amdhsa_next_free_vgpr), the CDNA ISA guides (10 waves per SIMD on GCN5
 * and CDNA1, 8 on CDNA2/3; 256 VGPRs + 256 AGPRs per lane on gfx908, one
 * 512-entry unified file on gfx90a/gfx942). Buffer resource dword 3 and the
 * s_waitcnt fields: the Vega/CDNA ISA guides ("Buffer Resource", "S_WAITCNT").
 *
 * Timing-model facts (.tm; docs/TIMING.md "Constants" gives each source):
 * SGPR file 800 per SIMD and the 16 barrier slots per CU: the Vega ISA
 * guide and AMD's GCN OpenCL optimization guide; LDS 128 B/clk/CU and L1
 * 64 B/clk/CU: the GCN/CDNA whitepapers (CDNA3: 128 B/clk L1); L2 sizes and
 * channel counts x bytes per clock: the Vega 20, CDNA1, CDNA2 and CDNA3
 * whitepapers; HBM: product pages (MI50 1.024, MI100 1.2288, MI250X 3.2768
 * for two GCDs, MI300X 5.3 TB/s); FLOPs per CU per clock: product peak
 * FLOP/s / (CUs x clock), which is also what the ISA guides' MFMA tables
 * give. Latencies are estimates of the right order (public pointer-chase
 * microbenchmarks), not vendor data. */
#include "target.h"

#include <pthread.h>
#include <stdio.h>
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

#define TM_COMMON .sgprs_per_simd = 800, .lds_alloc_granule = 512, .max_wg_per_cu = 16, .lds_bytes_per_clk = 128, \
                  .valu_flops_f32 = 128, .valu_flops_pk_f16 = 256, .lat_salu = 1, .lat_smem = 40, .lat_lds = 64,  \
                  .l1_ways = 16, .l2_ways = 16, \
                  .hbm_achievable = 0.8, .launch_us = 3.5

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
    .has_dot2_f16 = true,
    .tm = {TM_COMMON, .l1_bytes_per_clk = 64, .l2_bytes = 4 << 20, .l2_bytes_per_clk = 16 * 64,
           .hbm_tbps = 1.024, .line_bytes = 64, .l1_bytes = 16 << 10,
           .lat_l1 = 120, .lat_l2 = 300, .lat_hbm = 600},
    .hz = {
        .valu_sgpr_vmem = 5,
        .valu_sgpr_lanesel = 4,
        .valu_vcc_div_fmas = 4,
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
    .has_dot2_f16 = true,
    .tm = {TM_COMMON, .l1_bytes_per_clk = 64, .l2_bytes = 8 << 20, .l2_bytes_per_clk = 32 * 64,
           .hbm_tbps = 1.2288, .line_bytes = 64, .l1_bytes = 16 << 10,
           .mfma_flops_f32 = 256, .mfma_flops_f16 = 1024, .mfma_flops_bf16 = 512,
           .lat_l1 = 120, .lat_l2 = 300, .lat_hbm = 650},
    .hz = {
        .valu_sgpr_vmem = 5,
        .valu_sgpr_lanesel = 4,
        .valu_vcc_div_fmas = 4,
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
    .has_dot2_f16 = true,
    .unified_acc_vgprs = true,
    .packed_workitem_ids = true,
    .mem_scc_bit = true,
    .has_pk_fma_f32 = true,
    .mfma_bf16_1k = true,
    .tm = {TM_COMMON, .l1_bytes_per_clk = 64, .l2_bytes = 8 << 20, .l2_bytes_per_clk = 32 * 128,
           .hbm_tbps = 1.6384, .line_bytes = 64, .l1_bytes = 16 << 10,
           .lat_l1 = 120, .valu_flops_pk_f32 = 256, .mfma_flops_f32 = 256, .mfma_flops_f16 = 1024,
           .mfma_flops_bf16 = 1024, .lat_l2 = 300, .lat_hbm = 700},
    .mfma_16bit_ftz = true,
    .dot2_f16_ftz = true,
    .hz = {
        .valu_sgpr_vmem = 5,
        .valu_sgpr_lanesel = 4,
        .valu_vcc_div_fmas = 4,
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

/* CDNA3: gfx942 and the pre-production MI300 steppings gfx940/gfx941 share
 * every fact the emulator and the generator use (same ISA for these kernels;
 * LLVM GCNSubtarget: FeatureISAVersion9_4_Common). */
#define CDNA3_COMMON                                                           \
    GFX9_COMMON,                                                               \
    .num_cu = 304,                                                             \
    .clock_ghz = 2.1,                                                          \
    .max_waves_per_simd = 8,                                                   \
    .vgprs_per_simd = 512,                                                     \
    .vgpr_granule = 8,                                                         \
    .acc_vgprs = 256,                                                          \
    .has_fmac = true,                                                          \
    .has_mfma = true,                                                          \
    .has_dot2_f16 = true,                                                      \
    .unified_acc_vgprs = true,                                                 \
    .packed_workitem_ids = true,                                               \
    .mfma_gfx940_names = true,                                                 \
    .cache_bits_sc = true,                                                     \
    .architected_flat_scratch = true,                                          \
    .scratch_sve_bit = true,                                                   \
    .has_pk_fma_f32 = true,                                                    \
    .mfma_bf16_1k = true,                                                      \
    .hz = {                                                                    \
        .valu_sgpr_vmem = 5,                                                   \
        .valu_sgpr_lanesel = 4,                                                \
        .valu_vcc_div_fmas = 4,                                                \
        .valu_exec_dpp = 5,                                                    \
        .valu_vgpr_dpp = 2,                                                    \
        .store_data_valu = 2,                                                  \
        .valu_sgpr_valu = 2,                                                   \
        .valu_exec_lane = 4,                                                   \
        .valu_vgpr_readlane = 1,                                               \
        .dot_read = 3,                                                         \
        .dot_waw = 3,                                                          \
        .valu_exec_mfma = 4,                                                   \
        .valu_mfma = 2,                                                        \
        .accw_mfma_c = 2,                                                      \
        .accw_mfma_ab = 2,                                                     \
        .mfma_c_overlap = {{1, 1}, {1, 0}},                                    \
        .mfma_same_c_2pass = 2,                                                \
        .mfma_c_smfma_xdl_free = true,                                         \
        .mfma_ab = {{1, 3}, {1, 2}},                                           \
        .mfma_read = {{1, 3}, {1, 2}},                                         \
        .mfma_waw = {{1, 3}, {1, 2}},                                          \
        .mfma_c_war = {{1, -1}, {0, 0}},                                       \
    },                                                                         \
    .tm = {TM_COMMON, .l1_bytes_per_clk = 128, .l2_bytes = 8 * (4 << 20), .l2_bytes_per_clk = 8 * 16 * 128, \
           .hbm_tbps = 5.3, .line_bytes = 128, .l1_bytes = 32 << 10,        \
           .lds_b128_cdna3_groups = true, .l2_instances = 8, .lat_l1 = 120, .valu_flops_pk_f32 = 256, .mfma_flops_f32 = 256, .mfma_flops_f16 = 2048,       \
           .mfma_flops_bf16 = 2048, .lat_l2 = 450, .lat_hbm = 900}

static const target t_GFX942 = {
    IDENT(gfx942, GFX942),
    CDNA3_COMMON,
    .family = "CDNA3 (MI300A/MI300X)",
};

/* Emulate-only: foreign code objects of the first MI300 steppings, decoded
 * as gfx942. What differs: LLVM forces sc0 sc1 on their stores
 * (FeatureForceStoreSC0SC1 in AMDGPU.td, gfx940 and gfx941 only). */
static const target t_GFX940 = {
    IDENT(gfx940, GFX940),
    CDNA3_COMMON,
    .family = "CDNA3 (MI300, pre-production gfx940; emulate-only)",
    .force_store_sc0_sc1 = true,
    .emulate_only = true,
    .isa_alias = T_GFX942,
};

static const target t_GFX941 = {
    IDENT(gfx941, GFX941),
    CDNA3_COMMON,
    .family = "CDNA3 (MI300, pre-production gfx941; emulate-only)",
    .force_store_sc0_sc1 = true,
    .emulate_only = true,
    .isa_alias = T_GFX942,
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

static char generated_names[256];
static pthread_once_t generated_once = PTHREAD_ONCE_INIT;

static void make_generated_names(void)
{
    size_t n = 0;
    for (int i = 0; i < igemm_target_count; i++)
        if (!igemm_targets[i]->emulate_only)
            n += (size_t)snprintf(generated_names + n, sizeof generated_names - n, "%s%s", n ? ", " : "",
                                  igemm_targets[i]->name);
}

const char *target_names_generated(void)
{
    pthread_once(&generated_once, make_generated_names);
    return generated_names;
}
