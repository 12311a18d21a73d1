"""conv_bwd_data, applicable, solutions: the backward-data convolution of
libigemm on numpy arrays and torch tensors."""
import ctypes
import operator
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from . import _handles, _lib
from ._errors import IgemmError
from ._tensors import HOST, Buffer, dtype_name

_BACKENDS = ("auto", "emu", "hip")
_problems_seen = set()
_runs = 0


@dataclass(frozen=True)
class RunInfo:
    """What one conv_bwd_data call ran.

    solution: the kernel configuration; source: who chose it ("user",
    "perfdb", "heuristic"); launches: kernel launches; kernels: the distinct
    kernels launched; backend ("emu", "hip") and arch (target). On the
    emulator modeled_cycles is the modeled issue-cycle count (a model, not a
    measurement; docs/EMULATOR.md) and instructions the emulated wave
    instructions (time_ms is None there: nothing is measured); on HIP
    time_ms is the event-timed duration of the launches when the call asked
    for timing (conv_bwd_data(..., timing=True)), else None. On the
    emulator modeled_us is the timing model's time of the launches on the
    target's reference product (docs/TIMING.md; a model, not a measurement)
    and memory its memory view (igemm_memory_view's fields: line and useful
    bytes of loads and stores, L1 and L2 lookups and hits, HBM bytes, LDS
    cycles and their conflict-free count); both None on HIP, and when the
    model could not time a launch. launch_times: on the emulator, each launch
    (the first 8) as (kernel, modeled_us, limit), where a multi-launch plan's
    time goes (a split's GEMM and reduction, a zero fill); None where
    modeled_us is.
    """
    solution: str
    source: str
    launches: int
    kernels: Tuple[str, ...]
    backend: str
    arch: str
    time_ms: Optional[float]
    modeled_cycles: Optional[int]
    instructions: Optional[int]
    modeled_us: Optional[float] = None
    memory: Optional[Dict[str, int]] = None
    launch_times: Optional[Tuple[Tuple[str, float, str], ...]] = None


@dataclass(frozen=True)
class Applicability:
    """igemm.applicable's answer: true when ok; otherwise status_name and
    reason (the library's one-line message) say why not."""
    ok: bool
    status_name: str
    reason: str

    def __bool__(self):
        return self.ok


def solutions():
    """Every kernel configuration the library knows ("naive", "igemm_bwd_v4r1_...")."""
    return [_lib.lib.igemm_solution_name(i).decode() for i in range(_lib.lib.igemm_solution_count())]


def stats():
    """Counters of this process: code_object_loads (handles created, one code
    object loaded each), runs (conv_bwd_data calls that ran) and
    distinct_problems (different problems among them)."""
    return {"code_object_loads": _handles.code_object_loads(), "runs": _runs,
            "distinct_problems": len(_problems_seen)}


def _ints(v, n, name, what):
    """v as a tuple of n C ints (an int is repeated when n is 2), or ValueError."""
    items = [v] * n if n == 2 and not isinstance(v, (tuple, list)) else v
    try:
        if len(items) != n or any(isinstance(e, bool) for e in items):
            raise TypeError
        out = tuple(operator.index(e) for e in items)
    except TypeError:
        raise ValueError(f"igemm: {name} must be {what}, not {v!r}") from None
    for e in out:
        if not -2**31 <= e < 2**31:
            raise ValueError(f"igemm: {name} value {e} does not fit a C int")
    return out


def _pair(v, name):
    return _ints(v, 2, name, "an int or a pair of ints")


def _shape4(v):
    if isinstance(v, (tuple, list)) and len(v) == 4 and all(isinstance(e, int) for e in v):
        return tuple(v)
    return None


_FP16_MODES = {"accurate": 0, "flush": 1, "alt": 2}


def _problem(dy_shape, w_shape, input_size, stride, padding, dilation, groups, dtype, layout, fp16_mode="accurate"):
    """The igemm_problem, checked by the library, and consistent with the
    shapes of dy and w."""
    groups, = _ints((groups,), 1, "groups", "an int")
    n_size = len(input_size) if isinstance(input_size, (tuple, list)) else 0
    size = _ints(input_size, n_size if n_size in (2, 4) else 4, "input_size", "(N, C, H, W) or (H, W)")
    n, k, ho, wo = dy_shape
    wk, wc, y, x = w_shape
    c = wc * groups
    if len(size) == 4:
        if size[0] != n or size[1] != c:
            raise ValueError(f"igemm: input_size {size} does not match dy {dy_shape} and w {w_shape} with groups "
                             f"{groups} (expected N={n}, C={c})")
        size = size[2:]
    p = _lib.Problem(n=n, c=c, hi=size[0], wi=size[1], k=wk, y=y, x=x, groups=groups, dtype=dtype, layout=layout)
    p.stride_h, p.stride_w = _pair(stride, "stride")
    p.pad_h, p.pad_w = _pair(padding, "padding")
    p.dil_h, p.dil_w = _pair(dilation, "dilation")
    if fp16_mode not in _FP16_MODES:
        raise ValueError(f"igemm: fp16_mode {fp16_mode!r} is not 'accurate', 'flush' or 'alt'")
    p.fp16_mode = _FP16_MODES[fp16_mode]
    why = ctypes.create_string_buffer(512)
    st = _lib.lib.igemm_problem_check(ctypes.byref(p), why, len(why))
    if st != _lib.OK:
        raise IgemmError(st, why.value.decode())
    if k != wk:
        raise ValueError(f"igemm: dy has {k} channels but w {w_shape} has {wk} filters")
    eho, ewo = _lib.lib.igemm_problem_ho(ctypes.byref(p)), _lib.lib.igemm_problem_wo(ctypes.byref(p))
    if (ho, wo) != (eho, ewo):
        raise ValueError(f"igemm: dy is {ho}x{wo}, but input {size[0]}x{size[1]} with filter {y}x{x}, stride "
                         f"{p.stride_h},{p.stride_w}, padding {p.pad_h},{p.pad_w}, dilation {p.dil_h},{p.dil_w} "
                         f"gives {eho}x{ewo}")
    return p


def _handle(backend, arch, device, perfdb=None, timing=False):
    """The handle for a call whose tensors live on `device`."""
    if backend not in _BACKENDS:
        raise ValueError(f"igemm: unknown backend {backend!r} (auto, emu, hip)")
    if device != HOST and backend == "emu":
        raise ValueError(f"igemm: backend 'emu' runs on host memory, but the tensors are on HIP device {device[1]} "
                         "(move them with .cpu(), or use backend='hip')")
    if backend == "hip" or device != HOST:
        h = _handles.get(_lib.BACKEND_HIP, None, device[1], perfdb, timing)
        if arch is not None and arch != h.arch:
            raise ValueError(f"igemm: arch {arch!r} was asked for, but HIP device {device[1]} is a {h.arch}")
        return h
    return _handles.get(_lib.BACKEND_EMU, arch, 0, perfdb)


def _buffers(dy, w, defer=False):
    """dy and w as Buffers; with defer, copies to NCHW wait for
    materialize() (and w's to dy's layout with them)."""
    bdy, bw = Buffer(dy, "dy", defer), Buffer(w, "w", defer)
    if bdy.dtype != bw.dtype:
        raise TypeError(f"igemm: dy is {dtype_name(bdy.dtype)} but w is {dtype_name(bw.dtype)}")
    if bdy.device != bw.device:
        raise ValueError("igemm: dy and w are on different devices")
    return (bdy, bw) if defer else (bdy, bw.to_layout(bdy.layout))


def applicable(dy, w, input_size, stride=1, padding=0, dilation=1, groups=1, arch=None, backend="auto",
               solution=None):
    """Can the library (configuration `solution`, or any) compute this
    problem? dy and w are arrays/tensors (their dtype and layout count) or
    shapes (fp32 NCHW). Returns an Applicability (true when it can); an
    invalid problem raises IgemmError or ValueError as conv_bwd_data does."""
    shapes = _shape4(dy), _shape4(w)
    if all(shapes):
        dy_shape, w_shape, dtype, layout, device = shapes[0], shapes[1], _lib.FP32, _lib.LAYOUT_NCHW, HOST
    else:
        bdy, bw = _buffers(dy, w, defer=True)  # shapes only: nothing copied
        dy_shape, w_shape, dtype, layout, device = bdy.shape, bw.shape, bdy.dtype, bdy.layout, bdy.device
    try:
        p = _problem(dy_shape, w_shape, input_size, stride, padding, dilation, groups, dtype, layout)
    except IgemmError as e:
        if e.status != _lib.ERR_UNSUPPORTED:
            raise
        return Applicability(False, e.status_name, e.message)
    h = _handle(backend, arch, device)
    why = ctypes.create_string_buffer(4096)
    with h.lock:
        st = _lib.lib.igemm_applicable(h.h, ctypes.byref(p), solution.encode() if solution else None, why, len(why))
    if st == _lib.ERR_INVALID_ARG:
        raise IgemmError(st, why.value.decode())
    return Applicability(st == _lib.OK, _lib.status_name(st), why.value.decode() if st != _lib.OK else "")


def _run_info(h, ri, timed):
    emu = h.backend == "emu"
    modeled = emu and ri.modeled_us > 0
    return RunInfo(solution=ri.solution.decode(), source=ri.source.decode(), launches=ri.launches,
                   kernels=tuple(k for k in ri.kernels.decode().split(",") if k), backend=h.backend, arch=h.arch,
                   time_ms=None if emu or not timed else ri.ms, modeled_cycles=ri.cycles if emu else None,
                   instructions=ri.insts if emu else None, modeled_us=ri.modeled_us if modeled else None,
                   memory={f: getattr(ri.memory, f) for f, _ in ri.memory._fields_} if modeled else None,
                   launch_times=tuple((t.kernel.decode(), t.modeled_us, t.limit.decode())
                                      for t in ri.launch[:min(ri.launches, _lib.RUN_LAUNCHES)]) if modeled else None)


def _staged(h, bdx, bdy, bw, call):
    """HIP on host data: device buffers, copies in, call(dx, dy, w) on them,
    the copy out."""
    lib, ptrs = _lib.lib, []
    try:
        for b in (bdx, bdy, bw):
            d = ctypes.c_void_p()
            h.check(lib.igemm_alloc(h.h, ctypes.byref(d), b.nbytes))
            ptrs.append(d)
        h.check(lib.igemm_set_stream(h.h, None))
        h.check(lib.igemm_copy_to_device(h.h, ptrs[1], bdy.ptr, bdy.nbytes))
        h.check(lib.igemm_copy_to_device(h.h, ptrs[2], bw.ptr, bw.nbytes))
        st = call(*ptrs)
        if st in (_lib.OK, _lib.ERR_IO):  # IO: find's results stand, only the perf-db was not written
            h.check(lib.igemm_copy_to_host(h.h, bdx.ptr, ptrs[0], bdx.nbytes))
        return st
    finally:
        for d in ptrs:
            lib.igemm_free(h.h, d)


def _empty_batch(bdy, bw, input_size, stride, padding, dilation, groups, arch, backend, return_info):
    """Batch 0, as torch answers it: an empty dx (0, C, H, W), after the same
    checks of every other argument (made on one image); nothing runs."""
    one = (1,) + tuple(bdy.shape[1:])
    size = input_size
    if isinstance(input_size, (tuple, list)) and len(input_size) == 4:
        size = (1,) + tuple(input_size[1:])
    p = _problem(one, bw.shape, size, stride, padding, dilation, groups, bdy.dtype, bdy.layout)
    h = _handle(backend, arch, bdy.device)
    dx = bdy.empty((0, p.c, p.hi, p.wi), "dx").obj
    if not return_info:
        return dx
    return dx, RunInfo(solution="", source="empty batch", launches=0, kernels=(), backend=h.backend, arch=h.arch,
                       time_ms=None if h.backend == "emu" else 0.0, modeled_cycles=0 if h.backend == "emu" else None,
                       instructions=0 if h.backend == "emu" else None)


def _on_handle(h, bdx, bdy, bw, call):
    """call(dx, dy, w) where the handle's kernels can reach the tensors (a
    torch tensor on HIP: torch's current stream); its status."""
    if h.backend == "hip" and bdy.device == HOST:
        return _staged(h, bdx, bdy, bw, call)
    if h.backend == "hip":
        torch = __import__("torch")
        h.check(_lib.lib.igemm_set_stream(h.h, torch.cuda.current_stream(bdy.obj.device).cuda_stream))
    return call(bdx.ptr, bdy.ptr, bw.ptr)


def conv_bwd_data(dy, w, input_size, stride=1, padding=0, dilation=1, groups=1, arch=None, backend="auto",
                  solution=None, return_info=False, perfdb=None, fp16_mode="accurate", timing=False):
    """dx, the gradient of a 2-D convolution's input, from dy (N, K, Ho, Wo)
    and w (K, C/groups, Y, X), like torch.nn.grad.conv2d_input.

    input_size: (N, C, H, W) or (H, W) of dx. stride, padding, dilation: an
    int or an (h, w) pair. dy and w are numpy arrays or torch tensors of one
    dtype (float32, float16, bfloat16) and layout (NCHW, or NHWC as torch's
    channels_last); dx comes back as the same kind, dtype, layout (dy's) and
    device.
    backend "auto": host data (numpy, CPU tensors) runs on the emulator of
    `arch` (default gfx906), ROCm device tensors on HIP on torch's current
    stream; "emu" and "hip" force one (HIP on host data copies through
    device buffers). solution: a configuration name (igemm.solutions());
    None lets the library choose: the perf-db's record (perfdb: a file
    igemm.find wrote; None: $IGEMM_USER_DB_PATH/igemm.udb when that is set),
    else the heuristic. fp16_mode "flush" lets fp16 run on kernels that
    flush subnormals (gfx90a's fp16 dot kernels), "alt" on kernels that round
    fp16 to bf16 for the bf16 MFMAs (MIOpen's alternate implementation). timing=True (HIP): time the
    launches with events, RunInfo.time_ms (the call then waits for them).
    With return_info=True the result is (dx, RunInfo). Batch 0 gives an
    empty dx (0, C, H, W) as torch does, nothing run. Data that must be
    copied to a layout (an expanded, stride-0 view among them) is copied
    only after the library accepted the problem. Errors: IgemmError with
    the library's message (an unsupported dtype or layout, an invalid
    problem, no GPU for 'hip'), ValueError / TypeError for arguments the
    library never sees.
    """
    global _runs
    bdy, bw = _buffers(dy, w, defer=True)
    if bdy.shape[0] == 0:
        return _empty_batch(bdy, bw, input_size, stride, padding, dilation, groups, arch, backend, return_info)
    p = _problem(bdy.shape, bw.shape, input_size, stride, padding, dilation, groups, bdy.dtype, bdy.layout,
                 fp16_mode)
    h = _handle(backend, arch, bdy.device, perfdb, timing)
    sol = solution.encode() if solution else None
    # the library's refusal comes before any copy (an expanded dy of a
    # problem it refuses would otherwise be materialized first)
    why = ctypes.create_string_buffer(4096)
    with h.lock:
        st = _lib.lib.igemm_applicable(h.h, ctypes.byref(p), sol, why, len(why))
    if st != _lib.OK:
        raise IgemmError(st, why.value.decode())
    bdy = bdy.materialize()
    bw = bw.materialize().to_layout(bdy.layout)
    bdx = bdy.empty((p.n, p.c, p.hi, p.wi), "dx")
    ri = _lib.RunInfoC()
    with h.lock:
        h.check(_on_handle(h, bdx, bdy, bw, lambda dx_, dy_, w_: _lib.lib.igemm_conv_bwd_data_ex(
            h.h, ctypes.byref(p), sol, dx_, dy_, w_, ctypes.byref(ri))))
    _runs += 1
    _problems_seen.add((h.arch, tuple(getattr(p, f) for f, _ in _lib.Problem._fields_)))
    return (bdx.obj, _run_info(h, ri, timing)) if return_info else bdx.obj


@dataclass(frozen=True)
class FindResult:
    """One configuration as igemm.find measured it: cost in unit ("ms" on
    HIP, event-timed; "cycles" on the emulator: modeled, not measured);
    ok False (cost None) when it failed to run, status_name saying why."""
    solution: str
    ok: bool
    status_name: str
    cost: Optional[float]
    unit: str


def find(dy, w, input_size, stride=1, padding=0, dilation=1, groups=1, arch=None, backend="auto", perfdb=None,
         fp16_mode="accurate"):
    """Find mode, as MIOpen's find-db serves PyTorch: run every configuration
    that applies to this problem, measure each, and keep the best in the
    handle and, with a perf-db file (perfdb, or $IGEMM_USER_DB_PATH/igemm.udb
    when perfdb is None and that is set), in that file, where later
    conv_bwd_data calls with the same perfdb (and igemm.torch.Conv2d with
    igemm_perfdb) find it (RunInfo.source "perfdb"). Arguments as
    conv_bwd_data. Returns (dx, [FindResult, fastest first]). A perf-db that
    cannot be written raises IgemmError (IGEMM_ERR_IO) after the search."""
    bdy, bw = _buffers(dy, w)
    p = _problem(bdy.shape, bw.shape, input_size, stride, padding, dilation, groups, bdy.dtype, bdy.layout,
                 fp16_mode)
    h = _handle(backend, arch, bdy.device, perfdb)
    bdx = bdy.empty((p.n, p.c, p.hi, p.wi), "dx")
    n = _lib.lib.igemm_solution_count() + 1
    res, count = (_lib.PerfC * n)(), ctypes.c_int()
    with h.lock:
        st = _on_handle(h, bdx, bdy, bw, lambda dx_, dy_, w_: _lib.lib.igemm_find(
            h.h, ctypes.byref(p), dx_, dy_, w_, res, n, ctypes.byref(count)))
        if st != _lib.OK:
            raise h.error(st)
    out = [FindResult(r.solution.decode(), r.status == _lib.OK, _lib.status_name(r.status),
                      r.cost if r.status == _lib.OK else None, r.unit.decode() if r.unit else "")
           for r in res[:min(count.value, n)]]
    return bdx.obj, out
