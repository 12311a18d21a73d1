/* Bad input and faults (issue 13): no silent wrong answer, no crash, no
 * hang, nothing destroyed. One test per item of the issue, through the CLI
 * (BUILD_DIR/bin/igemm in a child process with a timeout, stdout on
 * /dev/full, file-size and address-space limits) and the public API.
 *
 * Expected values: byte counts and limits are hand arithmetic written next
 * to each case; code objects are assembled here with llvm-mc from sources
 * that differ from a good one in one metadata field or one instruction. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <elf.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "../arch/kargs.h"
#include "../emu/emu.h"
#include "../runtime/perfdb.h"
#include "common.h"

static char dir[64]; /* scratch directory of the suite */

static void put_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static char *in_dir(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", dir, name);
    return buf;
}

/* Run igemm with lim; expect `status`, one "igemm: ..." line on stderr that
 * contains every needle (NULL-terminated). */
static void expect_run(const char *const *args, const tc_limits *lim, int status, const char *const *needles)
{
    tc_result r;
    tc_run_igemm_ex(&r, args, lim);
    if (r.status != status)
        fail_msg("%s: exit %d (negative: signal; -14 the timeout), want %d; stderr: %s", r.cmd, r.status, status,
                 r.err);
    if (!tc_one_line(r.err) || strncmp(r.err, "igemm: ", 7))
        fail_msg("%s: stderr is not one 'igemm: ...' line: '%s'", r.cmd, r.err);
    for (int i = 0; needles && needles[i]; i++)
        if (!strstr(r.err, needles[i]))
            fail_msg("%s: stderr '%s' does not mention '%s'", r.cmd, r.err, needles[i]);
    tc_result_free(&r);
}

#define NEEDLES(...) ((const char *const[]){__VA_ARGS__, NULL})

/* ---- code objects ---- */

/* One kernel `k` with a pointer argument; BODY and the metadata fields are
 * substituted: body, .kernarg_segment_size, .max_flat_workgroup_size, the
 * argument's .offset and .size. */
static const char *const co_src =
    ".amdgcn_target \"amdgcn-amd-amdhsa--gfx906\"\n"
    ".amdhsa_code_object_version 4\n"
    ".text\n.globl %s\n.p2align 8\n.type %s,@function\n%s:\n"
    "%s"
    "    s_endpgm\n"
    ".Lend:\n.size %s, .Lend - %s\n"
    ".rodata\n.p2align 6\n"
    ".amdhsa_kernel %s\n"
    "    .amdhsa_user_sgpr_kernarg_segment_ptr 1\n"
    "    .amdhsa_system_sgpr_workgroup_id_x 1\n"
    "    .amdhsa_next_free_vgpr 8\n"
    "    .amdhsa_next_free_sgpr 16\n"
    ".end_amdhsa_kernel\n"
    ".amdgpu_metadata\n---\namdhsa.version: [ 1, 1 ]\namdhsa.kernels:\n"
    "  - .name: %s\n    .symbol: %s.kd\n"
    "    .kernarg_segment_size: %s\n    .kernarg_segment_align: 8\n"
    "    .group_segment_fixed_size: 0\n    .private_segment_fixed_size: 0\n"
    "    .wavefront_size: 64\n    .sgpr_count: 18\n    .vgpr_count: 8\n"
    "    .max_flat_workgroup_size: %s\n"
    "    .args:\n"
    "      - { .name: buf, .size: %s, .offset: %s, .value_kind: global_buffer, .address_space: global }\n"
    "...\n.end_amdgpu_metadata\n";

typedef struct {
    const char *name, *body, *kernarg, *max_block, *size, *offset;
} co_spec;

/* Assemble spec into dir/file; fails the test when llvm-mc refuses it. */
static void make_co(const co_spec *c, const char *file)
{
    const char *n = c->name ? c->name : "k";
    char src[8192], err[1024], path[256];
    snprintf(src, sizeof src, co_src, n, n, n, c->body ? c->body : "", n, n, n, n, n, c->kernarg ? c->kernarg : "8",
             c->max_block ? c->max_block : "256", c->size ? c->size : "8", c->offset ? c->offset : "0");
    size_t size = 0;
    void *image = tc_assemble_source("gfx906", src, &size, err, sizeof err);
    if (!image)
        fail_msg("%s", err);
    put_file(in_dir(path, sizeof path, file), image, size);
    free(image);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/igemm-faults-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) ? -1 : 0;
}

/* ---- 1: 32-bit limits of every kernel ---- */

/* w of k * C/G * Y * X = 32768 * 32768 floats is 2^32 bytes: the naive
 * kernel's 32-bit buffer size would wrap to 0 and every load of w miss. */
static void item1_weights_over_4gib_refused(void **state)
{
    (void)state;
    tc_limits lim = {.timeout_s = 30};
    const char *args[] = {"conv", "-n", "1", "-c", "32768", "-H", "1", "-W", "1", "-k", "32768", "-y", "1", "-x",
                          "1", "-F", "2", "--backend", "emu", NULL};
    expect_run(args, &lim, 2, NEEDLES("w is 4294967296 bytes", "(every configuration)"));
    igemm_handle *h = tc_emu_handle("gfx906", NULL, 1);
    igemm_problem p = IGEMM_PROBLEM_INIT;
    p.c = p.k = 32768;
    char why[1024];
    assert_int_equal(igemm_applicable(h, &p, "naive", why, sizeof why), IGEMM_ERR_NOT_APPLICABLE);
    tc_expect_contains(why, "w is 4294967296 bytes");
    igemm_destroy(h);
}

/* 1x1 images, pad 32768, stride 2, dilation 65535 (odd: 2 phases per
 * dimension, 4 in all), 2x2 filter: Ho = (1 + 65536 - 65535 - 1) / 2 + 1 = 1,
 * and HTildaSlice = ceil(32768 / 2) + 1 = 16385 per dimension, so GEMM N is
 * 16385^2 = 268468225 per image: 8 images would be 2147745800 > 2^31 - 1,
 * and the dispatch of one image is ceil(268468225 / 128) = 2097409 N tiles
 * x 4 phases x 256 work-items = 2147746816: two images would pass 2^32. The
 * v4r1 plan must split the batch so that every launch's 32-bit gemm_n is
 * exact and its dispatch fits (before: one launch, gemm_n wrapped). */
static void item1_v4r1_gemm_n_split(void **state)
{
    (void)state;
    igemm_handle *h = tc_emu_handle("gfx906", NULL, 1);
    igemm_problem p = IGEMM_PROBLEM_INIT;
    p.n = 8, p.y = p.x = 2, p.pad_h = p.pad_w = 32768, p.stride_h = p.stride_w = 2, p.dil_h = p.dil_w = 65535;
    const char *cfg = "igemm_bwd_v4r1_fma_fp32_nchw_128x128x8_t256";
    char why[512];
    assert_int_equal(igemm_applicable(h, &p, cfg, why, sizeof why), IGEMM_OK);
    igemm_launch l[16];
    int n = 0;
    assert_int_equal(igemm_get_launches(h, &p, cfg, l, 16, &n), IGEMM_OK);
    uint64_t images = 0;
    int gemms = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(l[i].kernel, cfg))
            continue;
        uint32_t gemm_n;
        memcpy(&gemm_n, l[i].args + offsetof(igemm_v4r1_args, gemm_n), 4);
        assert_true(gemm_n <= INT32_MAX);
        assert_int_equal(gemm_n % 268468225u, 0);
        assert_true((uint64_t)l[i].grid[0] * l[i].block[0] <= UINT32_MAX);
        images += gemm_n / 268468225u;
        gemms++;
    }
    assert_int_equal(images, 8);
    assert_int_equal(gemms, 8); /* one image a launch */
    /* at pad 131072 (dilation 262143) one image alone is 65537^2 > 2^31 - 1:
     * v4r1 refuses, the naive kernel (one work-item per dx pixel) does not */
    p.n = 1, p.pad_h = p.pad_w = 131072, p.dil_h = p.dil_w = 262143;
    assert_int_equal(igemm_applicable(h, &p, cfg, why, sizeof why), IGEMM_ERR_NOT_APPLICABLE);
    tc_expect_contains(why, "GEMM N");
    assert_int_equal(igemm_applicable(h, &p, "naive", why, sizeof why), IGEMM_OK);
    igemm_destroy(h);
}

/* ---- 2: metadata integers ---- */

static void item2_metadata_ranges(void **state)
{
    (void)state;
    static const struct {
        co_spec c;
        const char *needle;
    } cases[] = {
        {{.offset = "2147483640"}, ".offset = 2147483640 is outside"},
        {{.size = "2147483647"}, ".size = 2147483647 is outside"},
        {{.offset = "4294967296"}, ".offset = 4294967296 is outside"},
        {{.offset = "18446744073709551615"}, "is outside"},
        {{.offset = "-8"}, ".offset = -8 is outside"},
        {{.max_block = "4294967296"}, ".max_flat_workgroup_size = 4294967296 is outside [1, 1024]"},
        {{.max_block = "0"}, ".max_flat_workgroup_size = 0"},
        {{.kernarg = "4294967304"}, ".kernarg_segment_size = 4294967304"},
        {{.offset = "4"}, "ends past the kernarg segment of 8 bytes"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char file[32], path[256];
        snprintf(file, sizeof file, "meta%zu.hsaco", i);
        make_co(&cases[i].c, file);
        const char *args[] = {"emu-run", "--co", in_dir(path, sizeof path, file), "--kernel", "k", "--grid",
                              "1,1,1", "--block", "64,1,1", "--arg", "buf=zeros:64", NULL};
        tc_limits lim = {.timeout_s = 30};
        expect_run(args, &lim, 2, NEEDLES("kernel k", cases[i].needle));
    }
}

/* The fuzzer's finding (make fuzz): a symbol table at an offset off its
 * 8-byte alignment was read in place (undefined behaviour, reported by
 * UBSan under make check-asan). It is no symbol table: the load fails
 * cleanly, naming a descriptor it cannot find. */
static void item2_misaligned_symbol_table(void **state)
{
    (void)state;
    char path[256];
    size_t size = 0;
    uint8_t *img = read_file(tc_codeobj_path("gfx906", path, sizeof path), &size);
    assert_non_null(img);
    Elf64_Ehdr eh;
    memcpy(&eh, img, sizeof eh);
    int moved = 0;
    for (int i = 0; i < eh.e_shnum; i++) {
        Elf64_Shdr sh;
        memcpy(&sh, img + eh.e_shoff + (size_t)i * sizeof sh, sizeof sh);
        if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM)
            continue;
        sh.sh_offset += 4;
        memcpy(img + eh.e_shoff + (size_t)i * sizeof sh, &sh, sizeof sh);
        moved++;
    }
    assert_true(moved > 0);
    tc_loaded l;
    char err[512];
    assert_int_equal(tc_load_image(&l, "gfx906", 1, img, size, err, sizeof err), -1);
    tc_expect_contains(err, "descriptor symbol");
    free(img);
}

/* A code object at an odd offset (a bundle entry need not be 8-byte
 * aligned): its header is read through a copy, not as a misaligned
 * Elf64_Ehdr (UBSan's alignment check, make check-asan, reported it). */
static void item13_code_object_at_odd_offset(void **state)
{
    (void)state;
    char path[256];
    size_t size = 0;
    uint8_t *img = read_file(tc_codeobj_path("gfx906", path, sizeof path), &size);
    assert_non_null(img);
    uint8_t *odd = malloc(size + 3);
    assert_non_null(odd);
    memcpy(odd + 3, img, size);
    assert_string_equal(emu_elf_target(odd + 3, size), "gfx906");
    tc_loaded l;
    char err[512];
    if (tc_load_image(&l, "gfx906", 1, odd + 3, size, err, sizeof err))
        fail_msg("%s", err);
    tc_unload(&l);
    free(odd);
    free(img);
}

/* igemm_free frees only the handle's own live allocations: another
 * handle's pointer, an interior pointer, a pointer freed already and a
 * pointer of the user's own are refused with IGEMM_ERR_INVALID_ARG, nothing
 * freed (before: each went to free(), and the C library aborted). */
static void item13_free_checks(void **state)
{
    (void)state;
    igemm_handle *h = tc_emu_handle("gfx906", NULL, 1), *h2 = tc_emu_handle("gfx906", NULL, 1);
    void *a, *b;
    assert_int_equal(igemm_alloc(h, &a, 256), IGEMM_OK);
    assert_int_equal(igemm_alloc(h2, &b, 256), IGEMM_OK);
    assert_int_equal(igemm_free(h, NULL), IGEMM_OK);
    assert_int_equal(igemm_free(h, (char *)a + 16), IGEMM_ERR_INVALID_ARG);
    tc_expect_contains(igemm_last_error(h), "inside an igemm_alloc buffer");
    assert_int_equal(igemm_free(h, b), IGEMM_ERR_INVALID_ARG);
    tc_expect_contains(igemm_last_error(h), "not a live igemm_alloc buffer of this handle");
    static float mine[16];
    assert_int_equal(igemm_free(h, mine), IGEMM_ERR_INVALID_ARG);
    /* a is still usable: nothing was freed */
    assert_int_equal(igemm_copy_to_device(h, a, mine, sizeof mine), IGEMM_OK);
    assert_int_equal(igemm_free(h, a), IGEMM_OK);
    assert_int_equal(igemm_free(h, a), IGEMM_ERR_INVALID_ARG);
    assert_int_equal(igemm_free(NULL, a), IGEMM_ERR_INVALID_ARG);
    assert_int_equal(igemm_free(h2, b), IGEMM_OK);
    igemm_destroy(h);
    igemm_destroy(h2);
}

/* ---- 3: hangs ---- */

static const char *const spin = ".Lspin:\n    s_branch .Lspin\n";

static void item3_endless_kernel_stops(void **state)
{
    (void)state;
    char path[256];
    make_co(&(co_spec){.body = spin}, "spin.hsaco");
    const char *args[] = {"emu-run", "--co", in_dir(path, sizeof path, "spin.hsaco"), "--kernel", "k", "--grid",
                          "4,1,1", "--block", "128,1,1", "--arg", "buf=zeros:64", "--max-wave-insts", "100000", NULL};
    tc_limits lim = {.timeout_s = 60};
    expect_run(args, &lim, 1, NEEDLES("kernel k", "wave", "pc 0x", "s_branch", "100000 instructions"));
    /* conv on a code object whose naive kernel spins */
    char codir[256];
    in_dir(codir, sizeof codir, "spin-co");
    assert_int_equal(mkdir(codir, 0700), 0);
    make_co(&(co_spec){.name = KERNEL_NAIVE, .body = spin}, "spin-co/gfx906.hsaco");
    const char *conv[] = {"conv", "-n", "1", "-c", "2", "-H", "4", "-W", "4", "-k", "2", "-F", "2", "--arch",
                          "gfx906", "--solution", "naive", "--codeobj-dir", codir, "--max-wave-insts", "100000", NULL};
    expect_run(conv, &lim, 1, NEEDLES(KERNEL_NAIVE, "wave", "pc 0x", "100000 instructions"));
}

/* The budget is on by default: emu_options.max_wave_insts 0 means 2^30
 * (so this spin ends after about 10 s, not never). */
static void item3_default_budget(void **state)
{
    (void)state;
    assert_true(EMU_DEFAULT_WAVE_INSTS == (UINT64_C(1) << 30));
    char path[256];
    make_co(&(co_spec){.body = spin}, "spin1.hsaco");
    const char *args[] = {"emu-run", "--co", in_dir(path, sizeof path, "spin1.hsaco"), "--kernel", "k", "--grid",
                          "1,1,1", "--block", "64,1,1", "--arg", "buf=zeros:64", NULL};
    tc_limits lim = {.timeout_s = 120};
    expect_run(args, &lim, 1, NEEDLES("1073741824 instructions"));
}

static void item3_input_files(void **state)
{
    (void)state;
    tc_limits lim = {.timeout_s = 30};
    const char *zero[] = {"conv", "--input", "/dev/zero", NULL};
    expect_run(zero, &lim, 2, NEEDLES("/dev/zero is not a regular file"));
    char path[256];
    in_dir(path, sizeof path, "long.txt");
    static char big[3000];
    memset(big, ' ', sizeof big);
    memcpy(big, "conv -n 1", 9);
    memcpy(big + sizeof big - 20, " -c 1 -F 2\n", 11);
    put_file(path, big, sizeof big - 9);
    const char *lng[] = {"conv", "--input", path, NULL};
    expect_run(lng, &lim, 2, NEEDLES(":1: line longer than 1023 bytes"));
    in_dir(path, sizeof path, "nul.txt");
    put_file(path, "conv -n 1 -c 1 -F 2\nconv -n 1\0 -c 1 -F 2\n", 41);
    const char *nul[] = {"conv", "--input", path, NULL};
    expect_run(nul, &lim, 2, NEEDLES(":2: NUL byte"));
}

/* ---- 4: destroyed files ---- */

static int count_entries(const char *path)
{
    DIR *d = opendir(path);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static void item4_failed_write_keeps_old_file(void **state)
{
    (void)state;
    char sub[256], path[300];
    in_dir(sub, sizeof sub, "keep");
    assert_int_equal(mkdir(sub, 0700), 0);
    snprintf(path, sizeof path, "%s/manifest.json", sub);
    put_file(path, "old manifest\n", 13);
    /* the manifest is far over 4 kB: the write fails with EFBIG */
    const char *args[] = {"manifest", "-o", path, NULL};
    tc_limits lim = {.timeout_s = 30, .fsize = 4096};
    expect_run(args, &lim, 1, NEEDLES(path, "File too large"));
    size_t size = 0;
    char *text = read_file(path, &size);
    assert_non_null(text);
    assert_string_equal(text, "old manifest\n");
    free(text);
    assert_int_equal(count_entries(sub), 1); /* no temporary file left */
    /* without the limit it is replaced */
    lim.fsize = 0;
    tc_result r;
    tc_run_igemm_ex(&r, args, &lim);
    assert_int_equal(r.status, 0);
    tc_result_free(&r);
    text = read_file(path, &size);
    assert_non_null(text);
    tc_expect_contains(text, "igemm-manifest-1");
    free(text);
    /* emu-run --dump: a run that faults leaves the old dump alone */
    char co[300], dump[300], dump_arg[320];
    make_co(&(co_spec){.body = spin}, "keep/spin.hsaco");
    snprintf(co, sizeof co, "%s/spin.hsaco", sub);
    snprintf(dump, sizeof dump, "%s/out.bin", sub);
    put_file(dump, "old dump", 8);
    snprintf(dump_arg, sizeof dump_arg, "buf=%s", dump);
    const char *er[] = {"emu-run", "--co", co, "--kernel", "k", "--grid", "1,1,1", "--block", "64,1,1", "--arg",
                        "buf=zeros:64", "--dump", dump_arg, "--max-wave-insts", "1000", NULL};
    expect_run(er, &lim, 1, NEEDLES("1000 instructions"));
    text = read_file(dump, &size);
    assert_non_null(text);
    assert_int_equal(size, 8);
    assert_memory_equal(text, "old dump", 8);
    free(text);
    assert_int_equal(count_entries(sub), 3);
    /* -o into a missing directory says why */
    snprintf(path, sizeof path, "%s/no-such-dir/m.json", sub);
    expect_run(args, &lim, 1, NEEDLES("No such file or directory"));
}

/* A device given as -o is written in place and never removed: a private
 * /dev/full (character device 1,7), so the machine's own is never at risk. */
static void item4_device_never_removed(void **state)
{
    (void)state;
    char full[256];
    in_dir(full, sizeof full, "full");
    if (mknod(full, S_IFCHR | 0666, makedev(1, 7)))
        skip(); /* not root: no device node to test with */
    const char *args[] = {"manifest", "-o", full, NULL};
    tc_limits lim = {.timeout_s = 30};
    expect_run(args, &lim, 1, NEEDLES(full, "No space left on device"));
    struct stat st;
    assert_int_equal(stat(full, &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    unlink(full);
}

/* ---- 5: standard output ---- */

static void item5_stdout_write_errors(void **state)
{
    (void)state;
    char path[256];
    make_co(&(co_spec){0}, "ok.hsaco");
    const char *conv[] = {"conv", "-n", "1", "-c", "2", "-H", "4", "-W", "4", "-k", "2", "-F", "2", "--arch",
                          "gfx906", NULL};
    const char *man[] = {"manifest", NULL};
    const char *er[] = {"emu-run", "--co", in_dir(path, sizeof path, "ok.hsaco"), "--kernel", "k", "--grid",
                        "1,1,1", "--block", "64,1,1", "--arg", "buf=zeros:64", "--stats", NULL};
    const char *const *cmds[] = {conv, man, er};
    tc_limits lim = {.stdout_path = "/dev/full", .timeout_s = 60};
    for (int i = 0; i < 3; i++)
        expect_run(cmds[i], &lim, 1, NEEDLES("error writing standard output", "No space left on device"));
}

/* ---- 6: code object files that are none ---- */

static void item6_empty_or_directory_code_object(void **state)
{
    (void)state;
    char sub[256], path[300];
    tc_limits lim = {.timeout_s = 30};
    for (int kind = 0; kind < 2; kind++) {
        snprintf(sub, sizeof sub, "%s/co%d", dir, kind);
        assert_int_equal(mkdir(sub, 0700), 0);
        snprintf(path, sizeof path, "%s/gfx906.hsaco", sub);
        if (kind)
            assert_int_equal(mkdir(path, 0700), 0);
        else
            put_file(path, "", 0);
        const char *what = kind ? "gfx906.hsaco is a directory" : "gfx906.hsaco is empty";
        const char *man[] = {"manifest", "--codeobj-dir", sub, NULL};
        expect_run(man, &lim, 2, NEEDLES(what));
        const char *conv[] = {"conv", "-n", "1", "-c", "2", "-H", "4", "-W", "4", "-k", "2", "-F", "2",
                              "--arch", "gfx906", "--codeobj-dir", sub, NULL};
        expect_run(conv, &lim, 1, NEEDLES(what, "usable code objects for: no target"));
    }
}

/* ---- 7: the API ---- */

static void item7_api(void **state)
{
    (void)state;
    /* igemm_verify: NULL buffers and invalid problems never pass */
    igemm_problem p = IGEMM_PROBLEM_INIT;
    float dx[1] = {0};
    double ref[1] = {0}, abs_sum[1] = {1};
    unsigned char cov[1] = {1};
    igemm_verify_result vr;
    assert_int_equal(igemm_verify(&p, dx, ref, abs_sum, cov, 1e-5, &vr), 1);
    assert_int_equal(igemm_verify(NULL, dx, ref, abs_sum, cov, 1e-5, &vr), 0);
    assert_int_equal(vr.worst_index, -1);
    assert_int_equal(igemm_verify(&p, NULL, ref, abs_sum, cov, 1e-5, NULL), 0);
    assert_int_equal(igemm_verify(&p, dx, NULL, abs_sum, cov, 1e-5, NULL), 0);
    assert_int_equal(igemm_verify(&p, dx, ref, NULL, cov, 1e-5, NULL), 0);
    assert_int_equal(igemm_verify(&p, dx, ref, abs_sum, NULL, 1e-5, NULL), 0);
    assert_int_equal(igemm_verify(&p, dx, ref, abs_sum, cov, NAN, NULL), 0);
    igemm_problem bad = p;
    bad.n = 0; /* no elements: would pass vacuously */
    assert_int_equal(igemm_verify(&bad, dx, ref, abs_sum, cov, 1e-5, NULL), 0);
    bad.n = -5;
    assert_int_equal(igemm_verify(&bad, dx, ref, abs_sum, cov, 1e-5, NULL), 0);

    /* igemm_problem_ho/wo: 0 for every invalid problem, no overflow */
    bad = p;
    bad.y = INT_MIN;
    assert_int_equal(igemm_problem_ho(&bad), 0);
    bad = p;
    bad.x = INT_MIN;
    bad.dil_w = INT_MAX;
    assert_int_equal(igemm_problem_wo(&bad), 0);
    bad = p;
    bad.n = 0; /* ho alone would be 1 */
    assert_int_equal(igemm_problem_ho(&bad), 0);
    assert_int_equal(igemm_problem_wo(&bad), 0);
    assert_int_equal(igemm_problem_ho(NULL), 0);
    assert_int_equal(igemm_problem_ho(&p), 1);

    /* igemm_select: a name that does not fit is an error, nothing written */
    igemm_handle *h = tc_emu_handle("gfx906", NULL, 1);
    p.c = p.k = 64, p.hi = p.wi = 8;
    char name[96], small[8] = "unset";
    assert_int_equal(igemm_select(h, &p, name, sizeof name), IGEMM_OK);
    assert_true(strlen(name) >= sizeof small);
    assert_int_equal(igemm_select(h, &p, small, sizeof small), IGEMM_ERR_INVALID_ARG);
    assert_string_equal(small, "unset");
    tc_expect_contains(igemm_last_error(h), "needs");

    /* buffers from igemm_alloc that are smaller than the problem are refused
     * (the emulator would write past them): dx needs 64 * 64 * 4 = 16384 bytes */
    void *bx, *by, *bw;
    size_t nx = 64 * 64 * 4, ny = 64 * 64 * 4, nw = 64 * 64 * 4;
    assert_int_equal(igemm_alloc(h, &bx, nx - 4), IGEMM_OK);
    assert_int_equal(igemm_alloc(h, &by, ny), IGEMM_OK);
    assert_int_equal(igemm_alloc(h, &bw, nw), IGEMM_OK);
    assert_int_equal(igemm_conv_bwd_data(h, &p, bx, by, bw), IGEMM_ERR_INVALID_ARG);
    tc_expect_contains(igemm_last_error(h), "dx needs 16384 bytes at offset 0 of an igemm_alloc buffer of 16380 bytes");
    /* a tensor starting inside an allocation must end inside it */
    assert_int_equal(igemm_conv_bwd_data(h, &p, (char *)by + 4, by, bw), IGEMM_ERR_INVALID_ARG);
    tc_expect_contains(igemm_last_error(h), "dx needs 16384 bytes at offset 4");
    assert_int_equal(igemm_conv_bwd_data(h, &p, by, by, (char *)bw + 8), IGEMM_ERR_INVALID_ARG);
    tc_expect_contains(igemm_last_error(h), "w needs");
    /* copies too */
    static float host[64 * 64];
    assert_int_equal(igemm_copy_to_device(h, bx, host, nx), IGEMM_ERR_INVALID_ARG);
    assert_int_equal(igemm_copy_to_host(h, host, bx, nx), IGEMM_ERR_INVALID_ARG);
    assert_int_equal(igemm_copy_to_device(h, bx, host, nx - 4), IGEMM_OK);
    igemm_free(h, bx);
    /* the right size runs */
    assert_int_equal(igemm_alloc(h, &bx, nx), IGEMM_OK);
    assert_int_equal(igemm_copy_to_device(h, by, host, ny), IGEMM_OK);
    assert_int_equal(igemm_copy_to_device(h, bw, host, nw), IGEMM_OK);
    if (igemm_conv_bwd_data(h, &p, bx, by, bw) != IGEMM_OK)
        fail_msg("%s", igemm_last_error(h));
    igemm_free(h, bx);
    igemm_free(h, by);
    igemm_free(h, bw);
    igemm_destroy(h);
}

/* ---- 8: refusal before allocation ---- */

static void item8_check_before_allocating(void **state)
{
    (void)state;
    /* one dx image of 70000 x 70000 floats is 19600000000 bytes: refused at
     * once (before: 19.6 GB allocated and filled, then the OOM killer) */
    const char *big[] = {"conv", "-n", "1", "-c", "1", "-H", "70000", "-W", "70000", "-k", "1", "-y", "1", "-x",
                         "1", "-F", "2", "--backend", "emu", NULL};
    tc_limits lim = {.timeout_s = 20, .as_bytes = 1ul << 31};
#if defined(__SANITIZE_ADDRESS__)
    lim.as_bytes = 0; /* AddressSanitizer reserves terabytes of shadow */
#endif
    expect_run(big, &lim, 2, NEEDLES("one image of dx is 19600000000 bytes", "(every configuration)"));
    /* the verification buffers are allocated with the tensors, before the
     * run: dx of 2^26 floats (256 MiB; dy as large, both also as emulator
     * copies: 1 GiB) plus the reference's 17 bytes per element (1.06 GiB)
     * do not fit 1.5 GiB of address space, and that is found before a run
     * that would take hours */
    if (!lim.as_bytes)
        return;
    const char *verify[] = {"conv", "-n", "1", "-c", "1", "-H", "8192", "-W", "8192", "-k", "1", "-y", "1", "-x",
                            "1", "-F", "2", "--backend", "emu", "--solution", "naive", "-V", "1", NULL};
    lim.as_bytes = 3ul << 29;
    tc_result r;
    tc_run_igemm_ex(&r, verify, &lim);
    if (r.status != 1 || !strstr(r.err, "igemm: out of host memory for the tensors and the reference"))
        fail_msg("%s: exit %d (-14: still running after %u s), stderr: %s", r.cmd, r.status, lim.timeout_s, r.err);
    tc_result_free(&r);
}

/* -V 1 needs no memory after the run: an NHWC problem's reference used to
 * allocate transposed copies (dy, w, and two dx-sized float64 arrays: 84 MB
 * here) after the run; under an address-space limit that held the tensors
 * and the verify buffers it failed, unchecked, and verify reported a FAIL.
 * 2048 x 2048 pixels, 1 channel: 16 MB per tensor, 132 MB with the
 * emulator's copies and the reference's 17 bytes per element; the limit is
 * 200000 KiB (the process's own image included). */
static void item13_verify_allocates_before_run(void **state)
{
    (void)state;
#if defined(__SANITIZE_ADDRESS__)
    return; /* AddressSanitizer reserves terabytes of shadow */
#endif
    const char *args[] = {"conv", "-n", "1", "-c", "1", "-H", "2048", "-W", "2048", "-k", "1", "-y", "1", "-x", "1",
                          "--in_layout", "NHWC", "--out_layout", "NHWC", "--fil_layout", "NHWC", "-V", "1",
                          "--threads", "1", "--arch", "gfx906", NULL};
    tc_limits lim = {.timeout_s = 120, .as_bytes = 200000ul << 10};
    tc_result r;
    tc_run_igemm_ex(&r, args, &lim);
    if (r.status != 0 || !strstr(r.out, "PASS"))
        fail_msg("%s: exit %d, stdout %s, stderr %s", r.cmd, r.status, r.out, r.err);
    tc_result_free(&r);
}

/* Numbers are plain decimals (no blank, no '+'), -S's number is -1 .. the
 * solution count; "tensors too large" names the tensor and the limit;
 * more emulator threads than CPUs is said, not hidden. */
static void item13_messages(void **state)
{
    (void)state;
    tc_limits lim = {.timeout_s = 30};
    const char *blank[] = {"conv", "-n", " 1", "-c", "4", "-H", "6", "-W", "6", "-k", "4", NULL};
    expect_run(blank, &lim, 2, NEEDLES("flag '-n' needs an integer, got ' 1'"));
    const char *plus[] = {"conv", "-n", "1", "-c", "+4", "-H", "6", "-W", "6", "-k", "4", NULL};
    expect_run(plus, &lim, 2, NEEDLES("got '+4'"));
    const char *sol[] = {"conv", "-n", "1", "-c", "4", "-H", "6", "-W", "6", "-k", "4", "-S", "-2147483649", NULL};
    expect_run(sol, &lim, 2, NEEDLES("flag '-S -2147483649': a MIOpen solver id is positive"));
    /* 2^20 * 2^20 * 2 pixels of one channel: dx has 2^41 elements */
    const char *big[] = {"conv", "-n", "2", "-c", "1", "-H", "1048576", "-W", "1048576", "-k", "1", NULL};
    expect_run(big, &lim, 2, NEEDLES("tensors too large: dx (n*c*H*W elements) exceeds the limit of 2^40"));
    igemm_options o = IGEMM_OPTIONS_INIT;
    o.backend = IGEMM_BACKEND_EMU;
    o.emu_threads = (int)sysconf(_SC_NPROCESSORS_ONLN) + 1;
    igemm_handle *h;
    char why[256];
    assert_int_equal(igemm_create(&h, &o, why, sizeof why), IGEMM_OK);
    tc_expect_contains(igemm_handle_warning(h), "online CPUs");
    igemm_destroy(h);
    o.emu_threads = 1;
    assert_int_equal(igemm_create(&h, &o, why, sizeof why), IGEMM_OK);
    assert_string_equal(igemm_handle_warning(h), "");
    igemm_destroy(h);
}

/* ---- 9: find mode's costs ---- */

static void item9_invalid_costs_not_stored(void **state)
{
    (void)state;
    assert_true(perfdb_cost_ok(0.0));
    assert_true(perfdb_cost_ok(12.5));
    assert_false(perfdb_cost_ok(INFINITY));
    assert_false(perfdb_cost_ok(NAN));
    assert_false(perfdb_cost_ok(-1.0));
    char path[256], why[512];
    in_dir(path, sizeof path, "db.txt");
    put_file(path, "gfx906 n1 naive 10 cycles\n", 26);
    perfdb_rec r = {.arch = "gfx906", .key = "n2", .solution = "naive", .unit = "ms"};
    double bad[] = {INFINITY, NAN, -0.5};
    for (int i = 0; i < 3; i++) {
        r.cost = bad[i];
        assert_int_equal(perfdb_store(path, &r, why, sizeof why), IGEMM_ERR_INVALID_ARG);
        size_t size;
        char *text = read_file(path, &size);
        assert_string_equal(text, "gfx906 n1 naive 10 cycles\n");
        free(text);
    }
    r.cost = 3.25;
    assert_int_equal(perfdb_store(path, &r, why, sizeof why), IGEMM_OK);
    perfdb db;
    assert_int_equal(perfdb_load(&db, path, why, sizeof why, why, sizeof why), IGEMM_OK);
    assert_int_equal(db.n, 2);
    perfdb_free(&db);
    /* a bad line in the file no longer fails every run: the CLI warns */
    put_file(path, "gfx906 n1 naive inf cycles\n", 27);
    const char *args[] = {"conv", "-n", "1", "-c", "2", "-H", "4", "-W", "4", "-k", "2", "-F", "2", "--arch",
                          "gfx906", "--perfdb", path, NULL};
    tc_limits lim = {.timeout_s = 30};
    expect_run(args, &lim, 0, NEEDLES("warning", ":1: cost 'inf'", "skipped"));
}

/* ---- 10: messages ---- */

static void item10_messages(void **state)
{
    (void)state;
    tc_limits lim = {.timeout_s = 30};
    const char *arch[] = {"conv", "-n", "1", "-c", "1", "-H", "4", "-W", "4", "-k", "1", "-F", "2", "--arch",
                          "gfx\n906\x01", NULL};
    expect_run(arch, &lim, 2, NEEDLES("'gfx\\n906\\x01'"));
    const char *indir[] = {"conv", "--input", dir, NULL};
    expect_run(indir, &lim, 2, NEEDLES("is a directory"));
    const char *extra[] = {"manifest", "extra", NULL};
    expect_run(extra, &lim, 2, NEEDLES("unexpected argument 'extra'"));
    /* an object straight from llvm-mc */
    char src[] = "/tmp/igemm-faults-rel-XXXXXX";
    int fd = mkstemp(src);
    assert_true(fd >= 0);
    close(fd);
    char obj[300], cmd[1200];
    snprintf(obj, sizeof obj, "%s/rel.o", dir);
    snprintf(cmd, sizeof cmd,
             "printf '.amdgcn_target \"amdgcn-amd-amdhsa--gfx906\"\\n.text\\ns_endpgm\\n' > %s && "
             "%s/llvm-mc -triple=amdgcn-amd-amdhsa -mcpu=gfx906 -filetype=obj %s -o %s",
             src, LLVM_BIN, src, obj);
    assert_int_equal(system(cmd), 0);
    unlink(src);
    const char *rel[] = {"emu-run", "--co", obj, "--kernel", "k", "--grid", "1,1,1", "--block", "64,1,1", NULL};
    expect_run(rel, &lim, 2, NEEDLES("relocatable object (ELF ET_REL"));
}

/* ---- 11: non-finite data (issue 25) ---- */

/* Inf, -Inf, NaN, the largest finite values and a subnormal in dy and in w,
 * on shapes with masked taps (padding, strides, dilation, K/G and C/G not
 * multiples of the tiles): dx equals the float64 reference element by
 * element, NaN and Inf exactly where it has them (tc_run_case_ex). Before
 * the guard, every v4r1 kernel wrote NaN where a masked dy tap (loaded as
 * 0) met an infinite or NaN weight. A sample of configurations per target,
 * type and layout; `make fuzz` runs them all. */
static void item11_nonfinite_data(void **state)
{
    (void)state;
    const char *archs[] = {"gfx906", "gfx908", "gfx90a", "gfx942"};
    const igemm_dtype types[] = {IGEMM_FP32, IGEMM_FP16, IGEMM_BF16};
    igemm_problem shapes[2] = {IGEMM_PROBLEM_INIT, IGEMM_PROBLEM_INIT};
    /* 3x3, pad 1, stride 2: four phases with border taps on both sides */
    shapes[0].n = 2, shapes[0].c = 6, shapes[0].k = 5, shapes[0].hi = 7, shapes[0].wi = 6;
    shapes[0].y = shapes[0].x = 3, shapes[0].pad_h = shapes[0].pad_w = 1, shapes[0].stride_h = shapes[0].stride_w = 2;
    /* 3x2, dilation 2, pad 2 and 1, two groups */
    shapes[1].n = 1, shapes[1].c = 8, shapes[1].k = 10, shapes[1].hi = 5, shapes[1].wi = 7, shapes[1].groups = 2;
    shapes[1].y = 3, shapes[1].x = 2, shapes[1].pad_h = 2, shapes[1].pad_w = 1, shapes[1].dil_h = shapes[1].dil_w = 2;
    int runs = 0, failures = 0;
    for (size_t a = 0; a < sizeof archs / sizeof archs[0]; a++) {
        igemm_handle *h = tc_emu_handle(archs[a], NULL, 1);
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
            for (int l = 0; l < 2; l++)
                for (int si = 0; si < 2; si++) {
                    igemm_problem p = shapes[si];
                    p.dtype = types[t];
                    p.layout = l ? IGEMM_LAYOUT_NHWC : IGEMM_LAYOUT_NCHW;
                    /* every 5th applicable configuration, from an offset
                       that moves with the case: FMA and MFMA ones both */
                    int seen = 0, off = (int)(a * 7 + t * 3 + (size_t)l * 2 + (size_t)si) % 5;
                    for (int i = 0; i < igemm_solution_count(); i++) {
                        const char *sol = igemm_solution_name(i);
                        char why[256];
                        if (igemm_applicable(h, &p, sol, why, sizeof why) != IGEMM_OK || seen++ % 5 != off)
                            continue;
                        for (unsigned sp = 1; sp <= 7; sp += (sp & 3) == 3 ? 2 : 1) {
                            tc_case_result r;
                            char msg[1024];
                            runs++;
                            if (tc_run_case_ex(h, &p, sol, 25 + (uint64_t)i, sp, &r, msg, sizeof msg)) {
                                failures++;
                                print_message("%s %s %s shape %d %s in %s: %s\n", archs[a], sol,
                                              p.layout ? "nhwc" : "nchw", si, sp & 4 ? "largest finite" : "inf/nan", (sp & 3) == 1 ? "dy" : (sp & 3) == 2 ? "w" : "dy and w",
                                              msg);
                            }
                        }
                    }
                }
        igemm_destroy(h);
    }
    print_message("non-finite data: %d runs, %d failures\n", runs, failures);
    assert_true(runs > 0);
    assert_int_equal(failures, 0);
}

/* The first applicable solution whose name has `has` and, where not NULL,
 * does not have `hasnt` (NULL: none). */
static const char *solution_with(igemm_handle *h, const igemm_problem *p, const char *has, const char *hasnt)
{
    for (int i = 0; i < igemm_solution_count(); i++) {
        const char *sol = igemm_solution_name(i);
        char why[256];
        if (strstr(sol, has) && (!hasnt || !strstr(sol, hasnt)) && igemm_applicable(h, p, sol, why, sizeof why) == IGEMM_OK)
            return sol;
    }
    return NULL;
}

/* The non-finite guard inside the kernels (docs/KERNELS.md): no launch
 * after the GEMM (igemm_get_launches: one, a split's two), and Inf/NaN in w
 * (whose masked border taps make NaN in the GEMM) or in dy (interior
 * pixels whose terms hold a NaN: true NaNs that must stay) give dx equal
 * to the float64 reference, NaN and Inf exactly where it has them
 * (tc_run_case_ex). Unsplit solvers (the v4r1 kernel's guard): FMA on
 * gfx906 and gfx942, MFMA on gfx942; a split one (the reduction's guard)
 * on gfx942 (gfx906 has none); fp32 and fp16, NCHW and NHWC. */
static void item11_guard_in_kernel(void **state)
{
    (void)state;
    const char *archs[] = {"gfx906", "gfx942"};
    const igemm_dtype types[] = {IGEMM_FP32, IGEMM_FP16};
    igemm_problem p0 = IGEMM_PROBLEM_INIT;
    /* 3x3 pad 1: a one-pixel border band; K/G 64: several K blocks to split */
    p0.n = 2, p0.c = 8, p0.k = 64, p0.hi = 6, p0.wi = 5, p0.y = p0.x = 3, p0.pad_h = p0.pad_w = 1;
    int runs = 0, failures = 0;
    for (size_t a = 0; a < sizeof archs / sizeof archs[0]; a++) {
        igemm_handle *h = tc_emu_handle(archs[a], NULL, 1);
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
            for (int l = 0; l < 2; l++)
                for (int kind = 0; kind < 3; kind++) { /* FMA, MFMA, MFMA split */
                    const int split = kind == 2;
                    igemm_problem p = p0;
                    p.dtype = types[t];
                    p.layout = l ? IGEMM_LAYOUT_NHWC : IGEMM_LAYOUT_NCHW;
                    if (p.dtype == IGEMM_FP16)
                        p.fp16_mode = IGEMM_FP16_FLUSH; /* every fp16 kernel applies */
                    const char *sol = solution_with(h, &p, kind ? "igemm_bwd_v4r1_mfma" : "igemm_bwd_v4r1_fma",
                                                    split ? NULL : "_ks");
                    if (split)
                        sol = solution_with(h, &p, "_ks2", NULL);
                    if (!sol) {
                        if (kind && !strcmp(archs[a], "gfx906"))
                            continue; /* FMA only: no MFMA, no split solvers */
                        fail_msg("%s %s: no solver of kind %d applies", archs[a], p.layout ? "nhwc" : "nchw", kind);
                    }
                    int cnt = 0;
                    assert_int_equal(igemm_get_launches(h, &p, sol, NULL, 0, &cnt), IGEMM_OK);
                    if (cnt != 1 + split)
                        fail_msg("%s %s: %d launches, want %d (no fixup launch)", archs[a], sol, cnt, 1 + split);
                    const unsigned sp[] = {TC_SPECIALS_W, TC_SPECIALS_DY, TC_SPECIALS_W | TC_SPECIALS_DY};
                    for (size_t k = 0; k < sizeof sp / sizeof sp[0]; k++)
                        for (uint64_t seed = 1; seed <= 2; seed++) {
                            tc_case_result r;
                            char msg[1024];
                            runs++;
                            if (tc_run_case_ex(h, &p, sol, 90 + seed, sp[k], &r, msg, sizeof msg)) {
                                failures++;
                                print_message("%s %s specials %u seed %llu: %s\n", archs[a], sol, sp[k],
                                              (unsigned long long)seed, msg);
                            }
                        }
                }
        igemm_destroy(h);
    }
    print_message("guard in the kernels: %d runs, %d failures\n", runs, failures);
    assert_true(runs >= 96);
    assert_int_equal(failures, 0);
}

/* ---- 12: the performance database (issue 25) ---- */

/* A find of the 4-channel 6x6 3x3 problem with batch n on gfx906 into db. */
static void find_args(const char **a, char *nbuf, size_t len, int n, const char *db)
{
    snprintf(nbuf, len, "%d", n);
    const char *v[] = {"conv", "-n", nbuf, "-c", "4", "-H", "6", "-W", "6", "-k", "4", "-y", "3", "-x", "3",
                       "-p", "1", "-q", "1", "-s", "1", "--arch", "gfx906", "--perfdb", db, NULL};
    memcpy(a, v, sizeof v);
}

/* Records of the file, by the library's reader (-1: it refuses the file). */
static int count_records(const char *path)
{
    perfdb d;
    char why[512];
    if (perfdb_load(&d, path, NULL, 0, why, sizeof why) != IGEMM_OK)
        return -1;
    int n = d.n;
    perfdb_free(&d);
    return n;
}

/* n lines of other targets' records (tX: never one of ours). */
static void big_db(const char *path, int n)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "# igemm performance database: target problem configuration cost unit\n# a comment\n");
    for (int i = 0; i < n; i++)
        fprintf(f, "t%d n%d,c1 naive %d cycles\n", i % 7, i, i);
    assert_int_equal(fclose(f), 0);
}

/* Comments and lines this version does not understand survive a find; a
 * file that is no database is refused with exit 2 and left as it was; a
 * write that fails exits 1 and keeps the old file. Before: find rewrote
 * the file with the records it could parse (comments gone), turned any
 * file into a database with exit 0, and a failed write exited 0. */
static void item12_perfdb_keeps_and_refuses(void **state)
{
    (void)state;
    tc_limits lim = {.timeout_s = 120};
    char db[300], nb[16];
    const char *a[32];
    in_dir(db, sizeof db, "keep.db");
    static const char old[] = "# igemm performance database: target problem configuration cost unit\n"
                              "# my notes on these records\n"
                              "gfx906 n9,c1 naive 5 cycles   # measured by hand\n"
                              "a line of some future version with more fields than five\n";
    put_file(db, old, sizeof old - 1);
    find_args(a, nb, sizeof nb, 1, db);
    tc_result r;
    tc_run_igemm_ex(&r, a, &lim);
    assert_int_equal(r.status, 0);
    tc_result_free(&r);
    size_t size = 0;
    char *text = read_file(db, &size);
    assert_non_null(text);
    assert_memory_equal(text, old, sizeof old - 1); /* every old line, byte for byte, in place */
    tc_expect_contains(text + sizeof old - 1, "gfx906 n1,c4,H6,W6,k4,y3,x3,p1,q1");
    free(text);
    assert_int_equal(count_records(db), 2);

    /* not a database: refused, untouched */
    char other[300];
    in_dir(other, sizeof other, "notes.txt");
    static const char notes[] = "Shopping list\n\neggs, milk\n\x01\x02 binary junk\n";
    put_file(other, notes, sizeof notes - 1);
    find_args(a, nb, sizeof nb, 1, other);
    expect_run(a, &lim, 2, NEEDLES(other, "is not a performance database"));
    text = read_file(other, &size);
    assert_non_null(text);
    assert_int_equal(size, sizeof notes - 1);
    assert_memory_equal(text, notes, size);
    free(text);

    /* a write that fails (a file-size limit below the database's size) */
    char sub[300], full[320];
    in_dir(sub, sizeof sub, "efbig");
    assert_int_equal(mkdir(sub, 0700), 0);
    snprintf(full, sizeof full, "%s/big.db", sub);
    big_db(full, 400); /* about 10 kB */
    char *before = read_file(full, &size);
    assert_non_null(before);
    size_t before_size = size;
    lim.fsize = 4096;
    find_args(a, nb, sizeof nb, 2, full);
    tc_run_igemm_ex(&r, a, &lim);
    assert_int_equal(r.status, 1);
    tc_expect_contains(r.err, "find results not saved");
    tc_result_free(&r);
    text = read_file(full, &size);
    assert_non_null(text);
    assert_int_equal(size, before_size);
    assert_memory_equal(text, before, size);
    free(text);
    free(before);
}

/* procs finds at once, each its own problem, into db; 0 when every record
 * is there afterwards (extra: records the file held before). */
static int concurrent_finds(const char *db, int procs, int extra)
{
    pid_t pid[16];
    for (int i = 0; i < procs; i++) {
        if ((pid[i] = fork()) == 0) {
            char nb[16], out[300];
            const char *a[32];
            find_args(a, nb, sizeof nb, 1 + i, db);
            const char *argv[34] = {BUILD_DIR "/bin/igemm"};
            memcpy(argv + 1, a, sizeof a);
            snprintf(out, sizeof out, "%s.out%d", db, i);
            int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
                _exit(127);
            execv(argv[0], (char **)argv);
            _exit(127);
        }
        assert_true(pid[i] > 0);
    }
    int bad = 0;
    for (int i = 0; i < procs; i++) {
        int ws;
        waitpid(pid[i], &ws, 0);
        bad += !WIFEXITED(ws) || WEXITSTATUS(ws);
    }
    int n = count_records(db);
    if (bad || n != procs + extra)
        print_message("%d of %d finds failed; %d records, want %d\n", bad, procs, n, procs + extra);
    return bad || n != procs + extra;
}

/* N processes running find on one database at once lose nothing, on a
 * fresh file and on a large one (20000 records of other targets).
 * IGEMM_PERFDB_TRIALS trials of each (default 2; `make perfdb-stress` runs
 * 100). Before the lock and the merge under it: 4 of 40 trials lost
 * records on a fresh file, 20 of 20 on a large one. */
static void item12_perfdb_concurrent_finds(void **state)
{
    (void)state;
    const char *env = getenv("IGEMM_PERFDB_TRIALS");
    int trials = env ? atoi(env) : 2, lost = 0, procs = 6;
    char db[300];
    for (int t = 0; t < trials; t++) {
        in_dir(db, sizeof db, "fresh.db");
        unlink(db);
        lost += concurrent_finds(db, procs, 0);
        in_dir(db, sizeof db, "large.db");
        big_db(db, 20000);
        lost += concurrent_finds(db, procs, 20000);
    }
    print_message("perf-db: %d trials of %d concurrent finds on a fresh and a 20000-record file: %d lost records\n",
                  trials, procs, lost);
    assert_int_equal(lost, 0);
}

/* 100000 records load, all of them findable (the load is linear: a hash
 * index; before, each record was compared with all before it). */
static void item12_perfdb_large_load(void **state)
{
    (void)state;
    char db[300];
    in_dir(db, sizeof db, "huge.db");
    big_db(db, 100000);
    perfdb d;
    char warn[256], why[256];
    assert_int_equal(perfdb_load(&d, db, warn, sizeof warn, why, sizeof why), IGEMM_OK);
    assert_int_equal(d.n, 100000);
    assert_string_equal(warn, "");
    for (int i = 0; i < 100000; i += 997) {
        char arch[16], key[32];
        snprintf(arch, sizeof arch, "t%d", i % 7);
        snprintf(key, sizeof key, "n%d,c1", i);
        const perfdb_rec *r = perfdb_find(&d, arch, key, "cycles");
        assert_non_null(r);
        assert_true(r->cost == i);
        assert_null(perfdb_find(&d, arch, key, "ms"));
    }
    perfdb_free(&d);
    unlink(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(item1_weights_over_4gib_refused),
        cmocka_unit_test(item1_v4r1_gemm_n_split),
        cmocka_unit_test(item2_metadata_ranges),
        cmocka_unit_test(item2_misaligned_symbol_table),
        cmocka_unit_test(item3_endless_kernel_stops),
        cmocka_unit_test(item3_default_budget),
        cmocka_unit_test(item3_input_files),
        cmocka_unit_test(item4_failed_write_keeps_old_file),
        cmocka_unit_test(item4_device_never_removed),
        cmocka_unit_test(item5_stdout_write_errors),
        cmocka_unit_test(item6_empty_or_directory_code_object),
        cmocka_unit_test(item7_api),
        cmocka_unit_test(item8_check_before_allocating),
        cmocka_unit_test(item9_invalid_costs_not_stored),
        cmocka_unit_test(item10_messages),
        cmocka_unit_test(item11_nonfinite_data),
        cmocka_unit_test(item11_guard_in_kernel),
        cmocka_unit_test(item12_perfdb_keeps_and_refuses),
        cmocka_unit_test(item12_perfdb_concurrent_finds),
        cmocka_unit_test(item12_perfdb_large_load),
        cmocka_unit_test(item13_code_object_at_odd_offset),
        cmocka_unit_test(item13_free_checks),
        cmocka_unit_test(item13_verify_allocates_before_run),
        cmocka_unit_test(item13_messages),
    };
    if (getenv("TEST_FILTER")) /* one test by name pattern, while developing */
        cmocka_set_test_filter(getenv("TEST_FILTER"));
    return cmocka_run_group_tests(tests, setup, teardown);
}
