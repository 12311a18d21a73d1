/* Lookup of the embedded code objects and of code object directories. */
#include "codeobj.h"

#include <errno.h>
#include <pthread.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundle.h"
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

void codeobj_file_free(codeobj_file *f)
{
    free(f->data);
    memset(f, 0, sizeof *f);
}

/* Read path into f; a bundle gives its entry for target_id. 0, 1 (a bundle
 * without such an entry) or -1, with why. */
static int load_file(const char *path, const char *name, const char *target_id, codeobj_file *f, char *why,
                     size_t len)
{
    memset(f, 0, sizeof *f);
    snprintf(f->file, sizeof f->file, "%s", name);
    if (!(f->data = read_file(path, &f->data_size))) {
        why_printf(why, len, "cannot read code object %s", path);
        return -1;
    }
    f->image = f->data;
    f->size = f->data_size;
    if (!bundle_is(f->data, f->data_size))
        return 0;
    bundle b;
    char reason[1200];
    int i = -1;
    if (!bundle_parse(f->data, f->data_size, &b, reason, sizeof reason))
        i = bundle_pick(&b, target_id, reason, sizeof reason);
    if (i >= 0) {
        f->offset = (size_t)b.e[i].offset;
        f->image = (const unsigned char *)f->data + f->offset;
        f->size = (size_t)b.e[i].size;
        snprintf(f->entry, sizeof f->entry, "%s", b.e[i].id);
    }
    int parsed = b.e != NULL;
    bundle_free(&b);
    if (i >= 0)
        return 0;
    why_printf(why, len, "%s: %s", path, reason);
    free(f->data);
    f->data = NULL;
    return parsed ? 1 : -1;
}

int codeobj_dir_load(const char *dir, const char *arch, const char *target_id, codeobj_file *f, char *why,
                     size_t len)
{
    char path[1024], name[64];
    memset(f, 0, sizeof *f);
    snprintf(name, sizeof name, "%s.hsaco", arch);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int state = codeobj_file_check(path, why, len);
    if (state == 1) {
        snprintf(path, sizeof path, "%s/%s", dir, CODEOBJ_BUNDLE);
        snprintf(name, sizeof name, "%s", CODEOBJ_BUNDLE);
        if (codeobj_file_check(path, NULL, 0) == 1)
            return 1; /* why names <arch>.hsaco */
        state = codeobj_file_check(path, why, len);
    }
    return state ? state : load_file(path, name, target_id ? target_id : arch, f, why, len);
}

void codeobj_available(const char *dir, char *buf, size_t len)
{
    size_t n = 0;
    if (len)
        buf[0] = 0;
    /* the bundle's entries, read once */
    bundle b = {0};
    if (dir) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, CODEOBJ_BUNDLE);
        size_t size;
        void *data = !codeobj_file_check(path, NULL, 0) ? read_file(path, &size) : NULL;
        if (data && bundle_parse(data, size, &b, NULL, 0))
            b.n = 0;
        free(data);
    }
    for (int i = 0; i < igemm_target_count; i++) {
        const char *arch = igemm_targets[i]->name;
        int have;
        if (dir) {
            char path[1024];
            snprintf(path, sizeof path, "%s/%s.hsaco", dir, arch);
            have = !codeobj_file_check(path, NULL, 0) || bundle_pick(&b, arch, NULL, 0) >= 0;
        } else
            have = igemm_codeobj_find(arch) != NULL;
        if (!have)
            continue;
        int w = snprintf(buf + n, len > n ? len - n : 0, "%s%s", n ? ", " : "", arch);
        if (w < 0 || (size_t)w >= (len > n ? len - n : 0))
            break;
        n += (size_t)w;
    }
    bundle_free(&b);
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
