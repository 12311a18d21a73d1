/* Shared by the timing model's files: the machine one launch runs on
 * (timing.c), occupancy (timing_occ.c) and the CU simulation (timing_cu.c). */
#ifndef IGEMM_EMU_TIMING_INT_H
#define IGEMM_EMU_TIMING_INT_H

#include <stdio.h>

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
    double cold_hbm;     /* share of the sample's cold L2 misses that go to HBM (timing.c) */
    double store_hbm;    /* HBM write-back lines per stored line */
    FILE *timeline;      /* the issue timeline's file (emu_options.timeline), or NULL */
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

/* The outcome of a VMEM instruction's lines (the word after its count):
 * L2 requests (L1 misses; every line of a store or atomic), capacity and
 * cold L2 misses. */
#define TM_OUT(req, cap, cold) ((uint32_t)(req) | (uint32_t)(cap) << 10 | (uint32_t)(cold) << 20)
#define TM_OUT_REQ(x) ((x) & 1023u)
#define TM_OUT_CAP(x) ((x) >> 10 & 1023u)
#define TM_OUT_COLD(x) ((x) >> 20 & 1023u)

/* The target of a launch's model (for the trace recorder). */
const target *emu_timing_target(const emu_timing *tm);

/* What the cache pass reads: the sampled CUs' traces as tm_simulate_cu
 * takes them ([s][cap][nwaves]), the workgroups each simulates. */
typedef struct {
    const target *t;
    const emu_device *d;     /* registered regions (caller holds the lock) */
    const emu_inst *code;
    emu_trace *const *traces;
    const double *weight;    /* [ns][cap]: the launch's workgroups each traced one stands for */
    const uint64_t *count;   /* [ns] workgroups of sampled CU s that are traced */
    int ns, nwaves, max_wg;
    size_t cap;
    uint64_t active;         /* CUs with work */
} tm_cache_in;

/* The CUs a launch's model samples (timing.c) */
#define TM_SAMPLE_CUS 4

/* A sampled CU's traffic beyond its L1, in lines: L2 requests (an
 * atomic's twice), capacity and cold L2 read misses, stored lines. */
typedef struct {
    double req, cap, cold, stored;
} tm_demand;

#define TM_MAX_REGIONS 32
typedef struct {
    uintptr_t base;
    size_t size;
    uint64_t line_delta; /* added to a host line number: the line in the sample's device address space */
    bool read, written;
    double lines_loaded, useful_loaded, lines_stored, useful_stored; /* of the instructions whose
                                                                        first line lies in it */
    double sent, sent_own; /* lines of it sent to L2: distinct over the sample, and per sampled CU added up */
} tm_region;

/* The sample's totals (lines, bytes), each traced workgroup's weighted by
 * the workgroups it stands for (tm_cache_in.weight) */
typedef struct {
    double lines_loaded, lines_stored;   /* lines through the address path */
    double useful_loaded, useful_stored; /* bytes the in-range lanes asked for */
    double l1_lookups, l1_hits;          /* load lines */
    double l2_requests;                  /* L1 misses, store and atomic lines (atomics twice) */
    double l2_reads;                     /* of them, lines that need the data (loads, atomics) */
    double cold, capacity;               /* L2 read misses */
    double wb_lines;                     /* dirty lines written back */
    double lds_cycles, lds_ideal;        /* LDS pipe cycles, and without bank conflicts */
    tm_demand cu[TM_SAMPLE_CUS];         /* per sampled CU, its traced workgroups' (unweighted; the
                                            weighted sums over all of them: l2_requests, capacity,
                                            cold, lines_stored) */
    int nregions;
    tm_region region[TM_MAX_REGIONS];    /* buffers the sample touched */
} tm_cache_sum;

/* Run the sampled VMEM lines through the caches, fill each instruction's
 * outcome word and the totals. Returns 0, or -1 when out of memory. */
int tm_cache_pass(const tm_cache_in *in, tm_cache_sum *out);

#endif
