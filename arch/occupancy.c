/* Occupancy (occupancy.h): the one writer of the register, wave and
 * workgroup limits of a kernel on a target. */
#include "occupancy.h"

static int round_up(int x, int g) { return g > 0 ? (x + g - 1) / g * g : x; }

int target_accum_offset(const target *t, int vgprs) { return t->unified_acc_vgprs ? round_up(vgprs, 4) : vgprs; }

int target_wave_vgprs(const target *t, int vgprs, int agprs)
{
    if (t->unified_acc_vgprs)
        return target_accum_offset(t, vgprs) + agprs;
    return vgprs > agprs ? vgprs : agprs;
}

int target_occupancy(const target *t, const kernel_alloc *a, int nwaves, occupancy *o)
{
    const timing_facts *f = &t->tm;
    int wps = t->max_waves_per_simd;
    o->limit = "slots";
    int v = round_up(target_wave_vgprs(t, a->vgprs, a->agprs), t->vgpr_granule);
    if (v > 0 && t->vgprs_per_simd / v < wps) {
        wps = t->vgprs_per_simd / v;
        o->limit = "VGPRs";
    }
    int s = round_up(a->sgprs, 16);
    if (s > 0 && f->sgprs_per_simd / s < wps) {
        wps = f->sgprs_per_simd / s;
        o->limit = "SGPRs";
    }
    o->waves_per_simd = wps;
    o->lds_alloc = round_up(a->lds_bytes, f->lds_alloc_granule);
    o->max_wg = 0;
    /* a workgroup's waves spread over the SIMDs */
    int per_simd = (nwaves + t->simds_per_cu - 1) / t->simds_per_cu;
    if (nwaves < 1 || wps < 1 || per_simd > wps || o->lds_alloc > t->lds_bytes)
        return -1;
    int wg = t->simds_per_cu * wps / nwaves;
    if (o->lds_alloc && t->lds_bytes / o->lds_alloc < wg)
        wg = t->lds_bytes / o->lds_alloc;
    if (nwaves > 1 && f->max_wg_per_cu < wg)
        wg = f->max_wg_per_cu;
    o->max_wg = wg;
    return wg >= 1 ? 0 : -1;
}
