"""Where numba keeps the compiled CPU kernels: a per-user cache folder, never inside the package.

numba's default for ``cache=True`` is a ``__pycache__`` folder next to the source. Inside
site-packages that leaves files pip did not install: ``pip uninstall`` keeps them, and a later
editable install finds the leftover ``sparray/kernels/`` folder imported as a namespace package
in front of the real one. So sparray's kernels are cached under :func:`cache_root`:

- ``$SPARRAY_CACHE_DIR`` when set;
- else ``$XDG_CACHE_HOME/sparray`` (``~/.cache/sparray``; ``%LOCALAPPDATA%\\sparray`` on Windows,
  ``~/Library/Caches/sparray`` on macOS);
- else, when that folder cannot be written, ``<temp dir>/sparray-<user>``.

The subfolder is named by a hash of the *contents* of every numba kernel source file
(``cpu-<sha1>``: every ``*.py`` under ``kernels/cpu/`` plus ``kernels/__init__.py``; the CUDA
sources and launchers under ``kernels/cuda/`` are not numba code and do not count): installs and checkouts with the same kernels share compiled code (a fresh
clone, a wheel install and an editable one compile once between them), and any change to any
kernel file, a helper module included, starts a new folder. numba itself also checks each
file's content hash before it reuses an entry. ``NUMBA_CACHE_DIR``,
when set, still wins, as numba documents. Only functions defined under ``sparray/kernels/`` are
located here; other numba code keeps numba's own rules.

>>> from sparray.kernels.cpu._cache import cache_root
>>> kernel_cache_dir().is_relative_to(cache_root())
True
"""

from __future__ import annotations

import getpass
import hashlib
import os
import pathlib
import sys
import tempfile

from numba.core import caching, config

__all__ = ["cache_root", "install", "kernel_cache_dir"]

_KERNELS_DIR = pathlib.Path(__file__).resolve().parent.parent  # .../sparray/kernels


def _default_root() -> pathlib.Path:
    if os.environ.get("SPARRAY_CACHE_DIR"):
        return pathlib.Path(os.environ["SPARRAY_CACHE_DIR"]).expanduser()
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return pathlib.Path(os.environ["LOCALAPPDATA"]) / "sparray"
    if sys.platform == "darwin":
        return pathlib.Path.home() / "Library" / "Caches" / "sparray"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(base) / "sparray"


def _fallback_root() -> pathlib.Path:
    try:
        user = getpass.getuser()
    except Exception:  # no user name (some containers): the uid is enough
        user = str(os.getuid()) if hasattr(os, "getuid") else "user"
    return pathlib.Path(tempfile.gettempdir()) / f"sparray-{user}"


def cache_root() -> pathlib.Path:
    """The folder sparray's compiled kernels live under (see the module docstring for the order)."""
    return _default_root()


_SOURCES_HASH: str | None = None


def sources_hash() -> str:
    """sha1 of the numba kernel sources (``kernels/__init__.py`` and every ``*.py`` under
    ``kernels/cpu``, names and contents)."""
    global _SOURCES_HASH
    if _SOURCES_HASH is None:
        digest = hashlib.sha1()
        sources = [_KERNELS_DIR / "__init__.py", *(_KERNELS_DIR / "cpu").rglob("*.py")]
        for path in sorted(sources):
            digest.update(path.relative_to(_KERNELS_DIR).as_posix().encode() + b"\0" + path.read_bytes())
        _SOURCES_HASH = digest.hexdigest()[:20]
    return _SOURCES_HASH


def kernel_cache_dir(root=None) -> pathlib.Path:
    """The folder numba writes these kernels into: ``<root>/numba/cpu-<hash of the kernel sources>``."""
    return (cache_root() if root is None else pathlib.Path(root)) / "numba" / f"cpu-{sources_hash()}"


def _is_sparray_kernel(py_file: str) -> bool:
    try:
        return pathlib.Path(py_file).resolve().is_relative_to(_KERNELS_DIR)
    except (OSError, ValueError):
        return False


class SparrayCacheLocator(caching.UserProvidedCacheLocator):
    """numba cache locator for sparray's kernels: the per-user folder of :func:`cache_root`."""

    def __init__(self, py_func, py_file, root=None):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = str(kernel_cache_dir(root))

    def get_source_stamp(self):
        """The sources' content hash, not numba's (mtime, size) of the file: the folder is already
        keyed by the contents, and two checkouts of the same kernels (a clone, a worktree, an
        install) have different mtimes; with numba's stamp each would find the other's index stale
        and recompile over it."""
        return sources_hash()

    @classmethod
    def from_function(cls, py_func, py_file):
        if config.CACHE_DIR or not os.path.exists(py_file) or not _is_sparray_kernel(py_file):
            return None  # NUMBA_CACHE_DIR set, or not one of ours: numba's own locators decide
        for root in (cache_root(), _fallback_root()):
            self = cls(py_func, py_file, root)
            try:
                self.ensure_cache_path()
                return self
            except OSError:
                continue
        return _NoCacheLocator(py_func, py_file)


class _NoCacheLocator(caching.UserProvidedCacheLocator):
    """Last resort when no folder can be written: a fresh temporary folder, gone with the process."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = tempfile.mkdtemp(prefix="sparray-numba-")


def install() -> None:
    """Put :class:`SparrayCacheLocator` first in numba's locator list (idempotent)."""
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # renamed in numba 0.61
    classes = impl._locator_classes
    if SparrayCacheLocator not in classes:
        classes.insert(0, SparrayCacheLocator)


install()
