"""``fftfreq`` and ``rfftfreq``: the sample frequencies, dense arrays (they have no array input).

The namespace is the one ``device`` names (None or "cpu": NumPy, "cuda" or a CuPy device: CuPy,
as for sparray's creation functions); ``dtype`` defaults to the default real floating dtype.

>>> import sparray
>>> sparray.fft.fftfreq(4, d=0.5).tolist()
[0.0, 0.5, -1.0, -0.5]
"""

from __future__ import annotations

from .._dtypes import resolve_dtype
from .._namespace import namespace_for_device

__all__ = ["fftfreq", "rfftfreq"]


def _namespace_and_dtype(device, dtype):
    xp = namespace_for_device(device)
    return xp, resolve_dtype(xp, dtype)


def fftfreq(n, /, *, d=1.0, dtype=None, device=None):
    """Sample frequencies of ``fft`` for a window of length ``n`` and sample spacing ``d``: shape ``(n,)``."""
    xp, dt = _namespace_and_dtype(device, dtype)
    return xp.fft.fftfreq(n, d=d, dtype=dt)


def rfftfreq(n, /, *, d=1.0, dtype=None, device=None):
    """Sample frequencies of ``rfft`` for a window of length ``n`` and sample spacing ``d``: shape ``(n // 2 + 1,)``."""
    xp, dt = _namespace_and_dtype(device, dtype)
    return xp.fft.rfftfreq(n, d=d, dtype=dt)
