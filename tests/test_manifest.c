/* igemm manifest against values computed here, not by the manifest's code:
 *  - the argument layouts: every field's offset and size by offsetof/sizeof
 *    of arch/kargs.h's structs, the phase table's place and columns by the
 *    PH_* words; the phase table decoded, with the manifest's own offsets,
 *    from a real launch's arguments equals the phases worked out here;
 *  - the tiles: MPB x NPB x KPB and the thread count read from each
 *    configuration's kernel name; its LDS bytes equal its kernel's
 *    group_segment_size in the code object's metadata;
 *  - per code object: target ID, code object version and e_flags/features
 *    as llvm-readelf prints them and the generated .s declares them;
 *  - sha256 of every file and bundle entry as sha256sum computes it (and of
 *    buffers whose lengths straddle SHA-256's padding boundaries);
 *  - the JSON is indented (one member a line). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../arch/kargs.h"
#include "../conv/solver.h"
#include "../conv/util.h"
#include "../include/igemm.h"
#include "../runtime/sha256.h"
#include "common.h"

static const char *const archs[] = {TC_ARCH_LIST};
#define NARCH 4

static char dir[] = "/tmp/igemm-manifest-XXXXXX";
static char codir[200];
static char *man;      /* the manifest of codir (the four code objects and the bundle) */
static char *man_emb;  /* the manifest of the embedded code objects */

static char *sh_out(const char *cmd)
{
    char log[300], full[1200], err[2000];
    snprintf(log, sizeof log, "%s/out.txt", dir);
    snprintf(full, sizeof full, "%s > %s", cmd, log);
    if (tc_system(full, log, err, sizeof err))
        fail_msg("%s", err);
    size_t n;
    char *s = read_file(log, &n);
    assert_non_null(s);
    return s;
}

static char *run_manifest(const char *codeobj_dir, const char *name)
{
    char out[300];
    snprintf(out, sizeof out, "%s/%s", dir, name);
    tc_result r;
    const char *with[] = {"manifest", "--codeobj-dir", codeobj_dir, "-o", out, NULL};
    const char *without[] = {"manifest", "-o", out, NULL};
    tc_run_igemm(&r, codeobj_dir ? with : without);
    if (r.status)
        fail_msg("%s: exit %d: %s", r.cmd, r.status, r.err);
    tc_result_free(&r);
    size_t n;
    char *m = read_file(out, &n);
    assert_non_null(m);
    return m;
}

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    snprintf(codir, sizeof codir, "%s/co", dir);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "mkdir %s && cp %s/co/gfx906.hsaco %s/co/gfx908.hsaco %s/co/gfx90a.hsaco "
             "%s/co/gfx942.hsaco %s/co/igemm.hipfb %s", codir, BUILD_DIR, BUILD_DIR, BUILD_DIR, BUILD_DIR,
             BUILD_DIR, codir);
    return system(cmd);
}

static int teardown(void **state)
{
    (void)state;
    free(man);
    free(man_emb);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd);
}

/* The integer after needle (and after the next ": " in it), in text. */
static long long num_after(const char *text, const char *needle)
{
    const char *p = strstr(text, needle);
    if (!p)
        fail_msg("manifest has no '%s'", needle);
    p += strlen(needle);
    char *end;
    long long v = strtoll(p, &end, 10);
    if (end == p)
        fail_msg("no number after '%s'", needle);
    return v;
}

static void build_manifests(void **state)
{
    (void)state;
    man = run_manifest(codir, "m.json");
    man_emb = run_manifest(NULL, "m-embedded.json");
}

/* ---- layouts ---- */

#define EXPECT_FIELD(type, name, desc)                                                                               \
    snprintf(want, sizeof want, "{\"name\": \"%s\", \"type\": \"%s\", \"offset\": %zu, \"size\": %zu, \"desc\": \"%s\"}", \
             #name, #type, offsetof(STRUCT, name), sizeof(((STRUCT *)0)->name), desc);                               \
    tc_expect_contains(layout, want);

/* Where "key": "value" first stands in m (the test fails when nowhere). */
static const char *member(const char *m, const char *key, const char *value)
{
    char k[200];
    snprintf(k, sizeof k, "\"%s\": \"%s\"", key, value);
    const char *p = strstr(m, k);
    if (!p)
        fail_msg("the manifest has no %s", k);
    return p;
}

static const char *layout_of(const char *name) { return member(man, "struct", name); }

static void layouts_are_the_structs(void **state)
{
    (void)state;
    char want[400];
    const char *layout;
#define CHECK_LAYOUT(list, strct)                                                                                    \
    layout = layout_of(#strct);                                                                                      \
    list(EXPECT_FIELD)
#define STRUCT igemm_naive_args
    CHECK_LAYOUT(IGEMM_NAIVE_ARGS, igemm_naive_args)
#undef STRUCT
#define STRUCT igemm_fill_args
    CHECK_LAYOUT(IGEMM_FILL_ARGS, igemm_fill_args)
#undef STRUCT
#define STRUCT igemm_w_kyxc_args
    CHECK_LAYOUT(IGEMM_W_KYXC_ARGS, igemm_w_kyxc_args)
#undef STRUCT
#define STRUCT igemm_static_args
    CHECK_LAYOUT(IGEMM_STATIC_ARGS, igemm_static_args)
#undef STRUCT
#define STRUCT igemm_v4r1_args
    CHECK_LAYOUT(IGEMM_V4R1_ARGS, igemm_v4r1_args)
#undef STRUCT
    assert_int_equal(num_after(layout, "\"size\": "), sizeof(igemm_v4r1_args));
    /* the phase table: the struct's last field, 16 rows of 8 words, then the struct's tail padding */
    size_t ph = offsetof(igemm_v4r1_args, ph), ph_end = ph + sizeof(((igemm_v4r1_args *)0)->ph);
    snprintf(want, sizeof want, "{\"name\": \"ph\", \"type\": \"U32[%d][%d]\", \"offset\": %zu, \"size\": %zu,",
             V4R1_MAX_PHASES, PH_WORDS, ph, sizeof(((igemm_v4r1_args *)0)->ph));
    tc_expect_contains(layout, want);
    const char *t = strstr(layout, "\"phase_table\": {");
    assert_non_null(t);
    assert_int_equal(num_after(t, "\"offset\": "), ph);
    assert_int_equal(num_after(t, "\"rows\": "), V4R1_MAX_PHASES);
    assert_int_equal(num_after(t, "\"row_bytes\": "), 4 * PH_WORDS);
    assert_int_equal(num_after(t, "\"padding_after\": "), sizeof(igemm_v4r1_args) - ph_end);
    /* the generator's metadata argument for the table lies where the struct's does */
    const char *k = strstr(strstr(man, "\"code_objects\": ["), "{\"name\": \"phases\", \"offset\": ");
    assert_non_null(k);
    assert_int_equal(num_after(k, "\"offset\": "), ph);
    assert_int_equal(num_after(k, "\"size\": "), ph_end - ph);
    tc_expect_contains(t, "\"metadata_arg\": \"phases\"");
    static const struct {
        const char *name;
        int word;
    } cols[] = {{"tap_offset", PH_WOFF}, {"k_steps", PH_STEPS}, {"ydot_slice", PH_YDOT}, {"xdot_slice", PH_XDOT},
                {"hi_off", PH_HI_OFF}, {"wi_off", PH_WI_OFF}, {"split", PH_SPLIT}, {"guard", PH_GUARD}};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
        snprintf(want, sizeof want, "{\"name\": \"%s\", \"word\": %d, \"offset_in_row\": %d,", cols[i].name,
                 cols[i].word, 4 * cols[i].word);
        tc_expect_contains(t, want);
    }
}

/* A launch's phase rows, decoded with the manifest's offsets, against the
 * phases of a stride-2 3x3 pad-1 problem worked out here: (iy, ix) in
 * {0,1}^2 row-major, ydot = ceil((3 - iy) / 2), hi_off = iy * 1 - 1, w's
 * tap offset (iy * 3 + ix) * 4 bytes (fp32 K, C, Y, X), K steps ydot * xdot
 * (8 channels: one K block). */
static void phase_table_decodes_a_launch(void **state)
{
    (void)state;
    const char *layout = layout_of("igemm_v4r1_args");
    const char *t = strstr(layout, "\"phase_table\": {");
    assert_non_null(t);
    long long ph = num_after(t, "\"offset\": "), row = num_after(t, "\"row_bytes\": ");
    long long w_to = num_after(t, "{\"name\": \"tap_offset\", \"word\": ");
    long long w_ks = num_after(t, "{\"name\": \"k_steps\", \"word\": ");
    long long w_yd = num_after(t, "{\"name\": \"ydot_slice\", \"word\": ");
    long long w_xd = num_after(t, "{\"name\": \"xdot_slice\", \"word\": ");
    long long w_ho = num_after(t, "{\"name\": \"hi_off\", \"word\": ");
    long long w_wo = num_after(t, "{\"name\": \"wi_off\", \"word\": ");
    long long w_gd = num_after(t, "{\"name\": \"guard\", \"word\": ");
    long long o_yt = num_after(layout, "{\"name\": \"ytilda\", \"type\": \"U32\", \"offset\": ");
    long long o_nkb = num_after(layout, "{\"name\": \"nkb\", \"type\": \"U32\", \"offset\": ");
    long long o_sw = num_after(layout, "{\"name\": \"stride_w\", \"type\": \"U32\", \"offset\": ");

    const char *sol = NULL;
    for (int i = 0; i < solver_count() && !sol; i++)
        if (solver_get(i)->kind == SOLVER_V4R1 && solver_get(i)->layout == IGEMM_LAYOUT_NCHW &&
            solver_get(i)->dtype == IGEMM_FP32 && !strstr(solver_get(i)->name, "_kyxc"))
            sol = solver_get(i)->name;
    assert_non_null(sol);
    igemm_handle *h = tc_emu_handle("gfx906", NULL, 1);
    igemm_problem p = IGEMM_PROBLEM_INIT;
    p.n = 1, p.c = 8, p.hi = 9, p.wi = 9, p.k = 8, p.y = 3, p.x = 3, p.pad_h = 1, p.pad_w = 1, p.stride_h = 2,
    p.stride_w = 2;
    igemm_launch l[8];
    int n = 0;
    assert_int_equal(igemm_get_launches(h, &p, sol, l, 8, &n), IGEMM_OK);
    int found = 0;
    for (int k = 0; k < n; k++) {
        if (strcmp(l[k].kernel, sol))
            continue;
        found++;
        uint32_t v;
#define WORD(off) (memcpy(&v, l[k].args + (off), 4), v)
        assert_int_equal(WORD(o_yt), 2);
        assert_int_equal(WORD(o_sw), 2);
        assert_int_equal(WORD(o_nkb), 1);
        for (int r = 0; r < V4R1_MAX_PHASES; r++) {
            long long base = ph + r * row;
            int iy = r / 2, ix = r % 2;
            uint32_t e_to = r < 4 ? (uint32_t)(iy * 3 + ix) * 4 : 0;
            uint32_t e_yd = r < 4 ? (uint32_t)((3 - iy + 1) / 2) : 0, e_xd = r < 4 ? (uint32_t)((3 - ix + 1) / 2) : 0;
            uint32_t e_ks = e_yd * e_xd;
            uint32_t e_ho = r < 4 ? (uint32_t)(iy - 1) : 0, e_wo = r < 4 ? (uint32_t)(ix - 1) : 0;
            /* pad 1: row 0's tap y = 2 reads dy row -1/2, outside dy, so the band is not empty */
            uint32_t e_gd = r < 4 ? 1 : 0;
            if (WORD(base + 4 * w_to) != e_to || WORD(base + 4 * w_ks) != e_ks || WORD(base + 4 * w_yd) != e_yd ||
                WORD(base + 4 * w_xd) != e_xd || WORD(base + 4 * w_ho) != e_ho || WORD(base + 4 * w_wo) != e_wo ||
                WORD(base + 4 * w_gd) != e_gd)
                fail_msg("phase row %d does not decode to tap offset %u, %u K steps, ydot %u xdot %u hi_off %d wi_off "
                         "%d guard %u", r, e_to, e_ks, e_yd, e_xd, (int)e_ho, (int)e_wo, e_gd);
        }
#undef WORD
    }
    assert_int_equal(found, 1);
    /* 1x1, no padding, stride 1: every tap of every pixel lies in dy, no band, guard 0 */
    p.y = p.x = 1, p.pad_h = p.pad_w = 0, p.stride_h = p.stride_w = 1;
    assert_int_equal(igemm_get_launches(h, &p, sol, l, 8, &n), IGEMM_OK);
    found = 0;
    for (int k = 0; k < n; k++)
        if (!strcmp(l[k].kernel, sol)) {
            uint32_t v;
            memcpy(&v, l[k].args + ph + 4 * w_gd, 4);
            assert_int_equal(v, 0);
            found++;
        }
    assert_int_equal(found, 1);
    igemm_destroy(h);
}

/* ---- configurations ---- */

/* The kernel's group_segment_size in the first code object's metadata. */
static long long kernel_lds(const char *kernel)
{
    char key[200];
    snprintf(key, sizeof key, "\"name\": \"%s\",\n", kernel);
    const char *co = strstr(man, "\"code_objects\": [");
    assert_non_null(co);
    const char *k = strstr(co, key);
    if (!k)
        fail_msg("no kernel %s in the code objects", kernel);
    return num_after(k, "\"group_segment_size\": ");
}

static void tiles_match_configurations(void **state)
{
    (void)state;
    int checked = 0;
    for (int i = 0; i < solver_count(); i++) {
        const solver *s = solver_get(i);
        if (s->kind != SOLVER_V4R1)
            continue;
        /* igemm_bwd_v4r1_<math>_<dtype>_<layout>_<M>x<N>x<K>_t<block>[...] */
        char math[8], dtype[8], layout[8];
        int m, nn, k, block;
        if (sscanf(s->name, "igemm_bwd_v4r1_%7[a-z]_%7[a-z0-9]_%7[a-z]_%dx%dx%d_t%d", math, dtype, layout, &m, &nn,
                   &k, &block) != 7)
            fail_msg("cannot read the tile from the name %s", s->name);
        for (char *c = layout; *c; c++)
            *c = (char)toupper((unsigned char)*c);
        /* fp16alt: fp16 tensors, staged as bf16 (--fp16_mode alt) */
        bool alt = !strcmp(dtype, "fp16alt");
        if (alt)
            snprintf(dtype, sizeof dtype, "fp16");
        char key[200], want[300];
        snprintf(key, sizeof key, "\"name\": \"%s\",\n", s->name);
        const char *sol = strstr(man, key);
        if (!sol)
            fail_msg("no solution %s", s->name);
        snprintf(want, sizeof want,
                 "\"tile\": {\"mpb\": %d, \"npb\": %d, \"kpb\": %d, \"block\": %d, \"math\": \"%s\", \"dtype\": \"%s\", "
                 "\"layout\": \"%s\", \"inst\": ",
                 m, nn, k, block, math, dtype, layout);
        const char *tile = strstr(sol, "\"tile\": {");
        assert_non_null(tile);
        if (strncmp(tile, want, strlen(want)))
            fail_msg("%s: %.200s, expected %s", s->name, tile, want);
        snprintf(want, sizeof want, "\"stage\": \"%s\"}", alt ? "bf16" : dtype);
        const char *derived = strstr(tile, "\"derived\": {"), *end = derived ? strchr(derived, '}') : NULL;
        if (!end || strncmp(end + 1 - strlen(want), want, strlen(want)))
            fail_msg("%s: derived %.300s does not end in %s", s->name, derived ? derived : "(none)", want);
        /* the derived LDS bytes are the kernel's, on a target that has it */
        if (strstr(man, "\"code_objects\": [") && s->available(s, target_by_name("gfx906"))) {
            char kernel[128]; /* a _kyxc solver launches its configuration's kernel */
            v4r1_kernel_name(s->cfg, kernel, sizeof kernel);
            assert_int_equal(num_after(tile, "\"lds_bytes\": "), kernel_lds(kernel));
        }
        checked++;
    }
    assert_true(checked > 0);
}

/* ---- code objects ---- */

static const char *code_object_of(const char *m, const char *arch) { return member(m, "arch", arch); }

static void expect_after(const char *from, const char *want)
{
    const char *next = strstr(from + 1, "\"arch\": ");
    const char *p = strstr(from, want);
    if (!p || (next && p > next))
        fail_msg("the code object at '%.40s' has no %s", from, want);
}

static const char *feature_setting(const char *readelf_flags, const char *name)
{
    /* "Flags: 0x53F, gfx90a, xnack, sramecc": the name alone is any, + on, - off, absent unsupported */
    const char *p = readelf_flags;
    size_t len = strlen(name);
    while ((p = strstr(p, name))) {
        if (p[-1] == ' ' && (p[len] == ',' || p[len] == '\n' || p[len] == '+' || p[len] == '-'))
            return p[len] == '+' ? "on" : p[len] == '-' ? "off" : "any";
        p += len;
    }
    return "unsupported";
}

static void code_object_facts_as_llvm_says(void **state)
{
    (void)state;
    for (int i = 0; i < NARCH; i++) {
        char co[300], cmd[600], want[200];
        snprintf(cmd, sizeof cmd, "%s/llvm-readelf -h %s | grep -E 'Flags:|ABI Version:'", LLVM_BIN,
                 tc_codeobj_path(archs[i], co, sizeof co));
        char *h = sh_out(cmd);
        const char *flags = strstr(h, "Flags:");
        assert_non_null(flags);
        unsigned long e_flags = strtoul(flags + 6, NULL, 16);
        /* the version the generated assembly declares */
        snprintf(cmd, sizeof cmd, "sed -n 's/^\\.amdhsa_code_object_version //p' %s/co/%s.s", BUILD_DIR, archs[i]);
        char *ver = sh_out(cmd);
        int version = atoi(ver);
        assert_true(version >= 4);
        for (int m = 0; m < 2; m++) {
            const char *c = code_object_of(m ? man_emb : man, archs[i]);
            snprintf(want, sizeof want, "\"target_id\": \"amdgcn-amd-amdhsa--%s\",", archs[i]);
            expect_after(c, want);
            snprintf(want, sizeof want, "\"code_object_version\": %d,", version);
            expect_after(c, want);
            snprintf(want, sizeof want, "\"e_flags\": \"0x%lx\",", e_flags);
            expect_after(c, want);
            snprintf(want, sizeof want, "\"features\": {\"xnack\": \"%s\", \"sramecc\": \"%s\"}",
                     feature_setting(flags, "xnack"), feature_setting(flags, "sramecc"));
            expect_after(c, want);
        }
        free(h);
        free(ver);
    }
}

/* ---- hashes ---- */

static void sha256sum_of(const char *path, char hex[SHA256_HEX])
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "sha256sum %s", path);
    char *o = sh_out(cmd);
    assert_true(strlen(o) > 64);
    memcpy(hex, o, 64);
    hex[64] = 0;
    free(o);
}

static void sha256_matches_sha256sum(void **state)
{
    (void)state;
    /* lengths around the padding boundaries (55/56 bytes of a block) */
    static const size_t lens[] = {0, 1, 3, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 1000};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        unsigned char buf[1000];
        for (size_t k = 0; k < lens[i]; k++)
            buf[k] = (unsigned char)(k * 131 + 7);
        char path[300], want[SHA256_HEX], got[SHA256_HEX];
        snprintf(path, sizeof path, "%s/buf%zu", dir, lens[i]);
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(buf, 1, lens[i], f), lens[i]);
        fclose(f);
        sha256sum_of(path, want);
        sha256_hex(buf, lens[i], got);
        if (strcmp(want, got))
            fail_msg("%zu bytes: %s, sha256sum says %s", lens[i], got, want);
    }
}

static void file_hashes_as_sha256sum(void **state)
{
    (void)state;
    const char *files = strstr(man, "\"files\": [");
    assert_non_null(files);
    char want[400], path[300], hex[SHA256_HEX];
    for (int i = 0; i < NARCH; i++) {
        snprintf(path, sizeof path, "%s/%s.hsaco", codir, archs[i]);
        sha256sum_of(path, hex);
        size_t size;
        void *img = read_file(path, &size);
        assert_non_null(img);
        free(img);
        snprintf(want, sizeof want, "\"file\": \"%s.hsaco\",\n      \"size\": %zu,\n      \"sha256\": \"%s\"",
                 archs[i], size, hex);
        tc_expect_contains(files, want);
        /* the bundle's entry holds the same bytes */
        snprintf(want, sizeof want, "{\"id\": \"hipv4-amdgcn-amd-amdhsa--%s\", \"offset\": ", archs[i]);
        const char *e = strstr(files, want);
        assert_non_null(e);
        snprintf(want, sizeof want, ", \"size\": %zu, \"sha256\": \"%s\"}", size, hex);
        assert_non_null(strstr(e, want));
        assert_true(strstr(e, want) < strchr(e, '}') + 1);
        /* and so does the embedded code object */
        snprintf(want, sizeof want, "\"sha256\": \"%s\",", hex);
        expect_after(code_object_of(man_emb, archs[i]), want);
        expect_after(code_object_of(man, archs[i]), want);
    }
    snprintf(path, sizeof path, "%s/igemm.hipfb", codir);
    sha256sum_of(path, hex);
    snprintf(want, sizeof want, "\"file\": \"igemm.hipfb\",");
    const char *b = strstr(files, want);
    assert_non_null(b);
    snprintf(want, sizeof want, "\"sha256\": \"%s\",", hex);
    assert_non_null(strstr(b, want));
    /* the bundle's IDs are those clang-offload-bundler lists */
    char cmd[400];
    snprintf(cmd, sizeof cmd, "%s/clang-offload-bundler -list -type=o -input=%s", LLVM_BIN, path);
    char *ids = sh_out(cmd);
    int nids = 0;
    for (char *line = strtok(ids, "\n"); line; line = strtok(NULL, "\n"), nids++) {
        snprintf(want, sizeof want, "{\"id\": \"%s\", ", line);
        tc_expect_contains(b, want);
    }
    assert_int_equal(nids, NARCH + 1);
    free(ids);
}

/* Indented: one member a line, two spaces a level, nothing very long. */
static void pretty_printed(void **state)
{
    (void)state;
    int lines = 0, longest = 0, len = 0;
    for (const char *p = man; *p; p++, len++)
        if (*p == '\n') {
            lines++;
            longest = len > longest ? len : longest;
            len = -1;
        }
    assert_true(lines > 1000);
    assert_true(longest < 400);
    tc_expect_contains(man, "{\n  \"format\": \"igemm-manifest-1\",\n  \"igemm_version\": ");
    tc_expect_contains(man, "\n  \"argument_layouts\": [\n    {\n      \"struct\": \"igemm_naive_args\",\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(build_manifests),
        cmocka_unit_test(layouts_are_the_structs),
        cmocka_unit_test(phase_table_decodes_a_launch),
        cmocka_unit_test(tiles_match_configurations),
        cmocka_unit_test(code_object_facts_as_llvm_says),
        cmocka_unit_test(sha256_matches_sha256sum),
        cmocka_unit_test(file_hashes_as_sha256sum),
        cmocka_unit_test(pretty_printed),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
