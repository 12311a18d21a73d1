/* Output files through a temporary file and rename (ofile.h). */
#include "ofile.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

static void reset(ofile *o)
{
    free(o->path);
    free(o->tmp);
    memset(o, 0, sizeof *o);
}

int ofile_open(ofile *o, const char *path, char *why, size_t len)
{
    memset(o, 0, sizeof *o);
    if (!path || !strcmp(path, "-")) {
        o->f = stdout;
        return 0;
    }
    /* a symbolic link stays a link: its target is the file replaced */
    char *real = realpath(path, NULL);
    struct stat st;
    int exists = real && !stat(real, &st);
    if (exists && S_ISDIR(st.st_mode)) {
        free(real);
        why_printf(why, len, "cannot write %s: it is a directory", path);
        return -1;
    }
    o->path = real ? real : strdup(path);
    if (!o->path) {
        why_printf(why, len, "cannot write %s: out of memory", path);
        return -1;
    }
    if (exists && !S_ISREG(st.st_mode)) {
        /* a device or a FIFO: written in place, never replaced or removed */
        if (!(o->f = fopen(o->path, "w"))) {
            why_printf(why, len, "cannot write %s: %s", path, strerror(errno));
            reset(o);
            return -1;
        }
        return 0;
    }
    size_t tl = strlen(o->path) + 16;
    int fd = -1;
    if ((o->tmp = malloc(tl))) {
        snprintf(o->tmp, tl, "%s.tmp.XXXXXX", o->path);
        fd = mkstemp(o->tmp);
    }
    if (fd < 0) {
        why_printf(why, len, "cannot write %s: %s", path, o->tmp ? strerror(errno) : "out of memory");
        free(o->tmp);
        o->tmp = NULL; /* mkstemp created nothing */
        reset(o);
        return -1;
    }
    /* the permissions the file has, or a new file's (umask applied) */
    mode_t mode = 0666;
    if (exists)
        mode = st.st_mode & 07777;
    else {
        mode_t mask = umask(0);
        umask(mask);
        mode &= ~mask;
    }
    if (fchmod(fd, mode) || !(o->f = fdopen(fd, "w"))) {
        why_printf(why, len, "cannot write %s: %s", path, strerror(errno));
        close(fd);
        remove(o->tmp);
        reset(o);
        return -1;
    }
    return 0;
}

int ofile_commit(ofile *o, char *why, size_t len)
{
    const char *name = o->path ? o->path : "standard output";
    int bad = ferror(o->f), err = bad ? errno : 0;
    if (o->f == stdout) {
        if (fflush(stdout) || bad) {
            why_printf(why, len, "error writing %s: %s", name, strerror(err ? err : errno));
            reset(o);
            return -1;
        }
        reset(o);
        return 0;
    }
    if (fflush(o->f) && !bad)
        bad = 1, err = errno;
    if (fclose(o->f) && !bad)
        bad = 1, err = errno;
    o->f = NULL;
    if (bad) {
        why_printf(why, len, "error writing %s: %s", name, strerror(err ? err : EIO));
        if (o->tmp)
            remove(o->tmp);
        reset(o);
        return -1;
    }
    if (o->tmp && rename(o->tmp, o->path)) {
        why_printf(why, len, "cannot replace %s: %s", name, strerror(errno));
        remove(o->tmp);
        reset(o);
        return -1;
    }
    reset(o);
    return 0;
}

void ofile_abort(ofile *o)
{
    if (o->f && o->f != stdout)
        fclose(o->f);
    if (o->tmp)
        remove(o->tmp);
    reset(o);
}

int ofile_write_all(const char *path, const void *data, size_t size, char *why, size_t len)
{
    ofile o;
    if (ofile_open(&o, path, why, len))
        return -1;
    if (size && fwrite(data, 1, size, o.f) != size && !ferror(o.f)) {
        why_printf(why, len, "error writing %s", path);
        ofile_abort(&o);
        return -1;
    }
    return ofile_commit(&o, why, len);
}
