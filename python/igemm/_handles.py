"""One libigemm handle per (backend, target, device), created on first use
and kept for the life of the process: the target's code object is loaded
once, whatever the shapes that follow."""
import atexit
import ctypes
import os
import threading

from . import _lib
from ._errors import IgemmError

_cache = {}
_cache_lock = threading.Lock()
_loads = 0


class Handle:
    """A libigemm handle; calls on it are serialized by self.lock."""

    def __init__(self, backend, arch, device, perfdb=None, timing=False):
        opts = _lib.Options(backend=backend, arch=arch.encode() if arch else None, device=device,
                            perfdb=os.fsencode(perfdb) if perfdb else None, timing=1 if timing else 0)
        h = ctypes.c_void_p()
        why = ctypes.create_string_buffer(1024)
        st = _lib.lib.igemm_create(ctypes.byref(h), ctypes.byref(opts), why, len(why))
        if st != _lib.OK:
            raise IgemmError(st, why.value.decode())
        self.h = h
        self.lock = threading.Lock()
        self.arch = _lib.lib.igemm_handle_arch(h).decode()
        self.backend = _lib.lib.igemm_handle_backend(h).decode()

    def error(self, st):
        return IgemmError(st, _lib.lib.igemm_last_error(self.h).decode())

    def check(self, st):
        if st != _lib.OK:
            raise self.error(st)

    def destroy(self):
        if self.h:
            _lib.lib.igemm_destroy(self.h)
            self.h = None


def get(backend, arch, device=0, perfdb=None, timing=False):
    """The cached handle for (backend, arch, device, perfdb, timing); created
    (the code object loaded, the perf-db read) the first time. perfdb None:
    the library's default ($IGEMM_USER_DB_PATH/igemm.udb when that is set)."""
    global _loads
    perfdb = os.path.abspath(os.fspath(perfdb)) if perfdb else None
    key = (backend, arch, device, perfdb, bool(timing))
    with _cache_lock:
        h = _cache.get(key)
        if h is None:
            h = _cache[key] = Handle(backend, arch, device, perfdb, timing)
            _loads += 1
        return h


@atexit.register
def _destroy_all():
    with _cache_lock:
        for h in _cache.values():
            h.destroy()
        _cache.clear()


def code_object_loads():
    """How many handles (each loads its target's code object) this process created."""
    return _loads
