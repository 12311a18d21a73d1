"""libigemm through ctypes: finding the library and declaring the C API.

The library is looked up, first hit wins:

1. the file named by the environment variable IGEMM_LIBRARY (nothing else
   is tried when it is set);
2. libigemm.so next to this package (python/igemm/libigemm.so);
3. the build tree of a source checkout: python/igemm -> build/lib/libigemm.so
   (PYTHONPATH=python after `make`);
4. the install prefix: PREFIX/lib/python3.X/dist-packages/igemm ->
   PREFIX/lib/libigemm.so.0 (`make install PREFIX=...`);
5. libigemm.so.0 through the dynamic loader (LD_LIBRARY_PATH, ld.so.cache).
"""
import ctypes
import os

_HERE = os.path.dirname(os.path.abspath(__file__))

# include/igemm.h, igemm_status
STATUS_NAMES = (
    "IGEMM_OK", "IGEMM_ERR_INVALID_ARG", "IGEMM_ERR_UNSUPPORTED", "IGEMM_ERR_NOT_APPLICABLE",
    "IGEMM_ERR_NO_DEVICE", "IGEMM_ERR_NO_CODE_OBJECT", "IGEMM_ERR_BACKEND", "IGEMM_ERR_EMU_FAULT",
    "IGEMM_ERR_NO_MEMORY", "IGEMM_ERR_IO",
)
OK, ERR_INVALID_ARG, ERR_UNSUPPORTED, ERR_NOT_APPLICABLE, ERR_NO_DEVICE = range(5)
ERR_IO = STATUS_NAMES.index("IGEMM_ERR_IO")

LAYOUT_NCHW, LAYOUT_NHWC = 0, 1
FP32, FP16, BF16 = 0, 1, 2
BACKEND_AUTO, BACKEND_HIP, BACKEND_EMU = 0, 1, 2


class Problem(ctypes.Structure):
    _fields_ = [(f, ctypes.c_int) for f in (
        "n", "c", "hi", "wi", "k", "y", "x", "pad_h", "pad_w", "stride_h", "stride_w",
        "dil_h", "dil_w", "groups", "layout", "dtype", "fp16_mode")]


class Options(ctypes.Structure):
    _fields_ = [
        ("backend", ctypes.c_int),
        ("arch", ctypes.c_char_p),
        ("codeobj_dir", ctypes.c_char_p),
        ("perfdb", ctypes.c_char_p),
        ("emu_threads", ctypes.c_int),
        ("emu_max_wave_insts", ctypes.c_uint64),
        ("device", ctypes.c_int),
        ("emu_no_timing", ctypes.c_int),
        ("timing", ctypes.c_int),
        ("progress", ctypes.c_void_p),
        ("progress_ctx", ctypes.c_void_p),
    ]


class PerfC(ctypes.Structure):
    _fields_ = [
        ("solution", ctypes.c_char * 96),
        ("status", ctypes.c_int),
        ("cost", ctypes.c_double),
        ("unit", ctypes.c_char_p),
        ("launches", ctypes.c_int),
    ]


class MemoryViewC(ctypes.Structure):
    """include/igemm.h's igemm_memory_view: the timing model's memory view of a run."""
    _fields_ = [(name, ctypes.c_uint64) for name in (
        "line_loaded", "useful_loaded", "line_stored", "useful_stored", "l1_lookups", "l1_hits", "l2_reads",
        "l2_hits", "hbm_bytes", "lds_cycles", "lds_ideal")]


class LaunchTimeC(ctypes.Structure):
    """include/igemm.h's igemm_launch_time: one launch as the timing model saw it."""
    _fields_ = [
        ("kernel", ctypes.c_char * 96),
        ("grid", ctypes.c_uint),
        ("block", ctypes.c_uint),
        ("modeled_us", ctypes.c_double),
        ("limit", ctypes.c_char * 12),
    ]


RUN_LAUNCHES = 8  # include/igemm.h IGEMM_RUN_LAUNCHES


class RunInfoC(ctypes.Structure):
    _fields_ = [
        ("solution", ctypes.c_char * 96),
        ("launches", ctypes.c_int),
        ("ms", ctypes.c_double),
        ("cycles", ctypes.c_uint64),
        ("insts", ctypes.c_uint64),
        ("valu_cycles", ctypes.c_uint64),
        ("fma_cycles", ctypes.c_uint64),
        ("loop_valu_cycles", ctypes.c_uint64),
        ("loop_fma_cycles", ctypes.c_uint64),
        ("global_bytes", ctypes.c_uint64),
        ("lds_bytes", ctypes.c_uint64),
        ("source", ctypes.c_char * 16),
        ("kernels", ctypes.c_char * 512),
        ("modeled_us", ctypes.c_double),
        ("modeled_cycles", ctypes.c_uint64),
        ("modeled_busy", ctypes.c_uint64 * 4),
        ("limit", ctypes.c_char * 12),
        ("memory", MemoryViewC),
        ("launch", LaunchTimeC * RUN_LAUNCHES),
    ]


def candidates():
    """The paths tried, in order (IGEMM_LIBRARY alone when it is set)."""
    env = os.environ.get("IGEMM_LIBRARY")
    if env:
        return [env]
    lib_dir = os.path.normpath(os.path.join(_HERE, "..", "..", ".."))
    return [
        os.path.join(_HERE, "libigemm.so"),
        os.path.normpath(os.path.join(_HERE, "..", "..", "build", "lib", "libigemm.so")),
        os.path.join(lib_dir, "libigemm.so.0"),
        "libigemm.so.0",
    ]


def _load():
    tried = []
    for path in candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path + " (missing)")
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append(str(e))
    raise ImportError("igemm: cannot load libigemm: tried " + "; ".join(tried) +
                      " (build it with make, or name the file in IGEMM_LIBRARY)")


def _declare(lib):
    P = ctypes.POINTER
    c_int, c_char_p, c_void_p, c_size_t = ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t
    sig = {
        "igemm_version": (c_char_p, []),
        "igemm_status_name": (c_char_p, [c_int]),
        "igemm_problem_check": (c_int, [P(Problem), c_char_p, c_size_t]),
        "igemm_problem_ho": (c_int, [P(Problem)]),
        "igemm_problem_wo": (c_int, [P(Problem)]),
        "igemm_create": (c_int, [P(c_void_p), P(Options), c_char_p, c_size_t]),
        "igemm_destroy": (None, [c_void_p]),
        "igemm_last_error": (c_char_p, [c_void_p]),
        "igemm_handle_arch": (c_char_p, [c_void_p]),
        "igemm_handle_backend": (c_char_p, [c_void_p]),
        "igemm_set_stream": (c_int, [c_void_p, c_void_p]),
        "igemm_alloc": (c_int, [c_void_p, P(c_void_p), c_size_t]),
        "igemm_free": (c_int, [c_void_p, c_void_p]),
        "igemm_copy_to_device": (c_int, [c_void_p, c_void_p, c_void_p, c_size_t]),
        "igemm_copy_to_host": (c_int, [c_void_p, c_void_p, c_void_p, c_size_t]),
        "igemm_codeobj_count": (c_int, []),
        "igemm_codeobj_get": (c_int, [c_int, P(c_char_p), P(c_void_p), P(c_size_t)]),
        "igemm_solution_count": (c_int, []),
        "igemm_solution_name": (c_char_p, [c_int]),
        "igemm_applicable": (c_int, [c_void_p, P(Problem), c_char_p, c_char_p, c_size_t]),
        "igemm_conv_bwd_data_ex": (c_int, [c_void_p, P(Problem), c_char_p, c_void_p, c_void_p, c_void_p,
                                           P(RunInfoC)]),
        "igemm_find": (c_int, [c_void_p, P(Problem), c_void_p, c_void_p, c_void_p, P(PerfC), c_int, P(c_int)]),
    }
    for name, (res, args) in sig.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args


lib, path = _load()
_declare(lib)


def status_name(st):
    return lib.igemm_status_name(st).decode()


def codeobj_targets():
    """The targets whose code objects are compiled into the library."""
    names = []
    for i in range(lib.igemm_codeobj_count()):
        arch, image, size = ctypes.c_char_p(), ctypes.c_void_p(), ctypes.c_size_t()
        if lib.igemm_codeobj_get(i, ctypes.byref(arch), ctypes.byref(image), ctypes.byref(size)) == OK:
            names.append(arch.value.decode())
    return tuple(names)
