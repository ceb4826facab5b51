"""The array API's sparse-interchange extension: ``sparray.sparse.from_binsparse`` (experimental).

Array-API code finds it as ``xp.sparse`` (``hasattr(xp, "sparse")``), as the proposed extension says.

>>> import sparray
>>> A = sparray.eye(3, layout="csr")
>>> sparray.sparse.from_binsparse(A).nse
3
"""

from ._layout.binsparse import from_binsparse

__all__ = ["from_binsparse"]
