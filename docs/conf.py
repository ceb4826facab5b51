"""Sphinx configuration of sparray's documentation site (pydata-sphinx-theme, MyST markdown).

Build: ``sphinx-build -W -b html docs docs/_build/html`` (tests/test_docs.py does exactly this).
Pages generated at build time, from the code itself, into ``docs/_generated/`` (not committed):
the API reference (every name of ``sparray.__all__``), the supported-operations table (the
kernel registry), one page per example script, and the benchmark plot.
"""

import pathlib
import sys

DOCS = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))
sys.path.insert(0, str(DOCS.parent))

import sparray  # noqa: E402

project = "sparray"
author = "the sparray developers"
copyright = "2026, the sparray developers"
release = version = sparray.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "sparray_pages",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]
exclude_patterns = ["_build", "_ext", "README.md"]
autodoc_member_order = "bysource"
autodoc_typehints = "none"
autodoc_default_options = {"members": False}
napoleon_numpy_docstring = True

html_theme = "pydata_sphinx_theme"
html_title = f"sparray {release}"
html_static_path = ["_static"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}
