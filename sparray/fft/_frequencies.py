"""``fftfreq`` and ``rfftfreq``: the sample frequencies, as sparray arrays holding the dense
frequencies (``holding_dense``: no sparse dims, fill 0), like every creation function of the
namespace (``sparray._array.results``: array-API code that only uses ``xp`` never meets a second
namespace).

The components' namespace is the one ``device`` names (None or "cpu": NumPy, "cuda" or a CuPy
device: CuPy, as for sparray's creation functions); ``dtype`` defaults to the default real floating dtype.

>>> import sparray
>>> sparray.fft.fftfreq(4, d=0.5).to_dense().tolist()
[0.0, 0.5, -1.0, -0.5]
"""

from __future__ import annotations

from .._array.results import holding_dense
from .._core.dtypes import resolve_dtype
from .._core.namespace import namespace_for_device

__all__ = ["fftfreq", "rfftfreq"]


def _namespace_and_dtype(device, dtype):
    xp = namespace_for_device(device)
    return xp, resolve_dtype(xp, dtype)


def fftfreq(n, /, *, d=1.0, dtype=None, device=None):
    """Sample frequencies of ``fft`` for a window of length ``n`` and sample spacing ``d``: shape ``(n,)``."""
    xp, dt = _namespace_and_dtype(device, dtype)
    return holding_dense(xp.fft.fftfreq(n, d=d, dtype=dt))


def rfftfreq(n, /, *, d=1.0, dtype=None, device=None):
    """Sample frequencies of ``rfft`` for a window of length ``n`` and sample spacing ``d``: shape ``(n // 2 + 1,)``."""
    xp, dt = _namespace_and_dtype(device, dtype)
    return holding_dense(xp.fft.rfftfreq(n, d=d, dtype=dt))
