/* A small JSON writer with indentation: every member of an object or array
 * on its own line, two spaces per level; an object or array opened with
 * jopen_flat and everything inside it stay on one line ({"a": 1, "b": 2}). */
#ifndef IGEMM_JSON_H
#define IGEMM_JSON_H

#include <stdio.h>

typedef struct {
    FILE *f;
    int first; /* no comma before the next element */
    int depth; /* open objects and arrays */
    int flat;  /* depth of the outermost flat one; 0 when none is open */
} json;

void jopen(json *j, char c);      /* '{' or '[' */
void jopen_flat(json *j, char c); /* the same, on one line */
void jclose(json *j, char c);     /* '}' or ']' */
void jsep(json *j);               /* before an array element */
void jkey(json *j, const char *k);
void jstr(json *j, const char *s);
void jkv_str(json *j, const char *k, const char *v);
void jkv_int(json *j, const char *k, long long v);

#endif
