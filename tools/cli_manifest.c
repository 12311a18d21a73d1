/* igemm manifest: describe the code objects for libraries that load and
 * launch the kernels themselves.
 *
 *   igemm manifest [--codeobj-dir DIR] [-o FILE.json]
 *
 * The JSON (indented) lists the argument layouts of arch/kargs.h with their
 * descriptions and the v4r1 phase table, every kernel configuration
 * ("solution") with its tile fields, the targets that have it and the
 * kernels its launch plans use, the applicability rules, the files read
 * (size, sha256; a bundle's entries) and, per target, the code object: its
 * target ID (amdhsa.target), code object version, xnack/sramecc settings,
 * sha256 and kernels as its metadata declares them (argument names,
 * offsets, sizes, kinds; kernarg size, registers, LDS). Without
 * --codeobj-dir the code objects embedded in the library are described. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../emu/emu.h"
#include "../runtime/bundle.h"
#include "../runtime/codeobj.h"
#include "../runtime/coinfo.h"
#include "../runtime/sha256.h"
#include "../include/igemm.h"
#include "../arch/kargs.h"
#include "../conv/ofile.h"
#include "../conv/solver.h"
#include "../conv/types.h"
#include "../conv/util.h"
#include "cli.h"
#include "json.h"

/* ---- kargs.h layouts ---- */

#define LAYOUT_FIELD(type, name, desc)                                                                               \
    jsep(j);                                                                                                         \
    jopen_flat(j, '{');                                                                                                   \
    jkv_str(j, "name", #name);                                                                                       \
    jkv_str(j, "type", #type);                                                                                       \
    jkv_int(j, "offset", (long long)offsetof(LAYOUT_STRUCT, name));                                                 \
    jkv_int(j, "size", (long long)sizeof(((LAYOUT_STRUCT *)0)->name));                                              \
    jkv_str(j, "desc", desc);                                                                                        \
    jclose(j, '}');

/* A layout's struct, the kernels that take it, its fields and (v4r1) the
 * phase table; the caller closes the object. */
#define LAYOUT(list, strct, users)                                                                                   \
    jsep(j);                                                                                                         \
    jopen(j, '{');                                                                                                   \
    jkv_str(j, "struct", #strct);                                                                                    \
    jkv_str(j, "kernels", users);                                                                                    \
    jkv_int(j, "size", (long long)sizeof(strct));                                                                   \
    jkey(j, "fields");                                                                                               \
    jopen(j, '[');                                                                                                   \
    list(LAYOUT_FIELD)

/* The words of one row of igemm_v4r1_args.ph, as v4r1_fill_args writes them. */
static const struct {
    int word;
    const char *name, *desc;
} phase_words[] = {
    {PH_WOFF, "tap_offset", "w's byte offset of the phase's first filter tap (iy, ix), iYTilda and iXTilda: iy * "
                            "(w bytes per filter row) + ix * w_sx"},
    {PH_STEPS, "k_steps", "the row's K steps: ydot_slice * xdot_slice * nkb (a split kernel's row: the K blocks of "
                          "its split's range of channels instead of nkb); 0 for a phase without taps"},
    {PH_YDOT, "ydot_slice", "filter taps of the phase along h: ceil((fy - iy) / ytilda), 0 past the filter (the "
                            "phase stores zeros)"},
    {PH_XDOT, "xdot_slice", "filter taps of the phase along w: ceil((fx - ix) / xtilda), 0 past the filter (the "
                            "phase stores zeros)"},
    {PH_HI_OFF, "hi_off", "iy * dil_h - pad_h, two's complement"},
    {PH_WI_OFF, "wi_off", "ix * dil_w - pad_w, two's complement"},
    {PH_SPLIT, "split", "split kernels (_ksN): the row's split s, K channels [s * ks_chunk, + ks_chunk) of each "
                        "group, partial sums to p_dx + s * ks_slice; 0 for the unsplit kernels"},
    {PH_GUARD, "guard", "bit 0: dx's border band is not empty (a pixel has a tap outside dy), so the unsplit "
                        "kernels check their sums for NaN and recompute the band's (docs/KERNELS.md, non-finite "
                        "data); clear is right only when no tap falls outside dy. Bit 1: fp16_mode flush (gfx90a's "
                        "fp16 MFMA kernels skip their subnormal test)"},
};

/* The ph field of igemm_v4r1_args and its table: rows, words, columns. */
static void phase_table(json *j)
{
    const size_t off = offsetof(igemm_v4r1_args, ph), size = sizeof(((igemm_v4r1_args *)0)->ph);
    char type[32];
    snprintf(type, sizeof type, "U32[%d][%d]", V4R1_MAX_PHASES, PH_WORDS);
    jsep(j);
    jopen_flat(j, '{');
    jkv_str(j, "name", "ph");
    jkv_str(j, "type", type);
    jkv_int(j, "offset", (long long)off);
    jkv_int(j, "size", (long long)size);
    jkv_str(j, "desc", "phase table: one row per phase of the launch (see phase_table)");
    jclose(j, '}');
    jclose(j, ']');
    jkey(j, "phase_table");
    jopen(j, '{');
    jkv_str(j, "field", "ph");
    jkv_int(j, "offset", (long long)off);
    jkv_int(j, "rows", V4R1_MAX_PHASES);
    jkv_int(j, "row_bytes", (long long)sizeof(((igemm_v4r1_args *)0)->ph[0]));
    /* the struct's alignment (8, its pointers) pads it after the table: the
       kernels' kernarg size is the struct's */
    jkv_int(j, "padding_after", (long long)(sizeof(igemm_v4r1_args) - off - size));
    jkv_str(j, "metadata_arg", "phases");
    jkv_str(j, "rule", "row i holds the i-th non-empty phase of the launch; workgroup b computes phase b / wgs; "
                       "rows past the launch's phases are zero; the code objects' "
                       "metadata calls the table metadata_arg; padding_after zero bytes follow it");
    jkey(j, "columns");
    jopen(j, '[');
    for (size_t i = 0; i < sizeof phase_words / sizeof phase_words[0]; i++) {
        jsep(j);
        jopen_flat(j, '{');
        jkv_str(j, "name", phase_words[i].name);
        jkv_int(j, "word", phase_words[i].word);
        jkv_int(j, "offset_in_row", 4ll * phase_words[i].word);
        jkv_str(j, "desc", phase_words[i].desc);
        jclose(j, '}');
    }
    jclose(j, ']');
    jclose(j, '}');
}

static void layouts(json *j)
{
    jkey(j, "argument_layouts");
    jopen(j, '[');
#define LAYOUT_STRUCT igemm_naive_args
    LAYOUT(IGEMM_NAIVE_ARGS, igemm_naive_args, KERNEL_NAIVE)
    jclose(j, ']');
    jclose(j, '}');
#undef LAYOUT_STRUCT
#define LAYOUT_STRUCT igemm_fill_args
    LAYOUT(IGEMM_FILL_ARGS, igemm_fill_args, KERNEL_FILL)
    jclose(j, ']');
    jclose(j, '}');
#undef LAYOUT_STRUCT
#define LAYOUT_STRUCT igemm_w_kyxc_args
    LAYOUT(IGEMM_W_KYXC_ARGS, igemm_w_kyxc_args, KERNEL_W_KYXC ", " KERNEL_W_KYXC16)
    jclose(j, ']');
    jclose(j, '}');
#undef LAYOUT_STRUCT
#define LAYOUT_STRUCT igemm_v4r1_args
    LAYOUT(IGEMM_V4R1_ARGS, igemm_v4r1_args, "igemm_bwd_v4r1_* (every v4r1 configuration's kernel)")
    phase_table(j);
    jclose(j, '}');
#undef LAYOUT_STRUCT
#define LAYOUT_STRUCT igemm_static_args
    LAYOUT(IGEMM_STATIC_ARGS, igemm_static_args, "static twins of the v4r1 kernels (igemm-bench only; not in "
                                                 "the code objects)")
    jclose(j, ']');
    jclose(j, '}');
#undef LAYOUT_STRUCT
    jclose(j, ']');
}

/* ---- configurations ---- */

/* Problems whose plans show which kernels a configuration launches: plain,
 * padded 3x3, strided (several phases), one with uncovered dx pixels whose
 * empty phases store the zeros, and one whose uncovered pixels (gcd(S, D)
 * = 2) need the zero fill. */
static const igemm_problem probes[] = {
    {.n = 1, .c = 8, .hi = 8, .wi = 8, .k = 8, .y = 1, .x = 1, .stride_h = 1, .stride_w = 1, .dil_h = 1, .dil_w = 1,
     .groups = 1},
    {.n = 1, .c = 8, .hi = 8, .wi = 8, .k = 8, .y = 3, .x = 3, .pad_h = 1, .pad_w = 1, .stride_h = 1, .stride_w = 1,
     .dil_h = 1, .dil_w = 1, .groups = 1},
    {.n = 1, .c = 8, .hi = 9, .wi = 9, .k = 8, .y = 3, .x = 3, .pad_h = 1, .pad_w = 1, .stride_h = 2, .stride_w = 2,
     .dil_h = 1, .dil_w = 1, .groups = 1},
    {.n = 1, .c = 8, .hi = 8, .wi = 8, .k = 8, .y = 1, .x = 1, .stride_h = 2, .stride_w = 2, .dil_h = 1, .dil_w = 1,
     .groups = 1},
    {.n = 1, .c = 8, .hi = 9, .wi = 9, .k = 8, .y = 3, .x = 3, .pad_h = 2, .pad_w = 2, .stride_h = 2, .stride_w = 2,
     .dil_h = 2, .dil_w = 2, .groups = 1},
};

static const char *kind_name(int kind)
{
    switch (kind) {
    case SOLVER_NAIVE: return "naive";
    case SOLVER_V4R1: return "v4r1";
    }
    return "other";
}

/* The rules a kind of configuration applies on top of igemm_problem_check. */
static const char *kind_rules(int kind)
{
    switch (kind) {
    case SOLVER_NAIVE:
        return "every valid problem whose single image (dx or dy of one n) stays below launch_max_bytes; one "
               "work-item per dx element";
    default:
        return "configuration-specific: ask igemm_applicable(), which returns the reason when it refuses";
    }
}

/* A v4r1 configuration's fields (conv/v4r1_config.h): the tile as chosen,
 * then what v4r1_config_derive made of it. */
static void tile(json *j, const v4r1_config *c)
{
    jkey(j, "tile");
    jopen_flat(j, '{');
    jkv_int(j, "mpb", c->mpb);
    jkv_int(j, "npb", c->npb);
    jkv_int(j, "kpb", c->kpb);
    jkv_int(j, "block", c->block);
    jkv_str(j, "math", igemm_math_get(c->math)->name);
    jkv_str(j, "dtype", igemm_dtype_get(c->dtype)->name);
    jkv_str(j, "layout", igemm_layout_get(c->layout)->upper);
    jkv_int(j, "inst", c->inst);
    jclose(j, '}');
    jkey(j, "derived");
    jopen_flat(j, '{');
    const struct {
        const char *k;
        int v;
    } d[] = {{"tx", c->tx},   {"ty", c->ty},   {"rm", c->rm},       {"rn", c->rn},           {"wgm", c->wgm},
             {"bm", c->bm},   {"bn", c->bn},   {"agprs", c->agprs}, {"wa", c->wa},           {"va", c->va},
             {"wb", c->wb},   {"vb", c->vb},   {"bpad", c->bpad},   {"bswz", c->bswz},
             {"lds_bytes", c->lds_bytes}, {"vgprs", c->vgprs}};
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
        jkv_int(j, d[i].k, d[i].v);
    jkv_str(j, "stage", igemm_dtype_get(v4r1_stage_type(c))->name); /* the LDS tiles' and MFMAs' type */
    jclose(j, '}');
}

static void solutions(json *j, igemm_handle *const *h, const char *const *arch, int nt)
{
    jkey(j, "solutions");
    jopen(j, '[');
    for (int i = 0; i < solver_count(); i++) {
        const solver *s = solver_get(i);
        jsep(j);
        jopen(j, '{');
        jkv_str(j, "name", s->name);
        jkv_str(j, "kind", kind_name(s->kind));
        jkv_str(j, "layout", igemm_layout_get(s->layout)->upper);
        jkv_str(j, "dtype", igemm_dtype_get(s->dtype)->name);
        jkv_str(j, "rules", kind_rules(s->kind));
        if (s->kind == SOLVER_V4R1)
            tile(j, s->cfg);
        jkey(j, "targets");
        jopen_flat(j, '[');
        for (int t = 0; t < nt; t++)
            if (s->available(s, target_by_name(arch[t]))) {
                jsep(j);
                jstr(j, arch[t]);
            }
        jclose(j, ']');
        /* kernels of the plans of the probe problems, on every target */
        char seen[64][128];
        int nseen = 0;
        for (int t = 0; t < nt; t++)
            for (size_t p = 0; p < sizeof probes / sizeof probes[0]; p++) {
                igemm_launch l[64];
                int n;
                igemm_problem pr = probes[p];
                pr.layout = s->layout, pr.dtype = s->dtype;
                if (igemm_get_launches(h[t], &pr, s->name, l, 64, &n) != IGEMM_OK)
                    continue;
                for (int k = 0; k < n; k++) {
                    int dup = 0;
                    for (int q = 0; q < nseen && !dup; q++)
                        dup = !strcmp(seen[q], l[k].kernel);
                    if (!dup && nseen < 64) {
                        size_t len = strnlen(l[k].kernel, sizeof seen[0] - 1);
                        memcpy(seen[nseen], l[k].kernel, len);
                        seen[nseen++][len] = 0;
                    }
                }
            }
        jkey(j, "kernels");
        jopen_flat(j, '[');
        for (int q = 0; q < nseen; q++) {
            jsep(j);
            jstr(j, seen[q]);
        }
        jclose(j, ']');
        jclose(j, '}');
    }
    jclose(j, ']');
}

/* ---- files and code objects ---- */

static void jkv_sha256(json *j, const void *data, size_t size)
{
    char hex[SHA256_HEX];
    sha256_hex(data, size, hex);
    jkv_str(j, "sha256", hex);
}

/* One file of the directory: its size and sha256; a bundle's entries too. */
static int describe_file(json *j, const char *dir, const char *name, char *why, size_t len)
{
    char path[1024];
    size_t size;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    void *data = read_file(path, &size);
    if (!data) {
        why_printf(why, len, "cannot read %s", path);
        return -1;
    }
    bundle b = {0};
    if (bundle_is(data, size) && bundle_parse(data, size, &b, why, len)) {
        free(data);
        return -1;
    }
    jsep(j);
    jopen(j, '{');
    jkv_str(j, "file", name);
    jkv_int(j, "size", (long long)size);
    jkv_sha256(j, data, size);
    if (b.n) {
        jkv_str(j, "format", "clang offload bundle (" BUNDLE_MAGIC ")");
        jkey(j, "entries");
        jopen(j, '[');
        for (int i = 0; i < b.n; i++) {
            jsep(j);
            jopen_flat(j, '{');
            jkv_str(j, "id", b.e[i].id);
            jkv_int(j, "offset", (long long)b.e[i].offset);
            jkv_int(j, "size", (long long)b.e[i].size);
            jkv_sha256(j, (const unsigned char *)data + b.e[i].offset, (size_t)b.e[i].size);
            jclose(j, '}');
        }
        jclose(j, ']');
    }
    jclose(j, '}');
    bundle_free(&b);
    free(data);
    return 0;
}

static int code_object(json *j, const char *arch, const codeobj_file *src, char *err, size_t errlen)
{
    coinfo ci;
    if (coinfo_read(src->image, src->size, &ci)) {
        snprintf(err, errlen, "not an AMDGPU HSA code object of a known version");
        return -1;
    }
    emu_device *d = emu_create(target_by_name(arch), &(emu_options){.threads = 1});
    emu_module *m = NULL;
    if (!d || emu_load(d, src->image, src->size, &m, err, errlen)) {
        if (!d)
            snprintf(err, errlen, "cannot create an emulator for %s", arch);
        emu_destroy(d);
        return -1;
    }
    jsep(j);
    jopen(j, '{');
    jkv_str(j, "arch", arch);
    if (src->file[0])
        jkv_str(j, "file", src->file);
    if (src->entry[0]) {
        jkv_str(j, "bundle_entry", src->entry);
        jkv_int(j, "offset", (long long)src->offset);
    }
    jkv_int(j, "size", (long long)src->size);
    jkv_sha256(j, src->image, src->size);
    jkv_str(j, "target_id", emu_module_target(m));
    jkv_int(j, "code_object_version", ci.version);
    char flags[16];
    snprintf(flags, sizeof flags, "0x%x", ci.e_flags);
    jkv_str(j, "e_flags", flags);
    jkey(j, "features");
    jopen_flat(j, '{');
    jkv_str(j, "xnack", ci.xnack);
    jkv_str(j, "sramecc", ci.sramecc);
    jclose(j, '}');
    jkey(j, "kernels");
    jopen(j, '[');
    for (int i = 0; i < emu_module_kernel_count(m); i++) {
        const emu_kernel_info *k = emu_kernel_get_info(emu_module_kernel(m, i));
        jsep(j);
        jopen(j, '{');
        jkv_str(j, "name", k->name);
        jkv_int(j, "kernarg_size", k->kernarg_size);
        jkv_int(j, "group_segment_size", k->lds_bytes);
        jkv_int(j, "vgprs", k->vgprs);
        jkv_int(j, "agprs", k->agprs);
        jkv_int(j, "sgprs", k->sgprs);
        jkv_int(j, "max_workgroup_size", k->max_block);
        jkey(j, "args");
        jopen(j, '[');
        for (int a = 0; a < k->nargs; a++) {
            jsep(j);
            jopen_flat(j, '{');
            jkv_str(j, "name", k->args[a].name);
            jkv_int(j, "offset", k->args[a].offset);
            jkv_int(j, "size", k->args[a].size);
            jkv_str(j, "kind", k->args[a].value_kind);
            jclose(j, '}');
        }
        jclose(j, ']');
        jclose(j, '}');
    }
    jclose(j, ']');
    jclose(j, '}');
    emu_module_free(m);
    emu_destroy(d);
    return 0;
}

/* The files of dir the manifest describes: every target's code object
 * file and the bundle when dir has one, each once. */
static int files(json *j, const char *dir, const codeobj_file *co, int nt, char *why, size_t len)
{
    jkey(j, "files");
    jopen(j, '[');
    int rc = 0, bundle_done = 0;
    for (int t = 0; t < nt && !rc; t++)
        if (!strcmp(co[t].file, CODEOBJ_BUNDLE))
            bundle_done = 1;
        else
            rc = describe_file(j, dir, co[t].file, why, len);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, CODEOBJ_BUNDLE);
    if (!rc && (bundle_done || !codeobj_file_check(path, NULL, 0)))
        rc = describe_file(j, dir, CODEOBJ_BUNDLE, why, len);
    jclose(j, ']');
    return rc;
}

int cmd_manifest(int argc, char **argv)
{
    const char *dir = NULL, *out = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            puts("usage: igemm manifest [--codeobj-dir DIR] [-o FILE.json]\n"
                 "Describes the code objects (DIR/<arch>.hsaco or the entries of DIR/" CODEOBJ_BUNDLE ", or the\n"
                 "embedded ones), their kernels, target IDs and hashes, the argument layouts, and the kernel\n"
                 "configurations with their tiles and applicability rules (indented JSON).");
            return 0;
        }
        if (strcmp(argv[i], "--codeobj-dir") && strcmp(argv[i], "-o"))
            return usage_error(argv[i][0] == '-' ? "unknown flag '%s'" : "unexpected argument '%s'", argv[i]);
        if (i + 1 >= argc)
            return usage_error("flag '%s' needs a value", argv[i]);
        if (!strcmp(argv[i], "--codeobj-dir"))
            dir = argv[++i];
        else
            out = argv[++i];
    }
    /* the targets, in table order */
    const char *arch[16];
    igemm_handle *h[16];
    codeobj_file co[16];
    int nt = 0, rc = 1;
    char why[1400];
    for (int t = 0; t < igemm_target_count && nt < 16; t++) {
        const char *a = igemm_targets[t]->name;
        memset(&co[nt], 0, sizeof co[nt]);
        if (dir) {
            int state = codeobj_dir_load(dir, a, a, &co[nt], why, sizeof why);
            if (state > 0)
                continue; /* the directory need not hold every target */
            if (state < 0) {
                rc = usage_error("%s", why);
                goto out;
            }
        } else {
            const igemm_codeobj *e = igemm_codeobj_find(a);
            if (!e)
                continue;
            co[nt].image = e->data;
            co[nt].size = e->size;
        }
        igemm_options o = IGEMM_OPTIONS_INIT;
        o.backend = IGEMM_BACKEND_EMU;
        o.arch = a;
        o.codeobj_dir = dir;
        o.emu_threads = 1;
        if (igemm_create(&h[nt], &o, why, sizeof why) != IGEMM_OK) {
            codeobj_file_free(&co[nt]);
            rc = cli_error(dir ? 2 : 1, "%s", why);
            goto out;
        }
        arch[nt++] = a;
    }
    if (!nt) {
        rc = usage_error("no code objects %s%s", dir ? "in " : "embedded", dir ? dir : "");
        goto out;
    }
    /* through a temporary file: a failed write leaves an older manifest */
    ofile of;
    if (ofile_open(&of, out, why, sizeof why)) {
        rc = cli_error(1, "%s", why);
        goto out;
    }
    FILE *f = of.f;
    json j = {.f = f, .first = 1};
    jopen(&j, '{');
    jkv_str(&j, "format", "igemm-manifest-1");
    jkv_str(&j, "igemm_version", igemm_version());
    jkey(&j, "problem");
    jopen(&j, '{');
    jkv_str(&j, "layouts", "NCHW, NHWC (dx, dy and the filter alike)");
    jkv_str(&j, "dtypes", "fp32, fp16, bf16 (dx, dy and w alike; fp32 accumulation; each configuration below "
                          "has one, its \"dtype\")");
    jkv_str(&j, "fp16_modes", "accurate (default), flush (fp16 also on kernels whose fp16 instructions flush "
                              "denormals: gfx90a's dot2 ones), alt (MIOpen's alternate implementation: fp16 rounded to bf16 "
                              "for the bf16 matrix instructions, the fp16alt configurations)");
    jkv_str(&j, "rules", "as igemm_problem_check(): every size, stride, dilation and group count >= 1, pads >= 0, "
                         "output size >= 1, groups divide c and k, tensors within the documented limits");
    jclose(&j, '}');
    jkv_int(&j, "launch_max_bytes", (long long)LAUNCH_MAX_BYTES);
    jkv_str(&j, "launch_rules",
            "32-bit buffer offsets: every tensor slice one launch touches stays below launch_max_bytes; larger "
            "batches are split across launches (igemm_get_launches gives the exact launches of a problem)");
    layouts(&j);
    solutions(&j, h, arch, nt);
    int bad = dir && files(&j, dir, co, nt, why, sizeof why);
    if (bad)
        cli_error(1, "%s", why);
    jkey(&j, "code_objects");
    jopen(&j, '[');
    for (int t = 0; t < nt && !bad; t++)
        if (code_object(&j, arch[t], &co[t], why, sizeof why)) {
            cli_error(1, "%s: %s", arch[t], why);
            bad = 1;
        }
    jclose(&j, ']');
    jclose(&j, '}');
    fputc('\n', f);
    if (bad) {
        ofile_abort(&of);
        goto out;
    }
    if (ofile_commit(&of, why, sizeof why)) {
        rc = cli_error(1, "%s", why);
        goto out;
    }
    rc = 0;
out:
    for (int t = 0; t < nt; t++) {
        igemm_destroy(h[t]);
        codeobj_file_free(&co[t]);
    }
    return rc;
}
