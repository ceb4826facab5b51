"""The array API's ``fft`` extension for sparse arrays (``xp.fft`` with ``xp = sparray``).

- ``fft``, ``ifft``, ``fftn``, ``ifftn``, ``rfft``, ``irfft``, ``rfftn``, ``irfftn``, ``hfft``,
  ``ihfft``: the transform of a sparse array is dense in general, so these turn a sparse operand
  dense (the fill in every unspecified position: exact for any fill) and call the namespace's own
  fft (``_transforms.py``); the result, dense by nature, comes back as a sparray array holding
  the dense values (``sparray._array.results``: sparray in, sparray out).
- ``fftshift``, ``ifftshift``: rolls, so sparse input stays sparse (``_shift.py``).
- ``fftfreq``, ``rfftfreq``: sparray arrays, components of the namespace ``device`` names (``_frequencies.py``).

Importing it imports nothing beyond sparray itself. docs/linalg.md has a section on it.

>>> import sparray, numpy as np
>>> x = sparray.asarray(np.array([[0.0, 2.0], [0.0, 0.0]]), layout="csr")
>>> sparray.real(sparray.fft.fftn(x)).to_dense().tolist()
[[2.0, -2.0], [2.0, -2.0]]
"""

from ._frequencies import fftfreq, rfftfreq
from ._shift import fftshift, ifftshift
from ._transforms import fft, fftn, hfft, ifft, ifftn, ihfft, irfft, irfftn, rfft, rfftn

from .._array.results import sparray_results as _sparray_results

# the namespace rule (sparray._array.results): a transform of a sparray array is a sparray array
fft, fftn, hfft, ifft, ifftn, ihfft, irfft, irfftn, rfft, rfftn = (
    _sparray_results(f) for f in (fft, fftn, hfft, ifft, ifftn, ihfft, irfft, irfftn, rfft, rfftn)
)

STANDARD_NAMES = (
    "fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft", "fftfreq", "rfftfreq",
    "fftshift", "ifftshift",
)  # fmt: skip
"""The functions of the 2024.12 fft extension (all defined here)."""

__all__ = list(STANDARD_NAMES)
