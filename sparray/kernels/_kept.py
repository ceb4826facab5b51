"""Facts about array objects, kept for as long as each array lives.

What an array has proven once (its pointers' longest row, whether a fill is zero, whether values
are finite) is kept per array object, keyed by identity, and forgotten when the array is collected
(a weak reference's callback). Components of a sparse array are never written in place behind its
back (``sparray._core.validation``), so a fact about one stays true while it lives. An array type
without weak references keeps nothing (the fact is worked out every time).

>>> import numpy as np
>>> longest = KeptPerArray()
>>> a = np.array([0, 2, 5])
>>> longest.put(a, 3); longest.get(a), longest.get(np.array([0]))
(3, None)
"""

from __future__ import annotations

import weakref

__all__ = ["KeptPerArray"]


class KeptPerArray:
    """A map from live array objects (by identity) to a fact about each."""

    def __init__(self):
        self._facts: dict[int, tuple[weakref.ref, object]] = {}

    def get(self, a, default=None):
        """The fact kept for ``a`` itself, else ``default``."""
        hit = self._facts.get(id(a))
        return hit[1] if hit is not None and hit[0]() is a else default

    def put(self, a, fact) -> None:
        """Keep ``fact`` for ``a`` while it lives (nothing when ``a`` takes no weak reference)."""
        key, facts = id(a), self._facts
        try:
            ref = weakref.ref(a, lambda _, key=key: facts.pop(key, None))
        except TypeError:
            return
        facts[key] = (ref, fact)
