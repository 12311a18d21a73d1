/* Code object loading: ELF sections and symbols, the kernel descriptors
 * (<kernel>.kd), the NT_AMDGPU_METADATA note (MessagePack), and decoding of
 * every kernel's code with branch targets resolved. */
#include <elf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_int.h"
#include "msgpack.h"

#define NT_AMDGPU_METADATA 32
#define EF_AMDGPU_MACH 0x0ff

typedef struct {
    const uint8_t *img;
    size_t size;
    const Elf64_Ehdr *eh;
    const Elf64_Shdr *sh;
    int nsh;
} elf;

/* [off, off + len) lies within the image (no wrap-around). */
static bool in_image(const elf *e, uint64_t off, uint64_t len) { return off <= e->size && len <= e->size - off; }

static int say(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int say(char *err, size_t len, const char *fmt, ...)
{
    if (err && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, len, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Map a virtual address range to image bytes via the section headers;
 * *left (when not NULL) gets the bytes from addr to the end of its section. */
static const uint8_t *vaddr_ptr(const elf *e, uint64_t addr, size_t len, uint64_t *left)
{
    for (int i = 0; i < e->nsh; i++) {
        const Elf64_Shdr *s = &e->sh[i];
        if (s->sh_type == SHT_NOBITS || !(s->sh_flags & SHF_ALLOC))
            continue;
        if (addr >= s->sh_addr && len <= s->sh_size && addr - s->sh_addr <= s->sh_size - len &&
            in_image(e, s->sh_offset, s->sh_size)) {
            if (left)
                *left = s->sh_size - (addr - s->sh_addr);
            return e->img + s->sh_offset + (addr - s->sh_addr);
        }
    }
    return NULL;
}

static const Elf64_Sym *find_sym(const elf *e, const char *name, const Elf64_Shdr **strtab_out)
{
    for (int i = 0; i < e->nsh; i++) {
        const Elf64_Shdr *s = &e->sh[i];
        if (s->sh_type != SHT_SYMTAB && s->sh_type != SHT_DYNSYM)
            continue;
        /* the entries are read in place: a table off their 8-byte alignment
           (a malformed sh_offset) is not one */
        if (s->sh_link >= (unsigned)e->nsh || !in_image(e, s->sh_offset, s->sh_size) || s->sh_offset % 8)
            continue;
        const Elf64_Shdr *st = &e->sh[s->sh_link];
        if (!in_image(e, st->sh_offset, st->sh_size))
            continue;
        const Elf64_Sym *syms = (const Elf64_Sym *)(e->img + s->sh_offset);
        size_t n = s->sh_size / sizeof *syms;
        for (size_t j = 0; j < n; j++) {
            if (syms[j].st_name >= st->sh_size)
                continue;
            const char *nm = (const char *)e->img + st->sh_offset + syms[j].st_name;
            size_t left = st->sh_size - syms[j].st_name; /* a malformed table need not end in a NUL */
            if (strnlen(nm, left) < left && !strcmp(nm, name)) {
                if (strtab_out)
                    *strtab_out = st;
                return &syms[j];
            }
        }
    }
    return NULL;
}

static const mp_node *find_metadata(const elf *e, mp_doc *doc, char *err, size_t errlen)
{
    for (int i = 0; i < e->nsh; i++) {
        const Elf64_Shdr *s = &e->sh[i];
        if (s->sh_type != SHT_NOTE || !in_image(e, s->sh_offset, s->sh_size))
            continue;
        const uint8_t *sec = e->img + s->sh_offset;
        for (uint64_t at = 0; s->sh_size - at >= 12;) { /* offsets, so no pointer can wrap */
            uint32_t namesz, descsz, type;
            memcpy(&namesz, sec + at, 4);
            memcpy(&descsz, sec + at + 4, 4);
            memcpy(&type, sec + at + 8, 4);
            uint64_t name_at = at + 12, desc_at = name_at + (((uint64_t)namesz + 3) & ~3ull);
            if (desc_at > s->sh_size || descsz > s->sh_size - desc_at)
                break;
            const uint8_t *name = sec + name_at, *desc = sec + desc_at;
            if (type == NT_AMDGPU_METADATA && namesz >= 6 && !memcmp(name, "AMDGPU", 6)) {
                const mp_node *root = mp_parse(doc, desc, descsz);
                if (!root)
                    say(err, errlen, "malformed AMDGPU metadata note");
                return root;
            }
            at = desc_at + (((uint64_t)descsz + 3) & ~3ull);
        }
    }
    say(err, errlen, "no NT_AMDGPU_METADATA note (code object v2/v3 are not supported)");
    return NULL;
}

/* Limits of the metadata's integers (checked in 64 bits, before any of
 * them becomes an int): the kernarg segment and an argument's place in it,
 * work-group sizes. */
#define META_MAX_KERNARG 65536
#define META_MAX_BLOCK 1024

/* The integer field `key` of map n into *out: def when absent, else it must
 * lie in [lo, hi]. Returns 0, or -1 with "kernel K: metadata WHAT KEY = V is
 * outside [lo, hi]" in err. */
static int meta_int(const char *kernel, const char *what, const mp_node *n, const char *key, int64_t lo, int64_t hi,
                    int def, int *out, char *err, size_t errlen)
{
    const mp_node *v = mp_get(n, key);
    int64_t x;
    if (!v) {
        *out = def;
        return 0;
    }
    if (mp_int_in(v, lo, hi, &x)) {
        if (v->type == MP_INT)
            return say(err, errlen, "kernel %s: metadata %s%s = %lld is outside [%lld, %lld]", kernel, what, key,
                       (long long)v->i, (long long)lo, (long long)hi);
        return say(err, errlen, "kernel %s: metadata %s%s is not an integer", kernel, what, key);
    }
    *out = (int)x;
    return 0;
}

static int load_args(emu_kernel_info *ki, const mp_node *args, char *err, size_t errlen)
{
    if (!args)
        return 0;
    if (args->type != MP_ARRAY)
        return say(err, errlen, "kernel %s: metadata .args is not a list", ki->name);
    if (args->len > 64)
        return say(err, errlen, "kernel %s: metadata .args has %u arguments, more than 64", ki->name, args->len);
    for (uint32_t i = 0; i < args->len; i++) {
        const mp_node *a = &args->kids[i];
        emu_arg *g = &ki->args[ki->nargs++];
        memset(g, 0, sizeof *g);
        if (mp_str(mp_get(a, ".name"), g->name, sizeof g->name))
            snprintf(g->name, sizeof g->name, "arg%u", i);
        mp_str(mp_get(a, ".value_kind"), g->value_kind, sizeof g->value_kind);
        char what[96];
        snprintf(what, sizeof what, "argument %u (%s) ", i, g->name);
        if (!mp_get(a, ".offset") || !mp_get(a, ".size"))
            return say(err, errlen, "kernel %s: metadata %shas no .offset or .size", ki->name, what);
        if (meta_int(ki->name, what, a, ".offset", 0, META_MAX_KERNARG, 0, &g->offset, err, errlen) ||
            meta_int(ki->name, what, a, ".size", 0, META_MAX_KERNARG, 0, &g->size, err, errlen))
            return -1;
    }
    return 0;
}

/* Every argument lies inside the kernarg segment (known once the
 * descriptor's size is read too). */
static int check_args(const emu_kernel_info *ki, char *err, size_t errlen)
{
    for (int i = 0; i < ki->nargs; i++) {
        const emu_arg *g = &ki->args[i];
        if ((int64_t)g->offset + g->size > ki->kernarg_size)
            return say(err, errlen,
                       "kernel %s: metadata argument %d (%s) at .offset %d with .size %d ends past the kernarg "
                       "segment of %d bytes",
                       ki->name, i, g->name, g->offset, g->size, ki->kernarg_size);
    }
    return 0;
}

int emu_inst_at(const emu_kernel *k, uint64_t pc)
{
    int lo = 0, hi = k->ninsts - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (k->code[mid].pc == pc)
            return mid;
        if (k->code[mid].pc < pc)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

static int decode_kernel(const emu_device *d, const elf *e, emu_kernel *k, uint64_t code_end, char *err,
                         size_t errlen)
{
    uint64_t left = 0;
    const uint8_t *code = vaddr_ptr(e, k->entry, 4, &left);
    if (!code || code_end <= k->entry)
        return say(err, errlen, "kernel %s: entry 0x%llx is outside the image", k->info.name,
                   (unsigned long long)k->entry);
    /* up to the kernel's end, never past its section's bytes */
    size_t avail = (size_t)(code_end - k->entry < left ? code_end - k->entry : left);
    int cap = 256;
    k->code = malloc(sizeof *k->code * (size_t)cap);
    if (!k->code)
        return say(err, errlen, "out of memory");
    size_t off = 0;
    while (off < avail) {
        if (k->ninsts == cap) {
            cap *= 2;
            emu_inst *nc = realloc(k->code, sizeof *nc * (size_t)cap);
            if (!nc)
                return say(err, errlen, "out of memory");
            k->code = nc;
        }
        char derr[200];
        emu_inst *in = &k->code[k->ninsts];
        int n = emu_decode(d->dec, code + off, avail - off, k->entry + off, in, derr, sizeof derr);
        if (!n) {
            /* A word the decoder does not know stays in the code as an
               unknown instruction (info == NULL, one dword): executing it is
               a fault that names the wave and PC (and the decoder's reason,
               from the two dwords emu_decode kept in raw); padding after
               s_endpgm is never reached. */
            if (avail - off < 4)
                break;
            n = 4;
        }
        emu_inst_finalize(in);
        k->ninsts++;
        off += (size_t)n;
    }
    /* resolve branch targets to instruction indices */
    for (int i = 0; i < k->ninsts; i++) {
        emu_inst *in = &k->code[i];
        if (in->cls != EC_BRANCH)
            continue;
        uint64_t tgt = in->pc + 4 + (int64_t)in->simm16 * 4;
        in->target = emu_inst_at(k, tgt);
        if (in->target < 0)
            return say(err, errlen, "%s kernel %s: branch at pc 0x%llx to 0x%llx outside the kernel", d->t->name,
                       k->info.name, (unsigned long long)in->pc, (unsigned long long)tgt);
    }
    for (int i = 0; i < k->ninsts; i++) {
        k->code[i].regs_ok = k->code[i].info && emu_regs_in_bounds(k, &k->code[i]);
        emu_pend_span(k, &k->code[i]);
    }
    k->info.ninsts = k->ninsts;
    return 0;
}

/* Optional main-loop markers: local symbols __kloop_begin_<kernel> and
 * __kloop_end_<kernel> (emitted by igemmgen) bound the instructions whose
 * VALU mix the stats report separately. */
static void find_loop(const elf *e, emu_kernel *k)
{
    char nb[200], ne[200];
    snprintf(nb, sizeof nb, "__kloop_begin_%s", k->info.name);
    snprintf(ne, sizeof ne, "__kloop_end_%s", k->info.name);
    const Elf64_Sym *b = find_sym(e, nb, NULL), *en = find_sym(e, ne, NULL);
    k->loop_begin = k->loop_end = -1;
    if (!b || !en)
        return;
    k->loop_begin = emu_inst_at(k, b->st_value);
    k->loop_end = emu_inst_at(k, en->st_value);
}

static bool amdgpu_elf64(const Elf64_Ehdr *eh)
{
    return !memcmp(eh->e_ident, ELFMAG, SELFMAG) && eh->e_ident[EI_CLASS] == ELFCLASS64 && eh->e_machine == EM_AMDGPU;
}

/* The target of an AMDGPU ELF header (e_flags), NULL when not in the table. */
static const target *elf_target(const Elf64_Ehdr *eh) { return target_by_elf_mach(eh->e_flags & EF_AMDGPU_MACH); }

const char *emu_elf_target(const void *image, size_t size)
{
    Elf64_Ehdr eh; /* a copy: the image may sit at any offset (a bundle entry) */
    if (!image || size < sizeof eh)
        return NULL;
    memcpy(&eh, image, sizeof eh);
    const target *t = amdgpu_elf64(&eh) ? elf_target(&eh) : NULL;
    return t ? t->name : NULL;
}

/* The optional amdhsa.target: "amdgcn-amd-amdhsa--" and a target ID whose
 * processor is the ELF's (features after a ':' are the code object's). */
static int load_target(const mp_node *root, emu_module *m, const char *mach, char *err, size_t errlen)
{
    static const char triple[] = "amdgcn-amd-amdhsa--";
    const mp_node *t = mp_get(root, "amdhsa.target");
    if (!t)
        return 0;
    if (t->type != MP_STR || t->len >= sizeof m->target_id)
        return say(err, errlen, "metadata amdhsa.target is not a string of under %zu bytes", sizeof m->target_id);
    mp_str(t, m->target_id, sizeof m->target_id);
    size_t pl = strlen(mach);
    const char *id = m->target_id + sizeof triple - 1;
    if (strncmp(m->target_id, triple, sizeof triple - 1) || strncmp(id, mach, pl) || (id[pl] && id[pl] != ':'))
        return say(err, errlen, "metadata amdhsa.target '%s' is not %s%s[:features], the ELF's target",
                   m->target_id, triple, mach);
    return 0;
}

/* Kernel i's metadata entry kn: name, descriptor symbol (into sym),
 * kernarg size, workgroup sizes, wave size, arguments. */
static int load_kernel_meta(const mp_node *kn, uint32_t i, emu_kernel *k, char *sym, size_t symlen, char *err,
                            size_t errlen)
{
    k->loop_begin = k->loop_end = -1;
    emu_kernel_info *ki = &k->info;
    if (mp_str(mp_get(kn, ".name"), ki->name, sizeof ki->name) || mp_str(mp_get(kn, ".symbol"), sym, symlen))
        return say(err, errlen, "kernel %u in the metadata has no .name/.symbol", i);
    if (mp_get(kn, ".name")->len >= sizeof ki->name || mp_get(kn, ".symbol")->len >= symlen)
        return say(err, errlen, "kernel %u in the metadata: .name or .symbol longer than %zu bytes", i,
                   sizeof ki->name - 1);
    const mp_node *rq = mp_get(kn, ".reqd_workgroup_size");
    if (meta_int(ki->name, "", kn, ".kernarg_segment_size", 0, META_MAX_KERNARG, 0, &ki->kernarg_size, err,
                 errlen) ||
        meta_int(ki->name, "", kn, ".max_flat_workgroup_size", 1, META_MAX_BLOCK, META_MAX_BLOCK, &ki->max_block,
                 err, errlen))
        return -1;
    if (rq && (rq->type != MP_ARRAY || rq->len != 3))
        return say(err, errlen, "kernel %s: metadata .reqd_workgroup_size is not a list of 3", ki->name);
    for (int j = 0; rq && j < 3; j++) {
        int64_t v;
        if (mp_int_in(&rq->kids[j], 1, META_MAX_BLOCK, &v))
            return say(err, errlen, "kernel %s: metadata .reqd_workgroup_size[%d] is not an integer in [1, %d]",
                       ki->name, j, META_MAX_BLOCK);
        ki->reqd_block[j] = (int)v;
    }
    if (mp_int(mp_get(kn, ".wavefront_size"), 64) != 64)
        return say(err, errlen, "kernel %s: only wave64 is supported", ki->name);
    return load_args(ki, mp_get(kn, ".args"), err, errlen) ? -1 : 0;
}

/* Kernel k's descriptor (symbol sym): LDS, kernarg size, the rsrc words
 * and the register allocation they encode on target t; then, with a device
 * d, its code, decoded up to its function symbol's end (text_end without
 * one). */
static int load_kernel_code(const emu_device *d, const target *t, const elf *e, emu_kernel *k, const char *sym,
                            uint64_t text_end, char *err, size_t errlen)
{
    emu_kernel_info *ki = &k->info;
    const Elf64_Sym *kd = find_sym(e, sym, NULL);
    const uint8_t *kdp = kd ? vaddr_ptr(e, kd->st_value, 64, NULL) : NULL;
    if (!kdp)
        return say(err, errlen, "kernel %s: descriptor symbol %s not found", ki->name, sym);
    uint32_t group, priv, karg;
    int64_t entry_off;
    memcpy(&group, kdp, 4);
    memcpy(&priv, kdp + 4, 4);
    memcpy(&karg, kdp + 8, 4);
    memcpy(&entry_off, kdp + 16, 8);
    memcpy(&k->rsrc3, kdp + 44, 4);
    memcpy(&k->rsrc1, kdp + 48, 4);
    memcpy(&k->rsrc2, kdp + 52, 4);
    memcpy(&k->props, kdp + 56, 2);
    k->entry = kd->st_value + (uint64_t)entry_off;
    k->private_size = (int)priv;
    if (group > (uint32_t)t->lds_bytes)
        return say(err, errlen, "kernel %s: LDS %u bytes exceeds %d", ki->name, group, t->lds_bytes);
    ki->lds_bytes = (int)group;
    if (priv > INT32_MAX || karg > META_MAX_KERNARG)
        return say(err, errlen, "kernel %s: descriptor %s %u is out of range", ki->name,
                   priv > INT32_MAX ? "private_segment_fixed_size" : "kernarg_size", priv > INT32_MAX ? priv : karg);
    if (karg > (uint32_t)ki->kernarg_size)
        ki->kernarg_size = (int)karg;
    if (check_args(ki, err, errlen))
        return -1;
    k->user_sgprs = (int)((k->rsrc2 >> 1) & 31);
    for (int j = 0; j < 3; j++)
        k->wg_id[j] = (k->rsrc2 >> (7 + j)) & 1;
    k->wg_info = (k->rsrc2 >> 10) & 1;
    k->vgpr_ids = (int)((k->rsrc2 >> 11) & 3);
    k->denorm32 = (int)((k->rsrc1 >> 16) & 3);
    /* VGPR/SGPR allocation from the descriptor's granulated counts */
    int vgran = (int)(k->rsrc1 & 63), sgran = (int)((k->rsrc1 >> 6) & 15);
    if (t->unified_acc_vgprs) {
        int total = (vgran + 1) * t->vgpr_granule;
        ki->accum_offset = (int)(((k->rsrc3 & 63) + 1) * 4);
        ki->unified_total = total;
        ki->vgprs = ki->accum_offset;
        ki->agprs = total - ki->accum_offset;
        if (ki->agprs < 0)
            ki->agprs = 0;
    } else {
        /* gfx908 allocates VGPRs and AGPRs alike: the granule covers both */
        ki->vgprs = (vgran + 1) * t->vgpr_granule;
        ki->agprs = t->has_mfma ? ki->vgprs : 0;
    }
    /* gfx9 allocates SGPRs in blocks of 16 but encodes the count in
       units of 8: the field is 2 * (blocks - 1) */
    ki->sgprs = (sgran / 2 + 1) * 16;
    if (ki->sgprs > t->max_sgprs)
        ki->sgprs = t->max_sgprs;
    if ((k->props & 0x400) != 0)
        return say(err, errlen, "kernel %s: wave32 is not supported", ki->name);
    if (!d)
        return 0;
    uint64_t end = text_end;
    const Elf64_Sym *fs = find_sym(e, ki->name, NULL);
    if (fs && fs->st_size && fs->st_value == k->entry)
        end = fs->st_value + fs->st_size;
    if (decode_kernel(d, e, k, end, err, errlen))
        return -1;
    find_loop(e, k);
    return 0;
}

/* emu_load, and with d NULL emu_load_info: the kernels' metadata and
 * descriptors, their code decoded only for a device. */
static int load_module(const emu_device *d, const void *image, size_t size, emu_module **out, char *err,
                       size_t errlen)
{
    *out = NULL;
    if (!image || size < sizeof(Elf64_Ehdr))
        return say(err, errlen, "code object too small (%zu bytes)", size);
    /* the header is checked on a copy: the image may sit at any offset (a
       bundle entry), and an Elf64_Ehdr needs 8-byte alignment */
    Elf64_Ehdr hdr;
    memcpy(&hdr, image, sizeof hdr);
    elf e = {.img = image, .size = size, .eh = &hdr};
    if (!amdgpu_elf64(e.eh))
        return say(err, errlen, "not an AMDGPU ELF64 code object");
    if (e.eh->e_type == ET_REL)
        return say(err, errlen, "a relocatable object (ELF ET_REL, as llvm-mc writes it), not a code object: link it "
                                "first (ld.lld -shared obj.o -o obj.hsaco)");
    if (e.eh->e_type != ET_DYN)
        return say(err, errlen, "ELF type %u is not a code object (ET_DYN, a shared object)", e.eh->e_type);
    const target *t = elf_target(e.eh);
    if (!t)
        return say(err, errlen, "code object for an unsupported target (e_flags 0x%x); supported: %s", e.eh->e_flags,
                   target_names());
    const char *mach = t->name;
    if (d && strcmp(mach, d->t->name))
        return say(err, errlen, "code object is for %s, the emulator runs %s", mach, d->t->name);
    if (d)
        t = d->t; /* the device's facts, as the emulator runs them */
    if (!in_image(&e, e.eh->e_shoff, (uint64_t)e.eh->e_shnum * sizeof(Elf64_Shdr)) || e.eh->e_shoff % 8 ||
        e.eh->e_shentsize != sizeof(Elf64_Shdr))
        return say(err, errlen, "bad section header table");
    e.nsh = e.eh->e_shnum;

    /* Loading reads the ELF structures in place: from a malloc'd copy, whose
     * alignment they need (an embedded image is a byte array); kernels keep
     * their decoded code, not the image. */
    emu_module *m = calloc(1, sizeof *m);
    uint8_t *img = malloc(size);
    if (!m || !img) {
        free(m);
        free(img);
        return say(err, errlen, "out of memory");
    }
    memcpy(img, image, size);
    e.img = img;
    e.eh = (const Elf64_Ehdr *)img;
    e.sh = (const Elf64_Shdr *)(img + e.eh->e_shoff);

    uint64_t text_end = 0;
    for (int i = 0; i < e.nsh; i++)
        if ((e.sh[i].sh_flags & SHF_EXECINSTR) && e.sh[i].sh_addr + e.sh[i].sh_size > text_end)
            text_end = e.sh[i].sh_addr + e.sh[i].sh_size;

    mp_doc doc;
    const mp_node *root = find_metadata(&e, &doc, err, errlen);
    if (!root) {
        free(img);
        emu_module_free(m);
        return -1;
    }
    if (load_target(root, m, mach, err, errlen)) {
        mp_free(&doc);
        free(img);
        emu_module_free(m);
        return -1;
    }
    const mp_node *ks = mp_get(root, "amdhsa.kernels");
    if (!ks || ks->type != MP_ARRAY) {
        mp_free(&doc);
        free(img);
        emu_module_free(m);
        return say(err, errlen, "metadata has no amdhsa.kernels list");
    }
    m->kernels = calloc(ks->len ? ks->len : 1, sizeof *m->kernels);
    if (!m->kernels) {
        mp_free(&doc);
        free(img);
        emu_module_free(m);
        return say(err, errlen, "out of memory");
    }
    int rc = 0;
    for (uint32_t i = 0; i < ks->len && !rc; i++) {
        char sym[160];
        emu_kernel *k = &m->kernels[m->nkernels++];
        rc = load_kernel_meta(&ks->kids[i], i, k, sym, sizeof sym, err, errlen) ||
                     load_kernel_code(d, t, &e, k, sym, text_end, err, errlen)
                 ? -1
                 : 0;
    }
    mp_free(&doc);
    free(img);
    if (rc) {
        emu_module_free(m);
        return -1;
    }
    *out = m;
    return 0;
}

int emu_load(emu_device *d, const void *image, size_t size, emu_module **out, char *err, size_t errlen)
{
    return load_module(d, image, size, out, err, errlen);
}

int emu_load_info(const void *image, size_t size, emu_module **out, char *err, size_t errlen)
{
    return load_module(NULL, image, size, out, err, errlen);
}

void emu_module_free(emu_module *m)
{
    if (!m)
        return;
    for (int i = 0; i < m->nkernels; i++)
        free(m->kernels[i].code);
    free(m->kernels);
    free(m);
}

int emu_module_kernel_count(const emu_module *m) { return m ? m->nkernels : 0; }
const char *emu_module_target(const emu_module *m) { return m ? m->target_id : ""; }
const emu_kernel *emu_module_kernel(const emu_module *m, int i) { return m && i >= 0 && i < m->nkernels ? &m->kernels[i] : NULL; }

const emu_kernel *emu_find_kernel(const emu_module *m, const char *name)
{
    for (int i = 0; m && name && i < m->nkernels; i++)
        if (!strcmp(m->kernels[i].info.name, name))
            return &m->kernels[i];
    return NULL;
}

const emu_kernel_info *emu_kernel_get_info(const emu_kernel *k) { return k ? &k->info : NULL; }

kernel_alloc emu_kernel_alloc(const emu_kernel_info *ki)
{
    return (kernel_alloc){ki->vgprs, ki->agprs, ki->sgprs, ki->lds_bytes};
}

char *emu_kernel_disasm(const emu_kernel *k)
{
    size_t cap = (size_t)k->ninsts * 120 + 1, len = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    s[0] = 0;
    for (int i = 0; i < k->ninsts; i++) {
        char line[256];
        emu_disasm(&k->code[i], line, sizeof line);
        int n = snprintf(s + len, cap - len, "%012llx: %s\n", (unsigned long long)k->code[i].pc, line);
        if (n > 0)
            len += (size_t)n < cap - len ? (size_t)n : cap - len - 1;
    }
    return s;
}
