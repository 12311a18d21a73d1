/* Occupancy of a loaded kernel: its descriptor's register and LDS
 * allocation through the one formula of arch/occupancy.h (docs/TIMING.md
 * "Occupancy"). The loader gives vgprs as accum_offset and agprs as the rest
 * of the allocation on a unified file, and agprs = vgprs on gfx908 (one
 * granule count for both files). */
#include "timing_int.h"

int tm_occupancy_of(const target *t, const emu_kernel_info *ki, int nwaves, tm_occupancy *o)
{
    kernel_alloc a = emu_kernel_alloc(ki);
    return target_occupancy(t, &a, nwaves, o);
}
