"""numpy arrays and torch tensors as libigemm buffers: shape, data type,
memory layout, where the memory lives and its address.

The logical shape is always (N, C, H, W) (numpy and torch index that way);
the layout is the memory order: NCHW for C-contiguous data, NHWC for
channels-last data (torch.channels_last, or a numpy array whose
transpose(0, 2, 3, 1) is C-contiguous). Data in neither order is copied to
NCHW first.
"""
import sys

import numpy as np

from . import _lib

HOST = ("host", 0)

_NP_DTYPES = {np.dtype(np.float32): _lib.FP32, np.dtype(np.float16): _lib.FP16}
LAYOUT_NAMES = {_lib.LAYOUT_NCHW: "NCHW", _lib.LAYOUT_NHWC: "NHWC"}


def _torch():
    return sys.modules.get("torch")


def is_torch(x):
    t = _torch()
    return t is not None and isinstance(x, t.Tensor)


def _torch_dtypes(t):
    return {t.float32: _lib.FP32, t.float16: _lib.FP16, t.bfloat16: _lib.BF16}


class Buffer:
    """One tensor argument: obj (the array or tensor, kept alive), shape,
    dtype (igemm_dtype), layout (igemm_layout), device (HOST or ("hip", i)),
    ptr and nbytes."""

    def __init__(self, obj, name, defer=False):
        self._pending = None  # a deferred copy to NCHW (materialize() makes it)
        self._defer = defer
        if is_torch(obj):
            self._from_torch(obj, name)
        elif isinstance(obj, np.ndarray):
            self._from_numpy(obj, name)
        else:
            raise TypeError(f"igemm: {name} must be a numpy array or a torch tensor, not {type(obj).__name__}")
        self.name = name

    def _from_numpy(self, a, name):
        _check_4d(a.shape, name)
        if a.dtype not in _NP_DTYPES:
            raise TypeError(f"igemm: {name} has dtype {a.dtype}, which is not an igemm data type "
                            "(float32, float16, bfloat16)")
        if a.flags.c_contiguous:
            self.layout = _lib.LAYOUT_NCHW
        elif a.transpose(0, 2, 3, 1).flags.c_contiguous:
            self.layout = _lib.LAYOUT_NHWC
        else:
            self.layout = _lib.LAYOUT_NCHW
            if self._defer:
                self._pending = np.ascontiguousarray
            else:
                a = np.ascontiguousarray(a)
        self.obj, self.shape, self.dtype, self.device = a, tuple(a.shape), _NP_DTYPES[a.dtype], HOST
        self.ptr, self.nbytes = (None if self._pending else a.ctypes.data), a.size * a.itemsize

    def _from_torch(self, t, name):
        torch = _torch()
        _check_4d(tuple(t.shape), name)
        dtypes = _torch_dtypes(torch)
        if t.dtype not in dtypes:
            raise TypeError(f"igemm: {name} has dtype {t.dtype}, which is not an igemm data type "
                            "(float32, float16, bfloat16)")
        t = t.detach()
        if t.is_contiguous():
            self.layout = _lib.LAYOUT_NCHW
        elif t.is_contiguous(memory_format=torch.channels_last):
            self.layout = _lib.LAYOUT_NHWC
        else:
            self.layout = _lib.LAYOUT_NCHW
            if self._defer:
                self._pending = lambda x: x.contiguous()
            else:
                t = t.contiguous()
        self.obj, self.shape, self.dtype = t, tuple(t.shape), dtypes[t.dtype]
        self.device = torch_device(t, name)
        self.ptr, self.nbytes = (None if self._pending else t.data_ptr()), t.numel() * t.element_size()

    def materialize(self):
        """Make the deferred copy (data in neither layout, an expanded view):
        after the problem was checked, so that a refused problem never pays
        for it. Returns self."""
        if self._pending:
            self.obj = self._pending(self.obj)
            self._pending = None
            self.ptr = self.obj.data_ptr() if is_torch(self.obj) else self.obj.ctypes.data
        return self

    def to_layout(self, layout):
        """This buffer's data in `layout` (a copy when it differs)."""
        self.materialize()
        if layout == self.layout:
            return self
        if is_torch(self.obj):
            fmt = _torch().channels_last if layout == _lib.LAYOUT_NHWC else _torch().contiguous_format
            return Buffer(self.obj.contiguous(memory_format=fmt), self.name)
        a = self.obj
        a = np.ascontiguousarray(a) if layout == _lib.LAYOUT_NCHW else \
            np.ascontiguousarray(a.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
        return Buffer(a, self.name)

    def empty(self, shape, name):
        """A new uninitialized tensor of this one's kind, dtype, layout and device."""
        if is_torch(self.obj):
            torch = _torch()
            fmt = torch.channels_last if self.layout == _lib.LAYOUT_NHWC else torch.contiguous_format
            return Buffer(torch.empty(shape, dtype=self.obj.dtype, device=self.obj.device, memory_format=fmt), name)
        if self.layout == _lib.LAYOUT_NHWC:
            n, c, h, w = shape
            return Buffer(np.empty((n, h, w, c), dtype=self.obj.dtype).transpose(0, 3, 1, 2), name)
        return Buffer(np.empty(shape, dtype=self.obj.dtype), name)


def _check_4d(shape, name):
    if len(shape) != 4:
        raise ValueError(f"igemm: {name} must have 4 dimensions (N, C, H, W), it has {len(shape)}: {shape}")


def torch_device(t, name):
    """HOST for CPU tensors, ("hip", index) for ROCm device tensors; other
    devices are refused."""
    torch = _torch()
    if t.device.type == "cpu":
        return HOST
    if t.device.type == "cuda" and getattr(torch.version, "hip", None):
        return ("hip", t.device.index if t.device.index is not None else torch.cuda.current_device())
    if t.device.type == "cuda":
        raise ValueError(f"igemm: {name} is on {t.device}, but this torch is built for CUDA, not ROCm: igemm runs "
                         "on AMD GPUs (ROCm torch) or on the emulator (CPU tensors)")
    raise ValueError(f"igemm: {name} is on {t.device}: igemm takes CPU tensors (emulator) or ROCm GPU tensors (HIP)")


def dtype_name(code):
    return {_lib.FP32: "float32", _lib.FP16: "float16", _lib.BF16: "bfloat16"}[code]
