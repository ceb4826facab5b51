"""Layout conversions: compressing and expanding (``compress``), coalescing COO (``coalesce``),
``to_layout``/``astype``/``to_device`` (``conversion``) and the binsparse interchange form. See docs/architecture.md.
"""
