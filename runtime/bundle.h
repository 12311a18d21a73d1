/* Clang offload bundles (what clang-offload-bundler -type=o writes, and what
 * HIP fat binaries are): several code objects in one file, each under an ID
 * such as "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-".
 *
 * Format (little-endian):
 *   "__CLANG_OFFLOAD_BUNDLE__"          24-byte magic
 *   uint64 entry count
 *   per entry: uint64 offset (from the start of the file), uint64 size,
 *              uint64 ID length, the ID's bytes (no NUL)
 *   the entries' bytes at their offsets
 * Compressed bundles ("CCOB" magic, clang-offload-bundler -compress) are
 * refused with that reason. */
#ifndef IGEMM_BUNDLE_H
#define IGEMM_BUNDLE_H

#include <stddef.h>
#include <stdint.h>

#define BUNDLE_MAGIC "__CLANG_OFFLOAD_BUNDLE__"
#define BUNDLE_MAX_ENTRIES 1024
#define BUNDLE_ID_MAX 256

typedef struct {
    char id[BUNDLE_ID_MAX]; /* NUL-terminated */
    uint64_t offset, size;
} bundle_entry;

typedef struct {
    int n;
    bundle_entry *e;
} bundle;

/* Does the image start like a bundle (either magic)? */
int bundle_is(const void *image, size_t size);

/* Read a bundle's entry table: 0, or -1 with the one-line reason (truncated
 * header, entry count, an entry past the end of the file, an empty or
 * over-long or duplicate ID, compression). Free with bundle_free. */
int bundle_parse(const void *image, size_t size, bundle *b, char *why, size_t len);
void bundle_free(bundle *b);

/* The entry to load on a device whose target ID is target_id ("gfx90a",
 * "gfx90a:sramecc+:xnack-"): a "hip" or "hipv4" entry for the amdgcn-amd-
 * amdhsa triple whose processor is the device's and whose every feature
 * setting (xnack+, sramecc-) the device has too; a feature the device
 * does not state (the emulator states none) accepts either setting. The
 * most specific such entry wins (most features stated; the first among
 * equals). Its index, or -1 with the reason and the bundle's IDs. */
int bundle_pick(const bundle *b, const char *target_id, char *why, size_t len);

/* The target ID part of an entry ID ("gfx90a:xnack-" of
 * "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-"), NULL when the entry is not a
 * HIP code object for amdgcn-amd-amdhsa (a host entry, say). */
const char *bundle_target_id(const char *id);

#endif
