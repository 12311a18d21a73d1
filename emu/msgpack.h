/* A minimal MessagePack reader for the AMDGPU metadata note: parses into
 * a tree of nodes held in one arena. */
#ifndef IGEMM_EMU_MSGPACK_H
#define IGEMM_EMU_MSGPACK_H

#include <stddef.h>
#include <stdint.h>

typedef enum { MP_NIL, MP_BOOL, MP_INT, MP_FLOAT, MP_STR, MP_ARRAY, MP_MAP } mp_type;

typedef struct mp_node {
    mp_type type;
    int64_t i;          /* MP_INT / MP_BOOL */
    double f;
    const char *s;      /* MP_STR (not NUL-terminated: use len) */
    uint32_t len;       /* string length or element count */
    struct mp_node *kids; /* arrays: len nodes; maps: 2*len nodes (key, value) */
} mp_node;

typedef struct {
    mp_node *nodes;
    size_t used, cap;
} mp_doc;

/* Parse buf into doc; returns the root or NULL on malformed input. */
mp_node *mp_parse(mp_doc *doc, const uint8_t *buf, size_t len);
void mp_free(mp_doc *doc);

/* Map lookup by string key; NULL when absent or n is not a map. */
const mp_node *mp_get(const mp_node *n, const char *key);
/* Copy a string node into dst (NUL-terminated, truncated). Returns 0 or -1. */
int mp_str(const mp_node *n, char *dst, size_t len);
/* Integer value of an int node, or def. */
int64_t mp_int(const mp_node *n, int64_t def);
/* *out = the integer node n when it lies in [lo, hi] (an unsigned value past
 * INT64_MAX never does): 0, else -1 (also for a node that is no integer). */
int mp_int_in(const mp_node *n, int64_t lo, int64_t hi, int64_t *out);

#endif
