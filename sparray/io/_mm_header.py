"""Matrix Market header: the banner, comment lines and the size line.

``parse_header(readline)`` reads lines (bytes, ``b""`` at the end) up to and including the
size line and returns an :class:`MMHeader`. Rules (the NIST Matrix Market specification):

- line 1 is ``%%MatrixMarket matrix <format> <field> <symmetry>``: ``%%MatrixMarket`` spelled
  exactly, the other words in any case; format ``coordinate`` | ``array``, field ``real`` |
  ``integer`` | ``complex`` | ``pattern``, symmetry ``general`` | ``symmetric`` |
  ``skew-symmetric`` | ``hermitian``;
- ``pattern`` only with ``coordinate`` and ``general`` / ``symmetric``; ``hermitian`` only with
  ``complex``; any symmetry but ``general`` needs a square matrix;
- then any number of lines starting with ``%`` and blank lines;
- then the size line: ``rows cols entries`` (coordinate) or ``rows cols`` (array),
  non-negative integers.

Every error is a ValueError ``"mmread: line N: ..."`` naming what was expected and what came.

>>> import io
>>> h = parse_header(io.BytesIO(b"%%MatrixMarket matrix coordinate real general\\n% hi\\n3 4 2\\n").readline)
>>> h.shape, h.entries, h.field, h.body_line
((3, 4), 2, 'real', 4)
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BANNER", "FIELDS", "FORMATS", "SYMMETRIES", "MMHeader", "parse_header"]

BANNER = "%%MatrixMarket"
FORMATS = ("coordinate", "array")
FIELDS = ("real", "integer", "complex", "pattern")
SYMMETRIES = ("general", "symmetric", "skew-symmetric", "hermitian")
_MAX_DIM = 2**63 - 1


@dataclass(frozen=True)
class MMHeader:
    """What the header says. ``entries`` is the number of entries the body holds: the third
    number of a coordinate size line, or the number of stored values of an array file
    (``rows * cols`` for general, the lower triangle for the other symmetries).
    ``body_line`` is the 1-based line number where the body starts."""

    format: str
    field: str
    symmetry: str
    rows: int
    cols: int
    entries: int
    body_line: int

    @property
    def shape(self) -> tuple[int, int]:
        return (self.rows, self.cols)

    def info(self) -> tuple:
        """``(rows, cols, entries, format, field, symmetry)`` as ``scipy.io.mminfo`` gives it
        (an array file reports ``rows * cols`` entries)."""
        entries = self.rows * self.cols if self.format == "array" else self.entries
        return (self.rows, self.cols, entries, self.format, self.field, self.symmetry)


def _fail(line: int, what: str):
    raise ValueError(f"mmread: line {line}: {what}")


def _decode(raw: bytes) -> str:
    return raw.decode("latin-1").rstrip("\r\n")


def _parse_banner(text: str) -> tuple[str, str, str]:
    words = text.split()
    if not words or words[0] != BANNER:
        shown = text[:60] if text else "an empty file"
        _fail(1, f"expected the banner '{BANNER} matrix <format> <field> <symmetry>'; got {shown!r}")
    if len(words) != 5:
        _fail(1, f"the banner needs 5 words '{BANNER} matrix <format> <field> <symmetry>'; got {len(words)}: {text!r}")
    obj, fmt, field, sym = (w.lower() for w in words[1:])
    if obj != "matrix":
        _fail(1, f"object must be 'matrix'; got {words[1]!r}")
    for name, value, allowed in (("format", fmt, FORMATS), ("field", field, FIELDS), ("symmetry", sym, SYMMETRIES)):
        if value not in allowed:
            _fail(1, f"unknown {name} {value!r}; expected one of {', '.join(allowed)}")
    if field == "pattern" and (fmt == "array" or sym not in ("general", "symmetric")):
        _fail(1, f"field 'pattern' goes only with format 'coordinate' and symmetry general or symmetric; got {fmt} {sym}")
    if sym == "hermitian" and field != "complex":
        _fail(1, f"symmetry 'hermitian' needs field 'complex'; got {field!r} (use 'symmetric')")
    return fmt, field, sym


def _parse_size(text: str, line: int, fmt: str) -> list[int]:
    words = text.split()
    want = 3 if fmt == "coordinate" else 2
    form = "'rows cols entries'" if fmt == "coordinate" else "'rows cols'"
    if len(words) != want:
        _fail(line, f"the size line of a {fmt} file must be {form} ({want} integers); got {text.strip()!r}")
    nums = []
    for w in words:
        if not w.isascii() or not w.isdigit():
            _fail(line, f"the size line must hold non-negative integers {form}; got {w!r}")
        v = int(w)
        if v > _MAX_DIM:
            _fail(line, f"size {w} does not fit in int64")
        nums.append(v)
    return nums


def parse_header(readline) -> MMHeader:
    """Read the header with ``readline()`` (bytes lines); stop right after the size line."""
    raw = readline()
    if isinstance(raw, str):  # a text stream
        text_readline = readline
        readline = lambda: text_readline().encode("latin-1", "replace")
        raw = raw.encode("latin-1", "replace")
    fmt, field, sym = _parse_banner(_decode(raw))
    line = 1
    while True:
        raw = readline()
        line += 1
        if not raw:
            _fail(line - 1, "the file ends before the size line")
        text = _decode(raw)
        stripped = text.strip()
        if not stripped or stripped.startswith("%"):
            continue
        break
    nums = _parse_size(text, line, fmt)
    rows, cols = nums[0], nums[1]
    if sym != "general" and rows != cols:
        _fail(line, f"a {sym} matrix must be square; the size line says {rows} x {cols}")
    if fmt == "coordinate":
        entries = nums[2]
    elif sym == "general":
        entries = rows * cols
    elif sym == "skew-symmetric":
        entries = rows * (rows - 1) // 2
    else:
        entries = rows * (rows + 1) // 2
    return MMHeader(fmt, field, sym, rows, cols, entries, line + 1)
