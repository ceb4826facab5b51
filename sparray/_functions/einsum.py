"""``einsum``: NumPy's Einstein summation on sparse and dense operands, exact for any fill value.

An extension beyond the array API standard (NumPy, CuPy and pydata/sparse have it; xarray's
``DataArray.dot`` and ``.weighted(w).sum()`` call ``xp.einsum``). The subscripts are NumPy's:
explicit (``"ij,jk->ik"``) and implicit (``"ij,jk"``: the labels that occur once, in ASCII
order), ``...`` for broadcast dims, a label repeated within one operand for its diagonal
(``"ii->i"``, ``"ii"`` the trace), any number of operands, and the interleaved form
``einsum(A, [0, 1], B, [1, 2], [0, 2])`` (0-25 name ``A``-``Z``, 26-51 ``a``-``z``). A dim of size
1 broadcasts against the same label's size elsewhere, as in NumPy.

How it is computed, by the sparray operations that are already exact with fills:

1. each operand: the diagonal of every repeated label (the entries whose coordinates agree along
   those dims; the fill is unchanged), then a ``sum`` over the labels no other operand and not
   the output holds;
2. left to right, the running result and the next operand: a label both hold and a later operand
   or the output needs is a batch dim; one nobody needs later is contracted. With contracted
   labels, one ``matmul`` of ``(batch, free_1, contracted)`` by ``(batch, contracted, free_2)``
   (free and contracted labels merged by ``reshape``): ``matmul`` adds the fill's terms, as
   ``tensordot`` does. Without, a broadcasting ``multiply`` (sparse stays sparse, the fills
   multiply);
3. ``permute_dims`` to the output's order.

What comes back follows those operations: sparse operands with zero fills give a sparse result
(products of sparse arrays with zero fills stay sparse, as in ``tensordot``); a contraction that
involves a non-zero fill, or a sparse by dense contraction, gives a dense array, as ``matmul``
does. A sparse result comes in the first sparse operand's layout where its shape allows it
(``match_layout``), else COO; a 0-d result is a dense 0-d array (``sparray.einsum`` called with
sparray arrays only gives dense-by-nature results as sparray arrays holding them: the namespace
rule, ``sparray._array.results``). With dense operands only, the namespace's own ``einsum``
answers (NumPy's for NumPy arrays; the same steps on dense arrays where it has none). ``dtype=`` casts the operands
first, as NumPy does; booleans are summed as integers and compared with 0 (NumPy's
``or`` of ``and``\\ s). ``optimize=`` is accepted and ignored: the order is left to right.

>>> import sparray, numpy as np
>>> A = sparray.asarray(np.array([[1.0, 0.0], [0.0, 2.0]]), fill_value=0.0, layout="csr")
>>> sparray.einsum("ij,jk->ik", A, A).to_dense().tolist()
[[1.0, 0.0], [0.0, 4.0]]
>>> float(sparray.einsum("ii", A))
3.0
>>> B = sparray.asarray(np.array([[1.5, 3.0], [1.5, 1.5]]), fill_value=1.5)
>>> sparray.einsum("ij,j->i", B, np.ones(2)).tolist()
[4.5, 3.0]
"""

from __future__ import annotations

import math

from .._array.base import SparseArray
from .._core import dtypes as _dtypes
from .._core.namespace import device_of, is_array, namespace_of

__all__ = ["einsum"]

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"  # the interleaved form's 0..51


# --- the subscripts ------------------------------------------------------------------------------------
def _from_sublists(args):
    """The interleaved form ``(op, sublist, op, sublist, ..., [output sublist])`` as a subscripts string
    and the operands."""
    operands, terms = list(args[0::2]), []
    for k, sub in enumerate(args[1::2]):
        terms.append(_sublist(sub, f"the sublist of operand {k}"))
    output = None
    if len(operands) > len(terms):  # an odd count: the last item is the output's sublist
        output = _sublist(operands.pop(), "the output sublist")
    text = ",".join(terms) + ("" if output is None else "->" + output)
    return text, operands


def _sublist(sub, what):
    try:
        items = list(sub)
    except TypeError:
        raise TypeError(f"einsum: {what} must be a list of ints in [0, 52) and Ellipsis; got {sub!r}") from None
    out = []
    for s in items:
        if s is Ellipsis:
            out.append("...")
        elif isinstance(s, bool) or not isinstance(s, int) and not hasattr(s, "__index__"):
            raise TypeError(f"einsum: {what} holds {s!r}; each subscript must be an int in [0, 52) or Ellipsis")
        else:
            i = int(s)
            if not 0 <= i < 52:
                raise ValueError(f"einsum: {what} holds {i}; a subscript must be in the range [0, 52)")
            out.append(_LETTERS[i])
    return "".join(out)


def _labels(term, where):
    """The labels of one term, ``"..."`` kept as one item; ValueError for any other character."""
    out, i = [], 0
    while i < len(term):
        c = term[i]
        if c == ".":
            if term[i : i + 3] != "...":
                raise ValueError(f"einsum: {where} hold a '.' that is not part of an ellipsis ('...')")
            if "..." in out:
                raise ValueError(f"einsum: {where} hold more than one ellipsis ('...')")
            out.append("...")
            i += 3
            continue
        if not (c.isascii() and c.isalpha()):
            raise ValueError(f"einsum: invalid subscript {c!r} in {where}; subscripts must be letters (a-z, A-Z)")
        out.append(c)
        i += 1
    return out


def parse_subscripts(subscripts, shapes):
    """``(input labels, output labels, sizes)`` of ``subscripts`` for operands of ``shapes``.

    Labels are letters; the dims an ellipsis stands for are the ints ``0 .. E-1`` (right-aligned
    across operands, ``E`` the most dims any ellipsis covers). ``sizes`` maps each label to its
    broadcast size. Every error is a ValueError naming the operand and the subscript.
    """
    text = subscripts.replace(" ", "")
    if text.count("->") > 1:
        raise ValueError(f"einsum: subscripts {subscripts!r} hold more than one '->'")
    lhs, arrow, rhs = text.partition("->")
    for c in "->":
        if c in lhs or c in rhs:
            raise ValueError(f"einsum: invalid subscript {c!r} in {subscripts!r}; '-' and '>' only come as '->'")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        few = "fewer" if len(shapes) < len(terms) else "more"
        raise ValueError(
            f"einsum: {few} operands ({len(shapes)}) than the subscripts {subscripts!r} name ({len(terms)})"
        )
    parsed, spans = [], []
    for k, (term, shape) in enumerate(zip(terms, shapes)):
        labels = _labels(term, f"the subscripts of operand {k} ({term!r})")
        named = len(labels) - ("..." in labels)
        if named > len(shape):
            raise ValueError(f"einsum: operand {k} has {len(shape)} dims but its subscripts {term!r} name {named}")
        if "..." not in labels and named < len(shape):
            raise ValueError(
                f"einsum: operand {k} has {len(shape)} dims but its subscripts {term!r} name only {named}, "
                "and no '...' covers the others"
            )
        parsed.append(labels)
        spans.append(len(shape) - named)
    ell = max(spans, default=0)
    inputs = []
    for labels, span in zip(parsed, spans):
        if "..." in labels:
            p = labels.index("...")
            labels = labels[:p] + list(range(ell - span, ell)) + labels[p + 1 :]
        inputs.append(labels)
    letters = [c for labels in inputs for c in labels if isinstance(c, str)]
    if arrow:
        out = _labels(rhs, f"the output subscripts ({rhs!r})")
        for c in out:
            if c != "..." and out.count(c) > 1:
                raise ValueError(f"einsum: the output subscripts {rhs!r} name {c!r} more than once")
            if c != "..." and c not in letters:
                raise ValueError(f"einsum: the output subscript {c!r} occurs in no operand's subscripts")
        if "..." in out:
            p = out.index("...")
            out = out[:p] + list(range(ell)) + out[p + 1 :]
        elif ell:
            raise ValueError(
                f"einsum: the operands' '...' stand for {ell} dims, but the output subscripts {rhs!r} have no '...' "
                "to hold them"
            )
    else:
        out = list(range(ell)) + sorted(c for c in set(letters) if letters.count(c) == 1)
    return inputs, out, _sizes(inputs, shapes)


def _sizes(inputs, shapes):
    sizes, where = {}, {}
    for k, (labels, shape) in enumerate(zip(inputs, shapes)):
        seen = {}
        for label, n in zip(labels, shape):
            name = "an ellipsis dim" if isinstance(label, int) else f"subscript {label!r}"
            if label in seen and seen[label] != n:
                raise ValueError(
                    f"einsum: operand {k} repeats {name} over dims of different sizes ({seen[label]} and {n}); "
                    "a diagonal needs equal sizes"
                )
            seen[label] = n
            old = sizes.get(label, 1)
            if n != 1 and old != 1 and n != old:
                raise ValueError(
                    f"einsum: {name} has size {old} in operand {where[label]} and {n} in operand {k}; "
                    "sizes must be equal (or 1, to broadcast)"
                )
            if n != 1 or label not in sizes:
                sizes[label] = n
                where[label] = k
    return sizes


def canonical_subscripts(inputs, output):
    """The subscripts string of parsed labels (ellipsis dims as letters no operand uses)."""
    used = {c for labels in inputs for c in labels if isinstance(c, str)}
    spare = iter(c for c in _LETTERS if c not in used)
    names = {}

    def name(label):
        if isinstance(label, str):
            return label
        if label not in names:
            names[label] = next(spare)
        return names[label]

    return ",".join("".join(map(name, labels)) for labels in inputs) + "->" + "".join(map(name, output))


# --- the operands --------------------------------------------------------------------------------------
def _namespace(operands):
    """The namespace shared by the array operands, on one device (TypeError / ValueError naming them)."""
    comps = [a._values if isinstance(a, SparseArray) else a for a in operands if isinstance(a, SparseArray) or is_array(a)]
    if not comps:
        return namespace_of()
    try:
        xp = namespace_of(*comps)
    except TypeError:
        kinds = sorted({f"{type(c).__module__}.{type(c).__name__}" for c in comps})
        raise TypeError(f"einsum: the operands must hold arrays of one namespace; got {', '.join(kinds)}") from None
    devices = [device_of(c) for c in comps]
    if any(d != devices[0] for d in devices):
        raise ValueError(f"einsum: the operands are on different devices ({', '.join(map(str, devices))}); move them with to_device")
    return xp


def _operand(xp, a, k):
    if isinstance(a, SparseArray) or is_array(a):
        return a
    if isinstance(a, (bool, int, float, complex)) or hasattr(a, "dtype"):
        return xp.asarray(a)
    raise TypeError(f"einsum: operand {k} must be an array (sparse or dense) or a scalar; got {type(a).__name__}")


def _cast(xp, x, dtype):
    if x.dtype == dtype:
        return x
    return x.astype(dtype) if isinstance(x, SparseArray) else xp.astype(x, dtype)


# --- the steps -----------------------------------------------------------------------------------------
def _permute(x, perm):
    from .manipulation import permute_dims

    perm = tuple(perm)
    return x if perm == tuple(range(len(perm))) else permute_dims(x, perm)


def _reshape(x, shape):
    from .manipulation import reshape

    shape = tuple(shape)
    return x if tuple(x.shape) == shape else reshape(x, shape)


def _sum(x, labels, drop, dtype):
    """``x`` summed over the dims whose labels are in ``drop``; returns (array, labels)."""
    from .reductions import sum as _sum_

    axes = tuple(d for d, label in enumerate(labels) if label in drop)
    if not axes:
        return x, labels
    return _sum_(x, axis=axes, dtype=dtype), [label for label in labels if label not in drop]


def _diagonals(xp, x, labels):
    """``x`` with one dim per label: the diagonal of every label it repeats (at its first place)."""
    while True:
        label = next((c for c in labels if labels.count(c) > 1), None)
        if label is None:
            return x, labels
        dims = [d for d, c in enumerate(labels) if c == label]
        x = _sparse_diagonal(x, dims) if isinstance(x, SparseArray) else _dense_diagonal(xp, x, dims)
        labels = [c for d, c in enumerate(labels) if d not in dims[1:]]


def _sparse_diagonal(x, dims):
    """The entries of ``x`` whose coordinates along ``dims`` agree, those dims merged into the first:
    a COO with ``x``'s fill (a diagonal of unspecified elements is unspecified)."""
    from .._array.coo import COO

    A = x if x.layout == "coo" else x.to_layout("coo")
    if max(dims) >= A.sparse_ndim:  # a dense dim takes part: make it sparse (its fill must not vary)
        try:
            A = A.to_layout("coo", dense_ndim=0)
        except ValueError:
            return _dense_diagonal(A._xp, A.to_dense(), dims)
    xp = A._xp
    idx = A._indices
    agree = idx[dims[0], :] == idx[dims[1], :]
    for d in dims[2:]:
        agree = xp.logical_and(agree, idx[dims[0], :] == idx[d, :])
    (keep,) = xp.nonzero(agree)
    rows = [d for d in range(A.sparse_ndim) if d not in dims[1:]]
    indices = xp.take(xp.take(idx, keep, axis=1), xp.asarray(rows, dtype=xp.int64), axis=0)
    values = xp.take(A._values, keep, axis=0)
    shape = tuple(n for d, n in enumerate(A.shape) if d not in dims[1:])
    # dropping coordinates equal to an earlier one keeps row-major order and uniqueness
    return COO._from_parts(xp, indices, values, shape, A._fill, coalesced=A._coalesced)


def _dense_diagonal(xp, x, dims):
    others = [d for d in range(x.ndim) if d not in dims]
    n, k = x.shape[dims[0]], len(dims)
    y = xp.reshape(xp.permute_dims(x, (*others, *dims)), (*(x.shape[d] for d in others), n**k))
    step = sum(n**j for j in range(k))
    y = xp.take(y, xp.arange(n, dtype=xp.int64) * step, axis=-1)
    perm = [len(others) if d == dims[0] else others.index(d) for d in range(x.ndim) if d not in dims[1:]]
    return xp.permute_dims(y, tuple(perm))


def _pair(a, la, b, lb, later, dtype):
    """The product of ``a`` (labels ``la``) and ``b`` (``lb``), summed over the labels both hold and
    ``later`` does not: returns (array, labels)."""
    from .._products.linalg import matmul
    from .elementwise import multiply

    shared = [c for c in la if c in lb]
    contract = [c for c in shared if c not in later]
    for c in list(contract):
        if a.shape[la.index(c)] != b.shape[lb.index(c)]:  # size 1 against n: sum_j a[0] b[j] = a[0] sum_j b[j]
            a, la = _sum(a, la, {c}, dtype)
            b, lb = _sum(b, lb, {c}, dtype)
            contract.remove(c)
            shared.remove(c)
    batch = [c for c in shared if c not in contract]
    f1 = [c for c in la if c not in shared]
    f2 = [c for c in lb if c not in shared]
    bshape_a = [a.shape[la.index(c)] for c in batch]
    bshape_b = [b.shape[lb.index(c)] for c in batch]
    s1 = [a.shape[la.index(c)] for c in f1]
    s2 = [b.shape[lb.index(c)] for c in f2]
    A = _permute(a, [la.index(c) for c in batch + f1 + contract])
    B = _permute(b, [lb.index(c) for c in batch + contract + f2])
    if not contract:  # an outer product along the free labels: broadcasting multiply
        A = _reshape(A, (*bshape_a, *s1, *(1,) * len(f2)))
        B = _reshape(B, (*bshape_b, *(1,) * len(f1), *s2))
        return multiply(A, B), batch + f1 + f2
    K = math.prod(a.shape[la.index(c)] for c in contract)
    A = _reshape(A, (*bshape_a, math.prod(s1), K))
    B = _reshape(B, (*bshape_b, K, math.prod(s2)))
    R = matmul(A, B)
    return _reshape(R, (*R.shape[: len(batch)], *s1, *s2)), batch + f1 + f2


# --- einsum ----------------------------------------------------------------------------------------------
def einsum(subscripts, /, *operands, dtype=None, optimize=False):
    """Einstein summation over sparse and dense operands (NumPy's ``einsum``), exact for any fill.

    ``subscripts`` as in NumPy (explicit ``"ij,jk->ik"``, implicit ``"ij,jk"``, ``...``, repeated
    labels for diagonals), or the interleaved form ``einsum(A, [0, 1], B, [1, 2], [0, 2])``.
    Operands: SparseArrays of any layout, dense arrays of their namespace, Python scalars.
    ``dtype`` casts the operands first; ``optimize`` is accepted and ignored (pairs are taken left
    to right). See the module docstring for how the result is computed and what comes back.

    >>> import sparray, numpy as np
    >>> A = sparray.asarray(np.array([[0.0, 2.0], [3.0, 0.0]]), fill_value=0.0)
    >>> sparray.einsum("ij->ji", A).to_dense().tolist()
    [[0.0, 3.0], [2.0, 0.0]]
    >>> sparray.einsum("ij,ij->i", A, A).to_dense().tolist()
    [4.0, 9.0]
    """
    if not isinstance(subscripts, str):
        if isinstance(subscripts, bytes):
            subscripts = subscripts.decode()
        else:
            subscripts, operands = _from_sublists((subscripts, *operands))
    if not operands:
        raise ValueError("einsum: needs at least one operand after the subscripts")
    xp = _namespace(operands)
    arrays = [_operand(xp, a, k) for k, a in enumerate(operands)]
    inputs, output, _ = parse_subscripts(subscripts, [tuple(a.shape) for a in arrays])
    dt = _dtypes.result_type(*arrays) if dtype is None else _dtypes.resolve_dtype(xp, dtype)
    arrays = [_cast(xp, a, dt) for a in arrays]
    sparse = [a for a in arrays if isinstance(a, SparseArray)]
    if not sparse and hasattr(xp, "einsum"):
        return xp.einsum(canonical_subscripts(inputs, output), *arrays)
    logical = dt == xp.bool
    work = xp.int64 if logical else dt
    if logical:  # or of ands: count the true products, then compare with 0
        arrays = [_cast(xp, a, work) for a in arrays]
    R = _contract(xp, arrays, inputs, output, work)
    if logical:
        from .elementwise import not_equal

        R = not_equal(R, 0) if isinstance(R, SparseArray) else R != 0
    if isinstance(R, SparseArray):
        if R.ndim == 0:
            return xp.reshape(R.to_dense(), ())
        from .._layout.conversion import match_layout

        return match_layout(R, sparse[0])
    return R


def _contract(xp, arrays, inputs, output, dtype):
    """The einsum of parsed operands: diagonals, early sums, pairs left to right, the output's order."""
    terms = [_diagonals(xp, a, list(labels)) for a, labels in zip(arrays, inputs)]
    out = set(output)

    def held(start):  # the labels the output and the operands from ``start`` on hold
        return out.union(*(set(lb) for _, lb in terms[start:]))

    cur, lc = terms[0]
    cur, lc = _sum(cur, lc, set(lc) - held(1), dtype)
    for k in range(1, len(terms)):
        nxt, ln = terms[k]
        later = held(k + 1)
        nxt, ln = _sum(nxt, ln, set(ln) - set(lc) - later, dtype)
        cur, lc = _sum(cur, lc, set(lc) - set(ln) - later, dtype)
        cur, lc = _pair(cur, lc, nxt, ln, later, dtype)
    return _permute(cur, [lc.index(c) for c in output])
