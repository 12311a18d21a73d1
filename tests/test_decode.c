/* Decoder cross-check against llvm-objdump.
 *
 * 1. Every instruction of every code object the project generates
 *    (BUILD_DIR/co/<arch>.hsaco) is disassembled by llvm-objdump at test
 *    time; the emulator loads the same code object and its text of each
 *    instruction (emu_kernel_disasm) must equal llvm's, whitespace-
 *    normalized and with the trailing comment stripped, at the same
 *    address, within each kernel's code range (its function symbol).
 * 2. An ISA corpus per target, assembled at test time: the examples of
 *    tools/isa/ops.list plus the lines below, which exercise operand forms
 *    and modifiers. Each instruction's bytes (as llvm-objdump prints them)
 *    are decoded with emu_decode; size and text must match.
 *
 * A mismatch prints the address, llvm's text and ours. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../emu/isa.h"
#include "common.h"

#define OBJDUMP LLVM_BIN "/llvm-objdump"
#define MAX_REPORT 40

/* ---- helpers ---- */

/* Output of a shell command (malloc'd, NUL-terminated), NULL on failure. */
static char *capture(const char *cmd)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
        len += n;
        if (cap - len < 4096) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    int rc = pclose(p);
    if (!buf)
        return NULL;
    buf[len] = 0;
    if (rc != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* One instruction line of llvm-objdump -d output. */
typedef struct {
    uint64_t addr;
    char text[256];
    uint32_t words[3];
    int nwords;
} dline;

/* Parse "\t<text> // <ADDR>: <W0> [<W1> ...] [<sym+off>]". Returns false for
 * other lines (headers, blank lines). */
static bool parse_dline(const char *line, dline *d)
{
    if (line[0] != '\t')
        return false;
    const char *cm = strstr(line, "//");
    if (!cm)
        return false;
    size_t tl = (size_t)(cm - line);
    if (tl >= sizeof d->text)
        tl = sizeof d->text - 1;
    memcpy(d->text, line, tl);
    d->text[tl] = 0;
    tc_normalize(d->text);
    const char *p = cm + 2;
    char *end;
    d->addr = strtoull(p, &end, 16);
    if (end == p || *end != ':')
        return false;
    p = end + 1;
    d->nwords = 0;
    for (;;) {
        while (*p == ' ')
            p++;
        if (!isxdigit((unsigned char)*p))
            break;
        unsigned long w = strtoul(p, &end, 16);
        if (end - p != 8 || d->nwords == 3)
            break;
        d->words[d->nwords++] = (uint32_t)w;
        p = end;
    }
    return d->nwords > 0;
}

/* All instruction lines of a disassembly; *n set. */
static dline *parse_objdump(char *out, int *n)
{
    int cap = 256;
    dline *v = malloc(sizeof *v * (size_t)cap);
    *n = 0;
    for (char *line = strtok(out, "\n"); line && v; line = strtok(NULL, "\n")) {
        dline d;
        if (!parse_dline(line, &d))
            continue;
        if (*n == cap) {
            cap *= 2;
            dline *nv = realloc(v, sizeof *v * (size_t)cap);
            if (!nv) {
                free(v);
                return NULL;
            }
            v = nv;
        }
        v[(*n)++] = d;
    }
    return v;
}

static const char *const archs[] = {TC_ARCH_LIST};

/* ---- 1. the project's code objects ---- */

typedef struct {
    uint64_t addr, size;
    bool func; /* a function symbol (a kernel), else a label */
    char name[160];
} fsym;

/* Symbols in .text of a code object from llvm-objdump -t (malloc'd, *n
 * set): the kernels, and the labels llvm-objdump may print as branch
 * targets. */
static fsym *text_symbols(const char *path, int *n)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "%s -t %s", OBJDUMP, path);
    char *t = capture(cmd);
    if (!t)
        fail_msg("%s failed", cmd);
    int cap = 0;
    fsym *out = NULL;
    *n = 0;
    for (char *line = strtok(t, "\n"); line; line = strtok(NULL, "\n")) {
        /* "0000000000001e00 g     F .text	000000000000027c .protected name" */
        char *p = strstr(line, " .text");
        if (!p)
            continue;
        p += 6;
        fsym f = {.func = strstr(line, " F .text") != NULL};
        f.addr = strtoull(line, NULL, 16);
        f.size = strtoull(p, &p, 16);
        char *nm = strrchr(p, ' ');
        if (!nm)
            continue;
        snprintf(f.name, sizeof f.name, "%s", nm + 1);
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            out = realloc(out, sizeof *out * (size_t)cap);
            assert_non_null(out);
        }
        out[(*n)++] = f;
    }
    free(t);
    return out;
}

/* llvm-objdump prints a branch whose target has a symbol with the symbol's
 * name instead of the word offset. Equal when ours (the offset) reaches
 * the address of llvm's symbol. */
static bool same_branch(const char *llvm, const char *ours, uint64_t pc, const fsym *syms, int nsyms)
{
    const char *ls = strchr(llvm, ' '), *os = strchr(ours, ' ');
    if (!ls || !os || (size_t)(ls - llvm) != (size_t)(os - ours) || strncmp(llvm, ours, (size_t)(ls - llvm)) ||
        (strncmp(llvm, "s_branch", 8) && strncmp(llvm, "s_cbranch_", 10)))
        return false;
    char *end;
    long off = strtol(os + 1, &end, 10);
    if (*end || off < 0 || off > 65535)
        return false;
    uint64_t dest = pc + 4 + (uint64_t)(int64_t)(int16_t)(uint16_t)off * 4;
    for (int i = 0; i < nsyms; i++)
        if (!strcmp(syms[i].name, ls + 1))
            return syms[i].addr == dest;
    return false;
}

static void check_code_object(const char *arch, int *kernels_checked, int *insts_checked, int *mismatches)
{
    char path[300], cmd[700];
    tc_codeobj_path(arch, path, sizeof path);
    tc_loaded co = tc_load_codeobj(arch);
    snprintf(cmd, sizeof cmd, "%s -d --mcpu=%s %s", OBJDUMP, arch, path);
    char *dis = capture(cmd);
    assert_non_null(dis);
    int nl = 0;
    dline *lines = parse_objdump(dis, &nl);
    assert_non_null(lines);
    assert_true(nl > 0);
    int nsyms = 0, ns = 0;
    fsym *syms = text_symbols(path, &nsyms);
    for (int s = 0; s < nsyms; s++)
        ns += syms[s].func;
    assert_true(ns > 0);

    assert_int_equal(emu_module_kernel_count(co.m), ns);
    for (int s = 0; s < nsyms; s++) {
        if (!syms[s].func)
            continue;
        const emu_kernel *k = emu_find_kernel(co.m, syms[s].name);
        if (!k)
            fail_msg("%s: kernel %s not found by the emulator", arch, syms[s].name);
        char *ours = emu_kernel_disasm(k);
        assert_non_null(ours);
        /* our lines: "%012llx: text" */
        int nours = 0, oi = 0;
        for (char *p = ours; *p; p++)
            nours += *p == '\n';
        char **otext = calloc((size_t)nours + 1, sizeof *otext);
        uint64_t *oaddr = calloc((size_t)nours + 1, sizeof *oaddr);
        assert_true(otext && oaddr);
        for (char *line = strtok(ours, "\n"); line; line = strtok(NULL, "\n")) {
            char *colon = strchr(line, ':');
            assert_non_null(colon);
            oaddr[oi] = strtoull(line, NULL, 16);
            otext[oi] = colon + 1;
            tc_normalize(otext[oi]);
            oi++;
        }
        int in_range = 0;
        for (int i = 0; i < nl; i++) {
            const dline *l = &lines[i];
            if (l->addr < syms[s].addr || l->addr >= syms[s].addr + syms[s].size)
                continue;
            const char *t = NULL;
            for (int j = 0; j < oi; j++)
                if (oaddr[j] == l->addr)
                    t = otext[j];
            if (!t || (strcmp(t, l->text) && !same_branch(l->text, t, l->addr, syms, nsyms))) {
                if (++*mismatches <= MAX_REPORT)
                    print_message("%s %s 0x%llx:\n  llvm: %s\n  ours: %s\n", arch, syms[s].name,
                                  (unsigned long long)l->addr, l->text, t ? t : "(no instruction at this address)");
            }
            in_range++;
            (*insts_checked)++;
        }
        if (in_range != oi) {
            ++*mismatches;
            print_message("%s %s: llvm-objdump shows %d instructions in the kernel, the emulator decoded %d\n", arch,
                          syms[s].name, in_range, oi);
        }
        (*kernels_checked)++;
        free(otext);
        free(oaddr);
        free(ours);
    }
    tc_unload(&co);
    free(syms);
    free(lines);
    free(dis);
}

static void code_objects_match_objdump(void **state)
{
    (void)state;
    int kernels = 0, insts = 0, bad = 0;
    for (int a = 0; a < TC_NARCH(archs); a++)
        check_code_object(archs[a], &kernels, &insts, &bad);
    print_message("code objects: %d kernels, %d instructions compared, %d mismatches\n", kernels, insts, bad);
    assert_true(kernels >= 8);
    assert_true(insts > 100);
    assert_int_equal(bad, 0);
}

/* ---- 2. the ISA corpus ---- */

/* Extra lines: "instruction [@target,target...]" (default: all targets).
 * They exercise the operand forms and modifiers that ops.list's one example
 * per operation does not. */
static const char *const corpus[] = {
    /* literals and inline constants */
    "s_mov_b32 s0, 0x12345678",
    "s_mov_b32 s0, -1",
    "s_mov_b32 s0, 64",
    "s_mov_b32 s0, -16",
    "s_mov_b32 s0, 1.0",
    "s_mov_b32 s0, 0.5",
    "s_mov_b32 s0, -4.0",
    "s_add_u32 s0, s1, 0xabcd1234",
    "s_and_b32 s53, s7, 0xffff",
    "s_mov_b64 s[0:1], -1",
    "s_mov_b64 s[0:1], 0",
    "s_mov_b64 exec, vcc",
    "s_mov_b64 vcc, exec",
    "s_mov_b32 m0, s1",
    "s_mov_b32 s0, exec_lo",
    "s_mov_b32 s0, vcc_hi",
    "s_and_b64 exec, exec, s[4:5]",
    "s_mov_b32 s0, src_scc",
    "s_mov_b32 s0, src_vccz",
    "s_mov_b32 s0, src_execz",
    "v_add_f32 v0, 1.0, v1",
    "v_add_f32 v0, -2.0, v1",
    "v_add_f32 v0, 0.5, v1",
    "v_add_f32 v0, 4.0, v1",
    "v_add_f32 v0, 0.15915494, v1",
    "v_add_f32 v0, 0x40490fdb, v1",
    "v_add_f32 v0, s5, v1",
    "v_add_f32 v0, 7, v1",
    "v_add_f32 v0, -7, v1",
    "v_mov_b32 v0, 0x3f800001",
    "v_mov_b32 v0, 1.0",
    "v_mov_b32 v0, -1",
    "v_mov_b32 v0, s7",
    "v_mov_b32 v0, m0",
    "v_mov_b32 v0, vcc_lo",
    "v_mov_b32 v0, exec_hi",
    "v_add_f16 v0, 1.0, v1",
    "v_add_f16 v0, 0x3c01, v1",
    "v_add_f16 v0, -0.5, v1",
    "v_add_u32 v0, 0x1000, v1",
    "v_add_u32 v0, 64, v1",
    "v_lshlrev_b32 v0, 2, v1",
    "v_cvt_f32_f16 v0, 1.0",
    "v_cvt_f16_f32 v0, 1.0",
    "v_cvt_f64_f32 v[0:1], 2.0",
    "v_cvt_f32_f64 v0, 0x40100000",
    "v_cvt_f32_f64 v0, 0x40100001",
    "s_mov_b64 s[0:1], 0x12345678",
    "s_mov_b64 s[0:1], 0xffffffff",
    "v_cmp_eq_u32_e64 exec, v1, v2",
    "v_add_u32 v0, vcc_lo, v1",
    "v_readfirstlane_b32 vcc_lo, v1",
    "v_add_f32_dpp v0, v1, v2 row_shr:2 row_mask:0x3 bank_mask:0x1 bound_ctrl:0",
    "v_add_f64 v[0:1], 1.0, v[2:3]",
    "v_add_f64 v[0:1], s[4:5], v[2:3]",
    "v_fma_f32 v0, v1, 2.0, 0.5",
    "v_fma_f32 v0, v1, s2, s2",
    "v_mul_lo_u32 v0, v1, 64",
    "v_writelane_b32 v0, m0, 2",
    "v_mad_u32_u24 v0, v1, 3, v2",
    "v_bfe_u32 v0, v1, 8, 4",
    "v_cndmask_b32 v0, 0, 1.0, vcc",
    "v_madmk_f32 v0, v1, 0x3f000000, v2 @gfx906,gfx908",
    "v_madak_f32 v0, v1, v2, 0x3f000000 @gfx906,gfx908",
    /* literals whose value an inline constant could hold (only expressions
       or raw words produce them): llvm prints them as that constant */
    ".long 0x801eff1e, 0x00000018",
    ".long 0x020002ff, 0x3f800000",
    ".long 0x020002ff, 0xffffffff",
    ".long 0x020002ff, 0x3e22f983",
    ".long 0x020002ff, 0x00000040",
    ".long 0x020002ff, 0x00000041",
    ".long 0x020002ff, 0xfffffff0",
    ".long 0x020002ff, 0xffffffef",
    ".long 0x680002ff, 0x3f800000",
    ".long 0xbe8001ff, 0xffffffff",
    ".long 0xbe8001ff, 0x00000005",
    ".long 0xbe8001ff, 0x3ff00000",
    ".long 0x7e0016ff, 0x00003c00",
    ".long 0x7e0016ff, 0x0000bc00",
    ".long 0x7e0016ff, 0x00003118",
    ".long 0x7e0016ff, 0x0000fff0",
    ".long 0x7e0016ff, 0x00001234",
    ".long 0x7e001eff, 0x3ff00000",
    ".long 0x7e001eff, 0xc0100000",
    ".long 0x7e001eff, 0x00000001",
    ".long 0x7e001eff, 0x00000000",
    ".long 0x3e0002ff, 0x00003c00",
    ".long 0x3e0002ff, 0x3f800000",
    "s_add_u32 s30, s30, .Lcorpus_b-.Lcorpus_a",
    "s_mov_b32 s0, .Lcorpus_b-.Lcorpus_a+0x1000",
    /* VOP3 modifiers and _e64 forms */
    "v_add_f32_e64 v0, -v1, |v2|",
    "v_add_f32_e64 v0, -|v1|, v2 clamp",
    "v_add_f32_e64 v0, v1, v2 mul:2",
    "v_add_f32_e64 v0, v1, v2 mul:4",
    "v_add_f32_e64 v0, v1, v2 div:2",
    "v_add_f32_e64 v0, v1, v2 clamp div:2",
    "v_add_f32_e64 v0, s1, 1.0",
    "v_add_f32_e64 v0, 1.0, -v2",
    "v_mul_f32_e64 v0, -s1, |v2|",
    "v_fma_f32 v0, -v1, v2, |v3|",
    "v_fma_f32 v0, v1, -v2, -v3 clamp",
    "v_max_f32_e64 v0, |v1|, |v1|",
    "v_mov_b32_e64 v0, v1",
    "v_mov_b32_e64 v0, s1",
    "v_cvt_f32_i32_e64 v0, v1 mul:2",
    "v_cvt_f32_u32_e64 v0, s3",
    "v_rcp_f32_e64 v0, -v1",
    "v_sqrt_f32_e64 v0, |v1| clamp",
    "v_and_b32_e64 v0, v1, v2",
    "v_add_u32_e64 v0, v1, v2",
    "v_add_u32_e64 v0, v1, s2",
    "v_add_u32_e64 v0, v1, v2 clamp",
    "v_sub_u32_e64 v0, s1, v2",
    "v_lshlrev_b32_e64 v0, s1, v2",
    "v_fmac_f32_e64 v0, v1, v2",
    "v_fmac_f32_e64 v0, -v1, v2 clamp",
    "v_mac_f32_e64 v0, v1, v2 @gfx906,gfx908",
    "v_max_f16_e64 v0, v1, v2",
    "v_add_f16_e64 v0, -v1, |v2|",
    "v_fma_f16 v0, v1, v2, v3 op_sel:[1,0,0,0]",
    "v_fma_f16 v0, v1, v2, v3 op_sel:[0,1,1,1]",
    "v_mad_f16 v0, -v1, v2, v3",
    "v_cvt_f32_f16_e64 v0, |v1|",
    "v_pack_b32_f16 v0, v1, v2 op_sel:[1,0,0]",
    "v_pack_b32_f16 v0, v1, v2 op_sel:[0,1,0]",
    /* comparisons, VCC and SGPR-pair results */
    "v_cmp_gt_u32 vcc, s10, v1",
    "v_cmp_gt_u32_e64 s[4:5], v1, v2",
    "v_cmp_gt_u32_e64 s[4:5], s1, 5",
    "v_cmp_eq_u32_e64 vcc, v1, 0",
    "v_cmp_lt_f32_e64 s[6:7], -v1, |v2|",
    "v_cmp_lt_f32 vcc, 1.0, v2",
    "v_cmp_class_f32_e64 s[4:5], v1, 3",
    "v_cmpx_gt_u32 vcc, v1, v2",
    "v_cmpx_gt_u32_e64 s[4:5], v1, v2",
    "v_cmpx_ne_i32 vcc, 0, v2",
    "v_cmp_ne_u64 vcc, 0, v[2:3]",
    "v_cmp_ne_u64_e64 s[4:5], v[0:1], s[2:3]",
    "v_cmp_eq_f16 vcc, 1.0, v2",
    /* carry operations */
    "v_add_co_u32 v0, vcc, v1, v2",
    "v_add_co_u32 v0, vcc, s1, v2",
    "v_add_co_u32 v0, vcc, 0x1000, v2",
    "v_add_co_u32_e64 v0, s[4:5], v1, v2",
    "v_add_co_u32_e64 v0, s[4:5], s1, 7",
    "v_add_co_u32_e64 v0, vcc, v1, v2",
    "v_sub_co_u32_e64 v0, s[4:5], v1, v2",
    "v_subrev_co_u32_e64 v0, s[8:9], v1, v2",
    "v_addc_co_u32 v0, vcc, v1, v2, vcc",
    "v_addc_co_u32 v0, vcc, 0, v2, vcc",
    "v_addc_co_u32_e64 v0, s[4:5], v1, v2, s[6:7]",
    "v_addc_co_u32_e64 v0, s[4:5], v1, 0, s[6:7]",
    "v_subb_co_u32_e64 v0, s[4:5], v1, v2, s[6:7]",
    "v_subbrev_co_u32_e64 v0, vcc, v1, v2, s[6:7]",
    "v_cndmask_b32 v0, v1, v2, vcc",
    "v_cndmask_b32_e64 v0, v1, v2, s[4:5]",
    "v_cndmask_b32_e64 v0, 0, 1, s[4:5]",
    "v_cndmask_b32_e64 v0, -v1, |v2|, s[4:5]",
    "v_mad_u64_u32 v[0:1], s[4:5], v2, v3, v[4:5]",
    "v_mad_u64_u32 v[0:1], vcc, s2, v3, 0",
    "v_mad_i64_i32 v[0:1], s[4:5], v2, v3, v[4:5]",
    "v_div_fixup_f32 v0, v1, v2, v3",
    /* lane operations */
    "v_readlane_b32 s0, v1, 5",
    "v_readlane_b32 s0, v1, s3",
    "v_readlane_b32 s0, v1, m0",
    "v_writelane_b32 v0, s1, 63",
    "v_writelane_b32 v0, 7, s2",
    "v_readfirstlane_b32 s0, v1",
    "v_readfirstlane_b32 s7, v200",
    "v_mbcnt_lo_u32_b32 v0, -1, 0",
    "v_mbcnt_hi_u32_b32 v0, -1, v0",
    /* SDWA */
    "v_mov_b32_sdwa v0, v1 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_2",
    "v_mov_b32_sdwa v0, v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1",
    "v_mov_b32_sdwa v0, v1 dst_sel:BYTE_0 dst_unused:UNUSED_SEXT src0_sel:DWORD",
    "v_cvt_f32_f16_sdwa v0, v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1",
    "v_add_f32_sdwa v0, v1, v2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_0 src1_sel:WORD_1",
    "v_add_f32_sdwa v0, -v1, |v2| dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:DWORD",
    "v_add_f32_sdwa v0, v1, v2 clamp dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:DWORD",
    "v_add_u32_sdwa v0, v1, v2 dst_sel:WORD_0 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_1 src1_sel:BYTE_3",
    "v_add_u32_sdwa v0, sext(v1), v2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD",
    "v_add_u32_sdwa v0, v1, sext(v2) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:WORD_1",
    "v_add_u32_sdwa v0, v1, s2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:DWORD",
    "v_add_f32_sdwa v0, v1, v2 mul:2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:DWORD",
    "v_add_f32_sdwa v0, v1, v2 clamp div:2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:DWORD",
    "v_cvt_f32_f16_sdwa v0, -v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1",
    "v_mov_b32_sdwa v0, s1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1",
    "v_mov_b32_sdwa v0, 1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1",
    "v_cmp_eq_u32_sdwa vcc, sext(v1), v2 src0_sel:WORD_0 src1_sel:WORD_1",
    "v_cmp_eq_u32_sdwa vcc, v1, s2 src0_sel:WORD_0 src1_sel:WORD_1",
    "v_add_u32_sdwa v0, s1, v2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD",
    "v_and_b32_sdwa v0, v1, v2 dst_sel:BYTE_1 dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:WORD_0",
    "v_mul_f16_sdwa v0, v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1 src1_sel:WORD_1",
    "v_cmp_eq_u32_sdwa vcc, v1, v2 src0_sel:WORD_0 src1_sel:WORD_1",
    "v_cmp_eq_u32_sdwa s[4:5], v1, v2 src0_sel:BYTE_0 src1_sel:DWORD",
    "v_cmp_lt_f32_sdwa vcc, -v1, v2 src0_sel:DWORD src1_sel:DWORD",
    /* DPP */
    "v_mov_b32_dpp v0, v1 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf",
    "v_mov_b32_dpp v0, v1 quad_perm:[0,0,0,0] row_mask:0x5 bank_mask:0xa",
    "v_mov_b32_dpp v0, v1 row_shr:1 row_mask:0xf bank_mask:0xf",
    "v_mov_b32_dpp v0, v1 row_shr:15 row_mask:0xf bank_mask:0xf bound_ctrl:0",
    "v_mov_b32_dpp v0, v1 row_shl:3 row_mask:0xf bank_mask:0xf",
    "v_mov_b32_dpp v0, v1 row_ror:7 row_mask:0xf bank_mask:0xf",
    "v_mov_b32_dpp v0, v1 wave_shl:1 row_mask:0xf bank_mask:0xf @gfx906,gfx908,gfx90a,gfx942",
    "v_mov_b32_dpp v0, v1 wave_shr:1 row_mask:0xf bank_mask:0xf",
    "v_mov_b32_dpp v0, v1 wave_rol:1 row_mask:0xf bank_mask:0xf",
    "v_mov_b32_dpp v0, v1 wave_ror:1 row_mask:0xf bank_mask:0xf",
    "v_mov_b32_dpp v0, v1 row_mirror row_mask:0xf bank_mask:0xf",
    "v_mov_b32_dpp v0, v1 row_half_mirror row_mask:0xf bank_mask:0xf",
    "v_mov_b32_dpp v0, v1 row_bcast:15 row_mask:0xa bank_mask:0xf",
    "v_mov_b32_dpp v0, v1 row_bcast:31 row_mask:0xc bank_mask:0xf",
    "v_add_f32_dpp v0, v1, v2 row_shr:2 row_mask:0xf bank_mask:0xf",
    "v_add_f32_dpp v0, -v1, |v2| quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf",
    "v_add_u32_dpp v0, v1, v2 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:0",
    "v_fmac_f32_dpp v0, v1, v2 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
    /* packed math modifiers */
    "v_pk_fma_f16 v0, v1, v2, v3 op_sel:[1,0,0] op_sel_hi:[0,1,1]",
    "v_pk_fma_f16 v0, v1, v2, v3 neg_lo:[1,0,0] neg_hi:[0,1,0]",
    "v_pk_add_f16 v0, v1, v2 clamp",
    "v_pk_mul_f16 v0, v1, s2",
    "v_pk_add_f16 v0, v1, 1.0",
    "v_pk_add_u16 v0, v1, 5",
    "v_pk_mul_f16 v0, v1, v2 op_sel_hi:[0,0]",
    "v_fma_mix_f32 v0, v1, v2, v3 op_sel_hi:[1,1,0]",
    "v_fma_mix_f32 v0, v1, v2, v3 op_sel:[1,0,0] op_sel_hi:[1,1,1]",
    "v_fma_mixlo_f16 v0, v1, v2, v3 op_sel_hi:[1,1,1] clamp",
    "v_dot2_f32_f16 v0, v1, v2, v3 neg_lo:[1,1,0]",
    "v_fma_mix_f32 v0, -v1, |v2|, v3 op_sel_hi:[1,1,0]",
    "v_pk_add_f16 v0, v1, v2 op_sel:[1,1] op_sel_hi:[0,0]",
    "v_pk_fma_f32 v[0:1], v[2:3], v[4:5], v[6:7] op_sel:[1,0,0] op_sel_hi:[0,1,1] @gfx90a,gfx942",
    "v_pk_mul_f32 v[0:1], v[2:3], s[4:5] @gfx90a,gfx942",
    "v_pk_add_f32 v[0:1], v[2:3], v[4:5] neg_lo:[1,0] neg_hi:[0,1] @gfx90a,gfx942",
    "v_pk_mov_b32 v[0:1], v[2:3], v[4:5] op_sel:[1,0] @gfx90a,gfx942",
    /* SMEM */
    "s_load_dword s0, s[2:3], 0x40",
    "s_load_dword s0, s[2:3], s4",
    "s_load_dwordx2 s[0:1], s[2:3], 0xfffff",
    "s_load_dwordx4 s[8:11], s[0:1], 0x10 glc",
    "s_load_dwordx8 s[8:15], s[0:1], m0",
    "s_buffer_load_dword s0, s[4:7], 0x4",
    "s_buffer_load_dwordx4 s[8:11], s[4:7], s12",
    /* MUBUF */
    "buffer_load_dword v0, off, s[4:7], 0",
    "buffer_load_dword v0, off, s[4:7], s8 offset:16",
    "buffer_load_dword v0, v1, s[4:7], 0 offen offset:4095",
    "buffer_load_dword v0, v1, s[4:7], s9 idxen",
    "buffer_load_dword v0, v[2:3], s[4:7], 0 idxen offen",
    "buffer_load_dword v0, v[2:3], s[4:7], 0 idxen offen offset:12",
    "buffer_load_dword v0, v1, s[4:7], m0 offen",
    "buffer_load_dword v0, v1, s[4:7], 1 offen",
    "buffer_load_dword v0, v1, s[4:7], -1 offen",
    "buffer_load_dword v0, v1, s[4:7], 64 offen",
    "buffer_load_dword v0, v1, s[4:7], -16 offen",
    "buffer_load_dword v0, v1, s[96:99], s101 offen",
    "buffer_load_dwordx4 v[4:7], v1, s[8:11], 0 offen offset:64",
    "buffer_load_dwordx2 v[4:5], off, s[8:11], s2 offset:8",
    "buffer_load_dword v0, v1, s[4:7], 0 offen glc @gfx906,gfx908,gfx90a",
    "buffer_load_dword v0, v1, s[4:7], 0 offen slc @gfx906,gfx908,gfx90a",
    "buffer_load_dword v0, v1, s[4:7], 0 offen glc slc @gfx906,gfx908,gfx90a",
    "buffer_load_dword v0, v1, s[4:7], 0 offen scc @gfx90a",
    "buffer_load_dword v0, v1, s[4:7], 0 offen glc slc scc @gfx90a",
    "buffer_load_dword v0, v1, s[4:7], 0 offen sc0 @gfx942",
    "buffer_load_dword v0, v1, s[4:7], 0 offen sc1 @gfx942",
    "buffer_load_dword v0, v1, s[4:7], 0 offen nt @gfx942",
    "buffer_load_dword v0, v1, s[4:7], 0 offen sc0 sc1 nt @gfx942",
    "buffer_store_dword v0, v1, s[4:7], 0 offen offset:8 glc @gfx906,gfx908,gfx90a",
    "buffer_store_dwordx4 v[0:3], v4, s[4:7], s5 offen sc0 sc1 @gfx942",
    "buffer_store_dwordx2 v[2:3], off, s[4:7], 0 offset:4",
    "buffer_store_short v0, v1, s[4:7], 0 offen offset:2",
    "buffer_load_ushort v0, v1, s[4:7], 0 offen offset:2",
    "buffer_load_short_d16_hi v0, v1, s[4:7], 0 offen",
    "buffer_atomic_add v0, v1, s[4:7], 0 offen glc @gfx906,gfx908,gfx90a",
    "buffer_atomic_add v0, v1, s[4:7], 0 offen sc0 @gfx942",
    "buffer_atomic_cmpswap v[0:1], v2, s[4:7], 0 offen glc @gfx906,gfx908,gfx90a",
    "buffer_atomic_cmpswap v[0:1], v2, s[4:7], 0 offen sc0 @gfx942",
    "buffer_atomic_add_f32 v0, v1, s[4:7], 0 offen offset:4 @gfx908,gfx90a,gfx942",
    "buffer_atomic_pk_add_f16 v0, off, s[4:7], s2 @gfx908,gfx90a,gfx942",
    "buffer_atomic_add_f32 v0, v1, s[4:7], 0 offen glc @gfx90a",
    "buffer_load_dword a0, v1, s[4:7], 0 offen @gfx90a,gfx942",
    "buffer_load_dwordx4 a[4:7], v1, s[4:7], 0 offen offset:16 @gfx90a,gfx942",
    "buffer_store_dword a0, v1, s[4:7], 0 offen @gfx90a,gfx942",
    "buffer_store_dwordx2 a[2:3], off, s[4:7], s1 @gfx90a,gfx942",
    /* DS */
    "ds_read_b32 v0, v1 offset:64",
    "ds_read_b32 v0, v1 offset:65535",
    "ds_read_b64 v[0:1], v2 offset:8",
    "ds_read_b128 v[0:3], v4 offset:1024",
    "ds_read2_b32 v[0:1], v2 offset0:3 offset1:200",
    "ds_read2_b32 v[0:1], v2 offset1:1",
    "ds_read2_b64 v[0:3], v4 offset0:255 offset1:1",
    "ds_read2st64_b32 v[0:1], v2 offset1:3",
    "ds_write_b32 v0, v1 offset:128",
    "ds_write_b64 v0, v[2:3] offset:16",
    "ds_write_b128 v0, v[4:7] offset:512",
    "ds_write2_b32 v0, v1, v2 offset0:16 offset1:32",
    "ds_write2_b32 v0, v1, v2 offset0:1",
    "ds_write2_b64 v0, v[2:3], v[4:5] offset1:8",
    "ds_write2st64_b32 v0, v1, v2 offset0:1 offset1:2",
    "ds_add_u32 v0, v1 offset:4",
    "ds_add_f32 v0, v1 offset:4",
    "ds_read_u16 v0, v1 offset:6",
    "ds_read_u16_d16_hi v0, v1 offset:2",
    "ds_write_b16 v0, v1 offset:2",
    "ds_swizzle_b32 v0, v1 offset:swizzle(QUAD_PERM,1,0,3,2)",
    "ds_swizzle_b32 v0, v1 offset:swizzle(BITMASK_PERM,\"01pip\")",
    "ds_swizzle_b32 v0, v1 offset:swizzle(SWAP,16)",
    "ds_swizzle_b32 v0, v1 offset:swizzle(SWAP,1)",
    "ds_swizzle_b32 v0, v1 offset:swizzle(REVERSE,8)",
    "ds_swizzle_b32 v0, v1 offset:swizzle(BROADCAST,8,3)",
    "ds_swizzle_b32 v0, v1 offset:swizzle(BROADCAST,2,1)",
    "ds_swizzle_b32 v0, v1 offset:0x4000",
    "ds_swizzle_b32 v0, v1 offset:0x1f",
    "ds_swizzle_b32 v0, v1 offset:0x7c03",
    "ds_swizzle_b32 v0, v1 offset:0x9234",
    "ds_swizzle_b32 v0, v1",
    "ds_bpermute_b32 v0, v1, v2 offset:4",
    "ds_read_b32 a0, v1 offset:8 @gfx90a,gfx942",
    "ds_read_b128 a[0:3], v4 @gfx90a,gfx942",
    "ds_write_b32 v0, a1 offset:8 @gfx90a,gfx942",
    "ds_write_b64 v0, a[2:3] @gfx90a,gfx942",
    "ds_read2_b32 a[0:1], v2 offset0:1 offset1:2 @gfx90a,gfx942",
    "ds_write2_b32 v0, a1, a2 offset0:1 offset1:2 @gfx90a,gfx942",
    /* global / flat */
    "global_load_dword v0, v[2:3], off",
    "global_load_dword v0, v[2:3], off offset:-16",
    "global_load_dword v0, v[2:3], off offset:4095",
    "global_load_dword v0, v[2:3], off offset:-4096",
    "global_load_dword v0, v1, s[2:3]",
    "global_load_dword v0, v1, s[2:3] offset:-16",
    "global_load_dwordx4 v[0:3], v1, s[4:5] offset:32",
    "global_store_dword v[2:3], v0, off offset:8",
    "global_store_dword v1, v0, s[2:3] offset:-8",
    "global_store_dwordx2 v1, v[2:3], s[4:5]",
    "global_load_dword v0, v[2:3], off glc @gfx906,gfx908,gfx90a",
    "global_load_dword v0, v[2:3], off glc slc @gfx906,gfx908,gfx90a",
    "global_load_dword v0, v[2:3], off scc @gfx90a",
    "global_load_dword v0, v[2:3], off sc0 sc1 @gfx942",
    "global_load_dword v0, v[2:3], off nt @gfx942",
    "global_store_dword v[2:3], v0, off sc0 sc1 nt @gfx942",
    "global_atomic_add v0, v[2:3], v1, off glc @gfx906,gfx908,gfx90a",
    "global_atomic_add v0, v[2:3], v1, off sc0 @gfx942",
    "global_atomic_add v[2:3], v1, off offset:4",
    "global_atomic_cmpswap v0, v[2:3], v[4:5], off glc @gfx906,gfx908,gfx90a",
    "global_atomic_cmpswap v0, v[2:3], v[4:5], off sc0 @gfx942",
    "global_atomic_cmpswap v1, v[4:5], s[2:3]",
    "global_atomic_add_f32 v1, v2, s[4:5] offset:-4 @gfx908,gfx90a,gfx942",
    "global_atomic_pk_add_f16 v[2:3], v1, off @gfx908,gfx90a,gfx942",
    "global_atomic_add_f32 v0, v[2:3], v1, off glc @gfx90a",
    "global_load_dword a0, v[2:3], off @gfx90a,gfx942",
    "global_load_dwordx4 a[0:3], v1, s[2:3] offset:16 @gfx90a,gfx942",
    "global_store_dword v[2:3], a0, off @gfx90a,gfx942",
    "global_store_dwordx2 v1, a[2:3], s[2:3] @gfx90a,gfx942",
    "flat_load_dword v0, v[2:3] offset:16",
    "flat_load_dword v0, v[2:3] glc @gfx906,gfx908,gfx90a",
    "flat_store_dword v[2:3], v0 offset:4",
    "flat_load_dword a0, v[2:3] @gfx90a,gfx942",
    /* accumulation registers and MFMA forms */
    "v_accvgpr_read_b32 v0, a255 @gfx908,gfx90a,gfx942",
    "v_accvgpr_write_b32 a0, v255 @gfx908,gfx90a,gfx942",
    "v_accvgpr_write_b32 a3, 1.0 @gfx908,gfx90a,gfx942",
    "v_accvgpr_write_b32 a3, 0 @gfx908,gfx90a,gfx942",
    "v_accvgpr_write_b32 a3, -1 @gfx908,gfx90a,gfx942",
    "v_accvgpr_mov_b32 a1, a2 @gfx90a,gfx942",
    "v_mfma_f32_32x32x1f32 a[0:31], v1, v2, a[0:31] cbsz:1 abid:1 blgp:2 @gfx908,gfx90a",
    "v_mfma_f32_4x4x1f32 a[0:3], v1, v2, a[4:7] cbsz:4 abid:15 blgp:7 @gfx908,gfx90a",
    "v_mfma_f32_16x16x4f32 a[0:3], v1, v2, 0 @gfx90a",
    "v_mfma_f32_16x16x4f32 a[0:3], v1, v2, 1.0 @gfx90a",
    "v_mfma_f32_16x16x4f32 a[0:3], a1, a2, a[0:3] @gfx90a",
    "v_mfma_f32_16x16x4f32 v[0:3], v1, v2, v[0:3] @gfx90a",
    "v_mfma_f32_16x16x4f32 v[4:7], a1, v2, v[8:11] blgp:1 @gfx90a",
    "v_mfma_f32_32x32x8f16 v[0:15], v[16:17], v[18:19], v[0:15] @gfx90a",
    "v_mfma_f32_32x32x8bf16_1k v[0:15], v[16:17], v[18:19], 0 @gfx90a",
    "v_mfma_f32_32x32x2_f32 v[0:15], v16, v17, v[0:15] @gfx942",
    "v_mfma_f32_16x16x4_f32 a[0:3], a4, v5, a[0:3] cbsz:2 abid:3 @gfx942",
    "v_mfma_f32_32x32x1_2b_f32 a[0:31], v1, v2, a[0:31] cbsz:1 abid:1 blgp:3 @gfx942",
    "v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], 0 @gfx942",
    "v_mfma_f32_16x16x16_bf16 a[0:3], v[4:5], v[6:7], a[0:3] @gfx942",
    "v_mfma_f32_4x4x4_16b_f16 a[4:7], v[0:1], v[2:3], a[4:7] blgp:5 @gfx942",
    /* program control */
    "s_branch 1",
    "s_branch -3",
    "s_cbranch_scc0 5",
    "s_cbranch_scc1 -1",
    "s_cbranch_vccz 2",
    "s_cbranch_vccnz 0",
    "s_cbranch_execz 100",
    "s_cbranch_execnz -100",
    "s_waitcnt vmcnt(0)",
    "s_waitcnt lgkmcnt(0)",
    "s_waitcnt vmcnt(0) lgkmcnt(0)",
    "s_waitcnt vmcnt(63)",
    "s_waitcnt vmcnt(17) lgkmcnt(3)",
    "s_waitcnt expcnt(0)",
    "s_waitcnt 0",
    "s_nop 7",
    "s_nop 15",
    "s_setprio 3",
    "s_sleep 2",
    "s_barrier",
    "s_endpgm",
    "s_getpc_b64 s[4:5]",
    "s_setpc_b64 s[4:5]",
    "s_and_saveexec_b64 s[4:5], vcc",
    "s_or_saveexec_b64 s[4:5], s[6:7]",
    "s_andn2_saveexec_b64 s[4:5], -1",
    "s_cselect_b32 s0, s1, 0",
    "s_cselect_b64 s[0:1], -1, 0",
    "s_cmp_eq_u32 s0, 0x10000",
    "s_cmp_lt_i32 s0, -5",
    "s_cmpk_eq_u32 s0, 0xffff",
    "s_cmpk_lt_i32 s0, 0x8000",
    "s_movk_i32 s0, 0xfffe",
    "s_addk_i32 s0, 0x7fff",
    "s_bfe_u32 s0, s1, 0x80008",
    "s_lshl_b64 s[0:1], s[2:3], 2",
    "s_lshr_b64 s[0:1], exec, 32",
    "s_mul_hi_u32 s0, s1, 0x55555556",
    "s_lshl2_add_u32 s0, s1, s2",
    "s_bcnt1_i32_b64 s0, exec",
    "s_ff1_i32_b64 s0, vcc",
    NULL,
};

/* Cut "text @t1,t2" at the '@'; whether the line is for arch (a line
 * without a target list is for every target). */
static bool for_target(char *line, const char *arch)
{
    char *at = strchr(line, '@');
    if (!at)
        return true;
    *at = 0;
    return strstr(at + 1, arch) != NULL;
}

/* Examples of tools/isa/ops.list that this target accepts. */
static int ops_list_lines(const char *arch, char ***out)
{
    size_t n = 0;
    char *buf = read_file("tools/isa/ops.list", &n);
    if (!buf)
        return -1;
    int cap = 0, cnt = 0;
    char **v = NULL;
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        if (!*p)
            continue;
        while (*p && !isspace((unsigned char)*p)) /* the format word */
            p++;
        while (isspace((unsigned char)*p))
            p++;
        if (!for_target(p, arch))
            continue;
        if (cnt == cap) {
            cap = cap ? 2 * cap : 512;
            v = realloc(v, sizeof *v * (size_t)cap);
            assert_non_null(v);
        }
        v[cnt] = strdup(p);
        assert_non_null(v[cnt]);
        tc_normalize(v[cnt]);
        cnt++;
    }
    free(buf);
    *out = v;
    return cnt;
}

/* Assemble lines for arch (one instruction each) with llvm-mc, disassemble
 * with llvm-objdump, decode every instruction with emu_decode and compare. */
static void check_corpus(const char *arch, int *checked, int *bad)
{
    char **lines = NULL;
    int nops = ops_list_lines(arch, &lines);
    assert_true(nops > 100);
    char dir[] = "/tmp/igemm-decode-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char s[300], o[300], log[300], cmd[1200];
    snprintf(s, sizeof s, "%s/c.s", dir);
    snprintf(o, sizeof o, "%s/c.o", dir);
    snprintf(log, sizeof log, "%s/log", dir);
    /* ops.list examples without a target list are tried on every target
       (as gen_ops.py does): drop the ones this target's assembler rejects,
       and check the op table does not claim them for this target. */
    bool *rejected = calloc((size_t)nops + 1, sizeof *rejected);
    assert_non_null(rejected);
    FILE *f = fopen(s, "w");
    assert_non_null(f);
    for (int i = 0; i < nops; i++)
        fprintf(f, "%s\n", lines[i]);
    assert_int_equal(fclose(f), 0);
    snprintf(cmd, sizeof cmd, "%s/llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=%s -filetype=obj %s -o %s 2>&1", LLVM_BIN,
             arch, s, o);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char out[1024];
    while (fgets(out, sizeof out, p)) {
        char *e = strstr(out, "c.s:");
        int ln;
        if (e && strstr(out, "error") && sscanf(e + 4, "%d", &ln) == 1 && ln >= 1 && ln <= nops)
            rejected[ln - 1] = true;
    }
    pclose(p);
    unsigned tbit = target_by_name(arch)->bit;
    for (int i = 0; i < nops; i++) {
        if (!rejected[i])
            continue;
        char mn[64];
        sscanf(lines[i], "%63s", mn);
        for (int j = 0; j < isa_optable_len; j++)
            if (!strcmp(isa_optable[j].name, mn) && (isa_optable[j].targets & tbit)) {
                print_message("%s: llvm-mc rejects `%s`, but the op table lists it for this target\n", arch,
                              lines[i]);
                ++*bad;
            }
    }
    f = fopen(s, "w");
    assert_non_null(f);
    int expect = 0;
    fputs(".text\n", f);
    for (int i = 0; i < nops; i++)
        if (!rejected[i]) {
            fprintf(f, "%s\n", lines[i]);
            expect++;
        }
    free(rejected);
    for (int i = 0; corpus[i]; i++) {
        char line[300];
        snprintf(line, sizeof line, "%s", corpus[i]);
        if (!for_target(line, arch))
            continue;
        fprintf(f, "%s\n", line);
        expect++;
    }
    fputs(".Lcorpus_a:\n.long 0\n.Lcorpus_b:\n", f); /* labels for the expression literals */
    expect++;
    assert_int_equal(fclose(f), 0);
    snprintf(cmd, sizeof cmd, "%s/llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=%s -filetype=obj %s -o %s 2>%s", LLVM_BIN,
             arch, s, o, log);
    char msg[3200];
    if (tc_system(cmd, log, msg, sizeof msg))
        fail_msg("%s: the corpus does not assemble: %s", arch, msg);
    snprintf(cmd, sizeof cmd, "%s -d --mcpu=%s %s", OBJDUMP, arch, o);
    char *dis = capture(cmd);
    assert_non_null(dis);
    int nl = 0;
    dline *dl = parse_objdump(dis, &nl);
    assert_non_null(dl);
    if (nl != expect)
        fail_msg("%s: %d corpus lines, llvm-objdump shows %d instructions", arch, expect, nl);
    const emu_decoder *dec = emu_decoder_get(target_by_name(arch));
    assert_non_null(dec);
    for (int i = 0; i < nl; i++) {
        uint8_t bytes[12];
        for (int j = 0; j < dl[i].nwords; j++)
            for (int b = 0; b < 4; b++)
                bytes[4 * j + b] = (uint8_t)(dl[i].words[j] >> (8 * b));
        emu_inst in;
        char derr[200] = "", text[256] = "";
        int n = emu_decode(dec, bytes, (size_t)dl[i].nwords * 4, dl[i].addr, &in, derr, sizeof derr);
        if (n)
            emu_disasm(&in, text, sizeof text);
        tc_normalize(text);
        (*checked)++;
        if (n != 4 * dl[i].nwords || strcmp(text, dl[i].text)) {
            if (++*bad <= MAX_REPORT)
                print_message("%s corpus 0x%llx (line %d):\n  llvm: %s\n  ours: %s%s%s\n", arch,
                              (unsigned long long)dl[i].addr, i + 2, dl[i].text, n ? text : "(decode error) ",
                              n ? "" : derr,
                              n && n != 4 * dl[i].nwords ? "  [size differs]" : "");
        }
    }
    free(dl);
    free(dis);
    for (int i = 0; i < nops; i++)
        free(lines[i]);
    free(lines);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) {
        /* a leftover temporary directory is harmless */
    }
}

static void isa_corpus_matches_objdump(void **state)
{
    (void)state;
    int checked = 0, bad = 0;
    for (int a = 0; a < TC_NARCH(archs); a++)
        check_corpus(archs[a], &checked, &bad);
    print_message("ISA corpus: %d instructions compared over 4 targets, %d mismatches\n", checked, bad);
    assert_true(checked > 1500);
    assert_int_equal(bad, 0);
}

/* The comparison itself must be able to fail: a word the decoder does not
 * know is reported, not silently skipped. */
static void invalid_encoding_is_rejected(void **state)
{
    (void)state;
    for (int a = 0; a < TC_NARCH(archs); a++) {
        const emu_decoder *dec = emu_decoder_get(target_by_name(archs[a]));
        assert_non_null(dec);
        /* SOPP opcode 0x7f does not exist on gfx9 */
        const uint8_t bad_sopp[4] = {0x00, 0x00, 0xff, 0xbf};
        emu_inst in;
        char err[200] = "";
        assert_int_equal(emu_decode(dec, bad_sopp, 4, 0x100, &in, err, sizeof err), 0);
        assert_non_null(strstr(err, "0x100"));
        /* truncated two-dword instruction */
        const uint8_t vop3[4] = {0x00, 0x00, 0x01, 0xd1};
        assert_int_equal(emu_decode(dec, vop3, 4, 0, &in, err, sizeof err), 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(code_objects_match_objdump),
        cmocka_unit_test(isa_corpus_matches_objdump),
        cmocka_unit_test(invalid_encoding_is_rejected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
