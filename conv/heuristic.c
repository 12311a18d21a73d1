/* The configuration heuristic (pure: no device; the caller says which
 * solvers may run and, where it has the code object, what their kernels
 * allocate: heuristic_view).
 *
 * Every applicable v4r1 configuration is scored with a small model of a
 * target's compute units and the one with the least estimated time wins:
 *
 *   per phase GEMM (M = C/G, N = n*HTs*WTs, K steps = taps * ceil(Kg/KPB)):
 *     workgroups  = ceil(M/MPB) * ceil(N/NPB) * G         (padding waste is
 *                   the part of these tiles outside M x N: it costs time)
 *     wave cycles = steps * step cycles + fixed            (issue-cycle model
 *                   of docs/EMULATOR.md: FMAs, LDS reads/writes, loads,
 *                   scalar and sync overhead per step; setup and stores)
 *   all phases run in one multihead launch, one after another in the grid,
 *   and workgroups go to the CUs round-robin, so CU 0 runs the most (and
 *   the first, longest ones) and its share is the launch's time:
 *     per SIMD    = ceil(CU 0's waves / 4)
 *     busy        = per SIMD * CU 0's mean wave cycles * latency factor
 *     latency     = longest wave's chain * rounds
 *     time        = (busy^6 + latency^6)^(1/6)   (BOUND_NORM: neither hides
 *                   the other whole)
 *                   latency factor: 1.3 when a SIMD holds one wave at a
 *                   time, 1.0 from three, linear between (memory latency
 *                   stays exposed; the waves of CU 0's GEMM workgroups
 *                   where it has fewer than it could hold); chain: the
 *                   loads of its K steps, the setup and the epilogue's
 *                   (MFMA_TAIL_PER_ACC); rounds:
 *                   CU 0's GEMM workgroups over the ones it holds at once,
 *                   fractional (each round waits for its loads; a last,
 *                   partial one shares the CU with fewer); the workgroups
 *                   a CU holds come from the occupancy of the kernel's
 *                   allocation (its code object's descriptor where the
 *                   caller has it, else the configuration's estimate),
 *                   limited by LDS and registers (the target's register
 *                   file, allocation granule and wave slots per SIMD)
 *     work        = the waves' issue cycles
 *   and never less than the memory the tiles move: their bytes and lines
 *   through the device's L2 (the lines of a lane's consecutive elements
 *   once: the later instructions of the group hit the vector L1), the
 *   cache lines every load instruction touches through the CUs' address
 *   paths (a line a cycle per CU, as the timing model charges; step_lines:
 *   the lanes' strides by layout), and the re-reads that miss the L2 (an
 *   NCHW CU whose workgroups' lines of one tap overflow its share of the
 *   L2; KCYX's strided w where w outgrows an L2) through the HBM; plus a
 *   dispatch per launch (v4r1_terms, `igemm plan --estimates`);
 *   the empty phases' workgroups (zeros stored inside the launch) after
 *   the rest or in the slots the GEMM ones leave free (zeros_exposed),
 *   the stores of those after them through the HBM (zero_store_waste), or
 *   where the plan fills dx first (a _zf solver, or phases that leave
 *   pixels unwritten) the fill's dispatch and its dx bytes
 *
 * The least time wins; among configurations within 0.1% of it (a tie),
 * the least work (when CUs would idle anyway, a smaller tile is as fast
 * and issues fewer instructions). A wider margin (3% until 7c874d7) picked
 * the less-work tile over a faster one more often than it helped
 * (docs/TIMING.md, "The least estimate outright").
 *
 * Latency: a wave cannot finish a K step faster than its global loads
 * arrive. The first tile's load costs a memory latency plus the issue of
 * the thread's loads; with D tiles in flight (v4r1_config.in_flight: the
 * MFMA walk's three) every later step waits for loads issued D steps
 * before, a D-th of that; and a launch the setup's latencies
 * (lat_step, lat_fixed below; calibrated on the timing model, gfx906,
 * scaled by the target's HBM latency). On small grouped and depthwise
 * problems (a few channels a group: tiles mostly padding, one wave per
 * SIMD) this floor, not the issue cycles, is the time.
 *
 * A split along GEMM K (v4r1_config.ksplit, the _ks solvers) is scored the
 * same way with splits times the workgroups, each walking its range of the
 * K blocks (all in the one launch), plus split_extra: the reduction's
 * dispatch, its workspace traffic (partial sums written and read, dx
 * written) through the L2 and the HBM, and its chain of dependent loads.
 * A _kyxc solver (v4r1_config.kyxc) reads w's copy with channels innermost
 * (its loads' lines as NHWC's) after the copy's launch (kyxc_extra).
 * So a GEMM of a few dozen big tiles on MI300X's 304 CUs with a long K
 * walk (the 7x7 and 14x14 ResNet-50 layers at batch 8) takes a split.
 *
 * The naive kernel is scored too (naive_estimate): one wave per 64 dx
 * elements, a chain of dependent loads per filter tap and output channel
 * of the group. It wins where the GEMMs are a few channels wide
 * (depthwise), and loses by far on everything else.
 *
 * so big GEMMs pick big tiles (fewest cycles per FLOP), GEMMs too small to
 * give every one of the target's CUs work pick small tiles, and skinny ones
 * (few channels) the thin configurations. The naive kernel is the fallback. */
#include "select.h"

#include <math.h>

#include "../arch/kargs.h"
#include "../arch/mfma.h"
#include "../arch/occupancy.h"
#include "v4r1_config.h"

static double ceil_div(double a, double b) { return (double)(((long long)a + (long long)b - 1) / (long long)b); }

/* The target's achievable HBM bandwidth in bytes per clock, and one
 * launch's dispatch in clocks (timing model: hbm_tbps x hbm_achievable,
 * launch_us). */
static double hbm_per_clk(const target *t) { return t->tm.hbm_tbps * t->tm.hbm_achievable * 1e3 / t->clock_ghz; }
static double dispatch_clk(const target *t) { return t->tm.launch_us * 1e3 * t->clock_ghz; }

/* Whether w's channels lie side by side in the w the kernel reads: NHWC's
 * KYXC, the _kyxc copy, or a 1x1 filter's KCYX (else Y*X elements apart). */
static bool w_channels_contiguous(const v4r1_config *c, const igemm_shape *sh)
{
    return c->layout == IGEMM_LAYOUT_NHWC || c->kyxc || sh->p.y * sh->p.x == 1;
}

/* Issue cycles of one wave: per K step (the math of KPB rows plus the
 * staging of the next tile) and once (setup, column decode, stores), by
 * the configuration's math strategy. */
typedef struct {
    double step, fixed;
    double tail; /* the epilogue's chain of latencies beyond its issue cycles */
} wave_cost;

/* The staging of one step: the thread's buffer loads and its LDS writes
 * (k quads: one pack per two elements, one write per quad; staged as
 * another type, V4R1_STAGE_CVT_VALU conversion instructions per two). */
static double staging_cycles(const v4r1_config *c)
{
    int elems = c->va * c->wa + c->vb * c->wb;
    return (double)elems * 4                                                               /* buffer loads */
           + (c->kpack ? (double)elems / 2 * 4 + (double)(c->wa + c->wb) * 2 : (double)elems * 2) /* LDS writes */
           + (c->stage ? (double)elems / 2 * V4R1_STAGE_CVT_VALU * 4 : 0);                 /* conversion */
}

/* FMA: per LDS entry row (a K row, or a k quad of fp16) and accumulator one
 * v_fmac_f32, or two v_dot2_f32_f16 (one per k pair), and per group of 4
 * rows or columns one ds_read_b128 (two per k quad): per K row, k quads
 * issue half the VALU instructions and read half the LDS bytes. */
static wave_cost fma_cost(const v4r1_config *c)
{
    int tm = 4 * c->rm, tn = 4 * c->rn, kp = c->kpack ? c->kpack : 1, per = c->kpack ? 2 : 1;
    double rows = (double)c->kpb / kp;
    wave_cost w;
    w.step = rows * tm * tn * per * 4           /* v_fmac / v_dot2 */
             + rows * (c->rm + c->rn) * per * 8 /* ds_read_b128 */
             + staging_cycles(c) + 40;          /* scalar walk, waits, barrier */
    w.fixed = 600 + (double)tm * tn * 6 + (double)tn * 90;
    w.tail = 0;
    return w;
}

/* The epilogue of an MFMA wave is a chain, not a stream: each accumulator
 * is read out of its AGPR, checked, converted and (NHWC) passed through LDS
 * behind a barrier before its store, so a wave's tile costs about this
 * many cycles of latency per accumulator of a thread on top of its issue
 * cycles (the timing model's timelines, `igemm conv ... --timeline`, of the
 * NHWC 16-bit and fp32 tiles on gfx90a and gfx942: from the last MFMA to
 * s_endpgm 660-5040 cycles for 4-128 accumulators, 500 + 35 a thread's
 * accumulator; docs/TIMING.md "At 261874b"). */
#define MFMA_TAIL_PER_ACC 34.0

/* MFMA: per K step, the matrix instructions of the wave tile (issue cycles
 * = 4 * passes of the instruction, from the MFMA table) or, where they take
 * longer, the rest of the step (one ds_read per fragment, the staging, the
 * walk): the matrix core runs a wave's MFMAs while the wave issues its other
 * instructions, so the step is the longer of the two, not their sum; once,
 * the accumulator reads and stores. */
static wave_cost mfma_cost(const v4r1_config *c, const target *t, const igemm_shape *sh)
{
    int issues;
    const mfma_info *m = v4r1_mfma_inst(c, t, &issues);
    int kst = c->kpb / v4r1_mfma_kstep(c), cd = c->inst * c->inst / 64;
    wave_cost w;
    double mfma = (double)kst * c->bm * c->bn * issues * (m ? m->cycles : 64);
    double other = (double)kst * (c->bm + c->bn) * 4 /* ds_read */ + staging_cycles(c) + 40; /* walk, waits, barrier */
    w.step = mfma > other ? mfma : other; /* the wave issues the rest while its MFMAs run */
    /* the subnormal test of each matrix step (not its rare f32 steps): VALU
       work, which the SIMD's vector unit runs beside the matrix core and
       the memory instructions */
    bool test = v4r1_config_ftz_checked(c, t) && sh->p.fp16_mode != IGEMM_FP16_FLUSH; /* flush skips it */
    double check = test ? (double)kst * (v4r1_ftz_check_valu(c) * 4 + 4) : 0;
    if (check > w.step)
        w.step = check;
    w.fixed = 600 + (double)c->bm * c->bn * cd * 8 + (double)c->bn * 90;
    w.tail = MFMA_TAIL_PER_ACC * c->bm * c->bn * cd;
    return w;
}

static wave_cost math_cost(const v4r1_config *c, const target *t, const igemm_shape *sh)
{
    switch (c->math) {
    case IGEMM_MATH_MFMA: return mfma_cost(c, t, sh);
    case IGEMM_MATH_FMA: return fma_cost(c);
    default: igemm_die("v4r1_estimate: no cost model for math %d", (int)c->math);
    }
}

/* The latency floor of one K step and of a launch, in cycles, from the
 * target's HBM latency (600 cycles on gfx906, where the factors were fitted
 * to the timing model's grouped and depthwise runs, tests/shapes/grouped.txt:
 * 762 + 20 per element a thread loads per step, one step more for the first
 * tile, 1200 once). */
static double lat_step(const v4r1_config *c, const target *t)
{
    return (double)t->tm.lat_hbm * 1.27 + 20.0 * (c->va * c->wa + c->vb * c->wb);
}

static double lat_fixed(const target *t) { return (double)t->tm.lat_hbm * 2.0; }

/* Lines one wave-wide load instruction touches: `run` consecutive lanes
 * `stride` bytes apart, each reading `access` bytes, repeated 64 / run
 * times elsewhere (timing model: the address path takes a cycle per line). */
static double inst_lines(double run, double stride, double access, double line)
{
    double per_run = stride >= line ? run * ceil_div(access, line) : ceil_div(run * stride + access - stride, line);
    return 64.0 / run * per_run;
}

/* Lines a wave's A (w) and B (dy) loads of one K step touch, from the
 * staging's thread mapping (gen/v4r1/staging.c): A lanes run along m, WA
 * apart (NHWC: contiguous channels, one vector load when WA > 1; NCHW: a
 * tap's channels y*x elements apart, or one in the _kyxc copy); B lanes along the GEMM N pixels, WB
 * apart (NCHW: contiguous pixels of a row; NHWC: a pixel's channels, K
 * elements apart), or on the channel path along one pixel's channels.
 * distinct = false: every instruction's lines (the address path takes
 * each); true: the lines of the group of WA (WB) instructions that read
 * a lane's consecutive elements, once (the later ones of the group find
 * them in the vector L1: what the L2 serves). */
typedef struct {
    double a, b;
} op_lines;

static op_lines step_lines(const v4r1_config *c, const igemm_shape *sh, const target *t, bool distinct)
{
    double esz = igemm_dtype_get(c->dtype)->bytes, line = t->tm.line_bytes;
    bool nhwc = c->layout == IGEMM_LAYOUT_NHWC;
    double ra = c->mpb / c->wa < 64 ? c->mpb / c->wa : 64, rb = c->npb / c->wb < 64 ? c->npb / c->wb : 64;
    double yx = (double)sh->p.y * sh->p.x;
    bool vec_a = v4r1_config_w_row_vectors(c);
    bool w_channels = w_channels_contiguous(c, sh);
    double ea = esz * (w_channels ? 1 : yx); /* from one of a lane's A elements to the next */
    double eb = esz * (nhwc ? sh->p.k : 1);  /* B's, pixel to pixel */
    double a, b;
    if (vec_a || (distinct && w_channels)) /* one vector, or the group's WA consecutive channels */
        a = c->va * inst_lines(ra, c->wa * esz, c->wa * esz, line);
    else
        a = c->va * c->wa * inst_lines(ra, c->wa * ea, esz, line);
    if (c->bpath == V4R1_B_CHANNELS) /* runs of KPB/WB lanes along a pixel's channels, one vector each */
        b = c->vb * inst_lines(c->kpb / c->wb, c->wb * esz, c->wb * esz, line);
    else if (distinct && !nhwc) /* a lane's WB consecutive pixels (NHWC's lie K elements apart) */
        b = c->vb * inst_lines(rb, c->wb * esz, c->wb * esz, line);
    else if (distinct) /* NHWC: each of the tile's pixels brings its KPB consecutive channels, once */
        b = c->npb * ceil_div(c->kpb * esz, line) / (c->block / 64);
    else
        b = c->vb * c->wb * inst_lines(rb, c->wb * eb, esz, line);
    return (op_lines){a * c->block / 64, b * c->block / 64};
}

/* The non-finite guard of an unsplit kernel (gen/bwd_data_v4r1/fixup.c,
 * docs/KERNELS.md): per wave, before its stores, one VALU add per
 * accumulator of a thread (MFMA: and the read out of its AGPR), a compare
 * and a branch, 4 issue cycles per wave64 VALU op on a 16-lane SIMD; the
 * slow path runs only where an accumulator is NaN. A problem without a
 * border band (no tap outside dy) skips the check: a compare and a branch. */
static double guard_cycles(const v4r1_config *c, const igemm_shape *sh)
{
    if (c->ksplit)
        return 0;
    if (!plan_has_border(sh))
        return 2 * 4;
    double accs = (double)c->mpb * c->npb / c->block;
    return (accs * (c->math == IGEMM_MATH_MFMA ? 2 : 1) + 2) * 4;
}

/* A split along GEMM K (c->ksplit, conv/solver_v4r1.c): K ranges of *per
 * channel blocks, *splits of them. */
static void split_ranges(const v4r1_config *c, const igemm_shape *sh, double *per, double *splits)
{
    double nkb = ceil_div(sh->kg, c->kpb);
    *per = c->ksplit ? ceil_div(nkb, c->ksplit) : nkb;
    *splits = c->ksplit ? ceil_div(nkb, *per) : 1;
}

/* What a split along GEMM K adds: its reduction launch (one work-item per
 * dx element reading `splits` fp32 partials and writing dx in its type:
 * those bytes and the partial sums' writes through the L2 and the HBM,
 * behind a memory latency for the first slice and one per batch of the
 * rest, gen/kern_ksum.c: batches of KSUM_BATCH while that many are left,
 * then the binary digits of the rest; a wave issues about 20 instructions
 * once, 2 for the non-finite guard's check, 4 per slice and 3 per batch)
 * and the reduction's dispatch (the splits of every
 * phase share the GEMM launch: rows of its phase table; the workspace's
 * zero fill, where there is one, is the fill dispatch v4r1_estimate
 * charges anyway). The partial sums' writes are charged here too, after
 * the GEMM: the timing model overlaps them with the GEMM's steps, but
 * charging them as a bound on the GEMM instead (tried) picked splits
 * where find mode's best is unsplit on gfx942 (16-bit ResNet-50 at batch
 * 8: pick = best on 15 layers of 23 instead of 18), whose unsplit GEMMs
 * the latency floor overestimates (docs/TIMING.md, "At b58ba58"). */
static double split_extra(const v4r1_config *c, const igemm_shape *sh, const target *t)
{
    double per, splits;
    split_ranges(c, sh, &per, &splits);
    if (!c->ksplit)
        return 0;
    double elems = (double)sh->dx_elems, esz = igemm_dtype_get(sh->p.dtype)->bytes;
    double bytes = elems * (splits * 4 /* partials written */ + splits * 4 /* read */ + esz /* dx */);
    double hbm = bytes / hbm_per_clk(t);
    double l2 = bytes / t->tm.l2_bytes_per_clk;
    int rest = (int)splits - 1, batches = rest / KSUM_BATCH;
    for (int b = KSUM_BATCH / 2; b >= 1; b /= 2)
        batches += (rest % KSUM_BATCH) & b ? 1 : 0;
    double waves = ceil_div(elems, 64), issue = (22 + 4 * splits + 3 * batches) * 4;
    double busy = ceil_div(waves, (double)t->simds_per_cu * t->num_cu) * issue;
    double chain = (batches + 1) * t->tm.lat_hbm + issue;
    double mem = hbm > l2 ? hbm : l2;
    double sum = mem > busy ? mem : busy;
    double dispatch = dispatch_clk(t);
    return (sum > chain ? sum : chain) + dispatch;
}

/* What the copy of w into K, Y, X, C/G order adds (c->kyxc, the _kyxc
 * solvers; gen/kern_wkyxc.c): its dispatch, and one work-item per element
 * of w gathering a value Y*X elements from its neighbour's (each lane its
 * own line once Y*X elements span one) and storing it in order: those
 * lines through the L2, w's bytes read and written through the HBM,
 * behind a load and a store in a row (about 25 instructions a wave). */
static double kyxc_extra(const v4r1_config *c, const igemm_shape *sh, const target *t)
{
    if (!c->kyxc)
        return 0;
    double esz = igemm_dtype_get(sh->p.dtype)->bytes, line = t->tm.line_bytes, yx = (double)sh->p.y * sh->p.x;
    double waves = ceil_div((double)sh->w_elems, 64);
    double lines = waves * (inst_lines(64, yx * esz, esz, line) + inst_lines(64, esz, esz, line));
    double l2 = lines * line / t->tm.l2_bytes_per_clk;
    double hbm = 2 * (double)sh->w_elems * esz / hbm_per_clk(t);
    double busy = ceil_div(waves, (double)t->simds_per_cu * t->num_cu) * 25 * 4;
    double chain = 2 * t->tm.lat_hbm + 25 * 4;
    double mem = hbm > l2 ? hbm : l2, sum = mem > busy ? mem : busy;
    return (sum > chain ? sum : chain) + dispatch_clk(t);
}

/* Cache-line bytes per useful byte of a zero-only workgroup's dx stores
 * (its tile of a phase whose pixels lie stride apart): NHWC stores a
 * pixel's channels whole (1); NCHW's direct stores put consecutive lanes
 * on consecutive GEMM N pixels of the phase, `run` of them a lane (FMA: 4,
 * contiguous at stride 1; MFMA: 1), so at stride S lanes lie run * S
 * elements apart and a line holds the useful elements of line / (run * S *
 * size) lanes at most (timing model: every line a store touches is
 * written back whole). */
static double zero_store_waste(const v4r1_config *c, const igemm_shape *sh, const target *t)
{
    double esz = igemm_dtype_get(c->dtype)->bytes, line = t->tm.line_bytes, s = sh->p.stride_w;
    if (c->layout == IGEMM_LAYOUT_NHWC || s <= 1)
        return 1;
    double apart = (c->math == IGEMM_MATH_FMA ? 4 : 1) * s * esz; /* bytes from one lane's element to the next's */
    double lanes = apart >= line ? 1 : line / apart;
    return line / (lanes * esz);
}

/* The share of CU 0's zero-only workgroups that its GEMM workgroups do not
 * hide. CU 0 runs its workgroups of each phase (n0[i], a chain of lcyc[i]
 * cycles each; the GEMM phases first, as the grid orders them) in occ slots,
 * each taking the slot that frees first: a zero-only workgroup that starts
 * before the last GEMM one ends stores beside the GEMMs (the timing model
 * runs it in a slot the GEMMs leave free), the rest store after them. */
static double zeros_exposed(const double *n0, const double *lcyc, const bool *gemm, int nph, int occ)
{
    enum { SLOTS = 64 };
    double slot[SLOTS] = {0}, gemm_end = 0, zeros = 0, after = 0;
    bool any = false;
    for (int i = 0; i < nph; i++)
        any |= !gemm[i] && n0[i] > 0;
    if (!any) /* nothing to place: the common case, most plans have no zero-only phase */
        return 1;
    int ns = occ < 1 ? 1 : occ < SLOTS ? occ : SLOTS;
    for (int i = 0; i < nph; i++)
        for (double k = 0; k < n0[i]; k++) {
            int b = 0;
            for (int j = 1; j < ns; j++)
                if (slot[j] < slot[b])
                    b = j;
            if (!gemm[i]) {
                zeros++;
                after += slot[b] >= gemm_end;
            }
            slot[b] += lcyc[i];
            if (gemm[i] && slot[b] > gemm_end)
                gemm_end = slot[b];
        }
    return zeros ? after / zeros : 1;
}

/* How the busy and the latency bounds combine: neither hides the other
 * whole (a wave waiting on its loads issues nothing, and the SIMD's other
 * waves do not always fill the gap), so the estimate is their 6-norm: the
 * larger, plus a part of the smaller that grows as they near each other
 * (12% more than either where they are equal). */
#define BOUND_NORM 6.0

double v4r1_estimate_terms(const v4r1_config *c, const igemm_shape *sh, const target *t, const kernel_alloc *alloc,
                           v4r1_terms *terms)
{
    v4r1_terms tm = {0};
    int waves = c->block / 64;
    wave_cost wc = math_cost(c, t, sh);
    double step = wc.step, fixed = wc.fixed + guard_cycles(c, sh);
    /* with D tiles in flight (c->in_flight) a step waits for loads issued D
       steps before: the first tile pays the whole latency, every later step
       a D-th of it, and never less than its issue */
    double lfirst = lat_step(c, t), lstep = lfirst / c->in_flight > step ? lfirst / c->in_flight : step;
    double lfixed = fixed + lat_fixed(t) + wc.tail;
    /* workgroups a CU holds (arch/occupancy.h), from the kernel's allocation
       or else the configuration's register estimate (SGPRs are not
       estimated) */
    occupancy o;
    kernel_alloc a = alloc ? *alloc : v4r1_config_alloc(c);
    if (target_occupancy(t, &a, waves, &o)) { /* does not fit a CU */
        tm.total = 1e300;
        if (terms)
            *terms = tm;
        return tm.total;
    }
    int occ = o.max_wg;
    tm.occ = occ;
    int phases[V4R1_PLAN_PHASES];
    int nph = v4r1_launch_phases(c, sh, phases, V4R1_PLAN_PHASES); /* empty phases: steps 0, only stores */
    double per, splits; /* a split along GEMM K: splits times the workgroups, a range of the K blocks each */
    split_ranges(c, sh, &per, &splits);
    double wgs_of[V4R1_PLAN_PHASES], wgs_total = 0;
    for (int i = 0; i < nph; i++) {
        igemm_phase ph = igemm_phase_get(sh, phases[i]);
        wgs_of[i] = ceil_div((double)ph.gemm_m, c->mpb) * ceil_div((double)ph.gemm_n, c->npb) * sh->p.groups * splits;
        wgs_total += wgs_of[i];
    }
    if (wgs_total == 0) {
        if (terms)
            *terms = tm;
        return 0;
    }
    /* every phase's workgroups in one (multihead) launch, the phases one
       after another in the grid (the GEMM phases first); workgroups go to
       the CUs round-robin (timing model: with A = min(CUs, workgroups), CU 0
       runs workgroups 0, A, 2A, ...), so CU 0 has the most and its work is
       the launch's: a grid of a few long GEMM workgroups and many short
       zero-writing ones is as slow as CU 0's share of the long ones */
    double act = wgs_total < t->num_cu ? wgs_total : t->num_cu;
    double w0 = 0, c0 = 0, g0 = 0; /* CU 0's waves, their cycles, its workgroups with K steps */
    double cycles_total = 0, longest = 0; /* longest: one wave with the latency floor */
    /* the tiles' bytes through the device's L2 (each workgroup loads its A
       and B tiles once per step, elements of the tensors' type) */
    double tile_bytes = (double)c->kpb * (c->mpb + c->npb) * igemm_dtype_get(c->dtype)->bytes, l2_bytes = 0;
    op_lines wg_lines = step_lines(c, sh, t, false); /* address path: lines of the loads */
    op_lines wg_l2 = step_lines(c, sh, t, true);     /* the lines the L2 serves */
    double lines = 0, first = 0, l2_a = 0, l2_b = 0, tap_a = 0, tap_b = 0, taps_max = 0, ntiles = 1;
    double zero_bytes = 0; /* the line bytes the empty phases' workgroups store */
    double n0_of[V4R1_PLAN_PHASES], lcyc_of[V4R1_PLAN_PHASES]; /* CU 0's workgroups of each phase, their chains */
    bool gemm_of[V4R1_PLAN_PHASES];
    for (int i = 0; i < nph; i++) {
        igemm_phase ph = igemm_phase_get(sh, phases[i]);
        double steps = (double)ph.ydot_slice * ph.xdot_slice * per, wgs = wgs_of[i];
        double cyc = steps * step + fixed, lcyc = (steps ? lfirst + steps * lstep : 0) + lfixed;
        /* CU 0's workgroups of this phase: the multiples of act in [first, first + wgs) */
        double n0 = floor((first + wgs - 1) / act) - (first > 0 ? floor((first - 1) / act) : -1);
        first += wgs;
        n0_of[i] = n0, lcyc_of[i] = lcyc, gemm_of[i] = steps > 0;
        w0 += n0 * waves;
        c0 += n0 * waves * cyc;
        g0 += steps ? n0 : 0;
        l2_bytes += wgs * steps * tile_bytes;
        if (!steps)
            zero_bytes += wgs * c->mpb * c->npb * igemm_dtype_get(c->dtype)->bytes * zero_store_waste(c, sh, t);
        lines += wgs * steps * (wg_lines.a + wg_lines.b);
        l2_a += wgs * steps * wg_l2.a;
        l2_b += wgs * steps * wg_l2.b;
        if (steps) { /* the lines one tap's K blocks bring in: what a later tap reuses */
            tap_a = per * wg_l2.a > tap_a ? per * wg_l2.a : tap_a;
            tap_b = per * wg_l2.b > tap_b ? per * wg_l2.b : tap_b;
            if (ceil_div((double)ph.gemm_n, c->npb) > ntiles)
                ntiles = ceil_div((double)ph.gemm_n, c->npb);
            if (ph.ydot_slice * ph.xdot_slice > taps_max)
                taps_max = ph.ydot_slice * ph.xdot_slice;
        }
        cycles_total += wgs * waves * cyc;
        if (lcyc > longest)
            longest = lcyc;
    }
    tm.work = cycles_total;
    double per_simd = ceil_div(w0, t->simds_per_cu);          /* waves each SIMD of CU 0 runs */
    /* the GEMM workgroups CU 0 holds at once (0: it has none) */
    double gemm_held = g0 < occ ? g0 : occ;
    /* waves a SIMD holds at once: of the GEMM workgroups where CU 0 has
       fewer than it holds (its zero-only ones end early and leave the GEMM
       waves alone on their SIMDs) */
    double resident = (gemm_held >= 1 ? gemm_held : occ) * waves / t->simds_per_cu;
    if (resident > per_simd)
        resident = per_simd;
    /* the memory latency the waves leave exposed: 1.3x their issue with one
       wave a SIMD, none from three on, in between linearly */
    double lat = resident <= 1 ? 1.3 : resident >= 3 ? 1.0 : 1.3 - 0.15 * (resident - 1);
    double busy = per_simd * c0 / w0 * lat;
    tm.issue = busy;
    /* a CU's address path takes the lines of the workgroups it runs */
    double mem = l2_bytes / t->tm.l2_bytes_per_clk, path = lines / wgs_total * ceil_div(wgs_total, t->num_cu);
    double line = t->tm.line_bytes;
    double l2_line_cyc = (l2_a + l2_b) * line / t->tm.l2_bytes_per_clk; /* every L1 miss through L2 */
    if (l2_line_cyc > mem)
        mem = l2_line_cyc;
    tm.l2 = mem;
    tm.path = path;
    /* HBM. A later tap of a workgroup's walk re-reads lines an earlier tap
       brought in (dy's pixels shifted by the tap; KCYX's w, whose lines
       hold the other taps' elements of a channel), from the L2 while the
       lines a CU touches over one tap fit its share of it (timing model:
       each active CU of an L2 instance streams through its share; lines
       that the instance's CUs read at once count once: neighbouring CUs
       run consecutive workgroups, the same w tile for N tiles in a row,
       and the same dy tile every N tiles). The workgroups a CU holds each bring one
       tap's A and B lines and allocate their dx tile. Once that overflows
       the share, every re-read misses: the operands' lines come from HBM
       with dx's write-back. (Otherwise HBM moves the compulsory bytes, the
       same for every configuration of a layer: they rank none.) NCHW only:
       charged on NHWC too, the picks moved away from find mode's best on
       the NHWC rankings (docs/TIMING.md, "The heuristic against find
       mode"), which this estimate does not explain. */
    double hbm_clk = hbm_per_clk(t);
    double held = gemm_held >= 1 ? gemm_held : 1;
    double inst = t->tm.l2_instances > 1 ? t->tm.l2_instances : 1, cus = ceil_div(act, inst);
    double share_a = ntiles < cus ? ntiles : cus, share_b = cus > ntiles ? cus / ntiles : 1;
    double cu_l2 = t->tm.l2_bytes / inst / cus;
    double out_bytes = c->mpb * c->npb * (c->ksplit ? 4 : igemm_dtype_get(c->dtype)->bytes);
    double cu_fp = held * ((tap_a / share_a + tap_b / share_b) * line + out_bytes);
    if (c->layout == IGEMM_LAYOUT_NCHW && taps_max > 1 && cu_fp > cu_l2) {
        double hbm = ((double)sh->dx_elems * igemm_dtype_get(sh->p.dtype)->bytes + l2_a * line / share_a +
                      l2_b * line / share_b) / hbm_clk;
        tm.hbm = hbm;
    }
    /* KCYX's strided w: a later tap re-reads the lines of an earlier one
       (they hold the other taps' elements of the tile's channels); where
       one tap's lines overflow the CU's share, those re-reads miss, each
       CU's own (the CUs that read the tile at once do not keep it for one
       another: they walk its taps out of step), unless all of w fits one L2 */
    double w_bytes = (double)sh->w_elems * igemm_dtype_get(sh->p.dtype)->bytes;
    if (!w_channels_contiguous(c, sh) && taps_max > 1 && tap_a * line > cu_l2 && w_bytes > t->tm.l2_bytes / inst &&
        l2_a * line / hbm_clk > tm.hbm)
        tm.hbm = l2_a * line / hbm_clk;
    if (tm.hbm > mem)
        mem = tm.hbm;
    if (mem > busy)
        busy = mem;
    if (path > busy)
        busy = path;
    /* the latency floor: CU 0 holds occ workgroups at once, so its GEMM
       workgroups wait for their loads in g0 / occ rounds, one after another
       (a fraction of one where the last is not full: its workgroups share
       the CU with fewer others, and the phases' chains differ) */
    if (g0 > occ)
        longest *= g0 / occ;
    tm.latency = longest;
    /* the empty phases' workgroups run after the GEMM ones, or beside them
       in the slots those leave free; the ones after store through the HBM
       (bytes per cycle). Only whole-line stores hide beside the GEMMs:
       NCHW's zeros at a stride write parts of lines (zero_store_waste > 1),
       whose traffic the timing model charges wherever they run (gfx908
       16-bit 1x1 stride-2 layers at batch 32: hiding them picked tiles
       1.3-1.5x slower), so those all count after the GEMMs */
    double waste = zero_store_waste(c, sh, t);
    tm.zeros = zero_bytes / hbm_clk * (waste > 1 ? 1 : zeros_exposed(n0_of, lcyc_of, gemm_of, nph, occ));
    busy += tm.zeros;
    /* a launch's dispatch (timing model: launch_us), and where the plan
       fills dx with zeros first, the fill's dispatch and its bytes */
    bool fill = v4r1_plan_fills(c, sh);
    double launch = dispatch_clk(t) * (fill ? 2 : 1);
    if (fill)
        launch += (double)sh->dx_elems * igemm_dtype_get(sh->p.dtype)->bytes / hbm_clk;
    /* no fixup launch: an unsplit kernel guards itself (guard_cycles, in
       fixed), a split's reduction its sums (split_extra) */
    tm.extra = launch + split_extra(c, sh, t) + kyxc_extra(c, sh, t);
    tm.total = pow(pow(busy, BOUND_NORM) + pow(longest, BOUND_NORM), 1 / BOUND_NORM) + tm.extra;
    if (terms)
        *terms = tm;
    return tm.total;
}

double v4r1_estimate(const v4r1_config *c, const igemm_shape *sh, const target *t, const kernel_alloc *a,
                     double *work)
{
    v4r1_terms tm;
    double total = v4r1_estimate_terms(c, sh, t, a, &tm);
    if (work)
        *work = tm.work;
    return total;
}

double naive_estimate(const igemm_shape *sh, const target *t)
{
    /* fitted to the timing model on gfx906 (docs/TIMING.md) when every load
       was an L2 hit: a wave issues 380 cycles once and 107 + 24 * Kg per
       tap; its dependent loads take 1055 cycles once (the first lines, from
       HBM: scaled by the target's HBM latency) and 227 (+165 when strided:
       the lanes' checks) + 317 * Kg per tap, at gfx906's L2 latency of 300;
       the timing model now serves a tap's first loads from the vector L1
       (the lanes of a wave read neighbouring pixels, tap after tap): that
       part scales by the target's L1 latency, the per-channel one by its L2
       latency. Waves of one SIMD overlap their latencies only partly. */
    double taps = (double)sh->p.y * sh->p.x, kg = sh->kg;
    double once = t->tm.lat_hbm / 600.0, l1 = t->tm.lat_l1 / 300.0, l2 = t->tm.lat_l2 / 300.0;
    bool strided = sh->p.stride_h > 1 || sh->p.stride_w > 1;
    double issue = 380 + taps * (107 + 24 * kg);
    double chain = once * 1055 + taps * (l1 * (227 + (strided ? 165 : 0)) + l2 * 317 * kg);
    double waves = ceil_div((double)sh->dx_elems, 64);
    double busy = ceil_div(waves, (double)t->simds_per_cu * t->num_cu) * issue;
    double launch = dispatch_clk(t);
    return (busy > chain ? busy + 0.25 * chain : chain + 0.25 * busy) + launch;
}

/* Estimates this close (relative) to the least count as a tie. */
#define HEUR_TIE 0.001

/* The v4r1 configuration of least estimated time (*best_t) among the ones
 * v admits, by the rule of select_heuristic; NULL when none is. */
static const solver *best_v4r1(const igemm_shape *sh, const target *t, const heuristic_view *v, double *best_t)
{
    /* the least estimated time; among configurations tied with it (within
       HEUR_TIE), the least work (when CUs idle anyway, a tile that issues
       fewer instructions is as fast and cheaper) */
    double est[SOLVER_MAX], work[SOLVER_MAX];
    int n = solver_count();
    *best_t = -1;
    for (int i = 0; i < n; i++) {
        const solver *s = solver_get(i);
        est[i] = -1;
        if (s->kind != SOLVER_V4R1 || !v->ok(v->ctx, s))
            continue;
        kernel_alloc a;
        bool known = v->alloc && v->alloc(v->ctx, s, &a) == 0;
        est[i] = v4r1_estimate(s->cfg, sh, t, known ? &a : NULL, &work[i]);
        if (*best_t < 0 || est[i] < *best_t)
            *best_t = est[i];
    }
    int pick = -1;
    for (int i = 0; i < n; i++)
        if (est[i] >= 0 && est[i] <= *best_t * (1 + HEUR_TIE) && (pick < 0 || work[i] < work[pick]))
            pick = i;
    return pick >= 0 ? solver_get(pick) : NULL;
}

const solver *select_heuristic(const igemm_shape *sh, const target *t, const heuristic_view *v)
{
    double best_t;
    const solver *best = best_v4r1(sh, t, v, &best_t);
    for (int i = 0; i < solver_count(); i++) {
        const solver *s = solver_get(i);
        if (s->kind == SOLVER_NAIVE && v->ok(v->ctx, s) && (!best || naive_estimate(sh, t) < best_t))
            return s;
    }
    return best;
}

bool heuristic_naive_worth_timing(const igemm_shape *sh, const target *t, const heuristic_view *v)
{
    double best_t;
    return !best_v4r1(sh, t, v, &best_t) || naive_estimate(sh, t) < 2 * best_t;
}
