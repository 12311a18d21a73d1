/* MIOpenDriver's conv flags (driver/conv_driver.hpp, ConvDriver::AddCmdLineArgs):
 * every short and long name, and what igemm does with each: a problem
 * field, a layout, the direction, a driver option the CLI honours (verify,
 * time, iterations, wall clock, search, solution), accepted with no effect,
 * or accepted only at its default value (anything else is refused with the
 * reason). One table, read by the problem parser, the CLI and its --help. */
#ifndef IGEMM_DRIVER_FLAGS_H
#define IGEMM_DRIVER_FLAGS_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
    DF_FIELD,     /* an int of igemm_problem (field below) */
    DF_LAYOUT,    /* -I/-O/-f: NCHW or NHWC (field: 0 dx, 1 dy, 2 filter) */
    DF_FORW,      /* -F: directions, a bit mask (0: all) */
    DF_MODE,      /* -m: conv (trans refused) */
    DF_SPATIAL,   /* --spatial_dim: 2 (3 refused) */
    DF_RUN,       /* a driver option: the CLI honours it, a shape list's line ignores it */
    DF_NO_EFFECT, /* accepted, nothing to do here */
    DF_DEFAULT,   /* accepted at its default value only */
    DF_NOTED,     /* accepted; a value other than dflt is ignored with one note
                     line (what says why) on a command line */
} driver_flag_kind;

typedef struct {
    const char *lng;   /* MIOpenDriver's long name, without "--" */
    char shrt;         /* its one-letter name ('-X'; 0: none usable on a command line) */
    driver_flag_kind kind;
    int field;         /* DF_FIELD: offsetof in igemm_problem; DF_LAYOUT: tensor */
    const char *dflt;  /* DF_DEFAULT: the one accepted value; DF_NOTED: the value
                          that needs no note (NULL: every value does) */
    const char *what;  /* for --help and messages */
    int lo, hi;        /* DF_NOTED: the integers MIOpenDriver accepts */
} driver_flag;

/* The flag named by a (e.g. "-n", "--batchsize", "--conv_stride_0"); NULL
 * when none. */
const driver_flag *driver_flag_find(const char *a);

/* DF_NOTED: whether value v of f needs its note (a valid value, not f's quiet one). */
bool driver_flag_noted(const driver_flag *f, const char *v);

/* Every flag, for --help: i from 0; NULL past the end. */
const driver_flag *driver_flag_get(int i);

/* MIOpenDriver's -F bits: 1 forward, 2 backward data, 4 backward weights; 0
 * all three. */
enum { FORW_FWD = 1, FORW_BWD = 2, FORW_WRW = 4 };
/* Whether -F forw runs backward data (0, 2, 3, 6). */
bool driver_forw_has_bwd(int forw);
/* "forward", "backward weights", "forward + backward weights" for forw. */
const char *driver_forw_name(int forw);

/* A word that names MIOpenDriver itself ("MIOpenDriver", "./bin/MIOpenDriver",
 * any path ending in "/MIOpenDriver", "MIOpenDriver.exe", ".\\bin\\MIOpenDriver.exe"):
 * a pasted command line's first word. */
bool driver_is_program(const char *word);

/* A shell environment assignment ("MIOPEN_FIND_MODE=1"), as pasted lines
 * carry before the program word. */
bool driver_is_env_assignment(const char *word);

#endif
