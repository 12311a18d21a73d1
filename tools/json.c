/* The indenting JSON writer of json.h. */
#include "json.h"

void jstr(json *j, const char *s)
{
    fputc('"', j->f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(j->f, "\\%c", c);
        else if (c < 32)
            fprintf(j->f, "\\u%04x", c);
        else
            fputc(c, j->f);
    }
    fputc('"', j->f);
}

static void newline(json *j, int depth)
{
    fputc('\n', j->f);
    for (int i = 0; i < depth; i++)
        fputs("  ", j->f);
}

void jsep(json *j)
{
    if (j->flat) {
        if (!j->first)
            fputs(", ", j->f);
    } else {
        if (!j->first)
            fputc(',', j->f);
        if (j->depth)
            newline(j, j->depth);
    }
    j->first = 0;
}

void jkey(json *j, const char *k)
{
    jsep(j);
    jstr(j, k);
    fputs(": ", j->f);
}

void jkv_str(json *j, const char *k, const char *v)
{
    jkey(j, k);
    jstr(j, v);
}

void jkv_int(json *j, const char *k, long long v)
{
    jkey(j, k);
    fprintf(j->f, "%lld", v);
}

void jopen(json *j, char c)
{
    fputc(c, j->f);
    j->depth++;
    j->first = 1;
}

void jopen_flat(json *j, char c)
{
    if (!j->flat)
        j->flat = j->depth + 1;
    jopen(j, c);
}

void jclose(json *j, char c)
{
    int empty = j->first;
    j->depth--;
    if (!j->flat && !empty)
        newline(j, j->depth);
    fputc(c, j->f);
    if (j->flat > j->depth)
        j->flat = 0;
    j->first = 0;
}
