"""Random sparse test matrices that cost their entries, not their shape.

``scipy.sparse.random`` draws the positions without replacement from all ``n * m`` of them, which
costs memory and time in proportion to ``n * m`` (20 s for 20000 x 21000 at 10 entries a row);
:func:`random_scipy` draws about ``density * n * m`` positions with replacement and keeps the
distinct ones (a few percent fewer at the densities tests use), in O(entries).

>>> S = random_scipy(20000, 21000, 10 / 21000, seed=4, format="csr")
>>> S.format, S.shape, 190_000 < S.nnz <= 200_000, S.has_sorted_indices
('csr', (20000, 21000), True, True)
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def random_scipy(n, m, density, *, seed, format="coo"):
    """A scipy sparse matrix of shape (n, m) with about ``density * n * m`` distinct positions
    (sorted, no duplicates) holding standard normal values, from ``seed``."""
    rng = np.random.default_rng(seed)
    k = int(round(density * n * m))
    keys = np.unique(rng.integers(0, n * m, k, dtype=np.int64)) if n * m else np.zeros(0, np.int64)
    S = sp.coo_matrix((rng.standard_normal(keys.size), (keys // m, keys % m)), shape=(n, m))
    return S.asformat(format)
