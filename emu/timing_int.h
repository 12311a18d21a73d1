/* Shared by the timing model's files: the machine one launch runs on
 * (timing.c), occupancy (timing_occ.c) and the CU simulation (timing_cu.c). */
#ifndef IGEMM_EMU_TIMING_INT_H
#define IGEMM_EMU_TIMING_INT_H

#include "../arch/occupancy.h"
#include "timing.h"

/* How many of a kernel's waves and workgroups a CU holds at once
 * (arch/occupancy.h). */
typedef occupancy tm_occupancy;

/* Occupancy of workgroups of nwaves waves of kernel info ki on t; -1 when
 * not one workgroup fits (more LDS than the CU has, more waves than slots). */
int tm_occupancy_of(const target *t, const emu_kernel_info *ki, int nwaves, tm_occupancy *o);

/* One launch's machine as a sampled CU sees it. */
typedef struct {
    const target *t;
    const emu_kernel *k;
    tm_occupancy occ;
    int nwaves;          /* waves per workgroup */
    double l2_rate;      /* this CU's share of L2 bandwidth, bytes per clock */
    double hbm_rate;     /* this CU's share of HBM bandwidth, bytes per clock */
    double miss_frac;    /* share of loaded bytes that come from HBM */
} tm_machine;

/* What one CU took. */
typedef struct {
    double end;                /* cycle the last operation completed */
    double busy[EL_LATENCY];   /* VALU (busiest SIMD), matrix (busiest SIMD), LDS, memory path */
    double *wg_end;            /* [nwg] completion cycle of each workgroup (caller's array) */
} tm_cu_result;

/* Simulate nwg workgroups dispatched in order to one CU; traces[g * nwaves
 * + w] is wave w of workgroup g. Returns 0, or -1 when out of memory. */
int tm_simulate_cu(const tm_machine *m, emu_trace *const *traces, int nwg, tm_cu_result *r);

#endif
