/* The performance database: the best kernel configuration that find mode
 * (igemm_find) measured, per target and problem, in a plain-text file.
 *
 * One record a line, five fields separated by blanks, '#' starts a comment:
 *
 *     gfx906 n1,c2,H5,W5,k3,y3,x3,p1,q1,u1,v1,l1,j1,g1,NCHW,FP32,cu60 naive 1234 cycles
 *
 * target, key (perfdb_key: the problem in MIOpenDriver's flag letters,
 * every field of igemm_problem, and the device's compute-unit count, so
 * that parts of one target with different CU counts keep apart),
 * configuration name, its cost and the cost's unit: "cycles" (emulator,
 * modeled issue cycles) or "ms" (HIP, event-timed). A target and key may
 * hold one record per unit; a lookup takes only the record whose unit is
 * the handle backend's own, so that an emulator measurement never steers a
 * HIP handle (nor a HIP one the emulator). */
#ifndef IGEMM_PERFDB_H
#define IGEMM_PERFDB_H

#include <stddef.h>
#include <stdint.h>

#include "../include/igemm.h"
#include "../conv/problem.h"

typedef struct {
    char arch[32];
    char key[160];
    char solution[96];
    double cost;
    char unit[8];
} perfdb_rec;

typedef struct {
    int n, cap;
    perfdb_rec *r;
    uint32_t *hash;   /* of each record's target, key and unit */
    int *slot, nslot; /* open-addressing index of r by them (-1: empty) */
} perfdb;

/* The key of a problem on a device of num_cu compute units:
 * "n1,c2,H5,W5,k3,y3,x3,p1,q1,u1,v1,l1,j1,g1,NCHW,FP32,cu60"; the type is
 * FP32, FP16, FP16-FLUSH (fp16_mode IGEMM_FP16_FLUSH), FP16-ALT (IGEMM_FP16_ALT) or BF16. */
void perfdb_key(const igemm_problem *p, int num_cu, char *buf, size_t len);

/* Read a database file into db (which must be zeroed or freed), in time
 * linear in its size. A file that does not exist is an empty database. A
 * malformed line (bad fields, a cost that is not a number >= 0, too long, a
 * NUL byte) is skipped: warning (may be NULL) gets "FILE:LINE: reason; the
 * line is skipped" for the first one and the count of them ("" when none).
 * Returns IGEMM_OK, or IGEMM_ERR_IO (unreadable, not a regular file) /
 * IGEMM_ERR_NO_MEMORY with the reason in why, or IGEMM_ERR_INVALID_ARG
 * for a file that is not a performance database: lines of which none is a
 * record, and no header line ("# igemm performance database"). */
igemm_status perfdb_load(perfdb *db, const char *path, char *warning, size_t wlen, char *why, size_t len);

/* A cost the database stores and loads: finite and >= 0. */
int perfdb_cost_ok(double cost);
void perfdb_free(perfdb *db);

/* The record of (arch, key) with unit `unit`; NULL when none. */
const perfdb_rec *perfdb_find(const perfdb *db, const char *arch, const char *key, const char *unit);

/* Insert r, replacing the record with the same arch, key and unit.
 * Returns 0 or -1 (out of memory). */
int perfdb_put(perfdb *db, const perfdb_rec *r);

/* Store r in the file at path, as MIOpen stores its user perf-db: under an
 * exclusive lock (flock of PATH.lock, which stays beside it), re-read the
 * file (so records other processes wrote meanwhile survive), merge r in
 * (replacing the record of its target, key and unit; every other line,
 * comments and lines this version does not understand included, kept byte
 * for byte), write a temporary file next to it and rename it over the old
 * one (conv/ofile.h), then unlock. Returns IGEMM_OK, IGEMM_ERR_INVALID_ARG
 * (r's cost fails perfdb_cost_ok, or the file is not a performance
 * database: nothing is written), IGEMM_ERR_IO or IGEMM_ERR_NO_MEMORY with
 * the reason in why. */
igemm_status perfdb_store(const char *path, const perfdb_rec *r, char *why, size_t len);

#endif
