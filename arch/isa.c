/* The operation table and its lookup by mnemonic. */
#include "isa.h"

#include <string.h>

const isa_opinfo isa_optable[] = {
#define OPID(id)
#define OP(id, name, fmt, opc, tg, dw, s0, s1, s2, sd) {OP_##id, name, fmt, opc, tg, dw, s0, s1, s2, sd},
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
