/* The handle's buffers: igemm_alloc / igemm_free (with their sizes, so
 * that calls can check a buffer fits its allocation) and the copies. */
#include <stdio.h>

#include "handle_int.h"

igemm_status igemm_alloc(igemm_handle *h, void **p, size_t bytes)
{
    if (!h)
        return IGEMM_ERR_INVALID_ARG;
    h->err[0] = 0;
    if (!p)
        return handle_fail(h, IGEMM_ERR_INVALID_ARG, "igemm_alloc: the result pointer is NULL");
    *p = NULL;
    if (h->b->ops->alloc(h->b, p, bytes))
        return handle_fail(h, IGEMM_ERR_NO_MEMORY, "%s", h->b->err);
    if (allocs_add(&h->allocs, *p, bytes)) {
        h->b->ops->free(h->b, *p);
        *p = NULL;
        return handle_fail(h, IGEMM_ERR_NO_MEMORY, "out of memory");
    }
    return IGEMM_OK;
}

igemm_status igemm_free(igemm_handle *h, void *p)
{
    if (!h)
        return IGEMM_ERR_INVALID_ARG;
    h->err[0] = 0;
    if (!p)
        return IGEMM_OK;
    int inside;
    if (allocs_remove(&h->allocs, p, &inside))
        return handle_fail(h, IGEMM_ERR_INVALID_ARG, "igemm_free: %p %s", p,
                           inside ? "lies inside an igemm_alloc buffer, not at its start: nothing freed"
                                  : "is not a live igemm_alloc buffer of this handle (freed already, or never its "
                                    "own): nothing freed");
    h->b->ops->free(h->b, p);
    return IGEMM_OK;
}

igemm_status handle_fits_alloc(igemm_handle *h, const char *what, const void *p, size_t bytes)
{
    size_t size, off;
    if (!allocs_check(&h->allocs, p, bytes, &size, &off))
        return IGEMM_OK;
    return handle_fail(h, IGEMM_ERR_INVALID_ARG,
                       "%s needs %zu bytes at offset %zu of an igemm_alloc buffer of %zu bytes", what, bytes, off,
                       size);
}

/* The two copy directions share their checks; fn names the caller. */
static igemm_status copy(igemm_handle *h, const char *fn, bool to_device, void *dst, const void *src, size_t bytes)
{
    if (!h)
        return IGEMM_ERR_INVALID_ARG;
    h->err[0] = 0;
    if ((!dst || !src) && bytes)
        return handle_fail(h, IGEMM_ERR_INVALID_ARG, "%s: %s pointer is NULL", fn, dst ? "source" : "destination");
    char what[64];
    snprintf(what, sizeof what, "%s: the destination", fn);
    igemm_status st = handle_fits_alloc(h, what, dst, bytes);
    snprintf(what, sizeof what, "%s: the source", fn);
    if (st != IGEMM_OK || (st = handle_fits_alloc(h, what, src, bytes)) != IGEMM_OK)
        return st;
    if (bytes && (to_device ? h->b->ops->to_device : h->b->ops->to_host)(h->b, dst, src, bytes))
        return handle_fail(h, IGEMM_ERR_BACKEND, "%s", h->b->err);
    return IGEMM_OK;
}

igemm_status igemm_copy_to_device(igemm_handle *h, void *dst, const void *src, size_t bytes)
{
    return copy(h, "igemm_copy_to_device", true, dst, src, bytes);
}

igemm_status igemm_copy_to_host(igemm_handle *h, void *dst, const void *src, size_t bytes)
{
    return copy(h, "igemm_copy_to_host", false, dst, src, bytes);
}
