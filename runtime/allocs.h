/* The buffers a handle's igemm_alloc made, with their sizes: a tensor or a
 * copy that starts inside one of them must end inside it too (the
 * emulator's kernels would otherwise run past a short buffer). Pointers the
 * table does not know (the user's own buffers) are taken as they are. */
#ifndef IGEMM_ALLOCS_H
#define IGEMM_ALLOCS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uintptr_t base;
    size_t size;
} alloc_rec;

typedef struct {
    alloc_rec *r;
    int n, cap;
} alloc_table;

/* Record [p, p + size); returns 0 or -1 (out of memory). */
int allocs_add(alloc_table *t, const void *p, size_t size);
/* Forget the allocation that starts at p: 0, or -1 when none does (*inside,
 * may be NULL, set when p lies inside one). */
int allocs_remove(alloc_table *t, const void *p, int *inside);
void allocs_free(alloc_table *t);

/* 0 when [p, p + bytes) lies in the allocation that holds p, or p is in none;
 * -1 when it runs past the end of that allocation, with its size and the
 * offset of p in it. */
int allocs_check(const alloc_table *t, const void *p, size_t bytes, size_t *alloc_size, size_t *offset);

#endif
