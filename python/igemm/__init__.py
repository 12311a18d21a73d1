"""igemm: dynamic implicit-GEMM backward-data convolution for AMD GCN/CDNA,
from Python (numpy arrays and torch tensors) through libigemm.

    import igemm
    dx = igemm.conv_bwd_data(dy, w, x.shape, stride=2, padding=1)
    dx, info = igemm.conv_bwd_data(dy, w, x.shape, arch="gfx90a", return_info=True)
    igemm.applicable(dy, w, x.shape, groups=2)     # truthy, or .reason
    igemm.solutions()                              # every kernel configuration
    dx, results = igemm.find(dy, w, x.shape, perfdb="igemm.udb")  # time them all, keep the best

igemm.torch.Conv2d is torch.nn.Conv2d with the input gradient from igemm
(import igemm.torch; it needs torch). The library is found as _lib explains
(IGEMM_LIBRARY names it explicitly).
"""
from ._errors import IgemmError
from ._conv import Applicability, FindResult, RunInfo, applicable, conv_bwd_data, find, solutions, stats
from . import _lib

__version__ = _lib.lib.igemm_version().decode()
library_path = _lib.path
targets = _lib.codeobj_targets()   # the code objects compiled into the library

__all__ = ["IgemmError", "Applicability", "FindResult", "RunInfo", "applicable", "conv_bwd_data", "find",
           "solutions", "stats",
           "library_path", "targets"]
