"""igemm.torch.Conv2d: torch.nn.Conv2d whose input gradient comes from igemm.

The module has nn.Conv2d's constructor, parameters and state_dict; forward
and the weight and bias gradients are torch's own (F.conv2d and
aten::convolution_backward, as nn.Conv2d uses them); only dx, the input
gradient, is computed by igemm.conv_bwd_data: on the emulator for CPU
tensors, on HIP on torch's current stream for ROCm device tensors.

    from igemm.torch import Conv2d
    conv = Conv2d(16, 32, 3, stride=2, padding=1, igemm_arch="gfx90a")
    conv.load_state_dict(torch_conv.state_dict())
    model = igemm.torch.convert(model)      # every nn.Conv2d of a model
"""
import torch
import torch.nn.functional as F
from torch.autograd.function import once_differentiable

from ._conv import conv_bwd_data, find


_found = set()  # the problems igemm_find=True modules have searched in this process


class Conv2dFunction(torch.autograd.Function):
    """F.conv2d forward; backward: dx by igemm, dw and db by torch."""

    @staticmethod
    def forward(ctx, x, weight, bias, stride, padding, dilation, groups, igemm_kw):
        ctx.save_for_backward(x, weight)
        ctx.conv = (tuple(stride), tuple(padding), tuple(dilation), groups)
        ctx.has_bias = bias is not None
        ctx.igemm_kw = igemm_kw
        return F.conv2d(x, weight, bias, stride, padding, dilation, groups)

    @staticmethod
    @once_differentiable
    def backward(ctx, dy):
        x, w = ctx.saved_tensors
        stride, padding, dilation, groups = ctx.conv
        dx = dw = db = None
        if ctx.needs_input_grad[0]:
            kw = dict(ctx.igemm_kw)
            key = (tuple(dy.shape), tuple(w.shape), tuple(x.shape), stride, padding, dilation, groups, dy.dtype,
                   kw.get("arch"), kw.get("perfdb"))
            if kw.pop("find") and kw.get("solution") is None and key not in _found:
                # the first backward of a shape: find mode (MIOpen's find-db way), then the perf-db serves it
                kw.pop("solution")
                dx, _ = find(dy, w, tuple(x.shape), stride, padding, dilation, groups, **kw)
                _found.add(key)
            else:
                dx = conv_bwd_data(dy, w, tuple(x.shape), stride, padding, dilation, groups, **kw)
        if ctx.needs_input_grad[1] or ctx.needs_input_grad[2]:
            mask = [False, ctx.needs_input_grad[1], ctx.needs_input_grad[2] and ctx.has_bias]
            _, dw, db = torch.ops.aten.convolution_backward(
                dy, x, w, [w.shape[0]] if ctx.has_bias else None, list(stride), list(padding), list(dilation),
                False, [0, 0], groups, mask)
        return dx, dw, db, None, None, None, None, None


def _same_padding(dilation, kernel_size):
    """padding='same' as torch computes it: total d*(k-1), the left half
    rounded down; the extra one goes to the right/bottom (F.pad)."""
    left = [d * (k - 1) // 2 for d, k in zip(dilation, kernel_size)]
    extra = [d * (k - 1) - 2 * lf for d, k, lf in zip(dilation, kernel_size, left)]
    return tuple(left), [0, extra[1], 0, extra[0]]


class Conv2d(torch.nn.Conv2d):
    """torch.nn.Conv2d with the input gradient computed by igemm.

    Takes nn.Conv2d's arguments, plus igemm_arch (emulated target, None: the
    library's default), igemm_backend ("auto", "emu", "hip"),
    igemm_solution (a configuration name, None: the library's selection),
    igemm_perfdb (the perf-db file the selection reads, None: the library's
    default, $IGEMM_USER_DB_PATH/igemm.udb when set), igemm_find (True: the
    first backward of each shape runs igemm.find, which records the best
    configuration in the perf-db; later ones read it) and igemm_fp16_mode
    ("accurate", "flush", "alt").
    """

    def __init__(self, *args, igemm_arch=None, igemm_backend="auto", igemm_solution=None, igemm_perfdb=None,
                 igemm_find=False, igemm_fp16_mode="accurate", **kwargs):
        super().__init__(*args, **kwargs)
        self.igemm_arch = igemm_arch
        self.igemm_backend = igemm_backend
        self.igemm_solution = igemm_solution
        self.igemm_perfdb = igemm_perfdb
        self.igemm_find = igemm_find
        self.igemm_fp16_mode = igemm_fp16_mode

    def extra_repr(self):
        return super().extra_repr() + f", igemm_arch={self.igemm_arch}, igemm_backend={self.igemm_backend}"

    def _igemm_kw(self):
        return {"arch": self.igemm_arch, "backend": self.igemm_backend, "solution": self.igemm_solution,
                "perfdb": self.igemm_perfdb, "find": self.igemm_find, "fp16_mode": self.igemm_fp16_mode}

    def _conv_forward(self, input, weight, bias):
        if input.dim() == 3:  # unbatched (C, H, W), as nn.Conv2d accepts
            return self._conv_forward(input.unsqueeze(0), weight, bias).squeeze(0)
        padding = self.padding
        if self.padding_mode != "zeros":
            input = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            padding = (0, 0)
        elif padding == "valid":
            padding = (0, 0)
        elif padding == "same":
            padding, extra = _same_padding(self.dilation, self.kernel_size)
            if any(extra):
                input = F.pad(input, extra)
        return Conv2dFunction.apply(input, weight, bias, self.stride, padding, self.dilation, self.groups,
                                    self._igemm_kw())

    @classmethod
    def from_torch(cls, conv, **igemm_kw):
        """An igemm Conv2d with conv's configuration and a copy of its parameters."""
        m = cls(conv.in_channels, conv.out_channels, conv.kernel_size, stride=conv.stride, padding=conv.padding,
                dilation=conv.dilation, groups=conv.groups, bias=conv.bias is not None,
                padding_mode=conv.padding_mode, device=conv.weight.device, dtype=conv.weight.dtype, **igemm_kw)
        m.load_state_dict(conv.state_dict())
        return m


def convert(module, **igemm_kw):
    """module with every torch.nn.Conv2d (itself included) replaced by an
    igemm Conv2d holding the same parameters; igemm_kw: igemm_arch,
    igemm_backend, igemm_solution, igemm_perfdb, igemm_find, igemm_fp16_mode."""
    if isinstance(module, torch.nn.Conv2d) and not isinstance(module, Conv2d):
        return Conv2d.from_torch(module, **igemm_kw)
    for name, child in module.named_children():
        setattr(module, name, convert(child, **igemm_kw))
    return module
