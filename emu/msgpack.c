/* Minimal MessagePack reader (the subset LLVM writes for AMDGPU metadata,
 * plus the rest of the type system for robustness). */
#include "msgpack.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const uint8_t *p, *end;
    mp_doc *doc;
    int depth;
} reader;

static int need(reader *r, size_t n) { return (size_t)(r->end - r->p) >= n ? 0 : -1; }

static uint64_t be(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

static mp_node *alloc_nodes(mp_doc *d, size_t n)
{
    /* Nodes are addressed by pointer from their parents, so the arena never
     * moves: it is sized up front from the input length (every node takes at
     * least one byte of input). */
    if (d->used + n > d->cap)
        return NULL;
    mp_node *k = d->nodes + d->used;
    d->used += n;
    memset(k, 0, n * sizeof *k);
    return k;
}

static int parse(reader *r, mp_node *out);

static int parse_seq(reader *r, mp_node *out, mp_type t, uint32_t count)
{
    out->type = t;
    out->len = count;
    size_t n = t == MP_MAP ? 2 * (size_t)count : count;
    if (n > (size_t)(r->end - r->p))
        return -1;
    out->kids = alloc_nodes(r->doc, n);
    if (!out->kids && n)
        return -1;
    if (++r->depth > 64)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (parse(r, &out->kids[i]))
            return -1;
    r->depth--;
    return 0;
}

static int parse_str(reader *r, mp_node *out, uint32_t len)
{
    if (need(r, len))
        return -1;
    out->type = MP_STR;
    out->s = (const char *)r->p;
    out->len = len;
    r->p += len;
    return 0;
}

static int parse(reader *r, mp_node *out)
{
    if (need(r, 1))
        return -1;
    uint8_t b = *r->p++;
    if (b <= 0x7f) {
        out->type = MP_INT;
        out->i = b;
        return 0;
    }
    if (b >= 0xe0) {
        out->type = MP_INT;
        out->i = (int8_t)b;
        return 0;
    }
    if ((b & 0xf0) == 0x80)
        return parse_seq(r, out, MP_MAP, b & 15);
    if ((b & 0xf0) == 0x90)
        return parse_seq(r, out, MP_ARRAY, b & 15);
    if ((b & 0xe0) == 0xa0)
        return parse_str(r, out, b & 31);
    int n;
    switch (b) {
    case 0xc0: out->type = MP_NIL; return 0;
    case 0xc2: out->type = MP_BOOL; out->i = 0; return 0;
    case 0xc3: out->type = MP_BOOL; out->i = 1; return 0;
    case 0xcc: case 0xcd: case 0xce: case 0xcf:
        n = 1 << (b - 0xcc);
        if (need(r, (size_t)n))
            return -1;
        out->type = MP_INT;
        /* a uint64 past INT64_MAX saturates: no range check can take it
           for a small number */
        out->i = be(r->p, n) > INT64_MAX ? INT64_MAX : (int64_t)be(r->p, n);
        r->p += n;
        return 0;
    case 0xd0: case 0xd1: case 0xd2: case 0xd3: {
        n = 1 << (b - 0xd0);
        if (need(r, (size_t)n))
            return -1;
        uint64_t v = be(r->p, n);
        int shift = 64 - 8 * n;
        out->type = MP_INT;
        out->i = shift ? (int64_t)(v << shift) >> shift : (int64_t)v;
        r->p += n;
        return 0;
    }
    case 0xca: case 0xcb: {
        n = b == 0xca ? 4 : 8;
        if (need(r, (size_t)n))
            return -1;
        uint64_t v = be(r->p, n);
        out->type = MP_FLOAT;
        if (n == 4) {
            uint32_t u = (uint32_t)v;
            float f;
            memcpy(&f, &u, 4);
            out->f = f;
        } else
            memcpy(&out->f, &v, 8);
        r->p += n;
        return 0;
    }
    case 0xd9: case 0xda: case 0xdb:
    case 0xc4: case 0xc5: case 0xc6:
        n = b >= 0xd9 ? 1 << (b - 0xd9) : 1 << (b - 0xc4);
        if (need(r, (size_t)n))
            return -1;
        {
            uint32_t len = (uint32_t)be(r->p, n);
            r->p += n;
            return parse_str(r, out, len);
        }
    case 0xdc: case 0xdd:
        n = b == 0xdc ? 2 : 4;
        if (need(r, (size_t)n))
            return -1;
        {
            uint32_t c = (uint32_t)be(r->p, n);
            r->p += n;
            return parse_seq(r, out, MP_ARRAY, c);
        }
    case 0xde: case 0xdf:
        n = b == 0xde ? 2 : 4;
        if (need(r, (size_t)n))
            return -1;
        {
            uint32_t c = (uint32_t)be(r->p, n);
            r->p += n;
            return parse_seq(r, out, MP_MAP, c);
        }
    default:
        return -1; /* ext types are not used by AMDGPU metadata */
    }
}

mp_node *mp_parse(mp_doc *doc, const uint8_t *buf, size_t len)
{
    memset(doc, 0, sizeof *doc);
    doc->cap = len + 1;
    doc->nodes = calloc(doc->cap, sizeof *doc->nodes);
    if (!doc->nodes)
        return NULL;
    reader r = {buf, buf + len, doc, 0};
    mp_node *root = alloc_nodes(doc, 1);
    if (!root || parse(&r, root)) {
        mp_free(doc);
        return NULL;
    }
    return root;
}

void mp_free(mp_doc *doc)
{
    free(doc->nodes);
    memset(doc, 0, sizeof *doc);
}

const mp_node *mp_get(const mp_node *n, const char *key)
{
    if (!n || n->type != MP_MAP)
        return NULL;
    size_t kl = strlen(key);
    for (uint32_t i = 0; i < n->len; i++) {
        const mp_node *k = &n->kids[2 * i];
        if (k->type == MP_STR && k->len == kl && !memcmp(k->s, key, kl))
            return &n->kids[2 * i + 1];
    }
    return NULL;
}

int mp_str(const mp_node *n, char *dst, size_t len)
{
    if (!n || n->type != MP_STR || !len)
        return -1;
    size_t l = n->len < len - 1 ? n->len : len - 1;
    memcpy(dst, n->s, l);
    dst[l] = 0;
    return 0;
}

int64_t mp_int(const mp_node *n, int64_t def) { return n && (n->type == MP_INT || n->type == MP_BOOL) ? n->i : def; }

int mp_int_in(const mp_node *n, int64_t lo, int64_t hi, int64_t *out)
{
    if (!n || n->type != MP_INT || n->i < lo || n->i > hi)
        return -1;
    *out = n->i;
    return 0;
}
