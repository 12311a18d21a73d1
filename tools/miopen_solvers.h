/* MIOpen's convolution solver ids (src/solver.cpp, the id registry of MIOpen
 * 3.x; ids are stable there: a removed solver leaves its number unused), as
 * -S / --solution in a pasted MIOpenDriver line gives them, and the family
 * of our configurations that does the same job, where one does. */
#ifndef IGEMM_MIOPEN_SOLVERS_H
#define IGEMM_MIOPEN_SOLVERS_H

#include "../include/igemm.h"

typedef enum {
    MS_NONE,      /* no counterpart here */
    MS_NAIVE,     /* a direct naive kernel: our naive configuration */
    MS_V4R1_FMA,  /* v4r1 implicit GEMM on the vector ALU: our fma configurations */
    MS_V4R1_MFMA, /* v4r1-style implicit GEMM on matrix cores: our mfma configurations */
} miopen_family;

typedef struct {
    int id;
    const char *name;
    miopen_family family;
    const char *what;    /* a few words for the note */
} miopen_solver;

/* The backward-data solver of that id or name; NULL when MIOpen has no
 * backward-data convolution solver by it. */
const miopen_solver *miopen_solver_by_id(long id);
const miopen_solver *miopen_solver_by_name(const char *name);

/* The name of our configuration of s's family that the heuristic picks for p
 * on h (among those h can run for p), into out; 0, or -1 when s has no
 * counterpart or none of its family applies. */
int miopen_solver_pick(igemm_handle *h, const igemm_problem *p, const miopen_solver *s, char *out, size_t len);

/* The MIOpen id of the solver that our configuration `name` corresponds to
 * (naive 86, v4r1 fma 65, mfma 82 for NCHW and 108 for NHWC): the number
 * of MIOpenDriver's "Solution: ID/NAME" line; 0 when name is none of ours. */
int miopen_solver_id_of(const char *name);

#endif
