/* Code object targets and offload bundles:
 *  - every generated code object's metadata has amdhsa.target (read back by
 *    llvm-readelf, not by our loader), and the emulator refuses one whose
 *    amdhsa.target names another processor;
 *  - the bundle make writes with clang-offload-bundler loads on every target
 *    through igemm_options.codeobj_dir and verifies;
 *  - bundles this test writes itself in the documented format (its own
 *    writer below): the entry chosen by the device's target ID features,
 *    through the library's chooser and through the HIP double with a
 *    featured gcnArchName; malformed ones refused with a one-line reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../conv/util.h"
#include "../emu/emu.h"
#include "../arch/target.h"
#include "../include/igemm.h"
#include "../runtime/bundle.h"
#include "common.h"

static const char *const archs[] = {TC_ARCH_LIST};
#define NARCH 4

static char dir[] = "/tmp/igemm-bundle-XXXXXX";

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd);
}

/* ---- a bundle writer of our own, from the format's description ---- */

typedef struct {
    const char *id;
    const void *data;
    size_t size;
} wentry;

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* magic, count, per entry offset/size/ID length/ID, then the bytes (8-aligned) */
static unsigned char *write_bundle(const wentry *e, int n, size_t *size)
{
    size_t hdr = 24 + 8;
    for (int i = 0; i < n; i++)
        hdr += 24 + strlen(e[i].id);
    size_t total = (hdr + 7) / 8 * 8;
    for (int i = 0; i < n; i++)
        total += (e[i].size + 7) / 8 * 8;
    unsigned char *b = calloc(1, total), *p = b;
    assert_non_null(b);
    memcpy(p, "__CLANG_OFFLOAD_BUNDLE__", 24);
    put64(p + 24, (uint64_t)n);
    p += 32;
    size_t at = (hdr + 7) / 8 * 8;
    for (int i = 0; i < n; i++) {
        size_t idl = strlen(e[i].id);
        put64(p, at);
        put64(p + 8, e[i].size);
        put64(p + 16, idl);
        memcpy(p + 24, e[i].id, idl);
        p += 24 + idl;
        if (e[i].size)
            memcpy(b + at, e[i].data, e[i].size);
        at += (e[i].size + 7) / 8 * 8;
    }
    *size = total;
    return b;
}

static void save(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
}

/* A fresh directory dir/<name> holding only igemm.hipfb = data. */
static const char *bundle_dir(const char *name, const void *data, size_t size)
{
    static char d[300];
    char path[400];
    snprintf(d, sizeof d, "%s/%s", dir, name);
    assert_int_equal(mkdir(d, 0755), 0);
    snprintf(path, sizeof path, "%s/igemm.hipfb", d);
    save(path, data, size);
    return d;
}

static void *built_codeobj(const char *arch, size_t *size)
{
    char path[300];
    void *img = read_file(tc_codeobj_path(arch, path, sizeof path), size);
    assert_non_null(img);
    return img;
}

/* ---- amdhsa.target ---- */

static void amdhsa_target_in_every_code_object(void **state)
{
    (void)state;
    for (int i = 0; i < NARCH; i++) {
        char co[300], cmd[800], log[400], err[2000];
        snprintf(log, sizeof log, "%s/notes-%s.txt", dir, archs[i]);
        snprintf(cmd, sizeof cmd, "%s/llvm-readelf --notes %s > %s", LLVM_BIN,
                 tc_codeobj_path(archs[i], co, sizeof co), log);
        if (tc_system(cmd, log, err, sizeof err))
            fail_msg("%s", err);
        size_t n;
        char *notes = read_file(log, &n), want[128];
        assert_non_null(notes);
        tc_normalize(notes); /* every run of blanks and newlines to one space */
        snprintf(want, sizeof want, " amdhsa.target: amdgcn-amd-amdhsa--%s amdhsa.version: ", archs[i]);
        tc_expect_contains(notes, want);
        free(notes);
    }
}

/* The gfx906 code object with its amdhsa.target rewritten to another
 * processor of the same length: the emulator refuses it and says why. */
static void mismatched_amdhsa_target_refused(void **state)
{
    (void)state;
    size_t size;
    unsigned char *img = built_codeobj("gfx906", &size);
    const char *from = "amdgcn-amd-amdhsa--gfx906";
    size_t fl = strlen(from);
    int patched = 0;
    for (size_t i = 0; i + fl <= size; i++)
        if (!memcmp(img + i, from, fl)) {
            memcpy(img + i + fl - 6, "gfx90a", 6);
            patched++;
        }
    assert_true(patched >= 1);
    emu_device *d = emu_create(target_by_name("gfx906"), &(emu_options){.threads = 1});
    assert_non_null(d);
    emu_module *m = NULL;
    char err[512] = "";
    assert_int_not_equal(emu_load(d, img, size, &m, err, sizeof err), 0);
    tc_expect_contains(err, "amdhsa.target 'amdgcn-amd-amdhsa--gfx90a' is not amdgcn-amd-amdhsa--gfx906");
    /* the original loads and reports its target */
    free(img);
    img = built_codeobj("gfx906", &size);
    assert_int_equal(emu_load(d, img, size, &m, err, sizeof err), 0);
    assert_string_equal(emu_module_target(m), "amdgcn-amd-amdhsa--gfx906");
    emu_module_free(m);
    emu_destroy(d);
    free(img);
}

/* ---- the bundle make writes ---- */

static void check_pass(tc_result *r)
{
    if (r->status)
        fail_msg("%s: exit %d: %s", r->cmd, r->status, r->err);
    tc_expect_contains(r->out, "PASS");
}

static void built_bundle_runs_on_every_target(void **state)
{
    (void)state;
    size_t size;
    char path[300];
    snprintf(path, sizeof path, "%s/co/igemm.hipfb", BUILD_DIR);
    void *b = read_file(path, &size);
    assert_non_null(b);
    const char *d = bundle_dir("built", b, size);
    free(b);
    for (int i = 0; i < NARCH; i++) {
        tc_result r;
        const char *args[] = {"conv", "-n", "1", "-c", "8", "-H", "9", "-W", "9", "-k", "8", "-y", "3", "-x", "3",
                              "-p", "1", "-q", "1", "-u", "2", "-v", "2", "-V", "1", "--arch", archs[i],
                              "--codeobj-dir", d, NULL};
        tc_run_igemm(&r, args);
        check_pass(&r);
        tc_result_free(&r);
    }
}

/* ---- choosing an entry ---- */

static void entry_chosen_by_features(void **state)
{
    (void)state;
    static const char x = 0;
    const wentry e[] = {
        {"host-x86_64-unknown-linux-gnu-", &x, 0},
        {"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", "a", 1},
        {"hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", "bb", 2},
        {"hipv4-amdgcn-amd-amdhsa--gfx90a", "ccc", 3},
        {"hipv4-amdgcn-amd-amdhsa--gfx908", "dddd", 4},
        {"hip-amdgcn-amd-amdhsa-gfx906", "eeeee", 5}, /* an older clang's three-part triple */
    };
    size_t size;
    unsigned char *img = write_bundle(e, 6, &size);
    bundle b;
    char why[1200] = "";
    assert_true(bundle_is(img, size));
    assert_int_equal(bundle_parse(img, size, &b, why, sizeof why), 0);
    assert_int_equal(b.n, 6);
    for (int i = 0; i < 6; i++) {
        assert_string_equal(b.e[i].id, e[i].id);
        assert_int_equal(b.e[i].size, e[i].size);
        assert_memory_equal(img + b.e[i].offset, e[i].data, e[i].size);
    }
    static const struct {
        const char *device;
        int entry;
    } want[] = {
        {"gfx90a:sramecc+:xnack-", 2}, /* both settings match: the most specific */
        {"gfx90a:sramecc-:xnack-", 3}, /* xnack+ and sramecc+ do not run: the generic one */
        {"gfx90a:sramecc-:xnack+", 1},
        {"gfx90a:xnack+", 1},          /* sramecc unstated by the device, xnack+ stated by both */
        {"gfx90a", 2},                 /* the emulator states nothing: every gfx90a entry runs */
        {"gfx908:sramecc+:xnack-", 4},
        {"gfx906", 5},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int got = bundle_pick(&b, want[i].device, why, sizeof why);
        if (got != want[i].entry)
            fail_msg("device %s: entry %d, expected %d (%s)", want[i].device, got, want[i].entry, why);
    }
    /* no entry: the reason lists the bundle's entries, on one line */
    const char *none[] = {"gfx942", "gfx90", "gfx90a0"};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(bundle_pick(&b, none[i], why, sizeof why), -1);
        tc_expect_contains(why, "offload bundle has no entry for ");
        tc_expect_contains(why, none[i]);
        tc_expect_contains(why, "hipv4-amdgcn-amd-amdhsa--gfx908");
        assert_null(strchr(why, '\n'));
    }
    bundle_free(&b);
    free(img);
}

/* Through the HIP double with a featured gcnArchName: the entry stated for
 * xnack+ holds the gfx906 code object (a wrong pick fails to load), the
 * xnack- one the gfx90a code object. */
static void hip_device_features_pick_the_entry(void **state)
{
    (void)state;
    size_t s906, s90a, size;
    void *c906 = built_codeobj("gfx906", &s906), *c90a = built_codeobj("gfx90a", &s90a);
    const wentry e[] = {
        {"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", c906, s906},
        {"hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", c90a, s90a},
    };
    unsigned char *img = write_bundle(e, 2, &size);
    const char *d = bundle_dir("hip", img, size);
    setenv("IGEMM_HIP_LIBRARY", BUILD_DIR "/lib/libigemm_hipemu.so", 1);
    setenv("IGEMM_HIPEMU_THREADS", "2", 1);
    const char *const gcn[] = {"gfx90a:sramecc+:xnack-", "gfx90a:sramecc+:xnack+"};
    for (int i = 0; i < 2; i++) {
        setenv("IGEMM_HIPEMU_ARCH", gcn[i], 1);
        tc_result r;
        const char *args[] = {"conv", "-n", "1", "-c", "8", "-H", "8", "-W", "8", "-k", "8", "-y", "3", "-x", "3",
                              "-p", "1", "-q", "1", "-V", "1", "--backend", "hip", "--codeobj-dir", d, NULL};
        tc_run_igemm(&r, args);
        if (!i)
            check_pass(&r);
        else {
            /* xnack+ picks the entry holding gfx906's code object: the double refuses it */
            assert_int_not_equal(r.status, 0);
            assert_true(tc_one_line(r.err));
        }
        tc_result_free(&r);
    }
    unsetenv("IGEMM_HIPEMU_ARCH");
    unsetenv("IGEMM_HIP_LIBRARY");
    free(img);
    free(c906);
    free(c90a);
}

/* ---- malformed bundles ---- */

/* An emulator handle for arch with its code objects from directory d. */
static igemm_status emu_handle_from(const char *d, const char *arch, igemm_handle **h, char *why, size_t len)
{
    igemm_options o = IGEMM_OPTIONS_INIT;
    o.backend = IGEMM_BACKEND_EMU;
    o.arch = arch;
    o.codeobj_dir = d;
    o.emu_threads = 2;
    return igemm_create(h, &o, why, len);
}

static void malformed_bundles_refused(void **state)
{
    (void)state;
    size_t good_size;
    const wentry e[] = {{"hipv4-amdgcn-amd-amdhsa--gfx906", "0123456789abcdef", 16},
                        {"hipv4-amdgcn-amd-amdhsa--gfx908", "fedcba9876543210", 16}};
    unsigned char *good = write_bundle(e, 2, &good_size);
    /* entry 0's table starts at 32: offset, size, ID length, ID (31 bytes); entry 1's at 87 */
    const size_t e0 = 32, e1 = 32 + 24 + 31;
    static const struct {
        const char *what, *expect;
        size_t at, cut; /* patch 8 bytes at 'at' with 'value' (at 0: none); cut: truncate to this size */
        uint64_t value;
    } bad[] = {
        {"truncated header", "truncated in its header", 0, 27, 0},
        {"no entries", "has no entries", 24, 0, 0},
        {"entry count too large", "entry count 1000 does not fit", 24, 0, 1000},
        {"entry count above the limit", "entry count 100000 is above", 24, 0, 100000},
        {"entry past the end", "runs past the end of the file", e1 + 8, 0, 1u << 20},
        {"offset past the end", "runs past the end of the file", e0, 0, ~0ull - 4},
        {"empty ID", "has an ID of 0 bytes", e0 + 16, 0, 0},
        {"ID longer than the file", "has an ID of", e1 + 16, 0, 1u << 30},
        {"truncated entry table", "truncated in entry 1's header", 0, e1 + 10, 0},
        {"duplicate ID", "has the entry hipv4-amdgcn-amd-amdhsa--gfx906 twice", 0, 0, 0},
        {"compressed", "compressed offload bundle", 0, 0, 0},
        {"non-printable ID", "not printable", 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t size = bad[i].cut ? bad[i].cut : good_size;
        unsigned char *img = malloc(good_size);
        assert_non_null(img);
        memcpy(img, good, good_size);
        if (bad[i].at)
            put64(img + bad[i].at, bad[i].value);
        if (strstr(bad[i].what, "duplicate"))
            memcpy(img + e1 + 24 + 29, "06", 2); /* gfx908 -> gfx906 */
        if (!strcmp(bad[i].what, "compressed"))
            memcpy(img, "CCOB", 4);
        if (strstr(bad[i].what, "non-printable"))
            img[e0 + 24 + 3] = '\n';
        char name[32];
        snprintf(name, sizeof name, "bad%zu", i);
        const char *d = bundle_dir(name, img, size);
        igemm_handle *h = NULL;
        char why[1600] = "";
        igemm_status st = emu_handle_from(d, "gfx906", &h, why, sizeof why);
        if (st != IGEMM_ERR_NO_CODE_OBJECT || !strstr(why, bad[i].expect) || strchr(why, '\n') ||
            !strstr(why, "igemm.hipfb"))
            fail_msg("%s: status %d, '%s' (expected the words '%s' on one line naming the file)", bad[i].what,
                     (int)st, why, bad[i].expect);
        igemm_destroy(h);
        /* the CLI: non-zero exit, one line */
        if (i == 0 || i == 4) {
            tc_result r;
            const char *args[] = {"conv", "-n", "1", "-c", "8", "-H", "8", "-W", "8", "-k", "8", "-y", "1", "-x",
                                  "1", "--codeobj-dir", d, NULL};
            tc_run_igemm(&r, args);
            assert_int_not_equal(r.status, 0);
            assert_true(tc_one_line(r.err));
            tc_expect_contains(r.err, bad[i].expect);
            tc_result_free(&r);
        }
        free(img);
    }
    free(good);
}

/* A bundle without the asked target: the reason names the targets the
 * directory does have (from the bundle's entries). */
static void missing_target_names_the_available_ones(void **state)
{
    (void)state;
    size_t s908, size;
    void *c908 = built_codeobj("gfx908", &s908);
    const wentry e[] = {{"hipv4-amdgcn-amd-amdhsa--gfx908", c908, s908}};
    unsigned char *img = write_bundle(e, 1, &size);
    const char *d = bundle_dir("only908", img, size);
    igemm_handle *h = NULL;
    char why[1600] = "";
    assert_int_equal(emu_handle_from(d, "gfx906", &h, why, sizeof why), IGEMM_ERR_NO_CODE_OBJECT);
    tc_expect_contains(why, "offload bundle has no entry for gfx906");
    tc_expect_contains(why, "usable code objects for: gfx908)");
    assert_int_equal(emu_handle_from(d, "gfx908", &h, why, sizeof why), IGEMM_OK);
    assert_string_equal(igemm_handle_arch(h), "gfx908");
    igemm_destroy(h);
    free(img);
    free(c908);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(amdhsa_target_in_every_code_object),
        cmocka_unit_test(mismatched_amdhsa_target_refused),
        cmocka_unit_test(built_bundle_runs_on_every_target),
        cmocka_unit_test(entry_chosen_by_features),
        cmocka_unit_test(hip_device_features_pick_the_entry),
        cmocka_unit_test(malformed_bundles_refused),
        cmocka_unit_test(missing_target_names_the_available_ones),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
