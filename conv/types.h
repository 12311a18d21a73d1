/* Descriptors of what a kernel family is parameterised by beyond its tile:
 * the data type of its tensors, their memory layout, and the math strategy
 * that multiplies (FMA on the vector ALUs now; matrix cores next). Kernel
 * names, configurations and the generator all read these tables; nothing
 * else spells "fp32" or "nchw". */
#ifndef IGEMM_CONV_TYPES_H
#define IGEMM_CONV_TYPES_H

#include "../arch/mfma.h"
#include "../include/igemm.h"

/* One data type of dx, dy and w (accumulation is always fp32). */
typedef struct {
    igemm_dtype id;
    const char *name;   /* in kernel names and messages: "fp32" */
    const char *command;/* MIOpenDriver's command word for it: "conv", "convfp16", "convbfp16" */
    int bytes;          /* element size in memory */
    int log2_bytes;
    mfma_type mfma;     /* the MFMA A/B type of these elements (its matrix peak: mfma_peak_tflops) */
} igemm_dtype_desc;

/* One tensor layout (dx, dy and the filter alike). */
typedef struct {
    igemm_layout id;
    const char *name;   /* in kernel names: "nchw" */
    const char *upper;  /* as MIOpenDriver spells it: "NCHW" */
} igemm_layout_desc;

/* The convolution directions: which tensor a problem computes from which
 * (MIOpenDriver's -F: 1 forward, 2 backward data, 4 backward weights).
 * Every solver serves one direction (solver.h); backward data is the only
 * one implemented, the others have their place here and in the solver
 * registry (docs/ARCHITECTURE.md, "How to add a direction"). Zero is
 * backward data, so a problem that says nothing is one. */
typedef enum { IGEMM_DIR_BWD_DATA = 0, IGEMM_DIR_FWD = 1, IGEMM_DIR_BWD_WEIGHTS = 2, IGEMM_DIR_COUNT } igemm_direction;

typedef struct {
    igemm_direction id;
    const char *name;    /* "bwd-data" */
    int driver_forw;     /* MIOpenDriver's -F value of the direction alone */
    const char *out, *in0, *in1; /* the tensor it writes and the two it reads */
} igemm_direction_desc;

/* The math strategies of the v4r1 kernels. */
typedef enum { IGEMM_MATH_FMA = 0, IGEMM_MATH_MFMA = 1, IGEMM_MATH_COUNT } igemm_math;

typedef struct {
    igemm_math id;
    const char *name;   /* "fma" */
} igemm_math_desc;

/* The descriptor of a value; NULL when the value is not one of the enum. */
const igemm_dtype_desc *igemm_dtype_get(igemm_dtype d);
const igemm_layout_desc *igemm_layout_get(igemm_layout l);
const igemm_math_desc *igemm_math_get(igemm_math m);
const igemm_direction_desc *igemm_direction_get(igemm_direction d);

/* The --fp16_mode spelling of an fp16 mode ("accurate", "flush", "alt"; the
 * CLI's, the problem line's and the Python package's); NULL when the value
 * is not one of the enum. */
const char *igemm_fp16_mode_name(igemm_fp16_mode m);

/* The data type whose MIOpenDriver command word is cmd; NULL when none. */
const igemm_dtype_desc *igemm_dtype_by_command(const char *cmd);
/* The data type named name ("fp32", "fp16", "bf16"); NULL when none. */
const igemm_dtype_desc *igemm_dtype_by_name(const char *name);
/* The layout MIOpenDriver spells upper ("NCHW", "NHWC"); NULL when none. */
const igemm_layout_desc *igemm_layout_by_upper(const char *upper);

#endif
