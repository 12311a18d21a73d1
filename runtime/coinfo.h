/* What a code object's ELF header says about the code: the code object
 * version (e_ident[EI_ABIVERSION]) and the xnack / sramecc settings it was
 * built for (e_flags), as LLVM's AMDGPUUsage documents them. */
#ifndef IGEMM_COINFO_H
#define IGEMM_COINFO_H

#include <stddef.h>

typedef struct {
    unsigned e_flags;
    int version;         /* code object version: 2 to 6 */
    const char *xnack;   /* "any", "on", "off" or "unsupported" */
    const char *sramecc; /* the same */
} coinfo;

/* 0, or -1 when the bytes are not an AMDGPU HSA ELF64 of a known version. */
int coinfo_read(const void *image, size_t size, coinfo *c);

#endif
