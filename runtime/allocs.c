/* igemm_alloc bookkeeping (allocs.h). */
#include "allocs.h"

#include <stdlib.h>

int allocs_add(alloc_table *t, const void *p, size_t size)
{
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 16;
        alloc_rec *r = realloc(t->r, sizeof *r * (size_t)cap);
        if (!r)
            return -1;
        t->r = r;
        t->cap = cap;
    }
    t->r[t->n++] = (alloc_rec){(uintptr_t)p, size};
    return 0;
}

int allocs_remove(alloc_table *t, const void *p, int *inside)
{
    uintptr_t a = (uintptr_t)p;
    if (inside)
        *inside = 0;
    for (int i = 0; i < t->n; i++) {
        if (t->r[i].base == a) {
            t->r[i] = t->r[--t->n];
            return 0;
        }
        if (inside && a > t->r[i].base && a - t->r[i].base < t->r[i].size)
            *inside = 1;
    }
    return -1;
}

void allocs_free(alloc_table *t)
{
    free(t->r);
    t->r = NULL;
    t->n = t->cap = 0;
}

int allocs_check(const alloc_table *t, const void *p, size_t bytes, size_t *alloc_size, size_t *offset)
{
    uintptr_t a = (uintptr_t)p;
    for (int i = 0; i < t->n; i++) {
        const alloc_rec *r = &t->r[i];
        /* a zero-byte allocation still owns its address */
        if (a < r->base || a - r->base >= (r->size ? r->size : 1))
            continue;
        *alloc_size = r->size;
        *offset = a - r->base;
        return bytes > r->size - (a - r->base) ? -1 : 0;
    }
    return 0;
}
