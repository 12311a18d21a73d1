/* SHA-256 of a byte buffer as 64 lowercase hex digits (what sha256sum prints). */
#ifndef IGEMM_SHA256_H
#define IGEMM_SHA256_H

#include <stddef.h>

#define SHA256_HEX 65 /* 64 digits and the NUL */

void sha256_hex(const void *data, size_t size, char hex[SHA256_HEX]);

#endif
