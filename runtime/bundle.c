/* Clang offload bundles: the entry table and the choice of an entry for a
 * device's target ID (bundle.h). */
#include "bundle.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HDR 24 /* the magic */

static int say(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int say(char *why, size_t len, const char *fmt, ...)
{
    if (why && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, len, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static uint64_t le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

int bundle_is(const void *image, size_t size)
{
    return image && ((size >= HDR && !memcmp(image, BUNDLE_MAGIC, HDR)) || (size >= 4 && !memcmp(image, "CCOB", 4)));
}

void bundle_free(bundle *b)
{
    free(b->e);
    b->e = NULL;
    b->n = 0;
}

int bundle_parse(const void *image, size_t size, bundle *b, char *why, size_t len)
{
    const unsigned char *p = image;
    b->n = 0;
    b->e = NULL;
    if (size >= 4 && !memcmp(p, "CCOB", 4))
        return say(why, len, "compressed offload bundle (clang-offload-bundler -compress): not supported, "
                             "bundle without -compress");
    if (size < HDR || memcmp(p, BUNDLE_MAGIC, HDR))
        return say(why, len, "not an offload bundle (no " BUNDLE_MAGIC " magic)");
    if (size < HDR + 8)
        return say(why, len, "offload bundle truncated in its header (%zu bytes)", size);
    uint64_t n = le64(p + HDR);
    /* each entry takes at least 24 bytes of table and a 1-byte ID */
    if (!n)
        return say(why, len, "offload bundle has no entries");
    if (n > BUNDLE_MAX_ENTRIES)
        return say(why, len, "offload bundle entry count %llu is above %d", (unsigned long long)n,
                   BUNDLE_MAX_ENTRIES);
    if (n > (size - HDR - 8) / 25)
        return say(why, len, "offload bundle entry count %llu does not fit its %zu bytes", (unsigned long long)n,
                   size);
    if (!(b->e = calloc(n, sizeof *b->e)))
        return say(why, len, "out of memory");
    size_t at = HDR + 8;
    for (uint64_t i = 0; i < n; i++) {
        bundle_entry *e = &b->e[i];
        if (size - at < 24) {
            bundle_free(b);
            return say(why, len, "offload bundle truncated in entry %llu's header", (unsigned long long)i);
        }
        e->offset = le64(p + at);
        e->size = le64(p + at + 8);
        uint64_t idlen = le64(p + at + 16);
        at += 24;
        if (!idlen || idlen >= BUNDLE_ID_MAX || idlen > size - at) {
            bundle_free(b);
            return say(why, len, "offload bundle entry %llu has an ID of %llu bytes (1 to %d, within the file)",
                       (unsigned long long)i, (unsigned long long)idlen, BUNDLE_ID_MAX - 1);
        }
        for (uint64_t c = 0; c < idlen; c++)
            if (p[at + c] < 0x21 || p[at + c] > 0x7e) {
                bundle_free(b);
                return say(why, len, "offload bundle entry %llu's ID has a byte 0x%02x that is not printable",
                           (unsigned long long)i, p[at + c]);
            }
        memcpy(e->id, p + at, idlen);
        e->id[idlen] = 0;
        at += idlen;
        b->n = (int)i + 1;
    }
    /* the table read: where the entries lie, and their IDs apart */
    for (int i = 0; i < b->n; i++) {
        const bundle_entry *e = &b->e[i];
        if (e->offset > size || e->size > size - e->offset) {
            char id[BUNDLE_ID_MAX];
            unsigned long long off = (unsigned long long)e->offset, bytes = (unsigned long long)e->size;
            memcpy(id, e->id, sizeof id);
            bundle_free(b); /* e is gone with it: the message uses the copies */
            return say(why, len, "offload bundle entry %s (offset %llu, %llu bytes) runs past the end of the file "
                       "(%zu bytes)", id, off, bytes, size);
        }
        for (int k = 0; k < i; k++)
            if (!strcmp(b->e[k].id, e->id)) {
                char id[BUNDLE_ID_MAX];
                memcpy(id, e->id, sizeof id);
                bundle_free(b);
                return say(why, len, "offload bundle has the entry %s twice", id);
            }
    }
    return 0;
}

const char *bundle_target_id(const char *id)
{
    const char *rest;
    if (!strncmp(id, "hipv4-", 6))
        rest = id + 6;
    else if (!strncmp(id, "hip-", 4))
        rest = id + 4;
    else
        return NULL;
    static const char triple[] = "amdgcn-amd-amdhsa-";
    if (strncmp(rest, triple, sizeof triple - 1))
        return NULL;
    rest += sizeof triple - 1;
    /* "-gfx90a" (empty environment), "gfx90a" (a three-part triple, older
       clangs) or "ENV-gfx90a" */
    if (*rest == '-')
        rest++;
    else if (strncmp(rest, "gfx", 3)) {
        const char *dash = strchr(rest, '-');
        if (!dash)
            return NULL;
        rest = dash + 1;
    }
    return !strncmp(rest, "gfx", 3) ? rest : NULL;
}

/* The setting ('+', '-') target ID tid states for feature name (len bytes), 0 when it states none. */
static char feature(const char *tid, const char *name, size_t len)
{
    for (const char *f = strchr(tid, ':'); f; f = strchr(f + 1, ':')) {
        const char *end = f + 1 + strcspn(f + 1, ":");
        if ((size_t)(end - f - 2) == len && !strncmp(f + 1, name, len) && (end[-1] == '+' || end[-1] == '-'))
            return end[-1];
    }
    return 0;
}

/* How many features entry target ID e states, or -1 when a device with target ID d cannot run it. */
static int match(const char *e, const char *d)
{
    size_t pe = strcspn(e, ":"), pd = strcspn(d, ":");
    if (pe != pd || strncmp(e, d, pe))
        return -1;
    int stated = 0;
    for (const char *f = strchr(e, ':'); f; f = strchr(f + 1, ':')) {
        const char *end = f + 1 + strcspn(f + 1, ":");
        if (end - f < 3 || (end[-1] != '+' && end[-1] != '-'))
            return -1; /* not "name+" or "name-": no device runs it */
        char dev = feature(d, f + 1, (size_t)(end - f - 2));
        if (dev && dev != end[-1])
            return -1;
        stated++;
    }
    return stated;
}

int bundle_pick(const bundle *b, const char *target_id, char *why, size_t len)
{
    int best = -1, best_stated = -1;
    for (int i = 0; i < b->n; i++) {
        const char *t = bundle_target_id(b->e[i].id);
        int stated = t && b->e[i].size ? match(t, target_id) : -1;
        if (stated > best_stated)
            best = i, best_stated = stated;
    }
    if (best >= 0)
        return best;
    char ids[1024] = "";
    size_t n = 0;
    for (int i = 0; i < b->n && n + 1 < sizeof ids; i++) {
        int w = snprintf(ids + n, sizeof ids - n, "%s%s", i ? ", " : "", b->e[i].id);
        n = w < 0 ? sizeof ids : n + (size_t)w;
    }
    return say(why, len, "offload bundle has no entry for %s (entries: %s)", target_id, ids);
}
