"""Screenshot of sparray's Jupyter HTML repr, as a person sees it in a browser.

Writes an HTML page holding ``A._repr_html_()`` for a few arrays (a 2-D Poisson CSR, a batched
CSR, a hybrid COO with a dense-part fill, a BSR, a 1e6 x 1e6 random COO with 1e6 entries) and
takes a PNG of it with headless Chromium (Debian: ``apt-get install chromium``).

    python scripts/screenshot_repr.py [out.png]      # default: docs/_static/repr_screenshot.png

The page itself is kept in the temp folder (``sparray_repr_screenshot.html``) to open by hand.
"""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys
import tempfile

import numpy as np

import sparray


def _poisson2d(n: int):
    """The 5-point Laplacian on an n x n grid, as CSR (built from its diagonals)."""
    N = n * n
    i = np.arange(N)
    rows = [i, i[:-1], i[1:], i[:-n], i[n:]]
    cols = [i, i[1:], i[:-1], i[n:], i[:-n]]
    vals = [np.full(N, 4.0), -np.ones(N - 1), -np.ones(N - 1), -np.ones(N - n), -np.ones(N - n)]
    keep = [np.ones(N, bool), (i[:-1] % n) != n - 1, (i[1:] % n) != 0, np.ones(N - n, bool), np.ones(N - n, bool)]
    r = np.concatenate([a[k] for a, k in zip(rows, keep)])
    c = np.concatenate([a[k] for a, k in zip(cols, keep)])
    v = np.concatenate([a[k] for a, k in zip(vals, keep)])
    return sparray.COO(np.stack([r, c]), v, shape=(N, N)).coalesce().to_layout("csr")


def arrays() -> dict[str, sparray.SparseArray]:
    rng = np.random.default_rng(0)
    n = 1_000_000
    return {
        "2-D Poisson matrix, 30 x 30 grid (CSR)": _poisson2d(30),
        "batched CSR, 3 batches": sparray.asarray(rng.random((3, 40, 60)) < 0.05, layout="csr"),
        "hybrid COO, dense-part fill": sparray.COO(
            np.array([[0, 3, 7]]), np.arange(6.0).reshape(3, 2), shape=(10, 2), fill_value=np.array([0.5, -1.0])
        ),
        "BSR 4x4 blocks": sparray.asarray(np.kron(np.eye(16), np.ones((4, 4))), layout="bsr", blocksize=(4, 4)),
        "1e6 x 1e6 random COO, 1e6 entries": sparray.COO(rng.integers(0, n, (2, n)), rng.random(n), shape=(n, n)),
    }


def page() -> str:
    parts = [f"<h3 style='font-family:sans-serif'>{title}</h3>{A._repr_html_()}" for title, A in arrays().items()]
    return "<html><body style='font-family:sans-serif;font-size:13px'>" + "".join(parts) + "</body></html>"


def main(out: str = str(pathlib.Path(__file__).resolve().parents[1] / "docs" / "_static" / "repr_screenshot.png")) -> pathlib.Path:
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if browser is None:
        raise SystemExit("screenshot_repr: no chromium found (apt-get install chromium)")
    png = pathlib.Path(out).resolve()
    png.parent.mkdir(parents=True, exist_ok=True)
    html = pathlib.Path(tempfile.gettempdir()) / "sparray_repr_screenshot.html"
    html.write_text(page())
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           f"--screenshot={png}", "--window-size=900,1350", html.as_uri()]  # fmt: skip
    subprocess.run(cmd, check=True, capture_output=True, timeout=120)
    print(f"wrote {png} (page: {html})")
    return png


if __name__ == "__main__":
    main(*sys.argv[1:])
