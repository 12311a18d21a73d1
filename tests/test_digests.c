/* The whole-kernel golden test: a SHA-256 of every generated kernel of every
 * target's code object (BUILD_DIR/co/<arch>.hsaco, what `make all` builds
 * from igemmgen's output), compared with the committed digests of
 * tests/kernel_digests.txt, so that a change to generated code is always
 * deliberate: a change that should leave the kernels as they were fails
 * here, naming each kernel that changed, appeared or went away.
 *
 * What a kernel's digest covers (docs/ARCHITECTURE.md, "The kernel digests"):
 * its machine code (the bytes of its function symbol) and its 64-byte kernel
 * descriptor (LDS, kernarg size, register counts, the rsrc words), with the
 * descriptor's code entry offset left out (where the linker placed the
 * kernel: it moves when an earlier kernel grows). Each target's metadata
 * note (argument layouts, register counts, names) has a digest of its own.
 * Assembler symbol names (.set register names, labels) and comments are not
 * in the code object, so renaming a register leaves the digests as they are.
 *
 * After a deliberate change to generated code, `make update-digests` writes
 * the file again from the build's code objects (this program with --write
 * FILE); commit it with the change and say in the message why the kernels
 * changed. The digests depend on the assembler too (llvm-mc-19, ld.lld-19).
 *
 * The ELF is read here with <elf.h> alone, not through the emulator's
 * loader, so the test holds nothing of the code it checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../conv/ofile.h"
#include "../runtime/sha256.h"
#include "common.h"

static const char *const archs[] = {TC_ARCH_LIST};
#define DIGEST_FILE "tests/kernel_digests.txt"

/* One line of the digest file: "<arch> <kernel> <sha256>". */
typedef struct {
    char arch[16], name[160], hex[SHA256_HEX];
} digest;

typedef struct {
    digest *d;
    int n, cap;
} digest_list;

static int add(digest_list *l, const char *arch, const char *name, const char *hex)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 256;
        digest *d = realloc(l->d, (size_t)cap * sizeof *d);
        if (!d)
            return -1;
        l->d = d, l->cap = cap;
    }
    digest *g = &l->d[l->n++];
    snprintf(g->arch, sizeof g->arch, "%s", arch);
    snprintf(g->name, sizeof g->name, "%s", name);
    snprintf(g->hex, sizeof g->hex, "%s", hex);
    return 0;
}

/* The file bytes of [addr, addr + size) of an allocated section, or NULL. */
static const uint8_t *at_addr(const uint8_t *img, size_t len, const Elf64_Shdr *sh, int nsh, uint64_t addr,
                              uint64_t size)
{
    for (int i = 0; i < nsh; i++)
        if ((sh[i].sh_flags & SHF_ALLOC) && sh[i].sh_type != SHT_NOBITS && addr >= sh[i].sh_addr &&
            addr + size <= sh[i].sh_addr + sh[i].sh_size) {
            uint64_t off = sh[i].sh_offset + (addr - sh[i].sh_addr);
            return off + size <= len ? img + off : NULL;
        }
    return NULL;
}

/* The digests of one code object's kernels and its metadata note, in the
 * order of its symbol table. Returns 0, or -1 with the reason in why. */
static int object_digests(const char *arch, const uint8_t *img, size_t len, digest_list *out, char *why,
                          size_t whylen)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
    if (len < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > len)
        return snprintf(why, whylen, "%s: not a 64-bit ELF", arch), -1;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(img + eh->e_shoff);
    int nsh = eh->e_shnum, kernels = 0, notes = 0;
    char hex[SHA256_HEX];
    for (int s = 0; s < nsh; s++) {
        if (sh[s].sh_type == SHT_NOTE && sh[s].sh_offset + sh[s].sh_size <= len) {
            sha256_hex(img + sh[s].sh_offset, sh[s].sh_size, hex);
            if (add(out, arch, "(metadata)", hex))
                return snprintf(why, whylen, "out of memory"), -1;
            notes++;
        }
        if (sh[s].sh_type != SHT_SYMTAB || sh[s].sh_link >= (unsigned)nsh ||
            sh[s].sh_offset + sh[s].sh_size > len)
            continue;
        const Elf64_Sym *sym = (const Elf64_Sym *)(img + sh[s].sh_offset);
        size_t nsym = sh[s].sh_size / sizeof *sym;
        const Elf64_Shdr *str = &sh[sh[s].sh_link];
        const char *names = (const char *)img + str->sh_offset;
        for (size_t i = 0; i < nsym; i++) {
            if (ELF64_ST_TYPE(sym[i].st_info) != STT_FUNC || !sym[i].st_size || sym[i].st_name >= str->sh_size)
                continue;
            const char *name = names + sym[i].st_name;
            char kdname[200];
            snprintf(kdname, sizeof kdname, "%s.kd", name);
            const uint8_t *kd = NULL, *code = at_addr(img, len, sh, nsh, sym[i].st_value, sym[i].st_size);
            for (size_t j = 0; j < nsym && !kd; j++)
                if (sym[j].st_name < str->sh_size && !strcmp(names + sym[j].st_name, kdname))
                    kd = at_addr(img, len, sh, nsh, sym[j].st_value, 64);
            if (!code || !kd)
                return snprintf(why, whylen, "%s: kernel %s: %s not in the image", arch, name,
                                code ? "descriptor" : "code"), -1;
            size_t n = sym[i].st_size + 64;
            uint8_t *buf = malloc(n);
            if (!buf)
                return snprintf(why, whylen, "out of memory"), -1;
            memcpy(buf, code, sym[i].st_size);
            memcpy(buf + sym[i].st_size, kd, 64);
            memset(buf + sym[i].st_size + 16, 0, 8); /* kernel_code_entry_byte_offset: placement */
            sha256_hex(buf, n, hex);
            free(buf);
            if (add(out, arch, name, hex))
                return snprintf(why, whylen, "out of memory"), -1;
            kernels++;
        }
    }
    if (!kernels || notes != 1)
        return snprintf(why, whylen, "%s: %d kernels and %d notes (expected kernels and one note)", arch, kernels,
                        notes), -1;
    return 0;
}

/* Every target's digests from the build's code objects. */
static int build_digests(digest_list *out, char *why, size_t whylen)
{
    for (int a = 0; a < TC_NARCH(archs); a++) {
        char path[512];
        size_t len;
        uint8_t *img = read_file(tc_codeobj_path(archs[a], path, sizeof path), &len);
        if (!img)
            return snprintf(why, whylen, "cannot read %s (make all builds it)", path), -1;
        int rc = object_digests(archs[a], img, len, out, why, whylen);
        free(img);
        if (rc)
            return -1;
    }
    return 0;
}

static int read_digests(const char *path, digest_list *out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[512];
    int rc = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        digest g;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (sscanf(line, "%15s %159s %64s", g.arch, g.name, g.hex) != 3 || strlen(g.hex) != 64)
            rc = -1;
        else
            rc = add(out, g.arch, g.name, g.hex);
    }
    fclose(f);
    return rc;
}

static const digest *find(const digest_list *l, const digest *g)
{
    for (int i = 0; i < l->n; i++)
        if (!strcmp(l->d[i].arch, g->arch) && !strcmp(l->d[i].name, g->name))
            return &l->d[i];
    return NULL;
}

static void kernels_match_digests(void **state)
{
    (void)state;
    digest_list want = {0}, got = {0};
    char why[600] = "";
    if (read_digests(DIGEST_FILE, &want))
        fail_msg("cannot read %s (one \"<arch> <kernel> <sha256>\" a line)", DIGEST_FILE);
    if (build_digests(&got, why, sizeof why))
        fail_msg("%s", why);
    int changed = 0, added = 0, gone = 0;
    for (int i = 0; i < got.n; i++) {
        const digest *w = find(&want, &got.d[i]);
        if (!w || strcmp(w->hex, got.d[i].hex)) {
            if (changed + added < 20)
                print_message("%s %s: %s\n", got.d[i].arch, got.d[i].name, w ? "changed" : "new");
            w ? changed++ : added++;
        }
    }
    for (int i = 0; i < want.n; i++)
        if (!find(&got, &want.d[i])) {
            if (gone < 20)
                print_message("%s %s: no longer generated\n", want.d[i].arch, want.d[i].name);
            gone++;
        }
    free(want.d);
    free(got.d);
    if (changed || added || gone)
        fail_msg("generated kernels differ from %s: %d changed, %d new, %d gone; if the change is deliberate, "
                 "run make update-digests and say why in the commit",
                 DIGEST_FILE, changed, added, gone);
    print_message("%d kernel and metadata digests match on %d targets\n", got.n, TC_NARCH(archs));
}

/* The digests change with every byte of a kernel: one instruction word
 * flipped in a copy of a code object changes that kernel's digest and no
 * other (the check the test relies on, independent of the committed file). */
static void one_word_changes_one_digest(void **state)
{
    (void)state;
    char path[512], why[600] = "";
    size_t len;
    uint8_t *img = read_file(tc_codeobj_path(archs[0], path, sizeof path), &len);
    assert_non_null(img);
    digest_list a = {0}, b = {0};
    if (object_digests(archs[0], img, len, &a, why, sizeof why))
        fail_msg("%s", why);
    /* the first kernel's first instruction word */
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(img + eh->e_shoff);
    uint8_t *word = NULL;
    for (int s = 0; s < eh->e_shnum && !word; s++)
        if (sh[s].sh_type == SHT_SYMTAB) {
            const Elf64_Sym *sym = (const Elf64_Sym *)(img + sh[s].sh_offset);
            for (size_t i = 0; i < sh[s].sh_size / sizeof *sym && !word; i++)
                if (ELF64_ST_TYPE(sym[i].st_info) == STT_FUNC && sym[i].st_size)
                    word = (uint8_t *)at_addr(img, len, sh, eh->e_shnum, sym[i].st_value, 4);
        }
    assert_non_null(word);
    word[0] ^= 1;
    if (object_digests(archs[0], img, len, &b, why, sizeof why))
        fail_msg("%s", why);
    assert_int_equal(a.n, b.n);
    int differ = 0;
    for (int i = 0; i < a.n; i++)
        differ += strcmp(a.d[i].hex, b.d[i].hex) != 0;
    assert_int_equal(differ, 1);
    free(a.d);
    free(b.d);
    free(img);
}

/* --write FILE: the build's digests into FILE (make update-digests). */
static int write_digests(const char *path)
{
    digest_list l = {0};
    char why[600] = "";
    if (build_digests(&l, why, sizeof why)) {
        fprintf(stderr, "test_digests: %s\n", why);
        free(l.d);
        return 1;
    }
    size_t cap = 256 + (size_t)l.n * 256, n = 0;
    char *text = malloc(cap);
    if (!text) {
        free(l.d);
        return 1;
    }
    n += (size_t)snprintf(text + n, cap - n,
                          "# SHA-256 of every generated kernel (machine code and descriptor) and of each\n"
                          "# target's metadata note: tests/test_digests.c. Written by make update-digests.\n");
    for (int i = 0; i < l.n; i++)
        n += (size_t)snprintf(text + n, cap - n, "%s %s %s\n", l.d[i].arch, l.d[i].name, l.d[i].hex);
    int rc = ofile_write_all(path, text, n, why, sizeof why);
    if (rc)
        fprintf(stderr, "test_digests: %s\n", why);
    else
        printf("wrote %d digests to %s\n", l.n, path);
    free(text);
    free(l.d);
    return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--write"))
        return write_digests(argv[2]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kernels_match_digests),
        cmocka_unit_test(one_word_changes_one_digest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
