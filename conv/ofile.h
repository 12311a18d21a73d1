/* Output files that a failed write never destroys: the text goes to a
 * temporary file beside the target, which replaces it (rename) only once
 * everything is written and closed. A path that exists and is not a regular
 * file (/dev/stdout, /dev/full, a FIFO) is written in place and never
 * removed; a directory is refused. NULL or "-" is standard output. On every
 * error path only the temporary file is removed: never a path the program
 * did not create. */
#ifndef IGEMM_OFILE_H
#define IGEMM_OFILE_H

#include <stddef.h>
#include <stdio.h>

typedef struct {
    FILE *f;          /* write here between ofile_open and ofile_commit */
    char *path;       /* the file to replace (malloc'd; NULL: standard output) */
    char *tmp;        /* the temporary file (malloc'd; NULL: written in place) */
} ofile;

/* Returns 0, or -1 with "cannot write PATH: strerror" (or "PATH is a
 * directory") in why. */
int ofile_open(ofile *o, const char *path, char *why, size_t len);

/* Flush and close; on success rename the temporary file over the path.
 * Returns 0, or -1 with "error writing PATH: strerror" in why (the old
 * file, if any, is left as it was). */
int ofile_commit(ofile *o, char *why, size_t len);

/* Give up: close and remove the temporary file (nothing else). */
void ofile_abort(ofile *o);

/* The whole of data into path through an ofile: 0 or -1 with why. */
int ofile_write_all(const char *path, const void *data, size_t size, char *why, size_t len);

#endif
