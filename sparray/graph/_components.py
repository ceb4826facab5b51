"""Connected components: weak (a search, then FastSV) and strong (a search both ways, then
colouring), with scipy.sparse.csgraph's return.

- **Weak** (edges taken both ways): the component of the vertex of highest degree by one search
  (``bfs``'s, push/pull), as Afforest (GAP's CC) skips the largest component; the other
  vertices by FastSV (Zhang, Azad and Hu, SIAM PP 2020; LAGraph's ``LG_CC_FastSV6``), a
  Shiloach-Vishkin variant, its products restricted to their rows by a mask. Every vertex keeps
  a parent ``f`` (at first itself) and a grandparent ``gf = f[f]``; an iteration finds each
  vertex's least neighbouring grandparent (one ``min_second`` product: ``mngf = A min.second
  gf``), hooks parents to it (stochastic hooking ``f[f[u]] min= mngf[u]``: a ``min_first`` push
  product through the matrix holding one entry ``(u, f[u])`` per vertex, which is a scatter-min
  without atomics), hooks the vertex itself (``f = min(f, mngf)``), shortcuts
  (``f = min(f, gf)``) and recomputes ``gf``; it stops when ``gf`` no longer changes, every
  tree a star rooted at its least vertex. Its number of iterations grows like log(diameter),
  not like the diameter.
- **Strong**: after Multistep (Slota, Rajamanickam and Madduri, IPDPS 2014): vertices without an
  in-edge or an out-edge trimmed first (each its own component), then the component of
  a hub by a forward search from it and a backward one inside what the forward one reached (the
  BFS of ``bfs``, push/pull), then (on the CPU, in the subgraph the remaining vertices induce
  when they are under a quarter of them) the colouring algorithm (Orzan 2004) in rounds over the vertices still
  unassigned. A round first trims the vertices with no in-edge or no out-edge among them (each
  its own component), then spreads the least vertex number forward along edges (``min``
  products until nothing changes: ``colour[v]`` is the least vertex that reaches v), then from
  every root (``colour[r] == r``) walks edges backwards inside its colour (``max`` products: the
  out-neighbours' largest colour equals v's exactly when one of them has v's colour, as colours
  only fall along an edge): what a root reaches back is its component. Each step pulls
  (``min_second``/``max_second`` by rows of the transpose, the changed vertices a bitmap) or,
  when fewer than n/18 vertices changed, pushes along their edges only
  (``min_first``/``max_first``), as BFS switches. A round settles at least the component of
  the least remaining vertex, and usually most of the graph; a long chain of components takes a
  round each.

Labels number the components 0, 1, ... in the order of their least vertex (vertex 0's component
is 0), so the weak labels are scipy's.

>>> import numpy as np, sparray
>>> A = sparray.asarray(np.array([[0, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]]), layout="csr")
>>> n, labels = connected_components(A)
>>> n, labels.tolist()
(2, [0, 0, 1, 1])
>>> n, labels = connected_components(A, connection="strong")
>>> n, labels.tolist()
(3, [0, 1, 2, 2])
"""

from __future__ import annotations

from ._adjacency import compact, graph_of, new_info, read_host
from ._bfs import BETA, symmetrized
from ._frontier import pull, push

__all__ = ["connected_components"]

#: strong components: once fewer than n / SUBGRAPH_FROM vertices are left after the hub's
#: component (on the CPU), the colouring runs on the subgraph they induce
SUBGRAPH_FROM = 4


def connected_components(A, *, connection="weak", info=None):
    """The connected components of the graph A (``A[i, j]``: the edge i -> j).

    Parameters
    ----------
    A : the adjacency matrix, any layout and fill (``sparray.graph.as_graph`` says which elements
        are edges); weights are not read.
    connection : "weak" (edges both ways: the components of an undirected graph) or "strong"
        (vertices that reach each other).
    info : a dict to fill: ``iterations`` (products run: one read each), ``frontier_sizes``
        (vertices that changed in each), ``rounds`` (strong: colouring rounds after the hub's
        component; 0 when that was every vertex).

    Returns ``(n_components, labels)`` as ``scipy.sparse.csgraph.connected_components`` does:
    labels int64 on A's device, shape (n,), components numbered by their least vertex.
    """
    if connection not in ("weak", "strong"):
        raise ValueError(f"sparray.graph.connected_components: connection must be 'weak' or 'strong'; got "
                         f"{connection!r}")
    G = graph_of(A, "connected_components")
    info = new_info(info, "connected_components", iterations=0, frontier_sizes=[])
    xp, n = G.xp, G.n
    if n == 0:
        return 0, xp.zeros((0,), dtype=xp.int64, device=G.device)
    root = _fastsv(symmetrized(G, "any"), info) if connection == "weak" else _colouring(G, info)
    is_root = root == xp.arange(n, dtype=xp.int64, device=G.device)
    rank = xp.cumulative_sum(xp.astype(is_root, xp.int64)) - 1
    (count,) = read_host(xp, rank[-1] + 1)
    return int(count), xp.take(rank, root)


def _fastsv(S, info):
    """Each vertex's least vertex of its component (S symmetric): the giant component by one
    search from a hub, the rest by FastSV over the rows of the vertices it left."""
    xp, n, dev = S.xp, S.n, S.device
    i64 = xp.int64
    ids = xp.arange(n, dtype=i64, device=dev)
    f, rest = _giant(S, ids, info)
    if rest is None:
        return f
    gf = f
    parts = (S.crow, S.col, None)
    star = xp.arange(n + 1, dtype=i64, device=dev)  # the pointers of the matrix with one entry (u, f[u]) a row
    while True:
        y, present = pull(parts, n, gf, None, "min_second", mask=rest, xp=xp)
        mngf = xp.where(present, xp.minimum(y, gf), gf)
        hook, hooked = _push_dense(xp, star, f, n, mngf)  # hook[p] = min of mngf[u] over u with f[u] = p
        f = xp.minimum(f, xp.where(hooked, hook, f))
        f = xp.minimum(xp.minimum(f, mngf), gf)
        new_gf = xp.take(f, f)
        (changed,) = read_host(xp, xp.sum(xp.astype(new_gf != gf, i64)))
        info["iterations"] += 1
        info["frontier_sizes"].append(int(changed))
        gf = new_gf
        if not changed:
            return f


def _giant(S, ids, info):
    """``(f, rest)``: the component of the vertex of highest degree found by one search (as
    Afforest skips the largest component, Sutton et al. IPDPS 2018), its vertices' f the least of
    them and every other vertex's f itself; ``rest`` the bitmap of those others, None when there
    are none. A high-diameter graph's component then costs one search's O(edges), not
    log(diameter) iterations of O(edges) each."""
    from ._bfs import _one

    xp = S.xp
    hub = xp.argmax(S.out_degree())
    (hub_host,) = read_host(xp, hub)
    info["iterations"] += 1
    walk = {"frontier_sizes": [], "directions": [], "iterations": 0}
    levels, _ = _one(S, [int(hub_host)], False, walk)
    info["iterations"] += walk["iterations"]
    info["frontier_sizes"].extend(walk["frontier_sizes"])
    comp = levels >= 0
    least = xp.min(xp.where(comp, ids, S.n))
    rest = ~comp
    (left,) = read_host(xp, xp.sum(xp.astype(rest, xp.int64)))
    info["iterations"] += 1
    return xp.where(comp, least, ids), (rest if left else None)


def _push_dense(xp, crow, col, n, x):
    """``(y, present)`` of ``y = x min.first C``, C the n x n matrix of CSR parts (crow, col)."""
    from .._engine import dispatch as _dispatch

    return _dispatch.call("semiring_vxm", "csr", xp, crow, col, None, n, x, None, "min_first", None, None, False, True,
                          None, None, work=2 * n)


def _colouring(G, info):
    """Each vertex's least vertex of its strong component, by rounds of trimming and colouring."""
    xp, n, dev = G.xp, G.n, G.device
    i64 = xp.int64
    ids = xp.arange(n, dtype=i64, device=dev)
    out_parts = (G.crow, G.col, None)
    in_parts = G.transposed()
    in_parts = (in_parts[0], in_parts[1], None)
    Gt = G.kept("transpose graph", lambda: G.with_parts(*G.transposed()))
    remaining = xp.ones((n,), dtype=xp.bool, device=dev)
    root = xp.full((n,), -1, dtype=i64, device=dev)
    left = n
    info["rounds"] = 0
    sizes = info["frontier_sizes"]
    # trim once from the degrees (kept): a vertex without an in-edge or an out-edge is a component
    # of its own (on R-MAT a large share), and the searches then skip it
    alone = (G.out_degree() == 0) | (Gt.out_degree() == 0)
    root = xp.where(alone, ids, root)
    remaining = ~alone
    # the giant component first: forward and backward searches from a hub
    root, remaining, left = _pivot(G, Gt, ids, root, remaining, info)
    if left and G.on_host() and left * SUBGRAPH_FROM < n:
        # few vertices left (the small components around a giant one): the rounds run on the graph
        # they induce, so that no step costs O(n) for them; its vertices keep their order, so its
        # least vertices are theirs
        idx, sub = _induced(G, remaining)
        sub_root = _colouring(sub, info)
        root[idx] = idx[sub_root]
        return root
    while left:
        info["rounds"] += 1
        # trim: no in-edge or no out-edge from the remaining vertices -> a component of its own
        _, has_in = pull(in_parts, n, None, remaining, "any_secondi", mask=remaining, xp=xp)
        _, has_out = pull(out_parts, n, None, remaining, "any_secondi", mask=remaining, xp=xp)
        alone = remaining & ~(has_in & has_out)
        root = xp.where(alone, ids, root)
        remaining = remaining & ~alone
        # forward: colour[v] = the least remaining vertex that reaches v (min over in-neighbours)
        colour = xp.where(remaining, ids, n)
        changed, count = remaining, None
        while count is None or count:
            y, present = _spread(G, in_parts, colour, changed, count, "min", remaining)
            changed = present & (y < colour)
            colour = xp.where(changed, y, colour)
            (count,) = _counts(xp, changed)
            _step(info, sizes, count)
        # backward inside each colour from its root: what reaches the root back is its component
        found = remaining & (colour == ids)
        changed, count = found, None
        while count is None or count:
            y, present = _spread(Gt, out_parts, colour, changed, count, "max", remaining & ~found)
            changed = present & (y == colour)
            found = found | changed
            count, left = _counts(xp, changed, remaining & ~found)  # one read: the step's and the round's ends
            _step(info, sizes, count)
        root = xp.where(found, colour, root)
        remaining = remaining & ~found
    return root


def _induced(G, keep):
    """(the kept vertices, increasing; the Graph they induce, numbered in that order): host data."""
    import numpy as np

    from ._adjacency import Graph
    from ._parts import csr_result

    from .._engine import dispatch as _dispatch

    idx = np.flatnonzero(keep)
    k = int(idx.shape[0])
    # the kept rows (the registry's row take), then the entries whose column is kept, renumbered
    offsets, cols, values = _dispatch.call("take_major", "csr", G.xp, G.crow, G.col, G.values, idx,
                                           work=G.nse + G.n)
    inside = keep[cols]
    new_id = np.full(G.n, -1, np.int64)
    new_id[idx] = np.arange(k, dtype=np.int64)
    rows = np.repeat(np.arange(k, dtype=np.int64), np.diff(offsets))[inside]
    sub_crow = np.zeros(k + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=k), out=sub_crow[1:])
    idt = G.crow.dtype
    sub = csr_result(G.xp, sub_crow.astype(idt), new_id[cols[inside]].astype(idt), values[inside], (k, k))
    return idx, Graph(sub)


def _pivot(G, Gt, ids, root, remaining, info):
    """Multistep's first phase (Slota et al.): the component of the remaining vertex with the
    most in- times out-edges is what both a forward and a backward search from it reach (two
    searches of O(edges) work, where colouring a high-diameter component costs O(n) a step).
    Returns the new (root, remaining, vertices left)."""
    from ._bfs import _one

    xp = G.xp
    hub = xp.argmax(xp.where(remaining, G.out_degree() * Gt.out_degree(), -1))
    hub_host, alive = (int(v) for v in read_host(xp, hub, xp.sum(xp.astype(remaining, xp.int64))))
    info["iterations"] += 1
    if not alive:
        return root, remaining, 0
    # forward from the hub, then backward inside what the forward search reached: a vertex of the
    # hub's component reaches the hub along vertices of the component only, so the backward search
    # restricted to the forward set finds the component exactly, and explores no more than it
    allowed = remaining
    for graph in (G, Gt):
        walk = {"frontier_sizes": [], "directions": [], "iterations": 0}
        levels, _ = _one(graph, [hub_host], False, walk, blocked=~allowed)
        info["iterations"] += walk["iterations"]
        info["frontier_sizes"].extend(walk["frontier_sizes"])
        allowed = levels >= 0
    comp = allowed
    least = xp.min(xp.where(comp, ids, G.n))  # its label: the least vertex in it
    root = xp.where(comp, least, root)
    remaining = remaining & ~comp
    (left,) = read_host(xp, xp.sum(xp.astype(remaining, xp.int64)))
    info["iterations"] += 1
    return root, remaining, int(left)


def _spread(G, pull_parts, colour, changed, count, monoid, mask):
    """``(y, present)``, y(v) = the monoid over the changed u with an edge u -> v in G of colour[u]:
    pushed along the changed vertices' edges when they are few (their number ``count`` read), else
    pulled by the rows of ``pull_parts`` (G's transpose) with the changed vertices as a bitmap."""
    xp, n = G.xp, G.n
    if count is not None and count * BETA < n:
        idx = compact(xp, changed, count, G.on_host())
        return push(G, xp.take(colour, idx), idx, f"{monoid}_first", mask=mask)
    return pull(pull_parts, n, colour, changed, f"{monoid}_second", mask=mask, xp=xp)


def _counts(xp, *bitmaps):
    return tuple(int(c) for c in read_host(xp, *(xp.sum(xp.astype(b, xp.int64)) for b in bitmaps)))


def _step(info, sizes, count):
    info["iterations"] += 1
    sizes.append(int(count))
