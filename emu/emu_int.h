/* Emulator internals shared by the loader, executor and launcher. */
#ifndef IGEMM_EMU_INT_H
#define IGEMM_EMU_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "emu.h"
#include "isa.h"

/* ---- code objects ---- */

struct emu_kernel {
    emu_kernel_info info;
    uint64_t entry;
    uint32_t rsrc1, rsrc2, rsrc3;
    uint16_t props;
    int user_sgprs;
    bool wg_id[3], wg_info;
    int vgpr_ids;         /* ENABLE_VGPR_WORKITEM_ID: 0 x, 1 xy, 2 xyz */
    int denorm32;         /* FLOAT_DENORM_MODE_32: 3 keeps denormals */
    int private_size;
    emu_inst *code;
    int ninsts;
    int loop_begin, loop_end; /* instruction range of the marked main loop, or -1 */
};

/* Index of the kernel's instruction at byte address pc, or -1. */
int emu_inst_at(const emu_kernel *k, uint64_t pc);

struct emu_module {
    int nkernels;
    emu_kernel *kernels;
    char target_id[128]; /* the metadata's amdhsa.target ("" when absent) */
};

/* ---- device ---- */

typedef struct {
    uintptr_t base;
    size_t size;
} emu_region;

/* The schedule model (launch.c): waves placed on the target's SIMDs. */
typedef struct {
    int ncu;
    uint64_t *simd;   /* [ncu * 4] accumulated issue cycles */
} emu_sched;

struct emu_device {
    const target *t;
    emu_sched sched;  /* accumulates across launches until emu_schedule_reset */
    const emu_decoder *dec;
    emu_options opt;
    pthread_rwlock_t lock;
    emu_region *regions;
    int nregions, cap;
};

int emu_sched_create(emu_sched *s, int ncu);

/* Is [addr, addr+len) inside one registered region? Also gives the bounds
 * of the region that holds addr. */
bool emu_mem_region(const emu_device *d, uintptr_t addr, size_t len, uintptr_t *lo, uintptr_t *hi);

/* Instruction kinds by cost class (emu_inst_finalize): VALU includes the
 * AGPR moves and v_dot, not MFMA; the four VALU classes are consecutive. */
static inline bool emu_is_valu(const emu_inst *in) { return in->cls >= EC_VALU && in->cls <= EC_VALU_64; }
static inline bool emu_is_vmem(const emu_inst *in) { return in->cls == EC_VMEM_LOAD || in->cls == EC_VMEM_STORE; }

/* ---- waves and workgroups ---- */

#define MAX_WAVES 16      /* 1024 work-items */
#define VM_QUEUE 64
#define LGKM_QUEUE 64
/* The pending-load bitmap: 128 SGPR codes, up to 512 VGPRs, then up to 256
 * AGPRs past them (a split file). */
#define EMU_PEND_WORDS ((128 + 512 + 256) / 64)

typedef struct {
    uint16_t code;        /* first register written (R_NONE for stores) */
    uint8_t width;
    uint8_t smem;         /* lgkm queue: scalar memory (returns out of order) */
    uint8_t lds_store;    /* lgkm queue: LDS write */
    int32_t pc;           /* issuing instruction (for reports) */
    uint32_t seq;         /* lgkm queue, LDS: the operation's LDS sequence number (lds.h) */
} pend_op;

/* Writer kinds kept per register for the hazard rules (low bits) and the
 * XDL flag of an MFMA: emu_inst.hz_kind, in wave.vw/aw. */
enum { HZ_NONE, HZ_VALU, HZ_MFMA, HZ_ACCW, HZ_ACCR, HZ_DOT, HZ_OTHER };
#define HZ_KIND 0x0f
#define HZ_XDL 0x80

/* Hazard history besides the per-register last writers (hazard.c): the
 * last MFMA C reads, the last stores of more than 8 bytes and the last
 * v_accvgpr_read/write. */
#define HZ_CREAD_RING 16 /* more than the largest WAR wait (15) */
#define HZ_STORE_RING 2  /* the largest store-data wait (2) */

typedef struct {
    struct {
        uint64_t at;  /* ws + 1 of the MFMA; 0: empty */
        uint16_t code;
        uint8_t width, passes, xdl;
    } cread[HZ_CREAD_RING];
    int cread_next;
    struct {
        uint64_t at;
        uint16_t code;
        uint8_t width;
    } store[HZ_STORE_RING];
    int store_next;
    uint64_t accrw_at; /* last v_accvgpr_read/write */
} hz_side;

typedef struct emu_trace emu_trace; /* the timing model's per-wave trace (timing.h) */

/* What one of a wave's latest DS instructions found about its lanes'
 * addresses, kept while they all move by the same whole number of dwords
 * from the addresses it was found at (a uniform shift keeps which lanes
 * share a dword, and moves every dword's bank by the same amount). Two
 * users, each filling its part on its first use after the entry is made:
 * the executor's lanes with a new address (exec_mem.c) and the timing
 * model's bank cycles (timing_trace.c). EMU_DS_MEMO per wave,
 * direct-mapped by instruction index (emu_ds_memo_at). */
typedef struct {
    int32_t pc;               /* instruction index; -1: empty */
    uint64_t stamp;           /* wave.insts of the execution that last looked it up */
    uint64_t exec;
    uint32_t addr[64];        /* the address register's lanes when it was made */
    bool has_first, has_word;
    uint64_t first[2];        /* executor: per element, its lanes with a new address */
    uint32_t word;            /* timing: cycles | conflict-free cycles << 16 */
} emu_ds_memo;
#define EMU_DS_MEMO 256       /* a power of two */

/* Did every lane of a move by the same whole number of dwords from b? */
static inline bool emu_lanes_shifted(const uint32_t *a, const uint32_t *b)
{
    uint32_t delta = a[0] - b[0], diff = delta & 3;
    for (int l = 1; l < 64; l++)
        diff |= (a[l] - b[l]) ^ delta;
    return !diff;
}

typedef struct wave {
    uint32_t s[128];      /* SGPRs and specials by operand code */
    int scc;
    uint32_t (*v)[64];    /* VGPRs [nv][64] */
    uint32_t (*a)[64];    /* AGPRs [na][64]; on a unified file, v + accum_offset */
    int nv, na;
    bool acc_alias;       /* unified file: a and its side tables alias v's (launch.c) */
    int pc;               /* instruction index */
    int id;               /* wave in workgroup */
    bool done, at_barrier;
    /* outstanding memory operations */
    pend_op vmq[VM_QUEUE];
    int vm_head, vm_n;
    pend_op lq[LGKM_QUEUE];
    int lq_n;
    /* registers an outstanding load writes, one bit each (exec.c pend_bit):
       SGPR s at bit s, VGPR v at 128 + v, AGPR a at 128 + pend_abase + a
       (on a unified file pend_abase is accum_offset: AGPRs alias VGPRs) */
    uint64_t pend[EMU_PEND_WORDS];
    int pend_abase;
    /* hazard tracking: wait-state counter and last writers */
    uint64_t ws;
    uint64_t *vw, *aw;          /* the last write per VGPR / AGPR (hazard.c hz_rec): its ws + 1,
                                   writer kind (hz_kind) and passes; 0: never written */
    uint64_t sw_valu_ws[128];   /* ws of the last VALU write per SGPR (0: never) */
    uint64_t exec_valu_ws;
    hz_side hz_side;
    uint64_t cycles;            /* modeled issue cycles of this wave so far */
    bool hz_vec;                /* an MFMA, AGPR move or v_dot ran: the vector-register
                                   hazard rules can apply (they cannot before) */
    uint64_t hz_store_until;    /* the store-data rule applies while ws is below this */
    uint64_t insts;             /* instructions executed (against emu_options.max_wave_insts) */
    emu_trace *trace;           /* timing model: where issued instructions go, or NULL */
    emu_ds_memo ds_memo[EMU_DS_MEMO]; /* by instruction index (emu_ds_memo_at) */
} wave;

/* The memo entry of wave w's current DS instruction, executed with exec and
 * the address register's lanes addr (NULL: an instruction without one): the
 * entry as found when the lanes moved together since it was made, else
 * made anew with nothing filled. A second lookup in the same execution (the
 * timing model's, then the executor's) returns it without checking again. */
static inline emu_ds_memo *emu_ds_memo_at(wave *w, uint64_t exec, const uint32_t *addr)
{
    emu_ds_memo *m = &w->ds_memo[w->pc & (EMU_DS_MEMO - 1)];
    if (m->pc == w->pc && m->stamp == w->insts)
        return m;
    if (m->pc != w->pc || m->exec != exec || (addr && !emu_lanes_shifted(addr, m->addr))) {
        m->pc = w->pc;
        m->exec = exec;
        m->has_first = m->has_word = false;
        if (addr)
            memcpy(m->addr, addr, sizeof m->addr);
    }
    m->stamp = w->insts;
    return m;
}

/* A wave's last read of an LDS dword (lds.h): the operation's sequence
 * number (| LDS_SEQ_ATOMIC for an atomic) and its instruction index. */
typedef struct {
    uint32_t seq;
    int32_t pc;
} emu_lds_read;

/* Dwords of LDS as at most two intervals [lo[i], hi[i]] (lo > hi: unused):
 * a double-buffered kernel's writes to both halves of its tiles stay two
 * pieces instead of one hull over the buffer being read (lds.h). */
typedef struct {
    uint32_t lo[2], hi[2];
} lds_span;

/* The most private memory per work-item the emulator gives (a launch
 * asking more is refused): 64 KiB, 4 MiB per wave of scratch backing. */
#define EMU_MAX_PRIVATE (64 << 10)

typedef struct {
    const emu_device *dev;
    const emu_kernel *k;
    const void *kernargs;     /* the launch's kernarg segment (buffer names in reports) */
    unsigned wg[3];
    uint64_t flat;            /* the workgroup's flat index */
    int nwaves;
    wave waves[MAX_WAVES];
    uint8_t *lds;
    int lds_size;
    /* private memory (launch.c): the kernel's private_segment_fixed_size
       per work-item; wave i's 64 lanes at scratch + i * scratch_wave_bytes,
       dword j of lane l at (64 j + l) * 4 (AMDGPUUsage: interleaved) */
    uint8_t *scratch;
    int private_size;
    size_t scratch_wave_bytes;
    /* LDS visibility (lds.h): every LDS instruction gets a sequence number;
       per dword the last write and, per wave, the last read; vis[w]: wave
       w's operations up to this number are ordered before every other
       wave's later accesses (retired before an s_barrier all have passed) */
    uint32_t lds_seq, lds_barrier_seq;
    uint32_t lds_vis[MAX_WAVES];
    /* per wave, its latest LDS write or atomic (wmax) and read or atomic
       (rmax): when every other wave's lie within its horizon, no access can
       race and the per-dword checks are skipped (lds_quiet_at) */
    uint32_t lds_wmax[MAX_WAVES], lds_rmax[MAX_WAVES];
    /* per wave, the dwords its writes and atomics (w) and its reads and
       atomics (r) touched since every one of them was last within its
       horizon, as at most two intervals that hold them (a superset of those
       beyond it): an access outside every other wave's spans cannot race
       either (lds_quiet_at) */
    lds_span lds_w[MAX_WAVES], lds_r[MAX_WAVES];
    int lds_nw;               /* waves the per-wave read table is laid out for */
    size_t lds_dwords;
    uint32_t *lw_seq;         /* [dword] last write: seq | LDS_SEQ_ATOMIC */
    int32_t *lw_pc;           /* [dword] its instruction index */
    uint8_t *lw_wave;         /* [dword] its wave */
    emu_lds_read *lr;         /* [dword * lds_nw + wave] last read */
    emu_stats stats;
    uintptr_t mem_lo, mem_hi; /* the registered region of the last access */
    /* fault report */
    char *err;
    size_t errlen;
    bool failed;
} wg_ctx;

/* The name of register code in reports: s5, v3, a7, vcc, exec, m0. */
void emu_reg_name(unsigned code, char *buf, size_t len);

/* Report a fault for the current instruction of wave w; returns -1. */
int emu_fault(wg_ctx *c, wave *w, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Does every register operand of in lie inside kernel k's allocation
 * (VGPRs, AGPRs, SGPRs of its descriptor)? The loader records it in
 * emu_inst.regs_ok, so the executor checks the bounds (and reports) only
 * for the instructions that break them. */
bool emu_regs_in_bounds(const emu_kernel *k, const emu_inst *in);
/* Where kernel k's AGPRs start in a wave's pending-load bitmap (wave.pend),
 * and the words and bits of in's register operands there (in->npend). */
int emu_pend_abase(const emu_kernel_info *ki);
void emu_pend_span(const emu_kernel *k, emu_inst *in);

/* Execute wave w until it reaches s_barrier, s_endpgm or a fault.
 * Returns 0 or -1. */
int emu_run_wave(wg_ctx *c, wave *w);

/* Hazard checks (hazard.c). Called before executing in; returns -1 on a
 * shortfall (reported). hz_after records the writes of in. */
int hz_check(wg_ctx *c, wave *w, const emu_inst *in);
void hz_after(wg_ctx *c, wave *w, const emu_inst *in);

/* A register's last-write record (wave.vw/aw): the ws + 1 of the write,
 * the writer's kind and passes. */
static inline uint64_t hz_rec(uint64_t at, int kind, int passes)
{
    return at << 16 | (uint64_t)(uint8_t)kind << 8 | (uint8_t)passes;
}

/* hz_after for an instruction with in->hz_plain: its one VGPR destination
 * recorded as a VALU write. */
static inline void hz_after_plain(wave *w, const emu_inst *in)
{
    uint64_t rec = hz_rec(w->ws + 1, HZ_VALU, 0), *p = &w->vw[in->wr[0] - R_V0];
    for (int i = 0; i < in->wrw[0]; i++)
        p[i] = rec;
}

/* The active lanes of exec; every lane (the common case) without the
 * library call x86-64's baseline makes of a 64-bit popcount. */
static inline int emu_lanes(uint64_t exec) { return exec == ~0ull ? 64 : __builtin_popcountll(exec); }

/* Does the host CPU have FMA (AVX2) instructions? (host_cpu.c; false off x86-64) */
bool emu_host_fma(void);
bool emu_host_avx2(void);

/* Can any of hz_check's rules apply to in now? The scalar rules, MFMA and
 * v_accvgpr_write ones by the instruction (hz_always); the other
 * vector-register rules once the wave ran an MFMA, AGPR move or v_dot; the
 * store-data rule to VALU instructions just after a wide store. A VALU
 * instruction on VGPRs in an FMA kernel's loop skips the call. */
static inline bool hz_may_apply(const wave *w, const emu_inst *in)
{
    return in->hz_always || w->hz_vec || (w->ws < w->hz_store_until && emu_is_valu(in));
}

/* MFMA (mfma.c): execute one MFMA on wave w. Returns -1 if unsupported. */
int emu_mfma(wg_ctx *c, wave *w, const emu_inst *in);
/* Passes (4-cycle units) of an MFMA operation, 0 if not an MFMA. */
int emu_mfma_passes(isa_op op);
/* 1 when the MFMA runs on CDNA3's XDL units (f16/bf16), 0 for the f32
 * "SMFMA" ones or not an MFMA. */
int emu_mfma_is_xdl(isa_op op);

#endif
