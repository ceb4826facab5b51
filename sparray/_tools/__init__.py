"""``python -m sparray`` commands: ``info`` (versions, devices, cache) and ``warmup`` (compile the kernels ahead)."""

from .._core.lazy import submodule_getattr

__getattr__ = submodule_getattr(__name__)  # sparray.<folder>.<module> loads on first use
