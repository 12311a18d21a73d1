/* Vector memory: LDS (DS), buffer (MUBUF) and global/flat instructions.
 *
 * Strictness: LDS accesses beyond the workgroup's allocation, misaligned
 * LDS accesses and LDS races between waves of a workgroup (conflicting
 * accesses not ordered by a retired operation and an s_barrier: lds.h) are
 * faults. Buffer accesses
 * follow the gfx9 range check (per dword, stride 0: in range when
 * offset + size <= NUM_RECORDS); accesses whose outcome depends on a
 * disputed reading of that rule are faults: non-zero soffset changing the
 * outcome, and multi-dword accesses partly in range. Every in-range access
 * must fall inside memory the host registered, and every access of a MUBUF
 * instruction (or a GLOBAL one with an SGPR base) inside the one buffer
 * that holds its first access. */
#include <stdio.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "exec.h"
#include "lds.h"

#define LANES for (int l = 0; l < 64; l++)

/* ---- LDS ---- */

static int lds_check(wg_ctx *c, wave *w, uint32_t addr, int bytes, int align, int kind, uint32_t seq)
{
    bool write = kind != LDS_READ;
    if ((uint64_t)addr + (unsigned)bytes > (uint64_t)c->lds_size)
        return emu_fault(c, w, "LDS %s of %d bytes at 0x%x beyond the workgroup's %d bytes", write ? "write" : "read",
                         bytes, addr, c->lds_size);
    if (addr % (uint32_t)align)
        return emu_fault(c, w, "LDS %s of %d bytes at 0x%x is not %d-byte aligned", write ? "write" : "read", bytes,
                         addr, align);
    uint32_t first = addr / 4, last = (addr + (uint32_t)bytes - 1) / 4;
    if (lds_track(c, w, first, last, kind, seq))
        return -1;
    lds_note(c, w->id, kind, first, last, seq);
    return 0;
}

/* Element size in bytes of the sub-dword and read2/write2 forms (0: the
 * other forms, sized by their data registers) and the unit of offset0 and
 * offset1 in elements (64 for the st64 forms). */
static uint64_t rmw32(isa_op op, uint32_t old, uint32_t x, uint32_t x2);

static int ds_bytes(isa_op op, int *stride)
{
    *stride = 1;
    switch (op) {
    case OP_DS_WRITE_B8: case OP_DS_READ_I8: case OP_DS_READ_U8: case OP_DS_WRITE_B8_D16_HI: return 1;
    case OP_DS_WRITE_B16: case OP_DS_READ_I16: case OP_DS_READ_U16: case OP_DS_READ_U16_D16:
    case OP_DS_READ_U16_D16_HI: case OP_DS_WRITE_B16_D16_HI: return 2;
    case OP_DS_WRITE2_B32: case OP_DS_READ2_B32: return 4;
    case OP_DS_WRITE2ST64_B32: case OP_DS_READ2ST64_B32: *stride = 64; return 4;
    case OP_DS_WRITE2_B64: case OP_DS_READ2_B64: return 8;
    case OP_DS_WRITE2ST64_B64: case OP_DS_READ2ST64_B64: *stride = 64; return 8;
    default: break;
    }
    return 0;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* The least and greatest of the 64 addresses addr[l] + off (32-bit, as the
 * hardware adds them) folded into *amin and *amax, their bits into *mis:
 * eight lanes an instruction (SSE2 has no unsigned 32-bit min/max). */
__attribute__((target("avx2"))) static void lanes_span_avx2(const uint32_t *addr, uint32_t off, uint32_t *amin,
                                                            uint32_t *amax, uint32_t *mis)
{
    __m256i o = _mm256_set1_epi32((int)off), lo = _mm256_set1_epi32(-1), hi = _mm256_setzero_si256(), m = hi;
    for (int l = 0; l < 64; l += 8) {
        __m256i a = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(addr + l)), o);
        lo = _mm256_min_epu32(lo, a);
        hi = _mm256_max_epu32(hi, a);
        m = _mm256_or_si256(m, a);
    }
    uint32_t x[3][8];
    _mm256_storeu_si256((__m256i *)(void *)x[0], lo);
    _mm256_storeu_si256((__m256i *)(void *)x[1], hi);
    _mm256_storeu_si256((__m256i *)(void *)x[2], m);
    for (int i = 0; i < 8; i++) {
        *amin = x[0][i] < *amin ? x[0][i] : *amin;
        *amax = x[1][i] > *amax ? x[1][i] : *amax;
        *mis |= x[2][i];
    }
}
#endif

/* The same for every lane, eight at a time where the host has AVX2. */
static void lanes_span(const uint32_t *addr, uint32_t off, uint32_t *amin, uint32_t *amax, uint32_t *mis)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (emu_host_avx2()) {
        lanes_span_avx2(addr, off, amin, amax, mis);
        return;
    }
#endif
    for (int l = 0; l < 64; l++) { /* branch-free lanes: the loop vectorizes */
        uint32_t a = addr[l] + off;
        *amin = a < *amin ? a : *amin;
        *amax = a > *amax ? a : *amax;
        *mis |= a;
    }
}

/* Are the accesses of every lane of exec inside the workgroup's LDS and
 * aligned? Also gives the dwords [*lo, *hi] they span (when they are). */
static bool ds_in_bounds(const wg_ctx *c, const uint32_t *addr, const uint32_t *off, int nelem, int size, int align,
                         uint64_t exec, uint32_t *lo, uint32_t *hi)
{
    if (!exec) {
        *lo = 1;
        *hi = 0;
        return true;
    }
    uint32_t amin = UINT32_MAX, amax = 0, mis = 0;
    for (int e = 0; e < nelem; e++) {
        if (exec == ~0ull)
            lanes_span(addr, off[e], &amin, &amax, &mis);
        else
            for (int l = 0; l < 64; l++) {
                uint32_t on = (uint32_t)0 - (uint32_t)(exec >> l & 1), a = addr[l] + off[e];
                amin = (a | ~on) < amin ? (a | ~on) : amin;
                amax = (a & on) > amax ? (a & on) : amax;
                mis |= a & on;
            }
    }
    uint64_t end = (uint64_t)amax + (unsigned)size;
    *lo = amin / 4;
    *hi = (uint32_t)((end - 1) / 4);
    return end <= (uint64_t)c->lds_size && !(mis % (uint32_t)align);
}

/* Per element of a DS instruction of wave w, the lanes of exec whose
 * address (addr[l] + off[e]) no earlier lane, nor an earlier element of
 * the same lane, has: from the wave's memo (emu_ds_memo_at) while the
 * addresses move together. */
static void ds_first_lanes(wave *w, const uint32_t *addr, const uint32_t *off, int nelem, uint64_t exec,
                           uint64_t first[2])
{
    emu_ds_memo *m = emu_ds_memo_at(w, exec, addr);
    if (!m->has_first) {
        uint32_t seen[64];
        memset(seen, 0xff, sizeof seen);
        m->first[0] = m->first[1] = 0;
        for (uint64_t x = exec; x; x &= x - 1) {
            int l = __builtin_ctzll(x);
            for (int e = 0; e < nelem; e++) {
                uint32_t a = addr[l] + off[e];
                unsigned slot = (a >> 2) & 63;
                if (seen[slot] == a)
                    continue;
                /* a slot holds the latest address of its dword class: an
                   older one evicted is found again only by a later lane
                   repeating it, whose bookkeeping is then done twice */
                seen[slot] = a;
                m->first[e] |= 1ull << l;
            }
        }
        m->has_first = true;
    }
    first[0] = m->first[0];
    first[1] = m->first[1];
}

/* The checks of ds_plain's accesses, lane by lane and within a lane element
 * by element. With full, each access is checked whole (bounds, alignment
 * and races: lds_check); without, the accesses are known in bounds and
 * aligned, only the race bookkeeping runs (lds_track, or lds_record when
 * nothing can race), and only for the lanes whose address no earlier one
 * had (ds_first_lanes; a repeat would find and record the same). full and
 * kind are constants at each call, so the loop specializes. */
static inline __attribute__((always_inline)) int ds_check_lanes(wg_ctx *c, wave *w, const uint32_t *addr,
                                                                const uint32_t *off, int nelem, int size,
                                                                int align, uint64_t exec, uint32_t seq, int kind,
                                                                bool full, uint32_t lo, uint32_t hi)
{
    if (full) {
        for (uint64_t x = exec; x; x &= x - 1) {
            int l = __builtin_ctzll(x);
            for (int e = 0; e < nelem; e++)
                if (lds_check(c, w, addr[l] + off[e], size, align, kind, seq))
                    return -1;
        }
        return 0;
    }
    uint64_t first[2];
    ds_first_lanes(w, addr, off, nelem, exec, first);
    uint32_t last = (uint32_t)size - 1;
    if (lds_quiet_at(c, w->id, kind, lo, hi)) {
        /* nothing to check: every record of the instruction holds the same
           (wave, sequence number, instruction), so their order is free */
        for (int e = 0; e < nelem; e++)
            for (uint64_t x = first[e]; x; x &= x - 1) {
                uint32_t a = addr[__builtin_ctzll(x)] + off[e];
                lds_record(c, w, a / 4, (a + last) / 4, kind, seq);
            }
    } else /* lane by lane and element by element: the first race found is the one reported */
        for (uint64_t x = first[0] | first[1]; x; x &= x - 1) {
            int l = __builtin_ctzll(x);
            for (int e = 0; e < nelem; e++) {
                if (!(first[e] >> l & 1))
                    continue;
                uint32_t a = addr[l] + off[e];
                if (lds_track(c, w, a / 4, (a + last) / 4, kind, seq))
                    return -1;
            }
        }
    if (exec) /* the summaries, once for the instruction's range */
        lds_note(c, w->id, kind, lo, hi, seq);
    return 0;
}

/* A read of `dwords` dwords per lane at addr[l] + off into regs[0..dwords),
 * every lane active: four lanes at a time, their 16 or 8 bytes transposed
 * into the registers where the host has SSE2, lane by lane otherwise. The
 * addresses of a block are read before its registers are written (a
 * destination may be the address register). */
static void ds_read_all_lanes(const uint32_t *lds, const uint32_t *addr, uint32_t off, int dwords,
                              uint32_t *const *regs)
{
#ifdef __SSE2__
    if (dwords == 4 || dwords == 2) {
        for (int l = 0; l < 64; l += 4) {
            const uint32_t *p0 = lds + (addr[l] + off) / 4, *p1 = lds + (addr[l + 1] + off) / 4;
            const uint32_t *p2 = lds + (addr[l + 2] + off) / 4, *p3 = lds + (addr[l + 3] + off) / 4;
            __m128i a, b, c, d;
            if (dwords == 4) {
                a = _mm_loadu_si128((const __m128i *)(const void *)p0);
                b = _mm_loadu_si128((const __m128i *)(const void *)p1);
                c = _mm_loadu_si128((const __m128i *)(const void *)p2);
                d = _mm_loadu_si128((const __m128i *)(const void *)p3);
            } else {
                a = _mm_loadl_epi64((const __m128i *)(const void *)p0);
                b = _mm_loadl_epi64((const __m128i *)(const void *)p1);
                c = _mm_loadl_epi64((const __m128i *)(const void *)p2);
                d = _mm_loadl_epi64((const __m128i *)(const void *)p3);
            }
            __m128i ab01 = _mm_unpacklo_epi32(a, b), cd01 = _mm_unpacklo_epi32(c, d);
            _mm_storeu_si128((__m128i *)(void *)(regs[0] + l), _mm_unpacklo_epi64(ab01, cd01));
            _mm_storeu_si128((__m128i *)(void *)(regs[1] + l), _mm_unpackhi_epi64(ab01, cd01));
            if (dwords == 4) {
                __m128i ab23 = _mm_unpackhi_epi32(a, b), cd23 = _mm_unpackhi_epi32(c, d);
                _mm_storeu_si128((__m128i *)(void *)(regs[2] + l), _mm_unpacklo_epi64(ab23, cd23));
                _mm_storeu_si128((__m128i *)(void *)(regs[3] + l), _mm_unpackhi_epi64(ab23, cd23));
            }
        }
        return;
    }
#endif
    if (dwords == 1) {
        for (int l = 0; l < 64; l++)
            regs[0][l] = lds[(addr[l] + off) / 4];
        return;
    }
    for (int l = 0; l < 64; l++) {
        const uint32_t *p = lds + (addr[l] + off) / 4;
        uint32_t x[4];
        for (int j = 0; j < dwords; j++)
            x[j] = p[j];
        for (int j = 0; j < dwords; j++)
            regs[j][l] = x[j];
    }
}

/* The data of ds_plain's accesses (checked), lane by lane and within a
 * lane element by element, as the hardware orders overlapping writes. */
static void ds_move(uint32_t *lds, const uint32_t *addr, const uint32_t *off, int nelem, int dwords,
                    uint32_t *const *regs, uint64_t exec, bool read)
{
    uint32_t copy[64];
    const uint32_t *a = addr;
    if (read) { /* its registers may be the address's: every element at the first address */
        memcpy(copy, addr, sizeof copy);
        a = copy;
    }
    if (read && exec == ~0ull && dwords <= 4) { /* reads do not depend on the order */
        for (int e = 0; e < nelem; e++)
            ds_read_all_lanes(lds, a, off[e], dwords, regs + e * dwords);
        return;
    }
    for (int l = 0; l < 64; l++)
        for (int e = 0; e < nelem; e++) {
            if (!(exec >> l & 1))
                continue;
            uint32_t *p = lds + (a[l] + off[e]) / 4;
            if (read)
                for (int j = 0; j < dwords; j++)
                    regs[e * dwords + j][l] = p[j];
            else
                for (int j = 0; j < dwords; j++)
                    p[j] = regs[e * dwords + j][l];
        }
}

/* The common case, kept fast: plain reads and writes of whole dwords
 * (b32/b64/b96/b128 and read2/write2 of dwords), every check of the general
 * path (bounds, alignment, races) done per lane, with the race bookkeeping
 * skipped for a lane whose address an earlier lane of this instruction
 * already recorded (lanes often read the same LDS words). */
static int ds_plain(wg_ctx *c, wave *w, const emu_inst *in, int size, bool two, int stride, uint64_t exec,
                    uint32_t seq)
{
    bool read = in->is_load;
    int nelem = two ? 2 : 1, dwords = size / 4;
    int align = size >= 12 ? 16 : size;
    const uint32_t *addr = w->v[in->src[0].code - R_V0];
    uint32_t *lds = (uint32_t *)(void *)c->lds;
    uint32_t *regs[8];
    for (int e = 0; e < nelem; e++)
        for (int j = 0; j < dwords; j++)
            regs[e * dwords + j] =
                read ? vdst(w, in->dst.code, e * dwords + j) : vdst(w, in->src[1 + e].code, j);
    uint32_t off[2] = {two ? (uint32_t)(in->offset * size * stride) : (uint32_t)in->offset,
                       two ? (uint32_t)(in->offset1 * size * stride) : 0};
    /* every access in bounds and aligned: only races can fault, and they
       are found lane by lane in the same order as the full checks */
    uint32_t lo, hi;
    bool fast = ds_in_bounds(c, addr, off, nelem, size, align, exec, &lo, &hi);
    if (fast ? (read ? ds_check_lanes(c, w, addr, off, nelem, size, align, exec, seq, LDS_READ, false, lo, hi)
                     : ds_check_lanes(c, w, addr, off, nelem, size, align, exec, seq, LDS_WRITE, false, lo, hi))
             : ds_check_lanes(c, w, addr, off, nelem, size, align, exec, seq, read ? LDS_READ : LDS_WRITE, true, 0,
                              0))
        return -1;
    ds_move(lds, addr, off, nelem, dwords, regs, exec, read);
    uint64_t bytes = (uint64_t)emu_lanes(exec) * (uint64_t)(size * nelem);
    if (read) {
        c->stats.lds_read += bytes;
        return emu_issue_lgkm(c, w, in, in->dst.code, in->dst.width, false, false);
    }
    c->stats.lds_written += bytes;
    return emu_issue_lgkm(c, w, in, R_NONE, 0, false, true);
}

static int exec_ds(wg_ctx *c, wave *w, const emu_inst *in)
{
    isa_op op = (isa_op)in->op;
    uint64_t exec = exec_mask(w);
    if (in->gds)
        return emu_fault(c, w, "GDS is not supported by the emulator");
    const uint32_t *addr = w->v[in->src[0].code - R_V0];
    bool two = in->ds_two;
    int stride;
    int size = ds_bytes(op, &stride);
    uint8_t *lds = c->lds;

    if (op == OP_DS_BPERMUTE_B32 || op == OP_DS_PERMUTE_B32) {
        const uint32_t *data = w->v[in->src[1].code - R_V0];
        uint32_t out[64] = {0};
        LANES {
            if (!(exec >> l & 1))
                continue;
            unsigned sl = ((addr[l] + (uint32_t)in->offset) / 4) & 63;
            if (op == OP_DS_BPERMUTE_B32)
                out[l] = (exec >> sl & 1) ? data[sl] : 0;
            else
                out[sl] = data[l];
        }
        wb(vdst(w, in->dst.code, 0), out, exec);
        return emu_issue_lgkm(c, w, in, in->dst.code, 1, false, false);
    }
    if (op == OP_DS_SWIZZLE_B32) {
        const uint32_t *data = vsrc(w, &in->src[0], 0, (uint32_t[64]){0});
        uint32_t out[64];
        unsigned off = (unsigned)in->offset;
        LANES {
            int sl;
            if (off & 0x8000) /* quad permute */
                sl = (l & ~3) + (int)((off >> (2 * (l & 3))) & 3);
            else { /* bit mode within 32 lanes */
                unsigned and_m = off & 31, or_m = (off >> 5) & 31, xor_m = (off >> 10) & 31;
                sl = (l & 32) | (int)((((unsigned)l & and_m) | or_m) ^ xor_m);
            }
            out[l] = (exec >> sl & 1) ? data[sl] : 0;
        }
        wb(vdst(w, in->dst.code, 0), out, exec);
        return emu_issue_lgkm(c, w, in, in->dst.code, 1, false, false);
    }

    bool read = in->is_load;
    if (!size) {
        size = 4 * (read ? in->dst.width : in->src[1].width);
        if (in->is_atomic)
            size = 4;
    }
    uint32_t seq = lds_track_next(c, w);
    if (!seq)
        return -1;
    if (size >= 4 && !in->is_atomic && (!two || size == 4 || size == 8))
        return ds_plain(c, w, in, size, two, stride, exec, seq);
    int align = size >= 12 ? 16 : size;
    int nelem = two ? 2 : 1;
    LANES {
        if (!(exec >> l & 1))
            continue;
        for (int e = 0; e < nelem; e++) {
            uint32_t a = addr[l] + (two ? (uint32_t)((e ? in->offset1 : in->offset) * size * stride) : (uint32_t)in->offset);
            if (lds_check(c, w, a, size, align, in->is_atomic ? LDS_ATOMIC : read ? LDS_READ : LDS_WRITE, seq))
                return -1;
            if (read) {
                int dwords = size >= 4 ? size / 4 : 1;
                for (int j = 0; j < dwords; j++) {
                    uint32_t *d = vdst(w, in->dst.code, e * dwords + j);
                    uint32_t x = 0;
                    if (size >= 4)
                        memcpy(&x, lds + a + 4 * j, 4);
                    else if (size == 2) {
                        uint16_t h;
                        memcpy(&h, lds + a, 2);
                        x = op == OP_DS_READ_I16 ? (uint32_t)(int32_t)(int16_t)h : h;
                        if (op == OP_DS_READ_U16_D16)
                            x = (d[l] & 0xffff0000u) | h;
                        else if (op == OP_DS_READ_U16_D16_HI)
                            x = (d[l] & 0xffffu) | (uint32_t)h << 16;
                    } else {
                        uint8_t b = lds[a];
                        x = op == OP_DS_READ_I8 ? (uint32_t)(int32_t)(int8_t)b : b;
                    }
                    d[l] = x;
                }
                c->stats.lds_read += (uint64_t)size;
            } else {
                const emu_opnd *src = &in->src[1 + e];
                if (in->is_atomic) {
                    uint32_t old, x = vdst(w, src->code, 0)[l];
                    uint32_t x2 = in->src[2].code != R_NONE ? vdst(w, in->src[2].code, 0)[l] : 0;
                    memcpy(&old, lds + a, 4);
                    uint64_t nv = rmw32(op, old, x, x2);
                    if (nv == ~0ull)
                        return emu_fault(c, w, "LDS atomic not implemented by the emulator");
                    uint32_t n32 = (uint32_t)nv;
                    memcpy(lds + a, &n32, 4);
                    if (in->dst.code != R_NONE)
                        vdst(w, in->dst.code, 0)[l] = old;
                } else if (size >= 4) {
                    for (int j = 0; j < size / 4; j++) {
                        uint32_t x = vdst(w, src->code, j)[l];
                        memcpy(lds + a + 4 * j, &x, 4);
                    }
                } else {
                    uint32_t x = vdst(w, src->code, 0)[l];
                    if (op == OP_DS_WRITE_B8_D16_HI || op == OP_DS_WRITE_B16_D16_HI)
                        x >>= 16;
                    memcpy(lds + a, &x, (size_t)size);
                }
                c->stats.lds_written += (uint64_t)size;
            }
        }
    }
    if (read)
        return emu_issue_lgkm(c, w, in, in->dst.code, in->dst.width, false, false);
    if (in->is_atomic && in->dst.code != R_NONE) /* returns the old value */
        return emu_issue_lgkm(c, w, in, in->dst.code, 1, false, true);
    return emu_issue_lgkm(c, w, in, R_NONE, 0, false, true);
}

/* ---- global memory access (registered host memory) ---- */

static int access_bytes(isa_op op)
{
    switch (op) {
    case OP_BUFFER_LOAD_UBYTE: case OP_BUFFER_LOAD_SBYTE: case OP_BUFFER_STORE_BYTE:
    case OP_GLOBAL_LOAD_UBYTE: case OP_GLOBAL_STORE_BYTE:
        return 1;
    case OP_BUFFER_LOAD_USHORT: case OP_BUFFER_LOAD_SSHORT: case OP_BUFFER_LOAD_SHORT_D16:
    case OP_BUFFER_LOAD_SHORT_D16_HI: case OP_BUFFER_STORE_SHORT: case OP_BUFFER_STORE_SHORT_D16_HI:
    case OP_GLOBAL_LOAD_USHORT: case OP_GLOBAL_LOAD_SSHORT: case OP_GLOBAL_LOAD_SHORT_D16:
    case OP_GLOBAL_LOAD_SHORT_D16_HI: case OP_GLOBAL_STORE_SHORT: case OP_GLOBAL_STORE_SHORT_D16_HI:
        return 2;
    default:
        return 4;
    }
}

static uint32_t f16x2_add(uint32_t a, uint32_t b)
{
    return f32_to_f16(f16_to_f32((uint16_t)a) + f16_to_f32((uint16_t)b)) |
           (uint32_t)f32_to_f16(f16_to_f32((uint16_t)(a >> 16)) + f16_to_f32((uint16_t)(b >> 16))) << 16;
}

/* The new value of a 32-bit atomic (LDS or global) from the old one, data x
 * and, for compare-and-swap forms, data2 (ISA: DS_CMPST compares with DATA
 * and stores DATA2; the buffer/global CMPSWAP forms come here swapped);
 * -1ull: not an integer RMW operation this knows. */
static uint64_t rmw32(isa_op op, uint32_t old, uint32_t x, uint32_t x2)
{
    switch (op) {
    case OP_DS_ADD_U32: case OP_DS_ADD_RTN_U32: case OP_GLOBAL_ATOMIC_ADD: case OP_BUFFER_ATOMIC_ADD: return old + x;
    case OP_DS_SUB_U32: case OP_DS_SUB_RTN_U32: case OP_GLOBAL_ATOMIC_SUB: return old - x;
    case OP_DS_RSUB_U32: case OP_DS_RSUB_RTN_U32: return x - old;
    case OP_DS_INC_U32: case OP_DS_INC_RTN_U32: case OP_GLOBAL_ATOMIC_INC: return old >= x ? 0 : old + 1;
    case OP_DS_DEC_U32: case OP_DS_DEC_RTN_U32: case OP_GLOBAL_ATOMIC_DEC: return old == 0 || old > x ? x : old - 1;
    case OP_DS_MIN_I32: case OP_DS_MIN_RTN_I32: case OP_GLOBAL_ATOMIC_SMIN: return (int32_t)x < (int32_t)old ? x : old;
    case OP_DS_MAX_I32: case OP_DS_MAX_RTN_I32: case OP_GLOBAL_ATOMIC_SMAX: return (int32_t)x > (int32_t)old ? x : old;
    case OP_DS_MIN_U32: case OP_DS_MIN_RTN_U32: case OP_GLOBAL_ATOMIC_UMIN: return x < old ? x : old;
    case OP_DS_MAX_U32: case OP_DS_MAX_RTN_U32: case OP_GLOBAL_ATOMIC_UMAX: return x > old ? x : old;
    case OP_DS_AND_B32: case OP_DS_AND_RTN_B32: case OP_GLOBAL_ATOMIC_AND: return old & x;
    case OP_DS_OR_B32: case OP_DS_OR_RTN_B32: case OP_GLOBAL_ATOMIC_OR: return old | x;
    case OP_DS_XOR_B32: case OP_DS_XOR_RTN_B32: case OP_GLOBAL_ATOMIC_XOR: return old ^ x;
    case OP_DS_WRXCHG_RTN_B32: case OP_GLOBAL_ATOMIC_SWAP: case OP_BUFFER_ATOMIC_SWAP: return x;
    case OP_DS_CMPST_RTN_B32: return old == x ? x2 : old;
    case OP_DS_ADD_F32: case OP_DS_ADD_RTN_F32: return bits_of(f32_of(old) + f32_of(x));
    default: return ~0ull;
    }
}

/* The 64-bit global atomics (_x2). */
static uint64_t rmw64(isa_op op, uint64_t old, uint64_t x)
{
    switch (op) {
    case OP_GLOBAL_ATOMIC_ADD_X2: return old + x;
    case OP_GLOBAL_ATOMIC_SUB_X2: return old - x;
    case OP_GLOBAL_ATOMIC_SMIN_X2: return (int64_t)x < (int64_t)old ? x : old;
    case OP_GLOBAL_ATOMIC_SMAX_X2: return (int64_t)x > (int64_t)old ? x : old;
    case OP_GLOBAL_ATOMIC_UMIN_X2: return x < old ? x : old;
    case OP_GLOBAL_ATOMIC_UMAX_X2: return x > old ? x : old;
    case OP_GLOBAL_ATOMIC_AND_X2: return old & x;
    case OP_GLOBAL_ATOMIC_OR_X2: return old | x;
    case OP_GLOBAL_ATOMIC_XOR_X2: return old ^ x;
    case OP_GLOBAL_ATOMIC_INC_X2: return old >= x ? 0 : old + 1;
    case OP_GLOBAL_ATOMIC_DEC_X2: return old == 0 || old > x ? x : old - 1;
    default: return x; /* swap */
    }
}

static bool is_x2_atomic(const emu_inst *in)
{
    return in->is_atomic && in->fmt != F_MUBUF && in->src[1].width == 2 && in->op != OP_GLOBAL_ATOMIC_CMPSWAP;
}

/* Atomic read-modify-write of one dword of host memory; returns the old value. */
static uint32_t atomic_rmw(isa_op op, uint32_t *p, uint32_t x, uint32_t cmp)
{
    switch (op) {
    case OP_BUFFER_ATOMIC_ADD: case OP_GLOBAL_ATOMIC_ADD:
        return __atomic_fetch_add(p, x, __ATOMIC_RELAXED);
    case OP_BUFFER_ATOMIC_SWAP: case OP_GLOBAL_ATOMIC_SWAP:
        return __atomic_exchange_n(p, x, __ATOMIC_RELAXED);
    case OP_BUFFER_ATOMIC_CMPSWAP: case OP_GLOBAL_ATOMIC_CMPSWAP: {
        uint32_t expect = cmp;
        __atomic_compare_exchange_n(p, &expect, x, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
        return expect;
    }
    default: { /* the others: compare-and-swap loop */
        uint32_t old = __atomic_load_n(p, __ATOMIC_RELAXED), nv;
        do {
            uint64_t g = rmw32(op, old, x, 0);
            nv = g != ~0ull ? (uint32_t)g
                 : (op == OP_BUFFER_ATOMIC_ADD_F32 || op == OP_GLOBAL_ATOMIC_ADD_F32) ? bits_of(f32_of(old) + f32_of(x))
                                                                                          : f16x2_add(old, x);
        } while (!__atomic_compare_exchange_n(p, &old, nv, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
        return old;
    }
    }
}

/* ---- per-buffer bounds ---- */

/* The buffer an access must stay in: every element a MUBUF instruction, or
 * a GLOBAL instruction with an SGPR base, accesses must lie in the
 * registered buffer that holds its first access (lowest active lane). The
 * base itself does not name the buffer: kernels move a resource's base
 * below their tensor and let per-lane offsets bring the accesses back (the
 * project's v4r1 kernels walk taps that way), so a base can lie in a
 * neighbour's tail. `any` (FLAT/GLOBAL with a 64-bit VGPR address): each
 * access in any registered buffer. */
typedef struct {
    bool any, found;
    uintptr_t lo, hi;
} buf_range;

/* Settle b on the buffer holding [a, a+len); false when none does. */
static bool buf_settle(wg_ctx *c, buf_range *b, uintptr_t a, size_t len)
{
    if (!mem_ok(c, a, len))
        return false;
    b->lo = c->mem_lo;
    b->hi = c->mem_hi;
    b->found = true;
    return true;
}

static bool in_buf(wg_ctx *c, buf_range *b, uintptr_t a, size_t len)
{
    if (b->any)
        return mem_ok(c, a, len);
    if (!b->found)
        return buf_settle(c, b, a, len);
    return a >= b->lo && a < b->hi && len <= b->hi - a;
}

/* The kernel argument whose pointer lies in [lo, hi), for reports. */
static void buf_name(const wg_ctx *c, uintptr_t lo, uintptr_t hi, char *buf, size_t len)
{
    const emu_kernel_info *ki = &c->k->info;
    snprintf(buf, len, "a registered buffer");
    for (int i = 0; c->kernargs && i < ki->nargs; i++) {
        const emu_arg *g = &ki->args[i];
        if (g->size != 8 || strcmp(g->value_kind, "global_buffer") || g->offset + 8 > ki->kernarg_size)
            continue;
        uint64_t p;
        memcpy(&p, (const uint8_t *)c->kernargs + g->offset, 8);
        if (p >= lo && p < hi) {
            snprintf(buf, len, "buffer %s", g->name);
            return;
        }
    }
}

static int buf_fault(wg_ctx *c, wave *w, const emu_inst *in, const buf_range *b, int l, uintptr_t a, int size)
{
    const char *rw = in->is_load ? "reads" : "writes";
    if (!b->found)
        return emu_fault(c, w, "lane %d %s 0x%llx (%d bytes) outside every registered buffer", l, rw,
                         (unsigned long long)a, size);
    char name[96];
    buf_name(c, b->lo, b->hi, name, sizeof name);
    if (a < b->lo)
        return emu_fault(c, w, "lane %d %s 0x%llx (%d bytes), %llu bytes before the start of %s (0x%llx, %llu bytes) "
                         "that the instruction's first access lies in", l, rw, (unsigned long long)a, size,
                         (unsigned long long)(b->lo - a), name, (unsigned long long)b->lo,
                         (unsigned long long)(b->hi - b->lo));
    return emu_fault(c, w, "lane %d %s 0x%llx (%d bytes), %llu bytes past the end of %s (0x%llx, %llu bytes) "
                     "that the instruction's first access lies in", l, rw, (unsigned long long)a, size,
                     (unsigned long long)(a + (uintptr_t)size - b->hi), name, (unsigned long long)b->lo,
                     (unsigned long long)(b->hi - b->lo));
}

/* Load/store/atomic of one lane's element(s) at host address a, which must
 * lie in buffer b. Returns the value for loads/returning atomics in
 * val[0..n-1]. */
static int lane_access(wg_ctx *c, wave *w, const emu_inst *in, buf_range *b, int l, uintptr_t a, int size, int j,
                       uint32_t *val)
{
    isa_op op = (isa_op)in->op;
    if (!in_buf(c, b, a, (size_t)size))
        return buf_fault(c, w, in, b, l, a, size);
    if (a % (uintptr_t)(size < 4 ? size : 4))
        return emu_fault(c, w, "lane %d accesses 0x%llx, not %d-byte aligned", l, (unsigned long long)a, size);
    if (is_x2_atomic(in)) {
        if (!in_buf(c, b, a, 8))
            return buf_fault(c, w, in, b, l, a, 8);
        if (a % 8)
            return emu_fault(c, w, "lane %d accesses 0x%llx, not 8-byte aligned", l, (unsigned long long)a);
        uint64_t *p = (uint64_t *)a, x = (uint64_t)val[0] | (uint64_t)val[1] << 32;
        uint64_t old = __atomic_load_n(p, __ATOMIC_RELAXED);
        while (!__atomic_compare_exchange_n(p, &old, rmw64(op, old, x), false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            ;
        val[0] = (uint32_t)old;
        val[1] = (uint32_t)(old >> 32);
        c->stats.global_read += 8;
        c->stats.global_written += 8;
    } else if (in->is_atomic) {
        uint32_t cmp = 0;
        if (op == OP_BUFFER_ATOMIC_CMPSWAP || op == OP_GLOBAL_ATOMIC_CMPSWAP)
            cmp = val[1];
        val[0] = atomic_rmw(op, (uint32_t *)a, val[0], cmp);
        c->stats.global_read += 4;
        c->stats.global_written += 4;
    } else if (in->is_load) {
        uint32_t x = 0;
        memcpy(&x, (const void *)a, (size_t)size);
        val[j] = x;
        c->stats.global_read += (uint64_t)size;
    } else {
        uint32_t x = val[j];
        memcpy((void *)a, &x, (size_t)size);
        c->stats.global_written += (uint64_t)size;
    }
    return 0;
}

/* Place a loaded element into the destination register (sub-dword forms). */
static uint32_t load_merge(isa_op op, uint32_t old, uint32_t x)
{
    switch (op) {
    case OP_BUFFER_LOAD_SBYTE: case OP_SCRATCH_LOAD_SBYTE: return (uint32_t)(int32_t)(int8_t)x;
    case OP_BUFFER_LOAD_SSHORT: case OP_GLOBAL_LOAD_SSHORT: case OP_SCRATCH_LOAD_SSHORT:
        return (uint32_t)(int32_t)(int16_t)x;
    case OP_BUFFER_LOAD_SHORT_D16: case OP_GLOBAL_LOAD_SHORT_D16: case OP_SCRATCH_LOAD_SHORT_D16:
        return (old & 0xffff0000u) | (x & 0xffff);
    case OP_BUFFER_LOAD_SHORT_D16_HI: case OP_GLOBAL_LOAD_SHORT_D16_HI: case OP_SCRATCH_LOAD_SHORT_D16_HI:
        return (old & 0xffff) | x << 16;
    default: return x;
    }
}

static uint32_t store_value(isa_op op, uint32_t x)
{
    return op == OP_BUFFER_STORE_SHORT_D16_HI || op == OP_GLOBAL_STORE_SHORT_D16_HI ||
                   op == OP_SCRATCH_STORE_SHORT_D16_HI
               ? x >> 16
               : x;
}

/* ---- private memory (scratch) ---- */

/* Lane l of wave w reads or writes its private bytes [p, p + size) (size
 * at most 4, within one dword): they must lie inside the
 * private_segment_fixed_size the descriptor gives each work-item, aligned
 * to their size. Moves the data (val: the loaded or stored value). */
static int private_access(wg_ctx *c, wave *w, const emu_inst *in, int l, int64_t p, int size, uint32_t *val)
{
    const char *rw = in->is_load ? "reads" : "writes";
    if (p < 0 || p + size > c->private_size)
        return emu_fault(c, w, "lane %d %s private bytes [%lld, %lld), outside the %d bytes of private memory the "
                         "kernel descriptor gives each work-item (private_segment_fixed_size)", l, rw, (long long)p,
                         (long long)(p + size), c->private_size);
    if (p % size)
        return emu_fault(c, w, "lane %d %s private offset %lld, not %d-byte aligned", l, rw, (long long)p, size);
    uint8_t *a = c->scratch + (size_t)w->id * c->scratch_wave_bytes + ((size_t)(p >> 2) * 64 + (size_t)l) * 4 +
                 (size_t)(p & 3);
    if (in->is_load) {
        uint32_t x = 0;
        memcpy(&x, a, (size_t)size);
        *val = x;
        c->stats.global_read += (uint64_t)size;
    } else {
        memcpy(a, val, (size_t)size);
        c->stats.global_written += (uint64_t)size;
    }
    return 0;
}

/* The private offset of lane l behind host address a of a swizzled MUBUF
 * access (the scratch V# of launch.c: the interleaving of private_access),
 * or a fault when a is not lane l's own memory of wave w: an earlier
 * wave's (the prologue did not add the private segment wavefront offset),
 * another lane's. An offset past the segment is private_access's to report. */
static int private_offset(wg_ctx *c, wave *w, int l, uintptr_t a, int size, int64_t *p)
{
    uintptr_t lo = (uintptr_t)c->scratch + (uintptr_t)w->id * c->scratch_wave_bytes;
    if (a < lo) /* above the wave's part: private_access reports the offset past the segment */
        return emu_fault(c, w, "lane %d: scratch access at 0x%llx lies outside its wave's private memory (0x%llx, "
                         "%zu bytes): is the private segment wavefront offset added to the buffer's base?", l,
                         (unsigned long long)a, (unsigned long long)lo, c->scratch_wave_bytes);
    uintptr_t rel = a - lo;
    int owner = (int)((rel >> 2) & 63);
    if (owner != l || (rel & 3) + (uintptr_t)size > 4)
        return emu_fault(c, w, "lane %d: scratch access at 0x%llx (%d bytes) is lane %d's private memory, not its own",
                         l, (unsigned long long)a, size, owner);
    *p = (int64_t)((rel >> 8) * 4 + (rel & 3));
    return 0;
}

/* A MUBUF access through a swizzled resource with ADD_TID_ENABLE whose base
 * lies in the workgroup's private memory (the private segment buffer V#):
 * per lane and element, the address of the gfx9 swizzle (index = vindex +
 * lane, offset = voffset + inst offset; element size and index stride from
 * the V#), then private_access. soffset adds to the address unswizzled. */
static int mubuf_scratch(wg_ctx *c, wave *w, const emu_inst *in, uint64_t base, uint32_t soff, uint64_t exec)
{
    const uint32_t *rs = &w->s[in->src[1].code];
    uint32_t stride = (rs[1] >> 16) & 0x3fff, w3 = rs[3];
    uint32_t esize = 2u << ((w3 >> 19) & 3), istride = 8u << ((w3 >> 21) & 3);
    int size = in->mem_bytes < 4 ? in->mem_bytes : 4, n = in->mem_bytes < 4 ? 1 : in->mem_dwords;
    if (in->is_atomic)
        return emu_fault(c, w, "atomics on private memory are not implemented by the emulator");
    const uint32_t *vidx = in->idxen ? w->v[in->src[0].code - R_V0] : NULL;
    const uint32_t *voff = in->offen ? w->v[in->src[0].code - R_V0 + (in->idxen ? 1 : 0)] : NULL;
    isa_op op = (isa_op)in->op;
    LANES {
        if (!(exec >> l & 1))
            continue;
        uint64_t index = (uint64_t)(vidx ? vidx[l] : 0) + (uint64_t)l;
        for (int j = 0; j < n; j++) {
            uint64_t off = (uint64_t)(voff ? voff[l] : 0) + (uint32_t)in->offset + (uint64_t)(4 * j);
            uint64_t boff = ((index / istride) * stride + (off / esize) * esize) * istride + (index % istride) * esize +
                            off % esize;
            int64_t p = 0;
            if (private_offset(c, w, l, (uintptr_t)(base + soff + boff), size, &p))
                return -1;
            uint32_t *d = vdst(w, in->dst.code, j), val = in->is_load ? 0 : store_value(op, d[l]);
            if (private_access(c, w, in, l, p, size, &val))
                return -1;
            if (in->is_load)
                d[l] = load_merge(op, d[l], val);
        }
    }
    return in->is_load ? emu_issue_vm(c, w, in, in->dst.code, in->dst.width) : emu_issue_vm(c, w, in, R_NONE, 0);
}

/* A SCRATCH instruction: lane l's private offset is VADDR (when used) +
 * SADDR (when given) + the instruction's offset, each dword of a
 * multi-dword access at the next offset. The wave's scratch base is the
 * hardware's on targets with architected flat scratch; elsewhere it is
 * FLAT_SCRATCH, which the kernel's prologue sets from the flat scratch init
 * SGPRs plus the wavefront offset, and it must be this wave's base. */
static int exec_scratch(wg_ctx *c, wave *w, const emu_inst *in)
{
    isa_op op = (isa_op)in->op;
    uint64_t exec = exec_mask(w);
    if (!c->scratch)
        return emu_fault(c, w, "scratch access, but the kernel descriptor gives no private memory "
                         "(private_segment_fixed_size 0)");
    if (!c->dev->t->architected_flat_scratch) {
        uint64_t fs = (uint64_t)w->s[102] | (uint64_t)w->s[103] << 32,
                 want = (uint64_t)(uintptr_t)c->scratch + (uint64_t)w->id * c->scratch_wave_bytes;
        if (fs != want)
            return emu_fault(c, w, "FLAT_SCRATCH is 0x%llx, not this wave's scratch base 0x%llx (flat scratch init + "
                             "private segment wavefront offset)", (unsigned long long)fs, (unsigned long long)want);
    }
    int size = in->mem_bytes < 4 ? in->mem_bytes : 4, n = in->mem_bytes < 4 ? 1 : in->mem_dwords;
    uint32_t sbase = in->src[2].code != R_NONE ? sval(w, &in->src[2]) : 0;
    const uint32_t *vaddr = in->src[0].code != R_NONE ? w->v[in->src[0].code - R_V0] : NULL;
    uint16_t data = in->is_load ? in->dst.code : in->src[1].code;
    LANES {
        if (!(exec >> l & 1))
            continue;
        int64_t p = (int64_t)(uint32_t)((vaddr ? vaddr[l] : 0) + sbase + (uint32_t)in->offset);
        for (int j = 0; j < n; j++) {
            uint32_t *d = vdst(w, data, j), val = in->is_load ? 0 : store_value(op, d[l]);
            if (private_access(c, w, in, l, p + 4 * j, size, &val))
                return -1;
            if (in->is_load)
                d[l] = load_merge(op, d[l], val);
        }
    }
    return in->is_load ? emu_issue_vm(c, w, in, in->dst.code, in->dst.width) : emu_issue_vm(c, w, in, R_NONE, 0);
}

/* ---- MUBUF ---- */

/* The report of raw_in_range (below). */
static int raw_disputed(wg_ctx *c, wave *w, int l, uint64_t o, int size, uint32_t num, uint32_t soff)
{
    if (o < num && o + (uint64_t)size > num)
        return emu_fault(c, w, "lane %d: element at offset 0x%llx straddles NUM_RECORDS 0x%x (disputed range check)",
                         l, (unsigned long long)o, num);
    return emu_fault(c, w,
                     "lane %d: whether offset 0x%llx is in range depends on whether soffset 0x%x is "
                     "range-checked (disputed corner)",
                     l, (unsigned long long)o, soff);
}

/* The gfx9 range check of an element of `size` bytes at offset o of a raw
 * (stride 0) buffer: in range when o + size <= NUM_RECORDS. An element
 * straddling NUM_RECORDS, or one whose outcome depends on whether soffset
 * is range-checked, is reported. Returns 1 in range, 0 out, -1 after a
 * fault. Inline: the per-lane test of the buffer fast path. */
static inline int raw_in_range(wg_ctx *c, wave *w, int l, uint64_t o, int size, uint32_t num, uint32_t soff)
{
    bool a_in = o + (uint64_t)size <= num, b_in = o + soff + (uint64_t)size <= num;
    if ((o < num && !a_in) || a_in != b_in)
        return raw_disputed(c, w, l, o, size, num, soff);
    return a_in;
}

/* mubuf_simple's dword case with every lane active when nothing can fault
 * or go out of range: every offset's element (and with soffset) below
 * NUM_RECORDS, the lowest and highest address in the registered buffer
 * that holds lane 0's (the one the lane loop settles on),
 * the base and every offset dword-aligned. Then the lanes move in order
 * without their checks, with the results of the lane loop; otherwise
 * (false) nothing is done and the lane loop decides, reporting what it
 * finds. */
static bool mubuf_dwords_unchecked(wg_ctx *c, const emu_inst *in, uint64_t base, uint32_t num, uint32_t soff,
                                   const uint32_t *voff, uint32_t *data)
{
    uint32_t vmin = UINT32_MAX, vmax = 0, mis = 0;
    lanes_span(voff, 0, &vmin, &vmax, &mis);
    uint64_t k = base + soff + (uint32_t)in->offset; /* lane l's address: k + voff[l] */
    if ((uint64_t)vmax + (uint32_t)in->offset + soff + 4 > num || ((k | mis) & 3))
        return false;
    /* the lane loop's buffer: the one that holds lane 0's access */
    buf_range b = {0};
    if (!buf_settle(c, &b, (uintptr_t)(k + voff[0]), 4) || k + vmin < b.lo || k + vmax + 4 > b.hi)
        return false;
    if (in->is_load)
        for (int l = 0; l < 64; l++)
            memcpy(&data[l], (const void *)(uintptr_t)(k + voff[l]), 4);
    else
        for (int l = 0; l < 64; l++)
            memcpy((void *)(uintptr_t)(k + voff[l]), &data[l], 4);
    return true;
}

/* One-register buffer loads and stores of a dword or a 16-bit element
 * (buffer_load_dword/ushort/short_d16[_hi], buffer_store_dword/short[_d16_hi])
 * with offen and no idxen, the kernels' common case: the same checks and
 * results as the general path below (range check per reading, registered
 * memory, alignment, the sub-dword merge), without its per-element
 * bookkeeping. */
static int mubuf_simple(wg_ctx *c, wave *w, const emu_inst *in, uint64_t base, uint32_t num, uint32_t soff,
                        uint64_t exec, int size)
{
    isa_op op = (isa_op)in->op;
    if (exec == ~0ull && size == 4 &&
        mubuf_dwords_unchecked(c, in, base, num, soff, w->v[in->src[0].code - R_V0], vdst(w, in->dst.code, 0))) {
        if (in->is_load) {
            c->stats.global_read += 64 * 4;
            return emu_issue_vm(c, w, in, in->dst.code, 1);
        }
        c->stats.global_written += 64 * 4;
        return emu_issue_vm(c, w, in, R_NONE, 0);
    }
    buf_range b = {0};
    /* once settled, every lane's address lies in [lo, last = hi - 4] */
    uintptr_t lo = 1, last = 0;
    const uint32_t *voff = w->v[in->src[0].code - R_V0];
    uint32_t *data = vdst(w, in->dst.code, 0);
    bool load = in->is_load;
    uint64_t bytes = 0;
    for (int l = 0; l < 64; l++) {
        if (!(exec >> l & 1))
            continue;
        uint64_t o = (uint64_t)voff[l] + (uint32_t)in->offset;
        int in_range = raw_in_range(c, w, l, o, size, num, soff);
        if (in_range < 0)
            return -1;
        if (!in_range) {
            if (load)
                data[l] = size == 4 ? 0 : load_merge(op, data[l], 0);
            continue;
        }
        uintptr_t a = (uintptr_t)(base + soff + o);
        if (a < lo || a > last) {
            if (b.found || !buf_settle(c, &b, a, (size_t)size))
                return buf_fault(c, w, in, &b, l, a, size);
            lo = b.lo;
            last = b.hi - (uintptr_t)size;
        }
        if (a & (uintptr_t)(size - 1))
            return emu_fault(c, w, "lane %d accesses 0x%llx, not %d-byte aligned", l, (unsigned long long)a, size);
        if (size == 4) {
            if (load)
                memcpy(&data[l], (const void *)a, 4);
            else
                memcpy((void *)a, &data[l], 4);
        } else if (load) {
            uint16_t h;
            memcpy(&h, (const void *)a, 2);
            data[l] = load_merge(op, data[l], h);
        } else {
            uint16_t h = (uint16_t)store_value(op, data[l]);
            memcpy((void *)a, &h, 2);
        }
        bytes += (uint64_t)size;
    }
    if (load) {
        c->stats.global_read += bytes;
        return emu_issue_vm(c, w, in, in->dst.code, 1);
    }
    c->stats.global_written += bytes;
    return emu_issue_vm(c, w, in, R_NONE, 0);
}

static int exec_mubuf(wg_ctx *c, wave *w, const emu_inst *in)
{
    isa_op op = (isa_op)in->op;
    uint64_t exec = exec_mask(w);
    const uint32_t *rs = &w->s[in->src[1].code];
    uint64_t base = (uint64_t)rs[0] | (uint64_t)(rs[1] & 0xffff) << 32;
    uint32_t stride = (rs[1] >> 16) & 0x3fff, num = rs[2], w3 = rs[3];
    if ((rs[1] >> 31) && (w3 >> 23 & 1) && c->scratch && base >= (uintptr_t)c->scratch &&
        base - (uintptr_t)c->scratch < c->scratch_wave_bytes * (size_t)c->nwaves)
        return mubuf_scratch(c, w, in, base, sval(w, &in->src[2]), exec);
    if (rs[1] >> 31)
        return emu_fault(c, w, "buffer resource with swizzle enabled is not supported");
    if (w3 >> 23 & 1)
        return emu_fault(c, w, "buffer resource with ADD_TID_ENABLE is not supported");
    if (((w3 >> 15) & 15) == 0)
        return emu_fault(c, w, "buffer resource with DATA_FORMAT 0 (invalid): the access may be dropped on hardware");
    uint32_t soff = sval(w, &in->src[2]);
    /* gfx9 checks the range in bytes (raw) unless IDXEN is set with a
       non-zero stride (structured, in records): the instruction's IDXEN
       bit, not the stride alone, decides (LLVM D44401) */
    bool structured = in->idxen && stride != 0;
    if (in->offen && !in->idxen) {
        if (op == OP_BUFFER_LOAD_DWORD || op == OP_BUFFER_STORE_DWORD)
            return mubuf_simple(c, w, in, base, num, soff, exec, 4);
        if (op == OP_BUFFER_LOAD_USHORT || op == OP_BUFFER_LOAD_SHORT_D16 || op == OP_BUFFER_LOAD_SHORT_D16_HI ||
            op == OP_BUFFER_STORE_SHORT || op == OP_BUFFER_STORE_SHORT_D16_HI)
            return mubuf_simple(c, w, in, base, num, soff, exec, 2);
    }
    buf_range b = {0};
    int size = access_bytes(op);
    int n = in->is_atomic ? 1 : (size == 4 ? in->dst.width : 1);
    bool cmpswap = op == OP_BUFFER_ATOMIC_CMPSWAP;
    const uint32_t *vidx = NULL, *voff = NULL;
    if (in->idxen)
        vidx = w->v[in->src[0].code - R_V0];
    if (in->offen)
        voff = w->v[in->src[0].code - R_V0 + (in->idxen ? 1 : 0)];
    bool ret = in->is_load || (in->is_atomic && (in->glc || in->sc0));
    LANES {
        if (!(exec >> l & 1))
            continue;
        uint32_t idx = vidx ? vidx[l] : 0;
        uint64_t off = (uint64_t)(voff ? voff[l] : 0) + (uint32_t)in->offset;
        uint32_t val[4] = {0};
        if (!in->is_load)
            for (int j = 0; j < (cmpswap ? 2 : n); j++)
                val[j] = store_value(op, vdst(w, in->dst.code, j)[l]);
        int in_count = 0;
        bool inr[4];
        for (int j = 0; j < n; j++) {
            uint64_t o = off + (uint64_t)(size * j);
            int in_range;
            if (!structured) {
                in_range = raw_in_range(c, w, l, o, size, num, soff);
                if (in_range < 0)
                    return -1;
            } else { /* soffset does not enter the check: no disputed corner */
                in_range = idx < num;
                if (o + (uint64_t)size > stride)
                    return emu_fault(c, w, "lane %d: offset 0x%llx beyond the record stride %u (disputed range check)", l,
                                     (unsigned long long)o, stride);
            }
            inr[j] = in_range;
            in_count += in_range;
        }
        if (in_count && in_count != n)
            return emu_fault(c, w, "lane %d: %d-dword access at offset 0x%llx is partly in range (disputed corner)", l, n,
                             (unsigned long long)off);
        for (int j = 0; j < n; j++) {
            if (!inr[j]) {
                val[j] = 0;
                continue;
            }
            uintptr_t a = (uintptr_t)(base + soff + (uint64_t)stride * idx + off + (uint64_t)(size * j));
            if (lane_access(c, w, in, &b, l, a, size, j, val))
                return -1;
        }
        if (ret) {
            int nr = in->is_atomic ? 1 : n;
            for (int j = 0; j < nr; j++) {
                uint32_t *d = vdst(w, in->dst.code, j);
                d[l] = in->is_atomic ? (inr[0] ? val[0] : 0) : load_merge(op, d[l], val[j]);
            }
        }
    }
    if (ret)
        return emu_issue_vm(c, w, in, in->dst.code, in->is_atomic ? 1 : in->dst.width);
    return emu_issue_vm(c, w, in, R_NONE, 0);
}

/* ---- FLAT / GLOBAL ---- */

static int exec_flat(wg_ctx *c, wave *w, const emu_inst *in)
{
    isa_op op = (isa_op)in->op;
    uint64_t exec = exec_mask(w);
    int size = access_bytes(op);
    bool store = !in->is_load;
    int n = in->is_atomic ? 1 : size == 4 ? (store ? in->src[1].width : in->dst.width) : 1;
    bool cmpswap = op == OP_GLOBAL_ATOMIC_CMPSWAP, x2 = is_x2_atomic(in);
    bool ret = in->is_load || (in->is_atomic && in->dst.code != R_NONE);
    int nret = in->is_atomic ? (x2 ? 2 : 1) : n;
    uint64_t sbase = in->src[2].code != R_NONE ? sval64(w, &in->src[2]) : 0;
    buf_range b = {.any = in->src[2].code == R_NONE};
    LANES {
        if (!(exec >> l & 1))
            continue;
        uint64_t a;
        if (in->src[2].code != R_NONE)
            a = sbase + w->v[in->src[0].code - R_V0][l];
        else
            a = (uint64_t)w->v[in->src[0].code - R_V0][l] | (uint64_t)w->v[in->src[0].code - R_V0 + 1][l] << 32;
        a += (uint64_t)(int64_t)in->offset;
        uint32_t val[4] = {0};
        if (store)
            for (int j = 0; j < (cmpswap || x2 ? 2 : n); j++)
                val[j] = store_value(op, vdst(w, in->src[1].code, j)[l]);
        for (int j = 0; j < n; j++)
            if (lane_access(c, w, in, &b, l, (uintptr_t)(a + (uint64_t)(size * j)), size, j, val))
                return -1;
        if (ret)
            for (int j = 0; j < nret; j++) {
                uint32_t *d = vdst(w, in->dst.code, j);
                d[l] = load_merge(op, d[l], val[j]);
            }
    }
    if (ret)
        return emu_issue_vm(c, w, in, in->dst.code, in->is_atomic ? nret : in->dst.width);
    return emu_issue_vm(c, w, in, R_NONE, 0);
}

int emu_exec_mem(wg_ctx *c, wave *w, const emu_inst *in)
{
    switch (in->fmt) {
    case F_DS: return exec_ds(c, w, in);
    case F_MUBUF: return exec_mubuf(c, w, in);
    case F_FLAT: case F_GLOBAL: return exec_flat(c, w, in);
    case F_SCRATCH: return exec_scratch(c, w, in);
    default: return emu_fault(c, w, "instruction format not implemented by the emulator");
    }
}
