/* Small internal helpers (util.h). */
#include "util.h"

#include <errno.h>
#include <string.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

void why_printf(char *why, size_t len, const char *fmt, ...)
{
    if (!why || !len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
}

void igemm_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("igemm: internal error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

void *read_file(const char *path, size_t *size)
{
    struct stat st;
    if (stat(path, &st) || !S_ISREG(st.st_mode))
        return NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    long n;
    if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET) && (buf = malloc((size_t)n + 1))) {
        if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        } else {
            buf[n] = 0;
            *size = (size_t)n;
        }
    }
    fclose(f);
    return buf;
}

int parse_long(const char *s, long lo, long hi, long *out)
{
    /* plain decimal only: strtol would also take leading blanks and a '+' */
    if (!s || !(*s == '-' ? s[1] >= '0' && s[1] <= '9' : *s >= '0' && *s <= '9'))
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*end || errno || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

FILE *text_open(const char *path, int *missing, char *why, size_t len)
{
    struct stat st;
    if (missing)
        *missing = 0;
    if (stat(path, &st)) {
        if (missing)
            *missing = errno == ENOENT;
        why_printf(why, len, "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        why_printf(why, len, "%s is a directory", path);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        why_printf(why, len, "%s is not a regular file", path);
        return NULL;
    }
    FILE *f = fopen(path, "r");
    if (!f)
        why_printf(why, len, "cannot read %s: %s", path, strerror(errno));
    return f;
}

int text_line(FILE *f, char *buf, size_t cap)
{
    size_t n = 0;
    int c, bad = 0;
    while ((c = getc_unlocked(f)) != EOF && c != '\n') {
        if (!c)
            bad = bad ? bad : TEXT_NUL;
        else if (n + 1 >= cap)
            bad = bad ? bad : TEXT_LONG;
        else
            buf[n++] = (char)c;
    }
    buf[n] = 0;
    if (c == EOF && ferror(f))
        return TEXT_ERROR;
    if (bad)
        return bad;
    return c == EOF && !n ? 0 : 1;
}

const char *text_line_error(int r, size_t cap, char *buf, size_t len)
{
    if (r == TEXT_LONG)
        snprintf(buf, len, "line longer than %zu bytes", cap - 1);
    else if (r == TEXT_NUL)
        snprintf(buf, len, "NUL byte in the line (not a text file?)");
    else
        snprintf(buf, len, "read error: %s", strerror(errno));
    return buf;
}

bool list_next(const char **p, const char **item, size_t *n)
{
    if (!*p || !**p)
        return false;
    *item = *p;
    *n = strcspn(*p, ",");
    *p += *n + ((*p)[*n] == ',');
    return true;
}

bool list_has(const char *list, const char *name, size_t n)
{
    const char *item;
    size_t len;
    while (list_next(&list, &item, &len))
        if (len == n && !strncmp(item, name, n))
            return true;
    return false;
}
