/* The v4r1 backward-data kernel writer: one state struct shared by its
 * stages, and the strategy interfaces (the dy data path, the staging
 * conversion, the LDS tile format, the layout, the math, the dx store
 * path).
 *
 * A workgroup computes (part of) one phase (iy, ix) of the v4r1
 * decomposition (docs/KERNELS.md); one launch covers every non-empty phase
 * ("multihead": the phase is block / workgroups-per-phase, its values a row
 * of a table in the kernel arguments). A phase is the GEMM
 *   C[M x N] = A[K x M]^T B[K x N],  M = C/G, N = n * HTs * WTs,
 *   K = (K/G) * YDotSlice * XDotSlice,
 * with A = w (rows gemm_k = (k, ydot, xdot), columns c) and B = dy (columns
 * (n, htilda, wtilda), zero where ho or wo falls outside dy).
 *
 * The stages, in the order the kernel runs them (kernel.c):
 *   setup.c     arguments, workgroup -> (phase, group, m tile, n tile),
 *               tensor bases and buffer resources
 *   staging.c   global -> registers -> LDS: per-thread load offsets and
 *               masks, the per-tap dy bounds, the tile loads and LDS writes
 *   math (math_*.c)  LDS -> fragments -> accumulators: the strategy below
 *   walk.c      the K walk over taps and channel blocks: prologue, the
 *               double-buffered main loop, the advance between steps
 *   fixup.c     the non-finite guard (unsplit kernels): NaN accumulators
 *               of the border band recomputed from the valid taps
 *   epilogue.c  accumulators -> dx with masked stores
 * and the layout (layout.c: NCHW, NHWC), which every stage asks what lies
 * contiguous and at which strides instead of testing which it is, and the
 * LDS tile format (lds_format.c: fp32 entries, k quads), which the staging
 * and the math ask how the tiles lie in LDS.
 *
 * Every stage reads and writes this one struct; registers are allocated
 * where a stage first needs them and released where the last user is done
 * (the order is part of the generated code: changing it renumbers
 * registers). */
#ifndef IGEMM_GEN_V4R1_KW_H
#define IGEMM_GEN_V4R1_KW_H

#include "../../arch/kargs.h"
#include "../../conv/v4r1_config.h"
#include "../emit_helpers.h"
#include "../values.h"

/* Lanes with nothing to load or store use this offset: past NUM_RECORDS
 * under every reading of the gfx9 range check, so loads read 0 and stores
 * are dropped. */
#define V4R1_INVALID_OFFSET 0x80000000u
/* NUM_RECORDS of the dy and dx resources (their offsets are masked instead) */
#define V4R1_OPEN_RECORDS 0x7fffffffu
/* The bytes of the LDS tile formats' entries (v4r1_lds_format below): one
 * fp32 value, or one k quad of 16-bit values. */
#define V4R1_LDS_BYTES 4
#define V4R1_QUAD_BYTES 8 /* one k quad of 16-bit values */

typedef struct v4r1_kw v4r1_kw;

/* A B (dy) data path of the staging (v4r1_bpath in conv/v4r1_config.h):
 * how the threads map onto the KPB x NPB tile, load it and write it to
 * LDS. A thread owns b_cols columns (col_step apart, w->sb) of b_vecs
 * vectors each (rows w->dkb apart); the staging computes their offsets and
 * per-tap masks from the mapping (v_boff[i * b_cols + j]: vector i of
 * column j). */
typedef struct {
    const char *name;
    /* thread -> its first column (into v_nb) and its first row (w->v_bkk) */
    void (*map)(v4r1_kw *w, opnd v_nb);
    /* whether full channel blocks load vectors only under a shape condition,
       and that condition (t0 nonzero: load element by element; t1 scratch) */
    bool (*has_check)(const v4r1_kw *w);
    void (*vec_check)(v4r1_kw *w, opnd t0, opnd t1);
    /* the tile's B loads (after A's); after the wait, the loaded registers
       made LDS entries (fp32 tiles: before A's writes), and their writes */
    void (*load)(v4r1_kw *w);
    /* the fewest vector memory instructions load issues on any of its
       paths (the walk's s_waitcnt vmcnt for a tile with a later one in
       flight counts on it) */
    int (*min_loads)(const v4r1_kw *w);
    void (*prepare)(v4r1_kw *w);
    void (*write)(v4r1_kw *w);
} v4r1_dy_path;
/* lanes along dy's pixels (staging.c) */
extern const v4r1_dy_path v4r1_dy_pixels;
/* lanes along one pixel's channels, padded LDS rows (dy_channels.c) */
extern const v4r1_dy_path v4r1_dy_channels;

/* A staging conversion (the configuration's stage type, v4r1_config.h):
 * what becomes of the tensors' 16-bit values between the registers they
 * load into and the k-quad LDS tiles the matrix instructions read. The
 * staging passes every k-quad register to convert right before it writes
 * it to LDS. */
typedef struct {
    const char *name;
    /* the n dwords at regs (k quads of the tensors' type), in place
       (scratch: w->v_t, w->s_m) */
    void (*convert)(v4r1_kw *w, opnd regs, int n);
} v4r1_stage_cvt;
/* the values as they are (staging.c) */
extern const v4r1_stage_cvt v4r1_stage_as_is;
/* fp16 rounded to bf16 (fp16_mode alt; staging.c) */
extern const v4r1_stage_cvt v4r1_stage_fp16_bf16;

/* An LDS tile format (the configuration's kpack; lds_format.c): how the
 * A and B tiles lie in LDS, and how the staging makes the registers a
 * tile loaded into entries and writes them. An entry holds kpack
 * consecutive tile rows (GEMM K) of one column, entry_bytes wide: element
 * (k, m) of a tile whose rows hold L entries lies at byte
 *   ((k / kpack) * L + m) * entry_bytes + (k % kpack) * entry_bytes / kpack.
 * fp32 entries (kpack 1, 4 bytes; 16-bit values widened): the FMA and f32
 * MFMA math. k quads (kpack 4, 8 bytes: four 16-bit values of consecutive
 * k): the 16-bit MFMAs (a fragment is one ds_read_b64) and the FMA's
 * v_dot2_f32_f16. Accumulation is fp32 either way; dx is rounded to
 * nearest even when the epilogue stores it. A thread's load vectors are
 * rows dka (dkb) apart, or with kpack > 1 the kpack consecutive rows of
 * its entries (kernel.c). */
typedef struct {
    const char *name;
    /* entry_regs: entry_bytes / 4, the VGPRs of an entry and of a math
       fragment read from one */
    int kpack, entry_bytes, entry_regs;
    /* 16-bit values become fp32 entries (true), or stay in their type (the
       staging conversion, w->cvt, may round them on the way) */
    bool widens;
    /* the register that element (row i, column j) of a thread's vectors of
       `width` columns loads into, and the first register of w's rows where
       they load as vectors (the row vectors' path) */
    int (*slot)(int i, int j, int width);
    int (*row_vectors_at)(int width);
    /* the format's own registers: at the end of the staging's setup, and
       at its release */
    void (*setup)(v4r1_kw *w);
    void (*release)(v4r1_kw *w);
    /* nv vectors of `width` columns at g, as loaded (slot), made entries
       in place */
    void (*entries)(v4r1_kw *w, opnd g, int nv, int width);
    /* their entries written to LDS at addr + buf: rows dk apart in rows of
       len entries, a vector's columns `step` apart */
    void (*write)(v4r1_kw *w, opnd g, opnd addr, int buf, int nv, int width, int dk, int len, int step);
    /* the tile in flight, A's registers and B's (through w->bp), to LDS */
    void (*write_tile)(v4r1_kw *w);
} v4r1_lds_format;
extern const v4r1_lds_format v4r1_lds_fp32, v4r1_lds_quads;
/* One column's `rows` consecutive tile rows (rows / kpack entries at g,
 * converted first: w->cvt) to LDS at addr + buf, rows len entries apart. */
void v4r1_write_column(v4r1_kw *w, opnd g, int rows, opnd addr, int buf, int len);

/* The GEMM dimensions (the top comment above): M the channels of dx (w's
 * columns), N the dx pixels of a phase (dy's columns), K dy's channels
 * and the taps. */
typedef enum { V4R1_DIM_M, V4R1_DIM_N, V4R1_DIM_K } v4r1_dim;

/* A tensor layout (every tensor of a problem has the problem's): what the
 * stages ask of it, by what it means, instead of testing its name
 * (layout.c: NCHW, pixels innermost; NHWC, channels innermost). */
typedef struct {
    const char *name;
    /* the GEMM dimension along which consecutive elements are contiguous
       in dx (M: a pixel's channels; N: a channel's pixels) and in dy (K or N).
       dx's picks how the direct store path addresses the rows (epilogue.c:
       along M a pixel's channels side by side, 4 rows a vector, a row an
       offset; along N a channel at a time, the base moving to each) */
    v4r1_dim dx_inner, dy_inner;
    /* the column distance between the elements of a thread's `width`
       elements of a row over a tile of `cols` columns (w->sa; w->sb on
       dy's pixel path, the channel path sets its own): NCHW cols/width,
       so that consecutive lanes take consecutive columns (the tensors'
       contiguous pixels, and w's channels in the KYXC copy); NHWC 1 */
    int (*vec_stride)(int cols, int width);
    /* the byte strides the staging and the walk use: w->a_mstride,
       w->b_rowstride, w->b_pix (esz: the element size) */
    void (*strides)(v4r1_kw *w, sv esz);
    /* dx's: w->c_rowstride, w->c_pix (hiwi_bytes: dx's H*W in bytes) */
    void (*dx_strides)(v4r1_kw *w, sv hiwi_bytes);
    /* the address formulas, for the generated code's comments */
    const char *(*w_base_note)(const v4r1_kw *w);
    const char *a_offset_note, *tap_note;
} v4r1_layout;
extern const v4r1_layout v4r1_layout_nchw, v4r1_layout_nhwc;

/* The shape conditions of the vector paths, bits of s_vec (set: that
 * tensor loads element by element): w's rows, dy's vectors. */
enum { V4R1_VEC_A = 0, V4R1_VEC_B = 1 };

/* A math strategy: how the C tile is held, multiplied out of LDS and read
 * out. The epilogue stores accumulator (i, j), i < rows and j < cols, to
 * tile row row_base + row_off(i) and tile column col_base + col_off(j)
 * (cols is at most V4R1_MAX_COLS). Rows come in groups of V4R1_ROW_GROUP
 * consecutive tile rows: rows is a multiple of it, row_off(i) =
 * row_off(i - i % 4) + i % 4, and row_base and row_off(i - i % 4) are
 * multiples of 4 (NHWC stores a group as one vector; the epilogue checks
 * the offsets). */
#define V4R1_MAX_COLS 16
#define V4R1_ROW_GROUP 4
/* A math strategy's wave grid, where its C tile is one (MFMA): WGM x WGN
 * waves (wave w at wm = w % WGM, wn = w / WGM), each a wave tile of
 * BM x BN blocks of INST x INST, WTM x WTN elements. Lane l of a wave
 * holds column l % INST of each block and, in accumulator row i
 * (row_off(i) - (i / (rows/BM)) * INST within its block: the block of
 * row i is i / (rows / BM)), row 4 * (l / INST) on from it. */
typedef struct {
    int wgm, wgn, bm, bn, inst, wtm, wtn;
} v4r1_wave_grid;
#define V4R1_MAX_SETS V4R1_MFMA_IN_FLIGHT
typedef struct {
    const char *name;
    /* after the staging setup: per-thread LDS read addresses, zeroed
       accumulators */
    void (*setup)(v4r1_kw *w);
    /* after the walk's first tile loads are issued, under their latency:
       what setup leaves for then (NULL: nothing); the scratch registers
       are free */
    void (*late_setup)(v4r1_kw *w);
    /* before the main loop's label: the fragment registers */
    void (*loop_alloc)(v4r1_kw *w);
    /* one K slice (KPB rows of A and B) out of the current LDS buffers;
       where w->slice_fill is set, the slice emits it once on every path
       through it, where the wave would otherwise wait (between its first
       LDS reads and the wait for them) */
    void (*slice)(v4r1_kw *w);
    /* after the loop: release what only the loop used */
    void (*loop_free)(v4r1_kw *w);
    /* the epilogue's mapping (col_base may emit the code that computes it) */
    int (*rows)(const v4r1_kw *w);
    int (*cols)(const v4r1_kw *w);
    opnd (*row_base)(v4r1_kw *w);
    opnd (*col_base)(v4r1_kw *w);
    int (*row_off)(const v4r1_kw *w, int i);
    int (*col_off)(const v4r1_kw *w, int j);
    /* accumulator row i into VGPRs ready to store, vals[j] for j < cols
       (emits the reads where the accumulators are not VGPRs) */
    void (*read_row)(v4r1_kw *w, int i, opnd *vals);
    /* the registers of accumulators (i .. i+n-1, j), i % 4 + n <= 4, as one
       range of VGPRs or of AGPRs (read with v_accvgpr_read_b32), or NOOP
       where they are not consecutive registers (n = 1 always is one) */
    opnd (*acc)(const v4r1_kw *w, int i, int j, int n);
    /* release the rest at the kernel's end */
    void (*release)(v4r1_kw *w);
    /* the wave grid (v4r1_wave_grid), or NULL where the tile is not held
       by whole waves (FMA) */
    void (*wave_grid)(const v4r1_kw *w, v4r1_wave_grid *g);
} v4r1_math;

/* The FMA strategy (math_fma.c): a TM x TN thread tile of v_fmac_f32
 * accumulators (fp16 on k quads: two v_dot2_f32_f16 per accumulator and
 * quad) fed by LDS fragments. */
extern const v4r1_math v4r1_math_fma;
/* The MFMA strategy (math_mfma.c): wave tiles of single-block MFMAs (f32
 * ones on fp32 LDS tiles, f16/bf16 ones on k-quad tiles: v4r1_mfma_inst)
 * with AGPR accumulators. */
extern const v4r1_math v4r1_math_mfma;

/* The writer state, grouped by the stage that writes each field; each group
 * says which later stages read it (its outputs). A field is written by one
 * stage only. */
struct v4r1_kw {
    /* ---- the kernel's inputs (kernel.c: fixed before any stage runs) ---- */
    emit *e;
    const v4r1_config *cfg;
    const v4r1_math *math;
    const igemm_dtype_desc *dt; /* the tensors' type in memory; from the epilogue on, the type
                                   it stores (fp32 for a split's partial sums: kernel.c) */
    const v4r1_layout *lay;    /* the tensors' layout */
    const igemm_v4r1_args *st; /* static twin: the shape's values; NULL: dynamic */
    int nph;                   /* static twin: phases in st */
    const char *name;
    const v4r1_dy_path *bp;    /* the B data path */
    const v4r1_stage_cvt *cvt; /* the staging conversion of the k-quad tiles */
    const v4r1_lds_format *fmt; /* the LDS tile format */
    /* the tile and the derived thread mapping (v4r1_config.h) */
    int mpb, npb, kpb, block, tx, ty, rm, rn, wa, va, wb, vb;
    int tm, tn;                /* thread tile */
    int dka, dkb;              /* kk distance between a thread's load vectors */
    int sa, sb;                /* column distance between the elements of one of a thread's
                                  load vectors: the layout's vec_stride (sb on dy's pixel path;
                                  the channel path sets its own) */
    int b_cols, b_vecs;        /* the thread's B columns and vectors per column (v4r1_dy_path) */
    int b_len;                 /* entries per row of the B tile in LDS: NPB + the config's pad */
    /* LDS layout: byte offsets of buffer 0 of A and B; buffer 1 at
       offset + size (the larger tile goes first, or a padded B after A's
       two buffers) */
    int a_lds, b_lds, a_size, b_size;
    /* the LDS buffer (0, 1) that the code being emitted reads and writes:
       the address registers always point into buffer 0 and the ds
       instructions add buffer 1's distance in their offsets (v4r1_lds_buf),
       so the walk unrolls its loop to an even number of copies and a
       buffer swap costs no instruction (walk.c) */
    int rd_buf, wr_buf;
    /* the walk's work for the next fetch that the slice may place among
       its instructions (walk.c: the advance to the next tile's bases), or
       NULL */
    void (*slice_fill)(v4r1_kw *w);

    /* ---- setup.c: arguments, the workgroup's place, sizes, bases ---- */
    /* read by the epilogue (which releases them) */
    opnd s_ka, s_bx, s_args, v_tid, s_t; /* s_t: 4 scalar scratch registers */
    opnd v_inv, v_t;           /* the invalid offset; 4 vector scratch registers */
    opnd p_dx, p_dy, p_w;      /* tensor pointers: p_dx the epilogue's, p_dy/p_w the staging's */
    /* shape arguments: the staging's and the epilogue's */
    sv a_cg, a_kg, a_fx, a_fy, a_k, a_ho, a_wo, a_hi, a_wi, a_c;
    sv a_nkb, a_gemm_n, a_hts, a_wts, a_mdiv_hwts, a_shift_hwts, a_mdiv_wts, a_shift_wts;
    sv a_htl, a_wtl, a_dh_step, a_dw_step;
    sv a_steps, a_xdot, a_hoff, a_woff; /* this workgroup's phase: the walk's, the epilogue's */
    sv a_guard; /* its PH_GUARD word: PH_GUARD_BAND clear when no pixel has a tap outside dy (fixup.c
                   skips its check); PH_GUARD_FLUSH (math_mfma.c skips the small-value test) */
    /* a split kernel (cfg->ksplit): the K channels of the workgroup's range
       of each group (a_kn, written over the ks_chunk argument; else a_kg)
       and its K steps per tap (over the nkb argument, a_nkb): the walk's */
    sv a_kn;
    sv g, m0, n0;                      /* group, first row and column of the tile */
    /* byte strides (arguments, or a static twin's constants): w per
       output channel k (w_sk), dy per image (dy_sn); the layout's A per
       column m, B per K row and per dy pixel; the A and B bases' advance
       per K step (walk.c releases these two after the loop) */
    sv w_sk, dy_sn, a_mstride, b_rowstride, b_pix, a_kstep, b_kstep;
    opnd s_wbase, s_dybase, s_rsa, s_rsb; /* tile bases and buffer resources: staging, walk */

    /* ---- staging.c: load offsets, masks, LDS write addresses ---- */
    opnd v_aoff, v_awr;                       /* A load offsets, LDS write address (buffer 0) */
    opnd v_bht, v_bwt, v_bpre, v_boff, v_bkk, v_bwr; /* B columns (v_bht/v_bwt: the epilogue's too),
                                                        offsets, row, LDS address */
    opnd v_ga, v_gb;                          /* the tile in flight: the register set in use
                                                 (v4r1_use_set) */
    opnd v_sga[V4R1_MAX_SETS], v_sgb[V4R1_MAX_SETS]; /* the register sets (v4r1_in_flight) */
    opnd s_vec; /* which tensors take the element path instead of vectors */
    opnd s_sel; /* 16-bit w rows as vectors: the v_perm selectors that make them k quads */

    /* ---- walk.c: the K walk's position (s_xd, s_yd, s_krem: the staging's
       tap bounds read them; s_m: the epilogue's) ---- */
    opnd s_kb, s_xd, s_yd, s_krem, s_iter, s_m;
    sv a_ystep, a_xstep;

    /* ---- the math strategy (math_*.c) ---- */
    opnd v_ard, v_brd;         /* LDS read addresses in buffer 0 (w->rd_buf picks the buffer) */
    opnd v_tm4;                /* the thread's first tile row (FMA: 4 * its row group) */
    opnd c_regs;               /* the C tile's accumulators: VGPRs v_c (FMA), AGPRs a_c (MFMA) */
    opnd v_la, v_lb;           /* the fragments of one K slice */
    opnd v_out;                /* MFMA: the epilogue's row of accumulators read out of AGPRs */
    opnd v_x32;                /* MFMA checked for flushed values (v4r1_config_ftz_checked): the
                                  test's scratch, then a block pair's fragments as f32 */
    opnd s_small;              /* the test's bound where the f32 path is sticky (bf16) */
    opnd s_sent;               /* where it is not (fp16): the quad elements a step sent to it */

    /* ---- epilogue.c: C (dx) per row (channel) and per dx pixel ---- */
    sv c_rowstride, c_pix;
};

/* An argument: an SGPR of the loaded argument block (named after the
 * field), or the static twin's constant. */
sv v4r1_arg(v4r1_kw *w, const char *name, size_t offset, uint32_t static_value);
#define V4R1_ARG(w, f) v4r1_arg((w), "s_" #f, offsetof(igemm_v4r1_args, f), (w)->st ? (w)->st->f : 0)

/* 64-bit pointer + 32-bit unsigned offset into dst (an SGPR pair). */
void v4r1_ptr_add(emit *e, opnd dst, opnd ptr, sv off);
/* Words 2 and 3 of a buffer resource. */
void v4r1_rsrc_words(emit *e, opnd rs, uint32_t num_records);

/* d = a * s for a scalar register a and a value s (a shift when s is a
 * known power of two). */
void v4r1_smul(emit *e, opnd d, opnd a, sv s);

/* setup.c */
void v4r1_setup(v4r1_kw *w);

/* staging.c */
void v4r1_staging_setup(v4r1_kw *w);   /* load offsets, masks and LDS write addresses */
void v4r1_staging_alloc(v4r1_kw *w);   /* the registers of the tiles in flight (set 0 in use) */
void v4r1_use_set(v4r1_kw *w, int set); /* the loads and writes below use register set `set` */
int v4r1_tile_min_loads(const v4r1_kw *w); /* the fewest vector memory instructions of load_tile */
/* the tiles the walk keeps in flight, each in its own register set, the
   main loop unrolled once per set: cfg->in_flight, fewer where the loads
   of the later ones would pass what the target's vmcnt counts */
int v4r1_in_flight(const v4r1_kw *w);
void v4r1_set_tap(v4r1_kw *w);         /* tap (s_yd, s_xd): bases and dy bounds */
void v4r1_set_first_tap(v4r1_kw *w);   /* the same for tap (0, 0) */
void v4r1_load_tile(v4r1_kw *w);       /* the tile at the current step -> registers */
void v4r1_write_tile(v4r1_kw *w);      /* registers -> LDS */
/* the byte distance of side A's (0) or B's (1) buffer `buf` from its buffer 0:
   what a ds instruction addressing that buffer adds to its offset */
int v4r1_lds_buf(const v4r1_kw *w, int side, int buf);
void v4r1_staging_free(v4r1_kw *w);    /* after the loop */
/* staging helpers the data paths share: branch to `to` when the tensor of
   bit loads element by element; the element load of the tensors' type;
   dst = v * len for a known row length (a shift when a power of two) */
void v4r1_vec_branch_off(v4r1_kw *w, int bit, label to);
const char *v4r1_load_op(const v4r1_kw *w);
/* whether w's rows load as vectors where the shape allows (s_vec's V4R1_VEC_A) */
bool v4r1_a_row_vectors(const v4r1_kw *w);
void v4r1_row_mul(v4r1_kw *w, opnd dst, opnd v, int len);

/* walk.c: the whole K walk, prologue to the end of the main loop */
void v4r1_walk(v4r1_kw *w);

/* epilogue.c: C tile -> dx, and the release of what is left */
void v4r1_epilogue(v4r1_kw *w);
/* the epilogue's column decode, shared with the non-finite guard: the
   thread's per-column constants (htl * stride + the phase's offset, along h
   and w), and tile column v_n (n0 included) -> its image (v_img) and dx
   pixel (v_q: hi, wi), with VCC = the lanes whose column is a pixel of dx
   below gemm_n (scratch: v_t[2], s_t[0..1], s_m) */
void v4r1_column_consts(v4r1_kw *w, opnd v_ch, opnd v_cw);
void v4r1_column_pixel(v4r1_kw *w, opnd v_n, opnd v_img, opnd v_q, sv hwts, opnd v_ch, opnd v_cw);

/* fixup.c: the non-finite guard before the epilogue's stores (unsplit
   kernels): where an accumulator is NaN, the border-band elements are
   recomputed from their valid taps into the accumulators */
void v4r1_nonfinite(v4r1_kw *w);

/* A store path of the epilogue: how the C tile reaches dx. The epilogue
 * takes the first path of its list that takes the writer's tile. */
typedef struct {
    const char *name;
    bool (*takes)(const v4r1_kw *w);
    /* where it takes the tile but a launch's shape is better served by the
       last path of the list: a scalar branch to `to` under that condition,
       and true; false where it emitted none (NULL: never) */
    bool (*hands_on)(v4r1_kw *w, label to);
    /* the whole tile -> dx (sets w->c_rowstride and w->c_pix) */
    void (*store)(v4r1_kw *w);
} v4r1_dx_path;
/* the accumulators straight to dx, each lane its own columns (epilogue.c) */
extern const v4r1_dx_path v4r1_dx_direct;
/* NHWC with a wave grid: the tile through LDS, lanes storing runs of one
 * pixel's channels as dwordx4 vectors (dx_lds.c) */
extern const v4r1_dx_path v4r1_dx_lds;

/* The epilogue's pieces the store paths share (epilogue.c): the column
 * decode's per-tile values, one column's dx offset (v_n: the tile column
 * plus n0; off: the pixel's offset plus v_rowoff where that is not NOOP,
 * or the invalid offset for a pixel outside dx or past gemm_n; v_q two
 * scratch VGPRs; uses w->v_t 1..2, w->s_t 0..1 and w->s_m), and dx's
 * address of the tile's first channel (dst: an SGPR pair). */
typedef struct {
    sv chiwi_bytes, hwts;
    opnd v_ch, v_cw;
} v4r1_pixels;
void v4r1_pixels_begin(v4r1_kw *w, v4r1_pixels *p, sv hiwi_bytes);
/* after what the caller emits between: the column constants, and where
   v_row0 is not NOOP a VGPR it returns, v_row0 * the row stride (else
   NOOP) */
opnd v4r1_pixels_consts(v4r1_kw *w, v4r1_pixels *p, opnd v_row0);
void v4r1_pixel_offset(v4r1_kw *w, const v4r1_pixels *p, opnd off, opnd v_n, opnd v_q, opnd v_rowoff);
/* A decoded column, for the columns a constant d past it: v_n (n0
 * included), its image and tilde coordinates (v_t: hts_i, wts_i). */
typedef struct {
    opnd v_n, v_img, v_t;
} v4r1_column;
/* v4r1_pixel_offset without the row part for the column base->v_n, keeping
   its decode in base; and for the column d (> 0, a constant) past it,
   without a division: d = qh*(hts*wts) + rh*wts + rw in scalars, then wts_i
   + rw carries at most once into hts_i and hts_i + rh (+1) at most once
   into the image (off: as v4r1_pixel_offset gives it, without the row
   part; scratch v_q, v_t[1..2], s_t[0..1], s_m) */
void v4r1_pixel_offset_base(v4r1_kw *w, const v4r1_pixels *p, opnd off, const v4r1_column *base, opnd v_q);
void v4r1_pixel_offset_step(v4r1_kw *w, const v4r1_pixels *p, opnd off, const v4r1_column *base, int d, opnd v_q);
void v4r1_pixels_end(v4r1_kw *w, v4r1_pixels *p);
void v4r1_dx_base(v4r1_kw *w, opnd dst);

#endif
