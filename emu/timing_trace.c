/* What the timing model records of a sampled wave's memory instructions
 * (docs/TIMING.md "Memory"): called by the executor just before a DS or
 * VMEM instruction of a traced wave runs, so the registers hold its
 * addresses.
 *
 * VMEM: the distinct lines of the target's line_bytes that the active,
 * in-range lanes touch (the unit the address path coalesces a wave's
 * lanes into). Addresses follow the executor's forms: MUBUF base +
 * soffset + stride x index + offset (a raw resource's lanes with offset +
 * size > NUM_RECORDS, a structured one's with index >= NUM_RECORDS touch
 * nothing), global saddr + 32-bit offset or a 64-bit VGPR address, plus
 * the instruction offset. Faults are the executor's business: an address
 * it will reject is recorded like any other (the launch then fails).
 *
 * DS: the cycles the LDS pipe spends on the instruction under the bank
 * model: 32 banks of 4 bytes; the wave's lanes are serviced in groups of
 * 128 bytes of data (32 lanes for 4-byte accesses, 16 for 8-byte ones, 8
 * for 12- and 16-byte ones); a group takes as many cycles as the most
 * distinct dwords any one bank holds among its accesses (lanes reading the
 * same dword share one access: broadcast), and at least one cycle. On
 * CDNA3, ds_read_b128 groups lanes 0-3 with 20-23, 4-7 with 16-19, 8-11
 * with 28-31, 12-15 with 24-27 (and the same + 32), AMD's ROCm blog
 * "Avoiding LDS bank conflicts on AMD GPUs using CK-Tile"; every other
 * width groups consecutive lanes (AMD's GCN OpenCL optimization guide:
 * conflicts are checked per half wave for 4-byte accesses; composable
 * kernel's LDS notes: 8 lanes per phase for 16-byte ones). */
#include <string.h>

#include "exec.h"
#include "timing_int.h"

#define MAX_LINES 256

/* Sort lines[0..n) (few, mostly ascending: insertion sort) and drop duplicates. */
static int unique_lines(uint64_t *lines, int n)
{
    for (int i = 1; i < n; i++) {
        uint64_t x = lines[i];
        int j = i;
        while (j > 0 && lines[j - 1] > x) {
            lines[j] = lines[j - 1];
            j--;
        }
        lines[j] = x;
    }
    int k = 0;
    for (int i = 0; i < n; i++)
        if (!k || lines[k - 1] != lines[i])
            lines[k++] = lines[i];
    return k;
}

/* Lane l's first byte, or false when the lane touches no memory. */
static bool vmem_addr(const wave *w, const emu_inst *in, int l, int len, uint64_t *a)
{
    if (in->fmt == F_MUBUF) {
        if (in->src[1].kind != K_SGPR || in->src[1].code > 124 || ((in->offen || in->idxen) && in->src[0].kind != K_VGPR))
            return false; /* no resource (cache control) */
        const uint32_t *rs = &w->s[in->src[1].code];
        uint64_t base = (uint64_t)rs[0] | (uint64_t)(rs[1] & 0xffff) << 32;
        uint32_t stride = (rs[1] >> 16) & 0x3fff, num = rs[2];
        uint32_t idx = in->idxen ? w->v[in->src[0].code - R_V0][l] : 0;
        uint64_t off = (uint64_t)(in->offen ? w->v[in->src[0].code - R_V0 + (in->idxen ? 1 : 0)][l] : 0) +
                       (uint32_t)in->offset;
        if (in->idxen && stride ? idx >= num : off + (uint64_t)len > num)
            return false;
        *a = base + sval(w, &in->src[2]) + (uint64_t)stride * idx + off;
        return true;
    }
    if (in->src[0].kind != K_VGPR)
        return false;
    const uint32_t *v = w->v[in->src[0].code - R_V0];
    if (in->src[2].code != R_NONE)
        *a = sval64(w, &in->src[2]) + v[l];
    else
        *a = (uint64_t)v[l] | (uint64_t)w->v[in->src[0].code - R_V0 + 1][l] << 32;
    *a += (uint64_t)(int64_t)in->offset;
    return true;
}

static void trace_vmem(emu_trace *t, const wave *w, const emu_inst *in, uint64_t exec, int line)
{
    uint64_t lines[MAX_LINES];
    int n = 0, lanes = 0;
    int len = in->is_atomic ? 4 : in->mem_bytes;
    for (int l = 0; l < 64; l++) {
        uint64_t a;
        if (!(exec >> l & 1) || !vmem_addr(w, in, l, len, &a))
            continue;
        lanes++;
        for (uint64_t x = a / (uint64_t)line; x <= (a + (uint64_t)len - 1) / (uint64_t)line && n < MAX_LINES; x++)
            lines[n++] = x;
    }
    n = unique_lines(lines, n);
    emu_trace_word(t, (uint32_t)n | (uint32_t)lanes << 16);
    emu_trace_word(t, 0);
    for (int i = 0; i < n; i++) {
        emu_trace_word(t, (uint32_t)lines[i]);
        emu_trace_word(t, (uint32_t)(lines[i] >> 32));
    }
}

/* The lane group of lane l: groups of `per` consecutive lanes, or CDNA3's
 * ds_read_b128 pairing of quads. */
static int lane_group(int l, int per, bool cdna3_b128)
{
    if (!cdna3_b128)
        return l / per;
    static const int quad_group[8] = {0, 1, 2, 3, 1, 0, 3, 2}; /* quads 0-7 of a half wave */
    return (l / 32) * 4 + quad_group[(l % 32) / 4];
}

/* Does DS instruction in go through the LDS banks at the addresses of its
 * first operand? The permutes go through the LDS crossbar instead. */
static bool ds_addressed(const emu_inst *in)
{
    return in->src[0].kind == K_VGPR && in->op != OP_DS_SWIZZLE_B32 && in->op != OP_DS_PERMUTE_B32 &&
           in->op != OP_DS_BPERMUTE_B32;
}

/* LDS cycles of a DS instruction (the bank model above) and, in *ideal,
 * its cycles without conflicts (one per lane group with an active lane). */
static int lds_cycles(const wave *w, const emu_inst *in, uint64_t exec, bool cdna3, int *ideal)
{
    bool two = in->ds_two;
    int bytes = in->mem_bytes ? in->mem_bytes : 4; /* per lane, both elements of read2/write2 */
    int elem = two ? bytes / 2 : bytes, dwords = elem >= 4 ? elem / 4 : 1;
    bool st64 = in->op == OP_DS_READ2ST64_B32 || in->op == OP_DS_WRITE2ST64_B32 ||
                in->op == OP_DS_READ2ST64_B64 || in->op == OP_DS_WRITE2ST64_B64;
    bool addressed = ds_addressed(in);
    int per = bytes >= 12 ? 8 : bytes >= 8 ? 16 : 32;
    bool b128 = cdna3 && in->op == OP_DS_READ_B128;
    int groups = 64 / per, cycles = 0;
    *ideal = 0;
    /* the dwords of each lane group, the lanes in order (at most 64 a group) */
    uint32_t dw[8][64];
    int n[8] = {0};
    for (uint64_t m = exec; m; m &= m - 1) {
        int l = __builtin_ctzll(m), g = lane_group(l, per, b128);
        uint32_t base = addressed ? w->v[in->src[0].code - R_V0][l] : (uint32_t)l * 4;
        for (int e = 0; e < (two ? 2 : 1); e++) {
            uint32_t off = two ? (uint32_t)((e ? in->offset1 : in->offset) * elem * (st64 ? 64 : 1))
                               : addressed ? (uint32_t)in->offset : 0;
            for (int j = 0; j < dwords && n[g] < 64; j++)
                dw[g][n[g]++] = (base + off) / 4 + (uint32_t)j;
        }
    }
    for (int g = 0; g < groups; g++) {
        if (!n[g])
            continue;
        /* the distinct dwords per bank (a dword read by several lanes is
           one access), each bank's as a chain: a group's cycles are its
           busiest bank's */
        int count[32] = {0}, head[32], next[64], most = 1, kept = 0;
        uint32_t val[64];
        for (int k = 0; k < 32; k++)
            head[k] = -1;
        for (int i = 0; i < n[g]; i++) {
            uint32_t d = dw[g][i];
            int bank = (int)(d % 32), k = head[bank];
            while (k >= 0 && val[k] != d)
                k = next[k];
            if (k >= 0)
                continue;
            val[kept] = d;
            next[kept] = head[bank];
            head[bank] = kept++;
            if (++count[bank] > most)
                most = count[bank];
        }
        cycles += most;
        (*ideal)++;
    }
    return cycles;
}

void emu_trace_mem(emu_trace *t, wave *w, const emu_inst *in)
{
    const target *tg = emu_timing_target(t->owner);
    uint64_t exec = exec_mask(w);
    if (in->fmt != F_DS) {
        trace_vmem(t, w, in, exec, tg->tm.line_bytes);
        return;
    }
    emu_ds_memo *m = emu_ds_memo_at(w, exec, ds_addressed(in) ? w->v[in->src[0].code - R_V0] : NULL);
    if (!m->has_word) {
        int ideal, cyc = lds_cycles(w, in, exec, tg->tm.lds_b128_cdna3_groups, &ideal);
        m->word = (uint32_t)cyc | (uint32_t)ideal << 16;
        m->has_word = true;
    }
    emu_trace_word(t, m->word);
}
