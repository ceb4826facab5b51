"""Modules of a private folder loaded on first attribute access (PEP 562), so that ``import sparray``
and a folder's ``__init__`` load nothing they do not need.

>>> getattr_ = submodule_getattr("sparray._core")
>>> getattr_("dtypes").__name__
'sparray._core.dtypes'
"""

from __future__ import annotations

import importlib

__all__ = ["submodule_getattr"]


def submodule_getattr(package: str):
    """A module-level ``__getattr__`` for ``package``: ``package.<name>`` imports the module of that
    name on first use (then it is an attribute like any other); AttributeError when there is none."""

    def __getattr__(name):
        try:
            return importlib.import_module(f"{package}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{package}.{name}":
                raise  # the module exists but something it imports does not: say that
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None

    return __getattr__
