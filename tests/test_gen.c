/* The generator's emitter itself (gen/emit*.c), in three parts:
 *
 *  - golden snippets per target (Mesa ACO style): a few emitted
 *    instructions compared with the text written here. Spellings are what
 *    llvm-mc accepts for the target; the wait states come from LLVM's
 *    GCNHazardRecognizer.cpp constants (the same sources tests/test_hazards.c
 *    lists), worked out by hand next to each case, not from the emitter;
 *  - negative tests: each breaks one rule (constant bus, VOP3 literal,
 *    register leak, misaligned SMEM, out-of-range sub-register, op not on
 *    the target, wrong format for the mnemonic, operand width, MFMA operand
 *    files, allocation scopes) and must stop the emitter with a message
 *    naming the target, the kernel and the op;
 *  - a differential test against the emulator's hazard checker: for every
 *    kernel of every target's code object (build/co/<t>.s, as the build
 *    generated it) the wait states the emitter inserted are enough (the
 *    kernel runs clean on the strict emulator) and no more than needed:
 *    each emitter-inserted s_nop, lowered by one wait state (s_nop N ->
 *    s_nop N-1, s_nop 0 removed), makes the emulator report a hazard, or
 *    is on no path the test's shapes take (an s_trap in its place is not
 *    reached). make test lowers one s_nop per kernel, in one set (a set is
 *    one assembly and one run of each kernel with a lowered s_nop, and one
 *    assembly with traps for those that ran clean): the first, the middle
 *    or the last one, by the kernel's index modulo 3, so that every
 *    position is tried across each family (an assembly of a target's file
 *    takes seconds: three sets a target were most of this suite's time);
 *    IGEMM_GEN_ALL_NOPS=1 (make check-hazards) lowers every one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../gen/emit.h"
#include "../conv/problem.h"
#include "../gen/emit_helpers.h"
#include "common.h"

/* ---- an emitter with one open kernel, and the text emitted since a mark ---- */

typedef struct {
    emit e;
    size_t mark;
} gen;

static void gen_open(gen *g, const char *arch)
{
    const target *t = target_by_name(arch);
    assert_non_null(t);
    emit_init(&g->e, t);
    emit_begin_file(&g->e);
    e_kernel_begin(&g->e, "k", 64);
    g->mark = g->e.len;
}

static void gen_mark(gen *g) { g->mark = g->e.len; }

/* The text since the mark, which must equal want; the emitter must not have failed. */
static void gen_expect(gen *g, const char *want)
{
    if (g->e.failed)
        fail_msg("%s: emitter failed: %s", g->e.t->name, g->e.err);
    char *got = strndup(g->e.buf + g->mark, g->e.len - g->mark);
    assert_non_null(got);
    if (strcmp(got, want)) {
        fprintf(stderr, "%s: emitted\n%s---- expected\n%s----\n", g->e.t->name, got, want);
        free(got);
        fail_msg("golden snippet differs on %s", g->e.t->name);
    }
    free(got);
    g->mark = g->e.len;
}

/* The emitter must have failed with a message containing every needle. */
static void gen_expect_error(gen *g, const char *n1, const char *n2)
{
    if (!g->e.failed)
        fail_msg("%s: the emitter accepted it (wanted an error with '%s')", g->e.t->name, n1);
    tc_expect_contains(g->e.err, n1);
    if (n2)
        tc_expect_contains(g->e.err, n2);
    /* target and kernel are named */
    tc_expect_contains(g->e.err, g->e.t->name);
    tc_expect_contains(g->e.err, " kernel k:");
}

static void gen_close(gen *g) { emit_free(&g->e); }

/* ---- golden snippets ---- */

static const char *const all_targets[] = {TC_ARCH_LIST};

/* VOP2 promoted to VOP3 when src1 is an SGPR; a compare writing VCC, then
 * v_cndmask reading it: gfx940+ needs VALUWriteSGPRVALUReadWaitstates = 2
 * (s_nop 1), earlier targets none. */
static void test_golden_valu(void **state)
{
    (void)state;
    for (int i = 0; i < TC_NARCH(all_targets); i++) {
        gen g;
        gen_open(&g, all_targets[i]);
        opnd a = vreg(&g.e, "v_a", 1, 1), b = vreg(&g.e, "v_b", 1, 1), s = sreg(&g.e, "s_x", 1, 1);
        gen_mark(&g);
        e_vop2(&g.e, "v_add_u32", a, s, b);
        e_vop2(&g.e, "v_add_u32", a, b, s);
        e_vopc(&g.e, "v_cmp_gt_u32", VCC, s, a);
        e_cndmask(&g.e, b, imm(0), a, VCC);
        const char *nop = i == 3 ? "    s_nop 1\n" : "";
        char want[512];
        snprintf(want, sizeof want,
                 "    v_add_u32 v[v_a], s[s_x], v[v_b]\n"
                 "    v_add_u32_e64 v[v_a], v[v_b], s[s_x]\n"
                 "    v_cmp_gt_u32 vcc, s[s_x], v[v_a]\n"
                 "%s"
                 "    v_cndmask_b32 v[v_b], 0, v[v_a], vcc\n",
                 nop);
        gen_expect(&g, want);
        rfree(&g.e, a), rfree(&g.e, b), rfree(&g.e, s);
        gen_close(&g);
    }
}

/* 16-bit memory operations: the same spelling on every target. */
static void test_golden_mem16(void **state)
{
    (void)state;
    for (int i = 0; i < TC_NARCH(all_targets); i++) {
        gen g;
        gen_open(&g, all_targets[i]);
        opnd v = vreg(&g.e, "v_d", 2, 2), off = vreg(&g.e, "v_off", 1, 1), r = sreg(&g.e, "s_rsrc", 4, 4),
             p = sreg(&g.e, "s_p", 2, 2);
        gen_mark(&g);
        e_mubuf(&g.e, "buffer_load_ushort", at(v, 0), off, r, imm(0), 2);
        e_mubuf(&g.e, "buffer_load_short_d16_hi", at(v, 0), off, r, imm(0), 0);
        e_mubuf(&g.e, "buffer_store_short_d16_hi", at(v, 1), off, r, imm(0), 6);
        e_ds(&g.e, "ds_read_u16_d16", at(v, 1), off, NOOP, NOOP, 4, 0);
        e_ds(&g.e, "ds_write_b16", NOOP, off, at(v, 1), NOOP, 0, 0);
        e_global(&g.e, "global_load_short_d16", at(v, 0), off, p, -2);
        e_global(&g.e, "global_store_short", at(v, 0), off, p, 0);
        gen_expect(&g, "    buffer_load_ushort v[v_d], v[v_off], s[s_rsrc:s_rsrc+3], 0 offen offset:2\n"
                       "    buffer_load_short_d16_hi v[v_d], v[v_off], s[s_rsrc:s_rsrc+3], 0 offen\n"
                       "    buffer_store_short_d16_hi v[v_d+1], v[v_off], s[s_rsrc:s_rsrc+3], 0 offen offset:6\n"
                       "    ds_read_u16_d16 v[v_d+1], v[v_off] offset:4\n"
                       "    ds_write_b16 v[v_off], v[v_d+1]\n"
                       "    global_load_short_d16 v[v_d], v[v_off], s[s_p:s_p+1] offset:-2\n"
                       "    global_store_short v[v_off], v[v_d], s[s_p:s_p+1]\n");
        rfree(&g.e, v), rfree(&g.e, off), rfree(&g.e, r), rfree(&g.e, p);
        gen_close(&g);
    }
}

/* VOP3P: defaults print nothing; with modifiers op_sel_hi is explicit;
 * packed fp32 (gfx90a+) takes 64-bit aligned register pairs. */
static void test_golden_vop3p(void **state)
{
    (void)state;
    for (int i = 0; i < TC_NARCH(all_targets); i++) {
        gen g;
        gen_open(&g, all_targets[i]);
        opnd v = vreg(&g.e, "v_x", 8, 2), s = sreg(&g.e, "s_y", 1, 1);
        gen_mark(&g);
        e_vop3p(&g.e, "v_pk_fma_f16", at(v, 0), at(v, 1), at(v, 2), at(v, 3), NULL);
        e_vop3p(&g.e, "v_pk_add_f16", at(v, 0), at(v, 1), s,  NOOP,
                &(vop3p_mods){.op_sel = 2, .op_sel_hi = 3, .neg_lo = 1, .clamp = true});
        e_vop3p(&g.e, "v_dot2_f32_f16", at(v, 4), at(v, 1), at(v, 2), at(v, 4), NULL);
        const char *pk32 = "";
        if (g.e.t->has_pk_fma_f32) {
            e_vop3p(&g.e, "v_pk_fma_f32", sub(v, 0, 2), sub(v, 2, 2), sub(v, 4, 2), sub(v, 6, 2), NULL);
            /* it reads v_x+4, which the v_dot just wrote: gfx90a+
               DotWriteDifferentVALURead = 3 wait states (s_nop 2) */
            pk32 = "    s_nop 2\n"
                   "    v_pk_fma_f32 v[v_x:v_x+1], v[v_x+2:v_x+3], v[v_x+4:v_x+5], v[v_x+6:v_x+7]\n";
        }
        char want[768];
        snprintf(want, sizeof want,
                 "    v_pk_fma_f16 v[v_x], v[v_x+1], v[v_x+2], v[v_x+3]\n"
                 "    v_pk_add_f16 v[v_x], v[v_x+1], s[s_y] op_sel:[0,1] op_sel_hi:[1,1] neg_lo:[1,0] clamp\n"
                 "    v_dot2_f32_f16 v[v_x+4], v[v_x+1], v[v_x+2], v[v_x+4]\n%s",
                 pk32);
        gen_expect(&g, want);
        rfree(&g.e, v), rfree(&g.e, s);
        gen_close(&g);
    }
}

/* MFMA and AGPR moves, with the wait states between them. The MFMA is the
 * table's 32x32x2 f32 (one block; 64 cycles, 16 passes on every CDNA):
 *  - v_accvgpr_write -> MFMA reads it as C: gfx908
 *    AccVGPRWriteMFMAReadSrcCWaitStates = 1 (s_nop 0); gfx90a+ v_accvgpr_write
 *    is a legacy VALU, LegacyVALUWritesVGPRWaitStates = 2 (s_nop 1);
 *  - MFMA writes -> v_accvgpr_read of its result: gfx908
 *    SMFMA32x32WriteVgprVALUMemExpReadWaitStates = 18 (16 passes + 2);
 *    gfx90a GFX90A_SMFMA32x32... = 19 (passes + 3); gfx942 (f32 is SMFMA,
 *    not XDL) GFX940_SMFMA_PassWriteVgprVALUMemExpReadWaitStates(16) = 18.
 *    e_nops splits 18 into s_nop 15 + s_nop 1, 19 into s_nop 15 + s_nop 2. */
static void test_golden_mfma(void **state)
{
    (void)state;
    static const char *const arch[] = {"gfx908", "gfx90a", "gfx942"};
    static const char *const name[] = {"v_mfma_f32_32x32x2f32", "v_mfma_f32_32x32x2f32", "v_mfma_f32_32x32x2_f32"};
    static const char *const c_wait[] = {"    s_nop 0\n", "    s_nop 1\n", "    s_nop 1\n"};
    static const char *const read_wait[] = {"    s_nop 15\n    s_nop 1\n", "    s_nop 15\n    s_nop 2\n",
                                            "    s_nop 15\n    s_nop 1\n"};
    for (int i = 0; i < 3; i++) {
        gen g;
        gen_open(&g, arch[i]);
        const mfma_info *m = mfma_pick(g.e.t, 32, 32, 2, 1, MFMA_F32);
        assert_non_null(m);
        assert_string_equal(mfma_name(m), name[i]);
        assert_int_equal(m->cd_gprs, 16);
        opnd acc = areg(&g.e, "a_c", 16, 16), va = vreg(&g.e, "v_a", 1, 1), vb = vreg(&g.e, "v_b", 1, 1);
        gen_mark(&g);
        e_accvgpr_write(&g.e, at(acc, 0), imm(0));
        e_mfma(&g.e, mfma_name(m), acc, va, vb, acc, 0, 0, 0);
        e_accvgpr_read(&g.e, va, at(acc, 3));
        char want[640];
        snprintf(want, sizeof want,
                 "    v_accvgpr_write_b32 a[a_c], 0\n"
                 "%s"
                 "    %s a[a_c:a_c+15], v[v_a], v[v_b], a[a_c:a_c+15]\n"
                 "%s"
                 "    v_accvgpr_read_b32 v[v_a], a[a_c+3]\n",
                 c_wait[i], name[i], read_wait[i]);
        gen_expect(&g, want);
        rfree(&g.e, acc), rfree(&g.e, va), rfree(&g.e, vb);
        gen_close(&g);
    }
}

/* gfx90a+: C/D in VGPRs (acc_cd = 0), cbsz/abid/blgp printed. */
static void test_golden_mfma_vgpr_cd(void **state)
{
    (void)state;
    gen g;
    gen_open(&g, "gfx90a");
    const mfma_info *m = mfma_pick(g.e.t, 32, 32, 1, 2, MFMA_F32);
    assert_non_null(m);
    opnd d = vreg(&g.e, "v_d", 32, 2), a = vreg(&g.e, "v_a", 1, 1), b = vreg(&g.e, "v_b", 1, 1);
    gen_mark(&g);
    e_mfma(&g.e, mfma_name(m), d, a, b, imm(0), 1, 1, 2);
    gen_expect(&g, "    v_mfma_f32_32x32x1f32 v[v_d:v_d+31], v[v_a], v[v_b], 0 cbsz:1 abid:1 blgp:2\n");
    rfree(&g.e, d), rfree(&g.e, a), rfree(&g.e, b);
    e_kernel_end(&g.e);
    assert_int_equal(emit_finish(&g.e), 0);
    gen_close(&g);
}

/* ---- negative tests ---- */

static void test_neg_constant_bus(void **state)
{
    (void)state;
    gen g;
    gen_open(&g, "gfx906");
    opnd v = vreg(&g.e, "v_a", 1, 1), s = sreg(&g.e, "s_x", 2, 1);
    e_vop3(&g.e, "v_mad_u32_u24", v, at(s, 0), at(s, 1), v);
    gen_expect_error(&g, "v_mad_u32_u24", "constant bus");
    gen_close(&g);
    gen_open(&g, "gfx942");
    v = vreg(&g.e, "v_a", 1, 1), s = sreg(&g.e, "s_x", 1, 1);
    e_vop2(&g.e, "v_add_u32", v, s, imm(1000));
    gen_expect_error(&g, "v_add_u32", "constant bus");
    gen_close(&g);
}

static void test_neg_vop3_literal(void **state)
{
    (void)state;
    gen g;
    gen_open(&g, "gfx908");
    opnd v = vreg(&g.e, "v_a", 1, 1);
    e_vop3(&g.e, "v_mul_lo_u32", v, v, imm(1000), NOOP);
    gen_expect_error(&g, "v_mul_lo_u32", "literal in a VOP3");
    gen_close(&g);
}

static void test_neg_leak(void **state)
{
    (void)state;
    gen g;
    gen_open(&g, "gfx90a");
    vreg(&g.e, "v_lost", 2, 1);
    e_kernel_end(&g.e);
    gen_expect_error(&g, "v_lost", "still allocated at kernel end");
    assert_int_equal(emit_finish(&g.e), -1);
    gen_close(&g);
}

static void test_neg_smem_misaligned(void **state)
{
    (void)state;
    gen g;
    gen_open(&g, "gfx906");
    opnd p = sreg_fixed(&g.e, "s_ka", 0, 2), d = sreg(&g.e, "s_d", 8, 4);
    e_smem(&g.e, "s_load_dwordx4", sub(d, 2, 4), p, 0);
    gen_expect_error(&g, "s_load_dwordx4", "misaligned");
    gen_close(&g);
    gen_open(&g, "gfx942");
    d = sreg(&g.e, "s_d", 8, 4);
    e_smem(&g.e, "s_load_dword", at(d, 0), sub(d, 1, 2), 0);
    gen_expect_error(&g, "s_load_dword", "aligned base");
    gen_close(&g);
}

static void test_neg_subreg_range(void **state)
{
    (void)state;
    gen g;
    gen_open(&g, "gfx908");
    opnd v = vreg(&g.e, "v_pair", 2, 2);
    e_vop1(&g.e, "v_mov_b32", at(v, 2), imm(0));
    gen_expect_error(&g, "v_mov_b32", "sub-register out of the range of v_pair");
    gen_close(&g);
}

static void test_neg_op_not_on_target(void **state)
{
    (void)state;
    gen g;
    gen_open(&g, "gfx906");
    opnd v = vreg(&g.e, "v_a", 1, 1);
    e_accvgpr_read(&g.e, v, (opnd){.kind = OPK_AGPR, .count = 1});
    gen_expect_error(&g, "v_accvgpr_read_b32: not an instruction of gfx906", "gfx908, gfx90a, gfx942");
    gen_close(&g);
    /* a CDNA3 spelling on CDNA1, a CDNA1/2 spelling on CDNA3 */
    gen_open(&g, "gfx908");
    opnd a = areg(&g.e, "a_c", 16, 16);
    v = vreg(&g.e, "v_a", 1, 1);
    e_mfma(&g.e, "v_mfma_f32_32x32x2_f32", a, v, v, a, 0, 0, 0);
    gen_expect_error(&g, "not an instruction of gfx908", "gfx942");
    gen_close(&g);
    gen_open(&g, "gfx942");
    v = vreg(&g.e, "v_a", 4, 2);
    e_vop3p(&g.e, "v_pk_fma_f32", sub(v, 0, 2), sub(v, 2, 2), sub(v, 0, 2), sub(v, 2, 2), NULL);
    assert_false(g.e.failed); /* packed fp32 exists on gfx90a+ */
    gen_close(&g);
    gen_open(&g, "gfx906");
    v = vreg(&g.e, "v_a", 4, 2);
    e_vop3p(&g.e, "v_pk_fma_f32", sub(v, 0, 2), sub(v, 2, 2), sub(v, 0, 2), sub(v, 2, 2), NULL);
    gen_expect_error(&g, "v_pk_fma_f32: not an instruction of gfx906", "gfx90a, gfx942");
    gen_close(&g);
}

static void test_neg_wrong_format(void **state)
{
    (void)state;
    gen g;
    gen_open(&g, "gfx906");
    opnd v = vreg(&g.e, "v_a", 1, 1);
    e_vop2(&g.e, "s_add_u32", v, v, v);
    gen_expect_error(&g, "s_add_u32: a SOP2 instruction, not VOP2", NULL);
    gen_close(&g);
    gen_open(&g, "gfx90a");
    v = vreg(&g.e, "v_a", 1, 1);
    e_vop3(&g.e, "v_add_u32", v, v, v, NOOP);
    gen_expect_error(&g, "v_add_u32: a VOP2 instruction, not VOP3", NULL);
    gen_close(&g);
    gen_open(&g, "gfx942");
    e_sopp(&g.e, "v_bogus_b32", 0);
    gen_expect_error(&g, "v_bogus_b32: not an instruction of the op table", NULL);
    gen_close(&g);
}

static void test_neg_widths(void **state)
{
    (void)state;
    gen g;
    gen_open(&g, "gfx906");
    opnd v = vreg(&g.e, "v_a", 2, 2);
    e_vop1(&g.e, "v_mov_b32", v, imm(0));
    gen_expect_error(&g, "v_mov_b32", "destination v[v_a:v_a+1] is 2 registers, the op takes 1");
    gen_close(&g);
    gen_open(&g, "gfx908");
    v = vreg(&g.e, "v_a", 4, 4);
    opnd off = vreg(&g.e, "v_o", 1, 1), r = sreg(&g.e, "s_r", 4, 4);
    e_mubuf(&g.e, "buffer_load_dwordx2", v, off, r, imm(0), 0);
    gen_expect_error(&g, "buffer_load_dwordx2", "the op takes 2");
    gen_close(&g);
}

static void test_neg_mfma_operands(void **state)
{
    (void)state;
    gen g;
    gen_open(&g, "gfx908"); /* C/D must be AGPRs on CDNA1 */
    opnd d = vreg(&g.e, "v_d", 16, 4), a = vreg(&g.e, "v_a", 1, 1);
    e_mfma(&g.e, "v_mfma_f32_32x32x2f32", d, a, a, d, 0, 0, 0);
    gen_expect_error(&g, "v_mfma_f32_32x32x2f32", "D must be AGPRs on this target");
    gen_close(&g);
    gen_open(&g, "gfx90a"); /* 32x32x2 is single-block: no cbsz */
    d = areg(&g.e, "a_d", 16, 16), a = vreg(&g.e, "v_a", 1, 1);
    e_mfma(&g.e, "v_mfma_f32_32x32x2f32", d, a, a, d, 1, 0, 0);
    gen_expect_error(&g, "v_mfma_f32_32x32x2f32", "has no cbsz/abid");
    gen_close(&g);
    gen_open(&g, "gfx942"); /* D is 4 registers for 16x16x16 */
    d = areg(&g.e, "a_d", 8, 8), a = vreg(&g.e, "v_a", 2, 2);
    e_mfma(&g.e, "v_mfma_f32_16x16x16_f16", d, a, a, d, 0, 0, 0);
    gen_expect_error(&g, "v_mfma_f32_16x16x16_f16", "the op takes 4");
    gen_close(&g);
}

static void test_scopes(void **state)
{
    (void)state;
    gen g;
    gen_open(&g, "gfx906");
    opnd keep = vreg(&g.e, "v_keep", 1, 1);
    e_scope_begin(&g.e, "stage");
    vreg(&g.e, "v_tmp", 4, 1);
    sreg(&g.e, "s_tmp", 2, 2);
    e_scope_end(&g.e, "stage", true); /* releases both */
    opnd again = vreg(&g.e, "v_tmp", 4, 1); /* the name is free again */
    rfree(&g.e, again);
    rfree(&g.e, keep);
    e_kernel_end(&g.e);
    assert_int_equal(emit_finish(&g.e), 0);
    gen_close(&g);

    gen_open(&g, "gfx906"); /* leak check at the end of a scope */
    e_scope_begin(&g.e, "epilogue");
    vreg(&g.e, "v_out", 1, 1);
    e_scope_end(&g.e, "epilogue", false);
    gen_expect_error(&g, "v_out", "of scope epilogue still allocated at its end");
    gen_close(&g);

    gen_open(&g, "gfx906");
    e_scope_begin(&g.e, "kloop");
    e_kernel_end(&g.e);
    gen_expect_error(&g, "scope kloop still open at kernel end", NULL);
    gen_close(&g);

    gen_open(&g, "gfx906");
    e_scope_begin(&g.e, "a");
    e_scope_begin(&g.e, "b");
    e_scope_end(&g.e, "a", true);
    gen_expect_error(&g, "scope a ended while b is the innermost", NULL);
    gen_close(&g);
}

/* ---- the differential test against the emulator ---- */

#define MAX_ASM_KERNELS 256

typedef struct {
    char name[128];
    int *nops; /* line indices of its s_nop lines */
    int n;
} kern_nops;

typedef struct {
    char **line;
    int nlines;
    kern_nops k[MAX_ASM_KERNELS];
    int nk;
} asm_file;

static void asm_read(asm_file *f, const char *path)
{
    memset(f, 0, sizeof *f);
    size_t len;
    char *text = read_file(path, &len);
    if (!text)
        fail_msg("cannot read %s (make all builds it)", path);
    int cap = 1024;
    f->line = malloc(sizeof *f->line * (size_t)cap);
    assert_non_null(f->line);
    kern_nops *cur = NULL;
    for (char *s = text, *nl; *s; s = nl + 1) {
        nl = strchr(s, '\n');
        if (!nl)
            nl = s + strlen(s) - 1;
        if (f->nlines == cap) {
            f->line = realloc(f->line, sizeof *f->line * (size_t)(cap *= 2));
            assert_non_null(f->line);
        }
        char *l = strndup(s, (size_t)(nl - s));
        assert_non_null(l);
        int i = f->nlines++;
        f->line[i] = l;
        char name[128];
        if (sscanf(l, ".type %127[^,],@function", name) == 1) {
            assert_true(f->nk < MAX_ASM_KERNELS);
            cur = &f->k[f->nk++];
            snprintf(cur->name, sizeof cur->name, "%s", name);
        } else if (!strncmp(l, ".Lfunc_end_", 11)) {
            cur = NULL;
        } else if (cur && !strncmp(l, "    s_nop ", 10)) {
            cur->nops = realloc(cur->nops, sizeof *cur->nops * (size_t)(cur->n + 1));
            assert_non_null(cur->nops);
            cur->nops[cur->n++] = i;
        }
        if (!nl[1])
            break;
    }
    free(text);
}

static void asm_free(asm_file *f)
{
    for (int i = 0; i < f->nlines; i++)
        free(f->line[i]);
    for (int i = 0; i < f->nk; i++)
        free(f->k[i].nops);
    free(f->line);
}

/* The file with the s_nop lines lower[0..n) one wait state shorter. */
/* The source with the s_nop at each line of lower[0..n) lowered by one wait
 * state, or, with trap set, replaced by s_trap 2 (is it executed at all?) */
static char *asm_lowered(const asm_file *f, const int *lower, int n, bool trap)
{
    tc_sbuf b = {0};
    for (int i = 0; i < f->nlines; i++) {
        int hit = 0;
        for (int j = 0; j < n; j++)
            hit |= lower[j] == i;
        int w;
        if (hit && sscanf(f->line[i], "    s_nop %d", &w) == 1) {
            if (trap)
                tc_put(&b, "    s_trap 2\n");
            else if (w > 0)
                tc_put(&b, "    s_nop %d\n", w - 1);
        } else {
            tc_put(&b, "%s\n", f->line[i]);
        }
    }
    return b.s;
}

static igemm_handle *handle_for(const char *arch, const char *dir);

/* A handle over source src assembled for arch into dir (co_path: the file) */
static igemm_handle *handle_for_source(const char *arch, char *src, const char *dir, char *co_path, size_t len)
{
    char err[4096];
    size_t size;
    void *co = tc_assemble_source(arch, src, &size, err, sizeof err);
    free(src);
    if (!co)
        fail_msg("%s: the lowered source does not assemble: %s", arch, err);
    snprintf(co_path, len, "%s/%s.hsaco", dir, arch);
    FILE *o = fopen(co_path, "wb");
    assert_non_null(o);
    assert_int_equal(fwrite(co, 1, size, o), size);
    assert_int_equal(fclose(o), 0);
    free(co);
    return handle_for(arch, dir);
}

/* The shapes every configuration applies to whose launches together run
 * each kernel's code paths (edge list: nothing divides a tile), with as many
 * channels as kernel k's tile has rows (its name's M, at least 3) so that
 * every row's store, and the waits before it, runs. NHWC stores 4 channels
 * at a time where all four are inside C/G and the rest element by element:
 * there M - 1 channels (fp32: the vectors and a tail of 3), and for the
 * 16-bit types M - 2 (the vectors and a tail of 2) and M - 1 (odd: every row
 * element by element). Returns how many shapes. */
static int diff_problems(const char *k, igemm_problem p[2])
{
    char why[256];
    if (igemm_problem_parse_line(&p[0], "conv -n 2 -c 3 -H 5 -W 7 -k 5 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 1 -F 2",
                                 why, sizeof why) != 1)
        fail_msg("shape: %s", why);
    const char *t = strstr(k, "_nchw_") ? strstr(k, "_nchw_") : strstr(k, "_nhwc_");
    int m = 0;
    if (t && sscanf(t + 6, "%d", &m) == 1 && m > p[0].c)
        p[0].c = m;
    if (!strstr(k, "_nhwc_") || m <= 3)
        return 1;
    p[0].c = m - 1;
    if (strstr(k, "_fp32_"))
        return 1;
    p[1] = p[0];
    p[1].c = m - 2;
    return 2;
}

static igemm_handle *handle_for(const char *arch, const char *dir)
{
    igemm_options o = IGEMM_OPTIONS_INIT;
    o.backend = IGEMM_BACKEND_EMU;
    o.arch = arch;
    o.codeobj_dir = dir;
    o.emu_threads = 1;
    igemm_handle *h = NULL;
    char why[1024];
    if (igemm_create(&h, &o, why, sizeof why) != IGEMM_OK)
        fail_msg("igemm_create(%s, %s): %s", arch, dir ? dir : "embedded", why);
    return h;
}

/* Run the solution named like kernel k (the naive one for the naive
 * kernel); returns 0 clean, -1 with the report in msg. */
/* A tile's split kernel: its name ends in _ksplit (where that suffix starts) */
static const char *split_kernel(const char *k)
{
    size_t n = strlen(k), s = strlen("_ksplit");
    return n > s && !strcmp(k + n - s, "_ksplit") ? k + n - s : NULL;
}

static int run_kernel(igemm_handle *h, const char *k, char *msg, size_t len)
{
    igemm_problem p[2];
    int n = diff_problems(k, p);
    /* a tile's split kernel (<config>_ksplit) runs as its _ks2 solution on
       2 KPB + 3 K channels: split 0 walks two whole K blocks, split 1 only
       a partial one (so both the prologue's and the loop's partial loads run) */
    char split[160];
    const char *ks = split_kernel(k), *t = strstr(k, "_nchw_") ? strstr(k, "_nchw_") : strstr(k, "_nhwc_");
    int tm = 0, tn = 0, kpb = 0;
    if (ks && (!t || sscanf(t + 6, "%dx%dx%d", &tm, &tn, &kpb) != 3))
        fail_msg("%s: no tile in the name", k);
    if (ks)
        snprintf(split, sizeof split, "%.*s_ks2", (int)(ks - k), k);
    const char *sol = strstr(k, "naive") ? "naive" : ks ? split : k;
    for (int i = 0; i < n; i++) {
        if (ks)
            p[i].k = 2 * kpb + 3;
        if (strstr(k, "_nhwc_"))
            p[i].layout = IGEMM_LAYOUT_NHWC; /* the layout and type the name says the kernel reads */
        if (strstr(k, "_fp16_") || strstr(k, "_fp16alt_"))
            p[i].dtype = IGEMM_FP16;
        if (strstr(k, "_fp16alt_")) /* fp16 rounded to bf16: alt problems only */
            p[i].fp16_mode = IGEMM_FP16_ALT;
        /* fp16 on the 16-bit matrix instructions (K 256/I: _wt32x32x8,
           _wt16x16x16) or on v_dot2_f32_f16 (_dot2) may flush subnormals
           (gfx90a): allowed for this run */
        if (strstr(k, "_fp16_") && (strstr(k, "_wt32x32x8") || strstr(k, "_wt16x16x16") || strstr(k, "_dot2")))
            p[i].fp16_mode = IGEMM_FP16_FLUSH;
        else if (strstr(k, "_bf16_"))
            p[i].dtype = IGEMM_BF16;
        /* Inf/NaN in w: the border's masked taps make NaN, so that the
           non-finite guard's slow path (and its s_nop) runs too; no
           subnormal among them, so that gfx90a's 16-bit MFMA kernels take
           their fast path (a bf16 wave that meets a small value takes the
           f32 path to its end, and the s_nop after the walk would stand
           for a path this run does not take) */
        tc_case_result res;
        if (tc_run_case_ex(h, &p[i], sol, 7, TC_SPECIALS_W | TC_SPECIALS_NORMAL, &res, msg, len))
            return -1;
    }
    return 0;
}

static int is_solution(const char *k)
{
    if (strstr(k, "naive") || split_kernel(k))
        return 1;
    for (int i = 0; i < igemm_solution_count(); i++)
        if (!strcmp(igemm_solution_name(i), k))
            return 1;
    return 0;
}

/* The index of the s_nop of kernel k (the index-th of the file) that set
 * `set` lowers, or -1: make test's one set lowers each kernel's first,
 * middle or last s_nop (index modulo 3); with all_nops set i is each
 * kernel's i-th. */
static int nop_of(const kern_nops *k, int index, int set, bool all_nops)
{
    if (all_nops)
        return set < k->n ? set : -1;
    const int at[3] = {0, k->n / 2, k->n - 1};
    return k->n && set == 0 ? at[index % 3] : -1;
}

static void diff_target(const char *arch, bool all_nops)
{
    char path[512], dir[] = "/tmp/igemm_test_gen_XXXXXX", err[4096];
    asm_file f;
    snprintf(path, sizeof path, "%s/co/%s.s", BUILD_DIR, arch);
    asm_read(&f, path);
    assert_true(f.nk > 0);
    /* enough: every kernel as generated runs clean */
    igemm_handle *h = handle_for(arch, NULL);
    int max_nops = 0, total = 0, lowered = 0, ran = 0, unexecuted = 0;
    for (int i = 0; i < f.nk; i++) {
        if (!is_solution(f.k[i].name)) {
            assert_int_equal(f.k[i].n, 0); /* the zero fill runs inside every plan */
            continue;
        }
        if (run_kernel(h, f.k[i].name, err, sizeof err))
            fail_msg("%s %s as generated: %s", arch, f.k[i].name, err);
        ran++;
        if (f.k[i].n > max_nops)
            max_nops = f.k[i].n;
        total += f.k[i].n;
    }
    igemm_destroy(h);
    /* no more than needed: each lowered s_nop is a hazard on the emulator.
       One assembly per set of lowered s_nops (at most one per kernel), and
       one more for the kernels that ran clean with theirs lowered: an
       s_trap in its place says whether it ran at all */
    assert_non_null(mkdtemp(dir));
    int sets = all_nops ? max_nops : 1;
    for (int set = 0; set < sets; set++) {
        int lower[MAX_ASM_KERNELS], who[MAX_ASM_KERNELS], n = 0;
        for (int i = 0; i < f.nk; i++) {
            int at = nop_of(&f.k[i], i, set, all_nops);
            if (at >= 0) {
                who[n] = i;
                lower[n++] = f.k[i].nops[at];
            }
        }
        if (!n)
            continue;
        char co_path[600];
        h = handle_for_source(arch, asm_lowered(&f, lower, n, false), dir, co_path, sizeof co_path);
        int unrun_line[MAX_ASM_KERNELS], unrun_who[MAX_ASM_KERNELS], nu = 0;
        for (int j = 0; j < n; j++) {
            const char *k = f.k[who[j]].name;
            if (!run_kernel(h, k, err, sizeof err)) {
                unrun_line[nu] = lower[j]; /* too many, or never executed: the trap says which */
                unrun_who[nu++] = who[j];
                continue;
            }
            if (!strstr(err, "hazard"))
                fail_msg("%s %s: line %d lowered: failed, but not with a hazard: %s", arch, k, lower[j] + 1, err);
            lowered++;
        }
        igemm_destroy(h);
        unlink(co_path);
        if (!nu)
            continue;
        h = handle_for_source(arch, asm_lowered(&f, unrun_line, nu, true), dir, co_path, sizeof co_path);
        for (int u = 0; u < nu; u++) {
            const char *k = f.k[unrun_who[u]].name;
            if (run_kernel(h, k, err, sizeof err))
                fail_msg("%s %s: line %d '%s' lowered by one wait state, and the emulator demands no more "
                         "(the emitter inserted too many)",
                         arch, k, unrun_line[u] + 1, f.line[unrun_line[u]]);
            unexecuted++; /* on no path the test's shapes take */
        }
        igemm_destroy(h);
        unlink(co_path);
    }
    rmdir(dir);
    printf("%s: %d kernels, %d solutions run clean (with the zero fill), %d emitter-inserted s_nop, %d of them "
           "lowered by one wait state: each a hazard on the emulator; %d more not executed on the test's shapes\n",
           arch, f.nk, ran, total, lowered, unexecuted);
    asm_free(&f);
}

static void test_diff_hazards(void **state)
{
    (void)state;
    /* make test lowers one s_nop per kernel, the first, middle or last
       (every kernel still runs clean as generated); IGEMM_GEN_ALL_NOPS=1
       (make check-hazards) lowers every one */
    const char *env = getenv("IGEMM_GEN_ALL_NOPS");
    bool all = env && !strcmp(env, "1");
    for (int i = 0; i < TC_NARCH(all_targets); i++)
        diff_target(all_targets[i], all);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_valu),
        cmocka_unit_test(test_golden_mem16),
        cmocka_unit_test(test_golden_vop3p),
        cmocka_unit_test(test_golden_mfma),
        cmocka_unit_test(test_golden_mfma_vgpr_cd),
        cmocka_unit_test(test_neg_constant_bus),
        cmocka_unit_test(test_neg_vop3_literal),
        cmocka_unit_test(test_neg_leak),
        cmocka_unit_test(test_neg_smem_misaligned),
        cmocka_unit_test(test_neg_subreg_range),
        cmocka_unit_test(test_neg_op_not_on_target),
        cmocka_unit_test(test_neg_wrong_format),
        cmocka_unit_test(test_neg_widths),
        cmocka_unit_test(test_neg_mfma_operands),
        cmocka_unit_test(test_scopes),
        cmocka_unit_test(test_diff_hazards),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
