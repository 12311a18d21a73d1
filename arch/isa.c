/* The operation table and its lookup by mnemonic. */
#include "isa.h"

#include <string.h>

const isa_opinfo isa_optable[] = {
#define OPID(id)
#define OP(id, name, fmt, opc, tg, dw, s0, s1, s2, sd, cls, fl) {OP_##id, name, fmt, opc, tg, dw, s0, s1, s2, sd, cls, fl},
#include "ops.def"
#undef OPID
#undef OP
};
const int isa_optable_len = sizeof isa_optable / sizeof isa_optable[0];

const isa_opinfo *isa_find(const char *name, unsigned t)
{
    const isa_opinfo *vop3 = NULL;
    for (int i = 0; name && i < isa_optable_len; i++) {
        const isa_opinfo *r = &isa_optable[i];
        if (!(r->targets & t) || strcmp(r->name, name))
            continue;
        if (r->fmt != F_VOP3)
            return r;
        vop3 = r;
    }
    return vop3;
}

unsigned isa_targets_of(const char *name)
{
    unsigned t = 0;
    for (int i = 0; name && i < isa_optable_len; i++)
        if (!strcmp(isa_optable[i].name, name))
            t |= isa_optable[i].targets;
    return t;
}

const char *isa_fmt_name(isa_fmt f)
{
    static const char *const names[F_COUNT] = {
        [F_SOP2] = "SOP2", [F_SOPK] = "SOPK", [F_SOP1] = "SOP1", [F_SOPC] = "SOPC", [F_SOPP] = "SOPP",
        [F_SMEM] = "SMEM", [F_VOP1] = "VOP1", [F_VOP2] = "VOP2", [F_VOPC] = "VOPC", [F_VOP3] = "VOP3",
        [F_VOP3P] = "VOP3P", [F_MAI] = "VOP3P-MAI", [F_DS] = "DS", [F_MUBUF] = "MUBUF", [F_FLAT] = "FLAT",
        [F_GLOBAL] = "GLOBAL", [F_SCRATCH] = "SCRATCH",
    };
    return f < F_COUNT ? names[f] : "?";
}
