"""The registry's entries for the graph kernels of ``semiring.py``: the same kernels with every
argument positional, as ``_engine/dispatch.call`` passes them (the contract is written in
``_engine/graph_generic.py``, whose generic references take the same arguments after ``xp``).

>>> import numpy as np
>>> y, p = semiring_mxv(np.array([0, 1, 1]), np.array([1]), np.array([2.0]), np.array([0.0, 3.0]), None,
...                     "plus_times", None, None, False, True, None, None)
>>> y.tolist(), p.tolist()
([6.0, 0.0], [True, False])
"""

from __future__ import annotations

from . import semiring as _k

__all__ = ["semiring_mxv", "semiring_vxm", "semiring_mxm", "semiring_mxm_dot", "graph_reduce", "graph_select", "graph_apply_index"]


def semiring_mxv(crow, col, values, x, x_present, semiring, mask, mask_values, complement, structural, ncols, dtype):
    return _k.mxv(crow, col, values, x, x_present, semiring, mask, mask_values, complement, structural,
                  ncols=ncols, dtype=dtype)


def semiring_vxm(crow, col, values, ncols, x, x_present, semiring, mask, mask_values, complement, structural, x_indices,
                 dtype):
    return _k.vxm(crow, col, values, ncols, x, x_present, semiring, mask, mask_values, complement, structural,
                  x_indices=x_indices, dtype=dtype)


def semiring_mxm(a_crow, a_col, a_values, b_crow, b_col, b_values, ncols, semiring, mask, complement, structural, dtype):
    return _k.mxm(a_crow, a_col, a_values, b_crow, b_col, b_values, ncols, semiring, mask, complement, structural,
                  dtype=dtype)


def semiring_mxm_dot(a_crow, a_col, a_values, bt_crow, bt_col, bt_values, inner, ncols, semiring, mask, structural,
                     dtype):
    return _k.mxm(a_crow, a_col, a_values, bt_crow, bt_col, bt_values, ncols, semiring, mask, False, structural,
                  b_transposed=True, a_ncols=inner, dtype=dtype)


def graph_reduce(crow, col, values, monoid, axis, ncols, dtype):
    return _k.reduce(crow, col, values, monoid, axis, ncols, dtype=dtype)


def graph_select(crow, col, values, rule, thunk):
    return _k.select(crow, col, values, rule, thunk)


def graph_apply_index(crow, col, values, op, thunk, dtype):
    return _k.apply_index(crow, col, values, op, thunk, dtype=dtype)
