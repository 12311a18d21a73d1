/* The timing model's hooks into the emulator (docs/TIMING.md).
 *
 * With emu_options.timing on, a launch picks a sample of its workgroups
 * (emu_timing_begin), the executor appends every instruction a sampled wave
 * issues to that wave's trace (emu_trace_push: the instruction's index and
 * its active lanes), and after the functional run emu_timing_end replays
 * the traces on a model of the target's CUs (timing_cu.c) and fills the
 * model_* fields of the launch's stats. Control flow of the project's
 * kernels does not depend on data, so a trace of the functional run is the
 * instruction stream the hardware would issue. With the model off nothing
 * here runs: waves have no trace. */
#ifndef IGEMM_EMU_TIMING_H
#define IGEMM_EMU_TIMING_H

#include "emu_int.h"

typedef struct emu_timing emu_timing;

/* One wave's trace: entries pc | lanes << 25 (lanes 0..64 active at issue).
 * A memory instruction's entry is followed by its words (timing_trace.c):
 *   - VMEM (MUBUF, global, flat): n | in-range lanes << 16, then a word the
 *     cache pass fills (timing_cache.c: TM_OUT_*), then the n distinct lines
 *     (address / line_bytes) its in-range active lanes touch, two words each
 *     (low, high);
 *   - DS: one word, LDS cycles | conflict-free cycles << 16. */
struct emu_trace {
    uint32_t *e;
    uint32_t n, cap;
    emu_timing *owner;  /* for the memory budget */
    bool failed;        /* out of budget: the launch is not timed */
};

#define EMU_TRACE_PC_BITS 25

void emu_trace_grow(emu_trace *t);

static inline void emu_trace_word(emu_trace *t, uint32_t x)
{
    if (t->n == t->cap)
        emu_trace_grow(t);
    if (!t->failed)
        t->e[t->n++] = x;
}

/* Does in append words after its entry (a DS or VMEM instruction)? */
static inline bool emu_trace_is_mem(const emu_inst *in)
{
    return in->fmt == F_DS || in->fmt == F_MUBUF || in->fmt == F_FLAT || in->fmt == F_GLOBAL || in->fmt == F_SCRATCH;
}

/* Append the words of memory instruction in, about to execute on w (its
 * registers before execution hold the addresses). */
void emu_trace_mem(emu_trace *t, wave *w, const emu_inst *in);

static inline void emu_trace_push(emu_trace *t, int pc, uint64_t exec)
{
    if (t->n == t->cap)
        emu_trace_grow(t);
    if (!t->failed)
        t->e[t->n++] = (uint32_t)pc | (uint32_t)emu_lanes(exec) << EMU_TRACE_PC_BITS;
}

/* A launch of nwg workgroups of nwaves waves each; NULL when the model
 * cannot time it (out of memory), which the launch counts as not timed.
 * Call before the launch registers its own kernarg and dispatch buffers:
 * the memory the kernel may touch is what the host registered. */
emu_timing *emu_timing_begin(emu_device *d, const emu_kernel *k, uint64_t nwg, int nwaves);

/* Whether the model samples the launch: false when it cannot time it
 * (occupancy, the trace format's limits), and then every workgroup runs
 * untraced, emu_options.timing_only or not. */
bool emu_timing_sampled(const emu_timing *tm);

/* The workgroups of the launch's next traced pass (malloc'd; *count of
 * them), NULL when there is none: first the model's sample (TM_SAMPLE_CUS
 * CUs' workgroups, all or windows of them: timing.c), then, while two
 * neighbouring windows of a sampled CU differ, a window halfway between
 * them, chosen from the traces of the passes before. Run each pass before
 * asking for the next; then the workgroups not traced (emu_timing_traced),
 * unless only the model's cost is wanted (emu_options.timing_only). */
uint64_t *emu_timing_next_pass(emu_timing *tm, size_t *count);

/* Whether workgroup wg is traced (it runs in a traced pass). */
bool emu_timing_traced(const emu_timing *tm, uint64_t wg);

/* Give the waves of workgroup wg their traces (NULL when not traced). */
void emu_timing_attach(emu_timing *tm, uint64_t wg, wave *waves, int nwaves);

/* Time the launch from its traces and its functional stats; adds to st. */
void emu_timing_end(emu_timing *tm, emu_stats *st);

void emu_timing_free(emu_timing *tm);

#endif
