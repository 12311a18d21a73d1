/* Occupancy: how many waves of a kernel a SIMD holds and how many of its
 * workgroups a CU holds, from the kernel descriptor's register and LDS
 * allocation and the target's files (docs/TIMING.md "Occupancy").
 *
 * VGPRs: the allocation rounded up to the target's granule out of
 * vgprs_per_simd per lane; gfx908 allocates VGPRs and AGPRs from two files
 * of 256 with one count (the larger), gfx90a/gfx942 one file of 512 with
 * the AGPRs after accum_offset (AMDGPUUsage, LLVM's getTotalNumVGPRs).
 * SGPRs: the descriptor's count (blocks of 16 on gfx9) out of the SIMD's
 * SGPR file. LDS: the group segment rounded up to the allocation granule
 * out of the CU's LDS. Workgroups of more than one wave also need one of
 * the CU's barrier slots. */
#include "timing_int.h"

static int round_up(int x, int g) { return g > 0 ? (x + g - 1) / g * g : x; }

int tm_occupancy_of(const target *t, const emu_kernel_info *ki, int nwaves, tm_occupancy *o)
{
    const timing_facts *f = &t->tm;
    int wps = t->max_waves_per_simd;
    o->limit = "slots";
    int v = t->unified_acc_vgprs ? ki->vgprs + ki->agprs : ki->vgprs > ki->agprs ? ki->vgprs : ki->agprs;
    v = round_up(v, t->vgpr_granule);
    if (v > 0 && t->vgprs_per_simd / v < wps) {
        wps = t->vgprs_per_simd / v;
        o->limit = "VGPRs";
    }
    int s = round_up(ki->sgprs, 16);
    if (s > 0 && f->sgprs_per_simd / s < wps) {
        wps = f->sgprs_per_simd / s;
        o->limit = "SGPRs";
    }
    o->waves_per_simd = wps;
    o->lds_alloc = round_up(ki->lds_bytes, f->lds_alloc_granule);
    /* a workgroup's waves spread over the 4 SIMDs */
    int per_simd = (nwaves + t->simds_per_cu - 1) / t->simds_per_cu;
    if (wps < 1 || per_simd > wps || o->lds_alloc > t->lds_bytes)
        return -1;
    int wg = t->simds_per_cu * wps / nwaves;
    if (o->lds_alloc && t->lds_bytes / o->lds_alloc < wg)
        wg = t->lds_bytes / o->lds_alloc;
    if (nwaves > 1 && f->max_wg_per_cu < wg)
        wg = f->max_wg_per_cu;
    o->max_wg = wg;
    return wg >= 1 ? 0 : -1;
}
