"""Generic (pure array-API) pattern merge of k sorted key sets, the reference for the numba kernel.

- ``merge_pattern(keys_concat, offsets, mode) -> (out_keys, positions)``: operand ``i`` holds the
  strictly increasing keys ``keys_concat[offsets[i]:offsets[i+1]]``; ``mode`` is "union",
  "intersection" or "left" (operand 0's keys). ``positions[i, j]`` is the index in operand ``i``
  of ``out_keys[j]``, or -1.
- ``gather_with_fill(values, positions, fill) -> out``: ``values[positions]`` with ``fill`` where
  the position is -1 (``values`` (nse, m), ``fill`` (m,)).

All k operands are merged together (one sort of the concatenated keys), never pairwise.
"""

from __future__ import annotations

from .dispatch import register

__all__ = ["merge_pattern_generic", "gather_with_fill_generic", "MODES"]

MODES = ("union", "intersection", "left")


@register("merge_pattern", "coo", "generic")
def merge_pattern_generic(xp, keys_concat, offsets, mode):
    if mode not in MODES:
        raise ValueError(f"merge_pattern: mode must be one of {MODES}; got {mode!r}")
    bounds = [int(o) for o in offsets]
    parts = [keys_concat[bounds[i] : bounds[i + 1]] for i in range(len(bounds) - 1)]
    if mode == "left":
        out = parts[0]
    else:
        allk = xp.sort(keys_concat)
        n = allk.shape[0]
        # (slicing an empty array with [1:] is an error in some namespaces: array_api_strict)
        out = allk[xp.concat([xp.ones((1,), dtype=xp.bool), allk[1:] != allk[:-1]])] if n else allk
    positions = []
    for part in parts:
        n = part.shape[0]
        if n == 0:
            positions.append(xp.full((out.shape[0],), -1, dtype=xp.int64))
            continue
        pos = xp.astype(xp.searchsorted(part, out), xp.int64)
        clipped = xp.where(pos < n, pos, xp.full_like(pos, n - 1))
        found = (pos < n) & (xp.take(part, clipped) == out)
        positions.append(xp.where(found, clipped, xp.full_like(clipped, -1)))
    if mode == "intersection" and positions:
        keep = positions[0] >= 0
        for p in positions[1:]:
            keep = keep & (p >= 0)
        out = out[keep]
        positions = [p[keep] for p in positions]
    return out, xp.stack(positions, axis=0) if positions else xp.zeros((0, out.shape[0]), dtype=xp.int64)


@register("gather_with_fill", "coo", "generic")
def gather_with_fill_generic(xp, values, positions, fill):
    n = positions.shape[0]
    nse, m = values.shape
    fill_row = xp.reshape(xp.astype(fill, values.dtype), (1, m))
    if nse == 0:
        return xp.asarray(xp.broadcast_to(fill_row, (n, m)), copy=True)
    clipped = xp.where(positions >= 0, positions, xp.zeros_like(positions))
    gathered = xp.take(values, clipped, axis=0)
    return xp.where(xp.reshape(positions >= 0, (n, 1)), gathered, fill_row)
