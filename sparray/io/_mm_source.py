"""Where Matrix Market bytes come from and go to: paths (``.gz`` / ``.bz2`` by suffix, as
scipy does) and binary or text file objects.

>>> import io
>>> read_bytes(io.StringIO("%%MatrixMarket matrix array real general\\n1 1\\n2\\n"))[:14]
b'%%MatrixMarket'
"""

from __future__ import annotations

import contextlib
import io
import os

__all__ = ["as_path", "open_binary", "open_for_write", "read_bytes", "source_size"]


def as_path(source) -> str | None:
    """The path string when ``source`` is a str / PathLike, else None (a file object)."""
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    if hasattr(source, "read") or hasattr(source, "write"):
        return None
    raise TypeError(f"Matrix Market source must be a path (str or os.PathLike) or a file object; got {type(source).__name__}")


def _open_path(path: str, mode: str):
    if path.endswith(".gz"):
        import gzip

        return gzip.open(path, mode)
    if path.endswith(".bz2"):
        import bz2

        return bz2.open(path, mode)
    return open(path, mode)


@contextlib.contextmanager
def open_binary(source):
    """A binary reader for ``source`` (a path is opened and closed here; a file object is
    used as it is, text ones through an encoder)."""
    path = as_path(source)
    if path is not None:
        with _open_path(path, "rb") as f:
            yield f
    elif isinstance(source, io.TextIOBase):
        yield io.BytesIO(source.read().encode("utf-8"))
    else:
        yield source


_READ_CHUNK = 1 << 24  # 16 MiB per read when a progress bar counts the bytes


def read_bytes(source, bar=None) -> bytes:
    """The whole (decompressed) content of ``source`` as bytes; ``bar`` (a ``Progress``) counts them."""
    path = as_path(source)
    if path is not None:
        with _open_path(path, "rb") as f:
            if bar is None:
                return f.read()
            parts = []
            while chunk := f.read(_READ_CHUNK):
                parts.append(chunk)
                bar.update(len(chunk))
            return b"".join(parts)
    data = source.read()
    return data.encode("utf-8") if isinstance(data, str) else bytes(data)


def source_size(source) -> int | None:
    """Bytes ``read_bytes`` will return, when known without reading (an uncompressed path)."""
    path = as_path(source)
    if path is None or path.endswith((".gz", ".bz2")):
        return None
    try:
        return os.path.getsize(path)
    except OSError:
        return None


@contextlib.contextmanager
def open_for_write(target):
    """A ``write(bytes)`` function for ``target`` (a path is opened and closed here; the bytes
    are decoded as UTF-8 for a text file object)."""
    path = as_path(target)
    if path is not None:
        with _open_path(path, "wb") as f:
            yield f.write
    elif isinstance(target, io.TextIOBase):
        yield lambda b: target.write(b.decode("utf-8"))
    else:
        yield target.write
