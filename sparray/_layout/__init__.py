"""Layout conversions: compressing and expanding (``compress``), coalescing COO (``coalesce``),
``to_layout``/``astype``/``to_device`` (``conversion``) and the binsparse interchange form. See docs/architecture.md.
"""


from .._core.lazy import submodule_getattr

__getattr__ = submodule_getattr(__name__)  # sparray.<folder>.<module> loads on first use
