/* Tile configurations of the v4r1 kernels: one flat, comparable struct
 * per configuration, the derived thread mapping, a validity check that
 * says why a configuration is rejected, and the name that encodes it.
 *
 * A workgroup computes an MPB x NPB tile of C (= dx of one phase: rows are
 * channels c of a group, columns (n, htilda, wtilda)) and walks the GEMM K
 * dimension KPB rows at a time. Its `block` threads form a TX x TY grid
 * (TX along M); a thread owns RM groups of 4 rows spaced TX*4 apart and RN
 * groups of 4 columns spaced TY*4 apart: a (4*RM) x (4*RN) thread tile of
 * v_fmac_f32 accumulators (fp16 on k quads: v_dot2_f32_f16). The A tile (KPB x MPB, from w) and the B tile
 * (KPB x NPB, from dy) are loaded by all threads as vectors of WA / WB
 * consecutive elements (VA / VB vectors per thread), stored in LDS and
 * double buffered. */
#ifndef IGEMM_V4R1_CONFIG_H
#define IGEMM_V4R1_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "../arch/mfma.h"
#include "../arch/occupancy.h"
#include "../arch/target.h"

#include "../arch/kargs.h"
#include "problem.h"
#include "types.h"

/* The B (dy) data paths of the staging (gen/bwd_data_v4r1/kw.h):
 * PIXELS: a thread loads WB consecutive GEMM N columns (dy pixels) of VB
 * rows: consecutive lanes along dy's pixels, NCHW's contiguous dimension;
 * CHANNELS (NHWC, the matrix-core tiles): a thread loads WB consecutive
 * channels k of one pixel as one vector, VB pixels: consecutive lanes
 * along NHWC's contiguous channels, the LDS rows padded by bpad entries. */
typedef enum { V4R1_B_PIXELS = 0, V4R1_B_CHANNELS = 1 } v4r1_bpath;

typedef struct {
    int mpb, npb, kpb;   /* tile: M (channels) x N (pixels) per workgroup, K per step */
    int block;           /* threads per workgroup */
    igemm_math math;     /* how the tile is multiplied (zero: FMA) */
    igemm_dtype dtype;   /* of dx, dy and w (zero: fp32) */
    igemm_layout layout; /* of dx, dy and w (zero: NCHW) */
    int inst;            /* MFMA: the instruction's block, INST x INST (32 or 16) */
    int kpack;           /* 4: the LDS tiles hold the 16-bit values in k quads (entry
                            (k/4, m) = 4 consecutive k of column m, 8 bytes): MFMA, the
                            16-bit matrix instructions (one ds_read_b64 fragment); FMA,
                            fp16 only, two v_dot2_f32_f16 per accumulator and quad;
                            0: fp32 LDS tiles (16-bit values widened), fp32 math */
    igemm_dtype stage;   /* k quads: the type the LDS tiles hold and the matrix instructions
                            multiply where it is not the tensors' (zero: dtype's): IGEMM_BF16
                            for fp16 tensors, each value rounded to bf16 (to nearest even) as
                            the staging writes it to LDS: fp16_mode alt, MIOpen's "alternate
                            implementation" (names say fp16alt; v4r1_stage_type) */
    int ksplit;          /* split along GEMM K (the solvers named <config>_ks<N>): 0 none;
                            else N launches over N ranges of K blocks store fp32 partial
                            sums to a workspace, summed in order by igemm_ksplit_sum_<type>.
                            Every factor of a tile launches one kernel, the tile's split
                            kernel (<config>_ksplit: its workgroups' split ranges from the
                            phase table, dx stored as fp32); the family holds none,
                            v4r1_solvers adds them */
    int kyxc;            /* NCHW: 1 when the plan first copies w into K, Y, X, C/G order
                            (igemm_w_kyxc_b32/_b16, into the workspace) and the kernel reads
                            that copy (argument w_kyxc = 1), so that its w loads, lanes along
                            the channels, coalesce where KCYX puts them Y*X elements apart:
                            the solvers named <config>_kyxc, launching <config>'s own kernel
                            (v4r1_config_kyxc: which configurations get one) */
    int zfill;           /* where the kernels would write dx's zeros themselves (the empty
                            phases of v4r1_zeros_inside), a zero fill of dx first and only
                            the non-empty phases instead: the solvers named <config>_zf,
                            launching <config>'s own kernel (v4r1_config_zfill: which
                            configurations get one). NCHW's direct stores put a phase's
                            pixels stride apart, so a zero-only workgroup's stores touch
                            many lines per useful byte; the fill writes whole lines */
    /* derived by v4r1_config_derive */
    int tx, ty;          /* FMA: thread grid */
    int rm, rn;          /* FMA: 4-row / 4-column groups per thread */
    int wgm, bm, bn;     /* MFMA: waves along M (block/64/wgm along N), MFMA blocks per wave along M and N */
    int agprs;           /* MFMA: accumulator AGPRs */
    int wa, va, wb, vb;  /* global-load vector width and vectors per thread, A and B (B on
                            the channel path: WB consecutive channels k of one pixel per
                            vector, VB pixels per thread) */
    v4r1_bpath bpath;    /* how the threads load dy (B) */
    int bpad;            /* entries past NPB in each row of the B tile in LDS (the
                            channel path's writes free of bank conflicts where bswz
                            cannot be), or 0 */
    int bswz;            /* the channel path's B tile swizzled instead of padded: column n
                            of entry row r at n ^ v4r1_bswz_xor(c, r), bswz the pixels of
                            one bank group (v4r1_bswz_xor); 0: none */
    int lds_bytes;       /* both tiles, double buffered */
    int in_flight;       /* the most tiles whose global loads the K walk keeps outstanding
                            at once, each in its own register set (FMA 1, MFMA
                            V4R1_MFMA_IN_FLIGHT; the generator keeps fewer where
                            s_waitcnt vmcnt cannot count the later tiles' loads) */
    int vgprs;           /* VGPRs the kernel writer allocates at its peak (an upper
                            bound, checked against the code objects by the tests) */
} v4r1_config;

/* The MFMA kernels' tiles in flight (docs/KERNELS.md, "Tiles in flight"). */
#define V4R1_MFMA_IN_FLIGHT 3

/* The tiles: FMA ones (math left zero) and MFMA ones; type and layout are
 * left zero (the family crosses them with every layout). */
extern const v4r1_config v4r1_tiles[];
extern const int v4r1_tile_count;

/* The configuration family every target's code object carries, derived:
 * every tile in every layout for fp32 (NCHW first, in tile order, then
 * NHWC), then a subset of the tiles in both layouts for fp16 and for bf16.
 * A tile the derivation refuses is an internal error. */
int v4r1_family_count(void);
const v4r1_config *v4r1_family_get(int i);

/* Whether target t has what configuration c's kernel needs (FMA: v_fmac_f32,
 * on k quads v_dot2_f32_f16; MFMA: matrix cores with the configuration's
 * instruction). */
bool v4r1_config_runs_on(const v4r1_config *c, const target *t);

/* VALU instructions the staging conversion of a configuration with a stage
 * type issues per dword (two 16-bit values: gen/emit_helpers.h's
 * H_F16X2_TO_BF16X2_VALU; tests/test_v4r1.c checks the two agree). */
#define V4R1_STAGE_CVT_VALU 12

/* The type of c's LDS tiles and matrix instructions: c->stage, or the
 * tensors' type where stage is zero. */
igemm_dtype v4r1_stage_type(const v4r1_config *c);

/* The channel path's B swizzle (docs/KERNELS.md, "the channel path"):
 * the XOR of entry row r's columns, bswz * ((r / R) % Q), R the entry
 * rows of a lane's vector, Q the lanes of a pixel (c->bswz 0: none). A
 * lane's vector lands in rows its lane-in-pixel index c picks, so the
 * bank group's P = bswz pixels, each written by Q lanes into Q row
 * blocks, fall on P*Q distinct columns modulo the group; the matrix
 * reads stay a row of consecutive columns, permuted within aligned blocks
 * of P*Q. */
int v4r1_bswz_xor(const v4r1_config *c, int row);

/* Its R (entry rows of a lane's B vector) and Q (lanes of a pixel). */
int v4r1_bswz_rows(const v4r1_config *c);
int v4r1_bswz_lanes(const v4r1_config *c);

/* The read address registers the swizzle needs (1 without it): the
 * period, in matrix steps, of the XOR a lane's fragment rows take (row
 * s*64/INST + l/INST of matrix step s, lane l). */
int v4r1_bswz_bases(const v4r1_config *c);

/* The XOR matrix step t's fragment rows take beyond step 0's, the same for
 * every lane (l/INST), or -1 where it is not; a tile swizzles only where
 * every step's is (derive_channels), so its read bases past the first are
 * the first XOR a constant. */
int v4r1_bswz_step_xor(const v4r1_config *c, int t);

/* An MFMA configuration's K rows per matrix step: 64/INST with fp32 LDS
 * tiles (32x32x2, 16x16x4 f32), 4*64/INST with k quads (32x32x8, 16x16x16). */
int v4r1_mfma_kstep(const v4r1_config *c);

/* Whether MFMA configuration c multiplies its tensors' fp16 or bf16 values
 * as they are on matrix instructions that flush subnormals on target t
 * (mfma_16bit_ftz: gfx90a's f16 and bf16_1k MFMAs read a subnormal input,
 * and a subnormal fp32 C or D, as zero). Its kernel then stays exact: each
 * matrix step tests the wave's fragments for a value below
 * v4r1_ftz_small() and multiplies what holds one on the f32 MFMAs instead
 * (fp16: the step's quad elements that do; bf16: the whole step;
 * gen/bwd_data_v4r1/math_mfma.c; docs/KERNELS.md "Exact 16-bit
 * MFMAs on gfx90a"), so the fp16 mode need not be flush. (The fp16alt
 * configurations' bf16 values come from fp16 ones: never small.) */
bool v4r1_config_ftz_checked(const v4r1_config *c, const target *t);

/* The test's bound, in 2h - 2 of a 16-bit value's bits h (the sign shifted
 * out, zero wrapped to 0xfffe): a step with a value whose 2h - 2 is below
 * it takes the f32 path. fp16: the subnormals (0x7fd); bf16: every nonzero
 * magnitude below 2^-56 (0x46fd), so that the products of the others are
 * multiples of 2^-126 and no fp32 sum of them is subnormal. */
unsigned v4r1_ftz_small(const v4r1_config *c);

/* Whether the first f32 step makes the rest of the wave's walk take the
 * f32 path too (bf16: a small product's fp32 sum may be subnormal, which
 * a later bf16 MFMA would read as zero; fp16 products are multiples of
 * 2^-48 and never are). */
bool v4r1_ftz_sticky(const v4r1_config *c);

/* VALU instructions of that test: per matrix step, two per fragment dword
 * (a packed 2h - 2 and a packed minimum) less two (a minimum per quad
 * register, kept apart for the fp16 exact path), one to fold the two
 * registers' minima, one to fold the halves and a compare; the heuristic
 * charges them (conv/heuristic.c). */
int v4r1_ftz_check_valu(const v4r1_config *c);

/* The matrix instruction of MFMA configuration c on target t, and how many
 * of it one matrix step issues (*issues, one per A/B register of the
 * fragment: 2 where t's 16-bit instruction of that block takes k pairs,
 * gfx908's bf16 ones); NULL where t has none. */
const mfma_info *v4r1_mfma_inst(const v4r1_config *c, const target *t, int *issues);

/* Fill the derived fields; returns 0, or -1 with the reason in why. */
int v4r1_config_derive(v4r1_config *c, char *why, size_t len);
/* What c estimates its kernel allocates (vgprs, agprs, lds_bytes; SGPRs not
 * estimated): the heuristic's occupancy where no code object is at hand. */
kernel_alloc v4r1_config_alloc(const v4r1_config *c);

/* The kernel name, built from every field that tells configurations apart:
 * "igemm_bwd_v4r1_fma_fp32_nchw_128x128x8_t256" (math, type, layout, tile,
 * threads; MFMA ones end in the instruction's shape, _wt32x32x2; FMA ones on
 * k quads in _dot2). */
void v4r1_config_name(const v4r1_config *c, char *buf, size_t len);

/* The split factors of the _ks solvers, and whether family configuration c
 * gets them (the tiles that leave CUs idle on small grids: big MFMA tiles
 * of each type; no FMA tile: the big FMA tiles' split kernel needs more
 * than gfx9's 96 SGPRs, and gfx906's 60 CUs fill with the small tiles). */
#define V4R1_KSPLITS {2, 4, 8}
bool v4r1_config_splits(const v4r1_config *c);

/* Whether a thread's WA elements of a w row (consecutive channels of one k
 * and tap) load as one vector: NHWC (KYXC: the channels side by side in the
 * thread, vec_stride 1, and in memory; NCHW's lanes run along the row
 * instead, whether w is KCYX or its KYXC copy), WA > 1, and the values kept
 * in their type in LDS (fp32, or 16-bit k quads; fp32 entries widen 16-bit
 * values one by one). The one home of this fact: the heuristic counts the
 * loads' lines by it, the kernel writer's staging loads by it
 * (gen/bwd_data_v4r1/staging.c v4r1_a_row_vectors). */
bool v4r1_config_w_row_vectors(const v4r1_config *c);

/* Whether family configuration c gets a _kyxc solver (the w copy in K, Y,
 * X, C/G order): the NCHW tiles that the 3x3 layers pick, FMA and MFMA,
 * fp32 tiles for fp32 and k-quad ones (MFMA, fp16 _dot2) for 16-bit; no
 * fp16alt, no split (a launch binds one workspace pointer: the partial sums
 * or the copy). */
bool v4r1_config_kyxc(const v4r1_config *c);

/* Whether family configuration c gets a _zf solver (a zero fill of dx
 * before the non-empty phases, instead of the empty phases' workgroups
 * storing the zeros): the NCHW FMA tiles that the stride-2 layers pick
 * (their stores take a line per lane or two there), fp32 and _dot2; no
 * split, no _kyxc (the 1x1 downsample layers, where the zeros are, have
 * nothing to copy), no fp16alt. */
bool v4r1_config_zfill(const v4r1_config *c);

/* The name of the kernel that configuration c launches: v4r1_config_name's
 * without _kyxc (the copy is read by the same kernel), and for a split
 * configuration the unsplit name + "_ksplit" (the kernel that walks one
 * range of K per workgroup and stores fp32 partial sums). */
void v4r1_kernel_name(const v4r1_config *c, char *buf, size_t len);

/* Kernel arguments of one launch over nph (<= V4R1_MAX_PHASES) non-empty
 * phases for nb images (the pointers are filled by the caller). */
void v4r1_fill_args(igemm_v4r1_args *a, const igemm_shape *sh, const v4r1_config *c, const int *phases, int nph,
                    int nb);
/* Row `row` of a split launch (a->ks_chunk set) as split `split`: its
 * PH_SPLIT and its K steps over the split's range of channels (K blocks
 * of kpb). */
void v4r1_set_split_row(igemm_v4r1_args *a, int row, uint32_t split, uint32_t kpb);

/* The non-empty phases of a problem in order (at most max); returns how many. */
int v4r1_phases(const igemm_shape *sh, int *phases, int max);

/* Whether the kernels write dx's zeros themselves: the non-empty phases
 * leave pixels no tap reaches (a stride larger than dilation * filter), all
 * YTilda x XTilda phases together cover every pixel (not so where gcd(S, D)
 * > 1 or the tilda slice misses rows) and fit one phase table. Then a
 * plan launches the empty phases too, each of whose workgroups stores its
 * tile of zeros, instead of a zero fill before the GEMMs. */
bool v4r1_zeros_inside(const igemm_shape *sh);

/* Whether configuration c's plan writes dx's zeros in the kernels (the
 * shape allows it and c is not a _zf solver) or by a zero fill first (the
 * shape leaves pixels unwritten otherwise). */
bool v4r1_plan_zeros_inside(const v4r1_config *c, const igemm_shape *sh);
bool v4r1_plan_fills(const v4r1_config *c, const igemm_shape *sh);

/* The phases configuration c's plan launches in order (at most max): the
 * non-empty ones, then, where v4r1_plan_zeros_inside, the empty ones;
 * returns how many. */
int v4r1_launch_phases(const v4r1_config *c, const igemm_shape *sh, int *phases, int max);

/* The most non-empty phases a v4r1 plan covers (in V4R1_PLAN_PHASES /
 * V4R1_MAX_PHASES launches per batch chunk); the solvers refuse more. */
#define V4R1_PLAN_PHASES 1024

/* Workgroups of one launch over nph phases. */
unsigned v4r1_grid(const igemm_v4r1_args *a, int nph);

#endif
