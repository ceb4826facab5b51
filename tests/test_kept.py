"""KeptPerArray (sparray/kernels/_kept.py): facts kept per live array object, dropped with it."""

import doctest
import gc

import numpy as np

from sparray.kernels import _kept
from sparray.kernels._kept import KeptPerArray


def test_doctest():
    assert doctest.testmod(_kept).failed == 0


def test_a_fact_belongs_to_the_object_not_to_equal_arrays_and_goes_with_it():
    kept = KeptPerArray()
    a, b = np.arange(3), np.arange(3)
    kept.put(a, True)
    assert kept.get(a) is True and kept.get(b) is None and kept.get(b, "no") == "no"
    key = id(a)
    del a
    gc.collect()
    assert key not in kept._facts


def test_objects_without_weak_references_keep_nothing():
    kept = KeptPerArray()
    kept.put(7, "seven")  # an int takes no weak reference: nothing kept, no error
    assert kept.get(7) is None and not kept._facts
