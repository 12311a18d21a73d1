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

/* A text file to read line by line: only a regular file is accepted (a
 * directory, a device or a FIFO is refused: /dev/zero would never end).
 * Returns the stream, or NULL with "PATH is a directory" / "PATH is not a
 * regular file" / "cannot read PATH: strerror" in why; *missing (may be
 * NULL) is set when the path does not exist. */
#include <stdio.h>
FILE *text_open(const char *path, int *missing, char *why, size_t len);

/* Read one line of at most cap - 1 bytes (its newline dropped) into buf.
 * Returns 1 for a line, 0 at the end of the file, TEXT_LONG for a line of
 * cap bytes or more (the rest of it is consumed), TEXT_NUL for a line with
 * a NUL byte (consumed), TEXT_ERROR for a read error. */
enum { TEXT_LONG = -1, TEXT_NUL = -2, TEXT_ERROR = -3 };
int text_line(FILE *f, char *buf, size_t cap);

/* What a text_line result other than 0 and 1 means ("line longer than 1023
 * bytes", "NUL byte in the line", "read error"). */
const char *text_line_error(int r, size_t cap, char *buf, size_t len);

/* Comma-separated lists ("fma,mfma"): the next item of *p, its start in
 * *item and its length in *n (0 for an empty item), *p moved past it and
 * its comma; false at the end (*p NULL or empty). The one scanner of such
 * lists: IGEMM_DISABLE_MATH, igemm_run_info.kernels. */
#include <stdbool.h>
bool list_next(const char **p, const char **item, size_t *n);
/* Whether list has the item name[0..n). */
bool list_has(const char *list, const char *name, size_t n);

/* The decimal integer s (the whole string: an optional '-' then digits; no
 * blanks, no '+') into *out when it lies in [lo, hi]: returns 0, else -1
 * (s NULL or empty included). */
int parse_long(const char *s, long lo, long hi, long *out);

#endif
