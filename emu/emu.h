/* A functional emulator of gfx906 / gfx908 / gfx90a / gfx942 code objects.
 *
 * It loads an AMDGPU code object (ELF, kernel descriptors, metadata note),
 * runs a kernel over a grid of workgroups on host threads, and is strict:
 * a load's data may only be used after s_waitcnt retires it, the hazard
 * tables of docs/EMULATOR.md are enforced, LDS races between waves of a
 * workgroup and out-of-range accesses are errors, and every report names
 * the target, kernel, workgroup, wave, PC and instruction.
 *
 * Memory: device addresses are host addresses. The host registers every
 * buffer a kernel may touch (emu_register); any access outside them is a
 * fault. */
#ifndef IGEMM_EMU_H
#define IGEMM_EMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../arch/occupancy.h"
#include "../arch/target.h"

typedef struct emu_device emu_device;
typedef struct emu_module emu_module;
typedef struct emu_kernel emu_kernel;

/* What a hazard shortfall (docs/EMULATOR.md, "Hazards") does. */
typedef enum {
    EMU_HAZARDS_ERROR = 0, /* stops the run with a report (the default) */
    EMU_HAZARDS_WARN = 1,  /* recorded in emu_stats.hazards; the run goes on */
} emu_hazard_mode;

typedef struct {
    int threads;        /* worker threads; 0 = one per online CPU */
    emu_hazard_mode hazards;
    uint64_t max_wave_insts; /* instructions one wave may execute; past them the launch
                                stops with a fault naming kernel, wave and PC (a kernel
                                that never reaches s_endpgm cannot hang the host);
                                0 = EMU_DEFAULT_WAVE_INSTS */
    /* The timing model (docs/TIMING.md): off by default. When on, each launch
       also traces a sample of its workgroups and simulates them on the
       target's CUs (emu_stats.model_*). num_cu / clock_ghz override the
       target's reference product (MI210, MI300A, MI308X differ); 0 keeps it. */
    bool timing;
    int num_cu;
    double clock_ghz;
    /* With the timing model on, run only the workgroups it traces (a cost and
       nothing else: find mode's measurements, runtime/handle_find.c). The
       modeled cycles are a whole run's (the model sees no other workgroup);
       what the skipped workgroups would write stays as it was, their faults
       and hazards go unseen and the functional stats count the run ones. A
       launch the model cannot time runs whole. emu_set_timing_only. */
    bool timing_only;
    /* With the timing model on: append to this file the issue timeline of
       sampled CU 0 of every timed launch, one line per instruction its waves
       issue (docs/TIMING.md "Timeline"); NULL: none. The model's view of
       where a kernel's cycles go (a model, not a measurement). */
    const char *timeline;
} emu_options;

/* The default per-wave instruction budget: some 100 times what a wave of
 * this project's kernels executes on the largest network layers (a few
 * million: a v4r1 wave with K/G = 2048 and a 3x3 filter runs 2304 main-loop
 * iterations of about 600 instructions), and about 10 s of emulation for a
 * wave that spins (the emulator runs some 10^8 instructions a second per
 * host thread). */
#define EMU_DEFAULT_WAVE_INSTS (UINT64_C(1) << 30)

/* The hazard rules by name ("valu-sgpr-valu", ...: docs/EMULATOR.md). */
#define EMU_HZ_RULES 27
extern const char *const emu_hazard_rule_names[EMU_HZ_RULES];

/* Findings of one rule under EMU_HAZARDS_WARN: how many instructions fell
 * short, and the first of them (lowest workgroup, then wave, then issue
 * order: the same whatever the thread count). */
typedef struct {
    uint64_t count;
    uint64_t wg, ws;    /* first: flat workgroup index, the wave's wait-state count */
    int wave;
    unsigned long long pc;
    char text[96];      /* its instruction (llvm-objdump spelling) */
    char msg[192];      /* the report: what, register, wait states provided and needed */
} emu_hazard_finding;

/* Instruction classes of the cost model (docs/EMULATOR.md). */
typedef enum {
    EC_SALU, EC_SMEM, EC_VALU, EC_VALU_FMA, EC_VALU_TRANS, EC_VALU_64, EC_MFMA, EC_VMEM_LOAD, EC_VMEM_STORE,
    EC_DS, EC_BRANCH, EC_WAIT, EC_OTHER, EC_COUNT
} emu_class;

extern const char *const emu_class_names[EC_COUNT];

/* What limits a launch in the timing model: the resource busy for the
 * largest share of the modeled time, or latency when none is busy for
 * more than half of it (emu_model_limit). */
typedef enum { EL_COMPUTE, EL_MATRIX, EL_LDS, EL_MEMORY, EL_LATENCY, EL_COUNT } emu_limit;
extern const char *const emu_limit_names[EL_COUNT];

/* The timing model's VMEM lines of one registered buffer (the one that
 * holds an instruction's first line), extrapolated to the whole grid. */
#define EMU_MODEL_BUFFERS 8
typedef struct {
    uintptr_t base;                    /* the buffer's start as registered */
    uint64_t line_loaded, useful_loaded, line_stored, useful_stored; /* bytes */
} emu_model_buffer;

typedef struct {
    uint64_t insts[EC_COUNT];   /* wave instructions issued per class */
    uint64_t cycles[EC_COUNT];  /* modeled issue cycles per class */
    uint64_t global_read, global_written; /* bytes of in-range accesses */
    uint64_t lds_read, lds_written;
    uint64_t mfma_flops;
    uint64_t waves, workgroups;
    uint64_t loop_valu_cycles, loop_fma_cycles; /* VALU issue cycles inside marked loops */
    uint64_t makespan; /* modeled time of the launch on the target's CUs, in cycles
                          (sum over launches when accumulated; see emu_schedule_*) */
    emu_hazard_finding hazards[EMU_HZ_RULES]; /* EMU_HAZARDS_WARN, by rule */
    /* the timing model (emu_options.timing; docs/TIMING.md), summed over launches */
    uint64_t model_cycles;     /* modeled time in cycles of the device clock */
    uint64_t model_busy[EL_LATENCY]; /* busy cycles of the critical CU's VALU, matrix unit,
                                        LDS and memory path (the device's, when it bounds) */
    uint64_t model_launches;   /* launches timed */
    uint64_t model_failed;     /* launches the model could not time (trace memory) */
    /* the memory hierarchy of the timed launches, extrapolated from the
       sampled workgroups to the whole grid (docs/TIMING.md "Caches") */
    uint64_t model_line_loaded, model_line_stored;     /* bytes of the lines VMEM instructions touch */
    uint64_t model_useful_loaded, model_useful_stored; /* bytes their in-range lanes ask for */
    uint64_t model_l1_lookups, model_l1_hits;          /* load lines at the vector L1 */
    uint64_t model_l2_reads, model_l2_hits;            /* lines the L2 serves data for */
    uint64_t model_hbm_bytes;                          /* L2 misses and write-backs */
    uint64_t model_lds_cycles, model_lds_ideal;        /* LDS pipe cycles, and without bank conflicts */
    emu_model_buffer model_buf[EMU_MODEL_BUFFERS];     /* the same per buffer (unused: base 0) */
} emu_stats;

/* Kernel argument as the metadata lists it. */
typedef struct {
    char name[64];
    char value_kind[32];  /* "global_buffer", "by_value", "hidden_..." */
    int offset, size;
} emu_arg;

typedef struct {
    char name[128];
    int kernarg_size;
    int lds_bytes;        /* group segment (kernel descriptor) */
    int vgprs, agprs, sgprs, accum_offset; /* allocation (kernel descriptor) */
    int unified_total;    /* gfx90a+: the unified file's registers, VGPRs and AGPRs together
                             (AGPR ai is physical register accum_offset + i; any VGPR
                             index below it is valid); 0 where the files are separate */
    int max_block;        /* max_flat_workgroup_size */
    int reqd_block[3];    /* 0 when unspecified */
    int nargs;
    emu_arg args[64];
    int ninsts;
} emu_kernel_info;

emu_device *emu_create(const target *t, const emu_options *opt);
/* Turn emu_options.timing_only on or off for the device's later launches;
 * returns whether launches now skip workgroups (on, with the timing model on). */
bool emu_set_timing_only(emu_device *d, bool on);
void emu_destroy(emu_device *d);
/* Use the host's FMA and AVX2 instructions in the lane loops (the default,
 * where the CPU has them) or the baseline x86-64 paths, which give the
 * same results (host_cpu.c): for tests of the baseline paths. Process-wide;
 * call while no launch runs. */
void emu_host_simd(bool on);
const target *emu_target(const emu_device *d);

/* Register / forget host memory the kernels may access. */
int emu_register(emu_device *d, const void *p, size_t bytes);
void emu_unregister(emu_device *d, const void *p);

/* Host memory for kernel buffers with an unregistered guard zone of
 * EMU_GUARD_BYTES before and after it, so an overrun of one buffer never
 * lands silently in a neighbour: zeroed, 4 KiB-aligned, NULL when out of
 * memory; free with emu_buffer_free (NULL is ignored). The emulator backend,
 * igemm emu-run and the launch's kernarg segment allocate this way. */
#define EMU_GUARD_BYTES 4096
void *emu_buffer_alloc(size_t bytes);
void emu_buffer_free(void *p);

/* The target name ("gfx908") a code object is built for, or NULL when the
 * bytes are not an AMDGPU code object of a supported target. */
const char *emu_elf_target(const void *elf, size_t size);

/* Load a code object. The ELF's target must match the device's, and so
 * must the processor of the metadata's amdhsa.target when it has one.
 * Returns 0, or -1 with a message in err. */
int emu_load(emu_device *d, const void *elf, size_t size, emu_module **out, char *err, size_t errlen);
/* The same checks of the metadata and the kernel descriptors, on the code
 * object's own target and without decoding any code: a module whose kernels
 * answer emu_kernel_get_info (their registers, LDS and arguments), for
 * readers of a code object that run nothing on it (the selection
 * heuristic's view of the kernels' occupancy); it cannot be launched. */
int emu_load_info(const void *elf, size_t size, emu_module **out, char *err, size_t errlen);
void emu_module_free(emu_module *m);
int emu_module_kernel_count(const emu_module *m);
/* The metadata's amdhsa.target ("amdgcn-amd-amdhsa--gfx90a"), "" when it has none. */
const char *emu_module_target(const emu_module *m);
const emu_kernel *emu_module_kernel(const emu_module *m, int i);
const emu_kernel *emu_find_kernel(const emu_module *m, const char *name);
const emu_kernel_info *emu_kernel_get_info(const emu_kernel *k);
/* What a kernel allocates, as the occupancy rules count it (arch/occupancy.h):
 * the timing model's occupancy and the selection heuristic's. */
kernel_alloc emu_kernel_alloc(const emu_kernel_info *ki);

/* Disassemble a kernel (one instruction per line, llvm-objdump spelling,
 * "pc: text") into a malloc'd string. */
char *emu_kernel_disasm(const emu_kernel *k);

/* Run a kernel: grid counts workgroups, block counts work-items. kernargs
 * must hold the kernel's kernarg_size bytes. stats accumulates (may be NULL).
 * Returns 0, or -1 with a one-line report in err. */
int emu_launch(emu_device *d, const emu_kernel *k, const unsigned grid[3], const unsigned block[3],
               const void *kernargs, size_t kernarg_size, emu_stats *stats, char *err, size_t errlen);

/* The schedule model: every launch places its workgroups, in dispatch
 * order, on the least-loaded of the target's CUs (arch/target.h num_cu),
 * each wave on the least-loaded of the CU's 4 SIMDs; a SIMD's time is the
 * sum of its waves' issue cycles (throughput-bound: latency and occupancy
 * limits are not modelled). A launch's makespan (emu_stats.makespan) is
 * its busiest SIMD's time. The device also keeps one schedule across
 * launches: emu_schedule_makespan() is what those launches would take as
 * one (a merged, "multihead" launch); emu_schedule_reset() starts a new one. */
void emu_schedule_reset(emu_device *d);
uint64_t emu_schedule_makespan(const emu_device *d);

/* Hazard findings of a stats block (EMU_HAZARDS_WARN): the sum of counts. */
uint64_t emu_stats_hazards(const emu_stats *s);
/* The device's CU count and clock as the timing model uses them (the
 * target's, or the emu_options overrides). */
int emu_num_cu(const emu_device *d);
double emu_clock_ghz(const emu_device *d);

/* The limiting resource of modeled time `cycles` with busy cycles `busy`. */
emu_limit emu_model_limit(uint64_t cycles, const uint64_t busy[EL_LATENCY]);

/* Modeled cycles of a stats block: sum of the classes' issue cycles. */
uint64_t emu_stats_cycles(const emu_stats *s);
void emu_stats_add(emu_stats *dst, const emu_stats *src);

#endif
