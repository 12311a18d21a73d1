/* Code object version and target features from an AMDGPU ELF header (coinfo.h). */
#include "coinfo.h"

#include <elf.h>
#include <string.h>

#ifndef EM_AMDGPU
#define EM_AMDGPU 224
#endif
#define OSABI_AMDGPU_HSA 64

/* e_flags feature fields. Code object v4 and later: two bits each, 0
   unsupported, 1 any, 2 off, 3 on. v3: one bit each, set = on. */
#define XNACK_V3 0x100u
#define SRAMECC_V3 0x200u
#define XNACK_SHIFT_V4 8
#define SRAMECC_SHIFT_V4 10

static const char *setting_v4(unsigned flags, int shift)
{
    static const char *const name[4] = {"unsupported", "any", "off", "on"};
    return name[flags >> shift & 3];
}

int coinfo_read(const void *image, size_t size, coinfo *c)
{
    Elf64_Ehdr eh;
    if (!image || size < sizeof eh)
        return -1;
    memcpy(&eh, image, sizeof eh);
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_AMDGPU ||
        eh.e_ident[EI_OSABI] != OSABI_AMDGPU_HSA)
        return -1;
    /* EI_ABIVERSION: 0 is v2, 1 v3, 2 v4, 3 v5, 4 v6 */
    int abi = eh.e_ident[EI_ABIVERSION];
    if (abi > 4)
        return -1;
    c->e_flags = eh.e_flags;
    c->version = abi + 2;
    if (c->version <= 3) {
        c->xnack = eh.e_flags & XNACK_V3 ? "on" : "off";
        c->sramecc = eh.e_flags & SRAMECC_V3 ? "on" : "off";
    } else {
        c->xnack = setting_v4(eh.e_flags, XNACK_SHIFT_V4);
        c->sramecc = setting_v4(eh.e_flags, SRAMECC_SHIFT_V4);
    }
    return 0;
}
