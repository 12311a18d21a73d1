/* Small internal helpers shared by the library, the generator, the tools and
 * the tests (linked from libigemm.a; not part of the public API). */
#ifndef IGEMM_UTIL_H
#define IGEMM_UTIL_H

#include <stddef.h>

/* Formats a reason into why[len] (nothing when why is NULL or len is 0): the
 * runtime's one way of filling the caller's message buffers. */
void why_printf(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A broken invariant of the library itself (never bad input): prints
 * "igemm: internal error: <message>" to stderr and aborts. Bad input is
 * reported through a status and a reason instead. */
void igemm_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* The whole of a regular file, malloc'd, with a NUL after its *size bytes
 * (so a text file is also a string); NULL when path is not a regular file
 * or cannot be read. An empty file gives a buffer and *size 0. */
void *read_file(const char *path, size_t *size);

/* The decimal integer s (the whole string) into *out when it lies in
 * [lo, hi]: returns 0, else -1 (s NULL or empty included). */
int parse_long(const char *s, long lo, long hi, long *out);

#endif
