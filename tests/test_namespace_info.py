"""The inspection API (``__array_namespace_info__``), ``__array_namespace__(api_version=)``,
``finfo``/``iinfo`` with Python values, and ``__index__``."""

import operator

import numpy as np
import pytest

import sparray
from sparray._functions.namespace_info import SUPPORTED_API_VERSIONS


def test_capabilities_are_honest():
    caps = sparray.__array_namespace_info__().capabilities()
    assert caps["boolean indexing"] is True
    assert caps["max dimensions"] == 64
    data_dependent = ("nonzero", "unique_all", "unique_counts", "unique_inverse", "unique_values")
    assert caps["data-dependent shapes"] is all(hasattr(sparray, n) for n in data_dependent)


def test_devices_and_default_device():
    info = sparray.__array_namespace_info__()
    devices = info.devices()
    assert isinstance(devices, list) and devices[0] == "cpu"
    assert info.default_device() in devices
    for device in devices:  # each one creates arrays
        assert sparray.zeros((2,), device=device).shape == (2,)


def test_dtypes_and_kinds():
    info = sparray.__array_namespace_info__()
    every = info.dtypes()
    assert list(every) == ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                           "float32", "float64", "complex64", "complex128"]  # fmt: skip
    assert all(every[n] is getattr(sparray, n) for n in every)
    assert list(info.dtypes(kind="real floating")) == ["float32", "float64"]
    assert list(info.dtypes(kind=("bool", "complex floating"))) == ["bool", "complex64", "complex128"]
    assert len(info.dtypes(kind="numeric")) == 12 and len(info.dtypes(kind="integral", device="cpu")) == 8
    with pytest.raises(ValueError, match="kind"):
        info.dtypes(kind="floating")
    with pytest.raises(ValueError, match="device"):
        info.dtypes(device="tpu")
    defaults = info.default_dtypes()
    assert defaults == {"real floating": sparray.float64, "complex floating": sparray.complex128,
                        "integral": sparray.int64, "indexing": sparray.int64}  # fmt: skip
    assert sparray.nonzero(sparray.asarray([0, 1]))[0].dtype == defaults["indexing"]
    assert sparray.asarray([1.5]).dtype == defaults["real floating"]


def test_api_versions():
    A = sparray.asarray([1.0])
    assert sparray.__array_api_version__ == SUPPORTED_API_VERSIONS[-1] == "2024.12"
    for version in (None, *SUPPORTED_API_VERSIONS):
        assert A.__array_namespace__(api_version=version) is sparray
    for bad in ("2020.10", "2025.12", 2024.12):
        with pytest.raises(ValueError, match="2021.12, 2022.12, 2023.12, 2024.12"):
            A.__array_namespace__(api_version=bad)


@pytest.mark.parametrize("name", ["float32", "float64", "complex64", "complex128"])
def test_finfo_python_values(name):
    fi = sparray.finfo(getattr(sparray, name))
    exp = np.finfo(np.dtype(name))
    assert type(fi.bits) is int and all(type(getattr(fi, f)) is float for f in ("eps", "max", "min", "smallest_normal"))
    assert (fi.bits, fi.eps, fi.max, fi.min, fi.smallest_normal) == (exp.bits, exp.eps, exp.max, exp.min, exp.smallest_normal)
    assert fi.dtype == (sparray.float32 if name in ("float32", "complex64") else sparray.float64)
    assert sparray.finfo(sparray.asarray(np.ones(1, name))).eps == fi.eps


@pytest.mark.parametrize("name", ["int8", "uint8", "int64", "uint64"])
def test_iinfo_python_values(name):
    ii = sparray.iinfo(getattr(sparray, name))
    exp = np.iinfo(np.dtype(name))
    assert all(type(getattr(ii, f)) is int for f in ("bits", "max", "min"))
    assert (ii.bits, ii.max, ii.min) == (exp.bits, exp.max, exp.min) and ii.dtype == getattr(sparray, name)


def test_index():
    for dtype in ("int8", "uint64", "int32"):
        x = sparray.asarray(np.asarray(3, dtype))
        assert operator.index(x) == 3 and type(operator.index(x)) is int
        assert [10, 20, 30, 40][x] == 40
    assert operator.index(sparray.asarray(np.asarray(0, "int64"))) == 0  # the fill, unspecified
    for bad in (sparray.asarray([3]), sparray.asarray(3.0), sparray.asarray(True)):
        with pytest.raises(TypeError):
            operator.index(bad)
