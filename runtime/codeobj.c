/* Lookup of the embedded code objects and of code object directories. */
#include "codeobj.h"

#include <errno.h>
#include <pthread.h>
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../include/igemm.h"
#include "../arch/target.h"
#include "../conv/util.h"

const igemm_codeobj *igemm_codeobj_find(const char *arch)
{
    for (int i = 0; arch && i < igemm_embedded_count; i++)
        if (!strcmp(igemm_embedded_codeobjs[i].arch, arch))
            return &igemm_embedded_codeobjs[i];
    return NULL;
}

static char embedded_list[256];
static pthread_once_t embedded_once = PTHREAD_ONCE_INIT;

static void make_embedded_list(void) { codeobj_available(NULL, embedded_list, sizeof embedded_list); }

const char *igemm_codeobj_list(void)
{
    pthread_once(&embedded_once, make_embedded_list);
    return embedded_list;
}

int codeobj_file_check(const char *path, char *why, size_t len)
{
    struct stat st;
    if (stat(path, &st)) {
        why_printf(why, len, "code object %s: %s", path, strerror(errno));
        return errno == ENOENT ? 1 : -1;
    }
    const char *bad = S_ISDIR(st.st_mode)    ? "is a directory"
                      : !S_ISREG(st.st_mode) ? "is not a regular file"
                      : !st.st_size          ? "is empty"
                      : access(path, R_OK)   ? "is not readable"
                                             : NULL;
    if (bad)
        why_printf(why, len, "code object %s %s", path, bad);
    return bad ? -1 : 0;
}

void codeobj_available(const char *dir, char *buf, size_t len)
{
    size_t n = 0;
    if (len)
        buf[0] = 0;
    for (int i = 0; i < igemm_target_count; i++) {
        const char *arch = igemm_targets[i]->name;
        int have;
        if (dir) {
            char path[1024];
            snprintf(path, sizeof path, "%s/%s.hsaco", dir, arch);
            have = !codeobj_file_check(path, NULL, 0);
        } else
            have = igemm_codeobj_find(arch) != NULL;
        if (!have)
            continue;
        int w = snprintf(buf + n, len > n ? len - n : 0, "%s%s", n ? ", " : "", arch);
        if (w < 0 || (size_t)w >= (len > n ? len - n : 0))
            return;
        n += (size_t)w;
    }
}

int igemm_codeobj_count(void) { return igemm_embedded_count; }

igemm_status igemm_codeobj_get(int i, const char **arch, const void **image, size_t *size)
{
    if (i < 0 || i >= igemm_embedded_count)
        return IGEMM_ERR_INVALID_ARG;
    if (arch)
        *arch = igemm_embedded_codeobjs[i].arch;
    if (image)
        *image = igemm_embedded_codeobjs[i].data;
    if (size)
        *size = igemm_embedded_codeobjs[i].size;
    return IGEMM_OK;
}
