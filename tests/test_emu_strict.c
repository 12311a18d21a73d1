/* Negative tests: kernels that would pass on the emulator by luck, or that
 * misbehave on hardware, must be reported. Every report is checked to name
 * the target, the kernel, the workgroup, the wave, the PC and the
 * instruction text. The faulting instruction of each snippet carries the
 * label `fault_here`; its address and text come from llvm-objdump (symbol
 * table and disassembly of the assembled code object), not from the
 * emulator. Each case has a corrected twin that must run clean, so a case
 * cannot pass because the snippet fails for another reason.
 *
 * (MFMA and VALU hazard shortfalls are tested with the hazard rules.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

static const char *const archs[] = {TC_ARCH_LIST};

typedef struct {
    const char *body;
    unsigned groups, threads;
    int lds, vgprs, agprs;
    size_t nout, nin; /* dwords of the registered buffers */
    bool adjacent;    /* in starts where out ends (one allocation, two registered buffers) */
    bool other;       /* the report also names the instruction labelled other_here (pc and text) */
} scase;

/* Run a case (TC_PRELUDE + body: p0 = out, p1 = in); returns the emulator's
 * return code, report in err. */
static int run_case(const char *arch, const scase *c, void **image_out, size_t *size_out, char *err, size_t errlen)
{
    size_t size = 0;
    tc_sbuf src = {0};
    tc_put(&src, "%s%s", TC_PRELUDE, c->body);
    tc_snippet s = {.arch = arch, .body = src.s, .vgprs = c->vgprs ? c->vgprs : 48, .agprs = c->agprs, .sgprs = 64,
                    .lds_bytes = c->lds, .nptrs = 2};
    void *image = tc_assemble(&s, &size, err, errlen);
    free(src.s);
    if (!image)
        fail_msg("%s: %s", arch, err);
    size_t nout = c->nout ? c->nout : 1, nin = c->nin ? c->nin : 1;
    uint32_t *out = calloc(nout + (c->adjacent ? nin : 0), 4), *in = c->adjacent ? out + nout : calloc(nin, 4);
    assert_true(out && in);
    void *ptrs[2] = {out, in};
    size_t sizes[2] = {4 * nout, 4 * nin};
    err[0] = 0;
    int rc = tc_launch_image(&s, image, size, c->groups ? c->groups : 1, c->threads ? c->threads : 64, ptrs, sizes,
                             NULL, err, errlen);
    free(out);
    if (!c->adjacent)
        free(in);
    if (image_out) {
        *image_out = image;
        *size_out = size;
    } else
        free(image);
    return rc;
}

/* The case must fault in workgroup wg, wave `wave`, at fault_here, with a
 * one-line report that contains `phrase`. */
static void expect_fault(const char *arch, const scase *c, unsigned wg, int wave, const char *phrase)
{
    char err[2048];
    void *image = NULL;
    size_t size = 0;
    int rc = run_case(arch, c, &image, &size, err, sizeof err);
    if (rc == 0)
        fail_msg("%s: expected a report containing \"%s\", the run was clean", arch, phrase);
    uint64_t pc = 0;
    char text[256], want[320];
    tc_locate_label(image, size, arch, "fault_here", &pc, text, sizeof text);
    char other[320] = "";
    if (c->other) {
        uint64_t opc = 0;
        char otext[256];
        tc_locate_label(image, size, arch, "other_here", &opc, otext, sizeof otext);
        snprintf(other, sizeof other, "pc 0x%llx `%s`", (unsigned long long)opc, otext);
    }
    free(image);
    bool ok = strncmp(err, arch, strlen(arch)) == 0 && !strchr(err, '\n');
    ok = ok && strstr(err, "kernel snippet");
    snprintf(want, sizeof want, "workgroup (%u,0,0)", wg);
    ok = ok && strstr(err, want);
    snprintf(want, sizeof want, "wave %d ", wave);
    ok = ok && strstr(err, want);
    snprintf(want, sizeof want, "pc 0x%llx ", (unsigned long long)pc);
    ok = ok && strstr(err, want);
    snprintf(want, sizeof want, "`%s`", text);
    ok = ok && strstr(err, want);
    ok = ok && strstr(err, phrase);
    ok = ok && (!c->other || strstr(strstr(err, "`: ") ? strstr(err, "`: ") : err, other));
    if (!ok)
        fail_msg("%s: report\n  %s\nshould name %s, kernel snippet, workgroup (%u,0,0), wave %d, pc 0x%llx, `%s` and "
                 "say \"%s\"%s%s",
                 arch, err, arch, wg, wave, (unsigned long long)pc, text, phrase, c->other ? " and name " : "", other);
}

static void expect_clean(const char *arch, const scase *c)
{
    char err[2048];
    if (run_case(arch, c, NULL, NULL, err, sizeof err))
        fail_msg("%s: the corrected twin should run clean: %s", arch, err);
}

/* ---- missing s_waitcnt ---- */

static void missing_vmcnt(void **state)
{
    (void)state;
    scase bad = {.body = "    global_load_dword v2, v1, s[6:7]\n"
                         "fault_here:\n"
                         "    v_add_u32 v3, v2, v2\n"
                         "    global_store_dword v1, v3, s[4:5]\n",
                 .nout = 64, .nin = 64};
    scase good = bad;
    good.body = "    global_load_dword v2, v1, s[6:7]\n"
                "    s_waitcnt vmcnt(0)\n"
                "    v_add_u32 v3, v2, v2\n"
                "    global_store_dword v1, v3, s[4:5]\n";
    /* in order: vmcnt(1) retires the older of two loads only */
    scase order = bad;
    order.body = "    global_load_dword v2, v1, s[6:7]\n"
                 "    buffer_load_dword v3, off, s[8:11], 0\n"
                 "    s_waitcnt vmcnt(1)\n"
                 "    v_mov_b32 v4, v2\n"
                 "fault_here:\n"
                 "    v_mov_b32 v5, v3\n";
    scase order_good = order;
    order_good.body = "    global_load_dword v2, v1, s[6:7]\n"
                      "    buffer_load_dword v3, off, s[8:11], 0\n"
                      "    s_waitcnt vmcnt(1)\n"
                      "    v_mov_b32 v4, v2\n"
                      "    s_waitcnt vmcnt(0)\n"
                      "    v_mov_b32 v5, v3\n";
    /* overwriting a register a load has yet to fill */
    scase waw = bad;
    waw.body = "    global_load_dword v2, v1, s[6:7]\n"
               "fault_here:\n"
               "    v_mov_b32 v2, 0\n";
    /* a store's data register: a later overwrite is no error (the data was read at issue) */
    scase store_ok = bad;
    store_ok.body = "    v_mov_b32 v2, 1\n"
                    "    global_store_dword v1, v2, s[4:5]\n"
                    "    v_mov_b32 v3, 2\n";
    static const char desc[] = "    s_mov_b32 s8, s6\n    s_and_b32 s9, s7, 0xffff\n    s_movk_i32 s10, 0x100\n"
                               "    s_mov_b32 s11, 0x27000\n";
    char ob[1024], ogb[1024];
    snprintf(ob, sizeof ob, "%s%s", desc, order.body);
    snprintf(ogb, sizeof ogb, "%s%s", desc, order_good.body);
    order.body = ob;
    order_good.body = ogb;
    for (int a = 0; a < TC_NARCH(archs); a++) {
        expect_fault(archs[a], &bad, 0, 0, "missing s_waitcnt vmcnt");
        expect_clean(archs[a], &good);
        expect_fault(archs[a], &order, 0, 0, "reads v3 while `buffer_load_dword");
        expect_clean(archs[a], &order_good);
        expect_fault(archs[a], &waw, 0, 0, "overwrites v2");
        expect_clean(archs[a], &store_ok);
    }
}

static void missing_lgkmcnt_lds(void **state)
{
    (void)state;
    scase bad = {.body = "    ds_write_b32 v1, v0\n"
                         "    s_waitcnt lgkmcnt(0)\n"
                         "    ds_read_b32 v2, v1\n"
                         "    ds_read_b32 v3, v1\n"
                         "    s_waitcnt lgkmcnt(1)\n"
                         "    v_mov_b32 v4, v2\n"      /* the older read is retired */
                         "fault_here:\n"
                         "    v_mov_b32 v5, v3\n",
                 .lds = 256, .nout = 64, .nin = 64};
    scase good = bad;
    good.body = "    ds_write_b32 v1, v0\n"
                "    s_waitcnt lgkmcnt(0)\n"
                "    ds_read_b32 v2, v1\n"
                "    ds_read_b32 v3, v1\n"
                "    s_waitcnt lgkmcnt(0)\n"
                "    v_mov_b32 v4, v2\n"
                "    v_mov_b32 v5, v3\n";
    for (int a = 0; a < TC_NARCH(archs); a++) {
        expect_fault(archs[a], &bad, 0, 0, "missing s_waitcnt lgkmcnt");
        expect_clean(archs[a], &good);
    }
}

/* Scalar loads return out of order: with one outstanding, only lgkmcnt(0)
 * retires it; and an LDS read issued before a scalar load is not retired
 * by lgkmcnt(1) either. */
static void missing_lgkmcnt_smem(void **state)
{
    (void)state;
    scase plain = {.body = "    s_load_dword s10, s[6:7], 0x0\n"
                           "fault_here:\n"
                           "    s_add_u32 s11, s10, 1\n",
                   .nout = 64, .nin = 64};
    scase two = plain;
    two.body = "    s_load_dword s10, s[6:7], 0x0\n"
               "    s_load_dword s11, s[6:7], 0x4\n"
               "    s_waitcnt lgkmcnt(1)\n"
               "fault_here:\n"
               "    s_mov_b32 s12, s10\n";
    scase mixed = plain;
    mixed.lds = 256;
    mixed.body = "    ds_read_b32 v2, v1\n"
                 "    s_load_dword s10, s[6:7], 0x0\n"
                 "    s_waitcnt lgkmcnt(1)\n"
                 "fault_here:\n"
                 "    v_mov_b32 v3, v2\n";
    scase good = plain;
    good.lds = 256;
    good.body = "    ds_read_b32 v2, v1\n"
                "    s_load_dword s10, s[6:7], 0x0\n"
                "    s_load_dword s11, s[6:7], 0x4\n"
                "    s_waitcnt lgkmcnt(0)\n"
                "    v_mov_b32 v3, v2\n"
                "    s_add_u32 s12, s10, s11\n";
    for (int a = 0; a < TC_NARCH(archs); a++) {
        expect_fault(archs[a], &plain, 0, 0, "missing s_waitcnt lgkmcnt(0)");
        expect_fault(archs[a], &two, 0, 0, "reads s10 while `s_load_dword s10");
        expect_fault(archs[a], &mixed, 0, 0, "reads v2 while `ds_read_b32");
        expect_clean(archs[a], &good);
    }
}

/* ---- LDS ---- */

static void lds_out_of_range(void **state)
{
    (void)state;
    scase bad = {.body = "fault_here:\n"
                         "    ds_write_b32 v1, v0 offset:4\n", /* lane 63 writes bytes 256..259 */
                 .lds = 256, .nout = 64, .nin = 64};
    scase good = bad;
    good.body = "    ds_write_b32 v1, v0\n    s_waitcnt lgkmcnt(0)\n";
    scase read = bad;
    read.body = "    v_lshlrev_b32 v4, 3, v0\n"
                "fault_here:\n"
                "    ds_read_b64 v[2:3], v4 offset:8\n"; /* lane 31 reads bytes 256..263 */
    for (int a = 0; a < TC_NARCH(archs); a++) {
        expect_fault(archs[a], &bad, 0, 0, "LDS write of 4 bytes at 0x100 beyond the workgroup's 256 bytes");
        expect_clean(archs[a], &good);
        expect_fault(archs[a], &read, 0, 0, "LDS read of 8 bytes at 0x100 beyond the workgroup's 256 bytes");
    }
}

/* Two waves of one workgroup touch the same LDS dwords without s_barrier. */
static void lds_race_without_barrier(void **state)
{
    (void)state;
    /* every thread writes its own slot, then reads the slot of thread t ^ 64
       (the other wave); wave 0 runs first, so wave 1's write of a slot that
       wave 0 has read is the first conflict the emulator sees */
    scase bad = {.body = "    v_xor_b32 v2, 0x100, v1\n"
                         "fault_here:\n"
                         "    ds_write_b32 v1, v0\n"
                         "    ds_read_b32 v3, v2\n"
                         "    s_waitcnt lgkmcnt(0)\n",
                 .threads = 128, .lds = 512, .nout = 128, .nin = 64};
    scase good = bad;
    good.body = "    v_xor_b32 v2, 0x100, v1\n"
                "    ds_write_b32 v1, v0\n"
                "    s_waitcnt lgkmcnt(0)\n"
                "    s_barrier\n"
                "    ds_read_b32 v3, v2\n"
                "    s_waitcnt lgkmcnt(0)\n";
    /* an LDS atomic of one wave and a plain read of another */
    scase atomic = bad;
    atomic.body = "    v_mov_b32 v2, 0\n"
                  "    v_mov_b32 v4, 1\n"
                  "    v_cmp_gt_u32 vcc, 64, v0\n"
                  "    s_and_saveexec_b64 s[20:21], vcc\n"
                  "    ds_add_u32 v2, v4\n"                /* wave 0 */
                  "    s_xor_b64 exec, exec, s[20:21]\n"
                  "fault_here:\n"
                  "    ds_read_b32 v3, v2\n"               /* wave 1 */
                  "    s_mov_b64 exec, s[20:21]\n"
                  "    s_waitcnt lgkmcnt(0)\n";
    for (int a = 0; a < TC_NARCH(archs); a++) {
        expect_fault(archs[a], &bad, 0, 1, "LDS race: writes 0x100, which wave 0 read since the last s_barrier");
        expect_clean(archs[a], &good);
        expect_fault(archs[a], &atomic, 0, 1, "which wave 0 updated atomically since the last s_barrier");
    }
}

/* Precise LDS visibility (emu/lds.h): an access is ordered before another
 * wave's when it retired (s_waitcnt lgkmcnt) before an s_barrier both pass.
 * Each thread t owns the dword 4t; t ^ 64 is its partner in the other wave. */
static void lds_visibility(void **state)
{
    (void)state;
    /* the 32x32 NHWC kernels' pattern: a write still outstanding at one
       barrier, read only after a later barrier that waits first: no race */
    scase late = {.body = "    v_xor_b32 v2, 0x100, v1\n"
                          "    ds_write_b32 v1, v0\n"
                          "    s_barrier\n"
                          "    v_mov_b32 v5, 1\n"
                          "    s_waitcnt lgkmcnt(0)\n"
                          "    s_barrier\n"
                          "    ds_read_b32 v3, v2\n"
                          "    s_waitcnt lgkmcnt(0)\n",
                  .threads = 128, .lds = 512, .nout = 64, .nin = 64};
    /* racy: the partner's write was outstanding at the only barrier */
    scase raw = late;
    raw.other = true;
    raw.body = "    v_xor_b32 v2, 0x100, v1\n"
               "other_here:\n"
               "    ds_write_b32 v1, v0\n"
               "    s_barrier\n"
               "    s_waitcnt lgkmcnt(0)\n"
               "fault_here:\n"
               "    ds_read_b32 v3, v2\n"
               "    s_waitcnt lgkmcnt(0)\n";
    /* the same with the wait before the barrier: ordered */
    scase raw_ok = late;
    raw_ok.body = "    v_xor_b32 v2, 0x100, v1\n"
                  "    ds_write_b32 v1, v0\n"
                  "    s_waitcnt lgkmcnt(0)\n"
                  "    s_barrier\n"
                  "    ds_read_b32 v3, v2\n"
                  "    s_waitcnt lgkmcnt(0)\n";
    /* write after read: the partner's read of my dword was outstanding at the barrier */
    scase war = raw;
    war.body = "    v_xor_b32 v2, 0x100, v1\n"
               "other_here:\n"
               "    ds_read_b32 v3, v2\n"
               "    s_barrier\n"
               "fault_here:\n"
               "    ds_write_b32 v1, v0\n"
               "    s_waitcnt lgkmcnt(0)\n";
    scase war_ok = late;
    war_ok.body = "    v_xor_b32 v2, 0x100, v1\n"
                  "    ds_read_b32 v3, v2\n"
                  "    s_waitcnt lgkmcnt(0)\n"
                  "    s_barrier\n"
                  "    ds_write_b32 v1, v0\n"
                  "    s_waitcnt lgkmcnt(0)\n";
    /* raw after a read far from the partner's outstanding write: that read
       skips the race checks (emu/lds.h lds_quiet_at: no other wave wrote
       near it beyond its horizon), the next one must not */
    scase far_raw = raw;
    far_raw.lds = 1024;
    far_raw.body = "    v_xor_b32 v2, 0x100, v1\n"
                   "    v_add_u32 v4, 0x200, v1\n"
                   "other_here:\n"
                   "    ds_write_b32 v1, v0\n"
                   "    s_barrier\n"
                   "    s_waitcnt lgkmcnt(0)\n"
                   "    ds_read_b32 v5, v4\n"
                   "    s_waitcnt lgkmcnt(0)\n"
                   "fault_here:\n"
                   "    ds_read_b32 v3, v2\n"
                   "    s_waitcnt lgkmcnt(0)\n";
    /* the partner's outstanding writes in two pieces far apart (its own
       dwords at 0x000 and at 0x800 bytes): a read between them skips the
       checks, a read of the second piece races (lds.h keeps a wave's
       accesses as two intervals, lds_span; the second must be checked) */
    scase split_raw = raw;
    split_raw.lds = 4096;
    split_raw.body = "    v_xor_b32 v2, 0x100, v1\n"
                     "    v_add_u32 v6, 0x800, v1\n"
                     "    v_add_u32 v7, 0x800, v2\n"
                     "    v_add_u32 v4, 0x400, v1\n"
                     "    ds_write_b32 v1, v0\n"
                     "other_here:\n"
                     "    ds_write_b32 v6, v0\n"
                     "    s_barrier\n"
                     "    s_waitcnt lgkmcnt(0)\n"
                     "    ds_read_b32 v5, v4\n"
                     "    s_waitcnt lgkmcnt(0)\n"
                     "fault_here:\n"
                     "    ds_read_b32 v3, v7\n"
                     "    s_waitcnt lgkmcnt(0)\n";
    /* no barrier at all: wave 1 reads what wave 0 wrote (and retired) */
    scase nobar = raw;
    nobar.body = "    v_xor_b32 v2, 0x100, v1\n"
                 "fault_here:\n"
                 "    ds_write_b32 v1, v0\n"
                 "    s_waitcnt lgkmcnt(0)\n"
                 "other_here:\n"
                 "    ds_read_b32 v3, v2\n"
                 "    s_waitcnt lgkmcnt(0)\n";
    for (int a = 0; a < TC_NARCH(archs); a++) {
        expect_clean(archs[a], &late);
        expect_fault(archs[a], &raw, 0, 0, "LDS race: reads 0x100, which wave 1 wrote at ");
        expect_fault(archs[a], &raw, 0, 0, "before the last s_barrier without retiring it first");
        expect_clean(archs[a], &raw_ok);
        expect_fault(archs[a], &far_raw, 0, 0, "LDS race: reads 0x100, which wave 1 wrote at ");
        expect_fault(archs[a], &split_raw, 0, 0, "LDS race: reads 0x900, which wave 1 wrote at ");
        expect_fault(archs[a], &war, 0, 0, "LDS race: writes 0x0, which wave 1 read at ");
        expect_clean(archs[a], &war_ok);
        expect_fault(archs[a], &nobar, 0, 1, "LDS race: writes 0x100, which wave 0 read since the last s_barrier");
    }
}

/* ---- unknown encodings ---- */

static void unknown_instruction(void **state)
{
    (void)state;
    /* 0xbfff0000: SOPP opcode 0x7f, 0xfc000000: an unused top-level encoding */
    scase sopp = {.body = "    v_mov_b32 v2, 0\n"
                          "fault_here:\n"
                          "    .long 0xbfff0000\n",
                  .nout = 64, .nin = 64};
    scase top = sopp;
    top.body = "    s_cmp_eq_u32 s2, 1\n"
               "    s_cbranch_scc0 .Lskip\n"
               "fault_here:\n"
               "    .long 0xfc000000\n"
               ".Lskip:\n";
    top.groups = 2;
    /* an unknown word that is never executed is no error */
    scase skipped = sopp;
    skipped.body = "    s_branch .Lover\n"
                   "    .long 0xbfff0000\n"
                   ".Lover:\n";
    /* global_load_dword v2, v[0:1], off with the FLAT LDS bit (13) set */
    scase flat_lds = sopp;
    flat_lds.body = "    v_mov_b32 v2, 0\n"
                    "fault_here:\n"
                    "    .long 0xdc50a000, 0x027f0000\n";
    for (int a = 0; a < TC_NARCH(archs); a++) {
        /* llvm-objdump reads this word as "... off lds"; the report shows the raw word */
        char err[2048];
        if (!run_case(archs[a], &flat_lds, NULL, NULL, err, sizeof err))
            fail_msg("%s: a FLAT load with the LDS bit ran clean", archs[a]);
        if (!strstr(err, "`.long 0xdc50a000`: unknown instruction: FLAT/GLOBAL with LDS is not supported"))
            fail_msg("%s: unexpected report: %s", archs[a], err);
        expect_fault(archs[a], &sopp, 0, 0, "unknown instruction");
        expect_fault(archs[a], &top, 1, 0, "unknown instruction");
        expect_clean(archs[a], &skipped);
    }
}

/* ---- buffer range-check corners ---- */

#define DESC_IN                                                                                                        \
    "    s_mov_b32 s8, s6\n"                                                                                           \
    "    s_and_b32 s9, s7, 0xffff\n"                                                                                   \
    "    s_mov_b32 s11, 0x27000\n"

static void buffer_disputed_corners(void **state)
{
    (void)state;
    /* soffset 4 with lane 63 at offset 252 of 256: in range without the
       soffset, out with it; readings of the rule differ */
    scase soff = {.body = DESC_IN "    s_movk_i32 s10, 0x100\n"
                                  "    s_movk_i32 s20, 0x4\n"
                                  "fault_here:\n"
                                  "    buffer_load_dword v2, v1, s[8:11], s20 offen\n"
                                  "    s_waitcnt vmcnt(0)\n",
                  .nout = 64, .nin = 128};
    scase soff_ok = soff;
    soff_ok.body = DESC_IN "    s_movk_i32 s10, 0x100\n"
                           "    s_movk_i32 s20, 0x4\n"
                           "    s_mov_b32 exec_hi, 0\n"
                           "    buffer_load_dword v2, v1, s[8:11], s20 offen\n"
                           "    s_waitcnt vmcnt(0)\n";
    /* x4 at 16 * lane with NUM_RECORDS 24: lane 1 has two dwords in range and two out */
    scase x4 = soff;
    x4.body = DESC_IN "    s_movk_i32 s10, 0x18\n"
                      "    v_lshlrev_b32 v8, 4, v0\n"
                      "fault_here:\n"
                      "    buffer_load_dwordx4 v[4:7], v8, s[8:11], 0 offen\n"
                      "    s_waitcnt vmcnt(0)\n";
    scase x4_ok = x4;
    x4_ok.body = DESC_IN "    s_movk_i32 s10, 0x20\n"     /* 32: lanes 0, 1 in, the rest out entirely */
                         "    v_lshlrev_b32 v8, 4, v0\n"
                         "    buffer_load_dwordx4 v[4:7], v8, s[8:11], 0 offen\n"
                         "    s_waitcnt vmcnt(0)\n";
    /* a dword straddling NUM_RECORDS (254) */
    scase straddle = soff;
    straddle.body = DESC_IN "    s_movk_i32 s10, 0xfe\n"
                            "fault_here:\n"
                            "    buffer_store_dword v0, v1, s[8:11], 0 offen\n";
    /* the soffset case in workgroup 1, wave 1 only */
    scase where = soff;
    where.groups = 2;
    where.threads = 128;
    where.body = DESC_IN "    s_movk_i32 s10, 0x100\n"
                         "    s_movk_i32 s20, 0x4\n"
                         "    v_subrev_u32 v3, 64, v0\n"          /* wave 1: lanes 0..63 again */
                         "    v_lshlrev_b32 v3, 2, v3\n"
                         "    s_cmp_eq_u32 s2, 1\n"
                         "    s_cselect_b32 s21, 0, 0x100\n"       /* workgroup 0: offset out of range entirely */
                         "    v_add_u32 v3, s21, v3\n"
                         "    v_cmp_le_u32 vcc, 64, v0\n"
                         "    s_and_saveexec_b64 s[22:23], vcc\n"
                         "fault_here:\n"
                         "    buffer_load_dword v2, v3, s[8:11], s20 offen\n"
                         "    s_waitcnt vmcnt(0)\n";
    for (int a = 0; a < TC_NARCH(archs); a++) {
        expect_fault(archs[a], &soff, 0, 0, "depends on whether soffset 0x4 is range-checked");
        expect_clean(archs[a], &soff_ok);
        expect_fault(archs[a], &x4, 0, 0, "lane 1: 4-dword access at offset 0x10 is partly in range");
        expect_clean(archs[a], &x4_ok);
        expect_fault(archs[a], &straddle, 0, 0, "straddles NUM_RECORDS 0xfe");
        expect_fault(archs[a], &where, 1, 1, "depends on whether soffset 0x4 is range-checked");
    }
}

/* ---- memory outside every registered buffer ---- */

static void access_outside_registered_memory(void **state)
{
    (void)state;
    /* the input buffer holds 1 dword: lanes 1.. read past it */
    scase global = {.body = "fault_here:\n"
                            "    global_load_dword v2, v1, s[6:7]\n"
                            "    s_waitcnt vmcnt(0)\n",
                    .nout = 64, .nin = 1};
    scase global_ok = global;
    global_ok.nin = 64;
    /* a buffer resource larger than the registered memory */
    scase buffer = global;
    /* 1 MiB past the input: far from every buffer this test registers */
    buffer.body = DESC_IN "    s_mov_b32 s10, 0x200000\n"
                          "    v_add_u32 v3, 0x100000, v1\n"
                          "fault_here:\n"
                          "    buffer_store_dword v0, v3, s[8:11], 0 offen\n";
    scase scalar = global;
    scalar.body = "fault_here:\n"
                  "    s_load_dword s10, s[6:7], 0xffffc\n"
                  "    s_waitcnt lgkmcnt(0)\n";
    /* an address within the access size of 2^64 must not wrap into a region */
    scase wrap = global;
    wrap.body = "    v_mov_b32 v4, 0xfffffffc\n"
                "    v_mov_b32 v5, -1\n"
                "fault_here:\n"
                "    global_load_dword v2, v[4:5], off\n"
                "    s_waitcnt vmcnt(0)\n";
    for (int a = 0; a < TC_NARCH(archs); a++) {
        expect_fault(archs[a], &global, 0, 0, "lane 1 reads");
        expect_fault(archs[a], &global, 0, 0, "(4 bytes), 4 bytes past the end of buffer p1 (");
        expect_fault(archs[a], &wrap, 0, 0, "(4 bytes) outside every registered buffer");
        expect_clean(archs[a], &global_ok);
        expect_fault(archs[a], &buffer, 0, 0, "writes");
        expect_fault(archs[a], &scalar, 0, 0, "scalar load from");
    }
}

/* ---- per-buffer bounds ---- */

/* out (p0, 64 dwords) and in (p1) are one allocation: an access that runs
 * past p0 lands in p1, registered memory, and must still be refused. */
static void buffer_bounds_per_buffer(void **state)
{
    (void)state;
    /* MUBUF with the range check off (NUM_RECORDS 0xffffffff, as MIOpen sets it) */
    static const char desc_out[] = "    s_mov_b32 s8, s4\n    s_and_b32 s9, s5, 0xffff\n    s_mov_b32 s10, -1\n"
                                   "    s_mov_b32 s11, 0x27000\n";
    char mubuf_body[512], mubuf_ok_body[512];
    snprintf(mubuf_body, sizeof mubuf_body,
             "%s    v_add_u32 v3, 0x80, v1\n" /* lanes 32.. run past p0 into p1 */
             "fault_here:\n"
             "    buffer_load_dword v2, v3, s[8:11], 0 offen\n"
             "    s_waitcnt vmcnt(0)\n",
             desc_out);
    snprintf(mubuf_ok_body, sizeof mubuf_ok_body,
             "%s    buffer_load_dword v2, v1, s[8:11], 0 offen\n"
             "    s_waitcnt vmcnt(0)\n",
             desc_out);
    scase mubuf = {.body = mubuf_body, .nout = 64, .nin = 64, .adjacent = true};
    scase mubuf_ok = mubuf;
    mubuf_ok.body = mubuf_ok_body;
    /* GLOBAL with an SGPR base in p0 */
    scase global = mubuf;
    global.body = "    v_add_u32 v3, 0x80, v1\n"
                  "fault_here:\n"
                  "    global_store_dword v3, v0, s[4:5]\n";
    scase global_ok = mubuf;
    global_ok.body = "    global_store_dword v1, v0, s[4:5]\n";
    /* a 64-bit VGPR address names no buffer: p0 + 256 is p1, registered */
    scase vaddr_ok = mubuf;
    vaddr_ok.body = "    v_add_co_u32 v4, vcc, s4, v1\n"
                    "    v_mov_b32 v5, s5\n"
                    "    s_nop 1\n" /* gfx942: valu-sgpr-valu on vcc */
                    "    v_addc_co_u32 v5, vcc, v5, 0, vcc\n"
                    "    global_load_dword v2, v[4:5], off offset:256\n"
                    "    s_waitcnt vmcnt(0)\n";
    /* every lane active and inside p0, but not dword-aligned: through the
       lane offsets (lane l at 2l), or through soffset with aligned offsets */
    char misaligned_body[512], misaligned_soff_body[512];
    snprintf(misaligned_body, sizeof misaligned_body,
             "%s    v_lshrrev_b32 v3, 1, v1\n"
             "fault_here:\n"
             "    buffer_load_dword v2, v3, s[8:11], 0 offen\n"
             "    s_waitcnt vmcnt(0)\n",
             desc_out);
    snprintf(misaligned_soff_body, sizeof misaligned_soff_body,
             "%s    v_lshrrev_b32 v3, 1, v1\n"
             "    v_and_b32 v3, -4, v3\n"
             "fault_here:\n"
             "    buffer_store_dword v0, v3, s[8:11], 2 offen\n",
             desc_out);
    scase misaligned = mubuf, misaligned_soff = mubuf;
    misaligned.body = misaligned_body;
    misaligned_soff.body = misaligned_soff_body;
    /* the same overrun with separate allocations is still past p0's end */
    scase apart = mubuf;
    apart.adjacent = false;
    for (int a = 0; a < TC_NARCH(archs); a++) {
        expect_fault(archs[a], &mubuf, 0, 0, "lane 32 reads");
        expect_fault(archs[a], &mubuf, 0, 0, "4 bytes past the end of buffer p0 (");
        expect_fault(archs[a], &mubuf, 0, 0, ", 256 bytes) that the instruction's first access lies in");
        expect_clean(archs[a], &mubuf_ok);
        expect_fault(archs[a], &global, 0, 0, "lane 32 writes");
        expect_fault(archs[a], &global, 0, 0, "4 bytes past the end of buffer p0 (");
        expect_clean(archs[a], &global_ok);
        expect_clean(archs[a], &vaddr_ok);
        expect_fault(archs[a], &apart, 0, 0, "past the end of buffer p0");
        expect_fault(archs[a], &misaligned, 0, 0, "lane 1 accesses");
        expect_fault(archs[a], &misaligned, 0, 0, "not 4-byte aligned");
        expect_fault(archs[a], &misaligned_soff, 0, 0, "lane 0 accesses");
        expect_fault(archs[a], &misaligned_soff, 0, 0, "not 4-byte aligned");
    }
}

/* The buffer and LDS checks again through the baseline x86-64 lane loops
 * (emu_host_simd: the lane spans without AVX2). */
static void baseline_host_paths(void **state)
{
    emu_host_simd(false);
    buffer_bounds_per_buffer(state);
    lds_visibility(state);
}

/* ---- registers beyond the descriptor's allocation ---- */

static void registers_beyond_allocation(void **state)
{
    (void)state;
    scase bad = {.body = "fault_here:\n"
                         "    v_mov_b32 v40, v0\n",
                 .vgprs = 32, .nout = 64, .nin = 64};
    scase good = bad;
    good.body = "    v_mov_b32 v31, v0\n";
    scase read = bad;
    read.body = "    v_mov_b32 v2, 0\n"
                "fault_here:\n"
                "    v_add_u32 v3, v2, v33\n";
    /* the snippet asks for 64 SGPRs; with VCC, FLAT_SCRATCH and XNACK_MASK
     * that is 70, five blocks of 16: 80 */
    scase sgpr = bad;
    sgpr.body = "fault_here:\n"
                "    s_mov_b32 s100, 0\n";
    /* AGPRs: gfx908 allocates as many as VGPRs (32); gfx90a/gfx942 split one
     * file at accum_offset, and this descriptor gives AGPRs none of it */
    scase agpr = bad;
    agpr.body = "fault_here:\n"
                "    v_accvgpr_write_b32 a40, 0\n";
    scase agpr_unified = bad;
    agpr_unified.body = "fault_here:\n"
                        "    v_accvgpr_write_b32 a0, 0\n";
    /* v_lshlrev_b64 v[255:256], 1, v[4:5] (vdst 255: no assembler writes
       it): a tuple past v255, which would alias a0 on a unified file */
    scase past = bad;
    past.body = "fault_here:\n"
                "    .long 0xd28f00ff, 0x00020881\n";
    /* the unified file: 32 VGPRs + 8 AGPRs = 40 registers; any VGPR below 40
       is valid (the NHWC kernels keep MFMA results at and above accum_offset),
       AGPR a7 is physical v39, a8 lies beyond the allocation */
    scase unified_v = bad;
    unified_v.agprs = 8;
    unified_v.body = "    v_mov_b32 v39, v0\n"
                     "    v_accvgpr_write_b32 a7, v0\n";
    scase unified_vbad = unified_v;
    unified_vbad.body = "fault_here:\n"
                        "    v_mov_b32 v40, v0\n";
    scase unified_abad = unified_v;
    unified_abad.body = "fault_here:\n"
                        "    v_accvgpr_write_b32 a8, v0\n";
    for (int a = 0; a < TC_NARCH(archs); a++) { /* the report names the instruction as disassembled */
        char err[2048];
        void *image = NULL;
        size_t size = 0;
        int rc = run_case(archs[a], &past, &image, &size, err, sizeof err);
        free(image);
        if (rc == 0 || !strstr(err, "`v_lshlrev_b64 v[255:256], 1, v[4:5]`: a register tuple from v255 runs past the "
                                    "last register of its file"))
            fail_msg("%s: %s", archs[a], rc ? err : "the run was clean");
    }
    for (int a = 2; a < TC_NARCH(archs); a++) {
        expect_clean(archs[a], &unified_v);
        expect_fault(archs[a], &unified_vbad, 0, 0, "v40 beyond the 40 VGPRs the descriptor allocates (the unified file's total)");
        expect_fault(archs[a], &unified_abad, 0, 0,
                     "a8 beyond the 8 AGPRs the descriptor allocates (physical register 40 of a unified file of 40, "
                     "AGPRs from accum_offset 32)");
    }
    /* gfx908 keeps two files: v39 lies beyond its 32 VGPRs */
    expect_fault("gfx908", &(scase){.body = "fault_here:\n    v_mov_b32 v39, v0\n", .vgprs = 32, .nout = 64, .nin = 64},
                 0, 0, "v39 beyond the 32 VGPRs the descriptor allocates");
    expect_fault("gfx908", &agpr, 0, 0, "a40 beyond the 32 AGPRs the descriptor allocates");
    expect_fault("gfx90a", &agpr_unified, 0, 0, "a0 beyond the 0 AGPRs the descriptor allocates");
    expect_fault("gfx942", &agpr_unified, 0, 0, "a0 beyond the 0 AGPRs the descriptor allocates");
    for (int a = 0; a < TC_NARCH(archs); a++) {
        expect_fault(archs[a], &sgpr, 0, 0, "s100 beyond the 80 SGPRs the descriptor allocates");
        expect_fault(archs[a], &bad, 0, 0, "v40 beyond the 32 VGPRs the descriptor allocates");
        expect_clean(archs[a], &good);
        expect_fault(archs[a], &read, 0, 0, "v33 beyond the 32 VGPRs");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(missing_vmcnt),
        cmocka_unit_test(missing_lgkmcnt_lds),
        cmocka_unit_test(missing_lgkmcnt_smem),
        cmocka_unit_test(lds_out_of_range),
        cmocka_unit_test(lds_race_without_barrier),
        cmocka_unit_test(lds_visibility),
        cmocka_unit_test(buffer_bounds_per_buffer),
        cmocka_unit_test_teardown(baseline_host_paths, tc_host_simd_on),
        cmocka_unit_test(unknown_instruction),
        cmocka_unit_test(buffer_disputed_corners),
        cmocka_unit_test(access_outside_registered_memory),
        cmocka_unit_test(registers_beyond_allocation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
