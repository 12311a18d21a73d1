/* `igemm emu-run` as a subprocess (BUILD_DIR/bin/igemm): a code object
 * assembled here with two kernels named by their metadata, run with named
 * arguments. A clean run exits 0 and --dump writes the expected bytes; a
 * faulting kernel exits 1 with a one-line report; bad usage exits 2 with a
 * one-line message and never crashes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"
#include "../arch/target.h"

static const char *const archs[] = {TC_ARCH_LIST};

static char dir[64];                 /* per-run scratch directory */
static char co_path[4][128];         /* the test code object per target */

/* scale_add(out, in, count, scale): out[i] = in[i] * scale + 1 for i < count.
 * faulty(buf): uses loaded data without s_waitcnt.
 * overrun(buf, next, skip): reads the dword at buf + skip through a 64-bit
 * VGPR address (no buffer named by a base) and stores it to buf[0]. */
static const char *const kernel_src =
    ".amdgcn_target \"amdgcn-amd-amdhsa--%s\"\n"
    ".amdhsa_code_object_version 4\n"
    ".text\n"
    ".globl scale_add\n.p2align 8\n.type scale_add,@function\n"
    "scale_add:\n"
    "    s_load_dwordx4 s[4:7], s[0:1], 0x0\n"
    "    s_load_dwordx2 s[8:9], s[0:1], 0x10\n"
    "    s_waitcnt lgkmcnt(0)\n"
    "    s_lshl_b32 s10, s2, 6\n"
    "    v_add_u32 v1, s10, v0\n"
    "    v_cmp_gt_u32 vcc, s8, v1\n"
    "    s_and_saveexec_b64 s[12:13], vcc\n"
    "    s_cbranch_execz .Lend\n"
    "    v_lshlrev_b32 v2, 2, v1\n"
    "    global_load_dword v3, v2, s[6:7]\n"
    "    s_waitcnt vmcnt(0)\n"
    "    v_mul_f32 v3, s9, v3\n"
    "    v_add_f32 v3, 1.0, v3\n"
    "    global_store_dword v2, v3, s[4:5]\n"
    ".Lend:\n"
    "    s_endpgm\n"
    ".Lscale_add_end:\n"
    ".size scale_add, .Lscale_add_end - scale_add\n"
    ".globl faulty\n.p2align 8\n.type faulty,@function\n"
    "faulty:\n"
    "    s_load_dwordx2 s[4:5], s[0:1], 0x0\n"
    "    s_waitcnt lgkmcnt(0)\n"
    "    v_lshlrev_b32 v1, 2, v0\n"
    "    global_load_dword v2, v1, s[4:5]\n"
    "    v_add_f32 v2, 1.0, v2\n"
    "    global_store_dword v1, v2, s[4:5]\n"
    "    s_endpgm\n"
    ".Lfaulty_end:\n"
    ".size faulty, .Lfaulty_end - faulty\n"
    ".globl overrun\n.p2align 8\n.type overrun,@function\n"
    "overrun:\n"
    "    s_load_dwordx4 s[4:7], s[0:1], 0x0\n"
    "    s_load_dword s8, s[0:1], 0x10\n"
    "    s_waitcnt lgkmcnt(0)\n"
    "    s_add_u32 s10, s4, s8\n"
    "    s_addc_u32 s11, s5, 0\n"
    "    v_mov_b32 v4, s10\n"
    "    v_mov_b32 v5, s11\n"
    "    global_load_dword v2, v[4:5], off\n"
    "    s_waitcnt vmcnt(0)\n"
    "    v_mov_b32 v1, 0\n"
    "    global_store_dword v1, v2, s[4:5]\n"
    "    s_endpgm\n"
    ".Loverrun_end:\n"
    ".size overrun, .Loverrun_end - overrun\n"
    ".rodata\n.p2align 6\n"
    ".amdhsa_kernel scale_add\n"
    "    .amdhsa_user_sgpr_kernarg_segment_ptr 1\n"
    "    .amdhsa_system_sgpr_workgroup_id_x 1\n"
    "    .amdhsa_next_free_vgpr 8\n"
    "    .amdhsa_next_free_sgpr 16\n"
    "%s"
    ".end_amdhsa_kernel\n"
    ".p2align 6\n"
    ".amdhsa_kernel faulty\n"
    "    .amdhsa_user_sgpr_kernarg_segment_ptr 1\n"
    "    .amdhsa_system_sgpr_workgroup_id_x 1\n"
    "    .amdhsa_next_free_vgpr 8\n"
    "    .amdhsa_next_free_sgpr 16\n"
    "%s"
    ".end_amdhsa_kernel\n"
    ".p2align 6\n"
    ".amdhsa_kernel overrun\n"
    "    .amdhsa_user_sgpr_kernarg_segment_ptr 1\n"
    "    .amdhsa_next_free_vgpr 8\n"
    "    .amdhsa_next_free_sgpr 16\n"
    "%s"
    ".end_amdhsa_kernel\n"
    ".amdgpu_metadata\n"
    "---\n"
    "amdhsa.version: [ 1, 1 ]\n"
    "amdhsa.kernels:\n"
    "  - .name: scale_add\n"
    "    .symbol: scale_add.kd\n"
    "    .kernarg_segment_size: 24\n"
    "    .kernarg_segment_align: 8\n"
    "    .group_segment_fixed_size: 0\n"
    "    .private_segment_fixed_size: 0\n"
    "    .wavefront_size: 64\n"
    "    .sgpr_count: 18\n"
    "    .vgpr_count: 8\n"
    "    .max_flat_workgroup_size: 256\n"
    "    .args:\n"
    "      - { .name: out, .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }\n"
    "      - { .name: in, .size: 8, .offset: 8, .value_kind: global_buffer, .address_space: global }\n"
    "      - { .name: count, .size: 4, .offset: 16, .value_kind: by_value }\n"
    "      - { .name: scale, .size: 4, .offset: 20, .value_kind: by_value }\n"
    "  - .name: faulty\n"
    "    .symbol: faulty.kd\n"
    "    .kernarg_segment_size: 8\n"
    "    .kernarg_segment_align: 8\n"
    "    .group_segment_fixed_size: 0\n"
    "    .private_segment_fixed_size: 0\n"
    "    .wavefront_size: 64\n"
    "    .sgpr_count: 18\n"
    "    .vgpr_count: 8\n"
    "    .max_flat_workgroup_size: 256\n"
    "    .args:\n"
    "      - { .name: buf, .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }\n"
    "  - .name: overrun\n"
    "    .symbol: overrun.kd\n"
    "    .kernarg_segment_size: 24\n"
    "    .kernarg_segment_align: 8\n"
    "    .group_segment_fixed_size: 0\n"
    "    .private_segment_fixed_size: 0\n"
    "    .wavefront_size: 64\n"
    "    .sgpr_count: 18\n"
    "    .vgpr_count: 8\n"
    "    .max_flat_workgroup_size: 256\n"
    "    .args:\n"
    "      - { .name: buf, .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global }\n"
    "      - { .name: next, .size: 8, .offset: 8, .value_kind: global_buffer, .address_space: global }\n"
    "      - { .name: skip, .size: 4, .offset: 16, .value_kind: by_value }\n"
    "...\n"
    ".end_amdgpu_metadata\n";

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/igemm-emurun-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    for (int a = 0; a < TC_NARCH(archs); a++) {
        bool unified = a >= 2;
        const char *acc = unified ? "    .amdhsa_accum_offset 8\n" : "";
        char src[16384], err[1024];
        snprintf(src, sizeof src, kernel_src, archs[a], acc, acc, acc);
        size_t size = 0;
        void *image = tc_assemble_source(archs[a], src, &size, err, sizeof err);
        if (!image) {
            fprintf(stderr, "%s\n", err);
            return -1;
        }
        snprintf(co_path[a], sizeof co_path[a], "%s/k-%s.hsaco", dir, archs[a]);
        write_file(co_path[a], image, size);
        free(image);
    }
    float in[128];
    for (int i = 0; i < 128; i++)
        in[i] = (float)i * 0.5f - 7.0f;
    char path[160];
    snprintf(path, sizeof path, "%s/in.bin", dir);
    write_file(path, in, sizeof in);
    snprintf(path, sizeof path, "%s/notes.txt", dir);
    write_file(path, "not a code object\n", 18);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) ? -1 : 0;
}

static void clean_run_dumps_expected_bytes(void **state)
{
    (void)state;
    char in_arg[200], dump_arg[200], dump_path[160];
    snprintf(in_arg, sizeof in_arg, "in=@%s/in.bin", dir);
    for (int a = 0; a < TC_NARCH(archs); a++) {
        snprintf(dump_path, sizeof dump_path, "%s/out-%s.bin", dir, archs[a]);
        snprintf(dump_arg, sizeof dump_arg, "out=%s", dump_path);
        const char *argv[] = {"emu-run", "--co", co_path[a], "--kernel", "scale_add", "--grid", "2,1,1",
                              "--block", "64,1,1", "--arg", "out=zeros:512", "--arg", in_arg, "--arg",
                              "count=100", "--arg", "scale=2.5f", "--dump", dump_arg, "--stats", NULL};
        tc_result r;
        tc_run_igemm(&r, argv);
        if (r.status != 0)
            fail_msg("%s: exit %d, stderr: %s", archs[a], r.status, r.err);
        assert_string_equal(r.err, "");
        assert_non_null(strstr(r.out, "2 workgroups, 2 waves"));
        tc_expect_contains(r.out, "  modeled time: "); /* --stats runs the timing model */
        /* lanes 0-63 read and write bytes 0-255, lanes 64-99 bytes 256-399 of
           4 KiB-aligned buffers: whole lines of the target's line size */
        int line = target_by_name(archs[a])->tm.line_bytes;
        int lines = (256 + line - 1) / line + (144 + line - 1) / line;
        char line_want[128];
        snprintf(line_want, sizeof line_want, "    loads:  %d line bytes for 400 useful bytes: %.2f per useful byte\n", lines * line,
                 lines * line / 400.0);
        tc_expect_contains(r.out, line_want);
        snprintf(line_want, sizeof line_want, "    stores: %d line bytes for 400 useful bytes: %.2f per useful byte\n", lines * line,
                 lines * line / 400.0);
        tc_expect_contains(r.out, line_want);
        tc_expect_contains(r.out, "    in               loads ");
        tc_expect_contains(r.out, "    LDS: 0 pipe cycles, 0 of them bank conflicts");
        tc_result_free(&r);
        size_t size = 0;
        float *got = read_file(dump_path, &size);
        assert_non_null(got);
        assert_int_equal(size, 512);
        for (int i = 0; i < 128; i++) {
            float want = i < 100 ? ((float)i * 0.5f - 7.0f) * 2.5f + 1.0f : 0.0f;
            if (memcmp(&got[i], &want, 4))
                fail_msg("%s: out[%d] = %g, want %g", archs[a], i, (double)got[i], (double)want);
        }
        free(got);
    }
}

/* An argument left out is 0, with a warning; a hex integer is accepted. */
static void missing_argument_is_zero_with_warning(void **state)
{
    (void)state;
    char in_arg[200], dump_arg[200], dump_path[160];
    snprintf(in_arg, sizeof in_arg, "in=@%s/in.bin", dir);
    snprintf(dump_path, sizeof dump_path, "%s/out-zero.bin", dir);
    snprintf(dump_arg, sizeof dump_arg, "out=%s", dump_path);
    const char *argv[] = {"emu-run", "--co", co_path[0], "--kernel", "scale_add", "--grid", "1,1,1", "--block",
                          "64,1,1", "--arg", "out=zeros:256", "--arg", in_arg, "--arg", "count=0x40", "--dump",
                          dump_arg, NULL};
    tc_result r;
    tc_run_igemm(&r, argv);
    assert_int_equal(r.status, 0);
    assert_true(tc_one_line(r.err));
    assert_non_null(strstr(r.err, "warning"));
    assert_non_null(strstr(r.err, "scale"));
    tc_result_free(&r);
    size_t size = 0;
    float *got = read_file(dump_path, &size);
    assert_non_null(got);
    assert_int_equal(size, 256);
    for (int i = 0; i < 64; i++)
        assert_true(got[i] == 1.0f); /* in * 0 + 1 */
    free(got);
}

static void faulting_kernel_exits_1(void **state)
{
    (void)state;
    for (int a = 0; a < TC_NARCH(archs); a++) {
        const char *argv[] = {"emu-run", "--co", co_path[a], "--kernel", "faulty", "--grid", "1,1,1", "--block",
                              "64,1,1", "--arg", "buf=zeros:256", NULL};
        tc_result r;
        tc_run_igemm(&r, argv);
        if (r.status != 1 || !tc_one_line(r.err))
            fail_msg("%s: exit %d, stderr: %s", archs[a], r.status, r.err);
        assert_non_null(strstr(r.err, archs[a]));
        assert_non_null(strstr(r.err, "kernel faulty"));
        assert_non_null(strstr(r.err, "workgroup (0,0,0) wave 0"));
        assert_non_null(strstr(r.err, "v_add_f32_e32 v2, 1.0, v2"));
        assert_non_null(strstr(r.err, "missing s_waitcnt vmcnt"));
        tc_result_free(&r);
    }
}

static void bad_usage_exits_2(void **state)
{
    (void)state;
    char missing_in[200], dir_in[200], dump_dir[200], x_path[100], dump_x[120];
    snprintf(missing_in, sizeof missing_in, "in=@%s/no-such-file.bin", dir);
    snprintf(dir_in, sizeof dir_in, "in=@%s", dir);
    snprintf(dump_dir, sizeof dump_dir, "out=%s/no-such-dir/out.bin", dir);
    snprintf(x_path, sizeof x_path, "%s/x.bin", dir);
    snprintf(dump_x, sizeof dump_x, "count=%s", x_path);
    char notes[200];
    snprintf(notes, sizeof notes, "%s/notes.txt", dir);
    const char *co = co_path[0];
#define K "--kernel", "scale_add"
#define G "--grid", "1,1,1"
#define B "--block", "64,1,1"
    const char *const cases[][24] = {
        {"emu-run", NULL},
        {"emu-run", "--co", co, K, B, NULL},                                      /* no --grid */
        {"emu-run", "--co", co, G, B, NULL},                                      /* no --kernel */
        {"emu-run", K, G, B, NULL},                                               /* no --co */
        {"emu-run", "--co", co, K, G, "--block", NULL},                           /* flag without value */
        {"emu-run", "--co", co, K, G, B, "--arg", "bogus=1", NULL},               /* unknown argument name */
        {"emu-run", "--co", co, K, G, B, "--arg", "count=1", "--arg", "count=2", NULL},
        {"emu-run", "--co", co, K, "--grid", "1,1", B, NULL},                     /* malformed --grid */
        {"emu-run", "--co", co, K, "--grid", "1,1,1,1", B, NULL},
        {"emu-run", "--co", co, K, "--grid", "a,1,1", B, NULL},
        {"emu-run", "--co", co, K, "--grid", "0,1,1", B, NULL},
        {"emu-run", "--co", co, K, "--grid", "-1,1,1", B, NULL},
        {"emu-run", "--co", co, K, "--grid", "1,,1", B, NULL},
        {"emu-run", "--co", co, K, "--grid", "99999999999,1,1", B, NULL},
        {"emu-run", "--co", co, K, "--grid", "2147483647,1,1", "--block", "4,1,1", NULL}, /* > 2^32 work-items */
        {"emu-run", "--co", co, K, G, "--block", "2048,1,1", NULL},              /* > 1024 */
        {"emu-run", "--co", co, K, G, "--block", "512,1,1", NULL},               /* > the kernel's 256 */
        {"emu-run", "--co", co, K, G, B, "--arg", missing_in, NULL},              /* @input not a file */
        {"emu-run", "--co", co, K, G, B, "--arg", dir_in, NULL},                  /* @input a directory */
        {"emu-run", "--co", co, K, G, B, "--arg", "out=12", NULL},                /* buffer given a number */
        {"emu-run", "--co", co, K, G, B, "--arg", "out=zeros:0", NULL},
        {"emu-run", "--co", co, K, G, B, "--arg", "out=zeros:lots", NULL},
        {"emu-run", "--co", co, K, G, B, "--arg", "count=12abc", NULL},           /* not an integer */
        {"emu-run", "--co", co, K, G, B, "--arg", "count=4294967296", NULL},      /* does not fit 4 bytes */
        {"emu-run", "--co", co, K, G, B, "--arg", "count=", NULL},
        {"emu-run", "--co", co, K, G, B, "--arg", "=5", NULL},
        {"emu-run", "--co", co, K, G, B, "--dump", dump_x, NULL},                 /* not a buffer */
        {"emu-run", "--co", co, K, G, B, "--arg", "out=zeros:64", "--dump", dump_dir, NULL}, /* unwritable */
        {"emu-run", "--co", co, "--kernel", "nosuch", G, B, NULL},
        {"emu-run", "--co", notes, K, G, B, NULL},                                /* not a code object */
        {"emu-run", "--co", dir, K, G, B, NULL},                                  /* a directory */
        {"emu-run", "--co", co, K, G, B, "--threads", "x", NULL},
        {"emu-run", "--co", co, K, G, B, "--frobnicate", NULL},                   /* unknown flag */
        {"emu-run", "--co", co, K, G, B, "--hazards", "maybe", NULL},             /* not error|warn */
        {"emu-run", "--co", co, K, G, B, "--hazards", NULL},
    };
#undef K
#undef G
#undef B
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tc_result r;
        tc_run_igemm(&r, cases[i]);
        if (r.status != 2 || !tc_one_line(r.err) || r.out[0] || strncmp(r.err, "igemm: ", 7))
            fail_msg("case %zu (%s): exit %d, stdout \"%s\", stderr \"%s\"; want exit 2 and one line on stderr", i,
                     r.cmd, r.status, r.out, r.err);
        tc_result_free(&r);
    }
    /* a refused --dump leaves no file behind */
    struct stat st;
    assert_int_not_equal(stat(x_path, &st), 0);
}

/* Every buffer emu-run allocates lies between unregistered guard zones: a
 * read just past buf (at any distance up to 4 KiB) faults, whatever comes
 * next in memory; a read inside it does not. */
static void overrun_hits_guard_zone(void **state)
{
    (void)state;
    static const char *const offs[] = {"256", "272", "512", "4092"};
    for (int a = 0; a < TC_NARCH(archs); a++) {
        for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++) {
            char off[32];
            snprintf(off, sizeof off, "skip=%s", offs[i]);
            const char *argv[] = {"emu-run", "--co", co_path[a], "--kernel", "overrun", "--grid", "1,1,1", "--block",
                                  "64,1,1", "--arg", "buf=zeros:256", "--arg", "next=zeros:256", "--arg", off, NULL};
            tc_result r;
            tc_run_igemm(&r, argv);
            if (r.status != 1 || !strstr(r.err, "outside every registered buffer"))
                fail_msg("%s %s: exit %d, stderr: %s", archs[a], off, r.status, r.err);
            tc_result_free(&r);
        }
        const char *argv[] = {"emu-run", "--co", co_path[a], "--kernel", "overrun", "--grid", "1,1,1", "--block",
                              "64,1,1", "--arg", "buf=zeros:256", "--arg", "next=zeros:256", "--arg", "skip=252", NULL};
        tc_result r;
        tc_run_igemm(&r, argv);
        if (r.status != 0)
            fail_msg("%s skip=252: exit %d, stderr: %s", archs[a], r.status, r.err);
        tc_result_free(&r);
    }
}

/* --hazards warn: a gfx942 kernel with a VCC hazard in a loop (5 times per
 * wave, 2 waves) runs to the end, exit 0, one warning line for the rule. */
static void hazards_warn_flag(void **state)
{
    (void)state;
    static const char body[] = "    s_load_dwordx2 s[4:5], s[0:1], 0x0\n"
                               "    s_waitcnt lgkmcnt(0)\n"
                               "    v_lshlrev_b32 v1, 2, v0\n"
                               "    v_mov_b32 v3, 1\n"
                               "    v_mov_b32 v4, 2\n"
                               "    s_mov_b32 s20, 5\n"
                               ".Lloop:\n"
                               "    v_cmp_gt_u32 vcc, 32, v0\n"
                               "    v_cndmask_b32 v2, v3, v4, vcc\n"
                               "    s_sub_u32 s20, s20, 1\n"
                               "    s_cmp_lg_u32 s20, 0\n"
                               "    s_cbranch_scc1 .Lloop\n"
                               "    global_store_dword v1, v2, s[4:5]\n";
    tc_snippet sn = {.arch = "gfx942", .body = body, .vgprs = 8, .sgprs = 32, .nptrs = 1};
    char err[1024], path[160];
    size_t size = 0;
    void *image = tc_assemble(&sn, &size, err, sizeof err);
    if (!image)
        fail_msg("%s", err);
    snprintf(path, sizeof path, "%s/hazard.hsaco", dir);
    write_file(path, image, size);
    free(image);
    const char *modes[] = {NULL, "error", "warn"};
    for (int m = 0; m < 3; m++) {
        const char *argv[16] = {"emu-run", "--co", path, "--kernel", "snippet", "--grid", "1,1,1", "--block",
                                "128,1,1", "--arg", "p0=zeros:512"};
        if (modes[m]) {
            argv[11] = "--hazards";
            argv[12] = modes[m];
        }
        tc_result r;
        tc_run_igemm(&r, argv);
        if (m < 2) {
            if (r.status != 1 || !tc_one_line(r.err) || !strstr(r.err, "hazard valu-sgpr-valu"))
                fail_msg("--hazards %s: exit %d, stderr: %s", modes[m] ? modes[m] : "(default)", r.status, r.err);
        } else {
            if (r.status != 0 || !tc_one_line(r.err))
                fail_msg("--hazards warn: exit %d, stderr: %s", r.status, r.err);
            tc_expect_contains(r.err, "igemm: warning: gfx942 kernel snippet: hazard valu-sgpr-valu: 10 instructions "
                                      "short, first at pc 0x");
            tc_expect_contains(r.err, "`v_cndmask_b32_e32 v2, v3, v4, vcc` (workgroup (0,0,0) wave 0: ");
        }
        tc_result_free(&r);
    }
}

static void help_exits_0(void **state)
{
    (void)state;
    const char *argv[] = {"emu-run", "--help", NULL};
    tc_result r;
    tc_run_igemm(&r, argv);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "usage: igemm emu-run"));
    tc_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(clean_run_dumps_expected_bytes),
        cmocka_unit_test(missing_argument_is_zero_with_warning),
        cmocka_unit_test(faulting_kernel_exits_1),
        cmocka_unit_test(bad_usage_exits_2),
        cmocka_unit_test(overrun_hits_guard_zone),
        cmocka_unit_test(hazards_warn_flag),
        cmocka_unit_test(help_exits_0),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
