/* Occupancy: the one formula for how many registers a wave of a kernel
 * allocates, how many of its waves a SIMD holds and how many of its
 * workgroups a CU holds, from the kernel's register and LDS use and the
 * target's files. The generator (the descriptor's register count and its
 * limit), the selection heuristic (conv/heuristic.c) and the timing model
 * (emu/timing_occ.c) all use it; docs/TIMING.md "Occupancy" has the rule.
 *
 * VGPRs: gfx908 allocates VGPRs and AGPRs from two files of 256 with one
 * count (the larger); gfx90a/gfx942 one file of 512 with the AGPRs after
 * accum_offset, a multiple of 4 (AMDGPUUsage; LLVM's getTotalNumVGPRs);
 * the allocation comes in vgpr_granule steps out of vgprs_per_simd per lane.
 * SGPRs: blocks of 16 out of the SIMD's SGPR file. LDS: the group segment
 * rounded up to the allocation granule out of the CU's LDS. Workgroups of
 * more than one wave also need one of the CU's barrier slots. */
#ifndef IGEMM_OCCUPANCY_H
#define IGEMM_OCCUPANCY_H

#include "target.h"

/* A kernel's allocation: VGPRs and AGPRs as the kernel uses them (on a
 * unified file, vgprs may already be its accum_offset), SGPRs (0: not
 * known, no SGPR limit), LDS bytes of one workgroup. */
typedef struct {
    int vgprs, agprs, sgprs, lds_bytes;
} kernel_alloc;

typedef struct {
    int waves_per_simd;  /* min of the wave slots, the VGPR and the SGPR limits */
    int lds_alloc;       /* bytes of LDS one workgroup allocates */
    int max_wg;          /* workgroups per CU (LDS, barrier slots, wave slots) */
    const char *limit;   /* what sets waves_per_simd: "slots", "VGPRs", "SGPRs" */
} occupancy;

/* Where the AGPRs start on a unified file (vgprs rounded up to 4); vgprs
 * elsewhere. */
int target_accum_offset(const target *t, int vgprs);

/* The registers per lane a wave of vgprs VGPRs and agprs AGPRs allocates
 * before the granule: accum_offset + agprs on a unified file, the larger
 * of the two on gfx908 (one count for both files), vgprs without AGPRs. The
 * kernel descriptor's next_free_vgpr. */
int target_wave_vgprs(const target *t, int vgprs, int agprs);

/* Occupancy of workgroups of nwaves waves of a kernel allocating *a on t;
 * -1 (with *o filled as far as it goes) when not one workgroup fits (more
 * registers or LDS than the CU has, more waves than slots). */
int target_occupancy(const target *t, const kernel_alloc *a, int nwaves, occupancy *o);

#endif
