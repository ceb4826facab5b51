"""Matrix Market IO: ``mmread``, ``mmwrite`` and ``mminfo``.

``import sparray`` imports this package (it is light); the numba parser is loaded only when
``engine="sparray"`` reads a file (fast_matrix_market, when installed, is the default engine).
See docs/io.md.

>>> import io, numpy as np, sparray, sparray.io
>>> f = io.BytesIO()
>>> sparray.io.mmwrite(f, sparray.asarray(np.array([[0.0, 1.5], [2.0, 0.0]])))
>>> _ = f.seek(0)
>>> sparray.io.mmread(f, layout="csr").to_dense()
array([[0. , 1.5],
       [2. , 0. ]])
"""

from ._mm_read import mminfo, mmread
from ._mm_write import mmwrite

__all__ = ["mminfo", "mmread", "mmwrite"]
