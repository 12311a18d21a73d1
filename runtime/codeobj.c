/* Lookup of the embedded code objects. */
#include "codeobj.h"

#include <string.h>

const igemm_codeobj *igemm_codeobj_find(const char *arch)
{
    for (int i = 0; arch && i < igemm_embedded_count; i++)
        if (!strcmp(igemm_embedded_codeobjs[i].arch, arch))
            return &igemm_embedded_codeobjs[i];
    return NULL;
}

const char *igemm_codeobj_list(void)
{
    static char list[256];
    if (!list[0]) {
        size_t n = 0;
        for (int i = 0; i < igemm_embedded_count && n + 16 < sizeof list; i++) {
            size_t l = strlen(igemm_embedded_codeobjs[i].arch);
            if (i) {
                memcpy(list + n, ", ", 2);
                n += 2;
            }
            memcpy(list + n, igemm_embedded_codeobjs[i].arch, l);
            n += l;
        }
        list[n] = 0;
    }
    return list;
}
