"""The documentation site builds with no warning (``sphinx-build -W``), generated pages included."""

import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_sphinx_build_has_no_warnings(tmp_path):
    pytest.importorskip("sphinx")
    pytest.importorskip("pydata_sphinx_theme")
    pytest.importorskip("myst_parser")
    out = tmp_path / "html"
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(ROOT / "docs"), str(out)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    api = (out / "_generated" / "api.html").read_text()
    import sparray

    missing = [n for n in sparray.__all__ if callable(getattr(sparray, n)) and f'id="sparray.{n}"' not in api]
    assert not missing, f"public callables without an API entry: {missing}"
    ops = (out / "_generated" / "operations.html").read_text()
    assert "matmul_dense" in ops and "spgemm" in ops
    assert (out / "_generated" / "examples" / "conjugate_gradient.html").exists()
    assert (out / "_images" / "benchmark_ratios.png").exists() or (out / "_generated" / "benchmark_ratios.png").exists()
